// tests/gpu/stencil_cases.hpp - the cases of the stencil GPU tests
// (test_stencil.cu: 2D shapes, routes, streams, graphs, bad arguments;
// test_stencil_3d.cu: 3D shapes), split in two programs so that neither
// translation unit instantiates every shape: random inputs, the long double
// CPU reference (advance), the error bound (compare) and one case run
// through a route (run_case), one shape on every method, depth and boundary
// (run_shape). The bound and the poisoning are test_stencil.cu's header's.
#pragma once

#include "common/test_util.hpp"
#include "examples/stencil/stencil_cce.cuh"

#include <tcore/patterns/device/stencil.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tcore;
using namespace tcore::examples::stencil;  // the cce method (stencil_cce, stencil_run, the warp streaming kernel)
using tcore::test::device_buffer;

namespace {

test::tally tally_;
const bool quick = test::quick();

template <class M>
const char* method_name()
{
    if constexpr (std::is_same_v<M, tensor_core>) return "tc";
    else if constexpr (std::is_same_v<M, cuda_core>) return "cc";
    else return "cce";
}

/// True for an array element that is part of the Dirichlet halo.
template <class S>
bool is_halo(long long i, const stencil_grid& g, boundary bc)
{
    if (bc == boundary::periodic) return false;
    const stencil_extent e = stencil_array_extent<S>(g, bc);
    const long long x = i % e.ex, y = (i / e.ex) % e.ey, z = i / (e.ex * e.ey);
    const int r = S::radius;
    const bool zh = S::dims == 3 && (z < r || z >= e.ez - r);
    return x < r || x >= e.ex - r || y < r || y >= e.ey - r || zh;
}

/// A case's random input (halo included), weights, and the destination
/// template: the input's halo, NaN inside.
template <class S>
struct case_data {
    std::vector<double> host, poison;
    stencil_weights<S> w;
};

template <class S>
case_data<S> make_case(const stencil_grid& g, boundary bc, std::uint64_t salt)
{
    const std::size_t count = static_cast<std::size_t>(stencil_array_extent<S>(g, bc).count());
    test::rng r(test::seed() + salt);
    case_data<S> c;
    c.host.resize(count);
    for (double& v : c.host) v = r.nonzero();
    for (int i = 0; i < S::weight_count; ++i) c.w.w[i] = r.nonzero() / S::points;
    c.poison.assign(count, std::numeric_limits<double>::quiet_NaN());
    for (std::size_t i = 0; i < count; ++i)
        if (is_halo<S>(static_cast<long long>(i), g, bc)) c.poison[i] = c.host[i];
    return c;
}

/// `steps` more steps of the CPU reference on ref.
template <class S>
void advance(std::vector<double>& ref, const stencil_grid& g, boundary bc, const stencil_weights<S>& w, int steps)
{
    std::vector<double> tmp(ref.size());
    for (int s = 0; s < steps; ++s) {
        stencil_reference_step<S>(ref.data(), tmp.data(), g, bc, w);
        ref.swap(tmp);
    }
}

/// Element-by-element comparison after `steps` steps (bound in the header).
struct comparison {
    std::size_t bad = 0, first_bad = 0;
    double worst = 0, tol = 0;
};

template <class S>
comparison compare(const std::vector<double>& got, const std::vector<double>& ref, int steps)
{
    comparison c;
    c.tol = 4.0 * steps * S::points * 0x1.0p-52;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double err = std::fabs(got[i] - ref[i]);
        if (!(err <= c.tol) && c.bad++ == 0) c.first_bad = i;
        if (err > c.worst || std::isnan(err)) c.worst = std::isnan(err) ? INFINITY : err;
    }
    return c;
}

/// How run_case launches: stencil_run (tcore::stencil_apply for tc and cc,
/// stencil_apply_cce for cce); the warp streaming kernel itself
/// (2D stars, cce, Dirichlet), whatever stencil_apply would pick; or the
/// kernel stencil_apply picks with its items in grid-stride order instead
/// of tickets (the 2D tiled and t = 1 kernels, the 3D t = 1 kernel).
enum class route { apply, warp_stream, grid_stride };

