// tests/host/test_frag_reuse.cu - the accumulator-to-A reuse maps of
// frag/reuse.cuh, on the CPU, with 32 simulated lanes.
//
// A random P is distributed to the lanes as accumulators (through c_coord);
// the next A is formed through the recipe's source map, the next B loaded
// through reuse_col (relabel) or b_coord (shuffle, standard layout), and the
// product is run through mma_emulated over every k-block. The gathered D must
// equal P * B2 + C2 exactly (small integers, so every sum is exact). Recipes:
// FP64 relabel (f64_relabel_source + reuse_col) and shuffle
// (f64_shuffle_source) for m8n8k4, m16n8k4, m16n8k8 and m16n8k16, and FP16
// (f16_reuse_source). Also the facts the device code relies on: relabel and
// FP16 sources are the lane itself with a lane-independent register;
// shuffle sources use one accumulator per element on all lanes, a register
// that is lane 0's or lane 1's, and a lane of the same quad.
#include "common/test_util.hpp"

#include <tcore/frag.cuh>

#include <vector>

using namespace tcore;
using tcore::test::rng;
using tcore::test::tally;

namespace {

/// Reads element i of simulated lane `src` (what __shfl_sync does).
template <class T, int Count>
struct lane_reader {
    const T (*lanes)[Count];
    __host__ __device__ T operator()(int src, int i) const { return lanes[src][i]; }
};

/// A small nonzero integer: products and sums stay exact in FP64 and FP32,
/// and the values are exact in FP16.
int small_int(rng& r)
{
    const int v = static_cast<int>(r.next() % 15) - 7;
    return v != 0 ? v : 8;
}

enum class recipe { relabel, shuffle };

/// P (M x PCols) as NAcc accumulators of CShape, the next MMA `Next`, a
/// K_total x 8 B2 and an M x 8 C2; checks D2 = P * B2 + C2.
template <class Next, class CShape, int NAcc>
void check_f64_recipe(tally& t, rng& r, recipe how)
{
    constexpr int M = Next::m, PCols = 8 * NAcc, N = 8;
    constexpr int KBlocks = PCols / Next::k;  // K = 4 shapes take a 4-column block of P at a time
    const char* how_name = how == recipe::relabel ? "relabel" : "shuffle";
    static_assert(CShape::m == M && CShape::n == 8, "accumulators of the next MMA's height");
    std::vector<double> P(M * PCols), B2(PCols * N), C2(M * N), D2(M * N, -1e300);
    for (double& x : P) x = small_int(r);
    for (double& x : B2) x = small_int(r);
    for (double& x : C2) x = small_int(r);

    double acc_regs[NAcc][32][CShape::c_count];  // the accumulators, lane by lane
    for (int q = 0; q < NAcc; ++q)
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < CShape::c_count; ++i) {
                const coord rc = CShape::c_coord(lane, i);
                acc_regs[q][lane][i] = P[rc.row * PCols + 8 * q + rc.col];
            }

