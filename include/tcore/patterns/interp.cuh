// tcore/patterns/interp.cuh - image resampling (bilinear, bicubic) as two
// chained MMAs, the accumulator of the first fed straight into the A
// operand of the second (frag/reuse.cuh).
//
// After "Making GPU tensor cores compute texture interpolation". On the
// local unit square of a sample, with a, b the fractional x, y positions and
// F the taps x taps texels around it (F(i, j): i along x, j along y),
//
//   A = C F C^T,   p = [1 a a^2 a^3] A [1 b b^2 b^3]^T = wx^T F wy,
//   wx = C^T [1 a a^2 a^3]^T, wy likewise,
//
// with C the bilinear coefficient matrix (2x2) or the bicubic Hermite
// matrix M = H S (4x4: Hermite basis H times the central-difference slopes
// S; Catmull-Rom, Keys' kernel with a = -1/2). Both are constexpr
// generators here, host and device.
//
// Resampling a whole image by one scale factor shares the x weights along
// every output column and the y weights along every output row, so a warp
// evaluates p for a tile of pixels as
//
//   product 1: D1 = Wx (16 output columns x 16 texels, generated)
//                 * Img^T (16 texels x 8 = 2 image rows x 4 channels, loaded)
//   product 2: D2 = D1 as A (16 output columns x 16 = 4 image rows x 4 channels)
//                 * (Wy (x) I4)^T (16 x 8 = 2 output rows x 4 channels, generated)
//
// i.e. wx^T F (product 1, every channel of 2 rows at once) then the sum over
// rows with wy (product 2, block-diagonal over the 4 channels). 3 and 4
// channels are packed into one MMA (3: the fourth channel slot stays 0). A
// warp tile is 16 output columns x 8 output rows (4 blocks of 2 rows): the
// texels under the tile's 16 columns are taken 16 at a time (product 1's k
// blocks) and its rows 4 at a time (product 2's k blocks), so any scale
// factor works; weights outside a pixel's taps are 0.
//
// Reuse (docs/mma-fragments.md section 7): FP16 m16n8k16 builds the A of
// product 2 in place from two 16x8 accumulators (reuse_a(d0, d1)), standard
// layout, so B2 is generated in the standard B map. FP64 m16n8k16 relabels
// k (reuse_a(d0, d1) for f64): A2 slot t + 4j stands for P column
// reuse_col(lane, j), and B2 is generated for those rows.
//
// Product 1's k slots are relabelled too (only the joint A/B k labelling is
// observable): FP16 lane (g, t) holds texels 4t..4t+3 of the k block (one
// 16-byte load of 4 RGBA texels), FP64 texels 2t, 2t+1, 8+2t, 9+2t.
//
// Geometry is the texture unit's: texel i covers [i, i+1), output pixel d
// samples source position u = (d + 0.5) * (in / out) - 0.5, i0 = floor(u),
// a = u - i0, and indices outside the image are clamped to the edge
// (cudaAddressModeClamp). FP16 shapes compute positions and weights in
// FP32 and round the weights to FP16; FP64 computes everything in FP64.
//
// resample_block runs a warp tile over contiguous 4-row chunks (FP64, and
// the FP16 fallback); resample_staged_block (section "the staged FP16
// path") stages the image rows a block reads (contiguous, or gathered per
// output row) into shared memory per block and is what the FP16 kernels use
// up to moderate down-scaling; resample_gather_warp (section "the gather
// FP16 path") puts the channels into M and K, reads RGBA words straight from
// global memory and takes strong down-scaling.
//
// tests/host/test_interp.cu checks the generators, the tile maps, a whole
// warp tile, a whole staged block and a gather warp on a simulated warp;
// tests/gpu/test_interp.cu the kernels.
#pragma once

#include "../backend.cuh"
#include "../check.cuh"
#include "../frag/f16_m16n8k16.cuh"
#include "../frag/f64_m16n8k16.cuh"
#include "../frag/reuse.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace tcore::interp {

enum class filter { bilinear, bicubic };

inline const char* filter_name(filter f) { return f == filter::bilinear ? "bilinear" : "bicubic"; }

/// Texels per axis a sample reads: 2 (bilinear) or 4 (bicubic).
template <filter F>
inline constexpr int taps = F == filter::bilinear ? 2 : 4;
/// Offset of the first tap from i0 = floor(u): 0 (bilinear) or -1 (bicubic).
template <filter F>
inline constexpr int first_tap = F == filter::bilinear ? 0 : -1;

// -- constexpr generators ------------------------------------------------------

/// Bilinear coefficient matrix B (2x2), row k = coefficient of a^k:
/// [1 a] B = [1 - a, a].
__host__ __device__ constexpr double bilinear_coef(int k, int j)
{
    return k == 0 ? (j == 0 ? 1.0 : 0.0) : (j == 0 ? -1.0 : 1.0);
}

/// Cubic Hermite basis H (4x4): p(a) = [1 a a^2 a^3] H [p0 p1 m0 m1]^T for
/// end values p0, p1 and end slopes m0, m1 on [0, 1].
__host__ __device__ constexpr double hermite_basis(int k, int r)
{
    constexpr double h[4][4] = {{1, 0, 0, 0}, {0, 0, 1, 0}, {-3, 3, -2, -1}, {2, -2, 1, 1}};
    return h[k][r];
}

/// Slopes from samples S (4x4): [p0 p1 m0 m1]^T = S [f_-1 f_0 f_1 f_2]^T with
/// p0 = f_0, p1 = f_1 and central differences m0 = (f_1 - f_-1)/2, m1 = (f_2 - f_0)/2.
__host__ __device__ constexpr double hermite_slopes(int r, int j)
{
    constexpr double s[4][4] = {{0, 1, 0, 0}, {0, 0, 1, 0}, {-0.5, 0, 0.5, 0}, {0, -0.5, 0, 0.5}};
    return s[r][j];
}

/// The bicubic Hermite matrix M = H S (Catmull-Rom):
/// M = 1/2 [[0 2 0 0] [-1 0 1 0] [2 -5 4 -1] [-1 3 -3 1]].
__host__ __device__ constexpr double hermite_coef(int k, int j)
{
    double sum = 0;
    for (int r = 0; r < 4; ++r) sum += hermite_basis(k, r) * hermite_slopes(r, j);
    return sum;
}

/// The coefficient matrix of filter F: C(k, j) multiplies a^k for tap j.
template <filter F>
__host__ __device__ constexpr double coef(int k, int j)
{
    if constexpr (F == filter::bilinear) return bilinear_coef(k, j);
    else return hermite_coef(k, j);
}

/// The bilinear coefficient matrix as a generator object.
struct bilinear_matrix {
    static constexpr int size = 2;
    __host__ __device__ constexpr double operator()(int k, int j) const { return bilinear_coef(k, j); }
};
/// The bicubic Hermite matrix M as a generator object.
struct hermite_matrix {
    static constexpr int size = 4;
    __host__ __device__ constexpr double operator()(int k, int j) const { return hermite_coef(k, j); }
};

// -- weights and sample positions ----------------------------------------------

__host__ __device__ inline float fma_t(float a, float b, float c) { return fmaf(a, b, c); }
__host__ __device__ inline double fma_t(double a, double b, double c) { return fma(a, b, c); }
__host__ __device__ inline float floor_t(float x) { return floorf(x); }
__host__ __device__ inline double floor_t(double x) { return floor(x); }

/// Tap weights w_j(a) = sum_k a^k C(k, j) (Horner with explicit FMAs, so
/// host and device agree bit for bit). T = float or double.
template <filter F, class T>
__host__ __device__ inline void weights(T a, T (&w)[taps<F>])
{
    static_for<taps<F>>([&](auto j_) {
        constexpr int j = decltype(j_)::value;
        constexpr T top = static_cast<T>(coef<F>(taps<F> - 1, j));
        T acc = top;
        static_for<taps<F> - 1>([&](auto k_) {
            constexpr int k = taps<F> - 2 - decltype(k_)::value;
            constexpr T c = static_cast<T>(coef<F>(k, j));
            acc = fma_t(acc, a, c);
        });
        w[j] = acc;
    });
}

/// Where output index d samples: i0 = floor(u), a = u - i0, u = (d + 0.5) scale - 0.5.
template <class T>
struct sample {
    int i0;
    T a;
};

/// The texture unit's convention (texel i covers [i, i+1)); scale = in / out.
template <class T>
__host__ __device__ inline sample<T> locate(int d, T scale)
{
    const T u = fma_t(static_cast<T>(d) + static_cast<T>(0.5), scale, static_cast<T>(-0.5));
    const T f = floor_t(u);
    return {static_cast<int>(f), u - f};
}

/// p = [1 a ...] (C F C^T) [1 b ...]^T, the matrix form on the local unit
/// square (F(i, j): i along x, j along y). Reference for the tests.
template <filter F, class T>
__host__ __device__ inline T eval_square(const T (&f)[taps<F>][taps<F>], T a, T b)
{
    constexpr int n = taps<F>;
    T A[n][n] = {};
    for (int k = 0; k < n; ++k)
        for (int l = 0; l < n; ++l) {
            T s = 0;
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    s += static_cast<T>(coef<F>(k, i)) * f[i][j] * static_cast<T>(coef<F>(l, j));
            A[k][l] = s;
        }
    T p = 0, ak = 1;
    for (int k = 0; k < n; ++k, ak *= a) {
        T bl = 1;
        for (int l = 0; l < n; ++l, bl *= b) p += ak * A[k][l] * bl;
    }
    return p;
}

// -- images ------------------------------------------------------------------------

/// An 8-bit image, `channels` (1..4) interleaved bytes per pixel, rows `pitch` bytes apart.
struct image_view {
    const unsigned char* data = nullptr;
    int width = 0, height = 0, channels = 0;
    long long pitch = 0;
};

/// An output image of T (unsigned char or double), `pitch` elements per row.
template <class T>
struct image_out {
    T* data = nullptr;
    int width = 0, height = 0, channels = 0;
    long long pitch = 0;
};

__host__ __device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

/// Rounds to the nearest 8-bit level (ties to even), saturating at 0 and 255.
__host__ __device__ inline unsigned to_u8(float v)
{
#if defined(__CUDA_ARCH__)
    unsigned r;  // cvt saturates to 0..255 (NaN -> 0); F2IP.U8 on sm_90
    asm("cvt.rni.sat.u8.f32 %0, %1;" : "=r"(r) : "f"(v));
    return r;
#else
    if (!(v > 0.0f)) return 0u;
    return static_cast<unsigned>(rintf(fminf(v, 255.0f)));
#endif
}

// -- the warp tile -------------------------------------------------------------------

/// Tile geometry and operand maps on Shape (f16_m16n8k16<Acc> or f64_m16n8k16).
template <class Shape>
struct tile {
    static_assert(Shape::m == 16 && Shape::n == 8 && Shape::k == 16, "interp tiles use m16n8k16 shapes");
    static constexpr bool is_half = std::is_same_v<typename Shape::a_type, __half>;
    using real = std::conditional_t<is_half, float, double>;  ///< positions and weights
    static constexpr int cols = 16;          ///< output columns per tile (A rows)
    static constexpr int rows = 8;           ///< output rows per tile
    static constexpr int row_blocks = 4;     ///< product-2 n blocks (2 output rows each)
    static constexpr int texels = 16;        ///< texels per product-1 k block
    static constexpr int chunk_rows = 4;     ///< image rows per product-2 k block

