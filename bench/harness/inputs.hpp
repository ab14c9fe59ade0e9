// bench/harness/inputs.hpp - small helpers the workloads share: reproducible
// random inputs (splitmix64, never zero: zeros hide unwritten outputs and
// run faster than real data), a device array, and the names and numbers of
// the report.
#pragma once

#include <tcore/check.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tcore::bench {

/// n values uniform in (lo, hi), never exactly zero, the same for the same seed.
inline std::vector<double> random_uniform(std::size_t n, std::uint64_t seed, double lo = -2.0, double hi = 2.0)
{
    std::vector<double> v(n);
    std::uint64_t state = seed;
    for (std::size_t i = 0; i < n; ++i) {
        double x = 0;
        while (x == 0) {
            std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            z ^= z >> 31;
            x = lo + (hi - lo) * static_cast<double>(z >> 11) * 0x1.0p-53;
        }
        v[i] = x;
    }
    return v;
}

/// A cudaMalloc'd array of n elements (none for n = 0), freed on scope exit.
template <class T>
struct device_array {
    T* ptr = nullptr;
    explicit device_array(std::size_t n)
    {
        if (n) TCORE_CHECK(cudaMalloc(&ptr, n * sizeof(T)));
    }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    void upload(const std::vector<T>& host)
    {
        TCORE_CHECK(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
};

/// "2^k" for a power of two, else the number.
inline std::string pow2_name(long long n)
{
    if (n > 0 && (n & (n - 1)) == 0) {
        int k = 0;
        while ((1LL << k) < n) ++k;
        return "2^" + std::to_string(k);
    }
    return std::to_string(n);
}

/// A ratio with three decimals, for summary lines.
inline std::string fixed3(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

}  // namespace tcore::bench
