// tests/gpu/test_gemv.cu - patterns/gemv.cuh and patterns/device/gemv.cuh on
// the GPU against an FP64 CPU reference (dot products accumulated in long
// double), beside the workload's cce opponent (examples/gemv/gemv_cce.cuh).
//
// Variants: tc (tensor_core) and cc (cuda_core) on m16n8k16, m16n8k8,
// m16n8k4 and m8n8k4, cce, and the temp-storage overload (tc and cc on
// m16n8k16 and m8n8k4), which splits the columns into parts where the
// row tiles are too few for the device (here 257 x 4099, 1000 x 1000,
// 40 x 5000, 33 x 40000 and 2048 x 2048; its temp is poisoned first). Shapes m x n from empty and 1 x 1 through
// sizes that are not multiples of the tiles (7 x 3, 17 x 15, 63 x 65, 257 x
// 4099) to the benchmark's tall-skinny kinds (4096 x 16, 4096 x 32, 11264 x
// 16) and wide ones (33 x 40000, 2048 x 2048), and 9000 x 300, 17000 x 300,
// whose plans on a 132-SM GPU (H100, H200) split 19 column steps over 8
// (m16n8k16: plan_gemv_mma's 2 x 8 col-major blocks) or 4 warps (raised to
// 8 row-major, 2 x 4 col-major); row- and column-major A, with
// the tightest lda, a padded odd lda (element path) and a misaligned A and x.
// Inputs are random in (-2, 2), never zero; "exact" inputs (multiples of 2^-4
// with exact products and sums) must match exactly. A NaN in row r of A gives
// NaN in y[r] only, +Inf and -Inf products in one row give NaN, a NaN in x
// gives NaN everywhere. y is poisoned first; m = 0 must leave it untouched,
// n = 0 must write zeros. Host entry points must reject bad arguments with
// tcore::error whose message names the problem.
// Tolerance per y[i] = sum_k a_ik x_k, S_i = sum_k |a_ik x_k|, u = 2^-53:
// whatever the order (MMA chains along k, split columns, partial sums added
// across warps or column parts), y_i is n products and a tree of n - 1
// additions, each product and addition rounded once (an FMA rounds once for
// both), so |y_dev - y| <= gamma_n S_i (gamma_n = n u / (1 - n u)). The
// reference: long double products and sums (gamma_n at 2^-64 <= n 2^-63 S_i
// for these n) rounded to double (u |y| <= u S_i). tol_i = (gamma_n + n 2^-63
// + u) S_i; exact inputs: 0.
// TCORE_TEST_QUICK=1 drops the largest shapes.
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): nan_result (y[0]
// made NaN), drop_term (y[0] lacks its middle product), write_on_empty (the
// m = 0 call writes y), unwritten (the n = 0 calls left out), zero_checks,
// device_error.
#include "common/test_util.hpp"
#include "examples/gemv/gemv_cce.cuh"

#include <tcore/patterns/device/gemv.cuh>
#include <tcore/patterns/gemv.cuh>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace tcore;
using tcore::examples::gemv::gemv_cce;
using tcore::test::device_buffer;
using tcore::test::rng;

namespace {

test::tally checks;
const bool quick = test::quick();

using gemv_fn = std::function<void(layout, long long, long long, const double*, long long, const double*, double*,
                                   cudaStream_t)>;
struct variant {
    std::string name;
    gemv_fn run;
};

template <class Backend, class Shape>
variant mma_variant(const std::string& name)
{
    return {name, [](layout L, long long m, long long n, const double* A, long long lda, const double* x, double* y,
                     cudaStream_t s) { gemv<Backend, Shape>(L, m, n, A, lda, x, y, s); }};
}

/// The temp-storage overload (column parts where plan_gemv_split makes
/// them); the temp buffer is poisoned (NaN) before each run.
template <class Backend, class Shape>
variant temp_variant(const std::string& name)
{
    return {name, [](layout L, long long m, long long n, const double* A, long long lda, const double* x, double* y,
                     cudaStream_t s) {
                std::size_t bytes = 0;
                gemv<Backend, Shape>(nullptr, bytes, L, m, n, A, lda, x, y, s);
                device_buffer<double> temp((bytes + 7) / 8);
                temp.poison();
                gemv<Backend, Shape>(temp.ptr, bytes, L, m, n, A, lda, x, y, s);
                TCORE_CHECK(cudaStreamSynchronize(s));
            }};
}

std::vector<variant> variants()
{
    return {mma_variant<tensor_core, f64_m16n8k16>("tc m16n8k16"), mma_variant<tensor_core, f64_m16n8k8>("tc m16n8k8"),
            mma_variant<tensor_core, f64_m16n8k4>("tc m16n8k4"), mma_variant<tensor_core, f64_m8n8k4>("tc m8n8k4"),
            mma_variant<cuda_core, f64_m16n8k16>("cc m16n8k16"), mma_variant<cuda_core, f64_m16n8k8>("cc m16n8k8"),
            mma_variant<cuda_core, f64_m16n8k4>("cc m16n8k4"), mma_variant<cuda_core, f64_m8n8k4>("cc m8n8k4"),
            temp_variant<tensor_core, f64_m16n8k16>("tc m16n8k16 temp"),
            temp_variant<tensor_core, f64_m8n8k4>("tc m8n8k4 temp"), temp_variant<cuda_core, f64_m16n8k16>("cc m16n8k16 temp"),
            temp_variant<cuda_core, f64_m8n8k4>("cc m8n8k4 temp"),
            {"cce", [](layout L, long long m, long long n, const double* A, long long lda, const double* x, double* y,
                       cudaStream_t s) { gemv_cce(L, m, n, A, lda, x, y, s); }}};
}

bool same_value(double got, double want, double tol)
{
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    return std::fabs(got - want) <= tol;
}

double random_value(rng& r, bool exact)
{
    for (;;) {
        double v = r.nonzero(-2, 2);
        if (exact) v = std::ldexp(std::trunc(std::ldexp(v, 4)), -4);
        if (v != 0) return v;
    }
}

struct problem {
    long long m, n;
};

void check_case(const std::vector<variant>& vs, rng& r, layout L, long long m, long long n, int lda_pad, bool misalign,
                int mode)  // mode 0 random, 1 exact, 2 NaN/Inf
{
    const long long lda = std::max(1LL, (L == layout::row_major ? n : m)) + lda_pad;
    const long long rows = L == layout::row_major ? m : n;  // storage rows of length lda
    std::vector<double> a(static_cast<std::size_t>(rows * lda), std::numeric_limits<double>::quiet_NaN());
    std::vector<double> x(static_cast<std::size_t>(n));
    auto at = [&](long long i, long long k) -> double& {
        return a[static_cast<std::size_t>(L == layout::row_major ? i * lda + k : k * lda + i)];
    };
    for (long long i = 0; i < m; ++i)
        for (long long k = 0; k < n; ++k) at(i, k) = random_value(r, mode == 1);
    for (auto& v : x) v = random_value(r, mode == 1);
    const double inf = std::numeric_limits<double>::infinity();
    if (mode == 2 && m >= 4 && n >= 2) {
        at(1, n / 2) = std::numeric_limits<double>::quiet_NaN();  // y[1] NaN
        at(2, 0) = inf;                                          // y[2] +-Inf
        at(3, 0) = inf;
        at(3, n - 1) = x[0] * x[n - 1] > 0 ? -inf : inf;  // y[3]: +Inf - Inf = NaN
    }
    // Padding stays NaN: reading it would show.
    std::vector<double> want(static_cast<std::size_t>(m)), tol(static_cast<std::size_t>(m));
    for (long long i = 0; i < m; ++i) {
        long double s = 0;
        double abs = 0;
        for (long long k = 0; k < n; ++k) {
            s += static_cast<long double>(at(i, k)) * x[k];
            abs += std::fabs(at(i, k) * x[k]);
        }
        want[i] = static_cast<double>(s);
        const double nn = static_cast<double>(n);
        tol[i] = mode == 1 ? 0.0 : (test::gamma(nn, 0x1p-53) + nn * 0x1p-63 + 0x1p-53) * abs;
    }
    const int shift = misalign ? 1 : 0;
    device_buffer<double> dA(a.size() + 1), dx(x.size() + 1), dy(static_cast<std::size_t>(m) + 1);
    if (!a.empty()) TCORE_CHECK(cudaMemcpy(dA.ptr + shift, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice));
    if (!x.empty()) TCORE_CHECK(cudaMemcpy(dx.ptr + shift, x.data(), x.size() * sizeof(double), cudaMemcpyHostToDevice));
    for (const variant& v : vs) {
        dy.poison();
        v.run(L, m, n, dA.ptr + shift, lda, dx.ptr + shift, dy.ptr, 0);
        TCORE_CHECK(cudaGetLastError());
        TCORE_CHECK(cudaDeviceSynchronize());
        std::vector<double> y = dy.download();
        if (m >= 1 && n >= 2 && test::planted("nan_result")) y[0] = std::numeric_limits<double>::quiet_NaN();
        if (m >= 1 && n >= 2 && test::planted("drop_term")) y[0] -= at(0, n / 2) * x[n / 2];
        int bad = 0;
        double worst = 0;
        for (long long i = 0; i < m; ++i) {
            if (!same_value(y[i], want[i], tol[i])) {
                if (++bad <= 3) std::printf("  y[%lld] = %.17g, want %.17g\n", i, y[i], want[i]);
            } else if (std::isfinite(want[i])) {
                worst = test::worst_of(worst, std::fabs(y[i] - want[i]));
            }
        }
        checks.check(bad == 0, "%s gemv %s %lld x %lld lda %lld%s%s: %d wrong (max error %.3g)", v.name.c_str(),
                     L == layout::row_major ? "row" : "col", m, n, lda, misalign ? " misaligned" : "",
                     mode == 1 ? " exact" : mode == 2 ? " NaN/Inf" : "", bad, worst);
    }
}

void check_nan_x(const std::vector<variant>& vs, rng& r)
{
    const long long m = 40, n = 37;
    std::vector<double> a(m * n), x(n);
    for (auto& v : a) v = random_value(r, false);
    for (auto& v : x) v = random_value(r, false);
    x[20] = std::numeric_limits<double>::quiet_NaN();
    device_buffer<double> dA(a.size()), dx(x.size()), dy(m);
    dA.upload(a);
    dx.upload(x);
    for (const variant& v : vs)
        for (layout L : {layout::row_major, layout::col_major}) {
            dy.poison();
            v.run(L, m, n, dA.ptr, L == layout::row_major ? n : m, dx.ptr, dy.ptr, 0);
            TCORE_CHECK(cudaDeviceSynchronize());
            int bad = 0;
            for (double y : dy.download()) bad += !std::isnan(y);
            checks.check(bad == 0, "%s gemv %s: NaN in x gives NaN everywhere", v.name.c_str(),
                         L == layout::row_major ? "row" : "col");
        }
}

/// The column-part split adds its parts in a fixed order: two runs agree bit for bit.
void check_split_repeatable(rng& r)
{
    const long long m = 1000, n = 20000;  // col-major: 32 blocks of 2 row tiles, split into parts
    std::vector<double> a(static_cast<std::size_t>(m * n)), x(static_cast<std::size_t>(n));
    for (auto& v : a) v = random_value(r, false);
    for (auto& v : x) v = random_value(r, false);
    device_buffer<double> dA(a.size()), dx(x.size()), dy(m);
    dA.upload(a);
    dx.upload(x);
    std::size_t bytes = 0;
    gemv<tensor_core>(nullptr, bytes, layout::col_major, m, n, dA.ptr, m, dx.ptr, dy.ptr);
    device_buffer<double> temp(bytes / 8);
    std::vector<double> first;
    bool same = true;
    for (int run = 0; run < 3; ++run) {
        dy.poison();
        gemv<tensor_core>(temp.ptr, bytes, layout::col_major, m, n, dA.ptr, m, dx.ptr, dy.ptr);
        TCORE_CHECK(cudaDeviceSynchronize());
        const std::vector<double> y = dy.download();
        if (run == 0) first = y;
        else same = same && std::memcmp(first.data(), y.data(), y.size() * sizeof(double)) == 0;
    }
    checks.check(same && bytes > 8, "tc gemv col %lld x %lld in column parts: bitwise identical over 3 runs", m, n);
}

void check_arguments()
{
    device_buffer<double> A(64 * 64), x(64), y(64);
    const auto R = layout::row_major, C = layout::col_major;
    checks.expect_error("a null A", [&] { gemv<tensor_core>(R, 8, 8, nullptr, 8, x.ptr, y.ptr); }, "A is a null pointer");
    checks.expect_error("a null x", [&] { gemv<tensor_core>(R, 8, 8, A.ptr, 8, nullptr, y.ptr); }, "x is a null pointer");
    checks.expect_error("a null y", [&] { gemv<tensor_core>(R, 8, 8, A.ptr, 8, x.ptr, nullptr); }, "y is a null pointer");
    checks.expect_error("a negative m", [&] { gemv<tensor_core>(R, -1, 8, A.ptr, 8, x.ptr, y.ptr); }, "m is negative");
    checks.expect_error("a negative n", [&] { gemv<tensor_core>(R, 8, -1, A.ptr, 8, x.ptr, y.ptr); }, "n is negative");
    checks.expect_error("row-major lda < n", [&] { gemv<tensor_core>(R, 8, 9, A.ptr, 8, x.ptr, y.ptr); }, "(n, row-major)");
    checks.expect_error("col-major lda < m", [&] { gemv<tensor_core>(C, 9, 8, A.ptr, 8, x.ptr, y.ptr); }, "(m, column-major)");
    checks.expect_error("y overlapping x", [&] { gemv<tensor_core>(R, 8, 8, A.ptr, 8, x.ptr, x.ptr + 4); }, "y overlaps x");
    checks.expect_error("y overlapping A", [&] { gemv<tensor_core>(R, 8, 8, A.ptr, 8, x.ptr, A.ptr + 8); }, "y overlaps A");
    checks.expect_error("cce: y overlapping A", [&] { gemv_cce(C, 8, 8, A.ptr, 8, x.ptr, A.ptr + 8); }, "y overlaps A");
    checks.expect_error("A not aligned to double", [&] {
        gemv<tensor_core>(R, 8, 8, reinterpret_cast<const double*>(reinterpret_cast<const char*>(A.ptr) + 4), 8, x.ptr,
                          y.ptr);
    }, "A is not aligned");
    checks.expect_error("cce: a null A", [&] { gemv_cce(C, 8, 8, nullptr, 8, x.ptr, y.ptr); }, "A is a null pointer");
    // The temp-storage overload: col-major 64 x 2048 splits into column parts.
    {
        device_buffer<double> wA(64 * 2048), wx(2048), wy(64);
        std::size_t need = 0;
        gemv<tensor_core>(nullptr, need, C, 64, 2048, wA.ptr, 64, wx.ptr, wy.ptr);
        checks.check(need > 8 && need % (64 * sizeof(double)) == 0, "temp query for col 64 x 2048: %zu bytes (parts x m doubles)", need);
        device_buffer<double> temp(need / 8 + 1);
        std::size_t small = need - 8, fine = need;
        checks.expect_error("temp below the queried size",
                            [&] { gemv<tensor_core>(temp.ptr, small, C, 64, 2048, wA.ptr, 64, wx.ptr, wy.ptr); }, "below the queried size");
        checks.expect_error("temp not 8-byte aligned", [&] {
            gemv<tensor_core>(reinterpret_cast<char*>(temp.ptr) + 4, fine, C, 64, 2048, wA.ptr, 64, wx.ptr, wy.ptr);
        }, "temp is not 8-byte aligned");
        checks.expect_error("temp overlapping A",
                            [&] { gemv<tensor_core>(wA.ptr, fine, C, 64, 2048, wA.ptr, 64, wx.ptr, wy.ptr); }, "temp overlaps A");
        checks.expect_error("temp overlapping y", [&] {
            gemv<tensor_core>(wy.ptr, fine, C, 64, 2048, wA.ptr, 64, wx.ptr, wy.ptr);
        }, "temp overlaps y");
        checks.expect_error("temp query with a negative m", [&] {
            gemv<tensor_core>(nullptr, need, C, -1, 2048, wA.ptr, 64, wx.ptr, wy.ptr);
        }, "m is negative");
        checks.expect_error("temp overload: a null x",
                            [&] { gemv<tensor_core>(temp.ptr, fine, C, 64, 2048, wA.ptr, 64, nullptr, wy.ptr); }, "x is a null pointer");
    }
    checks.expect_error("cce: lda < m", [&] { gemv_cce(C, 9, 8, A.ptr, 8, x.ptr, y.ptr); }, "(m, column-major)");
    // Empty products: m = 0 touches nothing (null pointers accepted, and a
    // poisoned y stays poisoned), n = 0 gives y = 0.
    gemv<tensor_core>(R, 0, 8, nullptr, 8, nullptr, nullptr);
    y.poison();
    gemv<tensor_core>(R, 0, 8, A.ptr, 8, x.ptr, y.ptr);
    gemv_cce(C, 0, 8, A.ptr, 1, x.ptr, y.ptr);
    if (test::planted("write_on_empty")) TCORE_CHECK(cudaMemset(y.ptr, 0, sizeof(double)));
    TCORE_CHECK(cudaDeviceSynchronize());
    {
        int written = 0;
        for (double v : y.download()) written += !std::isnan(v);
        checks.check(written == 0, "m = 0 wrote %d elements of y", written);
    }
    if (!test::planted("unwritten")) {
        gemv<tensor_core>(R, 8, 0, nullptr, 1, nullptr, y.ptr);
        gemv_cce(C, 8, 0, nullptr, 8, nullptr, y.ptr + 8);
    }
    TCORE_CHECK(cudaDeviceSynchronize());
    const auto h = y.download();
    int bad = 0, beyond = 0;
    for (int i = 0; i < 16; ++i) bad += h[i] != 0.0;
    for (std::size_t i = 16; i < h.size(); ++i) beyond += !std::isnan(h[i]);
    checks.check(bad == 0, "n = 0 gives y = 0 (%d of 16 not 0)", bad);
    checks.check(beyond == 0, "n = 0 writes only y[0..m) (%d more written)", beyond);
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    rng r(test::seed());
    check_arguments();
    const auto vs = variants();
    std::vector<problem> shapes = {{1, 1},     {7, 3},     {16, 16},   {17, 15},   {63, 65},    {100, 1},
                                   {1, 100},   {4096, 16}, {4096, 32}, {11264, 16}, {257, 4099}, {1000, 1000},
                                   {9000, 300}, {17000, 300}, {40, 5000}};
    if (!quick) {
        shapes.push_back({33, 40000});
        shapes.push_back({2048, 2048});
        shapes.push_back({40960, 16});
    }
    for (const problem& p : shapes)
        for (layout L : {layout::row_major, layout::col_major}) {
            check_case(vs, r, L, p.m, p.n, 0, false, 0);
            check_case(vs, r, L, p.m, p.n, 0, false, 1);
            if (p.m * p.n <= 1100000) {
                check_case(vs, r, L, p.m, p.n, 3, false, 0);  // odd padding: element path
                check_case(vs, r, L, p.m, p.n, 0, true, 0);   // misaligned A and x
                check_case(vs, r, L, p.m, p.n, 2, false, 2);  // NaN / Inf, even padding
            }
        }
    check_nan_x(vs, r);
    check_split_repeatable(r);
    return checks.finish();
}
