// tests/gpu/test_stencil_3d.cu - the 3D stencils (star3d1r, box3d1r) of
// tcore/patterns/device/stencil.cuh against the CPU reference, with the
// cases, bound and poisoning of test_stencil.cu (stencil_cases.hpp): every
// method (tc, cc, cce) at t = 1 and 3 and both boundaries on grids smaller
// than a tile, with tails and several z chunks; t = 2 for box3d1r; a grid
// of one point; the 3D t = 1 streaming kernel with its items in grid-stride
// order instead of tickets.
//
// TCORE_TEST_QUICK=1 drops the largest grids.
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): nan_result,
// perturb, device_error.
#include "stencil_cases.hpp"

namespace {

/// The 3D t = 1 streaming kernel (cce) with its items in grid-stride order.
void grid_stride_order_3d()
{
    constexpr route gs = route::grid_stride;
    for (const stencil_grid& g : {stencil_grid{131, 67, 13}, stencil_grid{130, 35, 12}}) {
        run_case<box3d1r, stencil_cce, 1, boundary::dirichlet, gs>(g, 2, 9510);
        run_case<star3d1r, stencil_cce, 1, boundary::periodic, gs>(g, 2, 9511);
    }
}

}  // namespace

int main()
{
    test::require_gpu_or_skip();
    test::seed();
    run_shape<star3d1r>(5000);
    run_shape<box3d1r>(6000);
    // t = 2 (the work buffer is the final step's source)
    run_grids<box3d1r, tensor_core, 2>(7200);
    run_grids<box3d1r, stencil_cce, 2>(7300);
    // one point (the smallest grid the API takes)
    run_case<box3d1r, tensor_core, 1, boundary::dirichlet>({1, 1, 1}, 2, 7503);
    grid_stride_order_3d();
    return tally_.finish();
}
