// tests/host/test_stencil_layout.cu - CPU checks of the stencil-to-MMA
// layout (tcore/patterns/stencil.cuh) and of the tiling arithmetic of
// tcore/patterns/stencil_tile.cuh and
// tcore/patterns/device/stencil*.cuh, and of the cce method's kernels
// (examples/stencil/stencil_cce*.cuh):
//   * slot and chunk tables: counts as documented, chunks tile the slots,
//     each chunk reads one plane, padding only at the end of a plane;
//   * every (point of the shape, output column) pair meets exactly one slot,
//     and B carries that point's weight there and zero elsewhere;
//   * a simulated warp: the very A/B gathers of stencil_block_mma
//     (stencil_chunk_a / stencil_chunk_b) for all 32 lanes, multiplied with
//     the CUDA-core MMA's own code (mma_emulated), reproduce the direct
//     stencil on random data and weights for every shape, at block origins
//     inside a padded tile;
//   * the A gathers of a half-warp hit distinct 8-byte banks except where a
//     slot group straddles two segments;
//   * stencil_region_block covers every region position exactly once without
//     reading past the region; the tile configurations fit in 227 KiB;
//   * stencil_zchunk (and stencil_zchunk_tickets) on the benchmark's 3D
//     shapes and on small and odd nz; stencil_balanced_blocks gives every
//     block the same number of tiles (to one) in the fewest rounds;
//   * 16-byte column-pair loads: stencil_pair_loads_apply accepts only Dirichlet
//     arrays with an even row pitch, a 16-byte aligned input and even (t-1)r;
//   * stencil_apply rejects grids whose element count overflows and rows the
//     3D t = 1 cce kernel cannot index, before any CUDA call;
//   * make_stencil_tile_frame's per-tile bounds agree with a direct interior / halo /
//     outside classification of every buffer position, and its global index;
//   * the warp streaming kernel's strips: margins of at least T r with r's
//     parity (an even first array column), the stored columns, ring slots
//     that visit every slot once per period, and bands that fill the
//     resident blocks in one wave;
//   * the CPU reference on a hand-checked case and its periodic wrap.
#include "common/test_util.hpp"
#include "examples/stencil/stencil_cce.cuh"

#include <tcore/patterns/stencil.cuh>
#include <tcore/patterns/device/stencil.cuh>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

using namespace tcore;
using namespace tcore::examples::stencil;  // the cce method and its kernels (examples/stencil)

