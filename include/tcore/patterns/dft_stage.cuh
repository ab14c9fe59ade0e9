// tcore/patterns/dft_stage.cuh - one DFT stage of 8 columns on the FP64
// MMA, callable in any kernel: radix 8 (one MMA), radix 16 as one complex
// 16x16 product (four MMAs), and the split stages of radix 8, 16 and 32
// (R/8 eight-point MMAs and R/8-point butterflies, section at the end),
// which the FFT pass kernels use (patterns/device/fft_tile.cuh).
//
//   const dft::radix8_matrix<-1> F8(lane_id());        // once per kernel
//   frag_c<f64_m16n8<16>> y = dft::radix8_stage<Backend>(F8, dft::radix8_b(x), w);
//
// An R-point DFT Y = F x (F[k][n] = exp(Sign 2 pi i kn/R)) as the real
// product of dft.cuh: 8 columns = 8 independent transforms per call.
//
// Preconditions (none checked):
//   * warp-collective: all 32 lanes call it together, converged, none
//     exited (mma.sync; cuda_core shuffles). Columns with no data take zeros.
//   * the matrix object was built with lane_id() of the calling lane.
//   * placement, lane (g, t) = (lane >> 2, lane & 3), the standard
//     f64_m16n8k16 B and C maps (docs/mma-fragments.md):
//       R = 8:  B rows 0-7 Re x, rows 8-15 Im x: lane (g, t) holds
//               x.x = {Re x_t, Re x_t+4, Im x_t, Im x_t+4} of column g
//               (radix8_b builds it from the complex pairs x_t, x_t+4);
//               D (c_i -> row g + 8(i/2), column 2t + i%2): y.x[e] = Re Y_g,
//               y.x[2 + e] = Im Y_g of column 2t + e.
//       R = 16: x_re.x[i] = Re x_t+4i, x_im.x[i] = Im x_t+4i of column g
//               (radix16_b); y_re.x[i], y_im.x[i] = Re, Im Y_(g + 8(i/2)) of
//               column 2t + i%2.
//   * twiddles (the overloads with w): input t + 4j of the lane's column is
//     multiplied by w[j] (two FMAs per product, dft::cmul) before the DFT.
//   * values per lane: R = 8 one B fragment in, one C fragment out (4
//     doubles each); R = 16 two in, two out. No shared memory.
//   * FP64 m16n8k16: one DMMA.16x8x16 per product on sm_90; on sm_80 the
//     same registers feed two DMMA.884 (m8n8k4) per k = 4 slice, with no data
//     movement (frag/f64_m16n8k.cuh). R = 8 is one MMA, R = 16 four.
//     Backend cuda_core emulates the MMA with shuffles and FMAs, with the
//     same placement.
// Exactness: the DFT entries are correctly rounded cos/sin of multiples of
// 2 pi/16 (dft::cos16); each output is a sum of 2R products (R = 16: two
// chained MMAs of 16).
#pragma once

#include "dft.cuh"

