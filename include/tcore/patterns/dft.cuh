// tcore/patterns/dft.cuh - small DFT matrices as FP64 MMA operands and the
// index arithmetic of a Stockham FFT built from them (tcFFT's idea, as the
// Cubie study adapts it, on the sm_90 FP64 shapes), plus a long double CPU
// reference FFT.
//
// Complex as real: an R-point DFT Y = F x with F[k][n] = exp(sign 2 pi i kn/R)
// is the real product
//     [Re Y]   [Re F  -Im F] [Re x]
//     [Im Y] = [Im F   Re F] [Im x]
// For R = 8 that is one 16x16 real matrix: the A operand of one m16n8k16,
// whose B holds 8 columns = 8 independent 8-point DFTs. With the standard
// B map (b_i -> row t + 4i, column g) lane (g, t) holds Re and Im of inputs
// t and t+4 of column g: whole complex numbers, loaded as 16-byte pairs. D
// (c_i -> row g + 8(i/2), column 2t + i%2) gives lane (g, t) output g of
// columns 2t and 2t+1, again as complex pairs. For R = 16 the real matrix is
// 32x32, four m16n8k16 on 16x16 blocks: with B0 = Re x and B1 = Im x,
//     Re Y = ReF B0 + ImF (-B1),   Im Y = ImF B0 + ReF B1,
// so only ReF and ImF are held (16 doubles per lane); lane (g, t) holds
// inputs t, t+4, t+8, t+12 and outputs g and g+8 of two columns.
//
// The entries are cos/sin of multiples of 2 pi/16, generated per lane from
// five exact-to-the-last-bit constants (1, cos pi/8, cos pi/4, cos 3pi/8, 0):
// no table, no trigonometric call.
//
// Stockham step (radix R, p = product of the radices already applied, N/R
// columns i per signal): u_q = x[i + q N/R] * w^(q k) with k = i mod p and
// w = exp(sign 2 pi i/(pR)); v = DFT_R(u); y[(i - k) R + k + r p] = v_r.
// Applied for each radix in turn (p = 1, R1, R1 R2, ...) it leaves the DFT
// in natural order. The twiddle w^(qk) is table[q k N/(pR)] of one table
// exp(sign 2 pi i e/N), e < N, computed in long double on the host.
//
// The radices are 8, 16, 32 and 64 (the plan below). Supported: 64 <= N <=
// 4096 (L = 6..12).
#pragma once

#include "../frag/f64_m16n8k.cuh"

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

