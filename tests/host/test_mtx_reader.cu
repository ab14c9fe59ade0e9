// tests/host/test_mtx_reader.cu - the Matrix Market reader on good and
// malformed input (tcore/io/matrix_market.hpp), on the CPU.
//
// Good files: every field (real, integer, pattern; complex rejected or read
// as its real part) and symmetry (general, symmetric, skew-symmetric,
// hermitian as real part), comments and blank lines anywhere, CRLF, upper
// case keywords, duplicates summed in file order, explicit zeros kept, empty
// matrices and empty rows, number forms ('+3', '.5', 'D' exponents, nan,
// inf), a writer/reader round trip bit for bit, the fuzzing corpus
// (tests/fuzz/corpus and seeds: each file parses into a valid matrix or
// throws tcore::error, nothing else), and the shipped SuiteSparse matrices
// (tests/data/matrices, and ../shared/data/matrices for the larger ones,
// run from the repository root; a missing one is reported SKIPPED): header,
// dimensions, symmetric expansion (A == A^T) and counts.
// Malformed files: each must throw tcore::error naming "<name>:<line>:" with
// the right line and a message that says what is wrong.
#include "common/test_util.hpp"

#include <tcore/io/matrix_market.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using namespace tcore;
using tcore::test::tally;

namespace {

tally t;

/// The same options, reading the entry lines on 3 threads whatever the input size.
io::mm_options threaded(io::mm_options opts)
{
    opts.threads = 3;
    opts.min_bytes_per_thread = 1;
    return opts;
}

bool identical(const sparse::csr& a, const sparse::csr& b)
{
    if (a.rows != b.rows || a.cols != b.cols || a.row_ptr != b.row_ptr || a.col_idx != b.col_idx ||
        a.values.size() != b.values.size())
        return false;
    return a.values.empty() || std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)) == 0;
}

/// Parses `text` serially and on 3 threads; returns the matrix (checked to
/// be the same both ways) or reports the exception as a failure.
sparse::csr parse_ok(const std::string& text, const char* what, io::mm_options opts = {})
{
    try {
        opts.threads = 1;
        sparse::csr a = io::parse_matrix_market(text, opts, "test.mtx");
        t.check(identical(a, io::parse_matrix_market(text, threaded(opts), "test.mtx")),
                "%s: 3 threads give another matrix", what);
        return a;
    } catch (const std::exception& e) {
        t.check(false, "%s: unexpected error: %s", what, e.what());
        return {};
    }
}

/// Expects an error "test.mtx:<line>: ..." whose message contains `needle`,
/// the same read serially and on 3 threads.
void parse_bad(const std::string& text, long long line, const char* needle, const char* what,
               io::mm_options opts = {})
{
    std::string first;
    for (const io::mm_options& o : {opts, threaded(opts)}) {
        try {
            io::parse_matrix_market(text, o, "test.mtx");
            t.check(false, "%s: no error thrown", what);
        } catch (const tcore::error& e) {
            const std::string msg = e.what();
            const std::string where = "test.mtx:" + std::to_string(line) + ": ";
            t.check(msg.rfind(where, 0) == 0, "%s: message '%s' does not start with '%s'", what, msg.c_str(),
                    where.c_str());
            t.check(msg.find(needle) != std::string::npos, "%s: message '%s' lacks '%s'", what, msg.c_str(), needle);
            if (first.empty()) first = msg;
            else t.check(msg == first, "%s: 3 threads give '%s', serial '%s'", what, msg.c_str(), first.c_str());
        } catch (const std::exception& e) {
            t.check(false, "%s: wrong exception type: %s", what, e.what());
        }
    }
}

/// Value of A(r, c) (0 if not stored); -1 in `found` if absent.
double at(const sparse::csr& a, int r, int c, bool* found = nullptr)
{
    if (found) *found = false;
    if (r < 0 || r >= a.rows) return 0;
    for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p)
        if (a.col_idx[p] == c) {
            if (found) *found = true;
            return a.values[p];
        }
    return 0;
}

bool stored(const sparse::csr& a, int r, int c)
{
    bool f = false;
    at(a, r, c, &f);
    return f;
}

