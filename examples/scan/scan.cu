// examples/scan/scan.cu - the Scan workload (Quadrant II): prefix sums by MMA
// against constant triangular and all-ones matrices
// (include/tcore/patterns/scan.cuh, launchers in
// include/tcore/patterns/device/scan.cuh).
//
// Cases
//   seg=64 .. seg=1024   FP64 inclusive scans of consecutive segments over 2^27 elements
//   f64 incl n=2^27, f64 excl n=2^27   FP64 device-wide scans (1 GiB in, 1 GiB out)
//   f64 incl n=10000003                not a multiple of any tile
//   f16 incl n=2^28                    FP16 input, FP32 prefix sums
// Variants
//   base   segments of 64 and 128: cub::WarpScan, a logical warp of 8 (16)
//          threads per segment, 32 (16) segments per 256-thread block, 8
//          consecutive values per lane through 16-byte loads and stores;
//          longer segments: cub::BlockScan (BlockLoad/BlockStore
//          warp-transpose), one 128-thread block per segment; device-wide:
//          cub::DeviceScan (FP16: an FP32 accumulator through the scan operator)
//   base-block  segments of 64 and 128 only: cub::BlockScan, one block of 64
//          (128) threads per segment, one value per thread (the former base,
//          kept for comparison)
//   tc     P = L X + (1 X) U on f64 m16n8k16 (FP16: L X and 1 X on f16
//          m16n8k16 with FP32 accumulation, column carries by shuffles)
//   cc     tc's kernels on the cuda_core backend
//   cce    shuffle (Kogge-Stone) scans, same tiling and look-back (scan_cce.cuh)
// Accuracy is against an FP64 CPU reference (accumulated in long double).
// Summaries per case: time ratios t(x)/t(tc) for every opponent and cc, and
// the headline t(best opponent)/t(tc), the best of the base variants and cce
// (named in the value).
// --input scan:n=N,segment=S,type=f64|f16,kind=incl|excl|both: the user's
// sizes instead (cases "seg=S n=N" (inclusive), "seg=S excl n=N", "f64 incl
// n=N", "f64 excl n=N", "f16 incl n=N", "f16 excl n=N"; tcore-bench --help
// lists the keys). tc, cc and cce run for any segment length and both
// kinds; base and base-block are compiled for inclusive segments of 64, 128,
// 256, 512 and 1024, the FP16 base for inclusive scans only, and FP16 for
// device-wide scans only.
#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include "scan_cce.cuh"

#include <tcore/patterns/device/scan.cuh>

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
    std::printf("scan %s: skipped, needs %.2f GB of device memory\n", name.c_str(), bytes / 1e9);
    return false;
}

/// Prefix sums of consecutive segments of `seg` elements (seg = n: one scan).
template <class T>
std::vector<double> reference(const std::vector<T>& h, long long seg, bool exclusive)
{
    std::vector<double> ref(h.size());
    long double s = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
        if (i % static_cast<std::size_t>(seg) == 0) s = 0;
        const long double x = static_cast<double>(h[i]);
        if (exclusive) ref[i] = static_cast<double>(s);
        s += x;
        if (!exclusive) ref[i] = static_cast<double>(s);
    }
    return ref;
}

// -- CUB baselines ------------------------------------------------------------------

/// One block per segment of Threads * Items elements: BlockLoad, BlockScan, BlockStore.
template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_block_scan(const double* in, double* out)
{
    using load_t = cub::BlockLoad<double, Threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using scan_t = cub::BlockScan<double, Threads>;
    using store_t = cub::BlockStore<double, Threads, Items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename load_t::TempStorage load;
        typename scan_t::TempStorage scan;
        typename store_t::TempStorage store;
    } tmp;
    const long long first = static_cast<long long>(blockIdx.x) * Threads * Items;
    double v[Items];
    load_t(tmp.load).Load(in + first, v);
    __syncthreads();
    scan_t(tmp.scan).InclusiveSum(v, v);
    __syncthreads();
    store_t(tmp.store).Store(out + first, v);
}

