// examples/spgemm/spgemm.cu - the SpGEMM workload: C = A A in FP64
// (Quadrant IV; A A^T for a rectangular matrix).
//
// Variants (tcore/patterns/device/spgemm.cuh, AmgT-like mBSR with 4x4 tiles):
//   base   cuSPARSE SpGEMM (CUSPARSE_SPGEMM_DEFAULT: workEstimation,
//          compute, copy), CSR in, CSR out
//   tc     symbolic (tile expansion, CUB sort, mask OR) + numeric with tile
//          pairs on f64 m8n8k4, mBSR in, mBSR out
//   cc     tc on the cuda_core backend
//   cce    tc's data, each 4x4 tile product as 64 FMAs (essential;
//          spgemm_cce.cuh, through tcore::spgemm_with)
//   tc-e2e CSR in, CSR out: A (and B) CSR -> mBSR on the device, tc's
//          product, C mBSR -> CSR on the device
//          (tcore/sparse/mbsr_convert.cuh), timed as one sequence
// Each timed run is the whole product - symbolic and numeric phases, every
// allocation (stream-ordered pool, for all variants) - on the same stream.
// For tc, cc and cce the CSR -> mBSR conversion (on the host) and upload of
// A is preprocessing, reported apart, and C is checked after mBSR -> CSR on
// the host (not timed); tc-e2e includes both conversions, on the device,
// each also timed alone with device events (summary "convert ..."), and
// its CSR output is checked. Summary "break-even": products with the same A
// that repay converting it once, t(CSR -> mBSR) / (t(base) - (t(tc-e2e) -
// t(CSR -> mBSR))), "never" where a product with CSR output is not faster
// than cuSPARSE's. C is
// compared with the CPU structural product: identical structure (explicit
// zeros kept by both) and values within FP64 rounding (accuracy columns).
// Cases: the generated classes at 1e5, 1e6 and 1e7 nonzeros, the shipped
// matrices as "real/<name>"; --quick: the classes at 1e5 and two real ones;
// --matrix FILE|FOLDER: the user's .mtx files instead, each a case named
// after its stem (summaries: "user"), every variant. A case too large for
// the device's free memory is skipped: judged from the size line before the
// file is read, from A's multiplies before the CPU reference, then from the
// tile products.
// Bytes: A read twice (as A and B) and C written, 12 bytes a nonzero
// (value + index); flops: 2 per multiply of the structural product.
#include "../spmv/cusparse_baseline.cuh"
#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include "spgemm_cce.cuh"

#include <tcore/io/matrix_market.hpp>
#include <tcore/patterns/device/spgemm.cuh>
#include <tcore/sparse/generate.hpp>
#include <tcore/sparse/mbsr.hpp>
#include <tcore/sparse/mbsr_convert.cuh>
#include <tcore/tcore.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

namespace tb = tcore::bench;
namespace sb = tcore::examples::sparse_base;
namespace gen = tcore::sparse::gen;

