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
// (../shared/data/matrices, run from the repository root): header,
// dimensions, symmetric expansion (A == A^T) and counts.
// Malformed files: each must throw tcore::error naming "<name>:<line>:" with
// the right line and a message that says what is wrong.
#include "common/test_util.hpp"

#include <tcore/io/matrix_market.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace tcore;
using tcore::test::tally;

namespace {

tally t;

/// Parses `text`; returns the matrix or reports the exception as a failure.
sparse::csr parse_ok(const std::string& text, const char* what, io::mm_options opts = {})
{
    try {
        return io::parse_matrix_market(text, opts, "test.mtx");
    } catch (const std::exception& e) {
        t.check(false, "%s: unexpected error: %s", what, e.what());
        return {};
    }
}

/// Expects an error "test.mtx:<line>: ..." whose message contains `needle`.
void parse_bad(const std::string& text, long long line, const char* needle, const char* what,
               io::mm_options opts = {})
{
    try {
        io::parse_matrix_market(text, opts, "test.mtx");
        t.check(false, "%s: no error thrown", what);
    } catch (const tcore::error& e) {
        const std::string msg = e.what();
        const std::string where = "test.mtx:" + std::to_string(line) + ": ";
        t.check(msg.rfind(where, 0) == 0, "%s: message '%s' does not start with '%s'", what, msg.c_str(), where.c_str());
        t.check(msg.find(needle) != std::string::npos, "%s: message '%s' lacks '%s'", what, msg.c_str(), needle);
    } catch (const std::exception& e) {
        t.check(false, "%s: wrong exception type: %s", what, e.what());
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
                                       "1 3 5\r\n",
                                       "symmetric CRLF upper case");
        t.check(a.rows == 3 && a.nnz() == 7, "symmetric: nnz %lld (expected 7)", a.nnz());
        t.check(at(a, 0, 1) == -1 && at(a, 1, 0) == -1 && at(a, 1, 2) == -1 && at(a, 2, 1) == -1,
                "symmetric: mirrored lower entries");
        t.check(at(a, 0, 2) == 5 && at(a, 2, 0) == 5, "symmetric: an upper entry is mirrored too");
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
        const std::string path = std::string("../shared/data/matrices/") + k.name + ".mtx";
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
            try {
                const sparse::csr a = io::parse_matrix_market(text, o, entry.path().string());
                sparse::validate(a, "corpus");
                std::ostringstream out;
                io::write_matrix_market(out, a);
                const sparse::csr b = io::parse_matrix_market(out.str(), o, "rewritten");
                bool same = sparse::structure_difference(a, b).empty() && a.values.size() == b.values.size();
                for (std::size_t i = 0; same && i < a.values.size(); ++i)
                    same = std::memcmp(&a.values[i], &b.values[i], sizeof(double)) == 0;
                t.check(same, "corpus %s: write/parse round trip", entry.path().string().c_str());
                ++parsed;
            } catch (const tcore::error&) {
                // rejected with a message: fine
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
    shipped_matrices();
    fuzz_corpus();
    return t.finish();
}
