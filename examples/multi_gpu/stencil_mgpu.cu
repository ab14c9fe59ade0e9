// examples/multi_gpu/stencil_mgpu.cu - tcore-mgpu-stencil: the FP64 stencils
// of the stencil workload (examples/stencil) split into slabs along the
// slowest dimension over 1, 2, 4, ... GPUs (stencil_mgpu.cuh), r t ghost
// layers exchanged with NCCL while the interior is computed. Weak scaling
// (the single-GPU benchmark's size per GPU: 10240^2, 512^3) and strong
// scaling (20480^2, 1024^3 in all); one CSV row per (scaling, case,
// variant, GPUs) with a `gpus` column. README.md (## Stencil) has the
// options, commands and measurements.
//
// Variants: tc (tcore::tensor_core), cc (tcore::cuda_core), cce
// (tcore::examples::stencil::stencil_cce, examples/stencil), t = 1 and 3 steps fused per run, Dirichlet or
// periodic, schedule overlap (interior while exchanging) or serial
// (exchange, then the whole slab).
//
// Timing (bench/harness protocol, harness/timing.hpp): a calibration of a
// few runs, a time-based warm-up, then repetitions timed with CUDA events
// on the first GPU's stream, which every GPU's streams follow and which
// waits for all of them (so one repetition is the slowest GPU's run),
// queued behind a hold kernel; medians. Per row: the run; the same run
// with the exchange skipped (compute_only_ms); the exchange alone
// (exchange_ms); comm_exposed_ms = median - compute_only: the communication
// the overlap did not hide. GStencil/s = points x t / median. Efficiency
// against the same variant on one GPU: weak t(1) / t(N), strong
// t(1) / (N t(N)).
//
// Check: strong-scaling rows compare the result at sampled points (random
// ones, and the layers around every slab boundary of every GPU count run)
// with the one-GPU run of the same variant, bit for bit.
//
// CUDA_DEVICE_MAX_CONNECTIONS is set to 1 (unless the environment sets it):
// see the overlap schedule in stencil_mgpu.cuh.
//
// One process drives every GPU (ncclCommInitAll), or one process per GPU:
//   tcore-mgpu-stencil --rank R --ranks N --id-file PATH [--device D]
// rank 0 writes the ncclUniqueId to PATH, the others wait for it; every rank
// also runs the one-GPU baseline on its own device; only rank 0 writes
// output. Every decision that changes the number of NCCL calls (warm-up
// length, repetitions) uses values agreed over the ranks.
#include "nccl_check.hpp"
#include "stencil_mgpu.cuh"
#include "stencil_mgpu_slab.hpp"
#include "stencil_mgpu_world.hpp"

#include "harness/harness.hpp"
#include "harness/inputs.hpp"
#include "harness/timing.hpp"

#include <tcore/patterns/device/stencil.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace tb = tcore::bench;
using namespace tcore;
using namespace tcore::mgpu;

// -- options -------------------------------------------------------------------

struct options {
    std::string out = "tcore-mgpu-stencil.csv";
    bool quick = false;
    int gpus = 0;  ///< 0: every device (one process), or --ranks
    std::vector<std::string> shapes{"star2d1r", "star3d1r"};
    std::vector<int> steps{1, 3};
    std::vector<std::string> boundaries{"dirichlet"};
    std::vector<std::string> backends{"tc", "cc", "cce"};
    std::vector<std::string> scalings{"weak", "strong"};
    std::vector<std::string> schedules{"serial", "overlap"};
    bool check = true;
    double warmup_s = 0.25, min_time_s = 0.1;
    int min_reps = 20;
    int rank = -1, ranks = 0, device = -1;
    std::string id_file;
};

