// tests/gpu/test_frag_reuse.cu - accumulator-to-A reuse chains on the GPU,
// on both backends: P = X * Y + C is computed into accumulators, turned into
// the A operand of the next MMA without memory, and D2 = P * B2 + C2.
//
// FP16 m16n8k16: P = [D0 | D1] (16x16) through reuse_a, FP32 and FP16
// accumulators on either side. FP64 m8n8k4, m16n8k4, m16n8k8, m16n8k16, each
// with both recipes: relabel (reuse_a + load_b_reused) and shuffle
// (reuse_a_shuffle + the standard load_b), every k-block of P.
// The kernel also stores P; P is checked against X * Y + C and D2 against
// P * B2 + C2 computed on the CPU in FP64 from the stored P (FP16: rounded to
// FP16 as reuse_a does), element by element, with the error bounds of
// tests/gpu/test_frag_mma.cu. Outputs are poisoned; inputs random, never
// zero; padding NaN; row-major and col-major operands, four warps, and the
// tensor_core and cuda_core results compared with each other.
// TCORE_TEST_QUICK=1 (or 2) runs one round of random inputs instead of three.
#include "common/test_util.hpp"

#include "gpu/frag_tiles.hpp"

#include <tcore/frag.cuh>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

using namespace tcore;
using tcore::test::device_buffer;
using tcore::test::rng;
using tcore::test::tally;
using namespace tcore::test::frag;

namespace {

// Error bound of one MMA output (derivation in tests/gpu/test_frag_mma.cu):
// FP64 3K u S; FP32 accumulation 2(K+1) 2^-23 S; FP16 accumulators add one
// FP16 ulp of S per group of 4 products and one for C. S = |C| + sum |A B|. For the chained D2 the K is
// that of the whole product P * B2 (all k-blocks accumulate in one chain).
template <class Acc, class CType>
double tolerance(int K, double s, [[maybe_unused]] double ref)
{
    if constexpr (std::is_same_v<Acc, double>) return 3.0 * K * 0x1p-53 * s;
    const double fp32 = 2.0 * (K + 1) * 0x1p-23 * s;
    if constexpr (std::is_same_v<CType, __half>) return fp32 + (K / 4 + 1) * (0x1p-10 * s + 0x1p-24);
    return fp32;
}

// -- kernels -----------------------------------------------------------------

enum class recipe { relabel, shuffle };

/// The relabelled A of the next MMA from the accumulators d[] (k-block KB).
template <class Shape, int KB, int NAcc>
__device__ frag_a<Shape, relabelled_k<KB>> relabel_a(const frag_c<Shape> (&d)[NAcc])
{
    if constexpr (Shape::m == 8) return reuse_a<KB>(d[0]);
    else if constexpr (Shape::k == 4) return reuse_a<KB>(d[0]);
    else if constexpr (Shape::k == 8) return reuse_a(d[0]);
    else return reuse_a(d[0], d[1]);
}

/// FP64 chain: P = [X * Y_q + C_q]_q (NAcc accumulators of 8 columns), then
/// D2 = P * B2 + C2 over every k-block of P with recipe R.
template <class Backend, class Shape, int NAcc, recipe R, layout L>
__global__ void f64_chain(const double* x, long long ldx, long long sx, const double* y, long long ldy, long long sy,
                          const double* c, long long ldc, long long sc, const double* b2, long long ldb2,
                          long long sb2, const double* c2, long long ldc2, long long sc2, double* p, long long ldp,
                          long long sp, double* d2, long long ldd2, long long sd2)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    x += w * sx, y += w * sy, c += w * sc, b2 += w * sb2, c2 += w * sc2, p += w * sp, d2 += w * sd2;
    frag_a<Shape> fx;
    load_a<L>(fx, x, ldx);
    frag_c<Shape> d[NAcc];
    static_for<NAcc>([&](auto q) {
        frag_b<Shape> fy;
        frag_c<Shape> fc;
        load_b<L>(fy, y + offset<L>(0, 8 * q, ldy), ldy);
        load_c<L>(fc, c + offset<L>(0, 8 * q, ldc), ldc);
        mma<Backend>(d[q], fx, fy, fc);
        store_c<L>(p + offset<L>(0, 8 * q, ldp), ldp, d[q]);
    });
    frag_c<Shape> acc;
    load_c<L>(acc, c2, ldc2);
    static_for<8 * NAcc / Shape::k>([&](auto kb_) {
        constexpr int kb = decltype(kb_)::value;
        if constexpr (R == recipe::relabel) {
            const frag_a<Shape, relabelled_k<kb>> fa = relabel_a<Shape, kb>(d);
            frag_b<Shape, relabelled_k<kb>> fb;
            load_b_reused<L, kb>(fb, b2, ldb2);
            mma<Backend>(acc, fa, fb, acc);
        } else {
            const frag_a<Shape> fa = reuse_a_shuffle<Shape, kb>(d);
            frag_b<Shape> fb;
            load_b<L>(fb, b2 + offset<L>(kb * Shape::k, 0, ldb2), ldb2);
            mma<Backend>(acc, fa, fb, acc);
        }
    });
    store_c<L>(d2, ldd2, acc);
}

