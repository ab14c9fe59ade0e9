// tcore/patterns/device/fft_tile.cuh - one FFT tile in shared memory: its
// shape (fft_config), its load (fft_load_tile) and its Stockham stages on the
// FP64 MMA (fft_tile_stages, the split stages of dft_stage.cuh). The
// building blocks of the pass kernel (fft_pass.cuh) and the one-pass 2D
// kernel (fft_cluster.cuh).
//
// A tile is 2048 complex values (4096 for N = 4096, and for the column pass
// of N = 512 in line tiles: dft::tile_values, dft::line_tile_values): M =
// 2048/N (4096/N) signals, 8 or 16 values per thread (dft::tile_threads:
// 128 to 512 threads a CTA). cp.async (16-byte chunks, coalesced,
// zero-fill past the last signal) brings a tile into its buffer without
// holding registers. The stages work in place in the buffer (all reads of
// a stage, a barrier, all writes), with the swizzle of dft::swizzle; the
// last stage writes straight to global memory after swapping one value
// with the neighbouring lane (dft::exchanged_slot), so that each store
// instruction writes whole 32-byte sectors, or back into the buffer. Each
// warp owns groups of 8 columns per stage (R/4 inputs a lane each); every
// lane keeps its 8 or 16 complex results in registers between the read
// and the write half of a stage.
//
// Strided tiles (the column pass of a 2D transform: signals of ny with
// stride nx) map the 8 MMA columns of their first and last stage to 8
// adjacent columns of the image (mode b of dft::column_of); such a tile is
// ny rows of M adjacent columns, stored n-major so that each 8-lane phase of
// the tile load reads one 128-byte image-row piece (8 columns; for M < 8 the
// M columns of 8/M rows) into one 128-byte row of slots (dft::tile_slot),
// and its results are stored as whole sectors.
#pragma once

#include "../../infra/async_copy.cuh"
#include "../dft.cuh"
#include "../dft_stage.cuh"

#include <cuda_runtime.h>

#include <cstddef>