/// Launches T steps of S by `how` on `stream`.
template <class S, class M, int T, boundary BC>
void launch(route how, const double* in, double* out, const stencil_grid& g, const stencil_weights<S>& w,
            cudaStream_t stream)
{
    constexpr stencil_schedule grid_stride{false, 0};
    if (how == route::apply) {
        stencil_run<S, M, T, BC>(in, out, g, w, stream);
        return;
    }
    if (how == route::warp_stream) {
        if constexpr (stencil_warp_stream_star<S> && std::is_same_v<M, stencil_cce> && BC == boundary::dirichlet &&
                      (T == 2 || T == 3))
            stencil_launch_warp_stream<S, T>(in, out, g, w, stream);
        else
            throw std::invalid_argument("the warp streaming kernel computes cce 2D stars, t = 2 or 3, Dirichlet");
    }
    if (how == route::grid_stride) {
        if constexpr (std::is_same_v<M, stencil_cce> && T == 1 && S::dims == 3)
            stencil_launch_stream<S, BC, stencil_stream_default<S>>(in, out, g, w, stream, grid_stride);
        else if constexpr (std::is_same_v<M, stencil_cce> && T == 1)
            stencil_launch_t1_tiles<S, BC, stencil_t1_tile_default<S>>(in, out, g, w, stream, grid_stride);
        else if constexpr (S::dims == 2 && std::is_same_v<M, stencil_cce>)
            stencil_launch_tiled2d<S, M, T, BC, stencil_cce_tiled2d<S, T>>(in, out, g, w, stream, grid_stride);
        else if constexpr (S::dims == 2)
            stencil_launch_tiled2d<S, M, T, BC>(in, out, g, w, stream, grid_stride);
        else
            throw std::invalid_argument("the 3D tiled kernel has no ticket order to leave");
    }
    TCORE_CHECK(cudaGetLastError());
}

template <class S, class M, int T, boundary BC, route How = route::apply>
void run_case(const stencil_grid& g, int launches, std::uint64_t salt)
{
    const case_data<S> c = make_case<S>(g, BC, salt);
    const std::size_t count = c.host.size();
    device_buffer<double> d0(count), d1(count);
    d0.upload(c.host);
    std::vector<double> ref = c.host;
    const std::string name = S::name() + " " + method_name<M>() + " t=" + std::to_string(T) + " " +
                             boundary_name(BC) + " " + std::to_string(g.nx) + "x" + std::to_string(g.ny) +
                             (S::dims == 3 ? "x" + std::to_string(g.nz) : std::string()) +
                             (How == route::warp_stream ? " (warp stream)"
                              : How == route::grid_stride ? " (grid-stride)"
                                                          : "");
    double* src = d0.ptr;
    double* dst = d1.ptr;
    for (int l = 1; l <= launches; ++l) {
        TCORE_CHECK(cudaMemcpy(dst, c.poison.data(), count * sizeof(double), cudaMemcpyHostToDevice));
        launch<S, M, T, BC>(How, src, dst, g, c.w, 0);
        TCORE_CHECK(cudaDeviceSynchronize());
        advance<S>(ref, g, BC, c.w, T);
        std::vector<double> got(count);
        TCORE_CHECK(cudaMemcpy(got.data(), dst, count * sizeof(double), cudaMemcpyDeviceToHost));
        if (test::planted("nan_result") || test::planted("perturb")) {
            const std::size_t i = static_cast<std::size_t>(
                std::find_if(c.poison.begin(), c.poison.end(), [](double v) { return std::isnan(v); }) - c.poison.begin());
            if (i < count) got[i] = test::planted("perturb") ? got[i] + 1e-12 : std::numeric_limits<double>::quiet_NaN();
        }
        const int steps = l * T;
        const comparison cmp = compare<S>(got, ref, steps);
        tally_.check(cmp.bad == 0, "%s launch %d (%d steps): %zu of %zu elements off, max error %.3g > %.3g (first at %zu: got %.17g, ref %.17g)",
                     name.c_str(), l, steps, cmp.bad, count, cmp.worst, cmp.tol, cmp.first_bad, got[cmp.first_bad],
                     ref[cmp.first_bad]);
        if (l == launches && cmp.bad == 0)
            std::printf("ok  %-48s max error %.2e after %d steps (bound %.1e)\n", name.c_str(), cmp.worst, steps, cmp.tol);
        std::swap(src, dst);
    }
}

template <class S, class M, int T>
void run_grids(std::uint64_t salt)
{
    std::vector<stencil_grid> grids;
    if constexpr (S::dims == 2) {
        grids.push_back({37, 29, 1});
        grids.push_back({5, 3, 1});
        grids.push_back({600, 41, 1});  // several tiles with tails; even row pitch (t = 1 cce: 16-byte loads)
        if (!quick) grids.push_back({150, 97, 1});
    } else {
        grids.push_back({19, 21, 13});
        grids.push_back({3, 4, 2});
        grids.push_back({131, 67, 13});  // 3 x 3 tiles with tails, several z chunks
        grids.push_back({130, 35, 12});  // even row pitch (t = 1 cce: 16-byte loads), tails in x and y
        if (!quick) grids.push_back({45, 37, 70});
    }
    for (const stencil_grid& g : grids) {
        run_case<S, M, T, boundary::dirichlet>(g, 2, salt++);
        run_case<S, M, T, boundary::periodic>(g, 2, salt++);
    }
}

template <class S>
void run_shape(std::uint64_t salt)
{
    run_grids<S, tensor_core, 1>(salt + 100);
    run_grids<S, tensor_core, 3>(salt + 200);
    run_grids<S, cuda_core, 1>(salt + 300);
    run_grids<S, cuda_core, 3>(salt + 400);
    run_grids<S, stencil_cce, 1>(salt + 500);
    run_grids<S, stencil_cce, 3>(salt + 600);
}

}  // namespace
