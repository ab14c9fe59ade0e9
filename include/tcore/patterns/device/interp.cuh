// tcore/patterns/device/interp.cuh - the launchers of the interp pattern:
// the __global__ kernels and the host functions that resample a whole image
// with two chained MMAs per warp tile (tcore/patterns/interp.cuh).
//
//   resample_mma<Backend, Shape, F>(in, out, stream)   Shape
//       f16_m16n8k16_f32acc, f16_m16n8k16_f16acc or f64_m16n8k16; 8-bit
//       (unsigned char, rounded and saturated) or FP64 output. FP16 shapes
//       with 8-bit output take the gather path (resample_gather_kernel;
//       tensor_core only) when down-scaling by gather_min_scale or more with
//       RGBA aligned rows, else
//       the staged path (resample_staged_kernel) where its plan fits the
//       shared-memory budget; FP64 and the rest take resample_mma_kernel.
//   launch_staged / launch_gather   one path with a given plan
//       (plan_staged / plan_gather), for tests and tuning.
//   check_images, rgba_rows, staged_word_layouts, gather_layouts   the
//       argument checks and layout tests the dispatch uses.
//
// Geometry: output pixel (ox, oy) samples u = (ox + 0.5) in_w / out_w - 0.5
// (texel-index terms), clamp-to-edge; 3 or 4 channels. Bad arguments and
// failed launches throw tcore::error. Launch shapes: resident blocks per SM
// from occupancy queries (gather tiles per warp), the rest fixed per path.
#pragma once

#include "../../check.cuh"
#include "../../infra/launch.cuh"
#include "../interp.cuh"

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tcore::interp {

inline constexpr int mma_block_threads = 128;  ///< 4 warps
inline constexpr int mma_strip_tiles = 4;      ///< 16 x 32 output pixels per warp

// -- kernels -------------------------------------------------------------------------

/// Resident blocks asked of ptxas: 4 (at most 128 registers, no spills)
/// for the FP16 tensor-core kernels; FP64 and cuda_core need more registers.
template <class Backend, class Shape>
inline constexpr int mma_min_blocks =
    tcore::interp::tile<Shape>::is_half && std::is_same_v<Backend, tcore::tensor_core> ? 4 : 1;

/// tc / cc: block (bx, by) resamples strip by (8 * strip_tiles output rows)
/// for the column tiles 4 bx .. 4 bx + 3 (16 output columns each), one per
/// warp; neighbouring warps share input rows in L1 and the block shares its
/// weight tables (tcore::interp::resample_block).
template <class Backend, class Shape, filter F, bool Vec, class Out>
__global__ void __launch_bounds__(mma_block_threads, mma_min_blocks<Backend, Shape>)
    resample_mma_kernel(image_view in, image_out<Out> out, typename tcore::interp::tile<Shape>::real scale_x,
                        typename tcore::interp::tile<Shape>::real scale_y, int strip_tiles)
{
    extern __shared__ __align__(16) unsigned char interp_smem[];
    const int warps = mma_block_threads / 32;
    const int tile_x = static_cast<int>(blockIdx.x) * warps + static_cast<int>(threadIdx.x >> 5);
    tcore::interp::resample_block<Backend, Shape, F, Vec, Out>(in, out, scale_x, scale_y, tile_x,
                                                               8 * strip_tiles * static_cast<int>(blockIdx.y),
                                                               strip_tiles, interp_smem);
}

/// Resident blocks asked of ptxas for the staged FP16 kernels (tensor_core: at
/// most 80 registers; cuda_core needs more).
template <class Backend>
inline constexpr int staged_min_blocks = std::is_same_v<Backend, tcore::tensor_core> ? 6 : 1;
/// ... for the contiguous-rows kernels with groups of row blocks, which run
/// two row blocks at a time (PairRows): 8 (at most 64 registers; the
/// measurements behind it are in examples/interp/README.md).
template <class Backend>
inline constexpr int staged_pair_min_blocks = std::is_same_v<Backend, tcore::tensor_core> ? 8 : 1;
/// Shared memory a staged block may use (6 blocks per SM fit in 228 KiB).
inline constexpr std::size_t staged_smem_budget = 30 * 1024;
/// Launch shape of the staged kernels (tcore::interp::plan_staged): up to
/// 64 output rows per block (fewer where the budget says so), fewer while
/// the grid has under 512 blocks (small outputs; examples/interp/README.md
/// gives the measurements).
inline constexpr int staged_max_rows = 64;
inline constexpr long long staged_min_grid = 512;

/// tc / cc, FP16 shapes, 8-bit output: the staged path
/// (tcore::interp::resample_staged_block), block (bx, by) = output columns
/// 64 bx .. + 63, rows plan.block_rows by .. + block_rows - 1. Contiguous:
/// plan.contiguous (contiguous staged rows; only with InAligned and OutWords).
/// PairRows: two row blocks of a group at a time (contiguous plans with
/// group_blocks >= 2).
template <class Backend, class Shape, filter F, int C, bool InAligned, bool OutWords, bool Contiguous = false,
          bool PairRows = false>
__global__ void __launch_bounds__(tcore::interp::staged_warps * 32,
                                  PairRows ? staged_pair_min_blocks<Backend> : staged_min_blocks<Backend>)
    resample_staged_kernel(image_view in, image_out<unsigned char> out, float scale_x, float scale_y,
                           tcore::interp::staged_plan plan)
{
    extern __shared__ __align__(16) unsigned char interp_smem[];
    tcore::interp::resample_staged_block<Backend, Shape, F, C, InAligned, OutWords, Contiguous, PairRows>(
        in, out, scale_x, scale_y, plan, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y), interp_smem);
}

