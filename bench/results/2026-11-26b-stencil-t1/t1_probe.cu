// t1_probe.cu - the t = 1 cce kernels that stay short of 80% of the
// bandwidth roofline (box2d3r in 2D, star3d1r and box3d1r in 3D), beside
// star2d1r (82%) and a plain copy, timed and, under ncu, profiled.
//
// Every candidate is first checked element by element against
// tcore::stencil_reference_step on a small odd grid (output poisoned with
// NaN inside the halo), then timed on the large grids: 0.3 s time-based
// warm-up, 30 launches with an event pair each, median. GStencil/s =
// points / time; the t = 1 roofline is the copy bandwidth / 16 B a point.
// PROFILE=1: no checks, one launch per case (for ncu).
// build: nvcc -O3 -std=c++17 -arch=sm_90 -I include -o t1_probe t1_probe.cu
#include <tcore/patterns/stencil_tiled.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tcore;
namespace sd = tcore::stencil_detail;
constexpr boundary BC = boundary::dirichlet;
using runner = std::function<void(const double*, double*, const stencil_grid&, cudaStream_t)>;
static bool profile = false;

double median_ms(cudaStream_t st, const std::function<void()>& f)
{
    if (profile) {
        f();
        TCORE_CHECK(cudaStreamSynchronize(st));
        return 0;
    }
    const auto t0 = std::chrono::steady_clock::now();
    do {
        for (int i = 0; i < 5; ++i) f();
        TCORE_CHECK(cudaStreamSynchronize(st));
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 0.3);
    cudaEvent_t e0, e1;
    TCORE_CHECK(cudaEventCreate(&e0));
    TCORE_CHECK(cudaEventCreate(&e1));
    std::vector<float> t(30);
    for (float& ms : t) {
        TCORE_CHECK(cudaEventRecord(e0, st));
        f();
        TCORE_CHECK(cudaEventRecord(e1, st));
        TCORE_CHECK(cudaEventSynchronize(e1));
        TCORE_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    }
    TCORE_CHECK(cudaEventDestroy(e0));
    TCORE_CHECK(cudaEventDestroy(e1));
    std::sort(t.begin(), t.end());
    return t[15];
}

__global__ void copy_kernel(const double2* __restrict__ in, double2* __restrict__ out, long long n)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

/// Fills w with random weights (sum of |w| below 5) and checks every
/// candidate on `small`, then times it on each of `large`.
template <class S>
void run_shape(cudaStream_t st, std::mt19937_64& rng, const std::vector<std::pair<std::string, runner>>& cands,
               const stencil_grid& small, const std::vector<stencil_grid>& large, const stencil_weights<S>& w,
               int steps = 1)
{
    std::uniform_real_distribution<double> uv(-2, 2);
    constexpr int R = S::radius;
    auto grids = large;
    if (!profile) grids.insert(grids.begin(), small);
    for (const stencil_grid& g : grids) {
        const bool check = !profile && &g == &grids.front();
        const stencil_extent e = stencil_array_extent<S>(g, BC);
        const long long count = e.count();
        std::vector<double> h(count);
        for (auto& v : h) v = uv(rng);
        double *din, *dout;
        TCORE_CHECK(cudaMalloc(&din, count * 8));
        TCORE_CHECK(cudaMalloc(&dout, count * 8));
        TCORE_CHECK(cudaMemcpy(din, h.data(), count * 8, cudaMemcpyHostToDevice));
        TCORE_CHECK(cudaMemcpy(dout, din, count * 8, cudaMemcpyDeviceToDevice));
        std::vector<double> ref, poison;
        if (check) {
            ref = h;
            std::vector<double> tmp(count);
            for (int s = 0; s < steps; ++s) {
                stencil_reference_step<S>(ref.data(), tmp.data(), g, BC, w);
                ref.swap(tmp);
            }
            poison = h;
            for (long long z = (S::dims == 3 ? R : 0); z < e.ez - (S::dims == 3 ? R : 0); ++z)
                for (long long y = R; y < e.ey - R; ++y)
                    for (long long x = R; x < e.ex - R; ++x)
                        poison[(z * e.ey + y) * e.ex + x] = std::numeric_limits<double>::quiet_NaN();
        }
        std::printf("\n%s t=%d dirichlet %lld x %lld x %lld\n", S::name().c_str(), steps, g.nx, g.ny, g.nz);
        std::vector<double> got(check ? count : 0);
        const double tol = 16.0 * S::points * 0x1.0p-52 * 2;  // |values| < 2, sum |w| < 5
        for (const auto& c : cands) {
            if (check) {
                TCORE_CHECK(cudaMemcpy(dout, poison.data(), count * 8, cudaMemcpyHostToDevice));
                c.second(din, dout, g, st);
                TCORE_CHECK(cudaGetLastError());
                TCORE_CHECK(cudaStreamSynchronize(st));
                TCORE_CHECK(cudaMemcpy(got.data(), dout, count * 8, cudaMemcpyDeviceToHost));
                long long bad = 0;
                double err = 0;
                for (long long i = 0; i < count; ++i) {
                    const double d = std::fabs(got[i] - ref[i]);
                    if (!(d <= tol)) ++bad;
                    else err = std::max(err, d);
                }
                if (bad) std::printf("  %-40s WRONG: %lld of %lld elements off\n", c.first.c_str(), bad, count);
                else std::printf("  %-40s ok, max error %.2e\n", c.first.c_str(), err);
                continue;
            }
            const double ms = median_ms(st, [&] { c.second(din, dout, g, st); });
            TCORE_CHECK(cudaGetLastError());
            const double points = static_cast<double>(g.nx) * g.ny * g.nz;
            const long long now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::system_clock::now().time_since_epoch()).count() % 86400000;
            if (!profile)
                std::printf("  [%02lld:%02lld:%06.3f] %-40s %8.4f ms  %7.1f GStencil/s  %6.0f GB/s\n", now_ms / 3600000,
                            now_ms / 60000 % 60, now_ms % 60000 / 1000.0, c.first.c_str(), ms,
                            points * steps / ms / 1e6, points * 16 / ms / 1e6);
        }
        TCORE_CHECK(cudaFree(din));
        TCORE_CHECK(cudaFree(dout));
    }
}

