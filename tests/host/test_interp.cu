// tests/host/test_interp.cu - tcore/patterns/interp.cuh without a GPU.
//
// 1. Generators: the Hermite matrix M = H S is the Catmull-Rom matrix, its
//    weights are Keys' cubic kernel (a = -1/2), interpolate (w(0) = e_1),
//    sum to 1 and reproduce quadratics; bilinear weights are (1-a, a); the
//    matrix form p = x^T (C F C^T) y equals wx^T F wy.
// 2. Geometry: locate() follows the texture unit (pixel centres, identity
//    scale returns the texels themselves).
// 3. Tile maps (FP16 and FP64 m16n8k16): every map is one-to-one onto its
//    tile, the FP16 register pairs the packed builders rely on are adjacent,
//    the row half of A1 is the same on every lane, packed FP16 weights match
//    the real ones.
// 4. A whole warp tile on a simulated warp: A1/B1/B2 from the pattern's
//    builders and maps, the MMAs through tcore::mma_emulated (the cuda_core
//    backend's arithmetic, same lane maps), A2 through the reuse sources,
//    compared with the FP64 reference for several scales, both filters,
//    3 and 4 channels, tiles on the image border.
// 5. A whole staged block and a whole gather warp the same way (structured
//    and random images, levels 1..255, odd sizes, both accumulators; the
//    gather windows of 2, 4 and 8 k blocks all occur), the staged plans'
//    contiguous rows, and the planners' argument checks.
#include "common/test_util.hpp"

#include "examples/interp/interp_host.hpp"

#include <tcore/patterns/interp.cuh>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using tcore::test::rng;
using tcore::test::tally;
namespace ti = tcore::interp;
namespace ex = tcore::examples::interp;
using ti::filter;

namespace {

double keys(double d)
{
    d = std::fabs(d);
    if (d < 1) return (1.5 * d - 2.5) * d * d + 1;
    if (d < 2) return ((-0.5 * d + 2.5) * d - 4) * d + 2;
    return 0;
}

void check_generators(tally& t, rng& r)
{
    const double cr[4][4] = {{0, 1, 0, 0}, {-0.5, 0, 0.5, 0}, {1, -2.5, 2, -0.5}, {-0.5, 1.5, -1.5, 0.5}};
    int bad = 0;
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 4; ++j) bad += ti::hermite_coef(k, j) != cr[k][j];
    t.check(bad == 0, "hermite_coef differs from the Catmull-Rom matrix in %d entries", bad);
    static_assert(ti::hermite_coef(2, 1) == -2.5, "M is a constant expression");
    static_assert(ti::hermite_matrix{}(3, 3) == 0.5 && ti::bilinear_matrix{}(1, 0) == -1.0, "generator objects");

    for (int it = 0; it < 200; ++it) {
        const double a = it == 0 ? 0.0 : (it == 1 ? 0.5 : r.uniform(0, 1));
        double w[4];
        ti::weights<filter::bicubic>(a, w);
        double sum = 0, kmax = 0;
        for (int j = 0; j < 4; ++j) {
            sum += w[j];
            kmax = tcore::test::worst_of(kmax, std::fabs(w[j] - keys(j - 1 - a)));
        }
        // Both forms are cubics in a in [0, 1] (|d| <= 2, coefficients <= 4):
        // at most 6 rounded operations on values below 8 each, 24 eps apart
        // at most; the sum of four such weights, 4 x 24 eps + 3 additions.
        t.check(std::fabs(sum - 1) < 100 * DBL_EPSILON, "bicubic weights at a=%g sum to %.17g", a, sum);
        t.check(kmax < 24 * DBL_EPSILON, "bicubic weights at a=%g differ from Keys' kernel by %g", a, kmax);
        // Quadratics are reproduced: f(x) = c0 + c1 x + c2 x^2 at x = -1, 0, 1, 2.
        const double c0 = r.uniform(), c1 = r.uniform(), c2 = r.uniform();
        double p = 0;
        for (int j = 0; j < 4; ++j) {
            const double x = j - 1;
            p += w[j] * (c0 + c1 * x + c2 * x * x);
        }
        t.check(std::fabs(p - (c0 + c1 * a + c2 * a * a)) < 1e-14, "bicubic does not reproduce a quadratic at a=%g", a);
        double wl[2];
        ti::weights<filter::bilinear>(a, wl);
        t.check(wl[0] == 1 - a && wl[1] == a, "bilinear weights at a=%g are (%g, %g)", a, wl[0], wl[1]);
        float wf[4];
        ti::weights<filter::bicubic>(static_cast<float>(a), wf);
        double ff = 0;
        for (int j = 0; j < 4; ++j) ff = tcore::test::worst_of(ff, std::fabs(wf[j] - keys(j - 1 - static_cast<float>(a))));
        t.check(ff < 1e-6, "FP32 bicubic weights off by %g", ff);
    }
    double w0[4];
    ti::weights<filter::bicubic>(0.0, w0);
    t.check(w0[0] == 0 && w0[1] == 1 && w0[2] == 0 && w0[3] == 0, "bicubic weights at a=0 are not e_1");

    // Matrix form A = C F C^T against wx^T F wy.
    for (int it = 0; it < 50; ++it) {
        double f4[4][4], f2[2][2];
        for (auto& row : f4)
            for (double& v : row) v = r.uniform(0, 255);
        for (auto& row : f2)
            for (double& v : row) v = r.uniform(0, 255);
        const double a = r.uniform(0, 1), b = r.uniform(0, 1);
        double wx[4], wy[4];
        ti::weights<filter::bicubic>(a, wx);
        ti::weights<filter::bicubic>(b, wy);
        double p = 0;
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) p += wx[i] * f4[i][j] * wy[j];
        const double q = ti::eval_square<filter::bicubic>(f4, a, b);
        t.check(std::fabs(p - q) < 1e-10, "bicubic matrix form %.15g vs weights %.15g", q, p);
        double lx[2], ly[2];
        ti::weights<filter::bilinear>(a, lx);
        ti::weights<filter::bilinear>(b, ly);
        double pl = 0;
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) pl += lx[i] * f2[i][j] * ly[j];
        const double ql = ti::eval_square<filter::bilinear>(f2, a, b);
        t.check(std::fabs(pl - ql) < 1e-10, "bilinear matrix form %.15g vs weights %.15g", ql, pl);
    }
}

void check_geometry(tally& t)
{
    // Identity scale: u = d exactly, a = 0.
    for (int d = 0; d < 100; ++d) {
        const auto s = ti::locate<double>(d, 1.0);
        t.check(s.i0 == d && s.a == 0.0, "identity locate(%d) = (%d, %g)", d, s.i0, s.a);
    }
    // 2x upscale: d = 0 -> u = -0.25 (i0 = -1, a = 0.75); d = 1 -> 0.25.
    const auto s0 = ti::locate<double>(0, 0.5), s1 = ti::locate<double>(1, 0.5);
    t.check(s0.i0 == -1 && s0.a == 0.75 && s1.i0 == 0 && s1.a == 0.25, "2x upscale positions");
    // 2x downscale: d = 0 -> u = 0.5.
    const auto s2 = ti::locate<float>(0, 2.0f);
    t.check(s2.i0 == 0 && s2.a == 0.5f, "2x downscale position");
    // Identity resampling reproduces the image.
    const ex::image im = ex::checkerboard(37, 23, 4, 5);
    std::vector<double> out;
    ex::reference<filter::bicubic>(im, 37, 23, out, 1);
    int bad = 0;
    for (std::size_t i = 0; i < out.size(); ++i) bad += out[i] != im.data[i];
    t.check(bad == 0, "identity bicubic resampling changes %d values", bad);
}

