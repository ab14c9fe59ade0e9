// tcore/patterns/spmv.cuh - building blocks of the FP64 row-block SpMV
// after DASP (SC'23), Quadrant IV: full A/B operands, only D's diagonal is
// used. The launcher (dasp_spmv) is in patterns/device/spmv.cuh.
//
// The row-block layout (tcore/sparse/dasp.hpp): 8 rows share "32-blocks" of
// 32 slots; slot 4g + t of a block holds one entry of row g (lane g = lane /
// 4, t = lane % 4 loads it). One m8n8k4 MMA with A(g,t) = value and B(t,g) =
// x[column] leaves sum_t A(g,t) x[col(g,t)] in D(g,g), which sits in lane
// 4g + g/2, register g & 1 (C map: c_i -> (g, 2t + i)). The sm_90 shapes
// f64_m16n8k8 / k16 take 2 / 4 blocks per MMA (A rows 8-15 zero, B rows
// t + 4i = block i); D's diagonal is in the same place. An accumulator runs
// over all blocks of a group, so each row costs one MMA per 4 (8, 16)
// entries and no reduction at all.
//
// Provides (namespace tcore):
//   spmv_block_rows    the entry point: y of the 8 rows of one group of
//                      32-blocks, on the lane that holds each row's D(g,g)
//   spmv_accumulate    the same into a caller's accumulator, from block b0 on
//   spmv_step, spmv_load_step, spmv_use_step, spmv_step_blocks
//                      the loads and MMAs of spmv_accumulate, one step apart
//   spmv_gather_step, spmv_multiply_step
//                      spmv_use_step's two halves, for callers that keep
//                      several steps' gathers in flight before their MMAs
//   diag_operands, holds_diag, diag_of
//                      A/B from per-lane (value, x) pairs; where D(g,g) is
//   spmv_short_lane_info, spmv_short_shape_t
//                      short tiles (up to 4 rows per 4-slot line)
//   spmv_bundle_a, spmv_bundle_diag
//                      bundles of identical rows on m16n8k4 (rows g, g + 8)
//
// Backend (the first template argument of spmv_step_blocks, spmv_use_step,
// spmv_accumulate, spmv_block_rows): tensor_core or cuda_core (the MMAs
// above), or a row-block policy, a CUDA-core backend of the caller's own:
// the same data flow with the caller's
// per-lane arithmetic in place of the MMAs, each lane adding its slots'
// products to its running sum `ess` and row g's sum the quad sum of `ess`
// over lanes 4g .. 4g + 3. Its interface (step_blocks, add, product) is
// documented in patterns/device/spmv.cuh; the benchmark's plain CUDA-core
// opponent (one FMA per slot) is one: examples/spmv/spmv_cce.cuh.
//
// Preconditions common to the device functions (none checked): called by
// all 32 lanes of one warp, converged (warp-collective: mma.sync, or
// __shfl_sync on cuda_core and a policy); `lane` is lane_id(). Each
// lane passes the same block range. Values and x are FP64, columns int:
// element alignment only (scalar loads). A padding slot has value 0 and
// column -1 (no x load, so no 0 * inf). Values and columns are read with
// streaming loads (__ldcs) and x through the read-only path (__ldg): none of
// them may be written while the kernel runs.
#pragma once

#include "../backend.cuh"
#include "../frag/f64_m16n8k16.cuh"
#include "../frag/f64_m16n8k4.cuh"
#include "../frag/f64_m16n8k8.cuh"
#include "../frag/f64_m8n8k4.cuh"

#include <type_traits>

