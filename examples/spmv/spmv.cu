// examples/spmv/spmv.cu - the SpMV workload: y = A x in FP64 (Quadrant IV).
//
// Variants (tcore/patterns/device/spmv.cuh: dasp_spmv, the launcher of the
// row-block building blocks of tcore/patterns/spmv.cuh):
//   base-csr1     cuSPARSE cusparseSpMV, CSR, CUSPARSE_SPMV_CSR_ALG1, after
//                 cusparseSpMV_preprocess (the fair setting; "base" before)
//   base-csr1-noprep
//                 the same without cusparseSpMV_preprocess
//   base-csr2     CSR, CUSPARSE_SPMV_CSR_ALG2, after preprocessing
//   base-bsr      BSR (CSR -> BSR on the device with cusparseDcsr2bsr; the
//                 block of 2, 3, 4, 6 or 8 whose copy is smallest: the
//                 natural block where a matrix has one), cusparseSpMV BSR_ALG1 (or
//                 cusparseDbsrmv where cuSPARSE lacks it), after
//                 preprocessing; skipped where the best block stores over
//                 1.5 values per nonzero (the summary says so)
//   base-sell     sliced ELLPACK, slices of 32 rows (CSR -> SELL by two
//                 kernels and a CUB scan on the device), SELL_ALG1, after
//                 preprocessing
//                 (examples/spmv/cusparse_spmv.cuh)
//   tc            DASP-like packing on f64 m8n8k4 (the Cubie study's shape)
//   tc-m16n8k8    the same packing, 2 blocks per sm_90 m16n8k8 MMA
//   tc-m16n8k16   the same packing, 4 blocks per sm_90 m16n8k16 MMA
//   cc, cc-m16n8k8
//                 tc / tc-m16n8k8 on the cuda_core backend (same data flow)
//   cce           the same packed data, one FMA per stored slot (essential;
//                 spmv_cce.cuh, through tcore::dasp_spmv::run_with)
//   tc-bundle     tcore's extension: consecutive rows with identical columns
//                 (FEM node unknowns, lattice colours, dense blocks) packed
//                 as bundles sharing one column index and x gather per slot,
//                 two rows per sm_90 m16n8k4 MMA (automatic bundle size;
//                 skipped where a matrix has no such rows)
//   cc-bundle, cce-bundle
//                 tc-bundle's data on the cuda_core backend / essential FMAs
// Cases: the generated Cubie-like classes (tcore/sparse/generate.hpp:
// fem3d ~ bcsstk39, lattice4d ~ conf5_4-8x8-10, dense_blocks ~ raefsky3,
// banded ~ spmsrtls, power_law = the long-row class) at 1e6, 1e7 and 1e8
// nonzeros, and the shipped SuiteSparse matrices as "real/<name>"
// (tests/data/matrices, and ../shared/data/matrices for the larger ones;
// a missing one is skipped with a message; small: reported separately). --quick: the
// classes at 1e5 and two real matrices. --matrix FILE|FOLDER: the user's
// .mtx files instead, each a case named after its stem (summaries: "user"),
// every variant; one too large for the device's free memory (estimated from
// the size line before reading, then from the matrix) is skipped.
// Bytes: values, column indices, x and y (12 nnz + 8 rows + 8 cols); flops
// 2 nnz, the same for every variant. Preprocessing is never inside the SpMV
// time; it is reported in the notes and the summary: tcore's packing +
// upload as host wall time (the packing runs on the host), cuSPARSE's
// conversions (BSR, SELL: on the device) with device events, its buffer +
// cusparseSpMV_preprocess as host wall time. Every variant's y is poisoned
// (NaN) before its accuracy run.
// Summaries: geometric mean and minimum of t(best base) / t(best tc variant)
// and t(best base) / t(best cc or cce variant), "best base" being the
// fastest cuSPARSE form of the same case, over the generated cases of the
// 1e6, 1e7 and 1e8 classes (by the generator's target: a 1e6 matrix has
// 0.96-1.0e6 nonzeros), separately for L2-resident (hot) and cold /
// streaming measurements, and for the real matrices; t(base-csr1) / t(best
// tcore) for comparison with earlier runs; per case the winners and the
// break-even count: SpMVs that repay the best tc variant's packing, packing
// ms / (t(best base) - t(best tc)), "never" where tc is not faster; the best
// variant's fraction of copy bandwidth on 1e7+ nonzeros; t(cc)/t(tc).
#include "cusparse_baseline.cuh"
#include "cusparse_spmv.cuh"
#include "harness/harness.hpp"
#include "harness/inputs.hpp"
#include "spmv_cce.cuh"

