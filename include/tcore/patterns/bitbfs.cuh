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
//     the visited bitmap; two words in flight): the 4 row blocks' slices of
//     column block 0, the 128 largest hubs, are multiplied with that
//     block's frontier bits. They are stored dense (first_block_bits) and
//     read straight from the word's index beside its row bounds, so the
//     product adds no dependent load and costs 16 bytes a vertex, where a
//     CSR row's first entries cost a 32-byte sector. The rows without a
//     parent there scan their CSR rows (one lane each, 4 entries per load)
//     for a frontier neighbour beyond block 0. The warp owns its visited
//     word, so it writes it (and the next-frontier word) without atomics.
//     This is where the MMA works: on Kronecker graphs most vertices find
//     their parent among the first hubs. (bit_bfs can instead walk every
//     row block's list of hub slices, bottom_up_sliced_word; measured
//     slower on Kronecker graphs, examples/bfs/README.md.)
//   top-down: a column block's slices are multiplied (column index, chunks
//     of at most chunk_slices) only when the block holds enough frontier
//     bits for them to cost no more bytes than the frontier vertices' CSR
//     rows (top_down_thresholds); every other frontier vertex expands its
//     CSR row: rows longer than heavy_degree in chunks of heavy_chunk
//     entries, one warp each (top_down_heavy), the short ones found by
//     scanning the frontier bitmap, each warp's words far apart, up to 32
//     rows at once load-balanced over the lanes (top_down_rest). Kronecker
//     hub slices (8-22 edges in 1024 bits) never reach the threshold, so
//     their top-down steps use CSR; on dense graphs, or with the threshold
//     ratio 0 (tests), the slices are used.
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
// persistent grid (warp `warp` of `warps`). They read the frontier and
// the visited bitmap with plain loads, through L1: the barrier between
// steps must be an acquire (cooperative groups' grid.sync ends with
// CCTL.IVALL, which drops L1's lines; a new launch does too), so a step
// sees what the steps before it wrote. A visited word read in a top-down
// step may miss a bit set during that step; the atomicOr that follows
// decides.
//
// Entry points and their preconditions (none checked):
//   slice_hits, slice_frontier_step, record_hits: warp-collective (all 32
//     lanes, converged, none exited); per lane one 32-bit slice word (word
//     `lane`) and one frontier word (word lane % 4 of the column block);
//     the hit mask is warp-uniform. slice_frontier_step is the bit-matrix
//     frontier step of one slice: product and recording together.
//   claim_vertex, record_claimed, vertex_degree: one thread.
//   top_down_hubs, top_down_rest, top_down_heavy, bottom_up
//     (bitbfs_bottom_up.cuh): warp `warp` of `warps` of a persistent grid,
//     warp-collective; the barrier between steps (an acquire: grid.sync or
//     a new launch) is the caller's.
//   Bitmaps (visited, frontier, next): ceil(n / 128) * 4 words, 16-byte
//   aligned (the frontier of a column block is read as one uint4), in
//   global memory. No shared memory. tensor_core needs
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
inline constexpr int heavy_rounds = 4;    ///< top_down_heavy: rounds of chunk tests in flight at once
inline constexpr int head_entries = 4;    ///< bottom-up: a row's first neighbours read by vertex index (row_heads)

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
    /// first_block_bits(): column block 0's slices, dense over the row
    /// blocks; bottom-up uses them (and CSR beyond them) when
    /// first_block_cols > 0 (the columns they cover: min(128, columns))
    const unsigned* first_block = nullptr;
    int first_block_cols = 0;
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
    /// build_row_heads() with min_col = slices_view::first_block_cols:
    /// int4 per vertex, and its degree and the offset where its CSR scan
    /// resumes (row_info)
    const int4* heads = nullptr;
    const unsigned* heads_info = nullptr;
};

inline constexpr long long row_info_max_degree = (1ll << 24) - 1;  ///< row_info: degree in bits 8..31
inline constexpr long long row_info_max_after = 255;               ///< row_info: after in bits 0..7