/// FP16 chain: P = [X * Y0 + C0 | X * Y1 + C1] (accumulators of AccIn), then
/// D2 = reuse_a(P) * Y2 + C2 (accumulators of AccNext).
template <class Backend, class AccIn, class AccNext, layout L>
__global__ void f16_chain(const __half* x, long long ldx, long long sx, const __half* y, long long ldy, long long sy,
                          const AccIn* c, long long ldc, long long sc, const __half* y2, long long ldy2,
                          long long sy2, const AccNext* c2, long long ldc2, long long sc2, AccIn* p, long long ldp,
                          long long sp, AccNext* d2, long long ldd2, long long sd2)
{
    using S1 = f16_m16n8k16<AccIn>;
    using S2 = f16_m16n8k16<AccNext>;
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    x += w * sx, y += w * sy, c += w * sc, y2 += w * sy2, c2 += w * sc2, p += w * sp, d2 += w * sd2;
    frag_a<S1> fx;
    load_a<L>(fx, x, ldx);
    frag_c<S1> d[2];
    static_for<2>([&](auto q) {
        frag_b<S1> fy;
        frag_c<S1> fc;
        load_b<L>(fy, y + offset<L>(0, 8 * q, ldy), ldy);
        load_c<L>(fc, c + offset<L>(0, 8 * q, ldc), ldc);
        mma<Backend>(d[q], fx, fy, fc);
        store_c<L>(p + offset<L>(0, 8 * q, ldp), ldp, d[q]);
    });
    const frag_a<S2> fa = reuse_a<AccNext>(d[0], d[1]);
    frag_b<S2> fb;
    frag_c<S2> acc;
    load_b<L>(fb, y2, ldy2);
    load_c<L>(acc, c2, ldc2);
    mma<Backend>(acc, fa, fb, acc);
    store_c<L>(d2, ldd2, acc);
}

// -- host side -----------------------------------------------------------------

/// Device copies of a chain's operands, launched once per backend.
template <class TX, class TC1, class TC2>
struct chain_data {
    tiled_matrix<TX> X, Y, B2;
    tiled_matrix<TC1> C, P;
    tiled_matrix<TC2> C2, D2;
    device_buffer<TX> dX, dY, dB2;
    device_buffer<TC1> dC, dP;
    device_buffer<TC2> dC2, dD2;
    chain_data(int m, int k, int pcols, layout L, rng& r)
        : X(m, k, L, 3), Y(k, pcols, L, 5), B2(pcols, 8, L, 2), C(m, pcols, L, 1), P(m, pcols, L, 4),
          C2(m, 8, L, 3), D2(m, 8, L, 1), dX(X.data.size()), dY(Y.data.size()), dB2(B2.data.size()),
          dC(C.data.size()), dP(P.data.size()), dC2(C2.data.size()), dD2(D2.data.size())
    {
        X.randomize(r), Y.randomize(r), B2.randomize(r), C.randomize(r), C2.randomize(r);
        dX.upload(X.data), dY.upload(Y.data), dB2.upload(B2.data), dC.upload(C.data), dC2.upload(C2.data);
    }
    void poison() { dP.poison(), dD2.poison(); }
    void download() { P.data = dP.download(), D2.data = dD2.download(); }
};