template <class Shape>
void check_maps(tally& t)
{
    using T = ti::tile<Shape>;
    const char* name = Shape::name();
    // A1: (output column, texel) one-to-one over 16 x 16.
    std::set<int> a1, b1[2], b2, d2[4], d1[2];
    int bad_half = 0, bad_pairs = 0, bad_b1x = 0, bad_b2pair = 0;
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < Shape::a_count; ++i) {
            const tcore::coord e = T::a1(lane, i);
            a1.insert(e.row * 16 + e.col);
            bad_half += (e.row >> 3) != (T::a1(0, i).row >> 3);
            if (T::is_half && (i & 1)) {
                const tcore::coord p = T::a1(lane, i - 1);
                bad_pairs += !(p.row == e.row && p.col + 1 == e.col);
            }
        }
        for (int n1 = 0; n1 < 2; ++n1)
            for (int j = 0; j < Shape::b_count; ++j) {
                const auto e = T::b1(lane, j, n1);
                b1[n1].insert((e.x * 4 + e.row) * 4 + e.c);
                if (T::is_half) bad_b1x += e.x != 4 * (lane & 3) + j;
                bad_b1x += e.row != 2 * n1 + ((lane >> 2) >> 2);
            }
        for (int j = 0; j < Shape::b_count; ++j) {
            const auto e = T::b2(lane, j);
            b2.insert(((e.row * 4 + e.c) * 2 + e.out_row) * 4 + e.out_c);
            if (T::is_half && (j & 1)) {
                const auto p = T::b2(lane, j - 1);
                bad_b2pair += !(p.row == e.row && p.out_row == e.out_row && p.out_c == e.out_c && p.c != e.c);
            }
        }
        for (int nb = 0; nb < 4; ++nb)
            for (int i = 0; i < Shape::c_count; ++i) {
                const auto e = T::d2(lane, i, nb);
                d2[nb].insert((e.col * 8 + e.row) * 4 + e.c);
            }
        for (int n1 = 0; n1 < 2; ++n1)
            for (int i = 0; i < Shape::c_count; ++i) {
                const tcore::coord e = T::d1(lane, i, n1);
                d1[n1].insert(e.row * 16 + e.col);
            }
    }
    t.check(a1.size() == 256, "%s: A1 covers %zu of 256 (column, texel) pairs", name, a1.size());
    t.check(bad_half == 0, "%s: A1 row half differs between lanes (%d)", name, bad_half);
    t.check(bad_pairs == 0, "%s: A1 register pairs not adjacent texels (%d)", name, bad_pairs);
    t.check(b1[0].size() == 128 && b1[1].size() == 128, "%s: B1 covers %zu / %zu of 128", name, b1[0].size(),
            b1[1].size());
    t.check(bad_b1x == 0, "%s: B1 texel/row map not as the loader assumes (%d)", name, bad_b1x);
    t.check(b2.size() == 128, "%s: B2 covers %zu of 128", name, b2.size());
    t.check(bad_b2pair == 0, "%s: B2 register pairs do not share row and column (%d)", name, bad_b2pair);
    for (int nb = 0; nb < 4; ++nb) t.check(d2[nb].size() == 128, "%s: D2 block %d covers %zu of 128", name, nb, d2[nb].size());
    t.check(d1[0].size() == 128 && d1[1].size() == 128, "%s: D1 maps", name);
    // A2 (through the reuse source) holds P column b2_p at the k slot B2 uses.
    int bad_reuse = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < Shape::a_count; ++i) {
            const tcore::reuse_home src = T::a2_source(lane, i);
            const tcore::coord from = T::d1(src.lane, src.index, src.acc);  // (column, P column) held
            const tcore::coord slot = Shape::a_coord(lane, i);              // (row, k slot) wanted
            // The B2 register with this k slot in column g' holds P column b2_p(lane', j):
            const tcore::home bh = Shape::b_home(slot.col, 0);
            bad_reuse += from.row != slot.row || from.col != T::b2_p(bh.lane, bh.index);
        }
    t.check(bad_reuse == 0, "%s: A2 k slots and B2 rows disagree (%d)", name, bad_reuse);
}

template <filter F>
void check_half_weights(tally& t, rng& r)
{
    int bad = 0;
    for (int it = 0; it < 300; ++it) {
        const float a = static_cast<float>(r.uniform(0, 1));
        const int i0 = static_cast<int>(r.uniform(-5, 40));
        const ti::half_weights h = ti::make_half_weights<F>({i0, a});
        const ti::real_weights<F, float> w = ti::make_real_weights<F, float>({i0, a});
        for (int x = i0 - 8; x < i0 + 8; ++x) {
            const unsigned want_lo = ti::half_bits(ti::weight_at(w, x)), want_hi = ti::half_bits(ti::weight_at(w, x + 1));
            const unsigned got = ti::half_pair(h, x);
            bad += got != (want_lo | (want_hi << 16));
            bad += ti::half_single(h, x) != want_lo;
        }
    }
    t.check(bad == 0, "%s packed FP16 weights wrong in %d places", ti::filter_name(F), bad);
}

// -- a warp tile on a simulated warp -------------------------------------------

template <class T, int Count>
struct lane_reader {
    const T (*lanes)[Count];
    __host__ __device__ T operator()(int src, int i) const { return lanes[src][i]; }
};

/// D = A B + D for all 32 lanes (the cuda_core backend's arithmetic).
template <class Shape>
void warp_mma(tcore::frag_c<Shape> (&d)[32], const tcore::frag_a<Shape> (&a)[32], const tcore::frag_b<Shape> (&b)[32])
{
    using A = typename Shape::a_type;
    using B = typename Shape::b_type;
    A av[32][Shape::a_count];
    B bv[32][Shape::b_count];
    for (int l = 0; l < 32; ++l) {
        for (int i = 0; i < Shape::a_count; ++i) av[l][i] = a[l].x[i];
        for (int i = 0; i < Shape::b_count; ++i) bv[l][i] = b[l].x[i];
    }
    for (int l = 0; l < 32; ++l) {
        typename Shape::acc_type acc[Shape::c_count];
        for (int i = 0; i < Shape::c_count; ++i) acc[i] = Shape::to_acc(d[l].x[i]);
        tcore::mma_emulated<Shape>(l, acc, lane_reader<A, Shape::a_count>{av}, lane_reader<B, Shape::b_count>{bv});
        for (int i = 0; i < Shape::c_count; ++i) d[l].x[i] = tcore::convert_to<typename Shape::c_type>(acc[i]);
    }
}

