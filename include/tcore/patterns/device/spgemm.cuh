// tcore/patterns/device/spgemm.cuh - FP64 SpGEMM C = A B launcher after
// AmgT (SC'24): spgemm() on mBSR matrices held on the device (mbsr_device),
// composed of the tile-pair building blocks of patterns/spgemm.cuh.
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
// Numeric phase: one warp per C tile, two tile products per m8n8k4 MMA
// (patterns/spgemm.cuh). Backends: tensor_core (`tc`), cuda_core (`cc`,
// same data flow).
//
// Provides (namespace tcore)
//   spgemm<Backend>(a, b, stream, stats): C = A B (mbsr_device).
//   spgemm_with<Numeric>(a, b, stream, stats, where): the same symbolic
//       phase and kernel with the caller's per-warp numeric step in place of
//       the MMAs (the benchmark's CUDA-core opponent,
//       examples/spgemm/spgemm_cce.cuh, is one); Numeric tensor_core or
//       cuda_core is spgemm's own step. Errors name `where`.
//   spgemm_stats: tile products and C tiles of the last product.
// Numeric, a type whose members all 32 lanes of the warp of one C tile call
// together (converged):
//   min_blocks        static constexpr int: resident blocks of 128 threads
//                     the kernel is compiled for (__launch_bounds__)
//   Numeric(lane)     (__device__) C tile = 0; lane = lane_id()
//   add(a_val, b_val, mine, n, lane)
//                     adds n tile products (1 <= n <= 32, the same on every
//                     lane): lane l < n holds product l as mine = (A tile
//                     << 32) | B tile (spgemm_pair_first / second), other
//                     lanes 0; tile p of A is the 16 doubles (row-major) at
//                     a_val + 16 p, of B at b_val + 16 p. A C tile's
//                     products come in the sort's order, 32 a call.
//   store(c_tile, lane)  writes C's 16 values (row-major) at c_tile
// The kernel forms C's tile masks itself.
//
// Device memory comes from the stream-ordered allocator (cudaMallocAsync),
// so repeated products reuse the pool; the result owns its arrays.
#pragma once

#include "../../check.cuh"
#include "../../infra/async_array.cuh"
#include "../../infra/launch.cuh"
#include "../../sparse/mbsr_device.cuh"
#include "../spgemm.cuh"

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

