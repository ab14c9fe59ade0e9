// examples/gemm/gemm_cublas.cuh - cuBLAS as the `base` of the gemm workload,
// with the same row-major C = A*B (alpha = 1, beta = 0) interface as the
// tcore kernels.
//
// cuBLAS is column-major. A row-major M x N matrix with leading dimension
// ld is the column-major N x M matrix of its transpose, so C = A*B is
// computed as C^T = B^T * A^T: gemm(m = N, n = M, k = K, "A" = B (ldb),
// "B" = A (lda), C (ldc)), no transposition flags.
//
//   cublas_dgemm        FP64 (cublasDgemm)
//   cublas_sgemm        FP32 on CUDA cores (cublasSgemm, CUBLAS_DEFAULT_MATH)
//   cublas_sgemm_tf32   FP32 data, TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32)
//   cublas_hgemm        FP16 data, FP32 accumulation and C (cublasGemmEx)
//
// The handle is made once (cublas_handle) outside any timed loop; each call
// only sets the stream. K = 0 zeroes C without calling cuBLAS.
#pragma once

#include "gemm_common.cuh"

#include <tcore/check.cuh>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>
#include <string>

namespace tcore::examples::gemm {

/// Throws tcore::error naming the call and cuBLAS's status string.
inline void cublas_check(cublasStatus_t status, const char* expr, const char* file, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS) return;
    throw tcore::error(std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                       cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")");
}

#define TCORE_CUBLAS_CHECK(call) ::tcore::examples::gemm::cublas_check((call), #call, __FILE__, __LINE__)

/// An owned cuBLAS handle.
class cublas_handle {
public:
    cublas_handle() { TCORE_CUBLAS_CHECK(cublasCreate(&h_)); }
    ~cublas_handle() { cublasDestroy(h_); }
    cublas_handle(const cublas_handle&) = delete;
    cublas_handle& operator=(const cublas_handle&) = delete;
    cublasHandle_t get() const { return h_; }

private:
    cublasHandle_t h_ = nullptr;
};

namespace impl {

/// Validates like the tcore kernels plus cuBLAS's int leading dimensions;
/// returns false if there is nothing to compute (C empty, or zeroed for K = 0).
inline bool cublas_prologue(const char* who, cublasHandle_t h, int M, int N, int K, const void* A, long long lda,
                            const void* B, long long ldb, void* C, long long ldc, std::size_t ab_bytes,
                            std::size_t c_bytes, cudaStream_t stream)
{
    tcore::require(h != nullptr, who, "the cuBLAS handle is null");
    check_args(who, M, N, K, A, lda, B, ldb, C, ldc, ab_bytes, c_bytes);
    tcore::require(lda <= INT_MAX && ldb <= INT_MAX && ldc <= INT_MAX, who, "leading dimensions must fit in int");
    if (M == 0 || N == 0) return false;
    if (K == 0) {
        TCORE_CHECK(cudaMemset2DAsync(C, static_cast<std::size_t>(ldc) * c_bytes, 0,
                                      static_cast<std::size_t>(N) * c_bytes, static_cast<std::size_t>(M), stream));
        return false;
    }
    TCORE_CUBLAS_CHECK(cublasSetStream(h, stream));
    return true;
}

}  // namespace impl

/// C = A*B, FP64, row-major (cublasDgemm on the transposes).
inline void cublas_dgemm(cublasHandle_t h, int M, int N, int K, const double* A, long long lda, const double* B,
                         long long ldb, double* C, long long ldc, cudaStream_t stream = nullptr)
{
    if (!impl::cublas_prologue("cublas_dgemm", h, M, N, K, A, lda, B, ldb, C, ldc, sizeof(double),
                                 sizeof(double), stream))
        return;
    const double one = 1.0, zero = 0.0;
    TCORE_CUBLAS_CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, static_cast<int>(ldb), A,
                                   static_cast<int>(lda), &zero, C, static_cast<int>(ldc)));
}

/// C = A*B, FP32 on CUDA cores (default math mode: no TF32).
inline void cublas_sgemm(cublasHandle_t h, int M, int N, int K, const float* A, long long lda, const float* B,
                         long long ldb, float* C, long long ldc, cudaStream_t stream = nullptr)
{
    if (!impl::cublas_prologue("cublas_sgemm", h, M, N, K, A, lda, B, ldb, C, ldc, sizeof(float), sizeof(float),
                                 stream))
        return;
    TCORE_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    const float one = 1.0f, zero = 0.0f;
    TCORE_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, static_cast<int>(ldb), A,
                                   static_cast<int>(lda), &zero, C, static_cast<int>(ldc)));
}

/// C = A*B, FP32 data on TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32).
inline void cublas_sgemm_tf32(cublasHandle_t h, int M, int N, int K, const float* A, long long lda,
                              const float* B, long long ldb, float* C, long long ldc, cudaStream_t stream = nullptr)
{
    if (!impl::cublas_prologue("cublas_sgemm_tf32", h, M, N, K, A, lda, B, ldb, C, ldc, sizeof(float),
                                 sizeof(float), stream))
        return;
    const float one = 1.0f, zero = 0.0f;
    TCORE_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_32F, static_cast<int>(ldb),
                                    A, CUDA_R_32F, static_cast<int>(lda), &zero, C, CUDA_R_32F,
                                    static_cast<int>(ldc), CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

/// C (FP32) = A*B with FP16 A and B, FP32 accumulation (cublasGemmEx).
inline void cublas_hgemm(cublasHandle_t h, int M, int N, int K, const __half* A, long long lda, const __half* B,
                         long long ldb, float* C, long long ldc, cudaStream_t stream = nullptr)
{
    if (!impl::cublas_prologue("cublas_hgemm", h, M, N, K, A, lda, B, ldb, C, ldc, sizeof(__half), sizeof(float),
                                 stream))
        return;
    const float one = 1.0f, zero = 0.0f;
    TCORE_CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16F, static_cast<int>(ldb),
                                    A, CUDA_R_16F, static_cast<int>(lda), &zero, C, CUDA_R_32F,
                                    static_cast<int>(ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace tcore::examples::gemm
