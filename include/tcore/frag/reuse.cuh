// tcore/frag/reuse.cuh - accumulator-to-A reuse: the D of one MMA becomes
// the A operand of the next without a trip through memory.
//
// Two recipes (docs/mma-fragments.md section 7):
//
// * In place (no data crosses lanes):
//   FP16 m16n8k16: P (16x16) = [D0 | D1], two 16x8 accumulators. A element e
//   of the next m16n8k16 is D_{e>>2}[e & 3], i.e. register r = {D_{r>>1}[2(r&1)],
//   D_{r>>1}[2(r&1)+1]}: reuse_a(d0, d1).
//   FP64 (relabel k): a lane holds D(g, 2t + p) but A wants (g, t + 4j). Since
//   only the joint A/B k labelling matters, give k slot t + 4j the P column
//   `reuse_col(lane, j, kb)` instead and load the next B with the same rows
//   (load_b_reused). Both fragments carry the type tag relabelled_k<kb>, so
//   pairing such an A with a B of the standard map does not compile; a B
//   generated per lane for the relabelling is declared with
//   with_k_label<relabelled_k<kb>>(b). Per shape, with g = lane/4, t = lane%4:
//     m8n8k4  from an 8x8 D, k-block kb:  a0 = D[kb]            slot t  -> col 2t + kb
//     m16n8k4 from a 16x8 D, k-block kb:  a = {D[kb], D[2+kb]}  slot t  -> col 2t + kb
//     m16n8k8 from a 16x8 D:              a = {D[0], D[2], D[1], D[3]}
//                                         slot t -> col 2t, slot t+4 -> col 2t+1
//     m16n8k16 from D0, D1 (cols 0-7, 8-15): a = {D0[0], D0[2], D0[1], D0[3],
//                                         D1[0], D1[2], D1[1], D1[3]}
//                                         slots t, t+4, t+8, t+12 -> cols 2t, 2t+1, 8+2t, 9+2t
//
// * Shuffle (standard A layout, so the next B loads as usual or is a
//   constant generated per lane): A element (row, col) of the next MMA is
//   fetched from the lane holding P(row, col), within the same quad. Its
//   register index is one of two (even or odd column), so each element costs
//   two __shfl_sync and a select: reuse_a_shuffle<NextShape>(d...).
//
// The constexpr `*_source(lane, i)` maps name, for every A element, the
// accumulator, lane and register it comes from; the device code follows
// them and tests/host checks them.
#pragma once

#include "f16_m16n8k16.cuh"
#include "f64_m16n8k.cuh"
#include "f64_m8n8k4.cuh"

