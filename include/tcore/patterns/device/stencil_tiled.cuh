// tcore/patterns/device/stencil_tiled.cuh - the tiled FP64 stencil kernels
// with temporal blocking (t steps fused per launch, the data staged in
// shared memory) and their configurations; launched by stencil_apply
// (device/stencil.cuh).
//
// 2D (stencil2d_kernel): overlapped tiles. A block owns TX x TY outputs
// (64x64, 32x32 for large halos), loads the (TX+2tr) x (TY+2tr) region
// around them once (stencil_load_region), computes steps 1..t in shared
// memory (stencil_tile_step), each on a region r smaller on every side,
// and writes step t to global memory. Blocks are persistent and prefetch
// the next tile's region while computing the current one (two input
// buffers, plus one work buffer for t >= 2; step s ping-pongs between the
// work buffer and the tile's own input buffer). The MMA methods stage the
// final step's 16x8 fragments in shared memory and write whole tile rows.
//
// 3D (stencil3d_kernel): the same XY tiling, streamed along z (2.5D
// blocking, as in AN5D / EBISU): per stage s = 0..t-1 a ring of 2r+1 planes
// (the input ring one or two planes deeper for prefetching); at each z step
// one plane is loaded and every stage computes one plane, r planes behind
// the stage before. Long z ranges are split into chunks (stencil_zchunk).
//
// Backend (the kernels' method): tensor_core, cuda_core or a caller's strip
// step (stencil_tile.cuh says what it provides; 3D strips of
// stencil_strip_rows<S>() rows, 2D strips of the configuration's).
//
// Preconditions: the kernels' arguments as stencil_apply checks them; one
// 1-D block of C::threads threads with C::smem_bytes of dynamic shared
// memory (16-byte aligned).
#pragma once

#include "../stencil_tile.cuh"

#include <cstddef>
#include <type_traits>