namespace detail {

inline constexpr int spgemm_threads = 128;

/// The global index of the calling thread's warp.
__device__ inline long long spgemm_warp_index()
{
    return (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
}

/// One warp per A tile (i, k): counts the B tiles (k, j) it meets.
__global__ void spgemm_count_products(long long a_tiles, const int* __restrict__ a_col,
                                      const std::uint16_t* __restrict__ a_mask, const int* __restrict__ b_ptr,
                                      const std::uint16_t* __restrict__ b_mask, long long* __restrict__ counts)
{
    const long long p = spgemm_warp_index();
    if (p >= a_tiles) return;  // whole warps
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int k = a_col[p];
    const unsigned cols = tile_cols_used(a_mask[p]);
    unsigned count = 0;
    for (int q = b_ptr[k] + lane; q < b_ptr[k + 1]; q += 32) count += (cols & tile_rows_used(b_mask[q])) != 0;
    count = __reduce_add_sync(0xffffffffu, count);
    if (lane == 0) counts[p] = count;
}

/// One warp per A tile (i, k): emits (key = i * block_cols + j, (A tile <<
/// 32) | B tile) for every B tile (k, j) it meets, in B's order; the lanes
/// take 32 B tiles at a time and write contiguously.
__global__ void spgemm_expand_products(long long a_tiles, const int* __restrict__ a_row, const int* __restrict__ a_col,
                                       const std::uint16_t* __restrict__ a_mask, const int* __restrict__ b_ptr,
                                       const int* __restrict__ b_col, const std::uint16_t* __restrict__ b_mask,
                                       const long long* __restrict__ offsets, long long block_cols,
                                       unsigned long long* __restrict__ keys, unsigned long long* __restrict__ pairs)
{
    const long long p = spgemm_warp_index();
    if (p >= a_tiles) return;  // whole warps
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int k = a_col[p], end = b_ptr[k + 1];
    const unsigned cols = tile_cols_used(a_mask[p]);
    const unsigned long long row_key = static_cast<unsigned long long>(a_row[p]) * block_cols;
    long long out = offsets[p];
    for (int q0 = b_ptr[k]; q0 < end; q0 += 32) {
        const int q = q0 + lane;
        const bool meet = q < end && (cols & tile_rows_used(b_mask[q])) != 0;
        const unsigned ballot = __ballot_sync(0xffffffffu, meet);
        if (meet) {
            const long long at = out + __popc(ballot & ((1u << lane) - 1u));
            keys[at] = row_key + static_cast<unsigned long long>(b_col[q]);
            pairs[at] = static_cast<unsigned long long>(p) << 32 | static_cast<unsigned>(q);
        }
        out += __popc(ballot);
    }
}

/// One thread per C tile (a run of the sorted keys): its row and column.
__global__ void spgemm_tile_coords(int tiles, const unsigned long long* __restrict__ keys, long long block_cols,
                                   int* __restrict__ c_row, int* __restrict__ c_col)
{
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= tiles) return;
    const unsigned long long key = keys[t], cols = static_cast<unsigned long long>(block_cols);
    c_row[t] = static_cast<int>(key / cols);
    c_col[t] = static_cast<int>(key % cols);
}

/// tile_ptr from the tiles' rows, which are sorted: thread t (0 <= t <=
/// tiles) starts the rows after its predecessor's, up to its own, at t.
__global__ void spgemm_row_pointers(int tiles, const int* __restrict__ c_row, int block_rows,
                                    int* __restrict__ tile_ptr)
{
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    const int row = t < tiles ? c_row[t] : block_rows;
    const int prev = t > 0 ? c_row[t - 1] : -1;
    for (int r = prev + 1; r <= row; ++r) tile_ptr[r] = static_cast<int>(t);
}

struct spgemm_operands {
    const double *a_val, *b_val;
    const std::uint16_t *a_mask, *b_mask;
    const unsigned long long* pairs;  ///< tile products, grouped by C tile
};

inline constexpr int spgemm_chunk_products = 32;  ///< numeric: tile products whose indices a warp loads at once
/// numeric: resident blocks asked of the compiler (registers <= 40 for tc:
/// the kernel is latency bound and most C tiles have one or two products,
/// so occupancy matters more than a deeper batch; cc's emulated MMA needs
/// more registers); a caller's step gives its own.
template <class Numeric>
constexpr int spgemm_numeric_min_blocks()
{
    if constexpr (std::is_same_v<Numeric, cuda_core>) return 8;
    else if constexpr (std::is_same_v<Numeric, tensor_core>) return 12;
    else return Numeric::min_blocks;
}

/// The numeric state of spgemm's own step (the MMA accumulator is the
/// kernel's), standing in for a caller's step: nothing.
struct spgemm_mma_step {
    __device__ explicit spgemm_mma_step(int) {}
};

/// One warp per C tile: C(i, j) = sum over its tile products A(i, k) B(k, j)
/// (run_off[tile] .. run_off[tile + 1] of the sorted pairs). The warp loads
/// 32 pair indices with one coalesced read, then issues the operand loads
/// of 2 MMAs (4 products) before the MMAs themselves: a C tile with
/// thousands of products waits for a memory latency per 4 products, not per
/// pair, and the kernel keeps the registers, and so the occupancy, that the
/// most common C tiles (one or two products) need. Numeric: tensor_core or
/// cuda_core (those MMAs, written in the kernel body so that the compiler
/// unrolls and schedules them with the chunk loop), or a caller's Numeric
/// (its add and store).
template <class Numeric>
__global__ void __launch_bounds__(spgemm_threads, spgemm_numeric_min_blocks<Numeric>())
    spgemm_numeric(long long c_tiles, const int* __restrict__ run_off, double* __restrict__ c_val,
                   std::uint16_t* __restrict__ c_mask, spgemm_operands op)
{
    const long long tile = spgemm_warp_index();
    if (tile >= c_tiles) return;  // whole warps
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int first = run_off[tile], count = run_off[tile + 1] - first;
    constexpr bool use_mma = is_backend_v<Numeric>;
    constexpr int batch = 2;  // MMAs whose operands are loaded together (few registers: occupancy)
    frag_c<f64_m8n8k4> acc;
    fill(acc, 0.0);
    std::conditional_t<use_mma, spgemm_mma_step, Numeric> numeric(lane);  // a caller's step
    unsigned mask = 0;  // C(i, j)'s structure: the OR of its products' boolean products
    for (int base = 0; base < count; base += spgemm_chunk_products) {
        const int n = min(spgemm_chunk_products, count - base);  // warp-uniform
        const unsigned long long mine = lane < n ? op.pairs[first + base + lane] : 0ull;
        if (lane < n)
            mask |= tile_mask_product(op.a_mask[spgemm_pair_first(mine)], op.b_mask[spgemm_pair_second(mine)]);
        if constexpr (use_mma) {
            for (int s0 = 0; 2 * s0 < n; s0 += batch) {  // operand loads of `batch` MMAs, then the MMAs
                frag_a<f64_m8n8k4> a[batch];
                frag_b<f64_m8n8k4> b[batch];
#pragma unroll
                for (int s = s0; s < s0 + batch; ++s)
                    if (2 * s < n) {
                        const unsigned long long v1 = __shfl_sync(0xffffffffu, mine, 2 * s);
                        const unsigned long long v2 = __shfl_sync(0xffffffffu, mine, 2 * s + 1);
                        spgemm_pair_operands(a[s - s0], b[s - s0], op.a_val, op.b_val, spgemm_pair_first(v1),
                                             spgemm_pair_second(v1), spgemm_pair_first(v2), spgemm_pair_second(v2),
                                             2 * s + 1 < n, lane);
                    }
#pragma unroll
                for (int s = s0; s < s0 + batch; ++s)
                    if (2 * s < n) spgemm_pair_mma<Numeric>(acc, a[s - s0], b[s - s0]);
            }
        } else {
            numeric.add(op.a_val, op.b_val, mine, n, lane);
        }
    }
    mask = __reduce_or_sync(0xffffffffu, mask);
    if (lane == 0) c_mask[tile] = static_cast<std::uint16_t>(mask);
    if constexpr (use_mma) {
        spgemm_store_tile(c_val + 16LL * tile, acc, lane);
    } else {
        numeric.store(c_val + 16LL * tile, lane);
    }
}

}  // namespace detail

