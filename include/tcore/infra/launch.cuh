// tcore/infra/launch.cuh - host helpers the launchers share and a user's
// launcher can call: device queries for grid sizing (sm_count,
// blocks_per_sm, resident_grid, dram_gbs_per_sm), a per-device cache for
// such answers (cached_per_device), pointer alignment and
// argument checks (aligned, require_pointer, require_size), ceil_div and
// grid_of (a 1D grid for a thread count, checked against the grid limit).
#pragma once

#include "../check.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tcore {

/// The sum type of an input type: FP64 sums in FP64, FP16 sums in FP32.
template <class T>
struct sum_type {
    static_assert(std::is_same_v<T, double> || std::is_same_v<T, __half>, "inputs are double or __half");
    using type = std::conditional_t<std::is_same_v<T, double>, double, float>;
};
template <class T>
using sum_type_t = typename sum_type<T>::type;

/// The current device's multiprocessor count.
inline int sm_count()
{
    int dev = 0, sms = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    TCORE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return sms > 0 ? sms : 1;
}

/// cache[d] for the current device d, set by compute(d) the first time: a
/// launcher's per-device answer (resident blocks, a bandwidth) asked once.
/// A value equal to T{} counts as not yet computed; devices past 63 are
/// computed on every call.
template <class T, class Compute>
inline T cached_per_device(T (&cache)[64], Compute compute)
{
    int dev = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    const bool slot = dev >= 0 && dev < 64;
    if (slot && cache[dev] != T{}) return cache[dev];
    const T v = compute(dev);
    if (slot) cache[dev] = v;
    return v;
}

/// The current device's peak DRAM bandwidth per multiprocessor in GB/s
/// (memory clock x 2 transfers x bus width, over the SMs), cached per device.
inline double dram_gbs_per_sm()
{
    static double cached[64] = {};
    return cached_per_device(cached, [](int dev) {
        int khz = 0, bits = 0;
        TCORE_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev));
        return 2.0 * khz * 1e3 * bits / 8.0 / 1e9 / sm_count();
    });
}

/// Resident blocks of `kernel` per multiprocessor (at least 1).
template <class Kernel>
inline int blocks_per_sm(Kernel kernel, int threads, std::size_t dynamic_smem = 0)
{
    int blocks = 0;
    TCORE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem));
    return blocks > 0 ? blocks : 1;
}

/// A grid that fills the device once with `kernel`, capped at `max_blocks` (>= 1).
template <class Kernel>
inline long long resident_grid(Kernel kernel, int threads, long long max_blocks)
{
    const long long full = static_cast<long long>(sm_count()) * blocks_per_sm(kernel, threads);
    const long long g = full < max_blocks ? full : max_blocks;
    return g > 0 ? g : 1;
}

/// True where `p` is a multiple of `bytes`.
inline bool aligned(const void* p, std::size_t bytes)
{
    return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

/// Checks that a pointer the kernels dereference is set and aligned to its
/// element type (the message is built only on failure: launchers call this
/// on every launch).
template <class T>
inline void require_pointer(const T* p, const char* where, const char* name)
{
    if (p == nullptr) throw error(std::string(where) + ": " + name + " is a null pointer");
    if (!aligned(p, alignof(T)))
        throw error(std::string(where) + ": " + name + " is not aligned to its element type (" +
                    std::to_string(alignof(T)) + " bytes)");
}

/// Checks that a size argument is not negative.
inline void require_size(long long v, const char* where, const char* name)
{
    if (v < 0) throw error(std::string(where) + ": " + name + " is negative (" + std::to_string(v) + ")");
}

/// Ceiling division for non-negative values.
__host__ __device__ constexpr long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// Blocks of `per_block` threads for `threads` threads (at least one); a
/// tcore::error from `where` if that passes the grid limit of 2^31 - 1.
inline unsigned grid_of(long long threads, int per_block, const char* where)
{
    const long long g = ceil_div(threads, per_block);
    require(g < (1LL << 31), where, "the problem needs more than 2^31 - 1 thread blocks");
    return static_cast<unsigned>(g > 0 ? g : 1);
}

}  // namespace tcore
