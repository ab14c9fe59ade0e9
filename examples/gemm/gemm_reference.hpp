// examples/gemm/gemm_reference.hpp - the FP64 CPU reference of C = A*B
// (row-major) for the gemm workload and its tests: every element, or only
// a sample of output elements for sizes where a full CPU GEMM is too slow.
//
// Each output is an FP64 sum of K products in k order (error at most
// gamma_K * S, gamma_K = K u / (1 - K u), u = 2^-53); optionally the
// magnitude sum S(i, j) = sum_k |A(i, k)| |B(k, j)| that error bounds are
// stated in. Inputs of any type readable as double (double, float,
// __half). Rows are split over hardware threads.
#pragma once

#include <tcore/infra/splitmix64.cuh>

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace tcore::examples::gemm {

inline double as_double(double v) { return v; }
inline double as_double(float v) { return static_cast<double>(v); }
inline double as_double(__half v) { return static_cast<double>(__half2float(v)); }

namespace impl {

/// Runs body(row_begin, row_end) over [0, rows) on up to 16 threads.
template <class Body>
void parallel_rows(int rows, Body body)
{
    const unsigned hw = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    const int parts = std::max(1, std::min(static_cast<int>(hw), rows / 8));
    if (parts <= 1) {
        body(0, rows);
        return;
    }
    std::vector<std::thread> pool;
    for (int p = 0; p < parts; ++p) {
        const int lo = static_cast<int>(static_cast<long long>(rows) * p / parts);
        const int hi = static_cast<int>(static_cast<long long>(rows) * (p + 1) / parts);
        pool.emplace_back([=] { body(lo, hi); });
    }
    for (auto& t : pool) t.join();
}

}  // namespace impl

/// C = A*B in FP64 for all M x N outputs (C: M x N, row-major, ldc = N).
/// If `S` is given it receives sum_k |A(i,k)| |B(k,j)| per output.
template <class TA, class TB>
void reference_gemm(int M, int N, int K, const TA* A, long long lda, const TB* B, long long ldb, double* C,
                    double* S = nullptr)
{
    // B converted once to FP64 (row-major K x N, stride N).
    std::vector<double> b(static_cast<std::size_t>(K) * N);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) b[static_cast<std::size_t>(k) * N + j] = as_double(B[k * ldb + j]);
    impl::parallel_rows(M, [&](int lo, int hi) {
        for (int i = lo; i < hi; ++i) {
            double* c = C + static_cast<std::size_t>(i) * N;
            std::fill(c, c + N, 0.0);
            double* s = S ? S + static_cast<std::size_t>(i) * N : nullptr;
            if (s) std::fill(s, s + N, 0.0);
            for (int k = 0; k < K; ++k) {
                const double a = as_double(A[i * lda + k]);
                const double* bk = b.data() + static_cast<std::size_t>(k) * N;
                for (int j = 0; j < N; ++j) c[j] += a * bk[j];
                if (s) {
                    const double aa = std::fabs(a);
                    for (int j = 0; j < N; ++j) s[j] += aa * std::fabs(bk[j]);
                }
            }
        }
    });
}

/// A sample of output positions: every listed row crossed with every
/// listed column (row-major order: rows.size() x cols.size() elements).
struct sample_grid {
    std::vector<int> rows, cols;
    std::size_t size() const { return rows.size() * cols.size(); }
};

/// `nr` distinct random rows and `nc` distinct random columns (fewer if the
/// matrix is smaller), always including the first and last row and column
/// so that the block edges are checked.
inline sample_grid pick_samples(int M, int N, int nr, int nc, std::uint64_t seed)
{
    auto pick = [&seed](int n, int want) {
        std::vector<int> all(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
        if (want >= n) return all;
        std::vector<int> out{0, n - 1};
        std::vector<char> used(static_cast<std::size_t>(n), 0);
        used[0] = used[static_cast<std::size_t>(n - 1)] = 1;
        while (static_cast<int>(out.size()) < want) {
            const int v = static_cast<int>(tcore::splitmix64_mix(seed += tcore::splitmix64_gamma) %
                                           static_cast<std::uint64_t>(n));
            if (!used[static_cast<std::size_t>(v)]) {
                used[static_cast<std::size_t>(v)] = 1;
                out.push_back(v);
            }
        }
        std::sort(out.begin(), out.end());
        return out;
    };
    return {pick(M, nr), pick(N, nc)};
}

/// The FP64 reference for the outputs of `g` only (row-major over g), and
/// optionally their magnitude sums. Each sampled column of B is gathered once.
template <class TA, class TB>
void reference_gemm_sampled(int K, const TA* A, long long lda, const TB* B, long long ldb, const sample_grid& g,
                            double* C, double* S = nullptr)
{
    const std::size_t nr = g.rows.size(), nc = g.cols.size();
    std::vector<double> bcols(nc * static_cast<std::size_t>(K));  // column-major gather
    for (std::size_t c = 0; c < nc; ++c)
        for (int k = 0; k < K; ++k) bcols[c * K + k] = as_double(B[k * ldb + g.cols[c]]);
    impl::parallel_rows(static_cast<int>(nr), [&](int lo, int hi) {
        std::vector<double> a(static_cast<std::size_t>(K));
        for (int r = lo; r < hi; ++r) {
            const int i = g.rows[static_cast<std::size_t>(r)];
            for (int k = 0; k < K; ++k) a[static_cast<std::size_t>(k)] = as_double(A[i * lda + k]);
            for (std::size_t c = 0; c < nc; ++c) {
                const double* bc = bcols.data() + c * K;
                double sum = 0, mag = 0;
                for (int k = 0; k < K; ++k) {
                    sum += a[static_cast<std::size_t>(k)] * bc[k];
                    mag += std::fabs(a[static_cast<std::size_t>(k)]) * std::fabs(bc[k]);
                }
                C[r * nc + c] = sum;
                if (S) S[r * nc + c] = mag;
            }
        }
    });
}

/// The elements of a row-major M x N result (leading dimension ld) at the
/// positions of `g`, as doubles, row-major over g.
template <class T>
std::vector<double> gather_samples(const T* C, long long ld, const sample_grid& g)
{
    std::vector<double> out;
    out.reserve(g.size());
    for (const int i : g.rows)
        for (const int j : g.cols) out.push_back(as_double(C[i * ld + j]));
    return out;
}

}  // namespace tcore::examples::gemm
