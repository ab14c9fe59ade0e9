// examples/reduce/reduce.cu - the Reduction workload (Quadrant III): sums by
// MMA against a constant row of ones (include/tcore/patterns/reduce.cuh,
// launchers in include/tcore/patterns/device/reduce.cuh).
//
// Cases
//   seg=64 .. seg=1024   FP64 sums of consecutive segments over 2^27 elements (1 GiB)
//   f64 n=2^28           FP64 device-wide sum (2 GiB)
//   f64 n=10000003       not a multiple of any tile
//   f16 n=2^28           FP16 input, FP32 sum (512 MiB)
// Variants
//   base        segments of 64 and 128: cub::WarpReduce, a logical warp of 8
//               (16) threads per segment, 32 (16) segments per 256-thread
//               block, 16-byte loads; longer segments: cub::BlockReduce, one
//               128-thread block per segment; device-wide:
//               cub::DeviceReduce::Sum (FP16: DeviceReduce::Reduce with an
//               FP32 accumulator)
//   base-block  segments of 64 and 128 only: cub::BlockReduce, one block of
//               64 (128) threads per segment, one scalar load per thread
//               (the former base, kept for comparison)
//   base-dsr    segments: cub::DeviceSegmentedReduce::Sum (offsets array)
//   tc          ones-row MMA on f64 m16n8k16 (FP16: f16 m16n8k16, FP32 accumulation)
//   tc-m8n8k4   the same on f64 m8n8k4 (the Cubie study's shape)
//   cc, cc-m8n8k4  the tc kernels on the cuda_core backend
//   cce         the same loads added on CUDA cores, shuffle trees (reduce_cce.cuh)
// Accuracy is against an FP64 CPU reference (accumulated in long double).
// Summaries per case: time ratios t(x)/t(tc) for every opponent and cc, and
// the headline t(best opponent)/t(tc), the best of the base variants and cce
// (named in the value).
// --input reduce:n=N,segment=S,type=f64|f16: the user's sizes instead (cases
// "seg=S n=N", "f64 n=N", "f16 n=N"; tcore-bench --help lists the keys).
// Segments of any length run tc, cc, cce and base-dsr; base and base-block
// are compiled for segments of 64, 128, 256, 512 and 1024 only, and FP16
// for device-wide sums only.
#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include "reduce_cce.cuh"

#include <tcore/patterns/device/reduce.cuh>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace {

namespace tb = tcore::bench;

using tb::device_array;

bool fits(std::size_t bytes, const std::string& name)
{
    std::size_t free_b = 0, total_b = 0;
    TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes + (256u << 20) <= free_b) return true;
    std::printf("reduce %s: skipped, needs %.2f GB of device memory\n", name.c_str(), bytes / 1e9);
    return false;
}

// -- CUB baselines ----------------------------------------------------------------

