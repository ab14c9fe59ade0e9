// libs: tcore_bench_harness
// tests/host/test_harness_inputs.cu - the user's cases on the benchmark's
// command line (--input WORKLOAD:KEY=VALUE,...): parsing, the checks against
// the workloads' keys and their own value checks, the number parsers the
// workloads use (parse_whole, parse_extents, parse_decimal), and the --help
// listing of keys. Needs no GPU.
#include "common/test_util.hpp"

#include "harness/cli.hpp"
#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include <string>
#include <vector>

using tcore::test::tally;
namespace tb = tcore::bench;

namespace {

/// A registry with one workload taking --input keys a and b, whose check
/// refuses a=bad, and one that takes none.
tb::registry two_workloads()
{
    tb::registry reg;
    tb::workload w{"alpha", "takes inputs", [](tb::context&) {}};
    w.input_keys = {{"a", "first"}, {"b", "second"}};
    w.check_input = [](const tb::user_input& in) { return in.get("a") == "bad" ? std::string("a is bad") : std::string(); };
    reg.add(w);
    reg.add({"beta", "takes none", [](tb::context&) {}});
    return reg;
}

bool parses(const std::vector<std::string>& args, tb::options& o, std::string& error)
{
    bool help = false;
    o = {};
    error.clear();
    return tb::parse_args(args, o, help, error);
}

void test_parse(tally& t)
{
    tb::options o;
    std::string error;
    t.check(parses({"--input", "alpha:a=1,b=x2"}, o, error) && o.inputs.size() == 1, "a good --input: %s", error.c_str());
    if (o.inputs.size() == 1) {
        const tb::user_input& in = o.inputs[0];
        t.check(in.workload == "alpha" && in.text == "a=1,b=x2" && in.get("a") == "1" && in.get("b") == "x2" &&
                    in.get("c", "none") == "none",
                "--input fields: workload '%s', text '%s'", in.workload.c_str(), in.text.c_str());
    }
    t.check(parses({"--input=alpha:a=1", "--input", "alpha:a=2"}, o, error) && o.inputs.size() == 2,
            "repeated --input gives two cases: %s", error.c_str());
    const struct {
        const char* value;
        const char* words;
    } bad[] = {{"alpha", "WORKLOAD:KEY=VALUE"},  {":a=1", "WORKLOAD:KEY=VALUE"}, {"alpha:", "no KEY=VALUE"},
               {"alpha:a", "KEY=VALUE expected"}, {"alpha:=1", "KEY=VALUE expected"}, {"alpha:a=", "KEY=VALUE expected"},
               {"alpha:a=1,a=2", "given twice"}};
    for (const auto& b : bad) {
        const bool ok = parses({"--input", b.value}, o, error);
        t.check(!ok && error.find(b.words) != std::string::npos, "--input '%s' refused with '%s' (got '%s')", b.value,
                b.words, error.c_str());
    }
}

void test_check(tally& t)
{
    const tb::registry reg = two_workloads();
    auto problem_of = [&](const char* value) {
        tb::options o;
        std::string error;
        if (!parses({"--input", value}, o, error)) return "parse: " + error;
        return tb::check_inputs(o, reg);
    };
    t.check(problem_of("alpha:a=1,b=2").empty(), "known keys accepted: %s", problem_of("alpha:a=1,b=2").c_str());
    const struct {
        const char* value;
        const char* words;
    } bad[] = {{"alpha:c=1", "unknown key 'c'"}, {"beta:a=1", "no such workload takes --input"},
               {"gamma:a=1", "no such workload takes --input"}, {"alpha:a=bad", "a is bad"}};
    for (const auto& b : bad) {
        const std::string p = problem_of(b.value);
        t.check(p.find(b.words) != std::string::npos, "--input %s: expected '%s', got '%s'", b.value, b.words, p.c_str());
    }
    tb::options o;
    std::string error;
    parses({"--input", "alpha:a=1"}, o, error);
    t.check(reg.workloads[0].takes_user_cases(o) && !reg.workloads[1].takes_user_cases(o),
            "takes_user_cases: the named workload only");
    const std::string keys = tb::input_keys_text(reg);
    t.check(keys.find("alpha:") != std::string::npos && keys.find("first") != std::string::npos &&
                keys.find("beta") == std::string::npos,
            "--help lists alpha's keys and not beta: '%s'", keys.c_str());
}

void test_numbers(tally& t)
{
    long long v = -1;
    t.check(tb::parse_whole("4096", 1, 1LL << 40, v) && v == 4096, "parse_whole 4096");
    t.check(tb::parse_whole("2^20", 1, 1LL << 40, v) && v == (1LL << 20), "parse_whole 2^20");
    for (const char* bad : {"", "-1", "0", "1e3", "12x", "2^63", "99999999999999999999"})
        t.check(!tb::parse_whole(bad, 1, 1LL << 40, v), "parse_whole refuses '%s'", bad);
    std::vector<long long> e;
    t.check(tb::parse_extents("512x256", 1 << 20, e) && e == std::vector<long long>{512, 256}, "parse_extents 512x256");
    t.check(tb::parse_extents("7", 1 << 20, e) && e == std::vector<long long>{7}, "parse_extents 7");
    t.check(tb::parse_extents("3x4x5", 1 << 20, e) && e.size() == 3, "parse_extents 3x4x5");
    for (const char* bad : {"", "x", "4x", "x4", "4xx4", "1x2x3x4", "0x4", "4x2000000"})
        t.check(!tb::parse_extents(bad, 1 << 20, e), "parse_extents refuses '%s'", bad);
}

void test_decimal(tally& t)
{
    double d = -1;
    t.check(tb::parse_decimal("2.5", 0, 64, d) && d == 2.5, "parse_decimal 2.5");
    t.check(tb::parse_decimal("0.25", 0, 64, d) && d == 0.25, "parse_decimal 0.25");
    t.check(tb::parse_decimal(".5", 0, 64, d) && d == 0.5, "parse_decimal .5");
    t.check(tb::parse_decimal("3", 0, 64, d) && d == 3, "parse_decimal 3");
    t.check(tb::parse_decimal("2.", 0, 64, d) && d == 2, "parse_decimal 2.");
    for (const char* bad : {"", ".", "-1", "+2", "1e2", "inf", "nan", "0x10", "1.2.3", "2,5", " 2", "65", "64.01"})
        t.check(!tb::parse_decimal(bad, 0, 64, d), "parse_decimal refuses '%s'", bad);
}

}  // namespace

int main()
{
    tally t;
    test_parse(t);
    test_check(t);
    test_numbers(t);
    test_decimal(t);
    return t.finish();
}
