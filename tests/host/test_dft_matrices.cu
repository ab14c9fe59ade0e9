// tests/host/test_dft_matrices.cu - CPU checks of tcore/patterns/dft.cuh:
//   * cos16/sin16 are the correctly rounded cos/sin of multiples of 2 pi/16;
//   * the R-point DFT matrices (R = 2, 4, 8, 16) are unitary up to scaling,
//     F F^H = R I, and their real forms satisfy A A^T = R I and reproduce
//     the complex product;
//   * a_radix8 / a_radix16 spread exactly those matrices over the warp
//     through the m16n8k16 lane map (each element held once);
//   * the radix stage's placement (dft_stage.cuh): radix8_matrix /
//     radix16_matrix hold those fragments, and inputs placed as documented
//     (radix8_b / radix16_b from the lane's complex inputs t + 4j of column
//     g, twiddled by dft::cmul) give, through the stage's MMAs, the DFT of
//     each of the 8 columns at the documented C-map outputs;
//   * the twiddle table matches long double trigonometry;
//   * swizzle is a bijection of every signal's slots, tile_slot of every
//     tile's, with the swizzle's bank group;
//   * the kernel's split indices (dft::tile_slot, dft::xor_fixed): for every
//     index of every stage, lane part ^ fixed part (and the twiddle exponent
//     from split i mod p) equals the direct formula, and the two parts share
//     no bit above the low three;
//   * a host model of fft_pass_kernel (device/fft_pass.cuh): the same stage loop,
//     column mapping, swizzled shared-memory slots, twiddles, fragments and
//     the CUDA-core MMA's code (mma_emulated) for all 32 lanes of every warp,
//     gives the long double reference DFT for N = 64 .. 4096, forward and
//     inverse, contiguous and strided (2D column) passes;
//     The model loads the tile as the kernel's cp.async does (16-byte chunks
//     in dft::tile_chunk order into the slots of dft::tile_slot: chunk j
//     in shared row j / 8) and stores the last
//     stage through the lane-pair exchange (dft::exchanged_slot); it checks
//     that every output is written exactly once and that each last-stage
//     store instruction writes whole 32-byte sectors (all but the strided
//     passes of M = 1 signal per tile, N >= 2048, whose rows are 16 bytes);
//   * the same model replays the shared-memory addresses of every 16-byte
//     access instruction (tile-load writes, every stage's reads and
//     writes) per warp and per 8-lane phase and counts wavefronts as the
//     hardware serves them (an LDS/STS phase is one wavefront when its
//     slots fall in distinct 16-byte bank groups): every stage read and
//     write takes 4 per instruction, the ideal, for N = 64 .. 4096 and both
//     pass kinds. The tile loads (LDGSTS) follow the rule Nsight Compute
//     measured (phase::ldgsts: global lines x shared rows per phase): 4,
//     one line into one row per phase, but for the strided tiles of M < 8
//     signals, whose 8/M image rows per phase are 8/M lines (8, 16, 32 for
//     M = 4, 2, 1). Each load instruction reads whole 32-byte global
//     sectors (but the strided M = 1, 16-byte rows);
//   * a host model of the one-pass 2D kernel (fft2d_cluster_kernel): row
//     tiles whose last stage writes back into the tile, pushed into the
//     column tiles by the kernel's formula (each slot once), for 256x256,
//     against the long double 2D reference;
//   * the direct row kernel's first-stage loads (fft_direct_kernel,
//     fft_tile_stages<..., Direct>: global memory straight into the MMA
//     operands): each lane's element as the kernel splits it (lane part +
//     fixed part) is the stage's input, every element of the tile is read
//     once, and every 8 lanes of a load instruction read one whole 128-byte
//     line (a warp four);
//   * the long double reference itself against a direct O(N^2) DFT.
#include "common/test_util.hpp"

#include <tcore/patterns/device/fft.cuh>
#include <tcore/patterns/dft.cuh>
#include <tcore/patterns/dft_stage.cuh>

#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

using namespace tcore;
using cd = std::complex<double>;
using K16 = f64_m16n8<16>;

