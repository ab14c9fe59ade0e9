// tcore/patterns/device/gemv.cuh - y = A x (FP64) launched from the host,
// composed of the warp building blocks of patterns/gemv.cuh (gemv_tile and
// the operand loaders).
//
// Large problems split each row tile's columns over `ksplit` warps of a
// block, which take K-steps kpart, kpart + ksplit, ... two at a time; their
// partial y are added in a fixed order in shared memory (deterministic).
// With temp storage, problems of too few row tiles to fill the device also
// split the K-steps into parts over a second grid dimension; a second kernel
// adds the parts' partial y in order (plan_gemv_split).
// Where columns are split over 4+ warps, the block shape follows the layout
// (plan_gemv_mma): row-major, one row tile and 8-16 warps per block, so a
// block reads each row in long runs; column-major, two row tiles (2M-row
// column segments) and up to 8 warps per tile. Full, aligned steps address
// A and x through one pointer per lane plus fixed distances (the fragment
// layouts place every register at a lane-independent offset from register 0).
// The plain CUDA-core opponent (cce) is the benchmark's, not the kit's:
// examples/gemv/gemv_cce.cuh.
//
// Provides
//   gemv<Backend, Shape>(L, m, n, A, lda, x, y, stream), and the same with
//       CUB-style temp storage (column parts).
//   gemv_plan, plan_gemv, plan_gemv_mma, plan_gemv_split: the launch shape
//       (warps per row tile and per block, blocks, column parts) for a
//       number of row tiles and K-steps on a device of `sms` SMs (or the
//       current one); gemv_max_threads: the largest block they give.
//   gemv_check: the argument checks of gemv (tcore::error on a failure).
// Preconditions: device pointers; y must not overlap x or A's storage.
#pragma once

#include "../gemv.cuh"

#include <algorithm>
#include <cstdint>
#include <string>

