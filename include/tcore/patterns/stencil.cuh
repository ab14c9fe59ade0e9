// tcore/patterns/stencil.cuh - FP64 stencils with arbitrary weights as
// products on the FP64 MMA: shapes, weights, the stencil-to-MMA layout,
// the warp-level 16x8 block product and a CPU reference.
//
// Layout (which and why). A 16x8 block of outputs (rows y0..y0+15, columns
// x0..x0+7 of one plane) is D = A*B on f64 m16n8k{16,8,4}:
//   * every row offset (dz, dy) of the shape that holds a weight is a
//     *segment*: the 8 + cmax - cmin input columns x0+cmin .. x0+7+cmax of
//     rows y0+dy .. y0+15+dy (plane z+dz) that the block's outputs reach
//     through that row of the shape ([cmin, cmax] = its dx range);
//   * the segments are packed side by side along K ("slots"): A(m, k) is the
//     input under slot k for output row m, gathered straight from the
//     shared-memory tile (never copied into an im2col buffer);
//   * B(k, n) is the weight that slot k carries for output column n: a
//     banded Toeplitz block per segment, generated in registers from the
//     weights once per kernel (never loaded per MMA).
// This is ConvStencil's stencil-to-GEMM idea (a row of the stencil becomes a
// Toeplitz operand) without its stencil2row copy, and with star shapes
// packed tightly (an off-centre row of a star is an 8-slot segment, a
// diagonal weight block). We chose it over LoRAStencil's low-rank
// decomposition because the weights are arbitrary: a general (2r+1)^2
// weight matrix has full rank 2r+1, so the low-rank form saves nothing and
// needs two dependent MMAs per term plus an accumulator-to-operand
// hand-off; here every MMA reads data straight from shared memory into A
// and accumulates into one D, and any shape (star, box, or none of them)
// fits. Slots of each plane dz are padded to a multiple of 4 and cut into
// m16n8k16/k8/k4 chunks (each chunk reads one plane); padding slots hold
// A = 0, B = 0 and cost MMA time but no loads.
//
// Column arm (2D stars of radius >= 2). The vertical arm of such a star
// (dy != 0, dx = 0) would take 2r diagonal 8-slot segments. It is one
// banded Toeplitz product from the left instead (the arm is a 1D stencil
// along y, as in LoRAStencil's vertical pass): D += T X with
// X(k, n) = input row k - r of the block, column out_col(n), for
// k = 0 .. 15 + 2r, and T(m, k) = w(0, k - r - m, 0) off the centre, a
// constant A operand built in registers once per kernel; B is gathered
// straight from the tile. 16 + 2r slots instead of 16 r.
//
// Per output the MMA does 2 * slots flops (column arm included) against
// 2|S| useful ones:
//
//   shape     |S|  slots        chunks                MMA flops / useful flops
//   star2d1r    5    28         k16 k8 k4               5.6
//   box2d1r     9    32         k16 k16                 3.6
//   star2d3r   13    16 + 24    k16 | arm k16 k8        3.1
//   box2d3r    49   100         6 x k16 + k4            2.0
//   star3d1r    7    44         k8 | k16 k8 k4 | k8     6.3
//   box3d1r    27    96         2 x k16 per plane       3.6
//
// Output columns are relabelled: D column n stands for block column
// out_col(n) = n/2 + 4(n%2), so lane (g, t) holds columns t and t+4 of rows
// g and g+8, and each store instruction of a warp writes 8 rows x 4
// consecutive doubles (full 32-byte sectors).
//
// Stencils on memory-bound grids: one step moves 16 bytes per point and
// does 2|S| flops, at most 98 / 16 = 6.1 flops per byte here (box2d3r), so
// on a GPU whose FP64 peak on CUDA cores alone is more flops than that per
// byte of DRAM bandwidth (as on sm_90 parts; the figures are in
// examples/stencil/README.md) every shape here is memory-bound at t = 1
// and the tensor core can at best remove arithmetic that was already
// hidden (the bound 1 + (a-1)/(1+a) = 1.33x of "Can tensor cores
// accelerate non-GEMM workloads?"). Temporal blocking by t raises the
// intensity to t|S|/8.
//
// NaN/Inf: the MMA multiplies every input of a segment by every output
// column's weight, zeros included, so a non-finite input can reach outputs
// up to 7 columns further than the stencil does. Inputs are expected finite.
#pragma once

