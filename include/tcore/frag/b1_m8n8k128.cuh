// tcore/frag/b1_m8n8k128.cuh - 1-bit MMA with AND + popcount, sm_80+:
// D(8x8,s32) = C + popc(A-row AND B-column) over K = 128 bits.
//
// PTX ISA, "Matrix Fragments for mma.m8n8k128" (.b1, .and.popc); SASS
// BMMA.88128.AND.POPC. Each A/B register holds 32 one-bit elements, bit v
// (v = 0 the least significant) being element v of the lane (g = lane/4,
// t = lane%4):
//   A: bit v -> (g, 32t + v)       (T32,V32) -> (M8,K128)
//   B: bit v -> (32t + v, g)       (T32,V32) -> (K128,N8)
//   C: c_i -> (g, 2t + i), i < 2   (T32,V2)  -> (M8,N8)
// Only the joint A/B bit order is observable through popcount; tcore takes
// bit v = k index 32t + v on both sides. Use .and (xor is emulated with two
// AND BMMAs on sm_90, docs/mma-fragments.md section 5).
//
// A bit matrix in memory is an array of 32-bit words; element (row, col) is
// bit (off % 32) of word (off / 32) with off = offset<L>(row, col, ld), ld in
// bits. A row-major A / column-major B with ld % 32 == 0 loads one word per
// lane; other layouts gather bit by bit.
#pragma once

#include "fragment.cuh"

namespace tcore {

struct b1_m8n8k128 {
    using a_type = unsigned;  // 32 packed bits
    using b_type = unsigned;
    using c_type = int;
    using acc_type = int;
    static constexpr int m = 8, n = 8, k = 128;
    static constexpr int min_arch = 800;  // oldest __CUDA_ARCH__ with this MMA (sm_80)
    static constexpr int a_count = 1, b_count = 1, c_count = 2;  // registers per lane
    static constexpr int bits = 32;                              // elements per A/B register
    static constexpr const char* name() { return "b1_m8n8k128_and"; }

    /// Bit v of the lane's A register.
    __host__ __device__ static constexpr coord a_coord(int lane, int v) { return {lane >> 2, 32 * (lane & 3) + v}; }
    /// Bit v of the lane's B register.
    __host__ __device__ static constexpr coord b_coord(int lane, int v) { return {32 * (lane & 3) + v, lane >> 2}; }
    __host__ __device__ static constexpr coord c_coord(int lane, int i) { return {lane >> 2, 2 * (lane & 3) + i}; }
    /// {lane, bit} holding A(row, col) / B(row, col).
    __host__ __device__ static constexpr home a_home(int row, int col) { return {4 * row + (col >> 5), col & 31}; }
    __host__ __device__ static constexpr home b_home(int row, int col) { return {4 * col + (row >> 5), row & 31}; }

    __device__ static void mma_sync(frag_c<b1_m8n8k128>& d, const frag_a<b1_m8n8k128>& a,
                                    const frag_b<b1_m8n8k128>& b, const frag_c<b1_m8n8k128>& c);
};

/// Reads bit `off` of a word array.
__host__ __device__ inline unsigned bit_at(const unsigned* words, long long off)
{
    return (words[off >> 5] >> (off & 31)) & 1u;
}

/// Packs the 32 bits of one register from memory: bit v is element `at(v)`.
template <layout L, class CoordOf>
__device__ inline unsigned gather_bits(const unsigned* words, long long ld, CoordOf at)
{
    const coord first = at(0);
    const long long off0 = offset<L>(first.row, first.col, ld);
    const coord second = at(1);
    if (offset<L>(second.row, second.col, ld) == off0 + 1 && (off0 & 31) == 0) return words[off0 >> 5];
    unsigned r = 0;
    for (int v = 0; v < 32; ++v) {
        const coord rc = at(v);
        r |= bit_at(words, offset<L>(rc.row, rc.col, ld)) << v;
    }
    return r;
}

template <layout L>
__device__ inline void load_a(frag_a<b1_m8n8k128>& a, const unsigned* words, long long ld_bits)
{
    const int lane = lane_id();
    a.x[0] = gather_bits<L>(words, ld_bits, [&](int v) { return b1_m8n8k128::a_coord(lane, v); });
}

template <layout L>
__device__ inline void load_b(frag_b<b1_m8n8k128>& b, const unsigned* words, long long ld_bits)
{
    const int lane = lane_id();
    b.x[0] = gather_bits<L>(words, ld_bits, [&](int v) { return b1_m8n8k128::b_coord(lane, v); });
}

/// D = C + popc(A AND B) with 32-bit popcounts: for its outputs (g, 2t + i)
/// a lane fetches the 4 words of A row g and of B column 2t + i by shuffles.
__device__ inline void mma_cuda_core(frag_c<b1_m8n8k128>& d, const frag_a<b1_m8n8k128>& a,
                                     const frag_b<b1_m8n8k128>& b, const frag_c<b1_m8n8k128>& c)
{
    const int lane = lane_id();
    int acc[2] = {c.x[0], c.x[1]};
    for (int w = 0; w < 4; ++w) {
        const unsigned a_word = __shfl_sync(0xffffffffu, a.x[0], b1_m8n8k128::a_home(lane >> 2, 32 * w).lane);
        for (int i = 0; i < 2; ++i) {
            const int col = b1_m8n8k128::c_coord(lane, i).col;
            const unsigned b_word = __shfl_sync(0xffffffffu, b.x[0], b1_m8n8k128::b_home(32 * w, col).lane);
            acc[i] += __popc(a_word & b_word);
        }
    }
    d.x[0] = acc[0], d.x[1] = acc[1];
}

__device__ inline void b1_m8n8k128::mma_sync(frag_c<b1_m8n8k128>& d, const frag_a<b1_m8n8k128>& a,
                                             const frag_b<b1_m8n8k128>& b, const frag_c<b1_m8n8k128>& c)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=r"(d.x[0]), "=r"(d.x[1])
                 : "r"(a.x[0]), "r"(b.x[0]), "r"(c.x[0]), "r"(c.x[1]));
#else
    mma_cuda_core(d, a, b, c);
#endif
}

}  // namespace tcore
