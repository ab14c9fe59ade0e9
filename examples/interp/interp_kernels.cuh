// examples/interp/interp_kernels.cuh - the kernels of the interp workload
// and their host launchers (also used by tests/gpu/test_interp.cu).
//
//   resample_mma<Backend, Shape, F>   tc / cc: two chained MMAs per warp
//                 tile (tcore/patterns/interp.cuh); Shape f16_m16n8k16_f32acc,
//                 f16_m16n8k16_f16acc or f64_m16n8k16; 8-bit or FP64 output.
//                 FP16 shapes with 8-bit output take the staged path
//                 (resample_staged_kernel: input rows staged in shared memory
//                 per block of 64 columns x plan.block_rows rows), unless the
//                 down-scaling is too strong for its shared-memory budget;
//                 down-scaling by gather_min_scale or more (RGBA, aligned
//                 rows) takes the gather path (resample_gather_kernel: 4
//                 columns x 8-row tiles per warp, channels in M and K, image
//                 words straight from global memory); FP64 and the staged
//                 path's fallback take resample_mma_kernel.
//   resample_cce<F, T>                cce: plain CUDA, one thread per output
//                 pixel, taps x taps texel reads per channel, T = float
//                 (8-bit output) or double (FP64 output)
//   texture_image + resample_tex      base: the texture unit's bilinear
//                 filter (tex2D on an RGBA8 cudaArray, normalized-float
//                 reads, clamp addressing, unnormalized coordinates)
//
// All variants share the geometry of the pattern: output pixel (ox, oy)
// samples u = (ox + 0.5) * in_w / out_w (texture coordinates; minus 0.5
// in texel-index terms), clamp-to-edge. 8-bit outputs are rounded to the
// nearest level and saturated.
#pragma once

