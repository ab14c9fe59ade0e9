// bench/harness/headline.hpp - the default benchmark set and the variant
// catalogue, in one table (headline.cpp): for each workload, the cases behind
// the rows of README.md's benchmark table (the headline cases, which a plain
// `tcore-bench` runs) and the names of the variants it measures (what
// --variant is checked against and --list prints).
//
// A case that no entry of its workload matches runs only with --full, or when
// --case names it. Patterns use the filters' syntax: "=x" is the name x
// exactly, anything else a substring.
#pragma once

#include <string>
#include <vector>

namespace tcore::bench {

/// One workload's entry.
struct workload_catalog {
    std::string workload;
    std::vector<std::string> headline_cases;  ///< patterns; empty: no case runs by default
    std::vector<std::string> variants;        ///< every variant name the workload measures
    std::vector<std::string> user_cases = {}; ///< patterns of cases made from the user's inputs: run by default too
    std::vector<std::string> retired = {};    ///< variant names of earlier recorded runs, measured no more
};

/// The table, in the order of README.md's benchmark table.
const std::vector<workload_catalog>& catalog();
/// The entry of `workload`, or nullptr.
const workload_catalog* catalog_of(const std::string& workload);
/// True if a headline or user-case pattern of `workload` matches `case_name`.
bool is_headline(const std::string& workload, const std::string& case_name);
/// The variants the catalogue lists for `workload` (empty if it has no entry).
std::vector<std::string> known_variants(const std::string& workload);

}  // namespace tcore::bench
