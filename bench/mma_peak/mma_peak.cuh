// bench/mma_peak/mma_peak.cuh - throughput kernels for every tcore MMA shape
// on either backend, and FMA loops for the CUDA-core peaks, with host
// launchers that size themselves to a target kernel time. Used by the
// mma_peak workload and by the harness's ceiling measurements.
//
// Method (reaches the FP64 peak on an H200, docs/mma-fragments.md section
// 9): operands built in registers from the thread index (nonzero), 4
// independent accumulator chains per warp, an unrolled inner loop, up to 32
// warps per SM as registers permit (FP64 m16n8k16 fits 16, with 64
// independent MMAs per SM in flight) on every SM, and a
// result written only if it equals a value passed at run time, so the
// compiler keeps the work. The row's note says the warps per SM reached.
#pragma once

#include <tcore/tcore.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

namespace tcore::bench::mma_peak {

constexpr int block_threads = 256;
constexpr int mma_chains = 4;   ///< independent accumulators per warp
constexpr int mma_unroll = 8;   ///< MMAs per chain per loop iteration
constexpr int mma_blocks_per_sm = 4;  ///< at most 32 warps per SM
constexpr int fma_chains = 8;
constexpr int fma_unroll = 16;
constexpr int fma_blocks_per_sm = 8;  ///< 64 warps per SM (FMA loops use few registers)

// -- operand values ------------------------------------------------------------

/// A nonzero, thread-dependent value in [1/1024, 32/1024] (exact in TF32 and FP16).
__device__ inline float small_value(unsigned tid, int i)
{
    return static_cast<float>(1u + (tid * 7u + static_cast<unsigned>(i) * 13u) % 32u) * (1.0f / 1024.0f);
}

template <class T>
__device__ inline T operand_value(unsigned tid, int i)
{
    if constexpr (std::is_same_v<T, unsigned>) return ((tid + 1u) * 0x9e3779b9u) ^ (static_cast<unsigned>(i) * 0x85ebca6bu) ^ 1u;
    else return convert_to<T>(small_value(tid, i));
}

__device__ inline double as_double(double v) { return v; }
__device__ inline double as_double(float v) { return v; }
__device__ inline double as_double(__half v) { return __half2float(v); }
__device__ inline double as_double(int v) { return v; }

/// Adds `step` to every 32-bit register of a fragment. The kernels pass
/// step = 0 at run time, so values do not change, but neither the compiler
/// nor ptxas can know that: each cuda_core MMA then sees operands it has not
/// seen before and must do its full work (shuffles, popcounts), as in a
/// real kernel that feeds every MMA fresh data. Without it ptxas hoists the
/// shuffles of loop-invariant operands and only the FMAs are measured.
/// Costs one integer add per operand register per MMA.
template <class Frag>
__device__ inline void advance(Frag& f, unsigned step)
{
    static_assert(sizeof(f.x) % sizeof(unsigned) == 0, "fragment registers are 32-bit");
    constexpr int words = sizeof(f.x) / sizeof(unsigned);
    unsigned w[words];
    memcpy(w, f.x, sizeof w);
#pragma unroll
    for (int i = 0; i < words; ++i) w[i] += step;
    memcpy(f.x, w, sizeof w);
}

__device__ inline double fused_multiply_add(double x, double a, double b) { return fma(x, a, b); }
__device__ inline float fused_multiply_add(float x, float a, float b) { return fmaf(x, a, b); }

// -- kernels -------------------------------------------------------------------

/// `iters` x mma_unroll x mma_chains MMAs per warp of `Shape` on `Backend`.
/// On cuda_core the operands advance by `step` (0) before every MMA, see
/// advance(); on tensor_core the mma.sync is an asm volatile the compiler
/// cannot drop, and the operands stay in registers untouched.
template <class Shape, class Backend>
__global__ void __launch_bounds__(block_threads)
    mma_kernel(typename Shape::c_type* out, int iters, double magic, unsigned step)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    frag_a<Shape> a;
    frag_b<Shape> b;
    frag_c<Shape> acc[mma_chains];
    static_for<frag_a<Shape>::size>([&](auto i) { a.x[i] = operand_value<typename Shape::a_type>(tid, i); });
    static_for<frag_b<Shape>::size>([&](auto i) { b.x[i] = operand_value<typename Shape::b_type>(tid, i + 5); });
#pragma unroll
    for (int j = 0; j < mma_chains; ++j) fill(acc[j], 0);

    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int u = 0; u < mma_unroll; ++u) {
#pragma unroll
            for (int j = 0; j < mma_chains; ++j) {
                if constexpr (std::is_same_v<Backend, cuda_core>) {
                    advance(a, step);
                    advance(b, step);
                }
                mma<Backend>(acc[j], a, b, acc[j]);
            }
        }
    }

    double sum = 0;
#pragma unroll
    for (int j = 0; j < mma_chains; ++j)
        static_for<frag_c<Shape>::size>([&](auto i) { sum += as_double(acc[j].x[i]); });
    if (sum == magic) out[tid] = acc[0].x[0];
}

/// `iters` x fma_unroll x fma_chains dependent-chain FMAs per thread:
/// x = x * a + b converges, so the values stay finite however long it runs.
template <class T>
__global__ void __launch_bounds__(block_threads) fma_kernel(T* out, int iters, T magic)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const T a = T(1) - T(1) / T(256 + tid % 64);
    const T b = static_cast<T>(small_value(tid, 3));
    T x[fma_chains];
#pragma unroll
    for (int j = 0; j < fma_chains; ++j) x[j] = static_cast<T>(small_value(tid, j));

    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int u = 0; u < fma_unroll; ++u) {
#pragma unroll
            for (int j = 0; j < fma_chains; ++j) x[j] = fused_multiply_add(x[j], a, b);
        }
    }

    T sum = 0;
