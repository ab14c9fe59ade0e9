// tcore/patterns/interp_staged.cuh - resample_staged_block, one block of the
// staged FP16 path (design: interp_staging.cuh): 64 output columns (4 warps
// of 16) x plan.block_rows output rows, the image rows it reads staged
// channel-planar in shared memory, 8-bit RGB or RGBA output.
//
// Preconditions: a 1-D block of staged_warps * 32 threads (debug builds
// assert it, require_block_threads), every thread
// calls it (one __syncthreads); `smem` holds plan.smem_bytes() bytes,
// 16-byte aligned; `plan` from plan_staged<F> for these image sizes (its
// window and staged rows are not checked here); Contiguous == plan.contiguous;
// InAligned / OutWords as stated at the function (not checked).
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

/// One block of the staged path: output columns staged_cols bx .. + 63
/// (warp w: 16 w .. 16 w + 15), rows plan.block_rows by .. + block_rows - 1.
/// `smem` holds plan.smem_bytes() bytes (16-byte aligned). Every thread
/// calls it (one __syncthreads). InAligned: RGBA rows 16-byte aligned or RGB
/// rows 4-byte aligned (load_group); OutWords: 4-byte aligned output rows
/// (RGBA: a pixel per lane, RGB: 24 words per row block), else byte stores.
/// Contiguous: plan.contiguous (the caller dispatches on it). PairRows
/// (contiguous plans with group_blocks >= 2): the row blocks of a group two
/// at a time, two independent product-2 / rounding / store chains.
template <class Backend, class Shape, filter F, int C, bool InAligned, bool OutWords, bool Contiguous = false,
          bool PairRows = false>
