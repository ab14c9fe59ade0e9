// examples/bfs/bfs.cu - the BFS workload: breadth-first search on the 1-bit
// MMA (m8n8k128 AND + popcount) over a sliced adjacency bitmap, after
// BerryBees (Quadrant IV: full input, results on the diagonal).
//
// Variants:
//   base      csr_bfs (bfs_base.cuh): CUDA-core direction-optimizing BFS on
//             CSR of the published class: Beamer's switch, top-down over
//             frontier queues binned by degree (thread / warp / block per
//             vertex, long rows in chunks), bitmap bottom-up with early
//             exit, a visited bitmap claimed by atomicOr only for vertices
//             whose bit reads clear; one kernel and one host
//             synchronisation per level
//   base-old  edge_scan_bfs (bfs_edge_scan.cuh): the earlier base, one thread
//             per frontier edge (cub prefix sum and binary search), several
//             launches per level
//   tc        tcore::bitbfs::bit_bfs<tensor_core>
//             (tcore/patterns/device/bfs_search.cuh): hybrid
//             direction-optimizing BFS in one cooperative kernel: the
//             non-empty 8x128 slices of the hub columns (hub_columns():
//             leading column blocks with >= 8 entries per slice) through
//             bit-matrix x bit-vector products on the 1-bit MMA, CSR for the
//             other columns
//   cc        tc on the cuda_core backend (same bitmaps, CUDA-core popcounts)
// Cases, every graph relabelled by decreasing degree (for every variant):
// Kronecker graphs with the Graph500 parameters (A = 0.57, B = C = 0.19,
// edge factor 16) at scales 18 to 24 (kron18 .. kron24; on a 2-core host
// scales 22, 23 and 24 take 26, 60 and 146 s to generate, 5, 12 and 31 s
// for the CPU references, and 4.3 GB at scale 24); R-MAT with a
// milder skew (A = 0.45, B = C = 0.15, GTgraph's defaults; edge factor 16)
// at scale 21 (rmat21); a uniform random graph (edge factor 16) at scale 21
// (urand21); Kronecker scale 21 with edge factor 48 (kron21-ef48: about
// the size of SuiteSparse's kron_g500-logn21, for published figures); the
// Mycielski graph of order 17; and every Matrix Market file
// listed in TCORE_BFS_GRAPHS (paths separated by ':' or ','), read as
// undirected graphs. --quick: scale 14 of the three families, Mycielski 11.
//
// Sources: 16 distinct vertices drawn from the largest connected component
// (bfs_graphs.hpp, pick_component_sources), so every search reaches the
// same edges. Every variant runs from every source and the level of every
// vertex is checked against a CPU BFS (the accuracy columns: level
// differences over all sources, all 0 when right); the timed repetitions
// cycle through the same 16 sources, so the time (the median repetition)
// is that of a BFS from a typical source, every host synchronisation it
// needs included (base: one per level; tc/cc: one per BFS). flops = edges
// of the component, each undirected edge once (Graph500's TEPS numerator),
// so the GFLOP/s column reads as GTEPS; the summary also gives GTEPS
// counting both stored directions of each edge (Gunrock's numerator: the
// degrees of the reached vertices), twice the first. bytes = the CSR graph
// (8 (n + 1) + 4 entries), a nominal one pass over the graph. Graph
// generation, relabelling, slicing and the CPU references are timed on the
// host and reported in the summary, never in the BFS time.
// TCORE_BFS_TRACE=1 prints tc's and cc's per-level records (time,
// direction, slices and CSR entries read; one source's event-timed median
// beside the kernel's own clock of set-up and whole run, and tc's without
// row heads) and base's (host time after each level's synchronisation; CSR
// entries: the frontier's entries expanded by a top-down level, 0 for
// bottom-up), and each source's event-timed median and steps (tc, base);
// TCORE_BFS_TRACE=2 adds, for graphs of 2^20 vertices or more,
// tc's time for other hub thresholds.
#include "bfs_base.cuh"
#include "bfs_edge_scan.cuh"
#include "bfs_graphs.hpp"
#include "harness/harness.hpp"
#include "harness/timing.hpp"

