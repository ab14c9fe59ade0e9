// examples/stencil/stencil.cu - the stencil workload: FP64 iterative
// stencils with arbitrary weights, the ConvStencil/EBISU shape set (star2d1r
// = 2d5pt, box2d1r = 2d9pt, star2d3r = 2d13pt, box2d3r = 2d49pt, star3d1r =
// 3d7pt, box3d1r = 3d27pt), t = 1 and 3 steps fused per launch.
//
// Variants (tcore/patterns/stencil_tiled.cuh):
//   tc   stencil-to-MMA layout (tcore/patterns/stencil.cuh) on the FP64 tensor
//        cores, f64 m16n8k{16,8,4}, temporal blocking t
//   cc   the same kernel, layout and tiling with the cuda_core backend
//   cce  plain CUDA-core stencil, same tiling and temporal blocking (shared
//        memory tiles, register sliding window, weights in the constant bank):
//        the fair CUDA-core opponent (there is no vendor stencil library)
//
// Cases "<shape> <grid> t=<t>": 2D 10240^2 and 4096^2, 3D 512^3 and 1024^3
// (skipped with a message where device memory is short), Dirichlet boundary
// (a fixed halo of r stored with the grid); one periodic case per
// dimension. --quick: 2D 1021x777 and 3D 97x83x71 (not multiples of any tile).
// --input stencil:shape=S,grid=NXxNY[xNZ],steps=1|3,boundary=...,weights=FILE:
// the user's cases instead (tcore-bench --help lists the keys).
//
// Metrics: bytes = 16 * points (one read and one write of the grid per
// launch: the minimum traffic of t fused steps, so the harness's fraction
// of the copy bandwidth is the fraction of the bandwidth roofline for that
// t); flops = points * t * 2|S| (useful flops, not the MMA's padded ones),
// hence GStencil/s = GFLOP/s / (2|S|); the summary lists GStencil/s
// (points x steps / s) per row, the speedups tc/cc and tc/cce, and the
// issue's targets for 10240^2, t = 3. The tensor-core bound column is the
// roofline model's 1 + (a-1)/(1+a): memory-bound stencils gain at most that.
//
// Accuracy: inputs and halo are a hash of the array index (generated on the
// device; the host evaluates the same hash). Up to 4M points the whole grid
// is compared with t steps of the long double CPU reference; larger grids
// compare 4096 random interior points plus the corners and edge midpoints,
// each against a long double evaluation of its dependence cone.
#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include "stencil_cce.cuh"

#include <tcore/patterns/device/stencil.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

namespace tb = tcore::bench;
namespace ex = tcore::examples::stencil;
using tcore::boundary;
using tcore::stencil_grid;

// -- inputs -------------------------------------------------------------------

using tb::hash_unit;  // harness/inputs.hpp: element i of an input array, host and device alike

__global__ void init_kernel(double* a, long long n, unsigned long long seed)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        a[i] = hash_unit(static_cast<unsigned long long>(i), seed);
}

/// NaN into every interior point (so a point a kernel never writes shows up).
__global__ void poison_interior(double* a, long long ex, long long ey, long long ez, int h)
{
    const long long n = ex * ey * ez;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long x = i % ex, y = (i / ex) % ey, z = i / (ex * ey);
        const bool zin = ez == 1 || (z >= h && z < ez - h);
        if (x >= h && x < ex - h && y >= h && y < ey - h && zin) a[i] = __longlong_as_double(-1LL);
    }
}

__global__ void gather_kernel(const double* a, const long long* idx, double* out, long long n)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        out[i] = a[idx[i]];
}

template <class T>
struct device_array {
    T* ptr = nullptr;
    explicit device_array(std::size_t n)
    {
        if (n) TCORE_CHECK(cudaMalloc(&ptr, n * sizeof(T)));
    }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
};

unsigned grid_for(long long n) { return static_cast<unsigned>(std::min<long long>((n + 255) / 256, 65536)); }

// -- reference ---------------------------------------------------------------------