/// One block per segment of Threads * Items elements: striped loads, BlockReduce.
template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_block_segments(const double* in, double* out)
{
    using block_reduce = cub::BlockReduce<double, Threads>;
    __shared__ typename block_reduce::TempStorage tmp;
    double v[Items];
    cub::LoadDirectStriped<Threads>(threadIdx.x, in + static_cast<long long>(blockIdx.x) * Threads * Items, v);
    const double s = block_reduce(tmp).Sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

/// Threads / Lanes segments per block, a logical warp of Lanes threads per
/// segment of Lanes * 2 * Pairs doubles (16-byte aligned). Lane t of a logical
/// warp loads double2 number t + Lanes * j (j < Pairs) of its segment: each
/// load instruction reads whole 128-byte runs and every lane has Pairs
/// 16-byte loads in flight; cub::WarpReduce (shuffles) adds the lanes' sums.
/// Logical warps past the last segment add zeros and store nothing.
template <int Lanes, int Pairs, int Threads>
__global__ void __launch_bounds__(Threads)
    cub_warp_segments(const double* __restrict__ in, double* __restrict__ out, long long segments)
{
    static_assert(Threads % 32 == 0 && 32 % Lanes == 0, "logical warps tile the block's warps");
    using warp_reduce = cub::WarpReduce<double, Lanes>;
    constexpr int per_block = Threads / Lanes;
    constexpr int seg = Lanes * 2 * Pairs;
    __shared__ typename warp_reduce::TempStorage tmp[per_block];
    const int group = static_cast<int>(threadIdx.x) / Lanes, lane = static_cast<int>(threadIdx.x) % Lanes;
    const long long s = static_cast<long long>(blockIdx.x) * per_block + group;
    double sum = 0;
    if (s < segments) {
        const double2* p = reinterpret_cast<const double2*>(in + s * seg) + lane;
        double2 v[Pairs];
#pragma unroll
        for (int j = 0; j < Pairs; ++j) v[j] = p[j * Lanes];
#pragma unroll
        for (int j = 0; j < Pairs; ++j) sum += v[j].x + v[j].y;
    }
    sum = warp_reduce(tmp[group]).Sum(sum);
    if (lane == 0 && s < segments) out[s] = sum;
}

template <int Lanes, int Pairs>
void launch_warp_segments(const double* in, double* out, long long segments, cudaStream_t s)
{
    constexpr int threads = 256, per_block = threads / Lanes;
    const long long grid = (segments + per_block - 1) / per_block;
    tcore::require(grid <= 0x7fffffffLL, "cub_segments", "too many segments for one grid");
    cub_warp_segments<Lanes, Pairs, threads><<<static_cast<unsigned>(grid), threads, 0, s>>>(in, out, segments);
}

/// The block-per-segment form for every length (the base-block variant).
void cub_block_per_segment(const double* in, double* out, long long segments, int seg, cudaStream_t s)
{
    const unsigned grid = static_cast<unsigned>(segments);
    switch (seg) {
    case 64: cub_block_segments<64, 1><<<grid, 64, 0, s>>>(in, out); break;
    case 128: cub_block_segments<128, 1><<<grid, 128, 0, s>>>(in, out); break;
    case 256: cub_block_segments<128, 2><<<grid, 128, 0, s>>>(in, out); break;
    case 512: cub_block_segments<128, 4><<<grid, 128, 0, s>>>(in, out); break;
    case 1024: cub_block_segments<128, 8><<<grid, 128, 0, s>>>(in, out); break;
    default: tcore::require(false, "cub_segments", "unsupported segment size " + std::to_string(seg));
    }
    TCORE_CHECK_LAUNCH();
}

/// The base variant: logical warps for segments of 64 and 128 (a 64-thread
/// block per segment with one 8-byte load per thread keeps too few bytes in
/// flight per SM to reach the DRAM roof), a block per segment from 256 up
/// (already at the copy bandwidth there).
void cub_segments(const double* in, double* out, long long segments, int seg, cudaStream_t s)
{
    tcore::require(tcore::aligned(in, 16), "cub_segments", "input is not 16-byte aligned");
    switch (seg) {
    case 64: launch_warp_segments<8, 4>(in, out, segments, s); break;
    case 128: launch_warp_segments<16, 4>(in, out, segments, s); break;
    default: cub_block_per_segment(in, out, segments, seg, s); return;
    }
    TCORE_CHECK_LAUNCH();
}

/// FP32 sum of FP16 inputs for CUB (the accumulator type follows from
/// op(float init, __half input) = float).
struct sum_as_float {
    __host__ __device__ float operator()(float a, float b) const { return a + b; }
    __host__ __device__ float operator()(float a, __half b) const { return a + __half2float(b); }
};

__global__ void fill_offsets(long long* off, long long count, long long seg)
{
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i <= count) off[i] = i * seg;
}

// -- bookkeeping --------------------------------------------------------------------

/// True if the filters select at least one of `names` (else the case is not prepared).
bool any_wanted(const tb::context& ctx, std::initializer_list<const char*> names)
{
    for (const char* n : names)
        if (ctx.want_variant(n)) return true;
    return false;
}

struct variant {
    std::string name;
    tb::peak compute;
    std::string note;
    std::function<void(cudaStream_t)> launch;
};

/// Runs each variant once (checked against `ref`), then measures it.
template <class S>
void run_variants(tb::context& ctx, const std::string& case_name, const std::vector<variant>& variants, S* d_out,
                  const std::vector<double>& ref, double bytes, double flops, std::size_t footprint,
                  std::map<std::string, double>& times)
{
    std::vector<S> got(ref.size());
    std::vector<double> got_d(ref.size());
    for (const variant& v : variants) {
        if (!ctx.want_variant(v.name)) continue;
        TCORE_CHECK(cudaMemsetAsync(d_out, 0xFF, ref.size() * sizeof(S), ctx.stream()));  // NaN
        v.launch(ctx.stream());
        TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
        TCORE_CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(S), cudaMemcpyDeviceToHost));
        for (std::size_t i = 0; i < got.size(); ++i) got_d[i] = static_cast<double>(got[i]);
        const tb::accuracy err = tb::accuracy_of(ref.data(), got_d.data(), got_d.size());
        tb::row_spec spec;
        spec.case_name = case_name;
        spec.variant = v.name;
        spec.bytes = bytes;
        spec.flops = flops;
        spec.ceiling = tb::peak::memory;
        spec.compute = v.compute;
        spec.footprint_bytes = footprint;
        spec.note = v.note;
        const std::vector<double> med = ctx.measure(spec, v.launch, err);
        if (!med.empty()) times[v.name] = med.front();
    }
}


