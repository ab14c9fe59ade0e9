// libs: tcore_nccl
// tests/gpu/test_multi_gpu_stencil.cu - the multi-GPU stencil
// (examples/multi_gpu/stencil_mgpu.cuh) against one stencil_apply on the
// whole grid: bit for bit, since the slabs run the same kernels with the
// same arithmetic per point (stencil_mgpu_slab.hpp says why).
//
// Cases: star2d1r, box2d1r and star3d1r (2D and 3D; the tiled kernels, the
// t = 1 cce kernels of both dimensions), tc / cc / cce, t = 1 and 3,
// Dirichlet and periodic; on 1 GPU and every count present up to 4, each
// with the overlapped and the serial schedule. Grids: odd sizes that no
// GPU count divides and no tile size matches, one with slabs thick enough
// for the overlapped plan at 4 GPUs and one so thin that some slabs take
// the whole-slab plan (or, at 4 GPUs and t = 3, hold exactly r t layers).
// Inputs and weights random, never zero; the ghost layers of every slab
// start as NaN (the exchange must fill them); every output array is NaN
// before each run. Two steps in a row (in and out swapped) check that the
// runs leave out's Dirichlet halo as it must be for the next step. Host
// checks: more GPUs than present, slabs thinner than r t, a 3D grid for a
// 2D stencil. A count of GPUs not present is skipped with a message; no
// GPU: exit 77. Planted fault (TCORE_TEST_PLANT): perturb (one output value
// off by one ulp after each run).
#include "common/test_util.hpp"

#include "stencil_mgpu.cuh"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace tcore;
using namespace tcore::mgpu;
using tcore::examples::stencil::stencil_cce;
using tcore::test::device_buffer;

