// tcore/frag/tf32_m16n8k8.cuh - TF32 MMA, D(16x8,f32) = A(16x8) * B(8x8) + C, sm_80+.
//
// PTX ISA, "Matrix Fragments for mma.m16n8k8" (.tf32); SASS HMMA.1688.F32.TF32.
// The layout is the FP64 m16n8k8 one (g = lane/4, t = lane%4):
//   A: a_i -> (g + 8(i & 1), t + 4(i >> 1)), i < 4    (T32,V4) -> (M16,K8)
//   B: b_i -> (t + 4i, g),                   i < 2    (T32,V2) -> (K8,N8)
//   C: c_i -> (g + 8(i >> 1), 2t + (i & 1)), i < 4    (T32,V4) -> (M16,N8)
// Loads round A and B to TF32 (cvt.rna.tf32.f32: nearest, ties away from
// zero); a TF32 product is exact in FP32, so the cuda_core backend, which
// accumulates with FP32 FMAs, sees the same operands as the tensor core.
#pragma once

#include "fragment.cuh"

namespace tcore {

/// Rounds a float to TF32 (10 mantissa bits) as cvt.rna.tf32.f32 does.
/// One difference: a NaN whose payload lies only in the 13 dropped bits stays
/// a NaN on the host, while the sm_80/sm_90 code ptxas 13.0 emits for cvt.rna
/// (add 0x1000 to finite values, then clear the low 13 bits) makes it an
/// infinity. Every other input gives the same bits (tests/gpu/test_frag_mma.cu).
__host__ __device__ inline float round_to_tf32(float v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return __uint_as_float(r);
#else
    unsigned bits;
    memcpy(&bits, &v, sizeof bits);
    if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;  // finite
    else if (bits & 0x007fffffu) bits |= 0x00400000u;                                // keep NaN a NaN
    float r;
    memcpy(&r, &bits, sizeof r);
    return r;
#endif
}

struct tf32_m16n8k8 {
    using a_type = float;  // TF32-valued
    using b_type = float;
    using c_type = float;
    using acc_type = float;
    static constexpr int m = 16, n = 8, k = 8;
    static constexpr int min_arch = 800;  // oldest __CUDA_ARCH__ with this MMA (sm_80)
    static constexpr int a_count = 4, b_count = 2, c_count = 4;
    static constexpr int c_rows = 2, c_cols = 2;
    static constexpr int k_steps = k;
    static constexpr const char* name() { return "tf32_m16n8k8"; }

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

    template <class T> __host__ __device__ static float to_a(T v) { return round_to_tf32(static_cast<float>(v)); }
    template <class T> __host__ __device__ static float to_b(T v) { return round_to_tf32(static_cast<float>(v)); }
    __host__ __device__ static float to_acc(float v) { return v; }
    __host__ __device__ static float madd(float a, float b, float c) { return fmaf(a, b, c); }

    __device__ static void mma_sync(frag_c<tf32_m16n8k8>& d, const frag_a<tf32_m16n8k8>& a,
                                    const frag_b<tf32_m16n8k8>& b, const frag_c<tf32_m16n8k8>& c)
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=f"(d.x[0]), "=f"(d.x[1]), "=f"(d.x[2]), "=f"(d.x[3])
                     : "r"(__float_as_uint(a.x[0])), "r"(__float_as_uint(a.x[1])),
                       "r"(__float_as_uint(a.x[2])), "r"(__float_as_uint(a.x[3])),
                       "r"(__float_as_uint(b.x[0])), "r"(__float_as_uint(b.x[1])),
                       "f"(c.x[0]), "f"(c.x[1]), "f"(c.x[2]), "f"(c.x[3]));
#else
        mma_cuda_core(d, a, b, c);
#endif
    }
};

}  // namespace tcore
