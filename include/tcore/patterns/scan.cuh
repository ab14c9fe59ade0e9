// tcore/patterns/scan.cuh - prefix sums by MMA against constant triangular
// and all-ones matrices (Quadrant II: partial input, full output).
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
// How a lane builds its share (lane maps + relabelling, constants.cuh):
//   X: B slot s of column g stands for memory row slot_row(s), so a lane's
//      registers are adjacent in memory (FP64: rows 2t,2t+1 | 8+2t,9+2t of
//      column g, two 16-byte loads; FP16: rows 4t..4t+3, one 8-byte load).
//   L: a_i = [slot_row(k) <= out_row(r)] at (r, k) = a_coord(lane, i), the same
//      relabelling on k as X, and D row r standing for memory row out_row(r)
//      (2g, 2g+1 for rows g, g+8), so c0/c2 and c1/c3 are adjacent outputs.
//   1: a_i = 1.
//   U: (1 X) is reused as the A of an m16n8k8 with k relabelled (reuse.cuh:
//      a = {D[0], D[2], D[1], D[3]}, slot t + 4j stands for column 2t + j),
//      so b_j = U(2t + j, g): lane (g,t) holds U rows 2t, 2t+1 of column g.
// FP16 input, FP32 accumulation (f16_m16n8k16_f32acc): 1 X arrives in FP32
// and would have to be rounded to FP16 to be an A operand, so the column
// carries are an FP32 scan over the 4 lanes of a quad (2 shuffles) instead
// of the third product.
// Inf and NaN: the constants' zeros would spread them backwards (0 * Inf =
// NaN), so the MMAs see them as zero and a tile holding one is patched from
// warp ballots (warp_scan::scan); outputs follow sequential IEEE addition.
//
// Entry points
//   warp:      warp_scan<Backend, Shape, Exclusive, SegCols> (one tile:
//              scan(out, v), total(out, v)); warp_scan_cce (shuffle scan)
//   block:     block_scan<Scanner, Threads>(sc, in, out, count, carry, smem)
//   segmented: scan_segments / scan_segments_cce (fixed segment size)
//   device:    scan / scan_cce: single pass with decoupled look-back
//              (look_back.cuh; CUB-style temp-storage query); any n. Not
//              bitwise deterministic: the look-back adds whichever
//              predecessors' prefixes are ready.
// Both multi-tile levels load block tiles of 4096 elements into shared memory
// with cp.async (one per block of 4 warps), so the loads in flight do not
// compete with the MMA constants for registers; segments that are powers of
// two from 64 to 4096 take this path, other sizes a warp each.
// cce ("essential") variants: each lane scans its consecutive elements and
// the warp scans lane totals with shuffles (Kogge-Stone).
#pragma once

#include "../infra/async_copy.cuh"
#include "../backend.cuh"
#include "../check.cuh"
#include "../frag/f16_m16n8k16.cuh"
#include "../frag/f64_m16n8k16.cuh"
#include "../frag/f64_m16n8k8.cuh"
#include "../frag/reuse.cuh"
#include "../infra/constants.cuh"
#include "../infra/launch.cuh"
#include "../infra/look_back.cuh"

#include <climits>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>

