// examples/stencil/stencil_cce_warp_stream.cuh - part of the `cce` opponent
// of the stencil workload (stencil_cce.cuh runs it): T = 2 or 3 fused steps
// of a 2D star stencil of radius r = 1 or 3 (star2d1r, star2d3r) on CUDA
// cores, with Dirichlet boundaries, streamed down the rows by independent
// warps.
//
// A warp owns a strip of 128 array columns (4 per lane, two 16-byte loads
// per row) and a band of output rows. It reads each input row once and, per
// row, computes one row of every step, each r rows behind the step before:
//
//   input row y -> step 1 row y-r -> step 2 row y-2r -> ... -> step T row y-Tr
//
// so step k needs step k-1's rows y-kr-r .. y-kr+r, all computed by now.
// Each step keeps its last 2r+1 rows in a ring of registers, and so does the
// input (whose rows y-r and y-2r are also what the Dirichlet halo of steps 1
// and 2 is reset to); the row loop is unrolled over the ring's 2r+1 slots,
// so no row is moved. The r west and east neighbours of a lane's 4 columns
// come from the next lanes by shuffles; the strip's outer Tr columns on
// each side see wrong neighbours and are not stored: a margin of Tr
// (rounded to r's parity, so that the strip starts at an even array column
// and its 16-byte pairs stay aligned) on each side, 122 stored columns for
// r = 1 and 110 for r = 3. The Dirichlet halo (r array rows and columns on
// each side) is reset to the input at every step, which also stops the
// wrong values there. No shared memory and no barriers: the only reuse is
// in registers (about 110 per thread at r = 1, 2 blocks of 8 warps per SM;
// 255 at r = 3, 1 block per SM). Row tests run on 32-bit row counts and
// addresses advance by a row pitch, so that a row costs little beyond its
// arithmetic: at r = 3, T = 3 a warp issues 343 instructions a row (156 of
// them FP64 multiply-adds) where windows shifted row by row took 542.
//
// Against the tiled kernel (tcore/patterns/device/stencil_tiled.cuh: 60x60
// tiles at r = 1, a block barrier per step), the warps read 4.9% (r = 1) or 16% (r = 3) more
// (the overlap of the strips) and compute as much more, but hold no
// barrier and keep all their reuse in registers: on large grids they lead
// on star2d3r wherever measured, and on star2d1r where the DRAM bandwidth
// per SM is high (measurements: examples/stencil/README.md).
//
// Applies to 2D stars of radius 1 or 3, T = 2 or 3,
// Dirichlet, an even row pitch (nx even), 16-byte aligned arrays and grids
// large enough to fill the device with long bands (stencil_warp_stream_fits).
// stencil_apply_cce takes it for star2d3r, and for star2d1r where the DRAM is
// fast for the SMs (stencil_warp_stream_preferred): since the tiled kernel takes
// its tiles from tickets (work_tickets.cuh) it leads where the DRAM
// bandwidth per SM is low and the warps where it is high.
//
// Provides (namespace tcore::examples::stencil) the kernel
// (stencil_cce_warp_stream_kernel), its launch (stencil_launch_warp_stream) and
// the tests of its shapes and grids (stencil_warp_stream_star,
// stencil_warp_stream_fits, stencil_warp_stream_preferred, band sizes).
//
// Preconditions: as tcore::stencil_apply checks them, and stencil_warp_stream_fits
// (stencil_launch_warp_stream checks only the bands). Blocks of
// 32 * stencil_ws_warps threads, no shared memory.
#pragma once

#include <tcore/infra/launch.cuh>
#include <tcore/patterns/stencil.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <type_traits>

