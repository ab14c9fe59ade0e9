// examples/stencil/stencil_kernels.hpp - the stencil launchers that the
// benchmark and tests/gpu/test_stencil.cu run, compiled once into the
// library tcore_kernels_stencil (examples/stencil/CMakeLists.txt): every
// shape on every backend (tc, cc, cce) at t = 1 and 3, Dirichlet and
// periodic. Each `extern template` below keeps a translation unit that
// includes this header from instantiating that launcher and its kernels;
// CMake (tcore_add_kernel_library) compiles each `// unit` as a translation
// unit of its own. Other instantiations (t = 2 and 4, one kernel with a
// given configuration) are compiled where they are used.
#pragma once

#include <tcore/patterns/device/stencil.cuh>

namespace tcore {

// unit star2d1r_dirichlet
extern template void stencil_apply<star2d1r, tensor_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, tensor_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, cuda_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, cuda_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, stencil_cce, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, stencil_cce, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);

// unit star2d1r_periodic
extern template void stencil_apply<star2d1r, tensor_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, tensor_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, cuda_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, cuda_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, stencil_cce, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);
extern template void stencil_apply<star2d1r, stencil_cce, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d1r>&, cudaStream_t);

// unit box2d1r_dirichlet
extern template void stencil_apply<box2d1r, tensor_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, tensor_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, cuda_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, cuda_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, stencil_cce, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, stencil_cce, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);

// unit box2d1r_periodic
extern template void stencil_apply<box2d1r, tensor_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, tensor_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, cuda_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, cuda_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, stencil_cce, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);
extern template void stencil_apply<box2d1r, stencil_cce, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d1r>&, cudaStream_t);

// unit star2d3r_dirichlet
extern template void stencil_apply<star2d3r, tensor_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, tensor_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, cuda_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, cuda_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, stencil_cce, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, stencil_cce, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);

// unit star2d3r_periodic
extern template void stencil_apply<star2d3r, tensor_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, tensor_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, cuda_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, cuda_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, stencil_cce, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);
extern template void stencil_apply<star2d3r, stencil_cce, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star2d3r>&, cudaStream_t);

// unit box2d3r_dirichlet
extern template void stencil_apply<box2d3r, tensor_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, tensor_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, cuda_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, cuda_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, stencil_cce, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, stencil_cce, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);

// unit box2d3r_periodic
extern template void stencil_apply<box2d3r, tensor_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, tensor_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, cuda_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, cuda_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, stencil_cce, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);
extern template void stencil_apply<box2d3r, stencil_cce, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box2d3r>&, cudaStream_t);

// unit star3d1r_dirichlet
extern template void stencil_apply<star3d1r, tensor_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, tensor_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, cuda_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, cuda_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, stencil_cce, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, stencil_cce, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);

// unit star3d1r_periodic
extern template void stencil_apply<star3d1r, tensor_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, tensor_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, cuda_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, cuda_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, stencil_cce, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);
extern template void stencil_apply<star3d1r, stencil_cce, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<star3d1r>&, cudaStream_t);

// unit box3d1r_dirichlet
extern template void stencil_apply<box3d1r, tensor_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, tensor_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, cuda_core, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, cuda_core, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, stencil_cce, 1, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, stencil_cce, 3, boundary::dirichlet>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);

// unit box3d1r_periodic
extern template void stencil_apply<box3d1r, tensor_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, tensor_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, cuda_core, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, cuda_core, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, stencil_cce, 1, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);
extern template void stencil_apply<box3d1r, stencil_cce, 3, boundary::periodic>(const double*, double*, const stencil_grid&, const stencil_weights<box3d1r>&, cudaStream_t);

}  // namespace tcore
