// libs: tcore_bench_harness
// tests/host/test_harness.cu - the benchmark harness on the CPU: statistics,
// geomean, GB/s, GFLOP/s, intensity, roofline, the tensor-core speedup bound
// and its tc/cc pairing, each row's MMA shape and its own peak (alpha,
// ceiling, roof), one cache label per case, the host-sync flag in every
// output, accuracy (NaN/Inf included), cache states, filters,
// repetition counts, CSV/JSON escaping, the ceilings cache's round trip; the
// command line (bad values, unknown options, --matrix paths, filters that
// match nothing, the modes' timing defaults); the headline set (against the
// case names of bench/results/h100/results.csv, run from the source tree);
// the results files while a run goes on and after it stops (valid CSV and
// JSON, marked partial); progress lines; the stop flag and its signal
// handler. Needs no GPU.
#include "common/test_util.hpp"

#include "harness/ceilings.hpp"
#include "harness/cli.hpp"
#include "harness/harness.hpp"
#include "harness/headline.hpp"
#include "harness/inputs.hpp"
#include "harness/report.hpp"
#include "harness/stop.hpp"
#include "harness/timing.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace tcore::bench;

namespace {

tcore::test::tally t;

bool near(double got, double want, double tol = 1e-12)
{
    return std::fabs(got - want) <= tol * std::fmax(1.0, std::fabs(want));
}

const double inf = std::numeric_limits<double>::infinity();
const double nan_value = std::numeric_limits<double>::quiet_NaN();

ceilings sample_ceilings()
{
    ceilings c;
    c.device_name = "Test GPU, \"rev 2\"";
    c.driver_version = "570.86.15";
    c.runtime_version = "13.0";
    c.sm_count = 132;
    c.compute_capability = 90;
    c.l2_bytes = std::size_t(50) << 20;
    c.global_mem_bytes = std::size_t(80) << 30;
    c.copy_gbs = 3000;
    c.fp64_cc_tflops = 30;
    c.fp32_cc_tflops = 60;
    c.fp64_tc_tflops = 60;
    c.fp64_tc_shape = "f64_m16n8k16";
    c.fp64_m8n8k4_tflops = 33;
    c.fp64_m16n8k4_tflops = 45;
    c.fp64_m16n8k8_tflops = 52;
    c.fp64_m16n8k16_tflops = 60;
    c.tf32_tc_tflops = 320;
    c.fp16_tc_tflops = 640;
    c.fp16_f16acc_tc_tflops = 900;
    c.b1_tc_tops = 3800;
    return c;
}

row make_row(const std::string& workload, const std::string& case_name, const std::string& variant,
             const std::string& cache, double median_ms, peak ceiling = peak::memory, peak compute = peak::fp64_tc)
{
    row r;
    r.workload = workload;
    r.case_name = case_name;
    r.variant = variant;
    r.cache = cache;
    r.spec.case_name = case_name;
    r.spec.variant = variant;
    r.spec.ceiling = ceiling;
    r.spec.compute = compute;
    r.time.median_ms = median_ms;
    return r;
}

/// The index of column `name` in a CSV header's fields (the size if absent).
std::size_t column(const std::vector<std::string>& header, const std::string& name)
{
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
}

/// Splits one CSV line (RFC 4180 quoting) into fields.
std::vector<std::string> split_csv(const std::string& line)
{
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted) {
            if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
            else if (ch == '"') quoted = false;
            else fields.back() += ch;
        } else if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            fields.emplace_back();
        } else {
            fields.back() += ch;
        }
    }
    return fields;
}

void test_statistics()
{
    const timing odd = stats_of({3.0, 1.0, 2.0});
    t.check(odd.median_ms == 2.0 && odd.min_ms == 1.0 && odd.max_ms == 3.0 && odd.repetitions == 3,
            "stats_of odd: median %g min %g max %g reps %d", odd.median_ms, odd.min_ms, odd.max_ms, odd.repetitions);
    const timing even = stats_of({4.0, 1.0, 3.0, 2.0});
    t.check(even.median_ms == 2.5 && even.min_ms == 1.0 && even.max_ms == 4.0 && even.repetitions == 4,
            "stats_of even: median %g min %g max %g", even.median_ms, even.min_ms, even.max_ms);
    const timing one = stats_of({5.0});
    t.check(one.median_ms == 5.0 && one.min_ms == 5.0 && one.max_ms == 5.0, "stats_of single");
    const timing none = stats_of({});
    t.check(none.median_ms == 0 && none.repetitions == 0, "stats_of empty");

    t.check(near(geomean({1.0, 4.0, 16.0}), 4.0), "geomean 1,4,16 = %g", geomean({1.0, 4.0, 16.0}));
    t.check(near(geomean({2.0, 8.0}), 4.0), "geomean 2,8");
    t.check(geomean({}) == 0, "geomean empty");
}

void test_rates_and_roofline()
{
    t.check(near(gbs_of(1e9, 1.0), 1000.0), "gbs_of 1 GB in 1 ms = %g", gbs_of(1e9, 1.0));
    t.check(near(gflops_of(2e9, 2.0), 1000.0), "gflops_of");
    t.check(gbs_of(1e9, 0) == 0 && gflops_of(1e9, 0) == 0, "rates of a zero time");
    t.check(near(intensity_of(1, 16), 1.0 / 16), "intensity of SCALE = 1/16");
    t.check(std::isinf(intensity_of(5, 0)), "intensity of pure compute is infinite");
    t.check(intensity_of(0, 8) == 0 && intensity_of(0, 0) == 0, "intensity without flops is 0");
    t.check(near(roofline_gflops(1.0 / 16, 30000, 3000), 187.5), "roofline, memory-bound side");
    t.check(near(roofline_gflops(100, 30000, 3000), 30000), "roofline, compute-bound side");
    t.check(near(roofline_gflops(inf, 30000, 3000), 30000), "roofline at infinite intensity");
    t.check(near(tc_speedup_bound(2.0), 4.0 / 3.0), "bound(2) = %.15g", tc_speedup_bound(2.0));
    t.check(near(tc_speedup_bound(1.0), 1.0), "bound(1) = 1");
    t.check(near(tc_speedup_bound(1e12), 2.0, 1e-9), "bound tends to 2");
}

void test_fill_metrics()
{
    const ceilings c = sample_ceilings();
    row m = make_row("scale", "n=1M", "tc", "stream", 0.01, peak::memory, peak::fp64_tc);
    m.spec.bytes = 16e6;
    m.spec.flops = 1e6;
    fill_metrics(m, c);
    t.check(near(m.gbs, 1600) && near(m.gflops, 100), "memory row rates: %g GB/s %g GFLOP/s", m.gbs, m.gflops);
    t.check(near(m.fraction_of_peak, 1600.0 / 3000), "memory row fraction %g", m.fraction_of_peak);
    t.check(near(m.intensity, 1.0 / 16) && near(m.roofline_gflops, 187.5), "memory row roofline %g at %g",
            m.roofline_gflops, m.intensity);

    row k = make_row("mma_peak", "f64_m16n8k16", "tc", "hot", 1.0, peak::fp64_tc, peak::fp64_tc);
    k.spec.flops = 6e10;
    fill_metrics(k, c);
    t.check(near(k.gflops, 60000) && near(k.fraction_of_peak, 1.0), "compute row: %g GFLOP/s, fraction %g", k.gflops,
            k.fraction_of_peak);
    t.check(std::isinf(k.intensity) && near(k.roofline_gflops, 60000) && k.gbs == 0, "bytes = 0 row");

    row b = make_row("mma_peak", "b1", "tc", "hot", 1.0, peak::int_ops, peak::int_ops);
    b.spec.flops = 3.8e12;
    fill_metrics(b, c);
    t.check(near(b.fraction_of_peak, 1.0) && b.roofline_gflops == -1, "int_ops: fraction %g, no roofline",
            b.fraction_of_peak);

    ceilings unknown;
    row u = m;
    fill_metrics(u, unknown);
    t.check(u.fraction_of_peak == -1 && u.roofline_gflops == -1, "unknown ceilings give -1");

    t.check(c.of(peak::memory) == 3000 && c.of(peak::fp64_tc) == 60 && c.of(peak::fp64_cc) == 30 &&
                c.of(peak::tf32_tc) == 320 && c.of(peak::fp16_tc) == 640 && c.of(peak::fp32_cc) == 60 &&
                c.of(peak::int_ops) == 3800,
            "ceilings::of");
    t.check(std::string(peak_name(peak::memory)) == "memory" && std::string(peak_name(peak::fp64_tc)) == "fp64_tc",
            "peak_name");
}

