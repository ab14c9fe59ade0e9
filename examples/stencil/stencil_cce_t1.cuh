// examples/stencil/stencil_cce_t1.cuh - part of the `cce` opponent of the
// stencil workload (stencil_cce.cuh runs it): the t = 1 CUDA-core kernels,
// their configurations and launches.
//
// 3D (stencil_cce_stream_kernel): one plane buffer per z step, the 2r+1 output
// planes each input plane feeds accumulated in registers, four planes in
// flight per block, rows fetched by bulk copies (cp.async.bulk) where the
// arrays allow. 2D (stencil_cce_t1_2d_kernel): tiles through a ring of
// prefetched regions with no work buffer. Both store with st.global.cs.
// Built of the kit's public building blocks (tcore/patterns/stencil_tile.cuh:
// stencil_load_region, stencil_tile_geometry, stencil_args, stencil_wrap;
// tcore/infra: cp.async, bulk copies, mbarriers, work tickets) and
// launchers (tcore/patterns/device/stencil.cuh: stencil_prepare_kernel,
// stencil_grid_args, stencil_pair_loads_apply, stencil_schedule).
//
// Provides (namespace tcore::examples::stencil): stencil_stream_config /
// stencil_stream_default, stencil_t1_tile_config / stencil_t1_tile_default,
// the two kernels, stencil_zchunk_tickets, stencil_launch_stream and
// stencil_launch_t1_tiles.
//
// Preconditions: the kernels' arguments as stencil_apply_cce checks them (3D:
// rows of at most 2^31 - 1 elements); one 1-D block of C::threads threads
// with C::smem_bytes of dynamic shared memory (16-byte aligned).
#pragma once

#include "stencil_cce_method.cuh"

#include <tcore/patterns/device/stencil.cuh>
#include <tcore/patterns/stencil_tile.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace tcore::examples::stencil {

// -- t = 1, cce, 3D: the streaming kernel --------------------------------------------

/// The t = 1 CUDA-core kernel in 3D sweeps the grid along z. A block owns
/// sx x sy outputs of each XY plane, streams the planes with their XY halo
/// through a ring of `ring` shared buffers (ring - 1 planes in flight, one
/// barrier per plane), and each thread keeps, for its column x and strip of
/// V rows, the partial sums of the 2r+1 output planes that the newest input
/// plane feeds (a register queue along z), so every plane is read from
/// shared memory once and the plane buffers need no z halo. Chosen over the
/// tiled 3D kernel at t = 1 because it keeps more planes in flight per SM
/// in the same shared memory.
///
/// Loads: where stencil_pair_loads_apply (Dirichlet, even row pitch, 16-byte aligned
/// input) a plane's region is fetched as one bulk copy per row
/// (cp.async.bulk, the copy engine of sm_90: each row is bw contiguous
/// doubles starting at an even array column, so source, size and the
/// shared row pitch are multiples of 16 bytes), completing on the ring
/// slot's mbarrier; rows and columns past the array are not fetched (they
/// only feed outputs that are not stored). Elsewhere 16-byte or 8-byte
/// cp.async copies, one commit group per plane.
template <class S, int SX, int SY, int V, int Ring, int MinBlocks>
struct stencil_stream_config {
    static constexpr int R = S::radius;
    static constexpr int sx = SX, sy = SY, strip = V, ring = Ring, min_blocks = MinBlocks;
    static constexpr int bw = SX + 2 * R, bh = SY + 2 * R;  ///< a plane's region (XY halo R)
    static constexpr int pitch = stencil_tile_pitch(bw);
    static constexpr int plane = bh * pitch;
    static constexpr int threads = SX * (SY / V);
    /// the plane ring, then one 8-byte mbarrier per ring slot
    static constexpr std::size_t smem_bytes = sizeof(double) * Ring * plane + sizeof(unsigned long long) * Ring;
    static_assert(S::dims == 3, "the streaming kernel streams 3D grids along z");
    static_assert(SY % V == 0 && threads % 32 == 0 && threads <= 1024, "strips tile the plane");
    static_assert(Ring >= 2, "at least one plane in flight");
    static_assert(bh <= 32 * 32, "one warp issues a plane's row copies");
};

