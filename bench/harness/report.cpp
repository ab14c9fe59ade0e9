// bench/harness/report.cpp - progress lines, the terminal table, CSV, JSON,
// summary.md, and the CSV/JSON helpers (escaping, numbers, a flat-object
// reader for the ceilings cache).
#include "harness/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace tcore::bench {

// -- helpers -----------------------------------------------------------------

namespace {

std::string printf_string(const char* fmt, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

/// %.*g of a value (whole numbers from 10^digits up to 10^12 without an
/// exponent), "-" for the -1 "not available" sentinel (and anything negative).
std::string sig(double v, int digits = 4)
{
    if (std::isnan(v) || v < 0) return "-";
    if (std::isinf(v)) return "inf";
    char buf[64];
    if (v >= std::pow(10.0, digits) && v < 1e12) std::snprintf(buf, sizeof buf, "%.0f", v);
    else std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

/// GFLOP/s as "218.7 GFLOP/s" or, from 1000 up, "66.05 TFLOP/s".
std::string rate_text(double gflops)
{
    return gflops >= 1000 ? sig(gflops / 1000) + " TFLOP/s" : sig(gflops) + " GFLOP/s";
}

/// Fixed decimals, "-" for negatives.
std::string fixed(double v, int decimals)
{
    if (std::isnan(v) || v < 0) return "-";
    if (std::isinf(v)) return "inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string percent(double fraction) { return fraction < 0 ? "-" : fixed(100.0 * fraction, 1) + "%"; }

/// Errors in %.2e; "-" where nothing was compared.
std::string error_text(double v, const accuracy& a) { return a.count == 0 ? "-" : printf_string("%.2e", v); }

/// The row's ceiling, with the MMA shape of a tensor-core one: "fp64_tc m16n8k8".
std::string ceiling_text(const row& r)
{
    std::string text = peak_name(r.spec.ceiling);
    if (is_tc_peak(r.spec.ceiling) && !r.tc_shape.empty()) {
        const std::size_t geometry = r.tc_shape.find('_');
        text += ' ' + (geometry == std::string::npos ? r.tc_shape : r.tc_shape.substr(geometry + 1));
    }
    return text;
}

std::string host_sync_text(const row& r) { return r.spec.host_sync ? "yes" : "-"; }

std::string bound_text(const row& r)
{
    return r.tc_bound < 0 ? "-" : fixed(r.tc_bound, 2) + "x";
}

std::string speedup_text(const row& r)
{
    return r.tc_speedup < 0 ? "-" : fixed(r.tc_speedup, 2) + "x vs " + r.tc_partner;
}

/// Aligns columns; `numeric[i]` right-aligns column i.
std::string align_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& body,
                        const std::vector<bool>& numeric)
{
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const auto& line : body)
        for (std::size_t c = 0; c < line.size() && c < width.size(); ++c) width[c] = std::max(width[c], line[c].size());
    auto emit = [&](std::ostringstream& os, const std::vector<std::string>& cells) {
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string cell = c < cells.size() ? cells[c] : "";
            const std::string pad(width[c] - cell.size(), ' ');
            os << (c ? "  " : "") << (numeric[c] ? pad + cell : cell + (c + 1 < width.size() ? pad : ""));
        }
        os << '\n';
    };
    std::ostringstream os;
    emit(os, header);
    std::vector<std::string> rule;
    for (std::size_t w : width) rule.push_back(std::string(w, '-'));
    emit(os, rule);
    for (const auto& line : body) emit(os, line);
    return os.str();
}

std::string md_cell(const std::string& s)
{
    std::string out;
    for (char ch : s) {
        if (ch == '|') out += "\\|";
        else if (ch == '\n' || ch == '\r') out += ' ';
        else out += ch;
    }
    return out;
}

std::string md_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& body,
                     const std::vector<bool>& numeric)
{
    std::ostringstream os;
    os << '|';
    for (const auto& h : header) os << ' ' << md_cell(h) << " |";
    os << "\n|";
    for (std::size_t c = 0; c < header.size(); ++c) os << (numeric[c] ? "---:|" : "---|");
    os << '\n';
    for (const auto& line : body) {
        os << '|';
        for (const auto& cell : line) os << ' ' << md_cell(cell) << " |";
        os << '\n';
    }
    return os.str();
}