    /// The texel (in a product-1 k block) that k slot s stands for.
    __host__ __device__ static constexpr int x_of_slot(int s)
    {
        if constexpr (is_half) return 4 * ((s & 7) >> 1) + (s & 1) + 2 * (s >> 3);  // 2t+{0,1}, 2t+{8,9} -> 4t..4t+3
        else return 2 * (s & 3) + ((s >> 2) & 1) + 8 * (s >> 3);                     // t+4i -> 2t, 2t+1, 8+2t, 9+2t
    }
    /// A1 element i: {output column in the tile, texel in the k block}.
    __host__ __device__ static constexpr coord a1(int lane, int i)
    {
        const coord rc = Shape::a_coord(lane, i);
        return {rc.row, x_of_slot(rc.col)};
    }
    /// B1 element j of n block n1: texel x (in the k block), image row (in the chunk), channel c.
    struct b1_elem {
        int x, row, c;
    };
    __host__ __device__ static constexpr b1_elem b1(int lane, int j, int n1)
    {
        const coord rc = Shape::b_coord(lane, j);
        return {x_of_slot(rc.row), 2 * n1 + (rc.col >> 2), rc.col & 3};
    }
    /// D1 element i of n block n1: {output column, P column} with P column
    /// p = 8 n1 + n = 4 (chunk row) + channel.
    __host__ __device__ static constexpr coord d1(int lane, int i, int n1)
    {
        const coord rc = Shape::c_coord(lane, i);
        return {rc.row, 8 * n1 + rc.col};
    }
    /// The P column (chunk row p >> 2, channel p & 3) that B2 element j's k row stands for.
    __host__ __device__ static constexpr int b2_p(int lane, int j)
    {
        if constexpr (is_half) return Shape::b_coord(lane, j).row;  // reuse in place: standard layout
        else return reuse_col<Shape>(lane, j);                      // FP64 reuse relabels k
    }
    /// B2 element j: chunk row and channel of its k row; output row (in the
    /// 2-row block) and channel of its column.
    struct b2_elem {
        int row, c, out_row, out_c;
    };
    __host__ __device__ static constexpr b2_elem b2(int lane, int j)
    {
        const int p = b2_p(lane, j);
        const int col = Shape::b_coord(lane, j).col;
        return {p >> 2, p & 3, col >> 2, col & 3};
    }
    /// D2 element i of row block nb: output column, output row (in the tile), channel.
    struct d2_elem {
        int col, row, c;
    };
    __host__ __device__ static constexpr d2_elem d2(int lane, int i, int nb)
    {
        const coord rc = Shape::c_coord(lane, i);
        return {rc.row, 2 * nb + (rc.col >> 2), rc.col & 3};
    }
    /// Where A2 element i comes from: accumulator (n block), lane, register.
    __host__ __device__ static constexpr reuse_home a2_source(int lane, int i)
    {
        if constexpr (is_half) return f16_reuse_source(lane, i);
        else return f64_relabel_source<Shape>(lane, i);
    }
};

// -- per-lane weights of one output index ------------------------------------------

/// FP64 (or FP32) weights of one output index: w[j] belongs to texel base + j.
template <filter F, class T>
struct real_weights {
    int base;
    T w[taps<F>];
};

template <filter F, class T>
__host__ __device__ inline real_weights<F, T> make_real_weights(sample<T> s)
{
    real_weights<F, T> r;
    r.base = s.i0 + first_tap<F>;
    weights<F>(s.a, r.w);
    return r;
}

/// The weight of texel x (0 outside the taps), selected without indexing.
template <filter F, class T>
__host__ __device__ inline T weight_at(const real_weights<F, T>& r, int x)
{
    const int j = x - r.base;
    T v = 0;
    static_for<taps<F>>([&](auto k) {
        if (j == k) v = r.w[k];
    });
    return v;
}

/// FP16 weights of one output index as the half array P = [0, w_0, .., w_{taps-1}, 0, ..]
/// in three 32-bit words (P[2i] low half of word i); P[q] belongs to texel base + q.
struct half_weights {
    int base;
    unsigned w[3];
};

__host__ __device__ inline unsigned half_bits(float v) { return __half_as_ushort(__float2half_rn(v)); }

template <filter F>
__host__ __device__ inline half_weights make_half_weights(sample<float> s)
{
    float w[taps<F>];
    weights<F>(s.a, w);
    unsigned h[6] = {0, 0, 0, 0, 0, 0};
    static_for<taps<F>>([&](auto j) { h[1 + j] = half_bits(w[j]); });
    return {s.i0 + first_tap<F> - 1, {h[0] | (h[1] << 16), h[2] | (h[3] << 16), h[4] | (h[5] << 16)}};
}

/// Weights of texels x (low half) and x + 1 (high half) as a half2's bits.
__host__ __device__ inline unsigned half_pair(const half_weights& p, int x)
{
    const int q = x - p.base;
    if (q < 0 || q > 4) return 0u;
    const unsigned lo = q >= 4 ? p.w[2] : (q >= 2 ? p.w[1] : p.w[0]);
    const unsigned hi = q >= 2 ? p.w[2] : p.w[1];
    return (q & 1) ? ((lo >> 16) | (hi << 16)) : lo;
}

/// Weight of texel x as half bits (low 16 bits).
__host__ __device__ inline unsigned half_single(const half_weights& p, int x) { return half_pair(p, x) & 0xffffu; }

/// The weights type a tile of Shape uses.
template <class Shape, filter F>
using weights_of = std::conditional_t<tile<Shape>::is_half, half_weights, real_weights<F, double>>;

template <class Shape, filter F>
__host__ __device__ inline weights_of<Shape, F> make_weights(int d, typename tile<Shape>::real scale)
{
    if constexpr (tile<Shape>::is_half) return make_half_weights<F>(locate<float>(d, scale));
    else return make_real_weights<F, double>(locate<double>(d, scale));
}

// -- generated operands ----------------------------------------------------------------

/// Sets 32-bit register r of an FP16 fragment (elements 2r, 2r+1) from bits.
template <class Frag>
__host__ __device__ inline void set_half_reg(Frag& f, int r, unsigned bits)
{
    static_assert(std::is_same_v<typename Frag::value_type, __half>, "FP16 fragments only");
    reinterpret_cast<unsigned*>(f.x)[r] = bits;  // elements 2r (low half) and 2r + 1
}
/// Register r of an FP16 fragment as bits.
template <class Frag>
__host__ __device__ inline unsigned half_reg(const Frag& f, int r)
{
    return reinterpret_cast<const unsigned*>(f.x)[r];
}

/// A1 = Wx for the k block starting at texel xb: rows[h] are the weights of
/// the lane's output columns g (h = 0) and g + 8 (h = 1) of the tile.
template <class Shape, filter F>
__host__ __device__ inline frag_a<Shape> make_a1(int lane, const weights_of<Shape, F> (&rows)[2], int xb)
{
    using T = tile<Shape>;
    frag_a<Shape> a;
    if constexpr (T::is_half) {
        // Register r holds elements 2r, 2r+1: one row, adjacent texels (tests/host checks).
        // The row half (g or g + 8) is the same on every lane: taken at lane 0.
        static_for<Shape::a_count / 2>([&](auto r_) {
            constexpr int r = decltype(r_)::value;
            constexpr int h = T::a1(0, 2 * r).row >> 3;
            set_half_reg(a, r, half_pair(rows[h], xb + T::a1(lane, 2 * r).col));
        });
    } else {
        static_for<Shape::a_count>([&](auto i_) {
            constexpr int i = decltype(i_)::value;
            constexpr int h = T::a1(0, i).row >> 3;
            a.x[i] = weight_at(rows[h], xb + T::a1(lane, i).col);
        });
    }
    return a;
}

/// B2 = (Wy (x) I4)^T for the chunk starting at image row yc: `col` holds the
/// weights of the output row of the lane's B column (row block nb, row g >> 2).
template <class Shape, filter F>
__host__ __device__ inline frag_b<Shape> make_b2(int lane, const weights_of<Shape, F>& col, int yc)
{
    using T = tile<Shape>;
    frag_b<Shape> b;
    if constexpr (T::is_half) {
        // Register r: elements 2r, 2r+1 share the chunk row and the column;
        // their channels differ, so at most one of them is not 0.
        static_for<Shape::b_count / 2>([&](auto r) {
            const typename T::b2_elem lo = T::b2(lane, 2 * r), hi = T::b2(lane, 2 * r + 1);
            const unsigned h = half_single(col, yc + lo.row);
            set_half_reg(b, r, lo.c == lo.out_c ? h : (hi.c == hi.out_c ? h << 16 : 0u));
        });
    } else {
        static_for<Shape::b_count>([&](auto j) {
            const typename T::b2_elem e = T::b2(lane, j);
            b.x[j] = e.c == e.out_c ? weight_at(col, yc + e.row) : 0.0;
        });
    }
    return b;
}

// -- device parts: loads, the tile loop, stores --------------------------------------------

/// Byte c of w0 and of w1 as an exact half2 (low, high): 1024 + byte built
/// from the bits, then 1024 subtracted.
__device__ inline unsigned bytes_to_half2(unsigned w0, unsigned w1, unsigned c)
{
    const unsigned two = __byte_perm(w0, w1, c | ((c + 4u) << 4));  // byte 0 = w0.c, byte 1 = w1.c
    const unsigned h = __byte_perm(two, 0x64646464u, 0x4140u);       // [b0, 0x64, b1, 0x64]
    const __half2 v = __hsub2(*reinterpret_cast<const __half2*>(&h), __floats2half2_rn(1024.0f, 1024.0f));
    return *reinterpret_cast<const unsigned*>(&v);
}

/// Loads B1 (texels from xb, image rows of n block n1 of the chunk at yc).
/// Vec: RGBA with 16-byte aligned rows, FP16: a lane's 4 texels are one
/// uint4 where they lie inside the image. Otherwise element by element.
/// Indices are clamped to the image (clamp-to-edge).
template <class Shape, bool Vec>
__device__ inline void load_b1(frag_b<Shape>& b, const image_view& img, int xb, int yc, int n1, int lane)
{
    using T = tile<Shape>;
    if constexpr (Vec && T::is_half) {
        const int t = lane & 3, g = lane >> 2;
        const int y = clamp_index(yc + T::b1(lane, 0, n1).row, img.height);
        const unsigned char* row = img.data + y * img.pitch;
        const int x = xb + 4 * t;  // T::b1(lane, j, n1).x == 4t + j (tests/host)
        uint4 w;
        if (x >= 0 && x + 3 < img.width) {
            w = __ldg(reinterpret_cast<const uint4*>(row + 4ll * x));
        } else {
            w.x = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x, img.width)));
            w.y = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x + 1, img.width)));
            w.z = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x + 2, img.width)));
            w.w = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x + 3, img.width)));
        }
        const unsigned c = static_cast<unsigned>(g & 3);
        set_half_reg(b, 0, bytes_to_half2(w.x, w.y, c));
        set_half_reg(b, 1, bytes_to_half2(w.z, w.w, c));
    } else {
        static_for<Shape::b_count>([&](auto j) {
            const typename T::b1_elem e = T::b1(lane, j, n1);
            const int y = clamp_index(yc + e.row, img.height);
            const int x = clamp_index(xb + e.x, img.width);
            const unsigned v =
                e.c < img.channels ? __ldg(img.data + y * img.pitch + static_cast<long long>(x) * img.channels + e.c) : 0u;
            if constexpr (T::is_half) b.x[j] = __float2half_rn(static_cast<float>(v));  // exact: v <= 255
            else b.x[j] = static_cast<double>(v);
        });
    }
}

