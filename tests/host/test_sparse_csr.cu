// tests/host/test_sparse_csr.cu - host CSR utilities and the matrix
// generators (tcore/sparse/csr.hpp, tcore/sparse/generate.hpp), on the CPU.
//
// CSR: from_triplets (sorting, duplicates summed in order, zeros kept,
// range errors), validate's messages for every kind of malformed matrix,
// transpose (an involution), drop_zeros, and the SpMV / SpGEMM references
// against dense products on random matrices with empty rows and odd shapes.
// Generators: every class at ~1e5 entries (the smallest benchmark size) and
// the conf5_4-8x8-10 geometry: sorted unique columns, size near the target,
// the row-length statistics and block structure each class promises,
// determinism (same seed, same matrix; another seed, other values).
#include "common/test_util.hpp"

#include <tcore/sparse/csr.hpp>
#include <tcore/sparse/generate.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace tcore;
using tcore::test::tally;

namespace {

tally t;

/// Expects f() to throw tcore::error containing `needle` (tally::expect_error).
template <class F>
void expect_error(F&& f, const char* needle, const char* what)
{
    t.expect_error(what, std::forward<F>(f), needle);
}

std::vector<double> dense(const sparse::csr& a)
{
    std::vector<double> d(static_cast<std::size_t>(a.rows) * a.cols, 0.0);
    for (int r = 0; r < a.rows; ++r)
        for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) d[static_cast<std::size_t>(r) * a.cols + a.col_idx[p]] += a.values[p];
    return d;
}

void triplets_and_validate()
{
    const sparse::csr a = sparse::from_triplets(
        3, 4, {{2, 3, 1.0}, {0, 2, 2.0}, {0, 0, 3.0}, {2, 3, 0.5}, {1, 1, 0.0}, {0, 2, -2.0}, {2, 0, 4.0}});
    t.check(a.row_ptr == std::vector<int>({0, 2, 3, 5}), "from_triplets: row_ptr");
    t.check(a.col_idx == std::vector<int>({0, 2, 1, 0, 3}), "from_triplets: sorted columns, duplicates merged");
    t.check(a.values == std::vector<double>({3.0, 0.0, 0.0, 4.0, 1.5}), "from_triplets: duplicates summed, zeros kept");
    expect_error([] { sparse::from_triplets(2, 2, {{0, 2, 1.0}}); }, "outside the 2 x 2", "from_triplets range");

    auto bad = a;
    bad.col_idx[1] = 0;  // row 0: 0, 0
    expect_error([&] { sparse::validate(bad, "v"); }, "duplicate column index 0 in row 0", "duplicate");
    bad = a;
    std::swap(bad.col_idx[3], bad.col_idx[4]);
    expect_error([&] { sparse::validate(bad, "v"); }, "not sorted", "unsorted");
    sparse::validate(bad, "v", false);  // allowed when order does not matter
    t.check(!sparse::is_sorted_unique(bad), "is_sorted_unique on unsorted");
    bad = a;
    bad.col_idx[2] = 4;
    expect_error([&] { sparse::validate(bad, "v"); }, "column index 4 out of range", "column range");
    bad = a;
    bad.row_ptr[1] = 4;
    expect_error([&] { sparse::validate(bad, "v", false); }, "row_ptr decreases at row 1", "row_ptr order");
    bad = a;
    bad.row_ptr.pop_back();
    expect_error([&] { sparse::validate(bad, "v"); }, "expected rows + 1", "row_ptr size");
    bad = a;
    bad.values.pop_back();
    expect_error([&] { sparse::validate(bad, "v"); }, "values has", "values size");
    bad = a;
    bad.row_ptr[3] = 4;
    expect_error([&] { sparse::validate(bad, "v"); }, "row_ptr[rows]", "row_ptr end");
    bad = a;
    bad.rows = -1;
    expect_error([&] { sparse::validate(bad, "v"); }, "negative dimensions", "negative rows");

    const sparse::csr z = sparse::drop_zeros(a);
    t.check(z.nnz() == 3 && z.row_length(1) == 0, "drop_zeros");

    // Column ranges: three panels hold every entry once, in row order.
    const sparse::csr r = sparse::gen::random_rows(40, 31, 0, 20, 9);
    const int cuts[] = {0, 10, 21, 31};
    std::vector<sparse::csr> panels;
    for (int p = 0; p < 3; ++p) panels.push_back(sparse::column_range(r, cuts[p], cuts[p + 1]));
    bool ranges_ok = true;
    for (int row = 0; row < r.rows; ++row) {
        std::vector<std::pair<int, double>> joined;
        for (int p = 0; p < 3; ++p)
            for (int q = panels[p].row_ptr[row]; q < panels[p].row_ptr[row + 1]; ++q) {
                ranges_ok = ranges_ok && panels[p].col_idx[q] >= cuts[p] && panels[p].col_idx[q] < cuts[p + 1];
                joined.emplace_back(panels[p].col_idx[q], panels[p].values[q]);
            }
        ranges_ok = ranges_ok && static_cast<int>(joined.size()) == r.row_length(row);
        for (std::size_t i = 0; ranges_ok && i < joined.size(); ++i)
            ranges_ok = joined[i].first == r.col_idx[r.row_ptr[row] + i] && joined[i].second == r.values[r.row_ptr[row] + i];
    }
    t.check(ranges_ok && panels[0].cols == r.cols && panels[2].rows == r.rows, "column_range: panels partition the entries");
    expect_error([&] { sparse::column_range(r, 5, 32); }, "are not within", "column_range past cols");
    expect_error([&] { sparse::column_range(r, 6, 5); }, "are not within", "column_range reversed");
}