namespace {

test::tally T;

template <class Frag>
struct fetch_from {
    const Frag* frags;
    template <class I>
    __host__ __device__ typename Frag::value_type operator()(int src, I i) const
    {
        return frags[src].x[static_cast<int>(i)];
    }
};

/// f(int_c<I>{}) for I < N on the host (tcore::static_for is host+device and
/// would call a host lambda from a host+device function).
template <int N, class F, int... I>
void host_for_impl(F&& f, std::integer_sequence<int, I...>)
{
    (f(int_c<I>{}), ...);
}
template <int N, class F>
void host_for(F&& f)
{
    host_for_impl<N>(f, std::make_integer_sequence<int, N>{});
}

template <class S>
stencil_weights<S> random_weights(test::rng& r)
{
    stencil_weights<S> w;
    for (int i = 0; i < S::weight_count; ++i) w.w[i] = r.nonzero();
    return w;
}

// -- tables ----------------------------------------------------------------------

template <class S>
void check_tables(int expect_slots, int expect_chunks)
{
    using plan = stencil_mma_plan<S>;
    const std::string n = S::name();
    T.check(plan::slots == expect_slots, "%s: %d slots, expected %d", n.c_str(), plan::slots, expect_slots);
    T.check(plan::chunks == expect_chunks, "%s: %d chunks, expected %d", n.c_str(), plan::chunks, expect_chunks);
    // chunks tile [0, slots) in order, one plane each, K in {4, 8, 16}
    int next = 0;
    for (int c = 0; c < plan::chunks; ++c) {
        const stencil_chunk ch = plan::chunk(c);
        T.check(ch.base == next, "%s chunk %d starts at %d, expected %d", n.c_str(), c, ch.base, next);
        T.check(ch.k == 4 || ch.k == 8 || ch.k == 16, "%s chunk %d has K = %d", n.c_str(), c, ch.k);
        for (int k = ch.base; k < ch.base + ch.k; ++k)
            T.check(plan::slot(k).dz == ch.dz, "%s chunk %d (dz %d) holds slot %d of plane %d", n.c_str(), c, ch.dz, k,
                    plan::slot(k).dz);
        next = ch.base + ch.k;
    }
    T.check(next == plan::slots, "%s: chunks end at %d of %d slots", n.c_str(), next, plan::slots);
    // real slots count the segment widths; padding slots come last in their
    // slot group of 4 (stencil_chunk_a loads lanes t < real_lanes(j)); where
    // a plane's segments are aligned, no group spans two rows
    int real = 0;
    for (int k = 0; k < plan::slots; ++k) {
        const stencil_slot s = plan::slot(k);
        real += s.real;
        if (!s.real && (k + 1) % 4 != 0)
            T.check(!plan::slot(k + 1).real, "%s: real slot %d after padding in its group", n.c_str(), k + 1);
        if (s.real && k % 4 != 0 && detail::stencil_segments_aligned<S>(s.dz)) {
            const stencil_slot first = plan::slot(k - k % 4);
            T.check(first.dz == s.dz && first.dy == s.dy, "%s: slot group %d spans rows %d and %d", n.c_str(), k / 4,
                    first.dy, s.dy);
        }
    }
    // stars align at no cost (8 + (8 + 2r) + 8 or one segment), boxes would pay
    T.check(detail::stencil_segments_aligned<S>(0) == (S::kind == stencil_kind::star),
            "%s: plane 0's segments aligned: %d", n.c_str(), detail::stencil_segments_aligned<S>(0));
    int expect_real = 0;
    for (int dz = plan::dz_lo; dz <= plan::dz_hi; ++dz)
        for (int dy = -S::radius; dy <= S::radius; ++dy) {
            int cnt = 0, lo = 99, hi = -99;
            for (int dx = -S::radius; dx <= S::radius; ++dx)
                if (S::contains(dz, dy, dx) && !(plan::column_arm && dy != 0))
                    ++cnt, lo = dx < lo ? dx : lo, hi = dx > hi ? dx : hi;
            if (cnt) expect_real += 8 + hi - lo;
        }
    T.check(real == expect_real, "%s: %d real slots, expected %d", n.c_str(), real, expect_real);
    // the column arm: 2D stars of radius >= 2 only; its chunks tile its slots
    const bool arm = S::dims == 2 && S::kind == stencil_kind::star && S::radius >= 2;
    T.check(plan::column_arm == arm, "%s: column arm %d, expected %d", n.c_str(), plan::column_arm, arm);
    T.check(plan::column_real == (arm ? 16 + 2 * S::radius : 0) && plan::column_slots % 4 == 0 &&
                plan::column_slots >= plan::column_real && plan::column_slots < plan::column_real + 4,
            "%s: column arm of %d slots (%d real)", n.c_str(), plan::column_slots, plan::column_real);
    next = 0;
    for (int c = 0; c < plan::column_chunks; ++c) {
        const stencil_chunk ch = plan::column_chunk(c);
        T.check(ch.base == next && (ch.k == 4 || ch.k == 8 || ch.k == 16) && ch.k <= (ch.base % 16 == 0 ? 16 : 8),
                "%s column chunk %d: K %d at %d", n.c_str(), c, ch.k, ch.base);
        next = ch.base + ch.k;
    }
    T.check(next == plan::column_slots, "%s: column chunks end at %d of %d", n.c_str(), next, plan::column_slots);
    int points = 0;
    for (int dz = -S::radius; dz <= S::radius; ++dz)
        for (int dy = -S::radius; dy <= S::radius; ++dy)
            for (int dx = -S::radius; dx <= S::radius; ++dx) points += S::contains(dz, dy, dx);
    T.check(points == S::points, "%s: %d points, |S| = %d", n.c_str(), points, S::points);
    // real_lanes: the real slots of each group are its first lanes
    for (int j = 0; j < plan::slot_groups; ++j) {
        const int rl = plan::real_lanes(j);
        for (int t = 0; t < 4; ++t)
            T.check(plan::slot(4 * j + t).real == (t < rl), "%s: group %d lane %d real != (t < %d)", n.c_str(), j, t,
                    rl);
    }
}

/// Every (point, output column) pair meets exactly one slot; B holds the
/// point's weight there and zero for every other column.
template <class S>
void check_coverage()
{
    using plan = stencil_mma_plan<S>;
    const std::string n = S::name();
    test::rng r(test::seed() + 11);
    const stencil_weights<S> w = random_weights<S>(r);
    for (int dz = -S::radius; dz <= S::radius; ++dz)
        for (int dy = -S::radius; dy <= S::radius; ++dy)
            for (int dx = -S::radius; dx <= S::radius; ++dx) {
                if (!S::contains(dz, dy, dx)) continue;
                if (plan::column_arm && dy != 0) {
                    // a point of the column arm: T(m, m + r + dy) for every output row m, in no row segment
                    for (int m = 0; m < 16; ++m) {
                        int hits = 0;
                        for (int k = 0; k < plan::column_slots; ++k)
                            hits += plan::column_a_value(w, k, m) != 0.0 && k - S::radius - m == dy;
                        T.check(hits == 1 && plan::column_a_value(w, m + S::radius + dy, m) == w.at(dz, dy, dx),
                                "%s: arm point dy %d row %d meets %d column slots", n.c_str(), dy, m, hits);
                    }
                    for (int k = 0; k < plan::slots; ++k)
                        T.check(!(plan::slot(k).real && plan::slot(k).dy == dy), "%s: arm row %d in a row slot",
                                n.c_str(), dy);
                    continue;
                }
                for (int oc = 0; oc < 8; ++oc) {
                    int hits = 0;
                    for (int k = 0; k < plan::slots; ++k) {
                        const stencil_slot s = plan::slot(k);
                        if (s.real && s.dz == dz && s.dy == dy && s.col == oc + dx) ++hits;
                    }
                    T.check(hits == 1, "%s: point (%d,%d,%d) column %d meets %d slots", n.c_str(), dz, dy, dx, oc,
                            hits);
                }
            }
    // T(m, k) holds arm weights only: zero on the centre, off the band and on padding
    for (int m = 0; m < 16; ++m)
        for (int k = 0; k < plan::column_slots; ++k) {
            const int dy = k - S::radius - m;
            const bool on = plan::column_arm && dy != 0 && dy >= -S::radius && dy <= S::radius;
            T.check(plan::column_a_value(w, k, m) == (on ? w.at(0, dy, 0) : 0.0), "%s: T(%d,%d)", n.c_str(), m, k);
        }
    // B(k, n) = w(dz, dy, col - out_col(n)), zero on padding
    for (int k = 0; k < plan::slots; ++k)
        for (int nn = 0; nn < 8; ++nn) {
            const stencil_slot s = plan::slot(k);
            const double expect = s.real ? w.at(s.dz, s.dy, s.col - plan::out_col(nn)) : 0.0;
            T.check(plan::b_value(w, k, nn) == expect, "%s: B(%d,%d)", n.c_str(), k, nn);
        }
    // out_col is a permutation of 0..7, and stencil_out_coord covers the block once
    int seen[16][8] = {};
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            const coord rc = stencil_out_coord(lane, i);
            ++seen[rc.row][rc.col];
            // the accumulator element's D column maps to this block column
            const coord dc = f64_m16n8<16>::c_coord(lane, i);
            T.check(rc.row == dc.row && rc.col == plan::out_col(dc.col), "out coord of lane %d elem %d", lane, i);
        }
    for (auto& row : seen)
        for (int v : row) T.check(v == 1, "%s: an output position is held %d times", n.c_str(), v);
}