namespace {

test::tally T;
const long double two_pi = 6.283185307179586476925286766559005768L;

template <class Frag>
struct fetch_from {
    const Frag* frags;
    template <class I>
    __host__ __device__ typename Frag::value_type operator()(int src, I i) const
    {
        return frags[src].x[static_cast<int>(i)];
    }
};

/// D = A*B + C for 32 lanes with the CUDA-core MMA's own code.
void host_mma(frag_c<K16> (&d)[32], const frag_a<K16> (&a)[32], const frag_b<K16> (&b)[32], const frag_c<K16> (&c)[32])
{
    for (int lane = 0; lane < 32; ++lane) {
        double acc[4];
        for (int i = 0; i < 4; ++i) acc[i] = c[lane].x[i];
        mma_emulated<K16>(lane, acc, fetch_from<frag_a<K16>>{a}, fetch_from<frag_b<K16>>{b});
        for (int i = 0; i < 4; ++i) d[lane].x[i] = acc[i];
    }
}

// -- constants and matrices ------------------------------------------------------------

void check_constants()
{
    for (int j = -40; j <= 40; ++j) {
        const long double ang = two_pi * j / 16.0L;
        const double c = static_cast<double>(std::cos(ang)), s = static_cast<double>(std::sin(ang));
        // exact zeros come out of long double as tiny values; compare with a hair of slack there
        T.check(dft::cos16(j) == c || std::fabs(dft::cos16(j) - c) < 1e-18, "cos16(%d) = %.17g, expected %.17g", j,
                dft::cos16(j), c);
        T.check(dft::sin16(j) == s || std::fabs(dft::sin16(j) - s) < 1e-18, "sin16(%d) = %.17g, expected %.17g", j,
                dft::sin16(j), s);
    }
    for (int j = -160; j <= 160; ++j)
        for (int sign : {-1, 1}) {
            const long double ang = two_pi * j / 64.0L;
            const double c = static_cast<double>(std::cos(ang)), s = static_cast<double>(sign * std::sin(ang));
            const double2 w = dft::root64(j, sign);
            T.check((w.x == c || std::fabs(w.x - c) < 1e-18) && (w.y == s || std::fabs(w.y - s) < 1e-18),
                    "root64(%d, %d) = (%.17g, %.17g), expected (%.17g, %.17g)", j, sign, w.x, w.y, c, s);
        }
    // butterflies: the R0-point DFT of random values against long double.
    // Bound per output part, S = sum_q (|Re a_q| + |Im a_q|), u = 2^-53:
    // each of the log2 R0 <= 3 levels of adds rounds by at most u x (the sum
    // of its inputs' sizes <= S); for 8 points the products by exp(i pi k/4)
    // (a difference, then a product by cos pi/4) carry the first two
    // levels' errors over up to sqrt 2 times and add at most 2u S:
    // |err| <= sqrt 2 (2 u S) + 2u S + u S < 6 u S. Checked against 8 u S,
    // over 1000 random inputs per size and sign.
    test::rng r(test::seed() + 3);
    for (int sign : {-1, 1}) {
        double worst = 0;  // error over bound
        for (int trial = 0; trial < 1000; ++trial) {
            double2 a[8], b2[2], b4[4], b8[8];
            for (double2& v : a) v = make_double2(r.nonzero(), r.nonzero());
            const double2 a2[2] = {a[0], a[1]}, a4[4] = {a[0], a[1], a[2], a[3]};
            if (sign < 0) dft::butterflies<-1>(a2, b2), dft::butterflies<-1>(a4, b4), dft::butterflies<-1>(a, b8);
            else dft::butterflies<1>(a2, b2), dft::butterflies<1>(a4, b4), dft::butterflies<1>(a, b8);
            for (int R0 : {2, 4, 8}) {
                long double S = 0;
                for (int q = 0; q < R0; ++q) S += std::fabs(a[q].x) + std::fabs(a[q].y);
                for (int m = 0; m < R0; ++m) {
                    std::complex<long double> want = 0;
                    for (int q = 0; q < R0; ++q) {
                        const long double ang = sign * two_pi * ((q * m) % R0) / R0;
                        want += std::complex<long double>(a[q].x, a[q].y) *
                                std::complex<long double>(std::cos(ang), std::sin(ang));
                    }
                    const double2 got = R0 == 2 ? b2[m] : R0 == 4 ? b4[m] : b8[m];
                    const long double err = std::fmax(std::fabs(got.x - want.real()), std::fabs(got.y - want.imag()));
                    worst = std::fmax(worst, static_cast<double>(err / (8 * 0x1p-53L * S)));
                }
            }
        }
        T.check(worst <= 1.0, "butterflies (sign %d): worst error %.3f of the bound 8 u S", sign, worst);
        std::printf("butterflies (sign %+d): worst error %.3f of the bound\n", sign, worst);
    }
}

void check_matrices()
{
    for (int R : {2, 4, 8, 16})
        for (int sign : {-1, 1}) {
            // F F^H = R I
            double worst = 0;
            for (int i = 0; i < R; ++i)
                for (int j = 0; j < R; ++j) {
                    std::complex<long double> sum = 0;
                    for (int k = 0; k < R; ++k) {
                        const std::complex<long double> a(dft::root_re(R, i * k), dft::root_im(R, i * k, sign));
                        const std::complex<long double> b(dft::root_re(R, j * k), dft::root_im(R, j * k, sign));
                        sum += a * std::conj(b);
                    }
                    const long double expect = i == j ? R : 0;
                    worst = tcore::test::worst_of(worst, static_cast<double>(std::abs(sum - expect)));
                }
            T.check(worst < 4e-15, "F%d (sign %d): |F F^H - R I| = %.3g", R, sign, worst);
            // the entries are the roots of unity
            for (int k = 0; k < R; ++k)
                for (int n = 0; n < R; ++n) {
                    const long double ang = sign * two_pi * ((k * n) % R) / R;
                    T.check(std::fabs(dft::root_re(R, k * n) - static_cast<double>(std::cos(ang))) < 1e-16 &&
                                std::fabs(dft::root_im(R, k * n, sign) - static_cast<double>(std::sin(ang))) < 1e-16,
                            "F%d[%d][%d]", R, k, n);
                }
            // real form: A A^T = R I, and A [Re x; Im x] = [Re Fx; Im Fx]
            worst = 0;
            for (int i = 0; i < 2 * R; ++i)
                for (int j = 0; j < 2 * R; ++j) {
                    long double sum = 0;
                    for (int k = 0; k < 2 * R; ++k)
                        sum += static_cast<long double>(dft::real_form(R, sign, i, k)) * dft::real_form(R, sign, j, k);
                    worst = tcore::test::worst_of(worst, static_cast<double>(std::fabs(sum - (i == j ? R : 0))));
                }
            T.check(worst < 4e-15, "real form of F%d (sign %d): |A A^T - R I| = %.3g", R, sign, worst);
            test::rng r(test::seed() + R);
            std::vector<cd> x(R);
            for (cd& v : x) v = {r.uniform(), r.uniform()};
            for (int k = 0; k < R; ++k) {
                std::complex<long double> y = 0;
                for (int n = 0; n < R; ++n)
                    y += std::complex<long double>(dft::root_re(R, k * n), dft::root_im(R, k * n, sign)) *
                         std::complex<long double>(x[n].real(), x[n].imag());
                long double re = 0, im = 0;
                for (int n = 0; n < R; ++n) {
                    re += static_cast<long double>(dft::real_form(R, sign, k, n)) * x[n].real() +
                          static_cast<long double>(dft::real_form(R, sign, k, R + n)) * x[n].imag();
                    im += static_cast<long double>(dft::real_form(R, sign, R + k, n)) * x[n].real() +
                          static_cast<long double>(dft::real_form(R, sign, R + k, R + n)) * x[n].imag();
                }
                T.check(std::fabs(static_cast<double>(re - y.real())) < 1e-15 &&
                            std::fabs(static_cast<double>(im - y.imag())) < 1e-15,
                        "real form of F%d times x, output %d", R, k);
            }
        }
}

/// The lane generators put every element of the 16x16 operands in exactly one place.
void check_lane_operands()
{
    for (int sign : {-1, 1}) {
        int held8[16][16] = {}, held16[16][16] = {};
        for (int lane = 0; lane < 32; ++lane) {
            const frag_a<K16> a8 = sign < 0 ? dft::a_radix8<-1>(lane) : dft::a_radix8<1>(lane);
            frag_a<K16> re, im;
            if (sign < 0) dft::a_radix16<-1>(lane, re, im);
            else dft::a_radix16<1>(lane, re, im);
            for (int i = 0; i < 8; ++i) {
                const coord rc = K16::a_coord(lane, i);
                ++held8[rc.row][rc.col];
                ++held16[rc.row][rc.col];
                T.check(a8.x[i] == dft::real_form(8, sign, rc.row, rc.col), "a_radix8 lane %d elem %d", lane, i);
                T.check(re.x[i] == dft::root_re(16, rc.row * rc.col) &&
                            im.x[i] == dft::root_im(16, rc.row * rc.col, sign),
                        "a_radix16 lane %d elem %d", lane, i);
            }
        }
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j)
                T.check(held8[i][j] == 1 && held16[i][j] == 1, "operand element (%d,%d) held %d/%d times", i, j,
                        held8[i][j], held16[i][j]);
    }
}