/// The tile loop of resample_block for one tile, lane by lane; writes the
/// tile's pixels into `out` (width_out x height_out x channels).
template <class Shape, filter F>
void model_tile(const ex::image& in, int wo, int ho, int ox0, int oy0, std::vector<double>& out)
{
    using T = ti::tile<Shape>;
    using real = typename T::real;
    using W = ti::weights_of<Shape, F>;
    constexpr int taps = ti::taps<F>, first = ti::first_tap<F>;
    const real sx = static_cast<real>(static_cast<double>(in.width) / wo);
    const real sy = static_cast<real>(static_cast<double>(in.height) / ho);
    const int ox_last = std::min(ox0 + 15, wo - 1);
    const int x_lo = ti::locate<real>(ox0, sx).i0 + first;
    const int x_hi = ti::locate<real>(ox_last, sx).i0 + first + taps - 1;
    const int xs = x_lo & ~3;
    const int k_blocks = (x_hi - xs) / 16 + 1;
    W wx[32][2], wy[32][4];
    for (int l = 0; l < 32; ++l) {
        const int g = l >> 2;
        wx[l][0] = ti::make_weights<Shape, F>(ox0 + g, sx);
        wx[l][1] = ti::make_weights<Shape, F>(ox0 + g + 8, sx);
        for (int nb = 0; nb < 4; ++nb) wy[l][nb] = ti::make_weights<Shape, F>(oy0 + 2 * nb + (g >> 2), sy);
    }
    int lo[4], hi[4];
    for (int nb = 0; nb < 4; ++nb) {
        lo[nb] = ti::locate<real>(oy0 + 2 * nb, sy).i0 + first;
        hi[nb] = ti::locate<real>(oy0 + 2 * nb + 1, sy).i0 + first + taps - 1;
    }
    static tcore::frag_c<Shape> d2[4][32];
    for (auto& blk : d2)
        for (auto& f : blk) tcore::fill(f, 0.0f);
    for (int yc = lo[0]; yc <= hi[3]; yc += 4) {
        static tcore::frag_c<Shape> d1[2][32];
        for (auto& blk : d1)
            for (auto& f : blk) tcore::fill(f, 0.0f);
        for (int kb = 0; kb < k_blocks; ++kb) {
            static tcore::frag_a<Shape> a1[32];
            static tcore::frag_b<Shape> b1[2][32];
            for (int l = 0; l < 32; ++l) {
                a1[l] = ti::make_a1<Shape, F>(l, wx[l], xs + 16 * kb);
                for (int n1 = 0; n1 < 2; ++n1)
                    for (int j = 0; j < Shape::b_count; ++j) {
                        const auto e = T::b1(l, j, n1);
                        const int x = ti::clamp_index(xs + 16 * kb + e.x, in.width);
                        const int y = ti::clamp_index(yc + e.row, in.height);
                        const double v = e.c < in.channels ? in.at(x, y, e.c) : 0;
                        b1[n1][l].x[j] = tcore::convert_to<typename Shape::b_type>(v);
                    }
            }
            warp_mma(d1[0], a1, b1[0]);
            warp_mma(d1[1], a1, b1[1]);
        }
        static tcore::frag_a<Shape> a2[32];
        for (int l = 0; l < 32; ++l)
            for (int i = 0; i < Shape::a_count; ++i) {
                const tcore::reuse_home src = T::a2_source(l, i);
                a2[l].x[i] = tcore::convert_to<typename Shape::a_type>(d1[src.acc][src.lane].x[src.index]);
            }
        for (int nb = 0; nb < 4; ++nb) {
            if (!(yc <= hi[nb] && yc + 3 >= lo[nb])) continue;
            static tcore::frag_b<Shape> b2[32];
            for (int l = 0; l < 32; ++l) b2[l] = ti::make_b2<Shape, F>(l, wy[l][nb], yc);
            warp_mma(d2[nb], a2, b2);
        }
    }
    for (int nb = 0; nb < 4; ++nb)
        for (int l = 0; l < 32; ++l)
            for (int i = 0; i < Shape::c_count; ++i) {
                const auto e = T::d2(l, i, nb);
                const int ox = ox0 + e.col, oy = oy0 + e.row;
                if (ox < wo && oy < ho && e.c < in.channels)
                    out[(static_cast<std::size_t>(oy) * wo + ox) * in.channels + e.c] =
                        static_cast<double>(d2[nb][l].x[i]);
            }
}

template <class Shape, filter F>
void check_model(tally& t, const ex::image& in, int wo, int ho, const char* what)
{
    std::vector<double> ref, got(static_cast<std::size_t>(wo) * ho * in.channels, -1e9);
    ex::reference<F>(in, wo, ho, ref, 1);
    // A few tiles: the corners and one inside.
    const int tiles[][2] = {{0, 0}, {(wo - 1) / 16 * 16, (ho - 1) / 8 * 8}, {(wo / 32) * 16, (ho / 16) * 8},
                            {(wo - 1) / 16 * 16, 0}};
    double max_err = 0;
    long long checked = 0;
    for (const auto& tl : tiles) {
        model_tile<Shape, F>(in, wo, ho, tl[0], tl[1], got);
        for (int oy = tl[1]; oy < std::min(ho, tl[1] + 8); ++oy)
            for (int ox = tl[0]; ox < std::min(wo, tl[0] + 16); ++ox)
                for (int c = 0; c < in.channels; ++c) {
                    const std::size_t k = (static_cast<std::size_t>(oy) * wo + ox) * in.channels + c;
                    max_err = tcore::test::worst_of(max_err, std::fabs(got[k] - ref[k]));
                    ++checked;
                }
    }
    // FP64: rounding only. FP16: weights rounded to FP16, D1 rounded to FP16
    // for A2 (at most ~0.5 of a level, tests/gpu explains the bound).
    const bool half = ti::tile<Shape>::is_half;
    const double tol = half ? 0.75 : 1e-10;
    t.check(max_err <= tol && checked > 0, "model %s %s %s: max error %g (tolerance %g, %lld values)", Shape::name(),
            ti::filter_name(F), what, max_err, tol, checked);
}

template <filter F>
void check_models(tally& t)
{
    struct sizes {
        int wi, hi, wo, ho, channels;
    };
    const sizes cases[] = {{37, 29, 150, 90, 4},   // ~4x up, odd sizes
                           {64, 64, 96, 80, 3},    // 1.5x / 1.25x up, RGB
                           {160, 120, 40, 29, 4},  // 4x down
                           {50, 40, 50, 40, 4},    // identity
                           {33, 70, 61, 17, 3}};   // mixed
    for (const sizes& s : cases) {
        const ex::image im = s.channels == 4 ? ex::alpha_image(s.wi, s.hi) : ex::smooth_field(s.wi, s.hi, 3);
        char what[64];
        std::snprintf(what, sizeof what, "%dx%dx%d->%dx%d", s.wi, s.hi, s.channels, s.wo, s.ho);
        check_model<tcore::f64_m16n8k16, F>(t, im, s.wo, s.ho, what);
        check_model<tcore::f16_m16n8k16_f32acc, F>(t, im, s.wo, s.ho, what);
    }
    const ex::image chk = ex::checkerboard(40, 40, 4, 3);
    check_model<tcore::f64_m16n8k16, F>(t, chk, 120, 100, "checker 40->120x100");
    check_model<tcore::f16_m16n8k16_f32acc, F>(t, chk, 120, 100, "checker 40->120x100");
}


// -- the staged FP16 path on a simulated block ---------------------------------------