void good_files()
{
    {
        const sparse::csr a = parse_ok("%%MatrixMarket matrix coordinate real general\n"
                                       "% a comment\n"
                                       "\n"
                                       "3 4 5\n"
                                       "1 1 1.5\n"
                                       "% comment between entries\n"
                                       "3 4 -2e1\n"
                                       "  2\t2   +3  \n"
                                       "1 1 0.25\n"
                                       "2 3 0\n",
                                       "general real");
        t.check(a.rows == 3 && a.cols == 4 && a.nnz() == 4, "general: %dx%d nnz %lld", a.rows, a.cols, a.nnz());
        t.check(at(a, 0, 0) == 1.75, "general: duplicate (1,1) summed to %g", at(a, 0, 0));
        t.check(at(a, 2, 3) == -20.0 && at(a, 1, 1) == 3.0, "general: values");
        t.check(stored(a, 1, 2) && at(a, 1, 2) == 0.0, "general: explicit zero kept");
        sparse::validate(a, "good general");
    }
    {
        const sparse::csr a = parse_ok("%%MATRIXMARKET Matrix Coordinate Real Symmetric\r\n"
                                       "3 3 4\r\n"
                                       "1 1 2\r\n"
                                       "2 1 -1\r\n"
                                       "3 2 -1\r\n"
                                       "3 1 5\r\n",
                                       "symmetric CRLF upper case");
        t.check(a.rows == 3 && a.nnz() == 7, "symmetric: nnz %lld (expected 7)", a.nnz());
        t.check(at(a, 0, 1) == -1 && at(a, 1, 0) == -1 && at(a, 1, 2) == -1 && at(a, 2, 1) == -1,
                "symmetric: mirrored lower entries");
        t.check(at(a, 0, 2) == 5 && at(a, 2, 0) == 5, "symmetric: the last lower entry mirrored");
        t.check(sparse::structure_difference(a, sparse::transpose(a)).empty(), "symmetric: A == A^T in structure");
    }
    {
        const sparse::csr a = parse_ok("%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                       "3 3 2\n2 1 4\n3 1 -0.5\n",
                                       "skew-symmetric");
        t.check(a.nnz() == 4 && at(a, 1, 0) == 4 && at(a, 0, 1) == -4 && at(a, 2, 0) == -0.5 && at(a, 0, 2) == 0.5,
                "skew-symmetric: mirrored with sign");
        parse_ok("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 0\n", "skew zero diagonal allowed");
    }
    {
        const sparse::csr a = parse_ok("%%MatrixMarket matrix coordinate pattern symmetric\n"
                                       "4 4 3\n1 1\n4 2\n3 1\n",
                                       "pattern symmetric");
        t.check(a.nnz() == 5 && at(a, 0, 0) == 1 && at(a, 3, 1) == 1 && at(a, 1, 3) == 1 && at(a, 0, 2) == 1,
                "pattern: ones, expanded");
        const sparse::csr g = parse_ok("%%MatrixMarket matrix coordinate pattern general\n2 5 2\n2 5\n2 5\n",
                                       "pattern duplicates");
        t.check(g.nnz() == 1 && at(g, 1, 4) == 2, "pattern: duplicate entries sum to 2");
    }
    {
        const sparse::csr a = parse_ok("%%MatrixMarket matrix coordinate integer general\n"
                                       "2 2 3\n1 1 -7\n2 2 +12\n1 2 9007199254740993\n",
                                       "integer");
        t.check(at(a, 0, 0) == -7 && at(a, 1, 1) == 12, "integer: values");
        t.check(at(a, 0, 1) == 9007199254740992.0, "integer: 2^53 + 1 rounds to a double");
    }
    {
        const std::string cx = "%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 1 1.5 -2\n2 1 -3 4\n";
        parse_bad(cx, 1, "complex matrices are not supported", "complex rejected by default");
        io::mm_options o;
        o.complex = io::complex_mode::real_part;
        const sparse::csr a = parse_ok(cx, "complex real part", o);
        t.check(a.nnz() == 2 && at(a, 0, 0) == 1.5 && at(a, 1, 0) == -3, "complex: real parts");
        const sparse::csr h = parse_ok("%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 2 0\n2 1 3 1\n",
                                       "hermitian real part", o);
        t.check(h.nnz() == 3 && at(h, 0, 1) == 3 && at(h, 1, 0) == 3, "hermitian: real part mirrored");
        parse_bad("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 2\n", 3, "expected 4", "complex needs 4 fields", o);
    }
    {
        const sparse::csr a = parse_ok("%%MatrixMarket matrix coordinate real general\n0 0 0\n", "0 x 0");
        t.check(a.rows == 0 && a.cols == 0 && a.nnz() == 0 && a.row_ptr.size() == 1, "0 x 0 matrix");
        const sparse::csr b = parse_ok("%%MatrixMarket matrix coordinate real general\n5 3 1\n4 2 1\n", "empty rows");
        t.check(b.rows == 5 && b.nnz() == 1 && b.row_length(0) == 0 && b.row_length(3) == 1, "empty rows kept");
        const sparse::csr c = parse_ok("%%MatrixMarket matrix coordinate real general\n2 2 1\n2 2 1", "no final newline");
        t.check(c.nnz() == 1, "no final newline");
        const sparse::csr d = parse_ok("%%MatrixMarket matrix coordinate real general\n2 2 1\n2 2 1\n\n% trailing\n  \n",
                                       "trailing blank and comment lines");
        t.check(d.nnz() == 1, "trailing blank lines");
    }
    {
        const sparse::csr a = parse_ok("%%MatrixMarket matrix coordinate real general\n1 8 8\n"
                                       "1 1 .5\n1 2 5.\n1 3 1.0D+02\n1 4 -2.5d-1\n1 5 nan\n1 6 -inf\n1 7 1E3\n1 8 4.9e-324\n",
                                       "number forms");
        t.check(at(a, 0, 0) == 0.5 && at(a, 0, 1) == 5.0 && at(a, 0, 2) == 100.0 && at(a, 0, 3) == -0.25,
                "number forms: .5 5. D exponents");
        t.check(std::isnan(at(a, 0, 4)) && at(a, 0, 5) == -INFINITY && at(a, 0, 6) == 1000.0,
                "number forms: nan, -inf, E");
        t.check(at(a, 0, 7) > 0.0, "number forms: the smallest subnormal");
    }
    {
        // 64-bit entry count: parsed, then refused by the 32-bit limit with a clear message.
        parse_bad("%%MatrixMarket matrix coordinate real general\n3 3 5000000000\n1 1 1\n", 2, "exceed the limit",
                  "64-bit entry count");
        io::mm_options small;
        small.max_dimension = 10;
        parse_bad("%%MatrixMarket matrix coordinate real general\n11 3 0\n", 2, "exceed the limit", "dimension limit",
                  small);
    }
}

