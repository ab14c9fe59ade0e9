// examples/gemm/gemm_simple.cuh - the two reference points of the tensor-core
// GEMM tutorial's comparison, FP32 data, C = A*B row-major (beta = 0):
//
//   gemm_tf32_tutorial  `tc-tf32-tutorial`: TF32 m16n8k8 fragments, block
//                       128x64x32, 8 warps of 32x32 (4 x 2), the tile staged
//                       in shared memory with plain loads, two barriers per
//                       K slice, fragments read with tcore::load_a/load_b.
//                       No cp.async, no pipelining, no ldmatrix: the
//                       straightforward warp-tiled tensor-core GEMM.
//   gemm_f32_tiled      `cce-tiled`: a shared-memory tiled CUDA-core SGEMM
//                       (the "essential" CUDA-core GEMM, FP32 FMAs only):
//                       block 128x128x8, 256 threads of 8x8 outputs, A
//                       staged transposed, double-buffered shared memory
//                       with the next slice prefetched into registers.
//
// Both take any M, N, K (zero-filled edges, guarded stores).
#pragma once

#include "gemm_common.cuh"

#include <tcore/infra/launch.cuh>
#include <tcore/tcore.cuh>

#include <cuda_runtime.h>

namespace tcore::examples::gemm {

/// Tutorial TF32 GEMM kernel (see the header comment).
template <int Unused = 0>
__global__ void __launch_bounds__(256) tf32_tutorial_kernel(int M, int N, int K, const float* __restrict__ A,
                                                            long long lda, const float* __restrict__ B,
                                                            long long ldb, float* __restrict__ C, long long ldc)
{
    using S = tf32_m16n8k8;
    constexpr int BM = 128, BN = 64, BK = 32, WM = 32, WN = 32;
    constexpr int LDA = BK + 4, LDB = BN + 8;  // conflict-free fragment reads (4g+t, 8t+g)
    constexpr int MI = WM / S::m, NI = WN / S::n;
    __shared__ float sa[BM * LDA];
    __shared__ float sb[BK * LDB];

    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    int tm = 0, tn = 0;
    tile_of(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tid = static_cast<int>(threadIdx.x), warp = tid >> 5;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);

    frag_c<S> acc[MI][NI];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) fill(acc[mi][ni], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += 256) {
            const int r = e / BK, c = e % BK, gr = m0 + r, gk = k0 + c;
            sa[r * LDA + c] = gr < M && gk < K ? A[gr * lda + gk] : 0.0f;
        }
        for (int e = tid; e < BK * BN; e += 256) {
            const int r = e / BN, c = e % BN, gk = k0 + r, gn = n0 + c;
            sb[r * LDB + c] = gk < K && gn < N ? B[gk * ldb + gn] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += S::k) {
            frag_a<S> af[MI];
            frag_b<S> bf[NI];
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                load_a<layout::row_major>(af[mi], sa + (wm * WM + mi * S::m) * LDA + kk, LDA);
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
                load_b<layout::row_major>(bf[ni], sb + kk * LDB + wn * WN + ni * S::n, LDB);
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni) mma<tensor_core>(acc[mi][ni], af[mi], bf[ni], acc[mi][ni]);
        }
        __syncthreads();
    }

    const int lane = tid & 31;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int i = 0; i < S::c_count; ++i) {
                const coord rc = S::c_coord(lane, i);
                const int r = m0 + wm * WM + mi * S::m + rc.row, c = n0 + wn * WN + ni * S::n + rc.col;
                if (r < M && c < N) C[r * ldc + c] = acc[mi][ni].x[i];
            }
}

