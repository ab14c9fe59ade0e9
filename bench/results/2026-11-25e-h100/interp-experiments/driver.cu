// Experiment driver: launch shapes and load hints of the interp gather path
// (bicubic 4096^2 -> 1024^2 against cce), timed through the tcore harness.
#include "harness/harness.hpp"
#include "examples/interp/interp_host.hpp"
#include "examples/interp/interp_kernels.cuh"

#include <tcore/tcore.cuh>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace tcore::interp {

template <int Hint>
__device__ inline uint4 ld4(const unsigned char* p)
{
    if constexpr (Hint == 0) return __ldg(reinterpret_cast<const uint4*>(p));
    else if constexpr (Hint == 1) return __ldcs(reinterpret_cast<const uint4*>(p));
    else {
        uint4 q;
        if constexpr (Hint == 2)
            asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(q.x), "=r"(q.y), "=r"(q.z), "=r"(q.w) : "l"(p));
        else
            asm volatile("ld.global.nc.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(q.x), "=r"(q.y), "=r"(q.z), "=r"(q.w) : "l"(p));
        return q;
    }
}
template <int Hint>
__device__ inline uint2 ld2(const unsigned char* p)
{
    if constexpr (Hint != 2) return __ldg(reinterpret_cast<const uint2*>(p));
    else {
        uint2 q;
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0,%1}, [%2];" : "=r"(q.x), "=r"(q.y) : "l"(p));
        return q;
    }
}
template <int Hint>
__device__ inline unsigned ld1(const unsigned char* p)
{
    if constexpr (Hint != 2) return __ldg(reinterpret_cast<const unsigned*>(p));
    else {
        unsigned q;
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.u32 %0, [%1];" : "=r"(q) : "l"(p));
        return q;
    }
}
template <int Hint>
__device__ inline uchar4 ldc(const unsigned char* p)
{
    if constexpr (Hint == 0) return __ldg(reinterpret_cast<const uchar4*>(p));
    else {
        unsigned q;
        asm volatile("ld.global.nc.L2::256B.u32 %0, [%1];" : "=r"(q) : "l"(p));
        return make_uchar4(q & 255, (q >> 8) & 255, (q >> 16) & 255, q >> 24);
    }
}

#include "gx_warp.inc"

}  // namespace tcore::interp

namespace {

namespace tb = tcore::bench;
namespace ex = tcore::examples::interp;
namespace ti = tcore::interp;
using ti::filter;
using ti::image_view;
using ti::image_out;
using tcore::tensor_core;
using F32 = tcore::f16_m16n8k16_f32acc;

template <filter F, int NK1, int W, int MinB, int D, int Hint>
__global__ void __launch_bounds__(W * 32, MinB) gx_kernel(image_view in, image_out<unsigned char> out, float sx, float sy, int tiles)
{
    const int warp = static_cast<int>(threadIdx.x >> 5);
    const int ox0 = ti::gather_cols * (static_cast<int>(blockIdx.x) * W + warp);
    const int oy0 = ti::gather_rows * tiles * static_cast<int>(blockIdx.y);
    ti::gx_warp<tensor_core, F32, F, NK1, (NK1 < 4 ? NK1 : (NK1 % 4 == 0 ? 4 : 2)), D, Hint>(in, out, sx, sy, ox0, oy0, tiles);
}

template <filter F, int Hint>
__global__ void __launch_bounds__(256) cce_kernel(image_view in, image_out<unsigned char> out, float scale_x, float scale_y)
{
    constexpr int n = ti::taps<F>;
    const int ox = blockIdx.x * 32 + threadIdx.x;
    const int oy = blockIdx.y * 8 + threadIdx.y;
    if (ox >= out.width || oy >= out.height) return;
    const ti::real_weights<F, float> wx = ti::make_real_weights<F, float>(ti::locate<float>(ox, scale_x));
    const ti::real_weights<F, float> wy = ti::make_real_weights<F, float>(ti::locate<float>(oy, scale_y));
    int xs[n];
#pragma unroll
    for (int i = 0; i < n; ++i) xs[i] = ti::clamp_index(wx.base + i, in.width);
    float acc[4] = {};
#pragma unroll
    for (int j = 0; j < n; ++j) {
        const unsigned char* row = in.data + ti::clamp_index(wy.base + j, in.height) * in.pitch;
        float sum[4] = {};
#pragma unroll
        for (int i = 0; i < n; ++i) {
            const uchar4 v = ti::ldc<Hint>(row + 4ll * xs[i]);
            const float f[4] = {float(v.x), float(v.y), float(v.z), float(v.w)};
#pragma unroll
            for (int c = 0; c < 4; ++c) sum[c] += wx.w[i] * f[c];
        }
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[c] += wy.w[j] * sum[c];
    }
    unsigned q[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) q[c] = ti::to_u8(acc[c]);
    *reinterpret_cast<unsigned*>(out.data + oy * out.pitch + 4ll * ox) = q[0] | (q[1] << 8) | (q[2] << 16) | (q[3] << 24);
}

using u8_launch = std::function<void(cudaStream_t)>;
using variant_list = std::vector<std::pair<std::string, u8_launch>>;

template <filter F, int NK1, int W, int MinB, int D, int Hint>
void add_shape(variant_list& v, const image_view& in, const image_out<unsigned char>& out, std::initializer_list<int> tiles_list)
{
    auto kernel = gx_kernel<F, NK1, W, MinB, D, Hint>;
    cudaFuncAttributes attr{};
    TCORE_CHECK(cudaFuncGetAttributes(&attr, kernel));
    int per_sm = 0;
    TCORE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, W * 32, 0));
    const float sx = static_cast<float>(static_cast<double>(in.width) / out.width);
    const float sy = static_cast<float>(static_cast<double>(in.height) / out.height);
    for (int tiles : tiles_list) {
        const std::string name = "w" + std::to_string(W) + "-b" + std::to_string(MinB) + "-d" + std::to_string(D) + "-h" +
                                 std::to_string(Hint) + "-t" + std::to_string(tiles);
        std::printf("  %s: %d regs, %d local bytes, %d blocks/SM\n", name.c_str(), attr.numRegs,
                    static_cast<int>(attr.localSizeBytes), per_sm);
        const int cols = ti::gather_cols * W, rows = ti::gather_rows * tiles;
        const dim3 grid((out.width + cols - 1) / cols, (out.height + rows - 1) / rows);
        v.push_back({name, [=](cudaStream_t s) {
                         kernel<<<grid, W * 32, 0, s>>>(in, out, sx, sy, tiles);
                         TCORE_CHECK(cudaGetLastError());
                     }});
    }
}

