// tcore/patterns/interp_staging.cuh - the parts of the staged FP16 path
// (FP16 shapes, 8-bit RGB or RGBA): its geometry (texel windows, staged rows,
// row groups), its launch plan (staged_plan, plan_staged: host, from the
// image sizes and a shared-memory budget), the staging loads and the 4x4
// byte transpose to channel-planar words (load_group, channel_planar), the
// exact byte-to-half conversion, the generated B2 of staged rows
// (make_b2_rows, make_b2_staged), the FP32-pipe 8-bit rounding
// (u8_low_byte) and the word stores of a row block (pixel_word,
// rgb_word_from, store_pair_bytes). The section comment below gives the
// design; resample_staged_block (interp_staged.cuh) composes these.
//
// Preconditions: pixel_word and rgb_word_from are warp-collective
// (shuffles, all 32 lanes converged); load_group needs 16-byte aligned RGBA
// rows or 4-byte aligned RGB rows where Aligned is set (not checked);
// the rest is per lane, host or device, as marked.
#pragma once

#include "interp_block.cuh"

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

// -- the staged FP16 path: block-wide input staging, contiguous or gathered rows ------------
//
// resample_block (interp_block.cuh) walks contiguous 4-row chunks and loads product 1's
// B straight from global memory, one dependent load per MMA pair: latency
// bound, and at down-scaling most chunk rows have weight 0. The staged path
// (FP16 shapes, tc-f16 / cc-f16) instead:
//  * stages the image rows the block reads once (contiguous rows, below),
//    or, where 2 output rows read more than 2 taps rows (down-scaling by
//    more than about taps), gives every output row its own `taps` image
//    rows (gathered, clamped to the edge), so product 2's k block holds
//    exactly the rows the row block (2 output rows) needs: bilinear one
//    chunk [a0 a1 b0 b1], bicubic two chunks [a0..a3], [b0..b3] (a, b the
//    two output rows);
//  * copies those rows over the block's texel window into shared memory,
//    channel-planar (per 4 texels one word per channel, so a lane's B1 is
//    one 4-byte load; RGB expanded to 4 channels, the fourth unused), eight
//    loads in flight per thread, then runs the MMAs out of shared memory;
//  * rounds to 8 bits on the FP32 pipe (u8_low_byte) and stores whole
//    words: an RGBA pixel per lane, RGB rows as 4-byte words;
//  * computes the A1 fragments of a warp's columns and the B2 fragments of
//    the block's row blocks once per block (they depend on the output column
//    / row only), in shared memory.
// A block is staged_warps warps side by side (16 output columns each) and
// plan.block_rows output rows; the host picks block_rows so the staging fits
// a shared-memory budget (staged_plan), and falls back to resample_block
// where even 2 rows do not (extreme down-scaling).
//
// Contiguous rows (plan.contiguous; up-scaling and down-scaling by less
// than about taps): where every group of 2 G output rows (G row blocks)
// reads image rows i0(first) + first_tap .. i0(last) + first_tap + taps - 1
// with i0(last) - i0(first) <= taps (checked for every group by
// shared_row_blocks), the block stages the contiguous image rows from
// i0(oy0) + first_tap once (each row read once per block, where gathered
// rows read a row once per output row that uses it). Group g's product 1
// and the reuse into A2 run once, over the 2 taps rows from its offset
// i0(first) - i0(oy0), and each of its row blocks runs only product 2 with
// its own B2 (the taps of its output rows at their offsets in those rows).
// Only the texels the block's columns read are loaded; the rest of a row,
// read by the last k block with weight 0, is set to 0.

inline constexpr int staged_warps = 4;                  ///< warps (16-column tiles) per block
inline constexpr int staged_cols = 16 * staged_warps;   ///< output columns per block

/// Product 1's texel window of the 16 output columns from ox0: a 4-aligned
/// start and the number of 16-texel k blocks.
struct texel_window {
    int xs, k_blocks;
};
template <filter F>
__host__ __device__ inline texel_window warp_window(int ox0, int out_width, float scale_x)
{
    const int ox_last = ox0 + 15 < out_width - 1 ? ox0 + 15 : out_width - 1;
    const int x_lo = locate<float>(ox0, scale_x).i0 + first_tap<F>;
    const int x_hi = locate<float>(ox_last, scale_x).i0 + first_tap<F> + taps<F> - 1;
    const int xs = x_lo & ~3;
    return {xs, (x_hi - xs) / 16 + 1};
}

