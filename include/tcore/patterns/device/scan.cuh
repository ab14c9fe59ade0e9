// tcore/patterns/device/scan.cuh - device-wide and segmented prefix sums,
// launched from the host, composed of the warp building blocks of
// patterns/scan.cuh (warp_scan, scan_load, scan_store).
//
// Provides
//   scan<Backend, Shape>(temp, temp_bytes, in, out, n, kind, stream): single
//       pass with decoupled look-back (infra/look_back.cuh); CUB-style
//       temp-storage query (temp == nullptr only sets temp_bytes); any n.
//       Not bitwise deterministic: the look-back adds whichever
//       predecessors' prefixes are ready.
//   scan_segments<Backend, Shape>(in, out, num_segments, segment_size, kind,
//       stream): independent scans of consecutive segments.
//   scan_with<Scanner>(temp, temp_bytes, in, out, n, stream, where),
//   scan_segments_with<Whole, Pair>(in, out, num_segments, segment_size,
//       stream, where): the same launches with the caller's warp-level
//       scan in place of warp_scan<Backend, Shape, Exclusive> (the
//       benchmark's CUDA-core opponent, examples/scan/scan_cce.cuh, is
//       one); inclusive or exclusive as the scanner is; errors name `where`.
// Both multi-tile levels load block tiles of 4096 elements into shared memory
// with cp.async (one per block of 4 warps), so the loads in flight do not
// compete with the MMA constants for registers; segments that are powers of
// two from 64 to 4096 take this path, other sizes a warp each.
// Preconditions: device pointers; in and out must not overlap unless in ==
// out with the same element size (tcore::error otherwise); vector accesses
// where in/out are 16-byte aligned, element accesses otherwise.
// Scanner (Whole, Pair), a type whose members every lane of a warp calls
// together, scanning one 128-element tile (scan_tile), 4 values per lane:
//   in_type, sum_type   double -> double or __half -> float
//   in_pos(lane, i), out_pos(lane, i)   (__host__ __device__ static
//                       constexpr) tile positions of input and output
//                       register i of a lane (each a permutation of
//                       0..127 over lanes and registers)
//   in_group, out_group, out_index(j)   (static constexpr) vector accesses:
//                       in_pos(lane, qG + e) = in_pos(lane, qG) + e for
//                       e < G = in_group; outputs out_index(qG + e), G =
//                       out_group, lie at out_pos(lane, out_index(qG)) + e
//   min_blocks          (static constexpr int) blocks per SM the kernels'
//                       launch bounds ask registers for
//   Scanner()           (__device__) constructed once per warp
//   scan(out, v) const  v: inputs at in_pos; out[i]: the sum of the
//                       tile's elements before (exclusive) or up to
//                       (inclusive) out_pos(lane, i)
//   total(out, v) const -> sum_type   the tile's sum, on every lane
// Whole scans the whole tile; Pair (segments of 64 only) the same as two
// independent scans of 64 (warp_scan's SegCols = 4).
#pragma once

#include "../scan.cuh"
#include "../../infra/async_copy.cuh"
#include "../../infra/look_back.cuh"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tcore {

/// Inclusive (out[i] = in[0] + ... + in[i]) or exclusive (out[i] = in[0] + ... + in[i-1]).
enum class scan_kind { inclusive, exclusive };

// -- kernels -----------------------------------------------------------------

