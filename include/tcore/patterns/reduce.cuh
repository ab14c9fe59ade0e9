// tcore/patterns/reduce.cuh - sum reduction as an MMA against a constant row
// of ones (Quadrant III: partial input, partial output).
//
// After Dakkak et al., "Accelerating reduction and scan using tensor core
// units" (ICS'19), in the FP64 form of the Cubie study. The data is the B
// operand (K x 8) and A is a row of ones, generated, never loaded:
//
//   D = A * B + C,  A(r, k) = 1 if r == 0 (cmat::ones_row{0})
//   => D(0, c) = C(0, c) + sum_k B(k, c): row 0 of D accumulates 8 column sums.
//
// A lane builds its share with make_a(lane, cmat::ones_row{0}): a_i = 1 where
// a_coord(lane, i).row == 0, i.e. on lanes 0-3 (g = 0) in the registers of
// row g (FP64 m16n8k*: even i; m8n8k4: a0; FP16 m16n8k16: e in {0,1,4,5}).
// Row 0 of D is c0 (column 2t) and c1 (column 2t+1) of lanes 0-3; rows 1-15
// are products with zeros and are never read. A is the same for every k, so
// the k position of a data element does not matter: a lane may put any of its
// values in any B register, and loads are plain 16-byte vector loads.
//
// A warp tile is 256 elements, 8 per lane (reduce_tile_pos says where); value
// q of a lane feeds MMA q / b_count, register q % b_count: 2 MMAs per tile for
// FP64 m16n8k16 and FP16 m16n8k16 (FP32 accumulation), 4 for m16n8k8, 8 for
// m16n8k4 and m8n8k4. With the chunk placement column c of D sums elements
// 32c..32c+31, so one tile also gives 4 segment sums of 64 (lane t: c0 + c1)
// or 2 of 128 (one shuffle) or 1 of 256 (two shuffles).
//
// Entry points
//   warp:      warp_sum<Backend, Shape> (accumulator), warp_reduce(v)
//   block:     block_reduce<Backend, Shape, Threads>(v, smem)
//   segmented: reduce_segments / reduce_segments_cce (fixed segment size)
//   device:    reduce / reduce_cce (CUB-style temp-storage query). Bitwise
//              deterministic run to run: for a given n and device the grid is
//              fixed, each warp sums a fixed set of tiles, and block and grid
//              partials are combined in a fixed order (no floating-point
//              atomics). The last stage adds at most 32 partials per SM on
//              CUDA cores for every variant.
// The cce ("essential") variants add the same loaded values on CUDA cores
// and finish with a shuffle tree.
#pragma once

#include "../backend.cuh"
#include "../check.cuh"
#include "../frag/f16_m16n8k16.cuh"
#include "../frag/f64_m16n8k16.cuh"
#include "../frag/f64_m16n8k4.cuh"
#include "../frag/f64_m16n8k8.cuh"
#include "../frag/f64_m8n8k4.cuh"
#include "../infra/constants.cuh"
#include "../infra/launch.cuh"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>

