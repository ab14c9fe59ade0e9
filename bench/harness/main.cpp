// bench/harness/main.cpp - main() of tcore-bench and of every
// tcore-bench-<workload> binary: options (harness/cli.hpp), the GPU check,
// ceilings, running the registered workloads (a failing one is reported and
// the rest go on) with a progress line per case, writing the results as
// cases complete, and stopping cleanly on SIGINT / SIGTERM
// (harness/stop.hpp). The registered set comes from tcore_register_all(),
// which CMake generates per binary.
#include "harness/ceilings.hpp"
#include "harness/cli.hpp"
#include "harness/energy.hpp"
#include "harness/harness.hpp"
#include "harness/headline.hpp"
#include "harness/report.hpp"
#include "harness/stop.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

void tcore_register_all(tcore::bench::registry&);
const char* tcore_build_commit();  // generated at build time (cmake/commit_id.cmake)

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

/// TCORE_COMMIT if set, else the commit the harness was built from (with
/// "+dirty" where tracked files had changes), else `git rev-parse --short
/// HEAD` in the source tree at run time, else "unknown".
std::string commit_id()
{
    if (const char* env = std::getenv("TCORE_COMMIT"); env && *env) return env;
    if (*tcore_build_commit()) return tcore_build_commit();
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

/// The workloads --workload selects; with --matrix or --input and no
/// --workload, those that take the user's cases.
std::vector<const workload*> select_workloads(const registry& reg, const options& opts)
{
    const bool user_cases = !opts.matrices.empty() || !opts.inputs.empty();
    std::vector<const workload*> out;
    for (const workload& w : reg.workloads) {
        if (!name_matches(opts.workloads, w.name)) continue;
        if (user_cases && opts.workloads.empty() && !w.takes_user_cases(opts)) continue;
        out.push_back(&w);
    }
    return out;
}

/// Does this workload run every case it announces (its cases are the user's)?
bool every_case(const workload& w, const options& opts) { return w.takes_user_cases(opts); }

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
    } catch (const run_interrupted&) {
        throw;
    } catch (...) {
        message = "unknown exception";
    }
    return false;
}

/// The device's properties where a GPU is present, else nominal ones (for listing).
ceilings listing_ceilings(int device)
{
    ceilings c = nominal_device();
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > device) {
        std::string ignored;
        guarded([&] { query_device(c, device); }, ignored);
    }
    cudaGetLastError();
    return c;
}

/// The cases each workload announces in --list mode under `opts`; with
/// `every`, every case of the options' sizes (no --case filter, no headline
/// restriction). A workload whose listing throws gets `error` set.
std::vector<workload_cases> list_cases(const std::vector<const workload*>& selected, const options& opts,
                                       const ceilings& c, bool every, std::vector<std::string>* errors = nullptr)
{
    options o = opts;
    o.list = true;
    if (every) {
        o.cases.clear();
        o.full = !o.quick;
    }
    std::vector<workload_cases> out;
    for (const workload* w : selected) {
        context ctx(o, c, w->name, every_case(*w, opts));
        std::string message;
        if (!guarded([&] { w->run(ctx); }, message) && errors) errors->push_back(w->name + ": " + message);
        out.push_back({w->name, ctx.announced(), w->takes_matrices});
    }
    return out;
}

/// In a headline run: a workload whose headline patterns match none of its
/// cases (renamed cases?) would drop out of the default run unseen; say so.
void note_unmatched_headlines(const std::vector<workload_cases>& cases, const options& opts)
{
    if (mode_of(opts) != run_mode::headline || !opts.matrices.empty() || !opts.inputs.empty()) return;
    for (const workload_cases& w : cases) {
        const workload_catalog* entry = catalog_of(w.workload);
        if (w.cases.empty() && entry && !entry->headline_cases.empty())
            std::fprintf(stderr,
                         "note: no case of %s matches its headline patterns in bench/harness/headline.cpp "
                         "(renamed cases?); --full runs them\n",
                         w.workload.c_str());
    }
}