namespace tcore {

/// The largest block (threads) a GEMV plan gives: 16 warps.
inline constexpr int gemv_max_threads = 512;

namespace detail {

/// tc/cc: block = (warps / ksplit) row tiles x ksplit warps per tile, on
/// K-steps [blockIdx.y * part_steps, (blockIdx.y + 1) * part_steps); its
/// rows of y go to y + blockIdx.y * m (the part's partial y when gridDim.y > 1).
template <class Backend, class Shape, layout L, bool Vec>
__global__ void __launch_bounds__(gemv_max_threads, 1)
    gemv_kernel(const double* A, long long lda, const double* x, double* y, long long m, long long n, int ksplit,
                long long part_steps)
{
    using G = gemv_tile<Shape>;
    constexpr int M = Shape::m, K = Shape::k;
    extern __shared__ double part[];  // [warps][M] when ksplit > 1
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int rows_per_block = (blockDim.x >> 5) / ksplit;
    const int kpart = warp % ksplit;
    const long long tile0 = static_cast<long long>(blockIdx.x) * rows_per_block;
    const long long r0 = (tile0 + warp / ksplit) * M;
    const long long kbegin = blockIdx.y * part_steps;
    const long long kend = min(ceil_div(n, K), kbegin + part_steps);
    y += blockIdx.y * m;
    frag_c<Shape> acc;
    fill(acc, 0.0);
    if (r0 < m) {  // warp-uniform
        long long kt = kbegin + kpart;
        if (Vec && r0 + M <= m) {
            // Steps kt and kt + ksplit both inside n: one pointer per lane and
            // fixed distances (fewer address registers than gemv_load_a).
            const long long kfull = min(n / K, kend);
            const long long a_step = L == layout::row_major ? K : K * lda;
            const double* a_lane = A + r0 * (L == layout::row_major ? lda : 1) + gemv_a_offset<Shape, L>(lane, 0, lda);
            const double* x_lane = x + G::x_elem(lane, 0);
#pragma unroll 1
            for (; kt + ksplit < kfull; kt += 2 * ksplit) {
                frag_a<Shape> a0, a1;
                frag_b<Shape> b0, b1;
                gemv_load_a_at<Shape, L>(a0, a_lane + kt * a_step, lda);
                gemv_load_x_at<Shape>(b0, x_lane + kt * K);
                gemv_load_a_at<Shape, L>(a1, a_lane + (kt + ksplit) * a_step, lda);
                gemv_load_x_at<Shape>(b1, x_lane + (kt + ksplit) * K);
                mma<Backend>(acc, a0, b0, acc);
                mma<Backend>(acc, a1, b1, acc);
            }
        }
        for (; kt < kend; kt += 2 * ksplit) {  // the rest, with bounds
            const long long kt1 = kt + ksplit;
            const bool two = kt1 < kend;  // warp-uniform
            frag_a<Shape> a0, a1;
            frag_b<Shape> b0, b1;
            gemv_load_a<Shape, L, Vec>(a0, A, lda, r0, kt * K, m, n);
            gemv_load_x<Shape, Vec>(b0, x, kt * K, n);
            if (two) {
                gemv_load_a<Shape, L, Vec>(a1, A, lda, r0, kt1 * K, m, n);
                gemv_load_x<Shape, Vec>(b1, x, kt1 * K, n);
            }
            mma<Backend>(acc, a0, b0, acc);
            if (two) mma<Backend>(acc, a1, b1, acc);
        }
    }
    constexpr int nres = M == 16 ? 2 : 1;  // y registers of a t = 0 lane: c0 (and c2)
    if (ksplit == 1) {
        if ((lane & 3) == 0)
            static_for<nres>([&](auto q) {
                const long long row = r0 + G::y_row(lane, 2 * q);
                if (row < m) y[row] = acc.x[2 * q];
            });
        return;
    }
    if ((lane & 3) == 0) static_for<nres>([&](auto q) { part[warp * M + G::y_row(lane, 2 * q)] = acc.x[2 * q]; });
    __syncthreads();
    for (int e = threadIdx.x; e < rows_per_block * M; e += blockDim.x) {
        const int rt = e / M, r = e % M;
        const long long row = (tile0 + rt) * M + r;
        if (row >= m) continue;
        double s = part[(rt * ksplit) * M + r];
        for (int p = 1; p < ksplit; ++p) s += part[(rt * ksplit + p) * M + r];
        y[row] = s;
    }
}

/// y[row] = sum over p of parts[p * m + row], p in order (deterministic).
__global__ void __launch_bounds__(256) gemv_add_parts_kernel(const double* parts, double* y, long long m, int count)
{
    const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= m) return;
    double s = parts[row];
    for (int p = 1; p < count; ++p) s += parts[p * m + row];
    y[row] = s;
}

}  // namespace detail

// -- launch plans --------------------------------------------------------------

/// Warps per row tile and per block for `row_tiles` tiles of `col_tiles`
/// column steps (K-steps). A block holds warps / ksplit row tiles, each split
/// over ksplit warps; 32 x warps <= gemv_max_threads.
struct gemv_plan {
    int ksplit = 1, warps = 1;
    long long blocks = 1;  ///< blocks per column part
    int parts = 1;         ///< column parts (grid y); more than 1 needs parts x m doubles of temp storage
    long long part_steps = 0;  ///< K-steps per part (parts > 1)
};

/// The base plan, on a device of `sms` multiprocessors: ksplit doubles (up to
/// 16) while the warps are fewer than 32 per SM and each warp keeps two
/// K-steps; up to 8 warps per block (16 with ksplit 16), fewer rows per
/// block while the blocks would be fewer than the SMs.
inline gemv_plan plan_gemv(long long row_tiles, long long col_tiles, int sms)
{
    const long long target = static_cast<long long>(sms) * 32;  // warps to keep the device busy
    gemv_plan p;
    while (p.ksplit < 16 && row_tiles * p.ksplit < target && 2LL * p.ksplit <= col_tiles) p.ksplit *= 2;
    // Rows per block: up to 8 warps (16 with ksplit 16), fewer when there are few tiles.
    int rows = std::max(1, 8 / p.ksplit);
    while (rows > 1 && row_tiles / rows < sms) rows /= 2;
    p.warps = rows * p.ksplit;
    p.blocks = ceil_div(row_tiles, rows);
    return p;
}

