// Candidate sweep for the large FP64 GEMV cases (A = 1 GiB, streaming):
// the tc kernel of include/tcore/patterns/gemv.cuh with different A-load
// cache hints, with software L2 prefetch ahead of the loads, and a variant
// that streams A tiles into shared memory with cp.async.bulk + mbarrier
// (a producer warp, NS stages), the DMMA fragments read from shared memory.
// Every candidate runs on the block shape of plan_gemv_mma (register path)
// and is checked against an FP64 CPU reference (long double sums).
// Timing: per candidate a time-based warm-up, then `reps` launches with an
// event pair each, median; `rounds` rounds of (cuBLAS, candidates...) back to
// back in one process; the spread of cuBLAS's round medians is the
// run-to-run spread.
//
// usage: hints <group: reg|bulk|all|shapes> [rounds] [reps] [warm_s]
// shapes: the header kernel on other block shapes, a column-part split
// (2D grid, partial y per part, added in order by a second kernel), and a
// column-part split inside thread block clusters (parts added through
// distributed shared memory).
#include <tcore/patterns/gemv.cuh>

#include <cublas_v2.h>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace tcore;
using Shape = f64_m16n8k16;
using G = gemv_tile<Shape>;

#define CK(x) TCORE_CHECK(x)

__global__ void init_kernel(double* p, size_t n, unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = i * 0x9E3779B97F4A7C15ull + seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        p[i] = (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    }
}

// ---------------------------------------------------------------------------
// A-load policies (16-byte loads of A)
enum : int {
    P_CS = 0,         // ld.global.cs (current: __ldcs)
    P_NC_NA,          // ld.global.nc.L1::no_allocate
    P_NC_NA_256,      // ld.global.nc.L1::no_allocate.L2::256B
    P_CS_256,         // ld.global.cs.L2::256B
    P_NC_NA_EF_256,   // ld.global.nc.L2::256B (.L2::evict_first on ld needs 256-bit loads)
    P_CS_128,         // ld.global.cs.L2::128B
    P_NC_NA_POL_256,  // ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B, createpolicy evict_first
    P_LU,             // ld.global.lu
    P_COUNT
};
const char* policy_name[P_COUNT] = {"ld.global.cs (current)",
                                    "ld.global.nc.L1::no_allocate",
                                    "ld.global.nc.L1::no_allocate.L2::256B",
                                    "ld.global.cs.L2::256B",
                                    "ld.global.nc.L2::256B",
                                    "ld.global.cs.L2::128B",
                                    "ld.global.nc.L1::no_allocate.L2::cache_hint(evict_first).L2::256B",
                                    "ld.global.lu"};

