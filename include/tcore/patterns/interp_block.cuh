// tcore/patterns/interp_block.cuh - the general resampling path, any Shape
// (FP16 or FP64), any channel count 1..4 and output type (8-bit or FP64):
// product 1's B loaded from global memory (load_b1, clamp-to-edge), the
// stores of D2 (store_d2, store_tile_rgba8), the shared-memory tables of a
// block (block_tables) and resample_block, one block resampling a strip of
// warp tiles over contiguous 4-row chunks.
//
// Preconditions: warp-collective functions (load_b1 is per lane,
// store_tile_rgba8 and resample_block shuffle and issue MMAs) need all 32
// lanes converged; resample_block needs a 1-D block whose every thread calls
// it (one __syncthreads on FP16 shapes) and `smem` of
// block_tables<Shape>::bytes(warps, strip_tiles) bytes, 16-byte aligned.
// Vec: RGBA input rows 16-byte aligned and RGBA 8-bit output rows 4-byte
// aligned (not checked here; the launcher checks them).
#pragma once

#include "interp_tile.cuh"

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

// -- device parts: loads, the tile loop, stores --------------------------------------------

/// Byte c of w0 and of w1 as an exact half2 (low, high): 1024 + byte built
/// from the bits, then 1024 subtracted.
__device__ inline unsigned bytes_to_half2(unsigned w0, unsigned w1, unsigned c)
{
    const unsigned two = __byte_perm(w0, w1, c | ((c + 4u) << 4));  // byte 0 = w0.c, byte 1 = w1.c
    const unsigned h = __byte_perm(two, 0x64646464u, 0x4140u);       // [b0, 0x64, b1, 0x64]
    const __half2 v = __hsub2(*reinterpret_cast<const __half2*>(&h), __floats2half2_rn(1024.0f, 1024.0f));
    return *reinterpret_cast<const unsigned*>(&v);
}

/// Loads B1 (texels from xb, image rows of n block n1 of the chunk at yc).
/// Vec: RGBA with 16-byte aligned rows, FP16: a lane's 4 texels are one
/// uint4 where they lie inside the image. Otherwise element by element.
/// Indices are clamped to the image (clamp-to-edge).
template <class Shape, bool Vec>
__device__ inline void load_b1(frag_b<Shape>& b, const image_view& img, int xb, int yc, int n1, int lane)
{
    using T = tile<Shape>;
    if constexpr (Vec && T::is_half) {
        const int t = lane & 3, g = lane >> 2;
        const int y = clamp_index(yc + T::b1(lane, 0, n1).row, img.height);
        const unsigned char* row = img.data + y * img.pitch;
        const int x = xb + 4 * t;  // T::b1(lane, j, n1).x == 4t + j (tests/host)
        uint4 w;
        if (x >= 0 && x + 3 < img.width) {
            w = __ldg(reinterpret_cast<const uint4*>(row + 4ll * x));
        } else {
            w.x = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x, img.width)));
            w.y = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x + 1, img.width)));
            w.z = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x + 2, img.width)));
            w.w = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x + 3, img.width)));
        }
        const unsigned c = static_cast<unsigned>(g & 3);
        set_half_reg(b, 0, bytes_to_half2(w.x, w.y, c));
        set_half_reg(b, 1, bytes_to_half2(w.z, w.w, c));
    } else {
        static_for<Shape::b_count>([&](auto j) {
            const typename T::b1_elem e = T::b1(lane, j, n1);
            const int y = clamp_index(yc + e.row, img.height);
            const int x = clamp_index(xb + e.x, img.width);
            const unsigned v =
                e.c < img.channels ? __ldg(img.data + y * img.pitch + static_cast<long long>(x) * img.channels + e.c) : 0u;
            if constexpr (T::is_half) b.x[j] = __float2half_rn(static_cast<float>(v));  // exact: v <= 255
            else b.x[j] = static_cast<double>(v);
        });
    }
}

/// Stores D2 of row block nb, element by element: 8-bit (rounded,
/// saturated) or FP64, channels past out.channels skipped.
template <class Shape, class Out>
__device__ inline void store_d2(const image_out<Out>& out, const frag_c<Shape>& d, int nb, int ox0, int oy0, int lane)
{
    using T = tile<Shape>;
    static_for<4>([&](auto i) {
        const typename T::d2_elem e = T::d2(lane, i, nb);
        const int ox = ox0 + e.col, oy = oy0 + e.row;
        if (ox < out.width && oy < out.height && e.c < out.channels) {
            Out* dst = out.data + oy * out.pitch + static_cast<long long>(ox) * out.channels + e.c;
            if constexpr (std::is_same_v<Out, unsigned char>) *dst = static_cast<unsigned char>(to_u8(static_cast<float>(d.x[i])));
            else *dst = static_cast<Out>(d.x[i]);
        }
    });
}

