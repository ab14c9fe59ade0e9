// tcore/patterns/scan.cuh - prefix sums by MMA against constant triangular
// and all-ones matrices (Quadrant II: partial input, full output): the warp
// and block building blocks. The device-wide and segmented launchers are in
// patterns/device/scan.cuh.
//
// After Dakkak et al., "Accelerating reduction and scan using tensor core
// units" (ICS'19): a tile is scanned by three products with constants. Here
// a tile is 128 consecutive elements held as the B operand X (16 x 8, column
// c = elements 16c..16c+15, column-major), and
//
//   P = L X  +  (1 X) U            (FP64: three MMAs, m16n8k16, m16n8k16, m16n8k8)
//
//   L (16x16, A): lower triangular, L(r, k) = 1 if k <= r (exclusive: k < r)
//                 -> L X is the prefix sum down each column;
//   1 (16x16, A): all ones -> 1 X holds the 8 column totals in every row;
//   U (8x8, B):   strictly upper triangular, U(c', c) = 1 if c' < c (within
//                 segments of SegCols columns) -> (1 X) U adds the totals of
//                 the columns before c.
//
// How a lane builds its share (lane maps + relabelling, infra/constants.cuh):
//   X: B slot s of column g stands for memory row slot_row(s), so a lane's
//      registers are adjacent in memory (FP64: rows 2t,2t+1 | 8+2t,9+2t of
//      column g, two 16-byte loads; FP16: rows 4t..4t+3, one 8-byte load).
//   L: a_i = [slot_row(k) <= out_row(r)] at (r, k) = a_coord(lane, i), the same
//      relabelling on k as X, and D row r standing for memory row out_row(r)
//      (2g, 2g+1 for rows g, g+8), so c0/c2 and c1/c3 are adjacent outputs.
//   1: a_i = 1.
//   U: (1 X) is reused as the A of an m16n8k8 with k relabelled (frag/reuse.cuh:
//      a = {D[0], D[2], D[1], D[3]}, slot t + 4j stands for column 2t + j,
//      scan_carry_col), so b_j = U(2t + j, g): lane (g,t) holds U rows 2t,
//      2t+1 of column g.
// FP16 input, FP32 accumulation (f16_m16n8k16_f32acc): 1 X arrives in FP32
// and would have to be rounded to FP16 to be an A operand, so the column
// carries are an FP32 scan over the 4 lanes of a quad (2 shuffles) instead
// of the third product.
// Inf and NaN: the constants' zeros would spread them backwards (0 * Inf =
// NaN), so the MMAs see them as zero and a tile holding one is patched from
// warp ballots (warp_scan::scan); outputs follow sequential IEEE addition.
//
// Provides
//   tile:  scan_tile (128), scan_per_lane (4), scan_carry_col;
//          scan_load<Scanner, Vec> / scan_store<Scanner, Vec> (a lane's 4
//          inputs / outputs of a tile, at Scanner::in_pos / out_pos)
//   warp:  warp_scan<Backend, Shape, Exclusive, SegCols> (one tile:
//          scan(out, v), total(out, v)); shfl_inclusive(x, width),
//          shfl_exclusive_of(inclusive, width): one value per lane scanned
//          over groups of lanes with shuffles (Kogge-Stone)
//   block: block_scan<Scanner, BlockThreads>(sc, in, out, count, carry, smem)
// The plain CUDA-core opponent (cce) is the benchmark's, not the kit's:
// examples/scan/scan_cce.cuh (a warp scan of the same interface as
// warp_scan, run by the device-wide launchers through scan_with).
//
// Preconditions
//   Shape: f64_m16n8k16 (double -> double) or f16_m16n8k16_f32acc (__half ->
//          float); static_assert: an m16n8k16 shape. SegCols 8 (one scan of
//          128) or 4 (two independent scans of 64).
//   warp:  warp-collective: all 32 lanes, converged, call every member
//          together (mma.sync, ballots and shuffles with a full mask; not
//          checked). 4 inputs per lane at in_pos(lane, i), 4 outputs at
//          out_pos(lane, i) (they differ for warp_scan). Construct the
//          scanner once per warp (FP64 holds 18 doubles of constants).
//   loads: scan_load / scan_store: positions >= valid read as zero / are not
//          written (a partial tile); Vec = true groups in_group / out_group
//          consecutive elements per access, so `tile` must be aligned to
//          in_group * sizeof(in_type) / out_group * sizeof(sum_type) (not
//          checked); Vec = false needs element alignment only. Any memory.
//   block: 1-D block of exactly BlockThreads threads (require_block_threads,
//          debug builds only), a multiple of 32 and <= 1024 (static_assert);
//          every thread calls it (it holds __syncthreads); count <=
//          BlockThreads/32 * 128 (not checked); smem: BlockThreads/32 sums
//          in shared memory, reusable at once after the call.
#pragma once

