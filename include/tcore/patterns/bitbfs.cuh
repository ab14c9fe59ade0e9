// tcore/patterns/bitbfs.cuh - building blocks of breadth-first search on
// the 1-bit MMA (m8n8k128 AND + popcount) over an adjacency bitmap kept in
// 8x128 slices, after BerryBees, in a hybrid form: bit slices where the
// bitmap is dense (the hub columns of a degree-ordered graph), CSR for the
// sparse rest. Warp-level device functions only: the bit-matrix product of
// one slice with the frontier (slice_hits), the recording of its hits, and
// the four step functions of a persistent grid; the slices are built on
// the host by patterns/device/bfs.cuh, and patterns/device/bfs_search.cuh
// (bit_bfs) launches a whole BFS composed of these steps.
//
// Slices. The adjacency matrix (row v = the neighbours of vertex v;
// undirected, so A = A^T) is cut into slices of 8 rows x 128 columns and only
// the slices with at least one edge are stored: 32 words each, word 4r + w
// holding columns 32w .. 32w + 31 of slice row r (bit b = column 32w + b).
// They are ordered by row block (CSR of slices: row_ptr, slice_col; on the
// device slice_meta, which adds the slice's 8-bit row mask) and indexed a
// second time by column block (col_ptr, col_slice, col_row) for top-down
// steps. build_slices() (device/bfs.cuh) can slice only the columns below a
// limit.
//
// Hybrid. Slicing a whole Kronecker graph is wasteful: at scale 21 (degree
// order) its 22.6M non-empty slices hold 2.8 edges each (3.0 GiB, 128 bytes
// per slice against 4 bytes per CSR entry). The first column blocks of a
// degree-ordered graph (the hubs) are denser: at scale 21 the slices of
// columns 0..127 hold 22 edges each. hub_columns() picks the leading column
// blocks whose slices hold at least 8 edges each on average (scale 21:
// columns 0..1535, 1.02M slices, 139 MiB); only they are sliced. The graph's
// CSR (sorted neighbour lists) serves the rest:
//
//   bottom-up (warp = 32 consecutive vertices = 4 row blocks = one word of
//     the visited bitmap): the 4 row blocks' hub slices are examined 8 per
//     block at once (metadata and frontier words in one round trip), the
//     live ones multiplied 4 at a time, first column blocks first, until
//     every unvisited row found a parent; the vertices still looking then
//     scan their CSR rows (one lane each, 4 entries per load step) for a
//     non-hub neighbour in the frontier. The warp owns its visited word, so
//     it writes it (and the next-frontier word) without atomics. This is
//     where the MMA works: on Kronecker graphs most vertices find their
//     parent among the hubs, in the first slices of their row block.
//   top-down: a column block's slices are multiplied (column index, chunks
//     of at most chunk_slices) only when the block holds enough frontier
//     bits for them to cost no more bytes than the frontier vertices' CSR
//     rows (top_down_thresholds); every other frontier vertex expands its
//     CSR row: rows longer than heavy_degree in chunks of heavy_chunk
//     entries, one warp each (top_down_heavy), the short ones found by
//     scanning the frontier bitmap, 32 rows per warp load-balanced over the
//     lanes (top_down_rest). Kronecker hub slices (8-22 edges in 1024 bits)
//     never reach the threshold, so their top-down steps use CSR; on dense
//     graphs, or with the threshold ratio 0 (tests), the slices are used.
//
// Slice product. For a slice (row block R, column block C) and the
// frontier bits of C (128 bits, 4 words),
//   D = A_slice (8 x 128, A operand) * [f f f f f f f f] (128 x 8, B operand)
//   D(r, j) = popc(slice row r AND f) for every j: > 0 iff vertex 8R + r has
//   a neighbour in the frontier inside columns 128C .. 128C + 127.
// Lane (g, t) loads slice word 4g + t (= word `lane`, one coalesced 128-byte
// read per warp) as its A register and frontier word 4C + t as its B
// register; rows hit are the lanes t = 0 with c0 > 0. Only column 0 of D is
// used (Quadrant IV: results on the diagonal), as in the Cubie study.
//
// New vertices get their level and a next-frontier bit; step_counts gathers
// the new vertices, their degree sum (Beamer's switch: top-down ->
// bottom-up when m_f > m_u / alpha, back when n_f < n / beta), and the
// slices and CSR entries read (for traces). The steps are written for a
// persistent grid (warp `warp` of `warps`): state written by other blocks
// in the same launch is read with ld.global.cg (L2), never from L1.
//
// Entry points and their preconditions (none checked):
//   slice_hits, slice_frontier_step, record_hits: warp-collective (all 32
//     lanes, converged, none exited); per lane one 32-bit slice word (word
//     `lane`) and one frontier word (word lane % 4 of the column block);
//     the hit mask is warp-uniform. slice_frontier_step is the bit-matrix
//     frontier step of one slice: product and recording together.
//   claim_vertex, record_claimed: one thread.
//   top_down_hubs, top_down_rest, top_down_heavy, bottom_up: warp
//     `warp` of `warps` of a persistent grid, warp-collective; the barrier
//     between steps (grid barrier or a new launch) is the caller's.
//   Bitmaps (visited, frontier, next): ceil(n / 128) * 4 words, 16-byte
//   aligned (the frontier of a column block is read as one uint4), in
//   global memory (ld.global.cg). No shared memory. tensor_core needs
//   sm_80 or later (b1_m8n8k128).
// The cuda_core backend runs the same steps with tcore's CUDA-core MMA
// (shuffles and 32-bit popcounts, same registers per lane).
// tests/host/test_bfs_slices.cu checks the slicing and models the hybrid
// steps on the CPU; tests/gpu/test_bfs.cu runs them.
#pragma once

