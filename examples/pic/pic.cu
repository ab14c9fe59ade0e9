// examples/pic/pic.cu - the PiC workload: the Boris particle push in FP64,
// particles grouped by cell (PiCTC), fields gathered from a grid to the cell
// centres, one MMA per block of particles and step (Quadrant I).
//
// Variants (tcore/patterns/device/pic.cuh, pic_opponent.cuh):
//   tc            f64 m16n8k8: 16 particles x 8 state components times the
//                 8x8 step matrix (rotation + acceleration), state kept in
//                 registers across steps through accumulator-to-A reuse
//   tc-m8n8k4     the same with the Cubie study's m8n8k4 (8x4 / 4x8 blocks)
//   cc, cc-m8n8k4 tc / tc-m8n8k4 on the cuda_core backend
//   cce           one thread per particle, v = R v + c, x += dt v
// Cases "N=<particles>": 64K, 128K, 256K, 512K, 1M particles, 64 per cell
// (grids 32 x 32 x 1 .. 16), 100 steps per launch (--quick: 16K and 64K
// particles). Every launch also rebuilds the per-cell tables (field gather
// at the cell centres, R, c, T) from the node fields, so a row's time is
// gather + 100 pushes. The state keeps evolving across repetitions (bounded:
// gyration and E x B drift).
//
// Accuracy: 10 steps from the initial state against the FP64 CPU reference
// (classical Boris step with cross products, each particle's cell field).
// Flops: 24 per particle and step (v = R v + c, x += dt v); bytes: the state
// read and written once per launch (128 per particle) plus the node fields.
// Summaries: t(cc)/t(tc) and t(cce)/t(tc) at every size (target: cc/tc >=
// 1.5 at 1M), and the largest relative |v|^2 change of 1000 tc steps in a
// pure magnetic field (energy conservation).
#include "harness/harness.hpp"
#include "pic_host.hpp"
#include "pic_opponent.cuh"

#include <tcore/tcore.cuh>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

namespace tb = tcore::bench;
namespace px = tcore::examples::pic;

constexpr int steps_per_launch = 100;
constexpr int check_steps = 10;

template <class T>
struct device_array {
    T* ptr = nullptr;
    explicit device_array(std::size_t n) { TCORE_CHECK(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T))); }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
};

std::string fixed(double v, int digits)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string size_name(long long n)
{
    if (n % (1 << 20) == 0) return "N=" + std::to_string(n >> 20) + "M";
    if (n % 1024 == 0) return "N=" + std::to_string(n >> 10) + "K";
    return "N=" + std::to_string(n);
}

/// The launch of one variant: tables for its shape, then `steps` pushes.
using launch_fn = std::function<void(double* state, double2* frag, double* plain, cudaStream_t, int steps)>;

struct variant {
    const char* name;
    tb::peak compute;
    const char* note;
    launch_fn (*make)(const px::setup&, const double* nodes);
};

template <class Backend, class Shape>
launch_fn make_mma(const px::setup& s, const double* nodes)
{
    const px::grid3 g = s.grid;
    const double h = s.h(), dt = s.dt;
    const long long n = s.n();
    const int ppc = s.ppc;
    return [=](double* state, double2* frag, double* plain, cudaStream_t st, int steps) {
        tcore::boris::boris_tables<Shape>(nodes, g, h, dt, frag, plain, st);
        tcore::boris::boris_push_mma<Backend, Shape>(state, n, ppc, frag, steps, st);
    };
}

launch_fn make_cce(const px::setup& s, const double* nodes)
{
    const px::grid3 g = s.grid;
    const double h = s.h(), dt = s.dt;
    const long long n = s.n();
    const int ppc = s.ppc;
    return [=](double* state, double2* frag, double* plain, cudaStream_t st, int steps) {
        tcore::boris::boris_tables<tcore::f64_m16n8k8>(nodes, g, h, dt, frag, plain, st);
        px::boris_push_cce(state, n, ppc, plain, dt, steps, st);
    };
}

const variant variants[] = {
    {"tc", tb::peak::fp64_tc, "f64 m16n8k8, 16 particles x 8 per MMA, state in registers",
     make_mma<tcore::tensor_core, tcore::f64_m16n8k8>},
    {"tc-m8n8k4", tb::peak::fp64_tc, "f64 m8n8k4 (8x4 / 4x8 blocks), 2 MMAs per step",
     make_mma<tcore::tensor_core, tcore::f64_m8n8k4>},
    {"cc", tb::peak::fp64_cc, "tc's kernel on the cuda_core backend", make_mma<tcore::cuda_core, tcore::f64_m16n8k8>},
    {"cc-m8n8k4", tb::peak::fp64_cc, "tc-m8n8k4's kernel on the cuda_core backend",
     make_mma<tcore::cuda_core, tcore::f64_m8n8k4>},
    {"cce", tb::peak::fp64_cc, "thread per particle, v = R v + c", make_cce},
};

