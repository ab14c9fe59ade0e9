// segsweep.cu - candidate sweep for tcore's segmented FP64 reduce and scan
// (segments 64..1024 over 2^27 doubles) against CUB's block primitives, in
// one process. Timing: cudaEvents around single launches, round-robin over
// the candidates (5 rounds x 30 launches each), median; 300 ms time-based
// warm-up first. Every candidate is checked once (output poisoned with NaN)
// against an FP64 CPU reference (long double accumulation).
//
// Reduce candidates (segments >= 256): one warp per segment group,
// knobs: load hint H, tiles loaded before any add B (B / (seg/256) segments
// per warp iteration if B >= seg/256, else seg/(256 B) batches per segment),
// min blocks per SM M (__launch_bounds__(256, M)), persistent grid P.
// Scan candidates (segments >= 128): the block-tile kernel of scan.cuh with
// knobs: threads Th and warp tiles per warp W (tile = Th/32*W*128 elements),
// load L (cp.async default / .L2::128B / .L2::256B / TMA bulk), store St
// (default / st.global.cs / TMA bulk store after adding carries in smem).
#include <tcore/patterns/reduce.cuh>
#include <tcore/patterns/scan.cuh>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

using namespace tcore;

// ---------------------------------------------------------------- CUB bases
template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_block_segments(const double* in, double* out)
{
    using block_reduce = cub::BlockReduce<double, Threads>;
    __shared__ typename block_reduce::TempStorage tmp;
    double v[Items];
    cub::LoadDirectStriped<Threads>(threadIdx.x, in + static_cast<long long>(blockIdx.x) * Threads * Items, v);
    const double s = block_reduce(tmp).Sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_block_scan(const double* in, double* out)
{
    using load_t = cub::BlockLoad<double, Threads, Items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using scan_t = cub::BlockScan<double, Threads>;
    using store_t = cub::BlockStore<double, Threads, Items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename load_t::TempStorage load;
        typename scan_t::TempStorage scan;
        typename store_t::TempStorage store;
    } tmp;
    const long long first = static_cast<long long>(blockIdx.x) * Threads * Items;
    double v[Items];
    load_t(tmp.load).Load(in + first, v);
    __syncthreads();
    scan_t(tmp.scan).InclusiveSum(v, v);
    __syncthreads();
    store_t(tmp.store).Store(out + first, v);
}

void cub_reduce(const double* in, double* out, long long segs, int seg)
{
    const unsigned g = static_cast<unsigned>(segs);
    switch (seg) {
    case 64: cub_block_segments<64, 1><<<g, 64>>>(in, out); break;
    case 128: cub_block_segments<128, 1><<<g, 128>>>(in, out); break;
    case 256: cub_block_segments<128, 2><<<g, 128>>>(in, out); break;
    case 512: cub_block_segments<128, 4><<<g, 128>>>(in, out); break;
    case 1024: cub_block_segments<128, 8><<<g, 128>>>(in, out); break;
    }
}
void cub_scan(const double* in, double* out, long long segs, int seg)
{
    const unsigned g = static_cast<unsigned>(segs);
    switch (seg) {
    case 64: cub_block_scan<64, 1><<<g, 64>>>(in, out); break;
    case 128: cub_block_scan<128, 1><<<g, 128>>>(in, out); break;
    case 256: cub_block_scan<128, 2><<<g, 128>>>(in, out); break;
    case 512: cub_block_scan<128, 4><<<g, 128>>>(in, out); break;
    case 1024: cub_block_scan<128, 8><<<g, 128>>>(in, out); break;
    }
}

