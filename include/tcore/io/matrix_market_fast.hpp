// tcore/io/matrix_market_fast.hpp - the fast path of the Matrix Market
// reader (tcore/io/matrix_market.hpp) for plain entry lines; internals,
// host only.
//
// mm_fast_line takes one plain line (blanks, 1-10 digit indices in range, a
// value std::from_chars reads whole) or a blank or comment line, and hands
// anything else back untouched. mm_fast_entries runs it over consecutive
// lines in a loop compiled for the file's form (field count, integer,
// symmetry fixed at compile time) and stops, before consuming it, at the
// first line that needs the careful path or a message, so the caller's
// serial loop reads that line exactly as it would have.
#pragma once

#include "matrix_market_build.hpp"
#include "matrix_market_numbers.hpp"

#include <charconv>
#include <cstddef>
#include <cstring>
#include <system_error>

namespace tcore::io::detail {

/// One entry, 1-based as in the file.
struct mm_entry {
    long long i = 0, j = 0;
    double v = 1.0;
};

/// An mm_body_form with the field count, the integer field and the
/// symmetry fixed at compile time (the members mm_fast_line reads).
template <int Fields, bool Integer, bool Mirror, bool Skew>
struct mm_fixed_form {
    static constexpr int fields = Fields;
    static constexpr bool integer = Integer, mirror = Mirror, skew = Skew;
    long long rows = 0, cols = 0;
};

/// The fast path: a plain entry line at `p` (blanks, 1-10 digit indices in
/// range, a value std::from_chars reads whole, or a comment or blank line).
/// Returns 0 to hand the line to mm_parse_line, 1 for an entry, 2 for a
/// blank or comment line; on 1 and 2, `p` moves past the line's '\n'.
/// `Form` is mm_body_form or an mm_fixed_form (the same members).
template <class Form>
[[gnu::always_inline]] inline int mm_fast_line(const char*& p, const char* end, const Form& f, mm_entry& e)
{
    const char* q = p;
    while (q != end && (*q == ' ' || *q == '\t')) ++q;
    if (q == end || *q == '\n') {
        p = q == end ? q : q + 1;
        return 2;
    }
    if (*q == '%') {
        const void* nl = std::memchr(q, '\n', static_cast<std::size_t>(end - q));
        p = nl ? static_cast<const char*>(nl) + 1 : end;
        return 2;
    }
    if (f.fields == 4 || !scan_index(q, end, e.i) || e.i > f.rows || e.i < 1 || q == end || (*q != ' ' && *q != '\t'))
        return 0;
    while (q != end && (*q == ' ' || *q == '\t')) ++q;
    if (!scan_index(q, end, e.j) || e.j > f.cols || e.j < 1) return 0;
    if (f.fields == 3) {
        if (q == end || (*q != ' ' && *q != '\t')) return 0;
        while (q != end && (*q == ' ' || *q == '\t')) ++q;
        if (f.integer) {
            if (!scan_small_integer(q, end, e.v)) return 0;
        } else {
            const auto r = std::from_chars(q, end, e.v, std::chars_format::general);
            if (r.ec != std::errc()) return 0;
            q = r.ptr;
        }
    } else {
        e.v = 1.0;
    }
    while (q != end && (*q == ' ' || *q == '\t' || *q == '\r')) ++q;
    if (q != end) {
        if (*q != '\n') return 0;
        ++q;
    }
    p = q;
    return 1;
}

/// Reads plain entry lines at `p` while fewer than `entries` are read,
/// counting lines in `number`, entries in `read` and stored entries (after
/// expansion) in `stored`. Stops at the end, or with `p` at the start of a
/// line that mm_fast_line hands back, that lies above the diagonal, that is
/// a nonzero skew-symmetric diagonal, or that would store more than
/// `max_entries`; that line is not counted.
template <class Form>
void mm_fast_run(const char*& p, const char* end, const Form& f, long long entries, long long max_entries,
                 long long& number, long long& read, long long& stored, mm_row_blocks& lists)
{
    constexpr std::ptrdiff_t text_ahead = 1024;  // the text is read once, in order: ask for it ahead
    mm_entry e;
    while (read < entries && p != end) {
        const char* const line = p;
        if (end - p > text_ahead) mm_prefetch_for_read(p + text_ahead);
        const int kind = mm_fast_line(p, end, f, e);
        if (kind == 2) {
            ++number;
            continue;
        }
        const long long adds = f.mirror && e.i != e.j ? 2 : 1;
        if (kind == 0 || (f.mirror && e.j > e.i) || (f.skew && e.i == e.j && e.v != 0.0) || stored + adds > max_entries) {
            p = line;
            return;
        }
        ++number;
        stored += adds;
        const int r = static_cast<int>(e.i - 1), c = static_cast<int>(e.j - 1);
        lists.add_entry<(Form::fields > 2)>(r, c, e.v);
        if (f.mirror && r != c) lists.add_entry<(Form::fields > 2)>(c, r, f.skew ? -e.v : e.v);
        ++read;
    }
}

/// mm_fast_run for the form `f` (real, integer or pattern; general,
/// symmetric or skew-symmetric); a complex file's lines all take the
/// careful path.
inline void mm_fast_entries(const char*& p, const char* end, const mm_body_form& f, long long entries,
                            long long max_entries, long long& number, long long& read, long long& stored,
                            mm_row_blocks& lists)
{
    const auto run = [&](auto fixed) {
        fixed.rows = f.rows;
        fixed.cols = f.cols;
        mm_fast_run(p, end, fixed, entries, max_entries, number, read, stored, lists);
    };
    if (f.fields == 2) {
        if (!f.mirror) run(mm_fixed_form<2, false, false, false>{});
        else if (!f.skew) run(mm_fixed_form<2, false, true, false>{});
    } else if (f.fields == 3) {
        if (f.integer) {
            if (!f.mirror) run(mm_fixed_form<3, true, false, false>{});
            else if (!f.skew) run(mm_fixed_form<3, true, true, false>{});
            else run(mm_fixed_form<3, true, true, true>{});
        } else {
            if (!f.mirror) run(mm_fixed_form<3, false, false, false>{});
            else if (!f.skew) run(mm_fixed_form<3, false, true, false>{});
            else run(mm_fixed_form<3, false, true, true>{});
        }
    }
}

}  // namespace tcore::io::detail
