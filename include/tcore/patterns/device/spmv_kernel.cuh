// tcore/patterns/device/spmv_kernel.cuh - the fused DASP SpMV kernel
// (detail::dasp_kernel) and its per-warp routines over the device copy of a
// packed matrix (dasp_view), composed of the building blocks of
// patterns/spmv.cuh. Launched by dasp_spmv (patterns/device/spmv.cuh).
//
// One fused kernel handles all row classes of tcore/sparse/dasp.hpp (block
// ranges: long pieces, bundle groups, medium groups, short tiles, empty
// rows): one launch, 128 threads (4 warps) a block, one task per warp.
// Long rows: each warp sums one piece; the last warp to finish a row
// (atomic counter, reset by that warp for the next launch) adds the piece
// sums in piece order, so results are deterministic. y gets every row
// written once, so it needs no initialisation; dasp_view::accumulate = 1
// adds A x to y instead (dasp_spmv_panels: the first panel writes y, the
// others add).
// Bundles (dasp_options::bundle = P > 1): P identical rows share a column
// index and an x gather; f64_m16n8k4 puts two of them in A rows g and g + 8
// against the same B column (ceil(P/2) MMAs per block, B loaded once), so
// D(g, g) and D(g + 8, g) are both results. Index traffic per value falls
// from 4 to 4/P bytes.
// Backend: tensor_core or cuda_core (the MMAs, in the routines' bodies), or a
// row-block policy (interface: patterns/device/spmv.cuh), whose add and
// product take the MMAs' place; everything else (loads, irregular entries,
// quad and warp sums, stores) is the same code for every mode.
#pragma once

#include "../spmv.cuh"

