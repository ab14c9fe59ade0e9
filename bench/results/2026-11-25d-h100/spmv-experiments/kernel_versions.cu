// Compares SpMV kernel versions (experiment driver, not part of tcore).
#include <tcore/patterns/spmv.cuh>
#include <tcore/sparse/generate.hpp>
#include "../../../../examples/spmv/cusparse_baseline.cuh"
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <tuple>
#include <vector>
using namespace tcore;
namespace sb = tcore::examples::sparse_base;
namespace gen = tcore::sparse::gen;

static char* flush_buf = nullptr;
static double time_it(const std::function<void()>& f, bool cold = false, int reps = 300)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 0; i < 30; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
        if (cold) cudaMemsetAsync(flush_buf, i & 0xff, 256u << 20);
        cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    TCORE_CHECK(cudaGetLastError());
    return t[t.size() / 2];
}

int main(int argc, char** argv)
{
    const char* tag = argc > 1 ? argv[1] : "?";
    TCORE_CHECK(cudaMalloc(&flush_buf, 256u << 20));
    for (auto [c, n] : std::vector<std::tuple<gen::matrix_class, long long>>{
             {gen::matrix_class::banded, 1000000}, {gen::matrix_class::power_law, 1000000},
             {gen::matrix_class::fem3d, 1000000}, {gen::matrix_class::dense_blocks, 1000000},
             {gen::matrix_class::banded, 10000000}, {gen::matrix_class::power_law, 10000000},
             {gen::matrix_class::fem3d, 10000000}, {gen::matrix_class::lattice4d, 10000000},
             {gen::matrix_class::banded, 100000000}, {gen::matrix_class::power_law, 100000000}}) {
        const auto a = gen::generate(c, n, 0x5b3e0000ull + n);
        std::vector<double> hx(a.cols);
        for (int i = 0; i < a.cols; ++i) hx[i] = 1.0 + 1e-3 * (i % 97);
        sb::device_array<double> x(hx), y(a.rows), yref(a.rows);
        const bool cold = n <= 1000000;
        double tb = 0;
        std::vector<double> ref;
        {
            sb::device_csr da(a);
            sb::spmv base(da, x.ptr, yref.ptr, true, nullptr);
            tb = time_it([&] { base.run(nullptr); }, cold);
            ref = yref.download();
        }
        dasp_spmv s(a);
        double err = 0;
        auto check = [&] { std::vector<double> got = y.download(); for (int i = 0; i < a.rows; ++i) err = std::max(err, std::abs(got[i] - ref[i]) / (1 + std::abs(ref[i]))); };
        const double t8 = time_it([&] { s.run<tensor_core, f64_m8n8k4>(x.ptr, y.ptr); }, cold); check();
        const double tk8 = time_it([&] { s.run<tensor_core, f64_m16n8k8>(x.ptr, y.ptr); }, cold); check();
        const double t16 = time_it([&] { s.run<tensor_core, f64_m16n8k16>(x.ptr, y.ptr); }, cold); check();
        const double te = time_it([&] { s.run<spmv_essential, f64_m8n8k4>(x.ptr, y.ptr); }, cold); check();
        const double tcc = time_it([&] { s.run<cuda_core, f64_m8n8k4>(x.ptr, y.ptr); }, cold); check();
        std::printf("%s %-12s %9lld %s base %.5f | tc8 %.5f (%.3f) tck8 %.5f (%.3f) tc16 %.5f (%.3f) cce %.5f (%.3f) cc %.5f | err %.1e\n", tag,
                    gen::class_name(c), n, cold ? "cold" : "warm", tb, t8, tb / t8, tk8, tb / tk8, t16, tb / t16, te, tb / te, tcc, err);
        std::fflush(stdout);
        if (argc > 2) {
            for (auto [g, t] : std::vector<std::pair<int, int>>{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 2}, {0, 4}}) {
                s.set_work_per_warp(g, t);
                const double u8 = time_it([&] { s.run<tensor_core, f64_m8n8k4>(x.ptr, y.ptr); }, cold); check();
                const double uk8 = time_it([&] { s.run<tensor_core, f64_m16n8k8>(x.ptr, y.ptr); }, cold); check();
                const double ue = time_it([&] { s.run<spmv_essential, f64_m8n8k4>(x.ptr, y.ptr); }, cold); check();
                std::printf("%s %-12s %9lld gpw %d tpw %d (auto %d): tc8 %.3f tck8 %.3f cce %.3f | err %.1e\n", tag, gen::class_name(c), n, g, t,
                            s.groups_per_warp(), tb / u8, tb / uk8, tb / ue, err);
                std::fflush(stdout);
            }
            s.set_work_per_warp(0, 0);
        }
    }
    return 0;
}
