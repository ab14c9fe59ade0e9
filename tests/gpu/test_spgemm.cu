// libs: CUDA::cusparse
// tests/gpu/test_spgemm.cu - every SpGEMM variant against the FP64 CPU
// reference (tcore::sparse::spgemm_reference, the structural product).
//
// Variants: tc (m8n8k4 tile pairs), cc (cuda_core backend), cce (the
// workload's opponent, examples/spgemm/spgemm_cce.cuh, run by spgemm_with),
// and cuSPARSE SpGEMM. The structure of C must be
// identical to the reference's (explicit zeros kept by both), and also after
// dropping exact zeros from both. Values: entry (i, j) of C is a sum of at
// most len_i = (nonzeros of row i of A) products a_ik b_kj; the tile MMAs
// add the other products of their tiles as exact zeros (x + 0 = x rounds
// nowhere), so the device forms at most len_i rounded products and len_i - 1
// rounded additions in some tree: error <= gamma_len S_ij (gamma_n = n u /
// (1 - n u), u = 2^-53, S_ij = sum_k |a_ik b_kj|); the reference
// (spgemm_reference, double) errs by at most as much: tol = 2 gamma_len S_ij.
// NaN and infinities (a NaN and an Inf among A's values, A A^T): every entry
// the reference makes NaN or +-Inf must come out non-finite (NaN not lost;
// an Inf as the same Inf or as NaN); entries the tile products make NaN
// beyond the reference (0 * NaN inside a tile, undocumented) are counted and
// printed, not failed. Matrices: every shipped matrix (A A, or A A^T when rectangular),
// every generator class (small), and edge cases: empty rows, all empty, one
// row, one column (A A^T and A^T A), rectangular chains (m x k times k x n
// with m, k, n not multiples of 4), a dense row, products whose tiles
// cancel structurally (masks that meet at the tile level but not element-
// wise). Every product is run twice and must give bit-identical values.
// Bad input (mismatched inner dimensions) must throw tcore::error.
// tc-e2e (the benchmark's CSR-in, CSR-out product): A and B converted on the
// device (tcore/sparse/mbsr_convert.cuh), tc's product, C converted back on
// the device: checked like the others and bit for bit against the host
// conversion of the same C. The device converters alone: every test
// matrix and random ones (1x1 to 4099x4097, dimensions not multiples of 4,
// empty rows, an all-empty matrix, 0x0), outputs allocated from a pool
// filled with NaN beforehand, compared element by element with
// sparse::csr_to_mbsr / mbsr_to_csr (tile_row too), and the round trip.
// The warp building blocks spgemm_pair_mma and spgemm_store_tile are also
// run in a kernel of their own (tc and cc): one warp per C tile sums 1 to
// 7 random tile products (odd counts leave the second half of the last MMA
// empty), C poisoned before the run, every element within 2 gamma_{4c+1}
// sum |a b| (gamma_n = n u / (1 - n u)) of the FP64 reference.
// Test matrices come from tests/data/matrices (bcsstk13 and cryg2500 from
// ../shared/data/matrices, reported SKIPPED where missing).
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): nan_result (an
// entry made NaN), drop_term (an entry lacks one product), zero_checks,
// device_error.
#include "common/test_util.hpp"
#include "examples/spgemm/spgemm_cce.cuh"

#include "examples/spmv/cusparse_baseline.cuh"

#include <tcore/io/matrix_market.hpp>
#include <tcore/patterns/device/spgemm.cuh>
#include <tcore/sparse/generate.hpp>
#include <tcore/sparse/mbsr.hpp>
#include <tcore/sparse/mbsr_convert.cuh>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace tcore;
using tcore::test::tally;
namespace base = tcore::examples::sparse_base;

namespace {

tally t;

struct product {
    std::string name;
    sparse::csr a, b;
    bool special = false;  // NaN / Inf values: only the propagation is checked
};

sparse::csr sorted_rows(sparse::csr c)
{
    for (int r = 0; r < c.rows; ++r) {
        std::vector<std::pair<int, double>> e;
        for (int p = c.row_ptr[r]; p < c.row_ptr[r + 1]; ++p) e.push_back({c.col_idx[p], c.values[p]});
        std::sort(e.begin(), e.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (int p = c.row_ptr[r], i = 0; p < c.row_ptr[r + 1]; ++p, ++i) c.col_idx[p] = e[i].first, c.values[p] = e[i].second;
    }
    return c;
}

/// |A| |B| on the reference's structure: the scale of each entry's rounding error.
sparse::csr magnitude(const sparse::csr& a, const sparse::csr& b)
{
    sparse::csr aa = a, bb = b;
    for (double& v : aa.values) v = std::fabs(v);
    for (double& v : bb.values) v = std::fabs(v);
    return sparse::spgemm_reference(aa, bb);
}

/// The product a_ik b_kj of the first entry of A with a partner in B, and
/// the entry (i, j) of C it belongs to: what the drop_term plant removes.
struct term {
    int row = -1, col = -1;
    double value = 0;
};
term first_term(const product& pr)
{
    for (int i = 0; i < pr.a.rows; ++i)
        for (int p = pr.a.row_ptr[i]; p < pr.a.row_ptr[i + 1]; ++p) {
            const int k = pr.a.col_idx[p];
            if (pr.b.row_length(k) > 0 && pr.a.values[p] != 0 && pr.b.values[pr.b.row_ptr[k]] != 0)
                return {i, pr.b.col_idx[pr.b.row_ptr[k]], pr.a.values[p] * pr.b.values[pr.b.row_ptr[k]]};
        }
    return {};
}

/// Tolerance of entry i (in row r) of C: 2 gamma_{len_r} S (see the header).
double entry_tol(const std::vector<int>& a_len, int r, double mag)
{
    return 2.0 * tcore::test::gamma(a_len[static_cast<std::size_t>(r)], DBL_EPSILON / 2) * mag;
}

/// NaN / Inf products: every non-finite reference entry must be non-finite
/// (an Inf the same Inf, or NaN); finite ones that came out non-finite are
/// counted and printed.
void compare_special(const std::string& what, const sparse::csr& got, const sparse::csr& ref)
{
    int lost = 0, spread = 0, nonfinite = 0;
    for (std::size_t i = 0; i < ref.values.size(); ++i) {
        const double g = got.values[i], w = ref.values[i];
        if (std::isfinite(w)) {
            spread += !std::isfinite(g);
            continue;
        }
        ++nonfinite;
        const bool ok = std::isnan(w) ? std::isnan(g) : (g == w || std::isnan(g));
        if (!ok && ++lost <= 3) std::printf("  entry %zu: got %g, reference %g\n", i, g, w);
    }
    t.check(nonfinite > 0 && lost == 0, "%s: %d of %d non-finite reference entries came out finite", what.c_str(),
            lost, nonfinite);
    if (spread) std::printf("  note: %s: %d entries with a finite reference came out non-finite (0 * NaN in a tile)\n",
                            what.c_str(), spread);
}

void compare(const std::string& what, const sparse::csr& got_in, const sparse::csr& ref, const sparse::csr& mag,
             const std::vector<int>& a_len, const term& planted, bool special)
{
    sparse::csr got = sorted_rows(got_in);
    const std::string diff = sparse::structure_difference(got, ref);
    t.check(diff.empty(), "%s: structure differs: %s", what.c_str(), diff.c_str());
    if (!diff.empty()) return;
    if (special) return compare_special(what, got, ref);
    if (planted.row >= 0)
        for (int p = got.row_ptr[planted.row]; p < got.row_ptr[planted.row + 1]; ++p)
            if (got.col_idx[p] == planted.col) {
                if (tcore::test::planted("nan_result")) got.values[p] = std::numeric_limits<double>::quiet_NaN();
                if (tcore::test::planted("drop_term")) got.values[p] -= planted.value;
            }
    std::vector<int> row_of(ref.values.size());
    for (int r = 0; r < ref.rows; ++r)
        for (int p = ref.row_ptr[r]; p < ref.row_ptr[r + 1]; ++p) row_of[static_cast<std::size_t>(p)] = r;
    // Dropping explicit zeros consistently: an entry whose products cancel
    // (|ref| within its rounding bound) may come out as an exact zero in one
    // summation order and as a rounding residue in another, so such entries
    // are dropped from both; every other entry must be non-zero in both or
    // zero in both.
    int zero_mismatch = 0;
    for (std::size_t i = 0; i < ref.values.size(); ++i) {
        const double tol = entry_tol(a_len, row_of[i], mag.values[i]);
        const bool cancels = std::fabs(ref.values[i]) <= tol && std::fabs(got.values[i]) <= tol;
        if (!cancels && ((got.values[i] == 0.0) != (ref.values[i] == 0.0))) ++zero_mismatch;
    }
    t.check(zero_mismatch == 0, "%s: structure without explicit zeros differs in %d entries", what.c_str(),
            zero_mismatch);
    int bad = 0;
    for (std::size_t i = 0; i < ref.values.size(); ++i) {
        const double tol = entry_tol(a_len, row_of[i], mag.values[i]);
        if (!tcore::test::close(got.values[i], ref.values[i], tol) && ++bad <= 3)
            t.check(false, "%s: entry %zu: got %.17g, expected %.17g", what.c_str(), i, got.values[i], ref.values[i]);
    }
    t.check(bad == 0, "%s: %d values wrong", what.c_str(), bad);
}

/// multiply(a, b, stream, stats): the variant's C = A B.
template <class Multiply>
void run_tcore(const char* mode, Multiply multiply, const product& pr, const sparse::csr& ref, const sparse::csr& mag,
               const std::vector<int>& a_len, const term& planted)
{
    const std::string what = pr.name + " [" + mode + "]";
    try {
        const mbsr_device da(sparse::csr_to_mbsr(pr.a), nullptr), db(sparse::csr_to_mbsr(pr.b), nullptr);
        spgemm_stats st;
        const mbsr_device c1 = multiply(da, db, nullptr, &st);
        const sparse::mbsr_matrix h1 = c1.download(nullptr);
        const mbsr_device c2 = multiply(da, db, nullptr, nullptr);
        const sparse::mbsr_matrix h2 = c2.download(nullptr);
        TCORE_CHECK(cudaDeviceSynchronize());
        t.check(h1.tile_val.size() == h2.tile_val.size() &&
                    (h1.tile_val.empty() ||
                     std::memcmp(h1.tile_val.data(), h2.tile_val.data(), h1.tile_val.size() * sizeof(double)) == 0) &&
                    h1.tile_mask == h2.tile_mask && h1.tile_col == h2.tile_col,
                "%s: a second run differs", what.c_str());
        compare(what, sparse::mbsr_to_csr(h1), ref, mag, a_len, planted, pr.special);
    } catch (const std::exception& e) {
        t.check(false, "%s: %s", what.c_str(), e.what());
    }
}

tcore::csr_device_view view_of(const base::device_csr& a)
{
    return {a.rows, a.cols, a.nnz, a.row_ptr.ptr, a.col_idx.ptr, a.values.ptr};
}

/// got and want identical: dimensions, row pointers, columns, values bit for bit.
void same_csr(const std::string& what, const sparse::csr& got, const sparse::csr& want)
{
    const bool same = got.rows == want.rows && got.cols == want.cols && got.row_ptr == want.row_ptr &&
                      got.col_idx == want.col_idx && got.values.size() == want.values.size() &&
                      (want.values.empty() ||
                       std::memcmp(got.values.data(), want.values.data(), want.values.size() * sizeof(double)) == 0);
    t.check(same, "%s: CSR differs (%d x %d, %zu entries; expected %d x %d, %zu)", what.c_str(), got.rows, got.cols,
            got.values.size(), want.rows, want.cols, want.values.size());
}

/// Fills `bytes` of the stream-ordered pool with 0xFF (NaN as doubles) and
/// frees them, so that the next allocations (the converters' outputs) start
/// poisoned: an element they leave unwritten differs from the host result.
/// The pool keeps freed memory (release threshold raised in main).
void poison_pool(std::size_t bytes)
{
    async_array<unsigned char> p(bytes, nullptr);
    if (bytes) TCORE_CHECK(cudaMemsetAsync(p.get(), 0xFF, bytes, nullptr));
    p.reset();
    TCORE_CHECK(cudaStreamSynchronize(nullptr));
}

/// csr_to_mbsr_device and mbsr_to_csr_device against the host converters,
/// element by element, on a poisoned pool.
void device_converters(const std::string& name, const sparse::csr& a)
{
    const std::string what = name + " [device converters]";
    try {
        const base::device_csr da(a);
        const std::size_t guess = 160 * (static_cast<std::size_t>(a.nnz()) + static_cast<std::size_t>(a.rows)) + 4096;  // > 138 bytes a tile, tiles <= nonzeros
        poison_pool(guess);
        const mbsr_device g = csr_to_mbsr_device(view_of(da), nullptr);
        const sparse::mbsr_matrix want = sparse::csr_to_mbsr(a), got = g.download(nullptr);
        const bool same = got.rows == want.rows && got.cols == want.cols && got.block_rows == want.block_rows &&
                          got.block_cols == want.block_cols && got.tile_ptr == want.tile_ptr &&
                          got.tile_col == want.tile_col && got.tile_mask == want.tile_mask &&
                          got.tile_val.size() == want.tile_val.size() &&
                          (want.tile_val.empty() || std::memcmp(got.tile_val.data(), want.tile_val.data(),
                                                                want.tile_val.size() * sizeof(double)) == 0);
        t.check(same, "%s: CSR -> mBSR differs from sparse::csr_to_mbsr (%lld tiles, expected %lld)", what.c_str(),
                got.tiles(), want.tiles());
        std::vector<int> rows(static_cast<std::size_t>(g.tiles));
        if (g.tiles)
            TCORE_CHECK(cudaMemcpy(rows.data(), g.tile_row.get(), rows.size() * sizeof(int), cudaMemcpyDeviceToHost));
        bool rows_ok = true;
        for (int br = 0; br < want.block_rows; ++br)
            for (int p = want.tile_ptr[br]; p < want.tile_ptr[br + 1]; ++p)
                rows_ok = rows_ok && static_cast<std::size_t>(p) < rows.size() && rows[p] == br;
        t.check(rows_ok, "%s: tile_row wrong", what.c_str());
        poison_pool(guess);
        same_csr(what + " mBSR -> CSR", mbsr_to_csr_device(g, nullptr).download(nullptr), sparse::mbsr_to_csr(want));
        same_csr(what + " round trip", sparse::mbsr_to_csr(got), a);
    } catch (const std::exception& e) {
        t.check(false, "%s: %s", what.c_str(), e.what());
    }
}

void test_product(const product& pr)
{
    const sparse::csr ref = sparse::spgemm_reference(pr.a, pr.b);
    const sparse::csr mag = magnitude(pr.a, pr.b);
    std::vector<int> a_len(static_cast<std::size_t>(pr.a.rows));
    for (int r = 0; r < pr.a.rows; ++r) a_len[static_cast<std::size_t>(r)] = pr.a.row_length(r);
    const term planted = first_term(pr);
    run_tcore("tc", [](const auto&... p) { return spgemm<tensor_core>(p...); }, pr, ref, mag, a_len, planted);
    run_tcore("cc", [](const auto&... p) { return spgemm<cuda_core>(p...); }, pr, ref, mag, a_len, planted);
    run_tcore("cce", [](const auto&... p) { return examples::spgemm::spgemm_cce(p...); }, pr, ref, mag, a_len,
              planted);
    try {  // end to end: CSR in and out, both conversions on the device (the benchmark's tc-e2e)
        const base::device_csr da(pr.a), db(pr.b);
        const mbsr_device ga = csr_to_mbsr_device(view_of(da), nullptr), gb = csr_to_mbsr_device(view_of(db), nullptr);
        const mbsr_device c = spgemm<tensor_core>(ga, gb, nullptr);
        const sparse::csr got = mbsr_to_csr_device(c, nullptr).download(nullptr);
        compare(pr.name + " [tc-e2e]", got, ref, mag, a_len, planted, pr.special);
        same_csr(pr.name + " [tc-e2e against the host conversion of C]", got, sparse::mbsr_to_csr(c.download(nullptr)));
    } catch (const std::exception& e) {
        t.check(false, "%s [tc-e2e]: %s", pr.name.c_str(), e.what());
    }
    try {
        const base::device_csr da(pr.a), db(pr.b);
        const base::handle h;
        const base::spgemm_result c = base::spgemm(h, da, db, nullptr);
        TCORE_CHECK(cudaDeviceSynchronize());
        compare(pr.name + " [base]", c.download(nullptr), ref, mag, a_len, planted, pr.special);
    } catch (const std::exception& e) {
        t.check(false, "%s [base]: %s", pr.name.c_str(), e.what());
    }
}

std::vector<product> products(bool quick)
{
    using namespace sparse::gen;
    std::vector<product> ps;
    const char* files[] = {"bcsstk13", "cryg2500", "olm1000", "jagmesh7", "west0067", "lp_afiro", "LFAT5"};
    for (const char* f : files) {
        const std::string path = tcore::test::shipped_matrix(f);
        if (path.empty()) {
            t.skip("matrix %s not found (tests/data/matrices, ../shared/data/matrices)", f);
            continue;
        }
        try {
            const sparse::csr a = io::read_matrix_market(path);
            if (a.rows == a.cols) ps.push_back({std::string(f) + " A*A", a, a});
            else ps.push_back({std::string(f) + " A*A^T", a, sparse::transpose(a)});
        } catch (const std::exception& e) {
            t.check(false, "reading %s: %s", f, e.what());
        }
    }
    for (const matrix_class c : all_classes()) {
        const sparse::csr a = generate(c, quick ? 20000 : 60000, 9);
        ps.push_back({std::string(class_name(c)) + " A*A", a, a});
    }
    auto rr = random_rows;
    ps.push_back({"0x0", sparse::csr{}, sparse::csr{}});
    ps.push_back({"all empty 9x7 * 7x5", rr(9, 7, 0, 0, 1), rr(7, 5, 0, 0, 2)});
    ps.push_back({"empty rows 50x50", rr(50, 50, 0, 3, 3), rr(50, 50, 0, 3, 4)});
    {
        const sparse::csr row = rr(1, 203, 0, 150, 5);
        ps.push_back({"one row 1x203 * 203x1 (A A^T)", row, sparse::transpose(row)});
        ps.push_back({"one column 203x1 * 1x203 (A^T A)", sparse::transpose(row), row});
    }
    ps.push_back({"chain 37x53 * 53x29", rr(37, 53, 0, 20, 6), rr(53, 29, 0, 15, 7)});
    ps.push_back({"chain 5x1001 * 1001x3", rr(5, 1001, 0, 900, 8), rr(1001, 3, 0, 3, 9)});
    ps.push_back({"dense row 1x997 * 997x997", rr(1, 997, 997, 997, 10), rr(997, 997, 0, 5, 11)});
    {
        // Tiles that meet but whose masks do not: A has only column 0 of each
        // tile, B only row 1 of each tile: every tile pair multiplies to nothing.
        sparse::csr a, b;
        a.rows = b.rows = a.cols = b.cols = 16;
        for (int r = 0; r < 16; ++r) {
            for (int c = 0; c < 16; c += 4) {
                a.col_idx.push_back(c);
                a.values.push_back(1.0 + r + c);
            }
            a.row_ptr.push_back(static_cast<int>(a.col_idx.size()));
            if (r % 4 == 1)
                for (int c = 0; c < 16; ++c) {
                    b.col_idx.push_back(c);
                    b.values.push_back(2.0 - c);
                }
            b.row_ptr.push_back(static_cast<int>(b.col_idx.size()));
        }
        ps.push_back({"empty element product", a, b});
        // explicit zeros and cancellation
        sparse::csr z = rr(40, 40, 1, 6, 12);
        for (std::size_t i = 0; i < z.values.size(); i += 3) z.values[i] = 0.0;
        ps.push_back({"explicit zeros 40x40", z, z});
        // A NaN and an Inf among the values (A A^T).
        sparse::csr s = rr(60, 45, 1, 9, 13);
        s.values[s.values.size() / 3] = std::numeric_limits<double>::quiet_NaN();
        s.values[2 * s.values.size() / 3] = std::numeric_limits<double>::infinity();
        ps.push_back({"NaN and Inf 60x45 (A A^T)", s, sparse::transpose(s), true});
    }
    return ps;
}

/// C tile t = sum of the tile products first[t] .. first[t + 1] - 1 of
/// (a_idx, b_idx), two per MMA: spgemm_pair_mma, then spgemm_store_tile.
template <class Backend>
__global__ void pair_tiles(int tiles, const int* first, const int* a_idx, const int* b_idx, const double* a_val,
                           const double* b_val, double* c_val)
{
    const int tile = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    if (tile >= tiles) return;  // whole warps
    const int lane = lane_id();
    frag_c<f64_m8n8k4> acc;
    fill(acc, 0.0);
    for (int p = first[tile]; p < first[tile + 1]; p += 2) {
        const bool two = p + 1 < first[tile + 1];
        spgemm_pair_mma<Backend>(acc, a_val, b_val, a_idx[p], b_idx[p], two ? a_idx[p + 1] : 0,
                                 two ? b_idx[p + 1] : 0, two, lane);
    }
    spgemm_store_tile(c_val + 16LL * tile, acc, lane);
}

template <class Backend>
void tile_pair_blocks(const char* mode)
{
    tcore::test::rng rng(tcore::test::seed());
    const int a_tiles = 37, b_tiles = 23, tiles = 101;
    std::vector<double> a_val(16 * a_tiles), b_val(16 * b_tiles);
    for (double& v : a_val) v = rng.nonzero();
    for (double& v : b_val) v = rng.nonzero();
    std::vector<int> first(1, 0), a_idx, b_idx;
    for (int c = 0; c < tiles; ++c) {
        const int count = 1 + static_cast<int>(rng.next() % 7);
        for (int k = 0; k < count; ++k) {
            a_idx.push_back(static_cast<int>(rng.next() % a_tiles));
            b_idx.push_back(static_cast<int>(rng.next() % b_tiles));
        }
        first.push_back(static_cast<int>(a_idx.size()));
    }
    tcore::test::device_buffer<double> da(a_val.size()), db(b_val.size()), dc(16 * static_cast<std::size_t>(tiles));
    tcore::test::device_buffer<int> df(first.size()), dai(a_idx.size()), dbi(b_idx.size());
    da.upload(a_val);
    db.upload(b_val);
    df.upload(first);
    dai.upload(a_idx);
    dbi.upload(b_idx);
    dc.poison();
    pair_tiles<Backend><<<(tiles + 3) / 4, 128>>>(tiles, df.ptr, dai.ptr, dbi.ptr, da.ptr, db.ptr, dc.ptr);
    TCORE_CHECK(cudaGetLastError());
    const std::vector<double> c = dc.download();
    constexpr long double u = 0x1p-53L;
    int bad = 0;
    for (int tile = 0; tile < tiles; ++tile)
        for (int e = 0; e < 16; ++e) {
            const int r = e / 4, col = e % 4;
            double ref = 0.0;
            long double mag = 0.0L;
            for (int p = first[tile]; p < first[tile + 1]; ++p)
                for (int k = 0; k < 4; ++k) {
                    const double x = a_val[16 * a_idx[p] + 4 * r + k], y = b_val[16 * b_idx[p] + 4 * k + col];
                    ref = std::fma(x, y, ref);
                    mag += std::fabs(static_cast<long double>(x) * y);
                }
            const long double n = 4.0L * (first[tile + 1] - first[tile]) + 1;
            const long double tol = 2.0L * n * u / (1.0L - n * u) * mag;
            const double got = c[16 * static_cast<std::size_t>(tile) + e];
            if (!(std::fabs(static_cast<long double>(got) - ref) <= tol) && ++bad <= 3)
                t.check(false, "spgemm_pair_mma %s: tile %d element %d got %.17g expected %.17g", mode, tile, e, got,
                        ref);
        }
    t.check(bad == 0, "spgemm_pair_mma + spgemm_store_tile %s: %d elements out of bound", mode, bad);
}

void bad_arguments()
{
    const mbsr_device a(sparse::csr_to_mbsr(sparse::gen::random_rows(8, 9, 1, 3, 1)), nullptr);
    try {
        spgemm<tensor_core>(a, a, nullptr);
        t.check(false, "inner dimensions: no error");
    } catch (const tcore::error& e) {
        t.check(std::string(e.what()).find("inner dimensions differ") != std::string::npos, "inner dimensions: %s",
                e.what());
    }
    TCORE_CHECK(cudaDeviceSynchronize());
}

}  // namespace

int main()
{
    tcore::test::require_gpu_or_skip();
    const bool quick = tcore::test::quick();
    {  // keep freed pool memory (poison_pool relies on it)
        int dev = 0;
        TCORE_CHECK(cudaGetDevice(&dev));
        cudaMemPool_t pool;
        TCORE_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
        std::uint64_t keep = UINT64_MAX;
        TCORE_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    for (const product& p : products(quick)) {
        device_converters(p.name + " A", p.a);
        test_product(p);
    }
    {  // random matrices, sizes not multiples of the 4x4 tile
        using sparse::gen::random_rows;
        const int shapes[][4] = {{1, 1, 1, 1},     {3, 5, 0, 5},       {5, 3, 1, 3},     {7, 2, 0, 2},
                                 {37, 41, 0, 41},  {101, 13, 0, 9},    {13, 1001, 0, 300}, {1001, 333, 0, 12},
                                 {2051, 2049, 1, 40}, {4099, 4097, 0, 4}, {999, 998, 0, 0}};
        std::uint64_t seed = 100;
        for (const auto& sh : shapes)
            device_converters("random " + std::to_string(sh[0]) + "x" + std::to_string(sh[1]) + " rows of " +
                                  std::to_string(sh[2]) + "-" + std::to_string(sh[3]),
                              random_rows(sh[0], sh[1], sh[2], sh[3], seed++));
        device_converters("0x0", sparse::csr{});
    }
    bad_arguments();
    tile_pair_blocks<tensor_core>("tc");
    tile_pair_blocks<cuda_core>("cc");
    return t.finish();
}
