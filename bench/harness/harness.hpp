// bench/harness/harness.hpp - the benchmark harness every workload reports
// through: the fair-measurement protocol, measured ceilings, metrics,
// energy, and CSV/JSON/terminal output.
//
// A workload is a function `void tcore_register_<name>(registry&)` that adds
// one `workload` whose `run(context&)` loops over its cases and variants:
//
//   ctx.measure({.case_name = "n=1M", .variant = "tc", .bytes = 16.0 * n,
//                .flops = n, .ceiling = peak::memory, .footprint_bytes = 16 * n},
//               [&](cudaStream_t s) { launch_tc(s); },
//               accuracy_of(ref, out_host));
//
// `measure` applies the protocol of "Can tensor cores accelerate non-GEMM
// workloads?": about one second of warm-up sized by a short calibration,
// then many repetitions timed with device events (median, min, max). A
// footprint that fits in L2 is measured twice, hot (same buffers) and cold
// (L2 flushed before each timed repetition); larger ones once ("stream").
// The footprint is the case's (case_footprints), so every variant of a case
// gets the same cache labels.
#pragma once

#include <tcore/check.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tcore::bench {

/// Which measured ceiling a case is held against.
enum class peak {
    memory,    ///< device-to-device copy bandwidth (GB/s)
    fp64_cc,   ///< FP64 FMA on CUDA cores
    fp64_tc,   ///< FP64 tensor core: the row's shape (row_spec::mma_shape), else the best measured
    tf32_tc,   ///< TF32 tensor core (mma.sync m16n8k8)
    fp16_tc,   ///< FP16 tensor core: FP32 accumulate (m16n8k16), or the row's shape (f16_m16n8k16_f16acc)
    fp32_cc,   ///< FP32 FMA on CUDA cores
    int_ops,   ///< 1-bit / integer work (no roofline point)
};
const char* peak_name(peak p);

/// Ceilings measured once per device at start-up and cached (by device
/// name, driver, CUDA runtime) in the results folder
/// (harness/ceilings.hpp says how).
struct ceilings {
    std::string device_name;
    std::string driver_version, runtime_version;  ///< the cache key, with device_name
    int sm_count = 0, compute_capability = 0;
    std::size_t l2_bytes = 0, global_mem_bytes = 0;
    double copy_gbs = 0;            ///< bytes read + written per second, large D2D copy
    double fp64_cc_tflops = 0;      ///< DFMA loop
    double fp32_cc_tflops = 0;      ///< FFMA loop
    double fp64_tc_tflops = 0;      ///< best FP64 mma shape
    double fp64_m8n8k4_tflops = 0;  ///< FP64 m8n8k4 (the Cubie study's shape)
    double fp64_m16n8k4_tflops = 0, fp64_m16n8k8_tflops = 0, fp64_m16n8k16_tflops = 0;
    double tf32_tc_tflops = 0;      ///< TF32 m16n8k8
    double fp16_tc_tflops = 0;      ///< FP16 m16n8k16, FP32 accumulate
    double fp16_f16acc_tc_tflops = 0;  ///< FP16 m16n8k16, FP16 accumulate
    double b1_tc_tops = 0;          ///< 1-bit m8n8k128 AND+popc, 2*M*N*K "ops" per MMA
    std::string fp64_tc_shape;      ///< the FP64 shape that gave fp64_tc_tflops
    /// TFLOP/s (or GB/s for peak::memory) of the ceiling `p`.
    double of(peak p) const;
    /// The ceiling `p` of a row whose tensor-core shape is `tc_shape` (a
    /// Shape::name(), as row_tc_shape gives it): that shape's measured peak
    /// where `p` is the tensor-core peak of the shape's precision, else of(p).
    double of(peak p, const std::string& tc_shape) const;
};

/// Error of a result against an FP64 CPU reference (Cubie's accuracy table).
struct accuracy {
    double avg_abs = 0, max_abs = 0, max_rel = 0;
    std::size_t count = 0;      ///< elements compared
    std::size_t mismatched = 0; ///< NaN/Inf where the reference is finite, or vice versa
};

/// A result element as double (arithmetic types, __half, __nv_bfloat16).
template <class T>
inline double to_double(T v) { return static_cast<double>(v); }
inline double to_double(__half v) { return static_cast<double>(__half2float(v)); }
inline double to_double(__nv_bfloat16 v) { return static_cast<double>(__bfloat162float(v)); }

