// libs: CUDA::cufft
// tests/gpu/test_user_fft_stage.cu - a worked user kernel: batched 8- to
// 64-point complex FP64 DFTs (forward), written as a user would with the
// public radix and split stages of tcore/patterns/dft_stage.cuh, beside
// cuFFT (cufftPlanMany, Z2Z, n = 8 to 64, the same batch).
//
// One warp per group of 8 signals (the 8 MMA columns), grid-stride over the
// groups; signal s = 8 group + g is column g. Lane (g, t) loads inputs t + 4j
// of its signal as complex pairs (the B map), the stage returns the outputs
// in the C map, and the lane stores outputs g (and g + 8) of signals
// 8 group + 2t + e. The batch need not be a multiple of 8: the last group
// loads zeros for the missing signals and skips their stores (no lane leaves
// before the MMA). A second run passes a per-input twiddle w_n (random unit
// complex numbers): the stage then transforms x_n w_n. Both backends.
//
// Tolerance (FP64, u = 2^-53, g_n = n u / (1 - n u)). The stage is the real
// 2R x 2R product [Re Y; Im Y] = [ReF -ImF; ImF ReF] [Re v; Im v]: every
// output is a sum of 2R products a_k b_k (R = 16: two chained MMAs of 16,
// still one sum of 32 terms), |a_k| <= 1. Whatever order the MMA sums in,
// |fl(sum) - sum a^_k b_k| <= g_2R sum |a^_k b_k|, and the constants are
// correctly rounded cos/sin (|a^_k - a_k| <= u |a_k| <= u), so with
// S = sum_n (|Re v_n| + |Im v_n|):
//     |err| <= (g_2R (1 + u) + u) S <= (2R + 2) u S        (R <= 16).
// With twiddles, v^_n = cmul(x_n, w_n) (two FMAs per part) adds
// g_2 (|Re x| + |Im x|)(|Re w| + |Im w|) per input; with
// T = sum_n (|Re x_n| + |Im x_n|)(|Re w_n| + |Im w_n|) >= S the bound is
//     |err| <= (g_2R (1 + u) + u)(1 + g_2) T + g_2 T <= (2R + 5) u T.
// Both are computed per signal on the host (reference: direct DFT in long
// double of the same double inputs and twiddles). cuFFT sums in another
// order with its own constants (log2 R <= 4 butterfly levels of a few u
// each); it is held to twice the kernel's bound.
//
// The split stages (dft::split_stage, R = 16, 32 and 64, no input twiddles,
// the stage's own twiddles from split_twiddles): lane (g, t) loads inputs
// dft::stage_input(t, qq, R) and stores outputs g + 8h. Bound per output
// part, with S_q0 the S of the inputs q0 + R0 q1: each eight-point MMA
// errs by at most (g_16 (1 + u) + u) S_q0 <= 18 u S_q0 in each part; the
// twiddle product (two FMAs a part, a correctly rounded unit constant)
// passes on |dRe| + |dIm| <= 36 u S_q0 and adds at most 3u (|Re| + |Im|)
// <= 6 u S_q0 (plus terms of order u^2); the log2 R0 <= 2 levels of
// butterfly adds add u x (sum of the parts' sizes <= 2S) each. In all
//     |err| <= (43 + 2 log2 R0 + 1) u S <= 48 u S           (R0 <= 4).
// For R0 = 8 the odd half's products by exp(-i pi k/4) (a difference and
// a product by cos pi/4 a part) carry its errors over up to sqrt 2 times
// and add at most 3 u S: |err| <= sqrt 2 (43 + 4) u S + 3 u S + 2 u S
// <= 72 u S.
// Inputs are random and
// never zero; outputs are poisoned (NaN) before every run, so an element
// left unwritten fails.
#include "common/test_util.hpp"

#include <tcore/patterns/dft_stage.cuh>

#include <cufft.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

using namespace tcore;