namespace tcore {
namespace detail {

/// TileValues: the passes' tile (dft::tile_values, or dft::line_tile_values
/// for the columns of N = 512), and the one-pass 2D kernel's column tiles.
template <int L, bool Strided, int TileValues = dft::tile_values(L, Strided)>
struct fft_config {
    static_assert(dft::supported(L), "FFT sizes are 2^6 .. 2^12");
    static constexpr int n = 1 << L;
    static constexpr int per_cta = TileValues;  ///< complex values per tile
    static constexpr int signals = per_cta / n;  ///< M
    /// dft::tile_threads; other tiles (dft::line_tile_values) 8 values a thread
    static constexpr int threads = TileValues == dft::tile_values(L, Strided) ? dft::tile_threads(L, Strided)
                                                                                : per_cta / 8;
    static constexpr int warps = threads / 32;
    /// Tiles in shared memory: the one in work and buffers - 1 arriving. Three
    /// for the row passes of 256 threads (N <= 256); two for the 128-thread
    /// tiles (N = 512 to 2048 rows, 2048 columns), which run three CTAs an SM
    /// instead (fft_min_blocks), for N = 4096 (64 KiB tiles: three measured
    /// slower) and the column passes, where the third buffer's 32 KiB is
    /// worth more as L1 (twiddle table) (examples/fft/README.md).
    static constexpr int buffers = !Strided && threads > 128 && L <= 11 ? 3 : 2;
    static constexpr std::size_t smem_bytes = sizeof(double2) * per_cta * buffers;
};

/// A tile's twiddle table and output (fft_tile_stages) where they are not
/// a pass's arguments.
struct fft_tile_io {
    const double2* twiddle;
    double2* out;
};

/// Issues the cp.async copies of one tile (`valid` of its M signals from
/// `base` in `in`; the rest zero-filled) into `dst` in the tile layout,
/// swizzled as the stages read it; thread `tid` of the CTA. Chunk
/// j = tid + threads u of the tile: lane part (tid) and fixed part (u) of
/// its slot and source offset (s N + n = j for contiguous signals, s + n nx
/// for strided ones), see dft::tile_slot and dft::tile_chunk. Whole: the
/// caller loads only tiles of M signals (valid == M), no chunk is tested.
template <int L, bool Strided, int TileValues = dft::tile_values(L, Strided), bool Whole = false>
__device__ __forceinline__ void fft_load_tile(double2* dst, const double2* in, long long base, int valid,
                                              long long n_stride, int tid)
{
    using C = fft_config<L, Strided, TileValues>;
    constexpr int N = C::n, M = C::signals;
    const dft::chunk lane_c = dft::tile_chunk(tid, N, M, Strided);
    const int dst_lane = dft::tile_slot(L, M, Strided, lane_c.s, lane_c.n);
    const long long src_lane = base + (Strided ? lane_c.s + static_cast<long long>(lane_c.n) * n_stride : tid);
#pragma unroll
    for (int u = 0; u < C::per_cta / C::threads; ++u) {
        const dft::chunk fix = dft::tile_chunk(C::threads * u, N, M, Strided);
        const bool ok = Whole || lane_c.s + fix.s < valid;  // signals past the end are zero-filled
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
///
/// Direct: the tile is not in `buf`; the first stage reads its inputs from
/// io.in (the pass's layout from `base0`, zeros past `valid`) straight
/// into the MMA operands, and neither the first nor the last stage waits
/// between its reads and its writes: for a CTA that runs one tile
/// (fft_direct_kernel), whose buffer serves only the exchange between the
/// stages.
template <int L, class Backend, int Sign, bool Strided, bool ToShared = false,
          int TileValues = dft::tile_values(L, Strided), bool Direct = false, class Io>
__device__ __forceinline__ void fft_tile_stages(double2* buf, const dft::radix8_matrix<Sign>& f8, const Io& io,
                                                long long base0, int valid, long long n_stride, int tid)
{
    static_assert(!Direct || !ToShared, "direct tiles are stored to global memory");
    using C = fft_config<L, Strided, TileValues>;
    using K16 = f64_m16n8<16>;
    constexpr int N = C::n, M = C::signals;
    constexpr int S = dft::stages(L);
    const int warp = tid >> 5, g = (tid >> 2) & 7, t = tid & 3;
    const double2* const in = [&] {  // the input of a direct tile
        if constexpr (Direct) return io.in;
        else return static_cast<const double2*>(nullptr);
    }();
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
        static_assert(G * C::warps * 8 * R == C::per_cta, "groups cover the CTA");
        // per group: outputs g + 8h of columns 2t + e, Re at 4h + e, Im at 4h + 2 + e
        double res[G][R / 2];

        // -- read half: every input of the warp's groups, twiddled, into the MMA.
        // Input q = dft::stage_input(t, qq, R) of column 8 (warp + warps u) + g:
        // lane part (column 8 warp + g, input stage_input(t, 0, R)) ^ fixed part
        // (column 8 warps u, input stage_input(0, qq, R))
        const dft::column rd_col = dft::column_of(8 * warp + g, NR, M, mode_b);
        const int rd_lane = dft::tile_slot(L, M, Strided, rd_col.s, rd_col.i + dft::stage_input(t, 0, R) * NR);
        double2 vin[G][Q];
        if constexpr (Direct && first) {
            // element n of signal s at base0 + s N + n (strided: s + n n_stride):
            // lane part + fixed part (no common bit)
            const double2* rd_glob =
                in + base0 + static_cast<long long>(rd_col.s) * N + rd_col.i + dft::stage_input(t, 0, R) * NR;
            if constexpr (Strided)
                rd_glob = in + base0 + rd_col.s + (rd_col.i + dft::stage_input(t, 0, R) * NR) * n_stride;
#pragma unroll
            for (int u = 0; u < G; ++u) {
                const dft::column fix = dft::column_of(8 * C::warps * u, NR, M, mode_b);
#pragma unroll
                for (int qq = 0; qq < Q; ++qq) {
                    const int n_fix = fix.i + dft::stage_input(0, qq, R) * NR;
                    vin[u][qq] = rd_col.s + fix.s < valid
                                     ? rd_glob[Strided ? fix.s + n_fix * n_stride : fix.s * N + n_fix]
                                     : make_double2(0.0, 0.0);
                }
            }
        } else {
#pragma unroll
            for (int u = 0; u < G; ++u) {
                const dft::column fix = dft::column_of(8 * C::warps * u, NR, M, mode_b);
#pragma unroll
                for (int qq = 0; qq < Q; ++qq)
                    vin[u][qq] = buf[dft::xor_fixed(
                        rd_lane, dft::tile_slot(L, M, Strided, fix.s, fix.i + dft::stage_input(0, qq, R) * NR))];
            }
        }
        double2 w_split[R / 8];
#pragma unroll
        for (int q0 = 0; q0 < R / 8; ++q0) {  // exp(Sign 2 pi i q0 g / R) from the table
            w_split[q0] = __ldg(io.twiddle + q0 * g * (N / R));
            if constexpr (Sign > 0) w_split[q0].y = -w_split[q0].y;
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
                    double2 w = __ldg(io.twiddle + dft::twiddle_exp_k(k_mod_p, dft::stage_input(t, qq, R), R, p, N));
                    if constexpr (Sign > 0) w.y = -w.y;
                    v[qq] = dft::cmul(v[qq], w);
                }
            }
            // the DFTs of the group's 8 columns (dft_stage.cuh)
            frag_c<K16> y[R / 8];
            dft::split_stage<Backend, R>(f8, v, w_split, y);
#pragma unroll
            for (int h = 0; h < R / 8; ++h)
#pragma unroll
                for (int i = 0; i < 4; ++i) res[u][4 * h + i] = y[h].x[i];
        }
        // every read of this stage is done: write in place (a direct tile's
        // first stage read global memory, its last writes there)
        if constexpr (!(Direct && (first || last))) __syncthreads();

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
            for (int h = 0; h < R / 8; ++h) {
                double2 val[2];
#pragma unroll
                for (int e = 0; e < 2; ++e) val[e] = make_double2(res[u][4 * h + e], res[u][4 * h + 2 + e]);
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

}  // namespace detail
}  // namespace tcore