/// Compares `got` (any arithmetic type, host memory) with `ref` element by element.
/// max_rel is max |got - ref| / max(|ref|, tiny) over elements with |ref| > 0.
/// Non-finite values: NaN against NaN and an infinity against the same
/// infinity agree (no error); any other pairing with a NaN or infinity on
/// either side counts as `mismatched` and is left out of the error sums.
/// avg_abs averages over the elements that entered the sums.
template <class T>
accuracy accuracy_of(const double* ref, const T* got, std::size_t n)
{
    accuracy acc;
    acc.count = n;
    double sum = 0;
    std::size_t summed = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double r = ref[i], g = to_double(got[i]);
        if (!std::isfinite(r) || !std::isfinite(g)) {
            const bool agree = (std::isnan(r) && std::isnan(g)) || (std::isinf(r) && g == r);
            if (!agree) ++acc.mismatched;
            continue;
        }
        const double err = std::fabs(g - r);
        sum += err;
        ++summed;
        if (err > acc.max_abs) acc.max_abs = err;
        const double mag = std::fabs(r);
        if (mag > 0) {
            const double rel = err / std::fmax(mag, std::numeric_limits<double>::min());
            if (rel > acc.max_rel) acc.max_rel = rel;
        }
    }
    acc.avg_abs = summed ? sum / static_cast<double>(summed) : 0;
    return acc;
}

/// accuracy_of over whole vectors; throws tcore::error if the sizes differ.
template <class T, class A1, class A2>
accuracy accuracy_of(const std::vector<double, A1>& ref, const std::vector<T, A2>& got)
{
    ::tcore::require(ref.size() == got.size(), "accuracy_of",
                     "reference has " + std::to_string(ref.size()) + " elements, result " +
                         std::to_string(got.size()));
    return accuracy_of(ref.data(), got.data(), ref.size());
}

/// Timing statistics of one measured configuration, in milliseconds.
struct timing {
    double median_ms = 0, min_ms = 0, max_ms = 0;
    int repetitions = 0;
    double warmup_s = 0;   ///< wall time spent warming up
};

/// What a workload says about one (case, variant) it measures.
struct row_spec {
    std::string case_name;          ///< e.g. "n=268435456", "4096^3"
    std::string variant;            ///< "base", "tc", "cc", "cce" (or "tc-m8n8k4", ...)
    double bytes = 0;               ///< minimum bytes the operation must move
    double flops = 0;               ///< useful floating-point operations (not padded work)
    peak ceiling = peak::memory;    ///< ceiling for "fraction of peak"
    peak compute = peak::fp64_cc;   ///< compute roof for the roofline (memory rows too)
    std::size_t footprint_bytes = 0;///< device bytes touched per run
    std::string note;               ///< free text (e.g. "shape m16n8k16", "prep excluded")
    /// The MMA shape the row's tensor-core kernel issues, whose own measured
    /// peak its tensor-core ceiling, roof and TC bound then use: a
    /// Shape::name() ("f64_m16n8k8", "f16_m16n8k16_f16acc") or its geometry
    /// ("m16n8k8", at the precision of the row's peak). Empty: the shape the
    /// variant's name spells ("tc-m8n8k4"), else the precision's default
    /// (FP64: the best measured shape). row_tc_shape says which applies.
    std::string mma_shape;
    /// Device bytes of the case's inputs and outputs, the same for every
    /// variant of the case; decides hot/cold/stream for all of them
    /// (case_footprints). 0: the case's first measured variant's
    /// footprint_bytes decides.
    std::size_t case_footprint_bytes = 0;
    /// The timed function waits on the host (cudaStreamSynchronize, a
    /// blocking cudaMemcpy, a library call that reads a result back): the
    /// launch hold cannot queue the repetitions ahead, so host gaps fall
    /// inside the timed events. Measured without the hold; flagged in
    /// every output.
    bool host_sync = false;
};

/// One footprint per case decides the cache states of all its variants, so
/// that a case never compares a hot row of one variant with a stream row
/// of another: the first footprint seen for the case (its
/// case_footprint_bytes where given, else its footprint_bytes) holds for
/// every later variant of that case, whatever its own footprint.
class case_footprints {
public:
    /// The footprint that decides `spec`'s cache states.
    std::size_t of(const row_spec& spec);

private:
    std::map<std::string, std::size_t> by_case_;
};