#include "../backend.cuh"
#include "../check.cuh"
#include "../frag/f16_m16n8k16.cuh"
#include "../frag/f64_m16n8k16.cuh"
#include "../frag/f64_m16n8k8.cuh"
#include "../frag/reuse.cuh"
#include "../infra/constants.cuh"
#include "../infra/launch.cuh"

#include <cstring>
#include <type_traits>

namespace tcore {

inline constexpr int scan_tile = 128;      ///< elements per warp tile
inline constexpr int scan_per_lane = 4;    ///< values per lane per tile

/// Column of the 16 x 8 accumulator that k slot s of the relabelled
/// m16n8k8 A stands for (frag/reuse.cuh: slot t + 4j -> column 2t + j): a B
/// multiplying the reused column totals (1 X) must hold at its slot s the
/// row of column scan_carry_col(s), as warp_scan's U does.
__host__ __device__ constexpr int scan_carry_col(int s) { return 2 * (s & 3) + (s >> 2); }

namespace detail {

__device__ inline bool is_finite(double v) { return fabs(v) < __longlong_as_double(0x7ff0000000000000LL); }
__device__ inline bool is_finite(__half v) { return !__hisinf(v) && !__hisnan(v); }

/// 0 finite, 1 +Inf, 2 -Inf, 3 NaN.
__device__ inline int special_kind(double v)
{
    return isnan(v) ? 3 : isinf(v) ? (v > 0 ? 1 : 2) : 0;
}
__device__ inline int special_kind(__half v)
{
    return __hisnan(v) ? 3 : __hisinf(v) == 1 ? 1 : __hisinf(v) == -1 ? 2 : 0;
}

/// Index of the lowest set bit of m (m != 0).
__host__ __device__ inline int lowest_bit(unsigned m)
{
#if defined(__CUDA_ARCH__)
    return __ffs(static_cast<int>(m)) - 1;
#else
    return __builtin_ctz(m);
#endif
}

/// A 128-bit set of tile positions (two words, never indexed at run time,
/// so it stays in registers).
struct position_set {
    unsigned long long lo = 0, hi = 0;

