// tcore/sparse/csr.hpp - host-side CSR matrices: construction from triplets,
// validation with clear messages, transpose, explicit-zero removal, row
// statistics, and the FP64 CPU references of SpMV and SpGEMM the examples and
// tests compare against.
//
// Indices are 32-bit (int) everywhere, as cuSPARSE's CUSPARSE_INDEX_32I:
// rows, columns and nonzeros must each stay below 2^31. Every function that
// takes a matrix from a caller validates it first and throws tcore::error
// naming the function and the first offending row/entry.
#pragma once

#include "../check.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace tcore::sparse {

/// A compressed sparse row matrix (FP64 values unless T says otherwise).
/// row_ptr has rows + 1 entries, row_ptr[0] = 0, row_ptr[rows] = nnz.
template <class T = double>
struct csr_matrix {
    int rows = 0, cols = 0;
    std::vector<int> row_ptr = std::vector<int>(1, 0);
    std::vector<int> col_idx;
    std::vector<T> values;

    long long nnz() const { return static_cast<long long>(col_idx.size()); }
    int row_length(int r) const { return row_ptr[r + 1] - row_ptr[r]; }
};
using csr = csr_matrix<double>;

/// One (row, column, value) entry of a coordinate list.
struct triplet {
    int row, col;
    double value;
};

/// Throws tcore::error("<where>: ...") unless `a` is a well-formed CSR matrix:
/// sizes consistent, row_ptr non-decreasing from 0 to nnz, column indices in
/// [0, cols); with `sorted_unique` also strictly increasing within each row
/// (the form every tcore format converter and cuSPARSE expect).
template <class T>
inline void validate(const csr_matrix<T>& a, const char* where, bool sorted_unique = true)
{
    require(a.rows >= 0 && a.cols >= 0, where,
            "negative dimensions " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
    require(a.row_ptr.size() == static_cast<std::size_t>(a.rows) + 1, where,
            "row_ptr has " + std::to_string(a.row_ptr.size()) + " entries, expected rows + 1 = " +
                std::to_string(static_cast<long long>(a.rows) + 1));
    require(a.col_idx.size() == a.values.size(), where,
            "col_idx has " + std::to_string(a.col_idx.size()) + " entries but values has " +
                std::to_string(a.values.size()));
    require(a.col_idx.size() <= static_cast<std::size_t>(INT_MAX), where,
            "more than 2^31 - 1 nonzeros do not fit 32-bit indices");
    require(a.row_ptr[0] == 0, where, "row_ptr[0] is " + std::to_string(a.row_ptr[0]) + ", expected 0");
    require(a.row_ptr[a.rows] == static_cast<long long>(a.col_idx.size()), where,
            "row_ptr[rows] is " + std::to_string(a.row_ptr[a.rows]) + " but there are " +
                std::to_string(a.col_idx.size()) + " nonzeros");
    for (int r = 0; r < a.rows; ++r) {
        const int begin = a.row_ptr[r], end = a.row_ptr[r + 1];
        // (messages are built only on failure: this loop runs over every nonzero)
        if (begin > end)
            require(false, where,
                    "row_ptr decreases at row " + std::to_string(r) + " (" + std::to_string(begin) + " > " +
                        std::to_string(end) + ")");
        for (int p = begin; p < end; ++p) {
            const int c = a.col_idx[p];
            if (c < 0 || c >= a.cols)
                require(false, where,
                        "column index " + std::to_string(c) + " out of range [0, " + std::to_string(a.cols) +
                            ") in row " + std::to_string(r));
            if (sorted_unique && p > begin && c <= a.col_idx[p - 1]) {
                const int prev = a.col_idx[p - 1];
                require(c != prev, where, "duplicate column index " + std::to_string(c) + " in row " + std::to_string(r));
                require(false, where,
                        "column indices of row " + std::to_string(r) + " are not sorted (" + std::to_string(prev) +
                            " before " + std::to_string(c) + ")");
            }
        }
    }
}

/// True if every row's column indices are strictly increasing (no validation of the rest).
template <class T>
inline bool is_sorted_unique(const csr_matrix<T>& a)
{
    for (int r = 0; r < a.rows; ++r)
        for (int p = a.row_ptr[r] + 1; p < a.row_ptr[r + 1]; ++p)
            if (a.col_idx[p] <= a.col_idx[p - 1]) return false;
    return true;
}

/// Builds a CSR matrix from triplets in any order: rows sorted by column,
/// duplicate (row, col) entries summed in the order they appear. Explicit
/// zeros are kept (they are stored entries). Throws on indices out of range.
inline csr from_triplets(int rows, int cols, const std::vector<triplet>& entries)
{
    const char* where = "tcore::sparse::from_triplets";
    require(rows >= 0 && cols >= 0, where, "negative dimensions");
    require(entries.size() <= static_cast<std::size_t>(INT_MAX), where, "more than 2^31 - 1 entries");
    csr a;
    a.rows = rows;
    a.cols = cols;
    a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const triplet& e = entries[i];
        if (e.row < 0 || e.row >= rows || e.col < 0 || e.col >= cols)
            require(false, where,
                    "entry " + std::to_string(i) + " at (" + std::to_string(e.row) + ", " + std::to_string(e.col) +
                        ") is outside the " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
        ++a.row_ptr[e.row + 1];
    }
    for (int r = 0; r < rows; ++r) a.row_ptr[r + 1] += a.row_ptr[r];
    // Stable counting sort by row: positions keep the input order within a row.
    std::vector<int> order(entries.size());
    {
        std::vector<int> next(a.row_ptr.begin(), a.row_ptr.end() - 1);
        for (std::size_t i = 0; i < entries.size(); ++i) order[next[entries[i].row]++] = static_cast<int>(i);
    }
    std::vector<int> out_ptr(static_cast<std::size_t>(rows) + 1, 0);
    a.col_idx.reserve(entries.size());
    a.values.reserve(entries.size());
    for (int r = 0; r < rows; ++r) {
        const auto first = order.begin() + a.row_ptr[r], last = order.begin() + a.row_ptr[r + 1];
        std::stable_sort(first, last, [&](int x, int y) { return entries[x].col < entries[y].col; });
        for (auto it = first; it != last; ++it) {
            const triplet& e = entries[*it];
            if (static_cast<int>(a.col_idx.size()) > out_ptr[r] && a.col_idx.back() == e.col) {
                a.values.back() += e.value;
            } else {
                a.col_idx.push_back(e.col);
                a.values.push_back(e.value);
            }
        }
        out_ptr[r + 1] = static_cast<int>(a.col_idx.size());
    }
    a.row_ptr = std::move(out_ptr);
    return a;
}

/// A^T (rows sorted by column index whatever the order in A).
inline csr transpose(const csr& a)
{
    validate(a, "tcore::sparse::transpose", false);
    csr t;
    t.rows = a.cols;
    t.cols = a.rows;
    t.row_ptr.assign(static_cast<std::size_t>(a.cols) + 1, 0);
    for (const int c : a.col_idx) ++t.row_ptr[c + 1];
    for (int c = 0; c < a.cols; ++c) t.row_ptr[c + 1] += t.row_ptr[c];
    t.col_idx.resize(a.col_idx.size());
    t.values.resize(a.values.size());
    std::vector<int> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
    for (int r = 0; r < a.rows; ++r)
        for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
            const int q = next[a.col_idx[p]]++;
            t.col_idx[q] = r;
            t.values[q] = a.values[p];
        }
    return t;
}

