// tests/host/test_bfs_graphs.cu - the BFS workload's graph families and
// source choice beside Kronecker (examples/bfs/bfs_graphs.hpp) without a
// GPU: uniform_random (2^scale vertices, at most 2 edge_factor 2^scale
// entries, symmetric and simple, deterministic for a seed, different for
// another, no vertex far above the mean degree), R-MAT with a milder skew
// (kronecker() with A = 0.45, B = C = 0.15: a lower top degree than the
// Graph500 parameters), components (labels agree with BFS reachability,
// the largest is the biggest), pick_component_sources (distinct, all in the
// largest component, deterministic), cpu_bfs_all (equal to cpu_bfs per
// source), traversed_edges (the same for every source of one component),
// degree_order (a permutation by decreasing degree, ties by increasing id).
#include "common/test_util.hpp"

#include "examples/bfs/bfs_graphs.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

using tcore::test::tally;
namespace bf = tcore::examples::bfs;

namespace {

bool valid(const bf::graph& g) { return tcore::test::no_error([&] { bf::validate(g, "test"); }); }

int max_degree(const bf::graph& g)
{
    int m = 0;
    for (int v = 0; v < g.n; ++v) m = std::max(m, g.degree(v));
    return m;
}

void check_components(tally& t, const bf::graph& g, const char* name)
{
    int largest = -1;
    const std::vector<int> label = bf::components(g, largest);
    t.check(static_cast<int>(label.size()) == g.n && (g.n == 0 || largest >= 0), "%s: component labels", name);
    if (g.n == 0) return;
    // Labels agree with reachability from a few vertices.
    int bad = 0;
    for (int s : {0, g.n / 3, g.n - 1}) {
        const std::vector<int> lv = bf::cpu_bfs(g, s);
        for (int v = 0; v < g.n; ++v) bad += (lv[v] >= 0) != (label[v] == label[s]);
    }
    t.check(bad == 0, "%s: %d labels disagree with BFS reachability", name, bad);
    std::vector<int> size(static_cast<std::size_t>(*std::max_element(label.begin(), label.end())) + 1, 0);
    for (int l : label) ++size[static_cast<std::size_t>(l)];
    t.check(size[static_cast<std::size_t>(largest)] == *std::max_element(size.begin(), size.end()),
            "%s: component %d is not the largest", name, largest);

    const std::vector<int> src = bf::pick_component_sources(g, 16, 0x5eed);
    const int want = std::min(16, size[static_cast<std::size_t>(largest)]);
    std::vector<int> sorted = src;
    std::sort(sorted.begin(), sorted.end());
    t.check(static_cast<int>(src.size()) == want && std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
            "%s: %zu sources (expected %d distinct)", name, src.size(), want);
    int outside = 0;
    for (int s : src) outside += label[s] != largest;
    t.check(outside == 0, "%s: %d sources outside the largest component", name, outside);
    t.check(bf::pick_component_sources(g, 16, 0x5eed) == src, "%s: sources not deterministic", name);

    const std::vector<std::vector<int>> all = bf::cpu_bfs_all(g, src);
    int differ = 0, edges_differ = 0;
    for (std::size_t i = 0; i < src.size(); ++i) {
        differ += all[i] != bf::cpu_bfs(g, src[i]);
        edges_differ += bf::traversed_edges(g, all[i]) != bf::traversed_edges(g, all[0]);
    }
    t.check(differ == 0 && edges_differ == 0, "%s: cpu_bfs_all differs for %d sources, edge counts for %d", name, differ,
            edges_differ);
}

}  // namespace

int main()
{
    tally t;
    for (int scale : {4, 10, 14}) {
        const bf::graph g = bf::uniform_random(scale, 8, 11);
        char name[48];
        std::snprintf(name, sizeof name, "uniform random %d", scale);
        t.check(g.n == (1 << scale) && g.entries() <= 2ll * 8 * (1 << scale) && g.entries() > 0, "%s: size", name);
        t.check(valid(g), "%s: not symmetric and simple", name);
        t.check(bf::uniform_random(scale, 8, 11).col == g.col, "%s: not deterministic", name);
        t.check(bf::uniform_random(scale, 8, 12).col != g.col, "%s: another seed gives the same graph", name);
        if (scale == 14) {
            // Mean degree about 16; a binomial tail beyond 4x the mean is out of reach.
            t.check(max_degree(g) < 64, "%s: top degree %d, expected no hubs", name, max_degree(g));
            check_components(t, g, name);
        }
    }
    {
        const bf::graph graph500 = bf::kronecker(14, 16, 3);
        const bf::graph mild = bf::kronecker(14, 16, 3, 0.45, 0.15, 0.15);
        t.check(valid(mild), "rmat 14: not symmetric and simple");
        t.check(max_degree(mild) < max_degree(graph500), "rmat 14 (0.45, 0.15, 0.15): top degree %d, Graph500's %d",
                max_degree(mild), max_degree(graph500));
        std::printf("  top degree at scale 14: Graph500 parameters %d, R-MAT 0.45/0.15/0.15 %d\n", max_degree(graph500),
                    max_degree(mild));
        check_components(t, graph500, "kronecker 14");
        check_components(t, bf::relabel(mild, bf::degree_order(mild)), "rmat 14 degree-ordered");
        // degree_order: a permutation, degrees never rising, ties by increasing id.
        const std::vector<int> order = bf::degree_order(graph500);
        std::vector<char> listed(static_cast<std::size_t>(graph500.n), 0);
        int repeated = 0, out_of_order = 0;
        for (std::size_t i = 0; i < order.size(); ++i) {
            repeated += listed[static_cast<std::size_t>(order[i])]++ != 0;
            if (i == 0) continue;
            const int d0 = graph500.degree(order[i - 1]), d1 = graph500.degree(order[i]);
            out_of_order += d1 > d0 || (d1 == d0 && order[i] < order[i - 1]);
        }
        t.check(static_cast<int>(order.size()) == graph500.n && repeated == 0,
                "kronecker 14: degree_order lists %d vertices twice", repeated);
        t.check(out_of_order == 0, "kronecker 14: degree_order out of order at %d places", out_of_order);
    }
    {
        // Two components and isolated vertices: sources only in the bigger one.
        std::vector<int> s, d;
        for (int i = 0; i < 40; ++i) s.push_back(i), d.push_back(i + 1);        // path 0..40
        for (int i = 50; i < 59; ++i) s.push_back(i), d.push_back(i + 1);       // path 50..59
        const bf::graph g = bf::from_edges(70, s, d);                           // 60..69 isolated
        check_components(t, g, "two paths + isolated");
        std::vector<int> none_s, none_d;
        check_components(t, bf::from_edges(5, none_s, none_d), "isolated only");
    }
    return t.finish();
}
