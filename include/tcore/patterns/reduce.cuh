// tcore/patterns/reduce.cuh - sum reduction as an MMA against a constant row
// of ones (Quadrant III: partial input, partial output): the warp and block
// building blocks. The device-wide and segmented launchers are in
// patterns/device/reduce.cuh.
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
// Provides
//   tile:  reduce_tile (256), reduce_per_lane (8), reduce_placement,
//          reduce_tile_pos; reduce_load (whole tile), reduce_load_part
//          (first `valid` elements, zeros after), reduce_load_pair
//   warp:  warp_sum<Backend, Shape> (accumulator: add, pair, total,
//          store_segments<S>), warp_reduce(v)
//   block: block_reduce<Backend, Shape, BlockThreads>(v, smem);
//          block_sum_of_warps<BlockThreads>(warp_total, smem) (its block
//          step: one value per warp added in warp order, for a caller's
//          own warp sums)
// The plain CUDA-core opponent (cce) is the benchmark's, not the kit's:
// examples/reduce/reduce_cce.cuh (a warp sum of the same interface as
// warp_sum, run by the device-wide launchers through reduce_with).
//
// Preconditions
//   Shape: an FP64 shape (double in, double out) or f16_m16n8k16_f32acc
//          (__half in, float out); static_asserts: row 0 of D is c0/c1 of
//          lanes 0-3, and 8 values fill whole B fragments.
//   warp:  warp-collective: all 32 lanes, converged, call every member and
//          function together (mma.sync / __shfl_sync with a full mask; not
//          checked). 8 values per lane per tile; any placement for add,
//          total and warp_reduce (A is the same for every k).
//          store_segments<S> (S = 64, 128, 256) needs the chunk placement
//          reduce_tile_pos<reduce_placement::chunk, T> (not checked).
//   loads: reduce_load<P, Vec>: the whole 256-element tile readable; Vec
//          needs `tile` 16-byte aligned (not checked) and global memory
//          (__ldg). reduce_load_part reads element by element (element
//          alignment), positions >= valid read as zero. A tail guard in
//          front of a warp-collective call is undefined: load zeros instead.
//   block: 1-D block of exactly BlockThreads threads (require_block_threads,
//          debug builds only), a multiple of 32 and <= 1024 (static_assert);
//          every thread calls it (it holds __syncthreads); smem:
//          BlockThreads/32 sums in shared memory, reusable at once after
//          the call. Warps are added in order (deterministic).
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

}  // namespace detail

// -- tile loads --------------------------------------------------------------

/// Loads one whole tile (per lane: value q from reduce_tile_pos<P, T>(lane, q)).
/// Vec: 16-byte loads through __ldg, which need `tile` 16-byte aligned and in
/// global memory; otherwise element loads from any memory.
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
/// zeros) with element loads; the other positions read as zero and are not
/// read from memory, so a tile may run past the end of the array.
template <reduce_placement P, class T>
__device__ inline void reduce_load_part(T (&v)[reduce_per_lane], const T* tile, long long valid)
{
    const int lane = lane_id();
    static_for<reduce_per_lane>([&](auto q) {
        const int pos = reduce_tile_pos<P, T>(lane, q);
        v[q] = pos < valid ? tile[pos] : detail::zero_of<T>();
    });
}

/// Loads tiles 0 and 1 at `base` (2 * 256 elements, `valid` of them present):
/// whole-tile loads when both are complete (returns true), else
/// reduce_load_part for each. `valid` must be the same on every lane.
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

/// Sum of the warp's 256 values (8 per lane, any order) on every lane.
template <class Backend = default_backend, class Shape = f64_m16n8k16>
__device__ inline typename Shape::c_type warp_reduce(const typename Shape::b_type (&v)[reduce_per_lane])
{
    warp_sum<Backend, Shape> s;
    s.add(v);
    return s.total();
}

// -- block level -------------------------------------------------------------

/// The block's sum of one value per warp (lane 0's), added in warp order;
/// every thread gets it. smem: BlockThreads/32 sums, reusable at once after
/// the call. The block step of block_reduce, for a caller's own warp sums.
template <int BlockThreads, class S>
__device__ inline S block_sum_of_warps(S warp_total, S* smem)
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

/// Sum over a block of BlockThreads (1-D, multiple of 32) threads, 8 values
/// each; every thread gets it. smem: BlockThreads/32 sums in shared memory.
template <class Backend, class Shape, int BlockThreads>
__device__ inline typename Shape::c_type block_reduce(const typename Shape::b_type (&v)[reduce_per_lane],
                                                      typename Shape::c_type* smem)
{
    return block_sum_of_warps<BlockThreads>(warp_reduce<Backend, Shape>(v), smem);
}

}  // namespace tcore