#include "../check.cuh"
#include "../frag/f64_m16n8k.cuh"

#include <cmath>
#include <string>
#include <vector>

namespace tcore {

enum class stencil_kind { star, box };

/// Boundary condition of an iterative stencil.
///   dirichlet: the grid is surrounded by a fixed halo of width r stored in
///              the arrays (never written); interior points are updated.
///   periodic:  indices wrap; the arrays hold just the grid.
enum class boundary { dirichlet, periodic };

inline const char* boundary_name(boundary b) { return b == boundary::dirichlet ? "dirichlet" : "periodic"; }

/// A stencil shape: Dims (2 or 3), radius R, star (axes only) or box.
/// Offsets are (dz, dy, dx); 2D shapes have dz = 0 only.
template <int Dims, int R, stencil_kind Kind>
struct stencil_shape {
    static_assert(Dims == 2 || Dims == 3, "stencils are 2D or 3D");
    static_assert(R >= 1 && R <= 4, "radius 1..4");
    static constexpr int dims = Dims;
    static constexpr int radius = R;
    static constexpr int width = 2 * R + 1;
    static constexpr stencil_kind kind = Kind;
    static constexpr int planes = Dims == 3 ? width : 1;          ///< dz values
    static constexpr int weight_count = planes * width * width;   ///< dense weight array
    static constexpr int points = Kind == stencil_kind::star ? 2 * Dims * R + 1 : weight_count;  ///< |S|