namespace tcore {

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

namespace detail {

inline constexpr int spmv_threads = 128;  ///< 4 warps per block
inline constexpr int spmv_warps = spmv_threads / 32;

/// Writes one result: y[row] = v, or y[row] += v in accumulate mode.
__device__ __forceinline__ void spmv_store_y(const dasp_view& m, double* __restrict__ y, int row, double v)
{
    y[row] = m.accumulate ? y[row] + v : v;
}

/// One piece of a long row per warp; the row's last warp writes y.
template <class Backend, class Shape>
__device__ void spmv_long_piece(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y, int piece,
                                int lane)
{
    frag_c<Shape> acc;
    fill(acc, 0.0);
    double ess = 0.0;
    spmv_accumulate<Backend, Shape>(acc, ess, m.long_val, m.long_col, static_cast<long long>(piece) * m.long_piece, 0,
                                 m.long_piece / 32, x, lane);
    double sum;
    if constexpr (is_backend_v<Backend>) sum = spmv_warp_sum(diag_of(acc, lane));
    else sum = spmv_warp_sum(ess);
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
    total = spmv_warp_sum(total);
    if (lane == 0) {
        spmv_store_y(m, y, m.long_rows[lr], total);
        m.counter[lr] = 0u;  // ready for the next launch
    }
}

/// Where a lane's part of one medium group lies: loads that depend on no
/// other load, issued for the next group while the current one runs.
struct spmv_medium_refs {
    int base = 0, nblk = 0;  ///< the group's regular slots: blocks from `base`
    int p0 = 0, p1 = 0;      ///< the lane's irregular entries p0, p0 + 4, ... < p1
    int row = -1;            ///< the lane's output row (-1: padding)
};

__device__ __forceinline__ spmv_medium_refs spmv_medium_refs_of(const dasp_view& m, int group, int lane)
{
    const int sr = 8 * group + (lane >> 2);
    spmv_medium_refs r;
    r.base = m.group_ptr[group];
    r.nblk = (m.group_ptr[group + 1] - r.base) >> 5;
    r.p0 = m.irr_ptr[sr] + (lane & 3);
    r.p1 = m.irr_ptr[sr + 1];  // at most dasp_options::irregular_cap entries
    r.row = m.med_rows[sr];
    return r;
}

/// The lane's first irregular entry of a medium group: value and column
/// (0 and -1 where it has none).
__device__ __forceinline__ void spmv_first_irregular(const dasp_view& m, const spmv_medium_refs& r, double& v, int& c)
{
    const bool has_irr = r.p0 < r.p1;
    v = has_irr ? __ldcs(m.irr_val + r.p0) : 0.0;
    c = has_irr ? __ldcs(m.irr_col + r.p0) : -1;
}

/// The rest of a medium group once its first step is in `acc` (MMA
/// backends) or `s` (a policy), with its first irregular entry in `s`:
/// blocks from `from_block` on, the lane's other irregular entries, the
/// quad sum and the row's store.
template <class Backend, class Shape>
__device__ __forceinline__ void spmv_medium_finish(const dasp_view& m, const double* __restrict__ x,
                                                   double* __restrict__ y, const spmv_medium_refs& r,
                                                   frag_c<Shape>& acc, double s, int from_block, int lane)
{
    spmv_accumulate<Backend, Shape>(acc, s, m.reg_val, m.reg_col, r.base, from_block, r.nblk, x, lane);
#pragma unroll 4
    for (int p = r.p0 + 4; p < r.p1; p += 4) s = fma(__ldcs(m.irr_val + p), __ldg(x + __ldcs(m.irr_col + p)), s);
    s = spmv_quad_sum(s);
    if (holds_diag(lane)) {
        if constexpr (is_backend_v<Backend>) s += diag_of(acc, lane);
        if (r.row >= 0) spmv_store_y(m, y, r.row, s);
    }
}

/// One group of 8 medium rows: regular blocks on `Backend`, the irregular
/// remainder on CUDA cores (4 lanes per row), then one store per row. The
/// lane's first irregular entry (of at most irregular_cap / 4; usually 0 or
/// 1) is loaded with the first step of blocks and its x gathered with
/// theirs, so with its refs loaded ahead a group of up to one step and one
/// irregular entry per lane costs two dependent round trips (values and
/// columns, then x), not the six of a straight-line order. The first step
/// is N blocks (spmv_medium_step picks it from the group's block count), the
/// rest go spmv_step_blocks at a time.
template <class Backend, class Shape, int N>
__device__ void spmv_medium_group(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y,
                                  const spmv_medium_refs& r, int lane)
{
    spmv_step<N> first;
    spmv_load_step(first, m.reg_val, m.reg_col, r.base, 0, r.nblk, lane);
    double irr_v;
    int irr_c;
    spmv_first_irregular(m, r, irr_v, irr_c);
    frag_c<Shape> acc;
    fill(acc, 0.0);
    double s = 0.0;
    spmv_use_step<Backend, Shape>(acc, s, first, x, irr_v, irr_c);
    spmv_medium_finish<Backend, Shape>(m, x, y, r, acc, s, N, lane);
}

/// A medium group with its first step no longer than it needs: groups of a
/// few blocks (rows of 4-11 entries: 1 or 2 blocks) would otherwise load,
/// gather and multiply a whole spmv_step_blocks step of padding. Steps of
/// whole MMAs (Shape::k / 4 blocks) up to spmv_step_blocks; a policy's
/// step as it is. (Built only into the FitSteps kernels: in the others the
/// extra paths cost registers and time on groups of 4+ blocks.)
template <class Backend, class Shape>
__device__ __forceinline__ void spmv_medium_step(const dasp_view& m, const double* __restrict__ x,
                                                 double* __restrict__ y, const spmv_medium_refs& r, int lane)
{
    constexpr int n = spmv_step_blocks<Backend, Shape>;
    constexpr int whole = is_backend_v<Backend> ? Shape::k / 4 : n;  // blocks of one MMA
    if constexpr (whole < n) {
        if (r.nblk <= whole) return spmv_medium_group<Backend, Shape, whole>(m, x, y, r, lane);
        if constexpr (2 * whole < n)
            if (r.nblk <= 2 * whole) return spmv_medium_group<Backend, Shape, 2 * whole>(m, x, y, r, lane);
    }
    spmv_medium_group<Backend, Shape, n>(m, x, y, r, lane);
}

/// Two medium groups in lockstep (FitSteps kernels): both groups' first
/// steps of N = 2 MMAs' blocks and first irregular entries are loaded, then
/// both x gathers issued, then both groups' MMAs, so a warp keeps two
/// groups' loads in flight where spmv_medium_group keeps one. Blocks past
/// the first step and irregular entries past the first follow group by
/// group. r1 may be a default spmv_medium_refs (no group: nothing loaded or
/// stored).
template <class Backend, class Shape>
__device__ void spmv_medium_pair(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y,
                                 const spmv_medium_refs& r0, const spmv_medium_refs& r1, int lane)
{
    static_assert(is_backend_v<Backend>, "pairs run on tensor_core or cuda_core");
    constexpr int N = 2 * Shape::k / 4;
    const spmv_medium_refs* r[2] = {&r0, &r1};
    spmv_step<N> st[2];
    double irr_v[2];
    int irr_c[2];
#pragma unroll
    for (int q = 0; q < 2; ++q) {
        spmv_load_step(st[q], m.reg_val, m.reg_col, r[q]->base, 0, r[q]->nblk, lane);
        spmv_first_irregular(m, *r[q], irr_v[q], irr_c[q]);
    }
    double xv[2][N], irr_x[2];
#pragma unroll
    for (int q = 0; q < 2; ++q) {
        spmv_gather_step(xv[q], st[q], x);
        irr_x[q] = irr_c[q] >= 0 ? __ldg(x + irr_c[q]) : 0.0;
    }
    frag_c<Shape> acc[2];
    double s[2];
#pragma unroll
    for (int q = 0; q < 2; ++q) {
        fill(acc[q], 0.0);
        s[q] = irr_v[q] * irr_x[q];
        spmv_multiply_step<Backend, Shape>(acc[q], s[q], st[q], xv[q]);
    }
#pragma unroll
    for (int q = 0; q < 2; ++q) spmv_medium_finish<Backend, Shape>(m, x, y, *r[q], acc[q], s[q], N, lane);
}

/// A short tile's loads that depend on no other: the lane's slot, the
/// tile's segment mask and its first output row.
struct spmv_short_head {
    double v = 0.0;
    int c = -1;
    unsigned mask = 0u;
    int row0 = 0;
};

__device__ __forceinline__ spmv_short_head spmv_short_head_of(const dasp_view& m, int tile, int lane)
{
    const long long slot = 32LL * tile + lane;
    return {__ldcs(m.short_val + slot), __ldcs(m.short_col + slot), m.tile_mask[tile], m.tile_row_ptr[tile]};
}

/// MMAs (or quad sums) a short tile needs: the most segments of any of its
/// 8 lines (the lines' counts `nseg`, one per quad). Warp-collective.
__device__ __forceinline__ int spmv_short_most(int nseg)
{
    int most = nseg;
    most = max(most, __shfl_xor_sync(0xffffffffu, most, 4));
    most = max(most, __shfl_xor_sync(0xffffffffu, most, 8));
    return max(most, __shfl_xor_sync(0xffffffffu, most, 16));
}

/// A lane's segment in its short line, the line's segment count and (on
/// the lanes that hold D's diagonal) the line's output rows, -1 past them.
struct spmv_short_rows {
    int seg, nseg;
    int rows[4];
};

__device__ __forceinline__ spmv_short_rows spmv_short_rows_of(const dasp_view& m, const spmv_short_head& h, int lane)
{
    const spmv_short_lane info = spmv_short_lane_info(h.mask, lane);
    spmv_short_rows r;
    r.seg = info.seg;
    r.nseg = info.nseg;
    const int out = h.row0 + info.out;
    const bool writer = holds_diag(lane);
#pragma unroll
    for (int j = 0; j < 4; ++j) r.rows[j] = writer && j < r.nseg ? m.short_rows[out + j] : -1;
    return r;
}

/// A short tile's MMAs on an MMA backend, one per segment position j with
/// B masked to segment j (D_j(g, g) is row j of line g), and their stores.
template <class Backend, class S>
__device__ __forceinline__ void spmv_short_mmas(const dasp_view& m, double* __restrict__ y, double v, double xv,
                                                const spmv_short_rows& r, int lane)
{
    const int most = spmv_short_most(r.nseg);
    frag_a<S> a;
    double vs[1] = {v};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        if (j >= most) break;
        frag_b<S> b;
        double xs[1] = {r.seg == j ? xv : 0.0};
        diag_operands<S>(a, b, vs, xs);
        frag_c<S> d;
        fill(d, 0.0);
        mma<Backend>(d, a, b, d);
        if (r.rows[j] >= 0) spmv_store_y(m, y, r.rows[j], diag_of(d, lane));
    }
}

/// One short tile: up to 4 MMAs (one per segment position), B masked to
/// the segment; D_j(g, g) is row j of line g. A policy: the lane's product,
/// quad sums masked to each segment.
template <class Backend, class Shape>
__device__ void spmv_short_tile(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y, int tile,
                                int lane)
{
    using S = spmv_short_shape_t<Shape>;
    const spmv_short_head h = spmv_short_head_of(m, tile, lane);
    const double v = h.v;
    const int c = h.c;
    if constexpr (is_backend_v<Backend>) {
        // The line's output rows (at most 4) are loaded beside the x gather,
        // not after the products: one round trip a tile fewer.
        const spmv_short_rows r = spmv_short_rows_of(m, h, lane);
        const double xv = c >= 0 ? __ldg(x + c) : 0.0;
        spmv_short_mmas<Backend, S>(m, y, v, xv, r, lane);
    } else {
        // (A policy keeps the rows' loads after its quad sums: ahead, they
        // made the plain CUDA-core opponent 1-2% slower on power_law.)
        const double xv = c >= 0 ? __ldg(x + c) : 0.0;
        const spmv_short_lane info = spmv_short_lane_info(h.mask, lane);
        const int seg = info.seg, nseg = info.nseg;
        const int most = spmv_short_most(nseg);
        const int out = h.row0 + info.out;
        const bool writer = holds_diag(lane);
        const double p = Backend::product(v, xv);
        for (int j = 0; j < most; ++j) {
            const double s = spmv_quad_sum(seg == j ? p : 0.0);
            if (writer && j < nseg) spmv_store_y(m, y, m.short_rows[out + j], s);
        }
    }
}

/// Two short tiles in lockstep (MMA backends): both heads, then both tiles'
/// output rows and x gathers, then each tile's MMAs and stores, so a warp
/// keeps two tiles' loads in flight. t1 < 0: none.
template <class Backend, class Shape>
__device__ void spmv_short_pair(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y, int t0,
                                int t1, int lane)
{
    static_assert(is_backend_v<Backend>, "pairs run on tensor_core or cuda_core");
    using S = spmv_short_shape_t<Shape>;
    spmv_short_head h[2];
    h[0] = spmv_short_head_of(m, t0, lane);
    if (t1 >= 0) h[1] = spmv_short_head_of(m, t1, lane);
    spmv_short_rows r[2];
    double xv[2];
#pragma unroll
    for (int q = 0; q < 2; ++q) r[q] = spmv_short_rows_of(m, h[q], lane);
#pragma unroll
    for (int q = 0; q < 2; ++q) xv[q] = h[q].c >= 0 ? __ldg(x + h[q].c) : 0.0;
#pragma unroll
    for (int q = 0; q < 2; ++q) spmv_short_mmas<Backend, S>(m, y, h[q].v, xv[q], r[q], lane);
}

/// One group of 8 bundles of P identical rows: per 32-block one column
/// index and one x gather per lane, ceil(P / 2) m16n8k4 MMAs (B shared);
/// a policy adds each row's products into its own `ess`.
template <class Backend, int P>
__device__ void spmv_bundle_group(const dasp_view& m, const double* __restrict__ x, double* __restrict__ y, int group,
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
            if constexpr (is_backend_v<Backend>) {
                frag_b<S> b;
                b.x[0] = xv[j];
#pragma unroll
                for (int q = 0; q < Q; ++q) mma<Backend>(acc[q], spmv_bundle_a<P>(v[j], q), b, acc[q]);
            } else {
#pragma unroll
                for (int p = 0; p < P; ++p) ess[p] = Backend::add(ess[p], v[j][p], xv[j]);
            }
        }
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const int row_index = (8 * group + g) * P + p;
        double s = is_backend_v<Backend> ? 0.0 : ess[p];
        const int k1 = m.birr_ptr[row_index + 1];
        for (int k = m.birr_ptr[row_index] + t; k < k1; k += 4)
            s = fma(__ldcs(m.birr_val + k), __ldg(x + __ldcs(m.birr_col + k)), s);
        s = spmv_quad_sum(s);
        if (holds_diag(lane)) {
            if constexpr (is_backend_v<Backend>) s += spmv_bundle_diag(acc[p / 2], (p & 1) != 0, lane);
            const int row = m.bun_rows[row_index];
            if (row >= 0) spmv_store_y(m, y, row, s);
        }
    }
}

