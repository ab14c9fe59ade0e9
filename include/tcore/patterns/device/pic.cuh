// tcore/patterns/device/pic.cuh - the launchers of the Boris push pattern
// (tcore/patterns/boris.cuh): per-cell field gather and step tables, and the
// tensor-core / CUDA-core-MMA push of whole particle arrays.
//
//   boris_tables<Shape>   per cell: E and B at the cell centre (mean of the 8
//                         corner nodes), the step's affine form (R, c) and
//                         the lane-ordered T values of the MMA
//   boris_push_mma<Backend, Shape>
//                         `steps` steps of blocks of 16 (m16n8k*) or 8
//                         (m8n8k4) particles, one MMA (two for K = 4) per
//                         block and step, state kept in registers between
//                         steps (boris::push_blocks), push_group blocks per
//                         warp in flight
//   check_push            the argument checks of a push launcher (also for
//                         a user's own push on the plain table)
//
// Particles: N x 8 doubles [vx vy vz 1 x y z w], 16-byte aligned, particle p
// in cell p / ppc (ppc a multiple of 16, so blocks never straddle cells), as
// PiCTC groups the particles of a cell. Nodes: (nx+1)(ny+1)(nz+1) x 6 doubles
// [Ex Ey Ez Bx By Bz], node (i, j, k) at index (k (ny+1) + j)(nx+1) + i; cell
// (i, j, k) at (k ny + j) nx + i. Tables 16-byte aligned. Bad arguments and
// failed launches throw tcore::error. Launch shape: push_block_threads per
// block, at most 4 x the resident blocks (occupancy query, once per process).
#pragma once

#include "../../check.cuh"
#include "../../infra/launch.cuh"
#include "../boris.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tcore::boris {

/// Cells of the grid (nodes are one more per axis).
struct grid3 {
    int nx = 0, ny = 0, nz = 0;
    __host__ __device__ long long cells() const { return static_cast<long long>(nx) * ny * nz; }
    __host__ __device__ long long nodes() const { return static_cast<long long>(nx + 1) * (ny + 1) * (nz + 1); }
};

/// E and B at the centre of `cell`: the mean of its 8 corner nodes
/// (trilinear interpolation at the centre).
__host__ __device__ inline void cell_field(const double* nodes, grid3 g, long long cell, double E[3], double B[3])
{
    const int i = static_cast<int>(cell % g.nx), j = static_cast<int>((cell / g.nx) % g.ny),
              k = static_cast<int>(cell / (static_cast<long long>(g.nx) * g.ny));
    double f[6] = {0, 0, 0, 0, 0, 0};
    for (int c = 0; c < 8; ++c) {
        const long long node =
            (static_cast<long long>(k + (c >> 2)) * (g.ny + 1) + (j + ((c >> 1) & 1))) * (g.nx + 1) + (i + (c & 1));
        for (int q = 0; q < 6; ++q) f[q] += nodes[node * 6 + q];
    }
    for (int q = 0; q < 3; ++q) E[q] = 0.125 * f[q], B[q] = 0.125 * f[3 + q];
}

inline constexpr int push_block_threads = 128;
inline constexpr int push_group = 4;  ///< blocks in flight per warp

/// Per cell: lane-ordered T values for Shape (32 double2) and the plain
/// affine form (R row-major, then c: 12 doubles, padded to 16).
template <class Shape>
__global__ void __launch_bounds__(256) boris_tables_kernel(const double* nodes, grid3 g, double h, double dt,
                                                           double2* frag_table, double* plain_table)
{
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
    const int lane = static_cast<int>(threadIdx.x & 31);
    for (long long cell = warp; cell < g.cells(); cell += warps) {
        double E[3], B[3], R[3][3], c[3];
        cell_field(nodes, g, cell, E, B);
        tcore::boris::boris_affine(E, B, h, R, c);
        double tv[2];
        tcore::boris::transform_values<Shape>(lane, R, c, dt, tv);
        frag_table[cell * 32 + lane] = make_double2(tv[0], tv[1]);
        if (lane < 16)
            plain_table[cell * 16 + lane] = lane < 9 ? R[lane / 3][lane % 3] : (lane < 12 ? c[lane - 9] : 0.0);
    }
}

/// Resident blocks asked of ptxas: 4 for the tensor-core pushes (no spills
/// at <= 128 registers); the cuda_core MMA needs more registers.
template <class Backend>
inline constexpr int push_min_blocks = std::is_same_v<Backend, tcore::tensor_core> ? 4 : 1;

