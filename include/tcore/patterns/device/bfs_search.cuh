// tcore/patterns/device/bfs_search.cuh - the launcher of the hybrid bitmap
// BFS (patterns/bitbfs.cuh): class bit_bfs<Backend> uploads a graph's CSR
// and its 8x128 bit slices (build_slices, usually limited to the hub
// columns by hub_columns(), patterns/device/bfs.cuh) once, and run(source)
// performs one whole direction-optimizing BFS in one cooperative launch.
//
// The kernel (detail::bit_bfs_kernel) is composed of the building blocks of
// patterns/bitbfs.cuh: per level one step, bottom_up or top_down_hubs +
// top_down_heavy + top_down_rest, with the direction chosen by
// direction_rule (Beamer's: alpha 14, beta 24, beta taken of the unvisited
// vertices with edges, which is what a bottom-up step here costs) identically by every thread
// from the previous level's counters, then one grid barrier. Frontier,
// next and visited sets are bitmaps of ceil(n / 128) * 4 words rotating
// through three slots (the slot cleared during level d is the frontier of
// level d - 1, finished before the barrier); isolated vertices are preset
// as visited, so no step looks at them. One host synchronisation per BFS.
// The level array is not cleared per run: it holds -1 from construction,
// each run writes the levels of the vertices it reaches and, at its end,
// -1 for the vertices it left unreached (found from the visited bitmap), so
// a run writes 4 bytes per reached vertex instead of 4 per vertex.
//
// Preconditions: the graph is undirected and simple, in CSR with 64-bit row
// pointers and sorted neighbour lists (row_ptr: n + 1 entries); the slices
// were built from the same graph (checked: vertex count and shape). The
// device must support cooperative launches (checked); the grid is every
// block that can be resident (occupancy query at construction), which the
// grid barrier needs. 256 threads a block, no dynamic shared memory;
// tensor_core needs sm_80 or later (b1 m8n8k128). Levels: -1 unreached, 0
// the source.
#pragma once

#include "../../check.cuh"
#include "../../infra/device_array.cuh"
#include "../../infra/launch.cuh"
#include "../bitbfs.cuh"
#include "../bitbfs_bottom_up.cuh"
#include "bfs.cuh"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace tcore::bitbfs {

namespace detail {

inline constexpr int bfs_block = 256;


}  // namespace detail

/// Per-level record of the persistent bitmap BFS (bit_bfs::set_trace).
struct level_trace {
    unsigned long long end_ns = 0;  ///< %globaltimer after the level's grid barrier
    long long frontier = 0;         ///< frontier vertices
    long long found = 0;            ///< new vertices
    long long degrees = 0;          ///< their degree sum (the direction rule's next m_f)
    long long slices = 0;           ///< slices read
    long long entries = 0;          ///< CSR entries read
    int bottom_up = 0;              ///< 1: bottom-up step
};

/// Statistics of the last run.
struct bfs_stats {
    int levels = 0;          ///< BFS levels (the source's included)
    std::string directions;  ///< one letter per step: T top-down, B bottom-up
    long long reached = 0;   ///< vertices reached
    double setup_us = 0;     ///< bit_bfs: kernel start to the end of its set-up (device clock)
    double kernel_us = 0;    ///< bit_bfs: kernel start to the end of its last level's reset (device clock)
};

