// tests/gpu/test_user_segmented_sum.cu - a worked user kernel: sums of
// consecutive segments whose length is not a multiple of the 256-element
// reduce tile, written as a user would with tcore's public reduce building
// blocks (patterns/reduce.cuh), beside cub::DeviceSegmentedReduce::Sum.
//
// Two kernels, each on both backends (tensor_core, cuda_core):
//   warp:  one warp per segment; warp_sum accumulates the segment's tiles,
//          the last one partial (reduce_load_part reads zeros past the end);
//          total() gives the segment sum on every lane.
//   block: one block of 128 threads per segment; each round the 4 warps load
//          one tile each (zeros past the end) and block_reduce adds them.
// A whole warp leaves together (the grid has whole warps), so no lane skips
// a warp-collective call.
//
// Tolerance (FP64, u = 2^-53, round to nearest; the FP64 MMA rounds with .rn).
// The products with the ones row are exact and the padding zeros add
// exactly, so each segment sum is a tree of at most n - 1 rounded additions
// of its n inputs, in some order. Each addition gives (a + b)(1 + d), |d| <=
// u, and an input passes through at most n - 1 of them, so
//   |s^ - s| <= g(n-1) sum |x_i|,  g(k) = k u / (1 - k u)
// whatever the order (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., section 4.2). The sharper (n-1) u sum |x_i| also
// holds for any order (Rump 2012; Jeannerod and Rump 2013); g(n-1) exceeds
// it by a factor below 1 + 10^-12 at these sizes. The reference s and
// sum |x_i| are accumulated in long double (64-bit significand, v = 2^-64),
// and outputs are compared with it in long double, so the check allows
// (g(n-1) + h(n-1)) sum |x_i|, h(k) = k v / (1 - k v), the reference's own
// bound h being 2^-11 of g. CUB's results meet the same bound. Inputs are
// random in (-1, 1), never zero; outputs are poisoned with NaN before every
// run; segment lengths 1, 100, 333 and 2501 and segment counts 37 and 1001
// are not tile multiples.
#include "common/test_util.hpp"

#include <tcore/patterns/reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

#include <cmath>
#include <cstdio>
#include <vector>

using namespace tcore;

namespace {

using S = f64_m16n8k16;
constexpr int block_threads = 128;
constexpr int block_tiles = block_threads / 32;  // one tile per warp and round

/// Warp w sums segment w: whole tiles, then the partial one.
template <class Backend>
__global__ void warp_segment_sums(const double* in, double* out, int segments, int seg)
{
    const int segment = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    if (segment >= segments) return;  // the whole warp leaves
    const double* base = in + static_cast<long long>(segment) * seg;
    warp_sum<Backend, S> acc;
    for (int first = 0; first < seg; first += reduce_tile) {
        double v[reduce_per_lane];
        reduce_load_part<reduce_placement::stream>(v, base + first, seg - first);
        acc.add(v);
    }
    const double s = acc.total();
    if (lane_id() == 0) out[segment] = s;
}

/// Block b sums segment b, 4 tiles per round.
template <class Backend>
__global__ void __launch_bounds__(block_threads) block_segment_sums(const double* in, double* out, int seg)
{
    __shared__ double smem[block_threads / 32];
    const double* base = in + static_cast<long long>(blockIdx.x) * seg;
    const int warp = threadIdx.x / 32;
    double s = 0;
    for (int first = 0; first < seg; first += block_tiles * reduce_tile) {  // block-uniform
        const int mine = first + warp * reduce_tile;
        double v[reduce_per_lane];
        reduce_load_part<reduce_placement::stream>(v, base + (mine < seg ? mine : 0), seg - mine);
        s += block_reduce<Backend, S, block_threads>(v, smem);
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

struct problem {
    int segments, seg;
    std::vector<double> x;
    std::vector<long double> ref, tol;
};

problem make_problem(int segments, int seg, test::rng& rng)
{
    problem p{segments, seg, std::vector<double>(static_cast<std::size_t>(segments) * seg), {}, {}};
    for (double& v : p.x) v = rng.nonzero();
    const long double u = 0x1p-53L, v = 0x1p-64L, k = seg - 1;
    const long double bound = k * u / (1 - k * u) + k * v / (1 - k * v);
    for (int s = 0; s < segments; ++s) {
        long double sum = 0, abs_sum = 0;
        for (int i = 0; i < seg; ++i) {
            const long double v = p.x[static_cast<std::size_t>(s) * seg + i];
            sum += v;
            abs_sum += std::fabs(v);
        }
        p.ref.push_back(sum);
        p.tol.push_back(bound * abs_sum);
    }
    return p;
}

void compare(test::tally& t, const problem& p, const std::vector<double>& out, const char* what)
{
    int bad = 0;
    double worst = 0;
    for (int s = 0; s < p.segments; ++s) {
        const long double err = std::fabs(out[s] - p.ref[s]);
        if (!(err <= p.tol[s]) && ++bad <= 3)
            std::printf("  %s seg %d x %d: out[%d] = %.17g, want %.17Lg (bound %.3Lg)\n", what, p.seg, p.segments,
                        s, out[s], p.ref[s], p.tol[s]);
        if (p.tol[s] > 0) worst = std::fmax(worst, static_cast<double>(err / p.tol[s]));
    }
    t.check(bad == 0, "%s seg %d x %d: %d of %d outside the bound", what, p.seg, p.segments, bad, p.segments);
    std::printf("  %-18s seg %4d x %4d: worst error %.3g of the bound\n", what, p.seg, p.segments, worst);
}

template <class Backend>
void run_tcore(test::tally& t, const problem& p, const char* name)
{
    test::device_buffer<double> in(p.x.size()), out(p.segments);
    in.upload(p.x);
    out.poison();
    const int warps_per_block = 8;
    warp_segment_sums<Backend>
        <<<(p.segments + warps_per_block - 1) / warps_per_block, 32 * warps_per_block>>>(in.ptr, out.ptr, p.segments,
                                                                                          p.seg);
    TCORE_CHECK_LAUNCH();
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, out.download(), (std::string(name) + " warp").c_str());
    out.poison();
    block_segment_sums<Backend><<<p.segments, block_threads>>>(in.ptr, out.ptr, p.seg);
    TCORE_CHECK_LAUNCH();
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, out.download(), (std::string(name) + " block").c_str());
}

void run_cub(test::tally& t, const problem& p)
{
    std::vector<int> offsets(p.segments + 1);
    for (int s = 0; s <= p.segments; ++s) offsets[s] = s * p.seg;
    test::device_buffer<double> in(p.x.size()), out(p.segments);
    test::device_buffer<int> off(offsets.size());
    in.upload(p.x);
    off.upload(offsets);
    out.poison();
    std::size_t bytes = 0;
    TCORE_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, bytes, in.ptr, out.ptr, p.segments, off.ptr, off.ptr + 1));
    test::device_buffer<unsigned char> temp(bytes);
    TCORE_CHECK(cub::DeviceSegmentedReduce::Sum(temp.ptr, bytes, in.ptr, out.ptr, p.segments, off.ptr, off.ptr + 1));
    TCORE_CHECK(cudaDeviceSynchronize());
    compare(t, p, out.download(), "CUB segmented");
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    test::tally t;
    test::rng rng(test::seed());
    for (const int seg : {1, 100, 333, 2501})
        for (const int segments : {37, 1001}) {
            const problem p = make_problem(segments, seg, rng);
            run_tcore<tensor_core>(t, p, "tensor_core");
            run_tcore<cuda_core>(t, p, "cuda_core");
            run_cub(t, p);
        }
    return t.finish();
}
