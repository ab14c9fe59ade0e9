// Experimental copy of stencil_stream_kernel with extra knobs.
#pragma once
#include <tcore/patterns/stencil_tiled.cuh>

namespace x3 {
using namespace tcore;
using namespace tcore::stencil_detail;

// Load: 0 cp.async 16B, 1 cp.async 16B + L2::256B prefetch hint, 2 bulk row copies (TMA) with mbarriers
// Split: 0 chunked items (as committed), 1 balanced linear split of (tile, z) planes over the blocks
template <class S, int SX, int SY, int V, int Ring, int MinBlocks, int Load, bool CS, int Split>
struct cfg : stream_config<S, SX, SY, V, Ring, MinBlocks> {
    static constexpr int load = Load, split = Split;
    static constexpr bool cs = CS;
    static constexpr std::size_t smem_total = stream_config<S, SX, SY, V, Ring, MinBlocks>::smem_bytes + 8 * Ring;
};

__device__ inline void cp16_l2_256(void* dst, const void* src, int n)
{
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;" ::"r"(smem_address(dst)),
                 "l"(__cvta_generic_to_global(src)), "r"(n) : "memory");
}
__device__ inline void mbar_init(unsigned long long* b, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(b)), "r"(count) : "memory");
}
__device__ inline void mbar_expect(unsigned long long* b, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(b)), "r"(bytes) : "memory");
}
__device__ inline void mbar_wait(unsigned long long* b, unsigned parity)
{
    asm volatile(
        "{\n .reg .pred p;\n LAB_WAIT:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        " @!p bra LAB_WAIT;\n}\n" ::"r"(smem_address(b)), "r"(parity) : "memory");
}
__device__ inline void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* b)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_address(dst)),
                 "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(smem_address(b)) : "memory");
}

struct xargs {
    long long total;  // split 1: tiles * nz planes
};

