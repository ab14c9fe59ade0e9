// tests/host/test_sparse_formats.cu - tcore's packed sparse formats on the
// CPU: CSR -> format -> CSR must give the input back exactly (structure and
// values bit for bit), and the packings must have the properties the
// kernels rely on.
//
// DASP-like SpMV format (tcore/sparse/dasp.hpp): every row class (empty,
// short 1-4, medium, long with one and many pieces, bundles of 2, 3 and 8
// identical rows, and the automatic bundle size), the short-line packing
// (segment masks, 1 to 4 segments a line, sorted by segment count), the
// medium groups (sorted lengths, regular width a multiple of 4 and at most
// the shortest row), padding (value 0, column -1), options, bad input.
// Slabs (tcore/sparse/slab.hpp): which matrices qualify (the longest row
// and the padding bounds, on both sides), every width 1 to 12 (full and
// partial blocks), entries in place, padding, round trip; a slab-eligible
// matrix is also packed into the classes (dasp_options::slabs = false).
// mBSR SpGEMM format (tcore/sparse/mbsr.hpp): 4x4 tiles with 16-bit masks,
// round trip, tile counts (the boolean tile product is checked with the
// SpGEMM model, tests/host/test_sparse_spgemm_model.cu).
// Matrices: every generator class, the shipped matrices, and edge shapes
// (0 x 0, empty rows, one row, one column, a dense row, rectangular,
// non-multiples of every block size).
#include "common/test_util.hpp"

#include <tcore/io/matrix_market.hpp>
#include <tcore/sparse/csr.hpp>
#include <tcore/sparse/dasp.hpp>
#include <tcore/sparse/generate.hpp>
#include <tcore/sparse/mbsr.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace tcore;
using tcore::test::tally;

namespace {

/// The resident warps the packing heuristics assume on the CPU, where no
/// device can be asked (a 132-SM GPU's 132 x 32).
constexpr int host_resident_warps = 132 * 32;

tally t;

/// Expects f() to throw tcore::error containing `needle` (tally::expect_error).
template <class F>
void expect_error(F&& f, const char* needle, const char* what)
{
    t.expect_error(what, std::forward<F>(f), needle);
}

bool identical(const sparse::csr& a, const sparse::csr& b)
{
    if (!sparse::structure_difference(a, b).empty() || a.values.size() != b.values.size()) return false;
    return a.values.empty() || std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)) == 0;
}

struct named {
    std::string name;
    sparse::csr a;
};

std::vector<named> matrices()
{
    using namespace sparse::gen;
    std::vector<named> m;
    for (const matrix_class c : all_classes()) m.push_back({class_name(c), generate(c, 60000, 11)});
    const char* files[] = {"bcsstk13", "cryg2500", "olm1000", "jagmesh7", "west0067", "lp_afiro", "LFAT5"};
    for (const char* f : files) {
        const std::string path = tcore::test::shipped_matrix(f);
        if (path.empty()) {
            t.skip("matrix %s not found (tests/data/matrices, ../shared/data/matrices)", f);
            continue;
        }
        try {
            m.push_back({f, io::read_matrix_market(path)});
        } catch (const std::exception& e) {
            t.check(false, "reading %s: %s", f, e.what());
        }
    }
    m.push_back({"0x0", sparse::csr{}});
    m.push_back({"empty 7x5", sparse::gen::random_rows(7, 5, 0, 0, 1)});
    m.push_back({"one row 1x3001", sparse::gen::random_rows(1, 3001, 3001, 3001, 2)});
    m.push_back({"one column 77x1", sparse::gen::random_rows(77, 1, 0, 1, 3)});
    m.push_back({"rectangular 300x77", sparse::gen::random_rows(300, 77, 0, 20, 4)});
    m.push_back({"rectangular 45x3000", sparse::gen::random_rows(45, 3000, 0, 2500, 5)});
    m.push_back({"short rows 1000x1000", sparse::gen::random_rows(1000, 1000, 0, 4, 6)});
    m.push_back({"mixed 501x4099", sparse::gen::random_rows(501, 4099, 0, 2100, 7)});
    m.push_back({"power law 30000 nnz", sparse::gen::power_law(30000, 10)});
    {
        sparse::csr d = sparse::gen::random_rows(203, 1030, 1, 9, 8);  // a dense row in the middle
        auto dense = sparse::gen::random_rows(1, 1030, 1030, 1030, 9);
        sparse::csr out;
        out.rows = d.rows + 1;
        out.cols = d.cols;
        for (int r = 0; r <= d.rows; ++r) {
            const sparse::csr& src = r == 100 ? dense : d;
            const int sr = r == 100 ? 0 : (r < 100 ? r : r - 1);
            for (int p = src.row_ptr[sr]; p < src.row_ptr[sr + 1]; ++p) {
                out.col_idx.push_back(src.col_idx[p]);
                out.values.push_back(src.values[p]);
            }
            out.row_ptr.push_back(static_cast<int>(out.col_idx.size()));
        }
        m.push_back({"dense row 204x1030", out});
    }
    return m;
}

