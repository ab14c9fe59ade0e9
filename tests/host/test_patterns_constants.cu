// tests/host/test_patterns_constants.cu - CPU checks of the constant-matrix
// patterns: the generators produce the intended matrices through each
// shape's lane maps, the relabellings are bijections with the adjacency the
// vector loads rely on, and host models of the warp algorithms (the very
// fragments, placements and CUDA-core MMA the device code uses, run for all
// 32 lanes on the CPU) give column sums, prefix sums and matrix-vector
// products.
#include "common/test_util.hpp"
#include "examples/scan/scan_cce.cuh"

#include <tcore/patterns/gemv.cuh>
#include <tcore/patterns/reduce.cuh>
#include <tcore/patterns/scan.cuh>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace tcore;

namespace {

test::tally T;

template <class V>
double to_d(V v)
{
    if constexpr (std::is_same_v<V, __half>) return static_cast<double>(__half2float(v));
    else return static_cast<double>(v);
}

// -- warp-wide host MMA ------------------------------------------------------

template <class Shape>
using lanes_a = std::vector<frag_a<Shape>>;
template <class Shape>
using lanes_b = std::vector<frag_b<Shape>>;
template <class Shape>
using lanes_c = std::vector<frag_c<Shape>>;

/// Reads register i of lane src from an array of 32 fragments (host and
/// device callable, as mma_emulated requires).
template <class Frag>
struct fetch_from {
    const Frag* frags;
    template <class I>
    __host__ __device__ typename Frag::value_type operator()(int src, I i) const
    {
        return frags[src].x[static_cast<int>(i)];
    }
};

/// D = A*B + C for all 32 lanes with the CUDA-core MMA's own code.
template <class Shape>
lanes_c<Shape> host_mma(const lanes_a<Shape>& a, const lanes_b<Shape>& b, const lanes_c<Shape>& c)
{
    lanes_c<Shape> d(32);
    for (int lane = 0; lane < 32; ++lane) {
        typename Shape::acc_type acc[Shape::c_count];
        for (int i = 0; i < Shape::c_count; ++i) acc[i] = Shape::to_acc(c[lane].x[i]);
        mma_emulated<Shape>(lane, acc, fetch_from<frag_a<Shape>>{a.data()}, fetch_from<frag_b<Shape>>{b.data()});
        for (int i = 0; i < Shape::c_count; ++i) d[lane].x[i] = convert_to<typename Shape::c_type>(acc[i]);
    }
    return d;
}

template <class Shape>
lanes_c<Shape> zeros_c()
{
    lanes_c<Shape> c(32);
    for (auto& f : c) fill(f, 0.0f);
    return c;
}

// -- generators through the lane maps ----------------------------------------

/// Rebuilds the M x K matrix that make_a(lane, gen) spreads over the warp and
/// compares it with gen; every element must be held exactly once.
template <class Shape, class Gen>
void check_make_a(Gen gen, const char* what)
{
    std::vector<double> m(Shape::m * Shape::k, -1.0);
    std::vector<int> seen(Shape::m * Shape::k, 0);
    for (int lane = 0; lane < 32; ++lane) {
        const frag_a<Shape> a = make_a<Shape>(lane, gen);
        for (int i = 0; i < Shape::a_count; ++i) {
            const coord rc = Shape::a_coord(lane, i);
            m[rc.row * Shape::k + rc.col] = to_d(a.x[i]);
            ++seen[rc.row * Shape::k + rc.col];
        }
    }
    int bad = 0;
    for (int r = 0; r < Shape::m; ++r)
        for (int c = 0; c < Shape::k; ++c)
            bad += seen[r * Shape::k + c] != 1 || m[r * Shape::k + c] != gen(r, c);
    T.check(bad == 0, "%s make_a %s: %d elements wrong", Shape::name(), what, bad);
}

template <class Shape, class Gen>
void check_make_b(Gen gen, const char* what)
{
    std::vector<double> m(Shape::k * Shape::n, -1.0);
    std::vector<int> seen(Shape::k * Shape::n, 0);
    for (int lane = 0; lane < 32; ++lane) {
        const frag_b<Shape> b = make_b<Shape>(lane, gen);
        for (int i = 0; i < Shape::b_count; ++i) {
            const coord rc = Shape::b_coord(lane, i);
            m[rc.row * Shape::n + rc.col] = to_d(b.x[i]);
            ++seen[rc.row * Shape::n + rc.col];
        }
    }
    int bad = 0;
    for (int r = 0; r < Shape::k; ++r)
        for (int c = 0; c < Shape::n; ++c)
            bad += seen[r * Shape::n + c] != 1 || m[r * Shape::n + c] != gen(r, c);
    T.check(bad == 0, "%s make_b %s: %d elements wrong", Shape::name(), what, bad);
}

template <class Shape>
void check_generators()
{
    check_make_a<Shape>(cmat::ones{}, "ones");
    check_make_a<Shape>(cmat::ones_row{0}, "ones_row");
    check_make_a<Shape>(cmat::ones_col{1}, "ones_col");
    check_make_a<Shape>(cmat::upper{}, "upper");
    check_make_a<Shape>(cmat::strict_upper{}, "strict_upper");
    check_make_a<Shape>(cmat::lower{}, "lower");
    check_make_a<Shape>(cmat::strict_lower{}, "strict_lower");
    check_make_b<Shape>(cmat::ones{}, "ones");
    check_make_b<Shape>(cmat::ones_col{0}, "ones_col");
    check_make_b<Shape>(cmat::upper{}, "upper");
    check_make_b<Shape>(cmat::block_strict_upper{4}, "block_strict_upper(4)");

    // The generators' own definitions, spelled out on a 4 x 4 example.
    const int u[4][4] = {{1, 1, 1, 1}, {0, 1, 1, 1}, {0, 0, 1, 1}, {0, 0, 0, 1}};
    int bad = 0;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            bad += cmat::upper{}(r, c) != u[r][c] || cmat::lower{}(c, r) != u[r][c];
            bad += cmat::strict_upper{}(r, c) != (u[r][c] && r != c) || cmat::strict_lower{}(c, r) != (u[r][c] && r != c);
            bad += cmat::block_strict_upper{2}(r, c) != (r < c && r / 2 == c / 2);
        }
    T.check(bad == 0, "generator definitions: %d wrong", bad);