namespace tcore {
namespace dft {

/// The FP64 MMA shape every stage uses.
using stage_shape = f64_m16n8<16>;

/// a * b of complex doubles with two FMAs.
__host__ __device__ inline double2 cmul(double2 a, double2 b)
{
    return make_double2(fma(a.x, b.x, -a.y * b.y), fma(a.x, b.y, a.y * b.x));
}

/// The lane's A operand of the 8-point DFT (exp(Sign 2 pi i kn/8)); build
/// once per kernel with lane_id().
template <int Sign>
struct radix8_matrix {
    static_assert(Sign == -1 || Sign == 1, "Sign is -1 (forward) or +1 (inverse)");
    frag_a<stage_shape> f;
    __host__ __device__ explicit radix8_matrix(int lane) : f(a_radix8<Sign>(lane)) {}
};
/// The lane's A operands Re F and Im F of the 16-point DFT.
template <int Sign>
struct radix16_matrix {
    static_assert(Sign == -1 || Sign == 1, "Sign is -1 (forward) or +1 (inverse)");
    frag_a<stage_shape> re, im;
    __host__ __device__ explicit radix16_matrix(int lane) { a_radix16<Sign>(lane, re, im); }
};

/// B operand of an 8-point stage from the lane's inputs x[j] = x_(t+4j) of
/// column g.
__host__ __device__ inline frag_b<stage_shape> radix8_b(const double2 (&x)[2])
{
    frag_b<stage_shape> b;
    b.x[0] = x[0].x, b.x[1] = x[1].x, b.x[2] = x[0].y, b.x[3] = x[1].y;
    return b;
}
/// B operands (Re, Im) of a 16-point stage from x[j] = x_(t+4j) of column g.
__host__ __device__ inline void radix16_b(const double2 (&x)[4], frag_b<stage_shape>& re, frag_b<stage_shape>& im)
{
    re.x[0] = x[0].x, re.x[1] = x[1].x, re.x[2] = x[2].x, re.x[3] = x[3].x;
    im.x[0] = x[0].y, im.x[1] = x[1].y, im.x[2] = x[2].y, im.x[3] = x[3].y;
}

/// 8 columns of 8-point DFTs: Y = F8 x, x in the B map, Y in the C map.
template <class Backend, int Sign>
__device__ inline frag_c<stage_shape> radix8_stage(const radix8_matrix<Sign>& F, const frag_b<stage_shape>& x)
{
    frag_c<stage_shape> zero, d;
    fill(zero, 0.0);
    mma<Backend>(d, F.f, x, zero);
    return d;
}
/// The same with input t + 4j of the lane's column multiplied by w[j] first.
template <class Backend, int Sign>
__device__ inline frag_c<stage_shape> radix8_stage(const radix8_matrix<Sign>& F, const frag_b<stage_shape>& x,
                                                   const double2 (&w)[2])
{
    frag_b<stage_shape> b;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
        const double2 v = cmul(make_double2(x.x[j], x.x[2 + j]), w[j]);
        b.x[j] = v.x, b.x[2 + j] = v.y;
    }
    return radix8_stage<Backend>(F, b);
}

/// 8 columns of 16-point DFTs: Re Y = ReF Re x - ImF Im x, Im Y = ImF Re x
/// + ReF Im x, four MMAs.
template <class Backend, int Sign>
__device__ inline void radix16_stage(const radix16_matrix<Sign>& F, const frag_b<stage_shape>& x_re,
                                     const frag_b<stage_shape>& x_im, frag_c<stage_shape>& y_re,
                                     frag_c<stage_shape>& y_im)
{
    frag_c<stage_shape> zero;
    fill(zero, 0.0);
    frag_b<stage_shape> neg_im;
#pragma unroll
    for (int j = 0; j < 4; ++j) neg_im.x[j] = -x_im.x[j];
    mma<Backend>(y_re, F.re, x_re, zero);
    mma<Backend>(y_re, F.im, neg_im, y_re);
    mma<Backend>(y_im, F.im, x_re, zero);
    mma<Backend>(y_im, F.re, x_im, y_im);
}
/// The same with input t + 4j of the lane's column multiplied by w[j] first.
template <class Backend, int Sign>
__device__ inline void radix16_stage(const radix16_matrix<Sign>& F, const frag_b<stage_shape>& x_re,
                                     const frag_b<stage_shape>& x_im, const double2 (&w)[4],
                                     frag_c<stage_shape>& y_re, frag_c<stage_shape>& y_im)
{
    frag_b<stage_shape> re, im;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const double2 v = cmul(make_double2(x_re.x[j], x_im.x[j]), w[j]);
        re.x[j] = v.x, im.x[j] = v.y;
    }
    radix16_stage<Backend>(F, re, im, y_re, y_im);
}

// -- split stages: radix R = 8 R0 as R0 eight-point MMAs -----------------------------
//
// Cooley-Tukey inside the stage (R0 = R/8 = 1, 2, 4, 8), with q = q0 + R0 q1 and m = m1 + 8 m0
// (q0, m0 < R0; q1, m1 < 8):
//   Y_(m1 + 8 m0) = sum_q0 w_R0^(q0 m0) w_R^(q0 m1) sum_q1 w_8^(q1 m1) x_(q0 + R0 q1),
// w_K = exp(Sign 2 pi i/K): R0 eight-point DFTs on the MMA (one m16n8k16
// each, the radix-8 stage above), the twiddles w_R^(q0 m1) and R0-point
// butterflies (adds only) on the CUDA cores. 64 MMA flops a point for every
// R, half of radix16_stage's 128. Lane (g, t) holds inputs stage_input(t,
// qq, R) = q0 + R0 (t + 4j) of column g (qq = q0 + R0 j) and gets outputs
// g + 8 h of columns 2t and 2t+1, h = m0: all in the lane, no data moves.

