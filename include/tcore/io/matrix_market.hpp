// tcore/io/matrix_market.hpp - a strict Matrix Market reader (and a writer)
// producing tcore::sparse::csr.
//
// Reads the `coordinate` format with `real` (or `double`), `integer` and
// `pattern` fields and `general`, `symmetric` and `skew-symmetric` symmetry,
// expanded to the full matrix (A(j,i) = A(i,j), resp. -A(i,j)). `complex` is
// rejected unless mm_options::complex says to keep the real part (then
// `hermitian` reads as symmetric). Indices are 1-based; the entry count is
// 64-bit; comment lines (%) and blank lines may appear anywhere after the
// banner; keywords are case-insensitive; CRLF line ends are accepted.
// Duplicate entries are summed, in file order. Explicit zeros are kept.
//
// Every problem - bad banner, bad size line, wrong field count, an index out
// of range, a non-numeric or out-of-range number, too many or too few
// entries, a truncated file - throws tcore::error "<name>:<line>: <what>".
// A matrix is returned complete or not at all. Memory is reserved from the
// data actually present, never from the declared count alone, and
// mm_options bounds the dimensions and entries (the fuzzer uses that).
#pragma once

#include "../check.cuh"
#include "../sparse/csr.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace tcore::io {

/// What to do with a `complex` file.
enum class complex_mode {
    reject,     ///< throw tcore::error (the default)
    real_part,  ///< keep the real part; `hermitian` is then read as symmetric
};

struct mm_options {
    complex_mode complex = complex_mode::reject;
    long long max_dimension = INT_MAX;  ///< rows and columns at most this
    long long max_entries = INT_MAX;    ///< stored entries after symmetric expansion at most this
};

/// The banner and size line of a Matrix Market file (keywords lower-cased).
struct mm_header {
    std::string object, format, field, symmetry;
    long long rows = 0, cols = 0, entries = 0;
};

namespace detail {

inline std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

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
    if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
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
    auto r = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return true;
    if (r.ec == std::errc::result_out_of_range && r.ptr == s.data() + s.size()) {
        range = true;
        return false;
    }
    if (s.size() < 64 && s.find_first_of("dD") != std::string_view::npos) {
        char buf[64];
        for (std::size_t i = 0; i < s.size(); ++i) buf[i] = (s[i] == 'd' || s[i] == 'D') ? 'e' : s[i];
        const std::string_view t(buf, s.size());
        if (t.find_first_of("nN") != std::string_view::npos) return false;  // "nd", "nad": not numbers
        r = std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::general);
        if (r.ec == std::errc() && r.ptr == t.data() + t.size()) return true;
        range = r.ec == std::errc::result_out_of_range && r.ptr == t.data() + t.size();
    }
    return false;
}

/// Walks the lines of a text buffer, counting from 1.
struct line_reader {
    std::string_view text;
    std::size_t pos = 0;
    long long number = 0;  ///< the line last returned
    bool next(std::string_view& line)
    {
        if (pos >= text.size()) return false;
        const std::size_t end = text.find('\n', pos);
        const std::size_t stop = end == std::string_view::npos ? text.size() : end;
        line = text.substr(pos, stop - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos = end == std::string_view::npos ? text.size() : end + 1;
        ++number;
        return true;
    }
};

/// Throws tcore::error("<name>:<line>: <what>").
[[noreturn]] inline void throw_at(const std::string& name, long long line, const std::string& what)
{
    throw error(name + ":" + std::to_string(line) + ": " + what);
}

inline bool blank_or_comment(std::string_view line)
{
    for (const char c : line) {
        if (c == '%') return true;
        if (!is_space(c)) return false;
    }
    return true;
}

}  // namespace detail

