// tcore/patterns/device/fft_pass.cuh - the persistent kernel of one FFT
// pass (all rows, or all columns, of a batch): fft_pass_kernel, its
// arguments (fft_pass_args) and its tile counter (fft_schedule); and the
// one-tile-a-CTA kernel of the rows of N = 2048 and the columns of N = 256
// (fft_direct_kernel). Launched by fft_plan (fft.cuh).
//
// The grid fills the device once (the tc kernels of 256 threads are built
// for 2 CTAs per SM); CTAs take tiles from a counter in device memory
// (atomicAdd: the tiles in work stay one contiguous window, which keeps the
// column passes' DRAM rows shared between neighbouring tiles) and hold 2 or
// 3 tile buffers in shared memory: cp.async brings the next tiles into the
// others while the stages of one tile run (fft_tile.cuh).
#pragma once

#include "fft_tile.cuh"

#include <type_traits>

namespace tcore {
namespace detail {

/// Resident CTAs per SM the tc kernels are built for (register cap 65536 /
/// (threads x blocks)): several, so that one CTA's stages overlap the
/// others' barriers, where their tiles fit in shared memory. Three for the
/// 128-thread tiles (two 32 KiB buffers each, at most 170 registers: 12
/// warps an SM instead of 8 with two CTAs of three buffers; the
/// measurements are in examples/fft/README.md), else two. The cc kernels
/// (the MMA emulated with shuffles, more live registers), the 512-thread
/// tiles and N = 4096 (128 KiB of tiles) get one.
template <class Backend, int L, bool Strided, int TileValues = dft::tile_values(L, Strided)>
constexpr int fft_min_blocks()
{
    using C = fft_config<L, Strided, TileValues>;
    constexpr bool tc = std::is_same_v<Backend, tensor_core>;
    if (tc && C::threads <= 128 && 3 * C::smem_bytes <= 227 * 1024) return 3;
    return tc && C::threads < 512 && 2 * C::smem_bytes <= 227 * 1024 ? 2 : 1;
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

/// Persistent pass kernel: each CTA takes tiles from the pass's counter;
/// while the stages of one tile run, cp.async brings the next buffers - 1
/// tiles into the other shared-memory buffers (swizzled as the stages read
/// them). TileValues: fft_config's. TakeAhead (fft_plan::take_ahead):
/// thread 0 takes each tile number one take ahead, so that the counter's
/// atomic overlaps a tile's stages instead of delaying the barrier before
/// them; a CTA exits holding one number it never uses, past the last tile
/// (numbers only grow).
template <int L, class Backend, int Sign, bool Strided, int TileValues = dft::tile_values(L, Strided),
          bool TakeAhead = false>
__global__ void __launch_bounds__(fft_config<L, Strided, TileValues>::threads,
                                  (fft_min_blocks<Backend, L, Strided, TileValues>()))
    fft_pass_kernel(const fft_pass_args a)
{
    using C = fft_config<L, Strided, TileValues>;
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
    // a tile of one signal always holds it: no bounds test in its load or
    // its stores (taken with TakeAhead, the form it was measured in)
    constexpr bool whole = TakeAhead && M == 1;

    // thread 0 takes the next tile for buffer `slot`. A tile is M consecutive
    // signals (a row of the image never splits: the launcher checks that M
    // divides `row` for strided passes).
    // TakeAhead: thread 0 holds the number the next take hands out
    [[maybe_unused]] unsigned long long ahead = 0;
    if constexpr (TakeAhead)
        if (threadIdx.x == 0) ahead = atomicAdd(&a.schedule->next, 1ull);
    auto take = [&](int slot) {
        long long tile;
        if constexpr (TakeAhead) {
            tile = static_cast<long long>(ahead);
            ahead = atomicAdd(&a.schedule->next, 1ull);
        } else {
            tile = static_cast<long long>(atomicAdd(&a.schedule->next, 1ull));
        }
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
    // DFT operand, generated once
    const dft::radix8_matrix<Sign> f8(lane);

    // prefetch distance D = buffers - 1: tiles of k+1 .. k+D arrive while tile k runs
    constexpr int D = C::buffers - 1;
    if (threadIdx.x == 0)
        for (int d = 0; d < D; ++d) take(d);
    __syncthreads();
#pragma unroll
    for (int d = 0; d < D; ++d) {
        if (held[d] < tiles)
            fft_load_tile<L, Strided, TileValues, whole>(smem + d * C::per_cta, a.in, held_base[d], held_valid[d],
                                                         n_stride, static_cast<int>(threadIdx.x));
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
            fft_load_tile<L, Strided, TileValues, whole>(smem + next * C::per_cta, a.in, held_base[next],
                                                         held_valid[next], n_stride, tid);
        cp_async_commit();
        double2* const buf = smem + (k % C::buffers) * C::per_cta;
        fft_tile_stages<L, Backend, Sign, Strided, false, TileValues>(
            buf, f8, a, held_base[k % C::buffers], whole ? M : held_valid[k % C::buffers], n_stride, tid);
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

/// The row pass of N = 2048 and the column pass of N = 256 where DRAM is
/// fast (fft_plan::direct_rows, direct_columns): one tile a CTA, no
/// counter, no tile buffer to fill. The first stage loads its inputs from
/// global memory straight into the MMA operands and writes its results into
/// the CTA's one buffer (the exchange); after one barrier the last stage
/// reads them and stores to global memory. Resident CTAs hide the latency
/// instead of cp.async: for the rows four CTAs of 128 threads an SM (16
/// warps, at most 128 registers) against three, for the columns three of
/// 256 threads (24 warps, at most 85 registers) against two.
template <class Backend, int L, bool Strided>
__host__ __device__ constexpr int fft_direct_min_blocks()
{
    if (!std::is_same_v<Backend, tensor_core>) return 1;
    return Strided ? 3 : 512 / fft_config<L, false>::threads;
}

template <int L, class Backend, int Sign, bool Strided>
__global__ void __launch_bounds__(fft_config<L, Strided>::threads, (fft_direct_min_blocks<Backend, L, Strided>()))
    fft_direct_kernel(const fft_pass_args a)
{
    using C = fft_config<L, Strided>;
    extern __shared__ __align__(128) double2 smem[];
    const long long gs0 = static_cast<long long>(blockIdx.x) * C::signals, left = a.signals - gs0;
    if constexpr (Strided) {
        // a tile's M columns lie in one image row (the launcher checks that M
        // divides `row`). The tile's start comes before the DFT operand, so
        // that ptxas issues the tile's loads first (computed after it, they
        // came some 290 instructions later)
        const int valid = left < C::signals ? static_cast<int>(left) : C::signals;
        const int tid = static_cast<int>(threadIdx.x);
        const long long base = (gs0 / a.row) * a.batch_stride + gs0 % a.row;
        const dft::radix8_matrix<Sign> f8(tid & 31);
        fft_tile_stages<L, Backend, Sign, true, false, C::per_cta, true>(smem, f8, a, base, valid, a.n_stride, tid);
    } else {
        const dft::radix8_matrix<Sign> f8(static_cast<int>(threadIdx.x) & 31);
        fft_tile_stages<L, Backend, Sign, false, false, C::per_cta, true>(
            smem, f8, a, gs0 * C::n, left < C::signals ? static_cast<int>(left) : C::signals, 1,
            static_cast<int>(threadIdx.x));
    }
}

}  // namespace detail
}  // namespace tcore
