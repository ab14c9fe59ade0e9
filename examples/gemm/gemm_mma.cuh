// examples/gemm/gemm_mma.cuh - a tiled GEMM built from tcore's fragments:
// shared-memory tiles filled by a multi-stage cp.async pipeline, warp tiles
// of MMA fragments, templated on the tile configuration, the MMA Shape and
// the Backend (tensor_core = `tc`, cuda_core = `cc`: the same kernel with
// every MMA done by shuffles and FMAs).
//
//   gemm_f64<Backend, Shape>  FP64, f64_m16n8k16 by default (DMMA.16x8x16 on
//                             sm_90; sm_80 runs the same registers as
//                             DMMA.884; cuda_core: m16n8k4 steps, see
//                             default_f64_shape), f64_m8n8k4 for the Cubie
//                             shape
//   gemm_tf32<Backend>        FP32 data, TF32 m16n8k8 (cvt.rna), FP32 C
//   gemm_f16<Backend>         FP16 data, m16n8k16 with FP32 accumulators
//
// C = A*B, row-major, alpha = 1, beta = 0 (gemm_common.cuh).
//
// Per block (configs below): BM x BN output tile, K walked in BK slices; the
// A slice (BM x BK) and B slice (BK x BN) of `Stages` slices in flight live
// in shared memory, row-major with padded rows. Each warp owns a WM x WN
// tile = (WM/m) x (WN/n) accumulators. Per k-step a warp loads the B
// fragments of its WN columns once, then for each m-tile the A fragment and
// issues WN/n MMAs with it. With Cfg::prefetch (TF32, FP16) the fragments
// of step ks+1 are loaded into a second register set before the MMAs of
// step ks, and the slice boundary (wait, barrier, refill) sits between the
// last step's loads and its MMAs: with one block of 8 warps per SM (two per
// scheduler) nothing else hides the shared-memory latency.
//
// Fragment loads from shared memory follow the shapes' lane maps (all of
// them are "separable": coord(lane, i) = coord(lane, 0) + coord(0, i) -
// coord(0, 0), checked at compile time), so a lane adds a constant per
// element to one base offset computed once. 16-bit A and B and TF32 A use
// ldmatrix (docs/mma-fragments.md §8 recipes). The row paddings make every
// fragment load conflict-free:
//   FP64 (LDS.64, per half-warp): A stride BK+4 = 20 = 4 (mod 16) doubles,
//     B stride BN+4 = 132 = 4 (mod 16): lanes (g, t) hit 4g+t / 4t+g.
//   TF32: A by ldmatrix, 144-byte rows: 8 rows land in 8 distinct 16-byte
//     bank groups; B (LDS.32) stride BN+8 = 264 = 8 (mod 32): 8t+g.
//   FP16: A rows 80 bytes, B rows 528 bytes: 8 distinct 16-byte groups.
//
// Edges: any M, N, K. Loads outside the matrices are zero-filled (cp.async
// with source size 0), stores are guarded. The copy mode is chosen per call:
//   vec16  16-byte cp.async chunks: A, B 16-byte aligned, lda, ldb, K and N
//          multiples of 16 bytes of elements (a chunk is all in or all out)
//   elem   one cp.async per element (4- and 8-byte types), any alignment
//   sync   plain loads and shared stores (FP16 when not vec16)
// C is written with 2-element vector stores where C and ldc allow.
#pragma once

#include "gemm_common.cuh"

#include <tcore/tcore.cuh>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace tcore::examples::gemm {

