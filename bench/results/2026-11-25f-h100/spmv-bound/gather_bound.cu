// gather_bound.cu - how fast can any CSR SpMV be on the power_law matrices?
//
// The kernels here do less than an SpMV: they stream the values and column
// indices once (16-byte loads, 4 nonzeros per thread and step) and gather
// x[col] for every nonzero, summing val * x[col] per thread (one partial per
// block is written, no row structure, no y). Any CSR-order SpMV must move at
// least these bytes, so their time is a lower bound for it on the same
// matrix. Rates count the SpMV benchmark's minimum bytes, 12 nnz + 8 (rows +
// cols), so they compare with its "% of copy bandwidth" directly.
//   stream          values and indices only (no gather): the streaming part
//   gather          + x[col] gathers through L1/L2
//   gather x-L2     + x held in L2 (access-policy window, hit ratio 1, as
//                   much persisting L2 as the device allows), values and
//                   indices loaded evict-first (ld.global.cs)
// Matrices: tcore::sparse::gen::power_law with the SpMV benchmark's seeds.
// Timing: 0.2 s time-based warm-up, 50 launches with an event pair each,
// median. Each gather kernel's sum is checked against a CPU sum.
//
// build: nvcc -O3 -std=c++17 -arch=sm_90 -I include -o gather_bound gather_bound.cu
#include <tcore/check.cuh>
#include <tcore/sparse/generate.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

namespace gen = tcore::sparse::gen;

constexpr int threads = 256;

template <bool Gather, bool Evict>
__global__ void __launch_bounds__(threads) bound_kernel(const double* __restrict__ val, const int* __restrict__ col,
                                                         const double* __restrict__ x, long long nnz4,
                                                         double* __restrict__ block_sums)
{
    double s = 0;
    const long long stride = static_cast<long long>(gridDim.x) * threads;
    for (long long i = blockIdx.x * static_cast<long long>(threads) + threadIdx.x; i < nnz4; i += stride) {
        const int4 c = Evict ? __ldcs(reinterpret_cast<const int4*>(col) + i) : __ldg(reinterpret_cast<const int4*>(col) + i);
        const double2 v0 = Evict ? __ldcs(reinterpret_cast<const double2*>(val) + 2 * i)
                                 : __ldg(reinterpret_cast<const double2*>(val) + 2 * i);
        const double2 v1 = Evict ? __ldcs(reinterpret_cast<const double2*>(val) + 2 * i + 1)
                                 : __ldg(reinterpret_cast<const double2*>(val) + 2 * i + 1);
        if constexpr (Gather) {
            s = fma(v0.x, __ldg(x + c.x), s);
            s = fma(v0.y, __ldg(x + c.y), s);
            s = fma(v1.x, __ldg(x + c.z), s);
            s = fma(v1.y, __ldg(x + c.w), s);
        } else {
            s += (v0.x + v0.y) + (v1.x + v1.y) + static_cast<double>((c.x ^ c.y) ^ (c.z ^ c.w));
        }
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    __shared__ double warp_sums[threads / 32];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0;
        for (int w = 0; w < threads / 32; ++w) t += warp_sums[w];
        block_sums[blockIdx.x] = t;
    }
}

double time_median(cudaStream_t st, const std::function<void()>& f)
{
    const auto t0 = std::chrono::steady_clock::now();
    do {
        for (int i = 0; i < 10; ++i) f();
        TCORE_CHECK(cudaStreamSynchronize(st));
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 0.2);
    std::vector<cudaEvent_t> ev(100);
    for (auto& e : ev) TCORE_CHECK(cudaEventCreate(&e));
    for (int i = 0; i < 50; ++i) {
        TCORE_CHECK(cudaEventRecord(ev[2 * i], st));
        f();
        TCORE_CHECK(cudaEventRecord(ev[2 * i + 1], st));
    }
    TCORE_CHECK(cudaStreamSynchronize(st));
    std::vector<double> t(50);
    for (int i = 0; i < 50; ++i) {
        float ms = 0;
        TCORE_CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        t[i] = ms;
    }
    for (auto& e : ev) TCORE_CHECK(cudaEventDestroy(e));
    std::sort(t.begin(), t.end());
    return t[25];
}

