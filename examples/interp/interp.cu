// examples/interp/interp.cu - the interp workload: resampling 8-bit images
// (3 or 4 channels) by any scale factor, bilinear and bicubic, after
// "Making GPU tensor cores compute texture interpolation".
//
// Variants (tc, cc: tcore/patterns/device/interp.cuh; base, cce:
// interp_opponents.cuh):
//   base        tex2D, the texture unit's bilinear filter (bilinear cases only;
//               8-bit fixed-point weights, so its error is larger), RGBA8
//               cudaArray (block-linear)
//   base-pitch  the same filter on a pitch-linear RGBA8 texture over the
//               input in global memory (an aligned RGBA copy where the input
//               is RGB or its pitch or address misses the device's texture
//               alignments; the note says which)
//   tc          two chained MMAs per warp tile on f16 m16n8k16, FP32
//               accumulation, accumulator reused as the next A operand;
//               8-bit output
//   tc-f16acc   the same with FP16 accumulation
//   tc-f64      the same on f64 m16n8k16, FP64 output
//   cc, cc-f64  tc / tc-f64 on the cuda_core backend
//   cce         plain CUDA, one thread per pixel, FP32; 8-bit output
//   cce-f64     plain CUDA in FP64, FP64 output
// Cases "<filter> <image> <in>-><out>": generated test images (checkerboard,
// smooth colour field, RGBA with varying alpha), inputs 256^2 to 4096^2,
// outputs 1024^2 and larger, up- and down-scaling, RGBA and RGB. --quick:
// small images.
//
// Accuracy: 8-bit outputs against the FP64 CPU reference rounded to 8 bits
// (errors in levels; the note gives the share of values off by one), FP64
// outputs against the FP64 reference itself.
// Bytes: input plus output. Flops: the separable evaluation's multiply-adds
// per output value, 2 (taps^2 + taps): 12 bilinear, 40 bicubic.
// Summaries: geometric means of t(cce)/t(tc) over the bicubic cases and
// t(best base)/t(tc) over the bilinear cases, best base being per case the
// faster of base and base-pitch (targets: >= 1 and >= 1/1.5); and of each
// base alone.
//
// TCORE_INTERP_PPM=<folder> writes every input and every 8-bit (and FP64,
// rounded) output as a PPM (first three channels) for viewing; off by default.
//
// --input interp:image=PATH,scale=F|size=WxH,filter=...,alpha=yes|no: the
// user's image instead of the generated ones (tcore-bench --help lists the
// keys). PATH is a binary 8-bit PGM (P5; grey is copied to three channels)
// or PPM (P6) file, read strictly (pnm.hpp); the case is RGB ("<filter>
// <stem>-rgb <in>-><out>"), or RGBA with a reproducible random alpha
// channel for alpha=yes ("<filter> <stem> <in>-><out>"), checked against the
// same FP64 CPU reference. A case that does not fit device memory is skipped.
#include "harness/harness.hpp"
#include "harness/inputs.hpp"
#include "interp_host.hpp"
#include "interp_kernels.hpp"
#include "interp_opponents.cuh"
#include "pnm.hpp"

#include <tcore/tcore.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

namespace tb = tcore::bench;
namespace ex = tcore::examples::interp;
namespace ti = tcore::interp;
using ti::filter;

struct interp_case {
    filter f;
    std::string image;  // checker, smooth, alpha; a user's image: its file's stem
    int channels, wi, hi, wo, ho;
    std::string path = "";  // a user's image (--input): the PGM/PPM file
};

std::string size_name(int w, int h) { return w == h ? std::to_string(w) + "^2" : std::to_string(w) + "x" + std::to_string(h); }

std::string case_name(const interp_case& c)
{
    return std::string(ti::filter_name(c.f)) + " " + c.image + (c.channels == 3 ? "-rgb " : " ") +
           size_name(c.wi, c.hi) + "->" + size_name(c.wo, c.ho);
}

/// The seed of the alpha channel added to a user's image (alpha=yes).
constexpr std::uint64_t user_alpha_seed = 0xa1fa5eedull;

