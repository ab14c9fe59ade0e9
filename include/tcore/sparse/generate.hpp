// tcore/sparse/generate.hpp - deterministic sparse matrix generators that
// reproduce the structure classes of the Cubie SpMV/SpGEMM matrix set at any
// size (about 1e5 to 1e8 nonzeros through `target_nnz`, or an explicit
// geometry). The same (size, seed) gives the same matrix on every platform
// (splitmix64, no std:: distributions). Values are uniform in [-1, 1) and
// never zero; structure does not depend on the values.
//
//   fem3d         3D FEM-like, 3 unknowns per node (bcsstk39-like): nodes
//                 of an nx*ny*nz grid joined as in the Kuhn (Freudenthal)
//                 triangulation of the cubes (14 neighbours: +-e1, +-e2,
//                 +-e3, +-(e1+e2), +-(e1+e3), +-(e2+e3), +-(e1+e2+e3)),
//                 each node pair a dense 3x3 block; about 4% of the node
//                 pairs are dropped (symmetrically) so rows vary as in a
//                 real mesh. Interior rows have up to 45 entries.
//   lattice4d     4D periodic lattice, 12 unknowns per site (3 colours x 4
//                 spins), the hopping term of a Wilson-Dirac operator
//                 (conf5_4-8x8-10-like): each of the 6 spatial neighbours
//                 couples 2 spins x 3 colours, the time direction one spin x
//                 3 colours in one direction; 39 entries in every row.
//                 8^4 sites give 49,152 rows and 1,916,928 entries, the
//                 shape of conf5_4-8x8-10.
//   dense_blocks  dense 8x8 blocks (raefsky3-like): a 2D grid of block
//                 nodes with a 9-point stencil, about 3% of off-diagonal
//                 block pairs dropped; up to 72 entries per row.
//   banded        short banded rows (spmsrtls-like): 9 candidate diagonals
//                 (0, +-1, +-w, +-(w+1), +-2w), each off-diagonal present
//                 with probability 0.85: rows of 1 to 9 entries, mean ~7.8.
//   power_law     power-law row lengths (Pareto, alpha 2.5, at least 3
//                 entries, mean ~9) with uniformly random columns, plus 4
//                 very long rows of max(2000, nnz/64) entries each at random
//                 positions (the long-row class); square.
#pragma once

#include "../check.cuh"
#include "csr.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include "../infra/splitmix64.cuh"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tcore::sparse::gen {

/// splitmix64 (infra/splitmix64.cuh): the generators' only source of randomness.
using tcore::splitmix64;

/// A stateless hash of (a, b) under `seed`: uniform in [0, 1).
inline double hash_unit(std::uint64_t seed, std::uint64_t a, std::uint64_t b)
{
    splitmix64 h(seed ^ (a * 0xd6e8feb86659fd93ull) ^ (b * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull));
    h.next();
    return h.unit();
}

/// The structure classes.
enum class matrix_class { fem3d, lattice4d, dense_blocks, banded, power_law };

inline const char* class_name(matrix_class c)
{
    switch (c) {
    case matrix_class::fem3d: return "fem3d";
    case matrix_class::lattice4d: return "lattice4d";
    case matrix_class::dense_blocks: return "dense_blocks";
    case matrix_class::banded: return "banded";
    case matrix_class::power_law: return "power_law";
    }
    return "?";
}

inline const std::array<matrix_class, 5>& all_classes()
{
    static const std::array<matrix_class, 5> all = {matrix_class::fem3d, matrix_class::lattice4d,
                                                    matrix_class::dense_blocks, matrix_class::banded,
                                                    matrix_class::power_law};
    return all;
}