/// One output row: a measured (workload, case, variant, cache state).
struct row {
    std::string workload, case_name, variant, cache;  // cache: "hot", "cold" or "stream"
    row_spec spec;
    std::size_t cache_footprint_bytes = 0;  ///< the case's footprint that decided `cache` (case_footprints)
    std::string tc_shape;                   ///< row_tc_shape: the MMA shape of its tensor-core peaks ("" none)
    double tc_alpha = -1;                   ///< the alpha tc_bound used (-1: no bound)
    timing time;
    accuracy error;
    double gbs = 0, gflops = 0, fraction_of_peak = 0;
    double intensity = 0, roofline_gflops = 0;   ///< flops/byte and min(peak, I * bw)
    double avg_power_w = -1, energy_j = -1, edp = -1;  ///< -1: no NVML
    /// On a memory-bound tc-like row with a cc-like partner (same workload,
    /// case, cache): the bound 1 + (a-1)/(1+a) and the measured speedup
    /// (partner's median / this row's median); -1 elsewhere.
    double tc_bound = -1, tc_speedup = -1;
    std::string tc_partner;   ///< the cc-like variant tc_speedup compares with
};

/// One case of the user's (--input WORKLOAD:KEY=VALUE,...): its workload
/// and its keys' values, in the order given.
struct user_input {
    std::string workload, text;  ///< text: the value after the colon, as given
    std::vector<std::pair<std::string, std::string>> values;
    /// The value of `key`, or `fallback` where this input does not set it.
    std::string get(const std::string& key, const std::string& fallback = "") const
    {
        for (const auto& [k, v] : values)
            if (k == key) return v;
        return fallback;
    }
};

struct options {
    std::vector<std::string> workloads, cases, variants;  ///< filters (substring match; empty = all)
    bool quick = false;       ///< small sizes only
    bool full = false;        ///< every case; else the headline cases (harness/headline.hpp) unless --case names them
    bool list = false;        ///< list workloads and cases, run nothing
    std::vector<std::string> matrices;  ///< --matrix: .mtx files (folders expanded), cases of the matrix workloads
    std::vector<user_input> inputs;     ///< --input: the user's cases of workloads that take them
    double warmup_s = 1.0;    ///< time-based warm-up per configuration
    double min_time_s = 0.2;  ///< timed repetitions last at least this long ...
    int min_reps = 20;        ///< ... and number at least this many
    std::string out_dir = "tcore-results/latest";  ///< main() sets results/latest beside the executable
    int device = 0;
    bool remeasure_ceilings = false;  ///< ignore the cached ceilings file
    double energy_s = 0.3;    ///< length of the power-sampling loop per row (NVML only)
    /// Which of the timing values the command line set (the rest take the
    /// mode's defaults: harness/cli.hpp, apply_mode_defaults).
    bool warmup_given = false, min_time_given = false, min_reps_given = false, energy_given = false;
};

/// True where the run is limited to the headline cases: no --full, --quick or --case.
inline bool headline_only(const options& o) { return !o.full && !o.quick && o.cases.empty(); }

/// Thrown out of context::announce_case / measure once SIGINT or SIGTERM
/// asked the run to stop (harness/stop.hpp). Not a std::exception, so that a
/// workload's own catch clauses let it through.
struct run_interrupted {
    int signal = 0;
};

class context;

/// A registered workload.
struct workload {
    workload(std::string name_, std::string description_, std::function<void(context&)> run_,
             bool takes_matrices_ = false)
        : name(std::move(name_)), description(std::move(description_)), run(std::move(run_)),
          takes_matrices(takes_matrices_)
    {
    }
    std::string name, description;
    std::function<void(context&)> run;
    bool takes_matrices = false;  ///< its cases become the --matrix files when given
    /// The --input keys it reads ({key, what the value is}); none: it takes
    /// no --input. Given inputs, its cases are those inputs (input_case).
    std::vector<std::pair<std::string, std::string>> input_keys;
    /// Checks one --input's values before anything runs: "" or what is
    /// wrong (the driver prints it and exits 2). Keys are checked already.
    std::function<std::string(const user_input&)> check_input;
    /// Cases come from the user (--matrix or --input) under these options.
    bool takes_user_cases(const options& o) const
    {
        if (takes_matrices && !o.matrices.empty()) return true;
        for (const user_input& in : o.inputs)
            if (in.workload == name) return true;
        return false;
    }
};

/// The workloads a binary knows; filled by tcore_register_<name>() calls.
struct registry {
    std::vector<workload> workloads;
    void add(workload w) { workloads.push_back(std::move(w)); }
};

/// What a running workload talks to.
class context {
public:
    /// every_case: the headline restriction does not apply (the workload's
    /// cases are the user's --matrix files).
    context(const options& opts, const ceilings& ceil, std::string workload_name, bool every_case = false);
    ~context();
    context(const context&) = delete;
    context& operator=(const context&) = delete;

