// tcore/frag/f16_m16n8k16.cuh - FP16 MMA, D(16x8) = A(16x16) * B(16x8) + C,
// sm_80+, with FP32 accumulators (f16_m16n8k16_f32acc, HMMA.16816.F32) or
// FP16 accumulators (f16_m16n8k16_f16acc, HMMA.16816.F16).
//
// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type".
// Per 16-bit element e (g = lane/4, t = lane%4); register r packs elements
// 2r (bits 0-15) and 2r+1 (bits 16-31):
//   A: e -> (g + 8((e >> 1) & 1), 2t + (e & 1) + 8(e >> 2)), e < 8   (T32,V8) -> (M16,K16)
//   B: e -> (2t + (e & 1) + 8(e >> 1), g),                   e < 4   (T32,V4) -> (K16,N8)
//   C: e -> (g + 8(e >> 1), 2t + (e & 1)),                   e < 4   (T32,V4) -> (M16,N8)
// Fragments store one __half per element, so x[2r], x[2r+1] are register r.
// The cuda_core backend multiplies and accumulates in FP32 (an FP16 product
// is exact in FP32) and rounds to FP16 once at the end for f16acc.
#pragma once

#include "fragment.cuh"

namespace tcore {

template <class Acc>
struct f16_m16n8k16 {
    static_assert(std::is_same_v<Acc, float> || std::is_same_v<Acc, __half>, "accumulator: float or __half");
    using a_type = __half;
    using b_type = __half;
    using c_type = Acc;
    using acc_type = float;
    static constexpr int m = 16, n = 8, k = 16;
    static constexpr int min_arch = 800;  // oldest __CUDA_ARCH__ with this MMA (sm_80)
    static constexpr int a_count = 8, b_count = 4, c_count = 4;
    static constexpr int c_rows = 2, c_cols = 2;
    static constexpr int k_steps = k;
    static constexpr const char* name()
    {
        return std::is_same_v<Acc, float> ? "f16_m16n8k16_f32acc" : "f16_m16n8k16_f16acc";
    }

    __host__ __device__ static constexpr coord a_coord(int lane, int e)
    {
        return {(lane >> 2) + 8 * ((e >> 1) & 1), 2 * (lane & 3) + (e & 1) + 8 * (e >> 2)};
    }
    __host__ __device__ static constexpr coord b_coord(int lane, int e)
    {
        return {2 * (lane & 3) + (e & 1) + 8 * (e >> 1), lane >> 2};
    }
    __host__ __device__ static constexpr coord c_coord(int lane, int e)
    {
        return {(lane >> 2) + 8 * (e >> 1), 2 * (lane & 3) + (e & 1)};
    }
    __host__ __device__ static constexpr home a_home(int row, int col)
    {
        return {4 * (row & 7) + ((col & 7) >> 1), (col & 1) + 2 * (row >> 3) + 4 * (col >> 3)};
    }
    __host__ __device__ static constexpr home b_home(int row, int col)
    {
        return {4 * col + ((row & 7) >> 1), (row & 1) + 2 * (row >> 3)};
    }

    template <class T> __host__ __device__ static __half to_a(T v) { return convert_to<__half>(v); }
    template <class T> __host__ __device__ static __half to_b(T v) { return convert_to<__half>(v); }
    __host__ __device__ static float to_acc(__half v) { return __half2float(v); }
    __host__ __device__ static float to_acc(float v) { return v; }
    __host__ __device__ static float madd(float a, float b, float c) { return fmaf(a, b, c); }

    __device__ static void mma_sync(frag_c<f16_m16n8k16>& d, const frag_a<f16_m16n8k16>& a,
                                    const frag_b<f16_m16n8k16>& b, const frag_c<f16_m16n8k16>& c)
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        const unsigned* ar = reinterpret_cast<const unsigned*>(a.x);
        const unsigned* br = reinterpret_cast<const unsigned*>(b.x);
        if constexpr (std::is_same_v<Acc, float>) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                         : "=f"(d.x[0]), "=f"(d.x[1]), "=f"(d.x[2]), "=f"(d.x[3])
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]),
                           "f"(c.x[0]), "f"(c.x[1]), "f"(c.x[2]), "f"(c.x[3]));
        } else {
            const unsigned* cr = reinterpret_cast<const unsigned*>(c.x);
            unsigned* dr = reinterpret_cast<unsigned*>(d.x);
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                         "{%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                         : "=r"(dr[0]), "=r"(dr[1])
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]),
                           "r"(cr[0]), "r"(cr[1]));
        }
#else
        mma_cuda_core(d, a, b, c);
#endif
    }
};

using f16_m16n8k16_f32acc = f16_m16n8k16<float>;
using f16_m16n8k16_f16acc = f16_m16n8k16<__half>;

}  // namespace tcore
