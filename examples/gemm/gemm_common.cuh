// examples/gemm/gemm_common.cuh - what every GEMM launcher of the gemm
// workload shares: argument validation, the block-to-tile order, and the
// per-device preparation of kernels that use more than 48 KiB of shared
// memory.
//
// All GEMMs here compute C = A*B with row-major A (M x K, leading dimension
// lda >= K), B (K x N, ldb >= N) and C (M x N, ldc >= N): alpha = 1 and
// beta = 0, i.e. C is overwritten, never read. M, N or K = 0 is valid
// (K = 0 writes zeros). C must not overlap A or B.
#pragma once

#include <tcore/check.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tcore::examples::gemm {

namespace impl {

inline bool aligned(const void* p, std::size_t bytes)
{
    return (reinterpret_cast<std::uintptr_t>(p) % bytes) == 0;
}

/// Throws tcore::error("<who>: ...") for negative sizes, leading dimensions
/// that are too small, null or misaligned pointers where data is needed.
inline void check_args(const char* who, long long M, long long N, long long K, const void* A, long long lda,
                       const void* B, long long ldb, const void* C, long long ldc, std::size_t ab_bytes,
                       std::size_t c_bytes)
{
    tcore::require(M >= 0 && N >= 0 && K >= 0, who,
                   "sizes must be >= 0 (got M=" + std::to_string(M) + ", N=" + std::to_string(N) +
                       ", K=" + std::to_string(K) + ")");
    tcore::require(lda >= std::max(1LL, K), who, "lda must be >= max(1, K) (got lda=" + std::to_string(lda) + ")");
    tcore::require(ldb >= std::max(1LL, N), who, "ldb must be >= max(1, N) (got ldb=" + std::to_string(ldb) + ")");
    tcore::require(ldc >= std::max(1LL, N), who, "ldc must be >= max(1, N) (got ldc=" + std::to_string(ldc) + ")");
    if (M > 0 && N > 0) {
        tcore::require(C != nullptr, who, "C is a null pointer");
        tcore::require(aligned(C, c_bytes), who, "C is not aligned to its element size");
    }
    if (M > 0 && N > 0 && K > 0) {
        tcore::require(A != nullptr, who, "A is a null pointer");
        tcore::require(B != nullptr, who, "B is a null pointer");
        tcore::require(aligned(A, ab_bytes) && aligned(B, ab_bytes), who,
                       "A and B must be aligned to their element size");
    }
}

/// Grid size (one block per tile); throws if the tile count exceeds a 1-D grid.
inline int tile_count(const char* who, int M, int N, int BM, int BN)
{
    const long long tiles = static_cast<long long>((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    tcore::require(tiles <= INT_MAX, who, "matrix too large: " + std::to_string(tiles) + " tiles of " +
                                              std::to_string(BM) + "x" + std::to_string(BN));
    return static_cast<int>(tiles);
}

/// Sets the dynamic shared-memory limit of `Kernel` once per device; throws
/// if the device cannot give `bytes` per block.
template <auto Kernel>
void prepare_kernel(const char* who, std::size_t bytes)
{
    static std::atomic<unsigned long long> done{0};  // bit d: device d prepared
    int dev = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    const unsigned long long bit = dev < 64 ? (1ull << dev) : 0;
    if (bit && (done.load(std::memory_order_relaxed) & bit)) return;
    int optin = 0;
    TCORE_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    tcore::require(bytes <= static_cast<std::size_t>(optin), who,
                   "needs " + std::to_string(bytes) + " bytes of shared memory per block, device " +
                       std::to_string(dev) + " allows " + std::to_string(optin));
    if (bytes > 48 * 1024)
        TCORE_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(bytes)));
    done.fetch_or(bit, std::memory_order_relaxed);
}

}  // namespace impl

/// Block `pid` -> tile (tm, tn), walking groups of 8 tile rows column by
/// column, so that the blocks resident at once share A rows and B columns
/// in L2 (a wave of 132 blocks touches 8 row panels of A and ~17 of B).
__host__ __device__ inline void tile_of(int pid, int tiles_m, int tiles_n, int& tm, int& tn)
{
    constexpr int group = 8;
    const int per_group = group * tiles_n;
    const int first_m = (pid / per_group) * group;
    const int rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    const int in_group = pid % per_group;
    tm = first_m + in_group % rows;
    tn = in_group / rows;
}

}  // namespace tcore::examples::gemm
