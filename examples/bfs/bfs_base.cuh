// examples/bfs/bfs_base.cuh - the BFS workload's base opponent, csr_bfs: a
// CUDA-core direction-optimizing BFS on CSR of the published GPU class
// (Beamer, Asanovic and Patterson, SC 2012, for the direction switch and
// the bottom-up step; Merrill, Garland and Grimshaw, PPoPP 2012, and
// Gunrock (Wang et al., PPoPP 2016) for the top-down load balance).
//
//   direction   Beamer's rule on the host between levels (direction_rule:
//               top-down -> bottom-up when the frontier's edges m_f exceed
//               m_u / alpha, m_u the edges of unvisited vertices; back when
//               the frontier has fewer than n / beta vertices and shrinks;
//               alpha 14, beta 24, the same rule as tc and cc)
//   top-down    the frontier is three queues binned by degree when the
//               vertices are discovered: short rows (< 32 entries), medium
//               rows (32 .. 255) and long rows (>= 256) cut into chunks of
//               1024 entries. A block takes a chunk (256 entries a round),
//               a warp takes a medium row (32 a round), and a warp takes 32
//               short rows at once, their entries dealt over the lanes
//               (exclusive scan of the degrees in registers, each entry's
//               row found by a binary search over the lanes): thread, warp
//               and block per vertex as in Merrill's expansion and
//               Gunrock's TWC, with hubs shared by many blocks. A neighbour
//               is claimed in the visited bitmap: a plain read first, and
//               an atomicOr on its word only while the bit reads clear
//               (newly discovered vertices, and the few races among them);
//               new rows are binned as they are found
//   bottom-up   the frontier is a bitmap; a warp owns one 32-vertex word of
//               the visited bitmap: each unvisited vertex's lane scans its
//               neighbours 4 at a time until one is in the frontier bitmap
//               (early exit), and lane 0 writes the visited and next words
//               (no atomics)
//   conversion  queues -> bitmap when the direction turns bottom-up (an
//               atomicOr per frontier vertex), bitmap -> queues when it
//               turns back (warp-aggregated appends); nothing otherwise
//   per level   one kernel, one 32-byte copy of the level's counters (new
//               vertices, their degree sum, the queue tails) and one host
//               synchronisation; counters rotate through three slots so the
//               kernel of level d clears the slot of level d + 1
// Levels: -1 unreached, 0 the source. New short and medium rows are staged
// per warp in shared memory and appended 224 or more at a time (one atomic
// on the queue tail per move); the per-level tallies are summed per block
// (one atomic per block and counter).
#pragma once

#include "bfs_graphs.hpp"

#include <tcore/check.cuh>
#include <tcore/infra/device_array.cuh>
#include <tcore/infra/launch.cuh>
#include <tcore/patterns/device/bfs_search.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace tcore::examples::bfs {

using tcore::bitbfs::bfs_stats;
using tcore::bitbfs::level_trace;


inline constexpr int dobfs_block = 256;        ///< threads per block of every kernel
inline constexpr int dobfs_warp_degree = 32;   ///< top-down: rows of >= 32 entries get a warp ...
inline constexpr int dobfs_block_degree = 256; ///< ... rows of >= 256 entries blocks, in chunks of ...
inline constexpr int dobfs_chunk = 1024;       ///< ... this many entries
inline constexpr unsigned dobfs_full_warp = 0xffffffffu;

/// One level's counters (device; three slots rotate over the levels).
struct dobfs_counts {
    unsigned long long found = 0;    ///< new vertices
    unsigned long long degrees = 0;  ///< their degree sum
    unsigned small = 0, medium = 0, chunks = 0, unused = 0;  ///< queue tails of the level's frontier
};

/// The frontier as three queues binned by degree.
struct dobfs_queues {
    int* small = nullptr;    ///< vertices of degree < dobfs_warp_degree
    int* medium = nullptr;   ///< degree dobfs_warp_degree .. dobfs_block_degree - 1
    int2* chunks = nullptr;  ///< (vertex, chunk) of degree >= dobfs_block_degree: entries chunk * dobfs_chunk + [0, dobfs_chunk)
};

