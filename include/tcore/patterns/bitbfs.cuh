// tcore/patterns/bitbfs.cuh - breadth-first search on the 1-bit MMA
// (m8n8k128 AND + popcount) over an adjacency bitmap kept in 8x128 slices,
// after BerryBees.
//
// The adjacency matrix (row v = the neighbours of vertex v; undirected, so
// A = A^T) is cut into slices of 8 rows x 128 columns and only the slices
// with at least one edge are stored: 32 words each, word 4r + w holding
// columns 32w .. 32w + 31 of slice row r (bit b = column 32w + b). They are
// ordered by row block (CSR of slices: row_ptr, slice_col; on the device
// slice_meta, which adds the slice's 8-bit row mask) and indexed a second
// time by column block (col_ptr, col_slice, col_row) for top-down steps. A dense bitmap of a 2M-vertex graph would be 512 GiB; the sparse
// slices cost 128 bytes plus 4-12 bytes of index per non-empty slice.
//
// One BFS step is bit-matrix x bit-vector products: for a slice (row block
// R, column block C) and the frontier bits of C (128 bits, 4 words),
//   D = A_slice (8 x 128, A operand) * [f f f f f f f f] (128 x 8, B operand)
//   D(r, j) = popc(slice row r AND f) for every j: > 0 iff vertex 8R + r has
//   a neighbour in the frontier inside columns 128C .. 128C + 127.
// Lane (g, t) loads slice word 4g + t (= word `lane`, one coalesced 128-byte
// read per warp) as its A register and frontier word 4C + t as its B
// register; rows hit are the lanes t = 0 with c0 > 0. Only column 0 of D is
// used (Quadrant IV: results on the diagonal), as in the Cubie study.
//
//   top-down:  for every column block with frontier bits, every slice in it
//              (work split into chunks of at most `chunk_slices` slices)
//   bottom-up: for every row block with unvisited rows, its slices in
//              order, skipping column blocks without frontier bits and
//              stopping once every unvisited row has found a parent
// New vertices: one atomicOr of 8 bits into `visited` per slice with hits
// (the 8 rows of a row block share one word), their level, the next
// frontier bitmap, and counters (new vertices, their degree sum) for the
// direction switch (Beamer: top-down -> bottom-up when m_f > m_u / alpha,
// back when n_f < n / beta).
//
// The cuda_core backend runs the same steps with tcore's CUDA-core MMA
// (shuffles and 32-bit popcounts, same registers per lane).
// tests/host/test_bfs_slices.cu checks the slicing; tests/gpu/test_bfs.cu
// the steps.
#pragma once

