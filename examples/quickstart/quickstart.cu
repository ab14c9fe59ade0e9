// examples/quickstart/quickstart.cu - the README's quick start, compiled and
// run as a test: row sums of a 16x16 FP64 block as one MMA against a matrix
// of ones generated in registers, on either backend.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// example-begin quickstart
#include <tcore/tcore.cuh>
using namespace tcore;

// Row sums of a 16 x 16 FP64 block: S = A * ones(16 x 8); every column of S
// holds the sums, column 0 is stored.
template <class Backend>
__global__ void row_sums(const double* a, double* sums)
{
    using shape = f64_m16n8k16;                // DMMA.16x8x16 on sm_90, m8n8k4 on sm_80
    frag_a<shape> a_frag;
    frag_b<shape> ones;
    frag_c<shape> acc;
    load_a<layout::row_major>(a_frag, a, 16);  // each lane loads the elements its map names
    fill(ones, 1.0);                           // a constant operand: generated, never loaded
    fill(acc, 0.0);
    mma<Backend>(acc, a_frag, ones, acc);      // tensor_core: DMMA; cuda_core: shuffles + DFMA
#pragma unroll
    for (int i = 0; i < shape::c_count; ++i) {
        const coord rc = shape::c_coord(lane_id(), i);
        if (rc.col == 0) sums[rc.row] = acc.x[i];
    }
}
// row_sums<tensor_core><<<1, 32>>>(a, sums);   or   row_sums<cuda_core><<<1, 32>>>(a, sums);
// example-end quickstart

template <class Backend>
static int run(const double* d_a, double* d_sums, const std::vector<double>& a)
{
    TCORE_CHECK(cudaMemset(d_sums, 0xFF, 16 * sizeof(double)));  // NaN: catches unwritten rows
    row_sums<Backend><<<1, 32>>>(d_a, d_sums);
    TCORE_CHECK_LAUNCH();
    std::vector<double> sums(16);
    TCORE_CHECK(cudaMemcpy(sums.data(), d_sums, sizeof(double) * 16, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < 16; ++r) {
        double ref = 0, abs_sum = 0;
        for (int c = 0; c < 16; ++c) ref += a[r * 16 + c], abs_sum += std::abs(a[r * 16 + c]);
        // 16 additions in some order: |error| <= 2 * 16 * eps * sum |a|.
        if (!(std::abs(sums[r] - ref) <= 32 * 0x1p-53 * abs_sum)) ++bad;
    }
    std::printf("%-12s row sums %s\n", Backend::name(), bad ? "WRONG" : "match the CPU");
    return bad;
}

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("no CUDA device: skipped\n");
        return 77;
    }
    std::vector<double> a(256);
    srand(12345);
    for (double& v : a) v = 4.0 * (rand() + 1.0) / (RAND_MAX + 2.0) - 2.0;  // (-2, 2), never 0
    double *d_a, *d_sums;
    TCORE_CHECK(cudaMalloc(&d_a, a.size() * sizeof(double)));
    TCORE_CHECK(cudaMalloc(&d_sums, 16 * sizeof(double)));
    TCORE_CHECK(cudaMemcpy(d_a, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice));
    const int bad = run<tensor_core>(d_a, d_sums, a) + run<cuda_core>(d_a, d_sums, a);
    TCORE_CHECK(cudaFree(d_a));
    TCORE_CHECK(cudaFree(d_sums));
    return bad ? 1 : 0;
}
