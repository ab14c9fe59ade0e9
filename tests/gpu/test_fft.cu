// libs: CUDA::cufft tcore_kernels_fft
// tests/gpu/test_fft.cu - batched FP64 FFTs of tcore/patterns/device/fft.cuh on
// both backends (tensor_core = tc, cuda_core = cc) against the long double
// CPU reference (dft::fft_reference) and against cuFFT (Z2Z):
//   * 1D: every supported size 64 .. 4096, batches that leave a CTA partly
//     empty (1, 3, 37 signals), forward and inverse;
//   * 2D: ny x nx in {64x64, 256x128, 128x512, 512x256, 1024x64, 2048x64,
//     4096x64} with small batches, forward and inverse (the column pass with
//     32, 16, 8, 4, 2 and 1 signals per CTA: every strided tile layout of
//     dft::tile_slot, n-major and not);
//   * batches of more tiles than the device holds CTAs (1D 256 x 3001, 4096
//     x 997 and x 203 in place, 2D 256x256 x 24, 512x512 x 3): the
//     persistent CTAs loop and prefetch;
//   * both column tiles of ny = 512 (8 or 4 image columns: set_line_tiles);
//   * both row kernels of nx = 2048 and both column kernels of ny = 256
//     (the persistent pass and one tile a CTA loaded straight into
//     registers: set_direct_rows, set_direct_columns), both of nx = 4096
//     (tile numbers taken one ahead or not: set_take_ahead);
//   * the one-pass 2D kernel (256x256 in thread-block clusters of 16 CTAs,
//     where the device launches them, whatever the plan's default): 37
//     images (clusters loop), 1, in place, and the two passes beside it; the
//     default (one pass where DRAM per SM is below 30 GB/s) and the sizes
//     without a one-pass kernel;
//   * in place (in == out), and inverse(forward(x)) = N x;
//   * the output is poisoned (NaN) before each run: every element written;
//   * bad arguments throw tcore::error;
//   * a NaN or an infinity in one input element makes every output of its
//     signal non-finite and leaves the other signals of the batch exact.
// Random inputs in [-1, 1)^2. Error bound per transform: 32 ulps of the
// largest output per radix stage (the host model of the kernel, run in
// tests/host/test_dft_matrices.cu, stays under half of that).
//
// cuFFT's output must meet the same bound against the reference (so the
// reference is cuFFT's transform); tcore - cuFFT is printed.
//
// TCORE_TEST_QUICK=1 keeps the 1D sizes 64, 512, 4096 and two 2D shapes.
// Planted faults (tests/gpu/plant.sh): nan_result, perturb (1e-9 relative,
// above every bound here), nan_round_trip.
#include "common/test_util.hpp"

#include "examples/fft/fft_kernels.hpp"

#include <cufft.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

using namespace tcore;
using tcore::test::device_buffer;
using cd = std::complex<double>;