    // The reduction's ones row: 1 exactly on lanes 0-3 in the registers of row g.
    int wrong = 0;
    for (int lane = 0; lane < 32; ++lane) {
        const frag_a<Shape> a = make_a<Shape>(lane, cmat::ones_row{0});
        for (int i = 0; i < Shape::a_count; ++i)
            wrong += to_d(a.x[i]) != ((lane < 4 && Shape::a_coord(lane, i).row == 0) ? 1.0 : 0.0);
    }
    T.check(wrong == 0, "%s ones row lives on lanes 0-3: %d wrong", Shape::name(), wrong);
}

// -- relabellings --------------------------------------------------------------

template <class Shape>
void check_relabel()
{
    int bad = 0;
    for (int s = 0; s < Shape::k; ++s) bad += row_slot<Shape>(slot_row<Shape>(s)) != s;
    T.check(bad == 0, "%s slot_row is a bijection with inverse row_slot", Shape::name());
    bad = 0;
    for (int r = 0; r < Shape::m; ++r) bad += row_out<Shape>(out_row<Shape>(r)) != r || out_row<Shape>(r) >= Shape::m;
    T.check(bad == 0, "%s out_row is a bijection with inverse row_out", Shape::name());
    // Vector adjacency of the B registers of a lane (same column, consecutive rows).
    constexpr int group = is_half_shape_v<Shape> ? 4 : (Shape::b_count >= 2 ? 2 : 1);
    bad = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i + 1 < Shape::b_count; ++i) {
            if ((i + 1) % group == 0) continue;
            const coord a = Shape::b_coord(lane, i), b = Shape::b_coord(lane, i + 1);
            bad += a.col != b.col || slot_row<Shape>(b.row) != slot_row<Shape>(a.row) + 1;
        }
    T.check(bad == 0, "%s B registers adjacent in groups of %d", Shape::name(), group);
    if constexpr (Shape::m == 16) {
        bad = 0;  // c0/c2 and c1/c3 are adjacent memory rows of one column
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < 2; ++i) {
                const coord a = Shape::c_coord(lane, i), b = Shape::c_coord(lane, i + 2);
                bad += a.col != b.col || out_row<Shape>(b.row) != out_row<Shape>(a.row) + 1;
            }
        T.check(bad == 0, "%s accumulator pairs c0/c2, c1/c3 adjacent after out_row", Shape::name());
    }
}

