// Panel-count sweep for dasp_spmv_panels (experiment driver, not part of tcore).
#include <tcore/patterns/spmv.cuh>
#include <tcore/sparse/generate.hpp>
#include "../../../../examples/spmv/cusparse_baseline.cuh"
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>
using namespace tcore;
namespace sb = tcore::examples::sparse_base;
namespace gen = tcore::sparse::gen;
static double time_it(const std::function<void()>& f, int reps = 40)
{
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 0; i < 5; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); }
    std::sort(t.begin(), t.end()); TCORE_CHECK(cudaGetLastError()); return t[t.size() / 2];
}
int main()
{
    for (long long n : {100000000LL}) {
        const auto a = gen::generate(gen::matrix_class::power_law, n, 0x5b3e0000ull + n);
        std::vector<double> hx(a.cols); for (int i = 0; i < a.cols; ++i) hx[i] = 1.0 + 1e-3 * (i % 97);
        sb::device_array<double> x(hx), y(a.rows), yref(a.rows);
        double tb; std::vector<double> ref;
        { sb::device_csr da(a); sb::spmv base(da, x.ptr, yref.ptr, true, nullptr); tb = time_it([&] { base.run(nullptr); }); ref = yref.download(); }
        for (int p : {1, 2, 3, 4, 5, 6, 8}) {
            dasp_spmv_panels s(a, p);
            const double t8 = time_it([&] { s.run<tensor_core, f64_m8n8k4>(x.ptr, y.ptr); });
            std::vector<double> got = y.download(); double err = 0; for (int i = 0; i < a.rows; ++i) err = std::max(err, std::abs(got[i] - ref[i]) / (1 + std::abs(ref[i])));
            const double te = time_it([&] { s.run<spmv_essential, f64_m8n8k4>(x.ptr, y.ptr); });
            std::printf("power_law/%lld panels %d (%.1f MB of x): base %.4f tc %.4f (%.3f) cce %.4f (%.3f) err %.1e\n", n, p, 8.0 * a.cols / p / 1e6, tb, t8, tb / t8, te, tb / te, err);
            std::fflush(stdout);
        }
    }
}
