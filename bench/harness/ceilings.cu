// bench/harness/ceilings.cu - measuring and caching the device's ceilings:
// device-to-device copy bandwidth (bytes read + written; the better of
// cudaMemcpyAsync and a copy kernel) and the MMA / FMA peaks with the
// mma_peak kernels (every FP64 shape, TF32 m16n8k8, FP16 m16n8k16 with
// FP32 and with FP16 accumulation, b1 m8n8k128), each timed as the median
// of event-timed repetitions after a short warm-up. A cache file without
// one of the values (an older one) is stale: measured again.
#include "harness/ceilings.hpp"
#include "harness/report.hpp"
#include "harness/timing.hpp"
#include "mma_peak/mma_peak.cuh"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace tcore::bench {

void query_device(ceilings& c, int device)
{
    cudaDeviceProp prop{};
    TCORE_CHECK(cudaGetDeviceProperties(&prop, device));
    c.device_name = prop.name;
    c.sm_count = prop.multiProcessorCount;
    c.compute_capability = 10 * prop.major + prop.minor;
    c.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    c.global_mem_bytes = prop.totalGlobalMem;
}

ceilings nominal_device()
{
    ceilings c;
    c.device_name = "none (nominal H100/H200 sizes)";
    c.sm_count = 132;
    c.compute_capability = 90;
    c.l2_bytes = std::size_t(50) << 20;
    c.global_mem_bytes = std::size_t(80) << 30;
    return c;
}

std::string ceilings_path(const std::string& dir, const std::string& device_name)
{
    std::string name;
    for (char ch : device_name) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return (std::filesystem::path(dir) / ("ceilings-" + name + ".json")).string();
}

bool load_ceilings(const std::string& path, ceilings& c)
{
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    std::stringstream text;
    text << f.rdbuf();
    std::map<std::string, std::string> kv;
    if (!parse_flat_json(text.str(), kv)) return false;
    if (kv["device_name"] != c.device_name || kv["driver_version"] != c.driver_version ||
        kv["runtime_version"] != c.runtime_version)
        return false;
    auto number = [&](const char* key, double& out) {
        const auto it = kv.find(key);
        if (it == kv.end()) return false;
        char* end = nullptr;
        out = std::strtod(it->second.c_str(), &end);
        return end && *end == '\0' && out > 0;
    };
    ceilings m = c;
    const bool ok = number("copy_gbs", m.copy_gbs) && number("fp64_cc_tflops", m.fp64_cc_tflops) &&
                    number("fp32_cc_tflops", m.fp32_cc_tflops) && number("fp64_tc_tflops", m.fp64_tc_tflops) &&
                    number("fp64_m8n8k4_tflops", m.fp64_m8n8k4_tflops) &&
                    number("fp64_m16n8k4_tflops", m.fp64_m16n8k4_tflops) &&
                    number("fp64_m16n8k8_tflops", m.fp64_m16n8k8_tflops) &&
                    number("fp64_m16n8k16_tflops", m.fp64_m16n8k16_tflops) &&
                    number("tf32_tc_tflops", m.tf32_tc_tflops) && number("fp16_tc_tflops", m.fp16_tc_tflops) &&
                    number("fp16_f16acc_tc_tflops", m.fp16_f16acc_tc_tflops) && number("b1_tc_tops", m.b1_tc_tops);
    if (!ok) return false;
    m.fp64_tc_shape = kv["fp64_tc_shape"];
    c = m;
    return true;
}

bool save_ceilings(const std::string& path, const ceilings& c)
{
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << ceilings_json(c) << '\n';
    f.close();
    return static_cast<bool>(f);
}

namespace {

__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
        dst[i] = src[i];
}

/// Median ms of `launch` after `warm_s` of warm-up (long kernels: >= 10 reps).
double median_ms(cudaStream_t s, const launch_fn& launch, double warm_s)
{
    const warmup_result w = warm_up(s, launch, warm_s);
    rep_policy p;
    p.min_time_s = 0.1;
    p.min_reps = 10;
    p.max_time_s = 2;
    return time_repetitions(s, launch, repetitions_for(w.per_launch_s, p), {}, false).median_ms;
}

double copy_bandwidth_gbs(cudaStream_t s, int sm_count)
{
    std::size_t free_bytes = 0, total_bytes = 0;
    TCORE_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t bytes = std::min<std::size_t>(std::size_t(1) << 30, free_bytes / 4) / 4096 * 4096;
    require(bytes >= (std::size_t(16) << 20), "measure_ceilings", "too little free device memory for the copy test");
    auto src = mma_peak::device_alloc(bytes), dst = mma_peak::device_alloc(bytes);
    TCORE_CHECK(cudaMemsetAsync(src.get(), 1, bytes, s));
    const std::size_t n = bytes / sizeof(uint4);
    const int grid = sm_count * 16;
    const launch_fn by_kernel = [&](cudaStream_t st) {
        copy_kernel<<<grid, 256, 0, st>>>(static_cast<const uint4*>(src.get()), static_cast<uint4*>(dst.get()), n);
    };
    const launch_fn by_memcpy = [&](cudaStream_t st) {
        TCORE_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, st));
    };
    const double ms = std::min(median_ms(s, by_kernel, 0.5), median_ms(s, by_memcpy, 0.2));
    return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

