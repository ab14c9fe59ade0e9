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
// A symmetric, skew-symmetric or hermitian file stores the lower triangle
// only (row >= column): an entry above the diagonal is an error, never
// mirrored or summed with its transpose.
//
// Numbers: a value that underflows reads as the nearest double (a subnormal
// or a signed zero, as strtod gives); one beyond the largest double (1e400)
// is an error. Integers in value fields that do not fit 64 bits read as the
// nearest double; index fields must be integers in range.
//
// Every problem - bad banner, bad size line, wrong field count, an index out
// of range, a non-numeric or out-of-range number, an entry above the diagonal
// of a symmetric file, too many or too few entries, a truncated file - throws
// tcore::error "<name>:<line>: <what>". A matrix is returned complete or not
// at all. Memory is reserved from the data actually present, never from the
// declared count alone: the entry pool holds at most one entry per
// 2 * fields bytes of input (two for a symmetric file, mirror included), and
// the row pointer array (rows + 1 ints, needed whatever the entry count) is
// bounded by mm_options::row_allowance (see there). mm_options also bounds the dimensions and entries (the fuzzer uses
// that).
//
// read_matrix_market reads regular files only: a directory, FIFO, pipe,
// socket or device path throws tcore::error saying what the path is (read a
// stream into memory and call parse_matrix_market instead). Where POSIX mmap
// exists the file is mapped read-only, so it must not shrink while read. The parser walks
// the text once with a fast path for plain entry lines (digits, blanks,
// std::from_chars values) and hands every other line to the careful per-line
// path that gives the messages, so both accept exactly the same input. A
// large input's entry lines can be read on several threads (mm_options::threads)
// with the same result and the same messages as a serial read.
#pragma once

#include "../check.cuh"
#include "../sparse/csr.hpp"
#include "matrix_market_build.hpp"
#include "matrix_market_fast.hpp"
#include "matrix_market_numbers.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

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
    /// Rows accepted whatever the input size. The CSR row pointer array takes
    /// rows + 1 ints even when the file holds no entry, so a file may declare
    /// more rows than this only if it has at least one byte per row: a file
    /// of a few dozen bytes cannot make the reader allocate gigabytes. Raise it to read a
    /// matrix with more (mostly empty) rows than its file has bytes.
    long long row_allowance = 1LL << 24;
    /// Threads for the entry lines and the CSR build of a large input: 1
    /// (the default) reads serially, 0 takes std::thread::hardware_concurrency();
    /// each thread gets at least min_bytes_per_thread of the input. It pays
    /// only where cores are idle (on busy ones it can be slower). The result
    /// and every message are those of a serial read: a part that meets
    /// anything but plain entry lines, or counts that do not add up, send the
    /// whole input to the serial path.
    unsigned threads = 1;
    std::size_t min_bytes_per_thread = std::size_t(32) << 20;
};

/// The banner and size line of a Matrix Market file (keywords lower-cased).
struct mm_header {
    std::string object, format, field, symmetry;
    long long rows = 0, cols = 0, entries = 0;
};

namespace detail {

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

/// The careful path: one line (no '\n', a final '\r' removed) with all
/// messages. Returns false for a blank or comment line.
inline bool mm_parse_line(std::string_view line, const mm_body_form& f, const std::string& name, long long number,
                          mm_entry& e)
{
    if (blank_or_comment(line)) return false;
    std::string_view tok[5];
    const int fields = f.fields;
    const char* layout = fields == 2 ? "row column" : fields == 3 ? "row column value" : "row column real imaginary";
    const int n = tokenize(line, tok, fields);
    if (n != fields)
        throw_at(name, number, "entry has " + std::to_string(n) + (n > fields ? " or more" : "") + " fields, expected " +
                                   std::to_string(fields) + " (" + layout + ")");
    if (!parse_integer(tok[0], e.i)) throw_at(name, number, "row index " + quote(tok[0]) + " is not an integer");
    if (!parse_integer(tok[1], e.j)) throw_at(name, number, "column index " + quote(tok[1]) + " is not an integer");
    if (e.i < 1 || e.i > f.rows)
        throw_at(name, number, "row index " + std::to_string(e.i) + " out of range [1, " + std::to_string(f.rows) + "]");
    if (e.j < 1 || e.j > f.cols)
        throw_at(name, number, "column index " + std::to_string(e.j) + " out of range [1, " + std::to_string(f.cols) + "]");
    e.v = 1.0;
    bool range = false;
    if (f.integer) {
        if (!parse_integer_value(tok[2], e.v, range))
            throw_at(name, number, "value " + quote(tok[2]) + (range ? " is out of the range of a double" : " is not an integer"));
    } else if (fields >= 3) {
        if (!parse_real(tok[2], e.v, range))
            throw_at(name, number, "value " + quote(tok[2]) + (range ? " is out of the range of a double" : " is not a number"));
        if (fields == 4) {
            double im = 0;
            if (!parse_real(tok[3], im, range))
                throw_at(name, number, "imaginary part " + quote(tok[3]) +
                                           (range ? " is out of the range of a double" : " is not a number"));
        }
    }
    return true;
}

/// Threads for the entry lines (see mm_options::threads); complex files,
/// which always take the careful path, are read serially.
inline unsigned mm_threads_for(const mm_options& opts, std::size_t body_bytes, const mm_body_form& f)
{
    if (f.fields == 4) return 1;
    const unsigned wanted = opts.threads > 0 ? opts.threads : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t fit = body_bytes / std::max<std::size_t>(opts.min_bytes_per_thread, 1);
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(wanted, fit)));
}