/// The stage's documented placement, with the MMAs of radix8_stage /
/// radix16_stage done by host_mma: 8 columns of random inputs, random unit
/// twiddles (as the twiddled overloads apply them), all 32 lanes.
template <int R, int Sign>
void check_stage_placement()
{
    test::rng rng(test::seed() + static_cast<std::uint64_t>(2 * R + (Sign > 0)));
    constexpr int Q = R / 4;
    cd x[8][R], w[R];
    for (int col = 0; col < 8; ++col)
        for (int n = 0; n < R; ++n) x[col][n] = {rng.nonzero(), rng.nonzero()};
    for (int n = 0; n < R; ++n) {
        const double a = rng.uniform(0.0, 6.283185307179586);
        w[n] = {std::cos(a), std::sin(a)};
    }
    frag_a<K16> f0[32], f1[32];
    frag_b<K16> b0[32], b1[32], nb1[32];
    frag_c<K16> zero[32], y0[32], y1[32];
    for (int lane = 0; lane < 32; ++lane) {
        const int g = lane >> 2, t = lane & 3;
        double2 v[Q];
        for (int j = 0; j < Q; ++j) {
            const cd in = x[g][t + 4 * j];
            v[j] = dft::cmul(make_double2(in.real(), in.imag()), make_double2(w[t + 4 * j].real(), w[t + 4 * j].imag()));
        }
        fill(zero[lane], 0.0);
        if constexpr (R == 8) {
            f0[lane] = dft::radix8_matrix<Sign>(lane).f;
            b0[lane] = dft::radix8_b(v);
        } else {
            const dft::radix16_matrix<Sign> F(lane);
            f0[lane] = F.re, f1[lane] = F.im;
            dft::radix16_b(v, b0[lane], b1[lane]);
            for (int j = 0; j < 4; ++j) nb1[lane].x[j] = -b1[lane].x[j];
        }
    }
    if constexpr (R == 8) {
        host_mma(y0, f0, b0, zero);
    } else {
        host_mma(y0, f0, b0, zero), host_mma(y0, f1, nb1, y0);  // Re Y
        host_mma(y1, f1, b0, zero), host_mma(y1, f0, b1, y1);   // Im Y
    }
    double worst = 0;
    bool placed = true;
    for (int lane = 0; lane < 32; ++lane) {
        const int g = lane >> 2, t = lane & 3;
        for (int i = 0; i < 4; ++i) {
            int col, r;
            double re, im;
            if constexpr (R == 8) {
                if (i >= 2) continue;
                col = 2 * t + i, r = g, re = y0[lane].x[i], im = y0[lane].x[2 + i];
            } else {
                col = 2 * t + (i & 1), r = g + 8 * (i >> 1), re = y0[lane].x[i], im = y1[lane].x[i];
            }
            std::complex<long double> ref = 0;
            long double sum = 0;
            for (int n = 0; n < R; ++n) {
                const long double a = two_pi * static_cast<long double>((r * n) % R) / R;
                const std::complex<long double> xn(x[col][n].real(), x[col][n].imag()), wn(w[n].real(), w[n].imag());
                ref += xn * wn * std::complex<long double>(std::cos(a), Sign * std::sin(a));
                sum += std::fabs(static_cast<long double>(x[col][n].real())) + std::fabs(static_cast<long double>(x[col][n].imag()));
            }
            const long double dre = std::fabs(re - ref.real()), dim = std::fabs(im - ref.imag());
            const long double err = std::isnan(dre) || std::isnan(dim) ? dre + dim : std::max(dre, dim);  // NaN stays NaN
            const long double bound = (2 * R + 5) * 0x1p-53L * sum * 2;  // |w| = 1: T <= 2 sum
            placed = placed && err <= bound;
            worst = tcore::test::worst_of(worst, static_cast<double>(err / bound));
        }
    }
    T.check(placed, "radix-%d stage (sign %d): outputs at the documented places, worst %.3f of the bound", R, Sign,
            worst);
}

void check_twiddles()
{
    for (int N : {64, 4096})
        for (int sign : {-1, 1}) {
            const auto t = dft::twiddle_table(N, sign);
            double worst = 0;
            for (int e = 0; e < N; ++e) {
                const long double a = two_pi * e / N;
                worst = tcore::test::worst_of(worst, std::fabs(t[e].real() - static_cast<double>(std::cos(a))));
                worst = tcore::test::worst_of(worst, std::fabs(t[e].imag() - static_cast<double>(sign * std::sin(a))));
            }
            T.check(worst == 0, "twiddle table N=%d sign %d off by %.3g", N, sign, worst);
        }
}

void check_swizzle()
{
    for (int L = 6; L <= 12; ++L) {
        const int N = 1 << L;
        for (int s = 0; s < 9; ++s) {
            std::vector<int> seen(N, 0);
            bool groups = true;
            for (int n = 0; n < N; ++n) {
                const int p = dft::swizzle(s, n);
                if (p >= 0 && p < N) ++seen[p];
                groups = groups && (p >> 3) == (n >> 3);
            }
            bool bij = true;
            for (int v : seen) bij = bij && v == 1;
            T.check(bij && groups, "swizzle L=%d s=%d is not a bijection within groups of 8", L, s);
        }
        // tile_slot: a bijection of the tile's slots whose bank group is the swizzle's
        for (const int tile : {0, 1, 2}) {  // rows, columns, the columns' line tile
            const bool strided = tile > 0;
            const int per_cta = tile == 2 ? dft::line_tile_values(L) : dft::tile_values(L, strided), M = per_cta / N;
            std::vector<int> seen(per_cta, 0);
            bool banks = true;
            for (int s = 0; s < M; ++s)
                for (int n = 0; n < N; ++n) {
                    const int slot = dft::tile_slot(L, M, strided, s, n);
                    if (slot >= 0 && slot < per_cta) ++seen[slot];
                    banks = banks && (slot & 7) == (dft::swizzle(s, n) & 7);
                }
            bool bij = true;
            for (int v : seen) bij = bij && v == 1;
            T.check(bij && banks, "tile_slot L=%d %s: not a bijection, or bank groups not the swizzle's", L,
                    strided ? "strided" : "contiguous");
        }
    }
}

