// bench/harness/cli.cpp - parsing and checking tcore-bench's command line, the
// run modes' timing defaults and the help text (see cli.hpp).
#include "harness/cli.hpp"

#include "harness/headline.hpp"
#include "harness/inputs.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace tcore::bench {

namespace {

/// A finite, non-negative number of seconds.
bool parse_seconds(const std::string& text, double& out)
{
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (!end || *end != '\0' || errno == ERANGE || !std::isfinite(v) || v < 0) return false;
    out = v;
    return true;
}

/// A decimal integer in [lo, hi].
bool parse_count(const std::string& text, long lo, long hi, int& out)
{
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-' || text[0] == '+'))
        return false;
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (!end || *end != '\0' || errno == ERANGE || v < lo || v > hi) return false;
    out = static_cast<int>(v);
    return true;
}

bool has_mtx_extension(const std::filesystem::path& p)
{
    std::string ext = p.extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == ".mtx";
}

std::string joined(const std::vector<std::string>& items)
{
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
}

}  // namespace

run_mode mode_of(const options& opts)
{
    if (opts.quick) return run_mode::quick;
    if (opts.full || !opts.cases.empty()) return run_mode::full;
    return run_mode::headline;
}

bool expand_matrix_path(const std::string& path, std::vector<std::string>& files, std::string& error)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        error = "--matrix: " + path + ": no such file or folder";
        return false;
    }
    std::vector<std::string> found;
    if (fs::is_directory(st)) {
        for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_regular_file(ec) && has_mtx_extension(it->path())) found.push_back(it->path().string());
        if (ec) {
            error = "--matrix: " + path + ": cannot read the folder (" + ec.message() + ")";
            return false;
        }
        if (found.empty()) {
            error = "--matrix: " + path + ": the folder holds no .mtx file";
            return false;
        }
        std::sort(found.begin(), found.end());
    } else {
        if (!has_mtx_extension(path)) {
            error = "--matrix: " + path + ": not a Matrix Market file (.mtx expected)";
            return false;
        }
        found.push_back(path);
    }
    for (const std::string& f : found) {
        mtx_size size;
        std::string why;
        if (!read_mtx_size(f, size, why)) {
            error = "--matrix: " + why;
            return false;
        }
    }
    for (const std::string& f : found)  // the same file named twice is one case
        if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
    return true;
}

bool parse_args(const std::vector<std::string>& args, options& opts, bool& help, std::string& error)
{
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i], value;
        const std::size_t eq = arg.find('=');
        const bool inline_value = arg.rfind("--", 0) == 0 && eq != std::string::npos;
        if (inline_value) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
        }
        auto take = [&]() -> bool {
            if (inline_value) return true;
            if (i + 1 >= args.size()) {
                error = arg + " needs a value";
                return false;
            }
            value = args[++i];
            return true;
        };
        auto bad = [&](const char* what) {
            error = arg + ": " + what + " expected, got '" + value + "'";
            return false;
        };
        const bool flag = arg == "--help" || arg == "-h" || arg == "--list" || arg == "--quick" || arg == "--full" ||
                          arg == "--remeasure-ceilings";
        if (flag && inline_value) {
            error = arg + " takes no value";
            return false;
        }
        if (arg == "--help" || arg == "-h") help = true;
        else if (arg == "--list") opts.list = true;
        else if (arg == "--quick") opts.quick = true;
        else if (arg == "--full") opts.full = true;
        else if (arg == "--remeasure-ceilings") opts.remeasure_ceilings = true;
        else if (arg == "--workload" || arg == "--case" || arg == "--variant") {
            if (!take()) return false;
            std::vector<std::string> items = split_list(value);
            if (items.empty()) return bad("a comma-separated list of names");
            std::vector<std::string>& list = arg == "--workload" ? opts.workloads : arg == "--case" ? opts.cases : opts.variants;
            list.insert(list.end(), items.begin(), items.end());  // repeatable: the entries add up
        } else if (arg == "--matrix") {
            if (!take()) return false;
            if (value.empty()) return bad("a .mtx file or a folder");
            if (!expand_matrix_path(value, opts.matrices, error)) return false;
        } else if (arg == "--input") {
            if (!take()) return false;
            user_input in;
            if (!parse_input(value, in, error)) return false;
            opts.inputs.push_back(in);
        } else if (arg == "--out") {
            if (!take()) return false;
            if (value.empty()) return bad("a folder");
            opts.out_dir = value;
        } else if (arg == "--warmup") {
            if (!take()) return false;
            if (!parse_seconds(value, opts.warmup_s)) return bad("a number of seconds >= 0");
            opts.warmup_given = true;
        } else if (arg == "--min-time") {
            if (!take()) return false;
            if (!parse_seconds(value, opts.min_time_s)) return bad("a number of seconds >= 0");
            opts.min_time_given = true;
        } else if (arg == "--energy-time") {
            if (!take()) return false;
            if (!parse_seconds(value, opts.energy_s)) return bad("a number of seconds >= 0");
            opts.energy_given = true;
        } else if (arg == "--min-reps") {
            if (!take()) return false;
            if (!parse_count(value, 1, 1000000000L, opts.min_reps)) return bad("a whole number >= 1");
            opts.min_reps_given = true;
        } else if (arg == "--device") {
            if (!take()) return false;
            if (!parse_count(value, 0, 1024, opts.device)) return bad("a device number >= 0");
        } else if (arg.rfind("-", 0) == 0) {
            error = "unknown option '" + args[i] + "'";
            return false;
        } else {
            error = "unexpected argument '" + args[i] + "' (options start with --)";
            return false;
        }
    }
    if (opts.quick && opts.full) {
        error = "--quick and --full exclude each other (--quick: small sizes; --full: every case)";
        return false;
    }
    return true;
}

