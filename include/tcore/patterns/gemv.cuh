// tcore/patterns/gemv.cuh - y = A x in FP64 with x broadcast into the B
// operand and one column of the result kept (Quadrant IV: full input,
// partial output), as the Cubie study does: the warp building blocks. The
// launchers (gemv, its plans and argument checks) are in
// patterns/device/gemv.cuh.
//
// A warp owns an M-row tile of A (M = 16 for m16n8k*, 8 for m8n8k4) and
// walks its columns K at a time:
//
//   D += A_tile (M x K, A operand) * X (K x 8, B operand),  X(k, c) = x[k0 + k] for every c
//   => every column of D is A_tile x; column 0 is kept (lanes t = 0: c0, and c2 for M = 16).
//
// The B operand is x broadcast, not a constant: lane (g,t) loads x at the k
// slots its b_coord names, the same for every column g. Both operands use
// the relabelling of infra/constants.cuh so that a lane's registers are
// adjacent in memory: A register i at a_coord (r, s) holds A(out_row(r),
// slot_row(s)) of the tile, B register j at b_coord (s, c) holds
// x[slot_row(s)], and D row r is y row out_row(r). For m16n8k16 that makes
//   row-major A: registers (i, i+2) adjacent columns -> four 16-byte loads,
//   col-major A: registers (i, i+1) adjacent rows    -> four 16-byte loads,
//   x: registers (j, j+1) adjacent                   -> two 16-byte loads,
// and a lane with t = 0 holds y rows 2g and 2g+1. Only 1/8 of the MMA's
// output is used: the tensor core trades redundant work for wide operand
// fetch. A is read once, so its loads are streaming (ld.global.cs, evict
// first) and leave L2 to x.
//
// Provides
//   gemv_tile<Shape>: where each register lives (a_elem, x_elem, y_row,
//       the pairing flags col_pairs, row_pairs, x_pairs, row_pair).
//   gemv_load_a<Shape, L, Vec>, gemv_load_x<Shape, Vec>: the lane's A / B
//       registers of the tile at (r0, k0); anything outside m x n reads 0.
//   gemv_a_offset<Shape, L>, gemv_lane_invariant_distances<Shape>,
//   gemv_load_a_at<Shape, L>, gemv_load_x_at<Shape>: loads of a full,
//       in-range tile through one pointer per lane plus fixed distances
//       (the fragment layouts place every register at a lane-independent
//       offset from register 0; fewer address registers in a K loop).
//   gemv_accumulate<Backend, Shape, L, Vec>: acc += A tile * broadcast x.
//
// Preconditions
//   Shape: FP64 (f64_m16n8k16/k8/k4, f64_m8n8k4; static_assert).
//   Warp-collective: all 32 lanes, converged, call gemv_accumulate together
//   (mma.sync; not checked); the loaders are per lane.
//   A and x in global memory (__ldcs / __ldg), layout L with leading
//   dimension lda (elements). Vec = false: element alignment. Vec = true:
//   16-byte loads, so A and x 16-byte aligned, lda even, r0 and k0 even
//   (none checked). gemv_load_a_at / gemv_load_x_at: the tile wholly inside
//   A and x, the lane pointer at its register 0 (tile origin plus
//   gemv_a_offset(lane, 0, lda), x + k0 + x_elem(lane, 0)), the Vec
//   alignment conditions (not checked). No shared memory.
//   Result: every column of D is the same; lanes with t = 0 hold y rows
//   r0 + y_row(lane, i) in acc.x[0] (and acc.x[2] for M = 16).
#pragma once

#include "../backend.cuh"
#include "../check.cuh"
#include "../frag/f64_m16n8k16.cuh"
#include "../frag/f64_m16n8k4.cuh"
#include "../frag/f64_m16n8k8.cuh"
#include "../frag/f64_m8n8k4.cuh"
#include "../infra/constants.cuh"
#include "../infra/launch.cuh"

#include <type_traits>

namespace tcore {

/// Where the operands of one GEMV tile live (FP64 shapes).
template <class Shape>
struct gemv_tile {
    static_assert(std::is_same_v<typename Shape::a_type, double>, "GEMV is FP64");
    static constexpr int m = Shape::m, k = Shape::k;