/// The variants each case's summary compares with tc (tb::summarize_against_tc).
const std::initializer_list<const char*> opponents = {"base", "base-block", "base-dsr", "cc", "cce"};

// -- cases ------------------------------------------------------------------------------

/// The segment lengths the CUB base and base-block kernels are compiled for.
bool cub_segment_compiled(long long seg)
{
    return seg == 64 || seg == 128 || seg == 256 || seg == 512 || seg == 1024;
}

/// Sums of consecutive segments of `seg` elements over n elements (n a
/// multiple of seg). base and base-block run where cub_segment_compiled(seg).
void run_segment_case(tb::context& ctx, const std::string& name, long long n, long long seg)
{
    if (!ctx.announce_case(name)) return;
    if (!any_wanted(ctx, {"base", "base-block", "base-dsr", "tc", "tc-m8n8k4", "cc", "cc-m8n8k4", "cce"})) return;
    const long long count = n / seg;
    if (!fits(n * sizeof(double) + count * 24, name)) return;
    const bool cub_compiled = cub_segment_compiled(seg);
    if (!cub_compiled)
        std::printf("reduce %s: base and base-block are compiled for segments of 64, 128, 256, 512 and 1024 "
                    "only; base-dsr is the CUB baseline here\n", name.c_str());
    const std::vector<double> h = tb::random_uniform(static_cast<std::size_t>(n), 0x5e6000ull + seg);
    std::vector<double> ref(static_cast<std::size_t>(count));
    for (long long s = 0; s < count; ++s) {
        long double acc = 0;
        for (long long i = 0; i < seg; ++i) acc += h[s * seg + i];
        ref[s] = static_cast<double>(acc);
    }
    device_array<double> in(h.size()), out(ref.size());
    device_array<long long> offsets(static_cast<std::size_t>(count) + 1);
    TCORE_CHECK(cudaMemcpy(in.ptr, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice));
    fill_offsets<<<static_cast<unsigned>((count + 256) / 256), 256>>>(offsets.ptr, count, seg);
    TCORE_CHECK_LAUNCH();
    std::size_t dsr_bytes = 0;
    TCORE_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, dsr_bytes, in.ptr, out.ptr, count, offsets.ptr,
                                                offsets.ptr + 1));
    device_array<char> dsr_temp(dsr_bytes);

    const double* pi = in.ptr;
    double* po = out.ptr;
    const long long* off = offsets.ptr;
    void* dt = dsr_temp.ptr;
    using namespace tcore;
    const bool warp_base = seg <= 128;
    const int cub_seg = static_cast<int>(seg);
    std::vector<variant> variants = {
        {"base", tb::peak::fp64_cc,
         warp_base ? "cub::WarpReduce, " + std::to_string(seg / 8) + "-thread logical warps, 16-byte loads"
                   : std::string("cub::BlockReduce, a block per segment"),
         [=](cudaStream_t s) { cub_segments(pi, po, count, cub_seg, s); }},
        {"base-block", tb::peak::fp64_cc, "cub::BlockReduce, a block per segment, scalar loads",
         [=](cudaStream_t s) { cub_block_per_segment(pi, po, count, cub_seg, s); }},
        {"base-dsr", tb::peak::fp64_cc, "cub::DeviceSegmentedReduce::Sum",
         [=](cudaStream_t s) {
             std::size_t b = dsr_bytes;
             TCORE_CHECK(cub::DeviceSegmentedReduce::Sum(dt, b, pi, po, count, off, off + 1, s));
         }},
        {"tc", tb::peak::fp64_tc, "ones-row MMA, f64 m16n8k16",
         [=](cudaStream_t s) { tcore::reduce_segments<tensor_core, f64_m16n8k16>(pi, po, count, seg, s); }},
        {"tc-m8n8k4", tb::peak::fp64_tc, "ones-row MMA, f64 m8n8k4",
         [=](cudaStream_t s) { tcore::reduce_segments<tensor_core, f64_m8n8k4>(pi, po, count, seg, s); }},
        {"cc", tb::peak::fp64_cc, "tc's kernel on the cuda_core backend",
         [=](cudaStream_t s) { tcore::reduce_segments<cuda_core, f64_m16n8k16>(pi, po, count, seg, s); }},
        {"cc-m8n8k4", tb::peak::fp64_cc, "tc-m8n8k4's kernel on the cuda_core backend",
         [=](cudaStream_t s) { tcore::reduce_segments<cuda_core, f64_m8n8k4>(pi, po, count, seg, s); }},
        {"cce", tb::peak::fp64_cc, "same loads, CUDA-core adds and shuffle tree",
         [=](cudaStream_t s) { tcore::examples::reduce::reduce_segments_cce<double>(pi, po, count, seg, s); }},
    };
    if (!cub_compiled) variants.erase(variants.begin(), variants.begin() + 2);
    else if (!warp_base) variants.erase(variants.begin() + 1);  // base-block is base from 256 up
    std::map<std::string, double> times;
    const double bytes = static_cast<double>(n + count) * sizeof(double);
    run_variants(ctx, name, variants, out.ptr, ref, bytes, static_cast<double>(n - count),
                 static_cast<std::size_t>(bytes), times);
    tb::summarize_against_tc(ctx, name, times, opponents);
}