    __host__ __device__ static constexpr int iabs(int v) { return v < 0 ? -v : v; }
    /// True if (dz, dy, dx) is a point of the shape.
    __host__ __device__ static constexpr bool contains(int dz, int dy, int dx)
    {
        if (Dims == 2 && dz != 0) return false;
        if (iabs(dz) > R || iabs(dy) > R || iabs(dx) > R) return false;
        if (Kind == stencil_kind::box) return true;
        return (dz != 0 ? 1 : 0) + (dy != 0 ? 1 : 0) + (dx != 0 ? 1 : 0) <= 1;
    }
    /// Index of (dz, dy, dx) in the dense weight array (dz = 0 for 2D).
    __host__ __device__ static constexpr int weight_index(int dz, int dy, int dx)
    {
        return ((Dims == 3 ? dz + R : 0) * width + dy + R) * width + dx + R;
    }
    /// "star2d1r", "box3d1r", ... (the ConvStencil/EBISU names).
    static std::string name()
    {
        return std::string(Kind == stencil_kind::star ? "star" : "box") + std::to_string(Dims) + "d" +
               std::to_string(R) + "r";
    }
};

using star2d1r = stencil_shape<2, 1, stencil_kind::star>;  ///< 2d5pt
using box2d1r = stencil_shape<2, 1, stencil_kind::box>;    ///< 2d9pt
using star2d3r = stencil_shape<2, 3, stencil_kind::star>;  ///< 2d13pt
using box2d3r = stencil_shape<2, 3, stencil_kind::box>;    ///< 2d49pt
using star3d1r = stencil_shape<3, 1, stencil_kind::star>;  ///< 3d7pt
using box3d1r = stencil_shape<3, 1, stencil_kind::box>;    ///< 3d27pt

/// Arbitrary weights of shape S, dense (2r+1)^dims array; entries off the
/// shape are ignored.
template <class S>
struct stencil_weights {
    double w[S::weight_count] = {};
    __host__ __device__ constexpr double at(int dz, int dy, int dx) const
    {
        return S::contains(dz, dy, dx) ? w[S::weight_index(dz, dy, dx)] : 0.0;
    }
    __host__ __device__ void set(int dz, int dy, int dx, double v) { w[S::weight_index(dz, dy, dx)] = v; }
};

// -- the stencil-to-MMA layout --------------------------------------------------

/// One MMA of the block product: plane dz, shape m16n8k<k>, slots base..base+k-1.
struct stencil_chunk {
    int dz, k, base;
};

namespace detail {

template <class S> __host__ __device__ constexpr int stencil_dz_lo() { return S::dims == 3 ? -S::radius : 0; }
template <class S> __host__ __device__ constexpr int stencil_dz_hi() { return S::dims == 3 ? S::radius : 0; }

/// 2D stars of radius >= 2 take their vertical arm as a left product (the
/// column arm, see the top of this file).
template <class S>
__host__ __device__ constexpr bool stencil_column_arm()
{
    return S::dims == 2 && S::kind == stencil_kind::star && S::radius >= 2;
}
/// (dz, dy, dx) is a point of the row segments: of the shape and not of its column arm.
template <class S>
__host__ __device__ constexpr bool stencil_in_rows(int dz, int dy, int dx)
{
    return S::contains(dz, dy, dx) && !(stencil_column_arm<S>() && dy != 0);
}

/// Lowest / highest dx of row (dz, dy); lo > hi if the row is empty.
template <class S>
__host__ __device__ constexpr int stencil_seg_cmin(int dz, int dy)
{
    for (int dx = -S::radius; dx <= S::radius; ++dx)
        if (stencil_in_rows<S>(dz, dy, dx)) return dx;
    return 1;
}
template <class S>
__host__ __device__ constexpr int stencil_seg_cmax(int dz, int dy)
{
    for (int dx = S::radius; dx >= -S::radius; --dx)
        if (stencil_in_rows<S>(dz, dy, dx)) return dx;
    return -1;
}
/// Slots of segment (dz, dy): 8 + cmax - cmin, or 0 for an empty row.
template <class S>
__host__ __device__ constexpr int stencil_seg_width(int dz, int dy)
{
    const int lo = stencil_seg_cmin<S>(dz, dy), hi = stencil_seg_cmax<S>(dz, dy);
    return lo <= hi ? 8 + hi - lo : 0;
}
/// Real slots of plane dz, the same padded to a multiple of 4, and its first slot.
template <class S>
__host__ __device__ constexpr int stencil_group_real(int dz)
{
    int n = 0;
    for (int dy = -S::radius; dy <= S::radius; ++dy) n += stencil_seg_width<S>(dz, dy);
    return n;
}
/// Segments of plane dz each start at a multiple of 4 slots where that
/// costs no slot (e.g. star2d1r: 8 + 12 + 8 = 28 = 26 padded): no slot group
/// of 4 lanes then spans two rows, whose gathers would hit a bank twice.
template <class S>
__host__ __device__ constexpr bool stencil_segments_aligned(int dz)
{
    int n = 0;
    for (int dy = -S::radius; dy <= S::radius; ++dy) n += (stencil_seg_width<S>(dz, dy) + 3) / 4 * 4;
    return n == (stencil_group_real<S>(dz) + 3) / 4 * 4;
}
/// Slots segment (dz, dy) takes in the packing: its width, rounded up to a
/// multiple of 4 where the plane's segments are aligned.
template <class S>
__host__ __device__ constexpr int stencil_seg_span(int dz, int dy)
{
    const int w = stencil_seg_width<S>(dz, dy);
    return stencil_segments_aligned<S>(dz) ? (w + 3) / 4 * 4 : w;
}
template <class S>
__host__ __device__ constexpr int stencil_group_padded(int dz)
{
    return (stencil_group_real<S>(dz) + 3) / 4 * 4;
}
template <class S>
__host__ __device__ constexpr int stencil_group_base(int dz)
{
    int b = 0;
    for (int z = stencil_dz_lo<S>(); z < dz; ++z) b += stencil_group_padded<S>(z);
    return b;
}
/// MMA chunks of p slots (a multiple of 4): k16 while 16 slots remain, then k8, then k4.
__host__ __device__ constexpr int stencil_chunks_of(int p)
{
    return p / 16 + (p % 16 >= 8 ? 1 : 0) + (p % 8 == 4 ? 1 : 0);
}
/// Chunk c of p slots starting at slot `base`, or K = 0 past the last.
__host__ __device__ constexpr stencil_chunk stencil_chunk_of(int p, int dz, int base, int c)
{
    for (int i = 0; i < p / 16; ++i, base += 16)
        if (c-- == 0) return {dz, 16, base};
    if (p % 16 >= 8) {
        if (c-- == 0) return {dz, 8, base};
        base += 8;
    }
    if (p % 8 == 4)
        if (c-- == 0) return {dz, 4, base};
    return {dz, 0, base};
}
template <class S>
__host__ __device__ constexpr int stencil_group_chunks(int dz)
{
    return stencil_chunks_of(stencil_group_padded<S>(dz));
}
template <class S>
__host__ __device__ constexpr int stencil_total_chunks()
{
    int n = 0;
    for (int dz = stencil_dz_lo<S>(); dz <= stencil_dz_hi<S>(); ++dz) n += stencil_group_chunks<S>(dz);
    return n;
}

}  // namespace detail

/// What slot k stands for: input row offset dy, plane dz and block column
/// `col` (relative to the block's first column); padding slots are not real.
struct stencil_slot {
    bool real;
    int dz, dy, col;
};

/// The stencil-to-MMA layout of shape S (see the top of this file).
template <class S>
struct stencil_mma_plan {
    using shape = S;
    static constexpr int dz_lo = detail::stencil_dz_lo<S>();
    static constexpr int dz_hi = detail::stencil_dz_hi<S>();
    static constexpr int planes = dz_hi - dz_lo + 1;
    /// Slots (the MMA K summed over chunks), a multiple of 4.
    static constexpr int slots = detail::stencil_group_base<S>(dz_hi + 1);
    static constexpr int slot_groups = slots / 4;  ///< slots 4j..4j+3: one per lane t
    static constexpr int chunks = detail::stencil_total_chunks<S>();
    /// The column arm: K slots 0 .. 15 + 2r stand for input rows -r .. 15 + r
    /// of the block at the output columns (none where the shape has no arm).
    static constexpr bool column_arm = detail::stencil_column_arm<S>();
    static constexpr int column_real = column_arm ? 16 + 2 * S::radius : 0;
    static constexpr int column_slots = (column_real + 3) / 4 * 4;
    static constexpr int column_chunks = detail::stencil_chunks_of(column_slots);
    /// MMA flops per output point: 2 * 16 * 8 * slots per 128 outputs.
    static constexpr int mma_flops_per_point = 2 * (slots + column_slots);

