// stream2d.cu - a warp-streaming kernel for star2d1r with T = 3 fused steps
// (Dirichlet), against tcore::stencil_apply's tiled tc and cce kernels.
//
// Each warp owns a strip of 128 array columns (4 per lane, 16-byte loads)
// and a band of H output rows, and streams down the rows: per input row it
// computes one row of step 1, one of step 2 (one row behind) and one of
// step 3 (two behind), holding the rows each step needs in registers
// (3 + 2 + 2 rows x 4 columns) and the horizontal neighbours by shuffles.
// No shared memory, no block barriers. The strip's outer 3 columns on each
// side are computed with neighbours from the wrong lanes and discarded
// (122 valid output columns of 128); the Dirichlet halo (rows and columns
// 0 and n+1) is reset to the input at every step, which also stops the
// garbage. Input rows are loaded D rows ahead into a register ring.
//
// Timing: 0.3 s time-based warm-up, then 30 launches with an event pair
// each, median; every candidate is checked against 3 steps of
// tcore::stencil_reference_step (long double) on the 10240^2 case first
// and on a 1000 x 777 grid.
// build: nvcc -O3 -std=c++17 -arch=sm_90 -I include -o stream2d stream2d.cu
#include <tcore/async_copy.cuh>
#include <tcore/patterns/stencil_tiled.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

using namespace tcore;
using S = star2d1r;
constexpr int T = 3;
constexpr int C = 4;            // columns per lane
constexpr int W = 32 * C;       // strip width (array columns)
constexpr int VALID = W - 2 * T;  // output columns per strip

struct sargs {
    const double* in;
    double* out;
    long long nx, ny, ex, ey;
    long long strips, band;
    double wn, ww, wc, we, ws;
};

template <int D, int Warps, int MinBlocks>
__global__ void __launch_bounds__(32 * Warps, MinBlocks) stream2d_kernel(sargs a)
{
    const int lane = threadIdx.x & 31;
    const long long strip = static_cast<long long>(blockIdx.x) * Warps + (threadIdx.x >> 5);
    if (strip >= a.strips) return;
    const long long sx0 = strip * VALID - 2;       // array column of lane 0's column 0
    const long long col0 = sx0 + C * lane;          // even
    const long long y_lo = 1 + blockIdx.y * a.band;  // first output row (array)
    const long long y_hi = min(a.ny + 1, y_lo + a.band);
    // per-column masks
    int halo_col = 0, out_col = 0;
    for (int c = 0; c < C; ++c) {
        const long long x = col0 + c;
        if (x == 0 || x == a.ex - 1) halo_col |= 1 << c;
        if (x >= sx0 + T && x < sx0 + T + VALID && x >= 1 && x <= a.nx) out_col |= 1 << c;
    }
    const bool load_ok = col0 >= 0 && col0 < a.ex;  // pairs (col0, col0+1), (col0+2, col0+3): ex even
    const bool load_ok2 = col0 + 2 >= 0 && col0 + 2 < a.ex;
    auto load_row = [&](long long y, double (&v)[C]) {
        if (y >= 0 && y < a.ey) {
            const double* p = a.in + y * a.ex + col0;
            double2 q0 = load_ok ? __ldg(reinterpret_cast<const double2*>(p)) : make_double2(0, 0);
            double2 q1 = load_ok2 ? __ldg(reinterpret_cast<const double2*>(p + 2)) : make_double2(0, 0);
            v[0] = q0.x; v[1] = q0.y; v[2] = q1.x; v[3] = q1.y;
        } else {
            for (int c = 0; c < C; ++c) v[c] = 0;
        }
    };
    // one step of the stencil on a row: m center, n north, s south; input row for the halo
    auto level = [&](const double (&n)[C], const double (&m)[C], const double (&s)[C], const double (&inp)[C],
                     bool halo_row, double (&r)[C]) {
        const double left = __shfl_up_sync(0xffffffffu, m[C - 1], 1);
        const double right = __shfl_down_sync(0xffffffffu, m[0], 1);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const double west = c == 0 ? left : m[c - 1];
            const double east = c == C - 1 ? right : m[c + 1];
            double acc = a.wn * n[c];
            acc = fma(a.ww, west, acc);
            acc = fma(a.wc, m[c], acc);
            acc = fma(a.we, east, acc);
            acc = fma(a.ws, s[c], acc);
            r[c] = (halo_row || (halo_col >> c & 1)) ? inp[c] : acc;
        }
    };
    double w0[3][C], w1[2][C], w2[2][C];
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < C; ++c) w0[i][c] = 0;
    for (int i = 0; i < 2; ++i)
        for (int c = 0; c < C; ++c) w1[i][c] = w2[i][c] = 0;
    const long long y_first = y_lo - 2 * T;  // first input row streamed (fills the pipeline)
    const long long y_last = y_hi - 1 + T;   // last input row needed
    double pf[D][C];