namespace detail {

inline constexpr int run_info_directions = 64;

/// What the persistent BFS reports back (one copy per run).
struct bfs_run_info {
    int levels = 0;
    long long reached = 0;
    unsigned long long entry_ns = 0;          ///< %globaltimer at the kernel's start (thread 0)
    unsigned long long start_ns = 0;          ///< %globaltimer after the set-up barrier
    unsigned long long exit_ns = 0;           ///< %globaltimer after thread 0's share of the reset
    char directions[run_info_directions] = {};  ///< the first steps' directions (all in bfs_buffers::directions)
};

/// Device buffers of the persistent BFS.
struct bfs_buffers {
    unsigned* visited = nullptr;             ///< words
    const unsigned* never = nullptr;         ///< words: isolated vertices (preset as visited: no step looks at them)
    unsigned* ring = nullptr;                ///< 3 x words: frontier of level d = ring slot d % 3
    int* level = nullptr;                    ///< n
    unsigned long long* counters = nullptr;  ///< 3 x count_fields: step_counts of level d in slot d % 3
    bfs_run_info* info = nullptr;            ///< in mapped host memory
    char* directions = nullptr;              ///< n + 1: every step's direction
    level_trace* trace = nullptr;            ///< trace_levels entries, or null
    int trace_levels = 0;
    long long words = 0;
};

__device__ inline unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

inline constexpr int count_fields = 5;  ///< step_counts fields, in counters slots

/// Adds the block's lanes' tallies into `out` (count_fields counters): warp
/// sums, then shared-memory atomics, then one global atomic per counter and block.
__device__ inline void flush_block_counts(tcore::bitbfs::step_counts cnt, unsigned long long* out)
{
    __shared__ unsigned long long block_sum[count_fields];
    if (threadIdx.x < count_fields) block_sum[threadIdx.x] = 0;
    __syncthreads();
    unsigned long long v[count_fields] = {cnt.vertices, cnt.degrees, cnt.slices, cnt.entries, cnt.heavy};
#pragma unroll
    for (int i = 0; i < count_fields; ++i) {
        for (int o = 16; o > 0; o >>= 1) v[i] += __shfl_xor_sync(0xffffffffu, v[i], o);
        if ((threadIdx.x & 31) == 0 && v[i]) atomicAdd(&block_sum[i], v[i]);
    }
    __syncthreads();
    if (threadIdx.x < count_fields && block_sum[threadIdx.x]) atomicAdd(&out[threadIdx.x], block_sum[threadIdx.x]);
}

/// The whole bitmap BFS in one cooperative launch: set-up, then per level
/// one step (direction by Beamer's rule, decided identically by every
/// thread from the previous level's counters) and one grid barrier. The
/// bitmaps rotate through three slots so that the slot cleared during level
/// d (the next step's "next") is the frontier of level d - 1, finished
/// before the barrier; counters rotate the same way. No host round trip
/// between levels. Levels: `stale` (the previous run's source if it was
/// isolated, else -1) gets -1, the source 0, the reached vertices their
/// level; at the end every vertex neither visited nor isolated gets -1
/// (earlier runs may have reached it; isolated vertices keep the -1 of the
/// array's construction).
template <class Backend>
__global__ void __launch_bounds__(bfs_block, 3)  // 85 registers, 3 blocks an SM: faster than 4 with 64 and their spills
    bit_bfs_kernel(tcore::bitbfs::slices_view g, tcore::bitbfs::csr_view c, bfs_buffers b,
                   tcore::bitbfs::direction_rule rule, int source, int stale, long long total_degree,
                   long long with_edges)
{
    namespace cg = cooperative_groups;
    namespace bb = tcore::bitbfs;
    cg::grid_group grid = cg::this_grid();
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
    const long long warp = tid >> 5, warps = threads >> 5;
    const bool leader = tid == 0;
    const long long words = b.words;
    const long long src_word = source >> 5;
    const unsigned src_bit = 1u << (source & 31);
    // The run's summary goes to mapped host memory once, at the end (the times wait in shared memory)
    __shared__ unsigned long long entry_ns, start_ns;
    if (leader) {
        entry_ns = global_ns();
        if (stale >= 0) b.level[stale] = -1;
        b.level[source] = 0;
    }
    // Set-up: visited = isolated vertices + source, frontier = source.
    for (long long i = tid; i < words; i += threads) {
        const unsigned s = i == src_word ? src_bit : 0u;
        b.visited[i] = b.never[i] | s;
        b.ring[i] = s;
        b.ring[words + i] = 0;
    }
    if (tid < 3 * count_fields) b.counters[tid] = 0;
    grid.sync();
    if (leader) start_ns = global_ns();
    bb::frontier_sizes sizes(c.row_ptr[source + 1] - c.row_ptr[source], total_degree, with_edges);
    long long reached = 1;
    bool bottom = false, heavy_in_frontier = sizes.m_f > bb::heavy_degree;
    for (int depth = 0;; ++depth) {
        bottom = sizes.bottom_up(rule, bottom, c.n);
        const int slot = depth % 3;
        unsigned* frontier = b.ring + slot * words;
        unsigned* next = b.ring + ((slot + 1) % 3) * words;
        unsigned* spare = b.ring + ((slot + 2) % 3) * words;  // the previous frontier: next level's "next"
        for (long long i = tid; i < words; i += threads) spare[i] = 0;
        if (tid < count_fields) b.counters[((slot + 1) % 3) * count_fields + tid] = 0;
        const bb::step_state st{b.visited, frontier, next, b.level, depth};
        bb::step_counts cnt;
        if (bottom) {
            bb::bottom_up<Backend>(g, c, st, warp, warps, cnt);
        } else {
            bb::top_down_hubs<Backend>(g, c, st, warp, warps, cnt);
            if (heavy_in_frontier) bb::top_down_heavy(g, c, st, warp, warps, cnt);
            bb::top_down_rest(g, c, st, warp, warps, cnt);
        }
        unsigned long long* counts = b.counters + slot * count_fields;
        flush_block_counts(cnt, counts);
        grid.sync();
        // One thread a block reads the level's totals (not every warp: one L2 line would serve thousands of reads)
        __shared__ unsigned long long totals[count_fields];
        if (threadIdx.x < count_fields) totals[threadIdx.x] = __ldcg(counts + threadIdx.x);
        __syncthreads();
        const long long found = static_cast<long long>(totals[0]);
        if (leader) {
            b.directions[depth] = bottom ? 'B' : 'T';
            if (b.trace && depth < b.trace_levels) {
                level_trace& t = b.trace[depth];
                t.end_ns = global_ns();
                t.frontier = sizes.n_f, t.found = found, t.bottom_up = bottom;
                t.degrees = static_cast<long long>(totals[1]);
                t.slices = static_cast<long long>(totals[2]);
                t.entries = static_cast<long long>(totals[3]);
            }
        }
        if (found == 0) {
            if (leader) {
                b.info->levels = depth + 1, b.info->reached = reached;
                for (int d = 0; d <= depth && d < run_info_directions; ++d) b.info->directions[d] = b.directions[d];
            }
            break;
        }
        reached += found;
        sizes.advance(found, static_cast<long long>(totals[1]));
        heavy_in_frontier = totals[4] != 0;  // totals is rewritten after the block barriers of the next level
    }
    // Unreached vertices: -1 (visited is final: no step wrote it since the last barrier)
    for (long long i = tid; i < words; i += threads) {
        const long long first = 32 * i;
        unsigned unreached = 0;
        if (first < c.n) {
            unreached = ~(b.visited[i] | b.never[i]);
            if (c.n - first < 32) unreached &= (1u << (c.n - first)) - 1u;
        }
        for (; unreached; unreached &= unreached - 1u) b.level[first + __ffs(unreached) - 1] = -1;
    }
    if (leader) b.info->entry_ns = entry_ns, b.info->start_ns = start_ns, b.info->exit_ns = global_ns();
}

}  // namespace detail