namespace tcore {

namespace detail {

__host__ __device__ inline int spmv_popcount32(unsigned v)
{
#if defined(__CUDA_ARCH__)
    return __popc(v);
#else
    int n = 0;
    for (; v; v &= v - 1u) ++n;
    return n;
#endif
}

__device__ __forceinline__ double spmv_warp_sum(double v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ double spmv_quad_sum(double v)
{
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    v += __shfl_xor_sync(0xffffffffu, v, 2);
    return v;
}

}  // namespace detail

/// The k = 4 shape of the same family (the short tiles use 4-slot lines).
template <class Shape>
using spmv_short_shape_t = std::conditional_t<std::is_same_v<Shape, f64_m8n8k4>, f64_m8n8k4, f64_m16n8k4>;

/// Fills A and B of `Shape` from KB = k/4 blocks of (value, x) pairs held by
/// the lane: A element (row, col) of a lane is v[col / 4] for rows < 8, 0
/// below (m16 shapes); B element (row, col) is xv[row / 4]. Indices are the
/// same on every lane, so this is compile-time. Per lane (host or device).
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
struct spmv_short_lane {
    int seg;   ///< segment (row of the line) its slot belongs to; -1 in an empty line
    int nseg;  ///< segments (rows) in its line
    int out;   ///< rows in the lines before its line (offset into the tile's rows)
};

/// The lane's segment, its line's segment count and the rows before its
/// line, from a short tile's mask (bit 4g + t: a segment starts at slot
/// 4g + t). Per lane (host or device).
__host__ __device__ inline spmv_short_lane spmv_short_lane_info(unsigned mask, int lane)
{
    const int g = lane >> 2, t = lane & 3;
    const unsigned line = (mask >> (4 * g)) & 0xFu;
    return {detail::spmv_popcount32(line & ((2u << t) - 1u)) - 1, detail::spmv_popcount32(line),
            detail::spmv_popcount32(mask & ((1u << (4 * g)) - 1u))};
}

namespace detail {

template <class Backend, class Shape>
constexpr int spmv_step_blocks_of()
{
    if constexpr (is_backend_v<Backend>) return Shape::k / 4 >= 4 ? Shape::k / 4 : 4;
    else return Backend::step_blocks;
}

}  // namespace detail

/// 32-blocks a lane loads before it uses any: tensor_core and cuda_core
/// whole MMAs, at least 4; a policy its step_blocks.
template <class Backend, class Shape>
inline constexpr int spmv_step_blocks = detail::spmv_step_blocks_of<Backend, Shape>();

/// A lane's slot of `N` consecutive 32-blocks: values and columns (-1: none).
template <int N>
struct spmv_step {
    double v[N];
    int c[N];
};

/// Loads blocks b0 .. b0 + N - 1 (those below `nblk`) of the run at `base`
/// (block b is slots base + 32 b .. base + 32 b + 31); blocks past `nblk`
/// load as padding. Per lane.
template <int N>
__device__ __forceinline__ void spmv_load_step(spmv_step<N>& s, const double* __restrict__ val,
                                               const int* __restrict__ col, long long base, int b0, int nblk,
                                               int lane)
{
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const bool in = b0 + j < nblk;
        const long long slot = base + 32LL * (b0 + j) + lane;
        s.v[j] = in ? __ldcs(val + slot) : 0.0;
        s.c[j] = in ? __ldcs(col + slot) : -1;
    }
}

/// The x values of a loaded step's columns (0 for padding, column -1).
template <int N>
__device__ __forceinline__ void spmv_gather_step(double (&xv)[N], const spmv_step<N>& s, const double* __restrict__ x)
{
#pragma unroll
    for (int j = 0; j < N; ++j) xv[j] = s.c[j] >= 0 ? __ldg(x + s.c[j]) : 0.0;
}

/// A step's products from its values and gathered x: tensor_core and
/// cuda_core into `acc` (diagonal products), a policy into `ess` (its add,
/// slot by slot). N is a multiple of Shape::k / 4 (spmv_step_blocks is).
template <class Backend, class Shape, int N>
__device__ __forceinline__ void spmv_multiply_step(frag_c<Shape>& acc, double& ess, const spmv_step<N>& s,
                                                   const double (&xv)[N])
{
    if constexpr (is_backend_v<Backend>) {
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
        for (int j = 0; j < N; ++j) ess = Backend::add(ess, s.v[j], xv[j]);
    }
}

/// Gathers x for a loaded step and adds its products (spmv_gather_step,
/// spmv_multiply_step). `side_v` x[`side_c`] (one more entry of the lane;
/// column -1: none) is gathered with the step's x and added to `ess` by an
/// FMA in every mode.
template <class Backend, class Shape, int N>
__device__ __forceinline__ void spmv_use_step(frag_c<Shape>& acc, double& ess, const spmv_step<N>& s,
                                              const double* __restrict__ x, double side_v = 0.0, int side_c = -1)
{
    double xv[N];
    spmv_gather_step(xv, s, x);
    if (side_c >= 0) ess = fma(side_v, __ldg(x + side_c), ess);
    spmv_multiply_step<Backend, Shape>(acc, ess, s, xv);
}

/// The blocks of a run from `b0` on, a step at a time: tensor_core and
/// cuda_core add into `acc` (row g's sum lands in D(g,g): diag_of), a
/// policy adds the lane's products into `ess` (row g's sum is the sum of
/// `ess` over the quad of g).
template <class Backend, class Shape>
__device__ __forceinline__ void spmv_accumulate(frag_c<Shape>& acc, double& ess, const double* __restrict__ val,
                                                const int* __restrict__ col, long long base, int b0, int nblk,
                                                const double* __restrict__ x, int lane)
{
    constexpr int n = spmv_step_blocks<Backend, Shape>;
    for (; b0 < nblk; b0 += n) {
        spmv_step<n> s;
        spmv_load_step(s, val, col, base, b0, nblk, lane);
        spmv_use_step<Backend, Shape>(acc, ess, s, x);
    }
}

/// y of the 8 rows of one row block: `nblk` 32-blocks at val/col + base,
/// slot 32 b + 4 g + t holding one entry of row g (each entry once, in any
/// block and t; padding value 0, column -1). Returns sum_j A(g, j) x[j] on
/// the lane with holds_diag(lane), for g = lane / 4, and 0 on the other
/// lanes. Backend: tensor_core, cuda_core (Shape f64_m8n8k4, f64_m16n8k8 or
/// f64_m16n8k16; the m16 shapes issue their own DMMA on sm_90 and run as m8n8k4 pairs on sm_80) or
/// a row-block policy (the quad sum of its lanes' `ess`). Warp-collective;
/// every lane passes the same base and nblk (>= 0). A row of more entries
/// than 4 nblk, or more than 8 rows, is split by the caller into several
/// row blocks or calls whose results it adds.
template <class Backend = default_backend, class Shape = f64_m8n8k4>
__device__ __forceinline__ double spmv_block_rows(const double* __restrict__ val, const int* __restrict__ col,
                                                  long long base, int nblk, const double* __restrict__ x, int lane)
{
    frag_c<Shape> acc;
    fill(acc, 0.0);
    double ess = 0.0;
    spmv_accumulate<Backend, Shape>(acc, ess, val, col, base, 0, nblk, x, lane);
    if constexpr (is_backend_v<Backend>) {
        return diag_of(acc, lane);
    } else {
        const double s = detail::spmv_quad_sum(ess);
        return holds_diag(lane) ? s : 0.0;
    }
}

/// D(g, g) (upper = false) or D(g + 8, g) (upper = true) of an m16n8
/// accumulator where the lane holds it (holds_diag), else 0.
__host__ __device__ __forceinline__ double spmv_bundle_diag(const frag_c<f64_m16n8k4>& d, bool upper, int lane)
{
    const int g = lane >> 2;
    if (!holds_diag(lane)) return 0.0;
    return upper ? ((g & 1) ? d.x[3] : d.x[2]) : ((g & 1) ? d.x[1] : d.x[0]);
}

/// The m16n8k4 A operand for rows 2q (A rows 0-7) and 2q + 1 (rows 8-15) of
/// a bundle of P identical rows whose values of this slot are v[0 .. P-1]:
/// a0 -> (g, t), a1 -> (g + 8, t). Against a B of x[column] (b0), D(g, g)
/// is row 2q and D(g + 8, g) row 2q + 1 (spmv_bundle_diag). Per lane.
template <int P>
__host__ __device__ __forceinline__ frag_a<f64_m16n8k4> spmv_bundle_a(const double* v, int q)
{
    frag_a<f64_m16n8k4> a;
    a.x[0] = v[2 * q];
    a.x[1] = 2 * q + 1 < P ? v[2 * q + 1] : 0.0;
    return a;
}

}  // namespace tcore