/// Threads / Lanes segments per block, a logical warp of Lanes threads per
/// segment of Lanes * Items doubles (Items even, 16-byte aligned). Lane t owns
/// elements t * Items .. t * Items + Items - 1 of its segment (blocked):
/// Items / 2 16-byte loads, a serial inclusive scan in registers,
/// cub::WarpScan::ExclusiveSum (shuffles) of the lanes' totals as each lane's
/// carry, Items / 2 16-byte stores. Logical warps past the last segment scan
/// zeros and store nothing.
template <int Lanes, int Items, int Threads>
__global__ void __launch_bounds__(Threads)
    cub_warp_scan(const double* __restrict__ in, double* __restrict__ out, long long segments)
{
    static_assert(Threads % 32 == 0 && 32 % Lanes == 0, "logical warps tile the block's warps");
    static_assert(Items % 2 == 0, "values move as double2");
    using warp_scan = cub::WarpScan<double, Lanes>;
    constexpr int per_block = Threads / Lanes, seg = Lanes * Items;
    __shared__ typename warp_scan::TempStorage tmp[per_block];
    const int group = static_cast<int>(threadIdx.x) / Lanes, lane = static_cast<int>(threadIdx.x) % Lanes;
    const long long s = static_cast<long long>(blockIdx.x) * per_block + group;
    const bool valid = s < segments;
    const long long first = s * seg + static_cast<long long>(lane) * Items;
    double2 v[Items / 2];
#pragma unroll
    for (int j = 0; j < Items / 2; ++j)
        v[j] = valid ? reinterpret_cast<const double2*>(in + first)[j] : make_double2(0.0, 0.0);
    double run = 0;
#pragma unroll
    for (int j = 0; j < Items / 2; ++j) {
        v[j].x += run;
        v[j].y += v[j].x;
        run = v[j].y;
    }
    double carry = 0;
    warp_scan(tmp[group]).ExclusiveSum(run, carry);
    if (!valid) return;
#pragma unroll
    for (int j = 0; j < Items / 2; ++j) {
        v[j].x += carry;
        v[j].y += carry;
        reinterpret_cast<double2*>(out + first)[j] = v[j];
    }
}

template <int Lanes, int Items>
void launch_warp_scan(const double* in, double* out, long long segments, cudaStream_t s)
{
    constexpr int threads = 256, per_block = threads / Lanes;
    const long long grid = (segments + per_block - 1) / per_block;
    tcore::require(grid <= 0x7fffffffLL, "cub_segments", "too many segments for one grid");
    cub_warp_scan<Lanes, Items, threads><<<static_cast<unsigned>(grid), threads, 0, s>>>(in, out, segments);
}

/// The block-per-segment form for every length (the base-block variant).
void cub_block_per_segment(const double* in, double* out, long long segments, int seg, cudaStream_t s)
{
    const unsigned grid = static_cast<unsigned>(segments);
    switch (seg) {
    case 64: cub_block_scan<64, 1><<<grid, 64, 0, s>>>(in, out); break;
    case 128: cub_block_scan<128, 1><<<grid, 128, 0, s>>>(in, out); break;
    case 256: cub_block_scan<128, 2><<<grid, 128, 0, s>>>(in, out); break;
    case 512: cub_block_scan<128, 4><<<grid, 128, 0, s>>>(in, out); break;
    case 1024: cub_block_scan<128, 8><<<grid, 128, 0, s>>>(in, out); break;
    default: tcore::require(false, "cub_segments", "unsupported segment size " + std::to_string(seg));
    }
    TCORE_CHECK_LAUNCH();
}

/// The base variant: logical warps for segments of 64 and 128 (a 64-thread
/// block per segment with one 8-byte value per thread keeps too few bytes in
/// flight per SM to reach the DRAM roof), a block per segment from 256 up
/// (at the copy bandwidth there).
void cub_segments(const double* in, double* out, long long segments, int seg, cudaStream_t s)
{
    tcore::require(tcore::aligned(in, 16) && tcore::aligned(out, 16), "cub_segments",
                   "input or output is not 16-byte aligned");
    switch (seg) {
    case 64: launch_warp_scan<8, 8>(in, out, segments, s); break;
    case 128: launch_warp_scan<16, 8>(in, out, segments, s); break;
    default: cub_block_per_segment(in, out, segments, seg, s); return;
    }
    TCORE_CHECK_LAUNCH();
}

/// FP32 sum of FP16 inputs for CUB (accumulator type of op(float, __half) = float).
struct sum_as_float {
    __host__ __device__ float operator()(float a, float b) const { return a + b; }
    __host__ __device__ float operator()(float a, __half b) const { return a + __half2float(b); }
};

// -- bookkeeping ------------------------------------------------------------------------

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

