// tests/gpu/frag_tiles.hpp - host-side data of the fragment GPU tests: one
// padded matrix per warp in either layout, NaN in the padding (so a load
// that strays or a store that misses shows), random non-zero elements.
#pragma once

#include "common/test_util.hpp"

#include <tcore/frag/fragment.cuh>

#include <cuda_fp16.h>

#include <limits>
#include <type_traits>
#include <vector>

namespace tcore::test::frag {

constexpr int warps_per_block = 2, blocks = 2, tiles = warps_per_block * blocks;

inline double to_double(double v) { return v; }
inline double to_double(float v) { return v; }
inline double to_double(__half v) { return __half2float(v); }

template <class T>
T nan_value()
{
    if constexpr (std::is_same_v<T, __half>) return __ushort_as_half(0x7e00);
    else return std::numeric_limits<T>::quiet_NaN();
}

/// A non-zero random value of memory type T (non-zero also after rounding).
template <class T>
T random_value(rng& r)
{
    for (;;) {
        const T x = convert_to<T>(r.nonzero());
        if (to_double(x) != 0.0) return x;
    }
}

/// `tiles` R x C matrices of type T, one per warp, back to back, stored with
/// layout L and leading dimension ld (> the minimum: padded).
template <class T>
struct tiled_matrix {
    int rows, cols;
    layout lay;
    long long ld;
    std::vector<T> data;
    tiled_matrix(int r, int c, layout l, int pad) : rows(r), cols(c), lay(l), ld((l == layout::row_major ? c : r) + pad)
    {
        data.assign(tiles * stride(), nan_value<T>());
    }
    long long stride() const { return (lay == layout::row_major ? rows : cols) * ld; }
    long long at(int tile, int r, int c) const
    {
        return tile * stride() + (lay == layout::row_major ? r * ld + c : c * ld + r);
    }
    T& operator()(int tile, int r, int c) { return data[at(tile, r, c)]; }
    T operator()(int tile, int r, int c) const { return data[at(tile, r, c)]; }
    void randomize(rng& g)
    {
        for (int w = 0; w < tiles; ++w)
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) (*this)(w, r, c) = random_value<T>(g);
    }
    /// True where data[i] is padding (not an element of any tile).
    std::vector<bool> padding_mask() const
    {
        std::vector<bool> pad(data.size(), true);
        for (int w = 0; w < tiles; ++w)
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) pad[at(w, r, c)] = false;
        return pad;
    }
};

}  // namespace tcore::test::frag