/// First texel (4-aligned) of block column bx's staged window.
template <filter F>
__host__ __device__ inline int block_x0(int bx, float scale_x)
{
    return (locate<float>(staged_cols * bx, scale_x).i0 + first_tap<F>) & ~3;
}

/// Image row held by staged row `slot` of the block whose first output row
/// is oy0. Gathered (contiguous = false): output row oy0 + slot / taps
/// (clamped to the output), tap slot % taps. Contiguous rows: image row
/// i0(oy0) + first_tap + slot. Clamped to the image.
template <filter F>
__host__ __device__ inline int staged_row(int slot, int oy0, int out_height, int in_height, float scale_y,
                                          bool contiguous = false)
{
    if (contiguous) return clamp_index(locate<float>(oy0, scale_y).i0 + first_tap<F> + slot, in_height);
    const int oy = oy0 + slot / taps<F> < out_height ? oy0 + slot / taps<F> : out_height - 1;
    return clamp_index(locate<float>(oy, scale_y).i0 + first_tap<F> + slot % taps<F>, in_height);
}

/// First output row of the shared-rows group holding output row oy
/// (group_blocks row blocks, groups aligned to 2 group_blocks rows), clamped.
__host__ __device__ inline int group_first_row(int oy, int group_blocks, int out_height)
{
    const int oyg = oy - oy % (2 * group_blocks);
    return oyg < out_height ? oyg : out_height - 1;
}

/// First output row of the last group (2 group_blocks rows) of the block
/// from oy0 with block_rows rows that lies in the output, or a row after it
/// (min(oy0 + block_rows - 2 G, out_height - 1)): its i0 bounds the
/// contiguous rows a block reads.
__host__ __device__ inline int last_group_row(int oy0, int block_rows, int group_blocks, int out_height)
{
    const int oyl = oy0 + block_rows - 2 * group_blocks;
    return oyl < out_height - 1 ? oyl : out_height - 1;
}

/// The largest G in {max_group, .., 1} (powers of 2) such that every group of
/// 2 G output rows (aligned to 2 G, the last one cut at out_height) has
/// i0(last) - i0(first) <= taps, i.e. reads at most 2 taps contiguous image
/// rows; 0 if none (down-scaling by more than about taps). Evaluated with
/// the device's FP32 positions (locate<float>, bit-identical on the host).
template <filter F>
inline int shared_row_blocks(int out_height, float scale_y, int max_group = 4)
{
    for (int G = max_group; G >= 1; G /= 2) {
        if ((2 * G - 1) * static_cast<double>(scale_y) > taps<F> + 0.01) continue;
        bool fits = true;
        for (int oyg = 0; oyg < out_height && fits; oyg += 2 * G) {
            const int last = oyg + 2 * G - 1 < out_height ? oyg + 2 * G - 1 : out_height - 1;
            fits = locate<float>(last, scale_y).i0 - locate<float>(oyg, scale_y).i0 <= taps<F>;
        }
        if (fits) return G;
    }
    return 0;
}

/// Launch geometry and shared-memory layout of the staged path.
struct staged_plan {
    int block_rows = 0;       ///< output rows per block (even)
    int row_texels = 0;       ///< texels per staged row (16 mod 32), window plus 16 for the last k block
    int k_blocks = 0;         ///< most product-1 k blocks a warp needs
    int taps = 0;
    bool contiguous = false;  ///< staged rows are contiguous image rows (else gathered per output row)
    int group_blocks = 1;     ///< contiguous: row blocks per group sharing product 1 (block_rows % (2 group_blocks) == 0)
    int stage_rows = 0;       ///< contiguous: staged rows a block may need (i0(last group) - i0(oy0) + 2 taps)
    bool usable = false;      ///< false: use resample_block

    __host__ __device__ int slots() const { return contiguous ? stage_rows : block_rows * taps; }
    __host__ __device__ int chunks() const { return block_rows / 2 * (taps / 2); }  ///< product-2 k blocks per block
    __host__ __device__ std::size_t stage_bytes() const { return static_cast<std::size_t>(slots()) * row_texels * 4; }
    __host__ __device__ std::size_t b2_bytes() const { return static_cast<std::size_t>(chunks()) * 32 * sizeof(uint2); }
    __host__ __device__ std::size_t a1_bytes() const
    {
        return static_cast<std::size_t>(staged_warps) * (k_blocks > 1 ? k_blocks - 1 : 0) * 32 * sizeof(uint4);
    }
    __host__ __device__ std::size_t smem_bytes() const { return stage_bytes() + b2_bytes() + a1_bytes(); }
};