/// On the current device.
inline gemv_plan plan_gemv(long long row_tiles, long long col_tiles)
{
    return plan_gemv(row_tiles, col_tiles, sm_count());
}

/// The tc/cc kernel's plan: plan_gemv, then, where it splits columns over 4
/// or more warps, a block shape by layout. Row-major: one row tile per block
/// and 8-16 warps on it, which read each row in runs of up to 2 x ksplit
/// K-steps. Column-major: two row tiles per block (column segments of 2M
/// rows) and at most 8 warps per tile. Among the block shapes compared these
/// measured slightly faster than plan_gemv's (row 32768 x 4096: 1 x 8
/// against 2 x 4 warps; col 4096 x 32768: 2 x 8 against 1 x 16); row 4096 x
/// 32768 and col 32768 x 4096 keep plan_gemv's shape (best there).
/// Measurements: examples/gemv/README.md.
/// Rows of fewer than 16 K-steps keep plan_gemv's shape too (the K = 4
/// shapes at n = 16 have 4: 8 warps per row tile would leave half idle).
inline gemv_plan plan_gemv_mma(layout L, long long row_tiles, long long col_tiles, int sms)
{
    gemv_plan p = plan_gemv(row_tiles, col_tiles, sms);
    if (p.ksplit < 4 || col_tiles < 16) return p;
    int rows = 1;
    if (L == layout::row_major) {
        p.ksplit = std::max(p.ksplit, 8);
    } else {
        p.ksplit = std::min(p.ksplit, 8);
        rows = 2;
    }
    p.warps = rows * p.ksplit;
    p.blocks = ceil_div(row_tiles, rows);
    return p;
}

/// On the current device.
inline gemv_plan plan_gemv_mma(layout L, long long row_tiles, long long col_tiles)
{
    return plan_gemv_mma(L, row_tiles, col_tiles, sm_count());
}

/// With temp storage: plan_gemv_mma, unless its blocks are fewer than the
/// multiprocessors (few, long rows of tiles). Then the K-steps are split
/// into parts, each run by blocks of 2 row tiles x 4 warps (column-major)
/// or 1 x 8 (row-major), about 32 blocks per SM in all and at least 2 K-steps
/// per warp and part; a second kernel adds the parts' partial y in order.
/// Where plan_gemv_mma leaves multiprocessors idle (column-major 4096 x
/// 32768 with m16n8k16: 128 blocks), the split measured ahead of it and
/// level with cuBLAS; other block shapes and part counts were slower
/// (examples/gemv/README.md).
inline gemv_plan plan_gemv_split(layout L, long long row_tiles, long long col_tiles, int sms)
{
    const gemv_plan whole = plan_gemv_mma(L, row_tiles, col_tiles, sms);
    if (whole.blocks >= sms) return whole;
    gemv_plan p;
    const int rows = L == layout::col_major ? 2 : 1;
    p.ksplit = L == layout::col_major ? 4 : 8;
    p.warps = rows * p.ksplit;
    p.blocks = ceil_div(row_tiles, rows);
    const long long parts = std::min(ceil_div(32LL * sms, p.blocks), col_tiles / (2LL * p.ksplit));
    if (parts < 2) return whole;
    p.part_steps = ceil_div(col_tiles, parts);
    p.parts = static_cast<int>(ceil_div(col_tiles, p.part_steps));  // no empty part
    return p;
}

/// On the current device.
inline gemv_plan plan_gemv_split(layout L, long long row_tiles, long long col_tiles)
{
    return plan_gemv_split(L, row_tiles, col_tiles, sm_count());
}

