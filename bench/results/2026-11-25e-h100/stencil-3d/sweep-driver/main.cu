#include "parts.h"
#include <cstring>
#include <cmath>

__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
        dst[i] = src[i];
}
void run_copy()
{
    int sms = detail::sm_count();
    const std::size_t bytes = static_cast<std::size_t>(1077.0e6) / 4096 * 4096;
    void *a, *b;
    TCORE_CHECK(cudaMalloc(&a, bytes));
    TCORE_CHECK(cudaMalloc(&b, bytes));
    TCORE_CHECK(cudaMemset(a, 1, bytes));
    cudaStream_t s;
    TCORE_CHECK(cudaStreamCreate(&s));
    const std::size_t n = bytes / 16;
    timing t = time_launch([&](cudaStream_t st) { copy_kernel<<<sms * 16, 256, 0, st>>>((const uint4*)a, (uint4*)b, n); }, s);
    std::printf("C copy %.0f MB: %.4f ms  %.0f GB/s  %.1f%%\n", bytes / 1e6, t.med, 2.0 * bytes / (t.med * 1e-3) / 1e9,
                100.0 * 2.0 * bytes / (t.med * 1e-3) / 1e9 / copy_gbs);
    t = time_launch([&](cudaStream_t st) { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, st); }, s);
    std::printf("C memcpy %.0f MB: %.4f ms  %.0f GB/s  %.1f%%\n", bytes / 1e6, t.med, 2.0 * bytes / (t.med * 1e-3) / 1e9,
                100.0 * 2.0 * bytes / (t.med * 1e-3) / 1e9 / copy_gbs);
    cudaStreamDestroy(s);
    cudaFree(a);
    cudaFree(b);
}

template <class S>
std::vector<config_entry<S>> all()
{
    std::vector<config_entry<S>> v{{"base", base_cce<S>}};
    for (auto* f : {&part0_star3d1r, &part1_star3d1r, &part2_star3d1r, &part3_star3d1r}) (void)f;
    std::vector<config_entry<S>> p[4];
    if constexpr (std::is_same_v<S, star3d1r>) { p[0] = part0_star3d1r(); p[1] = part1_star3d1r(); p[2] = part2_star3d1r(); p[3] = part3_star3d1r(); }
    else { p[0] = part0_box3d1r(); p[1] = part1_box3d1r(); p[2] = part2_box3d1r(); p[3] = part3_box3d1r(); }
    for (auto& q : p) v.insert(v.end(), q.begin(), q.end());
    v.push_back({"base(again)", base_cce<S>});
    return v;
}

/// Every candidate against the long double CPU reference on small grids (odd,
/// even pitch with partial tiles, several tiles); the halo must stay poisoned.
template <class S>
int cpu_check()
{
    int bad = 0;
    for (stencil_grid g : {stencil_grid{97, 83, 71}, stencil_grid{126, 61, 37}, stencil_grid{300, 70, 20}, stencil_grid{514, 40, 9}}) {
        const stencil_extent e = stencil_array_extent<S>(g, boundary::dirichlet);
        const long long n = e.count();
        std::vector<double> in(n), ref(n), out(n);
        for (long long i = 0; i < n; ++i) in[i] = hash_value(i, 4242);
        stencil_weights<S> w;
        for (int i = 0; i < S::weight_count; ++i) w.w[i] = hash_value(1000 + i, 777) / S::points;
        stencil_reference_step<S>(in.data(), ref.data(), g, boundary::dirichlet, w);
        double *din, *dout;
        TCORE_CHECK(cudaMalloc(&din, n * 8));
        TCORE_CHECK(cudaMalloc(&dout, n * 8));
        TCORE_CHECK(cudaMemcpy(din, in.data(), n * 8, cudaMemcpyHostToDevice));
        for (const auto& c : all<S>()) {
            std::vector<double> poison(n, 1.25e300);
            TCORE_CHECK(cudaMemcpy(dout, poison.data(), n * 8, cudaMemcpyHostToDevice));
            c.fn(din, dout, g, w, 0);
            TCORE_CHECK(cudaDeviceSynchronize());
            TCORE_CHECK(cudaGetLastError());
            TCORE_CHECK(cudaMemcpy(out.data(), dout, n * 8, cudaMemcpyDeviceToHost));
            double md = 0;
            long long halo_bad = 0;
            for (long long z = 0; z < e.ez; ++z)
                for (long long y = 0; y < e.ey; ++y)
                    for (long long x = 0; x < e.ex; ++x) {
                        const long long i = (z * e.ey + y) * e.ex + x;
                        const bool interior = z >= 1 && z <= g.nz && y >= 1 && y <= g.ny && x >= 1 && x <= g.nx;
                        if (interior) {
                            const double d = std::fabs(out[i] - ref[i]);
                            md = (d > md || d != d) ? (d != d ? 1e300 : d) : md;
                        } else if (out[i] != 1.25e300) ++halo_bad;
                    }
            const bool ok = md <= 1e-14 && halo_bad == 0;  // |w| sum <= 1, |in| <= 1: 27 FMAs, error ~ 1e-15
            if (!ok) ++bad;
            std::printf("V %-9s %lldx%lldx%lld %-26s maxerr=%.2e halo_written=%lld %s\n", S::name().c_str(), g.nx, g.ny, g.nz,
                        c.name.c_str(), md, halo_bad, ok ? "ok" : "FAIL");
        }
        cudaFree(din);
        cudaFree(dout);
    }
    return bad;
}

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string g = argv[i];
        if (g == "copy") run_copy();
        else if (g == "check") {
            const int bad = cpu_check<star3d1r>() + cpu_check<box3d1r>();
            std::printf("V failures: %d\n", bad);
        } else if (g == "prof") {
            using S = box3d1r;
            stencil_grid gr{512, 512, 512};
            const stencil_extent e = stencil_array_extent<S>(gr, boundary::dirichlet);
            arrays A(e.count());
            stencil_weights<S> w;
            for (int k = 0; k < S::weight_count; ++k) w.w[k] = hash_value(1000 + k, 777) / S::points;
            for (const auto& c : all<S>())
                if (c.name == "base" || c.name == "c256x16v16r5" || c.name == "c128x32v16r6_split" || c.name == "c128x32v16r6_bulk") {
                    std::printf("P %s\n", c.name.c_str());
                    c.fn(A.in, A.out, gr, w, 0);
                    TCORE_CHECK(cudaDeviceSynchronize());
                }
        } else if (g == "sweep") {
            for (stencil_grid gr : {stencil_grid{512, 512, 512}, stencil_grid{1024, 1024, 1024}}) {
                run_configs<star3d1r>(gr, all<star3d1r>());
                run_configs<box3d1r>(gr, all<box3d1r>());
            }
        }
    }
    return 0;
}