// -- simulated warp ---------------------------------------------------------------

/// Runs stencil_block_mma's gathers and MMAs for 32 lanes on the CPU and
/// compares the 16x8 block with the direct stencil.
template <class S>
void check_block_product()
{
    using plan = stencil_mma_plan<S>;
    const std::string n = S::name();
    constexpr int R = S::radius;
    constexpr int pitch = stencil_tile_pitch(8 + 16 + 2 * R + 8);
    constexpr int rows = 16 + 2 * R + 8;
    constexpr int NP = plan::planes;
    test::rng r(test::seed() + 23);
    for (int round = 0; round < 3; ++round) {
        const stencil_weights<S> w = random_weights<S>(r);
        std::vector<double> data(static_cast<std::size_t>(NP) * rows * pitch);
        for (double& v : data) v = r.nonzero();
        // block origin inside the tile (room for the radius on every side)
        const int r0 = R + round, c0 = R + 2 * round + (round == 2 ? 5 : 0);
        const double* src[NP];
        for (int p = 0; p < NP; ++p) src[p] = data.data() + static_cast<std::size_t>(p) * rows * pitch + r0 * pitch + c0;
        std::vector<stencil_lane<S>> ln(32);
        for (int lane = 0; lane < 32; ++lane) ln[lane] = make_stencil_lane<S>(lane, w, pitch);
        double d[32][4] = {};
        host_for<plan::chunks>([&](auto c_) {
            constexpr int c = decltype(c_)::value;
            using Shape = stencil_chunk_shape<S, c>;
            std::vector<frag_a<Shape>> a(32);
            std::vector<frag_b<Shape>> b(32);
            for (int lane = 0; lane < 32; ++lane) {
                a[lane] = stencil_chunk_a<S, c>(lane, src, pitch, ln[lane]);
                b[lane] = stencil_chunk_b<S, c>(ln[lane]);
            }
            for (int lane = 0; lane < 32; ++lane)
                mma_emulated<Shape>(lane, d[lane], fetch_from<frag_a<Shape>>{a.data()},
                                    fetch_from<frag_b<Shape>>{b.data()});
        });
        host_for<plan::column_chunks>([&](auto c_) {
            constexpr int c = decltype(c_)::value;
            using Shape = f64_m16n8<plan::column_chunk(c).k>;
            std::vector<frag_a<Shape>> a(32);
            std::vector<frag_b<Shape>> b(32);
            for (int lane = 0; lane < 32; ++lane)
                stencil_column_frags<S, c>(a[lane], b[lane], lane & 3, src[0], pitch, ln[lane]);
            for (int lane = 0; lane < 32; ++lane)
                mma_emulated<Shape>(lane, d[lane], fetch_from<frag_a<Shape>>{a.data()},
                                    fetch_from<frag_b<Shape>>{b.data()});
        });
        double worst = 0;
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < 4; ++i) {
                const coord rc = stencil_out_coord(lane, i);
                long double ref = 0;
                for (int dz = plan::dz_lo; dz <= plan::dz_hi; ++dz)
                    for (int dy = -R; dy <= R; ++dy)
                        for (int dx = -R; dx <= R; ++dx)
                            if (S::contains(dz, dy, dx))
                                ref += static_cast<long double>(w.at(dz, dy, dx)) *
                                       src[dz - plan::dz_lo][(rc.row + dy) * pitch + rc.col + dx];
                const double err = std::fabs(d[lane][i] - static_cast<double>(ref));
                worst = err > worst ? err : worst;
            }
        T.check(worst <= 1e-13 * S::points, "%s: simulated warp block differs from the direct stencil by %.3g",
                n.c_str(), worst);
    }
}