const char* const usage =
    "tcore-mgpu-stencil: FP64 stencils split into slabs over the GPUs of a host (NCCL)\n"
    "  --out FILE.csv       rows (default tcore-mgpu-stencil.csv)\n"
    "  --quick              small grids (weak 1021x777 / 97x83x71 per GPU, strong 2053x1531 / 131x97x143)\n"
    "  --gpus N             GPU counts 1, 2, 4, ... up to N, and N (default: every device)\n"
    "  --shape LIST         star2d1r,box2d1r,star2d3r,box2d3r,star3d1r,box3d1r or all (default star2d1r,star3d1r)\n"
    "  --steps LIST         1,3 (default both)\n"
    "  --boundary LIST      dirichlet,periodic (default dirichlet)\n"
    "  --backend LIST       tc,cc,cce (default all three)\n"
    "  --scaling LIST       weak,strong (default both)\n"
    "  --schedule LIST      serial,overlap (default both)\n"
    "  --no-check           skip the comparison with one GPU\n"
    "  --warmup S --min-time S --min-reps N   timing (default 0.25 s, 0.1 s, 20; --quick 0.05, 0.02, 10)\n"
    "  --rank R --ranks N --id-file PATH [--device D]   one process per GPU (rank 0 writes the NCCL id to PATH)\n";

bool one_of(const std::string& v, const std::vector<std::string>& allowed)
{
    return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

/// Parses argv into `o`; "" or the problem in one line.
std::string parse(int argc, char** argv, options& o, bool& help)
{
    const std::vector<std::string> all_shapes{"star2d1r", "box2d1r", "star2d3r", "box2d3r", "star3d1r", "box3d1r"};
    bool timing_given[3] = {false, false, false};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw tcore::error(a + " needs a value");
            return argv[++i];
        };
        auto number = [&](const std::string& v, double lo) {
            char* end = nullptr;
            const double d = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(d >= lo)) throw tcore::error(a + ": a number >= " + std::to_string(lo) + " expected, got '" + v + "'");
            return d;
        };
        auto integer = [&](const std::string& v, long lo) {
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < lo) throw tcore::error(a + ": a whole number >= " + std::to_string(lo) + " expected, got '" + v + "'");
            return static_cast<int>(n);
        };
        auto list = [&](const std::vector<std::string>& allowed) {
            std::vector<std::string> v = tb::split_list(value());
            if (v.size() == 1 && v[0] == "all") return allowed;
            if (v.empty()) throw tcore::error(a + ": empty list");
            for (const std::string& x : v)
                if (!one_of(x, allowed)) throw tcore::error(a + ": unknown '" + x + "'");
            return v;
        };
        try {
            if (a == "--help" || a == "-h") help = true;
            else if (a == "--out") o.out = value();
            else if (a == "--quick") o.quick = true;
            else if (a == "--gpus") o.gpus = integer(value(), 1);
            else if (a == "--shape") o.shapes = list(all_shapes);
            else if (a == "--steps") {
                o.steps.clear();
                for (const std::string& s : list({"1", "3"})) o.steps.push_back(std::stoi(s));
            } else if (a == "--boundary") o.boundaries = list({"dirichlet", "periodic"});
            else if (a == "--backend") o.backends = list({"tc", "cc", "cce"});
            else if (a == "--scaling") o.scalings = list({"weak", "strong"});
            else if (a == "--schedule") o.schedules = list({"serial", "overlap"});
            else if (a == "--no-check") o.check = false;
            else if (a == "--warmup") o.warmup_s = number(value(), 0), timing_given[0] = true;
            else if (a == "--min-time") o.min_time_s = number(value(), 0), timing_given[1] = true;
            else if (a == "--min-reps") o.min_reps = integer(value(), 1), timing_given[2] = true;
            else if (a == "--rank") o.rank = integer(value(), 0);
            else if (a == "--ranks") o.ranks = integer(value(), 1);
            else if (a == "--device") o.device = integer(value(), 0);
            else if (a == "--id-file") o.id_file = value();
            else return "unknown option " + a + " (--help lists them)";
        } catch (const tcore::error& e) {
            return e.what();
        } catch (const std::exception&) {
            return a + ": bad value";
        }
    }
    if (o.quick) {
        if (!timing_given[0]) o.warmup_s = 0.05;
        if (!timing_given[1]) o.min_time_s = 0.02;
        if (!timing_given[2]) o.min_reps = 10;
    }
    if ((o.rank >= 0) != (o.ranks > 0)) return "--rank and --ranks go together";
    if (o.ranks > 0 && o.rank >= o.ranks) return "--rank must be below --ranks";
    if (o.ranks > 1 && o.id_file.empty()) return "one process per GPU needs --id-file PATH";
    if (o.ranks > 0 && o.gpus > 0 && o.gpus != o.ranks) return "--gpus: one process per GPU runs on --ranks GPUs";
    return "";
}

