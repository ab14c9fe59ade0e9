// libs: CUDA::cusparse
// tests/gpu/test_spmv.cu - every SpMV variant against the FP64 CPU reference.
//
// Variants: tc and cc (f64_m8n8k4, f64_m16n8k8, f64_m16n8k16 layouts on the
// tensor_core and cuda_core backends), cce (the policy spmv_cce of
// examples/spmv/spmv_cce.cuh through run_with), and the cuSPARSE baselines:
// CSR ALG1 with and without cusparseSpMV_preprocess, and the other forms of
// the benchmark (CSR ALG2; BSR converted on the
// device at blocks 2, 3, 4, 8 and the automatic choice; SELL-32 converted on
// the device; x and y padded by the largest block). Matrices:
// every test matrix (tests/data/matrices, and
// bcsstk13 and cryg2500 from ../shared/data/matrices where present), every generator class,
// and edge cases: 0 x 0, all rows empty, empty rows mixed in, one row, one
// column, a single dense row among short ones, rectangular shapes both
// ways, only short rows, long rows of one and of many pieces, lengths that
// are not multiples of 4, 8, 16, 32 or the piece size, x of length 0, a NaN
// and an Inf among A's values (their rows NaN and +-Inf, the others as
// usual: a value reaches only its own row's y).
// Slab matrices (sparse::slab_width_for: the banded class, cryg2500,
// jagmesh7 and rows of every width 1 to 12, 1001 rows) run the slab
// kernel with 2, 4 and 16 slabs a warp and the automatic choice, and
// accumulating into a random y (their column panels do not qualify as
// slabs); every other packing below is of the row classes
// (dasp_options::slabs off), so those matrices run both.
// Each packing is tried with the default options and with small long-row
// thresholds (many long rows and pieces), with 1, 3 and an automatic
// number of medium groups per warp, and with bundles of 2, 3, 4 and 8
// identical rows (and the automatic choice), and with medium rows sorted in
// windows of 7 rows. y is poisoned (NaN) before every run, cuSPARSE's too;
// every run is repeated and must give bit-identical results (the long-row
// counters must reset).
// Error bound per row r of length len, S_r = sum_p |a_p x_p|, u = 2^-53:
// the device forms len products and adds them in some tree of len - 1
// additions (MMA tiles, row pieces, bundles, column panels added into y),
// each rounded once (an FMA once for both), so its error is at most
// gamma_len S_r (gamma_n = n u / (1 - n u)); the reference
// (sparse::spmv_reference, double, left to right) errs by at most the same:
// tol_r = 2 gamma_len S_r (0 for an empty row: y must be exactly 0).
// Planted faults (TCORE_TEST_PLANT, tests/gpu/plant.sh): nan_result (a row
// made NaN), drop_term (a row lacks one product), unwritten (the cuSPARSE
// run left out: its y stays poisoned), zero_checks, device_error.
// Bad arguments (null or misaligned x or y, unsorted columns, a bad option)
// must throw tcore::error.
#include "common/test_util.hpp"

#include "examples/spmv/cusparse_baseline.cuh"
#include "examples/spmv/cusparse_spmv.cuh"
#include "examples/spmv/spmv_cce.cuh"

#include <tcore/io/matrix_market.hpp>
#include <tcore/patterns/device/spmv.cuh>
#include <tcore/sparse/generate.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace tcore;
using tcore::test::device_buffer;
using tcore::test::tally;
namespace base = tcore::examples::sparse_base;
using tcore::examples::spmv::spmv_cce;

