// tcore/patterns/device/stencil.cuh - iterative FP64 stencils with temporal
// blocking: t steps fused per launch, the data staged in shared memory.
//
//   stencil_apply<S, Backend, T, BC>(in, out, grid, weights, stream)
//     out = T steps of stencil S applied to in (out-of-place; in is not
//     changed). Backend: tcore::tensor_core / tcore::cuda_core (the MMA
//     layout of stencil.cuh on that backend: the `tc` and `cc` variants).
//   stencil_launch_tiled<S, Backend, T, BC>, stencil_launch_tiled2d<S, Backend, T,
//     BC, C>: the tiled kernels with Backend tensor_core, cuda_core or a
//     caller's strip step (its interface: stencil_tile.cuh), the extension
//     point of the benchmark's CUDA-core opponent
//     (examples/stencil/stencil_cce.cuh: its own configuration C, its own
//     t = 1 and warp streaming kernels).
//
// 2D: overlapped tiles. A block owns TX x TY outputs (64x64, 32x32 for
// large halos), loads the (TX+2tr) x (TY+2tr) region around them once
// (cp.async, zero-filled outside the array, wrapped for periodic grids),
// computes steps 1..t in shared memory, each on a region r smaller on every
// side, and writes step t to global memory. Blocks are persistent and
// prefetch the next tile's region while computing the current one (two
// input buffers, plus one work buffer for t >= 2; step s ping-pongs between
// the work buffer and the tile's own input buffer).
//
// 3D: the same XY tiling, streamed along z (2.5D blocking, as in AN5D /
// EBISU): per stage s = 0..t-1 a ring of 2r+1 planes (the input ring one or
// two planes deeper for prefetching); at each z step one plane is loaded
// and every stage computes one plane, r planes behind the stage before.
// Long z ranges are split into chunks (each re-reading t*r planes of halo on
// both ends) where that shortens the run: stencil_zchunk weighs the waves of
// work items against the planes each item streams.
//
// Loads: regions are copied as 16-byte column pairs (cp.async.cg, no L1
// allocation) where the arrays allow it (stencil_pair_loads_apply: Dirichlet, even
// row pitch, 16-byte aligned input, even (t-1)r) and, in the tiled
// kernels, where that measured faster (stencil_tiled_pair_loads), else 8 bytes at
// a time.
// Work order: the persistent blocks of the 2D kernels (and of the cce
// t = 1 kernels of examples/stencil) take their items from a ticket counter (work_tickets.cuh), so the
// items in progress stay a compact window: faster blocks take more, and
// the halo rows of neighbouring tiles, read close in time, come from L2.
// In grid-stride order (each block its own fixed list) the blocks drift
// apart: halo rows are fetched from DRAM again once L2 has dropped them,
// so the kernels read more than the grid holds, and the SMs idle at the
// end while the slowest blocks finish; tickets bring the reads down to the
// grid's footprint (profiles and rates: examples/stencil/README.md).
// The 3D tiled kernel keeps grid-stride items. Blocks: min(items,
// resident) (stencil_balanced_blocks gives grid-stride blocks as many
// rounds each).
//
// MMA methods, 2D: the final step's 16x8 fragments are staged in shared
// memory and written out as whole tile rows (the fragments' scattered 16-
// byte row pieces had held tc and cc far below the copy bandwidth at t = 1).
//
// Work inside a step: `tc`/`cc` cover the step's region with 16x8 blocks
// (the last block in a row or column shifted back to end at the region's
// edge and writing only what the previous block did not), one warp per
// block, A gathered from the tile; a strip step gives each thread one
// column of a strip of rows (the cce of examples/stencil slides a register
// window down the strip and keeps the weights in the kernel's constant
// bank).
//
// Boundary: Dirichlet points of the halo are copied into every step's
// buffer, so intermediate steps see the fixed values; periodic tiles load
// wrapped indices, so every position is an interior point. Any grid size
// works (tails, grids smaller than a tile).
//
// Shared memory: row pitch p = the region width rounded up to p % 8 == 4
// (conflict-free 8-byte A gathers: lanes g = 0..3 of a half-warp hit word
// offsets {0, 12, 8, 4} (+t) modulo 16).
//
// The kernels are in device/stencil_tiled.cuh (2D and 3D tiled); the tile
// building blocks in stencil_tile.cuh. This header holds the launchers:
// stencil_apply, stencil_launch_* for one kernel with a given configuration
// and work order (stencil_schedule), and, for a caller's own launcher,
// stencil_require_arguments (stencil_apply's checks) and
// stencil_prepare_kernel (shared-memory limit and resident blocks).
#pragma once

#include "../../check.cuh"
#include "../../infra/launch.cuh"
#include "../../infra/work_tickets.cuh"
#include "stencil_tiled.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>

