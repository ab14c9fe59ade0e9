// examples/bfs/bfs_graphs.hpp - graphs for the BFS workload (host side):
// the Kronecker (R-MAT) generator (Graph500 parameters by default, any
// quadrant probabilities), uniform random graphs, the Mycielski graph,
// Matrix Market input, connected components and BFS sources inside the
// largest one, and the CPU BFS the GPU levels are checked against.
//
// Every graph is made undirected and simple (both directions of each edge,
// no self-loops, no duplicates) and kept as CSR with 64-bit row pointers and
// sorted neighbour lists.
//
// Kronecker (R-MAT): each of edge_factor * 2^scale edges picks, at every one
// of `scale` levels, the quadrant (0,0), (0,1), (1,0), (1,1) with
// probabilities A, B, C, 1 - A - B - C (Graph500: 0.57, 0.19, 0.19, 0.05).
// Vertex labels are left in generator order (hubs at low ids); Graph500's
// random relabelling is not applied, because it scatters the nonzeros over
// the 8x128 bitmap slices (see tcore/patterns/bitbfs.cuh). Generation is
// deterministic for a seed (edges are independent, made on several threads).
//
// Uniform random (Erdos-Renyi G(n, m) with repetition, as the GAP
// benchmark suite's "urand"): edge_factor * 2^scale edges, both ends
// uniform over the 2^scale vertices; no hubs, a small diameter.
//
// Mycielski: M_2 = K_2; M_{k+1} adds a twin w_i of each vertex u_i (w_i
// adjacent to the neighbours of u_i) and one vertex z adjacent to every w_i:
// n_{k+1} = 2 n_k + 1, m_{k+1} = 3 m_k + n_k. Order 17: 98,303 vertices,
// 50,122,871 edges (SuiteSparse "mycielskian17").
#pragma once

#include <tcore/check.cuh>
#include <tcore/infra/splitmix64.cuh>
#include <tcore/io/matrix_market.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tcore::examples::bfs {

/// An undirected simple graph in CSR (each edge stored in both directions).
struct graph {
    int n = 0;
    std::vector<long long> row_ptr = std::vector<long long>(1, 0);
    std::vector<int> col;
    /// Stored (directed) entries: twice the number of undirected edges.
    long long entries() const { return static_cast<long long>(col.size()); }
    long long edges() const { return entries() / 2; }
    int degree(int v) const { return static_cast<int>(row_ptr[static_cast<std::size_t>(v) + 1] - row_ptr[static_cast<std::size_t>(v)]); }
};

inline unsigned worker_count(unsigned cap = 16)
{
    const unsigned hw = std::thread::hardware_concurrency();
    return std::max(1u, std::min(cap, hw == 0 ? 1u : hw));
}

/// f(i) for i = 0 .. count - 1 on worker_count() threads, which take
/// chunks of 4096 consecutive indices in turn (no two threads write the
/// same cache lines of an output indexed by i; uneven work is balanced). f
/// must be safe to call concurrently for distinct i.
template <class F>
inline void parallel_for(long long count, const F& f)
{
    constexpr long long chunk = 4096;
    std::atomic<long long> next_chunk{0};
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < worker_count(); ++w)
        pool.emplace_back([&] {
            for (long long b = next_chunk.fetch_add(chunk); b < count; b = next_chunk.fetch_add(chunk))
                for (long long i = b; i < std::min(count, b + chunk); ++i) f(i);
        });
    for (std::thread& t : pool) t.join();
}