namespace tcore {

/// Direction of a transform: the sign of the exponent. Inverse transforms
/// are not scaled (as cuFFT).
enum class fft_direction : int { forward = -1, inverse = 1 };

namespace dft {

/// cos(2 pi j / 16) for any integer j (correctly rounded doubles).
__host__ __device__ constexpr double cos16(int j)
{
    j &= 15;
    const int q = j <= 4 ? j : j <= 8 ? 8 - j : j <= 12 ? j - 8 : 16 - j;  // reference angle, 0..4
    const double v = q == 0 ? 1.0
                   : q == 1 ? 0.92387953251128675613  // cos(pi/8)
                   : q == 2 ? 0.70710678118654752440  // cos(pi/4)
                   : q == 3 ? 0.38268343236508977173  // cos(3pi/8)
                            : 0.0;
    return (j > 4 && j < 12) ? -v : v;
}
/// sin(2 pi j / 16) = cos(2 pi (j - 4) / 16).
__host__ __device__ constexpr double sin16(int j) { return cos16(j - 4); }

/// cos(2 pi j / 64) for any integer j (correctly rounded doubles).
__host__ __device__ constexpr double cos64(int j)
{
    j &= 63;
    const int q = j <= 16 ? j : j <= 32 ? 32 - j : j <= 48 ? j - 32 : 64 - j;  // reference angle, 0..16
    const double v = q == 0 ? 1.0
                   : q == 1 ? 0.99518472667219688625  // cos(1pi/32)
                   : q == 2 ? 0.98078528040323044913  // cos(2pi/32)
                   : q == 3 ? 0.95694033573220886494  // cos(3pi/32)
                   : q == 4 ? 0.92387953251128675613  // cos(4pi/32)
                   : q == 5 ? 0.88192126434835502971  // cos(5pi/32)
                   : q == 6 ? 0.83146961230254523708  // cos(6pi/32)
                   : q == 7 ? 0.77301045336273696081  // cos(7pi/32)
                   : q == 8 ? 0.70710678118654752440  // cos(8pi/32)
                   : q == 9 ? 0.63439328416364549822  // cos(9pi/32)
                   : q == 10 ? 0.55557023301960222474  // cos(10pi/32)
                   : q == 11 ? 0.47139673682599764856  // cos(11pi/32)
                   : q == 12 ? 0.38268343236508977173  // cos(12pi/32)
                   : q == 13 ? 0.29028467725446236764  // cos(13pi/32)
                   : q == 14 ? 0.19509032201612826785  // cos(14pi/32)
                   : q == 15 ? 0.098017140329560601994  // cos(15pi/32)
                            : 0.0;
    return (j > 16 && j < 48) ? -v : v;
}
/// exp(sign 2 pi i e / 64) as (Re, Im).
__host__ __device__ inline double2 root64(int e, int sign) { return make_double2(cos64(e), sign * cos64(e - 16)); }

/// Re and Im of exp(sign 2 pi i e / R), R in {2, 4, 8, 16}, e >= 0.
__host__ __device__ constexpr double root_re(int R, int e) { return cos16((e % R) * (16 / R)); }
__host__ __device__ constexpr double root_im(int R, int e, int sign) { return sign * sin16((e % R) * (16 / R)); }

/// Element (row, col) of the 2R x 2R real form of the R-point DFT matrix.
__host__ __device__ constexpr double real_form(int R, int sign, int row, int col)
{
    const int e = (row % R) * (col % R);
    const double re = root_re(R, e), im = root_im(R, e, sign);
    const bool im_out = row >= R, im_in = col >= R;
    return !im_out ? (!im_in ? re : -im) : (!im_in ? im : re);
}

// -- the radix plan of N = 2^L ---------------------------------------------------
//
// Every stage is a split stage (dft_stage.cuh): radix R = 8 R0 (R0 = 1, 2,
// 4, 8) as R0 eight-point DFTs on the MMA and R0-point butterflies, so each
// stage costs the same 64 MMA flops a point whatever its radix. Every
// supported size takes two stages, the larger radix first: 64 = 8x8,
// 128 = 16x8, 256 = 16x16, 512 = 32x16, 1024 = 32x32, 2048 = 64x32,
// 4096 = 64x64.

/// Sizes the FFT kernels support: N = 2^L, 64 <= N <= 4096.
__host__ __device__ constexpr bool supported(int L) { return L >= 6 && L <= 12; }
__host__ __device__ constexpr int stages(int) { return 2; }
__host__ __device__ constexpr int radix(int L, int stage) { return 1 << (L / 2 + (stage < L % 2 ? 1 : 0)); }
/// p of stage `stage`: the product of the radices before it.
__host__ __device__ constexpr int stride_before(int L, int stage)
{
    int p = 1;
    for (int s = 0; s < stage; ++s) p *= radix(L, s);
    return p;
}

// -- per-stage index arithmetic (shared by the kernels and the host model) --------

/// Signal and column index of MMA column c in a CTA of M signals of N/R
/// columns: mode a (columns of one signal side by side) or mode b (the same
/// column of M signals side by side: coalesced on strided signals).
struct column {
    int s, i;
};
__host__ __device__ constexpr column column_of(int c, int cols_per_signal, int signals, bool mode_b)
{
    return mode_b ? column{c % signals, c / signals} : column{c / cols_per_signal, c % cols_per_signal};
}
/// Complex values in a CTA's tile of the FFT passes (M = tile_values / N
/// signals): 4096 for N = 4096, else 2048. (The column pass of N = 1024
/// keeps M = 2: with M = 4 the swizzle leaves its first stage's writes
/// 2-way, tests/host/test_dft_matrices.cu.)
__host__ __device__ constexpr int tile_values(int L, [[maybe_unused]] bool strided)
{
    return L >= 12 ? 4096 : 2048;
}
/// The other tile of a column pass where there is one: 4096 values for N =
/// 512 (M = 8 adjacent image columns, so that each load phase reads one
/// whole 128-byte line, tile_chunk; 512 threads, one CTA an SM, against
/// M = 4: half lines, two CTAs of 256), else tile_values. fft_plan takes it
/// where DRAM is the tighter limit (measurements in examples/fft/README.md).
__host__ __device__ constexpr int line_tile_values(int L) { return L == 9 ? 4096 : tile_values(L, true); }
/// Threads of a CTA of the FFT passes. A lane holds R/4 inputs of each of
/// its column groups in a radix-R stage: 16 values a thread where a stage
/// has radix 64 (N = 2048, 4096), and in the row passes of N = 512 and
/// 1024 (half the threads, each with twice the independent loads: faster
/// than 8); else 8 (the column passes, and the rows of N <= 256, which the
/// one-pass 2D kernel runs on the threads of its column tiles).
__host__ __device__ constexpr int tile_threads(int L, bool strided)
{
    return tile_values(L, strided) / (radix(L, 0) == 64 || (!strided && L >= 9) ? 16 : 8);
}

/// Signal s and element n of the j-th 16-byte chunk of a CTA's tile load
/// (M signals of N elements), in the order of the tile's slots: chunks
/// 8k .. 8k+7, the 8 lanes of one phase of an LDGSTS, fill shared row k
/// (tile_slot), and they read one 128-byte global line where the data
/// allows. Contiguous signals: element-fastest (the tile is one contiguous
/// run of M N values). Strided signals (a tile row is M adjacent image
/// columns): M >= 8, signal-fastest, s = j mod M, n = j / M (a phase reads 8
/// adjacent columns of one image row: one line); M < 8 (2^m), the phase
/// takes the M columns of 8/M rows n, n + M, .. (bits m..2 of n; 8/M lines,
/// the fewest possible), and the next bits of j give n bits 0..m-1, then
/// n / 8. A warp reads M adjacent columns of 32/M rows: whole 32-byte
/// sectors but for M = 1 (16-byte rows).
struct chunk {
    int s, n;
};
__host__ __device__ constexpr chunk tile_chunk(int j, int n_len, int signals, bool strided)
{
    if (!strided) return chunk{j / n_len, j % n_len};
    if (signals >= 8) return chunk{j % signals, j / signals};
    const int row = j >> 3;
    return chunk{j & (signals - 1), (row / signals) * 8 + ((j & 7) / signals) * signals + (row & (signals - 1))};
}

/// Last-stage store slot after the lane-pair exchange: lane (g, t) holds
/// outputs r = g + 8h of MMA columns 2t and 2t+1 (the D map); it swaps one
/// of the two with lane ^ 4 (g ^ 1) and then stores, for e = 0, 1, output
/// (g & ~1) + e + 8h of column 2t + (g & 1). Each store instruction then
/// covers 8 adjacent columns of 4 outputs: whole 32-byte sectors (whole
/// 128-byte lines where the 8 columns are adjacent in memory).
struct store_slot {
    int col, r;  ///< MMA column within the group of 8, DFT output index
};
__host__ __device__ constexpr store_slot exchanged_slot(int g, int t, int e, int h)
{
    return store_slot{2 * t + (g & 1), (g & ~1) + e + 8 * h};
}

/// Output index of DFT output r of column i at a stage of radix R, stride p.
__host__ __device__ constexpr int stockham_out(int i, int r, int R, int p)
{
    const int k = i & (p - 1);
    return (i - k) * R + k + r * p;
}
/// Input q of its column that lane (g, t) holds in register position qq of
/// a radix-R split stage (R0 = R/8; dft_stage.cuh): q = q0 + R0 (t + 4j)
/// for qq = q0 + R0 j (j = 0, 1). Lane part R0 t, fixed part
/// stage_input(0, qq, R). For R = 8: t + 4 qq.
__host__ __device__ constexpr int stage_input(int t, int qq, int R)
{
    return qq % (R / 8) + (R / 8) * (t + 4 * (qq / (R / 8)));
}
/// Twiddle exponent (in units of 2 pi/N) of input q of a column whose index
/// mod p is k (0 <= k < p).
__host__ __device__ constexpr int twiddle_exp_k(int k, int q, int R, int p, int N) { return q * k * (N / (p * R)); }
/// Twiddle exponent (in units of 2 pi/N) of input q of column i.
__host__ __device__ constexpr int twiddle_exp(int i, int q, int R, int p, int N)
{
    return twiddle_exp_k(i & (p - 1), q, R, p, N);
}

/// Bits of n (above the low three) whose swizzle mask holds bit k (k = 0,
/// 1, 2): bit 0 comes from every bit b >= 3, bits 1-2 from bit b as the
/// pattern 3, 1, 2 of b mod 3 (b = 3, 4, 5, 6, ... give 3, 1, 2, 3, ...).
/// Any two adjacent bits of n thus get masks that differ in bits 1-2 and
/// are both nonzero there, and every mask has bit 0.
__host__ __device__ constexpr unsigned swizzle_select(int k)
{
    unsigned m = 0;
    for (int b = 3; b < 32; ++b) {
        const int pattern = b % 3 == 0 ? 3 : b % 3 == 1 ? 1 : 2;  // the mask's bits 1-2
        if (k == 0 || ((pattern >> (k - 1)) & 1)) m |= 1u << b;
    }
    return m;
}

/// The swizzle of element n of signal s: n with its low 3 bits XORed by s
/// and by the mask
///   bit k = parity of (n & swizzle_select(k)),
/// the same for every N (it takes no size). Its low 3 bits are the slot's
/// bank group, slot mod 8 (tile_slot); a bijection on every aligned group
/// of 8, and GF(2)-linear. An 8-lane phase of a stage access varies three bits of
/// (s, n) (tests/host/test_dft_matrices.cu lists them by replaying the
/// kernel): reads n bit 0 (or s bit 0) and two adjacent bits of n >= 3,
/// p = 1 writes n bit 0 (or s bits) and two adjacent bits >= 3, p >= 8
/// writes n bits 1, 2 and one bit >= 3, one N = 512 strided write n bits
/// 0, 3 and s bit 1. With bit 0 in every mask and adjacent bits'
/// masks independent in bits 1-2, each of these sets maps onto the 8 bank
/// groups: every stage read and write is conflict-free, whichever 128-byte
/// row tile_slot gives the slot.
__host__ __device__ inline int swizzle(int s, int n)
{
    const unsigned u = static_cast<unsigned>(n);
#if defined(__CUDA_ARCH__)
    const int h = (__popc(u & swizzle_select(0)) & 1) | ((__popc(u & swizzle_select(1)) & 1) << 1) |
                  ((__popc(u & swizzle_select(2)) & 1) << 2);
#else
    const int h = (__builtin_popcount(u & swizzle_select(0)) & 1) |
                  ((__builtin_popcount(u & swizzle_select(1)) & 1) << 1) |
                  ((__builtin_popcount(u & swizzle_select(2)) & 1) << 2);
#endif
    return n ^ ((h ^ s) & 7);
}

// -- split indices: lane part ^ fixed part ----------------------------------------------
//
// Within a stage the kernel's indices are bit fields put side by side: an
// MMA column is c = 8 (warp + warps u) + g (reads; 2t + e for the writes),
// an input is q = t + 4 qq, an output r = g + 8 h, a load chunk is
// j = thread + threads u. column_of, tile_chunk, stockham_out and
// exchanged_slot only move bits, and tile_slot (rows by moved bits, the
// swizzle's XOR mask three parities) is GF(2)-linear in (s, n). So
// every slot is slot(lane fields) ^ slot(u, qq, e, h fields): a per-lane
// part, computed once per stage, XOR a compile-time constant (the kernels'
// loops are unrolled). tests/host/test_dft_matrices.cu checks the split
// against the direct formulas for every index the kernels use.

/// Shared-memory slot of element n of signal s in a tile of M signals of
/// N = 2^L: 128-byte row (slot / 8) and bank group (slot mod 8, the
/// swizzle's low 3 bits: the stages' accesses stay conflict-free for any
/// choice of rows). Contiguous signals: signal-major, s N + swizzle(s, n).
/// Strided signals: rows hold what one tile-load phase reads (tile_chunk),
/// so that each LDGSTS phase writes one row: for M >= 8 n-major, row
/// n M/8 + s/8 (8 adjacent signals at one n, one global line); for M < 8
/// (2^m) a row holds the M signals at the 8/M values of n that differ only
/// in bits m..2, row (n / 8) M + (n mod M) (for M = 1 the contiguous
/// layout). Only moves bits and XORs: GF(2)-linear in (s, n).
__host__ __device__ inline int tile_slot(int L, int signals, bool strided, int s, int n)
{
    if (!strided) return (s << L) + swizzle(s, n);
    const int row = signals >= 8 ? n * (signals / 8) + (s >> 3) : (n >> 3) * signals + (n & (signals - 1));
    return row * 8 + (swizzle(s, n) & 7);
}

/// x ^ c for a lane part x and a constant c with no common bit above the low
/// three (x & c & ~7 == 0), written as (x ^ (c & 7)) + (c & ~7): the high
/// part becomes the immediate offset of the memory instruction, and a lane
/// needs at most 8 distinct XORs per stage.
__host__ __device__ constexpr int xor_fixed(int x, int c) { return (x ^ (c & 7)) + (c & ~7); }

// -- A operands ----------------------------------------------------------------------

/// Lane's A fragment (m16n8k16) of the 8-point DFT's real form.
template <int Sign>
__host__ __device__ inline frag_a<f64_m16n8<16>> a_radix8(int lane)
{
    frag_a<f64_m16n8<16>> a;
    static_for<8>([&](auto i) {
        const coord rc = f64_m16n8<16>::a_coord(lane, i);
        a.x[i] = real_form(8, Sign, rc.row, rc.col);
    });
    return a;
}
/// Lane's A fragments of Re F and Im F of the 16-point DFT.
template <int Sign>
__host__ __device__ inline void a_radix16(int lane, frag_a<f64_m16n8<16>>& re, frag_a<f64_m16n8<16>>& im)
{
    static_for<8>([&](auto i) {
        const coord rc = f64_m16n8<16>::a_coord(lane, i);
        re.x[i] = root_re(16, rc.row * rc.col);
        im.x[i] = root_im(16, rc.row * rc.col, Sign);
    });
}

// -- host side -------------------------------------------------------------------------

/// table[e] = exp(sign 2 pi i e / N), e < N, from long double trigonometry.
inline std::vector<std::complex<double>> twiddle_table(int N, int sign)
{
    std::vector<std::complex<double>> t(static_cast<std::size_t>(N));
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (int e = 0; e < N; ++e) {
        const long double a = two_pi * static_cast<long double>(e) / static_cast<long double>(N);
        t[static_cast<std::size_t>(e)] = {static_cast<double>(std::cos(a)), static_cast<double>(sign * std::sin(a))};
    }
    return t;
}

/// In-place long double radix-2 FFT of x (size a power of two), twiddles
/// exp(sign 2 pi i e/n) computed per index in long double.
inline void fft_inplace(std::vector<std::complex<long double>>& x, int sign)
{
    const std::size_t n = x.size();
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(x[i], x[j]);
    }
    const long double two_pi = 6.283185307179586476925286766559005768L;
    std::vector<std::complex<long double>> w(n / 2 > 0 ? n / 2 : 1);
    for (std::size_t e = 0; e < n / 2; ++e) {
        const long double a = two_pi * static_cast<long double>(e) / static_cast<long double>(n);
        w[e] = {std::cos(a), sign * std::sin(a)};
    }
    for (std::size_t len = 2; len <= n; len <<= 1) {
        const std::size_t step = n / len;
        for (std::size_t i = 0; i < n; i += len)
            for (std::size_t k = 0; k < len / 2; ++k) {
                const std::complex<long double> u = x[i + k], v = x[i + k + len / 2] * w[k * step];
                x[i + k] = u + v;
                x[i + k + len / 2] = u - v;
            }
    }
}

/// The DFT of one nx (fast) x ny signal (ny = 1: 1D) in long double, rounded
/// to double: the accuracy reference. Not scaled.
inline std::vector<std::complex<double>> fft_reference(const std::complex<double>* in, long long nx, long long ny,
                                                       fft_direction dir)
{
    const int sign = static_cast<int>(dir);
    std::vector<std::complex<long double>> a(static_cast<std::size_t>(nx * ny));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = {in[i].real(), in[i].imag()};
    std::vector<std::complex<long double>> line(static_cast<std::size_t>(nx));
    for (long long y = 0; y < ny; ++y) {
        for (long long x = 0; x < nx; ++x) line[x] = a[y * nx + x];
        fft_inplace(line, sign);
        for (long long x = 0; x < nx; ++x) a[y * nx + x] = line[x];
    }
    if (ny > 1) {
        std::vector<std::complex<long double>> col(static_cast<std::size_t>(ny));
        for (long long x = 0; x < nx; ++x) {
            for (long long y = 0; y < ny; ++y) col[y] = a[y * nx + x];
            fft_inplace(col, sign);
            for (long long y = 0; y < ny; ++y) a[y * nx + x] = col[y];
        }
    }
    std::vector<std::complex<double>> out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        out[i] = {static_cast<double>(a[i].real()), static_cast<double>(a[i].imag())};
    return out;
}

}  // namespace dft
}  // namespace tcore