/// A copy of `a` with only the entries for which keep(column, value) holds.
template <class Keep>
inline csr filter_entries(const csr& a, Keep keep)
{
    csr z;
    z.rows = a.rows;
    z.cols = a.cols;
    z.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
    for (int r = 0; r < a.rows; ++r) {
        for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p)
            if (keep(a.col_idx[p], a.values[p])) {
                z.col_idx.push_back(a.col_idx[p]);
                z.values.push_back(a.values[p]);
            }
        z.row_ptr[r + 1] = static_cast<int>(z.col_idx.size());
    }
    return z;
}

/// A copy of `a` without the entries whose value is exactly zero (+0 or -0).
inline csr drop_zeros(const csr& a)
{
    validate(a, "tcore::sparse::drop_zeros", false);
    return filter_entries(a, [](int, double v) { return v != 0.0; });
}

/// The entries of `a` in columns [c0, c1), same shape (rows x cols, column
/// indices unchanged): one column panel of a panel-wise product.
inline csr column_range(const csr& a, int c0, int c1)
{
    const char* where = "tcore::sparse::column_range";
    validate(a, where, false);
    require(0 <= c0 && c0 <= c1 && c1 <= a.cols, where,
            "columns [" + std::to_string(c0) + ", " + std::to_string(c1) + ") are not within [0, " +
                std::to_string(a.cols) + ")");
    return filter_entries(a, [c0, c1](int c, double) { return c >= c0 && c < c1; });
}

/// Row-length statistics (the generators' tests and the benchmark notes).
struct row_stats {
    int rows = 0;
    long long nnz = 0;
    int min_len = 0, max_len = 0, empty_rows = 0;
    double mean = 0, stddev = 0;
};

template <class T>
inline row_stats row_statistics(const csr_matrix<T>& a)
{
    row_stats s;
    s.rows = a.rows;
    s.nnz = a.nnz();
    if (a.rows == 0) return s;
    s.min_len = INT_MAX;
    double sum = 0, sum2 = 0;
    for (int r = 0; r < a.rows; ++r) {
        const int len = a.row_length(r);
        s.min_len = std::min(s.min_len, len);
        s.max_len = std::max(s.max_len, len);
        s.empty_rows += len == 0;
        sum += len;
        sum2 += static_cast<double>(len) * len;
    }
    s.mean = sum / a.rows;
    s.stddev = std::sqrt(std::max(0.0, sum2 / a.rows - s.mean * s.mean));
    return s;
}