/// A row's degree and a small offset into it in one word (row_heads::info);
/// degree <= row_info_max_degree, 0 <= after <= row_info_max_after.
__host__ __device__ constexpr unsigned row_info(long long degree, long long after)
{
    return static_cast<unsigned>(degree) << 8 | static_cast<unsigned>(after);
}
__host__ __device__ constexpr long long row_info_degree(unsigned info) { return info >> 8; }
__host__ __device__ constexpr int row_info_after(unsigned info) { return static_cast<int>(info & 0xffu); }

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

/// A vertex's degree: from csr_view::heads_info where the search has it
/// (4 bytes a vertex), else from its row bounds (two 8-byte reads).
__device__ inline int vertex_degree(const csr_view& c, int v)
{
    return static_cast<int>(c.heads_info ? row_info_degree(c.heads_info[v]) : c.row_ptr[v + 1] - c.row_ptr[v]);
}

/// Level, next-frontier bit and tally of a vertex this thread claimed
/// (`degree`: its degree, vertex_degree).
__device__ inline void record_claimed(const step_state& st, int v, int degree, step_counts& cnt)
{
    st.level[v] = st.depth + 1;
    atomicOr(st.next + (v >> 5), 1u << (v & 31));
    cnt.vertices += 1;
    cnt.degrees += static_cast<unsigned long long>(degree);
    cnt.heavy += degree > heavy_degree;
}
__device__ inline void record_claimed(const step_state& st, const csr_view& c, int v, step_counts& cnt)
{
    record_claimed(st, v, vertex_degree(c, v), cnt);
}