// ---------------------------------------------------------------- loads
template <int H>
__device__ __forceinline__ double2 ld16(const double* p)
{
    double2 r;
    if constexpr (H == 0) {
        r = __ldg(reinterpret_cast<const double2*>(p));
    } else if constexpr (H == 1) {
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p));
    } else if constexpr (H == 2) {
        asm volatile("ld.global.nc.L1::no_allocate.L2::128B.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p));
    } else if constexpr (H == 3) {
        r = __ldcs(reinterpret_cast<const double2*>(p));
    } else {
        asm volatile("ld.global.nc.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p));
    }
    return r;
}
const char* hint_name[] = {"ldg", "nc.na.L2_256", "nc.na.L2_128", "ldcs", "nc.L2_256"};

// ---------------------------------------------------------------- reduce candidate
template <class Acc, int Seg, int B, int M, int H, bool P>
__global__ void __launch_bounds__(256, M) exp_reduce(const double* __restrict__ in, double* __restrict__ out,
                                                     long long nseg)
{
    constexpr int tps = Seg / 256;                     // tiles per segment
    constexpr int spi = B >= tps ? B / tps : 1;        // segments per warp iteration
    constexpr int batches = B >= tps ? 1 : tps / B;    // load batches per segment
    constexpr int tpsb = B >= tps ? tps : B;           // tiles per segment per batch
    const int lane = threadIdx.x & 31;
    const long long gw = static_cast<long long>(blockIdx.x) * 8 + (threadIdx.x >> 5);
    const long long stride = P ? static_cast<long long>(gridDim.x) * 8 : nseg;  // one-pass: a single iteration
    Acc acc;
    for (long long g = gw; g * spi < nseg; g += stride) {
        const double* base = in + g * spi * Seg;
        double res[spi];
        acc.reset();
#pragma unroll
        for (int b = 0; b < batches; ++b) {
            double v[B][8];
#pragma unroll
            for (int t = 0; t < B; ++t) {
                const int s = t / tpsb, tt = t % tpsb;  // segment in the group, tile in the batch
                const double* tile = base + s * Seg + (b * tpsb + tt) * 256;
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const double2 p = ld16<H>(tile + 64 * j + 2 * lane);
                    v[t][2 * j] = p.x;
                    v[t][2 * j + 1] = p.y;
                }
            }
#pragma unroll
            for (int t = 0; t < B; ++t) {
                const int s = t / tpsb, tt = t % tpsb;
                if (spi > 1 && tt == 0) acc.reset();
                acc.add(v[t]);
                if (spi > 1 && tt == tpsb - 1) res[s] = acc.total();
            }
        }
        if (spi == 1) res[0] = acc.total();
        if (lane < spi) {
            double r = res[0];
#pragma unroll
            for (int s = 1; s < spi; ++s)
                if (lane == s) r = res[s];
            out[g * spi + lane] = r;
        }
    }
}

using tc_acc = warp_sum<tensor_core, f64_m16n8k16>;
using cce_acc = warp_sum_cce<double>;

struct cand {
    std::string name;
    std::function<void()> launch;
    std::vector<float> ms;
    double err = -1;
    bool ok = false;
    int regs = 0;
};

template <class Acc, int Seg, int B, int M, int H, bool P>
void add_reduce(std::vector<cand>& cs, const char* acc_name, const double* in, double* out, long long nseg)
{
    auto k = exp_reduce<Acc, Seg, B, M, H, P>;
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    constexpr int tps = Seg / 256;
    constexpr int spi = B >= tps ? B / tps : 1;
    const long long groups = nseg / spi;
    long long grid = (groups + 7) / 8;
    if (P) grid = std::min(grid, static_cast<long long>(detail::sm_count()) * detail::blocks_per_sm(k, 256));
    char nm[160];
    std::snprintf(nm, sizeof nm, "%s B=%d M=%d %s %s (regs %d, %d blk/SM)", acc_name, B, M, hint_name[H],
                  P ? "persistent" : "one-pass", fa.numRegs, detail::blocks_per_sm(k, 256));
    cand c;
    c.name = nm;
    c.regs = fa.numRegs;
    c.launch = [=] { k<<<static_cast<unsigned>(grid), 256>>>(in, out, nseg); };
    cs.push_back(c);
}