#include <tcore/io/matrix_market.hpp>
#include <tcore/patterns/device/spmv.cuh>
#include <tcore/sparse/generate.hpp>
#include <tcore/tcore.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace tb = tcore::bench;
namespace sb = tcore::examples::sparse_base;
namespace gen = tcore::sparse::gen;

struct tc_variant {
    const char* name;
    void (*run)(const tcore::dasp_spmv&, const double*, double*, cudaStream_t);
    tb::peak compute;
    const char* note;
    bool bundled = false;  ///< runs on the packing with bundles of identical rows
};

template <class Backend, class Shape>
void run_dasp(const tcore::dasp_spmv& s, const double* x, double* y, cudaStream_t st)
{
    s.run_with<Backend, Shape>(x, y, st);
}

const tc_variant tc_variants[] = {
    {"tc", run_dasp<tcore::tensor_core, tcore::f64_m8n8k4>, tb::peak::fp64_tc, "DASP-like, f64 m8n8k4"},
    {"tc-m16n8k8", run_dasp<tcore::tensor_core, tcore::f64_m16n8k8>, tb::peak::fp64_tc,
     "DASP-like, f64 m16n8k8 (2 blocks per MMA)"},
    {"tc-m16n8k16", run_dasp<tcore::tensor_core, tcore::f64_m16n8k16>, tb::peak::fp64_tc,
     "DASP-like, f64 m16n8k16 (4 blocks per MMA)"},
    {"cc", run_dasp<tcore::cuda_core, tcore::f64_m8n8k4>, tb::peak::fp64_cc, "tc's kernel on the cuda_core backend"},
    {"cc-m16n8k8", run_dasp<tcore::cuda_core, tcore::f64_m16n8k8>, tb::peak::fp64_cc,
     "tc-m16n8k8's kernel on the cuda_core backend"},
    {"cce", run_dasp<tcore::examples::spmv::spmv_cce, tcore::f64_m8n8k4>, tb::peak::fp64_cc,
     "same packed data, one FMA per slot (essential)"},
    {"tc-bundle", run_dasp<tcore::tensor_core, tcore::f64_m8n8k4>, tb::peak::fp64_tc,
     "bundles of identical rows on f64 m16n8k4 (shared index and x gather), rest as tc", true},
    {"cc-bundle", run_dasp<tcore::cuda_core, tcore::f64_m8n8k4>, tb::peak::fp64_cc,
     "tc-bundle's kernel on the cuda_core backend", true},
    {"cce-bundle", run_dasp<tcore::examples::spmv::spmv_cce, tcore::f64_m8n8k4>, tb::peak::fp64_cc,
     "tc-bundle's packed data, one FMA per value (essential)", true},
};

/// Column panels (tcore::dasp_spmv_panels), measured where x is larger than half the L2.
struct panel_variant {
    const char* name;
    void (*run)(const tcore::dasp_spmv_panels&, const double*, double*, cudaStream_t);
    tb::peak compute;
    const char* note;
};

template <class Backend, class Shape>
void run_panels(const tcore::dasp_spmv_panels& s, const double* x, double* y, cudaStream_t st)
{
    s.run_with<Backend, Shape>(x, y, st);
}

