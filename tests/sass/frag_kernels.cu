// tests/sass/frag_kernels.cu - one small kernel per MMA shape and backend,
// compiled for the disassembly check (check_sass.cmake): kernel
// tc_<shape> runs tcore::mma<tensor_core>, cc_<shape> tcore::mma<cuda_core>.
// Operands come from memory and D goes back to it, so nothing folds away.
#include <tcore/frag.cuh>

using namespace tcore;

namespace {

template <class Backend, class Shape, class TA, class TC>
__device__ void one_mma(const TA* a, const TA* b, TC* d)
{
    frag_a<Shape> fa;
    frag_b<Shape> fb;
    frag_c<Shape> fc;
    load_a<layout::row_major>(fa, a, Shape::k);
    load_b<layout::row_major>(fb, b, Shape::n);
    load_c<layout::row_major>(fc, d, Shape::n);
    mma<Backend>(fc, fa, fb, fc);
    store_c<layout::row_major>(d, Shape::n, fc);
}

}  // namespace

#define TCORE_SASS_KERNELS(shape, TA, TC)                                                                 \
    extern "C" __global__ void tc_##shape(const TA* a, const TA* b, TC* d) { one_mma<tensor_core, shape>(a, b, d); } \
    extern "C" __global__ void cc_##shape(const TA* a, const TA* b, TC* d) { one_mma<cuda_core, shape>(a, b, d); }

TCORE_SASS_KERNELS(f64_m8n8k4, double, double)
TCORE_SASS_KERNELS(f64_m16n8k4, double, double)
TCORE_SASS_KERNELS(f64_m16n8k8, double, double)
TCORE_SASS_KERNELS(f64_m16n8k16, double, double)
TCORE_SASS_KERNELS(tf32_m16n8k8, float, float)
TCORE_SASS_KERNELS(f16_m16n8k16_f32acc, __half, float)
TCORE_SASS_KERNELS(f16_m16n8k16_f16acc, __half, __half)
TCORE_SASS_KERNELS(b1_m8n8k128, unsigned, int)