namespace detail {

inline constexpr int scan_threads = 256;  ///< the per-warp segment kernel
inline constexpr int scan_warps = scan_threads / 32;

/// The block tile of the multi-tile kernels: 4 warps scan 8 warp tiles each,
/// 4096 elements, loaded whole into shared memory by cp.async (FP64: 32 KiB,
/// results written back in place; FP16: 8 KiB in, 16 KiB of FP32 results).
/// Small blocks with the data in shared memory instead of registers let
/// about five blocks share an SM, ~160 KiB of loads in flight, while each
/// waits on its look-back (CUB's single-pass scan works the same way).
template <class Scanner>
struct scan_block_tile {
    using in_type = typename Scanner::in_type;
    using sum_type = typename Scanner::sum_type;
    static constexpr int threads = 128;
    static constexpr int warps = threads / 32;
    static constexpr int warp_tiles = 8;
    static constexpr int tiles = warps * warp_tiles;  ///< warp tiles: one per lane of the carry scan
    static constexpr int elems = tiles * scan_tile;
    static constexpr bool in_place = sizeof(in_type) == sizeof(sum_type);
    static constexpr std::size_t in_bytes = static_cast<std::size_t>(elems) * sizeof(in_type);
    static constexpr std::size_t out_bytes = in_place ? 0 : static_cast<std::size_t>(elems) * sizeof(sum_type);
    static constexpr std::size_t smem_bytes = in_bytes + out_bytes;
    static_assert(tiles == 32, "the carry scan gives each lane one warp tile");
};

/// Copies elements [first, first + Elems) of in[0..n) into `tile`, zeros past
/// n: 16-byte cp.async where in is 16-byte aligned (Vec), else element loads.
/// Chunks that are not wholly inside the array are filled by plain code, so
/// no copy names bytes past its end. A whole tile skips the per-chunk checks
/// (the checked loop kept the copies from being unrolled).
template <class T, int Elems, int Threads, bool Vec>
__device__ inline void load_block_tile(T* tile, const T* in, long long first, long long n)
{
    const long long valid = n - first;
    if constexpr (Vec) {
        constexpr int per_chunk = 16 / static_cast<int>(sizeof(T));
        if (valid >= Elems) {  // whole tile (block-uniform): unconditional copies, unrolled
#pragma unroll
            for (int c = threadIdx.x; c < Elems / per_chunk; c += Threads)
                cp_async<16>(tile + c * per_chunk, in + first + c * per_chunk, 16);
            cp_async_commit();
            cp_async_wait<0>();
            return;
        }
        for (int c = threadIdx.x; c < Elems / per_chunk; c += Threads) {
            const long long left = valid - static_cast<long long>(c) * per_chunk;
            T* dst = tile + c * per_chunk;
            if (left >= per_chunk) {
                cp_async<16>(dst, in + first + c * per_chunk, 16);
            } else {
                for (int k = 0; k < per_chunk; ++k)
                    dst[k] = k < left ? in[first + c * per_chunk + k] : convert_to<T>(0.0f);
            }
        }
        cp_async_commit();
        cp_async_wait<0>();
    } else {
        for (int e = threadIdx.x; e < Elems; e += Threads) tile[e] = e < valid ? in[first + e] : convert_to<T>(0.0f);
    }
}

/// Stores tile[e] + carry[e / scan_tile] to out[first + e] for the elements
/// before n: 16-byte stores where out is 16-byte aligned (Vec). A whole
/// tile takes an unrolled loop without bounds checks: the checked loop had
/// compiled to 8-byte stores in the tensor_core kernels (measurably slower;
/// examples/scan/README.md).
template <class S, int Elems, int Threads, bool Vec>
__device__ inline void store_block_tile(S* out, const S* tile, const S* carry, long long first, long long n)
{
    const long long valid = n - first;
    if constexpr (Vec) {
        constexpr int per_chunk = 16 / static_cast<int>(sizeof(S));
        if (valid >= Elems) {  // whole tile (block-uniform): one 16-byte store per chunk, unrolled
#pragma unroll
            for (int c = threadIdx.x; c < Elems / per_chunk; c += Threads) {
                const int e = c * per_chunk;
                S x[per_chunk];
                vec_load<S, per_chunk>(x, tile + e);
                const S add = carry[e / scan_tile];
                for (int k = 0; k < per_chunk; ++k) x[k] += add;
                vec_store<S, per_chunk>(out + first + e, x);
            }
            return;
        }
        for (int c = threadIdx.x; c < Elems / per_chunk; c += Threads) {
            const int e = c * per_chunk;
            if (e >= valid) break;
            S x[per_chunk];
            vec_load<S, per_chunk>(x, tile + e);
            const S add = carry[e / scan_tile];
            for (int k = 0; k < per_chunk; ++k) x[k] += add;
            if (e + per_chunk <= valid) {
                vec_store<S, per_chunk>(out + first + e, x);
            } else {
                for (int k = 0; k < per_chunk; ++k)
                    if (e + k < valid) out[first + e + k] = x[k];
            }
        }
    } else {
        for (int e = threadIdx.x; e < Elems && e < valid; e += Threads) out[first + e] = tile[e] + carry[e / scan_tile];
    }
}

/// Warp 0: replaces the block tile's 32 warp-tile totals (one per lane, in
/// order) by each warp tile's carry, the sum of the warp tiles before it in
/// its segment of seg_tiles (1: each alone, 0: the whole block tile). With
/// `status` set (the device-wide scan) the block tile's aggregate goes
/// through the look-back and the prefix of all earlier block tiles is added.
template <class S>
__device__ inline void tile_carries(S* totals, int seg_tiles, tile_status<S>* status, long long tile)
{
    const int lane = lane_id();
    const S t = totals[lane];
    S before = 0;
    if (seg_tiles != 1) {
        const int width = seg_tiles == 0 ? 32 : seg_tiles;
        const S incl = shfl_inclusive(t, width);
        before = shfl_exclusive_of(incl, width);
        if (status != nullptr) before += look_back(status, tile, __shfl_sync(0xffffffffu, incl, 31));
    }
    totals[lane] = before;
}

/// One block tile per block: load it (cp.async), scan each warp tile from
/// shared memory (Scanner) and write the results back, turn the warp-tile
/// totals into carries (within segments of seg_tiles warp tiles, or after the
/// look-back: block tile ids then come from `counter` in the order blocks
/// start), and store results plus carries with contiguous 16-byte stores.
template <class Scanner, bool Vec, bool LookBack>
__global__ void __launch_bounds__(scan_block_tile<Scanner>::threads, 2 * Scanner::min_blocks)
    scan_tile_kernel(const typename Scanner::in_type* in, typename Scanner::sum_type* out, long long n, int seg_tiles,
                     unsigned long long* counter, tile_status<typename Scanner::sum_type>* status)
{
    using T = typename Scanner::in_type;
    using S = typename Scanner::sum_type;
    using bt = scan_block_tile<Scanner>;
    __shared__ __align__(16) unsigned char smem[bt::smem_bytes];
    __shared__ S s_carry[bt::tiles];  // warp-tile totals, then carries
    __shared__ long long s_tile;
    T* const tile_in = reinterpret_cast<T*>(smem);
    S* const tile_out = reinterpret_cast<S*>(smem + (bt::in_place ? 0 : bt::in_bytes));
    long long tile = blockIdx.x;
    if constexpr (LookBack) {
        if (threadIdx.x == 0) s_tile = static_cast<long long>(atomicAdd(counter, 1ull));
        __syncthreads();
        tile = s_tile;
    }
    const long long first = tile * bt::elems;
    load_block_tile<T, bt::elems, bt::threads, Vec>(tile_in, in, first, n);
    __syncthreads();
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const Scanner sc;
    for (int u = 0; u < bt::warp_tiles; ++u) {
        const int j = warp * bt::warp_tiles + u;
        T v[scan_per_lane];
        S o[scan_per_lane];
        scan_load<Scanner, true>(v, tile_in + j * scan_tile, scan_tile);
        sc.scan(o, v);
        const S t = sc.total(o, v);
        __syncwarp();  // the whole warp tile is read before results overwrite it
        scan_store<Scanner, true>(tile_out + j * scan_tile, o, scan_tile);
        if (lane == 0) s_carry[j] = t;
    }
    __syncthreads();
    if (warp == 0) tile_carries(s_carry, seg_tiles, LookBack ? status : nullptr, tile);
    __syncthreads();
    store_block_tile<S, bt::elems, bt::threads, Vec>(out, tile_out, s_carry, first, n);
}

/// Any segment size (the fallback for sizes the block-tile kernel does not
/// take, and for misaligned pointers): warp w scans segments w, w + W, ...
/// two tiles at a time, then the single tile left if any.
template <class Scanner, bool Vec>
__global__ void __launch_bounds__(scan_threads, Scanner::min_blocks)
    scan_segments_kernel(const typename Scanner::in_type* in, typename Scanner::sum_type* out, long long num_segments,
                         long long seg)
{
    using T = typename Scanner::in_type;
    using S = typename Scanner::sum_type;
    const long long gw = static_cast<long long>(blockIdx.x) * scan_warps + (threadIdx.x >> 5);
    const long long stride = static_cast<long long>(gridDim.x) * scan_warps;
    const Scanner sc;
    for (long long s = gw; s < num_segments; s += stride) {
        const T* src = in + s * seg;
        S* dst = out + s * seg;
        S carry = 0;
        long long f0 = 0;
        for (; f0 + scan_tile < seg; f0 += 2 * scan_tile) {  // pairs of tiles (the second maybe partial)
            const long long f1 = f0 + scan_tile;
            T v0[scan_per_lane], v1[scan_per_lane];
            S o0[scan_per_lane], o1[scan_per_lane];
            scan_load<Scanner, Vec>(v0, src + f0, seg - f0);
            scan_load<Scanner, Vec>(v1, src + f1, seg - f1);
            sc.scan(o0, v0);
            sc.scan(o1, v1);
            const S t0 = sc.total(o0, v0), t1 = sc.total(o1, v1);
            const S c1 = carry + t0;
            static_for<scan_per_lane>([&](auto i) {
                o0[i] += carry;
                o1[i] += c1;
            });
            carry = c1 + t1;
            scan_store<Scanner, Vec>(dst + f0, o0, seg - f0);
            scan_store<Scanner, Vec>(dst + f1, o1, seg - f1);
        }
        if (f0 < seg) {  // one tile left (maybe partial)
            T v[scan_per_lane];
            S o[scan_per_lane];
            scan_load<Scanner, Vec>(v, src + f0, seg - f0);
            sc.scan(o, v);
            static_for<scan_per_lane>([&](auto i) { o[i] += carry; });
            scan_store<Scanner, Vec>(dst + f0, o, seg - f0);
        }
    }
}

/// Launches one block per block tile of n elements.
template <class Scanner, bool Vec, bool LookBack>
inline void launch_tiles(const char* where, const typename Scanner::in_type* in, typename Scanner::sum_type* out,
                         long long n, int seg_tiles, unsigned long long* counter,
                         tile_status<typename Scanner::sum_type>* status, cudaStream_t stream)
{
    using bt = scan_block_tile<Scanner>;
    const long long tiles = ceil_div(n, bt::elems);
    require(tiles <= INT_MAX, where, "n is too large for one grid of block tiles");
    scan_tile_kernel<Scanner, Vec, LookBack>
        <<<static_cast<unsigned>(tiles), bt::threads, 0, stream>>>(in, out, n, seg_tiles, counter, status);
    TCORE_CHECK_LAUNCH();
}

/// Temp storage of the device-wide scan: the tile counter, then one
/// tile_status per block tile.
template <class S>
struct scan_layout {
    static constexpr std::size_t status_off = 256;
    std::size_t bytes;
    explicit scan_layout(long long tiles)
        : bytes(status_off + (static_cast<std::size_t>(tiles) * sizeof(tile_status<S>) + 255) / 256 * 256)
    {
    }
};

/// Rejects in/out ranges that overlap without being the same array.
template <class T, class S>
inline void require_no_partial_overlap(const T* in, const S* out, long long n, const char* where)
{
    const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
    const auto a_end = a + static_cast<std::uintptr_t>(n) * sizeof(T);
    const auto b_end = b + static_cast<std::uintptr_t>(n) * sizeof(S);
    const bool overlap = a < b_end && b < a_end;
    require(!overlap || (a == b && sizeof(T) == sizeof(S)), where,
            "in and out overlap (only in == out with the same element size is allowed)");
}

/// Both pointers allow the block-tile kernel's 16-byte copies and stores.
template <class T, class S>
inline bool vector_aligned(const T* in, const S* out)
{
    return aligned(in, 16) && aligned(out, 16);
}

template <class Scanner>
inline void scan_device(const char* where, void* temp, std::size_t& temp_bytes,
                        const typename Scanner::in_type* in, typename Scanner::sum_type* out, long long n,
                        cudaStream_t stream)
{
    using S = typename Scanner::sum_type;
    require_size(n, where, "n");
    const long long tiles = ceil_div(n, scan_block_tile<Scanner>::elems);
    const scan_layout<S> lay(tiles > 0 ? tiles : 1);
    if (temp == nullptr) {
        temp_bytes = lay.bytes;
        return;
    }
    require(temp_bytes >= lay.bytes, where,
            "temp_bytes (" + std::to_string(temp_bytes) + ") is below the queried size (" + std::to_string(lay.bytes) +
                ")");
    require(aligned(temp, 256), where, "temp is not 256-byte aligned");
    if (n == 0) return;
    require_pointer(in, where, "in");
    require_pointer(out, where, "out");
    require_no_partial_overlap(in, out, n, where);
    char* base = static_cast<char*>(temp);
    auto* counter = reinterpret_cast<unsigned long long*>(base);
    auto* status = reinterpret_cast<tile_status<S>*>(base + lay.status_off);
    TCORE_CHECK(cudaMemsetAsync(base, 0, lay.status_off + static_cast<std::size_t>(tiles) * sizeof(tile_status<S>),
                                stream));
    if (vector_aligned(in, out)) launch_tiles<Scanner, true, true>(where, in, out, n, 0, counter, status, stream);
    else launch_tiles<Scanner, false, true>(where, in, out, n, 0, counter, status, stream);
}

template <class Whole, class Pair>
inline void scan_segments_impl(const char* where, const typename Whole::in_type* in, typename Whole::sum_type* out,
                               long long num_segments, long long segment_size, cudaStream_t stream)
{
    using T = typename Whole::in_type;
    using S = typename Whole::sum_type;
    require_size(num_segments, where, "num_segments");
    require_size(segment_size, where, "segment_size");
    require(segment_size == 0 || num_segments <= LLONG_MAX / segment_size, where,
            "num_segments * segment_size overflows a 64-bit size");
    const long long n = num_segments * segment_size;
    if (n == 0) return;
    require_pointer(in, where, "in");
    require_pointer(out, where, "out");
    require_no_partial_overlap(in, out, n, where);
    // Powers of two from 64 to a block tile: block tiles hold whole segments.
    const bool tiled = segment_size >= scan_tile / 2 && segment_size <= scan_block_tile<Whole>::elems &&
                       (segment_size & (segment_size - 1)) == 0 && vector_aligned(in, out);
    if (tiled && segment_size == scan_tile / 2) {
        launch_tiles<Pair, true, false>(where, in, out, n, 1, nullptr, nullptr, stream);
    } else if (tiled) {
        launch_tiles<Whole, true, false>(where, in, out, n, static_cast<int>(segment_size / scan_tile), nullptr,
                                         nullptr, stream);
    } else {
        const bool vec = aligned(in, Whole::in_group * sizeof(T)) && aligned(out, Whole::out_group * sizeof(S)) &&
                         segment_size % Whole::in_group == 0 && segment_size % Whole::out_group == 0;
        auto kernel = vec ? scan_segments_kernel<Whole, true> : scan_segments_kernel<Whole, false>;
        const long long grid = resident_grid(kernel, scan_threads, ceil_div(num_segments, scan_warps));
        kernel<<<static_cast<unsigned>(grid), scan_threads, 0, stream>>>(in, out, num_segments, segment_size);
        TCORE_CHECK_LAUNCH();
    }
}

}  // namespace detail