template <int P>
__device__ __forceinline__ double2 load_a2(const double* p, unsigned long long pol)
{
    double2 v;
    if constexpr (P == P_CS) {
        v = __ldcs(reinterpret_cast<const double2*>(p));
    } else if constexpr (P == P_NC_NA) {
        asm volatile("ld.global.nc.L1::no_allocate.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    } else if constexpr (P == P_NC_NA_256) {
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    } else if constexpr (P == P_CS_256) {
        asm volatile("ld.global.cs.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    } else if constexpr (P == P_NC_NA_EF_256) {
        asm volatile("ld.global.nc.L2::256B.v2.f64 {%0, %1}, [%2];"
                     : "=d"(v.x), "=d"(v.y)
                     : "l"(p));
    } else if constexpr (P == P_CS_128) {
        asm volatile("ld.global.cs.L2::128B.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    } else if constexpr (P == P_NC_NA_POL_256) {
        asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v2.f64 {%0, %1}, [%2], %3;"
                     : "=d"(v.x), "=d"(v.y)
                     : "l"(p), "l"(pol));
    } else {
        asm volatile("ld.global.lu.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    }
    return v;
}

// gemv_load_a_at with a load policy
template <layout L, int P>
__device__ __forceinline__ void load_a_at(frag_a<Shape>& f, const double* a, long long lda, unsigned long long pol)
{
    auto dist = [&](int i) {
        return detail::gemv_a_offset<Shape, L>(0, i, lda) - detail::gemv_a_offset<Shape, L>(0, 0, lda);
    };
    if constexpr (L == layout::col_major) {
        static_for<Shape::a_count / 2>([&](auto p) {
            const double2 v = load_a2<P>(a + dist(2 * p), pol);
            f.x[2 * p] = v.x;
            f.x[2 * p + 1] = v.y;
        });
    } else {
        static_for<Shape::a_count / 2>([&](auto p) {
            const int i = G::row_pair(p);
            const double2 v = load_a2<P>(a + dist(i), pol);
            f.x[i] = v.x;
            f.x[i + 2] = v.y;
        });
    }
}

// Prefetch kinds: 0 none, 1 prefetch.global.L2, 2 prefetch.global.L2::evict_last (no evict_first
// exists for prefetch; here only as a contrast), 3 cp.async.bulk.prefetch.L2 of 128 bytes.
template <int PK>
__device__ __forceinline__ void prefetch_line(const double* p)
{
    if constexpr (PK == 1) asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
    else if constexpr (PK == 2) asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p));
    else if constexpr (PK == 3) asm volatile("cp.async.bulk.prefetch.L2.global [%0], 128;" ::"l"(p) : "memory");
}

// The tc kernel (gemv.cuh's gemv_kernel, vector path) with policy P and,
// with PK > 0, an L2 prefetch of the K-step pair PD iterations ahead: lane
// l prefetches the 128-byte line of row (row-major) or column (col-major)
// l & 15 of step kt + 2 PD ksplit + (l >> 4) ksplit (one line per lane
// covers the warp's two 16 x 16 tiles).
template <layout L, int P, int PK, int PD>
__global__ void __launch_bounds__(512, 1)
    reg_kernel(const double* A, long long lda, const double* x, double* y, long long m, long long n, int ksplit)
{
    constexpr int M = 16, K = 16;
    extern __shared__ double part[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int rows_per_block = (blockDim.x >> 5) / ksplit;
    const int kpart = warp % ksplit;
    const long long tile0 = static_cast<long long>(blockIdx.x) * rows_per_block;
    const long long r0 = (tile0 + warp / ksplit) * M;
    const long long ktiles = detail::ceil_div(n, K);
    unsigned long long pol = 0;
    if constexpr (P == P_NC_NA_POL_256) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    frag_c<Shape> acc;
    fill(acc, 0.0);
    if (r0 < m) {
        long long kt = kpart;
        if (r0 + M <= m) {
            const long long kfull = n / K;
            const long long a_step = L == layout::row_major ? K : K * lda;
            const double* a_lane =
                A + r0 * (L == layout::row_major ? lda : 1) + detail::gemv_a_offset<Shape, L>(lane, 0, lda);
            const double* x_lane = x + G::x_elem(lane, 0);
            const double* pf_lane = A + r0 * (L == layout::row_major ? lda : 1) + (lane & 15) * lda;
            const long long pf_off = (lane >> 4) * ksplit + 2LL * PD * ksplit;
#pragma unroll 1
            for (; kt + ksplit < kfull; kt += 2 * ksplit) {
                if constexpr (PK > 0)
                    if (kt + pf_off < kfull) prefetch_line<PK>(pf_lane + (kt + pf_off) * a_step);
                frag_a<Shape> a0, a1;
                frag_b<Shape> b0, b1;
                load_a_at<L, P>(a0, a_lane + kt * a_step, lda, pol);
                detail::gemv_load_x_at<Shape>(b0, x_lane + kt * K);
                load_a_at<L, P>(a1, a_lane + (kt + ksplit) * a_step, lda, pol);
                detail::gemv_load_x_at<Shape>(b1, x_lane + (kt + ksplit) * K);
                mma<tensor_core>(acc, a0, b0, acc);
                mma<tensor_core>(acc, a1, b1, acc);
            }
        }
        for (; kt < ktiles; kt += 2 * ksplit) {
            const long long kt1 = kt + ksplit;
            const bool two = kt1 < ktiles;
            frag_a<Shape> a0, a1;
            frag_b<Shape> b0, b1;
            detail::gemv_load_a<Shape, L, true>(a0, A, lda, r0, kt * K, m, n);
            detail::gemv_load_x<Shape, true>(b0, x, kt * K, n);
            if (two) {
                detail::gemv_load_a<Shape, L, true>(a1, A, lda, r0, kt1 * K, m, n);
                detail::gemv_load_x<Shape, true>(b1, x, kt1 * K, n);
            }
            mma<tensor_core>(acc, a0, b0, acc);
            if (two) mma<tensor_core>(acc, a1, b1, acc);
        }
    }
    if (ksplit == 1) {
        if ((lane & 3) == 0)
            static_for<2>([&](auto q) {
                const long long row = r0 + G::y_row(lane, 2 * q);
                if (row < m) y[row] = acc.x[2 * q];
            });
        return;
    }
    if ((lane & 3) == 0) static_for<2>([&](auto q) { part[warp * M + G::y_row(lane, 2 * q)] = acc.x[2 * q]; });
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

// ---------------------------------------------------------------------------
// Bulk-copy pipeline: block = R row tiles (16R rows) x all of n, W consumer
// warps (W / R per row tile) + 1 producer warp; NS stages of S K-steps.
// Row-major stage: 16R rows of S*16 doubles (row stride S*16 + 4: rows 2g of
// one 8-lane phase land 64 bytes apart in the banks). Col-major stage: S*16
// columns of 16R doubles (column stride 16R + 2).
__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned long long* b, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(b)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long* b, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* b)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long* b, unsigned parity)
{
    unsigned done = 0;
    long long spins = 0;
    while (true) {
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
            : "=r"(done)
            : "r"(smem_addr(b)), "r"(parity)
            : "memory");
        if (done) return;
        if (++spins > (1LL << 24)) __trap();  // a hang shows as an error, not a stuck run
    }
}
template <int EF>
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* bar,
                                          unsigned long long pol)
{
    if constexpr (EF)
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(
                smem_addr(dst)),
            "l"(src), "r"(bytes), "r"(smem_addr(bar)), "l"(pol)
            : "memory");
    else
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         smem_addr(dst)),
                     "l"(src), "r"(bytes), "r"(smem_addr(bar))
                     : "memory");
}

