// tcore/sparse/mbsr_device.cuh - an mBSR matrix (tcore/sparse/mbsr.hpp: 4x4
// tiles, 16-bit masks, 16 values per tile) held on the device in
// stream-ordered arrays, with upload from and download to the host format.
// SpGEMM (patterns/device/spgemm.cuh) takes and returns it;
// sparse/mbsr_convert.cuh builds it from CSR on the device.
#pragma once

#include "../check.cuh"
#include "../infra/async_array.cuh"
#include "mbsr.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace tcore {

/// An mBSR matrix in device memory (tile_row: the tile row of every tile).
struct mbsr_device {
    int rows = 0, cols = 0, block_rows = 0, block_cols = 0;
    long long tiles = 0;
    async_array<int> tile_ptr, tile_col, tile_row;
    async_array<std::uint16_t> tile_mask;
    async_array<double> tile_val;

    mbsr_device() = default;
    /// Uploads `m` (validated) on `stream`; synchronises before returning.
    mbsr_device(const sparse::mbsr_matrix& m, cudaStream_t stream)
    {
        sparse::validate(m, "tcore::mbsr_device");
        rows = m.rows;
        cols = m.cols;
        block_rows = m.block_rows;
        block_cols = m.block_cols;
        tiles = m.tiles();
        std::vector<int> row(static_cast<std::size_t>(tiles));
        for (int br = 0; br < m.block_rows; ++br)
            for (int p = m.tile_ptr[br]; p < m.tile_ptr[br + 1]; ++p) row[p] = br;
        tile_ptr = async_array<int>(m.tile_ptr.size(), stream);
        tile_col = async_array<int>(m.tile_col.size(), stream);
        tile_row = async_array<int>(row.size(), stream);
        tile_mask = async_array<std::uint16_t>(m.tile_mask.size(), stream);
        tile_val = async_array<double>(m.tile_val.size(), stream);
        copy_in(tile_ptr, m.tile_ptr, stream);
        copy_in(tile_col, m.tile_col, stream);
        copy_in(tile_row, row, stream);
        copy_in(tile_mask, m.tile_mask, stream);
        copy_in(tile_val, m.tile_val, stream);
        TCORE_CHECK(cudaStreamSynchronize(stream));
    }

    /// The matrix on the host (synchronises `stream`).
    sparse::mbsr_matrix download(cudaStream_t stream) const
    {
        sparse::mbsr_matrix m;
        m.rows = rows;
        m.cols = cols;
        m.block_rows = block_rows;
        m.block_cols = block_cols;
        m.tile_ptr = copy_out(tile_ptr, stream);
        m.tile_col = copy_out(tile_col, stream);
        m.tile_mask = copy_out(tile_mask, stream);
        m.tile_val = copy_out(tile_val, stream);
        if (m.tile_ptr.empty()) m.tile_ptr.assign(static_cast<std::size_t>(block_rows) + 1, 0);
        return m;
    }

private:
    template <class T>
    static void copy_in(async_array<T>& d, const std::vector<T>& h, cudaStream_t s)
    {
        if (!h.empty()) TCORE_CHECK(cudaMemcpyAsync(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s));
    }
    template <class T>
    static std::vector<T> copy_out(const async_array<T>& d, cudaStream_t s)
    {
        std::vector<T> h(d.size());
        if (!h.empty()) TCORE_CHECK(cudaMemcpyAsync(h.data(), d.get(), h.size() * sizeof(T), cudaMemcpyDeviceToHost, s));
        TCORE_CHECK(cudaStreamSynchronize(s));
        return h;
    }
};

}  // namespace tcore
