// examples/multi_gpu/stencil_mgpu_slab.hpp - the slab decomposition of the
// multi-GPU stencil (host arithmetic only, no CUDA): which layers (rows of
// a 2D grid, planes of a 3D grid) each rank owns, the ghost layers it keeps
// around them, and the sub-grids on which stencil_apply runs so that the
// owned layers come out exactly as in one run on the whole grid.
//
// Layers. The grid is cut along its slowest dimension (y in 2D, z in 3D)
// into `ranks` slabs of n / ranks layers, the first n % ranks slabs one
// more. A rank's local grid is its owned layers with `depth` = r t ghost
// layers on each side that has a neighbour (t fused steps of radius r reach
// r t layers), in "extended" layer numbers e = 0 .. ext_layers() - 1: ghost
// layers [0, ghost_lo), owned [ghost_lo, ghost_lo + count), ghost layers
// above. Dirichlet: the first slab's lower side and the last slab's upper
// side are the grid's border (no ghost: the array's own halo of r layers is
// there), and every local array carries the halo of r layers on both ends,
// as stencil_apply's Dirichlet arrays do (array layer = e + r); between
// slabs those r layers beyond the ghosts only feed ghost layers and are
// never exchanged. Periodic: every side has a neighbour when ranks >= 2 (the
// first and last slab are neighbours); the array is the extended grid.
//
// Why it is exact. stencil_apply computes each point with an arithmetic
// that depends on the point's x position in its tile (the MMA column) but
// not on its y (2D) or z (3D) position: MMA rows are independent, cce sums
// in (dz, dy, dx) order everywhere. Cutting along the slowest dimension
// keeps the x (and y) tiling, so a layer computed from the same inputs
// gives the same bits. A sub-grid run is Dirichlet or periodic in the cut
// dimension, i.e. wrong near its ends: a Dirichlet sub-grid holds its r
// halo layers fixed, so after t steps its (t-1) r layers next to a fake
// border are wrong; a periodic sub-grid wraps, so its r t layers next to
// either end are wrong. Each sub-grid below keeps only layers out of reach
// of its ends, read from layers that hold true values.
//
// Plans (layers e of the extended grid):
//   whole slab     one sub-grid [0, ext_layers()), keeps the owned layers
//                  (after the exchange);
//   overlapped     interior: the owned layers alone (no ghost needed),
//                  keeps those r t or more from a neighbour's side;
//                  boundary strips, one per side with a neighbour (after the
//                  exchange): keep the r t owned layers next to the ghosts.
// The interior writes garbage into the strips' layers; the strips write
// into scratch arrays, whose kept layers are copied over the interior's
// output afterwards.
#pragma once

#include <tcore/check.cuh>
#include <tcore/patterns/stencil.cuh>

#include <string>
#include <vector>

namespace tcore::mgpu {

/// One rank's slab of a grid of `n` layers along the cut dimension.
struct slab_layout {
    int rank = 0, ranks = 1;
    long long n = 0;            ///< layers of the whole grid
    long long begin = 0;        ///< first owned layer (grid numbering)
    long long count = 0;        ///< owned layers
    int depth = 0;              ///< ghost layers per side: r t
    int halo = 0;               ///< array halo layers per end: r (Dirichlet) or 0 (periodic)
    int ghost_lo = 0, ghost_hi = 0;  ///< ghost layers kept below / above (0 or depth)
    boundary bc = boundary::dirichlet;