// -- variants ------------------------------------------------------------------

using tb::hash_unit;  // harness/inputs.hpp: the single-GPU benchmark's input values

/// Fills a slab's local array (layers x unit doubles) with the whole grid's
/// values: local layer a holds grid array layer first + a (wrapped into
/// 0 .. wrap-1 where wrap > 0: periodic).
__global__ void fill_slab(double* a, long long layers, long long unit, long long first, long long wrap,
                          unsigned long long seed)
{
    const long long n = layers * unit;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long layer = first + i / unit;
        if (wrap > 0) layer = ((layer % wrap) + wrap) % wrap;
        a[i] = hash_unit(static_cast<unsigned long long>(layer * unit + i % unit), seed);
    }
}

template <class S>
stencil_weights<S> weights_for(unsigned long long seed)
{
    stencil_weights<S> w;  // arbitrary weights w / |S|, |w| < 1
    for (int i = 0; i < S::weight_count; ++i) w.w[i] = hash_unit(1000 + i, seed ^ 0xabcdefull) / S::points;
    return w;
}

template <class S, class Backend, int T>
stencil_op op_for_boundary(boundary bc, unsigned long long seed)
{
    if (bc == boundary::periodic) return make_stencil_op<S, Backend, T, boundary::periodic>(weights_for<S>(seed));
    return make_stencil_op<S, Backend, T, boundary::dirichlet>(weights_for<S>(seed));
}

template <class S, class Backend>
stencil_op op_for_steps(int t, boundary bc, unsigned long long seed)
{
    if (t == 1) return op_for_boundary<S, Backend, 1>(bc, seed);
    if (t == 3) return op_for_boundary<S, Backend, 3>(bc, seed);
    throw tcore::error("tcore-mgpu-stencil: steps " + std::to_string(t) + " not compiled (1 or 3)");
}

template <class S>
stencil_op op_for_backend(const std::string& b, int t, boundary bc, unsigned long long seed)
{
    if (b == "tc") return op_for_steps<S, tensor_core>(t, bc, seed);
    if (b == "cc") return op_for_steps<S, cuda_core>(t, bc, seed);
    if (b == "cce") return op_for_steps<S, examples::stencil::stencil_cce>(t, bc, seed);
    throw tcore::error("tcore-mgpu-stencil: unknown backend " + b);
}

stencil_op make_op(const std::string& shape, const std::string& b, int t, boundary bc, unsigned long long seed)
{
    if (shape == "star2d1r") return op_for_backend<star2d1r>(b, t, bc, seed);
    if (shape == "box2d1r") return op_for_backend<box2d1r>(b, t, bc, seed);
    if (shape == "star2d3r") return op_for_backend<star2d3r>(b, t, bc, seed);
    if (shape == "box2d3r") return op_for_backend<box2d3r>(b, t, bc, seed);
    if (shape == "star3d1r") return op_for_backend<star3d1r>(b, t, bc, seed);
    if (shape == "box3d1r") return op_for_backend<box3d1r>(b, t, bc, seed);
    throw tcore::error("tcore-mgpu-stencil: unknown shape " + shape);
}

int dims_of(const std::string& shape) { return shape.find("3d") != std::string::npos ? 3 : 2; }
int radius_of(const std::string& shape) { return shape.find("3r") != std::string::npos ? 3 : 1; }

/// The grid of a case: weak scaling `gpus` times the per-GPU grid along the
/// cut dimension, strong scaling the fixed total.
stencil_grid grid_for(const std::string& scaling, int dims, int gpus, bool quick)
{
    const bool weak = scaling == "weak";
    if (dims == 2) {
        if (weak) return quick ? stencil_grid{1021, 777LL * gpus, 1} : stencil_grid{10240, 10240LL * gpus, 1};
        return quick ? stencil_grid{2053, 1531, 1} : stencil_grid{20480, 20480, 1};
    }
    if (weak) return quick ? stencil_grid{97, 83, 71LL * gpus} : stencil_grid{512, 512, 512LL * gpus};
    return quick ? stencil_grid{131, 97, 143} : stencil_grid{1024, 1024, 1024};
}