namespace tcore {

/// Inclusive (out[i] = in[0] + ... + in[i]) or exclusive (out[i] = in[0] + ... + in[i-1]).
enum class scan_kind { inclusive, exclusive };

inline constexpr int scan_tile = 128;      ///< elements per warp tile
inline constexpr int scan_per_lane = 4;    ///< values per lane per tile

namespace detail {

/// Column of the 16 x 8 accumulator that k slot s of the relabelled
/// m16n8k8 A stands for (reuse.cuh: slot t + 4j -> column 2t + j).
__host__ __device__ constexpr int scan_carry_col(int s) { return 2 * (s & 3) + (s >> 2); }

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

/// Inclusive sums over groups of `width` lanes (a power of two, <= 32).
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

/// The exclusive sum from the inclusive one (the first lane of each group gets 0).
template <class S>
__device__ inline S shfl_exclusive_of(S inclusive, int width = 32)
{
    const S e = __shfl_up_sync(0xffffffffu, inclusive, 1, width);
    return (lane_id() & (width - 1)) == 0 ? S(0) : e;
}

}  // namespace detail

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
                carry_u.x[j] = cmat::block_strict_upper{SegCols}(detail::scan_carry_col(rc.row), rc.col);
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
            const float before = detail::shfl_exclusive_of(detail::shfl_inclusive(pair, width), width);
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

/// One 128-element tile scanned with shuffles (the cce variant). Lane l holds
/// elements 2l, 2l+1, 64+2l, 65+2l (FP64) or 4l..4l+3 (FP16).
template <class T, bool Exclusive = false, int SegCols = 8>
struct warp_scan_cce {
    static_assert(SegCols == 8 || SegCols == 4, "one scan per tile or two of 64");
    static constexpr bool fp16 = std::is_same_v<T, __half>;
    using in_type = T;
    using sum_type = sum_type_t<T>;
    static constexpr int in_group = fp16 ? 4 : 2;
    static constexpr int out_group = fp16 ? 4 : 2;
    static constexpr int min_blocks = 2;

    __host__ __device__ static constexpr int in_pos(int lane, int i)
    {
        return fp16 ? 4 * lane + i : 64 * (i >> 1) + 2 * lane + (i & 1);
    }
    __host__ __device__ static constexpr int out_pos(int lane, int i) { return in_pos(lane, i); }
    __host__ __device__ static constexpr int out_index(int j) { return j; }

    __device__ void scan(sum_type (&out)[scan_per_lane], const in_type (&v)[scan_per_lane]) const
    {
        sum_type x[scan_per_lane];
        static_for<scan_per_lane>([&](auto i) { x[i] = convert_to<sum_type>(v[i]); });
        if constexpr (!fp16) {
            sum_type chunk_total = 0;
            static_for<2>([&](auto h) {  // two chunks of 64: lanes hold 2 each
                const sum_type a = x[2 * h], b = x[2 * h + 1];
                const sum_type incl = detail::shfl_inclusive(a + b);
                sum_type before = detail::shfl_exclusive_of(incl);
                if (SegCols == 8 && h == 1) before += chunk_total;
                out[2 * h] = Exclusive ? before : before + a;
                out[2 * h + 1] = Exclusive ? before + a : (before + a) + b;
                chunk_total = __shfl_sync(0xffffffffu, incl, 31);
            });
        } else {
            constexpr int width = SegCols == 8 ? 32 : 16;  // lanes per scan
            const sum_type l0 = x[0], l1 = l0 + x[1], l2 = l1 + x[2], l3 = l2 + x[3];
            const sum_type before = detail::shfl_exclusive_of(detail::shfl_inclusive(l3, width), width);
            if constexpr (Exclusive) {
                out[0] = before, out[1] = before + l0, out[2] = before + l1, out[3] = before + l2;
            } else {
                out[0] = before + l0, out[1] = before + l1, out[2] = before + l2, out[3] = before + l3;
            }
        }
    }

