// libs: tcore_kernels_interp
// tests/gpu/test_interp.cu - the interp launchers (tcore/patterns/device/
// interp.cuh: tc on every Shape, cc on f16 m16n8k16 with FP32 accumulation
// and on f64 m16n8k16; the launchers come compiled from the benchmark's
// tcore_kernels_interp, examples/interp/interp_kernels.hpp; the cuda_core
// MMA with FP16 accumulation is tests/gpu/test_frag_mma.cu's) and the
// workload's opponents
// (examples/interp/interp_opponents.cuh: cce, base) against the FP64 CPU
// reference (examples/interp/interp_host.hpp), and a user's kernel built
// from the warp-level building blocks (make_weights, make_a1, load_b1,
// reuse_a, make_b2, store_d2) on both backends.
//
// Bounds, in 8-bit levels against the reference rounded the same way:
//   FP64 (tc-f64, cc-f64, cce-f64): rounding only, derived per case in
//     f64_bound (positions, weights, two chained sums): about 1e-12 for
//     small images, 1e-9 at 4096 texels.
//   FP16, FP32 accumulation (tc, cc) and cce (FP32): at most 1 level. Before
//     rounding the error is below ~0.5 of a level: weights rounded to FP16
//     (2^-11 relative, times sum |w| <= 1.25 per axis and 255), D1 rounded
//     to FP16 for the second MMA (ulp 0.25 at 256..512, times sum |w|).
//   FP16 accumulation (tc-f16acc): PTX only promises half-precision sums;
//     with up to 4 non-zero terms per sum each rounding to FP16 can add 1/8
//     to 1/4 of a level at these magnitudes: 1 level for bilinear, 2 for
//     bicubic (values overshoot to ~320).
//   base (tex2D): the texture unit filters with 8-bit fixed-point weights
//     (fraction quantized to 1/256), up to 255/256 of a level per axis on a
//     full-range edge, plus rounding: at most 3 levels from the exact
//     reference. The fraction of pixels off by one or more is printed,
//     also against a model with the fraction rounded to 1/256.
//   base-pitch (tex2D on a pitch-linear texture, in place or over an aligned
//     RGBA copy): the same filter, the same 3-level bound; run into two
//     poisons like the 8-bit variants. Each layout's input, and for RGBA
//     once more with rows 512 bytes apart (in place where the allocation
//     meets the device's textureAlignment); the largest difference from
//     base is printed.
// Every run writes into a poisoned buffer whose row padding must stay
// untouched; RGBA inputs with 16-byte rows take the vector paths (and,
// down-scaling by 1.5x bilinear / 3x bicubic or more, the gather path),
// odd pitches and RGB the element paths. Bad arguments throw tcore::error.
//
// The user's kernel (user_tile_kernel, FP64 f64_m16n8k16, FP64 output): the
// same sums as the reference in another order, with weights that are the
// reference's bit for bit, so |got - ref| <= 1e-11 (about 2^-52 relative
// per multiply-add, times at most 16 terms of magnitude <= 1.25 * 255 per
// axis, is below 1e-11). Its output is poisoned with NaN (0xFF bytes)
// before the run, and sizes are not multiples of the 16 x 8 tile.
//
// Images: random bytes (every channel, alpha included), the fixed patterns
// (checkerboard edges, a smooth field, varying alpha), one pixel and one
// row. Planted faults (tests/gpu/plant.sh): perturb (an 8-bit value 2
// levels off), unwritten (the second-poison run left out), nan_result (an
// FP64 value NaN).
#include "common/test_util.hpp"

#include "examples/interp/interp_host.hpp"
#include "examples/interp/interp_kernels.hpp"
#include "examples/interp/interp_opponents.cuh"

#include <tcore/patterns/interp.cuh>
#include <tcore/tcore.cuh>

#include <cmath>
#include <cstdio>
#include <limits>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using tcore::test::tally;
namespace ex = tcore::examples::interp;
namespace ti = tcore::interp;
using ti::filter;

