// tcore/patterns/interp_gather.cuh - the gather FP16 path for down-scaling
// (section comment below): channels in M and K, RGBA words straight from
// global memory, 4 output columns x tiles of 8 output rows per warp. Its
// plan (gather_plan, plan_gather, gather_tiles: host, from the image sizes),
// the generated operands (gather_a1_word, make_b2_gather), the element maps
// of D2 and of the stored pixel, and resample_gather_warp.
//
// Preconditions: resample_gather_warp is warp-collective (all 32 lanes
// converged; every branch around an MMA is warp-uniform), needs no shared
// memory and no block barrier; RGBA input rows 4 Vec-byte aligned with
// in.pitch * in.height < 2^31, RGBA output rows 4-byte aligned, and a
// window (NK1, Vec) that holds every column group's taps (plan_gather);
// none of these is checked here.
#pragma once

#include "interp_staging.cuh"

#include "../backend.cuh"
#include "../check.cuh"
#include "../frag/f16_m16n8k16.cuh"
#include "../frag/f64_m16n8k16.cuh"
#include "../frag/reuse.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace tcore::interp {

// -- the gather FP16 path (down-scaling) ---------------------------------------------
//
// Down-scaling by about 1.5 or more, the warp tile (interp_staged.cuh) wastes most of
// product 1 and stages every texel of the rows it reads through shared
// memory, behind a __syncthreads (blocks of 4 output rows at bicubic 4x
// down). The gather path puts the channels into M and K instead and reads
// the image straight from global memory, one RGBA word per B1 register pair:
//
//   product 1: D1 (16 = 4 output columns x 4 channels, 8 image rows)
//                = (Wx (x) I4) (16 x 16 = 4 texels x 4 channels, generated)
//                * Img (16 x 8 image rows, loaded)
//   product 2: D2 (16, 8 output rows) = [D1 | D1'] (16 image rows) as A
//                * Wy^T (16 image rows x 8 output rows, generated)
//
// M: row m is output column m & 3, channel m >> 2. K of product 1 (one k
// block): lane (g, t)'s slots 2t, 2t+1 are channels 0, 1 and 2t+8, 2t+9
// channels 2, 3 of one texel, texel x0 + nk1 t + kb of k block kb (so a
// lane's texels over the nk1 k blocks are contiguous: one vector load per
// image row), and its B1 registers are that RGBA word as two exact half2
// (gather_b1: bytes 0,1 and 2,3, as 1024 + byte with FP32 accumulation).
// A1 of column j, channel c at slot
// (texel x, channel c') is w_j(x) if c == c', else 0: on lane (g, t) only
// registers 0 and 3 (elements 0/1 and 6/7) can be non-zero, both the weight
// of column g & 3 at the lane's texel in half (g >> 2) & 1.
//
// Rows are gathered per output row: n-tile nt's column n (lane g) is row
// label L = 8 nt + g, tap L % taps of output row L / taps of the tile
// (clamped to the image), so a tile of 8 output rows reads 8 taps rows in
// taps n-tiles and product 2 runs taps / 2 k blocks (labels 16 q .. 16 q + 15,
// A2 = reuse_a of n-tiles 2q, 2q+1, in place) with B2 block-diagonal: k row
// L, column r is w_r(L - taps r) for 0 <= L - taps r < taps, else 0.
//
// D2 holds channel m >> 2 of column m & 3 for output rows 2t, 2t+1: lanes
// g and g + 4 (lane ^ 16) swap a channel pair so that each ends with one
// RGBA pixel (gather_pixel_of), stored as one word.
//
// A warp takes the 4 output columns from ox0 and walks `tiles` tiles of 8
// output rows down from oy_first, issuing the loads of tile i + D
// (gather_prefetch) before tile i's MMAs. The texel window of its columns,
// [x0, x0 + 4 nk1) with x0 the first tap of column ox0 rounded down to a
// multiple of vec, must hold every tap of the 4 columns (plan_gather
// checks every column group with the device's FP32 positions); windows
// reaching past the image's edges load word by word, clamped. Where no
// texel is read by two warps (bicubic at whole scale factors such as 4x),
// the loads stream: L1 is not allocated and L2 fetches 256 bytes, so the
// neighbouring warps' halves of a DRAM burst arrive with it.