#include "../backend.cuh"
#include "../frag/b1_m8n8k128.cuh"

#include <cstdint>

namespace tcore::bitbfs {

inline constexpr int slice_rows = 8;     ///< rows (vertices) per slice: the MMA's M
inline constexpr int slice_cols = 128;   ///< columns per slice: the MMA's K
inline constexpr int slice_words = 32;   ///< 32-bit words per slice
inline constexpr int chunk_slices = 64;  ///< top-down work unit (slices of one column block)
inline constexpr int heavy_degree = 256;  ///< top-down: rows longer than this are split ...
inline constexpr int heavy_chunk = 256;   ///< ... into chunks of this many entries (one warp each)

// -- device --------------------------------------------------------------------------

/// Device pointers to a bit_slices (see bit_slices for the meaning).
struct slices_view {
    int n = 0, row_blocks = 0, col_blocks = 0;
    int columns = 0;  ///< sliced (hub) columns: 0 .. columns - 1
    long long chunks = 0;
    const long long* row_ptr = nullptr;
    const unsigned* slice_meta = nullptr;  ///< slice_meta(): column block | row mask << 24
    const unsigned* bits = nullptr;
    const int* col_slice = nullptr;
    const int* col_row = nullptr;
    const int* chunk_col = nullptr;
    const long long* chunk_begin = nullptr;
    const long long* chunk_end = nullptr;
    const int* mma_min_frontier = nullptr;  ///< top_down_thresholds(), per column block
};

/// Device pointers to the graph's CSR (sorted neighbour lists, 64-bit row
/// pointers) and its heavy_rows.
struct csr_view {
    int n = 0;
    const long long* row_ptr = nullptr;
    const int* col = nullptr;
    long long heavy_chunks = 0;
    const int* heavy_vertex = nullptr;
    const long long* heavy_begin = nullptr;
    const long long* heavy_end = nullptr;
};

/// BFS state of one step: bitmaps of ceil(n / 128) * 4 words, levels.
struct step_state {
    unsigned* visited = nullptr;
    const unsigned* frontier = nullptr;
    unsigned* next = nullptr;
    int* level = nullptr;
    int depth = 0;  ///< level of the frontier; new vertices get depth + 1
};

/// A lane's tally of one step.
struct step_counts {
    unsigned long long vertices = 0;  ///< new vertices
    unsigned long long degrees = 0;   ///< their degree sum
    unsigned long long slices = 0;    ///< slices read (counted once per warp)
    unsigned long long entries = 0;   ///< CSR entries read
    unsigned long long heavy = 0;     ///< new vertices of degree > heavy_degree (next top-down step needs top_down_heavy)
};

inline constexpr unsigned full_warp = 0xffffffffu;

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
    unsigned m = __ballot_sync(full_warp, (lane & 3) == 0 && d.x[0] > 0) & 0x11111111u;
    m = (m | (m >> 3)) & 0x03030303u;
    m = (m | (m >> 6)) & 0x000f000fu;
    m = (m | (m >> 12)) & 0x000000ffu;
    return m;
}

