// examples/bfs/bfs_kernels.cuh - the BFS workload's GPU side (also used by
// tests/gpu/test_bfs.cu).
//
//   bit_bfs<Backend>  tc (tensor_core) / cc (cuda_core): direction-optimizing
//                     hybrid BFS (tcore/patterns/bitbfs.cuh): the hub
//                     columns' 8x128 bit slices through the 1-bit MMA, CSR
//                     for the rest; frontier and visited sets are bitmaps;
//                     the whole BFS is one cooperative kernel (a grid
//                     barrier per level, the direction decided on the
//                     device), one host synchronisation per BFS
//   csr_bfs           base: a conventional CUDA-core direction-optimizing BFS
//                     on CSR: top-down expands a frontier queue with
//                     load-balanced edges (prefix sum of the frontier's
//                     degrees, one thread per edge, binary search for its
//                     vertex), bottom-up gives every unvisited vertex a thread
//                     that scans its neighbours until one is in the frontier
//                     bitmap; kernels launched per level, the host reads two
//                     counters (new vertices, their degree sum) per level
// Both switch direction with the same rule (Beamer, alpha 14, beta 24).
// Levels: -1 unreached, 0 the source.
#pragma once

#include "bfs_graphs.hpp"

#include <tcore/check.cuh>
#include <tcore/patterns/device/bfs.cuh>

#include <cooperative_groups.h>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tcore::examples::bfs {

inline constexpr int bfs_block = 256;