ex::image make_input(const interp_case& c)
{
    if (!c.path.empty()) {
        const ex::image rgb = ex::grey_to_rgb(ex::read_pnm(c.path));
        return c.channels == 4 ? ex::with_random_alpha(rgb, user_alpha_seed) : rgb;
    }
    if (c.image == "checker") return ex::checkerboard(c.wi, c.hi, c.channels, 8);
    if (c.image == "smooth") return ex::smooth_field(c.wi, c.hi, c.channels);
    return ex::alpha_image(c.wi, c.hi);
}

template <class T>
struct device_array {
    T* ptr = nullptr;
    explicit device_array(std::size_t n) { TCORE_CHECK(cudaMalloc(&ptr, n * sizeof(T))); }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
};

using u8_run = std::function<void(const ti::image_view&, const ti::image_out<unsigned char>&, cudaStream_t)>;
using f64_run = std::function<void(const ti::image_view&, const ti::image_out<double>&, cudaStream_t)>;

struct u8_variant {
    const char* name;
    tb::peak compute;
    const char* note;
    u8_run bilinear, bicubic;
};
struct f64_variant {
    const char* name;
    tb::peak compute;
    const char* note;
    f64_run bilinear, bicubic;
};

template <class Backend, class Shape, filter F, class Out>
void mma_run(const ti::image_view& i, const ti::image_out<Out>& o, cudaStream_t s)
{
    ti::resample_mma<Backend, Shape, F>(i, o, s);
}
template <filter F, class T, class Out>
void cce_run(const ti::image_view& i, const ti::image_out<Out>& o, cudaStream_t s)
{
    ex::resample_cce<F, T>(i, o, s);
}

std::vector<u8_variant> u8_variants()
{
    using namespace tcore;
    using B = filter;
    return {
        {"tc", tb::peak::fp16_tc, "f16 m16n8k16, FP32 acc., D1 reused as A",
         mma_run<tensor_core, f16_m16n8k16_f32acc, B::bilinear, unsigned char>,
         mma_run<tensor_core, f16_m16n8k16_f32acc, B::bicubic, unsigned char>},
        {"tc-f16acc", tb::peak::fp16_tc, "f16 m16n8k16, FP16 acc.",
         mma_run<tensor_core, f16_m16n8k16_f16acc, B::bilinear, unsigned char>,
         mma_run<tensor_core, f16_m16n8k16_f16acc, B::bicubic, unsigned char>},
        {"cc", tb::peak::fp32_cc, "tc's kernel on the cuda_core backend",
         mma_run<cuda_core, f16_m16n8k16_f32acc, B::bilinear, unsigned char>,
         mma_run<cuda_core, f16_m16n8k16_f32acc, B::bicubic, unsigned char>},
        {"cce", tb::peak::fp32_cc, "plain CUDA, FP32, thread per pixel", cce_run<B::bilinear, float, unsigned char>,
         cce_run<B::bicubic, float, unsigned char>},
    };
}

std::vector<f64_variant> f64_variants()
{
    using namespace tcore;
    using B = filter;
    return {
        {"tc-f64", tb::peak::fp64_tc, "f64 m16n8k16, D1 reused as A (relabelled k)",
         mma_run<tensor_core, f64_m16n8k16, B::bilinear, double>, mma_run<tensor_core, f64_m16n8k16, B::bicubic, double>},
        {"cc-f64", tb::peak::fp64_cc, "tc-f64's kernel on the cuda_core backend",
         mma_run<cuda_core, f64_m16n8k16, B::bilinear, double>, mma_run<cuda_core, f64_m16n8k16, B::bicubic, double>},
        {"cce-f64", tb::peak::fp64_cc, "plain CUDA, FP64, thread per pixel", cce_run<B::bilinear, double, double>,
         cce_run<B::bicubic, double, double>},
    };
}