/// Stores D2 of row block nb, element by element: 8-bit (rounded,
/// saturated) or FP64, channels past out.channels skipped.
template <class Shape, class Out>
__device__ inline void store_d2(const image_out<Out>& out, const frag_c<Shape>& d, int nb, int ox0, int oy0, int lane)
{
    using T = tile<Shape>;
    static_for<4>([&](auto i) {
        const typename T::d2_elem e = T::d2(lane, i, nb);
        const int ox = ox0 + e.col, oy = oy0 + e.row;
        if (ox < out.width && oy < out.height && e.c < out.channels) {
            Out* dst = out.data + oy * out.pitch + static_cast<long long>(ox) * out.channels + e.c;
            if constexpr (std::is_same_v<Out, unsigned char>) *dst = static_cast<unsigned char>(to_u8(static_cast<float>(d.x[i])));
            else *dst = static_cast<Out>(d.x[i]);
        }
    });
}

/// Stores a whole tile as RGBA 8-bit pixels (4-byte aligned rows): in row
/// block nb, lane (g, t) holds channels 2(t&1), +1 of columns g and g + 8 of
/// output row 2nb + (t >> 1); lanes t and t^1 swap a channel pair so each
/// stores one pixel, column g + 8(t & 1). One address per tile, then a
/// fixed stride of two rows per block.
template <class Shape>
__device__ inline void store_tile_rgba8(const image_out<unsigned char>& out, const frag_c<Shape> (&d)[4], int ox0,
                                        int oy0, int lane)
{
    const int t = lane & 3, g = lane >> 2;
    const int ox = ox0 + g + 8 * (t & 1), oy = oy0 + (t >> 1);
    const bool col_ok = ox < out.width;
    unsigned char* p = out.data + static_cast<long long>(col_ok ? oy : 0) * out.pitch + 4ll * (col_ok ? ox : 0);
    const long long stride = 2 * out.pitch;
    static_for<4>([&](auto nb) {
        unsigned q[4];
        static_for<4>([&](auto i) { q[i] = to_u8(static_cast<float>(d[nb].x[i])); });
        const unsigned pair_g = __byte_perm(q[0], q[1], 0x0040u);   // channels c, c+1 of column g
        const unsigned pair_g8 = __byte_perm(q[2], q[3], 0x0040u);  // ... of column g + 8
        const unsigned recv = __shfl_xor_sync(0xffffffffu, (t & 1) ? pair_g : pair_g8, 1);
        const unsigned lo = (t & 1) ? recv : pair_g, hi = (t & 1) ? pair_g8 : recv;
        if (col_ok && oy + 2 * nb < out.height)
            *reinterpret_cast<unsigned*>(p + nb * stride) = __byte_perm(lo, hi, 0x5410u);
    });
}

/// Shared-memory tables of a block (FP16 shapes): per tile of the strip its
/// row band and the B2 fragments of its first max_chunks chunks (computed
/// once per block instead of once per warp), per warp the A1 fragments of
/// up to max_k_blocks k blocks (down-scaling). FP64 tiles use none.
template <class Shape>
struct block_tables {
    static constexpr bool used = tile<Shape>::is_half;
    static constexpr int max_chunks = 4;    ///< B2 cached for chunks 0..3 of a tile (>= 0.8x scale)
    static constexpr int max_k_blocks = 8;  ///< A1 cached for k blocks 0..7 (down to ~1/7.5x)
    static constexpr int band_ints = 8;     ///< lo[4], hi[4] per tile

    /// Bytes for `warps` warps and `strip_tiles` tiles per strip (0 for FP64).
    __host__ __device__ static constexpr std::size_t bytes(int warps, int strip_tiles)
    {
        if (!used) return 0;
        return static_cast<std::size_t>(strip_tiles) * max_chunks * 4 * 32 * sizeof(uint2) +
               static_cast<std::size_t>(warps) * max_k_blocks * 32 * sizeof(uint4) +
               static_cast<std::size_t>(strip_tiles) * band_ints * sizeof(int);
    }
    __device__ static uint2* b2(unsigned char* smem) { return reinterpret_cast<uint2*>(smem); }
    __device__ static uint4* a1(unsigned char* smem, int strip_tiles)
    {
        return reinterpret_cast<uint4*>(smem + static_cast<std::size_t>(strip_tiles) * max_chunks * 4 * 32 * sizeof(uint2));
    }
    __device__ static int* band(unsigned char* smem, int warps, int strip_tiles)
    {
        return reinterpret_cast<int*>(smem + static_cast<std::size_t>(strip_tiles) * max_chunks * 4 * 32 * sizeof(uint2) +
                                      static_cast<std::size_t>(warps) * max_k_blocks * 32 * sizeof(uint4));
    }
};

/// Image rows [lo, hi] that row block nb (output rows oy_t + 2nb, + 1) reads.
template <filter F, class real>
__host__ __device__ inline void row_band(int oy_t, int nb, real scale_y, int& lo, int& hi)
{
    lo = locate<real>(oy_t + 2 * nb, scale_y).i0 + first_tap<F>;
    hi = locate<real>(oy_t + 2 * nb + 1, scale_y).i0 + first_tap<F> + taps<F> - 1;
}

/// One block resamples a strip of `strip_tiles` warp tiles (8 output rows
/// each, from row oy0) for each of its warps' 16-column tiles: warp w
/// (threadIdx.x / 32, 1-D block) takes output columns 16 tile_x .. + 15,
/// where tile_x may lie past the image (the warp then only helps fill the
/// tables). scale_x / scale_y = input / output size. `smem` holds
/// block_tables<Shape>::bytes(warps, strip_tiles) bytes (nullptr for FP64).
/// Every thread of the block must call it (there is a __syncthreads for
/// FP16), and every branch around an MMA is warp-uniform.
/// Vec: RGBA input with 16-byte aligned rows (FP16) and 4-byte aligned RGBA
/// 8-bit output (see load_b1 / store_tile_rgba8).
template <class Backend, class Shape, filter F, bool Vec, class Out>
__device__ inline void resample_block(const image_view& in, const image_out<Out>& out,
                                      typename tile<Shape>::real scale_x, typename tile<Shape>::real scale_y,
                                      int tile_x, int oy0, int strip_tiles, unsigned char* smem)
{
    using T = tile<Shape>;
    using Tab = block_tables<Shape>;
    using real = typename T::real;
    using W = weights_of<Shape, F>;
    const int lane = lane_id();
    const int g = lane >> 2;
    const int warp = static_cast<int>(threadIdx.x >> 5), warps = static_cast<int>(blockDim.x >> 5);
    const int ox0 = T::cols * tile_x;
    const bool active = ox0 < out.width;  // warp-uniform

    // Product 1's k blocks: the texels under the tile's output columns,
    // from a 4-aligned start (16-byte loads), 16 per block.
    const int ox_last = min(ox0 + T::cols - 1, out.width - 1);
    const int x_lo = locate<real>(ox0, scale_x).i0 + first_tap<F>;
    const int x_hi = locate<real>(ox_last, scale_x).i0 + first_tap<F> + taps<F> - 1;
    const int xs = x_lo & ~3;
    const int k_blocks = (x_hi - xs) / T::texels + 1;
    const W wx[2] = {make_weights<Shape, F>(ox0 + g, scale_x), make_weights<Shape, F>(ox0 + g + 8, scale_x)};
    const frag_a<Shape> a1_first = make_a1<Shape, F>(lane, wx, xs);

    if constexpr (Tab::used) {
        // Tables: warp w fills the bands and B2 fragments of tiles w, w + warps, ...
        uint2* b2_tab = Tab::b2(smem);
        int* band_tab = Tab::band(smem, warps, strip_tiles);
        for (int ti = warp; ti < strip_tiles; ti += warps) {
            const int oy_t = oy0 + T::rows * ti;
            int lo[T::row_blocks], hi[T::row_blocks];
            static_for<T::row_blocks>([&](auto nb) { row_band<F, real>(oy_t, nb, scale_y, lo[nb], hi[nb]); });
            if (lane < T::row_blocks) {
                int l = lo[0], h = hi[0];
                static_for<T::row_blocks>([&](auto nb) {
                    if (lane == nb) l = lo[nb], h = hi[nb];
                });
                band_tab[Tab::band_ints * ti + lane] = l;
                band_tab[Tab::band_ints * ti + T::row_blocks + lane] = h;
            }
            const int chunks = min((hi[T::row_blocks - 1] - lo[0]) / T::chunk_rows + 1, Tab::max_chunks);
            static_for<T::row_blocks>([&](auto nb) {
                const W wy = make_weights<Shape, F>(oy_t + 2 * nb + (g >> 2), scale_y);
                for (int c = 0; c < chunks; ++c) {
                    const frag_b<Shape> b2 = make_b2<Shape, F>(lane, wy, lo[0] + T::chunk_rows * c);
                    b2_tab[((ti * Tab::max_chunks + c) * T::row_blocks + nb) * 32 + lane] =
                        make_uint2(half_reg(b2, 0), half_reg(b2, 1));
                }
            });
        }
        // This warp's A1 of k blocks 1 .. max_k_blocks - 1 (block 0 stays in registers).
        uint4* a1_tab = Tab::a1(smem, strip_tiles) + static_cast<std::size_t>(warp) * Tab::max_k_blocks * 32;
        for (int kb = 1; kb < min(k_blocks, Tab::max_k_blocks); ++kb) {
            const frag_a<Shape> a = make_a1<Shape, F>(lane, wx, xs + T::texels * kb);
            a1_tab[kb * 32 + lane] = make_uint4(half_reg(a, 0), half_reg(a, 1), half_reg(a, 2), half_reg(a, 3));
        }
        __syncthreads();
    }
    if (!active) return;

#pragma unroll 1
    for (int tile_i = 0; tile_i < strip_tiles; ++tile_i) {
        const int oy_t = oy0 + T::rows * tile_i;
        if (oy_t >= out.height) break;
        int lo[T::row_blocks], hi[T::row_blocks];  // image rows each row block reads (uniform)
        if constexpr (Tab::used) {
            const int* band = Tab::band(smem, warps, strip_tiles) + Tab::band_ints * tile_i;
            static_for<T::row_blocks>([&](auto nb) {
                lo[nb] = band[nb];
                hi[nb] = band[T::row_blocks + nb];
            });
        } else {
            static_for<T::row_blocks>([&](auto nb) { row_band<F, real>(oy_t, nb, scale_y, lo[nb], hi[nb]); });
        }
        frag_c<Shape> d2[T::row_blocks];
        static_for<T::row_blocks>([&](auto nb) { fill(d2[nb], 0.0f); });

#pragma unroll 1
        for (int c = 0, yc = lo[0]; yc <= hi[T::row_blocks - 1]; ++c, yc += T::chunk_rows) {
            frag_c<Shape> d1[2];
            fill(d1[0], 0.0f);
            fill(d1[1], 0.0f);
#pragma unroll 1
            for (int kb = 0; kb < k_blocks; ++kb) {
                frag_a<Shape> a1 = a1_first;
                if (kb > 0) {
                    if constexpr (Tab::used) {
                        if (kb < Tab::max_k_blocks) {
                            const uint4 r = Tab::a1(smem, strip_tiles)[(warp * Tab::max_k_blocks + kb) * 32 + lane];
                            set_half_reg(a1, 0, r.x), set_half_reg(a1, 1, r.y);
                            set_half_reg(a1, 2, r.z), set_half_reg(a1, 3, r.w);
                        } else {
                            a1 = make_a1<Shape, F>(lane, wx, xs + T::texels * kb);
                        }
                    } else {
                        a1 = make_a1<Shape, F>(lane, wx, xs + T::texels * kb);
                    }
                }
                frag_b<Shape> b1[2];
                load_b1<Shape, Vec>(b1[0], in, xs + T::texels * kb, yc, 0, lane);
                load_b1<Shape, Vec>(b1[1], in, xs + T::texels * kb, yc, 1, lane);
                mma<Backend>(d1[0], a1, b1[0], d1[0]);
                mma<Backend>(d1[1], a1, b1[1], d1[1]);
            }
            // D1 (16 columns x [2 rows x 4 channels] twice) -> A2, no trip through memory.
            // FP64 relabels k in place; make_b2 generates B2 in that order.
            using a2_label = std::conditional_t<T::is_half, standard_k, relabelled_k<0>>;
            frag_a<Shape, a2_label> a2;
            if constexpr (T::is_half) a2 = reuse_a<typename Shape::c_type>(d1[0], d1[1]);
            else a2 = reuse_a(d1[0], d1[1]);
            static_for<T::row_blocks>([&](auto nb) {
                if (yc <= hi[nb] && yc + T::chunk_rows - 1 >= lo[nb]) {
                    frag_b<Shape> b2;
                    bool cached = false;
                    if constexpr (Tab::used) {
                        if (c < Tab::max_chunks) {
                            const uint2 r = Tab::b2(smem)[((tile_i * Tab::max_chunks + c) * T::row_blocks + nb) * 32 + lane];
                            set_half_reg(b2, 0, r.x), set_half_reg(b2, 1, r.y);
                            cached = true;
                        }
                    }
                    if (!cached) {
                        const W wy = make_weights<Shape, F>(oy_t + 2 * nb + (g >> 2), scale_y);
                        b2 = make_b2<Shape, F>(lane, wy, yc);
                    }
                    mma<Backend>(d2[nb], a2, with_k_label<a2_label>(b2), d2[nb]);
                }
            });
        }
        if constexpr (Vec && std::is_same_v<Out, unsigned char>) {
            store_tile_rgba8<Shape>(out, d2, ox0, oy_t, lane);
        } else {
            static_for<T::row_blocks>([&](auto nb) { store_d2<Shape>(out, d2[nb], nb, ox0, oy_t, lane); });
        }
    }
}