/// Checks P against X * Y + C and D2 against as_a(P) * B2 + C2, where as_a is
/// what the reuse does to a P element (FP64: nothing; FP16: round to FP16).
/// Acc is the shape's accumulation type (double, or float for FP16).
/// Returns the outputs (P then D2) for the backend comparison.
/// `bounds` receives, per output, the bound for comparing the two backends:
/// P's own bound, and for D2 its bound plus what the backends' different P
/// can change it by: sum_k |B2(k, j)| (2 tol_P(i, k) + a_ulp |P(i, k)|), the
/// last term for the rounding of P into the next A (a_ulp: 2^-10 for FP16).
template <class Acc, class Data, class AsA>
std::vector<double> check_chain(tally& t, const std::string& what, const Data& g, AsA as_a, double a_ulp,
                                std::vector<double>& bounds)
{
    const int M = g.X.rows, K = g.X.cols, PC = g.P.cols;
    using C1 = std::decay_t<decltype(g.P(0, 0, 0))>;
    using C2 = std::decay_t<decltype(g.D2(0, 0, 0))>;
    std::vector<double> out;
    bounds.clear();
    std::vector<double> tol_p(static_cast<std::size_t>(M) * PC);
    for (int w = 0; w < tiles; ++w) {
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < PC; ++j) {
                double ref = to_double(g.C(w, i, j)), s = std::fabs(ref);
                for (int k = 0; k < K; ++k) {
                    const double prod = to_double(g.X(w, i, k)) * to_double(g.Y(w, k, j));
                    ref += prod, s += std::fabs(prod);
                }
                const double got = to_double(g.P(w, i, j)), tol = tolerance<Acc, C1>(K, s, ref);
                t.check(test::close(got, ref, tol), "%s: tile %d P(%d, %d) = %.17g, reference %.17g (tol %.3g)",
                        what.c_str(), w, i, j, got, ref, tol);
                out.push_back(got), bounds.push_back(tol), tol_p[i * PC + j] = tol;
            }
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < 8; ++j) {
                double ref = to_double(g.C2(w, i, j)), s = std::fabs(ref), from_p = 0;
                for (int k = 0; k < PC; ++k) {
                    const double prod = as_a(g.P(w, i, k)) * to_double(g.B2(w, k, j));
                    ref += prod, s += std::fabs(prod);
                    from_p += std::fabs(to_double(g.B2(w, k, j))) *
                              (2 * tol_p[i * PC + k] + a_ulp * std::fabs(to_double(g.P(w, i, k))));
                }
                const double got = to_double(g.D2(w, i, j)), tol = tolerance<Acc, C2>(PC, s, ref);
                t.check(test::close(got, ref, tol), "%s: tile %d D2(%d, %d) = %.17g, P*B2 + C2 = %.17g (tol %.3g)",
                        what.c_str(), w, i, j, got, ref, tol);
                out.push_back(got), bounds.push_back(tol + from_p / 2);
            }
    }
    return out;
}

/// Outputs of the two backends agree within the sum of their bounds.
void compare_backends(tally& t, const std::string& what, const std::vector<double> (&got)[2],
                      const std::vector<double>& bound)
{
    int bad = 0;
    for (std::size_t e = 0; e < got[0].size(); ++e) bad += !test::close(got[0][e], got[1][e], 2 * bound[e]);
    t.check(bad == 0, "%s: tensor_core and cuda_core differ beyond the bounds in %d outputs", what.c_str(), bad);
}

const char* recipe_name(recipe R) { return R == recipe::relabel ? "relabel" : "shuffle"; }