void skip_space(const std::string& t, std::size_t& i)
{
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
}

void append_utf8(std::string& out, unsigned cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// Reads a JSON string starting at t[i] == '"'; leaves i after the closing quote.
bool read_string(const std::string& t, std::size_t& i, std::string& out)
{
    if (i >= t.size() || t[i] != '"') return false;
    out.clear();
    for (++i; i < t.size(); ++i) {
        const char ch = t[i];
        if (ch == '"') {
            ++i;
            return true;
        }
        if (ch != '\\') {
            out += ch;
            continue;
        }
        if (++i >= t.size()) return false;
        switch (t[i]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            if (i + 4 >= t.size()) return false;
            unsigned cp = 0;
            for (int k = 1; k <= 4; ++k) {
                const char h = t[i + k];
                cp <<= 4;
                if (h >= '0' && h <= '9') cp |= h - '0';
                else if (h >= 'a' && h <= 'f') cp |= h - 'a' + 10;
                else if (h >= 'A' && h <= 'F') cp |= h - 'A' + 10;
                else return false;
            }
            append_utf8(out, cp);
            i += 4;
            break;
        }
        default: return false;
        }
    }
    return false;
}

/// Reads a number or true/false/null as written.
bool read_scalar(const std::string& t, std::size_t& i, std::string& out)
{
    const std::size_t start = i;
    while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ' ' && t[i] != '\n' && t[i] != '\r' && t[i] != '\t')
        ++i;
    out = t.substr(start, i - start);
    if (out == "true" || out == "false" || out == "null") return true;
    if (out.empty()) return false;
    char* end = nullptr;
    std::strtod(out.c_str(), &end);
    return end && *end == '\0';
}

}  // namespace

std::string csv_escape(const std::string& field)
{
    if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
    std::string out = "\"";
    for (char ch : field) {
        if (ch == '"') out += '"';
        out += ch;
    }
    return out + '"';
}

std::string json_escape(const std::string& text)
{
    std::string out = "\"";
    for (char ch : text) {
        switch (ch) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(ch) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
                out += buf;
            } else {
                out += ch;
            }
        }
    }
    return out + '"';
}

std::string json_number(double v) { return std::isfinite(v) ? printf_string("%.9g", v) : "null"; }

std::string csv_number(double v)
{
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return printf_string("%.9g", v);
}

bool parse_flat_json(const std::string& text, std::map<std::string, std::string>& out)
{
    std::size_t i = 0;
    skip_space(text, i);
    if (i >= text.size() || text[i] != '{') return false;
    ++i;
    skip_space(text, i);
    if (i < text.size() && text[i] == '}') return true;
    for (;;) {
        std::string key, value;
        skip_space(text, i);
        if (!read_string(text, i, key)) return false;
        skip_space(text, i);
        if (i >= text.size() || text[i] != ':') return false;
        ++i;
        skip_space(text, i);
        if (i >= text.size()) return false;
        const bool ok = text[i] == '"' ? read_string(text, i, value) : read_scalar(text, i, value);
        if (!ok) return false;
        out[key] = value;
        skip_space(text, i);
        if (i >= text.size()) return false;
        if (text[i] == '}') return true;
        if (text[i] != ',') return false;
        ++i;
    }
}

