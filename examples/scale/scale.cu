// examples/scale/scale.cu - the SCALE workload: a = q*b in FP64.
//
// Memory-bound (16 bytes moved per multiply, operational intensity 1/16);
// Quadrant III in spirit: the MMA's B operand is the constant qI. Variants:
//   base        CUDA-core STREAM scale, double2 loads, grid-stride
//   tc          A = B*(qI) on f64 m16n8k8 (one MMA per 16x8 tile: every A,
//               B and D element is used, fewest MMAs per byte)
//   tc-m16n8k4  the same on m16n8k4 (two MMAs per 16x8 tile)
//   tc-m8n8k4   the same on m8n8k4 (the Cubie study's shape)
//   cc, cc-m8n8k4
//               the tc / tc-m8n8k4 kernel with the cuda_core backend
// Sizes run from well inside L2 to 4 GiB of data (b and a together). The
// summary gives the geometric mean of the cc-over-tc time ratio (the tensor
// core's speedup) for footprints below and above half of L2; in-L2 sizes
// use the hot measurement.
#include "harness/harness.hpp"
#include "harness/inputs.hpp"
#include "scale_base.cuh"

#include <tcore/tcore.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

namespace tb = tcore::bench;
namespace sc = tcore::examples::scale;

using launch_fn = void (*)(const double*, double*, double, long long, cudaStream_t);

struct variant {
    const char* name;
    launch_fn launch;
    tb::peak compute;
    const char* note;
};

void run_base(const double* b, double* a, double q, long long n, cudaStream_t s) { sc::scale_base(b, a, q, n, s); }

const variant variants[] = {
    {"base", run_base, tb::peak::fp64_cc, "double2 grid-stride, CUDA cores"},
    {"tc", tcore::scale_mma<tcore::f64_m16n8k8, tcore::tensor_core>, tb::peak::fp64_tc,
     "A = B*(qI), f64 m16n8k8, qI generated in registers"},
    {"tc-m16n8k4", tcore::scale_mma<tcore::f64_m16n8k4, tcore::tensor_core>, tb::peak::fp64_tc,
     "A = B*(qI), f64 m16n8k4 (2 MMAs per 16x8 tile)"},
    {"tc-m8n8k4", tcore::scale_mma<tcore::f64_m8n8k4, tcore::tensor_core>, tb::peak::fp64_tc,
     "A = B*(qI), f64 m8n8k4 (2 MMAs per 8x8 tile)"},
    {"cc", tcore::scale_mma<tcore::f64_m16n8k8, tcore::cuda_core>, tb::peak::fp64_cc,
     "tc's kernel (m16n8k8 layout) on the cuda_core backend"},
    {"cc-m8n8k4", tcore::scale_mma<tcore::f64_m8n8k4, tcore::cuda_core>, tb::peak::fp64_cc,
     "tc-m8n8k4's kernel on the cuda_core backend"},
};

/// cudaMalloc'd doubles, freed on scope exit.
struct device_array {
    double* ptr = nullptr;
    explicit device_array(std::size_t n) { TCORE_CHECK(cudaMalloc(&ptr, n * sizeof(double))); }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
};

std::string mib(double bytes)
{
    char buf[64];
    if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.3g GiB", bytes / (1024.0 * 1024 * 1024));
    else std::snprintf(buf, sizeof buf, "%.3g MiB", bytes / (1024.0 * 1024));
    return buf;
}

std::string case_name(long long n)
{
    if (n > 0 && (n & (n - 1)) == 0) {
        int k = 0;
        while ((1LL << k) < n) ++k;
        return "n=2^" + std::to_string(k);
    }
    return "n=" + std::to_string(n);
}