namespace {

constexpr int warps_per_block = 4;

/// y[s R + k] = sum_n x[s R + n] (w ? w[n] : 1) exp(-2 pi i k n / R), s < batch.
template <class Backend, int R>
__global__ void batched_dft(const double2* x, const double2* w, double2* y, int batch)
{
    constexpr int Q = R / 4;  // inputs per lane of its column
    const int lane = lane_id();
    const int g = lane >> 2, t = lane & 3;
    using matrix = std::conditional_t<R == 8, dft::radix8_matrix<-1>, dft::radix16_matrix<-1>>;
    const matrix f(lane);  // the DFT's A operand(s), once per kernel
    double2 tw[Q];
    for (int j = 0; j < Q; ++j) tw[j] = w ? w[t + 4 * j] : make_double2(1.0, 0.0);

    const int groups = (batch + 7) / 8;
    const int warps = static_cast<int>(gridDim.x * blockDim.x / 32);
    // the loop bound is the same on every lane of a warp: whole warps run the stage
    for (int grp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32); grp < groups; grp += warps) {
        const int s = 8 * grp + g;  // the signal of the lane's input column
        double2 v[Q];
        for (int j = 0; j < Q; ++j)
            v[j] = s < batch ? x[static_cast<long long>(s) * R + t + 4 * j] : make_double2(0.0, 0.0);
        if constexpr (R == 8) {
            const frag_b<dft::stage_shape> b = dft::radix8_b(v);
            const frag_c<dft::stage_shape> d = w ? dft::radix8_stage<Backend>(f, b, tw) : dft::radix8_stage<Backend>(f, b);
            for (int e = 0; e < 2; ++e) {  // output g of signal 8 group + 2t + e: Re in row g, Im in row g + 8
                const int col = 8 * grp + 2 * t + e;
                if (col < batch) y[static_cast<long long>(col) * R + g] = make_double2(d.x[e], d.x[2 + e]);
            }
        } else {
            frag_b<dft::stage_shape> re, im;
            dft::radix16_b(v, re, im);
            frag_c<dft::stage_shape> y_re, y_im;
            if (w) dft::radix16_stage<Backend>(f, re, im, tw, y_re, y_im);
            else dft::radix16_stage<Backend>(f, re, im, y_re, y_im);
            for (int i = 0; i < 4; ++i) {  // output g + 8(i/2) of signal 8 group + 2t + i%2
                const int col = 8 * grp + 2 * t + (i & 1);
                if (col < batch) y[static_cast<long long>(col) * R + g + 8 * (i >> 1)] = make_double2(y_re.x[i], y_im.x[i]);
            }
        }
    }
}

/// The same transforms (no input twiddles) with the split stage: R = 16, 32
/// or 64 as R/8 eight-point MMAs and R/8-point butterflies.
template <class Backend, int R>
__global__ void batched_split_dft(const double2* x, double2* y, int batch)
{
    constexpr int Q = R / 4;  // inputs per lane of its column
    const int lane = lane_id();
    const int g = lane >> 2, t = lane & 3;
    const dft::radix8_matrix<-1> f(lane);
    double2 w[R / 8];
    dft::split_twiddles<R, -1>(lane, w);  // exp(-2 pi i q0 g / R)

    const int groups = (batch + 7) / 8;
    const int warps = static_cast<int>(gridDim.x * blockDim.x / 32);
    for (int grp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32); grp < groups; grp += warps) {
        const int s = 8 * grp + g;
        double2 v[Q];
        for (int qq = 0; qq < Q; ++qq)
            v[qq] = s < batch ? x[static_cast<long long>(s) * R + dft::stage_input(t, qq, R)] : make_double2(0.0, 0.0);
        frag_c<dft::stage_shape> out[R / 8];
        dft::split_stage<Backend, R>(f, v, w, out);
        for (int h = 0; h < R / 8; ++h)
            for (int e = 0; e < 2; ++e) {  // output g + 8h of signal 8 group + 2t + e
                const int col = 8 * grp + 2 * t + e;
                if (col < batch)
                    y[static_cast<long long>(col) * R + g + 8 * h] = make_double2(out[h].x[e], out[h].x[2 + e]);
            }
    }
}

void check_cufft(cufftResult r, const char* what)
{
    if (r != CUFFT_SUCCESS) throw tcore::error(std::string(what) + " failed: cufftResult " + std::to_string(r));
}

struct problem {
    int R, batch;
    bool twiddled;
    std::vector<double2> x, w;      // w: R twiddles, all 1 when !twiddled
    std::vector<double2> y_ref;     // long double DFT, rounded
    std::vector<double> tol;        // per signal
};

problem make_problem(int R, int batch, bool twiddled, test::rng& rng, bool split = false)
{
    problem p{R, batch, twiddled, std::vector<double2>(static_cast<std::size_t>(R) * batch), std::vector<double2>(R),
              {}, std::vector<double>(batch)};
    for (double2& v : p.x) v = make_double2(rng.nonzero(), rng.nonzero());
    for (double2& v : p.w) {
        const double a = twiddled ? rng.uniform(0.0, 6.283185307179586) : 0.0;
        v = make_double2(std::cos(a), std::sin(a));
    }
    p.y_ref.resize(p.x.size());
    const long double u = 0x1p-53L, two_pi = 6.283185307179586476925286766559005768L;
    for (int s = 0; s < batch; ++s) {
        const double2* x = p.x.data() + static_cast<std::size_t>(s) * R;
        long double vr[64], vi[64], T = 0;
        for (int n = 0; n < R; ++n) {
            const long double xr = x[n].x, xi = x[n].y, wr = p.w[n].x, wi = p.w[n].y;
            vr[n] = xr * wr - xi * wi, vi[n] = xr * wi + xi * wr;
            T += (std::fabs(xr) + std::fabs(xi)) * (std::fabs(wr) + std::fabs(wi));
        }
        for (int k = 0; k < R; ++k) {
            long double yr = 0, yi = 0;
            for (int n = 0; n < R; ++n) {
                const long double a = two_pi * static_cast<long double>((k * n) % R) / R;
                const long double c = std::cos(a), sn = -std::sin(a);
                yr += vr[n] * c - vi[n] * sn, yi += vr[n] * sn + vi[n] * c;
            }
            p.y_ref[static_cast<std::size_t>(s) * R + k] = make_double2(static_cast<double>(yr), static_cast<double>(yi));
        }
        // without twiddles w = 1 and T = S
        p.tol[s] = static_cast<double>((split ? (R == 64 ? 72 : 48) : twiddled ? 2 * R + 5 : 2 * R + 2) * u * T);
    }
    return p;
}

