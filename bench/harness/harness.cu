// bench/harness/harness.cu - the measurement protocol (warm-up, event-timed
// repetitions, L2 flush, launch hold, power loop), context::measure, and the
// arithmetic the harness reports (statistics, metrics, tensor-core bound).
#include "harness/energy.hpp"
#include "harness/harness.hpp"
#include "harness/headline.hpp"
#include "harness/report.hpp"
#include "harness/stop.hpp"
#include "harness/timing.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

namespace tcore::bench {

// -- names and ceilings ------------------------------------------------------

const char* peak_name(peak p)
{
    switch (p) {
    case peak::memory: return "memory";
    case peak::fp64_cc: return "fp64_cc";
    case peak::fp64_tc: return "fp64_tc";
    case peak::tf32_tc: return "tf32_tc";
    case peak::fp16_tc: return "fp16_tc";
    case peak::fp32_cc: return "fp32_cc";
    case peak::int_ops: return "int_ops";
    }
    return "unknown";
}

double ceilings::of(peak p) const
{
    switch (p) {
    case peak::memory: return copy_gbs;
    case peak::fp64_cc: return fp64_cc_tflops;
    case peak::fp64_tc: return fp64_tc_tflops;
    case peak::tf32_tc: return tf32_tc_tflops;
    case peak::fp16_tc: return fp16_tc_tflops;
    case peak::fp32_cc: return fp32_cc_tflops;
    case peak::int_ops: return b1_tc_tops;
    }
    return 0;
}

namespace {

/// A tensor-core shape whose peak ceilings.cu measures.
struct measured_shape {
    const char* name;  ///< Shape::name()
    peak precision;    ///< the tensor-core peak it refines
};

constexpr measured_shape measured_shapes[] = {
    {"f64_m8n8k4", peak::fp64_tc},   {"f64_m16n8k4", peak::fp64_tc},         {"f64_m16n8k8", peak::fp64_tc},
    {"f64_m16n8k16", peak::fp64_tc}, {"tf32_m16n8k8", peak::tf32_tc},        {"f16_m16n8k16_f32acc", peak::fp16_tc},
    {"f16_m16n8k16_f16acc", peak::fp16_tc},
};

const measured_shape* find_shape(peak p, const std::string& name)
{
    for (const measured_shape& m : measured_shapes)
        if (m.precision == p && name == m.name) return &m;
    return nullptr;
}

/// The measured peak of a shape of measured_shapes.
double measured_tflops(const ceilings& c, const std::string& name)
{
    if (name == "f64_m8n8k4") return c.fp64_m8n8k4_tflops;
    if (name == "f64_m16n8k4") return c.fp64_m16n8k4_tflops;
    if (name == "f64_m16n8k8") return c.fp64_m16n8k8_tflops;
    if (name == "f64_m16n8k16") return c.fp64_m16n8k16_tflops;
    if (name == "tf32_m16n8k8") return c.tf32_tc_tflops;
    if (name == "f16_m16n8k16_f32acc") return c.fp16_tc_tflops;
    if (name == "f16_m16n8k16_f16acc") return c.fp16_f16acc_tc_tflops;
    return 0;
}

/// The shape a tensor-core peak stands for where a row names none.
std::string default_tc_shape(peak p, const ceilings& c)
{
    switch (p) {
    case peak::fp64_tc: return c.fp64_tc_shape;
    case peak::tf32_tc: return "tf32_m16n8k8";
    case peak::fp16_tc: return "f16_m16n8k16_f32acc";
    default: return "";
    }
}

/// Length of an "m<digits>n<digits>k<digits>" geometry at text[i] (0 if none).
std::size_t geometry_at(const std::string& text, std::size_t i)
{
    std::size_t j = i;
    for (const char letter : {'m', 'n', 'k'}) {
        if (j >= text.size() || text[j] != letter) return 0;
        const std::size_t digits = ++j;
        while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
        if (j == digits) return 0;
    }
    return j - i;
}

}  // namespace

double ceilings::of(peak p, const std::string& tc_shape) const
{
    if (tc_shape.empty() || !is_tc_peak(p) || tc_shape == default_tc_shape(p, *this)) return of(p);
    return find_shape(p, tc_shape) ? measured_tflops(*this, tc_shape) : of(p);
}

bool is_tc_peak(peak p) { return p == peak::fp64_tc || p == peak::tf32_tc || p == peak::fp16_tc; }

std::string shape_in_variant(const std::string& variant)
{
    for (std::size_t i = 0; i < variant.size(); ++i) {
        if (i > 0 && std::isalnum(static_cast<unsigned char>(variant[i - 1]))) continue;  // starts a word
        const std::size_t n = geometry_at(variant, i);
        if (n > 0 && (i + n == variant.size() || !std::isalnum(static_cast<unsigned char>(variant[i + n]))))
            return variant.substr(i, n);
    }
    return "";
}

std::string tc_shape_of(const std::string& variant, const std::string& fallback)
{
    if (!is_tc_like(variant)) return "";
    const std::string spelled = shape_in_variant(variant);
    return spelled.empty() ? fallback : spelled;
}

std::string resolve_mma_shape(peak p, const std::string& shape)
{
    if (!is_tc_peak(p) || shape.empty()) return "";
    if (find_shape(p, shape)) return shape;
    if (geometry_at(shape, 0) != shape.size()) return "";
    for (const measured_shape& m : measured_shapes) {
        if (m.precision != p) continue;
        const std::string name = m.name;
        const std::size_t at = name.find("_" + shape);
        const std::size_t end = at + 1 + shape.size();
        if (at != std::string::npos && (end == name.size() || name[end] == '_')) return name;
    }
    return "";
}

std::string row_tc_shape(const row_spec& spec, const ceilings& c)
{
    const peak p = is_tc_peak(spec.compute) ? spec.compute : spec.ceiling;
    if (!is_tc_peak(p)) return "";
    if (!spec.mma_shape.empty()) return resolve_mma_shape(p, spec.mma_shape);
    const std::string spelled = resolve_mma_shape(p, shape_in_variant(spec.variant));
    return spelled.empty() ? default_tc_shape(p, c) : spelled;
}

// -- pure arithmetic -----------------------------------------------------------

timing stats_of(std::vector<double> samples_ms)
{
    timing t;
    t.repetitions = static_cast<int>(samples_ms.size());
    if (samples_ms.empty()) return t;
    std::sort(samples_ms.begin(), samples_ms.end());
    const std::size_t n = samples_ms.size();
    t.min_ms = samples_ms.front();
    t.max_ms = samples_ms.back();
    t.median_ms = n % 2 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
    return t;
}

double geomean(const std::vector<double>& values)
{
    if (values.empty()) return 0;
    double log_sum = 0;
    for (double v : values) log_sum += std::log(v);
    return std::exp(log_sum / static_cast<double>(values.size()));
}

std::vector<std::string> cache_states(std::size_t footprint_bytes, std::size_t l2_bytes)
{
    if (footprint_bytes == 0) return {"hot"};
    if (footprint_bytes <= l2_bytes) return {"hot", "cold"};
    return {"stream"};
}

std::size_t case_footprints::of(const row_spec& spec)
{
    const std::size_t own = spec.case_footprint_bytes > 0 ? spec.case_footprint_bytes : spec.footprint_bytes;
    return by_case_.emplace(spec.case_name, own).first->second;
}

void fill_metrics(row& r, const ceilings& c)
{
    const double ms = r.time.median_ms;
    r.gbs = gbs_of(r.spec.bytes, ms);
    r.gflops = gflops_of(r.spec.flops, ms);
    r.intensity = intensity_of(r.spec.flops, r.spec.bytes);
    r.tc_shape = row_tc_shape(r.spec, c);

    const double ceiling = c.of(r.spec.ceiling, r.tc_shape);
    if (ceiling <= 0 || ms <= 0) r.fraction_of_peak = -1;
    else if (r.spec.ceiling == peak::memory) r.fraction_of_peak = r.gbs / ceiling;
    else r.fraction_of_peak = r.gflops / (ceiling * 1e3);

    const double roof_gflops = c.of(r.spec.compute, r.tc_shape) * 1e3;
    if (r.spec.compute == peak::int_ops || roof_gflops <= 0 || c.copy_gbs <= 0) r.roofline_gflops = -1;
    else r.roofline_gflops = roofline_gflops(r.intensity, roof_gflops, c.copy_gbs);
}

namespace {

bool has_prefix_variant(const std::string& v, const char* stem)
{
    const std::string s(stem);
    if (v == s) return true;
    return v.size() > s.size() && v.compare(0, s.size(), s) == 0 && (v[s.size()] == '-' || v[s.size()] == '_');
}

/// "-m8n8k4" of "tc-m8n8k4"; "" of "tc".
std::string variant_suffix(const std::string& v) { return v.size() > 2 ? v.substr(2) : std::string(); }

double ratio(double num, double den) { return num > 0 && den > 0 ? num / den : -1; }

}  // namespace

bool is_tc_like(const std::string& variant) { return has_prefix_variant(variant, "tc"); }
bool is_cc_like(const std::string& variant) { return has_prefix_variant(variant, "cc"); }

double tc_alpha(const ceilings& c, peak compute, const std::string& variant, const std::string& mma_shape)
{
    peak tc = peak::memory, cc = peak::memory;
    switch (compute) {
    case peak::fp64_tc:
    case peak::fp64_cc: tc = peak::fp64_tc, cc = peak::fp64_cc; break;
    case peak::tf32_tc:
    case peak::fp32_cc: tc = peak::tf32_tc, cc = peak::fp32_cc; break;
    case peak::fp16_tc: tc = peak::fp16_tc, cc = peak::fp32_cc; break;
    default: return -1;
    }
    std::string shape;
    if (!mma_shape.empty()) {
        shape = resolve_mma_shape(tc, mma_shape);
        if (shape.empty()) return -1;  // named, but not measured at this precision
    } else {
        shape = resolve_mma_shape(tc, shape_in_variant(variant));
    }
    return ratio(c.of(tc, shape), c.of(cc));
}

void pair_tc_cc(std::vector<row>& rows, const ceilings& c)
{
    for (row& t : rows) {
        t.tc_alpha = t.tc_bound = t.tc_speedup = -1;
        t.tc_partner.clear();
        if (t.spec.ceiling != peak::memory || !is_tc_like(t.variant)) continue;
        const row* best = nullptr;
        int best_rank = 3;
        for (const row& p : rows) {
            if (&p == &t || p.workload != t.workload || p.case_name != t.case_name || p.cache != t.cache ||
                !is_cc_like(p.variant))
                continue;
            const int rank = variant_suffix(p.variant) == variant_suffix(t.variant) ? 0 : p.variant == "cc" ? 1 : 2;
            if (rank < best_rank) best = &p, best_rank = rank;
        }
        if (!best) continue;
        const double alpha = tc_alpha(c, t.spec.compute, t.variant, t.spec.mma_shape);
        if (alpha <= 0) continue;
        t.tc_alpha = alpha;
        t.tc_bound = tc_speedup_bound(alpha);
        t.tc_speedup = ratio(best->time.median_ms, t.time.median_ms);
        t.tc_partner = best->variant;
    }
}

// -- device helpers ------------------------------------------------------------

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// Launches `n` times and waits; any launch or execution error throws.
void launch_and_wait(cudaStream_t s, const launch_fn& launch, long long n)
{
    for (long long i = 0; i < n; ++i) launch(s);
    TCORE_CHECK(cudaGetLastError());
    TCORE_CHECK(cudaStreamSynchronize(s));
}

__global__ void flush_write_kernel(uint4* p, std::size_t n, unsigned pass)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
        p[i] = make_uint4(pass, static_cast<unsigned>(i), pass ^ 0x5bd1e995u, static_cast<unsigned>(i >> 32));
}

