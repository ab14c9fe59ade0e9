// tests/gpu/test_user_scan.cu - a worked user kernel: an inclusive prefix sum
// of an array whose length is not a multiple of the 128-element scan tile,
// written as a user would with tcore's public scan building blocks
// (patterns/scan.cuh), beside cub::DeviceScan::InclusiveSum.
//
// Two kernels, each on both backends (tensor_core, cuda_core), one block:
//   block: 256 threads scan the array in rounds of 8 tiles (1024 elements)
//          with block_scan; its return value (carry + the round's total) is
//          the next round's carry. The last round is partial.
//   warp:  one warp scans the array tile by tile with warp_scan directly:
//          scan_load (zeros past the end), scan, total, scan_store (only
//          positions before the end), the carry added per tile.
//
// Tolerance (FP64, u = 2^-53, round to nearest; the FP64 MMA rounds with .rn).
// Output i is the sum of its i + 1 inputs x_0..x_i. The MMAs multiply by 0
// and 1 (exact) and the zeros add exactly, so every output is a tree of at
// most i rounded additions of its inputs: column prefixes (L X), column
// totals (1 X), the carry product ((1 X) U), tile totals and the carries
// between tiles and rounds. Each addition gives (a + b)(1 + d), |d| <= u,
// and an input passes through at most i of them, so
//   |out^_i - out_i| <= g(i) sum_{j <= i} |x_j|,  g(k) = k u / (1 - k u)
// whatever the order (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., section 4.2); the sharper i u sum |x_j| (Rump 2012;
// Jeannerod and Rump 2013) is smaller by a factor below 1 + 10^-12 here.
// The reference prefix and sum |x_j| are accumulated in long double (64-bit
// significand, v = 2^-64), and outputs are compared with it in long double,
// so the check allows (g(i) + h(i)) sum_{j <= i} |x_j|, h(k) = k v /
// (1 - k v), the reference's own bound h being 2^-11 of g. CUB's results
// meet the same bound. Inputs are random in (-1, 1), never zero; outputs
// are poisoned with NaN before every run; lengths 1, 100, 333, 1000 and
// 5001 are not tile multiples.
#include "common/test_util.hpp"

#include <tcore/patterns/scan.cuh>

#include <cub/device/device_scan.cuh>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace tcore;

namespace {

constexpr int block_threads = 256;
constexpr int round_elems = block_threads / 32 * scan_tile;  // 1024

template <class Backend>
using scanner = warp_scan<Backend, f64_m16n8k16>;  // inclusive, one scan per tile

/// One block scans in[0..n) into out, 1024 elements per round.
template <class Backend>
__global__ void __launch_bounds__(block_threads) block_inclusive_scan(const double* in, double* out, int n)
{
    __shared__ double smem[block_threads / 32];
    const scanner<Backend> sc;
    double carry = 0;
    for (int first = 0; first < n; first += round_elems) {  // block-uniform
        const int count = n - first < round_elems ? n - first : round_elems;
        carry = block_scan<scanner<Backend>, block_threads>(sc, in + first, out + first, count, carry, smem);
    }
}

/// One warp scans in[0..n) into out, one tile at a time.
template <class Backend>
__global__ void warp_inclusive_scan(const double* in, double* out, int n)
{
    using Scanner = scanner<Backend>;
    const Scanner sc;
    double carry = 0;
    for (int first = 0; first < n; first += scan_tile) {
        double v[scan_per_lane], o[scan_per_lane];
        scan_load<Scanner, false>(v, in + first, n - first);
        sc.scan(o, v);
        const double total = sc.total(o, v);
        for (int i = 0; i < scan_per_lane; ++i) o[i] += carry;
        scan_store<Scanner, false>(out + first, o, n - first);
        carry += total;
    }
}

struct problem {
    int n;
    std::vector<double> x;
    std::vector<long double> ref, tol;
};

problem make_problem(int n, test::rng& rng)
{
    problem p{n, std::vector<double>(n), {}, {}};
    for (double& v : p.x) v = rng.nonzero();
    const long double u = 0x1p-53L, v = 0x1p-64L;
    long double sum = 0, abs_sum = 0;
    for (int i = 0; i < n; ++i) {
        sum += p.x[i];
        abs_sum += std::fabs(static_cast<long double>(p.x[i]));
        const long double k = i, bound = k * u / (1 - k * u) + k * v / (1 - k * v);
        p.ref.push_back(sum);
        p.tol.push_back(bound * abs_sum);
    }
    return p;
}

void compare(test::tally& t, const problem& p, const std::vector<double>& out, const std::string& what)
{
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < p.n; ++i) {
        const long double err = std::fabs(out[i] - p.ref[i]);
        if (!(err <= p.tol[i]) && ++bad <= 3)
            std::printf("  %s n %d: out[%d] = %.17g, want %.17Lg (bound %.3Lg)\n", what.c_str(), p.n, i, out[i],
                        p.ref[i], p.tol[i]);
        if (p.tol[i] > 0) worst = std::fmax(worst, static_cast<double>(err / p.tol[i]));
    }
    t.check(bad == 0, "%s n %d: %d of %d outside the bound", what.c_str(), p.n, bad, p.n);
    std::printf("  %-18s n %5d: worst error %.3g of the bound\n", what.c_str(), p.n, worst);
}

template <class Backend>
void run_tcore(test::tally& t, const problem& p, const std::string& name)
{
    test::device_buffer<double> in(p.n), out(p.n);
    in.upload(p.x);
    out.poison();
    block_inclusive_scan<Backend><<<1, block_threads>>>(in.ptr, out.ptr, p.n);
    TCORE_CHECK_LAUNCH();
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, out.download(), name + " block");
    out.poison();
    warp_inclusive_scan<Backend><<<1, 32>>>(in.ptr, out.ptr, p.n);
    TCORE_CHECK_LAUNCH();
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, out.download(), name + " warp");
}

void run_cub(test::tally& t, const problem& p)
{
    test::device_buffer<double> in(p.n), out(p.n);
    in.upload(p.x);
    out.poison();
    std::size_t bytes = 0;
    TCORE_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in.ptr, out.ptr, p.n));
    test::device_buffer<unsigned char> temp(bytes);
    TCORE_CHECK(cub::DeviceScan::InclusiveSum(temp.ptr, bytes, in.ptr, out.ptr, p.n));
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, out.download(), "CUB InclusiveSum");
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    test::tally t;
    test::rng rng(test::seed());
    for (const int n : {1, 100, 333, 1000, 5001}) {
        const problem p = make_problem(n, rng);
        run_tcore<tensor_core>(t, p, "tensor_core");
        run_tcore<cuda_core>(t, p, "cuda_core");
        run_cub(t, p);
    }
    return t.finish();
}
