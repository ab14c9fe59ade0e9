// stream_r.cu - the warp streaming kernels (stencil_warp_stream.cuh)
// against the kit's tiled kernels, Dirichlet: t = 3 on star2d3r and
// star2d1r, t = 1 (the partial-sum kernel) on the four 2D shapes.
//
// Every candidate is first checked element by element against 3 steps of
// tcore::stencil_reference_step on the timed grid, its output poisoned (NaN
// inside, the input's halo) before the run; then timed: 0.3 s time-based
// warm-up, 30 launches with an event pair each, median.
// build: nvcc -O3 -std=c++17 -arch=sm_90 -I include -o stream_r stream_r.cu
#include <tcore/patterns/stencil_tiled.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tcore;
namespace sd = tcore::stencil_detail;

using runner = std::function<void(const double*, double*, cudaStream_t)>;
struct cand {
    std::string name;
    runner run;
};

double time_median(cudaStream_t st, const std::function<void()>& f)
{
    const auto t0 = std::chrono::steady_clock::now();
    do {
        for (int i = 0; i < 5; ++i) f();
        TCORE_CHECK(cudaStreamSynchronize(st));
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 0.3);
    std::vector<cudaEvent_t> ev(60);
    for (auto& e : ev) TCORE_CHECK(cudaEventCreate(&e));
    for (int i = 0; i < 30; ++i) {
        TCORE_CHECK(cudaEventRecord(ev[2 * i], st));
        f();
        TCORE_CHECK(cudaEventRecord(ev[2 * i + 1], st));
    }
    TCORE_CHECK(cudaStreamSynchronize(st));
    std::vector<double> t(30);
    for (int i = 0; i < 30; ++i) {
        float ms = 0;
        TCORE_CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        t[i] = ms;
    }
    for (auto& e : ev) TCORE_CHECK(cudaEventDestroy(e));
    std::sort(t.begin(), t.end());
    return t[15];
}

/// The kit kernel with MinBlocks blocks per SM and band `band` (0: auto).
template <class S, int T, int MinBlocks>
runner stream_with(const stencil_grid& g, const stencil_weights<S>& w, long long band)
{
    return [=](const double* in, double* out, cudaStream_t st) {
        auto kernel = sd::warp_stream_kernel_for<S, T, MinBlocks>();
        const long long resident = static_cast<long long>(detail::sm_count()) * detail::blocks_per_sm(kernel, 32 * sd::ws_warps);
        const sd::warp_stream_args a = sd::warp_stream_setup<S, T>(in, out, g, w, band, resident);
        const dim3 grid(static_cast<unsigned>(detail::ceil_div(a.strips, sd::ws_warps)),
                        static_cast<unsigned>(detail::ceil_div(g.ny, a.band)));
        kernel<<<grid, 32 * sd::ws_warps, 0, st>>>(a);
    };
}

