// tests/sass/default_backend.cu - every entry point that takes a backend, called
// without naming one. Compiled with -DTCORE_BACKEND=cuda_core, its SASS must
// hold no MMA instruction at all (check_default_backend.cmake): the default
// from TCORE_BACKEND reaches the fragments, the warp building blocks and the
// reduce, scan, GEMV, SpMV, SpGEMM and FFT launchers. Never run; the host
// function only makes the launchers instantiate their kernels.
#include <tcore/tcore.cuh>
#include <tcore/patterns/dft_fft.cuh>
#include <tcore/patterns/device/gemv.cuh>
#include <tcore/patterns/device/reduce.cuh>
#include <tcore/patterns/device/scan.cuh>
#include <tcore/patterns/device/spgemm.cuh>
#include <tcore/patterns/device/spmv.cuh>

using namespace tcore;

__global__ void fragment_mma(const double* a_mem, const double* b_mem, double* out)
{
    frag_a<f64_m16n8k16> a;
    frag_b<f64_m16n8k16> b;
    frag_c<f64_m16n8k16> acc;
    load_a<layout::row_major>(a, a_mem, 16);
    load_b<layout::row_major>(b, b_mem, 8);
    fill(acc, 0.0);
    mma(acc, a, b, acc);
    store_c<layout::row_major>(out, 8, acc);
}

__global__ void warp_blocks(const double* in, double* out)
{
    double v[reduce_per_lane];
    for (int i = 0; i < reduce_per_lane; ++i) v[i] = in[threadIdx.x * reduce_per_lane + i];
    out[threadIdx.x] = warp_reduce(v);
    warp_sum<> acc;
    acc.add(v);
    out[32 + threadIdx.x] = acc.total();
}

void default_backend_launchers(void* temp, std::size_t& bytes, const double* x, double* y, long long n,
                               const dasp_spmv& spmv, const mbsr_device& m, const fft_plan& plan, const double2* c_in,
                               double2* c_out)
{
    reduce(temp, bytes, x, y, n);
    reduce_segments(x, y, n / 64, 64);
    scan(temp, bytes, x, y, n);
    scan_segments(x, y, n / 64, 64);
    gemv(layout::row_major, n, n, x, n, x, y);
    spmv.run(x, y);
    spmv.run<default_backend, f64_m16n8k16>(x, y);
    const mbsr_device product = spgemm(m, m);
    (void)product;
    plan.execute(c_in, c_out, fft_direction::forward);
}