/// Tiles a warp loads ahead (its words per tile taps x nk1: 4 -> 3 tiles,
/// up to 16 -> 2, more -> 1), so that an SM keeps 12-16 KiB of loads in
/// flight per 8 warps; the words of D + 1 tiles live in registers.
template <filter F, int NK1>
inline constexpr int gather_prefetch = taps<F> * NK1 <= 4 ? 3 : (taps<F> * NK1 <= 16 ? 2 : 1);
/// Warps per block (4 output columns each): 4 for bicubic 16-texel windows,
/// else 8 (4-warp blocks at the same warps per SM, with streaming loads,
/// measured faster on bicubic 4x down; bilinear 1.6x down was slower with
/// 4; examples/interp/README.md).
template <filter F, int NK1>
inline constexpr int gather_block_warps = F == filter::bicubic && NK1 == 4 ? 4 : 8;
inline constexpr int gather_cols = 4;   ///< output columns per warp
inline constexpr int gather_rows = 8;   ///< output rows per tile

/// First texel of the window of the 4 columns from ox0: the first tap of
/// column ox0 rounded down to a multiple of vec (a power of 2).
template <filter F>
__host__ __device__ inline int gather_x0(int ox0, float scale_x, int vec)
{
    return (locate<float>(ox0, scale_x).i0 + first_tap<F>) & ~(vec - 1);
}

/// Launch shape of the gather path: nk1 k blocks (a window of 4 nk1
/// texels), loaded `vec` words at a time, `tiles` tiles per warp.
struct gather_plan {
    int k_blocks = 0;
    int vec = 0;
    int tiles = 0;
    bool streaming = false;  ///< loads skip L1 (gather_streams)
    bool usable = false;     ///< false: no window size fits (use the staged path)
};

/// Vector width of an nk1-block window: 2 -> 2, 4 and 8 -> 4, 6 -> 2 (a
/// lane's nk1 texels start at x0 + nk1 t, 4 vec-byte aligned).
__host__ __device__ constexpr int gather_vec(int nk1) { return nk1 % 4 == 0 ? 4 : 2; }

/// Whether the gather loads stream (L1::no_allocate, L2::256B): bicubic
/// where every column group's window ends before the next one's starts and
/// consecutive output rows share no image row, so no texel is read twice
/// and L1 would only hold lines nobody reuses. Streaming measured faster on
/// bicubic 4x down; bilinear 4x down was slower streamed, so it keeps L1
/// (examples/interp/README.md).
template <filter F>
inline bool gather_streams(int in_width, int in_height, int out_width, int out_height, int nk1, int vec)
{
    if (F != filter::bicubic) return false;
    const float sx = static_cast<float>(static_cast<double>(in_width) / out_width);
    const float sy = static_cast<float>(static_cast<double>(in_height) / out_height);
    for (int ox0 = gather_cols; ox0 < out_width; ox0 += gather_cols)
        if (gather_x0<F>(ox0, sx, vec) < gather_x0<F>(ox0 - gather_cols, sx, vec) + 4 * nk1) return false;
    for (int oy = 1; oy < out_height; ++oy)
        if (locate<float>(oy, sy).i0 < locate<float>(oy - 1, sy).i0 + taps<F>) return false;
    return true;
}