/// A slab packing (sparse/slab.hpp): the width slab_width_for gives, no
/// other class, every stored slot a real entry in its row's place, padding
/// 0 and -1, and the exact round trip.
void slab_checks(const named& m, const sparse::dasp_options& o)
{
    const sparse::csr& a = m.a;
    const char* name = m.name.c_str();
    const sparse::dasp_format f = sparse::build_dasp(a, o);
    const int w = sparse::slab_width_for(a);
    t.check(f.slab_width == w && w >= 1 && w <= sparse::slab_max_width, "%s: slab width %d (slab_width_for %d)", name,
            f.slab_width, w);
    t.check(f.group_count() == 0 && f.long_count() == 0 && f.tile_count() == 0 && f.empty_rows.empty() &&
                f.bundle_group_count() == 0 && f.reg_val.empty(),
            "%s: a slab matrix has no other class", name);
    t.check(f.slab_count() == (a.rows + 7) / 8 && f.slab_val.size() == 8ULL * w * f.slab_count(),
            "%s: %d slabs of 8 x %d slots", name, f.slab_count(), w);
    const sparse::slab_shape sh = sparse::make_slab_shape(w);
    bool placed = true;
    long long real = 0;
    for (int r = 0; r < a.rows; ++r)
        for (int e = 0; e < a.row_length(r); ++e) {
            const std::size_t at = static_cast<std::size_t>(r / 8) * 8 * w + sh.slot(r % 8, e);
            const int p = a.row_ptr[r] + e;
            placed = placed && f.slab_col[at] == a.col_idx[p] && f.slab_val[at] == a.values[p];
        }
    bool pad_ok = true;
    for (std::size_t i = 0; i < f.slab_col.size(); ++i) {
        real += f.slab_col[i] >= 0;
        pad_ok = pad_ok && (f.slab_col[i] >= 0 || f.slab_val[i] == 0.0);
    }
    t.check(placed && real == a.nnz() && pad_ok, "%s: slab slots (entries in place, padding 0 and -1)", name);
    t.check(identical(sparse::dasp_to_csr(f), a), "%s: slab round trip", name);
}