#pragma unroll
    for (int d = 0; d < D; ++d) load_row(y_first + d, pf[d]);
    auto step = [&](long long yin, const double (&nw)[C]) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            w0[0][c] = w0[1][c];
            w0[1][c] = w0[2][c];
            w0[2][c] = nw[c];
        }
        // step 1, row yin - 1
        double r1[C];
        const long long y1 = yin - 1;
        level(w0[0], w0[1], w0[2], w0[1], y1 <= 0 || y1 >= a.ey - 1, r1);
        // step 2, row yin - 2: north w1[0], center w1[1], south r1; input row yin - 2 = w0[0]
        double r2[C];
        const long long y2 = yin - 2;
        level(w1[0], w1[1], r1, w0[0], y2 <= 0 || y2 >= a.ey - 1, r2);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            w1[0][c] = w1[1][c];
            w1[1][c] = r1[c];
        }
        // step 3, row yin - 3: the output (interior rows and columns only, no halo select)
        double r3[C];
        const long long y3 = yin - 3;
        {
            const double left = __shfl_up_sync(0xffffffffu, w2[1][C - 1], 1);
            const double right = __shfl_down_sync(0xffffffffu, w2[1][0], 1);
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const double west = c == 0 ? left : w2[1][c - 1];
                const double east = c == C - 1 ? right : w2[1][c + 1];
                double acc = a.wn * w2[0][c];
                acc = fma(a.ww, west, acc);
                acc = fma(a.wc, w2[1][c], acc);
                acc = fma(a.we, east, acc);
                acc = fma(a.ws, r2[c], acc);
                r3[c] = acc;
            }
        }
        if (y3 >= y_lo && y3 < y_hi && out_col) {
            double* p = a.out + y3 * a.ex + col0;
            if ((out_col & 3) == 3) __stcs(reinterpret_cast<double2*>(p), make_double2(r3[0], r3[1]));
            else {
                if (out_col & 1) __stcs(p, r3[0]);
                if (out_col & 2) __stcs(p + 1, r3[1]);
            }
            if ((out_col & 12) == 12) __stcs(reinterpret_cast<double2*>(p + 2), make_double2(r3[2], r3[3]));
            else {
                if (out_col & 4) __stcs(p + 2, r3[2]);
                if (out_col & 8) __stcs(p + 3, r3[3]);
            }
        }
#pragma unroll
        for (int c = 0; c < C; ++c) {
            w2[0][c] = w2[1][c];
            w2[1][c] = r2[c];
        }
    };
    for (long long y = y_first; y <= y_last; y += D) {
#pragma unroll
        for (int d = 0; d < D; ++d) {
            if (y + d <= y_last) {
                double cur[C];
#pragma unroll
                for (int c = 0; c < C; ++c) cur[c] = pf[d][c];
                load_row(y + d + D, pf[d]);
                step(y + d, cur);
            }
        }
    }
}