/// Level, next-frontier bit and tally of a vertex this thread claimed.
/// claim_vertex: top-down discovery of vertex v by one thread: claims it in
/// `visited` (atomicOr; a plain L2 read first spares the atomic for visited
/// ones), then records it. True if this thread won.
__device__ inline void record_claimed(const step_state& st, const csr_view& c, int v, step_counts& cnt)
{
    st.level[v] = st.depth + 1;
    atomicOr(st.next + (v >> 5), 1u << (v & 31));
    const long long deg = c.row_ptr[v + 1] - c.row_ptr[v];
    cnt.vertices += 1;
    cnt.degrees += static_cast<unsigned long long>(deg);
    cnt.heavy += deg > heavy_degree;
}

__device__ inline bool claim_vertex(const step_state& st, const csr_view& c, int v, step_counts& cnt)
{
    const unsigned bit = 1u << (v & 31);
    if (__ldcg(st.visited + (v >> 5)) & bit) return false;
    if (atomicOr(st.visited + (v >> 5), bit) & bit) return false;
    record_claimed(st, c, v, cnt);
    return true;
}

/// Marks the rows `hits` (8-bit, warp-uniform) of row block R: those not yet
/// visited get visited, level depth + 1 and a next-frontier bit (one
/// atomicOr of 8 bits: the 8 rows of a row block share a visited word).
/// All 32 lanes must call it.
__device__ inline void record_hits(const step_state& st, const csr_view& c, int R, unsigned hits, step_counts& cnt)
{
    if (hits == 0) return;
    const int lane = lane_id();
    const int word = R >> 2, shift = 8 * (R & 3);
    unsigned fresh = 0;
    if (lane == 0) {
        fresh = hits & ~(__ldcg(st.visited + word) >> shift) & 0xffu;
        if (fresh) {
            const unsigned old = atomicOr(&st.visited[word], fresh << shift);
            fresh &= ~(old >> shift) & 0xffu;
            if (fresh) atomicOr(&st.next[word], fresh << shift);
        }
    }
    fresh = __shfl_sync(full_warp, fresh, 0);
    if (lane < slice_rows && ((fresh >> lane) & 1u)) {
        const int v = slice_rows * R + lane;
        st.level[v] = st.depth + 1;
        const long long deg = c.row_ptr[v + 1] - c.row_ptr[v];
        cnt.vertices += 1;
        cnt.degrees += static_cast<unsigned long long>(deg);
        cnt.heavy += deg > heavy_degree;
    }
}

/// The bit-matrix frontier step of one slice: D = A_slice * [f .. f] on the
/// 1-bit MMA (slice_hits), then the rows of row block R with a frontier
/// neighbour in the slice's 128 columns that were not visited yet get
/// visited, level depth + 1 and a next-frontier bit, and are tallied
/// (record_hits). Returns the 8-bit mask of rows hit (visited before or
/// not), the same on every lane.
/// Preconditions (not checked): warp-collective (all 32 lanes, converged;
/// a lane with no slice passes 0 words, and R of a real row block);
/// lane l passes word l of the slice (slice row l / 4, columns
/// 32 (l % 4) .. + 31: the A map) and word l % 4 of the frontier of the
/// slice's column block (the B map); R is the slice's row block. Visited
/// and next are updated with atomics, so several warps may step slices of
/// one row block at once. sm_80 or later for tensor_core (mma.m8n8k128
/// .and.popc); cuda_core runs anywhere.
template <class Backend>
__device__ inline unsigned slice_frontier_step(const step_state& st, const csr_view& c, int R, unsigned slice_word,
                                               unsigned frontier_word, step_counts& cnt)
{
    const unsigned hits = slice_hits<Backend>(slice_word, frontier_word);
    record_hits(st, c, R, hits, cnt);
    return hits;
}

