// bench/harness/report.hpp - what the harness writes: the progress lines
// (per case, with the time left; per measured row), the terminal table,
// results.csv, results.json and summary.md (complete or marked partial),
// the writer that keeps them valid while a run goes on, plus the small
// CSV/JSON helpers they (and the ceilings cache) are made of. Pure
// functions except write_results and results_writer.
#pragma once

#include "harness/harness.hpp"

#include <map>
#include <string>
#include <vector>

namespace tcore::bench {

/// Facts about the run that every output carries.
struct run_info {
    std::string device_name = "unknown", driver_version = "unknown", runtime_version = "unknown";
    std::string date_utc = "unknown", commit = "unknown";
    int device = 0;
};

/// A workload that threw: its name and the message.
struct failure {
    std::string workload, message;
};

/// A workload's key=value fact (context::summary).
struct summary_entry {
    std::string workload, key, value;
};

/// Everything one run produced.
struct results {
    run_info run;
    ceilings ceil;
    std::vector<row> rows;
    std::vector<summary_entry> summaries;
    std::vector<failure> failures;
    /// A run not (yet) complete: still going, or stopped by a signal. The
    /// files say so (CSV column partial = 1, JSON "partial": true, a line in
    /// summary.md) with the reason.
    bool partial = false;
    std::string partial_reason;
    int cases_done = 0, cases_total = 0;  ///< cases finished / selected (0 total: not counted)
};

// -- helpers -----------------------------------------------------------------

/// A CSV field: quoted (quotes doubled) if it holds a comma, quote, CR or LF.
std::string csv_escape(const std::string& field);
/// A JSON string literal, quotes included; control characters as \u00XX.
std::string json_escape(const std::string& text);
/// A JSON number (%.9g); null for NaN and infinities, which JSON lacks.
std::string json_number(double v);
/// A CSV number (%.9g); "inf", "-inf", "nan" where not finite.
std::string csv_number(double v);
/// Parses a flat JSON object {"key": "string" | number | true | false | null, ...}
/// into key -> text (strings unescaped, other values as written). False on
/// anything else (nesting, syntax errors).
bool parse_flat_json(const std::string& text, std::map<std::string, std::string>& out);
/// The ceilings as a flat JSON object (also the cache file's body).
std::string ceilings_json(const ceilings& c, const std::string& indent = "");

// -- outputs -----------------------------------------------------------------

/// One line on a measured row (printed as the run goes).
std::string progress_line(const row& r);
/// "42s", "3m05s", "1h02m"; "-" for a negative time.
std::string duration_text(double seconds);
/// Time left after `done` of `total` cases took `elapsed_s`: the mean time
/// of a finished case times the cases left; -1 before the first case ends.
double estimate_left_s(double elapsed_s, int done, int total);
/// The line printed as case `index` (1-based) of `total` starts. On a
/// terminal: "[12/118  2m05s elapsed, about 6m40s left] spmv: fem3d/1e7";
/// otherwise a plain "case 12/118: spmv fem3d/1e7 (125 s elapsed)".
std::string case_progress_line(int index, int total, const std::string& workload, const std::string& case_name,
                               double elapsed_s, double left_s, bool terminal);
/// The ceilings in one line each.
std::string ceilings_text(const ceilings& c);
/// The rows as an aligned text table.
std::string text_table(const std::vector<row>& rows);
std::string csv_header();
/// A CSV row; the last column, partial, is 1 for a row of a run that was not
/// complete when the row was written.
std::string csv_line(const row& r, const run_info& run, bool partial = false);
std::string results_json(const results& res);
std::string summary_markdown(const results& res);

/// Writes results.csv, results.json and summary.md into `dir` (created if
/// needed), each to a temporary file renamed over the old one, so that a
/// reader (or a run killed meanwhile) never sees half a file; throws
/// tcore::error if a file cannot be written.
void write_results(const std::string& dir, const results& res);

/// Keeps the three files valid while a run goes on: begin() writes them
/// empty and partial, append_row() adds one CSV line with a single write(2)
/// (so that a kill leaves whole lines), write() replaces all three
/// (write_results).
class results_writer {
public:
    explicit results_writer(std::string dir) : dir_(std::move(dir)) {}
    void begin(const results& res);
    void append_row(const row& r, const run_info& run);
    void write(const results& res);
    const std::string& dir() const { return dir_; }

private:
    std::string dir_;
};

}  // namespace tcore::bench
