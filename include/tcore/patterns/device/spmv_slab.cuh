// tcore/patterns/device/spmv_slab.cuh - the SpMV kernel of slab matrices
// (detail::dasp_slab_kernel over a dasp_slab_view; the layout is in
// tcore/sparse/slab.hpp). Launched by dasp_spmv (patterns/device/spmv.cuh)
// where the packing chose slabs.
//
// A warp takes slabs two at a time in lockstep: both slabs' values and
// columns (at most three 32-blocks each: full blocks and the compact
// partial one), then both slabs' x gathers, then their MMAs (m8n8k4, one a
// block, D(g, g) = row g's sum: patterns/spmv.cuh) and one store a row. No
// pointer or row index is loaded: slab s starts at s 8 W and holds rows
// 8 s .. 8 s + 7, so each slab costs two dependent round trips (its slots,
// then x). A policy adds its slots' products and takes the quad sum instead
// of the MMAs.
#pragma once

#include "../spmv.cuh"
#include "../../check.cuh"

#include <cuda_runtime.h>

#include <string>

namespace tcore {

/// Device pointers and shape of a slab matrix (kernel argument).
struct dasp_slab_view {
    int rows = 0, slabs = 0;
    int width = 0;    ///< slots a row (sparse::slab_shape)
    int full = 0;     ///< full 32-blocks a slab
    int partial = 0;  ///< columns of the compact partial block (0: none)
    const double* val = nullptr;
    const int* col = nullptr;
    int slabs_per_warp = 2;  ///< even: a warp takes slabs w, w + W, ... (W warps), two at a time
    int accumulate = 0;      ///< 1: y += A x (every row stored: y + 0 where a row has no entries)
};

namespace detail {

/// y = A x (or y += A x) for a slab matrix of Full full 32-blocks and, if
/// Partial, the compact partial block of s.partial columns; Backend
/// tensor_core or cuda_core (the MMAs) or a row-block policy
/// (patterns/device/spmv.cuh). Full and Partial are template arguments so
/// that every load is a fixed offset from two per-slab pointers.
template <class Backend, int Full, bool Partial>
__global__ void __launch_bounds__(spmv_threads) dasp_slab_kernel(dasp_slab_view s, const double* __restrict__ x,
                                                                 double* __restrict__ y)
{
    using S = f64_m8n8k4;
    constexpr int B = Full + (Partial ? 1 : 0);  // 32-blocks an MMA pass takes
    static_assert(B >= 1 && B <= 3, "a slab holds 1 to 3 blocks (sparse::slab_max_width)");
    const int lane = static_cast<int>(threadIdx.x) & 31, g = lane >> 2, t = lane & 3;
    const int warps = static_cast<int>(gridDim.x) * spmv_warps;
    const int first = static_cast<int>(blockIdx.x) * spmv_warps + (static_cast<int>(threadIdx.x) >> 5);
    const int slab_slots = 8 * s.width;
    const int partial_slot = 32 * Full + s.partial * g + t;  // the lane's slot of the partial block
    const bool partial_lane = Partial && t < s.partial;
    for (int s0 = first; s0 < s.slabs; s0 += 2 * warps) {
        double v[2][B], xv[2][B];
        int c[2][B];
        // every slot of both slabs first, then the x gathers (the asm below
        // keeps the front end from interleaving them; ptxas still issues the
        // first slab's values after the gathers, whose columns both slabs
        // have requested by then)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            const int slab = s0 + q * warps;
            const bool in = q == 0 || slab < s.slabs;
            const double* const sv = s.val + static_cast<long long>(slab) * slab_slots;
            const int* const sc = s.col + static_cast<long long>(slab) * slab_slots;
#pragma unroll
            for (int b = 0; b < Full; ++b) {
                v[q][b] = in ? __ldcs(sv + 32 * b + lane) : 0.0;
                c[q][b] = in ? __ldcs(sc + 32 * b + lane) : -1;
            }
            if constexpr (Partial) {
                v[q][Full] = in && partial_lane ? __ldcs(sv + partial_slot) : 0.0;
                c[q][Full] = in && partial_lane ? __ldcs(sc + partial_slot) : -1;
            }
        }
        asm volatile("" ::: "memory");
#pragma unroll
        for (int q = 0; q < 2; ++q)
#pragma unroll
            for (int b = 0; b < B; ++b) xv[q][b] = c[q][b] >= 0 ? __ldg(x + c[q][b]) : 0.0;
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            double sum;
            if constexpr (is_backend_v<Backend>) {
                frag_c<S> acc;
                fill(acc, 0.0);
#pragma unroll
                for (int b = 0; b < B; ++b) {
                    frag_a<S> a;
                    frag_b<S> bx;
                    a.x[0] = v[q][b];
                    bx.x[0] = xv[q][b];
                    mma<Backend>(acc, a, bx, acc);
                }
                sum = diag_of(acc, lane);
            } else {
                sum = 0.0;
#pragma unroll
                for (int b = 0; b < B; ++b) sum = Backend::add(sum, v[q][b], xv[q][b]);
                sum = spmv_quad_sum(sum);
            }
            const int slab = s0 + q * warps;
            const int row = 8 * slab + g;
            if (holds_diag(lane) && slab < s.slabs && row < s.rows) y[row] = s.accumulate ? y[row] + sum : sum;
        }
    }
}

/// Launches dasp_slab_kernel for the view's blocks (s.full, s.partial).
template <class Backend>
inline void launch_slab_kernel(const dasp_slab_view& s, const double* x, double* y, unsigned blocks,
                               cudaStream_t stream)
{
    const bool partial = s.partial > 0;
    if (s.full == 0 && partial) dasp_slab_kernel<Backend, 0, true><<<blocks, spmv_threads, 0, stream>>>(s, x, y);
    else if (s.full == 1) {
        if (partial) dasp_slab_kernel<Backend, 1, true><<<blocks, spmv_threads, 0, stream>>>(s, x, y);
        else dasp_slab_kernel<Backend, 1, false><<<blocks, spmv_threads, 0, stream>>>(s, x, y);
    } else if (s.full == 2) {
        if (partial) dasp_slab_kernel<Backend, 2, true><<<blocks, spmv_threads, 0, stream>>>(s, x, y);
        else dasp_slab_kernel<Backend, 2, false><<<blocks, spmv_threads, 0, stream>>>(s, x, y);
    } else if (s.full == 3 && !partial) {
        dasp_slab_kernel<Backend, 3, false><<<blocks, spmv_threads, 0, stream>>>(s, x, y);
    } else {
        require(false, "tcore::dasp_spmv", "internal: no slab kernel for " + std::to_string(s.full) +
                                               " full blocks and " + std::to_string(s.partial) + " partial columns");
    }
}

}  // namespace detail
}  // namespace tcore
