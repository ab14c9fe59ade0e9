// libs: CUDA::cublas
// tests/gpu/test_user_reuse_chain.cu - a worked user kernel: an accumulator-
// reuse chain Y_b = (X_b W1) W2 for a batch of 16 x 16 tiles X_b, written as a
// user would with tcore's fragments, beside the two cuBLAS batched GEMMs it
// replaces.
//
// One warp per tile. The first product leaves P = X W1 (16 x 16) in two
// m16n8k16 accumulators; the second product takes P as its A operand without
// a trip through memory, by either recipe of frag/reuse.cuh:
//   relabel: reuse_a(d0, d1) relabels k in place; the B of W2 must follow the
//            same relabelling: load_b_reused (both carry relabelled_k<0>);
//   shuffle: reuse_a_shuffle moves P into the standard A layout (two shuffles
//            per element); W2 loads with the ordinary load_b.
// Both backends (tensor_core, cuda_core). Matrices are column-major, ld 16.
//
// Tolerance (FP64, u = 2^-53). Each product is a sum of K = 16 terms, so
// |P^ - P| <= g S1 with g = 16u / (1 - 16u) and S1 = |X| |W1| (elementwise
// absolute values, matrix products); then
// |Y^ - Y| <= g |P^| |W2| + |P^ - P| |W2| <= g (2 + g) |X| |W1| |W2|,
// whatever order the MMA sums in. The check uses 33u |X| |W1| |W2| (> 2g(1+g))
// per element, computed on the host in long double; cuBLAS's results meet
// the same bound. Inputs are random and never zero; outputs are poisoned with
// NaN before every run; batches 1, 37 and 1001 are not multiples of the 4
// warps of a block.
#include "common/test_util.hpp"

#include <tcore/frag.cuh>

#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <vector>

using namespace tcore;

namespace {

using S = f64_m16n8k16;
constexpr int tile = 16 * 16;  // doubles per X or P tile
constexpr int out_tile = 16 * 8;
constexpr int warps_per_block = 4;

template <class Backend, bool Relabel>
__global__ void reuse_chain(const double* x, const double* w1, const double* w2, double* y, int batch)
{
    const int b = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    if (b >= batch) return;  // whole warps leave together
    frag_a<S> x_frag;
    load_a<layout::col_major>(x_frag, x + static_cast<long long>(b) * tile, 16);
    frag_c<S> p[2];
    for (int q = 0; q < 2; ++q) {  // P columns 8q .. 8q + 7
        frag_b<S> w1_frag;
        load_b<layout::col_major>(w1_frag, w1 + 8 * 16 * q, 16);
        fill(p[q], 0.0);
        mma<Backend>(p[q], x_frag, w1_frag, p[q]);
    }
    frag_c<S> y_frag;
    fill(y_frag, 0.0);
    if constexpr (Relabel) {
        const frag_a<S, relabelled_k<0>> p_as_a = reuse_a(p[0], p[1]);
        frag_b<S, relabelled_k<0>> w2_frag;
        load_b_reused<layout::col_major>(w2_frag, w2, 16);
        mma<Backend>(y_frag, p_as_a, w2_frag, y_frag);
    } else {
        const frag_a<S> p_as_a = reuse_a_shuffle<S>(p);
        frag_b<S> w2_frag;
        load_b<layout::col_major>(w2_frag, w2, 16);
        mma<Backend>(y_frag, p_as_a, w2_frag, y_frag);
    }
    store_c<layout::col_major>(y + static_cast<long long>(b) * out_tile, 16, y_frag);
}

void check_cublas(cublasStatus_t s, const char* what)
{
    if (s != CUBLAS_STATUS_SUCCESS) throw tcore::error(std::string(what) + " failed: status " + std::to_string(s));
}

struct problem {
    int batch;
    std::vector<double> x, w1, w2;
    std::vector<double> y_ref, y_tol;  // reference and per-element bound
};

problem make_problem(int batch, test::rng& rng)
{
    problem p{batch, std::vector<double>(static_cast<std::size_t>(batch) * tile), std::vector<double>(tile),
              std::vector<double>(out_tile), {}, {}};
    for (double& v : p.x) v = rng.nonzero();
    for (double& v : p.w1) v = rng.nonzero();
    for (double& v : p.w2) v = rng.nonzero();
    p.y_ref.resize(static_cast<std::size_t>(batch) * out_tile);
    p.y_tol.resize(p.y_ref.size());
    const long double u = 0x1p-53L;
    for (int b = 0; b < batch; ++b) {
        const double* x = p.x.data() + static_cast<std::size_t>(b) * tile;
        long double pm[16][16], pa[16][16];  // P and |X| |W1|, [row][col]
        for (int r = 0; r < 16; ++r)
            for (int c = 0; c < 16; ++c) {
                long double s = 0, a = 0;
                for (int k = 0; k < 16; ++k) {
                    s += static_cast<long double>(x[r + 16 * k]) * p.w1[k + 16 * c];
                    a += std::fabs(static_cast<long double>(x[r + 16 * k]) * p.w1[k + 16 * c]);
                }
                pm[r][c] = s, pa[r][c] = a;
            }
        for (int r = 0; r < 16; ++r)
            for (int c = 0; c < 8; ++c) {
                long double s = 0, a = 0;
                for (int k = 0; k < 16; ++k) {
                    s += pm[r][k] * p.w2[k + 16 * c];
                    a += pa[r][k] * std::fabs(static_cast<long double>(p.w2[k + 16 * c]));
                }
                const std::size_t i = static_cast<std::size_t>(b) * out_tile + r + 16 * c;
                p.y_ref[i] = static_cast<double>(s);
                p.y_tol[i] = static_cast<double>(33 * u * a);
            }
    }
    return p;
}

void compare(test::tally& t, const problem& p, const std::vector<double>& y, const char* what)
{
    int bad = 0;
    double worst = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        const double err = std::fabs(y[i] - p.y_ref[i]);
        if (!(err <= p.y_tol[i])) {
            if (++bad <= 3)
                std::printf("  %s batch %d: y[%zu] = %.17g, want %.17g (bound %.3g)\n", what, p.batch, i, y[i],
                            p.y_ref[i], p.y_tol[i]);
        }
        if (p.y_tol[i] > 0) worst = std::fmax(worst, err / p.y_tol[i]);
    }
    t.check(bad == 0, "%s batch %d: %d of %zu outside the bound", what, p.batch, bad, y.size());
    std::printf("  %-22s batch %5d: worst error %.3f of the bound\n", what, p.batch, worst);
}

