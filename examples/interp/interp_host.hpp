// examples/interp/interp_host.hpp - the host side of the interp workload:
// generated test images, the FP64 CPU reference, error statistics in 8-bit
// levels and a PPM writer (also used by tests/host and tests/gpu).
//
// Images are 8-bit, `channels` (3 or 4) interleaved bytes per pixel, rows
// packed (pitch = width * channels). The reference evaluates
// p = sum_j wy_j sum_i wx_i f(clamp(x_i), clamp(y_j)) in FP64 with the
// positions and weights of tcore/patterns/interp.cuh (texture-unit
// geometry, clamp-to-edge), on several threads.
#pragma once

#include <tcore/check.cuh>
#include <tcore/patterns/interp.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace tcore::examples::interp {

using tcore::interp::filter;

/// An 8-bit image with packed rows.
struct image {
    int width = 0, height = 0, channels = 0;
    std::vector<unsigned char> data;
    long long pitch() const { return static_cast<long long>(width) * channels; }
    unsigned char& at(int x, int y, int c) { return data[static_cast<std::size_t>(y * pitch() + x * channels + c)]; }
    unsigned char at(int x, int y, int c) const { return data[static_cast<std::size_t>(y * pitch() + x * channels + c)]; }
};

inline image make_image(int width, int height, int channels)
{
    require(width > 0 && height > 0, "make_image", "width and height must be positive");
    require(channels >= 1 && channels <= 4, "make_image", "channels must be 1..4");
    image im;
    im.width = width, im.height = height, im.channels = channels;
    im.data.assign(static_cast<std::size_t>(width) * height * channels, 0);
    return im;
}

/// Checkerboard of `cell`-texel squares in two colours (sharp edges: the
/// worst case for interpolation error and for tex2D's 8-bit weights).
inline image checkerboard(int width, int height, int channels, int cell = 8)
{
    image im = make_image(width, height, channels);
    const unsigned char a[4] = {255, 32, 0, 255}, b[4] = {10, 200, 255, 255};
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const bool odd = ((x / cell) + (y / cell)) & 1;
            for (int c = 0; c < channels; ++c) im.at(x, y, c) = odd ? a[c] : b[c];
        }
    return im;
}

/// A smooth colour field: low-frequency sinusoids per channel (alpha 255).
inline image smooth_field(int width, int height, int channels)
{
    image im = make_image(width, height, channels);
    const double pi = 3.14159265358979323846;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const double u = (x + 0.5) / width, v = (y + 0.5) / height;
            const double ch[4] = {127.5 + 127.0 * std::sin(2 * pi * (1.5 * u + 0.5 * v)),
                                  127.5 + 127.0 * std::cos(2 * pi * (2.0 * v - 0.7 * u)),
                                  127.5 + 127.0 * std::sin(2 * pi * (u * v * 3.0 + 0.25)), 255.0};
            for (int c = 0; c < channels; ++c) im.at(x, y, c) = static_cast<unsigned char>(std::lround(ch[c]));
        }
    return im;
}

/// RGBA with varying alpha: colour bands and a radial alpha ramp with a
/// fine ring pattern (alpha from 0 to 255).
inline image alpha_image(int width, int height)
{
    image im = make_image(width, height, 4);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const double u = (x + 0.5) / width - 0.5, v = (y + 0.5) / height - 0.5;
            const double r = std::sqrt(u * u + v * v) * 2.0;
            im.at(x, y, 0) = static_cast<unsigned char>((x * 255) / std::max(1, width - 1));
            im.at(x, y, 1) = static_cast<unsigned char>((y * 255) / std::max(1, height - 1));
            im.at(x, y, 2) = static_cast<unsigned char>(((x / 16 + y / 16) % 3) * 120);
            const double ring = 0.5 + 0.5 * std::cos(r * 60.0);
            const double a = std::clamp(255.0 * (1.0 - r) * (0.6 + 0.4 * ring), 0.0, 255.0);
            im.at(x, y, 3) = static_cast<unsigned char>(std::lround(a));
        }
    return im;
}