template <int P, int Warps, int MinBlocks>
__global__ void __launch_bounds__(32 * Warps, MinBlocks) stream2d_async_kernel(sargs a)
{
    extern __shared__ double2 ring_all[];  // [Warps][P][32 lanes][2]: each lane's 4 columns of a row
    double2* ring = ring_all + (threadIdx.x >> 5) * P * 64 + 2 * (threadIdx.x & 31);
    const int lane = threadIdx.x & 31;
    const long long strip = static_cast<long long>(blockIdx.x) * Warps + (threadIdx.x >> 5);
    if (strip >= a.strips) return;
    const long long sx0 = strip * VALID - 2;       // array column of lane 0's column 0
    const long long col0 = sx0 + C * lane;          // even
    const long long y_lo = 1 + blockIdx.y * a.band;  // first output row (array)
    const long long y_hi = min(a.ny + 1, y_lo + a.band);
    // per-column masks
    int halo_col = 0, out_col = 0;
    for (int c = 0; c < C; ++c) {
        const long long x = col0 + c;
        if (x == 0 || x == a.ex - 1) halo_col |= 1 << c;
        if (x >= sx0 + T && x < sx0 + T + VALID && x >= 1 && x <= a.nx) out_col |= 1 << c;
    }
    const bool load_ok = col0 >= 0 && col0 < a.ex;  // pairs (col0, col0+1), (col0+2, col0+3): ex even
    const bool load_ok2 = col0 + 2 >= 0 && col0 + 2 < a.ex;
    auto load_row = [&](long long y, double (&v)[C]) {
        if (y >= 0 && y < a.ey) {
            const double* p = a.in + y * a.ex + col0;
            double2 q0 = load_ok ? __ldg(reinterpret_cast<const double2*>(p)) : make_double2(0, 0);
            double2 q1 = load_ok2 ? __ldg(reinterpret_cast<const double2*>(p + 2)) : make_double2(0, 0);
            v[0] = q0.x; v[1] = q0.y; v[2] = q1.x; v[3] = q1.y;
        } else {
            for (int c = 0; c < C; ++c) v[c] = 0;
        }
    };
    // one step of the stencil on a row: m center, n north, s south; input row for the halo
    auto level = [&](const double (&n)[C], const double (&m)[C], const double (&s)[C], const double (&inp)[C],
                     bool halo_row, double (&r)[C]) {
        const double left = __shfl_up_sync(0xffffffffu, m[C - 1], 1);
        const double right = __shfl_down_sync(0xffffffffu, m[0], 1);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const double west = c == 0 ? left : m[c - 1];
            const double east = c == C - 1 ? right : m[c + 1];
            double acc = a.wn * n[c];
            acc = fma(a.ww, west, acc);
            acc = fma(a.wc, m[c], acc);
            acc = fma(a.we, east, acc);
            acc = fma(a.ws, s[c], acc);
            r[c] = (halo_row || (halo_col >> c & 1)) ? inp[c] : acc;
        }
    };
    double w0[3][C], w1[2][C], w2[2][C];
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < C; ++c) w0[i][c] = 0;
    for (int i = 0; i < 2; ++i)
        for (int c = 0; c < C; ++c) w1[i][c] = w2[i][c] = 0;
    const long long y_first = y_lo - 2 * T;  // first input row streamed (fills the pipeline)
    const long long y_last = y_hi - 1 + T;   // last input row needed
    auto issue = [&](long long y) {  // row y into its ring slot (zeros outside the array)
        double2* slot = ring + (((y % P) + P) % P) * 64;
        const bool row_ok = y >= 0 && y < a.ey;
        const double* p = a.in + (row_ok ? y * a.ex : 0) + (load_ok ? col0 : 0);
        cp_async<16>(slot, p, row_ok && load_ok ? 16 : 0);
        const double* p2 = a.in + (row_ok ? y * a.ex : 0) + (load_ok2 ? col0 + 2 : 0);
        cp_async<16>(slot + 1, p2, row_ok && load_ok2 ? 16 : 0);
        cp_async_commit();
    };
#pragma unroll
    for (int d = 0; d < P - 1; ++d) issue(y_first + d);
    auto step = [&](long long yin, const double (&nw)[C]) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            w0[0][c] = w0[1][c];
            w0[1][c] = w0[2][c];
            w0[2][c] = nw[c];
        }
        // step 1, row yin - 1
        double r1[C];
        const long long y1 = yin - 1;
        level(w0[0], w0[1], w0[2], w0[1], y1 <= 0 || y1 >= a.ey - 1, r1);
        // step 2, row yin - 2: north w1[0], center w1[1], south r1; input row yin - 2 = w0[0]
        double r2[C];
        const long long y2 = yin - 2;
        level(w1[0], w1[1], r1, w0[0], y2 <= 0 || y2 >= a.ey - 1, r2);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            w1[0][c] = w1[1][c];
            w1[1][c] = r1[c];
        }
        // step 3, row yin - 3: the output (interior rows and columns only, no halo select)
        double r3[C];
        const long long y3 = yin - 3;
        {
            const double left = __shfl_up_sync(0xffffffffu, w2[1][C - 1], 1);
            const double right = __shfl_down_sync(0xffffffffu, w2[1][0], 1);
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const double west = c == 0 ? left : w2[1][c - 1];
                const double east = c == C - 1 ? right : w2[1][c + 1];
                double acc = a.wn * w2[0][c];
                acc = fma(a.ww, west, acc);
                acc = fma(a.wc, w2[1][c], acc);
                acc = fma(a.we, east, acc);
                acc = fma(a.ws, r2[c], acc);
                r3[c] = acc;
            }
        }
        if (y3 >= y_lo && y3 < y_hi && out_col) {
            double* p = a.out + y3 * a.ex + col0;
            if ((out_col & 3) == 3) __stcs(reinterpret_cast<double2*>(p), make_double2(r3[0], r3[1]));
            else {
                if (out_col & 1) __stcs(p, r3[0]);
                if (out_col & 2) __stcs(p + 1, r3[1]);
            }
            if ((out_col & 12) == 12) __stcs(reinterpret_cast<double2*>(p + 2), make_double2(r3[2], r3[3]));
            else {
                if (out_col & 4) __stcs(p + 2, r3[2]);
                if (out_col & 8) __stcs(p + 3, r3[3]);
            }
        }
