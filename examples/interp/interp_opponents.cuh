// examples/interp/interp_opponents.cuh - the opponents of the interp
// workload, beside the kit's launchers (tcore/patterns/device/interp.cuh):
//
//   resample_cce<F, T>                cce: plain CUDA, one thread per output
//                 pixel, taps x taps texel reads per channel, T = float
//                 (8-bit output) or double (FP64 output)
//   texture_image + resample_tex      base: the texture unit's bilinear
//                 filter (tex2D on an RGBA8 cudaArray, normalized-float
//                 reads, clamp addressing, unnormalized coordinates)
//   pitch_texture_image + resample_tex   base-pitch: the same filter on a
//                 pitch-linear RGBA8 texture (cudaResourceTypePitch2D) over
//                 the input in global memory where the device's texture
//                 alignments allow, else over an aligned RGBA copy. A
//                 cudaArray is block-linear: down-scaling by 4 it fetches
//                 the tiles of rows no output pixel samples; pitch-linear
//                 reads fetch only the sampled rows' sectors.
//
// Both share the geometry of the pattern: output pixel (ox, oy) samples
// u = (ox + 0.5) * in_w / out_w (texture coordinates; minus 0.5 in
// texel-index terms), clamp-to-edge. 8-bit outputs are rounded to the
// nearest level and saturated.
#pragma once

#include <tcore/check.cuh>
#include <tcore/infra/launch.cuh>
#include <tcore/patterns/device/interp.cuh>
#include <tcore/patterns/interp.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tcore::examples::interp {

using tcore::interp::filter;
using tcore::interp::image_out;
using tcore::interp::image_view;

inline constexpr int cce_block_x = 32, cce_block_y = 8;

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

/// cce: plain CUDA resampling in T (float: 8-bit output; double: either).
template <filter F, class T, class Out>
void resample_cce(const image_view& in, const image_out<Out>& out, cudaStream_t stream = nullptr)
{
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "T: float or double");
    static_assert(std::is_same_v<Out, unsigned char> || std::is_same_v<Out, double>, "output: unsigned char or double");
    tcore::interp::check_images("resample_cce", in, out);
    const dim3 block(cce_block_x, cce_block_y);
    const dim3 grid((out.width + cce_block_x - 1) / cce_block_x, (out.height + cce_block_y - 1) / cce_block_y);
    require(grid.y <= 65535, "resample_cce", "output taller than 524280 rows");
    const T sx = static_cast<T>(static_cast<double>(in.width) / out.width);
    const T sy = static_cast<T>(static_cast<double>(in.height) / out.height);
    const bool vec = tcore::interp::rgba_rows(in, 4) && tcore::interp::rgba_rows(out);
    if (in.channels == 4) {
        if (vec) resample_cce_kernel<F, T, 4, true, Out><<<grid, block, 0, stream>>>(in, out, sx, sy);
        else resample_cce_kernel<F, T, 4, false, Out><<<grid, block, 0, stream>>>(in, out, sx, sy);
    } else {
        resample_cce_kernel<F, T, 3, false, Out><<<grid, block, 0, stream>>>(in, out, sx, sy);
    }
    TCORE_CHECK_LAUNCH();
}

/// The sampling of both texture opponents: bilinear, clamp-to-edge,
/// unnormalized coordinates, 8-bit channels read as normalized floats.
inline const cudaTextureDesc bilinear_rgba8_sampling = [] {
    cudaTextureDesc td = {};
    td.addressMode[0] = cudaAddressModeClamp;
    td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeNormalizedFloat;
    td.normalizedCoords = 0;
    return td;
}();

/// What both texture opponents expose: the texture object and the image's
/// size. The derived class owns the storage and destroys the object.
class rgba_texture {
public:
    rgba_texture(const rgba_texture&) = delete;
    rgba_texture& operator=(const rgba_texture&) = delete;