void apply_mode_defaults(options& opts)
{
    double warmup = 1.0, min_time = 0.2, energy = 0.3;
    int min_reps = 20;
    switch (mode_of(opts)) {
    case run_mode::full: break;
    case run_mode::headline: warmup = 0.25, min_time = 0.1, energy = 0.1; break;
    case run_mode::quick: warmup = 0.05, min_time = 0.02, min_reps = 10, energy = 0; break;
    }
    if (!opts.warmup_given) opts.warmup_s = warmup;
    if (!opts.min_time_given) opts.min_time_s = min_time;
    if (!opts.min_reps_given) opts.min_reps = min_reps;
    if (!opts.energy_given) opts.energy_s = energy;
}

std::string check_selection(const options& opts, const std::vector<std::string>& all_workloads,
                            const std::vector<workload_cases>& selected)
{
    for (const std::string& f : opts.workloads) {
        bool hit = false;
        for (const std::string& w : all_workloads) hit = hit || name_matches({f}, w);
        if (!hit) return "--workload '" + f + "' matches no workload (workloads: " + joined(all_workloads) + ")";
    }
    std::vector<std::string> names;
    for (const workload_cases& w : selected) names.push_back(w.workload);
    for (const std::string& f : opts.cases) {
        bool hit = false;
        for (const workload_cases& w : selected)
            for (const std::string& c : w.cases) hit = hit || name_matches({f}, c);
        if (!hit)
            return "--case '" + f + "' matches no case of " + joined(names) + " (--list --full" +
                   (opts.quick ? " --quick" : "") + " shows them)";
    }
    if (!opts.variants.empty()) {
        std::vector<std::string> variants;
        bool all_known = true;
        for (const workload_cases& w : selected) {
            const std::vector<std::string> v = known_variants(w.workload);
            all_known = all_known && catalog_of(w.workload) != nullptr;
            for (const std::string& name : v)
                if (std::find(variants.begin(), variants.end(), name) == variants.end()) variants.push_back(name);
        }
        for (const std::string& f : opts.variants) {
            bool hit = false;
            for (const std::string& v : variants) hit = hit || name_matches({f}, v);
            if (!hit && all_known)
                return "--variant '" + f + "' matches no variant of " + joined(names) + " (variants: " + joined(variants) +
                       ")";
        }
    }
    if (!opts.matrices.empty()) {
        bool any = false;
        for (const workload_cases& w : selected) any = any || w.takes_matrices;
        if (!any) return "--matrix: none of the selected workloads (" + joined(names) + ") reads matrices";
        for (std::size_t i = 0; i < opts.matrices.size(); ++i)
            for (std::size_t j = 0; j < i; ++j)
                if (matrix_case_name(opts.matrices[i]) == matrix_case_name(opts.matrices[j]))
                    return "--matrix: " + opts.matrices[j] + " and " + opts.matrices[i] + " would both be case '" +
                           matrix_case_name(opts.matrices[i]) + "'; rename one";
    }
    return "";
}

