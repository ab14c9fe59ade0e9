// tcore/sparse/mbsr_convert.cuh - CSR <-> mBSR conversion on the device:
// the GPU counterparts of sparse::csr_to_mbsr and sparse::mbsr_to_csr
// (tcore/sparse/mbsr.hpp), giving the same arrays element for element, so
// that SpGEMM (patterns/device/spgemm.cuh) can take and return CSR that
// never leaves the device.
//
//   csr_to_mbsr_device(csr_device_view, stream) -> mbsr_device
//     one warp per tile row of 4 rows, 8 lanes a row: a merge of the rows'
//     sorted columns by tile column (c / 4) in rounds of up to 8 entries a
//     row (mbsr_walk_tile_row), counted in a first pass, written in a
//     second (tile columns sorted, mask bit 4r + c, 16 values per tile,
//     zero where nothing is stored); tile_ptr by a CUB exclusive scan. A
//     long row costs its tile row's warp about a round per 8 entries.
//   mbsr_to_csr_device(mbsr_device, stream) -> csr_device
//     one warp per row: its tile row's tiles 32 at a time, a lane each, the
//     set bits of the row's 4-bit slice of each mask in column order
//     (columns sorted), placed by a warp scan; row_ptr by a CUB exclusive
//     scan.
//
// Preconditions: the CSR has sorted, unique column indices in every row
// (as sparse::csr_to_mbsr demands; not checked on the device), 32-bit
// indices, fewer than 2^31 tiles / nonzeros (checked). The mBSR input is
// well formed (sparse::validate; e.g. tcore::spgemm's result): no mask bit
// outside the matrix (not checked on the device). Everything runs on
// `stream` with stream-ordered allocations; each function waits once for
// the count that sizes its output (a device-to-host copy of one value).
#pragma once

#include "../check.cuh"
#include "../infra/async_array.cuh"
#include "../infra/launch.cuh"
#include "csr.hpp"
#include "mbsr.hpp"
#include "mbsr_device.cuh"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <vector>

namespace tcore {

/// Device pointers to a CSR matrix (not owned; 32-bit indices, sorted unique columns per row).
struct csr_device_view {
    int rows = 0, cols = 0;
    long long nnz = 0;
    const int* row_ptr = nullptr;  ///< rows + 1
    const int* col_idx = nullptr;  ///< nnz
    const double* values = nullptr;  ///< nnz
};

/// A CSR matrix in device memory (stream-ordered allocations, owned).
struct csr_device {
    int rows = 0, cols = 0;
    long long nnz = 0;
    async_array<int> row_ptr, col_idx;
    async_array<double> values;

    csr_device_view view() const { return {rows, cols, nnz, row_ptr.get(), col_idx.get(), values.get()}; }

