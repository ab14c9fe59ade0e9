// libs: CUDA::cublas
// tests/gpu/test_user_gemv.cu - a worked user kernel: y = A x in FP64 for a
// dense m x n matrix, written as a user would with the GEMV building block of
// tcore/patterns/gemv.cuh (gemv_accumulate, which loads through gemv_load_a
// and gemv_load_x, the loaders the launcher's kernel uses), beside the cuBLAS
// call it replaces (cublasDgemv).
//
// One warp per M-row tile of y (M = 8 for f64_m8n8k4, 16 for f64_m16n8k8):
// the warp walks the tile's columns K at a time with gemv_accumulate (parts
// of a tile outside m x n read as zero), then reads y as the header says:
// every column of D is the same, and the lanes with t = lane % 4 = 0 hold
// rows r0 + gemv_tile<Shape>::y_row(lane, i) in acc.x[0], and acc.x[2] for
// M = 16. Both backends (tensor_core, cuda_core), both shapes, row- and
// column-major A, Vec false (scalar loads) and true (16-byte loads: A and x
// from cudaMalloc are 256-byte aligned, lda is even, and r0, k0 are
// multiples of M and K, so even). A is stored with lda = the tightest
// leading dimension plus 1 or 2 (even), and the padding holds NaN, so a
// load outside the m x n matrix shows up as NaN in y. Sizes 1 x 1, 7 x 13,
// 1003 x 333, 4099 x 65 and 17 x 2051: m and n not multiples of M or K
// (tails on both sides of the tile). Entries of A and x are random in
// (-1, 1), never zero. y is poisoned with NaN before every run (the user
// kernel and cuBLAS).
//
// Tolerance (FP64, u = 2^-53, round to nearest). y_i = sum_j a_ij x_j is a
// dot product of n terms, S_i = sum_j |a_ij x_j|. In any summation order
// (the MMA's k slots, K-steps in sequence, the cuda_core shuffles and FMAs,
// cuBLAS's own order) each product is rounded at most once and each term
// passes through at most n - 1 rounded additions (an FMA rounds a product
// and an addition once together; the zeros of the tile tails add exactly),
// so with gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., 3.1)
//   |y^_i - y_i| <= gamma_n S_i      (assuming the FP64 MMA rounds each sum
//                                     or fused product-sum to nearest, as
//                                     IEEE FP64 FMAs and adds do).
// The reference y_i and S_i are accumulated in long double (v = 2^-64), with
// the same kind of bound gamma_n(v) S_i, and the device result is compared
// with it in long double, so the check is
//   |y^_i - ref_i| <= (gamma_n(u) + gamma_n(v)) S_i,
// the bound itself computed in long double (its own rounding, a few v
// relative, is far below the gamma_n(v) S_i allowance). For n = 2051 that is
// about 2051 u S_i; a lost term, a wrong row, a wrong column or a NaN fails it.
//
// Planted faults (TCORE_TEST_PLANT): nan_result (y[0] made NaN after each
// run), drop_term (y[0] lacks its product at column n / 2), unwritten (the
// user kernel not launched: y keeps its NaN poison), zero_checks.
#include "common/test_util.hpp"

#include <tcore/patterns/gemv.cuh>

#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

using namespace tcore;
using tcore::test::device_buffer;