void test_pairing()
{
    const ceilings c = sample_ceilings();
    t.check(is_tc_like("tc") && is_tc_like("tc-m8n8k4") && is_tc_like("tc_v2") && !is_tc_like("tcx") &&
                !is_tc_like("base"),
            "is_tc_like");
    t.check(is_cc_like("cc") && is_cc_like("cc-m8n8k4") && !is_cc_like("cce") && !is_cc_like("tc"), "is_cc_like");
    t.check(near(tc_alpha(c, peak::fp64_tc, "tc"), 2.0), "alpha fp64");
    t.check(near(tc_alpha(c, peak::fp64_tc, "tc-m8n8k4"), 33.0 / 30), "alpha m8n8k4");
    t.check(near(tc_alpha(c, peak::tf32_tc, "tc"), 320.0 / 60), "alpha tf32");
    t.check(tc_alpha(c, peak::memory, "tc") == -1 && tc_alpha(ceilings{}, peak::fp64_tc, "tc") == -1,
            "alpha unknown");

    std::vector<row> rows = {
        make_row("gemv", "n=4096", "base", "hot", 1.0),
        make_row("gemv", "n=4096", "tc", "hot", 2.0),
        make_row("gemv", "n=4096", "cc", "hot", 3.0),
        make_row("gemv", "n=4096", "cce", "hot", 1.5),
        make_row("gemv", "n=4096", "tc-m8n8k4", "hot", 4.0),
        make_row("gemv", "n=4096", "cc-m8n8k4", "hot", 6.0),
        make_row("gemv", "n=4096", "tc", "cold", 2.0),        // no cold cc
        make_row("gemv", "n=8192", "cc", "hot", 1.0),         // other case
        make_row("other", "n=4096", "cc", "hot", 1.0),        // other workload
        make_row("gemm", "4096^3", "tc", "hot", 1.0, peak::fp64_tc),  // compute-bound
        make_row("gemm", "4096^3", "cc", "hot", 2.0, peak::fp64_cc),
    };
    pair_tc_cc(rows, c);
    const row& tc = rows[1];
    t.check(near(tc.tc_bound, 4.0 / 3.0) && near(tc.tc_speedup, 1.5) && tc.tc_partner == "cc",
            "tc hot: bound %g speedup %g partner %s", tc.tc_bound, tc.tc_speedup, tc.tc_partner.c_str());
    const row& m8 = rows[4];
    t.check(near(m8.tc_bound, tc_speedup_bound(33.0 / 30)) && near(m8.tc_speedup, 1.5) && m8.tc_partner == "cc-m8n8k4",
            "tc-m8n8k4 pairs with cc-m8n8k4 (partner %s)", m8.tc_partner.c_str());
    t.check(rows[6].tc_bound == -1 && rows[6].tc_speedup == -1, "tc cold without a cold cc: no bound");
    t.check(rows[2].tc_bound == -1 && rows[3].tc_bound == -1 && rows[0].tc_bound == -1, "only tc-like rows carry it");
    t.check(rows[9].tc_bound == -1, "compute-bound rows carry no bound");
}

