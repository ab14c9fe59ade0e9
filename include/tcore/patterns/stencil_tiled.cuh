// tcore/patterns/stencil_tiled.cuh - iterative FP64 stencils with temporal
// blocking: t steps fused per launch, the data staged in shared memory.
//
//   stencil_apply<S, Backend, T, BC>(in, out, grid, weights, stream)
//     out = T steps of stencil S applied to in (out-of-place; in is not
//     changed). Backend: tcore::tensor_core / tcore::cuda_core (the MMA
//     layout of stencil.cuh on that backend: the `tc` and `cc` variants) or
//     tcore::stencil_cce (plain CUDA-core arithmetic, same tiling and
//     temporal blocking: the fair CUDA-core opponent).
//
// 2D: overlapped tiles. A block owns TX x TY outputs (64x64, 32x32 for
// large halos), loads the (TX+2tr) x (TY+2tr) region around them once
// (cp.async, zero-filled outside the array, wrapped for periodic grids),
// computes steps 1..t in shared memory, each on a region r smaller on every
// side, and writes step t to global memory. Blocks are persistent and
// prefetch the next tile's region while computing the current one (two
// input buffers, plus one work buffer for t >= 2; step s ping-pongs between
// the work buffer and the tile's own input buffer).
//
// 3D: the same XY tiling, streamed along z (2.5D blocking, as in AN5D /
// EBISU): per stage s = 0..t-1 a ring of 2r+1 planes (the input ring one or
// two planes deeper for prefetching); at each z step one plane is loaded
// and every stage computes one plane, r planes behind the stage before.
// Long z ranges are split into chunks (each re-reading t*r planes of halo on
// both ends) where that shortens the run: choose_zchunk weighs the waves of
// work items against the planes each item streams.
//
// t = 1, cce, 3D: a streaming kernel instead (stencil_stream_kernel below):
// one plane buffer per z step, the 2r+1 output planes each input plane
// feeds accumulated in registers, four planes in flight per block, rows
// fetched by bulk copies (cp.async.bulk) where the arrays allow.
// t = 1, cce, 2D: stencil2d_t1_kernel, tiles through a ring of prefetched
// regions with no work buffer. Both t = 1 kernels store with st.global.cs.
// t = 2 or 3, cce, star2d3r (and star2d1r on devices with fast DRAM for
// their SMs, warp_stream_preferred), Dirichlet (even row pitch, aligned
// arrays, large grids): warps stream down the rows in registers instead
// (stencil_warp_stream.cuh).
//
// Loads: regions are copied as 16-byte column pairs (cp.async.cg, no L1
// allocation) where the arrays allow it (pair_loads_apply: Dirichlet, even
// row pitch, 16-byte aligned input, even (t-1)r) and, in the tiled
// kernels, where that measured faster (tiled_pair_loads), else 8 bytes at
// a time.
// Work order: the persistent blocks of the 2D kernels and of the 3D t = 1
// kernel take their items from a ticket counter (work_tickets.cuh), so the
// items in progress stay a compact window: faster blocks take more, and
// the halo rows of neighbouring tiles, read close in time, come from L2.
// In grid-stride order (each block its own fixed list) the blocks drift
// apart: halo rows are fetched from DRAM again once L2 has dropped them,
// so the kernels read more than the grid holds, and the SMs idle at the
// end while the slowest blocks finish; tickets bring the reads down to the
// grid's footprint (profiles and rates: examples/stencil/README.md).
// The 3D tiled kernel keeps grid-stride items. Blocks: min(items,
// resident) (grid-stride t = 1 2D: balanced_blocks, as many rounds each).
//
// MMA methods, 2D: the final step's 16x8 fragments are staged in shared
// memory and written out as whole tile rows (the fragments' scattered 16-
// byte row pieces had held tc and cc far below the copy bandwidth at t = 1).
//
// Work inside a step: `tc`/`cc` cover the step's region with 16x8 blocks
// (the last block in a row or column shifted back to end at the region's
// edge and writing only what the previous block did not), one warp per
// block, A gathered from the tile; `cce` gives each thread one column of a
// strip of rows, slides a register window down the strip and keeps the
// weights in the kernel's constant bank.
//
// Boundary: Dirichlet points of the halo are copied into every step's
// buffer, so intermediate steps see the fixed values; periodic tiles load
// wrapped indices, so every position is an interior point. Any grid size
// works (tails, grids smaller than a tile).
//
// Shared memory: row pitch p = the region width rounded up to p % 8 == 4
// (conflict-free 8-byte A gathers: lanes g = 0..3 of a half-warp hit word
// offsets {0, 12, 8, 4} (+t) modulo 16).
#pragma once

#include "../infra/async_copy.cuh"
#include "../check.cuh"
#include "../infra/launch.cuh"
#include "stencil.cuh"
#include "stencil_warp_stream.cuh"
#include "../infra/work_tickets.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>