double tflops_of(cudaStream_t s, const mma_peak::launcher& l)
{
    const double ms = median_ms(s, [&l](cudaStream_t st) { l(st); }, 0.2);
    return l.flops() / (ms * 1e-3) / 1e12;
}

template <class Shape>
double mma_tflops(cudaStream_t s, int sm_count)
{
    return tflops_of(s, mma_peak::make_mma<Shape, tensor_core>(sm_count, s, 2.0));
}

void report(const char* what, double value, const char* unit)
{
    std::printf("  %-22s %.4g %s\n", what, value, unit);
    std::fflush(stdout);
}

struct stream_guard {
    cudaStream_t s = nullptr;
    stream_guard() { TCORE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~stream_guard() { cudaStreamDestroy(s); }
    stream_guard(const stream_guard&) = delete;
    stream_guard& operator=(const stream_guard&) = delete;
};

}  // namespace

void measure_ceilings(ceilings& c)
{
    stream_guard g;
    const cudaStream_t s = g.s;
    std::printf("ceilings: measuring on %s (a few seconds)\n", c.device_name.c_str());
    c.copy_gbs = copy_bandwidth_gbs(s, c.sm_count);
    report("copy bandwidth", c.copy_gbs, "GB/s");

    c.fp64_m8n8k4_tflops = mma_tflops<f64_m8n8k4>(s, c.sm_count);
    report("FP64 TC m8n8k4", c.fp64_m8n8k4_tflops, "TFLOP/s");
    c.fp64_tc_tflops = c.fp64_m8n8k4_tflops;
    c.fp64_tc_shape = f64_m8n8k4::name();
    auto consider = [&](double& tflops, double measured, const char* shape) {
        tflops = measured;
        report((std::string("FP64 TC ") + shape).c_str(), tflops, "TFLOP/s");
        if (tflops > c.fp64_tc_tflops) {
            c.fp64_tc_tflops = tflops;
            c.fp64_tc_shape = shape;
        }
    };
    consider(c.fp64_m16n8k4_tflops, mma_tflops<f64_m16n8k4>(s, c.sm_count), f64_m16n8k4::name());
    consider(c.fp64_m16n8k8_tflops, mma_tflops<f64_m16n8k8>(s, c.sm_count), f64_m16n8k8::name());
    consider(c.fp64_m16n8k16_tflops, mma_tflops<f64_m16n8k16>(s, c.sm_count), f64_m16n8k16::name());

    c.fp64_cc_tflops = tflops_of(s, mma_peak::make_fma<double>(c.sm_count, s, 2.0));
    report("FP64 FMA", c.fp64_cc_tflops, "TFLOP/s");
    c.fp32_cc_tflops = tflops_of(s, mma_peak::make_fma<float>(c.sm_count, s, 2.0));
    report("FP32 FMA", c.fp32_cc_tflops, "TFLOP/s");
    c.tf32_tc_tflops = mma_tflops<tf32_m16n8k8>(s, c.sm_count);
    report("TF32 TC m16n8k8", c.tf32_tc_tflops, "TFLOP/s");
    c.fp16_tc_tflops = mma_tflops<f16_m16n8k16_f32acc>(s, c.sm_count);
    report("FP16 TC m16n8k16", c.fp16_tc_tflops, "TFLOP/s");
    c.fp16_f16acc_tc_tflops = mma_tflops<f16_m16n8k16_f16acc>(s, c.sm_count);
    report("FP16 TC m16n8k16 f16acc", c.fp16_f16acc_tc_tflops, "TFLOP/s");
    c.b1_tc_tops = mma_tflops<b1_m8n8k128>(s, c.sm_count);
    report("b1 TC m8n8k128", c.b1_tc_tops, "Tops");
}

ceilings obtain_ceilings(const options& opts, const std::string& cache_dir, const std::string& driver_version,
                         const std::string& runtime_version)
{
    ceilings c;
    query_device(c, opts.device);
    c.driver_version = driver_version;
    c.runtime_version = runtime_version;
    const std::string path = ceilings_path(cache_dir, c.device_name);
    if (!opts.remeasure_ceilings && load_ceilings(path, c)) {
        std::printf("ceilings: cached in %s (--remeasure-ceilings measures them again)\n", path.c_str());
        return c;
    }
    measure_ceilings(c);
    if (save_ceilings(path, c)) std::printf("ceilings: saved to %s\n", path.c_str());
    else std::printf("ceilings: could not write %s (measured again next run)\n", path.c_str());
    return c;
}

}  // namespace tcore::bench