std::string grid_name(const stencil_grid& g, int dims)
{
    return std::to_string(g.nx) + "x" + std::to_string(g.ny) + (dims == 3 ? "x" + std::to_string(g.nz) : "");
}

// -- data ----------------------------------------------------------------------

unsigned long long seed_of(const std::string& shape, const stencil_grid& g, int t)
{
    unsigned long long s = 0x57e4c11ull + static_cast<unsigned long long>(g.nx * 131 + g.ny * 7 + g.nz) * 7 + t;
    for (char c : shape) s = s * 31 + static_cast<unsigned char>(c);
    return s;
}

/// Fills every local rank's input with the whole grid's values, then prepare().
void fill(slab_stencil& st, unsigned long long seed)
{
    const bool periodic = st.op().bc == boundary::periodic;
    for (slab_stencil::part& p : st.parts()) {
        TCORE_CHECK(cudaSetDevice(p.device));
        const long long first = p.slab.begin - p.slab.ghost_lo;  // Dirichlet: array layer; periodic: grid layer
        const long long layers = p.slab.array_layers();
        const long long n = layers * st.unit();
        const unsigned blocks = static_cast<unsigned>(std::min<long long>((n + 255) / 256, 65536));
        fill_slab<<<blocks, 256, 0, p.compute>>>(p.in, layers, st.unit(), first, periodic ? st.layers() : 0, seed);
        TCORE_CHECK_LAUNCH();
    }
    st.prepare();
}

/// Points of the whole grid's array at which runs are compared.
struct samples {
    std::vector<long long> index;  ///< array element
    std::vector<double> value;     ///< the one-GPU result
};

/// Random interior points, and the layers within r t + 1 of every slab
/// boundary of the GPU counts in `counts` (and the grid's first and last).
std::vector<long long> sample_points(const stencil_op& op, const stencil_grid& g, const std::vector<int>& counts)
{
    const int h = stencil_halo(op.bc, op.radius);
    const long long ex = g.nx + 2 * h, ey = g.ny + 2 * h;
    const long long layers = op.dims == 3 ? g.nz : g.ny;
    const long long unit = op.dims == 3 ? ex * ey : ex;
    unsigned long long state = 0x5eed5eedull;
    auto next = [&](long long n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<long long>((state >> 17) % static_cast<unsigned long long>(n));
    };
    auto point_in_layer = [&](long long layer) {  // a random interior point of grid layer `layer`
        const long long x = next(g.nx) + h;
        const long long within = op.dims == 3 ? (next(g.ny) + h) * ex + x : x;
        return (layer + h) * unit + within;
    };
    std::set<long long> layer_set{0, layers - 1};
    const long long reach = static_cast<long long>(op.radius) * op.steps + 1;
    for (int n : counts)
        for (int k = 1; k < n; ++k) {
            const long long b = slab_begin(layers, n, k);
            for (long long l = b - reach; l < b + reach; ++l)
                if (l >= 0 && l < layers) layer_set.insert(l);
        }
    std::vector<long long> idx;
    for (long long l : layer_set)
        for (int i = 0; i < 4; ++i) idx.push_back(point_in_layer(l));
    for (int i = 0; i < 1024; ++i) idx.push_back(point_in_layer(next(layers)));
    return idx;
}

/// The values of `st`'s out at array elements `index` that a local rank
/// owns (NaN elsewhere).
std::vector<double> read_points(const slab_stencil& st, const std::vector<long long>& index)
{
    const int h = st.halo();
    std::vector<double> v(index.size(), std::nan(""));
    st.synchronize();
    for (std::size_t i = 0; i < index.size(); ++i) {
        const long long layer = index[i] / st.unit() - h, within = index[i] % st.unit();
        for (const slab_stencil::part& p : st.parts()) {
            if (layer < p.slab.begin || layer >= p.slab.begin + p.slab.count) continue;
            TCORE_CHECK(cudaSetDevice(p.device));
            const long long local = (layer - p.slab.begin + p.slab.ghost_lo + h) * st.unit() + within;
            TCORE_CHECK(cudaMemcpy(&v[i], p.out + local, sizeof(double), cudaMemcpyDeviceToHost));
        }
    }
    return v;
}