    __device__ sum_type total(const sum_type (&out)[scan_per_lane], const in_type (&v)[scan_per_lane]) const
    {
        sum_type t = out[scan_per_lane - 1];  // lane 31 holds position 127 last
        if constexpr (Exclusive) t += convert_to<sum_type>(v[scan_per_lane - 1]);
        return __shfl_sync(0xffffffffu, t, 31);
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

/// Loads the lane's inputs of the tile at `tile` (positions >= valid read as zero).
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
                vec_load<T, G>(&v[q * G], tile + Scanner::in_pos(lane, q * G));
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

/// Stores the lane's outputs (positions >= valid are skipped).
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
                vec_store<S, G>(tile + Scanner::out_pos(lane, Scanner::out_index(q * G)), group);
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

}  // namespace detail

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
    detail::scan_load<Scanner, false>(v, in + first, count - first);
    sc.scan(o, v);
    const S t = sc.total(o, v);
    if ((threadIdx.x & 31) == 0) smem[warp] = t;
    __syncthreads();
    S before = carry_in;
    for (int w = 0; w < warp; ++w) before += smem[w];
    S all = before;
    for (int w = warp; w < warps; ++w) all += smem[w];
    static_for<scan_per_lane>([&](auto i) { o[i] += before; });
    detail::scan_store<Scanner, false>(out + first, o, count - first);
    __syncthreads();  // smem may be reused at once
    return all;
}

// -- kernels -----------------------------------------------------------------

namespace detail {

inline constexpr int scan_threads = 256;  ///< the per-warp segment kernel
inline constexpr int scan_warps = scan_threads / 32;

/// The block tile of the multi-tile kernels: 4 warps scan 8 warp tiles each,
/// 4096 elements, loaded whole into shared memory by cp.async (FP64: 32 KiB,
/// results written back in place; FP16: 8 KiB in, 16 KiB of FP32 results).
/// Small blocks with the data in shared memory instead of registers let
/// about five blocks share an SM, ~160 KiB of loads in flight, while each
/// waits on its look-back (CUB's single-pass scan works the same way).
template <class Scanner>
struct scan_block_tile {
    using in_type = typename Scanner::in_type;
    using sum_type = typename Scanner::sum_type;
    static constexpr int threads = 128;
    static constexpr int warps = threads / 32;
    static constexpr int warp_tiles = 8;
    static constexpr int tiles = warps * warp_tiles;  ///< warp tiles: one per lane of the carry scan
    static constexpr int elems = tiles * scan_tile;
    static constexpr bool in_place = sizeof(in_type) == sizeof(sum_type);
    static constexpr std::size_t in_bytes = static_cast<std::size_t>(elems) * sizeof(in_type);
    static constexpr std::size_t out_bytes = in_place ? 0 : static_cast<std::size_t>(elems) * sizeof(sum_type);
    static constexpr std::size_t smem_bytes = in_bytes + out_bytes;
    static_assert(tiles == 32, "the carry scan gives each lane one warp tile");
};

/// Copies elements [first, first + Elems) of in[0..n) into `tile`, zeros past
/// n: 16-byte cp.async where in is 16-byte aligned (Vec), else element loads.
/// Chunks that are not wholly inside the array are filled by plain code, so
/// no copy names bytes past its end. A whole tile skips the per-chunk checks
/// (the checked loop kept the copies from being unrolled).
template <class T, int Elems, int Threads, bool Vec>
__device__ inline void load_block_tile(T* tile, const T* in, long long first, long long n)
{
    const long long valid = n - first;
    if constexpr (Vec) {
        constexpr int per_chunk = 16 / static_cast<int>(sizeof(T));
        if (valid >= Elems) {  // whole tile (block-uniform): unconditional copies, unrolled
#pragma unroll
            for (int c = threadIdx.x; c < Elems / per_chunk; c += Threads)
                cp_async<16>(tile + c * per_chunk, in + first + c * per_chunk, 16);
            cp_async_commit();
            cp_async_wait<0>();
            return;
        }
        for (int c = threadIdx.x; c < Elems / per_chunk; c += Threads) {
            const long long left = valid - static_cast<long long>(c) * per_chunk;
            T* dst = tile + c * per_chunk;
            if (left >= per_chunk) {
                cp_async<16>(dst, in + first + c * per_chunk, 16);
            } else {
                for (int k = 0; k < per_chunk; ++k)
                    dst[k] = k < left ? in[first + c * per_chunk + k] : convert_to<T>(0.0f);
            }
        }
        cp_async_commit();
        cp_async_wait<0>();
    } else {
        for (int e = threadIdx.x; e < Elems; e += Threads) tile[e] = e < valid ? in[first + e] : convert_to<T>(0.0f);
    }
}

/// Stores tile[e] + carry[e / scan_tile] to out[first + e] for the elements
/// before n: 16-byte stores where out is 16-byte aligned (Vec). A whole
/// tile takes an unrolled loop without bounds checks: the checked loop had
/// compiled to 8-byte stores in the tensor_core kernels (measurably slower;
/// examples/scan/README.md).
template <class S, int Elems, int Threads, bool Vec>
__device__ inline void store_block_tile(S* out, const S* tile, const S* carry, long long first, long long n)
{
    const long long valid = n - first;
    if constexpr (Vec) {
        constexpr int per_chunk = 16 / static_cast<int>(sizeof(S));
        if (valid >= Elems) {  // whole tile (block-uniform): one 16-byte store per chunk, unrolled
#pragma unroll
            for (int c = threadIdx.x; c < Elems / per_chunk; c += Threads) {
                const int e = c * per_chunk;
                S x[per_chunk];
                vec_load<S, per_chunk>(x, tile + e);
                const S add = carry[e / scan_tile];
                for (int k = 0; k < per_chunk; ++k) x[k] += add;
                vec_store<S, per_chunk>(out + first + e, x);
            }
            return;
        }
        for (int c = threadIdx.x; c < Elems / per_chunk; c += Threads) {
            const int e = c * per_chunk;
            if (e >= valid) break;
            S x[per_chunk];
            vec_load<S, per_chunk>(x, tile + e);
            const S add = carry[e / scan_tile];
            for (int k = 0; k < per_chunk; ++k) x[k] += add;
            if (e + per_chunk <= valid) {
                vec_store<S, per_chunk>(out + first + e, x);
            } else {
                for (int k = 0; k < per_chunk; ++k)
                    if (e + k < valid) out[first + e + k] = x[k];
            }
        }
    } else {
        for (int e = threadIdx.x; e < Elems && e < valid; e += Threads) out[first + e] = tile[e] + carry[e / scan_tile];
    }
}

/// Warp 0: replaces the block tile's 32 warp-tile totals (one per lane, in
/// order) by each warp tile's carry, the sum of the warp tiles before it in
/// its segment of seg_tiles (1: each alone, 0: the whole block tile). With
/// `status` set (the device-wide scan) the block tile's aggregate goes
/// through the look-back and the prefix of all earlier block tiles is added.
template <class S>
__device__ inline void tile_carries(S* totals, int seg_tiles, tile_status<S>* status, long long tile)
{
    const int lane = lane_id();
    const S t = totals[lane];
    S before = 0;
    if (seg_tiles != 1) {
        const int width = seg_tiles == 0 ? 32 : seg_tiles;
        const S incl = shfl_inclusive(t, width);
        before = shfl_exclusive_of(incl, width);
        if (status != nullptr) before += look_back(status, tile, __shfl_sync(0xffffffffu, incl, 31));
    }
    totals[lane] = before;
}

/// One block tile per block: load it (cp.async), scan each warp tile from
/// shared memory (Scanner) and write the results back, turn the warp-tile
/// totals into carries (within segments of seg_tiles warp tiles, or after the
/// look-back: block tile ids then come from `counter` in the order blocks
/// start), and store results plus carries with contiguous 16-byte stores.
template <class Scanner, bool Vec, bool LookBack>
__global__ void __launch_bounds__(scan_block_tile<Scanner>::threads, 2 * Scanner::min_blocks)
    scan_tile_kernel(const typename Scanner::in_type* in, typename Scanner::sum_type* out, long long n, int seg_tiles,
                     unsigned long long* counter, tile_status<typename Scanner::sum_type>* status)
{
    using T = typename Scanner::in_type;
    using S = typename Scanner::sum_type;
    using bt = scan_block_tile<Scanner>;
    __shared__ __align__(16) unsigned char smem[bt::smem_bytes];
    __shared__ S s_carry[bt::tiles];  // warp-tile totals, then carries
    __shared__ long long s_tile;
    T* const tile_in = reinterpret_cast<T*>(smem);
    S* const tile_out = reinterpret_cast<S*>(smem + (bt::in_place ? 0 : bt::in_bytes));
    long long tile = blockIdx.x;
    if constexpr (LookBack) {
        if (threadIdx.x == 0) s_tile = static_cast<long long>(atomicAdd(counter, 1ull));
        __syncthreads();
        tile = s_tile;
    }
    const long long first = tile * bt::elems;
    load_block_tile<T, bt::elems, bt::threads, Vec>(tile_in, in, first, n);
    __syncthreads();
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const Scanner sc;
    for (int u = 0; u < bt::warp_tiles; ++u) {
        const int j = warp * bt::warp_tiles + u;
        T v[scan_per_lane];
        S o[scan_per_lane];
        scan_load<Scanner, true>(v, tile_in + j * scan_tile, scan_tile);
        sc.scan(o, v);
        const S t = sc.total(o, v);
        __syncwarp();  // the whole warp tile is read before results overwrite it
        scan_store<Scanner, true>(tile_out + j * scan_tile, o, scan_tile);
        if (lane == 0) s_carry[j] = t;
    }
    __syncthreads();
    if (warp == 0) tile_carries(s_carry, seg_tiles, LookBack ? status : nullptr, tile);
    __syncthreads();
    store_block_tile<S, bt::elems, bt::threads, Vec>(out, tile_out, s_carry, first, n);
}

/// Any segment size (the fallback for sizes the block-tile kernel does not
/// take, and for misaligned pointers): warp w scans segments w, w + W, ...
/// two tiles at a time, then the single tile left if any.
template <class Scanner, bool Vec>
__global__ void __launch_bounds__(scan_threads, Scanner::min_blocks)
    scan_segments_kernel(const typename Scanner::in_type* in, typename Scanner::sum_type* out, long long num_segments,
                         long long seg)
{
    using T = typename Scanner::in_type;
    using S = typename Scanner::sum_type;
    const long long gw = static_cast<long long>(blockIdx.x) * scan_warps + (threadIdx.x >> 5);
    const long long stride = static_cast<long long>(gridDim.x) * scan_warps;
    const Scanner sc;
    for (long long s = gw; s < num_segments; s += stride) {
        const T* src = in + s * seg;
        S* dst = out + s * seg;
        S carry = 0;
        long long f0 = 0;
        for (; f0 + scan_tile < seg; f0 += 2 * scan_tile) {  // pairs of tiles (the second maybe partial)
            const long long f1 = f0 + scan_tile;
            T v0[scan_per_lane], v1[scan_per_lane];
            S o0[scan_per_lane], o1[scan_per_lane];
            scan_load<Scanner, Vec>(v0, src + f0, seg - f0);
            scan_load<Scanner, Vec>(v1, src + f1, seg - f1);
            sc.scan(o0, v0);
            sc.scan(o1, v1);
            const S t0 = sc.total(o0, v0), t1 = sc.total(o1, v1);
            const S c1 = carry + t0;
            static_for<scan_per_lane>([&](auto i) {
                o0[i] += carry;
                o1[i] += c1;
            });
            carry = c1 + t1;
            scan_store<Scanner, Vec>(dst + f0, o0, seg - f0);
            scan_store<Scanner, Vec>(dst + f1, o1, seg - f1);
        }
        if (f0 < seg) {  // one tile left (maybe partial)
            T v[scan_per_lane];
            S o[scan_per_lane];
            scan_load<Scanner, Vec>(v, src + f0, seg - f0);
            sc.scan(o, v);
            static_for<scan_per_lane>([&](auto i) { o[i] += carry; });
            scan_store<Scanner, Vec>(dst + f0, o, seg - f0);
        }
    }
}

/// Launches one block per block tile of n elements.
template <class Scanner, bool Vec, bool LookBack>
inline void launch_tiles(const char* where, const typename Scanner::in_type* in, typename Scanner::sum_type* out,
                         long long n, int seg_tiles, unsigned long long* counter,
                         tile_status<typename Scanner::sum_type>* status, cudaStream_t stream)
{
    using bt = scan_block_tile<Scanner>;
    const long long tiles = ceil_div(n, bt::elems);
    require(tiles <= INT_MAX, where, "n is too large for one grid of block tiles");
    scan_tile_kernel<Scanner, Vec, LookBack>
        <<<static_cast<unsigned>(tiles), bt::threads, 0, stream>>>(in, out, n, seg_tiles, counter, status);
    TCORE_CHECK_LAUNCH();
}

/// Temp storage of the device-wide scan: the tile counter, then one
/// tile_status per block tile.
template <class S>
struct scan_layout {
    static constexpr std::size_t status_off = 256;
    std::size_t bytes;
    explicit scan_layout(long long tiles)
        : bytes(status_off + (static_cast<std::size_t>(tiles) * sizeof(tile_status<S>) + 255) / 256 * 256)
    {
    }
};

/// Rejects in/out ranges that overlap without being the same array.
template <class T, class S>
inline void require_no_partial_overlap(const T* in, const S* out, long long n, const char* where)
{
    const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
    const auto a_end = a + static_cast<std::uintptr_t>(n) * sizeof(T);
    const auto b_end = b + static_cast<std::uintptr_t>(n) * sizeof(S);
    const bool overlap = a < b_end && b < a_end;
    require(!overlap || (a == b && sizeof(T) == sizeof(S)), where,
            "in and out overlap (only in == out with the same element size is allowed)");
}

/// Both pointers allow the block-tile kernel's 16-byte copies and stores.
template <class T, class S>
inline bool vector_aligned(const T* in, const S* out)
{
    return aligned(in, 16) && aligned(out, 16);
}

template <class Scanner>
inline void scan_device(const char* where, void* temp, std::size_t& temp_bytes,
                        const typename Scanner::in_type* in, typename Scanner::sum_type* out, long long n,
                        cudaStream_t stream)
{
    using S = typename Scanner::sum_type;
    require_size(n, where, "n");
    const long long tiles = ceil_div(n, scan_block_tile<Scanner>::elems);
    const scan_layout<S> lay(tiles > 0 ? tiles : 1);
    if (temp == nullptr) {
        temp_bytes = lay.bytes;
        return;
    }
    require(temp_bytes >= lay.bytes, where,
            "temp_bytes (" + std::to_string(temp_bytes) + ") is below the queried size (" + std::to_string(lay.bytes) +
                ")");
    require(aligned(temp, 256), where, "temp is not 256-byte aligned");
    if (n == 0) return;
    require_pointer(in, where, "in");
    require_pointer(out, where, "out");
    require_no_partial_overlap(in, out, n, where);
    char* base = static_cast<char*>(temp);
    auto* counter = reinterpret_cast<unsigned long long*>(base);
    auto* status = reinterpret_cast<tile_status<S>*>(base + lay.status_off);
    TCORE_CHECK(cudaMemsetAsync(base, 0, lay.status_off + static_cast<std::size_t>(tiles) * sizeof(tile_status<S>),
                                stream));
    if (vector_aligned(in, out)) launch_tiles<Scanner, true, true>(where, in, out, n, 0, counter, status, stream);
    else launch_tiles<Scanner, false, true>(where, in, out, n, 0, counter, status, stream);
}

template <class Whole, class Pair>
inline void scan_segments_impl(const char* where, const typename Whole::in_type* in, typename Whole::sum_type* out,
                               long long num_segments, long long segment_size, cudaStream_t stream)
{
    using T = typename Whole::in_type;
    using S = typename Whole::sum_type;
    require_size(num_segments, where, "num_segments");
    require_size(segment_size, where, "segment_size");
    require(segment_size == 0 || num_segments <= LLONG_MAX / segment_size, where,
            "num_segments * segment_size overflows a 64-bit size");
    const long long n = num_segments * segment_size;
    if (n == 0) return;
    require_pointer(in, where, "in");
    require_pointer(out, where, "out");
    require_no_partial_overlap(in, out, n, where);
    // Powers of two from 64 to a block tile: block tiles hold whole segments.
    const bool tiled = segment_size >= scan_tile / 2 && segment_size <= scan_block_tile<Whole>::elems &&
                       (segment_size & (segment_size - 1)) == 0 && vector_aligned(in, out);
    if (tiled && segment_size == scan_tile / 2) {
        launch_tiles<Pair, true, false>(where, in, out, n, 1, nullptr, nullptr, stream);
    } else if (tiled) {
        launch_tiles<Whole, true, false>(where, in, out, n, static_cast<int>(segment_size / scan_tile), nullptr,
                                         nullptr, stream);
    } else {
        const bool vec = aligned(in, Whole::in_group * sizeof(T)) && aligned(out, Whole::out_group * sizeof(S)) &&
                         segment_size % Whole::in_group == 0 && segment_size % Whole::out_group == 0;
        auto kernel = vec ? scan_segments_kernel<Whole, true> : scan_segments_kernel<Whole, false>;
        const long long grid = resident_grid(kernel, scan_threads, ceil_div(num_segments, scan_warps));
        kernel<<<static_cast<unsigned>(grid), scan_threads, 0, stream>>>(in, out, num_segments, segment_size);
        TCORE_CHECK_LAUNCH();
    }
}

}  // namespace detail

// -- host entry points -------------------------------------------------------

/// Device-wide prefix sum on the MMA (tc: tensor_core, cc: cuda_core).
/// Shape f64_m16n8k16 (double -> double) or f16_m16n8k16_f32acc (__half ->
/// float). CUB-style: temp == nullptr only sets temp_bytes. Any n >= 0;
/// in == out is allowed for double. Vector loads/stores where in/out are
/// 16/8-byte aligned, element accesses otherwise.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void scan(void* temp, std::size_t& temp_bytes, const typename Shape::b_type* in, typename Shape::c_type* out,
                 long long n, scan_kind kind = scan_kind::inclusive, cudaStream_t stream = 0)
{
    if (kind == scan_kind::exclusive)
        detail::scan_device<warp_scan<Backend, Shape, true>>("tcore::scan", temp, temp_bytes, in, out, n, stream);
    else
        detail::scan_device<warp_scan<Backend, Shape, false>>("tcore::scan", temp, temp_bytes, in, out, n, stream);
}

