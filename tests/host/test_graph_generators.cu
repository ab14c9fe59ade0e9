// tests/host/test_graph_generators.cu - the BFS workload's graphs
// (examples/bfs/bfs_graphs.hpp) without a GPU.
//
// Mycielski M_k: vertex and edge counts from n' = 2n + 1, m' = 3m + n (order
// 17: 98,303 and 50,122,871, checked by formula; small orders built), C_5 and
// the Groetzsch graph's degree sequences, z adjacent to exactly the twins,
// chromatic-number witness: triangle-free. Kronecker: 2^scale vertices, at
// most 2 edge_factor 2^scale entries, symmetric and simple, deterministic for
// a seed, different for another, hubs at low ids (vertex 0 has the highest
// degree), the quadrant statistics of the generated edges. from_edges drops
// loops and duplicates; relabel / degree_order; the CPU BFS on a path, a star
// and two components; Matrix Market input (a shipped pattern matrix, if present).
#include "common/test_util.hpp"

#include "examples/bfs/bfs_graphs.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <vector>

using tcore::test::tally;
namespace bf = tcore::examples::bfs;

namespace {

bool valid(const bf::graph& g) { return tcore::test::no_error([&] { bf::validate(g, "test"); }); }

bool adjacent(const bf::graph& g, int u, int v)
{
    return std::binary_search(g.col.begin() + g.row_ptr[u], g.col.begin() + g.row_ptr[u + 1], v);
}

void check_mycielski(tally& t)
{
    const auto s17 = bf::mycielski_size(17);
    t.check(s17.first == 98303 && s17.second == 50122871, "M_17 size %lld / %lld", s17.first, s17.second);
    for (int k = 2; k <= 11; ++k) {
        const bf::graph g = bf::mycielski(k);
        const auto s = bf::mycielski_size(k);
        t.check(g.n == s.first && g.edges() == s.second, "M_%d has %d vertices / %lld edges, expected %lld / %lld", k,
                g.n, g.edges(), s.first, s.second);
        t.check(valid(g), "M_%d is not a valid undirected simple graph", k);
        // z (the last vertex) is adjacent to exactly the twins w_i = n_prev .. 2 n_prev - 1.
        if (k >= 3) {
            const int prev = (g.n - 1) / 2;
            bool ok = g.degree(g.n - 1) == prev;
            for (int i = 0; i < prev && ok; ++i) ok = adjacent(g, g.n - 1, prev + i);
            t.check(ok, "M_%d: z is not adjacent to exactly the %d twins", k, prev);
        }
        // Triangle-free (Mycielski keeps it), checked for the small orders.
        if (k <= 8) {
            int triangles = 0;
            for (int u = 0; u < g.n; ++u)
                for (long long p = g.row_ptr[u]; p < g.row_ptr[u + 1]; ++p) {
                    const int v = g.col[p];
                    if (v <= u) continue;
                    for (long long q = g.row_ptr[v]; q < g.row_ptr[v + 1]; ++q)
                        if (g.col[q] > v && adjacent(g, u, g.col[q])) ++triangles;
                }
            t.check(triangles == 0, "M_%d has %d triangles", k, triangles);
        }
    }
    const bf::graph c5 = bf::mycielski(3);
    bool cycle = c5.n == 5;
    for (int v = 0; v < c5.n && cycle; ++v) cycle = c5.degree(v) == 2;
    t.check(cycle, "M_3 is not C_5");
    const bf::graph gr = bf::mycielski(4);  // Groetzsch: degrees 4 (x5), 3 (x5), 5 (x1)
    std::vector<int> deg;
    for (int v = 0; v < gr.n; ++v) deg.push_back(gr.degree(v));
    std::sort(deg.begin(), deg.end());
    t.check(deg == std::vector<int>({3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5}), "Groetzsch degree sequence");
}

void check_kronecker(tally& t)
{
    for (int scale : {8, 12, 14}) {
        const bf::graph g = bf::kronecker(scale, 16, 42);
        t.check(g.n == (1 << scale), "scale %d: %d vertices", scale, g.n);
        t.check(g.entries() <= 2ll * 16 * g.n && g.entries() > 16ll * g.n / 2, "scale %d: %lld entries", scale,
                g.entries());
        t.check(valid(g), "scale %d: not a valid undirected simple graph", scale);
        int max_v = 0;
        for (int v = 0; v < g.n; ++v)
            if (g.degree(v) > g.degree(max_v)) max_v = v;
        t.check(max_v == 0, "scale %d: highest degree at vertex %d (%d), not 0 (%d)", scale, max_v, g.degree(max_v),
                g.degree(0));
        // Degree sum = entries; about a quarter of vertices isolated or more (R-MAT skew).
        long long sum = 0;
        int isolated = 0;
        for (int v = 0; v < g.n; ++v) sum += g.degree(v), isolated += g.degree(v) == 0;
        t.check(sum == g.entries(), "scale %d: degree sum %lld != entries %lld", scale, sum, g.entries());
        if (scale >= 12) t.check(isolated > g.n / 10, "scale %d: only %d isolated vertices", scale, isolated);
        // Expected degree of vertex 0: each edge end is 0 with probability (A + B)^scale per side.
        const double p0 = std::pow(0.76, scale);
        const double expect = 2 * 16.0 * g.n * p0;  // before duplicate removal
        t.check(g.degree(0) <= expect * 1.2 + 10, "scale %d: vertex 0 degree %d above expectation %.0f", scale,
                g.degree(0), expect);
    }
    const bf::graph a = bf::kronecker(10, 8, 7), b = bf::kronecker(10, 8, 7), c = bf::kronecker(10, 8, 8);
    t.check(a.col == b.col && a.row_ptr == b.row_ptr, "Kronecker not deterministic for a seed");
    t.check(a.col != c.col, "Kronecker ignores the seed");
    // Quadrant statistics at the top level: fraction of entries (u, v) with u, v < n/2.
    const bf::graph g = bf::kronecker(14, 16, 3);
    long long q00 = 0;
    for (int u = 0; u < g.n / 2; ++u)
        for (long long p = g.row_ptr[u]; p < g.row_ptr[u + 1]; ++p) q00 += g.col[p] < g.n / 2;
    const double f00 = static_cast<double>(q00) / g.entries();
    t.check(f00 > 0.5 && f00 < 0.75, "top-level quadrant (0,0) holds %.3f of the entries (A = 0.57 before dedup)", f00);
}

void check_basics(tally& t)
{
    std::vector<int> s = {0, 1, 1, 2, 3, 3, 4}, d = {1, 0, 1, 3, 2, 2, 0};
    const bf::graph g = bf::from_edges(6, s, d);
    t.check(valid(g) && g.edges() == 3 && g.degree(5) == 0 && g.degree(0) == 2, "from_edges: loops/duplicates");
    bool threw = false;
    try {
        std::vector<int> s2 = {0}, d2 = {7};
        bf::from_edges(3, s2, d2);
    } catch (const tcore::error&) {
        threw = true;
    }
    t.check(threw, "from_edges accepts an out-of-range vertex");

    // Path 0-1-...-99, star around 0 (100..149), two components.
    std::vector<int> ps, pd;
    for (int i = 0; i < 99; ++i) ps.push_back(i), pd.push_back(i + 1);
    for (int i = 100; i < 150; ++i) ps.push_back(100), pd.push_back(i == 100 ? 149 : i);
    const bf::graph p = bf::from_edges(160, ps, pd);
    const std::vector<int> lv = bf::cpu_bfs(p, 0);
    bool ok = true;
    for (int i = 0; i < 100; ++i) ok = ok && lv[i] == i;
    for (int i = 100; i < 160; ++i) ok = ok && lv[i] == -1;
    t.check(ok, "CPU BFS levels on a path");
    const std::vector<int> ls = bf::cpu_bfs(p, 120);
    t.check(ls[100] == 1 && ls[130] == 2 && ls[0] == -1 && ls[155] == -1, "CPU BFS levels on a star");
    t.check(bf::traversed_edges(p, lv) == 99, "traversed edges of the path component");

    const bf::graph k = bf::kronecker(10, 8, 1);
    const std::vector<int> order = bf::degree_order(k);
    const bf::graph r = bf::relabel(k, order);
    t.check(valid(r) && r.entries() == k.entries(), "relabel keeps a valid graph");
    bool sorted = true;
    for (int v = 1; v < r.n; ++v) sorted = sorted && r.degree(v - 1) >= r.degree(v);
    t.check(sorted, "degree_order is not by decreasing degree");
    ok = true;
    for (int i = 0; i < r.n && ok; ++i)
        for (long long q = r.row_ptr[i]; q < r.row_ptr[i + 1]; ++q)
            ok = adjacent(k, order[i], order[r.col[q]]);
    t.check(ok, "relabel moved an edge");
    const std::vector<int> src = bf::pick_sources(k, 4, 9);
    t.check(src.size() == 4 && bf::pick_sources(k, 4, 9) == src, "pick_sources");

    const std::string mtx = tcore::test::shipped_matrix("jagmesh7");
    if (!mtx.empty()) {
        const bf::graph m = bf::from_matrix_market(mtx.c_str());
        t.check(m.n == 1138 && valid(m), "jagmesh7 as a graph: %d vertices", m.n);
    } else {
        t.skip("matrix jagmesh7 not found (tests/data/matrices): Matrix Market check");
    }
}

}  // namespace

int main()
{
    tally t;
    check_basics(t);
    check_mycielski(t);
    check_kronecker(t);
    return t.finish();
}