// -- timing --------------------------------------------------------------------

using clock_type = std::chrono::steady_clock;

/// The harness protocol over a world: calibration, a time-based warm-up and
/// the timed repetitions, their counts agreed over every process.
tb::timing measure(const nccl_world& agree, cudaStream_t origin, const tb::launch_fn& launch, const options& o)
{
    launch(origin);  // first run: lazy loading, errors
    TCORE_CHECK(cudaStreamSynchronize(origin));
    constexpr int calib = 4;
    const auto t0 = clock_type::now();
    for (int i = 0; i < calib; ++i) launch(origin);
    TCORE_CHECK(cudaStreamSynchronize(origin));
    double per = std::chrono::duration<double>(clock_type::now() - t0).count() / calib;
    per = agree.agree_max(std::max(per, 1e-7));
    const long long warm = std::clamp<long long>(static_cast<long long>(std::ceil(o.warmup_s / per)), 1, 200000);
    for (long long i = 0; i < warm; ++i) {
        launch(origin);
        if (i % 32 == 31) TCORE_CHECK(cudaStreamSynchronize(origin));
    }
    TCORE_CHECK(cudaStreamSynchronize(origin));
    tb::rep_policy policy;
    policy.min_time_s = o.min_time_s;
    policy.min_reps = o.min_reps;
    const int reps = tb::repetitions_for(per, policy);
    tb::timing t = tb::time_repetitions(origin, launch, reps, {}, true);
    t.median_ms = agree.agree_max(t.median_ms);
    t.min_ms = agree.agree_max(t.min_ms);
    t.max_ms = agree.agree_max(t.max_ms);
    return t;
}

// -- one case ------------------------------------------------------------------

struct config {
    std::string scaling, shape, backend;
    int steps = 1;
    boundary bc = boundary::dirichlet;
    slab_schedule schedule = slab_schedule::overlap;
    std::string variant_key() const { return shape + "|" + backend + "|" + std::to_string(steps) + "|" + boundary_name(bc); }
};

struct result {
    config c;
    stencil_grid grid;
    int gpus = 1, processes = 1;
    tb::timing t;
    double compute_only_ms = 0, exchange_ms = 0;
    double halo_mb = 0;
    std::string check = "-";
    bool ran = false;
};

/// Bytes each rank of `st`-to-be needs (in, out and the strips' scratch), at most.
std::size_t bytes_needed(const stencil_op& op, const stencil_grid& g, int ranks)
{
    const int h = stencil_halo(op.bc, op.radius);
    const long long unit = op.dims == 3 ? (g.nx + 2 * h) * (g.ny + 2 * h) : g.nx + 2 * h;
    const long long layers = op.dims == 3 ? g.nz : g.ny;
    const long long most = (layers + ranks - 1) / ranks + 2LL * op.radius * op.steps + 2 * h;
    const long long strips = 2 * (6LL * op.radius * op.steps + 2 * h);
    return static_cast<std::size_t>((2 * most + strips) * unit) * sizeof(double);
}

/// Is there room on every device of `world` (all of them agreeing)?
bool fits(const nccl_world& world, const nccl_world& agree, std::size_t need, std::string& why)
{
    double short_by = 0;
    for (const nccl_world::member& m : world.members()) {
        TCORE_CHECK(cudaSetDevice(m.device));
        std::size_t free_b = 0, total_b = 0;
        TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const double missing = static_cast<double>(need + (512ull << 20)) - static_cast<double>(free_b);
        short_by = std::max(short_by, missing);
    }
    short_by = agree.agree_max(short_by);
    if (short_by <= 0) return true;
    why = "needs " + std::to_string(need / 1048576) + " MiB per GPU, " + std::to_string(static_cast<long long>(short_by / 1048576)) + " MiB short";
    return false;
}

