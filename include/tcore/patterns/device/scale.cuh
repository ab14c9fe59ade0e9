// tcore/patterns/device/scale.cuh - the launcher of the scale pattern
// (tcore/patterns/scale.cuh): a = b*(qI) in FP64 over a whole array on the
// MMA, tile by tile with tcore::scale_tile.
//
//   scale_mma<Shape, Backend>(b, a, q, n, stream)   Shape f64_m16n8k8,
//       f64_m16n8k4 or f64_m8n8k4; tensor_core or cuda_core (same layout,
//       same kernel template, scale_mma_kernel)
//   scale_tail, scale_grid, check_scale_args   the scalar remainder, grid
//       size and argument checks, shared with a user's own streaming kernel
//
// Streaming: every warp moves one group of scale_group_elems (512) consecutive
// doubles (4 KiB) per iteration, 8 coalesced 16-byte loads per lane issued
// before the first use (128 bytes in flight per lane), one group per warp
// (the loop grid-strides only past the grid's size limit). Elements after
// the last full tile (fewer than 64 or 128) take a scalar path at the end of
// the same kernel. n = 0 launches nothing. a and b 16-byte aligned; a == b
// (in place) is allowed, partial overlap is not. Bad arguments and failed
// launches throw tcore::error. Launch shape: scale_block_threads (8 warps)
// per block, one block per 8 groups.
#pragma once

#include "../../check.cuh"
#include "../../infra/launch.cuh"
#include "../scale.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace tcore {

inline constexpr int scale_block_threads = 256;  ///< 8 warps
inline constexpr int scale_group_elems = 512;    ///< doubles per warp per iteration

namespace detail {

__device__ inline double2 scale_load2(const double* p) { return *reinterpret_cast<const double2*>(p); }
__device__ inline void scale_store2(double* p, double2 v) { *reinterpret_cast<double2*>(p) = v; }

}  // namespace detail

/// Scalar a[i] = q*b[i] for i in [first, n), grid-stride over all threads.
__device__ inline void scale_tail(const double* b, double* a, double q, long long first, long long n)
{
    const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = first + static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads)
        a[i] = q * b[i];
}

/// tc / cc: a = b*(qI) tile by tile on `Shape` (tcore::scale_tile). a and b
/// 16-byte aligned. The per-tile guard is warp-uniform (whole warps take it).
template <class Shape, class Backend>
__global__ void __launch_bounds__(scale_block_threads)
    scale_mma_kernel(const double* b, double* a, double q, long long n)
{
    using L = tcore::scale_layout<Shape>;
    constexpr int P = L::pairs, E = L::elems, tiles_per_group = scale_group_elems / E;
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
                for (int p = 0; p < P; ++p) v[j][p] = detail::scale_load2(b + (t0 + j) * E + 64 * p + 2 * lane);
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
                for (int p = 0; p < P; ++p) detail::scale_store2(a + (t0 + j) * E + 64 * p + 2 * lane, v[j][p]);
            }
        }
    }
    scale_tail(b, a, q, tiles * E, n);
}

/// Blocks to launch: one per `work_blocks` (a group per warp), at most the
/// grid's x limit (the kernels grid-stride past it). A grid capped at what
/// is resident at once left a partly filled last round per warp and cost
/// bandwidth (examples/scale/README.md); one group per warp lets the block
/// scheduler balance the tail.
inline int scale_grid(long long work_blocks)
{
    constexpr long long max_grid = 0x7fffffff;
    return static_cast<int>(work_blocks < 1 ? 1 : work_blocks < max_grid ? work_blocks : max_grid);
}

/// Argument checks of a = q*b over n elements (throws tcore::error naming `where`).
inline void check_scale_args(const char* where, const double* b, const double* a, long long n)
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


/// a = b*(qI) on the FP64 MMA `Shape` (f64_m16n8k8, f64_m16n8k4 or
/// f64_m8n8k4) with `Backend`. a and b must be 16-byte aligned (cudaMalloc
/// memory is). Throws tcore::error on bad arguments or a failed launch.
template <class Shape, class Backend = default_backend>
void scale_mma(const double* b, double* a, double q, long long n, cudaStream_t stream = nullptr)
{
    check_scale_args("scale_mma", b, a, n);
    if (n == 0) return;
    tcore::require(tcore::aligned(a, 16) && tcore::aligned(b, 16), "scale_mma",
                   "a and b must be 16-byte aligned (the tiles are read as double2)");
    const long long warps = (n + scale_group_elems - 1) / scale_group_elems;
    const int grid = scale_grid((warps + 7) / 8);
    scale_mma_kernel<Shape, Backend><<<grid, scale_block_threads, 0, stream>>>(b, a, q, n);
    TCORE_CHECK_LAUNCH();
}

}  // namespace tcore