__global__ void flush_read_kernel(const uint4* p, std::size_t n, unsigned* sink)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    unsigned acc = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
        const uint4 v = p[i];
        acc ^= v.x + v.y + v.z + v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;  // keeps the reads; never true in practice, harmless if so
}

/// Spins until the host sets flags[0] (or timeout_ns pass: then flags[1] = 1).
__global__ void hold_kernel(volatile int* flags, unsigned long long timeout_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (flags[0] == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > timeout_ns) {
            flags[1] = 1;
            break;
        }
        __nanosleep(1000);
    }
}

int grid_for_device()
{
    int device = 0, sms = 0;
    TCORE_CHECK(cudaGetDevice(&device));
    TCORE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return std::max(1, sms) * 8;
}

/// Event pairs for one chunk of repetitions.
struct event_pairs {
    std::vector<cudaEvent_t> start, stop;
    explicit event_pairs(int n) : start(n, nullptr), stop(n, nullptr)
    {
        for (int i = 0; i < n; ++i) {
            TCORE_CHECK(cudaEventCreate(&start[i]));
            TCORE_CHECK(cudaEventCreate(&stop[i]));
        }
    }
    ~event_pairs()
    {
        for (std::size_t i = 0; i < start.size(); ++i) {
            if (start[i]) cudaEventDestroy(start[i]);
            if (stop[i]) cudaEventDestroy(stop[i]);
        }
    }
    event_pairs(const event_pairs&) = delete;
    event_pairs& operator=(const event_pairs&) = delete;
};

