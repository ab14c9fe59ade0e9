// tcore/arch.cuh - which GPU architecture the code is being compiled for.
//
// `tcore::cuda_arch()` is __CUDA_ARCH__ in device passes and 0 on the host,
// as a constexpr so that kernels can branch with `if constexpr`. The
// predicates name the MMA families of the PTX ISA ("Warp Level Matrix
// Multiply-Accumulate Instructions"): FP64 m8n8k4, TF32/FP16 m16n8k* and
// b1 .and.popc need sm_80; the FP64 m16n8k{4,8,16} shapes need sm_90.
#pragma once

#include <cuda_runtime.h>

namespace tcore {

/// __CUDA_ARCH__ of the current device compilation pass; 0 in the host pass.
__host__ __device__ constexpr int cuda_arch()
{
#if defined(__CUDA_ARCH__)
    return __CUDA_ARCH__;
#else
    return 0;
#endif
}

/// True in device passes for sm_80 and later (FP64 m8n8k4, TF32, FP16, b1 AND).
__host__ __device__ constexpr bool arch_has_sm80_mma() { return cuda_arch() >= 800; }

/// True in device passes for sm_90 and later (FP64 m16n8k4/k8/k16).
__host__ __device__ constexpr bool arch_has_sm90_fp64_mma() { return cuda_arch() >= 900; }

/// Compute capability of a device as 10*major + minor (90 for sm_90).
/// Returns -1 where the device cannot be queried (no GPU, bad index).
inline int device_compute_capability(int device = 0)
{
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return 10 * major + minor;
}

}  // namespace tcore
