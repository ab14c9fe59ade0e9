// tcore/frag/f64_m8n8k4.cuh - FP64 MMA, D(8x8) = A(8x4) * B(4x8) + C, sm_80+.
//
// PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f64 floating point type";
// SASS DMMA.884 (sm_80) / DMMA.8x8x4 (sm_90). With g = lane/4, t = lane%4:
//   A: a0 -> (g, t)                 (T32,V1) -> (M8,K4)
//   B: b0 -> (t, g)                 (T32,V1) -> (K4,N8)
//   C: c_i -> (g, 2t + i), i < 2    (T32,V2) -> (M8,N8)
// On sm_90 this shape runs at half the rate of m16n8k* (docs/mma-fragments.md
// section 9): prefer f64_m16n8k* on Hopper.
#pragma once

#include "fragment.cuh"

namespace tcore {

struct f64_m8n8k4 {
    using a_type = double;
    using b_type = double;
    using c_type = double;
    using acc_type = double;
    static constexpr int m = 8, n = 8, k = 4;
    static constexpr int min_arch = 800;  // oldest __CUDA_ARCH__ with this MMA (sm_80)
    static constexpr int a_count = 1, b_count = 1, c_count = 2;
    static constexpr int c_rows = 1, c_cols = 2;  // accumulator row/column slots per lane
    static constexpr int k_steps = k;             // multiply-adds per output in the CC MMA
    static constexpr const char* name() { return "f64_m8n8k4"; }

    __host__ __device__ static constexpr coord a_coord(int lane, int) { return {lane >> 2, lane & 3}; }
    __host__ __device__ static constexpr coord b_coord(int lane, int) { return {lane & 3, lane >> 2}; }
    __host__ __device__ static constexpr coord c_coord(int lane, int i) { return {lane >> 2, 2 * (lane & 3) + i}; }
    __host__ __device__ static constexpr home a_home(int row, int col) { return {4 * row + col, 0}; }
    __host__ __device__ static constexpr home b_home(int row, int col) { return {4 * col + row, 0}; }

    template <class T> __host__ __device__ static double to_a(T v) { return static_cast<double>(v); }
    template <class T> __host__ __device__ static double to_b(T v) { return static_cast<double>(v); }
    __host__ __device__ static double to_acc(double v) { return v; }
    __host__ __device__ static double madd(double a, double b, double c) { return fma(a, b, c); }

    __device__ static void mma_sync(frag_c<f64_m8n8k4>& d, const frag_a<f64_m8n8k4>& a,
                                    const frag_b<f64_m8n8k4>& b, const frag_c<f64_m8n8k4>& c)
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                     : "=d"(d.x[0]), "=d"(d.x[1])
                     : "d"(a.x[0]), "d"(b.x[0]), "d"(c.x[0]), "d"(c.x[1]));
#else
        mma_cuda_core(d, a, b, c);  // no FP64 tensor core below sm_80
#endif
    }
};

}  // namespace tcore
