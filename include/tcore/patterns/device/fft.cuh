// tcore/patterns/device/fft.cuh - batched complex FP64 FFTs (1D, and 2D as
// two 1D passes, or for 256 x 256 one pass in thread-block clusters) whose
// butterflies are the DFT matrix products of dft.cuh on the FP64 MMA: `tc`
// (tensor_core) or, the same kernel with the MMA emulated lane by lane, `cc`
// (cuda_core).
//
//   tcore::fft_plan plan(nx, ny, batch);           // ny = 1: 1D; twiddles uploaded here
//   plan.execute<tcore::tensor_core>(in, out, tcore::fft_direction::forward, stream);
//
// Data: interleaved complex doubles (double2, cufftDoubleComplex), each
// signal nx contiguous elements (2D: ny rows of nx), signals back to back.
// in == out (in place) is allowed, other overlaps are not.
//
// One persistent kernel per pass. A tile is 2048 complex values (4096 for
// N = 4096 and the column pass of N = 512: dft::tile_values): M = 2048/N
// (4096/N) signals, 8 values per thread of a 256-thread CTA (512 for the
// 4096-value tiles). The grid fills the device once (the tc kernels of
// 256 threads are built for 2 CTAs per SM); CTAs take tiles from a
// counter in device memory (atomicAdd: the tiles in work stay one
// contiguous window, which keeps the column passes' DRAM rows shared
// between neighbouring tiles) and hold 2 or
// 3 tile buffers in shared memory: cp.async (16-byte chunks, coalesced,
// zero-fill past the last signal) brings the next tiles into the others
// while the stages of one tile run, so loads stay in flight without holding
// registers. The stages work in place in the buffer (all reads of a stage,
// a barrier, all writes), with the swizzle of dft::swizzle; the last stage
// writes straight to global memory after swapping one value with the
// neighbouring lane (dft::exchanged_slot), so each store instruction writes
// whole 32-byte sectors. Each warp owns 32/R groups of 8 columns per stage; every lane
// keeps 8 complex results in registers between the read and the write half
// of a stage.
//
// Passes of a 2D transform: rows (contiguous signals of nx), then columns
// (signals of ny with stride nx): the column pass maps the 8 MMA columns of
// its first and last stage to 8 adjacent columns of the image (mode b of
// dft::column_of); its tile is ny rows of M adjacent columns, stored
// n-major in shared memory so that each 8-lane phase of the tile load
// reads one 128-byte image-row piece (8 columns; for M < 8 the M columns
// of 8/M rows) into one 128-byte row of slots (dft::tile_slot), and its
// results are stored as whole sectors.
//
// One pass (256 x 256, fft_plan::single_pass): a cluster of 16 CTAs holds
// an image in distributed shared memory. Each CTA transforms 16 rows with
// the same tile stages, pushes the results into the column tiles of the
// CTAs that own their columns, and after a cluster barrier transforms its
// 16 columns as the column pass does: one DRAM read and write of the image
// instead of two (fft2d_cluster_kernel).
#pragma once

#include "../../infra/async_copy.cuh"
#include "../../check.cuh"
#include "../dft.cuh"
#include "../dft_stage.cuh"
#include "../../infra/launch.cuh"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <string>
#include <type_traits>
#include <utility>