/// Block tile BM x BN x BK, warp tile WM x WN, `Stages` slices in flight,
/// at least `MinBlocks` blocks per SM (register budget), `Prefetch`: load
/// the fragments of the next k-step while the MMAs of this one run.
template <class T, int BM_, int BN_, int BK_, int WM_, int WN_, int Stages_, int MinBlocks_, bool Prefetch_ = false>
struct tile_config {
    using value_type = T;
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_;
    static constexpr int stages = Stages_, min_blocks = MinBlocks_;
    static constexpr bool prefetch = Prefetch_;  ///< fragments loaded one k-step ahead
    static constexpr int warps_m = BM / WM, warps_n = BN / WN;
    static constexpr int threads = 32 * warps_m * warps_n;
    static constexpr int chunk = 16 / static_cast<int>(sizeof(T));  ///< elements per 16-byte copy
    static constexpr int pad_a = sizeof(T) == 2 ? 8 : 4;
    static constexpr int pad_b = sizeof(T) == 8 ? 4 : 8;
    static constexpr int lda = BK + pad_a;  ///< shared-memory row strides (elements)
    static constexpr int ldb = BN + pad_b;
    static constexpr int a_elems = BM * lda, b_elems = BK * ldb;  ///< per stage
    static constexpr std::size_t smem_bytes = std::size_t(stages) * (a_elems + b_elems) * sizeof(T);
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must cover the block tile");
    static_assert(stages >= 2, "the pipeline needs at least two stages");
    static_assert((BM * BK) % (threads * chunk) == 0 && (BK * BN) % (threads * chunk) == 0,
                  "16-byte chunks must divide evenly among the threads");
    static_assert((lda * sizeof(T)) % 16 == 0 && (ldb * sizeof(T)) % 16 == 0,
                  "shared rows must stay 16-byte aligned (cp.async, ldmatrix)");
};

// Block tiles are as large as the register file allows at one block of 8
// warps per SM (FP64: the 128x128 accumulators fill half of it): the larger
// the tile, the fewer bytes per flop come from L2 (FP64 128x128: 16 flop/B).
// BK is chosen so that one slice keeps the MMA pipe busy for well over a
// thousand cycles per SM sub-partition between two barriers.

/// FP64: 128x128x16, 8 warps of 64x32, 4 stages (146 KiB, fits sm_80 too),
/// 1 block/SM, no fragment prefetch (a second set of FP64 fragments does
/// not fit beside the accumulators). 64 accumulators (128 registers) per lane; 4 x 4 m16n8k16
/// MMAs per warp and slice (~2000 cycles per sub-partition at 66 TFLOP/s).
using f64_config = tile_config<double, 128, 128, 16, 64, 32, 4, 1>;
/// FP64 with BK = 32 and 3 stages (207 KiB: sm_90 only): half the barriers.
using f64_config_bk32 = tile_config<double, 128, 128, 32, 64, 32, 3, 1>;
/// TF32: 128x256x32, 8 warps of 64x64, 3 stages (153 KiB), 1 block/SM,
/// fragments prefetched one k-step ahead (the warps are latency-bound at
/// two per scheduler: on an H100 this took the kernel from 46% to 56% of
/// the TF32 peak, and FP16 from 47% to 52%).
using tf32_config = tile_config<float, 128, 256, 32, 64, 64, 3, 1, true>;
/// FP16: 128x256x64, 8 warps of 64x64, 3 stages (153 KiB), 1 block/SM,
/// fragments prefetched.
using f16_config = tile_config<__half, 128, 256, 64, 64, 64, 3, 1, true>;

enum class copy_mode { vec16, elem, sync };

namespace impl {

// -- ldmatrix (sm_75; plain code below); copies: tcore/infra/async_copy.cuh ---------

/// ldmatrix .x4 (trans = false) or .x4.trans; lane l gives the row address
/// for row l % 8 of matrix l / 8. Only used where cuda_arch() >= 750.
template <bool Trans>
__device__ inline void ldsm_x4(unsigned (&r)[4], const void* row_addr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    if constexpr (Trans)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(smem_address(row_addr)));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(smem_address(row_addr)));
#else
    (void)row_addr;
    r[0] = r[1] = r[2] = r[3] = 0;
    __trap();
#endif
}

// -- lane maps as base + constant ---------------------------------------------