    __host__ __device__ void add(int p)
    {
        if (p < 64) lo |= 1ull << p;
        else hi |= 1ull << (p - 64);
    }
    /// True if any position first..last (inclusive; none if last < first) is in the set.
    __host__ __device__ bool any_in(int first, int last) const
    {
        return any_in_word(lo, first, last) || any_in_word(hi, first - 64, last - 64);
    }

private:
    __host__ __device__ static bool any_in_word(unsigned long long w, int first, int last)
    {
        first = first < 0 ? 0 : first;
        last = last > 63 ? 63 : last;
        if (first > last) return false;
        const int width = last - first + 1;
        const unsigned long long bits = w >> first;
        return (width == 64 ? bits : bits & ((1ull << width) - 1)) != 0;
    }
};

/// +Inf (1), -Inf (2) or a quiet NaN (3).
template <class S>
__host__ __device__ inline S special_value(int kind)
{
    S r;
    if constexpr (std::is_same_v<S, double>) {
        const unsigned long long bits = kind == 3 ? 0x7ff8000000000000ull : kind == 1 ? 0x7ff0000000000000ull
                                                                                   : 0xfff0000000000000ull;
        memcpy(&r, &bits, sizeof r);
    } else {
        const unsigned bits = kind == 3 ? 0x7fc00000u : kind == 1 ? 0x7f800000u : 0xff800000u;
        memcpy(&r, &bits, sizeof r);
    }
    return r;
}

}  // namespace detail

// -- lane scans --------------------------------------------------------------

/// Inclusive sums of one value per lane over groups of `width` lanes (a
/// power of two, <= 32; Kogge-Stone, log2(width) shuffles). All 32 lanes
/// call it together (full-mask shuffles).
template <class S>
__device__ inline S shfl_inclusive(S x, int width = 32)
{
    const int l = lane_id() & (width - 1);
    for (int d = 1; d < width; d <<= 1) {
        const S y = __shfl_up_sync(0xffffffffu, x, d, width);
        if (l >= d) x += y;
    }
    return x;
}

/// The exclusive sum from shfl_inclusive's result (the first lane of each
/// group of `width` gets 0). All 32 lanes call it together.
template <class S>
__device__ inline S shfl_exclusive_of(S inclusive, int width = 32)
{
    const S e = __shfl_up_sync(0xffffffffu, inclusive, 1, width);
    return (lane_id() & (width - 1)) == 0 ? S(0) : e;
}

// -- warp level --------------------------------------------------------------

/// One 128-element tile scanned on the MMA. SegCols = 8: the whole tile is
/// one scan; 4: two independent scans of 64 (segments of 64). All 32 lanes
/// call every member together.
template <class Backend = default_backend, class Shape = f64_m16n8k16, bool Exclusive = false, int SegCols = 8>
struct warp_scan {
    static_assert(is_backend_v<Backend>, "Backend must be tcore::tensor_core or tcore::cuda_core");
    static_assert(Shape::m == 16 && Shape::n == 8 && Shape::k == 16, "scan tiles use the m16n8k16 shapes");
    static_assert(SegCols == 8 || SegCols == 4, "one scan per tile or two of 64");
    static constexpr bool fp16 = is_half_shape_v<Shape>;
    using in_type = typename Shape::b_type;
    using sum_type = typename Shape::c_type;
    using carry_shape = f64_m16n8<8>;
    static constexpr int in_group = fp16 ? 4 : 2;  ///< consecutive registers adjacent in memory (loads)
    static constexpr int out_group = 2;            ///< output registers stored together (see out_index)
    /// Blocks per SM the kernels ask registers for (the FP64 CUDA-core MMA needs more).
    static constexpr int min_blocks = std::is_same_v<Backend, cuda_core> && !fp16 ? 1 : 2;

    /// Tile position of input register i of `lane`.
    __host__ __device__ static constexpr int in_pos(int lane, int i)
    {
        const coord rc = Shape::b_coord(lane, i);
        return 16 * rc.col + slot_row<Shape>(rc.row);
    }
    /// Tile position of output register i of `lane`.
    __host__ __device__ static constexpr int out_pos(int lane, int i)
    {
        const coord rc = Shape::c_coord(lane, i);
        return 16 * rc.col + out_row<Shape>(rc.row);
    }
    /// Store order: outputs out_index(0), out_index(1) are adjacent (c0, c2), then (c1, c3).
    __host__ __device__ static constexpr int out_index(int j) { return 2 * (j & 1) + (j >> 1); }

    frag_a<Shape> ones;  ///< all ones
    frag_a<Shape> tri;   ///< L (relabelled)
    frag_b<carry_shape, relabelled_k<0>> carry_u;  ///< U, rows in the relabelled k order (FP64 only)

