// Must not compile for sm_75: mma<tensor_core> where the architecture has no
// FP64 MMA (it used to fall back to CUDA cores silently). With
// -DTCORE_EXPECT_OK the kernel asks for mma<cuda_core>, which compiles anywhere.
#include <tcore/frag.cuh>

using namespace tcore;
using S = f64_m8n8k4;
#if defined(TCORE_EXPECT_OK)
using backend = cuda_core;
#else
using backend = tensor_core;
#endif

__global__ void one_mma(const double* a_mem, const double* b_mem, double* out)
{
    frag_a<S> a;
    frag_b<S> b;
    frag_c<S> acc;
    load_a<layout::row_major>(a, a_mem, 4);
    load_b<layout::row_major>(b, b_mem, 8);
    fill(acc, 0.0);
    mma<backend>(acc, a, b, acc);
    store_c<layout::row_major>(out, 8, acc);
}
