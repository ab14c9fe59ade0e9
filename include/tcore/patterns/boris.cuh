// tcore/patterns/boris.cuh - the Boris particle push in FP64 as one MMA per
// block of particles and time step, after PiCTC (particles of a cell share
// the cell's field) moved to FP64 as in the Cubie study (Quadrant I: every
// MMA input and output element is data).
//
// Boris step with h = q dt / (2m), fields E, B:
//   v- = v + h E;  t = h B;  s = 2 t / (1 + |t|^2)
//   v' = v- + v- x t;  v+ = v- + v' x s;  v_new = v+ + h E;  x_new = x + dt v_new
// For fixed E, B this is affine: v_new = R v + c with the rotation
//   R = I - [s]x + [s]x [t]x   ([a]x b = a x b),   c = (R + I) h E,
// and x_new = x + dt R v + dt c. A particle's state is 8 doubles
//   [vx vy vz 1 | x y z w]   (w: a payload carried unchanged, e.g. weight)
// and one step is state_row * T with the 8x8 matrix (rows: input component,
// columns: output component)
//   T = [ R^T      0 | dt R^T   0 ]   rows vx..vz
//       [ c^T      1 | dt c^T   0 ]   row 1
//       [ 0        0 | I3       0 ]   rows x..z
//       [ 0        0 | 0        1 ]   row w
// so a block of particles (rows) times T is an MMA: 16 particles x 8 with
// f64 m16n8k8 (one MMA per step), 8 particles x 4 per k-block with the
// Cubie study's m8n8k4 (8x4 A blocks, 4x8 B blocks, two MMAs per step).
// The acceleration (c, dt c) and the rotation (R, dt R) are both in T.
//
// Registers: the state lives in the accumulator layout, lane (g, t) holding
// components 2t, 2t+1 (one double2 in memory) of particles g and g + 8 of
// the block; each step makes the next A from D in place with tcore's reuse
// (frag/reuse.cuh, k relabelled: A slot t + 4j stands for component
// reuse_col(lane, j, kb)), and B = T is generated per cell in that same
// relabelled row order, so the state never leaves registers between steps.
// Particles are stored as N x 8 doubles (particle-major), so a lane loads
// and stores its state with 16-byte accesses, a warp 512 contiguous bytes.
//
// tests/host/test_pic.cu checks T against the classical Boris step and a
// block push on a simulated warp; tests/gpu/test_pic.cu the kernels.
#pragma once

#include "../backend.cuh"
#include "../frag/f64_m16n8k4.cuh"
#include "../frag/f64_m16n8k8.cuh"
#include "../frag/f64_m8n8k4.cuh"
#include "../frag/reuse.cuh"

#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

