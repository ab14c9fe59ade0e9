// tests/gpu/test_scan.cu - patterns/scan.cuh and patterns/device/scan.cuh on
// the GPU against an FP64 CPU reference (prefix sums accumulated in long
// double).
//
// Variants: tc (tensor_core) and cc (cuda_core) on FP64 m16n8k16 and FP16
// m16n8k16 (FP32 accumulation), and cce (the workload's opponent,
// examples/scan/scan_cce.cuh, run by scan_with and scan_segments_with);
// inclusive and exclusive. Levels:
// block_scan (warp_scan inside), scan_segments (segment sizes 1, 7, 63, 64,
// 65, 100, 128, 256, 512, 1000, 1024, 2048, 4096, 8192; aligned and
// misaligned), scan (device-wide; n = 0, 1, 7, ... 1000003, misaligned and
// in-place). n = 2^24 + 5 (device-wide) and 2^24 (segments of 64 and 256):
// far more block tiles than resident blocks, look-backs across many windows.
// Inputs are random in (-2, 2), never zero ("exact" multiples of 2^-6 in
// FP64, and FP16 multiples of 2^-8, must match exactly); every output element
// is compared, outputs are poisoned first. NaN and infinities: from a NaN's
// position on the outputs are NaN (exclusive: from the next one), +Inf then
// -Inf gives NaN from the -Inf on; in segments only within the segment.
// Host entry points must reject bad arguments with tcore::error whose
// message names the problem.
// 64-bit sizes: FP16 scans of 2^31 + 4099 elements (a period-1021 table
// summing to zero, filled on the device; the prefix at i is the table's
// prefix at i mod 1021), checked at sample windows including both ends and
// the 2^31 boundary; reported "SKIPPED" with TCORE_TEST_QUICK=1 or 2 or
// without ~13 GB free. TCORE_TEST_QUICK=1 also caps the other sizes at about
// 10^5 (not those two; TCORE_TEST_QUICK=2, for sanitizer runs, leaves them
// out too). Empty scans (n = 0, no segments) must leave a poisoned output
// untouched.
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): nan_result (one
// output NaN), drop_term (the last output lacks one input), write_on_empty
// (an empty scan writes its output), zero_checks, device_error.
#include "common/test_util.hpp"
#include "examples/scan/scan_cce.cuh"

#include <tcore/patterns/device/scan.cuh>
#include <tcore/patterns/scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace tcore;
using tcore::examples::scan::scan_cce;
using tcore::examples::scan::scan_segments_cce;
using tcore::examples::scan::warp_scan_cce;
using tcore::test::device_buffer;
using tcore::test::rng;

namespace {

test::tally checks;
const bool quick = test::quick();
/// TCORE_TEST_QUICK=2 (sanitizer runs): also leave out the 2^24 sizes.
const bool sanitizing = test::quick_level() == 2;

double to_d(double v) { return v; }
double to_d(float v) { return v; }
double to_d(__half v) { return __half2float(v); }

template <class T>
T from_d(double v)
{
    if constexpr (std::is_same_v<T, __half>) return __double2half(v);
    else return static_cast<T>(v);
}

template <class T>
T random_value(rng& r, bool exact)
{
    for (;;) {
        double v = r.nonzero(-2, 2);
        if (exact || std::is_same_v<T, __half>) v = std::ldexp(std::trunc(std::ldexp(v, 8)), -8);
        if (exact && std::is_same_v<T, double>) v = std::ldexp(std::trunc(std::ldexp(v, 6)), -6);
        const T t = from_d<T>(v);
        if (to_d(t) != 0.0) return t;
    }
}

template <class T>
std::vector<T> random_vector(rng& r, long long n, bool exact)
{
    std::vector<T> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = random_value<T>(r, exact);
    return v;
}

/// Block tile of the multi-tile kernels (scan.cuh): the device-wide scan
/// chains one look-back link per block tile of this many elements.
constexpr long long block_tile_elems = 4096;

/// Reference prefix sums of consecutive segments (seg = n: one scan), and
/// per element tolerances from the summation depth: the tile products,
/// column and tile carries and look-back windows add at most 64 roundings
/// of partial sums bounded by the absolute prefix sum a, and each earlier
/// block tile of a device-wide scan (chain > 0 elements a tile) at most 8
/// more (its window sums, prefix and inclusive value): tol = (64 + 8 k) u a.
template <class T>
void reference(const std::vector<T>& h, long long seg, bool exclusive, double u, std::vector<double>& want,
               std::vector<double>& tol, long long chain = 0)
{
    const long long n = static_cast<long long>(h.size());
    want.assign(h.size(), 0);
    tol.assign(h.size(), 0);
    long double s = 0;
    double a = 0;
    for (long long i = 0; i < n; ++i) {
        if (seg > 0 && i % seg == 0) s = 0, a = 0;
        const double x = to_d(h[i]);
        const double depth = 64.0 + (chain > 0 ? 8.0 * static_cast<double>(i / chain) : 0.0);
        if (exclusive) want[i] = static_cast<double>(s), tol[i] = depth * u * a;
        s += x;
        a += std::fabs(x);
        if (!exclusive) want[i] = static_cast<double>(s), tol[i] = depth * u * a;
    }
}

bool same_value(double got, double want, double tol)
{
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    return std::fabs(got - want) <= tol;
}

const char* type_name(double) { return "f64"; }
const char* type_name(__half) { return "f16"; }
const char* kind_name(scan_kind k) { return k == scan_kind::exclusive ? "exclusive" : "inclusive"; }

/// Planted faults on a downloaded result got[0..n) of the scan of h:
/// nan_result puts a NaN in the middle, drop_term removes input (n-1)/2 from
/// the last prefix.
template <class S, class T>
void plant_faults(std::vector<S>& got, const std::vector<T>& h)
{
    const std::size_t n = std::min(got.size(), h.size());
    if (n < 2) return;
    if (test::planted("nan_result")) got[n / 2] = from_d<S>(std::numeric_limits<double>::quiet_NaN());
    if (test::planted("drop_term")) got[n - 1] = from_d<S>(to_d(got[n - 1]) - to_d(h[(n - 1) / 2]));
}

/// Compares got[0..n) with want; prints the first few differences.
template <class S>
int compare(const std::vector<S>& got, const std::vector<double>& want, const std::vector<double>& tol, bool exact,
            double& worst)
{
    int bad = 0;
    worst = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const double g = to_d(got[i]);
        if (!same_value(g, want[i], exact ? 0.0 : tol[i])) {
            if (++bad <= 3) std::printf("  [%zu] got %.17g want %.17g\n", i, g, want[i]);
        } else if (std::isfinite(want[i])) {
            worst = test::worst_of(worst, std::fabs(g - want[i]));
        }
    }
    return bad;
}

// -- variants ------------------------------------------------------------------

template <class T>
using device_fn =
    std::function<void(void*, std::size_t&, const T*, sum_type_t<T>*, long long, scan_kind, cudaStream_t)>;
template <class T>
using segment_fn = std::function<void(const T*, sum_type_t<T>*, long long, long long, scan_kind, cudaStream_t)>;

template <class T>
struct variant {
    std::string name;
    device_fn<T> device;
    segment_fn<T> segments;
};

template <class Backend, class Shape>
variant<typename Shape::b_type> mma_variant(const std::string& name)
{
    using T = typename Shape::b_type;
    return {name,
            [](void* t, std::size_t& b, const T* in, sum_type_t<T>* out, long long n, scan_kind k, cudaStream_t s) {
                scan<Backend, Shape>(t, b, in, out, n, k, s);
            },
            [](const T* in, sum_type_t<T>* out, long long ns, long long ss, scan_kind k, cudaStream_t s) {
                scan_segments<Backend, Shape>(in, out, ns, ss, k, s);
            }};
}

template <class T>
variant<T> cce_variant()
{
    return {"cce",
            [](void* t, std::size_t& b, const T* in, sum_type_t<T>* out, long long n, scan_kind k, cudaStream_t s) {
                scan_cce<T>(t, b, in, out, n, k, s);
            },
            [](const T* in, sum_type_t<T>* out, long long ns, long long ss, scan_kind k, cudaStream_t s) {
                scan_segments_cce<T>(in, out, ns, ss, k, s);
            }};
}

std::vector<variant<double>> f64_variants()
{
    return {mma_variant<tensor_core, f64_m16n8k16>("tc"), mma_variant<cuda_core, f64_m16n8k16>("cc"),
            cce_variant<double>()};
}

std::vector<variant<__half>> f16_variants()
{
    return {mma_variant<tensor_core, f16_m16n8k16_f32acc>("tc f16"),
            mma_variant<cuda_core, f16_m16n8k16_f32acc>("cc f16"), cce_variant<__half>()};
}

/// Device-wide scan of d_in[0..n) into d_out.
template <class T>
void device_scan(const variant<T>& v, const T* d_in, sum_type_t<T>* d_out, long long n, scan_kind k)
{
    std::size_t bytes = 0;
    v.device(nullptr, bytes, d_in, d_out, n, k, 0);
    device_buffer<char> temp(bytes);
    v.device(temp.ptr, bytes, d_in, d_out, n, k, 0);
    TCORE_CHECK(cudaGetLastError());
    TCORE_CHECK(cudaDeviceSynchronize());
}

// -- device-wide -------------------------------------------------------------------

template <class T>
void check_device(const std::vector<variant<T>>& variants, rng& r)
{
    using S = sum_type_t<T>;
    const double u = std::is_same_v<T, double> ? 0x1p-53 : 0x1p-24;
    std::vector<long long> sizes = {0, 1, 7, 63, 64, 65, 127, 128, 129, 255, 256, 2047, 2048, 2049, 4097, 65537};
    sizes.push_back(quick ? 100003 : 1000003);
    // Thousands of block tiles: look-backs over many windows, most blocks
    // started long after the first finished.
    const long long big_size = (1LL << 24) + 5;
    if (!sanitizing) sizes.push_back(big_size);
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    for (long long n : sizes)
        for (int mode = 0; mode < 3; ++mode) {  // 0 random, 1 exact, 2 NaN and infinities
            if (mode == 2 && n < 8) continue;
            if (n == big_size && mode == 1) continue;
            std::vector<T> h = random_vector<T>(r, n, mode == 1);
            if (mode == 2) {
                const long long p = n / 3 + static_cast<long long>(r.next() % static_cast<unsigned long long>(n / 3));
                h[n / 4] = from_d<T>(inf);
                h[p] = from_d<T>(-inf);                  // Inf - Inf: NaN from here on
                if (n > 1000) h[n - 5] = from_d<T>(nan);  // (already NaN; still a NaN)
            }
            const bool exact = mode == 1 || std::is_same_v<T, __half>;
            device_buffer<T> d(static_cast<std::size_t>(n) + 1);
            device_buffer<S> out(static_cast<std::size_t>(n) + 1);
            for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
                std::vector<double> want, tol;
                reference(h, n, k == scan_kind::exclusive, u, want, tol, block_tile_elems);
                for (const variant<T>& v : variants) {
                    for (int misalign : {0, 1}) {
                        if (misalign && n != 1000003 && n != 100003 && n != 4097 && n != big_size) continue;
                        if (n) TCORE_CHECK(cudaMemcpy(d.ptr + misalign, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
                        out.poison();
                        device_scan(v, d.ptr + misalign, out.ptr + misalign, n, k);
                        std::vector<S> got = out.download();
                        got.erase(got.begin(), got.begin() + misalign);
                        got.resize(static_cast<std::size_t>(n));
                        plant_faults(got, h);
                        double worst;
                        const int bad = compare(got, want, tol, exact, worst);
                        checks.check(bad == 0, "%s scan %s %s n=%lld%s%s: %d wrong (max error %.3g)", v.name.c_str(),
                                     type_name(T{}), kind_name(k), n, mode == 1 ? " exact" : mode == 2 ? " Inf/NaN" : "",
                                     misalign ? " misaligned" : "", bad, worst);
                    }
                    if constexpr (std::is_same_v<T, double>) {
                        if (n == 65537 && mode == 0) {  // in place
                            d.poison();  // the element past n too: the whole buffer is downloaded
                            d.upload(h);
                            device_scan(v, d.ptr, d.ptr, n, k);
                            const std::vector<T> got = d.download();
                            double worst;
                            const int bad = compare(std::vector<T>(got.begin(), got.begin() + n), want, tol, false, worst);
                            checks.check(bad == 0, "%s scan %s %s n=%lld in place: %d wrong", v.name.c_str(),
                                         type_name(T{}), kind_name(k), n, bad);
                        }
                    }
                }
            }
        }
}

// -- segmented ------------------------------------------------------------------------

template <class T>
void check_segments(const std::vector<variant<T>>& variants, rng& r)
{
    using S = sum_type_t<T>;
    const double u = std::is_same_v<T, double> ? 0x1p-53 : 0x1p-24;
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    for (long long seg : {1LL, 7LL, 63LL, 64LL, 65LL, 100LL, 128LL, 256LL, 512LL, 1000LL, 1024LL, 2048LL, 4096LL,
                          8192LL})
        for (long long count : {0LL, 1LL, 3LL, 1001LL, -1LL}) {
            // seg = 64 and 256: thousands of block tiles, as in check_device.
            const long long budget = (seg == 64 || seg == 256) && !sanitizing ? (1LL << 24)
                                     : seg == 128 || seg == 1024 ? (quick ? 150000 : 1000000)
                                                                 : 150000;
            if (seg > 1024 && count == 1001) continue;
            const long long ns = count >= 0 ? count : budget / seg;
            const long long n = ns * seg;
            std::vector<T> h = random_vector<T>(r, n, false);
            if (seg > 2 && ns > 3) {  // NaN in segment 1, +Inf then -Inf in segment 2, +Inf in segment 3
                h[1 * seg + seg / 2] = from_d<T>(nan);
                h[2 * seg + 1] = from_d<T>(inf);
                h[2 * seg + seg - 1] = from_d<T>(-inf);
                h[3 * seg] = from_d<T>(inf);
            }
            const bool exact = std::is_same_v<T, __half>;
            device_buffer<T> d(static_cast<std::size_t>(n) + 1);
            device_buffer<S> out(static_cast<std::size_t>(n) + 1);
            for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
                std::vector<double> want, tol;
                reference(h, seg, k == scan_kind::exclusive, u, want, tol);
                for (int misalign : {0, 1}) {
                    if (misalign && count != 1001) continue;
                    if (n) TCORE_CHECK(cudaMemcpy(d.ptr + misalign, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
                    for (const variant<T>& v : variants) {
                        out.poison();
                        v.segments(d.ptr + misalign, out.ptr + misalign, ns, seg, k, 0);
                        TCORE_CHECK(cudaGetLastError());
                        TCORE_CHECK(cudaDeviceSynchronize());
                        std::vector<S> got = out.download();
                        got.erase(got.begin(), got.begin() + misalign);
                        got.resize(static_cast<std::size_t>(n));
                        plant_faults(got, h);
                        double worst;
                        const int bad = compare(got, want, tol, exact, worst);
                        checks.check(bad == 0, "%s scan_segments %s %s seg=%lld count=%lld%s: %d wrong (max error %.3g)",
                                     v.name.c_str(), type_name(T{}), kind_name(k), seg, ns,
                                     misalign ? " misaligned" : "", bad, worst);
                    }
                }
            }
        }
}

// -- block level --------------------------------------------------------------------------

template <class Scanner>
__global__ void block_scan_kernel(const typename Scanner::in_type* in, typename Scanner::sum_type* out,
                                  long long count, typename Scanner::sum_type carry)
{
    __shared__ typename Scanner::sum_type smem[8];
    const Scanner sc;
    const auto total = block_scan<Scanner, 256>(sc, in, out, count, carry, smem);
    if (threadIdx.x == 255) out[count] = total;
}

template <class Scanner>
void check_block(const char* name, rng& r)
{
    using T = typename Scanner::in_type;
    using S = typename Scanner::sum_type;
    constexpr bool exclusive = std::is_same_v<Scanner, warp_scan<tensor_core, f64_m16n8k16, true>> ||
                               std::is_same_v<Scanner, warp_scan_cce<double, true>>;
    for (long long count : {1LL, 100LL, 129LL, 1000LL, 1024LL}) {
        const std::vector<T> h = random_vector<T>(r, count, true);
        device_buffer<T> d(static_cast<std::size_t>(count));
        d.upload(h);
        device_buffer<S> out(static_cast<std::size_t>(count) + 1);
        out.poison();
        const double carry = 0.5;
        block_scan_kernel<Scanner><<<1, 256>>>(d.ptr, out.ptr, count, static_cast<S>(carry));
        TCORE_CHECK(cudaGetLastError());
        TCORE_CHECK(cudaDeviceSynchronize());
        std::vector<S> got = out.download();
        plant_faults(got, h);
        std::vector<double> want, tol;
        reference(h, count, exclusive, 0, want, tol);
        int bad = 0;
        double total = carry;
        for (long long i = 0; i < count; ++i) {
            bad += to_d(got[i]) != want[i] + carry;
            total += to_d(h[i]);
        }
        bad += to_d(got[count]) != total;
        checks.check(bad == 0, "%s block_scan count=%lld: %d wrong", name, count, bad);
    }
}

// -- host argument checks ---------------------------------------------------------------------

void check_arguments()
{
    device_buffer<double> d(256), out(256);
    std::size_t bytes = 0;
    scan<tensor_core>(nullptr, bytes, d.ptr, out.ptr, 256);
    checks.check(bytes > 0, "temp-storage query sets temp_bytes");
    device_buffer<char> temp(bytes);
    checks.expect_error("a null input", [&] { scan<tensor_core>(temp.ptr, bytes, nullptr, out.ptr, 256); }, "in is a null pointer");
    checks.expect_error("a null output", [&] { scan<tensor_core>(temp.ptr, bytes, d.ptr, nullptr, 256); }, "out is a null pointer");
    checks.expect_error("a negative n", [&] { scan<tensor_core>(temp.ptr, bytes, d.ptr, out.ptr, -1); }, "n is negative");
    checks.expect_error("too little temp storage", [&] {
        std::size_t small = bytes - 1;
        scan<tensor_core>(temp.ptr, small, d.ptr, out.ptr, 256);
    }, "below the queried size");
    checks.expect_error("an output not aligned to double", [&] {
        scan<tensor_core>(temp.ptr, bytes, d.ptr, reinterpret_cast<double*>(reinterpret_cast<char*>(out.ptr) + 4), 16);
    }, "out is not aligned");
    checks.expect_error("partly overlapping in and out", [&] { scan<tensor_core>(temp.ptr, bytes, d.ptr, d.ptr + 1, 100); }, "in and out overlap");
    checks.expect_error("cce: a null output", [&] { scan_cce<double>(temp.ptr, bytes, d.ptr, nullptr, 256); }, "out is a null pointer");
    checks.expect_error("segments: negative size", [&] { scan_segments<tensor_core>(d.ptr, out.ptr, 4, -1); }, "segment_size is negative");
    checks.expect_error("segments: negative count", [&] { scan_segments<tensor_core>(d.ptr, out.ptr, -4, 16); }, "num_segments is negative");
    checks.expect_error("segments: null input", [&] { scan_segments<tensor_core>(nullptr, out.ptr, 4, 16); }, "in is a null pointer");
    checks.expect_error("segments: overlap", [&] { scan_segments<tensor_core>(d.ptr, d.ptr + 3, 4, 16); }, "in and out overlap");
    checks.expect_error("segments: size overflow", [&] { scan_segments<tensor_core>(d.ptr, out.ptr, 1LL << 40, 1LL << 40); }, "overflows");
    checks.expect_error("segments cce: null output", [&] { scan_segments_cce<double>(d.ptr, nullptr, 4, 16); }, "out is a null pointer");
    // Empty inputs need no pointers, and write nothing: with an output
    // given, it stays poisoned.
    const auto accepted = [](const char* what, auto&& f) {
        try {
            f();
            TCORE_CHECK(cudaDeviceSynchronize());
            return true;
        } catch (const tcore::error& e) {
            checks.check(false, "%s: %s", what, e.what());
            return false;
        }
    };
    checks.check(accepted("scan n = 0, null pointers", [&] { scan<tensor_core>(temp.ptr, bytes, nullptr, nullptr, 0); }),
                 "scan n = 0 with null pointers accepted");
    checks.check(accepted("scan_segments 0 x 16, null pointers", [&] { scan_segments<tensor_core>(nullptr, nullptr, 0, 16); }),
                 "scan_segments of 0 segments with null pointers accepted");
    checks.check(accepted("scan_segments 16 x 0, null pointers", [&] { scan_segments<tensor_core>(nullptr, nullptr, 16, 0); }),
                 "scan_segments of empty segments with null pointers accepted");
    out.poison();
    accepted("scan n = 0", [&] { scan<tensor_core>(temp.ptr, bytes, d.ptr, out.ptr, 0); });
    accepted("scan_cce n = 0", [&] {
        std::size_t cce_bytes = 0;
        scan_cce<double>(nullptr, cce_bytes, d.ptr, out.ptr, 0);
        device_buffer<char> cce_temp(cce_bytes);
        scan_cce<double>(cce_temp.ptr, cce_bytes, d.ptr, out.ptr, 0);
    });
    accepted("scan_segments 0 x 16", [&] { scan_segments<tensor_core>(d.ptr, out.ptr, 0, 16); });
    accepted("scan_segments 16 x 0", [&] { scan_segments<tensor_core>(d.ptr, out.ptr, 16, 0); });
    if (test::planted("write_on_empty")) TCORE_CHECK(cudaMemset(out.ptr, 0, sizeof(double)));
    const std::vector<double> after = out.download();
    int written = 0;
    for (double v : after) {
        unsigned long long bits;
        std::memcpy(&bits, &v, sizeof bits);
        written += bits != ~0ull;
    }
    checks.check(written == 0, "empty scans wrote %d of %zu poisoned output elements", written, after.size());
}

// -- 64-bit sizes ---------------------------------------------------------------------------------

__global__ void fill_periodic(__half* out, long long n, const __half* table, int period)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        out[i] = table[i % period];
}

void check_large(rng& r)
{
    const long long n = (1LL << 31) + 4099;
    const int period = 1021;
    if (quick) {
        checks.skip("scan f16 n = 2^31 + 4099 (64-bit sizes): TCORE_TEST_QUICK=%d", test::quick_level());
        return;
    }
    std::size_t free_bytes = 0, total = 0;
    TCORE_CHECK(cudaMemGetInfo(&free_bytes, &total));
    const std::size_t need = static_cast<std::size_t>(n) * (sizeof(__half) + sizeof(float)) + (1u << 30);
    if (free_bytes < need) {
        checks.skip("scan f16 n = 2^31 + 4099 (64-bit sizes): needs %.1f GB free, the GPU has %.1f GB", need / 1e9,
                    free_bytes / 1e9);
        return;
    }
    // Multiples of 2^-6 in (-2, 2), nonzero, summing to zero: every prefix is exact in FP32.
    std::vector<double> t(period);
    double s = 0;
    for (int i = 0; i < period - 1; ++i) {
        t[i] = std::ldexp(std::trunc(std::ldexp(r.nonzero(-1.9, 1.9), 6)), -6);
        if (t[i] == 0) t[i] = 0x1p-6;
        s += t[i];
    }
    while (std::fabs(s) >= 1.9 || s == 0) {
        const int i = static_cast<int>(r.next() % (period - 1));
        const double nv = s > 0 ? t[i] - 0.5 : t[i] + 0.5;
        if (std::fabs(nv) < 1.9 && nv != 0) {
            s += nv - t[i];
            t[i] = nv;
        }
    }
    t[period - 1] = -s;
    std::vector<__half> th(period);
    std::vector<double> incl(period);
    double p = 0;
    for (int i = 0; i < period; ++i) {
        th[i] = __double2half(t[i]);
        p += t[i];
        incl[i] = p;
    }
    device_buffer<__half> table(period);
    table.upload(th);
    device_buffer<__half> d(static_cast<std::size_t>(n));
    device_buffer<float> out(static_cast<std::size_t>(n));
    fill_periodic<<<4096, 256>>>(d.ptr, n, table.ptr, period);
    TCORE_CHECK(cudaGetLastError());
    // Sample windows: both ends, around 2^31, and random ones.
    std::vector<long long> starts = {0, (1LL << 31) - 2048, n - 4096};
    for (int i = 0; i < 32; ++i) starts.push_back(static_cast<long long>(r.next() % static_cast<unsigned long long>(n - 4096)));
    auto check_kind = [&](const variant<__half>& v, scan_kind k) {
        TCORE_CHECK(cudaMemset(out.ptr, 0xFF, static_cast<std::size_t>(n) * sizeof(float)));
        device_scan(v, d.ptr, out.ptr, n, k);
        int bad = 0;
        std::vector<float> w(4096);
        for (long long st : starts) {
            TCORE_CHECK(cudaMemcpy(w.data(), out.ptr + st, w.size() * sizeof(float), cudaMemcpyDeviceToHost));
            for (long long i = 0; i < 4096; ++i) {
                const long long e = st + i;
                const double want = k == scan_kind::inclusive ? incl[e % period] : (e % period ? incl[e % period - 1] : 0.0);
                bad += static_cast<double>(w[i]) != want;
            }
        }
        checks.check(bad == 0, "%s scan f16 %s n=2^31+4099: %d of %zu sampled outputs wrong", v.name.c_str(),
                     kind_name(k), bad, starts.size() * 4096);
    };
    const auto variants = f16_variants();
    for (const auto& v : variants) check_kind(v, scan_kind::inclusive);
    check_kind(variants[0], scan_kind::exclusive);
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    rng r(test::seed());
    check_arguments();
    check_block<warp_scan<tensor_core, f64_m16n8k16>>("tc", r);
    check_block<warp_scan<tensor_core, f64_m16n8k16, true>>("tc exclusive", r);
    check_block<warp_scan<cuda_core, f64_m16n8k16>>("cc", r);
    check_block<warp_scan_cce<double>>("cce", r);
    check_block<warp_scan_cce<double, true>>("cce exclusive", r);
    check_device(f64_variants(), r);
    check_device(f16_variants(), r);
    check_segments(f64_variants(), r);
    check_segments(f16_variants(), r);
    check_large(r);
    return checks.finish();
}