namespace {

tally t;

struct named {
    std::string name;
    sparse::csr a;
};

std::vector<named> matrices(bool quick)
{
    using namespace sparse::gen;
    std::vector<named> m;
    const char* files[] = {"bcsstk13", "cryg2500", "olm1000", "jagmesh7", "west0067", "lp_afiro", "LFAT5"};
    for (const char* f : files) {
        const std::string path = tcore::test::shipped_matrix(f);
        if (path.empty()) {
            t.skip("matrix %s not found (tests/data/matrices, ../shared/data/matrices)", f);
            continue;
        }
        try {
            m.push_back({f, io::read_matrix_market(path)});
        } catch (const std::exception& e) {
            t.check(false, "reading %s: %s", f, e.what());
        }
    }
    for (const matrix_class c : all_classes()) m.push_back({class_name(c), generate(c, quick ? 20000 : 60000, 5)});
    m.push_back({"0x0", sparse::csr{}});
    m.push_back({"all empty 100x37", random_rows(100, 37, 0, 0, 1)});
    m.push_back({"x of length 0 (9x0)", random_rows(9, 0, 0, 0, 1)});
    m.push_back({"1x1", random_rows(1, 1, 1, 1, 2)});
    m.push_back({"one row 1x5000 dense", random_rows(1, 5000, 5000, 5000, 3)});
    m.push_back({"one row 1x70", random_rows(1, 70, 0, 70, 4)});
    m.push_back({"one column 1003x1", random_rows(1003, 1, 0, 1, 5)});
    m.push_back({"rectangular 333x41", random_rows(333, 41, 0, 30, 6)});
    m.push_back({"rectangular 37x9001", random_rows(37, 9001, 0, 6000, 7)});
    m.push_back({"short only 2051x300", random_rows(2051, 300, 1, 4, 8)});
    m.push_back({"lengths 0-4 1999x500", random_rows(1999, 500, 0, 4, 9)});
    m.push_back({"medium 5-40 1001x2000", random_rows(1001, 2000, 5, 40, 10)});
    m.push_back({"medium 5-11 3001x3001 (groups of 1-2 blocks)", random_rows(3001, 3001, 5, 11, 12)});
    m.push_back({"mixed 0-3000 517x4103", random_rows(517, 4103, 0, 3000, 11)});
    for (const int w : {1, 2, 3, 4, 5, 7, 8, 9, 11, 12})  // slabs of every full / partial split (1001 rows)
        m.push_back({"slab rows " + std::to_string(w - w / 4) + "-" + std::to_string(w) + " 1001x997",
                     random_rows(1001, 997, w - w / 4, w, 20 + w)});
    {
        // A NaN and an Inf among A's values (rows 100 and 200): y of those
        // rows NaN and +-Inf, every other row as usual.
        sparse::csr a = random_rows(301, 200, 1, 40, 14);
        a.values[static_cast<std::size_t>(a.row_ptr[100])] = std::numeric_limits<double>::quiet_NaN();
        a.values[static_cast<std::size_t>(a.row_ptr[200])] = std::numeric_limits<double>::infinity();
        m.push_back({"NaN and Inf values 301x200", a});
    }
    {
        // One dense row (row 40) among short rows.
        sparse::csr a = random_rows(97, 2500, 0, 3, 12);
        const sparse::csr d = random_rows(1, 2500, 2500, 2500, 13);
        sparse::csr out;
        out.rows = a.rows;
        out.cols = a.cols;
        for (int r = 0; r < a.rows; ++r) {
            const sparse::csr& src = r == 40 ? d : a;
            const int sr = r == 40 ? 0 : r;
            for (int p = src.row_ptr[sr]; p < src.row_ptr[sr + 1]; ++p) {
                out.col_idx.push_back(src.col_idx[p]);
                out.values.push_back(src.values[p]);
            }
            out.row_ptr.push_back(static_cast<int>(out.col_idx.size()));
        }
        m.push_back({"single dense row 97x2500", out});
    }
    return m;
}

struct variant {
    const char* name;
    std::function<void(const dasp_spmv&, const double*, double*)> run;
};

const variant variants[] = {
    {"tc m8n8k4", [](const dasp_spmv& s, const double* x, double* y) { s.run<tensor_core, f64_m8n8k4>(x, y); }},
    {"tc m16n8k8", [](const dasp_spmv& s, const double* x, double* y) { s.run<tensor_core, f64_m16n8k8>(x, y); }},
    {"tc m16n8k16", [](const dasp_spmv& s, const double* x, double* y) { s.run<tensor_core, f64_m16n8k16>(x, y); }},
    {"cc m8n8k4", [](const dasp_spmv& s, const double* x, double* y) { s.run<cuda_core, f64_m8n8k4>(x, y); }},
    {"cc m16n8k8", [](const dasp_spmv& s, const double* x, double* y) { s.run<cuda_core, f64_m16n8k8>(x, y); }},
    {"cc m16n8k16", [](const dasp_spmv& s, const double* x, double* y) { s.run<cuda_core, f64_m16n8k16>(x, y); }},
    {"cce", [](const dasp_spmv& s, const double* x, double* y) { s.run_with<spmv_cce, f64_m8n8k4>(x, y); }},
};

/// Compares y with the reference row by row; returns the number of bad rows.
/// y0 (accumulating runs): the y the run added to; the reference is then
/// y0 + ref and the bound 2 gamma_{len+1} (S_r + |y0_r|), one addition more.
int compare(const sparse::csr& a, const std::vector<double>& x, const std::vector<double>& ref,
            std::vector<double> got, const std::string& what, const std::vector<double>* y0 = nullptr)
{
    for (int r = 0; r < a.rows && !got.empty(); ++r)  // the first row of two or more entries
        if (a.row_length(r) >= 2) {
            const int p = a.row_ptr[r] + a.row_length(r) / 2;
            if (tcore::test::planted("nan_result")) got[r] = std::numeric_limits<double>::quiet_NaN();
            if (tcore::test::planted("drop_term")) got[r] -= a.values[p] * x[a.col_idx[p]];
            break;
        }
    int bad = 0;
    for (int r = 0; r < a.rows; ++r) {
        double mag = y0 ? std::fabs((*y0)[r]) : 0.0;
        for (int p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p) mag += std::fabs(a.values[p] * x[a.col_idx[p]]);
        const double tol = 2.0 * tcore::test::gamma(a.row_length(r) + (y0 ? 1 : 0), DBL_EPSILON / 2) * mag;
        const double expected = y0 ? (*y0)[r] + ref[r] : ref[r];
        if (!tcore::test::close(got[r], expected, tol)) {
            if (++bad <= 3)
                t.check(false, "%s: row %d (len %d): got %.17g, expected %.17g (tol %.3g)", what.c_str(), r,
                        a.row_length(r), got[r], expected, tol);
        }
    }
    return bad;
}

/// Expects f() to throw tcore::error containing `needle` (tally::expect_error).
template <class F>
void expect_error(F&& f, const char* needle, const char* what)
{
    t.expect_error(what, std::forward<F>(f), needle);
}

int fitted_runs = 0, whole_runs = 0;  // dasp_spmv runs with fitted first steps and with whole ones
int slab_runs = 0;                    // dasp_spmv runs of the slab kernel
int group_pair_runs = 0, tile_pair_runs = 0;  // runs of the pair paths (medium groups, short tiles)

void test_matrix(const named& m, tcore::test::rng& rng)
{
    const sparse::csr& a = m.a;
    std::vector<double> x(static_cast<std::size_t>(a.cols));
    for (double& v : x) v = rng.nonzero();
    const std::vector<double> ref = sparse::spmv_reference(a, x);
    device_buffer<double> dx(x.size()), dy(static_cast<std::size_t>(a.rows));
    dx.upload(x);

    // {2048, 512, 0, ..., 1}: automatic bundles as on a device of one warp (forms them on small matrices).
    const sparse::dasp_options opts[] = {{},           {5, 128},      {40, 256},      {2048, 512, 0, 32, 1 << 16, 1},
                                         {2048, 512, 2}, {40, 256, 3}, {2048, 512, 4}, {2048, 512, 8},
                                         {2048, 512, 1, 3}, {256, 512, 1, 32, 7}};
    auto run_checked = [&](const dasp_spmv& s, const variant& v, const std::string& what) {
        try {
            dy.poison();
            v.run(s, dx.ptr, dy.ptr);
            TCORE_CHECK(cudaDeviceSynchronize());
            const std::vector<double> y1 = dy.download();
            dy.poison();
            v.run(s, dx.ptr, dy.ptr);
            TCORE_CHECK(cudaDeviceSynchronize());
            const std::vector<double> y2 = dy.download();
            const int bad = compare(a, x, ref, y1, what);
            t.check(bad == 0, "%s: %d rows wrong", what.c_str(), bad);
            t.check(y1.empty() || std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(double)) == 0,
                    "%s: a second run differs", what.c_str());
        } catch (const std::exception& e) {
            t.check(false, "%s: %s", what.c_str(), e.what());
        }
    };
    const int slab_width = sparse::slab_width_for(a);
    for (const int spw : {2, 3, 16, 0}) {  // slabs a warp (3: rounded up to 4; 0: automatic)
        if (slab_width == 0) break;
        dasp_spmv s(a);
        s.set_work_per_warp(spw, 0);
        t.check(s.slab_width() == slab_width && s.slabs_per_warp() % 2 == 0 &&
                    (spw == 0 || s.slabs_per_warp() == spw + spw % 2),
                "%s: slab width %d (expected %d), %d slabs a warp", m.name.c_str(), s.slab_width(), slab_width,
                s.slabs_per_warp());
        for (const variant& v : variants) {
            run_checked(s, v, m.name + " [" + v.name + ", slabs of " + std::to_string(s.slab_width()) + ", " +
                                  std::to_string(s.slabs_per_warp()) + " a warp]");
            ++slab_runs;
        }
        // accumulate: y = y0 + A x over a random y0 (column panels of these
        // matrices do not qualify as slabs, so this is the slab kernel's only
        // accumulating run)
        std::vector<double> y0(static_cast<std::size_t>(a.rows));
        for (double& v : y0) v = rng.nonzero();
        using acc_run = void (*)(const dasp_spmv&, const double*, double*);
        const std::pair<const char*, acc_run> acc_runs[] = {
            {"tc", [](const dasp_spmv& p, const double* x, double* y) { p.run<tensor_core>(x, y, nullptr, true); }},
            {"cc", [](const dasp_spmv& p, const double* x, double* y) { p.run<cuda_core>(x, y, nullptr, true); }},
            {"cce", [](const dasp_spmv& p, const double* x, double* y) { p.run_with<spmv_cce>(x, y, nullptr, true); }}};
        for (const auto& [name, run] : acc_runs) {
            dy.upload(y0);
            run(s, dx.ptr, dy.ptr);
            TCORE_CHECK(cudaDeviceSynchronize());
            const std::string what =
                m.name + " [" + name + ", slabs of " + std::to_string(s.slab_width()) + ", accumulate]";
            const int bad = compare(a, x, ref, dy.download(), what, &y0);
            t.check(bad == 0, "%s: %d rows wrong", what.c_str(), bad);
        }
    }
    for (sparse::dasp_options o : opts)
        for (const int gpw : {1, 3, 0}) {
            o.slabs = false;
            if (gpw != 1 && (o.bundle != 1 || o.long_min < 256)) continue;
            for (const bool pairs : {false, true}) {
                dasp_spmv s(a, o, nullptr, gpw);
                // Short tiles: one per warp, or 3 per warp where groups are 3 per warp
                // (2 with pairs, so that pairs form).
                s.set_work_per_warp(gpw, gpw == 3 ? 3 : pairs ? 2 : 1);
                s.set_group_pairs(pairs);
                s.set_short_pairs(pairs);
                // A move keeps every launch choice (the panels and multi-GPU parts are moved).
                const bool fitted = s.fitted_steps(), group_pairs = s.group_pairs(), short_pairs = s.short_pairs();
                dasp_spmv moved(std::move(s));
                s = std::move(moved);
                t.check(s.fitted_steps() == fitted && s.group_pairs() == group_pairs && s.short_pairs() == short_pairs,
                        "%s: a moved dasp_spmv changed its launch choices", m.name.c_str());
                for (const variant& v : variants) {
                    const std::string what =
                        m.name + " [" + v.name + (s.group_pairs() ? ", group pairs" : "") +
                        (s.short_pairs() ? ", tile pairs" : "") + ", long_min " + std::to_string(o.long_min) +
                        ", piece " + std::to_string(o.long_piece) + ", groups/warp " + std::to_string(gpw) +
                        ", tiles/warp " + std::to_string(s.tiles_per_warp()) + ", bundle " +
                        std::to_string(s.bundle()) + (s.fitted_steps() ? ", fitted steps" : "") + "]";
                    ++(s.fitted_steps() && s.bundle() == 1 ? fitted_runs : whole_runs);
                    group_pair_runs += s.group_pairs() && s.bundle() == 1 && s.medium_groups() > 1;
                    tile_pair_runs += s.short_pairs() && s.bundle() == 1 && s.short_tiles() > 1;
                    run_checked(s, v, what);
                }
            }
        }

