// tcore/sparse/dasp.hpp - the host side of tcore's SpMV format, after DASP
// (Lu & Liu, SC'23): rows classified by length and packed so that the FP64
// MMA finds "8 rows x 4 nonzeros" blocks whose products land on the
// diagonal of D (patterns/spmv.cuh has the building blocks, patterns/device/spmv.cuh the kernel).
//
// Every block of 32 slots ("a 32-block") is the A operand of one m8n8k4 MMA:
// slot 4g + t holds nonzero t of the block's row g (g = lane/4, t = lane%4),
// so lane (g, t) loads its own value and its own x gather: A(g,t) = value,
// B(t,g) = x[column], and D(g,g) = sum_t A(g,t) x[col(g,t)]. Padding slots
// have value 0 and column -1 (the kernel uses B = 0 there: no x load, and no
// 0 * inf). The m16n8k8/k16 shapes take 2/4 consecutive 32-blocks per MMA.
//
//   empty rows   (0 entries): listed, y = 0.
//   short rows   (1 to 4 entries): packed into 4-slot lines (a 4; a 3 with
//                a 1; two 2s; a 2 with two 1s; four 1s; leftovers padded),
//                8 lines a tile (one 32-block). A per-tile 32-bit mask marks
//                the slot where each row ("segment") starts; the kernel runs
//                one MMA per segment position j, with B masked to segment j,
//                so D_j(g,g) is the j-th row of line g. Lines are ordered by
//                their segment count, so tiles need 1, 2, 3 or 4 MMAs.
//   medium rows  (5 to long_min - 1 entries): stably sorted by length
//                (longest first) within windows of sort_window rows,
//                grouped by up to 8. A group's regular part
//                is W = 4 * floor(shortest / 4) entries of each row, as W / 4
//                32-blocks; the rest of each row (the irregular part, < 4 +
//                the spread in the group) is kept row by row and summed on
//                CUDA cores, as DASP does. A group takes the next row only
//                while the irregular part of its first (longest) row stays
//                within irregular_cap; a group cut short is padded with
//                empty rows (row -1), unless its first row has long_piece / 2
//                or more entries: that row is moved to the long rows. Without
//                the cap, the sparse tail of a power-law length distribution
//                left a warp with a thousand entries on 4 lanes.
//   bundles      (optional, dasp_options::bundle): P consecutive medium rows
//                with identical columns (the unknowns of one FEM node, the
//                colours of one lattice site, the rows of a dense block)
//                share one column index and one x gather per slot. Groups of
//                8 bundles: for every 32-block, 32 column indices and P x 32
//                values (row p of bundle g at slot 32 p + 4g + t of the
//                block's values). On the sm_90 m16n8k4 MMA, A rows g and
//                g + 8 are two rows of bundle g and meet the same B column
//                g, so D(g, g) and D(g + 8, g) are both results. Irregular
//                remainders as for medium rows, row by row.
//   slabs        (dasp_options::slabs; tcore/sparse/slab.hpp): a matrix whose
//                rows are all short and alike (at most 12 entries, padding
//                to the longest within a quarter of the slots) is stored as
//                8-row slabs of consecutive rows instead of the classes here.
//   long rows    (long_min or more, and medium rows moved there): cut into
//                pieces of long_piece slots (a multiple of 128), each piece
//                one warp's work, in the row's own order; the last piece is
//                padded. Piece sums are added by the last warp to finish a
//                row (deterministic order).
//
// dasp_to_csr inverts the packing exactly (tests/host/test_sparse_formats.cu).
#pragma once

#include "../check.cuh"
#include "csr.hpp"
#include "slab.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace tcore::sparse {