int main(int argc, char** argv)
{
    const double copy_gbs = argc > 1 ? std::atof(argv[1]) : 3005.0;  // the benchmark's measured copy bandwidth
    cudaDeviceProp prop;
    TCORE_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, %d SMs, L2 %.1f MB, max persisting L2 %.1f MB; copy bandwidth taken as %.0f GB/s\n",
                prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6, prop.persistingL2CacheMaxSize / 1e6,
                copy_gbs);
    cudaStream_t st;
    TCORE_CHECK(cudaStreamCreate(&st));
    for (const long long target : {10000000LL, 100000000LL}) {
        const tcore::sparse::csr a = gen::generate(gen::matrix_class::power_law, target, 0x5b3e0000ull + static_cast<std::uint64_t>(target));
        const long long nnz = a.nnz(), nnz4 = nnz / 4;  // the last nnz % 4 entries are left out of the kernels
        std::vector<double> hx(a.cols);
        gen::splitmix64 r(7);
        for (auto& v : hx) v = 2.0 * r.unit() - 1.0;
        double *val, *x, *sums;
        int* col;
        const int blocks = prop.multiProcessorCount * 8;
        TCORE_CHECK(cudaMalloc(&val, nnz * sizeof(double)));
        TCORE_CHECK(cudaMalloc(&col, nnz * sizeof(int)));
        TCORE_CHECK(cudaMalloc(&x, a.cols * sizeof(double)));
        TCORE_CHECK(cudaMalloc(&sums, blocks * sizeof(double)));
        TCORE_CHECK(cudaMemcpy(val, a.values.data(), nnz * sizeof(double), cudaMemcpyHostToDevice));
        TCORE_CHECK(cudaMemcpy(col, a.col_idx.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
        TCORE_CHECK(cudaMemcpy(x, hx.data(), a.cols * sizeof(double), cudaMemcpyHostToDevice));
        long double want = 0, mag = 0;
        for (long long i = 0; i < 4 * nnz4; ++i) {
            want += static_cast<long double>(a.values[i]) * hx[a.col_idx[i]];
            mag += std::fabs(a.values[i] * hx[a.col_idx[i]]);
        }
        const double bytes = 12.0 * nnz + 8.0 * (static_cast<double>(a.rows) + a.cols);
        std::printf("\npower_law/%.0e: %d x %d, %lld nonzeros, x %.1f MB; minimum bytes %.3f GB; 70%% of copy "
                    "bandwidth needs <= %.4f ms\n",
                    static_cast<double>(target), a.rows, a.cols, nnz, 8e-6 * a.cols, bytes / 1e9,
                    bytes / (0.7 * copy_gbs * 1e6));
        auto run = [&](const char* name, auto kernel, bool check) {
            auto launch = [&] { kernel<<<blocks, threads, 0, st>>>(val, col, x, nnz4, sums); };
            launch();
            TCORE_CHECK(cudaStreamSynchronize(st));
            TCORE_CHECK(cudaGetLastError());
            if (check) {
                std::vector<double> hs(blocks);
                TCORE_CHECK(cudaMemcpy(hs.data(), sums, blocks * sizeof(double), cudaMemcpyDeviceToHost));
                long double got = 0;
                for (double v : hs) got += v;
                const double err = std::fabs(static_cast<double>(got - want));
                if (!(err <= 1e-12 * static_cast<double>(mag))) {
                    std::printf("  %-14s WRONG sum: %.17g, want %.17g\n", name, static_cast<double>(got),
                                static_cast<double>(want));
                    std::exit(1);
                }
            }
            const double ms = time_median(st, launch);
            std::printf("  %-14s %8.4f ms  %6.0f GB/s (minimum bytes)  %5.1f%% of copy bandwidth\n", name, ms,
                        bytes / ms / 1e6, 100.0 * bytes / ms / 1e6 / copy_gbs);
        };
        run("stream", bound_kernel<false, false>, false);
        run("gather", bound_kernel<true, false>, true);
        // x held in L2
        const size_t persist = std::min<size_t>(static_cast<size_t>(prop.persistingL2CacheMaxSize), a.cols * sizeof(double));
        TCORE_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, persist));
        cudaStreamAttrValue w = {};
        w.accessPolicyWindow.base_ptr = x;
        w.accessPolicyWindow.num_bytes = std::min<size_t>(a.cols * sizeof(double), static_cast<size_t>(prop.accessPolicyMaxWindowSize));
        w.accessPolicyWindow.hitRatio = std::min(1.0f, static_cast<float>(persist) / w.accessPolicyWindow.num_bytes);
        w.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        w.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        TCORE_CHECK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &w));
        run("gather x-L2", bound_kernel<true, true>, true);
        w.accessPolicyWindow.num_bytes = 0;
        TCORE_CHECK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &w));
        TCORE_CHECK(cudaCtxResetPersistingL2Cache());
        TCORE_CHECK(cudaFree(val));
        TCORE_CHECK(cudaFree(col));
        TCORE_CHECK(cudaFree(x));
        TCORE_CHECK(cudaFree(sums));
    }
    return 0;
}