#include "../backend.cuh"
#include "../check.cuh"
#include "../frag/b1_m8n8k128.cuh"

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace tcore::bitbfs {

inline constexpr int slice_rows = 8;     ///< rows (vertices) per slice: the MMA's M
inline constexpr int slice_cols = 128;   ///< columns per slice: the MMA's K
inline constexpr int slice_words = 32;   ///< 32-bit words per slice
inline constexpr int chunk_slices = 256; ///< top-down work unit (slices of one column block)

// -- host: building the slices ------------------------------------------------------

/// The adjacency bitmap of an n-vertex graph in non-empty 8x128 slices.
struct bit_slices {
    int n = 0, row_blocks = 0, col_blocks = 0;
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
/// bitmap is the neighbour list of v. Throws tcore::error on bad input.
inline bit_slices build_slices(int n, const long long* row_ptr, const int* col, unsigned threads = 0)
{
    require(n >= 0, "build_slices", "negative vertex count");
    require(n == 0 || (row_ptr != nullptr && (row_ptr[n] == 0 || col != nullptr)), "build_slices",
            "null CSR arrays");
    require(n < (1 << 30), "build_slices", "at most 2^30 vertices");
    bit_slices s;
    s.n = n;
    s.row_blocks = (n + slice_rows - 1) / slice_rows;
    s.col_blocks = (n + slice_cols - 1) / slice_cols;
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
                for (long long p = row_ptr[v]; p < row_ptr[v + 1]; ++p) tmp.push_back(col[p] / slice_cols);
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

/// Bit (row, col) of the sliced bitmap (binary search over row block row / 8).
inline bool slice_bit(const bit_slices& s, int row, int col)
{
    const int R = row / slice_rows, C = col / slice_cols;
    const auto first = s.slice_col.begin() + s.row_ptr[static_cast<std::size_t>(R)];
    const auto last = s.slice_col.begin() + s.row_ptr[static_cast<std::size_t>(R) + 1];
    const auto it = std::lower_bound(first, last, C);
    if (it == last || *it != C) return false;
    const long long k = it - s.slice_col.begin();
    const int r = row % slice_rows, within = col % slice_cols;
    return (s.bits[static_cast<std::size_t>(k * slice_words + 4 * r + within / 32)] >> (within % 32)) & 1u;
}

/// The sliced bitmap back to CSR (sorted neighbour lists): the round trip.
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

// -- device --------------------------------------------------------------------------

/// Device pointers to a bit_slices (see bit_slices for the meaning).
struct slices_view {
    int n = 0, row_blocks = 0, col_blocks = 0;
    long long chunks = 0;
    const long long* row_ptr = nullptr;
    const unsigned* slice_meta = nullptr;  ///< slice_meta(): column block | row mask << 24
    const unsigned* bits = nullptr;
    const int* col_slice = nullptr;
    const int* col_row = nullptr;
    const int* chunk_col = nullptr;
    const long long* chunk_begin = nullptr;
    const long long* chunk_end = nullptr;
};

/// BFS state of one step: bitmaps of ceil(n / 128) * 4 words, levels,
/// degrees, and two counters (new vertices, their degree sum).
struct step_state {
    unsigned* visited = nullptr;
    const unsigned* frontier = nullptr;
    unsigned* next = nullptr;
    int* level = nullptr;
    const int* degree = nullptr;
    unsigned long long* counters = nullptr;
    int depth = 0;  ///< level of the frontier; new vertices get depth + 1
};

/// Rows of a slice with a neighbour in the frontier, as an 8-bit mask
/// (bit r = slice row r), the same on every lane. `slice_word` is word
/// `lane` of the slice, `frontier_word` word lane % 4 of the column block's
/// frontier. All 32 lanes must call it.
template <class Backend>
__device__ inline unsigned slice_hits(unsigned slice_word, unsigned frontier_word)
{
    frag_a<b1_m8n8k128> a;
    frag_b<b1_m8n8k128> b;
    frag_c<b1_m8n8k128> d;
    a.x[0] = slice_word;    // A(g, 32t + v) = slice row g, column 32t + v
    b.x[0] = frontier_word; // B(32t + v, g) = frontier bit 32t + v, every column g
    d.x[0] = 0, d.x[1] = 0;
    mma<Backend>(d, a, b, d);
    const int lane = lane_id();
    // Lane 4g holds D(g, 0) in c0: gather bits 0, 4, ..., 28 of the ballot into 0..7.
    unsigned m = __ballot_sync(0xffffffffu, (lane & 3) == 0 && d.x[0] > 0) & 0x11111111u;
    m = (m | (m >> 3)) & 0x03030303u;
    m = (m | (m >> 6)) & 0x000f000fu;
    m = (m | (m >> 12)) & 0x000000ffu;
    return m;
}

/// Marks the rows `hits` (8-bit, warp-uniform) of row block R: those not yet
/// visited get visited, level depth + 1 and a next-frontier bit; the lane's
/// counters count them. All 32 lanes must call it.
__device__ inline void record_hits(const step_state& st, int R, unsigned hits, unsigned long long& new_vertices,
                                   unsigned long long& new_degrees)
{
    if (hits == 0) return;
    const int lane = lane_id();
    const int word = R >> 2, shift = 8 * (R & 3);
    unsigned fresh = 0;
    if (lane == 0) {
        fresh = hits & ~(st.visited[word] >> shift) & 0xffu;
        if (fresh) {
            const unsigned old = atomicOr(&st.visited[word], fresh << shift);
            fresh &= ~(old >> shift) & 0xffu;
            if (fresh) atomicOr(&st.next[word], fresh << shift);
        }
    }
    fresh = __shfl_sync(0xffffffffu, fresh, 0);
    if (lane < slice_rows && ((fresh >> lane) & 1u)) {
        const int v = slice_rows * R + lane;
        st.level[v] = st.depth + 1;
        new_vertices += 1;
        new_degrees += static_cast<unsigned long long>(st.degree[v]);
    }
}

/// Adds the lanes' counters into st.counters (one atomic per warp and counter).
__device__ inline void flush_counters(const step_state& st, unsigned long long new_vertices,
                                      unsigned long long new_degrees)
{
    for (int o = 16; o > 0; o >>= 1) {
        new_vertices += __shfl_xor_sync(0xffffffffu, new_vertices, o);
        new_degrees += __shfl_xor_sync(0xffffffffu, new_degrees, o);
    }
    if (lane_id() == 0 && new_vertices) {
        atomicAdd(&st.counters[0], new_vertices);
        atomicAdd(&st.counters[1], new_degrees);
    }
}

inline constexpr int batch = 4;  ///< slices in flight per warp

/// Top-down step: warp `warp` of `warps` takes chunks warp, warp + warps, ...
/// (all of a chunk's slices lie in one column block); chunks whose column
/// block has no frontier bit are skipped.
template <class Backend>
__device__ inline void top_down(const slices_view& g, const step_state& st, long long warp, long long warps)
{
    const int lane = lane_id();
    unsigned long long nv = 0, nd = 0;
    for (long long k = warp; k < g.chunks; k += warps) {
        const int C = g.chunk_col[k];
        const unsigned f = st.frontier[4 * C + (lane & 3)];
        if (!__any_sync(0xffffffffu, f != 0)) continue;
        const long long end = g.chunk_end[k];
        for (long long p = g.chunk_begin[k]; p < end; p += batch) {
            unsigned a[batch];
            int R[batch];
#pragma unroll
            for (int i = 0; i < batch; ++i) {
                const bool valid = p + i < end;
                const long long s = valid ? g.col_slice[p + i] : 0;
                R[i] = valid ? g.col_row[p + i] : 0;
                a[i] = valid ? g.bits[s * slice_words + lane] : 0u;
            }
#pragma unroll
            for (int i = 0; i < batch; ++i) record_hits(st, R[i], slice_hits<Backend>(a[i], f), nv, nd);
        }
    }
    flush_counters(st, nv, nd);
}

/// Bottom-up step: warp `warp` of `warps` takes row blocks warp, warp +
/// warps, ...; each scans its slices until every unvisited row has a parent.
/// A slice is read only if one of its rows is still looking (its row mask)
/// and its column block has frontier bits, so rows that cannot be reached
/// in this step (or at all) cost 4 bytes of metadata per slice, no more.
template <class Backend>
__device__ inline void bottom_up(const slices_view& g, const step_state& st, long long warp, long long warps)
{
    const int lane = lane_id();
    unsigned long long nv = 0, nd = 0;
    for (long long Rl = warp; Rl < g.row_blocks; Rl += warps) {
        const int R = static_cast<int>(Rl);
        const int rows = min(slice_rows, g.n - slice_rows * R);
        const unsigned valid = rows >= slice_rows ? 0xffu : ((1u << rows) - 1u);
        // Lane 0's read, broadcast: other warps may be setting bits of this word.
        const unsigned word = __shfl_sync(0xffffffffu, lane == 0 ? st.visited[R >> 2] : 0u, 0);
        const unsigned todo = ~(word >> (8 * (R & 3))) & valid;  // warp-uniform
        if (todo == 0) continue;
        unsigned found = 0;
        const long long end = g.row_ptr[R + 1];
        for (long long p = g.row_ptr[R]; p < end; p += batch) {
            unsigned f[batch], a[batch];
#pragma unroll
            for (int i = 0; i < batch; ++i) {
                const unsigned meta = p + i < end ? g.slice_meta[p + i] : 0u;  // same address on every lane
                const bool wanted = ((meta >> 24) & todo & ~found) != 0;
                f[i] = wanted ? st.frontier[4 * (meta & 0xffffffu) + (lane & 3)] : 0u;
            }
#pragma unroll
            for (int i = 0; i < batch; ++i) {
                // Column blocks without frontier bits are skipped (no slice read).
                const bool any = __any_sync(0xffffffffu, f[i] != 0);
                a[i] = any ? g.bits[(p + i) * slice_words + lane] : 0u;
            }
#pragma unroll
            for (int i = 0; i < batch; ++i) found |= slice_hits<Backend>(a[i], f[i]);
            if ((found & todo) == todo) break;
        }
        record_hits(st, R, found & todo, nv, nd);
    }
    flush_counters(st, nv, nd);
}

// -- the direction switch (host) -------------------------------------------------------

/// Beamer's rule: top-down -> bottom-up when the frontier's edges m_f exceed
/// m_u / alpha (m_u: edges of unvisited vertices); bottom-up -> top-down when
/// the frontier has fewer than n / beta vertices and is shrinking.
struct direction_rule {
    double alpha = 14, beta = 24;
    bool bottom_up(bool now_bottom_up, long long n, long long n_f, long long n_f_before, long long m_f,
                   long long m_u) const
    {
        if (!now_bottom_up) return static_cast<double>(m_f) > static_cast<double>(m_u) / alpha;
        return !(static_cast<double>(n_f) < static_cast<double>(n) / beta && n_f < n_f_before);
    }
};

}  // namespace tcore::bitbfs