struct dasp_options {
    /// Rows with at least this many entries are long (>= 5), or 0: chosen
    /// from the matrix (auto_long_min). 256 keeps a medium group (8 rows)
    /// within four long pieces of work; on a matrix too small to give every
    /// resident warp that much, the longest medium group would set the
    /// kernel's time, and a lower threshold splits its rows instead.
    int long_min = 0;
    /// Slots per warp piece of a long row (a positive multiple of 128), or 0:
    /// 2 long_min rounded up to a multiple of 128.
    int long_piece = 0;
    /// Rows per bundle of identical medium rows: 1 = no bundles, 2, 3, 4 or
    /// 8; 0 = choose from the matrix (the P of {2, 3, 4, 8} that saves the
    /// most index bytes; 1 if bundles would cover under 10% of medium rows,
    /// or would make fewer groups (one warp each) than half the resident
    /// warps: with too few groups to fill the device, bundles ran slower
    /// than without; examples/spmv/README.md has the measurements).
    int bundle = 1;
    /// The most entries of a medium row left to the CUDA cores beyond its
    /// group's regular width (>= 3). Groups of 8 are cut short (padded) to
    /// respect it, and a row of long_piece / 2 or more entries that cannot
    /// fill its group within it becomes a long row.
    int irregular_cap = 32;
    /// Medium rows (and bundles) are sorted by length within windows of this
    /// many consecutive rows (0: over the whole matrix). A global sort sweeps
    /// x and y once per distinct row length; once they outgrow L2 (banded
    /// rows at 1e8 nonzeros) each sweep reads x and writes y from DRAM
    /// again. Windows keep the rows of one stretch of y, and their x lines,
    /// together.
    int sort_window = 1 << 16;
    /// Warps the device keeps resident, for the automatic long_min and
    /// bundles: its SMs x 32, the tensor-core kernel's occupancy. 0: from the
    /// current CUDA device (an error where none can be queried, e.g. packing
    /// on a machine without a GPU: give the target's SMs x 32 there).
    int resident_warps = 0;
    /// Whether a matrix that slab_width_for accepts is packed as slabs
    /// (tcore/sparse/slab.hpp; every other option is then unused).
    bool slabs = true;
};

/// The automatic long_min: 256 when the matrix gives every resident warp at
/// least one medium group of 256-entry rows (8 x 256 entries) on average
/// over half of them, else the power of two from 64 to 256 at or above four
/// times the mean row length (a power-law matrix of 1e6 entries, mean 9:
/// 64, so rows of 64-255 entries are split over warps rather than left to
/// one warp each; uniform rows stay medium).
inline int auto_long_min(const csr& a, int resident_warps)
{
    const double share = static_cast<double>(a.nnz()) / std::max(1, resident_warps);
    if (8.0 * 256 <= 2.0 * share) return 256;
    const double mean = a.rows > 0 ? static_cast<double>(a.nnz()) / a.rows : 0.0;
    int long_min = 64;
    while (long_min < 256 && long_min < 4.0 * mean) long_min *= 2;
    return long_min;
}

/// The bundle sizes the SpMV kernels are compiled for.
inline bool valid_bundle(int p) { return p == 1 || p == 2 || p == 3 || p == 4 || p == 8; }

/// The packed matrix on the host (device copies: patterns/device/spmv.cuh).
struct dasp_format {
    int rows = 0, cols = 0;
    long long nnz = 0;
    dasp_options opts;

    // long rows
    std::vector<int> long_rows;       ///< original row of each long row
    std::vector<int> long_piece_ptr;  ///< pieces of long row i: [ptr[i], ptr[i+1])
    std::vector<int> piece_row;       ///< long row (index into long_rows) of each piece
    std::vector<double> long_val;     ///< pieces * long_piece slots
    std::vector<int> long_col;

    // medium rows, groups of 8 (the last group padded with rows -1)
    std::vector<int> med_rows;        ///< original row per sorted position (-1: phantom)
    std::vector<int> group_ptr;       ///< regular slots of group i: [ptr[i], ptr[i+1]), multiples of 32
    std::vector<double> reg_val;
    std::vector<int> reg_col;
    std::vector<int> irr_ptr;         ///< irregular entries of sorted row i: [ptr[i], ptr[i+1])
    std::vector<double> irr_val;
    std::vector<int> irr_col;