std::string ceilings_json(const ceilings& c, const std::string& indent)
{
    std::ostringstream os;
    const std::string in = indent + "  ";
    os << "{\n"
       << in << "\"device_name\": " << json_escape(c.device_name) << ",\n"
       << in << "\"driver_version\": " << json_escape(c.driver_version) << ",\n"
       << in << "\"runtime_version\": " << json_escape(c.runtime_version) << ",\n"
       << in << "\"sm_count\": " << c.sm_count << ",\n"
       << in << "\"compute_capability\": " << c.compute_capability << ",\n"
       << in << "\"l2_bytes\": " << c.l2_bytes << ",\n"
       << in << "\"global_mem_bytes\": " << c.global_mem_bytes << ",\n"
       << in << "\"copy_gbs\": " << json_number(c.copy_gbs) << ",\n"
       << in << "\"fp64_cc_tflops\": " << json_number(c.fp64_cc_tflops) << ",\n"
       << in << "\"fp32_cc_tflops\": " << json_number(c.fp32_cc_tflops) << ",\n"
       << in << "\"fp64_tc_tflops\": " << json_number(c.fp64_tc_tflops) << ",\n"
       << in << "\"fp64_tc_shape\": " << json_escape(c.fp64_tc_shape) << ",\n"
       << in << "\"fp64_m8n8k4_tflops\": " << json_number(c.fp64_m8n8k4_tflops) << ",\n"
       << in << "\"fp64_m16n8k4_tflops\": " << json_number(c.fp64_m16n8k4_tflops) << ",\n"
       << in << "\"fp64_m16n8k8_tflops\": " << json_number(c.fp64_m16n8k8_tflops) << ",\n"
       << in << "\"fp64_m16n8k16_tflops\": " << json_number(c.fp64_m16n8k16_tflops) << ",\n"
       << in << "\"tf32_tc_tflops\": " << json_number(c.tf32_tc_tflops) << ",\n"
       << in << "\"fp16_tc_tflops\": " << json_number(c.fp16_tc_tflops) << ",\n"
       << in << "\"fp16_f16acc_tc_tflops\": " << json_number(c.fp16_f16acc_tc_tflops) << ",\n"
       << in << "\"b1_tc_tops\": " << json_number(c.b1_tc_tops) << "\n"
       << indent << "}";
    return os.str();
}

// -- outputs -----------------------------------------------------------------

std::string progress_line(const row& r)
{
    std::ostringstream os;
    os << "  " << r.workload << " | " << r.case_name << " | " << r.variant << " | " << r.cache << ": "
       << sig(r.time.median_ms) << " ms (min " << sig(r.time.min_ms) << ", max " << sig(r.time.max_ms) << ", "
       << r.time.repetitions << " reps)";
    if (r.spec.bytes > 0) os << "  " << sig(r.gbs) << " GB/s";
    if (r.spec.flops > 0) os << "  " << rate_text(r.gflops);
    if (r.fraction_of_peak >= 0) os << "  " << percent(r.fraction_of_peak) << " of " << ceiling_text(r);
    if (r.error.count) os << "  max abs err " << printf_string("%.2e", r.error.max_abs);
    if (r.error.mismatched) os << "  " << r.error.mismatched << " NaN/Inf mismatches";
    if (r.avg_power_w >= 0) os << "  " << sig(r.avg_power_w) << " W";
    if (r.spec.host_sync) os << "  [host sync: host gaps inside the timing]";
    return os.str();
}

std::string duration_text(double seconds)
{
    if (std::isnan(seconds) || seconds < 0) return "-";
    char buf[48];
    const long long s = std::llround(seconds);
    if (s < 60) std::snprintf(buf, sizeof buf, "%llds", s);
    else if (s < 3600) std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
    return buf;
}

double estimate_left_s(double elapsed_s, int done, int total)
{
    if (done <= 0 || total <= 0 || elapsed_s < 0) return -1;
    const int left = std::max(0, total - done);
    return elapsed_s / done * left;
}

std::string case_progress_line(int index, int total, const std::string& workload, const std::string& case_name,
                               double elapsed_s, double left_s, bool terminal)
{
    std::ostringstream os;
    if (terminal) {
        os << '[' << index << '/' << total << "  " << duration_text(elapsed_s) << " elapsed, "
           << (left_s < 0 ? std::string("time left not known yet") : "about " + duration_text(left_s) + " left") << "] "
           << workload << ": " << case_name;
    } else {
        os << "case " << index << '/' << total << ": " << workload << ' ' << case_name << " ("
           << printf_string("%.0f", elapsed_s) << " s elapsed)";
    }
    return os.str();
}