namespace tcore {

namespace detail {

/// PerCta: the passes' tile (dft::tile_values); the one-pass 2D kernel
/// takes 2048-value column tiles where the pass has 4096 (N = 512), so
/// that its rows and columns run on the same 256 threads.
template <int L, bool Strided, int PerCta = dft::tile_values(L, Strided)>
struct fft_config {
    static_assert(dft::supported(L), "FFT sizes are 2^6 .. 2^12");
    static constexpr int n = 1 << L;
    static constexpr int per_cta = PerCta;  ///< complex values per tile
    static constexpr int signals = per_cta / n;             ///< M
    static constexpr int threads = per_cta / 8;             ///< 8 complex values per thread
    static constexpr int warps = threads / 32;
    /// Tiles in shared memory: the one in work and buffers - 1 arriving. Three
    /// for the row passes of N <= 2048; two for N = 4096 (64 KiB tiles, one
    /// CTA an SM either way: no gain) and the column passes, where the third
    /// buffer's 32 KiB is worth more as L1 (twiddle table): three measured a
    /// gain on the row passes and a small loss on the column passes
    /// (examples/fft/README.md).
    static constexpr int buffers = !Strided && L <= 11 ? 3 : 2;
    static constexpr std::size_t smem_bytes = sizeof(double2) * per_cta * buffers;
};

/// Resident CTAs per SM the tc kernels are built for (register cap 65536 /
/// (threads x blocks) = 128): two, so that one CTA's stages overlap the
/// other's barriers. The cc kernels (the MMA emulated with shuffles, more
/// live registers) and N = 4096 (512 threads) get one.
template <class Backend, int L, bool Strided>
constexpr int fft_min_blocks()
{
    return std::is_same_v<Backend, tensor_core> && fft_config<L, Strided>::threads < 512 ? 2 : 1;
}

/// The tile counter of a pass: CTAs take tiles in order with atomicAdd on
/// `next`, so the tiles in work at any time are one contiguous window (as a
/// non-persistent launch would have them; the column passes' DRAM rows are
/// shared by neighbouring tiles). The last CTA to finish resets both fields.
struct fft_schedule {
    unsigned long long next;
    unsigned int done;
};

/// Where the signals of a pass live: signal gs starts at
/// (gs / row) * batch_stride + (gs % row) * sig_stride, element n at
/// + n * n_stride. Row passes have n_stride = 1 and sig_stride = N (signals
/// back to back), column passes sig_stride = 1 (the kernels take these as
/// constants).
struct fft_pass_args {
    const double2* in;
    double2* out;
    long long signals;
    long long row, batch_stride, sig_stride, n_stride;
    const double2* twiddle;  ///< exp(-2 pi i e/N), e < N
    fft_schedule* schedule;  ///< zero before the launch, zero again after it
};

/// Issues the cp.async copies of one tile (`valid` of its M signals from
/// `base` in `in`; the rest zero-filled) into `dst` in the tile layout,
/// swizzled as the stages read it; thread `tid` of the CTA. Chunk
/// j = tid + threads u of the tile: lane part (tid) and fixed part (u) of
/// its slot and source offset (s N + n = j for contiguous signals, s + n nx
/// for strided ones), see dft::tile_slot and dft::tile_chunk.
template <int L, bool Strided, int PerCta = dft::tile_values(L, Strided)>
__device__ __forceinline__ void fft_load_tile(double2* dst, const double2* in, long long base, int valid,
                                              long long n_stride, int tid)
{
    using C = fft_config<L, Strided, PerCta>;
    constexpr int N = C::n, M = C::signals;
    const dft::chunk lane_c = dft::tile_chunk(tid, N, M, Strided);
    const int dst_lane = dft::tile_slot(L, M, Strided, lane_c.s, lane_c.n);
    const long long src_lane = base + (Strided ? lane_c.s + static_cast<long long>(lane_c.n) * n_stride : tid);
#pragma unroll
    for (int u = 0; u < C::per_cta / C::threads; ++u) {
        const dft::chunk fix = dft::tile_chunk(C::threads * u, N, M, Strided);
        const bool ok = lane_c.s + fix.s < valid;  // signals past the end are zero-filled
        const long long src_fix = Strided ? fix.s + static_cast<long long>(fix.n) * n_stride : C::threads * u;
        const double2* src = ok ? in + src_lane + src_fix : in;
        cp_async<16>(dst + dft::xor_fixed(dst_lane, dft::tile_slot(L, M, Strided, fix.s, fix.n)), src, ok ? 16 : 0);
    }
}

/// The stages of one tile in its shared-memory buffer `buf` (thread `tid`
/// of the CTA; every thread calls it), with the twiddle table io.twiddle
/// (exp(-2 pi i e/N), e < N). Each stage reads all its inputs, passes a
/// barrier and writes in place. The last stage writes the first `valid`
/// signals to io.out from `base0` (the pass's layout, n_stride for strided
/// signals). With ToShared it writes back into `buf` in the tile
/// layout instead, and a barrier follows. Until the first stage's barrier
/// the buffer must hold the loaded tile; it may be refilled once the
/// function has returned.
template <int L, class Backend, int Sign, bool Strided, bool ToShared = false,
          int PerCta = dft::tile_values(L, Strided), class Io>
__device__ __forceinline__ void fft_tile_stages(double2* buf, const dft::radix8_matrix<Sign>& f8,
                                                const dft::radix16_matrix<Sign>& f16, const Io& io, long long base0,
                                                int valid, long long n_stride, int tid)
{
    using C = fft_config<L, Strided, PerCta>;
    using K16 = f64_m16n8<16>;
    constexpr int N = C::n, M = C::signals;
    constexpr int S = dft::stages(L);
    const int warp = tid >> 5, g = (tid >> 2) & 7, t = tid & 3;
    static_for<S>([&](auto st_) {
        constexpr int stage = decltype(st_)::value;
        constexpr int R = dft::radix(L, stage);
        constexpr int p = dft::stride_before(L, stage);
        constexpr int NR = N / R;
        constexpr bool first = stage == 0, last = stage == S - 1;
        constexpr bool to_global = last && !ToShared;  // else the results go back into buf
        constexpr bool mode_b = Strided && (first || last);
        constexpr int G = (C::per_cta / R / 8) / C::warps;  // column groups per warp
        constexpr int Q = R / 4;                             // inputs per lane per column
        constexpr int RES = R == 8 ? 4 : 8;                  // result doubles per lane per group
        static_assert(G * C::warps * 8 * R == C::per_cta, "groups cover the CTA");
        double res[G][RES];

        // -- read half: every input of the warp's groups, twiddled, into the MMA.
        // Input q = t + 4 qq of column 8 (warp + warps u) + g: lane part
        // (column 8 warp + g, input t) ^ fixed part (column 8 warps u, input 4 qq)
        const dft::column rd_col = dft::column_of(8 * warp + g, NR, M, mode_b);
        const int rd_lane = dft::tile_slot(L, M, Strided, rd_col.s, rd_col.i + t * NR);
        double2 vin[G][Q];
#pragma unroll
        for (int u = 0; u < G; ++u) {
            const dft::column fix = dft::column_of(8 * C::warps * u, NR, M, mode_b);
#pragma unroll
            for (int qq = 0; qq < Q; ++qq)
                vin[u][qq] = buf[dft::xor_fixed(rd_lane, dft::tile_slot(L, M, Strided, fix.s, fix.i + 4 * qq * NR))];
        }
#pragma unroll
        for (int u = 0; u < G; ++u) {
            const dft::column fix = dft::column_of(8 * C::warps * u, NR, M, mode_b);
            double2 v[Q];
#pragma unroll
            for (int qq = 0; qq < Q; ++qq) {
                v[qq] = vin[u][qq];
                if constexpr (!first) {  // stage 1 has p = 1: every twiddle is 1
                    // i mod p of column i = lane part + fixed part (no common bit)
                    const int k_mod_p = (rd_col.i & (p - 1)) + (fix.i & (p - 1));
                    double2 w = __ldg(io.twiddle + dft::twiddle_exp_k(k_mod_p, t + 4 * qq, R, p, N));
                    if constexpr (Sign > 0) w.y = -w.y;
                    v[qq] = dft::cmul(v[qq], w);
                }
            }
            // the DFTs of the group's 8 columns (dft_stage.cuh)
            if constexpr (R == 8) {
                const frag_b<K16> b = dft::radix8_b(v);
                frag_c<K16> d;
                d = dft::radix8_stage<Backend>(f8, b);
#pragma unroll
                for (int i = 0; i < 4; ++i) res[u][i] = d.x[i];
            } else {
                frag_b<K16> b0, b1;
                dft::radix16_b(v, b0, b1);
                frag_c<K16> re, im;
                dft::radix16_stage<Backend>(f16, b0, b1, re, im);
#pragma unroll
                for (int i = 0; i < 4; ++i) res[u][i] = re.x[i], res[u][4 + i] = im.x[i];
            }
        }
        __syncthreads();  // every read of this stage is done: write in place

        // -- write half: lane (g, t) holds outputs g (and g + 8) of columns 2t, 2t+1.
        // Output r = g + 8h of column 8 (warp + warps u) + 2t + e: lane part
        // (column 8 warp + 2t, output g) ^ fixed part (column 8 warps u + e,
        // output 8h); in the last stage, after the exchange, lane part
        // dft::exchanged_slot(g, t, 0, 0) ^ fixed part exchanged_slot(0, 0, e, h)
        [[maybe_unused]] int wr_lane = 0;
        [[maybe_unused]] long long st_lane = 0;
        [[maybe_unused]] int st_s = 0;
        if constexpr (to_global) {
            const dft::store_slot sl = dft::exchanged_slot(g, t, 0, 0);
            const dft::column col = dft::column_of(8 * warp + sl.col, NR, M, mode_b);
            const int n = dft::stockham_out(col.i, sl.r, R, p);
            st_s = col.s;
            st_lane = base0 + (Strided ? col.s + static_cast<long long>(n) * n_stride : col.s * N + n);
        } else {
            const dft::column col = dft::column_of(8 * warp + 2 * t, NR, M, mode_b);
            wr_lane = dft::tile_slot(L, M, Strided, col.s, dft::stockham_out(col.i, g, R, p));
        }
#pragma unroll
        for (int u = 0; u < G; ++u) {
#pragma unroll
            for (int h = 0; h < RES / 4; ++h) {
                double2 val[2];
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    if constexpr (R == 8) val[e] = make_double2(res[u][e], res[u][2 + e]);  // rows g, g+8: Re, Im
                    else val[e] = make_double2(res[u][2 * h + e], res[u][4 + 2 * h + e]);   // Re Y_r, Im Y_r
                }
                if constexpr (to_global) {
                    // swap with lane ^ 4 so that each store covers whole sectors (dft::exchanged_slot)
                    const bool odd = g & 1;
                    const double2 send = odd ? val[0] : val[1];
                    const double2 recv = make_double2(__shfl_xor_sync(0xffffffffu, send.x, 4),
                                                      __shfl_xor_sync(0xffffffffu, send.y, 4));
                    const double2 stored[2] = {odd ? recv : val[0], odd ? val[1] : recv};
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const dft::store_slot sl = dft::exchanged_slot(0, 0, e, h);
                        const dft::column fix = dft::column_of(8 * C::warps * u + sl.col, NR, M, mode_b);
                        const int n = dft::stockham_out(fix.i, sl.r, R, p);
                        if (st_s + fix.s < valid)
                            io.out[st_lane + (Strided ? fix.s + static_cast<long long>(n) * n_stride : fix.s * N + n)] = stored[e];
                    }
                } else {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const dft::column fix = dft::column_of(8 * C::warps * u + e, NR, M, mode_b);
                        const int slot = dft::tile_slot(L, M, Strided, fix.s, dft::stockham_out(fix.i, 8 * h, R, p));
                        buf[dft::xor_fixed(wr_lane, slot)] = val[e];
                    }
                }
            }
        }
        if constexpr (!to_global) __syncthreads();
    });
}