int print_listing(const std::vector<const workload*>& selected, const options& opts, const ceilings& c)
{
    std::vector<std::string> errors;
    const std::vector<workload_cases> cases = list_cases(selected, opts, c, false, &errors);
    note_unmatched_headlines(cases, opts);
    const bool mark = mode_of(opts) != run_mode::headline;
    std::size_t total = 0;
    bool marked = false;
    for (std::size_t i = 0; i < selected.size(); ++i) {
        const workload& w = *selected[i];
        std::printf("%s: %s\n", w.name.c_str(), w.description.c_str());
        const std::vector<std::string> variants = known_variants(w.name);
        if (!variants.empty()) {
            std::string v;
            for (const std::string& name : variants) v += (v.empty() ? "" : ", ") + name;
            std::printf("  variants: %s\n", v.c_str());
        }
        for (const std::string& e : errors)
            if (e.rfind(w.name + ": ", 0) == 0) std::printf("  (listing failed: %s)\n", e.c_str() + w.name.size() + 2);
        if (cases[i].cases.empty() && mode_of(opts) == run_mode::headline && !every_case(w, opts))
            std::printf("  (no headline cases: --full runs every case)\n");
        for (const std::string& name : cases[i].cases) {
            const bool headline = mark && !every_case(w, opts) && !opts.quick && is_headline(w.name, name);
            marked = marked || headline;
            std::printf("  %s%s\n", name.c_str(), headline ? "  *" : "");
        }
        total += cases[i].cases.size();
    }
    std::printf("\n%zu cases%s\n", total, marked ? "; * = a headline case, run by default" : "");
    return errors.empty() ? 0 : 1;
}

/// Current results plus the rows and notes of the workload under way (pairs tc/cc within it).
results snapshot(const results& res, const context* ctx, const std::string& workload_name)
{
    results snap = res;
    if (ctx) {
        std::vector<row> rows = ctx->rows();
        pair_tc_cc(rows, res.ceil);
        snap.rows.insert(snap.rows.end(), rows.begin(), rows.end());
        for (const auto& [key, value] : ctx->summaries()) snap.summaries.push_back({workload_name, key, value});
    }
    return snap;
}