    __device__ warp_scan()
    {
        const int lane = lane_id();
        ones = make_a<Shape>(lane, cmat::ones{});
        if constexpr (Exclusive) tri = make_a<Shape>(lane, relabel_a<Shape, cmat::strict_lower>{});
        else tri = make_a<Shape>(lane, relabel_a<Shape, cmat::lower>{});
        if constexpr (!fp16) {
            static_for<carry_shape::b_count>([&](auto j) {
                const coord rc = carry_shape::b_coord(lane, j);  // (slot, column)
                carry_u.x[j] = cmat::block_strict_upper{SegCols}(scan_carry_col(rc.row), rc.col);
            });
        }
    }

    /// Tile-local scan: v = the lane's inputs (in_pos), out = its outputs (out_pos).
    /// IEEE special values: the zeros of L and U would turn an Inf or NaN into
    /// NaN at every position of its tile (0 * Inf = NaN), so the MMAs see Inf
    /// and NaN as zero, and a tile that holds one (one warp vote per tile) is
    /// patched: each output learns from ballots which of +Inf, -Inf and NaN
    /// occur up to its position (NaN if a NaN or both infinities, else that
    /// infinity), as sequential IEEE addition would give.
    __device__ void scan(sum_type (&out)[scan_per_lane], const in_type (&v)[scan_per_lane]) const
    {
        in_type x[scan_per_lane];
        bool finite = true;
        static_for<scan_per_lane>([&](auto i) {
            const bool f = detail::is_finite(v[i]);
            x[i] = f ? v[i] : convert_to<in_type>(0.0f);
            finite = finite && f;
        });
        scan_finite(out, x);
        if (!__all_sync(0xffffffffu, finite)) patch_specials(out, v);
    }

    /// The tile total on every lane (the last element's inclusive prefix).
    __device__ sum_type total(const sum_type (&out)[scan_per_lane], const in_type (&v)[scan_per_lane]) const
    {
        constexpr int last_out = find_last(false), last_in = find_last(true);
        static_assert(last_out >= 0 && last_in >= 0, "lane 31 must hold the tile's last input and output");
        sum_type t = out[last_out];
        if constexpr (Exclusive) t += convert_to<sum_type>(v[last_in]);
        return __shfl_sync(0xffffffffu, t, 31);
    }

    /// The three-product scan of a tile without Inf or NaN.
    __device__ void scan_finite(sum_type (&out)[scan_per_lane], const in_type (&v)[scan_per_lane]) const
    {
        frag_b<Shape> x;
        static_for<scan_per_lane>([&](auto i) { x.x[i] = v[i]; });
        frag_c<Shape> zero, totals, p;
        fill(zero, 0.0f);
        mma<Backend>(totals, ones, x, zero);  // 1 X: column totals in every row
        mma<Backend>(p, tri, x, zero);        // L X: prefix down each column
        if constexpr (!fp16) {
            const frag_a<carry_shape, relabelled_k<0>> a = reuse_a(totals);  // (1 X) as A, k relabelled
            frag_c<carry_shape> acc = accumulator_cast<carry_shape>(p);
            mma<Backend>(acc, a, carry_u, acc);  // + (1 X) U
            static_for<4>([&](auto i) { out[i] = acc.x[i]; });
        } else {
            // Lane (g,t) holds totals of columns 2t (c0) and 2t+1 (c1); scan them over t.
            constexpr int width = SegCols / 2;  // lanes of a quad that share a segment
            const float pair = totals.x[0] + totals.x[1];
            const float before = shfl_exclusive_of(shfl_inclusive(pair, width), width);
            const float c_even = before, c_odd = before + totals.x[0];
            out[0] = p.x[0] + c_even;
            out[1] = p.x[1] + c_odd;
            out[2] = p.x[2] + c_even;
            out[3] = p.x[3] + c_odd;
        }
    }

    /// Overwrites the outputs whose prefix (within its segment) holds an Inf or NaN.
    __device__ void patch_specials(sum_type (&out)[scan_per_lane], const in_type (&v)[scan_per_lane]) const
    {
        unsigned pos_mask[scan_per_lane], neg_mask[scan_per_lane];
        static_for<scan_per_lane>([&](auto i) {
            const int kind = detail::special_kind(v[i]);
            pos_mask[i] = __ballot_sync(0xffffffffu, kind == 1 || kind == 3);
            neg_mask[i] = __ballot_sync(0xffffffffu, kind == 2 || kind == 3);
        });
        apply_specials(out, lane_id(), pos_mask, neg_mask);
    }