/// Runs config c on `world`; `reference`: compare with it (strong scaling),
/// `record`: keep the result at the sample points.
result run_config(const nccl_world& world, const nccl_world& agree, cudaStream_t origin, const config& c,
                  const stencil_grid& g, const options& o, const samples* reference, samples* record,
                  const std::vector<int>& counts)
{
    result r;
    r.c = c;
    r.grid = g;
    r.gpus = world.ranks();
    r.processes = world.multi_process() ? world.ranks() : 1;
    const unsigned long long seed = seed_of(c.shape, g, c.steps);
    stencil_op op = make_op(c.shape, c.backend, c.steps, c.bc, seed);
    std::string why;
    if (!fits(world, agree, bytes_needed(op, g, world.ranks()), why)) {
        r.check = "skipped: " + why;
        return r;
    }
    slab_stencil st(world, std::move(op), g);
    fill(st, seed);
    r.halo_mb = world.ranks() > 1 ? 2.0 * st.op().radius * st.op().steps * st.unit() * sizeof(double) / 1e6 : 0.0;
    r.t = measure(agree, origin, [&](cudaStream_t s) { st.run(s, c.schedule, true); }, o);
    if (world.ranks() > 1) {
        r.compute_only_ms = measure(agree, origin, [&](cudaStream_t s) { st.run(s, c.schedule, false); }, o).median_ms;
        r.exchange_ms = measure(agree, origin, [&](cudaStream_t s) { st.exchange_only(s); }, o).median_ms;
    } else {
        r.compute_only_ms = r.t.median_ms;
    }
    r.ran = true;
    if (o.check && (reference || record)) {
        // a clean run for the comparison (the last timed one was a lone exchange)
        st.run(origin, c.schedule, true);
        TCORE_CHECK(cudaStreamSynchronize(origin));
        if (record) {
            record->index = sample_points(st.op(), g, counts);
            record->value = read_points(st, record->index);
            r.check = "reference";
        }
        if (reference && !reference->index.empty()) {
            const std::vector<double> got = read_points(st, reference->index);
            double bad = 0;
            for (std::size_t i = 0; i < got.size(); ++i)
                if (!std::isnan(got[i]) && std::memcmp(&got[i], &reference->value[i], sizeof(double)) != 0) ++bad;
            bad = agree.agree_max(bad);  // points of other processes read NaN here: each checks its own
            r.check = bad == 0 ? "equal at " + std::to_string(reference->index.size()) + " points"
                               : "DIFFERS at " + std::to_string(static_cast<long long>(bad)) + " points";
        }
    }
    return r;
}

// -- output --------------------------------------------------------------------

const char* const csv_header =
    "workload,scaling,case,shape,boundary,steps,backend,schedule,gpus,processes,nx,ny,nz,points,median_ms,min_ms,"
    "max_ms,reps,gstencil_s,efficiency,compute_only_ms,comm_exposed_ms,exchange_ms,halo_mb_per_gpu,check,device";

struct output {
    std::ofstream csv;
    std::string device;
    std::map<std::string, double> one_gpu_ms;  ///< scaling and variant -> time on one GPU
};

