// tests/gpu/test_reduce.cu - patterns/reduce.cuh and patterns/device/reduce.cuh
// on the GPU against an FP64 CPU reference (accumulated in long double).
//
// Variants: tc (tensor_core) and cc (cuda_core) on every FP64 shape and
// FP16 m16n8k16 (FP32 accumulation), cce (the workload's opponent,
// examples/reduce/reduce_cce.cuh, run by reduce_with and
// reduce_segments_with). Levels: warp_reduce, block_reduce,
// reduce_segments (segment sizes 0, 1, 7, 63, 64, 65, 128, 256, 512, 1000,
// 1024, element-aligned and 16-byte aligned inputs), reduce (device-wide:
// n = 0, 1, 7, 63, 65, 255..513, 1000003, misaligned input).
// Inputs are random in (-2, 2), never zero; "exact" inputs (multiples of
// 2^-6 in FP64, 2^-8 in FP16, whose sums round nowhere) must match the
// reference exactly. Tolerance of a sum of n values x_i in a type with unit
// roundoff u (2^-53 for FP64 sums): whatever tree of n - 1 rounded additions
// the kernel uses (tile MMAs with a ones operand, whose products x_i * 1 are
// exact, warp and block combination, partials across blocks), each x_i passes
// through at most n - 1 of them, so |sum_dev - sum| <= gamma_{n-1} sum |x_i|
// (gamma_k = k u / (1 - k u)); the reference adds in long double ((n - 1)
// 2^-64 sum |x_i|) and is rounded to double (2^-53 |sum|): tol =
// (gamma_{n-1} + 2^-53 + (n - 1) 2^-64) sum |x_i|, per sum (per segment).
// FP16 inputs are multiples of 2^-8 whose FP32 sums are exact here: tol = 0.
// NaN anywhere gives NaN, +Inf alone +Inf, +Inf with -Inf
// NaN; in segments only the segment holding them. The device-wide sum is
// checked to be bitwise identical run to run. Host entry points must reject
// bad arguments with tcore::error.
// 64-bit sizes: an FP16 array of 2^31 + 4099 elements (a period-1021 table
// summing to zero, filled on the device) reduced by tc, cc and cce; reported
// "SKIPPED" with TCORE_TEST_QUICK=1 or 2 or when the GPU lacks the ~4.3 GB it
// needs. TCORE_TEST_QUICK=1 also caps the other sizes at about 10^5.
// n = 0 must write 0 into a poisoned output.
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): nan_result (a sum
// made NaN), drop_term (a sum lacks its middle input), unwritten (the n = 0
// call left out: the output stays poisoned), zero_checks, device_error.
#include "common/test_util.hpp"
#include "examples/reduce/reduce_cce.cuh"

#include <tcore/patterns/device/reduce.cuh>
#include <tcore/patterns/reduce.cuh>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace tcore;
using tcore::examples::reduce::block_reduce_cce;
using tcore::examples::reduce::reduce_cce;
using tcore::examples::reduce::reduce_segments_cce;
using tcore::examples::reduce::warp_reduce_cce;
using tcore::test::device_buffer;
using tcore::test::rng;

namespace {

test::tally checks;
const bool quick = test::quick();

double to_d(double v) { return v; }
double to_d(float v) { return v; }
double to_d(__half v) { return __half2float(v); }

template <class T>
T from_d(double v)
{
    if constexpr (std::is_same_v<T, __half>) return __double2half(v);
    else return static_cast<T>(v);
}

/// Random nonzero value in (-2, 2); `exact`: a multiple of 2^-6 (FP64) or
/// 2^-8 (FP16) so that every partial sum is exact.
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

template <class T>
long double ref_sum(const T* v, long long n)
{
    long double s = 0;
    for (long long i = 0; i < n; ++i) s += to_d(v[i]);
    return s;
}

template <class T>
double abs_sum(const T* v, long long n)
{
    double s = 0;
    for (long long i = 0; i < n; ++i) s += std::fabs(to_d(v[i]));
    return s;
}

/// Error bound for a sum of n values with absolute sum `abs`, in the type
/// with unit roundoff u, against the long double reference rounded to
/// double (see the header).
double sum_tolerance(double abs, long long n, double u)
{
    const double adds = n > 1 ? static_cast<double>(n - 1) : 0.0;
    return (test::gamma(adds, u) + 0x1p-53 + adds * 0x1p-64) * abs;
}

bool same_value(double got, double want, double tol)
{
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    return std::fabs(got - want) <= tol;
}

// -- variants ------------------------------------------------------------------

template <class T>
using device_fn = std::function<void(void*, std::size_t&, const T*, sum_type_t<T>*, long long, cudaStream_t)>;
template <class T>
using segment_fn = std::function<void(const T*, sum_type_t<T>*, long long, long long, cudaStream_t)>;

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
            [](void* t, std::size_t& b, const T* in, sum_type_t<T>* out, long long n, cudaStream_t s) {
                reduce<Backend, Shape>(t, b, in, out, n, s);
            },
            [](const T* in, sum_type_t<T>* out, long long ns, long long ss, cudaStream_t s) {
                reduce_segments<Backend, Shape>(in, out, ns, ss, s);
            }};
}