    double d[32][Next::c_count];
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < Next::c_count; ++i) {
            const coord rc = Next::c_coord(lane, i);
            d[lane][i] = C2[rc.row * N + rc.col];
        }
    for (int kb = 0; kb < KBlocks; ++kb) {
        double a[32][Next::a_count], b[32][Next::b_count];
        for (int lane = 0; lane < 32; ++lane) {
            for (int i = 0; i < Next::a_count; ++i) {
                const reuse_home src = how == recipe::relabel ? f64_relabel_source<Next>(lane, i, kb)
                                                              : f64_shuffle_source<Next>(lane, i, kb);
                const bool ok = src.acc >= 0 && src.acc < NAcc && src.lane >= 0 && src.lane < 32 &&
                                src.index >= 0 && src.index < CShape::c_count;
                if (!t.check(ok, "%s %s: lane %d element %d: source {%d, %d, %d} out of range", Next::name(),
                             how_name, lane, i, src.acc, src.lane, src.index))
                    return;
                a[lane][i] = acc_regs[src.acc][src.lane][src.index];
            }
            for (int j = 0; j < Next::b_count; ++j) {
                // relabel: B row j holds P column reuse_col; shuffle: the standard map, k-block kb.
                const int row = how == recipe::relabel ? reuse_col<Next>(lane, j, kb)
                                                       : 4 * kb + Next::b_coord(lane, j).row;
                b[lane][j] = B2[row * N + Next::b_coord(lane, j).col];
            }
        }
        for (int lane = 0; lane < 32; ++lane)
            mma_emulated<Next>(lane, d[lane], lane_reader<double, Next::a_count>{a},
                               lane_reader<double, Next::b_count>{b});
    }
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < Next::c_count; ++i) {
            const coord rc = Next::c_coord(lane, i);
            D2[rc.row * N + rc.col] = d[lane][i];
        }
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double ref = C2[i * N + j];
            for (int k = 0; k < PCols; ++k) ref += P[i * PCols + k] * B2[k * N + j];
            t.check(D2[i * N + j] == ref, "%s %s: D2(%d, %d) = %g, P*B2 + C2 = %g", Next::name(), how_name, i, j,
                    D2[i * N + j], ref);
        }
}

/// Relabel and FP16 in place: the source is the lane itself, and the
/// register index is the same on every lane (the device code takes lane 0's).
template <class SourceFn>
void check_in_place(tally& t, const char* name, int a_count, int k_blocks, SourceFn source)
{
    for (int kb = 0; kb < k_blocks; ++kb)
        for (int i = 0; i < a_count; ++i) {
            const reuse_home s0 = source(0, i, kb);
            for (int lane = 0; lane < 32; ++lane) {
                const reuse_home s = source(lane, i, kb);
                t.check(s.lane == lane && s.acc == s0.acc && s.index == s0.index,
                        "%s: element %d (k-block %d) on lane %d comes from {%d, %d, %d}, lane 0 from {%d, %d, %d}",
                        name, i, kb, lane, s.acc, s.lane, s.index, s0.acc, s0.lane, s0.index);
            }
        }
}

template <class Next>
reuse_home relabel_source(int lane, int i, int kb)
{
    return f64_relabel_source<Next>(lane, i, kb);
}

/// What reuse_a_shuffle relies on: per element, one accumulator on all lanes;
/// the register is lane 0's (even P column) or lane 1's (odd); same quad.
template <class Next>
void check_shuffle_properties(tally& t, int k_blocks)
{
    for (int kb = 0; kb < k_blocks; ++kb)
        for (int i = 0; i < Next::a_count; ++i) {
            const reuse_home even = f64_shuffle_source<Next>(0, i, kb), odd = f64_shuffle_source<Next>(1, i, kb);
            t.check(even.acc == odd.acc, "%s shuffle: element %d: lanes 0 and 1 read different accumulators",
                    Next::name(), i);
            for (int lane = 0; lane < 32; ++lane) {
                const reuse_home s = f64_shuffle_source<Next>(lane, i, kb);
                t.check(s.acc == even.acc, "%s shuffle: element %d: lane %d reads accumulator %d, lane 0 %d",
                        Next::name(), i, lane, s.acc, even.acc);
                t.check(s.index == even.index || s.index == odd.index,
                        "%s shuffle: element %d: lane %d wants register %d, neither lane 0's %d nor lane 1's %d",
                        Next::name(), i, lane, s.index, even.index, odd.index);
                // The even/odd choice must follow the P column's parity, as the device selects it.
                const int col = Next::a_coord(lane, i).col + 4 * kb;
                t.check(s.index == ((col & 1) ? odd.index : even.index),
                        "%s shuffle: element %d: lane %d (P column %d) picks the wrong parity", Next::name(), i, lane,
                        col);
                t.check(s.lane >> 2 == lane >> 2, "%s shuffle: element %d: lane %d reads lane %d (another quad)",
                        Next::name(), i, lane, s.lane);
            }
        }
}

