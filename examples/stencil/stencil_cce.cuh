// examples/stencil/stencil_cce.cuh - the `cce` opponent of the stencil
// workload: plain CUDA-core stencils with the same tiling and temporal
// blocking as the kit's tc and cc (there is no vendor stencil library).
//
// Provides (namespace tcore::examples::stencil)
//   stencil_cce (stencil_cce_method.cuh): the method, a strip step of the
//       kit's tiled kernels, with its 2D configuration stencil_cce_tiled2d.
//   stencil_apply_cce<S, T, BC>(in, out, grid, w, stream): out = T steps of
//       S on in, as tcore::stencil_apply (same arrays, checks and errors):
//       t = 2 or 3 on star2d3r (star2d1r where the DRAM is fast for the
//       SMs), Dirichlet, large grids: the warp streaming kernel
//       (stencil_cce_warp_stream.cuh); t = 1: the streaming kernel (3D) or
//       the tile ring (2D) of stencil_cce_t1.cuh; otherwise the kit's tiled
//       kernels with the cce method (tcore::stencil_launch_tiled2d with
//       stencil_cce_tiled2d, tcore::stencil_launch_tiled in 3D).
//   stencil_cce_smem_bytes<S, T>(): shared memory (bytes) of one block of
//       the kernel stencil_apply_cce runs (the warp streaming kernel: none).
//   stencil_run<S, M, T, BC>(in, out, grid, w, stream): one front end for
//       the three methods: M tensor_core or cuda_core runs
//       tcore::stencil_apply, M stencil_cce runs stencil_apply_cce.
// Preconditions: those of tcore::stencil_apply (tcore::error on bad input).
#pragma once

#include "stencil_cce_method.cuh"
#include "stencil_cce_t1.cuh"
#include "stencil_cce_warp_stream.cuh"

#include <tcore/patterns/device/stencil.cuh>

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <string>
#include <type_traits>

namespace tcore::examples::stencil {

/// Where stencil_apply_cce may take the warp streaming kernel: star2d1r and
/// star2d3r, T = 2 or 3, Dirichlet (at run time: stencil_warp_stream_fits
/// and stencil_warp_stream_preferred).
template <class S, int T, boundary BC>
constexpr bool stencil_warp_stream_shape()
{
    return stencil_warp_stream_star<S> && (T == 2 || T == 3) && BC == boundary::dirichlet;
}

/// Shared memory (bytes) one block of the shared-memory kernel that
/// stencil_apply_cce runs for T steps of S uses (the warp streaming kernel
/// uses none).
template <class S, int T>
constexpr std::size_t stencil_cce_smem_bytes()
{
    if constexpr (T == 1 && S::dims == 3) return stencil_stream_default<S>::smem_bytes;
    else if constexpr (T == 1) return stencil_t1_tile_default<S>::smem_bytes;
    else if constexpr (S::dims == 2) return stencil_cce_tiled2d<S, T>::smem_bytes;
    else return stencil_tiled3d_default<S, T>::smem_bytes;
}

/// cce: out = T steps of stencil S on `in` (arrays, checks and errors as
/// tcore::stencil_apply's).
template <class S, int T, boundary BC>
void stencil_apply_cce(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                       cudaStream_t stream = 0)
{
    static_assert(T >= 1 && T <= 8, "T (fused steps) must be 1..8");
    constexpr const char* where = "stencil_apply_cce";
    [[maybe_unused]] const stencil_extent e = tcore::stencil_require_arguments<S, BC>(in, out, grid, where);
    if constexpr (T == 1 && S::dims == 3) {
        // the streaming kernel keeps a row's column offsets in 32-bit ints
        require(e.ex <= INT_MAX, where,
                "t = 1 cce in 3D needs rows of at most 2^31 - 1 array elements (nx + 2r for Dirichlet), got " +
                    std::to_string(e.ex));
        stencil_launch_stream<S, BC, stencil_stream_default<S>>(in, out, grid, w, stream);
    } else if constexpr (T == 1) {
        stencil_launch_t1_tiles<S, BC, stencil_t1_tile_default<S>>(in, out, grid, w, stream);
    } else {
        if constexpr (stencil_warp_stream_shape<S, T, BC>()) {
            if (stencil_warp_stream_preferred<S>() && stencil_warp_stream_fits<S, T>(in, out, grid)) {
                stencil_launch_warp_stream<S, T>(in, out, grid, w, stream);
                TCORE_CHECK_LAUNCH();
                return;
            }
        }
        if constexpr (S::dims == 2)
            tcore::stencil_launch_tiled2d<S, stencil_cce, T, BC, stencil_cce_tiled2d<S, T>>(in, out, grid, w, stream);
        else
            tcore::stencil_launch_tiled<S, stencil_cce, T, BC>(in, out, grid, w, stream);
    }
    TCORE_CHECK_LAUNCH();
}

/// T steps of S by method M: tensor_core or cuda_core (tcore::stencil_apply)
/// or stencil_cce (stencil_apply_cce).
template <class S, class M, int T, boundary BC>
void stencil_run(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                 cudaStream_t stream = 0)
{
    if constexpr (std::is_same_v<M, stencil_cce>) stencil_apply_cce<S, T, BC>(in, out, grid, w, stream);
    else tcore::stencil_apply<S, M, T, BC>(in, out, grid, w, stream);
}

}  // namespace tcore::examples::stencil
