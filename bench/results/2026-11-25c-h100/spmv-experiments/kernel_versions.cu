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

static double time_it(const std::function<void()>& f, int reps = 300)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 0; i < 30; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
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
    for (auto [c, n] : std::vector<std::tuple<gen::matrix_class, long long>>{
             {gen::matrix_class::banded, 1000000}, {gen::matrix_class::power_law, 1000000},
             {gen::matrix_class::fem3d, 1000000}, {gen::matrix_class::banded, 10000000},
             {gen::matrix_class::power_law, 10000000}, {gen::matrix_class::fem3d, 10000000},
             {gen::matrix_class::lattice4d, 10000000}, {gen::matrix_class::banded, 100000000}}) {
        const auto a = gen::generate(c, n, 0x5b3e0000ull + n);
        std::vector<double> hx(a.cols);
        for (int i = 0; i < a.cols; ++i) hx[i] = 1.0 + 1e-3 * (i % 97);
        sb::device_array<double> x(hx), y(a.rows), yref(a.rows);
        double tb = 0;
        std::vector<double> ref;
        {
            sb::device_csr da(a);
            sb::spmv base(da, x.ptr, yref.ptr, true, nullptr);
            tb = time_it([&] { base.run(nullptr); });
            ref = yref.download();
        }
        dasp_spmv s(a);
        double err = 0;
        auto check = [&] { std::vector<double> got = y.download(); for (int i = 0; i < a.rows; ++i) err = std::max(err, std::abs(got[i] - ref[i]) / (1 + std::abs(ref[i]))); };
        const double t8 = time_it([&] { s.run<tensor_core, f64_m8n8k4>(x.ptr, y.ptr); }); check();
        const double t16 = time_it([&] { s.run<tensor_core, f64_m16n8k16>(x.ptr, y.ptr); }); check();
        const double te = time_it([&] { s.run<spmv_essential, f64_m8n8k4>(x.ptr, y.ptr); }); check();
        std::printf("%s %-12s %9lld base %.5f | tc8 %.5f (%.3f) tc16 %.5f (%.3f) cce %.5f (%.3f) | err %.1e\n", tag,
                    gen::class_name(c), n, tb, t8, tb / t8, t16, tb / t16, te, tb / te, err);
        std::fflush(stdout);
    }
    return 0;
}