/// Bank check of the A gathers: for each chunk element, the 8-byte word
/// (mod 16) each lane of a half-warp reads; at most 2 lanes per bank.
template <class S>
void check_banks()
{
    using plan = stencil_mma_plan<S>;
    const std::string n = S::name();
    // the kernels' pitch; a chunk reads one plane, so the plane offset is
    // common to the half-warp and left out
    constexpr int pitch = S::dims == 2 ? stencil_tiled2d_default<S, 1>::geometry::pitch
                                       : stencil_tiled3d_default<S, 1>::geometry::pitch;
    int worst = 0, groups = 0, clean = 0;
    const stencil_weights<S> w{};
    std::vector<stencil_lane<S>> ln(32);
    for (int lane = 0; lane < 32; ++lane) ln[lane] = make_stencil_lane<S>(lane, w, pitch);
    for (int c = 0; c < plan::chunks; ++c) {
        const stencil_chunk ch = plan::chunk(c);
        for (int i = 0; i < ch.k / 2; ++i) {
            const int j = ch.base / 4 + (i >> 1);
            for (int half = 0; half < 2; ++half) {
                int count[16] = {};
                for (int lane = 16 * half; lane < 16 * half + 16; ++lane) {
                    const int t = lane & 3, g = lane >> 2;
                    if (t >= plan::real_lanes(j)) continue;
                    const int word = (g + 8 * (i & 1)) * pitch + ln[lane].off[j];
                    ++count[((word % 16) + 16) % 16];
                }
                int m = 0;
                for (int v : count) m = v > m ? v : m;
                worst = m > worst ? m : worst;
                ++groups;
                clean += m <= 1;
            }
        }
    }
    T.check(worst <= 2, "%s: an A gather puts %d lanes of a half-warp on one bank", n.c_str(), worst);
    std::printf("%s: %d of %d half-warp A gathers conflict-free, worst %d-way\n", n.c_str(), clean, groups, worst);
    // the column arm's B gathers (row t - r + base + 4i, column out_col(g)): a pitch % 8 == 4 puts
    // rows t and t + 1 four words apart, so a half-warp's columns {0, 4, 1, 5} meet in pairs
    if constexpr (plan::column_arm) {
        int arm_worst = 0;
        for (int c = 0; c < plan::column_chunks; ++c) {
            const stencil_chunk ch = plan::column_chunk(c);
            for (int i = 0; i < ch.k / 4; ++i)
                for (int half = 0; half < 2; ++half) {
                    int count[16] = {};
                    for (int lane = 16 * half; lane < 16 * half + 16; ++lane) {
                        if ((lane & 3) >= plan::column_real - (ch.base + 4 * i)) continue;
                        const int word = ln[lane].column.off + (ch.base + 4 * i) * pitch;
                        ++count[((word % 16) + 16) % 16];
                    }
                    for (int v : count) arm_worst = v > arm_worst ? v : arm_worst;
                }
        }
        T.check(arm_worst <= 2, "%s: a column-arm B gather puts %d lanes of a half-warp on one bank", n.c_str(),
                arm_worst);
        std::printf("%s: column-arm B gathers at worst %d-way\n", n.c_str(), arm_worst);
    }
}

// -- tiling arithmetic ----------------------------------------------------------------

void check_region_blocks()
{
    for (int lo = 0; lo < 4; ++lo)
        for (int width = 16; width < 90; ++width)
            for (int size : {8, 16}) {
                if (width < size) continue;
                const int hi = lo + width;
                std::vector<int> owner(hi + 1, 0);
                const int blocks = (width + size - 1) / size;
                bool ok = true;
                for (int k = 0; k < blocks; ++k) {
                    const stencil_block_span s = stencil_region_block(lo, hi, size, k);
                    ok = ok && s.start >= lo && s.start + size <= hi;
                    for (int p = s.start; p < s.start + size; ++p)
                        if (p >= s.nominal) ++owner[p];
                }
                for (int p = lo; p < hi; ++p) ok = ok && owner[p] == 1;
                T.check(ok, "region_block: [%d, %d) in blocks of %d", lo, hi, size);
            }
}

