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
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tcore::bench {

/// Which measured ceiling a case is held against.
enum class peak {
    memory,    ///< device-to-device copy bandwidth (GB/s)
    fp64_cc,   ///< FP64 FMA on CUDA cores
    fp64_tc,   ///< FP64 tensor core, best shape (m16n8k16 on sm_90)
    tf32_tc,   ///< TF32 tensor core (mma.sync m16n8k8)
    fp16_tc,   ///< FP16 tensor core, FP32 accumulate (mma.sync m16n8k16)
    fp32_cc,   ///< FP32 FMA on CUDA cores
    int_ops,   ///< 1-bit / integer work (no roofline point)
};
const char* peak_name(peak p);

/// Ceilings measured once per device at start-up and cached (by device
/// name, driver, clock) in the results folder.
struct ceilings {
    std::string device_name;
    int sm_count = 0, compute_capability = 0;
    std::size_t l2_bytes = 0, global_mem_bytes = 0;
    double copy_gbs = 0;            ///< bytes read + written per second, large D2D copy
    double fp64_cc_tflops = 0;      ///< DFMA loop
    double fp32_cc_tflops = 0;      ///< FFMA loop
    double fp64_tc_tflops = 0;      ///< best FP64 mma shape
    double fp64_m8n8k4_tflops = 0;  ///< FP64 m8n8k4 (the Cubie study's shape)
    double tf32_tc_tflops = 0;
    double fp16_tc_tflops = 0;
    /// TFLOP/s (or GB/s for peak::memory) of the ceiling `p`.
    double of(peak p) const;
};

/// Error of a result against an FP64 CPU reference (Cubie's accuracy table).
struct accuracy {
    double avg_abs = 0, max_abs = 0, max_rel = 0;
    std::size_t count = 0;      ///< elements compared
    std::size_t mismatched = 0; ///< NaN/Inf where the reference is finite, or vice versa
};

/// Compares `got` (any arithmetic type, host memory) with `ref` element by element.
/// max_rel is max |got - ref| / max(|ref|, tiny) over elements with |ref| > 0.
template <class T>
accuracy accuracy_of(const double* ref, const T* got, std::size_t n);

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
    std::size_t footprint_bytes = 0;///< device bytes touched per run (decides hot/cold)
    std::string note;               ///< free text (e.g. "shape m16n8k16", "prep excluded")
};

/// One output row: a measured (workload, case, variant, cache state).
struct row {
    std::string workload, case_name, variant, cache;  // cache: "hot", "cold" or "stream"
    row_spec spec;
    timing time;
    accuracy error;
    double gbs = 0, gflops = 0, fraction_of_peak = 0;
    double intensity = 0, roofline_gflops = 0;   ///< flops/byte and min(peak, I * bw)
    double avg_power_w = -1, energy_j = -1, edp = -1;  ///< -1: no NVML
};

struct options {
    std::vector<std::string> workloads, cases, variants;  ///< filters (substring match; empty = all)
    bool quick = false;       ///< small sizes only
    bool list = false;        ///< list workloads and cases, run nothing
    double warmup_s = 1.0;    ///< time-based warm-up per configuration
    double min_time_s = 0.2;  ///< timed repetitions last at least this long ...
    int min_reps = 20;        ///< ... and number at least this many
    std::string out_dir = "bench/results/latest";
    int device = 0;
};

class context;

/// A registered workload.
struct workload {
    std::string name, description;
    std::function<void(context&)> run;
};

/// The workloads a binary knows; filled by tcore_register_<name>() calls.
struct registry {
    std::vector<workload> workloads;
    void add(workload w) { workloads.push_back(std::move(w)); }
};

/// What a running workload talks to.
class context {
public:
    context(const options& opts, const ceilings& ceil, std::string workload_name);
    ~context();
    context(const context&) = delete;
    context& operator=(const context&) = delete;

    const options& opts() const { return opts_; }
    const ceilings& ceil() const { return ceil_; }
    bool quick() const { return opts_.quick; }
    cudaStream_t stream() const { return stream_; }

    /// True if the filters select this case / variant (so the workload can
    /// skip preparing it).
    bool want_case(const std::string& case_name) const;
    bool want_variant(const std::string& variant) const;
    /// In --list mode: record the case name and return false (nothing runs).
    bool announce_case(const std::string& case_name);

    /// Times `launch` under the protocol and records one row (or a hot and a
    /// cold row). `launch` must enqueue the whole operation on the stream it
    /// is given and be safe to repeat. Returns the rows' median times (ms).
    std::vector<double> measure(const row_spec& spec, const std::function<void(cudaStream_t)>& launch,
                                const accuracy& error);

    /// Extra key=value facts for the report (e.g. "geomean cc/tc below L2/2").
    void summary(const std::string& key, const std::string& value);

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

}  // namespace tcore::bench