void writer_round_trip()
{
    sparse::csr a;
    a.rows = 3;
    a.cols = 5;
    a.row_ptr = {0, 2, 2, 5};
    a.col_idx = {0, 4, 1, 2, 3};
    a.values = {0.1, -1e-300, 3.141592653589793, 1.0 / 3.0, -0.0};
    std::ostringstream out;
    io::write_matrix_market(out, a);
    const sparse::csr b = parse_ok(out.str(), "round trip");
    t.check(sparse::structure_difference(a, b).empty(), "round trip: structure");
    bool same = b.values.size() == a.values.size();
    for (std::size_t i = 0; same && i < a.values.size(); ++i)
        same = std::memcmp(&a.values[i], &b.values[i], sizeof(double)) == 0;
    t.check(same, "round trip: values bit for bit");
}

void malformed_files()
{
    const std::string ok_banner = "%%MatrixMarket matrix coordinate real general\n";
    parse_bad("", 1, "empty file", "empty file");
    parse_bad("%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 1, "missing banner", "misspelt banner");
    parse_bad("3 3 1\n1 1 1\n", 1, "missing banner", "no banner");
    parse_bad("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "expected 4", "banner too short");
    parse_bad("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, "expected 4", "banner too long");
    parse_bad("%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "object", "vector object");
    parse_bad("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "array", "array format");
    parse_bad("%%MatrixMarket matrix coordinat real general\n1 1 0\n", 1, "unknown format", "bad format");
    parse_bad("%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1, "unknown field", "bad field");
    parse_bad("%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "unknown symmetry", "bad symmetry");
    parse_bad("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1, "hermitian", "hermitian real");
    parse_bad("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1, "skew", "pattern skew");
    parse_bad(ok_banner + "% only comments\n%\n", 4, "before the size line", "missing size line");
    parse_bad(ok_banner + "3 3\n", 2, "expected 3", "size line with 2 fields");
    parse_bad(ok_banner + "3 3 1 1\n1 1 1\n", 2, "expected 3", "size line with 4 fields");
    parse_bad(ok_banner + "3 x 1\n1 1 1\n", 2, "column count 'x'", "non-numeric size");
    parse_bad(ok_banner + "-3 3 1\n1 1 1\n", 2, "row count '-3'", "negative size");
    parse_bad(ok_banner + "3 3 1.5\n1 1 1\n", 2, "entry count", "fractional count");
    parse_bad(ok_banner + "3 3 99999999999999999999999\n", 2, "entry count", "count overflows 64 bits");
    parse_bad("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2, "must be square",
              "non-square symmetric");
    parse_bad(ok_banner + "3 3 2\n1 1 1\n2 2\n", 4, "expected 3", "entry missing its value");
    parse_bad(ok_banner + "3 3 2\n1 1 1\n2 2 1 7\n", 4, "or more fields", "entry with an extra field");
    parse_bad("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3, "expected 2",
              "pattern entry with a value");
    parse_bad(ok_banner + "3 3 2\n1 1 1\n0 2 1\n", 4, "row index 0 out of range", "row index 0");
    parse_bad(ok_banner + "3 3 2\n1 1 1\n2 4 1\n", 4, "column index 4 out of range", "column index too large");
    parse_bad(ok_banner + "3 3 1\n-1 2 1\n", 3, "row index -1 out of range", "negative index");
    parse_bad(ok_banner + "3 3 1\n1x 2 1\n", 3, "row index '1x'", "index with trailing garbage");
    parse_bad(ok_banner + "3 3 1\n1 2.0 1\n", 3, "column index '2.0'", "fractional index");
    parse_bad(ok_banner + "3 3 1\n1 99999999999999999999 1\n", 3, "column index", "index overflows 64 bits");
    parse_bad(ok_banner + "3 3 1\n1 2 abc\n", 3, "value 'abc' is not a number", "non-numeric value");
    parse_bad(ok_banner + "3 3 1\n1 2 1.2.3\n", 3, "not a number", "value 1.2.3");
    parse_bad(ok_banner + "3 3 1\n1 2 +-1\n", 3, "not a number", "value +-1");
    parse_bad(ok_banner + "3 3 1\n1 2 1e999\n", 3, "out of the range", "value overflows");
    parse_bad(ok_banner + "3 3 1\n1 2 0x10\n", 3, "not a number", "hex value");
    parse_bad(std::string(ok_banner + "3 3 1\n1 2 1") + '\0' + "5\n", 3, "not a number", "NUL inside a value");
    parse_bad("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n", 3, "not an integer",
              "fractional integer value");
    parse_bad(ok_banner + "3 3 3\n1 1 1\n2 2 2\n", 5, "file ends after 2 of 3 entries", "truncated after an entry");
    parse_bad(ok_banner + "3 3 3\n1 1 1\n2 2 2\n% comment\n", 6, "file ends after 2 of 3 entries",
              "truncated after a comment");
    parse_bad(ok_banner + "3 3 1", 3, "file ends after 0 of 1 entries", "truncated after the size line");
    parse_bad(ok_banner + "3 3 1\n1 1 1\n2 2 2\n", 4, "more entries than", "extra entry");
    parse_bad(ok_banner + "3 3 1\n1 1 1\n% fine\n2 2 2\n", 5, "more entries than", "extra entry after a comment");
    parse_bad("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", 3, "nonzero diagonal",
              "skew-symmetric diagonal");
    io::mm_options few;
    few.max_entries = 2;
    parse_bad("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n2 1 1\n", 4, "after expansion",
              "entry limit reached by the symmetric expansion", few);
    try {
        io::read_matrix_market("no/such/file.mtx");
        t.check(false, "missing file: no error");
    } catch (const tcore::error& e) {
        t.check(std::string(e.what()).find("cannot open") != std::string::npos, "missing file: %s", e.what());
    }
}

void shipped_matrices()
{
    struct known {
        const char* name;
        int rows, cols;
        long long entries;
        bool symmetric;
    };
    const known files[] = {{"bcsstk13", 2003, 2003, 42943, true},  {"cryg2500", 2500, 2500, 12349, false},
                           {"olm1000", 1000, 1000, 3996, false},   {"jagmesh7", 1138, 1138, 4294, true},
                           {"west0067", 67, 67, 294, false},       {"lp_afiro", 27, 51, 102, false},
                           {"LFAT5", 14, 14, 30, true}};
    for (const known& k : files) {
        const std::string path = test::shipped_matrix(k.name);
        if (path.empty()) {
            t.skip("%s: not in tests/data/matrices or ../shared/data/matrices", k.name);
            continue;
        }
        io::mm_header h;
        sparse::csr a;
        try {
            a = io::read_matrix_market(path, {}, &h);
        } catch (const std::exception& e) {
            t.check(false, "%s: %s", k.name, e.what());
            continue;
        }
        t.check(a.rows == k.rows && a.cols == k.cols, "%s: %dx%d", k.name, a.rows, a.cols);
        t.check(h.entries == k.entries, "%s: header declares %lld entries", k.name, h.entries);
        t.check((h.symmetry == "symmetric") == k.symmetric, "%s: symmetry %s", k.name, h.symmetry.c_str());
        bool valid = true;
        try {
            sparse::validate(a, k.name);
        } catch (const std::exception& e) {
            valid = false;
            t.check(false, "%s: %s", k.name, e.what());
        }
        if (!valid) continue;
        long long diag = 0;
        for (int r = 0; r < a.rows; ++r) diag += stored(a, r, r);
        if (k.symmetric) {
            const sparse::csr at_ = sparse::transpose(a);
            t.check(sparse::structure_difference(a, at_).empty() && a.values == at_.values, "%s: A == A^T", k.name);
            t.check(a.nnz() == 2 * k.entries - diag, "%s: %lld stored after expansion (2*%lld - %lld diagonal)", k.name,
                    a.nnz(), k.entries, diag);
        } else {
            t.check(a.nnz() == k.entries, "%s: %lld stored, %lld declared", k.name, a.nnz(), k.entries);
        }
        if (h.field == "pattern") {
            bool ones = true;
            for (const double v : a.values) ones = ones && v == 1.0;
            t.check(ones, "%s: pattern values are 1", k.name);
        }
    }
}

/// Symmetric, skew-symmetric and hermitian files store the lower triangle only.
void upper_triangle_rejected()
{
    parse_bad("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 4\n1 2 4\n", 4, "entry (1, 2) lies above the diagonal",
              "symmetric: (i,j) and (j,i) both present");
    parse_bad("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 3 5\n", 4, "lower triangle only",
              "symmetric: an upper entry alone");
    parse_bad("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 3\n", 3, "entry (2, 3)", "pattern symmetric upper");
    parse_bad("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n1 3 -2\n", 3, "a skew-symmetric file",
              "skew-symmetric upper");
    parse_bad("%%MatrixMarket matrix coordinate integer symmetric\n3 3 1\n+1 3 7\n", 3, "entry (1, 3)",
              "symmetric upper on the careful path");
    io::mm_options o;
    o.complex = io::complex_mode::real_part;
    parse_bad("%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 2 3 1\n", 3, "a hermitian file",
              "hermitian upper", o);
    const sparse::csr g = parse_ok("%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 4\n1 2 4\n", "general keeps both");
    t.check(g.nnz() == 2 && at(g, 0, 1) == 4 && at(g, 1, 0) == 4, "general: (i,j) and (j,i) stored apart");
}

/// Underflow reads as the nearest double, overflow is an error; big integers in value fields read as doubles.
void number_ranges()
{
    const std::string real = "%%MatrixMarket matrix coordinate real general\n";
    {
        const sparse::csr a = parse_ok(real + "1 7 7\n1 1 1e-400\n1 2 -1e-400\n1 3 1.0D-400\n1 4 2.5e-324\n1 5 1e-320\n"
                                              "1 6 0.000001e-315\n1 7 123456789e-340\n",
                                       "underflow");
        t.check(stored(a, 0, 0) && at(a, 0, 0) == 0.0 && !std::signbit(at(a, 0, 0)), "1e-400 reads as +0 (got %g)", at(a, 0, 0));
        t.check(stored(a, 0, 1) && at(a, 0, 1) == 0.0 && std::signbit(at(a, 0, 1)), "-1e-400 reads as -0");
        t.check(stored(a, 0, 2) && at(a, 0, 2) == 0.0, "1.0D-400 reads as 0");
        t.check(at(a, 0, 3) == std::numeric_limits<double>::denorm_min(), "2.5e-324 rounds up to the smallest subnormal");
        t.check(at(a, 0, 4) == 1e-320 && at(a, 0, 5) == 1e-321 && at(a, 0, 6) == 123456789e-340,
                "subnormals read as the nearest double");
    }
    parse_bad(real + "3 3 1\n1 2 1e400\n", 3, "value '1e400' is out of the range of a double", "1e400 overflows");
    parse_bad(real + "3 3 1\n1 2 -1.5D+400\n", 3, "out of the range", "-1.5D+400 overflows");
    parse_bad(real + "3 3 1\n1 2 0.0001e313\n", 3, "out of the range", "0.0001e313 overflows");
    {
        const sparse::csr a = parse_ok("%%MatrixMarket matrix coordinate integer general\n"
                                       "1 4 4\n1 1 18446744073709551615\n1 2 -99999999999999999999\n1 3 +9223372036854775808\n"
                                       "1 4 -9223372036854775808\n",
                                       "integers beyond int64");
        t.check(at(a, 0, 0) == 18446744073709551615.0, "integer 2^64 - 1 reads as the nearest double");
        t.check(at(a, 0, 1) == -1e20 && at(a, 0, 2) == 9223372036854775808.0 && at(a, 0, 3) == -9223372036854775808.0,
                "integers at and beyond the 64-bit limits");
        const sparse::csr r = parse_ok(real + "1 1 1\n1 1 18446744073709551615\n", "real field, integer beyond int64");
        t.check(at(r, 0, 0) == 18446744073709551615.0, "real field: 2^64 - 1");
    }
    parse_bad("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 " + std::string(400, '9') + "\n", 3,
              "out of the range of a double", "integer beyond a double");
    parse_bad("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1e5\n", 3, "not an integer",
              "integer field keeps rejecting exponents");
    parse_bad("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 +-5\n", 3, "not an integer", "integer +-5");
    parse_bad(real + "3 3 1\n18446744073709551615 1 1\n", 3, "row index '18446744073709551615' is not an integer",
              "index beyond int64 stays an error");
    parse_bad(real + "3 3 1\n1 4294967298 1\n", 3, "column index 4294967298 out of range", "index beyond 32 bits");
}

/// Declared sizes cannot make the reader allocate beyond what the input holds.
void declared_size_limits()
{
    const std::string huge = "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1\n";
    parse_bad(huge, 2, "2147483647 rows need a row pointer array", "2^31 - 1 rows declared by a tiny input");
    parse_bad(huge, 2, "raise mm_options::row_allowance", "the message names the option");
    parse_bad("%%MatrixMarket matrix coordinate pattern general\n1 1 2147483647\n1 1\n", 4, "file ends after 1 of 2147483647",
              "2^31 - 1 entries declared, one present");
    io::mm_options o;
    o.row_allowance = 100;
    const std::string tall = "%%MatrixMarket matrix coordinate real general\n1000 2 1\n1000 2 1\n";
    parse_bad(tall, 2, "mm_options::row_allowance = 100", "row allowance 100", o);
    o.row_allowance = 1000;
    const sparse::csr a = parse_ok(tall, "row allowance raised", o);
    t.check(a.rows == 1000 && a.nnz() == 1 && at(a, 999, 1) == 1, "1000 rows once the allowance is raised");
    o.row_allowance = 0;
    const std::string padded = tall + std::string(1000, '\n');  // one byte per row is always allowed
    t.check(parse_ok(padded, "rows up to the input size", o).rows == 1000, "rows up to the input size");
    const sparse::csr wide = parse_ok("%%MatrixMarket matrix coordinate real general\n1 2147483647 1\n1 2147483647 2\n",
                                      "2^31 - 1 columns cost nothing");
    t.check(wide.cols == 2147483647 && at(wide, 0, 2147483646) == 2, "2^31 - 1 columns");
}

/// Temporary files for read_matrix_market, removed at the end.
struct temp_dir {
    std::filesystem::path path;
    temp_dir()
    {
        path = std::filesystem::temp_directory_path() /
               ("tcore-mtx-test-" + std::to_string(static_cast<long long>(::getpid())));
        std::filesystem::create_directories(path);
    }
    ~temp_dir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::string write(const char* name, const std::string& text) const
    {
        const std::string p = (path / name).string();
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
};

/// Reads `path`; expects tcore::error whose message contains every needle.
void read_bad(const std::string& path, std::initializer_list<const char*> needles, const char* what)
{
    try {
        io::read_matrix_market(path);
        t.check(false, "%s: no error thrown", what);
    } catch (const tcore::error& e) {
        const std::string msg = e.what();
        for (const char* needle : needles)
            t.check(msg.find(needle) != std::string::npos, "%s: message '%s' lacks '%s'", what, msg.c_str(), needle);
    } catch (const std::exception& e) {
        t.check(false, "%s: wrong exception type: %s", what, e.what());
    }
}

/// Paths that are not regular files, and regular files through read_matrix_market.
void file_kinds()
{
    const temp_dir dir;
    read_bad(dir.path.string(), {"is a directory", "needs a regular file"}, "a directory");
    const std::string fifo = (dir.path / "fifo.mtx").string();
    if (::mkfifo(fifo.c_str(), 0600) == 0)
        read_bad(fifo, {"fifo.mtx: is a FIFO or pipe", "needs a regular file"}, "a FIFO (must not block)");
    else
        t.skip("mkfifo failed: the FIFO case did not run");
    if (std::filesystem::exists("/dev/null")) read_bad("/dev/null", {"character device"}, "/dev/null");
    const std::string huge = dir.write("huge.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                   "2147483647 2147483647 1\n1 1 1\n");
    t.check(std::filesystem::file_size(huge) < 80, "huge.mtx is a file of under 80 bytes");
    read_bad(huge, {"huge.mtx:2:", "2147483647 rows", "row_allowance"}, "a tiny file declaring 2^31 - 1 rows");
    const std::string good = dir.write("good.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 2\n3 1 -1\n");
    std::error_code ec;
    std::filesystem::create_symlink(good, dir.path / "link.mtx", ec);
    for (const std::string& path : {good, (dir.path / "link.mtx").string()}) {
        if (ec && path != good) continue;
        try {
            const sparse::csr a = io::read_matrix_market(path);
            t.check(a.nnz() == 3 && at(a, 0, 2) == -1 && at(a, 2, 0) == -1, "%s: read", path.c_str());
        } catch (const std::exception& e) {
            t.check(false, "%s: %s", path.c_str(), e.what());
        }
    }
    read_bad(dir.write("empty.mtx", ""), {"empty.mtx:1: empty file"}, "an empty file");
    read_bad(dir.write("bad.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n"),
             {"bad.mtx:3: column index 3 out of range"}, "file name and line in messages");
}

/// Random matrices through both entry paths against sparse::from_triplets:
/// unsorted rows, duplicates summed in file order, symmetric expansion,
/// enough entries for several row blocks.
void against_triplets()
{
    tcore::test::rng gen(7);
    for (const int symmetric : {0, 1})
        for (const int careful : {0, 1}) {
            const int n = 5000, count = 120000;
            std::string text = std::string("%%MatrixMarket matrix coordinate real ") +
                               (symmetric ? "symmetric" : "general") + "\n% random\n" + std::to_string(n) + " " +
                               std::to_string(n) + " " + std::to_string(count) + "\n";
            std::vector<sparse::triplet> ref;
            char buf[96];
            for (int k = 0; k < count; ++k) {
                int i = static_cast<int>(gen.next() % n), j = static_cast<int>(gen.next() % (k % 7 == 0 ? 40 : n));
                if (symmetric && j > i) std::swap(i, j);
                const double v = gen.uniform(-1.0, 1.0);
                // The careful path takes '+' signs, tabs and Fortran exponents; the fast one plain lines.
                const int len = careful ? std::snprintf(buf, sizeof buf, "\t+%d %d  %+.17e \r\n", i + 1, j + 1, v)
                                        : std::snprintf(buf, sizeof buf, "%d %d %.17g\n", i + 1, j + 1, v);
                text.append(buf, static_cast<std::size_t>(len));
                if (k % 1000 == 0) text += "% comment\n\n";
                ref.push_back({i, j, v});
                if (symmetric && i != j) ref.push_back({j, i, v});
            }
            const sparse::csr want = sparse::from_triplets(n, n, ref);
            const sparse::csr got = parse_ok(text, "random matrix");
            bool same = sparse::structure_difference(want, got).empty() && want.values.size() == got.values.size();
            for (std::size_t k = 0; same && k < want.values.size(); ++k)
                same = std::memcmp(&want.values[k], &got.values[k], sizeof(double)) == 0;
            t.check(same, "random %s matrix (%s path): same as from_triplets bit for bit",
                    symmetric ? "symmetric" : "general", careful ? "careful" : "fast");
        }
}

/// The fuzzing corpus (tests/fuzz): every file parses or throws tcore::error;
/// parsed matrices are valid and survive write -> parse bit for bit.
void fuzz_corpus()
{
    int files = 0, parsed = 0;
    for (const char* dir : {"tests/fuzz/corpus", "tests/fuzz/seeds"}) {
        if (!std::filesystem::is_directory(dir)) {
            t.check(false, "fuzz corpus: %s missing (run from the repository root)", dir);
            continue;
        }
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (!entry.is_regular_file()) continue;
            std::ifstream f(entry.path(), std::ios::binary);
            const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
            ++files;
            io::mm_options o;
            o.max_dimension = 1 << 16;
            o.max_entries = 1 << 20;
            if (!text.empty() && (text[0] & 1)) o.complex = io::complex_mode::real_part;
            std::string threaded_error;
            try {
                io::parse_matrix_market(text, threaded(o), entry.path().string());
            } catch (const tcore::error& e) {
                threaded_error = e.what();  // compared with the serial read below
            } catch (const std::exception& e) {
                t.check(false, "corpus %s (3 threads): unexpected exception %s", entry.path().string().c_str(), e.what());
            }
            o.threads = 1;
            try {
                const sparse::csr a = io::parse_matrix_market(text, o, entry.path().string());
                t.check(threaded_error.empty() && identical(a, io::parse_matrix_market(text, threaded(o), "again")),
                        "corpus %s: 3 threads differ from the serial read", entry.path().string().c_str());
                sparse::validate(a, "corpus");
                std::ostringstream out;
                io::write_matrix_market(out, a);
                const sparse::csr b = io::parse_matrix_market(out.str(), o, "rewritten");
                bool same = sparse::structure_difference(a, b).empty() && a.values.size() == b.values.size();
                for (std::size_t i = 0; same && i < a.values.size(); ++i)
                    same = std::memcmp(&a.values[i], &b.values[i], sizeof(double)) == 0;
                t.check(same, "corpus %s: write/parse round trip", entry.path().string().c_str());
                ++parsed;
            } catch (const tcore::error& e) {
                // rejected with a message: fine, if the same on 3 threads
                t.check(threaded_error == e.what(), "corpus %s: 3 threads give '%s', serial '%s'",
                        entry.path().string().c_str(), threaded_error.c_str(), e.what());
            } catch (const std::exception& e) {
                t.check(false, "corpus %s: unexpected exception %s", entry.path().string().c_str(), e.what());
            }
        }
    }
    std::printf("fuzz corpus: %d files, %d parsed, %d rejected\n", files, parsed, files - parsed);
    t.check(files > 0, "fuzz corpus: no files");
}

}  // namespace

int main()
{
    good_files();
    writer_round_trip();
    malformed_files();
    upper_triangle_rejected();
    number_ranges();
    declared_size_limits();
    file_kinds();
    against_triplets();
    shipped_matrices();
    fuzz_corpus();
    return t.finish();
}
