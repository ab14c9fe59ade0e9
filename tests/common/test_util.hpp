// tests/common/test_util.hpp - what every tcore test shares: a seeded RNG
// (TCORE_TEST_SEED reproduces a run), a pass/fail tally that ends with the
// "N passed, N failed" line, a GPU-or-skip (exit 77) guard, device buffers
// that are poisoned before each use, and NaN-aware element comparison.
#pragma once

#include <tcore/check.cuh>

#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace tcore::test {

/// splitmix64: small, fast, and the same on every platform.
struct rng {
    std::uint64_t state;
    explicit rng(std::uint64_t seed) : state(seed) {}
    std::uint64_t next()
    {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform in [lo, hi).
    double uniform(double lo = -1.0, double hi = 1.0) { return lo + (hi - lo) * ((next() >> 11) * 0x1.0p-53); }
    /// Uniform in [lo, hi) but never exactly zero (tests must not hide behind zeros).
    double nonzero(double lo = -1.0, double hi = 1.0)
    {
        for (;;) {
            const double v = uniform(lo, hi);
            if (v != 0.0) return v;
        }
    }
    std::uint32_t bits32() { return static_cast<std::uint32_t>(next() >> 32); }
};

/// The run's seed: TCORE_TEST_SEED if set, else the clock. Printed once.
inline std::uint64_t seed()
{
    static const std::uint64_t s = [] {
        const char* env = std::getenv("TCORE_TEST_SEED");
        const std::uint64_t v = env ? std::strtoull(env, nullptr, 0)
                                    : static_cast<std::uint64_t>(
                                          std::chrono::steady_clock::now().time_since_epoch().count());
        std::printf("seed %llu (set TCORE_TEST_SEED to reproduce)\n", static_cast<unsigned long long>(v));
        return v;
    }();
    return s;
}

/// Counts checks; prints failures (the first `max_reports` of them) and the closing line.
struct tally {
    int passed = 0, failed = 0, max_reports = 20;
    bool check(bool ok, const char* fmt, ...)
    {
        if (ok) {
            ++passed;
            return true;
        }
        if (++failed <= max_reports) {
            std::va_list args;
            va_start(args, fmt);
            std::printf("FAIL: ");
            std::vprintf(fmt, args);
            std::printf("\n");
            va_end(args);
        }
        return false;
    }
    /// Checks that f() throws tcore::error (whose message contains `needle`,
    /// if given): how host entry points must refuse bad arguments. Prints the
    /// first message, so a run shows what a user would read.
    template <class F>
    void expect_error(const char* what, F&& f, const char* needle = nullptr)
    {
        try {
            f();
            check(false, "no tcore::error for %s", what);
        } catch (const tcore::error& e) {
            const bool names_it = !needle || std::strstr(e.what(), needle);
            check(names_it, "%s: message '%s' lacks '%s'", what, e.what(), needle ? needle : "");
            if (names_it && !shown_error) {
                std::printf("  e.g. rejects %s: \"%s\"\n", what, e.what());
                shown_error = true;
            }
        }
    }
    bool shown_error = false;

    /// Prints "N passed, N failed" and returns the process exit code.
    int finish() const
    {
        std::printf("%d passed, %d failed\n", passed, failed);
        return failed == 0 ? 0 : 1;
    }
};

/// Exits with 77 (ctest: skipped) where no CUDA device is usable.
inline void require_gpu_or_skip()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        std::printf("no CUDA device: skipped\n");
        std::exit(77);
    }
}

/// |got - ref| <= tol, with NaN only matching NaN and infinities matching exactly.
inline bool close(double got, double ref, double tol)
{
    if (std::isnan(ref)) return std::isnan(got);
    if (std::isinf(ref)) return got == ref;
    return std::fabs(got - ref) <= tol;
}

/// A device array; poison() fills it with a byte pattern (0xFF: NaN for
/// floating types) so unwritten outputs are caught.
template <class T>
struct device_buffer {
    T* ptr = nullptr;
    std::size_t count = 0;
    explicit device_buffer(std::size_t n) : count(n)
    {
        if (n) TCORE_CHECK(cudaMalloc(&ptr, n * sizeof(T)));
    }
    ~device_buffer() { cudaFree(ptr); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    void upload(const std::vector<T>& host)
    {
        TCORE_CHECK(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> download() const
    {
        std::vector<T> host(count);
        if (count) TCORE_CHECK(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }
    void poison(unsigned char byte = 0xFF)
    {
        if (count) TCORE_CHECK(cudaMemset(ptr, byte, count * sizeof(T)));
    }
};

/// Path of the shipped matrix `name` (.mtx): ../shared/data/matrices beside
/// the repository (tests run from its root), or shared/data/matrices inside it.
inline std::string shipped_matrix(const char* name)
{
    for (const char* dir : {"../shared/data/matrices/", "shared/data/matrices/"}) {
        const std::string path = std::string(dir) + name + ".mtx";
        if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
            std::fclose(f);
            return path;
        }
    }
    return std::string("../shared/data/matrices/") + name + ".mtx";
}

}  // namespace tcore::test
