// tests/host/test_gemm_reference.cu - the CPU-checkable parts of the gemm
// workload (examples/gemm):
//
//  * ldmatrix addressing. A model of ldmatrix.x4 (docs/mma-fragments.md §8:
//    lane 8m + r gives the address of row r of matrix m; without .trans
//    register m of lane l holds b16 elements 2(l%4), 2(l%4)+1 of row l/4,
//    with .trans elements [2(l%4)][l/4] and [2(l%4)+1][l/4]) is fed the
//    per-lane offsets of frag_reader; every fragment element it delivers
//    must be the one the shape's lane map names, for TF32 A, FP16 A and
//    FP16 B (two n8 tiles per .x4.trans). The element-wise path must agree
//    with the maps too (base + constant offsets). Shared-memory bank
//    conflicts of all fragment reads, from the padded row strides.
//  * tile_of visits every tile of the grid exactly once.
//  * the FP64 reference: full against a long-double product within
//    gamma_K S, the sampled one against the full one, pick_samples' rows
//    and columns (distinct, sorted, first and last included).
#include "common/test_util.hpp"

#include "examples/gemm/gemm_common.cuh"
#include "examples/gemm/gemm_mma.cuh"
#include "examples/gemm/gemm_reference.hpp"

#include <tcore/tcore.cuh>

#include <cmath>
#include <set>
#include <vector>

using tcore::test::rng;
using tcore::test::tally;
namespace gm = tcore::examples::gemm;

namespace {

// -- ldmatrix ----------------------------------------------------------------

/// Element offset (in units of the shape's element type) that register `reg`
/// (b16 half `j`) of `lane` receives from an ldmatrix.x4 whose lanes address
/// rows at element offsets addr(lane). elem_b16 = b16 units per element.
template <class Addr>
int ldsm_source(Addr addr, int lane, int reg, int j, bool trans, int elem_b16)
{
    const int g = lane >> 2, t = lane & 3;
    if (!trans) {
        const int row_start = addr(8 * reg + g) * elem_b16;  // in b16 units
        return (row_start + 2 * t + j) / elem_b16;
    }
    const int row_start = addr(8 * reg + 2 * t + j) * elem_b16;
    return (row_start + g) / elem_b16;
}

void check_ldsm_tf32_a(tally& t)
{
    using S = tcore::tf32_m16n8k8;
    constexpr int LDA = gm::tf32_config::lda, LDB = gm::tf32_config::ldb;
    using R = gm::impl::frag_reader<S, LDA, LDB, true>;
    static_assert(R::a_ldsm && !R::b_ldsm, "TF32 reads A with ldmatrix, B element-wise");
    int bad = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < S::a_count; ++i) {
            // One 32-bit word = two b16 halves: register i, both halves from the same word.
            const int lo = ldsm_source(R::a_lane_offset, lane, i, 0, false, 2);
            const int hi = ldsm_source(R::a_lane_offset, lane, i, 1, false, 2);
            const tcore::coord rc = S::a_coord(lane, i);
            if (lo != hi || lo != rc.row * LDA + rc.col) ++bad;
        }
    t.check(bad == 0, "ldmatrix tf32 A: %d of %d elements misplaced", bad, 32 * S::a_count);
}

void check_ldsm_f16(tally& t)
{
    using S = tcore::f16_m16n8k16_f32acc;
    constexpr int LDA = gm::f16_config::lda, LDB = gm::f16_config::ldb;
    using R = gm::impl::frag_reader<S, LDA, LDB, true>;
    static_assert(R::a_ldsm && R::b_ldsm, "FP16 reads A and B with ldmatrix");
    int bad_a = 0, bad_b = 0;
    for (int lane = 0; lane < 32; ++lane) {
        for (int e = 0; e < S::a_count; ++e) {  // element e = register e/2, half e%2
            const int got = ldsm_source(R::a_lane_offset, lane, e / 2, e % 2, false, 1);
            const tcore::coord rc = S::a_coord(lane, e);
            if (got != rc.row * LDA + rc.col) ++bad_a;
        }
        // x4.trans: registers 0,1 = B tile 0, registers 2,3 = B tile 1 (8 columns on).
        for (int reg = 0; reg < 4; ++reg)
            for (int j = 0; j < 2; ++j) {
                const int tile = reg / 2, e = 2 * (reg % 2) + j;
                const int got = ldsm_source(R::b_lane_offset, lane, reg, j, true, 1);
                const tcore::coord rc = S::b_coord(lane, e);
                if (got != rc.row * LDB + rc.col + 8 * tile) ++bad_b;
            }
    }
    t.check(bad_a == 0, "ldmatrix f16 A: %d of %d elements misplaced", bad_a, 32 * S::a_count);
    t.check(bad_b == 0, "ldmatrix.trans f16 B: %d of %d elements misplaced", bad_b, 32 * 8);
}

