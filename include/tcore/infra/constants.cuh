// tcore/infra/constants.cuh - constant 0/1 matrices generated in registers,
// and the operand relabellings the reduce, scan and GEMV patterns share.
//
// A constant operand is never loaded: each lane evaluates a generator
// gen(row, col) at the coordinates its fragment elements stand for, taken from
// the shape's lane maps (make_a: a_coord(lane, i), make_b: b_coord(lane, i)).
// Example, FP64 m16n8k16, A = ones row (A(r, k) = 1 if r == 0):
//   a_i of lane (g = lane/4, t = lane%4) sits at (g + 8(i&1), t + 4(i>>1)),
//   so a_i = 1 exactly on lanes 0-3 for even i, 0 elsewhere.
//
// Relabelling (docs/mma-fragments.md, top and section 7): only the joint A/B k
// labelling of an MMA is observable, and the rows of A/D can be renamed too.
// The patterns use this to make a lane's registers adjacent in memory:
//   slot_row<Shape>(s): the memory row (0..K-1, inside one column of a K x N
//     data tile) that B slot (k index) s stands for. FP64 m16n8k8/k16: lane
//     (g,t) holds slots t + 4i, i.e. rows 2t, 2t+1 | 8+2t, 9+2t (16-byte pairs);
//     FP16 m16n8k16: slots 2t+{0,1}, 2t+{8,9} are rows 4t..4t+3 (8 bytes);
//     K = 4 shapes: identity. A constant whose k index meets that B (e.g. the
//     scan's lower-triangular L) is generated with the same relabelling.
//   out_row<Shape>(r): the memory row D row r stands for. M = 16: rows g and
//     g + 8 of a lane become memory rows 2g, 2g+1, so c0/c2 (and c1/c3) are
//     adjacent and store as one vector. M = 8: identity.
#pragma once

#include "../frag/fragment.cuh"

#include <type_traits>

namespace tcore {

/// Generators of constant 0/1 matrices: gen(row, col) -> 0 or 1.
namespace cmat {

struct ones {
    __host__ __device__ constexpr int operator()(int, int) const { return 1; }
};
/// 1 in row `row` only (the reduction's "row of ones").
struct ones_row {
    int row = 0;
    __host__ __device__ constexpr int operator()(int r, int) const { return r == row; }
};
/// 1 in column `col` only.
struct ones_col {
    int col = 0;
    __host__ __device__ constexpr int operator()(int, int c) const { return c == col; }
};
/// Upper triangular with the diagonal: U(r, c) = 1 if r <= c.
struct upper {
    __host__ __device__ constexpr int operator()(int r, int c) const { return r <= c; }
};
/// Strictly upper triangular: 1 if r < c.
struct strict_upper {
    __host__ __device__ constexpr int operator()(int r, int c) const { return r < c; }
};
/// Lower triangular with the diagonal: L(r, c) = 1 if r >= c.
struct lower {
    __host__ __device__ constexpr int operator()(int r, int c) const { return r >= c; }
};
/// Strictly lower triangular: 1 if r > c.
struct strict_lower {
    __host__ __device__ constexpr int operator()(int r, int c) const { return r > c; }
};
/// Strictly upper triangular inside diagonal blocks of `block` rows/columns
/// (segmented scans: no carry crosses a block boundary).
struct block_strict_upper {
    int block = 8;
    __host__ __device__ constexpr int operator()(int r, int c) const { return r < c && r / block == c / block; }
};

}  // namespace cmat

// -- generating fragments ----------------------------------------------------

/// The A fragment of `lane` holding gen(row, col) at each element's (row, col).
/// The generator's value is converted once, straight to the element type:
/// a double generator is exact in FP64 fragments (no trip through float).
template <class Shape, class Gen>
__host__ __device__ inline frag_a<Shape> make_a(int lane, Gen gen)
{
    frag_a<Shape> a;
    static_for<Shape::a_count>([&](auto i) {
        const coord rc = Shape::a_coord(lane, i);
        a.x[i] = convert_to<typename Shape::a_type>(gen(rc.row, rc.col));
    });
    return a;
}

/// The B fragment of `lane` holding gen(row, col).
template <class Shape, class Gen>
__host__ __device__ inline frag_b<Shape> make_b(int lane, Gen gen)
{
    frag_b<Shape> b;
    static_for<Shape::b_count>([&](auto i) {
        const coord rc = Shape::b_coord(lane, i);
        b.x[i] = convert_to<typename Shape::b_type>(gen(rc.row, rc.col));
    });
    return b;
}

// -- relabellings ------------------------------------------------------------

/// True for the FP16 shapes (16-bit elements, two per register).
template <class Shape>
inline constexpr bool is_half_shape_v = std::is_same_v<typename Shape::b_type, __half>;

/// The memory row (inside a K-row column of a data tile) that B slot `s` stands for.
template <class Shape>
__host__ __device__ constexpr int slot_row(int s)
{
    if constexpr (is_half_shape_v<Shape>) {
        static_assert(Shape::k == 16, "FP16 relabelling is written for K = 16");
        return 4 * ((s & 7) >> 1) + (s & 1) + 2 * (s >> 3);  // slots 2t+{0,1}, 2t+{8,9} -> 4t..4t+3
    } else if constexpr (Shape::k == 4) {
        return s;
    } else {
        return 2 * (s & 3) + ((s >> 2) & 1) + 8 * (s >> 3);  // slots t+4i -> 2t+(i&1)+8(i>>1)
    }
}

/// Inverse of slot_row: the B slot that stands for memory row `row`.
template <class Shape>
__host__ __device__ constexpr int row_slot(int row)
{
    for (int s = 0; s < Shape::k; ++s)
        if (slot_row<Shape>(s) == row) return s;
    return -1;
}

/// The memory row that D (and A) row `r` stands for.
template <class Shape>
__host__ __device__ constexpr int out_row(int r)
{
    if constexpr (Shape::m == 16) return 2 * (r & 7) + (r >> 3);
    else return r;
}

/// Inverse of out_row.
template <class Shape>
__host__ __device__ constexpr int row_out(int row)
{
    if constexpr (Shape::m == 16) return (row >> 1) + 8 * (row & 1);
    else return row;
}

/// A generator seen through the relabellings: value gen(out_row(r), slot_row(k))
/// for an A operand whose rows meet D and whose columns meet relabelled B slots.
template <class Shape, class Gen>
struct relabel_a {
    Gen gen;
    __host__ __device__ constexpr int operator()(int r, int k) const
    {
        return gen(out_row<Shape>(r), slot_row<Shape>(k));
    }
};

}  // namespace tcore
