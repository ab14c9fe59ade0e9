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

/// Device pointers and counts of a packed matrix (kernel argument).
struct dasp_view {
    int rows = 0, cols = 0;
    int long_count = 0, piece_count = 0, long_piece = 0;
    const int* long_rows = nullptr;
    const int* long_piece_ptr = nullptr;
    const int* piece_row = nullptr;
    const double* long_val = nullptr;
    const int* long_col = nullptr;
    double* partial = nullptr;     ///< one sum per piece
    unsigned* counter = nullptr;   ///< finished pieces per long row (0 between launches)
    int group_count = 0;
    const int* med_rows = nullptr;
    const int* group_ptr = nullptr;
    const double* reg_val = nullptr;
    const int* reg_col = nullptr;
    const int* irr_ptr = nullptr;
    const double* irr_val = nullptr;
    const int* irr_col = nullptr;
    int tile_count = 0;
    const unsigned* tile_mask = nullptr;
    const int* tile_row_ptr = nullptr;
    const int* short_rows = nullptr;
    const double* short_val = nullptr;
    const int* short_col = nullptr;
    int empty_count = 0;
    const int* empty_rows = nullptr;
    int bundle = 1, bgroup_count = 0;
    const int* bun_rows = nullptr;
    const int* bgroup_ptr = nullptr;
    const int* bun_col = nullptr;
    const double* bun_val = nullptr;
    const int* birr_ptr = nullptr;
    const double* birr_val = nullptr;
    const int* birr_col = nullptr;
    // grid: [0, long_end) long pieces, [long_end, bun_end) bundle groups,
    // [bun_end, med_end) medium groups, [med_end, short_end) short tiles,
    // [short_end, grid) empty rows
    int long_end = 0, bun_end = 0, med_end = 0, short_end = 0;
    int accumulate = 0;  ///< 1: y += A x (rows without entries untouched); 0: y = A x
    int groups_per_warp = 1;
    int med_warps = 0;    ///< warps of the medium range: ceil(group_count / groups_per_warp)
    int tiles_per_warp = 1;
    int short_warps = 0;  ///< warps of the short range: ceil(tile_count / tiles_per_warp)
};