void emit(output& out, const result& r)
{
    const int dims = dims_of(r.c.shape);
    const double points = static_cast<double>(r.grid.nx) * r.grid.ny * (dims == 3 ? r.grid.nz : 1);
    const std::string case_name = r.c.shape + " " + grid_name(r.grid, dims) + " t=" + std::to_string(r.c.steps) +
                                  (r.c.bc == boundary::periodic ? " periodic" : "");
    if (!r.ran) {
        std::printf("%-6s %-36s %-3s %d GPU(s): %s\n", r.c.scaling.c_str(), case_name.c_str(), r.c.backend.c_str(),
                    r.gpus, r.check.c_str());
        return;
    }
    const double ms = r.t.median_ms;
    const double gst = points * r.c.steps / (ms * 1e-3) / 1e9;
    // one baseline per variant: on one GPU both schedules run the same
    // stencil_apply, and the first measured serves both
    const std::string base = r.c.scaling + "|" + r.c.variant_key();
    if (r.gpus == 1) out.one_gpu_ms.emplace(base, ms);
    double eff = std::nan("");
    if (auto it = out.one_gpu_ms.find(base); it != out.one_gpu_ms.end())
        eff = r.c.scaling == "weak" ? it->second / ms : it->second / (r.gpus * ms);
    const double exposed = r.gpus > 1 ? ms - r.compute_only_ms : 0.0;
    char line[1024];
    std::snprintf(line, sizeof line,
                  "stencil_mgpu,%s,%s,%s,%s,%d,%s,%s,%d,%d,%lld,%lld,%lld,%.0f,%.6f,%.6f,%.6f,%d,%.3f,%.4f,%.6f,%.6f,"
                  "%.6f,%.4f,%s,%s",
                  r.c.scaling.c_str(), case_name.c_str(), r.c.shape.c_str(), boundary_name(r.c.bc), r.c.steps,
                  r.c.backend.c_str(), schedule_name(r.c.schedule), r.gpus, r.processes, r.grid.nx, r.grid.ny,
                  r.grid.nz, points, ms, r.t.min_ms, r.t.max_ms, r.t.repetitions, gst, eff, r.compute_only_ms, exposed,
                  r.exchange_ms, r.halo_mb, r.check.c_str(), out.device.c_str());
    out.csv << line << '\n';
    out.csv.flush();
    std::printf("%-6s %-36s %-3s %-7s %d GPU(s): %9.3f ms %8.1f GStencil/s eff %5.2f  exposed comm %7.3f ms  exchange "
                "%7.3f ms  %s\n",
                r.c.scaling.c_str(), case_name.c_str(), r.c.backend.c_str(), schedule_name(r.c.schedule), r.gpus, ms,
                gst, eff, exposed, r.exchange_ms, r.check.c_str());
    std::fflush(stdout);
}

std::vector<config> configs_of(const options& o)
{
    std::vector<config> v;
    for (const std::string& scaling : o.scalings)
        for (const std::string& shape : o.shapes)
            for (const std::string& b : o.boundaries)
                for (int t : o.steps)
                    for (const std::string& backend : o.backends)
                        for (const std::string& sched : o.schedules) {
                            config c;
                            c.scaling = scaling;
                            c.shape = shape;
                            c.backend = backend;
                            c.steps = t;
                            c.bc = b == "periodic" ? boundary::periodic : boundary::dirichlet;
                            c.schedule = sched == "serial" ? slab_schedule::serial : slab_schedule::overlap;
                            v.push_back(c);
                        }
    return v;
}

/// Refuses, before anything runs, a case whose grid cannot be cut into
/// `gpus` slabs of r t layers or more.
void validate(const std::vector<config>& cs, const std::vector<int>& counts, bool quick)
{
    for (const config& c : cs)
        for (int n : counts) {
            const stencil_grid g = grid_for(c.scaling, dims_of(c.shape), n, quick);
            require_slabs(dims_of(c.shape) == 3 ? g.nz : g.ny, n, radius_of(c.shape), c.steps,
                          ("tcore-mgpu-stencil " + c.shape + " " + grid_name(g, dims_of(c.shape))).c_str());
        }
}