// -- the staged FP16 path: block-wide input staging, contiguous or gathered rows ------------
//
// resample_block above walks contiguous 4-row chunks and loads product 1's
// B straight from global memory, one dependent load per MMA pair: latency
// bound, and at down-scaling most chunk rows have weight 0. The staged path
// (FP16 shapes, tc-f16 / cc-f16) instead:
//  * stages the image rows the block reads once (contiguous rows, below),
//    or, where 2 output rows read more than 2 taps rows (down-scaling by
//    more than about taps), gives every output row its own `taps` image
//    rows (gathered, clamped to the edge), so product 2's k block holds
//    exactly the rows the row block (2 output rows) needs: bilinear one
//    chunk [a0 a1 b0 b1], bicubic two chunks [a0..a3], [b0..b3] (a, b the
//    two output rows);
//  * copies those rows over the block's texel window into shared memory,
//    channel-planar (per 4 texels one word per channel, so a lane's B1 is
//    one 4-byte load; RGB expanded to 4 channels, the fourth unused), eight
//    loads in flight per thread, then runs the MMAs out of shared memory;
//  * rounds to 8 bits on the FP32 pipe (u8_low_byte) and stores whole
//    words: an RGBA pixel per lane, RGB rows as 4-byte words;
//  * computes the A1 fragments of a warp's columns and the B2 fragments of
//    the block's row blocks once per block (they depend on the output column
//    / row only), in shared memory.
// A block is staged_warps warps side by side (16 output columns each) and
// plan.block_rows output rows; the host picks block_rows so the staging fits
// a shared-memory budget (staged_plan), and falls back to resample_block
// where even 2 rows do not (extreme down-scaling).
//
// Contiguous rows (plan.contiguous; up-scaling and down-scaling by less
// than about taps): where every group of 2 G output rows (G row blocks)
// reads image rows i0(first) + first_tap .. i0(last) + first_tap + taps - 1
// with i0(last) - i0(first) <= taps (checked for every group by
// shared_row_blocks), the block stages the contiguous image rows from
// i0(oy0) + first_tap once (each row read once per block, where gathered
// rows read a row once per output row that uses it). Group g's product 1
// and the reuse into A2 run once, over the 2 taps rows from its offset
// i0(first) - i0(oy0), and each of its row blocks runs only product 2 with
// its own B2 (the taps of its output rows at their offsets in those rows).
// Only the texels the block's columns read are loaded; the rest of a row,
// read by the last k block with weight 0, is set to 0.

inline constexpr int staged_warps = 4;                  ///< warps (16-column tiles) per block
inline constexpr int staged_cols = 16 * staged_warps;   ///< output columns per block

/// Product 1's texel window of the 16 output columns from ox0: a 4-aligned
/// start and the number of 16-texel k blocks.
struct texel_window {
    int xs, k_blocks;
};
template <filter F>
__host__ __device__ inline texel_window warp_window(int ox0, int out_width, float scale_x)
{
    const int ox_last = ox0 + 15 < out_width - 1 ? ox0 + 15 : out_width - 1;
    const int x_lo = locate<float>(ox0, scale_x).i0 + first_tap<F>;
    const int x_hi = locate<float>(ox_last, scale_x).i0 + first_tap<F> + taps<F> - 1;
    const int xs = x_lo & ~3;
    return {xs, (x_hi - xs) / 16 + 1};
}

/// First texel (4-aligned) of block column bx's staged window.
template <filter F>
__host__ __device__ inline int block_x0(int bx, float scale_x)
{
    return (locate<float>(staged_cols * bx, scale_x).i0 + first_tap<F>) & ~3;
}

/// Image row held by staged row `slot` of the block whose first output row
/// is oy0. Gathered (contiguous = false): output row oy0 + slot / taps
/// (clamped to the output), tap slot % taps. Contiguous rows: image row
/// i0(oy0) + first_tap + slot. Clamped to the image.
template <filter F>
__host__ __device__ inline int staged_row(int slot, int oy0, int out_height, int in_height, float scale_y,
                                          bool contiguous = false)
{
    if (contiguous) return clamp_index(locate<float>(oy0, scale_y).i0 + first_tap<F> + slot, in_height);
    const int oy = oy0 + slot / taps<F> < out_height ? oy0 + slot / taps<F> : out_height - 1;
    return clamp_index(locate<float>(oy, scale_y).i0 + first_tap<F> + slot % taps<F>, in_height);
}

/// First output row of the shared-rows group holding output row oy
/// (group_blocks row blocks, groups aligned to 2 group_blocks rows), clamped.
__host__ __device__ inline int group_first_row(int oy, int group_blocks, int out_height)
{
    const int oyg = oy - oy % (2 * group_blocks);
    return oyg < out_height ? oyg : out_height - 1;
}

/// First output row of the last group (2 group_blocks rows) of the block
/// from oy0 with block_rows rows that lies in the output, or a row after it
/// (min(oy0 + block_rows - 2 G, out_height - 1)): its i0 bounds the
/// contiguous rows a block reads.
__host__ __device__ inline int last_group_row(int oy0, int block_rows, int group_blocks, int out_height)
{
    const int oyl = oy0 + block_rows - 2 * group_blocks;
    return oyl < out_height - 1 ? oyl : out_height - 1;
}

/// The largest G in {max_group, .., 1} (powers of 2) such that every group of
/// 2 G output rows (aligned to 2 G, the last one cut at out_height) has
/// i0(last) - i0(first) <= taps, i.e. reads at most 2 taps contiguous image
/// rows; 0 if none (down-scaling by more than about taps). Evaluated with
/// the device's FP32 positions (locate<float>, bit-identical on the host).
template <filter F>
inline int shared_row_blocks(int out_height, float scale_y, int max_group = 4)
{
    for (int G = max_group; G >= 1; G /= 2) {
        if ((2 * G - 1) * static_cast<double>(scale_y) > taps<F> + 0.01) continue;
        bool fits = true;
        for (int oyg = 0; oyg < out_height && fits; oyg += 2 * G) {
            const int last = oyg + 2 * G - 1 < out_height ? oyg + 2 * G - 1 : out_height - 1;
            fits = locate<float>(last, scale_y).i0 - locate<float>(oyg, scale_y).i0 <= taps<F>;
        }
        if (fits) return G;
    }
    return 0;
}

/// Launch geometry and shared-memory layout of the staged path.
struct staged_plan {
    int block_rows = 0;       ///< output rows per block (even)
    int row_texels = 0;       ///< texels per staged row (16 mod 32), window plus 16 for the last k block
    int k_blocks = 0;         ///< most product-1 k blocks a warp needs
    int taps = 0;
    bool contiguous = false;  ///< staged rows are contiguous image rows (else gathered per output row)
    int group_blocks = 1;     ///< contiguous: row blocks per group sharing product 1 (block_rows % (2 group_blocks) == 0)
    int stage_rows = 0;       ///< contiguous: staged rows a block may need (i0(last group) - i0(oy0) + 2 taps)
    bool usable = false;      ///< false: use resample_block

    __host__ __device__ int slots() const { return contiguous ? stage_rows : block_rows * taps; }
    __host__ __device__ int chunks() const { return block_rows / 2 * (taps / 2); }  ///< product-2 k blocks per block
    __host__ __device__ std::size_t stage_bytes() const { return static_cast<std::size_t>(slots()) * row_texels * 4; }
    __host__ __device__ std::size_t b2_bytes() const { return static_cast<std::size_t>(chunks()) * 32 * sizeof(uint2); }
    __host__ __device__ std::size_t a1_bytes() const
    {
        return static_cast<std::size_t>(staged_warps) * (k_blocks > 1 ? k_blocks - 1 : 0) * 32 * sizeof(uint4);
    }
    __host__ __device__ std::size_t smem_bytes() const { return stage_bytes() + b2_bytes() + a1_bytes(); }
};

/// The plan for in -> out sizes: the window bound covers any 64 columns
/// (63 scale + taps, alignment and FP32 rounding slack). Contiguous rows
/// where shared_row_blocks finds a group size (up to max_group; 0 turns
/// them off: gathered rows), stage_rows the largest i0(last group) - i0(oy0)
/// + 2 taps over the blocks (FP32 positions, as the device). block_rows is
/// the largest multiple of 2 group_blocks up to max_rows that fits `budget`
/// bytes, lowered while the grid would have fewer than `min_blocks` blocks.
template <filter F>
inline staged_plan plan_staged(int in_width, int out_width, int in_height, int out_height, std::size_t budget,
                               int max_rows = 32, long long min_blocks = 1056, int max_group = 4)
{
    require(in_width > 0 && out_width > 0 && in_height > 0 && out_height > 0, "plan_staged",
            "sizes must be positive (got " + std::to_string(in_width) + "x" + std::to_string(in_height) + " -> " +
                std::to_string(out_width) + "x" + std::to_string(out_height) + ")");
    staged_plan p;
    p.taps = taps<F>;
    const float sx = static_cast<float>(static_cast<double>(in_width) / out_width);
    const float sy = static_cast<float>(static_cast<double>(in_height) / out_height);
    while (max_group > 1 && 2 * max_group > max_rows) max_group /= 2;
    const int G = max_group > 0 ? shared_row_blocks<F>(out_height, sy, max_group) : 0;
    p.contiguous = G > 0;
    p.group_blocks = G > 0 ? G : 1;
    const int row_step = 2 * p.group_blocks;
    // Window plus 16 texels, rounded to 16 (mod 32) texels so that the two
    // staged rows of one B1 load fall in disjoint shared-memory banks.
    const int span = static_cast<int>(std::ceil(63.0 * sx)) + taps<F> + 8;
    p.row_texels = (span + 31) / 32 * 32 + 16;
    p.k_blocks = (static_cast<int>(std::ceil(15.0 * sx)) + taps<F> + 8) / 16 + 1;
    const long long col_blocks = (out_width + staged_cols - 1) / staged_cols;
    for (int rows = max_rows / row_step * row_step; rows >= row_step; rows -= row_step) {
        p.block_rows = rows;
        if (p.contiguous) {
            p.stage_rows = 0;
            for (int oy0 = 0; oy0 < out_height; oy0 += rows) {
                const int oyl = last_group_row(oy0, rows, p.group_blocks, out_height);
                const int need = locate<float>(oyl, sy).i0 - locate<float>(oy0, sy).i0 + 2 * taps<F>;
                p.stage_rows = need > p.stage_rows ? need : p.stage_rows;
            }
        }
        if (p.smem_bytes() > budget) continue;
        const long long blocks = col_blocks * ((out_height + rows - 1) / rows);
        if (blocks < min_blocks && rows > 8) continue;
        p.usable = (out_height + rows - 1) / rows <= 65535;
        return p;
    }
    p.usable = false;
    return p;
}