/// The hybrid bitmap BFS, one cooperative launch per BFS. The slices
/// (bit_slices of the graph, usually limited to its hub columns by
/// hub_columns()) cover the columns below s.columns; the graph's CSR covers
/// the rest. Construct once per graph (uploads both), run() per source.
template <class Backend = default_backend>
class bit_bfs {
public:
    /// top_down_mma_ratio: see tcore::bitbfs::top_down_thresholds (1: slices
    /// read top-down only where they cost no more bytes than the CSR rows;
    /// 0: whenever their column block has a frontier bit). first_block:
    /// bottom-up steps multiply the dense slices of column block 0
    /// (first_block_bits) and leave the other sliced columns to CSR; else
    /// they take every hub slice through its row block's slice list.
    /// heads: bottom-up steps without slice lists first test each row's
    /// build_row_heads() (20 bytes a vertex, degree included) before its
    /// CSR row (taken only where every degree fits row_info's 24 bits).
    /// The graph: n vertices, CSR row_ptr (n + 1 entries) and col (row_ptr[n]
    /// neighbours), undirected, simple, sorted; s: its slices.
    bit_bfs(int n, const long long* row_ptr, const int* col, const tcore::bitbfs::bit_slices& s,
            double top_down_mma_ratio = 1.0, bool first_block = true, bool heads = true)
        : n_(n), total_degree_(n > 0 && row_ptr ? row_ptr[n] : 0)
    {
        require(s.n == n, "bit_bfs", "slices and graph differ in vertex count");
        require(n > 0, "bit_bfs", "empty graph");
        require(row_ptr != nullptr && (row_ptr[n] == 0 || col != nullptr), "bit_bfs", "null CSR arrays");
        require(s.columns >= 0 && s.columns <= n && s.row_ptr.size() == static_cast<std::size_t>(s.row_blocks) + 1,
                "bit_bfs", "malformed slices");
        row_ptr_.upload(s.row_ptr);
        slice_meta_.upload(tcore::bitbfs::slice_meta(s));
        bits_.upload(s.bits);
        col_slice_.upload(s.col_slice);
        col_row_.upload(s.col_row);
        chunk_col_.upload(s.chunk_col);
        chunk_begin_.upload(s.chunk_begin);
        chunk_end_.upload(s.chunk_end);
        if (first_block) first_block_.upload(tcore::bitbfs::first_block_bits(s));
        mma_min_frontier_.upload(tcore::bitbfs::top_down_thresholds(s, row_ptr, top_down_mma_ratio));
        csr_ptr_.upload(row_ptr, static_cast<std::size_t>(n) + 1);
        csr_col_.upload(col, static_cast<std::size_t>(total_degree_));
        {
            const tcore::bitbfs::heavy_rows h = tcore::bitbfs::split_heavy_rows(n, row_ptr);
            heavy_vertex_.upload(h.vertex);
            heavy_begin_.upload(h.begin);
            heavy_end_.upload(h.end);
        }
        words_ = (static_cast<std::size_t>(n) + 127) / 128 * 4;
        // Isolated vertices are preset as visited: no step ever looks at them.
        std::vector<unsigned> never(words_, 0u);
        with_edges_ = n;
        for (int v = 0; v < n; ++v)
            if (row_ptr[v + 1] == row_ptr[v]) {
                never[static_cast<std::size_t>(v) >> 5] |= 1u << (v & 31);
                --with_edges_;
            }
        never_.upload(never);
        visited_.resize(words_), ring_.resize(3 * words_);
        level_.resize(static_cast<std::size_t>(n));
        // -1: the state every run leaves behind
        TCORE_CHECK(cudaMemset(level_.get(), 0xff, level_.size() * sizeof(int)));
        directions_.resize(static_cast<std::size_t>(n) + 1);
        counters_.resize(3 * detail::count_fields);
        view_.n = s.n, view_.row_blocks = s.row_blocks, view_.col_blocks = s.col_blocks, view_.columns = s.columns;
        view_.chunks = s.chunks();
        view_.row_ptr = row_ptr_.get(), view_.slice_meta = slice_meta_.get(), view_.bits = bits_.get();
        view_.col_slice = col_slice_.get(), view_.col_row = col_row_.get();
        view_.chunk_col = chunk_col_.get(), view_.chunk_begin = chunk_begin_.get(), view_.chunk_end = chunk_end_.get();
        view_.mma_min_frontier = mma_min_frontier_.get();
        view_.first_block = first_block_.get();
        view_.first_block_cols = first_block && s.columns > 0 ? std::min(s.columns, tcore::bitbfs::slice_cols) : 0;
        csr_.n = n, csr_.row_ptr = csr_ptr_.get(), csr_.col = csr_col_.get();
        csr_.heavy_chunks = static_cast<long long>(heavy_vertex_.size());
        csr_.heavy_vertex = heavy_vertex_.get(), csr_.heavy_begin = heavy_begin_.get(), csr_.heavy_end = heavy_end_.get();
        // The slice-list walk does not use heads
        if (heads && (first_block || s.columns == 0) && tcore::bitbfs::rows_fit_row_info(n, row_ptr)) {
            const tcore::bitbfs::row_heads h = tcore::bitbfs::build_row_heads(n, row_ptr, col, view_.first_block_cols);
            heads_.upload(h.cols);
            heads_info_.upload(h.info);
            csr_.heads = reinterpret_cast<const int4*>(heads_.get()), csr_.heads_info = heads_info_.get();
        }
        int dev = 0, per_sm = 0, coop = 0;
        TCORE_CHECK(cudaGetDevice(&dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        require(coop != 0, "bit_bfs", "the device cannot launch cooperative kernels");
        TCORE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, detail::bit_bfs_kernel<Backend>,
                                                                  detail::bfs_block, 0));
        require(per_sm > 0, "bit_bfs", "the BFS kernel does not fit on a multiprocessor");
        grid_ = static_cast<unsigned>(tcore::sm_count() * per_sm);  // all resident: the grid barrier needs it
        // The run's summary goes straight to mapped host memory: no copy after the kernel
        TCORE_CHECK(cudaHostAlloc(&host_info_, sizeof(detail::bfs_run_info), cudaHostAllocMapped));
        TCORE_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_info_), host_info_, 0));
    }
    ~bit_bfs() { cudaFreeHost(host_info_); }
    bit_bfs(const bit_bfs&) = delete;
    bit_bfs& operator=(const bit_bfs&) = delete;

    /// BFS from `source`; levels stay on the device (levels() copies them).
    /// One kernel launch (it writes the run's summary into mapped host
    /// memory) and one synchronisation.
    const bfs_stats& run(int source, cudaStream_t stream = nullptr)
    {
        require(source >= 0 && source < n_, "bit_bfs::run", "source " + std::to_string(source) + " out of range");
        detail::bfs_buffers b;
        b.visited = visited_.get(), b.never = never_.get(), b.ring = ring_.get(), b.level = level_.get();
        b.counters = counters_.get(), b.info = device_info_, b.directions = directions_.get();
        b.trace = trace_.get(), b.trace_levels = static_cast<int>(trace_.size());
        b.words = static_cast<long long>(words_);
        long long total = total_degree_, with_edges = with_edges_;
        // Poisoned before every run (no kernel of this object is in flight:
        // each run ends with a synchronisation), so a summary the kernel
        // failed to write cannot pass for this run's
        *host_info_ = detail::bfs_run_info{};
        host_info_->levels = -1;
        int stale = stale_source_;
        void* args[] = {&view_, &csr_, &b, &rule_, &source, &stale, &total, &with_edges};
        TCORE_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(detail::bit_bfs_kernel<Backend>),
                                                dim3(grid_), dim3(detail::bfs_block), args, 0, stream));
        TCORE_CHECK(cudaStreamSynchronize(stream));
        const detail::bfs_run_info& info = *host_info_;
        require(info.levels >= 1 && info.reached >= 1, "bit_bfs::run", "the BFS kernel reported no levels");
        stale_source_ = info.reached == 1 ? source : -1;  // an isolated source's 0 outlives the run's reset
        stats_ = {};
        stats_.levels = info.levels;
        stats_.reached = info.reached;
        stats_.directions.assign(info.directions, std::min(info.levels, detail::run_info_directions));
        if (info.levels > detail::run_info_directions) {
            std::string rest(static_cast<std::size_t>(info.levels), ' ');
            TCORE_CHECK(cudaMemcpy(rest.data(), directions_.get(), rest.size(), cudaMemcpyDeviceToHost));
            stats_.directions += rest.substr(detail::run_info_directions);
        }
        stats_.setup_us = (info.start_ns - info.entry_ns) / 1e3;
        stats_.kernel_us = (info.exit_ns - info.entry_ns) / 1e3;
        start_ns_ = info.start_ns;
        return stats_;
    }

    std::vector<int> levels() const { return level_.download(); }
    const bfs_stats& stats() const { return stats_; }
    /// The direction rule (default: alpha 14, beta 24 of the unvisited vertices
    /// with edges; tests force one direction with extreme alpha/beta).
    void set_rule(const tcore::bitbfs::direction_rule& r)
    {
        tcore::bitbfs::check_rule(r, "bit_bfs::set_rule");
        rule_ = r;
    }
    /// Record up to `levels` levels per run (0: off); see level_traces().
    void set_trace(int levels) { trace_.resize(static_cast<std::size_t>(std::max(0, levels))); }
    /// The last run's per-level records (time in microseconds since the
    /// set-up barrier, in `end_ns`), as many as it had levels and the trace holds.
    std::vector<level_trace> level_traces() const
    {
        std::vector<level_trace> t(std::min<std::size_t>(trace_.size(), static_cast<std::size_t>(stats_.levels)));
        if (!t.empty())
            TCORE_CHECK(cudaMemcpy(t.data(), trace_.get(), t.size() * sizeof(level_trace), cudaMemcpyDeviceToHost));
        for (level_trace& x : t) x.end_ns -= start_ns_;
        return t;
    }
    unsigned grid() const { return grid_; }
    std::size_t device_bytes() const
    {
        return (row_ptr_.size() + chunk_begin_.size() + chunk_end_.size() + csr_ptr_.size() + heavy_begin_.size() +
                heavy_end_.size()) * 8 +
               (slice_meta_.size() + col_slice_.size() + col_row_.size() + chunk_col_.size() + bits_.size() +
                first_block_.size() + csr_col_.size() + heavy_vertex_.size() + mma_min_frontier_.size() +
                heads_.size() + heads_info_.size()) * 4;
    }

