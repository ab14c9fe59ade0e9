// tests/host/test_bfs_slices.cu - the sliced adjacency bitmap of
// tcore/patterns/bitbfs.cuh and tcore/patterns/device/bfs.cuh without a GPU.
//
// Round trip graph -> slices -> CSR for random graphs, Kronecker and
// Mycielski graphs, sizes that are not multiples of 8 or 128, an empty graph
// and one with isolated vertices; only non-empty slices are stored, each
// slice's column block increases within its row block, the column index
// lists every slice once with its row block, top-down chunks cover each
// column block's slices in order with at most chunk_slices each; the
// device metadata (column block and 8-bit row mask per slice); the word
// layout the MMA relies on (word 4r + w = row r, columns 32w..32w+31);
// slicing limited to the columns below a bound (exactly those entries);
// the hub rule (leading column blocks with >= 8 entries per slice); the
// top-down thresholds and the heavy-row chunks; the
// hybrid BFS modelled on the CPU (slice products through the b1 MMA model,
// tcore::mma_emulated's bit form: AND + popcount per lane map, for the
// sliced columns, CSR for the rest; top-down and bottom-up steps; slices
// read top-down by the thresholds of ratio 1 and 0) equal to a CPU BFS for
// the hub rule's split, all, none and 200 columns sliced; the dense first
// column block and the row heads (first 4 neighbours >= a column, the
// degree and where the CSR scan resumes, packed in one word), checked
// against the CSR; bad input throws.
#include "common/test_util.hpp"

#include "examples/bfs/bfs_graphs.hpp"

#include <tcore/patterns/device/bfs.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using tcore::test::rng;
using tcore::test::tally;
namespace bf = tcore::examples::bfs;
namespace bb = tcore::bitbfs;