/// Persistent pass kernel: each CTA takes tiles from the pass's counter;
/// while the stages of one tile run, cp.async brings the next buffers - 1
/// tiles into the other shared-memory buffers (swizzled as the stages read
/// them).
template <int L, class Backend, int Sign, bool Strided>
__global__ void __launch_bounds__(fft_config<L, Strided>::threads, (fft_min_blocks<Backend, L, Strided>()))
    fft_pass_kernel(const fft_pass_args a)
{
    using C = fft_config<L, Strided>;
    constexpr int M = C::signals;
    // 128-byte aligned, so that each aligned group of 8 slots (a tile-load
    // phase's row, dft::tile_chunk) is one 128-byte line of shared memory.
    // With 16-byte alignment the area followed the static variables below
    // at 0x440 (0x430 with two buffers): every row straddled two lines and
    // each LDGSTS phase of the row passes took two wavefronts (the stages'
    // bank groups only shifted by a constant)
    extern __shared__ __align__(128) double2 smem[];
    // the tile each buffer holds or receives, where it starts, its signals
    __shared__ long long held[C::buffers], held_base[C::buffers];
    __shared__ int held_valid[C::buffers];

    const int lane = threadIdx.x & 31;
    const long long tiles = (a.signals + M - 1) / M;
    const long long n_stride = Strided ? a.n_stride : 1;

    // thread 0 takes the next tile for buffer `slot`. A tile is M consecutive
    // signals (a row of the image never splits: the launcher checks that M
    // divides `row` for strided passes).
    auto take = [&](int slot) {
        const long long tile = static_cast<long long>(atomicAdd(&a.schedule->next, 1ull));
        held[slot] = tile;
        if (tile >= tiles) return;
        const long long gs0 = tile * M, left = a.signals - gs0;
        long long quo, rem;
        if (gs0 <= 0xffffffffLL && a.row <= 0xffffffffLL) {  // 32-bit division where it fits
            const unsigned q32 = static_cast<unsigned>(gs0) / static_cast<unsigned>(a.row);
            quo = q32, rem = gs0 - static_cast<long long>(q32) * a.row;
        } else {
            quo = gs0 / a.row, rem = gs0 % a.row;
        }
        held_base[slot] = quo * a.batch_stride + rem * a.sig_stride;
        held_valid[slot] = left < M ? static_cast<int>(left) : M;
    };
    // DFT operands, generated once
    const dft::radix8_matrix<Sign> f8(lane);
    const dft::radix16_matrix<Sign> f16(lane);

    // prefetch distance D = buffers - 1: tiles of k+1 .. k+D arrive while tile k runs
    constexpr int D = C::buffers - 1;
    if (threadIdx.x == 0)
        for (int d = 0; d < D; ++d) take(d);
    __syncthreads();
#pragma unroll
    for (int d = 0; d < D; ++d) {
        if (held[d] < tiles)
            fft_load_tile<L, Strided>(smem + d * C::per_cta, a.in, held_base[d], held_valid[d], n_stride,
                                      static_cast<int>(threadIdx.x));
        cp_async_commit();
    }
#pragma unroll 1
    for (int k = 0;; ++k) {
        // buffer and slot (k + D) % buffers held tile k-1: its last reads were
        // before the last stage's barrier of that tile
        if (threadIdx.x == 0) take((k + D) % C::buffers);
        cp_async_wait<D - 1>();  // tile k's copies (all but the D - 1 newest groups)
        __syncthreads();
        const long long tile = held[k % C::buffers];
        if (tile >= tiles) break;  // counters only grow: no later tile either
        // the thread's offsets, recomputed per tile from an opaque copy of its
        // index: hoisted out of the loop they would hold some 50 registers
        // for the whole kernel and cost occupancy. Per stage only the lane
        // parts are computed; the fixed parts are immediates (dft::tile_slot)
        int tid = static_cast<int>(threadIdx.x);
        asm volatile("" : "+r"(tid));
        const int next = (k + D) % C::buffers;
        if (held[next] < tiles)
            fft_load_tile<L, Strided>(smem + next * C::per_cta, a.in, held_base[next], held_valid[next], n_stride, tid);
        cp_async_commit();
        double2* const buf = smem + (k % C::buffers) * C::per_cta;
        fft_tile_stages<L, Backend, Sign, Strided>(buf, f8, f16, a, held_base[k % C::buffers], held_valid[k % C::buffers],
                                                   n_stride, tid);
    }
    // the last CTA out resets the counter for the next launch
    if (threadIdx.x == 0) {
        __threadfence();  // this CTA's takes come before its exit count
        if (atomicAdd(&a.schedule->done, 1u) == gridDim.x - 1) {
            a.schedule->next = 0;
            a.schedule->done = 0;
            __threadfence();
        }
    }
}

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
/// KiB) the tc kernel ran 7-12% slower than the two passes on an H100.
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