/// Long double value at interior point (x, y, z) after t steps (Dirichlet),
/// computed on its dependence cone from the hashed input.
template <class S>
double cone_reference(long long x, long long y, long long z, int t, const tcore::stencil_extent& e,
                      const tcore::stencil_weights<S>& w, unsigned long long seed)
{
    constexpr int R = S::radius;
    const int reach = t * R;
    const int dz_reach = S::dims == 3 ? reach : 0;
    const int wx = 2 * reach + 1, wy = 2 * reach + 1, wz = 2 * dz_reach + 1;
    // cur holds step s on the cone box (array coordinates x-reach.., clipped implicitly: halo is fixed)
    std::vector<long double> cur(static_cast<std::size_t>(wx) * wy * wz), nxt(cur.size());
    auto idx = [&](int bx, int by, int bz) { return (static_cast<std::size_t>(bz) * wy + by) * wx + bx; };
    auto array_index = [&](long long ax, long long ay, long long az) { return (az * e.ey + ay) * e.ex + ax; };
    auto in_array = [&](long long ax, long long ay, long long az) {
        return ax >= 0 && ax < e.ex && ay >= 0 && ay < e.ey && az >= 0 && az < e.ez;
    };
    auto interior = [&](long long ax, long long ay, long long az) {
        return ax >= R && ax < e.ex - R && ay >= R && ay < e.ey - R && (S::dims == 2 || (az >= R && az < e.ez - R));
    };
    const long long ax0 = x + R - reach, ay0 = y + R - reach, az0 = (S::dims == 3 ? z + R : 0) - dz_reach;
    for (int bz = 0; bz < wz; ++bz)
        for (int by = 0; by < wy; ++by)
            for (int bx = 0; bx < wx; ++bx) {
                const long long ax = ax0 + bx, ay = ay0 + by, az = az0 + bz;
                cur[idx(bx, by, bz)] =
                    in_array(ax, ay, az) ? hash_unit(static_cast<unsigned long long>(array_index(ax, ay, az)), seed) : 0;
            }
    for (int s = 1; s <= t; ++s) {
        const int m = s * R, mz = S::dims == 3 ? s * R : 0;  // the valid box shrinks by R per step
        for (int bz = mz; bz < wz - mz; ++bz)
            for (int by = m; by < wy - m; ++by)
                for (int bx = m; bx < wx - m; ++bx) {
                    const long long ax = ax0 + bx, ay = ay0 + by, az = az0 + bz;
                    if (!in_array(ax, ay, az)) continue;
                    if (!interior(ax, ay, az)) {
                        nxt[idx(bx, by, bz)] = cur[idx(bx, by, bz)];
                        continue;
                    }
                    long double acc = 0;
                    for (int dz = (S::dims == 3 ? -R : 0); dz <= (S::dims == 3 ? R : 0); ++dz)
                        for (int dy = -R; dy <= R; ++dy)
                            for (int dx = -R; dx <= R; ++dx)
                                if (S::contains(dz, dy, dx))
                                    acc += static_cast<long double>(w.at(dz, dy, dx)) * cur[idx(bx + dx, by + dy, bz + dz)];
                    nxt[idx(bx, by, bz)] = acc;
                }
        cur.swap(nxt);
    }
    return static_cast<double>(cur[idx(reach, reach, dz_reach)]);
}

// -- cases and variants ---------------------------------------------------------------

template <class S, class M, int T, boundary BC>
void launch(const double* in, double* out, const stencil_grid& g, const tcore::stencil_weights<S>& w,
            cudaStream_t s)
{
    ex::stencil_run<S, M, T, BC>(in, out, g, w, s);
}

template <class S>
using launch_fn = void (*)(const double*, double*, const stencil_grid&, const tcore::stencil_weights<S>&, cudaStream_t);

template <class S>
struct variant {
    const char* name;
    launch_fn<S> fn;
    tb::peak compute;
    std::string note;
};

/// The cce variant's tiling, as the note says it.
template <class S, int T>
std::string cce_layout()
{
    if constexpr (T == 1 && S::dims == 3) {
        using C = ex::stencil_stream_default<S>;
        return "z-streaming " + std::to_string(C::sx) + "x" + std::to_string(C::sy) + " tiles, " +
               std::to_string(C::strip) + "-row register strips, " + std::to_string(C::ring - 1) + " planes in flight";
    } else if constexpr (T == 1) {
        using C = ex::stencil_t1_tile_default<S>;
        return std::to_string(C::tile_x) + "x" + std::to_string(C::tile_y) + " tiles, " + std::to_string(C::strip) +
               "-row register strips, " + std::to_string(C::buffers) + " region buffers";
    } else if constexpr (S::dims == 2) {
        using C = ex::stencil_cce_tiled2d<S, T>;
        return std::to_string(C::strip) + "-row register strips, " + std::to_string(C::threads) + " threads";
    } else {
        return std::to_string(tcore::stencil_strip_rows<S>()) + "-row register strips";
    }
}

