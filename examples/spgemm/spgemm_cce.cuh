// examples/spgemm/spgemm_cce.cuh - the `cce` opponent of the SpGEMM
// workload: the kit's symbolic phase and C tiles (tcore::spgemm_with), each
// 4x4 tile product formed on CUDA cores with only its 64 FMAs (not the 256
// of the m8n8k4 MMA that pairs two of them). 16 lanes per tile product:
// lanes 0-15 take the first product of each pair, 16-31 the second; lane l
// owns element l % 16 (row-major) of the C tile, 4 FMAs per product; the two
// halves are added by one shuffle at the end.
//
// Provides (namespace tcore::examples::spgemm)
//   spgemm_essential_term(a_val, b_val, pa, pb, lane, acc): lane's share of
//       one tile product, host and device (the host model of
//       tests/host/test_sparse_spgemm_model.cu runs it too).
//   numeric_cce: the numeric step of the Numeric interface of
//       tcore::spgemm_with (patterns/device/spgemm.cuh).
//   spgemm_cce(a, b, stream, stats): C = A B with it, as tcore::spgemm.
// Preconditions: those of tcore::spgemm (mBSR on the device; tile p of a
// value array is the 16 doubles at val + 16 p; tcore::error on bad input).
// numeric_cce's members are called by all 32 lanes of a warp, converged
// (full-mask shuffles; not checked).
#pragma once

#include <tcore/patterns/device/spgemm.cuh>
#include <tcore/patterns/spgemm.cuh>

#include <cuda_runtime.h>

namespace tcore::examples::spgemm {

/// Lane's share of one tile product: element lane % 16 (row-major) of A
/// tile pa times B tile pb, 4 FMAs added to `acc`.
__host__ __device__ inline double spgemm_essential_term(const double* a_val, const double* b_val, int pa, int pb,
                                                        int lane, double acc)
{
    const int e = lane & 15;
    const double* ar = a_val + 16LL * pa + 4 * (e >> 2);
    const double* bc = b_val + 16LL * pb + (e & 3);
    for (int k = 0; k < 4; ++k) acc = fma(ar[k], bc[4 * k], acc);
    return acc;
}

/// The cce numeric step: one double per lane, 64 FMAs per tile pair.
/// min_blocks 12: registers <= 40 (the kernel is latency bound and most C
/// tiles have one or two products, so occupancy matters).
struct numeric_cce {
    static constexpr int min_blocks = 12;
    double ess;
    int half;  // lanes 0-15 take the first product of a pair, 16-31 the second

    __device__ __forceinline__ explicit numeric_cce(int lane) : ess(0.0), half(lane >> 4) {}

    __device__ __forceinline__ void add(const double* a_val, const double* b_val, unsigned long long mine, int n,
                                        int lane)
    {
#pragma unroll 4
        for (int s = 0; 2 * s < n; ++s) {
            const unsigned long long v = __shfl_sync(0xffffffffu, mine, 2 * s + half);
            if (half == 0 || 2 * s + 1 < n)
                ess = spgemm_essential_term(a_val, b_val, spgemm_pair_first(v), spgemm_pair_second(v), lane, ess);
        }
    }

    __device__ __forceinline__ void store(double* c_tile, int lane) const
    {
        const double v = ess + __shfl_xor_sync(0xffffffffu, ess, 16);
        if (half == 0) c_tile[lane & 15] = v;
    }
};

/// cce: C = A B, each tile product as 64 FMAs on CUDA cores (same symbolic
/// phase, C structure and stream behaviour as tcore::spgemm).
inline mbsr_device spgemm_cce(const mbsr_device& a, const mbsr_device& b, cudaStream_t stream = nullptr,
                              spgemm_stats* stats = nullptr)
{
    return tcore::spgemm_with<numeric_cce>(a, b, stream, stats, "tcore::examples::spgemm::spgemm_cce");
}

}  // namespace tcore::examples::spgemm
