// tcore/patterns/stencil_warp_stream.cuh - T = 2 or 3 fused steps of a 2D
// star stencil of radius r = 1..3 (star2d1r, star2d3r) on CUDA cores, with
// Dirichlet boundaries, streamed down the rows by independent warps.
//
// A warp owns a strip of 128 array columns (4 per lane, two 16-byte loads
// per row) and a band of output rows. It reads each input row once and, per
// row, computes one row of every step, each r rows behind the step before:
//
//   input row y -> step 1 row y-r -> step 2 row y-2r -> ... -> step T row y-Tr
//
// so step k needs step k-1's rows y-kr-r .. y-kr+r: the newest was just
// computed, the 2r before it are kept in registers (a window per step; the
// input keeps 2r+1 rows, which also hold the input rows y-r and y-2r that
// the Dirichlet halo of steps 1 and 2 is reset to). The r west and east
// neighbours of a lane's 4 columns come from the next lanes by shuffles; the
// strip's outer Tr columns on each side see wrong neighbours and are not
// stored: a margin of Tr (rounded to r's parity, so that the strip starts
// at an even array column and its 16-byte pairs stay aligned) on each side,
// 122 stored columns for r = 1 and 110 for r = 3. The Dirichlet halo (r
// array rows and columns on each side) is reset to the input at every step,
// which also stops the wrong values there. No shared memory and no
// barriers: the only reuse is in registers (about 80 per thread at r = 1,
// 3 blocks of 8 warps per SM; up to 255 at r = 3, 1 block per SM).
//
// Against the tiled kernel of stencil_tiled.cuh (60x60 tiles at r = 1, a
// block barrier per step), the warps read 4.9% (r = 1) or 16% (r = 3) more
// (the overlap of the strips) and compute as much more. Measured (10240^2,
// T = 3): star2d1r 505 GStencil/s on an H200 (tiled: 427-435) and 399-400
// on an H100 (tiled: 395-411) (bench/results/2026-11-25f-h100/
// stencil-stream2d, bench/results/2026-11-25f-h200-stencil).
//
// Applies to stencil_cce, star shapes of radius 1..3, T = 2 or 3,
// Dirichlet, an even row pitch (nx even), 16-byte aligned arrays and grids
// large enough to fill the device with long bands (warp_stream_fits);
// stencil_apply takes the tiled kernel otherwise.
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
inline constexpr long long ws_min_band = 128;       ///< output rows per warp, at least
inline constexpr int ws_max_radius = 3;             ///< the weight arrays below hold 2 * 3 + 1

/// Blocks per SM the kernel is compiled for: 3 at r = 1 (80 registers), 1
/// at r = 2, 3 (windows of 2r rows per step: up to 255 registers).
__host__ __device__ constexpr int ws_min_blocks(int radius) { return radius == 1 ? 3 : 1; }

/// Columns left of a strip's first output column: at least T r (the reach
/// of the wrong neighbours at its edges) and of r's parity, so that the
/// strip starts at an even array column (r - margin) and its 16-byte pairs
/// stay aligned.
__host__ __device__ constexpr int ws_margin(int steps, int radius)
{
    return steps * radius + (radius * (steps - 1) % 2);
}
/// Output columns of a strip for T steps (the margin on both sides).
__host__ __device__ constexpr int ws_valid(int steps, int radius) { return ws_width - 2 * ws_margin(steps, radius); }

/// The shapes the kernel computes: 2D stars of radius 1..3.
template <class S>
constexpr bool warp_stream_star = S::dims == 2 && S::kind == stencil_kind::star && S::radius <= ws_max_radius;

struct warp_stream_args {
    const double* in;
    double* out;
    long long nx, ny, ex, ey;  ///< grid, and array extents with the halo
    long long strips, band;    ///< strips across the grid; output rows per warp
    double wy[2 * ws_max_radius + 1];  ///< weights of column dx = 0, dy = -r..r (wy[r] unused)
    double wx[2 * ws_max_radius + 1];  ///< weights of row dy = 0, dx = -r..r (the centre at wx[r])
};