namespace tcore::examples::stencil {

inline constexpr int stencil_ws_cols = 4;                   ///< array columns per lane
inline constexpr int stencil_ws_width = 32 * stencil_ws_cols;       ///< strip width
inline constexpr int stencil_ws_warps = 8;                  ///< warps (strips) per block
inline constexpr long long stencil_ws_min_band = 128;       ///< output rows per warp, at least
inline constexpr int stencil_ws_max_radius = 3;             ///< a lane's 4 columns hold its neighbours' reach

/// Blocks per SM the kernel is compiled for: 2 at r = 1 (128 registers;
/// the rings take about 110), 1 at r = 2, 3 (rings of 2r + 1 rows per step:
/// up to 255 registers).
__host__ __device__ constexpr int stencil_ws_min_blocks(int radius) { return radius == 1 ? 2 : 1; }

/// Columns left of a strip's first output column: at least T r (the reach
/// of the wrong neighbours at its edges) and of r's parity, so that the
/// strip starts at an even array column (r - margin) and its 16-byte pairs
/// stay aligned.
__host__ __device__ constexpr int stencil_ws_margin(int steps, int radius)
{
    return steps * radius + (radius * (steps - 1) % 2);
}
/// Output columns of a strip for T steps (the margin on both sides).
__host__ __device__ constexpr int stencil_ws_valid(int steps, int radius)
{
    return stencil_ws_width - 2 * stencil_ws_margin(steps, radius);
}

/// Slot of the row `back` rows before the one in slot u, in a ring of p slots.
__host__ __device__ constexpr int stencil_ws_slot(int u, int back, int p) { return ((u - back) % p + p) % p; }

/// The shapes the kernel computes: the 2D stars of radius 1 and 3 (the
/// radii it has been tested at; the code takes any radius up to 3).
template <class S>
constexpr bool stencil_warp_stream_star =
    S::dims == 2 && S::kind == stencil_kind::star && (S::radius == 1 || S::radius == 3);

/// Bands the kernel's grid and its 32-bit row counts can take: at most
/// 65535 of them (grid.y), each of fewer than 2^30 rows.
inline bool stencil_warp_stream_band_ok(long long ny, long long band)
{
    return band >= 1 && band < (1LL << 30) && tcore::ceil_div(ny, band) <= 65535;
}

/// Output rows per warp: the strips' blocks times the bands fill the
/// resident blocks once (one wave), with bands of at least stencil_ws_min_band rows.
inline long long stencil_warp_stream_band(long long ny, long long strips, long long resident_blocks)
{
    const long long strip_blocks = tcore::ceil_div(strips, stencil_ws_warps);
    const long long bands = std::max(1LL, resident_blocks / strip_blocks);
    return std::max(stencil_ws_min_band, tcore::ceil_div(ny, bands));
}

/// The 2D star of radius R.
template <int R>
using stencil_ws_star = stencil_shape<2, R, stencil_kind::star>;

template <int R>
struct stencil_warp_stream_args {
    const double* in;
    double* out;
    long long nx, ny, ex, ey;     ///< grid, and array extents with the halo
    long long strips, band;       ///< strips across the grid; output rows per warp
    stencil_weights<stencil_ws_star<R>> w;  ///< the caller's weights, as they are
};

/// One lane's share of a strip for T fused steps of radius R: its 4 array
/// columns, which of them are halo or stored, and the band's rows counted
/// in 32 bits from the first input row y_first (i = y - y_first; a band has
/// fewer than 2^30 rows). Row tests compare i with bounds clamped to
/// [-2^24, rows + 2^24], which keeps every such test exact; addresses
/// advance by the row pitch.
template <int R, int T>
struct stencil_ws_lane {
    static constexpr int C = stencil_ws_cols, margin = stencil_ws_margin(T, R), valid = stencil_ws_valid(T, R);
    long long col0;         ///< array column of the lane's first column (even)
    long long offset;       ///< element (y_first, col0); may lie outside the array
    int rows;               ///< input rows of the band: y_hi - y_lo + 2 T r
    int load_lo, load_hi;   ///< rows inside the array
    int inner_lo, inner_hi; ///< rows between the halos
    int halo_cols, store_cols;  ///< bit c: column col0 + c is halo / is stored
    bool pair0, pair1;      ///< the two 16-byte column pairs lie inside a row