void test_mma_shapes()
{
    const ceilings c = sample_ceilings();
    t.check(shape_in_variant("tc-m16n8k4") == "m16n8k4" && shape_in_variant("cc-m8n8k4") == "m8n8k4" &&
                shape_in_variant("tc-m16n8k16-x") == "m16n8k16" && shape_in_variant("m16n8k8") == "m16n8k8",
            "shape_in_variant finds the geometry a name spells");
    t.check(shape_in_variant("tc").empty() && shape_in_variant("tc-bundle").empty() &&
                shape_in_variant("tc-xm8n8k4").empty() && shape_in_variant("tc-m8n8").empty() &&
                shape_in_variant("tc-m8n8k4x").empty(),
            "shape_in_variant: none in tc, tc-bundle, mid-word or partial geometries");
    t.check(tc_shape_of("tc", "m16n8k8") == "m16n8k8" && tc_shape_of("tc-m8n8k4", "m16n8k8") == "m8n8k4" &&
                tc_shape_of("tc-bundle", "m8n8k4") == "m8n8k4",
            "tc_shape_of: the spelled geometry, else the fallback");
    t.check(tc_shape_of("cc", "m16n8k8").empty() && tc_shape_of("cc-m8n8k4", "m16n8k8").empty() &&
                tc_shape_of("base", "m16n8k8").empty() && tc_shape_of("cce", "m8n8k4").empty(),
            "tc_shape_of: nothing for variants that are not tc-like");

    t.check(resolve_mma_shape(peak::fp64_tc, "m16n8k8") == "f64_m16n8k8" &&
                resolve_mma_shape(peak::fp64_tc, "f64_m8n8k4") == "f64_m8n8k4" &&
                resolve_mma_shape(peak::fp16_tc, "m16n8k16") == "f16_m16n8k16_f32acc" &&
                resolve_mma_shape(peak::fp16_tc, "f16_m16n8k16_f16acc") == "f16_m16n8k16_f16acc" &&
                resolve_mma_shape(peak::tf32_tc, "m16n8k8") == "tf32_m16n8k8",
            "resolve_mma_shape: names and geometries at the peak's precision");
    t.check(resolve_mma_shape(peak::tf32_tc, "m16n8k4").empty() &&
                resolve_mma_shape(peak::fp64_tc, "f16_m16n8k16_f32acc").empty() &&
                resolve_mma_shape(peak::fp64_tc, "m16n8k1").empty() && resolve_mma_shape(peak::fp64_tc, "").empty() &&
                resolve_mma_shape(peak::fp64_cc, "m8n8k4").empty() && resolve_mma_shape(peak::fp64_tc, "k8").empty(),
            "resolve_mma_shape: nothing for unmeasured shapes, other precisions, CUDA-core peaks");

    t.check(c.of(peak::fp64_tc, "f64_m16n8k8") == 52 && c.of(peak::fp64_tc, "f64_m8n8k4") == 33 &&
                c.of(peak::fp64_tc, "f64_m16n8k4") == 45 && c.of(peak::fp64_tc, "") == 60 &&
                c.of(peak::fp16_tc, "f16_m16n8k16_f16acc") == 900 && c.of(peak::fp16_tc, "f16_m16n8k16_f32acc") == 640,
            "ceilings::of a shape: that shape's peak");
    t.check(c.of(peak::fp64_cc, "f64_m8n8k4") == 30 && c.of(peak::memory, "f64_m8n8k4") == 3000 &&
                c.of(peak::tf32_tc, "f64_m8n8k4") == 320,
            "ceilings::of: CUDA-core and memory ceilings, and other precisions, ignore the shape");

    row_spec tc;
    tc.variant = "tc";
    tc.ceiling = peak::memory;
    tc.compute = peak::fp64_tc;
    t.check(row_tc_shape(tc, c) == "f64_m16n8k16", "row naming nothing: the best FP64 shape (%s)",
            row_tc_shape(tc, c).c_str());
    row_spec named = tc;
    named.mma_shape = "m16n8k8";
    t.check(row_tc_shape(named, c) == "f64_m16n8k8", "row naming m16n8k8: %s", row_tc_shape(named, c).c_str());
    row_spec spelled = tc;
    spelled.variant = "tc-m16n8k4";
    t.check(row_tc_shape(spelled, c) == "f64_m16n8k4", "tc-m16n8k4 naming nothing: the spelled shape");
    spelled.mma_shape = "f64_m8n8k4";
    t.check(row_tc_shape(spelled, c) == "f64_m8n8k4", "a named shape wins over the spelled one");
    row_spec cc = tc;
    cc.variant = "cc";
    cc.compute = peak::fp64_cc;
    t.check(row_tc_shape(cc, c).empty(), "CUDA-core row: no tensor-core shape");
    row_spec compute_bound = tc;
    compute_bound.ceiling = peak::fp64_tc;
    compute_bound.compute = peak::fp64_cc;
    t.check(row_tc_shape(compute_bound, c) == "f64_m16n8k16", "a tensor-core ceiling alone takes a shape");
    row_spec typo = tc;
    typo.mma_shape = "m16n8k32";
    t.check(row_tc_shape(typo, c).empty(), "a named shape that is not measured resolves to nothing");

    t.check(near(tc_alpha(c, peak::fp64_tc, "tc", "m16n8k8"), 52.0 / 30), "alpha of a row naming m16n8k8: %g",
            tc_alpha(c, peak::fp64_tc, "tc", "m16n8k8"));
    t.check(near(tc_alpha(c, peak::fp64_tc, "tc-m16n8k4"), 45.0 / 30), "alpha of tc-m16n8k4: its own shape (%g)",
            tc_alpha(c, peak::fp64_tc, "tc-m16n8k4"));
    t.check(near(tc_alpha(c, peak::fp64_tc, "tc", "f64_m8n8k4"), 33.0 / 30), "alpha of a row naming f64_m8n8k4");
    t.check(near(tc_alpha(c, peak::fp16_tc, "tc-f16acc", "f16_m16n8k16_f16acc"), 900.0 / 60), "alpha of f16acc");
    t.check(near(tc_alpha(c, peak::fp16_tc, "tc"), 640.0 / 60), "alpha of fp16 naming nothing: f32 accumulate");
    t.check(tc_alpha(c, peak::fp64_tc, "tc", "m16n8k32") == -1 && tc_alpha(c, peak::tf32_tc, "tc", "m8n8k4") == -1,
            "alpha of a shape not measured at the row's precision: unknown");
    ceilings no_shapes = c;  // a device whose m16n8k8 peak is not known
    no_shapes.fp64_m16n8k8_tflops = 0;
    t.check(tc_alpha(no_shapes, peak::fp64_tc, "tc", "m16n8k8") == -1, "alpha of an unmeasured shape: unknown");

    // a case as scale reports it: every tc-like row bounded by its own shape
    std::vector<row> rows = {
        make_row("scale", "n=2^28", "cc", "stream", 3.0, peak::memory, peak::fp64_cc),
        make_row("scale", "n=2^28", "tc", "stream", 2.0),
        make_row("scale", "n=2^28", "tc-m16n8k4", "stream", 2.0),
        make_row("scale", "n=2^28", "tc-m8n8k4", "stream", 2.0),
        make_row("scale", "n=2^28", "tc-m16n8k16", "stream", 2.0),
    };
    rows[1].spec.mma_shape = tc_shape_of("tc", "m16n8k8");
    pair_tc_cc(rows, c);
    const double want[] = {52, 45, 33, 60};
    for (int i = 0; i < 4; ++i) {
        const row& r = rows[1 + i];
        t.check(near(r.tc_alpha, want[i] / 30) && near(r.tc_bound, tc_speedup_bound(want[i] / 30)),
                "%s: alpha %g (want %g / 30), bound %g", r.variant.c_str(), r.tc_alpha, want[i], r.tc_bound);
    }
    t.check(rows[0].tc_alpha == -1, "the cc row carries no alpha");

    // a compute-bound row naming m8n8k4: fraction and roof at m8n8k4's peak
    row k = make_row("gemm", "4096^3", "tc", "hot", 1.0, peak::fp64_tc, peak::fp64_tc);
    k.spec.mma_shape = "f64_m8n8k4";
    k.spec.flops = 3.3e10;
    fill_metrics(k, c);
    t.check(k.tc_shape == "f64_m8n8k4" && near(k.fraction_of_peak, 1.0) && near(k.roofline_gflops, 33000),
            "row naming m8n8k4: shape %s, fraction %g, roof %g", k.tc_shape.c_str(), k.fraction_of_peak,
            k.roofline_gflops);
    row m = make_row("scale", "n=1M", "tc", "stream", 1.0, peak::memory, peak::fp64_tc);
    m.spec.bytes = 1e9;
    m.spec.flops = 1e15;  // compute-bound intensity: the roof is the shape's peak
    m.spec.mma_shape = "m16n8k8";
    fill_metrics(m, c);
    t.check(m.tc_shape == "f64_m16n8k8" && near(m.roofline_gflops, 52000) && near(m.fraction_of_peak, 1.0 / 3),
            "memory row naming m16n8k8: roof %g, fraction %g of memory", m.roofline_gflops, m.fraction_of_peak);
}

void test_case_footprints()
{
    const std::size_t l2 = std::size_t(50) << 20;
    row_spec base, tc;
    base.case_name = tc.case_name = "n=2^22";
    base.variant = "base";
    tc.variant = "tc";
    base.footprint_bytes = l2 / 2;   // alone: hot and cold
    tc.footprint_bytes = 2 * l2;     // alone: stream
    {
        case_footprints f;
        const std::size_t fb = f.of(base), ft = f.of(tc);
        t.check(fb == l2 / 2 && ft == l2 / 2 && cache_states(ft, l2) == cache_states(fb, l2),
                "variants of one case with footprints either side of L2 get one label (%zu, %zu)", fb, ft);
    }
    {
        case_footprints f;
        const std::size_t ft = f.of(tc), fb = f.of(base);
        t.check(ft == 2 * l2 && fb == 2 * l2 && cache_states(fb, l2) == std::vector<std::string>{"stream"},
                "the first variant measured fixes the case's footprint (%zu, %zu)", ft, fb);
    }
    {
        case_footprints f;
        row_spec declared_tc = tc, declared_base = base;
        declared_tc.case_footprint_bytes = declared_base.case_footprint_bytes = l2 / 4;
        t.check(f.of(declared_tc) == l2 / 4 && f.of(declared_base) == l2 / 4,
                "a declared case footprint decides over the variant's own");
        row_spec other = tc;
        other.case_name = "n=2^24";
        t.check(f.of(other) == 2 * l2, "another case: its own footprint");
        row_spec compute;
        compute.case_name = "f64_m16n8k16";
        t.check(f.of(compute) == 0 && cache_states(f.of(compute), l2) == std::vector<std::string>{"hot"},
                "pure compute: footprint 0, hot only");
    }
}