    const options& opts() const { return opts_; }
    /// This workload's --input cases (empty: its own cases run).
    std::vector<user_input> inputs() const
    {
        std::vector<user_input> out;
        for (const user_input& in : opts_.inputs)
            if (in.workload == workload_) out.push_back(in);
        return out;
    }
    const ceilings& ceil() const { return ceil_; }
    bool quick() const { return opts_.quick; }
    cudaStream_t stream() const { return stream_; }

    /// True if the filters select this case / variant (so the workload can
    /// skip preparing it). Without --full, --quick or --case, only the
    /// headline cases are selected.
    bool want_case(const std::string& case_name) const;
    bool want_variant(const std::string& variant) const;
    /// In --list mode: record the case name (if the filters select it) and
    /// return false (nothing runs). Otherwise: want_case(case_name); a
    /// selected case is reported to the case hook, and a requested stop
    /// throws run_interrupted here.
    bool announce_case(const std::string& case_name);
    /// The case names announced so far (what --list prints).
    const std::vector<std::string>& announced() const { return announced_; }

    /// Times `launch` under the protocol and records one row (or a hot and a
    /// cold row). `launch` must enqueue the whole operation on the stream it
    /// is given and be safe to repeat (spec.host_sync where it waits on the
    /// host). Returns the rows' median times (ms), hot first; empty (nothing
    /// run) in --list mode or when the filters deselect the case or variant.
    /// The cache states follow the case's footprint (case_footprints), the
    /// same for every variant of a case; a footprint of 0 means "no memory
    /// footprint to speak of" (pure compute): one row, "hot". Throws
    /// tcore::error if spec.mma_shape names no measured shape at the
    /// precision of the row's tensor-core peak (a row without one ignores it).
    std::vector<double> measure(const row_spec& spec, const std::function<void(cudaStream_t)>& launch,
                                const accuracy& error);

    /// Extra key=value facts for the report (e.g. "geomean cc/tc below L2/2").
    void summary(const std::string& key, const std::string& value);

    /// Called when a selected case starts (announce_case, or measure of a
    /// case not announced) and after each measured row; the driver's progress
    /// lines and per-row output hang here.
    void set_hooks(std::function<void(const std::string& case_name)> case_started,
                   std::function<void(const row&)> row_measured);

    const std::vector<row>& rows() const { return rows_; }
    const std::vector<std::pair<std::string, std::string>>& summaries() const { return summaries_; }

private:
    const options& opts_;
    const ceilings& ceil_;
    std::string workload_;
    cudaStream_t stream_ = nullptr;
    void* flush_buffer_ = nullptr;
    std::size_t flush_bytes_ = 0;
    std::vector<row> rows_;
    std::vector<std::pair<std::string, std::string>> summaries_;
    std::vector<std::string> announced_;
    case_footprints footprints_;
    bool headline_only_ = false;
    std::string current_case_;
    std::function<void(const std::string&)> case_started_;
    std::function<void(const row&)> row_measured_;
    void start_case(const std::string& case_name);
};

// -- arithmetic the harness reports (pure functions: tests/host checks them) --

