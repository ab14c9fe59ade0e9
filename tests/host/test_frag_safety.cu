// tests/host/test_frag_safety.cu - CPU checks of the fragment safeguards in
// frag/fragment.cuh and patterns/constants.cuh:
//  - make_a / make_b store a generator's value exactly in FP64 fragments (a
//    generator returning 0.1 gives 0.1, not 0.10000000149 through float);
//  - same_c_layout / accumulator_cast: which shapes share a C layout, and a
//    cast keeps every element where it was;
//  - with_k_label moves no data.
// What must not compile (a relabelled A with a standard B, a cast between C
// layouts, mma<tensor_core> below sm_80) is tests/compile_fail/.
#include "common/test_util.hpp"

#include <tcore/frag.cuh>
#include <tcore/infra/constants.cuh>

#include <cstdio>

using namespace tcore;

namespace {

test::tally T;

/// A generator of arbitrary doubles, different at every (row, col).
struct random_gen {
    const double* table;  // 16 x 16
    __host__ __device__ double operator()(int r, int c) const { return table[16 * r + c]; }
};

template <class Shape>
void check_make_exact(test::rng& rng)
{
    double table[256];
    for (double& v : table) v = rng.nonzero();
    table[0] = 0.1;  // the value a float trip would change
    const random_gen gen{table};
    for (int lane = 0; lane < 32; ++lane) {
        const frag_a<Shape> a = make_a<Shape>(lane, gen);
        for (int i = 0; i < Shape::a_count; ++i) {
            const coord rc = Shape::a_coord(lane, i);
            T.check(a.x[i] == gen(rc.row, rc.col), "%s make_a lane %d element %d: %.17g, want %.17g", Shape::name(),
                    lane, i, a.x[i], gen(rc.row, rc.col));
        }
        const frag_b<Shape> b = make_b<Shape>(lane, gen);
        for (int i = 0; i < Shape::b_count; ++i) {
            const coord rc = Shape::b_coord(lane, i);
            T.check(b.x[i] == gen(rc.row, rc.col), "%s make_b lane %d element %d: %.17g, want %.17g", Shape::name(),
                    lane, i, b.x[i], gen(rc.row, rc.col));
        }
    }
}

template <class From, class To>
void check_cast(test::rng& rng)
{
    frag_c<From> c;
    for (int i = 0; i < From::c_count; ++i) c.x[i] = rng.nonzero();
    const frag_c<To> d = accumulator_cast<To>(c);
    for (int i = 0; i < From::c_count; ++i)
        T.check(d.x[i] == c.x[i], "accumulator_cast %s -> %s element %d moved", From::name(), To::name(), i);
}

void check_k_label(test::rng& rng)
{
    frag_b<f64_m16n8k16> b;
    for (int i = 0; i < b.size; ++i) b.x[i] = rng.nonzero();
    const frag_b<f64_m16n8k16, relabelled_k<0>> r = with_k_label<relabelled_k<0>>(b);
    const frag_b<f64_m16n8k16> back = with_k_label<standard_k>(r);
    for (int i = 0; i < b.size; ++i)
        T.check(r.x[i] == b.x[i] && back.x[i] == b.x[i], "with_k_label moved element %d", i);
}

}  // namespace

int main()
{
    test::rng rng(test::seed());

    check_make_exact<f64_m8n8k4>(rng);
    check_make_exact<f64_m16n8k4>(rng);
    check_make_exact<f64_m16n8k8>(rng);
    check_make_exact<f64_m16n8k16>(rng);

    // The sm_90 FP64 family shares one C layout; m8n8k4, FP16 and TF32 differ.
    T.check(same_c_layout<f64_m16n8k4, f64_m16n8k16>(), "f64_m16n8k4 and k16 share a C layout");
    T.check(same_c_layout<f64_m16n8k8, f64_m16n8k4>(), "f64_m16n8k8 and k4 share a C layout");
    T.check(!same_c_layout<f64_m8n8k4, f64_m16n8k4>(), "f64_m8n8k4 and m16n8k4 differ");
    T.check(!same_c_layout<tf32_m16n8k8, f64_m16n8k8>(), "tf32 (float C) and f64 (double C) differ");
    T.check(same_c_layout<f16_m16n8k16_f32acc, tf32_m16n8k8>(), "FP16 (f32 acc) and TF32 share a C layout");
    check_cast<f64_m16n8k4, f64_m16n8k16>(rng);
    check_cast<f64_m16n8k16, f64_m16n8k8>(rng);
    check_k_label(rng);

    return T.finish();
}
