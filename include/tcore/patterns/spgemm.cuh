// tcore/patterns/spgemm.cuh - FP64 SpGEMM C = A B on the FP64 MMA after
// AmgT (SC'24), Quadrant IV: both operands in mBSR (4x4 tiles with 16-bit
// masks, tcore/sparse/mbsr.hpp), tile products grouped in pairs into the
// 8x4 A / 4x8 B operands of one m8n8k4 MMA; only D's two diagonal 4x4
// blocks are used.
//
// Symbolic phase (tile level, expand-sort-compress with CUB): a pair of an
// A tile (i, k) and a B tile (k, j) is expanded only if the tiles meet (a
// column of the A tile holding an entry matches a row of the B tile holding
// one: the pair adds an entry, not only structural zeros); one warp per A
// tile counts, then emits, its pairs as the key (i, j) and the pair of tile
// indices. A stable radix sort groups the pairs of every C tile (in
// expansion order: A tiles by column, then B tiles); run-length encoding
// finds the groups, each a C tile with at least one entry; its mask, the
// OR of the boolean products of its pairs' masks, is formed by the numeric
// kernel's warp as it walks the pairs. The result is C's tile
// structure and exact element structure (the structural product, as
// cuSPARSE and tcore::sparse::spgemm_reference give it), and for every C
// tile the list of its tile products: the numeric phase does exactly that
// work. On power-law rows most tiles hold one entry, and most pairs of
// tiles that share k do not meet: filtering them before the sort shrinks
// it several times.
// Numeric phase: one warp per C tile (i, j) takes its tile products two at
// a time: A operand rows 0-3 = A(i, k1), rows 4-7 = A(i, k2); B operand
// columns 0-3 = B(k1, j), 4-7 = B(k2, j). D[0:4, 0:4] accumulates
// A(i,k1) B(k1,j) and D[4:8, 4:8] A(i,k2) B(k2,j); C(i, j) = D[0:4, 0:4] +
// D[4:8, 4:8] (lane 4g + t, g < 4, t < 2, adds the value of lane + 18).
// Backends: tensor_core (`tc`), cuda_core (`cc`, same data flow),
// spgemm_essential (`cce`: 16 lanes per tile product, 4 FMAs each, two
// products at a time; 64 FMAs per tile pair instead of the MMA's 256).
//
// Device memory comes from the stream-ordered allocator (cudaMallocAsync),
// so repeated products reuse the pool; the result owns its arrays.
#pragma once

#include "../check.cuh"
#include "../frag/f64_m8n8k4.cuh"
#include "../sparse/mbsr.hpp"
#include "../infra/launch.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tcore {

/// The `cce` mode of the SpGEMM kernel: CUDA cores, only the tile products' FMAs.
struct spgemm_essential {
    static constexpr const char* name() { return "essential"; }
};

/// Boolean product of two 4x4 masks (bit 4r + c), host and device: for each
/// k, (a >> k) & 0x1111 has bit 4i set where A(i, k) is, and times row k of
/// B (4 bits) it copies that row into the rows i of the result; no carries.
__host__ __device__ constexpr unsigned tile_mask_product(unsigned a, unsigned b)
{
    unsigned c = 0;
    for (int k = 0; k < 4; ++k) c |= ((a >> k) & 0x1111u) * ((b >> (4 * k)) & 0xFu);
    return c;
}

namespace spgemm_detail {

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

__host__ __device__ constexpr int pair_first(unsigned long long v) { return static_cast<int>(v >> 32); }
__host__ __device__ constexpr int pair_second(unsigned long long v) { return static_cast<int>(v & 0xffffffffu); }

/// A(g, t) of the paired MMA on `lane`: rows 0-3 from A tile pa1, rows 4-7
/// from pa2 (0 when there is no second product).
__host__ __device__ inline double pair_a(const double* a_val, int pa1, int pa2, bool two, int lane)
{
    const int g = lane >> 2, t = lane & 3;
    const bool low = g < 4;
    return low || two ? a_val[16LL * (low ? pa1 : pa2) + 4 * (g & 3) + t] : 0.0;
}

/// B(t, g) of the paired MMA: columns 0-3 from B tile pb1, 4-7 from pb2.
__host__ __device__ inline double pair_b(const double* b_val, int pb1, int pb2, bool two, int lane)
{
    const int g = lane >> 2, t = lane & 3;
    const bool low = g < 4;
    return low || two ? b_val[16LL * (low ? pb1 : pb2) + 4 * t + (g & 3)] : 0.0;
}

/// Lanes holding D[0:4, 0:4] (g < 4, t < 2) write C; they add the value of
/// pair_partner(lane), which holds the same position of D[4:8, 4:8].
__host__ __device__ constexpr bool pair_writer(int lane) { return (lane >> 2) < 4 && (lane & 3) < 2; }
__host__ __device__ constexpr int pair_partner(int lane) { return (lane + 18) & 31; }
/// Tile element (row-major) that accumulator register i of a writer lane is.
__host__ __device__ constexpr int pair_element(int lane, int i) { return 4 * (lane >> 2) + 2 * (lane & 3) + i; }

/// cce: lane's share of one tile product: element lane % 16 (row-major) of
/// A tile pa times B tile pb, 4 FMAs added to `acc`.
__host__ __device__ inline double essential_term(const double* a_val, const double* b_val, int pa, int pb, int lane,
                                                 double acc)
{
    const int e = lane & 15;
    const double* ar = a_val + 16LL * pa + 4 * (e >> 2);
    const double* bc = b_val + 16LL * pb + (e & 3);
    for (int k = 0; k < 4; ++k) acc = fma(ar[k], bc[4 * k], acc);
    return acc;
}

}  // namespace spgemm_detail

}  // namespace tcore
