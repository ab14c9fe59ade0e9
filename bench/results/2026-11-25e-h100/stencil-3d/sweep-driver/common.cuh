// Sweep driver helpers: inputs, comparison, timing.
#pragma once
#include <tcore/patterns/stencil_tiled.cuh>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <functional>
#include <string>
#include <vector>
#include <algorithm>

using namespace tcore;
using tcore::stencil_detail::t1_tile_config;
using tcore::stencil_detail::stream_config;

constexpr double copy_gbs = 3005.18857;

__host__ __device__ inline double hash_value(unsigned long long i, unsigned long long seed)
{
    unsigned long long z = i * 0x9e3779b97f4a7c15ull + seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return -1.0 + 2.0 * static_cast<double>(z >> 11) * 0x1.0p-53;
}
static __global__ void fill_kernel(double* a, long long n, unsigned long long seed)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        a[i] = hash_value(i, seed);
}
static __global__ void maxdiff_kernel(const double* a, const double* b, long long n, unsigned long long* out)
{
    double m = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const double d = fabs(a[i] - b[i]);
        m = (d > m || d != d) ? (d != d ? 1e300 : d) : m;
    }
    for (int o = 16; o; o >>= 1) m = fmax(m, __shfl_xor_sync(~0u, m, o));
    if ((threadIdx.x & 31) == 0) atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(m)));
}

struct arrays {
    double *in = nullptr, *out = nullptr, *ref = nullptr;
    long long n = 0;
    unsigned long long* d_max = nullptr;
    explicit arrays(long long count) : n(count)
    {
        TCORE_CHECK(cudaMalloc(&in, n * 8));
        TCORE_CHECK(cudaMalloc(&out, n * 8));
        TCORE_CHECK(cudaMalloc(&ref, n * 8));
        TCORE_CHECK(cudaMalloc(&d_max, 8));
        fill_kernel<<<4096, 256>>>(in, n, 12345);
        TCORE_CHECK(cudaMemcpy(ref, in, n * 8, cudaMemcpyDeviceToDevice));
        TCORE_CHECK(cudaDeviceSynchronize());
    }
    ~arrays() { cudaFree(in); cudaFree(out); cudaFree(ref); cudaFree(d_max); }
    double maxdiff()
    {
        TCORE_CHECK(cudaMemset(d_max, 0, 8));
        maxdiff_kernel<<<4096, 256>>>(out, ref, n, d_max);
        unsigned long long h = 0;
        TCORE_CHECK(cudaMemcpy(&h, d_max, 8, cudaMemcpyDeviceToHost));
        double d;
        memcpy(&d, &h, 8);
        return d;
    }
};

struct timing { double med, min; };

inline timing time_launch(const std::function<void(cudaStream_t)>& f, cudaStream_t s, double warm_s = 0.2)
{
    using clk = std::chrono::steady_clock;
    auto t0 = clk::now();
    int n = 0;
    while (std::chrono::duration<double>(clk::now() - t0).count() < warm_s) {
        for (int i = 0; i < 10; ++i) f(s);
        TCORE_CHECK(cudaStreamSynchronize(s));
        n += 10;
    }
    const double per = std::chrono::duration<double>(clk::now() - t0).count() / n;
    int reps = std::max(20, std::min(400, static_cast<int>(0.15 / per)));
    std::vector<cudaEvent_t> ev(2 * reps);
    for (auto& e : ev) TCORE_CHECK(cudaEventCreate(&e));
    for (int i = 0; i < reps; ++i) {
        TCORE_CHECK(cudaEventRecord(ev[2 * i], s));
        f(s);
        TCORE_CHECK(cudaEventRecord(ev[2 * i + 1], s));
    }
    TCORE_CHECK(cudaStreamSynchronize(s));
    std::vector<double> ms(reps);
    for (int i = 0; i < reps; ++i) {
        float m = 0;
        TCORE_CHECK(cudaEventElapsedTime(&m, ev[2 * i], ev[2 * i + 1]));
        ms[i] = m;
    }
    for (auto& e : ev) cudaEventDestroy(e);
    std::sort(ms.begin(), ms.end());
    return {ms[reps / 2], ms[0]};
}

/// One measured configuration: launch (returns blocks per SM), then checked and timed.
template <class S>
using reference_fn = std::function<void(const double*, double*, const stencil_grid&, const stencil_weights<S>&, cudaStream_t)>;

template <class S>
using launcher = std::function<int(const double*, double*, const stencil_grid&, const stencil_weights<S>&, cudaStream_t)>;

template <class S>
struct config_entry {
    std::string name;
    launcher<S> fn;
};

