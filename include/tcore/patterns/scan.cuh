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
//              (CUB-style temp-storage query); any n. Not bitwise
//              deterministic: the look-back adds whichever predecessors'
//              prefixes are ready.
// cce ("essential") variants: each lane scans its consecutive elements and
// the warp scans lane totals with shuffles (Kogge-Stone).
#pragma once

#include "../backend.cuh"
#include "../check.cuh"
#include "../frag/f16_m16n8k16.cuh"
#include "../frag/f64_m16n8k16.cuh"
#include "../frag/f64_m16n8k8.cuh"
#include "../frag/reuse.cuh"
#include "constants.cuh"
#include "launch.cuh"

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

template <int Width, class S>
__device__ inline S shfl_inclusive(S x)
{
    const int l = lane_id() & (Width - 1);
    for (int d = 1; d < Width; d <<= 1) {
        const S y = __shfl_up_sync(0xffffffffu, x, d, Width);
        if (l >= d) x += y;
    }
    return x;
}

template <int Width, class S>
__device__ inline S shfl_exclusive_of(S inclusive)
{
    const S e = __shfl_up_sync(0xffffffffu, inclusive, 1, Width);
    return (lane_id() & (Width - 1)) == 0 ? S(0) : e;
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
    frag_b<carry_shape> carry_u;  ///< U (FP64 only)

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
            const frag_a<carry_shape> a = reuse_a(totals);  // (1 X) as A, k relabelled
            frag_c<carry_shape> acc{{p.x[0], p.x[1], p.x[2], p.x[3]}};
            mma<Backend>(acc, a, carry_u, acc);  // + (1 X) U
            static_for<4>([&](auto i) { out[i] = acc.x[i]; });
        } else {
            // Lane (g,t) holds totals of columns 2t (c0) and 2t+1 (c1); scan them over t.
            constexpr int width = SegCols / 2;  // lanes of a quad that share a segment
            const float pair = totals.x[0] + totals.x[1];
            const float before = detail::shfl_exclusive_of<width>(detail::shfl_inclusive<width>(pair));
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
    __host__ __device__ static void apply_specials(sum_type (&out)[scan_per_lane], int lane,
                                                   const unsigned (&pos_mask)[scan_per_lane],
                                                   const unsigned (&neg_mask)[scan_per_lane])
    {
        for (int j = 0; j < scan_per_lane; ++j) {
            const int e = out_pos(lane, j);
            const int first = e / (16 * SegCols) * (16 * SegCols);  // this output's segment
            auto seen = [&](int p) { return p >= first && (Exclusive ? p < e : p <= e); };
            bool pos = false, neg = false;
            for (int i = 0; i < scan_per_lane; ++i)
                for (int l = 0; l < 32; ++l) {
                    if (((pos_mask[i] | neg_mask[i]) >> l & 1u) == 0u) continue;
                    const bool in_prefix = seen(in_pos(l, i));
                    pos = pos || (in_prefix && (pos_mask[i] >> l & 1u));
                    neg = neg || (in_prefix && (neg_mask[i] >> l & 1u));
                }
            if (pos || neg) out[j] = detail::special_value<sum_type>(pos && neg ? 3 : pos ? 1 : 2);
        }
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
                const sum_type incl = detail::shfl_inclusive<32>(a + b);
                sum_type before = detail::shfl_exclusive_of<32>(incl);
                if (SegCols == 8 && h == 1) before += chunk_total;
                out[2 * h] = Exclusive ? before : before + a;
                out[2 * h + 1] = Exclusive ? before + a : (before + a) + b;
                chunk_total = __shfl_sync(0xffffffffu, incl, 31);
            });
        } else {
            constexpr int width = SegCols == 8 ? 32 : 16;  // lanes per scan
            const sum_type l0 = x[0], l1 = l0 + x[1], l2 = l1 + x[2], l3 = l2 + x[3];
            const sum_type before = detail::shfl_exclusive_of<width>(detail::shfl_inclusive<width>(l3));
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

inline constexpr int scan_threads = 256;
inline constexpr int scan_warps = scan_threads / 32;
inline constexpr int scan_tiles_per_warp = 2;
inline constexpr long long scan_block_elems = static_cast<long long>(scan_warps) * scan_tiles_per_warp * scan_tile;

/// Segments of 64: each tile holds two (Scanner has SegCols = 4).
template <class Scanner>
__global__ void __launch_bounds__(scan_threads, Scanner::min_blocks)
    scan_pair_segments_kernel(const typename Scanner::in_type* in, typename Scanner::sum_type* out, long long n)
{
    using T = typename Scanner::in_type;
    using S = typename Scanner::sum_type;
    const long long tiles = ceil_div(n, scan_tile);
    const long long gw = static_cast<long long>(blockIdx.x) * scan_warps + (threadIdx.x >> 5);
    const long long stride = static_cast<long long>(gridDim.x) * scan_warps;
    const Scanner sc;
    for (long long tile = 2 * gw; tile < tiles; tile += 2 * stride) {
        T v0[scan_per_lane], v1[scan_per_lane];
        S o0[scan_per_lane], o1[scan_per_lane];
        const long long f0 = tile * scan_tile, f1 = f0 + scan_tile;
        scan_load<Scanner, true>(v0, in + f0, n - f0);
        scan_load<Scanner, true>(v1, in + f1, n - f1);
        sc.scan(o0, v0);
        sc.scan(o1, v1);
        scan_store<Scanner, true>(out + f0, o0, n - f0);
        scan_store<Scanner, true>(out + f1, o1, n - f1);
    }
}

/// Any segment size: warp w scans segments w, w + W, ... two tiles at a
/// time, then the single tile left if any.
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

// Decoupled look-back (single pass): each block publishes its aggregate, then
// its inclusive prefix, behind a release-stored flag (0 none, 1 aggregate,
// 2 inclusive); readers acquire the flag, then read the value past L1.
template <class S>
struct scan_state {
    int* counter;   ///< next block-tile id (taken in launch order: no deadlock)
    int* flags;
    S* aggregate;
    S* inclusive;
};

__device__ inline int ld_acquire(const int* p)
{
    int v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
#else
    v = *reinterpret_cast<const volatile int*>(p);
    __threadfence();
#endif
    return v;
}

__device__ inline void st_release(int* p, int v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
    __threadfence();
    *reinterpret_cast<volatile int*>(p) = v;
#endif
}

/// Called by one whole warp: publishes `aggregate` for block-tile `tile` and
/// returns the exclusive prefix of the tile (on every lane).
template <class S>
__device__ inline S look_back(const scan_state<S>& st, long long tile, S aggregate)
{
    const int lane = lane_id();
    if (tile == 0) {
        if (lane == 0) {
            __stcg(&st.inclusive[0], aggregate);
            st_release(&st.flags[0], 2);
        }
        return S(0);
    }
    if (lane == 0) {
        __stcg(&st.aggregate[tile], aggregate);
        st_release(&st.flags[tile], 1);
    }
    S prefix = 0;
    for (long long look = tile - 1;; look -= 32) {
        const long long j = look - lane;  // lane 0 looks at the nearest predecessor
        int f = j >= 0 ? ld_acquire(&st.flags[j]) : 2;
        while (__any_sync(0xffffffffu, f == 0)) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
            __nanosleep(32);
#endif
            if (f == 0) f = ld_acquire(&st.flags[j]);
        }
        S v = j < 0 ? S(0) : (f == 2 ? __ldcg(&st.inclusive[j]) : __ldcg(&st.aggregate[j]));
        const unsigned done = __ballot_sync(0xffffffffu, f == 2);
        if (done != 0u && lane > __ffs(done) - 1) v = 0;  // stop at the nearest inclusive prefix
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        prefix += v;
        if (done != 0u) break;
    }
    if (lane == 0) {
        __stcg(&st.inclusive[tile], prefix + aggregate);
        st_release(&st.flags[tile], 2);
    }
    return prefix;
}