void run(tb::context& ctx)
{
    std::vector<long long> sizes;
    if (ctx.quick()) sizes = {16 << 10, 64 << 10};
    else sizes = {64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20};
    const int ppc = 64;
    std::map<std::string, std::map<long long, double>> times;

    for (const long long n : sizes) {
        const std::string name = size_name(n);
        if (!ctx.announce_case(name)) continue;
        bool any = false;
        for (const variant& v : variants) any = any || ctx.want_variant(v.name);
        if (!any) continue;
        px::setup s;
        s.ppc = ppc;
        s.grid = px::grid_for(n, ppc);
        px::make_fields(s);
        px::make_particles(s);
        const std::vector<double> ref = px::cpu_push(s, s.particles, check_steps);

        device_array<double> nodes(s.nodes.size()), state(s.particles.size()), plain(static_cast<std::size_t>(s.grid.cells()) * 16);
        device_array<double2> frag(static_cast<std::size_t>(s.grid.cells()) * 32);
        TCORE_CHECK(cudaMemcpy(nodes.ptr, s.nodes.data(), s.nodes.size() * sizeof(double), cudaMemcpyHostToDevice));
        std::vector<double> got(s.particles.size());
        const std::size_t state_bytes = s.particles.size() * sizeof(double);

        for (const variant& v : variants) {
            if (!ctx.want_variant(v.name)) continue;
            const launch_fn launch = v.make(s, nodes.ptr);
            // Correctness: check_steps steps from the initial state.
            TCORE_CHECK(cudaMemcpy(state.ptr, s.particles.data(), state_bytes, cudaMemcpyHostToDevice));
            launch(state.ptr, frag.ptr, plain.ptr, ctx.stream(), check_steps);
            TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
            TCORE_CHECK(cudaMemcpy(got.data(), state.ptr, state_bytes, cudaMemcpyDeviceToHost));
            const tb::accuracy err = tb::accuracy_of(ref.data(), got.data(), got.size());
            // Timing starts from the initial state again.
            TCORE_CHECK(cudaMemcpy(state.ptr, s.particles.data(), state_bytes, cudaMemcpyHostToDevice));
            tb::row_spec spec;
            spec.case_name = name;
            spec.variant = v.name;
            spec.flops = 24.0 * static_cast<double>(n) * steps_per_launch;
            spec.bytes = 2.0 * static_cast<double>(state_bytes) + static_cast<double>(s.nodes.size() * sizeof(double));
            spec.ceiling = v.compute;
            spec.compute = v.compute; spec.mma_shape = tb::tc_shape_of(v.name, "m16n8k8");
            spec.footprint_bytes = state_bytes + s.nodes.size() * sizeof(double) +
                                   static_cast<std::size_t>(s.grid.cells()) * (32 * sizeof(double2) + 16 * sizeof(double));
            spec.note = std::string(v.note) + "; " + std::to_string(steps_per_launch) + " steps per launch incl. field gather; " +
                        std::to_string(s.grid.cells()) + " cells x " + std::to_string(ppc) + "; accuracy after " +
                        std::to_string(check_steps) + " steps vs CPU Boris";
            double* st = state.ptr;
            double2* fr = frag.ptr;
            double* pl = plain.ptr;
            const std::vector<double> med =
                ctx.measure(spec, [launch, st, fr, pl](cudaStream_t stream) { launch(st, fr, pl, stream, steps_per_launch); }, err);
            if (!med.empty()) times[v.name][n] = med.front();
        }
    }

    for (const long long n : sizes) {
        auto ratio = [&](const char* num, const char* den, const std::string& what) {
            const auto a = times[num].find(n), b = times[den].find(n);
            if (a != times[num].end() && b != times[den].end() && b->second > 0)
                ctx.summary(size_name(n) + ": t(" + num + ")/t(" + den + ")" + what, fixed(a->second / b->second, 2));
        };
        ratio("cc", "tc", n == (1 << 20) ? " (target >= 1.5)" : "");
        ratio("cc-m8n8k4", "tc-m8n8k4", "");
        ratio("cce", "tc", "");
    }

    // Energy conservation: 1000 tc steps in a pure magnetic field.
    if (!times["tc"].empty()) {
        px::setup s;
        s.ppc = ppc;
        s.grid = px::grid_for(64 << 10, ppc);
        px::make_fields(s, 1.0, 0.2, 0.0);
        px::make_particles(s, 7);
        device_array<double> nodes(s.nodes.size()), state(s.particles.size()), plain(static_cast<std::size_t>(s.grid.cells()) * 16);
        device_array<double2> frag(static_cast<std::size_t>(s.grid.cells()) * 32);
        TCORE_CHECK(cudaMemcpy(nodes.ptr, s.nodes.data(), s.nodes.size() * sizeof(double), cudaMemcpyHostToDevice));
        TCORE_CHECK(cudaMemcpy(state.ptr, s.particles.data(), s.particles.size() * sizeof(double), cudaMemcpyHostToDevice));
        const launch_fn launch = make_mma<tcore::tensor_core, tcore::f64_m16n8k8>(s, nodes.ptr);
        launch(state.ptr, frag.ptr, plain.ptr, ctx.stream(), 1000);
        TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
        std::vector<double> after(s.particles.size());
        TCORE_CHECK(cudaMemcpy(after.data(), state.ptr, after.size() * sizeof(double), cudaMemcpyDeviceToHost));
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3g", px::max_energy_drift(s.particles, after));
        ctx.summary("tc, pure magnetic field, 64K particles x 1000 steps: max relative |v|^2 change", buf);
    }
}

}  // namespace

void tcore_register_pic(tcore::bench::registry& r)
{
    r.add({"pic", "Boris push in FP64: one MMA per 16 particles and step (PiCTC layout) vs CUDA cores", run});
}
