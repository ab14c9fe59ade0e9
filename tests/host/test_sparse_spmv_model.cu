// tests/host/test_sparse_spmv_model.cu - the SpMV kernel's warp algorithm
// (tcore/patterns/device/spmv_kernel.cuh) run on the CPU, 32 simulated lanes at a time.
//
// Each warp task of the kernel - a long-row piece, a medium group (regular
// blocks + irregular remainder), a short tile (one MMA per segment position,
// B masked), an empty row - is replayed lane by lane with the building
// blocks of tcore/patterns/spmv.cuh that run on host and device
// (diag_operands, diag_of, holds_diag, spmv_short_lane_info)
// and the very CUDA-core MMA (tcore::mma_emulated, checked against the
// hardware layouts by the fragment tests), for f64_m8n8k4, f64_m16n8k8 and
// f64_m16n8k16 (short tiles: m8n8k4 / m16n8k4) and the essential mode, and
// bundles of 2, 3, 4 and 8 identical rows (m16n8k4, B shared; helpers
// spmv_bundle_a, spmv_bundle_diag), chosen explicitly and automatically;
// and slab matrices (patterns/device/spmv_slab.cuh: the banded class and
// rows of one length), whose packings are also replayed as row classes
// (dasp_options::slabs off).
// The result must match the FP64 reference on every row and every row must
// be written. This checks the index arithmetic of the kernel without a GPU.
#include "common/test_util.hpp"

#include <tcore/io/matrix_market.hpp>
#include <tcore/patterns/device/spmv.cuh>
#include <tcore/patterns/spmv.cuh>
#include <tcore/sparse/dasp.hpp>
#include <tcore/sparse/generate.hpp>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

using namespace tcore;
using tcore::test::tally;