int run_workloads(const std::vector<const workload*>& selected, const options& opts, int cases_total)
{
    TCORE_CHECK(cudaSetDevice(opts.device));
    results res;
    res.run = collect_run_info(opts.device);
    res.partial = true;
    res.partial_reason = "run in progress";
    res.cases_total = cases_total;
    results_writer writer(opts.out_dir);
    std::string message;
    if (!guarded([&] { writer.begin(res); }, message)) {
        std::fprintf(stderr, "%s: results folder %s: %s\n", program.c_str(), opts.out_dir.c_str(), message.c_str());
        return 2;
    }
    install_stop_handlers();
    energy::open(opts.device);
    std::printf("%s: %s, driver %s, CUDA runtime %s, commit %s, %s\n", program.c_str(), res.run.device_name.c_str(),
                res.run.driver_version.c_str(), res.run.runtime_version.c_str(), res.run.commit.c_str(),
                res.run.date_utc.c_str());
    const char* mode = mode_of(opts) == run_mode::quick  ? "--quick (small sizes)"
                       : mode_of(opts) == run_mode::full ? (opts.full ? "--full (every case)" : "the cases --case names")
                                                         : "the headline cases (--full: every case)";
    std::printf("running %s: %d cases; warm-up %g s, repetitions >= %g s and >= %d, power loop %g s; results in %s\n",
                mode, cases_total, opts.warmup_s, opts.min_time_s, opts.min_reps, opts.energy_s, opts.out_dir.c_str());

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

    const bool terminal = isatty(STDOUT_FILENO) == 1;
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    int started = 0;
    bool case_open = false;
    int interrupted = stop_signal();
    std::string interrupted_in;
    const context* current = nullptr;
    std::string current_workload;
    auto save = [&](const results& r) {
        std::string why;
        if (!guarded([&] { writer.write(r); }, why)) std::printf("warning: results not written: %s\n", why.c_str());
    };
    auto finish_case = [&] {
        if (!case_open) return;
        case_open = false;
        ++res.cases_done;
        save(snapshot(res, current, current_workload));
    };

    for (const workload* w : selected) {
        if (interrupted) break;
        std::printf("\n== %s: %s\n", w->name.c_str(), w->description.c_str());
        std::fflush(stdout);
        std::unique_ptr<context> ctx;
        current_workload = w->name;
        std::string case_name;
        try {
            const bool ok = guarded(
                [&] {
                    ctx = std::make_unique<context>(opts, res.ceil, w->name, every_case(*w, opts));
                    current = ctx.get();
                    ctx->set_hooks(
                        [&](const std::string& name) {
                            finish_case();
                            case_open = true;
                            case_name = name;
                            ++started;
                            const int total = std::max(cases_total, started);
                            std::printf("%s\n", case_progress_line(started, total, w->name, name, elapsed(),
                                                                   estimate_left_s(elapsed(), res.cases_done, total),
                                                                   terminal)
                                                    .c_str());
                            std::fflush(stdout);
                        },
                        [&](const row& r) {
                            std::string why;
                            if (!guarded([&] { writer.append_row(r, res.run); }, why))
                                std::printf("warning: row not written: %s\n", why.c_str());
                        });
                    w->run(*ctx);
                },
                message);
            if (!ok) {
                std::printf("%s FAILED: %s\n", w->name.c_str(), message.c_str());
                res.failures.push_back({w->name, message});
            }
        } catch (const run_interrupted& e) {
            interrupted = e.signal;
            interrupted_in = w->name + (case_open ? " " + case_name : "");
            case_open = false;  // the case under way is not done
        }
        finish_case();
        if (ctx) {
            results with = snapshot(res, ctx.get(), w->name);
            res.rows = std::move(with.rows);
            res.summaries = std::move(with.summaries);
            current = nullptr;
            ctx.reset();
        }
        cudaGetLastError();  // clear a non-sticky error before the next workload
        std::fflush(stdout);
        if (!interrupted) interrupted = stop_signal();
    }

    if (interrupted) {
        const std::string by = interrupted == SIGINT    ? "SIGINT"
                               : interrupted == SIGTERM ? "SIGTERM"
                                                        : "signal " + std::to_string(interrupted);
        res.partial_reason = "stopped by " + by + (interrupted_in.empty() ? "" : " during " + interrupted_in);
    } else {
        res.partial = false;
        res.partial_reason.clear();
    }
    save(res);

    std::printf("\n%s", text_table(res.rows).c_str());
    for (const auto& s : res.summaries) std::printf("%s: %s = %s\n", s.workload.c_str(), s.key.c_str(), s.value.c_str());
    for (const auto& f : res.failures) std::printf("FAILED %s: %s\n", f.workload.c_str(), f.message.c_str());
    if (res.partial)
        std::printf("\nPARTIAL: %s after %d of %d cases (%s)\n", res.partial_reason.c_str(), res.cases_done,
                    res.cases_total, duration_text(elapsed()).c_str());
    else
        std::printf("\n%d cases in %s\n", res.cases_done, duration_text(elapsed()).c_str());
    std::printf("results: %s/{results.csv, results.json, summary.md}%s\n", opts.out_dir.c_str(),
                res.partial ? " (marked partial)" : "");
    energy::close();
    if (interrupted) return stopped_exit_status(interrupted);
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
    const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    if (!parse_args(args, opts, help, error)) {
        std::fprintf(stderr, "%s: %s (--help lists the options)\n", program.c_str(), error.c_str());
        return 2;
    }
    registry reg;
    tcore_register_all(reg);
    std::vector<std::string> names;
    for (const workload& w : reg.workloads) names.push_back(w.name);
    if (help) {
        std::printf("%s", usage_text(program, default_out_dir(), names).c_str());
        std::printf("%s", input_keys_text(reg).c_str());
        return 0;
    }
    if (const std::string bad_input = check_inputs(opts, reg); !bad_input.empty()) {
        std::fprintf(stderr, "%s: %s\n", program.c_str(), bad_input.c_str());
        return 2;
    }
    const std::vector<const workload*> selected = select_workloads(reg, opts);
    const ceilings listing = listing_ceilings(opts.device);
    const std::string problem = check_selection(opts, names, list_cases(selected, opts, listing, true));
    if (!problem.empty() || selected.empty()) {
        std::fprintf(stderr, "%s: %s\n", program.c_str(),
                     problem.empty() ? "no workload selected (--list shows them)" : problem.c_str());
        return 2;
    }
    apply_mode_defaults(opts);
    if (opts.list) return print_listing(selected, opts, listing);

    std::string why;
    if (!gpu_present(opts.device, why)) {
        std::fprintf(stderr, "%s: %s; nothing measured (--list and --help work without a GPU)\n", program.c_str(),
                     why.c_str());
        return 2;
    }
    // Workloads with no selected case are left out (mma_peak has no headline case).
    int cases_total = 0;
    std::vector<const workload*> to_run;
    const std::vector<workload_cases> run_cases = list_cases(selected, opts, listing, false);
    note_unmatched_headlines(run_cases, opts);
    for (std::size_t i = 0; i < selected.size(); ++i) {
        cases_total += static_cast<int>(run_cases[i].cases.size());
        if (!run_cases[i].cases.empty()) to_run.push_back(selected[i]);
    }
    if (cases_total == 0) {
        std::fprintf(stderr, "%s: the options select no case%s (--list shows what they select)\n", program.c_str(),
                     mode_of(opts) == run_mode::headline ? "; without --full only headline cases run, and the selected "
                                                           "workloads have none: add --full"
                                                         : "");
        return 2;
    }
    std::string message;
    int status = 1;
    if (!guarded([&] { status = run_workloads(to_run, opts, cases_total); }, message)) {
        std::fprintf(stderr, "%s: %s\n", program.c_str(), message.c_str());
        return 1;
    }
    return status;
}