/// Default streaming configuration: 256x16 tiles, strips of 16 rows (256
/// threads), 5 buffers (4 planes in flight, 1 block of 183 KB per SM, no
/// spills), rows fetched by bulk copies: ahead of the previous default
/// (128x32, 16-row strips, 6 buffers, 16-byte cp.async) and the fastest or
/// level with the fastest among the tile shapes, strip heights, blocks per
/// SM and copy kinds compared on star3d1r / box3d1r (the same tile with cp.async
/// copies measured slightly ahead on one device and well behind on box3d1r
/// on another). Slower there: narrower tiles with 2 blocks per SM, 256x32
/// (512 threads, spilling), and an even split of the (tile, z) planes over
/// the blocks (its XY neighbours drift apart in z, so the halo rows miss
/// L2 and the DRAM reads grow); the L2 256-byte prefetch hint and plain
/// stores were tried too. A 2D version streaming rows (sx = 512, 8
/// buffers) stayed below the 2D tiled kernel on the radius-1 shapes; it was
/// not used and has been removed. Measurements: examples/stencil/README.md.
template <class S>
using stencil_stream_default = stencil_stream_config<S, 256, 16, 16, 5, 1>;

// -- t = 1, cce, 2D: tiles with a prefetch ring ------------------------------------

/// The t = 1 CUDA-core kernel in 2D: persistent blocks take TX x TY tiles in
/// grid-stride order through a ring of `buffers` tile regions (cp.async, one
/// commit group per tile): the region buffers - 1 tiles ahead is issued
/// before waiting for the current one, so buffers - 1 tiles are in flight
/// while a block computes and `buffers` while it waits. Each thread slides a
/// register window down a strip of V rows of one column, as the tiled cce
/// step does, and stores its outputs straight to global memory with
/// streaming stores (st.global.cs: the output is not read again, so it
/// should not push out the input rows that neighbouring tiles still read as
/// halo). Regions are loaded as 16-byte column pairs where stencil_pair_loads_apply.
template <class S, int TX, int TY, int V, int Threads, int Buffers, int MinBlocks>
struct stencil_t1_tile_config {
    static constexpr int R = S::radius;
    static constexpr int tile_x = TX, tile_y = TY, strip = V, threads = Threads, buffers = Buffers,
                         min_blocks = MinBlocks;
    using geometry = stencil_tile_geometry<S, 1, TX, TY>;
    static constexpr int bw = geometry::bw, bh = geometry::bh, pitch = geometry::pitch, plane = geometry::plane;
    static constexpr int work = TX * (TY / V);  ///< strips per tile
    static constexpr std::size_t smem_bytes = sizeof(double) * Buffers * plane;
    static_assert(TY % V == 0 && TX % 2 == 0, "strips tile the tile; even width for 16-byte loads");
    static_assert(Buffers >= 2 && Threads % 32 == 0 && Threads <= 1024, "at least one tile in flight");
    static_assert(smem_bytes <= 227 * 1024, "t = 1 tile ring does not fit in shared memory");
};

/// Default 2D t = 1 configurations, the fastest of the tile shapes, strip
/// heights, ring depths and block sizes compared (examples/stencil/README.md):
///   radius 1: 256x16 tiles, 8-row strips, 3 buffers, 2 blocks per SM
///     (128x64 with 512 threads, 1 block per SM, level; 64x64, 2 buffers,
///     3 blocks per SM (the tiled kernel's shape) and 128x32 slower);
///   star2d3r: 128x32 tiles, 8-row strips, 512 threads, 1 block per SM
///     (128x64 with 16-row strips close; 64x32 and 64x64 tiles slower);
///   box2d3r (49 FMAs per point): 64x32 tiles, 16-row strips, 128 threads,
///     4 buffers, 2 blocks per SM (128x32 with 256 threads close; 64x64
///     with 256 threads and 8-row strips slower).
/// On the radius-1 shapes and star2d3r the 64-wide tiles stay further below
/// the copy bandwidth than the 256-wide and 512-thread ones.
template <class S>
using stencil_t1_tile_default = std::conditional_t<
    S::radius <= 1, stencil_t1_tile_config<S, 256, 16, 8, 256, 3, 2>,
    std::conditional_t<S::kind == stencil_kind::star, stencil_t1_tile_config<S, 128, 32, 8, 512, 2, 1>,
                       stencil_t1_tile_config<S, 64, 32, 16, 128, 4, 2>>>;