namespace {

tally t;

template <class T, int Count>
struct lane_reader {
    const T (*lanes)[Count];
    __host__ __device__ T operator()(int src, int i) const { return lanes[src][i]; }
};

/// The kernel's warp algorithm on the CPU; `mma` false = essential mode.
template <class Shape>
std::vector<double> model(const sparse::dasp_format& f, const std::vector<double>& x, bool mma)
{
    std::vector<double> y(static_cast<std::size_t>(f.rows), std::nan(""));
    struct warp {
        frag_c<Shape> acc[32];
        double ess[32];
        warp()
        {
            for (auto& c : acc) fill(c, 0.0);
            for (double& e : ess) e = 0.0;
        }
    };
    // spmv_accumulate, lane by lane.
    auto accumulate = [&](warp& w, const double* val, const int* col, long long base, int nblk) {
        constexpr int kb = Shape::k / 4;
        constexpr int per_iter = kb >= 4 ? kb : 4;
        for (int b0 = 0; b0 < nblk; b0 += per_iter) {
            double v[32][per_iter], xv[32][per_iter];
            for (int lane = 0; lane < 32; ++lane)
                for (int j = 0; j < per_iter; ++j) {
                    const bool in = b0 + j < nblk;
                    const long long s = base + 32LL * (b0 + j) + lane;
                    v[lane][j] = in ? val[s] : 0.0;
                    const int c = in ? col[s] : -1;
                    xv[lane][j] = c >= 0 ? x[c] : 0.0;
                }
            if (mma) {
                for (int m = 0; m < per_iter / kb; ++m) {
                    double a[32][Shape::a_count], b[32][Shape::b_count];
                    for (int lane = 0; lane < 32; ++lane) {
                        frag_a<Shape> fa;
                        frag_b<Shape> fb;
                        diag_operands<Shape>(fa, fb, v[lane] + m * kb, xv[lane] + m * kb);
                        for (int i = 0; i < Shape::a_count; ++i) a[lane][i] = fa.x[i];
                        for (int i = 0; i < Shape::b_count; ++i) b[lane][i] = fb.x[i];
                    }
                    for (int lane = 0; lane < 32; ++lane)
                        mma_emulated<Shape>(lane, w.acc[lane].x, lane_reader<double, Shape::a_count>{a},
                                            lane_reader<double, Shape::b_count>{b});
                }
            } else {
                for (int lane = 0; lane < 32; ++lane)
                    for (int j = 0; j < per_iter; ++j) w.ess[lane] = std::fma(v[lane][j], xv[lane][j], w.ess[lane]);
            }
        }
    };

    // slabs (patterns/device/spmv_slab.cuh, the same for every Shape): lane
    // (g, t) holds slot 32 b + lane of each full block and slot 32 full +
    // partial g + t (t < partial) of the partial one; one m8n8k4 MMA a block,
    // or the essential sum and the quad sum
    if (f.slab_width > 0) {
        using S8 = f64_m8n8k4;
        const sparse::slab_shape sh = sparse::make_slab_shape(f.slab_width);
        const int blocks = sh.full + (sh.partial > 0 ? 1 : 0);
        for (int slab = 0; slab < f.slab_count(); ++slab) {
            frag_c<S8> acc[32];
            double ess[32] = {};
            for (auto& c : acc) fill(c, 0.0);
            for (int b = 0; b < blocks; ++b) {
                double a[32][1], bx[32][1];
                for (int lane = 0; lane < 32; ++lane) {
                    const int g = lane >> 2, tt = lane & 3;
                    const bool full = b < sh.full;
                    const int in_slab = full ? 32 * b + lane : 32 * sh.full + sh.partial * g + tt;
                    const long long at = sh.slab_slots() * slab + in_slab;
                    const bool ok = full || tt < sh.partial;
                    const int c = ok ? f.slab_col[at] : -1;
                    a[lane][0] = ok ? f.slab_val[at] : 0.0;
                    bx[lane][0] = c >= 0 ? x[c] : 0.0;
                    ess[lane] = std::fma(a[lane][0], bx[lane][0], ess[lane]);
                }
                if (mma)
                    for (int lane = 0; lane < 32; ++lane)
                        mma_emulated<S8>(lane, acc[lane].x, lane_reader<double, 1>{a}, lane_reader<double, 1>{bx});
            }
            for (int lane = 0; lane < 32; ++lane) {
                const int row = 8 * slab + (lane >> 2), q = lane & ~3;
                if (holds_diag(lane) && row < f.rows)
                    y[row] = mma ? diag_of(acc[lane], lane) : ess[q] + ess[q + 1] + ess[q + 2] + ess[q + 3];
            }
        }
        return y;
    }

    // long pieces, then the last "warp" of a row adds the piece sums
    std::vector<double> partial(static_cast<std::size_t>(f.piece_count()));
    for (int p = 0; p < f.piece_count(); ++p) {
        warp w;
        accumulate(w, f.long_val.data(), f.long_col.data(), static_cast<long long>(p) * f.opts.long_piece,
                   f.opts.long_piece / 32);
        double sum = 0;
        for (int lane = 0; lane < 32; ++lane) sum += mma ? diag_of(w.acc[lane], lane) : w.ess[lane];
        partial[p] = sum;
    }
    for (int lr = 0; lr < f.long_count(); ++lr) {
        double sum = 0;
        for (int p = f.long_piece_ptr[lr]; p < f.long_piece_ptr[lr + 1]; ++p) sum += partial[p];
        y[f.long_rows[lr]] = sum;
    }

    // medium groups
    for (int gr = 0; gr < f.group_count(); ++gr) {
        warp w;
        const int base = f.group_ptr[gr];
        accumulate(w, f.reg_val.data(), f.reg_col.data(), base, (f.group_ptr[gr + 1] - base) >> 5);
        double s[32];
        for (int lane = 0; lane < 32; ++lane) {
            const int g = lane >> 2, tt = lane & 3, sr = 8 * gr + g;
            s[lane] = mma ? 0.0 : w.ess[lane];
            for (int p = f.irr_ptr[sr] + tt; p < f.irr_ptr[sr + 1]; p += 4)
                s[lane] = std::fma(f.irr_val[p], x[f.irr_col[p]], s[lane]);
        }
        for (int lane = 0; lane < 32; ++lane) {
            if (!holds_diag(lane)) continue;
            const int q = lane & ~3;
            double sum = s[q] + s[q + 1] + s[q + 2] + s[q + 3];
            if (mma) sum += diag_of(w.acc[lane], lane);
            const int row = f.med_rows[8 * gr + (lane >> 2)];
            if (row >= 0) y[row] = sum;
        }
    }

    // bundle groups: ceil(P/2) m16n8k4 MMAs per block, B shared
    const int P = f.bundle;
    for (int gr = 0; gr < f.bundle_group_count(); ++gr) {
        using B16 = f64_m16n8k4;
        const int Q = (P + 1) / 2;
        std::vector<frag_c<B16>> acc(static_cast<std::size_t>(32) * Q);
        for (auto& c : acc) fill(c, 0.0);
        std::vector<double> ess(static_cast<std::size_t>(32) * P, 0.0);
        const int base = f.bgroup_ptr[gr];
        const int nblk = (f.bgroup_ptr[gr + 1] - base) >> 5;
        for (int blk = 0; blk < nblk; ++blk) {
            const long long b0 = base + 32LL * blk;
            double xv[32];
            std::vector<double> v(static_cast<std::size_t>(32) * P);
            for (int lane = 0; lane < 32; ++lane) {
                const int c = f.bun_col[b0 + lane];
                xv[lane] = c >= 0 ? x[c] : 0.0;
                for (int p = 0; p < P; ++p) v[lane * P + p] = f.bun_val[P * b0 + 32 * p + lane];
            }
            if (mma) {
                for (int q = 0; q < Q; ++q) {
                    double a[32][B16::a_count], b[32][B16::b_count];
                    for (int lane = 0; lane < 32; ++lane) {
                        frag_a<B16> fa;
                        switch (P) {
                        case 2: fa = spmv_bundle_a<2>(&v[lane * P], q); break;
                        case 3: fa = spmv_bundle_a<3>(&v[lane * P], q); break;
                        case 4: fa = spmv_bundle_a<4>(&v[lane * P], q); break;
                        default: fa = spmv_bundle_a<8>(&v[lane * P], q); break;
                        }
                        for (int i = 0; i < B16::a_count; ++i) a[lane][i] = fa.x[i];
                        b[lane][0] = xv[lane];
                    }
                    for (int lane = 0; lane < 32; ++lane)
                        mma_emulated<B16>(lane, acc[lane * Q + q].x, lane_reader<double, B16::a_count>{a},
                                          lane_reader<double, B16::b_count>{b});
                }
            } else {
                for (int lane = 0; lane < 32; ++lane)
                    for (int p = 0; p < P; ++p) ess[lane * P + p] = std::fma(v[lane * P + p], xv[lane], ess[lane * P + p]);
            }
        }
        for (int p = 0; p < P; ++p) {
            double s[32];
            for (int lane = 0; lane < 32; ++lane) {
                const int idx = (8 * gr + (lane >> 2)) * P + p;
                s[lane] = mma ? 0.0 : ess[lane * P + p];
                for (int k = f.birr_ptr[idx] + (lane & 3); k < f.birr_ptr[idx + 1]; k += 4)
                    s[lane] = std::fma(f.birr_val[k], x[f.birr_col[k]], s[lane]);
            }
            for (int lane = 0; lane < 32; ++lane) {
                if (!holds_diag(lane)) continue;
                const int q4 = lane & ~3;
                double sum = s[q4] + s[q4 + 1] + s[q4 + 2] + s[q4 + 3];
                if (mma) sum += spmv_bundle_diag(acc[lane * Q + p / 2], (p & 1) != 0, lane);
                const int row = f.bun_rows[(8 * gr + (lane >> 2)) * P + p];
                if (row >= 0) y[row] = sum;
            }
        }
    }

    // short tiles
    using S = spmv_short_shape_t<Shape>;
    for (int tile = 0; tile < f.tile_count(); ++tile) {
        double v[32], xv[32];
        spmv_short_lane info[32];
        int most = 0;
        for (int lane = 0; lane < 32; ++lane) {
            const std::size_t slot = 32 * static_cast<std::size_t>(tile) + lane;
            v[lane] = f.short_val[slot];
            xv[lane] = f.short_col[slot] >= 0 ? x[f.short_col[slot]] : 0.0;
            info[lane] = spmv_short_lane_info(f.tile_mask[tile], lane);
            most = std::max(most, info[lane].nseg);
        }
        for (int j = 0; j < most; ++j) {
            double res[32];
            if (mma) {
                double a[32][S::a_count], b[32][S::b_count];
                for (int lane = 0; lane < 32; ++lane) {
                    frag_a<S> fa;
                    frag_b<S> fb;
                    const double xs = info[lane].seg == j ? xv[lane] : 0.0;
                    diag_operands<S>(fa, fb, &v[lane], &xs);
                    for (int i = 0; i < S::a_count; ++i) a[lane][i] = fa.x[i];
                    for (int i = 0; i < S::b_count; ++i) b[lane][i] = fb.x[i];
                }
                for (int lane = 0; lane < 32; ++lane) {
                    frag_c<S> d;
                    fill(d, 0.0);
                    mma_emulated<S>(lane, d.x, lane_reader<double, S::a_count>{a}, lane_reader<double, S::b_count>{b});
                    res[lane] = diag_of(d, lane);
                }
            } else {
                for (int lane = 0; lane < 32; ++lane) {
                    const int q = lane & ~3;
                    res[lane] = 0;
                    for (int k = 0; k < 4; ++k) res[lane] += info[q + k].seg == j ? v[q + k] * xv[q + k] : 0.0;
                }
            }
            for (int lane = 0; lane < 32; ++lane)
                if (holds_diag(lane) && j < info[lane].nseg)
                    y[f.short_rows[f.tile_row_ptr[tile] + info[lane].out + j]] = res[lane];
        }
    }
    for (const int r : f.empty_rows) y[r] = 0.0;
    return y;
}

/// The resident warps the packing heuristics assume on the CPU, where no
/// device can be asked (a 132-SM GPU's 132 x 32).
constexpr int host_resident_warps = 132 * 32;

void check(const std::string& name, const sparse::csr& a, sparse::dasp_options o, tcore::test::rng& rng)
{
    if (o.resident_warps == 0) o.resident_warps = host_resident_warps;
    std::vector<double> x(static_cast<std::size_t>(a.cols));
    for (double& v : x) v = rng.nonzero();
    const std::vector<double> ref = sparse::spmv_reference(a, x);
    for (const bool slabs : {true, false}) {  // a slab-eligible matrix: slabs, then the row classes
        if (slabs && !(o.slabs && sparse::slab_width_for(a) > 0)) continue;
        sparse::dasp_options po = o;
        po.slabs = slabs;
        const sparse::dasp_format f = sparse::build_dasp(a, po);
        if (name == "fem3d" && (o.bundle == 0 || o.bundle == 2 || o.bundle == 3))
            t.check(f.bundle_group_count() > 0 && (o.bundle != 0 || f.bundle == 3),
                    "fem3d: bundles formed (requested %d, got %d, %d groups)", o.bundle, f.bundle,
                    f.bundle_group_count());
        if (name == "banded" || name.rfind("rows of", 0) == 0)
            t.check((f.slab_width > 0) == slabs, "%s: slabs %s", name.c_str(), slabs ? "formed" : "off");
        auto run = [&](const char* what, const std::vector<double>& y) {
            int bad = 0;
            for (int r = 0; r < a.rows; ++r) {
                double mag = 0;
                for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) mag += std::fabs(a.values[p] * x[a.col_idx[p]]);
                const double tol = 8.0 * (a.row_length(r) + 8) * DBL_EPSILON * mag;
                if (!(std::fabs(y[r] - ref[r]) <= tol) && ++bad <= 3)
                    t.check(false, "%s [%s, long_min %d, bundle %d, slab width %d]: row %d (len %d) got %.17g "
                                   "expected %.17g",
                            name.c_str(), what, o.long_min, f.bundle, f.slab_width, r, a.row_length(r), y[r], ref[r]);
            }
            t.check(bad == 0, "%s [%s, long_min %d, bundle %d, slab width %d]: %d rows wrong", name.c_str(), what,
                    o.long_min, f.bundle, f.slab_width, bad);
        };
        run("m8n8k4", model<f64_m8n8k4>(f, x, true));
        run("m16n8k8", model<f64_m16n8k8>(f, x, true));
        run("m16n8k16", model<f64_m16n8k16>(f, x, true));
        run("essential", model<f64_m8n8k4>(f, x, false));
    }
}