/// Median, min, max of samples (median of an even count: mean of the middle two).
timing stats_of(std::vector<double> samples_ms);
/// Geometric mean of positive values (0 for an empty list).
double geomean(const std::vector<double>& values);
/// GB/s for `bytes` moved in `ms` milliseconds.
inline double gbs_of(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }
/// GFLOP/s for `flops` in `ms` milliseconds.
inline double gflops_of(double flops, double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e9 : 0; }
/// Attainable GFLOP/s on the roofline: min(compute roof, intensity * bandwidth).
inline double roofline_gflops(double intensity, double peak_gflops, double bw_gbs)
{
    const double mem = intensity * bw_gbs;
    return mem < peak_gflops ? mem : peak_gflops;
}
/// Upper bound on tensor-core speedup of a memory-bound kernel,
/// 1 + (alpha - 1) / (1 + alpha), alpha = tensor-core peak / CUDA-core peak.
inline double tc_speedup_bound(double alpha) { return 1.0 + (alpha - 1.0) / (1.0 + alpha); }
/// Operational intensity in flop/byte: flops / bytes; +infinity for pure
/// compute (bytes == 0, flops > 0); 0 where there are no flops.
inline double intensity_of(double flops, double bytes)
{
    if (flops <= 0) return 0;
    return bytes > 0 ? flops / bytes : std::numeric_limits<double>::infinity();
}
/// Filter matching as the options use it: an empty list matches everything;
/// an entry "=x" matches the name x exactly, any other entry is a substring.
bool name_matches(const std::vector<std::string>& filters, const std::string& name);
/// The cache states a footprint is measured in: {"hot", "cold"} if it fits
/// in L2 (0 < footprint <= l2_bytes), {"stream"} if larger, {"hot"} for 0.
/// context::measure passes the case's footprint (case_footprints).
std::vector<std::string> cache_states(std::size_t footprint_bytes, std::size_t l2_bytes);
/// Fills a row's tc_shape, gbs, gflops, fraction_of_peak, intensity and
/// roofline_gflops from its spec, median time and the ceilings (tensor-core
/// ceilings and roofs at the row's shape, row_tc_shape). Unknown ceilings
/// (0) and int_ops rooflines give -1.
void fill_metrics(row& r, const ceilings& c);
/// "tc", "tc-..." / "tc_..." are tc-like variants; "cc", "cc-..." / "cc_..."
/// cc-like ("cce" is neither).
bool is_tc_like(const std::string& variant);
bool is_cc_like(const std::string& variant);
/// The MMA geometry a variant's name spells: "m16n8k4" of "tc-m16n8k4",
/// "m8n8k4" of "cc-m8n8k4"; "" if it spells none.
std::string shape_in_variant(const std::string& variant);
/// row_spec::mma_shape for a tc-like variant: the geometry its name spells,
/// else `fallback` (the shape the workload's plain "tc" kernel issues); ""
/// for every other variant, whose rows use CUDA-core or library peaks.
std::string tc_shape_of(const std::string& variant, const std::string& fallback);
/// True for the ceilings a shape can refine: fp64_tc, tf32_tc, fp16_tc.
bool is_tc_peak(peak p);
/// The measured shape (its Shape::name()) that `shape` names at the
/// precision of the tensor-core peak `p`: the name itself, or the first
/// measured shape of that precision with that geometry ("m16n8k16" at
/// fp16_tc: f16_m16n8k16_f32acc); "" if none.
std::string resolve_mma_shape(peak p, const std::string& shape);
/// The MMA shape whose measured peak a row's tensor-core ceiling and roof
/// use (its compute peak's precision, else its ceiling's): spec.mma_shape
/// resolved; else the geometry its variant name spells, where measured at
/// that precision; else the precision's default (FP64: c.fp64_tc_shape,
/// the best measured; TF32: tf32_m16n8k8; FP16: f16_m16n8k16_f32acc).
/// "" where neither peak is a tensor-core peak, or spec.mma_shape names no
/// measured shape.
std::string row_tc_shape(const row_spec& spec, const ceilings& c);
/// alpha = tensor-core peak / CUDA-core peak for a row's precision: FP64
/// over FP64 FMA, TF32 and FP16 over FP32 FMA (the cuda_core backend
/// accumulates in FP32). The tensor-core peak is that of `mma_shape` where
/// given, else of the shape the variant's name spells (m8n8k4 of
/// "tc-m8n8k4"), else the precision's default (FP64: the best measured
/// shape). -1 if unknown (a shape not measured at that precision included).
double tc_alpha(const ceilings& c, peak compute, const std::string& variant, const std::string& mma_shape = "");
/// Sets tc_alpha / tc_bound / tc_speedup / tc_partner on every memory-bound tc-like
/// row that has a cc-like partner in the same workload, case and cache
/// (the partner with the same suffix, else plain "cc", else the first).
void pair_tc_cc(std::vector<row>& rows, const ceilings& c);

/// The summary lines of a case whose variants' median times (ms) are in
/// `times`: t(other)/t(tc) for each of `others` measured, then the headline,
/// tc against the fastest of them other than the cc twin, its name in the
/// value ("1.020 (cce)").
inline void summarize_against_tc(context& ctx, const std::string& case_name, const std::map<std::string, double>& times,
                                 std::initializer_list<const char*> others)
{
    const auto tc = times.find("tc");
    if (tc == times.end() || tc->second <= 0) return;
    auto ratio = [&](double t) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3f", t / tc->second);
        return std::string(buf);
    };
    const char* best = nullptr;
    double best_t = 0;
    for (const char* other : others) {
        const auto it = times.find(other);
        if (it == times.end()) continue;
        ctx.summary(case_name + ": t(" + other + ")/t(tc)", ratio(it->second));
        if (std::string(other) != "cc" && (!best || it->second < best_t)) best = other, best_t = it->second;
    }
    if (best) ctx.summary(case_name + ": t(best of base variants, cce)/t(tc)", ratio(best_t) + " (" + best + ")");
}

}  // namespace tcore::bench
