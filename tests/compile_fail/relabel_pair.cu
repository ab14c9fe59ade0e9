// Must not compile: an A relabelled in place (reuse_a) paired with a B of the
// standard map. With -DTCORE_EXPECT_OK the B is loaded for the relabelling
// (load_b_reused), which must compile.
#include <tcore/frag.cuh>

using namespace tcore;
using S = f64_m16n8k16;

__global__ void chain(const double* b_mem, double* out)
{
    frag_c<S> d0, d1, acc;
    fill(d0, 1.0), fill(d1, 2.0), fill(acc, 0.0);
    const auto a = reuse_a(d0, d1);
#if defined(TCORE_EXPECT_OK)
    frag_b<S, relabelled_k<0>> b;
    load_b_reused<layout::row_major>(b, b_mem, 8);
#else
    frag_b<S> b;
    load_b<layout::row_major>(b, b_mem, 8);
#endif
    mma<tensor_core>(acc, a, b, acc);
    store_c<layout::row_major>(out, 8, acc);
}