/// The FP32 rounding of the staged stores equals to_u8 (ties to even,
/// saturation, NaN); channel_planar transposes; the RGB word map covers
/// the 2 x 48 bytes of a row block exactly once from the right pixels.
void check_store_maps(tally& t, rng& r)
{
    int bad = 0;
    for (int it = 0; it < 20000; ++it) {
        float v = static_cast<float>(r.uniform(-300, 600));
        if (it < 1200) v = 0.5f * (it - 200);  // ties and integers
        bad += (ti::u8_low_byte(v) & 0xffu) != ti::to_u8(v);
        if (v >= 0) bad += (ti::u8_low_byte<false>(v) & 0xffu) != ti::to_u8(v);
    }
    bad += (ti::u8_low_byte(std::nanf("")) & 0xffu) != 0u;
    bad += (ti::u8_low_byte<false>(-0.0f) & 0xffu) != 0u;
    t.check(bad == 0, "u8_low_byte differs from to_u8 in %d cases", bad);

    const uint4 p = ti::channel_planar(make_uint4(0x03020100u, 0x13121110u, 0x23222120u, 0x33323130u));
    t.check(p.x == 0x30201000u && p.y == 0x31211101u && p.z == 0x32221202u && p.w == 0x33231303u,
            "channel_planar: %08x %08x %08x %08x", p.x, p.y, p.z, p.w);

    // Lane l holds the pixel word of column (l >> 2) + 8 ((l & 3) & 1), row (l & 3) >> 1.
    int bad_lane = 0, bad_bytes = 0;
    for (int l = 0; l < 32; ++l) {
        const int col = (l >> 2) + 8 * ((l & 3) & 1), row = (l & 3) >> 1;
        bad_lane += ti::pixel_lane(col, row) != l;
    }
    std::set<int> bytes;
    for (int l = 0; l < 24; ++l) {
        const ti::rgb_word w = ti::rgb_word_of(l);
        auto px = [](int p) {  // byte c of pixel p: (p << 2) | c
            unsigned v = 0;
            for (int c = 0; c < 4; ++c) v |= static_cast<unsigned>((p << 2) | c) << (8 * c);
            return v;
        };
        const unsigned word = ti::byte_perm(px(w.p0), px(w.p0 + 1), w.select);
        for (int b = 0; b < 4; ++b) {
            const int pos = 4 * w.k + b, v = (word >> (8 * b)) & 0xff;
            bad_bytes += (v >> 2) != pos / 3 || (v & 3) != pos % 3 || w.p0 + 1 > 15;
            bytes.insert(48 * w.r + pos);
        }
    }
    t.check(bad_lane == 0 && bad_bytes == 0 && bytes.size() == 96, "RGB word map: %d lanes, %d bytes wrong, %zu of 96 covered",
            bad_lane, bad_bytes, bytes.size());
}

/// Every warp's product-1 window lies inside its block's staged row and
/// needs at most plan.k_blocks k blocks, for random sizes (up to 16x down)
/// and the benchmark's.
template <filter F>
void check_staged_windows(tally& t, rng& r)
{
    long long bad = 0, checked = 0, unusable = 0;
    auto check = [&](int wi, int wo) {
        const ti::staged_plan plan = ti::plan_staged<F>(wi, wo, 64, 64, std::size_t(1) << 30);
        if (!plan.usable) {
            ++unusable;
            return;
        }
        const float sx = static_cast<float>(static_cast<double>(wi) / wo);
        for (int bx = 0; bx * ti::staged_cols < wo; ++bx) {
            const int xw0 = ti::block_x0<F>(bx, sx);
            for (int w = 0; w < ti::staged_warps; ++w) {
                const int ox0 = ti::staged_cols * bx + 16 * w;
                if (ox0 >= wo) break;
                const ti::texel_window win = ti::warp_window<F>(ox0, wo, sx);
                ++checked;
                bad += win.xs < xw0 || (win.xs - xw0) % 4 != 0 || win.k_blocks > plan.k_blocks ||
                       win.xs - xw0 + 16 * win.k_blocks > plan.row_texels;
            }
        }
    };
    for (int it = 0; it < 1500; ++it) {
        const int wo = static_cast<int>(r.uniform(1, 3000));
        const int wi = std::max(1, static_cast<int>(wo * r.uniform(0.05, 16.0)));
        check(wi, wo);
    }
    const int sizes[][2] = {{256, 1024}, {1024, 4096}, {2048, 3072}, {1920, 3840}, {4096, 1024}, {4096, 2560}, {37, 150}};
    for (const auto& s : sizes) check(s[0], s[1]);
    t.check(bad == 0 && unusable == 0, "%s staged windows: %lld of %lld warps outside the staged row, %lld plans unusable",
            ti::filter_name(F), bad, checked, unusable);
}