    /// Column-arm chunk c (0 <= c < column_chunks); its base counts column slots.
    __host__ __device__ static constexpr stencil_chunk column_chunk(int c)
    {
        return detail::stencil_chunk_of(column_slots, 0, 0, c);
    }
    /// T(m, k): the weight column slot k (input row k - r) carries for output row m.
    __host__ __device__ static constexpr double column_a_value(const stencil_weights<S>& w, int k, int m)
    {
        const int dy = k - S::radius - m;
        return column_arm && dy != 0 && dy >= -S::radius && dy <= S::radius ? w.at(0, dy, 0) : 0.0;
    }

    /// Chunk c (0 <= c < chunks), in plane order.
    __host__ __device__ static constexpr stencil_chunk chunk(int c)
    {
        for (int dz = dz_lo; dz <= dz_hi; ++dz) {
            const int n = detail::stencil_group_chunks<S>(dz);
            if (c < n)
                return detail::stencil_chunk_of(detail::stencil_group_padded<S>(dz), dz,
                                                detail::stencil_group_base<S>(dz), c);
            c -= n;
        }
        return {0, 0, 0};
    }

    /// Slot k (0 <= k < slots).
    __host__ __device__ static constexpr stencil_slot slot(int k)
    {
        for (int dz = dz_lo; dz <= dz_hi; ++dz) {
            const int base = detail::stencil_group_base<S>(dz);
            if (k >= base + detail::stencil_group_padded<S>(dz)) continue;
            int off = k - base;
            for (int dy = -S::radius; dy <= S::radius; ++dy) {
                const int w = detail::stencil_seg_width<S>(dz, dy), span = detail::stencil_seg_span<S>(dz, dy);
                if (off < w) return {true, dz, dy, detail::stencil_seg_cmin<S>(dz, dy) + off};
                if (off < span) return {false, dz, 0, 0};  // an aligned segment's padding
                off -= span;
            }
            return {false, dz, 0, 0};  // padding of plane dz
        }
        return {false, 0, 0, 0};
    }