template <filter F, int NK1>
void add_all(variant_list& v, const image_view& in, const image_out<unsigned char>& out)
{
    if constexpr (NK1 == 4) {
        add_shape<F, NK1, 8, 2, 2, 0>(v, in, out, {16});
        add_shape<F, NK1, 8, 1, 2, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 1, 3, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 2, 1, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 2, 2, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 2, 3, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 3, 1, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 3, 2, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 4, 4, 2, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 4, 4, 3, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 4, 6, 1, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 4, 6, 2, 2>(v, in, out, {2, 4, 8, 16});
    } else if constexpr (NK1 == 6) {
        add_shape<F, NK1, 8, 1, 1, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 1, 2, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 2, 1, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 2, 2, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 4, 4, 1, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 4, 4, 2, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 2, 1, 0>(v, in, out, {4, 16});
    } else {
        add_shape<F, NK1, 8, 1, 1, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 8, 2, 1, 2>(v, in, out, {2, 4, 8, 16});
        add_shape<F, NK1, 4, 4, 1, 2>(v, in, out, {2, 4, 8, 16});
    }
}

/// The smallest window nk1 (2, 4, 6, 8) whose texels hold every column group's taps.
template <filter F>
int window_k_blocks(int in_width, int out_width)
{
    const float sx = static_cast<float>(static_cast<double>(in_width) / out_width);
    for (int nk1 : {2, 4, 6, 8}) {
        const int vec = nk1 < 4 ? nk1 : (nk1 % 4 == 0 ? 4 : 2);
        bool fits = true;
        for (int ox0 = 0; ox0 < out_width && fits; ox0 += ti::gather_cols) {
            const int last = ox0 + ti::gather_cols - 1 < out_width ? ox0 + ti::gather_cols - 1 : out_width - 1;
            const int hi = ti::locate<float>(last, sx).i0 + ti::first_tap<F> + ti::taps<F> - 1;
            fits = hi < ti::gather_x0<F>(ox0, sx, vec) + 4 * nk1;
        }
        if (fits) return nk1;
    }
    return 0;
}

struct xcase {
    filter f;
    const char* image;
    int wi, hi, wo, ho;
};