void test_accuracy()
{
    const double ref[] = {1.0, 2.0, -4.0};
    const float got[] = {1.0f, 2.5f, -4.0f};
    const accuracy a = accuracy_of(ref, got, 3);
    t.check(a.count == 3 && a.mismatched == 0 && near(a.avg_abs, 0.5 / 3) && near(a.max_abs, 0.5) &&
                near(a.max_rel, 0.25),
            "accuracy: avg %g max %g rel %g", a.avg_abs, a.max_abs, a.max_rel);

    const double ref2[] = {nan_value, inf, 1.0, 2.0, 0.0, -inf, 3.0};
    const double got2[] = {nan_value, inf, nan_value, inf, 1e-3, inf, 3.0};
    const accuracy b = accuracy_of(ref2, got2, 7);
    t.check(b.count == 7 && b.mismatched == 3, "NaN/Inf: %zu mismatched of %zu", b.mismatched, b.count);
    t.check(near(b.max_abs, 1e-3) && near(b.avg_abs, 0.5e-3) && b.max_rel == 0,
            "NaN/Inf left out of the sums: avg %g max %g rel %g", b.avg_abs, b.max_abs, b.max_rel);

    const double ref3[] = {0.5, -1.25};
    const __half got3[] = {__float2half(0.5f), __float2half(-1.0f)};
    const accuracy h = accuracy_of(ref3, got3, 2);
    t.check(near(h.max_abs, 0.25) && near(h.max_rel, 0.2), "accuracy of __half: max %g rel %g", h.max_abs, h.max_rel);

    const int got4[] = {1, 2, -4};
    t.check(accuracy_of(ref, got4, 3).max_abs == 0, "accuracy of int");

    const accuracy v = accuracy_of(std::vector<double>{1.0, 2.0}, std::vector<float>{1.0f, 2.0f});
    t.check(v.count == 2 && v.max_abs == 0, "accuracy of vectors");
    bool threw = false;
    try {
        accuracy_of(std::vector<double>{1.0, 2.0}, std::vector<float>{1.0f});
    } catch (const tcore::error&) {
        threw = true;
    }
    t.check(threw, "accuracy of vectors of different sizes throws");
    const accuracy empty = accuracy_of(ref, got, 0);
    t.check(empty.count == 0 && empty.avg_abs == 0, "accuracy of nothing");
}

void test_protocol_helpers()
{
    const std::size_t l2 = std::size_t(50) << 20;
    t.check(cache_states(0, l2) == std::vector<std::string>{"hot"}, "footprint 0: hot only");
    t.check(cache_states(l2 / 2, l2) == std::vector<std::string>{"hot", "cold"}, "footprint L2/2: hot and cold");
    t.check(cache_states(l2, l2) == std::vector<std::string>{"hot", "cold"}, "footprint L2: hot and cold");
    t.check(cache_states(l2 + 1, l2) == std::vector<std::string>{"stream"}, "footprint > L2: stream");

    t.check(name_matches({}, "anything"), "empty filter matches");
    t.check(name_matches({"tc"}, "tc-m8n8k4") && !name_matches({"tc"}, "cc"), "substring filter");
    t.check(name_matches({"=cc"}, "cc") && !name_matches({"=cc"}, "cce"), "exact filter");
    t.check(name_matches({"x", "cc"}, "cce"), "any of several filters");

    rep_policy p;  // 0.2 s, 20 reps, 20000 max, 10 s
    t.check(repetitions_for(1e-3, p) == 200, "1 ms kernels: %d reps", repetitions_for(1e-3, p));
    t.check(repetitions_for(1e-6, p) == 20000, "1 us kernels: capped at %d", repetitions_for(1e-6, p));
    t.check(repetitions_for(0.1, p) == 20, "100 ms kernels: min_reps (%d)", repetitions_for(0.1, p));
    t.check(repetitions_for(2.0, p) == 5, "2 s kernels: kept near 10 s (%d)", repetitions_for(2.0, p));
    t.check(repetitions_for(60.0, p) == 3, "very long kernels: at least 3 (%d)", repetitions_for(60.0, p));
}

void test_escaping()
{
    t.check(csv_escape("plain") == "plain", "csv plain");
    t.check(csv_escape("n=1,024") == "\"n=1,024\"", "csv comma: %s", csv_escape("n=1,024").c_str());
    t.check(csv_escape("say \"hi\"") == "\"say \"\"hi\"\"\"", "csv quotes: %s", csv_escape("say \"hi\"").c_str());
    t.check(csv_escape("two\nlines") == "\"two\nlines\"", "csv newline");
    t.check(json_escape("a\"b\\c") == "\"a\\\"b\\\\c\"", "json quote/backslash: %s", json_escape("a\"b\\c").c_str());
    t.check(json_escape("x\ny\t\x01") == "\"x\\ny\\t\\u0001\"", "json control: %s", json_escape("x\ny\t\x01").c_str());
    t.check(json_escape("n=1,024") == "\"n=1,024\"", "json comma needs no escape");
    t.check(json_number(1.5) == "1.5" && json_number(inf) == "null" && json_number(nan_value) == "null" &&
                json_number(-1) == "-1",
            "json numbers");
    t.check(csv_number(inf) == "inf" && csv_number(-inf) == "-inf" && csv_number(nan_value) == "nan" &&
                csv_number(0.25) == "0.25",
            "csv numbers");

    run_info run;
    run.device_name = "GPU, \"special\"";
    run.commit = "abc1234";
    row r = make_row("spmv", "matrix \"a,b\"", "tc, fast", "hot", 1.0);
    r.spec.note = "line1\nline2";
    const std::vector<std::string> fields = split_csv(csv_line(r, run));
    const std::vector<std::string> header = split_csv(csv_header());
    t.check(fields.size() == header.size(), "csv line has %zu fields, header %zu", fields.size(), header.size());
    t.check(fields.size() > 3 && fields[0] == "spmv" && fields[1] == "matrix \"a,b\"" && fields[2] == "tc, fast" &&
                fields[3] == "hot",
            "csv fields round-trip");
    t.check(fields.size() > 6 && fields[fields.size() - 2] == "abc1234" && fields[fields.size() - 6] == "GPU, \"special\"",
            "csv carries device and commit");
    t.check(!fields.empty() && fields.back() == "0" && split_csv(csv_line(r, run, true)).back() == "1" &&
                header.back() == "partial",
            "csv's last column says partial");

    results res;
    res.run = run;
    res.ceil = sample_ceilings();
    res.rows.push_back(r);
    res.summaries.push_back({"spmv", "geomean \"cc/tc\"", "1.2x"});
    res.failures.push_back({"bfs", "bad | input"});
    const std::string json = results_json(res);
    t.check(json.find("\"case\": \"matrix \\\"a,b\\\"\"") != std::string::npos, "json row case escaped");
    t.check(json.find("\"note\": \"line1\\nline2\"") != std::string::npos, "json note escaped");
    t.check(json.find("\"intensity\": 0") != std::string::npos, "json row has intensity");
    const std::string md = summary_markdown(res);
    t.check(md.find("bad \\| input") != std::string::npos, "markdown escapes pipes");
}