#pragma unroll
    for (int j = 0; j < fma_chains; ++j) sum += x[j];
    if (sum == magic) out[tid] = sum;
}

// -- host launchers ------------------------------------------------------------

/// A sized kernel: operator() enqueues one launch; flops() is its work.
struct launcher {
    std::string name;
    int grid = 0, block = block_threads, warps_per_sm = 0, iters = 1, max_iters = 1 << 28;
    double work_per_iter = 0;  ///< flops (or b1 "ops") of one loop iteration over the whole grid
    std::shared_ptr<void> out;  ///< the conditional-write target, grid x block elements
    std::function<void(cudaStream_t, int)> launch_iters;

    double flops() const { return work_per_iter * iters; }
    void operator()(cudaStream_t s) const { launch_iters(s, iters); }
};

/// Resident blocks of `kernel` per SM, capped at `cap`; throws if none fit.
template <class Kernel>
int blocks_per_sm(Kernel kernel, int cap)
{
    int n = 0;
    TCORE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, block_threads, 0));
    require(n > 0, "mma_peak", "kernel does not fit on an SM");
    return std::min(n, cap);
}

inline std::shared_ptr<void> device_alloc(std::size_t bytes)
{
    void* p = nullptr;
    TCORE_CHECK(cudaMalloc(&p, bytes));
    return std::shared_ptr<void>(p, [](void* q) { cudaFree(q); });
}

/// Milliseconds of one launch (events, after the caller warmed it up).
inline double time_one_ms(const launcher& l, cudaStream_t s)
{
    cudaEvent_t start = nullptr, stop = nullptr;
    TCORE_CHECK(cudaEventCreate(&start));
    std::shared_ptr<void> guard_start(start, [](void* e) { cudaEventDestroy(static_cast<cudaEvent_t>(e)); });
    TCORE_CHECK(cudaEventCreate(&stop));
    std::shared_ptr<void> guard_stop(stop, [](void* e) { cudaEventDestroy(static_cast<cudaEvent_t>(e)); });
    TCORE_CHECK(cudaEventRecord(start, s));
    l(s);
    TCORE_CHECK(cudaGetLastError());
    TCORE_CHECK(cudaEventRecord(stop, s));
    TCORE_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    TCORE_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

/// Scales l.iters so that one launch takes about target_ms.
inline void size_to(launcher& l, cudaStream_t s, double target_ms)
{
    l.iters = std::min(16, l.max_iters);
    l(s);  // module load, clocks
    TCORE_CHECK(cudaGetLastError());
    TCORE_CHECK(cudaStreamSynchronize(s));
    for (int round = 0; round < 8; ++round) {
        const double ms = std::max(time_one_ms(l, s), 1e-3);
        if (ms > 0.7 * target_ms && ms < 1.5 * target_ms) break;
        const double scale = std::min(target_ms / ms, 64.0);
        const double next = std::clamp(static_cast<double>(l.iters) * scale, 1.0, static_cast<double>(l.max_iters));
        if (static_cast<int>(next) == l.iters) break;
        l.iters = static_cast<int>(next);
    }
}

/// A launcher for mma_kernel<Shape, Backend> on `sm_count` SMs, sized to target_ms.
template <class Shape, class Backend>
launcher make_mma(int sm_count, cudaStream_t s, double target_ms)
{
    using c_type = typename Shape::c_type;
    launcher l;
    l.name = std::string(Shape::name()) + " " + Backend::name();
    const int per_sm = blocks_per_sm(mma_kernel<Shape, Backend>, mma_blocks_per_sm);
    l.grid = sm_count * per_sm;
    l.warps_per_sm = per_sm * block_threads / 32;
    const double warps = static_cast<double>(l.grid) * block_threads / 32;
    l.work_per_iter = warps * mma_unroll * mma_chains * 2.0 * Shape::m * Shape::n * Shape::k;
    // b1 accumulates popcounts in int32: at most 128 per MMA per element
    if constexpr (std::is_same_v<c_type, int>) l.max_iters = (1 << 30) / (mma_unroll * Shape::k);
    const std::size_t elements = static_cast<std::size_t>(l.grid) * block_threads;
    l.out = device_alloc(elements * sizeof(c_type));
    c_type* out = static_cast<c_type*>(l.out.get());
    const int grid = l.grid;
    l.launch_iters = [out, grid](cudaStream_t st, int iters) {
        mma_kernel<Shape, Backend><<<grid, block_threads, 0, st>>>(out, iters, -1.0, 0u);
    };
    size_to(l, s, target_ms);
    return l;
}

/// A launcher for fma_kernel<T> (T = double or float), sized to target_ms.
template <class T>
launcher make_fma(int sm_count, cudaStream_t s, double target_ms)
{
    launcher l;
    l.name = std::is_same_v<T, double> ? "fp64_fma" : "fp32_fma";
    const int per_sm = blocks_per_sm(fma_kernel<T>, fma_blocks_per_sm);
    l.grid = sm_count * per_sm;
    l.warps_per_sm = per_sm * block_threads / 32;
    l.work_per_iter = static_cast<double>(l.grid) * block_threads * fma_unroll * fma_chains * 2.0;
    l.out = device_alloc(static_cast<std::size_t>(l.grid) * block_threads * sizeof(T));
    T* out = static_cast<T*>(l.out.get());
    const int grid = l.grid;
    l.launch_iters = [out, grid](cudaStream_t st, int iters) {
        fma_kernel<T><<<grid, block_threads, 0, st>>>(out, iters, T(-1));
    };
    size_to(l, s, target_ms);
    return l;
}

}  // namespace tcore::bench::mma_peak