    /// The matrix on the host (synchronises `stream`).
    sparse::csr download(cudaStream_t stream) const
    {
        sparse::csr a;
        a.rows = rows;
        a.cols = cols;
        a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
        a.col_idx.resize(static_cast<std::size_t>(nnz));
        a.values.resize(static_cast<std::size_t>(nnz));
        if (row_ptr.get())
            TCORE_CHECK(cudaMemcpyAsync(a.row_ptr.data(), row_ptr.get(), a.row_ptr.size() * sizeof(int),
                                        cudaMemcpyDeviceToHost, stream));
        if (nnz) {
            TCORE_CHECK(cudaMemcpyAsync(a.col_idx.data(), col_idx.get(), a.col_idx.size() * sizeof(int),
                                        cudaMemcpyDeviceToHost, stream));
            TCORE_CHECK(cudaMemcpyAsync(a.values.data(), values.get(), a.values.size() * sizeof(double),
                                        cudaMemcpyDeviceToHost, stream));
        }
        TCORE_CHECK(cudaStreamSynchronize(stream));
        return a;
    }
};

namespace detail {

inline constexpr int mbsr_convert_threads = 128;

/// One warp walks tile row br (rows 4 br .. 4 br + 3) in rounds: lanes 8 r
/// .. 8 r + 7 load the next 8 entries of row r. A row with more entries
/// left caps the round at the tile column of its 8th loaded entry (its
/// next entries may share it); the round takes every loaded entry below the
/// lowest cap, so that no tile column is split between rounds, and at least
/// one (8 entries of a row span two tile columns or more). The taken entries'
/// distinct tile columns are the round's tiles, in column order: a lane's
/// tile is `out` + the number of distinct taken tile columns below its own.
/// Returns the tile row's tile count; with Fill, also writes its tiles from
/// `out` on (the first lane of a tile zeroes its values, then every lane
/// writes its entry).
template <bool Fill>
__device__ inline long long mbsr_walk_tile_row(int br, int rows, const int* __restrict__ row_ptr,
                                               const int* __restrict__ col, const double* __restrict__ val,
                                               long long out, int* __restrict__ tile_col, int* __restrict__ tile_row,
                                               std::uint16_t* __restrict__ tile_mask, double* __restrict__ tile_val)
{
    constexpr unsigned full = 0xffffffffu;
    const int lane = static_cast<int>(threadIdx.x) & 31, r = lane >> 3, k = lane & 7;
    const int row = 4 * br + r;
    int p = row < rows ? row_ptr[row] : 0;  // the row's next entry (the row's 8 lanes agree)
    const int e = row < rows ? row_ptr[row + 1] : 0;
    long long tiles = 0;
    while (__any_sync(full, p < e)) {
        const int j = p + k;
        const bool loaded = j < e;
        const int c = loaded ? col[j] : 0, bc = c >> 2;
        const int last_bc = __shfl_sync(full, bc, lane | 7);
        int cap = e - p > 8 ? last_bc : INT_MAX;
        cap = min(cap, __shfl_xor_sync(full, cap, 8));
        cap = min(cap, __shfl_xor_sync(full, cap, 16));
        const bool take = loaded && bc < cap;
        const unsigned taken = __ballot_sync(full, take);
        // Mask of my tile column's taken entries; the first lane holding it leads.
        unsigned mask = 0;
        bool leader = take;
        for (int i = 0; i < 32; ++i) {
            const int ci = __shfl_sync(full, c, i);
            if ((taken >> i & 1u) && (ci >> 2) == bc) {
                mask |= 1u << (4 * (i >> 3) + (ci & 3));
                if (i < lane) leader = false;
            }
        }
        const unsigned leaders = __ballot_sync(full, leader);
        int rank = 0;  // distinct taken tile columns below mine
        for (int i = 0; i < 32; ++i) {
            const int bci = __shfl_sync(full, bc, i);
            rank += (leaders >> i & 1u) && bci < bc;
        }
        if constexpr (Fill) {
            const long long t = out + tiles + rank;
            if (leader) {
#pragma unroll
                for (int i = 0; i < 16; ++i) tile_val[16 * t + i] = 0.0;
                tile_col[t] = bc;
                tile_row[t] = br;
                tile_mask[t] = static_cast<std::uint16_t>(mask);
            }
            __syncwarp();
            if (take) tile_val[16 * t + 4 * r + (c & 3)] = val[j];
        }
        tiles += __popc(leaders);
        p += __popc((taken >> (8 * r)) & 0xFFu);
    }
    return tiles;
}

/// One warp per tile row: the number of its tiles (distinct tile columns).
__global__ void mbsr_count_tiles(int rows, int block_rows, const int* __restrict__ row_ptr,
                                 const int* __restrict__ col, long long* __restrict__ counts)
{
    const long long br = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    if (br >= block_rows) return;  // whole warps
    const long long n = mbsr_walk_tile_row<false>(static_cast<int>(br), rows, row_ptr, col, nullptr, 0, nullptr,
                                                   nullptr, nullptr, nullptr);
    if ((threadIdx.x & 31) == 0) counts[br] = n;
}

/// One warp per tile row: writes its tiles from tile_ptr[br] on.
__global__ void mbsr_fill_tiles(int rows, int block_rows, const int* __restrict__ row_ptr,
                                const int* __restrict__ col, const double* __restrict__ val,
                                const int* __restrict__ tile_ptr, int* __restrict__ tile_col,
                                int* __restrict__ tile_row, std::uint16_t* __restrict__ tile_mask,
                                double* __restrict__ tile_val)
{
    const long long br = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    if (br >= block_rows) return;  // whole warps
    mbsr_walk_tile_row<true>(static_cast<int>(br), rows, row_ptr, col, val, tile_ptr[br], tile_col, tile_row,
                             tile_mask, tile_val);
}

/// The global index of the calling thread's warp.
__device__ inline long long mbsr_warp_index()
{
    return (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
}

/// One warp per row: its entry count (set bits of its 4-bit slice of every
/// mask of its tile row; lanes take every 32nd tile).
__global__ void mbsr_count_row_entries(int rows, const int* __restrict__ tile_ptr,
                                       const std::uint16_t* __restrict__ tile_mask, long long* __restrict__ counts)
{
    const long long r = mbsr_warp_index();
    if (r >= rows) return;  // whole warps
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int br = static_cast<int>(r >> 2), shift = 4 * static_cast<int>(r & 3);
    int n = 0;
    for (int p = tile_ptr[br] + lane; p < tile_ptr[br + 1]; p += 32) n += __popc((tile_mask[p] >> shift) & 0xFu);
    n = __reduce_add_sync(0xffffffffu, n);
    if (lane == 0) counts[r] = n;
}

/// One warp per row: writes its entries from row_ptr[r] on, in column order.
/// 32 tiles at a time, one a lane; a warp scan of the lanes' entry counts
/// places each lane's entries after those of the lanes (tiles) before it.
__global__ void mbsr_fill_rows(int rows, const int* __restrict__ tile_ptr, const int* __restrict__ tile_col,
                               const std::uint16_t* __restrict__ tile_mask, const double* __restrict__ tile_val,
                               const int* __restrict__ row_ptr, int* __restrict__ col, double* __restrict__ val)
{
    const long long r = mbsr_warp_index();
    if (r >= rows) return;  // whole warps
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int br = static_cast<int>(r >> 2), rr = static_cast<int>(r & 3);
    const int end = tile_ptr[br + 1];
    int out = row_ptr[r];
    for (int p0 = tile_ptr[br]; p0 < end; p0 += 32) {  // warp-uniform
        const int p = p0 + lane;
        unsigned bits = p < end ? (tile_mask[p] >> (4 * rr)) & 0xFu : 0u;
        const int n = __popc(bits);
        int incl = n;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int v = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += v;
        }
        int at = out + incl - n;
        const int base_col = p < end ? 4 * tile_col[p] : 0;
        while (bits) {
            const int c = __ffs(bits) - 1;
            bits &= bits - 1;
            col[at] = base_col + c;
            val[at] = tile_val[16LL * p + 4 * rr + c];
            ++at;
        }
        out += __shfl_sync(0xffffffffu, incl, 31);
    }
}

/// out[i] = v[i] for i in [0, n]: 64-bit offsets narrowed to the format's 32-bit ones.
__global__ void mbsr_narrow_offsets(int n, const long long* __restrict__ v, int* __restrict__ out)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = static_cast<int>(v[i]);
}

/// counts[0, n) -> exclusive prefix sums in out[0, n] (out[n] = the total,
/// which is returned), summed in 64 bits so that a total past 2^31 - 1 is
/// caught. counts has n + 1 elements and is overwritten.
inline long long mbsr_convert_offsets(long long* counts, int n, int* out, cudaStream_t stream, const char* where)
{
    TCORE_CHECK(cudaMemsetAsync(counts + n, 0, sizeof(long long), stream));
    async_array<unsigned char> temp;
    const long long len = n + 1LL;  // 64-bit count: the same scan instantiation as tcore::spgemm's
    tcore::cub_call(
        [&](void* tmp, std::size_t& bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, counts, counts, len, stream); },
        temp, stream);
    long long total = 0;
    TCORE_CHECK(cudaMemcpyAsync(&total, counts + n, sizeof total, cudaMemcpyDeviceToHost, stream));
    TCORE_CHECK(cudaStreamSynchronize(stream));
    require(total < INT_MAX, where, "more than 2^31 - 1 entries");
    mbsr_narrow_offsets<<<tcore::grid_of(len, mbsr_convert_threads, where), mbsr_convert_threads, 0, stream>>>(n, counts, out);
    TCORE_CHECK_LAUNCH();
    return total;
}

}  // namespace detail

