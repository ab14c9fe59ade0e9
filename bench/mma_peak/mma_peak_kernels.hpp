// bench/mma_peak/mma_peak_kernels.hpp - the launchers of the mma_peak
// workload, compiled once into the library tcore_kernels_mma_peak
// (bench/mma_peak/CMakeLists.txt): each `// unit` below is a translation
// unit of its own (tcore_add_kernel_library), so the unrolled CUDA-core
// emulations of the MMA shapes compile in parallel.
#pragma once

#include "mma_peak/mma_peak.cuh"

namespace tcore::bench::mma_peak {

// unit tc
extern template launcher make_mma<f64_m8n8k4, tensor_core>(int, cudaStream_t, double);
extern template launcher make_mma<f64_m16n8k4, tensor_core>(int, cudaStream_t, double);
extern template launcher make_mma<f64_m16n8k8, tensor_core>(int, cudaStream_t, double);
extern template launcher make_mma<f64_m16n8k16, tensor_core>(int, cudaStream_t, double);
extern template launcher make_mma<tf32_m16n8k8, tensor_core>(int, cudaStream_t, double);
extern template launcher make_mma<f16_m16n8k16_f32acc, tensor_core>(int, cudaStream_t, double);
extern template launcher make_mma<f16_m16n8k16_f16acc, tensor_core>(int, cudaStream_t, double);
extern template launcher make_mma<b1_m8n8k128, tensor_core>(int, cudaStream_t, double);

// unit cc_f64_small
extern template launcher make_mma<f64_m8n8k4, cuda_core>(int, cudaStream_t, double);
extern template launcher make_mma<f64_m16n8k4, cuda_core>(int, cudaStream_t, double);

// unit cc_f64_large
extern template launcher make_mma<f64_m16n8k8, cuda_core>(int, cudaStream_t, double);
extern template launcher make_mma<f64_m16n8k16, cuda_core>(int, cudaStream_t, double);

// unit cc_tf32_f16
extern template launcher make_mma<tf32_m16n8k8, cuda_core>(int, cudaStream_t, double);
extern template launcher make_mma<f16_m16n8k16_f32acc, cuda_core>(int, cudaStream_t, double);
extern template launcher make_mma<f16_m16n8k16_f16acc, cuda_core>(int, cudaStream_t, double);

// unit cc_b1
extern template launcher make_mma<b1_m8n8k128, cuda_core>(int, cudaStream_t, double);

}  // namespace tcore::bench::mma_peak