void dasp_checks(const named& m, sparse::dasp_options o)
{
    if (o.resident_warps == 0) o.resident_warps = host_resident_warps;  // no device to ask on the CPU
    if (o.slabs && sparse::slab_width_for(m.a) > 0) {  // then the classes, as without slabs
        slab_checks(m, o);
        o.slabs = false;
    }
    const sparse::csr& a = m.a;
    const char* name = m.name.c_str();
    sparse::dasp_format f;
    try {
        f = sparse::build_dasp(a, o);
    } catch (const std::exception& e) {
        t.check(false, "%s: build_dasp: %s", name, e.what());
        return;
    }
    t.check(identical(sparse::dasp_to_csr(f), a), "%s (long_min %d, piece %d): DASP round trip", name, f.opts.long_min,
            f.opts.long_piece);
    t.check(f.opts.long_min >= 5 && f.opts.long_piece > 0 && f.opts.long_piece % 128 == 0 &&
                (o.long_min == 0 || f.opts.long_min == o.long_min) &&
                (o.long_piece == 0 || f.opts.long_piece == o.long_piece),
            "%s: options resolved (long_min %d -> %d, piece %d -> %d)", name, o.long_min, f.opts.long_min,
            o.long_piece, f.opts.long_piece);

    // Classes: every row exactly once.
    std::vector<int> seen(static_cast<std::size_t>(a.rows), 0);
    for (const int r : f.empty_rows) seen[r]++, t.check(a.row_length(r) == 0, "%s: empty row %d", name, r);
    for (const int r : f.short_rows) seen[r]++;
    for (const int r : f.med_rows)
        if (r >= 0) seen[r]++;
    for (const int r : f.long_rows)  // long, or a medium row moved there (at least half a piece)
        seen[r]++, t.check(a.row_length(r) >= std::min(f.opts.long_min, f.opts.long_piece / 2), "%s: long row %d", name,
                           r);
    for (const int r : f.bun_rows)
        if (r >= 0) seen[r]++;
    // bundles: P consecutive rows with identical columns
    bool bundles_ok = true;
    const int P = f.bundle;
    for (std::size_t i = 0; i + P <= f.bun_rows.size(); i += P) {
        const int r0 = f.bun_rows[i];
        for (int p = 1; p < P; ++p) {
            const int r = f.bun_rows[i + p];
            if (r0 < 0) {
                bundles_ok = bundles_ok && r < 0;
                continue;
            }
            bundles_ok = bundles_ok && r == r0 + p && a.row_length(r) == a.row_length(r0) &&
                         std::equal(a.col_idx.begin() + a.row_ptr[r], a.col_idx.begin() + a.row_ptr[r + 1],
                                    a.col_idx.begin() + a.row_ptr[r0]);
        }
    }
    t.check(bundles_ok, "%s (bundle %d): bundles are runs of identical rows", name, P);
    bool once = true;
    for (int r = 0; r < a.rows; ++r) once = once && seen[r] == 1;
    t.check(once, "%s: every row in exactly one class", name);

    // Medium groups: windows in row order, sorted by length within a window,
    // regular width <= shortest, multiple of 4, no padding.
    bool sorted = true, width_ok = true;
    const auto window = [&](int r) { return o.sort_window > 0 ? r / o.sort_window : 0; };
    for (std::size_t i = 1; i < f.med_rows.size(); ++i) {
        const int r0 = f.med_rows[i - 1], r1 = f.med_rows[i];
        if (r0 < 0 || r1 < 0) continue;
        sorted = sorted && (window(r0) < window(r1) ||
                            (window(r0) == window(r1) && a.row_length(r0) >= a.row_length(r1)));
    }
    for (int gr = 0; gr < f.group_count(); ++gr) {
        const int slots = f.group_ptr[gr + 1] - f.group_ptr[gr];
        width_ok = width_ok && slots % 32 == 0;
        for (int g = 0; g < 8; ++g) {
            const int r = f.med_rows[8 * gr + g];
            if (r < 0) continue;
            const int len = a.row_length(r);
            width_ok = width_ok && len >= 5 && len < f.opts.long_min && slots / 8 <= len &&
                       len - slots / 8 == f.irr_ptr[8 * gr + g + 1] - f.irr_ptr[8 * gr + g] &&
                       len - slots / 8 <= o.irregular_cap;
        }
    }
    t.check(sorted, "%s: medium rows sorted by length within windows", name);
    t.check(width_ok, "%s: medium regular width and irregular remainders (at most %d)", name, o.irregular_cap);
    bool reg_full = true;
    for (std::size_t s = 0; s < f.reg_col.size(); ++s) {
        const int r = f.med_rows[8 * static_cast<std::size_t>(std::upper_bound(f.group_ptr.begin(), f.group_ptr.end(),
                                                                                 static_cast<int>(s)) -
                                                                f.group_ptr.begin() - 1) +
                                 (s % 32) / 4];
        reg_full = reg_full && (r < 0 ? f.reg_col[s] == -1 : f.reg_col[s] >= 0);
    }
    t.check(reg_full, "%s: regular blocks hold no padding inside real rows", name);

    // Padding is (0, -1) everywhere.
    bool pad_ok = true;
    for (std::size_t s = 0; s < f.long_col.size(); ++s) pad_ok = pad_ok && (f.long_col[s] >= 0 || f.long_val[s] == 0.0);
    for (std::size_t s = 0; s < f.short_col.size(); ++s)
        pad_ok = pad_ok && (f.short_col[s] >= 0 || f.short_val[s] == 0.0);
    t.check(pad_ok, "%s: padding slots have value 0", name);

    // Short tiles: lines start with a segment, segment counts non-decreasing.
    bool lines_ok = true;
    int prev_seg = 0;
    for (int tile = 0; tile < f.tile_count(); ++tile)
        for (int g = 0; g < 8; ++g) {
            const unsigned line = (f.tile_mask[tile] >> (4 * g)) & 0xFu;
            const int used = f.short_col[32 * tile + 4 * g] >= 0;
            lines_ok = lines_ok && ((line & 1u) != 0) == (used != 0);
            const int seg = __builtin_popcount(line);
            if (seg > 0) {
                lines_ok = lines_ok && seg >= prev_seg;
                prev_seg = seg;
            }
        }
    t.check(lines_ok, "%s: short lines start with a row and are ordered by segment count", name);
}