namespace tcore {

/// Where an A element comes from: accumulator `acc`, lane `lane`, register `index`.
struct reuse_home {
    int acc, lane, index;
};

// -- FP16 m16n8k16: in place -------------------------------------------------

/// Source of A element e of the FP16 reuse: D_{e>>2}[e & 3] of the same lane.
__host__ __device__ constexpr reuse_home f16_reuse_source(int lane, int e) { return {e >> 2, lane, e & 3}; }

/// P = [d0 | d1] (16x16) as the A operand of the next m16n8k16 (any accumulator type).
template <class NextAcc = float, class Acc>
__device__ inline frag_a<f16_m16n8k16<NextAcc>> reuse_a(const frag_c<f16_m16n8k16<Acc>>& d0,
                                                        const frag_c<f16_m16n8k16<Acc>>& d1)
{
    frag_a<f16_m16n8k16<NextAcc>> a;
    static_for<8>([&](auto e) {
        constexpr reuse_home src = f16_reuse_source(0, e);
        a.x[e] = convert_to<__half>(src.acc == 0 ? d0.x[src.index] : d1.x[src.index]);
    });
    return a;
}

// -- FP64: relabel k (in place) ----------------------------------------------

/// The P column that k slot (t + 4j) of the relabelled A stands for; B row
/// j of the next MMA's fragment must hold that row of B. kb picks the k-block
/// (K = 4 shapes take half of an 8-column accumulator at a time).
template <class NextShape>
__host__ __device__ constexpr int reuse_col(int lane, int j, int kb = 0)
{
    const int t = lane & 3;
    if constexpr (NextShape::k == 4) return 2 * t + kb;
    else return 8 * (j >> 1) + 2 * t + (j & 1);
}

/// Source of A element i under the relabel recipe (FP64 shapes).
template <class NextShape>
__host__ __device__ constexpr reuse_home f64_relabel_source(int lane, int i, int kb = 0)
{
    if constexpr (NextShape::m == 8) return {0, lane, kb};                                 // m8n8k4
    else if constexpr (NextShape::k == 4) return {0, lane, 2 * i + kb};                    // m16n8k4
    else return {(i >> 2), lane, 2 * (i & 1) + ((i >> 1) & 1)};                            // m16n8k8/16
}

/// 8x8 D, k-block KB, as the A of the next m8n8k4 (relabelled k).
template <int KB>
__device__ inline frag_a<f64_m8n8k4, relabelled_k<KB>> reuse_a(const frag_c<f64_m8n8k4>& d)
{
    static_assert(KB == 0 || KB == 1, "an 8x8 accumulator has two k-blocks of 4");
    return {{d.x[f64_relabel_source<f64_m8n8k4>(0, 0, KB).index]}};
}

/// 16x8 D (of any f64_m16n8 shape), k-block KB, as the A of the next m16n8k4.
template <int KB, int K>
__device__ inline frag_a<f64_m16n8<4>, relabelled_k<KB>> reuse_a(const frag_c<f64_m16n8<K>>& d)
{
    static_assert(KB == 0 || KB == 1, "a 16x8 accumulator has two k-blocks of 4");
    frag_a<f64_m16n8<4>, relabelled_k<KB>> a;
    static_for<2>([&](auto i) { a.x[i] = d.x[f64_relabel_source<f64_m16n8<4>>(0, i, KB).index]; });
    return a;
}

/// 16x8 D (of any f64_m16n8 shape) as the A of the next m16n8k8 (relabelled k).
/// The template parameter is a type, so that reuse_a<KB>(d) above never
/// considers this overload: naming f64_m16n8<KB> would trip its static_assert.
template <class CShape, std::enable_if_t<std::is_same_v<CShape, f64_m16n8<CShape::k>>, int> = 0>
__device__ inline frag_a<f64_m16n8<8>, relabelled_k<0>> reuse_a(const frag_c<CShape>& d)
{
    frag_a<f64_m16n8<8>, relabelled_k<0>> a;
    static_for<4>([&](auto i) { a.x[i] = d.x[f64_relabel_source<f64_m16n8<8>>(0, i).index]; });
    return a;
}

/// [d0 | d1] (16x16) as the A of the next m16n8k16 (relabelled k).
template <int K>
__device__ inline frag_a<f64_m16n8<16>, relabelled_k<0>> reuse_a(const frag_c<f64_m16n8<K>>& d0,
                                                                  const frag_c<f64_m16n8<K>>& d1)
{
    frag_a<f64_m16n8<16>, relabelled_k<0>> a;
    static_for<8>([&](auto i) {
        constexpr reuse_home src = f64_relabel_source<f64_m16n8<16>>(0, i);
        a.x[i] = src.acc == 0 ? d0.x[src.index] : d1.x[src.index];
    });
    return a;
}

/// Loads the next B for a relabelled A: B register j holds row
/// reuse_col(lane, j, KB) of the K x N matrix at ptr (column g). The result
/// carries relabelled_k<KB>, so mma() pairs it only with reuse_a<KB>'s A.
template <layout L, int KB = 0, class Shape, class T>
__device__ inline void load_b_reused(frag_b<Shape, relabelled_k<KB>>& b, const T* ptr, long long ld)
{
    const int lane = lane_id();
    static_for<Shape::b_count>([&](auto j) {
        b.x[j] = Shape::to_b(ptr[offset<L>(reuse_col<Shape>(lane, j, KB), lane >> 2, ld)]);
    });
}

// -- FP64: shuffle to the standard A layout ----------------------------------

/// Source of A element i of NextShape (standard layout) in the accumulators
/// P = [D0 | D1 ...] (8x8 for m8n8k4, 16x8 blocks for m16n8k*), k-block kb.
template <class NextShape>
__host__ __device__ constexpr reuse_home f64_shuffle_source(int lane, int i, int kb = 0)
{
    const coord rc = NextShape::a_coord(lane, i);
    const int col = rc.col + 4 * kb;  // P column (kb: which 4-column block for K = 4)
    const int index = NextShape::m == 8 ? (col & 1) : 2 * (rc.row >> 3) + (col & 1);
    return {col >> 3, 4 * (rc.row & 7) + ((col & 7) >> 1), index};
}

/// Standard-layout A of NextShape from accumulators `d[]` of CShape (8x8 or
/// 16x8 blocks of P), k-block KB for the K = 4 shapes: two shuffles per
/// element, one from each register a lane might need.
template <class NextShape, int KB = 0, class CShape, int NAcc>
__device__ inline frag_a<NextShape> reuse_a_shuffle(const frag_c<CShape> (&d)[NAcc])
{
    static_assert(NAcc * 8 >= NextShape::k + 4 * KB, "not enough accumulator columns for this A");
    const int lane = lane_id();
    frag_a<NextShape> a;
    static_for<NextShape::a_count>([&](auto i) {
        constexpr reuse_home even = f64_shuffle_source<NextShape>(0, i, KB);  // t = 0: even column
        constexpr reuse_home odd = f64_shuffle_source<NextShape>(1, i, KB);   // t = 1: odd column
        const reuse_home src = f64_shuffle_source<NextShape>(lane, i, KB);
        const double v_even = __shfl_sync(0xffffffffu, d[even.acc].x[even.index], src.lane);
        const double v_odd = __shfl_sync(0xffffffffu, d[even.acc].x[odd.index], src.lane);
        a.x[i] = src.index == even.index ? v_even : v_odd;
    });
    return a;
}

}  // namespace tcore