/// The smallest of nk1 = 2, 4, 6, 8 (vec = gather_vec(nk1)) whose window
/// holds every column group's taps, evaluated with the device's FP32
/// positions; tiles per warp as given (0: the launcher picks, gather_tiles).
template <filter F>
inline gather_plan plan_gather(int in_width, int in_height, int out_width, int out_height, int tiles)
{
    require(in_width > 0 && in_height > 0 && out_width > 0 && out_height > 0, "plan_gather",
            "sizes must be positive (got " + std::to_string(in_width) + "x" + std::to_string(in_height) + " -> " +
                std::to_string(out_width) + "x" + std::to_string(out_height) + ")");
    require(tiles >= 0, "plan_gather", "tiles per warp must be 0 (launcher picks) or positive (got " +
                                           std::to_string(tiles) + ")");
    gather_plan p;
    const float sx = static_cast<float>(static_cast<double>(in_width) / out_width);
    for (int nk1 = 2; nk1 <= 8; nk1 += 2) {
        const int vec = gather_vec(nk1);
        bool fits = true;
        for (int ox0 = 0; ox0 < out_width && fits; ox0 += gather_cols) {
            const int last = ox0 + gather_cols - 1 < out_width ? ox0 + gather_cols - 1 : out_width - 1;
            const int hi = locate<float>(last, sx).i0 + first_tap<F> + taps<F> - 1;
            fits = hi < gather_x0<F>(ox0, sx, vec) + 4 * nk1;
        }
        if (!fits) continue;
        p.k_blocks = nk1;
        p.vec = vec;
        p.tiles = tiles;
        p.streaming = gather_streams<F>(in_width, in_height, out_width, out_height, nk1, vec);
        const int rows = gather_rows * (tiles > 0 ? tiles : 1);  // the launcher's grid height at most
        p.usable = (out_height + rows - 1) / rows <= 65535;
        return p;
    }
    return p;
}

/// A1 register 0 (= register 3; registers 1 and 2 are 0) of k block kb on
/// `lane`: the weight of output column g & 3 (`col`, its FP16 weights) at
/// the lane's texel x0 + nk1 t + kb, in half (g >> 2) & 1.
__host__ __device__ inline unsigned gather_a1_word(int lane, const half_weights& col, int x0, int nk1, int kb)
{
    const int g = lane >> 2, t = lane & 3;
    return half_single(col, x0 + nk1 * t + kb) << (16 * ((g >> 2) & 1));
}

/// Product 1's k slot s of a gather k block: the lane quad t whose texel it
/// is, and the channel. The FP16 slot relabelling of the staged path
/// (tile::x_of_slot: slots 2t+{0,1}, 2t+{8,9} -> 4t..4t+3), read as
/// 4 t + channel.
struct gather_slot {
    int t, c;
};
__host__ __device__ constexpr gather_slot gather_slot_of(int s)
{
    const int x = tile<f16_m16n8k16_f32acc>::x_of_slot(s);
    return {x >> 2, x & 3};
}

/// B2 of k block q of a gather tile: k row k is row label L = 16 q + k, tap
/// L - taps r of output row r = the lane's column g, or 0. `wbits` are the
/// FP16 weights of output row g of the tile.
template <class Shape, filter F>
__host__ __device__ inline frag_b<Shape> make_b2_gather(int lane, const unsigned (&wbits)[taps<F>], int q)
{
    static_assert(tile<Shape>::is_half, "the gather path is FP16");
    frag_b<Shape> b;
    static_for<Shape::b_count / 2>([&](auto r) {
        // Elements 2r, 2r + 1: k rows k0, k0 + 1 (k0 even), one output row's taps j, j + 1.
        const coord rc = Shape::b_coord(lane, 2 * r);
        const int j = 16 * q + rc.row - taps<F> * rc.col;
        unsigned h = 0;
        static_for<taps<F> / 2>([&](auto p) {
            if (j == 2 * p) h = wbits[2 * p] | (wbits[2 * p + 1] << 16);
        });
        set_half_reg(b, r, h);
    });
    return b;
}

/// D2 element i of a gather tile: output column, output row, channel (D row
/// m is column m & 3, channel m >> 2; D column n is output row n).
__host__ __device__ constexpr tile<f16_m16n8k16_f32acc>::d2_elem gather_d2(int lane, int i)
{
    const coord mn = f16_m16n8k16_f32acc::c_coord(lane, i);
    return {mn.row & 3, mn.col, mn.row >> 2};
}
/// The pixel lane stores: {output row in the tile, output column} = {2t + ((g >> 2) & 1), g & 3}.
__host__ __device__ constexpr coord gather_pixel_of(int lane) { return {2 * (lane & 3) + ((lane >> 4) & 1), (lane >> 2) & 3}; }