void compare(test::tally& t, const problem& p, const std::vector<double2>& y, double factor, const char* what)
{
    int bad = 0;
    double worst = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        const double tol = factor * p.tol[i / p.R];
        const double err = std::fmax(std::fabs(y[i].x - p.y_ref[i].x), std::fabs(y[i].y - p.y_ref[i].y));
        if (!(err <= tol) && ++bad <= 3)
            std::printf("  %s R %d batch %d: y[%zu] = (%.17g, %.17g), want (%.17g, %.17g), bound %.3g\n", what, p.R,
                        p.batch, i, y[i].x, y[i].y, p.y_ref[i].x, p.y_ref[i].y, tol);
        if (tol > 0 && err == err) worst = std::fmax(worst, err / tol);
    }
    t.check(bad == 0, "%s R %d batch %d%s: %d of %zu outside the bound", what, p.R, p.batch,
            p.twiddled ? " twiddled" : "", bad, y.size());
    std::printf("  %-12s R %2d batch %5d%s: worst error %.3f of the bound\n", what, p.R, p.batch,
                p.twiddled ? " twiddled" : "         ", worst);
}

template <class Backend, int R, bool Split = false>
void run_stage(test::tally& t, const problem& p, const char* what)
{
    test::device_buffer<double2> x(p.x.size()), w(p.w.size()), y(p.x.size());
    x.upload(p.x), w.upload(p.w);
    y.poison();
    const int groups = (p.batch + 7) / 8;
    const int blocks = (groups + warps_per_block - 1) / warps_per_block;
    if constexpr (Split)
        batched_split_dft<Backend, R><<<blocks < 64 ? blocks : 64, 32 * warps_per_block>>>(x.ptr, y.ptr, p.batch);
    else
        batched_dft<Backend, R><<<blocks < 64 ? blocks : 64, 32 * warps_per_block>>>(
            x.ptr, p.twiddled ? w.ptr : nullptr, y.ptr, p.batch);
    TCORE_CHECK_LAUNCH();
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, y.download(), 1.0, what);
}

void run_cufft(test::tally& t, const problem& p)
{
    test::device_buffer<double2> x(p.x.size()), y(p.x.size());
    x.upload(p.x);
    y.poison();
    int n = p.R;
    cufftHandle h;
    check_cufft(cufftPlanMany(&h, 1, &n, nullptr, 1, n, nullptr, 1, n, CUFFT_Z2Z, p.batch), "cufftPlanMany");
    const cufftResult ex = cufftExecZ2Z(h, reinterpret_cast<cufftDoubleComplex*>(x.ptr),
                                        reinterpret_cast<cufftDoubleComplex*>(y.ptr), CUFFT_FORWARD);
    cufftDestroy(h);
    check_cufft(ex, "cufftExecZ2Z");
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, y.download(), 2.0, "cuFFT");
}

template <int R>
void run_all(test::tally& t, test::rng& rng)
{
    for (const int batch : {1, 13, 1003}) {
        const problem p = make_problem(R, batch, false, rng);
        run_stage<tensor_core, R>(t, p, "tensor_core");
        run_stage<cuda_core, R>(t, p, "cuda_core");
        run_cufft(t, p);
        const problem q = make_problem(R, batch, true, rng);
        run_stage<tensor_core, R>(t, q, "tensor_core");
        run_stage<cuda_core, R>(t, q, "cuda_core");
    }
}

template <int R>
void run_split(test::tally& t, test::rng& rng)
{
    for (const int batch : {1, 13, 1003}) {
        const problem p = make_problem(R, batch, false, rng, true);
        run_stage<tensor_core, R, true>(t, p, "split tc");
        run_stage<cuda_core, R, true>(t, p, "split cc");
        run_cufft(t, p);
    }
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    test::tally t;
    test::rng rng(test::seed());
    run_all<8>(t, rng);
    run_all<16>(t, rng);
    run_split<16>(t, rng);
    run_split<32>(t, rng);
    run_split<64>(t, rng);
    return t.finish();
}