#pragma unroll
        for (int c = 0; c < C; ++c) {
            w2[0][c] = w2[1][c];
            w2[1][c] = r2[c];
        }
    };
#pragma unroll 1
    for (long long y = y_first; y <= y_last; ++y) {
        issue(y + P - 1);
        cp_async_wait<P - 1>();
        const double2* slot = ring + (((y % P) + P) % P) * 64;
        const double2 q0 = slot[0], q1 = slot[1];
        const double cur[C] = {q0.x, q0.y, q1.x, q1.y};
        step(y, cur);
    }
}

struct cand {
    const char* name;
    std::function<void(const double*, double*, cudaStream_t)> run;
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

template <int D, int Warps, int MinBlocks>
cand stream_cand(const char* name, long long band, const stencil_grid& g, const stencil_weights<S>& w)
{
    return {name, [=](const double* in, double* out, cudaStream_t st) {
                sargs a;
                a.in = in;
                a.out = out;
                a.nx = g.nx;
                a.ny = g.ny;
                a.ex = g.nx + 2;
                a.ey = g.ny + 2;
                a.strips = (g.nx + VALID - 1) / VALID;
                a.band = band;
                a.wn = w.at(0, -1, 0);
                a.ww = w.at(0, 0, -1);
                a.wc = w.at(0, 0, 0);
                a.we = w.at(0, 0, 1);
                a.ws = w.at(0, 1, 0);
                const dim3 grid(static_cast<unsigned>((a.strips + Warps - 1) / Warps),
                                static_cast<unsigned>((g.ny + band - 1) / band));
                stream2d_kernel<D, Warps, MinBlocks><<<grid, 32 * Warps, 0, st>>>(a);
            }};
}

template <int P, int Warps, int MinBlocks>
cand async_cand(const char* name, long long band, const stencil_grid& g, const stencil_weights<S>& w)
{
    const size_t smem = size_t(Warps) * P * 64 * sizeof(double2);
    TCORE_CHECK(cudaFuncSetAttribute(stream2d_async_kernel<P, Warps, MinBlocks>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    return {name, [=](const double* in, double* out, cudaStream_t st) {
                sargs a;
                a.in = in;
                a.out = out;
                a.nx = g.nx;
                a.ny = g.ny;
                a.ex = g.nx + 2;
                a.ey = g.ny + 2;
                a.strips = (g.nx + VALID - 1) / VALID;
                a.band = band;
                a.wn = w.at(0, -1, 0);
                a.ww = w.at(0, 0, -1);
                a.wc = w.at(0, 0, 0);
                a.we = w.at(0, 0, 1);
                a.ws = w.at(0, 1, 0);
                const dim3 grid(static_cast<unsigned>((a.strips + Warps - 1) / Warps),
                                static_cast<unsigned>((g.ny + band - 1) / band));
                stream2d_async_kernel<P, Warps, MinBlocks><<<grid, 32 * Warps, smem, st>>>(a);
            }};
}

int main()
{
    cudaDeviceProp prop;
    TCORE_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    cudaStream_t st;
    TCORE_CHECK(cudaStreamCreate(&st));
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> uw(-0.3, 0.3), uv(-2, 2);
    stencil_weights<S> w;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (S::contains(0, dy, dx)) w.set(0, dy, dx, uw(rng));
    for (const long long n : {1000LL, 4096LL, 10240LL}) {
        stencil_grid g;
        g.nx = n;
        g.ny = n == 1000 ? 777 : n;
        const stencil_extent e = stencil_array_extent<S>(g, boundary::dirichlet);
        std::vector<double> h(e.count());
        for (auto& v : h) v = uv(rng);
        // reference: 3 steps
        std::vector<double> r0 = h, r1(h.size());
        for (int s = 0; s < T; ++s) {
            stencil_reference_step<S>(r0.data(), r1.data(), g, boundary::dirichlet, w);
            std::swap(r0, r1);
        }
        double *din, *dout;
        TCORE_CHECK(cudaMalloc(&din, h.size() * 8));
        TCORE_CHECK(cudaMalloc(&dout, h.size() * 8));
        TCORE_CHECK(cudaMemcpy(din, h.data(), h.size() * 8, cudaMemcpyHostToDevice));
        std::vector<cand> cs = {
            {"cce stencil_apply", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_apply<S, stencil_cce, T, boundary::dirichlet>(i, o, g, w, s);
             }},
            {"cce tiled (launch_tiled)", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_tiled<S, stencil_cce, T, boundary::dirichlet>(i, o, g, w, s);
             }},
            {"tc stencil_apply (tiled)", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_apply<S, tensor_core, T, boundary::dirichlet>(i, o, g, w, s);
             }},
            stream_cand<1, 8, 3>("stream D1 8w mb3 H512", 512, g, w),
            {"kit warp stream, band auto", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s);
             }},
            {"kit warp stream, band 32", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s, 32);
             }},
            {"kit warp stream, band 48", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s, 48);
             }},
            {"kit warp stream, band 64", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s, 64);
             }},
            {"kit warp stream, band 96", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s, 96);
             }},
            {"kit warp stream, band 128", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s, 128);
             }},
            {"kit warp stream, band 256", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s, 256);
             }},
            {"kit warp stream, band 384", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s, 384);
             }},
            {"kit warp stream, band 512", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s, 512);
             }},
            {"kit warp stream, band 768", [&](const double* i, double* o, cudaStream_t s) {
                 stencil_detail::launch_warp_stream<T>(i, o, g, w, s, 768);
             }},
        };
        std::printf("\nstar2d1r t=3 dirichlet %lld x %lld\n", g.nx, g.ny);
        std::vector<double> got(h.size());
        for (auto& c : cs) {
            TCORE_CHECK(cudaMemcpy(dout, din, h.size() * 8, cudaMemcpyDeviceToDevice));  // halo = input
            TCORE_CHECK(cudaMemset(dout + e.ex, 0xFF, (e.count() - 2 * e.ex) * 8));      // poison rows 1..ny
            // restore the halo columns of the poisoned rows
            for (long long y = 1; y <= g.ny; ++y) {
                TCORE_CHECK(cudaMemcpy(dout + y * e.ex, din + y * e.ex, 8, cudaMemcpyDeviceToDevice));
                TCORE_CHECK(cudaMemcpy(dout + y * e.ex + e.ex - 1, din + y * e.ex + e.ex - 1, 8, cudaMemcpyDeviceToDevice));
            }
            c.run(din, dout, st);
            TCORE_CHECK(cudaStreamSynchronize(st));
            TCORE_CHECK(cudaGetLastError());
            TCORE_CHECK(cudaMemcpy(got.data(), dout, h.size() * 8, cudaMemcpyDeviceToHost));
            double err = 0;
            long long bad = 0;
            for (long long i = 0; i < e.count(); ++i) {
                const double d = std::fabs(got[i] - r0[i]);
                if (!(d <= 1e-12)) ++bad;
                else err = std::max(err, d);
            }
            if (bad) {
                std::printf("  %-28s WRONG: %lld elements off (first check)\n", c.name, bad);
                continue;
            }
            if (n < 4096) {
                std::printf("  %-28s ok, max error %.2e\n", c.name, err);
                continue;
            }
            const double ms = time_median(st, [&] { c.run(din, dout, st); });
            std::printf("  %-28s %8.4f ms  %7.1f GStencil/s  max error %.2e\n", c.name, ms,
                        static_cast<double>(g.nx) * g.ny * T / ms / 1e6, err);
        }
        TCORE_CHECK(cudaFree(din));
        TCORE_CHECK(cudaFree(dout));
    }
    return 0;
}