void test_flat_json_and_cache()
{
    const ceilings c = sample_ceilings();
    std::map<std::string, std::string> kv;
    t.check(parse_flat_json(ceilings_json(c), kv), "ceilings json parses");
    t.check(kv["device_name"] == c.device_name && kv["copy_gbs"] == "3000" && kv["fp64_tc_shape"] == "f64_m16n8k16",
            "ceilings json values: %s / %s", kv["device_name"].c_str(), kv["copy_gbs"].c_str());
    std::map<std::string, std::string> other;
    t.check(parse_flat_json("{ }", other) && other.empty(), "empty object");
    t.check(parse_flat_json("{\"a\": \"x\\u0041\", \"b\": -1.5e3, \"c\": true, \"d\": null}", other) &&
                other["a"] == "xA" && other["b"] == "-1.5e3" && other["c"] == "true",
            "scalars and \\u escapes");
    t.check(!parse_flat_json("{\"a\": {\"b\": 1}}", other), "nesting rejected");
    t.check(!parse_flat_json("{\"a\": 1", other) && !parse_flat_json("", other) && !parse_flat_json("{\"a\" 1}", other),
            "syntax errors rejected");

    t.check(ceilings_path("res", "NVIDIA H200 NVL") == "res/ceilings-NVIDIA_H200_NVL.json", "ceilings_path: %s",
            ceilings_path("res", "NVIDIA H200 NVL").c_str());
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("tcore-test-harness-" + std::to_string(tcore::test::seed()))).string();
    const std::string path = ceilings_path(dir, c.device_name);
    t.check(save_ceilings(path, c), "save_ceilings %s", path.c_str());
    ceilings back;
    back.device_name = c.device_name;
    back.driver_version = c.driver_version;
    back.runtime_version = c.runtime_version;
    t.check(load_ceilings(path, back), "load_ceilings");
    t.check(back.copy_gbs == c.copy_gbs && back.fp64_tc_tflops == c.fp64_tc_tflops && back.b1_tc_tops == c.b1_tc_tops &&
                back.fp64_tc_shape == c.fp64_tc_shape && back.fp64_m16n8k4_tflops == c.fp64_m16n8k4_tflops &&
                back.fp64_m16n8k8_tflops == c.fp64_m16n8k8_tflops &&
                back.fp64_m16n8k16_tflops == c.fp64_m16n8k16_tflops &&
                back.fp16_f16acc_tc_tflops == c.fp16_f16acc_tc_tflops,
            "ceilings round trip (every shape's peak)");
    {  // a cache written before the per-shape peaks: stale, measured again
        ceilings old = c;
        old.fp64_m16n8k8_tflops = 0;
        std::ofstream(path, std::ios::binary | std::ios::trunc) << ceilings_json(old) << '\n';
        ceilings again = back;
        t.check(!load_ceilings(path, again), "a cache without a shape's peak is stale");
    }
    ceilings stale = back;
    stale.driver_version = "999.0";
    t.check(!load_ceilings(path, stale), "a different driver makes the cache stale");
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}


// -- a strict JSON syntax check (objects, arrays, strings, numbers, literals) --

struct json_checker {
    const std::string& t;
    std::size_t i = 0;
    void space()
    {
        while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
    }
    bool literal(const char* word)
    {
        const std::string w(word);
        if (t.compare(i, w.size(), w) != 0) return false;
        i += w.size();
        return true;
    }
    bool string()
    {
        if (i >= t.size() || t[i] != '"') return false;
        for (++i; i < t.size(); ++i) {
            if (t[i] == '"') return ++i, true;
            if (static_cast<unsigned char>(t[i]) < 0x20) return false;
            if (t[i] == '\\') ++i;
        }
        return false;
    }
    bool number()
    {
        const std::size_t start = i;
        while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '-' || t[i] == '+' ||
                                t[i] == '.' || t[i] == 'e' || t[i] == 'E'))
            ++i;
        if (i == start) return false;
        char* end = nullptr;
        const std::string text = t.substr(start, i - start);
        std::strtod(text.c_str(), &end);
        return end && *end == '\0';
    }
    bool value()
    {
        space();
        if (i >= t.size()) return false;
        bool ok = false;
        if (t[i] == '{') {
            ++i, space();
            if (i < t.size() && t[i] == '}') return ++i, true;
            for (;;) {
                space();
                if (!string()) return false;
                space();
                if (i >= t.size() || t[i++] != ':' || !value()) return false;
                space();
                if (i < t.size() && t[i] == ',') { ++i; continue; }
                ok = i < t.size() && t[i++] == '}';
                break;
            }
        } else if (t[i] == '[') {
            ++i, space();
            if (i < t.size() && t[i] == ']') return ++i, true;
            for (;;) {
                if (!value()) return false;
                space();
                if (i < t.size() && t[i] == ',') { ++i; continue; }
                ok = i < t.size() && t[i++] == ']';
                break;
            }
        } else if (t[i] == '"') {
            ok = string();
        } else if (t[i] == 't' || t[i] == 'f' || t[i] == 'n') {
            ok = literal("true") || literal("false") || literal("null");
        } else {
            ok = number();
        }
        return ok;
    }
};

bool valid_json(const std::string& text)
{
    json_checker c{text};
    if (!c.value()) return false;
    c.space();
    return c.i == text.size();
}

std::string read_text(const std::filesystem::path& p)
{
    std::ifstream f(p, std::ios::binary);
    std::ostringstream os;
    os << f.rdbuf();
    return os.str();
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream is(text);
    for (std::string line; std::getline(is, line);) out.push_back(line);
    return out;
}

/// A fresh temporary folder for one test.
std::filesystem::path temp_dir(const char* what)
{
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("tcore-test-harness-" + std::string(what) + "-" + std::to_string(tcore::test::seed()));
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir);
    return dir;
}

void write_text(const std::filesystem::path& p, const std::string& text)
{
    std::ofstream f(p, std::ios::binary);
    f << text;
}

// -- the command line --------------------------------------------------------

/// parse_args on a list; returns the error ("" if it parsed).
std::string parse_error(const std::vector<std::string>& args, options* out = nullptr)
{
    options o;
    bool help = false;
    std::string error;
    const bool ok = parse_args(args, o, help, error);
    if (out) *out = o;
    if (ok && !error.empty()) return "parsed but error set: " + error;
    return ok ? "" : (error.empty() ? std::string("(failed without a message)") : error);
}

void test_option_parsing()
{
    options o;
    t.check(parse_error({"--warmup", "0.5", "--min-time=0.3", "--min-reps", "7", "--energy-time", "0", "--device", "1",
                         "--workload", "spmv,=gemm", "--case", "1e7", "--variant", "=cc", "--out", "x/y"},
                        &o) == "",
            "good options parse");
    t.check(o.warmup_s == 0.5 && o.min_time_s == 0.3 && o.min_reps == 7 && o.energy_s == 0 && o.device == 1 &&
                o.workloads == std::vector<std::string>{"spmv", "=gemm"} && o.out_dir == "x/y" && o.warmup_given &&
                o.min_time_given && o.min_reps_given && o.energy_given,
            "values and 'given' flags set");

    options rep;
    t.check(parse_error({"--case", "real/", "--case=1e6,1e7", "--variant", "tc", "--variant", "=cc", "--workload", "spmv",
                         "--workload", "gemm"},
                        &rep) == "" &&
                rep.cases == std::vector<std::string>{"real/", "1e6", "1e7"} &&
                rep.variants == std::vector<std::string>{"tc", "=cc"} &&
                rep.workloads == std::vector<std::string>{"spmv", "gemm"},
            "--case, --variant and --workload repeated: the entries add up");

    struct bad_case {
        std::vector<std::string> args;
        const char* needle;
    };
    const bad_case bad[] = {
        {{"--warmup", "abc"}, "--warmup"},     {{"--warmup", "-1"}, "--warmup"},   {{"--warmup", "inf"}, "--warmup"},
        {{"--warmup", "nan"}, "--warmup"},     {{"--warmup", "1e999"}, "--warmup"}, {{"--warmup", ""}, "--warmup"},
        {{"--warmup", " 1"}, "--warmup"},      {{"--min-time", "1s"}, "--min-time"}, {{"--min-reps", "0"}, "--min-reps"},
        {{"--min-reps", "2.5"}, "--min-reps"}, {{"--min-reps", "-3"}, "--min-reps"}, {{"--device", "-1"}, "--device"},
        {{"--device", "x"}, "--device"},       {{"--warmup"}, "needs a value"},   {{"--bogus"}, "unknown option '--bogus'"},
        {{"-x"}, "unknown option"},            {{"stray"}, "unexpected argument 'stray'"},
        {{"--quick", "--full"}, "exclude"},    {{"--list=yes"}, "takes no value"}, {{"--case", ","}, "--case"},
        {{"--out", ""}, "--out"},
    };
    for (const bad_case& b : bad) {
        std::string joined;
        for (const std::string& a : b.args) joined += (joined.empty() ? "" : " ") + a;
        const std::string e = parse_error(b.args);
        t.check(!e.empty() && e.find(b.needle) != std::string::npos && e.find('\n') == std::string::npos,
                "'%s' is rejected in one line naming '%s' (got '%s')", joined.c_str(), b.needle, e.c_str());
    }
    bool help = false;
    options h;
    std::string error;
    t.check(parse_args({"--help"}, h, help, error) && help, "--help parses");
    const std::string usage = usage_text("tcore-bench", "out", {"spmv", "gemm"});
    for (const char* opt : {"--full", "--quick", "--list", "--workload", "--case", "--variant", "--matrix", "--out",
                            "--warmup", "--min-time", "--min-reps", "--energy-time", "--device", "--remeasure-ceilings",
                            "--help", "SIGINT", "130", "143", "partial", "Exit status"})
        t.check(usage.find(opt) != std::string::npos, "--help documents %s", opt);
}