inline constexpr int batch = 4;  ///< slices in flight per warp

/// Top-down, hub part: warp `warp` of `warps` looks at chunks of the sliced
/// (hub) columns 32 at a time (lane l: its chunk's column block's
/// frontier bits against mma_min_frontier, all in one round trip), then
/// multiplies the slices of the chunks that pass, 4 in flight. A block with
/// fewer frontier bits than its threshold (none, in particular) is skipped
/// without reading its slices: top_down_heavy / top_down_rest expand those
/// vertices through CSR.
template <class Backend>
__device__ inline void top_down_hubs(const slices_view& g, const csr_view& c, const step_state& st, long long warp,
                                     long long warps, step_counts& cnt)
{
    const int lane = lane_id();
    // Lane l of round i: chunk warp + warps (32 i + l). A block's chunks are
    // consecutive, so they land on different warps.
    for (long long i = 0; warp + warps * 32 * i < g.chunks; ++i) {
        const long long k = warp + warps * (32 * i + lane);
        bool pass = false;
        if (k < g.chunks) {
            const int C = g.chunk_col[k];
            const uint4 f = __ldcg(reinterpret_cast<const uint4*>(st.frontier) + C);
            const int bits_in = __popc(f.x) + __popc(f.y) + __popc(f.z) + __popc(f.w);
            pass = bits_in > 0 && bits_in >= g.mma_min_frontier[C];
        }
        unsigned todo = __ballot_sync(full_warp, pass);
        while (todo) {
            const long long chunk = warp + warps * (32 * i + __ffs(todo) - 1);
            todo &= todo - 1u;
            const int C = g.chunk_col[chunk];
            const unsigned f = __ldcg(st.frontier + 4 * C + (lane & 3));
            const long long end = g.chunk_end[chunk];
            if (lane == 0) cnt.slices += static_cast<unsigned long long>(end - g.chunk_begin[chunk]);
            for (long long p = g.chunk_begin[chunk]; p < end; p += batch) {
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
                for (int i = 0; i < batch; ++i) slice_frontier_step<Backend>(st, c, R[i], a[i], f, cnt);
            }
        }
    }
}