template <class S, int T, boundary BC>
std::vector<variant<S>> variants()
{
    using plan = tcore::stencil_mma_plan<S>;
    const std::string layout = std::to_string(plan::chunks) + " MMAs/16x8 block (" + std::to_string(plan::slots) +
                               " K slots, " + std::to_string(plan::mma_flops_per_point) + " MMA flops/point)";
    return {
        {"tc", launch<S, tcore::tensor_core, T, BC>, tb::peak::fp64_tc, "tensor cores, " + layout},
        {"cc", launch<S, tcore::cuda_core, T, BC>, tb::peak::fp64_cc, "tc's kernel on the cuda_core backend"},
        {"cce", launch<S, ex::stencil_cce, T, BC>, tb::peak::fp64_cc, "plain CUDA-core, " + cce_layout<S, T>()},
    };
}

std::string size_text(const stencil_grid& g, int dims)
{
    if (dims == 2) return g.nx == g.ny ? std::to_string(g.nx) + "^2" : std::to_string(g.nx) + "x" + std::to_string(g.ny);
    if (g.nx == g.ny && g.ny == g.nz) return std::to_string(g.nx) + "^3";
    return std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
}

std::string fixed(double v, int d)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", d, v);
    return buf;
}

/// GStencil/s targets of the issue (10240^2, t = 3).
double target_gstencils(const std::string& shape)
{
    if (shape == "star2d1r") return 443;
    if (shape == "box2d1r") return 375;
    if (shape == "star2d3r") return 217;
    return 0;
}

/// Weights of a stencil read from a text file (--input ...,weights=FILE):
/// S::points numbers separated by white space, one per point of the shape
/// in (dz, dy, dx) order, each offset from -r to r, dx fastest (star2d1r:
/// (-1,0) (0,-1) (0,0) (0,1) (1,0) as (dy, dx)). "" or what is wrong.
template <class S>
std::string read_weights(const std::string& path, tcore::stencil_weights<S>& w)
{
    std::ifstream f(path);
    if (!f) return "weights: cannot open '" + path + "'";
    std::vector<double> values;
    std::string word;
    while (f >> word) {
        char* end = nullptr;
        const double v = std::strtod(word.c_str(), &end);
        if (end == word.c_str() || *end != '\0' || !std::isfinite(v))
            return "weights: '" + word + "' in " + path + " is not a finite number";
        values.push_back(v);
    }
    if (values.size() != static_cast<std::size_t>(S::points))
        return "weights: " + path + " holds " + std::to_string(values.size()) + " numbers, " + S::name() + " has " +
               std::to_string(S::points) + " points";
    const int r = S::radius, rz = S::dims == 3 ? r : 0;
    std::size_t next = 0;
    for (int dz = -rz; dz <= rz; ++dz)
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx)
                if (S::contains(dz, dy, dx)) w.set(dz, dy, dx, values[next++]);
    return "";
}

