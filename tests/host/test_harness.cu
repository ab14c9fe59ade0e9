// libs: tcore_bench_harness
// tests/host/test_harness.cu - the benchmark harness's arithmetic on the CPU:
// statistics, geomean, GB/s, GFLOP/s, intensity, roofline, the tensor-core
// speedup bound and its tc/cc pairing, accuracy (NaN/Inf included), cache
// states, filters, repetition counts, CSV/JSON escaping and the ceilings
// cache's round trip. Needs no GPU.
#include "common/test_util.hpp"

#include "harness/ceilings.hpp"
#include "harness/harness.hpp"
#include "harness/report.hpp"
#include "harness/timing.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
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
    c.tf32_tc_tflops = 320;
    c.fp16_tc_tflops = 640;
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
    t.check(!fields.empty() && fields.back() == "abc1234" && fields[fields.size() - 5] == "GPU, \"special\"",
            "csv carries device and commit");

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
                back.fp64_tc_shape == c.fp64_tc_shape,
            "ceilings round trip");
    ceilings stale = back;
    stale.driver_version = "999.0";
    t.check(!load_ceilings(path, stale), "a different driver makes the cache stale");
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

}  // namespace

int main()
{
    test_statistics();
    test_rates_and_roofline();
    test_fill_metrics();
    test_pairing();
    test_accuracy();
    test_protocol_helpers();
    test_escaping();
    test_flat_json_and_cache();
    return t.finish();
}