/// Does input row dr (relative to a strip of V outputs) at column offset dx
/// feed any output of the strip, on any of the 2r+1 output planes?
template <class S, int V>
__host__ __device__ constexpr bool stencil_stream_needed(int dr, int dx)
{
    for (int ds = -S::radius; ds <= S::radius; ++ds)
        if (stencil_cce_needed<S, V>(ds, dr, dx)) return true;
    return false;
}

template <class S, boundary BC, class C>
__global__ void __launch_bounds__(C::threads, C::min_blocks) stencil_cce_stream_kernel(const stencil_args<S> a)
{
    constexpr int R = S::radius, V = C::strip, Q = 2 * R + 1, Ring = C::ring, P = C::pitch;
    constexpr int h = stencil_halo(BC, R);
    extern __shared__ __align__(16) double stencil_smem[];
    const int tx = threadIdx.x % C::sx, ty0 = (threadIdx.x / C::sx) * V;
    const long long nz = a.nz, ny = a.ny;       // grid planes and rows
    const long long plane_elems = a.ex * a.ey;  // array stride of one z plane
    unsigned long long* bars = reinterpret_cast<unsigned long long*>(stencil_smem + Ring * C::plane);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const bool bulk = BC == boundary::dirichlet && a.pair_loads;  // rows by cp.async.bulk (see stencil_stream_config)
#else
    const bool bulk = false;
#endif
    if (bulk && threadIdx.x == 0) {
        for (int i = 0; i < Ring; ++i) mbarrier_init(bars + i);
        mbarrier_init_fence();
    }
    // Planes streamed by this block before the current item: ring slot of
    // plane p is (seq + p - q_begin) % Ring, and each use of a slot completes
    // one phase of its mbarrier.
    long long seq = 0;
    // Items: grid-stride, tile-major (a block streams its tile's z chunks one
    // after the other); with tickets, chunk-major (the items in progress are
    // neighbouring tiles at the same z, so they share their halo rows in L2).
    const bool tickets = a.tickets.counter != nullptr;
    const long long tiles = a.tiles_x * a.tiles_y;
    __shared__ item_queue<1> queue;
    queue.start(a.tickets);
    __syncthreads();

    for (int n = 0; queue.at(n) < a.items; ++n) {
        const long long item = queue.at(n);
        const long long tile = tickets ? item % tiles : item / a.zchunks;
        const long long chunk = tickets ? item / tiles : item % a.zchunks;
        const long long next = queue.take(a.tickets, n);  // published by the barrier that ends this item
        const long long x0 = (tile % a.tiles_x) * C::sx, y0 = (tile / a.tiles_x) * C::sy;
        const long long za = chunk * a.zchunk;
        const long long zb = za + a.zchunk < nz ? za + a.zchunk : nz;
        const long long q_begin = za - R, q_end = zb + R;

        // Per-thread load pattern of a plane (8-byte copies): warp w loads rows
        // w, w + warps, ...; lane l columns l + 32k, at array offset xoff[k] in
        // the row (-1: outside the array).
        constexpr int loads = (C::bw + 31) / 32;
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        int xoff[loads];
#pragma unroll
        for (int k = 0; k < loads; ++k) {
            const int bx = lane + 32 * k;
            const long long x = x0 - R + bx;
            xoff[k] = -1;
            if (bx < C::bw) {
                if constexpr (BC == boundary::periodic) xoff[k] = static_cast<int>(stencil_wrap(x, a.nx));
                else if (x >= -R && x < a.nx + R) xoff[k] = static_cast<int>(x + R);
            }
        }
        auto load_plane = [&](long long p) {
            if (p < q_end) {
                const int slot = static_cast<int>((seq + p - q_begin) % Ring);
                double* buf = stencil_smem + slot * C::plane;
                const long long ps = BC == boundary::periodic ? stencil_wrap(p, nz) : p + R;
                const double* src = a.in + ps * plane_elems;
                if (bulk) {
                    // warp 0: lane 0 announces the plane's bytes, lanes copy rows
                    if (warp == 0) {
                        const long long rows_left = ny + 2 * R - y0, cols_left = a.ex - x0;
                        const int rows = rows_left < C::bh ? static_cast<int>(rows_left) : C::bh;
                        const int cols = cols_left < C::bw ? static_cast<int>(cols_left) : C::bw;
                        if (lane == 0) mbarrier_expect_tx(bars + slot, static_cast<unsigned>(rows * cols) * 8u);
                        __syncwarp();
                        for (int by = lane; by < rows; by += 32)
                            cp_async_bulk(buf + by * P, src + (y0 + by) * a.ex + x0, static_cast<unsigned>(cols) * 8u,
                                            bars + slot);
                    }
                } else if (BC == boundary::dirichlet && C::bw % 2 == 0 && a.pair_loads) {
                    // 16-byte copies: plane column 2k is array column x0 + 2k (stencil_pair_loads_apply)
                    constexpr int pairs = C::bw / 2;
                    for (int i = threadIdx.x; i < C::bh * pairs; i += C::threads) {
                        const int by = i / pairs, bx = 2 * (i % pairs);
                        const long long ay = y0 + by, ax = x0 + bx;  // array row and column (halo R included)
                        const bool ok = ay < ny + 2 * R && ax < a.ex;
                        cp_async<16>(buf + by * P + bx, ok ? src + ay * a.ex + ax : a.in, ok ? 16 : 0);
                    }
                } else {
                    for (int by = warp; by < C::bh; by += C::threads / 32) {
                        const long long y = y0 - R + by;
                        long long row = -1;
                        if constexpr (BC == boundary::periodic) row = stencil_wrap(y, ny) * a.ex;
                        else if (y >= -R && y < a.ny + R) row = (y + R) * a.ex;
#pragma unroll
                        for (int k = 0; k < loads; ++k) {
                            const int bx = lane + 32 * k;
                            const bool ok = row >= 0 && xoff[k] >= 0;
                            if (bx < C::bw) cp_async<8>(buf + by * P + bx, ok ? src + row + xoff[k] : a.in, ok ? 8 : 0);
                        }
                    }
                }
            }
            if (!bulk) cp_async_commit();  // one group per plane, empty or not
        };

        double q[Q][V];
#pragma unroll
        for (int k = 0; k < Q; ++k)
#pragma unroll
            for (int v = 0; v < V; ++v) q[k][v] = 0.0;

        const long long xo = x0 + tx;
        const bool x_in = xo < a.nx;
        for (int j = 0; j < Ring - 1; ++j) load_plane(q_begin + j);
        for (long long p = q_begin; p < q_end; ++p) {
            const long long s = seq + p - q_begin;
            if (bulk) mbarrier_wait_parity(bars + static_cast<int>(s % Ring), static_cast<unsigned>((s / Ring) & 1));
            else cp_async_wait<Ring - 2>();
            __syncthreads();            // plane p landed; everyone is done with plane p-1
            load_plane(p + Ring - 1);   // into plane p-1's buffer
            const double* base = stencil_smem + static_cast<int>(s % Ring) * C::plane + (ty0 + R) * P + tx + R;
            static_for<V + 2 * R>([&](auto r_) {
                constexpr int dr = decltype(r_)::value - R;
                static_for<2 * R + 1>([&](auto x_) {
                    constexpr int dx = decltype(x_)::value - R;
                    if constexpr (stencil_stream_needed<S, V>(dr, dx)) {
                        const double val = base[dr * P + dx];
                        static_for<Q>([&](auto k_) {
                            constexpr int k = decltype(k_)::value;
                            constexpr int ds = R - k;  // plane p is output plane p - R + k's offset ds
                            static_for<V>([&](auto v_) {
                                constexpr int v = decltype(v_)::value;
                                if constexpr (S::contains(ds, dr - v, dx))
                                    q[k][v] = fma(a.w.w[S::weight_index(ds, dr - v, dx)], val, q[k][v]);
                            });
                        });
                    }
                });
            });
            const long long z = p - R;  // q[0] is complete
            if (z >= za && x_in) {
                double* dst = a.out + (z + h) * plane_elems + xo + h;
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    const long long y = y0 + ty0 + v;
                    if (y < a.ny) __stcs(dst + (y + h) * a.ex, q[0][v]);
                }
            }
#pragma unroll
            for (int k = 0; k + 1 < Q; ++k)
#pragma unroll
                for (int v = 0; v < V; ++v) q[k][v] = q[k + 1][v];
#pragma unroll
            for (int v = 0; v < V; ++v) q[Q - 1][v] = 0.0;
        }
        seq += q_end - q_begin;
        queue.publish(n, next);
        __syncthreads();
    }
    cp_async_wait<0>();
    queue.done(a.tickets);
}