template <class S>
void run_variants(tb::context& ctx, const std::string& case_name, const std::vector<variant>& variants, S* d_out,
                  const std::vector<double>& ref, double bytes, double flops, std::map<std::string, double>& times)
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
        spec.footprint_bytes = static_cast<std::size_t>(bytes);
        spec.note = v.note;
        const std::vector<double> med = ctx.measure(spec, v.launch, err);
        if (!med.empty()) times[v.name] = med.front();
    }
}


/// The variants each case's summary compares with tc (tb::summarize_against_tc).
const std::initializer_list<const char*> opponents = {"base", "base-block", "cc", "cce"};

// -- cases ------------------------------------------------------------------------------------

/// The segment lengths the CUB base and base-block kernels are compiled for
/// (inclusive scans).
bool cub_segment_compiled(long long seg)
{
    return seg == 64 || seg == 128 || seg == 256 || seg == 512 || seg == 1024;
}

/// Scans of consecutive segments of `seg` elements over n elements (n a
/// multiple of seg). base and base-block run for inclusive scans where
/// cub_segment_compiled(seg).
void run_segment_case(tb::context& ctx, const std::string& name, long long n, long long seg, tcore::scan_kind kind)
{
    using namespace tcore;
    if (!ctx.announce_case(name)) return;
    if (!any_wanted(ctx, {"base", "base-block", "tc", "cc", "cce"})) return;
    if (!fits(2 * n * sizeof(double), name)) return;
    const bool excl = kind == scan_kind::exclusive;
    const bool cub_compiled = !excl && cub_segment_compiled(seg);
    if (!cub_compiled)
        std::printf("scan %s: base and base-block are compiled for inclusive segments of 64, 128, 256, 512 and "
                    "1024 only; tc, cc and cce run\n", name.c_str());
    const long long count = n / seg;
    const std::vector<double> h = tb::random_uniform(static_cast<std::size_t>(n), 0x5ca000ull + seg);
    const std::vector<double> ref = reference(h, seg, excl);
    device_array<double> in(h.size()), out(h.size());
    TCORE_CHECK(cudaMemcpy(in.ptr, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice));
    const double* pi = in.ptr;
    double* po = out.ptr;
    const bool warp_base = seg <= 128;
    const int cub_seg = static_cast<int>(seg);
    std::vector<variant> variants = {
        {"base", tb::peak::fp64_cc,
         warp_base ? "cub::WarpScan, " + std::to_string(seg / 8) + "-thread logical warps, 16-byte loads/stores"
                   : std::string("cub::BlockScan, a block per segment"),
         [=](cudaStream_t s) { cub_segments(pi, po, count, cub_seg, s); }},
        {"base-block", tb::peak::fp64_cc, "cub::BlockScan, a block per segment, one value per thread",
         [=](cudaStream_t s) { cub_block_per_segment(pi, po, count, cub_seg, s); }},
        {"tc", tb::peak::fp64_tc, "L X + (1 X) U, f64 m16n8k16 + m16n8k8",
         [=](cudaStream_t s) { tcore::scan_segments<tensor_core, f64_m16n8k16>(pi, po, count, seg, kind, s); }},
        {"cc", tb::peak::fp64_cc, "tc's kernel on the cuda_core backend",
         [=](cudaStream_t s) { tcore::scan_segments<cuda_core, f64_m16n8k16>(pi, po, count, seg, kind, s); }},
        {"cce", tb::peak::fp64_cc, "shuffle scans, same tiling",
         [=](cudaStream_t s) { tcore::examples::scan::scan_segments_cce<double>(pi, po, count, seg, kind, s); }},
    };
    if (!cub_compiled) variants.erase(variants.begin(), variants.begin() + 2);
    else if (!warp_base) variants.erase(variants.begin() + 1);  // base-block is base from 256 up
    std::map<std::string, double> times;
    run_variants(ctx, name, variants, out.ptr, ref, 2.0 * n * sizeof(double), static_cast<double>(n - count), times);
    tb::summarize_against_tc(ctx, name, times, opponents);
}

void run_segments(tb::context& ctx)
{
    const long long n = ctx.quick() ? (1LL << 22) : (1LL << 27);
    for (int seg : {64, 128, 256, 512, 1024})
        run_segment_case(ctx, "seg=" + std::to_string(seg), n, seg, tcore::scan_kind::inclusive);
}