#include <tcore/check.cuh>
#include <tcore/patterns/interp.cuh>
#include <tcore/infra/launch.cuh>

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tcore::examples::interp {

using tcore::interp::filter;
using tcore::interp::image_out;
using tcore::interp::image_view;

inline constexpr int mma_block_threads = 128;  ///< 4 warps
inline constexpr int mma_strip_tiles = 4;      ///< 16 x 32 output pixels per warp
inline constexpr int cce_block_x = 32, cce_block_y = 8;

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
/// two row blocks at a time (PairRows): 8 (at most 64 registers). Measured on
/// the H100 against 6 blocks and one row block at a time, cold/stream ms:
/// bilinear RGB 1920x1080 -> 3840x2160 0.0435 -> 0.0392, 1024^2 -> 4096^2
/// bilinear 0.0545 -> 0.0495, bicubic 0.0772 -> 0.0711.
template <class Backend>
inline constexpr int staged_pair_min_blocks = std::is_same_v<Backend, tcore::tensor_core> ? 8 : 1;
/// Shared memory a staged block may use (6 blocks per SM fit in 228 KiB).
inline constexpr std::size_t staged_smem_budget = 30 * 1024;
/// Launch shape of the staged kernels (tcore::interp::plan_staged): up to
/// 64 output rows per block (fewer where the budget says so), fewer while
/// the grid has under 512 blocks (about 4 per SM of an H100: small outputs).
/// Measured on the H100 against 32 rows and 1056 blocks: 256^2 -> 1024^2
/// bilinear 0.0133 -> 0.0091 ms, 1024^2 -> 4096^2 bicubic 0.096 -> 0.087 ms.
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

/// cce: one thread per output pixel; T = float or double arithmetic.
template <filter F, class T, int C, bool Vec, class Out>
__global__ void __launch_bounds__(cce_block_x* cce_block_y)
    resample_cce_kernel(image_view in, image_out<Out> out, T scale_x, T scale_y)
{
    namespace ti = tcore::interp;
    constexpr int n = ti::taps<F>;
    const int ox = blockIdx.x * cce_block_x + threadIdx.x;
    const int oy = blockIdx.y * cce_block_y + threadIdx.y;
    if (ox >= out.width || oy >= out.height) return;
    const ti::real_weights<F, T> wx = ti::make_real_weights<F, T>(ti::locate<T>(ox, scale_x));
    const ti::real_weights<F, T> wy = ti::make_real_weights<F, T>(ti::locate<T>(oy, scale_y));
    int xs[n];
#pragma unroll
    for (int i = 0; i < n; ++i) xs[i] = ti::clamp_index(wx.base + i, in.width);
    T acc[C] = {};
#pragma unroll
    for (int j = 0; j < n; ++j) {
        const unsigned char* row = in.data + ti::clamp_index(wy.base + j, in.height) * in.pitch;
        T sum[C] = {};
#pragma unroll
        for (int i = 0; i < n; ++i) {
            if constexpr (Vec) {
                const uchar4 v = __ldg(reinterpret_cast<const uchar4*>(row + 4ll * xs[i]));
                const T f[4] = {static_cast<T>(v.x), static_cast<T>(v.y), static_cast<T>(v.z), static_cast<T>(v.w)};
#pragma unroll
                for (int c = 0; c < C; ++c) sum[c] += wx.w[i] * f[c];
            } else {
#pragma unroll
                for (int c = 0; c < C; ++c)
                    sum[c] += wx.w[i] * static_cast<T>(__ldg(row + static_cast<long long>(xs[i]) * C + c));
            }
        }
#pragma unroll
        for (int c = 0; c < C; ++c) acc[c] += wy.w[j] * sum[c];
    }
    Out* dst = out.data + oy * out.pitch + static_cast<long long>(ox) * C;
    if constexpr (std::is_same_v<Out, unsigned char>) {
        unsigned q[C];
#pragma unroll
        for (int c = 0; c < C; ++c) q[c] = ti::to_u8(static_cast<float>(acc[c]));
        if constexpr (Vec) {
            *reinterpret_cast<unsigned*>(dst) = q[0] | (q[1] << 8) | (q[2] << 16) | (q[3] << 24);
        } else {
#pragma unroll
            for (int c = 0; c < C; ++c) dst[c] = static_cast<unsigned char>(q[c]);
        }
    } else {
#pragma unroll
        for (int c = 0; c < C; ++c) dst[c] = static_cast<Out>(acc[c]);
    }
}

/// base: the texture unit's bilinear filter; the texture is RGBA8 read as
/// normalized floats (value / 255), C = 3 or 4 channels stored.
template <int C, bool Vec>
__global__ void __launch_bounds__(cce_block_x* cce_block_y)
    resample_tex_kernel(cudaTextureObject_t tex, image_out<unsigned char> out, float scale_x, float scale_y)
{
    const int ox = blockIdx.x * cce_block_x + threadIdx.x;
    const int oy = blockIdx.y * cce_block_y + threadIdx.y;
    if (ox >= out.width || oy >= out.height) return;
    const float4 v = tex2D<float4>(tex, (ox + 0.5f) * scale_x, (oy + 0.5f) * scale_y);
    const unsigned q[4] = {tcore::interp::to_u8(v.x * 255.0f), tcore::interp::to_u8(v.y * 255.0f),
                           tcore::interp::to_u8(v.z * 255.0f), tcore::interp::to_u8(v.w * 255.0f)};
    unsigned char* dst = out.data + oy * out.pitch + static_cast<long long>(ox) * C;
    if constexpr (Vec) {
        *reinterpret_cast<unsigned*>(dst) = q[0] | (q[1] << 8) | (q[2] << 16) | (q[3] << 24);
    } else {
#pragma unroll
        for (int c = 0; c < C; ++c) dst[c] = static_cast<unsigned char>(q[c]);
    }
}

// -- host side -------------------------------------------------------------------------

namespace detail {

using tcore::aligned;

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

}  // namespace detail

/// Launches the staged kernel of `plan` for the image layouts at hand.
template <class Backend, class Shape, filter F>
void launch_staged(const image_view& in, const image_out<unsigned char>& out, const tcore::interp::staged_plan& plan,
                   cudaStream_t stream)
{
    // `plan` must come from tcore::interp::plan_staged<F> for these sizes
    // (its window and staged rows are not checked again here); its shape is.
    detail::check_images("launch_staged", in, out);
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
    const bool out_rgba = detail::rgba_rows(out);
    auto go = [&](auto kernel) {
        if (smem > 48 * 1024)
            TCORE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
        kernel<<<grid, block, smem, stream>>>(in, out, sx, sy, plan);
    };
    const bool contiguous = plan.contiguous, pairs = plan.group_blocks >= 2;
    require(!contiguous || detail::staged_word_layouts(in, out), "launch_staged",
            "contiguous rows need aligned input rows and 4-byte output rows");
    if (in.channels == 4) {
        const bool in_aligned = detail::rgba_rows(in, 16);
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
    return detail::rgba_rows(in, 16) && detail::rgba_rows(out) && in.pitch * in.height < (1ll << 31);
}

/// Down-scaling from which the FP16 8-bit variants take the gather path
/// (both axes; the staged path below it). Measured on the H100 (median ms,
/// staged -> gather): bilinear 4096^2 -> 1024^2 0.0241 -> 0.0137 and
/// 4096^2 -> 2560^2 0.0680 -> 0.0475, bicubic 4096^2 -> 1024^2 0.0489 ->
/// 0.0309; but bicubic 4096^2 -> 2560^2 0.087 -> 0.120 with the first gather
/// kernel (gathered rows and a 16-texel window read each texel about 3
/// times at 1.6x), so bicubic starts at 3x.
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
    detail::check_images("launch_gather", in, out);
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
    detail::check_images("resample_mma", in, out);
    if constexpr (tcore::interp::tile<Shape>::is_half && std::is_same_v<Out, unsigned char>) {
        // The gather path for down-scaling by gather_min_scale or more (RGBA, aligned rows).
        const double sx = static_cast<double>(in.width) / out.width, sy = static_cast<double>(in.height) / out.height;
        if (sx >= gather_min_scale<F> && sy >= gather_min_scale<F> && gather_layouts(in, out)) {
            const tcore::interp::gather_plan plan = tcore::interp::plan_gather<F>(in.width, in.height, out.width, out.height, 0);
            if (plan.usable) {
                launch_gather<Backend, Shape, F>(in, out, plan, stream);
                return;
            }
        }
        // Contiguous rows (up to 4 row blocks per group) where a kernel has them.
        const int max_group = detail::staged_word_layouts(in, out) ? 4 : 0;
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
    const bool vec = detail::rgba_rows(in, 16) && detail::rgba_rows(out);
    if (vec)
        resample_mma_kernel<Backend, Shape, F, true, Out><<<grid, mma_block_threads, smem, stream>>>(in, out, sx, sy,
                                                                                                  mma_strip_tiles);
    else
        resample_mma_kernel<Backend, Shape, F, false, Out><<<grid, mma_block_threads, smem, stream>>>(in, out, sx, sy,
                                                                                                   mma_strip_tiles);
    TCORE_CHECK_LAUNCH();
}

/// cce: plain CUDA resampling in T (float: 8-bit output; double: either).
template <filter F, class T, class Out>
void resample_cce(const image_view& in, const image_out<Out>& out, cudaStream_t stream = nullptr)
{
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "T: float or double");
    static_assert(std::is_same_v<Out, unsigned char> || std::is_same_v<Out, double>, "output: unsigned char or double");
    detail::check_images("resample_cce", in, out);
    const dim3 block(cce_block_x, cce_block_y);
    const dim3 grid((out.width + cce_block_x - 1) / cce_block_x, (out.height + cce_block_y - 1) / cce_block_y);
    require(grid.y <= 65535, "resample_cce", "output taller than 524280 rows");
    const T sx = static_cast<T>(static_cast<double>(in.width) / out.width);
    const T sy = static_cast<T>(static_cast<double>(in.height) / out.height);
    const bool vec = detail::rgba_rows(in, 4) && detail::rgba_rows(out);
    if (in.channels == 4) {
        if (vec) resample_cce_kernel<F, T, 4, true, Out><<<grid, block, 0, stream>>>(in, out, sx, sy);
        else resample_cce_kernel<F, T, 4, false, Out><<<grid, block, 0, stream>>>(in, out, sx, sy);
    } else {
        resample_cce_kernel<F, T, 3, false, Out><<<grid, block, 0, stream>>>(in, out, sx, sy);
    }
    TCORE_CHECK_LAUNCH();
}

/// An RGBA8 CUDA array with a bilinear, clamp-to-edge, unnormalized-
/// coordinate texture object on it (the base variant's input). A 3-channel
/// image is expanded to RGBA (alpha 255) on upload.
class texture_image {
public:
    /// `host` points at height rows of width * channels bytes, `pitch` bytes apart (host memory).
    texture_image(const unsigned char* host, int width, int height, int channels, long long pitch)
        : width_(width), height_(height), channels_(channels)
    {
        require(host != nullptr, "texture_image", "image is a null pointer");
        require(channels == 3 || channels == 4, "texture_image", "images must have 3 or 4 channels");
        require(width > 0 && height > 0, "texture_image", "size must be positive");
        require(pitch >= static_cast<long long>(width) * channels, "texture_image", "pitch less than width * channels");
        int dev = 0, max_w = 0, max_h = 0;
        TCORE_CHECK(cudaGetDevice(&dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&max_w, cudaDevAttrMaxTexture2DWidth, dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&max_h, cudaDevAttrMaxTexture2DHeight, dev));
        require(width <= max_w && height <= max_h, "texture_image",
                "image larger than the device's 2D texture limit (" + std::to_string(max_w) + "x" +
                    std::to_string(max_h) + ")");
        std::vector<unsigned char> rgba;
        const unsigned char* src = host;
        long long src_pitch = pitch;
        if (channels == 3) {
            rgba.resize(static_cast<std::size_t>(width) * height * 4);
            for (int y = 0; y < height; ++y)
                for (int x = 0; x < width; ++x) {
                    const unsigned char* p = host + y * pitch + 3ll * x;
                    unsigned char* q = &rgba[(static_cast<std::size_t>(y) * width + x) * 4];
                    q[0] = p[0], q[1] = p[1], q[2] = p[2], q[3] = 255;
                }
            src = rgba.data();
            src_pitch = 4ll * width;
        }
        const cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
        TCORE_CHECK(cudaMallocArray(&array_, &desc, static_cast<std::size_t>(width), static_cast<std::size_t>(height)));
        try {
            TCORE_CHECK(cudaMemcpy2DToArray(array_, 0, 0, src, static_cast<std::size_t>(src_pitch),
                                            static_cast<std::size_t>(width) * 4, static_cast<std::size_t>(height),
                                            cudaMemcpyHostToDevice));
            cudaResourceDesc res = {};
            res.resType = cudaResourceTypeArray;
            res.res.array.array = array_;
            cudaTextureDesc td = {};
            td.addressMode[0] = cudaAddressModeClamp;
            td.addressMode[1] = cudaAddressModeClamp;
            td.filterMode = cudaFilterModeLinear;
            td.readMode = cudaReadModeNormalizedFloat;
            td.normalizedCoords = 0;
            TCORE_CHECK(cudaCreateTextureObject(&tex_, &res, &td, nullptr));
        } catch (...) {
            cudaFreeArray(array_);
            throw;
        }
    }
    ~texture_image()
    {
        if (tex_) cudaDestroyTextureObject(tex_);
        if (array_) cudaFreeArray(array_);
    }
    texture_image(const texture_image&) = delete;
    texture_image& operator=(const texture_image&) = delete;

    cudaTextureObject_t texture() const { return tex_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int channels() const { return channels_; }

private:
    int width_ = 0, height_ = 0, channels_ = 0;
    cudaArray_t array_ = nullptr;
    cudaTextureObject_t tex_ = 0;
};

/// base: bilinear resampling by the texture unit (8-bit fixed-point weights:
/// see tests/gpu/test_interp.cu for what that costs in accuracy).
inline void resample_tex(const texture_image& tex, const image_out<unsigned char>& out, cudaStream_t stream = nullptr)
{
    require(out.data != nullptr, "resample_tex", "output image is a null pointer");
    require(out.width > 0 && out.height > 0, "resample_tex", "output size must be positive");
    require(out.channels == tex.channels(), "resample_tex", "output and texture channel counts differ");
    require(out.pitch >= static_cast<long long>(out.width) * out.channels, "resample_tex",
            "output pitch less than width * channels");
    const dim3 block(cce_block_x, cce_block_y);
    const dim3 grid((out.width + cce_block_x - 1) / cce_block_x, (out.height + cce_block_y - 1) / cce_block_y);
    require(grid.y <= 65535, "resample_tex", "output taller than 524280 rows");
    const float sx = static_cast<float>(static_cast<double>(tex.width()) / out.width);
    const float sy = static_cast<float>(static_cast<double>(tex.height()) / out.height);
    if (out.channels == 4) {
        if (detail::rgba_rows(out)) resample_tex_kernel<4, true><<<grid, block, 0, stream>>>(tex.texture(), out, sx, sy);
        else resample_tex_kernel<4, false><<<grid, block, 0, stream>>>(tex.texture(), out, sx, sy);
    } else {
        resample_tex_kernel<3, false><<<grid, block, 0, stream>>>(tex.texture(), out, sx, sy);
    }
    TCORE_CHECK_LAUNCH();
}

}  // namespace tcore::examples::interp
