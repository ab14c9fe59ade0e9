// tests/common/test_util.hpp - what every tcore test shares: a seeded RNG
// (TCORE_TEST_SEED reproduces a run), a pass/fail/skip tally that ends with
// the "N passed, N failed, N skipped" line, a GPU-or-skip (exit 77) guard,
// device buffers that are poisoned before each use, NaN-aware element
// comparison and a NaN-propagating worst-error accumulator, the quick-mode
// level, planted faults, and the lookup of the test matrices.
//
// Exit codes of tally::finish: 1 if a check failed or no check ran at all;
// 77 (ctest: skipped) if every sub-check was skipped; else 0. A skipped
// sub-check is a named "SKIPPED: ..." line, repeated in the summary.
//
// TCORE_TEST_QUICK: unset, empty or 0 = full sizes; 1 = reduced sizes;
// 2 = smallest sizes (sanitizer runs). Anything else is an error (exit 2).
//
// TCORE_TEST_PLANT=<name> plants one fault at a place the test names with
// planted("<name>") (an output element perturbed after the kernel, a NaN put
// into a result, a poisoning left out, no check run, ...): the test must
// then fail. tests/gpu/plant.sh runs every (test, plant) pair. Without the
// variable planted() is false everywhere.
#pragma once

#include <tcore/check.cuh>
#include <tcore/infra/splitmix64.cuh>

#include <cuda_runtime.h>

#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace tcore::test {

/// splitmix64: small, fast, and the same on every platform.
struct rng {
    std::uint64_t state;
    explicit rng(std::uint64_t seed) : state(seed) {}
    std::uint64_t next() { return splitmix64_mix(state += splitmix64_gamma); }
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

/// The planted fault's name (TCORE_TEST_PLANT), or nullptr.
inline const char* plant_name()
{
    static const char* const p = [] {
        const char* e = std::getenv("TCORE_TEST_PLANT");
        return e && *e ? e : nullptr;
    }();
    return p;
}

/// Runs f(); false (with tcore::error's message printed) if it throws one.
template <class F>
bool no_error(F&& f)
{
    try {
        f();
        return true;
    } catch (const tcore::error& e) {
        std::printf("  %s\n", e.what());
        return false;
    }
}

/// True where TCORE_TEST_PLANT names this fault; announces it the first time.
inline bool planted(const char* name)
{
    const char* p = plant_name();
    if (!p || std::strcmp(p, name) != 0) return false;
    static bool announced = false;
    if (!announced) std::printf("PLANTED: %s (this run must fail)\n", name);
    announced = true;
    return true;
}

/// The quick level a TCORE_TEST_QUICK value names: 0 (null, empty or "0"),
/// 1 or 2; -1 for anything else.
inline int parse_quick_level(const char* e)
{
    if (!e || !*e || std::strcmp(e, "0") == 0) return 0;
    if (std::strcmp(e, "1") == 0) return 1;
    if (std::strcmp(e, "2") == 0) return 2;
    return -1;
}

/// TCORE_TEST_QUICK as a level: 0 (unset, empty or "0"), 1 or 2; any other
/// value ends the test (exit 2).
inline int quick_level()
{
    static const int level = [] {
        const char* e = std::getenv("TCORE_TEST_QUICK");
        const int l = parse_quick_level(e);
        if (l < 0) {
            std::printf("TCORE_TEST_QUICK=%s: expected 0, 1 or 2\n", e);
            std::exit(2);
        }
        return l;
    }();
    return level;
}
inline bool quick() { return quick_level() > 0; }

/// The larger of two errors, NaN if either is NaN: a worst error that a NaN
/// anywhere makes NaN (std::fmax and std::max would drop it), so that a check
/// "worst <= tol" fails on it.
inline double worst_of(double worst, double err)
{
    if (std::isnan(worst) || std::isnan(err)) return std::numeric_limits<double>::quiet_NaN();
    return err > worst ? err : worst;
}

/// gamma_n = n u / (1 - n u): the relative error bound of n rounded
/// operations in a sum or dot product of n terms (any order), unit roundoff u.
inline double gamma(double n, double u) { return n * u / (1.0 - n * u); }

/// Counts checks and skipped sub-checks; prints failures (the first
/// `max_reports` of them), skips, and the closing line.
struct tally {
    int passed = 0, failed = 0, max_reports = 20;
    std::vector<std::string> skips;
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
    /// Records a sub-check that did not run (and why): "SKIPPED: ...", never a pass.
    void skip(const char* fmt, ...)
    {
        char buf[512];
        std::va_list args;
        va_start(args, fmt);
        std::vsnprintf(buf, sizeof buf, fmt, args);
        va_end(args);
        std::printf("SKIPPED: %s\n", buf);
        skips.emplace_back(buf);
    }
    int skipped() const { return static_cast<int>(skips.size()); }
    /// Checks that f() throws tcore::error whose message contains `needle`
    /// (and `needle2`, if given): how host entry points must refuse bad
    /// arguments. Prints the first message, so a run shows what a user would read.
    template <class F>
    void expect_error(const char* what, F&& f, const char* needle = nullptr, const char* needle2 = nullptr)
    {
        try {
            f();
            check(false, "no tcore::error for %s", what);
        } catch (const tcore::error& e) {
            const bool names_it = (!needle || std::strstr(e.what(), needle)) && (!needle2 || std::strstr(e.what(), needle2));
            check(names_it, "%s: message '%s' lacks '%s'%s%s%s", what, e.what(), needle ? needle : "",
                  needle2 ? " or '" : "", needle2 ? needle2 : "", needle2 ? "'" : "");
            if (names_it && !shown_error) {
                std::printf("  e.g. rejects %s: \"%s\"\n", what, e.what());
                shown_error = true;
            }
        }
    }
    bool shown_error = false;

