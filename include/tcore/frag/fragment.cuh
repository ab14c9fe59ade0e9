// tcore/frag/fragment.cuh - what every MMA shape header builds on.
//
// A *shape* is a struct (one per header: f64_m8n8k4.cuh, ...) that names the
// element types, M/N/K, the per-lane element counts and four constexpr maps:
//
//   a_coord(lane, i) -> {row, col}   A element i of `lane`   (T32,Va) -> (M,K)
//   b_coord(lane, i) -> {row, col}   B element i of `lane`   (T32,Vb) -> (K,N)
//   c_coord(lane, i) -> {row, col}   C/D element i of `lane` (T32,Vc) -> (M,N)
//   a_home(row, col) / b_home(row, col) -> {lane, index}: the inverses
//
// plus `mma_sync(d, a, b, c)`, the mma.sync wrapper, and `min_arch`, the
// oldest architecture that has it. This header turns that into fragments
// (plain register arrays tagged with their k labelling), loads, stores,
// fill, `accumulator_cast` between shapes of one C layout and the
// backend-generic `mma<Backend>`. The maps are host+device so tests/host
// checks them against docs/mma-fragments.md without a GPU.
//
// The cuda_core MMA keeps the tensor-core data placement: for every k, a
// lane fetches A(row, k) for each of its accumulator rows and B(k, col) for
// each of its accumulator columns with __shfl_sync from the lane that holds
// it, then does the multiply-adds. The register index an element lives in
// must be the same on every lane for a given (k, accumulator slot): the shape
// maps guarantee it (tests/host checks), so the index is a compile-time
// constant evaluated at lane 0 and the fragment stays in registers.
#pragma once

#include "../backend.cuh"

#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace tcore {

/// A (row, column) position in one operand matrix of an MMA.
struct coord {
    int row, col;
};

/// Where a matrix element lives in a warp: which lane, which element index.
struct home {
    int lane, index;
};

/// Storage order of a matrix in memory.
enum class layout { row_major, col_major };

/// Offset of element (row, col) in a matrix with leading dimension ld.
template <layout L>
__host__ __device__ constexpr long long offset(int row, int col, long long ld)
{
    return L == layout::row_major ? row * ld + col : col * ld + row;
}

/// A compile-time int usable on host and device (std::integral_constant's
/// conversion is host-only without --expt-relaxed-constexpr).
template <int I>
struct int_c {
    static constexpr int value = I;
    __host__ __device__ constexpr operator int() const { return I; }
};

/// Calls f(int_c<I>{}) for I = 0..N-1, fully unrolled, so f can index
/// register arrays with compile-time constants.
template <int N, class F, int... I>
__host__ __device__ constexpr void static_for_impl(F&& f, std::integer_sequence<int, I...>)
{
    (f(int_c<I>{}), ...);
}
template <int N, class F>
__host__ __device__ constexpr void static_for(F&& f)
{
    static_for_impl<N>(f, std::make_integer_sequence<int, N>{});
}

/// The warp lane of the calling thread (%laneid), 0 on the host.
__device__ __forceinline__ int lane_id()
{
#if defined(__CUDA_ARCH__)
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return static_cast<int>(lane);
#else
    return 0;
#endif
}

// -- fragments ---------------------------------------------------------------

/// The k labelling of an A or B fragment. `standard_k` is the PTX map of the
/// shape. `relabelled_k<KB>` is the in-place accumulator reuse of reuse.cuh
/// (k-block KB): A slot t + 4j stands for another column than the map says,
/// so it only pairs with a B built for the same relabelling. The tag makes
/// that pairing a type: mma() takes A and B of one labelling.
struct standard_k {};
template <int KB>
struct relabelled_k {
    static constexpr int k_block = KB;
};

/// A operand of `Shape`: the lane's Shape::a_count elements, in map order.
template <class Shape, class KLabel = standard_k>
struct alignas(8) frag_a {
    using shape = Shape;
    using k_label = KLabel;
    using value_type = typename Shape::a_type;
    static constexpr int size = Shape::a_count;
    value_type x[size];
};

/// B operand of `Shape`.
template <class Shape, class KLabel = standard_k>
struct alignas(8) frag_b {
    using shape = Shape;
    using k_label = KLabel;
    using value_type = typename Shape::b_type;
    static constexpr int size = Shape::b_count;
    value_type x[size];
};

/// C or D (accumulator) of `Shape`.
template <class Shape>
struct alignas(8) frag_c {
    using shape = Shape;
    using value_type = typename Shape::c_type;
    static constexpr int size = Shape::c_count;
    value_type x[size];
};