namespace detail {

/// Rejects a byte range [b, b + bytes) that overlaps [c, c + c_bytes).
inline void require_disjoint(const void* b, std::size_t bytes, const void* c, std::size_t c_bytes, const char* where,
                             const char* what)
{
    const auto b0 = reinterpret_cast<std::uintptr_t>(b), c0 = reinterpret_cast<std::uintptr_t>(c);
    require(b0 + bytes <= c0 || c0 + c_bytes <= b0, where, what);
}

/// Bytes of A's storage: (rows - 1) lda + cols elements, rows of lda (so a
/// range inside A's row padding counts as overlapping A).
inline std::size_t gemv_a_bytes(layout L, long long m, long long n, long long lda)
{
    const long long a_rows = L == layout::row_major ? m : n, a_cols = L == layout::row_major ? n : m;
    return static_cast<std::size_t>((a_rows - 1) * lda + a_cols) * sizeof(double);
}

}  // namespace detail

/// The argument checks of gemv (and of any y = A x launcher on the same
/// arguments, as the example's cce opponent): m, n >= 0; lda >= n
/// (row-major) or m (column-major), and >= 1; non-null A, x, y where used;
/// A's storage ((rows - 1) lda + cols elements) below 2^60 elements; y not
/// overlapping x or A's storage. Throws tcore::error naming `where`.
inline void gemv_check(const char* where, layout L, long long m, long long n, const double* A, long long lda,
                       const double* x, double* y)
{
    require_size(m, where, "m");
    require_size(n, where, "n");
    const long long min_ld = L == layout::row_major ? n : m;
    require(lda >= 1 && lda >= min_ld, where,
            "lda (" + std::to_string(lda) + ") must be at least " + std::to_string(std::max(1LL, min_ld)) +
                (L == layout::row_major ? " (n, row-major)" : " (m, column-major)"));
    if (m == 0) return;
    require_pointer(y, where, "y");
    if (n == 0) return;
    require_pointer(A, where, "A");
    require_pointer(x, where, "x");
    const std::size_t y_bytes = static_cast<std::size_t>(m) * sizeof(double);
    detail::require_disjoint(y, y_bytes, x, static_cast<std::size_t>(n) * sizeof(double), where, "y overlaps x");
    const long long a_rows = L == layout::row_major ? m : n, a_cols = L == layout::row_major ? n : m;
    constexpr long long max_elems = 1LL << 60;
    require(a_rows == 1 || lda <= (max_elems - a_cols) / (a_rows - 1), where,
            "A's storage ((rows - 1) x lda + cols elements, lda " + std::to_string(lda) + ") is too large");
    detail::require_disjoint(y, y_bytes, A, detail::gemv_a_bytes(L, m, n, lda), where, "y overlaps A");
}

namespace detail {

/// Runs plan p: into y directly, or (p.parts > 1) into the parts' partial y
/// at `partial` (p.parts x m doubles), then adds them into y.
template <class Backend, class Shape>
inline void gemv_run(const gemv_plan& p, layout L, long long m, long long n, const double* A, long long lda,
                     const double* x, double* y, double* partial, cudaStream_t stream)
{
    const bool vec = aligned(A, 16) && aligned(x, 16) && lda % 2 == 0;
    const std::size_t smem = p.ksplit > 1 ? static_cast<std::size_t>(p.warps) * Shape::m * sizeof(double) : 0;
    const dim3 grid(static_cast<unsigned>(p.blocks), static_cast<unsigned>(p.parts));
    const long long part_steps = p.parts > 1 ? p.part_steps : ceil_div(n, Shape::k);
    double* out = p.parts > 1 ? partial : y;
    auto run = [&](auto kernel) {
        kernel<<<grid, 32 * p.warps, smem, stream>>>(A, lda, x, out, m, n, p.ksplit, part_steps);
        TCORE_CHECK_LAUNCH();
    };
    if (L == layout::row_major) {
        if (vec) run(gemv_kernel<Backend, Shape, layout::row_major, true>);
        else run(gemv_kernel<Backend, Shape, layout::row_major, false>);
    } else {
        if (vec) run(gemv_kernel<Backend, Shape, layout::col_major, true>);
        else run(gemv_kernel<Backend, Shape, layout::col_major, false>);
    }
    if (p.parts > 1) {
        gemv_add_parts_kernel<<<static_cast<unsigned>(ceil_div(m, 256)), 256, 0, stream>>>(partial, y, m, p.parts);
        TCORE_CHECK_LAUNCH();
    }
}

}  // namespace detail

