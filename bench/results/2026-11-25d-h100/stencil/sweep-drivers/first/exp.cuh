// Experimental t = 1 cce kernels (2D tiles with a B-deep prefetch ring, 16-byte
// loads, streaming stores; 3D streaming with the same options).
#pragma once
#include <tcore/patterns/stencil_tiled.cuh>

namespace tcore::stencil_detail {

template <class S, int TX, int TY, int V, int Threads, int Buffers, int MinBlocks, bool CS>
struct tile1_config {
    static constexpr int R = S::radius;
    static constexpr int tile_x = TX, tile_y = TY, strip = V, threads = Threads, buffers = Buffers,
                         min_blocks = MinBlocks;
    static constexpr bool streaming_stores = CS;
    using geometry = tile_geometry<S, 1, TX, TY>;
    static constexpr int bw = geometry::bw, bh = geometry::bh, pitch = geometry::pitch, plane = geometry::plane;
    static constexpr int work = TX * (TY / V);
    static constexpr std::size_t smem_bytes = sizeof(double) * Buffers * plane;
    static_assert(TY % V == 0 && TX % 2 == 0 && Buffers >= 2 && Threads % 32 == 0, "config");
};

template <bool CS>
__device__ __forceinline__ void store_out(double* p, double v)
{
    if constexpr (CS) __stcs(p, v);
    else *p = v;
}

template <class S, boundary BC, class C, bool Vec>
__global__ void __launch_bounds__(C::threads, C::min_blocks) exp_tile1_kernel(const stencil_args<S> a)
{
    constexpr int R = S::radius, P = C::pitch, V = C::strip, B = C::buffers;
    constexpr int h = stencil_halo(BC, R);
    using G = typename C::geometry;
    extern __shared__ __align__(16) double smem[];

    auto load_tile = [&](double* buf, long long it) {
        const long long x0 = (it % a.tiles_x) * C::tile_x, y0 = (it / a.tiles_x) * C::tile_y;
        if constexpr (Vec) {
            constexpr int pairs = C::bw / 2;
            const long long ey = a.ny + 2 * R;
            for (int i = threadIdx.x; i < C::bh * pairs; i += C::threads) {
                const int by = i / pairs, bx = 2 * (i % pairs);
                const long long ay = y0 + by, ax = x0 + bx;
                const bool ok = ay < ey && ax < a.ex;
                cp_async<16>(buf + by * P + bx, ok ? a.in + ay * a.ex + ax : a.in, ok ? 16 : 0);
            }
        } else {
            load_region<G, BC, C::threads>(buf, a.in, a.in, x0, y0, a.nx, a.ny, a.ex);
        }
    };

    long long item = blockIdx.x;
    for (int j = 0; j < B - 1; ++j) {
        const long long it = item + j * static_cast<long long>(gridDim.x);
        if (it < a.items) load_tile(smem + j * C::plane, it);
        cp_async_commit();
    }
    for (int k = 0; item < a.items; ++k, item += gridDim.x) {
        cp_async_wait<B - 2>();
        __syncthreads();
        {
            const long long it = item + (B - 1) * static_cast<long long>(gridDim.x);
            if (it < a.items) load_tile(smem + ((k + B - 1) % B) * C::plane, it);
            cp_async_commit();
        }
        const double* buf = smem + (k % B) * C::plane;
        const long long x0 = (item % a.tiles_x) * C::tile_x, y0 = (item / a.tiles_x) * C::tile_y;
        const bool full = x0 + C::tile_x <= a.nx && y0 + C::tile_y <= a.ny;
        for (int w = threadIdx.x; w < C::work; w += C::threads) {
            const int col = w % C::tile_x, r0 = (w / C::tile_x) * V;
            double acc[V];
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] = 0.0;
            const double* base = buf + (r0 + R) * P + col + R;
            static_for<V + 2 * R>([&](auto r_) {
                constexpr int dr = decltype(r_)::value - R;
                static_for<2 * R + 1>([&](auto x_) {
                    constexpr int dx = decltype(x_)::value - R;
                    if constexpr (cce_needed<S, V>(0, dr, dx)) {
                        const double val = base[dr * P + dx];
                        static_for<V>([&](auto v_) {
                            constexpr int v = decltype(v_)::value;
                            if constexpr (S::contains(0, dr - v, dx))
                                acc[v] = fma(a.w.w[S::weight_index(0, dr - v, dx)], val, acc[v]);
                        });
                    }
                });
            });
            const long long x = x0 + col;
            double* dst = a.out + (y0 + r0 + h) * a.ex + x + h;
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (full || (x < a.nx && y0 + r0 + v < a.ny)) store_out<C::streaming_stores>(dst + v * a.ex, acc[v]);
        }
    }
    cp_async_wait<0>();
}