namespace spmv_detail {

inline constexpr int threads = 128;  ///< 4 warps per block
inline constexpr int warps = threads / 32;

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

/// Writes one result: y[row] = v, or y[row] += v in accumulate mode.
__device__ __forceinline__ void store_y(const dasp_view& m, double* __restrict__ y, int row, double v)
{
    y[row] = m.accumulate ? y[row] + v : v;
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

/// One piece of a long row per warp; the row's last warp writes y.
template <class Backend, class Shape>
__device__ void long_piece(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y, int piece,
                           int lane)
{
    frag_c<Shape> acc;
    fill(acc, 0.0);
    double ess = 0.0;
    accumulate<Backend, Shape>(acc, ess, m.long_val, m.long_col, static_cast<long long>(piece) * m.long_piece, 0,
                            m.long_piece / 32, x, lane);
    double sum;
    if constexpr (is_mma_backend_v<Backend>) sum = warp_sum(diag_of(acc, lane));
    else sum = warp_sum(ess);
    const int lr = m.piece_row[piece];
    const int first = m.long_piece_ptr[lr], last = m.long_piece_ptr[lr + 1];
    int done = 0;
    if (lane == 0) {
        m.partial[piece] = sum;
        __threadfence();
        const unsigned before = atomicAdd(m.counter + lr, 1u);
        done = before == static_cast<unsigned>(last - first - 1);
    }
    done = __shfl_sync(0xffffffffu, done, 0);
    if (!done) return;
    __threadfence();
    double total = 0.0;
    for (int q = first + lane; q < last; q += 32) total += __ldcg(m.partial + q);
    total = warp_sum(total);
    if (lane == 0) {
        store_y(m, y, m.long_rows[lr], total);
        m.counter[lr] = 0u;  // ready for the next launch
    }
}

/// Where a lane's part of one medium group lies: loads that depend on no
/// other load, issued for the next group while the current one runs.
struct medium_refs {
    int base = 0, nblk = 0;  ///< the group's regular slots: blocks from `base`
    int p0 = 0, p1 = 0;      ///< the lane's irregular entries p0, p0 + 4, ... < p1
    int row = -1;            ///< the lane's output row (-1: padding)
};

__device__ __forceinline__ medium_refs medium_refs_of(const dasp_view& m, int group, int lane)
{
    const int sr = 8 * group + (lane >> 2);
    medium_refs r;
    r.base = m.group_ptr[group];
    r.nblk = (m.group_ptr[group + 1] - r.base) >> 5;
    r.p0 = m.irr_ptr[sr] + (lane & 3);
    r.p1 = m.irr_ptr[sr + 1];  // at most dasp_options::irregular_cap entries
    r.row = m.med_rows[sr];
    return r;
}

/// One group of 8 medium rows: regular blocks on `Backend`, the irregular
/// remainder on CUDA cores (4 lanes per row), then one store per row. The
/// lane's first irregular entry (of at most irregular_cap / 4; usually 0 or
/// 1) is loaded with the first step of blocks and its x gathered with
/// theirs, so with its refs loaded ahead a group of up to one step and one
/// irregular entry per lane costs two dependent round trips (values and
/// columns, then x), not the six of a straight-line order.
template <class Backend, class Shape>
__device__ void medium_group(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y,
                             const medium_refs& r, int lane)
{
    constexpr int n = step_blocks<Backend, Shape>;
    block_step<n> first;
    load_step(first, m.reg_val, m.reg_col, r.base, 0, r.nblk, lane);
    const bool has_irr = r.p0 < r.p1;
    const double irr_v = has_irr ? __ldcs(m.irr_val + r.p0) : 0.0;
    const int irr_c = has_irr ? __ldcs(m.irr_col + r.p0) : -1;
    frag_c<Shape> acc;
    fill(acc, 0.0);
    double s = 0.0;
    use_step<Backend, Shape>(acc, s, first, x, irr_v, irr_c);
    accumulate<Backend, Shape>(acc, s, m.reg_val, m.reg_col, r.base, n, r.nblk, x, lane);
#pragma unroll 4
    for (int p = r.p0 + 4; p < r.p1; p += 4) s = fma(__ldcs(m.irr_val + p), __ldg(x + __ldcs(m.irr_col + p)), s);
    s = quad_sum(s);
    if (holds_diag(lane)) {
        if constexpr (is_mma_backend_v<Backend>) s += diag_of(acc, lane);
        if (r.row >= 0) store_y(m, y, r.row, s);
    }
}

/// A short tile's loads that depend on no other: the lane's slot, the
/// tile's segment mask and its first output row.
struct short_head {
    double v = 0.0;
    int c = -1;
    unsigned mask = 0u;
    int row0 = 0;
};

__device__ __forceinline__ short_head short_head_of(const dasp_view& m, int tile, int lane)
{
    const long long slot = 32LL * tile + lane;
    return {__ldcs(m.short_val + slot), __ldcs(m.short_col + slot), m.tile_mask[tile], m.tile_row_ptr[tile]};
}

/// One short tile: up to 4 MMAs (one per segment position), B masked to
/// the segment; D_j(g, g) is row j of line g.
template <class Backend, class Shape>
__device__ void short_tile(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y, int tile,
                           int lane)
{
    using S = short_shape_t<Shape>;
    const short_head h = short_head_of(m, tile, lane);
    const double v = h.v;
    const int c = h.c;
    const double xv = c >= 0 ? __ldg(x + c) : 0.0;
    const short_lane info = short_lane_info(h.mask, lane);
    const int seg = info.seg, nseg = info.nseg;
    int most = nseg;  // MMAs the tile needs: the most segments of any line
    most = max(most, __shfl_xor_sync(0xffffffffu, most, 4));
    most = max(most, __shfl_xor_sync(0xffffffffu, most, 8));
    most = max(most, __shfl_xor_sync(0xffffffffu, most, 16));
    const int out = h.row0 + info.out;
    const bool writer = holds_diag(lane);
    if constexpr (is_mma_backend_v<Backend>) {
        frag_a<S> a;
        double vs[1] = {v};
        for (int j = 0; j < most; ++j) {
            frag_b<S> b;
            double xs[1] = {seg == j ? xv : 0.0};
            diag_operands<S>(a, b, vs, xs);
            frag_c<S> d;
            fill(d, 0.0);
            mma<Backend>(d, a, b, d);
            if (writer && j < nseg) store_y(m, y, m.short_rows[out + j], diag_of(d, lane));
        }
    } else {
        const double p = v * xv;
        for (int j = 0; j < most; ++j) {
            const double s = quad_sum(seg == j ? p : 0.0);
            if (writer && j < nseg) store_y(m, y, m.short_rows[out + j], s);
        }
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

/// One group of 8 bundles of P identical rows: per 32-block one column
/// index and one x gather per lane, ceil(P / 2) m16n8k4 MMAs (B shared).
template <class Backend, int P>
__device__ void bundle_group(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y, int group,
                             int lane)
{
    constexpr int Q = (P + 1) / 2;
    constexpr int per_iter = 2;
    using S = f64_m16n8k4;
    const int g = lane >> 2, t = lane & 3;
    const int base = m.bgroup_ptr[group];
    const int nblk = (m.bgroup_ptr[group + 1] - base) >> 5;
    frag_c<S> acc[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) fill(acc[q], 0.0);
    double ess[P];
#pragma unroll
    for (int p = 0; p < P; ++p) ess[p] = 0.0;
    for (int b0 = 0; b0 < nblk; b0 += per_iter) {
        double v[per_iter][P], xv[per_iter];
        int c[per_iter];
#pragma unroll
        for (int j = 0; j < per_iter; ++j) {
            const bool in = b0 + j < nblk;
            const long long blk = base + 32LL * (b0 + j);
            c[j] = in ? __ldcs(m.bun_col + blk + lane) : -1;
#pragma unroll
            for (int p = 0; p < P; ++p) v[j][p] = in ? __ldcs(m.bun_val + P * blk + 32 * p + lane) : 0.0;
        }
#pragma unroll
        for (int j = 0; j < per_iter; ++j) xv[j] = c[j] >= 0 ? __ldg(x + c[j]) : 0.0;
#pragma unroll
        for (int j = 0; j < per_iter; ++j) {
            if constexpr (is_mma_backend_v<Backend>) {
                frag_b<S> b;
                b.x[0] = xv[j];
#pragma unroll
                for (int q = 0; q < Q; ++q) mma<Backend>(acc[q], bundle_a<P>(v[j], q), b, acc[q]);
            } else {
#pragma unroll
                for (int p = 0; p < P; ++p) ess[p] = fma(v[j][p], xv[j], ess[p]);
            }
        }
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const int row_index = (8 * group + g) * P + p;
        double s = is_mma_backend_v<Backend> ? 0.0 : ess[p];
        const int k1 = m.birr_ptr[row_index + 1];
        for (int k = m.birr_ptr[row_index] + t; k < k1; k += 4)
            s = fma(__ldcs(m.birr_val + k), __ldg(x + __ldcs(m.birr_col + k)), s);
        s = quad_sum(s);
        if (holds_diag(lane)) {
            if constexpr (is_mma_backend_v<Backend>) s += bundle_diag(acc[p / 2], (p & 1) != 0, lane);
            const int row = m.bun_rows[row_index];
            if (row >= 0) store_y(m, y, row, s);
        }
    }
}

/// Blocks per SM the tensor-core kernels of the m16 shapes are built for (at
/// most 64 registers; unbounded they take 72 and lose a block per SM): the
/// groups' load latency is hidden by warps in flight. 0 = no bound: m8n8k4
/// and the CUDA-core modes are left to ptxas, which gives them fewer
/// registers unbounded than under a bound of 8 (40-48, not 64), and a bound
/// of 16 (32 registers) spills or, for the DMMA of the bundles, fails.
template <class Backend, class Shape>
inline constexpr int min_blocks = std::is_same_v<Backend, tensor_core> && Shape::k >= 8 ? 8 : 0;

template <class Backend, class Shape, int P>
__global__ void __launch_bounds__(threads, (min_blocks<Backend, Shape>)) dasp_kernel(dasp_view m, const double* __restrict__ x,
                                                       double* __restrict__ y)
{
    const int block = static_cast<int>(blockIdx.x);
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    if (block < m.long_end) {
        const int piece = block * warps + warp;
        if (piece < m.piece_count) long_piece<Backend, Shape>(m, x, y, piece, lane);
    } else if (block < m.bun_end) {
        if constexpr (P > 1) {
            const int group = (block - m.long_end) * warps + warp;
            if (group < m.bgroup_count) bundle_group<Backend, P>(m, x, y, group, lane);
        }
    } else if (block < m.med_end) {
        // Groups w, w + med_warps, ...: the longest groups (sorted first) go
        // to different warps, each paired with short ones from further on.
        // (The range's last block may hold warps past med_warps: they idle,
        // or they would repeat their neighbours' groups.)
        const int first = (block - m.bun_end) * warps + warp;
        const int end = first < m.med_warps ? m.group_count : 0;
        medium_refs next;
        if (first < end) next = medium_refs_of(m, first, lane);
        for (int group = first; group < end; group += m.med_warps) {
            const medium_refs cur = next;
            if (group + m.med_warps < end) next = medium_refs_of(m, group + m.med_warps, lane);
            medium_group<Backend, Shape>(m, x, y, cur, lane);
        }
    } else if (block < m.short_end) {
        const int first = (block - m.med_end) * warps + warp;
        if (first < m.short_warps)
            for (int tile = first; tile < m.tile_count; tile += m.short_warps) short_tile<Backend, Shape>(m, x, y, tile, lane);
    } else {
        const int i = (block - m.short_end) * threads + static_cast<int>(threadIdx.x);
        if (i < m.empty_count && !m.accumulate) y[m.empty_rows[i]] = 0.0;
    }
}

}  // namespace spmv_detail

/// A matrix packed for the DASP-like SpMV and held on the device.
/// Construction packs (build_dasp) and uploads; run() launches one kernel.
/// Move-only; the device memory lives as long as the object.
class dasp_spmv {
public:
    dasp_spmv() = default;

    /// Packs `a` (validated: sorted unique columns) and uploads it on `stream`
    /// (synchronised before returning). `groups_per_warp`: medium groups one
    /// warp handles in turn (>= 1; groups w, w + W, ... of W warps, so the
    /// longest groups, sorted first, go to different warps), or 0 to choose
    /// from the groups' mean size (4 for groups of at most 2 blocks, 2 up to
    /// 4 blocks, else 1).
    explicit dasp_spmv(const sparse::csr& a, const sparse::dasp_options& opts = {}, cudaStream_t stream = nullptr,
                       int groups_per_warp = 0)
    {
        require(groups_per_warp >= 0, "tcore::dasp_spmv", "groups_per_warp must be 0 (automatic) or positive");
        upload(sparse::build_dasp(a, opts), stream, groups_per_warp);
    }
    /// Uploads an already packed matrix.
    explicit dasp_spmv(const sparse::dasp_format& f, cudaStream_t stream = nullptr, int groups_per_warp = 0)
    {
        require(groups_per_warp >= 0, "tcore::dasp_spmv", "groups_per_warp must be 0 (automatic) or positive");
        upload(f, stream, groups_per_warp);
    }
    ~dasp_spmv() { cudaFree(arena_); }
    dasp_spmv(const dasp_spmv&) = delete;
    dasp_spmv& operator=(const dasp_spmv&) = delete;
    dasp_spmv(dasp_spmv&& o) noexcept { swap(o); }
    dasp_spmv& operator=(dasp_spmv&& o) noexcept
    {
        if (this != &o) {
            cudaFree(arena_);
            arena_ = nullptr;
            view_ = {};
            swap(o);
        }
        return *this;
    }

    int rows() const { return view_.rows; }
    int cols() const { return view_.cols; }
    long long nnz() const { return nnz_; }
    /// Device bytes of the packed matrix (all arrays, padding included).
    std::size_t device_bytes() const { return bytes_; }
    /// Stored slots in MMA blocks (padding included) and irregular entries.
    long long block_slots() const { return block_slots_; }
    long long irregular_entries() const { return irregular_; }
    int long_rows() const { return view_.long_count; }
    int medium_groups() const { return view_.group_count; }
    int short_tiles() const { return view_.tile_count; }
    int empty_rows() const { return view_.empty_count; }
    int groups_per_warp() const { return view_.groups_per_warp; }
    int tiles_per_warp() const { return view_.tiles_per_warp; }
    /// Re-plans the launch: medium groups and short tiles one warp handles
    /// in turn (>= 1 each, or 0 for the automatic choice).
    void set_work_per_warp(int groups_per_warp, int tiles_per_warp)
    {
        require(groups_per_warp >= 0 && tiles_per_warp >= 0, "tcore::dasp_spmv::set_work_per_warp",
                "groups_per_warp and tiles_per_warp must be 0 (automatic) or positive");
        plan_grid(groups_per_warp, tiles_per_warp);
    }
    /// Rows per bundle of identical rows (1: no bundles) and bundle groups.
    int bundle() const { return view_.bundle; }
    int bundle_groups() const { return view_.bgroup_count; }
    const dasp_view& view() const { return view_; }

    /// y = A x on `Backend` (tensor_core, cuda_core or spmv_essential) with
    /// `Shape` (f64_m8n8k4, f64_m16n8k8 or f64_m16n8k16; the m16 shapes
    /// need sm_90 for their own instructions and run as m8n8k4 pairs on
    /// sm_80). x: cols() doubles, y: rows() doubles, device memory, 8-byte
    /// aligned, not overlapping. Asynchronous on `stream`. `accumulate`:
    /// y += A x instead (rows without entries keep their y).
    template <class Backend = default_backend, class Shape = f64_m8n8k4>
    void run(const double* x, double* y, cudaStream_t stream = nullptr, bool accumulate = false) const
    {
        static_assert(std::is_same_v<Backend, tensor_core> || std::is_same_v<Backend, cuda_core> ||
                          std::is_same_v<Backend, spmv_essential>,
                      "Backend is tcore::tensor_core, tcore::cuda_core or tcore::spmv_essential");
        static_assert(std::is_same_v<Shape, f64_m8n8k4> || std::is_same_v<Shape, f64_m16n8k8> ||
                          std::is_same_v<Shape, f64_m16n8k16>,
                      "Shape is f64_m8n8k4, f64_m16n8k8 or f64_m16n8k16");
        const char* where = "tcore::dasp_spmv::run";
        require(arena_ != nullptr || view_.rows == 0, where, "the matrix is empty (default-constructed or moved from)");
        if (view_.rows == 0) return;
        if (view_.cols > 0) tcore::require_pointer(x, where, "x");
        tcore::require_pointer(y, where, "y");
        const long long grid = accumulate ? view_.short_end : grid_blocks();  // accumulating skips the empty rows
        if (grid == 0) return;
        const unsigned blocks = static_cast<unsigned>(grid);
        constexpr int th = spmv_detail::threads;
        dasp_view v = view_;
        v.accumulate = accumulate ? 1 : 0;
        switch (view_.bundle) {
        case 1: spmv_detail::dasp_kernel<Backend, Shape, 1><<<blocks, th, 0, stream>>>(v, x, y); break;
        case 2: spmv_detail::dasp_kernel<Backend, Shape, 2><<<blocks, th, 0, stream>>>(v, x, y); break;
        case 3: spmv_detail::dasp_kernel<Backend, Shape, 3><<<blocks, th, 0, stream>>>(v, x, y); break;
        case 4: spmv_detail::dasp_kernel<Backend, Shape, 4><<<blocks, th, 0, stream>>>(v, x, y); break;
        case 8: spmv_detail::dasp_kernel<Backend, Shape, 8><<<blocks, th, 0, stream>>>(v, x, y); break;
        default: require(false, where, "unsupported bundle size " + std::to_string(view_.bundle));
        }
        TCORE_CHECK_LAUNCH();
    }

private:
    void* arena_ = nullptr;
    dasp_view view_;
    long long nnz_ = 0, block_slots_ = 0, irregular_ = 0;
    std::size_t bytes_ = 0;
    double mean_group_blocks_ = 0;  ///< 32-blocks per medium group, on average

    long long grid_blocks() const
    {
        const long long empty_blocks = tcore::ceil_div(view_.empty_count, spmv_detail::threads);
        return view_.short_end + empty_blocks;
    }

    /// The block ranges of the fused kernel for the given work per warp (0: automatic).
    void plan_grid(int groups_per_warp, int tiles_per_warp)
    {
        dasp_view& v = view_;
        if (groups_per_warp == 0) groups_per_warp = mean_group_blocks_ <= 2 ? 4 : mean_group_blocks_ <= 4 ? 2 : 1;
        if (tiles_per_warp == 0) tiles_per_warp = 1;
        v.groups_per_warp = groups_per_warp;
        v.med_warps = static_cast<int>(tcore::ceil_div(v.group_count, groups_per_warp));
        v.tiles_per_warp = tiles_per_warp;
        v.short_warps = static_cast<int>(tcore::ceil_div(v.tile_count, tiles_per_warp));
        const long long long_blocks = tcore::ceil_div(v.piece_count, spmv_detail::warps);
        const long long bun_blocks = tcore::ceil_div(v.bgroup_count, spmv_detail::warps);
        const long long med_blocks = tcore::ceil_div(v.med_warps, spmv_detail::warps);
        const long long short_blocks = tcore::ceil_div(v.short_warps, spmv_detail::warps);
        const long long empty_blocks = tcore::ceil_div(v.empty_count, spmv_detail::threads);
        require(long_blocks + bun_blocks + med_blocks + short_blocks + empty_blocks < (1LL << 31), "tcore::dasp_spmv",
                "the matrix needs more than 2^31 - 1 thread blocks");
        v.long_end = static_cast<int>(long_blocks);
        v.bun_end = static_cast<int>(long_blocks + bun_blocks);
        v.med_end = static_cast<int>(long_blocks + bun_blocks + med_blocks);
        v.short_end = static_cast<int>(long_blocks + bun_blocks + med_blocks + short_blocks);
    }

    void swap(dasp_spmv& o) noexcept
    {
        std::swap(arena_, o.arena_);
        std::swap(view_, o.view_);
        std::swap(nnz_, o.nnz_);
        std::swap(block_slots_, o.block_slots_);
        std::swap(irregular_, o.irregular_);
        std::swap(bytes_, o.bytes_);
        std::swap(mean_group_blocks_, o.mean_group_blocks_);
    }

    void upload(const sparse::dasp_format& f, cudaStream_t stream, int groups_per_warp)
    {
        // One allocation; every array starts on a 256-byte boundary.
        struct part {
            const void* src;
            std::size_t bytes;
            std::size_t offset;
        };
        std::vector<part> parts;
        std::size_t total = 0;
        auto add = [&](const void* src, std::size_t bytes) {
            parts.push_back({src, bytes, total});
            total += (bytes + 255) / 256 * 256;
            return parts.size() - 1;
        };
        auto add_vec = [&](const auto& v) { return add(v.data(), v.size() * sizeof(v[0])); };
        const std::size_t i_long_rows = add_vec(f.long_rows), i_piece_ptr = add_vec(f.long_piece_ptr),
                          i_piece_row = add_vec(f.piece_row), i_long_val = add_vec(f.long_val),
                          i_long_col = add_vec(f.long_col),
                          i_partial = add(nullptr, f.piece_row.size() * sizeof(double)),
                          i_counter = add(nullptr, f.long_rows.size() * sizeof(unsigned)),
                          i_med_rows = add_vec(f.med_rows), i_group_ptr = add_vec(f.group_ptr),
                          i_reg_val = add_vec(f.reg_val), i_reg_col = add_vec(f.reg_col),
                          i_irr_ptr = add_vec(f.irr_ptr), i_irr_val = add_vec(f.irr_val),
                          i_irr_col = add_vec(f.irr_col), i_tile_mask = add_vec(f.tile_mask),
                          i_tile_row_ptr = add_vec(f.tile_row_ptr), i_short_rows = add_vec(f.short_rows),
                          i_short_val = add_vec(f.short_val), i_short_col = add_vec(f.short_col),
                          i_empty = add_vec(f.empty_rows), i_bun_rows = add_vec(f.bun_rows),
                          i_bgroup_ptr = add_vec(f.bgroup_ptr), i_bun_col = add_vec(f.bun_col),
                          i_bun_val = add_vec(f.bun_val), i_birr_ptr = add_vec(f.birr_ptr),
                          i_birr_val = add_vec(f.birr_val), i_birr_col = add_vec(f.birr_col);
        if (total > 0) TCORE_CHECK(cudaMalloc(&arena_, total));
        char* base = static_cast<char*>(arena_);
        for (const part& p : parts)
            if (p.bytes > 0) {
                if (p.src)
                    TCORE_CHECK(cudaMemcpyAsync(base + p.offset, p.src, p.bytes, cudaMemcpyHostToDevice, stream));
                else
                    TCORE_CHECK(cudaMemsetAsync(base + p.offset, 0, p.bytes, stream));
            }
        TCORE_CHECK(cudaStreamSynchronize(stream));  // the host vectors may go away after this
        auto at = [&](std::size_t i) -> void* { return parts[i].bytes ? base + parts[i].offset : nullptr; };
        dasp_view& v = view_;
        v.rows = f.rows;
        v.cols = f.cols;
        v.long_count = f.long_count();
        v.piece_count = f.piece_count();
        v.long_piece = f.opts.long_piece;
        v.long_rows = static_cast<const int*>(at(i_long_rows));
        v.long_piece_ptr = static_cast<const int*>(at(i_piece_ptr));
        v.piece_row = static_cast<const int*>(at(i_piece_row));
        v.long_val = static_cast<const double*>(at(i_long_val));
        v.long_col = static_cast<const int*>(at(i_long_col));
        v.partial = static_cast<double*>(at(i_partial));
        v.counter = static_cast<unsigned*>(at(i_counter));
        v.group_count = f.group_count();
        v.med_rows = static_cast<const int*>(at(i_med_rows));
        v.group_ptr = static_cast<const int*>(at(i_group_ptr));
        v.reg_val = static_cast<const double*>(at(i_reg_val));
        v.reg_col = static_cast<const int*>(at(i_reg_col));
        v.irr_ptr = static_cast<const int*>(at(i_irr_ptr));
        v.irr_val = static_cast<const double*>(at(i_irr_val));
        v.irr_col = static_cast<const int*>(at(i_irr_col));
        v.tile_count = f.tile_count();
        v.tile_mask = static_cast<const unsigned*>(at(i_tile_mask));
        v.tile_row_ptr = static_cast<const int*>(at(i_tile_row_ptr));
        v.short_rows = static_cast<const int*>(at(i_short_rows));
        v.short_val = static_cast<const double*>(at(i_short_val));
        v.short_col = static_cast<const int*>(at(i_short_col));
        v.empty_count = static_cast<int>(f.empty_rows.size());
        v.empty_rows = static_cast<const int*>(at(i_empty));
        require(sparse::valid_bundle(f.bundle), "tcore::dasp_spmv", "unsupported bundle size " + std::to_string(f.bundle));
        v.bundle = f.bundle;
        v.bgroup_count = std::max(0, f.bundle_group_count());
        v.bun_rows = static_cast<const int*>(at(i_bun_rows));
        v.bgroup_ptr = static_cast<const int*>(at(i_bgroup_ptr));
        v.bun_col = static_cast<const int*>(at(i_bun_col));
        v.bun_val = static_cast<const double*>(at(i_bun_val));
        v.birr_ptr = static_cast<const int*>(at(i_birr_ptr));
        v.birr_val = static_cast<const double*>(at(i_birr_val));
        v.birr_col = static_cast<const int*>(at(i_birr_col));
        mean_group_blocks_ = f.group_count() ? static_cast<double>(f.reg_val.size()) / 32.0 / f.group_count() : 0;
        plan_grid(groups_per_warp, 0);
        nnz_ = f.nnz;
        block_slots_ = f.block_slots();
        irregular_ = static_cast<long long>(f.irr_val.size() + f.birr_val.size());
        bytes_ = static_cast<std::size_t>(f.bytes());
    }
};

/// y = A x with A's columns cut into `panels` equal ranges, each packed as
/// its own dasp_spmv: the first writes y, the others add to it, in panel
/// order (deterministic). Where x outgrows L2 and the columns of a row are
/// scattered (power-law rows: random columns), most x gathers of a single
/// pass miss L2 and read a 32-byte sector from DRAM for 8 useful bytes; a
/// panel's share of x stays in L2 while its gathers run, at the price of
/// reading and writing y once more per panel after the first. Panels of
/// about half the L2 size suit such matrices; banded or blocked ones, whose
/// gathers already hit, only pay the extra y traffic.
class dasp_spmv_panels {
public:
    dasp_spmv_panels() = default;
    /// Packs each column panel of `a` (validated as by dasp_spmv) with `opts`.
    dasp_spmv_panels(const sparse::csr& a, int panels, const sparse::dasp_options& opts = {},
                     cudaStream_t stream = nullptr)
    {
        const char* where = "tcore::dasp_spmv_panels";
        require(panels >= 1, where, "panels must be at least 1, got " + std::to_string(panels));
        sparse::validate(a, where, true);
        const int p_count = std::max(1, std::min(panels, a.cols));
        for (int p = 0; p < p_count; ++p) {
            const int c0 = static_cast<int>(static_cast<long long>(a.cols) * p / p_count);
            const int c1 = static_cast<int>(static_cast<long long>(a.cols) * (p + 1) / p_count);
            panels_.emplace_back(sparse::column_range(a, c0, c1), opts, stream);
        }
    }

    int panels() const { return static_cast<int>(panels_.size()); }
    const dasp_spmv& panel(int p) const { return panels_.at(static_cast<std::size_t>(p)); }
    /// Device bytes of all panels.
    std::size_t device_bytes() const
    {
        std::size_t b = 0;
        for (const dasp_spmv& s : panels_) b += s.device_bytes();
        return b;
    }

    /// y = A x panel by panel (see dasp_spmv::run for Backend, Shape, x and y).
    template <class Backend = default_backend, class Shape = f64_m8n8k4>
    void run(const double* x, double* y, cudaStream_t stream = nullptr) const
    {
        require(!panels_.empty(), "tcore::dasp_spmv_panels::run", "no panels (default-constructed)");
        for (std::size_t p = 0; p < panels_.size(); ++p) panels_[p].run<Backend, Shape>(x, y, stream, p > 0);
    }

private:
    std::vector<dasp_spmv> panels_;
};

}  // namespace tcore
