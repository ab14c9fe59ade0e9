// tcore/patterns/stencil_tile.cuh - block-level building blocks of the tiled
// FP64 stencils: the region load and the stencil tile step, callable from a
// user's own kernel (the launchers in device/stencil*.cuh are built on them).
//
// A tile is TX x TY outputs of one plane. Its step-0 region is the tile with
// a halo of T r on every side (T fused steps of radius r):
// stencil_tile_geometry<S, T, TX, TY> gives its width bw = TX + 2Tr, height
// bh = TY + 2Tr, the shared-memory row pitch `pitch` (stencil_tile_pitch(bw):
// pitch % 8 == 4, so the 8-byte A gathers of a half-warp hit word offsets
// {0, 12, 8, 4} (+t) modulo 16, conflict-free) and `plane` = bh * pitch
// doubles per buffer. Buffer position (bx, by) is grid point
// (x0 - Tr + bx, y0 - Tr + by) of the tile at (x0, y0).
//
//   stencil_load_region<G, BC, Threads, MayPair>(buf, plane, any_valid, x0, y0, nx, ny, ex, pairs)
//     Issues the cp.async copies of tile (x0, y0)'s region into `buf`
//     (shared memory, G::plane doubles, 16-byte aligned): zeros outside the
//     array, wrapped indices for periodic grids. Block-level: threads
//     0..Threads-1 of a 1-D block share the copies; every thread must call
//     it (not checked). The caller commits, waits (cp_async_commit /
//     cp_async_wait) and then needs a block barrier before any thread reads
//     `buf`. `pairs` (16-byte copies) only where stencil_pair_loads_apply
//     holds (Dirichlet, even row pitch ex, 16-byte aligned input, even
//     (T-1)r; not checked here); any_valid: any readable global address.
//
//   stencil_tile_step<S, Backend, T, Step, BC, G, Threads, Staged, V>(src, dst, frame, args, lane_plan)
//     The stencil tile step: step `Step` (1..T) of the tile, the region
//     Step*r inside the step-0 region, from source buffers src[dz - dz_lo]
//     (one per plane: 2D passes one; same geometry G, row pitch G::pitch) to
//     dst.smem (intermediate steps: the next buffer, same geometry; the
//     Dirichlet halo positions are copied from the centre source so later
//     steps see the fixed values) or, at Step == T, to dst.global (the output
//     plane's array element (0, 0): interior point (x, y) goes to x+h, y+h,
//     row pitch args.ex); Staged writes the final step into dst.smem instead.
//     frame: make_stencil_tile_frame<G, BC>(x0, y0, nx, ny, ex, z_interior).
//     Preconditions (none checked unless said so):
//       * a 1-D block of exactly Threads threads (a multiple of 32; debug
//         builds assert it, require_block_threads), all
//         calling it; it has no barrier: the sources must be complete and
//         visible (a barrier before), and the next step may read dst only
//         after a barrier;
//       * every source position of rows and columns (Step-1)r ..
//         (bh|bw) - (Step-1)r - 1 finite (the MMA multiplies whole 16x8
//         blocks' rows; a fresh buffer should be zero-filled once);
//       * Backend tensor_core / cuda_core: lane_plan from stencil_setup_lane
//         (or make_stencil_lane) with pitch G::pitch; a strip step: weights
//         from args.w, V rows per thread strip (e.g. stencil_strip_rows<S>()),
//         G::tile_y >= V;
//       * shared memory: the caller's buffers only (NP + 1 planes of
//         G::plane doubles for a step into shared memory), 8-byte aligned.
//     Work: tensor_core / cuda_core cover the region with 16x8 blocks (the
//     last block of a row or column shifted back to end at the region's
//     edge, writing only what the previous block did not), one warp per
//     block through stencil_block_mma; a strip step gives each thread one
//     column of a strip of V rows (the last strip of a column shifted back
//     as the blocks are) and leaves the arithmetic to Backend::add_strip.
//     A 2D step whose writes need tests (the final step to global memory,
//     an intermediate Dirichlet step) compiles its loop twice, once for
//     tiles whose every position is interior (frame.all / all_final: no
//     test per value) and once for the rest; 3D steps test every value.
//
//   Backend: tcore::tensor_core or tcore::cuda_core (the stencil-to-MMA layout
//   of stencil.cuh on that backend), or a caller's strip step: a type with
//     template <class S, int V, int P, int Dz>
//     static __device__ void add_strip(double (&acc)[V], const double* base,
//                                      const stencil_weights<S>& w)
//   that adds to acc[v] (v = 0..V-1) the terms of plane offset Dz (2D: 0)
//   for output v of a strip of V outputs of one column, whose output 0
//   lies at `base` in the source plane Dz (shared memory, row pitch P: the
//   input at offset (dy, dx) of output v is base[(v + dy) * P + dx]); w is
//   the kernel parameter. Every thread calls it on its own strips, in no
//   set order and not converged (no barrier or shuffle inside). The
//   benchmark's CUDA-core opponent (examples/stencil/stencil_cce.cuh) is one.
//
//   stencil_setup_lane<S, Backend>(w, scratch, pitch): the MMA backends' per-
//     lane layout built from a copy of the weights in shared memory
//     (`scratch`, S::weight_count doubles); all threads call it; it ends with
//     a block barrier.
//
//   stencil_wrap(v, n): v mod n (n >= 1; host and device), the periodic
//     grids' index: a loop, one compare each way for v within n of [0, n).
#pragma once