template <class S, int T, boundary BC>
void run_case(tb::context& ctx, const stencil_grid& g, const std::string& weights_file = "")
{
    const std::string shape = S::name();
    const std::string name = shape + " " + size_text(g, S::dims) + " t=" + std::to_string(T) +
                             (BC == boundary::periodic ? " periodic" : "");
    if (!ctx.want_case(name) || !ctx.announce_case(name)) return;
    const std::vector<variant<S>> vars = variants<S, T, BC>();
    bool any = false;
    for (const auto& v : vars) any = any || ctx.want_variant(v.name);
    if (!any) return;

    const tcore::stencil_extent e = tcore::stencil_array_extent<S>(g, BC);
    const std::size_t count = static_cast<std::size_t>(e.count());
    const std::size_t bytes = 2 * count * sizeof(double);
    std::size_t free_b = 0, total_b = 0;
    TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes + (512ull << 20) > free_b) {
        std::printf("stencil %s: skipped, needs %.1f GiB of device memory, %.1f GiB free\n", name.c_str(),
                    bytes / 1073741824.0, free_b / 1073741824.0);
        return;
    }
    const long long points = g.nx * g.ny * (S::dims == 3 ? g.nz : 1);
    const unsigned long long seed = 0x57e4c11ull + static_cast<unsigned long long>(points) * 7 + T;

    // arbitrary weights: fixed pseudo-random values w/|S|, |w| < 1
    tcore::stencil_weights<S> w;
    for (int i = 0; i < S::weight_count; ++i) w.w[i] = hash_unit(1000 + i, seed ^ 0xabcdefull) / S::points;
    if (!weights_file.empty())
        if (const std::string problem = read_weights<S>(weights_file, w); !problem.empty()) throw tcore::error(problem);

    device_array<double> din(count), dout(count);
    init_kernel<<<grid_for(static_cast<long long>(count)), 256, 0, ctx.stream()>>>(din.ptr, static_cast<long long>(count), seed);
    TCORE_CHECK_LAUNCH();
    TCORE_CHECK(cudaMemcpyAsync(dout.ptr, din.ptr, count * sizeof(double), cudaMemcpyDeviceToDevice, ctx.stream()));
    TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));

    // reference: full grid, or samples with their cones
    const int h = tcore::stencil_halo(BC, S::radius);
    const bool full = points <= (4LL << 20);
    std::vector<long long> sample_idx;
    std::vector<double> ref;
    std::string check;
    if (full) {
        std::vector<double> a(count), b(count);
        for (std::size_t i = 0; i < count; ++i) a[i] = hash_unit(i, seed);
        for (int s = 0; s < T; ++s) {
            tcore::stencil_reference_step<S>(a.data(), b.data(), g, BC, w);
            a.swap(b);
        }
        for (long long z = 0; z < (S::dims == 3 ? g.nz : 1); ++z)
            for (long long y = 0; y < g.ny; ++y)
                for (long long x = 0; x < g.nx; ++x) {
                    const long long i = ((S::dims == 3 ? z + h : 0) * e.ey + y + h) * e.ex + x + h;
                    sample_idx.push_back(i);
                    ref.push_back(a[static_cast<std::size_t>(i)]);
                }
        check = "all " + std::to_string(points) + " points checked";
    } else {
        std::uint64_t r = seed * 31 + 17;
        auto rnd = [&](long long n) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            return static_cast<long long>((r >> 11) % static_cast<std::uint64_t>(n));
        };
        std::vector<std::array<long long, 3>> pts;
        const long long nz = S::dims == 3 ? g.nz : 1;
        for (long long z : {0LL, nz / 2, nz - 1})
            for (long long y : {0LL, g.ny / 2, g.ny - 1})
                for (long long x : {0LL, g.nx / 2, g.nx - 1}) pts.push_back({x, y, z});
        for (int i = 0; i < 4096; ++i) pts.push_back({rnd(g.nx), rnd(g.ny), rnd(nz)});
        for (const auto& p : pts) {
            double v;
            if (BC == boundary::dirichlet) {
                v = cone_reference<S>(p[0], p[1], p[2], T, e, w, seed);
            } else {
                v = 0;  // periodic large grids are not sampled (see below)
            }
            sample_idx.push_back(((S::dims == 3 ? p[2] + h : 0) * e.ey + p[1] + h) * e.ex + p[0] + h);
            ref.push_back(v);
        }
        check = "error on " + std::to_string(pts.size()) + " sampled points (corners, edge midpoints, random), "
                "long double cone reference";
    }
    const bool have_ref = full || BC == boundary::dirichlet;
    if (!have_ref) check = "no reference for large periodic grids";

    device_array<long long> didx(sample_idx.size());
    device_array<double> dvals(sample_idx.size());
    TCORE_CHECK(cudaMemcpy(didx.ptr, sample_idx.data(), sample_idx.size() * sizeof(long long), cudaMemcpyHostToDevice));

    std::map<std::string, double> median_ms;
    for (const auto& v : vars) {
        if (!ctx.want_variant(v.name)) continue;
        // correctness run on a poisoned interior
        poison_interior<<<grid_for(static_cast<long long>(count)), 256, 0, ctx.stream()>>>(dout.ptr, e.ex, e.ey, e.ez, h);
        TCORE_CHECK_LAUNCH();
        v.fn(din.ptr, dout.ptr, g, w, ctx.stream());
        gather_kernel<<<grid_for(static_cast<long long>(sample_idx.size())), 256, 0, ctx.stream()>>>(
            dout.ptr, didx.ptr, dvals.ptr, static_cast<long long>(sample_idx.size()));
        TCORE_CHECK_LAUNCH();
        TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
        std::vector<double> got(sample_idx.size());
        TCORE_CHECK(cudaMemcpy(got.data(), dvals.ptr, got.size() * sizeof(double), cudaMemcpyDeviceToHost));
        const tb::accuracy err = have_ref ? tb::accuracy_of(ref.data(), got.data(), got.size()) : tb::accuracy{};

        tb::row_spec spec;
        spec.case_name = name;
        spec.variant = v.name;
        spec.bytes = 16.0 * static_cast<double>(points);
        spec.flops = static_cast<double>(points) * T * 2.0 * S::points;
        spec.ceiling = tb::peak::memory;
        spec.compute = v.compute;
        spec.footprint_bytes = bytes;
        spec.note = v.note + "; flops = points*t*2|S| (GStencil/s = GFLOP/s / " + std::to_string(2 * S::points) +
                    "); " + check;
        const double* pin = din.ptr;
        double* pout = dout.ptr;
        const launch_fn<S> fn = v.fn;
        const std::vector<double> med = ctx.measure(spec, [=](cudaStream_t s) { fn(pin, pout, g, w, s); }, err);
        if (!med.empty()) median_ms[v.name] = med.front();
    }

    // GStencil/s, speedups, targets
    for (const auto& [var, ms] : median_ms) {
        const double gst = static_cast<double>(points) * T / (ms * 1e-3) / 1e9;
        ctx.summary(name + " " + var + " GStencil/s", fixed(gst, 1));
    }
    auto ratio = [&](const char* a, const char* b) {
        const auto ia = median_ms.find(a), ib = median_ms.find(b);
        if (ia != median_ms.end() && ib != median_ms.end() && ia->second > 0)
            ctx.summary(name + " speedup " + b + "->" + a, fixed(ib->second / ia->second, 2) + "x");
    };
    ratio("tc", "cc");
    ratio("tc", "cce");
    const double target = target_gstencils(shape);
    if (S::dims == 2 && g.nx == 10240 && g.ny == 10240 && T == 3 && BC == boundary::dirichlet && target > 0) {
        double best = 0;
        std::string best_var;
        for (const auto& [var, ms] : median_ms) {
            const double gst = static_cast<double>(points) * T / (ms * 1e-3) / 1e9;
            if (gst > best) best = gst, best_var = var;
        }
        if (best > 0)
            ctx.summary(name + " best vs target", best_var + " " + fixed(best, 1) + " GStencil/s, target " +
                                                      fixed(target, 0) + (best >= target ? " (met)" : " (missed)"));
    }
}

