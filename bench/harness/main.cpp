// bench/harness/main.cpp - main() of tcore-bench and of every
// tcore-bench-<workload> binary: options, the GPU check, ceilings, running
// the registered workloads (a failing one is reported and the rest go on),
// and writing the results. The registered set comes from
// tcore_register_all(), which CMake generates per binary.
#include "harness/ceilings.hpp"
#include "harness/energy.hpp"
#include "harness/harness.hpp"
#include "harness/report.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

void tcore_register_all(tcore::bench::registry&);

namespace {

using namespace tcore::bench;

#ifndef TCORE_SOURCE_DIR
#define TCORE_SOURCE_DIR "."
#endif

std::string program = "tcore-bench";

/// The results folder without --out: results/latest beside the running
/// executable (<build>/results/latest for <build>/tcore-bench), so that runs
/// stay in the build tree; tcore-results/latest in the working folder where
/// /proc/self/exe cannot be read. The ceilings cache goes to its parent.
std::string default_out_dir()
{
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec && exe.is_absolute() && exe.has_parent_path()) return (exe.parent_path() / "results" / "latest").string();
    return (std::filesystem::path("tcore-results") / "latest").string();
}

void print_usage(std::FILE* to, const registry* reg)
{
    std::fprintf(to,
                 "usage: %s [options]\n"
                 "\n"
                 "Runs the registered workloads under the measurement protocol (time-based warm-up, event-timed\n"
                 "repetitions, hot/cold L2) and writes results.csv, results.json and summary.md.\n"
                 "\n"
                 "  --workload LIST       only workloads whose name contains one of the comma-separated entries\n"
                 "  --case LIST           only cases whose name contains one of the entries\n"
                 "  --variant LIST        only variants (base, tc, cc, cce, ...) containing one of the entries;\n"
                 "                        an entry '=x' in any list matches x exactly (--variant =cc skips cce)\n"
                 "  --quick               small sizes only\n"
                 "  --list                list the workloads and their cases; runs nothing, needs no GPU\n"
                 "  --out DIR             results folder (default results/latest beside the executable, here\n"
                 "                        %s); measured ceilings are cached beside it, in\n"
                 "                        DIR/../ceilings-<device>.json\n"
                 "  --warmup SECONDS      time-based warm-up before each configuration (default 1)\n"
                 "  --min-time SECONDS    timed repetitions last at least this long in all (default 0.2)\n"
                 "  --min-reps N          and number at least this many (default 20)\n"
                 "  --energy-time SECONDS power-sampling loop per row where NVML is present (default 0.3)\n"
                 "  --device N            CUDA device (default 0)\n"
                 "  --remeasure-ceilings  measure the ceilings even if a cached file matches\n"
                 "  --help                this text\n"
                 "\n"
                 "Exit status: 0 all measured, 1 a workload failed, 2 bad options or no GPU.\n",
                 program.c_str(), default_out_dir().c_str());
    if (reg) {
        std::fprintf(to, "\nworkloads:");
        for (const workload& w : reg->workloads) std::fprintf(to, " %s", w.name.c_str());
        std::fprintf(to, "\n");
    }
}

std::vector<std::string> split_list(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!item.empty()) out.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

bool parse_double(const std::string& text, double& out)
{
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return !text.empty() && end && *end == '\0' && out >= 0;
}

bool parse_int(const std::string& text, int& out)
{
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    out = static_cast<int>(v);
    return !text.empty() && end && *end == '\0' && v >= 0 && v <= 1000000000L;
}