template <class T>
variant<T> cce_variant()
{
    return {"cce",
            [](void* t, std::size_t& b, const T* in, sum_type_t<T>* out, long long n, cudaStream_t s) {
                reduce_cce<T>(t, b, in, out, n, s);
            },
            [](const T* in, sum_type_t<T>* out, long long ns, long long ss, cudaStream_t s) {
                reduce_segments_cce<T>(in, out, ns, ss, s);
            }};
}

std::vector<variant<double>> f64_variants()
{
    return {mma_variant<tensor_core, f64_m16n8k16>("tc m16n8k16"), mma_variant<tensor_core, f64_m16n8k8>("tc m16n8k8"),
            mma_variant<tensor_core, f64_m16n8k4>("tc m16n8k4"), mma_variant<tensor_core, f64_m8n8k4>("tc m8n8k4"),
            mma_variant<cuda_core, f64_m16n8k16>("cc m16n8k16"), mma_variant<cuda_core, f64_m16n8k8>("cc m16n8k8"),
            mma_variant<cuda_core, f64_m16n8k4>("cc m16n8k4"), mma_variant<cuda_core, f64_m8n8k4>("cc m8n8k4"),
            cce_variant<double>()};
}

std::vector<variant<__half>> f16_variants()
{
    return {mma_variant<tensor_core, f16_m16n8k16_f32acc>("tc f16 m16n8k16"),
            mma_variant<cuda_core, f16_m16n8k16_f32acc>("cc f16 m16n8k16"), cce_variant<__half>()};
}

/// Runs a device-wide reduction of d_in[0..n) and returns the result.
template <class T>
sum_type_t<T> device_sum(const variant<T>& v, const T* d_in, long long n)
{
    std::size_t bytes = 0;
    v.device(nullptr, bytes, d_in, nullptr, n, 0);
    device_buffer<char> temp(bytes);
    device_buffer<sum_type_t<T>> out(1);
    out.poison();
    v.device(temp.ptr, bytes, d_in, out.ptr, n, 0);
    TCORE_CHECK(cudaGetLastError());
    TCORE_CHECK(cudaDeviceSynchronize());
    return out.download()[0];
}

const char* type_name(double) { return "f64"; }
const char* type_name(__half) { return "f16"; }

// -- device-wide -----------------------------------------------------------------