    cudaTextureObject_t texture() const { return tex_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int channels() const { return channels_; }

protected:
    rgba_texture(int width, int height, int channels) : width_(width), height_(height), channels_(channels) {}
    ~rgba_texture() = default;

    int width_ = 0, height_ = 0, channels_ = 0;
    cudaTextureObject_t tex_ = 0;
};

/// An RGBA8 CUDA array with a bilinear, clamp-to-edge, unnormalized-
/// coordinate texture object on it (the base variant's input). A 3-channel
/// image is expanded to RGBA (alpha 255) on upload.
class texture_image : public rgba_texture {
public:
    /// `host` points at height rows of width * channels bytes, `pitch` bytes apart (host memory).
    texture_image(const unsigned char* host, int width, int height, int channels, long long pitch)
        : rgba_texture(width, height, channels)
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
            TCORE_CHECK(cudaCreateTextureObject(&tex_, &res, &bilinear_rgba8_sampling, nullptr));
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

private:
    cudaArray_t array_ = nullptr;
};

/// Copies a C-channel device image (C = 3 or 4) into RGBA rows `pitch` bytes
/// apart (4-byte aligned; alpha 255 for RGB); one thread per pixel,
/// blockIdx.y the row.
template <int C>
__global__ void copy_to_rgba_kernel(image_view in, unsigned char* dst, long long pitch)
{
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y);
    if (x >= in.width) return;
    const unsigned char* p = in.data + y * in.pitch + static_cast<long long>(x) * C;
    reinterpret_cast<uchar4*>(dst + y * pitch)[x] = make_uchar4(p[0], p[1], p[2], C == 4 ? p[3] : 255);
}

/// A pitch-linear RGBA8 texture object (cudaResourceTypePitch2D) with
/// texture_image's sampling: bilinear, clamp-to-edge, unnormalized
/// coordinates, normalized-float reads. It reads the caller's device image
/// in place when that is RGBA, its data aligned to the device's
/// textureAlignment and its pitch a multiple of texturePitchAlignment (the
/// image must then outlive this object); otherwise it reads an RGBA copy
/// made here with an aligned pitch (preprocessing, like texture_image's
/// upload). note() says which, and why a copy was needed.
class pitch_texture_image : public rgba_texture {
public:
    explicit pitch_texture_image(const image_view& in, cudaStream_t stream = nullptr)
        : rgba_texture(in.width, in.height, in.channels)
    {
        require(in.data != nullptr, "pitch_texture_image", "image is a null pointer");
        require(in.channels == 3 || in.channels == 4, "pitch_texture_image", "images must have 3 or 4 channels");
        require(in.width > 0 && in.height > 0, "pitch_texture_image", "size must be positive");
        require(in.pitch >= static_cast<long long>(in.width) * in.channels, "pitch_texture_image",
                "pitch less than width * channels");
        int dev = 0, max_w = 0, max_h = 0, max_pitch = 0, base_align = 0, pitch_align = 0;
        TCORE_CHECK(cudaGetDevice(&dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&max_w, cudaDevAttrMaxTexture2DLinearWidth, dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&max_h, cudaDevAttrMaxTexture2DLinearHeight, dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxTexture2DLinearPitch, dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&base_align, cudaDevAttrTextureAlignment, dev));
        TCORE_CHECK(cudaDeviceGetAttribute(&pitch_align, cudaDevAttrTexturePitchAlignment, dev));
        require(in.width <= max_w && in.height <= max_h, "pitch_texture_image",
                "image larger than the device's pitch-linear 2D texture limit (" + std::to_string(max_w) + "x" +
                    std::to_string(max_h) + ")");
        const unsigned char* data = in.data;
        long long pitch = in.pitch;
        if (in.channels != 4) note_ = "RGBA copy (RGB input)";
        else if (!aligned(in.data, static_cast<std::size_t>(base_align)))
            note_ = "RGBA copy (data not aligned to textureAlignment " + std::to_string(base_align) + ")";
        else if (in.pitch % pitch_align != 0)
            note_ = "RGBA copy (pitch " + std::to_string(in.pitch) + " not a multiple of texturePitchAlignment " +
                    std::to_string(pitch_align) + ")";
        else if (in.pitch > max_pitch)
            note_ = "RGBA copy (pitch " + std::to_string(in.pitch) + " above the limit " + std::to_string(max_pitch) + ")";
        else note_ = "in place";
        if (note_ != "in place") {
            pitch = (4ll * in.width + pitch_align - 1) / pitch_align * pitch_align;
            require(pitch <= max_pitch, "pitch_texture_image", "image too wide for a pitch-linear texture");
            void* raw = nullptr;
            TCORE_CHECK(cudaMalloc(&raw, static_cast<std::size_t>(pitch * in.height + base_align)));
            copy_ = static_cast<unsigned char*>(raw);
            unsigned char* dst = copy_ + (base_align - reinterpret_cast<std::uintptr_t>(copy_) % base_align) % base_align;
            const dim3 grid(static_cast<unsigned>((in.width + 255) / 256), static_cast<unsigned>(in.height));
            if (in.channels == 4) copy_to_rgba_kernel<4><<<grid, 256, 0, stream>>>(in, dst, pitch);
            else copy_to_rgba_kernel<3><<<grid, 256, 0, stream>>>(in, dst, pitch);
            TCORE_CHECK_LAUNCH();
            data = dst;
        }
        cudaResourceDesc res = {};
        res.resType = cudaResourceTypePitch2D;
        res.res.pitch2D.devPtr = const_cast<unsigned char*>(data);
        res.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
        res.res.pitch2D.width = static_cast<std::size_t>(in.width);
        res.res.pitch2D.height = static_cast<std::size_t>(in.height);
        res.res.pitch2D.pitchInBytes = static_cast<std::size_t>(pitch);
        const cudaError_t e = cudaCreateTextureObject(&tex_, &res, &bilinear_rgba8_sampling, nullptr);
        if (e != cudaSuccess) {
            cudaFree(copy_);
            TCORE_CHECK(e);
        }
    }
    ~pitch_texture_image()
    {
        if (tex_) cudaDestroyTextureObject(tex_);
        if (copy_) cudaFree(copy_);
    }
    /// "in place", or "RGBA copy (<reason>)".
    const std::string& note() const { return note_; }

private:
    unsigned char* copy_ = nullptr;
    std::string note_;
};