void test_mode_defaults()
{
    options d;
    apply_mode_defaults(d);
    t.check(mode_of(d) == run_mode::headline && d.warmup_s == 0.25 && d.min_time_s == 0.1 && d.energy_s == 0.1 &&
                d.min_reps == 20,
            "default run: %g s warm-up, %g s, %g s power", d.warmup_s, d.min_time_s, d.energy_s);
    options f;
    f.full = true;
    apply_mode_defaults(f);
    t.check(mode_of(f) == run_mode::full && f.warmup_s == 1.0 && f.min_time_s == 0.2 && f.energy_s == 0.3,
            "--full keeps the protocol's timing");
    options c;
    c.cases = {"1e7"};
    apply_mode_defaults(c);
    t.check(mode_of(c) == run_mode::full && c.warmup_s == 1.0 && !headline_only(c), "--case: protocol timing, no headline restriction");
    options q;
    q.quick = true;
    apply_mode_defaults(q);
    t.check(mode_of(q) == run_mode::quick && q.warmup_s == 0.05 && q.min_reps == 10 && q.energy_s == 0, "--quick timing");
    options g;
    t.check(parse_error({"--warmup", "0.7"}, &g) == "", "--warmup parses");
    apply_mode_defaults(g);
    t.check(g.warmup_s == 0.7 && g.min_time_s == 0.1, "a given warm-up wins over the mode's (%g)", g.warmup_s);
}

void test_matrix_paths()
{
    const std::filesystem::path dir = temp_dir("mtx");
    const std::string banner = "%%MatrixMarket matrix coordinate real general\n% a comment\n3 3 2\n1 1 1.0\n2 2 2.0\n";
    write_text(dir / "b.mtx", banner);
    write_text(dir / "a.MTX", "%%matrixmarket matrix coordinate pattern symmetric\n4 4 1\n1 2\n");
    write_text(dir / "notes.txt", "hello\n");
    write_text(dir / "fake.mtx", "not a matrix\n");
    std::filesystem::create_directories(dir / "empty");
    std::filesystem::create_directories(dir / "good");
    write_text(dir / "good" / "x.mtx", banner);
    write_text(dir / "good" / "w.mtx", banner);
    write_text(dir / "good" / "readme.txt", "-");

    options o;
    t.check(parse_error({"--matrix", (dir / "b.mtx").string(), "--matrix=" + (dir / "good").string()}, &o) == "",
            "a file and a folder parse");
    t.check(o.matrices.size() == 3 && matrix_case_name(o.matrices[0]) == "b" && matrix_case_name(o.matrices[1]) == "w" &&
                matrix_case_name(o.matrices[2]) == "x",
            "folder expanded to its .mtx files, sorted (%zu files)", o.matrices.size());
    options twice;
    t.check(parse_error({"--matrix", (dir / "b.mtx").string(), "--matrix", (dir / "b.mtx").string()}, &twice) == "" &&
                twice.matrices.size() == 1,
            "the same file twice is one case");
    mtx_size size;
    std::string why;
    t.check(read_mtx_size((dir / "b.mtx").string(), size, why) && size.size_known && size.rows == 3 && size.entries == 2 &&
                !size.symmetric,
            "size line read past the comment");
    t.check(read_mtx_size((dir / "a.MTX").string(), size, why) && size.symmetric && size.rows == 4,
            "lower-case banner, symmetric");
    const std::pair<std::string, const char*> bad[] = {
        {(dir / "missing.mtx").string(), "no such file"},
        {(dir / "notes.txt").string(), ".mtx expected"},
        {(dir / "fake.mtx").string(), "%%MatrixMarket"},
        {(dir / "empty").string(), "no .mtx"},
    };
    for (const auto& [path, needle] : bad) {
        const std::string e = parse_error({"--matrix", path});
        t.check(e.find(needle) != std::string::npos && e.find("--matrix") != std::string::npos,
                "--matrix %s rejected: '%s'", path.c_str(), e.c_str());
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

void test_selection_checks()
{
    const std::vector<std::string> all = {"gemm", "spmv", "spgemm"};
    const std::vector<workload_cases> sel = {{"spmv", {"fem3d/1e6", "real/bcsstk13"}, true},
                                             {"gemm", {"f64 4096^3"}, false}};
    options o;
    t.check(check_selection(o, all, sel) == "", "no filters: fine");
    o.workloads = {"spm", "zzz"};
    t.check(check_selection(o, all, sel).find("--workload 'zzz'") != std::string::npos, "unknown workload");
    o.workloads = {"=spmv"};
    o.cases = {"1e6", "=f64 4096^3"};
    t.check(check_selection(o, all, sel) == "", "cases that match");
    o.cases = {"1e6", "1e9"};
    t.check(check_selection(o, all, sel).find("--case '1e9'") != std::string::npos, "a case entry matching nothing");
    o.cases.clear();
    o.variants = {"tc", "=cc"};
    t.check(check_selection(o, all, sel) == "", "variants that match");
    o.variants = {"tc-m16n8k4"};  // scale has it, spmv and gemm do not
    t.check(check_selection(o, all, sel).find("--variant 'tc-m16n8k4'") != std::string::npos,
            "a variant of another workload is refused");
    o.variants = {"=tc-bundle"};
    t.check(check_selection(o, all, sel) == "", "a catalogued spmv variant");
    o.variants.clear();
    o.matrices = {"/m/a.mtx", "/n/b.mtx"};
    t.check(check_selection(o, all, sel) == "", "matrices with a workload that reads them");
    t.check(check_selection(o, all, {{"gemm", {"f64 4096^3"}, false}}).find("reads matrices") != std::string::npos,
            "--matrix without a matrix workload");
    o.matrices = {"/m/a.mtx", "/n/a.mtx"};
    t.check(check_selection(o, all, sel).find("both be case 'a'") != std::string::npos, "two files with one stem");
}

// -- the headline set ----------------------------------------------------------

void test_headline()
{
    t.check(is_headline("spmv", "fem3d/1e8") && is_headline("spmv", "power_law/1e6") && !is_headline("spmv", "real/bcsstk13") &&
                !is_headline("spmv", "fem3d/1e5"),
            "spmv: the generated 1e6-1e8 cases only");
    t.check(is_headline("scale", "n=2^28") && !is_headline("scale", "n=2^20") && !is_headline("scale", "n=2^2"),
            "scale: 2^28 only (exact names)");
    t.check(is_headline("gemm", "f64 4096^3") && !is_headline("gemm", "f64 1024^3") && !is_headline("gemv", "f64 4096^3"),
            "gemm 4096^3; patterns belong to their workload");
    t.check(is_headline("interp", "bicubic alpha 1024^2->4096^2") && is_headline("fft", "2d 512x512 fwd") &&
                !is_headline("fft", "2d 512x512 inv"),
            "interp, fft");
    t.check(is_headline("bfs", "kron21") && is_headline("bfs", "mtx/road") && !is_headline("bfs", "kron18"),
            "bfs: kron21 and the user's graphs");
    t.check(!is_headline("mma_peak", "f64_m16n8k16") && !is_headline("no-such-workload", "x"),
            "mma_peak and unknown workloads have none");

    // Every pattern must match a case a recorded run holds (the CSVs of
    // bench/results/h100 and h200), and every recorded variant of a
    // catalogued workload must be catalogued (the test runs in the source tree).
    const std::filesystem::path h100 = "bench/results/h100/results.csv";
    if (!std::filesystem::exists(h100)) {
        t.skip("recorded names against %s: not found (not run from the source tree)", h100.string().c_str());
        return;
    }
    std::map<std::string, std::set<std::string>> cases, variants, h100_cases;  // h100_cases: of results.csv
    int files = 0;
    for (const char* dir : {"bench/results/h100", "bench/results/h200"})
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() != ".csv") continue;
            const std::vector<std::string> lines = lines_of(read_text(entry.path()));
            if (lines.size() < 2) continue;
            const std::vector<std::string> header = split_csv(lines[0]);
            const auto column = [&](const char* name) {
                return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
            };
            const std::size_t wi = column("workload"), ci = column("case"), vi = column("variant");
            if (wi == header.size() || ci == header.size() || vi == header.size()) continue;
            ++files;
            for (std::size_t n = 1; n < lines.size(); ++n) {
                const std::vector<std::string> f = split_csv(lines[n]);
                if (f.size() != header.size()) continue;
                cases[f[wi]].insert(f[ci]);
                variants[f[wi]].insert(f[vi]);
                if (entry.path() == h100) h100_cases[f[wi]].insert(f[ci]);
            }
        }
    t.check(files > 1, "recorded results have rows (%d files)", files);
    std::map<std::string, int> headline_count;
    for (const workload_catalog& w : catalog()) {
        for (const std::string& pattern : w.headline_cases) {
            int hits = 0;
            for (const std::string& c : cases[w.workload]) hits += name_matches({pattern}, c) ? 1 : 0;
            t.check(hits > 0, "headline %s '%s' matches a recorded case", w.workload.c_str(), pattern.c_str());
        }
        for (const std::string& c : h100_cases[w.workload])
            headline_count[w.workload] += is_headline(w.workload, c) ? 1 : 0;
    }
    for (const auto& [w, names] : variants) {
        if (!catalog_of(w)) continue;  // e.g. rows of a workload no longer benchmarked
        std::vector<std::string> known = known_variants(w);
        if (const workload_catalog* entry = catalog_of(w))
            known.insert(known.end(), entry->retired.begin(), entry->retired.end());
        for (const std::string& v : names)
            t.check(std::find(known.begin(), known.end(), v) != known.end(), "recorded variant %s/%s is catalogued",
                    w.c_str(), v.c_str());
    }
    // The headline cases among the full H100 record (results.csv).
    const std::map<std::string, int> expected = {{"gemm", 3},    {"scale", 1},  {"reduce", 3}, {"scan", 4},
                                                 {"gemv", 5},    {"spmv", 15},  {"spgemm", 10}, {"stencil", 5},
                                                 {"fft", 5},     {"interp", 12}, {"pic", 1},    {"bfs", 1},
                                                 {"mma_peak", 0}};
    for (const auto& [w, n] : expected)
        t.check(headline_count[w] == n, "%s: %d headline cases among the recorded ones, expected %d", w.c_str(),
                headline_count[w], n);
}

