// tcore/patterns/device/reduce.cuh - device-wide and segmented sums, launched
// from the host, composed of the warp building blocks of patterns/reduce.cuh
// (warp_sum, reduce_load*).
//
// Provides
//   reduce<Backend, Shape>(temp, temp_bytes, in, out, n, stream): out[0] =
//       in[0] + ... + in[n-1]. CUB-style temp-storage query (temp ==
//       nullptr only sets temp_bytes, for the current device). Two kernels:
//       a resident grid of 256-thread blocks whose warps sum pairs of
//       256-element tiles (stream placement, 16-byte loads where `in` is
//       16-byte aligned), one partial per block, then one block adds the
//       partials in a fixed order. Bitwise deterministic run to run: for a
//       given n and device the grid is fixed, each warp sums a fixed set of
//       tiles, and block and grid partials are combined in a fixed order (no
//       floating-point atomics). The last stage adds at most 32 partials per
//       SM on CUDA cores for every variant.
//   reduce_segments<Backend, Shape>(in, out, num_segments, segment_size,
//       stream): out[s] = sum of segment s. Segments of 64, 128 and 256 with
//       16-byte aligned segments take whole segments per tile (chunk
//       placement, store_segments); other sizes one warp per segment.
//   reduce_with<WarpSum>(temp, temp_bytes, in, out, n, stream, where),
//   reduce_segments_with<WarpSum>(in, out, num_segments, segment_size,
//       stream, where): the same launches with the caller's warp-level
//       accumulator in place of warp_sum<Backend, Shape> (the benchmark's
//       CUDA-core opponent, examples/reduce/reduce_cce.cuh, is one); errors
//       name `where`.
// WarpSum, a type whose members every lane of a warp calls together:
//   in_type, sum_type         element and sum types (in_type: double or
//                             __half, as the tile loads read; sum_type:
//                             what `out` holds and the block partials are
//                             added in: constructible from 0, a type
//                             __shfl_xor_sync takes)
//   WarpSum()                 (__device__) an empty sum
//   reset()                   empties it
//   add(const in_type (&v)[reduce_per_lane])
//                             adds one 256-element tile, 8 values per lane
//                             at reduce_tile_pos<P, in_type>(lane, q), P
//                             the stream placement, or (reduce_segments_with,
//                             segments of 64 and 128) the chunk placement
//   total() -> sum_type       everything added so far (lane 0's is used)
//   store_segments<S>(out, first, count)   (reduce_segments_with only)
//                             after one tile added to an empty sum: its
//                             256/S segment sums (S = 64, 128, 256) to
//                             out[first + s] where first + s < count
// Preconditions: device pointers; `in` needs only element alignment; any
// n, num_segments, segment_size >= 0 (tcore::error otherwise).
#pragma once

#include "../reduce.cuh"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>