/// FP64 CPU reference: `out` gets width_out * height_out * channels values.
template <filter F>
void reference(const image& in, int width_out, int height_out, std::vector<double>& out, unsigned threads = 0)
{
    using namespace tcore::interp;
    require(in.width > 0 && in.height > 0 && width_out > 0 && height_out > 0, "interp reference",
            "image sizes must be positive");
    constexpr int n = taps<F>;
    const int C = in.channels;
    out.assign(static_cast<std::size_t>(width_out) * height_out * C, 0.0);
    const double sx = static_cast<double>(in.width) / width_out, sy = static_cast<double>(in.height) / height_out;
    // Column weights once per output column.
    std::vector<real_weights<F, double>> wx(static_cast<std::size_t>(width_out));
    for (int ox = 0; ox < width_out; ++ox) wx[static_cast<std::size_t>(ox)] = make_real_weights<F, double>(locate<double>(ox, sx));
    auto rows = [&](int y_begin, int y_end) {
        for (int oy = y_begin; oy < y_end; ++oy) {
            const real_weights<F, double> wy = make_real_weights<F, double>(locate<double>(oy, sy));
            for (int ox = 0; ox < width_out; ++ox) {
                const real_weights<F, double>& w = wx[static_cast<std::size_t>(ox)];
                for (int c = 0; c < C; ++c) {
                    double p = 0;
                    for (int j = 0; j < n; ++j) {
                        const int y = clamp_index(wy.base + j, in.height);
                        double row = 0;
                        for (int i = 0; i < n; ++i) row += w.w[i] * in.at(clamp_index(w.base + i, in.width), y, c);
                        p += wy.w[j] * row;
                    }
                    out[(static_cast<std::size_t>(oy) * width_out + ox) * C + c] = p;
                }
            }
        }
    };
    if (threads == 0) threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    if (threads == 1 || height_out < 64) {
        rows(0, height_out);
        return;
    }
    std::vector<std::thread> pool;
    const int per = (height_out + static_cast<int>(threads) - 1) / static_cast<int>(threads);
    for (unsigned i = 0; i < threads; ++i) {
        const int b = static_cast<int>(i) * per, e = std::min(height_out, b + per);
        if (b < e) pool.emplace_back(rows, b, e);
    }
    for (std::thread& th : pool) th.join();
}

/// The reference of filter f (runtime choice).
inline void reference(filter f, const image& in, int width_out, int height_out, std::vector<double>& out)
{
    if (f == filter::bilinear) reference<filter::bilinear>(in, width_out, height_out, out);
    else reference<filter::bicubic>(in, width_out, height_out, out);
}

/// The reference rounded like the 8-bit kernels (nearest, ties to even, saturated).
inline std::vector<double> rounded_u8(const std::vector<double>& ref)
{
    std::vector<double> r(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) r[i] = static_cast<double>(tcore::interp::to_u8(static_cast<float>(ref[i])));
    return r;
}

/// 8-bit result against the rounded reference, in levels.
struct level_stats {
    int max_diff = 0;
    std::size_t off_by_one = 0, off_more = 0, count = 0;
    double fraction_off() const { return count ? static_cast<double>(off_by_one + off_more) / count : 0.0; }
};

inline level_stats compare_levels(const std::vector<double>& ref_u8, const std::vector<unsigned char>& got)
{
    level_stats s;
    s.count = std::min(ref_u8.size(), got.size());
    for (std::size_t i = 0; i < s.count; ++i) {
        const int d = std::abs(static_cast<int>(got[i]) - static_cast<int>(ref_u8[i]));
        s.max_diff = std::max(s.max_diff, d);
        if (d == 1) ++s.off_by_one;
        else if (d > 1) ++s.off_more;
    }
    return s;
}

/// Writes the first three channels (grey for 1 channel) as a binary PPM (P6).
template <class T>
void write_ppm(const std::string& path, const T* data, int width, int height, int channels)
{
    std::ofstream f(path, std::ios::binary);
    require(static_cast<bool>(f), "write_ppm", "cannot open " + path);
    f << "P6\n" << width << " " << height << "\n255\n";
    std::vector<unsigned char> row(static_cast<std::size_t>(width) * 3);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < 3; ++c) {
                const int src = channels >= 3 ? c : 0;
                const double v = static_cast<double>(data[(static_cast<std::size_t>(y) * width + x) * channels + src]);
                row[static_cast<std::size_t>(x) * 3 + c] = static_cast<unsigned char>(tcore::interp::to_u8(static_cast<float>(v)));
            }
        f.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size()));
    }
    require(static_cast<bool>(f), "write_ppm", "write failed: " + path);
}

}  // namespace tcore::examples::interp