#include <tcore/patterns/device/bfs_search.cuh>
#include <tcore/tcore.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace tb = tcore::bench;
namespace bf = tcore::examples::bfs;
namespace bb = tcore::bitbfs;

struct bfs_case {
    std::string name;
    std::function<bf::graph()> make;
};

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string fixed(double v, int digits)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::vector<std::string> split_paths(const std::string& s)
{
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == ':' || c == ',') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

bf::graph degree_ordered(const bf::graph& g) { return bf::relabel(g, bf::degree_order(g)); }

bf::graph degree_ordered_kronecker(int scale) { return degree_ordered(bf::kronecker(scale)); }

/// R-MAT with GTgraph's default quadrant probabilities (0.45, 0.15, 0.15, 0.25).
bf::graph degree_ordered_rmat(int scale)
{
    return degree_ordered(bf::kronecker(scale, 16, 0x726d6174ull, 0.45, 0.15, 0.15));
}

bf::graph degree_ordered_uniform(int scale) { return degree_ordered(bf::uniform_random(scale)); }

inline constexpr int source_count = 16;

/// Level differences of every source's levels against its CPU reference
/// (accuracy of a level array: all 0 when right).
tb::accuracy level_accuracy(const std::vector<std::vector<int>>& refs, const std::vector<std::vector<int>>& got)
{
    tb::accuracy acc;
    double sum = 0;
    for (std::size_t i = 0; i < refs.size(); ++i)
        for (std::size_t v = 0; v < refs[i].size(); ++v) {
            const double r = refs[i][v];
            const double d = v < got[i].size() ? std::abs(static_cast<double>(got[i][v]) - r) : 1.0;
            sum += d;
            acc.max_abs = std::max(acc.max_abs, d);
            if (r != 0) acc.max_rel = std::max(acc.max_rel, d / std::abs(r));
            ++acc.count;
        }
    acc.avg_abs = acc.count ? sum / static_cast<double>(acc.count) : 0.0;
    return acc;
}

/// Entries of the graph in columns below `hubs` (the sliced part).
long long hub_entries(const bf::graph& g, int hubs)
{
    long long e = 0;
    for (int u = 0; u < hubs; ++u) e += g.degree(u);
    return e;
}

/// Median of 9 event-timed calls of `f` (which launches on `stream`), ms:
/// the harness's repetitions, no warm-up.
template <class F>
double median_of_9_ms(cudaStream_t stream, const F& f)
{
    return tb::time_repetitions(stream, [&](cudaStream_t) { f(); }, 9, {}, false).median_ms;
}

/// TCORE_BFS_TRACE=1: per-level records of one run (time, direction,
/// frontier, new vertices, slices and CSR entries read, bytes implied).
template <class Driver>
void print_trace(const std::string& name, const char* variant, Driver& d, int source)
{
    d.set_trace(64);
    const bb::bfs_stats st = d.run(source);
    const std::vector<bb::level_trace> t = d.level_traces();
    d.set_trace(0);
    // One source's event-timed median beside the kernel's own clock (tc, cc): the difference is launch and sync
    const double ms = median_of_9_ms(nullptr, [&] { d.run(source); });
    std::printf("trace %s %s: event-timed %.1f us (median of 9); kernel clock: set-up %.1f us, start to end %.1f us\n",
                name.c_str(), variant, 1e3 * ms, st.setup_us, st.kernel_us);
    std::printf("trace %s %s (grid %u blocks): level dir frontier found slices csr_entries MB_read end_us step_us\n",
                name.c_str(), variant, d.grid());
    unsigned long long before = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double mb = (128.0 * t[i].slices + 4.0 * t[i].entries) / 1e6;
        std::printf("trace %s %s %2zu %c %9lld %9lld %9lld %10lld %8.1f %8.1f %7.1f\n", name.c_str(), variant, i,
                    t[i].bottom_up ? 'B' : 'T', t[i].frontier, t[i].found, t[i].slices, t[i].entries, mb,
                    t[i].end_ns / 1e3, (t[i].end_ns - before) / 1e3);
        before = t[i].end_ns;
    }
}