namespace tcore {

// -- kernels -----------------------------------------------------------------

namespace detail {

inline constexpr int reduce_threads = 256;
inline constexpr int reduce_warps = reduce_threads / 32;

/// Device-wide stage 1: warp w of the grid sums tile pairs w, w + W, ...
/// (a pair is 512 elements; the last one is read with bounds checks);
/// each block writes its sum (warps added in order) to partials[blockIdx.x].
template <class Acc, bool Vec>
__global__ void __launch_bounds__(reduce_threads, 3)
    reduce_partials_kernel(const typename Acc::in_type* in, long long n, typename Acc::sum_type* partials)
{
    using T = typename Acc::in_type;
    using S = typename Acc::sum_type;
    constexpr auto P = reduce_placement::stream;
    const int warp = threadIdx.x >> 5;
    const long long pairs = ceil_div(n, 2 * reduce_tile);
    const long long gw = static_cast<long long>(blockIdx.x) * reduce_warps + warp;
    const long long stride = static_cast<long long>(gridDim.x) * reduce_warps;
    Acc acc;
    for (long long pair = gw; pair < pairs; pair += stride) {
        T v0[reduce_per_lane], v1[reduce_per_lane];
        const long long first = pair * 2 * reduce_tile;
        reduce_load_pair<P, Vec>(v0, v1, in + first, n - first);
        acc.add(v0);
        acc.add(v1);
    }
    __shared__ S warp_sums[reduce_warps];
    const S w = acc.total();
    if ((threadIdx.x & 31) == 0) warp_sums[warp] = w;
    __syncthreads();
    if (threadIdx.x == 0) {
        S s = warp_sums[0];
        for (int i = 1; i < reduce_warps; ++i) s += warp_sums[i];
        partials[blockIdx.x] = s;
    }
}

/// Device-wide stage 2 (one block): partials added in a fixed order.
template <class S>
__global__ void __launch_bounds__(reduce_threads) reduce_final_kernel(const S* partials, int count, S* out)
{
    S s = 0;
    for (int i = threadIdx.x; i < count; i += reduce_threads) s += partials[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    __shared__ S warp_sums[reduce_warps];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        S t = warp_sums[0];
        for (int i = 1; i < reduce_warps; ++i) t += warp_sums[i];
        *out = t;
    }
}

/// Segments of S = 64, 128 or 256: each tile holds 256/S segments; a warp
/// loads a pair of tiles before adding either. S = 256 needs only the tile's
/// total, so its tiles take the stream placement (512-byte loads).
template <class Acc, int S>
__global__ void __launch_bounds__(reduce_threads, 3)
    reduce_small_segments_kernel(const typename Acc::in_type* in, typename Acc::sum_type* out, long long num_segments)
{
    using T = typename Acc::in_type;
    constexpr auto P = S == 256 ? reduce_placement::stream : reduce_placement::chunk;
    constexpr int per_tile = reduce_tile / S;
    const long long n = num_segments * S;
    const long long pairs = ceil_div(n, 2 * reduce_tile);
    const long long gw = static_cast<long long>(blockIdx.x) * reduce_warps + (threadIdx.x >> 5);
    const long long stride = static_cast<long long>(gridDim.x) * reduce_warps;
    Acc acc;
    for (long long pair = gw; pair < pairs; pair += stride) {
        T v0[reduce_per_lane], v1[reduce_per_lane];
        const long long first = pair * 2 * reduce_tile;
        reduce_load_pair<P, true>(v0, v1, in + first, n - first);
        acc.reset();
        acc.add(v0);
        acc.template store_segments<S>(out, 2 * pair * per_tile, num_segments);
        acc.reset();
        acc.add(v1);
        acc.template store_segments<S>(out, (2 * pair + 1) * per_tile, num_segments);
    }
}

/// Any segment size: warp w sums segments w, w + W, ... (tile pairs, then
/// the one or two tiles left, the last one read with bounds checks). W is
/// the grid's warp count; launched with a warp per segment, each warp sums one.
template <class Acc, bool Vec>
__global__ void __launch_bounds__(reduce_threads, 2)
    reduce_segments_kernel(const typename Acc::in_type* in, typename Acc::sum_type* out, long long num_segments,
                           long long seg)
{
    using T = typename Acc::in_type;
    using S = typename Acc::sum_type;
    constexpr auto P = reduce_placement::stream;
    const long long gw = static_cast<long long>(blockIdx.x) * reduce_warps + (threadIdx.x >> 5);
    const long long stride = static_cast<long long>(gridDim.x) * reduce_warps;
    Acc acc;
    for (long long s = gw; s < num_segments; s += stride) {
        const T* base = in + s * seg;
        acc.reset();
        long long first = 0;
        for (; first + 2 * reduce_tile <= seg; first += 2 * reduce_tile) {  // whole tile pairs
            T v0[reduce_per_lane], v1[reduce_per_lane];
            reduce_load<P, Vec>(v0, base + first);
            reduce_load<P, Vec>(v1, base + first + reduce_tile);
            acc.add(v0);
            acc.add(v1);
        }
        for (; first < seg; first += reduce_tile) {  // at most two more tiles, the last maybe partial
            T v[reduce_per_lane];
            if (seg - first >= reduce_tile) reduce_load<P, Vec>(v, base + first);
            else reduce_load_part<P>(v, base + first, seg - first);
            acc.add(v);
        }
        const S r = acc.total();
        if ((threadIdx.x & 31) == 0) out[s] = r;
    }
}

/// Most partials stage 1 can write: 32 resident blocks per SM at most.
inline long long reduce_max_partials() { return static_cast<long long>(sm_count()) * 32; }

template <class Acc>
inline void reduce_device(const char* where, void* temp, std::size_t& temp_bytes, const typename Acc::in_type* in,
                          typename Acc::sum_type* out, long long n, cudaStream_t stream)
{
    using S = typename Acc::sum_type;
    const long long max_partials = reduce_max_partials();
    const std::size_t need = static_cast<std::size_t>(max_partials) * sizeof(S);
    if (temp == nullptr) {
        temp_bytes = need;
        return;
    }
    require(temp_bytes >= need, where,
            "temp_bytes (" + std::to_string(temp_bytes) + ") is below the queried size (" + std::to_string(need) + ")");
    require(aligned(temp, alignof(S)), where, "temp is not aligned to the sum type");
    require_size(n, where, "n");
    require_pointer(out, where, "out");
    if (n == 0) {
        TCORE_CHECK(cudaMemsetAsync(out, 0, sizeof(S), stream));
        return;
    }
    require_pointer(in, where, "in");
    const long long pairs = ceil_div(ceil_div(n, reduce_tile), 2);
    S* partials = static_cast<S*>(temp);
    auto run = [&](auto kernel) {
        long long grid = resident_grid(kernel, reduce_threads, ceil_div(pairs, reduce_warps));
        if (grid > max_partials) grid = max_partials;
        kernel<<<static_cast<unsigned>(grid), reduce_threads, 0, stream>>>(in, n, partials);
        TCORE_CHECK_LAUNCH();
        reduce_final_kernel<S><<<1, reduce_threads, 0, stream>>>(partials, static_cast<int>(grid), out);
        TCORE_CHECK_LAUNCH();
    };
    if (aligned(in, 16)) run(reduce_partials_kernel<Acc, true>);
    else run(reduce_partials_kernel<Acc, false>);
}

template <class Acc>
inline void reduce_segments_impl(const char* where, const typename Acc::in_type* in, typename Acc::sum_type* out,
                                 long long num_segments, long long segment_size, cudaStream_t stream)
{
    using T = typename Acc::in_type;
    using S = typename Acc::sum_type;
    require_size(num_segments, where, "num_segments");
    require_size(segment_size, where, "segment_size");
    if (num_segments == 0) return;
    require_pointer(out, where, "out");
    require(segment_size == 0 || num_segments <= LLONG_MAX / segment_size, where,
            "num_segments * segment_size overflows a 64-bit size");
    if (segment_size == 0) {
        TCORE_CHECK(cudaMemsetAsync(out, 0, static_cast<std::size_t>(num_segments) * sizeof(S), stream));
        return;
    }
    require_pointer(in, where, "in");
    const bool vec = aligned(in, 16) && (segment_size * static_cast<long long>(sizeof(T))) % 16 == 0;
    // One pass: a warp per tile pair or segment, more blocks than fit at
    // once. Segments of 256-1024 measured faster this way than on a
    // resident grid whose warps loop (each warp's next loads wait on its
    // last sum; examples/reduce/README.md); segments of 256 also need the
    // tile pairs to keep enough loads in flight.
    auto one_pass = [](long long warps) { return std::min<long long>(ceil_div(warps, reduce_warps), INT_MAX); };
    auto run_small = [&](auto kernel, long long seg) {
        const long long pairs = ceil_div(ceil_div(num_segments * seg, reduce_tile), 2);
        kernel<<<static_cast<unsigned>(one_pass(pairs)), reduce_threads, 0, stream>>>(in, out, num_segments);
        TCORE_CHECK_LAUNCH();
    };
    auto run_any = [&](auto kernel) {
        kernel<<<static_cast<unsigned>(one_pass(num_segments)), reduce_threads, 0, stream>>>(in, out, num_segments,
                                                                                             segment_size);
        TCORE_CHECK_LAUNCH();
    };
    if (vec && segment_size == 64) run_small(reduce_small_segments_kernel<Acc, 64>, 64);
    else if (vec && segment_size == 128) run_small(reduce_small_segments_kernel<Acc, 128>, 128);
    else if (vec && segment_size == 256) run_small(reduce_small_segments_kernel<Acc, 256>, 256);
    else if (vec) run_any(reduce_segments_kernel<Acc, true>);
    else run_any(reduce_segments_kernel<Acc, false>);
}

}  // namespace detail

// -- host entry points -------------------------------------------------------

/// out[0] = in[0] + ... + in[n-1] on the MMA (Backend tensor_core: tc,
/// cuda_core: cc). Shape: an FP64 shape (in: double, out: double) or
/// f16_m16n8k16_f32acc (in: __half, out: float). CUB-style: with temp ==
/// nullptr only sets temp_bytes (same device as the run). Any n >= 0 (n = 0
/// gives 0); `in` needs only element alignment (16-byte aligned input takes
/// the vector-load path). Bitwise deterministic for a given n and device.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void reduce(void* temp, std::size_t& temp_bytes, const typename Shape::b_type* in,
                   typename Shape::c_type* out, long long n, cudaStream_t stream = 0)
{
    detail::reduce_device<warp_sum<Backend, Shape>>("tcore::reduce", temp, temp_bytes, in, out, n, stream);
}

