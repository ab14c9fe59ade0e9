// tcore/patterns/spgemm.cuh - building blocks of the FP64 mBSR tile-pair
// product after AmgT (SC'24), Quadrant IV: 4x4 tiles (values row-major, 16
// per tile; 16-bit masks, bit 4r + c; tcore/sparse/mbsr.hpp), two tile
// products grouped into the 8x4 A / 4x8 B operands of one m8n8k4 MMA; only
// D's two diagonal 4x4 blocks are used. The launcher (spgemm) is in
// patterns/device/spgemm.cuh.
//
// One warp per C tile (i, j) takes its tile products two at a time: A
// operand rows 0-3 = A(i, k1), rows 4-7 = A(i, k2); B operand columns 0-3 =
// B(k1, j), 4-7 = B(k2, j). D[0:4, 0:4] accumulates A(i,k1) B(k1,j) and
// D[4:8, 4:8] A(i,k2) B(k2,j); C(i, j) = D[0:4, 0:4] + D[4:8, 4:8] (lane 4g +
// t, g < 4, t < 2, adds the value of lane + 18).
//
// Provides (namespace tcore):
//   spgemm_pair_mma     the entry point: adds two tile products to an
//                       m8n8k4 accumulator (warp-collective); also in two
//                       halves, spgemm_pair_operands (per-lane loads) and
//                       the MMA on loaded operands, as the launcher calls it
//   spgemm_store_tile   C's 16 values from that accumulator (warp-collective)
//   spgemm_pair_a, spgemm_pair_b, spgemm_pair_writer, spgemm_pair_partner,
//   spgemm_pair_element the per-lane operand and result maps behind them
//   tile_mask_product, tile_cols_used, tile_rows_used, tiles_meet
//                       4x4 mask algebra (C's structure, the symbolic filter)
//   spgemm_pair_first, spgemm_pair_second
//                       a tile product packed as (A tile << 32) | B tile
// The plain CUDA-core opponent (cce: only the tile products' FMAs) is the
// benchmark's, not the kit's: examples/spgemm/spgemm_cce.cuh (a numeric step
// run after the launcher's symbolic phase through tcore::spgemm_with).
//
// Preconditions (not checked): tile p of a value array is the 16 doubles at
// val + 16 p (8-byte alignment; scalar loads through the generic path);
// tile indices in range. Per-lane functions take `lane` = lane_id() and run
// on host and device. The warp-collective ones are called by all 32 lanes
// of one warp, converged, with the same tile indices on every lane.
#pragma once

#include "../backend.cuh"
#include "../frag/f64_m8n8k4.cuh"

#include <type_traits>

