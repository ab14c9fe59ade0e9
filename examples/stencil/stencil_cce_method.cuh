// examples/stencil/stencil_cce_method.cuh - the `cce` method of the stencil
// workload (plain CUDA-core arithmetic with the kit's tiling and temporal
// blocking) as a strip step of the kit's tiled kernels.
//
// Provides (namespace tcore::examples::stencil)
//   stencil_cce: the method, a strip step (tcore::stencil_tile_step's Backend,
//       tcore/patterns/stencil_tile.cuh): name() "cce"; add_strip<S, V, P,
//       Dz>, the register window: each input the strip needs is read from
//       shared memory once and fed to every output of the strip it touches,
//       the weights read from the kernel parameter (the constant bank).
//       The t = 1 kernels (stencil_cce_t1.cuh) use the same window.
//   stencil_cce_needed<S, V>(dz, dr, dx): does an input row feed a strip?
//   stencil_cce_tiled2d<S, T>: its 2D tiled configuration (the kit's tile,
//       its own threads, strip rows and 16-byte copies).
// Preconditions: those of tcore::stencil_tile_step for a strip step (called
// by every thread on its own strips, not converged; base in shared memory).
#pragma once

#include <tcore/patterns/device/stencil_tiled.cuh>
#include <tcore/patterns/stencil_tile.cuh>

namespace tcore::examples::stencil {

/// Does input row dr (relative to a strip of V outputs) at column offset dx
/// (plane dz) feed any output of the strip?
template <class S, int V>
__host__ __device__ constexpr bool stencil_cce_needed(int dz, int dr, int dx)
{
    for (int v = 0; v < V; ++v)
        if (S::contains(dz, dr - v, dx)) return true;
    return false;
}

/// The cce method: plain CUDA-core arithmetic, the kit's tiling and
/// temporal blocking (a strip step of stencil_tile_step).
struct stencil_cce {
    static constexpr const char* name() { return "cce"; }

    /// The register window: adds to acc[v] the terms of plane offset Dz for
    /// the output at row v of a strip of V outputs whose first output lies
    /// at `base` (row pitch P). Each input the strip needs is read from
    /// shared memory once and fed to every output of the strip it touches.
    template <class S, int V, int P, int Dz>
    static __device__ inline void add_strip(double (&acc)[V], const double* base, const stencil_weights<S>& w)
    {
        constexpr int R = S::radius;
        static_for<V + 2 * R>([&](auto r_) {
            constexpr int dr = decltype(r_)::value - R;
            static_for<2 * R + 1>([&](auto x_) {
                constexpr int dx = decltype(x_)::value - R;
                if constexpr (stencil_cce_needed<S, V>(Dz, dr, dx)) {
                    const double val = base[dr * P + dx];
                    static_for<V>([&](auto v_) {
                        constexpr int v = decltype(v_)::value;
                        if constexpr (S::contains(Dz, dr - v, dx))
                            acc[v] = fma(w.w[S::weight_index(Dz, dr - v, dx)], val, acc[v]);
                    });
                }
            });
        });
    }
};

/// The 2D tiled kernel's knobs of the cce method: those of tc (256 threads,
/// stencil_strip_rows rows, stencil_tiled_pair_loads), except at t = 3
/// where a comparison of the knobs measured faster ones
/// (examples/stencil/README.md): star2d3r: 512 threads, 8-row strips,
/// 16-byte copies; star2d1r: 4-row strips; box2d1r: 16-row strips.
template <class S, int T>
struct stencil_cce_tiled2d_knobs {
    static constexpr bool star = S::kind == stencil_kind::star;
    static constexpr bool star2d3r_t3 = S::dims == 2 && S::radius == 3 && star && T == 3;
    static constexpr int threads = star2d3r_t3 ? 512 : 256;
    static constexpr int strip = T != 3          ? stencil_strip_rows<S>()
                                 : star2d3r_t3      ? 8
                                 : S::radius == 1 ? (star ? 4 : 16)
                                                  : stencil_strip_rows<S>();
    static constexpr bool pairs = stencil_tiled_pair_loads<S, T>() || star2d3r_t3;
};

/// The cce method's 2D tiled configuration (the kit's default tile).
template <class S, int T>
using stencil_cce_tiled2d =
    stencil_tiled2d_config<S, T, stencil_cce, stencil_default_tile2d<S, T>(), stencil_default_tile2d<S, T>(),
                           stencil_cce_tiled2d_knobs<S, T>::threads, stencil_cce_tiled2d_knobs<S, T>::strip,
                           stencil_cce_tiled2d_knobs<S, T>::pairs>;

}  // namespace tcore::examples::stencil
