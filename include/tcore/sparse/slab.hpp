// tcore/sparse/slab.hpp - the slab layout of tcore's SpMV format: a matrix
// whose rows are all short and of similar length is stored as slabs of 8
// consecutive rows, every row padded to one width W (at most 12 slots),
// with no other row class, no row index and no pointer array (the kernel
// finds slab s at s 8 W and stores row 8 s + g: patterns/device/spmv_slab.cuh).
//
// A slab is W / 4 full 32-blocks (slot 4g + t holds entry 4b + t of row g,
// as in tcore/sparse/dasp.hpp) and, for C = W % 4 > 0, one compact partial
// block of 8 C slots (slot C g + t holds entry 4 (W / 4) + t of row g, t <
// C): on the MMA it is a block whose slots t >= C are padding, but it costs
// no bytes for them. Padding slots have value 0 and column -1.
//
// Against the general layout (groups sorted by length, a pointer and row
// index per group and row, irregular remainders), a slab costs one
// dependent round trip less per group and needs no sort; it pays padding.
// build_dasp takes it where the padding (empty rows of the last slab
// included) stays within a quarter of the slots. Measured: banded rows of
// 1 to 9 entries, mean 7.8, pad 13%, and cryg2500 / jagmesh7 (pad 1% /
// 7%), all faster as slabs (examples/spmv/README.md); the quarter is a
// chosen bound, not a measured break-even (at 25% a slab moves about a
// fifth more bytes than the general layout).
#pragma once

#include "../check.cuh"
#include "csr.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace tcore::sparse {

/// Slots a slab row may hold (three 32-blocks: the kernel loads at most
/// three blocks a slab).
inline constexpr int slab_max_width = 12;

/// Where entry e of a slab row lies: width W = 4 full + partial.
struct slab_shape {
    int width = 0;    ///< slots a row (0: not a slab matrix)
    int full = 0;     ///< full 32-blocks a slab: width / 4
    int partial = 0;  ///< columns of the compact partial block: width % 4
    /// Slots a slab: 8 width.
    long long slab_slots() const { return 8LL * width; }
    /// Slot of entry e (< width) of row g (< 8) within its slab.
    int slot(int g, int e) const
    {
        return e < 4 * full ? 32 * (e / 4) + 4 * g + e % 4 : 32 * full + partial * g + (e - 4 * full);
    }
};

inline slab_shape make_slab_shape(int width) { return {width, width / 4, width % 4}; }

/// The slab width of `a` if its slabs would waste at most a quarter of
/// their slots (the last slab's missing rows count as padding) and its
/// longest row fits slab_max_width; 0 otherwise (and for a matrix without
/// entries).
inline int slab_width_for(const csr& a)
{
    const int longest = row_statistics(a).max_len;
    if (longest == 0 || longest > slab_max_width) return 0;
    const long long slots = (static_cast<long long>(a.rows) + 7) / 8 * 8 * longest;
    return 4 * a.nnz() >= 3 * slots ? longest : 0;
}

/// Packs every row of `a` into slabs of `width` slots a row (>= the
/// longest row, <= slab_max_width): values and columns, padding 0 and -1.
/// Throws tcore::error for another width.
inline void pack_slabs(const csr& a, int width, std::vector<double>& val, std::vector<int>& col)
{
    const int longest = row_statistics(a).max_len;
    require(width >= 1 && width <= slab_max_width && width >= longest, "tcore::sparse::pack_slabs",
            "width " + std::to_string(width) + " must be 1 to " + std::to_string(slab_max_width) +
                " and at least the longest row (" + std::to_string(longest) + " entries)");
    const slab_shape s = make_slab_shape(width);
    const std::size_t slots = static_cast<std::size_t>((a.rows + 7) / 8) * static_cast<std::size_t>(s.slab_slots());
    val.assign(slots, 0.0);
    col.assign(slots, -1);
    for (int r = 0; r < a.rows; ++r) {
        const std::size_t base = static_cast<std::size_t>(r / 8) * static_cast<std::size_t>(s.slab_slots());
        for (int e = 0; e < a.row_length(r); ++e) {
            const std::size_t at = base + static_cast<std::size_t>(s.slot(r % 8, e));
            val[at] = a.values[a.row_ptr[r] + e];
            col[at] = a.col_idx[a.row_ptr[r] + e];
        }
    }
}

/// Calls put(row, column, value) for every stored entry of `rows` rows in
/// slabs of `width` (the inverse of pack_slabs; a width of 0: none).
/// Throws tcore::error where the arrays do not match the shape.
template <class Put>
void for_each_slab_entry(int rows, int width, const std::vector<double>& val, const std::vector<int>& col, Put&& put)
{
    const slab_shape s = make_slab_shape(width);
    const std::size_t slots = static_cast<std::size_t>(width > 0 ? (rows + 7) / 8 : 0) *
                              static_cast<std::size_t>(s.slab_slots());
    require(width >= 0 && width <= slab_max_width && val.size() == slots && col.size() == slots,
            "tcore::sparse::for_each_slab_entry", "corrupt slabs");
    for (int r = 0; r < rows && width > 0; ++r)
        for (int e = 0; e < width; ++e) {
            const std::size_t at = static_cast<std::size_t>(r / 8) * static_cast<std::size_t>(s.slab_slots()) +
                                   static_cast<std::size_t>(s.slot(r % 8, e));
            if (col[at] >= 0) put(r, col[at], val[at]);
        }
}

}  // namespace tcore::sparse