/// One block of resample_staged_block, lane by lane: staging (RGBA bytes,
/// the fourth byte 0 for RGB), B2 and A1 tables, the row-block loop.
template <class Shape, filter F>
void model_staged_block(const ex::image& in, int wo, int ho, const ti::staged_plan& plan, int bx, int by,
                        std::vector<double>& out)
{
    using T = ti::tile<Shape>;
    constexpr int taps = ti::taps<F>, chunks = taps / 2;
    const float sx = static_cast<float>(static_cast<double>(in.width) / wo);
    const float sy = static_cast<float>(static_cast<double>(in.height) / ho);
    const int oy0 = plan.block_rows * by, xw0 = ti::block_x0<F>(bx, sx);
    // Staged rows as the device lays them out: per 4 texels, channel-planar words.
    std::vector<unsigned> stage(plan.stage_bytes() / 4);
    // Texels the block's columns read (the device zeroes the rest of a row).
    const int last_col = std::min(ti::staged_cols * bx + ti::staged_cols - 1, wo - 1);
    const int loaded = (ti::locate<float>(last_col, sx).i0 + ti::first_tap<F> + taps - 1 - xw0) / 4 + 1;
    for (int s = 0; s < plan.slots(); ++s) {
        const int y = ti::staged_row<F>(s, oy0, ho, in.height, sy, plan.contiguous);
        for (int gi = 0; gi < loaded; ++gi) {
            unsigned rgba[4];
            for (int e = 0; e < 4; ++e) {
                rgba[e] = 0;
                for (int c = 0; c < in.channels; ++c)
                    rgba[e] |= static_cast<unsigned>(in.at(ti::clamp_index(xw0 + 4 * gi + e, in.width), y, c)) << (8 * c);
            }
            const uint4 w = ti::channel_planar(make_uint4(rgba[0], rgba[1], rgba[2], rgba[3]));
            const std::size_t at = (static_cast<std::size_t>(s) * plan.row_texels + 4 * gi);
            stage[at] = w.x, stage[at + 1] = w.y, stage[at + 2] = w.z, stage[at + 3] = w.w;
        }
    }
    std::vector<tcore::frag_b<Shape>> b2(static_cast<std::size_t>(plan.chunks()) * 32);
    for (int e = 0; e < plan.chunks(); ++e)
        for (int l = 0; l < 32; ++l) {
            unsigned wb[taps];
            const int oy = std::min(oy0 + 2 * (e / chunks) + ((l >> 2) >> 2), ho - 1);
            ti::weight_bits<F>(oy, sy, wb);
            if (plan.contiguous) {
                const int oyg = ti::group_first_row(oy0 + 2 * (e / chunks), plan.group_blocks, ho);
                b2[static_cast<std::size_t>(e) * 32 + l] = ti::make_b2_rows<Shape, F>(
                    l, wb, e % chunks, ti::locate<float>(oy, sy).i0 - ti::locate<float>(oyg, sy).i0);
            } else {
                b2[static_cast<std::size_t>(e) * 32 + l] = ti::make_b2_staged<Shape, F>(l, wb, e % chunks);
            }
        }
    for (int w = 0; w < ti::staged_warps; ++w) {
        const int ox0 = ti::staged_cols * bx + 16 * w;
        if (ox0 >= wo) break;
        const ti::texel_window win = ti::warp_window<F>(ox0, wo, sx);
        std::vector<std::array<tcore::frag_a<Shape>, 32>> a1(static_cast<std::size_t>(win.k_blocks));
        for (int kb = 0; kb < win.k_blocks; ++kb)
            for (int l = 0; l < 32; ++l) {
                const int g = l >> 2;
                const ti::half_weights wx[2] = {ti::make_half_weights<F>(ti::locate<float>(ox0 + g, sx)),
                                                ti::make_half_weights<F>(ti::locate<float>(ox0 + g + 8, sx))};
                a1[static_cast<std::size_t>(kb)][static_cast<std::size_t>(l)] =
                    ti::make_a1<Shape, F>(l, wx, win.xs + 16 * kb);
            }
        for (int nb = 0; nb < plan.block_rows / 2 && oy0 + 2 * nb < ho; ++nb) {
            static tcore::frag_c<Shape> d2[32];
            for (auto& f : d2) tcore::fill(f, 0.0f);
            for (int ch = 0; ch < chunks; ++ch) {
                // q: this row block's B2; s0: the first staged row of the chunk (contiguous:
                // from the offset of the group's first output row, shared by its row blocks).
                const int q = nb * chunks + ch;
                const int oyg = oy0 + 2 * (nb - nb % plan.group_blocks);
                const int s0 = plan.contiguous ? ti::locate<float>(oyg, sy).i0 - ti::locate<float>(oy0, sy).i0 + 4 * ch : 4 * q;
                static tcore::frag_c<Shape> d1[2][32];
                for (auto& blk : d1)
                    for (auto& f : blk) tcore::fill(f, 0.0f);
                for (int kb = 0; kb < win.k_blocks; ++kb) {
                    tcore::frag_a<Shape> a[32];
                    for (int l = 0; l < 32; ++l) a[l] = a1[static_cast<std::size_t>(kb)][static_cast<std::size_t>(l)];
                    for (int n1 = 0; n1 < 2; ++n1) {
                        static tcore::frag_b<Shape> b1[32];
                        for (int l = 0; l < 32; ++l) {
                            // The device's address: slot s0 + 2 n1 + (g >> 2), word of channel g & 3
                            // in the group of texels 4t .. 4t + 3 of k block kb; byte j = texel 4t + j.
                            const int g = l >> 2, t = l & 3;
                            const std::size_t byte = static_cast<std::size_t>(s0 + 2 * n1 + (g >> 2)) * 4 * plan.row_texels +
                                                     4 * (win.xs - xw0 + 4 * t) + 4 * (g & 3) + 64 * kb;
                            if (s0 + 2 * n1 + (g >> 2) >= plan.slots()) throw std::logic_error("staged slot past the plan");
                            const unsigned w = stage[byte / 4];
                            for (int j = 0; j < Shape::b_count; ++j)
                                b1[l].x[j] = tcore::convert_to<typename Shape::b_type>(static_cast<double>((w >> (8 * j)) & 0xff));
                        }
                        warp_mma(d1[n1], a, b1);
                    }
                }
                static tcore::frag_a<Shape> a2[32];
                static tcore::frag_b<Shape> bq[32];
                for (int l = 0; l < 32; ++l) {
                    for (int i = 0; i < Shape::a_count; ++i) {
                        const tcore::reuse_home src = T::a2_source(l, i);
                        a2[l].x[i] = tcore::convert_to<typename Shape::a_type>(d1[src.acc][src.lane].x[src.index]);
                    }
                    bq[l] = b2[static_cast<std::size_t>(q) * 32 + l];
                }
                warp_mma(d2, a2, bq);
            }
            for (int l = 0; l < 32; ++l)
                for (int i = 0; i < Shape::c_count; ++i) {
                    const auto e = T::d2(l, i, 0);
                    const int ox = ox0 + e.col, oy = oy0 + 2 * nb + e.row;
                    if (ox < wo && oy < ho && e.c < in.channels)
                        out[(static_cast<std::size_t>(oy) * wo + ox) * in.channels + e.c] = static_cast<double>(d2[l].x[i]);
                }
        }
    }
}

template <class Shape, filter F>
void check_staged_model(tally& t, const ex::image& in, int wo, int ho, const char* what, int max_rows = 8,
                        int max_group = 4)
{
    std::vector<double> ref, got(static_cast<std::size_t>(wo) * ho * in.channels, -1e9);
    ex::reference<F>(in, wo, ho, ref, 1);
    // A small budget and few blocks wanted: several row blocks per block, several blocks.
    const ti::staged_plan plan = ti::plan_staged<F>(in.width, wo, in.height, ho, 64 * 1024, max_rows, 1, max_group);
    t.check(plan.usable, "staged %s %s: no plan", ti::filter_name(F), what);
    if (!plan.usable) return;
    const int bxs = (wo + ti::staged_cols - 1) / ti::staged_cols, bys = (ho + plan.block_rows - 1) / plan.block_rows;
    const int blocks[][2] = {{0, 0}, {bxs - 1, bys - 1}, {bxs / 2, bys / 2}, {bxs - 1, 0}};
    double max_err = 0;
    long long checked = 0;
    for (const auto& b : blocks) {
        model_staged_block<Shape, F>(in, wo, ho, plan, b[0], b[1], got);
        for (int oy = b[1] * plan.block_rows; oy < std::min(ho, (b[1] + 1) * plan.block_rows); ++oy)
            for (int ox = b[0] * ti::staged_cols; ox < std::min(wo, (b[0] + 1) * ti::staged_cols); ++ox)
                for (int c = 0; c < in.channels; ++c) {
                    const std::size_t k = (static_cast<std::size_t>(oy) * wo + ox) * in.channels + c;
                    max_err = tcore::test::worst_of(max_err, std::fabs(got[k] - ref[k]));
                    ++checked;
                }
    }
    t.check(max_err <= 0.75 && checked > 0,
            "staged model %s %s %s (%d rows per block, %d row blocks per group): max error %g (tolerance 0.75, %lld values)",
            Shape::name(), ti::filter_name(F), what, plan.block_rows, plan.group_blocks, max_err, checked);
}

/// An image of uniformly random levels 1..255 (no zeros, no structure: a
/// texel or channel taken from the wrong place shows).
ex::image random_image(rng& r, int width, int height, int channels)
{
    ex::image im = ex::make_image(width, height, channels);
    for (unsigned char& v : im.data) v = static_cast<unsigned char>(1 + r.bits32() % 255);
    return im;
}

/// True if f throws tcore::error whose message starts with `where`.
template <class Fn>
bool throws_from(const char* where, Fn f)
{
    try {
        f();
    } catch (const tcore::error& e) {
        return std::string(e.what()).rfind(where, 0) == 0;
    }
    return false;
}