/// y = A x, A m x n FP64 in layout L with leading dimension lda, on the MMA
/// (tc: tensor_core, cc: cuda_core). Any m, n >= 0 (n = 0 gives y = 0);
/// y must not overlap x or A's storage (tcore::error otherwise).
/// 16-byte aligned A and x with even lda take the vector-load path.
/// Deterministic (fixed split and combine order).
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void gemv(layout L, long long m, long long n, const double* A, long long lda, const double* x, double* y,
                 cudaStream_t stream = 0)
{
    gemv_check("tcore::gemv", L, m, n, A, lda, x, y);
    if (m == 0) return;
    if (n == 0) {
        TCORE_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(m) * sizeof(double), stream));
        return;
    }
    const gemv_plan p = plan_gemv_mma(L, tcore::ceil_div(m, Shape::m), tcore::ceil_div(n, Shape::k));
    detail::gemv_run<Backend, Shape>(p, L, m, n, A, lda, x, y, nullptr, stream);
}

/// The same with temp storage, CUB-style: with temp == nullptr only sets
/// temp_bytes (at least 8; for the current device). Where plan_gemv_split
/// splits the columns (fewer row blocks than multiprocessors, e.g.
/// column-major 4096 x 32768), the parts' partial y go to temp and are added
/// in order (deterministic). temp: 8-byte aligned, temp_bytes at least the
/// queried size, not overlapping A, x or y.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void gemv(void* temp, std::size_t& temp_bytes, layout L, long long m, long long n, const double* A,
                 long long lda, const double* x, double* y, cudaStream_t stream = 0)
{
    const char* where = "tcore::gemv";
    tcore::require_size(m, where, "m");
    tcore::require_size(n, where, "n");
    const gemv_plan p =
        m > 0 && n > 0 ? plan_gemv_split(L, tcore::ceil_div(m, Shape::m), tcore::ceil_div(n, Shape::k)) : gemv_plan{};
    const std::size_t need = std::max<std::size_t>(8, static_cast<std::size_t>(p.parts > 1 ? p.parts : 0) *
                                                          static_cast<std::size_t>(m) * sizeof(double));
    if (temp == nullptr) {
        temp_bytes = need;
        return;
    }
    gemv_check(where, L, m, n, A, lda, x, y);
    require(temp_bytes >= need, where,
            "temp_bytes (" + std::to_string(temp_bytes) + ") is below the queried size (" + std::to_string(need) + ")");
    require(tcore::aligned(temp, alignof(double)), where, "temp is not 8-byte aligned");
    if (m == 0) return;
    if (n == 0) {
        TCORE_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(m) * sizeof(double), stream));
        return;
    }
    if (p.parts > 1) {
        detail::require_disjoint(temp, need, y, static_cast<std::size_t>(m) * sizeof(double), where, "temp overlaps y");
        detail::require_disjoint(temp, need, x, static_cast<std::size_t>(n) * sizeof(double), where, "temp overlaps x");
        detail::require_disjoint(temp, need, A, detail::gemv_a_bytes(L, m, n, lda), where, "temp overlaps A");
    }
    detail::gemv_run<Backend, Shape>(p, L, m, n, A, lda, x, y, static_cast<double*>(temp), stream);
}

}  // namespace tcore
