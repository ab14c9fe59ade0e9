// tcore/infra/look_back.cuh - decoupled look-back: how a block tile of a
// single-pass scan learns the sum of every tile before it (Merrill and
// Garland, "Single-pass parallel prefix scan with decoupled look-back",
// NVIDIA technical report NVR-2016-002).
//
// Tile j publishes a tile_status: first its aggregate (the sum of its own
// elements, status 1) as soon as it is known, then its inclusive prefix (the
// sum of tiles 0..j, status 2). A later tile's warp reads the statuses of the
// 32 tiles before it at once, waits while any of them has published nothing
// (status 0), adds the aggregates back to the nearest inclusive prefix and,
// if it met none, moves 32 tiles further back. Value and status share one 8-
// or 16-byte word, written and read with one vector access each (as CUB's
// tile descriptors are), so a status is never seen with a stale value and one
// round trip to L2 serves each window.
//
// Progress needs tile ids taken in the order blocks start (an atomic counter,
// not blockIdx), and each block handling its ids in increasing order: the
// smallest unfinished tile then only waits on tiles that have published.
// The sums of a window are a shuffle tree, so the result depends on which
// predecessors had published: not bitwise reproducible run to run.
#pragma once

#include "../frag/fragment.cuh"

#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

namespace tcore {

/// A block tile's published prefix: status 0 nothing yet, 1 aggregate, 2 inclusive.
template <class S>
struct alignas(2 * sizeof(S)) tile_status {
    static_assert(sizeof(S) == 8 || sizeof(S) == 4, "4- or 8-byte sums");
    using status_type = std::conditional_t<sizeof(S) == 8, long long, int>;
    S value;
    status_type status;
};

inline constexpr int tile_status_none = 0;
inline constexpr int tile_status_aggregate = 1;
inline constexpr int tile_status_inclusive = 2;

namespace detail {

/// Writes value and status with one relaxed 16- or 8-byte store at GPU scope.
template <class S>
__device__ inline void publish_status(tile_status<S>* p, S value, int status)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    if constexpr (sizeof(S) == 8) {
        long long v;
        memcpy(&v, &value, sizeof v);
        asm volatile("st.relaxed.gpu.v2.b64 [%0], {%1, %2};" ::"l"(p), "l"(v), "l"(static_cast<long long>(status))
                     : "memory");
    } else {
        unsigned v;
        memcpy(&v, &value, sizeof v);
        asm volatile("st.relaxed.gpu.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(v), "r"(status) : "memory");
    }
#else
    volatile tile_status<S>* q = p;
    q->value = value;
    __threadfence();
    q->status = status;
#endif
}

/// Reads value and status with one relaxed 16- or 8-byte load at GPU scope.
template <class S>
__device__ inline tile_status<S> observe_status(const tile_status<S>* p)
{
    tile_status<S> r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    if constexpr (sizeof(S) == 8) {
        long long v, st;
        asm volatile("ld.relaxed.gpu.v2.b64 {%0, %1}, [%2];" : "=l"(v), "=l"(st) : "l"(p) : "memory");
        memcpy(&r.value, &v, sizeof v);
        r.status = st;
    } else {
        unsigned v;
        int st;
        asm volatile("ld.relaxed.gpu.v2.b32 {%0, %1}, [%2];" : "=r"(v), "=r"(st) : "l"(p) : "memory");
        memcpy(&r.value, &v, sizeof v);
        r.status = st;
    }
#else
    const volatile tile_status<S>* q = p;
    r.status = q->status;
    __threadfence();
    r.value = q->value;
#endif
    return r;
}

}  // namespace detail

/// Called by one whole warp for block tile `tile` whose elements sum to
/// `aggregate`: publishes it, returns the sum of all earlier tiles (on every
/// lane) and publishes the inclusive prefix. `status` holds one entry per
/// tile, zeroed before the launch.
template <class S>
__device__ inline S look_back(tile_status<S>* status, long long tile, S aggregate)
{
    const int lane = lane_id();
    if (tile == 0) {
        if (lane == 0) detail::publish_status(&status[0], aggregate, tile_status_inclusive);
        return S(0);
    }
    if (lane == 0) detail::publish_status(&status[tile], aggregate, tile_status_aggregate);
    S prefix = 0;
    for (long long window = tile - 1;; window -= 32) {
        const long long j = window - lane;  // lane 0 reads the nearest predecessor
        tile_status<S> d{S(0), tile_status_inclusive};
        if (j >= 0) d = detail::observe_status(&status[j]);
        while (__any_sync(0xffffffffu, d.status == tile_status_none)) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
            __nanosleep(64);
#endif
            if (d.status == tile_status_none) d = detail::observe_status(&status[j]);
        }
        const unsigned inclusive = __ballot_sync(0xffffffffu, d.status == tile_status_inclusive);
        S v = d.value;
        if (inclusive != 0u && lane > __ffs(inclusive) - 1) v = S(0);  // stop at the nearest inclusive prefix
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        prefix += v;
        if (inclusive != 0u) break;
    }
    if (lane == 0) detail::publish_status(&status[tile], prefix + aggregate, tile_status_inclusive);
    return prefix;
}

}  // namespace tcore