namespace tcore {

/// Where the tiled kernels (stencil2d_kernel, stencil3d_kernel) copy regions
/// as 16-byte pairs: where they measured faster than 8-byte copies (radius
/// 1 with t >= 2, measured at t = 3; t = 1 on star2d3r / box2d3r). Not
/// used where they measured slower: t = 1 at radius 1, t = 1 in 3D (mixed,
/// slower on box3d1r), t = 3 at radius 3 (slower in that comparison
/// through its block count, see stencil_launch_tiled2d; the comparison behind
/// stencil_tiled2d_knobs measured them slightly faster there, and the cce
/// method of examples/stencil takes them for star2d3r). Measurements:
/// examples/stencil/README.md.
template <class S, int T>
__host__ __device__ constexpr bool stencil_tiled_pair_loads()
{
    return S::radius == 1 ? T >= 2 : S::dims == 2 && T == 1;
}

// -- configurations ------------------------------------------------------------

/// MMA work of a tile relative to its useful work: 16x8 blocks computed
/// over T steps (each step's region r smaller on every side) per output
/// point-step. Tiles whose step regions are multiples of the block waste
/// least (e.g. 60x60 at r = 1, t = 3: regions 64, 62, 60).
__host__ __device__ constexpr double stencil_mma_overhead(int tx, int ty, int T, int R)
{
    long long blocks = 0;
    for (int s = 1; s <= T; ++s) {
        const int w = tx + 2 * (T - s) * R, h = ty + 2 * (T - s) * R;
        blocks += static_cast<long long>((h + 15) / 16) * ((w + 7) / 8);
    }
    return static_cast<double>(blocks) * 128.0 / (static_cast<double>(tx) * ty * T);
}

/// The 2D tiled kernel's configuration: TX x TY output tiles, Threads per
/// block, strips of Strip rows (a strip step's; the MMA steps carry it
/// unused), 16-byte region copies compiled where Pairs (and used where
/// stencil_pair_loads_apply). Backend: as the kernel's.
template <class S, int T, class Backend, int TX, int TY, int Threads, int Strip, bool Pairs>
struct stencil_tiled2d_config {
    static constexpr int R = S::radius;
    using geometry = stencil_tile_geometry<S, T, TX, TY>;
    static constexpr int threads = Threads, strip = Strip;
    static constexpr bool pairs = Pairs;
    /// The MMA methods stage the final step's tile for row-wise stores: in
    /// the buffer step T does not read (t >= 2), or in a third buffer (t = 1).
    static constexpr bool staged = is_backend_v<Backend>;
    static constexpr int buffers = T >= 2 || staged ? 3 : 2;
    static constexpr std::size_t smem_bytes = sizeof(double) * (buffers * geometry::plane + S::weight_count);
    static_assert(smem_bytes <= 227 * 1024, "2D tile does not fit in shared memory: lower T");
    static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
    static_assert(TY >= Strip, "a tile holds at least one strip");
    /// Blocks per SM the registers are budgeted for: 2 where shared memory
    /// allows 2 (ptxas would otherwise assume 2 and spill the T >= 2 tiles).
    static constexpr int min_blocks = 2 * smem_bytes <= 227 * 1024 ? 2 : 1;
};

/// Default square 2D tile: 64x64 (32x32 for large halos), or 64 - 2(t-1)r
/// where that wastes less MMA work.
template <class S, int T>
__host__ __device__ constexpr int stencil_default_tile2d()
{
    constexpr int R = S::radius;
    constexpr int big = T * R <= 12 ? 64 : 32;
    constexpr int aligned = big - 2 * (T - 1) * R;
    return aligned >= 32 && stencil_mma_overhead(aligned, aligned, T, R) < stencil_mma_overhead(big, big, T, R)
               ? aligned
               : big;
}

/// Threads, strip rows and 16-byte copies of the default 2D tiles: 256
/// threads, stencil_strip_rows rows and stencil_tiled_pair_loads, except
/// 512 threads for star2d3r (tc at t = 3, and tc at t = 1 since its column
/// arm; comparisons of the knobs measured them faster,
/// examples/stencil/README.md; cc's emulated MMA keeps 256). A strip step is
/// given the same at t = 3; its own knobs come with its own configuration
/// (stencil_launch_tiled2d's C).
template <class S, int T, class Backend>
struct stencil_tiled2d_knobs {
    static constexpr bool star2d3r = S::dims == 2 && S::radius == 3 && S::kind == stencil_kind::star;
    static constexpr bool wide = star2d3r && (T == 3 || (T == 1 && std::is_same_v<Backend, tensor_core>));
    static constexpr int threads = wide && !std::is_same_v<Backend, cuda_core> ? 512 : 256;
    static constexpr int strip = stencil_strip_rows<S>();
    static constexpr bool pairs = stencil_tiled_pair_loads<S, T>();
};

template <class S, int T, class Backend = default_backend>
using stencil_tiled2d_default =
    stencil_tiled2d_config<S, T, Backend, stencil_default_tile2d<S, T>(), stencil_default_tile2d<S, T>(),
                           stencil_tiled2d_knobs<S, T, Backend>::threads, stencil_tiled2d_knobs<S, T, Backend>::strip,
                           stencil_tiled2d_knobs<S, T, Backend>::pairs>;

/// Shared memory of a 3D tile of tx x ty outputs (rings of planes, weights).
template <class S, int T>
__host__ __device__ constexpr std::size_t stencil_smem3d(int tx, int ty, int prefetch)
{
    const int halo = T * S::radius;
    const int planes = 2 * S::radius + 1 + prefetch + (T - 1) * (2 * S::radius + 1);
    return sizeof(double) * (static_cast<std::size_t>(planes) * (ty + 2 * halo) * stencil_tile_pitch(tx + 2 * halo) +
                             S::weight_count);
}

/// A 3D tile size.
struct stencil_tile_xy {
    int x, y;
};

/// The 3D tile: of 64x32, 32x32 and both shrunk by 2(t-1)r, the one that
/// fits in shared memory with the least MMA overhead (the first of equals).
template <class S, int T>
__host__ __device__ constexpr stencil_tile_xy stencil_choose_tile3d(int prefetch)
{
    const int shrink = 2 * (T - 1) * S::radius;
    const stencil_tile_xy c[4] = {{64, 32}, {64 - shrink, 32 - shrink}, {32 - shrink, 32 - shrink}, {32, 32}};
    stencil_tile_xy best{32, 32};
    double cost = 1e30;
    for (int i = 0; i < 4; ++i) {
        const stencil_tile_xy p = c[i];
        if (p.x < 8 || p.y < 16 || stencil_smem3d<S, T>(p.x, p.y, prefetch) > 227 * 1024) continue;
        const double o = stencil_mma_overhead(p.x, p.y, T, S::radius);
        if (o < cost) best = p, cost = o;
    }
    return best;
}

template <class S, int T>
struct stencil_tiled3d_default {
    static constexpr int R = S::radius;
    static constexpr int prefetch = T == 1 ? 2 : 1;
    static constexpr int tile_x = stencil_choose_tile3d<S, T>(prefetch).x;
    static constexpr int tile_y = stencil_choose_tile3d<S, T>(prefetch).y;
    using geometry = stencil_tile_geometry<S, T, tile_x, tile_y>;
    static constexpr int threads = 256;
    static constexpr int ring0 = 2 * S::radius + 1 + prefetch;  ///< input planes
    static constexpr int ring = 2 * S::radius + 1;              ///< planes of stages 1..T-1
    static constexpr int planes = ring0 + (T - 1) * ring;
    static constexpr std::size_t smem_bytes = sizeof(double) * (planes * geometry::plane + S::weight_count);
    static_assert(smem_bytes <= 227 * 1024, "3D tile does not fit in shared memory: lower T");
    static constexpr int min_blocks = 2 * smem_bytes <= 227 * 1024 ? 2 : 1;
};

namespace detail {

/// Blocks per SM a kernel's registers are budgeted for: the configuration's
/// min_blocks, except 1 for the MMA methods of shapes whose per-lane layout
/// is large (more than 16 slot groups: box2d3r, box3d1r), which would spill
/// their offsets and weights under 128 registers.
template <class S, class Backend, class Config>
__host__ __device__ constexpr int stencil_min_blocks()
{
    return is_backend_v<Backend> && stencil_mma_plan<S>::slot_groups > 16 ? 1 : Config::min_blocks;
}

template <class S, class Backend, int T, boundary BC, class C = stencil_tiled2d_default<S, T, Backend>>
__global__ void __launch_bounds__(C::threads, (stencil_min_blocks<S, Backend, C>()))
    stencil2d_kernel(const stencil_args<S> a)
{
    using G = typename C::geometry;
    constexpr int Threads = C::threads;
    extern __shared__ __align__(16) double stencil_smem[];
    // input buffers at stencil_smem and stencil_smem + plane (picked arithmetically: an
    // array of two pointers indexed at run time would live on the stack)
    double* const work = stencil_smem + 2 * G::plane;
    // Every buffer starts finite (an MMA block may read positions no step wrote).
    for (int i = threadIdx.x; i < C::buffers * G::plane; i += Threads) stencil_smem[i] = 0.0;
    const stencil_lane<S> ln = stencil_setup_lane<S, Backend>(a.w, stencil_smem + C::buffers * G::plane, G::pitch);

    // a tile's origin, computed once: when its region is requested, kept for its steps
    struct origin {
        long long x0, y0;
    };
    auto load_tile = [&](double* buf, long long it) {
        const origin o{(it % a.tiles_x) * G::tile_x, (it / a.tiles_x) * G::tile_y};
        stencil_load_region<G, BC, Threads, C::pairs>(buf, a.in, a.in, o.x0, o.y0, a.nx, a.ny, a.ex, a.pair_loads);
        return o;
    };
    __shared__ item_queue<2> queue;  // the tile of each input buffer
    queue.start(a.tickets);
    __syncthreads();
    origin next_origin{0, 0};
    if (queue.at(0) < a.items) next_origin = load_tile(stencil_smem, queue.at(0));
    cp_async_commit();
    for (int k = 0; queue.at(k) < a.items; ++k) {
        const origin o = next_origin;
        // prefetch the next tile into the other input buffer (freed by the
        // barrier that ended the previous iteration)
        if (queue.at(k + 1) < a.items) next_origin = load_tile(stencil_smem + ((k + 1) & 1) * G::plane, queue.at(k + 1));
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads();  // tile k landed; every thread has read its slots
        const long long next = queue.take(a.tickets, k);  // tile k + 2, published by step 1's barrier
        const long long x0 = o.x0, y0 = o.y0;
        const stencil_tile_frame f = make_stencil_tile_frame<G, BC>(x0, y0, a.nx, a.ny, a.ex, true);
        double* const cur = stencil_smem + (k & 1) * G::plane;
        static_for<T>([&](auto s_) {
            constexpr int step = decltype(s_)::value + 1;
            // odd steps read the tile's input buffer, even steps the work buffer
            const double* const src[1] = {step % 2 == 1 ? cur : work};
            stencil_step_target dst{nullptr, nullptr};
            if constexpr (step == T && !C::staged) dst.global = a.out;
            else dst.smem = step % 2 == 1 ? work : cur;
            stencil_tile_step<S, Backend, T, step, BC, G, Threads, C::staged, C::strip>(src, dst, f, a, &ln);
            if constexpr (step == 1) queue.publish(k, next);
            __syncthreads();
        });
        if constexpr (C::staged) {
            // the final step's tile, staged in the buffer it did not read: whole rows out
            // (a warp per row, lanes along it)
            const double* const staged = T % 2 == 1 ? work : cur;
            const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
            constexpr int warps = Threads / 32;
            double* out_row = a.out + f.gbase + static_cast<long long>(G::halo + warp) * a.ex;
            const double* staged_row = staged + (G::halo + warp) * G::pitch;
            for (int row = warp; row < G::tile_y;
                 row += warps, out_row += warps * a.ex, staged_row += warps * G::pitch) {
                const int br = G::halo + row;
                if (!f.all_final && (br < f.iy_lo || br >= f.iy_hi)) continue;
#pragma unroll
                for (int c0 = 0; c0 < G::tile_x; c0 += 32) {
                    const int bc = G::halo + c0 + lane;
                    if (c0 + lane < G::tile_x && (f.all_final || (bc >= f.ix_lo && bc < f.ix_hi)))
                        out_row[bc] = staged_row[bc];
                }
            }
            // even t staged in `cur`, which the next iteration's prefetch overwrites
            if constexpr (T % 2 == 0) __syncthreads();
        }
    }
    cp_async_wait<0>();
    queue.done(a.tickets);
}

template <class S, class Backend, int T, boundary BC>
__global__ void __launch_bounds__(stencil_tiled3d_default<S, T>::threads,
                                  (stencil_min_blocks<S, Backend, stencil_tiled3d_default<S, T>>()))
    stencil3d_kernel(const stencil_args<S> a)
{
    using C = stencil_tiled3d_default<S, T>;
    using G = typename C::geometry;
    constexpr int Threads = C::threads;
    constexpr int R = S::radius;
    constexpr int PF = C::prefetch;
    constexpr int h = stencil_halo(BC, R);
    extern __shared__ __align__(16) double stencil_smem[];
    for (int i = threadIdx.x; i < C::planes * G::plane; i += Threads) stencil_smem[i] = 0.0;
    const stencil_lane<S> ln = stencil_setup_lane<S, Backend>(a.w, stencil_smem + C::planes * G::plane, G::pitch);
    const long long plane_elems = a.ex * a.ey;

    for (long long item = blockIdx.x; item < a.items; item += gridDim.x) {
        const long long tile = item / a.zchunks, chunk = item % a.zchunks;
        const long long x0 = (tile % a.tiles_x) * G::tile_x, y0 = (tile / a.tiles_x) * G::tile_y;
        const long long za = chunk * a.zchunk;
        const long long zb = za + a.zchunk < a.nz ? za + a.zchunk : a.nz;
        const long long q_begin = za - T * R, q_end = zb + T * R;
        const stencil_tile_frame f_in = make_stencil_tile_frame<G, BC>(x0, y0, a.nx, a.ny, a.ex, true);
        const stencil_tile_frame f_halo = make_stencil_tile_frame<G, BC>(x0, y0, a.nx, a.ny, a.ex, false);
        // Ring slots: planes are keyed by z - q_begin + (T+1)R >= 0 (small ints).
        auto slot = [&](int stage, long long z) -> double* {
            const int key = static_cast<int>(z - q_begin) + (T + 1) * R;
            if (stage == 0) return stencil_smem + (key % C::ring0) * G::plane;
            return stencil_smem + (C::ring0 + (stage - 1) * C::ring + key % C::ring) * G::plane;
        };
        // Stage s holds planes [za - (T-s)R, zb + (T-s)R) that lie in the array.
        auto active = [&](int stage, long long z) {
            const bool in_array = BC == boundary::periodic || (z >= -R && z < a.nz + R);
            return z >= za - (T - stage) * R && z < zb + (T - stage) * R && in_array;
        };
        auto load_plane = [&](long long z) {
            if (z < q_end && active(0, z)) {
                const long long zs = BC == boundary::periodic ? stencil_wrap(z, a.nz) : z + R;
                stencil_load_region<G, BC, Threads, stencil_tiled_pair_loads<S, T>()>(
                    slot(0, z), a.in + zs * plane_elems, a.in, x0, y0, a.nx, a.ny, a.ex, a.pair_loads);
            }
            cp_async_commit();  // one group per plane, empty or not, so wait_group counts planes
        };
        __syncthreads();  // the previous item is done with every ring slot
        for (int p = 0; p < PF; ++p) load_plane(q_begin + p);
        for (long long q = q_begin; q < q_end; ++q) {
            __syncthreads();  // iteration q-1 is done with the slot the next load overwrites
            load_plane(q + PF);
            cp_async_wait<PF>();
            __syncthreads();
            static_for<T>([&](auto s_) {
                constexpr int stage = decltype(s_)::value + 1;
                const long long z = q - stage * R;
                if (active(stage, z)) {
                    const double* src[2 * R + 1];
#pragma unroll
                    for (int dz = -R; dz <= R; ++dz) src[dz + R] = slot(stage - 1, z + dz);
                    stencil_step_target dst{nullptr, nullptr};
                    if constexpr (stage == T) dst.global = a.out + (z + h) * plane_elems;
                    else dst.smem = slot(stage, z);
                    // Dirichlet halo planes (never the final stage's) are copied
                    // position by position: their frame has no interior.
                    const bool z_interior = BC == boundary::periodic || (z >= 0 && z < a.nz);
                    const stencil_tile_frame f = z_interior ? f_in : f_halo;
                    stencil_tile_step<S, Backend, T, stage, BC, G, Threads, false, stencil_strip_rows<S>()>(
                        src, dst, f, a, &ln);
                }
                if (stage < T) __syncthreads();
            });
        }
    }
    cp_async_wait<0>();
}

}  // namespace detail

}  // namespace tcore