const panel_variant panel_variants[] = {
    {"tc-panels", run_panels<tcore::tensor_core, tcore::f64_m8n8k4>, tb::peak::fp64_tc,
     "tc on column panels of x bytes <= L2 / 2 (the first writes y, the rest add)"},
    {"cc-panels", run_panels<tcore::cuda_core, tcore::f64_m8n8k4>, tb::peak::fp64_cc,
     "tc-panels' kernels on the cuda_core backend"},
    {"cce-panels", run_panels<tcore::examples::spmv::spmv_cce, tcore::f64_m8n8k4>, tb::peak::fp64_cc,
     "tc-panels' packed data, one FMA per slot (essential)"},
};

/// cuSPARSE's forms: CSR ALG1 (with and without cusparseSpMV_preprocess), CSR ALG2, BSR, SELL.
const char* const base_variants[] = {"base-csr1", "base-csr1-noprep", "base-csr2", "base-bsr", "base-sell"};

struct spmv_case {
    std::string name;
    bool real = false;
    gen::matrix_class cls = gen::matrix_class::fem3d;
    long long target = 0;
    std::string file;
    bool user = false;  ///< a --matrix file: `file` is its path
};

std::string fixed(double v, int digits = 3)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string size_name(long long n)
{
    int e = 0;
    long long p = 1;
    while (p * 10 <= n) p *= 10, ++e;
    return p == n ? "1e" + std::to_string(e) : std::to_string(n);
}

std::vector<double> random_x(std::size_t n, std::uint64_t seed)
{
    gen::splitmix64 r(seed);
    std::vector<double> x(n);
    for (double& v : x) v = r.value();
    return x;
}