void check_carry_relabel()
{
    using K8 = f64_m16n8k8;
    int bad = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int j = 0; j < K8::b_count; ++j) {
            const coord rc = K8::b_coord(lane, j);
            bad += scan_carry_col(rc.row) != reuse_col<K8>(lane, j);
        }
    T.check(bad == 0, "scan carry relabel matches reuse_col for m16n8k8");
}

// -- reduce: placement and the host model of warp_sum --------------------------

template <reduce_placement P, class Tin>
void check_reduce_placement(const char* name)
{
    std::vector<int> seen(reduce_tile, 0);
    int bad = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int q = 0; q < reduce_per_lane; ++q) {
            const int p = reduce_tile_pos<P, Tin>(lane, q);
            if (p < 0 || p >= reduce_tile) {
                ++bad;
                continue;
            }
            ++seen[p];
            if (P == reduce_placement::chunk) bad += p / 32 != lane / 4;  // chunk g
        }
    for (int p = 0; p < reduce_tile; ++p) bad += seen[p] != 1;
    // 16-byte groups: V consecutive q at consecutive positions, group start aligned.
    constexpr int V = 16 / sizeof(Tin);
    for (int lane = 0; lane < 32; ++lane)
        for (int q = 0; q < reduce_per_lane; ++q) {
            const int p0 = reduce_tile_pos<P, Tin>(lane, q - q % V);
            bad += reduce_tile_pos<P, Tin>(lane, q) != p0 + q % V || p0 % V != 0;
        }
    T.check(bad == 0, "reduce placement %s: bijective, chunked, vector groups (%d wrong)", name, bad);
}

/// Host model of warp_sum::add for one tile: D(0, c) must be the sum of
/// what the lanes of quad c put in (chunk c under the chunk placement).
template <class Shape>
void check_reduce_model(test::rng& rng)
{
    using Tin = typename Shape::b_type;
    std::vector<double> tile(reduce_tile);
    for (auto& v : tile) v = std::ldexp(std::floor(rng.uniform(-128, 128)), -6);  // exact in FP16 and in sums
    lanes_a<Shape> ones(32);
    for (int lane = 0; lane < 32; ++lane) ones[lane] = make_a<Shape>(lane, cmat::ones_row{0});
    lanes_c<Shape> d = zeros_c<Shape>();
    constexpr int mmas = reduce_per_lane / Shape::b_count;
    for (int m = 0; m < mmas; ++m) {
        lanes_b<Shape> b(32);
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < Shape::b_count; ++i) {
                const int q = m * Shape::b_count + i;
                b[lane].x[i] = convert_to<Tin>(tile[reduce_tile_pos<reduce_placement::chunk, Tin>(lane, q)]);
            }
        d = host_mma<Shape>(ones, b, d);
    }
    int bad = 0;
    double total = 0;
    for (int c = 0; c < 8; ++c) {
        double want = 0;
        for (int e = 0; e < 32; ++e) want += tile[32 * c + e];
        total += want;
        const int lane = c / 2, i = c % 2;  // row 0, column c: lane c/2, c_{c%2}
        bad += to_d(d[lane].x[i]) != want;
    }
    double got = 0;
    for (int lane = 0; lane < 4; ++lane) got += to_d(d[lane].x[0]) + to_d(d[lane].x[1]);
    T.check(bad == 0 && got == total, "%s reduce model: column sums of chunks (%d wrong), total %g vs %g",
            Shape::name(), bad, got, total);
}