/// A tile's twiddle table and output (fft_tile_stages) where they are not
/// a pass's arguments.
struct fft_tile_io {
    const double2* twiddle;
    double2* out;
};

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
    const dft::radix16_matrix<Sign> f16(lane);
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
            fft_tile_stages<Lx, Backend, Sign, false, true>(row, f8, f16, row_io, 0, RC::signals, 1, tid);
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
            fft_tile_stages<Ly, Backend, Sign, true, false, CC::per_cta>(recv + q * CC::per_cta, f8, f16, col_io,
                                                                         image + c0, CC::signals, F::nx, tid);
        }
        cluster_arrive_relaxed();  // this thread has read its column tiles (the next image's pushes wait)
    }
    cluster.barrier_wait();  // pairs the last arrival: every rank leaves together
#endif
}

}  // namespace detail

/// A batched FP64 complex FFT of nx (1D) or ny x nx (2D, x fastest), both
/// powers of two from 64 to 4096. Owns the twiddle tables and a tile counter
/// (device memory); create it once, outside any timed loop. The counter
/// makes a plan's executes serial: run them on one stream (or otherwise
/// one after another), as with one cuFFT plan; use a plan per stream for
/// concurrent transforms.
class fft_plan {
public:
    /// The arguments of one pass kernel (the plan as the kernel sees it).
    using pass_args = detail::fft_pass_args;
    /// The arguments of the one-pass 2D kernel.
    using single_pass_args = detail::fft2d_args;