    // Column panels: the first writes y (over the poison), the others add to it.
    for (const int panels : {2, 3}) {
        for (const bool tile_pairs : {true, false}) {
            try {
                dasp_spmv_panels s(a, panels);  // slabs where a panel qualifies
                s.set_short_pairs(tile_pairs);
                using panels_run = void (*)(const dasp_spmv_panels&, const double*, double*);
                const std::pair<const char*, panels_run> runs[] = {
                    {"tc m8n8k4",
                     [](const dasp_spmv_panels& p, const double* x, double* y) { p.run<tensor_core>(x, y); }},
                    {"tc m16n8k16",
                     [](const dasp_spmv_panels& p, const double* x, double* y) {
                         p.run<tensor_core, f64_m16n8k16>(x, y);
                     }},
                    {"cc m8n8k4",
                     [](const dasp_spmv_panels& p, const double* x, double* y) { p.run<cuda_core>(x, y); }},
                    {"cc m16n8k16",
                     [](const dasp_spmv_panels& p, const double* x, double* y) {
                         p.run<cuda_core, f64_m16n8k16>(x, y);
                     }},
                    {"cce",
                     [](const dasp_spmv_panels& p, const double* x, double* y) { p.run_with<spmv_cce>(x, y); }}};
                for (const auto& [name, run] : runs) {
                    const std::string what = m.name + " [" + name + ", " + std::to_string(s.panels()) +
                                             " column panels" + (tile_pairs ? ", tile pairs]" : "]");
                    dy.poison();
                    run(s, dx.ptr, dy.ptr);
                    TCORE_CHECK(cudaDeviceSynchronize());
                    const int bad = compare(a, x, ref, dy.download(), what);
                    t.check(bad == 0, "%s: %d rows wrong", what.c_str(), bad);
                }
            } catch (const std::exception& e) {
                t.check(false, "%s [%d column panels]: %s", m.name.c_str(), panels, e.what());
            }
        }
    }