namespace {

void check_structure(tally& t, const bf::graph& g, const char* name)
{
    const bb::bit_slices s = bb::build_slices(g.n, g.row_ptr.data(), g.col.data(), 3);
    std::vector<long long> rp;
    std::vector<int> col;
    bb::slices_to_csr(s, rp, col);
    t.check(rp == g.row_ptr && col == g.col, "%s: round trip differs", name);
    t.check(s.row_blocks == (g.n + 7) / 8 && s.col_blocks == (g.n + 127) / 128, "%s: block counts", name);
    long long empty = 0, unordered = 0;
    for (int R = 0; R < s.row_blocks; ++R)
        for (long long k = s.row_ptr[R]; k < s.row_ptr[R + 1]; ++k) {
            unsigned any = 0;
            for (int w = 0; w < 32; ++w) any |= s.bits[k * 32 + w];
            empty += any == 0;
            unordered += k > s.row_ptr[R] && s.slice_col[k] <= s.slice_col[k - 1];
        }
    t.check(empty == 0 && unordered == 0, "%s: %lld empty slices, %lld out of order", name, empty, unordered);
    // Column index: every slice once, with its row block.
    std::vector<int> seen(static_cast<std::size_t>(s.slices()), 0);
    long long bad_col = 0;
    for (int C = 0; C < s.col_blocks; ++C)
        for (long long p = s.col_ptr[C]; p < s.col_ptr[C + 1]; ++p) {
            const int k = s.col_slice[p];
            ++seen[k];
            const int R = s.col_row[p];
            bad_col += s.slice_col[k] != C || k < s.row_ptr[R] || k >= s.row_ptr[R + 1];
        }
    t.check(bad_col == 0 && std::all_of(seen.begin(), seen.end(), [](int x) { return x == 1; }),
            "%s: column index wrong (%lld)", name, bad_col);
    // Chunks: cover [col_ptr[C], col_ptr[C+1]) in order, <= chunk_slices each.
    long long covered = 0, bad_chunk = 0;
    for (long long c = 0; c < s.chunks(); ++c) {
        const int C = s.chunk_col[c];
        bad_chunk += s.chunk_end[c] - s.chunk_begin[c] > bb::chunk_slices || s.chunk_end[c] <= s.chunk_begin[c] ||
                     s.chunk_begin[c] < s.col_ptr[C] || s.chunk_end[c] > s.col_ptr[C + 1] ||
                     (c > 0 && s.chunk_col[c - 1] == C && s.chunk_begin[c] != s.chunk_end[c - 1]);
        covered += s.chunk_end[c] - s.chunk_begin[c];
    }
    t.check(bad_chunk == 0 && covered == s.slices(), "%s: chunks wrong (%lld bad, %lld of %lld covered)", name,
            bad_chunk, covered, s.slices());
    // Device metadata: column block | row mask << 24.
    const std::vector<unsigned> meta = bb::slice_meta(s);
    long long bad_meta = 0;
    for (long long k = 0; k < s.slices(); ++k) {
        unsigned rows = 0;
        for (int r = 0; r < 8; ++r)
            for (int w = 0; w < 4; ++w)
                if (s.bits[k * 32 + 4 * r + w]) rows |= 1u << r;
        bad_meta += meta[k] != (static_cast<unsigned>(s.slice_col[k]) | (rows << 24)) || rows == 0;
    }
    t.check(bad_meta == 0, "%s: %lld slice metadata words wrong", name, bad_meta);
    // Random bit probes against the graph.
    rng r(tcore::test::seed() ^ static_cast<unsigned long long>(g.n));
    int bad_bit = 0;
    for (int i = 0; i < 2000 && g.n > 0; ++i) {
        const int u = static_cast<int>(r.next() % g.n), v = static_cast<int>(r.next() % g.n);
        const bool e = std::binary_search(g.col.begin() + g.row_ptr[u], g.col.begin() + g.row_ptr[u + 1], v);
        bad_bit += bb::slice_bit(s, u, v) != e;
    }
    t.check(bad_bit == 0, "%s: %d bit probes wrong", name, bad_bit);
}

/// One warp's slice_hits on the CPU: the b1 MMA through the shape's lane
/// maps (A bit (g, 32t + v) in lane 4g + t, B likewise), then rows with c0 > 0.
unsigned model_hits(const unsigned* slice, const unsigned* frontier4)
{
    unsigned hits = 0;
    for (int lane = 0; lane < 32; lane += 4) {  // lanes t = 0 hold D(g, 0)
        const int g = lane >> 2;
        int d = 0;
        for (int k = 0; k < 128; ++k) {
            const tcore::home ah = tcore::b1_m8n8k128::a_home(g, k), bh = tcore::b1_m8n8k128::b_home(k, 0);
            const unsigned a_reg = slice[ah.lane];           // lane L holds slice word L
            const unsigned b_reg = frontier4[bh.lane & 3];   // lane L holds frontier word L % 4
            d += ((a_reg >> ah.index) & 1u) & ((b_reg >> bh.index) & 1u);
        }
        if (d > 0) hits |= 1u << g;
    }
    return hits;
}

/// BFS by the hybrid steps on the CPU (model hits for the slices of the
/// columns below `columns`, CSR for the others), alternating directions by
/// depth parity, compared with cpu_bfs. Top-down: the chunks of the column
/// blocks with frontier bits at their top_down_thresholds (ratio), then the
/// CSR rows of the other frontier vertices; bottom-up: per unvisited row, the product of its row block's
/// slices, then its CSR neighbours >= columns.
void check_model_bfs(tally& t, const bf::graph& g, const char* name, int columns, double ratio)
{
    const bb::bit_slices s = bb::build_slices(g.n, g.row_ptr.data(), g.col.data(), 2, columns);
    const std::vector<int> threshold = bb::top_down_thresholds(s, g.row_ptr.data(), ratio);
    const std::size_t words = (static_cast<std::size_t>(g.n) + 127) / 128 * 4;
    auto bit = [](const std::vector<unsigned>& b, int v) { return (b[v >> 5] >> (v & 31)) & 1u; };
    for (int source : bf::pick_sources(g, 2, 11)) {
        std::vector<unsigned> visited(words, 0), frontier(words, 0), next(words, 0);
        std::vector<int> level(static_cast<std::size_t>(g.n), -1);
        visited[source >> 5] = frontier[source >> 5] = 1u << (source & 31);
        level[source] = 0;
        for (int depth = 0;; ++depth) {
            std::fill(next.begin(), next.end(), 0u);
            long long found = 0;
            auto claim = [&](int v) {
                if (v >= g.n || bit(visited, v)) return;
                visited[v >> 5] |= 1u << (v & 31);
                next[v >> 5] |= 1u << (v & 31);
                level[v] = depth + 1;
                ++found;
            };
            if (depth % 2 == 0) {  // top-down: chunks of blocks at their threshold, then CSR rows of the others
                auto multiplied = [&](int C) {
                    int bits = 0;
                    for (int w = 0; w < 4; ++w) bits += __builtin_popcount(frontier[4 * C + w]);
                    return bits > 0 && bits >= threshold[C];
                };
                for (long long c = 0; c < s.chunks(); ++c) {
                    const int C = s.chunk_col[c];
                    if (!multiplied(C)) continue;
                    for (long long p = s.chunk_begin[c]; p < s.chunk_end[c]; ++p) {
                        const unsigned hits = model_hits(&s.bits[static_cast<std::size_t>(s.col_slice[p]) * 32], &frontier[4 * C]);
                        for (int r = 0; r < 8; ++r)
                            if ((hits >> r) & 1u) claim(8 * s.col_row[p] + r);
                    }
                }
                for (int u = 0; u < g.n; ++u)
                    if (bit(frontier, u) && (u >= columns || !multiplied(u / 128)))
                        for (long long p = g.row_ptr[u]; p < g.row_ptr[u + 1]; ++p) claim(g.col[p]);
            } else {  // bottom-up: slices of the row block, then CSR neighbours >= columns
                std::vector<int> fresh;
                for (int R = 0; R < s.row_blocks; ++R) {
                    unsigned hits = 0;
                    for (long long k = s.row_ptr[R]; k < s.row_ptr[R + 1]; ++k)
                        hits |= model_hits(&s.bits[static_cast<std::size_t>(k) * 32], &frontier[4 * s.slice_col[k]]);
                    for (int r = 0; r < 8; ++r) {
                        const int v = 8 * R + r;
                        if (v >= g.n || bit(visited, v)) continue;
                        bool hit = (hits >> r) & 1u;
                        for (long long p = g.row_ptr[v]; p < g.row_ptr[v + 1] && !hit; ++p)
                            hit = g.col[p] >= columns && bit(frontier, g.col[p]);
                        if (hit) fresh.push_back(v);
                    }
                }
                for (int v : fresh) claim(v);
            }
            if (found == 0) break;
            std::swap(frontier, next);
        }
        t.check(level == bf::cpu_bfs(g, source),
                "%s: model BFS (%d columns sliced, top-down ratio %g) from %d differs from the CPU BFS", name, columns,
                ratio, source);
    }
}

/// The model BFS with the hub rule's split, every column, none, and an odd split.
void check_model_splits(tally& t, const bf::graph& g, const char* name)
{
    const int hubs = bb::hub_columns(g.n, g.row_ptr.data(), g.col.data());
    for (int columns : {hubs, g.n, 0, std::min(g.n, 200)})
        for (double ratio : {1.0, 0.0}) check_model_bfs(t, g, name, columns, ratio);
}

/// Columns up to the first column block with no entries (the hub rule's
/// answer for a vanishing threshold), at most n.
int hub_nonzero_prefix(const bf::graph& g)
{
    int C = 0;
    for (; 128 * C < g.n; ++C) {
        long long e = 0;
        for (int u = 128 * C; u < std::min(g.n, 128 * C + 128); ++u) e += g.degree(u);
        if (e == 0) break;
    }
    return std::min(g.n, 128 * C);
}

/// Limited slicing: exactly the entries with column < columns, every row block.
void check_limited(tally& t, const bf::graph& g, const char* name, int columns)
{
    const bb::bit_slices s = bb::build_slices(g.n, g.row_ptr.data(), g.col.data(), 2, columns);
    std::vector<long long> rp;
    std::vector<int> col;
    bb::slices_to_csr(s, rp, col);
    std::vector<long long> want_rp(1, 0);
    std::vector<int> want_col;
    for (int v = 0; v < g.n; ++v) {
        for (long long p = g.row_ptr[v]; p < g.row_ptr[v + 1]; ++p)
            if (g.col[p] < columns) want_col.push_back(g.col[p]);
        want_rp.push_back(static_cast<long long>(want_col.size()));
    }
    t.check(rp == want_rp && col == want_col && s.columns == columns && s.row_blocks == (g.n + 7) / 8 &&
                s.col_blocks == (columns + 127) / 128,
            "%s: slicing of columns < %d wrong", name, columns);
}

/// first_block_bits: row block R's 32 words at 32 R hold exactly the
/// edges (v, u) with u < min(128, columns), in the slice word layout (word
/// 4r + w, bit b for column 32w + b); empty when nothing is sliced.
void check_first_block(tally& t, const bf::graph& g, const char* name, int columns)
{
    const bb::bit_slices s = bb::build_slices(g.n, g.row_ptr.data(), g.col.data(), 2, columns);
    const std::vector<unsigned> dense = bb::first_block_bits(s);
    if (columns == 0) {
        t.check(dense.empty(), "%s: first block of an unsliced graph not empty", name);
        return;
    }
    if (!t.check(dense.size() == static_cast<std::size_t>(s.row_blocks) * 32, "%s: first block has %zu words", name,
                 dense.size()))
        return;
    std::vector<unsigned> want(dense.size(), 0u);
    for (int v = 0; v < g.n; ++v)
        for (long long p = g.row_ptr[v]; p < g.row_ptr[v + 1]; ++p) {
            const int u = g.col[p];
            if (u < std::min(128, columns)) want[32 * (v / 8) + 4 * (v % 8) + u / 32] |= 1u << (u % 32);
        }
    long long bad = 0;
    for (std::size_t i = 0; i < dense.size(); ++i) bad += dense[i] != want[i];
    t.check(bad == 0, "%s: %lld words of the first block (columns < %d) wrong", name, bad, columns);
}

/// build_row_heads: vertex v's heads are its first 4 neighbours >= min_col
/// in order (-1 after the last); its info word holds its degree and
/// `after`, the offset of the next one.
void check_row_heads(tally& t, const bf::graph& g, const char* name, int min_col)
{
    const bb::row_heads h = bb::build_row_heads(g.n, g.row_ptr.data(), g.col.data(), min_col);
    if (!t.check(h.cols.size() == 4 * static_cast<std::size_t>(g.n) && h.info.size() == static_cast<std::size_t>(g.n),
                 "%s: row heads sized %zu / %zu", name, h.cols.size(), h.info.size()))
        return;
    long long bad = 0;
    for (int v = 0; v < g.n; ++v) {
        int want[4] = {-1, -1, -1, -1}, k = 0;
        long long next = g.row_ptr[v + 1] - g.row_ptr[v];
        for (long long p = g.row_ptr[v]; p < g.row_ptr[v + 1]; ++p) {
            if (g.col[p] < min_col) continue;
            if (k == 4) {
                next = p - g.row_ptr[v];
                break;
            }
            want[k++] = g.col[p];
        }
        for (int j = 0; j < 4; ++j) bad += h.cols[4 * static_cast<std::size_t>(v) + j] != want[j];
        bad += bb::row_info_after(h.info[v]) != next;
        bad += bb::row_info_degree(h.info[v]) != g.row_ptr[v + 1] - g.row_ptr[v];
    }
    t.check(bad == 0, "%s: %lld row-head values wrong (min_col %d)", name, bad, min_col);
}

}  // namespace