template <filter F>
void check_staged_models(tally& t, rng& r)
{
    struct sizes {
        int wi, hi, wo, ho, channels;
    };
    const sizes cases[] = {{37, 29, 150, 90, 4}, {64, 64, 96, 80, 3}, {160, 120, 40, 29, 4},
                           {50, 40, 50, 40, 4},  {33, 70, 61, 17, 3}, {300, 200, 70, 45, 4}};
    for (const sizes& s : cases) {
        const ex::image im = s.channels == 4 ? ex::alpha_image(s.wi, s.hi) : ex::smooth_field(s.wi, s.hi, 3);
        char what[64];
        std::snprintf(what, sizeof what, "%dx%dx%d->%dx%d", s.wi, s.hi, s.channels, s.wo, s.ho);
        check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, im, s.wo, s.ho, what);
        // Several groups per block, contiguous rows without groups, and gathered rows only.
        check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, im, s.wo, s.ho, what, 16, 4);
        check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, im, s.wo, s.ho, what, 16, 1);
        check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, im, s.wo, s.ho, what, 8, 0);
    }
    const ex::image chk = ex::checkerboard(40, 40, 4, 3);
    check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, chk, 120, 100, "checker 40->120x100");
    // 4x and 2x up (groups of 4 and 2 row blocks), RGB and RGBA.
    check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, chk, 160, 160, "checker 40->160", 32, 4);
    const ex::image rgb = ex::smooth_field(48, 27, 3);
    check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, rgb, 96, 54, "smooth 48x27x3->96x54", 32, 4);
    // Random images (levels 1..255): ~2x up, 1.5x down RGB, ~4x down; each
    // with groups, contiguous rows without groups and gathered rows.
    const sizes random_cases[] = {{71, 53, 150, 110, 4}, {123, 77, 82, 51, 3}, {250, 190, 61, 45, 4}};
    for (const sizes& s : random_cases) {
        const ex::image im = random_image(r, s.wi, s.hi, s.channels);
        char what[64];
        std::snprintf(what, sizeof what, "random %dx%dx%d->%dx%d", s.wi, s.hi, s.channels, s.wo, s.ho);
        check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, im, s.wo, s.ho, what, 16, 4);
        check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, im, s.wo, s.ho, what, 16, 1);
        check_staged_model<tcore::f16_m16n8k16_f32acc, F>(t, im, s.wo, s.ho, what, 8, 0);
    }
}

/// One warp of resample_gather_warp, lane by lane: A1 from gather_a1_word
/// (registers 0 and 3), B1 from the lane's RGBA words (byte c of the word at
/// the k slot gather_slot_of names), B2 from make_b2_gather, A2 through the
/// reuse sources, the store through gather_pairs / gather_join and a
/// simulated exchange with lane ^ 16 at gather_pixel_of.
template <class Shape, filter F>
void model_gather_warp(const ex::image& in, int wo, int ho, const ti::gather_plan& plan, int ox0, int oy_first,
                       std::vector<double>& out, long long& bad_maps)
{
    constexpr int taps = ti::taps<F>;
    const int nk1 = plan.k_blocks;
    const float sx = static_cast<float>(static_cast<double>(in.width) / wo);
    const float sy = static_cast<float>(static_cast<double>(in.height) / ho);
    const int x0 = ti::gather_x0<F>(ox0, sx, plan.vec);
    std::vector<std::array<tcore::frag_a<Shape>, 32>> a1(static_cast<std::size_t>(nk1));
    for (int kb = 0; kb < nk1; ++kb)
        for (int l = 0; l < 32; ++l) {
            const int g = l >> 2;
            const ti::half_weights wc = ti::make_half_weights<F>(ti::locate<float>(std::min(ox0 + (g & 3), wo - 1), sx));
            const unsigned w = ti::gather_a1_word(l, wc, x0, nk1, kb);
            tcore::frag_a<Shape>& a = a1[static_cast<std::size_t>(kb)][static_cast<std::size_t>(l)];
            ti::set_half_reg(a, 0, w), ti::set_half_reg(a, 1, 0u), ti::set_half_reg(a, 2, 0u), ti::set_half_reg(a, 3, w);
            // The definition: A(m, s) = w_{m & 3}(texel of s) if channel m >> 2 is s's channel, else 0.
            for (int i = 0; i < Shape::a_count; ++i) {
                const tcore::coord rc = Shape::a_coord(l, i);
                const ti::gather_slot sl = ti::gather_slot_of(rc.col);
                const ti::half_weights wm = ti::make_half_weights<F>(ti::locate<float>(std::min(ox0 + (rc.row & 3), wo - 1), sx));
                const unsigned want = (rc.row >> 2) == sl.c ? ti::half_single(wm, x0 + nk1 * sl.t + kb) : 0u;
                bad_maps += __half_as_ushort(a.x[i]) != want;
            }
        }
    // FP32 accumulation: texels as 1024 + b, D1 starting at -1024 S (S: the
    // column's FP16 weights summed), as the device does.
    constexpr bool offset = std::is_same_v<typename Shape::c_type, float>;
    float d1_init[32];
    for (int l = 0; l < 32; ++l) {
        float w[taps];
        ti::weights<F>(ti::locate<float>(std::min(ox0 + ((l >> 2) & 3), wo - 1), sx).a, w);
        d1_init[l] = 0.0f;
        for (int j = 0; j < taps; ++j) d1_init[l] -= offset ? 1024.0f * __half2float(__float2half_rn(w[j])) : 0.0f;
    }
    for (int oy0 = oy_first; oy0 < std::min(ho, oy_first + ti::gather_rows * plan.tiles); oy0 += ti::gather_rows) {
        static tcore::frag_c<Shape> d2[32];
        for (auto& f : d2) tcore::fill(f, 0.0f);
        for (int q = 0; q < taps / 2; ++q) {
            static tcore::frag_c<Shape> d1[2][32];
            for (int h = 0; h < 2; ++h) {
                for (int l = 0; l < 32; ++l) tcore::fill(d1[h][l], d1_init[l]);
                const int nt = 2 * q + h;
                for (int kb = 0; kb < nk1; ++kb) {
                    static tcore::frag_b<Shape> b1[32];
                    tcore::frag_a<Shape> a[32];
                    for (int l = 0; l < 32; ++l) {
                        const int g = l >> 2, t = l & 3, label = 8 * nt + g;
                        const int oy = std::min(oy0 + label / taps, ho - 1);
                        const int y = ti::clamp_index(ti::locate<float>(oy, sy).i0 + ti::first_tap<F> + label % taps, in.height);
                        const int x = ti::clamp_index(x0 + nk1 * t + kb, in.width);
                        for (int j = 0; j < Shape::b_count; ++j) {
                            const ti::gather_slot sl = ti::gather_slot_of(Shape::b_coord(l, j).row);
                            bad_maps += sl.t != t || sl.c != j;  // planar_to_half2: bytes 0, 1 then 2, 3
                            b1[l].x[j] = tcore::convert_to<typename Shape::b_type>((offset ? 1024.0 : 0.0) +
                                                                                   static_cast<double>(in.at(x, y, sl.c)));
                        }
                        a[l] = a1[static_cast<std::size_t>(kb)][static_cast<std::size_t>(l)];
                    }
                    warp_mma(d1[h], a, b1);
                }
            }
            static tcore::frag_a<Shape> a2[32];
            static tcore::frag_b<Shape> b2[32];
            for (int l = 0; l < 32; ++l) {
                for (int i = 0; i < Shape::a_count; ++i) {
                    const tcore::reuse_home src = ti::tile<Shape>::a2_source(l, i);
                    a2[l].x[i] = tcore::convert_to<typename Shape::a_type>(d1[src.acc][src.lane].x[src.index]);
                }
                unsigned wb[taps];
                ti::weight_bits<F>(std::min(oy0 + (l >> 2), ho - 1), sy, wb);
                b2[l] = ti::make_b2_gather<Shape, F>(l, wb, q);
            }
            warp_mma(d2, a2, b2);
        }
        // Stores: levels as the device rounds them, pairs exchanged with lane ^ 16.
        unsigned keep[32], send[32];
        for (int l = 0; l < 32; ++l) {
            unsigned qv[4];
            for (int i = 0; i < 4; ++i) {
                qv[i] = ti::u8_low_byte(static_cast<float>(d2[l].x[i]));
                const auto e = ti::gather_d2(l, i);  // the D2 element's pixel must be the one its byte lands in
                const tcore::coord px = ti::gather_pixel_of((i & 1) == ((l >> 4) & 1) ? l : l ^ 16);
                bad_maps += px.col != e.col || px.row != e.row;
            }
            const ti::gather_pair pr = ti::gather_pairs(qv, (l >> 4) & 1);
            keep[l] = pr.keep, send[l] = pr.send;
        }
        for (int l = 0; l < 32; ++l) {
            const unsigned word = ti::gather_join(keep[l], send[l ^ 16], (l >> 4) & 1);
            const tcore::coord px = ti::gather_pixel_of(l);
            const int ox = ox0 + px.col, oy = oy0 + px.row;
            if (ox < wo && oy < ho)
                for (int c = 0; c < in.channels; ++c)
                    out[(static_cast<std::size_t>(oy) * wo + ox) * in.channels + c] = static_cast<double>((word >> (8 * c)) & 0xff);
        }
    }
}