namespace tcore {

/// Boolean product of two 4x4 masks (bit 4r + c), host and device: for each
/// k, (a >> k) & 0x1111 has bit 4i set where A(i, k) is, and times row k of
/// B (4 bits) it copies that row into the rows i of the result; no carries.
__host__ __device__ constexpr unsigned tile_mask_product(unsigned a, unsigned b)
{
    unsigned c = 0;
    for (int k = 0; k < 4; ++k) c |= ((a >> k) & 0x1111u) * ((b >> (4 * k)) & 0xFu);
    return c;
}

/// Bit c set when column c of a 4x4 tile mask holds an entry.
__host__ __device__ constexpr unsigned tile_cols_used(unsigned m) { return (m | m >> 4 | m >> 8 | m >> 12) & 0xFu; }
/// Bit r set when row r of a 4x4 tile mask holds an entry.
__host__ __device__ constexpr unsigned tile_rows_used(unsigned m)
{
    return ((m & 0xFu) != 0) | ((m & 0xF0u) != 0) << 1 | ((m & 0xF00u) != 0) << 2 | ((m & 0xF000u) != 0) << 3;
}
/// A(i, k) B(k, j) has an entry (tile_mask_product != 0) iff a column of
/// the A tile meets a row of the B tile. Pairs that do not meet add only
/// structural zeros and are never expanded.
__host__ __device__ constexpr bool tiles_meet(unsigned a_mask, unsigned b_mask)
{
    return (tile_cols_used(a_mask) & tile_rows_used(b_mask)) != 0;
}

/// The A tile and the B tile of a tile product packed as (A << 32) | B.
__host__ __device__ constexpr int spgemm_pair_first(unsigned long long v) { return static_cast<int>(v >> 32); }
__host__ __device__ constexpr int spgemm_pair_second(unsigned long long v)
{
    return static_cast<int>(v & 0xffffffffu);
}

/// A(g, t) of the paired MMA on `lane`: rows 0-3 from A tile pa1, rows 4-7
/// from pa2 (0 when there is no second product).
__host__ __device__ inline double spgemm_pair_a(const double* a_val, int pa1, int pa2, bool two, int lane)
{
    const int g = lane >> 2, t = lane & 3;
    const bool low = g < 4;
    return low || two ? a_val[16LL * (low ? pa1 : pa2) + 4 * (g & 3) + t] : 0.0;
}

/// B(t, g) of the paired MMA: columns 0-3 from B tile pb1, 4-7 from pb2.
__host__ __device__ inline double spgemm_pair_b(const double* b_val, int pb1, int pb2, bool two, int lane)
{
    const int g = lane >> 2, t = lane & 3;
    const bool low = g < 4;
    return low || two ? b_val[16LL * (low ? pb1 : pb2) + 4 * t + (g & 3)] : 0.0;
}

/// Lanes holding D[0:4, 0:4] (g < 4, t < 2) write C; they add the value of
/// spgemm_pair_partner(lane), which holds the same position of D[4:8, 4:8].
__host__ __device__ constexpr bool spgemm_pair_writer(int lane) { return (lane >> 2) < 4 && (lane & 3) < 2; }
__host__ __device__ constexpr int spgemm_pair_partner(int lane) { return (lane + 18) & 31; }
/// Tile element (row-major) that accumulator register i of a writer lane is.
__host__ __device__ constexpr int spgemm_pair_element(int lane, int i)
{
    return 4 * (lane >> 2) + 2 * (lane & 3) + i;
}

/// The A and B operands of one paired MMA: tile products A tile pa1 x B
/// tile pb1 (D[0:4, 0:4]) and, if `two`, A tile pa2 x B tile pb2
/// (D[4:8, 4:8]); pa2 and pb2 are not read when `two` is false. Per lane
/// (loads only), so a kernel may load the operands of several pairs before
/// their MMAs.
__device__ __forceinline__ void spgemm_pair_operands(frag_a<f64_m8n8k4>& a, frag_b<f64_m8n8k4>& b,
                                                     const double* a_val, const double* b_val, int pa1, int pb1,
                                                     int pa2, int pb2, bool two, int lane)
{
    a.x[0] = spgemm_pair_a(a_val, pa1, pa2, two, lane);
    b.x[0] = spgemm_pair_b(b_val, pb1, pb2, two, lane);
}

/// acc += the two tile products whose operands spgemm_pair_operands loaded,
/// by one m8n8k4 MMA on `Backend` (tensor_core or cuda_core). Warp-collective.
template <class Backend = default_backend>
__device__ __forceinline__ void spgemm_pair_mma(frag_c<f64_m8n8k4>& acc, const frag_a<f64_m8n8k4>& a,
                                                const frag_b<f64_m8n8k4>& b)
{
    static_assert(std::is_same_v<Backend, tensor_core> || std::is_same_v<Backend, cuda_core>,
                  "Backend is tcore::tensor_core or tcore::cuda_core");
    mma<Backend>(acc, a, b, acc);
}

/// acc += the tile products A tile pa1 x B tile pb1 (into D[0:4, 0:4]) and,
/// if `two`, A tile pa2 x B tile pb2 (into D[4:8, 4:8]), by one m8n8k4 MMA
/// on `Backend` (tensor_core or cuda_core): spgemm_pair_operands, then the
/// MMA. Start from fill(acc, 0.0); add any number of pairs of one C tile,
/// then spgemm_store_tile. pa2 and pb2 are not read when `two` is false.
/// Warp-collective.
template <class Backend = default_backend>
__device__ __forceinline__ void spgemm_pair_mma(frag_c<f64_m8n8k4>& acc, const double* a_val, const double* b_val,
                                                int pa1, int pb1, int pa2, int pb2, bool two, int lane)
{
    frag_a<f64_m8n8k4> a;
    frag_b<f64_m8n8k4> b;
    spgemm_pair_operands(a, b, a_val, b_val, pa1, pb1, pa2, pb2, two, lane);
    spgemm_pair_mma<Backend>(acc, a, b);
}

/// C tile = D[0:4, 0:4] + D[4:8, 4:8] of an accumulator of spgemm_pair_mma:
/// the 16 values (row-major) at `c_tile`, each written by one lane (the
/// spgemm_pair_writer lanes, two each). Warp-collective (two shuffles).
__device__ __forceinline__ void spgemm_store_tile(double* c_tile, const frag_c<f64_m8n8k4>& acc, int lane)
{
    const double o0 = __shfl_sync(0xffffffffu, acc.x[0], spgemm_pair_partner(lane));
    const double o1 = __shfl_sync(0xffffffffu, acc.x[1], spgemm_pair_partner(lane));
    if (spgemm_pair_writer(lane)) {
        c_tile[spgemm_pair_element(lane, 0)] = acc.x[0] + o0;
        c_tile[spgemm_pair_element(lane, 1)] = acc.x[1] + o1;
    }
}

}  // namespace tcore
