// tests/host/test_test_util.cu - the test harness itself (tests/common/
// test_util.hpp), on the CPU: that its checks can fail.
//
// worst_of keeps a NaN (std::fmax drops it), so "worst <= tol" fails on it;
// close() matches NaN only with NaN and infinities exactly; tally::finish
// fails when no check ran, exits 77 when every sub-check was skipped and
// counts skips apart from passes; expect_error fails on a message without
// its key words; TCORE_TEST_QUICK=0 (or empty) means quick mode off and an
// unknown value is refused; gamma_n; the test matrices are found in the
// repository (tests/data/matrices, run from its root) and a missing one
// gives "".
// The tests' rng and the kit's splitmix64 (tcore/infra/splitmix64.cuh)
// give the published first outputs of splitmix64 for seed 1234567 (Vigna's
// reference splitmix64.c), and its unit, value and below stay in range.
// Planted faults (TCORE_TEST_PLANT): nan_result (a NaN among the errors of
// a worst-error check), zero_checks.
#include "common/test_util.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace {

using tcore::test::tally;

void check_worst_of(tally& t)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    t.check(std::isnan(tcore::test::worst_of(0.0, nan)), "worst_of(0, NaN) is NaN");
    t.check(std::isnan(tcore::test::worst_of(nan, 1.0)), "worst_of(NaN, 1) is NaN");
    t.check(tcore::test::worst_of(1.0, 2.0) == 2.0 && tcore::test::worst_of(2.0, 1.0) == 2.0, "worst_of of numbers");
    t.check(!std::isnan(std::fmax(0.0, nan)), "std::fmax drops a NaN (the reason for worst_of)");
    // A worst-error check as the tests write it: one NaN error among finite ones.
    double worst = 0;
    const double errors[] = {1e-17, 3e-16, tcore::test::planted("nan_result") ? nan : 2e-16, 1e-16};
    for (double e : errors) worst = tcore::test::worst_of(worst, e);
    t.check(worst <= 1e-15, "worst error %g within 1e-15", worst);
    double with_nan = 0;
    for (double e : {1e-17, nan, 1e-16}) with_nan = tcore::test::worst_of(with_nan, e);
    t.check(!(with_nan <= 1e-15), "a NaN error fails 'worst <= tol'");
}

void check_close(tally& t)
{
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    using tcore::test::close;
    t.check(!close(nan, 1.0, 1e300) && !close(1.0, nan, 1e300) && close(nan, nan, 0), "close: NaN only matches NaN");
    t.check(close(inf, inf, 0) && !close(-inf, inf, 1e300) && !close(1e308, inf, 1e300), "close: infinities exactly");
    t.check(close(1.0, 1.0 + 1e-16, 2e-16) && !close(1.0, 1.0 + 1e-15, 2e-16), "close: within the tolerance");
}

void check_tally(tally& t)
{
    std::printf("-- inner tallies (their lines are expected):\n");
    {
        tally none;
        t.check(none.finish() == 1, "a tally with no check fails");
    }
    {
        tally skipped;
        skipped.skip("case A: why");
        skipped.skip("case B: why");
        t.check(skipped.finish() == 77 && skipped.skipped() == 2 && skipped.passed == 0,
                "a tally whose every sub-check was skipped exits 77 and counts the skips apart");
    }
    {
        tally mixed;
        mixed.check(true, "a");
        mixed.skip("case C: why");
        t.check(mixed.finish() == 0 && mixed.passed == 1 && mixed.skipped() == 1, "passes and a skip: 0, counted apart");
    }
    {
        tally failing;
        failing.check(true, "a");
        failing.check(false, "b (expected)");
        failing.skip("case D: why");
        t.check(failing.finish() == 1, "a failed check fails");
    }
    {
        tally errors;
        errors.expect_error("a refused call", [] { throw tcore::error("where: n is negative (-1)"); }, "n is negative");
        t.check(errors.failed == 0 && errors.passed == 1, "expect_error: message with its key words");
        errors.expect_error("a refused call", [] { throw tcore::error("where: something else"); }, "n is negative");
        t.check(errors.failed == 1, "expect_error: a message without the key words fails");
        errors.expect_error("a refused call", [] { throw tcore::error("where: got 5, must be 1..4"); }, "must be 1..4",
                            "got 7");
        t.check(errors.failed == 2, "expect_error: both key words required");
        errors.expect_error("an accepted call", [] {});
        t.check(errors.failed == 3, "expect_error: no exception fails");
    }
    std::printf("-- end of inner tallies\n");
}

void check_quick(tally& t)
{
    using tcore::test::parse_quick_level;
    t.check(parse_quick_level(nullptr) == 0 && parse_quick_level("") == 0 && parse_quick_level("0") == 0,
            "TCORE_TEST_QUICK unset, empty or 0: quick mode off");
    t.check(parse_quick_level("1") == 1 && parse_quick_level("2") == 2, "TCORE_TEST_QUICK=1, 2: levels 1, 2");
    t.check(parse_quick_level("yes") == -1 && parse_quick_level("00") == -1 && parse_quick_level("3") == -1,
            "other values refused");
}

void check_gamma_and_matrices(tally& t)
{
    const double u = 0x1p-53;
    t.check(tcore::test::gamma(0, u) == 0 && std::fabs(tcore::test::gamma(1000, u) / (1000 * u) - 1) < 1e-12,
            "gamma_n = n u / (1 - n u)");
    const std::string w = tcore::test::shipped_matrix("west0067");
    t.check(w == "tests/data/matrices/west0067.mtx", "west0067 from the repository's tests/data/matrices (got '%s')",
            w.c_str());
    t.check(tcore::test::shipped_matrix("no_such_matrix").empty(), "a missing matrix gives an empty path");
}

void check_splitmix64(tally& t)
{
    const std::uint64_t published[5] = {6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
                                        4593380528125082431ull, 16408922859458223821ull};
    tcore::splitmix64 kit(1234567);
    tcore::test::rng tests(1234567);
    for (int i = 0; i < 5; ++i) {
        const std::uint64_t a = kit.next(), b = tests.next();
        t.check(a == published[i] && b == published[i], "splitmix64 output %d of seed 1234567: %llu and %llu", i,
                static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
    }
    static_assert(tcore::splitmix64_mix(1234567 + tcore::splitmix64_gamma) == 6457827717110365317ull,
                  "splitmix64_mix is usable at compile time");
    tcore::splitmix64 r(42);
    bool in_range = true;
    for (int i = 0; i < 100000; ++i) {
        const double u = r.unit(), v = r.value();
        const std::uint64_t k = r.below(7);
        in_range = in_range && u >= 0.0 && u < 1.0 && v >= -1.0 && v < 1.0 && v != 0.0 && k < 7;
    }
    t.check(in_range, "unit in [0, 1), value in [-1, 1) and not 0, below(7) < 7");
}

}  // namespace

int main()
{
    tally t;
    check_worst_of(t);
    check_close(t);
    check_tally(t);
    check_quick(t);
    check_gamma_and_matrices(t);
    check_splitmix64(t);
    return t.finish();
}