std::vector<stencil_grid> grids_of(int dims, bool quick)
{
    std::vector<stencil_grid> g;
    if (dims == 2) {
        if (quick) g.push_back({1021, 777, 1});
        else g.push_back({10240, 10240, 1}), g.push_back({4096, 4096, 1});
    } else {
        if (quick) g.push_back({97, 83, 71});
        else g.push_back({512, 512, 512}), g.push_back({1024, 1024, 1024});
    }
    return g;
}

template <class S>
void run_shape(tb::context& ctx)
{
    for (const stencil_grid& g : grids_of(S::dims, ctx.quick())) {
        run_case<S, 1, boundary::dirichlet>(ctx, g);
        run_case<S, 3, boundary::dirichlet>(ctx, g);
    }
}

// -- the user's cases (--input stencil:shape=...,grid=...,steps=...,boundary=...,weights=...) ----

using all_shapes = std::tuple<tcore::star2d1r, tcore::box2d1r, tcore::star2d3r, tcore::box2d3r, tcore::star3d1r,
                              tcore::box3d1r>;

/// One --input: checks it and, with `ctx`, runs it. "" or what is wrong.
/// Compiled here: every shape at t = 1 and 3 with the Dirichlet boundary,
/// and the periodic boundary at t = 3 for star2d1r and box3d1r.
std::string user_case(const tb::user_input& in, tb::context* ctx)
{
    const std::string shape = in.get("shape"), boundary_name = in.get("boundary", "dirichlet");
    long long steps = 1;
    if (!tb::parse_whole(in.get("steps", "1"), 1, 3, steps) || steps == 2) return "steps: 1 or 3 expected";
    if (boundary_name != "dirichlet" && boundary_name != "periodic") return "boundary: dirichlet or periodic expected";
    const bool periodic = boundary_name == "periodic";
    std::vector<long long> n;
    if (!tb::parse_extents(in.get("grid"), 1LL << 20, n) || n.size() < 2)
        return "grid: NXxNY (2D) or NXxNYxNZ (3D) expected, each from 1 to 2^20";
    const stencil_grid g{n[0], n[1], n.size() == 3 ? n[2] : 1};
    std::string problem = "shape: one of star2d1r, box2d1r, star2d3r, box2d3r, star3d1r, box3d1r expected";
    std::apply(
        [&](auto... shapes) {
            auto one = [&](auto s) {
                using S = decltype(s);
                if (S::name() != shape) return;
                if (static_cast<int>(n.size()) != S::dims) {
                    problem = "grid: " + shape + " is " + std::to_string(S::dims) + "D, the grid has " +
                              std::to_string(n.size()) + " extents";
                    return;
                }
                const std::string weights = in.get("weights");
                if (!weights.empty()) {
                    tcore::stencil_weights<S> w;
                    problem = read_weights<S>(weights, w);
                    if (!problem.empty()) return;
                }
                problem = "";
                const bool periodic_compiled =
                    steps == 3 && (std::is_same_v<S, tcore::star2d1r> || std::is_same_v<S, tcore::box3d1r>);
                if (periodic && !periodic_compiled) {
                    problem = "boundary: periodic is compiled for star2d1r and box3d1r at steps=3 (add a "
                              "run_case line in examples/stencil/stencil.cu for others)";
                    return;
                }
                if (!ctx) return;
                if (periodic) {
                    if constexpr (std::is_same_v<S, tcore::star2d1r> || std::is_same_v<S, tcore::box3d1r>)
                        run_case<S, 3, boundary::periodic>(*ctx, g, weights);
                } else if (steps == 1) {
                    run_case<S, 1, boundary::dirichlet>(*ctx, g, weights);
                } else {
                    run_case<S, 3, boundary::dirichlet>(*ctx, g, weights);
                }
            };
            (one(shapes), ...);
        },
        all_shapes{});
    return problem;
}