/// The automatic long-row threshold: 256 once every resident warp has work
/// enough, else four times the mean row length, as a power of two in [64, 256].
void auto_long_rows()
{
    struct want {
        int min_len, max_len, resident_warps, long_min;
    };
    for (const want w : {want{5, 13, 4224, 64}, want{15, 25, 4224, 128}, want{35, 45, 4224, 256},
                         want{5, 13, 1, 256}, want{5, 13, 3, 64}}) {
        const sparse::csr a = sparse::gen::random_rows(300, 400, w.min_len, w.max_len, 5);
        const double mean = static_cast<double>(a.nnz()) / a.rows;
        const int got = sparse::auto_long_min(a, w.resident_warps);
        t.check(got == w.long_min, "auto_long_min (rows of %d-%d, mean %.1f, nnz %lld, %d warps) = %d, expected %d",
                w.min_len, w.max_len, mean, a.nnz(), w.resident_warps, got, w.long_min);
        sparse::dasp_options o;
        o.resident_warps = w.resident_warps;
        const sparse::dasp_format f = sparse::build_dasp(a, o);
        t.check(f.opts.long_min == w.long_min && f.opts.long_piece == std::max(128, 2 * w.long_min),
                "build_dasp resolves long_min %d, piece %d (expected %d, %d)", f.opts.long_min, f.opts.long_piece,
                w.long_min, std::max(128, 2 * w.long_min));
    }
}

