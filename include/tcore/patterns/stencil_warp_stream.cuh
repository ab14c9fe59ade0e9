// tcore/patterns/stencil_warp_stream.cuh - T = 2 or 3 fused steps of a
// radius-1 2D star stencil (star2d1r) on CUDA cores, with Dirichlet
// boundaries, streamed down the rows by independent warps.
//
// A warp owns a strip of 128 array columns (4 per lane, two 16-byte loads
// per row) and a band of output rows. It reads each input row once and, per
// row, computes one row of every step, each one row behind the step before:
//
//   input row y -> step 1 row y-1 -> step 2 row y-2 -> ... -> step T row y-T
//
// so step k needs only step k-1's rows y-k-1, y-k (kept in registers) and
// y-k+1 (just computed). The west and east neighbours come from the next
// lanes by shuffles; the strip's outer T columns on each side see wrong
// neighbours and are not stored (a margin of 3 columns on each side for
// T = 2 and 3, 122 stored columns; strips overlap by 6). The Dirichlet halo
// (array rows and columns 0 and n+1) is reset to the input at every step,
// which also stops the wrong values there. No shared memory and no
// barriers: the only reuse is in registers.
//
// Against the tiled kernel of stencil_tiled.cuh (60x60 tiles, redundant
// halo work 1.10x, a block barrier per step), the warps read 4.9% more
// (the overlap) and compute 1.05x; on 10240^2, T = 3, they ran star2d1r at
// 505 GStencil/s on an H200 (tiled: 427-435) and 399-400 on an H100
// (tiled: 395-411) (bench/results/2026-11-25f-h100/stencil-stream2d,
// bench/results/2026-11-25f-h200-stencil).
//
// Applies to stencil_cce, star2d1r, T = 2 or 3, Dirichlet, an even row
// pitch (nx even), 16-byte aligned arrays and grids large enough to fill
// the device with long bands (warp_stream_fits); stencil_apply takes the
// tiled kernel otherwise.
#pragma once

#include "launch.cuh"
#include "stencil.cuh"

#include <algorithm>
#include <type_traits>