/// Tiled CUDA-core FP32 GEMM kernel (see the header comment). Vec: A, B
/// rows start 16-byte aligned and K, N are multiples of 4 (float4 loads).
template <bool Vec>
__global__ void __launch_bounds__(256) f32_tiled_kernel(int M, int N, int K, const float* __restrict__ A,
                                                        long long lda, const float* __restrict__ B, long long ldb,
                                                        float* __restrict__ C, long long ldc, bool vec_c)
{
    constexpr int BM = 128, BN = 128, BK = 8, PAD = 4;
    __shared__ __align__(16) float sa[2][BK][BM + PAD];  // A transposed: sa[k][m]
    __shared__ __align__(16) float sb[2][BK][BN + PAD];

    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    int tm = 0, tn = 0;
    tile_of(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int tid = static_cast<int>(threadIdx.x);
    const int tx = tid % 16, ty = tid / 16;  // outputs: rows ty*4 + {0..3, 64..67}, cols tx*4 + {0..3, 64..67}

    // Copy assignment: A row tid/2, k (tid%2)*4 .. +3; B k row tid/32, n (tid%32)*4 .. +3.
    const int a_r = tid / 2, a_k = (tid % 2) * 4, b_k = tid / 32, b_n = (tid % 32) * 4;
    float ra[4], rb[4];
    auto fetch = [&](int k0) {
        const int gr = m0 + a_r, gk = k0 + a_k;
        if (Vec && gr < M && gk < K) {
            const float4 v = *reinterpret_cast<const float4*>(A + gr * lda + gk);
            ra[0] = v.x, ra[1] = v.y, ra[2] = v.z, ra[3] = v.w;
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) ra[j] = gr < M && gk + j < K ? A[gr * lda + gk + j] : 0.0f;
        }
        const int bk = k0 + b_k, gn = n0 + b_n;
        if (Vec && bk < K && gn < N) {
            const float4 v = *reinterpret_cast<const float4*>(B + bk * ldb + gn);
            rb[0] = v.x, rb[1] = v.y, rb[2] = v.z, rb[3] = v.w;
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) rb[j] = bk < K && gn + j < N ? B[bk * ldb + gn + j] : 0.0f;
        }
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int j = 0; j < 4; ++j) sa[buf][a_k + j][a_r] = ra[j];
        *reinterpret_cast<float4*>(&sb[buf][b_k][b_n]) = make_float4(rb[0], rb[1], rb[2], rb[3]);
    };

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    const int k_tiles = (K + BK - 1) / BK;
    if (k_tiles > 0) {
        fetch(0);
        stash(0);
    }
    __syncthreads();
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int buf = kt & 1;
        if (kt + 1 < k_tiles) fetch((kt + 1) * BK);  // in flight during the FMAs
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&sa[buf][k][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&sa[buf][k][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&sb[buf][k][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&sb[buf][k][64 + tx * 4]);
            const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (kt + 1 < k_tiles) stash(buf ^ 1);  // buf ^ 1 was last read before the previous barrier
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int r = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        if (r >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int c = n0 + h * 64 + tx * 4;
            float* p = C + r * ldc + c;
            if (vec_c && c + 3 < N) {
                *reinterpret_cast<float4*>(p) =
                    make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (c + j < N) p[j] = acc[i][4 * h + j];
            }
        }
    }
}

/// C = A*B, FP32 data, tutorial-style TF32 tensor-core kernel.
inline void gemm_tf32_tutorial(int M, int N, int K, const float* A, long long lda, const float* B, long long ldb,
                               float* C, long long ldc, cudaStream_t stream = nullptr)
{
    const char* who = "gemm_tf32_tutorial";
    impl::check_args(who, M, N, K, A, lda, B, ldb, C, ldc, sizeof(float), sizeof(float));
    if (M == 0 || N == 0) return;
    const int grid = impl::tile_count(who, M, N, 128, 64);
    tf32_tutorial_kernel<><<<grid, 256, 0, stream>>>(M, N, K, A, lda, B, ldb, C, ldc);
    TCORE_CHECK_LAUNCH();
}

/// C = A*B in FP32 on CUDA cores (shared-memory tiled SGEMM).
inline void gemm_f32_tiled(int M, int N, int K, const float* A, long long lda, const float* B, long long ldb,
                           float* C, long long ldc, cudaStream_t stream = nullptr)
{
    const char* who = "gemm_f32_tiled";
    impl::check_args(who, M, N, K, A, lda, B, ldb, C, ldc, sizeof(float), sizeof(float));
    if (M == 0 || N == 0) return;
    const int grid = impl::tile_count(who, M, N, 128, 128);
    const bool vec = tcore::aligned(A, 16) && tcore::aligned(B, 16) && lda % 4 == 0 && ldb % 4 == 0 &&
                     K % 4 == 0 && N % 4 == 0;
    const bool vec_c = tcore::aligned(C, 16) && ldc % 4 == 0;
    if (vec) f32_tiled_kernel<true><<<grid, 256, 0, stream>>>(M, N, K, A, lda, B, ldb, C, ldc, vec_c);
    else f32_tiled_kernel<false><<<grid, 256, 0, stream>>>(M, N, K, A, lda, B, ldb, C, ldc, vec_c);
    TCORE_CHECK_LAUNCH();
}

}  // namespace tcore::examples::gemm