/// Checks a few warps of the gather path's model against the reference;
/// returns the plan's window (k blocks), 0 without a plan.
template <class Shape, filter F>
int check_gather_model(tally& t, const ex::image& in, int wo, int ho, const char* what, int tiles = 2)
{
    std::vector<double> ref, got(static_cast<std::size_t>(wo) * ho * in.channels, -1e9);
    ex::reference<F>(in, wo, ho, ref, 1);
    const std::vector<double> ref8 = ex::rounded_u8(ref);
    const ti::gather_plan plan = ti::plan_gather<F>(in.width, in.height, wo, ho, tiles);
    if (!plan.usable) std::printf("gather %s %s: no plan\n", ti::filter_name(F), what);
    t.check(plan.usable, "gather %s %s: no plan", ti::filter_name(F), what);
    if (!plan.usable) return 0;
    const int rows = ti::gather_rows * tiles;
    const int last_x = (wo - 1) / ti::gather_cols * ti::gather_cols, last_y = (ho - 1) / rows * rows;
    const int warps[][2] = {{0, 0}, {last_x, last_y}, {last_x / 8 * 4, last_y / 2 / rows * rows}, {last_x, 0}, {0, last_y}};
    long long bad_maps = 0, checked = 0;
    int max_diff = 0;
    for (const auto& w : warps) {
        model_gather_warp<Shape, F>(in, wo, ho, plan, w[0], w[1], got, bad_maps);
        for (int oy = w[1]; oy < std::min(ho, w[1] + rows); ++oy)
            for (int ox = w[0]; ox < std::min(wo, w[0] + ti::gather_cols); ++ox)
                for (int c = 0; c < in.channels; ++c) {
                    const std::size_t k = (static_cast<std::size_t>(oy) * wo + ox) * in.channels + c;
                    const double diff = std::fabs(got[k] - ref8[k]);  // a NaN counts as the largest difference
                    max_diff = std::isnan(diff) ? 1 << 30 : std::max(max_diff, static_cast<int>(std::fmin(diff, 1 << 30)));
                    ++checked;
                }
    }
    // As tests/gpu: 1 level, 2 for bicubic with FP16 accumulation.
    const int bound = std::is_same_v<typename Shape::c_type, __half> && F == filter::bicubic ? 2 : 1;
    t.check(max_diff <= bound && checked > 0 && bad_maps == 0,
            "gather model %s %s %s (nk1 %d, vec %d): max %d level(s) off (bound %d, %lld values), %lld map errors",
            Shape::name(), ti::filter_name(F), what, plan.k_blocks, plan.vec, max_diff, bound, checked, bad_maps);
    return plan.k_blocks;
}

template <filter F>
void check_gather_models(tally& t, rng& r)
{
    struct sizes {
        int wi, hi, wo, ho;
    };
    // 4x, 1.6x, 3.4x, 1.5x, 8.3x and 4.3x down, odd sizes; windows of 2, 4
    // and 8 k blocks (bilinear), 4, 6 and 8 (bicubic).
    const sizes cases[] = {{160, 120, 40, 30}, {160, 96, 100, 60}, {301, 203, 88, 59},
                           {90, 75, 60, 50},   {257, 64, 31, 9},    {300, 214, 70, 50}};
    std::set<int> windows;
    for (const sizes& s : cases) {
        const ex::image im = ex::alpha_image(s.wi, s.hi);
        char what[64];
        std::snprintf(what, sizeof what, "%dx%d->%dx%d", s.wi, s.hi, s.wo, s.ho);
        windows.insert(check_gather_model<tcore::f16_m16n8k16_f32acc, F>(t, im, s.wo, s.ho, what));
        check_gather_model<tcore::f16_m16n8k16_f16acc, F>(t, im, s.wo, s.ho, what, 3);
    }
    t.check(windows.count(4) && windows.count(8) && (F == filter::bicubic ? windows.count(6) : windows.count(2)),
            "gather %s: the fixed cases miss a window size (2: %d, 4: %d, 6: %d, 8: %d)", ti::filter_name(F),
            static_cast<int>(windows.count(2)), static_cast<int>(windows.count(4)), static_cast<int>(windows.count(6)),
            static_cast<int>(windows.count(8)));
    const ex::image chk = ex::checkerboard(64, 64, 4, 3);
    check_gather_model<tcore::f16_m16n8k16_f32acc, F>(t, chk, 16, 16, "checker 64->16", 1);
    // Random images at random sizes over the scales resample_mma sends to the
    // gather path (bilinear from 1.5x, bicubic from 3x; up to where a window
    // of 8 k blocks still holds 4 columns' taps), both accumulators, 1 to 5
    // tiles per warp.
    const double lo = F == filter::bilinear ? 1.5 : 3.0, hi = F == filter::bilinear ? 7.5 : 6.5;
    for (int it = 0; it < 16; ++it) {
        const int wo = static_cast<int>(r.uniform(3, 120)), ho = static_cast<int>(r.uniform(1, 90));
        const int wi = static_cast<int>(std::ceil(wo * r.uniform(lo, hi))), hi_ = static_cast<int>(std::ceil(ho * r.uniform(lo, hi)));
        const ex::image im = random_image(r, wi, hi_, 4);
        char what[64];
        std::snprintf(what, sizeof what, "random %dx%d->%dx%d", wi, hi_, wo, ho);
        const int tiles = 1 + it % 5;
        if (it % 2) check_gather_model<tcore::f16_m16n8k16_f16acc, F>(t, im, wo, ho, what, tiles);
        else check_gather_model<tcore::f16_m16n8k16_f32acc, F>(t, im, wo, ho, what, tiles);
    }
    // Tiles per warp: 1024^2 in one wave of 512 blocks of 8 warps where 528
    // fit (8 tiles) or of 4 warps (16 tiles), a 2-tile column split in 2
    // warps, 2560^2 in 5 waves of 10 tiles (not 7 of 8), and one block at a
    // time: long warps (at most 16 tiles).
    t.check(ti::gather_tiles(1024, 1024, 528, 8) == 8 && ti::gather_tiles(1024, 1024, 528, 4) == 16 &&
                ti::gather_tiles(64, 16, 528, 8) == 1 && ti::gather_tiles(2560, 2560, 528, 8) == 10 &&
                ti::gather_tiles(4000, 4000, 1, 8) >= 12,
            "gather_tiles: %d %d %d %d %d", ti::gather_tiles(1024, 1024, 528, 8), ti::gather_tiles(1024, 1024, 528, 4),
            ti::gather_tiles(64, 16, 528, 8), ti::gather_tiles(2560, 2560, 528, 8), ti::gather_tiles(4000, 4000, 1, 8));
    // A grid taller than 65535 blocks has no plan; two tiles per warp halve it.
    t.check(!ti::plan_gather<F>(256, 2400000, 64, 600000, 1).usable && ti::plan_gather<F>(256, 2400000, 64, 600000, 2).usable,
            "plan_gather: usable with 75000 tile rows in one tile per warp, or not with 2");
    // Streaming loads: bicubic where no texel or row is read twice (whole
    // factors from 4x: disjoint 16- or 32-texel windows), never bilinear.
    const bool bicubic = F == filter::bicubic;
    struct stream_case {
        int wi, hi, wo, ho;
        bool streams;
    };
    const stream_case stream_cases[] = {{4096, 4096, 1024, 1024, bicubic}, {4096, 2048, 1024, 512, bicubic},
                                        {8192, 800, 1024, 100, bicubic},    {4100, 3001, 1023, 749, false},
                                        {3072, 3072, 1024, 1024, false},    {4096, 3072, 1024, 1024, false},
                                        {4096, 4096, 1000, 1024, false}};
    for (const stream_case& c : stream_cases) {
        const ti::gather_plan p = ti::plan_gather<F>(c.wi, c.hi, c.wo, c.ho, 0);
        t.check(p.usable && p.streaming == c.streams, "plan_gather %s %dx%d -> %dx%d: streaming %d (want %d, nk1 %d)",
                ti::filter_name(F), c.wi, c.hi, c.wo, c.ho, p.streaming, c.streams, p.k_blocks);
    }
}