/// The fitted-steps rule (dasp_fitted_steps): at least 9 in 10 medium
/// groups of at most 2 blocks; on hand-made group tables at the threshold
/// and on packed matrices of short and of long rows.
void check_fitted_rule()
{
    auto table = [](int short_groups, int long_groups) {
        sparse::dasp_format f;
        f.group_ptr.assign(1, 0);
        for (int i = 0; i < short_groups + long_groups; ++i)
            f.group_ptr.push_back(f.group_ptr.back() + (i < short_groups ? 32 * (1 + i % 2) : 96));
        return f;
    };
    t.check(!dasp_fitted_steps(table(0, 0)), "no medium groups: whole steps");
    t.check(dasp_fitted_steps(table(9, 1)), "9 of 10 groups of 1-2 blocks: fitted");
    t.check(!dasp_fitted_steps(table(17, 2)), "17 of 19 groups: whole steps");
    t.check(dasp_fitted_steps(table(90, 10)), "90 of 100 groups: fitted");
    t.check(!dasp_fitted_steps(table(89, 11)), "89 of 100 groups: whole steps");
    sparse::dasp_options o;
    o.resident_warps = host_resident_warps;
    // the GPU test's case "medium 5-11 3001x3001": groups of 1 and of 2 blocks, so its fitted kernels
    // run both short first steps (1 and 2 blocks for m8n8k4)
    const sparse::dasp_format shortrows = sparse::build_dasp(sparse::gen::random_rows(3001, 3001, 5, 11, 12), o);
    int one_block = 0, two_blocks = 0;
    for (int i = 0; i < shortrows.group_count(); ++i) {
        const int slots = shortrows.group_ptr[i + 1] - shortrows.group_ptr[i];
        one_block += slots == 32, two_blocks += slots == 64;
    }
    t.check(one_block > 0 && two_blocks > 0, "rows of 5-11 entries: groups of 1 block (%d) and of 2 (%d)", one_block,
            two_blocks);
    const sparse::dasp_format longrows = sparse::build_dasp(sparse::gen::random_rows(4001, 4001, 20, 40, 13), o);
    t.check(shortrows.group_count() > 0 && dasp_fitted_steps(shortrows), "rows of 5-11 entries: fitted (%d groups)",
            shortrows.group_count());
    t.check(longrows.group_count() > 0 && !dasp_fitted_steps(longrows), "rows of 20-40 entries: whole steps (%d groups)",
            longrows.group_count());
}

}  // namespace