/// Device-wide scan: one block per 2048-element block-tile (ids taken in
/// launch order); warp w scans tiles 2w, 2w+1 of it.
template <class Scanner, bool Vec>
__global__ void __launch_bounds__(scan_threads, Scanner::min_blocks)
    scan_device_kernel(const typename Scanner::in_type* in, typename Scanner::sum_type* out, long long n,
                       scan_state<typename Scanner::sum_type> st)
{
    using T = typename Scanner::in_type;
    using S = typename Scanner::sum_type;
    constexpr int U = scan_tiles_per_warp;
    __shared__ long long s_tile;
    __shared__ S s_warp[scan_warps];
    __shared__ S s_offset[scan_warps];
    if (threadIdx.x == 0) s_tile = atomicAdd(st.counter, 1);
    __syncthreads();
    const long long tile = s_tile;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long first = tile * scan_block_elems + static_cast<long long>(warp) * U * scan_tile;

    const Scanner sc;
    T v[U][scan_per_lane];
    S o[U][scan_per_lane];
    S t[U];
    static_for<U>([&](auto u) {
        const long long f = first + u * scan_tile;
        scan_load<Scanner, Vec>(v[u], in + f, n - f);
    });
    static_for<U>([&](auto u) {
        sc.scan(o[u], v[u]);
        t[u] = sc.total(o[u], v[u]);
    });
    S warp_total = t[0];
    static_for<U - 1>([&](auto u) { warp_total += t[u + 1]; });
    if (lane == 0) s_warp[warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
        const S x = lane < scan_warps ? s_warp[lane] : S(0);
        const S incl = shfl_inclusive<32>(x);
        const S before = shfl_exclusive_of<32>(incl);
        const S aggregate = __shfl_sync(0xffffffffu, incl, scan_warps - 1);
        const S prefix = look_back(st, tile, aggregate);
        if (lane < scan_warps) s_offset[lane] = prefix + before;
    }
    __syncthreads();
    S carry = s_offset[warp];
    static_for<U>([&](auto u) {
        static_for<scan_per_lane>([&](auto i) { o[u][i] += carry; });
        carry += t[u];
        const long long f = first + u * scan_tile;
        scan_store<Scanner, Vec>(out + f, o[u], n - f);
    });
}