std::string ceilings_text(const ceilings& c)
{
    std::ostringstream os;
    os << "  device            " << c.device_name << " (sm_" << c.compute_capability << ", " << c.sm_count
       << " SMs, L2 " << sig(c.l2_bytes / 1048576.0) << " MiB, " << sig(c.global_mem_bytes / 1073741824.0)
       << " GiB)\n"
       << "  copy bandwidth    " << sig(c.copy_gbs) << " GB/s (read + write)\n"
       << "  FP64 tensor core  " << sig(c.fp64_tc_tflops) << " TFLOP/s (" << c.fp64_tc_shape << ")\n"
       << "  FP64 per shape    m8n8k4 " << sig(c.fp64_m8n8k4_tflops) << ", m16n8k4 " << sig(c.fp64_m16n8k4_tflops)
       << ", m16n8k8 " << sig(c.fp64_m16n8k8_tflops) << ", m16n8k16 " << sig(c.fp64_m16n8k16_tflops) << " TFLOP/s\n"
       << "  FP64 FMA          " << sig(c.fp64_cc_tflops) << " TFLOP/s\n"
       << "  FP32 FMA          " << sig(c.fp32_cc_tflops) << " TFLOP/s\n"
       << "  TF32 tensor core  " << sig(c.tf32_tc_tflops) << " TFLOP/s\n"
       << "  FP16 tensor core  " << sig(c.fp16_tc_tflops) << " TFLOP/s (f32 accumulate), "
       << sig(c.fp16_f16acc_tc_tflops) << " TFLOP/s (f16 accumulate)\n"
       << "  b1 tensor core    " << sig(c.b1_tc_tops) << " Tops (AND+popc, 2*M*N*K)\n";
    return os.str();
}

std::string text_table(const std::vector<row>& rows)
{
    const std::vector<std::string> header = {"workload", "case", "variant", "cache", "median ms", "min ms",
                                             "max ms", "GB/s", "GFLOP/s", "% ceiling", "flop/B", "roof GF/s",
                                             "TC bound", "TC speedup", "avg abs err", "max abs err", "W", "J/run",
                                             "host sync"};
    std::vector<bool> numeric(header.size(), true);
    numeric[0] = numeric[1] = numeric[2] = numeric[3] = false;
    numeric[13] = numeric[18] = false;
    std::vector<std::vector<std::string>> body;
    for (const row& r : rows) {
        body.push_back({r.workload, r.case_name, r.variant, r.cache, sig(r.time.median_ms), sig(r.time.min_ms),
                        sig(r.time.max_ms), r.spec.bytes > 0 ? sig(r.gbs) : "-",
                        r.spec.flops > 0 ? sig(r.gflops) : "-",
                        r.fraction_of_peak < 0 ? "-" : percent(r.fraction_of_peak) + " " + ceiling_text(r),
                        r.spec.flops > 0 ? sig(r.intensity, 3) : "-", sig(r.roofline_gflops), bound_text(r),
                        speedup_text(r), error_text(r.error.avg_abs, r.error), error_text(r.error.max_abs, r.error),
                        sig(r.avg_power_w, 3), sig(r.energy_j, 3), host_sync_text(r)});
    }
    return align_table(header, body, numeric);
}

std::string csv_header()
{
    return "workload,case,variant,cache,median_ms,min_ms,max_ms,repetitions,warmup_s,bytes,flops,footprint_bytes,"
           "cache_footprint_bytes,host_sync,ceiling,compute,tc_shape,gbs,gflops,fraction_of_peak,intensity,"
           "roofline_gflops,tc_alpha,tc_bound,tc_speedup,tc_partner,"
           "avg_abs_err,max_abs_err,max_rel_err,compared,mismatched,avg_power_w,energy_j,edp,note,"
           "device,driver,cuda_runtime,date_utc,commit,partial";
}

std::string csv_line(const row& r, const run_info& run, bool partial)
{
    std::ostringstream os;
    os << csv_escape(r.workload) << ',' << csv_escape(r.case_name) << ',' << csv_escape(r.variant) << ','
       << csv_escape(r.cache) << ',' << csv_number(r.time.median_ms) << ',' << csv_number(r.time.min_ms) << ','
       << csv_number(r.time.max_ms) << ',' << r.time.repetitions << ',' << csv_number(r.time.warmup_s) << ','
       << csv_number(r.spec.bytes) << ',' << csv_number(r.spec.flops) << ',' << r.spec.footprint_bytes << ','
       << r.cache_footprint_bytes << ',' << (r.spec.host_sync ? 1 : 0) << ',' << peak_name(r.spec.ceiling) << ','
       << peak_name(r.spec.compute) << ',' << csv_escape(r.tc_shape) << ',' << csv_number(r.gbs) << ','
       << csv_number(r.gflops) << ',' << csv_number(r.fraction_of_peak) << ',' << csv_number(r.intensity) << ','
       << csv_number(r.roofline_gflops) << ',' << csv_number(r.tc_alpha) << ',' << csv_number(r.tc_bound) << ','
       << csv_number(r.tc_speedup) << ','
       << csv_escape(r.tc_partner) << ',' << csv_number(r.error.avg_abs) << ',' << csv_number(r.error.max_abs) << ','
       << csv_number(r.error.max_rel) << ',' << r.error.count << ',' << r.error.mismatched << ','
       << csv_number(r.avg_power_w) << ',' << csv_number(r.energy_j) << ',' << csv_number(r.edp) << ','
       << csv_escape(r.spec.note) << ',' << csv_escape(run.device_name) << ',' << csv_escape(run.driver_version)
       << ',' << csv_escape(run.runtime_version) << ',' << csv_escape(run.date_utc) << ',' << csv_escape(run.commit)
       << ',' << (partial ? 1 : 0);
    return os.str();
}