namespace tcore {

/// Backend tag: plain CUDA-core stencil (no MMA layout), the `cce` variant.
struct stencil_cce {
    static constexpr const char* name() { return "cce"; }
};

template <class Backend>
inline constexpr bool is_stencil_backend_v =
    std::is_same_v<Backend, tensor_core> || std::is_same_v<Backend, cuda_core> || std::is_same_v<Backend, stencil_cce>;

namespace stencil_detail {

/// Smallest pitch >= w with pitch % 8 == 4.
__host__ __device__ constexpr int tile_pitch(int w)
{
    int p = w;
    while (p % 8 != 4) ++p;
    return p;
}

/// v mod n for n >= 1, by repeated addition/subtraction: the tiles ask for
/// indices at most a tile plus its halo outside [0, n), so this is one
/// compare each way except on grids smaller than a tile.
__host__ __device__ inline long long wrap(long long v, long long n)
{
    while (v < 0) v += n;
    while (v >= n) v -= n;
    return v;
}

/// Rows per thread strip of the cce variant.
template <class S>
__host__ __device__ constexpr int cce_strip()
{
    return S::radius <= 1 ? 8 : 16;
}

/// Does input row dr (relative to a strip of V outputs) at column offset dx
/// (plane dz) feed any output of the strip?
template <class S, int V>
__host__ __device__ constexpr bool cce_needed(int dz, int dr, int dx)
{
    for (int v = 0; v < V; ++v)
        if (S::contains(dz, dr - v, dx)) return true;
    return false;
}

/// Block k of `size` positions covering the region [lo, hi) (hi - lo >= size):
/// blocks start every `size` positions; the last one is moved back to end at
/// hi and owns only the positions >= its nominal start, so every position
/// of the region is written exactly once and no block reads past the region.
struct block_span {
    int nominal, start;
};
__host__ __device__ constexpr block_span region_block(int lo, int hi, int size, int k)
{
    const int nominal = lo + size * k;
    return {nominal, nominal < hi - size ? nominal : hi - size};
}

/// Geometry shared by the 2D and 3D tiles.
template <class S, int T, int TX, int TY>
struct tile_geometry {
    static constexpr int R = S::radius;
    static constexpr int tile_x = TX, tile_y = TY;
    static constexpr int halo = T * R;
    static constexpr int bw = TX + 2 * halo, bh = TY + 2 * halo;  ///< region of step 0
    static constexpr int pitch = tile_pitch(bw);
    static constexpr int plane = bh * pitch;  ///< doubles per buffer / plane
    static_assert(TX >= 8 && TY >= 16, "a tile holds at least one 16x8 block");
    static_assert(TY >= cce_strip<S>(), "a tile holds at least one cce strip");
};

/// Where a step writes its values: a shared buffer (with the halo copy) or global memory.
struct step_target {
    double* smem;    ///< next buffer (intermediate steps), else nullptr
    double* global;  ///< output plane origin (final step)
};

/// One tile (and, in 3D, one plane) in buffer coordinates, computed once
/// per tile by every thread: positions [ix_lo, ix_hi) x [iy_lo, iy_hi) are
/// interior points (computed), [ax_lo, ax_hi) x [ay_lo, ay_hi) lie in the
/// array (Dirichlet halo: copied by intermediate steps). Periodic tiles:
/// every position is computed; the interior bounds hold the final step's
/// unwrapped positions. `all` / `all_final`: the whole buffer / the whole
/// output tile is interior (the common case: no per-element test).
/// `gbase`: global index of buffer position (0, 0) in the output plane.
struct tile_frame {
    int ix_lo, ix_hi, iy_lo, iy_hi;
    int ax_lo, ax_hi, ay_lo, ay_hi;
    bool all, all_final;
    long long gbase;
};

__host__ __device__ constexpr int clamp_to(long long v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : static_cast<int>(v);
}

/// The frame of XY tile (x0, y0) on a plane whose z is interior or not.
template <class G, boundary BC>
__host__ __device__ inline tile_frame make_frame(long long x0, long long y0, long long nx, long long ny, long long ex,
                                                 bool z_interior)
{
    constexpr int R = G::R, H = G::halo;
    constexpr int h = stencil_halo(BC, R);
    tile_frame f{};
    // buffer position b is grid point x0 - H + b
    f.ix_lo = BC == boundary::periodic ? 0 : clamp_to(H - x0, 0, G::bw);
    f.ix_hi = clamp_to(H - x0 + nx, 0, G::bw);
    f.iy_lo = BC == boundary::periodic ? 0 : clamp_to(H - y0, 0, G::bh);
    f.iy_hi = clamp_to(H - y0 + ny, 0, G::bh);
    if (BC == boundary::dirichlet && !z_interior) f.ix_hi = f.ix_lo;  // a halo plane: nothing is interior
    f.ax_lo = clamp_to(H - x0 - R, 0, G::bw);
    f.ax_hi = clamp_to(H - x0 + nx + R, 0, G::bw);
    f.ay_lo = clamp_to(H - y0 - R, 0, G::bh);
    f.ay_hi = clamp_to(H - y0 + ny + R, 0, G::bh);
    const bool final_in = x0 + G::tile_x <= nx && y0 + G::tile_y <= ny;
    if (BC == boundary::periodic) {
        f.all = true;  // intermediate steps: every position is a real (wrapped) point
        f.all_final = final_in;
    } else {
        f.all = f.ix_lo == 0 && f.ix_hi == G::bw && f.iy_lo == 0 && f.iy_hi == G::bh;
        f.all_final = final_in && z_interior;
    }
    f.gbase = (y0 - H + h) * ex + (x0 - H + h);
    return f;
}

}  // namespace stencil_detail

/// Kernel arguments (2D and 3D).
template <class S>
struct stencil_args {
    const double* in;
    double* out;
    long long nx, ny, nz;        ///< interior grid
    long long ex, ey;            ///< array extents in x and y (row pitch ex, plane ex*ey)
    long long tiles_x, tiles_y;  ///< XY tiles
    long long zchunk, zchunks;   ///< 3D: z planes per work item, items per XY tile
    long long items;             ///< work items (2D: tiles; 3D: tiles * zchunks)
    bool pair_loads;             ///< load regions as 16-byte column pairs (see pair_loads_apply)
    work_tickets tickets;        ///< 2D kernels, 3D t = 1 kernel: items taken from this counter (null: grid-stride)
    stencil_weights<S> w;
};

namespace stencil_detail {

/// Where the tiled kernels (stencil2d_kernel, stencil3d_kernel) copy regions
/// as 16-byte pairs: where they measured faster than 8-byte copies (radius
/// 1 with t >= 2, measured at t = 3; t = 1 on star2d3r / box2d3r). Not
/// used where they measured slower: t = 1 at radius 1, t = 1 in 3D (mixed,
/// slower on box3d1r), t = 3 at radius 3 (slower in that comparison
/// through its block count, see launch_tiled2d; the comparison behind
/// tiled2d_knobs measured them slightly faster there, and tiled2d_knobs
/// takes them for star2d3r cce). Measurements: examples/stencil/README.md.
/// The t = 1 cce kernels always use them (their configurations were chosen
/// with them).
template <class S, int T>
__host__ __device__ constexpr bool tiled_pair_loads()
{
    return S::radius == 1 ? T >= 2 : S::dims == 2 && T == 1;
}

/// Loads the step-0 region of the XY tile (x0, y0) from array plane `src_plane`
/// (nullptr: a plane outside the array, zero-filled) into `buf`.
/// pairs: 16-byte copies of column pairs (cp.async.cg, no L1 allocation),
/// for Dirichlet arrays where region column 0 lies on an even array column
/// and rows are 16-byte aligned (pair_loads_apply); otherwise 8-byte copies.
/// MayPair = false compiles the 8-byte copies only.
template <class G, boundary BC, int Threads, bool MayPair>
__device__ inline void load_region(double* buf, const double* src_plane, const double* any_valid, long long x0,
                                   long long y0, long long nx, long long ny, long long ex, bool pairs)
{
    constexpr int R = G::R;
    if constexpr (MayPair && BC == boundary::dirichlet && G::bw % 2 == 0) {
        if (pairs) {
            constexpr int np = G::bw / 2;
            const long long ax0 = x0 - G::halo + R, ay0 = y0 - G::halo + R;  // array position of region (0, 0)
            for (int i = threadIdx.x; i < G::bh * np; i += Threads) {
                const int by = i / np, bx = 2 * (i % np);
                const long long ax = ax0 + bx, ay = ay0 + by;
                const bool ok = src_plane != nullptr && ax >= 0 && ax < ex && ay >= 0 && ay < ny + 2 * R;
                cp_async<16>(buf + by * G::pitch + bx, ok ? src_plane + ay * ex + ax : any_valid, ok ? 16 : 0);
            }
            return;
        }
    }
    constexpr int cols = (G::bw + 31) / 32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long xs[cols];
    bool xok[cols];
#pragma unroll
    for (int c = 0; c < cols; ++c) {
        const int bx = lane + 32 * c;
        const long long x = x0 - G::halo + bx;
        if constexpr (BC == boundary::periodic) {
            xs[c] = wrap(x, nx);
            xok[c] = bx < G::bw;
        } else {
            xs[c] = x + R;
            xok[c] = bx < G::bw && x >= -R && x < nx + R;
        }
    }
    for (int by = warp; by < G::bh; by += Threads / 32) {
        const long long y = y0 - G::halo + by;
        long long ys;
        bool yok;
        if constexpr (BC == boundary::periodic) {
            ys = wrap(y, ny);
            yok = src_plane != nullptr;
        } else {
            ys = y + R;
            yok = src_plane != nullptr && y >= -R && y < ny + R;
        }
        const double* row = yok ? src_plane + ys * ex : any_valid;
#pragma unroll
        for (int c = 0; c < cols; ++c) {
            const int bx = lane + 32 * c;
            if (bx < G::bw) {
                const bool ok = yok && xok[c];
                cp_async<8>(buf + by * G::pitch + bx, ok ? row + xs[c] : any_valid, ok ? 8 : 0);
            }
        }
    }
}

/// The cce variant's register window: adds to acc[v] the terms of plane
/// offset Dz for the output at row v of a strip of V outputs whose first
/// output lies at `base` (row pitch P). Each input the strip needs is read
/// from shared memory once and fed to every output of the strip it touches.
template <class S, int V, int P, int Dz>
__device__ inline void cce_strip_terms(double (&acc)[V], const double* base, const stencil_weights<S>& w)
{
    constexpr int R = S::radius;
    static_for<V + 2 * R>([&](auto r_) {
        constexpr int dr = decltype(r_)::value - R;
        static_for<2 * R + 1>([&](auto x_) {
            constexpr int dx = decltype(x_)::value - R;
            if constexpr (cce_needed<S, V>(Dz, dr, dx)) {
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

/// One step on plane z of an XY tile: the region r*s inside the step-0
/// region, from source planes src[dz - dz_lo] (same geometry) to `dst`.
/// Final step: dst.global is the output plane's origin (array element
/// (0, 0) of that plane); the interior point (x, y) goes to x+h, y+h.
/// Staged: the final step writes its region into dst.smem instead (the
/// MMA fragments' scattered 16x8 rows are written out by the caller as
/// whole tile rows). V: rows per cce strip.
template <class S, class Backend, int T, int Step, boundary BC, class G, int Threads, bool Staged, int V, int NP>
__device__ inline void tile_step(const double* const (&src)[NP], step_target dst, const tile_frame& f,
                                 const stencil_args<S>& a, const stencil_lane<S>* lane_plan)
{
    constexpr int R = S::radius;
    constexpr int P = G::pitch;
    constexpr bool final_step = Step == T;
    constexpr int lo_r = Step * R, hi_r = G::bh - Step * R;
    constexpr int lo_c = Step * R, hi_c = G::bw - Step * R;
    using plan = stencil_mma_plan<S>;
    const double* center = src[0 - plan::dz_lo];

    // Writes the value v of buffer position (br, bc).
    auto emit = [&](int br, int bc, double v) {
        if constexpr (final_step && Staged) {
            dst.smem[br * P + bc] = v;  // the kernel writes the staged tile out in rows
        } else if constexpr (final_step) {
            const bool in = f.all_final || (bc >= f.ix_lo && bc < f.ix_hi && br >= f.iy_lo && br < f.iy_hi);
            if (in) dst.global[f.gbase + static_cast<long long>(br) * a.ex + bc] = v;
        } else if constexpr (BC == boundary::periodic) {
            dst.smem[br * P + bc] = v;
        } else {
            if (f.all || (bc >= f.ix_lo && bc < f.ix_hi && br >= f.iy_lo && br < f.iy_hi)) {
                dst.smem[br * P + bc] = v;
            } else if (bc >= f.ax_lo && bc < f.ax_hi && br >= f.ay_lo && br < f.ay_hi) {
                dst.smem[br * P + bc] = center[br * P + bc];  // fixed Dirichlet value
            }
        }
    };

    if constexpr (std::is_same_v<Backend, stencil_cce>) {
        constexpr int W = hi_c - lo_c;
        constexpr int strips = (hi_r - lo_r + V - 1) / V;
        for (int it = threadIdx.x; it < W * strips; it += Threads) {
            const int col = lo_c + it % W;
            const block_span rs = region_block(lo_r, hi_r, V, it / W);
            const int r_nom = rs.nominal, r0 = rs.start;
            double acc[V];
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = 0.0;
            static_for<NP>([&](auto p_) {
                constexpr int dz = decltype(p_)::value + plan::dz_lo;
                cce_strip_terms<S, V, P, dz>(acc, src[decltype(p_)::value] + r0 * P + col, a.w);
            });
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (r0 + v >= r_nom) emit(r0 + v, col, acc[v]);
        }
    } else {
        constexpr int nbr = (hi_r - lo_r + 15) / 16, nbc = (hi_c - lo_c + 7) / 8;
        const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
        for (int b = warp; b < nbr * nbc; b += Threads / 32) {
            const block_span rs = region_block(lo_r, hi_r, 16, b / nbc);
            const block_span cs = region_block(lo_c, hi_c, 8, b % nbc);
            const int r_nom = rs.nominal, r0 = rs.start, c_nom = cs.nominal, c0 = cs.start;
            const double* blk[NP];
#pragma unroll
            for (int p = 0; p < NP; ++p) blk[p] = src[p] + r0 * P + c0;
            double d[4];
            stencil_block_mma<Backend, S>(d, blk, P, *lane_plan);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const coord rc = stencil_out_coord(lane, i);
                const int br = r0 + rc.row, bc = c0 + rc.col;
                if (br >= r_nom && bc >= c_nom) emit(br, bc, d[i]);
            }
        }
    }
}

// -- configurations ------------------------------------------------------------

/// MMA work of a tile relative to its useful work: 16x8 blocks computed
/// over T steps (each step's region r smaller on every side) per output
/// point-step. Tiles whose step regions are multiples of the block waste
/// least (e.g. 60x60 at r = 1, t = 3: regions 64, 62, 60).
__host__ __device__ constexpr double mma_overhead(int tx, int ty, int T, int R)
{
    long long blocks = 0;
    for (int s = 1; s <= T; ++s) {
        const int w = tx + 2 * (T - s) * R, h = ty + 2 * (T - s) * R;
        blocks += static_cast<long long>((h + 15) / 16) * ((w + 7) / 8);
    }
    return static_cast<double>(blocks) * 128.0 / (static_cast<double>(tx) * ty * T);
}

/// The 2D tiled kernel's configuration: TX x TY output tiles, Threads per
/// block, cce strips of Strip rows, 16-byte region copies compiled where
/// Pairs (and used where pair_loads_apply).
template <class S, int T, class Backend, int TX, int TY, int Threads, int Strip, bool Pairs>
struct tiled2d_config {
    static constexpr int R = S::radius;
    using geometry = tile_geometry<S, T, TX, TY>;
    static constexpr int threads = Threads, strip = Strip;
    static constexpr bool pairs = Pairs;
    /// The MMA methods stage the final step's tile for row-wise stores: in
    /// the buffer step T does not read (t >= 2), or in a third buffer (t = 1).
    static constexpr bool staged = !std::is_same_v<Backend, stencil_cce>;
    static constexpr int buffers = T >= 2 || staged ? 3 : 2;
    static constexpr std::size_t smem_bytes = sizeof(double) * (buffers * geometry::plane + S::weight_count);
    static_assert(smem_bytes <= 227 * 1024, "2D tile does not fit in shared memory: lower T");
    static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
    static_assert(TY >= Strip, "a tile holds at least one cce strip");
    /// Blocks per SM the registers are budgeted for: 2 where shared memory
    /// allows 2 (ptxas would otherwise assume 2 and spill the T >= 2 tiles).
    static constexpr int min_blocks = 2 * smem_bytes <= 227 * 1024 ? 2 : 1;
};

/// Default square 2D tile: 64x64 (32x32 for large halos), or 64 - 2(t-1)r
/// where that wastes less MMA work.
template <class S, int T>
__host__ __device__ constexpr int default_tile2d()
{
    constexpr int R = S::radius;
    constexpr int big = T * R <= 12 ? 64 : 32;
    constexpr int aligned = big - 2 * (T - 1) * R;
    return aligned >= 32 && mma_overhead(aligned, aligned, T, R) < mma_overhead(big, big, T, R) ? aligned : big;
}

/// Threads, cce strip rows and 16-byte copies of the default 2D tiles: 256
/// threads, cce_strip rows and tiled_pair_loads, except at t = 3 where a
/// comparison of the knobs measured faster ones (examples/stencil/README.md):
///   star2d3r cce: 512 threads, 8-row strips, 16-byte copies;
///   star2d3r tc: 512 threads;
///   star2d1r cce: 4-row strips;
///   box2d1r cce: 16-row strips.
template <class S, int T, class Backend>
struct tiled2d_knobs {
    static constexpr bool cce = std::is_same_v<Backend, stencil_cce>;
    static constexpr bool star = S::kind == stencil_kind::star;
    static constexpr bool star2d3r_t3 = S::dims == 2 && S::radius == 3 && star && T == 3;
    static constexpr int threads = star2d3r_t3 && !std::is_same_v<Backend, cuda_core> ? 512 : 256;
    static constexpr int strip = !cce || T != 3 ? cce_strip<S>()
                                 : star2d3r_t3 ? 8
                                 : S::radius == 1 ? (star ? 4 : 16)
                                                  : cce_strip<S>();
    static constexpr bool pairs = tiled_pair_loads<S, T>() || (star2d3r_t3 && cce);
};

template <class S, int T, class Backend = default_backend>
using config2d = tiled2d_config<S, T, Backend, default_tile2d<S, T>(), default_tile2d<S, T>(),
                                tiled2d_knobs<S, T, Backend>::threads, tiled2d_knobs<S, T, Backend>::strip,
                                tiled2d_knobs<S, T, Backend>::pairs>;

/// Shared memory of a 3D tile of tx x ty outputs (rings of planes, weights).
template <class S, int T>
__host__ __device__ constexpr std::size_t smem3d(int tx, int ty, int prefetch)
{
    const int halo = T * S::radius;
    const int planes = 2 * S::radius + 1 + prefetch + (T - 1) * (2 * S::radius + 1);
    return sizeof(double) * (static_cast<std::size_t>(planes) * (ty + 2 * halo) * tile_pitch(tx + 2 * halo) +
                             S::weight_count);
}

/// A 3D tile size.
struct tile_xy {
    int x, y;
};

/// The 3D tile: of 64x32, 32x32 and both shrunk by 2(t-1)r, the one that
/// fits in shared memory with the least MMA overhead (the first of equals).
template <class S, int T>
__host__ __device__ constexpr tile_xy choose_tile3d(int prefetch)
{
    const int shrink = 2 * (T - 1) * S::radius;
    const tile_xy c[4] = {{64, 32}, {64 - shrink, 32 - shrink}, {32 - shrink, 32 - shrink}, {32, 32}};
    tile_xy best{32, 32};
    double cost = 1e30;
    for (int i = 0; i < 4; ++i) {
        const tile_xy p = c[i];
        if (p.x < 8 || p.y < 16 || smem3d<S, T>(p.x, p.y, prefetch) > 227 * 1024) continue;
        const double o = mma_overhead(p.x, p.y, T, S::radius);
        if (o < cost) best = p, cost = o;
    }
    return best;
}

template <class S, int T>
struct config3d {
    static constexpr int R = S::radius;
    static constexpr int prefetch = T == 1 ? 2 : 1;
    static constexpr int tile_x = choose_tile3d<S, T>(prefetch).x, tile_y = choose_tile3d<S, T>(prefetch).y;
    using geometry = tile_geometry<S, T, tile_x, tile_y>;
    static constexpr int threads = 256;
    static constexpr int ring0 = 2 * S::radius + 1 + prefetch;  ///< input planes
    static constexpr int ring = 2 * S::radius + 1;              ///< planes of stages 1..T-1
    static constexpr int planes = ring0 + (T - 1) * ring;
    static constexpr std::size_t smem_bytes = sizeof(double) * (planes * geometry::plane + S::weight_count);
    static_assert(smem_bytes <= 227 * 1024, "3D tile does not fit in shared memory: lower T");
    static constexpr int min_blocks = 2 * smem_bytes <= 227 * 1024 ? 2 : 1;
};

// -- kernels -------------------------------------------------------------------

/// The MMA methods' per-lane layout, built from a copy of the weights in
/// shared memory (`scratch`, S::weight_count doubles) so that the kernel
/// parameter is only ever read at compile-time offsets. Ends with a barrier.
template <class S, class Backend>
__device__ inline stencil_lane<S> setup_lane(const stencil_weights<S>& w, double* scratch, int pitch)
{
    stencil_lane<S> ln{};
    if constexpr (!std::is_same_v<Backend, stencil_cce>) {
        if (threadIdx.x == 0) static_for<S::weight_count>([&](auto i) { scratch[i] = w.w[i]; });
        __syncthreads();
        ln = make_stencil_lane<S>(threadIdx.x & 31, *reinterpret_cast<const stencil_weights<S>*>(scratch), pitch);
    }
    __syncthreads();
    return ln;
}

/// Blocks per SM a kernel's registers are budgeted for: the configuration's
/// min_blocks, except 1 for the MMA methods of shapes whose per-lane layout
/// is large (more than 16 slot groups: box2d3r, box3d1r), which would spill
/// their offsets and weights under 128 registers.
template <class S, class Backend, class Config>
__host__ __device__ constexpr int min_blocks()
{
    return !std::is_same_v<Backend, stencil_cce> && stencil_mma_plan<S>::slot_groups > 16 ? 1 : Config::min_blocks;
}

template <class S, class Backend, int T, boundary BC, class C = config2d<S, T, Backend>>
__global__ void __launch_bounds__(C::threads, (min_blocks<S, Backend, C>())) stencil2d_kernel(const stencil_args<S> a)
{
    using G = typename C::geometry;
    constexpr int Threads = C::threads;
    extern __shared__ __align__(16) double smem[];
    // input buffers at smem and smem + plane (picked arithmetically: an
    // array of two pointers indexed at run time would live on the stack)
    double* const work = smem + 2 * G::plane;
    // Every buffer starts finite (an MMA block may read positions no step wrote).
    for (int i = threadIdx.x; i < C::buffers * G::plane; i += Threads) smem[i] = 0.0;
    const stencil_lane<S> ln = setup_lane<S, Backend>(a.w, smem + C::buffers * G::plane, G::pitch);

    auto load_tile = [&](double* buf, long long it) {
        const long long x0 = (it % a.tiles_x) * G::tile_x, y0 = (it / a.tiles_x) * G::tile_y;
        load_region<G, BC, Threads, C::pairs>(buf, a.in, a.in, x0, y0, a.nx, a.ny, a.ex, a.pair_loads);
    };
    __shared__ item_queue<2> queue;  // the tile of each input buffer
    queue.start(a.tickets);
    __syncthreads();
    if (queue.at(0) < a.items) load_tile(smem, queue.at(0));
    cp_async_commit();
    for (int k = 0; queue.at(k) < a.items; ++k) {
        const long long item = queue.at(k);
        // prefetch the next tile into the other input buffer (freed by the
        // barrier that ended the previous iteration)
        if (queue.at(k + 1) < a.items) load_tile(smem + ((k + 1) & 1) * G::plane, queue.at(k + 1));
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();  // tile k landed; every thread has read its slots
        const long long next = queue.take(a.tickets, k);  // tile k + 2, published by step 1's barrier
        const long long x0 = (item % a.tiles_x) * G::tile_x, y0 = (item / a.tiles_x) * G::tile_y;
        const tile_frame f = make_frame<G, BC>(x0, y0, a.nx, a.ny, a.ex, true);
        double* const cur = smem + (k & 1) * G::plane;
        static_for<T>([&](auto s_) {
            constexpr int step = decltype(s_)::value + 1;
            // odd steps read the tile's input buffer, even steps the work buffer
            const double* const src[1] = {step % 2 == 1 ? cur : work};
            step_target dst{nullptr, nullptr};
            if constexpr (step == T && !C::staged) dst.global = a.out;
            else dst.smem = step % 2 == 1 ? work : cur;
            tile_step<S, Backend, T, step, BC, G, Threads, C::staged, C::strip>(src, dst, f, a, &ln);
            if constexpr (step == 1) queue.publish(k, next);
            __syncthreads();
        });
        if constexpr (C::staged) {
            // the final step's tile, staged in the buffer it did not read: whole rows out
            const double* const staged = T % 2 == 1 ? work : cur;
            for (int i = threadIdx.x; i < G::tile_x * G::tile_y; i += Threads) {
                const int br = G::halo + i / G::tile_x, bc = G::halo + i % G::tile_x;
                if (f.all_final || (bc >= f.ix_lo && bc < f.ix_hi && br >= f.iy_lo && br < f.iy_hi))
                    a.out[f.gbase + static_cast<long long>(br) * a.ex + bc] = staged[br * G::pitch + bc];
            }
            // even t staged in `cur`, which the next iteration's prefetch overwrites
            if constexpr (T % 2 == 0) __syncthreads();
        }
    }
    cp_async_wait<0>();
    queue.done(a.tickets);
}

template <class S, class Backend, int T, boundary BC>
__global__ void __launch_bounds__(config3d<S, T>::threads, (min_blocks<S, Backend, config3d<S, T>>()))
    stencil3d_kernel(const stencil_args<S> a)
{
    using C = config3d<S, T>;
    using G = typename C::geometry;
    constexpr int Threads = C::threads;
    constexpr int R = S::radius;
    constexpr int PF = C::prefetch;
    constexpr int h = stencil_halo(BC, R);
    extern __shared__ __align__(16) double smem[];
    for (int i = threadIdx.x; i < C::planes * G::plane; i += Threads) smem[i] = 0.0;
    const stencil_lane<S> ln = setup_lane<S, Backend>(a.w, smem + C::planes * G::plane, G::pitch);
    const long long plane_elems = a.ex * a.ey;

    for (long long item = blockIdx.x; item < a.items; item += gridDim.x) {
        const long long tile = item / a.zchunks, chunk = item % a.zchunks;
        const long long x0 = (tile % a.tiles_x) * G::tile_x, y0 = (tile / a.tiles_x) * G::tile_y;
        const long long za = chunk * a.zchunk;
        const long long zb = za + a.zchunk < a.nz ? za + a.zchunk : a.nz;
        const long long q_begin = za - T * R, q_end = zb + T * R;
        const tile_frame f_in = make_frame<G, BC>(x0, y0, a.nx, a.ny, a.ex, true);
        const tile_frame f_halo = make_frame<G, BC>(x0, y0, a.nx, a.ny, a.ex, false);
        // Ring slots: planes are keyed by z - q_begin + (T+1)R >= 0 (small ints).
        auto slot = [&](int stage, long long z) -> double* {
            const int key = static_cast<int>(z - q_begin) + (T + 1) * R;
            if (stage == 0) return smem + (key % C::ring0) * G::plane;
            return smem + (C::ring0 + (stage - 1) * C::ring + key % C::ring) * G::plane;
        };
        // Stage s holds planes [za - (T-s)R, zb + (T-s)R) that lie in the array.
        auto active = [&](int stage, long long z) {
            const bool in_array = BC == boundary::periodic || (z >= -R && z < a.nz + R);
            return z >= za - (T - stage) * R && z < zb + (T - stage) * R && in_array;
        };
        auto load_plane = [&](long long z) {
            if (z < q_end && active(0, z)) {
                const long long zs = BC == boundary::periodic ? wrap(z, a.nz) : z + R;
                load_region<G, BC, Threads, tiled_pair_loads<S, T>()>(slot(0, z), a.in + zs * plane_elems, a.in,
                                                                      x0, y0, a.nx, a.ny, a.ex, a.pair_loads);
            }
            cp_async_commit();  // one group per plane, empty or not, so wait_group counts planes
        };
        __syncthreads();  // the previous item is done with every ring slot
        for (int p = 0; p < PF; ++p) load_plane(q_begin + p);
        for (long long q = q_begin; q < q_end; ++q) {
            __syncthreads();  // iteration q-1 is done with the slot the next load overwrites
            load_plane(q + PF);
            cp_async_wait<PF>();
            __syncthreads();
            static_for<T>([&](auto s_) {
                constexpr int stage = decltype(s_)::value + 1;
                const long long z = q - stage * R;
                if (active(stage, z)) {
                    const double* src[2 * R + 1];
#pragma unroll
                    for (int dz = -R; dz <= R; ++dz) src[dz + R] = slot(stage - 1, z + dz);
                    step_target dst{nullptr, nullptr};
                    if constexpr (stage == T) dst.global = a.out + (z + h) * plane_elems;
                    else dst.smem = slot(stage, z);
                    // Dirichlet halo planes (never the final stage's) are copied
                    // position by position: their frame has no interior.
                    const bool z_interior = BC == boundary::periodic || (z >= 0 && z < a.nz);
                    const tile_frame f = z_interior ? f_in : f_halo;
                    tile_step<S, Backend, T, stage, BC, G, Threads, false, cce_strip<S>()>(src, dst, f, a, &ln);
                }
                if (stage < T) __syncthreads();
            });
        }
    }
    cp_async_wait<0>();
}

// -- t = 1, cce, 3D: the streaming kernel --------------------------------------------

/// The t = 1 CUDA-core kernel in 3D sweeps the grid along z. A block owns
/// sx x sy outputs of each XY plane, streams the planes with their XY halo
/// through a ring of `ring` shared buffers (ring - 1 planes in flight, one
/// barrier per plane), and each thread keeps, for its column x and strip of
/// V rows, the partial sums of the 2r+1 output planes that the newest input
/// plane feeds (a register queue along z), so every plane is read from
/// shared memory once and the plane buffers need no z halo. Chosen over the
/// tiled 3D kernel at t = 1 because it keeps more planes in flight per SM
/// in the same shared memory.
///
/// Loads: where pair_loads_apply (Dirichlet, even row pitch, 16-byte aligned
/// input) a plane's region is fetched as one bulk copy per row
/// (cp.async.bulk, the copy engine of sm_90: each row is bw contiguous
/// doubles starting at an even array column, so source, size and the
/// shared row pitch are multiples of 16 bytes), completing on the ring
/// slot's mbarrier; rows and columns past the array are not fetched (they
/// only feed outputs that are not stored). Elsewhere 16-byte or 8-byte
/// cp.async copies, one commit group per plane.
template <class S, int SX, int SY, int V, int Ring, int MinBlocks>
struct stream_config {
    static constexpr int R = S::radius;
    static constexpr int sx = SX, sy = SY, strip = V, ring = Ring, min_blocks = MinBlocks;
    static constexpr int bw = SX + 2 * R, bh = SY + 2 * R;  ///< a plane's region (XY halo R)
    static constexpr int pitch = tile_pitch(bw);
    static constexpr int plane = bh * pitch;
    static constexpr int threads = SX * (SY / V);
    /// the plane ring, then one 8-byte mbarrier per ring slot
    static constexpr std::size_t smem_bytes = sizeof(double) * Ring * plane + sizeof(unsigned long long) * Ring;
    static_assert(S::dims == 3, "the streaming kernel streams 3D grids along z");
    static_assert(SY % V == 0 && threads % 32 == 0 && threads <= 1024, "strips tile the plane");
    static_assert(Ring >= 2, "at least one plane in flight");
    static_assert(bh <= 32 * 32, "one warp issues a plane's row copies");
};

/// Default streaming configuration: 256x16 tiles, strips of 16 rows (256
/// threads), 5 buffers (4 planes in flight, 1 block of 183 KB per SM, no
/// spills), rows fetched by bulk copies: ahead of the previous default
/// (128x32, 16-row strips, 6 buffers, 16-byte cp.async) and the fastest or
/// level with the fastest among the tile shapes, strip heights, blocks per
/// SM and copy kinds compared on star3d1r / box3d1r (the same tile with cp.async
/// copies measured slightly ahead on one device and well behind on box3d1r
/// on another). Slower there: narrower tiles with 2 blocks per SM, 256x32
/// (512 threads, spilling), and an even split of the (tile, z) planes over
/// the blocks (its XY neighbours drift apart in z, so the halo rows miss
/// L2 and the DRAM reads grow); the L2 256-byte prefetch hint and plain
/// stores were tried too. A 2D version streaming rows (sx = 512, 8
/// buffers) stayed below the 2D tiled kernel on the radius-1 shapes; it was
/// not used and has been removed. Measurements: examples/stencil/README.md.
template <class S>
using stream_default = stream_config<S, 256, 16, 16, 5, 1>;

/// Does input row dr (relative to a strip of V outputs) at column offset dx
/// feed any output of the strip, on any of the 2r+1 output planes?
template <class S, int V>
__host__ __device__ constexpr bool stream_needed(int dr, int dx)
{
    for (int ds = -S::radius; ds <= S::radius; ++ds)
        if (cce_needed<S, V>(ds, dr, dx)) return true;
    return false;
}

template <class S, boundary BC, class C>
__global__ void __launch_bounds__(C::threads, C::min_blocks) stencil_stream_kernel(const stencil_args<S> a)
{
    constexpr int R = S::radius, V = C::strip, Q = 2 * R + 1, Ring = C::ring, P = C::pitch;
    constexpr int h = stencil_halo(BC, R);
    extern __shared__ __align__(16) double smem[];
    const int tx = threadIdx.x % C::sx, ty0 = (threadIdx.x / C::sx) * V;
    const long long nz = a.nz, ny = a.ny;       // grid planes and rows
    const long long plane_elems = a.ex * a.ey;  // array stride of one z plane
    unsigned long long* bars = reinterpret_cast<unsigned long long*>(smem + Ring * C::plane);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const bool bulk = BC == boundary::dirichlet && a.pair_loads;  // rows by cp.async.bulk (see stream_config)
#else
    const bool bulk = false;
#endif
    if (bulk && threadIdx.x == 0) {
        for (int i = 0; i < Ring; ++i) mbarrier_init(bars + i);
        mbarrier_init_fence();
    }
    // Planes streamed by this block before the current item: ring slot of
    // plane p is (seq + p - q_begin) % Ring, and each use of a slot completes
    // one phase of its mbarrier.
    long long seq = 0;
    // Items: grid-stride, tile-major (a block streams its tile's z chunks one
    // after the other); with tickets, chunk-major (the items in progress are
    // neighbouring tiles at the same z, so they share their halo rows in L2).
    const bool tickets = a.tickets.counter != nullptr;
    const long long tiles = a.tiles_x * a.tiles_y;
    __shared__ item_queue<1> queue;
    queue.start(a.tickets);
    __syncthreads();

    for (int n = 0; queue.at(n) < a.items; ++n) {
        const long long item = queue.at(n);
        const long long tile = tickets ? item % tiles : item / a.zchunks;
        const long long chunk = tickets ? item / tiles : item % a.zchunks;
        const long long next = queue.take(a.tickets, n);  // published by the barrier that ends this item
        const long long x0 = (tile % a.tiles_x) * C::sx, y0 = (tile / a.tiles_x) * C::sy;
        const long long za = chunk * a.zchunk;
        const long long zb = za + a.zchunk < nz ? za + a.zchunk : nz;
        const long long q_begin = za - R, q_end = zb + R;

        // Per-thread load pattern of a plane (8-byte copies): warp w loads rows
        // w, w + warps, ...; lane l columns l + 32k, at array offset xoff[k] in
        // the row (-1: outside the array).
        constexpr int loads = (C::bw + 31) / 32;
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        int xoff[loads];
#pragma unroll
        for (int k = 0; k < loads; ++k) {
            const int bx = lane + 32 * k;
            const long long x = x0 - R + bx;
            xoff[k] = -1;
            if (bx < C::bw) {
                if constexpr (BC == boundary::periodic) xoff[k] = static_cast<int>(wrap(x, a.nx));
                else if (x >= -R && x < a.nx + R) xoff[k] = static_cast<int>(x + R);
            }
        }
        auto load_plane = [&](long long p) {
            if (p < q_end) {
                const int slot = static_cast<int>((seq + p - q_begin) % Ring);
                double* buf = smem + slot * C::plane;
                const long long ps = BC == boundary::periodic ? wrap(p, nz) : p + R;
                const double* src = a.in + ps * plane_elems;
                if (bulk) {
                    // warp 0: lane 0 announces the plane's bytes, lanes copy rows
                    if (warp == 0) {
                        const long long rows_left = ny + 2 * R - y0, cols_left = a.ex - x0;
                        const int rows = rows_left < C::bh ? static_cast<int>(rows_left) : C::bh;
                        const int cols = cols_left < C::bw ? static_cast<int>(cols_left) : C::bw;
                        if (lane == 0) mbarrier_expect_tx(bars + slot, static_cast<unsigned>(rows * cols) * 8u);
                        __syncwarp();
                        for (int by = lane; by < rows; by += 32)
                            cp_async_bulk(buf + by * P, src + (y0 + by) * a.ex + x0, static_cast<unsigned>(cols) * 8u,
                                            bars + slot);
                    }
                } else if (BC == boundary::dirichlet && C::bw % 2 == 0 && a.pair_loads) {
                    // 16-byte copies: plane column 2k is array column x0 + 2k (pair_loads_apply)
                    constexpr int pairs = C::bw / 2;
                    for (int i = threadIdx.x; i < C::bh * pairs; i += C::threads) {
                        const int by = i / pairs, bx = 2 * (i % pairs);
                        const long long ay = y0 + by, ax = x0 + bx;  // array row and column (halo R included)
                        const bool ok = ay < ny + 2 * R && ax < a.ex;
                        cp_async<16>(buf + by * P + bx, ok ? src + ay * a.ex + ax : a.in, ok ? 16 : 0);
                    }
                } else {
                    for (int by = warp; by < C::bh; by += C::threads / 32) {
                        const long long y = y0 - R + by;
                        long long row = -1;
                        if constexpr (BC == boundary::periodic) row = wrap(y, ny) * a.ex;
                        else if (y >= -R && y < a.ny + R) row = (y + R) * a.ex;
#pragma unroll
                        for (int k = 0; k < loads; ++k) {
                            const int bx = lane + 32 * k;
                            const bool ok = row >= 0 && xoff[k] >= 0;
                            if (bx < C::bw) cp_async<8>(buf + by * P + bx, ok ? src + row + xoff[k] : a.in, ok ? 8 : 0);
                        }
                    }
                }
            }
            if (!bulk) cp_async_commit();  // one group per plane, empty or not
        };

        double q[Q][V];
#pragma unroll
        for (int k = 0; k < Q; ++k)
#pragma unroll
            for (int v = 0; v < V; ++v) q[k][v] = 0.0;

        const long long xo = x0 + tx;
        const bool x_in = xo < a.nx;
        for (int j = 0; j < Ring - 1; ++j) load_plane(q_begin + j);
        for (long long p = q_begin; p < q_end; ++p) {
            const long long s = seq + p - q_begin;
            if (bulk) mbarrier_wait_parity(bars + static_cast<int>(s % Ring), static_cast<unsigned>((s / Ring) & 1));
            else cp_async_wait<Ring - 2>();
            __syncthreads();            // plane p landed; everyone is done with plane p-1
            load_plane(p + Ring - 1);   // into plane p-1's buffer
            const double* base = smem + static_cast<int>(s % Ring) * C::plane + (ty0 + R) * P + tx + R;
            static_for<V + 2 * R>([&](auto r_) {
                constexpr int dr = decltype(r_)::value - R;
                static_for<2 * R + 1>([&](auto x_) {
                    constexpr int dx = decltype(x_)::value - R;
                    if constexpr (stream_needed<S, V>(dr, dx)) {
                        const double val = base[dr * P + dx];
                        static_for<Q>([&](auto k_) {
                            constexpr int k = decltype(k_)::value;
                            constexpr int ds = R - k;  // plane p is output plane p - R + k's offset ds
                            static_for<V>([&](auto v_) {
                                constexpr int v = decltype(v_)::value;
                                if constexpr (S::contains(ds, dr - v, dx))
                                    q[k][v] = fma(a.w.w[S::weight_index(ds, dr - v, dx)], val, q[k][v]);
                            });
                        });
                    }
                });
            });
            const long long z = p - R;  // q[0] is complete
            if (z >= za && x_in) {
                double* dst = a.out + (z + h) * plane_elems + xo + h;
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    const long long y = y0 + ty0 + v;
                    if (y < a.ny) __stcs(dst + (y + h) * a.ex, q[0][v]);
                }
            }
#pragma unroll
            for (int k = 0; k + 1 < Q; ++k)
#pragma unroll
                for (int v = 0; v < V; ++v) q[k][v] = q[k + 1][v];
#pragma unroll
            for (int v = 0; v < V; ++v) q[Q - 1][v] = 0.0;
        }
        seq += q_end - q_begin;
        queue.publish(n, next);
        __syncthreads();
    }
    cp_async_wait<0>();
    queue.done(a.tickets);
}

// -- t = 1, cce, 2D: tiles with a prefetch ring ------------------------------------

/// The t = 1 CUDA-core kernel in 2D: persistent blocks take TX x TY tiles in
/// grid-stride order through a ring of `buffers` tile regions (cp.async, one
/// commit group per tile): the region buffers - 1 tiles ahead is issued
/// before waiting for the current one, so buffers - 1 tiles are in flight
/// while a block computes and `buffers` while it waits. Each thread slides a
/// register window down a strip of V rows of one column, as the tiled cce
/// step does, and stores its outputs straight to global memory with
/// streaming stores (st.global.cs: the output is not read again, so it
/// should not push out the input rows that neighbouring tiles still read as
/// halo). Regions are loaded as 16-byte column pairs where pair_loads_apply.
template <class S, int TX, int TY, int V, int Threads, int Buffers, int MinBlocks>
struct t1_tile_config {
    static constexpr int R = S::radius;
    static constexpr int tile_x = TX, tile_y = TY, strip = V, threads = Threads, buffers = Buffers,
                         min_blocks = MinBlocks;
    using geometry = tile_geometry<S, 1, TX, TY>;
    static constexpr int bw = geometry::bw, bh = geometry::bh, pitch = geometry::pitch, plane = geometry::plane;
    static constexpr int work = TX * (TY / V);  ///< strips per tile
    static constexpr std::size_t smem_bytes = sizeof(double) * Buffers * plane;
    static_assert(TY % V == 0 && TX % 2 == 0, "strips tile the tile; even width for 16-byte loads");
    static_assert(Buffers >= 2 && Threads % 32 == 0 && Threads <= 1024, "at least one tile in flight");
    static_assert(smem_bytes <= 227 * 1024, "t = 1 tile ring does not fit in shared memory");
};

/// Default 2D t = 1 configurations, the fastest of the tile shapes, strip
/// heights, ring depths and block sizes compared (examples/stencil/README.md):
///   radius 1: 256x16 tiles, 8-row strips, 3 buffers, 2 blocks per SM
///     (128x64 with 512 threads, 1 block per SM, level; 64x64, 2 buffers,
///     3 blocks per SM (the tiled kernel's shape) and 128x32 slower);
///   star2d3r: 128x32 tiles, 8-row strips, 512 threads, 1 block per SM
///     (128x64 with 16-row strips close; 64x32 and 64x64 tiles slower);
///   box2d3r (49 FMAs per point): 64x32 tiles, 16-row strips, 128 threads,
///     4 buffers, 2 blocks per SM (128x32 with 256 threads close; 64x64
///     with 256 threads and 8-row strips slower).
/// On the radius-1 shapes and star2d3r the 64-wide tiles stay further below
/// the copy bandwidth than the 256-wide and 512-thread ones.
template <class S>
using t1_tile_default = std::conditional_t<
    S::radius <= 1, t1_tile_config<S, 256, 16, 8, 256, 3, 2>,
    std::conditional_t<S::kind == stencil_kind::star, t1_tile_config<S, 128, 32, 8, 512, 2, 1>,
                       t1_tile_config<S, 64, 32, 16, 128, 4, 2>>>;

template <class S, boundary BC, class C>
__global__ void __launch_bounds__(C::threads, C::min_blocks) stencil2d_t1_kernel(const stencil_args<S> a)
{
    constexpr int R = S::radius, P = C::pitch, V = C::strip, B = C::buffers;
    constexpr int h = stencil_halo(BC, R);
    using G = typename C::geometry;
    extern __shared__ __align__(16) double smem[];
    __shared__ item_queue<B> queue;  // the tile of each ring buffer
    queue.start(a.tickets);
    auto load_tile = [&](double* buf, long long it) {
        const long long x0 = (it % a.tiles_x) * C::tile_x, y0 = (it / a.tiles_x) * C::tile_y;
        load_region<G, BC, C::threads, true>(buf, a.in, a.in, x0, y0, a.nx, a.ny, a.ex, a.pair_loads);
    };
    __syncthreads();
    for (int j = 0; j < B - 1; ++j) {
        if (queue.at(j) < a.items) load_tile(smem + j * C::plane, queue.at(j));
        cp_async_commit();  // one group per tile, empty or not
    }
    for (int k = 0; queue.at(k) < a.items; ++k) {
        const long long item = queue.at(k);
        // the tile B-1 ahead goes into the buffer tile k-1 used (freed by the
        // barrier that ended the previous iteration), before waiting for tile k
        const long long ahead = queue.at(k + B - 1);
        if (ahead < a.items) load_tile(smem + ((k + B - 1) % B) * C::plane, ahead);
        cp_async_commit();
        cp_async_wait<B - 1>();
        __syncthreads();  // tile k landed; every thread has read its slots
        const long long next = queue.take(a.tickets, k);  // tile k + B, published by the barrier below
        const double* buf = smem + (k % B) * C::plane;
        const long long x0 = (item % a.tiles_x) * C::tile_x, y0 = (item / a.tiles_x) * C::tile_y;
        const bool full = x0 + C::tile_x <= a.nx && y0 + C::tile_y <= a.ny;
        for (int w = threadIdx.x; w < C::work; w += C::threads) {
            const int col = w % C::tile_x, r0 = (w / C::tile_x) * V;
            double acc[V];
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = 0.0;
            cce_strip_terms<S, V, P, 0>(acc, buf + (r0 + R) * P + col + R, a.w);
            const long long x = x0 + col;
            double* dst = a.out + (y0 + r0 + h) * a.ex + x + h;
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (full || (x < a.nx && y0 + r0 + v < a.ny)) __stcs(dst + v * a.ex, acc[v]);
        }
        queue.publish(k, next);
        __syncthreads();  // everyone is done with this tile's buffer
    }
    cp_async_wait<0>();
    queue.done(a.tickets);
}

/// Resident blocks per SM of `kernel` with `smem` bytes of dynamic shared
/// memory (sets the kernel's shared-memory limit first), cached per device.
template <class Tag, class Kernel>
inline int prepare_kernel(Kernel kernel, std::size_t smem, int threads)
{
    static int cached[64] = {};
    int dev = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    if (dev >= 0 && dev < 64 && cached[dev] > 0) return cached[dev];
    int optin = 0;
    TCORE_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    require(smem <= static_cast<std::size_t>(optin), "stencil_apply",
            "the tile needs " + std::to_string(smem) + " bytes of shared memory, the device allows " +
                std::to_string(optin) + " per block (use a smaller T)");
    TCORE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    int blocks = 0;
    TCORE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem));
    require(blocks > 0, "stencil_apply", "the kernel cannot be resident on this device");
    if (dev >= 0 && dev < 64) cached[dev] = blocks;
    return blocks;
}

template <class S, class Backend, int T, boundary BC, class C>
struct kernel_tag {};

/// z planes per work item of the 3D kernel: a block streams zc planes plus
/// 2*halo planes of pipeline fill, and the items run in waves of `resident`
/// blocks, so the time is about ceil(items / resident) * (zc + 2 halo).
/// Picks the zc (largest of equals) that minimises it.
inline long long choose_zchunk(long long nz, long long tiles, long long resident, int halo)
{
    long long best = nz, best_cost = -1;
    const long long lo = nz < 8 ? nz : 8;
    for (long long zc = nz; zc >= lo; --zc) {
        const long long items = tiles * tcore::ceil_div(nz, zc);
        const long long cost = tcore::ceil_div(items, resident) * (zc + 2 * halo);
        if (best_cost < 0 || cost < best_cost) best = zc, best_cost = cost;
    }
    return best;
}

/// The kernel arguments every launch shares: arrays, grid and extents, weights.
template <class S, boundary BC>
stencil_args<S> grid_args(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w)
{
    const stencil_extent e = stencil_array_extent<S>(grid, BC);
    stencil_args<S> a{};
    a.in = in;
    a.out = out;
    a.nx = grid.nx;
    a.ny = grid.ny;
    a.nz = S::dims == 3 ? grid.nz : 1;
    a.ex = e.ex;
    a.ey = e.ey;
    a.w = w;
    return a;
}

/// Persistent blocks for `items` work items with at most `resident` at a
/// time: as few as still take ceil(items / resident) rounds, so that every
/// block does the same number of items (to one) and the last round is not
/// left to a fraction of the blocks.
inline long long balanced_blocks(long long items, long long resident)
{
    const long long rounds = tcore::ceil_div(items, resident);
    return tcore::ceil_div(items, rounds);
}

/// May the kernels load regions as 16-byte column pairs? Dirichlet arrays
/// with an even row pitch and a 16-byte aligned input, and a region whose
/// column 0 is an even array column: tiles start at even x (the tile widths
/// are even), so (halo - r) = (t - 1) r must be even.
template <class S, boundary BC>
inline bool pair_loads_apply(const stencil_args<S>& a, int steps)
{
    return BC == boundary::dirichlet && (steps - 1) * S::radius % 2 == 0 && a.ex % 2 == 0 &&
           tcore::aligned(a.in, 16);
}

/// How the persistent 2D kernels and the 3D t = 1 kernel hand out work
/// items: taken in order from the stream's ticket counter (work_tickets.cuh),
/// or in grid-stride order; zchunk > 0 fixes the 3D t = 1 kernel's z planes
/// per item.
struct tile_schedule {
    bool tickets = true;
    long long zchunk = 0;
};

/// Launches the 2D tiled kernel with configuration C (arguments checked).
template <class S, class Backend, int T, boundary BC, class C = config2d<S, T, Backend>>
void launch_tiled2d(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                    cudaStream_t stream, tile_schedule sched = {})
{
    using G = typename C::geometry;
    stencil_args<S> a = grid_args<S, BC>(in, out, grid, w);
    a.pair_loads = C::pairs && pair_loads_apply<S, BC>(a, T);
    auto kernel = stencil2d_kernel<S, Backend, T, BC, C>;
    const int per_sm = prepare_kernel<kernel_tag<S, Backend, T, BC, C>>(kernel, C::smem_bytes, C::threads);
    a.tiles_x = tcore::ceil_div(grid.nx, G::tile_x);
    a.tiles_y = tcore::ceil_div(grid.ny, G::tile_y);
    a.zchunk = 1;
    a.zchunks = 1;
    a.items = a.tiles_x * a.tiles_y;
    // min(items, resident), not balanced_blocks: at 4096^2 with 64x64 tiles
    // the latter's block count can come out at twice the tiles per row (so
    // that each block keeps one tile column), which ran star2d3r t = 3
    // markedly slower than min(items, resident) (examples/stencil/README.md).
    const long long blocks = std::min<long long>(a.items, static_cast<long long>(tcore::sm_count()) * per_sm);
    if (sched.tickets) a.tickets = stream_tickets(stream);
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
}

/// Launches the tiled kernel (arguments already checked by stencil_apply).
template <class S, class Backend, int T, boundary BC>
void launch_tiled(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                  cudaStream_t stream)
{
    if constexpr (S::dims == 2) {
        launch_tiled2d<S, Backend, T, BC>(in, out, grid, w, stream);
    } else {
        stencil_args<S> a = grid_args<S, BC>(in, out, grid, w);
        a.pair_loads = tiled_pair_loads<S, T>() && pair_loads_apply<S, BC>(a, T);
        const int sms = tcore::sm_count();
        using C = config3d<S, T>;
        using G = typename C::geometry;
        auto kernel = stencil3d_kernel<S, Backend, T, BC>;
        const int per_sm = prepare_kernel<kernel_tag<S, Backend, T, BC, C>>(kernel, C::smem_bytes, C::threads);
        a.tiles_x = tcore::ceil_div(grid.nx, G::tile_x);
        a.tiles_y = tcore::ceil_div(grid.ny, G::tile_y);
        const long long tiles = a.tiles_x * a.tiles_y;
        const long long resident = static_cast<long long>(sms) * per_sm;
        a.zchunk = choose_zchunk(a.nz, tiles, resident, T * S::radius);
        a.zchunks = tcore::ceil_div(a.nz, a.zchunk);
        a.items = tiles * a.zchunks;
        const long long blocks = std::min<long long>(a.items, resident);
        kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
    }
}

/// Where stencil_apply may take the warp streaming kernel: cce, star2d1r
/// and star2d3r, T = 2 or 3, Dirichlet (at run time: warp_stream_fits and
/// warp_stream_preferred).
template <class S, class Backend, int T, boundary BC>
constexpr bool warp_stream_shape()
{
    return std::is_same_v<Backend, stencil_cce> && warp_stream_star<S> && (T == 2 || T == 3) &&
           BC == boundary::dirichlet;
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
inline bool warp_stream_preferred()
{
    return S::radius == 3 || tcore::dram_gbs_per_sm() >= 30.0;
}

template <class S, boundary BC, class C>
struct t1_tag {};

/// z planes per item of the 3D streaming kernel when items are taken from
/// tickets: about 64, and fewer where that leaves less than two items a
/// block (down to 16), split evenly over the z range. Chunks of 32 to 128
/// planes measured about level, 256 and grid-stride items (tile-major,
/// choose_zchunk) slower (examples/stencil/README.md). Small items keep
/// the blocks busy to the end, and the items in progress (chunk-major:
/// neighbouring tiles at the same z) read each other's halo rows from L2.
inline long long choose_zchunk_tickets(long long nz, long long tiles, long long resident)
{
    long long chunks = std::max(tcore::ceil_div(nz, 64), tcore::ceil_div(2 * resident, tiles));
    chunks = std::max(1LL, std::min(chunks, nz / 16));
    return tcore::ceil_div(nz, chunks);
}

/// Launches the t = 1 streaming kernel with configuration C (arguments checked).
template <class S, boundary BC, class C>
void launch_stream(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                   cudaStream_t stream, tile_schedule sched = {})
{
    stencil_args<S> a = grid_args<S, BC>(in, out, grid, w);
    a.pair_loads = C::sx % 2 == 0 && pair_loads_apply<S, BC>(a, 1);
    auto kernel = stencil_stream_kernel<S, BC, C>;
    const int per_sm = prepare_kernel<t1_tag<S, BC, C>>(kernel, C::smem_bytes, C::threads);
    a.tiles_x = tcore::ceil_div(grid.nx, C::sx);
    a.tiles_y = tcore::ceil_div(grid.ny, C::sy);
    const long long tiles = a.tiles_x * a.tiles_y;
    const long long resident = static_cast<long long>(tcore::sm_count()) * per_sm;
    if (sched.tickets) a.tickets = stream_tickets(stream);
    a.zchunk = sched.zchunk > 0   ? std::min<long long>(sched.zchunk, grid.nz)
               : sched.tickets ? choose_zchunk_tickets(grid.nz, tiles, resident)
                               : choose_zchunk(grid.nz, tiles, resident, S::radius);
    a.zchunks = tcore::ceil_div(grid.nz, a.zchunk);
    a.items = tiles * a.zchunks;
    const long long blocks = std::min<long long>(a.items, resident);
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
}

/// Launches the 2D t = 1 tile kernel with configuration C (arguments checked).
template <class S, boundary BC, class C>
void launch_t1_tiles(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                     cudaStream_t stream, tile_schedule sched = {})
{
    stencil_args<S> a = grid_args<S, BC>(in, out, grid, w);
    a.pair_loads = pair_loads_apply<S, BC>(a, 1);
    auto kernel = stencil2d_t1_kernel<S, BC, C>;
    const int per_sm = prepare_kernel<t1_tag<S, BC, C>>(kernel, C::smem_bytes, C::threads);
    a.tiles_x = tcore::ceil_div(grid.nx, C::tile_x);
    a.tiles_y = tcore::ceil_div(grid.ny, C::tile_y);
    a.zchunk = 1;
    a.zchunks = 1;
    a.items = a.tiles_x * a.tiles_y;
    const long long resident = static_cast<long long>(tcore::sm_count()) * per_sm;
    if (sched.tickets) a.tickets = stream_tickets(stream);
    const long long blocks = sched.tickets ? std::min(a.items, resident) : balanced_blocks(a.items, resident);
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
}
}  // namespace stencil_detail

/// Shared memory (bytes) one block of stencil_apply<S, Backend, T> uses
/// (where the warp streaming kernel applies instead, it uses none).
template <class S, int T, class Backend = default_backend>
constexpr std::size_t stencil_smem_bytes()
{
    if constexpr (std::is_same_v<Backend, stencil_cce> && T == 1 && S::dims == 3)
        return stencil_detail::stream_default<S>::smem_bytes;
    else if constexpr (std::is_same_v<Backend, stencil_cce> && T == 1)
        return stencil_detail::t1_tile_default<S>::smem_bytes;
    else if constexpr (S::dims == 2) return stencil_detail::config2d<S, T, Backend>::smem_bytes;
    else return stencil_detail::config3d<S, T>::smem_bytes;
}

/// out = T steps of stencil S on `in` (see the top of this file). Arrays as
/// in stencil_grid (Dirichlet: with a halo of r, which this never writes:
/// give out the same halo as in). in and out must not overlap.
template <class S, class Backend, int T, boundary BC>
void stencil_apply(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                   cudaStream_t stream = 0)
{
    static_assert(is_stencil_backend_v<Backend>, "Backend: tcore::tensor_core, tcore::cuda_core or tcore::stencil_cce");
    static_assert(T >= 1 && T <= 8, "T (fused steps) must be 1..8");
    constexpr const char* where = "stencil_apply";
    tcore::require_pointer(in, where, "in");
    tcore::require_pointer(out, where, "out");
    require(grid.nx >= 1 && grid.ny >= 1 && grid.nz >= 1, where,
            "grid sizes must be >= 1 (got " + std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + " x " +
                std::to_string(grid.nz) + ")");
    require(S::dims == 3 || grid.nz == 1, where, "a 2D stencil needs grid.nz == 1");
    const std::string too_large = "grid too large: the arrays may hold at most 2^40 elements (got " +
                                  std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + " x " +
                                  std::to_string(grid.nz) + " points)";
    require(grid.nx < (1LL << 40) && grid.ny < (1LL << 40) && grid.nz < (1LL << 40), where, too_large);
    const stencil_extent e = stencil_array_extent<S>(grid, BC);
    // in double: the product of three extents below 2^41 may overflow a long long
    require(static_cast<double>(e.ex) * static_cast<double>(e.ey) * static_cast<double>(e.ez) < 0x1p40, where,
            too_large);
    const long long count = e.count();
    require(out + count <= in || in + count <= out, where, "in and out overlap (the kernel is out-of-place)");

    if constexpr (std::is_same_v<Backend, stencil_cce> && T == 1 && S::dims == 3) {
        // the streaming kernel keeps a row's column offsets in 32-bit ints
        require(e.ex <= INT_MAX, where,
                "t = 1 cce in 3D needs rows of at most 2^31 - 1 array elements (nx + 2r for Dirichlet), got " +
                    std::to_string(e.ex));
        stencil_detail::launch_stream<S, BC, stencil_detail::stream_default<S>>(in, out, grid, w, stream);
    } else if constexpr (std::is_same_v<Backend, stencil_cce> && T == 1) {
        stencil_detail::launch_t1_tiles<S, BC, stencil_detail::t1_tile_default<S>>(in, out, grid, w, stream);
    } else if constexpr (stencil_detail::warp_stream_shape<S, Backend, T, BC>()) {
        if (stencil_detail::warp_stream_preferred<S>() && stencil_detail::warp_stream_fits<S, T>(in, out, grid))
            stencil_detail::launch_warp_stream<S, T>(in, out, grid, w, stream);
        else
            stencil_detail::launch_tiled<S, Backend, T, BC>(in, out, grid, w, stream);
    } else {
        stencil_detail::launch_tiled<S, Backend, T, BC>(in, out, grid, w, stream);
    }
    TCORE_CHECK_LAUNCH();
}

/// Runtime-T front end for the common depths 1..4.
template <class S, class Backend, boundary BC>
void stencil_apply(int t, const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                   cudaStream_t stream = 0)
{
    switch (t) {
    case 1: return stencil_apply<S, Backend, 1, BC>(in, out, grid, w, stream);
    case 2: return stencil_apply<S, Backend, 2, BC>(in, out, grid, w, stream);
    case 3: return stencil_apply<S, Backend, 3, BC>(in, out, grid, w, stream);
    case 4: return stencil_apply<S, Backend, 4, BC>(in, out, grid, w, stream);
    default: throw error("stencil_apply: t (fused steps) must be 1..4, got " + std::to_string(t));
    }
}

}  // namespace tcore
