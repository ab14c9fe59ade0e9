// tcore/io/matrix_market_numbers.hpp - the token and number scanners of the
// Matrix Market reader (tcore/io/matrix_market.hpp); internals, host only.
//
// Strict forms: an index or count is an optional '+' and decimal digits that
// fit 64 bits; a real value is what std::from_chars reads in general format
// (decimal or exponent form, nan, inf) with an optional leading '+' and
// Fortran 'D' exponents. A real value that underflows reads as the nearest
// double (0 or a subnormal, sign kept), as strtod gives; one that overflows
// is reported as out of range. An integer value beyond 64 bits reads as the
// nearest double. No locale is consulted.
#pragma once

#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

namespace tcore::io::detail {

inline std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline bool is_digit(char c) { return static_cast<unsigned>(c - '0') < 10u; }


/// Splits a line into whitespace-separated tokens (at most `max` + 1, so
/// that "too many fields" is still seen).
inline int tokenize(std::string_view line, std::string_view* tok, int max)
{
    int n = 0;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        if (i == line.size()) break;
        const std::size_t start = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (n <= max) tok[n] = line.substr(start, i - start);
        ++n;
        if (n > max) break;
    }
    return n;
}

/// Shortens a token for an error message.
inline std::string quote(std::string_view s)
{
    std::string q(s.substr(0, 40));
    for (char& c : q)
        if (!std::isprint(static_cast<unsigned char>(c))) c = '?';
    return "'" + q + (s.size() > 40 ? "...'" : "'");
}

/// A non-negative integer token (optional leading '+'); false if malformed or too large.
inline bool parse_count(std::string_view s, long long& v)
{
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    if (s.empty() || !is_digit(s[0])) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

/// A signed integer token; false if malformed or outside 64 bits.
inline bool parse_integer(std::string_view s, long long& v)
{
    if (!s.empty() && s[0] == '+') {
        s.remove_prefix(1);
        if (!s.empty() && s[0] == '-') return false;
    }
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

/// The decimal exponent of the leading nonzero digit of a numeric token that
/// std::from_chars read whole ("123.4" -> 2, "-0.00123e-5" -> -8); it tells
/// an underflow (negative) from an overflow. The exponent saturates.
inline long long leading_exponent(std::string_view s)
{
    std::size_t i = 0;
    if (i < s.size() && s[i] == '-') ++i;
    long long integer_digits = 0, fraction_zeros = 0;
    bool nonzero = false;
    for (; i < s.size() && is_digit(s[i]); ++i) {
        if (nonzero) ++integer_digits;
        else if (s[i] != '0') nonzero = true, integer_digits = 1;
    }
    if (i < s.size() && s[i] == '.')
        for (++i; i < s.size() && is_digit(s[i]); ++i)
            if (!nonzero) {
                if (s[i] == '0') ++fraction_zeros;
                else nonzero = true;
            }
    long long e = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
        for (; i < s.size() && is_digit(s[i]); ++i) e = e < 1000000000LL ? e * 10 + (s[i] - '0') : e;
    }
    const long long lead = integer_digits > 0 ? integer_digits - 1 : -(fraction_zeros + 1);
    return lead + (negative ? -e : e);
}

/// std::from_chars on a whole token, underflow read as a signed zero.
/// Returns false if malformed; `range` is set on overflow.
inline bool real_from_chars(std::string_view s, double& v, bool& range)
{
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
    if (r.ptr != s.data() + s.size()) return false;
    if (r.ec == std::errc()) return true;
    if (r.ec != std::errc::result_out_of_range) return false;
    if (leading_exponent(s) < 0) {  // below the smallest subnormal's half: the nearest double is zero
        v = s[0] == '-' ? -0.0 : 0.0;
        return true;
    }
    range = true;
    return false;
}

/// A floating-point token (decimal or exponent form, nan, inf; Fortran 'D'
/// exponents too). `range` is set when it is numeric but overflows a double.
inline bool parse_real(std::string_view s, double& v, bool& range)
{
    range = false;
    if (!s.empty() && s[0] == '+') {
        s.remove_prefix(1);
        if (!s.empty() && (s[0] == '-' || s[0] == '+')) return false;
    }
    if (s.empty()) return false;
    if (real_from_chars(s, v, range) || range) return !range;
    if (s.size() < 64 && s.find_first_of("dD") != std::string_view::npos) {
        char buf[64];
        for (std::size_t i = 0; i < s.size(); ++i) buf[i] = (s[i] == 'd' || s[i] == 'D') ? 'e' : s[i];
        const std::string_view t(buf, s.size());
        if (t.find_first_of("nN") != std::string_view::npos) return false;  // "nd", "nad": not numbers
        return real_from_chars(t, v, range);
    }
    return false;
}

/// A value of an `integer` field: a signed integer token, read exactly if it
/// fits 64 bits, else as the nearest double. `range` is set beyond a double.
inline bool parse_integer_value(std::string_view s, double& v, bool& range)
{
    range = false;
    long long iv = 0;
    if (parse_integer(s, iv)) {
        v = static_cast<double>(iv);
        return true;
    }
    std::string_view digits = s;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
    if (digits.empty()) return false;
    for (const char c : digits)
        if (!is_digit(c)) return false;
    if (s[0] == '+') s.remove_prefix(1);
    return real_from_chars(s, v, range);
}

/// Fast path: 1 to 10 decimal digits at `p` (no sign); false otherwise.
/// Where 8 bytes can be read, up to 7 digits are found and converted eight
/// bytes at a time (a digit mask and three multiplies, as fast_float's
/// parse_eight_digits_unrolled); longer runs take the byte loop.
inline bool scan_index(const char*& p, const char* end, long long& v)
{
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - p >= 8) {
        std::uint64_t word;
        std::memcpy(&word, p, 8);  // the first character in the low byte
        const std::uint64_t d = word - 0x3030303030303030ull;  // a borrow only reaches bytes after a non-digit
        const std::uint64_t non_digit = ((d + 0x7676767676767676ull) | d) & 0x8080808080808080ull;
        if (non_digit != 0) {
            const int digits = __builtin_ctzll(non_digit) >> 3;
            if (digits == 0) return false;
            std::uint64_t x = d << (8 * (8 - digits));  // leading zero digits fill the low bytes
            x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
            x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
            x = (x * 10000 + (x >> 32)) & 0xFFFFFFFFull;
            v = static_cast<long long>(x);
            p += digits;
            return true;
        }
    }
#endif
    const char* const start = p;
    unsigned long long x = 0;
    while (p != end && is_digit(*p) && p - start < 11) x = x * 10 + static_cast<unsigned>(*p++ - '0');
    if (p == start || p - start > 10) return false;
    v = static_cast<long long>(x);
    return true;
}

/// Fast path: an optional '-' and 1 to 18 decimal digits at `p`, as a double
/// (the value parse_integer_value gives); false otherwise.
inline bool scan_small_integer(const char*& p, const char* end, double& v)
{
    const char* q = p;
    const bool negative = q != end && *q == '-';
    if (negative) ++q;
    const char* const start = q;
    unsigned long long x = 0;  // 19 digits at most here: below 2^64
    while (q != end && is_digit(*q) && q - start < 19) x = x * 10 + static_cast<unsigned>(*q++ - '0');
    if (q == start || q - start > 18) return false;
    const long long s = static_cast<long long>(x);  // below 10^18
    v = static_cast<double>(negative ? -s : s);
    p = q;
    return true;
}

}  // namespace tcore::io::detail