void dasp_format()
{
    auto_long_rows();
    const std::vector<named> ms = matrices();
    for (const named& m : ms) {
        dasp_checks(m, {});
        dasp_checks(m, {5, 128});    // smallest long threshold: many long rows, many pieces
        dasp_checks(m, {64, 256});
        for (const int p : {0, 2, 3, 8}) dasp_checks(m, {2048, 512, p, 32, 1 << 16, 1});
        dasp_checks(m, {2048, 256, 1, 3});  // the tightest cap: groups cut short, rows moved to long
        dasp_checks(m, {64, 256, 1, 32, 0});  // one sort over the whole matrix
        dasp_checks(m, {64, 256, 0, 8, 7});   // windows of 7 rows: groups span windows
    }
    // Bad input.
    sparse::csr a = sparse::gen::random_rows(5, 9, 2, 4, 1);
    sparse::csr bad = a;
    std::swap(bad.col_idx[0], bad.col_idx[1]);
    expect_error([&] { sparse::build_dasp(bad); }, "not sorted", "build_dasp: unsorted columns");
    bad = a;
    bad.col_idx[1] = bad.col_idx[0];
    expect_error([&] { sparse::build_dasp(bad); }, "duplicate column index", "build_dasp: duplicates");
    bad = a;
    bad.row_ptr.back() += 1;
    expect_error([&] { sparse::build_dasp(bad); }, "row_ptr[rows]", "build_dasp: row_ptr");
    expect_error([&] { sparse::build_dasp(a, {4, 128}); }, "long_min", "build_dasp: long_min 4");
    expect_error([&] { sparse::build_dasp(a, {64, 100}); }, "multiple of 128", "build_dasp: piece 100");
    expect_error([&] { sparse::build_dasp(a, {64, -128}); }, "multiple of 128", "build_dasp: piece -128");
    expect_error([&] { sparse::build_dasp(a, {0, 0, 1, 32, 0, -1}); }, "resident_warps", "build_dasp: resident_warps -1");
    // resident_warps 0 asks the current device: its SMs x 32, or a clear error without one.
    if (sparse::current_device_sms() == 0) {
        expect_error([&] { sparse::build_dasp(a); }, "no CUDA device could be queried", "build_dasp: no device");
    } else {
        const sparse::dasp_format f = sparse::build_dasp(a);
        t.check(f.opts.resident_warps == 32 * sparse::current_device_sms(), "build_dasp: resident_warps %d from the device",
                f.opts.resident_warps);
    }
    expect_error([&] { sparse::build_dasp(a, {64, 128, 5}); }, "bundle must be", "build_dasp: bundle 5");
    expect_error([&] { sparse::build_dasp(a, {64, 128, 1, 2}); }, "irregular_cap", "build_dasp: irregular_cap 2");
    expect_error([&] { sparse::build_dasp(a, {64, 128, 1, 32, -1}); }, "sort_window", "build_dasp: sort_window -1");

    // A specific short packing: lengths 4, 3, 3, 1, 2, 2, 2, 1, 1, 1, 1, 1.
    sparse::csr s;
    const int lens[] = {4, 3, 3, 1, 2, 2, 2, 1, 1, 1, 1, 1};
    s.rows = 12;
    s.cols = 8;
    for (const int l : lens) {
        for (int c = 0; c < l; ++c) {
            s.col_idx.push_back(c * 2);
            s.values.push_back(1.0 + static_cast<int>(s.values.size()));
        }
        s.row_ptr.push_back(static_cast<int>(s.col_idx.size()));
    }
    sparse::dasp_options so;
    so.resident_warps = host_resident_warps;
    const sparse::dasp_format f = sparse::build_dasp(s, so);
    // lines: [4] | [3 1] [3 1] [2 2] [1 1] | [2 1 1]: 1, 2, 2, 2, 2, 3 segments, one tile
    t.check(f.tile_count() == 1 && f.short_rows.size() == 12, "short packing: one tile, 12 rows");
    int segs[8] = {};
    for (int g = 0; g < 8; ++g) segs[g] = __builtin_popcount((f.tile_mask[0] >> (4 * g)) & 0xFu);
    t.check(segs[0] == 1 && segs[1] == 2 && segs[2] == 2 && segs[3] == 2 && segs[4] == 2 && segs[5] == 3 &&
                segs[6] == 0,
            "short packing: segments per line %d %d %d %d %d %d %d", segs[0], segs[1], segs[2], segs[3], segs[4],
            segs[5], segs[6]);
    t.check(identical(sparse::dasp_to_csr(f), s), "short packing: round trip");

    // Slab eligibility: the longest row fits 12 slots and padding (the last
    // slab's missing rows included) stays within a quarter of the slots.
    auto rows_of = [](std::vector<int> lens) {
        sparse::csr c;
        c.rows = static_cast<int>(lens.size());
        c.cols = 20;
        for (const int l : lens) {
            for (int k = 0; k < l; ++k) c.col_idx.push_back(k), c.values.push_back(1.5 + k);
            c.row_ptr.push_back(static_cast<int>(c.col_idx.size()));
        }
        return c;
    };
    t.check(sparse::slab_width_for(rows_of(std::vector<int>(16, 9))) == 9, "slabs: 16 rows of 9: width 9");
    t.check(sparse::slab_width_for(rows_of(std::vector<int>(16, 12))) == 12, "slabs: rows of 12: width 12");
    t.check(sparse::slab_width_for(rows_of(std::vector<int>(16, 13))) == 0, "slabs: rows of 13: none");
    t.check(sparse::slab_width_for(rows_of({4, 4, 4, 4, 4, 4, 0, 0})) == 4, "slabs: 25%% padding: width 4");
    t.check(sparse::slab_width_for(rows_of({4, 4, 4, 4, 4, 3, 0, 0})) == 0, "slabs: 28%% padding: none");
    t.check(sparse::slab_width_for(rows_of({4, 4, 4, 4, 4, 4})) == 4, "slabs: 6 rows of 4 (2 missing): width 4");
    t.check(sparse::slab_width_for(rows_of({4, 4, 4, 4, 4})) == 0, "slabs: 5 rows of 4 (3 missing): none");
    t.check(sparse::slab_width_for(rows_of({0, 0, 0})) == 0 && sparse::slab_width_for(sparse::csr{}) == 0,
            "slabs: no entries: none");
    sparse::dasp_options no_slabs;
    no_slabs.resident_warps = host_resident_warps;
    no_slabs.slabs = false;
    t.check(sparse::build_dasp(rows_of(std::vector<int>(16, 9)), no_slabs).slab_width == 0,
            "slabs: dasp_options::slabs = false packs the classes");
    std::vector<double> sv;
    std::vector<int> sc;
    expect_error([&] { sparse::pack_slabs(rows_of(std::vector<int>(16, 9)), 8, sv, sc); }, "longest row",
                 "slabs: pack_slabs narrower than the longest row");
    expect_error([&] { sparse::pack_slabs(rows_of(std::vector<int>(16, 4)), 13, sv, sc); }, "must be 1 to 12",
                 "slabs: pack_slabs wider than slab_max_width");
    expect_error([&] { sparse::pack_slabs(rows_of(std::vector<int>(16, 4)), 0, sv, sc); }, "must be 1 to 12",
                 "slabs: pack_slabs of width 0");
    for (const int w : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}) {  // every full / partial split, 1001 rows
        std::vector<int> lens(1001);
        for (int r = 0; r < 1001; ++r) lens[r] = r % 7 == 3 ? std::max(0, w - 1 - r % 2) : w;
        slab_checks({"slab width " + std::to_string(w), rows_of(lens)}, so);
    }
}