    // short rows, tiles of 8 lines x 4 slots
    std::vector<unsigned> tile_mask;  ///< bit 4g + k: slot (g, k) starts a row
    std::vector<int> tile_row_ptr;    ///< rows of tile i: short_rows[ptr[i] .. ptr[i+1])
    std::vector<int> short_rows;      ///< original rows, tile by tile, line by line, segment by segment
    std::vector<double> short_val;    ///< tiles * 32 slots
    std::vector<int> short_col;

    // bundles of `bundle` identical medium rows, groups of 8 bundles
    int bundle = 1;
    std::vector<int> bun_rows;        ///< original row of row p of bundle i: [i * bundle + p] (-1: phantom)
    std::vector<int> bgroup_ptr;      ///< column slots of group i: [ptr[i], ptr[i+1]), multiples of 32
    std::vector<int> bun_col;         ///< column slots
    std::vector<double> bun_val;      ///< bundle values per column slot: block b of a group at bundle * (ptr + 32 b)
    std::vector<int> birr_ptr;        ///< irregular entries of bundle row j (= i * bundle + p)
    std::vector<double> birr_val;
    std::vector<int> birr_col;

    std::vector<int> empty_rows;

    // slabs: all rows, 8 consecutive rows a slab, slab_width slots a row
    // (0: the classes above hold the matrix, and these are empty)
    int slab_width = 0;
    std::vector<double> slab_val;
    std::vector<int> slab_col;

    int slab_count() const { return slab_width > 0 ? (rows + 7) / 8 : 0; }
    int bundle_group_count() const { return static_cast<int>(bgroup_ptr.size()) - 1; }
    int long_count() const { return static_cast<int>(long_rows.size()); }
    int piece_count() const { return static_cast<int>(piece_row.size()); }
    int group_count() const { return static_cast<int>(group_ptr.size()) - 1; }
    int tile_count() const { return static_cast<int>(tile_mask.size()); }
    /// Slots stored in MMA blocks (long, regular, short), padding included.
    long long block_slots() const
    {
        return static_cast<long long>(long_val.size()) + static_cast<long long>(reg_val.size()) +
               static_cast<long long>(short_val.size()) + static_cast<long long>(bun_val.size()) +
               static_cast<long long>(slab_val.size());
    }
    /// Bytes of all arrays (what the device holds).
    long long bytes() const
    {
        auto b = [](const auto& v) { return static_cast<long long>(v.size() * sizeof(v[0])); };
        return b(long_rows) + b(long_piece_ptr) + b(piece_row) + b(long_val) + b(long_col) + b(med_rows) +
               b(group_ptr) + b(reg_val) + b(reg_col) + b(irr_ptr) + b(irr_val) + b(irr_col) + b(tile_mask) +
               b(tile_row_ptr) + b(short_rows) + b(short_val) + b(short_col) + b(empty_rows) + b(bun_rows) +
               b(bgroup_ptr) + b(bun_col) + b(bun_val) + b(birr_ptr) + b(birr_val) + b(birr_col) + b(slab_val) +
               b(slab_col);
    }
};

namespace detail {

inline void require_slots(long long n, const char* where)
{
    require(n <= INT_MAX, where, "the packed matrix needs more than 2^31 - 1 slots (32-bit offsets)");
}

}  // namespace detail

/// SMs of the current CUDA device, 0 where none can be queried.
inline int current_device_sms()
{
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        cudaGetLastError();  // leave no sticky error behind for the caller
        return 0;
    }
    return sms;
}

