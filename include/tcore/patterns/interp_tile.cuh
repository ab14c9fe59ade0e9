// tcore/patterns/interp_tile.cuh - the warp tile of the two chained MMAs
// (16 output columns x 8 output rows on an m16n8k16 Shape: f16_m16n8k16<Acc>
// or f64_m16n8k16): tile<Shape>, its element maps (A1, B1, D1, B2, D2 and
// where A2 comes from in the reuse), the per-lane weights of one output
// index (real_weights for FP64, half_weights packed as FP16 bits), and the
// operand makers make_a1 (A1 = Wx of one 16-texel k block) and make_b2
// (B2 = (Wy (x) I4)^T of one 4-row chunk).
//
// Preconditions: the makers are per lane (`lane` = lane_id()), host or
// device; `rows` / `col` hold the weights of the lane's output columns g,
// g + 8 / of the output row of its B column (not checked). The k labelling
// of product 1's slots and the FP64 relabelling of product 2's k follow
// docs/mma-fragments.md section 7 (frag/reuse.cuh): FP16 reuses D1 in the
// standard A layout, FP64 relabels k (reuse_col).
#pragma once

#include "interp_weights.cuh"

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

// -- the warp tile -------------------------------------------------------------------

/// Tile geometry and operand maps on Shape (f16_m16n8k16<Acc> or f64_m16n8k16).
template <class Shape>
struct tile {
    static_assert(Shape::m == 16 && Shape::n == 8 && Shape::k == 16, "interp tiles use m16n8k16 shapes");
    static constexpr bool is_half = std::is_same_v<typename Shape::a_type, __half>;
    using real = std::conditional_t<is_half, float, double>;  ///< positions and weights
    static constexpr int cols = 16;          ///< output columns per tile (A rows)
    static constexpr int rows = 8;           ///< output rows per tile
    static constexpr int row_blocks = 4;     ///< product-2 n blocks (2 output rows each)
    static constexpr int texels = 16;        ///< texels per product-1 k block
    static constexpr int chunk_rows = 4;     ///< image rows per product-2 k block

    /// The texel (in a product-1 k block) that k slot s stands for.
    __host__ __device__ static constexpr int x_of_slot(int s)
    {
        if constexpr (is_half) return 4 * ((s & 7) >> 1) + (s & 1) + 2 * (s >> 3);  // 2t+{0,1}, 2t+{8,9} -> 4t..4t+3
        else return 2 * (s & 3) + ((s >> 2) & 1) + 8 * (s >> 3);                     // t+4i -> 2t, 2t+1, 8+2t, 9+2t
    }
    /// A1 element i: {output column in the tile, texel in the k block}.
    __host__ __device__ static constexpr coord a1(int lane, int i)
    {
        const coord rc = Shape::a_coord(lane, i);
        return {rc.row, x_of_slot(rc.col)};
    }
    /// B1 element j of n block n1: texel x (in the k block), image row (in the chunk), channel c.
    struct b1_elem {
        int x, row, c;
    };
    __host__ __device__ static constexpr b1_elem b1(int lane, int j, int n1)
    {
        const coord rc = Shape::b_coord(lane, j);
        return {x_of_slot(rc.row), 2 * n1 + (rc.col >> 2), rc.col & 3};
    }
    /// D1 element i of n block n1: {output column, P column} with P column
    /// p = 8 n1 + n = 4 (chunk row) + channel.
    __host__ __device__ static constexpr coord d1(int lane, int i, int n1)
    {
        const coord rc = Shape::c_coord(lane, i);
        return {rc.row, 8 * n1 + rc.col};
    }
    /// The P column (chunk row p >> 2, channel p & 3) that B2 element j's k row stands for.
    __host__ __device__ static constexpr int b2_p(int lane, int j)
    {
        if constexpr (is_half) return Shape::b_coord(lane, j).row;  // reuse in place: standard layout
        else return reuse_col<Shape>(lane, j);                      // FP64 reuse relabels k
    }
    /// B2 element j: chunk row and channel of its k row; output row (in the
    /// 2-row block) and channel of its column.
    struct b2_elem {
        int row, c, out_row, out_c;
    };
    __host__ __device__ static constexpr b2_elem b2(int lane, int j)
    {
        const int p = b2_p(lane, j);
        const int col = Shape::b_coord(lane, j).col;
        return {p >> 2, p & 3, col >> 2, col & 3};
    }
    /// D2 element i of row block nb: output column, output row (in the tile), channel.
    struct d2_elem {
        int col, row, c;
    };
    __host__ __device__ static constexpr d2_elem d2(int lane, int i, int nb)
    {
        const coord rc = Shape::c_coord(lane, i);
        return {rc.row, 2 * nb + (rc.col >> 2), rc.col & 3};
    }
    /// Where A2 element i comes from: accumulator (n block), lane, register.
    __host__ __device__ static constexpr reuse_home a2_source(int lane, int i)
    {
        if constexpr (is_half) return f16_reuse_source(lane, i);
        else return f64_relabel_source<Shape>(lane, i);
    }
};

// -- per-lane weights of one output index ------------------------------------------

/// FP64 (or FP32) weights of one output index: w[j] belongs to texel base + j.
template <filter F, class T>
struct real_weights {
    int base;
    T w[taps<F>];
};

template <filter F, class T>
__host__ __device__ inline real_weights<F, T> make_real_weights(sample<T> s)
{
    real_weights<F, T> r;
    r.base = s.i0 + first_tap<F>;
    weights<F>(s.a, r.w);
    return r;
}