template <class Acc, int Seg, int B, int M, int H>
void add_reduce_p(std::vector<cand>& cs, const char* an, const double* in, double* out, long long nseg)
{
    add_reduce<Acc, Seg, B, M, H, true>(cs, an, in, out, nseg);
    add_reduce<Acc, Seg, B, M, H, false>(cs, an, in, out, nseg);
}
template <class Acc, int Seg, int B, int M>
void add_reduce_h(std::vector<cand>& cs, const char* an, const double* in, double* out, long long nseg)
{
    add_reduce_p<Acc, Seg, B, M, 0>(cs, an, in, out, nseg);
    add_reduce_p<Acc, Seg, B, M, 1>(cs, an, in, out, nseg);
    add_reduce_p<Acc, Seg, B, M, 2>(cs, an, in, out, nseg);
    add_reduce_p<Acc, Seg, B, M, 3>(cs, an, in, out, nseg);
}
template <class Acc, int Seg>
void add_reduce_all(std::vector<cand>& cs, const char* an, const double* in, double* out, long long nseg)
{
    add_reduce_h<Acc, Seg, 1, 2>(cs, an, in, out, nseg);
    add_reduce_h<Acc, Seg, 1, 4>(cs, an, in, out, nseg);
    add_reduce_h<Acc, Seg, 2, 2>(cs, an, in, out, nseg);
    add_reduce_h<Acc, Seg, 2, 4>(cs, an, in, out, nseg);
    add_reduce_h<Acc, Seg, 4, 2>(cs, an, in, out, nseg);
    add_reduce_h<Acc, Seg, 4, 3>(cs, an, in, out, nseg);
    add_reduce_h<Acc, Seg, 8, 2>(cs, an, in, out, nseg);
}

// ---------------------------------------------------------------- scan candidate
__device__ __forceinline__ void cp16(void* dst, const void* src, int L)
{
    if (L == 1)
        asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(smem_address(dst)),
                     "l"(__cvta_generic_to_global(src))
                     : "memory");
    else if (L == 2)
        asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(smem_address(dst)),
                     "l"(__cvta_generic_to_global(src))
                     : "memory");
    else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_address(dst)),
                     "l"(__cvta_generic_to_global(src))
                     : "memory");
}