    fft_plan(long long nx, long long ny, long long batch) : nx_(nx), ny_(ny), batch_(batch)
    {
        constexpr const char* where = "fft_plan";
        require(batch >= 1, where, "batch must be >= 1 (got " + std::to_string(batch) + ")");
        require(ny >= 1, where, "ny must be >= 1 (1 for a 1D transform)");
        lx_ = size_log2(nx);
        require(lx_ >= 0 && dft::supported(lx_), where,
                "nx must be a power of two from 64 to 4096 (got " + std::to_string(nx) + ")");
        if (ny > 1) {
            ly_ = size_log2(ny);
            require(ly_ >= 0 && dft::supported(ly_), where,
                    "ny must be 1 or a power of two from 64 to 4096 (got " + std::to_string(ny) + ")");
            const long long m = dft::tile_values(ly_, true) / ny;
            require(nx % m == 0, where, "nx must be a multiple of " + std::to_string(m) + " for ny = " +
                                            std::to_string(ny));
        }
        require(nx * ny <= (1LL << 40) / batch, where, "transform too large");
        TCORE_CHECK(cudaMalloc(&schedule_, sizeof(detail::fft_schedule)));
        TCORE_CHECK(cudaMemset(schedule_, 0, sizeof(detail::fft_schedule)));
        tw_x_ = upload(static_cast<int>(nx));
        if (ny > 1) tw_y_ = upload(static_cast<int>(ny));
        tc_one_pass_ = single_pass_available() && dram_gbs_per_sm() < 30.0;
    }
    ~fft_plan()
    {
        cudaFree(tw_x_);
        cudaFree(tw_y_);
        cudaFree(schedule_);
    }
    fft_plan(const fft_plan&) = delete;
    fft_plan& operator=(const fft_plan&) = delete;
    fft_plan(fft_plan&& o) noexcept { swap(o); }
    fft_plan& operator=(fft_plan&& o) noexcept
    {
        swap(o);
        return *this;
    }