/// Pinned flags for hold_kernel; release() also runs on scope exit so an
/// exception while a chunk is being enqueued never leaves the GPU spinning.
struct hold_guard {
    int* host = nullptr;
    int* device = nullptr;
    bool armed = false;
    hold_guard()
    {
        TCORE_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), 2 * sizeof(int), cudaHostAllocMapped));
        TCORE_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), host, 0));
    }
    ~hold_guard()
    {
        release();
        if (host) {
            cudaDeviceSynchronize();  // hold_kernel may still read the flags
            cudaFreeHost(host);
        }
    }
    hold_guard(const hold_guard&) = delete;
    hold_guard& operator=(const hold_guard&) = delete;
    void arm(cudaStream_t s)
    {
        volatile int* flags = host;
        flags[0] = 0;
        flags[1] = 0;
        launch_hold(reinterpret_cast<volatile int*>(device), 50ull * 1000 * 1000, s);
        armed = true;
    }
    void release()
    {
        if (!armed) return;
        reinterpret_cast<volatile int*>(host)[0] = 1;
        armed = false;
    }
    bool timed_out() const { return reinterpret_cast<volatile int*>(host)[1] != 0; }
};

}  // namespace

void launch_hold(volatile int* device_flags, unsigned long long timeout_ns, cudaStream_t s)
{
    hold_kernel<<<1, 1, 0, s>>>(device_flags, timeout_ns);
    TCORE_CHECK(cudaGetLastError());
}