template <class S>
stencil_weights<S> random_weights(std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> uw(-0.3, 0.3);
    stencil_weights<S> w;
    for (int dz = sd::dz_lo<S>(); dz <= sd::dz_hi<S>(); ++dz)
        for (int dy = -S::radius; dy <= S::radius; ++dy)
            for (int dx = -S::radius; dx <= S::radius; ++dx)
                if (S::contains(dz, dy, dx)) w.set(dz, dy, dx, uw(rng) / S::points * 5);
    return w;
}

template <class S>
std::pair<std::string, runner> kit(const stencil_weights<S>& w)
{
    return {"cce stencil_apply", [w](const double* i, double* o, const stencil_grid& g, cudaStream_t s) {
                stencil_apply<S, stencil_cce, 1, BC>(i, o, g, w, s);
            }};
}

template <class S>
std::pair<std::string, runner> tiles2d(const stencil_weights<S>& w, bool tickets)
{
    return {tickets ? "t1 tiles, tickets" : "t1 tiles, grid-stride",
            [w, tickets](const double* i, double* o, const stencil_grid& g, cudaStream_t s) {
                sd::launch_t1_tiles<S, BC, sd::t1_tile_default<S>>(i, o, g, w, s, {tickets, 0});
            }};
}
template <class S>
std::pair<std::string, runner> stream3d(const stencil_weights<S>& w, bool tickets, long long zc)
{
    const std::string name = std::string(tickets ? "stream, tickets" : "stream, grid-stride") +
                             (zc ? ", zc " + std::to_string(zc) : std::string(", zc auto"));
    return {name, [w, tickets, zc](const double* i, double* o, const stencil_grid& g, cudaStream_t s) {
                sd::launch_stream<S, BC, sd::stream_default<S>>(i, o, g, w, s, {tickets, zc});
            }};
}

template <class S, class M, int T>
std::pair<std::string, runner> tiled2d(const stencil_weights<S>& w, bool tickets)
{
    const std::string m = std::is_same_v<M, tensor_core> ? "tc" : std::is_same_v<M, cuda_core> ? "cc" : "cce";
    return {m + " tiled, " + (tickets ? "tickets" : "grid-stride"),
            [w, tickets](const double* i, double* o, const stencil_grid& g, cudaStream_t s) {
                sd::launch_tiled2d<S, M, T, BC>(i, o, g, w, s, {tickets, 0});
            }};
}

/// The tiled kernel (tc at t = 1 and 3, cce at t = 3), both work orders.
template <class S>
void tiled_shape(cudaStream_t st, std::mt19937_64& rng)
{
    const auto w = random_weights<S>(rng);
    const std::vector<stencil_grid> large = {{10240, 10240, 1}, {4096, 4096, 1}};
    run_shape<S>(st, rng, {tiled2d<S, tensor_core, 1>(w, false), tiled2d<S, tensor_core, 1>(w, true)}, {1000, 777, 1},
                 large, w, 1);
    run_shape<S>(st, rng,
                 {tiled2d<S, tensor_core, 3>(w, false), tiled2d<S, tensor_core, 3>(w, true),
                  tiled2d<S, stencil_cce, 3>(w, false), tiled2d<S, stencil_cce, 3>(w, true)},
                 {1000, 777, 1}, large, w, 3);
}

