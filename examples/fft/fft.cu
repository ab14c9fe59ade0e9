// examples/fft/fft.cu - the FFT workload: batched complex FP64 FFTs, 1D and
// 2D, forward and inverse (unscaled, as cuFFT).
//
// Variants:
//   base  cuFFT Z2Z, out of place (plan created outside the timed loop)
//   tc    tcore::fft_plan on tensor cores (tcore/patterns/device/fft.cuh): the
//         butterflies as 8- and 16-point DFT matrices in real form on f64
//         m16n8k16, twiddles from a long double table, one persistent
//         kernel per dimension (cp.async tile prefetch, stages in shared
//         memory)
//   cc    the same kernels with the cuda_core backend
//   tc-1pass, cc-1pass, tc-2pass, cc-2pass  for 256x256, which has a
//         one-pass kernel (fft_plan::single_pass, thread-block clusters):
//         each backend's schedule that the plan does not take by default on
//         this device (tc one pass where DRAM has under 30 GB/s an SM, else
//         two; cc two)
//
// Cases: "1d N=<n> <dir>" for n = 256 .. 4096 with 2^26/n signals (1 GiB per
// array); "2d <ny>x<nx> <dir>" (ny rows of nx, x fastest) for 256x256,
// 256x512, 256x1024, 512x256, 512x512 with batch 2048 (8 GiB per array for
// 512x512; the batch is halved until input, output and cuFFT's workspace
// fit; the summary and the rows' notes then say so). --quick: 2^20 complex
// values per case (1D n = 256 and 4096, 2D 256x256 and 256x512).
// --input fft:size=NYxNX,batch=B,direction=fwd|inv|both: the user's sizes
// instead (tcore-bench --help lists the keys).
//
// Metrics: bytes = 32 * elements (each element read and written once: the
// minimum; the 2D kernels make two passes), flops = 5 N log2(N) per
// transform of N points (the conventional FFT count; N = nx*ny in 2D).
// Accuracy: inputs are a hash of the element index (generated on the
// device); the first, middle and last transform of the batch are compared
// with a long double CPU FFT of the same values (dft::fft_reference).
// Summary: speedups tc/base and tc/cc per case; the issue's targets are
// tc >= 0.8x cuFFT on the 2D cases and tc >= 1.5x cc.
#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include "fft_kernels.hpp"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace tb = tcore::bench;
using tcore::fft_direction;

void cufft_check(cufftResult r, const char* what)
{
    if (r != CUFFT_SUCCESS) throw tcore::error(std::string("fft workload: ") + what + " failed (cufftResult " + std::to_string(r) + ")");
}

__host__ __device__ inline double2 input_value(unsigned long long i, unsigned long long seed)
{
    return make_double2(tb::hash_unit(2 * i, seed), tb::hash_unit(2 * i + 1, seed));
}

__global__ void init_kernel(double2* a, long long n, unsigned long long seed)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        a[i] = input_value(static_cast<unsigned long long>(i), seed);
}

struct device_array {
    double2* ptr = nullptr;
    explicit device_array(std::size_t n) { TCORE_CHECK(cudaMalloc(&ptr, n * sizeof(double2))); }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
};

struct cufft_handle {
    cufftHandle h = 0;
    bool made = false;
    ~cufft_handle()
    {
        if (made) cufftDestroy(h);
    }
};

std::string fixed(double v, int d)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", d, v);
    return buf;
}

struct fft_case {
    long long nx, ny, batch;  // ny = 1: 1D
};

