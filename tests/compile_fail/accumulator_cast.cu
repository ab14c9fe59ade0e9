// Must not compile: accumulator_cast between shapes whose C layouts differ
// (m8n8k4 holds 2 elements of an 8x8 D, m16n8k16 4 of a 16x8 D). With
// -DTCORE_EXPECT_OK the cast is between two shapes of one layout.
#include <tcore/frag.cuh>

using namespace tcore;

__global__ void cast(double* out)
{
#if defined(TCORE_EXPECT_OK)
    frag_c<f64_m16n8k4> c;
#else
    frag_c<f64_m8n8k4> c;
#endif
    fill(c, 1.0);
    const frag_c<f64_m16n8k16> d = accumulator_cast<f64_m16n8k16>(c);
    store_c<layout::row_major>(out, 8, d);
}
