// tcore/patterns/device/bfs.cuh - host side of the bit-slice BFS of
// patterns/bitbfs.cuh: building the 8x128 slices of an adjacency bitmap from
// CSR (bit_slices, build_slices, slice_meta), their round trip (slice_bit,
// slices_to_csr), and the hybrid's choices made once per graph: the hub
// columns that are sliced (hub_columns), the top-down MMA thresholds per
// column block (top_down_thresholds), the split of long CSR rows
// (split_heavy_rows), the dense first hub block (first_block_bits), each
// row's first neighbours with its degree and resume offset for bottom-up
// steps (build_row_heads, rows_fit_row_info), and the check of a direction
// rule (check_rule). The slice format and the steps that read it are
// described in patterns/bitbfs.cuh. Host code only; nothing here launches:
// the launcher (bit_bfs) is patterns/device/bfs_search.cuh.
#pragma once

#include "../bitbfs.cuh"
#include "../../check.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace tcore::bitbfs {

// -- host: building the slices ------------------------------------------------------

/// The adjacency bitmap of an n-vertex graph in non-empty 8x128 slices.
struct bit_slices {
    int n = 0, row_blocks = 0, col_blocks = 0;
    int columns = 0;                 ///< columns sliced: 0 .. columns - 1 (n unless limited)
    std::vector<long long> row_ptr;  ///< row_blocks + 1: slices of row block R are [row_ptr[R], row_ptr[R+1])
    std::vector<int> slice_col;      ///< column block of each slice (increasing within a row block)
    std::vector<unsigned> bits;      ///< 32 words per slice
    std::vector<long long> col_ptr;  ///< col_blocks + 1: column-ordered slices of column block C
    std::vector<int> col_slice;      ///< slice index (row order) of each column-ordered slice
    std::vector<int> col_row;        ///< its row block
    std::vector<int> chunk_col;      ///< top-down chunks: column block ...
    std::vector<long long> chunk_begin, chunk_end;  ///< ... and column-ordered slice range

    long long slices() const { return static_cast<long long>(slice_col.size()); }
    long long chunks() const { return static_cast<long long>(chunk_col.size()); }
    /// Device bytes of all arrays.
    std::size_t bytes() const
    {
        return row_ptr.size() * 8 + slice_col.size() * 4 + bits.size() * 4 + col_ptr.size() * 8 +
               col_slice.size() * 4 + col_row.size() * 4 + chunk_col.size() * 4 + chunk_begin.size() * 16;
    }
};