// -- scan: placement and the host models of warp_scan --------------------------

template <class Scanner>
void check_scan_placement(const char* name)
{
    std::vector<int> seen_in(scan_tile, 0), seen_out(scan_tile, 0);
    int bad = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < scan_per_lane; ++i) {
            ++seen_in[Scanner::in_pos(lane, i)];
            ++seen_out[Scanner::out_pos(lane, i)];
        }
    for (int p = 0; p < scan_tile; ++p) bad += seen_in[p] != 1 || seen_out[p] != 1;
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < scan_per_lane; ++i) {
            const int g = Scanner::in_group, j0 = i - i % g;
            bad += Scanner::in_pos(lane, i) != Scanner::in_pos(lane, j0) + i % g || Scanner::in_pos(lane, j0) % g != 0;
            const int h = Scanner::out_group, k0 = i - i % h;
            bad += Scanner::out_pos(lane, Scanner::out_index(i)) != Scanner::out_pos(lane, Scanner::out_index(k0)) + i % h ||
                   Scanner::out_pos(lane, Scanner::out_index(k0)) % h != 0;
        }
    }
    int last_in = 0, last_out = 0;  // lane 31 holds position 127 in and out
    for (int i = 0; i < scan_per_lane; ++i) {
        last_in += Scanner::in_pos(31, i) == scan_tile - 1;
        last_out += Scanner::out_pos(31, i) == scan_tile - 1;
    }
    T.check(bad == 0 && last_in == 1 && last_out == 1, "scan placement %s: bijective, vector groups, lane 31 last (%d)",
            name, bad);
}

/// The three-product scheme as plain matrices: P = L X + (1 X) U.
void check_scan_matrices(test::rng& rng)
{
    for (int seg_cols : {8, 4})
        for (bool exclusive : {false, true}) {
            double x[16][8], p[16][8];
            for (auto& row : x)
                for (double& v : row) v = rng.nonzero(-2, 2);
            for (int r = 0; r < 16; ++r)
                for (int c = 0; c < 8; ++c) {
                    double lx = 0, carry = 0;
                    for (int k = 0; k < 16; ++k) lx += (exclusive ? cmat::strict_lower{}(r, k) : cmat::lower{}(r, k)) * x[k][c];
                    for (int cc = 0; cc < 8; ++cc) {
                        double ones_x = 0;
                        for (int k = 0; k < 16; ++k) ones_x += cmat::ones{}(r, k) * x[k][cc];
                        carry += ones_x * cmat::block_strict_upper{seg_cols}(cc, c);
                    }
                    p[r][c] = lx + carry;
                }
            // Column-major order: element e = 16c + r; prefix within segments of 16 * seg_cols.
            double worst = 0;
            for (int e = 0; e < 128; ++e) {
                const int seg0 = e / (16 * seg_cols) * (16 * seg_cols);
                double want = 0;
                for (int f = seg0; f < (exclusive ? e : e + 1); ++f) want += x[f % 16][f / 16];
                worst = tcore::test::worst_of(worst, std::fabs(p[e % 16][e / 16] - want));
            }
            T.check(worst < 1e-13, "matrix model L X + (1 X) U, seg_cols %d, %s: max error %.3g", seg_cols,
                    exclusive ? "exclusive" : "inclusive", worst);
        }
}