/// Device CSR of the graph.
struct dobfs_graph {
    int n = 0;
    const long long* row_ptr = nullptr;
    const int* col = nullptr;
    const int* degree = nullptr;
};

/// A warp's new vertices by degree class: the lane's class, the warp's
/// ballots of short and medium rows, the lanes below this one. All 32 lanes.
struct dobfs_classes {
    bool is_small, is_medium;
    unsigned ms, mm, below;
    __device__ dobfs_classes(bool fresh, int deg)
        : is_small(fresh && deg < dobfs_warp_degree),
          is_medium(fresh && deg >= dobfs_warp_degree && deg < dobfs_block_degree),
          ms(__ballot_sync(dobfs_full_warp, is_small)), mm(__ballot_sync(dobfs_full_warp, is_medium)),
          below((1u << (threadIdx.x & 31)) - 1u)
    {
    }
};

/// A long row's chunks (dobfs_chunk entries each) onto the chunk queue: one
/// atomic per vertex.
__device__ inline void dobfs_emit_chunks(bool fresh, int v, int deg, const dobfs_queues& q, dobfs_counts* out)
{
    if (fresh && deg >= dobfs_block_degree) {
        const unsigned parts = static_cast<unsigned>((deg + dobfs_chunk - 1) / dobfs_chunk);
        const unsigned base = atomicAdd(&out->chunks, parts);
        for (unsigned c = 0; c < parts; ++c) q.chunks[base + c] = make_int2(v, static_cast<int>(c));
    }
}

/// Appends `v` of the lanes in `mask` (`mine`: this lane is one) to `queue`
/// at a tail taken from `tail` by one atomic of the mask's lowest lane;
/// `below`: the lanes below this one. All 32 lanes call it.
__device__ inline void dobfs_append(unsigned mask, unsigned below, bool mine, int v, unsigned* tail, int* queue)
{
    if (!mask) return;
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(mask) - 1;
    unsigned base = 0;
    if (lane == leader) base = atomicAdd(tail, static_cast<unsigned>(__popc(mask)));
    base = __shfl_sync(dobfs_full_warp, base, leader);
    if (mine) queue[base + __popc(mask & below)] = v;
}

/// Appends the lanes' new vertices (`fresh`, degree `deg`) to the queue of
/// their degree class: one atomic per warp and class, except long rows
/// (one per vertex: their chunks). All 32 lanes must call it.
__device__ inline void dobfs_emit(bool fresh, int v, int deg, const dobfs_queues& q, dobfs_counts* out)
{
    const dobfs_classes k(fresh, deg);
    dobfs_append(k.ms, k.below, k.is_small, v, &out->small, q.small);
    dobfs_append(k.mm, k.below, k.is_medium, v, &out->medium, q.medium);
    dobfs_emit_chunks(fresh, v, deg, q, out);
}

inline constexpr int dobfs_stage = 256;  ///< staged queue entries per warp and degree class

/// A warp's staging of new short and medium rows in shared memory: entries
/// are gathered there (positions by ballot) and moved to the global queue
/// 224 or more at a time, one atomic per move instead of one per round.
/// Counts are warp-uniform; all 32 lanes call every member.
struct dobfs_stager {
    int* small_stage;   ///< dobfs_stage entries of shared memory
    int* medium_stage;  ///< dobfs_stage entries of shared memory
    unsigned small_count = 0, medium_count = 0;

    /// Moves `count` staged entries to `queue` at a tail taken from `tail`.
    __device__ static void move(int* stage, unsigned& count, unsigned* tail, int* queue)
    {
        const int lane = threadIdx.x & 31;
        __syncwarp();
        unsigned base = 0;
        if (lane == 0) base = atomicAdd(tail, count);
        base = __shfl_sync(dobfs_full_warp, base, 0);
        for (unsigned i = lane; i < count; i += 32) queue[base + i] = stage[i];
        __syncwarp();
        count = 0;
    }

