// examples/stencil/stencil_cce.cuh - the `cce` opponent of the stencil
// workload: plain CUDA-core stencils with the same tiling and temporal
// blocking as the kit's tc and cc (there is no vendor stencil library).
//
// Provides (namespace tcore::examples::stencil)
//   stencil_cce: the method's tag (name() "cce").
//   stencil_apply_cce<S, T, BC>(in, out, grid, w, stream): out = T steps of
//       S on in, as tcore::stencil_apply (same arrays, checks and errors):
//       t = 2 or 3 on star2d3r (star2d1r where the DRAM is fast for the
//       SMs), Dirichlet, large grids: the warp streaming kernel
//       (stencil_cce_warp_stream.cuh); otherwise the kit's kernels with
//       the cce method.
//   stencil_run<S, M, T, BC>(in, out, grid, w, stream): one front end for
//       the three methods: M tensor_core or cuda_core runs
//       tcore::stencil_apply, M stencil_cce runs stencil_apply_cce.
// Preconditions: those of tcore::stencil_apply (tcore::error on bad input).
#pragma once

#include "stencil_cce_warp_stream.cuh"

#include <tcore/patterns/device/stencil.cuh>

#include <cuda_runtime.h>

#include <type_traits>

namespace tcore::examples::stencil {

using stencil_cce = tcore::stencil_cce;

/// Where stencil_apply_cce may take the warp streaming kernel: star2d1r and
/// star2d3r, T = 2 or 3, Dirichlet (at run time: stencil_warp_stream_fits
/// and stencil_warp_stream_preferred).
template <class S, int T, boundary BC>
constexpr bool stencil_warp_stream_shape()
{
    return stencil_warp_stream_star<S> && (T == 2 || T == 3) && BC == boundary::dirichlet;
}

/// cce: out = T steps of stencil S on `in` (arrays, checks and errors as
/// tcore::stencil_apply's).
template <class S, int T, boundary BC>
void stencil_apply_cce(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                       cudaStream_t stream = 0)
{
    if constexpr (stencil_warp_stream_shape<S, T, BC>()) {
        tcore::stencil_require_arguments<S, BC>(in, out, grid, "stencil_apply");
        if (stencil_warp_stream_preferred<S>() && stencil_warp_stream_fits<S, T>(in, out, grid)) {
            stencil_launch_warp_stream<S, T>(in, out, grid, w, stream);
            TCORE_CHECK_LAUNCH();
            return;
        }
    }
    tcore::stencil_apply<S, stencil_cce, T, BC>(in, out, grid, w, stream);
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
