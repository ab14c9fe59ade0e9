// examples/gemm/gemm.cu - the GEMM workload: C = A*B, row-major, alpha = 1,
// beta = 0 (C overwritten). Compute-bound, Quadrant I (every MMA input and
// output used).
//
// Cases "f64 <size>" (FP64 data):
//   base        cuBLAS DGEMM
//   tc          tiled MMA GEMM (gemm_mma.cuh), f64 m16n8k16, tensor cores,
//               block 128x128x16, 8 warps of 64x32, 4-stage cp.async
//   tc-bk32     the same with 128x128x32 slices and 3 stages (where a block
//               may have 207 KiB of shared memory, i.e. sm_90)
//   tc-m8n8k4   the same kernel on f64 m8n8k4 (the Cubie study's shape)
//   cc          the same kernel with the cuda_core backend
// Cases "f32 <size>" (FP32 data; the tensor-core GEMM tutorial's comparison):
//   base        cuBLAS, TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32)
//   base-fp32   cuBLAS SGEMM, FP32 on CUDA cores
//   cce-tiled   shared-memory tiled CUDA-core SGEMM (gemm_simple.cuh)
//   tc-tf32-tutorial  TF32 16x8x8 fragments, block 128x64x32, warp 32x32
//   tc-tf32     tiled MMA GEMM on TF32 m16n8k8: 128x256x32 blocks, 3-stage
//               cp.async, ldmatrix A fragments, fragments prefetched one
//               k-step ahead
// Cases "f16 <size>" (the f32 case's data rounded to FP16 before upload):
//   base        cuBLAS GemmEx, FP16 inputs, FP32 accumulation and C
//   tc-f16      tiled MMA GEMM on f16 m16n8k16, FP32 accumulation,
//               128x256x64 blocks, 3-stage cp.async, ldmatrix A and B,
//               fragments prefetched
//
// Accuracy: against an FP64 CPU GEMM of the inputs (f16: of the FP32 data
// it was rounded from). Up to 1024 in every dimension every output is
// checked; larger sizes check 64 random rows x 64 random columns (4096
// outputs, first and last row and column included) against an FP64
// reference computed for those outputs only, as the rows' notes say.
#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include "gemm_cublas.cuh"
#include "gemm_mma.cuh"
#include "gemm_reference.hpp"
#include "gemm_simple.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace tb = tcore::bench;
namespace gm = tcore::examples::gemm;

enum class prec { f64, f32, f16 };

struct gemm_case {
    prec p;
    int M, N, K;
};

std::string dims(int M, int N, int K)
{
    if (M == N && N == K) return std::to_string(M) + "^3";
    return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
}

std::string case_name(const gemm_case& c)
{
    const char* p = c.p == prec::f64 ? "f64 " : c.p == prec::f32 ? "f32 " : "f16 ";
    return p + dims(c.M, c.N, c.K);
}

using tb::device_array;

/// Inputs of one size and their FP64 reference (full or sampled).
template <class T>
struct problem {
    int M = 0, N = 0, K = 0;
    std::vector<T> a, b;
    bool full = true;
    gm::sample_grid grid;     // when !full
    std::vector<double> ref;  // M*N (full) or grid.size()
    std::string check_note;

    template <class Src>
    void build(int M_, int N_, int K_, const std::vector<Src>& a_src, const std::vector<Src>& b_src)
    {
        M = M_, N = N_, K = K_;
        a.assign(a_src.begin(), a_src.end());
        b.assign(b_src.begin(), b_src.end());
        full = M <= 1024 && N <= 1024 && K <= 1024;
        if (full) {
            ref.resize(static_cast<std::size_t>(M) * N);
            gm::reference_gemm(M, N, K, a.data(), K, b.data(), N, ref.data());
            check_note = "all " + std::to_string(ref.size()) + " outputs checked";
        } else {
            grid = gm::pick_samples(M, N, 64, 64, 0x6e3300ull + static_cast<std::uint64_t>(M) * 31 + N);
            ref.resize(grid.size());
            gm::reference_gemm_sampled(K, a.data(), K, b.data(), N, grid, ref.data());
            check_note = "error on " + std::to_string(grid.size()) + " sampled outputs (" +
                         std::to_string(grid.rows.size()) + " random rows x " + std::to_string(grid.cols.size()) +
                         " random columns, FP64 reference for those only)";
        }
    }