int run(const options& o)
{
    const int present = device_count();
    require(present > 0, "tcore-mgpu-stencil", "no CUDA device");
    const bool multi = o.ranks > 1;
    const int limit = multi ? o.ranks : (o.gpus > 0 ? o.gpus : present);
    require(multi || limit <= present, "tcore-mgpu-stencil",
            "--gpus " + std::to_string(limit) + ": " + std::to_string(present) + " GPUs present");
    std::vector<int> counts;
    if (multi) {
        counts = {1, o.ranks};
    } else {
        for (int n = 1; n <= limit; n *= 2) counts.push_back(n);
        if (counts.back() != limit) counts.push_back(limit);
    }
    const std::vector<config> cs = configs_of(o);
    validate(cs, counts, o.quick);

    output out;
    const int my_rank = multi ? o.rank : 0;
    const int my_device = o.device >= 0 ? o.device : (multi ? o.rank % present : 0);
    {
        cudaDeviceProp prop{};
        TCORE_CHECK(cudaGetDeviceProperties(&prop, my_device));
        out.device = prop.name;
    }
    if (my_rank == 0) {
        out.csv.open(o.out);
        require(static_cast<bool>(out.csv), "tcore-mgpu-stencil", "cannot write " + o.out);
        out.csv << csv_header << '\n';
        std::printf("tcore-mgpu-stencil: %s x %d (%s), GPU counts", out.device.c_str(), multi ? o.ranks : present,
                    multi ? "one process per GPU" : "one process");
        for (int n : counts) std::printf(" %d", n);
        std::printf(", %zu cases each\n", cs.size());
        const char* conn = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
        if (!conn || std::string(conn) != "1")
            std::printf("note: CUDA_DEVICE_MAX_CONNECTIONS=%s: the overlap schedule may wait for NCCL behind the "
                        "interior (1 recommended)\n", conn ? conn : "(unset)");
    }
    std::map<std::string, samples> refs;  // variant -> one-GPU result (strong scaling)
    const auto t_start = clock_type::now();

    if (multi) {
        nccl_world world = nccl_world::one_rank(o.rank, o.ranks, my_device, o.id_file);
        nccl_world local = nccl_world::local_device(my_device);
        TCORE_CHECK(cudaSetDevice(my_device));
        cudaStream_t origin = nullptr;
        TCORE_CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
        for (const config& c : cs) {
            const bool strong = c.scaling == "strong";
            const int dims = dims_of(c.shape);
            samples ref;
            result base = run_config(local, world, origin, c, grid_for(c.scaling, dims, 1, o.quick), o, nullptr,
                                     strong ? &ref : nullptr, counts);
            if (my_rank == 0) emit(out, base);
            result r = run_config(world, world, origin, c, grid_for(c.scaling, dims, o.ranks, o.quick), o,
                                  strong ? &ref : nullptr, nullptr, counts);
            if (my_rank == 0) emit(out, r);
        }
        TCORE_CHECK(cudaSetDevice(my_device));
        TCORE_CHECK(cudaStreamDestroy(origin));
    } else {
        for (int n : counts) {
            nccl_world world = nccl_world::single_process(n);
            TCORE_CHECK(cudaSetDevice(0));
            cudaStream_t origin = nullptr;
            TCORE_CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
            for (const config& c : cs) {
                const bool strong = c.scaling == "strong";
                samples* record = strong && n == 1 ? &refs[c.variant_key()] : nullptr;
                const samples* reference = strong && n > 1 && refs.count(c.variant_key()) ? &refs[c.variant_key()] : nullptr;
                const result r = run_config(world, world, origin, c, grid_for(c.scaling, dims_of(c.shape), n, o.quick), o,
                                            reference, record, counts);
                emit(out, r);
            }
            TCORE_CHECK(cudaSetDevice(0));
            TCORE_CHECK(cudaStreamDestroy(origin));
        }
    }
    if (my_rank == 0)
        std::printf("done in %.1f s; rows in %s\n",
                    std::chrono::duration<double>(clock_type::now() - t_start).count(), o.out.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    // Before the CUDA runtime starts: one hardware queue per device, so that
    // kernels start in the order they were launched and NCCL's kernel is
    // resident before the interior's persistent blocks fill the SMs
    // (stencil_mgpu.cuh, overlap). A value given in the environment stays.
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
    options o;
    bool help = false;
    const std::string problem = parse(argc, argv, o, help);
    if (help) {
        std::printf("%s", usage);
        return 0;
    }
    if (!problem.empty()) {
        std::fprintf(stderr, "tcore-mgpu-stencil: %s\n", problem.c_str());
        return 2;
    }
    try {
        return run(o);
    } catch (const std::exception& e) {
        const std::string what = e.what();
        const char* prefix = what.rfind("tcore-mgpu-stencil", 0) == 0 ? "" : "tcore-mgpu-stencil: ";
        std::fprintf(stderr, "%s%s\n", prefix, what.c_str());
        return 1;
    }
}
