// tests/gpu/test_scale.cu - SCALE (a = q*b, FP64): every variant of the
// scale workload on both backends (tcore/patterns/device/scale.cuh,
// examples/scale/scale_base.cuh), and a user kernel calling tcore::scale_tile
// (one tile per warp, f64_m16n8k8) on both backends.
//
// First, without a GPU: the A = B*(qI) layout of tcore/patterns/scale.cuh
// is run for a simulated warp through tcore::mma_emulated (the cuda_core
// MMA, which follows the shapes' lane maps) for f64 m8n8k4, m16n8k4 and
// m16n8k8; every lane must get back q times the pairs it holds.
//
// Then on the GPU: random inputs (never zero), the output poisoned (0xFF
// bytes, a NaN) before each run, every element compared with the FP64 CPU
// product q*b. Each variant rounds q*b exactly once (the MMA adds only exact
// zeros to it), so the bound is 1 ulp: |got - ref| <= 2^-52 |ref| (they are
// expected to be bit-identical). Elements past n must stay poisoned. Sizes
// are not multiples of any tile (1, 7, 63, 65, 1000, ...) plus n = 0;
// in place (a == b), misaligned pointers, and bad arguments (tcore::error).
// NaN and Inf, as tcore/patterns/scale.cuh documents them: an input NaN gives
// NaN and an input Inf gives q Inf at its own position; the MMA variants may
// turn the other outputs of its 8-wide row NaN (0 * Inf), so within its
// 128-element block (a whole number of tiles) at most 8 outputs may be NaN
// where the reference is finite (none for base, the plain product), and
// every output outside that block must be exact.
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): nan_result (an
// output made NaN), perturb (an output off by 4 ulp), zero_checks,
// device_error.
#include "common/test_util.hpp"

#include "examples/scale/scale_base.cuh"

#include <tcore/tcore.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using tcore::test::rng;
using tcore::test::tally;
namespace sc = tcore::examples::scale;

namespace {

// -- the layout on a simulated warp -------------------------------------------

template <class T, int Count>
struct lane_reader {
    const T (*lanes)[Count];
    __host__ __device__ T operator()(int src, int i) const { return lanes[src][i]; }
};

template <class Shape, int KB>
void model_k_block(double (&acc)[32][Shape::c_count], const double2 (&v)[32][tcore::scale_layout<Shape>::pairs],
                   double q)
{
    double a[32][Shape::a_count], b[32][Shape::b_count];
    for (int lane = 0; lane < 32; ++lane) {
        const auto fa = tcore::scale_make_a<Shape, KB>(v[lane]);
        const auto fb = tcore::scale_make_b<Shape, KB>(lane, q);
        for (int i = 0; i < Shape::a_count; ++i) a[lane][i] = fa.x[i];
        for (int i = 0; i < Shape::b_count; ++i) b[lane][i] = fb.x[i];
    }
    for (int lane = 0; lane < 32; ++lane)
        tcore::mma_emulated<Shape>(lane, acc[lane], lane_reader<double, Shape::a_count>{a},
                                   lane_reader<double, Shape::b_count>{b});
}

template <class Shape>
void model_layout(tally& t, rng& r)
{
    using L = tcore::scale_layout<Shape>;
    const double q = r.nonzero(-4, 4);
    std::vector<double> tile(L::elems);
    for (double& x : tile) x = r.nonzero();
    double2 v[32][L::pairs];
    for (int lane = 0; lane < 32; ++lane)
        for (int p = 0; p < L::pairs; ++p) v[lane][p] = make_double2(tile[64 * p + 2 * lane], tile[64 * p + 2 * lane + 1]);
    double acc[32][Shape::c_count] = {};
    model_k_block<Shape, 0>(acc, v, q);
    if constexpr (L::k_blocks == 2) model_k_block<Shape, 1>(acc, v, q);
    int bad = 0;
    for (int lane = 0; lane < 32; ++lane) {
        tcore::frag_c<Shape> d;
        for (int i = 0; i < Shape::c_count; ++i) d.x[i] = acc[lane][i];
        double2 w[L::pairs];
        tcore::scale_unpack<Shape>(w, d);
        for (int p = 0; p < L::pairs; ++p) {
            // Element 2*lane (+64p) of the tile, and the one after it.
            if (w[p].x != q * tile[64 * p + 2 * lane]) ++bad;
            if (w[p].y != q * tile[64 * p + 2 * lane + 1]) ++bad;
        }
    }
    t.check(bad == 0, "model %s: %d of %d tile elements are not q*b", Shape::name(), bad, L::elems);
}

// -- the kernels on the GPU ---------------------------------------------------

/// A user's own kernel built on the building block: one 16x8 tile (128
/// doubles) per warp on f64_m16n8k8 with tcore::scale_tile, the rest by
/// tcore::scale_tail. a and b 16-byte aligned.
template <class Backend>
__global__ void user_scale_kernel(const double* b, double* a, double q, long long n)
{
    using S = tcore::f64_m16n8k8;
    using L = tcore::scale_layout<S>;
    const int lane = static_cast<int>(threadIdx.x & 31);
    const long long tile = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const long long tiles = n / L::elems;
    if (tile < tiles) {  // whole warps
        double2 v[L::pairs];
#pragma unroll
        for (int p = 0; p < L::pairs; ++p)
            v[p] = *reinterpret_cast<const double2*>(b + tile * L::elems + 64 * p + 2 * lane);
        tcore::scale_tile<Backend, S>(v, q, lane);
#pragma unroll
        for (int p = 0; p < L::pairs; ++p) *reinterpret_cast<double2*>(a + tile * L::elems + 64 * p + 2 * lane) = v[p];
    }
    tcore::scale_tail(b, a, q, tiles * L::elems, n);
}

template <class Backend>
void user_scale(const double* b, double* a, double q, long long n, cudaStream_t s)
{
    tcore::check_scale_args("user_scale", b, a, n);
    if (n == 0) return;
    tcore::require(tcore::aligned(a, 16) && tcore::aligned(b, 16), "user_scale", "a and b must be 16-byte aligned");
    const long long warps = n / 128 + 1;
    user_scale_kernel<Backend><<<static_cast<unsigned>((warps * 32 + 255) / 256), 256, 0, s>>>(b, a, q, n);
    TCORE_CHECK(cudaGetLastError());
}

using launch_fn = std::function<void(const double*, double*, double, long long, cudaStream_t)>;

struct variant {
    const char* name;
    launch_fn launch;
    bool needs_alignment;
};

std::vector<variant> variants()
{
    using namespace tcore;
    return {
        {"base", [](const double* b, double* a, double q, long long n, cudaStream_t s) { sc::scale_base(b, a, q, n, s); },
         false},
        {"tc (m16n8k8)", tcore::scale_mma<f64_m16n8k8, tensor_core>, true},
        {"tc-m16n8k4", tcore::scale_mma<f64_m16n8k4, tensor_core>, true},
        {"tc-m8n8k4", tcore::scale_mma<f64_m8n8k4, tensor_core>, true},
        {"cc (m16n8k8)", tcore::scale_mma<f64_m16n8k8, cuda_core>, true},
        {"cc-m16n8k4", tcore::scale_mma<f64_m16n8k4, cuda_core>, true},
        {"cc-m8n8k4", tcore::scale_mma<f64_m8n8k4, cuda_core>, true},
        {"user tc (m16n8k8)", user_scale<tensor_core>, true},
        {"user cc (m16n8k8)", user_scale<cuda_core>, true},
    };
}

bool is_poison(double v)
{
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits == ~0ull;
}

/// Runs `v` on n elements of b (at element offset `off` of the buffers) and
/// checks all of them; out-of-range elements of `a` must stay poisoned.
void check_run(tally& t, const variant& v, long long n, double q, const std::vector<double>& b_host, int off,
               bool in_place)
{
    constexpr int guard = 70;  // poisoned elements after the output
    const std::size_t total = static_cast<std::size_t>(off + n + guard);
    tcore::test::device_buffer<double> db(total), da(total);
    std::vector<double> staged(total, 0.0);
    for (long long i = 0; i < n; ++i) staged[static_cast<std::size_t>(off + i)] = b_host[static_cast<std::size_t>(i)];
    double* out = nullptr;
    if (in_place) {
        db.upload(staged);
        out = db.ptr + off;
    } else {
        db.upload(staged);
        da.poison();
        out = da.ptr + off;
    }
    v.launch(db.ptr + off, out, q, n, nullptr);
    TCORE_CHECK(cudaDeviceSynchronize());
    std::vector<double> got = in_place ? db.download() : da.download();
    if (n > 0 && tcore::test::planted("nan_result")) got[static_cast<std::size_t>(off)] = std::numeric_limits<double>::quiet_NaN();
    if (n > 0 && tcore::test::planted("perturb")) got[static_cast<std::size_t>(off)] *= 1 + 0x1p-50;
    long long bad = 0, first = -1;
    for (long long i = 0; i < n; ++i) {
        const double ref = q * b_host[static_cast<std::size_t>(i)];
        const double g = got[static_cast<std::size_t>(off + i)];
        if (!tcore::test::close(g, ref, 0x1p-52 * std::fabs(ref))) {
            if (first < 0) first = i;
            ++bad;
        }
    }
    long long clobbered = 0;
    if (!in_place)
        for (std::size_t i = 0; i < total; ++i)
            if ((static_cast<long long>(i) < off || static_cast<long long>(i) >= off + n) && !is_poison(got[i])) ++clobbered;
    t.check(bad == 0 && clobbered == 0, "%s n=%lld offset=%d%s: %lld wrong (first at %lld: got %.17g, ref %.17g), %lld written out of range",
            v.name, n, off, in_place ? " in place" : "", bad, first,
            first >= 0 ? got[static_cast<std::size_t>(off + first)] : 0.0,
            first >= 0 ? q * b_host[static_cast<std::size_t>(first)] : 0.0, clobbered);
}

/// A NaN at 300 and a +Inf at 517 among 1000 inputs (see the header).
void check_special(tally& t, const variant& v, double q, std::vector<double> b)
{
    const long long n = 1000, at_nan = 300, at_inf = 517;
    b.resize(n);
    b[at_nan] = std::numeric_limits<double>::quiet_NaN();
    b[at_inf] = std::numeric_limits<double>::infinity();
    tcore::test::device_buffer<double> db(n), da(n);
    db.upload(b);
    da.poison();
    v.launch(db.ptr, da.ptr, q, n, nullptr);
    TCORE_CHECK(cudaDeviceSynchronize());
    const std::vector<double> got = da.download();
    const bool plain = !v.needs_alignment;  // base: the plain product
    long long wrong = 0, spread[2] = {0, 0};
    for (long long i = 0; i < n; ++i) {
        const double ref = q * b[static_cast<std::size_t>(i)], g = got[static_cast<std::size_t>(i)];
        const int block = i / 128 == at_nan / 128 ? 0 : i / 128 == at_inf / 128 ? 1 : -1;
        if (block >= 0 && std::isfinite(ref) && std::isnan(g)) {
            ++spread[block];
            continue;
        }
        wrong += !tcore::test::close(g, ref, 0x1p-52 * std::fabs(ref));
    }
    const long long most = plain ? 0 : 7;
    t.check(wrong == 0 && spread[0] <= most && spread[1] <= most,
            "%s with a NaN and an Inf: %lld outputs wrong, %lld and %lld finite outputs NaN beside them (at most %lld)",
            v.name, wrong, spread[0], spread[1], most);
}

/// True if f() throws tcore::error whose message contains `expect`.
bool throws(const std::function<void()>& f, const char* expect)
{
    try {
        f();
    } catch (const tcore::error& e) {
        const bool ok = std::strstr(e.what(), expect) != nullptr;
        if (!ok) std::printf("  unexpected message: %s\n", e.what());
        return ok;
    }
    return false;
}

void check_bad_arguments(tally& t)
{
    tcore::test::device_buffer<double> buf(64);
    double* p = buf.ptr;
    for (const variant& v : variants()) {
        t.check(throws([&] { v.launch(p, p + 32, 2.0, -1, nullptr); }, "n must be >= 0"), "%s: n < 0 must throw",
                v.name);
        t.check(throws([&] { v.launch(nullptr, p, 2.0, 8, nullptr); }, "input b is a null pointer"),
                "%s: null b must throw", v.name);
        t.check(throws([&] { v.launch(p, nullptr, 2.0, 8, nullptr); }, "output a is a null pointer"),
                "%s: null a must throw", v.name);
        t.check(throws([&] { v.launch(p, p + 4, 2.0, 16, nullptr); }, "overlap"), "%s: partial overlap must throw",
                v.name);
        bool zero_ok = true;
        try {
            v.launch(nullptr, nullptr, 2.0, 0, nullptr);  // n = 0: nothing to do, no pointers needed
        } catch (const tcore::error& e) {
            std::printf("  %s\n", e.what());
            zero_ok = false;
        }
        t.check(zero_ok, "%s: n = 0 with null pointers must be a no-op", v.name);
        if (v.needs_alignment)
            t.check(throws([&] { v.launch(p + 1, p + 33, 2.0, 16, nullptr); }, "16-byte aligned"),
                    "%s: misaligned pointers must throw", v.name);
    }
    TCORE_CHECK(cudaDeviceSynchronize());
}

}  // namespace

int main()
{
    tally t;
    rng r(tcore::test::seed());

    model_layout<tcore::f64_m8n8k4>(t, r);
    model_layout<tcore::f64_m16n8k4>(t, r);
    model_layout<tcore::f64_m16n8k8>(t, r);
    if (t.failed) return t.finish();

    tcore::test::require_gpu_or_skip();

    const std::vector<long long> sizes = {0, 1, 7, 63, 64, 65, 127, 128, 129, 511, 512, 513, 1000, 4097, 100003,
                                          (1LL << 20) + 3};
    const long long max_n = sizes.back();
    std::vector<double> b(static_cast<std::size_t>(max_n));
    for (double& x : b) x = r.nonzero();
    const double q = r.nonzero(-3, 3);

    for (const variant& v : variants()) {
        for (const long long n : sizes) check_run(t, v, n, q, b, 0, false);
        check_run(t, v, 1000, q, b, 0, true);
        check_run(t, v, 4097, q, b, 2, true);
        // A 16-byte aligned offset (2 doubles) with a tail, and for base a
        // misaligned one (1 double: the scalar path).
        check_run(t, v, 5001, q, b, 2, false);
        if (!v.needs_alignment) check_run(t, v, 5001, q, b, 1, false);
        check_special(t, v, q, b);
    }
    check_bad_arguments(t);
    return t.finish();
}