/// True if every lane's map is its element-0 position plus a lane-independent
/// offset (true for all mma.sync layouts): lets loads use one base per lane.
template <class Shape>
__host__ __device__ constexpr bool lane_separable()
{
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < Shape::a_count; ++i) {
            const coord x = Shape::a_coord(lane, i), b = Shape::a_coord(lane, 0), d0 = Shape::a_coord(0, i),
                        z = Shape::a_coord(0, 0);
            if (x.row != b.row + d0.row - z.row || x.col != b.col + d0.col - z.col) return false;
        }
        for (int i = 0; i < Shape::b_count; ++i) {
            const coord x = Shape::b_coord(lane, i), b = Shape::b_coord(lane, 0), d0 = Shape::b_coord(0, i),
                        z = Shape::b_coord(0, 0);
            if (x.row != b.row + d0.row - z.row || x.col != b.col + d0.col - z.col) return false;
        }
        for (int i = 0; i < Shape::c_count; ++i) {
            const coord x = Shape::c_coord(lane, i), b = Shape::c_coord(lane, 0), d0 = Shape::c_coord(0, i),
                        z = Shape::c_coord(0, 0);
            if (x.row != b.row + d0.row - z.row || x.col != b.col + d0.col - z.col) return false;
        }
    }
    return true;
}

/// Accumulator elements come in pairs (2p, 2p+1) on one row, adjacent columns.
template <class Shape>
__host__ __device__ constexpr bool c_pairs_adjacent()
{
    if (Shape::c_count % 2 != 0) return false;
    for (int i = 0; i < Shape::c_count; i += 2) {
        const coord x = Shape::c_coord(0, i), y = Shape::c_coord(0, i + 1);
        if (y.row != x.row || y.col != x.col + 1 || x.col % 2 != 0) return false;
    }
    return true;
}

/// Shapes whose A / B fragments can be read with ldmatrix (16-bit A and B,
/// TF32 A: 32-bit words of 8x4-word blocks; TF32 B would need a transpose
/// of 32-bit words, which ldmatrix cannot do).
template <class Shape>
inline constexpr bool ldsm_a_shape = std::is_same_v<Shape, tf32_m16n8k8> || std::is_same_v<Shape, f16_m16n8k16_f32acc>;
template <class Shape>
inline constexpr bool ldsm_b_shape = std::is_same_v<Shape, f16_m16n8k16_f32acc>;

/// Reads a warp's fragments from the shared-memory slices (row strides LDA,
/// LDB). Ldsm: use ldmatrix where the shape allows (sm_75+).
template <class Shape, int LDA, int LDB, bool Ldsm = (cuda_arch() >= 750)>
struct frag_reader {
    static_assert(lane_separable<Shape>(), "fragment maps must be lane-separable");
    static constexpr bool a_ldsm = Ldsm && ldsm_a_shape<Shape>;
    static constexpr bool b_ldsm = Ldsm && ldsm_b_shape<Shape>;

    /// Element offset of the lane's first A element, or with ldmatrix .x4 of
    /// the row it addresses: lanes 0-15 rows 0-15 at column 0, lanes 16-31
    /// the same rows 16 bytes further (column 8 for FP16, 4 for TF32).
    __host__ __device__ static constexpr int a_lane_offset(int lane)
    {
        if constexpr (a_ldsm) return (lane & 15) * LDA + (lane >> 4) * (16 / static_cast<int>(sizeof(typename Shape::a_type)));
        else return Shape::a_coord(lane, 0).row * LDA + Shape::a_coord(lane, 0).col;
    }
    /// Same for B; ldmatrix .x4.trans covers two n8 tiles: lanes 0-15 give k
    /// rows 0-15 of the first, lanes 16-31 those of the second (8 columns on).
    __host__ __device__ static constexpr int b_lane_offset(int lane)
    {
        if constexpr (b_ldsm) return (lane & 15) * LDB + (lane >> 4) * 8;
        else return Shape::b_coord(lane, 0).row * LDB + Shape::b_coord(lane, 0).col;
    }

    int a_off, b_off;  // per-lane element offsets