void references()
{
    tcore::test::rng rng(tcore::test::seed());
    const int shapes[][3] = {{1, 1, 1}, {7, 13, 5}, {33, 1, 17}, {1, 40, 9}, {20, 20, 20}, {0, 5, 3}, {5, 0, 4}};
    for (const auto& s : shapes) {
        const int m = s[0], k = s[1], n = s[2];
        const sparse::csr a = sparse::gen::random_rows(m, k, 0, std::max(1, k / 2), rng.next());
        const sparse::csr b = sparse::gen::random_rows(k, n, 0, n, rng.next());
        sparse::validate(a, "random_rows");
        const sparse::csr at = sparse::transpose(a);
        const sparse::csr att = sparse::transpose(at);
        t.check(sparse::structure_difference(a, att).empty() && a.values == att.values, "transpose twice %dx%d", m, k);
        sparse::validate(at, "transpose");

        std::vector<double> x(static_cast<std::size_t>(k));
        for (double& v : x) v = rng.uniform();
        std::vector<double> y = sparse::spmv_reference(a, x);
        if (m > 0 && tcore::test::planted("nan_result")) y[0] = std::numeric_limits<double>::quiet_NaN();
        const std::vector<double> da = dense(a);
        double worst = 0;
        for (int r = 0; r < m; ++r) {
            double sum = 0;
            for (int c = 0; c < k; ++c) sum += da[static_cast<std::size_t>(r) * k + c] * x[c];
            worst = tcore::test::worst_of(worst, std::fabs(sum - y[r]));
        }
        t.check(worst < 1e-12, "spmv_reference %dx%d: error %g", m, k, worst);

        const sparse::csr c = sparse::spgemm_reference(a, b);
        sparse::validate(c, "spgemm_reference");
        const std::vector<double> db = dense(b), dc = dense(c);
        bool structure_ok = true;
        double err = 0;
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                bool any = false;
                double sum = 0;
                for (int q = a.row_ptr[i]; q < a.row_ptr[i + 1]; ++q) {
                    const int kk = a.col_idx[q];
                    for (int p = b.row_ptr[kk]; p < b.row_ptr[kk + 1]; ++p)
                        if (b.col_idx[p] == j) {
                            any = true;
                            sum += a.values[q] * b.values[p];
                        }
                }
                bool in_c = false;
                for (int p = c.row_ptr[i]; p < c.row_ptr[i + 1]; ++p) in_c = in_c || c.col_idx[p] == j;
                structure_ok = structure_ok && any == in_c;
                err = tcore::test::worst_of(err, std::fabs(sum - dc[static_cast<std::size_t>(i) * n + j]));
            }
        t.check(structure_ok, "spgemm_reference %dx%dx%d: structural product", m, k, n);
        t.check(err < 1e-12, "spgemm_reference %dx%dx%d: error %g", m, k, n, err);
        const std::vector<long long> counts = sparse::spgemm_row_counts(a, b);
        bool counts_ok = true;
        for (int i = 0; i < m; ++i) counts_ok = counts_ok && counts[i] == c.row_length(i);
        t.check(counts_ok, "spgemm_row_counts");
    }
    const sparse::csr a = sparse::gen::random_rows(3, 4, 1, 2, 1);
    expect_error([&] { sparse::spgemm_reference(a, a); }, "inner dimensions differ", "spgemm dims");
    expect_error([&] { sparse::spmv_reference(a, std::vector<double>(3)); }, "x has 3 entries", "spmv dims");
}

/// True if rows r and r + 1 ... r + n - 1 have the same columns as row r.
bool same_pattern(const sparse::csr& a, int r, int n)
{
    for (int i = 1; i < n; ++i) {
        if (a.row_length(r + i) != a.row_length(r)) return false;
        for (int p = 0; p < a.row_length(r); ++p)
            if (a.col_idx[a.row_ptr[r + i] + p] != a.col_idx[a.row_ptr[r] + p]) return false;
    }
    return true;
}

