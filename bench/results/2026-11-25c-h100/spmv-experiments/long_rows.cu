// Parameter sweep for the DASP SpMV (experiment driver, not part of tcore).
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

static char* flush_buf = nullptr;
static double time_it(const std::function<void()>& f, bool cold, int reps = 200)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 0; i < 20; ++i) f();
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

static sparse::csr keep_rows(const sparse::csr& a, int lo, int hi)  // rows with lo <= len < hi, others empty
{
    sparse::csr b; b.rows = a.rows; b.cols = a.cols; b.row_ptr.assign(1, 0);
    for (int r = 0; r < a.rows; ++r) {
        const int len = a.row_ptr[r + 1] - a.row_ptr[r];
        if (len >= lo && len < hi)
            for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) { b.col_idx.push_back(a.col_idx[p]); b.values.push_back(a.values[p]); }
        b.row_ptr.push_back(static_cast<int>(b.col_idx.size()));
    }
    return b;
}

static void sweep(const char* name, const sparse::csr& a, bool full)
{
    std::vector<double> hx(a.cols);
    for (int i = 0; i < a.cols; ++i) hx[i] = 1.0 + 1e-3 * (i % 97);
    sb::device_array<double> x(hx), y(a.rows), yref(a.rows);
    sb::device_csr da(a);
    sb::spmv base(da, x.ptr, yref.ptr, true, nullptr);
    for (int cold = 0; cold < 2; ++cold) {
        const double tb = time_it([&] { base.run(nullptr); }, cold);
        std::printf("%s %s nnz %lld base %.5f ms\n", name, cold ? "cold" : "hot", (long long)a.nnz(), tb);
    }
    std::vector<double> ref = yref.download();
    struct cfg { int long_min, long_piece, gpw, tpw; };
    std::vector<cfg> cfgs = {{256, 512, 0, 1}};
    if (full) {
        cfgs.push_back({256, 512, 0, 2});
        for (auto [lm, lp] : std::vector<std::pair<int,int>>{{128, 512}, {128, 256}, {64, 128}, {96, 128}, {128, 128}, {192, 256}})
            cfgs.push_back({lm, lp, 0, 1});
    }
    for (const cfg& c : cfgs) {
        sparse::dasp_options o; o.long_min = c.long_min; o.long_piece = c.long_piece;
        dasp_spmv s(a, o, nullptr, c.gpw);
        s.set_work_per_warp(c.gpw, c.tpw);
        for (int cold = 0; cold < 2; ++cold) {
            const double t1 = time_it([&] { s.run<tensor_core, f64_m16n8k16>(x.ptr, y.ptr); }, cold);
            std::vector<double> got = y.download();
            double err = 0; for (int i = 0; i < a.rows; ++i) err = std::max(err, std::abs(got[i] - ref[i]));
            const double t2 = time_it([&] { s.run<spmv_essential, f64_m8n8k4>(x.ptr, y.ptr); }, cold);
            std::printf("%s %s long_min %d piece %d gpw %d tpw %d: tc16 %.5f cce %.5f (err %.1e)\n", name,
                        cold ? "cold" : "hot", c.long_min, c.long_piece, s.groups_per_warp(), s.tiles_per_warp(), t1, t2, err);
        }
    }
}

int main(int argc, char** argv)
{
    TCORE_CHECK(cudaMalloc(&flush_buf, 256u << 20));
    for (auto [c, n, full] : std::vector<std::tuple<gen::matrix_class, long long, bool>>{
             {gen::matrix_class::power_law, 1000000, true}, {gen::matrix_class::banded, 1000000, false},
             {gen::matrix_class::fem3d, 1000000, false}, {gen::matrix_class::lattice4d, 1000000, false},
             {gen::matrix_class::dense_blocks, 1000000, false}, {gen::matrix_class::banded, 10000000, false},
             {gen::matrix_class::power_law, 10000000, true}, {gen::matrix_class::fem3d, 10000000, false}}) {
        const auto a = gen::generate(c, n, 0x5b3e0000ull + n);
        sweep((std::string(gen::class_name(c)) + "/" + std::to_string(n)).c_str(), a, full);
    }
    return 0;
}