void run(tb::context& ctx)
{
    std::vector<long long> sizes;
    if (ctx.quick()) {
        sizes = {1000003, (1LL << 22) + 5};
    } else {
        for (int k = 18; k <= 28; ++k) sizes.push_back(1LL << k);  // 4 MiB .. 4 GiB of data
        sizes.push_back(10000003);                                 // not a multiple of any tile
    }
    const double q = -1.3;  // any q: every variant rounds q*b once

    // median (hot first) per (variant, n), and each n's footprint
    std::map<std::string, std::map<long long, double>> times;
    std::map<long long, std::size_t> footprint;

    for (const long long n : sizes) {
        const std::string name = case_name(n);
        if (!ctx.want_case(name) || !ctx.announce_case(name)) continue;
        bool any = false;
        for (const variant& v : variants) any = any || ctx.want_variant(v.name);
        if (!any) continue;

        const std::size_t bytes = 16 * static_cast<std::size_t>(n);
        std::size_t free_b = 0, total_b = 0;
        TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (bytes + (64u << 20) > free_b) {
            std::printf("scale %s: skipped, needs %s of device memory, %s free\n", name.c_str(),
                        mib(bytes).c_str(), mib(free_b).c_str());
            continue;
        }
        footprint[n] = bytes;

        const std::vector<double> b = tb::random_uniform(static_cast<std::size_t>(n), 0x5ca1e000ull + n, -1.0, 1.0);
        std::vector<double> ref(b.size()), got(b.size());
        for (std::size_t i = 0; i < b.size(); ++i) ref[i] = q * b[i];  // the FP64 CPU reference

        device_array db(b.size()), da(b.size());
        TCORE_CHECK(cudaMemcpy(db.ptr, b.data(), b.size() * sizeof(double), cudaMemcpyHostToDevice));

        for (const variant& v : variants) {
            if (!ctx.want_variant(v.name)) continue;
            // Correctness run on a poisoned output (0xFF bytes: NaN).
            TCORE_CHECK(cudaMemsetAsync(da.ptr, 0xFF, b.size() * sizeof(double), ctx.stream()));
            v.launch(db.ptr, da.ptr, q, n, ctx.stream());
            TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
            TCORE_CHECK(cudaMemcpy(got.data(), da.ptr, b.size() * sizeof(double), cudaMemcpyDeviceToHost));
            const tb::accuracy err = tb::accuracy_of(ref.data(), got.data(), got.size());

            tb::row_spec spec;
            spec.case_name = name;
            spec.variant = v.name;
            spec.bytes = static_cast<double>(bytes);
            spec.flops = static_cast<double>(n);
            spec.ceiling = tb::peak::memory;
            spec.compute = v.compute; spec.mma_shape = tb::tc_shape_of(v.name, "m16n8k8");
            spec.footprint_bytes = bytes;
            spec.note = std::string(v.note) + "; footprint " + mib(static_cast<double>(bytes));
            const double* pb = db.ptr;
            double* pa = da.ptr;
            const launch_fn launch = v.launch;
            const std::vector<double> med =
                ctx.measure(spec, [=](cudaStream_t s) { launch(pb, pa, q, n, s); }, err);
            if (!med.empty()) times[v.name][n] = med.front();
        }
    }

    if (times.empty()) return;  // --list, or everything filtered out
    std::size_t l2 = ctx.ceil().l2_bytes;
    if (l2 == 0) {
        int dev = 0, bytes = 0;
        TCORE_CHECK(cudaGetDevice(&dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, dev));
        l2 = static_cast<std::size_t>(bytes);
    }

    // Geometric mean of t(cc)/t(tc) below and above half of L2.
    auto ratio_summary = [&](const char* cc, const char* tc) {
        std::vector<double> below, above;
        for (const auto& [n, t_tc] : times[tc]) {
            const auto it = times[cc].find(n);
            if (it == times[cc].end() || t_tc <= 0) continue;
            (footprint[n] < l2 / 2 ? below : above).push_back(it->second / t_tc);
        }
        const std::string what = std::string("geomean t(") + cc + ")/t(" + tc + ")";
        if (!below.empty())
            ctx.summary(what + ", footprint < L2/2 (" + mib(l2 / 2.0) + ", " + std::to_string(below.size()) +
                            " sizes, hot)",
                        tb::fixed3(tb::geomean(below)));
        if (!above.empty())
            ctx.summary(what + ", footprint >= L2/2 (" + std::to_string(above.size()) + " sizes)",
                        tb::fixed3(tb::geomean(above)));
    };
    ratio_summary("cc", "tc");
    ratio_summary("cc-m8n8k4", "tc-m8n8k4");
    ratio_summary("base", "tc");
}

}  // namespace

void tcore_register_scale(tcore::bench::registry& r)
{
    r.add({"scale", "a = q*b in FP64 (memory-bound): CUDA-core stream vs A = B*(qI) on the FP64 MMA", run});
}