/// Resident blocks asked of ptxas for the gather kernels (tensor_core; the
/// words of gather_prefetch + 1 tiles live in registers): 32 warps per SM
/// (at most 64 registers) for 4 words a lane per tile, 24 (80) for 8, 16
/// (128) for up to 24, else 8 (bicubic with an 8-block window).
template <class Backend, filter F, int NK1>
inline constexpr int gather_min_blocks = [] {
    constexpr int words = tcore::interp::taps<F> * NK1;
    if (!std::is_same_v<Backend, tcore::tensor_core>) return 1;
    constexpr int warps_per_sm = words <= 4 ? 32 : (words <= 8 ? 24 : (words <= 24 ? 16 : 8));
    return warps_per_sm / tcore::interp::gather_block_warps<F, NK1>;
}();

/// tc / cc, FP16 shapes, RGBA 8-bit in and out, down-scaling: the gather
/// path (tcore::interp::resample_gather_warp). Block (bx, by) of W warps:
/// warp w takes output columns 4 (W bx + w) .. + 3 and `tiles` tiles of 8
/// rows from 8 tiles by.
template <class Backend, class Shape, filter F, int NK1, bool Stream>
__global__ void __launch_bounds__(tcore::interp::gather_block_warps<F, NK1> * 32, gather_min_blocks<Backend, F, NK1>)
    resample_gather_kernel(image_view in, image_out<unsigned char> out, float scale_x, float scale_y, int tiles)
{
    namespace ti = tcore::interp;
    constexpr int warps = ti::gather_block_warps<F, NK1>;
    const int warp = static_cast<int>(threadIdx.x >> 5);
    const int ox0 = ti::gather_cols * (static_cast<int>(blockIdx.x) * warps + warp);
    const int oy0 = ti::gather_rows * tiles * static_cast<int>(blockIdx.y);
    ti::resample_gather_warp<Backend, Shape, F, NK1, ti::gather_vec(NK1), Stream>(in, out, scale_x, scale_y, ox0, oy0,
                                                                                  tiles);
}


// -- host side -------------------------------------------------------------------------


/// Checks an input and an output image (3 or 4 channels, sizes, pitches).
template <class Out>
void check_images(const char* where, const image_view& in, const image_out<Out>& out)
{
    require(in.data != nullptr, where, "input image is a null pointer");
    require(out.data != nullptr, where, "output image is a null pointer");
    require(in.width > 0 && in.height > 0, where,
            "input size must be positive (got " + std::to_string(in.width) + "x" + std::to_string(in.height) + ")");
    require(out.width > 0 && out.height > 0, where,
            "output size must be positive (got " + std::to_string(out.width) + "x" + std::to_string(out.height) + ")");
    require(in.channels == 3 || in.channels == 4, where,
            "images must have 3 or 4 channels (got " + std::to_string(in.channels) + ")");
    require(out.channels == in.channels, where,
            "output has " + std::to_string(out.channels) + " channels, input " + std::to_string(in.channels));
    require(in.pitch >= static_cast<long long>(in.width) * in.channels, where,
            "input pitch " + std::to_string(in.pitch) + " bytes is less than width * channels");
    require(out.pitch >= static_cast<long long>(out.width) * out.channels, where,
            "output pitch " + std::to_string(out.pitch) + " elements is less than width * channels");
    require(aligned(out.data, alignof(Out)), where, "output is not aligned to its element type");
    require(static_cast<long long>(out.height) * out.pitch < (1ll << 40) && static_cast<long long>(in.height) * in.pitch < (1ll << 40),
            where, "image too large");
    require(in.width <= INT_MAX / 4 - 64 && out.width <= INT_MAX / 4 - 64, where, "image too wide");
}