template <class S, int SX, int SY, int V, int Ring, int MinBlocks, bool CS>
struct stream2_config : stream_config<S, SX, SY, V, Ring, MinBlocks> {
    static constexpr bool streaming_stores = CS;
};

/// stencil_stream_kernel (3D) with optional 16-byte loads (Dirichlet, ex even) and streaming stores.
template <class S, boundary BC, class C, bool Vec>
__global__ void __launch_bounds__(C::threads, C::min_blocks) exp_stream_kernel(const stencil_args<S> a)
{
    constexpr int R = S::radius, V = C::strip, Q = 2 * R + 1, Ring = C::ring, P = C::pitch;
    constexpr int h = stencil_halo(BC, R);
    extern __shared__ __align__(16) double smem[];
    const int tx = threadIdx.x % C::sx, ty0 = (threadIdx.x / C::sx) * V;
    const long long ns = a.nz;
    const long long sstride = a.ex * a.ey;
    const long long cross_n = a.ny;

    for (long long item = blockIdx.x; item < a.items; item += gridDim.x) {
        const long long tile = item / a.zchunks, chunk = item % a.zchunks;
        const long long x0 = (tile % a.tiles_x) * C::sx, y0 = (tile / a.tiles_x) * C::sy;
        const long long za = chunk * a.zchunk;
        const long long zb = za + a.zchunk < ns ? za + a.zchunk : ns;
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
                double* buf = smem + static_cast<int>((p - q_begin) % Ring) * C::plane;
                const long long ps = BC == boundary::periodic ? wrap(p, ns) : p + R;
                const double* src = a.in + ps * sstride;
                if constexpr (Vec) {
                    constexpr int pairs = C::bw / 2;
                    const long long ey = a.ny + 2 * R;
                    for (int i = threadIdx.x; i < C::bh * pairs; i += C::threads) {
                        const int by = i / pairs, bx = 2 * (i % pairs);
                        const long long ay = y0 + by, ax = x0 + bx;
                        const bool ok = ay < ey && ax < a.ex;
                        cp_async<16>(buf + by * P + bx, ok ? src + ay * a.ex + ax : a.in, ok ? 16 : 0);
                    }
                } else {
                    for (int by = warp; by < C::bh; by += C::threads / 32) {
                        const long long y = y0 - R + by;
                        long long row = -1;
                        if constexpr (BC == boundary::periodic) row = wrap(y, cross_n) * a.ex;
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
            cp_async_commit();
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
            cp_async_wait<Ring - 2>();
            __syncthreads();
            load_plane(p + Ring - 1);
            const double* base =
                smem + static_cast<int>((p - q_begin) % Ring) * C::plane + (ty0 + C::hy) * P + tx + R;
            static_for<V + 2 * C::hy>([&](auto r_) {
                constexpr int dr = decltype(r_)::value - C::hy;
                static_for<2 * R + 1>([&](auto x_) {
                    constexpr int dx = decltype(x_)::value - R;
                    if constexpr (stream_needed<S, V>(dr, dx)) {
                        const double val = base[dr * P + dx];
                        static_for<Q>([&](auto k_) {
                            constexpr int k = decltype(k_)::value;
                            constexpr int ds = R - k;
                            static_for<V>([&](auto v_) {
                                constexpr int v = decltype(v_)::value;
                                if constexpr (stream_contains<S>(ds, dr - v, dx))
                                    q[k][v] = fma(a.w.w[stream_weight<S>(ds, dr - v, dx)], val, q[k][v]);
                            });
                        });
                    }
                });
            });
            const long long z = p - R;
            if (z >= za && x_in) {
                double* dst = a.out + (z + h) * sstride + xo + h;
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    const long long y = y0 + ty0 + v;
                    if (y < a.ny) store_out<C::streaming_stores>(dst + (y + h) * a.ex, q[0][v]);
                }
            }
#pragma unroll
            for (int k = 0; k + 1 < Q; ++k)
#pragma unroll
                for (int v = 0; v < V; ++v) q[k][v] = q[k + 1][v];
#pragma unroll
            for (int v = 0; v < V; ++v) q[Q - 1][v] = 0.0;
        }
    }
    cp_async_wait<0>();
}