/// Texels x .. x + 3 of image row `row` (clamped to the image) as four
/// RGBA words. Aligned: RGBA rows 16-byte aligned (one 16-byte load inside
/// the image) or RGB rows 4-byte aligned (three words, expanded); otherwise
/// byte by byte. Byte 3 of an RGB texel is not a channel (never stored).
template <int C, bool Aligned>
__device__ inline uint4 load_group(const unsigned char* row, int x, int width)
{
    const bool inside = x >= 0 && x + 3 < width;
    if constexpr (C == 4 && Aligned) {
        if (inside) return __ldg(reinterpret_cast<const uint4*>(row + 4ll * x));
        unsigned q[4];
        static_for<4>([&](auto e) { q[e] = __ldg(reinterpret_cast<const unsigned*>(row + 4ll * clamp_index(x + e, width))); });
        return make_uint4(q[0], q[1], q[2], q[3]);
    } else if constexpr (C == 3 && Aligned) {
        if (inside) {
            const unsigned* w = reinterpret_cast<const unsigned*>(row + 3ll * x);  // x % 4 == 0: 4-byte aligned
            const unsigned a = __ldg(w), b = __ldg(w + 1), c = __ldg(w + 2);    // r0g0b0r1 g1b1r2g2 b2r3g3b3
            return make_uint4(a, __byte_perm(a, b, 0x5543u), __byte_perm(b, c, 0x4432u), __byte_perm(c, c, 0x3321u));
        }
    }
    unsigned q[4];
    static_for<4>([&](auto e) {
        const unsigned char* p = row + static_cast<long long>(C) * clamp_index(x + e, width);
        unsigned v = 0;
        static_for<C>([&](auto c) { v |= static_cast<unsigned>(__ldg(p + c)) << (8 * c); });
        q[e] = v;
    });
    return make_uint4(q[0], q[1], q[2], q[3]);
}

