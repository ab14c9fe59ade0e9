// tcore/patterns/spmv.cuh - FP64 SpMV y = A x on the FP64 MMA after DASP
// (SC'23), Quadrant IV: full A/B operands, only D's diagonal is used.
//
// The format is tcore/sparse/dasp.hpp: 32-slot blocks where lane (g, t)
// holds nonzero t of row g. One m8n8k4 MMA with A(g,t) = value and B(t,g) =
// x[column] leaves sum_t A(g,t) x[col(g,t)] in D(g,g), which sits in lane
// 4g + g/2, register g & 1 (C map: c_i -> (g, 2t + i)). The sm_90 shapes
// f64_m16n8k8 / k16 take 2 / 4 blocks per MMA (A rows 8-15 zero, B rows
// t + 4i = block i); D's diagonal is in the same place. An accumulator runs
// over all blocks of a group, so each row costs one MMA per 4 (8, 16)
// nonzeros and no reduction at all.
//
// Backends (template argument Backend):
//   tensor_core   mma.sync (the `tc` variant)
//   cuda_core     the same data flow with tcore's CUDA-core MMA (`cc`)
//   spmv_essential the same data structure, only the essential products:
//                 one FMA per stored slot, a 4-lane sum per row (`cce`)
// Bundles (dasp_options::bundle = P > 1): P identical rows share a column
// index and an x gather; f64_m16n8k4 puts two of them in A rows g and g + 8
// against the same B column (ceil(P/2) MMAs per block, B loaded once), so
// D(g, g) and D(g + 8, g) are both results. Index traffic per value falls
// from 4 to 4/P bytes.
// One fused kernel handles all row classes (block ranges: long pieces,
// bundle groups, medium groups, short tiles, empty rows): one launch. Long
// rows: each warp sums one piece; the last warp to finish a row (atomic
// counter, reset by that warp for the next launch) adds the piece sums in
// piece order, so results are deterministic. y gets every row written once,
// so it needs no initialisation; run(..., accumulate = true) adds A x to y
// instead, which dasp_spmv_panels uses: A's columns cut into panels whose
// share of x stays in L2, the first panel writing y, the others adding.
#pragma once

#include "../check.cuh"
#include "../frag/f64_m16n8k16.cuh"
#include "../frag/f64_m16n8k4.cuh"
#include "../frag/f64_m16n8k8.cuh"
#include "../frag/f64_m8n8k4.cuh"
#include "../sparse/dasp.hpp"
#include "../infra/launch.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tcore {

/// The `cce` mode of the SpMV kernels: CUDA cores, only the essential FMAs.
struct spmv_essential {
    static constexpr const char* name() { return "essential"; }
};