void run_device_f64(tb::context& ctx, long long n, tcore::scan_kind kind)
{
    using namespace tcore;
    const bool excl = kind == scan_kind::exclusive;
    const std::string name = std::string("f64 ") + (excl ? "excl" : "incl") + " n=" + tb::pow2_name(n);
    if (!ctx.announce_case(name)) return;
    if (!any_wanted(ctx, {"base", "tc", "cc", "cce"})) return;
    if (!fits(2 * n * sizeof(double), name)) return;
    const std::vector<double> h = tb::random_uniform(static_cast<std::size_t>(n), 0xd5ca0ull + n);
    const std::vector<double> ref = reference(h, n, excl);
    device_array<double> in(h.size()), out(h.size());
    TCORE_CHECK(cudaMemcpy(in.ptr, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0, tc_bytes = 0;
    if (excl) TCORE_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, cub_bytes, in.ptr, out.ptr, n));
    else TCORE_CHECK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in.ptr, out.ptr, n));
    tcore::scan<tensor_core>(nullptr, tc_bytes, in.ptr, out.ptr, n, kind);
    device_array<char> cub_temp(cub_bytes), tc_temp(tc_bytes);
    const double* pi = in.ptr;
    double* po = out.ptr;
    void* ct = cub_temp.ptr;
    void* tt = tc_temp.ptr;
    const std::vector<variant> variants = {
        {"base", tb::peak::fp64_cc, excl ? "cub::DeviceScan::ExclusiveSum" : "cub::DeviceScan::InclusiveSum",
         [=](cudaStream_t s) {
             std::size_t b = cub_bytes;
             if (excl) TCORE_CHECK(cub::DeviceScan::ExclusiveSum(ct, b, pi, po, n, s));
             else TCORE_CHECK(cub::DeviceScan::InclusiveSum(ct, b, pi, po, n, s));
         }},
        {"tc", tb::peak::fp64_tc, "L X + (1 X) U, f64 m16n8k16 + m16n8k8, decoupled look-back",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::scan<tensor_core, f64_m16n8k16>(tt, b, pi, po, n, kind, s);
         }},
        {"cc", tb::peak::fp64_cc, "tc's kernel on the cuda_core backend",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::scan<cuda_core, f64_m16n8k16>(tt, b, pi, po, n, kind, s);
         }},
        {"cce", tb::peak::fp64_cc, "shuffle scans, same look-back",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::examples::scan::scan_cce<double>(tt, b, pi, po, n, kind, s);
         }},
    };
    std::map<std::string, double> times;
    run_variants(ctx, name, variants, out.ptr, ref, 2.0 * n * sizeof(double), static_cast<double>(n - 1), times);
    tb::summarize_against_tc(ctx, name, times, opponents);
}

void run_device_f16(tb::context& ctx, long long n, tcore::scan_kind kind = tcore::scan_kind::inclusive)
{
    using namespace tcore;
    const bool excl = kind == scan_kind::exclusive;
    const std::string name = std::string("f16 ") + (excl ? "excl" : "incl") + " n=" + tb::pow2_name(n);
    if (!ctx.announce_case(name)) return;
    if (!any_wanted(ctx, {"base", "tc", "cc", "cce"})) return;
    if (!fits(n * (sizeof(__half) + sizeof(float)), name)) return;
    const std::vector<double> r = tb::random_uniform(static_cast<std::size_t>(n), 0xf16ca0ull + n);
    std::vector<__half> h(r.size());
    std::vector<double> hd(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
        h[i] = __double2half(r[i]);
        if (__half2float(h[i]) == 0.0f) h[i] = __float2half(0.5f);  // keep inputs nonzero
        hd[i] = __half2float(h[i]);
    }
    const std::vector<double> ref = reference(hd, n, excl);
    if (excl)
        std::printf("scan %s: base is compiled for inclusive FP16 scans only; tc, cc and cce run\n", name.c_str());
    device_array<__half> in(h.size());
    device_array<float> out(h.size());
    TCORE_CHECK(cudaMemcpy(in.ptr, h.data(), h.size() * sizeof(__half), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0, tc_bytes = 0;
    TCORE_CHECK(cub::DeviceScan::InclusiveScanInit(nullptr, cub_bytes, in.ptr, out.ptr, sum_as_float{}, 0.0f, n));
    tcore::scan<tensor_core, f16_m16n8k16_f32acc>(nullptr, tc_bytes, in.ptr, out.ptr, n);
    device_array<char> cub_temp(cub_bytes), tc_temp(tc_bytes);
    const __half* pi = in.ptr;
    float* po = out.ptr;
    void* ct = cub_temp.ptr;
    void* tt = tc_temp.ptr;
    std::vector<variant> variants = {
        {"base", tb::peak::fp32_cc, "cub::DeviceScan::InclusiveScanInit, FP32 accumulation",
         [=](cudaStream_t s) {
             std::size_t b = cub_bytes;
             TCORE_CHECK(cub::DeviceScan::InclusiveScanInit(ct, b, pi, po, sum_as_float{}, 0.0f, n, s));
         }},
        {"tc", tb::peak::fp16_tc, "L X and 1 X on f16 m16n8k16 (FP32 accumulation), shuffle column carries",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::scan<tensor_core, f16_m16n8k16_f32acc>(tt, b, pi, po, n, kind, s);
         }},
        {"cc", tb::peak::fp32_cc, "tc's kernel on the cuda_core backend",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::scan<cuda_core, f16_m16n8k16_f32acc>(tt, b, pi, po, n, kind, s);
         }},
        {"cce", tb::peak::fp32_cc, "FP32 shuffle scans, same look-back",
         [=](cudaStream_t s) {
             std::size_t b = tc_bytes;
             tcore::examples::scan::scan_cce<__half>(tt, b, pi, po, n, kind, s);
         }},
    };
    if (excl) variants.erase(variants.begin());
    std::map<std::string, double> times;
    run_variants(ctx, name, variants, out.ptr, ref, static_cast<double>(n) * (sizeof(__half) + sizeof(float)),
                 static_cast<double>(n - 1), times);
    tb::summarize_against_tc(ctx, name, times, opponents);
}