template <class S, boundary BC, class C>
__global__ void __launch_bounds__(C::threads, C::min_blocks) stencil_cce_t1_2d_kernel(const stencil_args<S> a)
{
    constexpr int R = S::radius, P = C::pitch, V = C::strip, B = C::buffers;
    constexpr int h = stencil_halo(BC, R);
    using G = typename C::geometry;
    extern __shared__ __align__(16) double stencil_smem[];
    __shared__ item_queue<B> queue;  // the tile of each ring buffer
    queue.start(a.tickets);
    auto load_tile = [&](double* buf, long long it) {
        const long long x0 = (it % a.tiles_x) * C::tile_x, y0 = (it / a.tiles_x) * C::tile_y;
        stencil_load_region<G, BC, C::threads, true>(buf, a.in, a.in, x0, y0, a.nx, a.ny, a.ex, a.pair_loads);
    };
    __syncthreads();
    for (int j = 0; j < B - 1; ++j) {
        if (queue.at(j) < a.items) load_tile(stencil_smem + j * C::plane, queue.at(j));
        cp_async_commit();  // one group per tile, empty or not
    }
    for (int k = 0; queue.at(k) < a.items; ++k) {
        const long long item = queue.at(k);
        // the tile B-1 ahead goes into the buffer tile k-1 used (freed by the
        // barrier that ended the previous iteration), before waiting for tile k
        const long long ahead = queue.at(k + B - 1);
        if (ahead < a.items) load_tile(stencil_smem + ((k + B - 1) % B) * C::plane, ahead);
        cp_async_commit();
        cp_async_wait<B - 1>();
        __syncthreads();  // tile k landed; every thread has read its slots
        const long long next = queue.take(a.tickets, k);  // tile k + B, published by the barrier below
        const double* buf = stencil_smem + (k % B) * C::plane;
        const long long x0 = (item % a.tiles_x) * C::tile_x, y0 = (item / a.tiles_x) * C::tile_y;
        const bool full = x0 + C::tile_x <= a.nx && y0 + C::tile_y <= a.ny;
        for (int w = threadIdx.x; w < C::work; w += C::threads) {
            const int col = w % C::tile_x, r0 = (w / C::tile_x) * V;
            double acc[V];
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = 0.0;
            stencil_cce::add_strip<S, V, P, 0>(acc, buf + (r0 + R) * P + col + R, a.w);
            const long long x = x0 + col;
            double* dst = a.out + (y0 + r0 + h) * a.ex + x + h;
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (full || (x < a.nx && y0 + r0 + v < a.ny)) __stcs(dst + v * a.ex, acc[v]);
        }
        queue.publish(k, next);
        __syncthreads();  // everyone is done with this tile's buffer
    }
    cp_async_wait<0>();
    queue.done(a.tickets);
}

