// tests/gpu/test_user_stencil.cu - worked user kernels: "a stencil on
// fragments". One time step of a 2D FP64 stencil with arbitrary weights and
// a Dirichlet boundary, written as a user would with tcore's building
// blocks, beside a plain CUDA-core kernel written here as the base they
// replace:
//   star2d1r (5-point): the fragment block product (stencil_block_mma,
//            tcore/patterns/stencil.cuh) in the user's own tile loop;
//   box2d1r (9-point):  the block-level tile step (stencil_load_region,
//            stencil_setup_lane, stencil_tile_step of
//            tcore/patterns/stencil_tile.cuh) for T = 1.
//
// The block-product kernel: a block of 4 warps owns a 32 x 32 tile of outputs. It
// copies the tile's region (the tile and a halo of r = 1) into shared memory
// with row pitch stencil_tile_pitch(34) = 36 (pitch % 8 == 4: conflict-free
// A gathers), zeros past the array, then each warp computes 16 x 8 blocks
// of outputs with stencil_block_mma (all 32 lanes call it: the loop bound is
// warp-uniform) and stores d[i] at stencil_out_coord(lane, i) where it lies
// inside the grid. The block product reads rows -r..15+r and columns
// -r..7+r around each block, all inside the 34 x 34 region.
// The tile-step kernel: the same 32 x 32 tile as stencil_tile_geometry<S, 1,
// 32, 32>; stencil_load_region issues the region's cp.async copies (zeros
// past the array), each thread waits for its own, stencil_setup_lane builds
// the lane layout and ends with the block barrier that makes the region
// visible, and stencil_tile_step (step 1 of 1) writes the tile's interior
// points straight to the output array (frame from make_stencil_tile_frame).
// Both backends (tensor_core, cuda_core) for each kernel.
//
// Arrays: (nx + 2) x (ny + 2) doubles, row-major; the outer ring is the
// Dirichlet halo (fixed values, never written), interior point (x, y) is
// element (x + 1, y + 1). Grids 75 x 41 and 33 x 17 are not multiples of the
// tile or of the 16 x 8 block. Inputs, halo and weights are random and never
// zero; the output array is poisoned with NaN before every run: every
// interior point must be written and the halo left alone.
//
// Tolerance (u = 2^-53). An output is y = sum over the |S| points k of the
// shape of w_k x_k. The MMA adds, besides these |S| products, products of a
// zero weight or a zero padding input; for finite inputs those are exact
// zeros and adding them changes nothing. Each of the |S| real terms is
// folded into the sum with one rounding (a fused multiply-add, in the MMA
// and in the CUDA-core emulation and base kernel alike, in whatever order),
// so |y^ - y| <= g sum_k |w_k x_k| with g = |S| u / (1 - |S| u) (Higham,
// Accuracy and Stability of Numerical Algorithms, 3.1), that is |S| u sum
// |w_k x_k| to first order. The reference sums in long double on the host,
// its own error at most |S| eps_ld sum |w_k x_k|, which the check adds.
#include "common/test_util.hpp"

#include <tcore/patterns/stencil_tile.cuh>  // and stencil.cuh, which it includes

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace tcore;