    long long nx() const { return nx_; }
    long long ny() const { return ny_; }
    long long batch() const { return batch_; }
    /// Complex elements of in (and out).
    long long elements() const { return nx_ * ny_ * batch_; }
    /// Kernel launches per execute (1D and one-pass 2D: 1, else 2).
    template <class Backend = default_backend>
    int passes() const
    {
        return ny_ > 1 && !single_pass<Backend>() ? 2 : 1;
    }

    /// Whether execute<Backend> makes one pass over memory in 2D: one kernel
    /// in thread-block clusters whose CTAs hold an image between them in
    /// distributed shared memory (detail::fft2d_cluster_kernel). Available
    /// for ny x nx = 256 x 256 on devices with cluster launch (sm_90). By
    /// default tc takes it where the DRAM bandwidth per SM is below 30 GB/s
    /// (dram_gbs_per_sm), cc never: 2026-11-27, batch 2048, forward, one
    /// pass against two and cuFFT, H100 (25 GB/s an SM): tc 2.82 ms against
    /// 2.90 and 2.88, cc 8.34 against 6.46; H200 (36 GB/s an SM): tc 2.73
    /// against 2.33 and 2.09. set_single_pass overrides the default for
    /// both backends. (Where the device fits no cluster of 16 such CTAs,
    /// execute makes the two passes.)
    template <class Backend = default_backend>
    bool single_pass() const
    {
        return choice_ == pass_choice::one ||
               (choice_ == pass_choice::automatic && std::is_same_v<Backend, tensor_core> && tc_one_pass_);
    }
    /// Whether set_single_pass(true) is possible: a one-pass kernel for this
    /// size (256 x 256) and cluster launch on the current device.
    bool single_pass_available() const
    {
        if (!(lx_ == 8 && ly_ == 8)) return false;
        int dev = 0, clusters = 0;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        return clusters != 0;
    }

    /// Chooses one pass (where available: else throws) or the two passes.
    void set_single_pass(bool on)
    {
        require(!on || single_pass_available(), "fft_plan::set_single_pass",
                "no one-pass kernel for " + std::to_string(ny_) + " x " + std::to_string(nx_) +
                    " on this device (256 x 256 on a device with thread-block clusters)");
        choice_ = on ? pass_choice::one : pass_choice::two;
    }