namespace {

test::tally t;

constexpr int warps_per_block = 4;

/// One warp per M-row tile: y[r0 .. r0 + M) = A(r0.., :) x.
template <class Backend, class Shape, layout L, bool Vec>
__global__ void user_gemv(const double* A, long long lda, const double* x, double* y, long long m, long long n)
{
    using G = gemv_tile<Shape>;
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const long long r0 = warp * Shape::m;
    if (r0 >= m) return;  // the whole warp leaves together
    frag_c<Shape> acc;
    fill(acc, 0.0);
    for (long long k0 = 0; k0 < n; k0 += Shape::k) gemv_accumulate<Backend, Shape, L, Vec>(acc, A, lda, x, r0, k0, m, n);
    const int lane = lane_id();
    if ((lane & 3) != 0) return;
    static_for<Shape::m / 8>([&](auto q) {  // c0, and c2 for M = 16
        const long long row = r0 + G::y_row(lane, 2 * q);
        if (row < m) y[row] = acc.x[2 * q];
    });
}

/// A and x (logical A row-major, tight), the long double reference and bound.
struct problem {
    long long m, n;
    std::vector<double> a, x;
    std::vector<long double> ref, tol;
};

problem make_problem(long long m, long long n, test::rng& rng)
{
    problem p{m, n, std::vector<double>(static_cast<std::size_t>(m * n)), std::vector<double>(static_cast<std::size_t>(n)),
              {}, {}};
    for (double& v : p.a) v = rng.nonzero();
    for (double& v : p.x) v = rng.nonzero();
    const long double u = 0x1p-53L, v = 0x1p-64L, nn = static_cast<long double>(n);
    const long double bound = nn * u / (1 - nn * u) + nn * v / (1 - nn * v);
    for (long long i = 0; i < m; ++i) {
        long double s = 0, mag = 0;
        for (long long j = 0; j < n; ++j) {
            const long double prod = static_cast<long double>(p.a[i * n + j]) * p.x[j];  // exact in long double
            s += prod;
            mag += std::fabs(prod);
        }
        p.ref.push_back(s);
        p.tol.push_back(bound * mag);
    }
    return p;
}

/// A in layout L with leading dimension `lda` (tightest + 1 or 2, even); the padding is NaN.
struct stored_matrix {
    layout L;
    long long lda;
    std::vector<double> data;
};

stored_matrix store(const problem& p, layout L)
{
    const long long min_ld = L == layout::row_major ? p.n : p.m;
    const long long outer = L == layout::row_major ? p.m : p.n;
    stored_matrix s{L, (min_ld + 2) & ~1LL, {}};
    s.data.assign(static_cast<std::size_t>(outer * s.lda), std::numeric_limits<double>::quiet_NaN());
    for (long long i = 0; i < p.m; ++i)
        for (long long j = 0; j < p.n; ++j) {
            const long long at = L == layout::row_major ? i * s.lda + j : j * s.lda + i;
            s.data[static_cast<std::size_t>(at)] = p.a[i * p.n + j];
        }
    return s;
}

/// Every y_i within its bound; NaN fails. Applies the planted faults first.
void compare(const std::string& what, const problem& p, std::vector<double> y)
{
    if (test::planted("nan_result")) y[0] = std::numeric_limits<double>::quiet_NaN();
    if (test::planted("drop_term")) y[0] -= p.a[p.n / 2] * p.x[p.n / 2];
    long long bad = 0;
    double worst = 0;
    for (long long i = 0; i < p.m; ++i) {
        const long double err = std::fabs(static_cast<long double>(y[i]) - p.ref[i]);
        if (!(err <= p.tol[i]) && ++bad <= 3)
            std::printf("  %s %lld x %lld: y[%lld] = %.17g, want %.17Lg (bound %.3Lg)\n", what.c_str(), p.m, p.n, i,
                        y[i], p.ref[i], p.tol[i]);
        worst = test::worst_of(worst, static_cast<double>(err / p.tol[i]));
    }
    t.check(bad == 0, "%s %lld x %lld: %lld of %lld rows outside the bound", what.c_str(), p.m, p.n, bad, p.m);
    std::printf("  %-34s %5lld x %5lld: worst error %.3g of the bound\n", what.c_str(), p.m, p.n, worst);
}

/// The problem on the device: A in both layouts, x, y.
struct device_problem {
    stored_matrix row, col;
    device_buffer<double> a_row, a_col, x, y;
    explicit device_problem(const problem& p)
        : row(store(p, layout::row_major)), col(store(p, layout::col_major)), a_row(row.data.size()),
          a_col(col.data.size()), x(p.x.size()), y(static_cast<std::size_t>(p.m))
    {
        a_row.upload(row.data);
        a_col.upload(col.data);
        x.upload(p.x);
    }
};

template <class Backend, class Shape, layout L, bool Vec>
void run_user(const std::string& name, const problem& p, device_problem& d)
{
    const bool row = L == layout::row_major;
    const device_buffer<double>& a = row ? d.a_row : d.a_col;
    const long long lda = row ? d.row.lda : d.col.lda;
    const long long warps = ceil_div(p.m, static_cast<long long>(Shape::m));
    const unsigned grid = static_cast<unsigned>(ceil_div(warps, static_cast<long long>(warps_per_block)));
    d.y.poison();
    if (!test::planted("unwritten")) {
        user_gemv<Backend, Shape, L, Vec><<<grid, 32 * warps_per_block>>>(a.ptr, lda, d.x.ptr, d.y.ptr, p.m, p.n);
        TCORE_CHECK_LAUNCH();
    }
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(name + (row ? " row" : " col") + (Vec ? " vec" : ""), p, d.y.download());
}

template <class Backend, class Shape>
void run_shape(const std::string& name, const problem& p, device_problem& d)
{
    run_user<Backend, Shape, layout::row_major, false>(name, p, d);
    run_user<Backend, Shape, layout::row_major, true>(name, p, d);
    run_user<Backend, Shape, layout::col_major, false>(name, p, d);
    run_user<Backend, Shape, layout::col_major, true>(name, p, d);
}

void check_cublas(cublasStatus_t s, const char* what)
{
    if (s != CUBLAS_STATUS_SUCCESS) throw tcore::error(std::string(what) + " failed: status " + std::to_string(s));
}

/// cublasDgemv on the same storage: column-major as is, row-major as the
/// transpose of the n x m column-major matrix it also is.
void run_cublas(cublasHandle_t h, const problem& p, device_problem& d, layout L)
{
    const double one = 1.0, zero = 0.0;
    const int m = static_cast<int>(p.m), n = static_cast<int>(p.n);
    d.y.poison();
    if (L == layout::col_major)
        check_cublas(cublasDgemv(h, CUBLAS_OP_N, m, n, &one, d.a_col.ptr, static_cast<int>(d.col.lda), d.x.ptr, 1,
                                 &zero, d.y.ptr, 1),
                     "cublasDgemv (col-major)");
    else
        check_cublas(cublasDgemv(h, CUBLAS_OP_T, n, m, &one, d.a_row.ptr, static_cast<int>(d.row.lda), d.x.ptr, 1,
                                 &zero, d.y.ptr, 1),
                     "cublasDgemv (row-major)");
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(std::string("cuBLAS Dgemv") + (L == layout::row_major ? " row" : " col"), p, d.y.download());
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    test::rng rng(test::seed());
    cublasHandle_t h = nullptr;
    check_cublas(cublasCreate(&h), "cublasCreate");
    check_cublas(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    const long long sizes[][2] = {{1, 1}, {7, 13}, {1003, 333}, {4099, 65}, {17, 2051}};
    for (const auto& s : sizes) {
        const problem p = make_problem(s[0], s[1], rng);
        device_problem d(p);
        run_shape<tensor_core, f64_m8n8k4>("tensor_core m8n8k4", p, d);
        run_shape<tensor_core, f64_m16n8k8>("tensor_core m16n8k8", p, d);
        run_shape<cuda_core, f64_m8n8k4>("cuda_core m8n8k4", p, d);
        run_shape<cuda_core, f64_m16n8k8>("cuda_core m16n8k8", p, d);
        run_cublas(h, p, d, layout::row_major);
        run_cublas(h, p, d, layout::col_major);
    }
    cublasDestroy(h);
    return t.finish();
}