struct spgemm_case {
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

std::string matrix_path(const std::string& name) { return tb::shipped_matrix_path(name, TCORE_SOURCE_DIR); }

double elapsed_ms(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Accuracy of a CSR result against the reference: structure must match
/// (else every entry counts as mismatched); values compared in order.
tb::accuracy accuracy_csr(const tcore::sparse::csr& ref, const tcore::sparse::csr& got, std::string& problem)
{
    problem = tcore::sparse::structure_difference(got, ref);
    if (!problem.empty()) {
        tb::accuracy acc;
        acc.count = ref.values.size();
        acc.mismatched = ref.values.size() ? ref.values.size() : 1;
        return acc;
    }
    return tb::accuracy_of(ref.values.data(), got.values.data(), ref.values.size());
}

/// Multiplications of the structural product A B.
double products_of(const tcore::sparse::csr& a, const tcore::sparse::csr& b)
{
    double n = 0;
    for (const int k : a.col_idx) n += b.row_length(k);
    return n;
}

/// Per case: variant -> cache state -> median ms.
using medians = std::map<std::string, std::map<std::string, double>>;

/// The cold-cache median of a variant: "cold" if measured, else "stream"; 0 if none.
double cold_of(const medians& m, const std::string& v)
{
    const auto it = m.find(v);
    if (it == m.end()) return 0;
    for (const char* s : {"cold", "stream"}) {
        const auto jt = it->second.find(s);
        if (jt != it->second.end()) return jt->second;
    }
    return 0;
}

void run(tb::context& ctx)
{
    std::vector<spgemm_case> cases;
    const std::vector<long long> sizes = ctx.quick() ? std::vector<long long>{100000}
                                                     : std::vector<long long>{100000, 1000000, 10000000};
    const std::vector<const char*> reals =
        ctx.quick() ? std::vector<const char*>{"bcsstk13", "lp_afiro"}
                    : std::vector<const char*>{"bcsstk13", "cryg2500", "olm1000", "jagmesh7", "west0067", "lp_afiro",
                                               "LFAT5"};
    if (!ctx.opts().matrices.empty()) {
        for (const std::string& path : ctx.opts().matrices)
            cases.push_back({tb::matrix_case_name(path), true, {}, 0, path, true});
    } else {
        for (const long long n : sizes)
            for (const auto c : gen::all_classes())
                cases.push_back({std::string(gen::class_name(c)) + "/" + size_name(n), false, c, n, ""});
        for (const char* f : reals) cases.push_back({std::string("real/") + f, true, {}, 0, f});
    }

    std::map<std::string, medians> times;  // case -> medians
    std::map<std::string, std::string> class_of;  // case -> "generated", "real" or "user"
    const char* variants[] = {"base", "tc", "cc", "cce", "tc-e2e"};
    std::map<std::string, double> convert_in, convert_out;  // case -> device ms of CSR -> mBSR (A, and B) / mBSR -> CSR (C)
    bool pool_kept = false;
    for (const spgemm_case& cs : cases) {
        if (!ctx.want_case(cs.name) || !ctx.announce_case(cs.name)) continue;
        bool any = false;
        for (const char* v : variants) any = any || ctx.want_variant(v);
        if (!any) continue;
        if (!pool_kept) {
            // Keep freed memory in the pool: repeated products allocate without syncing.
            int dev = 0;
            TCORE_CHECK(cudaGetDevice(&dev));
            cudaMemPool_t pool;
            TCORE_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
            std::uint64_t keep = UINT64_MAX;
            TCORE_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
            pool_kept = true;
        }

        auto skip = [&](const std::string& why) {
            std::printf("spgemm %s: skipped: %s\n", cs.name.c_str(), why.c_str());
            ctx.summary("skipped " + cs.name, why);
        };
        std::size_t free_b = 0, total_b = 0;
        if (cs.user) {  // A and C at 64 bytes a nonzero at least: judged from the size line, before reading
            tb::mtx_size size;
            std::string why;
            TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
            if (tb::read_mtx_size(cs.file, size, why) && size.size_known) {
                const double need = 64.0 * static_cast<double>(size.entries);
                if (need > 0.8 * static_cast<double>(free_b)) {
                    skip("needs at least " + fixed(need / 1e9, 2) + " GB of device memory (" +
                         std::to_string(size.entries) + " entries), " + fixed(free_b / 1e9, 2) + " GB free");
                    continue;
                }
            }
        }
        tcore::sparse::csr a;
        try {
            a = cs.real ? tcore::io::read_matrix_market(cs.user ? cs.file : matrix_path(cs.file))
                        : gen::generate(cs.cls, cs.target, 0x59e3000ull + static_cast<std::uint64_t>(cs.target));
        } catch (const std::exception& e) {
            skip(e.what());
            continue;
        }
        const tcore::sparse::csr b = a.rows == a.cols ? a : tcore::sparse::transpose(a);
        const double mults = products_of(a, b);
        if (cs.user) {  // cuSPARSE's buffers alone: 24 bytes a multiply; judged before the CPU reference
            TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
            const double need = 24.0 * mults + 64.0 * static_cast<double>(a.nnz());
            if (need > 0.8 * static_cast<double>(free_b)) {
                skip("needs at least " + fixed(need / 1e9, 2) + " GB of device memory (" + fixed(mults, 0) +
                     " multiplies), " + fixed(free_b / 1e9, 2) + " GB free");
                continue;
            }
        }
        const auto t_ref = std::chrono::steady_clock::now();
        const tcore::sparse::csr ref = tcore::sparse::spgemm_reference(a, b);
        const double ref_ms = elapsed_ms(t_ref);
        char shape[200];
        std::snprintf(shape, sizeof shape, "%s: %dx%d nnz %lld -> C nnz %lld, %.3g multiplies (CPU reference %.0f ms)",
                      a.rows == a.cols ? "A*A" : "A*A^T", a.rows, a.cols, a.nnz(), ref.nnz(), mults, ref_ms);
        const auto t0 = std::chrono::steady_clock::now();
        const tcore::sparse::mbsr_matrix ma = tcore::sparse::csr_to_mbsr(a);
        const tcore::sparse::mbsr_matrix mb = a.rows == a.cols ? tcore::sparse::mbsr_matrix{} : tcore::sparse::csr_to_mbsr(b);
        const double pack_ms = elapsed_ms(t0);
        const tcore::sparse::mbsr_matrix& mbr = a.rows == a.cols ? ma : mb;
        double tile_products = 0;
        for (const int k : ma.tile_col) tile_products += mbr.tile_ptr[k + 1] - mbr.tile_ptr[k];
        TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
        // tcore: 32 bytes a tile product (keys and pairs, sorted copies) + CUB's scratch;
        // cuSPARSE: its buffers grow with the multiplies; C: 12 bytes (CSR) or ~10 (mBSR) a nonzero.
        const double need = std::max(48.0 * tile_products, 24.0 * mults) + 64.0 * static_cast<double>(ref.nnz() + a.nnz());
        if (need > 0.8 * static_cast<double>(free_b)) {
            skip("needs about " + fixed(need / 1e9, 1) + " GB of device memory, " + fixed(free_b / 1e9, 1) + " GB free");
            continue;
        }
        class_of[cs.name] = cs.user ? "user" : cs.real ? "real" : "generated";

        tb::row_spec spec;
        spec.case_name = cs.name;
        spec.bytes = 12.0 * static_cast<double>(a.nnz() + b.nnz() + ref.nnz());
        spec.flops = 2.0 * mults;
        spec.ceiling = tb::peak::memory;
        spec.footprint_bytes = static_cast<std::size_t>(spec.bytes);
        medians& med = times[cs.name];
        auto record = [&](const std::string& variant, const std::vector<double>& m) {
            if (m.empty() || ctx.rows().size() < m.size()) return;
            const std::size_t first = ctx.rows().size() - m.size();
            for (std::size_t i = 0; i < m.size(); ++i) med[variant][ctx.rows()[first + i].cache] = m[i];
        };

        // -- cuSPARSE ---------------------------------------------------------------------
        if (ctx.want_variant("base")) {
            const sb::device_csr da(a), db(b);
            const sb::handle h;
            std::string problem;
            tb::accuracy err;
            {
                const sb::spgemm_result c = sb::spgemm(h, da, db, ctx.stream());
                err = accuracy_csr(ref, c.download(ctx.stream()), problem);
            }
            spec.variant = "base";
            spec.compute = tb::peak::fp64_cc; spec.host_sync = true;  // nnz(C) read back before the copy
            spec.note = std::string("cuSPARSE SpGEMM DEFAULT (workEstimation + compute + copy, allocations included); ") +
                        shape + (problem.empty() ? "" : "; STRUCTURE DIFFERS: " + problem);
            record("base", ctx.measure(spec, [&](cudaStream_t s) { const sb::spgemm_result c = sb::spgemm(h, da, db, s); },
                                       err));
        }

        // -- tcore ------------------------------------------------------------------------------
        // -- tcore end to end: CSR in and out, both conversions on the device -------------------
        // A failure here (e.g. out of memory for C in CSR beside its mBSR copy) is
        // reported and skipped, so that it cannot end the whole run.
        if (ctx.want_variant("tc-e2e")) try {
            const bool square = a.rows == a.cols;
            const sb::device_csr dca(a);
            const sb::device_csr dcb_own = square ? sb::device_csr{} : sb::device_csr(b);
            const sb::device_csr& dcb = square ? dca : dcb_own;
            const tcore::csr_device_view va{dca.rows, dca.cols, dca.nnz, dca.row_ptr.ptr, dca.col_idx.ptr, dca.values.ptr};
            const tcore::csr_device_view vb{dcb.rows, dcb.cols, dcb.nnz, dcb.row_ptr.ptr, dcb.col_idx.ptr, dcb.values.ptr};
            auto product = [square, va, vb](cudaStream_t s) {
                const tcore::mbsr_device ga = tcore::csr_to_mbsr_device(va, s);
                if (square) return tcore::mbsr_to_csr_device(tcore::spgemm<tcore::tensor_core>(ga, ga, s), s);
                const tcore::mbsr_device gb = tcore::csr_to_mbsr_device(vb, s);
                return tcore::mbsr_to_csr_device(tcore::spgemm<tcore::tensor_core>(ga, gb, s), s);
            };
            std::string problem;
            const tb::accuracy err = accuracy_csr(ref, product(ctx.stream()).download(ctx.stream()), problem);
            // Each conversion alone: median of 5 runs after one, device events on the stream.
            auto device_ms = [&](const auto& work) {
                cudaEvent_t e0, e1;
                TCORE_CHECK(cudaEventCreate(&e0));
                TCORE_CHECK(cudaEventCreate(&e1));
                std::vector<double> ms;
                for (int i = 0; i < 6; ++i) {
                    TCORE_CHECK(cudaEventRecord(e0, ctx.stream()));
                    work(ctx.stream());
                    TCORE_CHECK(cudaEventRecord(e1, ctx.stream()));
                    TCORE_CHECK(cudaEventSynchronize(e1));
                    float t = 0;
                    TCORE_CHECK(cudaEventElapsedTime(&t, e0, e1));
                    if (i > 0) ms.push_back(t);
                }
                TCORE_CHECK(cudaEventDestroy(e0));
                TCORE_CHECK(cudaEventDestroy(e1));
                std::sort(ms.begin(), ms.end());
                return ms[ms.size() / 2];
            };
            const double in_ms = device_ms([&](cudaStream_t s) {
                const tcore::mbsr_device ga = tcore::csr_to_mbsr_device(va, s);
                if (!square) (void)tcore::csr_to_mbsr_device(vb, s);
            });
            double out_ms = 0;
            {
                const tcore::mbsr_device ga = tcore::csr_to_mbsr_device(va, ctx.stream());
                const tcore::mbsr_device gb = square ? tcore::mbsr_device{} : tcore::csr_to_mbsr_device(vb, ctx.stream());
                const tcore::mbsr_device c = tcore::spgemm<tcore::tensor_core>(ga, square ? ga : gb, ctx.stream());
                out_ms = device_ms([&](cudaStream_t s) { (void)tcore::mbsr_to_csr_device(c, s); });
            }
            convert_in[cs.name] = in_ms;
            convert_out[cs.name] = out_ms;
            ctx.summary("convert " + cs.name + ": CSR -> mBSR on the device (A" + (square ? "" : " and B") +
                            "), device events, ms",
                        fixed(in_ms, 4));
            ctx.summary("convert " + cs.name + ": mBSR -> CSR on the device (C), device events, ms", fixed(out_ms, 4));
            spec.variant = "tc-e2e";
            spec.compute = tb::peak::fp64_tc; spec.mma_shape = "f64_m8n8k4"; spec.host_sync = true;  // reads sizes back
            spec.note = std::string("CSR in, CSR out: CSR -> mBSR on the device (") + fixed(in_ms, 3) +
                        " ms), tc's product, mBSR -> CSR on the device (" + fixed(out_ms, 3) +
                        " ms), one sequence on the stream (tcore/sparse/mbsr_convert.cuh); " + shape +
                        (problem.empty() ? "" : "; STRUCTURE DIFFERS: " + problem);
            record("tc-e2e", ctx.measure(spec, [&product](cudaStream_t s) { (void)product(s); }, err));
        } catch (const tcore::error& e) {
            std::printf("spgemm %s: tc-e2e failed: %s\n", cs.name.c_str(), e.what());
            ctx.summary("tc-e2e " + cs.name, std::string("failed: ") + e.what());
            TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
        }

        bool any_tc = ctx.want_variant("tc") || ctx.want_variant("cc") || ctx.want_variant("cce");
        if (!any_tc) continue;
        const auto t1 = std::chrono::steady_clock::now();
        const tcore::mbsr_device da(ma, ctx.stream());
        const tcore::mbsr_device db_own = a.rows == a.cols ? tcore::mbsr_device{} : tcore::mbsr_device(mb, ctx.stream());
        const tcore::mbsr_device& db = a.rows == a.cols ? da : db_own;
        const double upload_ms = elapsed_ms(t1);
        ctx.summary("preprocess " + cs.name + ": CSR -> mBSR + upload ms", fixed(pack_ms + upload_ms, 2));
        // product(a, b, stream, stats): the variant's C = A B
        auto run_variant = [&](const char* name, auto product, tb::peak compute, const char* what) {
            if (!ctx.want_variant(name)) return;
            std::string problem;
            tb::accuracy err;
            tcore::spgemm_stats st;
            {
                const tcore::mbsr_device c = product(da, db, ctx.stream(), &st);
                err = accuracy_csr(ref, tcore::sparse::mbsr_to_csr(c.download(ctx.stream())), problem);
            }
            char layout[200];
            std::snprintf(layout, sizeof layout,
                          "A %lld tiles (%.2f nnz/tile), %lld tile products, C %lld tiles; prep %.1f ms pack + %.1f ms "
                          "upload (excluded)",
                          static_cast<long long>(ma.tiles()), ma.tiles() ? a.nnz() / static_cast<double>(ma.tiles()) : 0.0,
                          st.tile_products, st.c_tiles, pack_ms, upload_ms);
            spec.variant = name;
            spec.compute = compute; spec.mma_shape = tb::tc_shape_of(name, "m8n8k4"); spec.host_sync = true;
            spec.note = std::string(what) + "; " + layout + "; " + shape +
                        (problem.empty() ? "" : "; STRUCTURE DIFFERS: " + problem);
            record(name, ctx.measure(spec, [&](cudaStream_t s) { const tcore::mbsr_device c = product(da, db, s, nullptr); },
                                     err));
        };
        run_variant("tc", [](const auto&... p) { return tcore::spgemm<tcore::tensor_core>(p...); }, tb::peak::fp64_tc,
                    "mBSR 4x4 tiles, tile pairs on f64 m8n8k4");
        run_variant("cc", [](const auto&... p) { return tcore::spgemm<tcore::cuda_core>(p...); }, tb::peak::fp64_cc,
                    "tc on the cuda_core backend");
        run_variant("cce", [](const auto&... p) { return tcore::examples::spgemm::spgemm_cce(p...); },
                    tb::peak::fp64_cc, "tile products as 64 FMAs (essential)");
    }

    for (const std::string cls : {"generated", "real", "user"}) {
        std::vector<double> v, cc_tc;
        for (const auto& [name, m] : times) {
            if (class_of[name] != cls) continue;
            const double base = cold_of(m, "base");
            double best = 0;
            for (const char* o : {"tc", "cc", "cce"}) {
                const double tt = cold_of(m, o);
                if (tt > 0 && (best == 0 || tt < best)) best = tt;
            }
            if (base > 0 && best > 0) v.push_back(base / best);
            if (cold_of(m, "tc") > 0 && cold_of(m, "cc") > 0) cc_tc.push_back(cold_of(m, "cc") / cold_of(m, "tc"));
        }
        if (!v.empty()) {
            ctx.summary("geomean t(base)/t(best tcore), " + cls + ", cold cache / streaming (" +
                            std::to_string(v.size()) + " cases)",
                        fixed(tb::geomean(v)));
            ctx.summary("min t(base)/t(best tcore), " + cls, fixed(*std::min_element(v.begin(), v.end())));
        }
        if (!cc_tc.empty()) ctx.summary("geomean t(cc)/t(tc), " + cls, fixed(tb::geomean(cc_tc)));
        std::vector<double> e2e;
        for (const auto& [name, m] : times)
            if (class_of[name] == cls && cold_of(m, "base") > 0 && cold_of(m, "tc-e2e") > 0)
                e2e.push_back(cold_of(m, "base") / cold_of(m, "tc-e2e"));
        if (!e2e.empty())
            ctx.summary("geomean t(base)/t(tc-e2e), CSR in and out, " + cls + ", cold cache / streaming (" +
                            std::to_string(e2e.size()) + " cases)",
                        fixed(tb::geomean(e2e)));
    }
    // Break-even: products with the same A that repay converting it once. Each
    // product then costs t(tc-e2e) - t(CSR -> mBSR) (tc's product and the
    // conversion of C to CSR), against t(base) for cuSPARSE.
    for (const auto& [name, m] : times) {
        const auto in = convert_in.find(name);
        const double base = cold_of(m, "base"), e2e = cold_of(m, "tc-e2e");
        if (in == convert_in.end() || base <= 0 || e2e <= 0) continue;
        const double per_product = e2e - in->second;
        ctx.summary("break-even " + name + ": products with the same A that repay its CSR -> mBSR conversion (" +
                        fixed(in->second, 3) + " ms; then " + fixed(per_product, 3) + " ms a product, CSR out, against " +
                        fixed(base, 3) + " ms for cuSPARSE)",
                    base > per_product ? fixed(std::ceil(in->second / (base - per_product)), 0) : std::string("never"));
    }
}

}  // namespace

void tcore_register_spgemm(tcore::bench::registry& r)
{
    r.add({"spgemm", "C = A A in FP64: mBSR tile pairs on the FP64 MMA (and end to end from CSR to CSR) vs cuSPARSE SpGEMM", run, true});
}