void run(tb::context& ctx)
{
    if (const std::vector<tb::user_input> inputs = ctx.inputs(); !inputs.empty()) {
        for (const tb::user_input& in : inputs)
            if (const std::string problem = user_case(in, &ctx); !problem.empty())
                throw tcore::error("stencil --input: " + problem);
        return;
    }
    run_shape<tcore::star2d1r>(ctx);
    run_shape<tcore::box2d1r>(ctx);
    run_shape<tcore::star2d3r>(ctx);
    run_shape<tcore::box2d3r>(ctx);
    run_shape<tcore::star3d1r>(ctx);
    run_shape<tcore::box3d1r>(ctx);
    // the periodic boundary, one case per dimension (checked in full)
    run_case<tcore::star2d1r, 3, boundary::periodic>(ctx, ctx.quick() ? stencil_grid{1021, 777, 1}
                                                                      : stencil_grid{2048, 2048, 1});
    run_case<tcore::box3d1r, 3, boundary::periodic>(ctx, ctx.quick() ? stencil_grid{97, 83, 71}
                                                                    : stencil_grid{160, 160, 160});
}

}  // namespace

void tcore_register_stencil(tcore::bench::registry& r)
{
    tb::workload w{"stencil",
                   "FP64 iterative stencils (ConvStencil/EBISU shapes), t = 1 and 3 fused steps: MMA layout on tensor "
                   "cores (tc) and CUDA cores (cc) vs a plain CUDA-core stencil (cce)",
                   run};
    w.input_keys = {{"shape", "star2d1r, box2d1r, star2d3r, box2d3r, star3d1r or box3d1r"},
                    {"grid", "NXxNY (2D) or NXxNYxNZ (3D) interior points"},
                    {"steps", "fused steps per launch: 1 or 3 (default 1)"},
                    {"boundary", "dirichlet or periodic (periodic: star2d1r and box3d1r at steps=3)"},
                    {"weights", "a text file of the shape's weights (default: fixed random ones)"}};
    w.check_input = [](const tb::user_input& in) {
        if (in.get("shape").empty() || in.get("grid").empty()) return std::string("shape and grid are required");
        return user_case(in, nullptr);
    };
    r.add(w);
}