/// Every index fft_pass_kernel forms from a lane part and a fixed part
/// equals the direct formula (the model below uses the direct ones).
template <bool Strided>
void check_split_indices(int L, int per_cta = 0)
{
    if (per_cta == 0) per_cta = dft::tile_values(L, Strided);
    const int N = 1 << L, M = per_cta / N;
    const int threads = per_cta == dft::tile_values(L, Strided) ? dft::tile_threads(L, Strided) : per_cta / 8;
    const int warps = threads / 32, S = dft::stages(L);
    const long long nx = 4096;  // a column pass's n stride (any multiple of M)
    bool ok = true, disjoint = true;
    auto split = [&](int lane_part, int fixed, int direct) {
        disjoint = disjoint && (lane_part & fixed & ~7) == 0;
        ok = ok && dft::xor_fixed(lane_part, fixed) == direct;
    };
    // tile load: chunk j = tid + threads u
    for (int tid = 0; tid < threads; ++tid)
        for (int u = 0; u < per_cta / threads; ++u) {
            const dft::chunk c = dft::tile_chunk(tid + threads * u, N, M, Strided);
            const dft::chunk lc = dft::tile_chunk(tid, N, M, Strided), fc = dft::tile_chunk(threads * u, N, M, Strided);
            split(dft::tile_slot(L, M, Strided, lc.s, lc.n), dft::tile_slot(L, M, Strided, fc.s, fc.n),
                  dft::tile_slot(L, M, Strided, c.s, c.n));
            const long long src = Strided ? c.s + c.n * nx : static_cast<long long>(c.s) * N + c.n;
            const long long src_split = Strided ? (lc.s + lc.n * nx) + (fc.s + fc.n * nx) : tid + threads * u;
            ok = ok && src == src_split && lc.s + fc.s == c.s;
        }
    for (int stage = 0; stage < S; ++stage) {
        const int R = dft::radix(L, stage), p = dft::stride_before(L, stage), NR = N / R;
        const bool mode_b = Strided && (stage == 0 || stage == S - 1), last = stage == S - 1;
        const int G = (per_cta / R / 8) / warps, Q = R / 4;
        for (int warp = 0; warp < warps; ++warp)
            for (int lane = 0; lane < 32; ++lane) {
                const int g = lane >> 2, t = lane & 3;
                for (int u = 0; u < G; ++u) {
                    const int grp = warp + warps * u;
                    const dft::column rc = dft::column_of(8 * warp + g, NR, M, mode_b);
                    const dft::column rf = dft::column_of(8 * warps * u, NR, M, mode_b);
                    const dft::column col = dft::column_of(8 * grp + g, NR, M, mode_b);
                    for (int qq = 0; qq < Q; ++qq) {
                        const int q = dft::stage_input(t, qq, R);
                        ok = ok && q == dft::stage_input(t, 0, R) + dft::stage_input(0, qq, R);
                        split(dft::tile_slot(L, M, Strided, rc.s, rc.i + dft::stage_input(t, 0, R) * NR),
                              dft::tile_slot(L, M, Strided, rf.s, rf.i + dft::stage_input(0, qq, R) * NR),
                              dft::tile_slot(L, M, Strided, col.s, col.i + q * NR));
                        const int k_mod_p = (rc.i & (p - 1)) + (rf.i & (p - 1));
                        ok = ok && dft::twiddle_exp_k(k_mod_p, q, R, p, N) == dft::twiddle_exp(col.i, q, R, p, N);
                    }
                    for (int h = 0; h < R / 8; ++h)
                        for (int e = 0; e < 2; ++e) {
                            if (last) {
                                const dft::store_slot sl = dft::exchanged_slot(g, t, e, h);
                                const dft::store_slot ls = dft::exchanged_slot(g, t, 0, 0), fs = dft::exchanged_slot(0, 0, e, h);
                                const dft::column c = dft::column_of(8 * grp + sl.col, NR, M, mode_b);
                                const dft::column lc = dft::column_of(8 * warp + ls.col, NR, M, mode_b);
                                const dft::column fc = dft::column_of(8 * warps * u + fs.col, NR, M, mode_b);
                                const long long n = dft::stockham_out(c.i, sl.r, R, p);
                                const long long ln = dft::stockham_out(lc.i, ls.r, R, p), fn = dft::stockham_out(fc.i, fs.r, R, p);
                                const long long off = Strided ? c.s + n * nx : c.s * N + n;
                                const long long off_split = Strided ? (lc.s + ln * nx) + (fc.s + fn * nx) : (lc.s * N + ln) + (fc.s * N + fn);
                                ok = ok && off == off_split && lc.s + fc.s == c.s;
                            } else {
                                const dft::column c = dft::column_of(8 * grp + 2 * t + e, NR, M, mode_b);
                                const dft::column lc = dft::column_of(8 * warp + 2 * t, NR, M, mode_b);
                                const dft::column fc = dft::column_of(8 * warps * u + e, NR, M, mode_b);
                                split(dft::tile_slot(L, M, Strided, lc.s, dft::stockham_out(lc.i, g, R, p)),
                                      dft::tile_slot(L, M, Strided, fc.s, dft::stockham_out(fc.i, 8 * h, R, p)),
                                      dft::tile_slot(L, M, Strided, c.s, dft::stockham_out(c.i, g + 8 * h, R, p)));
                            }
                        }
                }
            }
    }
    T.check(ok, "N=%d %s M=%d: a split index differs from the direct formula", N, Strided ? "strided" : "contiguous",
            M);
    T.check(disjoint, "N=%d %s M=%d: lane and fixed parts share a bit above the low three", N,
            Strided ? "strided" : "contiguous", M);
}

void check_reference()
{
    test::rng r(test::seed() + 5);
    for (int N : {8, 64, 128})
        for (int sign : {-1, 1}) {
            std::vector<cd> x(N);
            for (cd& v : x) v = {r.uniform(), r.uniform()};
            const auto y = dft::fft_reference(x.data(), N, 1, static_cast<fft_direction>(sign));
            double worst = 0;
            for (int k = 0; k < N; ++k) {
                std::complex<long double> s = 0;
                for (int n = 0; n < N; ++n) {
                    const long double a = sign * two_pi * ((static_cast<long long>(k) * n) % N) / N;
                    s += std::complex<long double>(x[n].real(), x[n].imag()) *
                         std::complex<long double>(std::cos(a), std::sin(a));
                }
                worst = tcore::test::worst_of(worst, static_cast<double>(std::abs(std::complex<long double>(y[k].real(), y[k].imag()) - s)));
            }
            T.check(worst < 1e-14, "reference FFT N=%d sign %d vs direct DFT: %.3g", N, sign, worst);
        }
    // 2D: rows then columns equals the separable double sum on an 8x4 example... use 64 x 2 (nx x ny)
    std::vector<cd> x(64 * 2);
    for (cd& v : x) v = {r.uniform(), r.uniform()};
    const auto y = dft::fft_reference(x.data(), 64, 2, fft_direction::forward);
    double worst = 0;
    for (int ky = 0; ky < 2; ++ky)
        for (int kx = 0; kx < 64; ++kx) {
            std::complex<long double> s = 0;
            for (int yy = 0; yy < 2; ++yy)
                for (int xx = 0; xx < 64; ++xx) {
                    const long double a = -two_pi * (static_cast<long double>((kx * xx) % 64) / 64 +
                                                     static_cast<long double>((ky * yy) % 2) / 2);
                    s += std::complex<long double>(x[yy * 64 + xx].real(), x[yy * 64 + xx].imag()) *
                         std::complex<long double>(std::cos(a), std::sin(a));
                }
            const cd g = y[ky * 64 + kx];
            worst = tcore::test::worst_of(worst, static_cast<double>(std::abs(std::complex<long double>(g.real(), g.imag()) - s)));
        }
    T.check(worst < 1e-14, "2D reference vs direct sum: %.3g", worst);
}

// -- host model of fft_pass_kernel -------------------------------------------------