namespace tcore {

inline constexpr int reduce_tile = 256;     ///< elements per warp tile
inline constexpr int reduce_per_lane = 8;   ///< values per lane per tile

/// Where value q (0..7) of a lane sits inside a 256-element tile.
enum class reduce_placement {
    chunk,   ///< lane (g,t) holds elements of chunk g = [32g, 32g+32): D column c sums chunk c
    stream,  ///< each 16-byte load instruction of the warp reads 512 contiguous bytes
};

/// Tile position of value q of `lane`. FP64 chunk: 32g + 8(q>>1) + 2t + (q&1)
/// (a quad reads 64 contiguous bytes per load); FP64 stream: 64(q>>1) + 2 lane
/// + (q&1); FP16 (both): 8 lane + q, one 16-byte load.
template <reduce_placement P, class T>
__host__ __device__ constexpr int reduce_tile_pos(int lane, int q)
{
    if constexpr (sizeof(T) == 2) return 8 * lane + q;
    else if constexpr (P == reduce_placement::chunk) return 32 * (lane >> 2) + 8 * (q >> 1) + 2 * (lane & 3) + (q & 1);
    else return 64 * (q >> 1) + 2 * lane + (q & 1);
}

namespace detail {

template <class T>
__device__ inline T zero_of() { return convert_to<T>(0.0f); }

template <class S, class T>
__device__ inline S to_sum(T v)
{
    if constexpr (std::is_same_v<T, __half>) return static_cast<S>(__half2float(v));
    else return static_cast<S>(v);
}

/// Loads one whole tile. Vec: 16-byte loads, which need `tile` 16-byte aligned.
template <reduce_placement P, bool Vec, class T>
__device__ inline void reduce_load(T (&v)[reduce_per_lane], const T* tile)
{
    const int lane = lane_id();
    if constexpr (Vec && sizeof(T) == 8) {
        static_for<4>([&](auto j) {
            const double2 p = __ldg(reinterpret_cast<const double2*>(tile + reduce_tile_pos<P, T>(lane, 2 * j)));
            v[2 * j] = p.x;
            v[2 * j + 1] = p.y;
        });
    } else if constexpr (Vec) {
        union {
            uint4 u;
            __half h[8];
        } p;
        p.u = __ldg(reinterpret_cast<const uint4*>(tile + reduce_tile_pos<P, T>(lane, 0)));
        static_for<8>([&](auto q) { v[q] = p.h[q]; });
    } else {
        static_for<reduce_per_lane>([&](auto q) { v[q] = tile[reduce_tile_pos<P, T>(lane, q)]; });
    }
}

/// Loads the first `valid` elements of a tile (any value; <= 0 gives all
/// zeros); the other positions read as zero.
template <reduce_placement P, class T>
__device__ inline void reduce_load_part(T (&v)[reduce_per_lane], const T* tile, long long valid)
{
    const int lane = lane_id();
    static_for<reduce_per_lane>([&](auto q) {
        const int pos = reduce_tile_pos<P, T>(lane, q);
        v[q] = pos < valid ? tile[pos] : zero_of<T>();
    });
}

/// Loads tiles 0 and 1 at `base` (2 * 256 elements, `valid` of them present).
template <reduce_placement P, bool Vec, class T>
__device__ inline bool reduce_load_pair(T (&v0)[reduce_per_lane], T (&v1)[reduce_per_lane], const T* base,
                                        long long valid)
{
    if (valid >= 2 * reduce_tile) {  // warp-uniform
        reduce_load<P, Vec>(v0, base);
        reduce_load<P, Vec>(v1, base + reduce_tile);
        return true;
    }
    reduce_load_part<P>(v0, base, valid);
    reduce_load_part<P>(v1, base + reduce_tile, valid - reduce_tile);
    return false;
}

}  // namespace detail

// -- warp level --------------------------------------------------------------

/// Warp accumulator of tile sums on the MMA (tc: tensor_core, cc: cuda_core).
/// All 32 lanes must call every member together.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
struct warp_sum {
    static_assert(is_backend_v<Backend>, "Backend must be tcore::tensor_core or tcore::cuda_core");
    static_assert(reduce_per_lane % Shape::b_count == 0, "a lane's 8 values must fill whole B fragments");
    static_assert(Shape::c_coord(1, 0).row == 0 && Shape::c_coord(1, 0).col == 2 && Shape::c_coord(1, 1).col == 3,
                  "row 0 of D must be c0/c1 of lanes 0-3");
    using in_type = typename Shape::b_type;
    using sum_type = typename Shape::c_type;
    static constexpr int mmas_per_tile = reduce_per_lane / Shape::b_count;

    frag_a<Shape> ones;  ///< the ones row, generated from the lane map
    frag_c<Shape> d;     ///< row 0: the 8 column sums

    __device__ warp_sum() : ones(make_a<Shape>(lane_id(), cmat::ones_row{0})) { reset(); }

    __device__ void reset() { fill(d, 0.0f); }

    /// Adds one tile: 8 values per lane, in any order.
    __device__ void add(const in_type (&v)[reduce_per_lane])
    {
        static_for<mmas_per_tile>([&](auto m_) {
            constexpr int m = decltype(m_)::value;
            frag_b<Shape> b;
            static_for<Shape::b_count>([&](auto i) { b.x[i] = v[m * Shape::b_count + i]; });
            mma<Backend>(d, ones, b, d);
        });
    }