/// out[s] = sum of in[s*segment_size .. (s+1)*segment_size) for s < num_segments.
/// Fast paths: segment sizes 64, 128 and 256 (whole segments per MMA tile) and
/// any size whose segments start 16-byte aligned; others load element by element.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void reduce_segments(const typename Shape::b_type* in, typename Shape::c_type* out, long long num_segments,
                            long long segment_size, cudaStream_t stream = 0)
{
    detail::reduce_segments_impl<warp_sum<Backend, Shape>>("tcore::reduce_segments", in, out, num_segments,
                                                           segment_size, stream);
}

/// The device-wide sum of reduce with the caller's warp-level accumulator
/// WarpSum (the interface in the header comment): the same temp-storage
/// query, grid, placement and fixed combine order, so bitwise deterministic
/// for a given n and device where WarpSum's sums are.
template <class WarpSum>
inline void reduce_with(void* temp, std::size_t& temp_bytes, const typename WarpSum::in_type* in,
                        typename WarpSum::sum_type* out, long long n, cudaStream_t stream = 0,
                        const char* where = "tcore::reduce_with")
{
    detail::reduce_device<WarpSum>(where, temp, temp_bytes, in, out, n, stream);
}

/// The segmented sum of reduce_segments with the caller's warp-level
/// accumulator WarpSum (which needs store_segments<S> too).
template <class WarpSum>
inline void reduce_segments_with(const typename WarpSum::in_type* in, typename WarpSum::sum_type* out,
                                 long long num_segments, long long segment_size, cudaStream_t stream = 0,
                                 const char* where = "tcore::reduce_segments_with")
{
    detail::reduce_segments_impl<WarpSum>(where, in, out, num_segments, segment_size, stream);
}

}  // namespace tcore