template <class Shape, int NAcc, recipe R, layout L>
void run_f64(tally& t, rng& r)
{
    const std::string what = std::string(Shape::name()) + " " + recipe_name(R) + " reuse, " +
                             (L == layout::row_major ? "row" : "col") + "-major";
    chain_data<double, double, double> g(Shape::m, Shape::k, 8 * NAcc, L, r);
    std::vector<double> got[2], bound;
    auto run = [&](auto backend, int slot) {
        using Backend = decltype(backend);
        g.poison();
        f64_chain<Backend, Shape, NAcc, R, L><<<blocks, 32 * warps_per_block>>>(
            g.dX.ptr, g.X.ld, g.X.stride(), g.dY.ptr, g.Y.ld, g.Y.stride(), g.dC.ptr, g.C.ld, g.C.stride(),
            g.dB2.ptr, g.B2.ld, g.B2.stride(), g.dC2.ptr, g.C2.ld, g.C2.stride(), g.dP.ptr, g.P.ld, g.P.stride(),
            g.dD2.ptr, g.D2.ld, g.D2.stride());
        TCORE_CHECK_LAUNCH();
        TCORE_CHECK(cudaDeviceSynchronize());
        g.download();
        got[slot] = check_chain<double>(t, what + ", " + Backend::name(), g,
                                                [](double v) { return v; }, 0.0, bound);
    };
    run(tensor_core{}, 0);
    run(cuda_core{}, 1);
    compare_backends(t, what, got, bound);
}

template <class AccIn, class AccNext, layout L>
void run_f16(tally& t, rng& r)
{
    const std::string what = std::string("f16 reuse ") + f16_m16n8k16<AccIn>::name() + " -> " +
                             f16_m16n8k16<AccNext>::name() + ", " + (L == layout::row_major ? "row" : "col") +
                             "-major";
    chain_data<__half, AccIn, AccNext> g(16, 16, 16, L, r);
    std::vector<double> got[2], bound;
    auto run = [&](auto backend, int slot) {
        using Backend = decltype(backend);
        g.poison();
        f16_chain<Backend, AccIn, AccNext, L><<<blocks, 32 * warps_per_block>>>(
            g.dX.ptr, g.X.ld, g.X.stride(), g.dY.ptr, g.Y.ld, g.Y.stride(), g.dC.ptr, g.C.ld, g.C.stride(),
            g.dB2.ptr, g.B2.ld, g.B2.stride(), g.dC2.ptr, g.C2.ld, g.C2.stride(), g.dP.ptr, g.P.ld, g.P.stride(),
            g.dD2.ptr, g.D2.ld, g.D2.stride());
        TCORE_CHECK_LAUNCH();
        TCORE_CHECK(cudaDeviceSynchronize());
        g.download();
        // reuse_a rounds each P element to FP16 (round to nearest).
        auto as_a = [](AccIn v) { return to_double(convert_to<__half>(v)); };
        got[slot] = check_chain<float>(t, what + ", " + Backend::name(), g, as_a, 0x1p-10, bound);
    };
    run(tensor_core{}, 0);
    run(cuda_core{}, 1);
    compare_backends(t, what, got, bound);
}

template <layout L>
void run_all(tally& t, rng& r)
{
    run_f64<f64_m8n8k4, 1, recipe::relabel, L>(t, r);
    run_f64<f64_m8n8k4, 1, recipe::shuffle, L>(t, r);
    run_f64<f64_m16n8k4, 1, recipe::relabel, L>(t, r);
    run_f64<f64_m16n8k4, 1, recipe::shuffle, L>(t, r);
    run_f64<f64_m16n8k8, 1, recipe::relabel, L>(t, r);
    run_f64<f64_m16n8k8, 1, recipe::shuffle, L>(t, r);
    run_f64<f64_m16n8k16, 2, recipe::relabel, L>(t, r);
    run_f64<f64_m16n8k16, 2, recipe::shuffle, L>(t, r);
    run_f16<float, float, L>(t, r);
    run_f16<__half, __half, L>(t, r);
    run_f16<float, __half, L>(t, r);
    run_f16<__half, float, L>(t, r);
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    tally t;
    rng r(test::seed());
    const int rounds = tcore::test::quick() ? 1 : 3;
    try {
        for (int round = 0; round < rounds; ++round) {
            run_all<layout::row_major>(t, r);
            run_all<layout::col_major>(t, r);
        }
    } catch (const tcore::error& e) {
        t.check(false, "%s", e.what());
    }
    return t.finish();
}