    /// Lanes 0-3: columns 2t + 2t+1 (under the chunk placement, chunks 2t and 2t+1).
    __device__ sum_type pair() const { return d.x[0] + d.x[1]; }

    /// Everything added so far, on every lane.
    __device__ sum_type total() const
    {
        sum_type s = pair();
        s += __shfl_xor_sync(0xffffffffu, s, 1);
        s += __shfl_xor_sync(0xffffffffu, s, 2);
        return __shfl_sync(0xffffffffu, s, 0);
    }

    /// After one chunk-placed tile: writes its 256/S segment sums (S = 64,
    /// 128 or 256) to out[first + s] where first + s < count.
    template <int S>
    __device__ void store_segments(sum_type* out, long long first, long long count) const
    {
        static_assert(S == 64 || S == 128 || S == 256, "segments of 64, 128 or 256 per tile");
        constexpr int step = S / 64;  // lanes per segment among lanes 0-3
        const int lane = lane_id();
        sum_type s = pair();
        for (int o = 1; o < step; o <<= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (lane < 4 && lane % step == 0 && first + lane / step < count) out[first + lane / step] = s;
    }
};

/// The cce accumulator: each lane adds its values on CUDA cores; shuffle tree.
template <class T>
struct warp_sum_cce {
    using in_type = T;
    using sum_type = sum_type_t<T>;
    sum_type s;

    __device__ warp_sum_cce() : s(0) {}
    __device__ void reset() { s = 0; }

    __device__ void add(const T (&v)[reduce_per_lane])
    {
        sum_type p[4];
        static_for<4>([&](auto j) {
            p[j] = detail::to_sum<sum_type>(v[2 * j]) + detail::to_sum<sum_type>(v[2 * j + 1]);
        });
        s += (p[0] + p[1]) + (p[2] + p[3]);
    }

    __device__ sum_type total() const
    {
        sum_type r = s;
        for (int o = 16; o > 0; o >>= 1) r += __shfl_xor_sync(0xffffffffu, r, o);
        return r;
    }