/// TCORE_BFS_TRACE=1: each source's event-timed median and steps (the
/// protocol's median mixes them).
template <class Driver>
void print_source_times(const std::string& name, const char* variant, Driver& d, const std::vector<int>& sources)
{
    std::printf("trace %s %s per source (us, steps):", name.c_str(), variant);
    for (int s : sources) {
        const double ms = median_of_9_ms(nullptr, [&] { d.run(s); });
        std::printf(" %.1f %s", 1e3 * ms, d.stats().directions.c_str());
    }
    std::printf("\n");
}

/// TCORE_BFS_TRACE=1, large graphs: tc's time for other hub-density
/// thresholds (median of 9 event-timed runs; levels checked), to show how
/// the split between slices and CSR matters.
void sweep_hubs(const bf::graph& g, const std::string& name, int source, const std::vector<int>& ref, cudaStream_t stream)
{
    // the densities, then the hub rule's with bottom-up through the slice lists
    for (double density : {1e30, 32.0, 16.0, 12.0, 8.0, 6.0, 4.0, 2.0, -8.0}) {
        const bool lists = density < 0;
        if (lists) density = -density;
        const int hubs = density > 1e20 ? 0 : bb::hub_columns(g.n, g.row_ptr.data(), g.col.data(), density);
        const bb::bit_slices s = bb::build_slices(g.n, g.row_ptr.data(), g.col.data(), 0, hubs);
        bb::bit_bfs<tcore::tensor_core> tc(g.n, g.row_ptr.data(), g.col.data(), s, 1.0, !lists);
        tc.run(source, stream);
        const bool ok = tc.levels() == ref;
        const double ms = median_of_9_ms(stream, [&] { tc.run(source, stream); });
        std::printf("sweep %s tc%s: min entries/slice %-6g hub columns %7d, %9lld slices (%7.1f MiB): %.4f ms%s\n",
                    name.c_str(), lists ? ", bottom-up through slice lists" : "", density > 1e20 ? 0.0 : density, hubs,
                    s.slices(), s.bytes() / 1048576.0, ms, ok ? "" : " LEVELS WRONG");
    }
    {
        // Default split, slices read top-down whenever their block has a frontier bit.
        const int hubs = bb::hub_columns(g.n, g.row_ptr.data(), g.col.data());
        const bb::bit_slices s = bb::build_slices(g.n, g.row_ptr.data(), g.col.data(), 0, hubs);
        bb::bit_bfs<tcore::tensor_core> tc(g.n, g.row_ptr.data(), g.col.data(), s, 0.0);
        tc.run(source, stream);
        const bool ok = tc.levels() == ref;
        print_trace(name, "tc, MMA top-down always", tc, source);
        std::printf("sweep %s tc, MMA top-down always: %s\n", name.c_str(), ok ? "levels right" : "LEVELS WRONG");
    }
}