/// Slices the adjacency of an n-vertex graph given as CSR (row_ptr: n + 1
/// entries, col: neighbours, any order, duplicates allowed). Row v of the
/// bitmap is the neighbour list of v. Only columns below `columns` are
/// sliced (all n when negative): every row block, ceil(columns / 128)
/// column blocks. Throws tcore::error on bad input.
inline bit_slices build_slices(int n, const long long* row_ptr, const int* col, unsigned threads = 0,
                               int columns = -1)
{
    require(n >= 0, "build_slices", "negative vertex count");
    require(n == 0 || (row_ptr != nullptr && (row_ptr[n] == 0 || col != nullptr)), "build_slices",
            "null CSR arrays");
    require(n < (1 << 30), "build_slices", "at most 2^30 vertices");
    require(columns <= n, "build_slices", "column limit above the vertex count");
    if (columns < 0) columns = n;
    bit_slices s;
    s.n = n;
    s.columns = columns;
    s.row_blocks = (n + slice_rows - 1) / slice_rows;
    s.col_blocks = (columns + slice_cols - 1) / slice_cols;
    if (threads == 0) threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    const int RB = s.row_blocks;
    auto rows_of = [&](int R, int& first, int& last) {
        first = R * slice_rows;
        last = std::min(n, first + slice_rows);
    };
    for (int v = 0; v < n; ++v) {
        if (row_ptr[v] > row_ptr[v + 1]) require(false, "build_slices", "row pointers decrease at row " + std::to_string(v));
        for (long long p = row_ptr[v]; p < row_ptr[v + 1]; ++p)
            if (col[p] < 0 || col[p] >= n)
                require(false, "build_slices", "neighbour " + std::to_string(col[p]) + " of vertex " + std::to_string(v) +
                                                   " out of range");
    }
    // Pass 1: the column blocks of each row block (sorted, unique).
    std::vector<std::vector<int>> blocks(static_cast<std::size_t>(RB));
    auto pass1 = [&](unsigned w) {
        std::vector<int> tmp;
        for (int R = static_cast<int>(w); R < RB; R += static_cast<int>(threads)) {
            int first, last;
            rows_of(R, first, last);
            tmp.clear();
            for (int v = first; v < last; ++v)
                for (long long p = row_ptr[v]; p < row_ptr[v + 1]; ++p)
                    if (col[p] < columns) tmp.push_back(col[p] / slice_cols);
            std::sort(tmp.begin(), tmp.end());
            tmp.erase(std::unique(tmp.begin(), tmp.end()), tmp.end());
            blocks[static_cast<std::size_t>(R)] = tmp;
        }
    };
    {
        std::vector<std::thread> pool;
        for (unsigned w = 0; w < threads; ++w) pool.emplace_back(pass1, w);
        for (std::thread& t : pool) t.join();
    }
    s.row_ptr.assign(static_cast<std::size_t>(RB) + 1, 0);
    for (int R = 0; R < RB; ++R)
        s.row_ptr[static_cast<std::size_t>(R) + 1] = s.row_ptr[static_cast<std::size_t>(R)] + static_cast<long long>(blocks[static_cast<std::size_t>(R)].size());
    const long long S = s.row_ptr[static_cast<std::size_t>(RB)];
    require(S < (1ll << 31), "build_slices", "more than 2^31 slices");
    s.slice_col.resize(static_cast<std::size_t>(S));
    s.bits.assign(static_cast<std::size_t>(S) * slice_words, 0u);
    // Pass 2: set the bits.
    auto pass2 = [&](unsigned w) {
        for (int R = static_cast<int>(w); R < RB; R += static_cast<int>(threads)) {
            std::vector<int>& cbs = blocks[static_cast<std::size_t>(R)];
            const long long base = s.row_ptr[static_cast<std::size_t>(R)];
            std::copy(cbs.begin(), cbs.end(), s.slice_col.begin() + base);
            int first, last;
            rows_of(R, first, last);
            for (int v = first; v < last; ++v) {
                const int r = v - first;
                for (long long p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
                    const int c = col[p];
                    if (c >= columns) continue;
                    const long long k = base + (std::lower_bound(cbs.begin(), cbs.end(), c / slice_cols) - cbs.begin());
                    const int within = c % slice_cols;
                    s.bits[static_cast<std::size_t>(k * slice_words + 4 * r + within / 32)] |= 1u << (within % 32);
                }
            }
            std::vector<int>().swap(cbs);
        }
    };
    {
        std::vector<std::thread> pool;
        for (unsigned w = 0; w < threads; ++w) pool.emplace_back(pass2, w);
        for (std::thread& t : pool) t.join();
    }
    // Column order (counting sort by column block) and top-down chunks.
    s.col_ptr.assign(static_cast<std::size_t>(s.col_blocks) + 1, 0);
    for (long long k = 0; k < S; ++k) ++s.col_ptr[static_cast<std::size_t>(s.slice_col[static_cast<std::size_t>(k)]) + 1];
    for (int C = 0; C < s.col_blocks; ++C) s.col_ptr[static_cast<std::size_t>(C) + 1] += s.col_ptr[static_cast<std::size_t>(C)];
    s.col_slice.resize(static_cast<std::size_t>(S));
    s.col_row.resize(static_cast<std::size_t>(S));
    {
        std::vector<long long> fill(s.col_ptr.begin(), s.col_ptr.end() - 1);
        for (int R = 0; R < RB; ++R)
            for (long long k = s.row_ptr[static_cast<std::size_t>(R)]; k < s.row_ptr[static_cast<std::size_t>(R) + 1]; ++k) {
                const long long at = fill[static_cast<std::size_t>(s.slice_col[static_cast<std::size_t>(k)])]++;
                s.col_slice[static_cast<std::size_t>(at)] = static_cast<int>(k);
                s.col_row[static_cast<std::size_t>(at)] = R;
            }
    }
    for (int C = 0; C < s.col_blocks; ++C)
        for (long long b = s.col_ptr[static_cast<std::size_t>(C)]; b < s.col_ptr[static_cast<std::size_t>(C) + 1]; b += chunk_slices) {
            s.chunk_col.push_back(C);
            s.chunk_begin.push_back(b);
            s.chunk_end.push_back(std::min(b + chunk_slices, s.col_ptr[static_cast<std::size_t>(C) + 1]));
        }
    return s;
}