/// The byte pairs of a gather store: q[i] the 8-bit levels of D2 element i
/// (low bytes); lanes with (g >> 2) & 1 == hi keep elements {hi, 2 + hi}
/// (their row 2t + hi, channels c, c + 2) and send the other two.
struct gather_pair {
    unsigned keep, send;
};
__host__ __device__ inline gather_pair gather_pairs(const unsigned (&q)[4], bool hi)
{
    const unsigned p01 = byte_perm(q[0], q[1], 0x0040u), p23 = byte_perm(q[2], q[3], 0x0040u);  // [q0 q1], [q2 q3]
    return {byte_perm(p01, p23, hi ? 0x0051u : 0x0040u), byte_perm(p01, p23, hi ? 0x0040u : 0x0051u)};
}
/// The RGBA word from the kept pair and the pair received from lane ^ 16.
__host__ __device__ inline unsigned gather_join(unsigned keep, unsigned recv, bool hi)
{
    return byte_perm(keep, recv, hi ? 0x1504u : 0x5140u);  // lo: [k0 r0 k1 r1], hi: [r0 k0 r1 k1]
}

/// The image row the lane loads for n-tile nt of the tile from oy0: row
/// label 8 nt + g is tap label % taps of output row oy0 + label / taps
/// (clamped to the output), clamped to the image.
template <filter F>
__device__ inline int gather_row(int nt, int g, int oy0, int out_height, int in_height, float scale_y)
{
    const int label = 8 * nt + g;
    const int oy = min(oy0 + label / taps<F>, out_height - 1);
    return min(max(locate<float>(oy, scale_y).i0 + first_tap<F> + label % taps<F>, 0), in_height - 1);  // clamp_index
}

/// B1 register pair of an RGBA word: channels 0, 1 and 2, 3 as half2.
/// Offset: 1024 + byte (one PRMT each, exact), the 1024 taken off by the
/// accumulator's initial value; else the bytes themselves (planar_to_half2).
template <bool Offset>
__device__ inline void gather_b1(unsigned w, unsigned& lo, unsigned& hi)
{
    if constexpr (Offset) {
        lo = __byte_perm(w, 0x64646464u, 0x4140u);  // [b0, 0x64, b1, 0x64] = 1024 + b0, 1024 + b1
        hi = __byte_perm(w, 0x64646464u, 0x4342u);
    } else {
        lo = planar_to_half2<false>(w);
        hi = planar_to_half2<true>(w);
    }
}

/// Vec (1, 2, 4) words from p (4 Vec-byte aligned) into w: read-only
/// loads through L1, or, Stream, ld.global.nc.L1::no_allocate.L2::256B.
template <int Vec, bool Stream>
__device__ inline void gather_load(const unsigned char* p, unsigned* w)
{
    if constexpr (!Stream) {
        if constexpr (Vec == 4) {
            const uint4 q = __ldg(reinterpret_cast<const uint4*>(p));
            w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
        } else if constexpr (Vec == 2) {
            const uint2 q = __ldg(reinterpret_cast<const uint2*>(p));
            w[0] = q.x, w[1] = q.y;
        } else {
            w[0] = __ldg(reinterpret_cast<const unsigned*>(p));
        }
    } else if constexpr (Vec == 4) {
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                     : "l"(p));
    } else if constexpr (Vec == 2) {
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p));
    } else {
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
    }
}

