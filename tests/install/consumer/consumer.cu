// A one-kernel user of an installed tcore: both backends must compile.
#include <tcore/tcore.cuh>

template <class Backend>
__global__ void tile_product(const double* a, const double* b, double* c)
{
    tcore::frag_a<tcore::f64_m8n8k4> a_frag;
    tcore::frag_b<tcore::f64_m8n8k4> b_frag;
    tcore::frag_c<tcore::f64_m8n8k4> acc;
    tcore::load_a<tcore::layout::row_major>(a_frag, a, 4);
    tcore::load_b<tcore::layout::row_major>(b_frag, b, 8);
    tcore::fill(acc, 0.0);
    tcore::mma<Backend>(acc, a_frag, b_frag, acc);
    tcore::store_c<tcore::layout::row_major>(c, 8, acc);
}

int main()
{
    tile_product<tcore::tensor_core><<<1, 32>>>(nullptr, nullptr, nullptr);
    tile_product<tcore::cuda_core><<<1, 32>>>(nullptr, nullptr, nullptr);
    return 0;  // built, not run: the test is that find_package + link work
}