/// The element-wise path: lane offset + the constant offset of element i
/// (what frag_reader adds at compile time) is the lane map's position.
template <class S, int LDA, int LDB>
void check_elementwise(tally& t, const char* name)
{
    using R = gm::impl::frag_reader<S, LDA, LDB, false>;
    int bad = 0;
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < S::a_count; ++i) {
            const int d = (S::a_coord(0, i).row - S::a_coord(0, 0).row) * LDA + (S::a_coord(0, i).col - S::a_coord(0, 0).col);
            const tcore::coord rc = S::a_coord(lane, i);
            if (R::a_lane_offset(lane) + d != rc.row * LDA + rc.col) ++bad;
        }
        for (int i = 0; i < S::b_count; ++i) {
            const int d = (S::b_coord(0, i).row - S::b_coord(0, 0).row) * LDB + (S::b_coord(0, i).col - S::b_coord(0, 0).col);
            const tcore::coord rc = S::b_coord(lane, i);
            if (R::b_lane_offset(lane) + d != rc.row * LDB + rc.col) ++bad;
        }
    }
    t.check(bad == 0, "element-wise fragment reads %s: %d misplaced", name, bad);
}

/// Bank conflicts of the element-wise fragment reads, per element index:
/// 8-byte loads are served a half-warp at a time (conflict-free iff the 16
/// lanes' double indices differ mod 16), 4-byte loads a warp at a time
/// (word indices distinct mod 32).
template <class S, int LDA, int LDB>
void check_banks(tally& t, const char* name)
{
    constexpr int bytes = sizeof(typename S::a_type);
    constexpr int group = bytes == 8 ? 16 : 32, slots = bytes == 8 ? 16 : 32;
    int conflicts = 0;
    auto count = [&](auto offset_of, int elems) {
        for (int i = 0; i < elems; ++i)
            for (int base = 0; base < 32; base += group) {
                std::set<int> used;
                for (int lane = base; lane < base + group; ++lane) used.insert(offset_of(lane, i) % slots);
                conflicts += static_cast<int>(used.size()) != group;
            }
    };
    count([](int lane, int i) { return S::a_coord(lane, i).row * LDA + S::a_coord(lane, i).col; }, S::a_count);
    count([](int lane, int i) { return S::b_coord(lane, i).row * LDB + S::b_coord(lane, i).col; }, S::b_count);
    t.check(conflicts == 0, "bank conflicts in element-wise %s fragment reads (strides %d, %d): %d", name, LDA, LDB,
            conflicts);
}

/// ldmatrix: each 8-lane phase reads 8 rows of 16 bytes, conflict-free iff
/// they fall in 8 distinct 16-byte bank groups (mod 128 bytes).
template <class Addr>
int ldsm_conflicts(Addr addr, int elem_bytes)
{
    int conflicts = 0;
    for (int m = 0; m < 4; ++m) {
        std::set<int> groups;
        for (int r = 0; r < 8; ++r) groups.insert((addr(8 * m + r) * elem_bytes / 16) % 8);
        conflicts += groups.size() != 8;
    }
    return conflicts;
}

void check_ldsm_banks(tally& t)
{
    using RT = gm::impl::frag_reader<tcore::tf32_m16n8k8, gm::tf32_config::lda, gm::tf32_config::ldb, true>;
    using RH = gm::impl::frag_reader<tcore::f16_m16n8k16_f32acc, gm::f16_config::lda, gm::f16_config::ldb, true>;
    const int tf32_a = ldsm_conflicts(RT::a_lane_offset, 4);
    const int f16_a = ldsm_conflicts(RH::a_lane_offset, 2), f16_b = ldsm_conflicts(RH::b_lane_offset, 2);
    t.check(tf32_a == 0 && f16_a == 0 && f16_b == 0,
            "ldmatrix bank conflicts: tf32 A %d, f16 A %d, f16 B %d (phases with a repeated 16-byte group)", tf32_a,
            f16_a, f16_b);
}

// -- tile order ----------------------------------------------------------------

void check_tile_order(tally& t)
{
    const int grids[][2] = {{1, 1}, {1, 7}, {7, 1}, {8, 8}, {9, 5}, {17, 3}, {32, 32}, {64, 32}, {13, 40}};
    for (const auto& gsz : grids) {
        const int tm_n = gsz[0], tn_n = gsz[1];
        std::vector<int> seen(static_cast<std::size_t>(tm_n) * tn_n, 0);
        int outside = 0;
        for (int pid = 0; pid < tm_n * tn_n; ++pid) {
            int tm = -1, tn = -1;
            gm::tile_of(pid, tm_n, tn_n, tm, tn);
            if (tm < 0 || tm >= tm_n || tn < 0 || tn >= tn_n) ++outside;
            else ++seen[static_cast<std::size_t>(tm) * tn_n + tn];
        }
        int wrong = outside;
        for (int s : seen) wrong += s != 1;
        t.check(wrong == 0, "tile_of %dx%d: %d tiles missed, repeated or outside", tm_n, tn_n, wrong);
    }
}

// -- reference ----------------------------------------------------------------