/// __byte_perm on host and device: byte i of the result is byte
/// (s >> 4i) & 7 of the 8 bytes [x, y].
__host__ __device__ inline unsigned byte_perm(unsigned x, unsigned y, unsigned s)
{
#if defined(__CUDA_ARCH__)
    return __byte_perm(x, y, s);
#else
    const unsigned long long xy = x | (static_cast<unsigned long long>(y) << 32);
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((xy >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
#endif
}

/// Four RGBA words (texels 0..3) to channel-planar words: word c holds
/// channel c of texels 0..3 (byte i = texel i), a 4x4 byte transpose.
__host__ __device__ inline uint4 channel_planar(uint4 v)
{
    const unsigned a = byte_perm(v.x, v.y, 0x5140u), b = byte_perm(v.z, v.w, 0x5140u);  // [x0 y0 x1 y1], [z0 w0 z1 w1]
    const unsigned c = byte_perm(v.x, v.y, 0x7362u), d = byte_perm(v.z, v.w, 0x7362u);  // [x2 y2 x3 y3], [z2 w2 z3 w3]
    return make_uint4(byte_perm(a, b, 0x5410u), byte_perm(a, b, 0x7632u), byte_perm(c, d, 0x5410u),
                      byte_perm(c, d, 0x7632u));
}

/// Bytes 0, 1 (low half) and 2, 3 (high half) of w... as an exact half2:
/// 1024 + byte built from the bits, then 1024 subtracted. Hi picks bytes 2, 3.
template <bool Hi>
__device__ inline unsigned planar_to_half2(unsigned w)
{
    const unsigned h = __byte_perm(w, 0x64646464u, Hi ? 0x4342u : 0x4140u);  // [b, 0x64, b', 0x64]
    const __half2 v = __hsub2(*reinterpret_cast<const __half2*>(&h), __floats2half2_rn(1024.0f, 1024.0f));
    return *reinterpret_cast<const unsigned*>(&v);
}

/// The 8-bit level of v in the low byte (upper bytes not 0), on the FP32
/// pipe: clamp to [0, 255] (NaN -> 0), then add 1.5 * 2^23 so that the FP32
/// addition rounds to the nearest integer, ties to even, exactly as to_u8.
/// MaybeNegative = false skips the lower clamp where v >= 0 or v is -0 (bilinear:
/// non-negative weights and texels).
template <bool MaybeNegative = true>
__host__ __device__ inline unsigned u8_low_byte(float v)
{
    const float r = fminf(MaybeNegative ? fmaxf(v, 0.0f) : v, 255.0f) + 12582912.0f;
#if defined(__CUDA_ARCH__)
    return __float_as_uint(r);
#else
    unsigned u;
    std::memcpy(&u, &r, sizeof u);
    return u;
#endif
}

/// B2 of chunk ch of a row block whose staged rows hold the taps of the
/// lane's output row (the row of its B column) at slots first_slot ..
/// first_slot + taps - 1: k row (chunk row r, channel c) is slot s = 4 ch +
/// r, weight wbits[s - first_slot] where that is a tap, else 0; `wbits` are
/// the FP16 weights (bits) of the lane's output row.
template <class Shape, filter F>
__host__ __device__ inline frag_b<Shape> make_b2_rows(int lane, const unsigned (&wbits)[taps<F>], int ch,
                                                      int first_slot)
{
    using T = tile<Shape>;
    static_assert(T::is_half, "the staged path is FP16");
    frag_b<Shape> b;
    static_for<Shape::b_count / 2>([&](auto r) {
        const typename T::b2_elem lo = T::b2(lane, 2 * r), hi = T::b2(lane, 2 * r + 1);
        const int j_of_s = 4 * ch + lo.row - first_slot;
        unsigned h = 0;
        static_for<taps<F>>([&](auto j) {
            if (j_of_s == j) h = wbits[j];
        });
        set_half_reg(b, r, lo.c == lo.out_c ? h : (hi.c == hi.out_c ? h << 16 : 0u));
    });
    return b;
}

/// B2 of chunk ch of a gathered row block: slot s = 4 ch + r is tap s % taps
/// of output row s / taps (make_b2_rows with first_slot = out_row taps).
template <class Shape, filter F>
__host__ __device__ inline frag_b<Shape> make_b2_staged(int lane, const unsigned (&wbits)[taps<F>], int ch)
{
    return make_b2_rows<Shape, F>(lane, wbits, ch, tile<Shape>::b2(lane, 0).out_row * taps<F>);
}

/// FP16 weight bits of output index d (FP32 position and weights, rounded).
template <filter F>
__host__ __device__ inline void weight_bits(int d, float scale, unsigned (&bits)[taps<F>])
{
    float w[taps<F>];
    weights<F>(locate<float>(d, scale).a, w);
    static_for<taps<F>>([&](auto j) { bits[j] = half_bits(w[j]); });
}

/// D2 of one row block (output rows oy, oy + 1) as one pixel per lane: lanes
/// t and t^1 swap a channel pair, so lane (g, t) ends with all 4 channel
/// bytes of column g + 8 (t & 1), row oy + (t >> 1) (its index: pixel_lane).
template <class Shape, bool MaybeNegative = true>
__device__ inline unsigned pixel_word(const frag_c<Shape>& d, int lane)
{
    const int t = lane & 3;
    unsigned q[4];
    static_for<4>([&](auto i) { q[i] = u8_low_byte<MaybeNegative>(static_cast<float>(d.x[i])); });
    const unsigned pair_g = __byte_perm(q[0], q[1], 0x0040u);   // channels c, c+1 of column g
    const unsigned pair_g8 = __byte_perm(q[2], q[3], 0x0040u);  // ... of column g + 8
    const unsigned recv = __shfl_xor_sync(0xffffffffu, (t & 1) ? pair_g : pair_g8, 1);
    const unsigned lo = (t & 1) ? recv : pair_g, hi = (t & 1) ? pair_g8 : recv;
    return __byte_perm(lo, hi, 0x5410u);
}
/// The lane whose pixel_word is column col (0..15), row r (0, 1) of the row block.
__host__ __device__ constexpr int pixel_lane(int col, int r) { return 4 * (col & 7) + 2 * r + (col >> 3); }

/// Word k of RGB row r (0, 1) of a row block: bytes 4k .. 4k + 3 are pixel
/// p0's bytes from 4k - 3 p0 on, then pixel p0 + 1's (byte_perm selector).
/// Lanes 0..23 store words (r, k) = (lane / 12, lane % 12); 24..31 repeat 16..23.
struct rgb_word {
    int r, k, p0;
    unsigned select;
};
__host__ __device__ constexpr rgb_word rgb_word_of(int lane)
{
    const int wl = lane < 24 ? lane : lane - 8;
    const int r = wl >= 12 ? 1 : 0, k = wl - 12 * r;
    const int p0 = (4 * k) / 3, off = 4 * k - 3 * p0;
    return {r, k, p0, off == 0 ? 0x4210u : (off == 1 ? 0x5421u : 0x6542u)};
}

/// This lane's RGB word `w` from the lanes' pixel words (two shuffles).
__device__ inline unsigned rgb_word_from(unsigned px, const rgb_word& w)
{
    const unsigned first = __shfl_sync(0xffffffffu, px, pixel_lane(w.p0, w.r));
    const unsigned second = __shfl_sync(0xffffffffu, px, pixel_lane(w.p0 + 1, w.r));
    return __byte_perm(first, second, w.select);
}

/// Stores a row block element by element (any channel count and pitch).
template <class Shape>
__device__ inline void store_pair_bytes(const image_out<unsigned char>& out, const frag_c<Shape>& d, int ox0, int oy,
                                        int lane)
{
    using T = tile<Shape>;
    static_for<4>([&](auto i) {
        const typename T::d2_elem e = T::d2(lane, i, 0);
        const int ox = ox0 + e.col, y = oy + e.row;
        if (ox < out.width && y < out.height && e.c < out.channels)
            out.data[static_cast<long long>(y) * out.pitch + static_cast<long long>(ox) * out.channels + e.c] =
                static_cast<unsigned char>(u8_low_byte(static_cast<float>(d.x[i])));
    });
}

/// One block of the staged path: output columns staged_cols bx .. + 63
/// (warp w: 16 w .. 16 w + 15), rows plan.block_rows by .. + block_rows - 1.
/// `smem` holds plan.smem_bytes() bytes (16-byte aligned). Every thread
/// calls it (one __syncthreads). InAligned: RGBA rows 16-byte aligned or RGB
/// rows 4-byte aligned (load_group); OutWords: 4-byte aligned output rows
/// (RGBA: a pixel per lane, RGB: 24 words per row block), else byte stores.
/// Contiguous: plan.contiguous (the caller dispatches on it). PairRows
/// (contiguous plans with group_blocks >= 2): the row blocks of a group two
/// at a time, two independent product-2 / rounding / store chains.
template <class Backend, class Shape, filter F, int C, bool InAligned, bool OutWords, bool Contiguous = false,
          bool PairRows = false>
__device__ inline void resample_staged_block(const image_view& in, const image_out<unsigned char>& out, float scale_x,
                                             float scale_y, const staged_plan& plan, int bx, int by,
                                             unsigned char* smem)
{
    using T = tile<Shape>;
    static_assert(T::is_half, "the staged path is FP16");
    constexpr int n_taps = taps<F>, chunks_per_block = n_taps / 2;
    const int lane = lane_id(), g = lane >> 2, t = lane & 3;
    const int warp = static_cast<int>(threadIdx.x >> 5);
    const int xw0 = block_x0<F>(bx, scale_x);
    const int row_bytes = 4 * plan.row_texels;
    unsigned char* stage = smem;
    uint2* b2_tab = reinterpret_cast<uint2*>(smem + plan.stage_bytes());
    uint4* a1_tab = reinterpret_cast<uint4*>(smem + plan.stage_bytes() + plan.b2_bytes()) +
                    static_cast<std::size_t>(warp) * (plan.k_blocks - 1) * 32;

    // A1 of this warp's columns: k block 0 in registers, the rest in shared memory.
    const int ox0 = staged_cols * bx + 16 * warp;
    const bool active = ox0 < out.width;  // warp-uniform
    const texel_window win = warp_window<F>(ox0, out.width, scale_x);
    const half_weights wx[2] = {make_half_weights<F>(locate<float>(ox0 + g, scale_x)),
                                make_half_weights<F>(locate<float>(ox0 + g + 8, scale_x))};
    const frag_a<Shape> a1_first = make_a1<Shape, F>(lane, wx, win.xs);
    if (active)
        for (int kb = 1; kb < win.k_blocks; ++kb) {
            const frag_a<Shape> a = make_a1<Shape, F>(lane, wx, win.xs + 16 * kb);
            a1_tab[(kb - 1) * 32 + lane] = make_uint4(half_reg(a, 0), half_reg(a, 1), half_reg(a, 2), half_reg(a, 3));
        }

    const int oy0 = plan.block_rows * by;
    const int i0_first = locate<float>(oy0, scale_y).i0;  // contiguous: staged row s is i0_first + first_tap + s

    // Staged rows, channel-planar: warp w fills slots w, w + 4, ..; its
    // (slot, 4-texel group) items are dealt to the lanes in turn, `batch`
    // loads per lane in flight before their stores. Groups past the texels
    // the block's columns read (up to the warps' last k blocks) are 0. The
    // transpose (channel_planar) runs in the store loop, after the batch's
    // loads are issued: applied right after each load it made every load wait
    // for the one before (one load in flight per lane), which measured
    // slower on the DRAM-streaming down-scales (examples/interp/README.md).
    {
        const int last_col = min(staged_cols * bx + staged_cols - 1, out.width - 1);
        const int loaded = ((locate<float>(last_col, scale_x).i0 + first_tap<F> + n_taps - 1 - xw0) >> 2) + 1;
        // A warp's window ends at most 16 texels past its last tap (warp_window).
        const int groups = min(loaded + 3, plan.row_texels / 4);
        const int slots =
            Contiguous ? locate<float>(last_group_row(oy0, plan.block_rows, plan.group_blocks, out.height), scale_y).i0 -
                             i0_first + 2 * n_taps
                       : plan.slots();
        const int items = (slots - warp + staged_warps - 1) / staged_warps * groups;
        // Item i is slot warp + 4 (i / groups), group i % groups; the quotient
        // in FP32 is exact: (i + 1/2) / groups is at least 1/(2 groups) from
        // an integer, far more than the rounding error for these sizes.
        const float inv_groups = 1.0f / static_cast<float>(groups);
        constexpr int batch = 8;
        for (int i0 = lane; i0 < items; i0 += 32 * batch) {
            uint4 v[batch];
            int at[batch];
            static_for<batch>([&](auto k) {
                const int i = i0 + 32 * k;
                const int j = static_cast<int>((static_cast<float>(i) + 0.5f) * inv_groups);
                const int gi = i - j * groups, s = warp + staged_warps * j;
                at[k] = i < items ? s * row_bytes + 16 * gi : -1;
                v[k] = make_uint4(0u, 0u, 0u, 0u);
                if (i < items && gi < loaded) {
                    const int y = Contiguous ? clamp_index(i0_first + first_tap<F> + s, in.height)
                                             : staged_row<F>(s, oy0, out.height, in.height, scale_y);
                    v[k] = load_group<C, InAligned>(in.data + y * in.pitch, xw0 + 4 * gi, in.width);
                }
            });
            static_for<batch>([&](auto k) {
                if (at[k] >= 0) *reinterpret_cast<uint4*>(stage + at[k]) = channel_planar(v[k]);  // 0 stays 0
            });
        }
    }

    // B2 of every chunk of the block (row block nb = e / chunks_per_block).
    for (int e = warp; e < plan.chunks(); e += staged_warps) {
        const int nb = e / chunks_per_block, ch = e % chunks_per_block;
        const int oy = min(oy0 + 2 * nb + (g >> 2), out.height - 1);
        unsigned wb[n_taps];
        weight_bits<F>(oy, scale_y, wb);
        frag_b<Shape> b;
        if constexpr (Contiguous) {
            // group_first_row(oy0 + 2 nb): G is a power of 2 and oy0 a multiple of 2 G.
            const int oyg = min(oy0 + 2 * (nb & -plan.group_blocks), out.height - 1);
            b = make_b2_rows<Shape, F>(lane, wb, ch, locate<float>(oy, scale_y).i0 - locate<float>(oyg, scale_y).i0);
        } else {
            b = make_b2_staged<Shape, F>(lane, wb, ch);
        }
        b2_tab[e * 32 + lane] = make_uint2(half_reg(b, 0), half_reg(b, 1));
    }

    __syncthreads();
    if (!active) return;

    // This lane's B1: staged slot s + 2 n1 + (g >> 2), channel g & 3 of texels
    // 4t .. 4t + 3 of the k block (tile::b1): one planar word.
    const unsigned char* b1_base = stage + (g >> 2) * row_bytes + 4 * (win.xs - xw0 + 4 * t) + 4 * (g & 3);
    // This lane's output word (row block 0; + 2 pitch per row block): RGBA one
    // pixel (pixel_word), RGB word k of row r (rgb_word_of), for full tiles.
    const bool full_tile = ox0 + 16 <= out.width;  // warp-uniform
    const int px_col = ox0 + g + 8 * (t & 1), px_row = t >> 1;
    const rgb_word rw = rgb_word_of(lane);
    unsigned char* out_word = C == 4 ? out.data + static_cast<long long>(oy0 + px_row) * out.pitch + 4ll * (px_col < out.width ? px_col : 0)
                                     : out.data + static_cast<long long>(oy0 + rw.r) * out.pitch + 3ll * ox0 + 4 * rw.k;
    const long long row_block_pitch = 2 * out.pitch;

    // Product 1 and the reuse of the staged rows from slot s (s .. s + 3) into
    // A2. OneK: every output column's taps lie in one k block (warp-uniform),
    // so D1 needs one MMA pair and no accumulator.
    auto chunk_a2 = [&](int s, auto one_k) {
        constexpr bool OneK = decltype(one_k)::value;
        frag_c<Shape> d1[2];
        fill(d1[0], 0.0f);
        fill(d1[1], 0.0f);
        const unsigned char* p = b1_base + s * row_bytes;
        auto k_block = [&](int kb, const frag_a<Shape>& a1) {
            static_for<2>([&](auto n1) {
                const unsigned w = *reinterpret_cast<const unsigned*>(p + 2 * n1 * row_bytes + 64 * kb);
                frag_b<Shape> b1;
                set_half_reg(b1, 0, planar_to_half2<false>(w));
                set_half_reg(b1, 1, planar_to_half2<true>(w));
                mma<Backend>(d1[n1], a1, b1, d1[n1]);
            });
        };
        k_block(0, a1_first);
        if constexpr (!OneK) {
#pragma unroll 1
            for (int kb = 1; kb < win.k_blocks; ++kb) {
                const uint4 r = a1_tab[(kb - 1) * 32 + lane];
                frag_a<Shape> a1;
                set_half_reg(a1, 0, r.x), set_half_reg(a1, 1, r.y);
                set_half_reg(a1, 2, r.z), set_half_reg(a1, 3, r.w);
                k_block(kb, a1);
            }
        }
        return reuse_a<typename Shape::c_type>(d1[0], d1[1]);
    };
    // Product 2 of chunk q of row block nb: d2 += A2 B2(nb, ch).
    auto product2 = [&](frag_c<Shape>& d2, const frag_a<Shape>& a2, int q) {
        const uint2 r = b2_tab[q * 32 + lane];
        frag_b<Shape> b2;
        set_half_reg(b2, 0, r.x), set_half_reg(b2, 1, r.y);
        mma<Backend>(d2, a2, b2, d2);
    };
    // Rounds and stores row block (rows oy, oy + 1) at out_word.
    auto store_row_block = [&](const frag_c<Shape>& d2, int oy, unsigned char* word) {
        if constexpr (OutWords && C == 4) {
            const unsigned px = pixel_word<Shape, F == filter::bicubic>(d2, lane);
            if (px_col < out.width && oy + px_row < out.height) *reinterpret_cast<unsigned*>(word) = px;
        } else if constexpr (OutWords && C == 3) {
            if (full_tile) {
                const unsigned w = rgb_word_from(pixel_word<Shape, F == filter::bicubic>(d2, lane), rw);
                if (lane < 24 && oy + rw.r < out.height) *reinterpret_cast<unsigned*>(word) = w;
            } else {
                store_pair_bytes<Shape>(out, d2, ox0, oy, lane);
            }
        } else {
            store_pair_bytes<Shape>(out, d2, ox0, oy, lane);
        }
    };

    auto row_blocks = [&](auto one_k) {
        if constexpr (Contiguous) {
            // Groups of G row blocks: product 1 once per chunk of the group's
            // 2 taps rows (from its offset in the staged rows), product 2 per row block.
            const int G = plan.group_blocks;
#pragma unroll 1
            for (int gq = 0; gq < plan.block_rows / (2 * G); ++gq) {
                const int oyg = oy0 + 2 * G * gq;
                if (oyg >= out.height) break;
                const int s0 = locate<float>(oyg, scale_y).i0 - i0_first;
                frag_a<Shape> a2[chunks_per_block];
                static_for<chunks_per_block>([&](auto ch) { a2[ch] = chunk_a2(s0 + 4 * ch, one_k); });
                if constexpr (PairRows) {
                    if (G >= 2) {
                        // Two row blocks at a time: two independent product-2 / store chains.
#pragma unroll 1
                        for (int r = 0; r < G; r += 2) {
                            const int nb = gq * G + r, oy = oy0 + 2 * nb;
                            if (oy >= out.height) break;
                            frag_c<Shape> d2a, d2b;
                            fill(d2a, 0.0f);
                            fill(d2b, 0.0f);
                            static_for<chunks_per_block>([&](auto ch) {
                                product2(d2a, a2[ch], nb * chunks_per_block + ch);
                                product2(d2b, a2[ch], (nb + 1) * chunks_per_block + ch);
                            });
                            store_row_block(d2a, oy, out_word);
                            store_row_block(d2b, oy + 2, out_word + row_block_pitch);
                            out_word += 2 * row_block_pitch;
                        }
                        continue;
                    }
                }
#pragma unroll 1
                for (int r = 0; r < G; ++r) {
                    const int nb = gq * G + r, oy = oy0 + 2 * nb;
                    if (oy >= out.height) break;
                    frag_c<Shape> d2;
                    fill(d2, 0.0f);
                    static_for<chunks_per_block>([&](auto ch) { product2(d2, a2[ch], nb * chunks_per_block + ch); });
                    store_row_block(d2, oy, out_word);
                    out_word += row_block_pitch;
                }
            }
        } else {
#pragma unroll 2
            for (int nb = 0; nb < plan.block_rows / 2; ++nb) {
                const int oy = oy0 + 2 * nb;
                if (oy >= out.height) break;
                frag_c<Shape> d2;
                fill(d2, 0.0f);
                static_for<chunks_per_block>([&](auto ch) {
                    const int q = nb * chunks_per_block + ch;
                    product2(d2, chunk_a2(4 * q, one_k), q);
                });
                store_row_block(d2, oy, out_word);
                out_word += row_block_pitch;
            }
        }
    };
    if (win.k_blocks == 1) row_blocks(std::true_type{});
    else row_blocks(std::false_type{});
}

// -- the gather FP16 path (down-scaling) ---------------------------------------------
//
// Down-scaling by about 1.5 or more, the warp tile above wastes most of
// product 1 and stages every texel of the rows it reads through shared
// memory, behind a __syncthreads (blocks of 4 output rows at bicubic 4x
// down). The gather path puts the channels into M and K instead and reads
// the image straight from global memory, one RGBA word per B1 register pair:
//
//   product 1: D1 (16 = 4 output columns x 4 channels, 8 image rows)
//                = (Wx (x) I4) (16 x 16 = 4 texels x 4 channels, generated)
//                * Img (16 x 8 image rows, loaded)
//   product 2: D2 (16, 8 output rows) = [D1 | D1'] (16 image rows) as A
//                * Wy^T (16 image rows x 8 output rows, generated)
//
// M: row m is output column m & 3, channel m >> 2. K of product 1 (one k
// block): lane (g, t)'s slots 2t, 2t+1 are channels 0, 1 and 2t+8, 2t+9
// channels 2, 3 of one texel, texel x0 + nk1 t + kb of k block kb (so a
// lane's texels over the nk1 k blocks are contiguous: one vector load per
// image row), and its B1 registers are that RGBA word as two exact half2
// (gather_b1: bytes 0,1 and 2,3, as 1024 + byte with FP32 accumulation).
// A1 of column j, channel c at slot
// (texel x, channel c') is w_j(x) if c == c', else 0: on lane (g, t) only
// registers 0 and 3 (elements 0/1 and 6/7) can be non-zero, both the weight
// of column g & 3 at the lane's texel in half (g >> 2) & 1.
//
// Rows are gathered per output row: n-tile nt's column n (lane g) is row
// label L = 8 nt + g, tap L % taps of output row L / taps of the tile
// (clamped to the image), so a tile of 8 output rows reads 8 taps rows in
// taps n-tiles and product 2 runs taps / 2 k blocks (labels 16 q .. 16 q + 15,
// A2 = reuse_a of n-tiles 2q, 2q+1, in place) with B2 block-diagonal: k row
// L, column r is w_r(L - taps r) for 0 <= L - taps r < taps, else 0.
//
// D2 holds channel m >> 2 of column m & 3 for output rows 2t, 2t+1: lanes
// g and g + 4 (lane ^ 16) swap a channel pair so that each ends with one
// RGBA pixel (gather_pixel_of), stored as one word.
//
// A warp takes the 4 output columns from ox0 and walks `tiles` tiles of 8
// output rows down from oy_first, issuing the loads of tile i + D
// (gather_prefetch) before tile i's MMAs. The texel window of its columns,
// [x0, x0 + 4 nk1) with x0 the first tap of column ox0 rounded down to a
// multiple of vec, must hold every tap of the 4 columns (plan_gather
// checks every column group with the device's FP32 positions); windows
// reaching past the image's edges load word by word, clamped. Where no
// texel is read by two warps (bicubic at whole scale factors such as 4x),
// the loads stream: L1 is not allocated and L2 fetches 256 bytes, so the
// neighbouring warps' halves of a DRAM burst arrive with it.

/// Tiles a warp loads ahead (its words per tile taps x nk1: 4 -> 3 tiles,
/// up to 16 -> 2, more -> 1), so that an SM keeps 12-16 KiB of loads in
/// flight per 8 warps; the words of D + 1 tiles live in registers.
template <filter F, int NK1>
inline constexpr int gather_prefetch = taps<F> * NK1 <= 4 ? 3 : (taps<F> * NK1 <= 16 ? 2 : 1);
/// Warps per block (4 output columns each): 4 for bicubic 16-texel windows,
/// else 8 (4-warp blocks at the same warps per SM, with streaming loads,
/// measured faster on bicubic 4x down; bilinear 1.6x down was slower with
/// 4; examples/interp/README.md).
template <filter F, int NK1>
inline constexpr int gather_block_warps = F == filter::bicubic && NK1 == 4 ? 4 : 8;
inline constexpr int gather_cols = 4;   ///< output columns per warp
inline constexpr int gather_rows = 8;   ///< output rows per tile

/// First texel of the window of the 4 columns from ox0: the first tap of
/// column ox0 rounded down to a multiple of vec (a power of 2).
template <filter F>
__host__ __device__ inline int gather_x0(int ox0, float scale_x, int vec)
{
    return (locate<float>(ox0, scale_x).i0 + first_tap<F>) & ~(vec - 1);
}

/// Launch shape of the gather path: nk1 k blocks (a window of 4 nk1
/// texels), loaded `vec` words at a time, `tiles` tiles per warp.
struct gather_plan {
    int k_blocks = 0;
    int vec = 0;
    int tiles = 0;
    bool streaming = false;  ///< loads skip L1 (gather_streams)
    bool usable = false;     ///< false: no window size fits (use the staged path)
};

/// Vector width of an nk1-block window: 2 -> 2, 4 and 8 -> 4, 6 -> 2 (a
/// lane's nk1 texels start at x0 + nk1 t, 4 vec-byte aligned).
__host__ __device__ constexpr int gather_vec(int nk1) { return nk1 % 4 == 0 ? 4 : 2; }

/// Whether the gather loads stream (L1::no_allocate, L2::256B): bicubic
/// where every column group's window ends before the next one's starts and
/// consecutive output rows share no image row, so no texel is read twice
/// and L1 would only hold lines nobody reuses. Streaming measured faster on
/// bicubic 4x down; bilinear 4x down was slower streamed, so it keeps L1
/// (examples/interp/README.md).
template <filter F>
inline bool gather_streams(int in_width, int in_height, int out_width, int out_height, int nk1, int vec)
{
    if (F != filter::bicubic) return false;
    const float sx = static_cast<float>(static_cast<double>(in_width) / out_width);
    const float sy = static_cast<float>(static_cast<double>(in_height) / out_height);
    for (int ox0 = gather_cols; ox0 < out_width; ox0 += gather_cols)
        if (gather_x0<F>(ox0, sx, vec) < gather_x0<F>(ox0 - gather_cols, sx, vec) + 4 * nk1) return false;
    for (int oy = 1; oy < out_height; ++oy)
        if (locate<float>(oy, sy).i0 < locate<float>(oy - 1, sy).i0 + taps<F>) return false;
    return true;
}

/// The smallest of nk1 = 2, 4, 6, 8 (vec = gather_vec(nk1)) whose window
/// holds every column group's taps, evaluated with the device's FP32
/// positions; tiles per warp as given (0: the launcher picks, gather_tiles).
template <filter F>
inline gather_plan plan_gather(int in_width, int in_height, int out_width, int out_height, int tiles)
{
    require(in_width > 0 && in_height > 0 && out_width > 0 && out_height > 0, "plan_gather",
            "sizes must be positive (got " + std::to_string(in_width) + "x" + std::to_string(in_height) + " -> " +
                std::to_string(out_width) + "x" + std::to_string(out_height) + ")");
    require(tiles >= 0, "plan_gather", "tiles per warp must be 0 (launcher picks) or positive (got " +
                                           std::to_string(tiles) + ")");
    gather_plan p;
    const float sx = static_cast<float>(static_cast<double>(in_width) / out_width);
    for (int nk1 = 2; nk1 <= 8; nk1 += 2) {
        const int vec = gather_vec(nk1);
        bool fits = true;
        for (int ox0 = 0; ox0 < out_width && fits; ox0 += gather_cols) {
            const int last = ox0 + gather_cols - 1 < out_width ? ox0 + gather_cols - 1 : out_width - 1;
            const int hi = locate<float>(last, sx).i0 + first_tap<F> + taps<F> - 1;
            fits = hi < gather_x0<F>(ox0, sx, vec) + 4 * nk1;
        }
        if (!fits) continue;
        p.k_blocks = nk1;
        p.vec = vec;
        p.tiles = tiles;
        p.streaming = gather_streams<F>(in_width, in_height, out_width, out_height, nk1, vec);
        const int rows = gather_rows * (tiles > 0 ? tiles : 1);  // the launcher's grid height at most
        p.usable = (out_height + rows - 1) / rows <= 65535;
        return p;
    }
    return p;
}

/// A1 register 0 (= register 3; registers 1 and 2 are 0) of k block kb on
/// `lane`: the weight of output column g & 3 (`col`, its FP16 weights) at
/// the lane's texel x0 + nk1 t + kb, in half (g >> 2) & 1.
__host__ __device__ inline unsigned gather_a1_word(int lane, const half_weights& col, int x0, int nk1, int kb)
{
    const int g = lane >> 2, t = lane & 3;
    return half_single(col, x0 + nk1 * t + kb) << (16 * ((g >> 2) & 1));
}

/// Product 1's k slot s of a gather k block: the lane quad t whose texel it
/// is, and the channel. The FP16 slot relabelling of the staged path
/// (tile::x_of_slot: slots 2t+{0,1}, 2t+{8,9} -> 4t..4t+3), read as
/// 4 t + channel.
struct gather_slot {
    int t, c;
};
__host__ __device__ constexpr gather_slot gather_slot_of(int s)
{
    const int x = tile<f16_m16n8k16_f32acc>::x_of_slot(s);
    return {x >> 2, x & 3};
}

/// B2 of k block q of a gather tile: k row k is row label L = 16 q + k, tap
/// L - taps r of output row r = the lane's column g, or 0. `wbits` are the
/// FP16 weights of output row g of the tile.
template <class Shape, filter F>
__host__ __device__ inline frag_b<Shape> make_b2_gather(int lane, const unsigned (&wbits)[taps<F>], int q)
{
    static_assert(tile<Shape>::is_half, "the gather path is FP16");
    frag_b<Shape> b;
    static_for<Shape::b_count / 2>([&](auto r) {
        // Elements 2r, 2r + 1: k rows k0, k0 + 1 (k0 even), one output row's taps j, j + 1.
        const coord rc = Shape::b_coord(lane, 2 * r);
        const int j = 16 * q + rc.row - taps<F> * rc.col;
        unsigned h = 0;
        static_for<taps<F> / 2>([&](auto p) {
            if (j == 2 * p) h = wbits[2 * p] | (wbits[2 * p + 1] << 16);
        });
        set_half_reg(b, r, h);
    });
    return b;
}

/// D2 element i of a gather tile: output column, output row, channel (D row
/// m is column m & 3, channel m >> 2; D column n is output row n).
__host__ __device__ constexpr tile<f16_m16n8k16_f32acc>::d2_elem gather_d2(int lane, int i)
{
    const coord mn = f16_m16n8k16_f32acc::c_coord(lane, i);
    return {mn.row & 3, mn.col, mn.row >> 2};
}
/// The pixel lane stores: {output row in the tile, output column} = {2t + ((g >> 2) & 1), g & 3}.
__host__ __device__ constexpr coord gather_pixel_of(int lane) { return {2 * (lane & 3) + ((lane >> 4) & 1), (lane >> 2) & 3}; }

/// The byte pairs of a gather store: q[i] the 8-bit levels of D2 element i
/// (low bytes); lanes with (g >> 2) & 1 == hi keep elements {hi, 2 + hi}
/// (their row 2t + hi, channels c, c + 2) and send the other two.
struct gather_pair {
    unsigned keep, send;
};
__host__ __device__ inline gather_pair gather_pairs(const unsigned (&q)[4], bool hi)
{
    const unsigned p01 = byte_perm(q[0], q[1], 0x0040u), p23 = byte_perm(q[2], q[3], 0x0040u);  // [q0 q1], [q2 q3]
    return {byte_perm(p01, p23, hi ? 0x0051u : 0x0040u), byte_perm(p01, p23, hi ? 0x0040u : 0x0051u)};
}
/// The RGBA word from the kept pair and the pair received from lane ^ 16.
__host__ __device__ inline unsigned gather_join(unsigned keep, unsigned recv, bool hi)
{
    return byte_perm(keep, recv, hi ? 0x1504u : 0x5140u);  // lo: [k0 r0 k1 r1], hi: [r0 k0 r1 k1]
}

/// The image row the lane loads for n-tile nt of the tile from oy0: row
/// label 8 nt + g is tap label % taps of output row oy0 + label / taps
/// (clamped to the output), clamped to the image.
template <filter F>
__device__ inline int gather_row(int nt, int g, int oy0, int out_height, int in_height, float scale_y)
{
    const int label = 8 * nt + g;
    const int oy = min(oy0 + label / taps<F>, out_height - 1);
    return min(max(locate<float>(oy, scale_y).i0 + first_tap<F> + label % taps<F>, 0), in_height - 1);  // clamp_index
}

/// B1 register pair of an RGBA word: channels 0, 1 and 2, 3 as half2.
/// Offset: 1024 + byte (one PRMT each, exact), the 1024 taken off by the
/// accumulator's initial value; else the bytes themselves (planar_to_half2).
template <bool Offset>
__device__ inline void gather_b1(unsigned w, unsigned& lo, unsigned& hi)
{
    if constexpr (Offset) {
        lo = __byte_perm(w, 0x64646464u, 0x4140u);  // [b0, 0x64, b1, 0x64] = 1024 + b0, 1024 + b1
        hi = __byte_perm(w, 0x64646464u, 0x4342u);
    } else {
        lo = planar_to_half2<false>(w);
        hi = planar_to_half2<true>(w);
    }
}

/// Vec (1, 2, 4) words from p (4 Vec-byte aligned) into w: read-only
/// loads through L1, or, Stream, ld.global.nc.L1::no_allocate.L2::256B.
template <int Vec, bool Stream>
__device__ inline void gather_load(const unsigned char* p, unsigned* w)
{
    if constexpr (!Stream) {
        if constexpr (Vec == 4) {
            const uint4 q = __ldg(reinterpret_cast<const uint4*>(p));
            w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
        } else if constexpr (Vec == 2) {
            const uint2 q = __ldg(reinterpret_cast<const uint2*>(p));
            w[0] = q.x, w[1] = q.y;
        } else {
            w[0] = __ldg(reinterpret_cast<const unsigned*>(p));
        }
    } else if constexpr (Vec == 4) {
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                     : "l"(p));
    } else if constexpr (Vec == 2) {
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p));
    } else {
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
    }
}