namespace tcore::boris {

inline constexpr int state_size = 8;  ///< doubles per particle: vx vy vz 1 x y z w
inline constexpr int comp_one = 3;    ///< the component that is always 1
inline constexpr int comp_x = 4;      ///< first position component
inline constexpr int comp_w = 7;      ///< the payload component

/// One classical Boris step (the CPU reference and the cce kernels' formula).
__host__ __device__ inline void boris_step(double v[3], double x[3], const double E[3], const double B[3], double h,
                                           double dt)
{
    double vm[3], t[3], s[3], vp[3];
    for (int i = 0; i < 3; ++i) vm[i] = v[i] + h * E[i], t[i] = h * B[i];
    const double f = 2.0 / (1.0 + t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    for (int i = 0; i < 3; ++i) s[i] = f * t[i];
    vp[0] = vm[0] + (vm[1] * t[2] - vm[2] * t[1]);
    vp[1] = vm[1] + (vm[2] * t[0] - vm[0] * t[2]);
    vp[2] = vm[2] + (vm[0] * t[1] - vm[1] * t[0]);
    const double vplus[3] = {vm[0] + (vp[1] * s[2] - vp[2] * s[1]), vm[1] + (vp[2] * s[0] - vp[0] * s[2]),
                             vm[2] + (vp[0] * s[1] - vp[1] * s[0])};
    for (int i = 0; i < 3; ++i) {
        v[i] = vplus[i] + h * E[i];
        x[i] += dt * v[i];
    }
}

/// The affine form of the step: v_new = R v + c (R row-major: v_new_i = sum_j R[i][j] v_j).
__host__ __device__ inline void boris_affine(const double E[3], const double B[3], double h, double R[3][3], double c[3])
{
    double t[3], s[3];
    for (int i = 0; i < 3; ++i) t[i] = h * B[i];
    const double f = 2.0 / (1.0 + t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    for (int i = 0; i < 3; ++i) s[i] = f * t[i];
    // [a]x = [[0, -a2, a1], [a2, 0, -a0], [-a1, a0, 0]];  R = I - [s]x + [s]x [t]x
    const double S[3][3] = {{0, -s[2], s[1]}, {s[2], 0, -s[0]}, {-s[1], s[0], 0}};
    const double Tx[3][3] = {{0, -t[2], t[1]}, {t[2], 0, -t[0]}, {-t[1], t[0], 0}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double st = 0;
            for (int k = 0; k < 3; ++k) st += S[i][k] * Tx[k][j];
            R[i][j] = (i == j ? 1.0 : 0.0) - S[i][j] + st;
        }
    for (int i = 0; i < 3; ++i) {
        double rc = 0;
        for (int j = 0; j < 3; ++j) rc += R[i][j] * (h * E[j]);
        c[i] = rc + h * E[i];
    }
}

/// Entry (in, out) of the step matrix T (see the header comment).
__host__ __device__ inline double transform_entry(const double R[3][3], const double c[3], double dt, int in, int out)
{
    if (out < 3) {  // velocity
        if (in < 3) return R[out][in];
        return in == comp_one ? c[out] : 0.0;
    }
    if (out == comp_one) return in == comp_one ? 1.0 : 0.0;
    if (out < comp_w) {  // position
        const int o = out - comp_x;
        if (in < 3) return dt * R[o][in];
        if (in == comp_one) return dt * c[o];
        return in == out ? 1.0 : 0.0;
    }
    return in == comp_w ? 1.0 : 0.0;  // payload
}

/// Block geometry of the push on Shape (f64_m16n8k8, f64_m16n8k4, f64_m8n8k4).
template <class Shape>
struct block_layout {
    static_assert(std::is_same_v<Shape, f64_m16n8k8> || std::is_same_v<Shape, f64_m16n8k4> ||
                      std::is_same_v<Shape, f64_m8n8k4>,
                  "the Boris push runs on f64_m16n8k8, f64_m16n8k4 or f64_m8n8k4");
    static constexpr int particles = Shape::m;      ///< particles per block (MMA rows)
    static constexpr int pairs = Shape::m / 8;      ///< double2 per lane (particles g, g + 8)
    static constexpr int k_blocks = 8 / Shape::k;   ///< MMAs per step
    static constexpr int b_values = k_blocks * Shape::b_count;  ///< T entries per lane (2 for every shape)
    static_assert(b_values == 2, "one double2 of T per lane");

    /// State component held by accumulator element i (the same on every lane
    /// up to the lane's t): column 2t + (i & 1) of the block.
    __host__ __device__ static constexpr int comp_of_acc(int lane, int i) { return Shape::c_coord(lane, i).col; }
    /// Particle (in the block) of accumulator element i.
    __host__ __device__ static constexpr int particle_of_acc(int lane, int i) { return Shape::c_coord(lane, i).row; }
    /// Input component (T row) and output component (T column) of B value v
    /// (v = kb * b_count + j) of `lane`.
    __host__ __device__ static constexpr coord b_entry(int lane, int v)
    {
        const int kb = v / Shape::b_count, j = v % Shape::b_count;
        return {reuse_col<Shape>(lane, j, kb), Shape::b_coord(lane, j).col};
    }
};

/// The lane's two T entries of a cell (as stored in the per-cell tables).
template <class Shape>
__host__ __device__ inline void transform_values(int lane, const double R[3][3], const double c[3], double dt,
                                                 double (&out)[2])
{
    for (int v = 0; v < 2; ++v) {
        const coord e = block_layout<Shape>::b_entry(lane, v);
        out[v] = transform_entry(R, c, dt, e.row, e.col);
    }
}

/// B fragment of k-block KB from the lane's two T values.
template <class Shape, int KB>
__host__ __device__ inline frag_b<Shape> transform_fragment(double2 tv)
{
    frag_b<Shape> b;
    const double vals[2] = {tv.x, tv.y};
    static_for<Shape::b_count>([&](auto j) { b.x[j] = vals[KB * Shape::b_count + j]; });
    return b;
}

/// State accumulator from the lane's pairs (pair p: particle g + 8p, components 2t, 2t+1).
template <class Shape>
__host__ __device__ inline frag_c<Shape> state_from_pairs(const double2 (&p)[block_layout<Shape>::pairs])
{
    frag_c<Shape> d;
    static_for<Shape::c_count>([&](auto i) {
        const double2 q = p[i >> 1];
        d.x[i] = (i & 1) ? q.y : q.x;
    });
    return d;
}

template <class Shape>
__host__ __device__ inline void pairs_from_state(double2 (&p)[block_layout<Shape>::pairs], const frag_c<Shape>& d)
{
    static_for<block_layout<Shape>::pairs>([&](auto q) { p[q] = make_double2(d.x[2 * q], d.x[2 * q + 1]); });
}

/// One step of a block on Backend: D <- A(D) * T, A made from D in place.
template <class Backend, class Shape>
__device__ inline void push_step(frag_c<Shape>& d, const frag_b<Shape> (&tb)[block_layout<Shape>::k_blocks])
{
    frag_c<Shape> acc;
    fill(acc, 0.0);
    if constexpr (std::is_same_v<Shape, f64_m16n8k8>) {
        // a = {D0, D2, D1, D3}: slots t, t+4 = components 2t, 2t+1; tb[0] was built for that order
        const frag_a<Shape, relabelled_k<0>> a = reuse_a(d);
        mma<Backend>(acc, a, with_k_label<relabelled_k<0>>(tb[0]), acc);
    } else {
        // slot t = component 2t + kb; tb[kb] was built for that order
        const frag_a<Shape, relabelled_k<0>> a0 = reuse_a<0>(d);
        const frag_a<Shape, relabelled_k<1>> a1 = reuse_a<1>(d);
        mma<Backend>(acc, a0, with_k_label<relabelled_k<0>>(tb[0]), acc);
        mma<Backend>(acc, a1, with_k_label<relabelled_k<1>>(tb[1]), acc);
    }
    d = acc;
}

/// `steps` Boris steps of G independent blocks (interleaved for latency),
/// all with their own cell transform. All 32 lanes must call it.
template <class Backend, class Shape, int G>
__device__ inline void push_blocks(frag_c<Shape> (&d)[G], const double2 (&tv)[G], int steps)
{
    constexpr int KB = block_layout<Shape>::k_blocks;
    frag_b<Shape> tb[G][KB];
    static_for<G>([&](auto g) {
        tb[g][0] = transform_fragment<Shape, 0>(tv[g]);
        if constexpr (KB == 2) tb[g][1] = transform_fragment<Shape, 1>(tv[g]);
    });
#pragma unroll 1
    for (int s = 0; s < steps; ++s) static_for<G>([&](auto g) { push_step<Backend, Shape>(d[g], tb[g]); });
}

}  // namespace tcore::boris