template <class Backend, bool Relabel>
void run_chain(test::tally& t, const problem& p, const char* what)
{
    test::device_buffer<double> x(p.x.size()), w1(p.w1.size()), w2(p.w2.size()), y(p.y_ref.size());
    x.upload(p.x), w1.upload(p.w1), w2.upload(p.w2);
    y.poison();
    const int blocks = (p.batch + warps_per_block - 1) / warps_per_block;
    reuse_chain<Backend, Relabel><<<blocks, 32 * warps_per_block>>>(x.ptr, w1.ptr, w2.ptr, y.ptr, p.batch);
    TCORE_CHECK_LAUNCH();
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, y.download(), what);
}

void run_cublas(test::tally& t, cublasHandle_t h, const problem& p)
{
    test::device_buffer<double> x(p.x.size()), w1(p.w1.size()), w2(p.w2.size()),
        pm(static_cast<std::size_t>(p.batch) * tile), y(p.y_ref.size());
    x.upload(p.x), w1.upload(p.w1), w2.upload(p.w2);
    pm.poison(), y.poison();
    const double one = 1.0, zero = 0.0;
    check_cublas(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, x.ptr, 16, tile, w1.ptr, 16,
                                           0, &zero, pm.ptr, 16, tile, p.batch),
                 "cublasDgemmStridedBatched (X W1)");
    check_cublas(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 16, &one, pm.ptr, 16, tile, w2.ptr, 16,
                                           0, &zero, y.ptr, 16, out_tile, p.batch),
                 "cublasDgemmStridedBatched (P W2)");
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, y.download(), "cuBLAS (two GEMMs)");
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    test::tally t;
    test::rng rng(test::seed());
    cublasHandle_t h = nullptr;
    check_cublas(cublasCreate(&h), "cublasCreate");
    // cuBLAS may use FP64 tensor cores; pedantic math keeps it to FP64 arithmetic.
    check_cublas(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    for (const int batch : {1, 37, 1001}) {
        const problem p = make_problem(batch, rng);
        run_chain<tensor_core, true>(t, p, "tensor_core relabel");
        run_chain<tensor_core, false>(t, p, "tensor_core shuffle");
        run_chain<cuda_core, true>(t, p, "cuda_core relabel");
        run_chain<cuda_core, false>(t, p, "cuda_core shuffle");
        run_cublas(t, h, p);
    }
    cublasDestroy(h);
    return t.finish();
}