    /// (row, col) inside the M x K tile of A register i of `lane`.
    __host__ __device__ static constexpr coord a_elem(int lane, int i)
    {
        const coord rc = Shape::a_coord(lane, i);
        return {out_row<Shape>(rc.row), slot_row<Shape>(rc.col)};
    }
    /// Index inside the K-slice of x of B register j of `lane`.
    __host__ __device__ static constexpr int x_elem(int lane, int j)
    {
        return slot_row<Shape>(Shape::b_coord(lane, j).row);
    }
    /// Tile row of y that D register i of `lane` holds.
    __host__ __device__ static constexpr int y_row(int lane, int i) { return out_row<Shape>(Shape::c_coord(lane, i).row); }

    /// Registers i and i+1 are adjacent rows of one column (col-major pairs).
    static constexpr bool col_pairs = Shape::m == 16;
    /// Registers i and i+2 are adjacent columns of one row (row-major pairs).
    static constexpr bool row_pairs = Shape::k >= 8;
    /// B registers j and j+1 are adjacent elements of x.
    static constexpr bool x_pairs = Shape::k >= 8;
    /// First register of row-major pair p (row_pairs): (0,2), (1,3), (4,6), (5,7).
    __host__ __device__ static constexpr int row_pair(int p) { return (p & 1) + 4 * (p >> 1); }
};

// -- operand loaders (per lane) ----------------------------------------------

/// Loads the lane's A registers of the M x K tile at (r0, k0) of the m x n
/// matrix A (layout L, leading dimension lda): register i holds
/// A(r0 + a_elem(lane, i).row, k0 + a_elem(lane, i).col). Elements outside
/// m x n read as zero (element loads); a tile wholly inside uses streaming
/// loads (__ldcs), 16-byte ones where Vec and the layout pairs registers.
template <class Shape, layout L, bool Vec>
__device__ inline void gemv_load_a(frag_a<Shape>& a, const double* A, long long lda, long long r0, long long k0,
                                   long long m, long long n)
{
    using G = gemv_tile<Shape>;
    const int lane = lane_id();
    if (r0 + Shape::m <= m && k0 + Shape::k <= n) {
        if constexpr (Vec && L == layout::col_major && G::col_pairs) {
            static_for<Shape::a_count / 2>([&](auto p) {
                const coord rc = G::a_elem(lane, 2 * p);
                const double2 v = __ldcs(reinterpret_cast<const double2*>(A + (k0 + rc.col) * lda + r0 + rc.row));
                a.x[2 * p] = v.x;
                a.x[2 * p + 1] = v.y;
            });
        } else if constexpr (Vec && L == layout::row_major && G::row_pairs) {
            static_for<Shape::a_count / 2>([&](auto p) {
                const int i = G::row_pair(p);
                const coord rc = G::a_elem(lane, i);
                const double2 v = __ldcs(reinterpret_cast<const double2*>(A + (r0 + rc.row) * lda + k0 + rc.col));
                a.x[i] = v.x;
                a.x[i + 2] = v.y;
            });
        } else {
            static_for<Shape::a_count>([&](auto i) {
                const coord rc = G::a_elem(lane, i);
                const long long r = r0 + rc.row, c = k0 + rc.col;
                a.x[i] = __ldcs(A + (L == layout::row_major ? r * lda + c : c * lda + r));
            });
        }
    } else {
        static_for<Shape::a_count>([&](auto i) {
            const coord rc = G::a_elem(lane, i);
            const long long r = r0 + rc.row, c = k0 + rc.col;
            a.x[i] = r < m && c < n ? A[L == layout::row_major ? r * lda + c : c * lda + r] : 0.0;
        });
    }
}

/// Loads the lane's B registers: x[k0 + x_elem(lane, j)], zero past n
/// (__ldg; 16-byte loads where Vec and the shape pairs registers).
template <class Shape, bool Vec>
__device__ inline void gemv_load_x(frag_b<Shape>& b, const double* x, long long k0, long long n)
{
    using G = gemv_tile<Shape>;
    const int lane = lane_id();
    if (k0 + Shape::k <= n) {
        if constexpr (Vec && G::x_pairs) {
            static_for<Shape::b_count / 2>([&](auto p) {
                const double2 v = __ldg(reinterpret_cast<const double2*>(x + k0 + G::x_elem(lane, 2 * p)));
                b.x[2 * p] = v.x;
                b.x[2 * p + 1] = v.y;
            });
        } else {
            static_for<Shape::b_count>([&](auto j) { b.x[j] = __ldg(x + k0 + G::x_elem(lane, j)); });
        }
    } else {
        static_for<Shape::b_count>([&](auto j) {
            const long long c = k0 + G::x_elem(lane, j);
            b.x[j] = c < n ? x[c] : 0.0;
        });
    }
}

/// Offset of A register i of `lane` from the tile origin, for leading dimension lda.
template <class Shape, layout L>
__host__ __device__ constexpr long long gemv_a_offset(int lane, int i, long long lda)
{
    const coord rc = gemv_tile<Shape>::a_elem(lane, i);
    return offset<L>(rc.row, rc.col, lda);
}

/// True if every A register and every B register sits at the same (row, col)
/// or x distance from register 0 on all lanes, so one pointer per lane and
/// fixed distances address the whole fragment (gemv_load_a_at, gemv_load_x_at).
template <class Shape>
__host__ __device__ constexpr bool gemv_lane_invariant_distances()
{
    using G = gemv_tile<Shape>;
    for (int lane = 1; lane < 32; ++lane) {
        for (int i = 0; i < Shape::a_count; ++i) {
            const coord a = G::a_elem(lane, i), a0 = G::a_elem(lane, 0);
            const coord b = G::a_elem(0, i), b0 = G::a_elem(0, 0);
            if (a.row - a0.row != b.row - b0.row || a.col - a0.col != b.col - b0.col) return false;
        }
        for (int j = 0; j < Shape::b_count; ++j)
            if (G::x_elem(lane, j) - G::x_elem(lane, 0) != G::x_elem(0, j) - G::x_elem(0, 0)) return false;
    }
    return true;
}

/// Streaming 16-byte / 8-byte loads of a full, in-range A tile through the
/// lane's pointer `a` to its register 0 (vector-load conditions of gemv_load_a).
template <class Shape, layout L>
__device__ inline void gemv_load_a_at(frag_a<Shape>& f, const double* a, long long lda)
{
    using G = gemv_tile<Shape>;
    static_assert(gemv_lane_invariant_distances<Shape>(), "the fragment is not one pointer plus fixed distances");
    // Distances from register 0, the same on every lane (lane 0's layout).
    auto dist = [&](int i) { return gemv_a_offset<Shape, L>(0, i, lda) - gemv_a_offset<Shape, L>(0, 0, lda); };
    if constexpr (L == layout::col_major && G::col_pairs) {
        static_for<Shape::a_count / 2>([&](auto p) {
            const double2 v = __ldcs(reinterpret_cast<const double2*>(a + dist(2 * p)));
            f.x[2 * p] = v.x;
            f.x[2 * p + 1] = v.y;
        });
    } else if constexpr (L == layout::row_major && G::row_pairs) {
        static_for<Shape::a_count / 2>([&](auto p) {
            const int i = G::row_pair(p);
            const double2 v = __ldcs(reinterpret_cast<const double2*>(a + dist(i)));
            f.x[i] = v.x;
            f.x[i + 2] = v.y;
        });
    } else {
        static_for<Shape::a_count>([&](auto i) { f.x[i] = __ldcs(a + dist(i)); });
    }
}

/// The B registers of a full K-slice of x through the lane's pointer `xp` to its register 0.
template <class Shape>
__device__ inline void gemv_load_x_at(frag_b<Shape>& f, const double* xp)
{
    using G = gemv_tile<Shape>;
    static_assert(gemv_lane_invariant_distances<Shape>(), "the fragment is not one pointer plus fixed distances");
    auto dist = [](int j) { return G::x_elem(0, j) - G::x_elem(0, 0); };
    if constexpr (G::x_pairs) {
        static_for<Shape::b_count / 2>([&](auto p) {
            const double2 v = __ldg(reinterpret_cast<const double2*>(xp + dist(2 * p)));
            f.x[2 * p] = v.x;
            f.x[2 * p + 1] = v.y;
        });
    } else {
        static_for<Shape::b_count>([&](auto j) { f.x[j] = __ldg(xp + dist(j)); });
    }
}

// -- tile product (warp) -----------------------------------------------------

/// Warp level: acc += A(r0.., k0..) tile * broadcast x(k0..). Any part of the
/// tile outside m x n counts as zero. Vec: 16-byte loads (needs A, x 16-byte
/// aligned and lda even). All 32 lanes call it together.
template <class Backend, class Shape, layout L, bool Vec = false>
__device__ inline void gemv_accumulate(frag_c<Shape>& acc, const double* A, long long lda, const double* x,
                                       long long r0, long long k0, long long m, long long n)
{
    frag_a<Shape> a;
    frag_b<Shape> b;
    gemv_load_a<Shape, L, Vec>(a, A, lda, r0, k0, m, n);
    gemv_load_x<Shape, Vec>(b, x, k0, n);
    mma<Backend>(acc, a, b, acc);
}

}  // namespace tcore
