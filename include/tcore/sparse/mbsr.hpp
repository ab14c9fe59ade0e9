// tcore/sparse/mbsr.hpp - mBSR, the blocked format of AmgT (SC'24) that
// tcore's SpGEMM works on: the matrix cut into 4x4 tiles; each stored tile
// keeps its 16 values densely (row-major, zeros where nothing is stored) and
// a 16-bit mask of the entries that are stored (bit 4r + c), so the exact
// CSR structure - explicit zeros included - survives the round trip.
// Tiles of a tile row are sorted by tile column; tiles with no stored entry
// do not exist. Dimensions need not be multiples of 4 (the last tile row /
// column is partial; its missing rows and columns are zero and unmasked).
#pragma once

#include "../check.cuh"
#include "csr.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

namespace tcore::sparse {

struct mbsr_matrix {
    int rows = 0, cols = 0;
    int block_rows = 0, block_cols = 0;              ///< ceil(rows / 4), ceil(cols / 4)
    std::vector<int> tile_ptr = std::vector<int>(1, 0);  ///< block_rows + 1
    std::vector<int> tile_col;                       ///< tile column of each tile
    std::vector<std::uint16_t> tile_mask;            ///< stored entries, bit 4r + c
    std::vector<double> tile_val;                    ///< 16 per tile, row-major

    long long tiles() const { return static_cast<long long>(tile_col.size()); }
};

/// Throws tcore::error("<where>: ...") unless `m` is well formed.
inline void validate(const mbsr_matrix& m, const char* where)
{
    require(m.rows >= 0 && m.cols >= 0, where, "negative dimensions");
    require(m.block_rows == (m.rows + 3) / 4 && m.block_cols == (m.cols + 3) / 4, where,
            "block counts do not match the dimensions");
    require(m.tile_ptr.size() == static_cast<std::size_t>(m.block_rows) + 1 && m.tile_ptr[0] == 0 &&
                m.tile_ptr.back() == static_cast<long long>(m.tile_col.size()),
            where, "tile_ptr is inconsistent with the tile count");
    require(m.tile_mask.size() == m.tile_col.size() && m.tile_val.size() == 16 * m.tile_col.size(), where,
            "tile_mask / tile_val sizes do not match tile_col");
    for (int br = 0; br < m.block_rows; ++br) {
        if (m.tile_ptr[br] > m.tile_ptr[br + 1])
            require(false, where, "tile_ptr decreases at tile row " + std::to_string(br));
        for (int p = m.tile_ptr[br]; p < m.tile_ptr[br + 1]; ++p) {
            if (m.tile_col[p] < 0 || m.tile_col[p] >= m.block_cols)
                require(false, where, "tile column out of range in tile row " + std::to_string(br));
            if (p > m.tile_ptr[br] && m.tile_col[p] <= m.tile_col[p - 1])
                require(false, where, "tile columns of tile row " + std::to_string(br) + " are not sorted and unique");
        }
    }
}

/// CSR (sorted unique columns) -> mBSR.
inline mbsr_matrix csr_to_mbsr(const csr& a)
{
    const char* where = "tcore::sparse::csr_to_mbsr";
    validate(a, where, true);
    mbsr_matrix m;
    m.rows = a.rows;
    m.cols = a.cols;
    m.block_rows = (a.rows + 3) / 4;
    m.block_cols = (a.cols + 3) / 4;
    m.tile_ptr.assign(static_cast<std::size_t>(m.block_rows) + 1, 0);
    std::vector<int> slot(static_cast<std::size_t>(m.block_cols), -1);  // tile index of a tile column in this tile row
    for (int br = 0; br < m.block_rows; ++br) {
        const int first = static_cast<int>(m.tile_col.size());
        const int r_end = std::min(a.rows, 4 * br + 4);
        for (int r = 4 * br; r < r_end; ++r)
            for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
                const int bc = a.col_idx[p] >> 2;
                if (slot[bc] < 0) {
                    slot[bc] = 0;
                    m.tile_col.push_back(bc);
                }
            }
        std::sort(m.tile_col.begin() + first, m.tile_col.end());
        if (m.tile_col.size() > static_cast<std::size_t>(INT_MAX)) require(false, where, "more than 2^31 - 1 tiles");
        for (int p = first; p < static_cast<int>(m.tile_col.size()); ++p) slot[m.tile_col[p]] = p;
        m.tile_mask.resize(m.tile_col.size(), 0);
        m.tile_val.resize(16 * m.tile_col.size(), 0.0);
        for (int r = 4 * br; r < r_end; ++r)
            for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) {
                const int c = a.col_idx[p];
                const int tile = slot[c >> 2];
                const int e = 4 * (r & 3) + (c & 3);
                m.tile_mask[tile] = static_cast<std::uint16_t>(m.tile_mask[tile] | (1u << e));
                m.tile_val[16 * static_cast<std::size_t>(tile) + e] = a.values[p];
            }
        for (int p = first; p < static_cast<int>(m.tile_col.size()); ++p) slot[m.tile_col[p]] = -1;
        m.tile_ptr[br + 1] = static_cast<int>(m.tile_col.size());
    }
    return m;
}

/// mBSR -> CSR: exactly the masked entries (the inverse of csr_to_mbsr).
inline csr mbsr_to_csr(const mbsr_matrix& m)
{
    const char* where = "tcore::sparse::mbsr_to_csr";
    validate(m, where);
    csr a;
    a.rows = m.rows;
    a.cols = m.cols;
    a.row_ptr.assign(static_cast<std::size_t>(m.rows) + 1, 0);
    for (int r = 0; r < m.rows; ++r) {
        const int br = r >> 2, rr = r & 3;
        for (int p = m.tile_ptr[br]; p < m.tile_ptr[br + 1]; ++p)
            for (int cc = 0; cc < 4; ++cc)
                if (m.tile_mask[p] >> (4 * rr + cc) & 1u) {
                    const int c = 4 * m.tile_col[p] + cc;
                    if (c >= m.cols) require(false, where, "a mask bit lies outside the matrix");
                    a.col_idx.push_back(c);
                    a.values.push_back(m.tile_val[16 * static_cast<std::size_t>(p) + 4 * rr + cc]);
                }
        if (a.col_idx.size() > static_cast<std::size_t>(INT_MAX)) require(false, where, "more than 2^31 - 1 nonzeros");
        a.row_ptr[r + 1] = static_cast<int>(a.col_idx.size());
    }
    require(m.rows % 4 == 0 || m.block_rows == 0 ||
                [&] {
                    // rows past the end of a partial last tile row must be unmasked
                    const int br = m.block_rows - 1;
                    for (int p = m.tile_ptr[br]; p < m.tile_ptr[br + 1]; ++p)
                        for (int rr = m.rows & 3; rr < 4; ++rr)
                            if (m.tile_mask[p] >> (4 * rr) & 0xFu) return false;
                    return true;
                }(),
            where, "a mask bit lies below the last row");
    return a;
}

}  // namespace tcore::sparse