bool parse_input(const std::string& value, user_input& in, std::string& error)
{
    const std::size_t colon = value.find(':');
    in = {};
    in.workload = value.substr(0, colon);
    if (colon == std::string::npos || in.workload.empty()) {
        error = "--input: '" + value + "': WORKLOAD:KEY=VALUE[,KEY=VALUE...] expected (e.g. fft:size=512x512,batch=64)";
        return false;
    }
    in.text = value.substr(colon + 1);
    for (const std::string& item : split_list(in.text)) {
        const std::size_t eq = item.find('=');
        const std::string key = item.substr(0, eq), val = eq == std::string::npos ? "" : item.substr(eq + 1);
        if (eq == std::string::npos || key.empty() || val.empty()) {
            error = "--input " + in.workload + ": '" + item + "': KEY=VALUE expected";
            return false;
        }
        if (!in.get(key).empty()) {
            error = "--input " + in.workload + ": key '" + key + "' given twice";
            return false;
        }
        in.values.emplace_back(key, val);
    }
    if (in.values.empty()) {
        error = "--input " + in.workload + ": no KEY=VALUE after the colon";
        return false;
    }
    return true;
}

std::string check_inputs(const options& opts, const registry& reg)
{
    for (const user_input& in : opts.inputs) {
        const workload* w = nullptr;
        std::vector<std::string> takers;
        for (const workload& r : reg.workloads) {
            if (!r.input_keys.empty()) takers.push_back(r.name);
            if (r.name == in.workload) w = &r;
        }
        if (!w || w->input_keys.empty())
            return "--input " + in.workload + ": no such workload takes --input (" +
                   (takers.empty() ? std::string("none here") : joined(takers)) + ")";
        for (const auto& [key, value] : in.values) {
            bool known = false;
            std::vector<std::string> keys;
            for (const auto& k : w->input_keys) {
                keys.push_back(k.first);
                known = known || k.first == key;
            }
            if (!known) return "--input " + in.workload + ": unknown key '" + key + "' (keys: " + joined(keys) + ")";
        }
        if (w->check_input) {
            const std::string problem = w->check_input(in);
            if (!problem.empty()) return "--input " + in.workload + ":" + in.text + ": " + problem;
        }
    }
    return "";
}

std::string input_keys_text(const registry& reg)
{
    std::ostringstream os;
    bool any = false;
    for (const workload& w : reg.workloads) {
        if (w.input_keys.empty()) continue;
        if (!any) os << "\n--input keys (WORKLOAD:KEY=VALUE,...; repeat --input for several cases):\n";
        any = true;
        os << "  " << w.name << ":\n";
        for (const auto& [key, meaning] : w.input_keys) {
            std::string k = "    " + key;
            k.resize(std::max<std::size_t>(k.size() + 1, 22), ' ');
            os << k << meaning << "\n";
        }
    }
    return os.str();
}