    /// As dobfs_emit, with short and medium rows staged.
    __device__ void emit(bool fresh, int v, int deg, const dobfs_queues& q, dobfs_counts* out)
    {
        const dobfs_classes k(fresh, deg);
        if (k.is_small) small_stage[small_count + __popc(k.ms & k.below)] = v;
        if (k.is_medium) medium_stage[medium_count + __popc(k.mm & k.below)] = v;
        small_count += __popc(k.ms);
        medium_count += __popc(k.mm);
        if (small_count > dobfs_stage - 32) move(small_stage, small_count, &out->small, q.small);
        if (medium_count > dobfs_stage - 32) move(medium_stage, medium_count, &out->medium, q.medium);
        dobfs_emit_chunks(fresh, v, deg, q, out);
    }

    /// Moves what is left (at the end of the warp's work).
    __device__ void finish(const dobfs_queues& q, dobfs_counts* out)
    {
        if (small_count) move(small_stage, small_count, &out->small, q.small);
        if (medium_count) move(medium_stage, medium_count, &out->medium, q.medium);
    }
};

/// The calling warp's stager over a block's shared staging arrays.
__device__ inline dobfs_stager dobfs_warp_stager(int (*stage)[2][dobfs_stage])
{
    const int w = threadIdx.x >> 5;
    return dobfs_stager{stage[w][0], stage[w][1]};
}

/// Adds the block's tallies (new vertices, degree sum) into `out`: warp
/// sums, shared-memory sums, one global atomic per counter and block. All
/// threads of the block must call it.
__device__ inline void dobfs_flush(unsigned long long found, unsigned long long degrees, dobfs_counts* out)
{
    __shared__ unsigned long long sums[2];
    if (threadIdx.x < 2) sums[threadIdx.x] = 0;
    __syncthreads();
    for (int o = 16; o > 0; o >>= 1) {
        found += __shfl_xor_sync(dobfs_full_warp, found, o);
        degrees += __shfl_xor_sync(dobfs_full_warp, degrees, o);
    }
    if ((threadIdx.x & 31) == 0 && found) {
        atomicAdd(&sums[0], found);
        atomicAdd(&sums[1], degrees);
    }
    __syncthreads();
    if (threadIdx.x == 0 && sums[0]) {
        atomicAdd(&out->found, sums[0]);
        atomicAdd(&out->degrees, sums[1]);
    }
}

/// Sets v visited if it was not; true if this thread did it. The plain
/// read spares the atomic for vertices already visited (a stale 0 only
/// costs an atomic that finds the bit set).
__device__ inline bool dobfs_claim(unsigned* visited, int v)
{
    const unsigned bit = 1u << (v & 31);
    if (visited[v >> 5] & bit) return false;
    return !(atomicOr(&visited[v >> 5], bit) & bit);
}

/// Marks `source` visited at level 0 and queues it. One warp (32 threads);
/// visited cleared before.
__global__ void dobfs_seed_kernel(dobfs_graph g, int source, unsigned* visited, int* level, dobfs_queues out,
                                  dobfs_counts* out_counts)
{
    const bool me = threadIdx.x == 0;
    if (me) {
        visited[source >> 5] = 1u << (source & 31);
        level[source] = 0;
    }
    dobfs_emit(me, source, me ? g.degree[source] : 0, out, out_counts);
}