/// Shared-memory wavefronts of the instructions of one kind of access of a
/// stage, per instruction (the worst over the warps).
struct access_stats {
    std::vector<int> wavefronts;
    void note(std::size_t instr, int wf)
    {
        if (wavefronts.size() <= instr) wavefronts.resize(instr + 1, 0);
        wavefronts[instr] = std::max(wavefronts[instr], wf);
    }
};
struct stage_stats {
    access_stats read, write;  ///< LDS of the read half, STS of the write half
};
struct pass_stats {
    std::vector<stage_stats> stage;
    access_stats load;          ///< tile-load (LDGSTS) wavefronts by the measured rule (phase::ldgsts)
    bool load_rows_in_order = true;  ///< tile-load chunk j lands in shared row j / 8
    bool load_whole_sectors = true;  ///< every tile-load instruction reads whole 32-byte sectors
    bool whole_sectors = true;  ///< every last-stage store instruction covers whole 32-byte sectors
    bool each_once = true;      ///< every output written exactly once
};

/// The 16-byte slots one warp instruction touches, by 8-lane phase (and,
/// for a tile load, the 128-byte global lines it reads). The hardware
/// serves a 128-bit shared-memory access in 4 phases of 8 consecutive
/// lanes; an LDS/STS phase takes one wavefront when its distinct slots fall
/// in distinct 16-byte bank groups (slot mod 8, the tile buffers being
/// 128-byte aligned), else as many as the most slots one group holds.
///
/// LDGSTS.128 (16-byte cp.async) does not follow the bank rule. Nsight
/// Compute on an H200, a probe kernel of 32 lanes, wavefronts per
/// instruction (ideal 4):
///   each phase reads one aligned 128-byte global line and writes
///     one aligned 128-byte shared row, in lane order ................. 4
///   the same, the row's slots permuted by a constant or per-row XOR .. 4
///   one global line into 8 shared rows (distinct bank groups) ........ 32
///   8 global lines into one shared row ............................... 32
///   the shared destination 48 bytes off (rows straddled) ............. 16
///   the global source 16 bytes off ................................... 12
/// So a phase is one wavefront only when it reads one line and writes one
/// row, in any order within them. The model charges a phase (distinct
/// global lines) x (distinct shared rows): exact for the aligned cases
/// above, low for the straddled ones (2 per phase where 4 and 3 were
/// measured), which the kernels do not have (128-byte aligned buffers,
/// tiles starting on 128-byte lines).
struct phase {
    int slot[32] = {};
    long long line[32] = {};
    void add(int lane, int s, long long global_line = 0) { slot[lane] = s, line[lane] = global_line; }
    int wavefronts() const
    {
        int total = 0;
        for (int ph = 0; ph < 4; ++ph) {
            int most = 0;
            for (int group = 0; group < 8; ++group) {
                int distinct = 0;
                for (int a = 8 * ph; a < 8 * ph + 8; ++a) {
                    bool first = (slot[a] & 7) == group;
                    for (int b = 8 * ph; b < a && first; ++b) first = slot[b] != slot[a];
                    distinct += first;
                }
                most = std::max(most, distinct);
            }
            total += most;
        }
        return total;
    }
    /// LDGSTS wavefronts: per phase, distinct global lines x distinct
    /// shared 128-byte rows (slot / 8), summed over the 4 phases.
    int ldgsts() const
    {
        int total = 0;
        for (int ph = 0; ph < 4; ++ph) {
            int lines = 0, rows = 0;
            for (int a = 8 * ph; a < 8 * ph + 8; ++a) {
                bool new_line = true, new_row = true;
                for (int b = 8 * ph; b < a; ++b) {
                    new_line = new_line && line[b] != line[a];
                    new_row = new_row && (slot[b] >> 3) != (slot[a] >> 3);
                }
                lines += new_line, rows += new_row;
            }
            total += lines * rows;
        }
        return total;
    }
};

/// dft::butterflies on the first R0 entries of 8-entry arrays.
template <int Sign, int R0>
void split_butterflies(const double2 (&a)[8], double2 (&y)[8])
{
    double2 in[R0], out[R0];
    for (int i = 0; i < R0; ++i) in[i] = a[i];
    dft::butterflies<Sign>(in, out);
    for (int i = 0; i < R0; ++i) y[i] = out[i];
}