/// Bit (row, col) of the sliced bitmap (binary search over row block row / 8);
/// false for columns that were not sliced.
inline bool slice_bit(const bit_slices& s, int row, int col)
{
    if (col >= s.columns) return false;
    const int R = row / slice_rows, C = col / slice_cols;
    const auto first = s.slice_col.begin() + s.row_ptr[static_cast<std::size_t>(R)];
    const auto last = s.slice_col.begin() + s.row_ptr[static_cast<std::size_t>(R) + 1];
    const auto it = std::lower_bound(first, last, C);
    if (it == last || *it != C) return false;
    const long long k = it - s.slice_col.begin();
    const int r = row % slice_rows, within = col % slice_cols;
    return (s.bits[static_cast<std::size_t>(k * slice_words + 4 * r + within / 32)] >> (within % 32)) & 1u;
}

/// The sliced bitmap back to CSR (sorted neighbour lists; only the sliced
/// columns): the round trip.
inline void slices_to_csr(const bit_slices& s, std::vector<long long>& row_ptr, std::vector<int>& col)
{
    row_ptr.assign(static_cast<std::size_t>(s.n) + 1, 0);
    col.clear();
    for (int v = 0; v < s.n; ++v) {
        const int R = v / slice_rows, r = v % slice_rows;
        for (long long k = s.row_ptr[static_cast<std::size_t>(R)]; k < s.row_ptr[static_cast<std::size_t>(R) + 1]; ++k)
            for (int w = 0; w < 4; ++w) {
                unsigned word = s.bits[static_cast<std::size_t>(k * slice_words + 4 * r + w)];
                while (word) {
                    const int b = __builtin_ctz(word);
                    word &= word - 1;
                    col.push_back(s.slice_col[static_cast<std::size_t>(k)] * slice_cols + 32 * w + b);
                }
            }
        row_ptr[static_cast<std::size_t>(v) + 1] = static_cast<long long>(col.size());
    }
}

/// Per slice, for the device: column block in bits 0-23, and in bits 24-31
/// which of the slice's 8 rows have a bit (bottom-up skips a slice, without
/// reading it, when none of its rows is still looking for a parent).
inline std::vector<unsigned> slice_meta(const bit_slices& s)
{
    require(s.col_blocks < (1 << 24), "slice_meta", "more than 2^24 column blocks");
    std::vector<unsigned> meta(static_cast<std::size_t>(s.slices()));
    for (long long k = 0; k < s.slices(); ++k) {
        unsigned rows = 0;
        for (int r = 0; r < slice_rows; ++r) {
            const unsigned* w = &s.bits[static_cast<std::size_t>(k * slice_words + 4 * r)];
            if (w[0] | w[1] | w[2] | w[3]) rows |= 1u << r;
        }
        meta[static_cast<std::size_t>(k)] = static_cast<unsigned>(s.slice_col[static_cast<std::size_t>(k)]) | (rows << 24);
    }
    return meta;
}

/// The slices of column block 0 (the 128 highest-degree columns of a
/// degree-ordered graph) for every row block, dense: row block R's 32 words
/// at 32 R, zero where it has no such slice. Bottom-up steps read a word's
/// 4 row blocks there straight from its index (no slice range, no
/// metadata). Empty when nothing is sliced.
inline std::vector<unsigned> first_block_bits(const bit_slices& s)
{
    require(s.row_ptr.size() == static_cast<std::size_t>(s.row_blocks) + 1 &&
                s.bits.size() == s.slice_col.size() * slice_words && s.row_ptr.back() == s.slices(),
            "first_block_bits", "malformed slices");
    if (s.columns == 0) return {};
    std::vector<unsigned> dense(static_cast<std::size_t>(s.row_blocks) * slice_words, 0u);
    for (int R = 0; R < s.row_blocks; ++R) {
        const long long k = s.row_ptr[static_cast<std::size_t>(R)];
        if (k < s.row_ptr[static_cast<std::size_t>(R) + 1] && s.slice_col[static_cast<std::size_t>(k)] == 0)
            std::copy_n(&s.bits[static_cast<std::size_t>(k * slice_words)], slice_words,
                        &dense[static_cast<std::size_t>(R) * slice_words]);
    }
    return dense;
}