#include "../check.cuh"
#include "../infra/async_copy.cuh"
#include "../infra/work_tickets.cuh"
#include "stencil.cuh"

#include <type_traits>

namespace tcore {

/// Rows per thread strip of a strip step (a caller's CUDA-core backend, see the top of
/// this file) where its launcher does not choose: 8 at radius 1, else 16.
template <class S>
__host__ __device__ constexpr int stencil_strip_rows()
{
    return S::radius <= 1 ? 8 : 16;
}

/// v mod n for n >= 1, by repeated addition/subtraction: the tiles ask for
/// indices at most a tile plus its halo outside [0, n), so this is one
/// compare each way except on grids smaller than a tile.
__host__ __device__ inline long long stencil_wrap(long long v, long long n)
{
    while (v < 0) v += n;
    while (v >= n) v -= n;
    return v;
}

namespace detail {

__host__ __device__ constexpr int stencil_clamp_to(long long v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : static_cast<int>(v);
}

}  // namespace detail

/// Block k of `size` positions covering the region [lo, hi) (hi - lo >= size):
/// blocks start every `size` positions; the last one is moved back to end at
/// hi and owns only the positions >= its nominal start, so every position
/// of the region is written exactly once and no block reads past the region.
struct stencil_block_span {
    int nominal, start;
};
__host__ __device__ constexpr stencil_block_span stencil_region_block(int lo, int hi, int size, int k)
{
    const int nominal = lo + size * k;
    return {nominal, nominal < hi - size ? nominal : hi - size};
}

/// Geometry shared by the 2D and 3D tiles.
template <class S, int T, int TX, int TY>
struct stencil_tile_geometry {
    static constexpr int R = S::radius;
    static constexpr int tile_x = TX, tile_y = TY;
    static constexpr int halo = T * R;
    static constexpr int bw = TX + 2 * halo, bh = TY + 2 * halo;  ///< region of step 0
    static constexpr int pitch = stencil_tile_pitch(bw);
    static constexpr int plane = bh * pitch;  ///< doubles per buffer / plane
    static_assert(TX >= 8 && TY >= 16, "a tile holds at least one 16x8 block");
    static_assert(TY >= stencil_strip_rows<S>(), "a tile holds at least one strip");
};

/// Where a step writes its values: a shared buffer (with the halo copy) or global memory.
struct stencil_step_target {
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
struct stencil_tile_frame {
    int ix_lo, ix_hi, iy_lo, iy_hi;
    int ax_lo, ax_hi, ay_lo, ay_hi;
    bool all, all_final;
    long long gbase;
};

/// The frame of XY tile (x0, y0) on a plane whose z is interior or not.
template <class G, boundary BC>
__host__ __device__ inline stencil_tile_frame make_stencil_tile_frame(long long x0, long long y0, long long nx,
                                                                     long long ny, long long ex, bool z_interior)
{
    constexpr int R = G::R, H = G::halo;
    constexpr int h = stencil_halo(BC, R);
    stencil_tile_frame f{};
    // buffer position b is grid point x0 - H + b
    f.ix_lo = BC == boundary::periodic ? 0 : detail::stencil_clamp_to(H - x0, 0, G::bw);
    f.ix_hi = detail::stencil_clamp_to(H - x0 + nx, 0, G::bw);
    f.iy_lo = BC == boundary::periodic ? 0 : detail::stencil_clamp_to(H - y0, 0, G::bh);
    f.iy_hi = detail::stencil_clamp_to(H - y0 + ny, 0, G::bh);
    if (BC == boundary::dirichlet && !z_interior) f.ix_hi = f.ix_lo;  // a halo plane: nothing is interior
    f.ax_lo = detail::stencil_clamp_to(H - x0 - R, 0, G::bw);
    f.ax_hi = detail::stencil_clamp_to(H - x0 + nx + R, 0, G::bw);
    f.ay_lo = detail::stencil_clamp_to(H - y0 - R, 0, G::bh);
    f.ay_hi = detail::stencil_clamp_to(H - y0 + ny + R, 0, G::bh);
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
    bool pair_loads;             ///< load regions as 16-byte column pairs (see stencil_pair_loads_apply)
    work_tickets tickets;        ///< 2D kernels, 3D t = 1 kernel: items taken from this counter (null: grid-stride)
    stencil_weights<S> w;
};

namespace detail {

/// The rows of a Dirichlet tile region in the array: region row by holds
/// array row ay0 + by, and rows [lo, hi) lie in the array (none for a plane
/// outside it, src_plane == nullptr); `first` is the address of array row
/// ay0 + first_row (in any_valid's place for a plane outside the array),
/// to be read only for rows in [lo, hi).
struct stencil_region_rows {
    int lo, hi;
    const double* first;
};
template <class G>
__device__ inline stencil_region_rows stencil_rows_of(const double* src_plane, const double* any_valid,
                                                      long long ay0, long long ny, long long ex, int first_row)
{
    const int lo = stencil_clamp_to(-ay0, 0, G::bh);
    const int hi = src_plane == nullptr ? lo : stencil_clamp_to(ny + 2 * G::R - ay0, 0, G::bh);
    return {lo, hi, (src_plane != nullptr ? src_plane : any_valid) + (ay0 + first_row) * ex};
}

}  // namespace detail

/// Loads the step-0 region of the XY tile (x0, y0) from array plane `src_plane`
/// (nullptr: a plane outside the array, zero-filled) into `buf`.
/// pairs: 16-byte copies of column pairs (cp.async.cg, no L1 allocation),
/// for Dirichlet arrays where region column 0 lies on an even array column
/// and rows are 16-byte aligned (stencil_pair_loads_apply); otherwise 8-byte copies.
/// MayPair = false compiles the 8-byte copies only.
template <class G, boundary BC, int Threads, bool MayPair>
__device__ inline void stencil_load_region(double* buf, const double* src_plane, const double* any_valid, long long x0,
                                           long long y0, long long nx, long long ny, long long ex, bool pairs)
{
    constexpr int R = G::R;
    if constexpr (MayPair && BC == boundary::dirichlet && G::bw % 2 == 0) {
        if (pairs) {
            // a warp per region row, lane l copies column pairs l, l + 32, ...:
            // contiguous global pieces into contiguous shared rows, and the
            // column tests once per call
            constexpr int np = G::bw / 2, per_lane = (np + 31) / 32;
            const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
            const long long ax0 = x0 - G::halo + R, ay0 = y0 - G::halo + R;  // array position of region (0, 0)
            bool xok[per_lane];
#pragma unroll
            for (int c = 0; c < per_lane; ++c) {
                const long long ax = ax0 + 2 * (lane + 32 * c);
                xok[c] = ax >= 0 && ax < ex;
            }
            // `row` steps from row to row (read only where its row and column lie in the array)
            const detail::stencil_region_rows rows = detail::stencil_rows_of<G>(src_plane, any_valid, ay0, ny, ex, warp);
            const double* row = rows.first + ax0;
            for (int by = warp; by < G::bh; by += Threads / 32, row += (Threads / 32) * ex) {
                const bool yok = by >= rows.lo && by < rows.hi;
#pragma unroll
                for (int c = 0; c < per_lane; ++c) {
                    const int bx = 2 * (lane + 32 * c);
                    if (bx < G::bw) {
                        const bool ok = yok && xok[c];
                        cp_async<16>(buf + by * G::pitch + bx, ok ? row + bx : any_valid, ok ? 16 : 0);
                    }
                }
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
            xs[c] = stencil_wrap(x, nx);
            xok[c] = bx < G::bw;
        } else {
            xs[c] = x + R;
            xok[c] = bx < G::bw && x >= -R && x < nx + R;
        }
    }
    auto copy_row = [&](int by, const double* row, bool yok) {
#pragma unroll
        for (int c = 0; c < cols; ++c) {
            const int bx = lane + 32 * c;
            if (bx < G::bw) {
                const bool ok = yok && xok[c];
                cp_async<8>(buf + by * G::pitch + bx, ok ? row + xs[c] : any_valid, ok ? 8 : 0);
            }
        }
    };
    if constexpr (BC == boundary::periodic) {
        for (int by = warp; by < G::bh; by += Threads / 32) {
            const long long ys = stencil_wrap(y0 - G::halo + by, ny);
            copy_row(by, src_plane != nullptr ? src_plane + ys * ex : any_valid, src_plane != nullptr);
        }
    } else {
        // `row` steps as in the pair copies
        const detail::stencil_region_rows rows =
            detail::stencil_rows_of<G>(src_plane, any_valid, y0 - G::halo + R, ny, ex, warp);
        const double* row = rows.first;
        for (int by = warp; by < G::bh; by += Threads / 32, row += (Threads / 32) * ex)
            copy_row(by, row, by >= rows.lo && by < rows.hi);
    }
}

/// One step on plane z of an XY tile: the region r*s inside the step-0
/// region, from source planes src[dz - dz_lo] (same geometry) to `dst`.
/// Final step: dst.global is the output plane's origin (array element
/// (0, 0) of that plane); the interior point (x, y) goes to x+h, y+h.
/// Staged: the final step writes its region into dst.smem instead (the
/// MMA fragments' scattered 16x8 rows are written out by the caller as
/// whole tile rows). V: rows per strip of a strip step.
template <class S, class Backend, int T, int Step, boundary BC, class G, int Threads, bool Staged, int V, int NP>
__device__ inline void stencil_tile_step(const double* const (&src)[NP], stencil_step_target dst,
                                         const stencil_tile_frame& f, const stencil_args<S>& a,
                                         const stencil_lane<S>* lane_plan)
{
    require_block_threads<Threads>();
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
    // The same where every position of the step is interior (All, the
    // common case: f.all / f.all_final): no test per value. The step's loop
    // is compiled once for each, so the test is made once per step.
    auto emit_as = [&](auto all_, int br, int bc, double v) {
        if constexpr (!decltype(all_)::value) emit(br, bc, v);
        else if constexpr (final_step && !Staged) dst.global[f.gbase + static_cast<long long>(br) * a.ex + bc] = v;
        else dst.smem[br * P + bc] = v;
    };
    // emit tests where the step is a final one to global memory or an
    // intermediate Dirichlet one; the loop is split there, and only in 2D
    // (NP == 1): a 3D step's second copy of the loop costs registers (the
    // emulated MMA of box3d1r spilled), so 3D steps keep emit's tests.
    constexpr bool tests = final_step ? !Staged : BC == boundary::dirichlet;
    const bool all = final_step ? f.all_final : f.all;
    auto for_all_or_not = [&](auto&& body) {
        if constexpr (tests && NP == 1) {
            if (all) body(std::true_type{});
            else body(std::false_type{});
        } else {
            body(std::bool_constant<!tests>{});
        }
    };

    if constexpr (!is_backend_v<Backend>) {
        static_assert(G::tile_y >= V, "a tile holds at least one strip");
        constexpr int W = hi_c - lo_c;
        constexpr int strips = (hi_r - lo_r + V - 1) / V;
        for_all_or_not([&](auto all_) {
            for (int it = threadIdx.x; it < W * strips; it += Threads) {
                const int col = lo_c + it % W;
                const stencil_block_span rs = stencil_region_block(lo_r, hi_r, V, it / W);
                const int r_nom = rs.nominal, r0 = rs.start;
                double acc[V];
#pragma unroll
                for (int v = 0; v < V; ++v) acc[v] = 0.0;
                static_for<NP>([&](auto p_) {
                    constexpr int dz = decltype(p_)::value + plan::dz_lo;
                    Backend::template add_strip<S, V, P, dz>(acc, src[decltype(p_)::value] + r0 * P + col, a.w);
                });
#pragma unroll
                for (int v = 0; v < V; ++v)
                    if (r0 + v >= r_nom) emit_as(all_, r0 + v, col, acc[v]);
            }
        });
    } else {
        constexpr int nbr = (hi_r - lo_r + 15) / 16, nbc = (hi_c - lo_c + 7) / 8;
        const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
        for_all_or_not([&](auto all_) {
            for (int b = warp; b < nbr * nbc; b += Threads / 32) {
                const stencil_block_span rs = stencil_region_block(lo_r, hi_r, 16, b / nbc);
                const stencil_block_span cs = stencil_region_block(lo_c, hi_c, 8, b % nbc);
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
                    if (br >= r_nom && bc >= c_nom) emit_as(all_, br, bc, d[i]);
                }
            }
        });
    }
}

/// The MMA methods' per-lane layout, built from a copy of the weights in
/// shared memory (`scratch`, S::weight_count doubles) so that the kernel
/// parameter is only ever read at compile-time offsets. Ends with a barrier.
/// A strip step (not an MMA backend) needs no layout: only the barrier.
template <class S, class Backend>
__device__ inline stencil_lane<S> stencil_setup_lane(const stencil_weights<S>& w, double* scratch, int pitch)
{
    stencil_lane<S> ln{};
    if constexpr (is_backend_v<Backend>) {
        if (threadIdx.x == 0) static_for<S::weight_count>([&](auto i) { scratch[i] = w.w[i]; });
        __syncthreads();
        ln = make_stencil_lane<S>(threadIdx.x & 31, *reinterpret_cast<const stencil_weights<S>*>(scratch), pitch);
    }
    __syncthreads();
    return ln;
}

}  // namespace tcore
