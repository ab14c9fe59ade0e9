// tests/host/test_frag_model.cu - the cuda_core MMA algorithm, run on the CPU.
//
// A warp of 32 simulated lanes: random A, B, C are handed to the lanes
// through the shape's maps (with its to_a / to_b conversions), the very
// `tcore::mma_emulated<Shape>` that the cuda_core backend runs is called once
// per lane with fetch functions that read the other simulated lanes' arrays
// (where the device shuffles), D is gathered through c_coord and compared
// element by element with a plain FP64 product of the converted inputs.
// b1 m8n8k128: the word-fetching popcount algorithm of its cuda_core MMA,
// modelled lane by lane and compared exactly with popc(A AND B) + C.
#include "common/test_util.hpp"

#include <tcore/frag.cuh>

#include <bitset>
#include <cmath>
#include <vector>

using namespace tcore;
using tcore::test::rng;
using tcore::test::tally;

namespace {

double to_double(double v) { return v; }
double to_double(float v) { return v; }
double to_double(__half v) { return __half2float(v); }

// Error bounds. S(i, j) = |C(i, j)| + sum_k |A(i, k) B(k, j)| bounds every
// partial sum. The reference is an FP64 sum of exactly represented values.
//  - FP64: the model does K FMAs, each rounding once by at most u = 2^-53
//    of a partial sum (<= S); the FP64 reference rounds K products and K
//    additions, at most 2K u S. Bound: (3K) u S.
//  - TF32, FP16: products of 11-bit significands have at most 22 bits, exact
//    in FP32 and in FP64, so the reference's error is at most K 2^-53 S (far
//    below one FP32 rounding, counted as one extra 2^-24 S), and the model's
//    K FP32 FMAs round by at most 2^-24 S each: (K + 1) 2^-24 S.
//  - FP16 with FP16 accumulators: the model accumulates in FP32 and rounds to
//    FP16 once (relative 2^-11, or 2^-25 absolute below FP16's normal range).
template <class Shape>
double tolerance(double s, double ref)
{
    constexpr int K = Shape::k;
    if constexpr (std::is_same_v<typename Shape::acc_type, double>) return 3.0 * K * 0x1p-53 * s;
    const double fp32 = (K + 1) * 0x1p-24 * s;
    if constexpr (std::is_same_v<typename Shape::c_type, __half>)
        return fp32 + 0x1p-11 * (std::fabs(ref) + fp32) + 0x1p-25;
    return fp32;
}

/// Reads element i of simulated lane `src`: what __shfl_sync does on the device.
/// (A __host__ __device__ call operator, as mma_emulated is __host__ __device__.)
template <class T, int Count>
struct lane_reader {
    const T (*lanes)[Count];
    __host__ __device__ T operator()(int src, int i) const { return lanes[src][i]; }
};

template <class Shape>
void model_once(tally& t, rng& r)
{
    constexpr int M = Shape::m, N = Shape::n, K = Shape::k;
    using a_t = typename Shape::a_type;
    using b_t = typename Shape::b_type;
    using c_t = typename Shape::c_type;
    a_t a[32][Shape::a_count];
    b_t b[32][Shape::b_count];
    c_t c[32][Shape::c_count];
    // Inputs as the fragments hold them (after to_a/to_b), read back as doubles.
    std::vector<double> A(M * K), B(K * N), C(M * N), D(M * N, std::nan(""));
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < Shape::a_count; ++i) {
            const coord rc = Shape::a_coord(lane, i);
            a[lane][i] = Shape::to_a(r.nonzero());
            A[rc.row * K + rc.col] = to_double(a[lane][i]);
        }
        for (int i = 0; i < Shape::b_count; ++i) {
            const coord rc = Shape::b_coord(lane, i);
            b[lane][i] = Shape::to_b(r.nonzero());
            B[rc.row * N + rc.col] = to_double(b[lane][i]);
        }
        for (int i = 0; i < Shape::c_count; ++i) {
            const coord rc = Shape::c_coord(lane, i);
            c[lane][i] = convert_to<c_t>(r.nonzero());
            C[rc.row * N + rc.col] = to_double(c[lane][i]);
        }
    }
    for (int lane = 0; lane < 32; ++lane) {
        typename Shape::acc_type acc[Shape::c_count];
        for (int i = 0; i < Shape::c_count; ++i) acc[i] = Shape::to_acc(c[lane][i]);
        mma_emulated<Shape>(lane, acc, lane_reader<a_t, Shape::a_count>{a}, lane_reader<b_t, Shape::b_count>{b});
        for (int i = 0; i < Shape::c_count; ++i) {
            const coord rc = Shape::c_coord(lane, i);
            D[rc.row * N + rc.col] = to_double(convert_to<c_t>(acc[i]));
        }
    }
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double ref = C[i * N + j], s = std::fabs(ref);
            for (int k = 0; k < K; ++k) {
                ref += A[i * K + k] * B[k * N + j];
                s += std::fabs(A[i * K + k] * B[k * N + j]);
            }
            const double got = D[i * N + j], tol = tolerance<Shape>(s, ref);
            t.check(test::close(got, ref, tol), "%s model: D(%d, %d) = %.17g, FP64 reference %.17g (tol %.3g)",
                    Shape::name(), i, j, got, ref, tol);
        }
}