/// cce device-wide prefix sum (shuffle scans, same look-back).
template <class T>
inline void scan_cce(void* temp, std::size_t& temp_bytes, const T* in, sum_type_t<T>* out, long long n,
                     scan_kind kind = scan_kind::inclusive, cudaStream_t stream = 0)
{
    if (kind == scan_kind::exclusive)
        detail::scan_device<warp_scan_cce<T, true>>("tcore::scan_cce", temp, temp_bytes, in, out, n, stream);
    else
        detail::scan_device<warp_scan_cce<T, false>>("tcore::scan_cce", temp, temp_bytes, in, out, n, stream);
}

/// Independent scans of num_segments consecutive segments of segment_size
/// elements. Segments of 64 (aligned) take two per MMA tile; others one warp each.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void scan_segments(const typename Shape::b_type* in, typename Shape::c_type* out, long long num_segments,
                          long long segment_size, scan_kind kind = scan_kind::inclusive, cudaStream_t stream = 0)
{
    if (kind == scan_kind::exclusive)
        detail::scan_segments_impl<warp_scan<Backend, Shape, true, 8>, warp_scan<Backend, Shape, true, 4>>(
            "tcore::scan_segments", in, out, num_segments, segment_size, stream);
    else
        detail::scan_segments_impl<warp_scan<Backend, Shape, false, 8>, warp_scan<Backend, Shape, false, 4>>(
            "tcore::scan_segments", in, out, num_segments, segment_size, stream);
}

/// cce segmented scan.
template <class T>
inline void scan_segments_cce(const T* in, sum_type_t<T>* out, long long num_segments, long long segment_size,
                              scan_kind kind = scan_kind::inclusive, cudaStream_t stream = 0)
{
    if (kind == scan_kind::exclusive)
        detail::scan_segments_impl<warp_scan_cce<T, true, 8>, warp_scan_cce<T, true, 4>>(
            "tcore::scan_segments_cce", in, out, num_segments, segment_size, stream);
    else
        detail::scan_segments_impl<warp_scan_cce<T, false, 8>, warp_scan_cce<T, false, 4>>(
            "tcore::scan_segments_cce", in, out, num_segments, segment_size, stream);
}

}  // namespace tcore