/// Packs a CSR matrix (sorted unique columns) into the DASP-like format.
inline dasp_format build_dasp(const csr& a, dasp_options opts = {})
{
    const char* where = "tcore::sparse::build_dasp";
    validate(a, where, true);
    require(opts.long_min == 0 || opts.long_min >= 5, where,
            "long_min must be 0 (automatic) or at least 5 (rows of 1 to 4 entries are short), got " +
                std::to_string(opts.long_min));
    require(opts.long_piece >= 0 && opts.long_piece % 128 == 0, where,
            "long_piece must be 0 (automatic) or a positive multiple of 128, got " + std::to_string(opts.long_piece));
    require(opts.resident_warps >= 0, where,
            "resident_warps must be 0 (the current device) or positive, got " + std::to_string(opts.resident_warps));
    require(opts.bundle == 0 || valid_bundle(opts.bundle), where,
            "bundle must be 0 (automatic), 1, 2, 3, 4 or 8, got " + std::to_string(opts.bundle));
    require(opts.irregular_cap >= 3, where,
            "irregular_cap must be at least 3, got " + std::to_string(opts.irregular_cap));
    require(opts.sort_window >= 0, where, "sort_window must be non-negative, got " + std::to_string(opts.sort_window));
    if (opts.resident_warps == 0) opts.resident_warps = 32 * current_device_sms();
    require(opts.resident_warps > 0, where,
            "resident_warps is 0 (the current device) but no CUDA device could be queried: "
            "set dasp_options::resident_warps to the target GPU's SMs x 32");
    if (opts.long_min == 0) opts.long_min = auto_long_min(a, opts.resident_warps);
    if (opts.long_piece == 0) opts.long_piece = (2 * opts.long_min + 127) / 128 * 128;
    dasp_format f;
    f.rows = a.rows;
    f.cols = a.cols;
    f.nnz = a.nnz();
    f.opts = opts;
    f.long_piece_ptr.push_back(0);
    f.slab_width = opts.slabs ? slab_width_for(a) : 0;
    if (f.slab_width > 0) {
        detail::require_slots(8LL * f.slab_width * f.slab_count(), where);
        pack_slabs(a, f.slab_width, f.slab_val, f.slab_col);
        f.group_ptr.assign(1, 0);
        f.irr_ptr.assign(1, 0);
        f.tile_row_ptr.assign(1, 0);
        f.bgroup_ptr.assign(1, 0);
        f.birr_ptr.assign(1, 0);
        return f;
    }

    std::vector<int> med, shorts[5];
    for (int r = 0; r < a.rows; ++r) {
        const int len = a.row_length(r);
        if (len == 0) f.empty_rows.push_back(r);
        else if (len <= 4) shorts[len].push_back(r);
        else if (len < opts.long_min) med.push_back(r);
        else f.long_rows.push_back(r);
    }

    // -- bundles: runs of consecutive medium rows with identical columns ------------
    auto same_columns = [&](int x, int y) {
        return a.row_length(x) == a.row_length(y) &&
               std::equal(a.col_idx.begin() + a.row_ptr[x], a.col_idx.begin() + a.row_ptr[x + 1],
                          a.col_idx.begin() + a.row_ptr[y]);
    };
    std::vector<std::pair<int, int>> runs;  // (first row, length) over consecutive medium rows
    for (std::size_t i = 0; i < med.size();) {
        std::size_t j = i + 1;
        while (j < med.size() && med[j] == med[j - 1] + 1 && same_columns(med[j], med[i])) ++j;
        runs.push_back({med[i], static_cast<int>(j - i)});
        i = j;
    }
    int P = opts.bundle;
    if (P == 0) {
        double best = 0;
        P = 1;
        for (const int q : {2, 3, 4, 8}) {
            long long covered = 0;
            for (const auto& r : runs) covered += r.second / q * q;
            const double saved = static_cast<double>(covered) * (1.0 - 1.0 / q);
            const long long groups = covered / q / 8;
            if (covered * 10 >= static_cast<long long>(med.size()) && 2 * groups >= opts.resident_warps &&
                saved > best)
                best = saved, P = q;
        }
    }
    f.bundle = P;
    std::vector<int> bundles;  // first row of each bundle
    if (P > 1) {
        std::vector<int> rest;
        for (const auto& r : runs) {
            const int n = r.second / P;
            for (int b = 0; b < n; ++b) bundles.push_back(r.first + b * P);
            for (int k = n * P; k < r.second; ++k) rest.push_back(r.first + k);
        }
        med = std::move(rest);
    }

    // -- medium rows -----------------------------------------------------------
    // Longest first within each window (rows are in increasing order here).
    const auto window_then_longer = [&](int x, int y) {
        const int wx = opts.sort_window > 0 ? x / opts.sort_window : 0;
        const int wy = opts.sort_window > 0 ? y / opts.sort_window : 0;
        return wx != wy ? wx < wy : a.row_length(x) > a.row_length(y);
    };
    std::stable_sort(med.begin(), med.end(), window_then_longer);
    for (std::size_t i = 0; i < med.size();) {
        // A group spanning two windows is not sorted: bound the irregular part
        // of its longest row by its shortest one.
        const int first = a.row_length(med[i]);
        int longest = first, shortest = first;
        std::size_t j = i + 1;
        for (; j < med.size() && j - i < 8; ++j) {
            const int len = a.row_length(med[j]);
            if (std::max(longest, len) - 4 * (std::min(shortest, len) / 4) > opts.irregular_cap) break;
            longest = std::max(longest, len), shortest = std::min(shortest, len);
        }
        const bool cut = j - i < 8 && j < med.size();
        if (cut && 2 * first >= opts.long_piece) {
            f.long_rows.push_back(med[i]);  // a long row wastes less than half a piece
            ++i;
            continue;
        }
        for (std::size_t k = i; k < i + 8; ++k) f.med_rows.push_back(k < j ? med[k] : -1);
        i = j;
    }
    const int groups = static_cast<int>(f.med_rows.size() / 8);
    f.group_ptr.assign(static_cast<std::size_t>(groups) + 1, 0);
    f.irr_ptr.assign(f.med_rows.size() + 1, 0);
    long long reg_slots = 0, irr_total = 0;
    std::vector<int> width(static_cast<std::size_t>(groups));
    for (int gr = 0; gr < groups; ++gr) {
        int shortest = INT_MAX;
        for (int g = 0; g < 8; ++g) {
            const int r = f.med_rows[8 * gr + g];
            if (r >= 0) shortest = std::min(shortest, a.row_length(r));
        }
        width[gr] = 4 * (shortest / 4);
        reg_slots += 8LL * width[gr];
        detail::require_slots(reg_slots, where);
        f.group_ptr[gr + 1] = static_cast<int>(reg_slots);
        for (int g = 0; g < 8; ++g) {
            const int r = f.med_rows[8 * gr + g];
            irr_total += r >= 0 ? a.row_length(r) - width[gr] : 0;
            f.irr_ptr[8 * gr + g + 1] = static_cast<int>(irr_total);
        }
    }
    f.reg_val.assign(static_cast<std::size_t>(reg_slots), 0.0);
    f.reg_col.assign(static_cast<std::size_t>(reg_slots), -1);
    f.irr_val.resize(static_cast<std::size_t>(irr_total));
    f.irr_col.resize(static_cast<std::size_t>(irr_total));
    for (int gr = 0; gr < groups; ++gr)
        for (int g = 0; g < 8; ++g) {
            const int r = f.med_rows[8 * gr + g];
            if (r < 0) continue;
            const int begin = a.row_ptr[r];
            for (int e = 0; e < width[gr]; ++e) {  // entry e: 32-block e/4, slot 4g + e%4
                const std::size_t s = static_cast<std::size_t>(f.group_ptr[gr]) + 32 * (e / 4) + 4 * g + e % 4;
                f.reg_val[s] = a.values[begin + e];
                f.reg_col[s] = a.col_idx[begin + e];
            }
            int q = f.irr_ptr[8 * gr + g];
            for (int p = begin + width[gr]; p < a.row_ptr[r + 1]; ++p, ++q) {
                f.irr_val[q] = a.values[p];
                f.irr_col[q] = a.col_idx[p];
            }
        }

    // -- long rows -----------------------------------------------------------
    long long long_slots = 0;
    for (std::size_t i = 0; i < f.long_rows.size(); ++i) {
        const int len = a.row_length(f.long_rows[i]);
        const int pieces = (len + opts.long_piece - 1) / opts.long_piece;
        long_slots += static_cast<long long>(pieces) * opts.long_piece;
        detail::require_slots(long_slots, where);
        f.long_piece_ptr.push_back(f.long_piece_ptr.back() + pieces);
        for (int p = 0; p < pieces; ++p) f.piece_row.push_back(static_cast<int>(i));
    }
    f.long_val.assign(static_cast<std::size_t>(long_slots), 0.0);
    f.long_col.assign(static_cast<std::size_t>(long_slots), -1);
    for (std::size_t i = 0; i < f.long_rows.size(); ++i) {
        const int r = f.long_rows[i];
        const std::size_t base = static_cast<std::size_t>(f.long_piece_ptr[i]) * opts.long_piece;
        for (int p = a.row_ptr[r], s = 0; p < a.row_ptr[r + 1]; ++p, ++s) {
            f.long_val[base + s] = a.values[p];
            f.long_col[base + s] = a.col_idx[p];
        }
    }

    // -- bundle groups ---------------------------------------------------------------
    std::stable_sort(bundles.begin(), bundles.end(), window_then_longer);
    const int bgroups = static_cast<int>((bundles.size() + 7) / 8);
    f.bun_rows.assign(static_cast<std::size_t>(bgroups) * 8 * P, -1);
    f.bgroup_ptr.assign(static_cast<std::size_t>(bgroups) + 1, 0);
    f.birr_ptr.assign(f.bun_rows.size() + 1, 0);
    long long bslots = 0, birr_total = 0;
    std::vector<int> bwidth(static_cast<std::size_t>(bgroups));
    for (int gr = 0; gr < bgroups; ++gr) {
        int shortest = INT_MAX;
        for (int g = 0; g < 8; ++g) {
            const std::size_t i = 8 * static_cast<std::size_t>(gr) + g;
            if (i >= bundles.size()) continue;
            shortest = std::min(shortest, a.row_length(bundles[i]));
            for (int p = 0; p < P; ++p) f.bun_rows[i * P + p] = bundles[i] + p;
        }
        bwidth[gr] = 4 * (shortest / 4);
        bslots += 8LL * bwidth[gr];
        detail::require_slots(bslots * P, where);
        f.bgroup_ptr[gr + 1] = static_cast<int>(bslots);
        for (int g = 0; g < 8; ++g)
            for (int p = 0; p < P; ++p) {
                const std::size_t j = (8 * static_cast<std::size_t>(gr) + g) * P + p;
                const int r = f.bun_rows[j];
                birr_total += r >= 0 ? a.row_length(r) - bwidth[gr] : 0;
                f.birr_ptr[j + 1] = static_cast<int>(birr_total);
            }
    }
    f.bun_col.assign(static_cast<std::size_t>(bslots), -1);
    f.bun_val.assign(static_cast<std::size_t>(bslots) * P, 0.0);
    f.birr_val.resize(static_cast<std::size_t>(birr_total));
    f.birr_col.resize(static_cast<std::size_t>(birr_total));
    for (int gr = 0; gr < bgroups; ++gr)
        for (int g = 0; g < 8; ++g)
            for (int p = 0; p < P; ++p) {
                const std::size_t j = (8 * static_cast<std::size_t>(gr) + g) * P + p;
                const int r = f.bun_rows[j];
                if (r < 0) continue;
                const int begin = a.row_ptr[r];
                for (int e = 0; e < bwidth[gr]; ++e) {  // entry e: block e/4, slot 4g + e%4
                    const std::size_t blk = static_cast<std::size_t>(f.bgroup_ptr[gr]) + 32 * (e / 4);
                    f.bun_col[blk + 4 * g + e % 4] = a.col_idx[begin + e];
                    f.bun_val[blk * P + 32 * p + 4 * g + e % 4] = a.values[begin + e];
                }
                int q = f.birr_ptr[j];
                for (int pp = begin + bwidth[gr]; pp < a.row_ptr[r + 1]; ++pp, ++q) {
                    f.birr_val[q] = a.values[pp];
                    f.birr_col[q] = a.col_idx[pp];
                }
            }

    // -- short rows --------------------------------------------------------------
    // A line is a list of (row, length) segments filling at most 4 slots.
    struct line {
        int seg = 0;
        int row[4], len[4];
        void add(int r, int l) { row[seg] = r, len[seg] = l, ++seg; }
    };
    std::vector<line> lines[5];  // by segment count
    std::size_t i1 = 0, i2 = 0, i3 = 0;
    const std::vector<int>&s1 = shorts[1], &s2 = shorts[2], &s3 = shorts[3];
    for (const int r : shorts[4]) {
        line l;
        l.add(r, 4);
        lines[1].push_back(l);
    }
    for (; i3 < s3.size(); ++i3) {
        line l;
        l.add(s3[i3], 3);
        if (i1 < s1.size()) l.add(s1[i1++], 1);
        lines[l.seg].push_back(l);
    }
    for (; i2 + 1 < s2.size(); i2 += 2) {
        line l;
        l.add(s2[i2], 2);
        l.add(s2[i2 + 1], 2);
        lines[2].push_back(l);
    }
    if (i2 < s2.size()) {
        line l;
        l.add(s2[i2++], 2);
        for (int k = 0; k < 2 && i1 < s1.size(); ++k) l.add(s1[i1++], 1);
        lines[l.seg].push_back(l);
    }
    while (i1 < s1.size()) {
        line l;
        for (int k = 0; k < 4 && i1 < s1.size(); ++k) l.add(s1[i1++], 1);
        lines[l.seg].push_back(l);
    }
    std::vector<line> all;
    for (int s = 1; s <= 4; ++s) all.insert(all.end(), lines[s].begin(), lines[s].end());
    const int tiles = static_cast<int>((all.size() + 7) / 8);
    detail::require_slots(32LL * tiles, where);
    f.tile_mask.assign(static_cast<std::size_t>(tiles), 0u);
    f.tile_row_ptr.assign(static_cast<std::size_t>(tiles) + 1, 0);
    f.short_val.assign(static_cast<std::size_t>(tiles) * 32, 0.0);
    f.short_col.assign(static_cast<std::size_t>(tiles) * 32, -1);
    for (int tile = 0; tile < tiles; ++tile) {
        unsigned mask = 0;
        for (int g = 0; g < 8; ++g) {
            const std::size_t li = static_cast<std::size_t>(tile) * 8 + g;
            if (li >= all.size()) break;
            const line& l = all[li];
            int slot = 0;
            for (int s = 0; s < l.seg; ++s) {
                mask |= 1u << (4 * g + slot);
                f.short_rows.push_back(l.row[s]);
                for (int p = a.row_ptr[l.row[s]]; p < a.row_ptr[l.row[s] + 1]; ++p, ++slot) {
                    f.short_val[32 * static_cast<std::size_t>(tile) + 4 * g + slot] = a.values[p];
                    f.short_col[32 * static_cast<std::size_t>(tile) + 4 * g + slot] = a.col_idx[p];
                }
            }
        }
        f.tile_mask[tile] = mask;
        f.tile_row_ptr[tile + 1] = static_cast<int>(f.short_rows.size());
    }
    return f;
}

