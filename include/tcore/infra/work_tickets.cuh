// tcore/infra/work_tickets.cuh - dynamic work order for persistent
// kernels: blocks take work items in order from a counter in device memory,
// so that faster blocks take more items and the items in progress stay a
// compact window of the item order (neighbouring tiles are loaded close in
// time, and the halo one tile reads is still in L2 when the next reads it).
//
//   stream_tickets(stream)         host: the counter for launches on `stream`
//   take_tickets(t, n)             device: the first of n consecutive items
//   tickets_block_done(t)          device: one thread per block, after its
//                                  last take; the last block resets t
//   item_queue<B>                  device: a persistent block's items, B
//                                  known ahead (for B-deep prefetching), from
//                                  tickets or in grid-stride order
//
// The counter needs no reset between launches: the block that finishes last
// sets it back to zero (every block's last take precedes its done count, so
// no take can follow the reset). Launches on one stream run one after the
// other and share a counter; each (device, stream) pair gets its own, made
// on first use (16 bytes, kept until the process exits) and zeroed by a
// memset queued on that stream. A stream being captured into a CUDA graph
// cannot allocate: there stream_tickets returns a counter made before the
// capture, else none (the kernels then take their items in grid-stride
// order). A graph that holds a counter must not be replayed while another
// launch on the capturing stream (or another replay) may run.
#pragma once

#include "../check.cuh"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <utility>

namespace tcore {

/// Counter pair in device memory: [0] the next item, [1] blocks done.
struct work_tickets {
    unsigned long long* counter = nullptr;
};

/// The counter for launches on `stream` (current device).
namespace detail {

/// The counters of stream_tickets, freed when the process exits (before the
/// CUDA runtime's own teardown, which was registered earlier; errors are
/// ignored there, as the runtime may already be unloading).
struct ticket_counters {
    std::map<std::pair<int, cudaStream_t>, unsigned long long*> by_stream;
    ~ticket_counters()
    {
        for (const auto& entry : by_stream) {
            if (cudaSetDevice(entry.first.first) == cudaSuccess) cudaFree(entry.second);
        }
    }
};

}  // namespace detail

inline work_tickets stream_tickets(cudaStream_t stream)
{
    static std::mutex lock;
    static detail::ticket_counters tickets;
    auto& counters = tickets.by_stream;
    int dev = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> hold(lock);
    const auto found = counters.find({dev, stream});
    if (found != counters.end()) return {found->second};
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    TCORE_CHECK(cudaStreamIsCapturing(stream, &capture));
    if (capture != cudaStreamCaptureStatusNone) return {};
    unsigned long long* c = nullptr;
    TCORE_CHECK(cudaMalloc(&c, 2 * sizeof(unsigned long long)));
    TCORE_CHECK(cudaMemsetAsync(c, 0, 2 * sizeof(unsigned long long), stream));
    counters[{dev, stream}] = c;
    return {c};
}

/// The first of n consecutive items for the calling thread's block.
__device__ inline long long take_tickets(work_tickets t, unsigned n)
{
    return static_cast<long long>(atomicAdd(t.counter, static_cast<unsigned long long>(n)));
}

/// Called by one thread of each block after the block's last take_tickets.
__device__ inline void tickets_block_done(work_tickets t)
{
    __threadfence();
    if (atomicAdd(t.counter + 1, 1ull) == gridDim.x - 1ull) {
        atomicExch(t.counter, 0ull);
        atomicExch(t.counter + 1, 0ull);
    }
}

/// The work items of a persistent block, the next B always known, so that a
/// kernel can prefetch B - 1 items ahead. It lives in shared memory; thread
/// 0 takes the items (from the tickets, or blockIdx.x + k * gridDim.x when
/// the counter is null) and barriers publish them:
///
///   __shared__ item_queue<B> q;
///   q.start(tickets);  __syncthreads();
///   for (int k = 0; q.at(k) < items; ++k) {
///       ... q.at(k + B - 1) may be prefetched; then a barrier, after which
///       const long long next = q.take(tickets, k);  // item k + B (thread 0)
///       ... work on q.at(k) ...
///       q.publish(k, next);  __syncthreads();  // (any later barrier of iteration k)
///   }
///   q.done(tickets);
///
/// Items come in increasing order, so the first one past the end ends the
/// loop. The tickets are passed to each call (a kernel parameter) rather
/// than kept, so that the queue holds no registers across the loop.
template <int B>
struct item_queue {
    long long slot[B];

    __device__ void start(work_tickets t)
    {
        if (threadIdx.x == 0) {
            const long long first = t.counter ? take_tickets(t, B) : blockIdx.x;
            for (int j = 0; j < B; ++j) slot[j] = t.counter ? first + j : first + j * static_cast<long long>(gridDim.x);
        }
    }
    __device__ long long at(int k) const { return slot[k % B]; }
    /// Thread 0, during iteration k (after every thread has read at(k)): item k + B.
    __device__ long long take(work_tickets t, int k) const
    {
        if (threadIdx.x != 0) return 0;
        return t.counter ? take_tickets(t, 1) : at(k) + B * static_cast<long long>(gridDim.x);
    }
    /// Thread 0: item k + B into the slot of item k.
    __device__ void publish(int k, long long next)
    {
        if (threadIdx.x == 0) slot[k % B] = next;
    }
    __device__ void done(work_tickets t) const
    {
        if (t.counter && threadIdx.x == 0) tickets_block_done(t);
    }
};

}  // namespace tcore