/// Parses argv into opts; false with `error` set on a bad option.
bool parse_args(int argc, char** argv, options& opts, bool& help, std::string& error)
{
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i], value;
        const std::size_t eq = arg.find('=');
        const bool inline_value = arg.rfind("--", 0) == 0 && eq != std::string::npos;
        if (inline_value) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
        }
        auto take = [&]() -> bool {
            if (inline_value) return true;
            if (i + 1 >= argc) {
                error = arg + " needs a value";
                return false;
            }
            value = argv[++i];
            return true;
        };
        auto bad = [&](const char* what) {
            error = arg + ": " + what + " expected, got '" + value + "'";
            return false;
        };
        if (arg == "--help" || arg == "-h") help = true;
        else if (arg == "--list") opts.list = true;
        else if (arg == "--quick") opts.quick = true;
        else if (arg == "--remeasure-ceilings") opts.remeasure_ceilings = true;
        else if (arg == "--workload") { if (!take()) return false; opts.workloads = split_list(value); }
        else if (arg == "--case") { if (!take()) return false; opts.cases = split_list(value); }
        else if (arg == "--variant") { if (!take()) return false; opts.variants = split_list(value); }
        else if (arg == "--out") {
            if (!take()) return false;
            if (value.empty()) return bad("a folder");
            opts.out_dir = value;
        } else if (arg == "--warmup") {
            if (!take()) return false;
            if (!parse_double(value, opts.warmup_s)) return bad("seconds");
        } else if (arg == "--min-time") {
            if (!take()) return false;
            if (!parse_double(value, opts.min_time_s)) return bad("seconds");
        } else if (arg == "--energy-time") {
            if (!take()) return false;
            if (!parse_double(value, opts.energy_s)) return bad("seconds");
        } else if (arg == "--min-reps") {
            if (!take()) return false;
            if (!parse_int(value, opts.min_reps) || opts.min_reps < 1) return bad("a positive count");
        } else if (arg == "--device") {
            if (!take()) return false;
            if (!parse_int(value, opts.device)) return bad("a device number");
        } else {
            error = "unknown option '" + std::string(argv[i]) + "'";
            return false;
        }
        if ((arg == "--help" || arg == "--list" || arg == "--quick" || arg == "--remeasure-ceilings") && inline_value) {
            error = arg + " takes no value";
            return false;
        }
    }
    return true;
}

/// The folder the ceilings cache lives in: the parent of the results folder.
std::string cache_dir_for(const std::string& out_dir)
{
    std::filesystem::path p = std::filesystem::path(out_dir).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();  // "a/b/" -> "a/b"
    const std::filesystem::path parent = p.parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

std::string run_command(const std::string& command)
{
    std::FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return "";
    char buf[256] = {};
    std::string out;
    while (std::fgets(buf, sizeof buf, pipe)) out += buf;
    const int status = pclose(pipe);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
    return status == 0 ? out : "";
}

/// TCORE_COMMIT if set, else `git rev-parse --short HEAD` in the source tree, else "unknown".
std::string commit_id()
{
    if (const char* env = std::getenv("TCORE_COMMIT"); env && *env) return env;
    const std::string id = run_command("git -C '" TCORE_SOURCE_DIR "' rev-parse --short HEAD 2>/dev/null");
    return id.empty() ? "unknown" : id;
}

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

std::string utc_now()
{
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

run_info collect_run_info(int device)
{
    run_info info;
    info.device = device;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) info.device_name = prop.name;
    info.driver_version = energy::driver_version();
    int v = 0;
    if (info.driver_version.empty())
        info.driver_version = cudaDriverGetVersion(&v) == cudaSuccess ? "CUDA driver API " + version_text(v) : "unknown";
    info.runtime_version = cudaRuntimeGetVersion(&v) == cudaSuccess ? version_text(v) : "unknown";
    info.date_utc = utc_now();
    info.commit = commit_id();
    cudaGetLastError();
    return info;
}

/// False with a message if there is no usable GPU `device`.
bool gpu_present(int device, std::string& why)
{
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    cudaGetLastError();
    if (status != cudaSuccess) {
        why = std::string("no CUDA GPU found (cudaGetDeviceCount: ") + cudaGetErrorString(status) + ")";
        return false;
    }
    if (count == 0) {
        why = "no CUDA GPU found (cudaGetDeviceCount returned 0)";
        return false;
    }
    if (device >= count) {
        why = "device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " present)";
        return false;
    }
    return true;
}

std::vector<const workload*> select_workloads(const registry& reg, const options& opts)
{
    std::vector<const workload*> out;
    for (const workload& w : reg.workloads)
        if (name_matches(opts.workloads, w.name)) out.push_back(&w);
    return out;
}

/// Runs `f`, turning an exception into a message; true if it succeeded.
template <class F>
bool guarded(F&& f, std::string& message)
{
    try {
        f();
        return true;
    } catch (const tcore::error& e) {
        message = e.what();
    } catch (const std::exception& e) {
        message = std::string("std::exception: ") + e.what();
    } catch (...) {
        message = "unknown exception";
    }
    return false;
}