    /// Accuracy of a downloaded M x N result (ldc = N).
    template <class C>
    tb::accuracy accuracy(const std::vector<C>& got) const
    {
        if (full) {
            std::vector<double> g(got.size());
            for (std::size_t i = 0; i < got.size(); ++i) g[i] = gm::as_double(got[i]);
            return tb::accuracy_of(ref.data(), g.data(), g.size());
        }
        const std::vector<double> g = gm::gather_samples(got.data(), N, grid);
        return tb::accuracy_of(ref.data(), g.data(), g.size());
    }
};

std::vector<__half> to_half(const std::vector<float>& v)
{
    std::vector<__half> h(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) h[i] = __float2half_rn(v[i]);
    return h;
}

struct variant {
    std::string name;
    tb::peak peak;
    std::string note;
    std::function<void(cudaStream_t)> launch;
};

/// Shared memory one block may opt in to on the current device.
std::size_t smem_optin()
{
    int dev = 0, bytes = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    TCORE_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return static_cast<std::size_t>(bytes);
}

std::string fixed2(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

void run(tb::context& ctx)
{
    std::vector<gemm_case> cases;
    if (ctx.quick()) {
        cases = {{prec::f64, 256, 256, 256}, {prec::f64, 1000, 1013, 997}, {prec::f32, 1024, 1024, 1024},
                 {prec::f16, 1024, 1024, 1024}};
    } else {
        for (int s : {256, 512, 1024, 2048, 4096, 8192}) cases.push_back({prec::f64, s, s, s});
        cases.push_back({prec::f64, 1000, 1013, 997});
        for (int s : {1024, 2048, 4096, 8192}) {
            cases.push_back({prec::f32, s, s, s});
            cases.push_back({prec::f16, s, s, s});
        }
        cases.push_back({prec::f32, 1000, 1013, 997});
        cases.push_back({prec::f16, 1000, 1013, 997});
    }

    std::unique_ptr<gm::cublas_handle> cublas;  // made once, outside every timed loop
    auto handle = [&] {
        if (!cublas) cublas = std::make_unique<gm::cublas_handle>();
        return cublas->get();
    };
    std::map<std::string, std::map<std::string, double>> times;  // case -> variant -> median ms

    // The f32 and f16 cases of one size share their FP32 data and reference.
    problem<float> f32_data;
    auto f32_problem = [&](int M, int N, int K) -> const problem<float>& {
        if (f32_data.M != M || f32_data.N != N || f32_data.K != K || f32_data.ref.empty()) {
            const std::vector<double> a = tb::random_uniform(static_cast<std::size_t>(M) * K, 0xa32000ull + M);
            const std::vector<double> b = tb::random_uniform(static_cast<std::size_t>(K) * N, 0xb32000ull + N);
            const std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
            f32_data.build(M, N, K, af, bf);
        }
        return f32_data;
    };

    for (const gemm_case& gc : cases) {
        const std::string name = case_name(gc);
        if (!ctx.want_case(name) || !ctx.announce_case(name)) continue;
        const int M = gc.M, N = gc.N, K = gc.K;
        const std::size_t mk = static_cast<std::size_t>(M) * K, kn = static_cast<std::size_t>(K) * N,
                          mn = static_cast<std::size_t>(M) * N;
        const double flops = 2.0 * M * N * K;

        // Runs one variant: correctness on a poisoned C, then the measurement.
        auto measure = [&](const variant& v, auto* c_dev, std::size_t c_elems, double bytes, const auto& prob) {
            using CT = std::remove_pointer_t<decltype(c_dev)>;
            TCORE_CHECK(cudaMemsetAsync(c_dev, 0xFF, c_elems * sizeof(CT), ctx.stream()));
            v.launch(ctx.stream());
            TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
            std::vector<CT> got(c_elems);
            TCORE_CHECK(cudaMemcpy(got.data(), c_dev, c_elems * sizeof(CT), cudaMemcpyDeviceToHost));
            const tb::accuracy err = prob.accuracy(got);
            tb::row_spec spec;
            spec.case_name = name;
            spec.variant = v.name;
            spec.bytes = bytes;
            spec.flops = flops;
            spec.ceiling = v.peak;
            spec.compute = v.peak;
            spec.footprint_bytes = static_cast<std::size_t>(bytes);
            spec.note = v.note + "; " + prob.check_note;
            const std::vector<double> med = ctx.measure(spec, v.launch, err);
            if (!med.empty()) times[name][v.name] = med.front();
        };

        if (gc.p == prec::f64) {
            const char* names[] = {"base", "tc", "tc-bk32", "tc-m8n8k4", "cc"};
            bool any = false;
            for (const char* n : names) any = any || ctx.want_variant(n);
            if (!any) continue;
            problem<double> prob;
            prob.build(M, N, K, tb::random_uniform(mk, 0xa64000ull + M), tb::random_uniform(kn, 0xb64000ull + N));
            std::printf("gemm %s: %s\n", name.c_str(), prob.check_note.c_str());
            device_array<double> a(mk), b(kn), c(mn);
            a.upload(prob.a);
            b.upload(prob.b);
            const double* pa = a.ptr;
            const double* pb = b.ptr;
            double* pc = c.ptr;
            const double bytes = 8.0 * (mk + kn + mn);
            std::vector<variant> vs;
            if (ctx.want_variant("base")) {
                cublasHandle_t h = handle();
                vs.push_back({"base", tb::peak::fp64_tc, "cuBLAS DGEMM (C^T = B^T A^T, column-major)",
                              [=](cudaStream_t s) { gm::cublas_dgemm(h, M, N, K, pa, K, pb, N, pc, N, s); }});
            }
            vs.push_back({"tc", tb::peak::fp64_tc,
                          "tiled MMA GEMM, f64 m16n8k16, block 128x128x16, warp 64x32, 4-stage cp.async",
                          [=](cudaStream_t s) { gm::gemm_f64<tcore::tensor_core>(M, N, K, pa, K, pb, N, pc, N, s); }});
            if (smem_optin() >= gm::f64_config_bk32::smem_bytes)
                vs.push_back({"tc-bk32", tb::peak::fp64_tc, "tc with block 128x128x32, 3-stage cp.async",
                              [=](cudaStream_t s) {
                                  gm::gemm_mma<gm::f64_config_bk32, tcore::f64_m16n8k16, tcore::tensor_core>(
                                      M, N, K, pa, K, pb, N, pc, N, s);
                              }});
            vs.push_back({"tc-m8n8k4", tb::peak::fp64_tc, "tc's kernel on f64 m8n8k4",
                          [=](cudaStream_t s) {
                              gm::gemm_f64<tcore::tensor_core, tcore::f64_m8n8k4>(M, N, K, pa, K, pb, N, pc, N, s);
                          }});
            vs.push_back({"cc", tb::peak::fp64_cc, "tc's kernel with the cuda_core backend (m16n8k4 steps)",
                          [=](cudaStream_t s) { gm::gemm_f64<tcore::cuda_core>(M, N, K, pa, K, pb, N, pc, N, s); }});
            for (const variant& v : vs)
                if (ctx.want_variant(v.name)) measure(v, pc, mn, bytes, prob);
        } else if (gc.p == prec::f32) {
            const char* names[] = {"base", "base-fp32", "cce-tiled", "tc-tf32-tutorial", "tc-tf32"};
            bool any = false;
            for (const char* n : names) any = any || ctx.want_variant(n);
            if (!any) continue;
            const problem<float>& prob = f32_problem(M, N, K);
            std::printf("gemm %s: %s\n", name.c_str(), prob.check_note.c_str());
            device_array<float> a(mk), b(kn), c(mn);
            a.upload(prob.a);
            b.upload(prob.b);
            const float* pa = a.ptr;
            const float* pb = b.ptr;
            float* pc = c.ptr;
            const double bytes = 4.0 * (mk + kn + mn);
            std::vector<variant> vs;
            if (ctx.want_variant("base") || ctx.want_variant("base-fp32")) {
                cublasHandle_t h = handle();
                vs.push_back({"base", tb::peak::tf32_tc, "cuBLAS GemmEx, CUBLAS_COMPUTE_32F_FAST_TF32",
                              [=](cudaStream_t s) { gm::cublas_sgemm_tf32(h, M, N, K, pa, K, pb, N, pc, N, s); }});
                vs.push_back({"base-fp32", tb::peak::fp32_cc, "cuBLAS SGEMM, FP32 (no TF32)",
                              [=](cudaStream_t s) { gm::cublas_sgemm(h, M, N, K, pa, K, pb, N, pc, N, s); }});
            }
            vs.push_back({"cce-tiled", tb::peak::fp32_cc,
                          "shared-memory tiled CUDA-core SGEMM, block 128x128x8, 8x8 per thread",
                          [=](cudaStream_t s) { gm::gemm_f32_tiled(M, N, K, pa, K, pb, N, pc, N, s); }});
            vs.push_back({"tc-tf32-tutorial", tb::peak::tf32_tc,
                          "TF32 m16n8k8, block 128x64x32, warp 32x32, no pipelining",
                          [=](cudaStream_t s) { gm::gemm_tf32_tutorial(M, N, K, pa, K, pb, N, pc, N, s); }});
            vs.push_back({"tc-tf32", tb::peak::tf32_tc,
                          "TF32 m16n8k8, block 128x256x32, warp 64x64, 3-stage cp.async, ldmatrix A, fragment prefetch",
                          [=](cudaStream_t s) { gm::gemm_tf32<tcore::tensor_core>(M, N, K, pa, K, pb, N, pc, N, s); }});
            for (const variant& v : vs)
                if (ctx.want_variant(v.name)) measure(v, pc, mn, bytes, prob);
        } else {
            const char* names[] = {"base", "tc-f16"};
            bool any = false;
            for (const char* n : names) any = any || ctx.want_variant(n);
            if (!any) continue;
            const problem<float>& prob = f32_problem(M, N, K);
            std::printf("gemm %s: %s; inputs rounded from FP32 to FP16\n", name.c_str(), prob.check_note.c_str());
            device_array<__half> a(mk), b(kn);
            device_array<float> c(mn);
            a.upload(to_half(prob.a));
            b.upload(to_half(prob.b));
            const __half* pa = a.ptr;
            const __half* pb = b.ptr;
            float* pc = c.ptr;
            const double bytes = 2.0 * (mk + kn) + 4.0 * mn;
            std::vector<variant> vs;
            if (ctx.want_variant("base")) {
                cublasHandle_t h = handle();
                vs.push_back({"base", tb::peak::fp16_tc, "cuBLAS GemmEx, FP16 in, FP32 accumulate and out",
                              [=](cudaStream_t s) { gm::cublas_hgemm(h, M, N, K, pa, K, pb, N, pc, N, s); }});
            }
            vs.push_back({"tc-f16", tb::peak::fp16_tc,
                          "f16 m16n8k16 FP32 acc, block 128x256x64, warp 64x64, 3-stage cp.async, ldmatrix, fragment prefetch",
                          [=](cudaStream_t s) { gm::gemm_f16<tcore::tensor_core>(M, N, K, pa, K, pb, N, pc, N, s); }});
            for (const variant& v : vs)
                if (ctx.want_variant(v.name)) measure(v, pc, mn, bytes, prob);
        }
    }

    // Speedups at the sizes the targets are stated for.
    auto ratio = [&](const std::string& c, const std::string& num, const std::string& den, const std::string& what) {
        const auto it = times.find(c);
        if (it == times.end()) return;
        const auto n = it->second.find(num), d = it->second.find(den);
        if (n == it->second.end() || d == it->second.end() || d->second <= 0) return;
        ctx.summary(c + ": " + what, fixed2(n->second / d->second));
    };
    for (const char* s : {"4096^3", "8192^3"}) {
        const std::string f64 = std::string("f64 ") + s, f32 = std::string("f32 ") + s, f16 = std::string("f16 ") + s;
        ratio(f64, "base", "tc", "tc throughput / cuBLAS DGEMM = t(base)/t(tc)");
        ratio(f64, "cc", "tc", "tc speedup over cc = t(cc)/t(tc)");
        ratio(f32, "cce-tiled", "tc-tf32", "tc-tf32 speedup over cce-tiled = t(cce-tiled)/t(tc-tf32)");
        ratio(f32, "tc-tf32-tutorial", "tc-tf32", "tc-tf32 speedup over tc-tf32-tutorial");
        ratio(f32, "base", "tc-tf32", "tc-tf32 throughput / cuBLAS TF32 = t(base)/t(tc-tf32)");
        ratio(f16, "base", "tc-f16", "tc-f16 throughput / cuBLAS FP16 = t(base)/t(tc-f16)");
    }
}

}  // namespace

void tcore_register_gemm(tcore::bench::registry& r)
{
    r.add({"gemm", "C = A*B row-major (alpha = 1, beta = 0): FP64 cuBLAS / tiled MMA (tc, cc), TF32 and FP16", run});
}