/// "" if a and b have the same dimensions, row pointers and column indices,
/// else a message naming the first difference.
template <class T>
inline std::string structure_difference(const csr_matrix<T>& a, const csr_matrix<T>& b)
{
    if (a.rows != b.rows || a.cols != b.cols)
        return "dimensions differ: " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " vs " +
               std::to_string(b.rows) + " x " + std::to_string(b.cols);
    for (int r = 0; r < a.rows; ++r) {
        if (a.row_length(r) != b.row_length(r))
            return "row " + std::to_string(r) + " has " + std::to_string(a.row_length(r)) + " vs " +
                   std::to_string(b.row_length(r)) + " entries";
        for (int i = 0; i < a.row_length(r); ++i) {
            const int ca = a.col_idx[a.row_ptr[r] + i], cb = b.col_idx[b.row_ptr[r] + i];
            if (ca != cb)
                return "row " + std::to_string(r) + " entry " + std::to_string(i) + ": column " + std::to_string(ca) +
                       " vs " + std::to_string(cb);
        }
    }
    return "";
}

// -- FP64 CPU references -------------------------------------------------------

/// y = A x in FP64, each row summed in stored order.
inline std::vector<double> spmv_reference(const csr& a, const std::vector<double>& x)
{
    const char* where = "tcore::sparse::spmv_reference";
    validate(a, where, false);
    require(x.size() == static_cast<std::size_t>(a.cols), where,
            "x has " + std::to_string(x.size()) + " entries, A has " + std::to_string(a.cols) + " columns");
    std::vector<double> y(static_cast<std::size_t>(a.rows));
    for (int r = 0; r < a.rows; ++r) {
        double sum = 0;
        for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) sum += a.values[p] * x[a.col_idx[p]];
        y[r] = sum;
    }
    return y;
}

/// The structural product's nonzero count per row of C = A B (no values).
inline std::vector<long long> spgemm_row_counts(const csr& a, const csr& b)
{
    std::vector<long long> counts(static_cast<std::size_t>(a.rows), 0);
    std::vector<int> mark(static_cast<std::size_t>(b.cols), -1);
    for (int r = 0; r < a.rows; ++r) {
        long long n = 0;
        for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
            const int k = a.col_idx[p];
            for (int q = b.row_ptr[k]; q < b.row_ptr[k + 1]; ++q)
                if (mark[b.col_idx[q]] != r) {
                    mark[b.col_idx[q]] = r;
                    ++n;
                }
        }
        counts[r] = n;
    }
    return counts;
}

/// C = A B in FP64 (Gustavson): the structural product (every (i, j) with
/// some A(i,k) and B(k,j) stored, even where the values cancel to zero),
/// rows sorted by column; C(i,j) sums A(i,k) B(k,j) in A's stored order.
inline csr spgemm_reference(const csr& a, const csr& b)
{
    const char* where = "tcore::sparse::spgemm_reference";
    validate(a, where, false);
    validate(b, where, false);
    require(a.cols == b.rows, where,
            "inner dimensions differ: A is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", B is " +
                std::to_string(b.rows) + " x " + std::to_string(b.cols));
    const std::vector<long long> counts = spgemm_row_counts(a, b);
    const long long total = std::accumulate(counts.begin(), counts.end(), 0LL);
    require(total <= INT_MAX, where, "the product has more than 2^31 - 1 nonzeros");
    csr c;
    c.rows = a.rows;
    c.cols = b.cols;
    c.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
    for (int r = 0; r < a.rows; ++r) c.row_ptr[r + 1] = c.row_ptr[r] + static_cast<int>(counts[r]);
    c.col_idx.resize(static_cast<std::size_t>(total));
    c.values.resize(static_cast<std::size_t>(total));
    std::vector<double> acc(static_cast<std::size_t>(b.cols), 0.0);
    std::vector<int> mark(static_cast<std::size_t>(b.cols), -1);
    for (int r = 0; r < a.rows; ++r) {
        int n = c.row_ptr[r];
        for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
            const int k = a.col_idx[p];
            const double av = a.values[p];
            for (int q = b.row_ptr[k]; q < b.row_ptr[k + 1]; ++q) {
                const int j = b.col_idx[q];
                if (mark[j] != r) {
                    mark[j] = r;
                    acc[j] = 0.0;
                    c.col_idx[n++] = j;
                }
                acc[j] += av * b.values[q];
            }
        }
        std::sort(c.col_idx.begin() + c.row_ptr[r], c.col_idx.begin() + c.row_ptr[r + 1]);
        for (int p = c.row_ptr[r]; p < c.row_ptr[r + 1]; ++p) c.values[p] = acc[c.col_idx[p]];
    }
    return c;
}

}  // namespace tcore::sparse