template <class S, class C>
std::pair<std::string, runner> t1cfg(const stencil_weights<S>& w)
{
    const std::string name = std::to_string(C::tile_x) + "x" + std::to_string(C::tile_y) + " V" +
                             std::to_string(C::strip) + " " + std::to_string(C::threads) + "t " +
                             std::to_string(C::buffers) + "buf mb" + std::to_string(C::min_blocks) + ", tickets";
    return {name, [w](const double* i, double* o, const stencil_grid& g, cudaStream_t s) {
                sd::launch_t1_tiles<S, BC, C>(i, o, g, w, s, {true, 0});
            }};
}
template <class S, int TX, int TY, int V, int Th, int B, int MB>
using cfg = sd::t1_tile_config<S, TX, TY, V, Th, B, MB>;

/// box2d3r t = 1 tile configurations, all with tickets.
void box_configs(cudaStream_t st, std::mt19937_64& rng)
{
    using S = box2d3r;
    const auto w = random_weights<S>(rng);
    run_shape<S>(st, rng,
                 {t1cfg<S, cfg<S, 64, 32, 16, 128, 4, 2>>(w), t1cfg<S, cfg<S, 64, 32, 16, 128, 3, 2>>(w),
                  t1cfg<S, cfg<S, 128, 32, 16, 256, 3, 1>>(w), t1cfg<S, cfg<S, 64, 64, 16, 256, 3, 1>>(w),
                  t1cfg<S, cfg<S, 128, 16, 16, 128, 4, 2>>(w), t1cfg<S, cfg<S, 32, 32, 16, 64, 4, 4>>(w),
                  t1cfg<S, cfg<S, 64, 16, 16, 64, 4, 4>>(w), t1cfg<S, cfg<S, 64, 32, 8, 256, 3, 2>>(w),
                  t1cfg<S, cfg<S, 64, 32, 16, 128, 4, 2>>(w), tiles2d<S>(w, false)},
                 {1000, 777, 1}, {{10240, 10240, 1}, {4096, 4096, 1}}, w);
}

template <class S, class M, int T>
std::pair<std::string, runner> tiled3d(const stencil_weights<S>& w, bool tickets, long long zc = 0)
{
    const std::string m = std::is_same_v<M, tensor_core> ? "tc" : "cce";
    return {m + " tiled 3D, " + (tickets ? "tickets" : "grid-stride") + (zc ? ", zc " + std::to_string(zc) : ""),
            [w, tickets, zc](const double* i, double* o, const stencil_grid& g, cudaStream_t s) {
                sd::launch_tiled<S, M, T, BC>(i, o, g, w, s, {tickets, zc});
            }};
}

/// The 3D tiled kernel with tickets at fixed z chunks.
template <class S>
void tiled3d_chunks(cudaStream_t st, std::mt19937_64& rng)
{
    const auto w = random_weights<S>(rng);
    const std::vector<stencil_grid> large = {{512, 512, 512}, {1024, 1024, 1024}};
    run_shape<S>(st, rng,
                 {tiled3d<S, tensor_core, 1>(w, false), tiled3d<S, tensor_core, 1>(w, true, 32),
                  tiled3d<S, tensor_core, 1>(w, true, 64), tiled3d<S, tensor_core, 1>(w, true, 128),
                  tiled3d<S, tensor_core, 1>(w, true, 256)},
                 {130, 97, 61}, large, w, 1);
    run_shape<S>(st, rng,
                 {tiled3d<S, tensor_core, 3>(w, false), tiled3d<S, tensor_core, 3>(w, true, 64),
                  tiled3d<S, tensor_core, 3>(w, true, 128), tiled3d<S, tensor_core, 3>(w, true, 256),
                  tiled3d<S, stencil_cce, 3>(w, false), tiled3d<S, stencil_cce, 3>(w, true, 128)},
                 {130, 97, 61}, large, w, 3);
}

/// The 3D tiled kernel (tc at t = 1 and 3, cce at t = 3), both work orders.
template <class S>
void tiled3d_shape(cudaStream_t st, std::mt19937_64& rng)
{
    const auto w = random_weights<S>(rng);
    const std::vector<stencil_grid> large = {{512, 512, 512}, {1024, 1024, 1024}};
    run_shape<S>(st, rng,
                 {tiled3d<S, tensor_core, 1>(w, false), tiled3d<S, tensor_core, 1>(w, true),
                  tiled3d<S, tensor_core, 1>(w, false), tiled3d<S, tensor_core, 1>(w, true)},
                 {130, 97, 61}, large, w, 1);
    run_shape<S>(st, rng,
                 {tiled3d<S, tensor_core, 3>(w, false), tiled3d<S, tensor_core, 3>(w, true),
                  tiled3d<S, stencil_cce, 3>(w, false), tiled3d<S, stencil_cce, 3>(w, true)},
                 {130, 97, 61}, large, w, 3);
}

