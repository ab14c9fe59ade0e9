// examples/multi_gpu/spmv_mgpu_split.hpp - the host side of the row-split
// multi-GPU SpMV: contiguous row ranges with about nnz / N entries each, the
// pieces of x each rank owns, the part of A a rank multiplies (its rows, all
// columns), the column map onto the gathered x, and the count of remote
// columns a halo exchange would have to send instead of the whole x.
//
// Layout of the gathered x on every GPU (x_layout):
//   allgather  pieces padded to the longest piece L: piece p at p * L, so one
//              ncclAllGather of L doubles per rank fills it; a part's column
//              c of piece p is stored as p * L + (c - col_begin[p]).
//   broadcast  x as it is (length cols, column indices unchanged); piece p
//              arrives by ncclBroadcast from rank p (one per piece, grouped).
#pragma once

#include <tcore/check.cuh>
#include <tcore/sparse/csr.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace tcore::mgpu {

/// How x is gathered (see the file comment).
enum class x_gather { allgather, broadcast };

inline const char* gather_name(x_gather g) { return g == x_gather::allgather ? "allgather" : "broadcast"; }

/// Rows and x entries per rank: rank p owns rows [row_begin[p], row_begin[p+1])
/// and x entries [col_begin[p], col_begin[p+1]).
struct row_split {
    std::vector<int> row_begin, col_begin;
    int parts() const { return static_cast<int>(row_begin.size()) - 1; }
    int rows_of(int p) const { return row_begin[p + 1] - row_begin[p]; }
    int piece_of(int p) const { return col_begin[p + 1] - col_begin[p]; }
    int longest_piece() const
    {
        int l = 0;
        for (int p = 0; p < parts(); ++p) l = std::max(l, piece_of(p));
        return l;
    }
    /// Doubles of the gathered x on every GPU.
    long long x_length(x_gather g) const
    {
        return g == x_gather::allgather ? static_cast<long long>(parts()) * longest_piece() : col_begin.back();
    }
};

/// Splits `a` into `parts` contiguous row ranges of about nnz / parts entries
/// each: boundary p is the first row that starts at or after entry
/// p * nnz / parts, so a part holds at most nnz / parts + (longest row) entries
/// (ranges may be empty where rows are fewer than parts or one row is long).
/// x pieces: the same ranges for a square matrix (x and y distributed alike,
/// as in an iterative solver), else columns split evenly.
inline row_split split_rows_by_nnz(const sparse::csr& a, int parts)
{
    const char* where = "tcore::mgpu::split_rows_by_nnz";
    require(parts >= 1, where, "parts must be at least 1, got " + std::to_string(parts));
    require(a.row_ptr.size() == static_cast<std::size_t>(a.rows) + 1, where, "row_ptr has not rows + 1 entries");
    row_split s;
    s.row_begin.assign(static_cast<std::size_t>(parts) + 1, 0);
    s.col_begin.assign(static_cast<std::size_t>(parts) + 1, 0);
    const long long nnz = a.nnz();
    for (int p = 1; p < parts; ++p) {
        const long long target = nnz * p / parts;
        const int r = static_cast<int>(std::lower_bound(a.row_ptr.begin(), a.row_ptr.end(), target) - a.row_ptr.begin());
        s.row_begin[p] = std::clamp(r, s.row_begin[p - 1], a.rows);
    }
    s.row_begin[parts] = a.rows;
    for (int p = 0; p <= parts; ++p)
        s.col_begin[p] = a.rows == a.cols ? s.row_begin[p]
                                          : static_cast<int>(static_cast<long long>(a.cols) * p / parts);
    return s;
}

/// Throws unless `s` splits the rows and columns of a rows x cols matrix into
/// `s.parts()` contiguous ranges in order.
inline void validate_split(const row_split& s, int rows, int cols, const char* where)
{
    require(s.row_begin.size() >= 2 && s.col_begin.size() == s.row_begin.size(), where,
            "row_begin and col_begin need parts + 1 entries each (parts >= 1)");
    require(s.row_begin.front() == 0 && s.row_begin.back() == rows, where,
            "row ranges must cover rows 0 to " + std::to_string(rows));
    require(s.col_begin.front() == 0 && s.col_begin.back() == cols, where,
            "x pieces must cover columns 0 to " + std::to_string(cols));
    for (int p = 0; p < s.parts(); ++p)
        require(s.row_begin[p] <= s.row_begin[p + 1] && s.col_begin[p] <= s.col_begin[p + 1], where,
                "range " + std::to_string(p) + " runs backwards");
}

/// Rows [r0, r1) of `a` as a matrix of r1 - r0 rows and a.cols columns
/// (column indices unchanged).
inline sparse::csr row_block(const sparse::csr& a, int r0, int r1)
{
    require(0 <= r0 && r0 <= r1 && r1 <= a.rows, "tcore::mgpu::row_block",
            "rows [" + std::to_string(r0) + ", " + std::to_string(r1) + ") are not within [0, " +
                std::to_string(a.rows) + ")");
    sparse::csr b;
    b.rows = r1 - r0;
    b.cols = a.cols;
    const int e0 = a.row_ptr[r0], e1 = a.row_ptr[r1];
    b.row_ptr.resize(static_cast<std::size_t>(b.rows) + 1);
    for (int r = 0; r <= b.rows; ++r) b.row_ptr[r] = a.row_ptr[r0 + r] - e0;
    b.col_idx.assign(a.col_idx.begin() + e0, a.col_idx.begin() + e1);
    b.values.assign(a.values.begin() + e0, a.values.begin() + e1);
    return b;
}

/// `part` (columns of the original matrix) with its columns moved to their
/// places in the gathered x of layout `g` (monotone: rows stay sorted).
inline void map_columns(sparse::csr& part, const row_split& s, x_gather g)
{
    if (g == x_gather::broadcast) return;
    const int L = s.longest_piece();
    for (int& c : part.col_idx) {
        const int p = static_cast<int>(std::upper_bound(s.col_begin.begin(), s.col_begin.end(), c) - s.col_begin.begin()) - 1;
        c = p * L + (c - s.col_begin[p]);
    }
    part.cols = static_cast<int>(s.x_length(g));
}

/// The x entries part p reads from other ranks' pieces (original columns).
struct remote_columns {
    long long distinct = 0;  ///< distinct columns outside piece p
    int source_ranks = 0;    ///< ranks whose pieces they lie in
};

inline remote_columns count_remote_columns(const sparse::csr& part, const row_split& s, int p)
{
    std::vector<char> seen(static_cast<std::size_t>(s.col_begin.back()), 0);
    for (const int c : part.col_idx)
        if (c < s.col_begin[p] || c >= s.col_begin[p + 1]) seen[static_cast<std::size_t>(c)] = 1;
    remote_columns r;
    for (int q = 0; q < s.parts(); ++q) {
        long long n = 0;
        for (int c = s.col_begin[q]; c < s.col_begin[q + 1]; ++c) n += seen[static_cast<std::size_t>(c)];
        r.distinct += n;
        r.source_ranks += n > 0;
    }
    return r;
}

}  // namespace tcore::mgpu