/// The t = 1 kernels' key for tcore::stencil_prepare_kernel's cache.
template <class S, boundary BC, class C>
struct stencil_t1_tag {};

/// z planes per item of the 3D streaming kernel when items are taken from
/// tickets: about 64, and fewer where that leaves less than two items a
/// block (down to 16), split evenly over the z range. Chunks of 32 to 128
/// planes measured about level, 256 and grid-stride items (tile-major,
/// stencil_zchunk) slower (examples/stencil/README.md). Small items keep
/// the blocks busy to the end, and the items in progress (chunk-major:
/// neighbouring tiles at the same z) read each other's halo rows from L2.
inline long long stencil_zchunk_tickets(long long nz, long long tiles, long long resident)
{
    long long chunks = std::max(tcore::ceil_div(nz, 64), tcore::ceil_div(2 * resident, tiles));
    chunks = std::max(1LL, std::min(chunks, nz / 16));
    return tcore::ceil_div(nz, chunks);
}

/// Launches the 3D t = 1 streaming kernel with configuration C
/// and work order `sched`. Does not check its arguments: give it only what
/// stencil_apply_cce accepts (rows of at most 2^31 - 1 elements).
template <class S, boundary BC, class C>
void stencil_launch_stream(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                           cudaStream_t stream, stencil_schedule sched = {})
{
    stencil_args<S> a = stencil_grid_args<S, BC>(in, out, grid, w);
    a.pair_loads = C::sx % 2 == 0 && stencil_pair_loads_apply<S, BC>(a, 1);
    auto kernel = stencil_cce_stream_kernel<S, BC, C>;
    const int per_sm =
        tcore::stencil_prepare_kernel<stencil_t1_tag<S, BC, C>>(kernel, C::smem_bytes, C::threads);
    a.tiles_x = tcore::ceil_div(grid.nx, C::sx);
    a.tiles_y = tcore::ceil_div(grid.ny, C::sy);
    const long long tiles = a.tiles_x * a.tiles_y;
    const long long resident = static_cast<long long>(tcore::sm_count()) * per_sm;
    if (sched.tickets) a.tickets = stream_tickets(stream);
    a.zchunk = sched.zchunk > 0   ? std::min<long long>(sched.zchunk, grid.nz)
               : sched.tickets ? stencil_zchunk_tickets(grid.nz, tiles, resident)
                               : stencil_zchunk(grid.nz, tiles, resident, S::radius);
    a.zchunks = tcore::ceil_div(grid.nz, a.zchunk);
    a.items = tiles * a.zchunks;
    const long long blocks = std::min<long long>(a.items, resident);
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
}