/// FP16: P = [D0 | D1] (16x16), A element e = D_{e>>2}[e & 3]; D2 = P * Y2 + C2.
template <class Acc>
void check_f16(tally& t, rng& r)
{
    using CShape = f16_m16n8k16<Acc>;
    using Next = f16_m16n8k16_f32acc;
    std::vector<double> P(16 * 16), Y2(16 * 8), C2(16 * 8);
    for (double& x : P) x = small_int(r);
    for (double& x : Y2) x = small_int(r);
    for (double& x : C2) x = small_int(r);
    Acc acc_regs[2][32][4];
    for (int q = 0; q < 2; ++q)
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < 4; ++i) {
                const coord rc = CShape::c_coord(lane, i);
                acc_regs[q][lane][i] = convert_to<Acc>(P[rc.row * 16 + 8 * q + rc.col]);
            }
    __half a[32][8], b[32][4];
    float d[32][4];
    for (int lane = 0; lane < 32; ++lane) {
        for (int e = 0; e < 8; ++e) {
            const reuse_home s = f16_reuse_source(lane, e);
            a[lane][e] = convert_to<__half>(acc_regs[s.acc][s.lane][s.index]);
            const coord want = Next::a_coord(lane, e);
            t.check(__half2float(a[lane][e]) == P[want.row * 16 + want.col],
                    "f16 reuse: lane %d element %d is not P(%d, %d)", lane, e, want.row, want.col);
        }
        for (int j = 0; j < 4; ++j) {
            const coord rc = Next::b_coord(lane, j);
            b[lane][j] = convert_to<__half>(Y2[rc.row * 8 + rc.col]);
        }
        for (int i = 0; i < 4; ++i) d[lane][i] = C2[Next::c_coord(lane, i).row * 8 + Next::c_coord(lane, i).col];
    }
    for (int lane = 0; lane < 32; ++lane)
        mma_emulated<Next>(lane, d[lane], lane_reader<__half, 8>{a}, lane_reader<__half, 4>{b});
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            const coord rc = Next::c_coord(lane, i);
            double ref = C2[rc.row * 8 + rc.col];
            for (int k = 0; k < 16; ++k) ref += P[rc.row * 16 + k] * Y2[k * 8 + rc.col];
            t.check(d[lane][i] == ref, "f16 reuse (%s accumulators): D2(%d, %d) = %g, P*Y2 + C2 = %g",
                    CShape::name(), rc.row, rc.col, d[lane][i], ref);
        }
}

}  // namespace

int main()
{
    tally t;
    rng r(test::seed());
    check_in_place(t, "f64_m8n8k4 relabel", 1, 2, relabel_source<f64_m8n8k4>);
    check_in_place(t, "f64_m16n8k4 relabel", 2, 2, relabel_source<f64_m16n8k4>);
    check_in_place(t, "f64_m16n8k8 relabel", 4, 1, relabel_source<f64_m16n8k8>);
    check_in_place(t, "f64_m16n8k16 relabel", 8, 1, relabel_source<f64_m16n8k16>);
    check_in_place(t, "f16 reuse", 8, 1, [](int l, int e, int) { return f16_reuse_source(l, e); });
    check_shuffle_properties<f64_m8n8k4>(t, 2);
    check_shuffle_properties<f64_m16n8k4>(t, 2);
    check_shuffle_properties<f64_m16n8k8>(t, 1);
    check_shuffle_properties<f64_m16n8k16>(t, 1);
    for (int trial = 0; trial < 10; ++trial)
        for (recipe how : {recipe::relabel, recipe::shuffle}) {
            check_f64_recipe<f64_m8n8k4, f64_m8n8k4, 1>(t, r, how);
            check_f64_recipe<f64_m16n8k4, f64_m16n8k4, 1>(t, r, how);
            check_f64_recipe<f64_m16n8k8, f64_m16n8k8, 1>(t, r, how);
            check_f64_recipe<f64_m16n8k16, f64_m16n8k16, 2>(t, r, how);
        }
    for (int trial = 0; trial < 10; ++trial) {
        check_f16<float>(t, r);
        check_f16<__half>(t, r);
    }
    return t.finish();
}