namespace spmv_detail {

template <class Backend>
inline constexpr bool is_mma_backend_v = std::is_same_v<Backend, tensor_core> || std::is_same_v<Backend, cuda_core>;

/// The k = 4 shape of the same family (the short tiles use 4-slot lines).
template <class Shape>
using short_shape_t = std::conditional_t<std::is_same_v<Shape, f64_m8n8k4>, f64_m8n8k4, f64_m16n8k4>;

/// Fills A and B of `Shape` from KB = k/4 blocks of (value, x) pairs held by
/// the lane: A element (row, col) of a lane is v[col / 4] for rows < 8, 0
/// below (m16 shapes); B element (row, col) is xv[row / 4]. Indices are the
/// same on every lane, so this is compile-time.
template <class Shape>
__host__ __device__ __forceinline__ void diag_operands(frag_a<Shape>& a, frag_b<Shape>& b, const double* v,
                                                       const double* xv)
{
    static_for<Shape::a_count>([&](auto i) {
        constexpr coord rc = Shape::a_coord(0, decltype(i)::value);
        a.x[i] = rc.row < 8 ? v[rc.col / 4] : 0.0;
    });
    static_for<Shape::b_count>([&](auto i) {
        constexpr coord rc = Shape::b_coord(0, decltype(i)::value);
        b.x[i] = xv[rc.row / 4];
    });
}

/// True on the lane that holds D(g, g) of its g: t == g / 2.
__host__ __device__ constexpr bool holds_diag(int lane) { return (lane & 3) == ((lane >> 2) >> 1); }

/// D(g, g) where the lane holds it (holds_diag), else 0: register g & 1.
template <class Shape>
__host__ __device__ __forceinline__ double diag_of(const frag_c<Shape>& d, int lane)
{
    const int g = lane >> 2;
    return holds_diag(lane) ? ((g & 1) ? d.x[1] : d.x[0]) : 0.0;
}

/// What a lane of a short tile needs from the tile's segment mask.
struct short_lane {
    int seg;   ///< segment (row of the line) its slot belongs to; -1 in an empty line
    int nseg;  ///< segments (rows) in its line
    int out;   ///< rows in the lines before its line (offset into the tile's rows)
};

__host__ __device__ inline int popcount32(unsigned v)
{
#if defined(__CUDA_ARCH__)
    return __popc(v);
#else
    int n = 0;
    for (; v; v &= v - 1u) ++n;
    return n;
#endif
}

__host__ __device__ inline short_lane short_lane_info(unsigned mask, int lane)
{
    const int g = lane >> 2, t = lane & 3;
    const unsigned line = (mask >> (4 * g)) & 0xFu;
    return {popcount32(line & ((2u << t) - 1u)) - 1, popcount32(line), popcount32(mask & ((1u << (4 * g)) - 1u))};
}

__device__ __forceinline__ double warp_sum(double v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ double quad_sum(double v)
{
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    v += __shfl_xor_sync(0xffffffffu, v, 2);
    return v;
}

/// 32-blocks a lane loads before it uses any: whole MMAs, at least 4; the
/// essential mode takes 2, which keeps it at 32-40 registers (12-16 blocks
/// per SM, not 10) and fits the 2-block groups of rows of 8-11 entries.
template <class Backend, class Shape>
inline constexpr int step_blocks = is_mma_backend_v<Backend> ? (Shape::k / 4 >= 4 ? Shape::k / 4 : 4) : 2;

/// A lane's slot of `N` consecutive 32-blocks: values and columns (-1: none).
template <int N>
struct block_step {
    double v[N];
    int c[N];
};

/// Loads blocks b0 .. b0 + N - 1 (those below `nblk`) of the run at `base`.
template <int N>
__device__ __forceinline__ void load_step(block_step<N>& s, const double* __restrict__ val,
                                          const int* __restrict__ col, long long base, int b0, int nblk, int lane)
{
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const bool in = b0 + j < nblk;
        const long long slot = base + 32LL * (b0 + j) + lane;
        s.v[j] = in ? __ldcs(val + slot) : 0.0;
        s.c[j] = in ? __ldcs(col + slot) : -1;
    }
}

/// Gathers x for a loaded step and adds its products: MMA modes into `acc`
/// (diagonal products), the essential mode into `ess` (the lane's FMAs).
/// `side_v` x[`side_c`] (one more entry of the lane; column -1: none) is
/// gathered with the step's x and added to `ess` in every mode.
template <class Backend, class Shape, int N>
__device__ __forceinline__ void use_step(frag_c<Shape>& acc, double& ess, const block_step<N>& s,
                                         const double* __restrict__ x, double side_v = 0.0, int side_c = -1)
{
    double xv[N];
#pragma unroll
    for (int j = 0; j < N; ++j) xv[j] = s.c[j] >= 0 ? __ldg(x + s.c[j]) : 0.0;
    if (side_c >= 0) ess = fma(side_v, __ldg(x + side_c), ess);
    if constexpr (is_mma_backend_v<Backend>) {
        constexpr int kb = Shape::k / 4;  // 32-blocks per MMA
#pragma unroll
        for (int m = 0; m < N / kb; ++m) {
            frag_a<Shape> a;
            frag_b<Shape> b;
            diag_operands<Shape>(a, b, s.v + m * kb, xv + m * kb);
            mma<Backend>(acc, a, b, acc);
        }
    } else {
#pragma unroll
        for (int j = 0; j < N; ++j) ess = fma(s.v[j], xv[j], ess);
    }
}

/// The blocks of a run from `b0` on, a step at a time.
template <class Backend, class Shape>
__device__ __forceinline__ void accumulate(frag_c<Shape>& acc, double& ess, const double* __restrict__ val,
                                           const int* __restrict__ col, long long base, int b0, int nblk,
                                           const double* __restrict__ x, int lane)
{
    constexpr int n = step_blocks<Backend, Shape>;
    for (; b0 < nblk; b0 += n) {
        block_step<n> s;
        load_step(s, val, col, base, b0, nblk, lane);
        use_step<Backend, Shape>(acc, ess, s, x);
    }
}

/// D(g, g) (upper = false) or D(g + 8, g) (upper = true) of an m16n8 accumulator where the lane holds it.
__host__ __device__ __forceinline__ double bundle_diag(const frag_c<f64_m16n8k4>& d, bool upper, int lane)
{
    const int g = lane >> 2;
    if (!holds_diag(lane)) return 0.0;
    return upper ? ((g & 1) ? d.x[3] : d.x[2]) : ((g & 1) ? d.x[1] : d.x[0]);
}

/// The m16n8k4 A operand for rows 2q (A rows 0-7) and 2q + 1 (rows 8-15) of
/// a bundle of P: a0 -> (g, t), a1 -> (g + 8, t).
template <int P>
__host__ __device__ __forceinline__ frag_a<f64_m16n8k4> bundle_a(const double* v, int q)
{
    frag_a<f64_m16n8k4> a;
    a.x[0] = v[2 * q];
    a.x[1] = 2 * q + 1 < P ? v[2 * q + 1] : 0.0;
    return a;
}

}  // namespace spmv_detail

}  // namespace tcore
