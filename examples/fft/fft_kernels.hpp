// examples/fft/fft_kernels.hpp - the FFT kernels that the benchmark and
// tests/gpu/test_fft.cu run, compiled once into the library tcore_kernels_fft
// (examples/fft/CMakeLists.txt).
//
// fft_plan::execute picks one pass launcher per size, direction and
// backend (fft_plan::launch_l<L, Backend, Sign, Strided>: N = 2^L, Sign -1
// forward, Strided the column pass of a 2D transform), or for 256 x 256 the
// one-pass launcher (fft_plan::launch_2d_l<8, 8, Backend, Sign>). Each `extern
// template` below keeps a translation unit that includes this header from
// instantiating that launcher and its kernel; CMake (tcore_add_kernel_library)
// compiles each `// unit` as a translation unit of its own.
#pragma once

#include <tcore/patterns/device/fft.cuh>

namespace tcore {

// unit tc_forward_rows
extern template void fft_plan::launch_l<6, tensor_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<7, tensor_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<8, tensor_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<9, tensor_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<10, tensor_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<11, tensor_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<12, tensor_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);

// unit tc_forward_columns
extern template void fft_plan::launch_l<6, tensor_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<7, tensor_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<8, tensor_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<9, tensor_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<10, tensor_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<11, tensor_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<12, tensor_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);

// unit tc_inverse_rows
extern template void fft_plan::launch_l<6, tensor_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<7, tensor_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<8, tensor_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<9, tensor_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<10, tensor_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<11, tensor_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<12, tensor_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);

// unit tc_inverse_columns
extern template void fft_plan::launch_l<6, tensor_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<7, tensor_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<8, tensor_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<9, tensor_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<10, tensor_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<11, tensor_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<12, tensor_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);

// unit cc_forward_rows
extern template void fft_plan::launch_l<6, cuda_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<7, cuda_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<8, cuda_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<9, cuda_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<10, cuda_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<11, cuda_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<12, cuda_core, -1, false>(const fft_plan::pass_args&, bool, cudaStream_t);

// unit cc_forward_columns
extern template void fft_plan::launch_l<6, cuda_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<7, cuda_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<8, cuda_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<9, cuda_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<10, cuda_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<11, cuda_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<12, cuda_core, -1, true>(const fft_plan::pass_args&, bool, cudaStream_t);

// unit cc_inverse_rows
extern template void fft_plan::launch_l<6, cuda_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<7, cuda_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<8, cuda_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<9, cuda_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<10, cuda_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<11, cuda_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<12, cuda_core, 1, false>(const fft_plan::pass_args&, bool, cudaStream_t);

// unit cc_inverse_columns
extern template void fft_plan::launch_l<6, cuda_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<7, cuda_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<8, cuda_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<9, cuda_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<10, cuda_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<11, cuda_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);
extern template void fft_plan::launch_l<12, cuda_core, 1, true>(const fft_plan::pass_args&, bool, cudaStream_t);

// unit tc_single_pass
extern template bool fft_plan::launch_2d_l<8, 8, tensor_core, -1>(const fft_plan::single_pass_args&, cudaStream_t);
extern template bool fft_plan::launch_2d_l<8, 8, tensor_core, 1>(const fft_plan::single_pass_args&, cudaStream_t);

// unit cc_single_pass
extern template bool fft_plan::launch_2d_l<8, 8, cuda_core, -1>(const fft_plan::single_pass_args&, cudaStream_t);
extern template bool fft_plan::launch_2d_l<8, 8, cuda_core, 1>(const fft_plan::single_pass_args&, cudaStream_t);

}  // namespace tcore