namespace {

const bool quick = tcore::test::quick();

struct test_case {
    const char* image;  // checker, smooth, alpha
    int wi, hi, channels, wo, ho;
};

ex::image make(const test_case& c)
{
    if (std::strcmp(c.image, "checker") == 0) return ex::checkerboard(c.wi, c.hi, c.channels, 4);
    if (std::strcmp(c.image, "smooth") == 0) return ex::smooth_field(c.wi, c.hi, c.channels);
    if (std::strcmp(c.image, "random") == 0) {
        // every byte uniform in 0..255 (alpha included), from the test seed and the sizes
        ex::image im = ex::make_image(c.wi, c.hi, c.channels);
        tcore::test::rng r(tcore::test::seed() + 131ull * static_cast<unsigned>(c.wi) + static_cast<unsigned>(c.hi));
        for (unsigned char& b : im.data) b = static_cast<unsigned char>(r.next() >> 56);
        return im;
    }
    return ex::alpha_image(c.wi, c.hi);
}

/// The FP64 bound (tc-f64, cc-f64, cce-f64) for one case, from the
/// arithmetic (u = 2^-53, T taps per axis, W = sum |w| per axis: 1 bilinear,
/// 1.25 bicubic, texel values <= 255):
///   * a sample position (o + 1/2) s - 1/2 may be rounded once more or once
///     less than the reference's (an FMA): |delta| <= u n for an axis of n
///     input texels, and a weight's slope is at most 1.5, so each weight
///     differs by <= 1.5 u n plus its own evaluation, <= 8 u (a cubic with
///     coefficients <= 2.5 at x in [0, 1]);
///   * the two chained sums of T products: gamma_T W^2 each, relative to 255;
///   * the final rounding: u 255 W^2.
/// |got - ref| <= 255 (T W (e_x + e_y) + 2 gamma_T W^2 + u W^2), e = 8u + 1.5 u n.
double f64_bound(filter f, const test_case& c)
{
    const double u = 0x1.0p-53, taps = f == filter::bilinear ? 2 : 4, w = f == filter::bilinear ? 1.0 : 1.25;
    const double e_x = 8 * u + 1.5 * u * c.wi, e_y = 8 * u + 1.5 * u * c.hi;
    return 255 * (taps * w * (e_x + e_y) + 2 * tcore::test::gamma(static_cast<int>(taps), u) * w * w + u * w * w);
}

/// A device copy of `im` with rows `pitch` bytes apart (padding 0x5A).
struct device_image {
    tcore::test::device_buffer<unsigned char> buf;
    ti::image_view view;
    device_image(const ex::image& im, long long pitch)
        : buf(static_cast<std::size_t>(pitch * im.height + 16))
    {
        std::vector<unsigned char> host(buf.count, 0x5A);
        for (int y = 0; y < im.height; ++y)
            std::memcpy(&host[static_cast<std::size_t>(y * pitch)], &im.data[static_cast<std::size_t>(y * im.pitch())],
                        static_cast<std::size_t>(im.pitch()));
        buf.upload(host);
        view = {buf.ptr, im.width, im.height, im.channels, pitch};
    }
};

/// An output buffer (pitch in elements) poisoned with `poison` bytes.
template <class T>
struct device_output {
    tcore::test::device_buffer<T> buf;
    ti::image_out<T> view;
    unsigned char poison;
    device_output(int w, int h, int c, long long pitch, unsigned char p)
        : buf(static_cast<std::size_t>(pitch * h)), poison(p)
    {
        buf.poison(p);
        view = {buf.ptr, w, h, c, pitch};
    }
    /// The packed result; counts touched padding elements in `clobbered`.
    std::vector<T> result(long long& clobbered) const
    {
        const std::vector<T> all = buf.download();
        std::vector<T> packed(static_cast<std::size_t>(view.width) * view.height * view.channels);
        const long long row = static_cast<long long>(view.width) * view.channels;
        T poisoned;
        std::memset(&poisoned, poison, sizeof poisoned);
        clobbered = 0;
        for (int y = 0; y < view.height; ++y) {
            for (long long i = 0; i < row; ++i)
                packed[static_cast<std::size_t>(y * row + i)] = all[static_cast<std::size_t>(y * view.pitch + i)];
            for (long long i = row; i < view.pitch; ++i)
                clobbered += std::memcmp(&all[static_cast<std::size_t>(y * view.pitch + i)], &poisoned, sizeof(T)) != 0;
        }
        return packed;
    }
};

/// Bilinear with the fraction rounded to 1/256 (a model of the texture unit's weights).
std::vector<double> tex_model(const ex::image& in, int wo, int ho)
{
    std::vector<double> out(static_cast<std::size_t>(wo) * ho * in.channels);
    const double sx = static_cast<double>(in.width) / wo, sy = static_cast<double>(in.height) / ho;
    for (int oy = 0; oy < ho; ++oy)
        for (int ox = 0; ox < wo; ++ox) {
            auto qx = ti::locate<double>(ox, sx), qy = ti::locate<double>(oy, sy);
            const double a = std::nearbyint(qx.a * 256) / 256, b = std::nearbyint(qy.a * 256) / 256;
            for (int c = 0; c < in.channels; ++c) {
                auto f = [&](int dx, int dy) {
                    return static_cast<double>(
                        in.at(ti::clamp_index(qx.i0 + dx, in.width), ti::clamp_index(qy.i0 + dy, in.height), c));
                };
                out[(static_cast<std::size_t>(oy) * wo + ox) * in.channels + c] =
                    (1 - b) * ((1 - a) * f(0, 0) + a * f(1, 0)) + b * ((1 - a) * f(0, 1) + a * f(1, 1));
            }
        }
    return out;
}

using u8_launch = std::function<void(const ti::image_view&, const ti::image_out<unsigned char>&)>;
using f64_launch = std::function<void(const ti::image_view&, const ti::image_out<double>&)>;

template <filter F>
void run_case(tally& t, const test_case& tc)
{
    using namespace tcore;
    const ex::image im = make(tc);
    std::vector<double> ref;
    ex::reference<F>(im, tc.wo, tc.ho, ref);
    const std::vector<double> ref8 = ex::rounded_u8(ref);
    char name[128];
    std::snprintf(name, sizeof name, "%s %s %dx%dx%d->%dx%d", ti::filter_name(F), tc.image, tc.wi, tc.hi, tc.channels,
                  tc.wo, tc.ho);

    const int bicubic = F == filter::bicubic;
    struct u8_variant {
        const char* name;
        u8_launch launch;
        int max_levels;
    };
    const std::vector<u8_variant> u8_variants = {
        {"tc", [](auto& i, auto& o) { ti::resample_mma<tensor_core, f16_m16n8k16_f32acc, F>(i, o); }, 1},
        {"tc-f16acc", [](auto& i, auto& o) { ti::resample_mma<tensor_core, f16_m16n8k16_f16acc, F>(i, o); }, 1 + bicubic},
        {"cc", [](auto& i, auto& o) { ti::resample_mma<cuda_core, f16_m16n8k16_f32acc, F>(i, o); }, 1},
        {"cce", [](auto& i, auto& o) { ex::resample_cce<F, float>(i, o); }, 1},
    };
    struct f64_variant {
        const char* name;
        f64_launch launch;
    };
    const std::vector<f64_variant> f64_variants = {
        {"tc-f64", [](auto& i, auto& o) { ti::resample_mma<tensor_core, f64_m16n8k16, F>(i, o); }},
        {"cc-f64", [](auto& i, auto& o) { ti::resample_mma<cuda_core, f64_m16n8k16, F>(i, o); }},
        {"cce-f64", [](auto& i, auto& o) { ex::resample_cce<F, double>(i, o); }},
    };

    // Two input/output layouts: 16-byte rows (vector paths for RGBA) and odd pitches.
    const long long row_in = static_cast<long long>(tc.wi) * tc.channels;
    const long long row_out = static_cast<long long>(tc.wo) * tc.channels;
    const long long layouts[2][2] = {{(row_in + 15) / 16 * 16, row_out + 4}, {row_in + 1, row_out + 1}};
    std::vector<unsigned char> tc_result;
    for (int layout = 0; layout < 2; ++layout) {
        const device_image din(im, layouts[layout][0]);
        for (const u8_variant& v : u8_variants) {
            // Every 8-bit value is legal, so no poison marks an unwritten one:
            // the variant runs twice, into buffers poisoned 0xAB and 0x54 (each
            // bit flipped), and both results must agree value by value.
            device_output<unsigned char> dout(tc.wo, tc.ho, tc.channels, layouts[layout][1], 0xAB);
            device_output<unsigned char> dout2(tc.wo, tc.ho, tc.channels, layouts[layout][1], 0x54);
            v.launch(din.view, dout.view);
            if (!tcore::test::planted("unwritten")) v.launch(din.view, dout2.view);
            TCORE_CHECK(cudaDeviceSynchronize());
            long long clobbered = 0, clobbered2 = 0;
            std::vector<unsigned char> got = dout.result(clobbered);
            const std::vector<unsigned char> got2 = dout2.result(clobbered2);
            if (tcore::test::planted("perturb")) got[got.size() / 2] = static_cast<unsigned char>(ref8[got.size() / 2] + 2 > 255 ? ref8[got.size() / 2] - 2 : ref8[got.size() / 2] + 2);
            long long unwritten = 0;
            for (std::size_t i = 0; i < got.size(); ++i) unwritten += got[i] != got2[i];
            t.check(unwritten == 0 && clobbered2 == 0, "%s %s layout %d: %lld values differ between two poisons (unwritten)",
                    name, v.name, layout, unwritten);
            const ex::level_stats s = ex::compare_levels(ref8, got);
            t.check(s.max_diff <= v.max_levels, "%s %s layout %d: max %d levels off (bound %d), %.4f%% off", name,
                    v.name, layout, s.max_diff, v.max_levels, 100 * s.fraction_off());
            t.check(clobbered == 0, "%s %s layout %d: %lld padding bytes written", name, v.name, layout, clobbered);
            if (layout == 0)
                std::printf("  %-44s %-10s max %d level(s) off, %.4f%% of values off by one, %.4f%% by more\n", name,
                            v.name, s.max_diff, 100.0 * s.off_by_one / s.count, 100.0 * s.off_more / s.count);
            if (layout == 0 && std::strcmp(v.name, "tc") == 0) tc_result = got;
        }
        for (const f64_variant& v : f64_variants) {
            device_output<double> dout(tc.wo, tc.ho, tc.channels, layouts[layout][1], 0xFF);
            v.launch(din.view, dout.view);
            TCORE_CHECK(cudaDeviceSynchronize());
            long long clobbered = 0;
            std::vector<double> got = dout.result(clobbered);
            if (tcore::test::planted("nan_result")) got[got.size() / 2] = std::numeric_limits<double>::quiet_NaN();
            const double bound = f64_bound(F, tc);
            double max_err = 0;
            long long bad = 0;
            for (std::size_t i = 0; i < got.size(); ++i) {
                if (!tcore::test::close(got[i], ref[i], bound)) ++bad;
                max_err = tcore::test::worst_of(max_err, std::fabs(got[i] - ref[i]));
            }
            t.check(bad == 0, "%s %s layout %d: %lld of %zu values off by more than %.3g (max %g)", name, v.name,
                    layout, bad, got.size(), bound, max_err);
            t.check(clobbered == 0, "%s %s layout %d: %lld padding values written", name, v.name, layout, clobbered);
            if (layout == 0) std::printf("  %-44s %-10s max abs error %.3g (bound %.3g)\n", name, v.name, max_err, bound);
        }
        if constexpr (F == filter::bilinear) {
            // base: tex2D from an RGBA8 array (expanded from RGB where needed).
            const ex::texture_image tex(im.data.data(), im.width, im.height, im.channels, im.pitch());
            device_output<unsigned char> dout(tc.wo, tc.ho, tc.channels, layouts[layout][1], 0xAB);
            ex::resample_tex(tex, dout.view);
            TCORE_CHECK(cudaDeviceSynchronize());
            long long clobbered = 0;
            const std::vector<unsigned char> got = dout.result(clobbered);
            const ex::level_stats s = ex::compare_levels(ref8, got);
            t.check(s.max_diff <= 3, "%s base (tex2D) layout %d: max %d levels off (bound 3)", name, layout, s.max_diff);
            t.check(clobbered == 0, "%s base layout %d: %lld padding bytes written", name, layout, clobbered);
            if (layout == 0) {
                const ex::level_stats m = ex::compare_levels(ex::rounded_u8(tex_model(im, tc.wo, tc.ho)), got);
                std::printf("  %-44s %-10s max %d level(s) off, %.4f%% off by one, %.4f%% by more; against 1/256 "
                            "weights: max %d, %.4f%% off\n",
                            name, "base", s.max_diff, 100.0 * s.off_by_one / s.count, 100.0 * s.off_more / s.count,
                            m.max_diff, 100 * m.fraction_off());
                if (!tc_result.empty()) {
                    int d = 0;
                    for (std::size_t i = 0; i < got.size(); ++i) d = std::max(d, std::abs(got[i] - tc_result[i]));
                    t.check(d <= 3, "%s: tc and tex2D differ by %d levels (bound 3)", name, d);
                    std::printf("  %-44s tc vs tex2D: max %d level(s)\n", name, d);
                }
            }
            // base-pitch: over this layout's input and, for RGBA, over rows 512 bytes apart.
            auto check_pitch = [&](const ti::image_view& view, const char* src) {
                const ex::pitch_texture_image ptex(view);
                device_output<unsigned char> p1(tc.wo, tc.ho, tc.channels, layouts[layout][1], 0xAB);
                device_output<unsigned char> p2(tc.wo, tc.ho, tc.channels, layouts[layout][1], 0x54);
                ex::resample_tex(ptex, p1.view);
                ex::resample_tex(ptex, p2.view);
                TCORE_CHECK(cudaDeviceSynchronize());
                long long c1 = 0, c2 = 0, unwritten = 0;
                const std::vector<unsigned char> g1 = p1.result(c1), g2 = p2.result(c2);
                int from_base = 0;
                for (std::size_t i = 0; i < g1.size(); ++i) {
                    unwritten += g1[i] != g2[i];
                    from_base = std::max(from_base, std::abs(g1[i] - got[i]));
                }
                const ex::level_stats ps = ex::compare_levels(ref8, g1);
                t.check(ps.max_diff <= 3 && unwritten == 0 && c1 == 0 && c2 == 0,
                        "%s base-pitch layout %d, %s (%s): max %d levels off (bound 3), %lld values differ "
                        "between two poisons, %lld padding bytes written",
                        name, layout, src, ptex.note().c_str(), ps.max_diff, unwritten, c1 + c2);
                if (layout == 0)
                    std::printf("  %-44s %-10s max %d level(s) off, %.4f%% off by one; vs base max %d; %s: %s\n",
                                name, "base-pitch", ps.max_diff, 100.0 * ps.off_by_one / ps.count, from_base, src,
                                ptex.note().c_str());
            };
            check_pitch(din.view, "input");
            if (tc.channels == 4 && layout == 0) {
                const device_image rows512(im, (row_in + 511) / 512 * 512);
                check_pitch(rows512.view, "512-byte rows");
            }
        }
    }
}

/// A user's kernel from the warp-level building blocks: one warp (block of
/// 32 threads) per 16 x 8 output tile (blockIdx.x, blockIdx.y), FP64. Product
/// 1 runs over the tile's whole texel window in 16-texel k blocks, product 2
/// over its image rows in 4-row chunks; weights outside a pixel's taps are 0.
/// Every lane runs every MMA (no early exit); only the stores are guarded.
template <class Backend, filter F>
__global__ void __launch_bounds__(32) user_tile_kernel(ti::image_view in, ti::image_out<double> out, double sx, double sy)
{
    using Shape = tcore::f64_m16n8k16;
    using Tile = ti::tile<Shape>;
    const int lane = tcore::lane_id(), g = lane >> 2;
    const int ox0 = Tile::cols * static_cast<int>(blockIdx.x), oy0 = Tile::rows * static_cast<int>(blockIdx.y);
    const int ox_last = min(ox0 + Tile::cols - 1, out.width - 1), oy_last = min(oy0 + Tile::rows - 1, out.height - 1);
    const int x_lo = ti::locate<double>(ox0, sx).i0 + ti::first_tap<F>;
    const int x_hi = ti::locate<double>(ox_last, sx).i0 + ti::first_tap<F> + ti::taps<F> - 1;
    const int y_lo = ti::locate<double>(oy0, sy).i0 + ti::first_tap<F>;
    const int y_hi = ti::locate<double>(oy_last, sy).i0 + ti::first_tap<F> + ti::taps<F> - 1;
    // Weights of the lane's A1 rows (output columns g, g + 8).
    const ti::weights_of<Shape, F> wx[2] = {ti::make_weights<Shape, F>(ox0 + g, sx),
                                            ti::make_weights<Shape, F>(ox0 + g + 8, sx)};
    tcore::frag_c<Shape> d2[Tile::row_blocks];
    for (auto& d : d2) tcore::fill(d, 0.0);
    for (int yc = y_lo; yc <= y_hi; yc += Tile::chunk_rows) {
        tcore::frag_c<Shape> d1[2];
        tcore::fill(d1[0], 0.0);
        tcore::fill(d1[1], 0.0);
        for (int xb = x_lo; xb <= x_hi; xb += Tile::texels) {
            const tcore::frag_a<Shape> a1 = ti::make_a1<Shape, F>(lane, wx, xb);
            for (int n1 = 0; n1 < 2; ++n1) {
                tcore::frag_b<Shape> b1;
                ti::load_b1<Shape, false>(b1, in, xb, yc, n1, lane);  // clamp-to-edge
                tcore::mma<Backend>(d1[n1], a1, b1, d1[n1]);
            }
        }
        // D1 becomes A2 in place, k relabelled; B2 is generated for that labelling.
        const auto a2 = tcore::reuse_a(d1[0], d1[1]);
        for (int nb = 0; nb < Tile::row_blocks; ++nb) {
            const ti::weights_of<Shape, F> wy = ti::make_weights<Shape, F>(oy0 + 2 * nb + (g >> 2), sy);
            const tcore::frag_b<Shape> b2 = ti::make_b2<Shape, F>(lane, wy, yc);
            tcore::mma<Backend>(d2[nb], a2, tcore::with_k_label<tcore::relabelled_k<0>>(b2), d2[nb]);
        }
    }
    for (int nb = 0; nb < Tile::row_blocks; ++nb) ti::store_d2<Shape>(out, d2[nb], nb, ox0, oy0, lane);
}

/// user_tile_kernel on both backends against the FP64 reference.
template <filter F>
void check_user_kernel(tally& t, const test_case& tc)
{
    const ex::image im = make(tc);
    std::vector<double> ref;
    ex::reference<F>(im, tc.wo, tc.ho, ref);
    const device_image din(im, static_cast<long long>(tc.wi) * tc.channels + 3);
    const dim3 grid((tc.wo + 15) / 16, (tc.ho + 7) / 8);
    const double sx = static_cast<double>(tc.wi) / tc.wo, sy = static_cast<double>(tc.hi) / tc.ho;
    auto check = [&](const char* backend, auto kernel) {
        device_output<double> dout(tc.wo, tc.ho, tc.channels, static_cast<long long>(tc.wo) * tc.channels + 1, 0xFF);
        kernel<<<grid, 32>>>(din.view, dout.view, sx, sy);
        TCORE_CHECK_LAUNCH();
        TCORE_CHECK(cudaDeviceSynchronize());
        long long clobbered = 0;
        const std::vector<double> got = dout.result(clobbered);
        long long bad = 0;
        for (std::size_t i = 0; i < got.size(); ++i) bad += !tcore::test::close(got[i], ref[i], 1e-11);
        t.check(bad == 0, "user kernel %s %s %s %dx%d->%dx%d: %lld of %zu values off", backend, ti::filter_name(F),
                tc.image, tc.wi, tc.hi, tc.wo, tc.ho, bad, got.size());
        t.check(clobbered == 0, "user kernel %s: %lld padding values written", backend, clobbered);
    };
    check("tensor_core", user_tile_kernel<tcore::tensor_core, F>);
    check("cuda_core", user_tile_kernel<tcore::cuda_core, F>);
}

void check_bad_arguments(tally& t)
{
    tcore::test::device_buffer<unsigned char> in(64 * 64 * 4), out(128 * 128 * 4);
    const ti::image_view good_in{in.ptr, 64, 64, 4, 256};
    const ti::image_out<unsigned char> good_out{out.ptr, 128, 128, 4, 512};
    auto throws = [](const std::function<void()>& f) {
        try {
            f();
        } catch (const tcore::error&) {
            return true;
        }
        return false;
    };
    using namespace tcore;
    auto tc = [](const ti::image_view& i, const ti::image_out<unsigned char>& o) {
        ti::resample_mma<tensor_core, f16_m16n8k16_f32acc, filter::bicubic>(i, o);
    };
    auto cce = [](const ti::image_view& i, const ti::image_out<unsigned char>& o) {
        ex::resample_cce<filter::bilinear, float>(i, o);
    };
    for (auto launch : {std::function<void(const ti::image_view&, const ti::image_out<unsigned char>&)>(tc),
                        std::function<void(const ti::image_view&, const ti::image_out<unsigned char>&)>(cce)}) {
        ti::image_view i = good_in;
        ti::image_out<unsigned char> o = good_out;
        t.check(throws([&] { ti::image_view b = i; b.data = nullptr; launch(b, o); }), "null input accepted");
        t.check(throws([&] { ti::image_out<unsigned char> b = o; b.data = nullptr; launch(i, b); }), "null output accepted");
        t.check(throws([&] { ti::image_view b = i; b.channels = 2; launch(b, o); }), "2 channels accepted");
        t.check(throws([&] { ti::image_out<unsigned char> b = o; b.channels = 3; launch(i, b); }),
                "channel mismatch accepted");
        t.check(throws([&] { ti::image_view b = i; b.pitch = 100; launch(b, o); }), "short input pitch accepted");
        t.check(throws([&] { ti::image_out<unsigned char> b = o; b.pitch = 511; launch(i, b); }),
                "short output pitch accepted");
        t.check(throws([&] { ti::image_view b = i; b.width = 0; launch(b, o); }), "zero width accepted");
        t.check(throws([&] { ti::image_out<unsigned char> b = o; b.height = -3; launch(i, b); }),
                "negative height accepted");
    }
    t.check(throws([] { ex::texture_image bad(nullptr, 4, 4, 4, 16); }), "texture from null accepted");
    t.check(throws([&] { ti::image_view b = good_in; b.data = nullptr; ex::pitch_texture_image bad(b); }),
            "pitch texture from null accepted");
    TCORE_CHECK(cudaDeviceSynchronize());
}

}  // namespace