/// A cudaMalloc'd array.
template <class T>
class dev_array {
public:
    dev_array() = default;
    explicit dev_array(std::size_t n) { resize(n); }
    ~dev_array() { cudaFree(ptr_); }
    dev_array(const dev_array&) = delete;
    dev_array& operator=(const dev_array&) = delete;
    void resize(std::size_t n)
    {
        cudaFree(ptr_);
        ptr_ = nullptr;
        n_ = n;
        if (n) TCORE_CHECK(cudaMalloc(&ptr_, n * sizeof(T)));
    }
    void upload(const std::vector<T>& h)
    {
        resize(h.size());
        if (n_) TCORE_CHECK(cudaMemcpy(ptr_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    T* get() const { return ptr_; }
    std::size_t size() const { return n_; }

private:
    T* ptr_ = nullptr;
    std::size_t n_ = 0;
};

/// Two 64-bit counters in pinned host memory.
class pinned_counters {
public:
    pinned_counters() { TCORE_CHECK(cudaMallocHost(&p_, 2 * sizeof(unsigned long long))); }
    ~pinned_counters() { cudaFreeHost(p_); }
    pinned_counters(const pinned_counters&) = delete;
    pinned_counters& operator=(const pinned_counters&) = delete;
    unsigned long long* get() const { return p_; }

private:
    unsigned long long* p_ = nullptr;
};

// -- kernels ---------------------------------------------------------------------------

/// Marks `source` visited, in the frontier (and queue), level 0.
__global__ void bfs_seed_kernel(unsigned* visited, unsigned* frontier, int* level, int* queue, int source)
{
    visited[source >> 5] = 1u << (source & 31);
    frontier[source >> 5] = 1u << (source & 31);
    level[source] = 0;
    if (queue) queue[0] = source;
}

/// Per-level record of the persistent bitmap BFS (bit_bfs::set_trace).
struct level_trace {
    unsigned long long end_ns = 0;  ///< %globaltimer after the level's grid barrier
    long long frontier = 0;         ///< frontier vertices
    long long found = 0;            ///< new vertices
    long long slices = 0;           ///< slices read
    long long entries = 0;          ///< CSR entries read
    int bottom_up = 0;              ///< 1: bottom-up step
};

inline constexpr int run_info_directions = 64;

/// What the persistent BFS reports back (one copy per run).
struct bfs_run_info {
    int levels = 0;
    long long reached = 0;
    unsigned long long start_ns = 0;          ///< %globaltimer after the set-up barrier
    char directions[run_info_directions] = {};  ///< the first steps' directions (the rest in an overflow array)
};

/// Device buffers of the persistent BFS.
struct bfs_buffers {
    unsigned* visited = nullptr;             ///< words
    const unsigned* never = nullptr;         ///< words: isolated vertices (preset as visited: no step looks at them)
    unsigned* ring = nullptr;                ///< 3 x words: frontier of level d = ring slot d % 3
    int* level = nullptr;                    ///< n
    unsigned long long* counters = nullptr;  ///< 3 x count_fields: step_counts of level d in slot d % 3
    bfs_run_info* info = nullptr;
    char* directions = nullptr;              ///< n + 1 (steps past run_info_directions)
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
/// between levels.
template <class Backend>
__global__ void __launch_bounds__(bfs_block, 4)  // 64 registers: 4 blocks per SM, more warps to hide latency
    bit_bfs_kernel(tcore::bitbfs::slices_view g, tcore::bitbfs::csr_view c, bfs_buffers b,
                   tcore::bitbfs::direction_rule rule, int source, long long total_degree)
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
    // Set-up: levels -1 (source 0), visited = isolated vertices + source, frontier = source.
    for (long long i = tid; i < c.n; i += threads) b.level[i] = i == source ? 0 : -1;
    for (long long i = tid; i < words; i += threads) {
        const unsigned s = i == src_word ? src_bit : 0u;
        b.visited[i] = b.never[i] | s;
        b.ring[i] = s;
        b.ring[words + i] = 0;
    }
    if (tid < 3 * count_fields) b.counters[tid] = 0;
    grid.sync();
    if (leader) b.info->start_ns = global_ns();
    long long n_f = 1, n_f_before = 0, m_f = c.row_ptr[source + 1] - c.row_ptr[source];
    long long m_u = total_degree - m_f, reached = 1;
    bool bottom = false, heavy_in_frontier = m_f > bb::heavy_degree;
    for (int depth = 0;; ++depth) {
        bottom = rule.bottom_up(bottom, c.n, n_f, n_f_before, m_f, m_u);
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
        const long long found = static_cast<long long>(__ldcg(counts));
        if (leader) {
            if (depth < run_info_directions) b.info->directions[depth] = bottom ? 'B' : 'T';
            else b.directions[depth] = bottom ? 'B' : 'T';
            if (b.trace && depth < b.trace_levels) {
                level_trace& t = b.trace[depth];
                t.end_ns = global_ns();
                t.frontier = n_f, t.found = found, t.bottom_up = bottom;
                t.slices = static_cast<long long>(__ldcg(counts + 2));
                t.entries = static_cast<long long>(__ldcg(counts + 3));
            }
        }
        if (found == 0) {
            if (leader) b.info->levels = depth + 1, b.info->reached = reached;
            break;
        }
        reached += found;
        n_f_before = n_f;
        n_f = found;
        m_f = static_cast<long long>(__ldcg(counts + 1));
        m_u -= m_f;
        heavy_in_frontier = __ldcg(counts + 4) != 0;
    }
}

/// Newly found vertices of a warp (lanes with `fresh`): warp-aggregated
/// append to the queue and counters. All lanes of the warp must call it.
__device__ inline void csr_emit(bool fresh, int v, const int* degree, int* queue, unsigned long long* counters)
{
    const unsigned mask = __ballot_sync(0xffffffffu, fresh);
    if (!mask) return;
    const int lane = threadIdx.x & 31;
    unsigned long long deg = fresh ? static_cast<unsigned long long>(degree[v]) : 0ull;
    for (int o = 16; o > 0; o >>= 1) deg += __shfl_xor_sync(0xffffffffu, deg, o);
    unsigned long long base = 0;
    if (lane == 0) {
        base = atomicAdd(&counters[0], static_cast<unsigned long long>(__popc(mask)));
        atomicAdd(&counters[1], deg);
    }
    base = __shfl_sync(0xffffffffu, base, 0);
    if (fresh) queue[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

/// Sets v visited if it was not; true if this thread did it.
__device__ inline bool csr_claim(unsigned* visited, int v)
{
    const unsigned bit = 1u << (v & 31);
    if (visited[v >> 5] & bit) return false;
    return !(atomicOr(&visited[v >> 5], bit) & bit);
}

/// Degrees of the frontier queue.
__global__ void csr_queue_degrees_kernel(const int* queue, long long count, const int* degree, long long* qdeg)
{
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        qdeg[i] = degree[queue[i]];
}

/// Top-down: one thread per frontier edge; qoff = inclusive prefix sum of the
/// frontier's degrees (qoff[count - 1] edges in all).
__global__ void __launch_bounds__(bfs_block)
    csr_top_down_kernel(const long long* row_ptr, const int* col, const int* degree, const int* queue, long long count,
                        const long long* qoff, unsigned* visited, unsigned* next, int* level, int depth, int* queue_out,
                        unsigned long long* counters)
{
    const long long total = count > 0 ? qoff[count - 1] : 0;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long base = static_cast<long long>(blockIdx.x) * blockDim.x; base < total; base += stride) {
        const long long e = base + threadIdx.x;
        bool fresh = false;
        int v = 0;
        if (e < total) {
            long long lo = 0, hi = count - 1;  // first i with qoff[i] > e
            while (lo < hi) {
                const long long mid = (lo + hi) >> 1;
                if (qoff[mid] > e) hi = mid;
                else lo = mid + 1;
            }
            const int u = queue[lo];
            const long long first = qoff[lo] - degree[u];
            v = col[row_ptr[u] + (e - first)];
            fresh = csr_claim(visited, v);
            if (fresh) {
                level[v] = depth + 1;
                atomicOr(&next[v >> 5], 1u << (v & 31));
            }
        }
        csr_emit(fresh, v, degree, queue_out, counters);
    }
}

/// Bottom-up: one thread per vertex; an unvisited vertex takes the first
/// neighbour found in the frontier bitmap as its parent.
__global__ void __launch_bounds__(bfs_block)
    csr_bottom_up_kernel(int n, const long long* row_ptr, const int* col, const int* degree, const unsigned* frontier,
                         unsigned* visited, unsigned* next, int* level, int depth, int* queue_out,
                         unsigned long long* counters)
{
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long base = static_cast<long long>(blockIdx.x) * blockDim.x; base < n; base += stride) {
        const long long vl = base + threadIdx.x;
        const int v = static_cast<int>(vl);
        bool found = false;
        if (vl < n && !((visited[v >> 5] >> (v & 31)) & 1u)) {
            for (long long p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
                const int u = col[p];
                if ((frontier[u >> 5] >> (u & 31)) & 1u) {
                    found = true;
                    break;
                }
            }
            if (found) {
                atomicOr(&visited[v >> 5], 1u << (v & 31));  // only this thread sets v
                atomicOr(&next[v >> 5], 1u << (v & 31));
                level[v] = depth + 1;
            }
        }
        csr_emit(found, v, degree, queue_out, counters);
    }
}

// -- drivers ------------------------------------------------------------------------------

/// Blocks for `warps_wanted` warps of bfs_block-thread blocks, at most `cap`.
inline unsigned grid_for_warps(long long warps_wanted, long long cap = 1ll << 20)
{
    const long long per = bfs_block / 32;
    long long b = (warps_wanted + per - 1) / per;
    b = std::max(1ll, std::min(b, cap));
    return static_cast<unsigned>(b);
}

/// Statistics of the last run.
struct bfs_stats {
    int levels = 0;          ///< BFS levels (the source's included)
    std::string directions;  ///< one letter per step: T top-down, B bottom-up
    long long reached = 0;   ///< vertices reached
};

/// tc / cc: the hybrid bitmap BFS, one cooperative launch per BFS. The
/// slices (bit_slices of the graph, usually limited to its hub columns by
/// hub_columns()) cover the columns below s.columns; the graph's CSR covers
/// the rest. Construct once per graph (uploads both), run() per source.
template <class Backend>
class bit_bfs {
public:
    /// top_down_mma_ratio: see tcore::bitbfs::top_down_thresholds (1: slices
    /// read top-down only where they cost no more bytes than the CSR rows;
    /// 0: whenever their column block has a frontier bit).
    bit_bfs(const graph& g, const tcore::bitbfs::bit_slices& s, double top_down_mma_ratio = 1.0)
        : n_(g.n), total_degree_(g.entries())
    {
        require(s.n == g.n, "bit_bfs", "slices and graph differ in vertex count");
        require(g.n > 0, "bit_bfs", "empty graph");
        require(s.columns >= 0 && s.columns <= g.n && s.row_ptr.size() == static_cast<std::size_t>(s.row_blocks) + 1,
                "bit_bfs", "malformed slices");
        row_ptr_.upload(s.row_ptr);
        slice_meta_.upload(tcore::bitbfs::slice_meta(s));
        bits_.upload(s.bits);
        col_slice_.upload(s.col_slice);
        col_row_.upload(s.col_row);
        chunk_col_.upload(s.chunk_col);
        chunk_begin_.upload(s.chunk_begin);
        chunk_end_.upload(s.chunk_end);
        mma_min_frontier_.upload(tcore::bitbfs::top_down_thresholds(s, g.row_ptr.data(), top_down_mma_ratio));
        csr_ptr_.upload(g.row_ptr);
        csr_col_.upload(g.col);
        {
            const tcore::bitbfs::heavy_rows h = tcore::bitbfs::split_heavy_rows(g.n, g.row_ptr.data());
            heavy_vertex_.upload(h.vertex);
            heavy_begin_.upload(h.begin);
            heavy_end_.upload(h.end);
        }
        words_ = (static_cast<std::size_t>(g.n) + 127) / 128 * 4;
        // Isolated vertices are preset as visited: no step ever looks at them.
        std::vector<unsigned> never(words_, 0u);
        for (int v = 0; v < g.n; ++v)
            if (g.degree(v) == 0) never[static_cast<std::size_t>(v) >> 5] |= 1u << (v & 31);
        never_.upload(never);
        visited_.resize(words_), ring_.resize(3 * words_);
        level_.resize(static_cast<std::size_t>(g.n));
        directions_.resize(static_cast<std::size_t>(g.n) + 1);
        counters_.resize(3 * count_fields);
        info_.resize(1);
        view_.n = s.n, view_.row_blocks = s.row_blocks, view_.col_blocks = s.col_blocks, view_.columns = s.columns;
        view_.chunks = s.chunks();
        view_.row_ptr = row_ptr_.get(), view_.slice_meta = slice_meta_.get(), view_.bits = bits_.get();
        view_.col_slice = col_slice_.get(), view_.col_row = col_row_.get();
        view_.chunk_col = chunk_col_.get(), view_.chunk_begin = chunk_begin_.get(), view_.chunk_end = chunk_end_.get();
        view_.mma_min_frontier = mma_min_frontier_.get();
        csr_.n = g.n, csr_.row_ptr = csr_ptr_.get(), csr_.col = csr_col_.get();
        csr_.heavy_chunks = static_cast<long long>(heavy_vertex_.size());
        csr_.heavy_vertex = heavy_vertex_.get(), csr_.heavy_begin = heavy_begin_.get(), csr_.heavy_end = heavy_end_.get();
        int dev = 0, sms = 0, per_sm = 0, coop = 0;
        TCORE_CHECK(cudaGetDevice(&dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        require(coop != 0, "bit_bfs", "the device cannot launch cooperative kernels");
        TCORE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        TCORE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bit_bfs_kernel<Backend>, bfs_block, 0));
        require(per_sm > 0, "bit_bfs", "the BFS kernel does not fit on a multiprocessor");
        grid_ = static_cast<unsigned>(sms * per_sm);  // all resident: the grid barrier needs it
        TCORE_CHECK(cudaMallocHost(&host_info_, sizeof(bfs_run_info)));
    }
    ~bit_bfs() { cudaFreeHost(host_info_); }
    bit_bfs(const bit_bfs&) = delete;
    bit_bfs& operator=(const bit_bfs&) = delete;

    /// BFS from `source`; levels stay on the device (levels() copies them).
    /// One kernel launch, one copy of the run's summary, one synchronisation.
    const bfs_stats& run(int source, cudaStream_t stream = nullptr)
    {
        require(source >= 0 && source < n_, "bit_bfs::run", "source " + std::to_string(source) + " out of range");
        bfs_buffers b;
        b.visited = visited_.get(), b.never = never_.get(), b.ring = ring_.get(), b.level = level_.get();
        b.counters = counters_.get(), b.info = info_.get(), b.directions = directions_.get();
        b.trace = trace_.get(), b.trace_levels = static_cast<int>(trace_.size());
        b.words = static_cast<long long>(words_);
        long long total = total_degree_;
        void* args[] = {&view_, &csr_, &b, &rule_, &source, &total};
        TCORE_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(bit_bfs_kernel<Backend>), dim3(grid_),
                                                dim3(bfs_block), args, 0, stream));
        TCORE_CHECK(cudaMemcpyAsync(host_info_, info_.get(), sizeof(bfs_run_info), cudaMemcpyDeviceToHost, stream));
        TCORE_CHECK(cudaStreamSynchronize(stream));
        const bfs_run_info& info = *host_info_;
        stats_ = {};
        stats_.levels = info.levels;
        stats_.reached = info.reached;
        stats_.directions.assign(info.directions, std::min(info.levels, run_info_directions));
        if (info.levels > run_info_directions) {
            std::string rest(static_cast<std::size_t>(info.levels), ' ');
            TCORE_CHECK(cudaMemcpy(rest.data(), directions_.get(), rest.size(), cudaMemcpyDeviceToHost));
            stats_.directions += rest.substr(run_info_directions);
        }
        start_ns_ = info.start_ns;
        return stats_;
    }

    std::vector<int> levels() const
    {
        std::vector<int> h(static_cast<std::size_t>(n_));
        TCORE_CHECK(cudaMemcpy(h.data(), level_.get(), h.size() * sizeof(int), cudaMemcpyDeviceToHost));
        return h;
    }
    const bfs_stats& stats() const { return stats_; }
    /// The direction rule (tests force one direction with extreme alpha/beta).
    void set_rule(const tcore::bitbfs::direction_rule& r) { rule_ = r; }
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
                csr_col_.size() + heavy_vertex_.size() + mma_min_frontier_.size()) * 4;
    }

