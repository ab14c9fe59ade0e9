// examples/bfs/bfs_edge_scan.cuh - the BFS workload's earlier base opponent,
// kept as the variant base-old so that the base of bfs_base.cuh can be
// measured against it in one run (also used by tests/gpu/test_bfs.cu).
//
//   edge_scan_bfs     a CUDA-core direction-optimizing BFS on CSR: top-down
//                     expands a frontier queue with load-balanced edges
//                     (prefix sum of the frontier's degrees by cub, one
//                     thread per edge, binary search for its vertex),
//                     bottom-up gives every unvisited vertex a thread that
//                     scans its neighbours until one is in the frontier
//                     bitmap; several launches and memsets per level, the
//                     host reads two counters (new vertices, their degree
//                     sum) per level; an atomicOr per new vertex on the
//                     visited and next bitmaps in both directions
// It switches direction with the same rule as csr_bfs and bit_bfs (Beamer,
// alpha 14, beta 24). Levels: -1 unreached, 0 the source.
#pragma once

#include "bfs_base.cuh"
#include "bfs_graphs.hpp"

#include <tcore/check.cuh>
#include <tcore/patterns/device/bfs_search.cuh>

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

/// base-old: the edge-parallel direction-optimizing BFS.
class edge_scan_bfs {
public:
    explicit edge_scan_bfs(const graph& g) : n_(g.n), total_degree_(g.entries())
    {
        require(g.n > 0, "edge_scan_bfs", "empty graph");
        row_ptr_.upload(g.row_ptr);
        col_.upload(g.col);
        degree_host_.resize(static_cast<std::size_t>(g.n));
        for (int v = 0; v < g.n; ++v) degree_host_[static_cast<std::size_t>(v)] = g.degree(v);
        with_edges_ = std::count_if(degree_host_.begin(), degree_host_.end(), [](int d) { return d > 0; });
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
        require(source >= 0 && source < n_, "edge_scan_bfs::run", "source " + std::to_string(source) + " out of range");
        TCORE_CHECK(cudaMemsetAsync(visited_.get(), 0, words_ * sizeof(unsigned), stream));
        TCORE_CHECK(cudaMemsetAsync(frontier_.get(), 0, words_ * sizeof(unsigned), stream));
        TCORE_CHECK(cudaMemsetAsync(level_.get(), 0xFF, static_cast<std::size_t>(n_) * sizeof(int), stream));
        bfs_seed_kernel<<<1, 1, 0, stream>>>(visited_.get(), frontier_.get(), level_.get(), queue_a_.get(), source);
        TCORE_CHECK_LAUNCH();
        unsigned* frontier = frontier_.get();
        unsigned* next = next_.get();
        int* queue = queue_a_.get();
        int* queue_next = queue_b_.get();
        tcore::bitbfs::frontier_sizes sizes(degree_host_[static_cast<std::size_t>(source)], total_degree_, with_edges_);
        long long reached = 1;
        bool bottom = false;
        stats_ = {};
        for (int depth = 0;; ++depth) {
            bottom = sizes.bottom_up(rule_, bottom, n_);
            TCORE_CHECK(cudaMemsetAsync(next, 0, words_ * sizeof(unsigned), stream));
            TCORE_CHECK(cudaMemsetAsync(counters_.get(), 0, 2 * sizeof(unsigned long long), stream));
            if (bottom) {
                const long long blocks = std::min<long long>((n_ + bfs_block - 1) / bfs_block, 8ll * resident_blocks_);
                csr_bottom_up_kernel<<<static_cast<unsigned>(blocks), bfs_block, 0, stream>>>(
                    n_, row_ptr_.get(), col_.get(), degree_.get(), frontier, visited_.get(), next, level_.get(), depth,
                    queue_next, counters_.get());
                TCORE_CHECK_LAUNCH();
            } else {
                const long long qblocks =
                    std::min<long long>((sizes.n_f + bfs_block - 1) / bfs_block, 4ll * resident_blocks_);
                csr_queue_degrees_kernel<<<static_cast<unsigned>(qblocks), bfs_block, 0, stream>>>(
                    queue, sizes.n_f, degree_.get(), qdeg_.get());
                TCORE_CHECK_LAUNCH();
                std::size_t bytes = scan_bytes_;
                TCORE_CHECK(cub::DeviceScan::InclusiveSum(scan_temp_.get(), bytes, qdeg_.get(), qoff_.get(),
                                                          static_cast<int>(sizes.n_f), stream));
                // m_f (the frontier's degree sum) is the number of edges to expand.
                const long long blocks = std::min<long long>(std::max(1ll, (sizes.m_f + bfs_block - 1) / bfs_block),
                                                             8ll * resident_blocks_);
                csr_top_down_kernel<<<static_cast<unsigned>(blocks), bfs_block, 0, stream>>>(
                    row_ptr_.get(), col_.get(), degree_.get(), queue, sizes.n_f, qoff_.get(), visited_.get(), next,
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
            sizes.advance(found, static_cast<long long>(host_.get()[1]));
        }
        stats_.reached = reached;
        return stats_;
    }

    std::vector<int> levels() const { return level_.download(); }
    const bfs_stats& stats() const { return stats_; }
    void set_rule(const tcore::bitbfs::direction_rule& r)
    {
        tcore::bitbfs::check_rule(r, "edge_scan_bfs::set_rule");
        rule_ = r;
    }
    std::size_t device_bytes() const { return row_ptr_.size() * 8 + col_.size() * 4; }

private:
    int n_;
    long long total_degree_, with_edges_ = 0;
    std::size_t words_ = 0, scan_bytes_ = 0;
    int resident_blocks_ = 1;
    tcore::bitbfs::direction_rule rule_;
    tcore::device_array<long long> row_ptr_, qdeg_, qoff_;
    tcore::device_array<int> col_, degree_, level_, queue_a_, queue_b_;
    tcore::device_array<unsigned> visited_, frontier_, next_;
    tcore::device_array<unsigned long long> counters_;
    tcore::device_array<unsigned char> scan_temp_;
    std::vector<int> degree_host_;
    pinned_counters host_;
    bfs_stats stats_;
};

}  // namespace tcore::examples::bfs