/// Top-down, CSR part: the frontier vertices of degree <= heavy_degree
/// outside the blocks that top_down_hubs multiplies (the same test:
/// frontier bits of the column block against mma_min_frontier) expand their
/// CSR rows. Warp `warp` of `warps` scans
/// frontier words in runs of 32 (one per lane); each round every lane takes
/// its word's lowest remaining vertex and the warp walks the up to 32 rows
/// together: edge e of the round goes to lane e % 32, its row found by a
/// binary search over the lanes' exclusive degree prefix (shuffles).
__device__ inline void top_down_rest(const slices_view& g, const csr_view& c, const step_state& st, long long warp,
                                     long long warps, step_counts& cnt)
{
    const int lane = lane_id();
    const long long words = (c.n + 31) / 32;
    for (long long base = 32 * warp; base < words; base += 32 * warps) {
        const long long w = base + lane;  // lanes 4m .. 4m + 3 hold column block w / 4
        unsigned bits = w < words ? __ldcg(st.frontier + w) : 0u;
        int k = __popc(bits);
        k += __shfl_xor_sync(full_warp, k, 1);
        k += __shfl_xor_sync(full_warp, k, 2);
        const long long below = g.columns - 32 * w;  // vertices of this word in sliced columns
        if (below > 0 && k >= g.mma_min_frontier[w / 4])  // top_down_hubs multiplies this block
            bits = below >= 32 ? 0u : bits & (~0u << below);
        while (__any_sync(full_warp, bits != 0)) {
            long long first = 0, deg = 0;
            if (bits) {
                const int u = static_cast<int>(32 * w) + __ffs(bits) - 1;
                bits &= bits - 1;
                first = c.row_ptr[u];
                deg = c.row_ptr[u + 1] - first;
                if (deg > heavy_degree) deg = 0;  // top_down_heavy's
            }
            long long incl = deg;
            for (int o = 1; o < 32; o <<= 1) {
                const long long up = __shfl_up_sync(full_warp, incl, o);
                if (lane >= o) incl += up;
            }
            const long long total = __shfl_sync(full_warp, incl, 31);
            const long long excl = incl - deg;
            for (long long e0 = 0; e0 < total; e0 += 32) {
                const long long e = e0 + lane;
                int j = 0;  // last lane with excl <= e: the owner of edge e (lanes without edges are skipped)
                for (int step = 16; step > 0; step >>= 1)
                    if (__shfl_sync(full_warp, excl, j + step) <= e) j += step;
                const long long row = __shfl_sync(full_warp, first, j);
                const long long at = __shfl_sync(full_warp, excl, j);
                if (e < total) claim_vertex(st, c, c.col[row + (e - at)], cnt);
            }
            if (lane == 0) cnt.entries += static_cast<unsigned long long>(total);
        }
    }
}

/// Top-down, long rows: warp `warp` of `warps` takes heavy_rows chunks 32
/// at a time (lane l: its chunk's vertex's frontier bit, and for a
/// sliced vertex the block test of top_down_hubs), then expands the chunks
/// whose vertex is in the frontier, all 32 lanes on one chunk: its up to
/// 256 entries loaded in one go (8 per lane), their visited bits next, the
/// claims last.
__device__ inline void top_down_heavy(const slices_view& g, const csr_view& c, const step_state& st, long long warp,
                                      long long warps, step_counts& cnt)
{
    constexpr int per_lane = heavy_chunk / 32;
    const int lane = lane_id();
    // Lane l of round i: chunk warp + warps (32 i + l). A row's chunks are
    // consecutive, so they land on different warps.
    for (long long i = 0; warp + warps * 32 * i < c.heavy_chunks; ++i) {
        const long long k = warp + warps * (32 * i + lane);
        bool active = false;
        long long b = 0, e = 0;
        if (k < c.heavy_chunks) {
            const int u = c.heavy_vertex[k];
            active = (__ldcg(st.frontier + (u >> 5)) >> (u & 31)) & 1u;
            if (active && u < g.columns) {
                const uint4 f = __ldcg(reinterpret_cast<const uint4*>(st.frontier) + u / slice_cols);
                const int bits_in = __popc(f.x) + __popc(f.y) + __popc(f.z) + __popc(f.w);
                active = bits_in < g.mma_min_frontier[u / slice_cols];  // else top_down_hubs multiplies its block
            }
            if (active) b = c.heavy_begin[k], e = c.heavy_end[k];
        }
        unsigned todo = __ballot_sync(full_warp, active);
        while (todo) {
            const int src = __ffs(todo) - 1;
            todo &= todo - 1u;
            const long long first = __shfl_sync(full_warp, b, src), last = __shfl_sync(full_warp, e, src);
            int v[per_lane];
            unsigned seen[per_lane];
#pragma unroll
            for (int t = 0; t < per_lane; ++t) v[t] = first + lane + 32 * t < last ? c.col[first + lane + 32 * t] : -1;
#pragma unroll
            for (int t = 0; t < per_lane; ++t) seen[t] = v[t] >= 0 ? __ldcg(st.visited + (v[t] >> 5)) : ~0u;
#pragma unroll
            for (int t = 0; t < per_lane; ++t)  // all atomics in flight before any result is used
                seen[t] = v[t] >= 0 && !((seen[t] >> (v[t] & 31)) & 1u) ? atomicOr(st.visited + (v[t] >> 5), 1u << (v[t] & 31))
                                                                      : ~0u;
#pragma unroll
            for (int t = 0; t < per_lane; ++t)
                if (!((seen[t] >> (v[t] & 31)) & 1u)) record_claimed(st, c, v[t], cnt);
            if (lane == 0) cnt.entries += static_cast<unsigned long long>(last - first);
        }
    }
}