/// Stores a whole tile as RGBA 8-bit pixels (4-byte aligned rows): in row
/// block nb, lane (g, t) holds channels 2(t&1), +1 of columns g and g + 8 of
/// output row 2nb + (t >> 1); lanes t and t^1 swap a channel pair so each
/// stores one pixel, column g + 8(t & 1). One address per tile, then a
/// fixed stride of two rows per block.
template <class Shape>
__device__ inline void store_tile_rgba8(const image_out<unsigned char>& out, const frag_c<Shape> (&d)[4], int ox0,
                                        int oy0, int lane)
{
    const int t = lane & 3, g = lane >> 2;
    const int ox = ox0 + g + 8 * (t & 1), oy = oy0 + (t >> 1);
    const bool col_ok = ox < out.width;
    unsigned char* p = out.data + static_cast<long long>(col_ok ? oy : 0) * out.pitch + 4ll * (col_ok ? ox : 0);
    const long long stride = 2 * out.pitch;
    static_for<4>([&](auto nb) {
        unsigned q[4];
        static_for<4>([&](auto i) { q[i] = to_u8(static_cast<float>(d[nb].x[i])); });
        const unsigned pair_g = __byte_perm(q[0], q[1], 0x0040u);   // channels c, c+1 of column g
        const unsigned pair_g8 = __byte_perm(q[2], q[3], 0x0040u);  // ... of column g + 8
        const unsigned recv = __shfl_xor_sync(0xffffffffu, (t & 1) ? pair_g : pair_g8, 1);
        const unsigned lo = (t & 1) ? recv : pair_g, hi = (t & 1) ? pair_g8 : recv;
        if (col_ok && oy + 2 * nb < out.height)
            *reinterpret_cast<unsigned*>(p + nb * stride) = __byte_perm(lo, hi, 0x5410u);
    });
}

/// Shared-memory tables of a block (FP16 shapes): per tile of the strip its
/// row band and the B2 fragments of its first max_chunks chunks (computed
/// once per block instead of once per warp), per warp the A1 fragments of
/// up to max_k_blocks k blocks (down-scaling). FP64 tiles use none.
template <class Shape>
struct block_tables {
    static constexpr bool used = tile<Shape>::is_half;
    static constexpr int max_chunks = 4;    ///< B2 cached for chunks 0..3 of a tile (>= 0.8x scale)
    static constexpr int max_k_blocks = 8;  ///< A1 cached for k blocks 0..7 (down to ~1/7.5x)
    static constexpr int band_ints = 8;     ///< lo[4], hi[4] per tile

    /// Bytes for `warps` warps and `strip_tiles` tiles per strip (0 for FP64).
    __host__ __device__ static constexpr std::size_t bytes(int warps, int strip_tiles)
    {
        if (!used) return 0;
        return static_cast<std::size_t>(strip_tiles) * max_chunks * 4 * 32 * sizeof(uint2) +
               static_cast<std::size_t>(warps) * max_k_blocks * 32 * sizeof(uint4) +
               static_cast<std::size_t>(strip_tiles) * band_ints * sizeof(int);
    }
    __device__ static uint2* b2(unsigned char* smem) { return reinterpret_cast<uint2*>(smem); }
    __device__ static uint4* a1(unsigned char* smem, int strip_tiles)
    {
        return reinterpret_cast<uint4*>(smem + static_cast<std::size_t>(strip_tiles) * max_chunks * 4 * 32 * sizeof(uint2));
    }
    __device__ static int* band(unsigned char* smem, int warps, int strip_tiles)
    {
        return reinterpret_cast<int*>(smem + static_cast<std::size_t>(strip_tiles) * max_chunks * 4 * 32 * sizeof(uint2) +
                                      static_cast<std::size_t>(warps) * max_k_blocks * 32 * sizeof(uint4));
    }
};

/// Image rows [lo, hi] that row block nb (output rows oy_t + 2nb, + 1) reads.
template <filter F, class real>
__host__ __device__ inline void row_band(int oy_t, int nb, real scale_y, int& lo, int& hi)
{
    lo = locate<real>(oy_t + 2 * nb, scale_y).i0 + first_tap<F>;
    hi = locate<real>(oy_t + 2 * nb + 1, scale_y).i0 + first_tap<F> + taps<F> - 1;
}