namespace {

std::string row_json(const row& r)
{
    std::ostringstream os;
    os << "{\"workload\": " << json_escape(r.workload) << ", \"case\": " << json_escape(r.case_name)
       << ", \"variant\": " << json_escape(r.variant) << ", \"cache\": " << json_escape(r.cache)
       << ", \"median_ms\": " << json_number(r.time.median_ms) << ", \"min_ms\": " << json_number(r.time.min_ms)
       << ", \"max_ms\": " << json_number(r.time.max_ms) << ", \"repetitions\": " << r.time.repetitions
       << ", \"warmup_s\": " << json_number(r.time.warmup_s) << ", \"bytes\": " << json_number(r.spec.bytes)
       << ", \"flops\": " << json_number(r.spec.flops) << ", \"footprint_bytes\": " << r.spec.footprint_bytes
       << ", \"cache_footprint_bytes\": " << r.cache_footprint_bytes
       << ", \"host_sync\": " << (r.spec.host_sync ? "true" : "false")
       << ", \"ceiling\": " << json_escape(peak_name(r.spec.ceiling))
       << ", \"compute\": " << json_escape(peak_name(r.spec.compute)) << ", \"tc_shape\": " << json_escape(r.tc_shape)
       << ", \"gbs\": " << json_number(r.gbs)
       << ", \"gflops\": " << json_number(r.gflops) << ", \"fraction_of_peak\": " << json_number(r.fraction_of_peak)
       << ", \"intensity\": " << json_number(r.intensity)
       << ", \"roofline_gflops\": " << json_number(r.roofline_gflops) << ", \"tc_alpha\": " << json_number(r.tc_alpha)
       << ", \"tc_bound\": " << json_number(r.tc_bound)
       << ", \"tc_speedup\": " << json_number(r.tc_speedup) << ", \"tc_partner\": " << json_escape(r.tc_partner)
       << ", \"avg_abs_err\": " << json_number(r.error.avg_abs) << ", \"max_abs_err\": " << json_number(r.error.max_abs)
       << ", \"max_rel_err\": " << json_number(r.error.max_rel) << ", \"compared\": " << r.error.count
       << ", \"mismatched\": " << r.error.mismatched << ", \"avg_power_w\": " << json_number(r.avg_power_w)
       << ", \"energy_j\": " << json_number(r.energy_j) << ", \"edp\": " << json_number(r.edp)
       << ", \"note\": " << json_escape(r.spec.note) << "}";
    return os.str();
}

template <class T, class F>
void json_array(std::ostringstream& os, const char* name, const std::vector<T>& items, F&& item_json, bool last)
{
    os << "  \"" << name << "\": [";
    for (std::size_t i = 0; i < items.size(); ++i) os << (i ? ",\n    " : "\n    ") << item_json(items[i]);
    os << (items.empty() ? "]" : "\n  ]") << (last ? "\n" : ",\n");
}

}  // namespace