/// Reads the entry lines `body` in up to `threads` parts split at line ends,
/// each into its own row blocks on its own thread, fast path only. Returns
/// the stored entry count, or -1 where the serial path must read the input:
/// a line the fast path does not take, an entry above the diagonal or a
/// nonzero skew diagonal, an entry count other than `entries`, or more than
/// `max_entries` stored.
inline long long mm_parse_parts(std::string_view body, const mm_body_form& f, long long entries, long long max_entries,
                                unsigned threads, int shift, std::vector<mm_row_blocks>& parts)
{
    std::vector<std::size_t> bounds{0};
    for (unsigned t = 1; t < threads; ++t) {
        const std::size_t nl = body.find('\n', std::max(bounds.back(), body.size() / threads * t));
        if (nl == std::string_view::npos) break;
        bounds.push_back(nl + 1);
    }
    bounds.push_back(body.size());
    const std::size_t n = bounds.size() - 1;
    parts = std::vector<mm_row_blocks>(n);
    std::vector<long long> read(n, 0), stored(n, 0);
    std::vector<char> ok(n, 1);
    const auto read_part = [&](std::size_t t) {
        const char* p = body.data() + bounds[t];
        const char* const end = body.data() + bounds[t + 1];
        const long long present = static_cast<long long>((bounds[t + 1] - bounds[t] + 1) / (2 * f.fields));
        parts[t].plan(f.rows, std::min(entries, present) * (f.mirror ? 2 : 1), shift, f.fields != 2);
        mm_entry e;
        long long here = 0, kept = 0;  // counted locally: no shared cache line in the loop
        while (p != end) {
            if (end - p > 1024) mm_prefetch_for_read(p + 1024);  // as in mm_fast_run
            const int kind = mm_fast_line(p, end, f, e);
            if (kind == 2) continue;
            if (kind == 0 || (f.mirror && e.j > e.i) || (f.skew && e.i == e.j && e.v != 0.0) || here == entries ||
                (kept += f.mirror && e.i != e.j ? 2 : 1) > max_entries) {
                ok[t] = 0;
                return;
            }
            const int r = static_cast<int>(e.i - 1), c = static_cast<int>(e.j - 1);
            parts[t].add(r, c, e.v);
            if (f.mirror && r != c) parts[t].add(c, r, f.skew ? -e.v : e.v);
            ++here;
        }
        read[t] = here;
        stored[t] = kept;
    };
    const auto work = [&](std::size_t t) noexcept {
        try {
            read_part(t);
        } catch (...) {  // std::bad_alloc: the serial read meets it again and reports it
            ok[t] = 0;
        }
    };
    std::vector<std::thread> pool;
    std::size_t started = 1;
    try {
        for (; started < n; ++started) pool.emplace_back(work, started);
    } catch (...) {  // no thread to be had: the rest runs here
    }
    work(0);
    for (std::size_t t = started; t < n; ++t) work(t);
    for (std::thread& th : pool) th.join();
    long long total_read = 0, total_stored = 0;
    for (std::size_t t = 0; t < n; ++t) {
        if (!ok[t]) return -1;
        total_read += read[t];
        total_stored += stored[t];
    }
    return total_read == entries && total_stored <= max_entries ? total_stored : -1;
}