template <int R, int T, int MinBlocks = ws_min_blocks(R)>
__global__ void __launch_bounds__(32 * ws_warps, MinBlocks) warp_stream_kernel(warp_stream_args a)
{
    static_assert(R >= 1 && R <= ws_max_radius, "radius 1..3 (the lane's 4 columns hold its neighbours' reach)");
    static_assert(T == 2 || T == 3, "T = 2 or 3: step k < T resets its halo from input row y - k r, kept for k <= 2");
    constexpr int C = ws_cols, W = 2 * R;  // W: rows of a window before its newest
    const int lane = threadIdx.x & 31;
    const long long strip = static_cast<long long>(blockIdx.x) * ws_warps + (threadIdx.x >> 5);
    if (strip >= a.strips) return;  // warp-uniform; no barriers below
    // Strip s stores array columns r + s * valid ...; its first margin columns lie to the left.
    constexpr int margin = ws_margin(T, R), valid = ws_valid(T, R);
    const long long strip_x = strip * valid + R - margin;
    const long long col0 = strip_x + C * lane;  // even: pairs never straddle the (even) row end
    const long long y_lo = R + blockIdx.y * a.band, y_hi = min(a.ny + R, y_lo + a.band);  // output rows
    int halo_cols = 0, store_cols = 0;
    for (int c = 0; c < C; ++c) {
        const long long x = col0 + c;
        if (x < R || x >= a.ex - R) halo_cols |= 1 << c;
        if (x >= strip_x + margin && x < strip_x + margin + valid && x < a.nx + R) store_cols |= 1 << c;
    }
    const bool pair0 = col0 >= 0 && col0 < a.ex, pair1 = col0 + 2 >= 0 && col0 + 2 < a.ex;
    auto load_row = [&](long long y, double (&v)[C]) {  // zeros outside the array
        const bool row = y >= 0 && y < a.ey;
        auto at = [&](long long x) { return reinterpret_cast<const double2*>(a.in + y * a.ex + x); };
        const double2 q0 = row && pair0 ? __ldg(at(col0)) : make_double2(0, 0);
        const double2 q1 = row && pair1 ? __ldg(at(col0 + 2)) : make_double2(0, 0);
        v[0] = q0.x, v[1] = q0.y, v[2] = q1.x, v[3] = q1.y;
    };
    // One step on a row: older[j] is the row dy = j - r of the step before
    // (older[r] the centre), newest the row dy = +r. Sums the rows above, the
    // centre row, then the rows below (for r = 1: north, west, centre, east, south).
    auto step_row = [&](const double (&older)[W][C], const double (&newest)[C], double (&out)[C]) {
        double row[C + W];  // the centre row, columns -r .. C-1+r: r from lane - 1, C own, r from lane + 1
#pragma unroll
        for (int c = 0; c < C; ++c) row[R + c] = older[R][c];
#pragma unroll
        for (int o = 1; o <= R; ++o) {
            row[R - o] = __shfl_up_sync(0xffffffffu, older[R][C - o], 1);
            row[R + C - 1 + o] = __shfl_down_sync(0xffffffffu, older[R][o - 1], 1);
        }
#pragma unroll
        for (int c = 0; c < C; ++c) {
            double acc = a.wy[0] * older[0][c];
#pragma unroll
            for (int j = 1; j < R; ++j) acc = fma(a.wy[j], older[j][c], acc);
#pragma unroll
            for (int i = 0; i <= W; ++i) acc = fma(a.wx[i], row[c + i], acc);  // dx = i - r
#pragma unroll
            for (int j = R + 1; j < W; ++j) acc = fma(a.wy[j], older[j][c], acc);
            out[c] = fma(a.wy[W], newest[c], acc);
        }
    };
    auto reset_halo = [&](long long y, const double (&input)[C], double (&r)[C]) {
        const bool row = y < R || y >= a.ey - R;
#pragma unroll
        for (int c = 0; c < C; ++c)
            if (row || (halo_cols >> c & 1)) r[c] = input[c];
    };
    auto push = [](double (&window)[W][C], const double (&row)[C]) {  // drop the oldest row, append row
#pragma unroll
        for (int j = 0; j < W; ++j)
#pragma unroll
            for (int c = 0; c < C; ++c) window[j][c] = j + 1 < W ? window[j + 1][c] : row[c];
    };
    double in_old[W][C] = {};       // input rows y-2r .. y-1
    double in_new[C] = {};          // input row y
    double prev[T - 1][W][C] = {};  // step k (1..T-1): rows y-kr-2r .. y-kr-1 before step k+1 of row y
    const long long y_first = y_lo - T * R, y_last = y_hi - 1 + T * R;
    double next[C];
    load_row(y_first, next);
#pragma unroll 1
    for (long long y = y_first; y <= y_last; ++y) {
        push(in_old, in_new);
#pragma unroll
        for (int c = 0; c < C; ++c) in_new[c] = next[c];
        load_row(y + 1, next);  // in flight while this row is computed
        double below[C];        // the newest row of the step before (row y - (k-1) r)
        step_row(in_old, in_new, below);  // step 1, row y - r
        reset_halo(y - R, in_old[R], below);
#pragma unroll
        for (int k = 2; k < T; ++k) {  // step k, row y - k r (input row y - k r is in_old[2r - k r])
            double r[C];
            step_row(prev[k - 2], below, r);
            reset_halo(y - k * R, in_old[W - k * R], r);
            push(prev[k - 2], below);
#pragma unroll
            for (int c = 0; c < C; ++c) below[c] = r[c];
        }
        // step T, row y - T r: interior rows and columns only
        const long long yo = y - T * R;
        double r[C];
        step_row(prev[T - 2], below, r);
        push(prev[T - 2], below);
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

/// Resident blocks of warp_stream_kernel<R, T> on the current device.
template <int R, int T>
inline long long warp_stream_resident()
{
    return static_cast<long long>(detail::sm_count()) * detail::blocks_per_sm(warp_stream_kernel<R, T>, 32 * ws_warps);
}

/// stencil_apply's run-time test: an even row pitch, 16-byte aligned arrays,
/// and a grid with enough strips x bands of ws_min_band rows to fill the
/// resident blocks once. Smaller grids keep the tiled kernel: at 4096^2
/// (star2d1r: 5 blocks of strips, 160 blocks of 128-row bands for 396
/// resident) the warps ran 4-13% behind it on an H200 and an H100.
template <class S, int T>
inline bool warp_stream_fits(const double* in, const double* out, const stencil_grid& g)
{
    static_assert(warp_stream_star<S>, "the warp streaming kernel computes 2D stars of radius 1..3");
    constexpr int R = S::radius;
    const stencil_extent e = stencil_array_extent<S>(g, boundary::dirichlet);
    if (e.ex % 2 != 0 || !detail::aligned(in, 16) || !detail::aligned(out, 16)) return false;
    const long long strip_blocks = detail::ceil_div(detail::ceil_div(g.nx, ws_valid(T, R)), ws_warps);
    return strip_blocks * (g.ny / ws_min_band) >= warp_stream_resident<R, T>();
}

/// Fills the kernel's arguments (sizes checked by stencil_apply); band 0
/// picks warp_stream_band's for `resident` blocks.
template <class S, int T>
warp_stream_args warp_stream_setup(const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w,
                                   long long band, long long resident)
{
    static_assert(warp_stream_star<S>, "the warp streaming kernel computes 2D stars of radius 1..3");
    constexpr int R = S::radius;
    warp_stream_args a{};
    a.in = in;
    a.out = out;
    a.nx = g.nx;
    a.ny = g.ny;
    const stencil_extent e = stencil_array_extent<S>(g, boundary::dirichlet);
    a.ex = e.ex;
    a.ey = e.ey;
    a.strips = detail::ceil_div(g.nx, ws_valid(T, R));
    for (int d = -R; d <= R; ++d) {
        a.wy[d + R] = d == 0 ? 0.0 : w.at(0, d, 0);
        a.wx[d + R] = w.at(0, 0, d);
    }
    a.band = band > 0 ? band : warp_stream_band(g.ny, a.strips, resident);
    require(detail::ceil_div(g.ny, a.band) <= 65535, "stencil_apply", "too many rows for the warp streaming kernel's grid");
    return a;
}

/// Launches the warp streaming kernel (arguments checked by stencil_apply);
/// band 0 picks warp_stream_band's.
template <class S, int T>
void launch_warp_stream(const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w,
                        cudaStream_t stream, long long band = 0)
{
    constexpr int R = S::radius;
    const warp_stream_args a = warp_stream_setup<S, T>(in, out, g, w, band, warp_stream_resident<R, T>());
    const dim3 grid(static_cast<unsigned>(detail::ceil_div(a.strips, ws_warps)),
                    static_cast<unsigned>(detail::ceil_div(g.ny, a.band)));
    warp_stream_kernel<R, T><<<grid, 32 * ws_warps, 0, stream>>>(a);
}

}  // namespace stencil_detail
}  // namespace tcore