__device__ __forceinline__ void st16(double* p, double a, double b, int St)
{
    if (St == 1)
        asm volatile("st.global.cs.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(a), "d"(b) : "memory");
    else
        *reinterpret_cast<double2*>(p) = make_double2(a, b);
}

// Block tile of Th/32*W warp tiles (<= 32), segments of seg_tiles warp tiles
// (n a multiple of the tile: the sweep uses 2^27).
template <class Scanner, int Th, int W, int L, int St>
__global__ void __launch_bounds__(Th, (Th == 64 ? 8 : Th == 128 ? 4 : 2))
    exp_scan(const double* __restrict__ in, double* __restrict__ out, int seg_tiles)
{
    constexpr int warps = Th / 32;
    constexpr int tiles = warps * W;
    constexpr int elems = tiles * scan_tile;
    static_assert(tiles <= 32, "");
    __shared__ __align__(128) double tile_buf[elems];
    __shared__ double s_carry[32];
    __shared__ __align__(8) unsigned long long bar;
    const long long first = static_cast<long long>(blockIdx.x) * elems;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if constexpr (L == 3) {  // TMA bulk copy, 4 KiB pieces from lanes of warp 0
        const unsigned b = smem_address(&bar);
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        }
        __syncthreads();
        constexpr int piece = 4096, pieces = elems * 8 / piece;
        if (threadIdx.x == 0)
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(elems * 8) : "memory");
        __syncwarp();
        if (warp == 0 && lane < pieces)
            asm volatile(
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                    smem_address(tile_buf + lane * (piece / 8))),
                "l"(__cvta_generic_to_global(in + first + lane * (piece / 8))), "r"(piece), "r"(b)
                : "memory");
        asm volatile(
            "{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n @!p bra WAIT_%=;\n}" ::"r"(
                b)
            : "memory");
    } else {
        for (int c = threadIdx.x; c < elems / 2; c += Th) cp16(tile_buf + 2 * c, in + first + 2 * c, L);
        cp_async_commit();
        cp_async_wait<0>();
        __syncthreads();
    }
    const Scanner sc;
    for (int u = 0; u < W; ++u) {
        const int j = warp * W + u;
        double v[scan_per_lane], o[scan_per_lane];
        detail::scan_load<Scanner, true>(v, tile_buf + j * scan_tile, scan_tile);
        sc.scan(o, v);
        const double t = sc.total(o, v);
        __syncwarp();
        detail::scan_store<Scanner, true>(tile_buf + j * scan_tile, o, scan_tile);
        if (lane == 0) s_carry[j] = t;
    }
    __syncthreads();
    if (warp == 0) {
        const double t = lane < tiles ? s_carry[lane] : 0.0;
        double before = 0;
        if (seg_tiles != 1) {
            const double incl = detail::shfl_inclusive(t, seg_tiles);
            before = detail::shfl_exclusive_of(incl, seg_tiles);
        }
        if (lane < tiles) s_carry[lane] = before;
    }
    __syncthreads();
    if constexpr (St == 2) {  // add carries in smem, then one bulk store per 4 KiB
        for (int c = threadIdx.x; c < elems / 2; c += Th) {
            double2 x = reinterpret_cast<double2*>(tile_buf)[c];
            const double add = s_carry[2 * c / scan_tile];
            x.x += add;
            x.y += add;
            reinterpret_cast<double2*>(tile_buf)[c] = x;
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        constexpr int piece = 4096, pieces = elems * 8 / piece;
        if (warp == 0 && lane < pieces) {
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                             __cvta_generic_to_global(out + first + lane * (piece / 8))),
                         "r"(smem_address(tile_buf + lane * (piece / 8))), "r"(piece)
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        }
    } else {
        for (int c = threadIdx.x; c < elems / 2; c += Th) {
            const double2 x = reinterpret_cast<double2*>(tile_buf)[c];
            const double add = s_carry[2 * c / scan_tile];
            st16(out + first + 2 * c, x.x + add, x.y + add, St);
        }
    }
}

using tc_scan = warp_scan<tensor_core, f64_m16n8k16, false, 8>;
using cce_scan = warp_scan_cce<double, false, 8>;
bool g_nobulk = false;
const char* load_name[] = {"cp.async", "cp.async.L2_128", "cp.async.L2_256", "bulk"};
const char* store_name[] = {"st", "st.cs", "bulk"};

template <class Scanner, int Th, int W, int L, int St>
void add_scan(std::vector<cand>& cs, const char* an, const double* in, double* out, long long n, int seg)
{
    if (g_nobulk && (L == 3 || St == 2)) return;
    auto k = exp_scan<Scanner, Th, W, L, St>;
    constexpr int elems = Th / 32 * W * scan_tile;
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    char nm[160];
    std::snprintf(nm, sizeof nm, "%s Th=%d W=%d tile=%d %s %s (regs %d, %d blk/SM)", an, Th, W, elems,
                  load_name[L], store_name[St], fa.numRegs, detail::blocks_per_sm(k, Th));
    cand c;
    c.name = nm;
    c.regs = fa.numRegs;
    const int st = seg / scan_tile;
    c.launch = [=] { k<<<static_cast<unsigned>(n / elems), Th>>>(in, out, st); };
    cs.push_back(c);
}
template <class Scanner, int Th, int W>
void add_scan_ls(std::vector<cand>& cs, const char* an, const double* in, double* out, long long n, int seg)
{
    add_scan<Scanner, Th, W, 0, 0>(cs, an, in, out, n, seg);
    add_scan<Scanner, Th, W, 0, 1>(cs, an, in, out, n, seg);
    add_scan<Scanner, Th, W, 2, 0>(cs, an, in, out, n, seg);
    add_scan<Scanner, Th, W, 2, 1>(cs, an, in, out, n, seg);
    add_scan<Scanner, Th, W, 1, 1>(cs, an, in, out, n, seg);
    add_scan<Scanner, Th, W, 3, 0>(cs, an, in, out, n, seg);
    add_scan<Scanner, Th, W, 3, 1>(cs, an, in, out, n, seg);
    add_scan<Scanner, Th, W, 3, 2>(cs, an, in, out, n, seg);
    add_scan<Scanner, Th, W, 2, 2>(cs, an, in, out, n, seg);
}
template <class Scanner>
void add_scan_all(std::vector<cand>& cs, const char* an, const double* in, double* out, long long n, int seg)
{
    add_scan_ls<Scanner, 128, 8>(cs, an, in, out, n, seg);
    add_scan_ls<Scanner, 256, 4>(cs, an, in, out, n, seg);
    add_scan_ls<Scanner, 128, 4>(cs, an, in, out, n, seg);
    if (seg <= 1024) add_scan_ls<Scanner, 64, 8>(cs, an, in, out, n, seg);
}