/// The CSR matrix a dasp_format holds (exact inverse of build_dasp).
inline csr dasp_to_csr(const dasp_format& f)
{
    std::vector<std::vector<std::pair<int, double>>> rows(static_cast<std::size_t>(f.rows));
    auto put = [&](int r, int c, double v) {
        if (r < 0 || r >= f.rows || c < 0 || c >= f.cols) require(false, "tcore::sparse::dasp_to_csr", "corrupt format");
        rows[r].push_back({c, v});
    };
    for_each_slab_entry(f.rows, f.slab_width, f.slab_val, f.slab_col, put);
    for (int i = 0; i < f.long_count(); ++i)
        for (long long s = static_cast<long long>(f.long_piece_ptr[i]) * f.opts.long_piece;
             s < static_cast<long long>(f.long_piece_ptr[i + 1]) * f.opts.long_piece; ++s)
            if (f.long_col[s] >= 0) put(f.long_rows[i], f.long_col[s], f.long_val[s]);
    for (int gr = 0; gr < f.group_count(); ++gr) {
        const int blocks = (f.group_ptr[gr + 1] - f.group_ptr[gr]) / 32;
        for (int g = 0; g < 8; ++g) {
            const int r = f.med_rows[8 * gr + g];
            if (r < 0) continue;
            for (int b = 0; b < blocks; ++b)
                for (int t = 0; t < 4; ++t) {
                    const std::size_t s = static_cast<std::size_t>(f.group_ptr[gr]) + 32 * b + 4 * g + t;
                    if (f.reg_col[s] >= 0) put(r, f.reg_col[s], f.reg_val[s]);
                }
            for (int q = f.irr_ptr[8 * gr + g]; q < f.irr_ptr[8 * gr + g + 1]; ++q) put(r, f.irr_col[q], f.irr_val[q]);
        }
    }
    const int P = f.bundle;
    for (int gr = 0; gr < f.bundle_group_count(); ++gr) {
        const int blocks = (f.bgroup_ptr[gr + 1] - f.bgroup_ptr[gr]) / 32;
        for (int g = 0; g < 8; ++g)
            for (int p = 0; p < P; ++p) {
                const std::size_t j = (8 * static_cast<std::size_t>(gr) + g) * P + p;
                const int r = f.bun_rows[j];
                if (r < 0) continue;
                for (int b = 0; b < blocks; ++b)
                    for (int t = 0; t < 4; ++t) {
                        const std::size_t blk = static_cast<std::size_t>(f.bgroup_ptr[gr]) + 32 * b;
                        if (f.bun_col[blk + 4 * g + t] >= 0)
                            put(r, f.bun_col[blk + 4 * g + t], f.bun_val[blk * P + 32 * p + 4 * g + t]);
                    }
                for (int q = f.birr_ptr[j]; q < f.birr_ptr[j + 1]; ++q) put(r, f.birr_col[q], f.birr_val[q]);
            }
    }
    for (int tile = 0; tile < f.tile_count(); ++tile) {
        const unsigned mask = f.tile_mask[tile];
        int out = f.tile_row_ptr[tile] - 1;
        for (int slot = 0; slot < 32; ++slot) {
            if (mask >> slot & 1u) ++out;
            if (f.short_col[32 * static_cast<std::size_t>(tile) + slot] < 0) continue;
            const unsigned line_started = mask & (0xFu << (slot & ~3)) & ((2u << slot) - 1u);  // a start at or before slot
            if (line_started == 0 || out < f.tile_row_ptr[tile] || out >= f.tile_row_ptr[tile + 1])
                require(false, "tcore::sparse::dasp_to_csr", "corrupt short tile");
            put(f.short_rows[out], f.short_col[32 * static_cast<std::size_t>(tile) + slot],
                f.short_val[32 * static_cast<std::size_t>(tile) + slot]);
        }
    }
    csr a;
    a.rows = f.rows;
    a.cols = f.cols;
    a.row_ptr.assign(static_cast<std::size_t>(f.rows) + 1, 0);
    for (int r = 0; r < f.rows; ++r) {
        std::sort(rows[r].begin(), rows[r].end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& [c, v] : rows[r]) {
            a.col_idx.push_back(c);
            a.values.push_back(v);
        }
        a.row_ptr[r + 1] = static_cast<int>(a.col_idx.size());
    }
    return a;
}

}  // namespace tcore::sparse