/// Hub columns of the hybrid BFS: 128 times the number of leading column
/// blocks whose slices hold at least `min_entries_per_slice` entries each on
/// average (a slice costs 128 bytes, a CSR entry 4), at most n. Meant for
/// graphs in decreasing-degree order, where these are the hub columns;
/// the graph must be symmetric (column block C's slices are then the row
/// blocks of its vertices' neighbours). 0 when even the first block is
/// sparser.
inline int hub_columns(int n, const long long* row_ptr, const int* col, double min_entries_per_slice = 8.0)
{
    require(n >= 0 && (n == 0 || row_ptr != nullptr), "hub_columns", "bad CSR");
    require(min_entries_per_slice > 0, "hub_columns", "density threshold must be positive");
    const int row_blocks = (n + slice_rows - 1) / slice_rows;
    const int col_blocks = (n + slice_cols - 1) / slice_cols;
    std::vector<int> stamp(static_cast<std::size_t>(row_blocks), -1);
    int C = 0;
    for (; C < col_blocks; ++C) {
        long long entries = 0, slices = 0;
        for (int u = C * slice_cols; u < std::min(n, (C + 1) * slice_cols); ++u)
            for (long long p = row_ptr[u]; p < row_ptr[u + 1]; ++p) {
                if (col[p] < 0 || col[p] >= n)  // the message is built only for a bad entry
                    require(false, "hub_columns",
                            "neighbour " + std::to_string(col[p]) + " of vertex " + std::to_string(u) +
                                " out of range");
                const int R = col[p] / slice_rows;
                ++entries;
                if (stamp[static_cast<std::size_t>(R)] != C) stamp[static_cast<std::size_t>(R)] = C, ++slices;
            }
        if (slices == 0 || static_cast<double>(entries) < min_entries_per_slice * static_cast<double>(slices)) break;
    }
    return std::min(n, C * slice_cols);
}

/// Top-down: the frontier bits a column block needs before its slices are
/// read (MMA) instead of its frontier vertices' CSR rows. k frontier
/// vertices of block C cost about 4 k entries(C) / cols(C) bytes of CSR
/// and 128 slices(C) bytes of slices, so the MMA pays from
/// k >= ratio * 32 slices(C) cols(C) / entries(C) (ratio 1: equal bytes;
/// 0: always, from one frontier bit). One entry per column block of `s`;
/// row_ptr is the graph's CSR (the degrees). Kronecker hub blocks hold 8-22
/// entries per slice, so they need more frontier bits than the block has:
/// their top-down steps go through CSR, and the slices serve bottom-up.
inline std::vector<int> top_down_thresholds(const bit_slices& s, const long long* row_ptr, double ratio = 1.0)
{
    require(ratio >= 0, "top_down_thresholds", "ratio must be non-negative");
    require(s.n == 0 || row_ptr != nullptr, "top_down_thresholds", "null row pointers");
    std::vector<int> t(static_cast<std::size_t>(s.col_blocks), 1);
    for (int C = 0; C < s.col_blocks; ++C) {
        const int first = C * slice_cols, last = std::min(s.columns, first + slice_cols);
        long long entries = 0;
        for (int u = first; u < last; ++u) entries += row_ptr[u + 1] - row_ptr[u];
        const double slices = static_cast<double>(s.col_ptr[static_cast<std::size_t>(C) + 1] - s.col_ptr[static_cast<std::size_t>(C)]);
        if (entries == 0) continue;
        const double k = std::ceil(ratio * 32.0 * slices * (last - first) / static_cast<double>(entries));
        t[static_cast<std::size_t>(C)] = static_cast<int>(std::max(1.0, std::min(k, 1e9)));
    }
    return t;
}