template <class S>
void run_configs(const stencil_grid& g, const std::vector<config_entry<S>>& cfgs, int steps = 1,
                 reference_fn<S> reference = {})
{
    const stencil_extent e = stencil_array_extent<S>(g, boundary::dirichlet);
    const long long points = g.nx * g.ny * (S::dims == 3 ? g.nz : 1);
    std::size_t free_b = 0, total_b = 0;
    TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (3.0 * e.count() * 8 + (1ull << 30) > free_b) {
        std::printf("%s: skipped (memory)\n", S::name().c_str());
        return;
    }
    arrays A(e.count());
    stencil_weights<S> w;
    for (int i = 0; i < S::weight_count; ++i) w.w[i] = hash_value(1000 + i, 777) / S::points;
    cudaStream_t s;
    TCORE_CHECK(cudaStreamCreate(&s));
    if (reference) reference(A.in, A.ref, g, w, s);
    else stencil_apply<S, stencil_cce, 1, boundary::dirichlet>(A.in, A.ref, g, w, s);
    TCORE_CHECK(cudaStreamSynchronize(s));
    const std::string gname = S::dims == 2 ? std::to_string(g.nx) + "^2" : std::to_string(g.nx) + "^3";
    for (const auto& c : cfgs) {
        try {
            TCORE_CHECK(cudaMemcpy(A.out, A.in, A.n * 8, cudaMemcpyDeviceToDevice));
            const int per_sm = c.fn(A.in, A.out, g, w, s);
            TCORE_CHECK(cudaStreamSynchronize(s));
            TCORE_CHECK(cudaGetLastError());
            const double md = A.maxdiff();
            const timing t = time_launch([&](cudaStream_t st) { c.fn(A.in, A.out, g, w, st); }, s);
            const double gbs = 16.0 * points / (t.med * 1e-3) / 1e9;  // the t-step roofline's bytes
            std::printf("R %-9s %-7s t=%d %-30s bps=%d med=%.4f ms min=%.4f  %.0f GB/s  %.1f%%  GSt/s=%.1f  maxdiff=%.2e%s\n",
                        S::name().c_str(), gname.c_str(), steps, c.name.c_str(), per_sm, t.med, t.min, gbs,
                        100.0 * gbs / copy_gbs, steps * points / (t.med * 1e-3) / 1e9, md, md > 1e-12 ? "  MISMATCH" : "");
        } catch (const std::exception& ex) {
            std::printf("R %-9s %-7s %-26s FAILED %s\n", S::name().c_str(), gname.c_str(), c.name.c_str(), ex.what());
            cudaGetLastError();
        }
        std::fflush(stdout);
    }
    cudaStreamDestroy(s);
}

template <class S>
int base_cce(const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w, cudaStream_t s)
{
    stencil_apply<S, stencil_cce, 1, boundary::dirichlet>(in, out, g, w, s);
    return 0;
}

template <class S, class C>
int tile1(const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w, cudaStream_t s)
{
    stencil_detail::launch_t1_tiles<S, boundary::dirichlet, C>(in, out, g, w, s);
    return detail::blocks_per_sm(stencil_detail::stencil2d_t1_kernel<S, boundary::dirichlet, C>, C::threads, C::smem_bytes);
}
template <class S, class C>
int stream1(const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w, cudaStream_t s)
{
    stencil_detail::launch_stream<S, boundary::dirichlet, C>(in, out, g, w, s);
    return detail::blocks_per_sm(stencil_detail::stencil_stream_kernel<S, boundary::dirichlet, C>, C::threads, C::smem_bytes);
}

/// The 2D tiled kernel with configuration C on `blocks` persistent blocks
/// (0: launch_tiled2d's balanced_blocks; < 0: -blocks per SM x SMs, capped at the items).
template <class S, class M, int T, class C>
int tiled2d(const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w, cudaStream_t s,
            long long blocks)
{
    namespace sd = stencil_detail;
    using G = typename C::geometry;
    auto kernel = sd::stencil2d_kernel<S, M, T, boundary::dirichlet, C>;
    const int per_sm = sd::prepare_kernel<sd::kernel_tag<S, M, T, boundary::dirichlet, C>>(kernel, C::smem_bytes, C::threads);
    if (blocks == 0) {
        sd::launch_tiled2d<S, M, T, boundary::dirichlet, C>(in, out, g, w, s);
        return per_sm;
    }
    stencil_args<S> a = sd::grid_args<S, boundary::dirichlet>(in, out, g, w);
    a.pair_loads = C::pairs && sd::pair_loads_apply<S, boundary::dirichlet>(a, T);
    a.tiles_x = detail::ceil_div(g.nx, G::tile_x);
    a.tiles_y = detail::ceil_div(g.ny, G::tile_y);
    a.zchunk = 1;
    a.zchunks = 1;
    a.items = a.tiles_x * a.tiles_y;
    const long long n = blocks > 0 ? blocks : std::min<long long>(a.items, -blocks * (long long)detail::sm_count() * per_sm);
    kernel<<<static_cast<unsigned>(n), C::threads, C::smem_bytes, s>>>(a);
    return per_sm;
}

template <class S, class M, int T, class C>
config_entry<S> tiled_entry(const std::string& name, long long blocks = 0)
{
    return {name, [blocks](const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w,
                           cudaStream_t s) { return tiled2d<S, M, T, C>(in, out, g, w, s, blocks); }};
}

template <class S, class M, int T>
reference_fn<S> apply_ref()
{
    return [](const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w, cudaStream_t s) {
        stencil_apply<S, M, T, boundary::dirichlet>(in, out, g, w, s);
    };
}