/// Bad arguments to the host planners throw tcore::error naming them.
template <filter F>
void check_plan_arguments(tally& t)
{
    t.check(throws_from("plan_gather", [] { ti::plan_gather<F>(0, 64, 16, 16, 0); }), "plan_gather: input width 0 accepted");
    t.check(throws_from("plan_gather", [] { ti::plan_gather<F>(64, 64, 0, 16, 0); }), "plan_gather: output width 0 accepted");
    t.check(throws_from("plan_gather", [] { ti::plan_gather<F>(64, 0, 16, 16, 0); }), "plan_gather: input height 0 accepted");
    t.check(throws_from("plan_gather", [] { ti::plan_gather<F>(64, 64, 16, -1, 0); }), "plan_gather: negative height accepted");
    t.check(throws_from("plan_gather", [] { ti::plan_gather<F>(64, 64, 16, 16, -2); }), "plan_gather: negative tiles accepted");
    t.check(throws_from("plan_staged", [] { ti::plan_staged<F>(64, 0, 64, 16, 30 * 1024); }),
            "plan_staged: output width 0 accepted");
    t.check(throws_from("plan_staged", [] { ti::plan_staged<F>(64, 16, 0, 16, 30 * 1024); }),
            "plan_staged: input height 0 accepted");
    t.check(throws_from("gather_tiles", [] { ti::gather_tiles(0, 64, 528, 8); }), "gather_tiles: width 0 accepted");
    t.check(throws_from("gather_tiles", [] { ti::gather_tiles(64, 64, 528, 0); }), "gather_tiles: 0 warps per block accepted");
    // Good arguments do not throw.
    t.check(!throws_from("plan_gather", [] { ti::plan_gather<F>(64, 64, 16, 16, 0); }) &&
                !throws_from("plan_staged", [] { ti::plan_staged<F>(64, 16, 64, 16, 30 * 1024); }),
            "%s planners throw on good arguments", ti::filter_name(F));
}

/// Contiguous rows: for random sizes and scales, the group size
/// shared_row_blocks picks and the plan's stage_rows stage, for every output
/// row, each of its taps (the row the texture unit reads, clamped) at the
/// slot its B2 weights it (the group's offset i0(oyg) - i0(oy0) plus
/// first_slot = i0(oy) - i0(oyg), plus the tap), inside the group's 2 taps
/// rows and the block's stage_rows; up-scales by 2x or more get groups, and
/// down-scales by less than taps - 0.1 contiguous rows.
template <filter F>
void check_shared_rows(tally& t, rng& r)
{
    constexpr int taps = ti::taps<F>;
    long long bad = 0, grouped = 0, contiguous = 0, cases = 0, missing = 0;
    for (int it = 0; it < 1500; ++it) {
        const int hi = 1 + static_cast<int>(r.uniform(0, 2400)), ho = 1 + static_cast<int>(r.uniform(0, 2400));
        const float sy = static_cast<float>(static_cast<double>(hi) / ho);
        const int max_rows = 8 * (1 + it % 4);
        const ti::staged_plan plan = ti::plan_staged<F>(64, 64, hi, ho, std::size_t(1) << 30, max_rows, 1, 4);
        ++cases;
        const int G = plan.group_blocks;
        if (sy <= 0.5f && ho >= 4 && G < 2) ++missing;
        if (sy < taps - 0.1f && !plan.contiguous) ++missing;
        if (!plan.contiguous) continue;
        ++contiguous;
        grouped += G > 1;
        for (int oy = 0; oy < ho; ++oy) {
            const int oy0 = oy - oy % plan.block_rows, oyg = ti::group_first_row(oy, G, ho);
            const int first_slot = ti::locate<float>(oy, sy).i0 - ti::locate<float>(oyg, sy).i0;
            const int group_base = ti::locate<float>(oyg, sy).i0 - ti::locate<float>(oy0, sy).i0;
            const int oyl = ti::last_group_row(oy0, plan.block_rows, G, ho);
            const int block_slots = ti::locate<float>(oyl, sy).i0 - ti::locate<float>(oy0, sy).i0 + 2 * taps;
            bad += group_base + 2 * taps > block_slots || block_slots > plan.stage_rows;
            for (int j = 0; j < taps; ++j) {
                const int want = ti::clamp_index(ti::locate<float>(oy, sy).i0 + ti::first_tap<F> + j, hi);
                const int slot = first_slot + j;
                bad += slot < 0 || slot >= 2 * taps ||
                       ti::staged_row<F>(group_base + slot, oy0, ho, hi, sy, true) != want;
            }
        }
    }
    t.check(bad == 0 && missing == 0 && grouped > 0,
            "%s contiguous rows: %lld taps off their slot, %lld of %lld scales contiguous (%lld grouped), %lld without "
            "the rows they should get",
            ti::filter_name(F), bad, contiguous, cases, grouped, missing);
}

}  // namespace

int main()
{
    tally t;
    rng r(tcore::test::seed());
    check_generators(t, r);
    check_geometry(t);
    check_maps<tcore::f16_m16n8k16_f32acc>(t);
    check_maps<tcore::f64_m16n8k16>(t);
    check_half_weights<filter::bilinear>(t, r);
    check_half_weights<filter::bicubic>(t, r);
    check_models<filter::bilinear>(t);
    check_models<filter::bicubic>(t);
    check_store_maps(t, r);
    check_staged_windows<filter::bilinear>(t, r);
    check_staged_windows<filter::bicubic>(t, r);
    check_staged_models<filter::bilinear>(t, r);
    check_staged_models<filter::bicubic>(t, r);
    check_shared_rows<filter::bilinear>(t, r);
    check_shared_rows<filter::bicubic>(t, r);
    check_gather_models<filter::bilinear>(t, r);
    check_gather_models<filter::bicubic>(t, r);
    check_plan_arguments<filter::bilinear>(t);
    check_plan_arguments<filter::bicubic>(t);
    return t.finish();
}