namespace detail {

/// Appends a row whose (unsorted, possibly repeated) columns are in `cols`:
/// sorted, duplicates merged (values summed), values drawn from `rng`.
inline void push_row(csr& a, std::vector<int>& cols, splitmix64& rng)
{
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (const int c : cols) {
        a.col_idx.push_back(c);
        a.values.push_back(rng.value());
    }
    if (a.col_idx.size() > static_cast<std::size_t>(INT_MAX))
        require(false, "tcore::sparse::gen", "the matrix would have more than 2^31 - 1 nonzeros");
    a.row_ptr.push_back(static_cast<int>(a.col_idx.size()));
}

inline void start(csr& a, long long rows, long long cols, long long nnz_guess, const char* where)
{
    require(rows >= 0 && cols >= 0 && rows <= INT_MAX && cols <= INT_MAX, where,
            "dimensions " + std::to_string(rows) + " x " + std::to_string(cols) + " do not fit 32-bit indices");
    require(nnz_guess <= INT_MAX, where, "about " + std::to_string(nnz_guess) + " nonzeros do not fit 32-bit indices");
    a = csr{};
    a.rows = static_cast<int>(rows);
    a.cols = static_cast<int>(cols);
    a.row_ptr.reserve(static_cast<std::size_t>(rows) + 1);
    a.col_idx.reserve(static_cast<std::size_t>(std::max(0LL, nnz_guess)));
    a.values.reserve(static_cast<std::size_t>(std::max(0LL, nnz_guess)));
}

inline int at_least(long long v, int lo) { return static_cast<int>(std::max<long long>(v, lo)); }

/// Sets `cols` to `want` distinct columns in [0, n) (want <= n), sorted.
inline void pick_distinct(int n, int want, splitmix64& rng, std::vector<int>& cols, std::vector<int>& scratch)
{
    cols.clear();
    if (static_cast<long long>(want) * 4 >= n) {
        // Dense-ish: a partial Fisher-Yates shuffle of 0..n-1.
        scratch.resize(static_cast<std::size_t>(n));
        for (int c = 0; c < n; ++c) scratch[c] = c;
        for (int i = 0; i < want; ++i) {
            const int j = i + static_cast<int>(rng.below(static_cast<std::uint64_t>(n - i)));
            std::swap(scratch[i], scratch[j]);
        }
        cols.assign(scratch.begin(), scratch.begin() + want);
        std::sort(cols.begin(), cols.end());
        return;
    }
    while (static_cast<int>(cols.size()) < want) {
        while (static_cast<int>(cols.size()) < want)
            cols.push_back(static_cast<int>(rng.below(static_cast<std::uint64_t>(n))));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    }
}

}  // namespace detail

// -- fem3d ---------------------------------------------------------------------

/// 3D FEM-like matrix on an nx x ny x nz node grid, 3 unknowns per node.
inline csr fem3d_grid(int nx, int ny, int nz, std::uint64_t seed)
{
    const char* where = "tcore::sparse::gen::fem3d_grid";
    require(nx >= 1 && ny >= 1 && nz >= 1, where, "grid dimensions must be positive");
    const long long nodes = static_cast<long long>(nx) * ny * nz;
    csr a;
    detail::start(a, 3 * nodes, 3 * nodes, 3 * nodes * 45, where);
    static const int off[15][3] = {{0, 0, 0},  {1, 0, 0},  {-1, 0, 0},  {0, 1, 0},   {0, -1, 0},
                                   {0, 0, 1},  {0, 0, -1}, {1, 1, 0},   {-1, -1, 0}, {1, 0, 1},
                                   {-1, 0, -1}, {0, 1, 1}, {0, -1, -1}, {1, 1, 1},   {-1, -1, -1}};
    splitmix64 rng(seed);
    std::vector<int> cols;
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                const long long node = (static_cast<long long>(z) * ny + y) * nx + x;
                std::vector<long long> nbrs;
                for (const auto& o : off) {
                    const int xx = x + o[0], yy = y + o[1], zz = z + o[2];
                    if (xx < 0 || yy < 0 || zz < 0 || xx >= nx || yy >= ny || zz >= nz) continue;
                    const long long other = (static_cast<long long>(zz) * ny + yy) * nx + xx;
                    // Drop ~4% of the node pairs, the same decision from both ends.
                    if (other != node &&
                        hash_unit(seed, std::min(node, other), std::max(node, other)) < 0.04)
                        continue;
                    nbrs.push_back(other);
                }
                for (int dof = 0; dof < 3; ++dof) {
                    cols.clear();
                    for (const long long n : nbrs)
                        for (int d = 0; d < 3; ++d) cols.push_back(static_cast<int>(3 * n + d));
                    detail::push_row(a, cols, rng);
                }
            }
    return a;
}

/// fem3d with about `target_nnz` entries (a cube-like grid, ~128 per node).
inline csr fem3d(long long target_nnz, std::uint64_t seed)
{
    const double nodes = std::max(1.0, static_cast<double>(target_nnz) / 128.0);
    const int n = detail::at_least(std::llround(std::cbrt(nodes)), 1);
    const int nz = detail::at_least(std::llround(nodes / (static_cast<double>(n) * n)), 1);
    return fem3d_grid(n, n, nz, seed);
}

// -- lattice4d -------------------------------------------------------------------