// ---------------------------------------------------------------- checking and timing
__global__ void max_abs_diff(const double* a, const double* ref, long long n, unsigned long long* out_bits)
{
    double m = 0;
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
        const double d = fabs(a[i] - ref[i]);
        m = (d <= m) ? m : (d == d ? d : INFINITY);
    }
    for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0) atomicMax(out_bits, __double_as_longlong(m));  // m >= 0: bits order = value order
}

double check_out(const double* d_out, const double* d_ref, long long n, unsigned long long* d_bits)
{
    CK(cudaMemset(d_bits, 0, 8));
    max_abs_diff<<<1024, 256>>>(d_out, d_ref, n, d_bits);
    unsigned long long b;
    CK(cudaMemcpy(&b, d_bits, 8, cudaMemcpyDeviceToHost));
    double m;
    std::memcpy(&m, &b, 8);
    return m;
}

void measure(std::vector<cand>& cs, double bytes, const char* title, double tol, double* d_out, long long out_n,
             const double* d_ref, unsigned long long* d_bits, int rounds = 5, int reps = 30)
{
    // correctness first (poisoned output)
    for (auto& c : cs) {
        CK(cudaMemset(d_out, 0xFF, out_n * 8));
        c.launch();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        c.err = check_out(d_out, d_ref, out_n, d_bits);
        c.ok = c.err <= tol;
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int r = 0; r < rounds; ++r)
        for (auto& c : cs) {
            c.launch();
            c.launch();
            for (int i = 0; i < reps; ++i) {
                CK(cudaEventRecord(e0));
                c.launch();
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                c.ms.push_back(ms);
            }
        }
    std::printf("== %s\n", title);
    double base_gbs = 0;
    for (auto& c : cs) {
        std::sort(c.ms.begin(), c.ms.end());
        const double med = c.ms[c.ms.size() / 2];
        const double gbs = bytes / (med * 1e-3) / 1e9;
        if (&c == &cs[0]) base_gbs = gbs;
        std::printf("  %-78s %8.4f ms %7.1f GB/s %6.3fx  err %.2e %s\n", c.name.c_str(), med, gbs, gbs / base_gbs,
                    c.err, c.ok ? "ok" : "FAIL");
    }
    std::fflush(stdout);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
}