    // cuSPARSE, with and without preprocessing, on a poisoned y (beta = 0:
    // cuSPARSE must not read y; a NaN left in y shows an unwritten row).
    try {
        base::device_csr da(a);
        for (const bool prep : {true, false}) {
            dy.poison();
            base::spmv cs(da, dx.ptr, dy.ptr, prep, nullptr);
            if (!tcore::test::planted("unwritten")) cs.run(nullptr);
            TCORE_CHECK(cudaDeviceSynchronize());
            const int bad = compare(a, x, ref, dy.download(), m.name + (prep ? " [base]" : " [base-noprep]"));
            t.check(bad == 0, "%s: cuSPARSE%s: %d rows wrong", m.name.c_str(), prep ? "" : " (no preprocess)", bad);
        }
    } catch (const std::exception& e) {
        t.check(false, "%s [base]: %s", m.name.c_str(), e.what());
    }

    // The other cuSPARSE forms of the benchmark (examples/spmv/cusparse_spmv.cuh),
    // each after cusparseSpMV_preprocess: CSR ALG2, BSR converted on the device
    // at blocks 2, 3, 4, 8 and the automatic choice, SELL-32 converted on the
    // device; x padded with zeros and y by bsr_padding(), y poisoned.
    try {
        const base::device_csr da(a);
        std::vector<double> xp(x);
        xp.resize(x.size() + base::bsr_padding(), 0.0);
        device_buffer<double> px(xp.size()), py(static_cast<std::size_t>(a.rows) + base::bsr_padding());
        px.upload(xp);
        auto check = [&](const base::spmv_op& op, const std::string& form) {
            py.poison();
            op.run(nullptr);
            TCORE_CHECK(cudaDeviceSynchronize());
            std::vector<double> got = py.download();
            got.resize(static_cast<std::size_t>(a.rows));
            const int bad = compare(a, x, ref, got, m.name + " [" + form + "]");
            t.check(bad == 0, "%s [%s]: %d rows wrong", m.name.c_str(), form.c_str(), bad);
        };
        check(base::spmv_op(da, CUSPARSE_SPMV_CSR_ALG2, px.ptr, py.ptr, true, nullptr), "base-csr2");
        const int chosen = base::choose_bsr_block(da, nullptr);
        t.check((chosen == 0) == (a.rows < 2 || a.cols < 2), "%s: BSR block %d chosen for %d x %d", m.name.c_str(),
                chosen, a.rows, a.cols);
        for (const int b : {2, 3, 4, 8, chosen}) {
            if (b == 0) continue;
            if ((b > a.rows || b > a.cols) && a.nnz() > 0) {  // csr2bsr takes blocks of 1 to min(rows, cols)
                expect_error([&] { base::to_bsr(da, b, nullptr); }, "min(rows, cols)",
                             (m.name + ": a BSR block larger than the matrix").c_str());
                continue;
            }
            const base::device_bsr bsr = base::to_bsr(da, b, nullptr);
            const base::spmv_op op(bsr, px.ptr, py.ptr, true, nullptr);
            check(op, "base-bsr " + std::to_string(b) + "x" + std::to_string(b) + (b == chosen ? " (chosen), " : ", ") +
                          op.routine());
        }
        const base::device_sell sell = base::to_sell(da, nullptr);
        check(base::spmv_op(sell, px.ptr, py.ptr, true, nullptr), "base-sell");
    } catch (const std::exception& e) {
        t.check(false, "%s [base-csr2/bsr/sell]: %s", m.name.c_str(), e.what());
    }
}