template <class S>
struct scan_layout {
    std::size_t flags_off, aggregate_off, inclusive_off, bytes;
    explicit scan_layout(long long tiles)
    {
        auto up = [](std::size_t b) { return (b + 255) / 256 * 256; };
        flags_off = 256;
        aggregate_off = flags_off + up(static_cast<std::size_t>(tiles) * sizeof(int));
        inclusive_off = aggregate_off + up(static_cast<std::size_t>(tiles) * sizeof(S));
        bytes = inclusive_off + up(static_cast<std::size_t>(tiles) * sizeof(S));
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

template <class Scanner>
inline void scan_device(const char* where, void* temp, std::size_t& temp_bytes,
                        const typename Scanner::in_type* in, typename Scanner::sum_type* out, long long n,
                        cudaStream_t stream)
{
    using T = typename Scanner::in_type;
    using S = typename Scanner::sum_type;
    require_size(n, where, "n");
    const long long tiles = ceil_div(n, scan_block_elems);
    require(tiles < INT_MAX, where, "n is too large for the tile counter");
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
    const scan_state<S> st{reinterpret_cast<int*>(base), reinterpret_cast<int*>(base + lay.flags_off),
                           reinterpret_cast<S*>(base + lay.aggregate_off),
                           reinterpret_cast<S*>(base + lay.inclusive_off)};
    TCORE_CHECK(cudaMemsetAsync(base, 0, lay.flags_off + static_cast<std::size_t>(tiles) * sizeof(int), stream));
    const bool vec = aligned(in, Scanner::in_group * sizeof(T)) && aligned(out, Scanner::out_group * sizeof(S));
    if (vec) scan_device_kernel<Scanner, true><<<static_cast<unsigned>(tiles), scan_threads, 0, stream>>>(in, out, n, st);
    else scan_device_kernel<Scanner, false><<<static_cast<unsigned>(tiles), scan_threads, 0, stream>>>(in, out, n, st);
    TCORE_CHECK_LAUNCH();
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
    const bool vec = aligned(in, Whole::in_group * sizeof(T)) && aligned(out, Whole::out_group * sizeof(S)) &&
                     segment_size % Whole::in_group == 0 && segment_size % Whole::out_group == 0;
    if (vec && segment_size == 64) {
        auto kernel = scan_pair_segments_kernel<Pair>;
        const long long grid = resident_grid(kernel, scan_threads, ceil_div(ceil_div(n, 2 * scan_tile), scan_warps));
        kernel<<<static_cast<unsigned>(grid), scan_threads, 0, stream>>>(in, out, n);
    } else if (vec) {
        auto kernel = scan_segments_kernel<Whole, true>;
        const long long grid = resident_grid(kernel, scan_threads, ceil_div(num_segments, scan_warps));
        kernel<<<static_cast<unsigned>(grid), scan_threads, 0, stream>>>(in, out, num_segments, segment_size);
    } else {
        auto kernel = scan_segments_kernel<Whole, false>;
        const long long grid = resident_grid(kernel, scan_threads, ceil_div(num_segments, scan_warps));
        kernel<<<static_cast<unsigned>(grid), scan_threads, 0, stream>>>(in, out, num_segments, segment_size);
    }
    TCORE_CHECK_LAUNCH();
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