/// One --input scan:n=N,segment=S,type=T,kind=K: "" or what is wrong.
std::string user_case(const tb::user_input& in, long long& n, long long& seg, bool& f16,
                      std::vector<tcore::scan_kind>& kinds)
{
    if (std::string problem = tb::segmented_case(in, 33, "scans", n, seg, f16); !problem.empty()) return problem;
    const std::string kind = in.get("kind", "incl");
    if (kind != "incl" && kind != "excl" && kind != "both") return "kind: incl, excl or both expected";
    kinds.clear();
    if (kind != "excl") kinds.push_back(tcore::scan_kind::inclusive);
    if (kind != "incl") kinds.push_back(tcore::scan_kind::exclusive);
    return "";
}

void run(tb::context& ctx)
{
    if (const std::vector<tb::user_input> inputs = ctx.inputs(); !inputs.empty()) {
        for (const tb::user_input& in : inputs) {
            long long n = 0, seg = 0;
            bool f16 = false;
            std::vector<tcore::scan_kind> kinds;
            if (const std::string problem = user_case(in, n, seg, f16, kinds); !problem.empty())
                throw tcore::error("scan --input: " + problem);
            for (const tcore::scan_kind kind : kinds) {
                const bool excl = kind == tcore::scan_kind::exclusive;
                const std::string seg_name =
                    "seg=" + std::to_string(seg) + (excl ? " excl" : "") + " n=" + tb::pow2_name(n);
                if (seg > 0) run_segment_case(ctx, seg_name, n, seg, kind);
                else if (f16) run_device_f16(ctx, n, kind);
                else run_device_f64(ctx, n, kind);
            }
        }
        return;
    }
    run_segments(ctx);
    const long long big = ctx.quick() ? (1LL << 22) : (1LL << 27);
    run_device_f64(ctx, big, tcore::scan_kind::inclusive);
    run_device_f64(ctx, big, tcore::scan_kind::exclusive);
    run_device_f64(ctx, ctx.quick() ? 1000003 : 10000003, tcore::scan_kind::inclusive);
    run_device_f16(ctx, ctx.quick() ? (1LL << 22) : (1LL << 28));
}

}  // namespace

void tcore_register_scan(tcore::bench::registry& r)
{
    tb::workload w{"scan",
                   "prefix sums by MMA against triangular and all-ones matrices (segmented 64..1024, device-wide "
                   "FP64/FP16); base CUB, tc, cc, cce",
                   run};
    w.input_keys = {{"n", "elements (e.g. 100000000 or 2^27), from 1 to 2^33"},
                    {"segment", "segment length, n a multiple of it (default 0: one device-wide scan)"},
                    {"type", "f64 or f16 (FP16 in, FP32 sums: device-wide only; default f64)"},
                    {"kind", "incl, excl or both (default incl)"}};
    w.check_input = [](const tb::user_input& in) {
        long long n = 0, seg = 0;
        bool f16 = false;
        std::vector<tcore::scan_kind> kinds;
        return user_case(in, n, seg, f16, kinds);
    };
    r.add(w);
}