void mbsr_format()
{
    const std::vector<named> ms = matrices();
    for (const named& m : ms) {
        const sparse::csr& a = m.a;
        sparse::mbsr_matrix b;
        try {
            b = sparse::csr_to_mbsr(a);
        } catch (const std::exception& e) {
            t.check(false, "%s: csr_to_mbsr: %s", m.name.c_str(), e.what());
            continue;
        }
        t.check(identical(sparse::mbsr_to_csr(b), a), "%s: mBSR round trip", m.name.c_str());
        long long bits = 0;
        bool tiles_ok = b.block_rows == (a.rows + 3) / 4 && b.block_cols == (a.cols + 3) / 4;
        for (int br = 0; br < b.block_rows; ++br)
            for (int p = b.tile_ptr[br]; p < b.tile_ptr[br + 1]; ++p) {
                tiles_ok = tiles_ok && b.tile_mask[p] != 0 && (p == b.tile_ptr[br] || b.tile_col[p] > b.tile_col[p - 1]);
                bits += __builtin_popcount(b.tile_mask[p]);
                for (int e = 0; e < 16; ++e)
                    tiles_ok = tiles_ok && ((b.tile_mask[p] >> e & 1u) || b.tile_val[16 * static_cast<std::size_t>(p) + e] == 0.0);
            }
        t.check(tiles_ok && bits == a.nnz(), "%s: mBSR tiles (sorted, masks = stored entries, zeros elsewhere)",
                m.name.c_str());
    }
    sparse::csr a = sparse::gen::random_rows(5, 9, 2, 4, 1);
    std::swap(a.col_idx[0], a.col_idx[1]);
    expect_error([&] { sparse::csr_to_mbsr(a); }, "not sorted", "csr_to_mbsr: unsorted columns");
}

}  // namespace

int main()
{
    dasp_format();
    mbsr_format();
    return t.finish();
}
