// examples/scale/scale_base.cuh - the scale workload's opponent: a = q*b as
// a vectorized CUDA-core STREAM scale (double2, grid-stride). It reads and
// writes exactly the same addresses in the same order as the MMA kernel of
// tcore/patterns/device/scale.cuh (one group of tcore::scale_group_elems
// doubles per warp and iteration, the scalar tail tcore::scale_tail), so the
// two differ only in the arithmetic.
#pragma once

#include <tcore/check.cuh>
#include <tcore/infra/launch.cuh>
#include <tcore/patterns/device/scale.cuh>

#include <cuda_runtime.h>

namespace tcore::examples::scale {

inline constexpr int block_threads = tcore::scale_block_threads;  ///< 8 warps
inline constexpr int group_elems = tcore::scale_group_elems;      ///< doubles per warp per iteration

namespace scale_impl {

__device__ inline double2 load2(const double* p) { return *reinterpret_cast<const double2*>(p); }
__device__ inline void store2(double* p, double2 v) { *reinterpret_cast<double2*>(p) = v; }

}  // namespace scale_impl

/// base: a[i] = q*b[i]. Vector (a and b 16-byte aligned): double2 groups as
/// described above, then the scalar tail; otherwise scalar grid-stride.
template <bool Vector>
__global__ void __launch_bounds__(block_threads) scale_base_kernel(const double* b, double* a, double q, long long n)
{
    long long done = 0;
    if constexpr (Vector) {
        constexpr int loads = group_elems / 64;  // double2 per lane per group
        const int lane = threadIdx.x & 31;
        const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
        const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
        const long long groups = n / group_elems;
#pragma unroll 1
        for (long long grp = warp; grp < groups; grp += warps) {
            const long long base = grp * group_elems + 2 * lane;
            double2 v[loads];
#pragma unroll
            for (int j = 0; j < loads; ++j) v[j] = scale_impl::load2(b + base + 64 * j);
#pragma unroll
            for (int j = 0; j < loads; ++j) {
                v[j].x *= q;
                v[j].y *= q;
            }
#pragma unroll
            for (int j = 0; j < loads; ++j) scale_impl::store2(a + base + 64 * j, v[j]);
        }
        done = groups * group_elems;
    }
    tcore::scale_tail(b, a, q, done, n);
}

/// a = q*b on CUDA cores (double2 when a and b are 16-byte aligned, scalar
/// otherwise). Throws tcore::error on bad arguments or a failed launch.
inline void scale_base(const double* b, double* a, double q, long long n, cudaStream_t stream = nullptr)
{
    tcore::check_scale_args("scale_base", b, a, n);
    if (n == 0) return;
    if (tcore::aligned(a, 16) && tcore::aligned(b, 16)) {
        const long long warps = (n + group_elems - 1) / group_elems;
        const int grid = tcore::scale_grid((warps + 7) / 8);
        scale_base_kernel<true><<<grid, block_threads, 0, stream>>>(b, a, q, n);
    } else {
        const int grid = tcore::scale_grid((n + block_threads - 1) / block_threads);
        scale_base_kernel<false><<<grid, block_threads, 0, stream>>>(b, a, q, n);
    }
    TCORE_CHECK_LAUNCH();
}

}  // namespace tcore::examples::scale