double elapsed_ms(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct result {
    std::string name;
    std::string cls;  ///< "generated", "real" or "user" (--matrix)
    long long nnz = 0;
    long long target = 0;  ///< the generator's size class (1e6, 1e7, 1e8); its nnz may fall a few % short
    std::map<std::string, std::map<std::string, double>> med;  ///< variant -> cache state -> median ms
    std::map<std::string, double> frac;  ///< variant -> fraction of copy bandwidth (cold / stream row)
    std::map<std::string, double> pack_ms;  ///< tcore variant -> its packing + upload, host wall ms
};

/// The median of `variant` in the cold-cache sense: "cold" if measured, else "stream"; 0 if none.
double cold_of(const result& r, const std::string& variant)
{
    const auto it = r.med.find(variant);
    if (it == r.med.end()) return 0;
    for (const char* state : {"cold", "stream"}) {
        const auto jt = it->second.find(state);
        if (jt != it->second.end()) return jt->second;
    }
    return 0;
}

double hot_of(const result& r, const std::string& variant)
{
    const auto it = r.med.find(variant);
    if (it == r.med.end()) return 0;
    const auto jt = it->second.find("hot");
    return jt == it->second.end() ? 0 : jt->second;
}

/// A shipped matrix: $TCORE_MATRIX_DIR, tests/data/matrices, or ../shared/data/matrices (harness/inputs.hpp).
std::string matrix_path(const std::string& name) { return tb::shipped_matrix_path(name, TCORE_SOURCE_DIR); }

void run(tb::context& ctx)
{
    std::vector<spmv_case> cases;
    const long long sizes_full[] = {1000000, 10000000, 100000000};
    const long long sizes_quick[] = {100000};
    const char* real_full[] = {"bcsstk13", "cryg2500", "olm1000", "jagmesh7", "west0067", "lp_afiro", "LFAT5"};
    const char* real_quick[] = {"bcsstk13", "west0067"};
    if (!ctx.opts().matrices.empty()) {
        for (const std::string& path : ctx.opts().matrices)
            cases.push_back({tb::matrix_case_name(path), true, {}, 0, path, true});
    } else if (ctx.quick()) {
        for (const long long n : sizes_quick)
            for (const auto c : gen::all_classes()) cases.push_back({std::string(gen::class_name(c)) + "/" + size_name(n), false, c, n, ""});
        for (const char* f : real_quick) cases.push_back({std::string("real/") + f, true, {}, 0, f});
    } else {
        for (const long long n : sizes_full)
            for (const auto c : gen::all_classes()) cases.push_back({std::string(gen::class_name(c)) + "/" + size_name(n), false, c, n, ""});
        for (const char* f : real_full) cases.push_back({std::string("real/") + f, true, {}, 0, f});
    }

    std::vector<result> results;
    for (const spmv_case& cs : cases) {
        if (!ctx.want_case(cs.name) || !ctx.announce_case(cs.name)) continue;
        bool any = false;
        for (const char* b : base_variants) any = any || ctx.want_variant(b);
        for (const tc_variant& v : tc_variants) any = any || ctx.want_variant(v.name);
        for (const panel_variant& v : panel_variants) any = any || ctx.want_variant(v.name);
        if (!any) continue;

        // -- the matrix, x and the FP64 reference ----------------------------------
        auto skip = [&](const std::string& why) {
            std::printf("spmv %s: skipped: %s\n", cs.name.c_str(), why.c_str());
            ctx.summary("skipped " + cs.name, why);
        };
        std::size_t free_b = 0, total_b = 0;
        if (cs.user) {  // too large for the device? Judged from the size line, before reading the file.
            tb::mtx_size size;
            std::string why;
            TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
            if (tb::read_mtx_size(cs.file, size, why) && size.size_known) {
                const double need = tb::spmv_device_bytes(static_cast<double>(size.entries), static_cast<double>(size.rows),
                                                          static_cast<double>(size.cols));
                if (need > static_cast<double>(free_b)) {
                    skip("needs at least " + fixed(need / 1e9, 2) + " GB of device memory (" +
                         std::to_string(size.entries) + " entries), " + fixed(free_b / 1e9, 2) + " GB free");
                    continue;
                }
            }
        }
        tcore::sparse::csr a;
        try {
            a = cs.real ? tcore::io::read_matrix_market(cs.user ? cs.file : matrix_path(cs.file))
                        : gen::generate(cs.cls, cs.target, 0x5b3e0000ull + static_cast<std::uint64_t>(cs.target));
        } catch (const std::exception& e) {
            skip(e.what());
            continue;
        }
        const tcore::sparse::row_stats st = tcore::sparse::row_statistics(a);
        const std::size_t rows = static_cast<std::size_t>(a.rows), cols = static_cast<std::size_t>(a.cols);
        const double nnz = static_cast<double>(a.nnz());
        const double csr_bytes = 12.0 * nnz + 4.0 * (rows + 1);
        TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (const double need = tb::spmv_device_bytes(nnz, static_cast<double>(rows), static_cast<double>(cols));
            need > static_cast<double>(free_b)) {
            skip("not enough device memory: needs about " + fixed(need / 1e9, 2) + " GB, " + fixed(free_b / 1e9, 2) +
                 " GB free");
            continue;
        }
        const std::vector<double> x = random_x(cols, 0x7e57ull + cs.name.size());
        const std::vector<double> ref = tcore::sparse::spmv_reference(a, x);
        std::vector<double> got(rows);

        // x and y padded by the largest BSR block (x with zeros): base-bsr reads and writes whole blocks.
        std::vector<double> x_padded(x);
        x_padded.resize(cols + sb::bsr_padding(), 0.0);
        sb::device_array<double> dx(x_padded), dy(rows + sb::bsr_padding());
        const sb::device_csr da(a);

        tb::row_spec spec;
        spec.case_name = cs.name;
        spec.bytes = 12.0 * nnz + 8.0 * static_cast<double>(rows + cols);
        spec.flops = 2.0 * nnz;
        spec.ceiling = tb::peak::memory;
        char shape[160];
        std::snprintf(shape, sizeof shape, "%dx%d nnz %lld, row len mean %.1f max %d", a.rows, a.cols, a.nnz(),
                      st.mean, st.max_len);

        result res;
        res.name = cs.name;
        res.cls = cs.user ? "user" : cs.real ? "real" : "generated";
        res.nnz = a.nnz();
        res.target = cs.target;
        // The rows measure() just appended (hot then cold, or stream) give the states.
        auto record = [&](const std::string& variant, const std::vector<double>& med) {
            if (med.empty() || ctx.rows().size() < med.size()) return;
            const std::size_t first = ctx.rows().size() - med.size();
            for (std::size_t i = 0; i < med.size(); ++i) res.med[variant][ctx.rows()[first + i].cache] = med[i];
            res.frac[variant] = ctx.rows().back().fraction_of_peak;
        };

        // -- cuSPARSE: CSR (ALG1, ALG2), BSR, SELL, each after cusparseSpMV_preprocess ----------
        // (ALG1 also without it). y is poisoned (NaN) before the accuracy run.
        auto measure_base = [&](const std::string& name, const sb::spmv_op& op, std::size_t matrix_bytes,
                                const std::string& what) {
            TCORE_CHECK(cudaMemsetAsync(dy.ptr, 0xFF, rows * sizeof(double), ctx.stream()));
            op.run(ctx.stream());
            TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
            if (rows) TCORE_CHECK(cudaMemcpy(got.data(), dy.ptr, rows * sizeof(double), cudaMemcpyDeviceToHost));
            const tb::accuracy err = tb::accuracy_of(ref.data(), got.data(), rows);
            spec.variant = name;
            spec.compute = tb::peak::fp64_cc;
            spec.footprint_bytes = matrix_bytes + 8 * (rows + cols) + op.buffer_bytes();
            spec.note = what + ", " + op.routine() + (op.preprocessed() ? " after cusparseSpMV_preprocess" : " without preprocess") +
                        "; setup " + fixed(op.setup_ms(), 2) + " ms (excluded); " + shape;
            record(name, ctx.measure(spec, [&op](cudaStream_t s) { op.run(s); }, err));
        };
        // A cuSPARSE form that fails (a status other than success) is reported and
        // skipped, so that one form cannot end the whole run.
        auto guarded_base = [&](const char* name, const auto& body) {
            try {
                body();
            } catch (const tcore::error& e) {
                std::printf("spmv %s: %s failed: %s\n", cs.name.c_str(), name, e.what());
                ctx.summary(std::string(name) + " " + cs.name, std::string("failed: ") + e.what());
                TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
            }
        };
        for (const auto& [name, alg, prep] :
             {std::tuple<const char*, cusparseSpMVAlg_t, bool>{"base-csr1", CUSPARSE_SPMV_CSR_ALG1, true},
              {"base-csr1-noprep", CUSPARSE_SPMV_CSR_ALG1, false},
              {"base-csr2", CUSPARSE_SPMV_CSR_ALG2, true}}) {
            if (!ctx.want_variant(name)) continue;
            guarded_base(name, [&, name = name, alg = alg, prep = prep] {
                const sb::spmv_op op(da, alg, dx.ptr, dy.ptr, prep, ctx.stream());
                measure_base(name, op, static_cast<std::size_t>(csr_bytes),
                             std::string("CSR ") +
                                 (alg == CUSPARSE_SPMV_CSR_ALG1 ? "CUSPARSE_SPMV_CSR_ALG1" : "CUSPARSE_SPMV_CSR_ALG2"));
                if (prep)
                    ctx.summary("preprocess " + cs.name + ": cuSPARSE " + name + " buffer + cusparseSpMV_preprocess ms",
                                fixed(op.setup_ms(), 2));
            });
        }
        if (ctx.want_variant("base-bsr")) guarded_base("base-bsr", [&] {
            double fill = 1;
            const int block = sb::choose_bsr_block(da, ctx.stream(), &fill);
            if (block == 0) {
                ctx.summary("base-bsr " + cs.name, "skipped: fewer than 2 rows or columns");
            } else if (fill > 1.5) {
                ctx.summary("base-bsr " + cs.name, "skipped: " + fixed(fill, 2) + " stored values per nonzero at the best block (" +
                                                        std::to_string(block) + "x" + std::to_string(block) + ")");
            } else {
                const sb::device_bsr m = sb::to_bsr(da, block, ctx.stream());
                const sb::spmv_op op(m, dx.ptr, dy.ptr, true, ctx.stream());
                measure_base("base-bsr", op, m.device_bytes(),
                             "BSR " + std::to_string(block) + "x" + std::to_string(block) + " (fill " + fixed(m.fill(), 3) +
                                 "; CSR -> BSR " + fixed(m.convert_ms, 2) + " ms on the device, events, excluded)");
                ctx.summary("preprocess " + cs.name + ": CSR -> BSR " + std::to_string(block) + "x" + std::to_string(block) +
                                " (cusparseDcsr2bsr, device events) + buffer + preprocess ms",
                            fixed(m.convert_ms + op.setup_ms(), 2));
            }
        });
        if (ctx.want_variant("base-sell")) guarded_base("base-sell", [&] {
            const sb::device_sell m = sb::to_sell(da, ctx.stream());
            const sb::spmv_op op(m, dx.ptr, dy.ptr, true, ctx.stream());
            measure_base("base-sell", op, m.device_bytes(),
                         "SELL, slices of 32 rows, CUSPARSE_SPMV_SELL_ALG1 (" + fixed(nnz > 0 ? m.stored / nnz : 1.0, 3) +
                             " slots per nonzero; CSR -> SELL " + fixed(m.convert_ms, 2) + " ms on the device, events, excluded)");
            ctx.summary("preprocess " + cs.name + ": CSR -> SELL-32 (device kernels, events) + buffer + preprocess ms",
                        fixed(m.convert_ms + op.setup_ms(), 2));
        });

        // One tcore variant on packed matrix s (dasp_spmv or dasp_spmv_panels):
        // once on poisoned y for the accuracy columns, then under the protocol.
        auto measure_tcore = [&](const auto& v, const auto& s, const char* layout) {
            TCORE_CHECK(cudaMemsetAsync(dy.ptr, 0xFF, rows * sizeof(double), ctx.stream()));
            v.run(s, dx.ptr, dy.ptr, ctx.stream());
            TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
            if (rows) TCORE_CHECK(cudaMemcpy(got.data(), dy.ptr, rows * sizeof(double), cudaMemcpyDeviceToHost));
            const tb::accuracy err = tb::accuracy_of(ref.data(), got.data(), rows);
            spec.variant = v.name;
            spec.compute = v.compute; spec.mma_shape = tb::tc_shape_of(v.name, "m8n8k4");  // tc-bundle also issues m16n8k4
            spec.footprint_bytes = s.device_bytes() + 8 * (rows + cols);
            spec.note = std::string(v.note) + "; " + layout + "; " + shape;
            const auto run_fn = v.run;
            const double* px = dx.ptr;
            double* py = dy.ptr;
            record(v.name, ctx.measure(spec, [&s, run_fn, px, py](cudaStream_t st) { run_fn(s, px, py, st); }, err));
        };

        // -- tcore: the DASP-like packing, then the one with bundles of identical rows ----
        for (const bool bundled : {false, true}) {
            bool any_tc = false;
            for (const tc_variant& v : tc_variants) any_tc = any_tc || (v.bundled == bundled && ctx.want_variant(v.name));
            if (!any_tc) continue;
            tcore::sparse::dasp_options opts;
            opts.bundle = bundled ? 0 : 1;  // automatic bundle size
            opts.resident_warps = 32 * ctx.ceil().sm_count;  // for the automatic long-row threshold
            const auto t0 = std::chrono::steady_clock::now();
            const tcore::sparse::dasp_format f = tcore::sparse::build_dasp(a, opts);
            const double pack_ms = elapsed_ms(t0);
            if (bundled && f.bundle == 1) {
                ctx.summary("bundles " + cs.name, "none (runs of identical rows cover under 10% of medium rows, or make groups for under half the resident warps)");
                continue;
            }
            const auto t1 = std::chrono::steady_clock::now();
            const tcore::dasp_spmv s(f, ctx.stream());
            const double upload_ms = elapsed_ms(t1);
            char layout[320];
            std::snprintf(layout, sizeof layout,
                          "long rows %d (from %d entries, %d pieces), bundles of %d: %d groups, medium groups %d (x%d per warp), "
                          "short tiles %d, empty %d; %.2f bytes/nnz packed, %.1f%% irregular; prep %.1f ms pack + "
                          "%.1f ms upload (excluded)",
                          s.long_rows(), f.opts.long_min, f.piece_count(), s.bundle(), s.bundle_groups(), s.medium_groups(),
                          s.groups_per_warp(), s.short_tiles(), s.empty_rows(),
                          nnz > 0 ? static_cast<double>(s.device_bytes()) / nnz : 0.0,
                          nnz > 0 ? 100.0 * static_cast<double>(s.irregular_entries()) / nnz : 0.0, pack_ms, upload_ms);
            ctx.summary("preprocess " + cs.name + (bundled ? ": tcore pack (bundles) + upload ms" : ": tcore pack + upload ms"),
                        fixed(pack_ms + upload_ms, 2));
            for (const tc_variant& v : tc_variants) {
                if (v.bundled != bundled || !ctx.want_variant(v.name)) continue;
                measure_tcore(v, s, layout);
                res.pack_ms[v.name] = pack_ms + upload_ms;
            }
        }

        // -- tcore: column panels, where x outgrows half the L2 ---------------------------
        const double panel_bytes = ctx.ceil().l2_bytes / 2.0;
        bool any_panels = false;
        for (const panel_variant& v : panel_variants) any_panels = any_panels || ctx.want_variant(v.name);
        if (any_panels && 8.0 * cols > panel_bytes) {
            tcore::sparse::dasp_options opts;
            opts.resident_warps = 32 * ctx.ceil().sm_count;
            const int panels = static_cast<int>(std::ceil(8.0 * cols / panel_bytes));
            const auto t0 = std::chrono::steady_clock::now();
            const tcore::dasp_spmv_panels s(a, panels, opts, ctx.stream());
            const double prep_ms = elapsed_ms(t0);
            ctx.summary("preprocess " + cs.name + ": tcore pack + upload ms (" + std::to_string(panels) + " column panels)",
                        fixed(prep_ms, 2));
            char layout[160];
            std::snprintf(layout, sizeof layout, "%d column panels of %.1f MB of x; %.2f bytes/nnz packed; prep %.1f ms (excluded)",
                          s.panels(), 8.0 * cols / s.panels() / 1e6,
                          nnz > 0 ? static_cast<double>(s.device_bytes()) / nnz : 0.0, prep_ms);
            for (const panel_variant& v : panel_variants) {
                if (!ctx.want_variant(v.name)) continue;
                measure_tcore(v, s, layout);
                res.pack_ms[v.name] = prep_ms;
            }
        }
        results.push_back(std::move(res));
    }

    // -- summaries --------------------------------------------------------------------
    // The headline: the best tensor-core variant against the best cuSPARSE form
    // of the same case, the best CUDA-core variant (cc or cce) beside it.
    const std::vector<std::string> tc_family = {"tc", "tc-m16n8k8", "tc-m16n8k16", "tc-bundle", "tc-panels"};
    const std::vector<std::string> cc_family = {"cc",         "cc-m16n8k8", "cce",       "cc-bundle",
                                                "cce-bundle", "cc-panels",  "cce-panels"};
    const std::vector<std::string> bases(std::begin(base_variants), std::end(base_variants));
    std::vector<std::string> ours = tc_family;
    ours.insert(ours.end(), cc_family.begin(), cc_family.end());
    // The fastest of `names` in case r (hot, or cold / streaming): its median ms (0: none), its name in *who.
    auto best_of = [](const result& r, const std::vector<std::string>& names, bool hot, std::string* who = nullptr) {
        double best = 0;
        for (const std::string& n : names) {
            const double t = hot ? hot_of(r, n) : cold_of(r, n);
            if (t > 0 && (best == 0 || t < best)) {
                best = t;
                if (who) *who = n;
            }
        }
        return best;
    };
    for (const std::string cls : {"generated", "real", "user"})
        for (const bool hot : {true, false}) {
            std::vector<double> tc_v, cc_v, csr1_v;
            for (const result& r : results) {
                if (r.cls != cls || (cls == "generated" && r.target < 1000000)) continue;
                const double base = best_of(r, bases, hot), tc = best_of(r, tc_family, hot),
                             cc = best_of(r, cc_family, hot), csr1 = hot ? hot_of(r, "base-csr1") : cold_of(r, "base-csr1"),
                             any = best_of(r, ours, hot);
                if (base > 0 && tc > 0) tc_v.push_back(base / tc);
                if (base > 0 && cc > 0) cc_v.push_back(base / cc);
                if (csr1 > 0 && any > 0) csr1_v.push_back(csr1 / any);
            }
            const std::string where = cls + (cls == "generated" ? " 1e6+ nnz" : "") +
                                      (hot ? ", L2-resident (hot)" : ", cold cache / streaming");
            for (const auto& [v, what] : {std::pair<const std::vector<double>&, const char*>{tc_v, "t(best base)/t(best tc)"},
                                          {cc_v, "t(best base)/t(best cc or cce)"},
                                          {csr1_v, "t(base-csr1)/t(best tcore, any backend)"}}) {
                if (v.empty()) continue;
                const std::string key = std::string(what) + ", " + where + " (" + std::to_string(v.size()) + " cases)";
                ctx.summary("geomean " + key, fixed(tb::geomean(v)));
                ctx.summary("min " + key, fixed(*std::min_element(v.begin(), v.end())));
            }
        }
    // Per case (cold / streaming): who wins, and how many SpMVs repay the best tc variant's packing.
    for (const result& r : results) {
        std::string who_base, who_tc, who_cc;
        const double base = best_of(r, bases, false, &who_base), tc = best_of(r, tc_family, false, &who_tc),
                     cc = best_of(r, cc_family, false, &who_cc);
        if (base <= 0) continue;
        std::string line = "best base " + who_base + " " + fixed(base, 4) + " ms";
        if (tc > 0) line += "; best tc " + who_tc + " " + fixed(tc, 4) + " ms (" + fixed(base / tc) + "x)";
        if (cc > 0) line += "; best cc/cce " + who_cc + " " + fixed(cc, 4) + " ms (" + fixed(base / cc) + "x)";
        ctx.summary("case " + r.name + ", cold cache / streaming", line);
        const auto pk = r.pack_ms.find(who_tc);
        if (tc <= 0 || pk == r.pack_ms.end()) continue;
        ctx.summary("break-even " + r.name + ": SpMVs that repay " + who_tc + "'s packing (" + fixed(pk->second, 1) +
                        " ms host wall time: packed on the host, then uploaded) against " + who_base,
                    base > tc ? fixed(std::ceil(pk->second / (base - tc)), 0) : std::string("never"));
    }
    for (const result& r : results) {
        if (r.cls != "generated" || r.target < 10000000) continue;
        double best = 0;
        std::string who;
        for (const std::string& o : ours)
            if (r.frac.count(o) && r.frac.at(o) > best) best = r.frac.at(o), who = o;
        if (best > 0)
            ctx.summary("fraction of copy bandwidth, best tcore variant (" + who + "), nnz " + std::to_string(r.nnz),
                        fixed(best));
    }
    for (const auto& [cc, tc] : {std::pair<const char*, const char*>{"cc", "tc"}, {"cc-m16n8k8", "tc-m16n8k8"},
                                 {"tc", "tc-m16n8k8"}, {"tc", "tc-m16n8k16"}, {"cce", "tc"},
                                 {"cc-bundle", "tc-bundle"}, {"tc", "tc-bundle"}, {"cce-bundle", "tc-bundle"},
                                 {"cc-panels", "tc-panels"}, {"tc", "tc-panels"}}) {
        std::vector<double> v;
        for (const result& r : results)
            if (cold_of(r, cc) > 0 && cold_of(r, tc) > 0) v.push_back(cold_of(r, cc) / cold_of(r, tc));
        if (!v.empty())
            ctx.summary(std::string("geomean t(") + cc + ")/t(" + tc + "), all cases, cold cache / streaming",
                        fixed(tb::geomean(v)));
    }
}

}  // namespace

void tcore_register_spmv(tcore::bench::registry& r)
{
    r.add({"spmv", "y = A x in FP64: DASP-like packing on the FP64 MMA vs the best of cuSPARSE CSR (ALG1, ALG2), BSR and SELL", run,
           true});
}