/// Undirected simple graph from an edge list over vertices 0..n-1: both
/// directions stored, self-loops and duplicates dropped. `src`/`dst` are
/// consumed (cleared) to bound peak memory.
inline graph from_edges(int n, std::vector<int>& src, std::vector<int>& dst)
{
    require(n >= 0, "from_edges", "negative vertex count");
    require(src.size() == dst.size(), "from_edges", "source and destination lists differ in length");
    graph g;
    g.n = n;
    std::vector<long long> count(static_cast<std::size_t>(n) + 1, 0);
    for (std::size_t e = 0; e < src.size(); ++e) {
        const int u = src[e], v = dst[e];
        if (u < 0 || u >= n || v < 0 || v >= n)  // the message is built only for a bad edge
            require(false, "from_edges",
                    "edge (" + std::to_string(u) + ", " + std::to_string(v) + ") outside 0.." + std::to_string(n - 1));
        if (u == v) continue;
        ++count[static_cast<std::size_t>(u) + 1];
        ++count[static_cast<std::size_t>(v) + 1];
    }
    for (int v = 0; v < n; ++v) count[static_cast<std::size_t>(v) + 1] += count[static_cast<std::size_t>(v)];
    std::vector<int> adj(static_cast<std::size_t>(count[static_cast<std::size_t>(n)]));
    {
        std::vector<long long> fill(count.begin(), count.end() - 1);
        for (std::size_t e = 0; e < src.size(); ++e) {
            const int u = src[e], v = dst[e];
            if (u == v) continue;
            adj[static_cast<std::size_t>(fill[static_cast<std::size_t>(u)]++)] = v;
            adj[static_cast<std::size_t>(fill[static_cast<std::size_t>(v)]++)] = u;
        }
    }
    std::vector<int>().swap(src);
    std::vector<int>().swap(dst);
    // Sort and deduplicate each row (in parallel over row ranges), then compact.
    std::vector<long long> kept(static_cast<std::size_t>(n), 0);
    parallel_for(n, [&](long long v) {
        int* b = adj.data() + count[static_cast<std::size_t>(v)];
        int* e = adj.data() + count[static_cast<std::size_t>(v) + 1];
        std::sort(b, e);
        kept[static_cast<std::size_t>(v)] = std::unique(b, e) - b;
    });
    g.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    for (int v = 0; v < n; ++v) g.row_ptr[static_cast<std::size_t>(v) + 1] = g.row_ptr[static_cast<std::size_t>(v)] + kept[static_cast<std::size_t>(v)];
    g.col.resize(static_cast<std::size_t>(g.row_ptr[static_cast<std::size_t>(n)]));
    for (int v = 0; v < n; ++v)
        std::copy_n(adj.begin() + count[static_cast<std::size_t>(v)], kept[static_cast<std::size_t>(v)],
                    g.col.begin() + g.row_ptr[static_cast<std::size_t>(v)]);
    return g;
}

/// Throws tcore::error unless `g` is a well-formed undirected simple graph
/// (sizes, sorted unique neighbours, no self-loops, every edge both ways).
inline void validate(const graph& g, const char* where)
{
    require(g.n >= 0, where, "negative vertex count");
    require(g.row_ptr.size() == static_cast<std::size_t>(g.n) + 1 && g.row_ptr[0] == 0 &&
                g.row_ptr.back() == g.entries(),
            where, "row pointers do not match the vertex and entry counts");
    for (int v = 0; v < g.n; ++v) {
        const long long b = g.row_ptr[static_cast<std::size_t>(v)], e = g.row_ptr[static_cast<std::size_t>(v) + 1];
        require(b <= e, where, "row pointers decrease at vertex " + std::to_string(v));
        for (long long p = b; p < e; ++p) {
            const int u = g.col[static_cast<std::size_t>(p)];
            if (u < 0 || u >= g.n || u == v || (p > b && u <= g.col[static_cast<std::size_t>(p) - 1]))
                require(false, where, "bad neighbour list of vertex " + std::to_string(v));
            const auto first = g.col.begin() + g.row_ptr[static_cast<std::size_t>(u)];
            const auto last = g.col.begin() + g.row_ptr[static_cast<std::size_t>(u) + 1];
            if (!std::binary_search(first, last, v))
                require(false, where, "edge " + std::to_string(v) + "-" + std::to_string(u) + " stored one way only");
        }
    }
}