/// One tile's pass on the CPU, step for step as the kernel: `data` holds
/// M signals, element (s, n) at data[s * N + n] (contiguous) or
/// data[n * M + s] (strided: M adjacent image columns). `loaded`: the tile
/// as it already sits in shared memory (the load is skipped); `kept`: the
/// last stage writes back into the tile (fft_tile_stages<..., ToShared>),
/// which is returned there, and `data` is read out of it at
/// tile_slot(s, n). (The one-pass 2D kernel: rows kept, columns loaded.)
template <int L, int Sign, bool Strided, int PerCta = dft::tile_values(L, Strided)>
pass_stats model_pass(std::vector<cd>& data, const std::vector<cd>* loaded = nullptr, std::vector<cd>* kept = nullptr)
{
    constexpr int N = 1 << L;
    constexpr int per_cta = PerCta;
    constexpr int M = per_cta / N, warps = (PerCta == dft::tile_values(L, Strided) ? dft::tile_threads(L, Strided)
                                                                                    : per_cta / 8) / 32;
    constexpr int threads = 32 * warps;
    constexpr int S = dft::stages(L);
    auto gidx = [&](int s, int n) { return Strided ? n * M + s : s * N + n; };
    std::vector<cd> buf(per_cta, cd(std::nan(""), std::nan("")));
    const auto tw = dft::twiddle_table(N, -1);
    frag_a<K16> a8[32];
    for (int lane = 0; lane < 32; ++lane) a8[lane] = dft::a_radix8<Sign>(lane);
    frag_c<K16> zero[32];
    for (auto& z : zero) fill(z, 0.0);
    pass_stats stats;
    stats.stage.resize(S);
    // the tile load: thread j's u-th chunk is chunk j + threads u; a warp's
    // 16-byte copies go in 8-lane phases
    if (loaded) buf = *loaded;
    for (int u = 0; u < (loaded ? 0 : per_cta / threads); ++u)
        for (int w = 0; w < warps; ++w) {
            phase ph;
            std::vector<int> sectors, sector_use;  // 16-byte pieces per global 32-byte sector
            for (int lane = 0; lane < 32; ++lane) {
                const dft::chunk c = dft::tile_chunk(32 * w + lane + threads * u, N, M, Strided);
                const int slot = dft::tile_slot(L, M, Strided, c.s, c.n), n = c.n;
                stats.load_rows_in_order = stats.load_rows_in_order && slot >> 3 == (32 * w + lane + threads * u) >> 3;
                // global 128-byte line: 8 adjacent image columns of row n
                // (the tile's columns start on a line), or 8 contiguous values
                ph.add(lane, slot, Strided ? n * 1024LL + c.s / 8 : gidx(c.s, n) / 8);
                buf[slot] = data[gidx(c.s, n)];
                const int sector = Strided ? n * 1024 + c.s / 2 : gidx(c.s, n) / 2;
                std::size_t k = 0;
                while (k < sectors.size() && sectors[k] != sector) ++k;
                if (k == sectors.size()) sectors.push_back(sector), sector_use.push_back(0);
                ++sector_use[k];
            }
            for (int c : sector_use) stats.load_whole_sectors = stats.load_whole_sectors && c == 2;
            stats.load.note(static_cast<std::size_t>(u), ph.ldgsts());
        }
    std::vector<int> written(per_cta, 0);
    for (int stage = 0; stage < S; ++stage) {
        const int R = dft::radix(L, stage), p = dft::stride_before(L, stage), NR = N / R;
        const bool first = stage == 0, last = stage == S - 1;
        const bool mode_b = Strided && (first || last);
        const int G = (per_cta / R / 8) / warps, Q = R / 4;
        // results[warp][u][lane][R/2]: outputs g + 8h of columns 2t + e, Re at 4h + e, Im at 4h + 2 + e
        std::vector<double> res(static_cast<std::size_t>(warps) * G * 32 * 32);
        auto at = [&](int w, int u, int lane, int i) -> double& { return res[((w * G + u) * 32 + lane) * 32 + i]; };
        for (int w = 0; w < warps; ++w)
            for (int u = 0; u < G; ++u) {
                const int grp = w + warps * u;
                cd v[32][16];
                for (int qq = 0; qq < Q; ++qq) {
                    phase ph;
                    for (int lane = 0; lane < 32; ++lane) {
                        const int g = lane >> 2, t = lane & 3;
                        const dft::column col = dft::column_of(8 * grp + g, NR, M, mode_b);
                        const int q = dft::stage_input(t, qq, R), n = col.i + q * NR;
                        const int slot = dft::tile_slot(L, M, Strided, col.s, n);
                        ph.add(lane, slot);
                        const cd x = buf[slot];
                        if (first) {
                            v[lane][qq] = x;
                        } else {
                            cd wv = tw[dft::twiddle_exp(col.i, q, R, p, N)];
                            if (Sign > 0) wv = std::conj(wv);
                            v[lane][qq] = cd(std::fma(x.real(), wv.real(), -x.imag() * wv.imag()),
                                             std::fma(x.real(), wv.imag(), x.imag() * wv.real()));
                        }
                    }
                    stats.stage[stage].read.note(static_cast<std::size_t>(u * Q + qq), ph.wavefronts());
                }
                // the split stage (dft::split_stage): R0 eight-point MMAs, the
                // twiddles exp(Sign 2 pi i q0 g / R) from the table, R0-point butterflies
                const int R0 = R / 8;
                frag_c<K16> z[8][32];
                for (int q0 = 0; q0 < R0; ++q0) {
                    frag_b<K16> b[32];
                    for (int lane = 0; lane < 32; ++lane)
                        b[lane].x[0] = v[lane][q0].real(), b[lane].x[1] = v[lane][q0 + R0].real(),
                        b[lane].x[2] = v[lane][q0].imag(), b[lane].x[3] = v[lane][q0 + R0].imag();
                    host_mma(z[q0], a8, b, zero);
                }
                for (int lane = 0; lane < 32; ++lane)
                    for (int e = 0; e < 2; ++e) {
                        double2 a[8], y[8];
                        for (int q0 = 0; q0 < R0; ++q0) {
                            a[q0] = make_double2(z[q0][lane].x[e], z[q0][lane].x[2 + e]);
                            if (q0 == 0) continue;
                            const cd wv = tw[q0 * (lane >> 2) * (N / R)];
                            a[q0] = dft::cmul(a[q0], make_double2(wv.real(), Sign > 0 ? -wv.imag() : wv.imag()));
                        }
                        // the kernel's butterflies (dft_stage.cuh)
                        if (R0 == 1) y[0] = a[0];
                        else if (R0 == 2) split_butterflies<Sign, 2>(a, y);
                        else if (R0 == 4) split_butterflies<Sign, 4>(a, y);
                        else split_butterflies<Sign, 8>(a, y);
                        for (int h = 0; h < R0; ++h)
                            at(w, u, lane, 4 * h + e) = y[h].x, at(w, u, lane, 4 * h + 2 + e) = y[h].y;
                    }
            }
        // write half
        for (int w = 0; w < warps; ++w)
            for (int u = 0; u < G; ++u) {
                const int grp = w + warps * u;
                for (int h = 0; h < R / 8; ++h) {
                    // lane's outputs g + 8h of columns 2t + e
                    cd val[32][2];
                    for (int lane = 0; lane < 32; ++lane)
                        for (int e = 0; e < 2; ++e)
                            val[lane][e] = cd(at(w, u, lane, 4 * h + e), at(w, u, lane, 4 * h + 2 + e));
                    if (last && !kept) {
                        // the kernel's exchange with lane ^ 4, then two stores per lane
                        cd out[32][2];
                        for (int lane = 0; lane < 32; ++lane) {
                            const bool odd = (lane >> 2) & 1;
                            const cd recv = odd ? val[lane ^ 4][1] : val[lane ^ 4][0];
                            out[lane][0] = odd ? recv : val[lane][0];
                            out[lane][1] = odd ? val[lane][1] : recv;
                        }
                        for (int e = 0; e < 2; ++e) {
                            std::vector<int> sector_use;  // 16-byte halves per 32-byte sector of this instruction
                            std::vector<int> sectors;
                            for (int lane = 0; lane < 32; ++lane) {
                                const int g = lane >> 2, t = lane & 3;
                                const dft::store_slot sl = dft::exchanged_slot(g, t, e, h);
                                const dft::column col = dft::column_of(8 * grp + sl.col, NR, M, mode_b);
                                const int n = dft::stockham_out(col.i, sl.r, R, p);
                                const int idx = gidx(col.s, n);
                                data[idx] = out[lane][e];
                                ++written[idx];
                                // sector of the element in the image: contiguous index, or
                                // strided (row n, column s of M adjacent ones, rows far apart)
                                const int sector = Strided ? n * 1024 + col.s / 2 : idx / 2;
                                std::size_t k = 0;
                                while (k < sectors.size() && sectors[k] != sector) ++k;
                                if (k == sectors.size()) sectors.push_back(sector), sector_use.push_back(0);
                                ++sector_use[k];
                            }
                            for (int c : sector_use) stats.whole_sectors = stats.whole_sectors && c == 2;
                        }
                    } else {
                        for (int e = 0; e < 2; ++e) {
                            phase ph;
                            for (int lane = 0; lane < 32; ++lane) {
                                const int g = lane >> 2, t = lane & 3;
                                const dft::column col = dft::column_of(8 * grp + 2 * t + e, NR, M, mode_b);
                                const int n = dft::stockham_out(col.i, g + 8 * h, R, p);
                                const int slot = dft::tile_slot(L, M, Strided, col.s, n);
                                ph.add(lane, slot);
                                buf[slot] = val[lane][e];
                            }
                            stats.stage[stage].write.note(static_cast<std::size_t>((u * (R / 8) + h) * 2 + e),
                                                          ph.wavefronts());
                        }
                    }
                }
            }
    }
    if (kept) {
        *kept = buf;
        for (int sg = 0; sg < M; ++sg)
            for (int n = 0; n < N; ++n) {
                data[gidx(sg, n)] = buf[dft::tile_slot(L, M, Strided, sg, n)];
                ++written[gidx(sg, n)];
            }
    }
    for (int c : written) stats.each_once = stats.each_once && c == 1;
    return stats;
}