    __device__ stencil_ws_lane(const stencil_warp_stream_args<R>& a, long long strip, int lane)
    {
        // Strip s stores array columns r + s * valid ...; its first margin columns lie to the left.
        const long long strip_x = strip * valid + R - margin;
        col0 = strip_x + C * lane;  // even: pairs never straddle the (even) row end
        const long long y_lo = R + blockIdx.y * a.band, y_hi = min(a.ny + R, y_lo + a.band);  // output rows
        const long long y_first = y_lo - T * R;
        rows = static_cast<int>(y_hi - y_lo) + 2 * T * R;
        auto rel = [&](long long y) {
            const long long i = y - y_first;
            return static_cast<int>(i < -(1 << 24) ? -(1 << 24) : i > rows + (1 << 24) ? rows + (1 << 24) : i);
        };
        load_lo = rel(0), load_hi = rel(a.ey);
        inner_lo = rel(R), inner_hi = rel(a.ey - R);
        offset = y_first * a.ex + col0;
        // column masks from 32-bit counts: halo x < r or x >= ex - r; stored
        // inside the strip's valid range and the grid (x < nx + r)
        auto clamp_cols = [](long long v) { return static_cast<int>(v < 0 ? 0 : v > C ? C : v); };
        const int inner_from = clamp_cols(R - col0), inner_to = clamp_cols(a.ex - R - col0);
        const int grid_end = clamp_cols(a.nx + R - col0), lane_col = C * lane;
        halo_cols = 0, store_cols = 0;
#pragma unroll
        for (int c = 0; c < C; ++c) {
            if (c < inner_from || c >= inner_to) halo_cols |= 1 << c;
            if (lane_col + c >= margin && lane_col + c < margin + valid && c < grid_end) store_cols |= 1 << c;
        }
        // Opaque from here on: otherwise the compiler recomputes the masks in
        // the row loop (some 50 instructions a row at r = 1) to save 2 registers.
        asm("" : "+r"(halo_cols), "+r"(store_cols));
        pair0 = col0 >= 0 && col0 < a.ex, pair1 = col0 + 2 >= 0 && col0 + 2 < a.ex;
    }
    /// The first output row, y_lo: the output lags the input by T r rows.
    static constexpr int store_from = 2 * T * R;