/// The same registers under another k labelling (no data moves). Use it to
/// declare that a B generated per lane was built for a relabelled A
/// (`with_k_label<relabelled_k<0>>(b)`), or to drop a label on purpose.
template <class To, template <class, class> class Frag, class Shape, class From>
__host__ __device__ inline Frag<Shape, To> with_k_label(const Frag<Shape, From>& f)
{
    Frag<Shape, To> g;
    static_for<Frag<Shape, From>::size>([&](auto i) { g.x[i] = f.x[i]; });
    return g;
}

/// True where two shapes place their C/D elements identically (same type,
/// same c_coord on every lane), e.g. f64_m16n8k4 and f64_m16n8k16.
template <class S1, class S2>
__host__ __device__ constexpr bool same_c_layout()
{
    if constexpr (!std::is_same_v<typename S1::c_type, typename S2::c_type> || S1::c_count != S2::c_count) {
        return false;
    } else {
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < S1::c_count; ++i) {
                const coord p = S1::c_coord(lane, i), q = S2::c_coord(lane, i);
                if (p.row != q.row || p.col != q.col) return false;
            }
        return true;
    }
}

/// An accumulator of `From` as one of `To`, where both place C identically
/// (checked at compile time): chains of MMAs with different K share a D.
template <class To, class From>
__host__ __device__ inline frag_c<To> accumulator_cast(const frag_c<From>& c)
{
    static_assert(same_c_layout<From, To>(), "accumulator_cast: the two shapes place C elements differently");
    frag_c<To> d;
    static_for<frag_c<From>::size>([&](auto i) { d.x[i] = c.x[i]; });
    return d;
}

// -- element conversion ------------------------------------------------------

/// Converts a value read from memory into a fragment element (Shape may
/// override with `to_a`/`to_b`, e.g. TF32 rounding). Generic: a cast.
template <class To, class From>
__host__ __device__ inline To convert_to(From v)
{
    if constexpr (std::is_same_v<To, __half>) return __float2half_rn(static_cast<float>(v));
    else if constexpr (std::is_same_v<From, __half>) return static_cast<To>(__half2float(v));
    else return static_cast<To>(v);
}

// -- fill, load, store -------------------------------------------------------

/// Sets every element of a fragment to `value`.
template <class Frag, class T>
__host__ __device__ inline void fill(Frag& f, T value)
{
    static_for<Frag::size>([&](auto i) { f.x[i] = convert_to<typename Frag::value_type>(value); });
}

/// Loads the lane's A elements of the M x K tile at `ptr` (global or shared).
template <layout L, class Shape, class T>
__device__ inline void load_a(frag_a<Shape>& a, const T* ptr, long long ld)
{
    const int lane = lane_id();
    static_for<Shape::a_count>([&](auto i) {
        const coord rc = Shape::a_coord(lane, i);
        a.x[i] = Shape::to_a(ptr[offset<L>(rc.row, rc.col, ld)]);
    });
}

/// Loads the lane's B elements of the K x N tile at `ptr`.
template <layout L, class Shape, class T>
__device__ inline void load_b(frag_b<Shape>& b, const T* ptr, long long ld)
{
    const int lane = lane_id();
    static_for<Shape::b_count>([&](auto i) {
        const coord rc = Shape::b_coord(lane, i);
        b.x[i] = Shape::to_b(ptr[offset<L>(rc.row, rc.col, ld)]);
    });
}

/// Loads the lane's C elements of the M x N tile at `ptr`.
template <layout L, class Shape, class T>
__device__ inline void load_c(frag_c<Shape>& c, const T* ptr, long long ld)
{
    const int lane = lane_id();
    static_for<Shape::c_count>([&](auto i) {
        const coord rc = Shape::c_coord(lane, i);
        c.x[i] = convert_to<typename Shape::c_type>(ptr[offset<L>(rc.row, rc.col, ld)]);
    });
}

/// Stores the lane's C/D elements into the M x N tile at `ptr`.
template <layout L, class Shape, class T>
__device__ inline void store_c(T* ptr, long long ld, const frag_c<Shape>& c)
{
    const int lane = lane_id();
    static_for<Shape::c_count>([&](auto i) {
        const coord rc = Shape::c_coord(lane, i);
        ptr[offset<L>(rc.row, rc.col, ld)] = convert_to<T>(c.x[i]);
    });
}

// -- the CUDA-core MMA -------------------------------------------------------