    template <int S>
    __device__ void store_segments(sum_type* out, long long first, long long count) const
    {
        static_assert(S == 64 || S == 128 || S == 256, "segments of 64, 128 or 256 per tile");
        constexpr int lanes = S / 8;  // lanes holding one segment (8 values each)
        const int lane = lane_id();
        sum_type r = s;
        for (int o = 1; o < lanes; o <<= 1) r += __shfl_xor_sync(0xffffffffu, r, o);
        if (lane % lanes == 0 && first + lane / lanes < count) out[first + lane / lanes] = r;
    }
};

/// Sum of the warp's 256 values (8 per lane, any order) on every lane.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
__device__ inline typename Shape::c_type warp_reduce(const typename Shape::b_type (&v)[reduce_per_lane])
{
    warp_sum<Backend, Shape> s;
    s.add(v);
    return s.total();
}

/// cce: the same sum with CUDA-core adds and a shuffle tree.
template <class T>
__device__ inline sum_type_t<T> warp_reduce_cce(const T (&v)[reduce_per_lane])
{
    warp_sum_cce<T> s;
    s.add(v);
    return s.total();
}

// -- block level -------------------------------------------------------------

namespace detail {

/// Adds one value per warp in warp order; every thread gets the sum.
template <int BlockThreads, class S>
__device__ inline S block_combine(S warp_total, S* smem)
{
    static_assert(BlockThreads % 32 == 0 && BlockThreads <= 1024, "whole warps, at most 1024 threads");
    require_block_threads<BlockThreads>();
    if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = warp_total;
    __syncthreads();
    S s = smem[0];
    for (int w = 1; w < BlockThreads / 32; ++w) s += smem[w];
    __syncthreads();  // smem may be reused at once
    return s;
}

}  // namespace detail

/// Sum over a block of BlockThreads (1-D, multiple of 32) threads, 8 values
/// each; every thread gets it. smem: BlockThreads/32 sums in shared memory.
template <class Backend, class Shape, int BlockThreads>
__device__ inline typename Shape::c_type block_reduce(const typename Shape::b_type (&v)[reduce_per_lane],
                                                      typename Shape::c_type* smem)
{
    return detail::block_combine<BlockThreads>(warp_reduce<Backend, Shape>(v), smem);
}

/// cce block sum.
template <int BlockThreads, class T>
__device__ inline sum_type_t<T> block_reduce_cce(const T (&v)[reduce_per_lane], sum_type_t<T>* smem)
{
    return detail::block_combine<BlockThreads>(warp_reduce_cce(v), smem);
}

// -- kernels -----------------------------------------------------------------

namespace detail {

inline constexpr int reduce_threads = 256;
inline constexpr int reduce_warps = reduce_threads / 32;

/// Device-wide stage 1: warp w of the grid sums tile pairs w, w + W, ...
/// (a pair is 512 elements; the last one is read with bounds checks);
/// each block writes its sum (warps added in order) to partials[blockIdx.x].
template <class Acc, bool Vec>
__global__ void __launch_bounds__(reduce_threads, 3)
    reduce_partials_kernel(const typename Acc::in_type* in, long long n, typename Acc::sum_type* partials)
{
    using T = typename Acc::in_type;
    using S = typename Acc::sum_type;
    constexpr auto P = reduce_placement::stream;
    const int warp = threadIdx.x >> 5;
    const long long pairs = ceil_div(n, 2 * reduce_tile);
    const long long gw = static_cast<long long>(blockIdx.x) * reduce_warps + warp;
    const long long stride = static_cast<long long>(gridDim.x) * reduce_warps;
    Acc acc;
    for (long long pair = gw; pair < pairs; pair += stride) {
        T v0[reduce_per_lane], v1[reduce_per_lane];
        const long long first = pair * 2 * reduce_tile;
        reduce_load_pair<P, Vec>(v0, v1, in + first, n - first);
        acc.add(v0);
        acc.add(v1);
    }
    __shared__ S warp_sums[reduce_warps];
    const S w = acc.total();
    if ((threadIdx.x & 31) == 0) warp_sums[warp] = w;
    __syncthreads();
    if (threadIdx.x == 0) {
        S s = warp_sums[0];
        for (int i = 1; i < reduce_warps; ++i) s += warp_sums[i];
        partials[blockIdx.x] = s;
    }
}

/// Device-wide stage 2 (one block): partials added in a fixed order.
template <class S>
__global__ void __launch_bounds__(reduce_threads) reduce_final_kernel(const S* partials, int count, S* out)
{
    S s = 0;
    for (int i = threadIdx.x; i < count; i += reduce_threads) s += partials[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    __shared__ S warp_sums[reduce_warps];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        S t = warp_sums[0];
        for (int i = 1; i < reduce_warps; ++i) t += warp_sums[i];
        *out = t;
    }
}

/// Segments of S = 64, 128 or 256: each tile holds 256/S segments; a warp
/// loads a pair of tiles before adding either. S = 256 needs only the tile's
/// total, so its tiles take the stream placement (512-byte loads).
template <class Acc, int S>
__global__ void __launch_bounds__(reduce_threads, 3)
    reduce_small_segments_kernel(const typename Acc::in_type* in, typename Acc::sum_type* out, long long num_segments)
{
    using T = typename Acc::in_type;
    constexpr auto P = S == 256 ? reduce_placement::stream : reduce_placement::chunk;
    constexpr int per_tile = reduce_tile / S;
    const long long n = num_segments * S;
    const long long pairs = ceil_div(n, 2 * reduce_tile);
    const long long gw = static_cast<long long>(blockIdx.x) * reduce_warps + (threadIdx.x >> 5);
    const long long stride = static_cast<long long>(gridDim.x) * reduce_warps;
    Acc acc;
    for (long long pair = gw; pair < pairs; pair += stride) {
        T v0[reduce_per_lane], v1[reduce_per_lane];
        const long long first = pair * 2 * reduce_tile;
        reduce_load_pair<P, true>(v0, v1, in + first, n - first);
        acc.reset();
        acc.add(v0);
        acc.template store_segments<S>(out, 2 * pair * per_tile, num_segments);
        acc.reset();
        acc.add(v1);
        acc.template store_segments<S>(out, (2 * pair + 1) * per_tile, num_segments);
    }
}

/// Any segment size: warp w sums segments w, w + W, ... (tile pairs, then
/// the one or two tiles left, the last one read with bounds checks). W is
/// the grid's warp count; launched with a warp per segment, each warp sums one.
template <class Acc, bool Vec>
__global__ void __launch_bounds__(reduce_threads, 2)
    reduce_segments_kernel(const typename Acc::in_type* in, typename Acc::sum_type* out, long long num_segments,
                           long long seg)
{
    using T = typename Acc::in_type;
    using S = typename Acc::sum_type;
    constexpr auto P = reduce_placement::stream;
    const long long gw = static_cast<long long>(blockIdx.x) * reduce_warps + (threadIdx.x >> 5);
    const long long stride = static_cast<long long>(gridDim.x) * reduce_warps;
    Acc acc;
    for (long long s = gw; s < num_segments; s += stride) {
        const T* base = in + s * seg;
        acc.reset();
        long long first = 0;
        for (; first + 2 * reduce_tile <= seg; first += 2 * reduce_tile) {  // whole tile pairs
            T v0[reduce_per_lane], v1[reduce_per_lane];
            reduce_load<P, Vec>(v0, base + first);
            reduce_load<P, Vec>(v1, base + first + reduce_tile);
            acc.add(v0);
            acc.add(v1);
        }
        for (; first < seg; first += reduce_tile) {  // at most two more tiles, the last maybe partial
            T v[reduce_per_lane];
            if (seg - first >= reduce_tile) reduce_load<P, Vec>(v, base + first);
            else reduce_load_part<P>(v, base + first, seg - first);
            acc.add(v);
        }
        const S r = acc.total();
        if ((threadIdx.x & 31) == 0) out[s] = r;
    }
}

/// Most partials stage 1 can write: 32 resident blocks per SM at most.
inline long long reduce_max_partials() { return static_cast<long long>(sm_count()) * 32; }

template <class Acc>
inline void reduce_device(const char* where, void* temp, std::size_t& temp_bytes, const typename Acc::in_type* in,
                          typename Acc::sum_type* out, long long n, cudaStream_t stream)
{
    using S = typename Acc::sum_type;
    const long long max_partials = reduce_max_partials();
    const std::size_t need = static_cast<std::size_t>(max_partials) * sizeof(S);
    if (temp == nullptr) {
        temp_bytes = need;
        return;
    }
    require(temp_bytes >= need, where,
            "temp_bytes (" + std::to_string(temp_bytes) + ") is below the queried size (" + std::to_string(need) + ")");
    require(aligned(temp, alignof(S)), where, "temp is not aligned to the sum type");
    require_size(n, where, "n");
    require_pointer(out, where, "out");
    if (n == 0) {
        TCORE_CHECK(cudaMemsetAsync(out, 0, sizeof(S), stream));
        return;
    }
    require_pointer(in, where, "in");
    const long long pairs = ceil_div(ceil_div(n, reduce_tile), 2);
    S* partials = static_cast<S*>(temp);
    auto run = [&](auto kernel) {
        long long grid = resident_grid(kernel, reduce_threads, ceil_div(pairs, reduce_warps));
        if (grid > max_partials) grid = max_partials;
        kernel<<<static_cast<unsigned>(grid), reduce_threads, 0, stream>>>(in, n, partials);
        TCORE_CHECK_LAUNCH();
        reduce_final_kernel<S><<<1, reduce_threads, 0, stream>>>(partials, static_cast<int>(grid), out);
        TCORE_CHECK_LAUNCH();
    };
    if (aligned(in, 16)) run(reduce_partials_kernel<Acc, true>);
    else run(reduce_partials_kernel<Acc, false>);
}

template <class Acc>
inline void reduce_segments_impl(const char* where, const typename Acc::in_type* in, typename Acc::sum_type* out,
                                 long long num_segments, long long segment_size, cudaStream_t stream)
{
    using T = typename Acc::in_type;
    using S = typename Acc::sum_type;
    require_size(num_segments, where, "num_segments");
    require_size(segment_size, where, "segment_size");
    if (num_segments == 0) return;
    require_pointer(out, where, "out");
    require(segment_size == 0 || num_segments <= LLONG_MAX / segment_size, where,
            "num_segments * segment_size overflows a 64-bit size");
    if (segment_size == 0) {
        TCORE_CHECK(cudaMemsetAsync(out, 0, static_cast<std::size_t>(num_segments) * sizeof(S), stream));
        return;
    }
    require_pointer(in, where, "in");
    const bool vec = aligned(in, 16) && (segment_size * static_cast<long long>(sizeof(T))) % 16 == 0;
    // One pass: a warp per tile pair or segment, more blocks than fit at
    // once. Segments of 256-1024 measured faster this way than on a
    // resident grid whose warps loop (each warp's next loads wait on its
    // last sum; examples/reduce/README.md); segments of 256 also need the
    // tile pairs to keep enough loads in flight.
    auto one_pass = [](long long warps) { return std::min<long long>(ceil_div(warps, reduce_warps), INT_MAX); };
    auto run_small = [&](auto kernel, long long seg) {
        const long long pairs = ceil_div(ceil_div(num_segments * seg, reduce_tile), 2);
        kernel<<<static_cast<unsigned>(one_pass(pairs)), reduce_threads, 0, stream>>>(in, out, num_segments);
        TCORE_CHECK_LAUNCH();
    };
    auto run_any = [&](auto kernel) {
        kernel<<<static_cast<unsigned>(one_pass(num_segments)), reduce_threads, 0, stream>>>(in, out, num_segments,
                                                                                             segment_size);
        TCORE_CHECK_LAUNCH();
    };
    if (vec && segment_size == 64) run_small(reduce_small_segments_kernel<Acc, 64>, 64);
    else if (vec && segment_size == 128) run_small(reduce_small_segments_kernel<Acc, 128>, 128);
    else if (vec && segment_size == 256) run_small(reduce_small_segments_kernel<Acc, 256>, 256);
    else if (vec) run_any(reduce_segments_kernel<Acc, true>);
    else run_any(reduce_segments_kernel<Acc, false>);
}

}  // namespace detail

// -- host entry points -------------------------------------------------------

/// out[0] = in[0] + ... + in[n-1] on the MMA (Backend tensor_core: tc,
/// cuda_core: cc). Shape: an FP64 shape (in: double, out: double) or
/// f16_m16n8k16_f32acc (in: __half, out: float). CUB-style: with temp ==
/// nullptr only sets temp_bytes (same device as the run). Any n >= 0 (n = 0
/// gives 0); `in` needs only element alignment (16-byte aligned input takes
/// the vector-load path). Bitwise deterministic for a given n and device.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void reduce(void* temp, std::size_t& temp_bytes, const typename Shape::b_type* in,
                   typename Shape::c_type* out, long long n, cudaStream_t stream = 0)
{
    detail::reduce_device<warp_sum<Backend, Shape>>("tcore::reduce", temp, temp_bytes, in, out, n, stream);
}

/// cce: the same device-wide sum with CUDA-core adds and shuffle trees.
template <class T>
inline void reduce_cce(void* temp, std::size_t& temp_bytes, const T* in, sum_type_t<T>* out, long long n,
                       cudaStream_t stream = 0)
{
    detail::reduce_device<warp_sum_cce<T>>("tcore::reduce_cce", temp, temp_bytes, in, out, n, stream);
}

/// out[s] = sum of in[s*segment_size .. (s+1)*segment_size) for s < num_segments.
/// Fast paths: segment sizes 64, 128 and 256 (whole segments per MMA tile) and
/// any size whose segments start 16-byte aligned; others load element by element.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void reduce_segments(const typename Shape::b_type* in, typename Shape::c_type* out, long long num_segments,
                            long long segment_size, cudaStream_t stream = 0)
{
    detail::reduce_segments_impl<warp_sum<Backend, Shape>>("tcore::reduce_segments", in, out, num_segments,
                                                           segment_size, stream);
}

/// cce segmented sum.
template <class T>
inline void reduce_segments_cce(const T* in, sum_type_t<T>* out, long long num_segments, long long segment_size,
                                cudaStream_t stream = 0)
{
    detail::reduce_segments_impl<warp_sum_cce<T>>("tcore::reduce_segments_cce", in, out, num_segments, segment_size,
                                                  stream);
}

}  // namespace tcore