// -- protocol ----------------------------------------------------------------

warmup_result warm_up(cudaStream_t s, const launch_fn& launch, double seconds)
{
    warmup_result w;
    const auto t0 = clock_type::now();
    launch_and_wait(s, launch, 1);  // first launch: lazy loading, errors
    w.launches = 1;
    long long n = 1;
    double elapsed = 0;
    for (;;) {  // calibration: back-to-back launches until ~10 ms
        const auto t1 = clock_type::now();
        launch_and_wait(s, launch, n);
        elapsed = seconds_since(t1);
        w.launches += n;
        if (elapsed >= 0.01 || n >= (1 << 16)) break;
        n *= 4;
    }
    w.per_launch_s = std::max(elapsed / static_cast<double>(n), 1e-7);
    const long long chunk = std::clamp<long long>(static_cast<long long>(0.05 / w.per_launch_s), 1, 2000);
    while (seconds_since(t0) < seconds) {  // fill the rest of the time, checking every ~50 ms
        launch_and_wait(s, launch, chunk);
        w.launches += chunk;
    }
    w.seconds = seconds_since(t0);
    return w;
}

void* alloc_flush_buffer(std::size_t l2_bytes, std::size_t& bytes)
{
    bytes = std::max<std::size_t>(4 * l2_bytes, std::size_t(64) << 20);
    bytes = (bytes + 15) / 16 * 16;
    void* p = nullptr;
    TCORE_CHECK(cudaMalloc(&p, bytes + 256));  // + a sink word past the flushed range
    return p;
}

void flush_l2(cudaStream_t s, void* buffer, std::size_t bytes)
{
    static unsigned pass = 0;
    const std::size_t n = bytes / sizeof(uint4);
    const int grid = grid_for_device();
    flush_write_kernel<<<grid, 256, 0, s>>>(static_cast<uint4*>(buffer), n, ++pass);
    flush_read_kernel<<<grid, 256, 0, s>>>(static_cast<const uint4*>(buffer), n,
                                           reinterpret_cast<unsigned*>(static_cast<char*>(buffer) + bytes));
    TCORE_CHECK(cudaGetLastError());
}

int repetitions_for(double per_launch_s, const rep_policy& p)
{
    const double t = std::max(per_launch_s, 1e-7);
    double reps = std::max(static_cast<double>(p.min_reps), std::ceil(p.min_time_s / t));
    if (reps * t > p.max_time_s) reps = std::max(3.0, std::floor(p.max_time_s / t));
    return static_cast<int>(std::min(reps, static_cast<double>(p.max_reps)));
}