/// The one-pass 2D kernel (detail::fft2d_cluster_kernel) on the CPU: per
/// rank its row tiles, each pushed after its stages into the ranks' column
/// tiles through the kernel's own placement (detail::fft2d_push_place),
/// then the column tiles; against the long double 2D reference, and every
/// column-tile slot written once by the pushes.
template <int Lx, int Ly, int Sign>
void check_one_pass()
{
    using F = detail::fft2d_config<Lx, Ly>;
    using RC = typename F::rows;
    using CC = typename F::cols;
    static_assert(F::fits, "a one-pass size");
    constexpr int nx = F::nx, ny = F::ny, Mx = RC::signals, My = CC::signals;  // signals a row / column tile
    test::rng r(test::seed() + 7000 + 10 * Lx + Ly + (Sign > 0));
    std::vector<cd> image(static_cast<std::size_t>(nx) * ny), result(image.size(), cd(std::nan(""), std::nan("")));
    for (cd& v : image) v = {r.uniform(), r.uniform()};
    // rows: rank r's tile rt holds image rows r rank_rows + rt Mx + s, s < Mx;
    // each transformed tile is pushed into the ranks' column tiles by the
    // kernel's placement
    std::vector<std::vector<cd>> recv(F::ranks, std::vector<cd>(F::col_tiles * CC::per_cta, cd(std::nan(""), std::nan(""))));
    std::vector<std::vector<int>> hits(F::ranks, std::vector<int>(F::col_tiles * CC::per_cta, 0));
    bool rows_once = true;
    for (int rank = 0; rank < F::ranks; ++rank)
        for (int rt = 0; rt < F::row_tiles; ++rt) {
            const int row0 = rank * F::rank_rows + rt * Mx;
            std::vector<cd> data(image.begin() + static_cast<std::ptrdiff_t>(row0) * nx,
                                 image.begin() + static_cast<std::ptrdiff_t>(row0 + Mx) * nx);
            std::vector<cd> tile;
            rows_once = model_pass<Lx, Sign, false>(data, nullptr, &tile).each_once && rows_once;
            for (int j = 0; j < RC::per_cta; ++j) {
                const detail::fft2d_push at = detail::fft2d_push_place<Lx, Ly>(rank, rt, j);
                recv[at.dst_rank][at.dst_slot] = tile[at.src_slot];
                ++hits[at.dst_rank][at.dst_slot];
            }
        }
    bool pushed_once = true, cols_once = true;
    for (const std::vector<int>& h : hits)
        for (int c : h) pushed_once = pushed_once && c == 1;
    // columns: rank r's tile q holds image columns c0 + s, c0 = r rank_cols + q My
    for (int rank = 0; rank < F::ranks; ++rank)
        for (int q = 0; q < F::col_tiles; ++q) {
            const int c0 = rank * F::rank_cols + q * My;
            std::vector<cd> tile(recv[rank].begin() + q * CC::per_cta, recv[rank].begin() + (q + 1) * CC::per_cta);
            std::vector<cd> data(CC::per_cta);  // the column tile's results, element (s, n) at n My + s
            cols_once = model_pass<Ly, Sign, true, CC::per_cta>(data, &tile).each_once && cols_once;
            for (int n = 0; n < ny; ++n)
                for (int sg = 0; sg < My; ++sg)
                    result[static_cast<std::size_t>(n) * nx + c0 + sg] = data[static_cast<std::size_t>(n) * My + sg];
        }
    const auto ref = dft::fft_reference(image.data(), nx, ny, static_cast<fft_direction>(Sign));
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        worst = tcore::test::worst_of(worst, std::abs(result[i] - ref[i]));
        scale = std::fmax(scale, std::abs(ref[i]));
    }
    const double tol = 16.0 * (dft::stages(Lx) + dft::stages(Ly)) * 0x1.0p-52 * scale;
    T.check(rows_once && pushed_once && cols_once && worst <= tol,
            "one-pass model %dx%d %s (%d ranks): rows once %d, push once %d, columns once %d, max error %.3g > %.3g",
            ny, nx, Sign < 0 ? "forward" : "inverse", F::ranks, rows_once, pushed_once, cols_once, worst, tol);
    std::printf("one-pass model %dx%d %-7s (%d ranks, %d row and %d column tiles a rank): max error %.2e (scale %.1f)\n",
                ny, nx, Sign < 0 ? "forward" : "inverse", F::ranks, F::row_tiles, F::col_tiles, worst, scale);
}