void run_case(tb::context& ctx, fft_case c, fft_direction dir)
{
    const bool two_d = c.ny > 1;
    const char* dname = dir == fft_direction::forward ? "fwd" : "inv";
    const long long per = c.nx * c.ny;
    const std::string name = two_d ? "2d " + std::to_string(c.ny) + "x" + std::to_string(c.nx) + " " + dname
                                   : "1d N=" + std::to_string(c.nx) + " " + dname;
    if (!ctx.want_case(name) || !ctx.announce_case(name)) return;
    bool any = false;
    for (const char* v : {"base", "tc", "cc", "tc-1pass", "cc-1pass", "tc-2pass", "cc-2pass"})
        any = any || ctx.want_variant(v);
    if (!any) return;
    // fit input, output and cuFFT's workspace (at most one more array) in memory
    std::size_t free_b = 0, total_b = 0;
    TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const long long asked = c.batch;
    while (c.batch > 1 && 3.0 * 16.0 * per * c.batch + (1ull << 30) > static_cast<double>(free_b)) c.batch /= 2;
    if (3.0 * 16.0 * per * c.batch + (1ull << 30) > static_cast<double>(free_b)) {
        std::printf("fft %s: skipped, one transform with cuFFT's workspace does not fit device memory (%.1f GiB "
                    "free)\n", name.c_str(), free_b / 1073741824.0);
        ctx.summary(name + " skipped", "does not fit device memory");
        return;
    }
    if (c.batch != asked) {
        std::printf("fft %s: batch reduced from %lld to %lld to fit device memory (%.1f GiB free)\n", name.c_str(),
                    asked, c.batch, free_b / 1073741824.0);
        ctx.summary(name + " batch", std::to_string(c.batch) + " (reduced from " + std::to_string(asked) +
                                         " to fit device memory)");
    }

    const long long count = per * c.batch;
    const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(double2);
    const unsigned long long seed = 0xff7ull * static_cast<unsigned long long>(per) + (dir == fft_direction::forward ? 1 : 2);
    device_array din(static_cast<std::size_t>(count)), dout(static_cast<std::size_t>(count));
    init_kernel<<<static_cast<unsigned>(std::min<long long>((count + 255) / 256, 65536)), 256, 0, ctx.stream()>>>(
        din.ptr, count, seed);
    TCORE_CHECK_LAUNCH();
    TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));

    // reference: first, middle and last transform
    std::vector<long long> checked = {0, c.batch / 2, c.batch - 1};
    checked.erase(std::unique(checked.begin(), checked.end()), checked.end());
    std::vector<double> ref;  // interleaved re, im of the checked transforms
    for (const long long b : checked) {
        std::vector<std::complex<double>> x(static_cast<std::size_t>(per));
        for (long long i = 0; i < per; ++i) {
            const double2 v = input_value(static_cast<unsigned long long>(b * per + i), seed);
            x[static_cast<std::size_t>(i)] = {v.x, v.y};
        }
        const auto y = tcore::dft::fft_reference(x.data(), c.nx, c.ny, dir);
        for (const auto& v : y) ref.push_back(v.real()), ref.push_back(v.imag());
    }
    auto accuracy_of_output = [&]() {
        std::vector<double> got;
        got.reserve(ref.size());
        std::vector<double2> buf(static_cast<std::size_t>(per));
        for (const long long b : checked) {
            TCORE_CHECK(cudaMemcpy(buf.data(), dout.ptr + b * per, sizeof(double2) * per, cudaMemcpyDeviceToHost));
            for (const double2& v : buf) got.push_back(v.x), got.push_back(v.y);
        }
        return tb::accuracy_of(ref.data(), got.data(), got.size());
    };

    const double n = static_cast<double>(per);
    tb::row_spec spec;
    spec.case_name = name;
    spec.bytes = 32.0 * static_cast<double>(count);
    spec.flops = 5.0 * n * std::log2(n) * static_cast<double>(c.batch);
    spec.ceiling = tb::peak::memory;
    spec.footprint_bytes = 2 * bytes;
    const std::string common = "batch " + std::to_string(c.batch) + "; flops = 5 N log2 N per transform; error on " +
                               std::to_string(checked.size()) + " transforms (first, middle, last) vs long double FFT";
    std::map<std::string, double> median_ms;
    const double2* pin = din.ptr;
    double2* pout = dout.ptr;

    if (ctx.want_variant("base")) {
        cufft_handle plan;
        int dims[2] = {static_cast<int>(c.ny), static_cast<int>(c.nx)};
        if (two_d)
            cufft_check(cufftPlanMany(&plan.h, 2, dims, nullptr, 1, 0, nullptr, 1, 0, CUFFT_Z2Z, static_cast<int>(c.batch)),
                        "cufftPlanMany");
        else
            cufft_check(cufftPlanMany(&plan.h, 1, dims + 1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_Z2Z, static_cast<int>(c.batch)),
                        "cufftPlanMany");
        plan.made = true;
        const int cdir = dir == fft_direction::forward ? CUFFT_FORWARD : CUFFT_INVERSE;
        const cufftHandle h = plan.h;
        auto exec = [=](cudaStream_t s) {
            cufft_check(cufftSetStream(h, s), "cufftSetStream");
            cufft_check(cufftExecZ2Z(h, reinterpret_cast<cufftDoubleComplex*>(const_cast<double2*>(pin)),
                                     reinterpret_cast<cufftDoubleComplex*>(pout), cdir),
                        "cufftExecZ2Z");
        };
        TCORE_CHECK(cudaMemsetAsync(dout.ptr, 0xFF, bytes, ctx.stream()));
        exec(ctx.stream());
        TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
        spec.variant = "base";
        spec.compute = tb::peak::fp64_cc;
        spec.note = "cuFFT Z2Z (plan outside the timed loop); " + common;
        const auto med = ctx.measure(spec, exec, accuracy_of_output());
        if (!med.empty()) median_ms["base"] = med.front();
    }

    const tcore::fft_plan plan(c.nx, c.ny, c.batch);
    // where the size has a one-pass kernel, each backend's other schedule
    // than the plan's default: tc-2pass beside a one-pass tc, tc-1pass
    // beside a two-pass one (cc likewise)
    std::unique_ptr<tcore::fft_plan> one_pass, two_passes;
    if (plan.single_pass_available()) {
        one_pass = std::make_unique<tcore::fft_plan>(c.nx, c.ny, c.batch);
        one_pass->set_single_pass(true);
        two_passes = std::make_unique<tcore::fft_plan>(c.nx, c.ny, c.batch);
        two_passes->set_single_pass(false);
    }
    auto run_tcore = [&](const char* variant, bool tensor, const tcore::fft_plan& plan) {
        if (!ctx.want_variant(variant)) return;
        auto exec = [&plan, pin, pout, dir, tensor](cudaStream_t s) {
            if (tensor) plan.execute<tcore::tensor_core>(pin, pout, dir, s);
            else plan.execute<tcore::cuda_core>(pin, pout, dir, s);
        };
        TCORE_CHECK(cudaMemsetAsync(dout.ptr, 0xFF, bytes, ctx.stream()));
        exec(ctx.stream());
        TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
        spec.variant = variant;
        spec.compute = tensor ? tb::peak::fp64_tc : tb::peak::fp64_cc;
        spec.mma_shape = tensor ? "f64_m16n8k16" : "";  // the split stages' MMA (dft::stage_shape)
        std::string radices;
        for (long long len : {c.nx, c.ny}) {
            if (len <= 1) continue;
            int l = 0;
            while ((1LL << l) < len) ++l;
            if (!radices.empty()) radices += " | ";
            for (int s = 0; s < tcore::dft::stages(l); ++s)
                radices += (s ? "x" : "") + std::to_string(tcore::dft::radix(l, s));
        }
        spec.note = std::string(tensor ? "f64 m16n8k16 tensor cores" : "tc's kernels on the cuda_core backend") +
                    ", radices " + radices + ", " +
                    (c.ny == 1 ? std::string("1 pass")
                     : (tensor ? plan.single_pass<tcore::tensor_core>() : plan.single_pass<tcore::cuda_core>())
                         ? std::string("1 pass (a thread-block cluster holds an image)")
                         : std::string("2 passes")) +
                    "; " + common;
        const auto med = ctx.measure(spec, exec, accuracy_of_output());
        if (!med.empty()) median_ms[variant] = med.front();
    };
    run_tcore("tc", true, plan);
    run_tcore("cc", false, plan);
    const std::string tc_other = plan.single_pass<tcore::tensor_core>() ? "tc-2pass" : "tc-1pass";
    const std::string cc_other = plan.single_pass<tcore::cuda_core>() ? "cc-2pass" : "cc-1pass";
    if (one_pass) {
        run_tcore(tc_other.c_str(), true, tc_other == "tc-1pass" ? *one_pass : *two_passes);
        run_tcore(cc_other.c_str(), false, cc_other == "cc-1pass" ? *one_pass : *two_passes);
    }

    auto ratio = [&](const char* a, const char* b, const char* target) {
        const auto ia = median_ms.find(a), ib = median_ms.find(b);
        if (ia == median_ms.end() || ib == median_ms.end() || ia->second <= 0) return;
        ctx.summary(name + " speedup " + b + "->" + a, fixed(ib->second / ia->second, 2) + "x" + target);
    };
    ratio("tc", "base", two_d ? " (target >= 0.80x)" : "");
    ratio("tc", "cc", " (target >= 1.50x)");
    ratio("tc", tc_other.c_str(), "");
}