timing time_repetitions(cudaStream_t s, const launch_fn& launch, int reps, const launch_fn& before, bool hold)
{
    constexpr int chunk = 32;
    event_pairs events(chunk);
    std::unique_ptr<hold_guard> holder;
    if (hold) holder = std::make_unique<hold_guard>();
    std::vector<double> samples;
    samples.reserve(reps);
    for (int done = 0; done < reps;) {
        const int m = std::min(chunk, reps - done);
        if (holder) holder->arm(s);
        for (int i = 0; i < m; ++i) {
            if (before) before(s);
            TCORE_CHECK(cudaEventRecord(events.start[i], s));
            launch(s);
            TCORE_CHECK(cudaEventRecord(events.stop[i], s));
        }
        if (holder) holder->release();
        TCORE_CHECK(cudaGetLastError());
        TCORE_CHECK(cudaEventSynchronize(events.stop[m - 1]));
        for (int i = 0; i < m; ++i) {
            float ms = 0;
            TCORE_CHECK(cudaEventElapsedTime(&ms, events.start[i], events.stop[i]));
            samples.push_back(ms);
        }
        if (holder && holder->timed_out()) holder.reset();  // the launch waits on the host itself
        done += m;
    }
    return stats_of(std::move(samples));
}

double average_power_w(cudaStream_t s, const launch_fn& launch, double per_launch_s, double seconds)
{
    if (!energy::available() || seconds <= 0) return -1;
    const long long chunk = std::clamp<long long>(static_cast<long long>(0.05 / std::max(per_launch_s, 1e-7)), 1, 2000);
    energy::sampler sampler;
    const auto t0 = clock_type::now();
    while (seconds_since(t0) < seconds) launch_and_wait(s, launch, chunk);
    return sampler.stop();
}

// -- context -----------------------------------------------------------------

namespace {

/// Does `name` match one of the filters? Empty: everything; "=x": exactly x;
/// otherwise a substring.
bool matches(const std::vector<std::string>& filters, const std::string& name)
{
    if (filters.empty()) return true;
    for (const std::string& f : filters) {
        if (!f.empty() && f[0] == '=') {
            if (name == f.substr(1)) return true;
        } else if (name.find(f) != std::string::npos) {
            return true;
        }
    }
    return false;
}

}  // namespace

bool name_matches(const std::vector<std::string>& filters, const std::string& name) { return matches(filters, name); }

namespace {

/// Once per (workload, variant): a variant the catalogue does not list
/// (harness/headline.cpp) cannot be selected with --variant; say so.
void warn_unknown_variant(const std::string& workload, const std::string& variant)
{
    static std::vector<std::string> warned;
    const std::vector<std::string> known = known_variants(workload);
    if (std::find(known.begin(), known.end(), variant) != known.end()) return;
    const std::string key = workload + "/" + variant;
    if (std::find(warned.begin(), warned.end(), key) != warned.end()) return;
    warned.push_back(key);
    std::fprintf(stderr, "note: variant '%s' of workload '%s' is not in bench/harness/headline.cpp's catalogue "
                         "(--variant cannot select it until it is listed there)\n",
                 variant.c_str(), workload.c_str());
}

}  // namespace

context::context(const options& opts, const ceilings& ceil, std::string workload_name, bool every_case)
    : opts_(opts), ceil_(ceil), workload_(std::move(workload_name)), headline_only_(!every_case && headline_only(opts))
{
    // A blocking stream: work a workload enqueues on the legacy default
    // stream by mistake still runs between the events, in order.
    if (!opts_.list) TCORE_CHECK(cudaStreamCreate(&stream_));
}

context::~context()
{
    if (stream_) {
        cudaStreamSynchronize(stream_);
        cudaStreamDestroy(stream_);
    }
    if (flush_buffer_) cudaFree(flush_buffer_);
    cudaGetLastError();
}

bool context::want_case(const std::string& case_name) const
{
    return matches(opts_.cases, case_name) && (!headline_only_ || is_headline(workload_, case_name));
}
bool context::want_variant(const std::string& variant) const { return matches(opts_.variants, variant); }

