// tests/host/test_pic.cu - tcore/patterns/boris.cuh and the PiC workload's
// host side without a GPU.
//
// 1. The affine form: state * T equals the classical Boris step (cross
//    products) for random fields, velocities and positions; with E = 0 the
//    rotation R is orthogonal (|v| conserved) and c = 0; components 1 and w
//    pass through exactly.
// 2. Lane maps (f64 m16n8k8, m16n8k4, m8n8k4): the lanes' T values cover
//    the 8x8 matrix once; accumulator element i of lane (g, t) is component
//    2t + (i & 1) of particle g + 8 (i >> 1).
// 3. A block push on a simulated warp: state from pairs, A from D through
//    the reuse sources of frag/reuse.cuh, tcore::mma_emulated (the cuda_core
//    backend's arithmetic), several steps, against the classical step.
// 4. cell_field is the centre value of a field linear in x, y, z; the CPU
//    push conserves |v| in a pure magnetic field; grid_for and particles.
#include "common/test_util.hpp"

#include "examples/pic/pic_host.hpp"

#include <tcore/patterns/boris.cuh>

#include <cmath>
#include <limits>
#include <cstdio>
#include <set>
#include <vector>

using tcore::test::rng;
using tcore::test::tally;
namespace tbo = tcore::boris;
namespace px = tcore::examples::pic;

