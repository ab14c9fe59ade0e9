// examples/interp/interp_kernels.hpp - the interp launchers that the
// benchmark and tests/gpu/test_interp.cu call, compiled once into the
// library tcore_kernels_interp (examples/interp/CMakeLists.txt).
//
// Each `extern template` below keeps a translation unit that includes this
// header from instantiating that launcher and its kernels; CMake
// (tcore_add_kernel_library) compiles each `// unit` as a translation unit
// of its own, so the benchmark and the test link one copy and the slowest
// instances build in parallel. Launchers not listed are instantiated where they are called.
#pragma once

#include <tcore/patterns/device/interp.cuh>

namespace tcore::interp {

using image_u8 = image_out<unsigned char>;
using image_f64 = image_out<double>;

// tc on both FP16 shapes, 8-bit output
// unit tc_f16
extern template void resample_mma<tensor_core, f16_m16n8k16_f32acc, filter::bilinear>(const image_view&, const image_u8&, cudaStream_t);
extern template void resample_mma<tensor_core, f16_m16n8k16_f32acc, filter::bicubic>(const image_view&, const image_u8&, cudaStream_t);
extern template void resample_mma<tensor_core, f16_m16n8k16_f16acc, filter::bilinear>(const image_view&, const image_u8&, cudaStream_t);
extern template void resample_mma<tensor_core, f16_m16n8k16_f16acc, filter::bicubic>(const image_view&, const image_u8&, cudaStream_t);

// cc (FP32 accumulation), 8-bit output
// unit cc_f16_bilinear
extern template void resample_mma<cuda_core, f16_m16n8k16_f32acc, filter::bilinear>(const image_view&, const image_u8&, cudaStream_t);
// unit cc_f16_bicubic
extern template void resample_mma<cuda_core, f16_m16n8k16_f32acc, filter::bicubic>(const image_view&, const image_u8&, cudaStream_t);

// tc-f64 and cc-f64, FP64 output
// unit tc_f64
extern template void resample_mma<tensor_core, f64_m16n8k16, filter::bilinear>(const image_view&, const image_f64&, cudaStream_t);
extern template void resample_mma<tensor_core, f64_m16n8k16, filter::bicubic>(const image_view&, const image_f64&, cudaStream_t);
// unit cc_f64
extern template void resample_mma<cuda_core, f64_m16n8k16, filter::bilinear>(const image_view&, const image_f64&, cudaStream_t);
extern template void resample_mma<cuda_core, f64_m16n8k16, filter::bicubic>(const image_view&, const image_f64&, cudaStream_t);

}  // namespace tcore::interp