/// Launches the 2D t = 1 tile kernel with configuration C and
/// work order `sched`. Does not check its arguments: give it only what
/// stencil_apply_cce accepts.
template <class S, boundary BC, class C>
void stencil_launch_t1_tiles(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                             cudaStream_t stream, stencil_schedule sched = {})
{
    stencil_args<S> a = stencil_grid_args<S, BC>(in, out, grid, w);
    a.pair_loads = stencil_pair_loads_apply<S, BC>(a, 1);
    auto kernel = stencil_cce_t1_2d_kernel<S, BC, C>;
    const int per_sm =
        tcore::stencil_prepare_kernel<stencil_t1_tag<S, BC, C>>(kernel, C::smem_bytes, C::threads);
    a.tiles_x = tcore::ceil_div(grid.nx, C::tile_x);
    a.tiles_y = tcore::ceil_div(grid.ny, C::tile_y);
    a.zchunk = 1;
    a.zchunks = 1;
    a.items = a.tiles_x * a.tiles_y;
    const long long resident = static_cast<long long>(tcore::sm_count()) * per_sm;
    if (sched.tickets) a.tickets = stream_tickets(stream);
    const long long blocks = sched.tickets ? std::min(a.items, resident) : stencil_balanced_blocks(a.items, resident);
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
}

}  // namespace tcore::examples::stencil
