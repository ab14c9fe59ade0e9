// examples/pic/pic_host.hpp - the PiC workload's host side: grid fields,
// particles grouped by cell, and the FP64 CPU reference (the classical Boris
// step with cross products, tcore::boris::boris_step, with each particle's
// cell field gathered as on the GPU).
//
// Fields (node (i, j, k), grid nx x ny x nz cells of unit size):
//   B = (b1 sin(2 pi j / ny), b1 cos(2 pi i / nx), B0)           mostly along z
//   E = e0 (cos(2 pi j / ny), sin(2 pi i / nx), 0.1 sin(2 pi k / (nz + 1)))
// so particles gyrate about z and drift (E x B); e0 = 0 gives a pure
// magnetic field, in which the Boris rotation conserves |v| exactly.
// Particles: ppc per cell, positions uniform in their cell, velocities
// uniform in [-1, 1)^3, component 3 = 1, payload w = particle index.
#pragma once

#include <tcore/check.cuh>
#include <tcore/infra/splitmix64.cuh>
#include <tcore/patterns/boris.cuh>
#include <tcore/patterns/device/pic.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

namespace tcore::examples::pic {

using tcore::boris::cell_field;
using tcore::boris::grid3;

struct setup {
    grid3 grid;
    int ppc = 64;
    double q_over_m = -1.0, dt = 0.05;
    std::vector<double> nodes;      ///< nodes() x 6
    std::vector<double> particles;  ///< n() x 8
    long long n() const { return static_cast<long long>(particles.size() / 8); }
    double h() const { return 0.5 * q_over_m * dt; }
};

/// Fills the node fields (see the header comment).
inline void make_fields(setup& s, double B0 = 1.0, double b1 = 0.2, double e0 = 0.05)
{
    const grid3 g = s.grid;
    const double pi = 3.14159265358979323846;
    s.nodes.assign(static_cast<std::size_t>(g.nodes()) * 6, 0.0);
    for (int k = 0; k <= g.nz; ++k)
        for (int j = 0; j <= g.ny; ++j)
            for (int i = 0; i <= g.nx; ++i) {
                double* f = &s.nodes[static_cast<std::size_t>(((static_cast<long long>(k) * (g.ny + 1) + j) * (g.nx + 1) + i) * 6)];
                f[0] = e0 * std::cos(2 * pi * j / g.ny);
                f[1] = e0 * std::sin(2 * pi * i / g.nx);
                f[2] = e0 * 0.1 * std::sin(2 * pi * k / (g.nz + 1));
                f[3] = b1 * std::sin(2 * pi * j / g.ny);
                f[4] = b1 * std::cos(2 * pi * i / g.nx);
                f[5] = B0;
            }
}

/// ppc particles per cell in cell order (particle p in cell p / ppc).
inline void make_particles(setup& s, std::uint64_t seed = 0x70696370ull)
{
    const grid3 g = s.grid;
    require(s.ppc > 0 && s.ppc % 16 == 0, "make_particles", "particles per cell must be a positive multiple of 16");
    const long long n = g.cells() * s.ppc;
    s.particles.assign(static_cast<std::size_t>(n) * 8, 0.0);
    splitmix64 r(seed);
    auto uniform = [&r] { return r.unit(); };
    for (long long p = 0; p < n; ++p) {
        const long long cell = p / s.ppc;
        const int i = static_cast<int>(cell % g.nx), j = static_cast<int>((cell / g.nx) % g.ny),
                  k = static_cast<int>(cell / (static_cast<long long>(g.nx) * g.ny));
        double* q = &s.particles[static_cast<std::size_t>(p) * 8];
        for (int c = 0; c < 3; ++c) q[c] = 2.0 * uniform() - 1.0;
        q[3] = 1.0;
        q[4] = i + uniform(), q[5] = j + uniform(), q[6] = k + uniform();
        q[7] = static_cast<double>(p);
    }
}

/// A grid of about n / ppc cells: 32 x 32 x nz (nz = cells / 1024) when n
/// is a multiple of 1024 ppc, else a single row of cells.
inline grid3 grid_for(long long n, int ppc)
{
    require(ppc > 0 && n % ppc == 0, "grid_for", "n must be a multiple of particles per cell");
    const long long cells = n / ppc;
    grid3 g;
    if (cells % 1024 == 0) g.nx = 32, g.ny = 32, g.nz = static_cast<int>(cells / 1024);
    else g.nx = static_cast<int>(cells), g.ny = 1, g.nz = 1;
    return g;
}

/// FP64 CPU reference: `steps` classical Boris steps of every particle with
/// its cell's field (several threads).
inline std::vector<double> cpu_push(const setup& s, const std::vector<double>& particles, int steps)
{
    std::vector<double> out = particles;
    const long long n = static_cast<long long>(particles.size() / 8);
    const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            for (long long p = w; p < n; p += workers) {
                double E[3], B[3];
                cell_field(s.nodes.data(), s.grid, p / s.ppc, E, B);
                double* q = &out[static_cast<std::size_t>(p) * 8];
                double v[3] = {q[0], q[1], q[2]}, x[3] = {q[4], q[5], q[6]};
                for (int k = 0; k < steps; ++k) tcore::boris::boris_step(v, x, E, B, s.h(), s.dt);
                q[0] = v[0], q[1] = v[1], q[2] = v[2], q[4] = x[0], q[5] = x[1], q[6] = x[2];
            }
        });
    for (std::thread& t : pool) t.join();
    return out;
}

/// Largest relative change of |v|^2 between two particle states.
inline double max_energy_drift(const std::vector<double>& before, const std::vector<double>& after)
{
    double worst = 0;
    for (std::size_t p = 0; p + 8 <= before.size(); p += 8) {
        const double e0 = before[p] * before[p] + before[p + 1] * before[p + 1] + before[p + 2] * before[p + 2];
        const double e1 = after[p] * after[p] + after[p + 1] * after[p + 1] + after[p + 2] * after[p + 2];
        if (e0 > 0) worst = std::max(worst, std::fabs(e1 - e0) / e0);
    }
    return worst;
}

}  // namespace tcore::examples::pic