/// One block resamples a strip of `strip_tiles` warp tiles (8 output rows
/// each, from row oy0) for each of its warps' 16-column tiles: warp w
/// (threadIdx.x / 32, 1-D block) takes output columns 16 tile_x .. + 15,
/// where tile_x may lie past the image (the warp then only helps fill the
/// tables). scale_x / scale_y = input / output size. `smem` holds
/// block_tables<Shape>::bytes(warps, strip_tiles) bytes (nullptr for FP64).
/// Every thread of the block must call it (there is a __syncthreads for
/// FP16), and every branch around an MMA is warp-uniform.
/// Vec: RGBA input with 16-byte aligned rows (FP16) and 4-byte aligned RGBA
/// 8-bit output (see load_b1 / store_tile_rgba8).
template <class Backend, class Shape, filter F, bool Vec, class Out>
__device__ inline void resample_block(const image_view& in, const image_out<Out>& out,
                                      typename tile<Shape>::real scale_x, typename tile<Shape>::real scale_y,
                                      int tile_x, int oy0, int strip_tiles, unsigned char* smem)
{
    using T = tile<Shape>;
    using Tab = block_tables<Shape>;
    using real = typename T::real;
    using W = weights_of<Shape, F>;
    const int lane = lane_id();
    const int g = lane >> 2;
    const int warp = static_cast<int>(threadIdx.x >> 5), warps = static_cast<int>(blockDim.x >> 5);
    const int ox0 = T::cols * tile_x;
    const bool active = ox0 < out.width;  // warp-uniform

    // Product 1's k blocks: the texels under the tile's output columns,
    // from a 4-aligned start (16-byte loads), 16 per block.
    const int ox_last = min(ox0 + T::cols - 1, out.width - 1);
    const int x_lo = locate<real>(ox0, scale_x).i0 + first_tap<F>;
    const int x_hi = locate<real>(ox_last, scale_x).i0 + first_tap<F> + taps<F> - 1;
    const int xs = x_lo & ~3;
    const int k_blocks = (x_hi - xs) / T::texels + 1;
    const W wx[2] = {make_weights<Shape, F>(ox0 + g, scale_x), make_weights<Shape, F>(ox0 + g + 8, scale_x)};
    const frag_a<Shape> a1_first = make_a1<Shape, F>(lane, wx, xs);

    if constexpr (Tab::used) {
        // Tables: warp w fills the bands and B2 fragments of tiles w, w + warps, ...
        uint2* b2_tab = Tab::b2(smem);
        int* band_tab = Tab::band(smem, warps, strip_tiles);
        for (int ti = warp; ti < strip_tiles; ti += warps) {
            const int oy_t = oy0 + T::rows * ti;
            int lo[T::row_blocks], hi[T::row_blocks];
            static_for<T::row_blocks>([&](auto nb) { row_band<F, real>(oy_t, nb, scale_y, lo[nb], hi[nb]); });
            if (lane < T::row_blocks) {
                int l = lo[0], h = hi[0];
                static_for<T::row_blocks>([&](auto nb) {
                    if (lane == nb) l = lo[nb], h = hi[nb];
                });
                band_tab[Tab::band_ints * ti + lane] = l;
                band_tab[Tab::band_ints * ti + T::row_blocks + lane] = h;
            }
            const int chunks = min((hi[T::row_blocks - 1] - lo[0]) / T::chunk_rows + 1, Tab::max_chunks);
            static_for<T::row_blocks>([&](auto nb) {
                const W wy = make_weights<Shape, F>(oy_t + 2 * nb + (g >> 2), scale_y);
                for (int c = 0; c < chunks; ++c) {
                    const frag_b<Shape> b2 = make_b2<Shape, F>(lane, wy, lo[0] + T::chunk_rows * c);
                    b2_tab[((ti * Tab::max_chunks + c) * T::row_blocks + nb) * 32 + lane] =
                        make_uint2(half_reg(b2, 0), half_reg(b2, 1));
                }
            });
        }
        // This warp's A1 of k blocks 1 .. max_k_blocks - 1 (block 0 stays in registers).
        uint4* a1_tab = Tab::a1(smem, strip_tiles) + static_cast<std::size_t>(warp) * Tab::max_k_blocks * 32;
        for (int kb = 1; kb < min(k_blocks, Tab::max_k_blocks); ++kb) {
            const frag_a<Shape> a = make_a1<Shape, F>(lane, wx, xs + T::texels * kb);
            a1_tab[kb * 32 + lane] = make_uint4(half_reg(a, 0), half_reg(a, 1), half_reg(a, 2), half_reg(a, 3));
        }
        __syncthreads();
    }
    if (!active) return;

#pragma unroll 1
    for (int tile_i = 0; tile_i < strip_tiles; ++tile_i) {
        const int oy_t = oy0 + T::rows * tile_i;
        if (oy_t >= out.height) break;
        int lo[T::row_blocks], hi[T::row_blocks];  // image rows each row block reads (uniform)
        if constexpr (Tab::used) {
            const int* band = Tab::band(smem, warps, strip_tiles) + Tab::band_ints * tile_i;
            static_for<T::row_blocks>([&](auto nb) {
                lo[nb] = band[nb];
                hi[nb] = band[T::row_blocks + nb];
            });
        } else {
            static_for<T::row_blocks>([&](auto nb) { row_band<F, real>(oy_t, nb, scale_y, lo[nb], hi[nb]); });
        }
        frag_c<Shape> d2[T::row_blocks];
        static_for<T::row_blocks>([&](auto nb) { fill(d2[nb], 0.0f); });

#pragma unroll 1
        for (int c = 0, yc = lo[0]; yc <= hi[T::row_blocks - 1]; ++c, yc += T::chunk_rows) {
            frag_c<Shape> d1[2];
            fill(d1[0], 0.0f);
            fill(d1[1], 0.0f);
#pragma unroll 1
            for (int kb = 0; kb < k_blocks; ++kb) {
                frag_a<Shape> a1 = a1_first;
                if (kb > 0) {
                    if constexpr (Tab::used) {
                        if (kb < Tab::max_k_blocks) {
                            const uint4 r = Tab::a1(smem, strip_tiles)[(warp * Tab::max_k_blocks + kb) * 32 + lane];
                            set_half_reg(a1, 0, r.x), set_half_reg(a1, 1, r.y);
                            set_half_reg(a1, 2, r.z), set_half_reg(a1, 3, r.w);
                        } else {
                            a1 = make_a1<Shape, F>(lane, wx, xs + T::texels * kb);
                        }
                    } else {
                        a1 = make_a1<Shape, F>(lane, wx, xs + T::texels * kb);
                    }
                }
                frag_b<Shape> b1[2];
                load_b1<Shape, Vec>(b1[0], in, xs + T::texels * kb, yc, 0, lane);
                load_b1<Shape, Vec>(b1[1], in, xs + T::texels * kb, yc, 1, lane);
                mma<Backend>(d1[0], a1, b1[0], d1[0]);
                mma<Backend>(d1[1], a1, b1[1], d1[1]);
            }
            // D1 (16 columns x [2 rows x 4 channels] twice) -> A2, no trip through memory.
            // FP64 relabels k in place; make_b2 generates B2 in that order.
            using a2_label = std::conditional_t<T::is_half, standard_k, relabelled_k<0>>;
            frag_a<Shape, a2_label> a2;
            if constexpr (T::is_half) a2 = reuse_a<typename Shape::c_type>(d1[0], d1[1]);
            else a2 = reuse_a(d1[0], d1[1]);
            static_for<T::row_blocks>([&](auto nb) {
                if (yc <= hi[nb] && yc + T::chunk_rows - 1 >= lo[nb]) {
                    frag_b<Shape> b2;
                    bool cached = false;
                    if constexpr (Tab::used) {
                        if (c < Tab::max_chunks) {
                            const uint2 r = Tab::b2(smem)[((tile_i * Tab::max_chunks + c) * T::row_blocks + nb) * 32 + lane];
                            set_half_reg(b2, 0, r.x), set_half_reg(b2, 1, r.y);
                            cached = true;
                        }
                    }
                    if (!cached) {
                        const W wy = make_weights<Shape, F>(oy_t + 2 * nb + (g >> 2), scale_y);
                        b2 = make_b2<Shape, F>(lane, wy, yc);
                    }
                    mma<Backend>(d2[nb], a2, with_k_label<a2_label>(b2), d2[nb]);
                }
            });
        }
        if constexpr (Vec && std::is_same_v<Out, unsigned char>) {
            store_tile_rgba8<Shape>(out, d2, ox0, oy_t, lane);
        } else {
            static_for<T::row_blocks>([&](auto nb) { store_d2<Shape>(out, d2[nb], nb, ox0, oy_t, lane); });
        }
    }
}

}  // namespace tcore::interp