/// Fragment-level model of warp_scan::scan for FP64: three MMAs (relabelled)
/// on the tile with Inf/NaN read as zero, then apply_specials with the masks
/// the ballots would give. Returns the outputs by tile position.
template <bool Exclusive, int SegCols>
std::vector<double> scan_model_f64(const std::vector<double>& tile)
{
    using Shape = f64_m16n8k16;
    using K8 = f64_m16n8k8;
    using Scanner = warp_scan<tensor_core, Shape, Exclusive, SegCols>;
    lanes_a<Shape> ones(32), tri(32);
    lanes_b<Shape> xb(32);
    lanes_b<K8> u(32);
    unsigned pos_mask[scan_per_lane] = {}, neg_mask[scan_per_lane] = {};
    for (int lane = 0; lane < 32; ++lane) {
        ones[lane] = make_a<Shape>(lane, cmat::ones{});
        if constexpr (Exclusive) tri[lane] = make_a<Shape>(lane, relabel_a<Shape, cmat::strict_lower>{});
        else tri[lane] = make_a<Shape>(lane, relabel_a<Shape, cmat::lower>{});
        for (int i = 0; i < 4; ++i) {
            const double v = tile[Scanner::in_pos(lane, i)];
            xb[lane].x[i] = std::isfinite(v) ? v : 0.0;
            if (std::isnan(v) || v == INFINITY) pos_mask[i] |= 1u << lane;
            if (std::isnan(v) || v == -INFINITY) neg_mask[i] |= 1u << lane;
        }
        for (int j = 0; j < K8::b_count; ++j) {
            const coord rc = K8::b_coord(lane, j);
            u[lane].x[j] = cmat::block_strict_upper{SegCols}(scan_carry_col(rc.row), rc.col);
        }
    }
    const lanes_c<Shape> totals = host_mma<Shape>(ones, xb, zeros_c<Shape>());
    const lanes_c<Shape> p = host_mma<Shape>(tri, xb, zeros_c<Shape>());
    lanes_a<K8> a2(32);
    lanes_c<K8> c2(32);
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < 4; ++i) {
            const reuse_home src = f64_relabel_source<K8>(lane, i);
            a2[lane].x[i] = totals[src.lane].x[src.index];
            c2[lane].x[i] = p[lane].x[i];
        }
    }
    const lanes_c<K8> out = host_mma<K8>(a2, u, c2);
    std::vector<double> by_pos(scan_tile);
    for (int lane = 0; lane < 32; ++lane) {
        double o[scan_per_lane];
        for (int i = 0; i < 4; ++i) o[i] = out[lane].x[i];
        Scanner::apply_specials(o, lane, pos_mask, neg_mask);
        for (int i = 0; i < 4; ++i) by_pos[Scanner::out_pos(lane, i)] = o[i];
    }
    return by_pos;
}

/// Sequential IEEE prefix sums within segments of 16 * seg_cols.
std::vector<double> sequential_prefix(const std::vector<double>& tile, int seg_cols, bool exclusive)
{
    std::vector<double> want(tile.size());
    double s = 0;
    for (std::size_t e = 0; e < tile.size(); ++e) {
        if (e % (16 * seg_cols) == 0) s = 0;
        if (exclusive) want[e] = s;
        s += tile[e];
        if (!exclusive) want[e] = s;
    }
    return want;
}

template <bool Exclusive, int SegCols>
void check_scan_model_f64(test::rng& rng)
{
    std::vector<double> tile(scan_tile);
    for (auto& v : tile) v = rng.nonzero(-2, 2);
    std::vector<double> got = scan_model_f64<Exclusive, SegCols>(tile);
    std::vector<double> want = sequential_prefix(tile, SegCols, Exclusive);
    double worst = 0;
    for (int e = 0; e < scan_tile; ++e) worst = tcore::test::worst_of(worst, std::fabs(got[e] - want[e]));
    T.check(worst < 1e-13, "FP64 scan fragment model (%s, seg_cols %d): max error %.3g",
            Exclusive ? "exclusive" : "inclusive", SegCols, worst);

    // Inf and NaN: outputs before them stay finite, from them on follow IEEE addition.
    const double inf = INFINITY, nan = std::nan("");
    const std::vector<std::vector<std::pair<int, double>>> cases = {
        {{5, inf}}, {{70, -inf}}, {{3, inf}, {40, -inf}}, {{100, nan}}, {{0, inf}, {127, inf}}, {{63, inf}, {64, -inf}},
        {{20, nan}, {90, -inf}}};
    for (const auto& c : cases) {
        std::vector<double> t = tile;
        for (const auto& [pos, val] : c) t[pos] = val;
        got = scan_model_f64<Exclusive, SegCols>(t);
        want = sequential_prefix(t, SegCols, Exclusive);
        int bad = 0;
        for (int e = 0; e < scan_tile; ++e) {
            const bool ok = std::isnan(want[e]) ? std::isnan(got[e])
                            : std::isinf(want[e]) ? got[e] == want[e]
                                                  : std::fabs(got[e] - want[e]) < 1e-13;
            bad += !ok;
        }
        T.check(bad == 0, "FP64 scan model with Inf/NaN at %d (%s, seg_cols %d): %d wrong", c[0].first,
                Exclusive ? "exclusive" : "inclusive", SegCols, bad);
    }
}