std::string results_json(const results& res)
{
    std::ostringstream os;
    os << "{\n  \"run\": {\"device_name\": " << json_escape(res.run.device_name)
       << ", \"driver_version\": " << json_escape(res.run.driver_version)
       << ", \"cuda_runtime\": " << json_escape(res.run.runtime_version)
       << ", \"date_utc\": " << json_escape(res.run.date_utc) << ", \"commit\": " << json_escape(res.run.commit)
       << ", \"device\": " << res.run.device << "},\n"
       << "  \"partial\": " << (res.partial ? "true" : "false")
       << ", \"partial_reason\": " << json_escape(res.partial_reason) << ", \"cases_done\": " << res.cases_done
       << ", \"cases_total\": " << res.cases_total << ",\n"
       << "  \"ceilings\": " << ceilings_json(res.ceil, "  ") << ",\n";
    json_array(os, "rows", res.rows, row_json, false);
    json_array(os, "summaries", res.summaries,
               [](const summary_entry& s) {
                   return "{\"workload\": " + json_escape(s.workload) + ", \"key\": " + json_escape(s.key) +
                          ", \"value\": " + json_escape(s.value) + "}";
               },
               false);
    json_array(os, "failures", res.failures,
               [](const failure& f) {
                   return "{\"workload\": " + json_escape(f.workload) + ", \"message\": " + json_escape(f.message) + "}";
               },
               true);
    os << "}\n";
    return os.str();
}

std::string summary_markdown(const results& res)
{
    const ceilings& c = res.ceil;
    std::ostringstream os;
    os << "# tcore benchmark results\n\n"
       << res.run.device_name << ", driver " << res.run.driver_version << ", CUDA runtime " << res.run.runtime_version
       << ", " << res.run.date_utc << ", commit " << res.run.commit << ".\n\n";
    if (res.partial) {
        os << "**Partial run**: " << md_cell(res.partial_reason.empty() ? "not complete" : res.partial_reason);
        if (res.cases_total > 0) os << " (" << res.cases_done << " of " << res.cases_total << " cases done)";
        os << ".\n\n";
    }
    os << "## Measured ceilings\n\n";
    os << md_table({"ceiling", "measured"},
                   {{"copy bandwidth (read + write)", sig(c.copy_gbs) + " GB/s"},
                    {"FP64 tensor core (" + c.fp64_tc_shape + ")", sig(c.fp64_tc_tflops) + " TFLOP/s"},
                    {"FP64 tensor core m8n8k4", sig(c.fp64_m8n8k4_tflops) + " TFLOP/s"},
                    {"FP64 tensor core m16n8k4", sig(c.fp64_m16n8k4_tflops) + " TFLOP/s"},
                    {"FP64 tensor core m16n8k8", sig(c.fp64_m16n8k8_tflops) + " TFLOP/s"},
                    {"FP64 tensor core m16n8k16", sig(c.fp64_m16n8k16_tflops) + " TFLOP/s"},
                    {"FP64 FMA (CUDA cores)", sig(c.fp64_cc_tflops) + " TFLOP/s"},
                    {"FP32 FMA (CUDA cores)", sig(c.fp32_cc_tflops) + " TFLOP/s"},
                    {"TF32 tensor core", sig(c.tf32_tc_tflops) + " TFLOP/s"},
                    {"FP16 tensor core (f32 accumulate)", sig(c.fp16_tc_tflops) + " TFLOP/s"},
                    {"FP16 tensor core (f16 accumulate)", sig(c.fp16_f16acc_tc_tflops) + " TFLOP/s"},
                    {"b1 tensor core (AND+popc)", sig(c.b1_tc_tops) + " Tops"}},
                   {false, true});

    os << "\n## Results\n\nMedian of event-timed repetitions after a time-based warm-up; cache: hot (inputs in L2), "
          "cold (L2 flushed before each run) or stream (footprint larger than L2), decided by one footprint per "
          "case so that every variant of a case carries the same label. TC speedup is the cc-like "
          "variant's median over the tc-like one's, beside the roofline bound 1 + (a-1)/(1+a) for memory-bound "
          "cases, a = the tensor-core peak of the row's own MMA shape over the CUDA-core peak.\n\n";
    std::vector<std::vector<std::string>> body;
    for (const row& r : res.rows) {
        body.push_back({r.workload, r.case_name, r.variant, r.cache, sig(r.time.median_ms),
                        r.spec.bytes > 0 ? sig(r.gbs) : "-", r.spec.flops > 0 ? sig(r.gflops) : "-",
                        r.fraction_of_peak < 0 ? "-" : percent(r.fraction_of_peak) + " " + ceiling_text(r),
                        bound_text(r), speedup_text(r), error_text(r.error.max_abs, r.error), sig(r.energy_j, 3),
                        host_sync_text(r)});
    }
    os << md_table({"workload", "case", "variant", "cache", "median ms", "GB/s", "GFLOP/s", "of ceiling", "TC bound",
                    "TC speedup", "max abs err", "J/run", "host sync"},
                   body, {false, false, false, false, true, true, true, true, true, false, true, true, false});
    std::vector<std::string> synced;
    for (const row& r : res.rows) {
        const std::string name = r.workload + " " + r.variant;
        if (r.spec.host_sync && std::find(synced.begin(), synced.end(), name) == synced.end()) synced.push_back(name);
    }
    if (!synced.empty()) {
        os << "\nHost sync = yes: the timed function waits on the host inside each repetition (";
        for (std::size_t i = 0; i < synced.size(); ++i) os << (i ? ", " : "") << md_cell(synced[i]);
        os << "). The repetitions cannot be queued ahead of the GPU, so launch latency and the host's round trips "
              "fall inside the timed events: these medians include host gaps and are upper bounds on the device "
              "time.\n";
    }

    std::vector<std::vector<std::string>> bounds;
    for (const row& r : res.rows)
        if (r.tc_bound >= 0)
            bounds.push_back({r.workload, r.case_name, r.cache, r.variant + " / " + r.tc_partner,
                              r.tc_shape.empty() ? "-" : r.tc_shape, fixed(r.tc_alpha, 3),
                              fixed(r.tc_bound, 3) + "x", fixed(r.tc_speedup, 3) + "x"});
    if (!bounds.empty()) {
        os << "\n## Tensor-core speedup bound vs measured (memory-bound cases)\n\n";
        os << md_table({"workload", "case", "cache", "tc / cc variant", "tc shape", "a", "bound 1+(a-1)/(1+a)",
                        "measured cc time / tc time"},
                       bounds, {false, false, false, false, false, true, true, true});
    }

    if (!res.summaries.empty()) {
        os << "\n## Notes from the workloads\n\n";
        for (const auto& s : res.summaries) os << "- " << s.workload << ": " << s.key << " = " << s.value << '\n';
    }
    if (!res.failures.empty()) {
        os << "\n## Failures\n\n";
        for (const auto& f : res.failures) os << "- " << f.workload << ": " << md_cell(f.message) << '\n';
    }
    return os.str();
}