template <class S, boundary BC, class C>
__global__ void __launch_bounds__(C::threads, C::min_blocks) kernel(const stencil_args<S> a, const xargs xa)
{
    constexpr int R = S::radius, V = C::strip, Q = 2 * R + 1, Ring = C::ring, P = C::pitch;
    constexpr int h = stencil_halo(BC, R);
    extern __shared__ __align__(16) double smem[];
    unsigned long long* bars = reinterpret_cast<unsigned long long*>(smem + Ring * C::plane);
    const int tx = threadIdx.x % C::sx, ty0 = (threadIdx.x / C::sx) * V;
    const long long nz = a.nz, ny = a.ny;
    const long long plane_elems = a.ex * a.ey;
    const bool bulk = C::load == 2 && BC == boundary::dirichlet && a.pair_loads;
    if (C::load == 2) {
        if (threadIdx.x == 0) {
            for (int i = 0; i < Ring; ++i) mbar_init(bars + i, 1);
            asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        }
        __syncthreads();
    }
    long long seq = 0;  // planes streamed by this block so far (bulk: ring slot and parity)

    auto run_segment = [&](long long tile, long long za, long long zb) {
        const long long x0 = (tile % a.tiles_x) * C::sx, y0 = (tile / a.tiles_x) * C::sy;
        const long long q_begin = za - R, q_end = zb + R;
        constexpr int loads = (C::bw + 31) / 32;
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        int xoff[loads];
#pragma unroll
        for (int k = 0; k < loads; ++k) {
            const int bx = lane + 32 * k;
            const long long x = x0 - R + bx;
            xoff[k] = -1;
            if (bx < C::bw) {
                if constexpr (BC == boundary::periodic) xoff[k] = static_cast<int>(wrap(x, a.nx));
                else if (x >= -R && x < a.nx + R) xoff[k] = static_cast<int>(x + R);
            }
        }
        auto load_plane = [&](long long p) {
            if (p < q_end) {
                const int slot = static_cast<int>((seq + p - q_begin) % Ring);
                double* buf = smem + slot * C::plane;
                const long long ps = BC == boundary::periodic ? wrap(p, nz) : p + R;
                const double* src = a.in + ps * plane_elems;
                if (bulk) {
                    if (warp == 0) {
                        const long long rows_left = ny + 2 * R - y0;
                        const int rows = rows_left < C::bh ? static_cast<int>(rows_left) : C::bh;
                        const long long cols_left = a.ex - x0;
                        const int cols = cols_left < C::bw ? static_cast<int>(cols_left) : C::bw;
                        if (lane == 0) mbar_expect(bars + slot, static_cast<unsigned>(rows * cols * 8));
                        __syncwarp();
                        for (int by = lane; by < rows; by += 32)
                            bulk_copy(buf + by * P, src + (y0 + by) * a.ex + x0, cols * 8, bars + slot);
                    }
                } else if (BC == boundary::dirichlet && C::bw % 2 == 0 && a.pair_loads) {
                    constexpr int pairs = C::bw / 2;
                    for (int i = threadIdx.x; i < C::bh * pairs; i += C::threads) {
                        const int by = i / pairs, bx = 2 * (i % pairs);
                        const long long ay = y0 + by, ax = x0 + bx;
                        const bool ok = ay < ny + 2 * R && ax < a.ex;
                        if (C::load == 1) cp16_l2_256(buf + by * P + bx, ok ? src + ay * a.ex + ax : a.in, ok ? 16 : 0);
                        else cp_async<16>(buf + by * P + bx, ok ? src + ay * a.ex + ax : a.in, ok ? 16 : 0);
                    }
                } else {
                    for (int by = warp; by < C::bh; by += C::threads / 32) {
                        const long long y = y0 - R + by;
                        long long row = -1;
                        if constexpr (BC == boundary::periodic) row = wrap(y, ny) * a.ex;
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
            if (!bulk) cp_async_commit();
        };

        double q[Q][V];
#pragma unroll
        for (int k = 0; k < Q; ++k)
#pragma unroll
            for (int v = 0; v < V; ++v) q[k][v] = 0.0;
        const long long xo = x0 + tx;
        const bool x_in = xo < a.nx;
        __syncthreads();
        for (int j = 0; j < Ring - 1; ++j) load_plane(q_begin + j);
        for (long long p = q_begin; p < q_end; ++p) {
            const long long s = seq + p - q_begin;
            if (bulk) mbar_wait(bars + static_cast<int>(s % Ring), static_cast<unsigned>((s / Ring) & 1));
            else cp_async_wait<Ring - 2>();
            __syncthreads();
            load_plane(p + Ring - 1);
            const double* base = smem + static_cast<int>(s % Ring) * C::plane + (ty0 + R) * P + tx + R;
            static_for<V + 2 * R>([&](auto r_) {
                constexpr int dr = decltype(r_)::value - R;
                static_for<2 * R + 1>([&](auto x_) {
                    constexpr int dx = decltype(x_)::value - R;
                    if constexpr (stream_needed<S, V>(dr, dx)) {
                        const double val = base[dr * P + dx];
                        static_for<Q>([&](auto k_) {
                            constexpr int k = decltype(k_)::value;
                            constexpr int ds = R - k;
                            static_for<V>([&](auto v_) {
                                constexpr int v = decltype(v_)::value;
                                if constexpr (S::contains(ds, dr - v, dx))
                                    q[k][v] = fma(a.w.w[S::weight_index(ds, dr - v, dx)], val, q[k][v]);
                            });
                        });
                    }
                });
            });
            const long long z = p - R;
            if (z >= za && x_in) {
                double* dst = a.out + (z + h) * plane_elems + xo + h;
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    const long long y = y0 + ty0 + v;
                    if (y < a.ny) {
                        if (C::cs) __stcs(dst + (y + h) * a.ex, q[0][v]);
                        else dst[(y + h) * a.ex] = q[0][v];
                    }
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
    };

    if (C::split == 0) {
        for (long long item = blockIdx.x; item < a.items; item += gridDim.x) {
            const long long tile = item / a.zchunks, chunk = item % a.zchunks;
            const long long za = chunk * a.zchunk;
            const long long zb = za + a.zchunk < nz ? za + a.zchunk : nz;
            run_segment(tile, za, zb);
        }
    } else {
        // block b owns linear planes [b*total/G, (b+1)*total/G) of (tile, z) order
        const long long lo = xa.total * blockIdx.x / gridDim.x, hi = xa.total * (blockIdx.x + 1) / gridDim.x;
        for (long long l = lo; l < hi;) {
            const long long tile = l / nz, za = l % nz;
            const long long zb = (hi - tile * nz) < nz ? hi - tile * nz : nz;
            run_segment(tile, za, zb);
            l = tile * nz + zb;
        }
    }
    if (!bulk) cp_async_wait<0>();
}

template <class S, boundary BC, class C>
struct tag {};

template <class S, boundary BC, class C>
int launch(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w, cudaStream_t stream)
{
    stencil_args<S> a = grid_args<S, BC>(in, out, grid, w);
    a.pair_loads = C::sx % 2 == 0 && pair_loads_apply<S, BC>(a, 1);
    auto k = kernel<S, BC, C>;
    const int per_sm = prepare_kernel<tag<S, BC, C>>(k, C::smem_total, C::threads);
    a.tiles_x = detail::ceil_div(grid.nx, C::sx);
    a.tiles_y = detail::ceil_div(grid.ny, C::sy);
    const long long tiles = a.tiles_x * a.tiles_y;
    const long long resident = static_cast<long long>(detail::sm_count()) * per_sm;
    xargs xa{tiles * grid.nz};
    long long blocks;
    if (C::split == 0) {
        a.zchunk = choose_zchunk(grid.nz, tiles, resident, S::radius);
        a.zchunks = detail::ceil_div(grid.nz, a.zchunk);
        a.items = a.tiles_x * a.tiles_y * a.zchunks;
        blocks = std::min<long long>(a.items, resident);
    } else {
        a.zchunk = grid.nz;
        a.zchunks = 1;
        a.items = tiles;
        blocks = std::min<long long>(xa.total, resident);
    }
    k<<<static_cast<unsigned>(blocks), C::threads, C::smem_total, stream>>>(a, xa);
    return per_sm;
}
}  // namespace x3