template <class Kernel>
inline int exp_prepare(Kernel kernel, std::size_t smem, int threads)
{
    static int cached = 0;
    if (cached) return cached;
    TCORE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    int blocks = 0;
    TCORE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem));
    cached = blocks;
    return blocks;
}

/// 2D t = 1 tiled launch; vec: -1 auto, 0 no, 1 yes. Returns blocks per SM.
template <class S, boundary BC, class C, bool Vec>
int exp_launch_tile1(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                     cudaStream_t stream, int max_per_sm)
{
    stencil_args<S> a = grid_args<S, BC>(in, out, grid, w);
    const bool can_vec = BC == boundary::dirichlet && a.ex % 2 == 0 && detail::aligned(in, 16);
    if (Vec && !can_vec) throw error("vec not possible");
    a.tiles_x = detail::ceil_div(grid.nx, C::tile_x);
    a.tiles_y = detail::ceil_div(grid.ny, C::tile_y);
    a.zchunk = 1;
    a.zchunks = 1;
    a.items = a.tiles_x * a.tiles_y;
    auto kernel = exp_tile1_kernel<S, BC, C, Vec>;
    int per_sm = exp_prepare(kernel, C::smem_bytes, C::threads);
    if (max_per_sm > 0 && per_sm > max_per_sm) per_sm = max_per_sm;
    const long long blocks = std::min<long long>(a.items, static_cast<long long>(detail::sm_count()) * per_sm);
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
    return per_sm;
}

template <class S, boundary BC, class C, bool Vec>
int exp_launch_stream(const double* in, double* out, const stencil_grid& grid, const stencil_weights<S>& w,
                      cudaStream_t stream, int max_per_sm)
{
    stencil_args<S> a = grid_args<S, BC>(in, out, grid, w);
    const bool can_vec = BC == boundary::dirichlet && a.ex % 2 == 0 && detail::aligned(in, 16);
    if (Vec && !can_vec) throw error("vec not possible");
    auto kernel = exp_stream_kernel<S, BC, C, Vec>;
    int per_sm = exp_prepare(kernel, C::smem_bytes, C::threads);
    if (max_per_sm > 0 && per_sm > max_per_sm) per_sm = max_per_sm;
    a.tiles_x = detail::ceil_div(grid.nx, C::sx);
    a.tiles_y = detail::ceil_div(grid.ny, C::sy);
    const long long tiles = a.tiles_x * a.tiles_y;
    const long long resident = static_cast<long long>(detail::sm_count()) * per_sm;
    a.zchunk = choose_zchunk(grid.nz, tiles, resident, S::radius);
    a.zchunks = detail::ceil_div(grid.nz, a.zchunk);
    a.items = tiles * a.zchunks;
    const long long blocks = std::min<long long>(a.items, resident);
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
    return per_sm;
}

}  // namespace tcore::stencil_detail