/// tc / cc: warp w pushes blocks w * G .. w * G + G - 1, then strides.
template <class Backend, class Shape>
__global__ void __launch_bounds__(push_block_threads, push_min_blocks<Backend>)
    boris_push_kernel(double* state, long long blocks, int blocks_per_cell, const double2* frag_table, int steps)
{
    using L = tcore::boris::block_layout<Shape>;
    constexpr int G = push_group;
    const int lane = static_cast<int>(threadIdx.x & 31);
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
    for (long long b0 = warp * G; b0 < blocks; b0 += warps * G) {  // warp-uniform
        tcore::frag_c<Shape> d[G];
        double2 tv[G];
        tcore::static_for<G>([&](auto gi) {
            const long long b = b0 + gi;
            double2 p[L::pairs];
            if (b < blocks) {
                tv[gi] = frag_table[(b / blocks_per_cell) * 32 + lane];
                tcore::static_for<L::pairs>([&](auto q) {
                    const long long particle = b * L::particles + (lane >> 2) + 8 * q;
                    p[q] = *reinterpret_cast<const double2*>(state + particle * 8 + 2 * (lane & 3));
                });
            } else {
                tv[gi] = make_double2(0.0, 0.0);
                tcore::static_for<L::pairs>([&](auto q) { p[q] = make_double2(0.0, 0.0); });
            }
            d[gi] = tcore::boris::state_from_pairs<Shape>(p);
        });
        tcore::boris::push_blocks<Backend, Shape, G>(d, tv, steps);
        tcore::static_for<G>([&](auto gi) {
            const long long b = b0 + gi;
            if (b < blocks) {
                double2 p[L::pairs];
                tcore::boris::pairs_from_state<Shape>(p, d[gi]);
                tcore::static_for<L::pairs>([&](auto q) {
                    const long long particle = b * L::particles + (lane >> 2) + 8 * q;
                    *reinterpret_cast<double2*>(state + particle * 8 + 2 * (lane & 3)) = p[q];
                });
            }
        });
    }
}

// -- host ------------------------------------------------------------------------------

/// Argument checks of a push of n particles (ppc per cell) with `table`
/// (throws tcore::error naming `where`).
inline void check_push(const char* where, const double* state, long long n, int ppc, const void* table, int steps)
{
    require(n >= 0, where, "particle count must be >= 0");
    require(ppc > 0 && ppc % 16 == 0, where,
            "particles per cell must be a positive multiple of 16 (got " + std::to_string(ppc) + ")");
    require(n % ppc == 0, where,
            "particle count " + std::to_string(n) + " is not a multiple of particles per cell " + std::to_string(ppc));
    require(steps >= 0, where, "steps must be >= 0");
    if (n == 0) return;
    require(state != nullptr && table != nullptr, where, "null pointer");
    require(reinterpret_cast<std::uintptr_t>(state) % 16 == 0, where, "particle state must be 16-byte aligned");
    require(reinterpret_cast<std::uintptr_t>(table) % 16 == 0, where, "table must be 16-byte aligned");
}

/// Builds the per-cell tables for Shape: frag_table g.cells() * 32 double2,
/// plain_table g.cells() * 16 doubles. h = q dt / (2 m).
template <class Shape>
void boris_tables(const double* nodes, grid3 g, double h, double dt, double2* frag_table, double* plain_table,
                  cudaStream_t stream = nullptr)
{
    require(g.nx > 0 && g.ny > 0 && g.nz > 0, "boris_tables", "grid must have at least one cell per axis");
    require(nodes != nullptr && frag_table != nullptr && plain_table != nullptr, "boris_tables", "null pointer");
    require(g.cells() < (1ll << 40), "boris_tables", "grid too large");
    const long long blocks = std::min<long long>((g.cells() + 7) / 8, 1ll << 20);
    boris_tables_kernel<Shape>
        <<<static_cast<unsigned>(blocks), 256, 0, stream>>>(nodes, g, h, dt, frag_table, plain_table);
    TCORE_CHECK_LAUNCH();
}

/// tc / cc: `steps` Boris steps of n particles (ppc per cell) in place.
/// frag_table from boris_tables<Shape> (same Shape).
template <class Backend, class Shape>
void boris_push_mma(double* state, long long n, int ppc, const double2* frag_table, int steps,
                    cudaStream_t stream = nullptr)
{
    check_push("boris_push_mma", state, n, ppc, frag_table, steps);
    if (n == 0 || steps == 0) return;
    using L = tcore::boris::block_layout<Shape>;
    const long long blocks = n / L::particles;
    const long long warps_wanted = (blocks + push_group - 1) / push_group;
    static int resident = 0;  // per process: the kernel's resident blocks on the current device
    if (resident == 0)
        resident = tcore::sm_count() * tcore::blocks_per_sm(&boris_push_kernel<Backend, Shape>, push_block_threads);
    const long long grid =
        std::max(1ll, std::min<long long>((warps_wanted * 32 + push_block_threads - 1) / push_block_threads,
                                          static_cast<long long>(resident) * 4));
    boris_push_kernel<Backend, Shape><<<static_cast<unsigned>(grid), push_block_threads, 0, stream>>>(
        state, blocks, ppc / L::particles, frag_table, steps);
    TCORE_CHECK_LAUNCH();
}

}  // namespace tcore::boris