int main()
{
    tcore::test::require_gpu_or_skip();
    tally t;
    std::vector<test_case> cases = {
        {"random", 1, 1, 4, 1, 1},         // one pixel
        {"random", 1, 1, 3, 7, 5},         // one pixel, up-scaled
        {"random", 97, 1, 4, 40, 1},       // one row, down
        {"random", 1, 50, 3, 1, 130},      // one column, up
        {"random", 61, 45, 4, 200, 150},   // ~3.3x up
        {"random", 301, 203, 3, 70, 47},   // ~4.3x down, RGB
        {"random", 517, 389, 4, 101, 77},  // ~5x down (gather path)
        {"alpha", 37, 29, 4, 150, 90},     // ~4x up, odd sizes
        {"smooth", 64, 64, 3, 96, 80},     // 1.5x / 1.25x up, RGB
        {"checker", 160, 120, 4, 40, 29},  // 4x down
        {"smooth", 50, 40, 4, 50, 40},     // identity
        {"checker", 33, 70, 3, 61, 17},    // mixed
        {"checker", 40, 40, 4, 120, 100},  // sharp edges, 3x up
        {"alpha", 333, 250, 4, 208, 156},  // 1.6x down (bilinear: gather path)
        {"checker", 257, 197, 4, 64, 49},  // ~4x down, odd sizes (gather path, clamped windows)
        {"alpha", 2048, 2048, 4, 512, 512},  // 4x down: bicubic streams, several tiles per warp
        {"smooth", 430, 300, 4, 100, 70},    // ~4.3x down: 6-k-block windows (bicubic)
        {"alpha", 800, 600, 4, 100, 75},     // 8x down: 8-k-block windows, bicubic streams
    };
    if (!quick) {
        cases.push_back({"alpha", 256, 256, 4, 1024, 1024});  // 4x up
        cases.push_back({"checker", 1024, 768, 4, 300, 200});  // non-integer down
        cases.push_back({"alpha", 1600, 1200, 4, 1000, 750});  // 1.6x down
        cases.push_back({"smooth", 200, 150, 3, 640, 480});    // RGB up
        cases.push_back({"checker", 4096, 2048, 4, 1024, 512}); // 4x down, 8 tiles per warp (132 SMs)
    }
    for (const test_case& c : cases) {
        run_case<filter::bilinear>(t, c);
        run_case<filter::bicubic>(t, c);
    }
    for (const test_case& c : {test_case{"alpha", 37, 29, 4, 150, 90}, test_case{"checker", 33, 70, 3, 61, 17},
                               test_case{"checker", 160, 120, 4, 40, 29}}) {
        check_user_kernel<filter::bilinear>(t, c);
        check_user_kernel<filter::bicubic>(t, c);
    }
    check_bad_arguments(t);
    return t.finish();
}