/// One warp of the gather path: output columns ox0 .. ox0 + 3, `tiles`
/// tiles of 8 output rows from oy_first. RGBA input with rows 4 Vec-byte
/// aligned and in.pitch * in.height < 2^31, RGBA output with 4-byte aligned
/// rows. The plan's window (NK1 k blocks, Vec) must hold the taps of every
/// column group (plan_gather). No shared memory, no block barrier; every
/// branch around an MMA is warp-uniform.
///
/// FP32 accumulation takes the texels as 1024 + b (one PRMT per half2, no
/// subtraction) and starts D1 at -1024 S, S the sum of the column's FP16
/// weights, the same for every channel and row (k slots of one channel
/// hold each window texel once): D1 = sum w (1024 + b) - 1024 S = sum w b.
/// Products are exact and the sums stay below 1024 * 1.25 + 255 * 1.25,
/// so rounding adds at most ~17 ulp(2048) = 0.004 of a level before D1 is
/// rounded to FP16 for product 2 (ulp 0.25 at 256..512). FP16 accumulation
/// could not hold 1024 + b to a level, so it subtracts 1024 first (HADD2).
template <class Backend, class Shape, filter F, int NK1, int Vec, bool Stream>
__device__ inline void resample_gather_warp(const image_view& in, const image_out<unsigned char>& out, float scale_x,
                                            float scale_y, int ox0, int oy_first, int tiles)
{
    static_assert(tile<Shape>::is_half, "the gather path is FP16");
    static_assert(NK1 % Vec == 0 && (Vec == 2 || Vec == 4), "whole vector loads");
    constexpr int n_taps = taps<F>;
    constexpr bool offset = std::is_same_v<typename Shape::c_type, float>;
    const int lane = lane_id(), g = lane >> 2, t = lane & 3;
    const bool hi = (g >> 2) & 1;
    if (ox0 >= out.width || oy_first >= out.height) return;  // warp-uniform

    // A1 of every k block, constant down the column: column g & 3's weights.
    const int x0 = gather_x0<F>(ox0, scale_x, Vec);
    const half_weights wcol = make_half_weights<F>(locate<float>(min(ox0 + (g & 3), out.width - 1), scale_x));
    frag_a<Shape> a1[NK1];
    static_for<NK1>([&](auto kb) {
        const unsigned w = gather_a1_word(lane, wcol, x0, NK1, kb);
        set_half_reg(a1[kb], 0, w), set_half_reg(a1[kb], 1, 0u), set_half_reg(a1[kb], 2, 0u), set_half_reg(a1[kb], 3, w);
    });
    // D1's initial value: -1024 S (offset) or 0.
    float d1_init = 0.0f;
    if constexpr (offset) {
        float w[n_taps];
        weights<F>(locate<float>(min(ox0 + (g & 3), out.width - 1), scale_x).a, w);
        static_for<n_taps>([&](auto j) { d1_init -= 1024.0f * __half2float(__float2half_rn(w[j])); });
    }
    const int x_lane = x0 + NK1 * t;
    const int pitch = static_cast<int>(in.pitch);  // in.pitch * in.height < 2^31 (plan)

    // This lane's pixel: column ox0 + (g & 3), row oy0 + 2t + hi.
    const coord px = gather_pixel_of(lane);  // {row in the tile, column}
    const bool col_ok = ox0 + px.col < out.width;
    unsigned char* out_word = out.data + static_cast<long long>(oy_first + px.row) * out.pitch + 4ll * (ox0 + px.col);
    const long long tile_pitch = gather_rows * out.pitch;

    auto tile_loop = [&](auto inside_) {
        constexpr bool Inside = decltype(inside_)::value;
        // Inside: the window lies in the image (vector loads from the lane's
        // first texel); else word by word at clamped columns.
        const unsigned char* lane_base = in.data + 4ll * x_lane;
        int xoff[NK1];
        static_for<NK1>([&](auto kb) { xoff[kb] = 4 * clamp_index(x_lane + kb, in.width); });
        auto load = [&](unsigned (&w)[n_taps][NK1], int oy0) {
            static_for<n_taps>([&](auto nt) {
                const int y = gather_row<F>(nt, g, oy0, out.height, in.height, scale_y);
                if constexpr (Inside) {
                    const unsigned char* row = lane_base + y * pitch;
                    static_for<NK1 / Vec>([&](auto v) { gather_load<Vec, Stream>(row + 4 * Vec * v, &w[nt][Vec * v]); });
                } else {
                    const unsigned char* row = in.data + y * pitch;
                    static_for<NK1>([&](auto kb) { gather_load<1, Stream>(row + xoff[kb], &w[nt][kb]); });
                }
            });
        };
        // Tile k from buffer k % (D + 1), tile k + D's loads issued first
        // into the buffer tile k - 1 used; false once the column is done.
        constexpr int D = gather_prefetch<F, NK1>;
        unsigned buf[D + 1][n_taps][NK1];
        auto exists = [&](int k) { return k < tiles && oy_first + gather_rows * k < out.height; };  // warp-uniform
        static_for<D>([&](auto j) {
            if (exists(j)) load(buf[j], oy_first + gather_rows * j);
        });
        int k = 0;
        auto step = [&](auto slot_) {
            constexpr int slot = decltype(slot_)::value;
            if (!exists(k)) return false;
            if (exists(k + D)) load(buf[(slot + D) % (D + 1)], oy_first + gather_rows * (k + D));
            const int oy0 = oy_first + gather_rows * k;

            unsigned wb[n_taps];
            weight_bits<F>(min(oy0 + g, out.height - 1), scale_y, wb);
            frag_c<Shape> d2;
            fill(d2, 0.0f);
            static_for<n_taps / 2>([&](auto q) {
                frag_c<Shape> d1[2];
                static_for<2>([&](auto h) {
                    fill(d1[h], d1_init);
                    static_for<NK1>([&](auto kb) {
                        unsigned lo, hi_bits;
                        gather_b1<offset>(buf[slot][2 * q + h][kb], lo, hi_bits);
                        frag_b<Shape> b;
                        set_half_reg(b, 0, lo), set_half_reg(b, 1, hi_bits);
                        mma<Backend>(d1[h], a1[kb], b, d1[h]);
                    });
                });
                mma<Backend>(d2, reuse_a<typename Shape::c_type>(d1[0], d1[1]), make_b2_gather<Shape, F>(lane, wb, q), d2);
            });

            unsigned qv[4];
            static_for<4>([&](auto e) { qv[e] = u8_low_byte<F == filter::bicubic>(static_cast<float>(d2.x[e])); });
            const gather_pair pr = gather_pairs(qv, hi);
            const unsigned recv = __shfl_xor_sync(0xffffffffu, pr.send, 16);
            if (col_ok && oy0 + px.row < out.height) *reinterpret_cast<unsigned*>(out_word) = gather_join(pr.keep, recv, hi);
            ++k, out_word += tile_pitch;
            return true;
        };
        bool go = true;
#pragma unroll 1
        while (go) static_for<D + 1>([&](auto slot) { go = go && step(slot); });
    };
    if (x0 >= 0 && x0 + 4 * NK1 <= in.width) tile_loop(std::true_type{});  // warp-uniform
    else tile_loop(std::false_type{});
}