/// make_frame's 32-bit bounds agree with a direct classification of every
/// buffer position (grid point x0 - H + bx, y0 - H + by).
template <class G, boundary BC>
void check_frames()
{
    constexpr int R = G::R, H = G::halo;
    int mismatches = 0, cases = 0;
    for (long long nx : {1LL, 3LL, 37LL, 150LL, 1000LL})
        for (long long ny : {2LL, 29LL, 97LL})
            for (long long tx = 0; tx * G::tile_x < nx; ++tx)
                for (long long ty = 0; ty * G::tile_y < ny; ++ty)
                    for (bool zin : {true, false}) {
                        if (BC == boundary::periodic && !zin) continue;
                        const long long x0 = tx * G::tile_x, y0 = ty * G::tile_y;
                        const long long ex = BC == boundary::dirichlet ? nx + 2 * R : nx;
                        const stencil_tile_frame f = make_stencil_tile_frame<G, BC>(x0, y0, nx, ny, ex, zin);
                        ++cases;
                        bool all = true, all_final = true;
                        for (int by = 0; by < G::bh; ++by)
                            for (int bx = 0; bx < G::bw; ++bx) {
                                const long long x = x0 - H + bx, y = y0 - H + by;
                                const bool final_pos = bx >= H && bx < H + G::tile_x && by >= H && by < H + G::tile_y;
                                const bool in_f = bx >= f.ix_lo && bx < f.ix_hi && by >= f.iy_lo && by < f.iy_hi;
                                const bool ar_f = bx >= f.ax_lo && bx < f.ax_hi && by >= f.ay_lo && by < f.ay_hi;
                                bool interior, in_array, final_write;
                                if (BC == boundary::periodic) {
                                    interior = true, in_array = true;
                                    final_write = x < nx && y < ny;
                                    if (final_pos && (in_f != final_write)) ++mismatches;
                                } else {
                                    interior = zin && x >= 0 && x < nx && y >= 0 && y < ny;
                                    in_array = x >= -R && x < nx + R && y >= -R && y < ny + R;
                                    final_write = interior;
                                    if (in_f != interior || (ar_f != in_array)) ++mismatches;
                                }
                                all = all && interior;
                                if (final_pos) all_final = all_final && final_write;
                                // the global index of the position
                                const long long h = stencil_halo(BC, R);
                                if (final_pos && final_write && f.gbase + by * ex + bx != (y + h) * ex + (x + h)) ++mismatches;
                            }
                        if (f.all != all && !(BC == boundary::periodic && f.all)) ++mismatches;
                        if (f.all && !all) ++mismatches;
                        if (f.all_final && !all_final) ++mismatches;
                        if (BC == boundary::dirichlet && f.all != all) ++mismatches;
                    }
    T.check(mismatches == 0, "make_frame (%s, tile %dx%d, halo %d): %d mismatches in %d tiles", boundary_name(BC),
            G::tile_x, G::tile_y, H, mismatches, cases);
}

void check_zchunks()
{
    // 512^3, t = 1: 128 tiles on 264 resident blocks -> two chunks fill the GPU once
    T.check(stencil_zchunk(512, 128, 264, 1) == 256, "zchunk 512^3 t=1: %lld", stencil_zchunk(512, 128, 264, 1));
    // 1024^3, t = 1: 512 tiles already make two full waves
    T.check(stencil_zchunk(1024, 512, 264, 1) == 1024, "zchunk 1024^3 t=1: %lld", stencil_zchunk(1024, 512, 264, 1));
    // 512^3, t = 3 (60x28 tiles): 171 tiles on 132 blocks -> three chunks, four waves
    T.check(stencil_zchunk(512, 171, 132, 3) == 171, "zchunk 512^3 t=3: %lld", stencil_zchunk(512, 171, 132, 3));
    for (long long nz : {1LL, 2LL, 7LL, 70LL, 333LL})
        for (long long tiles : {1LL, 5LL, 1000LL}) {
            const long long zc = stencil_zchunk(nz, tiles, 132, 3);
            T.check(zc >= 1 && zc <= nz, "zchunk of nz = %lld: %lld", nz, zc);
        }
    // with tickets (the 3D t = 1 kernel, 256x16 tiles, 132 resident blocks):
    // about 64 planes, fewer where that leaves under two items a block, never
    // under 16 (or nz)
    T.check(stencil_zchunk_tickets(512, 64, 132) == 64, "tickets zchunk 512^3: %lld", stencil_zchunk_tickets(512, 64, 132));
    T.check(stencil_zchunk_tickets(1024, 256, 132) == 64, "tickets zchunk 1024^3: %lld",
            stencil_zchunk_tickets(1024, 256, 132));
    T.check(stencil_zchunk_tickets(256, 16, 132) == 16, "tickets zchunk 256^3: %lld", stencil_zchunk_tickets(256, 16, 132));
    T.check(stencil_zchunk_tickets(100, 2, 132) == 17, "tickets zchunk nz = 100 on 2 tiles: %lld",
            stencil_zchunk_tickets(100, 2, 132));
    for (long long nz : {1LL, 2LL, 7LL, 15LL, 16LL, 70LL, 333LL})
        for (long long tiles : {1LL, 5LL, 1000LL}) {
            const long long zc = stencil_zchunk_tickets(nz, tiles, 132);
            T.check(zc >= 1 && zc <= nz && (zc >= 16 || zc == nz), "tickets zchunk of nz = %lld, %lld tiles: %lld", nz,
                    tiles, zc);
        }
}

