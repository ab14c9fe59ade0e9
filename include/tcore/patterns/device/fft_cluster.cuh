// tcore/patterns/device/fft_cluster.cuh - the one-pass 2D FFT kernel
// (fft2d_cluster_kernel): a thread-block cluster of 16 CTAs holds an image
// in distributed shared memory (sm_90). Each CTA transforms its rows with
// the tile stages of fft_tile.cuh, pushes the results into the column tiles
// of the CTAs that own their columns (fft2d_push_place), and after a
// cluster barrier transforms its columns as the column pass does: one DRAM
// read and write of the image instead of two. Launched by fft_plan
// (fft.cuh) for 256 x 256.
#pragma once

#include "fft_tile.cuh"

#include <cooperative_groups.h>

#include <cstddef>
#include <type_traits>

namespace tcore {
namespace detail {

/// The one-pass 2D transform of ny x nx = 2^Ly x 2^Lx images in
/// thread-block clusters of 16 CTAs (a non-portable cluster size, sm_90)
/// that hold one image between them in distributed shared memory. Rank r
/// transforms image rows [r ny/16, (r+1) ny/16) one row tile at a time and
/// pushes the results into the column tiles of their owners; rank r owns
/// image columns [r nx/16, (r+1) nx/16). One read and one write of each
/// image in DRAM against two of each for the two passes. Only sizes whose
/// column tiles and one row tile leave room for two CTAs an SM (the latency
/// of one CTA's barriers hidden by the other's work; the tc kernel is built
/// for two, the cc one, with more live registers, for one) are built:
/// 256 x 256 (96 KiB a CTA). At one CTA an SM (256 x 512, 512 x 256: 160
/// KiB) the tc kernel ran slower than the two passes (examples/fft/README.md).
template <int Lx, int Ly>
struct fft2d_config {
    using rows = fft_config<Lx, false>;
    using cols = fft_config<Ly, true, 2048>;
    static constexpr int nx = 1 << Lx, ny = 1 << Ly;
    static constexpr int ranks = 16;
    static constexpr int rank_rows = ny / ranks;  ///< image rows a CTA transforms
    static constexpr int rank_cols = nx / ranks;  ///< image columns a CTA receives and transforms
    static constexpr int row_tiles = rank_rows / rows::signals;
    static constexpr int col_tiles = rank_cols / cols::signals;
    static constexpr int threads = rows::threads;
    /// the column tiles (received), then one row tile
    static constexpr std::size_t smem_bytes = sizeof(double2) * (col_tiles * cols::per_cta + rows::per_cta);
    static constexpr bool fits = rows::threads == cols::threads && rows::per_cta == cols::per_cta &&
                                 row_tiles >= 1 && row_tiles * rows::signals == rank_rows && col_tiles >= 1 &&
                                 col_tiles * cols::signals == rank_cols && 2 * smem_bytes <= 227 * 1024;
};

/// Where value j (< per_cta) of row tile rt of rank `rank` goes after the row
/// stages: its slot in the row tile, and the rank and slot of the column
/// tile that receives it. Values j = T (My Mx) + r My + s: image row
/// rank rank_rows + rt Mx + r, column T My + s (column tile T of the image),
/// so that each 8-lane phase writes one 128-byte row of slots of one column
/// tile, as a tile load does.
struct fft2d_push {
    int src_slot, dst_rank, dst_slot;
};
template <int Lx, int Ly>
__host__ __device__ inline fft2d_push fft2d_push_place(int rank, int rt, int j)
{
    using F = fft2d_config<Lx, Ly>;
    constexpr int Mx = F::rows::signals, My = F::cols::signals;
    const int s = j % My, r = (j / My) % Mx, T = j / (My * Mx);
    const int n = rank * F::rank_rows + rt * Mx + r, c = T * My + s;
    return {dft::tile_slot(Lx, Mx, false, r, c), T / F::col_tiles,
            (T % F::col_tiles) * F::cols::per_cta + dft::tile_slot(Ly, My, true, s, n)};
}

/// Arguments of fft2d_cluster_kernel.
struct fft2d_args {
    const double2* in;
    double2* out;
    long long images;
    const double2* twiddle_x;  ///< exp(-2 pi i e/nx), e < nx
    const double2* twiddle_y;  ///< exp(-2 pi i e/ny), e < ny
};

/// Arrival at the cluster barrier without release semantics (no fence):
/// for barriers that only order this thread's finished reads before other
/// CTAs' writes. All 32 lanes of the warp call it together.
__device__ inline void cluster_arrive_relaxed()
{
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

/// One-pass 2D kernel, launched in clusters of fft2d_config::ranks CTAs;
/// cluster c transforms images c, c + clusters, ... Per image and rank: each
/// row tile is loaded (cp.async), transformed in the row buffer (the last
/// stage writes back: fft_tile_stages<..., ToShared>) and pushed into the
/// column tiles of the ranks that own its columns (stores to distributed
/// shared memory, fft2d_push_place); then the buffer loads the next row
/// tile, of this image or the next. A cluster barrier; the rank transforms
/// its column tiles and stores the results to `out` as the column pass
/// does, then arrives at the barrier that the next image's first push
/// waits on. in == out is allowed: every rank has read its rows of an image
/// before the barrier that precedes the image's first store.
template <int Lx, int Ly, class Backend, int Sign>
__global__ void __launch_bounds__(fft2d_config<Lx, Ly>::threads, (std::is_same_v<Backend, tensor_core> ? 2 : 1))
    fft2d_cluster_kernel(const fft2d_args a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // clusters need sm_90: fft_plan launches this kernel only on devices that have them
#else
    using F = fft2d_config<Lx, Ly>;
    using RC = typename F::rows;
    using CC = typename F::cols;
    static_assert(F::fits, "no one-pass 2D layout for this size");
    extern __shared__ __align__(128) double2 smem[];
    double2* const recv = smem;                               // the rank's column tiles
    double2* const row = smem + F::col_tiles * CC::per_cta;  // the row tile in work
    namespace cg = cooperative_groups;
    const cg::cluster_group cluster = cg::this_cluster();
    const int rank = static_cast<int>(cluster.block_rank());
    const long long first = blockIdx.x / F::ranks, clusters = gridDim.x / F::ranks;
    const int lane = threadIdx.x & 31;
    const dft::radix8_matrix<Sign> f8(lane);
    const fft_tile_io row_io{a.twiddle_x, nullptr}, col_io{a.twiddle_y, a.out};

    // row tile rt of image img into the row buffer
    auto load_row = [&](long long img, int rt, int tid) {
        const long long base = img * F::nx * F::ny + static_cast<long long>(rank * F::rank_rows + rt * RC::signals) * F::nx;
        fft_load_tile<Lx, false>(row, a.in, base, RC::signals, 1, tid);
        cp_async_commit();
    };
    if (first < a.images) load_row(first, 0, static_cast<int>(threadIdx.x));
    cluster_arrive_relaxed();  // every CTA of the cluster runs before any push into it
#pragma unroll 1
    for (long long img = first; img < a.images; img += clusters) {
        int tid = static_cast<int>(threadIdx.x);
        asm volatile("" : "+r"(tid));  // offsets recomputed per image (fft_pass_kernel)
#pragma unroll 1
        for (int rt = 0; rt < F::row_tiles; ++rt) {
            cp_async_wait<0>();
            __syncthreads();
            fft_tile_stages<Lx, Backend, Sign, false, true>(row, f8, row_io, 0, RC::signals, 1, tid);
            if (rt == 0) cluster.barrier_wait();  // every rank's column tiles are free
#pragma unroll
            for (int u = 0; u < RC::per_cta / RC::threads; ++u) {
                const fft2d_push at = fft2d_push_place<Lx, Ly>(rank, rt, tid + RC::threads * u);
                cluster.map_shared_rank(recv, at.dst_rank)[at.dst_slot] = row[at.src_slot];
            }
            __syncthreads();  // the row buffer is read: the next row tile may load
            if (rt + 1 < F::row_tiles) load_row(img, rt + 1, tid);
            else if (img + clusters < a.images) load_row(img + clusters, 0, tid);
        }
        cluster.sync();  // every push into this rank has landed
        const long long image = img * F::nx * F::ny;
#pragma unroll 1
        for (int q = 0; q < F::col_tiles; ++q) {
            const int c0 = rank * F::rank_cols + q * CC::signals;  // the tile's first image column
            fft_tile_stages<Ly, Backend, Sign, true, false, CC::per_cta>(recv + q * CC::per_cta, f8, col_io,
                                                                         image + c0, CC::signals, F::nx, tid);
        }
        cluster_arrive_relaxed();  // this thread has read its column tiles (the next image's pushes wait)
    }
    cluster.barrier_wait();  // pairs the last arrival: every rank leaves together
#endif
}

}  // namespace detail
}  // namespace tcore