std::string usage_text(const std::string& program, const std::string& default_out_dir,
                       const std::vector<std::string>& workloads)
{
    std::ostringstream os;
    os << "usage: " << program << " [options]\n"
       << "\n"
       << "Runs the registered workloads under the measurement protocol (time-based warm-up, event-timed\n"
       << "repetitions, hot/cold L2) and writes results.csv, results.json and summary.md as cases complete.\n"
       << "\n"
       << "What runs:\n"
       << "  (default)             the headline cases: the rows of README.md's benchmark table (about 8\n"
       << "                        minutes on an H100, at most 10), with a 0.25 s warm-up, 0.1 s timed\n"
       << "                        repetitions at least and a 0.1 s power loop per configuration\n"
       << "  --full                every case, under the protocol's 1 s warm-up, 0.2 s repetitions and 0.3 s\n"
       << "                        power loop (about 30 minutes on an H100)\n"
       << "  --quick               small sizes only, 0.05 s warm-up, 0.02 s repetitions, no power loop (about\n"
       << "                        a minute, at most 90 s): a check that everything runs, not figures to keep\n"
       << "  --workload LIST       only workloads whose name contains one of the comma-separated entries\n"
       << "  --case LIST           only cases whose name contains one of the entries, headline or not (the\n"
       << "                        protocol's timing, as --full)\n"
       << "  --variant LIST        only variants (base, tc, cc, cce, ...) containing one of the entries;\n"
       << "                        an entry '=x' in any list matches x exactly (--variant =cc skips cce).\n"
       << "                        An entry that matches nothing is an error. These three are repeatable:\n"
       << "                        --case a --case b is --case a,b\n"
       << "  --matrix PATH         a Matrix Market file (.mtx) or a folder of them (repeatable): each file is\n"
       << "                        a case of spmv and spgemm, named after the file stem, run with every\n"
       << "                        variant and the cuSPARSE baseline instead of their built-in cases; without\n"
       << "                        --workload only those two run. A case too large for the device's free\n"
       << "                        memory is skipped with a message\n"
       << "  --input WORKLOAD:KEY=VALUE,...\n"
       << "                        a case of the user's for a workload that takes them (repeatable; the keys\n"
       << "                        of each are listed at the end of this text), e.g.\n"
       << "                        --input fft:size=512x512,batch=64\n"
       << "                        --input stencil:shape=star2d1r,grid=8192x8192,steps=3,boundary=periodic\n"
       << "                        --input gemv:rows=4096,cols=32768,layout=col\n"
       << "                        --input reduce:n=100000000,segment=1000\n"
       << "                        --input scan:n=2^27,segment=64,kind=both\n"
       << "                        --input interp:image=photo.ppm,scale=2.5 (binary PGM/PPM, 8-bit)\n"
       << "                        Given inputs, a workload runs those cases instead of its own; without\n"
       << "                        --workload only the workloads named run. A bad key or value exits 2\n"
       << "  --list                list the workloads, their variants and the cases the same options would\n"
       << "                        run (with --full: every case, the default ones marked); runs nothing,\n"
       << "                        needs no GPU\n"
       << "\n"
       << "Measurement:\n"
       << "  --warmup SECONDS      time-based warm-up before each configuration (default: see above)\n"
       << "  --min-time SECONDS    timed repetitions last at least this long in all per cache state\n"
       << "  --min-reps N          and number at least this many (default 20; --quick 10)\n"
       << "  --energy-time SECONDS power-sampling loop per row where NVML is present (0: none)\n"
       << "  --device N            CUDA device (default 0)\n"
       << "  --remeasure-ceilings  measure the ceilings even if a cached file matches\n"
       << "\n"
       << "Output:\n"
       << "  --out DIR             results folder (default results/latest beside the executable, here\n"
       << "                        " << default_out_dir << "); measured ceilings are cached beside it, in\n"
       << "                        DIR/../ceilings-<device>.json. results.csv gains a row as each\n"
       << "                        measurement ends and is rewritten as each case ends; results.json and\n"
       << "                        summary.md are rewritten as each case ends. Until the run completes they\n"
       << "                        are marked partial: column 'partial' = 1 in the CSV, \"partial\": true in\n"
       << "                        the JSON, a 'Partial run' line in summary.md\n"
       << "  --help                this text\n"
       << "\n"
       << "Progress: a line as each case starts, with the time so far and, on a terminal, an estimate of\n"
       << "the time left; a line per measured row.\n"
       << "\n"
       << "Stopping: SIGINT (Ctrl-C) or SIGTERM stops after the measurement under way, writes the files\n"
       << "marked partial and exits 130 (SIGINT) or 143 (SIGTERM); a second signal stops at once (the files\n"
       << "written so far stay valid).\n"
       << "\n"
       << "Exit status: 0 all measured, 1 a workload failed, 2 bad options, a missing file, a filter that\n"
       << "matches nothing or no GPU, 130/143 stopped by SIGINT/SIGTERM.\n";
    if (!workloads.empty()) os << "\nworkloads: " << joined(workloads) << "\n";
    return os.str();
}

}  // namespace tcore::bench