    __device__ explicit frag_reader(int lane) : a_off(a_lane_offset(lane)), b_off(b_lane_offset(lane)) {}

    /// A fragment of the m x k block whose top-left element is tile[0].
    template <class T>
    __device__ void load_a(frag_a<Shape>& f, const T* tile) const
    {
        if constexpr (a_ldsm) {
            unsigned r[4];
            ldsm_x4<false>(r, tile + a_off);
            if constexpr (std::is_same_v<Shape, tf32_m16n8k8>) {
                // register m = word (g, t) of 8x4-word block m: a0..a3 in order.
                static_for<4>([&](auto i) { f.x[i] = Shape::to_a(__uint_as_float(r[i])); });
            } else {
                unsigned* regs = reinterpret_cast<unsigned*>(f.x);
                static_for<4>([&](auto i) { regs[i] = r[i]; });
            }
        } else {
            static_for<Shape::a_count>([&](auto i_) {
                constexpr int i = decltype(i_)::value;
                constexpr int d = (Shape::a_coord(0, i).row - Shape::a_coord(0, 0).row) * LDA +
                                  (Shape::a_coord(0, i).col - Shape::a_coord(0, 0).col);
                f.x[i] = Shape::to_a(tile[a_off + d]);
            });
        }
    }

    /// B fragments of NI consecutive k x n blocks starting at tile[0].
    template <int NI, class T>
    __device__ void load_b(frag_b<Shape> (&f)[NI], const T* tile) const
    {
        if constexpr (b_ldsm) {
            static_assert(NI % 2 == 0, "ldmatrix.x4.trans reads two n8 tiles");
            static_for<NI / 2>([&](auto p_) {
                constexpr int p = decltype(p_)::value;
                unsigned r[4];
                ldsm_x4<true>(r, tile + b_off + p * 2 * Shape::n);
                unsigned* lo = reinterpret_cast<unsigned*>(f[2 * p].x);
                unsigned* hi = reinterpret_cast<unsigned*>(f[2 * p + 1].x);
                lo[0] = r[0], lo[1] = r[1], hi[0] = r[2], hi[1] = r[3];
            });
        } else {
            static_for<NI>([&](auto n_) {
                constexpr int n = decltype(n_)::value;
                static_for<Shape::b_count>([&](auto i_) {
                    constexpr int i = decltype(i_)::value;
                    constexpr int d = (Shape::b_coord(0, i).row - Shape::b_coord(0, 0).row) * LDB +
                                      (Shape::b_coord(0, i).col - Shape::b_coord(0, 0).col) + n * Shape::n;
                    f[n].x[i] = Shape::to_b(tile[b_off + d]);
                });
            });
        }
    }
};

/// Fills pipeline stages with the A slice (BM x BK at (m0, k0)) and the B
/// slice (BK x BN at (k0, n0)); out-of-range elements become zero. A thread
/// copies the same column of rows r, r + R, r + 2R, ... of each slice (one
/// 16-byte chunk or one element per row), so it keeps one source pointer
/// per operand and the row steps.
template <class Cfg, copy_mode Mode>
struct slice_loader {
    using T = typename Cfg::value_type;
    static constexpr int C = Mode == copy_mode::vec16 ? Cfg::chunk : 1;  // elements per copy
    static constexpr int a_cpr = Cfg::BK / C, b_cpr = Cfg::BN / C;     // copies per row
    static_assert(Cfg::threads % a_cpr == 0 && Cfg::threads % b_cpr == 0, "threads must tile a row");
    static constexpr int a_R = Cfg::threads / a_cpr, b_R = Cfg::threads / b_cpr;  // rows per pass
    static_assert(Cfg::BM % a_R == 0 && Cfg::BK % b_R == 0, "passes must tile the slice");
    static constexpr int a_passes = Cfg::BM / a_R, b_passes = Cfg::BK / b_R;