void bad_arguments()
{
    const sparse::csr a = sparse::gen::random_rows(50, 40, 0, 9, 1);
    dasp_spmv s(a);
    device_buffer<double> x(40), y(50);
    expect_error([&] { s.run(nullptr, y.ptr); }, "x is a null pointer", "null x");
    expect_error([&] { s.run(x.ptr, nullptr); }, "y is a null pointer", "null y");
    expect_error([&] { s.run(x.ptr, reinterpret_cast<double*>(reinterpret_cast<char*>(y.ptr) + 4)); }, "not aligned",
                 "misaligned y");
    expect_error([&] { dasp_spmv bad(a, {}, nullptr, -1); }, "groups_per_warp", "groups_per_warp -1");
    expect_error([&] { s.set_work_per_warp(1, -2); }, "tiles_per_warp", "tiles_per_warp -2");
    expect_error([&] { dasp_spmv_panels bad(a, 0); }, "panels must be at least 1", "0 column panels");
    expect_error([&] { dasp_spmv_panels(a, 2).set_work_per_warp(0, -1); }, "tiles_per_warp",
                 "panels: tiles_per_warp -1");
    expect_error([&] { dasp_spmv_panels().run(x.ptr, y.ptr); }, "no panels", "empty panels");
    sparse::csr unsorted = a;
    for (int r = 0; r < unsorted.rows; ++r)
        if (unsorted.row_length(r) >= 2) {
            std::swap(unsorted.col_idx[unsorted.row_ptr[r]], unsorted.col_idx[unsorted.row_ptr[r] + 1]);
            break;
        }
    expect_error([&] { dasp_spmv bad(unsorted); }, "not sorted", "unsorted columns");
    // a packed slab matrix whose arrays do not match its shape, or too wide
    sparse::dasp_format slabs = sparse::build_dasp(sparse::gen::random_rows(40, 30, 6, 7, 2));
    t.check(slabs.slab_width == 7, "bad-argument matrix packs as slabs (width %d)", slabs.slab_width);
    slabs.slab_val.pop_back();
    expect_error([&] { dasp_spmv bad(slabs); }, "slab arrays hold", "slab arrays shorter than the shape");
    slabs.slab_width = sparse::slab_max_width + 1;
    expect_error([&] { dasp_spmv bad(slabs); }, "unsupported slab width", "slab width 13");
    TCORE_CHECK(cudaDeviceSynchronize());
}

}  // namespace

int main()
{
    tcore::test::require_gpu_or_skip();
    const bool quick = tcore::test::quick();
    tcore::test::rng rng(tcore::test::seed());
    for (const named& m : matrices(quick)) test_matrix(m, rng);
    t.check(fitted_runs > 0 && whole_runs > 0, "both medium-step kinds ran (fitted %d, whole %d runs)", fitted_runs,
            whole_runs);
    t.check(slab_runs > 0, "the slab kernel ran (%d runs)", slab_runs);
    t.check(group_pair_runs > 0 && tile_pair_runs > 0, "both pair paths ran (medium groups %d, short tiles %d runs)",
            group_pair_runs, tile_pair_runs);
    bad_arguments();
    return t.finish();
}