namespace {

void make_dir(const std::string& dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    require(!ec, "write_results", "cannot create " + dir + ": " + ec.message());
}

/// Writes `text` to dir/name.tmp and renames it over dir/name.
void replace_file(const std::string& dir, const char* name, const std::string& text)
{
    const std::filesystem::path path = std::filesystem::path(dir) / name;
    const std::filesystem::path tmp = std::filesystem::path(dir) / (std::string(name) + ".tmp");
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << text;
        f.close();
        require(static_cast<bool>(f), "write_results", "cannot write " + tmp.string());
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    require(!ec, "write_results", "cannot replace " + path.string() + ": " + ec.message());
}

}  // namespace

void write_results(const std::string& dir, const results& res)
{
    make_dir(dir);
    std::string csv = csv_header() + '\n';
    for (const row& r : res.rows) csv += csv_line(r, res.run, res.partial) + '\n';
    replace_file(dir, "results.csv", csv);
    replace_file(dir, "results.json", results_json(res));
    replace_file(dir, "summary.md", summary_markdown(res));
}

void results_writer::begin(const results& res)
{
    results empty = res;
    empty.rows.clear();
    empty.partial = true;
    if (empty.partial_reason.empty()) empty.partial_reason = "run in progress";
    write_results(dir_, empty);
}

void results_writer::append_row(const row& r, const run_info& run)
{
    const std::string path = (std::filesystem::path(dir_) / "results.csv").string();
    const std::string line = csv_line(r, run, true) + '\n';
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    require(fd >= 0, "results_writer", "cannot open " + path);
    const ssize_t n = ::write(fd, line.data(), line.size());
    ::close(fd);
    require(n == static_cast<ssize_t>(line.size()), "results_writer", "cannot append to " + path);
}

void results_writer::write(const results& res) { write_results(dir_, res); }

}  // namespace tcore::bench