    long long ext_layers() const { return ghost_lo + count + ghost_hi; }
    long long array_layers() const { return ext_layers() + 2 * halo; }
    /// Grid layer (0 .. n-1; Dirichlet: may be -halo .. n-1+halo, the array's
    /// halo) that extended layer e holds.
    long long grid_layer(long long e) const
    {
        long long g = begin - ghost_lo + e;
        if (bc == boundary::periodic) g = ((g % n) + n) % n;
        return g;
    }
    int prev() const { return (rank + ranks - 1) % ranks; }
    int next() const { return (rank + 1) % ranks; }
};

/// Layers owned by `rank` of `ranks` out of `n`: n / ranks, the first n % ranks one more.
inline long long slab_begin(long long n, int ranks, int rank)
{
    const long long q = n / ranks, rem = n % ranks;
    return rank * q + (rank < rem ? rank : rem);
}

/// Checks a decomposition (throws tcore::error with the reason): every slab
/// must hold at least `depth` layers, so that its ghosts come from its
/// neighbours alone.
inline void require_slabs(long long n, int ranks, int radius, int steps, const char* where)
{
    require(ranks >= 1, where, "ranks must be >= 1 (got " + std::to_string(ranks) + ")");
    require(steps >= 1, where, "steps must be >= 1 (got " + std::to_string(steps) + ")");
    require(n >= 1, where, "the cut dimension must have at least 1 layer (got " + std::to_string(n) + ")");
    const long long depth = static_cast<long long>(radius) * steps;
    const long long smallest = n / ranks;
    require(ranks == 1 || smallest >= depth, where,
            "the grid's " + std::to_string(n) + " layers along the cut dimension give " + std::to_string(ranks) +
                " slabs of " + std::to_string(smallest) + " or more, fewer than the halo depth r*t = " +
                std::to_string(depth) + " (need at least ranks * r * t = " + std::to_string(ranks * depth) +
                " layers)");
}

inline slab_layout make_slab(long long n, int ranks, int rank, int radius, int steps, boundary bc)
{
    require_slabs(n, ranks, radius, steps, "make_slab");
    require(rank >= 0 && rank < ranks, "make_slab",
            "rank " + std::to_string(rank) + " outside 0.." + std::to_string(ranks - 1));
    slab_layout s;
    s.rank = rank;
    s.ranks = ranks;
    s.n = n;
    s.bc = bc;
    s.begin = slab_begin(n, ranks, rank);
    s.count = slab_begin(n, ranks, rank + 1) - s.begin;
    s.depth = radius * steps;
    s.halo = stencil_halo(bc, radius);
    if (ranks > 1) {
        const bool periodic = bc == boundary::periodic;
        s.ghost_lo = periodic || rank > 0 ? s.depth : 0;
        s.ghost_hi = periodic || rank < ranks - 1 ? s.depth : 0;
    }
    return s;
}

/// One stencil_apply on a sub-grid of a slab: its interior layers are
/// extended layers [grid_lo, grid_hi) (Dirichlet: its halo the r layers on
/// either side, which must lie in the local array); the layers
/// [keep_lo, keep_hi) of its result are exact. The sub-grid's array starts
/// at local array layer grid_lo (= grid_lo - halo + halo).
struct subgrid {
    long long grid_lo = 0, grid_hi = 0;
    long long keep_lo = 0, keep_hi = 0;
    long long layers() const { return grid_hi - grid_lo; }
    /// Layers of the sub-grid's own array (its halo included).
    long long array_layers(int halo) const { return layers() + 2 * halo; }
    bool empty() const { return keep_hi <= keep_lo; }
};

/// The whole-slab plan: one sub-grid over the extended grid (ghosts filled first).
inline subgrid whole_slab(const slab_layout& s)
{
    return {0, s.ext_layers(), s.ghost_lo, s.ghost_lo + s.count};
}

/// The overlapped plan of a slab: the interior (owned layers only) and a
/// boundary strip per side with a neighbour.
struct overlap_plan {
    bool usable = false;  ///< false: the slab is too thin (use whole_slab)
    subgrid interior;
    bool has_lo = false, has_hi = false;
    subgrid lo, hi;  ///< the strips next to the lower / upper ghosts
};

/// Needs count >= 2 r t + 1 where the slab has neighbours (else usable = false).
inline overlap_plan make_overlap_plan(const slab_layout& s, int radius)
{
    overlap_plan p;
    const long long h = s.depth, r = radius, gl = s.ghost_lo, c = s.count, L = s.ext_layers();
    const bool sides = s.ghost_lo > 0 || s.ghost_hi > 0;
    if (sides && c < 2 * h + 1) return p;
    p.usable = true;
    p.has_lo = s.ghost_lo > 0;
    p.has_hi = s.ghost_hi > 0;
    p.interior.keep_lo = gl + (p.has_lo ? h : 0);
    p.interior.keep_hi = gl + c - (p.has_hi ? h : 0);
    if (s.bc == boundary::dirichlet) {
        // halo r layers held fixed: (t-1) r wrong layers next to each fake border
        p.interior.grid_lo = p.has_lo ? gl + r : 0;
        p.interior.grid_hi = p.has_hi ? gl + c - r : L;
        if (p.has_lo) p.lo = {gl - h + r, gl + 2 * h - r, gl, gl + h};
        if (p.has_hi) p.hi = {gl + c - 2 * h + r, L - r, gl + c - h, gl + c};
    } else {
        // wrapped: r t wrong layers next to each end
        p.interior.grid_lo = p.has_lo ? gl : 0;
        p.interior.grid_hi = p.has_hi ? gl + c : L;
        if (p.has_lo) p.lo = {gl - h, gl + 2 * h, gl, gl + h};
        if (p.has_hi) p.hi = {gl + c - 2 * h, gl + c + h, gl + c - h, gl + c};
    }
    return p;
}

}  // namespace tcore::mgpu