void generators()
{
    using namespace sparse::gen;
    const long long target = 100000;
    for (const matrix_class c : all_classes()) {
        const sparse::csr a = generate(c, target, 42);
        const char* name = class_name(c);
        bool valid = true;
        try {
            sparse::validate(a, name);
        } catch (const std::exception& e) {
            valid = false;
            t.check(false, "%s: %s", name, e.what());
        }
        if (!valid) continue;
        const sparse::row_stats s = sparse::row_statistics(a);
        std::printf("%-13s %8d rows %9lld nnz  len min %d max %d mean %.2f sd %.2f empty %d\n", name, s.rows, s.nnz,
                    s.min_len, s.max_len, s.mean, s.stddev, s.empty_rows);
        t.check(s.nnz > target * 0.6 && s.nnz < target * 1.4, "%s: %lld entries for a target of %lld", name, s.nnz,
                target);
        t.check(a.rows == a.cols, "%s: square", name);

        const sparse::csr b = generate(c, target, 42);
        t.check(b.col_idx == a.col_idx && b.values == a.values && b.row_ptr == a.row_ptr, "%s: deterministic", name);
        const sparse::csr d = generate(c, target, 43);
        t.check(d.values != a.values, "%s: the seed changes the values", name);

        switch (c) {
        case matrix_class::fem3d: {
            t.check(a.rows % 3 == 0 && s.max_len == 45 && s.min_len >= 3 && s.mean > 30 && s.mean <= 45,
                    "fem3d: 3 unknowns per node, rows of at most 45");
            bool blocks = true;
            for (int r = 0; r < a.rows; r += 3) blocks = blocks && same_pattern(a, r, 3);
            t.check(blocks, "fem3d: the 3 rows of a node share their columns");
            t.check(sparse::structure_difference(a, sparse::transpose(a)).empty(), "fem3d: structurally symmetric");
            t.check(s.stddev > 0.5, "fem3d: row lengths vary (sd %.2f)", s.stddev);
            break;
        }
        case matrix_class::lattice4d:
            t.check(a.rows % 12 == 0 && s.min_len == 39 && s.max_len == 39, "lattice4d: 39 entries in every row");
            break;
        case matrix_class::dense_blocks: {
            t.check(a.rows % 8 == 0 && s.max_len <= 72 && s.max_len % 8 == 0 && s.mean > 50,
                    "dense_blocks: 8x8 blocks, rows of at most 72");
            bool blocks = true;
            for (int r = 0; r < a.rows && blocks; r += 8) {
                blocks = same_pattern(a, r, 8) && a.row_length(r) % 8 == 0;
                for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1] && blocks; p += 8)
                    blocks = a.col_idx[p] % 8 == 0 && a.col_idx[p + 7] == a.col_idx[p] + 7;
            }
            t.check(blocks, "dense_blocks: every row holds whole aligned 8-column blocks, 8 rows alike");
            break;
        }
        case matrix_class::banded: {
            t.check(s.min_len >= 1 && s.max_len <= 9 && s.mean > 6.5 && s.mean < 8.5,
                    "banded: 1 to 9 entries, mean near 7.8");
            bool in_band = true;
            for (int r = 0; r < a.rows; ++r)
                for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) in_band = in_band && std::abs(a.col_idx[p] - r) <= 128;
            t.check(in_band, "banded: all entries within 2w = 128 of the diagonal");
            int shorts = 0;
            for (int r = 0; r < a.rows; ++r) shorts += a.row_length(r) <= 4;
            t.check(shorts > 0 && shorts < a.rows / 2, "banded: some short rows (%d)", shorts);
            break;
        }
        case matrix_class::power_law: {
            int longs = 0, big = 0;
            for (int r = 0; r < a.rows; ++r) {
                longs += a.row_length(r) >= 2000;
                big += a.row_length(r) >= 30;
            }
            t.check(longs >= 4 && longs <= 10, "power_law: %d rows of 2000+ entries (4 planted, a few natural)", longs);
            t.check(big > 0 && s.min_len >= 3, "power_law: a heavy tail (%d rows of 30+), at least 3 per row", big);
            t.check(s.stddev > s.mean, "power_law: spread larger than the mean");
            break;
        }
        }
    }
    // conf5_4-8x8-10's shape.
    const sparse::csr q = lattice4d_grid(8, 8, 8, 8, 7);
    t.check(q.rows == 49152 && q.nnz() == 1916928, "lattice4d 8^4: %d rows, %lld entries", q.rows, q.nnz());
    bool colours = true;
    for (int r = 0; r < q.rows; r += 3) colours = colours && same_pattern(q, r, 3);
    t.check(colours, "lattice4d: the 3 colours of a (site, spin) share their columns");
    expect_error([] { lattice4d_grid(2, 8, 8, 8, 1); }, "at least 3", "lattice4d extent 2");
    expect_error([] { fem3d_grid(0, 1, 1, 1); }, "positive", "fem3d empty grid");
}

}  // namespace

int main()
{
    triplets_and_validate();
    references();
    generators();
    return t.finish();
}