    const T* a_src;  // A(m0 + a_r, a_c)
    const T* b_src;  // B(b_r, n0 + b_c)
    long long lda, ldb;
    int a_rows_left;  // M - (m0 + a_r): pass p is in range if p * a_R < a_rows_left
    int a_c, b_r, K;
    bool b_col_ok;  // n0 + b_c < N
    int a_dst, b_dst;  // shared-memory offsets of pass 0

    __device__ slice_loader(const T* A, long long lda_, const T* B, long long ldb_, int M, int N, int K_, int m0,
                            int n0, int tid)
        : lda(lda_), ldb(ldb_), K(K_)
    {
        const int a_r = tid / a_cpr, b_c = (tid % b_cpr) * C;
        a_c = (tid % a_cpr) * C;
        b_r = tid / b_cpr;
        a_rows_left = M - (m0 + a_r);
        b_col_ok = n0 + b_c < N;
        a_src = A + static_cast<long long>(m0 + a_r) * lda + a_c;
        b_src = B + static_cast<long long>(b_r) * ldb + (n0 + b_c);
        a_dst = a_r * Cfg::lda + a_c;
        b_dst = b_r * Cfg::ldb + b_c;
    }

    template <class Src>
    __device__ static void copy(T* dst, const Src* src, const Src* fallback, bool ok)
    {
        if constexpr (Mode == copy_mode::vec16) cp_async<16>(dst, ok ? src : fallback, ok ? 16 : 0);
        else if constexpr (Mode == copy_mode::elem)
            cp_async<sizeof(T)>(dst, ok ? src : fallback, ok ? int{sizeof(T)} : 0);
        else *dst = ok ? *src : T(0.0f);
    }

    /// Issues the copies of slice k0 into stage (sa, sb). A and B: the
    /// matrices' first elements (a safe address for zero-filled copies).
    __device__ void load(T* sa, T* sb, int k0, const T* A, const T* B) const
    {
        const bool a_col_ok = k0 + a_c < K;
        const T* a = a_src + k0;
#pragma unroll
        for (int p = 0; p < a_passes; ++p)
            copy(sa + a_dst + p * a_R * Cfg::lda, a + p * a_R * lda, A, a_col_ok && p * a_R < a_rows_left);
        const T* b = b_src + static_cast<long long>(k0) * ldb;
#pragma unroll
        for (int p = 0; p < b_passes; ++p)
            copy(sb + b_dst + p * b_R * Cfg::ldb, b + p * b_R * ldb, B, b_col_ok && k0 + b_r + p * b_R < K);
    }
};

template <class T>
struct vec2_of;
template <>
struct vec2_of<double> {
    using type = double2;
};
template <>
struct vec2_of<float> {
    using type = float2;
};

}  // namespace impl