    /// Prints the skipped sub-checks and "N passed, N failed, N skipped";
    /// returns the exit code: 1 if a check failed or none ran, 77 if every
    /// sub-check was skipped, else 0.
    int finish() const
    {
        int p = passed, f = failed, s = skipped();
        if (planted("zero_checks")) p = f = s = 0;  // as if the test had run (and skipped) no check
        for (const std::string& name : skips) std::printf("SKIPPED: %s\n", name.c_str());
        std::printf("%d passed, %d failed, %d skipped\n", p, f, s);
        if (const char* name = plant_name()) std::printf("plant %s was set\n", name);
        if (f > 0) return 1;
        if (p == 0 && s > 0) {
            std::printf("every sub-check was skipped\n");
            return 77;
        }
        if (p == 0) {
            std::printf("FAIL: no check ran\n");
            return 1;
        }
        return 0;
    }
};

/// Exits with 77 (ctest: skipped) where there is no CUDA device: no device,
/// or no driver installed at all. Any other cudaGetDeviceCount error (a
/// driver too old, a failed initialisation, ...) fails loudly with its text.
inline void require_gpu_or_skip()
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (planted("device_error")) e = cudaErrorInitializationError;  // a broken driver, not a missing one
    cudaGetLastError();
    if (e == cudaSuccess && count > 0) return;
    bool driver_installed = true;
    if (e == cudaErrorInsufficientDriver) {
        void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        driver_installed = lib != nullptr;
        if (lib) dlclose(lib);
    }
    if (e == cudaSuccess || e == cudaErrorNoDevice || !driver_installed) {
        std::printf("SKIPPED: no CUDA device (%s)\n", e == cudaSuccess ? "no device" : cudaGetErrorString(e));
        std::exit(77);
    }
    std::printf("FAIL: cudaGetDeviceCount: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
    std::exit(1);
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

/// Path of the test matrix `name` (.mtx), or "" where none is found:
/// tests/data/matrices in the repository (tests run from its root), then
/// ../shared/data/matrices beside it and shared/data/matrices inside it (the
/// larger SuiteSparse matrices that the repository does not carry).
inline std::string shipped_matrix(const char* name)
{
    for (const char* dir : {"tests/data/matrices/", "../shared/data/matrices/", "shared/data/matrices/"}) {
        const std::string path = std::string(dir) + name + ".mtx";
        if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
            std::fclose(f);
            return path;
        }
    }
    return std::string();
}

}  // namespace tcore::test