/// Tiles per warp for an output of out_width x out_height when `resident`
/// blocks of block_warps warps fit on the device at once: the count (1..16)
/// that minimizes the waves of blocks times (tiles + 1/2, the warp's set-up
/// as about half a tile), the larger on a tie; a last partial wave costs as
/// much as a full one.
inline int gather_tiles(int out_width, int out_height, long long resident, int block_warps)
{
    require(out_width > 0 && out_height > 0, "gather_tiles",
            "output size must be positive (got " + std::to_string(out_width) + "x" + std::to_string(out_height) + ")");
    require(block_warps > 0, "gather_tiles", "warps per block must be positive (got " + std::to_string(block_warps) + ")");
    const long long block_cols = (out_width + gather_cols * block_warps - 1) / (gather_cols * block_warps);
    const long long row_tiles = (out_height + gather_rows - 1) / gather_rows;
    int best = 1;
    double best_cost = 0;
    for (int t = 1; t <= 16; ++t) {
        const long long blocks = block_cols * ((row_tiles + t - 1) / t);
        const long long waves = (blocks + resident - 1) / (resident > 0 ? resident : 1);
        const double cost = static_cast<double>(waves) * (t + 0.5);
        if (t == 1 || cost <= best_cost) best = t, best_cost = cost;
        if (static_cast<long long>(t) >= row_tiles) break;
    }
    return best;
}

}  // namespace tcore::interp