template <layout L, int R, int S>
struct bulk_geom {
    static constexpr bool row = L == layout::row_major;
    static constexpr int lds = row ? S * 16 + 4 : 16 * R + 2;             // stride of a smem row / column
    static constexpr int lines = row ? 16 * R : 16 * S;                   // copies per stage
    static constexpr unsigned line_bytes = row ? S * 128u : 128u * R;     // bytes per copy
    static constexpr int stage_elems = lines * lds;
    static constexpr unsigned stage_bytes = lines * line_bytes;
};

template <layout L, int R, int S, int NS, int W, int EF>
__global__ void __launch_bounds__(32 * (W + 1), 1)
    bulk_kernel(const double* A, long long lda, const double* x, double* y, long long m, long long n)
{
    using geo = bulk_geom<L, R, S>;
    constexpr int kparts = W / R;
    static_assert(W % R == 0, "");
    extern __shared__ __align__(128) unsigned char smem_raw[];
    unsigned long long* full = reinterpret_cast<unsigned long long*>(smem_raw);
    unsigned long long* empty = full + NS;
    double* part = reinterpret_cast<double*>(smem_raw + 16 * NS);  // [W][16]
    double* stages = reinterpret_cast<double*>(smem_raw + ((16 * NS + W * 16 * 8 + 127) / 128) * 128);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long row0 = static_cast<long long>(blockIdx.x) * 16 * R;
    const long long nst = n / (16 * S);  // the driver only runs shapes with n % (16 S) == 0, m % (16 R) == 0
    if (threadIdx.x == 0) {
        for (int s = 0; s < NS; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], W);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (warp == W) {  // producer
        unsigned long long pol = 0;
        if constexpr (EF) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        for (long long it = 0; it < nst; ++it) {
            const int slot = static_cast<int>(it % NS);
            if (it >= NS) mbar_wait(&empty[slot], static_cast<unsigned>(((it / NS) - 1) & 1));
            if (lane == 0) mbar_arrive_expect_tx(&full[slot], geo::stage_bytes);
            __syncwarp();
            double* st = stages + slot * geo::stage_elems;
            for (int c = lane; c < geo::lines; c += 32) {
                const double* src = geo::row ? A + (row0 + c) * lda + it * 16 * S : A + (it * 16 * S + c) * lda + row0;
                bulk_copy<EF>(st + c * geo::lds, src, geo::line_bytes, &full[slot], pol);
            }
        }
    } else {
        const int rt = warp % R, kp = warp / R;
        frag_c<Shape> acc;
        fill(acc, 0.0);
        const int a_lane_off = static_cast<int>(detail::gemv_a_offset<Shape, L>(lane, 0, geo::lds)) +
                               (geo::row ? rt * 16 * geo::lds : rt * 16);
        const double* x_lane = x + G::x_elem(lane, 0);
        for (long long it = 0; it < nst; ++it) {
            const int slot = static_cast<int>(it % NS);
            mbar_wait(&full[slot], static_cast<unsigned>((it / NS) & 1));
            const double* st = stages + slot * geo::stage_elems + a_lane_off;
#pragma unroll
            for (int s = kp; s < S; s += kparts) {
                frag_a<Shape> a;
                frag_b<Shape> b;
                const double* ap = st + (geo::row ? s * 16 : s * 16 * geo::lds);
                auto dist = [&](int i) {
                    return static_cast<int>(detail::gemv_a_offset<Shape, L>(0, i, geo::lds) -
                                            detail::gemv_a_offset<Shape, L>(0, 0, geo::lds));
                };
                if constexpr (geo::row) {
                    static_for<4>([&](auto p) {
                        const int i = G::row_pair(p);
                        const double2 v = *reinterpret_cast<const double2*>(ap + dist(i));
                        a.x[i] = v.x;
                        a.x[i + 2] = v.y;
                    });
                } else {
                    static_for<4>([&](auto p) {
                        const double2 v = *reinterpret_cast<const double2*>(ap + dist(2 * p));
                        a.x[2 * p] = v.x;
                        a.x[2 * p + 1] = v.y;
                    });
                }
                detail::gemv_load_x_at<Shape>(b, x_lane + (it * S + s) * 16);
                mma<tensor_core>(acc, a, b, acc);
            }
            __syncwarp();
            if (lane == 0) mbar_arrive(&empty[slot]);
        }
        if ((lane & 3) == 0) static_for<2>([&](auto q) { part[warp * 16 + G::y_row(lane, 2 * q)] = acc.x[2 * q]; });
    }
    __syncthreads();
    for (int e = threadIdx.x; e < R * 16; e += blockDim.x) {
        const int rt = e / 16, r = e % 16;
        double s = 0;
        for (int p = 0; p < kparts; ++p) s += part[(p * R + rt) * 16 + r];
        y[row0 + e] = s;
    }
}