// -- host entry points -------------------------------------------------------

/// Device-wide prefix sum on the MMA (tc: tensor_core, cc: cuda_core).
/// Shape f64_m16n8k16 (double -> double) or f16_m16n8k16_f32acc (__half ->
/// float). CUB-style: temp == nullptr only sets temp_bytes. Any n >= 0;
/// in == out is allowed for double. Vector loads/stores where in/out are
/// 16/8-byte aligned, element accesses otherwise.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void scan(void* temp, std::size_t& temp_bytes, const typename Shape::b_type* in, typename Shape::c_type* out,
                 long long n, scan_kind kind = scan_kind::inclusive, cudaStream_t stream = 0)
{
    if (kind == scan_kind::exclusive)
        detail::scan_device<warp_scan<Backend, Shape, true>>("tcore::scan", temp, temp_bytes, in, out, n, stream);
    else
        detail::scan_device<warp_scan<Backend, Shape, false>>("tcore::scan", temp, temp_bytes, in, out, n, stream);
}

/// Independent scans of num_segments consecutive segments of segment_size
/// elements. Segments of 64 (aligned) take two per MMA tile; others one warp each.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
inline void scan_segments(const typename Shape::b_type* in, typename Shape::c_type* out, long long num_segments,
                          long long segment_size, scan_kind kind = scan_kind::inclusive, cudaStream_t stream = 0)
{
    if (kind == scan_kind::exclusive)
        detail::scan_segments_impl<warp_scan<Backend, Shape, true, 8>, warp_scan<Backend, Shape, true, 4>>(
            "tcore::scan_segments", in, out, num_segments, segment_size, stream);
    else
        detail::scan_segments_impl<warp_scan<Backend, Shape, false, 8>, warp_scan<Backend, Shape, false, 4>>(
            "tcore::scan_segments", in, out, num_segments, segment_size, stream);
}

/// The device-wide prefix sum of scan with the caller's warp-level scan
/// Scanner (the interface in the header comment): the same temp-storage
/// query, block tiles and look-back.
template <class Scanner>
inline void scan_with(void* temp, std::size_t& temp_bytes, const typename Scanner::in_type* in,
                      typename Scanner::sum_type* out, long long n, cudaStream_t stream = 0,
                      const char* where = "tcore::scan_with")
{
    detail::scan_device<Scanner>(where, temp, temp_bytes, in, out, n, stream);
}

/// The segmented scan of scan_segments with the caller's warp-level scans:
/// Whole (one scan per tile) and Pair (two scans of 64 per tile, for
/// segments of 64).
template <class Whole, class Pair>
inline void scan_segments_with(const typename Whole::in_type* in, typename Whole::sum_type* out,
                               long long num_segments, long long segment_size, cudaStream_t stream = 0,
                               const char* where = "tcore::scan_segments_with")
{
    detail::scan_segments_impl<Whole, Pair>(where, in, out, num_segments, segment_size, stream);
}

}  // namespace tcore
