// examples/spmv/spmv_cce.cuh - the `cce` opponent of the SpMV workload: the
// kit's packed data and fused kernel (tcore::dasp_spmv::run_with), each
// stored slot's product formed on CUDA cores with one FMA (not the MMA's
// full 8x8 product of which only the diagonal is used). Lane 4g + t adds the
// products of its slots of row g into its running sum; the kernel adds the
// four running sums of row g (two shuffles) and stores the row.
//
// Provides (namespace tcore::examples::spmv)
//   spmv_cce: the row-block policy of tcore::dasp_spmv::run_with and of the
//       building blocks of tcore/patterns/spmv.cuh (its interface in
//       tcore/patterns/device/spmv.cuh): run_with<spmv_cce>(x, y, stream,
//       accumulate) on a dasp_spmv or dasp_spmv_panels, or
//       spmv_accumulate<spmv_cce, Shape> in a user kernel.
// Preconditions: those of dasp_spmv::run (x and y on the device, 8-byte
// aligned, not overlapping; tcore::error on bad input). The policy's members
// are per lane (no shuffles of their own).
#pragma once

#include <tcore/patterns/device/spmv.cuh>

namespace tcore::examples::spmv {

/// The cce arithmetic: one FMA per stored slot. step_blocks 2 keeps the
/// kernel at 32-40 registers (12-16 blocks per SM, not 10) and fits the
/// 2-block groups of rows of 8-11 entries.
struct spmv_cce {
    static constexpr int step_blocks = 2;

    /// sum + v xv, rounded once.
    __device__ __forceinline__ static double add(double sum, double v, double xv) { return fma(v, xv, sum); }

    /// v xv.
    __device__ __forceinline__ static double product(double v, double xv) { return v * xv; }
};

}  // namespace tcore::examples::spmv