template <layout L, int R, int S, int NS, int W, int EF>
size_t bulk_smem()
{
    using geo = bulk_geom<L, R, S>;
    return ((16 * NS + W * 16 * 8 + 127) / 128) * 128 + size_t(NS) * geo::stage_elems * 8;
}

// A plain streaming read of A (bandwidth reference): 65536 blocks x 256 threads, 4 x 16 bytes each.
__global__ void read_kernel(const double2* p, double* out)
{
    const long long base = (static_cast<long long>(blockIdx.x) * 256 * 4) + threadIdx.x;
    double s = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const double2 v = __ldcs(p + base + j * 256);
        s += v.x + v.y;
    }
    if (s == 12345.678) out[0] = s;
}

// ---------------------------------------------------------------------------
// ---------------------------------------------------------------------------
// Column parts: block (x: row tiles, y: column part) writes partial y of its
// K-step range; a second kernel adds the parts in order (deterministic).
// Full tiles only (m and n multiples of 16, vector path).
template <layout L>
__global__ void __launch_bounds__(512, 1)
    colpart_kernel(const double* A, long long lda, const double* x, double* ypart, long long m, long long n,
                   int ksplit, long long steps_per_part)
{
    constexpr int M = Shape::m, K = Shape::k;
    extern __shared__ double part[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int rows_per_block = (blockDim.x >> 5) / ksplit;
    const int kpart = warp % ksplit;
    const long long tile0 = static_cast<long long>(blockIdx.x) * rows_per_block;
    const long long r0 = (tile0 + warp / ksplit) * M;
    const long long kbeg = blockIdx.y * steps_per_part;
    const long long kend = min(n / K, kbeg + steps_per_part);
    frag_c<Shape> acc;
    fill(acc, 0.0);
    const long long a_step = L == layout::row_major ? K : K * lda;
    const double* a_lane = A + r0 * (L == layout::row_major ? lda : 1) + detail::gemv_a_offset<Shape, L>(lane, 0, lda);
    const double* x_lane = x + G::x_elem(lane, 0);
    long long kt = kbeg + kpart;
#pragma unroll 1
    for (; kt + ksplit < kend; kt += 2 * ksplit) {
        frag_a<Shape> a0, a1;
        frag_b<Shape> b0, b1;
        detail::gemv_load_a_at<Shape, L>(a0, a_lane + kt * a_step, lda);
        detail::gemv_load_x_at<Shape>(b0, x_lane + kt * K);
        detail::gemv_load_a_at<Shape, L>(a1, a_lane + (kt + ksplit) * a_step, lda);
        detail::gemv_load_x_at<Shape>(b1, x_lane + (kt + ksplit) * K);
        mma<tensor_core>(acc, a0, b0, acc);
        mma<tensor_core>(acc, a1, b1, acc);
    }
    if (kt < kend) {
        frag_a<Shape> a0;
        frag_b<Shape> b0;
        detail::gemv_load_a_at<Shape, L>(a0, a_lane + kt * a_step, lda);
        detail::gemv_load_x_at<Shape>(b0, x_lane + kt * K);
        mma<tensor_core>(acc, a0, b0, acc);
    }
    if ((lane & 3) == 0) static_for<2>([&](auto q) { part[warp * M + G::y_row(lane, 2 * q)] = acc.x[2 * q]; });
    __syncthreads();
    for (int e = threadIdx.x; e < rows_per_block * M; e += blockDim.x) {
        const int rt = e / M, r = e % M;
        const long long row = (tile0 + rt) * M + r;
        double s2 = part[(rt * ksplit) * M + r];
        for (int p = 1; p < ksplit; ++p) s2 += part[(rt * ksplit + p) * M + r];
        ypart[blockIdx.y * m + row] = s2;
    }
}

__global__ void colpart_combine(const double* ypart, double* y, long long m, int parts)
{
    const long long row = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (row >= m) return;
    double s = ypart[row];
    for (int p = 1; p < parts; ++p) s += ypart[p * m + row];
    y[row] = s;
}

// Column parts inside a thread block cluster: block `rank` of a cluster of
// `parts` takes K-steps [rank * per, (rank + 1) * per); the parts' block sums
// are added in rank order through distributed shared memory (no workspace).
template <layout L>
__global__ void __launch_bounds__(512, 1)
    cluster_kernel(const double* A, long long lda, const double* x, double* y, long long m, long long n, int ksplit,
                   long long steps_per_part)
{
    namespace cg = cooperative_groups;
    constexpr int M = Shape::m, K = Shape::k;
    extern __shared__ double part[];  // [warps][M], then [rows_per_block * M] block sums
    cg::cluster_group cluster = cg::this_cluster();
    const int parts = static_cast<int>(cluster.num_blocks());
    const int rank = static_cast<int>(cluster.block_rank());
    const int warps = blockDim.x >> 5;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int rows_per_block = warps / ksplit;
    const int kpart = warp % ksplit;
    const long long tile0 = static_cast<long long>(blockIdx.x / parts) * rows_per_block;
    const long long r0 = (tile0 + warp / ksplit) * M;
    const long long kbeg = rank * steps_per_part;
    const long long kend = min(n / K, kbeg + steps_per_part);
    frag_c<Shape> acc;
    fill(acc, 0.0);
    const long long a_step = L == layout::row_major ? K : K * lda;
    const double* a_lane = A + r0 * (L == layout::row_major ? lda : 1) + detail::gemv_a_offset<Shape, L>(lane, 0, lda);
    const double* x_lane = x + G::x_elem(lane, 0);
    long long kt = kbeg + kpart;
#pragma unroll 1
    for (; kt + ksplit < kend; kt += 2 * ksplit) {
        frag_a<Shape> a0, a1;
        frag_b<Shape> b0, b1;
        detail::gemv_load_a_at<Shape, L>(a0, a_lane + kt * a_step, lda);
        detail::gemv_load_x_at<Shape>(b0, x_lane + kt * K);
        detail::gemv_load_a_at<Shape, L>(a1, a_lane + (kt + ksplit) * a_step, lda);
        detail::gemv_load_x_at<Shape>(b1, x_lane + (kt + ksplit) * K);
        mma<tensor_core>(acc, a0, b0, acc);
        mma<tensor_core>(acc, a1, b1, acc);
    }
    if (kt < kend) {
        frag_a<Shape> a0;
        frag_b<Shape> b0;
        detail::gemv_load_a_at<Shape, L>(a0, a_lane + kt * a_step, lda);
        detail::gemv_load_x_at<Shape>(b0, x_lane + kt * K);
        mma<tensor_core>(acc, a0, b0, acc);
    }
    if ((lane & 3) == 0) static_for<2>([&](auto q) { part[warp * M + G::y_row(lane, 2 * q)] = acc.x[2 * q]; });
    __syncthreads();
    double* sums = part + warps * M;
    const int rows = rows_per_block * M;
    for (int e = threadIdx.x; e < rows; e += blockDim.x) {
        const int rt = e / M, r = e % M;
        double s2 = part[(rt * ksplit) * M + r];
        for (int p = 1; p < ksplit; ++p) s2 += part[(rt * ksplit + p) * M + r];
        sums[e] = s2;
    }
    cluster.sync();
    // block `rank` adds rows rank, rank + parts, ... over the parts in order
    for (int e = rank + parts * static_cast<int>(threadIdx.x); e < rows; e += parts * blockDim.x) {
        double s2 = cluster.map_shared_rank(sums, 0)[e];
        for (int p = 1; p < parts; ++p) s2 += cluster.map_shared_rank(sums, p)[e];
        y[tile0 * M + e] = s2;
    }
    cluster.sync();  // keep every block's sums alive until they are read
}

struct cand {
    std::string name;
    std::function<void(cudaStream_t)> launch;
};

static double g_warm = 0.15;
static int g_reps = 200;

double time_median(cudaStream_t st, const std::function<void(cudaStream_t)>& f)
{
    using clk = std::chrono::steady_clock;
    const auto t0 = clk::now();
    int launched = 0;
    while (true) {
        for (int i = 0; i < 20; ++i) f(st);
        launched += 20;
        CK(cudaStreamSynchronize(st));
        if (std::chrono::duration<double>(clk::now() - t0).count() >= g_warm) break;
    }
    std::vector<cudaEvent_t> ev(2 * g_reps);
    for (auto& e : ev) CK(cudaEventCreate(&e));
    for (int i = 0; i < g_reps; ++i) {
        CK(cudaEventRecord(ev[2 * i], st));
        f(st);
        CK(cudaEventRecord(ev[2 * i + 1], st));
    }
    CK(cudaStreamSynchronize(st));
    std::vector<double> t(g_reps);
    for (int i = 0; i < g_reps; ++i) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        t[i] = ms;
    }
    for (auto& e : ev) cudaEventDestroy(e);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char** argv)
{
    const std::string group = argc > 1 ? argv[1] : "all";
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    if (argc > 3) g_reps = std::atoi(argv[3]);
    if (argc > 4) g_warm = std::atof(argv[4]);
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, %d SMs; group %s, %d rounds x %d reps, warm-up %.2f s per timing\n", prop.name, sms,
                group.c_str(), rounds, g_reps, g_warm);
    cublasHandle_t h;
    cublasCreate(&h);
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    const long long big = 32768LL * 4096;
    double *A, *x, *y, *yb, *ypart;
    CK(cudaMalloc(&A, big * sizeof(double)));
    CK(cudaMalloc(&x, 32768 * sizeof(double)));
    CK(cudaMalloc(&y, 32768 * sizeof(double)));
    CK(cudaMalloc(&yb, 32768 * sizeof(double)));
    CK(cudaMalloc(&ypart, 64 * 32768 * sizeof(double)));
    init_kernel<<<1024, 256>>>(A, big, 1);
    init_kernel<<<64, 256>>>(x, 32768, 2);
    CK(cudaDeviceSynchronize());
    std::vector<double> hA(big), hx(32768);
    CK(cudaMemcpy(hA.data(), A, big * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hx.data(), x, 32768 * 8, cudaMemcpyDeviceToHost));

    if (group == "reg" || group == "all") {
        const double ms = time_median(st, [&](cudaStream_t s) { read_kernel<<<65536, 256, 0, s>>>((const double2*)A, y); });
        std::printf("read-only 65536 x 256 (4 x 16 B per thread): %.4f ms  %.0f GB/s\n", ms, big * 8.0 / ms / 1e6);
    }

    struct cs {
        long long m, n;
        layout L;
    };
    const cs cases[] = {{32768, 4096, layout::row_major},
                        {32768, 4096, layout::col_major},
                        {4096, 32768, layout::row_major},
                        {4096, 32768, layout::col_major}};
    std::vector<double> hy(32768), ref(32768);
    for (const cs& c : cases) {
        const long long m = c.m, n = c.n;
        const bool row = c.L == layout::row_major;
        const long long lda = row ? n : m;
        const double bytes = (double)(m * n + m + n) * 8;
        std::printf("\n=== %s %lldx%lld ===\n", row ? "row" : "col", m, n);
        // CPU reference
        if (row) {
            for (long long i = 0; i < m; ++i) {
                long double s = 0;
                for (long long k = 0; k < n; ++k) s += (long double)hA[i * lda + k] * hx[k];
                ref[i] = (double)s;
            }
        } else {
            std::vector<long double> acc(m, 0);
            for (long long k = 0; k < n; ++k)
                for (long long i = 0; i < m; ++i) acc[i] += (long double)hA[k * lda + i] * hx[k];
            for (long long i = 0; i < m; ++i) ref[i] = (double)acc[i];
        }
        // tolerance from the arithmetic: n products of |a|,|x| <= 1 in FP64, a few units of n eps
        double absdot = 0;
        for (long long i = 0; i < std::min(m, 64LL); ++i) {
            double s = 0;
            for (long long k = 0; k < n; ++k) s += std::fabs(hA[row ? i * lda + k : k * lda + i] * hx[k]);
            absdot = std::max(absdot, s);
        }
        const double tol = 4.0 * n * 1.1102230246251565e-16 * absdot;

        const detail::gemv_plan p = detail::plan_gemv_mma(c.L, m / 16, n / 16, sms);
        const size_t psm = p.ksplit > 1 ? size_t(p.warps) * 16 * 8 : 0;
        std::printf("plan_gemv_mma: ksplit %d, warps %d, blocks %lld; tolerance %.2e\n", p.ksplit, p.warps, p.blocks, tol);

        std::vector<cand> cands;
        cands.push_back({"base cublasDgemv", [=](cudaStream_t s) {
                             const double one = 1, zero = 0;
                             cublasSetStream(h, s);
                             if (row) cublasDgemv(h, CUBLAS_OP_T, (int)n, (int)m, &one, A, (int)lda, x, 1, &zero, y, 1);
                             else cublasDgemv(h, CUBLAS_OP_N, (int)m, (int)n, &one, A, (int)lda, x, 1, &zero, y, 1);
                         }});
        auto add_reg = [&](auto kernel, const std::string& name) {
            cands.push_back({name, [=](cudaStream_t s) {
                                 kernel<<<(unsigned)p.blocks, 32 * p.warps, psm, s>>>(A, lda, x, y, m, n, p.ksplit);
                             }});
        };
        auto reg_all = [&](auto Lc) {
            constexpr layout LL = decltype(Lc)::value;
            cands.push_back({"tc tcore::gemv (header)", [=](cudaStream_t s) {
                                 tcore::gemv<tensor_core, f64_m16n8k16>(LL, m, n, A, lda, x, y, s);
                             }});
            add_reg(reg_kernel<LL, P_CS, 0, 0>, std::string("reg ") + policy_name[P_CS]);
            add_reg(reg_kernel<LL, P_NC_NA, 0, 0>, std::string("reg ") + policy_name[P_NC_NA]);
            add_reg(reg_kernel<LL, P_NC_NA_256, 0, 0>, std::string("reg ") + policy_name[P_NC_NA_256]);
            add_reg(reg_kernel<LL, P_CS_256, 0, 0>, std::string("reg ") + policy_name[P_CS_256]);
            add_reg(reg_kernel<LL, P_NC_NA_EF_256, 0, 0>, std::string("reg ") + policy_name[P_NC_NA_EF_256]);
            add_reg(reg_kernel<LL, P_CS_128, 0, 0>, std::string("reg ") + policy_name[P_CS_128]);
            add_reg(reg_kernel<LL, P_NC_NA_POL_256, 0, 0>, std::string("reg ") + policy_name[P_NC_NA_POL_256]);
            add_reg(reg_kernel<LL, P_LU, 0, 0>, std::string("reg ") + policy_name[P_LU]);
            add_reg(reg_kernel<LL, P_CS, 1, 1>, "reg cs + prefetch.global.L2, 1 iteration ahead");
            add_reg(reg_kernel<LL, P_CS, 1, 2>, "reg cs + prefetch.global.L2, 2 iterations ahead");
            add_reg(reg_kernel<LL, P_CS, 1, 4>, "reg cs + prefetch.global.L2, 4 iterations ahead");
            add_reg(reg_kernel<LL, P_CS, 3, 2>, "reg cs + cp.async.bulk.prefetch.L2 128 B, 2 iterations ahead");
            add_reg(reg_kernel<LL, P_CS_256, 1, 2>, "reg cs.L2::256B + prefetch.global.L2, 2 iterations ahead");
        };
        auto add_bulk = [&](auto kernel, size_t smem, int R, int S, int NS, int W, int EF) {
            if (m % (16 * R) || n % (16 * S)) return;
            if (smem > 227 * 1024) return;
            CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            int occ = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, 32 * (W + 1), smem));
            char nm[200];
            std::snprintf(nm, sizeof nm, "bulk R%d S%d NS%d W%d%s smem %zuK occ %d blocks %lld", R, S, NS, W,
                          EF ? " evict_first" : "", smem / 1024, occ, m / (16 * R));
            const unsigned blocks = (unsigned)(m / (16 * R));
            cands.push_back({nm, [=](cudaStream_t s) {
                                 kernel<<<blocks, 32 * (W + 1), smem, s>>>(A, lda, x, y, m, n);
                             }});
        };