/// Top-down step: expands the frontier queues `in` (tails in in_counts)
/// into the next frontier's queues `out`. Blocks take the long rows'
/// chunks, then warps the medium rows, then warps 32 short rows at a time.
/// Clears the counters `clear` (the slot of the next level).
__global__ void __launch_bounds__(dobfs_block)
    dobfs_top_down_kernel(dobfs_graph g, dobfs_queues in, const dobfs_counts* in_counts, dobfs_queues out,
                          dobfs_counts* out_counts, dobfs_counts* clear, unsigned* visited, int* level, int depth)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) *clear = dobfs_counts{};
    const unsigned n_chunks = in_counts->chunks, n_medium = in_counts->medium, n_small = in_counts->small;
    const int lane = threadIdx.x & 31;
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
    unsigned long long found = 0, degrees = 0;
    __shared__ int stage[dobfs_block / 32][2][dobfs_stage];
    dobfs_stager staged = dobfs_warp_stager(stage);
    // Claims v (valid lanes), records it, stages it for out. Warp-collective.
    auto visit = [&](bool valid, int v) {
        const bool fresh = valid && dobfs_claim(visited, v);
        int deg = 0;
        if (fresh) {
            level[v] = depth + 1;
            deg = g.degree[v];
            found += 1;
            degrees += static_cast<unsigned long long>(deg);
        }
        staged.emit(fresh, v, deg, out, out_counts);
    };
    // Long rows: a block per chunk of dobfs_chunk entries (block-uniform loops).
    for (unsigned k = blockIdx.x; k < n_chunks; k += gridDim.x) {
        const int2 item = in.chunks[k];
        const long long b = g.row_ptr[item.x] + static_cast<long long>(item.y) * dobfs_chunk;
        const long long e = min(b + dobfs_chunk, g.row_ptr[item.x + 1]);
        for (long long p0 = b; p0 < e; p0 += dobfs_block) {
            const long long p = p0 + threadIdx.x;
            visit(p < e, p < e ? g.col[p] : 0);
        }
    }
    // Medium rows: a warp per row (warp-uniform loops).
    for (long long j = warp; j < n_medium; j += warps) {
        const int u = in.medium[j];
        const long long b = g.row_ptr[u], e = g.row_ptr[u + 1];
        for (long long p0 = b; p0 < e; p0 += 32) {
            const long long p = p0 + lane;
            visit(p < e, p < e ? g.col[p] : 0);
        }
    }
    // Short rows: 32 per warp, entry t of the round goes to lane t % 32.
    for (long long base = 32 * warp; base < n_small; base += 32 * warps) {
        const long long j = base + lane;
        long long first = 0;
        int deg = 0;
        if (j < n_small) {
            const int u = in.small[j];
            first = g.row_ptr[u];
            deg = static_cast<int>(g.row_ptr[u + 1] - first);
        }
        int incl = deg;
        for (int o = 1; o < 32; o <<= 1) {
            const int up = __shfl_up_sync(dobfs_full_warp, incl, o);
            if (lane >= o) incl += up;
        }
        const int total = __shfl_sync(dobfs_full_warp, incl, 31);
        const int excl = incl - deg;
        for (int t0 = 0; t0 < total; t0 += 32) {
            const int t = t0 + lane;
            int owner = 0;  // last lane with excl <= t (lanes without entries are passed over)
            for (int step = 16; step > 0; step >>= 1)
                if (__shfl_sync(dobfs_full_warp, excl, owner + step) <= t) owner += step;
            const long long row = __shfl_sync(dobfs_full_warp, first, owner);
            const int at = __shfl_sync(dobfs_full_warp, excl, owner);
            visit(t < total, t < total ? g.col[row + (t - at)] : 0);
        }
    }
    staged.finish(out, out_counts);
    dobfs_flush(found, degrees, out_counts);
}