namespace {

test::tally tally_;

constexpr int tile_x = 32, tile_y = 32;  // outputs per block
constexpr int block_threads = 128;       // 4 warps

/// The user's kernel: one step of the 2D stencil S on a tile of 32 x 32 outputs per block.
template <class Backend, class S>
__global__ void __launch_bounds__(block_threads) user_stencil(const double* in, double* out, int nx, int ny,
                                                              const stencil_weights<S> w)
{
    static_assert(S::dims == 2, "a 2D kernel");
    constexpr int R = S::radius;
    constexpr int bw = tile_x + 2 * R, bh = tile_y + 2 * R;  // the tile's region
    constexpr int pitch = stencil_tile_pitch(bw);
    __shared__ double region[bh * pitch];
    const long long ex = nx + 2 * R, ey = ny + 2 * R;
    const int x0 = blockIdx.x * tile_x, y0 = blockIdx.y * tile_y;
    // region position (bx, by) is array element (x0 + bx, y0 + by): interior point (x0 - R + bx, y0 - R + by)
    for (int i = threadIdx.x; i < bh * pitch; i += block_threads) {
        const int by = i / pitch, bx = i % pitch;
        const long long ax = x0 + bx, ay = y0 + by;
        region[i] = bx < bw && ax < ex && ay < ey ? in[ay * ex + ax] : 0.0;
    }
    __syncthreads();
    const int lane = lane_id(), warp = threadIdx.x / 32;
    const stencil_lane<S> ln = make_stencil_lane<S>(lane, w, pitch);
    constexpr int blocks_x = tile_x / 8, blocks = (tile_y / 16) * blocks_x;
    for (int b = warp; b < blocks; b += block_threads / 32) {
        const int r0 = (b / blocks_x) * 16, c0 = (b % blocks_x) * 8;  // the 16 x 8 block's first output
        const double* const src[1] = {region + (r0 + R) * pitch + c0 + R};
        double d[4];
        stencil_block_mma<Backend, S>(d, src, pitch, ln);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const coord rc = stencil_out_coord(lane, i);
            const int x = x0 + c0 + rc.col, y = y0 + r0 + rc.row;
            if (x < nx && y < ny) out[(y + R) * ex + x + R] = d[i];
        }
    }
}

/// The user's kernel on the tile step: one step of the 2D stencil S, Dirichlet, a 32 x 32 tile per block.
template <class Backend, class S>
__global__ void __launch_bounds__(block_threads) user_tile_step(const double* in, double* out, int nx, int ny,
                                                                const stencil_weights<S> w)
{
    using G = stencil_tile_geometry<S, 1, tile_x, tile_y>;
    constexpr boundary BC = boundary::dirichlet;
    __shared__ __align__(16) double region[G::plane];
    __shared__ double scratch[S::weight_count];
    stencil_args<S> a{};  // the step reads the output row pitch and the weights
    a.ex = nx + 2 * S::radius;
    a.w = w;
    const long long x0 = static_cast<long long>(blockIdx.x) * tile_x, y0 = static_cast<long long>(blockIdx.y) * tile_y;
    stencil_load_region<G, BC, block_threads, false>(region, in, in, x0, y0, nx, ny, a.ex, false);
    cp_async_commit();
    cp_async_wait<0>();
    const stencil_lane<S> ln = stencil_setup_lane<S, Backend>(w, scratch, G::pitch);  // ends with a barrier
    const stencil_tile_frame f = make_stencil_tile_frame<G, BC>(x0, y0, nx, ny, a.ex, true);
    const double* const src[1] = {region};
    stencil_tile_step<S, Backend, 1, 1, BC, G, block_threads, false, stencil_strip_rows<S>()>(
        src, stencil_step_target{nullptr, out}, f, a, &ln);
}

/// The base: one thread per interior point, the shape's terms in (dy, dx) order.
template <class S>
__global__ void plain_stencil(const double* in, double* out, int nx, int ny, const stencil_weights<S> w)
{
    constexpr int R = S::radius;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const long long ex = nx + 2 * R;
    double acc = 0.0;
#pragma unroll
    for (int dy = -R; dy <= R; ++dy)
#pragma unroll
        for (int dx = -R; dx <= R; ++dx)
            if (S::contains(0, dy, dx)) acc = fma(w.at(0, dy, dx), in[(y + R + dy) * ex + x + R + dx], acc);
    out[(y + R) * ex + x + R] = acc;
}