    /// Row y_first + i of `in`, at element `at`; zeros outside the array.
    __device__ void load_row(const double* in, int i, long long at, double (&v)[C]) const
    {
        const bool row = i >= load_lo && i < load_hi;
        const double2* p = reinterpret_cast<const double2*>(in + at);
        const double2 q0 = row && pair0 ? __ldg(p) : make_double2(0, 0);
        const double2 q1 = row && pair1 ? __ldg(p + 1) : make_double2(0, 0);
        v[0] = q0.x, v[1] = q0.y, v[2] = q1.x, v[3] = q1.y;
    }
    /// The stored columns of r at element `at` (16-byte pairs where both are stored).
    __device__ void store_row(double* out, long long at, const double (&r)[C]) const
    {
        double* p = out + at;
        if ((store_cols & 3) == 3) __stcs(reinterpret_cast<double2*>(p), make_double2(r[0], r[1]));
        else if (store_cols & 3) __stcs(p + ((store_cols & 1) ? 0 : 1), (store_cols & 1) ? r[0] : r[1]);
        if ((store_cols & 12) == 12) __stcs(reinterpret_cast<double2*>(p + 2), make_double2(r[2], r[3]));
        else if (store_cols & 12) __stcs(p + ((store_cols & 4) ? 2 : 3), (store_cols & 4) ? r[2] : r[3]);
    }
    /// Resets the halo points of step row y_first + i to the input.
    __device__ void reset_halo(int i, const double (&input)[C], double (&r)[C]) const
    {
        const bool row = i < inner_lo || i >= inner_hi;
        if (row || halo_cols != 0) {  // rare: the first and last bands, the outer lanes of the outer strips
#pragma unroll
            for (int c = 0; c < C; ++c)
                if (row || (halo_cols >> c & 1)) r[c] = input[c];
        }
    }
};

/// A lane's 4 columns m with r neighbours on each side, columns -r .. 3+r:
/// r from lane - 1, 4 own, r from lane + 1 (the outer lanes get wrong ones).
template <int R>
__device__ void stencil_ws_extend(const double (&m)[stencil_ws_cols], double (&row)[stencil_ws_cols + 2 * R])
{
    constexpr int C = stencil_ws_cols;
#pragma unroll
    for (int c = 0; c < C; ++c) row[R + c] = m[c];
#pragma unroll
    for (int o = 1; o <= R; ++o) {
        row[R - o] = __shfl_up_sync(0xffffffffu, m[C - o], 1);
        row[R + C - 1 + o] = __shfl_down_sync(0xffffffffu, m[o - 1], 1);
    }
}

/// T = 2 or 3 steps of the 2D star of radius R.
template <int R, int T, int MinBlocks = stencil_ws_min_blocks(R)>
__global__ void __launch_bounds__(32 * stencil_ws_warps, MinBlocks)
    stencil_cce_warp_stream_kernel(stencil_warp_stream_args<R> a)
{
    static_assert(R >= 1 && R <= stencil_ws_max_radius,
                  "radius 1..3 (the lane's 4 columns hold its neighbours' reach)");
    static_assert(T == 2 || T == 3, "T = 2 or 3: step k < T resets its halo from input row y - k r, kept for k <= 2");
    constexpr int C = stencil_ws_cols, W = 2 * R;  // W: rows of a window before its newest
    const long long strip = static_cast<long long>(blockIdx.x) * stencil_ws_warps + (threadIdx.x >> 5);
    if (strip >= a.strips) return;  // warp-uniform; no barriers below
    const stencil_ws_lane<R, T> lane(a, strip, threadIdx.x & 31);
    // The rows live in rings of P = 2r + 1 slots, one for the input and one
    // per step k < T: iteration y writes input row y and step k's row y - k r
    // into slot u = (y - y_first) mod P. The row loop is unrolled P times, so
    // u and every slot index are constants: no row is ever moved.
    constexpr int P = W + 1;
    // One step on a row whose newest input row is in slot u of `ring`: the
    // row dy = j - r sits in slot (u - 2r + j) mod P. Sums the rows above,
    // the centre row, then the rows below (r = 1: north, west, centre, east, south).
    auto wt = [&](int dy, int dx) { return a.w.w[stencil_ws_star<R>::weight_index(0, dy, dx)]; };
    auto step_row = [&](const double (&ring)[P][C], int u, double (&out)[C]) {
        double row[C + W];
        stencil_ws_extend<R>(ring[stencil_ws_slot(u, R, P)], row);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            double acc = wt(-R, 0) * ring[stencil_ws_slot(u, W, P)][c];
#pragma unroll
            for (int j = 1; j < R; ++j) acc = fma(wt(j - R, 0), ring[stencil_ws_slot(u, W - j, P)][c], acc);
#pragma unroll
            for (int i = 0; i <= W; ++i) acc = fma(wt(0, i - R), row[c + i], acc);
#pragma unroll
            for (int j = R + 1; j <= W; ++j) acc = fma(wt(j - R, 0), ring[stencil_ws_slot(u, W - j, P)][c], acc);
            out[c] = acc;
        }
    };
    double in_ring[P][C] = {};           // input rows y-2r .. y
    double step_ring[T - 1][P][C] = {};  // step k (1..T-1): rows y-kr-2r .. y-kr
    const long long out_delta = -static_cast<long long>(T * R) * a.ex;  // row y - T r
    long long offset = lane.offset;
    double next[C];
    lane.load_row(a.in, 0, offset, next);
#pragma unroll 1
    for (int i_base = 0; i_base < lane.rows; i_base += P) {
#pragma unroll
        for (int u = 0; u < P; ++u) {
            const int i = i_base + u;  // input row y = y_first + i
            if (i >= lane.rows) break;
#pragma unroll
            for (int c = 0; c < C; ++c) in_ring[u][c] = next[c];
            lane.load_row(a.in, i + 1, offset + a.ex, next);  // in flight while this row is computed
            step_row(in_ring, u, step_ring[0][u]);           // step 1, row y - r
            lane.reset_halo(i - R, in_ring[stencil_ws_slot(u, R, P)], step_ring[0][u]);
#pragma unroll
            for (int k = 2; k < T; ++k) {  // step k, row y - k r
                step_row(step_ring[k - 2], u, step_ring[k - 1][u]);
                lane.reset_halo(i - k * R, in_ring[stencil_ws_slot(u, k * R, P)], step_ring[k - 1][u]);
            }
            // step T, row y - T r: interior rows and columns only
            double r[C];
            step_row(step_ring[T - 2], u, r);
            if (i >= lane.store_from && lane.store_cols != 0) lane.store_row(a.out, offset + out_delta, r);
            offset += a.ex;
        }
    }
}

/// The kernel for T steps of the star S (checks S and T at compile time).
template <class S, int T, int MinBlocks = stencil_ws_min_blocks(S::radius)>
constexpr auto stencil_cce_warp_stream_kernel_for()
{
    static_assert(stencil_warp_stream_star<S>, "the warp streaming kernel computes the 2D stars of radius 1 and 3");
    return stencil_cce_warp_stream_kernel<S::radius, T, MinBlocks>;
}