/// Bottom-up's first look at each row beyond column min_col (the columns
/// the dense first block covers, or 0): the row's first head_entries
/// neighbours >= min_col (-1 where it has fewer), head_entries ints a vertex
/// at head_entries v, and `info`, one word a vertex: its degree and
/// `after`, the offset from row_ptr[v] of the neighbour that follows the
/// heads (where the CSR scan resumes), packed by row_info(). Read straight
/// from the vertex's index, they test most rows' likely parents without
/// the load of the row bounds before them; the packed degree also serves
/// top-down claims (vertex_degree: 4 bytes where the row bounds cost two
/// 8-byte reads). The rows must be sorted, min_col + head_entries <=
/// row_info_max_after (after fits) and every degree <= row_info_max_degree
/// (rows_fit_row_info tells).
struct row_heads {
    std::vector<int> cols;
    std::vector<unsigned> info;
};

/// Whether every row of the graph has a degree row_info can hold.
inline bool rows_fit_row_info(int n, const long long* row_ptr)
{
    require(n >= 0 && (n == 0 || row_ptr != nullptr), "rows_fit_row_info",
            "bad CSR: n must be non-negative and row_ptr non-null (n = " + std::to_string(n) + ")");
    for (int v = 0; v < n; ++v)
        if (row_ptr[v + 1] - row_ptr[v] > row_info_max_degree) return false;
    return true;
}

inline row_heads build_row_heads(int n, const long long* row_ptr, const int* col, int min_col)
{
    require(n >= 0 && (n == 0 || row_ptr != nullptr), "build_row_heads", "bad CSR");
    require(min_col >= 0 && min_col <= n, "build_row_heads", "min_col outside 0..n");
    require(min_col + head_entries <= row_info_max_after, "build_row_heads",
            "min_col above " + std::to_string(row_info_max_after - head_entries) + " (the resume offset has 8 bits)");
    require(n == 0 || row_ptr[n] == 0 || col != nullptr, "build_row_heads", "null column array");
    row_heads h;
    h.cols.assign(static_cast<std::size_t>(n) * head_entries, -1);
    h.info.assign(static_cast<std::size_t>(n), 0u);
    for (int v = 0; v < n; ++v) {
        const long long b = row_ptr[v], e = row_ptr[v + 1];
        if (e - b < 0 || e - b > n)  // the message is built only for a bad row
            require(false, "build_row_heads", "bad row pointers at vertex " + std::to_string(v));
        if (e - b > row_info_max_degree)
            require(false, "build_row_heads",
                    "vertex " + std::to_string(v) + " has degree " + std::to_string(e - b) + ", above " +
                        std::to_string(row_info_max_degree) + " (row_info's 24 bits)");
        long long p = std::lower_bound(col + b, col + e, min_col) - col;
        for (int j = 0; j < head_entries && p < e; ++j, ++p)
            h.cols[static_cast<std::size_t>(v) * head_entries + j] = col[p];
        h.info[static_cast<std::size_t>(v)] = row_info(e - b, p - b);
    }
    return h;
}

/// Rejects a direction rule no search can use: alpha must be >= 0 (0: never
/// bottom-up), beta > 0, neither NaN. `who` names the caller in the message.
inline void check_rule(const direction_rule& r, const char* who)
{
    if (!(r.alpha >= 0) || !(r.beta > 0))  // also false for NaN
        require(false, who,
                "direction rule: alpha must be >= 0 and beta > 0 (alpha " + std::to_string(r.alpha) + ", beta " +
                    std::to_string(r.beta) + ")");
}

/// Top-down work list of the long CSR rows: every vertex of degree >
/// heavy_degree, cut into chunks of heavy_chunk entries [begin, end). One
/// warp per chunk keeps a hub's row from serialising on one warp.
struct heavy_rows {
    std::vector<int> vertex;
    std::vector<long long> begin, end;
};

inline heavy_rows split_heavy_rows(int n, const long long* row_ptr)
{
    require(n >= 0 && (n == 0 || row_ptr != nullptr), "split_heavy_rows", "bad CSR");
    heavy_rows h;
    for (int v = 0; v < n; ++v)
        if (row_ptr[v + 1] - row_ptr[v] > heavy_degree)
            for (long long b = row_ptr[v]; b < row_ptr[v + 1]; b += heavy_chunk) {
                h.vertex.push_back(v);
                h.begin.push_back(b);
                h.end.push_back(std::min(b + heavy_chunk, row_ptr[v + 1]));
            }
    return h;
}

}  // namespace tcore::bitbfs