template <class S, bool TileStep>
void run_grid(int nx, int ny, std::uint64_t salt)
{
    constexpr int R = S::radius;
    const long long ex = nx + 2 * R, ey = ny + 2 * R;
    const std::size_t count = static_cast<std::size_t>(ex * ey);
    test::rng r(test::seed() + salt);
    std::vector<double> in(count);
    for (double& v : in) v = r.nonzero();
    stencil_weights<S> w;
    for (int dy = -R; dy <= R; ++dy)
        for (int dx = -R; dx <= R; ++dx)
            if (S::contains(0, dy, dx)) w.set(0, dy, dx, r.nonzero());

    // reference and bound per interior point
    const long double n = S::points, u = 0x1.0p-53L;
    const long double g = n * u / (1 - n * u) + n * LDBL_EPSILON;
    std::vector<long double> ref(count), tol(count);
    for (long long y = 0; y < ny; ++y)
        for (long long x = 0; x < nx; ++x) {
            long double sum = 0, mag = 0;
            for (int dy = -R; dy <= R; ++dy)
                for (int dx = -R; dx <= R; ++dx)
                    if (S::contains(0, dy, dx)) {
                        const long double t = static_cast<long double>(w.at(0, dy, dx)) * in[(y + R + dy) * ex + x + R + dx];
                        sum += t;
                        mag += std::fabs(t);
                    }
            ref[(y + R) * ex + x + R] = sum;
            tol[(y + R) * ex + x + R] = g * mag;
        }

    test::device_buffer<double> din(count), dout(count);
    din.upload(in);
    auto check = [&](const char* who, auto launch) {
        dout.poison();  // NaN
        launch();
        TCORE_CHECK(cudaGetLastError());
        TCORE_CHECK(cudaDeviceSynchronize());
        const std::vector<double> got = dout.download();
        std::size_t bad = 0, first = 0;
        long double worst = 0;
        for (long long y = 0; y < ey; ++y)
            for (long long x = 0; x < ex; ++x) {
                const std::size_t i = static_cast<std::size_t>(y * ex + x);
                const bool interior = x >= R && x < nx + R && y >= R && y < ny + R;
                bool ok;
                if (interior) {
                    const long double err = std::fabs(static_cast<long double>(got[i]) - ref[i]);
                    ok = err <= tol[i];  // false for NaN
                    if (ok && tol[i] > 0 && err / tol[i] > worst) worst = err / tol[i];
                } else {
                    ok = std::isnan(got[i]);  // the halo is never written
                }
                if (!ok && bad++ == 0) first = i;
            }
        const std::string name = S::name() + " " + who + " " + std::to_string(nx) + "x" + std::to_string(ny);
        tally_.check(bad == 0, "%s: %zu of %zu elements off (first at %zu: got %.17g, ref %.17Lg, bound %.3Lg)",
                     name.c_str(), bad, count, first, got[first], ref[first], tol[first]);
        if (bad == 0) std::printf("ok  %-40s max error %.3f of the bound\n", name.c_str(), static_cast<double>(worst));
    };
    const dim3 tiles((nx + tile_x - 1) / tile_x, (ny + tile_y - 1) / tile_y);
    if constexpr (TileStep) {
        check("tensor_core tile step",
              [&] { user_tile_step<tensor_core, S><<<tiles, block_threads>>>(din.ptr, dout.ptr, nx, ny, w); });
        check("cuda_core tile step",
              [&] { user_tile_step<cuda_core, S><<<tiles, block_threads>>>(din.ptr, dout.ptr, nx, ny, w); });
    } else {
        check("tensor_core", [&] { user_stencil<tensor_core, S><<<tiles, block_threads>>>(din.ptr, dout.ptr, nx, ny, w); });
        check("cuda_core", [&] { user_stencil<cuda_core, S><<<tiles, block_threads>>>(din.ptr, dout.ptr, nx, ny, w); });
    }
    const dim3 threads(32, 8), points((nx + 31) / 32, (ny + 7) / 8);
    check("plain", [&] { plain_stencil<S><<<points, threads>>>(din.ptr, dout.ptr, nx, ny, w); });
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    run_grid<star2d1r, false>(75, 41, 1);
    run_grid<star2d1r, false>(33, 17, 2);
    run_grid<box2d1r, true>(75, 41, 3);
    run_grid<box2d1r, true>(33, 17, 4);
    return tally_.finish();
}