/// RGBA rows that the 16-byte (FP16 tc) and 4-byte loads can use.
inline bool rgba_rows(const image_view& in, std::size_t bytes)
{
    return in.channels == 4 && aligned(in.data, bytes) && in.pitch % static_cast<long long>(bytes) == 0;
}
template <class Out>
bool rgba_rows(const image_out<Out>& out)
{
    if constexpr (std::is_same_v<Out, unsigned char>)
        return out.channels == 4 && aligned(out.data, 4) && out.pitch % 4 == 0;
    else
        return out.channels == 4;
}

/// Layouts for which the staged path has a contiguous-rows kernel: aligned
/// input rows (RGBA 16-byte, RGB 4-byte) and 4-byte aligned output rows.
inline bool staged_word_layouts(const image_view& in, const image_out<unsigned char>& out)
{
    const bool out_words = aligned(out.data, 4) && out.pitch % 4 == 0;
    if (in.channels == 4) return rgba_rows(in, 16) && rgba_rows(out);
    return aligned(in.data, 4) && in.pitch % 4 == 0 && out_words;
}


/// Launches the staged kernel of `plan` for the image layouts at hand.
template <class Backend, class Shape, filter F>
void launch_staged(const image_view& in, const image_out<unsigned char>& out, const tcore::interp::staged_plan& plan,
                   cudaStream_t stream)
{
    // `plan` must come from tcore::interp::plan_staged<F> for these sizes
    // (its window and staged rows are not checked again here); its shape is.
    check_images("launch_staged", in, out);
    require(plan.usable, "launch_staged", "plan is not usable (plan_staged found no block size for these sizes)");
    require(plan.taps == tcore::interp::taps<F>, "launch_staged",
            "plan is for " + std::to_string(plan.taps) + " taps, the filter has " +
                std::to_string(tcore::interp::taps<F>));
    const int G = plan.group_blocks;
    require(G >= 1 && (G & (G - 1)) == 0 && plan.block_rows > 0 && plan.block_rows % (2 * G) == 0, "launch_staged",
            "plan has " + std::to_string(plan.block_rows) + " rows per block, " + std::to_string(G) +
                " row blocks per group (a power of 2; rows a multiple of 2 groups)");
    require(plan.k_blocks >= 1 && plan.row_texels % 32 == 16 && (!plan.contiguous || plan.stage_rows >= 2 * plan.taps),
            "launch_staged", "plan's shared-memory layout is inconsistent");
    const dim3 grid((out.width + tcore::interp::staged_cols - 1) / tcore::interp::staged_cols,
                    (out.height + plan.block_rows - 1) / plan.block_rows);
    const dim3 block(tcore::interp::staged_warps * 32);
    const std::size_t smem = plan.smem_bytes();
    const float sx = static_cast<float>(static_cast<double>(in.width) / out.width);
    const float sy = static_cast<float>(static_cast<double>(in.height) / out.height);
    const bool out_rgba = rgba_rows(out);
    auto go = [&](auto kernel) {
        if (smem > 48 * 1024)
            TCORE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
        kernel<<<grid, block, smem, stream>>>(in, out, sx, sy, plan);
    };
    const bool contiguous = plan.contiguous, pairs = plan.group_blocks >= 2;
    require(!contiguous || staged_word_layouts(in, out), "launch_staged",
            "contiguous rows need aligned input rows and 4-byte output rows");
    if (in.channels == 4) {
        const bool in_aligned = rgba_rows(in, 16);
        if (contiguous && pairs) go(resample_staged_kernel<Backend, Shape, F, 4, true, true, true, true>);
        else if (contiguous) go(resample_staged_kernel<Backend, Shape, F, 4, true, true, true>);
        else if (in_aligned && out_rgba) go(resample_staged_kernel<Backend, Shape, F, 4, true, true>);
        else if (in_aligned) go(resample_staged_kernel<Backend, Shape, F, 4, true, false>);
        else if (out_rgba) go(resample_staged_kernel<Backend, Shape, F, 4, false, true>);
        else go(resample_staged_kernel<Backend, Shape, F, 4, false, false>);
    } else {
        const bool in_aligned = tcore::aligned(in.data, 4) && in.pitch % 4 == 0;
        const bool out_words = tcore::aligned(out.data, 4) && out.pitch % 4 == 0;
        if (contiguous && pairs) go(resample_staged_kernel<Backend, Shape, F, 3, true, true, true, true>);
        else if (contiguous) go(resample_staged_kernel<Backend, Shape, F, 3, true, true, true>);
        else if (in_aligned && out_words) go(resample_staged_kernel<Backend, Shape, F, 3, true, true>);
        else if (in_aligned) go(resample_staged_kernel<Backend, Shape, F, 3, true, false>);
        else if (out_words) go(resample_staged_kernel<Backend, Shape, F, 3, false, true>);
        else go(resample_staged_kernel<Backend, Shape, F, 3, false, false>);
    }
    TCORE_CHECK_LAUNCH();
}