/// Blocks per SM the tensor-core kernels of the m16 shapes are built for (at
/// most 64 registers; unbounded they take 72 and lose a block per SM): the
/// groups' load latency is hidden by warps in flight. 0 = no bound: m8n8k4
/// and the CUDA-core modes (cuda_core, policies) are left to ptxas, which
/// gives them fewer registers unbounded than under a bound of 8 (40-48, not
/// 64), and a bound of 16 (32 registers) spills or, for the DMMA of the
/// bundles, fails.
template <class Backend, class Shape>
inline constexpr int spmv_min_blocks = std::is_same_v<Backend, tensor_core> && Shape::k >= 8 ? 8 : 0;

/// FitSteps: 1, medium groups start with a step fitted to their block count
/// (spmv_medium_step), for matrices whose groups are mostly 1 or 2 blocks
/// (dasp_spmv::fitted_steps); 2, the same two groups at a time
/// (spmv_medium_pair, dasp_spmv::group_pairs); 0, every group starts with a
/// whole spmv_step_blocks step. ShortPairs: short tiles two at a time
/// (spmv_short_pair, dasp_spmv::short_pairs).
template <class Backend, class Shape, int P, int FitSteps = 0, bool ShortPairs = false>
__global__ void __launch_bounds__(spmv_threads, (spmv_min_blocks<Backend, Shape>))
    dasp_kernel(dasp_view m, const double* __restrict__ x, double* __restrict__ y)
{
    const int block = static_cast<int>(blockIdx.x);
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    if (block < m.long_end) {
        const int piece = block * spmv_warps + warp;
        if (piece < m.piece_count) spmv_long_piece<Backend, Shape>(m, x, y, piece, lane);
    } else if (block < m.bun_end) {
        if constexpr (P > 1) {
            const int group = (block - m.long_end) * spmv_warps + warp;
            if (group < m.bgroup_count) spmv_bundle_group<Backend, P>(m, x, y, group, lane);
        }
    } else if (block < m.med_end) {
        // Groups w, w + med_warps, ...: the longest groups (sorted first) go
        // to different warps, each paired with short ones from further on.
        // (The range's last block may hold warps past med_warps: they idle,
        // or they would repeat their neighbours' groups.)
        const int first = (block - m.bun_end) * spmv_warps + warp;
        const int end = first < m.med_warps ? m.group_count : 0;
        if constexpr (FitSteps == 2) {
            for (int group = first; group < end; group += 2 * m.med_warps) {
                const int other = group + m.med_warps;
                spmv_medium_refs r1;
                if (other < end) r1 = spmv_medium_refs_of(m, other, lane);
                spmv_medium_pair<Backend, Shape>(m, x, y, spmv_medium_refs_of(m, group, lane), r1, lane);
            }
        } else {
            spmv_medium_refs next;
            if (first < end) next = spmv_medium_refs_of(m, first, lane);
            for (int group = first; group < end; group += m.med_warps) {
                const spmv_medium_refs cur = next;
                if (group + m.med_warps < end) next = spmv_medium_refs_of(m, group + m.med_warps, lane);
                if constexpr (FitSteps == 1) spmv_medium_step<Backend, Shape>(m, x, y, cur, lane);
                else spmv_medium_group<Backend, Shape, spmv_step_blocks<Backend, Shape>>(m, x, y, cur, lane);
            }
        }
    } else if (block < m.short_end) {
        const int first = (block - m.med_end) * spmv_warps + warp;
        if (first < m.short_warps) {
            if constexpr (ShortPairs) {
                for (int tile = first; tile < m.tile_count; tile += 2 * m.short_warps) {
                    const int other = tile + m.short_warps;
                    spmv_short_pair<Backend, Shape>(m, x, y, tile, other < m.tile_count ? other : -1, lane);
                }
            } else {
                for (int tile = first; tile < m.tile_count; tile += m.short_warps)
                    spmv_short_tile<Backend, Shape>(m, x, y, tile, lane);
            }
        }
    } else {
        const int i = (block - m.short_end) * spmv_threads + static_cast<int>(threadIdx.x);
        if (i < m.empty_count && !m.accumulate) y[m.empty_rows[i]] = 0.0;
    }
}

}  // namespace detail

}  // namespace tcore
