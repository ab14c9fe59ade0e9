// examples/bfs/bfs.cu - the BFS workload: breadth-first search on the 1-bit
// MMA (m8n8k128 AND + popcount) over a sliced adjacency bitmap, after
// BerryBees (Quadrant IV: full input, results on the diagonal).
//
// Variants (bfs_kernels.cuh):
//   base   CUDA-core direction-optimizing BFS on CSR: frontier queue with
//          load-balanced top-down expansion, bitmap bottom-up
//   tc     direction-optimizing BFS on the non-empty 8x128 slices of the
//          adjacency bitmap, bit-matrix x bit-vector products on the 1-bit MMA
//   cc     tc on the cuda_core backend (same bitmaps, CUDA-core popcounts)
// Cases: Kronecker graphs with the Graph500 parameters (A = 0.57, B = C =
// 0.19, edge factor 16) at scales 18 to 21, relabelled by decreasing degree
// (for every variant); the Mycielski graph of order 17; and every Matrix
// Market file listed in TCORE_BFS_GRAPHS (paths separated by ':' or ','),
// read as undirected graphs. --quick: Kronecker scale 14, Mycielski 11.
//
// Every variant's level of every vertex is checked against a CPU BFS from 4
// sources (the accuracy columns: level differences, all 0 when right); the
// time is one BFS from the first source, host synchronisation per level
// included. flops = edges of the reached component (each undirected edge
// once), so the GFLOP/s column reads as GTEPS. bytes = the CSR graph
// (8 (n + 1) + 4 entries), a nominal one pass over the graph. Graph
// generation, relabelling and slicing are timed on the host and reported in
// the summary, never in the BFS time.
#include "bfs_graphs.hpp"
#include "bfs_kernels.cuh"
#include "harness/harness.hpp"

#include <tcore/tcore.cuh>

#include <chrono>
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

bf::graph degree_ordered_kronecker(int scale)
{
    const bf::graph g = bf::kronecker(scale);
    return bf::relabel(g, bf::degree_order(g));
}

void run(tb::context& ctx)
{
    std::vector<bfs_case> cases;
    if (ctx.quick()) {
        cases.push_back({"kron14", [] { return degree_ordered_kronecker(14); }});
        cases.push_back({"mycielski11", [] { return bf::mycielski(11); }});
    } else {
        for (int scale = 18; scale <= 21; ++scale)
            cases.push_back({"kron" + std::to_string(scale), [scale] { return degree_ordered_kronecker(scale); }});
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
        if (!ctx.want_variant("base") && !ctx.want_variant("tc") && !ctx.want_variant("cc")) continue;
        auto t0 = std::chrono::steady_clock::now();
        const bf::graph g = c.make();
        const double t_graph = seconds_since(t0);
        if (g.n == 0 || g.entries() == 0) {
            std::printf("bfs %s: graph has no edges, skipped\n", c.name.c_str());
            continue;
        }
        const std::vector<int> sources = bf::pick_sources(g, 4, 0xbf5ull + static_cast<unsigned long long>(g.n));
        std::vector<std::vector<int>> refs;
        for (int s : sources) refs.push_back(bf::cpu_bfs(g, s));
        const double edges = static_cast<double>(bf::traversed_edges(g, refs[0]));
        const double csr_bytes = 8.0 * (g.n + 1) + 4.0 * static_cast<double>(g.entries());
        // Reference levels of all sources, concatenated (the accuracy input).
        std::vector<double> ref_all;
        for (const auto& r : refs) ref_all.insert(ref_all.end(), r.begin(), r.end());

        std::unique_ptr<bb::bit_slices> slices;
        double t_slices = 0;
        if (ctx.want_variant("tc") || ctx.want_variant("cc")) {
            t0 = std::chrono::steady_clock::now();
            slices = std::make_unique<bb::bit_slices>(bb::build_slices(g.n, g.row_ptr.data(), g.col.data()));
            t_slices = seconds_since(t0);
        }
        ctx.summary(c.name + ": graph",
                    std::to_string(g.n) + " vertices, " + std::to_string(g.edges()) + " edges; generated in " +
                        fixed(t_graph, 2) + " s" +
                        (slices ? "; " + std::to_string(slices->slices()) + " slices (" +
                                      fixed(static_cast<double>(g.entries()) / std::max(1ll, slices->slices()), 2) +
                                      " entries each, " + fixed(slices->bytes() / 1048576.0, 1) + " MiB) in " +
                                      fixed(t_slices, 2) + " s"
                                : std::string()));

        auto measure = [&](const char* vname, auto& driver, std::size_t device_bytes, tb::peak compute,
                           const std::string& what) {
            // Validation: every vertex's level from every source.
            std::vector<double> got_all;
            std::string steps;
            for (std::size_t i = 0; i < sources.size(); ++i) {
                const bf::bfs_stats st = driver.run(sources[i], ctx.stream());
                if (i == 0) steps = st.directions;
                const std::vector<int> lv = driver.levels();
                got_all.insert(got_all.end(), lv.begin(), lv.end());
            }
            const tb::accuracy err = tb::accuracy_of(ref_all.data(), got_all.data(), got_all.size());
            tb::row_spec spec;
            spec.case_name = c.name;
            spec.variant = vname;
            spec.bytes = csr_bytes;
            spec.flops = edges;
            spec.ceiling = tb::peak::memory;
            spec.compute = compute;
            spec.footprint_bytes = device_bytes;
            spec.note = what + "; flops = " + fixed(edges, 0) + " edges traversed (GFLOP/s = GTEPS); steps " + steps +
                        "; levels checked from " + std::to_string(sources.size()) + " sources";
            const int source = sources[0];
            const std::vector<double> med =
                ctx.measure(spec, [&driver, source](cudaStream_t s) { driver.run(source, s); }, err);
            if (!med.empty() && med.front() > 0) gteps[vname][c.name] = edges / (med.front() * 1e-3) / 1e9;
        };

        if (ctx.want_variant("base")) {
            bf::csr_bfs base(g);
            measure("base", base, base.device_bytes(), tb::peak::int_ops,
                    "CSR direction-optimizing BFS, load-balanced top-down, bitmap bottom-up");
        }
        if (ctx.want_variant("tc")) {
            bf::bit_bfs<tcore::tensor_core> tc(g, *slices);
            measure("tc", tc, tc.device_bytes(), tb::peak::int_ops, "bitmap BFS, b1 m8n8k128 AND+popc on 8x128 slices");
        }
        if (ctx.want_variant("cc")) {
            bf::bit_bfs<tcore::cuda_core> cc(g, *slices);
            measure("cc", cc, cc.device_bytes(), tb::peak::int_ops, "tc's kernels on the cuda_core backend");
        }
    }

    for (const auto& [variant, per_case] : gteps)
        for (const auto& [name, v] : per_case) ctx.summary(name + ": GTEPS " + variant, fixed(v, 2));
    for (const auto& [name, v] : gteps["tc"]) {
        const auto b = gteps["base"].find(name);
        if (b != gteps["base"].end() && b->second > 0)
            ctx.summary(name + ": speedup tc over base (target >= 2 on kron21)", fixed(v / b->second, 2));
        const auto cc = gteps["cc"].find(name);
        if (cc != gteps["cc"].end() && cc->second > 0) ctx.summary(name + ": speedup tc over cc", fixed(v / cc->second, 2));
    }
}

}  // namespace

void tcore_register_bfs(tcore::bench::registry& r)
{
    r.add({"bfs", "BFS: bitmap slices on the 1-bit MMA (BerryBees-like) vs CSR direction-optimizing BFS", run});
}