template <int L, int Sign, bool Strided, int PerCta = dft::tile_values(L, Strided)>
void check_model()
{
    constexpr int N = 1 << L;
    constexpr int per_cta = PerCta;
    constexpr int M = per_cta / N;
    test::rng r(test::seed() + 100 * L + (Sign > 0) + 2 * Strided);
    std::vector<cd> data(per_cta);
    for (cd& v : data) v = {r.uniform(), r.uniform()};
    const std::vector<cd> input = data;
    const pass_stats ps = model_pass<L, Sign, Strided, PerCta>(data);
    const std::vector<stage_stats>& stats = ps.stage;
    double worst = 0, scale = 0;
    for (int s = 0; s < M; ++s) {
        std::vector<cd> sig(N);
        for (int n = 0; n < N; ++n) sig[n] = input[Strided ? n * M + s : s * N + n];
        const auto ref = dft::fft_reference(sig.data(), N, 1, static_cast<fft_direction>(Sign));
        for (int n = 0; n < N; ++n) {
            const cd got = data[Strided ? n * M + s : s * N + n];
            worst = tcore::test::worst_of(worst, std::abs(got - ref[n]));
            scale = std::fmax(scale, std::abs(ref[n]));
        }
    }
    // FFT error grows like log N; 16 ulps of the largest output per stage is generous
    const double tol = 16.0 * dft::stages(L) * 0x1.0p-52 * scale;
    T.check(worst <= tol, "model N=%d %s %s: max error %.3g > %.3g", N, Sign < 0 ? "forward" : "inverse",
            Strided ? "strided" : "contiguous", worst, tol);
    T.check(ps.each_once, "model N=%d: an output written twice or never", N);
    // a strided tile of M = 1 signal is one image column: 16 bytes per row, half a sector by nature
    if (!Strided || M >= 2)
        T.check(ps.whole_sectors, "model N=%d %s: a last-stage store instruction leaves a 32-byte sector half written",
                N, Strided ? "strided" : "contiguous");
    // every 128-bit shared-memory instruction of the pass: 4 wavefronts (one per
    // 8-lane phase) is the ideal. The tile load (LDGSTS) is costed by the
    // measured rule (phase::ldgsts): each phase writes one shared row and
    // reads one global line, or for a strided tile of M < 8 signals the
    // 8/M lines its M columns of 8/M image rows take at least
    const int load_ideal = Strided && M < 8 ? 4 * (8 / M) : 4;
    for (std::size_t i = 0; i < ps.load.wavefronts.size(); ++i)
        T.check(ps.load.wavefronts[i] == load_ideal, "N=%d %s tile load %zu: %d wavefronts (least possible %d)", N,
                Strided ? "strided" : "contiguous", i, ps.load.wavefronts[i], load_ideal);
    T.check(ps.load_rows_in_order, "N=%d %s tile load: chunk j not in shared row j / 8", N,
            Strided ? "strided" : "contiguous");
    if (!Strided || M >= 2)
        T.check(ps.load_whole_sectors, "N=%d %s tile load: a 32-byte sector half read", N,
                Strided ? "strided" : "contiguous");
    auto list = [](const access_stats& a) {
        std::string out;
        for (std::size_t i = 0; i < a.wavefronts.size(); ++i) out += (i ? "," : "") + std::to_string(a.wavefronts[i]);
        return out;
    };
    std::string banks = " LDGSTS " + list(ps.load);
    for (std::size_t st = 0; st < stats.size(); ++st) {
        const int R = dft::radix(L, static_cast<int>(st)), p = dft::stride_before(L, static_cast<int>(st));
        const bool last = st + 1 == stats.size();
        banks += " | s" + std::to_string(st) + " R" + std::to_string(R) + " p" + std::to_string(p) + " LDS " +
                 list(stats[st].read) + (last ? "" : " STS " + list(stats[st].write));
        for (std::size_t i = 0; i < stats[st].read.wavefronts.size(); ++i)
            T.check(stats[st].read.wavefronts[i] == 4, "N=%d %s stage %zu read %zu: %d wavefronts (ideal 4)", N,
                    Strided ? "strided" : "contiguous", st, i, stats[st].read.wavefronts[i]);
        for (std::size_t i = 0; i < stats[st].write.wavefronts.size(); ++i)
            T.check(stats[st].write.wavefronts[i] == 4, "N=%d %s stage %zu write %zu: %d wavefronts (ideal 4)", N,
                    Strided ? "strided" : "contiguous", st, i, stats[st].write.wavefronts[i]);
        T.check(last == stats[st].write.wavefronts.empty(), "N=%d stage %zu: shared-memory writes %s", N, st,
                last ? "in the last stage" : "missing");
    }
    std::printf("model N=%-4d %-7s %-10s M=%-2d max error %.2e (scale %.1f); wavefronts per instruction:%s\n", N,
                Sign < 0 ? "forward" : "inverse", Strided ? "strided" : "contiguous", M, worst, scale, banks.c_str());
}

/// The first-stage global loads of a direct tile of contiguous signals
/// (fft_tile_stages<..., Direct>), instruction by instruction.
template <int L>
void check_direct_loads()
{
    constexpr int N = 1 << L, per_cta = dft::tile_values(L, false), M = per_cta / N;
    constexpr int warps = dft::tile_threads(L, false) / 32;
    constexpr int R = dft::radix(L, 0), NR = N / R, G = (per_cta / R / 8) / warps, Q = R / 4;
    std::vector<int> reads(per_cta, 0);
    bool split = true, lines = true;
    for (int w = 0; w < warps; ++w)
        for (int u = 0; u < G; ++u)
            for (int qq = 0; qq < Q; ++qq) {
                std::vector<int> line_reads(per_cta / 8, 0);
                for (int lane = 0; lane < 32; ++lane) {
                    const int g = lane >> 2, t = lane & 3;
                    // the kernel's parts: rd_glob (lane) and its index (fixed)
                    const dft::column rd_col = dft::column_of(8 * w + g, NR, M, false);
                    const dft::column fix = dft::column_of(8 * warps * u, NR, M, false);
                    const int lane_part = rd_col.s * N + rd_col.i + dft::stage_input(t, 0, R) * NR;
                    const int fixed_part = fix.s * N + fix.i + dft::stage_input(0, qq, R) * NR;
                    // the stage's input q of column 8 (w + warps u) + g
                    const dft::column col = dft::column_of(8 * (w + warps * u) + g, NR, M, false);
                    const int e = col.s * N + col.i + dft::stage_input(t, qq, R) * NR;
                    split = split && lane_part + fixed_part == e;
                    ++reads[e];
                    ++line_reads[e / 8];
                }
                for (const int r : line_reads) lines = lines && (r == 0 || r == 8);
            }
    bool once = true;
    for (const int r : reads) once = once && r == 1;
    T.check(split && once && lines, "direct loads N=%d: split %s, each element once %s, whole lines %s", N,
            split ? "ok" : "WRONG", once ? "ok" : "WRONG", lines ? "ok" : "WRONG");
}

template <int L>
void check_models()
{
    check_model<L, -1, false>();
    check_model<L, 1, false>();
    check_model<L, -1, true>();
    check_model<L, 1, true>();
    if constexpr (dft::line_tile_values(L) != dft::tile_values(L, true)) {  // the columns' other tile
        check_model<L, -1, true, dft::line_tile_values(L)>();
        check_model<L, 1, true, dft::line_tile_values(L)>();
    }
}

}  // namespace

int main()
{
    test::seed();
    check_constants();
    check_matrices();
    check_lane_operands();
    check_stage_placement<8, -1>();
    check_stage_placement<8, 1>();
    check_stage_placement<16, -1>();
    check_stage_placement<16, 1>();
    check_twiddles();
    check_swizzle();
    for (int L = 6; L <= 12; ++L)
        check_split_indices<false>(L), check_split_indices<true>(L), check_split_indices<true>(L, dft::line_tile_values(L));
    check_reference();
    for (int L = 6; L <= 12; ++L)
        T.check(dft::stages(L) > 0 && dft::stride_before(L, dft::stages(L)) == (1 << L), "radix plan of 2^%d", L);
    check_models<6>();
    check_models<7>();
    check_models<8>();
    check_models<9>();
    check_models<10>();
    check_models<11>();
    check_models<12>();
    check_one_pass<8, 8, -1>();
    check_one_pass<8, 8, 1>();
    check_direct_loads<11>();  // the row kernel fft_plan::direct_rows takes
    check_direct_loads<9>();   // and the same code for other tiles
    check_direct_loads<10>();
    check_direct_loads<12>();
    return T.finish();
}