/// Fragment-level model of the FP16 scan: two MMAs, quad carries in FP32.
template <bool Exclusive, int SegCols>
void check_scan_model_f16(test::rng& rng)
{
    using Shape = f16_m16n8k16_f32acc;
    using Scanner = warp_scan<tensor_core, Shape, Exclusive, SegCols>;
    std::vector<double> tile(scan_tile);
    for (auto& v : tile) v = std::ldexp(std::floor(rng.uniform(-128, 128)) + 0.5, -6);  // exact halves, nonzero
    lanes_a<Shape> ones(32), tri(32);
    lanes_b<Shape> xb(32);
    for (int lane = 0; lane < 32; ++lane) {
        ones[lane] = make_a<Shape>(lane, cmat::ones{});
        if constexpr (Exclusive) tri[lane] = make_a<Shape>(lane, relabel_a<Shape, cmat::strict_lower>{});
        else tri[lane] = make_a<Shape>(lane, relabel_a<Shape, cmat::lower>{});
        for (int i = 0; i < 4; ++i) xb[lane].x[i] = convert_to<__half>(tile[Scanner::in_pos(lane, i)]);
    }
    const lanes_c<Shape> totals = host_mma<Shape>(ones, xb, zeros_c<Shape>());
    const lanes_c<Shape> p = host_mma<Shape>(tri, xb, zeros_c<Shape>());
    double worst = 0;
    constexpr int width = SegCols / 2;
    for (int lane = 0; lane < 32; ++lane) {
        // what shfl_inclusive / shfl_exclusive_of compute inside the quad
        float before = 0;
        for (int l = lane - lane % width; l < lane; ++l) before += totals[l].x[0] + totals[l].x[1];
        const float carry[2] = {before, before + totals[lane].x[0]};
        for (int i = 0; i < 4; ++i) {
            const double got = p[lane].x[i] + carry[i & 1];
            const int e = Scanner::out_pos(lane, i);
            const int seg0 = e / (16 * SegCols) * (16 * SegCols);
            double want = 0;
            for (int f = seg0; f < (Exclusive ? e : e + 1); ++f) want += tile[f];
            worst = tcore::test::worst_of(worst, std::fabs(got - want));
        }
    }
    T.check(worst == 0, "FP16 scan fragment model (%s, seg_cols %d): max error %.3g",
            Exclusive ? "exclusive" : "inclusive", SegCols, worst);
}

// -- GEMV: placement and the host model of one tile ------------------------------