template <class T>
void check_device(const std::vector<variant<T>>& variants, rng& r)
{
    const double u = std::is_same_v<T, double> ? 0x1p-53 : 0x1p-24;
    std::vector<long long> sizes = {0, 1, 7, 63, 65, 255, 256, 257, 511, 512, 513, 1000, 65537};
    sizes.push_back(quick ? 100003 : 1000003);
    for (long long n : sizes)
        for (bool exact : {false, true}) {
            const std::vector<T> h = random_vector<T>(r, n, exact);
            device_buffer<T> d(static_cast<std::size_t>(n) + 1);
            const double want = static_cast<double>(ref_sum(h.data(), n));
            // FP16 inputs are multiples of 2^-8 with exact FP32 sums at these sizes.
            const double tol = (exact || std::is_same_v<T, __half>) ? 0.0 : sum_tolerance(abs_sum(h.data(), n), n, u);
            for (const variant<T>& v : variants) {
                if (n) TCORE_CHECK(cudaMemcpy(d.ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
                double got = to_d(device_sum(v, d.ptr, n));
                if (n >= 2 && test::planted("nan_result")) got = std::numeric_limits<double>::quiet_NaN();
                if (n >= 2 && test::planted("drop_term")) got -= to_d(h[n / 2]);
                checks.check(same_value(got, want, tol), "%s reduce %s n=%lld%s: got %.17g want %.17g (tol %.3g)",
                             v.name.c_str(), type_name(T{}), n, exact ? " exact" : "", got, want, tol);
                if (n >= 65537 && !exact) {
                    const sum_type_t<T> a = device_sum(v, d.ptr, n), b = device_sum(v, d.ptr, n);
                    checks.check(std::memcmp(&a, &b, sizeof a) == 0, "%s reduce %s n=%lld: bitwise identical runs",
                                 v.name.c_str(), type_name(T{}), n);
                }
                if (n == 1000 || n == 65537) {
                    // Misaligned by one element: the element-by-element path.
                    TCORE_CHECK(cudaMemcpy(d.ptr + 1, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
                    const double got1 = to_d(device_sum(v, d.ptr + 1, n));
                    checks.check(same_value(got1, want, tol), "%s reduce %s n=%lld misaligned: got %.17g want %.17g",
                                 v.name.c_str(), type_name(T{}), n, got1, want);
                }
            }
        }
}

template <class T>
T special(double v)
{
    return from_d<T>(v);
}

template <class T>
void check_device_special(const variant<T>& v, rng& r)
{
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    struct sp {
        const char* what;
        std::vector<double> put;
        double want;
    };
    const std::vector<sp> cases = {{"NaN", {nan}, nan},
                                   {"+Inf", {inf}, inf},
                                   {"-Inf", {-inf}, -inf},
                                   {"+Inf and -Inf", {inf, -inf}, nan},
                                   {"NaN and +Inf", {nan, inf}, nan}};
    for (long long n : {1LL, 1000LL, 65537LL})
        for (const sp& c : cases) {
            if (n < static_cast<long long>(c.put.size())) continue;
            std::vector<T> h = random_vector<T>(r, n, false);
            const long long at = static_cast<long long>(r.next() % static_cast<unsigned long long>(n));
            h[at] = special<T>(c.put[0]);
            if (c.put.size() == 2) h[at == n - 1 ? 0 : n - 1] = special<T>(c.put[1]);
            device_buffer<T> d(static_cast<std::size_t>(n));
            d.upload(h);
            const double got = to_d(device_sum(v, d.ptr, n));
            checks.check(same_value(got, c.want, 0), "%s reduce %s n=%lld with %s: got %g", v.name.c_str(),
                    type_name(T{}), n, c.what, got);
        }
}

// -- segmented --------------------------------------------------------------------

template <class T>
void check_segments(const std::vector<variant<T>>& variants, rng& r)
{
    const double u = std::is_same_v<T, double> ? 0x1p-53 : 0x1p-24;
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    for (long long seg : {0LL, 1LL, 7LL, 63LL, 64LL, 65LL, 128LL, 256LL, 512LL, 1000LL, 1024LL})
        for (long long count : {0LL, 1LL, 3LL, 5LL, 1001LL, -1LL}) {
            // count -1: a large array (the benchmark's regime), smaller for odd sizes
            const long long budget = (seg == 64 || seg == 128 || seg == 256 || seg == 1024) ? (quick ? 150000 : 1500000) : 200000;
            const long long ns = count >= 0 ? count : (seg ? budget / seg : 1000);
            const long long n = ns * seg;
            std::vector<T> h = random_vector<T>(r, n, false);
            // NaN in segment 1, +Inf and -Inf in segment 2, +Inf in segment 3.
            if (seg > 1 && ns > 3) {
                h[1 * seg + r.next() % seg] = from_d<T>(nan);
                h[2 * seg] = from_d<T>(inf);
                h[2 * seg + seg - 1] = from_d<T>(-inf);
                h[3 * seg + r.next() % seg] = from_d<T>(inf);
            }
            std::vector<double> want(static_cast<std::size_t>(ns)), tol(static_cast<std::size_t>(ns));
            for (long long s = 0; s < ns; ++s) {
                const T* p = h.data() + s * seg;
                want[s] = static_cast<double>(ref_sum(p, seg));  // long double: Inf - Inf is NaN here too
                tol[s] = std::is_same_v<T, __half> ? 0.0 : sum_tolerance(abs_sum(p, seg), seg, u);
            }
            device_buffer<T> d(static_cast<std::size_t>(n) + 1);
            device_buffer<sum_type_t<T>> out(static_cast<std::size_t>(ns));
            for (int misalign : {0, 1}) {
                if (misalign && count != 1001) continue;
                if (n) TCORE_CHECK(cudaMemcpy(d.ptr + misalign, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
                for (const variant<T>& v : variants) {
                    out.poison();
                    v.segments(d.ptr + misalign, out.ptr, ns, seg, 0);
                    TCORE_CHECK(cudaGetLastError());
                    TCORE_CHECK(cudaDeviceSynchronize());
                    auto got = out.download();
                    if (ns > 0 && seg >= 2 && test::planted("drop_term"))
                        got[0] = from_d<sum_type_t<T>>(to_d(got[0]) - to_d(h[seg / 2]));
                    int bad = 0;
                    double worst = 0;
                    for (long long s = 0; s < ns; ++s) {
                        const double g = to_d(got[s]);
                        if (!same_value(g, want[s], tol[s])) {
                            if (++bad <= 3) std::printf("  segment %lld: got %.17g want %.17g\n", s, g, want[s]);
                        } else if (std::isfinite(want[s])) {
                            worst = test::worst_of(worst, std::fabs(g - want[s]));
                        }
                    }
                    checks.check(bad == 0, "%s reduce_segments %s seg=%lld count=%lld%s: %d wrong (max error %.3g)",
                                 v.name.c_str(), type_name(T{}), seg, ns, misalign ? " misaligned" : "", bad, worst);
                }
            }
        }
}

// -- warp and block device functions -------------------------------------------------

template <class Backend, class Shape, int Threads>
__global__ void warp_block_kernel(const typename Shape::b_type* in, typename Shape::c_type* out)
{
    __shared__ typename Shape::c_type smem[Threads / 32];
    typename Shape::b_type v[reduce_per_lane];
    for (int q = 0; q < reduce_per_lane; ++q) v[q] = in[threadIdx.x * reduce_per_lane + q];
    const auto w = warp_reduce<Backend, Shape>(v);
    const auto b = block_reduce<Backend, Shape, Threads>(v, smem);
    if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = w;
    if (threadIdx.x == Threads - 1) out[Threads / 32] = b;
}

template <class T, int Threads>
__global__ void warp_block_cce_kernel(const T* in, sum_type_t<T>* out)
{
    __shared__ sum_type_t<T> smem[Threads / 32];
    T v[reduce_per_lane];
    for (int q = 0; q < reduce_per_lane; ++q) v[q] = in[threadIdx.x * reduce_per_lane + q];
    const auto w = warp_reduce_cce(v);
    const auto b = block_reduce_cce<Threads>(v, smem);
    if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = w;
    if (threadIdx.x == Threads - 1) out[Threads / 32] = b;
}

template <class T, class Launch>
void check_warp_block(const char* name, Launch launch, rng& r)
{
    constexpr int threads = 128, warps = threads / 32;
    for (bool exact : {true, false}) {
        const std::vector<T> h = random_vector<T>(r, threads * reduce_per_lane, exact);
        device_buffer<T> d(h.size());
        d.upload(h);
        device_buffer<sum_type_t<T>> out(warps + 1);
        out.poison();
        launch(d.ptr, out.ptr);
        TCORE_CHECK(cudaGetLastError());
        TCORE_CHECK(cudaDeviceSynchronize());
        const auto got = out.download();
        const double u = std::is_same_v<T, double> ? 0x1p-53 : 0x1p-24;
        int bad = 0;
        for (int w = 0; w <= warps; ++w) {
            const long long first = w < warps ? w * 256 : 0, len = w < warps ? 256 : threads * reduce_per_lane;
            const double want = static_cast<double>(ref_sum(h.data() + first, len));
            const double tol = exact || std::is_same_v<T, __half> ? 0.0 : sum_tolerance(abs_sum(h.data() + first, len), len, u);
            bad += !same_value(to_d(got[w]), want, tol);
        }
        checks.check(bad == 0, "%s warp_reduce/block_reduce%s: %d of %d wrong", name, exact ? " exact" : "", bad, warps + 1);
    }
}

// -- host argument checks ---------------------------------------------------------------

void check_arguments()
{
    device_buffer<double> d(64);
    device_buffer<double> out(4);
    std::size_t bytes = 0;
    reduce<tensor_core>(nullptr, bytes, d.ptr, out.ptr, 64);
    checks.check(bytes > 0, "temp-storage query sets temp_bytes");
    device_buffer<char> temp(bytes);
    checks.expect_error("a null input", [&] { reduce<tensor_core>(temp.ptr, bytes, nullptr, out.ptr, 64); }, "in is a null pointer");
    checks.expect_error("a null output", [&] { reduce<tensor_core>(temp.ptr, bytes, d.ptr, nullptr, 64); }, "out is a null pointer");
    checks.expect_error("a negative n", [&] { reduce<tensor_core>(temp.ptr, bytes, d.ptr, out.ptr, -1); }, "n is negative");
    checks.expect_error("too little temp storage", [&] {
        std::size_t small = bytes - 1;
        reduce<tensor_core>(temp.ptr, small, d.ptr, out.ptr, 64);
    }, "below the queried size");
    checks.expect_error("an input not aligned to double", [&] {
        reduce<tensor_core>(temp.ptr, bytes, reinterpret_cast<const double*>(reinterpret_cast<const char*>(d.ptr) + 4),
                            out.ptr, 16);
    }, "in is not aligned");
    checks.expect_error("cce: a null input", [&] { reduce_cce<double>(temp.ptr, bytes, nullptr, out.ptr, 64); }, "in is a null pointer");
    checks.expect_error("segments: negative size", [&] { reduce_segments<tensor_core>(d.ptr, out.ptr, 4, -1); }, "segment_size is negative");
    checks.expect_error("segments: negative count", [&] { reduce_segments<tensor_core>(d.ptr, out.ptr, -4, 16); }, "num_segments is negative");
    checks.expect_error("segments: null input", [&] { reduce_segments<tensor_core>(nullptr, out.ptr, 4, 16); }, "in is a null pointer");
    checks.expect_error("segments: null output", [&] { reduce_segments<tensor_core>(d.ptr, nullptr, 4, 16); }, "out is a null pointer");
    checks.expect_error("segments: size overflow", [&] { reduce_segments<tensor_core>(d.ptr, out.ptr, 1LL << 40, 1LL << 40); }, "overflows");
    checks.expect_error("segments cce: null input", [&] { reduce_segments_cce<double>(nullptr, out.ptr, 4, 16); }, "in is a null pointer");
    // Empty inputs are fine and need no input pointer; n = 0 writes 0 (the
    // documented result) over the poison.
    out.poison();
    if (!test::planted("unwritten")) reduce<tensor_core>(temp.ptr, bytes, nullptr, out.ptr, 0);
    reduce_segments<tensor_core>(nullptr, nullptr, 0, 16);
    TCORE_CHECK(cudaDeviceSynchronize());
    const std::vector<double> after = out.download();
    checks.check(after[0] == 0.0 && std::signbit(after[0]) == 0, "n = 0 gives +0 (got %g)", after[0]);
    int touched = 0;
    for (std::size_t i = 1; i < after.size(); ++i) touched += !std::isnan(after[i]);
    checks.check(touched == 0, "n = 0 writes only out[0] (%d more elements written)", touched);
}

// -- 64-bit sizes ---------------------------------------------------------------------------

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
        checks.skip("reduce f16 n = 2^31 + 4099 (64-bit sizes): TCORE_TEST_QUICK=%d", test::quick_level());
        return;
    }
    std::size_t free_bytes = 0, total = 0;
    TCORE_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (free_bytes < static_cast<std::size_t>(n) * sizeof(__half) + (512u << 20)) {
        checks.skip("reduce f16 n = 2^31 + 4099 (64-bit sizes): needs %.1f GB free, the GPU has %.1f GB",
                    (n * 2.0 + (512 << 20)) / 1e9, free_bytes / 1e9);
        return;
    }
    // A table of multiples of 2^-6 in (-2, 2), nonzero, summing to exactly zero.
    std::vector<double> t(period);
    double s = 0;
    for (int i = 0; i < period - 1; ++i) {
        t[i] = std::ldexp(std::trunc(std::ldexp(r.nonzero(-1.9, 1.9), 6)), -6);
        if (t[i] == 0) t[i] = 0x1p-6;
        s += t[i];
    }
    while (std::fabs(s) >= 1.9 || s == 0) {  // adjust until the closing element fits in (-2, 2)
        const int i = static_cast<int>(r.next() % (period - 1));
        const double nv = s > 0 ? t[i] - 0.5 : t[i] + 0.5;
        if (std::fabs(nv) < 1.9 && nv != 0) {
            s += nv - t[i];
            t[i] = nv;
        }
    }
    t[period - 1] = -s;
    std::vector<__half> th(period);
    for (int i = 0; i < period; ++i) th[i] = __double2half(t[i]);
    double want = 0;  // whole periods add to zero
    for (long long i = 0; i < n % period; ++i) want += t[i];
    device_buffer<__half> table(period);
    table.upload(th);
    device_buffer<__half> d(static_cast<std::size_t>(n));
    fill_periodic<<<4096, 256>>>(d.ptr, n, table.ptr, period);
    TCORE_CHECK(cudaGetLastError());
    for (const auto& v : f16_variants()) {
        const double got = to_d(device_sum(v, d.ptr, n));
        checks.check(got == want, "%s reduce f16 n=2^31+4099: got %.17g want %.17g", v.name.c_str(), got, want);
    }
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    rng r(test::seed());
    check_arguments();
    check_device(f64_variants(), r);
    check_device(f16_variants(), r);
    for (const auto& v : f64_variants()) check_device_special(v, r);
    for (const auto& v : f16_variants()) check_device_special(v, r);
    check_segments(f64_variants(), r);
    check_segments(f16_variants(), r);
    auto launch = [](auto kernel) {
        return [kernel](const auto* in, auto* out) { kernel<<<1, 128>>>(in, out); };
    };
    check_warp_block<double>("tc m16n8k16", launch(warp_block_kernel<tensor_core, f64_m16n8k16, 128>), r);
    check_warp_block<double>("tc m8n8k4", launch(warp_block_kernel<tensor_core, f64_m8n8k4, 128>), r);
    check_warp_block<double>("cc m16n8k16", launch(warp_block_kernel<cuda_core, f64_m16n8k16, 128>), r);
    check_warp_block<double>("cc m8n8k4", launch(warp_block_kernel<cuda_core, f64_m8n8k4, 128>), r);
    check_warp_block<double>("cce", launch(warp_block_cce_kernel<double, 128>), r);
    check_warp_block<__half>("tc f16", launch(warp_block_kernel<tensor_core, f16_m16n8k16_f32acc, 128>), r);
    check_warp_block<__half>("cc f16", launch(warp_block_kernel<cuda_core, f16_m16n8k16_f32acc, 128>), r);
    check_warp_block<__half>("cce f16", launch(warp_block_cce_kernel<__half, 128>), r);
    check_large(r);
    return checks.finish();
}
