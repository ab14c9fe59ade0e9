// tests/gpu/test_stencil.cu - iterative stencils (tcore/patterns/
// device/stencil.cuh; cce: examples/stencil/stencil_cce.cuh, through the
// kit's tiled kernels and its own) against the CPU reference, every 2D shape of the
// ConvStencil/EBISU set (the 3D ones: test_stencil_3d.cu, with the same
// cases from stencil_cases.hpp) on all three methods (tensor_core = tc, cuda_core =
// cc, examples::stencil::stencil_cce = cce), t = 1 and 3 fused steps (t = 2 for two shapes),
// t = 4 (the run-time front end's deepest; star2d1r, tc and cc), Dirichlet
// and periodic boundaries, odd grid sizes (smaller than a tile,
// several tiles with tails, 3D grids split into z chunks; odd and even row
// pitches, the latter taking the t = 1 kernels' 16-byte loads), two launches in a
// row (2t steps; the second starts from the first's output), and a grid
// whose tiles take the persistent blocks several rounds; the warp streaming
// kernel (cce, star2d1r and star2d3r, t = 2 and 3, Dirichlet, even nx) on
// grids of one strip, several strips and several bands of rows; the
// kernels that take tickets with grid-stride items instead, launches
// queued on two streams at once (each stream its own ticket counter) and
// captured into a CUDA graph.
//
// Random inputs in [-1, 1) (halo included), random weights w/|S| with |w| < 1,
// so values stay in [-1, 1]. Before each launch the destination's interior
// is poisoned (NaN) and its Dirichlet halo set to the input's: every
// interior point must be written and the halo must be kept. Error bound
// after n steps: each step adds at most |S| roundings of values <= 1 and
// the weights do not amplify earlier errors (sum |w| < 1), so
// |got - ref| <= 4 n |S| 2^-52; the error of each launch is checked
// against its own n (errors must not grow faster than the step count).
// NaN (the header: "the MMA multiplies every input of a segment by every
// output column's weight ... a non-finite input can reach outputs up to 7
// columns further than the stencil does"): one NaN input of a 2D grid, one
// step: every output the reference makes NaN must be NaN, outputs more than
// r rows or r + 7 columns away must be exact to the bound, those between
// may be NaN (counted and printed).
// Bad arguments must throw tcore::error whose message names the problem.
// The multi-round grid is sized from the device (SM count and shared
// memory per SM), so it takes several rounds on any GPU.
//
// TCORE_TEST_QUICK=1 drops the largest grids.
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): nan_result (an
// interior output made NaN), perturb (an interior output off by 1e-12),
// zero_checks, device_error.
#include "stencil_cases.hpp"

namespace {

/// One grid with more tiles than twice the resident blocks of the 2D tiled
/// kernel (star2d1r, t = 3: 60x60 tiles) and of the t = 1 cce kernel, so
/// that the persistent blocks take several rounds and prefetch tiles of
/// later rounds. Resident blocks are bounded by this device's shared memory
/// per SM over each kernel's, times its SMs; the grid has tails in x and y.
void multi_round_grid()
{
    using S = star2d1r;
    const long long sms = tcore::sm_count();
    int dev = 0, smem_per_sm = 0;
    TCORE_CHECK(cudaGetDevice(&dev));
    TCORE_CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    auto bound = [&](std::size_t smem) { return sms * static_cast<long long>(static_cast<std::size_t>(smem_per_sm) / smem); };
    using C3 = stencil_cce_tiled2d<S, 3>;
    using C1 = stencil_t1_tile_default<S>;
    const long long tile3 = C3::geometry::tile_x * C3::geometry::tile_y, tile1 = C1::tile_x * C1::tile_y;
    const long long need =
        2 * std::max(bound(C3::smem_bytes) * tile3, std::max(bound(stencil_tiled2d_default<S, 3>::smem_bytes) * tile3,
                                                             bound(C1::smem_bytes) * tile1));
    const long long nx = 1447;  // 24 tiles of 60 and a tail of 7
    long long ny = (need + nx - 1) / nx;
    ny += ny % 60 == 0 ? 13 : 0;  // a tail in y
    const stencil_grid g{nx, ny, 1};
    std::printf("multi-round grid %lldx%lld: %lld tiles of 60x60 (t = 3), %d SMs, %d KB shared memory per SM\n", nx,
                ny, ((nx + 59) / 60) * ((ny + 59) / 60), static_cast<int>(sms), smem_per_sm / 1024);
    run_case<S, stencil_cce, 3, boundary::dirichlet>(g, 2, 8000);
    run_case<S, tensor_core, 3, boundary::dirichlet>(g, 2, 8001);
    run_case<S, stencil_cce, 1, boundary::dirichlet>(g, 2, 8002);
    run_case<S, stencil_cce, 3, boundary::periodic>(g, 2, 8003);
}

/// The warp streaming kernel (cce, 2D stars, t = 2 and 3, Dirichlet, even
/// nx), launched directly: the smallest grid, one strip with few rows, a
/// strip plus a tail, several strips and bands of rows (1000 x 777: 9 or 10
/// strips, 7 bands of 128 rows). Then, at full size, a grid large enough
/// that stencil_apply itself takes it (warp_stream_fits).
template <class S>
void warp_stream_grids(std::uint64_t salt)
{
    constexpr int R = S::radius;
    const long long valid = stencil_ws_valid(3, R);
    std::vector<stencil_grid> grids = {{2, 1, 1}, {valid, 3, 1}, {valid + 2, 130, 1}, {1000, 777, 1}};
    for (const stencil_grid& g : grids) {
        run_case<S, stencil_cce, 3, boundary::dirichlet, route::warp_stream>(g, 2, salt++);
        run_case<S, stencil_cce, 2, boundary::dirichlet, route::warp_stream>(g, 2, salt++);
    }
    if (quick) return;
    // 16 strips (2 blocks of them; nx even) and enough 128-row bands to fill the device once, plus a tail
    const long long strip_blocks = 2;
    const stencil_grid big{16 * valid - 6, stencil_ws_min_band * ((stencil_warp_stream_resident<S, 3>() + 1) / strip_blocks) + 13, 1};
    device_buffer<double> probe(16);
    tally_.check(stencil_warp_stream_fits<S, 3>(probe.ptr, probe.ptr, big) && !stencil_warp_stream_fits<S, 3>(probe.ptr, probe.ptr, {big.nx + 1, big.ny, 1}),
                 "%s: warp_stream_fits takes %lldx%lld and leaves an odd nx to the tiled kernel", S::name().c_str(), big.nx, big.ny);
    // the measured choice at 4096^2: the tiled kernel for star2d1r, the warps for star2d3r; a grid of
    // 2 x 2^40 points would need bands of 2^30 rows or more (one wave of fewer than 1024 blocks) and
    // stays tiled
    const stencil_grid square{4096, 4096, 1}, tall{2, 1LL << 40, 1};
    tally_.check(stencil_warp_stream_fits<S, 3>(probe.ptr, probe.ptr, square) == (R == 3) &&
                     !stencil_warp_stream_fits<S, 3>(probe.ptr, probe.ptr, tall),
                 "%s: warp_stream_fits at 4096^2 (warps for star2d3r only) or on a 2 x 2^40 grid", S::name().c_str());
    tally_.expect_error("a direct launch with 70000 bands of 1 row", [&] {
        stencil_launch_warp_stream<S, 3>(probe.ptr, probe.ptr, {2, 70000, 1}, stencil_weights<S>{}, 0, 1);
    }, "at most 65535 bands");
    std::printf("warp stream grid %lldx%lld: stencil_apply takes the %s kernel (DRAM %.1f GB/s per SM)\n", big.nx,
                big.ny, stencil_warp_stream_preferred<S>() ? "warp streaming" : "tiled", tcore::dram_gbs_per_sm());
    run_case<S, stencil_cce, 3, boundary::dirichlet>(big, 1, salt++);
}

/// The kernels that take tickets, with their items in grid-stride order
/// instead (stencil_schedule{false}): 2D t = 1 tiles, 2D tiled (tc, cc and
/// cce, t = 1 and 3); grids with tails, both boundaries (3D t = 1
/// streaming: test_stencil_3d.cu).
void grid_stride_order()
{
    constexpr route gs = route::grid_stride;
    for (const stencil_grid& g : {stencil_grid{600, 41, 1}, stencil_grid{37, 29, 1}}) {
        run_case<star2d1r, stencil_cce, 1, boundary::dirichlet, gs>(g, 2, 9500);
        run_case<box2d3r, stencil_cce, 1, boundary::periodic, gs>(g, 2, 9501);
        run_case<star2d1r, tensor_core, 1, boundary::dirichlet, gs>(g, 2, 9502);
        run_case<box2d1r, stencil_cce, 3, boundary::dirichlet, gs>(g, 2, 9503);
        run_case<star2d3r, tensor_core, 3, boundary::periodic, gs>(g, 2, 9504);
        run_case<box2d1r, cuda_core, 1, boundary::periodic, gs>(g, 2, 9505);
    }
}

/// One problem of two_streams: T steps of S per launch, three launches
/// (input -> a -> b -> a) queued on `stream`.
template <class S, class M, int T>
struct stream_problem {
    stencil_grid g;
    cudaStream_t stream;
    case_data<S> c;
    std::vector<double> ref;
    device_buffer<double> in, a, b;

    stream_problem(const stencil_grid& grid, cudaStream_t s, std::uint64_t salt)
        : g(grid), stream(s), c(make_case<S>(grid, boundary::dirichlet, salt)), ref(c.host), in(c.host.size()),
          a(c.host.size()), b(c.host.size())
    {
        in.upload(c.host);
        a.upload(c.poison);
        b.upload(c.poison);
        TCORE_CHECK(cudaDeviceSynchronize());  // the copies are done before the streams read them
        advance<S>(ref, g, boundary::dirichlet, c.w, 3 * T);
    }
    void launch(int l)
    {
        const double* src = l == 0 ? in.ptr : l == 1 ? a.ptr : b.ptr;
        double* dst = l == 1 ? b.ptr : a.ptr;
        stencil_run<S, M, T, boundary::dirichlet>(src, dst, g, c.w, stream);
    }
    void check(const char* what)
    {
        std::vector<double> got(ref.size());
        TCORE_CHECK(cudaMemcpy(got.data(), a.ptr, got.size() * sizeof(double), cudaMemcpyDeviceToHost));
        const comparison cmp = compare<S>(got, ref, 3 * T);
        tally_.check(cmp.bad == 0, "%s %s %lldx%lldx%lld: %zu of %zu elements off after 3 launches, max error %.3g > %.3g",
                     what, S::name().c_str(), g.nx, g.ny, g.nz, cmp.bad, got.size(), cmp.worst, cmp.tol);
        if (cmp.bad == 0) std::printf("ok  %s %s, 3 launches, max error %.2e\n", what, S::name().c_str(), cmp.worst);
    }
};

/// Launches on two streams at once, each queue of three launches given to
/// the device without waiting in between: every (device, stream) pair has
/// its own ticket counter, and the last block of each launch resets it.
void two_streams()
{
    cudaStream_t s1, s2;
    TCORE_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    TCORE_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    {
        stream_problem<star2d1r, stencil_cce, 1> p({1447, quick ? 300 : 1201, 1}, s1, 9600);
        stream_problem<box3d1r, stencil_cce, 1> q({130, 97, quick ? 20 : 61}, s2, 9601);
        stream_problem<box2d1r, tensor_core, 3> u({777, 500, 1}, s2, 9602);
        for (int l = 0; l < 3; ++l) {
            p.launch(l);
            q.launch(l);
            u.launch(l);
        }
        TCORE_CHECK(cudaDeviceSynchronize());
        p.check("two streams, cce t=1");
        q.check("two streams, cce t=1");
        u.check("two streams, tc t=3");
    }
    TCORE_CHECK(cudaStreamDestroy(s1));
    TCORE_CHECK(cudaStreamDestroy(s2));
}

/// Three launches captured into a CUDA graph on a stream that never ran
/// one (it gets no ticket counter while capturing: grid-stride items), the
/// graph replayed once.
void graph_capture()
{
    cudaStream_t s;
    TCORE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    {
        stream_problem<star2d1r, stencil_cce, 1> p({1447, quick ? 300 : 1201, 1}, s, 9700);
        stream_problem<box3d1r, stencil_cce, 1> q({130, 97, 21}, s, 9701);
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        TCORE_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        for (int l = 0; l < 3; ++l) {
            p.launch(l);
            q.launch(l);
        }
        TCORE_CHECK(cudaStreamEndCapture(s, &graph));
        TCORE_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        TCORE_CHECK(cudaGraphLaunch(exec, s));
        TCORE_CHECK(cudaStreamSynchronize(s));
        p.check("graph, cce t=1");
        q.check("graph, cce t=1");
        TCORE_CHECK(cudaGraphExecDestroy(exec));
        TCORE_CHECK(cudaGraphDestroy(graph));
    }
    TCORE_CHECK(cudaStreamDestroy(s));
}

/// One NaN input in the middle of a 2D grid, one step (Dirichlet, T = 1):
/// the documented reach (see the header).
template <class S, class M>
void nan_case(const stencil_grid& g, std::uint64_t salt)
{
    static_assert(S::dims == 2, "2D grids");
    constexpr long long r = S::radius;
    case_data<S> c = make_case<S>(g, boundary::dirichlet, salt);
    const stencil_extent e = stencil_array_extent<S>(g, boundary::dirichlet);
    const long long ax = e.ex / 2, ay = e.ey / 2;
    c.host[static_cast<std::size_t>(ay * e.ex + ax)] = std::numeric_limits<double>::quiet_NaN();
    const std::size_t count = c.host.size();
    device_buffer<double> in(count), out(count);
    in.upload(c.host);
    out.upload(c.poison);
    launch<S, M, 1, boundary::dirichlet>(route::apply, in.ptr, out.ptr, g, c.w, 0);
    TCORE_CHECK(cudaDeviceSynchronize());
    std::vector<double> ref = c.host;
    advance<S>(ref, g, boundary::dirichlet, c.w, 1);
    const std::vector<double> got = out.download();
    const double tol = 4.0 * S::points * 0x1.0p-52;
    long long lost = 0, wrong = 0, spread = 0, nan_ref = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const long long dx = static_cast<long long>(i) % e.ex - ax, dy = static_cast<long long>(i) / e.ex - ay;
        if (std::isnan(ref[i])) {
            ++nan_ref;
            lost += !std::isnan(got[i]);
        } else if (std::llabs(dy) <= r && std::llabs(dx) <= r + 7 && std::isnan(got[i])) {
            ++spread;
        } else {
            wrong += !test::close(got[i], ref[i], tol);
        }
    }
    const std::string name = S::name() + " " + method_name<M>() + " t=1 dirichlet " + std::to_string(g.nx) + "x" +
                             std::to_string(g.ny);
    tally_.check(nan_ref > 0 && lost == 0 && wrong == 0,
                 "%s, one NaN input: %lld of %lld NaN outputs lost, %lld outputs beyond the documented reach wrong",
                 name.c_str(), lost, nan_ref, wrong);
    std::printf("ok  %-48s one NaN input: %lld NaN outputs as the reference, %lld more within r + 7 columns\n",
                name.c_str(), nan_ref, spread);
}

void bad_arguments()
{
    device_buffer<double> a(1000), b(1000);
    const stencil_weights<star2d1r> w{};
    const stencil_grid g{10, 10, 1};
    tally_.expect_error("a null input", [&] { stencil_apply<star2d1r, tensor_core, 1, boundary::dirichlet>(nullptr, b.ptr, g, w); },
                        "in is a null pointer");
    tally_.expect_error("a null output", [&] { stencil_apply_cce<star2d1r, 1, boundary::dirichlet>(a.ptr, nullptr, g, w); },
                        "out is a null pointer");
    tally_.expect_error("in == out", [&] { stencil_apply<star2d1r, tensor_core, 3, boundary::periodic>(a.ptr, a.ptr, g, w); },
                        "in and out overlap");
    tally_.expect_error("overlapping arrays", [&] { stencil_apply<star2d1r, tensor_core, 1, boundary::periodic>(a.ptr, a.ptr + 7, g, w); },
                        "in and out overlap");
    tally_.expect_error("an empty grid", [&] { stencil_apply<star2d1r, tensor_core, 1, boundary::periodic>(a.ptr, b.ptr, {0, 10, 1}, w); },
                        "grid sizes must be >= 1");
    tally_.expect_error("nz != 1 for a 2D stencil", [&] { stencil_apply<star2d1r, tensor_core, 1, boundary::periodic>(a.ptr, b.ptr, {4, 4, 2}, w); },
                        "needs grid.nz == 1");
    tally_.expect_error("a misaligned pointer", [&] {
        const double* p = reinterpret_cast<const double*>(reinterpret_cast<const char*>(a.ptr) + 4);
        stencil_apply<star2d1r, tensor_core, 1, boundary::periodic>(p, b.ptr, {4, 4, 1}, w);
    }, "in is not aligned");
    tally_.expect_error("t = 5 at run time", [&] { stencil_apply<star2d1r, tensor_core, boundary::periodic>(5, a.ptr, b.ptr, g, w); },
                        "must be 1..4", "got 5");
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    test::seed();
    bad_arguments();
    run_shape<star2d1r>(1000);
    run_shape<box2d1r>(2000);
    run_shape<star2d3r>(3000);
    run_shape<box2d3r>(4000);
    // t = 2 (the work buffer is the final step's source)
    run_grids<star2d1r, tensor_core, 2>(7000);
    run_grids<star2d1r, stencil_cce, 2>(7100);
    // t = 4: periodic (the instantiation bad_arguments' run-time front end
    // already compiles) and Dirichlet, tc and cc.
    for (const stencil_grid& g : {stencil_grid{37, 29, 1}, stencil_grid{600, 41, 1}, stencil_grid{5, 3, 1}}) {
        run_case<star2d1r, tensor_core, 4, boundary::periodic>(g, 2, 7400);
        run_case<star2d1r, tensor_core, 4, boundary::dirichlet>(g, 2, 7401);
        run_case<star2d1r, cuda_core, 4, boundary::dirichlet>(g, 2, 7402);
    }
    // one row and one point (the smallest grids the API takes)
    for (const stencil_grid& g : {stencil_grid{1, 1, 1}, stencil_grid{57, 1, 1}}) {
        run_case<star2d1r, tensor_core, 1, boundary::dirichlet>(g, 2, 7500);
        run_case<star2d1r, cuda_core, 3, boundary::periodic>(g, 2, 7501);
        run_case<box2d3r, stencil_cce, 1, boundary::periodic>(g, 2, 7502);
    }
    nan_case<star2d1r, tensor_core>({150, 60, 1}, 7600);
    nan_case<star2d1r, cuda_core>({150, 60, 1}, 7601);
    nan_case<star2d1r, stencil_cce>({150, 60, 1}, 7602);
    nan_case<box2d3r, tensor_core>({150, 60, 1}, 7603);
    multi_round_grid();
    warp_stream_grids<star2d1r>(9000);
    warp_stream_grids<star2d3r>(9100);
    grid_stride_order();
    two_streams();
    graph_capture();
    return tally_.finish();
}