template <class S, int T>
void run_shape(cudaStream_t st, std::mt19937_64& rng, const std::vector<long long>& sizes)
{
    std::uniform_real_distribution<double> uw(-0.3, 0.3), uv(-2, 2);
    stencil_weights<S> w;
    for (int dy = -S::radius; dy <= S::radius; ++dy)
        for (int dx = -S::radius; dx <= S::radius; ++dx)
            if (S::contains(0, dy, dx)) w.set(0, dy, dx, uw(rng) / S::points * 5);
    for (const long long n : sizes) {
        const stencil_grid g{n, n == 1000 ? 777 : n, 1};
        const stencil_extent e = stencil_array_extent<S>(g, boundary::dirichlet);
        const long long count = e.count();
        std::vector<double> h(count);
        for (auto& v : h) v = uv(rng);
        std::vector<double> ref = h, tmp(count);
        for (int s = 0; s < T; ++s) {
            stencil_reference_step<S>(ref.data(), tmp.data(), g, boundary::dirichlet, w);
            std::swap(ref, tmp);
        }
        std::vector<double> poison = h;
        constexpr int R = S::radius;
        for (long long y = R; y < e.ey - R; ++y)
            for (long long x = R; x < e.ex - R; ++x) poison[y * e.ex + x] = std::numeric_limits<double>::quiet_NaN();
        double *din, *dout;
        TCORE_CHECK(cudaMalloc(&din, count * 8));
        TCORE_CHECK(cudaMalloc(&dout, count * 8));
        TCORE_CHECK(cudaMemcpy(din, h.data(), count * 8, cudaMemcpyHostToDevice));
        std::vector<cand> cs = {
            {T == 1 ? "cce t1 tiles (launch_t1_tiles)" : "cce tiled (launch_tiled)", [&](const double* i, double* o, cudaStream_t s) {
                 if constexpr (T == 1)
                     sd::launch_t1_tiles<S, boundary::dirichlet, sd::t1_tile_default<S>>(i, o, g, w, s);
                 else
                     sd::launch_tiled<S, stencil_cce, T, boundary::dirichlet>(i, o, g, w, s);
             }},
            {"tc stencil_apply", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_apply<S, tensor_core, T, boundary::dirichlet>(i, o, g, w, s);
             }},
            {"cce stencil_apply", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_apply<S, stencil_cce, T, boundary::dirichlet>(i, o, g, w, s);
             }},
        };
        constexpr int mb = sd::ws_min_blocks(R);
        for (long long band : {0LL, 128LL, 256LL, 512LL})
            cs.push_back({"stream mb" + std::to_string(mb) + " band " + (band ? std::to_string(band) : "auto"),
                          stream_with<S, T, mb>(g, w, band)});
        cs.push_back({"stream mb" + std::to_string(mb + 1) + " band auto", stream_with<S, T, mb + 1>(g, w, 0)});
        if constexpr (mb > 1) cs.push_back({"stream mb" + std::to_string(mb - 1) + " band auto", stream_with<S, T, mb - 1>(g, w, 0)});
        std::printf("\n%s t=%d dirichlet %lld x %lld (warp_stream_fits: %d)\n", S::name().c_str(), T, g.nx, g.ny,
                    static_cast<int>(sd::warp_stream_fits<S, T>(din, dout, g)));
        std::vector<double> got(count);
        const double tol = 4.0 * T * S::points * 0x1.0p-52 * 4;  // |values| < 2, weights sum below ~5/... (bound x4)
        for (auto& c : cs) {
            TCORE_CHECK(cudaMemcpy(dout, poison.data(), count * 8, cudaMemcpyHostToDevice));
            c.run(din, dout, st);
            TCORE_CHECK(cudaGetLastError());
            TCORE_CHECK(cudaStreamSynchronize(st));
            TCORE_CHECK(cudaMemcpy(got.data(), dout, count * 8, cudaMemcpyDeviceToHost));
            double err = 0;
            long long bad = 0;
            for (long long i = 0; i < count; ++i) {
                const double d = std::fabs(got[i] - ref[i]);
                if (!(d <= tol)) ++bad;
                else err = std::max(err, d);
            }
            if (bad) {
                std::printf("  %-28s WRONG: %lld of %lld elements off\n", c.name.c_str(), bad, count);
                continue;
            }
            if (n < 4096) {
                std::printf("  %-28s ok, max error %.2e\n", c.name.c_str(), err);
                continue;
            }
            const double ms = time_median(st, [&] { c.run(din, dout, st); });
            const double points = static_cast<double>(g.nx) * g.ny;
            std::printf("  %-28s %8.4f ms  %7.1f GStencil/s  %6.0f GB/s (16 B a point)  max error %.2e\n", c.name.c_str(),
                        ms, points * T / ms / 1e6, points * 16 / ms / 1e6, err);
        }
        TCORE_CHECK(cudaFree(din));
        TCORE_CHECK(cudaFree(dout));
    }
}

int main(int argc, char** argv)
{
    const bool t1_only = argc > 1 && std::string(argv[1]) == "t1";  // `stream_r t1`: the t = 1 cases only
    cudaDeviceProp prop;
    TCORE_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    cudaStream_t st;
    TCORE_CHECK(cudaStreamCreate(&st));
    std::mt19937_64 rng(42);
    run_shape<box2d3r, 1>(st, rng, {1000, 4096, 10240});
    run_shape<star2d3r, 1>(st, rng, {1000, 4096, 10240});
    run_shape<box2d1r, 1>(st, rng, {1000, 4096, 10240});
    run_shape<star2d1r, 1>(st, rng, {1000, 4096, 10240});
    if (t1_only) return 0;
    run_shape<star2d3r, 3>(st, rng, {1000, 10240});
    run_shape<star2d1r, 3>(st, rng, {1000, 10240});
    return 0;
}