/// The tiled MMA GEMM. One block per BM x BN tile of C (tile_of order).
template <class Cfg, class Shape, class Backend, copy_mode Mode>
__global__ void __launch_bounds__(Cfg::threads, Cfg::min_blocks)
    mma_gemm_kernel(int M, int N, int K, const typename Cfg::value_type* __restrict__ A, long long lda,
                    const typename Cfg::value_type* __restrict__ B, long long ldb,
                    typename Shape::c_type* __restrict__ C, long long ldc, bool vec_c)
{
    using T = typename Cfg::value_type;
    using CT = typename Shape::c_type;
    constexpr int MI = Cfg::WM / Shape::m, NI = Cfg::WN / Shape::n, KS = Cfg::BK / Shape::k;
    static_assert(Cfg::WM % Shape::m == 0 && Cfg::WN % Shape::n == 0 && Cfg::BK % Shape::k == 0,
                  "the warp tile and slice must be whole MMAs");
    static_assert(impl::c_pairs_adjacent<Shape>(), "accumulators must pair up along rows");

    extern __shared__ __align__(16) unsigned char gemm_smem[];
    T* const sa = reinterpret_cast<T*>(gemm_smem);
    T* const sb = sa + Cfg::stages * Cfg::a_elems;

    const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM, tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
    int tm = 0, tn = 0;
    tile_of(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tm, tn);
    const int m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
    const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const int wm = warp / Cfg::warps_n, wn = warp % Cfg::warps_n;

    frag_c<Shape> acc[MI][NI];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) fill(acc[mi][ni], 0.0f);

    const int k_tiles = (K + Cfg::BK - 1) / Cfg::BK;
    const impl::slice_loader<Cfg, Mode> loader(A, lda, B, ldb, M, N, K, m0, n0, tid);
    const impl::frag_reader<Shape, Cfg::lda, Cfg::ldb> reader(lane);
    const T* const a_warp = sa + wm * Cfg::WM * Cfg::lda;  // the warp's rows / columns in stage 0
    const T* const b_warp = sb + wn * Cfg::WN;
    auto stage_of = [](int slice) { return slice % Cfg::stages; };

    // Plain loads and stores (copy_mode::sync) would block in the middle of
    // the prefetching loop's last k-step: they take the simple loop.
    if constexpr (!Cfg::prefetch || Mode == copy_mode::sync) {
        // Prologue: slices 0 .. stages-2 in flight (one commit group per
        // slice, empty groups past the end keep the counting uniform).
#pragma unroll
        for (int s = 0; s < Cfg::stages - 1; ++s) {
            if (s < k_tiles) loader.load(sa + s * Cfg::a_elems, sb + s * Cfg::b_elems, s * Cfg::BK, A, B);
            cp_async_commit();
        }
        for (int kt = 0; kt < k_tiles; ++kt) {
            // Slice kt has landed (at most stages-2 younger groups pending),
            // and every warp is done with slice kt-1, whose stage is refilled.
            cp_async_wait<Cfg::stages - 2>();
            __syncthreads();
            const int next = kt + Cfg::stages - 1;
            if (next < k_tiles)
                loader.load(sa + stage_of(next) * Cfg::a_elems, sb + stage_of(next) * Cfg::b_elems, next * Cfg::BK, A, B);
            cp_async_commit();

            const T* a_tile = a_warp + stage_of(kt) * Cfg::a_elems;
            const T* b_tile = b_warp + stage_of(kt) * Cfg::b_elems;
#pragma unroll
            for (int ks = 0; ks < KS; ++ks) {
                frag_b<Shape> bf[NI];
                reader.load_b(bf, b_tile + ks * Shape::k * Cfg::ldb);
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
                    frag_a<Shape> af;
                    reader.load_a(af, a_tile + mi * Shape::m * Cfg::lda + ks * Shape::k);
#pragma unroll
                    for (int ni = 0; ni < NI; ++ni) mma<Backend>(acc[mi][ni], af, bf[ni], acc[mi][ni]);
                }
            }
        }
    } else {
        // Fragments one k-step ahead, in two register buffers: the MMAs of
        // step ks run while the loads of step ks+1 are in flight, and the
        // slice boundary (wait, barrier, refill) sits between the last
        // step's loads and its MMAs, so the next slice's first fragments
        // load behind them too.
        static_assert(KS % 2 == 0, "fragment buffers alternate per k-step: a slice needs an even step count");
        // Prologue: every stage in flight (slices 0 .. stages-1), slice 0 landed.
#pragma unroll
        for (int s = 0; s < Cfg::stages; ++s) {
            if (s < k_tiles) loader.load(sa + s * Cfg::a_elems, sb + s * Cfg::b_elems, s * Cfg::BK, A, B);
            cp_async_commit();
        }
        cp_async_wait<Cfg::stages - 1>();
        __syncthreads();

        frag_a<Shape> af[2][MI];
        frag_b<Shape> bf[2][NI];
        auto load_step = [&](auto buf_c, int stage, int ks) {
            constexpr int buf = decltype(buf_c)::value;
            reader.load_b(bf[buf], b_warp + stage * Cfg::b_elems + ks * Shape::k * Cfg::ldb);
            static_for<MI>([&](auto mi) {
                reader.load_a(af[buf][mi], a_warp + stage * Cfg::a_elems + mi * Shape::m * Cfg::lda + ks * Shape::k);
            });
        };
        load_step(int_c<0>{}, 0, 0);
        for (int kt = 0; kt < k_tiles; ++kt) {
            static_for<KS>([&](auto ks_c) {
                constexpr int ks = decltype(ks_c)::value, cur = ks % 2;
                if constexpr (ks + 1 < KS) {
                    load_step(int_c<1 - cur>{}, stage_of(kt), ks + 1);
                } else {
                    // Slice kt+1 has landed (groups are slices; at most
                    // stages-2 younger ones pending) and every warp has read
                    // all of slice kt: its stage takes slice kt+stages.
                    cp_async_wait<Cfg::stages - 2>();
                    __syncthreads();
                    const int refill = kt + Cfg::stages;
                    if (refill < k_tiles)
                        loader.load(sa + stage_of(kt) * Cfg::a_elems, sb + stage_of(kt) * Cfg::b_elems,
                                    refill * Cfg::BK, A, B);
                    cp_async_commit();
                    // Past the last slice this reads a stale stage, unused.
                    load_step(int_c<1 - cur>{}, stage_of(kt + 1), 0);
                }
                static_for<MI>([&](auto mi) {
                    static_for<NI>([&](auto ni) { mma<Backend>(acc[mi][ni], af[cur][mi], bf[cur][ni], acc[mi][ni]); });
                });
            });
        }
    }
    cp_async_wait<0>();

    // Epilogue: pairs (2p, 2p+1) of accumulators are adjacent columns.
    const coord c_base = Shape::c_coord(lane, 0);
    const int row0 = m0 + wm * Cfg::WM + c_base.row, col0 = n0 + wn * Cfg::WN + c_base.col;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
            static_for<Shape::c_count / 2>([&](auto p_) {
                constexpr int i = 2 * decltype(p_)::value;
                constexpr int dr = Shape::c_coord(0, i).row - Shape::c_coord(0, 0).row;
                constexpr int dc = Shape::c_coord(0, i).col - Shape::c_coord(0, 0).col;
                const int r = row0 + mi * Shape::m + dr, c = col0 + ni * Shape::n + dc;
                if (r >= M) return;
                CT* p = C + r * ldc + c;
                const CT v0 = acc[mi][ni].x[i], v1 = acc[mi][ni].x[i + 1];
                if (vec_c && c + 1 < N) {
                    using V = typename impl::vec2_of<CT>::type;
                    *reinterpret_cast<V*>(p) = V{v0, v1};
                } else {
                    if (c < N) p[0] = v0;
                    if (c + 1 < N) p[1] = v1;
                }
            });
        }
    }
}