private:
    int n_;
    long long total_degree_;
    std::size_t words_ = 0;
    unsigned grid_ = 1;
    unsigned long long start_ns_ = 0;
    tcore::bitbfs::slices_view view_;
    tcore::bitbfs::csr_view csr_;
    tcore::bitbfs::direction_rule rule_;
    dev_array<long long> row_ptr_, chunk_begin_, chunk_end_, csr_ptr_, heavy_begin_, heavy_end_;
    dev_array<int> col_slice_, col_row_, chunk_col_, mma_min_frontier_, csr_col_, heavy_vertex_, level_;
    dev_array<unsigned> slice_meta_, bits_, never_, visited_, ring_;
    dev_array<unsigned long long> counters_;
    dev_array<bfs_run_info> info_;
    dev_array<char> directions_;
    dev_array<level_trace> trace_;
    bfs_run_info* host_info_ = nullptr;
    bfs_stats stats_;
};

/// base: the CSR direction-optimizing BFS.
class csr_bfs {
public:
    explicit csr_bfs(const graph& g) : n_(g.n), total_degree_(g.entries())
    {
        require(g.n > 0, "csr_bfs", "empty graph");
        row_ptr_.upload(g.row_ptr);
        col_.upload(g.col);
        degree_host_.resize(static_cast<std::size_t>(g.n));
        for (int v = 0; v < g.n; ++v) degree_host_[static_cast<std::size_t>(v)] = g.degree(v);
        degree_.upload(degree_host_);
        words_ = (static_cast<std::size_t>(g.n) + 127) / 128 * 4;
        visited_.resize(words_), frontier_.resize(words_), next_.resize(words_);
        level_.resize(static_cast<std::size_t>(g.n));
        queue_a_.resize(static_cast<std::size_t>(g.n)), queue_b_.resize(static_cast<std::size_t>(g.n));
        qdeg_.resize(static_cast<std::size_t>(g.n)), qoff_.resize(static_cast<std::size_t>(g.n));
        counters_.resize(2);
        std::size_t temp = 0;
        TCORE_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp, qdeg_.get(), qoff_.get(), g.n));
        scan_temp_.resize(std::max<std::size_t>(temp, 1));
        scan_bytes_ = temp;
        int dev = 0, sms = 0;
        TCORE_CHECK(cudaGetDevice(&dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        resident_blocks_ = std::max(1, sms) * (2048 / bfs_block);
    }

    const bfs_stats& run(int source, cudaStream_t stream = nullptr)
    {
        require(source >= 0 && source < n_, "csr_bfs::run", "source " + std::to_string(source) + " out of range");
        TCORE_CHECK(cudaMemsetAsync(visited_.get(), 0, words_ * sizeof(unsigned), stream));
        TCORE_CHECK(cudaMemsetAsync(frontier_.get(), 0, words_ * sizeof(unsigned), stream));
        TCORE_CHECK(cudaMemsetAsync(level_.get(), 0xFF, static_cast<std::size_t>(n_) * sizeof(int), stream));
        bfs_seed_kernel<<<1, 1, 0, stream>>>(visited_.get(), frontier_.get(), level_.get(), queue_a_.get(), source);
        TCORE_CHECK_LAUNCH();
        unsigned* frontier = frontier_.get();
        unsigned* next = next_.get();
        int* queue = queue_a_.get();
        int* queue_next = queue_b_.get();
        long long n_f = 1, n_f_before = 0, m_f = degree_host_[static_cast<std::size_t>(source)];
        long long m_u = total_degree_ - m_f, reached = 1;
        bool bottom = false;
        stats_ = {};
        for (int depth = 0;; ++depth) {
            bottom = rule_.bottom_up(bottom, n_, n_f, n_f_before, m_f, m_u);
            TCORE_CHECK(cudaMemsetAsync(next, 0, words_ * sizeof(unsigned), stream));
            TCORE_CHECK(cudaMemsetAsync(counters_.get(), 0, 2 * sizeof(unsigned long long), stream));
            if (bottom) {
                const long long blocks = std::min<long long>((n_ + bfs_block - 1) / bfs_block, 8ll * resident_blocks_);
                csr_bottom_up_kernel<<<static_cast<unsigned>(blocks), bfs_block, 0, stream>>>(
                    n_, row_ptr_.get(), col_.get(), degree_.get(), frontier, visited_.get(), next, level_.get(), depth,
                    queue_next, counters_.get());
                TCORE_CHECK_LAUNCH();
            } else {
                const long long qblocks = std::min<long long>((n_f + bfs_block - 1) / bfs_block, 4ll * resident_blocks_);
                csr_queue_degrees_kernel<<<static_cast<unsigned>(qblocks), bfs_block, 0, stream>>>(queue, n_f, degree_.get(),
                                                                                                  qdeg_.get());
                TCORE_CHECK_LAUNCH();
                std::size_t bytes = scan_bytes_;
                TCORE_CHECK(cub::DeviceScan::InclusiveSum(scan_temp_.get(), bytes, qdeg_.get(), qoff_.get(),
                                                          static_cast<int>(n_f), stream));
                // m_f (the frontier's degree sum) is the number of edges to expand.
                const long long blocks = std::min<long long>(std::max(1ll, (m_f + bfs_block - 1) / bfs_block),
                                                             8ll * resident_blocks_);
                csr_top_down_kernel<<<static_cast<unsigned>(blocks), bfs_block, 0, stream>>>(
                    row_ptr_.get(), col_.get(), degree_.get(), queue, n_f, qoff_.get(), visited_.get(), next,
                    level_.get(), depth, queue_next, counters_.get());
                TCORE_CHECK_LAUNCH();
            }
            TCORE_CHECK(cudaMemcpyAsync(host_.get(), counters_.get(), 2 * sizeof(unsigned long long),
                                        cudaMemcpyDeviceToHost, stream));
            TCORE_CHECK(cudaStreamSynchronize(stream));
            stats_.directions += bottom ? 'B' : 'T';
            const long long found = static_cast<long long>(host_.get()[0]);
            if (found == 0) {
                stats_.levels = depth + 1;
                break;
            }
            reached += found;
            std::swap(frontier, next);
            std::swap(queue, queue_next);
            n_f_before = n_f;
            n_f = found;
            m_f = static_cast<long long>(host_.get()[1]);
            m_u -= m_f;
        }
        stats_.reached = reached;
        return stats_;
    }

    std::vector<int> levels() const
    {
        std::vector<int> h(static_cast<std::size_t>(n_));
        TCORE_CHECK(cudaMemcpy(h.data(), level_.get(), h.size() * sizeof(int), cudaMemcpyDeviceToHost));
        return h;
    }
    const bfs_stats& stats() const { return stats_; }
    void set_rule(const tcore::bitbfs::direction_rule& r) { rule_ = r; }
    std::size_t device_bytes() const { return row_ptr_.size() * 8 + col_.size() * 4; }

private:
    int n_;
    long long total_degree_;
    std::size_t words_ = 0, scan_bytes_ = 0;
    int resident_blocks_ = 1;
    tcore::bitbfs::direction_rule rule_;
    dev_array<long long> row_ptr_, qdeg_, qoff_;
    dev_array<int> col_, degree_, level_, queue_a_, queue_b_;
    dev_array<unsigned> visited_, frontier_, next_;
    dev_array<unsigned long long> counters_;
    dev_array<unsigned char> scan_temp_;
    std::vector<int> degree_host_;
    pinned_counters host_;
    bfs_stats stats_;
};

}  // namespace tcore::examples::bfs
