// examples/reduce/reduce_cce.cuh - the `cce` opponent of the Reduction
// workload: the same tiles and loads as the MMA variants, each lane adding
// its 8 values per tile on CUDA cores (FP64, or FP16 input summed in FP32),
// then a shuffle tree; only the additions the sum needs (no MMA-shaped work).
//
// Provides (namespace tcore::examples::reduce)
//   warp_sum_cce<T>: a warp-level accumulator with the interface of
//       tcore::warp_sum (add, total, store_segments<S>), so the kit's
//       launchers run it through tcore::reduce_with / reduce_segments_with.
//   warp_reduce_cce(v), block_reduce_cce<BlockThreads>(v, smem): the warp
//       and block sums of 8 values per lane (block: tcore::block_sum_of_warps).
//   reduce_cce<T>(temp, temp_bytes, in, out, n, stream),
//   reduce_segments_cce<T>(in, out, num_segments, segment_size, stream):
//       the device-wide and segmented sums of tcore::reduce and
//       tcore::reduce_segments (same grid, placement and combine order).
// Preconditions: T double (double sums) or __half (float sums). Warp and
// block calls as tcore::warp_reduce / block_reduce: all 32 lanes converged
// (shuffles with a full mask; not checked); block: 1-D, exactly
// BlockThreads threads, every thread calls it, smem BlockThreads/32 sums.
// store_segments<S> needs the placement reduce_segments_with gives (chunk
// for S = 64, 128, stream for 256: S/8 consecutive lanes hold one
// segment). Launchers: those
// of tcore::reduce and reduce_segments (device pointers; tcore::error on
// bad arguments).
#pragma once

#include <tcore/patterns/device/reduce.cuh>
#include <tcore/patterns/reduce.cuh>

#include <cuda_runtime.h>

#include <cstddef>

namespace tcore::examples::reduce {

/// The cce accumulator: each lane adds its values on CUDA cores; shuffle tree.
template <class T>
struct warp_sum_cce {
    using in_type = T;
    using sum_type = sum_type_t<T>;
    sum_type s;

    __device__ warp_sum_cce() : s(0) {}
    __device__ void reset() { s = 0; }

    __device__ void add(const T (&v)[reduce_per_lane])
    {
        sum_type p[4];
        static_for<4>([&](auto j) {
            p[j] = convert_to<sum_type>(v[2 * j]) + convert_to<sum_type>(v[2 * j + 1]);
        });
        s += (p[0] + p[1]) + (p[2] + p[3]);
    }

    __device__ sum_type total() const
    {
        sum_type r = s;
        for (int o = 16; o > 0; o >>= 1) r += __shfl_xor_sync(0xffffffffu, r, o);
        return r;
    }

    template <int S>
    __device__ void store_segments(sum_type* out, long long first, long long count) const
    {
        static_assert(S == 64 || S == 128 || S == 256, "segments of 64, 128 or 256 per tile");
        constexpr int lanes = S / 8;  // lanes holding one segment (8 values each)
        const int lane = lane_id();
        sum_type r = s;
        for (int o = 1; o < lanes; o <<= 1) r += __shfl_xor_sync(0xffffffffu, r, o);
        if (lane % lanes == 0 && first + lane / lanes < count) out[first + lane / lanes] = r;
    }
};

/// cce: the same sum with CUDA-core adds and a shuffle tree.
template <class T>
__device__ inline sum_type_t<T> warp_reduce_cce(const T (&v)[reduce_per_lane])
{
    warp_sum_cce<T> s;
    s.add(v);
    return s.total();
}

/// cce block sum.
template <int BlockThreads, class T>
__device__ inline sum_type_t<T> block_reduce_cce(const T (&v)[reduce_per_lane], sum_type_t<T>* smem)
{
    return block_sum_of_warps<BlockThreads>(warp_reduce_cce(v), smem);
}


/// cce: the same device-wide sum with CUDA-core adds and shuffle trees.
template <class T>
inline void reduce_cce(void* temp, std::size_t& temp_bytes, const T* in, sum_type_t<T>* out, long long n,
                       cudaStream_t stream = 0)
{
    tcore::reduce_with<warp_sum_cce<T>>(temp, temp_bytes, in, out, n, stream, "tcore::examples::reduce::reduce_cce");
}

/// cce segmented sum.
template <class T>
inline void reduce_segments_cce(const T* in, sum_type_t<T>* out, long long num_segments, long long segment_size,
                                cudaStream_t stream = 0)
{
    tcore::reduce_segments_with<warp_sum_cce<T>>(in, out, num_segments, segment_size, stream,
                                                 "tcore::examples::reduce::reduce_segments_cce");
}

}  // namespace tcore::examples::reduce