/// Parses Matrix Market text held in memory; `name` prefixes error messages.
inline sparse::csr parse_matrix_market(std::string_view text, const mm_options& opts = {},
                                       const std::string& name = "<matrix market>", mm_header* header_out = nullptr)
{
    using namespace detail;
    line_reader in{text};
    std::string_view line;

    // -- banner ----------------------------------------------------------------
    if (!in.next(line)) throw_at(name, 1, "empty file, expected the banner '%%MatrixMarket matrix coordinate <field> <symmetry>'");
    std::string_view tok[6];
    {
        const int n = tokenize(line, tok, 5);
        if (n == 0 || lower(tok[0]) != "%%matrixmarket")
            throw_at(name, 1, "missing banner: the first line must start with '%%MatrixMarket'");
        if (n != 5)
            throw_at(name, 1, "banner has " + std::to_string(n - 1) +
                        " keywords, expected 4: matrix coordinate <field> <symmetry>");
    }
    const long long max_dimension = std::min<long long>(opts.max_dimension, INT_MAX);
    const long long max_entries = std::min<long long>(opts.max_entries, INT_MAX);
    mm_header h;
    h.object = lower(tok[1]);
    h.format = lower(tok[2]);
    h.field = lower(tok[3]);
    h.symmetry = lower(tok[4]);
    if (h.object != "matrix") throw_at(name, 1, "object " + quote(tok[1]) + " is not supported (only 'matrix')");
    if (h.format == "array") throw_at(name, 1, "the dense 'array' format is not supported, only 'coordinate'");
    if (h.format != "coordinate") throw_at(name, 1, "unknown format " + quote(tok[2]) + " (expected 'coordinate')");
    if (h.field == "double") h.field = "real";
    const bool is_complex = h.field == "complex";
    if (h.field != "real" && h.field != "integer" && h.field != "pattern" && !is_complex)
        throw_at(name, 1, "unknown field " + quote(tok[3]) + " (expected real, integer, pattern or complex)");
    if (is_complex && opts.complex == complex_mode::reject)
        throw_at(name, 1, "complex matrices are not supported (mm_options::complex = complex_mode::real_part reads the real part)");
    if (h.symmetry != "general" && h.symmetry != "symmetric" && h.symmetry != "skew-symmetric" &&
        h.symmetry != "hermitian")
        throw_at(name, 1, "unknown symmetry " + quote(tok[4]) + " (expected general, symmetric, skew-symmetric or hermitian)");
    if (h.symmetry == "hermitian" && !is_complex) throw_at(name, 1, "'hermitian' symmetry needs the complex field");
    if (h.symmetry == "skew-symmetric" && h.field == "pattern")
        throw_at(name, 1, "'pattern' matrices cannot be skew-symmetric");
    const bool mirror = h.symmetry != "general";
    const bool skew = h.symmetry == "skew-symmetric";

    // -- size line ---------------------------------------------------------------
    for (;;) {
        if (!in.next(line)) throw_at(name, in.number + 1, "file ends before the size line 'rows columns entries'");
        if (!blank_or_comment(line)) break;
    }
    const long long size_line = in.number;
    {
        const int n = tokenize(line, tok, 3);
        if (n != 3)
            throw_at(name, size_line, "size line has " + std::to_string(n) + " fields, expected 3: rows columns entries");
        const char* what[3] = {"row count", "column count", "entry count"};
        long long v[3];
        for (int i = 0; i < 3; ++i)
            if (!parse_count(tok[i], v[i]))
                throw_at(name, size_line, std::string(what[i]) + " " + quote(tok[i]) + " is not a non-negative integer");
        h.rows = v[0];
        h.cols = v[1];
        h.entries = v[2];
    }
    if (h.rows > max_dimension || h.cols > max_dimension)
        throw_at(name, size_line, "dimensions " + std::to_string(h.rows) + " x " + std::to_string(h.cols) + " exceed the limit " +
                            std::to_string(max_dimension) + " (32-bit indices)");
    if (mirror && h.rows != h.cols)
        throw_at(name, size_line, h.symmetry + " matrix must be square, not " + std::to_string(h.rows) + " x " +
                            std::to_string(h.cols));
    if (h.entries > max_entries)
        throw_at(name, size_line, std::to_string(h.entries) + " entries exceed the limit " + std::to_string(max_entries));
    if (header_out) *header_out = h;

    // -- entries -----------------------------------------------------------------
    const int fields = h.field == "pattern" ? 2 : is_complex ? 4 : 3;
    const char* layout = fields == 2 ? "row column" : fields == 3 ? "row column value" : "row column real imaginary";
    std::vector<sparse::triplet> entries;
    {
        // Every entry line has at least 4 bytes ("1 1\n"): never reserve past the data.
        const long long present = static_cast<long long>((text.size() - in.pos) / 4 + 1);
        const long long guess = std::min(h.entries, present) * (mirror ? 2 : 1);
        entries.reserve(static_cast<std::size_t>(std::min<long long>(guess, max_entries)));
    }
    long long read = 0;
    while (read < h.entries) {
        if (!in.next(line))
            throw_at(name, in.number + 1, "file ends after " + std::to_string(read) + " of " + std::to_string(h.entries) +
                                    " entries");
        if (blank_or_comment(line)) continue;
        const int n = tokenize(line, tok, fields);
        if (n != fields)
            throw_at(name, in.number, "entry has " + std::to_string(n) + (n > fields ? " or more" : "") + " fields, expected " +
                                std::to_string(fields) + " (" + layout + ")");
        long long i = 0, j = 0;
        if (!parse_integer(tok[0], i)) throw_at(name, in.number, "row index " + quote(tok[0]) + " is not an integer");
        if (!parse_integer(tok[1], j)) throw_at(name, in.number, "column index " + quote(tok[1]) + " is not an integer");
        if (i < 1 || i > h.rows)
            throw_at(name, in.number, "row index " + std::to_string(i) + " out of range [1, " + std::to_string(h.rows) + "]");
        if (j < 1 || j > h.cols)
            throw_at(name, in.number, "column index " + std::to_string(j) + " out of range [1, " + std::to_string(h.cols) + "]");
        double v = 1.0;
        if (h.field == "integer") {
            long long iv = 0;
            if (!parse_integer(tok[2], iv)) throw_at(name, in.number, "value " + quote(tok[2]) + " is not an integer");
            v = static_cast<double>(iv);
        } else if (fields >= 3) {
            bool range = false;
            if (!parse_real(tok[2], v, range))
                throw_at(name, in.number, "value " + quote(tok[2]) + (range ? " is out of the range of a double" : " is not a number"));
            if (is_complex) {
                double im = 0;
                if (!parse_real(tok[3], im, range))
                    throw_at(name, in.number, "imaginary part " + quote(tok[3]) +
                                        (range ? " is out of the range of a double" : " is not a number"));
            }
        }
        const int r = static_cast<int>(i - 1), c = static_cast<int>(j - 1);
        if (skew && r == c && v != 0.0)
            throw_at(name, in.number, "skew-symmetric matrix has a nonzero diagonal entry at (" + std::to_string(i) + ", " +
                                std::to_string(j) + ")");
        if (static_cast<long long>(entries.size()) + (mirror && r != c ? 2 : 1) > max_entries)
            throw_at(name, in.number, "more than " + std::to_string(max_entries) + " stored entries after expansion");
        entries.push_back({r, c, v});
        if (mirror && r != c) entries.push_back({c, r, skew ? -v : v});
        ++read;
    }
    while (in.next(line))
        if (!blank_or_comment(line))
            throw_at(name, in.number, "more entries than the " + std::to_string(h.entries) + " the size line declares");
    return sparse::from_triplets(static_cast<int>(h.rows), static_cast<int>(h.cols), entries);
}