namespace {

test::tally tally_;
const bool quick = tcore::test::quick();

void check_cufft(cufftResult r, const char* what)
{
    if (r != CUFFT_SUCCESS) throw tcore::error(std::string(what) + " failed: cufftResult " + std::to_string(r));
}

int stages_of(long long n)
{
    int l = 0;
    while ((1LL << l) < n) ++l;
    return dft::stages(l);
}

std::vector<double2> to_d2(const std::vector<cd>& v)
{
    std::vector<double2> o(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) o[i] = make_double2(v[i].real(), v[i].imag());
    return o;
}

template <class Backend>
const char* backend_name()
{
    return std::is_same_v<Backend, tensor_core> ? "tc" : "cc";
}

/// Runs one plan on random data; checks against the CPU reference and cuFFT.
/// passes: 0 the plan's default, 1 the one-pass 2D kernel (the plan must
/// have it), 2 the two passes. line_tiles: 0 the plan's default column
/// tiles, 1 line tiles, 2 not (fft_plan::set_line_tiles). rows: 0 the
/// plan's default row kernel, 1 direct, 2 the pass kernel
/// (fft_plan::set_direct_rows); columns likewise (set_direct_columns).
/// ahead: 0 the plan's default row kernel of nx = 4096, 1 tile numbers
/// taken ahead, 2 not (fft_plan::set_take_ahead).
template <class Backend>
void run_case(long long nx, long long ny, long long batch, fft_direction dir, bool in_place, std::uint64_t salt,
              int passes = 0, int line_tiles = 0, int rows = 0, int columns = 0, int ahead = 0)
{
    const long long per = nx * ny, count = per * batch;
    test::rng r(test::seed() + salt);
    std::vector<cd> x(static_cast<std::size_t>(count));
    for (cd& v : x) v = {r.uniform(), r.uniform()};
    const std::vector<double2> xd = to_d2(x);

    fft_plan plan(nx, ny, batch);
    if (passes != 0) plan.set_single_pass(passes == 1);
    if (line_tiles != 0) plan.set_line_tiles(line_tiles == 1);
    if (rows != 0) plan.set_direct_rows(rows == 1);
    if (columns != 0) plan.set_direct_columns(columns == 1);
    if (ahead != 0) plan.set_take_ahead(ahead == 1);
    device_buffer<double2> din(static_cast<std::size_t>(count)), dout(static_cast<std::size_t>(count));
    din.upload(xd);
    double2* out = in_place ? din.ptr : dout.ptr;
    if (!in_place) dout.poison();
    plan.execute<Backend>(din.ptr, out, dir);
    TCORE_CHECK(cudaDeviceSynchronize());
    std::vector<double2> got(static_cast<std::size_t>(count));
    TCORE_CHECK(cudaMemcpy(got.data(), out, sizeof(double2) * count, cudaMemcpyDeviceToHost));

    // cuFFT on the same input
    device_buffer<double2> cin(static_cast<std::size_t>(count)), cout_(static_cast<std::size_t>(count));
    cin.upload(xd);
    cufftHandle h;
    int dims[2] = {static_cast<int>(ny), static_cast<int>(nx)};
    if (ny > 1) check_cufft(cufftPlanMany(&h, 2, dims, nullptr, 1, 0, nullptr, 1, 0, CUFFT_Z2Z, static_cast<int>(batch)), "cufftPlanMany");
    else check_cufft(cufftPlan1d(&h, static_cast<int>(nx), CUFFT_Z2Z, static_cast<int>(batch)), "cufftPlan1d");
    const cufftResult ex = cufftExecZ2Z(h, reinterpret_cast<cufftDoubleComplex*>(cin.ptr),
                                        reinterpret_cast<cufftDoubleComplex*>(cout_.ptr),
                                        dir == fft_direction::forward ? CUFFT_FORWARD : CUFFT_INVERSE);
    cufftDestroy(h);
    check_cufft(ex, "cufftExecZ2Z");
    TCORE_CHECK(cudaDeviceSynchronize());
    const std::vector<double2> vendor = cout_.download();

    double worst = 0, worst_vendor = 0, scale = 0, vendor_vs_ref = 0;
    std::size_t bad = 0;
    for (long long b = 0; b < batch; ++b) {
        const auto ref = dft::fft_reference(x.data() + b * per, nx, ny, dir);
        for (long long i = 0; i < per; ++i) {
            double2 g = got[b * per + i];
            const double2 v = vendor[b * per + i];
            if (b == batch - 1 && i == per / 2 && test::planted("nan_result")) g.x = std::numeric_limits<double>::quiet_NaN();
            if (b == batch - 1 && i == per / 2 && test::planted("perturb")) g.y += 1e-9 * (1 + std::abs(ref[i]));
            const double e = std::abs(cd(g.x, g.y) - ref[i]);
            if (!(e == e)) ++bad;  // NaN: an element never written
            worst = test::worst_of(worst, e);
            worst_vendor = test::worst_of(worst_vendor, std::abs(cd(g.x, g.y) - cd(v.x, v.y)));
            vendor_vs_ref = test::worst_of(vendor_vs_ref, std::abs(cd(v.x, v.y) - ref[i]));
            scale = std::fmax(scale, std::abs(ref[i]));
        }
    }
    const int stages = stages_of(nx) + (ny > 1 ? stages_of(ny) : 0);
    const double tol = 32.0 * stages * 0x1.0p-52 * scale;
    char name[192];
    std::snprintf(name, sizeof name, "%s %lldx%lld batch %lld %s%s%s%s%s%s", backend_name<Backend>(), ny, nx, batch,
                  dir == fft_direction::forward ? "forward" : "inverse", in_place ? " in place" : "",
                  ny > 1 ? (plan.passes<Backend>() == 1 ? " (one pass)" : " (two passes)") : "",
                  ny == 512 ? (plan.line_tiles<Backend>() ? " line tiles" : " M=4 tiles") : "",
                  nx == 2048 ? (plan.direct_rows<Backend>() ? " direct rows" : " pass rows")
                  : nx == 4096 ? (plan.take_ahead<Backend>() ? " rows taken ahead" : " pass rows")
                               : "",
                  ny == 256 && plan.passes<Backend>() == 2
                      ? (plan.direct_columns<Backend>() ? " direct columns" : " pass columns")
                      : "");
    tally_.check(bad == 0 && worst <= tol, "%s: %zu NaN, max error %.3g > %.3g (scale %.3g)", name, bad, worst, tol, scale);
    // cuFFT within the same bound of the reference: the reference is the
    // transform cuFFT computes (sign, scaling, ordering), not only a model
    // of tcore's kernels. (tcore against cuFFT directly would follow from
    // the two checks by the triangle inequality; it is printed.)
    tally_.check(vendor_vs_ref <= tol, "%s: cuFFT differs from the reference by %.3g > %.3g", name, vendor_vs_ref, tol);
    if (bad == 0 && worst <= tol)
        std::printf("ok  %-44s error %.2e (cuFFT %.2e, tcore - cuFFT %.2e, bound %.1e)\n", name, worst, vendor_vs_ref,
                    worst_vendor, tol);
}

/// inverse(forward(x)) == N x
template <class Backend>
void round_trip(long long nx, long long ny, long long batch)
{
    const long long count = nx * ny * batch;
    test::rng r(test::seed() + 77);
    std::vector<double2> x(static_cast<std::size_t>(count));
    for (double2& v : x) v = make_double2(r.uniform(), r.uniform());
    const fft_plan plan(nx, ny, batch);
    device_buffer<double2> a(static_cast<std::size_t>(count)), b(static_cast<std::size_t>(count));
    a.upload(x);
    plan.execute<Backend>(a.ptr, b.ptr, fft_direction::forward);
    plan.execute<Backend>(b.ptr, b.ptr, fft_direction::inverse);
    const std::vector<double2> y = b.download();
    const double n = static_cast<double>(nx * ny);
    double worst = 0;
    for (long long i = 0; i < count; ++i)
        worst = test::worst_of(worst, std::abs(cd(y[i].x / n, y[i].y / n) - cd(x[i].x, x[i].y)));
    if (test::planted("nan_round_trip")) worst = test::worst_of(worst, std::numeric_limits<double>::quiet_NaN());
    const double tol = 64.0 * (stages_of(nx) + (ny > 1 ? stages_of(ny) : 0)) * 0x1.0p-52;
    tally_.check(worst <= tol, "%s round trip %lldx%lld: %.3g > %.3g", backend_name<Backend>(), ny, nx, worst, tol);
}

bool cluster_launch()
{
    int dev = 0, on = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    TCORE_CHECK(cudaDeviceGetAttribute(&on, cudaDevAttrClusterLaunch, dev));
    return on != 0;
}

void bad_arguments()
{
    // one pass is tc's default for 256x256 where clusters launch and the DRAM
    // has under 30 GB/s an SM, never cc's; set_single_pass sets both; other
    // sizes have no one-pass kernel
    {
        fft_plan p(256, 256, 2);
        const bool tc_default = cluster_launch() && tcore::dram_gbs_per_sm() < 30.0;
        tally_.check(p.single_pass<tensor_core>() == tc_default && !p.single_pass<cuda_core>() &&
                         p.passes<tensor_core>() == (tc_default ? 1 : 2) && p.passes<cuda_core>() == 2,
                     "256x256: tc's default is one pass exactly where clusters launch and DRAM per SM < 30 GB/s; "
                     "cc's is two");
        if (cluster_launch()) {
            p.set_single_pass(true);
            tally_.check(p.single_pass<tensor_core>() && p.single_pass<cuda_core>(), "set_single_pass(true): both");
        }
        p.set_single_pass(false);
        tally_.check(!p.single_pass<tensor_core>() && !p.single_pass<cuda_core>(), "set_single_pass(false): both");
    }
    tally_.check(!fft_plan(128, 128, 2).single_pass<tensor_core>() && !fft_plan(256, 1, 2).single_pass<tensor_core>() &&
                     !fft_plan(512, 256, 2).single_pass<tensor_core>() &&
                     !fft_plan(256, 512, 2).single_pass<tensor_core>() &&
                     !fft_plan(512, 256, 2).single_pass_available(),
                 "128x128, 256x512, 512x256 and 1D 256 have no one-pass kernel");
    tally_.expect_error("one pass for 128x128", [] { fft_plan(128, 128, 1).set_single_pass(true); });
    tally_.expect_error("one pass for 256x512", [] { fft_plan(512, 256, 1).set_single_pass(true); });
    tally_.expect_error("nx = 100", [] { fft_plan p(100, 1, 1); });
    tally_.expect_error("nx = 32", [] { fft_plan p(32, 1, 1); });
    tally_.expect_error("nx = 8192", [] { fft_plan p(8192, 1, 1); });
    tally_.expect_error("ny = 48", [] { fft_plan p(64, 48, 1); });
    tally_.expect_error("batch = 0", [] { fft_plan p(64, 1, 0); });
    const fft_plan p(64, 1, 4);
    device_buffer<double2> a(256), b(256);
    tally_.expect_error("a null input", [&] { p.execute(nullptr, b.ptr, fft_direction::forward); });
    tally_.expect_error("overlapping arrays", [&] { p.execute(a.ptr, a.ptr + 3, fft_direction::forward); });
    tally_.expect_error("a misaligned pointer", [&] {
        const double2* q = reinterpret_cast<const double2*>(reinterpret_cast<const char*>(a.ptr) + 8);
        p.execute(q, b.ptr, fft_direction::forward);
    });
}

/// A NaN or an infinity in one element of signal 1 (of 3): every output of
/// that signal depends on it, so all of them must be non-finite, and the
/// other signals must match the reference as usual (no spread across
/// signals of a batch, nor across the images of a 2D batch).
template <class Backend>
void non_finite_input(long long nx, long long ny, double bad, std::uint64_t salt)
{
    const long long per = nx * ny, batch = 3, count = per * batch;
    test::rng r(test::seed() + salt);
    std::vector<double2> x(static_cast<std::size_t>(count));
    for (double2& v : x) v = make_double2(r.uniform(), r.uniform());
    x[static_cast<std::size_t>(per + per / 3)].x = bad;
    const fft_plan plan(nx, ny, batch);
    device_buffer<double2> in(static_cast<std::size_t>(count)), out(static_cast<std::size_t>(count));
    in.upload(x);
    out.poison();
    plan.execute<Backend>(in.ptr, out.ptr, fft_direction::forward);
    TCORE_CHECK(cudaDeviceSynchronize());
    const std::vector<double2> got = out.download();
    long long finite_in_bad = 0, bad_elsewhere = 0;
    const int stages = stages_of(nx) + (ny > 1 ? stages_of(ny) : 0);
    for (long long b = 0; b < batch; ++b) {
        if (b == 1) {
            for (long long i = 0; i < per; ++i) {
                const double2 g = got[static_cast<std::size_t>(per + i)];
                finite_in_bad += std::isfinite(g.x) && std::isfinite(g.y);
            }
            continue;
        }
        std::vector<cd> xs(static_cast<std::size_t>(per));
        for (long long i = 0; i < per; ++i) xs[static_cast<std::size_t>(i)] = {x[b * per + i].x, x[b * per + i].y};
        const auto ref = dft::fft_reference(xs.data(), nx, ny, fft_direction::forward);
        double scale = 0;
        for (const cd& v : ref) scale = std::fmax(scale, std::abs(v));
        const double tol = 32.0 * stages * 0x1.0p-52 * scale;
        for (long long i = 0; i < per; ++i) {
            const double2 g = got[static_cast<std::size_t>(b * per + i)];
            bad_elsewhere += !(std::abs(cd(g.x, g.y) - ref[static_cast<std::size_t>(i)]) <= tol);
        }
    }
    tally_.check(finite_in_bad == 0 && bad_elsewhere == 0,
                 "%s %lldx%lld with %g in signal 1: %lld finite outputs in that signal, %lld wrong outputs in the others",
                 backend_name<Backend>(), ny, nx, bad, finite_in_bad, bad_elsewhere);
}

template <class Backend>
void run_backend(std::uint64_t salt)
{
    for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        non_finite_input<Backend>(512, 1, bad, salt++);
        non_finite_input<Backend>(128, 64, bad, salt++);
    }
    std::vector<long long> sizes = quick ? std::vector<long long>{64, 512, 4096}
                                         : std::vector<long long>{64, 128, 256, 512, 1024, 2048, 4096};
    for (const long long n : sizes)
        for (const long long batch : {1LL, 3LL, 37LL})
            for (const fft_direction d : {fft_direction::forward, fft_direction::inverse})
                run_case<Backend>(n, 1, batch, d, false, salt++);
    struct shape {
        long long ny, nx, batch;
    };
    std::vector<shape> shapes = {{64, 64, 3}, {256, 128, 2}};
    if (!quick)
        for (const shape& s :
             std::vector<shape>{{128, 512, 2}, {512, 256, 1}, {1024, 64, 2}, {2048, 64, 1}, {4096, 64, 1}})
            shapes.push_back(s);
    for (const shape& s : shapes)
        for (const fft_direction d : {fft_direction::forward, fft_direction::inverse})
            run_case<Backend>(s.nx, s.ny, s.batch, d, false, salt++);
    // more tiles than resident CTAs: every CTA loops over several tiles (and
    // prefetches), the last tile partly empty
    run_case<Backend>(256, 1, 3001, fft_direction::forward, false, salt++);
    // both row kernels of N = 4096 (one signal a tile; tile numbers taken one
    // ahead or not), whichever the plan's default: more rows than resident
    // CTAs, in place, one row, 2D rows
    for (const int ahead : {1, 2}) {
        run_case<Backend>(4096, 1, quick ? 401 : 997, fft_direction::forward, false, salt++, 0, 0, 0, 0, ahead);
        run_case<Backend>(4096, 1, 203, fft_direction::inverse, true, salt++, 0, 0, 0, 0, ahead);
        run_case<Backend>(4096, 1, 1, fft_direction::inverse, false, salt++, 0, 0, 0, 0, ahead);
        run_case<Backend>(4096, 64, 1, fft_direction::forward, false, salt++, 0, 0, 0, 0, ahead);
    }
    run_case<Backend>(256, 256, 24, fft_direction::inverse, false, salt++);
    if (!quick) run_case<Backend>(512, 512, 3, fft_direction::forward, false, salt++);
    // both column tiles of ny = 512 (8 or 4 image columns a tile), whichever
    // the plan's default on this device
    for (const int tiles : {1, 2}) {
        run_case<Backend>(256, 512, 2, fft_direction::forward, false, salt++, 0, tiles);
        run_case<Backend>(128, 512, 5, fft_direction::inverse, true, salt++, 0, tiles);
    }
    // both row kernels of nx = 2048, whichever the plan's default on this
    // device: batches that end in a partial tile (the direct kernel's CTA
    // takes one signal), more signals than resident CTAs, in place, 2D rows
    for (const int rows : {1, 2}) {
        run_case<Backend>(2048, 1, 1501, fft_direction::forward, false, salt++, 0, 0, rows);
        run_case<Backend>(2048, 1, 3, fft_direction::inverse, true, salt++, 0, 0, rows);
        run_case<Backend>(2048, 128, 2, fft_direction::inverse, false, salt++, 0, 0, rows);
    }
    // both column kernels of ny = 256 (two passes), whichever the plan's
    // default: one image, more tiles than resident CTAs, in place, nx = 128
    for (const int columns : {1, 2}) {
        run_case<Backend>(256, 256, 1, fft_direction::forward, false, salt++, 2, 0, 0, columns);
        run_case<Backend>(512, 256, quick ? 3 : 19, fft_direction::inverse, false, salt++, 2, 0, 0, columns);
        run_case<Backend>(128, 256, 2, fft_direction::forward, true, salt++, 2, 0, 0, columns);
    }
    run_case<Backend>(1024, 1, 5, fft_direction::forward, true, salt++);
    run_case<Backend>(128, 64, 3, fft_direction::inverse, true, salt++);
    round_trip<Backend>(2048, 1, 3);
    round_trip<Backend>(256, 256, 1);
    // the one-pass 2D kernel (clusters of 16 CTAs holding an image), whatever
    // the default: more images than clusters fit (each cluster loops), a
    // single image, in place; and the two passes of the same size beside it
    if (cluster_launch()) {
        run_case<Backend>(256, 256, 37, fft_direction::forward, false, salt++, 1);
        run_case<Backend>(256, 256, 1, fft_direction::inverse, false, salt++, 1);
        run_case<Backend>(256, 256, 5, fft_direction::inverse, true, salt++, 1);
        run_case<Backend>(256, 256, 3, fft_direction::forward, false, salt++, 2);
    }
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    test::seed();
    try {
        bad_arguments();
        run_backend<tensor_core>(1);
        run_backend<cuda_core>(1001);
    } catch (const std::exception& e) {
        tally_.check(false, "exception: %s", e.what());
    }
    return tally_.finish();
}