/// Bilinear resampling by the texture unit from any RGBA8 texture object of
/// `width` x `height` texels with texture_image's sampling (`channels` of
/// each texel stored).
inline void resample_texture_object(cudaTextureObject_t tex, int width, int height, int channels,
                                    const image_out<unsigned char>& out, cudaStream_t stream = nullptr)
{
    require(out.data != nullptr, "resample_tex", "output image is a null pointer");
    require(out.width > 0 && out.height > 0, "resample_tex", "output size must be positive");
    require(out.channels == channels, "resample_tex", "output and texture channel counts differ");
    require(out.pitch >= static_cast<long long>(out.width) * out.channels, "resample_tex",
            "output pitch less than width * channels");
    const dim3 block(cce_block_x, cce_block_y);
    const dim3 grid((out.width + cce_block_x - 1) / cce_block_x, (out.height + cce_block_y - 1) / cce_block_y);
    require(grid.y <= 65535, "resample_tex", "output taller than 524280 rows");
    const float sx = static_cast<float>(static_cast<double>(width) / out.width);
    const float sy = static_cast<float>(static_cast<double>(height) / out.height);
    if (out.channels == 4) {
        if (tcore::interp::rgba_rows(out)) resample_tex_kernel<4, true><<<grid, block, 0, stream>>>(tex, out, sx, sy);
        else resample_tex_kernel<4, false><<<grid, block, 0, stream>>>(tex, out, sx, sy);
    } else {
        resample_tex_kernel<3, false><<<grid, block, 0, stream>>>(tex, out, sx, sy);
    }
    TCORE_CHECK_LAUNCH();
}

/// base: bilinear resampling by the texture unit (8-bit fixed-point weights:
/// see tests/gpu/test_interp.cu for what that costs in accuracy).
inline void resample_tex(const texture_image& tex, const image_out<unsigned char>& out, cudaStream_t stream = nullptr)
{
    resample_texture_object(tex.texture(), tex.width(), tex.height(), tex.channels(), out, stream);
}

/// base-pitch: the same from the pitch-linear texture.
inline void resample_tex(const pitch_texture_image& tex, const image_out<unsigned char>& out,
                         cudaStream_t stream = nullptr)
{
    resample_texture_object(tex.texture(), tex.width(), tex.height(), tex.channels(), out, stream);
}

}  // namespace tcore::examples::interp