/// One warp of the gather path: output columns ox0 .. ox0 + 3, `tiles`
/// tiles of 8 output rows from oy_first. RGBA input with rows 4 Vec-byte
/// aligned and in.pitch * in.height < 2^31, RGBA output with 4-byte aligned
/// rows. The plan's window (NK1 k blocks, Vec) must hold the taps of every
/// column group (plan_gather). No shared memory, no block barrier; every
/// branch around an MMA is warp-uniform.
///
/// FP32 accumulation takes the texels as 1024 + b (one PRMT per half2, no
/// subtraction) and starts D1 at -1024 S, S the sum of the column's FP16
/// weights, the same for every channel and row (k slots of one channel
/// hold each window texel once): D1 = sum w (1024 + b) - 1024 S = sum w b.
/// Products are exact and the sums stay below 1024 * 1.25 + 255 * 1.25,
/// so rounding adds at most ~17 ulp(2048) = 0.004 of a level before D1 is
/// rounded to FP16 for product 2 (ulp 0.25 at 256..512). FP16 accumulation
/// could not hold 1024 + b to a level, so it subtracts 1024 first (HADD2).
template <class Backend, class Shape, filter F, int NK1, int Vec, bool Stream>
__device__ inline void resample_gather_warp(const image_view& in, const image_out<unsigned char>& out, float scale_x,
                                            float scale_y, int ox0, int oy_first, int tiles)
{
    static_assert(tile<Shape>::is_half, "the gather path is FP16");
    static_assert(NK1 % Vec == 0 && (Vec == 2 || Vec == 4), "whole vector loads");
    constexpr int n_taps = taps<F>;
    constexpr bool offset = std::is_same_v<typename Shape::c_type, float>;
    const int lane = lane_id(), g = lane >> 2, t = lane & 3;
    const bool hi = (g >> 2) & 1;
    if (ox0 >= out.width || oy_first >= out.height) return;  // warp-uniform

    // A1 of every k block, constant down the column: column g & 3's weights.
    const int x0 = gather_x0<F>(ox0, scale_x, Vec);
    const half_weights wcol = make_half_weights<F>(locate<float>(min(ox0 + (g & 3), out.width - 1), scale_x));
    frag_a<Shape> a1[NK1];
    static_for<NK1>([&](auto kb) {
        const unsigned w = gather_a1_word(lane, wcol, x0, NK1, kb);
        set_half_reg(a1[kb], 0, w), set_half_reg(a1[kb], 1, 0u), set_half_reg(a1[kb], 2, 0u), set_half_reg(a1[kb], 3, w);
    });
    // D1's initial value: -1024 S (offset) or 0.
    float d1_init = 0.0f;
    if constexpr (offset) {
        float w[n_taps];
        weights<F>(locate<float>(min(ox0 + (g & 3), out.width - 1), scale_x).a, w);
        static_for<n_taps>([&](auto j) { d1_init -= 1024.0f * __half2float(__float2half_rn(w[j])); });
    }
    const int x_lane = x0 + NK1 * t;
    const int pitch = static_cast<int>(in.pitch);  // in.pitch * in.height < 2^31 (plan)

    // This lane's pixel: column ox0 + (g & 3), row oy0 + 2t + hi.
    const coord px = gather_pixel_of(lane);  // {row in the tile, column}
    const bool col_ok = ox0 + px.col < out.width;
    unsigned char* out_word = out.data + static_cast<long long>(oy_first + px.row) * out.pitch + 4ll * (ox0 + px.col);
    const long long tile_pitch = gather_rows * out.pitch;

    auto tile_loop = [&](auto inside_) {
        constexpr bool Inside = decltype(inside_)::value;
        // Inside: the window lies in the image (vector loads from the lane's
        // first texel); else word by word at clamped columns.
        const unsigned char* lane_base = in.data + 4ll * x_lane;
        int xoff[NK1];
        static_for<NK1>([&](auto kb) { xoff[kb] = 4 * clamp_index(x_lane + kb, in.width); });
        auto load = [&](unsigned (&w)[n_taps][NK1], int oy0) {
            static_for<n_taps>([&](auto nt) {
                const int y = gather_row<F>(nt, g, oy0, out.height, in.height, scale_y);
                if constexpr (Inside) {
                    const unsigned char* row = lane_base + y * pitch;
                    static_for<NK1 / Vec>([&](auto v) { gather_load<Vec, Stream>(row + 4 * Vec * v, &w[nt][Vec * v]); });
                } else {
                    const unsigned char* row = in.data + y * pitch;
                    static_for<NK1>([&](auto kb) { gather_load<1, Stream>(row + xoff[kb], &w[nt][kb]); });
                }
            });
        };
        // Tile k from buffer k % (D + 1), tile k + D's loads issued first
        // into the buffer tile k - 1 used; false once the column is done.
        constexpr int D = gather_prefetch<F, NK1>;
        unsigned buf[D + 1][n_taps][NK1];
        auto exists = [&](int k) { return k < tiles && oy_first + gather_rows * k < out.height; };  // warp-uniform
        static_for<D>([&](auto j) {
            if (exists(j)) load(buf[j], oy_first + gather_rows * j);
        });
        int k = 0;
        auto step = [&](auto slot_) {
            constexpr int slot = decltype(slot_)::value;
            if (!exists(k)) return false;
            if (exists(k + D)) load(buf[(slot + D) % (D + 1)], oy_first + gather_rows * (k + D));
            const int oy0 = oy_first + gather_rows * k;

            unsigned wb[n_taps];
            weight_bits<F>(min(oy0 + g, out.height - 1), scale_y, wb);
            frag_c<Shape> d2;
            fill(d2, 0.0f);
            static_for<n_taps / 2>([&](auto q) {
                frag_c<Shape> d1[2];
                static_for<2>([&](auto h) {
                    fill(d1[h], d1_init);
                    static_for<NK1>([&](auto kb) {
                        unsigned lo, hi_bits;
                        gather_b1<offset>(buf[slot][2 * q + h][kb], lo, hi_bits);
                        frag_b<Shape> b;
                        set_half_reg(b, 0, lo), set_half_reg(b, 1, hi_bits);
                        mma<Backend>(d1[h], a1[kb], b, d1[h]);
                    });
                });
                mma<Backend>(d2, reuse_a<typename Shape::c_type>(d1[0], d1[1]), make_b2_gather<Shape, F>(lane, wb, q), d2);
            });

            unsigned qv[4];
            static_for<4>([&](auto e) { qv[e] = u8_low_byte<F == filter::bicubic>(static_cast<float>(d2.x[e])); });
            const gather_pair pr = gather_pairs(qv, hi);
            const unsigned recv = __shfl_xor_sync(0xffffffffu, pr.send, 16);
            if (col_ok && oy0 + px.row < out.height) *reinterpret_cast<unsigned*>(out_word) = gather_join(pr.keep, recv, hi);
            ++k, out_word += tile_pitch;
            return true;
        };
        bool go = true;
#pragma unroll 1
        while (go) static_for<D + 1>([&](auto slot) { go = go && step(slot); });
    };
    if (x0 >= 0 && x0 + 4 * NK1 <= in.width) tile_loop(std::true_type{});  // warp-uniform
    else tile_loop(std::false_type{});
}