/// Bottom-up step: warp w of the grid takes visited words w, w + warps, ...;
/// every unvisited vertex of the word scans its neighbours, 4 per load, until
/// one is in `frontier`. Lane 0 writes the visited and next words (every
/// next word is written, so next needs no clearing). Clears `clear`.
__global__ void __launch_bounds__(dobfs_block)
    dobfs_bottom_up_kernel(dobfs_graph g, const unsigned* __restrict__ frontier, unsigned* next, unsigned* visited,
                           int* level, int depth, dobfs_counts* out_counts, dobfs_counts* clear)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) *clear = dobfs_counts{};
    const int lane = threadIdx.x & 31;
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
    const long long words = (static_cast<long long>(g.n) + 31) / 32;
    unsigned long long found = 0, degrees = 0;
    for (long long w = warp; w < words; w += warps) {
        const unsigned seen = visited[w];
        const long long in_word = min(32ll, static_cast<long long>(g.n) - 32 * w);
        const unsigned todo = ~seen & (in_word == 32 ? dobfs_full_warp : ((1u << in_word) - 1u));
        const int v = static_cast<int>(32 * w) + lane;
        bool hit = false;
        long long deg = 0;
        if ((todo >> lane) & 1u) {
            long long p = g.row_ptr[v];
            const long long e = g.row_ptr[v + 1];
            deg = e - p;
            for (; p < e && !hit; p += 4) {
                int u[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) u[i] = p + i < e ? g.col[p + i] : -1;
#pragma unroll
                for (int i = 0; i < 4; ++i) hit |= u[i] >= 0 && ((__ldg(frontier + (u[i] >> 5)) >> (u[i] & 31)) & 1u);
            }
        }
        const unsigned mask = __ballot_sync(dobfs_full_warp, hit);
        if (lane == 0) {
            next[w] = mask;
            if (mask) visited[w] = seen | mask;
        }
        if (hit) {
            level[v] = depth + 1;
            found += 1;
            degrees += static_cast<unsigned long long>(deg);
        }
    }
    dobfs_flush(found, degrees, out_counts);
}

/// Conversion top-down -> bottom-up: sets the bit of every vertex in the
/// queues `in` (tails in in_counts) in `bitmap` (cleared before).
__global__ void __launch_bounds__(dobfs_block)
    dobfs_queues_to_bitmap_kernel(dobfs_queues in, const dobfs_counts* in_counts, unsigned* bitmap)
{
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
    const unsigned n_small = in_counts->small, n_medium = in_counts->medium, n_chunks = in_counts->chunks;
    for (long long i = tid; i < n_small; i += threads) atomicOr(&bitmap[in.small[i] >> 5], 1u << (in.small[i] & 31));
    for (long long i = tid; i < n_medium; i += threads) atomicOr(&bitmap[in.medium[i] >> 5], 1u << (in.medium[i] & 31));
    for (long long i = tid; i < n_chunks; i += threads) {
        const int2 item = in.chunks[i];
        if (item.y == 0) atomicOr(&bitmap[item.x >> 5], 1u << (item.x & 31));
    }
}

/// Conversion bottom-up -> top-down: appends every vertex of `bitmap` to the
/// queues `out` (tails in out_counts, zero before). A warp takes 32 words,
/// one per lane, and appends one vertex per lane and round.
__global__ void __launch_bounds__(dobfs_block)
    dobfs_bitmap_to_queues_kernel(dobfs_graph g, const unsigned* bitmap, dobfs_queues out, dobfs_counts* out_counts)
{
    const int lane = threadIdx.x & 31;
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
    const long long words = (static_cast<long long>(g.n) + 31) / 32;
    __shared__ int stage[dobfs_block / 32][2][dobfs_stage];
    dobfs_stager staged = dobfs_warp_stager(stage);
    for (long long base = 32 * warp; base < words; base += 32 * warps) {
        const long long w = base + lane;
        unsigned bits = w < words ? bitmap[w] : 0u;
        while (__any_sync(dobfs_full_warp, bits != 0)) {
            const bool has = bits != 0;
            int v = 0, deg = 0;
            if (has) {
                v = static_cast<int>(32 * w) + __ffs(bits) - 1;
                bits &= bits - 1u;
                deg = g.degree[v];
            }
            staged.emit(has, v, deg, out, out_counts);
        }
    }
    staged.finish(out, out_counts);
}

