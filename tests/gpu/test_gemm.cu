// libs: CUDA::cublas
// tests/gpu/test_gemm.cu - every GEMM of the gemm workload (examples/gemm)
// against the FP64 CPU reference: cuBLAS, the tiled MMA kernel on both
// backends (FP64: m16n8k16 in both configurations, m16n8k8 and m8n8k4 on
// tensor cores, m16n8k4 steps and m8n8k4 on cuda_core; TF32 and FP16 on
// both), the TF32 tutorial kernel, the tiled SGEMM.
//
// C = A*B row-major, beta = 0. Inputs random in +-[1/64, 2) (never zero,
// FP16-normal), the leading-dimension padding of A and B filled with NaN
// (a kernel reading past K or N poisons its result), C poisoned (0xFF
// bytes, NaN) before every run and its padding columns required to stay
// poisoned. Every output element is checked, with S = sum_k |a_ik| |b_kj|
// (computed with the reference) and u = 2^-53:
//   FP64 (tcore kernels, cuBLAS): the device and the CPU reference each
//     err by at most gamma_K S, gamma_K = K u / (1 - K u): bound 2 gamma_K S.
//   TF32 (tcore, tc and cc): the kernels round each FP32 input to TF32 with
//     tcore::round_to_tf32 (cvt.rna: nearest, 10 stored bits); the reference
//     is computed from the same rounded operands (round_to_tf32 on the host
//     gives the same bits), so the operand rounding is no error. Products of
//     two 11-bit significands are exact in FP32. Inside an MMA each product
//     is aligned to the block's largest term and may be truncated there
//     (< 2^-23 of a partial sum <= S_t each, K products in all), and each
//     MMA's result, like each FP32 addition of the cuda_core backend, is
//     rounded once more (< 2^-23 S_t, at most K of them): 2 K 2^-23 S_t,
//     with S_t = sum_k |~a_ik| |~b_kj| of the rounded operands.
//   FP16 (tcore tc and cc, cuBLAS with FP32 compute): the inputs are FP16
//     values (rounded on the host), the reference uses them: 2 K 2^-23 S_h.
//     At K = 1000, S ~ 1000: tol ~ 0.24, below a typical product (~1), so
//     a k-term dropped from a sum fails (the former (2^-10 + ...) S bound,
//     which counted a worst-case operand rounding, was ~1.1 there).
//   TF32 (cuBLAS): the input rounding mode is not documented, allow
//     truncation (2^-10 each) against the unrounded FP32 reference:
//     (2^-9 + 2^-20 + K 2^-23) S (a baseline's check, not the kit's).
//   FP32 (cce-tiled, cuBLAS SGEMM): K FP32 roundings: 2 K 2^-24 S.
// Each bound gets 1% slack and the CPU reference's own error (gamma_K S).
// Sizes: 1, 7, 63, 65, 1000 and 1000x1013x997 (multiples of no tile), a few
// tile multiples (vector copy paths), padded leading dimensions, K = 0 (C
// must become zero) and M = 0 / N = 0 (no-ops: a poisoned C must stay
// poisoned); NaN and infinities in A (33x17x20): IEEE propagation as the
// reference computes it (a NaN in row i makes row i NaN, an infinity makes
// it +-Inf, +Inf and -Inf in one row NaN where their products meet with
// opposite signs); bad arguments must throw tcore::error with a message
// naming the problem. A configuration the device cannot run is reported
// "SKIPPED".
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): nan_result (C(0,0)
// made NaN), drop_term (C(0,0) lacks a product of typical size),
// write_on_empty (an M = 0 / N = 0 call writes C), zero_checks,
// device_error.
#include "common/test_util.hpp"

#include "examples/gemm/gemm_cublas.cuh"
#include "examples/gemm/gemm_mma.cuh"
#include "examples/gemm/gemm_reference.hpp"
#include "examples/gemm/gemm_simple.cuh"

#include <tcore/tcore.cuh>

#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using tcore::test::rng;
using tcore::test::tally;
namespace gm = tcore::examples::gemm;

namespace {

struct dims {
    int M, N, K;
    long long lda, ldb, ldc;  // 0: tight (K, N, N)
    bool special = false;     // NaN and infinities in A
};

/// The product a_0k b_k0 that the drop_term plant removes from C(0,0).
double planted_term = 0;

std::string dims_str(const dims& d)
{
    return std::to_string(d.M) + "x" + std::to_string(d.N) + "x" + std::to_string(d.K) + " (ld " +
           std::to_string(d.lda) + "," + std::to_string(d.ldb) + "," + std::to_string(d.ldc) + ")";
}

double gamma64(int K)
{
    const double ku = K * 0x1p-53;
    return ku / (1.0 - ku);
}

enum class bound { fp64, fp32_accumulate, tf32_any_rounding, fp32 };

double tolerance(bound b, int K, double S)
{
    double rel = 0;
    switch (b) {
    case bound::fp64: rel = 2.0 * gamma64(K); break;
    case bound::fp32_accumulate: rel = 2.0 * K * 0x1p-23; break;
    case bound::tf32_any_rounding: rel = 0x1p-9 + 0x1p-20 + K * 0x1p-23; break;
    case bound::fp32: rel = 2.0 * K * 0x1p-24; break;
    }
    return (1.01 * rel + gamma64(K)) * S + std::numeric_limits<double>::min();
}

/// Host matrices with NaN in the padding columns (rows x cols, leading dimension ld).
template <class T>
std::vector<T> padded(const std::vector<double>& v, int rows, int cols, long long ld)
{
    std::vector<T> out(static_cast<std::size_t>(rows) * ld, T(std::numeric_limits<float>::quiet_NaN()));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            out[static_cast<std::size_t>(i * ld + j)] = T(static_cast<float>(v[static_cast<std::size_t>(i) * cols + j]));
    return out;
}
template <>
std::vector<double> padded<double>(const std::vector<double>& v, int rows, int cols, long long ld)
{
    std::vector<double> out(static_cast<std::size_t>(rows) * ld, std::numeric_limits<double>::quiet_NaN());
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) out[static_cast<std::size_t>(i * ld + j)] = v[static_cast<std::size_t>(i) * cols + j];
    return out;
}

template <class T>
bool poisoned(T v)
{
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    for (unsigned char c : bytes)
        if (c != 0xFF) return false;
    return true;
}

/// One size's data on host and device, for one input type.
template <class In>
struct operands {
    tcore::test::device_buffer<In> a, b;
    operands(const std::vector<In>& ah, const std::vector<In>& bh) : a(ah.size()), b(bh.size())
    {
        if (!ah.empty()) a.upload(ah);
        if (!bh.empty()) b.upload(bh);
    }
};

/// Runs launch(C) on a poisoned C (M x ldc) and checks every element.
template <class Out>
void check_variant(tally& t, const char* name, const dims& d, bound bnd, const std::vector<double>& ref,
                   const std::vector<double>& S, const std::function<void(Out*)>& launch)
{
    if (d.M == 0 || d.N == 0) {  // a no-op: C (poisoned) must stay untouched
        tcore::test::device_buffer<Out> c(256);
        c.poison();
        launch(c.ptr);
        if (tcore::test::planted("write_on_empty")) TCORE_CHECK(cudaMemset(c.ptr, 0, sizeof(Out)));
        TCORE_CHECK(cudaDeviceSynchronize());
        long long written = 0;
        for (const Out v : c.download()) written += !poisoned(v);
        t.check(written == 0, "%s %s: no-op wrote %lld of 256 poisoned C elements", name, dims_str(d).c_str(), written);
        return;
    }
    const std::size_t c_elems = static_cast<std::size_t>(d.M) * d.ldc;
    tcore::test::device_buffer<Out> c(c_elems);
    c.poison();
    launch(c.ptr);
    TCORE_CHECK(cudaDeviceSynchronize());
    std::vector<Out> got = c.download();
    if (d.K > 0 && tcore::test::planted("nan_result")) got[0] = Out(std::numeric_limits<float>::quiet_NaN());
    if (d.K > 0 && tcore::test::planted("drop_term")) got[0] = Out(gm::as_double(got[0]) - planted_term);
    long long bad = 0, clobbered = 0;
    int fi = -1, fj = -1;
    for (int i = 0; i < d.M; ++i)
        for (long long j = 0; j < d.ldc; ++j) {
            const Out v = got[static_cast<std::size_t>(i * d.ldc + j)];
            if (j >= d.N) {
                clobbered += !poisoned(v);
                continue;
            }
            const std::size_t k = static_cast<std::size_t>(i) * d.N + static_cast<std::size_t>(j);
            if (!tcore::test::close(gm::as_double(v), ref[k], tolerance(bnd, d.K, S[k]))) {
                if (bad++ == 0) fi = i, fj = static_cast<int>(j);
            }
        }
    const std::size_t fk = fi >= 0 ? static_cast<std::size_t>(fi) * d.N + fj : 0;
    t.check(bad == 0 && clobbered == 0,
            "%s %s: %lld of %lld outputs outside the bound (first (%d,%d): got %.17g, ref %.17g, tol %.3g), %lld "
            "padding elements written",
            name, dims_str(d).c_str(), bad, static_cast<long long>(d.M) * d.N, fi, fj,
            fi >= 0 ? gm::as_double(got[static_cast<std::size_t>(fi * d.ldc + fj)]) : 0.0, fi >= 0 ? ref[fk] : 0.0,
            fi >= 0 ? tolerance(bnd, d.K, S[fk]) : 0.0, clobbered);
}

void check_size(tally& t, rng& r, const gm::cublas_handle& cublas, dims d, bool bk32_fits)
{
    if (d.lda == 0) d.lda = d.K > 0 ? d.K : 1;
    if (d.ldb == 0) d.ldb = d.N > 0 ? d.N : 1;
    if (d.ldc == 0) d.ldc = d.N > 0 ? d.N : 1;
    const int M = d.M, N = d.N, K = d.K;
    auto input = [&](std::size_t n) {
        std::vector<double> v(n);
        for (double& x : v) {
            do x = r.nonzero(-2, 2);
            while (std::fabs(x) < 1.0 / 64);
        }
        return v;
    };
    std::vector<double> a = input(static_cast<std::size_t>(M) * K);
    const std::vector<double> b = input(static_cast<std::size_t>(K) * N);
    if (d.special && M >= 4 && K >= 2) {
        const double inf = std::numeric_limits<double>::infinity();
        a[static_cast<std::size_t>(1) * K + K / 2] = std::numeric_limits<double>::quiet_NaN();  // row 1: NaN
        a[static_cast<std::size_t>(2) * K] = inf;                                              // row 2: +-Inf
        a[static_cast<std::size_t>(3) * K] = inf;  // row 3: NaN where b_0j, b_(K-1)j share a sign
        a[static_cast<std::size_t>(3) * K + K - 1] = -inf;
    }
    std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());

    // FP64 references of the FP64 data, of the FP32 data (cuBLAS TF32, FP32
    // variants), of the TF32-rounded data and of the FP16 data.
    const std::size_t mn = static_cast<std::size_t>(M) * N;
    std::vector<double> ref64(mn), s64(mn), ref32(mn), s32(mn), reft(mn), st(mn), refh(mn), sh(mn);
    gm::reference_gemm(M, N, K, a.data(), K, b.data(), N, ref64.data(), s64.data());
    gm::reference_gemm(M, N, K, af.data(), K, bf.data(), N, ref32.data(), s32.data());
    {
        std::vector<double> at(af.size()), bt(bf.size()), ah(af.size()), bh(bf.size());
        for (std::size_t i = 0; i < af.size(); ++i)
            at[i] = tcore::round_to_tf32(af[i]), ah[i] = __half2float(__float2half(af[i]));
        for (std::size_t i = 0; i < bf.size(); ++i)
            bt[i] = tcore::round_to_tf32(bf[i]), bh[i] = __half2float(__float2half(bf[i]));
        gm::reference_gemm(M, N, K, at.data(), K, bt.data(), N, reft.data(), st.data());
        gm::reference_gemm(M, N, K, ah.data(), K, bh.data(), N, refh.data(), sh.data());
    }
    const std::vector<double> a32(af.begin(), af.end()), b32(bf.begin(), bf.end());
    // drop_term: the first product of C(0,0) at least as large as their mean.
    planted_term = 0;
    if (M > 0 && N > 0 && K > 0)
        for (int k = 0; k < K; ++k)
            if (std::fabs(a[k] * b[static_cast<std::size_t>(k) * N]) >= s64[0] / K) {
                planted_term = a[k] * b[static_cast<std::size_t>(k) * N];
                break;
            }

    const long long lda = d.lda, ldb = d.ldb, ldc = d.ldc;
    const cublasHandle_t h = cublas.get();
    {
        const operands<double> o(padded<double>(a, M, K, lda), padded<double>(b, K, N, ldb));
        const double* pa = o.a.ptr;
        const double* pb = o.b.ptr;
        using fn = std::function<void(double*)>;
        check_variant<double>(t, "f64 tc m16n8k16", d, bound::fp64, ref64, s64, fn([&](double* c) {
            gm::gemm_f64<tcore::tensor_core>(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<double>(t, "f64 cc (m16n8k4 steps)", d, bound::fp64, ref64, s64, fn([&](double* c) {
            gm::gemm_f64<tcore::cuda_core>(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        if (bk32_fits)
            check_variant<double>(t, "f64 tc 128x128x32", d, bound::fp64, ref64, s64, fn([&](double* c) {
                gm::gemm_mma<gm::f64_config_bk32, tcore::f64_m16n8k16, tcore::tensor_core>(M, N, K, pa, lda, pb, ldb,
                                                                                          c, ldc);
            }));
        check_variant<double>(t, "f64 tc m16n8k8", d, bound::fp64, ref64, s64, fn([&](double* c) {
            gm::gemm_f64<tcore::tensor_core, tcore::f64_m16n8k8>(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<double>(t, "f64 tc m8n8k4", d, bound::fp64, ref64, s64, fn([&](double* c) {
            gm::gemm_f64<tcore::tensor_core, tcore::f64_m8n8k4>(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<double>(t, "f64 cc m8n8k4", d, bound::fp64, ref64, s64, fn([&](double* c) {
            gm::gemm_f64<tcore::cuda_core, tcore::f64_m8n8k4>(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<double>(t, "f64 base (cuBLAS DGEMM)", d, bound::fp64, ref64, s64, fn([&](double* c) {
            gm::cublas_dgemm(h, M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
    }
    {
        const operands<float> o(padded<float>(a32, M, K, lda), padded<float>(b32, K, N, ldb));
        const float* pa = o.a.ptr;
        const float* pb = o.b.ptr;
        using fn = std::function<void(float*)>;
        check_variant<float>(t, "f32 tc-tf32", d, bound::fp32_accumulate, reft, st, fn([&](float* c) {
            gm::gemm_tf32<tcore::tensor_core>(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<float>(t, "f32 cc-tf32", d, bound::fp32_accumulate, reft, st, fn([&](float* c) {
            gm::gemm_tf32<tcore::cuda_core>(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<float>(t, "f32 tc-tf32-tutorial", d, bound::fp32_accumulate, reft, st, fn([&](float* c) {
            gm::gemm_tf32_tutorial(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<float>(t, "f32 cce-tiled", d, bound::fp32, ref32, s32, fn([&](float* c) {
            gm::gemm_f32_tiled(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<float>(t, "f32 base (cuBLAS TF32)", d, bound::tf32_any_rounding, ref32, s32, fn([&](float* c) {
            gm::cublas_sgemm_tf32(h, M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<float>(t, "f32 base-fp32 (cuBLAS SGEMM)", d, bound::fp32, ref32, s32, fn([&](float* c) {
            gm::cublas_sgemm(h, M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
    }
    {
        const operands<__half> o(padded<__half>(a32, M, K, lda), padded<__half>(b32, K, N, ldb));
        const __half* pa = o.a.ptr;
        const __half* pb = o.b.ptr;
        using fn = std::function<void(float*)>;
        check_variant<float>(t, "f16 tc-f16", d, bound::fp32_accumulate, refh, sh, fn([&](float* c) {
            gm::gemm_f16<tcore::tensor_core>(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<float>(t, "f16 cc-f16", d, bound::fp32_accumulate, refh, sh, fn([&](float* c) {
            gm::gemm_f16<tcore::cuda_core>(M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
        check_variant<float>(t, "f16 base (cuBLAS)", d, bound::fp32_accumulate, refh, sh, fn([&](float* c) {
            gm::cublas_hgemm(h, M, N, K, pa, lda, pb, ldb, c, ldc);
        }));
    }
}

/// True if f() throws tcore::error whose message contains `expect`.
bool throws(const std::function<void()>& f, const char* expect)
{
    try {
        f();
    } catch (const tcore::error& e) {
        const bool ok = std::strstr(e.what(), expect) != nullptr;
        if (!ok) std::printf("  unexpected message: %s\n", e.what());
        return ok;
    }
    return false;
}

void check_bad_arguments(tally& t, const gm::cublas_handle& cublas)
{
    tcore::test::device_buffer<double> d64(4096);
    tcore::test::device_buffer<float> d32(4096);
    tcore::test::device_buffer<__half> d16(4096);
    const double* a64 = d64.ptr;
    double* c64 = d64.ptr + 2048;
    const float* a32 = d32.ptr;
    float* c32 = d32.ptr + 2048;
    const __half* a16 = d16.ptr;
    const cublasHandle_t h = cublas.get();

    // Every launcher, called as f(M, N, K, A, lda, B, ldb, C, ldc) on 16x16x16.
    struct launcher {
        const char* name;
        std::function<void(int, int, int, bool, bool, bool, long long)> call;  // (M, N, K, null A, null B, null C, lda)
    };
    const std::vector<launcher> ls = {
        {"gemm_f64 tc",
         [&](int M, int N, int K, bool na, bool nb, bool nc, long long lda) {
             gm::gemm_f64<tcore::tensor_core>(M, N, K, na ? nullptr : a64, lda, nb ? nullptr : a64, 16,
                                              nc ? nullptr : c64, 16);
         }},
        {"gemm_f64 cc",
         [&](int M, int N, int K, bool na, bool nb, bool nc, long long lda) {
             gm::gemm_f64<tcore::cuda_core>(M, N, K, na ? nullptr : a64, lda, nb ? nullptr : a64, 16,
                                            nc ? nullptr : c64, 16);
         }},
        {"gemm_tf32",
         [&](int M, int N, int K, bool na, bool nb, bool nc, long long lda) {
             gm::gemm_tf32<tcore::tensor_core>(M, N, K, na ? nullptr : a32, lda, nb ? nullptr : a32, 16,
                                               nc ? nullptr : c32, 16);
         }},
        {"gemm_tf32_tutorial",
         [&](int M, int N, int K, bool na, bool nb, bool nc, long long lda) {
             gm::gemm_tf32_tutorial(M, N, K, na ? nullptr : a32, lda, nb ? nullptr : a32, 16, nc ? nullptr : c32, 16);
         }},
        {"gemm_f32_tiled",
         [&](int M, int N, int K, bool na, bool nb, bool nc, long long lda) {
             gm::gemm_f32_tiled(M, N, K, na ? nullptr : a32, lda, nb ? nullptr : a32, 16, nc ? nullptr : c32, 16);
         }},
        {"gemm_f16",
         [&](int M, int N, int K, bool na, bool nb, bool nc, long long lda) {
             gm::gemm_f16<tcore::tensor_core>(M, N, K, na ? nullptr : a16, lda, nb ? nullptr : a16, 16,
                                              nc ? nullptr : c32, 16);
         }},
        {"cublas_dgemm",
         [&](int M, int N, int K, bool na, bool nb, bool nc, long long lda) {
             gm::cublas_dgemm(h, M, N, K, na ? nullptr : a64, lda, nb ? nullptr : a64, 16, nc ? nullptr : c64, 16);
         }},
        {"cublas_sgemm_tf32",
         [&](int M, int N, int K, bool na, bool nb, bool nc, long long lda) {
             gm::cublas_sgemm_tf32(h, M, N, K, na ? nullptr : a32, lda, nb ? nullptr : a32, 16, nc ? nullptr : c32,
                                   16);
         }},
        {"cublas_hgemm",
         [&](int M, int N, int K, bool na, bool nb, bool nc, long long lda) {
             gm::cublas_hgemm(h, M, N, K, na ? nullptr : a16, lda, nb ? nullptr : a16, 16, nc ? nullptr : c32, 16);
         }},
    };
    for (const launcher& l : ls) {
        t.check(throws([&] { l.call(-1, 16, 16, false, false, false, 16); }, "sizes must be >= 0"),
                "%s: M < 0 must throw", l.name);
        t.check(throws([&] { l.call(16, 16, -3, false, false, false, 16); }, "sizes must be >= 0"),
                "%s: K < 0 must throw", l.name);
        t.check(throws([&] { l.call(16, 16, 16, true, false, false, 16); }, "A is a null pointer"),
                "%s: null A must throw", l.name);
        t.check(throws([&] { l.call(16, 16, 16, false, true, false, 16); }, "B is a null pointer"),
                "%s: null B must throw", l.name);
        t.check(throws([&] { l.call(16, 16, 16, false, false, true, 16); }, "C is a null pointer"),
                "%s: null C must throw", l.name);
        t.check(throws([&] { l.call(16, 16, 16, false, false, false, 8); }, "lda must be >= max(1, K)"),
                "%s: lda < K must throw", l.name);
        bool empty_ok = true;
        try {
            l.call(0, 16, 16, true, true, true, 16);  // M = 0: nothing to do, no pointers needed
            l.call(16, 0, 16, true, true, true, 16);  // N = 0
        } catch (const tcore::error& e) {
            std::printf("  %s\n", e.what());
            empty_ok = false;
        }
        t.check(empty_ok, "%s: M = 0 or N = 0 with null pointers must be a no-op", l.name);
    }
    TCORE_CHECK(cudaDeviceSynchronize());
}

}  // namespace

int main()
{
    tally t;
    rng r(tcore::test::seed());
    tcore::test::require_gpu_or_skip();
    const gm::cublas_handle cublas;

    const std::vector<dims> sizes = {
        {1, 1, 1, 0, 0, 0},        {7, 7, 7, 0, 0, 0},          {63, 63, 63, 0, 0, 0},
        {65, 65, 65, 0, 0, 0},     {63, 65, 1, 0, 0, 0},        {130, 257, 33, 0, 0, 0},
        {128, 256, 64, 0, 0, 0},   {256, 128, 48, 0, 0, 0},     {1000, 1000, 1000, 0, 0, 0},
        {1000, 1013, 997, 0, 0, 0},
        {200, 96, 40, 48, 104, 99},   // padded, 16-byte multiples for A and B: vector copies, scalar C stores
        {97, 33, 70, 71, 35, 40},     // padded, odd: element copies
        {64, 48, 0, 0, 0, 0},         // K = 0: C = 0
        {0, 16, 16, 0, 0, 0},         // M = 0
        {16, 0, 16, 0, 0, 0},         // N = 0
        {33, 17, 20, 0, 0, 0, true},  // NaN and infinities in A
    };
    int dev = 0, optin = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    TCORE_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    const bool bk32_fits = static_cast<std::size_t>(optin) >= gm::f64_config_bk32::smem_bytes;
    if (!bk32_fits)
        t.skip("f64 tc 128x128x32 (every size): needs %zu bytes of shared memory per block, the device has %d",
               gm::f64_config_bk32::smem_bytes, optin);
    for (const dims& d : sizes) check_size(t, r, cublas, d, bk32_fits);
    check_bad_arguments(t, cublas);
    return t.finish();
}