std::string fixed(double v, int digits)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string file_stem(const std::string& s)
{
    std::string r;
    for (char ch : s) r += (std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_');
    return r;
}

/// Input and output sides up to this many texels (the texture bases' limits
/// with room; the kernels' grids), and output values up to 2^30 (the FP64
/// reference and results on the host).
constexpr long long max_side = 32768;

/// The cases of one --input interp:...: "" or what is wrong (the image's
/// header and size are read; its pixels are read when the case runs).
std::string user_cases(const tb::user_input& in, std::vector<interp_case>& out)
{
    const std::string path = in.get("image");
    if (path.empty()) return "image is required (image=PATH of a binary PGM or PPM file)";
    ex::pnm_header h;
    try {
        h = ex::read_pnm_header(path);
    } catch (const tcore::error& e) {
        return std::string("image: ") + e.what();
    }
    if (h.width > max_side || h.height > max_side)
        return "image: " + std::to_string(h.width) + "x" + std::to_string(h.height) + ", sides up to " +
               std::to_string(max_side) + " are run";
    const std::string alpha = in.get("alpha", "no");
    if (alpha != "yes" && alpha != "no") return "alpha: yes or no expected";
    const std::string scale = in.get("scale"), size = in.get("size");
    if (scale.empty() == size.empty()) return "one of scale (e.g. scale=2.5) and size (e.g. size=3840x2160) expected";
    long long wo = 0, ho = 0;
    if (!scale.empty()) {
        double f = 0;
        if (!tb::parse_decimal(scale, 0, 1e6, f) || f <= 0)
            return "scale: a decimal factor > 0 expected (e.g. 0.25 or 2.5)";
        wo = std::max(1LL, std::llround(h.width * f));
        ho = std::max(1LL, std::llround(h.height * f));
    } else {
        std::vector<long long> e;
        if (!tb::parse_extents(size, 1LL << 40, e) || e.size() != 2) return "size: WxH expected (e.g. 3840x2160)";
        wo = e[0], ho = e[1];
    }
    const int channels = alpha == "yes" ? 4 : 3;
    if (wo > max_side || ho > max_side || wo * ho * channels > (1LL << 30))
        return "output " + std::to_string(wo) + "x" + std::to_string(ho) + ": sides up to " + std::to_string(max_side) +
               " and up to 2^30 values are run";
    const std::string filters = in.get("filter", "both");
    if (filters != "bilinear" && filters != "bicubic" && filters != "both")
        return "filter: bilinear, bicubic or both expected";
    for (filter f : {filter::bilinear, filter::bicubic}) {
        if (filters != "both" && filters != ti::filter_name(f)) continue;
        out.push_back({f, tb::matrix_case_name(path), channels, h.width, h.height, static_cast<int>(wo),
                       static_cast<int>(ho), path});
    }
    return "";
}

void run(tb::context& ctx)
{
    std::vector<interp_case> cases;
    const std::vector<tb::user_input> inputs = ctx.inputs();
    for (const tb::user_input& in : inputs)
        if (const std::string problem = user_cases(in, cases); !problem.empty())
            throw tcore::error("interp --input: " + problem);
    for (filter f : {filter::bilinear, filter::bicubic}) {
        if (!inputs.empty()) break;
        if (ctx.quick()) {
            cases.push_back({f, "checker", 4, 256, 256, 1024, 1024});
            cases.push_back({f, "smooth", 3, 512, 384, 256, 192});
        } else {
            cases.push_back({f, "checker", 4, 256, 256, 1024, 1024});    // 4x up
            cases.push_back({f, "alpha", 4, 1024, 1024, 4096, 4096});    // 4x up, varying alpha
            cases.push_back({f, "smooth", 4, 2048, 2048, 3072, 3072});   // 1.5x up
            cases.push_back({f, "smooth", 3, 1920, 1080, 3840, 2160});   // 2x up, RGB
            cases.push_back({f, "checker", 4, 4096, 4096, 1024, 1024});  // 4x down
            cases.push_back({f, "alpha", 4, 4096, 4096, 2560, 2560});    // 1.6x down
        }
    }
    const char* ppm_dir = std::getenv("TCORE_INTERP_PPM");

    std::map<std::string, std::map<std::string, double>> times;  // variant -> case -> ms
    std::vector<std::string> bilinear_cases, bicubic_cases;

    for (const interp_case& c : cases) {
        const std::string name = case_name(c);
        if (!ctx.announce_case(name)) continue;
        const double texels = static_cast<double>(c.wi) * c.hi, outputs = static_cast<double>(c.wo) * c.ho * c.channels;
        std::string why;
        // input, two RGBA texture copies (base, base-pitch), 8-bit and FP64 outputs, 256 MiB to spare
        if (!tb::device_memory_fits(texels * (c.channels + 8.0) + 9.0 * outputs + double(256u << 20), why)) {
            std::printf("interp %s: skipped, %s\n", name.c_str(), why.c_str());
            ctx.summary(name + " skipped", "does not fit device memory (" + why + ")");
            continue;
        }
        const ex::image im = make_input(c);
        const std::size_t in_bytes = im.data.size();
        const std::size_t out_values = static_cast<std::size_t>(c.wo) * c.ho * c.channels;
        const int taps = c.f == filter::bilinear ? 2 : 4;
        const double flops = 2.0 * (taps * taps + taps) * static_cast<double>(out_values);

        std::vector<double> ref;
        ex::reference(c.f, im, c.wo, c.ho, ref);
        const std::vector<double> ref8 = ex::rounded_u8(ref);
        if (ppm_dir) ex::write_ppm(std::string(ppm_dir) + "/" + file_stem(name) + "-input.ppm", im.data.data(), c.wi, c.hi, c.channels);

        device_array<unsigned char> din(in_bytes), dout8(out_values);
        TCORE_CHECK(cudaMemcpy(din.ptr, im.data.data(), in_bytes, cudaMemcpyHostToDevice));
        const ti::image_view in{din.ptr, c.wi, c.hi, c.channels, im.pitch()};
        const ti::image_out<unsigned char> out8{dout8.ptr, c.wo, c.ho, c.channels, static_cast<long long>(c.wo) * c.channels};
        std::vector<unsigned char> got8(out_values);
        (c.f == filter::bilinear ? bilinear_cases : bicubic_cases).push_back(name);

        auto measure_u8 = [&](const char* vname, tb::peak compute, const std::string& note,
                              const std::function<void(cudaStream_t)>& launch) {
            TCORE_CHECK(cudaMemsetAsync(dout8.ptr, 0xAB, out_values, ctx.stream()));
            launch(ctx.stream());
            TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
            TCORE_CHECK(cudaMemcpy(got8.data(), dout8.ptr, out_values, cudaMemcpyDeviceToHost));
            const tb::accuracy err = tb::accuracy_of(ref8.data(), got8.data(), out_values);
            const ex::level_stats s = ex::compare_levels(ref8, got8);
            if (ppm_dir)
                ex::write_ppm(std::string(ppm_dir) + "/" + file_stem(name) + "-" + vname + ".ppm", got8.data(), c.wo,
                              c.ho, c.channels);
            tb::row_spec spec;
            spec.case_name = name;
            spec.variant = vname;
            spec.bytes = static_cast<double>(in_bytes + out_values);
            spec.flops = flops;
            spec.ceiling = tb::peak::memory;
            spec.compute = compute; spec.mma_shape = std::string(vname) == "tc-f16acc" ? "f16_m16n8k16_f16acc" : "";
            spec.footprint_bytes = in_bytes + out_values;
            spec.note = note + "; 8-bit: max " + std::to_string(s.max_diff) + " level(s) off, " +
                        fixed(100 * s.fraction_off(), 3) + "% of values off by one or more";
            const std::vector<double> med = ctx.measure(spec, launch, err);
            if (!med.empty()) times[vname][name] = med.front();
        };

        if (c.f == filter::bilinear && ctx.want_variant("base")) {
            const ex::texture_image tex(im.data.data(), c.wi, c.hi, c.channels, im.pitch());  // preprocessing, untimed
            measure_u8("base", tb::peak::fp32_cc, "tex2D linear filter, RGBA8 cudaArray (8-bit fixed-point weights)",
                       [&tex, out8](cudaStream_t s) { ex::resample_tex(tex, out8, s); });
        }
        if (c.f == filter::bilinear && ctx.want_variant("base-pitch")) {
            const ex::pitch_texture_image tex(in, ctx.stream());  // in place or an aligned copy, untimed
            measure_u8("base-pitch", tb::peak::fp32_cc,
                       "tex2D linear filter, RGBA8 pitch-linear, " + tex.note() + " (8-bit fixed-point weights)",
                       [&tex, out8](cudaStream_t s) { ex::resample_tex(tex, out8, s); });
        }
        for (const u8_variant& v : u8_variants()) {
            if (!ctx.want_variant(v.name)) continue;
            const u8_run fn = c.f == filter::bilinear ? v.bilinear : v.bicubic;
            measure_u8(v.name, v.compute, v.note, [fn, in, out8](cudaStream_t s) { fn(in, out8, s); });
        }

        bool any_f64 = false;
        for (const f64_variant& v : f64_variants()) any_f64 = any_f64 || ctx.want_variant(v.name);
        if (!any_f64) continue;
        device_array<double> dout64(out_values);
        const ti::image_out<double> out64{dout64.ptr, c.wo, c.ho, c.channels, static_cast<long long>(c.wo) * c.channels};
        std::vector<double> got64(out_values);
        for (const f64_variant& v : f64_variants()) {
            if (!ctx.want_variant(v.name)) continue;
            const f64_run fn = c.f == filter::bilinear ? v.bilinear : v.bicubic;
            const std::function<void(cudaStream_t)> launch = [fn, in, out64](cudaStream_t s) { fn(in, out64, s); };
            TCORE_CHECK(cudaMemsetAsync(dout64.ptr, 0xFF, out_values * sizeof(double), ctx.stream()));
            launch(ctx.stream());
            TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
            TCORE_CHECK(cudaMemcpy(got64.data(), dout64.ptr, out_values * sizeof(double), cudaMemcpyDeviceToHost));
            const tb::accuracy err = tb::accuracy_of(ref.data(), got64.data(), out_values);
            if (ppm_dir)
                ex::write_ppm(std::string(ppm_dir) + "/" + file_stem(name) + "-" + v.name + ".ppm", got64.data(), c.wo,
                              c.ho, c.channels);
            tb::row_spec spec;
            spec.case_name = name;
            spec.variant = v.name;
            spec.bytes = static_cast<double>(in_bytes + out_values * sizeof(double));
            spec.flops = flops;
            spec.ceiling = tb::peak::memory;
            spec.compute = v.compute;
            spec.footprint_bytes = in_bytes + out_values * sizeof(double);
            spec.note = std::string(v.note) + "; FP64 output";
            const std::vector<double> med = ctx.measure(spec, launch, err);
            if (!med.empty()) times[v.name][name] = med.front();
        }
    }

    auto ratio = [&](const char* num, const char* den, const std::vector<std::string>& names, const std::string& what) {
        std::vector<double> r;
        for (const std::string& n : names) {
            const auto a = times[num].find(n), b = times[den].find(n);
            if (a != times[num].end() && b != times[den].end() && b->second > 0) r.push_back(a->second / b->second);
        }
        if (!r.empty())
            ctx.summary("geomean t(" + std::string(num) + ")/t(" + den + "), " + what + " (" + std::to_string(r.size()) +
                            " cases)",
                        fixed(tb::geomean(r), 3));
    };
    // Per bilinear case the faster texture base.
    for (const std::string& n : bilinear_cases)
        for (const char* b : {"base", "base-pitch"}) {
            const auto it = times[b].find(n);
            if (it == times[b].end()) continue;
            const auto best = times["best base"].find(n);
            if (best == times["best base"].end() || it->second < best->second) times["best base"][n] = it->second;
        }
    ratio("cce", "tc", bicubic_cases, "bicubic; target >= 1");
    ratio("best base", "tc", bilinear_cases, "bilinear, per case the faster of base and base-pitch; target >= 0.667");
    ratio("base", "tc", bilinear_cases, "bilinear, cudaArray");
    ratio("base-pitch", "tc", bilinear_cases, "bilinear, pitch-linear");
    ratio("cce", "tc", bilinear_cases, "bilinear");
    ratio("cc", "tc", bicubic_cases, "bicubic");
    ratio("cce-f64", "tc-f64", bicubic_cases, "bicubic");
}

}  // namespace

void tcore_register_interp(tcore::bench::registry& r)
{
    tb::workload w{"interp",
                   "image resampling, bilinear and bicubic: tex2D vs two chained MMAs (FP16, FP64) vs plain CUDA", run};
    w.input_keys = {{"image", "a binary 8-bit PGM (P5; grey copied to R, G and B) or PPM (P6) file"},
                    {"alpha", "yes: RGBA with a random alpha channel added; no: RGB (default no)"},
                    {"scale", "the output size as a factor of the input's (e.g. 0.25 or 2.5)"},
                    {"size", "WxH: the output size (instead of scale)"},
                    {"filter", "bilinear, bicubic or both (default both)"}};
    w.check_input = [](const tb::user_input& in) {
        std::vector<interp_case> cases;
        return user_cases(in, cases);
    };
    r.add(w);
}