void run(tb::context& ctx)
{
    const char* trace_env = std::getenv("TCORE_BFS_TRACE");
    const bool tracing = trace_env != nullptr, sweeping = tracing && std::string(trace_env) == "2";
    std::vector<bfs_case> cases;
    if (ctx.quick()) {
        cases.push_back({"kron14", [] { return degree_ordered_kronecker(14); }});
        cases.push_back({"rmat14", [] { return degree_ordered_rmat(14); }});
        cases.push_back({"urand14", [] { return degree_ordered_uniform(14); }});
        cases.push_back({"mycielski11", [] { return bf::mycielski(11); }});
    } else {
        for (int scale = 18; scale <= 24; ++scale)
            cases.push_back({"kron" + std::to_string(scale), [scale] { return degree_ordered_kronecker(scale); }});
        cases.push_back({"kron21-ef48", [] { return degree_ordered(bf::kronecker(21, 48)); }});
        cases.push_back({"rmat21", [] { return degree_ordered_rmat(21); }});
        cases.push_back({"urand21", [] { return degree_ordered_uniform(21); }});
        cases.push_back({"mycielski17", [] { return bf::mycielski(17); }});
    }
    if (const char* env = std::getenv("TCORE_BFS_GRAPHS")) {
        for (const std::string& path : split_paths(env)) {
            std::string stem = path.substr(path.find_last_of('/') + 1);
            if (stem.size() > 4 && stem.substr(stem.size() - 4) == ".mtx") stem.resize(stem.size() - 4);
            cases.push_back({"mtx/" + stem, [path] { return bf::from_matrix_market(path); }});
        }
    }

    std::map<std::string, std::map<std::string, double>> gteps;  // variant -> case -> GTEPS
    for (const bfs_case& c : cases) {
        if (!ctx.announce_case(c.name)) continue;
        if (!ctx.want_variant("base") && !ctx.want_variant("base-old") && !ctx.want_variant("tc") &&
            !ctx.want_variant("cc"))
            continue;
        auto t0 = std::chrono::steady_clock::now();
        const bf::graph g = c.make();
        const double t_graph = seconds_since(t0);
        if (g.n == 0 || g.entries() == 0) {
            std::printf("bfs %s: graph has no edges, skipped\n", c.name.c_str());
            continue;
        }
        t0 = std::chrono::steady_clock::now();
        const std::vector<int> sources =
            bf::pick_component_sources(g, source_count, 0xbf5ull + static_cast<unsigned long long>(g.n));
        const std::vector<std::vector<int>> refs = bf::cpu_bfs_all(g, sources);
        const double t_refs = seconds_since(t0);
        const long long component_edges = bf::traversed_edges(g, refs[0]);
        for (const auto& r : refs)
            tcore::require(bf::traversed_edges(g, r) == component_edges, "bfs", c.name + ": sources in different components");
        const double edges = static_cast<double>(component_edges);
        const double csr_bytes = 8.0 * (g.n + 1) + 4.0 * static_cast<double>(g.entries());

        std::unique_ptr<bb::bit_slices> slices;
        double t_slices = 0;
        int hubs = 0;
        if (ctx.want_variant("tc") || ctx.want_variant("cc")) {
            t0 = std::chrono::steady_clock::now();
            hubs = bb::hub_columns(g.n, g.row_ptr.data(), g.col.data());
            slices = std::make_unique<bb::bit_slices>(bb::build_slices(g.n, g.row_ptr.data(), g.col.data(), 0, hubs));
            t_slices = seconds_since(t0);
        }
        ctx.summary(c.name + ": graph",
                    std::to_string(g.n) + " vertices, " + std::to_string(g.edges()) + " edges (" +
                        std::to_string(component_edges) + " in the largest component, which holds the " +
                        std::to_string(sources.size()) + " sources); generated in " + fixed(t_graph, 2) +
                        " s, CPU references in " + fixed(t_refs, 2) + " s" +
                        (slices && hubs == 0 ? "; no column dense enough to slice (tc and cc run on CSR alone)"
                         : slices ? "; hub columns 0.." + std::to_string(hubs - 1) + " sliced: " +
                                      std::to_string(slices->slices()) + " slices (" +
                                      fixed(static_cast<double>(hub_entries(g, hubs)) / std::max(1ll, slices->slices()), 2) +
                                      " entries each, " + fixed(slices->bytes() / 1048576.0, 1) + " MiB) in " +
                                      fixed(t_slices, 2) + " s"
                                : std::string()));

        auto measure = [&](const char* vname, auto& driver, std::size_t device_bytes, tb::peak compute,
                           const std::string& what) {
            // Validation: every vertex's level from every source the timing uses.
            std::vector<std::vector<int>> got(sources.size());
            std::string steps;
            for (std::size_t i = 0; i < sources.size(); ++i) {
                const bb::bfs_stats st = driver.run(sources[i], ctx.stream());
                if (i == 0) steps = st.directions;
                got[i] = driver.levels();
            }
            const tb::accuracy err = level_accuracy(refs, got);
            tb::row_spec spec;
            spec.case_name = c.name;
            spec.variant = vname;
            spec.bytes = csr_bytes;
            spec.flops = edges;
            spec.ceiling = tb::peak::memory;
            spec.compute = compute; spec.host_sync = true;  // run() syncs: base per level, tc/cc once
            spec.footprint_bytes = device_bytes;
            spec.note = what + "; flops = " + fixed(edges, 0) +
                        " undirected edges of the component (GFLOP/s = GTEPS); steps from the first source " + steps +
                        "; timed over and levels checked from " + std::to_string(sources.size()) + " sources";
            std::size_t next = 0;
            const std::vector<double> med = ctx.measure(
                spec, [&driver, &sources, &next](cudaStream_t s) { driver.run(sources[next++ % sources.size()], s); },
                err);
            if (!med.empty() && med.front() > 0) gteps[vname][c.name] = edges / (med.front() * 1e-3) / 1e9;
        };

        if (ctx.want_variant("base")) {
            bf::csr_bfs base(g);
            measure("base", base, base.device_bytes(), tb::peak::int_ops,
                    "CSR direction-optimizing BFS (Beamer), degree-binned thread/warp/block top-down, bitmap bottom-up");
            if (tracing) {
                print_trace(c.name, "base", base, sources[0]);
                print_source_times(c.name, "base", base, sources);
            }
        }
        if (ctx.want_variant("base-old")) {
            bf::edge_scan_bfs old(g);
            measure("base-old", old, old.device_bytes(), tb::peak::int_ops,
                    "earlier base: edge-parallel top-down (prefix sum, binary search), bitmap bottom-up");
        }
        if (ctx.want_variant("tc")) {
            bb::bit_bfs<tcore::tensor_core> tc(g.n, g.row_ptr.data(), g.col.data(), *slices);
            measure("tc", tc, tc.device_bytes(), tb::peak::int_ops,
                    "hybrid bitmap BFS, one cooperative kernel: hub slices on b1 m8n8k128 AND+popc, CSR for the rest");
            if (tracing) {
                print_trace(c.name, "tc", tc, sources[0]);
                print_source_times(c.name, "tc", tc, sources);
                bb::bit_bfs<tcore::tensor_core> plain(g.n, g.row_ptr.data(), g.col.data(), *slices, 1.0, true, false);
                std::printf("trace %s tc without row heads: event-timed %.1f us (median of 9)\n", c.name.c_str(),
                            1e3 * median_of_9_ms(nullptr, [&] { plain.run(sources[0]); }));
            }
            if (sweeping && g.n >= (1 << 20)) sweep_hubs(g, c.name, sources[0], refs[0], ctx.stream());
        }
        if (ctx.want_variant("cc")) {
            bb::bit_bfs<tcore::cuda_core> cc(g.n, g.row_ptr.data(), g.col.data(), *slices);
            measure("cc", cc, cc.device_bytes(), tb::peak::int_ops, "tc's kernels on the cuda_core backend");
            if (tracing) print_trace(c.name, "cc", cc, sources[0]);
        }
    }

    for (const auto& [variant, per_case] : gteps)
        for (const auto& [name, v] : per_case)
            ctx.summary(name + ": GTEPS " + variant,
                        fixed(v, 2) + " (undirected edges; " + fixed(2 * v, 2) + " counting both directions, as Gunrock)");
    for (const auto& [name, v] : gteps["base"]) {
        const auto old = gteps["base-old"].find(name);
        if (old != gteps["base-old"].end() && old->second > 0)
            ctx.summary(name + ": speedup base over base-old", fixed(v / old->second, 2));
    }
    for (const auto& [name, v] : gteps["tc"]) {
        const auto b = gteps["base"].find(name);
        if (b != gteps["base"].end() && b->second > 0)
            ctx.summary(name + ": speedup tc over base (goal >= 1.5 on every graph)", fixed(v / b->second, 2));
        const auto cc = gteps["cc"].find(name);
        if (cc != gteps["cc"].end() && cc->second > 0) ctx.summary(name + ": speedup tc over cc", fixed(v / cc->second, 2));
    }
}

}  // namespace

void tcore_register_bfs(tcore::bench::registry& r)
{
    r.add({"bfs", "BFS: bitmap slices on the 1-bit MMA (BerryBees-like) vs CSR direction-optimizing BFS", run});
}