/// Bottom-up: warp `warp` of `warps` takes the 32-vertex groups warp, warp +
/// warps, ... (group w = visited word w = row blocks 4w .. 4w + 3). For the
/// unvisited vertices, the hub slices of the 4 row blocks are taken 8 per
/// block at a time: lane 4j + i looks at slice j of row block i (its
/// metadata, then the 4 frontier words of its column block, both in one
/// round trip for all 32 lanes); the slices with a wanted row and frontier
/// bits ("live") are then multiplied 4 at a time (their words loaded
/// together), slice 0 of every block first, and a block's remaining slices
/// are dropped once each of its unvisited rows has a parent. The vertices
/// left scan their CSR rows for a frontier neighbour >= g.columns (sliced
/// neighbours were covered by the slices), 4 entries per load; their row
/// bounds are loaded up front. The warp alone writes its visited and next
/// words. Short dependent chains matter more than bytes here: the step is
/// latency-bound.
template <class Backend>
__device__ inline void bottom_up(const slices_view& g, const csr_view& c, const step_state& st, long long warp,
                                 long long warps, step_counts& cnt)
{
    const int lane = lane_id();
    const int n = c.n;
    const long long words = (n + 31) / 32;
    const bool sliced = g.columns > 0;
    const int i_mine = lane & 3, j_mine = lane >> 2;  // this lane's row block and slice within a round
    for (long long wl = warp; wl < words; wl += warps) {
        const int w = static_cast<int>(wl);
        long long range = 0;  // slice range of the row blocks (lanes 0..4), loaded with the visited word
        if (sliced && lane <= 4) range = g.row_ptr[min(4 * w + lane, g.row_blocks)];
        const unsigned seen = __ldcg(st.visited + w);  // same address on every lane
        const int in_word = min(32, n - 32 * w);
        const unsigned todo = ~seen & (in_word == 32 ? full_warp : ((1u << in_word) - 1u));
        if (todo == 0) continue;
        const int v = 32 * w + lane;
        const bool mine = (todo >> lane) & 1u;
        long long p = 0, end = 0;
        if (mine) p = c.row_ptr[v], end = c.row_ptr[v + 1];
        const long long row_first = p;
        unsigned found = 0;
        if (sliced) {
            const long long beg = __shfl_sync(full_warp, range, i_mine);
            const long long stop = __shfl_sync(full_warp, range, i_mine + 1);
            for (long long q = beg + j_mine;; q += 8) {
                const unsigned rows = ((todo & ~found) >> (8 * i_mine)) & 0xffu;
                const bool slot = rows != 0 && q < stop;
                if (!__any_sync(full_warp, slot)) break;
                const unsigned meta = slot ? g.slice_meta[q] : 0u;
                const bool wanted = ((meta >> 24) & rows) != 0;
                uint4 fw = make_uint4(0u, 0u, 0u, 0u);
                if (wanted) fw = __ldcg(reinterpret_cast<const uint4*>(st.frontier) + (meta & 0xffffffu));
                unsigned live = __ballot_sync(full_warp, wanted && (fw.x | fw.y | fw.z | fw.w) != 0u);
                while (live) {
                    int from[batch];
                    unsigned a[batch], f[batch];
#pragma unroll
                    for (int k = 0; k < batch; ++k) {
                        from[k] = live ? __ffs(live) - 1 : -1;  // warp-uniform
                        live &= live - 1u;
                        const int src = from[k] < 0 ? 0 : from[k];
                        const long long qs = __shfl_sync(full_warp, q, src);
                        const unsigned f0 = __shfl_sync(full_warp, fw.x, src), f1 = __shfl_sync(full_warp, fw.y, src);
                        const unsigned f2 = __shfl_sync(full_warp, fw.z, src), f3 = __shfl_sync(full_warp, fw.w, src);
                        const int t = lane & 3;
                        f[k] = t == 0 ? f0 : t == 1 ? f1 : t == 2 ? f2 : f3;
                        a[k] = from[k] >= 0 ? g.bits[qs * slice_words + lane] : 0u;
                    }
#pragma unroll
                    for (int k = 0; k < batch; ++k)
                        if (from[k] >= 0) {
                            const int i = from[k] & 3;
                            found |= (slice_hits<Backend>(a[k], f[k]) & (todo >> (8 * i)) & 0xffu) << (8 * i);
                            if (lane == 0) cnt.slices += 1;
                        }
                    // Drop the live slices of row blocks whose unvisited rows all have a parent.
                    const unsigned pending = todo & ~found;
                    unsigned keep = 0;
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        if ((pending >> (8 * i)) & 0xffu) keep |= 0x11111111u << i;
                    live &= keep;
                }
            }
        }
        bool hit = false;
        if (mine && !((found >> lane) & 1u)) {
            for (; p < end && !hit; p += 4) {
                int u[4];
#pragma unroll
                for (int j = 0; j < 4; ++j) u[j] = p + j < end ? c.col[p + j] : -1;
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    hit |= u[j] >= g.columns && ((__ldcg(st.frontier + (u[j] >> 5)) >> (u[j] & 31)) & 1u);
                cnt.entries += static_cast<unsigned long long>(min(4ll, end - p));
            }
        }
        found |= __ballot_sync(full_warp, hit);
        if (found == 0) continue;
        if (lane == 0) {
            st.visited[w] = seen | found;  // this warp owns word w in a bottom-up step
            st.next[w] = found;
        }
        if ((found >> lane) & 1u) {
            st.level[v] = st.depth + 1;
            cnt.vertices += 1;
            cnt.degrees += static_cast<unsigned long long>(end - row_first);
            cnt.heavy += end - row_first > heavy_degree;
        }
    }
}