namespace tcore {

/// Resident blocks per SM of `kernel` with `smem` bytes of dynamic shared
/// memory (sets the kernel's shared-memory limit first), cached per device
/// and per Tag (one Tag type per kernel). Throws tcore::error where the
/// device cannot hold the block.
template <class Tag, class Kernel>
inline int stencil_prepare_kernel(Kernel kernel, std::size_t smem, int threads)
{
    static int cached[64] = {};
    return cached_per_device(cached, [&](int dev) {
        int optin = 0;
        TCORE_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        require(smem <= static_cast<std::size_t>(optin), "stencil_apply",
                "the tile needs " + std::to_string(smem) + " bytes of shared memory, the device allows " +
                    std::to_string(optin) + " per block (use a smaller T)");
        TCORE_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
        int blocks = 0;
        TCORE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem));
        require(blocks > 0, "stencil_apply", "the kernel cannot be resident on this device");
        return blocks;
    });
}

namespace detail {

template <class S, class Backend, int T, boundary BC, class C>
struct stencil_kernel_tag {};

}  // namespace detail

/// z planes per work item of the 3D kernel: a block streams zc planes plus
/// 2*halo planes of pipeline fill, and the items run in waves of `resident`
/// blocks, so the time is about ceil(items / resident) * (zc + 2 halo).
/// Picks the zc (largest of equals) that minimises it.
inline long long stencil_zchunk(long long nz, long long tiles, long long resident, int halo)
{
    long long best = nz, best_cost = -1;
    const long long lo = nz < 8 ? nz : 8;
    for (long long zc = nz; zc >= lo; --zc) {
        const long long items = tiles * tcore::ceil_div(nz, zc);
        const long long cost = tcore::ceil_div(items, resident) * (zc + 2 * halo);
        if (best_cost < 0 || cost < best_cost) best = zc, best_cost = cost;
    }
    return best;
}

/// The kernel arguments every launch shares: arrays, grid and extents, weights.
template <class S, boundary BC>
stencil_args<S> stencil_grid_args(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w)
{
    const stencil_extent e = stencil_array_extent<S>(grid, BC);
    stencil_args<S> a{};
    a.in = in;
    a.out = out;
    a.nx = grid.nx;
    a.ny = grid.ny;
    a.nz = S::dims == 3 ? grid.nz : 1;
    a.ex = e.ex;
    a.ey = e.ey;
    a.w = w;
    return a;
}

/// Persistent blocks for `items` work items with at most `resident` at a
/// time: as few as still take ceil(items / resident) rounds, so that every
/// block does the same number of items (to one) and the last round is not
/// left to a fraction of the blocks.
inline long long stencil_balanced_blocks(long long items, long long resident)
{
    const long long rounds = tcore::ceil_div(items, resident);
    return tcore::ceil_div(items, rounds);
}

/// May the kernels load regions as 16-byte column pairs? Dirichlet arrays
/// with an even row pitch and a 16-byte aligned input, and a region whose
/// column 0 is an even array column: tiles start at even x (the tile widths
/// are even), so (halo - r) = (t - 1) r must be even.
template <class S, boundary BC>
inline bool stencil_pair_loads_apply(const stencil_args<S>& a, int steps)
{
    return BC == boundary::dirichlet && (steps - 1) * S::radius % 2 == 0 && a.ex % 2 == 0 &&
           tcore::aligned(a.in, 16);
}

/// How persistent kernels hand out work items (the 2D tiled kernel; the
/// cce t = 1 kernels of examples/stencil): taken in order from the stream's
/// ticket counter (work_tickets.cuh), or in grid-stride order; zchunk > 0
/// fixes the z planes per item of a 3D kernel that streams z chunks.
struct stencil_schedule {
    bool tickets = true;
    long long zchunk = 0;
};

/// Launches the 2D tiled kernel with configuration C and work order `sched`;
/// Backend tensor_core, cuda_core or a strip step (stencil_tile.cuh). Does
/// not check its arguments: give it only what stencil_apply accepts.
template <class S, class Backend, int T, boundary BC, class C = stencil_tiled2d_default<S, T, Backend>>
void stencil_launch_tiled2d(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                            cudaStream_t stream, stencil_schedule sched = {})
{
    using G = typename C::geometry;
    stencil_args<S> a = stencil_grid_args<S, BC>(in, out, grid, w);
    a.pair_loads = C::pairs && stencil_pair_loads_apply<S, BC>(a, T);
    auto kernel = detail::stencil2d_kernel<S, Backend, T, BC, C>;
    const int per_sm = stencil_prepare_kernel<detail::stencil_kernel_tag<S, Backend, T, BC, C>>(
        kernel, C::smem_bytes, C::threads);
    a.tiles_x = tcore::ceil_div(grid.nx, G::tile_x);
    a.tiles_y = tcore::ceil_div(grid.ny, G::tile_y);
    a.zchunk = 1;
    a.zchunks = 1;
    a.items = a.tiles_x * a.tiles_y;
    // min(items, resident), not stencil_balanced_blocks: at 4096^2 with 64x64 tiles
    // the latter's block count can come out at twice the tiles per row (so
    // that each block keeps one tile column), which ran star2d3r t = 3
    // markedly slower than min(items, resident) (examples/stencil/README.md).
    const long long blocks = std::min<long long>(a.items, static_cast<long long>(tcore::sm_count()) * per_sm);
    if (sched.tickets) a.tickets = stream_tickets(stream);
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
}