template <class S>
std::pair<std::string, runner> warps3(const stencil_weights<S>& w)
{
    return {"warp stream", [w](const double* i, double* o, const stencil_grid& g, cudaStream_t s) {
                sd::launch_warp_stream<S, 3>(i, o, g, w, s);
            }};
}

/// t = 3 on the stars: the warp streaming kernel against the tiled cce
/// kernel in both work orders, repeated to see the drift of the clocks.
template <class S>
void stars_t3(cudaStream_t st, std::mt19937_64& rng)
{
    const auto w = random_weights<S>(rng);
    run_shape<S>(st, rng,
                 {warps3<S>(w), tiled2d<S, stencil_cce, 3>(w, true), tiled2d<S, stencil_cce, 3>(w, false),
                  warps3<S>(w), tiled2d<S, stencil_cce, 3>(w, true), tiled2d<S, tensor_core, 3>(w, true)},
                 {1000, 777, 1}, {{10240, 10240, 1}, {4096, 4096, 1}}, w, 3);
}

template <class S>
void shape2d(cudaStream_t st, std::mt19937_64& rng)
{
    const auto w = random_weights<S>(rng);
    run_shape<S>(st, rng, {tiles2d<S>(w, false), tiles2d<S>(w, true), tiles2d<S>(w, false), tiles2d<S>(w, true), kit<S>(w)},
                 {1000, 777, 1}, {{10240, 10240, 1}, {4096, 4096, 1}}, w);
}
template <class S>
void shape3d(cudaStream_t st, std::mt19937_64& rng)
{
    const auto w = random_weights<S>(rng);
    std::vector<stencil_grid> large = {{512, 512, 512}};
    if (!profile) large.push_back({1024, 1024, 1024});
    std::vector<std::pair<std::string, runner>> cands = {stream3d<S>(w, false, 0), stream3d<S>(w, true, 0),
                                                         stream3d<S>(w, true, 32), stream3d<S>(w, true, 128), kit<S>(w)};
    run_shape<S>(st, rng, cands, {130, 97, 61}, large, w);
}

int main()
{
    profile = std::getenv("PROFILE") && std::atoi(std::getenv("PROFILE")) == 1;
    cudaDeviceProp prop;
    TCORE_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    cudaStream_t st;
    TCORE_CHECK(cudaStreamCreate(&st));
    {
        const long long n = 1LL << 27;  // doubles: 1 GiB each way
        double *a, *b;
        TCORE_CHECK(cudaMalloc(&a, n * 8));
        TCORE_CHECK(cudaMalloc(&b, n * 8));
        TCORE_CHECK(cudaMemset(a, 0, n * 8));
        const double ms = median_ms(st, [&] {
            copy_kernel<<<prop.multiProcessorCount * 8, 256, 0, st>>>(reinterpret_cast<const double2*>(a),
                                                                      reinterpret_cast<double2*>(b), n / 2);
        });
        TCORE_CHECK(cudaGetLastError());
        if (!profile) std::printf("copy 2^27 doubles: %.4f ms, %.0f GB/s\n", ms, n * 16 / ms / 1e6);
        TCORE_CHECK(cudaFree(a));
        TCORE_CHECK(cudaFree(b));
    }
    std::mt19937_64 rng(11);
    const char* only = std::getenv("ONLY");
    auto want = [&](const char* s) { return !only || !*only || std::string(only).find(s) != std::string::npos; };
    if (want("star2d1r")) shape2d<star2d1r>(st, rng);
    if (want("box2d3r")) shape2d<box2d3r>(st, rng);
    if (want("boxcfg")) box_configs(st, rng);
    if (want("stars3")) {
        stars_t3<star2d1r>(st, rng);
        stars_t3<star2d3r>(st, rng);
    }
    if (want("t1rest")) {
        shape2d<box2d1r>(st, rng);
        shape2d<star2d3r>(st, rng);
    }
    if (want("tiled")) {
        tiled_shape<star2d1r>(st, rng);
        tiled_shape<box2d1r>(st, rng);
        tiled_shape<box2d3r>(st, rng);
    }
    if (want("chunks3d")) {
        tiled3d_chunks<star3d1r>(st, rng);
        tiled3d_chunks<box3d1r>(st, rng);
    }
    if (want("tiled3d")) {
        tiled3d_shape<star3d1r>(st, rng);
        tiled3d_shape<box3d1r>(st, rng);
    }
    if (want("star3d1r")) shape3d<star3d1r>(st, rng);
    if (want("box3d1r")) shape3d<box3d1r>(st, rng);
    return 0;
}