/// CSR (device, sorted unique columns per row) -> mBSR with 4x4 tiles on the
/// device; the same arrays as sparse::csr_to_mbsr. Throws tcore::error on
/// bad arguments.
inline mbsr_device csr_to_mbsr_device(const csr_device_view& a, cudaStream_t stream = nullptr)
{
    namespace d = detail;
    const char* where = "tcore::csr_to_mbsr_device";
    require(a.rows >= 0 && a.cols >= 0 && a.nnz >= 0, where, "negative dimensions or nonzero count");
    require(a.rows == 0 || a.row_ptr != nullptr, where, "row_ptr is a null pointer");
    require(a.nnz == 0 || (a.col_idx != nullptr && a.values != nullptr), where, "col_idx or values is a null pointer");
    mbsr_device m;
    m.rows = a.rows;
    m.cols = a.cols;
    m.block_rows = (a.rows + 3) / 4;
    m.block_cols = (a.cols + 3) / 4;
    m.tile_ptr = async_array<int>(static_cast<std::size_t>(m.block_rows) + 1, stream);
    if (m.block_rows == 0 || a.nnz == 0) {
        TCORE_CHECK(cudaMemsetAsync(m.tile_ptr.get(), 0, (static_cast<std::size_t>(m.block_rows) + 1) * sizeof(int),
                                    stream));
        return m;
    }
    constexpr int th = d::mbsr_convert_threads;
    const unsigned grid = tcore::grid_of(32LL * m.block_rows, th, where);  // one warp per tile row
    async_array<long long> counts(static_cast<std::size_t>(m.block_rows) + 1, stream);
    d::mbsr_count_tiles<<<grid, th, 0, stream>>>(a.rows, m.block_rows, a.row_ptr, a.col_idx, counts.get());
    TCORE_CHECK_LAUNCH();
    m.tiles = d::mbsr_convert_offsets(counts.get(), m.block_rows, m.tile_ptr.get(), stream, where);
    counts.reset();
    const std::size_t tiles = static_cast<std::size_t>(m.tiles);
    m.tile_col = async_array<int>(tiles, stream);
    m.tile_row = async_array<int>(tiles, stream);
    m.tile_mask = async_array<std::uint16_t>(tiles, stream);
    m.tile_val = async_array<double>(16 * tiles, stream);
    d::mbsr_fill_tiles<<<grid, th, 0, stream>>>(a.rows, m.block_rows, a.row_ptr, a.col_idx, a.values, m.tile_ptr.get(),
                                                m.tile_col.get(), m.tile_row.get(), m.tile_mask.get(),
                                                m.tile_val.get());
    TCORE_CHECK_LAUNCH();
    return m;
}