namespace tcore {
namespace stencil_detail {

inline constexpr int ws_cols = 4;                   ///< array columns per lane
inline constexpr int ws_width = 32 * ws_cols;       ///< strip width
inline constexpr int ws_warps = 8;                  ///< warps (strips) per block
inline constexpr int ws_min_blocks = 3;             ///< blocks per SM (80 registers)
inline constexpr long long ws_min_band = 128;       ///< output rows per warp, at least

/// Columns left of a strip's first output column: at least T (the reach of
/// the wrong neighbours at its edges) and odd, so that the strip starts at
/// an even array column (1 - margin) and its 16-byte pairs stay aligned.
__host__ __device__ constexpr int ws_margin(int steps) { return steps % 2 == 1 ? steps : steps + 1; }
/// Output columns of a strip for T steps (the margin on both sides).
__host__ __device__ constexpr int ws_valid(int steps) { return ws_width - 2 * ws_margin(steps); }

struct warp_stream_args {
    const double* in;
    double* out;
    long long nx, ny, ex, ey;  ///< grid, and array extents with the halo
    long long strips, band;    ///< strips across the grid; output rows per warp
    double wn, ww, wc, we, ws; ///< weights: north (dy = -1), west, centre, east, south
};

template <int T>
__global__ void __launch_bounds__(32 * ws_warps, ws_min_blocks) warp_stream_kernel(warp_stream_args a)
{
    static_assert(T == 2 || T == 3, "T = 2 or 3: step k < T resets its halo from input row y - k, kept for k <= 2");
    constexpr int C = ws_cols;
    const int lane = threadIdx.x & 31;
    const long long strip = static_cast<long long>(blockIdx.x) * ws_warps + (threadIdx.x >> 5);
    if (strip >= a.strips) return;  // warp-uniform; no barriers below
    // Strip s stores array columns 1 + s * valid ...; its column 0 is the margin to the left.
    constexpr int margin = ws_margin(T), valid = ws_valid(T);
    const long long strip_x = strip * valid + 1 - margin;
    const long long col0 = strip_x + C * lane;  // even: pairs never straddle the (even) row end
    const long long y_lo = 1 + blockIdx.y * a.band, y_hi = min(a.ny + 1, y_lo + a.band);  // output rows
    int halo_cols = 0, store_cols = 0;
    for (int c = 0; c < C; ++c) {
        const long long x = col0 + c;
        if (x == 0 || x == a.ex - 1) halo_cols |= 1 << c;
        if (x >= strip_x + margin && x < strip_x + margin + valid && x <= a.nx) store_cols |= 1 << c;
    }
    const bool pair0 = col0 >= 0 && col0 < a.ex, pair1 = col0 + 2 >= 0 && col0 + 2 < a.ex;
    auto load_row = [&](long long y, double (&v)[C]) {  // zeros outside the array
        const bool row = y >= 0 && y < a.ey;
        auto at = [&](long long x) { return reinterpret_cast<const double2*>(a.in + y * a.ex + x); };
        const double2 q0 = row && pair0 ? __ldg(at(col0)) : make_double2(0, 0);
        const double2 q1 = row && pair1 ? __ldg(at(col0 + 2)) : make_double2(0, 0);
        v[0] = q0.x, v[1] = q0.y, v[2] = q1.x, v[3] = q1.y;
    };
    // One step on a row: centre m, north n, south s (the rows of the step before).
    auto step_row = [&](const double* n, const double* m, const double* s, double (&r)[C]) {
        const double west_of_0 = __shfl_up_sync(0xffffffffu, m[C - 1], 1);
        const double east_of_last = __shfl_down_sync(0xffffffffu, m[0], 1);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            double acc = a.wn * n[c];
            acc = fma(a.ww, c == 0 ? west_of_0 : m[c - 1], acc);
            acc = fma(a.wc, m[c], acc);
            acc = fma(a.we, c == C - 1 ? east_of_last : m[c + 1], acc);
            r[c] = fma(a.ws, s[c], acc);
        }
    };
    auto reset_halo = [&](long long y, const double (&input)[C], double (&r)[C]) {
        const bool row = y <= 0 || y >= a.ey - 1;
#pragma unroll
        for (int c = 0; c < C; ++c)
            if (row || (halo_cols >> c & 1)) r[c] = input[c];
    };
    double in_rows[3][C] = {};      // input rows y-2, y-1, y
    double prev[T - 1][2][C] = {};  // step k (1..T-1): rows y-k-2, y-k-1 before step y
    const long long y_first = y_lo - T, y_last = y_hi - 1 + T;
    double next[C];
    load_row(y_first, next);
#pragma unroll 1
    for (long long y = y_first; y <= y_last; ++y) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            in_rows[0][c] = in_rows[1][c];
            in_rows[1][c] = in_rows[2][c];
            in_rows[2][c] = next[c];
        }
        load_row(y + 1, next);  // in flight while this row is computed
        double below[C];        // the newest row of the step before (row y - k + 1)
#pragma unroll
        for (int c = 0; c < C; ++c) below[c] = in_rows[2][c];
#pragma unroll
        for (int k = 1; k < T; ++k) {  // step k, row y - k (input row y - k is in_rows[2 - k])
            const double* north = k == 1 ? in_rows[0] : prev[k < 2 ? 0 : k - 2][0];
            const double* centre = k == 1 ? in_rows[1] : prev[k < 2 ? 0 : k - 2][1];
            double r[C];
            step_row(north, centre, below, r);
            reset_halo(y - k, in_rows[2 - k], r);
            if (k >= 2) {
#pragma unroll
                for (int c = 0; c < C; ++c) {
                    prev[k - 2][0][c] = prev[k - 2][1][c];
                    prev[k - 2][1][c] = below[c];
                }
            }
#pragma unroll
            for (int c = 0; c < C; ++c) below[c] = r[c];
        }
        // step T, row y - T: interior rows and columns only
        const long long yo = y - T;
        double r[C];
        step_row(prev[T - 2][0], prev[T - 2][1], below, r);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            prev[T - 2][0][c] = prev[T - 2][1][c];
            prev[T - 2][1][c] = below[c];
        }
        if (yo >= y_lo && yo < y_hi && store_cols != 0) {
            double* p = a.out + yo * a.ex + col0;
            if ((store_cols & 3) == 3) __stcs(reinterpret_cast<double2*>(p), make_double2(r[0], r[1]));
            else if (store_cols & 3) __stcs(p + ((store_cols & 1) ? 0 : 1), (store_cols & 1) ? r[0] : r[1]);
            if ((store_cols & 12) == 12) __stcs(reinterpret_cast<double2*>(p + 2), make_double2(r[2], r[3]));
            else if (store_cols & 12) __stcs(p + ((store_cols & 4) ? 2 : 3), (store_cols & 4) ? r[2] : r[3]);
        }
    }
}