#define BULK(LL, R, S, NS, W, EF) add_bulk(bulk_kernel<LL, R, S, NS, W, EF>, bulk_smem<LL, R, S, NS, W, EF>(), R, S, NS, W, EF)
        auto bulk_all = [&](auto Lc) {
            constexpr layout LL = decltype(Lc)::value;
            cands.push_back({"tc tcore::gemv (header)", [=](cudaStream_t s) {
                                 tcore::gemv<tensor_core, f64_m16n8k16>(LL, m, n, A, lda, x, y, s);
                             }});
            if constexpr (LL == layout::row_major) {
                BULK(LL, 1, 8, 4, 8, 0);
                BULK(LL, 1, 8, 6, 8, 0);
                BULK(LL, 1, 8, 4, 4, 0);
                BULK(LL, 1, 16, 3, 8, 0);
                BULK(LL, 1, 16, 4, 16, 0);
                BULK(LL, 2, 8, 4, 8, 0);
                BULK(LL, 1, 8, 4, 8, 1);
            } else {
                BULK(LL, 2, 4, 4, 8, 0);
                BULK(LL, 2, 8, 3, 8, 0);
                BULK(LL, 2, 8, 6, 8, 0);
                BULK(LL, 4, 4, 4, 8, 0);
                BULK(LL, 4, 4, 6, 16, 0);
                BULK(LL, 1, 8, 4, 8, 0);
                BULK(LL, 2, 4, 4, 8, 1);
            }
        };
        auto shapes_all = [&](auto Lc) {
            constexpr layout LL = decltype(Lc)::value;
            cands.push_back({"tc tcore::gemv (header)", [=](cudaStream_t s) {
                                 tcore::gemv<tensor_core, f64_m16n8k16>(LL, m, n, A, lda, x, y, s);
                             }});
            auto k = detail::gemv_kernel<tensor_core, Shape, LL, true>;
            const int shp[][2] = {{1, 4}, {1, 8}, {1, 16}, {2, 2}, {2, 4}, {2, 8}, {4, 2}, {4, 4}, {8, 1}, {8, 2}};
            for (auto& rk : shp) {
                const int rows = rk[0], ks = rk[1], warps = rows * ks;
                if (ks > n / 16 / 2) continue;
                const long long blocks = (m / 16 + rows - 1) / rows;
                const size_t sm = ks > 1 ? size_t(warps) * 16 * 8 : 0;
                int occ = 0;
                CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, 32 * warps, sm));
                char nm[160];
                std::snprintf(nm, sizeof nm, "shape %d row tiles x %d warps: %lld blocks, %d per SM", rows, ks, blocks, occ);
                cands.push_back({nm, [=](cudaStream_t s) {
                                     k<<<(unsigned)blocks, 32 * warps, sm, s>>>(A, lda, x, y, m, n, ks);
                                 }});
            }
            auto kc = colpart_kernel<LL>;
            const int cp[][3] = {{2, 8, 2}, {2, 8, 4}, {2, 8, 33}, {1, 8, 4}, {1, 8, 33}, {2, 4, 33}, {1, 16, 33}};
            for (auto& c3 : cp) {
                const int rows = c3[0], ks = c3[1], parts = c3[2], warps = rows * ks;
                const long long steps = n / 16, per = (steps + parts - 1) / parts;
                if (per < 2 * ks) continue;
                const long long blocks = m / 16 / rows;
                const size_t sm = size_t(warps) * 16 * 8;
                char nm[160];
                std::snprintf(nm, sizeof nm, "colpart %d row tiles x %d warps x %d parts: %lld blocks", rows, ks, parts,
                              blocks * parts);
                cands.push_back({nm, [=](cudaStream_t s) {
                                     kc<<<dim3((unsigned)blocks, (unsigned)parts), 32 * warps, sm, s>>>(A, lda, x, ypart, m, n, ks, per);
                                     colpart_combine<<<(unsigned)((m + 255) / 256), 256, 0, s>>>(ypart, y, m, parts);
                                 }});
            }
            auto kq = cluster_kernel<LL>;
            CK(cudaFuncSetAttribute(kq, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
            const int cl[][3] = {{2, 4, 8}, {2, 8, 8}, {1, 8, 8}, {2, 4, 4}, {2, 2, 8}, {4, 2, 8}, {2, 4, 16}, {1, 8, 16}, {1, 4, 16}, {2, 2, 16}};
            for (auto& c3 : cl) {
                const int rows = c3[0], ks = c3[1], parts = c3[2], warps = rows * ks;
                const long long steps = n / 16, per = (steps + parts - 1) / parts;
                if (per < 2 * ks || (m / 16) % rows) continue;
                const long long blocks = m / 16 / rows * parts;
                const size_t sm = size_t(warps + rows) * 16 * 8;
                cudaLaunchConfig_t cfg = {};
                cfg.gridDim = dim3((unsigned)blocks);
                cfg.blockDim = dim3(32 * warps);
                cfg.dynamicSmemBytes = sm;
                cudaLaunchAttribute at[1];
                at[0].id = cudaLaunchAttributeClusterDimension;
                at[0].val.clusterDim.x = parts;
                at[0].val.clusterDim.y = 1;
                at[0].val.clusterDim.z = 1;
                cfg.attrs = at;
                cfg.numAttrs = 1;
                int nc = 0;
                CK(cudaOccupancyMaxActiveClusters(&nc, kq, &cfg));
                char nm[160];
                std::snprintf(nm, sizeof nm, "cluster %d row tiles x %d warps x %d parts: %lld blocks, %d clusters at once",
                              rows, ks, parts, blocks, nc);
                if (nc == 0) continue;
                cands.push_back({nm, [=](cudaStream_t s) {
                                     cudaLaunchConfig_t c2 = cfg;
                                     cudaLaunchAttribute a2[1] = {at[0]};
                                     c2.attrs = a2;
                                     c2.stream = s;
                                     CK(cudaLaunchKernelEx(&c2, kq, A, lda, x, y, m, n, ks, per));
                                 }});
            }
        };
        const bool want_reg = group == "reg" || group == "all", want_bulk = group == "bulk" || group == "all";
        if (group == "shapes") {
            if (row) shapes_all(std::integral_constant<layout, layout::row_major>{});
            else shapes_all(std::integral_constant<layout, layout::col_major>{});
        }
        if (row) {
            if (want_reg) reg_all(std::integral_constant<layout, layout::row_major>{});
            if (want_bulk) bulk_all(std::integral_constant<layout, layout::row_major>{});
        } else {
            if (want_reg) reg_all(std::integral_constant<layout, layout::col_major>{});
            if (want_bulk) bulk_all(std::integral_constant<layout, layout::col_major>{});
        }

        // correctness: poisoned y, one launch, against the CPU reference
        std::vector<bool> ok(cands.size(), false);
        for (size_t i = 0; i < cands.size(); ++i) {
            CK(cudaMemset(y, 0xFF, m * 8));
            cands[i].launch(st);
            const cudaError_t e = cudaStreamSynchronize(st);
            if (e != cudaSuccess) {
                std::printf("%-80s FAILED: %s\n", cands[i].name.c_str(), cudaGetErrorString(e));
                return 1;  // the context is gone; later candidates cannot run
            }
            CK(cudaMemcpy(hy.data(), y, m * 8, cudaMemcpyDeviceToHost));
            double err = 0;
            for (long long r = 0; r < m; ++r) err = std::max(err, std::fabs(hy[r] - ref[r]));
            if (!(err <= tol)) err = INFINITY;
            ok[i] = std::isfinite(err);
            std::printf("check %-74s max |y - ref| %.2e %s\n", cands[i].name.c_str(), err, ok[i] ? "ok" : "WRONG");
        }
        std::vector<std::vector<double>> t(cands.size());
        for (int r = 0; r < rounds; ++r)
            for (size_t i = 0; i < cands.size(); ++i)
                if (ok[i]) t[i].push_back(time_median(st, cands[i].launch));
        const double tb = [&] {
            std::vector<double> v = t[0];
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        }();
        const double bmin = *std::min_element(t[0].begin(), t[0].end()),
                     bmax = *std::max_element(t[0].begin(), t[0].end());
        std::printf("%-80s %9s %8s %9s  rounds (ms)\n", "candidate", "median ms", "GB/s", "base/t");
        for (size_t i = 0; i < cands.size(); ++i) {
            if (!ok[i]) continue;
            std::vector<double> v = t[i];
            std::sort(v.begin(), v.end());
            const double md = v[v.size() / 2];
            std::printf("%-80s %9.4f %8.0f %9.4f ", cands[i].name.c_str(), md, bytes / md / 1e6, tb / md);
            for (double q : t[i]) std::printf(" %.4f", q);
            std::printf("\n");
        }
        std::printf("cuBLAS round spread: %.4f .. %.4f ms (%.2f%%)\n", bmin, bmax, 100.0 * (bmax - bmin) / tb);
        std::fflush(stdout);
    }
    cublasDestroy(h);
    return 0;
}