void test_context_selection()
{
    const ceilings c = nominal_device();
    options o;
    o.list = true;
    {
        context ctx(o, c, "spmv");
        ctx.announce_case("fem3d/1e6");
        ctx.announce_case("real/bcsstk13");
        t.check(ctx.announced() == std::vector<std::string>{"fem3d/1e6"}, "default: only the headline case is listed");
        t.check(ctx.want_case("fem3d/1e8") && !ctx.want_case("real/west0067"), "want_case follows the headline set");
    }
    {
        context ctx(o, c, "spmv", true);
        ctx.announce_case("mine");
        t.check(ctx.announced() == std::vector<std::string>{"mine"}, "every_case: the user's matrix is listed");
    }
    options f = o;
    f.full = true;
    {
        context ctx(f, c, "spmv");
        ctx.announce_case("fem3d/1e6");
        ctx.announce_case("real/bcsstk13");
        t.check(ctx.announced().size() == 2, "--full: every case");
    }
    options k = o;
    k.cases = {"bcsstk"};
    {
        context ctx(k, c, "spmv");
        ctx.announce_case("fem3d/1e6");
        ctx.announce_case("real/bcsstk13");
        t.check(ctx.announced() == std::vector<std::string>{"real/bcsstk13"}, "--case selects by name, headline or not");
    }
}

void test_host_sync_outputs()
{
    run_info run;
    run.commit = "abc1234";
    row synced = make_row("bfs", "kron/2^20", "base", "stream", 4.0, peak::memory, peak::int_ops);
    synced.spec.host_sync = true;
    synced.cache_footprint_bytes = 123456789;
    row queued = make_row("bfs", "kron/2^20", "tc", "stream", 2.0, peak::memory, peak::fp64_tc);
    queued.spec.mma_shape = "m16n8k8";
    queued.tc_shape = "f64_m16n8k8";
    queued.tc_alpha = 52.0 / 30;
    const std::vector<std::string> header = split_csv(csv_header());
    for (const char* name : {"cache_footprint_bytes", "host_sync", "tc_shape", "tc_alpha"})
        t.check(column(header, name) < header.size(), "CSV column %s", name);
    const std::vector<std::string> fs = split_csv(csv_line(synced, run)), fq = split_csv(csv_line(queued, run));
    const std::size_t hs = column(header, "host_sync");
    t.check(fs.size() == header.size() && fq.size() == header.size() && fs[hs] == "1" && fq[hs] == "0",
            "CSV host_sync: %s / %s", fs.size() > hs ? fs[hs].c_str() : "?", fq.size() > hs ? fq[hs].c_str() : "?");
    t.check(fs[column(header, "cache_footprint_bytes")] == "123456789" && fq[column(header, "tc_shape")] == "f64_m16n8k8",
            "CSV cache_footprint_bytes and tc_shape");
    t.check(std::fabs(std::strtod(fq[column(header, "tc_alpha")].c_str(), nullptr) - 52.0 / 30) < 1e-6 &&
                fs[column(header, "tc_alpha")] == "-1",
            "CSV tc_alpha");

    results res;
    res.run = run;
    res.ceil = sample_ceilings();
    res.rows = {synced, queued};
    const std::string json = results_json(res);
    t.check(valid_json(json) && json.find("\"host_sync\": true") != std::string::npos &&
                json.find("\"host_sync\": false") != std::string::npos &&
                json.find("\"tc_shape\": \"f64_m16n8k8\"") != std::string::npos &&
                json.find("\"cache_footprint_bytes\": 123456789") != std::string::npos,
            "JSON rows carry host_sync, tc_shape, cache_footprint_bytes");
    const std::string md = summary_markdown(res);
    t.check(md.find("| host sync |") != std::string::npos && md.find("| yes |") != std::string::npos,
            "summary.md: a host sync column, yes on the synchronising row");
    t.check(md.find("Host sync = yes") != std::string::npos && md.find("(bfs base)") != std::string::npos,
            "summary.md: a footnote naming the synchronising variants");
    res.rows = {queued};
    t.check(summary_markdown(res).find("Host sync = yes") == std::string::npos, "no footnote without such rows");
    t.check(progress_line(synced).find("host sync") != std::string::npos &&
                progress_line(queued).find("host sync") == std::string::npos,
            "progress line flags host sync");
    t.check(text_table({synced}).find("yes") != std::string::npos, "terminal table flags host sync");
}