void check_warp_stream()
{
    for (int r = 1; r <= stencil_ws_max_radius; ++r)
        for (int t = 2; t <= 3; ++t) {
            const int m = stencil_ws_margin(t, r), v = stencil_ws_valid(t, r);
            T.check(m >= t * r && m <= t * r + 1 && (r - m) % 2 == 0,
                    "ws_margin(%d, %d) = %d: at least T r, at most one more, first column r - margin even", t, r, m);
            T.check(v == stencil_ws_width - 2 * m && v > 0 && v % 2 == 0, "ws_valid(%d, %d) = %d", t, r, v);
        }
    T.check(stencil_ws_valid(3, 1) == 122 && stencil_ws_valid(2, 1) == 122 && stencil_ws_valid(3, 3) == 110,
            "stored columns: r = 1: 122, r = 3, T = 3: 110");
    for (int p = 3; p <= 7; p += 2)
        for (int u = 0; u < p; ++u) {
            unsigned seen = 0;
            for (int back = 0; back < p; ++back) {
                const int s = stencil_ws_slot(u, back, p);
                T.check(s >= 0 && s < p && (s + back) % p == u, "ws_slot(%d, %d, %d) = %d", u, back, p, s);
                seen |= 1u << s;
            }
            T.check(seen == (1u << p) - 1, "ws_slot(%d, 0..%d, %d) misses a slot", u, p - 1, p);
        }
    // the kernel's grid.y and 32-bit row counts: at most 65535 bands, each under 2^30 rows
    T.check(stencil_warp_stream_band_ok(10240, 931) && stencil_warp_stream_band_ok(65535, 1) &&
                stencil_warp_stream_band_ok((1LL << 30) - 1, (1LL << 30) - 1),
            "warp_stream_band_ok rejects bands the kernel takes");
    T.check(!stencil_warp_stream_band_ok(65536, 1) && !stencil_warp_stream_band_ok(1LL << 32, 1LL << 30) &&
                !stencil_warp_stream_band_ok(100, 0),
            "warp_stream_band_ok takes more than 65535 bands, a band of 2^30 rows or an empty band");
    // 10240^2, r = 3, T = 3: 94 strips in 12 blocks; 132 resident blocks: 11 bands of 931 rows
    T.check(stencil_warp_stream_band(10240, 94, 132) == 931, "band 10240^2 r = 3: %lld", stencil_warp_stream_band(10240, 94, 132));
    for (long long ny : {1LL, 777LL, 4096LL, 10240LL, 100000LL})
        for (long long strips : {1LL, 38LL, 94LL, 840LL})
            for (long long resident : {132LL, 264LL}) {
                const long long band = stencil_warp_stream_band(ny, strips, resident);
                const long long blocks = tcore::ceil_div(strips, stencil_ws_warps) * tcore::ceil_div(ny, band);
                T.check(band >= stencil_ws_min_band && (blocks <= resident || band == stencil_ws_min_band ||
                                                    tcore::ceil_div(ny, band) == 1),
                        "warp_stream_band(%lld, %lld, %lld) = %lld: %lld blocks", ny, strips, resident, band, blocks);
            }
}

void check_balanced_blocks()
{
        // 4096^2 in 64x64 tiles on 396 resident blocks: 11 rounds either way; 373 blocks (366 with 11 tiles,
    // 7 with 10) instead of 396 (136 with 11, 260 with 10)
    T.check(stencil_balanced_blocks(4096, 396) == 373, "stencil_balanced_blocks(4096, 396) = %lld", stencil_balanced_blocks(4096, 396));
    T.check(stencil_balanced_blocks(25600, 396) == 394, "stencil_balanced_blocks(25600, 396) = %lld", stencil_balanced_blocks(25600, 396));
    T.check(stencil_balanced_blocks(100, 396) == 100, "stencil_balanced_blocks(100, 396) = %lld", stencil_balanced_blocks(100, 396));
    T.check(stencil_balanced_blocks(792, 396) == 396, "stencil_balanced_blocks(792, 396) = %lld", stencil_balanced_blocks(792, 396));
    for (long long items : {1LL, 7LL, 397LL, 4096LL, 29241LL})
        for (long long resident : {1LL, 132LL, 396LL}) {
            const long long b = stencil_balanced_blocks(items, resident);
            const long long rounds = (items + resident - 1) / resident;
            T.check(b >= 1 && b <= resident && b * rounds >= items && (b - 1) * rounds < items,
                    "stencil_balanced_blocks(%lld, %lld) = %lld", items, resident, b);
        }
}

// -- 16-byte column-pair loads ------------------------------------------------------