    /// Lanes t (of 0..3) whose slot 4j + t is real: the first real_lanes(j).
    __host__ __device__ static constexpr int real_lanes(int j)
    {
        int n = 0;
        for (int t = 0; t < 4; ++t) n += slot(4 * j + t).real ? 1 : 0;
        return n;
    }

    /// Block column that D column n stands for (relabelled: lane t holds t, t+4).
    __host__ __device__ static constexpr int out_col(int n) { return (n >> 1) + 4 * (n & 1); }

    /// B(k, n): the weight slot k carries for D column n.
    __host__ __device__ static constexpr double b_value(const stencil_weights<S>& w, int k, int n)
    {
        const stencil_slot s = slot(k);
        return s.real ? w.at(s.dz, s.dy, s.col - out_col(n)) : 0.0;
    }
};

/// A lane's share of the column arm (empty for shapes without one).
template <class S, bool = stencil_mma_plan<S>::column_arm>
struct stencil_column_lane {};
template <class S>
struct stencil_column_lane<S, true> {
    double a[stencil_mma_plan<S>::column_slots / 2];  ///< A fragments of the column chunks, chunk after chunk
    int off;  ///< column slot t's input: row t - r, column out_col(g), relative to the block's first output
};

/// A lane's share of the layout: for each slot group j, the offset of
/// slot 4j + t in a source plane (dy * pitch + col, relative to the lane's
/// output row g of the block) and its B value for D column g; and its share
/// of the column arm.
template <class S>
struct stencil_lane {
    int off[stencil_mma_plan<S>::slot_groups];
    double b[stencil_mma_plan<S>::slot_groups];
    stencil_column_lane<S> column;
};

/// Smallest pitch >= w with pitch % 8 == 4: a tile of row pitch p % 8 == 4
/// serves the A gathers of stencil_block_mma without bank conflicts (lanes
/// g = 0..3 of a half-warp hit 8-byte words {0, 12, 8, 4} (+t) modulo 16).
__host__ __device__ constexpr int stencil_tile_pitch(int w)
{
    int p = w;
    while (p % 8 != 4) ++p;
    return p;
}

/// Builds lane `lane`'s share for a shared-memory tile of row pitch `pitch`.
/// `w` may live anywhere (the kernels pass a copy in shared memory: it is
/// indexed at run time here, once per kernel).
template <class S>
__host__ __device__ inline stencil_lane<S> make_stencil_lane(int lane, const stencil_weights<S>& w, int pitch)
{
    using plan = stencil_mma_plan<S>;
    stencil_lane<S> ln;
    const int g = lane >> 2, t = lane & 3;
    // compile-time j keeps ln in registers
    static_for<plan::slot_groups>([&](auto j) {
        const stencil_slot s = plan::slot(4 * j + t);
        ln.off[j] = s.real ? s.dy * pitch + s.col : 0;
        ln.b[j] = plan::b_value(w, 4 * j + t, g);
    });
    if constexpr (plan::column_arm) {
        ln.column.off = (t - S::radius) * pitch + plan::out_col(g);
        // value e: slot 4(e/2) + t, row g + 8(e%2) (chunk c's a_i is value base/2 + i)
        static_for<plan::column_slots / 2>([&](auto e) {
            ln.column.a[e] = plan::column_a_value(w, 4 * (e >> 1) + t, g + 8 * (e & 1));
        });
    }
    return ln;
}

/// Where accumulator element i of `lane` sits in the 16x8 output block.
__host__ __device__ constexpr coord stencil_out_coord(int lane, int i)
{
    return {(lane >> 2) + 8 * (i >> 1), (lane & 3) + 4 * (i & 1)};
}

/// The MMA shape of chunk C of shape S.
template <class S, int C>
using stencil_chunk_shape = f64_m16n8<stencil_mma_plan<S>::chunk(C).k>;

/// Lane `lane`'s A fragment of chunk C for the block whose top-left output
/// sits at src[p] in source plane dz = p + dz_lo (row pitch `pitch`).
template <class S, int C, int NP>
__host__ __device__ inline frag_a<stencil_chunk_shape<S, C>> stencil_chunk_a(int lane, const double* const (&src)[NP],
                                                                            int pitch, const stencil_lane<S>& ln)
{
    using plan = stencil_mma_plan<S>;
    using Shape = stencil_chunk_shape<S, C>;
    static_assert(NP == plan::planes, "one source pointer per plane dz");
    constexpr stencil_chunk ch = plan::chunk(C);
    const int g = lane >> 2, t = lane & 3;
    const double* p = src[ch.dz - plan::dz_lo] + g * pitch;
    frag_a<Shape> a;
    static_for<Shape::a_count>([&](auto i_) {
        constexpr int i = decltype(i_)::value;
        constexpr int j = plan::chunk(C).base / 4 + (i >> 1);  // a_i sits in slot t + 4(i/2), row g + 8(i%2)
        constexpr int real = plan::real_lanes(j);
        const double* q = p + (i & 1) * 8 * pitch;
        if constexpr (real == 0) a.x[i] = 0.0;
        else if constexpr (real == 4) a.x[i] = q[ln.off[j]];
        else a.x[i] = t < real ? q[ln.off[j]] : 0.0;
    });
    return a;
}

/// Lane's B fragment of chunk C (b_i sits in slot t + 4i, column g).
template <class S, int C>
__host__ __device__ inline frag_b<stencil_chunk_shape<S, C>> stencil_chunk_b(const stencil_lane<S>& ln)
{
    using Shape = stencil_chunk_shape<S, C>;
    frag_b<Shape> b;
    static_for<Shape::b_count>([&](auto i) { b.x[i] = ln.b[stencil_mma_plan<S>::chunk(C).base / 4 + i]; });
    return b;
}

/// Lane's A and B fragments of column-arm chunk C for the block whose
/// top-left output sits at src (plane dz = 0): A from the lane's share,
/// B gathered (b_i: column slot base + t + 4i, D column g; zero past the
/// last real slot).
template <class S, int C>
__host__ __device__ inline void stencil_column_frags(frag_a<f64_m16n8<stencil_mma_plan<S>::column_chunk(C).k>>& a,
                                                     frag_b<f64_m16n8<stencil_mma_plan<S>::column_chunk(C).k>>& b,
                                                     int t, const double* src, int pitch, const stencil_lane<S>& ln)
{
    using plan = stencil_mma_plan<S>;
    constexpr int k = plan::column_chunk(C).k, base = plan::column_chunk(C).base;
    static_for<k / 2>([&](auto i) { a.x[i] = ln.column.a[base / 2 + decltype(i)::value]; });
    const double* p = src + ln.column.off;
    static_for<k / 4>([&](auto i_) {
        constexpr int i = decltype(i_)::value;
        constexpr int real = plan::column_real - (base + 4 * i);  // real slots of this group: min(4, real)
        const double* q = p + (base + 4 * i) * pitch;
        if constexpr (real >= 4) b.x[i] = *q;
        else if constexpr (real <= 0) b.x[i] = 0.0;
        else b.x[i] = t < real ? *q : 0.0;
    });
}

/// The 16x8 output block whose top-left output sits at src[p] in source
/// plane dz = p + dz_lo (one pointer per plane: 2D passes one), row pitch
/// `pitch`, on backend `Backend`: d[i] is the output at
/// stencil_out_coord(lane, i). All 32 lanes call it together. Reads rows
/// -r..15+r and columns cmin..7+cmax around the block (the column arm reads
/// rows -r..15+r of columns 0..7).
template <class Backend, class S, int NP>
__device__ inline void stencil_block_mma(double (&d)[4], const double* const (&src)[NP], int pitch,
                                         const stencil_lane<S>& ln)
{
    using plan = stencil_mma_plan<S>;
    const int lane = lane_id();
    static_for<4>([&](auto i) { d[i] = 0.0; });
    static_for<plan::chunks>([&](auto c_) {
        constexpr int c = decltype(c_)::value;
        using Shape = stencil_chunk_shape<S, c>;
        const frag_a<Shape> a = stencil_chunk_a<S, c>(lane, src, pitch, ln);
        const frag_b<Shape> b = stencil_chunk_b<S, c>(ln);
        frag_c<Shape> acc;
        static_for<4>([&](auto i) { acc.x[i] = d[i]; });
        mma<Backend>(acc, a, b, acc);
        static_for<4>([&](auto i) { d[i] = acc.x[i]; });
    });
    if constexpr (plan::column_arm)
        static_for<plan::column_chunks>([&](auto c_) {
            constexpr int c = decltype(c_)::value;
            using Shape = f64_m16n8<plan::column_chunk(c).k>;
            frag_a<Shape> a;
            frag_b<Shape> b;
            stencil_column_frags<S, c>(a, b, lane & 3, src[0], pitch, ln);
            frag_c<Shape> acc;
            static_for<4>([&](auto i) { acc.x[i] = d[i]; });
            mma<Backend>(acc, a, b, acc);
            static_for<4>([&](auto i) { d[i] = acc.x[i]; });
        });
}

// -- grids and the CPU reference ---------------------------------------------

/// An nx x ny (x nz) grid of interior points. Arrays are row-major, x
/// fastest. Dirichlet: each dimension carries a halo of r on both sides
/// (array extents nx+2r, ny+2r[, nz+2r]); interior point (x, y, z) is array
/// element (x+r, y+r, z+r). Periodic: the array is the grid.
struct stencil_grid {
    long long nx = 0, ny = 0, nz = 1;
};

/// Halo width stored in the arrays for boundary `bc` and radius r.
__host__ __device__ constexpr int stencil_halo(boundary bc, int r) { return bc == boundary::dirichlet ? r : 0; }

/// Array extents (including the halo) and element count.
struct stencil_extent {
    long long ex, ey, ez;
    long long count() const { return ex * ey * ez; }
};
template <class S>
inline stencil_extent stencil_array_extent(const stencil_grid& g, boundary bc)
{
    const int h = stencil_halo(bc, S::radius);
    return {g.nx + 2 * h, g.ny + 2 * h, S::dims == 3 ? g.nz + 2 * h : 1};
}

/// One step on the CPU, long double sums in (dz, dy, dx) order: out's
/// interior from in; Dirichlet: out's halo = in's halo.
template <class S>
void stencil_reference_step(const double* in, double* out, const stencil_grid& g, boundary bc,
                            const stencil_weights<S>& w)
{
    constexpr int R = S::radius;
    const stencil_extent e = stencil_array_extent<S>(g, bc);
    const int h = stencil_halo(bc, R);
    const long long nz = S::dims == 3 ? g.nz : 1;
    if (bc == boundary::dirichlet)
        for (long long i = 0; i < e.count(); ++i) out[i] = in[i];
    auto wrap = [](long long v, long long n) {
        v %= n;
        return v < 0 ? v + n : v;
    };
    for (long long z = 0; z < nz; ++z)
        for (long long y = 0; y < g.ny; ++y)
            for (long long x = 0; x < g.nx; ++x) {
                long double acc = 0;
                for (int dz = detail::stencil_dz_lo<S>(); dz <= detail::stencil_dz_hi<S>(); ++dz)
                    for (int dy = -R; dy <= R; ++dy)
                        for (int dx = -R; dx <= R; ++dx) {
                            if (!S::contains(dz, dy, dx)) continue;
                            long long zz = z + dz, yy = y + dy, xx = x + dx;
                            if (bc == boundary::periodic) {
                                zz = S::dims == 3 ? wrap(zz, nz) : 0;
                                yy = wrap(yy, g.ny);
                                xx = wrap(xx, g.nx);
                            }
                            const long long idx =
                                ((S::dims == 3 ? zz + h : 0) * e.ey + (yy + h)) * e.ex + (xx + h);
                            acc += static_cast<long double>(w.at(dz, dy, dx)) * in[idx];
                        }
                out[((S::dims == 3 ? z + h : 0) * e.ey + (y + h)) * e.ex + (x + h)] = static_cast<double>(acc);
            }
}

}  // namespace tcore