/// Kronecker (R-MAT) graph with 2^scale vertices and edge_factor * 2^scale
/// generated edges (fewer after dropping self-loops and duplicates).
inline graph kronecker(int scale, int edge_factor = 16, std::uint64_t seed = 0x6b726f6e65636b72ull, double A = 0.57,
                       double B = 0.19, double C = 0.19)
{
    require(scale >= 1 && scale <= 30, "kronecker", "scale must be 1..30");
    require(edge_factor >= 1, "kronecker", "edge factor must be positive");
    require(A > 0 && B >= 0 && C >= 0 && A + B + C < 1.0 + 1e-12, "kronecker", "bad quadrant probabilities");
    const int n = 1 << scale;
    const long long m = static_cast<long long>(edge_factor) << scale;
    require(2 * m < (1ll << 40), "kronecker", "too many edges");
    std::vector<int> src(static_cast<std::size_t>(m)), dst(static_cast<std::size_t>(m));
    // Thresholds on 16-bit uniforms.
    const unsigned ta = static_cast<unsigned>(A * 65536.0), tb = static_cast<unsigned>((A + B) * 65536.0),
                   tc = static_cast<unsigned>((A + B + C) * 65536.0);
    parallel_for(m, [&](long long e) {
        tcore::splitmix64 r(seed ^ (static_cast<std::uint64_t>(e) * 0xd1b54a32d192ed03ull));
        unsigned u = 0, v = 0;
        std::uint64_t bits = 0;
        for (int level = 0; level < scale; ++level) {
            if ((level & 3) == 0) bits = r.next();
            const unsigned r = static_cast<unsigned>(bits & 0xffffu);
            bits >>= 16;
            const unsigned q = r < ta ? 0u : (r < tb ? 1u : (r < tc ? 2u : 3u));
            u = (u << 1) | (q >> 1);
            v = (v << 1) | (q & 1u);
        }
        src[static_cast<std::size_t>(e)] = static_cast<int>(u);
        dst[static_cast<std::size_t>(e)] = static_cast<int>(v);
    });
    return from_edges(n, src, dst);
}

/// Uniform random graph: 2^scale vertices, edge_factor * 2^scale generated
/// edges with both ends uniform (fewer after dropping self-loops and
/// duplicates). Deterministic for a seed.
inline graph uniform_random(int scale, int edge_factor = 16, std::uint64_t seed = 0x75726e64ull)
{
    require(scale >= 1 && scale <= 30, "uniform_random", "scale must be 1..30");
    require(edge_factor >= 1, "uniform_random", "edge factor must be positive");
    const int n = 1 << scale;
    const long long m = static_cast<long long>(edge_factor) << scale;
    require(2 * m < (1ll << 40), "uniform_random", "too many edges");
    std::vector<int> src(static_cast<std::size_t>(m)), dst(static_cast<std::size_t>(m));
    parallel_for(m, [&](long long e) {
        const std::uint64_t z = tcore::splitmix64(seed ^ (static_cast<std::uint64_t>(e) * 0xd1b54a32d192ed03ull)).next();
        src[static_cast<std::size_t>(e)] = static_cast<int>(z & static_cast<std::uint64_t>(n - 1));
        dst[static_cast<std::size_t>(e)] = static_cast<int>((z >> 32) & static_cast<std::uint64_t>(n - 1));
    });
    return from_edges(n, src, dst);
}

/// Vertices and edges of the Mycielski graph M_order (order >= 2).
inline std::pair<long long, long long> mycielski_size(int order)
{
    long long n = 2, m = 1;
    for (int k = 2; k < order; ++k) {
        m = 3 * m + n;
        n = 2 * n + 1;
    }
    return {n, m};
}

/// The Mycielski graph M_order: M_2 = K_2, M_3 = C_5, M_4 = Groetzsch graph.
inline graph mycielski(int order)
{
    require(order >= 2 && order <= 20, "mycielski", "order must be 2..20");
    std::vector<int> src = {0}, dst = {1};
    int n = 2;
    for (int k = 2; k < order; ++k) {
        const std::size_t m = src.size();
        src.reserve(3 * m + n);
        dst.reserve(3 * m + n);
        for (std::size_t e = 0; e < m; ++e) {  // u_i - w_j and w_i - u_j for every edge u_i - u_j
            const int a = src[e], b = dst[e];
            src.push_back(a), dst.push_back(n + b);
            src.push_back(n + a), dst.push_back(b);
        }
        for (int i = 0; i < n; ++i) src.push_back(n + i), dst.push_back(2 * n);  // w_i - z
        n = 2 * n + 1;
    }
    return from_edges(n, src, dst);
}