void run_segments(tb::context& ctx)
{
    const long long n = ctx.quick() ? (1LL << 22) : (1LL << 27);
    for (int seg : {64, 128, 256, 512, 1024}) run_segment_case(ctx, "seg=" + std::to_string(seg), n, seg);
}

void run_device_f64(tb::context& ctx, long long n)
{
    const std::string name = "f64 n=" + tb::pow2_name(n);
    if (!ctx.announce_case(name)) return;
    if (!any_wanted(ctx, {"base", "tc", "tc-m8n8k4", "cc", "cc-m8n8k4", "cce"})) return;
    if (!fits(n * sizeof(double), name)) return;
    const std::vector<double> h = tb::random_uniform(static_cast<std::size_t>(n), 0xdee0ull + n);
    long double acc = 0;
    for (double v : h) acc += v;
    const std::vector<double> ref = {static_cast<double>(acc)};
    device_array<double> in(h.size()), out(1);
    TCORE_CHECK(cudaMemcpy(in.ptr, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0, tc_bytes = 0;
    TCORE_CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, in.ptr, out.ptr, n));
    tcore::reduce<tcore::tensor_core>(nullptr, tc_bytes, in.ptr, out.ptr, n);
    device_array<char> cub_temp(cub_bytes), tc_temp(tc_bytes);

    const double* pi = in.ptr;
    double* po = out.ptr;
    void* ct = cub_temp.ptr;
    void* tt = tc_temp.ptr;
    using namespace tcore;
    const std::vector<variant> variants = {
        {"base", tb::peak::fp64_cc, "cub::DeviceReduce::Sum",
         [=](cudaStream_t s) {
             std::size_t b = cub_bytes;
             TCORE_CHECK(cub::DeviceReduce::Sum(ct, b, pi, po, n, s));
         }},
        {"tc", tb::peak::fp64_tc, "ones-row MMA, f64 m16n8k16, deterministic",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::reduce<tensor_core, f64_m16n8k16>(tt, b, pi, po, n, s);
         }},
        {"tc-m8n8k4", tb::peak::fp64_tc, "ones-row MMA, f64 m8n8k4, deterministic",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::reduce<tensor_core, f64_m8n8k4>(tt, b, pi, po, n, s);
         }},
        {"cc", tb::peak::fp64_cc, "tc's kernel on the cuda_core backend",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::reduce<cuda_core, f64_m16n8k16>(tt, b, pi, po, n, s);
         }},
        {"cc-m8n8k4", tb::peak::fp64_cc, "tc-m8n8k4's kernel on the cuda_core backend",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::reduce<cuda_core, f64_m8n8k4>(tt, b, pi, po, n, s);
         }},
        {"cce", tb::peak::fp64_cc, "same loads, CUDA-core adds and shuffle tree",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::examples::reduce::reduce_cce<double>(tt, b, pi, po, n, s);
         }},
    };
    std::map<std::string, double> times;
    const double bytes = static_cast<double>(n) * sizeof(double);
    run_variants(ctx, name, variants, out.ptr, ref, bytes, static_cast<double>(n - 1), static_cast<std::size_t>(bytes),
                 times);
    tb::summarize_against_tc(ctx, name, times, opponents);
}