    /// out = FFT(in) on `Backend` (tcore::tensor_core: tc, tcore::cuda_core: cc).
    template <class Backend = default_backend>
    void execute(const double2* in, double2* out, fft_direction dir, cudaStream_t stream = 0) const
    {
        static_assert(is_backend_v<Backend>, "Backend must be tcore::tensor_core or tcore::cuda_core");
        constexpr const char* where = "fft_plan::execute";
        require(tw_x_ != nullptr, where, "the plan was moved from");
        require(in != nullptr && out != nullptr, where, "null data pointer");
        require(tcore::aligned(in, 16) && tcore::aligned(out, 16), where, "data must be 16-byte aligned");
        const long long count = elements();
        require(in == out || in + count <= out || out + count <= in, where,
                "in and out overlap without being the same array");
        require(dir == fft_direction::forward || dir == fft_direction::inverse, where, "bad direction");
        if (ny_ > 1 && single_pass<Backend>()) {
            const detail::fft2d_args a{in, out, batch_, tw_x_, tw_y_};
            const bool fwd = dir == fft_direction::forward;
            const bool launched = fwd ? launch_2d_l<8, 8, Backend, -1>(a, stream) : launch_2d_l<8, 8, Backend, 1>(a, stream);
            if (launched) return;  // else no cluster of its size fits this device: two passes
        }
        // rows: signal gs starts at gs * nx
        detail::fft_pass_args rows{in, out, batch_ * ny_, 1, nx_, nx_, 1, tw_x_, schedule_};
        if (dir == fft_direction::forward) launch<Backend, -1, false>(lx_, rows, stream);
        else launch<Backend, 1, false>(lx_, rows, stream);
        if (ny_ > 1) {
            // columns: signal gs = (image b, column c), gs = b * nx + c
            detail::fft_pass_args cols{out, out, batch_ * nx_, nx_, nx_ * ny_, 1, nx_, tw_y_,
                                          schedule_};
            if (dir == fft_direction::forward) launch<Backend, -1, true>(ly_, cols, stream);
            else launch<Backend, 1, true>(ly_, cols, stream);
        }
    }

private:
    long long nx_ = 0, ny_ = 0, batch_ = 0;
    int lx_ = -1, ly_ = -1;
    double2* tw_x_ = nullptr;
    double2* tw_y_ = nullptr;
    detail::fft_schedule* schedule_ = nullptr;  ///< the passes' tile counter (they run one after another)
    enum class pass_choice { automatic, one, two };
    pass_choice choice_ = pass_choice::automatic;  ///< set_single_pass
    bool tc_one_pass_ = false;                     ///< tc's automatic choice (single_pass)

    void swap(fft_plan& o) noexcept
    {
        std::swap(nx_, o.nx_), std::swap(ny_, o.ny_), std::swap(batch_, o.batch_);
        std::swap(lx_, o.lx_), std::swap(ly_, o.ly_), std::swap(tw_x_, o.tw_x_), std::swap(tw_y_, o.tw_y_);
        std::swap(schedule_, o.schedule_), std::swap(choice_, o.choice_), std::swap(tc_one_pass_, o.tc_one_pass_);
    }

    static int size_log2(long long n)
    {
        if (n < 1 || (n & (n - 1)) != 0) return -1;
        int l = 0;
        while ((1LL << l) < n) ++l;
        return l;
    }

    static double2* upload(int n)
    {
        const auto t = dft::twiddle_table(n, -1);
        double2* d = nullptr;
        TCORE_CHECK(cudaMalloc(&d, sizeof(double2) * t.size()));
        const cudaError_t st = cudaMemcpy(d, t.data(), sizeof(double2) * t.size(), cudaMemcpyHostToDevice);
        if (st != cudaSuccess) {
            cudaFree(d);
            TCORE_CHECK(st);
        }
        return d;
    }

    // One pass for N = 2^L. Defined below the class, not inline, so that a
    // program can compile each pass kernel once (an explicit instantiation
    // of launch_l) and declare it `extern template` elsewhere.
    template <int L, class Backend, int Sign, bool Strided>
    static void launch_l(const pass_args& a, cudaStream_t stream);

