// examples/gemv/gemv_cce.cuh - the `cce` opponent of the GEMV workload: y =
// A x (FP64) as plain dot products on CUDA cores, only the multiply-adds the
// product needs (no MMA-shaped work). Row-major: a group of `lpr` lanes per
// row (enough for one 16-byte load each across n), strided shares of the
// dot product and a shuffle sum. Column-major: a warp owns 64 rows (two per
// lane), `ksplit` warps of a block split the columns (tcore::plan_gemv over
// 64-row tiles), their partial sums added in a fixed order in shared memory
// (deterministic).
//
// Provides (namespace tcore::examples::gemv)
//   gemv_cce(L, m, n, A, lda, x, y, stream): y = A x, A m x n in layout L
//       with leading dimension lda.
// Preconditions: those of tcore::gemv, checked by tcore::gemv_check (device
// pointers; y must not overlap x or A's storage; tcore::error otherwise).
// Any m, n >= 0 (n = 0 gives y = 0). 16-byte loads where A (and, row-major,
// x) are 16-byte aligned with even lda (and, row-major, even n).
#pragma once

#include <tcore/patterns/device/gemv.cuh>

#include <cuda_runtime.h>

#include <cstddef>

namespace tcore::examples::gemv {

namespace impl {

/// cce row-major: `lpr` lanes per row, each a strided share of the dot product.
template <bool Vec>
__global__ void __launch_bounds__(256)
    gemv_cce_row_kernel(const double* A, long long lda, const double* x, double* y, long long m, long long n, int lpr)
{
    const int lane = threadIdx.x & 31, sub = lane & (lpr - 1);
    const long long gw = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const long long row = gw * (32 / lpr) + lane / lpr;
    double s0 = 0, s1 = 0;
    if (row < m) {
        const double* a = A + row * lda;
        if constexpr (Vec) {  // n even, A and x 16-byte aligned, lda even
#pragma unroll 4
            for (long long k = 2 * sub; k < n; k += 2 * lpr) {
                const double2 v = __ldg(reinterpret_cast<const double2*>(a + k));
                const double2 w = __ldg(reinterpret_cast<const double2*>(x + k));
                s0 = fma(v.x, w.x, s0);
                s1 = fma(v.y, w.y, s1);
            }
        } else {
#pragma unroll 4
            for (long long k = sub; k < n; k += lpr) s0 = fma(__ldg(a + k), __ldg(x + k), s0);
        }
    }
    double s = s0 + s1;
    for (int o = 1; o < lpr; o <<= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (sub == 0 && row < m) y[row] = s;
}

/// cce col-major: a warp owns 64 rows (two per lane), `ksplit` warps split the columns.
template <bool Vec>
__global__ void __launch_bounds__(gemv_max_threads, 1)
    gemv_cce_col_kernel(const double* A, long long lda, const double* x, double* y, long long m, long long n,
                        int ksplit)
{
    extern __shared__ double part[];  // [warps][64]
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int rows_per_block = (blockDim.x >> 5) / ksplit;
    const int kpart = warp % ksplit;
    const long long tile0 = static_cast<long long>(blockIdx.x) * rows_per_block;
    const long long r0 = (tile0 + warp / ksplit) * 64;
    double s0 = 0, s1 = 0;
    if (r0 < m) {
        if (Vec && r0 + 64 <= m) {  // lda even, A 16-byte aligned
#pragma unroll 4
            for (long long k = kpart; k < n; k += ksplit) {
                const double2 v = __ldg(reinterpret_cast<const double2*>(A + k * lda + r0 + 2 * lane));
                const double w = __ldg(x + k);
                s0 = fma(v.x, w, s0);
                s1 = fma(v.y, w, s1);
            }
        } else {
            const long long ra = r0 + 2 * lane, rb = ra + 1;
            for (long long k = kpart; k < n; k += ksplit) {
                const double w = __ldg(x + k);
                if (ra < m) s0 = fma(__ldg(A + k * lda + ra), w, s0);
                if (rb < m) s1 = fma(__ldg(A + k * lda + rb), w, s1);
            }
        }
    }
    part[warp * 64 + 2 * lane] = s0;
    part[warp * 64 + 2 * lane + 1] = s1;
    __syncthreads();
    for (int e = threadIdx.x; e < rows_per_block * 64; e += blockDim.x) {
        const int rt = e / 64, r = e % 64;
        const long long row = (tile0 + rt) * 64 + r;
        if (row >= m) continue;
        double s = part[(rt * ksplit) * 64 + r];
        for (int p = 1; p < ksplit; ++p) s += part[(rt * ksplit + p) * 64 + r];
        y[row] = s;
    }
}

}  // namespace impl

/// cce: y = A x as plain dot products on CUDA cores.
inline void gemv_cce(layout L, long long m, long long n, const double* A, long long lda, const double* x, double* y,
                     cudaStream_t stream = 0)
{
    const char* where = "tcore::examples::gemv::gemv_cce";
    gemv_check(where, L, m, n, A, lda, x, y);
    if (m == 0) return;
    if (n == 0) {
        TCORE_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(m) * sizeof(double), stream));
        return;
    }
    if (L == layout::row_major) {
        const bool vec = tcore::aligned(A, 16) && tcore::aligned(x, 16) && lda % 2 == 0 && n % 2 == 0;
        int lpr = 1;  // lanes per row: enough for one 16-byte (or 8-byte) load each across n
        while (lpr < 32 && lpr * (vec ? 2 : 1) < n) lpr *= 2;
        const long long warps = tcore::ceil_div(m, 32 / lpr);
        const long long blocks = tcore::ceil_div(warps, 8);
        if (vec) impl::gemv_cce_row_kernel<true><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(A, lda, x, y, m, n, lpr);
        else impl::gemv_cce_row_kernel<false><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(A, lda, x, y, m, n, lpr);
    } else {
        const bool vec = tcore::aligned(A, 16) && lda % 2 == 0;
        const gemv_plan p = plan_gemv(tcore::ceil_div(m, 64), n);
        const std::size_t smem = static_cast<std::size_t>(p.warps) * 64 * sizeof(double);
        if (vec)
            impl::gemv_cce_col_kernel<true><<<static_cast<unsigned>(p.blocks), 32 * p.warps, smem, stream>>>(
                A, lda, x, y, m, n, p.ksplit);
        else
            impl::gemv_cce_col_kernel<false><<<static_cast<unsigned>(p.blocks), 32 * p.warps, smem, stream>>>(
                A, lda, x, y, m, n, p.ksplit);
    }
    TCORE_CHECK_LAUNCH();
}

}  // namespace tcore::examples::gemv