    /// pos_mask[i] / neg_mask[i]: the lanes whose input i is +Inf or NaN / -Inf
    /// or NaN (ballots). Output j of `lane` becomes NaN if both kinds occur up
    /// to its position within its segment, else the infinity that does.
    /// The ballots become two 128-bit maps of tile positions (a loop over the
    /// set bits only), and each output tests its prefix range in them.
    __host__ __device__ static void apply_specials(sum_type (&out)[scan_per_lane], int lane,
                                                   const unsigned (&pos_mask)[scan_per_lane],
                                                   const unsigned (&neg_mask)[scan_per_lane])
    {
        detail::position_set pos, neg;
        static_for<scan_per_lane>([&](auto i) {
            for (unsigned m = pos_mask[i] | neg_mask[i]; m != 0u; m &= m - 1u) {
                const int l = detail::lowest_bit(m);
                if (pos_mask[i] >> l & 1u) pos.add(in_pos(l, i));
                if (neg_mask[i] >> l & 1u) neg.add(in_pos(l, i));
            }
        });
        static_for<scan_per_lane>([&](auto j) {
            const int e = out_pos(lane, j);
            const int first = e / (16 * SegCols) * (16 * SegCols);  // this output's segment
            const int last = Exclusive ? e - 1 : e;
            const bool has_pos = pos.any_in(first, last), has_neg = neg.any_in(first, last);
            if (has_pos || has_neg) out[j] = detail::special_value<sum_type>(has_pos && has_neg ? 3 : has_pos ? 1 : 2);
        });
    }

private:
    __host__ __device__ static constexpr int find_last(bool input)
    {
        for (int i = 0; i < scan_per_lane; ++i)
            if ((input ? in_pos(31, i) : out_pos(31, i)) == scan_tile - 1) return i;
        return -1;
    }
};

// -- tile loads and stores ---------------------------------------------------

namespace detail {

template <class E, int N>
__device__ inline void vec_load(E* dst, const E* src)
{
    constexpr int bytes = static_cast<int>(sizeof(E)) * N;
    static_assert(bytes == 4 || bytes == 8 || bytes == 16, "4, 8 or 16-byte vectors");
    using V = std::conditional_t<bytes == 16, uint4, std::conditional_t<bytes == 8, uint2, unsigned>>;
    union {
        V v;
        E e[N];
    } u;
    u.v = *reinterpret_cast<const V*>(src);
    for (int i = 0; i < N; ++i) dst[i] = u.e[i];
}

template <class E, int N>
__device__ inline void vec_store(E* dst, const E* src)
{
    constexpr int bytes = static_cast<int>(sizeof(E)) * N;
    static_assert(bytes == 4 || bytes == 8 || bytes == 16, "4, 8 or 16-byte vectors");
    using V = std::conditional_t<bytes == 16, uint4, std::conditional_t<bytes == 8, uint2, unsigned>>;
    union {
        V v;
        E e[N];
    } u;
    for (int i = 0; i < N; ++i) u.e[i] = src[i];
    *reinterpret_cast<V*>(dst) = u.v;
}

}  // namespace detail

/// Loads the lane's inputs of the tile at `tile`: v[i] = tile[in_pos(lane, i)]
/// (Scanner: a warp_scan or a type of the same interface). A partial tile (valid < 128;
/// any value, <= 0 gives all zeros) reads positions >= valid as zero, without
/// touching them, element by element. Vec: a whole tile is read in groups of
/// Scanner::in_group consecutive elements, so `tile` must be aligned to
/// in_group * sizeof(in_type) (not checked). `valid` must be the same on
/// every lane.
template <class Scanner, bool Vec>
__device__ inline void scan_load(typename Scanner::in_type (&v)[scan_per_lane], const typename Scanner::in_type* tile,
                                 long long valid)
{
    using T = typename Scanner::in_type;
    const int lane = lane_id();
    if (valid >= scan_tile) {
        if constexpr (Vec) {
            constexpr int G = Scanner::in_group;
            static_for<scan_per_lane / G>([&](auto q) {
                detail::vec_load<T, G>(&v[q * G], tile + Scanner::in_pos(lane, q * G));
            });
        } else {
            static_for<scan_per_lane>([&](auto i) { v[i] = tile[Scanner::in_pos(lane, i)]; });
        }
    } else {
        static_for<scan_per_lane>([&](auto i) {
            const int p = Scanner::in_pos(lane, i);
            v[i] = p < valid ? tile[p] : convert_to<T>(0.0f);
        });
    }
}

/// Stores the lane's outputs: tile[out_pos(lane, i)] = o[i]; positions >=
/// valid are not written (a partial tile). Vec: a whole tile is written in
/// groups of Scanner::out_group outputs (out_index order), so `tile` must be
/// aligned to out_group * sizeof(sum_type) (not checked). `valid` must be the
/// same on every lane.
template <class Scanner, bool Vec>
__device__ inline void scan_store(typename Scanner::sum_type* tile, const typename Scanner::sum_type (&o)[scan_per_lane],
                                  long long valid)
{
    using S = typename Scanner::sum_type;
    const int lane = lane_id();
    if (valid >= scan_tile) {
        if constexpr (Vec) {
            constexpr int G = Scanner::out_group;
            static_for<scan_per_lane / G>([&](auto q) {
                S group[G];
                static_for<G>([&](auto e) { group[e] = o[Scanner::out_index(q * G + e)]; });
                detail::vec_store<S, G>(tile + Scanner::out_pos(lane, Scanner::out_index(q * G)), group);
            });
        } else {
            static_for<scan_per_lane>([&](auto i) { tile[Scanner::out_pos(lane, i)] = o[i]; });
        }
    } else {
        static_for<scan_per_lane>([&](auto i) {
            const int p = Scanner::out_pos(lane, i);
            if (p < valid) tile[p] = o[i];
        });
    }
}

// -- block level -------------------------------------------------------------

/// Block scan of `count` (<= BlockThreads/32 * 128) consecutive elements:
/// warp w scans tile w; out = carry_in + prefix. Returns carry_in + the sum of
/// all `count` elements on every thread. smem: BlockThreads/32 sums.
/// Element-aligned pointers suffice (scalar loads and stores).
template <class Scanner, int BlockThreads>
__device__ inline typename Scanner::sum_type block_scan(const Scanner& sc, const typename Scanner::in_type* in,
                                                        typename Scanner::sum_type* out, long long count,
                                                        typename Scanner::sum_type carry_in,
                                                        typename Scanner::sum_type* smem)
{
    static_assert(BlockThreads % 32 == 0 && BlockThreads <= 1024, "whole warps, at most 1024 threads");
    require_block_threads<BlockThreads>();
    using T = typename Scanner::in_type;
    using S = typename Scanner::sum_type;
    constexpr int warps = BlockThreads / 32;
    const int warp = threadIdx.x >> 5;
    const long long first = static_cast<long long>(warp) * scan_tile;
    T v[scan_per_lane];
    S o[scan_per_lane];
    scan_load<Scanner, false>(v, in + first, count - first);
    sc.scan(o, v);
    const S t = sc.total(o, v);
    if ((threadIdx.x & 31) == 0) smem[warp] = t;
    __syncthreads();
    S before = carry_in;
    for (int w = 0; w < warp; ++w) before += smem[w];
    S all = before;
    for (int w = warp; w < warps; ++w) all += smem[w];
    static_for<scan_per_lane>([&](auto i) { o[i] += before; });
    scan_store<Scanner, false>(out + first, o, count - first);
    __syncthreads();  // smem may be reused at once
    return all;
}

}  // namespace tcore
