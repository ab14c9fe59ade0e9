// tcore/frag/f64_m16n8k.cuh - the sm_90 FP64 MMA family, D(16x8) = A(16xK) *
// B(Kx8) + C for K = 4, 8, 16 (include f64_m16n8k4/k8/k16.cuh, not this).
//
// PTX ISA, "Matrix Fragments for mma.m16n8k4 / m16n8k8 / m16n8k16 with .f64
// floating point type" (PTX 7.8, sm_90; SASS DMMA.16x8x{4,8,16}). With
// g = lane/4, t = lane%4, one formula covers all three K:
//   A: a_i -> (g + 8(i & 1), t + 4(i >> 1)),  i < K/2    (T32,V(K/2)) -> (M16,K)
//   B: b_i -> (t + 4i, g),                    i < K/4    (T32,V(K/4)) -> (K,N8)
//   C: c_i -> (g + 8(i >> 1), 2t + (i & 1)),  i < 4      (T32,V4)     -> (M16,N8)
// On sm_80 the same registers feed DMMA.884 directly: a_{2j} / a_{2j+1} are
// the m8n8k4 A of k-block j for rows 0-7 / 8-15, b_j its B, {c0,c1} / {c2,c3}
// its C. So sm_80 runs these shapes as 2*K/4 m8n8k4 MMAs, no data movement
// (ptxas does the same split for sm_100). Twice the m8n8k4 rate on sm_90
// (docs/mma-fragments.md section 9).
#pragma once

#include "f64_m8n8k4.cuh"

namespace tcore {

template <int K>
struct f64_m16n8 {
    static_assert(K == 4 || K == 8 || K == 16, "FP64 m16n8 shapes have K = 4, 8 or 16");
    using a_type = double;
    using b_type = double;
    using c_type = double;
    using acc_type = double;
    static constexpr int m = 16, n = 8, k = K;
    static constexpr int min_arch = 800;  // oldest __CUDA_ARCH__ with this MMA (sm_80)
    static constexpr int a_count = K / 2, b_count = K / 4, c_count = 4;
    static constexpr int c_rows = 2, c_cols = 2;
    static constexpr int k_steps = K;
    static constexpr const char* name()
    {
        return K == 4 ? "f64_m16n8k4" : K == 8 ? "f64_m16n8k8" : "f64_m16n8k16";
    }

    __host__ __device__ static constexpr coord a_coord(int lane, int i)
    {
        return {(lane >> 2) + 8 * (i & 1), (lane & 3) + 4 * (i >> 1)};
    }
    __host__ __device__ static constexpr coord b_coord(int lane, int i) { return {(lane & 3) + 4 * i, lane >> 2}; }
    __host__ __device__ static constexpr coord c_coord(int lane, int i)
    {
        return {(lane >> 2) + 8 * (i >> 1), 2 * (lane & 3) + (i & 1)};
    }
    __host__ __device__ static constexpr home a_home(int row, int col)
    {
        return {4 * (row & 7) + (col & 3), (row >> 3) + 2 * (col >> 2)};
    }
    __host__ __device__ static constexpr home b_home(int row, int col) { return {4 * col + (row & 3), row >> 2}; }

    template <class T> __host__ __device__ static double to_a(T v) { return static_cast<double>(v); }
    template <class T> __host__ __device__ static double to_b(T v) { return static_cast<double>(v); }
    __host__ __device__ static double to_acc(double v) { return v; }
    __host__ __device__ static double madd(double a, double b, double c) { return fma(a, b, c); }

    __device__ static void mma_sync(frag_c<f64_m16n8>& d, const frag_a<f64_m16n8>& a, const frag_b<f64_m16n8>& b,
                                    const frag_c<f64_m16n8>& c)
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        if constexpr (K == 4) {
            asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 "
                         "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                         : "=d"(d.x[0]), "=d"(d.x[1]), "=d"(d.x[2]), "=d"(d.x[3])
                         : "d"(a.x[0]), "d"(a.x[1]), "d"(b.x[0]),
                           "d"(c.x[0]), "d"(c.x[1]), "d"(c.x[2]), "d"(c.x[3]));
        } else if constexpr (K == 8) {
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                         : "=d"(d.x[0]), "=d"(d.x[1]), "=d"(d.x[2]), "=d"(d.x[3])
                         : "d"(a.x[0]), "d"(a.x[1]), "d"(a.x[2]), "d"(a.x[3]), "d"(b.x[0]), "d"(b.x[1]),
                           "d"(c.x[0]), "d"(c.x[1]), "d"(c.x[2]), "d"(c.x[3]));
        } else {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19};"
                         : "=d"(d.x[0]), "=d"(d.x[1]), "=d"(d.x[2]), "=d"(d.x[3])
                         : "d"(a.x[0]), "d"(a.x[1]), "d"(a.x[2]), "d"(a.x[3]),
                           "d"(a.x[4]), "d"(a.x[5]), "d"(a.x[6]), "d"(a.x[7]),
                           "d"(b.x[0]), "d"(b.x[1]), "d"(b.x[2]), "d"(b.x[3]),
                           "d"(c.x[0]), "d"(c.x[1]), "d"(c.x[2]), "d"(c.x[3]));
        }
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        // sm_80: K/4 k-blocks x 2 row halves of DMMA.884 on the same registers.
        frag_c<f64_m8n8k4> top{{c.x[0], c.x[1]}}, bottom{{c.x[2], c.x[3]}};
        static_for<K / 4>([&](auto j) {
            const frag_b<f64_m8n8k4> bj{{b.x[j]}};
            f64_m8n8k4::mma_sync(top, frag_a<f64_m8n8k4>{{a.x[2 * j]}}, bj, top);
            f64_m8n8k4::mma_sync(bottom, frag_a<f64_m8n8k4>{{a.x[2 * j + 1]}}, bj, bottom);
        });
        d.x[0] = top.x[0], d.x[1] = top.x[1], d.x[2] = bottom.x[0], d.x[3] = bottom.x[1];
#else
        mma_cuda_core(d, a, b, c);  // no FP64 tensor core below sm_80
#endif
    }
};

}  // namespace tcore