void check_reference(tally& t, rng& r)
{
    const int M = 37, N = 29, K = 51;
    const long long lda = K + 3, ldb = N + 5;
    std::vector<double> a(static_cast<std::size_t>(M) * lda, std::nan("")), b(static_cast<std::size_t>(K) * ldb, std::nan(""));
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) a[static_cast<std::size_t>(i * lda + k)] = r.nonzero(-2, 2);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) b[static_cast<std::size_t>(k * ldb + j)] = r.nonzero(-2, 2);
    std::vector<double> c(static_cast<std::size_t>(M) * N), s(c.size());
    gm::reference_gemm(M, N, K, a.data(), lda, b.data(), ldb, c.data(), s.data());
    const double gamma = K * 0x1p-53 / (1 - K * 0x1p-53);
    int bad = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            long double exact = 0, mag = 0;
            for (int k = 0; k < K; ++k) {
                const long double p = static_cast<long double>(a[static_cast<std::size_t>(i * lda + k)]) *
                                      b[static_cast<std::size_t>(k * ldb + j)];
                exact += p;
                mag += std::fabs(p);
            }
            const std::size_t x = static_cast<std::size_t>(i) * N + j;
            if (std::fabs(static_cast<long double>(c[x]) - exact) > 1.01L * gamma * mag + 1e-300L) ++bad;
            if (std::fabs(static_cast<long double>(s[x]) - mag) > 1e-12L * mag) ++bad;
        }
    t.check(bad == 0, "reference_gemm %dx%dx%d: %d outputs outside gamma_K S", M, N, K, bad);

    const gm::sample_grid g = gm::pick_samples(M, N, 9, 7, 42);
    std::vector<double> cs(g.size()), ss(g.size());
    gm::reference_gemm_sampled(K, a.data(), lda, b.data(), ldb, g, cs.data(), ss.data());
    int bad_s = 0;
    for (std::size_t ri = 0; ri < g.rows.size(); ++ri)
        for (std::size_t ci = 0; ci < g.cols.size(); ++ci) {
            const std::size_t x = static_cast<std::size_t>(g.rows[ri]) * N + g.cols[ci], y = ri * g.cols.size() + ci;
            if (std::fabs(cs[y] - c[x]) > 2.02 * gamma * s[x] || std::fabs(ss[y] - s[x]) > 1e-12 * s[x]) ++bad_s;
        }
    t.check(bad_s == 0, "reference_gemm_sampled: %d of %zu samples differ from the full reference", bad_s, g.size());
    const std::vector<double> gathered = gm::gather_samples(c.data(), N, g);
    int bad_g = 0;
    for (std::size_t ri = 0; ri < g.rows.size(); ++ri)
        for (std::size_t ci = 0; ci < g.cols.size(); ++ci)
            bad_g += gathered[ri * g.cols.size() + ci] != c[static_cast<std::size_t>(g.rows[ri]) * N + g.cols[ci]];
    t.check(bad_g == 0, "gather_samples: %d misplaced", bad_g);
}

void check_samples(tally& t)
{
    for (const int n : {1, 2, 5, 64, 65, 1000, 8192}) {
        for (const int want : {1, 2, 3, 64}) {
            const gm::sample_grid g = gm::pick_samples(n, n, want, want, 7u + n);
            const std::vector<int>& v = g.rows;
            bool ok = static_cast<int>(v.size()) == (want >= n ? n : std::max(want, 2));
            for (std::size_t i = 1; i < v.size(); ++i) ok = ok && v[i - 1] < v[i];
            ok = ok && !v.empty() && v.front() == 0 && v.back() == n - 1;
            t.check(ok, "pick_samples n=%d want=%d: %zu picked, not distinct/sorted or missing an edge", n, want,
                    v.size());
        }
    }
}

}  // namespace

int main()
{
    tally t;
    rng r(tcore::test::seed());
    check_ldsm_tf32_a(t);
    check_ldsm_f16(t);
    check_elementwise<tcore::f64_m16n8k16, gm::f64_config::lda, gm::f64_config::ldb>(t, "f64 m16n8k16");
    check_elementwise<tcore::f64_m16n8k4, gm::f64_config::lda, gm::f64_config::ldb>(t, "f64 m16n8k4");
    check_elementwise<tcore::f64_m8n8k4, gm::f64_config::lda, gm::f64_config::ldb>(t, "f64 m8n8k4");
    check_elementwise<tcore::tf32_m16n8k8, gm::tf32_config::lda, gm::tf32_config::ldb>(t, "tf32 m16n8k8");
    check_banks<tcore::f64_m16n8k16, gm::f64_config::lda, gm::f64_config::ldb>(t, "f64 m16n8k16");
    check_banks<tcore::f64_m16n8k4, gm::f64_config::lda, gm::f64_config::ldb>(t, "f64 m16n8k4");
    check_banks<tcore::f64_m8n8k4, gm::f64_config::lda, gm::f64_config::ldb>(t, "f64 m8n8k4");
    check_banks<tcore::tf32_m16n8k8, gm::tf32_config::lda, gm::tf32_config::ldb>(t, "tf32 m16n8k8 (tc-tf32 B)");
    check_banks<tcore::tf32_m16n8k8, 32 + 4, 64 + 8>(t, "tf32 m16n8k8 (tc-tf32-tutorial)");
    check_ldsm_banks(t);
    check_tile_order(t);
    check_reference(t, r);
    check_samples(t);
    return t.finish();
}