/// The plan for in -> out sizes: the window bound covers any 64 columns
/// (63 scale + taps, alignment and FP32 rounding slack). Contiguous rows
/// where shared_row_blocks finds a group size (up to max_group; 0 turns
/// them off: gathered rows), stage_rows the largest i0(last group) - i0(oy0)
/// + 2 taps over the blocks (FP32 positions, as the device). block_rows is
/// the largest multiple of 2 group_blocks up to max_rows that fits `budget`
/// bytes, lowered while the grid would have fewer than `min_blocks` blocks.
template <filter F>
inline staged_plan plan_staged(int in_width, int out_width, int in_height, int out_height, std::size_t budget,
                               int max_rows = 32, long long min_blocks = 1056, int max_group = 4)
{
    require(in_width > 0 && out_width > 0 && in_height > 0 && out_height > 0, "plan_staged",
            "sizes must be positive (got " + std::to_string(in_width) + "x" + std::to_string(in_height) + " -> " +
                std::to_string(out_width) + "x" + std::to_string(out_height) + ")");
    staged_plan p;
    p.taps = taps<F>;
    const float sx = static_cast<float>(static_cast<double>(in_width) / out_width);
    const float sy = static_cast<float>(static_cast<double>(in_height) / out_height);
    while (max_group > 1 && 2 * max_group > max_rows) max_group /= 2;
    const int G = max_group > 0 ? shared_row_blocks<F>(out_height, sy, max_group) : 0;
    p.contiguous = G > 0;
    p.group_blocks = G > 0 ? G : 1;
    const int row_step = 2 * p.group_blocks;
    // Window plus 16 texels, rounded to 16 (mod 32) texels so that the two
    // staged rows of one B1 load fall in disjoint shared-memory banks.
    const int span = static_cast<int>(std::ceil(63.0 * sx)) + taps<F> + 8;
    p.row_texels = (span + 31) / 32 * 32 + 16;
    p.k_blocks = (static_cast<int>(std::ceil(15.0 * sx)) + taps<F> + 8) / 16 + 1;
    const long long col_blocks = (out_width + staged_cols - 1) / staged_cols;
    for (int rows = max_rows / row_step * row_step; rows >= row_step; rows -= row_step) {
        p.block_rows = rows;
        if (p.contiguous) {
            p.stage_rows = 0;
            for (int oy0 = 0; oy0 < out_height; oy0 += rows) {
                const int oyl = last_group_row(oy0, rows, p.group_blocks, out_height);
                const int need = locate<float>(oyl, sy).i0 - locate<float>(oy0, sy).i0 + 2 * taps<F>;
                p.stage_rows = need > p.stage_rows ? need : p.stage_rows;
            }
        }
        if (p.smem_bytes() > budget) continue;
        const long long blocks = col_blocks * ((out_height + rows - 1) / rows);
        if (blocks < min_blocks && rows > 8) continue;
        p.usable = (out_height + rows - 1) / rows <= 65535;
        return p;
    }
    p.usable = false;
    return p;
}

/// Texels x .. x + 3 of image row `row` (clamped to the image) as four
/// RGBA words. Aligned: RGBA rows 16-byte aligned (one 16-byte load inside
/// the image) or RGB rows 4-byte aligned (three words, expanded); otherwise
/// byte by byte. Byte 3 of an RGB texel is not a channel (never stored).
template <int C, bool Aligned>
__device__ inline uint4 load_group(const unsigned char* row, int x, int width)
{
    const bool inside = x >= 0 && x + 3 < width;
    if constexpr (C == 4 && Aligned) {
        if (inside) return __ldg(reinterpret_cast<const uint4*>(row + 4ll * x));
        unsigned q[4];
        static_for<4>([&](auto e) { q[e] = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x + e, width))); });
        return make_uint4(q[0], q[1], q[2], q[3]);
    } else if constexpr (C == 3 && Aligned) {
        if (inside) {
            const unsigned* w = reinterpret_cast<const unsigned*>(row + 3ll * x);  // x % 4 == 0: 4-byte aligned
            const unsigned a = __ldg(w), b = __ldg(w + 1), c = __ldg(w + 2);    // r0g0b0r1 g1b1r2g2 b2r3g3b3
            return make_uint4(a, __byte_perm(a, b, 0x5543u), __byte_perm(b, c, 0x4432u), __byte_perm(c, c, 0x3321u));
        }
    }
    unsigned q[4];
    static_for<4>([&](auto e) {
        const unsigned char* p = row + static_cast<long long>(C) * clamp_index(x + e, width);
        unsigned v = 0;
        static_for<C>([&](auto c) { v |= static_cast<unsigned>(__ldg(p + c)) << (8 * c); });
        q[e] = v;
    });
    return make_uint4(q[0], q[1], q[2], q[3]);
}