int main(int argc, char** argv)
{
    const long long n = 1ll << 27;
    bool do_reduce = true, do_scan = true;
    if (argc > 1 && std::string(argv[1]) == "reduce") do_scan = false;
    if (argc > 1 && std::string(argv[1]) == "scan") do_reduce = false;
    if (argc > 2 && std::string(argv[2]) == "nobulk") g_nobulk = true;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, %d SMs, n = 2^27 doubles\n", prop.name, prop.multiProcessorCount);
    std::vector<double> h(n);
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (auto& x : h) x = dist(rng);
    double *d_in, *d_out, *d_ref;
    unsigned long long* d_bits;
    CK(cudaMalloc(&d_in, n * 8));
    CK(cudaMalloc(&d_out, n * 8));
    CK(cudaMalloc(&d_ref, n * 8));
    CK(cudaMalloc(&d_bits, 8));
    CK(cudaMemcpy(d_in, h.data(), n * 8, cudaMemcpyHostToDevice));
    {  // time-based warm-up
        auto t0 = std::chrono::steady_clock::now();
        while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 0.3) {
            cub_reduce(d_in, d_out, n / 256, 256);
            CK(cudaDeviceSynchronize());
        }
    }
    const int segs[] = {64, 128, 256, 512, 1024};
    std::vector<double> ref;
    if (do_reduce)
        for (int seg : segs) {
            const long long ns = n / seg;
            ref.assign(ns, 0);
            for (long long s = 0; s < ns; ++s) {
                long double a = 0;
                for (int i = 0; i < seg; ++i) a += h[s * seg + i];
                ref[s] = static_cast<double>(a);
            }
            CK(cudaMemcpy(d_ref, ref.data(), ns * 8, cudaMemcpyHostToDevice));
            std::vector<cand> cs;
            cs.push_back({"cub BlockReduce (base)", [=] { cub_reduce(d_in, d_out, ns, seg); }});
            cs.push_back({"tc  committed reduce_segments",
                          [=] { reduce_segments<tensor_core>(d_in, d_out, ns, seg); }});
            cs.push_back({"cce committed reduce_segments_cce", [=] { reduce_segments_cce(d_in, d_out, ns, seg); }});
            switch (seg) {
            case 256:
                add_reduce_all<tc_acc, 256>(cs, "tc ", d_in, d_out, ns);
                add_reduce_all<cce_acc, 256>(cs, "cce", d_in, d_out, ns);
                break;
            case 512:
                add_reduce_all<tc_acc, 512>(cs, "tc ", d_in, d_out, ns);
                add_reduce_all<cce_acc, 512>(cs, "cce", d_in, d_out, ns);
                break;
            case 1024:
                add_reduce_all<tc_acc, 1024>(cs, "tc ", d_in, d_out, ns);
                add_reduce_all<cce_acc, 1024>(cs, "cce", d_in, d_out, ns);
                break;
            }
            char t[64];
            std::snprintf(t, sizeof t, "reduce seg=%d (GB/s: input read + sums written)", seg);
            measure(cs, static_cast<double>(n) * 8 + ns * 8, t, 4.0 * seg * 1.2e-16 * seg, d_out, ns, d_ref, d_bits);
        }
    if (do_scan)
        for (int seg : segs) {
            ref.assign(n, 0);
            for (long long s = 0; s < n / seg; ++s) {
                long double a = 0;
                for (int i = 0; i < seg; ++i) {
                    a += h[s * seg + i];
                    ref[s * seg + i] = static_cast<double>(a);
                }
            }
            CK(cudaMemcpy(d_ref, ref.data(), n * 8, cudaMemcpyHostToDevice));
            const long long ns = n / seg;
            std::vector<cand> cs;
            cs.push_back({"cub BlockScan (base)", [=] { cub_scan(d_in, d_out, ns, seg); }});
            cs.push_back({"tc  committed scan_segments", [=] { scan_segments<tensor_core>(d_in, d_out, ns, seg); }});
            cs.push_back({"cce committed scan_segments_cce", [=] { scan_segments_cce(d_in, d_out, ns, seg); }});
            if (seg >= 128) {
                add_scan_all<tc_scan>(cs, "tc ", d_in, d_out, n, seg);
                add_scan_all<cce_scan>(cs, "cce", d_in, d_out, n, seg);
            }
            char t[64];
            std::snprintf(t, sizeof t, "scan seg=%d (GB/s: read + write)", seg);
            measure(cs, 2.0 * n * 8, t, 4.0 * seg * 1.2e-16 * seg, d_out, n, d_ref, d_bits);
        }
    return 0;
}
