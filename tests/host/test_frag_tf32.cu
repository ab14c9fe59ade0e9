// tests/host/test_frag_tf32.cu - tcore::round_to_tf32 in its host form,
// which must match cvt.rna.tf32.f32: round to 10 mantissa bits, nearest,
// ties away from zero; infinities stay, NaN stays NaN, finite values past
// the largest TF32 value overflow to infinity. Exact bit-level cases, then
// random floats: low 13 bits cleared and within half a TF32 ulp.
#include "common/test_util.hpp"

#include <tcore/frag.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>

using tcore::test::rng;
using tcore::test::tally;

namespace {

float from_bits(std::uint32_t b)
{
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}
std::uint32_t to_bits(float f)
{
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

void exact(tally& t, std::uint32_t in, std::uint32_t want, const char* what)
{
    const std::uint32_t got = to_bits(tcore::round_to_tf32(from_bits(in)));
    t.check(got == want, "round_to_tf32(0x%08x) = 0x%08x, expected 0x%08x (%s)", in, got, want, what);
}

void is_nan(tally& t, std::uint32_t in)
{
    const float got = tcore::round_to_tf32(from_bits(in));
    t.check(std::isnan(got), "round_to_tf32(0x%08x) = 0x%08x, expected a NaN", in, to_bits(got));
}

}  // namespace

int main()
{
    tally t;
    // Bit 13 is the TF32 last place, bits 0-12 are dropped; 0x1000 is the half-way point.
    exact(t, 0x3f800000u, 0x3f800000u, "1.0 is TF32");
    exact(t, 0x3f801000u, 0x3f802000u, "tie to the odd neighbour: away from zero, not to even");
    exact(t, 0xbf801000u, 0xbf802000u, "negative tie: away from zero");
    exact(t, 0x3f803000u, 0x3f804000u, "tie above an odd last place");
    exact(t, 0x3f800fffu, 0x3f800000u, "just below the tie rounds down");
    exact(t, 0x3f801001u, 0x3f802000u, "just above the tie rounds up");
    exact(t, 0x3fffffffu, 0x40000000u, "carry into the exponent");
    exact(t, 0x00000000u, 0x00000000u, "+0");
    exact(t, 0x80000000u, 0x80000000u, "-0 keeps its sign");
    exact(t, 0x00001000u, 0x00002000u, "subnormal tie: away from zero");
    exact(t, 0x80000fffu, 0x80000000u, "tiny negative subnormal rounds to -0");
    exact(t, 0x7f800000u, 0x7f800000u, "+Inf");
    exact(t, 0xff800000u, 0xff800000u, "-Inf");
    exact(t, 0x7f7fffffu, 0x7f800000u, "FLT_MAX overflows to +Inf");
    exact(t, 0xff7fffffu, 0xff800000u, "-FLT_MAX overflows to -Inf");
    exact(t, 0x7f7ff000u, 0x7f800000u, "tie above the largest TF32 value overflows");
    exact(t, 0x7f7fefffu, 0x7f7fe000u, "largest TF32 value");
    is_nan(t, 0x7fc00000u);
    is_nan(t, 0x7f800001u);  // lowest payload bit only: must not become Inf
    is_nan(t, 0xff800001u);
    is_nan(t, 0x7fffffffu);  // all payload bits: must not carry into the sign

    rng r(tcore::test::seed());
    for (int i = 0; i < 100000; ++i) {
        const std::uint32_t in = r.bits32();
        const float v = from_bits(in);
        if (!std::isfinite(v) || std::fabs(v) >= 0x1.ffcp127f) continue;  // at and above: Inf
        const float got = tcore::round_to_tf32(v);
        const bool cleared = (to_bits(got) & 0x1fffu) == 0;
        // Half a TF32 ulp: 2^-11 relative for normals; 2^-137 absolute (half of 2^-136) below.
        const double bound = std::fmax(std::ldexp(std::fabs(static_cast<double>(v)), -11), 0x1p-137);
        const double err = std::fabs(static_cast<double>(got) - static_cast<double>(v));
        if (!t.check(cleared && err <= bound && std::signbit(got) == std::signbit(v),
                     "round_to_tf32(0x%08x) = 0x%08x: error %.3g, bound %.3g", in, to_bits(got), err, bound))
            break;
    }
    return t.finish();
}