/// pair_loads_apply for an nx x 5 (x 5) grid whose input lies offset_bytes
/// past a 16-byte boundary.
template <class S, boundary BC>
bool pairs_apply(long long nx, int steps, std::size_t offset_bytes)
{
    alignas(16) static double storage[4];
    const double* in = reinterpret_cast<const double*>(reinterpret_cast<const char*>(storage) + offset_bytes);
    const stencil_grid g{nx, 5, S::dims == 3 ? 5 : 1};
    const stencil_args<S> a = stencil_grid_args<S, BC>(in, nullptr, g, stencil_weights<S>{});
    return stencil_pair_loads_apply<S, BC>(a, steps);
}

void check_pair_rule()
{
    // ex = nx + 2r for Dirichlet, nx for periodic
    T.check(pairs_apply<star2d1r, boundary::dirichlet>(600, 1, 0), "pairs: star2d1r 600 wide, t = 1");
    T.check(pairs_apply<star2d1r, boundary::dirichlet>(600, 3, 0), "pairs: star2d1r 600 wide, t = 3");
    T.check(!pairs_apply<star2d1r, boundary::dirichlet>(600, 2, 0), "no pairs for odd (t-1)r");
    T.check(!pairs_apply<star2d1r, boundary::dirichlet>(37, 1, 0), "no pairs for an odd row pitch");
    T.check(!pairs_apply<star2d1r, boundary::periodic>(600, 1, 0), "no pairs for periodic arrays");
    T.check(!pairs_apply<star2d1r, boundary::dirichlet>(600, 1, 8), "no pairs for an input 8 bytes off 16");
    T.check(pairs_apply<star2d3r, boundary::dirichlet>(600, 1, 0), "pairs: star2d3r 600 wide, t = 1");
    T.check(!pairs_apply<star2d3r, boundary::dirichlet>(601, 1, 0), "no pairs: star2d3r 601 wide");
    T.check(pairs_apply<box3d1r, boundary::dirichlet>(130, 1, 0), "pairs: box3d1r 130 wide, t = 1");
    T.check(!pairs_apply<box3d1r, boundary::dirichlet>(131, 1, 0), "no pairs: box3d1r 131 wide");
}

// -- argument checks ------------------------------------------------------------------

void check_apply_arguments()
{
    // stencil_apply checks its arguments before any CUDA call, so these need no GPU; an argument
    // that slipped through would reach the CUDA runtime and fail with another message.
    const std::uintptr_t base = std::uintptr_t{1} << 20;
    const double* in = reinterpret_cast<const double*>(base);
    double* out = reinterpret_cast<double*>(base + (std::uintptr_t{1} << 44));  // 2^41 elements apart
    const stencil_weights<star2d1r> w2{};
    const stencil_weights<star3d1r> w3{};
    T.expect_error("a 2^32 x 2^32 grid (its element count overflows a long long)", [&] {
        stencil_apply<star2d1r, tensor_core, 1, boundary::periodic>(in, out, {1LL << 32, 1LL << 32, 1}, w2);
    }, "grid too large");
    T.expect_error("a 2^41 x 1 grid", [&] {
        stencil_apply_cce<star2d1r, 1, boundary::dirichlet>(in, out, {1LL << 41, 1, 1}, w2);
    }, "grid too large");
    T.expect_error("3D t = 1 cce rows of 2^31 + 2 elements", [&] {
        stencil_apply_cce<star3d1r, 1, boundary::dirichlet>(in, out, {1LL << 31, 1, 1}, w3);
    }, "2^31 - 1");
}

template <class S>
void check_configs()
{
    const std::string n = S::name();
    auto chk = [&](std::size_t bytes, int pitch, const char* what, int t) {
        T.check(bytes <= 227 * 1024, "%s %s t=%d: %zu bytes of shared memory", n.c_str(), what, t, bytes);
        T.check(pitch % 8 == 4, "%s %s t=%d: pitch %d", n.c_str(), what, t, pitch);
    };
    if constexpr (S::dims == 2) {
        chk(stencil_t1_tile_default<S>::smem_bytes, stencil_t1_tile_default<S>::pitch, "2D cce", 1);
        chk(stencil_tiled2d_default<S, 1>::smem_bytes, stencil_tiled2d_default<S, 1>::geometry::pitch, "2D", 1);
        chk(stencil_tiled2d_default<S, 3>::smem_bytes, stencil_tiled2d_default<S, 3>::geometry::pitch, "2D", 3);
        chk(stencil_tiled2d_default<S, 4>::smem_bytes, stencil_tiled2d_default<S, 4>::geometry::pitch, "2D", 4);
    } else {
        chk(stencil_tiled3d_default<S, 1>::smem_bytes, stencil_tiled3d_default<S, 1>::geometry::pitch, "3D", 1);
        chk(stencil_tiled3d_default<S, 3>::smem_bytes, stencil_tiled3d_default<S, 3>::geometry::pitch, "3D", 3);
        chk(stencil_tiled3d_default<S, 4>::smem_bytes, stencil_tiled3d_default<S, 4>::geometry::pitch, "3D", 4);
        chk(stencil_stream_default<S>::smem_bytes, stencil_stream_default<S>::pitch, "3D cce", 1);
    }
}