void model_b1_once(tally& t, rng& r)
{
    using S = b1_m8n8k128;
    bool A[8][128], B[128][8];
    int C[8][8], D[8][8];
    for (auto& row : A)
        for (bool& x : row) x = r.next() & 1;
    for (auto& row : B)
        for (bool& x : row) x = r.next() & 1;
    for (auto& row : C)
        for (int& x : row) x = static_cast<int>(r.next() % 2001) - 1000;
    unsigned a[32] = {}, b[32] = {};
    int c[32][2];
    for (int lane = 0; lane < 32; ++lane) {
        for (int v = 0; v < S::bits; ++v) {
            const coord ra = S::a_coord(lane, v), rb = S::b_coord(lane, v);
            a[lane] |= unsigned(A[ra.row][ra.col]) << v;
            b[lane] |= unsigned(B[rb.row][rb.col]) << v;
        }
        for (int i = 0; i < 2; ++i) c[lane][i] = C[S::c_coord(lane, i).row][S::c_coord(lane, i).col];
    }
    // The cuda_core algorithm: per 32-bit k word w, fetch A row g's word and
    // B column (2t + i)'s word from the lanes holding them; popcount the AND.
    for (int lane = 0; lane < 32; ++lane) {
        int acc[2] = {c[lane][0], c[lane][1]};
        for (int w = 0; w < 4; ++w) {
            const unsigned a_word = a[S::a_home(lane >> 2, 32 * w).lane];
            for (int i = 0; i < 2; ++i) {
                const unsigned b_word = b[S::b_home(32 * w, S::c_coord(lane, i).col).lane];
                acc[i] += static_cast<int>(std::bitset<32>(a_word & b_word).count());
            }
        }
        for (int i = 0; i < 2; ++i) D[S::c_coord(lane, i).row][S::c_coord(lane, i).col] = acc[i];
    }
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
            int ref = C[i][j];
            for (int k = 0; k < 128; ++k) ref += A[i][k] && B[k][j];
            t.check(D[i][j] == ref, "b1 model: D(%d, %d) = %d, reference %d", i, j, D[i][j], ref);
        }
}

}  // namespace

int main()
{
    tally t;
    rng r(test::seed());
    for (int trial = 0; trial < 20; ++trial) {
        model_once<f64_m8n8k4>(t, r);
        model_once<f64_m16n8k4>(t, r);
        model_once<f64_m16n8k8>(t, r);
        model_once<f64_m16n8k16>(t, r);
        model_once<tf32_m16n8k8>(t, r);
        model_once<f16_m16n8k16_f32acc>(t, r);
        model_once<f16_m16n8k16_f16acc>(t, r);
        model_b1_once(t, r);
    }
    return t.finish();
}