/// Fills the kernel's arguments (sizes checked by stencil_apply_cce); band 0
/// picks stencil_warp_stream_band's for `resident` blocks.
template <class S, int T>
stencil_warp_stream_args<S::radius> stencil_warp_stream_setup(const double* in, double* out, const stencil_grid& g,
                                                              const stencil_weights<S>& w, long long band,
                                                              long long resident)
{
    static_assert(stencil_warp_stream_star<S>, "the warp streaming kernel computes the 2D stars of radius 1 and 3");
    constexpr int R = S::radius;
    stencil_warp_stream_args<R> a{};
    a.in = in;
    a.out = out;
    a.nx = g.nx;
    a.ny = g.ny;
    const stencil_extent e = stencil_array_extent<S>(g, boundary::dirichlet);
    a.ex = e.ex;
    a.ey = e.ey;
    a.strips = tcore::ceil_div(g.nx, stencil_ws_valid(T, R));
    a.w = w;
    a.band = band > 0 ? band : stencil_warp_stream_band(g.ny, a.strips, resident);
    require(stencil_warp_stream_band_ok(g.ny, a.band), "stencil_launch_warp_stream",
            "bands of " + std::to_string(a.band) + " rows for " + std::to_string(g.ny) +
                " rows: the kernel takes at most 65535 bands of fewer than 2^30 rows");
    return a;
}

/// Does the warp streaming kernel beat the tiled one on this device?
/// star2d3r: everywhere measured, by a wide margin on large grids.
/// star2d1r: where the DRAM is fast for the SMs, as the warps (which read
/// 5% more, and hold no barrier) follow the bandwidth and the tiled kernel,
/// since it takes tickets, its SMs. The threshold, 30 GB/s of peak DRAM
/// bandwidth per SM (dram_gbs_per_sm), lies between a device where the
/// tiled kernel measured ahead and one where the warps did
/// (examples/stencil/README.md).
template <class S>
inline bool stencil_warp_stream_preferred()
{
    return S::radius == 3 || tcore::dram_gbs_per_sm() >= 30.0;
}

/// Resident blocks of the warp streaming kernel for T steps of S on the current device.
template <class S, int T>
inline long long stencil_warp_stream_resident()
{
    return static_cast<long long>(tcore::sm_count()) *
           tcore::blocks_per_sm(stencil_cce_warp_stream_kernel_for<S, T>(), 32 * stencil_ws_warps);
}

/// stencil_apply_cce's run-time test: an even row pitch, 16-byte aligned arrays,
/// a grid with enough strips x bands of stencil_ws_min_band rows to fill the
/// resident blocks once, and bands the kernel can count (stencil_warp_stream_band_ok;
/// a very tall grid keeps the tiled kernel). Smaller grids keep the tiled kernel: at 4096^2
/// (star2d1r, T = 3: 5 blocks of strips, 160 blocks of 128-row bands) the
/// bands do not fill the resident blocks of a large device, and the warps
/// measured behind the tiled kernel or level with it there
/// (examples/stencil/README.md).
template <class S, int T>
inline bool stencil_warp_stream_fits(const double* in, const double* out, const stencil_grid& g)
{
    constexpr int R = S::radius;
    const stencil_extent e = stencil_array_extent<S>(g, boundary::dirichlet);
    if (e.ex % 2 != 0 || !tcore::aligned(in, 16) || !tcore::aligned(out, 16)) return false;
    const long long strips = tcore::ceil_div(g.nx, stencil_ws_valid(T, R));
    const long long resident = stencil_warp_stream_resident<S, T>();
    return tcore::ceil_div(strips, stencil_ws_warps) * (g.ny / stencil_ws_min_band) >= resident &&
           stencil_warp_stream_band_ok(g.ny, stencil_warp_stream_band(g.ny, strips, resident));
}

/// Launches the warp streaming kernel for T steps of S; band 0 picks
/// stencil_warp_stream_band's. Checks only the bands (throws tcore::error):
/// give it only what stencil_apply_cce accepts and stencil_warp_stream_fits takes.
template <class S, int T>
void stencil_launch_warp_stream(const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w,
                                cudaStream_t stream, long long band = 0)
{
    const auto a = stencil_warp_stream_setup<S, T>(in, out, g, w, band, stencil_warp_stream_resident<S, T>());
    const dim3 grid(static_cast<unsigned>(tcore::ceil_div(a.strips, stencil_ws_warps)),
                    static_cast<unsigned>(tcore::ceil_div(g.ny, a.band)));
    stencil_cce_warp_stream_kernel_for<S, T>()<<<grid, 32 * stencil_ws_warps, 0, stream>>>(a);
}

}  // namespace tcore::examples::stencil