/// 4D periodic lattice of l0 x l1 x l2 x l3 sites (each >= 3), 12 unknowns per site.
inline csr lattice4d_grid(int l0, int l1, int l2, int l3, std::uint64_t seed)
{
    const char* where = "tcore::sparse::gen::lattice4d_grid";
    require(l0 >= 3 && l1 >= 3 && l2 >= 3 && l3 >= 3, where,
            "every lattice extent must be at least 3 (periodic neighbours must differ)");
    const int L[4] = {l0, l1, l2, l3};
    const long long sites = static_cast<long long>(l0) * l1 * l2 * l3;
    csr a;
    detail::start(a, 12 * sites, 12 * sites, 12 * sites * 39, where);
    // Spin pairs coupled by the projector 1 -+ gamma_mu (chiral basis) for
    // the spatial directions; the time direction (Dirac basis) is diagonal.
    static const int partner[3][4] = {{3, 2, 1, 0}, {3, 2, 1, 0}, {2, 3, 0, 1}};
    splitmix64 rng(seed);
    std::vector<int> cols;
    long long coord[4];
    for (long long s = 0; s < sites; ++s) {
        long long rest = s;
        for (int mu = 0; mu < 4; ++mu) {
            coord[mu] = rest % L[mu];
            rest /= L[mu];
        }
        auto neighbour = [&](int mu, int step) {
            long long c[4] = {coord[0], coord[1], coord[2], coord[3]};
            c[mu] = (c[mu] + step + L[mu]) % L[mu];
            return ((c[3] * L[2] + c[2]) * L[1] + c[1]) * L[0] + c[0];
        };
        for (int spin = 0; spin < 4; ++spin)
            for (int colour = 0; colour < 3; ++colour) {
                (void)colour;
                cols.clear();
                for (int mu = 0; mu < 3; ++mu)
                    for (const int step : {-1, 1}) {
                        const long long n = neighbour(mu, step);
                        for (const int sp : {spin, partner[mu][spin]})
                            for (int c = 0; c < 3; ++c) cols.push_back(static_cast<int>(12 * n + 3 * sp + c));
                    }
                const long long n = neighbour(3, spin < 2 ? 1 : -1);
                for (int c = 0; c < 3; ++c) cols.push_back(static_cast<int>(12 * n + 3 * spin + c));
                detail::push_row(a, cols, rng);
            }
    }
    return a;
}

/// lattice4d with about `target_nnz` entries (468 per site).
inline csr lattice4d(long long target_nnz, std::uint64_t seed)
{
    const double sites = std::max(81.0, static_cast<double>(target_nnz) / 468.0);
    const int l = detail::at_least(std::llround(std::pow(sites, 0.25)), 3);
    const int l3 = detail::at_least(std::llround(sites / (static_cast<double>(l) * l * l)), 3);
    return lattice4d_grid(l, l, l, l3, seed);
}

// -- dense_blocks ------------------------------------------------------------------

/// px x py block nodes, `block` x `block` dense blocks, 9-point block stencil.
inline csr dense_blocks_grid(int px, int py, int block, std::uint64_t seed)
{
    const char* where = "tcore::sparse::gen::dense_blocks_grid";
    require(px >= 1 && py >= 1 && block >= 1, where, "grid and block sizes must be positive");
    const long long nodes = static_cast<long long>(px) * py;
    csr a;
    detail::start(a, block * nodes, block * nodes, block * nodes * 9 * block, where);
    splitmix64 rng(seed);
    std::vector<int> cols;
    for (int y = 0; y < py; ++y)
        for (int x = 0; x < px; ++x) {
            const long long node = static_cast<long long>(y) * px + x;
            std::vector<long long> nbrs;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int xx = x + dx, yy = y + dy;
                    if (xx < 0 || yy < 0 || xx >= px || yy >= py) continue;
                    const long long other = static_cast<long long>(yy) * px + xx;
                    if (other != node && hash_unit(seed, std::min(node, other), std::max(node, other)) < 0.03)
                        continue;
                    nbrs.push_back(other);
                }
            for (int r = 0; r < block; ++r) {
                cols.clear();
                for (const long long n : nbrs)
                    for (int d = 0; d < block; ++d) cols.push_back(static_cast<int>(block * n + d));
                detail::push_row(a, cols, rng);
            }
        }
    return a;
}

/// dense_blocks (8x8) with about `target_nnz` entries (~560 per block node).
inline csr dense_blocks(long long target_nnz, std::uint64_t seed)
{
    const double nodes = std::max(1.0, static_cast<double>(target_nnz) / 560.0);
    const int px = detail::at_least(std::llround(std::sqrt(nodes)), 1);
    const int py = detail::at_least(std::llround(nodes / px), 1);
    return dense_blocks_grid(px, py, 8, seed);
}

// -- banded --------------------------------------------------------------------