// -- the direction switch -------------------------------------------------------------

/// Beamer's rule: top-down -> bottom-up when the frontier's edges m_f exceed
/// m_u / alpha (m_u: edges of unvisited vertices); bottom-up -> top-down when
/// the frontier has fewer than n / beta vertices and is shrinking.
struct direction_rule {
    double alpha = 14, beta = 24;
    __host__ __device__ bool bottom_up(bool now_bottom_up, long long n, long long n_f, long long n_f_before,
                                       long long m_f, long long m_u) const
    {
        if (!now_bottom_up) return static_cast<double>(m_f) > static_cast<double>(m_u) / alpha;
        return !(static_cast<double>(n_f) < static_cast<double>(n) / beta && n_f < n_f_before);
    }
};

/// What the rule reads, carried from level to level: the frontier's
/// vertices n_f (and the level before's), its edges m_f, the edges of
/// unvisited vertices m_u. A search starts at one vertex.
struct frontier_sizes {
    long long n_f = 1, n_f_before = 0, m_f = 0, m_u = 0;
    __host__ __device__ frontier_sizes(long long source_degree, long long total_degree)
        : m_f(source_degree), m_u(total_degree - source_degree)
    {
    }
    /// The level just done found `found` new vertices whose degrees sum to `degrees`.
    __host__ __device__ void advance(long long found, long long degrees)
    {
        n_f_before = n_f;
        n_f = found;
        m_f = degrees;
        m_u -= m_f;
    }
    /// Whether the next level goes bottom-up under `rule` (`now`: this one did).
    __host__ __device__ bool bottom_up(const direction_rule& rule, bool now, long long n) const
    {
        return rule.bottom_up(now, n, n_f, n_f_before, m_f, m_u);
    }
};

}  // namespace tcore::bitbfs