/// Launches the 2D or 3D tiled kernel with the default configuration;
/// Backend as stencil_launch_tiled2d's. Does not check its arguments: give
/// it only what stencil_apply accepts.
template <class S, class Backend, int T, boundary BC>
void stencil_launch_tiled(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                          cudaStream_t stream)
{
    if constexpr (S::dims == 2) {
        stencil_launch_tiled2d<S, Backend, T, BC>(in, out, grid, w, stream);
    } else {
        stencil_args<S> a = stencil_grid_args<S, BC>(in, out, grid, w);
        a.pair_loads = stencil_tiled_pair_loads<S, T>() && stencil_pair_loads_apply<S, BC>(a, T);
        const int sms = tcore::sm_count();
        using C = stencil_tiled3d_default<S, T>;
        using G = typename C::geometry;
        auto kernel = detail::stencil3d_kernel<S, Backend, T, BC>;
        const int per_sm = stencil_prepare_kernel<detail::stencil_kernel_tag<S, Backend, T, BC, C>>(
            kernel, C::smem_bytes, C::threads);
        a.tiles_x = tcore::ceil_div(grid.nx, G::tile_x);
        a.tiles_y = tcore::ceil_div(grid.ny, G::tile_y);
        const long long tiles = a.tiles_x * a.tiles_y;
        const long long resident = static_cast<long long>(sms) * per_sm;
        a.zchunk = stencil_zchunk(a.nz, tiles, resident, T * S::radius);
        a.zchunks = tcore::ceil_div(a.nz, a.zchunk);
        a.items = tiles * a.zchunks;
        const long long blocks = std::min<long long>(a.items, resident);
        kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
    }
}

/// Shared memory (bytes) one block of the tiled kernel stencil_apply<S,
/// Backend, T> runs uses.
template <class S, int T, class Backend = default_backend>
constexpr std::size_t stencil_smem_bytes()
{
    if constexpr (S::dims == 2) return stencil_tiled2d_default<S, T, Backend>::smem_bytes;
    else return stencil_tiled3d_default<S, T>::smem_bytes;
}

/// stencil_apply's checks of its arguments (a caller's own launcher makes
/// them too): non-null, aligned pointers, grid sizes >= 1 (nz == 1 in 2D),
/// arrays of at most 2^40 elements, in and out apart. Returns the arrays'
/// extent. Throws tcore::error naming `where`.
template <class S, boundary BC>
stencil_extent stencil_require_arguments(const double* in, const double* out, const stencil_grid& grid,
                                         const char* where)
{
    tcore::require_pointer(in, where, "in");
    tcore::require_pointer(out, where, "out");
    require(grid.nx >= 1 && grid.ny >= 1 && grid.nz >= 1, where,
            "grid sizes must be >= 1 (got " + std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + " x " +
                std::to_string(grid.nz) + ")");
    require(S::dims == 3 || grid.nz == 1, where, "a 2D stencil needs grid.nz == 1");
    const std::string too_large = "grid too large: the arrays may hold at most 2^40 elements (got " +
                                  std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + " x " +
                                  std::to_string(grid.nz) + " points)";
    require(grid.nx < (1LL << 40) && grid.ny < (1LL << 40) && grid.nz < (1LL << 40), where, too_large);
    const stencil_extent e = stencil_array_extent<S>(grid, BC);
    // in double: the product of three extents below 2^41 may overflow a long long
    require(static_cast<double>(e.ex) * static_cast<double>(e.ey) * static_cast<double>(e.ez) < 0x1p40, where,
            too_large);
    const long long count = e.count();
    require(out + count <= in || in + count <= out, where, "in and out overlap (the kernel is out-of-place)");
    return e;
}

/// out = T steps of stencil S on `in` (see the top of this file). Arrays as
/// in stencil_grid (Dirichlet: with a halo of r, which this never writes:
/// give out the same halo as in). in and out must not overlap.
template <class S, class Backend, int T, boundary BC>
void stencil_apply(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                   cudaStream_t stream = 0)
{
    static_assert(is_backend_v<Backend>, "Backend: tcore::tensor_core or tcore::cuda_core");
    static_assert(T >= 1 && T <= 8, "T (fused steps) must be 1..8");
    constexpr const char* where = "stencil_apply";
    stencil_require_arguments<S, BC>(in, out, grid, where);
    stencil_launch_tiled<S, Backend, T, BC>(in, out, grid, w, stream);
    TCORE_CHECK_LAUNCH();
}

/// Runtime-T front end for the common depths 1..4.
template <class S, class Backend, boundary BC>
void stencil_apply(int t, const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                   cudaStream_t stream = 0)
{
    switch (t) {
    case 1: return stencil_apply<S, Backend, 1, BC>(in, out, grid, w, stream);
    case 2: return stencil_apply<S, Backend, 2, BC>(in, out, grid, w, stream);
    case 3: return stencil_apply<S, Backend, 3, BC>(in, out, grid, w, stream);
    case 4: return stencil_apply<S, Backend, 4, BC>(in, out, grid, w, stream);
    default: throw error("stencil_apply: t (fused steps) must be 1..4, got " + std::to_string(t));
    }
}

}  // namespace tcore