/// Statistics of the last product (for reports).
struct spgemm_stats {
    long long tile_products = 0;  ///< A tile x B tile pairs that meet (expanded by the symbolic phase)
    long long c_tiles = 0;        ///< tiles of C (non-empty masks)
};

/// C = A B with the numeric step Numeric (the interface in the header
/// comment) after spgemm's symbolic phase: C's structure, tile_ptr and
/// masks as spgemm gives them, its values as Numeric stores them. Numeric
/// tensor_core or cuda_core: spgemm's own step. Runs on `stream`; the host
/// waits twice. Throws tcore::error on bad input, naming `where`.
template <class Numeric>
mbsr_device spgemm_with(const mbsr_device& a, const mbsr_device& b, cudaStream_t stream = nullptr,
                        spgemm_stats* stats = nullptr, const char* where = "tcore::spgemm_with")
{
    namespace d = detail;
    require(a.cols == b.rows, where,
            "inner dimensions differ: A is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", B is " +
                std::to_string(b.rows) + " x " + std::to_string(b.cols));
    require(a.block_rows == 0 || a.tile_ptr.get() != nullptr, where, "A has no tile_ptr (empty handle)");
    require(b.block_rows == 0 || b.tile_ptr.get() != nullptr, where, "B has no tile_ptr (empty handle)");
    mbsr_device c;
    c.rows = a.rows;
    c.cols = b.cols;
    c.block_rows = a.block_rows;
    c.block_cols = b.block_cols;
    c.tile_ptr = async_array<int>(static_cast<std::size_t>(c.block_rows) + 1, stream);
    TCORE_CHECK(cudaMemsetAsync(c.tile_ptr.get(), 0, (static_cast<std::size_t>(c.block_rows) + 1) * sizeof(int), stream));
    if (stats) *stats = {};
    if (a.tiles == 0 || b.tiles == 0 || c.block_cols == 0) {
        TCORE_CHECK(cudaStreamSynchronize(stream));
        return c;
    }

    // -- symbolic: expand the tile pairs that meet ---------------------------------------
    async_array<unsigned char> temp;
    async_array<long long> offsets(static_cast<std::size_t>(a.tiles) + 1, stream);
    TCORE_CHECK(cudaMemsetAsync(offsets.get() + a.tiles, 0, sizeof(long long), stream));
    constexpr int th = d::spgemm_threads;
    const unsigned warp_grid = tcore::grid_of(32 * a.tiles, th, where);  // one warp per A tile
    d::spgemm_count_products<<<warp_grid, th, 0, stream>>>(a.tiles, a.tile_col.get(), a.tile_mask.get(),
                                                           b.tile_ptr.get(), b.tile_mask.get(), offsets.get());
    TCORE_CHECK_LAUNCH();
    long long* off = offsets.get();
    const long long n_off = a.tiles + 1;
    tcore::cub_call(
        [&](void* tmp, std::size_t& bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, off, off, n_off, stream); },
        temp, stream);
    long long products = 0;
    TCORE_CHECK(cudaMemcpyAsync(&products, off + a.tiles, sizeof(long long), cudaMemcpyDeviceToHost, stream));
    TCORE_CHECK(cudaStreamSynchronize(stream));
    require(products < (1LL << 31), where, "more than 2^31 - 1 tile products (the matrices are too large)");
    if (stats) stats->tile_products = products;
    if (products == 0) return c;
    const int n = static_cast<int>(products);
    async_array<unsigned long long> keys(n, stream), keys_sorted(n, stream), pairs(n, stream), pairs_sorted(n, stream);
    d::spgemm_expand_products<<<warp_grid, th, 0, stream>>>(a.tiles, a.tile_row.get(), a.tile_col.get(),
                                                            a.tile_mask.get(), b.tile_ptr.get(), b.tile_col.get(),
                                                            b.tile_mask.get(), off, c.block_cols, keys.get(),
                                                            pairs.get());
    TCORE_CHECK_LAUNCH();
    offsets.reset();

    // -- symbolic: group by C tile (every group has an entry) -------------------------------
    const unsigned long long max_key = static_cast<unsigned long long>(c.block_rows) * c.block_cols;
    int end_bit = 1;
    while (end_bit < 64 && (1ull << end_bit) < max_key) ++end_bit;
    {
        unsigned long long *ki = keys.get(), *ko = keys_sorted.get(), *vi = pairs.get(), *vo = pairs_sorted.get();
        // LSD radix sort is stable: a C tile's products stay in expansion order (deterministic sums).
        tcore::cub_call([&](void* tmp, std::size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(tmp, bytes, ki, ko, vi, vo, n, 0, end_bit, stream);
        }, temp, stream);
    }
    pairs.reset();
    async_array<int> run_off(static_cast<std::size_t>(n) + 1, stream), nruns(1, stream);
    {
        unsigned long long *ki = keys_sorted.get(), *ko = keys.get();
        int *co = run_off.get(), *nr = nruns.get();
        tcore::cub_call([&](void* tmp, std::size_t& bytes) {
            return cub::DeviceRunLengthEncode::Encode(tmp, bytes, ki, ko, co, nr, n, stream);
        }, temp, stream);
    }
    keys_sorted.reset();
    int tiles = 0;
    TCORE_CHECK(cudaMemcpyAsync(&tiles, nruns.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    TCORE_CHECK(cudaStreamSynchronize(stream));
    TCORE_CHECK(cudaMemsetAsync(run_off.get() + tiles, 0, sizeof(int), stream));
    {
        int* co = run_off.get();
        const int nr = tiles + 1;  // run lengths -> run offsets
        tcore::cub_call(
            [&](void* tmp, std::size_t& bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, co, co, nr, stream); },
            temp, stream);
    }
    if (stats) stats->c_tiles = tiles;
    c.tiles = tiles;

    // -- C's structure ------------------------------------------------------------------
    c.tile_col = async_array<int>(tiles, stream);
    c.tile_row = async_array<int>(tiles, stream);
    c.tile_mask = async_array<std::uint16_t>(tiles, stream);
    c.tile_val = async_array<double>(16 * static_cast<std::size_t>(tiles), stream);
    d::spgemm_tile_coords<<<tcore::grid_of(tiles, th, where), th, 0, stream>>>(tiles, keys.get(), c.block_cols,
                                                                         c.tile_row.get(), c.tile_col.get());
    TCORE_CHECK_LAUNCH();
    d::spgemm_row_pointers<<<tcore::grid_of(tiles + 1LL, th, where), th, 0, stream>>>(tiles, c.tile_row.get(),
                                                                                c.block_rows, c.tile_ptr.get());
    TCORE_CHECK_LAUNCH();

    // -- numeric (and C's masks) ------------------------------------------------------------
    const d::spgemm_operands op{a.tile_val.get(), b.tile_val.get(), a.tile_mask.get(), b.tile_mask.get(),
                                pairs_sorted.get()};
    d::spgemm_numeric<Numeric><<<tcore::grid_of(32LL * tiles, th, where), th, 0, stream>>>(
        tiles, run_off.get(), c.tile_val.get(), c.tile_mask.get(), op);
    TCORE_CHECK_LAUNCH();
    return c;
}

/// C = A B. A is m x k, B is k x n, both mBSR on the device; C is returned
/// in mBSR with its exact structure. Backend: tensor_core (`tc`) or
/// cuda_core (`cc`). Runs on `stream`; the host waits twice (for the
/// product and tile counts, to size the arrays). Throws tcore::error on bad
/// input.
template <class Backend = default_backend>
mbsr_device spgemm(const mbsr_device& a, const mbsr_device& b, cudaStream_t stream = nullptr,
                   spgemm_stats* stats = nullptr)
{
    static_assert(is_backend_v<Backend>, "Backend is tcore::tensor_core or tcore::cuda_core");
    return spgemm_with<Backend>(a, b, stream, stats, "tcore::spgemm");
}

}  // namespace tcore
