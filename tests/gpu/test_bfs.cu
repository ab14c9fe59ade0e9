// tests/gpu/test_bfs.cu - the BFS variants against the CPU BFS: tc
// (tcore::bitbfs::bit_bfs, tcore/patterns/device/bfs_search.cuh: bitmap BFS
// on the 1-bit MMA), cc (the same on the cuda_core backend), base
// (examples/bfs/bfs_base.cuh: direction-optimizing CSR BFS with
// degree-binned top-down and bitmap bottom-up) and base-old
// (examples/bfs/bfs_edge_scan.cuh: the earlier edge-parallel CSR BFS).
//
// tc and cc run with several hybrid splits (the hub rule's columns, all
// columns, 200 columns, none sliced), base and base-old once.
// Graphs: Kronecker (scales 10 and 14, the latter degree-ordered), R-MAT
// with a milder skew (scale 11), uniform random (scale 11),
// Mycielski (orders 8 and 12), a path (many levels), a star, a complete
// graph, two components plus isolated vertices, a random graph with n not a
// multiple of 8 or 128, jagmesh7 (tests/data/matrices; reported SKIPPED if
// missing). Every variant
// runs with the default direction rule and forced top-down only and
// bottom-up only, from several sources; the level of every vertex must equal
// the CPU BFS's; the reported reach and level count must agree with it;
// for tc, cc and base, the first source's traced levels must have the CPU
// BFS's frontier size, new vertices and their degree sum (the direction
// rule's inputs, which wrong levels would not reveal).
// Bad sources throw tcore::error whose message names the problem.
// TCORE_TEST_QUICK=1 (or 2) drops the larger graphs. No floating point: the
// levels must match exactly.
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): perturb (one
// vertex's level off by one), zero_checks, device_error.
#include "common/test_util.hpp"

#include "examples/bfs/bfs_graphs.hpp"
#include "examples/bfs/bfs_base.cuh"
#include "examples/bfs/bfs_edge_scan.cuh"

#include <tcore/tcore.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using tcore::test::tally;
namespace bf = tcore::examples::bfs;
namespace bb = tcore::bitbfs;

namespace {

const bool quick = tcore::test::quick();

struct named_rule {
    const char* name;
    bb::direction_rule rule;
};

/// Drivers that record per-level traces (tc, cc and base; not base-old).
template <class D, class = void>
struct traces_levels : std::false_type {};
template <class D>
struct traces_levels<D, std::void_t<decltype(std::declval<D&>().level_traces())>> : std::true_type {};

/// A traced run's per-level tallies against the CPU BFS's levels `ref`:
/// level k's frontier (vertices at depth k), new vertices (depth k + 1)
/// and their degree sum, which the direction rule reads.
void check_level_tallies(tally& t, const std::vector<bb::level_trace>& tr, const bf::graph& g,
                         const std::vector<int>& ref, const char* gname, const char* vname, const char* rname)
{
    const int depth = *std::max_element(ref.begin(), ref.end());
    std::vector<long long> count(static_cast<std::size_t>(depth) + 2, 0), degrees(count.size(), 0);
    for (int v = 0; v < g.n; ++v)
        if (ref[v] >= 0) count[ref[v]] += 1, degrees[ref[v]] += g.degree(v);
    long long bad = 0, first = -1;
    for (std::size_t k = 0; k < tr.size(); ++k)
        if (tr[k].frontier != count[k] || tr[k].found != count[k + 1] || tr[k].degrees != degrees[k + 1]) {
            if (first < 0) first = static_cast<long long>(k);
            ++bad;
        }
    t.check(tr.size() == std::min<std::size_t>(64, static_cast<std::size_t>(depth) + 1) && bad == 0,
            "%s %s (%s): %zu traced levels (expected %d), %lld with wrong tallies (first: level %lld)", gname, vname,
            rname, tr.size(), depth + 1, bad, first);
}

template <class Driver>
void check_driver(tally& t, Driver& d, const bf::graph& g, const char* gname, const char* vname,
                  const std::vector<int>& sources, const std::vector<std::vector<int>>& refs)
{
    const named_rule rules[] = {{"Beamer", {}},
                                {"Beamer, beta of the unvisited", {14.0, 24.0, true}},
                                {"top-down only", {0.0, 24.0}},
                                {"bottom-up only", {1e300, 1e300}}};
    for (const named_rule& nr : rules) {
        d.set_rule(nr.rule);
        for (std::size_t i = 0; i < sources.size(); ++i) {
            if constexpr (traces_levels<Driver>::value) d.set_trace(i == 0 ? 64 : 0);
            const bb::bfs_stats st = d.run(sources[i]);
            TCORE_CHECK(cudaDeviceSynchronize());
            if constexpr (traces_levels<Driver>::value)
                if (i == 0) check_level_tallies(t, d.level_traces(), g, refs[i], gname, vname, nr.name);
            std::vector<int> got = d.levels();
            if (g.n > 0 && tcore::test::planted("perturb")) got[static_cast<std::size_t>(sources[i])] += 1;
            const std::vector<int>& ref = refs[i];
            long long bad = 0, first = -1;
            for (int v = 0; v < g.n; ++v)
                if (got[v] != ref[v]) {
                    if (first < 0) first = v;
                    ++bad;
                }
            const long long reached = std::count_if(ref.begin(), ref.end(), [](int l) { return l >= 0; });
            const int depth = *std::max_element(ref.begin(), ref.end());
            t.check(bad == 0, "%s %s (%s) from %d: %lld levels wrong (first vertex %lld: %d, expected %d)", gname,
                    vname, nr.name, sources[i], bad, first, first >= 0 ? got[first] : 0, first >= 0 ? ref[first] : 0);
            t.check(st.reached == reached && st.levels == depth + 1, "%s %s (%s) from %d: reached %lld / %d levels, expected %lld / %d",
                    gname, vname, nr.name, sources[i], st.reached, st.levels, reached, depth + 1);
            if (nr.rule.alpha == 0.0)
                t.check(st.directions.find('B') == std::string::npos, "%s %s: bottom-up step under a top-down-only rule", gname, vname);
            // An isolated source has no frontier edges (m_f = 0): its one step is top-down under any rule.
            if (nr.rule.alpha > 1e200 && g.degree(sources[i]) > 0)
                t.check(st.directions.find('T') == std::string::npos, "%s %s: top-down step under a bottom-up-only rule", gname, vname);
            if (i == 0 && nr.rule.alpha == 14)
                std::printf("  %-28s %-32s from %-7d %2d levels, %lld reached, steps %s\n", gname, vname, sources[i],
                            st.levels, st.reached, st.directions.c_str());
        }
    }
}

void check_graph(tally& t, const bf::graph& g, const char* name, int n_sources = 3, int extra_source = -1)
{
    std::vector<int> sources = bf::pick_sources(g, n_sources, 0x5eed);
    if (sources.empty()) sources.push_back(0);
    if (extra_source >= 0) sources.push_back(extra_source);
    std::vector<std::vector<int>> refs;
    for (int s : sources) refs.push_back(bf::cpu_bfs(g, s));
    // Hybrid splits: the hub rule's, every column sliced (MMA only), an odd
    // split (partial hub column block, not a multiple of 32), none (CSR
    // only); top-down through the slices where they cost no more bytes than
    // CSR (ratio 1) and whenever a column block has a frontier bit (ratio 0);
    // bottom-up through the dense first column block (the default) and
    // through every row block's slice list; with and without row heads.
    const int hubs = bb::hub_columns(g.n, g.row_ptr.data(), g.col.data());
    const struct {
        const char* name;
        int columns;
        bool cc;
    } splits[] = {{"hub rule", hubs, true}, {"all sliced", g.n, true}, {"200 sliced", std::min(g.n, 200), false},
                  {"none sliced", 0, false}};
    for (const auto& sp : splits) {
        const bb::bit_slices sl = bb::build_slices(g.n, g.row_ptr.data(), g.col.data(), 0, sp.columns);
        for (double ratio : {1.0, 0.0}) {
            if (sp.columns == 0 && ratio == 0.0) continue;
            const std::string suffix = std::string(", ") + sp.name + (ratio == 0.0 ? ", MMA top-down" : "");
            const std::string tc_name = "tc" + suffix, cc_name = "cc" + suffix;
            {
                bb::bit_bfs<tcore::tensor_core> tc(g.n, g.row_ptr.data(), g.col.data(), sl, ratio);
                check_driver(t, tc, g, name, tc_name.c_str(), sources, refs);
            }
            if (sp.cc) {
                bb::bit_bfs<tcore::cuda_core> cc(g.n, g.row_ptr.data(), g.col.data(), sl, ratio);
                check_driver(t, cc, g, name, cc_name.c_str(), sources, refs);
            }
            if (ratio == 1.0) {  // bottom-up without row heads: row bounds, then CSR
                const std::string no_heads = tc_name + ", no row heads";
                bb::bit_bfs<tcore::tensor_core> tc(g.n, g.row_ptr.data(), g.col.data(), sl, ratio, true, false);
                check_driver(t, tc, g, name, no_heads.c_str(), sources, refs);
            }
            if (sp.columns > 0 && ratio == 1.0) {  // bottom-up through every row block's slice list
                const std::string lists = tc_name + ", slice lists";
                bb::bit_bfs<tcore::tensor_core> tc(g.n, g.row_ptr.data(), g.col.data(), sl, ratio, false);
                check_driver(t, tc, g, name, lists.c_str(), sources, refs);
                if (sp.cc) {
                    const std::string cc_lists = cc_name + ", slice lists";
                    bb::bit_bfs<tcore::cuda_core> cc(g.n, g.row_ptr.data(), g.col.data(), sl, ratio, false);
                    check_driver(t, cc, g, name, cc_lists.c_str(), sources, refs);
                }
            }
        }
    }
    std::printf("  %-28s hub columns %d of %d\n", name, hubs, g.n);
    {
        bf::csr_bfs base(g);
        check_driver(t, base, g, name, "base", sources, refs);
    }
    {
        bf::edge_scan_bfs old(g);
        check_driver(t, old, g, name, "base-old", sources, refs);
    }
}

bf::graph edges_graph(int n, const std::vector<std::pair<int, int>>& e)
{
    std::vector<int> s, d;
    for (auto [a, b] : e) s.push_back(a), d.push_back(b);
    return bf::from_edges(n, s, d);
}

}  // namespace

int main()
{
    tcore::test::require_gpu_or_skip();
    tally t;
    {
        std::vector<std::pair<int, int>> e;
        for (int i = 0; i + 1 < 300; ++i) e.push_back({i, i + 1});
        check_graph(t, edges_graph(300, e), "path 300", 2);
    }
    {
        std::vector<std::pair<int, int>> e;
        for (int i = 1; i < 3000; ++i) e.push_back({0, i});
        check_graph(t, edges_graph(3001, e), "star 3000 (+1 isolated)");
    }
    {
        std::vector<std::pair<int, int>> e;
        for (int i = 0; i < 300; ++i)
            for (int j = i + 1; j < 300; ++j) e.push_back({i, j});
        check_graph(t, edges_graph(300, e), "complete 300");
    }
    {
        std::vector<std::pair<int, int>> e;
        tcore::test::rng r(7);
        for (int i = 0; i < 4000; ++i) e.push_back({static_cast<int>(r.next() % 500), static_cast<int>(r.next() % 500)});
        for (int i = 0; i < 4000; ++i)
            e.push_back({600 + static_cast<int>(r.next() % 700), 600 + static_cast<int>(r.next() % 700)});
        check_graph(t, edges_graph(1333, e), "two components + isolated", 4, 550);  // 550: isolated source
    }
    {
        std::vector<std::pair<int, int>> e;
        tcore::test::rng r(9);
        for (int i = 0; i < 6000; ++i) e.push_back({static_cast<int>(r.next() % 2999), static_cast<int>(r.next() % 2999)});
        check_graph(t, edges_graph(2999, e), "random n=2999");
    }
    check_graph(t, bf::kronecker(10, 16, 3), "kronecker 10");
    check_graph(t, bf::kronecker(11, 16, 5, 0.45, 0.15, 0.15), "rmat 11 (0.45, 0.15, 0.15)");
    check_graph(t, bf::uniform_random(11, 8, 6), "uniform random 11");
    check_graph(t, bf::mycielski(8), "mycielski 8");
    if (!quick) {
        const bf::graph k = bf::kronecker(14, 16, 4);
        check_graph(t, bf::relabel(k, bf::degree_order(k)), "kronecker 14 degree-ordered", 4);
        check_graph(t, bf::mycielski(12), "mycielski 12");
        const std::string mtx = tcore::test::shipped_matrix("jagmesh7");
        if (!mtx.empty()) check_graph(t, bf::from_matrix_market(mtx.c_str()), "jagmesh7");
        else t.skip("matrix jagmesh7 not found (tests/data/matrices)");
    }
    // Bad arguments.
    {
        const bf::graph g = bf::mycielski(5);
        const bb::bit_slices sl = bb::build_slices(g.n, g.row_ptr.data(), g.col.data());
        bb::bit_bfs<tcore::tensor_core> tc(g.n, g.row_ptr.data(), g.col.data(), sl);
        bf::csr_bfs base(g);
        t.expect_error("source -1 (tc)", [&] { tc.run(-1); }, "out of range");
        t.expect_error("source n (tc)", [&] { tc.run(g.n); }, "out of range");
        t.expect_error("source n + 5 (base)", [&] { base.run(g.n + 5); }, "out of range");
        bf::edge_scan_bfs old(g);
        t.expect_error("source -3 (base-old)", [&] { old.run(-3); }, "out of range");
        const bf::graph other = bf::mycielski(6);
        t.expect_error("slices of another graph", [&] { bb::bit_bfs<tcore::tensor_core> bad(other.n, other.row_ptr.data(), other.col.data(), sl); }, "vertex count");
    }
    return t.finish();
}