/// A square Matrix Market file as an undirected simple graph (the pattern
/// of A + A^T without the diagonal).
inline graph from_matrix_market(const std::string& path)
{
    tcore::io::mm_options opts;
    opts.complex = tcore::io::complex_mode::real_part;
    const sparse::csr a = tcore::io::read_matrix_market(path, opts);
    require(a.rows == a.cols, "from_matrix_market", path + " is not square (" + std::to_string(a.rows) + " x " +
                                                        std::to_string(a.cols) + ")");
    std::vector<int> src, dst;
    src.reserve(a.col_idx.size());
    dst.reserve(a.col_idx.size());
    for (int r = 0; r < a.rows; ++r)
        for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) src.push_back(r), dst.push_back(a.col_idx[p]);
    return from_edges(a.rows, src, dst);
}

/// The graph with vertices relabelled: new vertex i is old vertex order[i]
/// (order must be a permutation of 0..n-1).
inline graph relabel(const graph& g, const std::vector<int>& order)
{
    require(order.size() == static_cast<std::size_t>(g.n), "relabel", "order must list every vertex once");
    std::vector<int> inv(static_cast<std::size_t>(g.n), -1);
    for (int i = 0; i < g.n; ++i) {
        const int old = order[static_cast<std::size_t>(i)];
        require(old >= 0 && old < g.n && inv[static_cast<std::size_t>(old)] < 0, "relabel", "order is not a permutation");
        inv[static_cast<std::size_t>(old)] = i;
    }
    graph h;
    h.n = g.n;
    h.row_ptr.assign(static_cast<std::size_t>(g.n) + 1, 0);
    for (int i = 0; i < g.n; ++i)
        h.row_ptr[static_cast<std::size_t>(i) + 1] = h.row_ptr[static_cast<std::size_t>(i)] + g.degree(order[static_cast<std::size_t>(i)]);
    h.col.resize(g.col.size());
    parallel_for(g.n, [&](long long i) {
        const int old = order[static_cast<std::size_t>(i)];
        long long at = h.row_ptr[static_cast<std::size_t>(i)];
        for (long long p = g.row_ptr[static_cast<std::size_t>(old)]; p < g.row_ptr[static_cast<std::size_t>(old) + 1]; ++p)
            h.col[static_cast<std::size_t>(at++)] = inv[static_cast<std::size_t>(g.col[static_cast<std::size_t>(p)])];
        std::sort(h.col.begin() + h.row_ptr[static_cast<std::size_t>(i)], h.col.begin() + at);
    });
    return h;
}

/// Vertices by decreasing degree (ties: lower id first). Puts the hubs of a
/// power-law graph into the first column blocks, so the 8x128 slices of the
/// bitmap hold more edges each (Kronecker scale 18: 4.4 instead of 2.7).
inline std::vector<int> degree_order(const graph& g)
{
    // Counting sort on degree, largest first; vertices of one degree keep their order
    int max_degree = 0;
    for (int v = 0; v < g.n; ++v) max_degree = std::max(max_degree, g.degree(v));
    // start[max_degree - d]: the first slot of degree d
    std::vector<int> start(static_cast<std::size_t>(max_degree) + 2, 0);
    for (int v = 0; v < g.n; ++v) ++start[static_cast<std::size_t>(max_degree - g.degree(v)) + 1];
    for (int d = 0; d <= max_degree; ++d) start[static_cast<std::size_t>(d) + 1] += start[static_cast<std::size_t>(d)];
    std::vector<int> order(static_cast<std::size_t>(g.n));
    for (int v = 0; v < g.n; ++v) {
        int& slot = start[static_cast<std::size_t>(max_degree - g.degree(v))];
        order[static_cast<std::size_t>(slot++)] = v;
    }
    return order;
}