void run_device_f16(tb::context& ctx, long long n)
{
    const std::string name = "f16 n=" + tb::pow2_name(n);
    if (!ctx.announce_case(name)) return;
    if (!any_wanted(ctx, {"base", "tc", "cc", "cce"})) return;
    if (!fits(n * sizeof(__half), name)) return;
    const std::vector<double> r = tb::random_uniform(static_cast<std::size_t>(n), 0xf1600ull + n);
    std::vector<__half> h(r.size());
    long double acc = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        h[i] = __double2half(r[i]);
        if (__half2float(h[i]) == 0.0f) h[i] = __float2half(0.5f);  // keep inputs nonzero
        acc += __half2float(h[i]);
    }
    const std::vector<double> ref = {static_cast<double>(acc)};
    device_array<__half> in(h.size());
    device_array<float> out(1);
    TCORE_CHECK(cudaMemcpy(in.ptr, h.data(), h.size() * sizeof(__half), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0, tc_bytes = 0;
    TCORE_CHECK(cub::DeviceReduce::Reduce(nullptr, cub_bytes, in.ptr, out.ptr, n, sum_as_float{}, 0.0f));
    tcore::reduce<tcore::tensor_core, tcore::f16_m16n8k16_f32acc>(nullptr, tc_bytes, in.ptr, out.ptr, n);
    device_array<char> cub_temp(cub_bytes), tc_temp(tc_bytes);

    const __half* pi = in.ptr;
    float* po = out.ptr;
    void* ct = cub_temp.ptr;
    void* tt = tc_temp.ptr;
    using namespace tcore;
    const std::vector<variant> variants = {
        {"base", tb::peak::fp32_cc, "cub::DeviceReduce::Reduce, FP32 accumulation",
         [=](cudaStream_t s) {
             std::size_t b = cub_bytes;
             TCORE_CHECK(cub::DeviceReduce::Reduce(ct, b, pi, po, n, sum_as_float{}, 0.0f, s));
         }},
        {"tc", tb::peak::fp16_tc, "ones-row MMA, f16 m16n8k16, FP32 accumulation",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::reduce<tensor_core, f16_m16n8k16_f32acc>(tt, b, pi, po, n, s);
         }},
        {"cc", tb::peak::fp32_cc, "tc's kernel on the cuda_core backend",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::reduce<cuda_core, f16_m16n8k16_f32acc>(tt, b, pi, po, n, s);
         }},
        {"cce", tb::peak::fp32_cc, "same loads, FP32 CUDA-core adds and shuffle tree",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::examples::reduce::reduce_cce<__half>(tt, b, pi, po, n, s);
         }},
    };
    std::map<std::string, double> times;
    const double bytes = static_cast<double>(n) * sizeof(__half);
    run_variants(ctx, name, variants, out.ptr, ref, bytes, static_cast<double>(n - 1), static_cast<std::size_t>(bytes),
                 times);
    tb::summarize_against_tc(ctx, name, times, opponents);
}

/// One --input reduce:n=N,segment=S,type=T: "" or what is wrong.
std::string user_case(const tb::user_input& in, long long& n, long long& seg, bool& f16)
{
    return tb::segmented_case(in, 34, "sums", n, seg, f16);
}

void run(tb::context& ctx)
{
    if (const std::vector<tb::user_input> inputs = ctx.inputs(); !inputs.empty()) {
        for (const tb::user_input& in : inputs) {
            long long n = 0, seg = 0;
            bool f16 = false;
            if (const std::string problem = user_case(in, n, seg, f16); !problem.empty())
                throw tcore::error("reduce --input: " + problem);
            if (seg > 0) run_segment_case(ctx, "seg=" + std::to_string(seg) + " n=" + tb::pow2_name(n), n, seg);
            else if (f16) run_device_f16(ctx, n);
            else run_device_f64(ctx, n);
        }
        return;
    }
    run_segments(ctx);
    run_device_f64(ctx, ctx.quick() ? (1LL << 22) : (1LL << 28));
    run_device_f64(ctx, ctx.quick() ? 1000003 : 10000003);
    run_device_f16(ctx, ctx.quick() ? (1LL << 22) : (1LL << 28));
}

}  // namespace

void tcore_register_reduce(tcore::bench::registry& r)
{
    tb::workload w{"reduce",
                   "sum reduction by MMA against a ones row (segmented 64..1024, device-wide FP64/FP16); "
                   "base CUB, tc, cc, cce",
                   run};
    w.input_keys = {{"n", "elements (e.g. 100000000 or 2^27), from 1 to 2^34"},
                    {"segment", "segment length, n a multiple of it (default 0: one device-wide sum)"},
                    {"type", "f64 or f16 (FP16 in, FP32 sum: device-wide only; default f64)"}};
    w.check_input = [](const tb::user_input& in) {
        long long n = 0, seg = 0;
        bool f16 = false;
        return user_case(in, n, seg, f16);
    };
    r.add(w);
}