/// Tiles per warp for an output of out_width x out_height when `resident`
/// blocks of block_warps warps fit on the device at once: the count (1..16)
/// that minimizes the waves of blocks times (tiles + 1/2, the warp's set-up
/// as about half a tile), the larger on a tie; a last partial wave costs as
/// much as a full one.
inline int gather_tiles(int out_width, int out_height, long long resident, int block_warps)
{
    require(out_width > 0 && out_height > 0, "gather_tiles",
            "output size must be positive (got " + std::to_string(out_width) + "x" + std::to_string(out_height) + ")");
    require(block_warps > 0, "gather_tiles", "warps per block must be positive (got " + std::to_string(block_warps) + ")");
    const long long block_cols = (out_width + gather_cols * block_warps - 1) / (gather_cols * block_warps);
    const long long row_tiles = (out_height + gather_rows - 1) / gather_rows;
    int best = 1;
    double best_cost = 0;
    for (int t = 1; t <= 16; ++t) {
        const long long blocks = block_cols * ((row_tiles + t - 1) / t);
        const long long waves = (blocks + resident - 1) / (resident > 0 ? resident : 1);
        const double cost = static_cast<double>(waves) * (t + 0.5);
        if (t == 1 || cost <= best_cost) best = t, best_cost = cost;
        if (static_cast<long long>(t) >= row_tiles) break;
    }
    return best;
}

}  // namespace tcore::interp