__device__ inline void resample_staged_block(const image_view& in, const image_out<unsigned char>& out, float scale_x,
                                             float scale_y, const staged_plan& plan, int bx, int by,
                                             unsigned char* smem)
{
    require_block_threads<staged_warps * 32>();
    using T = tile<Shape>;
    static_assert(T::is_half, "the staged path is FP16");
    constexpr int n_taps = taps<F>, chunks_per_block = n_taps / 2;
    const int lane = lane_id(), g = lane >> 2, t = lane & 3;
    const int warp = static_cast<int>(threadIdx.x >> 5);
    const int xw0 = block_x0<F>(bx, scale_x);
    const int row_bytes = 4 * plan.row_texels;
    unsigned char* stage = smem;
    uint2* b2_tab = reinterpret_cast<uint2*>(smem + plan.stage_bytes());
    uint4* a1_tab = reinterpret_cast<uint4*>(smem + plan.stage_bytes() + plan.b2_bytes()) +
                    static_cast<std::size_t>(warp) * (plan.k_blocks - 1) * 32;

    // A1 of this warp's columns: k block 0 in registers, the rest in shared memory.
    const int ox0 = staged_cols * bx + 16 * warp;
    const bool active = ox0 < out.width;  // warp-uniform
    const texel_window win = warp_window<F>(ox0, out.width, scale_x);
    const half_weights wx[2] = {make_half_weights<F>(locate<float>(ox0 + g, scale_x)),
                                make_half_weights<F>(locate<float>(ox0 + g + 8, scale_x))};
    const frag_a<Shape> a1_first = make_a1<Shape, F>(lane, wx, win.xs);
    if (active)
        for (int kb = 1; kb < win.k_blocks; ++kb) {
            const frag_a<Shape> a = make_a1<Shape, F>(lane, wx, win.xs + 16 * kb);
            a1_tab[(kb - 1) * 32 + lane] = make_uint4(half_reg(a, 0), half_reg(a, 1), half_reg(a, 2), half_reg(a, 3));
        }

    const int oy0 = plan.block_rows * by;
    const int i0_first = locate<float>(oy0, scale_y).i0;  // contiguous: staged row s is i0_first + first_tap + s

    // Staged rows, channel-planar: warp w fills slots w, w + 4, ..; its
    // (slot, 4-texel group) items are dealt to the lanes in turn, `batch`
    // loads per lane in flight before their stores. Groups past the texels
    // the block's columns read (up to the warps' last k blocks) are 0. The
    // transpose (channel_planar) runs in the store loop, after the batch's
    // loads are issued: applied right after each load it made every load wait
    // for the one before (one load in flight per lane), which measured
    // slower on the DRAM-streaming down-scales (examples/interp/README.md).
    {
        const int last_col = min(staged_cols * bx + staged_cols - 1, out.width - 1);
        const int loaded = ((locate<float>(last_col, scale_x).i0 + first_tap<F> + n_taps - 1 - xw0) >> 2) + 1;
        // A warp's window ends at most 16 texels past its last tap (warp_window).
        const int groups = min(loaded + 3, plan.row_texels / 4);
        const int slots =
            Contiguous ? locate<float>(last_group_row(oy0, plan.block_rows, plan.group_blocks, out.height), scale_y).i0 -
                             i0_first + 2 * n_taps
                       : plan.slots();
        const int items = (slots - warp + staged_warps - 1) / staged_warps * groups;
        // Item i is slot warp + 4 (i / groups), group i % groups; the quotient
        // in FP32 is exact: (i + 1/2) / groups is at least 1/(2 groups) from
        // an integer, far more than the rounding error for these sizes.
        const float inv_groups = 1.0f / static_cast<float>(groups);
        constexpr int batch = 8;
        for (int i0 = lane; i0 < items; i0 += 32 * batch) {
            uint4 v[batch];
            int at[batch];
            static_for<batch>([&](auto k) {
                const int i = i0 + 32 * k;
                const int j = static_cast<int>((static_cast<float>(i) + 0.5f) * inv_groups);
                const int gi = i - j * groups, s = warp + staged_warps * j;
                at[k] = i < items ? s * row_bytes + 16 * gi : -1;
                v[k] = make_uint4(0u, 0u, 0u, 0u);
                if (i < items && gi < loaded) {
                    const int y = Contiguous ? clamp_index(i0_first + first_tap<F> + s, in.height)
                                             : staged_row<F>(s, oy0, out.height, in.height, scale_y);
                    v[k] = load_group<C, InAligned>(in.data + y * in.pitch, xw0 + 4 * gi, in.width);
                }
            });
            static_for<batch>([&](auto k) {
                if (at[k] >= 0) *reinterpret_cast<uint4*>(stage + at[k]) = channel_planar(v[k]);  // 0 stays 0
            });
        }
    }

    // B2 of every chunk of the block (row block nb = e / chunks_per_block).
    for (int e = warp; e < plan.chunks(); e += staged_warps) {
        const int nb = e / chunks_per_block, ch = e % chunks_per_block;
        const int oy = min(oy0 + 2 * nb + (g >> 2), out.height - 1);
        unsigned wb[n_taps];
        weight_bits<F>(oy, scale_y, wb);
        frag_b<Shape> b;
        if constexpr (Contiguous) {
            // group_first_row(oy0 + 2 nb): G is a power of 2 and oy0 a multiple of 2 G.
            const int oyg = min(oy0 + 2 * (nb & -plan.group_blocks), out.height - 1);
            b = make_b2_rows<Shape, F>(lane, wb, ch, locate<float>(oy, scale_y).i0 - locate<float>(oyg, scale_y).i0);
        } else {
            b = make_b2_staged<Shape, F>(lane, wb, ch);
        }
        b2_tab[e * 32 + lane] = make_uint2(half_reg(b, 0), half_reg(b, 1));
    }

    __syncthreads();
    if (!active) return;

    // This lane's B1: staged slot s + 2 n1 + (g >> 2), channel g & 3 of texels
    // 4t .. 4t + 3 of the k block (tile::b1): one planar word.
    const unsigned char* b1_base = stage + (g >> 2) * row_bytes + 4 * (win.xs - xw0 + 4 * t) + 4 * (g & 3);
    // This lane's output word (row block 0; + 2 pitch per row block): RGBA one
    // pixel (pixel_word), RGB word k of row r (rgb_word_of), for full tiles.
    const bool full_tile = ox0 + 16 <= out.width;  // warp-uniform
    const int px_col = ox0 + g + 8 * (t & 1), px_row = t >> 1;
    const rgb_word rw = rgb_word_of(lane);
    unsigned char* out_word = C == 4 ? out.data + static_cast<long long>(oy0 + px_row) * out.pitch + 4ll * (px_col < out.width ? px_col : 0)
                                     : out.data + static_cast<long long>(oy0 + rw.r) * out.pitch + 3ll * ox0 + 4 * rw.k;
    const long long row_block_pitch = 2 * out.pitch;

    // Product 1 and the reuse of the staged rows from slot s (s .. s + 3) into
    // A2. OneK: every output column's taps lie in one k block (warp-uniform),
    // so D1 needs one MMA pair and no accumulator.
    auto chunk_a2 = [&](int s, auto one_k) {
        constexpr bool OneK = decltype(one_k)::value;
        frag_c<Shape> d1[2];
        fill(d1[0], 0.0f);
        fill(d1[1], 0.0f);
        const unsigned char* p = b1_base + s * row_bytes;
        auto k_block = [&](int kb, const frag_a<Shape>& a1) {
            static_for<2>([&](auto n1) {
                const unsigned w = *reinterpret_cast<const unsigned*>(p + 2 * n1 * row_bytes + 64 * kb);
                frag_b<Shape> b1;
                set_half_reg(b1, 0, planar_to_half2<false>(w));
                set_half_reg(b1, 1, planar_to_half2<true>(w));
                mma<Backend>(d1[n1], a1, b1, d1[n1]);
            });
        };
        k_block(0, a1_first);
        if constexpr (!OneK) {
#pragma unroll 1
            for (int kb = 1; kb < win.k_blocks; ++kb) {
                const uint4 r = a1_tab[(kb - 1) * 32 + lane];
                frag_a<Shape> a1;
                set_half_reg(a1, 0, r.x), set_half_reg(a1, 1, r.y);
                set_half_reg(a1, 2, r.z), set_half_reg(a1, 3, r.w);
                k_block(kb, a1);
            }
        }
        return reuse_a<typename Shape::c_type>(d1[0], d1[1]);
    };
    // Product 2 of chunk q of row block nb: d2 += A2 B2(nb, ch).
    auto product2 = [&](frag_c<Shape>& d2, const frag_a<Shape>& a2, int q) {
        const uint2 r = b2_tab[q * 32 + lane];
        frag_b<Shape> b2;
        set_half_reg(b2, 0, r.x), set_half_reg(b2, 1, r.y);
        mma<Backend>(d2, a2, b2, d2);
    };
    // Rounds and stores row block (rows oy, oy + 1) at out_word.
    auto store_row_block = [&](const frag_c<Shape>& d2, int oy, unsigned char* word) {
        if constexpr (OutWords && C == 4) {
            const unsigned px = pixel_word<Shape, F == filter::bicubic>(d2, lane);
            if (px_col < out.width && oy + px_row < out.height) *reinterpret_cast<unsigned*>(word) = px;
        } else if constexpr (OutWords && C == 3) {
            if (full_tile) {
                const unsigned w = rgb_word_from(pixel_word<Shape, F == filter::bicubic>(d2, lane), rw);
                if (lane < 24 && oy + rw.r < out.height) *reinterpret_cast<unsigned*>(word) = w;
            } else {
                store_pair_bytes<Shape>(out, d2, ox0, oy, lane);
            }
        } else {
            store_pair_bytes<Shape>(out, d2, ox0, oy, lane);
        }
    };

    auto row_blocks = [&](auto one_k) {
        if constexpr (Contiguous) {
            // Groups of G row blocks: product 1 once per chunk of the group's
            // 2 taps rows (from its offset in the staged rows), product 2 per row block.
            const int G = plan.group_blocks;
#pragma unroll 1
            for (int gq = 0; gq < plan.block_rows / (2 * G); ++gq) {
                const int oyg = oy0 + 2 * G * gq;
                if (oyg >= out.height) break;
                const int s0 = locate<float>(oyg, scale_y).i0 - i0_first;
                frag_a<Shape> a2[chunks_per_block];
                static_for<chunks_per_block>([&](auto ch) { a2[ch] = chunk_a2(s0 + 4 * ch, one_k); });
                if constexpr (PairRows) {
                    if (G >= 2) {
                        // Two row blocks at a time: two independent product-2 / store chains.
#pragma unroll 1
                        for (int r = 0; r < G; r += 2) {
                            const int nb = gq * G + r, oy = oy0 + 2 * nb;
                            if (oy >= out.height) break;
                            frag_c<Shape> d2a, d2b;
                            fill(d2a, 0.0f);
                            fill(d2b, 0.0f);
                            static_for<chunks_per_block>([&](auto ch) {
                                product2(d2a, a2[ch], nb * chunks_per_block + ch);
                                product2(d2b, a2[ch], (nb + 1) * chunks_per_block + ch);
                            });
                            store_row_block(d2a, oy, out_word);
                            store_row_block(d2b, oy + 2, out_word + row_block_pitch);
                            out_word += 2 * row_block_pitch;
                        }
                        continue;
                    }
                }
#pragma unroll 1
                for (int r = 0; r < G; ++r) {
                    const int nb = gq * G + r, oy = oy0 + 2 * nb;
                    if (oy >= out.height) break;
                    frag_c<Shape> d2;
                    fill(d2, 0.0f);
                    static_for<chunks_per_block>([&](auto ch) { product2(d2, a2[ch], nb * chunks_per_block + ch); });
                    store_row_block(d2, oy, out_word);
                    out_word += row_block_pitch;
                }
            }
        } else {
#pragma unroll 2
            for (int nb = 0; nb < plan.block_rows / 2; ++nb) {
                const int oy = oy0 + 2 * nb;
                if (oy >= out.height) break;
                frag_c<Shape> d2;
                fill(d2, 0.0f);
                static_for<chunks_per_block>([&](auto ch) {
                    const int q = nb * chunks_per_block + ch;
                    product2(d2, chunk_a2(4 * q, one_k), q);
                });
                store_row_block(d2, oy, out_word);
                out_word += row_block_pitch;
            }
        }
    };
    if (win.k_blocks == 1) row_blocks(std::true_type{});
    else row_blocks(std::false_type{});
}

}  // namespace tcore::interp