/// Output rows per warp: the strips' blocks times the bands fill the
/// resident blocks once (one wave), with bands of at least ws_min_band rows.
inline long long warp_stream_band(long long ny, long long strips, long long resident_blocks)
{
    const long long strip_blocks = detail::ceil_div(strips, ws_warps);
    const long long bands = std::max(1LL, resident_blocks / strip_blocks);
    return std::max(ws_min_band, detail::ceil_div(ny, bands));
}

/// Resident blocks of warp_stream_kernel<T> on the current device.
template <int T>
inline long long warp_stream_resident()
{
    return static_cast<long long>(detail::sm_count()) * detail::blocks_per_sm(warp_stream_kernel<T>, 32 * ws_warps);
}

/// stencil_apply's run-time test: an even row pitch, 16-byte aligned arrays,
/// and a grid with enough strips x bands of ws_min_band rows to fill the
/// resident blocks once. Smaller grids keep the tiled kernel: at 4096^2
/// (5 blocks of strips, 160 blocks of 128-row bands for 396 resident) the
/// warps ran 4-13% behind it on an H200 and an H100.
template <int T>
inline bool warp_stream_fits(const double* in, const double* out, const stencil_grid& g)
{
    const stencil_extent e = stencil_array_extent<star2d1r>(g, boundary::dirichlet);
    if (e.ex % 2 != 0 || !detail::aligned(in, 16) || !detail::aligned(out, 16)) return false;
    const long long strip_blocks = detail::ceil_div(detail::ceil_div(g.nx, ws_valid(T)), ws_warps);
    return strip_blocks * (g.ny / ws_min_band) >= warp_stream_resident<T>();
}

/// Launches the warp streaming kernel (arguments checked by stencil_apply);
/// band 0 picks warp_stream_band's.
template <int T>
void launch_warp_stream(const double* in, double* out, const stencil_grid& g, const stencil_weights<star2d1r>& w,
                        cudaStream_t stream, long long band = 0)
{
    warp_stream_args a{};
    a.in = in;
    a.out = out;
    a.nx = g.nx;
    a.ny = g.ny;
    const stencil_extent e = stencil_array_extent<star2d1r>(g, boundary::dirichlet);
    a.ex = e.ex;
    a.ey = e.ey;
    a.strips = detail::ceil_div(g.nx, ws_valid(T));
    a.wn = w.at(0, -1, 0);
    a.ww = w.at(0, 0, -1);
    a.wc = w.at(0, 0, 0);
    a.we = w.at(0, 0, 1);
    a.ws = w.at(0, 1, 0);
    a.band = band > 0 ? band : warp_stream_band(g.ny, a.strips, warp_stream_resident<T>());
    const long long bands = detail::ceil_div(g.ny, a.band);
    require(bands <= 65535, "stencil_apply", "too many rows for the warp streaming kernel's grid");
    const dim3 grid(static_cast<unsigned>(detail::ceil_div(a.strips, ws_warps)), static_cast<unsigned>(bands));
    warp_stream_kernel<T><<<grid, 32 * ws_warps, 0, stream>>>(a);
}

}  // namespace stencil_detail
}  // namespace tcore