/// Reads a Matrix Market file (see parse_matrix_market).
inline sparse::csr read_matrix_market(const std::string& path, const mm_options& opts = {},
                                      mm_header* header_out = nullptr)
{
    std::ifstream f(path, std::ios::binary);
    if (!f) throw error(path + ": cannot open the file");
    std::string text;
    f.seekg(0, std::ios::end);
    const std::streamoff size = f.tellg();
    if (size < 0) throw error(path + ": cannot read the file size");
    text.resize(static_cast<std::size_t>(size));
    f.seekg(0, std::ios::beg);
    if (size > 0 && !f.read(text.data(), size)) throw error(path + ": read error");
    return parse_matrix_market(text, opts, path, header_out);
}

/// Writes `a` as `coordinate real general` with 17 significant digits (exact round trip).
inline void write_matrix_market(std::ostream& out, const sparse::csr& a)
{
    sparse::validate(a, "tcore::io::write_matrix_market", false);
    out << "%%MatrixMarket matrix coordinate real general\n";
    out << a.rows << ' ' << a.cols << ' ' << a.nnz() << '\n';
    char buf[64];
    for (int r = 0; r < a.rows; ++r)
        for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
            const auto res = std::to_chars(buf, buf + sizeof buf, a.values[p]);  // shortest round-trip form
            out << r + 1 << ' ' << a.col_idx[p] + 1 << ' ' << std::string_view(buf, res.ptr - buf) << '\n';
        }
}

}  // namespace tcore::io