/// The weight of texel x (0 outside the taps), selected without indexing.
template <filter F, class T>
__host__ __device__ inline T weight_at(const real_weights<F, T>& r, int x)
{
    const int j = x - r.base;
    T v = 0;
    static_for<taps<F>>([&](auto k) {
        if (j == k) v = r.w[k];
    });
    return v;
}

/// FP16 weights of one output index as the half array P = [0, w_0, .., w_{taps-1}, 0, ..]
/// in three 32-bit words (P[2i] low half of word i); P[q] belongs to texel base + q.
struct half_weights {
    int base;
    unsigned w[3];
};

__host__ __device__ inline unsigned half_bits(float v) { return __half_as_ushort(__float2half_rn(v)); }

template <filter F>
__host__ __device__ inline half_weights make_half_weights(sample<float> s)
{
    float w[taps<F>];
    weights<F>(s.a, w);
    unsigned h[6] = {0, 0, 0, 0, 0, 0};
    static_for<taps<F>>([&](auto j) { h[1 + j] = half_bits(w[j]); });
    return {s.i0 + first_tap<F> - 1, {h[0] | (h[1] << 16), h[2] | (h[3] << 16), h[4] | (h[5] << 16)}};
}

/// Weights of texels x (low half) and x + 1 (high half) as a half2's bits.
__host__ __device__ inline unsigned half_pair(const half_weights& p, int x)
{
    const int q = x - p.base;
    if (q < 0 || q > 4) return 0u;
    const unsigned lo = q >= 4 ? p.w[2] : (q >= 2 ? p.w[1] : p.w[0]);
    const unsigned hi = q >= 2 ? p.w[2] : p.w[1];
    return (q & 1) ? ((lo >> 16) | (hi << 16)) : lo;
}

/// Weight of texel x as half bits (low 16 bits).
__host__ __device__ inline unsigned half_single(const half_weights& p, int x) { return half_pair(p, x) & 0xffffu; }

/// The weights type a tile of Shape uses.
template <class Shape, filter F>
using weights_of = std::conditional_t<tile<Shape>::is_half, half_weights, real_weights<F, double>>;

template <class Shape, filter F>
__host__ __device__ inline weights_of<Shape, F> make_weights(int d, typename tile<Shape>::real scale)
{
    if constexpr (tile<Shape>::is_half) return make_half_weights<F>(locate<float>(d, scale));
    else return make_real_weights<F, double>(locate<double>(d, scale));
}

// -- generated operands ----------------------------------------------------------------

/// Sets 32-bit register r of an FP16 fragment (elements 2r, 2r+1) from bits.
template <class Frag>
__host__ __device__ inline void set_half_reg(Frag& f, int r, unsigned bits)
{
    static_assert(std::is_same_v<typename Frag::value_type, __half>, "FP16 fragments only");
    reinterpret_cast<unsigned*>(f.x)[r] = bits;  // elements 2r (low half) and 2r + 1
}
/// Register r of an FP16 fragment as bits.
template <class Frag>
__host__ __device__ inline unsigned half_reg(const Frag& f, int r)
{
    return reinterpret_cast<const unsigned*>(f.x)[r];
}

/// A1 = Wx for the k block starting at texel xb: rows[h] are the weights of
/// the lane's output columns g (h = 0) and g + 8 (h = 1) of the tile.
template <class Shape, filter F>
__host__ __device__ inline frag_a<Shape> make_a1(int lane, const weights_of<Shape, F> (&rows)[2], int xb)
{
    using T = tile<Shape>;
    frag_a<Shape> a;
    if constexpr (T::is_half) {
        // Register r holds elements 2r, 2r+1: one row, adjacent texels (tests/host checks).
        // The row half (g or g + 8) is the same on every lane: taken at lane 0.
        static_for<Shape::a_count / 2>([&](auto r_) {
            constexpr int r = decltype(r_)::value;
            constexpr int h = T::a1(0, 2 * r).row >> 3;
            set_half_reg(a, r, half_pair(rows[h], xb + T::a1(lane, 2 * r).col));
        });
    } else {
        static_for<Shape::a_count>([&](auto i_) {
            constexpr int i = decltype(i_)::value;
            constexpr int h = T::a1(0, i).row >> 3;
            a.x[i] = weight_at(rows[h], xb + T::a1(lane, i).col);
        });
    }
    return a;
}

/// B2 = (Wy (x) I4)^T for the chunk starting at image row yc: `col` holds the
/// weights of the output row of the lane's B column (row block nb, row g >> 2).
template <class Shape, filter F>
__host__ __device__ inline frag_b<Shape> make_b2(int lane, const weights_of<Shape, F>& col, int yc)
{
    using T = tile<Shape>;
    frag_b<Shape> b;
    if constexpr (T::is_half) {
        // Register r: elements 2r, 2r+1 share the chunk row and the column;
        // their channels differ, so at most one of them is not 0.
        static_for<Shape::b_count / 2>([&](auto r) {
            const typename T::b2_elem lo = T::b2(lane, 2 * r), hi = T::b2(lane, 2 * r + 1);
            const unsigned h = half_single(col, yc + lo.row);
            set_half_reg(b, r, lo.c == lo.out_c ? h : (hi.c == hi.out_c ? h << 16 : 0u));
        });
    } else {
        static_for<Shape::b_count>([&](auto j) {
            const typename T::b2_elem e = T::b2(lane, j);
            b.x[j] = e.c == e.out_c ? weight_at(col, yc + e.row) : 0.0;
        });
    }
    return b;
}

}  // namespace tcore::interp