/// base: the direction-optimizing CSR BFS above. Construct once per graph
/// (uploads the CSR), run() per source.
class csr_bfs {
public:
    explicit csr_bfs(const graph& g) : n_(g.n), total_degree_(g.entries())
    {
        require(g.n > 0, "csr_bfs", "empty graph");
        row_ptr_.upload(g.row_ptr);
        col_.upload(g.col);
        degree_host_.resize(static_cast<std::size_t>(g.n));
        std::size_t chunk_capacity = 1;
        for (int v = 0; v < g.n; ++v) {
            const int d = g.degree(v);
            degree_host_[static_cast<std::size_t>(v)] = d;
            if (d >= dobfs_block_degree) chunk_capacity += static_cast<std::size_t>((d + dobfs_chunk - 1) / dobfs_chunk);
        }
        with_edges_ = std::count_if(degree_host_.begin(), degree_host_.end(), [](int d) { return d > 0; });
        degree_.upload(degree_host_);
        words_ = (static_cast<std::size_t>(g.n) + 31) / 32;
        visited_.resize(words_);
        for (int s = 0; s < 2; ++s) {
            bitmap_[s].resize(words_);
            small_[s].resize(static_cast<std::size_t>(g.n));
            medium_[s].resize(static_cast<std::size_t>(g.n));
            chunks_[s].resize(chunk_capacity);
        }
        level_.resize(static_cast<std::size_t>(g.n));
        counts_.resize(3);
        TCORE_CHECK(cudaMallocHost(&host_counts_, sizeof(dobfs_counts)));
        view_.n = g.n, view_.row_ptr = row_ptr_.get(), view_.col = col_.get(), view_.degree = degree_.get();
        step_grid_ = static_cast<unsigned>(std::min(tcore::resident_grid(dobfs_top_down_kernel, dobfs_block, 1 << 20),
                                                    tcore::resident_grid(dobfs_bottom_up_kernel, dobfs_block, 1 << 20)));
        convert_grid_ = static_cast<unsigned>(tcore::resident_grid(dobfs_bitmap_to_queues_kernel, dobfs_block, 1 << 20));
    }
    ~csr_bfs() { cudaFreeHost(host_counts_); }
    csr_bfs(const csr_bfs&) = delete;
    csr_bfs& operator=(const csr_bfs&) = delete;

    /// BFS from `source`; levels stay on the device (levels() copies them).
    const bfs_stats& run(int source, cudaStream_t stream = nullptr)
    {
        require(source >= 0 && source < n_, "csr_bfs::run", "source " + std::to_string(source) + " out of range");
        TCORE_CHECK(cudaMemsetAsync(visited_.get(), 0, words_ * sizeof(unsigned), stream));
        TCORE_CHECK(cudaMemsetAsync(level_.get(), 0xFF, static_cast<std::size_t>(n_) * sizeof(int), stream));
        TCORE_CHECK(cudaMemsetAsync(counts_.get(), 0, 3 * sizeof(dobfs_counts), stream));
        // Level d reads the queues of set (d + 1) % 2 and counters slot (d + 2) % 3,
        // writes set d % 2 and slot d % 3, clears slot (d + 1) % 3.
        dobfs_seed_kernel<<<1, 32, 0, stream>>>(view_, source, visited_.get(), level_.get(), queues(1),
                                                counts_.get() + 2);
        TCORE_CHECK_LAUNCH();
        tcore::bitbfs::frontier_sizes sizes(degree_host_[static_cast<std::size_t>(source)], total_degree_, with_edges_);
        long long reached = 1;
        bool bottom = false;
        bool in_queues = true, in_bitmap = false;  // which forms of the frontier are current
        stats_ = {};
        traces_.clear();
        const auto start = std::chrono::steady_clock::now();
        for (int depth = 0;; ++depth) {
            bottom = sizes.bottom_up(rule_, bottom, n_);
            const int in_set = (depth + 1) % 2, out_set = depth % 2;
            dobfs_counts* in_slot = counts_.get() + (depth + 2) % 3;
            dobfs_counts* out_slot = counts_.get() + depth % 3;
            dobfs_counts* clear_slot = counts_.get() + (depth + 1) % 3;
            if (bottom) {
                if (!in_bitmap) {
                    TCORE_CHECK(cudaMemsetAsync(bitmap_[in_set].get(), 0, words_ * sizeof(unsigned), stream));
                    dobfs_queues_to_bitmap_kernel<<<convert_grid_, dobfs_block, 0, stream>>>(queues(in_set), in_slot,
                                                                                             bitmap_[in_set].get());
                    TCORE_CHECK_LAUNCH();
                }
                dobfs_bottom_up_kernel<<<step_grid_, dobfs_block, 0, stream>>>(
                    view_, bitmap_[in_set].get(), bitmap_[out_set].get(), visited_.get(), level_.get(), depth, out_slot,
                    clear_slot);
                TCORE_CHECK_LAUNCH();
                in_queues = false, in_bitmap = true;
            } else {
                if (!in_queues) {
                    dobfs_bitmap_to_queues_kernel<<<convert_grid_, dobfs_block, 0, stream>>>(view_, bitmap_[in_set].get(),
                                                                                             queues(in_set), in_slot);
                    TCORE_CHECK_LAUNCH();
                }
                dobfs_top_down_kernel<<<step_grid_, dobfs_block, 0, stream>>>(view_, queues(in_set), in_slot,
                                                                              queues(out_set), out_slot, clear_slot,
                                                                              visited_.get(), level_.get(), depth);
                TCORE_CHECK_LAUNCH();
                in_queues = true, in_bitmap = false;
            }
            TCORE_CHECK(cudaMemcpyAsync(host_counts_, out_slot, sizeof(dobfs_counts), cudaMemcpyDeviceToHost, stream));
            TCORE_CHECK(cudaStreamSynchronize(stream));
            stats_.directions += bottom ? 'B' : 'T';
            const long long found = static_cast<long long>(host_counts_->found);
            if (static_cast<int>(traces_.size()) < trace_levels_) {
                level_trace t;
                t.end_ns = static_cast<unsigned long long>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
                t.frontier = sizes.n_f, t.found = found, t.bottom_up = bottom;
                t.degrees = static_cast<long long>(host_counts_->degrees);
                t.entries = bottom ? 0 : sizes.m_f;  // top-down: the frontier's entries expanded
                traces_.push_back(t);
            }
            if (found == 0) {
                stats_.levels = depth + 1;
                break;
            }
            reached += found;
            sizes.advance(found, static_cast<long long>(host_counts_->degrees));
        }
        stats_.reached = reached;
        return stats_;
    }

