// tcore/patterns/interp_weights.cuh - the arithmetic of one sample, host and
// device: the filters (bilinear, bicubic Catmull-Rom), their coefficient
// matrices as constexpr generators, the tap weights w_j(a) (Horner with
// explicit FMAs, so host and device agree bit for bit), the sample position
// of an output index (locate: texture-unit geometry, texel i covers
// [i, i+1), u = (d + 0.5) in / out - 0.5), the matrix form on the unit
// square (eval_square, a reference), and the image descriptors with
// clamp-to-edge indexing and 8-bit rounding (to_u8: nearest, ties to even,
// saturated).
//
// Preconditions: none beyond the argument ranges stated per function; every
// function here is per thread (no lane cooperation). The formulas are those
// of the header comment of tcore/patterns/interp.cuh.
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

}  // namespace tcore::interp