/// The transform sizes of an --input fft:size=... value: NX (1D) or NYxNX
/// (2D), each a power of two fft_plan supports; "" or what is wrong.
std::string input_case(const tb::user_input& in, fft_case& c, std::vector<fft_direction>& dirs)
{
    std::vector<long long> n;
    if (!tb::parse_extents(in.get("size"), 1LL << 20, n) || n.size() > 2)
        return "size: NX or NYxNX expected (e.g. 4096 or 512x512)";
    c.nx = n.back();
    c.ny = n.size() == 2 ? n.front() : 1;
    for (long long len : n)
        if ((len & (len - 1)) != 0 || len < 64 || len > 4096) return "size: powers of two from 64 to 4096 expected";
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
        try {
            const tcore::fft_plan probe(c.nx, c.ny, 1);  // the plan's own checks (2D: nx a multiple of 2048 / ny)
        } catch (const tcore::error& e) {
            return e.what();
        }
    }
    cudaGetLastError();
    const std::string batch = in.get("batch", "");
    c.batch = std::max(1LL, (1LL << 26) / (c.nx * c.ny));
    if (!batch.empty() && !tb::parse_whole(batch, 1, 1LL << 40, c.batch)) return "batch: a whole number >= 1 expected";
    const std::string dir = in.get("direction", "both");
    if (dir != "fwd" && dir != "inv" && dir != "both") return "direction: fwd, inv or both expected";
    dirs.clear();
    if (dir != "inv") dirs.push_back(fft_direction::forward);
    if (dir != "fwd") dirs.push_back(fft_direction::inverse);
    return "";
}