int main()
{
    tally t;
    rng r(tcore::test::seed());
    for (int n : {1, 7, 8, 9, 127, 128, 129, 300, 1000, 4099}) {
        std::vector<int> s, d;
        const int m = n * 5;
        for (int i = 0; i < m && n > 1; ++i) s.push_back(static_cast<int>(r.next() % n)), d.push_back(static_cast<int>(r.next() % n));
        const bf::graph g = bf::from_edges(n, s, d);
        char name[32];
        std::snprintf(name, sizeof name, "random n=%d", n);
        check_structure(t, g, name);
        if (n >= 100) check_model_splits(t, g, name);
        check_limited(t, g, name, n / 3);
        for (int columns : {0, n / 3, n}) check_first_block(t, g, name, columns);
        const int top = static_cast<int>(bb::row_info_max_after) - bb::head_entries;  // the largest min_col
        for (int min_col : {0, std::min(n / 3, top), std::min(n, 128), std::min(n, top)})
            check_row_heads(t, g, name, min_col);
    }
    {
        std::vector<int> s, d;
        const bf::graph empty = bf::from_edges(0, s, d);
        const bb::bit_slices sl = bb::build_slices(0, empty.row_ptr.data(), nullptr);
        t.check(sl.slices() == 0 && sl.row_blocks == 0 && sl.chunks() == 0, "empty graph");
    }
    const bf::graph k = bf::kronecker(12, 16, 5);
    check_structure(t, k, "kronecker 12");
    check_model_splits(t, k, "kronecker 12");
    const bf::graph kd = bf::relabel(k, bf::degree_order(k));
    check_structure(t, kd, "kronecker 12 degree-ordered");
    check_model_splits(t, kd, "kronecker 12 degree-ordered");
    check_limited(t, kd, "kronecker 12 degree-ordered", 1000);
    check_first_block(t, kd, "kronecker 12 degree-ordered", bb::hub_columns(kd.n, kd.row_ptr.data(), kd.col.data()));
    check_row_heads(t, kd, "kronecker 12 degree-ordered", 128);
    {
        // Hub rule: degree order puts dense column blocks first; every chosen
        // block holds >= 8 entries per slice, the first one refused fewer.
        const int hubs = bb::hub_columns(kd.n, kd.row_ptr.data(), kd.col.data());
        const bb::bit_slices hs = bb::build_slices(kd.n, kd.row_ptr.data(), kd.col.data(), 2, hubs);
        long long entries = 0;
        for (int u = 0; u < hubs; ++u) entries += kd.degree(u);
        std::printf("kronecker 12 degree-ordered: hub columns %d, %lld slices, %.2f entries each\n", hubs, hs.slices(),
                    static_cast<double>(entries) / std::max(1ll, hs.slices()));
        t.check(hubs > 0 && hubs % 128 == 0 && hubs < kd.n && entries >= 8 * hs.slices(), "hub rule on kronecker 12: %d columns",
                hubs);
        t.check(bb::hub_columns(kd.n, kd.row_ptr.data(), kd.col.data(), 1e9) == 0 &&
                    bb::hub_columns(kd.n, kd.row_ptr.data(), kd.col.data(), 1e-9) == hub_nonzero_prefix(kd),
                "hub rule extremes");
    }
    const bf::graph my = bf::mycielski(9);
    check_structure(t, my, "mycielski 9");
    check_model_splits(t, my, "mycielski 9");

    // Word layout: vertex 8R + r, neighbour 128C + 32w + b -> word 4r + w, bit b of slice (R, C).
    std::vector<int> s = {10}, d = {200};  // 10 = 8*1 + 2; 200 = 128*1 + 32*2 + 8
    const bf::graph one = bf::from_edges(256, s, d);
    const bb::bit_slices sl = bb::build_slices(one.n, one.row_ptr.data(), one.col.data());
    const long long k10 = sl.row_ptr[1];
    t.check(sl.row_ptr[2] - k10 == 1 && sl.slice_col[k10] == 1 && sl.bits[k10 * 32 + 4 * 2 + 2] == (1u << 8),
            "word layout of slice (1, 1)");

    const std::vector<long long> rp = {0, 1};
    const std::vector<int> c = {5};
    t.expect_error("an out-of-range neighbour", [&] { bb::build_slices(1, rp.data(), c.data()); }, "out of range");
    t.expect_error("a column limit above n", [&] { bb::build_slices(one.n, one.row_ptr.data(), one.col.data(), 1, one.n + 1); },
                   "column limit");
    t.expect_error("hub_columns: null row pointers", [&] { bb::hub_columns(4, nullptr, nullptr); }, "bad CSR");
    t.expect_error("hub_columns: density 0", [&] { bb::hub_columns(one.n, one.row_ptr.data(), one.col.data(), 0.0); },
                   "positive");
    t.expect_error("hub_columns: an out-of-range neighbour", [&] { bb::hub_columns(1, rp.data(), c.data()); }, "out of range");
    t.expect_error("top_down_thresholds: ratio -1", [&] { bb::top_down_thresholds(sl, one.row_ptr.data(), -1.0); },
                   "non-negative");
    t.expect_error("top_down_thresholds: null row pointers", [&] { bb::top_down_thresholds(sl, nullptr); }, "null");
    t.expect_error("split_heavy_rows: null row pointers", [&] { bb::split_heavy_rows(4, nullptr); }, "bad CSR");
    t.expect_error("check_rule: beta 0", [&] { bb::check_rule({14.0, 0.0}, "test"); }, "beta > 0");
    t.expect_error("check_rule: alpha -1", [&] { bb::check_rule({-1.0, 24.0}, "test"); }, "alpha must be >= 0");
    t.expect_error("check_rule: NaN beta", [&] { bb::check_rule({14.0, std::nan("")}, "test"); }, "beta > 0");
    {
        // The direction rule and what it reads. A graph of n = 1000 vertices,
        // 600 with edges, 4000 entries; source of degree 10.
        bb::frontier_sizes z(10, 4000, 600);
        t.check(z.n_f == 1 && z.m_f == 10 && z.m_u == 3990 && z.n_u == 599, "frontier_sizes at the source: n_u %lld",
                z.n_u);
        z.advance(300, 3000);  // 300 new vertices, 3000 entries
        z.advance(30, 200);    // then 30 (shrinking), 200 entries
        t.check(z.n_f == 30 && z.n_f_before == 300 && z.m_f == 200 && z.m_u == 790 && z.n_u == 269,
                "frontier_sizes after two levels: n_f %lld, m_u %lld, n_u %lld", z.n_f, z.m_u, z.n_u);
        const bb::direction_rule beamer{14, 24}, unvisited{14, 24, true};
        // 30 < 1000 / 24: Beamer's rule goes back to top-down; 30 >= 269 / 24: the other stays bottom-up
        t.check(!z.bottom_up(beamer, true, 1000) && z.bottom_up(unvisited, true, 1000),
                "back to top-down: n / beta and n_u / beta");
        z.advance(5, 20);  // 5 < 264 / 24: both go back
        t.check(!z.bottom_up(beamer, true, 1000) && !z.bottom_up(unvisited, true, 1000), "back to top-down: both");
        // top-down -> bottom-up is alike for both: m_f 20 against m_u 770 / 14 = 55
        t.check(!z.bottom_up(beamer, false, 1000) && !z.bottom_up(unvisited, false, 1000), "top-down stays");
        z.advance(40, 200);  // m_f 200 > 570 / 14
        t.check(z.bottom_up(beamer, false, 1000) && z.bottom_up(unvisited, false, 1000), "top-down -> bottom-up");
        // a growing frontier stays bottom-up under both, however small
        t.check(z.bottom_up(beamer, true, 1000) && z.bottom_up(unvisited, true, 1000), "growing frontier stays");
        bb::check_rule(unvisited, "test");  // accepted
    }
    t.expect_error("build_row_heads: min_col above n",
                   [&] { bb::build_row_heads(one.n, one.row_ptr.data(), one.col.data(), one.n + 1); }, "min_col");
    {
        const std::vector<long long> empty(301, 0);  // 300 vertices without edges
        t.expect_error("build_row_heads: min_col past the 8-bit resume offset",
                       [&] { bb::build_row_heads(300, empty.data(), nullptr, 252); }, "resume offset");
        const std::vector<long long> big = {0, bb::row_info_max_degree, 2 * bb::row_info_max_degree + 1};
        t.check(bb::rows_fit_row_info(1, big.data()) && !bb::rows_fit_row_info(2, big.data()),
                "rows_fit_row_info: degree 2^24 - 1 fits, 2^24 does not");
        t.expect_error("rows_fit_row_info: null row pointers", [&] { bb::rows_fit_row_info(4, nullptr); }, "row_ptr non-null");
    }
    t.expect_error("build_row_heads: null columns", [&] { bb::build_row_heads(one.n, one.row_ptr.data(), nullptr, 0); },
                   "null column");
    {
        const std::vector<long long> falling = {0, 1, 0};
        const std::vector<int> c2 = {1};
        t.expect_error("build_row_heads: row pointers that fall",
                       [&] { bb::build_row_heads(2, falling.data(), c2.data(), 0); },
                       "bad row pointers at vertex 1");
    }
    {
        bb::bit_slices broken = sl;
        broken.bits.pop_back();
        t.expect_error("first_block_bits: slices missing a word", [&] { bb::first_block_bits(broken); }, "malformed");
    }
    {
        // Thresholds: ratio 0 -> 1 bit; ratio 1 -> ceil(32 slices cols / entries) (Kronecker hubs: > 128).
        const bb::bit_slices ks = bb::build_slices(kd.n, kd.row_ptr.data(), kd.col.data(), 2,
                                                   bb::hub_columns(kd.n, kd.row_ptr.data(), kd.col.data()));
        const std::vector<int> t0 = bb::top_down_thresholds(ks, kd.row_ptr.data(), 0.0);
        const std::vector<int> t1 = bb::top_down_thresholds(ks, kd.row_ptr.data(), 1.0);
        long long bad = 0;
        for (int C = 0; C < ks.col_blocks; ++C) {
            long long e = 0;
            for (int u = 128 * C; u < std::min(ks.columns, 128 * C + 128); ++u) e += kd.degree(u);
            const long long sl = ks.col_ptr[C + 1] - ks.col_ptr[C];
            const long long want = std::max(1ll, (32 * sl * std::min(128, ks.columns - 128 * C) + e - 1) / e);
            bad += t0[C] != 1 || t1[C] != want;
        }
        std::printf("kronecker 12 degree-ordered: top-down MMA from %d frontier bits in block 0\n", t1[0]);
        t.check(bad == 0, "top-down thresholds: %lld wrong", bad);
        const bb::heavy_rows h = bb::split_heavy_rows(kd.n, kd.row_ptr.data());
        long long covered = 0, bad_rows = 0;
        for (std::size_t k = 0; k < h.vertex.size(); ++k) {
            const int v = h.vertex[k];
            covered += h.end[k] - h.begin[k];
            bad_rows += kd.degree(v) <= bb::heavy_degree || h.end[k] - h.begin[k] > bb::heavy_chunk ||
                        h.begin[k] < kd.row_ptr[v] || h.end[k] > kd.row_ptr[v + 1] ||
                        (k > 0 && h.vertex[k - 1] == v && h.begin[k] != h.end[k - 1]);
        }
        long long heavy_entries = 0;
        for (int v = 0; v < kd.n; ++v)
            if (kd.degree(v) > bb::heavy_degree) heavy_entries += kd.degree(v);
        t.check(bad_rows == 0 && covered == heavy_entries && !h.vertex.empty(), "heavy rows: %lld bad chunks, %lld of %lld entries",
                bad_rows, covered, heavy_entries);
    }
    return t.finish();
}