namespace {

void random_fields(rng& r, double E[3], double B[3])
{
    for (int i = 0; i < 3; ++i) E[i] = r.uniform(-0.3, 0.3), B[i] = r.uniform(-2, 2);
}

void check_affine(tally& t, rng& r)
{
    double worst = 0, worst_rot = 0, worst_pass = 0;
    for (int it = 0; it < 500; ++it) {
        double E[3], B[3], R[3][3], c[3];
        random_fields(r, E, B);
        if (it % 5 == 0) E[0] = E[1] = E[2] = 0;
        const double dt = r.uniform(0.01, 0.5), h = 0.5 * r.uniform(-2, 2) * dt;
        tbo::boris_affine(E, B, h, R, c);
        double state[8];
        for (double& s : state) s = r.uniform(-3, 3);
        state[tbo::comp_one] = 1.0;
        double next[8];
        for (int o = 0; o < 8; ++o) {
            double sum = 0;
            for (int i = 0; i < 8; ++i) sum += state[i] * tbo::transform_entry(R, c, dt, i, o);
            next[o] = sum;
        }
        if (it == 0 && tcore::test::planted("nan_result")) next[1] = std::numeric_limits<double>::quiet_NaN();
        double v[3] = {state[0], state[1], state[2]}, x[3] = {state[4], state[5], state[6]};
        tbo::boris_step(v, x, E, B, h, dt);
        for (int i = 0; i < 3; ++i) {
            worst = tcore::test::worst_of(worst, std::fabs(next[i] - v[i]));
            worst = tcore::test::worst_of(worst, std::fabs(next[4 + i] - x[i]));
        }
        worst_pass = tcore::test::worst_of(worst_pass, std::fabs(next[3] - 1.0) + std::fabs(next[7] - state[7]));
        if (E[0] == 0 && E[1] == 0 && E[2] == 0) {
            for (int i = 0; i < 3; ++i) {
                worst_rot = tcore::test::worst_of(worst_rot, std::fabs(c[i]));
                for (int j = 0; j < 3; ++j) {
                    double d = 0;
                    for (int k = 0; k < 3; ++k) d += R[k][i] * R[k][j];
                    worst_rot = tcore::test::worst_of(worst_rot, std::fabs(d - (i == j)));
                }
            }
        }
    }
    t.check(worst < 1e-13, "state * T differs from the Boris step by %g", worst);
    t.check(worst_rot < 1e-14, "pure magnetic field: R not orthogonal or c != 0 (%g)", worst_rot);
    t.check(worst_pass == 0, "components 1 / w not passed through exactly (%g)", worst_pass);
}

template <class Shape>
void check_maps(tally& t)
{
    using L = tbo::block_layout<Shape>;
    std::set<int> entries;
    int bad_acc = 0;
    for (int lane = 0; lane < 32; ++lane) {
        for (int v = 0; v < 2; ++v) {
            const tcore::coord e = L::b_entry(lane, v);
            entries.insert(e.row * 8 + e.col);
        }
        for (int i = 0; i < Shape::c_count; ++i)
            bad_acc += L::comp_of_acc(lane, i) != 2 * (lane & 3) + (i & 1) ||
                       L::particle_of_acc(lane, i) != (lane >> 2) + 8 * (i >> 1);
    }
    t.check(entries.size() == 64, "%s: lanes' T values cover %zu of 64 entries", Shape::name(), entries.size());
    t.check(bad_acc == 0, "%s: accumulator map not as the loads assume (%d)", Shape::name(), bad_acc);
}

template <class T, int Count>
struct lane_reader {
    const T (*lanes)[Count];
    __host__ __device__ T operator()(int src, int i) const { return lanes[src][i]; }
};

template <class Shape>
tcore::reuse_home a_source(int lane, int i, int kb)
{
    return tcore::f64_relabel_source<Shape>(lane, i, kb);
}

template <class Shape>
void check_block_push(tally& t, rng& r)
{
    using L = tbo::block_layout<Shape>;
    constexpr int P = L::particles, steps = 9;
    double E[3], B[3], R[3][3], c[3];
    random_fields(r, E, B);
    const double dt = 0.07, h = 0.5 * -1.3 * dt;
    tbo::boris_affine(E, B, h, R, c);
    std::vector<double> particles(P * 8);
    for (int p = 0; p < P; ++p) {
        for (int k = 0; k < 8; ++k) particles[p * 8 + k] = r.uniform(-2, 2);
        particles[p * 8 + 3] = 1.0;
    }
    double d[32][Shape::c_count];
    double b[L::k_blocks][32][Shape::b_count];
    for (int lane = 0; lane < 32; ++lane) {
        double2 pairs[L::pairs];
        for (int q = 0; q < L::pairs; ++q) {
            const int p = (lane >> 2) + 8 * q;
            pairs[q] = make_double2(particles[p * 8 + 2 * (lane & 3)], particles[p * 8 + 2 * (lane & 3) + 1]);
        }
        const tcore::frag_c<Shape> f = tbo::state_from_pairs<Shape>(pairs);
        for (int i = 0; i < Shape::c_count; ++i) d[lane][i] = f.x[i];
        double tv[2];
        tbo::transform_values<Shape>(lane, R, c, dt, tv);
        const double2 t2 = make_double2(tv[0], tv[1]);
        const tcore::frag_b<Shape> b0 = tbo::transform_fragment<Shape, 0>(t2);
        for (int j = 0; j < Shape::b_count; ++j) b[0][lane][j] = b0.x[j];
        if constexpr (L::k_blocks == 2) {
            const tcore::frag_b<Shape> b1 = tbo::transform_fragment<Shape, 1>(t2);
            for (int j = 0; j < Shape::b_count; ++j) b[1][lane][j] = b1.x[j];
        }
    }
    for (int s = 0; s < steps; ++s) {
        double acc[32][Shape::c_count] = {};
        for (int kb = 0; kb < L::k_blocks; ++kb) {
            double a[32][Shape::a_count];
            for (int lane = 0; lane < 32; ++lane)
                for (int i = 0; i < Shape::a_count; ++i) a[lane][i] = d[lane][a_source<Shape>(lane, i, kb).index];
            for (int lane = 0; lane < 32; ++lane)
                tcore::mma_emulated<Shape>(lane, acc[lane], lane_reader<double, Shape::a_count>{a},
                                           lane_reader<double, Shape::b_count>{b[kb]});
        }
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < Shape::c_count; ++i) d[lane][i] = acc[lane][i];
    }
    double worst = 0;
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < Shape::c_count; ++i) {
            const int p = L::particle_of_acc(lane, i), k = L::comp_of_acc(lane, i);
            double v[3] = {particles[p * 8], particles[p * 8 + 1], particles[p * 8 + 2]};
            double x[3] = {particles[p * 8 + 4], particles[p * 8 + 5], particles[p * 8 + 6]};
            for (int s = 0; s < steps; ++s) tbo::boris_step(v, x, E, B, h, dt);
            const double ref = k < 3 ? v[k] : (k == 3 ? 1.0 : (k < 7 ? x[k - 4] : particles[p * 8 + 7]));
            worst = tcore::test::worst_of(worst, std::fabs(d[lane][i] - ref));
        }
    t.check(worst < 1e-12, "%s: simulated block push off by %g after %d steps", Shape::name(), worst, steps);
}