void run(tb::context& ctx)
{
    const std::vector<xcase> cases = {
        {filter::bicubic, "checker", 4096, 4096, 1024, 1024},
        {filter::bicubic, "alpha", 4096, 4096, 1024, 1024},
        {filter::bicubic, "alpha", 4100, 3001, 1023, 749},
        {filter::bicubic, "smooth", 3000, 2001, 700, 500},
    };
    for (const xcase& c : cases) {
        const std::string name = std::string(ti::filter_name(c.f)) + " " + c.image + " " + std::to_string(c.wi) + "x" +
                                 std::to_string(c.hi) + "->" + std::to_string(c.wo) + "x" + std::to_string(c.ho);
        if (!ctx.announce_case(name)) continue;
        std::printf("case %s\n", name.c_str());
        const ex::image im = std::string(c.image) == "checker" ? ex::checkerboard(c.wi, c.hi, 4, 8)
                             : std::string(c.image) == "smooth" ? ex::smooth_field(c.wi, c.hi, 4) : ex::alpha_image(c.wi, c.hi);
        const std::size_t in_bytes = im.data.size();
        const std::size_t out_values = static_cast<std::size_t>(c.wo) * c.ho * 4;
        std::vector<double> ref;
        ex::reference(c.f, im, c.wo, c.ho, ref);
        const std::vector<double> ref8 = ex::rounded_u8(ref);
        unsigned char *din = nullptr, *dout = nullptr;
        TCORE_CHECK(cudaMalloc(&din, in_bytes));
        TCORE_CHECK(cudaMalloc(&dout, out_values));
        TCORE_CHECK(cudaMemcpy(din, im.data.data(), in_bytes, cudaMemcpyHostToDevice));
        const image_view in{din, c.wi, c.hi, 4, im.pitch()};
        const image_out<unsigned char> out{dout, c.wo, c.ho, 4, static_cast<long long>(c.wo) * 4};
        variant_list v;
        v.push_back({"tc", [=](cudaStream_t s) { ex::resample_mma<tensor_core, F32, filter::bicubic>(in, out, s); }});
        if (c.f == filter::bilinear) v.back().second = [=](cudaStream_t s) { ex::resample_mma<tensor_core, F32, filter::bilinear>(in, out, s); };
        if (c.f == filter::bicubic) v.push_back({"cce", [=](cudaStream_t s) { ex::resample_cce<filter::bicubic, float>(in, out, s); }});
        else v.push_back({"cce", [=](cudaStream_t s) { ex::resample_cce<filter::bilinear, float>(in, out, s); }});
        {
            const float sx = static_cast<float>(static_cast<double>(c.wi) / c.wo), sy = static_cast<float>(static_cast<double>(c.hi) / c.ho);
            const dim3 grid((c.wo + 31) / 32, (c.ho + 7) / 8), block(32, 8);
            v.push_back({"cce-copy", [=](cudaStream_t s) { cce_kernel<filter::bicubic, 0><<<grid, block, 0, s>>>(in, out, sx, sy); }});
            v.push_back({"cce-l2pf", [=](cudaStream_t s) { cce_kernel<filter::bicubic, 1><<<grid, block, 0, s>>>(in, out, sx, sy); }});
        }
        auto add = [&](auto fc) {
            constexpr filter F = decltype(fc)::value;
            const int nk1 = window_k_blocks<F>(c.wi, c.wo);
            std::printf("  window nk1 %d\n", nk1);
            if (nk1 == 4) add_all<F, 4>(v, in, out);
            else if (nk1 == 6) { add_all<F, 6>(v, in, out); add_all<F, 8>(v, in, out); }
        };
        add(std::integral_constant<filter, filter::bicubic>{});
        std::vector<unsigned char> got(out_values);
        for (const auto& [vname, launch] : v) {
            if (!ctx.want_variant(vname)) continue;
            TCORE_CHECK(cudaMemsetAsync(dout, 0xAB, out_values, ctx.stream()));
            launch(ctx.stream());
            TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
            TCORE_CHECK(cudaMemcpy(got.data(), dout, out_values, cudaMemcpyDeviceToHost));
            const ex::level_stats s = ex::compare_levels(ref8, got);
            std::printf("  check %-16s max %d level(s) off, %.4f%% off\n", vname.c_str(), s.max_diff, 100 * s.fraction_off());
            tb::row_spec spec;
            spec.case_name = name;
            spec.variant = vname;
            spec.bytes = static_cast<double>(in_bytes + out_values);
            spec.ceiling = tb::peak::memory;
            spec.footprint_bytes = in_bytes + out_values;
            spec.note = "max " + std::to_string(s.max_diff) + " levels";
            ctx.measure(spec, launch, tb::accuracy_of(ref8.data(), got.data(), out_values));
        }
        TCORE_CHECK(cudaFree(din));
        TCORE_CHECK(cudaFree(dout));
    }
}

}  // namespace

void tcore_register_all(tcore::bench::registry& r)
{
    r.add({"interpx", "interp gather launch shapes", run});
}