/// n x n with the 9 candidate diagonals 0, +-1, +-w, +-(w+1), +-2w.
inline csr banded_n(int n, int w, std::uint64_t seed)
{
    const char* where = "tcore::sparse::gen::banded_n";
    require(n >= 0 && w >= 2, where, "n must be non-negative and the band step w at least 2");
    csr a;
    detail::start(a, n, n, 8LL * n, where);
    splitmix64 rng(seed);
    const long long offs[9] = {-2LL * w, -w - 1LL, -w, -1, 0, 1, w, w + 1LL, 2LL * w};
    std::vector<int> cols;
    for (int r = 0; r < n; ++r) {
        cols.clear();
        for (const long long o : offs) {
            const long long c = r + o;
            if (c < 0 || c >= n) continue;
            if (o != 0 && rng.unit() >= 0.85) continue;
            cols.push_back(static_cast<int>(c));
        }
        detail::push_row(a, cols, rng);
    }
    return a;
}

/// banded with about `target_nnz` entries (w = 64).
inline csr banded(long long target_nnz, std::uint64_t seed)
{
    const long long n = std::max(1LL, std::llround(static_cast<double>(target_nnz) / 7.8));
    require(n <= INT_MAX, "tcore::sparse::gen::banded", "too many rows for 32-bit indices");
    return banded_n(static_cast<int>(n), 64, seed);
}

// -- power_law -------------------------------------------------------------------

/// n x n, Pareto row lengths (alpha 2.5, at least 3, at most n), `long_rows`
/// rows of `long_len` entries at random positions, uniformly random columns.
inline csr power_law_n(int n, int long_rows, int long_len, std::uint64_t seed)
{
    const char* where = "tcore::sparse::gen::power_law_n";
    require(n >= 1 && long_rows >= 0 && long_len >= 0, where, "n must be positive, long rows non-negative");
    splitmix64 rng(seed);
    std::vector<int> len(static_cast<std::size_t>(n));
    long long total = 0;
    for (int r = 0; r < n; ++r) {
        const double u = 1.0 - rng.unit();  // (0, 1]
        const double l = 3.0 * std::pow(u, -1.0 / 1.5);
        len[r] = static_cast<int>(std::min<double>(std::floor(l), std::min(n, 1 << 20)));
        total += len[r];
    }
    for (int i = 0; i < long_rows; ++i) {
        const int r = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
        total += std::min(long_len, n) - len[r];
        len[r] = std::min(long_len, n);
    }
    csr a;
    detail::start(a, n, n, total, where);
    std::vector<int> cols, scratch;
    for (int r = 0; r < n; ++r) {
        detail::pick_distinct(n, len[r], rng, cols, scratch);
        detail::push_row(a, cols, rng);
    }
    return a;
}

/// power_law with about `target_nnz` entries: 4 long rows of max(2000, nnz/64).
inline csr power_law(long long target_nnz, std::uint64_t seed)
{
    const long long long_len = std::max(2000LL, target_nnz / 64);
    const long long rest = std::max(1000LL, target_nnz - 4 * long_len);
    const long long n = std::max(std::llround(static_cast<double>(rest) / 8.6), long_len);
    require(n <= INT_MAX, "tcore::sparse::gen::power_law", "too many rows for 32-bit indices");
    return power_law_n(static_cast<int>(n), 4, static_cast<int>(long_len), seed);
}

/// The generator of class `c` with about `target_nnz` entries.
inline csr generate(matrix_class c, long long target_nnz, std::uint64_t seed)
{
    require(target_nnz >= 0, "tcore::sparse::gen::generate", "negative target size");
    switch (c) {
    case matrix_class::fem3d: return fem3d(target_nnz, seed);
    case matrix_class::lattice4d: return lattice4d(target_nnz, seed);
    case matrix_class::dense_blocks: return dense_blocks(target_nnz, seed);
    case matrix_class::banded: return banded(target_nnz, seed);
    case matrix_class::power_law: return power_law(target_nnz, seed);
    }
    throw error("tcore::sparse::gen::generate: unknown matrix class");
}

/// A random m x n matrix for tests: each row's length drawn uniformly from
/// [min_len, max_len] (clamped to n), distinct random columns.
inline csr random_rows(int m, int n, int min_len, int max_len, std::uint64_t seed)
{
    const char* where = "tcore::sparse::gen::random_rows";
    require(m >= 0 && n >= 0 && min_len >= 0 && max_len >= min_len, where, "bad sizes");
    csr a;
    detail::start(a, m, n, static_cast<long long>(m) * std::min(max_len, n), where);
    splitmix64 rng(seed);
    std::vector<int> cols, scratch;
    for (int r = 0; r < m; ++r) {
        const int want =
            std::min(n, min_len + static_cast<int>(rng.below(static_cast<std::uint64_t>(max_len - min_len) + 1)));
        detail::pick_distinct(n, want, rng, cols, scratch);
        detail::push_row(a, cols, rng);
    }
    return a;
}

}  // namespace tcore::sparse::gen