void check_host(tally& t)
{
    // cell_field of a linear field is its value at the cell centre.
    px::setup s;
    s.grid = {4, 3, 2};
    s.nodes.assign(static_cast<std::size_t>(s.grid.nodes()) * 6, 0.0);
    for (int k = 0; k <= 2; ++k)
        for (int j = 0; j <= 3; ++j)
            for (int i = 0; i <= 4; ++i)
                for (int q = 0; q < 6; ++q)
                    s.nodes[static_cast<std::size_t>(((k * 4 + j) * 5 + i) * 6 + q)] = (q + 1) * i + 2.0 * j - 0.5 * q * k + q;
    double worst = 0;
    for (long long cell = 0; cell < s.grid.cells(); ++cell) {
        double E[3], B[3];
        px::cell_field(s.nodes.data(), s.grid, cell, E, B);
        const double ci = cell % 4 + 0.5, cj = (cell / 4) % 3 + 0.5, ck = cell / 12 + 0.5;
        for (int q = 0; q < 6; ++q) {
            const double want = (q + 1) * ci + 2.0 * cj - 0.5 * q * ck + q;
            worst = tcore::test::worst_of(worst, std::fabs((q < 3 ? E[q] : B[q - 3]) - want));
        }
    }
    t.check(worst < 1e-12, "cell_field is not the centre value of a linear field (%g)", worst);

    px::setup m;
    m.grid = px::grid_for(64 * 2048, 64);
    t.check(m.grid.nx == 32 && m.grid.ny == 32 && m.grid.nz == 2, "grid_for(131072, 64)");
    m.grid = {8, 4, 2};
    m.ppc = 32;
    px::make_fields(m, 1.0, 0.2, 0.0);  // pure magnetic field
    px::make_particles(m);
    t.check(m.n() == 64 * 32 && m.particles[3] == 1.0 && m.particles[8 * 100 + 7] == 100.0, "make_particles layout");
    bool in_cell = true;
    for (long long p = 0; p < m.n(); ++p) {
        const long long cell = p / m.ppc;
        in_cell = in_cell && std::floor(m.particles[p * 8 + 4]) == cell % 8 && std::floor(m.particles[p * 8 + 5]) == (cell / 8) % 4;
    }
    t.check(in_cell, "particles not inside their cells");
    const std::vector<double> after = px::cpu_push(m, m.particles, 2000);
    const double drift = px::max_energy_drift(m.particles, after);
    t.check(drift < 1e-12, "CPU push in a pure magnetic field changes |v|^2 by %g (relative) over 2000 steps", drift);
}

}  // namespace

int main()
{
    tally t;
    rng r(tcore::test::seed());
    check_affine(t, r);
    check_maps<tcore::f64_m16n8k8>(t);
    check_maps<tcore::f64_m16n8k4>(t);
    check_maps<tcore::f64_m8n8k4>(t);
    check_block_push<tcore::f64_m16n8k8>(t, r);
    check_block_push<tcore::f64_m16n8k4>(t, r);
    check_block_push<tcore::f64_m8n8k4>(t, r);
    check_host(t);
    return t.finish();
}