/// D = A*B + C computed lane by lane with the tensor-core data placement.
/// `fetch_a(src_lane, ic)` must return A element `ic` (an int_c)
/// of lane `src_lane`, likewise `fetch_b`. On the device they are shuffles;
/// tests/host passes array reads, which runs this very code on the CPU.
///
/// Accumulator element i of a lane sits at row slot i / Shape::c_cols and
/// column slot i % Shape::c_cols; per k the lane fetches c_rows A values and
/// c_cols B values, then does c_rows * c_cols multiply-adds.
template <class Shape, class FetchA, class FetchB>
__host__ __device__ inline void mma_emulated(int lane, typename Shape::acc_type* acc,
                                             FetchA&& fetch_a, FetchB&& fetch_b)
{
    using acc_t = typename Shape::acc_type;
    constexpr int rows = Shape::c_rows, cols = Shape::c_cols;
    static_for<Shape::k_steps>([&](auto k_) {
        constexpr int k = decltype(k_)::value;
        acc_t a_val[rows], b_val[cols];
        static_for<rows>([&](auto r_) {
            constexpr int r = decltype(r_)::value;
            constexpr int idx = Shape::a_home(Shape::c_coord(0, r * cols).row, k).index;
            const int src = Shape::a_home(Shape::c_coord(lane, r * cols).row, k).lane;
            a_val[r] = Shape::to_acc(fetch_a(src, int_c<idx>{}));
        });
        static_for<cols>([&](auto c_) {
            constexpr int c = decltype(c_)::value;
            constexpr int idx = Shape::b_home(k, Shape::c_coord(0, c).col).index;
            const int src = Shape::b_home(k, Shape::c_coord(lane, c).col).lane;
            b_val[c] = Shape::to_acc(fetch_b(src, int_c<idx>{}));
        });
        static_for<rows * cols>([&](auto i_) {
            constexpr int i = decltype(i_)::value;
            acc[i] = Shape::madd(a_val[i / cols], b_val[i % cols], acc[i]);
        });
    });
}

/// The cuda_core backend of mma: shuffles and FMAs, no MMA instruction.
template <class Shape>
__device__ inline void mma_cuda_core(frag_c<Shape>& d, const frag_a<Shape>& a, const frag_b<Shape>& b,
                                     const frag_c<Shape>& c)
{
    using acc_t = typename Shape::acc_type;
    acc_t acc[Shape::c_count];
    static_for<Shape::c_count>([&](auto i) { acc[i] = Shape::to_acc(c.x[i]); });
    const int lane = lane_id();
    auto fetch_a = [&](int src, auto i) { return __shfl_sync(0xffffffffu, a.x[i], src); };
    auto fetch_b = [&](int src, auto i) { return __shfl_sync(0xffffffffu, b.x[i], src); };
    mma_emulated<Shape>(lane, acc, fetch_a, fetch_b);
    static_for<Shape::c_count>([&](auto i) { d.x[i] = convert_to<typename Shape::c_type>(acc[i]); });
}

/// D = A*B + C on the chosen backend. All 32 lanes must call it together.
/// A and B must carry the same k labelling (standard, or one relabelled_k).
/// tensor_core needs an architecture with the shape's MMA (Shape::min_arch):
/// compiling it for an older one is an error, not a silent CUDA-core run.
template <class Backend = default_backend, class Shape, class KLabel>
__device__ inline void mma(frag_c<Shape>& d, const frag_a<Shape, KLabel>& a, const frag_b<Shape, KLabel>& b,
                           const frag_c<Shape>& c)
{
    static_assert(is_backend_v<Backend>, "Backend must be tcore::tensor_core or tcore::cuda_core");
    if constexpr (std::is_same_v<Backend, tensor_core>) {
#if defined(__CUDA_ARCH__)
        static_assert(__CUDA_ARCH__ >= Shape::min_arch,
                      "mma<tensor_core>: this architecture has no MMA instruction for the shape; "
                      "compile for a newer one or use mma<cuda_core>");
#endif
        if constexpr (std::is_same_v<KLabel, standard_k>) Shape::mma_sync(d, a, b, c);
        else Shape::mma_sync(d, with_k_label<standard_k>(a), with_k_label<standard_k>(b), c);
    } else if constexpr (std::is_same_v<KLabel, standard_k>) {
        mma_cuda_core(d, a, b, c);
    } else {
        mma_cuda_core(d, with_k_label<standard_k>(a), with_k_label<standard_k>(b), c);
    }
}

}  // namespace tcore
