// t1_pairs.cu - t = 1 cce tile configurations for box2d3r (and star2d3r):
// one output column a thread (the default) against two adjacent columns a
// thread (t1_tile_config's Cols = 2: each input row read as 16-byte pairs,
// half the shared-memory loads). Dirichlet, 10240^2 and 4096^2.
//
// Each candidate is checked element by element against
// tcore::stencil_reference_step (its output poisoned with NaN inside the
// halo first), then timed: 0.3 s time-based warm-up, 30 launches with an
// event pair each, median. GStencil/s = points / time; the t = 1 roofline
// is the copy bandwidth / 16 B a point.
// build: nvcc -O3 -std=c++17 -arch=sm_90 -I include -o t1_pairs t1_pairs.cu
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
constexpr boundary BC = boundary::dirichlet;

using runner = std::function<void(const double*, double*, cudaStream_t)>;

double median_ms(cudaStream_t st, const std::function<void()>& f)
{
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

template <class S, class C>
std::pair<std::string, runner> config(const stencil_grid& g, const stencil_weights<S>& w)
{
    const std::string name = std::to_string(C::tile_x) + "x" + std::to_string(C::tile_y) + " V" +
                             std::to_string(C::strip) + " " + std::to_string(C::threads) + "t " +
                             std::to_string(C::buffers) + "buf mb" + std::to_string(C::min_blocks) + " cols" +
                             std::to_string(C::cols);
    return {name, [=](const double* i, double* o, cudaStream_t s) { sd::launch_t1_tiles<S, BC, C>(i, o, g, w, s); }};
}

template <class S, class... Cs>
void run_shape(cudaStream_t st, std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> uw(-0.3, 0.3), uv(-2, 2);
    stencil_weights<S> w;
    for (int dy = -S::radius; dy <= S::radius; ++dy)
        for (int dx = -S::radius; dx <= S::radius; ++dx)
            if (S::contains(0, dy, dx)) w.set(0, dy, dx, uw(rng) / S::points * 5);
    for (const long long n : {1000LL, 4096LL, 10240LL}) {
        const stencil_grid g{n, n == 1000 ? 777 : n, 1};
        const stencil_extent e = stencil_array_extent<S>(g, BC);
        const long long count = e.count();
        std::vector<double> h(count);
        for (auto& v : h) v = uv(rng);
        std::vector<double> ref(count);
        stencil_reference_step<S>(h.data(), ref.data(), g, BC, w);
        std::vector<double> poison = h;
        constexpr int R = S::radius;
        for (long long y = R; y < e.ey - R; ++y)
            for (long long x = R; x < e.ex - R; ++x) poison[y * e.ex + x] = std::numeric_limits<double>::quiet_NaN();
        double *din, *dout;
        TCORE_CHECK(cudaMalloc(&din, count * 8));
        TCORE_CHECK(cudaMalloc(&dout, count * 8));
        TCORE_CHECK(cudaMemcpy(din, h.data(), count * 8, cudaMemcpyHostToDevice));
        std::vector<std::pair<std::string, runner>> cs = {
            {"cce stencil_apply", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_apply<S, stencil_cce, 1, BC>(i, o, g, w, s);
             }},
            config<S, Cs>(g, w)...};
        std::printf("\n%s t=1 dirichlet %lld x %lld\n", S::name().c_str(), g.nx, g.ny);
        std::vector<double> got(count);
        const double tol = 16.0 * S::points * 0x1.0p-52 * 2;  // |values| < 2, sum |w| < 5
        for (auto& c : cs) {
            TCORE_CHECK(cudaMemcpy(dout, poison.data(), count * 8, cudaMemcpyHostToDevice));
            c.second(din, dout, st);
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
            if (bad) {
                std::printf("  %-36s WRONG: %lld of %lld elements off\n", c.first.c_str(), bad, count);
                continue;
            }
            if (n < 4096) {
                std::printf("  %-36s ok, max error %.2e\n", c.first.c_str(), err);
                continue;
            }
            const double ms = median_ms(st, [&] { c.second(din, dout, st); });
            const double points = static_cast<double>(g.nx) * g.ny;
            std::printf("  %-36s %8.4f ms  %7.1f GStencil/s  %6.0f GB/s  max error %.2e\n", c.first.c_str(), ms,
                        points / ms / 1e6, points * 16 / ms / 1e6, err);
        }
        TCORE_CHECK(cudaFree(din));
        TCORE_CHECK(cudaFree(dout));
    }
}

template <class S, int TX, int TY, int V, int Th, int B, int MB, int Cols>
using cfg = sd::t1_tile_config<S, TX, TY, V, Th, B, MB, Cols>;

int main()
{
    cudaDeviceProp prop;
    TCORE_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    cudaStream_t st;
    TCORE_CHECK(cudaStreamCreate(&st));
    std::mt19937_64 rng(7);
    using B = box2d3r;
    run_shape<B, cfg<B, 64, 32, 16, 128, 4, 2, 1>, cfg<B, 64, 32, 16, 64, 4, 2, 2>, cfg<B, 64, 32, 8, 128, 4, 2, 2>,
              cfg<B, 128, 32, 16, 128, 4, 1, 2>, cfg<B, 128, 32, 8, 256, 3, 1, 2>, cfg<B, 64, 64, 16, 128, 3, 1, 2>,
              cfg<B, 128, 16, 16, 64, 4, 2, 2>, cfg<B, 128, 16, 8, 128, 4, 2, 2>, cfg<B, 256, 16, 8, 256, 3, 1, 2>>(st, rng);
    using S3 = star2d3r;
    run_shape<S3, cfg<S3, 128, 32, 8, 512, 2, 1, 1>, cfg<S3, 128, 32, 8, 256, 2, 1, 2>, cfg<S3, 128, 32, 16, 128, 2, 1, 2>,
              cfg<S3, 256, 16, 8, 256, 3, 1, 2>>(st, rng);
    return 0;
}