bool context::announce_case(const std::string& case_name)
{
    if (!want_case(case_name)) return false;
    if (opts_.list) {
        if (std::find(announced_.begin(), announced_.end(), case_name) == announced_.end())
            announced_.push_back(case_name);
        return false;
    }
    throw_if_stop_requested();
    start_case(case_name);
    return true;
}

void context::start_case(const std::string& case_name)
{
    if (case_name == current_case_) return;
    current_case_ = case_name;
    if (case_started_) case_started_(case_name);
}

void context::summary(const std::string& key, const std::string& value) { summaries_.emplace_back(key, value); }

void context::set_hooks(std::function<void(const std::string&)> case_started, std::function<void(const row&)> row_measured)
{
    case_started_ = std::move(case_started);
    row_measured_ = std::move(row_measured);
}

std::vector<double> context::measure(const row_spec& spec, const std::function<void(cudaStream_t)>& launch,
                                     const accuracy& error)
{
    if (opts_.list || !want_case(spec.case_name)) return {};
    // Before the variant filter: a deselected variant measure is still called
    // for fixes the case's footprint as in a run of every variant.
    const std::size_t case_footprint = footprints_.of(spec);
    if (!want_variant(spec.variant)) return {};
    require(static_cast<bool>(launch), "context::measure", "no launch function for " + spec.case_name);
    throw_if_stop_requested();
    const peak tc_peak = is_tc_peak(spec.compute) ? spec.compute : spec.ceiling;
    require(spec.mma_shape.empty() || !is_tc_peak(tc_peak) || !row_tc_shape(spec, ceil_).empty(), "context::measure",
            spec.case_name + " " + spec.variant + ": mma_shape '" + spec.mma_shape + "' is no measured shape at " +
                peak_name(tc_peak) + " precision");
    start_case(spec.case_name);
    warn_unknown_variant(workload_, spec.variant);
    const std::vector<std::string> states = cache_states(case_footprint, ceil_.l2_bytes);
    if (states != cache_states(spec.footprint_bytes, ceil_.l2_bytes))
        std::fprintf(stderr, "note: %s %s %s: its own footprint (%zu bytes) is labelled as the case's (%zu bytes)\n",
                     workload_.c_str(), spec.case_name.c_str(), spec.variant.c_str(), spec.footprint_bytes,
                     case_footprint);

    const warmup_result warm = warm_up(stream_, launch, opts_.warmup_s);
    rep_policy policy;
    policy.min_time_s = opts_.min_time_s;
    policy.min_reps = opts_.min_reps;

    std::vector<double> medians;
    for (const std::string& cache : states) {
        launch_fn before;
        int reps = repetitions_for(warm.per_launch_s, policy);
        if (cache == "cold") {
            if (!flush_buffer_) flush_buffer_ = alloc_flush_buffer(ceil_.l2_bytes, flush_bytes_);
            before = [this](cudaStream_t s) { flush_l2(s, flush_buffer_, flush_bytes_); };
            // a flush writes and reads its buffer: count it so the loop keeps to the time budget
            const double bw = ceil_.copy_gbs > 0 ? ceil_.copy_gbs * 1e9 : 1e12;
            reps = repetitions_for(warm.per_launch_s + 2.0 * static_cast<double>(flush_bytes_) / bw, policy);
        }
        row r;
        r.workload = workload_;
        r.case_name = spec.case_name;
        r.variant = spec.variant;
        r.cache = cache;
        r.spec = spec;
        r.cache_footprint_bytes = case_footprint;
        r.error = error;
        // A launch that waits on the host would wait on the hold kernel too (until its time-out).
        r.time = time_repetitions(stream_, launch, reps, before, !spec.host_sync);
        r.time.warmup_s = warm.seconds;
        if (cache != "cold") {  // a loop with flushes in it would measure the flush's power too
            r.avg_power_w = average_power_w(stream_, launch, warm.per_launch_s, opts_.energy_s);
            if (r.avg_power_w >= 0) {
                r.energy_j = r.avg_power_w * r.time.median_ms * 1e-3;
                r.edp = r.energy_j * r.time.median_ms * 1e-3;
            }
        }
        fill_metrics(r, ceil_);
        std::printf("%s\n", progress_line(r).c_str());
        std::fflush(stdout);
        medians.push_back(r.time.median_ms);
        rows_.push_back(std::move(r));
        if (row_measured_) row_measured_(rows_.back());
    }
    return medians;
}

}  // namespace tcore::bench