    std::vector<int> levels() const { return level_.download(); }
    const bfs_stats& stats() const { return stats_; }
    /// The direction rule (tests force one direction with extreme alpha/beta).
    void set_rule(const tcore::bitbfs::direction_rule& r)
    {
        tcore::bitbfs::check_rule(r, "csr_bfs::set_rule");
        rule_ = r;
    }
    /// Record up to `levels` levels per run (0: off): host time after each
    /// level's synchronisation (end_ns, since the run started), frontier,
    /// new vertices, direction, and for top-down levels the entries expanded.
    void set_trace(int levels) { trace_levels_ = std::max(0, levels); }
    std::vector<level_trace> level_traces() const { return traces_; }
    unsigned grid() const { return step_grid_; }
    /// The graph on the device (CSR and degrees).
    std::size_t device_bytes() const { return row_ptr_.size() * 8 + (col_.size() + degree_.size()) * 4; }

private:
    dobfs_queues queues(int set) const
    {
        return {small_[set].get(), medium_[set].get(), chunks_[set].get()};
    }

    int n_;
    long long total_degree_, with_edges_ = 0;
    std::size_t words_ = 0;
    unsigned step_grid_ = 1, convert_grid_ = 1;
    tcore::bitbfs::direction_rule rule_;
    dobfs_graph view_;
    tcore::device_array<long long> row_ptr_;
    tcore::device_array<int> col_, degree_, level_, small_[2], medium_[2];
    tcore::device_array<int2> chunks_[2];
    tcore::device_array<unsigned> visited_, bitmap_[2];
    tcore::device_array<dobfs_counts> counts_;
    dobfs_counts* host_counts_ = nullptr;
    std::vector<int> degree_host_;
    bfs_stats stats_;
    int trace_levels_ = 0;
    std::vector<level_trace> traces_;
};

}  // namespace tcore::examples::bfs