// -- results while a run goes on, and after it stops -----------------------------

void test_partial_results()
{
    const std::filesystem::path dir = temp_dir("partial") / "out";
    results res;
    res.run.device_name = "Test GPU";
    res.run.commit = "abc1234";
    res.ceil = sample_ceilings();
    res.partial = true;
    res.partial_reason = "run in progress";
    res.cases_total = 3;
    results_writer w(dir.string());
    w.begin(res);
    std::string csv = read_text(dir / "results.csv");
    t.check(lines_of(csv) == std::vector<std::string>{csv_header()}, "begin: the CSV holds the header only");
    std::string json = read_text(dir / "results.json");
    t.check(valid_json(json) && json.find("\"partial\": true") != std::string::npos, "begin: valid JSON, partial");
    t.check(read_text(dir / "summary.md").find("Partial run") != std::string::npos, "begin: summary.md says partial");

    row a = make_row("spmv", "fem3d/1e6", "cc", "hot", 2.0);
    row b = make_row("spmv", "fem3d/1e6", "tc", "hot", 1.0);
    b.spec.note = "a, \"quoted\"\nnote";
    w.append_row(a, res.run);
    w.append_row(b, res.run);
    // as a run killed here leaves them: every CSV line whole and marked, the JSON valid and partial
    csv = read_text(dir / "results.csv");
    const std::vector<std::string> header = split_csv(csv_header());
    std::vector<std::string> records;  // the note holds a newline: records, not lines
    {
        std::string cur;
        bool quoted = false;
        for (char ch : csv) {
            if (ch == '"') quoted = !quoted;
            if (ch == '\n' && !quoted) records.push_back(cur), cur.clear();
            else cur += ch;
        }
        t.check(cur.empty() && !quoted, "the CSV ends with a whole record");
    }
    t.check(records.size() == 3, "two rows appended (%zu records)", records.size());
    for (std::size_t n = 1; n < records.size(); ++n) {
        const std::vector<std::string> f = split_csv(records[n]);
        t.check(f.size() == header.size() && f.back() == "1", "appended row %zu: %zu fields, partial = %s", n, f.size(),
                f.empty() ? "?" : f.back().c_str());
    }
    t.check(split_csv(records[2]).at(column(header, "note")) == b.spec.note, "note round-trips");
    t.check(valid_json(read_text(dir / "results.json")), "the JSON stays valid between rewrites");

    // a case ends: everything rewritten, tc paired with cc
    res.rows = {a, b};
    pair_tc_cc(res.rows, res.ceil);
    res.cases_done = 1;
    w.write(res);
    json = read_text(dir / "results.json");
    t.check(valid_json(json) && json.find("\"cases_done\": 1") != std::string::npos &&
                json.find("\"tc_partner\": \"cc\"") != std::string::npos,
            "per-case rewrite: valid, paired, counted");

    // stopped by SIGINT: the files say so
    res.partial_reason = "stopped by SIGINT during spmv fem3d/1e7";
    w.write(res);
    json = read_text(dir / "results.json");
    t.check(valid_json(json) && json.find("\"partial\": true") != std::string::npos &&
                json.find("stopped by SIGINT") != std::string::npos,
            "interrupted: JSON valid with partial and the reason");
    const std::string md = read_text(dir / "summary.md");
    t.check(md.find("**Partial run**: stopped by SIGINT during spmv fem3d/1e7 (1 of 3 cases done)") != std::string::npos,
            "interrupted: summary.md line");
    csv = read_text(dir / "results.csv");
    t.check(csv.find(",1\n") != std::string::npos && csv.find(",0\n") == std::string::npos, "interrupted: rows say partial");
    t.check(!std::filesystem::exists(dir / "results.json.tmp") && !std::filesystem::exists(dir / "results.csv.tmp"),
            "no temporary files left");

    // complete
    res.partial = false;
    res.partial_reason.clear();
    res.cases_done = 3;
    w.write(res);
    json = read_text(dir / "results.json");
    csv = read_text(dir / "results.csv");
    t.check(valid_json(json) && json.find("\"partial\": false") != std::string::npos &&
                read_text(dir / "summary.md").find("Partial") == std::string::npos,
            "complete: not partial");
    t.check(csv.find(",1\n") == std::string::npos && csv.find(",0\n") != std::string::npos, "complete: rows say 0");

    t.check(valid_json("{\"a\": [1, -2.5e3, true, null, \"x\\\"y\"], \"b\": {}}") && !valid_json("{\"a\": 1,}") &&
                !valid_json("{\"a\": nan}") && !valid_json("[1 2]"),
            "the JSON checker itself");
    std::error_code ec;
    std::filesystem::remove_all(dir.parent_path(), ec);
}

void test_progress_and_stop()
{
    t.check(duration_text(42.4) == "42s" && duration_text(185) == "3m05s" && duration_text(3725) == "1h02m" &&
                duration_text(-1) == "-",
            "duration_text: %s %s %s", duration_text(42.4).c_str(), duration_text(185).c_str(), duration_text(3725).c_str());
    t.check(estimate_left_s(10, 0, 5) == -1 && near(estimate_left_s(10, 2, 5), 15) && estimate_left_s(10, 5, 5) == 0,
            "estimate_left_s");
    const std::string tty = case_progress_line(12, 118, "spmv", "fem3d/1e7", 125, 400, true);
    const std::string plain = case_progress_line(12, 118, "spmv", "fem3d/1e7", 125, 400, false);
    t.check(tty == "[12/118  2m05s elapsed, about 6m40s left] spmv: fem3d/1e7", "terminal line: %s", tty.c_str());
    t.check(plain == "case 12/118: spmv fem3d/1e7 (125 s elapsed)", "plain line: %s", plain.c_str());
    t.check(case_progress_line(1, 5, "w", "c", 0, -1, true).find("not known yet") != std::string::npos,
            "no estimate before a case ends");

    t.check(stopped_exit_status(SIGINT) == 130 && stopped_exit_status(SIGTERM) == 143, "exit status 130 / 143");
    request_stop(0);
    bool threw = false;
    try {
        throw_if_stop_requested();
    } catch (const run_interrupted&) {
        threw = true;
    }
    t.check(!threw && stop_signal() == 0, "no stop requested: nothing thrown");
    install_stop_handlers();
    std::raise(SIGTERM);  // the first signal only sets the flag
    t.check(stop_signal() == SIGTERM, "SIGTERM sets the stop flag (%d)", stop_signal());
    int sig = 0;
    try {
        throw_if_stop_requested();
    } catch (const run_interrupted& e) {
        sig = e.signal;
    }
    t.check(sig == SIGTERM, "a requested stop throws run_interrupted{SIGTERM}");
    request_stop(0);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}
}  // namespace

int main()
{
    test_statistics();
    test_rates_and_roofline();
    test_fill_metrics();
    test_pairing();
    test_mma_shapes();
    test_case_footprints();
    test_host_sync_outputs();
    test_accuracy();
    test_protocol_helpers();
    test_escaping();
    test_flat_json_and_cache();
    test_option_parsing();
    test_mode_defaults();
    test_matrix_paths();
    test_selection_checks();
    test_headline();
    test_context_selection();
    test_partial_results();
    test_progress_and_stop();
    return t.finish();
}