void run(tb::context& ctx)
{
    if (const std::vector<tb::user_input> inputs = ctx.inputs(); !inputs.empty()) {
        for (const tb::user_input& in : inputs) {
            fft_case c{};
            std::vector<fft_direction> dirs;
            if (const std::string problem = input_case(in, c, dirs); !problem.empty()) throw tcore::error("fft --input: " + problem);
            for (const fft_direction d : dirs) run_case(ctx, c, d);
        }
        return;
    }
    std::vector<fft_case> cases;
    const long long total = ctx.quick() ? (1LL << 20) : (1LL << 26);
    for (long long n : ctx.quick() ? std::vector<long long>{256, 4096} : std::vector<long long>{256, 512, 1024, 2048, 4096})
        cases.push_back({n, 1, total / n});
    const std::vector<std::pair<long long, long long>> shapes2d =
        ctx.quick() ? std::vector<std::pair<long long, long long>>{{256, 256}, {256, 512}}
                    : std::vector<std::pair<long long, long long>>{{256, 256}, {256, 512}, {256, 1024}, {512, 256}, {512, 512}};
    for (const auto& [ny, nx] : shapes2d) cases.push_back({nx, ny, ctx.quick() ? total / (nx * ny) : 2048});
    for (const fft_case& c : cases)
        for (const fft_direction d : {fft_direction::forward, fft_direction::inverse}) run_case(ctx, c, d);
}

}  // namespace

void tcore_register_fft(tcore::bench::registry& r)
{
    tb::workload w{"fft",
                   "batched complex FP64 FFT, 1D 256..4096 and 2D (batch 2048): DFT matrices on the FP64 MMA (tc, cc) "
                   "vs cuFFT Z2Z (base)",
                   run};
    w.input_keys = {{"size", "NX (1D) or NYxNX (2D): powers of two from 64 to 4096 (e.g. 512x512)"},
                    {"batch", "transforms per call (default 2^26 / (NX NY), at least 1)"},
                    {"direction", "fwd, inv or both (default both)"}};
    w.check_input = [](const tb::user_input& in) {
        if (in.get("size").empty()) return std::string("size is required (e.g. size=512x512)");
        fft_case c{};
        std::vector<fft_direction> dirs;
        return input_case(in, c, dirs);
    };
    r.add(w);
}