/// The bytes of a regular file: mapped read-only where POSIX mmap is there
/// (no copy; the file must not shrink while it is read), else read whole.
class mm_file_bytes {
public:
    explicit mm_file_bytes(const std::string& path)
    {
        namespace fs = std::filesystem;
        std::error_code ec;
        const fs::file_status st = fs::status(path, ec);
        if (st.type() == fs::file_type::not_found || (ec && st.type() == fs::file_type::none))
            throw error(path + ": cannot open the file" + (ec ? " (" + ec.message() + ")" : std::string()));
        const char* what = nullptr;
        switch (st.type()) {
        case fs::file_type::regular: break;
        case fs::file_type::directory: what = "a directory"; break;
        case fs::file_type::fifo: what = "a FIFO or pipe"; break;
        case fs::file_type::socket: what = "a socket"; break;
        case fs::file_type::character: what = "a character device"; break;
        case fs::file_type::block: what = "a block device"; break;
        default: what = "not a regular file"; break;
        }
        if (what)
            throw error(path + ": is " + std::string(what) +
                        "; read_matrix_market needs a regular file (read a stream into memory and call "
                        "parse_matrix_market)");
#if defined(__unix__) || defined(__APPLE__)
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw error(path + ": cannot open the file (" + std::strerror(errno) + ")");
        struct stat info {};
        if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
            ::close(fd);
            throw error(path + ": is not a regular file; read_matrix_market needs a regular file");
        }
        size_ = static_cast<std::size_t>(info.st_size);
        if (size_ > 0) {
#ifdef MAP_POPULATE
            const int flags = MAP_PRIVATE | MAP_POPULATE;  // map every page now, not fault by fault
#else
            const int flags = MAP_PRIVATE;
#endif
            void* m = ::mmap(nullptr, size_, PROT_READ, flags, fd, 0);
            if (m != MAP_FAILED) {
                map_ = m;
                data_ = static_cast<const char*>(m);
                ::madvise(m, size_, MADV_SEQUENTIAL);
            }
        }
        ::close(fd);
        if (map_ || size_ == 0) return;
#endif
        read_whole(path);
    }
    ~mm_file_bytes()
    {
#if defined(__unix__) || defined(__APPLE__)
        if (map_) ::munmap(map_, size_);
#endif
    }
    mm_file_bytes(const mm_file_bytes&) = delete;
    mm_file_bytes& operator=(const mm_file_bytes&) = delete;
    std::string_view view() const { return {data_ ? data_ : "", size_}; }