/// mBSR (device, well formed) -> CSR on the device: exactly the masked
/// entries, columns sorted; the same arrays as sparse::mbsr_to_csr.
inline csr_device mbsr_to_csr_device(const mbsr_device& m, cudaStream_t stream = nullptr)
{
    namespace d = detail;
    const char* where = "tcore::mbsr_to_csr_device";
    require(m.rows >= 0 && m.cols >= 0 && m.block_rows == (m.rows + 3) / 4, where,
            "block rows do not match the dimensions");
    require(m.block_rows == 0 || m.tile_ptr.get() != nullptr, where, "tile_ptr is a null pointer (empty handle)");
    csr_device a;
    a.rows = m.rows;
    a.cols = m.cols;
    a.row_ptr = async_array<int>(static_cast<std::size_t>(m.rows) + 1, stream);
    if (m.rows == 0 || m.tiles == 0) {
        TCORE_CHECK(cudaMemsetAsync(a.row_ptr.get(), 0, (static_cast<std::size_t>(m.rows) + 1) * sizeof(int), stream));
        return a;
    }
    constexpr int th = d::mbsr_convert_threads;
    const unsigned grid = tcore::grid_of(32LL * m.rows, th, where);  // one warp per row
    async_array<long long> counts(static_cast<std::size_t>(m.rows) + 1, stream);
    d::mbsr_count_row_entries<<<grid, th, 0, stream>>>(m.rows, m.tile_ptr.get(), m.tile_mask.get(), counts.get());
    TCORE_CHECK_LAUNCH();
    a.nnz = d::mbsr_convert_offsets(counts.get(), m.rows, a.row_ptr.get(), stream, where);
    counts.reset();
    a.col_idx = async_array<int>(static_cast<std::size_t>(a.nnz), stream);
    a.values = async_array<double>(static_cast<std::size_t>(a.nnz), stream);
    if (a.nnz)
        d::mbsr_fill_rows<<<grid, th, 0, stream>>>(m.rows, m.tile_ptr.get(), m.tile_col.get(), m.tile_mask.get(),
                                                   m.tile_val.get(), a.row_ptr.get(), a.col_idx.get(), a.values.get());
    TCORE_CHECK_LAUNCH();
    return a;
}

}  // namespace tcore
