// tcore/patterns/scale.cuh - SCALE (a = q*b) on the FP64 MMA, written as
// A = B * (qI) with the constant qI generated in registers, never loaded.
//
// "Can tensor cores accelerate non-GEMM workloads?" (SCALE, operational
// intensity 1/16): the data is viewed as a row-major matrix of tiles with 8
// columns and multiplied by qI (8x8). One warp tile is 8 rows (f64_m8n8k4)
// or 16 rows (f64_m16n8k4, f64_m16n8k8) of 8 consecutive doubles.
//
// Layout, g = lane/4, t = lane%4. Lane l = 4g + t owns the pair of doubles
// at row g (and g + 8), columns 2t and 2t + 1 of the tile, i.e. tile offsets
// 2l (and 64 + 2l): one coalesced 16-byte load per lane and 8-row half.
// The MMA's A map puts k slots t and t + 4 (not 2t, 2t + 1) in that lane;
// only the joint A/B k labelling of an MMA matters (mma-fragments.md §7),
// so k slot s of k-block kb stands for tile column col_of(s, kb):
//   m16n8k8:          s -> 2(s & 3) + (s >> 2)      (slot t -> 2t, t+4 -> 2t+1)
//   m16n8k4, m8n8k4:  s -> 2s + kb                  (two k-blocks of 4)
// and row s of the generated B fragment is row col_of(s, kb) of qI: B(s, c)
// = q if col_of(s, kb) == c, else 0. D lands in the C map (g(+8), 2t + {0,1}):
// exactly the pairs the lane loaded, so results go back where they came
// from (in place works) and no data crosses lanes outside the MMA.
//
// m16n8k8 covers a 16x8 tile with one MMA (A 16x8, qI 8x8, D 16x8: every
// operand element used); m16n8k4 needs two MMAs per tile, m8n8k4 two per
// 8x8 tile (the Cubie study's shape). tests/gpu/test_scale.cu checks all
// three on both backends.
//
// Each output is q*b plus exact zeros (0 * the other elements of its 8-wide
// row): one rounding, as a plain q*b, for finite data. An Inf or NaN in b
// makes the other outputs of its row NaN (0 * Inf).
#pragma once

#include "../frag/f64_m16n8k4.cuh"
#include "../frag/f64_m16n8k8.cuh"
#include "../frag/f64_m8n8k4.cuh"

#include <cuda_runtime.h>

#include <type_traits>

namespace tcore {

/// Tile geometry and k relabelling of SCALE on `Shape` (FP64 shapes only).
template <class Shape>
struct scale_layout {
    static_assert(std::is_same_v<Shape, f64_m8n8k4> || std::is_same_v<Shape, f64_m16n8k4> ||
                      std::is_same_v<Shape, f64_m16n8k8>,
                  "SCALE runs on f64_m8n8k4, f64_m16n8k4 or f64_m16n8k8");
    static constexpr int pairs = Shape::m / 8;     ///< double2 per lane (8-row halves)
    static constexpr int elems = 64 * pairs;       ///< doubles per warp tile
    static constexpr int k_blocks = 8 / Shape::k;  ///< MMAs per tile (K = 8 columns)

    /// Tile column that k slot `slot` of k-block `kb` stands for.
    __host__ __device__ static constexpr int col_of(int slot, int kb)
    {
        return Shape::k == 8 ? 2 * (slot & 3) + (slot >> 2) : 2 * slot + kb;
    }
    /// Which of the lane's pairs (row half) and which component (.x = 0,
    /// .y = 1) A element i of k-block kb is; the same on every lane.
    __host__ __device__ static constexpr int a_pair(int i) { return Shape::a_coord(0, i).row >> 3; }
    __host__ __device__ static constexpr int a_comp(int i, int kb) { return col_of(Shape::a_coord(0, i).col, kb) & 1; }
    /// Which pair / component accumulator element i is.
    __host__ __device__ static constexpr int c_pair(int i) { return Shape::c_coord(0, i).row >> 3; }
    __host__ __device__ static constexpr int c_comp(int i) { return Shape::c_coord(0, i).col & 1; }

    /// B fragment element i of k-block kb for `lane`: q on the (relabelled)
    /// diagonal of qI, else 0. Each lane evaluates its own elements.
    __host__ __device__ static constexpr double b_value(int lane, int i, int kb, double q)
    {
        const coord rc = Shape::b_coord(lane, i);
        return col_of(rc.row, kb) == rc.col ? q : 0.0;
    }
};

/// The lane's A fragment of k-block KB from its pairs (host and device).
template <class Shape, int KB>
__host__ __device__ inline frag_a<Shape> scale_make_a(const double2 (&v)[scale_layout<Shape>::pairs])
{
    using L = scale_layout<Shape>;
    frag_a<Shape> a;
    static_for<Shape::a_count>([&](auto i_) {
        constexpr int i = decltype(i_)::value;
        constexpr int p = L::a_pair(i), comp = L::a_comp(i, KB);
        a.x[i] = comp == 0 ? v[p].x : v[p].y;
    });
    return a;
}

/// The lane's B fragment (qI, relabelled) of k-block KB.
template <class Shape, int KB>
__host__ __device__ inline frag_b<Shape> scale_make_b(int lane, double q)
{
    frag_b<Shape> b;
    static_for<Shape::b_count>([&](auto i) { b.x[i] = scale_layout<Shape>::b_value(lane, i, KB, q); });
    return b;
}

/// Writes accumulator D back into the lane's pairs.
template <class Shape>
__host__ __device__ inline void scale_unpack(double2 (&v)[scale_layout<Shape>::pairs], const frag_c<Shape>& d)
{
    using L = scale_layout<Shape>;
    static_for<Shape::c_count>([&](auto i_) {
        constexpr int i = decltype(i_)::value;
        constexpr int p = L::c_pair(i);
        if constexpr (L::c_comp(i) == 0) v[p].x = d.x[i];
        else v[p].y = d.x[i];
    });
}

/// v <- q * v for the warp tile whose pairs the lanes hold (see the header
/// comment for the layout), on `Backend`. All 32 lanes must call it together.
template <class Backend, class Shape>
__device__ inline void scale_tile(double2 (&v)[scale_layout<Shape>::pairs], double q, int lane)
{
    using L = scale_layout<Shape>;
    frag_c<Shape> d;
    fill(d, 0.0);
    static_for<L::k_blocks>([&](auto kb_) {
        constexpr int kb = decltype(kb_)::value;
        const frag_a<Shape> a = scale_make_a<Shape, kb>(v);
        const frag_b<Shape> b = scale_make_b<Shape, kb>(lane, q);
        mma<Backend>(d, a, b, d);
    });
    scale_unpack<Shape>(v, d);
}

}  // namespace tcore