template <class Shape, layout L>
void check_gemv_model(test::rng& rng)
{
    using G = gemv_tile<Shape>;
    constexpr int M = Shape::m, K = Shape::k;
    std::vector<double> a(M * K), x(K);
    for (auto& v : a) v = rng.nonzero(-2, 2);
    for (auto& v : x) v = rng.nonzero(-2, 2);
    const long long ld = L == layout::row_major ? K : M;
    lanes_a<Shape> fa(32);
    lanes_b<Shape> fb(32);
    std::vector<int> seen(M * K, 0);
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < Shape::a_count; ++i) {
            const coord rc = G::a_elem(lane, i);
            fa[lane].x[i] = a[offset<L>(rc.row, rc.col, ld)];
            ++seen[rc.row * K + rc.col];
        }
        for (int j = 0; j < Shape::b_count; ++j) fb[lane].x[j] = x[G::x_elem(lane, j)];
    }
    int bad = 0;
    for (int e = 0; e < M * K; ++e) bad += seen[e] != 1;
    const lanes_c<Shape> d = host_mma<Shape>(fa, fb, zeros_c<Shape>());
    double worst = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < Shape::c_count; ++i) {
            const int r = G::y_row(lane, i);
            double want = 0;
            for (int k = 0; k < K; ++k) want += a[offset<L>(r, k, ld)] * x[k];
            worst = tcore::test::worst_of(worst, std::fabs(d[lane].x[i] - want));
        }
    // The lanes that store y (t == 0) cover every row once.
    std::vector<int> rows(M, 0);
    for (int lane = 0; lane < 32; lane += 4)
        for (int i : {0, 2})
            if (i < Shape::c_count) ++rows[G::y_row(lane, i)];
    for (int r = 0; r < M; ++r) bad += rows[r] != 1;
    T.check(bad == 0 && worst < 1e-13, "%s GEMV tile model (%s): %d placement errors, max error %.3g", Shape::name(),
            L == layout::row_major ? "row-major" : "col-major", bad, worst);
}

}  // namespace

int main()
{
    test::rng rng(test::seed());

    check_generators<f64_m8n8k4>();
    check_generators<f64_m16n8k4>();
    check_generators<f64_m16n8k8>();
    check_generators<f64_m16n8k16>();
    check_generators<f16_m16n8k16_f32acc>();

    check_relabel<f64_m8n8k4>();
    check_relabel<f64_m16n8k4>();
    check_relabel<f64_m16n8k8>();
    check_relabel<f64_m16n8k16>();
    check_relabel<f16_m16n8k16_f32acc>();
    check_carry_relabel();

    check_reduce_placement<reduce_placement::chunk, double>("chunk/double");
    check_reduce_placement<reduce_placement::stream, double>("stream/double");
    check_reduce_placement<reduce_placement::chunk, __half>("chunk/half");
    check_reduce_model<f64_m8n8k4>(rng);
    check_reduce_model<f64_m16n8k4>(rng);
    check_reduce_model<f64_m16n8k8>(rng);
    check_reduce_model<f64_m16n8k16>(rng);
    check_reduce_model<f16_m16n8k16_f32acc>(rng);

    check_scan_placement<warp_scan<tensor_core, f64_m16n8k16>>("tc/double");
    check_scan_placement<warp_scan<tensor_core, f16_m16n8k16_f32acc>>("tc/half");
    check_scan_placement<examples::scan::warp_scan_cce<double>>("cce/double");
    check_scan_placement<examples::scan::warp_scan_cce<__half>>("cce/half");
    check_scan_matrices(rng);
    check_scan_model_f64<false, 8>(rng);
    check_scan_model_f64<true, 8>(rng);
    check_scan_model_f64<false, 4>(rng);
    check_scan_model_f64<true, 4>(rng);
    check_scan_model_f16<false, 8>(rng);
    check_scan_model_f16<true, 8>(rng);
    check_scan_model_f16<false, 4>(rng);
    check_scan_model_f16<true, 4>(rng);

    check_gemv_model<f64_m16n8k16, layout::row_major>(rng);
    check_gemv_model<f64_m16n8k16, layout::col_major>(rng);
    check_gemv_model<f64_m16n8k8, layout::row_major>(rng);
    check_gemv_model<f64_m16n8k4, layout::col_major>(rng);
    check_gemv_model<f64_m8n8k4, layout::row_major>(rng);
    check_gemv_model<f64_m8n8k4, layout::col_major>(rng);

    return T.finish();
}