/// claim_vertex: top-down discovery of vertex v by one thread: claims it in
/// `visited` (atomicOr; a plain L2 read first spares the atomic for visited
/// ones), then records it. True if this thread won.
__device__ inline bool claim_vertex(const step_state& st, const csr_view& c, int v, step_counts& cnt)
{
    const unsigned bit = 1u << (v & 31);
    if (st.visited[v >> 5] & bit) return false;
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
        fresh = hits & ~(st.visited[word] >> shift) & 0xffu;
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
        const int deg = vertex_degree(c, v);
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
            const uint4 f = reinterpret_cast<const uint4*>(st.frontier)[C];
            const int bits_in = __popc(f.x) + __popc(f.y) + __popc(f.z) + __popc(f.w);
            pass = bits_in > 0 && bits_in >= g.mma_min_frontier[C];
        }
        unsigned todo = __ballot_sync(full_warp, pass);
        while (todo) {
            const long long chunk = warp + warps * (32 * i + __ffs(todo) - 1);
            todo &= todo - 1u;
            const int C = g.chunk_col[chunk];
            const unsigned f = st.frontier[4 * C + (lane & 3)];
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

/// Claims the up to K vertices v[t] of each lane (-1: none) with all loads
/// and atomics of the warp in flight together: the visited words first,
/// then an atomicOr for each vertex whose bit read clear and, beside it,
/// its degree; then the records of the vertices this lane won.
template <int K>
__device__ inline void claim_vertices(const step_state& st, const csr_view& c, const int (&v)[K], step_counts& cnt)
{
    unsigned seen[K];
    int degree[K];
#pragma unroll
    for (int t = 0; t < K; ++t) seen[t] = v[t] >= 0 ? st.visited[v[t] >> 5] : ~0u;
#pragma unroll
    for (int t = 0; t < K; ++t) {
        const bool clear = v[t] >= 0 && !((seen[t] >> (v[t] & 31)) & 1u);
        seen[t] = clear ? atomicOr(st.visited + (v[t] >> 5), 1u << (v[t] & 31)) : ~0u;
        degree[t] = clear ? vertex_degree(c, v[t]) : 0;
    }
#pragma unroll
    for (int t = 0; t < K; ++t)
        if (!((seen[t] >> (v[t] & 31)) & 1u)) record_claimed(st, v[t], degree[t], cnt);
}

inline constexpr int rest_per_lane = 8;  ///< top_down_rest: entries per lane and round

/// Top-down, CSR part: the frontier vertices of degree <= heavy_degree
/// outside the blocks that top_down_hubs multiplies (the same test:
/// frontier bits of the column block against mma_min_frontier) expand their
/// CSR rows. Lane l of warp `warp` takes frontier word warp + warps (32 i +
/// l) in round i: words far apart, so that the dense words of a
/// degree-ordered graph (its hubs' neighbours, found together) fall to
/// different warps; the next round's word is loaded while a round is
/// worked through. Each pass every lane takes its word's lowest remaining
/// vertex and the warp walks the up to 32 rows together, 8 entries a lane
/// at a time (all loads and claims in flight): entry e of the pass goes to
/// lane e % 32, its row found by a binary search over the lanes' exclusive
/// degree prefix (shuffles).
__device__ inline void top_down_rest(const slices_view& g, const csr_view& c, const step_state& st, long long warp,
                                     long long warps, step_counts& cnt)
{
    constexpr int K = rest_per_lane;
    const int lane = lane_id();
    const long long words = (c.n + 31) / 32;
    const long long stride = 32 * warps;  // between a lane's words of consecutive rounds
    unsigned ahead = warp + warps * lane < words ? st.frontier[warp + warps * lane] : 0u;
    for (long long i = 0; warp + stride * i < words; ++i) {
        const long long w = warp + warps * (32 * i + lane);
        unsigned bits = ahead;
        ahead = w + stride < words ? st.frontier[w + stride] : 0u;  // the next round's word, in flight meanwhile
        const long long below = g.columns - 32 * w;  // vertices of this word in sliced columns
        if (bits != 0 && below > 0) {
            const uint4 f = reinterpret_cast<const uint4*>(st.frontier)[w / 4];
            const int k = __popc(f.x) + __popc(f.y) + __popc(f.z) + __popc(f.w);
            if (k >= g.mma_min_frontier[w / 4])  // top_down_hubs multiplies this block
                bits = below >= 32 ? 0u : bits & (~0u << below);
        }
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
            for (long long e0 = 0; e0 < total; e0 += 32 * K) {
                int v[K];
#pragma unroll
                for (int t = 0; t < K; ++t) {
                    const long long e = e0 + lane + 32 * t;
                    int j = 0;  // last lane with excl <= e: the owner of entry e (lanes without entries are skipped)
                    for (int step = 16; step > 0; step >>= 1)
                        if (__shfl_sync(full_warp, excl, j + step) <= e) j += step;
                    const long long row = __shfl_sync(full_warp, first, j);
                    const long long at = __shfl_sync(full_warp, excl, j);
                    v[t] = e < total ? c.col[row + (e - at)] : -1;
                }
                claim_vertices(st, c, v, cnt);
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
    // consecutive, so they land on different warps. The tests of
    // heavy_rounds rounds go together (their loads in flight at once).
    for (long long i0 = 0; warp + warps * 32 * i0 < c.heavy_chunks; i0 += heavy_rounds) {
        int u[heavy_rounds];
        unsigned fw[heavy_rounds], in_frontier = 0;  // bit r: round i0 + r's chunk is to be expanded
#pragma unroll
        for (int r = 0; r < heavy_rounds; ++r) {
            const long long k = warp + warps * (32 * (i0 + r) + lane);
            u[r] = k < c.heavy_chunks ? c.heavy_vertex[k] : -1;
        }
#pragma unroll
        for (int r = 0; r < heavy_rounds; ++r) fw[r] = u[r] >= 0 ? st.frontier[u[r] >> 5] : 0u;
#pragma unroll
        for (int r = 0; r < heavy_rounds; ++r) {
            bool active = u[r] >= 0 && ((fw[r] >> (u[r] & 31)) & 1u);
            if (active && u[r] < g.columns) {
                const uint4 f = reinterpret_cast<const uint4*>(st.frontier)[u[r] / slice_cols];
                const int bits_in = __popc(f.x) + __popc(f.y) + __popc(f.z) + __popc(f.w);
                active = bits_in < g.mma_min_frontier[u[r] / slice_cols];  // else top_down_hubs multiplies its block
            }
            in_frontier |= static_cast<unsigned>(active) << r;
        }
        if (!__any_sync(full_warp, in_frontier != 0)) continue;
#pragma unroll 1
        for (int r = 0; r < heavy_rounds; ++r) {
            const long long k = warp + warps * (32 * (i0 + r) + lane);
            const bool active = (in_frontier >> r) & 1u;
            long long b = 0, e = 0;
            if (active) b = c.heavy_begin[k], e = c.heavy_end[k];
            unsigned todo = __ballot_sync(full_warp, active);
            // The chunks of the round one after the other, the next one's
            // entries loaded while this one's are claimed.
            int v[per_lane];
            const auto load_chunk = [&](int (&to)[per_lane]) {
                const int src = __ffs(todo) - 1;
                todo &= todo - 1u;
                const long long first = __shfl_sync(full_warp, b, src), last = __shfl_sync(full_warp, e, src);
#pragma unroll
                for (int t = 0; t < per_lane; ++t)
                    to[t] = first + lane + 32 * t < last ? c.col[first + lane + 32 * t] : -1;
                if (lane == 0) cnt.entries += static_cast<unsigned long long>(last - first);
            };
            if (todo == 0) continue;
            load_chunk(v);
            for (;;) {
                const bool more = todo != 0;  // warp-uniform
                int ahead[per_lane];
#pragma unroll
                for (int t = 0; t < per_lane; ++t) ahead[t] = -1;
                if (more) load_chunk(ahead);
                claim_vertices(st, c, v, cnt);
                if (!more) break;
#pragma unroll
                for (int t = 0; t < per_lane; ++t) v[t] = ahead[t];
            }
        }
    }
}

// -- the direction switch -------------------------------------------------------------

/// Beamer's rule: top-down -> bottom-up when the frontier's edges m_f exceed
/// m_u / alpha (m_u: edges of unvisited vertices); bottom-up -> top-down when
/// the frontier has fewer than n / beta vertices and is shrinking. With
/// beta_of_unvisited, the second test takes n_u / beta instead (n_u: the
/// unvisited vertices with edges): for a bottom-up step whose cost follows
/// the unvisited vertices rather than n, as bit_bfs's (isolated vertices
/// preset as visited, visited words skipped), late levels with a wide
/// frontier but few vertices left stay bottom-up.
struct direction_rule {
    double alpha = 14, beta = 24;
    bool beta_of_unvisited = false;
    __host__ __device__ bool bottom_up(bool now_bottom_up, long long n, long long n_u, long long n_f,
                                       long long n_f_before, long long m_f, long long m_u) const
    {
        if (!now_bottom_up) return static_cast<double>(m_f) > static_cast<double>(m_u) / alpha;
        const double left = static_cast<double>(beta_of_unvisited ? n_u : n);
        return !(static_cast<double>(n_f) < left / beta && n_f < n_f_before);
    }
};

/// What the rule reads, carried from level to level: the frontier's
/// vertices n_f (and the level before's), its edges m_f, the edges of
/// unvisited vertices m_u, the unvisited vertices with edges n_u. A search
/// starts at one vertex; `with_edges` is the graph's count of vertices with
/// edges.
struct frontier_sizes {
    long long n_f = 1, n_f_before = 0, m_f = 0, m_u = 0, n_u = 0;
    __host__ __device__ frontier_sizes(long long source_degree, long long total_degree, long long with_edges)
        : m_f(source_degree), m_u(total_degree - source_degree), n_u(with_edges - (source_degree > 0))
    {
    }
    /// The level just done found `found` new vertices whose degrees sum to `degrees`.
    __host__ __device__ void advance(long long found, long long degrees)
    {
        n_f_before = n_f;
        n_f = found;
        m_f = degrees;
        m_u -= m_f;
        n_u -= found;
    }
    /// Whether the next level goes bottom-up under `rule` (`now`: this one did).
    __host__ __device__ bool bottom_up(const direction_rule& rule, bool now, long long n) const
    {
        return rule.bottom_up(now, n, n_u, n_f, n_f_before, m_f, m_u);
    }
};

}  // namespace tcore::bitbfs