/// CPU BFS: level of every vertex from `source` (-1 where unreachable).
inline std::vector<int> cpu_bfs(const graph& g, int source)
{
    require(source >= 0 && source < g.n, "cpu_bfs", "source " + std::to_string(source) + " out of range");
    std::vector<int> level(static_cast<std::size_t>(g.n), -1), queue;
    queue.reserve(static_cast<std::size_t>(g.n));
    level[static_cast<std::size_t>(source)] = 0;
    queue.push_back(source);
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const int u = queue[head];
        const int next = level[static_cast<std::size_t>(u)] + 1;
        for (long long p = g.row_ptr[static_cast<std::size_t>(u)]; p < g.row_ptr[static_cast<std::size_t>(u) + 1]; ++p) {
            const int v = g.col[static_cast<std::size_t>(p)];
            if (level[static_cast<std::size_t>(v)] < 0) {
                level[static_cast<std::size_t>(v)] = next;
                queue.push_back(v);
            }
        }
    }
    return level;
}

/// Edges of the part of the graph a BFS reached (each undirected edge once):
/// the TEPS numerator.
inline long long traversed_edges(const graph& g, const std::vector<int>& level)
{
    long long sum = 0;
    for (int v = 0; v < g.n; ++v)
        if (level[static_cast<std::size_t>(v)] >= 0) sum += g.degree(v);
    return sum / 2;
}

/// Connected component of every vertex (labels 0, 1, ... in order of their
/// smallest vertex) and the label of the component with the most vertices.
inline std::vector<int> components(const graph& g, int& largest)
{
    std::vector<int> label(static_cast<std::size_t>(g.n), -1), queue;
    queue.reserve(static_cast<std::size_t>(g.n));
    largest = -1;
    std::size_t best = 0;
    int next_label = 0;
    for (int s = 0; s < g.n; ++s) {
        if (label[static_cast<std::size_t>(s)] >= 0) continue;
        queue.clear();
        queue.push_back(s);
        label[static_cast<std::size_t>(s)] = next_label;
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const int u = queue[head];
            for (long long p = g.row_ptr[static_cast<std::size_t>(u)]; p < g.row_ptr[static_cast<std::size_t>(u) + 1]; ++p) {
                const int v = g.col[static_cast<std::size_t>(p)];
                if (label[static_cast<std::size_t>(v)] < 0) {
                    label[static_cast<std::size_t>(v)] = next_label;
                    queue.push_back(v);
                }
            }
        }
        if (queue.size() > best) best = queue.size(), largest = next_label;
        ++next_label;
    }
    return label;
}

/// CPU BFS from each source (in parallel over the sources).
inline std::vector<std::vector<int>> cpu_bfs_all(const graph& g, const std::vector<int>& sources)
{
    std::vector<std::vector<int>> out(sources.size());
    const unsigned workers = std::min<unsigned>(worker_count(), static_cast<unsigned>(std::max<std::size_t>(1, sources.size())));
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            for (std::size_t i = w; i < sources.size(); i += workers) out[i] = cpu_bfs(g, sources[i]);
        });
    for (std::thread& t : pool) t.join();
    return out;
}

/// `count` distinct BFS sources with at least one neighbour, deterministic for the seed.
inline std::vector<int> pick_sources(const graph& g, int count, std::uint64_t seed)
{
    std::vector<int> out;
    tcore::splitmix64 r(seed);
    for (int tries = 0; tries < 100000 && static_cast<int>(out.size()) < count && g.n > 0; ++tries) {
        const int v = static_cast<int>(r.below(static_cast<std::uint64_t>(g.n)));
        if (g.degree(v) > 0 && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    return out;
}

/// `count` distinct BFS sources drawn at random from the largest connected
/// component (so every search reaches the same edges: one TEPS numerator),
/// deterministic for the seed; fewer if the component has fewer vertices.
inline std::vector<int> pick_component_sources(const graph& g, int count, std::uint64_t seed)
{
    int largest = -1;
    const std::vector<int> label = components(g, largest);
    std::vector<int> members;
    for (int v = 0; v < g.n; ++v)
        if (label[static_cast<std::size_t>(v)] == largest) members.push_back(v);
    std::vector<int> out;
    tcore::splitmix64 r(seed);
    const int want = std::min<int>(count, static_cast<int>(members.size()));
    while (static_cast<int>(out.size()) < want) {
        const int v = members[static_cast<std::size_t>(r.below(members.size()))];
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    return out;
}

}  // namespace tcore::examples::bfs