// -- CPU reference ----------------------------------------------------------------------

void check_reference()
{
    // 2D star, Dirichlet, 3x2 grid with a halo of 1: hand-computed values
    stencil_weights<star2d1r> w;
    w.set(0, 0, 0, 0.5);
    w.set(0, -1, 0, 1);   // north (y-1)
    w.set(0, 1, 0, 2);    // south
    w.set(0, 0, -1, 4);   // west
    w.set(0, 0, 1, 8);    // east
    const stencil_grid g{3, 2, 1};
    const stencil_extent e = stencil_array_extent<star2d1r>(g, boundary::dirichlet);
    T.check(e.ex == 5 && e.ey == 4 && e.ez == 1, "extent with halo");
    std::vector<double> in(e.count()), out(e.count(), -1);
    for (long long i = 0; i < e.count(); ++i) in[i] = static_cast<double>(i);
    stencil_reference_step<star2d1r>(in.data(), out.data(), g, boundary::dirichlet, w);
    // interior (x=0, y=0) is array (1, 1) = 6; N = 1, S = 11, W = 5, E = 7
    T.check(out[6] == 0.5 * 6 + 1 + 2 * 11 + 4 * 5 + 8 * 7, "reference star: %g", out[6]);
    T.check(out[0] == in[0] && out[19] == in[19], "reference keeps the halo");
    // periodic wrap on a 1D-like 4x1 grid: each point sees its wrapped neighbours
    const stencil_grid p{4, 1, 1};
    std::vector<double> pin = {1, 2, 3, 4}, pout(4);
    stencil_weights<star2d1r> wp;
    wp.set(0, 0, -1, 1);
    wp.set(0, 0, 1, 10);
    wp.set(0, -1, 0, 100);  // y wraps onto itself (ny = 1)
    stencil_reference_step<star2d1r>(pin.data(), pout.data(), p, boundary::periodic, wp);
    T.check(pout[0] == 4 + 10 * 2 + 100 * 1, "periodic wrap x: %g", pout[0]);
    T.check(pout[3] == 3 + 10 * 1 + 100 * 4, "periodic wrap x at the end: %g", pout[3]);
}

}  // namespace

int main()
{
    test::seed();
    check_tables<star2d1r>(28, 3);
    check_tables<box2d1r>(32, 2);
    check_tables<star2d3r>(16, 1);
    check_tables<box2d3r>(100, 7);
    check_tables<star3d1r>(44, 5);
    check_tables<box3d1r>(96, 6);
    check_coverage<star2d1r>();
    check_coverage<box2d1r>();
    check_coverage<star2d3r>();
    check_coverage<box2d3r>();
    check_coverage<star3d1r>();
    check_coverage<box3d1r>();
    check_block_product<star2d1r>();
    check_block_product<box2d1r>();
    check_block_product<star2d3r>();
    check_block_product<box2d3r>();
    check_block_product<star3d1r>();
    check_block_product<box3d1r>();
    check_block_product<stencil_shape<2, 2, stencil_kind::box>>();
    check_block_product<stencil_shape<3, 2, stencil_kind::star>>();
    // the column arm at the other radii a user may instantiate: R = 2 (row 12 + arm 20 slots), R = 4 (16 + 24)
    check_tables<stencil_shape<2, 2, stencil_kind::star>>(12, 2);
    check_tables<stencil_shape<2, 4, stencil_kind::star>>(16, 1);
    check_coverage<stencil_shape<2, 2, stencil_kind::star>>();
    check_coverage<stencil_shape<2, 4, stencil_kind::star>>();
    check_block_product<stencil_shape<2, 2, stencil_kind::star>>();
    check_block_product<stencil_shape<2, 4, stencil_kind::star>>();
    check_banks<star2d1r>();
    check_banks<box2d1r>();
    check_banks<star2d3r>();
    check_banks<box2d3r>();
    check_banks<star3d1r>();
    check_banks<box3d1r>();
    check_region_blocks();
    check_configs<star2d1r>();
    check_configs<box2d1r>();
    check_configs<star2d3r>();
    check_configs<box2d3r>();
    check_configs<star3d1r>();
    check_configs<box3d1r>();
    check_frames<stencil_tiled2d_default<star2d1r, 3>::geometry, boundary::dirichlet>();
    check_frames<stencil_tiled2d_default<star2d1r, 3>::geometry, boundary::periodic>();
    check_frames<stencil_tiled2d_default<box2d3r, 1>::geometry, boundary::dirichlet>();
    check_frames<stencil_tiled3d_default<box3d1r, 3>::geometry, boundary::dirichlet>();
    check_frames<stencil_tiled3d_default<star3d1r, 1>::geometry, boundary::periodic>();
    check_zchunks();
    check_warp_stream();
    check_balanced_blocks();
    check_pair_rule();
    check_apply_arguments();
    check_reference();
    return T.finish();
}
