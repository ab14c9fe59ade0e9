// bench/harness/cli.hpp - the command line of tcore-bench and of every
// tcore-bench-<workload>: parsing, the run modes' timing defaults, the
// --matrix paths, the checks that every filter entry matches something, and
// the help text. A bad value, an unknown option, a missing or non-.mtx file,
// or a filter entry that matches nothing is one line on stderr and exit
// status 2 (main.cpp); these functions only say what is wrong.
#pragma once

#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include <string>
#include <vector>

namespace tcore::bench {

/// The three ways to run: the headline cases (default), every case (--full),
/// small sizes (--quick).
enum class run_mode { headline, full, quick };
run_mode mode_of(const options& opts);

/// Parses the arguments (argv without the program name) into `opts`; false
/// with `error` (one line, no program name) on a bad option or value.
/// --matrix paths are expanded (folders to their .mtx files) and checked here.
bool parse_args(const std::vector<std::string>& args, options& opts, bool& help, std::string& error);

/// Fills the timing values the command line did not set with the mode's:
/// --full or --case: the protocol's 1 s warm-up, 0.2 s and 20 repetitions,
/// 0.3 s power loop; the default headline run: 0.25 s, 0.1 s, 20, 0.1 s (so
/// that it ends within 10 minutes on an H100); --quick: 0.05 s, 0.02 s, 10,
/// no power loop (a check that everything runs, not figures to record).
void apply_mode_defaults(options& opts);

/// Expands a --matrix value: a .mtx file, or a folder whose .mtx files (not
/// recursive, sorted) are taken. Appends to `files`; false with `error` if
/// the path does not exist, is not a .mtx file, does not start with the
/// Matrix Market banner, or is a folder without .mtx files.
bool expand_matrix_path(const std::string& path, std::vector<std::string>& files, std::string& error);
/// (The case name of a --matrix file is matrix_case_name, harness/inputs.hpp.)

/// A selected workload and every case it has under the options' sizes
/// (listed with the headline restriction off).
struct workload_cases {
    std::string workload;
    std::vector<std::string> cases;
    bool takes_matrices = false;
};

/// Checks that each --workload entry matches one of `all_workloads`, each
/// --case entry a case and each --variant entry a catalogued variant of the
/// selected workloads, that --matrix goes to a workload that reads matrices,
/// and that no two --matrix files share a stem. "" if all is well, else the
/// problem in one line.
std::string check_selection(const options& opts, const std::vector<std::string>& all_workloads,
                            const std::vector<workload_cases>& selected);

/// Parses one --input value, WORKLOAD:KEY=VALUE[,KEY=VALUE...], into `in`
/// (no key twice, no empty key or value); false with `error` set if malformed.
bool parse_input(const std::string& value, user_input& in, std::string& error);

/// Checks every --input against the registry: a workload that takes --input,
/// keys it reads, and its own check of the values. "" or the problem.
std::string check_inputs(const options& opts, const registry& reg);

/// The --input keys of every workload that takes them, for --help.
std::string input_keys_text(const registry& reg);

/// The --help text.
std::string usage_text(const std::string& program, const std::string& default_out_dir,
                       const std::vector<std::string>& workloads);

}  // namespace tcore::bench