int main()
{
    check_fitted_rule();
    using namespace sparse::gen;
    tcore::test::rng rng(tcore::test::seed());
    struct named {
        std::string name;
        sparse::csr a;
    };
    std::vector<named> ms;
    for (const matrix_class c : all_classes()) ms.push_back({class_name(c), generate(c, 20000, 3)});
    for (const char* f : {"west0067", "lp_afiro"}) {
        const std::string p = tcore::test::shipped_matrix(f);
        if (p.empty()) t.skip("matrix %s not found (tests/data/matrices)", f);
        else ms.push_back({f, io::read_matrix_market(p)});
    }
    ms.push_back({"0x0", sparse::csr{}});
    ms.push_back({"all empty 33x5", random_rows(33, 5, 0, 0, 1)});
    ms.push_back({"one row 1x2100", random_rows(1, 2100, 2100, 2100, 2)});
    ms.push_back({"one column 50x1", random_rows(50, 1, 0, 1, 3)});
    ms.push_back({"rectangular 131x17", random_rows(131, 17, 0, 17, 4)});
    ms.push_back({"rectangular 9x1300", random_rows(9, 1300, 0, 1300, 5)});
    ms.push_back({"lengths 0-4 203x60", random_rows(203, 60, 0, 4, 6)});
    ms.push_back({"mixed 0-700 97x800", random_rows(97, 800, 0, 700, 7)});
    for (const int w : {3, 7, 12})  // slabs of a partial block only, of full and partial, of full blocks only
        ms.push_back({"rows of " + std::to_string(w) + " 1003x500", random_rows(1003, 500, w, w, 8 + w)});
    for (const named& m : ms) {
        check(m.name, m.a, {}, rng);
        check(m.name, m.a, {5, 128}, rng);
        check(m.name, m.a, {37, 256}, rng);
        for (const int p : {0, 2, 3, 4, 8}) check(m.name, m.a, {2048, 512, p, 32, 1 << 16, 1}, rng);  // bundles
        // The automatic choice on a device of more warps than the groups can fill: no bundles.
        const sparse::dasp_format few = sparse::build_dasp(m.a, {2048, 512, 0, 32, 1 << 16, host_resident_warps});
        t.check(few.bundle == 1 || 2LL * few.bundle_group_count() >= host_resident_warps,
                "%s: automatic bundles only with groups for half the resident warps (P %d, %d groups)",
                m.name.c_str(), few.bundle, few.bundle_group_count());
    }
    return t.finish();
}