int list_workloads(const std::vector<const workload*>& selected, const options& opts)
{
    ceilings c = nominal_device();
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > opts.device) {
        std::string ignored;
        guarded([&] { query_device(c, opts.device); }, ignored);
    }
    cudaGetLastError();
    bool failed = false;
    for (const workload* w : selected) {
        std::printf("%s: %s\n", w->name.c_str(), w->description.c_str());
        context ctx(opts, c, w->name);
        std::string message;
        if (!guarded([&] { w->run(ctx); }, message)) {
            std::printf("  (listing failed: %s)\n", message.c_str());
            failed = true;
        }
        for (const std::string& name : ctx.announced()) std::printf("  %s\n", name.c_str());
    }
    return failed ? 1 : 0;
}

void save(const options& opts, const results& res)
{
    std::string message;
    if (!guarded([&] { write_results(opts.out_dir, res); }, message))
        std::printf("warning: results not written: %s\n", message.c_str());
}

int run_workloads(const std::vector<const workload*>& selected, const options& opts)
{
    TCORE_CHECK(cudaSetDevice(opts.device));
    energy::open(opts.device);
    results res;
    res.run = collect_run_info(opts.device);
    std::printf("%s: %s, driver %s, CUDA runtime %s, commit %s, %s\n", program.c_str(), res.run.device_name.c_str(),
                res.run.driver_version.c_str(), res.run.runtime_version.c_str(), res.run.commit.c_str(),
                res.run.date_utc.c_str());

    std::string message;
    if (!guarded([&] { res.ceil = obtain_ceilings(opts, cache_dir_for(opts.out_dir), res.run.driver_version,
                                                  res.run.runtime_version); },
                 message)) {
        std::printf("ceilings FAILED: %s\n", message.c_str());
        res.failures.push_back({"ceilings", message});
        guarded([&] { query_device(res.ceil, opts.device); }, message);
        cudaGetLastError();
    }
    std::printf("%s", ceilings_text(res.ceil).c_str());
    std::fflush(stdout);

    for (const workload* w : selected) {
        std::printf("\n== %s: %s\n", w->name.c_str(), w->description.c_str());
        std::fflush(stdout);
        std::unique_ptr<context> ctx;
        if (!guarded([&] { ctx = std::make_unique<context>(opts, res.ceil, w->name); w->run(*ctx); }, message)) {
            std::printf("%s FAILED: %s\n", w->name.c_str(), message.c_str());
            res.failures.push_back({w->name, message});
        }
        if (ctx) {
            std::vector<row> rows = ctx->rows();
            pair_tc_cc(rows, res.ceil);
            res.rows.insert(res.rows.end(), rows.begin(), rows.end());
            for (const auto& [key, value] : ctx->summaries()) res.summaries.push_back({w->name, key, value});
            ctx.reset();
        }
        cudaGetLastError();  // clear a non-sticky error before the next workload
        save(opts, res);
        std::fflush(stdout);
    }

    std::printf("\n%s", text_table(res.rows).c_str());
    for (const auto& s : res.summaries) std::printf("%s: %s = %s\n", s.workload.c_str(), s.key.c_str(), s.value.c_str());
    for (const auto& f : res.failures) std::printf("FAILED %s: %s\n", f.workload.c_str(), f.message.c_str());
    std::printf("\nresults: %s/{results.csv, results.json, summary.md}\n", opts.out_dir.c_str());
    energy::close();
    return res.failures.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc > 0 && argv[0]) program = std::filesystem::path(argv[0]).filename().string();
    options opts;
    opts.out_dir = default_out_dir();
    bool help = false;
    std::string error;
    if (!parse_args(argc, argv, opts, help, error)) {
        std::fprintf(stderr, "%s: %s\n\n", program.c_str(), error.c_str());
        print_usage(stderr, nullptr);
        return 2;
    }
    registry reg;
    tcore_register_all(reg);
    if (help) {
        print_usage(stdout, &reg);
        return 0;
    }
    const std::vector<const workload*> selected = select_workloads(reg, opts);
    if (selected.empty()) {
        std::fprintf(stderr, "%s: no workload matches --workload (--list shows them)\n", program.c_str());
        return 2;
    }
    if (opts.list) return list_workloads(selected, opts);

    std::string why;
    if (!gpu_present(opts.device, why)) {
        std::fprintf(stderr, "%s: %s; nothing measured (--list and --help work without a GPU)\n", program.c_str(),
                     why.c_str());
        return 2;
    }
    std::string message;
    int status = 1;
    if (!guarded([&] { status = run_workloads(selected, opts); }, message)) {
        std::fprintf(stderr, "%s: %s\n", program.c_str(), message.c_str());
        return 1;
    }
    return status;
}
