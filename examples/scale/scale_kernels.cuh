// examples/scale/scale_kernels.cuh - SCALE, a = q*b in FP64: the kernels of
// the scale workload and their host launchers (also used by tests/gpu).
//
//   scale_base      vectorized CUDA-core STREAM scale (double2, grid-stride)
//   scale_mma<Shape, Backend>
//                   A = B*(qI) on the FP64 MMA (tcore/patterns/scale.cuh):
//                   tensor_core = `tc` / `tc-<shape>`, cuda_core = `cc` /
//                   `cc-<shape>` (same layout, same kernel template)
//
// Streaming: every warp moves one group of 512 consecutive doubles (4 KiB)
// per iteration, 8 coalesced 16-byte loads per lane issued before the first
// use (128 bytes in flight per lane), one group per warp (the loops
// grid-stride only past the grid's size limit). The base and MMA kernels read and
// write exactly the same addresses in the same order, so they differ only in
// the arithmetic. Elements after the last full tile (fewer than 64 or 128)
// take a scalar path at the end of the same kernel. n = 0 launches nothing.
// a == b (in place) is allowed; partial overlap is not.
#pragma once

#include <tcore/check.cuh>
#include <tcore/patterns/scale.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace tcore::examples::scale {

inline constexpr int block_threads = 256;  ///< 8 warps
inline constexpr int group_elems = 512;    ///< doubles per warp per iteration

namespace detail {

__device__ inline double2 load2(const double* p) { return *reinterpret_cast<const double2*>(p); }
__device__ inline void store2(double* p, double2 v) { *reinterpret_cast<double2*>(p) = v; }

/// Scalar a[i] = q*b[i] for i in [first, n), grid-stride over all threads.
__device__ inline void scale_tail(const double* b, double* a, double q, long long first, long long n)
{
    const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = first + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads)
        a[i] = q * b[i];
}

}  // namespace detail

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
            for (int j = 0; j < loads; ++j) v[j] = detail::load2(b + base + 64 * j);
#pragma unroll
            for (int j = 0; j < loads; ++j) {
                v[j].x *= q;
                v[j].y *= q;
            }
#pragma unroll
            for (int j = 0; j < loads; ++j) detail::store2(a + base + 64 * j, v[j]);
        }
        done = groups * group_elems;
    }
    detail::scale_tail(b, a, q, done, n);
}

/// tc / cc: a = b*(qI) tile by tile on `Shape` (tcore::scale_tile). a and b
/// 16-byte aligned. The per-tile guard is warp-uniform (whole warps take it).
template <class Shape, class Backend>
__global__ void __launch_bounds__(block_threads) scale_mma_kernel(const double* b, double* a, double q, long long n)
{
    using L = tcore::scale_layout<Shape>;
    constexpr int P = L::pairs, E = L::elems, tiles_per_group = group_elems / E;
    const int lane = threadIdx.x & 31;
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
    const long long tiles = n / E;
#pragma unroll 1
    for (long long t0 = warp * tiles_per_group; t0 < tiles; t0 += warps * tiles_per_group) {
        double2 v[tiles_per_group][P];
#pragma unroll
        for (int j = 0; j < tiles_per_group; ++j) {
            if (t0 + j < tiles) {
#pragma unroll
                for (int p = 0; p < P; ++p) v[j][p] = detail::load2(b + (t0 + j) * E + 64 * p + 2 * lane);
            }
        }
#pragma unroll
        for (int j = 0; j < tiles_per_group; ++j) {
            if (t0 + j < tiles) tcore::scale_tile<Backend, Shape>(v[j], q, lane);
        }
#pragma unroll
        for (int j = 0; j < tiles_per_group; ++j) {
            if (t0 + j < tiles) {
#pragma unroll
                for (int p = 0; p < P; ++p) detail::store2(a + (t0 + j) * E + 64 * p + 2 * lane, v[j][p]);
            }
        }
    }
    detail::scale_tail(b, a, q, tiles * E, n);
}

namespace detail {

/// Blocks to launch: one per `work_blocks` (a group per warp), at most the
/// grid's x limit (the kernels grid-stride past it). A grid capped at what
/// is resident at once left a partly filled last round per warp and cost
/// up to 8% of the bandwidth at 4x L2 (cc, H200); one group per warp lets
/// the block scheduler balance the tail.
inline int grid_for(long long work_blocks)
{
    constexpr long long max_grid = 0x7fffffff;
    return static_cast<int>(work_blocks < 1 ? 1 : work_blocks < max_grid ? work_blocks : max_grid);
}

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

inline void check_args(const char* where, const double* b, const double* a, long long n)
{
    tcore::require(n >= 0, where, "n must be >= 0 (got " + std::to_string(n) + ")");
    if (n == 0) return;
    tcore::require(b != nullptr, where, "input b is a null pointer");
    tcore::require(a != nullptr, where, "output a is a null pointer");
    const auto ia = reinterpret_cast<std::uintptr_t>(a), ib = reinterpret_cast<std::uintptr_t>(b);
    const auto bytes = static_cast<std::uintptr_t>(n) * sizeof(double);
    tcore::require(ia == ib || ia + bytes <= ib || ib + bytes <= ia, where,
                   "a and b overlap partially (only a == b, in place, is allowed)");
}

}  // namespace detail

/// a = q*b on CUDA cores (double2 when a and b are 16-byte aligned, scalar
/// otherwise). Throws tcore::error on bad arguments or a failed launch.
inline void scale_base(const double* b, double* a, double q, long long n, cudaStream_t stream = nullptr)
{
    detail::check_args("scale_base", b, a, n);
    if (n == 0) return;
    if (detail::aligned16(a) && detail::aligned16(b)) {
        const long long warps = (n + group_elems - 1) / group_elems;
        const int grid = detail::grid_for((warps + 7) / 8);
        scale_base_kernel<true><<<grid, block_threads, 0, stream>>>(b, a, q, n);
    } else {
        const int grid = detail::grid_for((n + block_threads - 1) / block_threads);
        scale_base_kernel<false><<<grid, block_threads, 0, stream>>>(b, a, q, n);
    }
    TCORE_CHECK_LAUNCH();
}

/// a = b*(qI) on the FP64 MMA `Shape` (f64_m16n8k8, f64_m16n8k4 or
/// f64_m8n8k4) with `Backend`. a and b must be 16-byte aligned (cudaMalloc
/// memory is). Throws tcore::error on bad arguments or a failed launch.
template <class Shape, class Backend>
void scale_mma(const double* b, double* a, double q, long long n, cudaStream_t stream = nullptr)
{
    detail::check_args("scale_mma", b, a, n);
    if (n == 0) return;
    tcore::require(detail::aligned16(a) && detail::aligned16(b), "scale_mma",
                   "a and b must be 16-byte aligned (the tiles are read as double2)");
    const long long warps = (n + group_elems - 1) / group_elems;
    const int grid = detail::grid_for((warps + 7) / 8);
    scale_mma_kernel<Shape, Backend><<<grid, block_threads, 0, stream>>>(b, a, q, n);
    TCORE_CHECK_LAUNCH();
}

}  // namespace tcore::examples::scale