namespace impl {

/// Validates, picks the copy mode, prepares and launches mma_gemm_kernel.
template <class Cfg, class Shape, class Backend>
void launch_mma_gemm(const char* who, int M, int N, int K, const typename Cfg::value_type* A, long long lda,
                     const typename Cfg::value_type* B, long long ldb, typename Shape::c_type* C, long long ldc,
                     cudaStream_t stream)
{
    using T = typename Cfg::value_type;
    using CT = typename Shape::c_type;
    static_assert(is_backend_v<Backend>, "Backend must be tcore::tensor_core or tcore::cuda_core");
    check_args(who, M, N, K, A, lda, B, ldb, C, ldc, sizeof(T), sizeof(CT));
    if (M == 0 || N == 0) return;
    const int grid = tile_count(who, M, N, Cfg::BM, Cfg::BN);
    constexpr long long C16 = Cfg::chunk;
    const bool vec16 = aligned(A, 16) && aligned(B, 16) && lda % C16 == 0 && ldb % C16 == 0 && K % C16 == 0 &&
                       N % C16 == 0;
    const bool vec_c = aligned(C, 2 * sizeof(CT)) && ldc % 2 == 0;
    auto go = [&](auto mode_c) {
        constexpr copy_mode mode = decltype(mode_c)::value;
        constexpr auto kernel = mma_gemm_kernel<Cfg, Shape, Backend, mode>;
        prepare_kernel<kernel>(who, Cfg::smem_bytes);
        kernel<<<grid, Cfg::threads, Cfg::smem_bytes, stream>>>(M, N, K, A, lda, B, ldb, C, ldc, vec_c);
        TCORE_CHECK_LAUNCH();
    };
    if (vec16) go(std::integral_constant<copy_mode, copy_mode::vec16>{});
    else if constexpr (sizeof(T) >= 4) go(std::integral_constant<copy_mode, copy_mode::elem>{});
    else go(std::integral_constant<copy_mode, copy_mode::sync>{});
}

}  // namespace impl