/// __byte_perm on host and device: byte i of the result is byte
/// (s >> 4i) & 7 of the 8 bytes [x, y].
__host__ __device__ inline unsigned byte_perm(unsigned x, unsigned y, unsigned s)
{
#if defined(__CUDA_ARCH__)
    return __byte_perm(x, y, s);
#else
    const unsigned long long xy = x | (static_cast<unsigned long long>(y) << 32);
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((xy >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
#endif
}

/// Four RGBA words (texels 0..3) to channel-planar words: word c holds
/// channel c of texels 0..3 (byte i = texel i), a 4x4 byte transpose.
__host__ __device__ inline uint4 channel_planar(uint4 v)
{
    const unsigned a = byte_perm(v.x, v.y, 0x5140u), b = byte_perm(v.z, v.w, 0x5140u);  // [x0 y0 x1 y1], [z0 w0 z1 w1]
    const unsigned c = byte_perm(v.x, v.y, 0x7362u), d = byte_perm(v.z, v.w, 0x7362u);  // [x2 y2 x3 y3], [z2 w2 z3 w3]
    return make_uint4(byte_perm(a, b, 0x5410u), byte_perm(a, b, 0x7632u), byte_perm(c, d, 0x5410u),
                      byte_perm(c, d, 0x7632u));
}

/// Bytes 0, 1 (low half) and 2, 3 (high half) of w... as an exact half2:
/// 1024 + byte built from the bits, then 1024 subtracted. Hi picks bytes 2, 3.
template <bool Hi>
__device__ inline unsigned planar_to_half2(unsigned w)
{
    const unsigned h = __byte_perm(w, 0x64646464u, Hi ? 0x4342u : 0x4140u);  // [b, 0x64, b', 0x64]
    const __half2 v = __hsub2(*reinterpret_cast<const __half2*>(&h), __floats2half2_rn(1024.0f, 1024.0f));
    return *reinterpret_cast<const unsigned*>(&v);
}

/// The 8-bit level of v in the low byte (upper bytes not 0), on the FP32
/// pipe: clamp to [0, 255] (NaN -> 0), then add 1.5 * 2^23 so that the FP32
/// addition rounds to the nearest integer, ties to even, exactly as to_u8.
/// MaybeNegative = false skips the lower clamp where v >= 0 or v is -0 (bilinear:
/// non-negative weights and texels).
template <bool MaybeNegative = true>
__host__ __device__ inline unsigned u8_low_byte(float v)
{
    const float r = fminf(MaybeNegative ? fmaxf(v, 0.0f) : v, 255.0f) + 12582912.0f;
#if defined(__CUDA_ARCH__)
    return __float_as_uint(r);
#else
    unsigned u;
    std::memcpy(&u, &r, sizeof u);
    return u;
#endif
}

/// B2 of chunk ch of a row block whose staged rows hold the taps of the
/// lane's output row (the row of its B column) at slots first_slot ..
/// first_slot + taps - 1: k row (chunk row r, channel c) is slot s = 4 ch +
/// r, weight wbits[s - first_slot] where that is a tap, else 0; `wbits` are
/// the FP16 weights (bits) of the lane's output row.
template <class Shape, filter F>
__host__ __device__ inline frag_b<Shape> make_b2_rows(int lane, const unsigned (&wbits)[taps<F>], int ch,
                                                      int first_slot)
{
    using T = tile<Shape>;
    static_assert(T::is_half, "the staged path is FP16");
    frag_b<Shape> b;
    static_for<Shape::b_count / 2>([&](auto r) {
        const typename T::b2_elem lo = T::b2(lane, 2 * r), hi = T::b2(lane, 2 * r + 1);
        const int j_of_s = 4 * ch + lo.row - first_slot;
        unsigned h = 0;
        static_for<taps<F>>([&](auto j) {
            if (j_of_s == j) h = wbits[j];
        });
        set_half_reg(b, r, lo.c == lo.out_c ? h : (hi.c == hi.out_c ? h << 16 : 0u));
    });
    return b;
}

/// B2 of chunk ch of a gathered row block: slot s = 4 ch + r is tap s % taps
/// of output row s / taps (make_b2_rows with first_slot = out_row taps).
template <class Shape, filter F>
__host__ __device__ inline frag_b<Shape> make_b2_staged(int lane, const unsigned (&wbits)[taps<F>], int ch)
{
    return make_b2_rows<Shape, F>(lane, wbits, ch, tile<Shape>::b2(lane, 0).out_row * taps<F>);
}

/// FP16 weight bits of output index d (FP32 position and weights, rounded).
template <filter F>
__host__ __device__ inline void weight_bits(int d, float scale, unsigned (&bits)[taps<F>])
{
    float w[taps<F>];
    weights<F>(locate<float>(d, scale).a, w);
    static_for<taps<F>>([&](auto j) { bits[j] = half_bits(w[j]); });
}

/// D2 of one row block (output rows oy, oy + 1) as one pixel per lane: lanes
/// t and t^1 swap a channel pair, so lane (g, t) ends with all 4 channel
/// bytes of column g + 8 (t & 1), row oy + (t >> 1) (its index: pixel_lane).
template <class Shape, bool MaybeNegative = true>
__device__ inline unsigned pixel_word(const frag_c<Shape>& d, int lane)
{
    const int t = lane & 3;
    unsigned q[4];
    static_for<4>([&](auto i) { q[i] = u8_low_byte<MaybeNegative>(static_cast<float>(d.x[i])); });
    const unsigned pair_g = __byte_perm(q[0], q[1], 0x0040u);   // channels c, c+1 of column g
    const unsigned pair_g8 = __byte_perm(q[2], q[3], 0x0040u);  // ... of column g + 8
    const unsigned recv = __shfl_xor_sync(0xffffffffu, (t & 1) ? pair_g : pair_g8, 1);
    const unsigned lo = (t & 1) ? recv : pair_g, hi = (t & 1) ? pair_g8 : recv;
    return __byte_perm(lo, hi, 0x5410u);
}
/// The lane whose pixel_word is column col (0..15), row r (0, 1) of the row block.
__host__ __device__ constexpr int pixel_lane(int col, int r) { return 4 * (col & 7) + 2 * r + (col >> 3); }

/// Word k of RGB row r (0, 1) of a row block: bytes 4k .. 4k + 3 are pixel
/// p0's bytes from 4k - 3 p0 on, then pixel p0 + 1's (byte_perm selector).
/// Lanes 0..23 store words (r, k) = (lane / 12, lane % 12); 24..31 repeat 16..23.
struct rgb_word {
    int r, k, p0;
    unsigned select;
};
__host__ __device__ constexpr rgb_word rgb_word_of(int lane)
{
    const int wl = lane < 24 ? lane : lane - 8;
    const int r = wl >= 12 ? 1 : 0, k = wl - 12 * r;
    const int p0 = (4 * k) / 3, off = 4 * k - 3 * p0;
    return {r, k, p0, off == 0 ? 0x4210u : (off == 1 ? 0x5421u : 0x6542u)};
}

/// This lane's RGB word `w` from the lanes' pixel words (two shuffles).
__device__ inline unsigned rgb_word_from(unsigned px, const rgb_word& w)
{
    const unsigned first = __shfl_sync(0xffffffffu, px, pixel_lane(w.p0, w.r));
    const unsigned second = __shfl_sync(0xffffffffu, px, pixel_lane(w.p0 + 1, w.r));
    return __byte_perm(first, second, w.select);
}

/// Stores a row block element by element (any channel count and pitch).
template <class Shape>
__device__ inline void store_pair_bytes(const image_out<unsigned char>& out, const frag_c<Shape>& d, int ox0, int oy,
                                        int lane)
{
    using T = tile<Shape>;
    static_for<4>([&](auto i) {
        const typename T::d2_elem e = T::d2(lane, i, 0);
        const int ox = ox0 + e.col, y = oy + e.row;
        if (ox < out.width && y < out.height && e.c < out.channels)
            out.data[static_cast<long long>(y) * out.pitch + static_cast<long long>(ox) * out.channels + e.c] =
                static_cast<unsigned char>(u8_low_byte(static_cast<float>(d.x[i])));
    });
}

}  // namespace tcore::interp