private:
    int n_;
    long long total_degree_, with_edges_ = 0;
    std::size_t words_ = 0;
    unsigned grid_ = 1;
    unsigned long long start_ns_ = 0;
    int stale_source_ = -1;  ///< the last run's source if it reached nothing else
    tcore::bitbfs::slices_view view_;
    tcore::bitbfs::csr_view csr_;
    /// beta over the unvisited vertices: bottom_up's cost follows them
    tcore::bitbfs::direction_rule rule_{14, 24, true};
    tcore::device_array<long long> row_ptr_, chunk_begin_, chunk_end_, csr_ptr_, heavy_begin_, heavy_end_;
    tcore::device_array<int> col_slice_, col_row_, chunk_col_, mma_min_frontier_, csr_col_, heavy_vertex_, level_;
    tcore::device_array<int> heads_;
    tcore::device_array<unsigned> heads_info_, slice_meta_, bits_, first_block_, never_, visited_, ring_;
    tcore::device_array<unsigned long long> counters_;
    tcore::device_array<char> directions_;
    tcore::device_array<level_trace> trace_;
    detail::bfs_run_info* host_info_ = nullptr;    ///< mapped, page-locked
    detail::bfs_run_info* device_info_ = nullptr;  ///< the device's address of host_info_
    bfs_stats stats_;
};

}  // namespace tcore::bitbfs