/// The lane's twiddles w[q0] = exp(Sign 2 pi i q0 g / R) of a split stage
/// (w[0] = 1), g = lane >> 2; exact constants (root64), no table.
template <int R, int Sign>
__host__ __device__ inline void split_twiddles(int lane, double2 (&w)[R / 8])
{
    static_assert(R == 8 || R == 16 || R == 32 || R == 64, "split stages have radix 8, 16, 32 or 64");
    const int g = (lane >> 2) & 7;
    for (int q0 = 0; q0 < R / 8; ++q0) w[q0] = root64(q0 * g * (64 / R), Sign);
}

/// b = the R0-point DFT of a (R0 = 2, 4, 8; exp(Sign 2 pi i/R0)), adds and,
/// for 8 points, the products by exp(Sign 2 pi i k/8): radix 2 on the even
/// and odd halves.
template <int Sign, int R0>
__host__ __device__ inline void butterflies(const double2 (&a)[R0], double2 (&b)[R0])
{
    auto add = [](double2 x, double2 y) { return make_double2(x.x + y.x, x.y + y.y); };
    auto sub = [](double2 x, double2 y) { return make_double2(x.x - y.x, x.y - y.y); };
    auto rot = [](double2 x) { return make_double2(-Sign * x.y, Sign * x.x); };  // times Sign i
    if constexpr (R0 == 2) {
        b[0] = add(a[0], a[1]), b[1] = sub(a[0], a[1]);
    } else if constexpr (R0 == 4) {
        const double2 s0 = add(a[0], a[2]), d0 = sub(a[0], a[2]), s1 = add(a[1], a[3]), d1 = rot(sub(a[1], a[3]));
        b[0] = add(s0, s1), b[2] = sub(s0, s1), b[1] = add(d0, d1), b[3] = sub(d0, d1);
    } else {
        static_assert(R0 == 8, "butterflies of 2, 4 or 8 points");
        const double2 ev[4] = {a[0], a[2], a[4], a[6]}, od[4] = {a[1], a[3], a[5], a[7]};
        double2 e[4], o[4];
        butterflies<Sign>(ev, e);
        butterflies<Sign>(od, o);
        constexpr double c = 0.70710678118654752440;  // cos(pi/4)
        const double2 t1 = make_double2(c * (o[1].x - Sign * o[1].y), c * (Sign * o[1].x + o[1].y));
        const double2 t3 = make_double2(-c * (o[3].x + Sign * o[3].y), c * (Sign * o[3].x - o[3].y));
        const double2 t[4] = {o[0], t1, rot(o[2]), t3};  // exp(Sign 2 pi i k/8) o_k
        for (int k = 0; k < 4; ++k) b[k] = add(e[k], t[k]), b[k + 4] = sub(e[k], t[k]);
    }
}

/// 8 columns of R-point DFTs (R = 8, 16, 32, 64) as a split stage: x[qq] is
/// input stage_input(t, qq, R) of the lane's column g; y[h] (radix-8 C map,
/// y[h].x[e] = Re, y[h].x[2 + e] = Im) output g + 8h of column 2t + e;
/// w[q0] = exp(Sign 2 pi i q0 g / R): split_twiddles, or a kernel's twiddle
/// table. R/8 MMAs. Same preconditions as the stages above.
template <class Backend, int R, int Sign>
__device__ inline void split_stage(const radix8_matrix<Sign>& F, const double2 (&x)[R / 4],
                                   const double2 (&w)[R / 8], frag_c<stage_shape> (&y)[R / 8])
{
    static_assert(R == 8 || R == 16 || R == 32 || R == 64, "split stages have radix 8, 16, 32 or 64");
    constexpr int R0 = R / 8;
    frag_c<stage_shape> z[R0];
#pragma unroll
    for (int q0 = 0; q0 < R0; ++q0) {
        const double2 pair[2] = {x[q0], x[q0 + R0]};  // inputs q0 + R0 t, q0 + R0 (t + 4)
        z[q0] = radix8_stage<Backend>(F, radix8_b(pair));
    }
    if constexpr (R0 == 1) {
        y[0] = z[0];
    } else {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            double2 a[R0];
            a[0] = make_double2(z[0].x[e], z[0].x[2 + e]);
#pragma unroll
            for (int q0 = 1; q0 < R0; ++q0) a[q0] = cmul(make_double2(z[q0].x[e], z[q0].x[2 + e]), w[q0]);
            double2 b[R0];
            butterflies<Sign>(a, b);
#pragma unroll
            for (int h = 0; h < R0; ++h) y[h].x[e] = b[h].x, y[h].x[2 + e] = b[h].y;
        }
    }
}

}  // namespace dft
}  // namespace tcore