private:
    void read_whole(const std::string& path)
    {
        std::FILE* file = std::fopen(path.c_str(), "rb");
        if (!file) throw error(path + ": cannot open the file");
        std::size_t got = 0, capacity = 1 << 20;
        buffer_.reset(new char[capacity]);
        for (;;) {
            got += std::fread(buffer_.get() + got, 1, capacity - got, file);
            if (got < capacity) break;
            std::unique_ptr<char[]> bigger(new char[capacity * 2]);
            std::memcpy(bigger.get(), buffer_.get(), got);
            buffer_ = std::move(bigger);
            capacity *= 2;
        }
        const bool failed = std::ferror(file) != 0;
        std::fclose(file);
        if (failed) throw error(path + ": read error");
        data_ = buffer_.get();
        size_ = got;
    }
    std::unique_ptr<char[]> buffer_;
    const char* data_ = nullptr;
    std::size_t size_ = 0;
    void* map_ = nullptr;
};

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
    mm_body_form form;
    form.mirror = h.symmetry != "general";
    form.skew = h.symmetry == "skew-symmetric";
    form.symmetry = form.skew ? "skew-symmetric" : h.symmetry == "hermitian" ? "hermitian" : "symmetric";
    form.fields = h.field == "pattern" ? 2 : is_complex ? 4 : 3;
    form.integer = h.field == "integer";

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
        throw_at(name, size_line, "dimensions " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                                      " exceed the limit " + std::to_string(max_dimension) + " (32-bit indices)");
    if (form.mirror && h.rows != h.cols)
        throw_at(name, size_line, h.symmetry + " matrix must be square, not " + std::to_string(h.rows) + " x " +
                                      std::to_string(h.cols));
    if (h.entries > max_entries)
        throw_at(name, size_line, std::to_string(h.entries) + " entries exceed the limit " + std::to_string(max_entries));
    const long long row_limit = std::max<long long>(opts.row_allowance, static_cast<long long>(text.size()));
    if (h.rows > row_limit)
        throw_at(name, size_line, std::to_string(h.rows) + " rows need a row pointer array of " +
                                      std::to_string((h.rows + 1) * static_cast<long long>(sizeof(int))) +
                                      " bytes but the input has only " + std::to_string(text.size()) +
                                      " bytes: the row limit is max(mm_options::row_allowance = " +
                                      std::to_string(opts.row_allowance) +
                                      ", input bytes); raise mm_options::row_allowance to read this file");
    if (header_out) *header_out = h;
    form.rows = h.rows;
    form.cols = h.cols;

    // -- entries -----------------------------------------------------------------
    mm_row_blocks lists;
    {
        // Every entry line has at least 2 bytes per field ("1 1\n"; the last
        // line may lack its '\n'): never reserve past the data.
        const long long present = static_cast<long long>((text.size() - in.pos + 1) / (2 * form.fields));
        const long long max_stored = std::min(h.entries, present) * (form.mirror ? 2 : 1);
        const int shift = mm_row_blocks::block_shift(h.rows, max_stored);
        const unsigned threads = mm_threads_for(opts, text.size() - in.pos, form);
        if (threads > 1) {
            std::vector<mm_row_blocks> parts;
            const long long stored = mm_parse_parts(text.substr(in.pos), form, h.entries, max_entries, threads, shift, parts);
            if (stored >= 0) return mm_build_csr(form, parts.data(), parts.size(), stored, parts.size());
            // else a line for the careful path, or an error somewhere: the serial read gives the message
        }
        lists.plan(h.rows, max_stored, shift, form.fields != 2);
    }
    const char* p = text.data() + in.pos;
    const char* const end = text.data() + text.size();
    long long number = in.number, read = 0, stored = 0;
    mm_entry e;
    while (read < h.entries) {
        // Plain entry lines in a loop compiled for this form; it stops at
        // the first line needing more (a message, the careful path), read below.
        mm_fast_entries(p, end, form, h.entries, max_entries, number, read, stored, lists);
        if (read == h.entries) break;
        if (p == end)
            throw_at(name, number + 1, "file ends after " + std::to_string(read) + " of " + std::to_string(h.entries) +
                                           " entries");
        ++number;
        const int kind = mm_fast_line(p, end, form, e);
        if (kind == 2) continue;
        if (kind == 0) {
            const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
            const char* stop = nl ? static_cast<const char*>(nl) : end;
            std::string_view l(p, static_cast<std::size_t>(stop - p));
            if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
            p = nl ? stop + 1 : end;
            if (!mm_parse_line(l, form, name, number, e)) continue;
        }
        if (form.mirror && e.j > e.i)
            throw_at(name, number, "entry (" + std::to_string(e.i) + ", " + std::to_string(e.j) +
                                       ") lies above the diagonal: a " + form.symmetry +
                                       " file stores the lower triangle only (row >= column)");
        if (form.skew && e.i == e.j && e.v != 0.0)
            throw_at(name, number, "skew-symmetric matrix has a nonzero diagonal entry at (" + std::to_string(e.i) + ", " +
                                       std::to_string(e.j) + ")");
        stored += form.mirror && e.i != e.j ? 2 : 1;
        if (stored > max_entries)
            throw_at(name, number, "more than " + std::to_string(max_entries) + " stored entries after expansion");
        const int r = static_cast<int>(e.i - 1), c = static_cast<int>(e.j - 1);
        lists.add(r, c, e.v);
        if (form.mirror && r != c) lists.add(c, r, form.skew ? -e.v : e.v);
        ++read;
    }
    in.pos = static_cast<std::size_t>(p - text.data());
    in.number = number;
    while (in.next(line))
        if (!blank_or_comment(line))
            throw_at(name, in.number, "more entries than the " + std::to_string(h.entries) + " the size line declares");
    return mm_build_csr(form, &lists, 1, stored);
}

/// Reads a Matrix Market file (see parse_matrix_market). The path must name
/// a regular file (a symbolic link to one is fine).
inline sparse::csr read_matrix_market(const std::string& path, const mm_options& opts = {},
                                      mm_header* header_out = nullptr)
{
    const detail::mm_file_bytes file(path);
    return parse_matrix_market(file.view(), opts, path, header_out);
}

/// Writes `a` as `coordinate real general` in the shortest form that reads back exactly.
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
