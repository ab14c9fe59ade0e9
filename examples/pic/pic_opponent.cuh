// examples/pic/pic_opponent.cuh - the PiC workload's CUDA-core opponent
// (cce): one thread per particle, v = R v + c, x += dt v on CUDA cores (the
// essential arithmetic of the Boris step), reading the plain per-cell table
// of tcore::boris::boris_tables. Layouts as in tcore/patterns/device/pic.cuh.
#pragma once

#include <tcore/check.cuh>
#include <tcore/infra/launch.cuh>
#include <tcore/patterns/device/pic.cuh>

#include <cuda_runtime.h>

#include <algorithm>

namespace tcore::examples::pic {

/// cce: thread per particle, v = R v + c, x += dt v.
__global__ void __launch_bounds__(256)
    boris_push_cce_kernel(double* state, long long n, int ppc, const double* plain_table, double dt, int steps)
{
    for (long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; p < n;
         p += static_cast<long long>(gridDim.x) * blockDim.x) {
        double2* s = reinterpret_cast<double2*>(state + p * 8);
        const double2 s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
        double v0 = s0.x, v1 = s0.y, v2 = s1.x, x0 = s2.x, x1 = s2.y, x2 = s3.x;
        const double* t = plain_table + (p / ppc) * 16;
        const double r00 = t[0], r01 = t[1], r02 = t[2], r10 = t[3], r11 = t[4], r12 = t[5], r20 = t[6], r21 = t[7],
                     r22 = t[8], c0 = t[9], c1 = t[10], c2 = t[11];
#pragma unroll 1
        for (int k = 0; k < steps; ++k) {
            const double n0 = fma(r00, v0, fma(r01, v1, fma(r02, v2, c0)));
            const double n1 = fma(r10, v0, fma(r11, v1, fma(r12, v2, c1)));
            const double n2 = fma(r20, v0, fma(r21, v1, fma(r22, v2, c2)));
            v0 = n0, v1 = n1, v2 = n2;
            x0 = fma(dt, v0, x0), x1 = fma(dt, v1, x1), x2 = fma(dt, v2, x2);
        }
        s[0] = make_double2(v0, v1);
        s[1] = make_double2(v2, s1.y);
        s[2] = make_double2(x0, x1);
        s[3] = make_double2(x2, s3.y);
    }
}

/// cce: `steps` steps of n particles in place with the plain table.
inline void boris_push_cce(double* state, long long n, int ppc, const double* plain_table, double dt, int steps,
                           cudaStream_t stream = nullptr)
{
    tcore::boris::check_push("boris_push_cce", state, n, ppc, plain_table, steps);
    if (n == 0 || steps == 0) return;
    static int resident = 0;
    if (resident == 0) resident = tcore::sm_count() * tcore::blocks_per_sm(&boris_push_cce_kernel, 256);
    const long long grid = std::max(1ll, std::min<long long>((n + 255) / 256, static_cast<long long>(resident) * 4));
    boris_push_cce_kernel<<<static_cast<unsigned>(grid), 256, 0, stream>>>(state, n, ppc, plain_table, dt, steps);
    TCORE_CHECK_LAUNCH();
}

}  // namespace tcore::examples::pic
