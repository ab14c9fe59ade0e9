// bench/harness/report.hpp - what the harness writes: the progress line per
// measured row, the terminal table, results.csv, results.json and
// summary.md, plus the small CSV/JSON helpers they (and the ceilings
// cache) are made of. Pure functions except write_results.
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
/// The ceilings in one line each.
std::string ceilings_text(const ceilings& c);
/// The rows as an aligned text table.
std::string text_table(const std::vector<row>& rows);
std::string csv_header();
std::string csv_line(const row& r, const run_info& run);
std::string results_json(const results& res);
std::string summary_markdown(const results& res);

/// Writes results.csv, results.json and summary.md into `dir` (created if
/// needed); throws tcore::error if a file cannot be written.
void write_results(const std::string& dir, const results& res);

}  // namespace tcore::bench