namespace {

test::tally tally_;
int devices_ = 0;
std::vector<nccl_world> worlds_;  ///< worlds_[n - 1]: n GPUs in this process (made once: NCCL set-up is slow)

/// The interior points (Dirichlet: not the halo) of two whole-grid arrays
/// that differ in their bits; reports the first.
template <class S>
long long count_differences(const std::vector<double>& got, const std::vector<double>& ref, const stencil_grid& g,
                            boundary bc, std::string& first)
{
    const stencil_extent e = stencil_array_extent<S>(g, bc);
    const int h = stencil_halo(bc, S::radius);
    long long bad = 0;
    for (long long z = 0; z < (S::dims == 3 ? g.nz : 1); ++z)
        for (long long y = 0; y < g.ny; ++y)
            for (long long x = 0; x < g.nx; ++x) {
                const long long i = ((S::dims == 3 ? z + h : 0) * e.ey + y + h) * e.ex + x + h;
                if (std::memcmp(&got[i], &ref[i], sizeof(double)) != 0) {
                    if (bad++ == 0)
                        first = "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) +
                                "): " + std::to_string(got[i]) + " vs " + std::to_string(ref[i]);
                }
            }
    return bad;
}

template <class S, class Backend, int T, boundary BC>
void run_case(const stencil_grid& g, std::uint64_t salt)
{
    const std::string name = S::name() + " " + Backend::name() + " t=" + std::to_string(T) + " " +
                             boundary_name(BC) + " " + std::to_string(g.nx) + "x" + std::to_string(g.ny) +
                             (S::dims == 3 ? "x" + std::to_string(g.nz) : std::string());
    test::rng rng(test::seed() ^ salt);
    stencil_weights<S> w;
    for (double& v : w.w) v = rng.nonzero() / S::points;
    const stencil_extent e = stencil_array_extent<S>(g, BC);
    const std::size_t count = static_cast<std::size_t>(e.count());
    std::vector<double> input(count);
    for (double& v : input) v = rng.nonzero();

    // one GPU, the whole grid: one step and two
    std::vector<double> ref1, ref2;
    {
        TCORE_CHECK(cudaSetDevice(0));
        device_buffer<double> a(count), b(count);
        a.upload(input);
        b.upload(input);  // the Dirichlet halo of the output
        examples::stencil::stencil_run<S, Backend, T, BC>(a.ptr, b.ptr, g, w);
        TCORE_CHECK(cudaDeviceSynchronize());
        ref1 = b.download();
        examples::stencil::stencil_run<S, Backend, T, BC>(b.ptr, a.ptr, g, w);
        TCORE_CHECK(cudaDeviceSynchronize());
        ref2 = a.download();
    }

    const stencil_op op = make_stencil_op<S, Backend, T, BC>(w);
    const long long layers = S::dims == 3 ? g.nz : g.ny;
    for (int gpus = 1; gpus <= 4; ++gpus) {
        if (gpus > devices_) {
            tally_.skip("%s on %d GPUs: %d present", name.c_str(), gpus, devices_);
            continue;
        }
        if (layers < static_cast<long long>(gpus) * S::radius * T) continue;  // thinner than r t: refused (host checks)
        const nccl_world& world = worlds_[gpus - 1];
        slab_stencil st(world, op, g);
        st.load(input.data());
        TCORE_CHECK(cudaSetDevice(0));
        cudaStream_t origin = nullptr;
        TCORE_CHECK(cudaStreamCreateWithFlags(&origin, cudaStreamNonBlocking));
        for (slab_schedule sched : {slab_schedule::overlap, slab_schedule::serial}) {
            std::vector<double> got(count, std::numeric_limits<double>::quiet_NaN());
            st.poison_out();
            st.run(origin, sched);
            TCORE_CHECK(cudaStreamSynchronize(origin));
            st.store(got.data());
            if (test::planted("perturb")) got[got.size() / 2] = std::nextafter(got[got.size() / 2], 1e300);  // one ulp
            std::string first;
            const long long bad = count_differences<S>(got, ref1, g, BC, first);
            tally_.check(bad == 0, "%s, %d GPUs, %s: %lld points differ from one GPU, first %s", name.c_str(), gpus,
                         schedule_name(sched), bad, first.c_str());
        }
        // two steps in a row: out of the first is in of the second
        {
            slab_stencil it(world, op, g);
            it.load(input.data());
            it.run(origin, slab_schedule::overlap);
            it.swap();
            it.run(origin, slab_schedule::overlap);
            TCORE_CHECK(cudaStreamSynchronize(origin));
            std::vector<double> got(count, std::numeric_limits<double>::quiet_NaN());
            it.store(got.data());
            std::string first;
            const long long bad = count_differences<S>(got, ref2, g, BC, first);
            tally_.check(bad == 0, "%s, %d GPUs, two runs: %lld points differ from one GPU, first %s", name.c_str(),
                         gpus, bad, first.c_str());
        }
        TCORE_CHECK(cudaSetDevice(0));
        TCORE_CHECK(cudaStreamDestroy(origin));
    }
}

/// Every backend, depth and boundary of shape S on grid g.
template <class S>
void run_shape(const stencil_grid& g, std::uint64_t salt)
{
    run_case<S, tensor_core, 1, boundary::dirichlet>(g, salt + 1);
    run_case<S, tensor_core, 3, boundary::dirichlet>(g, salt + 2);
    run_case<S, tensor_core, 1, boundary::periodic>(g, salt + 3);
    run_case<S, tensor_core, 3, boundary::periodic>(g, salt + 4);
    run_case<S, cuda_core, 1, boundary::dirichlet>(g, salt + 5);
    run_case<S, cuda_core, 3, boundary::periodic>(g, salt + 6);
    run_case<S, stencil_cce, 1, boundary::dirichlet>(g, salt + 7);
    run_case<S, stencil_cce, 3, boundary::dirichlet>(g, salt + 8);
    run_case<S, stencil_cce, 1, boundary::periodic>(g, salt + 9);
    run_case<S, stencil_cce, 3, boundary::periodic>(g, salt + 10);
}

void host_checks()
{
    tally_.expect_error(
        "more GPUs than present", [] { nccl_world::single_process(devices_ + 1); }, "present");
    tally_.expect_error(
        "slabs thinner than r t", [] { require_slabs(11, 4, 1, 3, "test"); }, "halo depth");
    tally_.expect_error(
        "a 3D grid for a 2D stencil",
        [] {
            const stencil_weights<star2d1r> w{};
            nccl_world world = nccl_world::local_device(0);
            slab_stencil st(world, make_stencil_op<star2d1r, stencil_cce, 1, boundary::dirichlet>(w), {64, 64, 3});
        },
        "nz == 1");
    // a decomposition the test grids below rely on: uneven slabs
    const slab_layout s = make_slab(157, 4, 3, 1, 3, boundary::dirichlet);
    tally_.check(s.begin == 118 && s.count == 39 && s.ghost_lo == 3 && s.ghost_hi == 0,
                 "slab 3 of 157 layers over 4: begin %lld count %lld ghosts %d %d", s.begin, s.count, s.ghost_lo,
                 s.ghost_hi);
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    devices_ = device_count();
    std::printf("%d GPUs present; counts 1..%d tested\n", devices_, devices_ < 4 ? devices_ : 4);
    host_checks();
    for (int n = 1; n <= devices_ && n <= 4; ++n) worlds_.push_back(nccl_world::single_process(n));
    // 2D: 203 columns (no tile width), 157 rows (prime: slabs of 157 / n for
    // every n, overlapped plan at 4 GPUs and t = 3) and 13 rows (thin slabs:
    // the whole-slab plan, and at 4 GPUs and t = 3 slabs of exactly r t).
    run_shape<star2d1r>({203, 157, 1}, 100);
    run_shape<star2d1r>({203, 13, 1}, 200);
    run_case<box2d1r, tensor_core, 3, boundary::dirichlet>({203, 157, 1}, 300);
    run_case<box2d1r, tensor_core, 3, boundary::periodic>({131, 67, 1}, 310);
    run_case<box2d1r, stencil_cce, 1, boundary::periodic>({131, 67, 1}, 320);
    // 3D: 37 x 29 (partial tiles in x and y), 41 planes (overlapped at 4 GPUs,
    // t = 3) and 13 planes (thin)
    run_shape<star3d1r>({37, 29, 41}, 400);
    run_shape<star3d1r>({37, 29, 13}, 500);
    worlds_.clear();
    return tally_.finish();
}