/// Layouts the gather path takes: RGBA input rows 16-byte aligned and
/// pitch * height below 2^31 (32-bit row offsets), RGBA output rows 4-byte
/// aligned.
inline bool gather_layouts(const image_view& in, const image_out<unsigned char>& out)
{
    return rgba_rows(in, 16) && rgba_rows(out) && in.pitch * in.height < (1ll << 31);
}

/// Down-scaling from which the FP16 8-bit variants take the gather path
/// (both axes; the staged path below it). Bicubic starts at 3x: at 1.6x its
/// gathered rows and 16-texel window read each texel about 3 times, slower
/// than the staged path (examples/interp/README.md).
template <filter F>
inline constexpr double gather_min_scale = F == filter::bilinear ? 1.5 : 3.0;

/// Launches the gather kernel of `plan` (gather_layouts must hold; `plan`
/// from tcore::interp::plan_gather<F> for these sizes: its window is not
/// checked again here); tiles per warp: plan.tiles, or where that is 0
/// tcore::interp::gather_tiles for the blocks that fit on the device.
template <class Backend, class Shape, filter F>
void launch_gather(const image_view& in, const image_out<unsigned char>& out, const tcore::interp::gather_plan& plan,
                   cudaStream_t stream)
{
    namespace ti = tcore::interp;
    check_images("launch_gather", in, out);
    require(gather_layouts(in, out), "launch_gather",
            "the gather path needs RGBA input rows 16-byte aligned (pitch * height < 2^31) and RGBA output rows "
            "4-byte aligned");
    require(plan.usable, "launch_gather", "plan is not usable (plan_gather found no window for these sizes)");
    require(plan.k_blocks >= 2 && plan.k_blocks <= 8 && plan.k_blocks % 2 == 0 &&
                plan.vec == ti::gather_vec(plan.k_blocks),
            "launch_gather", "plan has " + std::to_string(plan.k_blocks) + " k blocks, vector " +
                                 std::to_string(plan.vec) + " (kernels: 2/2, 4/4, 6/2, 8/4)");
    require(plan.tiles >= 0, "launch_gather", "plan has " + std::to_string(plan.tiles) + " tiles per warp");
    require(!plan.streaming || F == filter::bicubic, "launch_gather", "streaming loads are for bicubic plans");
    const float sx = static_cast<float>(static_cast<double>(in.width) / out.width);
    const float sy = static_cast<float>(static_cast<double>(in.height) / out.height);
    auto go = [&](auto nk1_) {
        constexpr int NK1 = decltype(nk1_)::value;
        constexpr int warps = ti::gather_block_warps<F, NK1>;
        auto launch = [&](auto kernel) {
            // Blocks that fit on the device at once (no dynamic shared memory).
            const long long resident =
                static_cast<long long>(tcore::sm_count()) * tcore::blocks_per_sm(kernel, warps * 32);
            const int tiles = plan.tiles > 0 ? plan.tiles : ti::gather_tiles(out.width, out.height, resident, warps);
            const int cols = ti::gather_cols * warps, rows = ti::gather_rows * tiles;
            const dim3 grid((out.width + cols - 1) / cols, (out.height + rows - 1) / rows);
            require(grid.y <= 65535, "launch_gather", "output too tall");
            kernel<<<grid, warps * 32, 0, stream>>>(in, out, sx, sy, tiles);
        };
        if constexpr (F == filter::bicubic) {
            if (plan.streaming) return launch(resample_gather_kernel<Backend, Shape, F, NK1, true>);
        }
        launch(resample_gather_kernel<Backend, Shape, F, NK1, false>);
    };
    if (plan.k_blocks == 2) go(std::integral_constant<int, 2>{});
    else if (plan.k_blocks == 4) go(std::integral_constant<int, 4>{});
    else if (plan.k_blocks == 6) go(std::integral_constant<int, 6>{});
    else go(std::integral_constant<int, 8>{});
    TCORE_CHECK_LAUNCH();
}