    // The one-pass 2D kernel of 2^Ly x 2^Lx (likewise defined below the
    // class); false (nothing launched) where the device fits none of its
    // clusters.
    template <int Lx, int Ly, class Backend, int Sign>
    static bool launch_2d_l(const single_pass_args& a, cudaStream_t stream);

    template <class Backend, int Sign, bool Strided>
    static void launch(int l, const detail::fft_pass_args& a, cudaStream_t stream)
    {
        switch (l) {
        case 6: return launch_l<6, Backend, Sign, Strided>(a, stream);
        case 7: return launch_l<7, Backend, Sign, Strided>(a, stream);
        case 8: return launch_l<8, Backend, Sign, Strided>(a, stream);
        case 9: return launch_l<9, Backend, Sign, Strided>(a, stream);
        case 10: return launch_l<10, Backend, Sign, Strided>(a, stream);
        case 11: return launch_l<11, Backend, Sign, Strided>(a, stream);
        case 12: return launch_l<12, Backend, Sign, Strided>(a, stream);
        default: throw error("fft_plan: unsupported size 2^" + std::to_string(l));
        }
    }
};

template <int L, class Backend, int Sign, bool Strided>
void fft_plan::launch_l(const pass_args& a, cudaStream_t stream)
{
    using C = detail::fft_config<L, Strided>;
    // the kernel takes these strides as constants (fft_pass_args)
    require(Strided ? a.sig_stride == 1 && a.row % C::signals == 0 : a.sig_stride == C::n && a.n_stride == 1,
            "fft_plan", "internal: pass arguments do not match the kernel's fixed strides");
    const long long tiles = tcore::ceil_div(a.signals, C::signals);
    auto kernel = detail::fft_pass_kernel<L, Backend, Sign, Strided>;
    // once per device: raise the dynamic shared-memory limit, count the resident CTAs
    static int resident[64] = {};
    int dev = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    int full = dev >= 0 && dev < 64 ? resident[dev] : 0;
    if (full == 0) {
        TCORE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(C::smem_bytes)));
        full = tcore::sm_count() * tcore::blocks_per_sm(kernel, C::threads, C::smem_bytes);
        if (dev >= 0 && dev < 64) resident[dev] = full;
    }
    const long long blocks = tiles < full ? tiles : full;  // persistent: a CTA loops over tiles
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
    TCORE_CHECK_LAUNCH();
}

template <int Lx, int Ly, class Backend, int Sign>
bool fft_plan::launch_2d_l(const single_pass_args& a, cudaStream_t stream)
{
    using F = detail::fft2d_config<Lx, Ly>;
    auto kernel = detail::fft2d_cluster_kernel<Lx, Ly, Backend, Sign>;
    cudaLaunchAttribute cluster_dim[1];
    cluster_dim[0].id = cudaLaunchAttributeClusterDimension;
    cluster_dim[0].val.clusterDim.x = F::ranks;
    cluster_dim[0].val.clusterDim.y = 1;
    cluster_dim[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(F::threads);
    cfg.dynamicSmemBytes = F::smem_bytes;
    cfg.stream = stream;
    cfg.attrs = cluster_dim;
    cfg.numAttrs = 1;
    // once per device: raise the dynamic shared-memory limit, count the
    // clusters that fit at once (-1: none)
    static int resident[64] = {};
    int dev = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    int clusters = dev >= 0 && dev < 64 ? resident[dev] : 0;
    if (clusters == 0) {
        TCORE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(F::smem_bytes)));
        // a device that refuses the cluster size (a non-portable 16) or fits
        // none of these clusters gets the two passes
        cfg.gridDim = dim3(F::ranks);
        const bool sized = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
        if (!sized || cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) != cudaSuccess) {
            cudaGetLastError();
            clusters = 0;
        }
        if (clusters <= 0) clusters = -1;
        if (dev >= 0 && dev < 64) resident[dev] = clusters;
    }
    if (clusters < 0) return false;
    const long long grid = a.images < clusters ? a.images : clusters;  // persistent: a cluster loops over images
    cfg.gridDim = dim3(static_cast<unsigned>(grid * F::ranks));
    TCORE_CHECK(cudaLaunchKernelEx(&cfg, kernel, a));
    TCORE_CHECK_LAUNCH();
    return true;
}

}  // namespace tcore