/// C = A*B with the tiled MMA kernel on any configuration (Cfg::value_type
/// data, Shape's accumulator type for C): what gemm_f64 / gemm_tf32 /
/// gemm_f16 call with their default configurations.
template <class Cfg, class Shape, class Backend>
void gemm_mma(int M, int N, int K, const typename Cfg::value_type* A, long long lda,
              const typename Cfg::value_type* B, long long ldb, typename Shape::c_type* C, long long ldc,
              cudaStream_t stream = nullptr)
{
    impl::launch_mma_gemm<Cfg, Shape, Backend>("gemm_mma", M, N, K, A, lda, B, ldb, C, ldc, stream);
}

/// The FP64 shape a backend runs by default. tensor_core: m16n8k16
/// (DMMA.16x8x16 on sm_90, 66 TFLOP/s on an H200). cuda_core: the same
/// fragments in k-steps of 4 (m16n8k4 has the m16n8k16 C map, and its A/B
/// are the k16 fragments split in four), so every lane holds and computes
/// exactly what it does on the tensor core; emulating 16 k-steps per call
/// keeps too many shuffled operands live for the 128 accumulator registers
/// and spills.
template <class Backend>
using default_f64_shape = std::conditional_t<std::is_same_v<Backend, cuda_core>, f64_m16n8k4, f64_m16n8k16>;

/// C = A*B in FP64 (row-major, beta = 0) with the tiled MMA kernel on
/// `Shape` (default_f64_shape, or f64_m16n8k8 / f64_m8n8k4) and `Backend`.
/// Throws tcore::error on bad arguments or a failed launch.
template <class Backend = tensor_core, class Shape = default_f64_shape<Backend>>
void gemm_f64(int M, int N, int K, const double* A, long long lda, const double* B, long long ldb, double* C,
              long long ldc, cudaStream_t stream = nullptr)
{
    static_assert(std::is_same_v<typename Shape::a_type, double>, "gemm_f64 needs an FP64 shape");
    impl::launch_mma_gemm<f64_config, Shape, Backend>("gemm_f64", M, N, K, A, lda, B, ldb, C, ldc, stream);
}

/// C = A*B with FP32 data on TF32 m16n8k8 (inputs rounded to TF32 with
/// cvt.rna, FP32 accumulation).
template <class Backend = tensor_core>
void gemm_tf32(int M, int N, int K, const float* A, long long lda, const float* B, long long ldb, float* C,
               long long ldc, cudaStream_t stream = nullptr)
{
    impl::launch_mma_gemm<tf32_config, tf32_m16n8k8, Backend>("gemm_tf32", M, N, K, A, lda, B, ldb, C, ldc,
                                                               stream);
}

/// C (FP32) = A*B with FP16 data on m16n8k16, FP32 accumulation.
template <class Backend = tensor_core>
void gemm_f16(int M, int N, int K, const __half* A, long long lda, const __half* B, long long ldb, float* C,
              long long ldc, cudaStream_t stream = nullptr)
{
    impl::launch_mma_gemm<f16_config, f16_m16n8k16_f32acc, Backend>("gemm_f16", M, N, K, A, lda, B, ldb, C, ldc,
                                                                     stream);
}

}  // namespace tcore::examples::gemm