/// tc (tensor_core) / cc (cuda_core): resamples `in` to the size of `out`
/// with filter F on the MMA Shape. Out = unsigned char (rounded, saturated)
/// or double. Throws tcore::error on bad arguments or a failed launch.
template <class Backend, class Shape, filter F, class Out>
void resample_mma(const image_view& in, const image_out<Out>& out, cudaStream_t stream = nullptr)
{
    static_assert(std::is_same_v<Out, unsigned char> || std::is_same_v<Out, double>, "output: unsigned char or double");
    using real = typename tcore::interp::tile<Shape>::real;
    check_images("resample_mma", in, out);
    if constexpr (tcore::interp::tile<Shape>::is_half && std::is_same_v<Out, unsigned char>) {
        // The gather path for down-scaling by gather_min_scale or more (RGBA,
        // aligned rows), on tensor cores: its words-in-registers layout is
        // built around the MMA fragments, and with the MMA emulated
        // (cuda_core) the kernels spill; cuda_core takes the staged path.
        if constexpr (std::is_same_v<Backend, tcore::tensor_core>) {
            const double sx = static_cast<double>(in.width) / out.width;
            const double sy = static_cast<double>(in.height) / out.height;
            if (sx >= gather_min_scale<F> && sy >= gather_min_scale<F> && gather_layouts(in, out)) {
                const tcore::interp::gather_plan plan =
                    tcore::interp::plan_gather<F>(in.width, in.height, out.width, out.height, 0);
                if (plan.usable) {
                    launch_gather<Backend, Shape, F>(in, out, plan, stream);
                    return;
                }
            }
        }
        // Contiguous rows (up to 4 row blocks per group) where a kernel has them.
        const int max_group = staged_word_layouts(in, out) ? 4 : 0;
        const tcore::interp::staged_plan plan = tcore::interp::plan_staged<F>(
            in.width, out.width, in.height, out.height, staged_smem_budget, staged_max_rows, staged_min_grid, max_group);
        if (plan.usable) {
            launch_staged<Backend, Shape, F>(in, out, plan, stream);
            return;
        }
    }
    constexpr int warps = mma_block_threads / 32;
    const int tiles_x = (out.width + 15) / 16;
    const int strip_rows = 8 * mma_strip_tiles;
    const int strips = (out.height + strip_rows - 1) / strip_rows;
    require(strips <= 65535, "resample_mma", "output taller than " + std::to_string(65535 * strip_rows) + " rows");
    const dim3 grid((tiles_x + warps - 1) / warps, strips);
    const std::size_t smem = tcore::interp::block_tables<Shape>::bytes(warps, mma_strip_tiles);
    const real sx = static_cast<real>(static_cast<double>(in.width) / out.width);
    const real sy = static_cast<real>(static_cast<double>(in.height) / out.height);
    const bool vec = rgba_rows(in, 16) && rgba_rows(out);
    if (vec)
        resample_mma_kernel<Backend, Shape, F, true, Out><<<grid, mma_block_threads, smem, stream>>>(in, out, sx, sy,
                                                                                                  mma_strip_tiles);
    else
        resample_mma_kernel<Backend, Shape, F, false, Out><<<grid, mma_block_threads, smem, stream>>>(in, out, sx, sy,
                                                                                                   mma_strip_tiles);
    TCORE_CHECK_LAUNCH();
}


}  // namespace tcore::interp
