// examples/multi_gpu/spmv_mgpu.cu - tcore-mgpu-spmv: y = A x in FP64 with
// A split by rows over 1, 2, 4, ... GPUs (contiguous ranges of about nnz / N
// entries), x gathered with NCCL, each GPU's rows multiplied by tcore's SpMV
// (tcore::dasp_spmv on its part). Strong scaling (one matrix, --nnz entries)
// and weak scaling (--weak-nnz entries per GPU); one CSV row per (scaling,
// GPUs, backend, gather) with a `gpus` column. README.md (## SpMV) has the
// options, the commands and the measurements.
//
// Variants: tc (tcore::tensor_core), cc (tcore::cuda_core), cce (the policy
// tcore::examples::spmv::spmv_cce of examples/spmv/spmv_cce.cuh through
// dasp_spmv::run_with), as in the single-GPU workload (no bundles), each
// with the x gather `allgather` (pieces padded to the longest, one
// ncclAllGather), `allgather+overlap` (the same, with the product of the
// entries in the own x piece running while the gather does, the rest added
// after it) and `broadcast` (one ncclBroadcast per piece, grouped); one GPU
// has no gather ("none"). Time per SpMV = gather + local product, the
// slowest rank per repetition (spmv_mgpu_timing.cuh: the bench/harness
// protocol); speedup = GFLOP/s over the same variant's on one GPU (strong:
// t(1) / t(N); weak: the one-GPU case of --weak-nnz entries).
//
// One process drives every GPU (ncclCommInitAll), or one process per GPU:
//   tcore-mgpu-spmv --rank R --ranks N --id-file PATH [--device D]
// rank 0 writes the ncclUniqueId to PATH, the others wait for it; the runs
// on fewer GPUs use communicators split off the N ranks (ncclCommSplit), the
// one-GPU run none. Only rank 0 writes output.
#include "../spmv/spmv_cce.cuh"
#include "nccl_check.hpp"
#include "spmv_mgpu.cuh"
#include "spmv_mgpu_split.hpp"
#include "spmv_mgpu_timing.cuh"

#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include <tcore/io/matrix_market.hpp>
#include <tcore/patterns/device/spmv.cuh>
#include <tcore/sparse/generate.hpp>

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace mg = tcore::mgpu;
namespace gen = tcore::sparse::gen;
namespace tb = tcore::bench;

/// How x is gathered, and whether the local product overlaps the gather.
struct gather_mode {
    mg::x_gather gather;
    bool overlap;
    std::string name() const { return std::string(mg::gather_name(gather)) + (overlap ? "+overlap" : ""); }
};

struct options {
    std::string out = "tcore-mgpu-spmv.csv";
    bool quick = false;
    int gpus = 0;               ///< 0: every GPU present (one process) or --ranks
    long long nnz = 0;          ///< strong scaling size (0: 4e8, --quick 4e6)
    long long weak_nnz = 0;     ///< weak scaling size per GPU (0: nnz / 4)
    std::string cls = "fem3d";
    std::string matrix;         ///< a .mtx file instead of a generated class (strong scaling only)
    std::vector<std::string> backends = {"tc", "cc", "cce"};
    std::vector<gather_mode> gathers = {{mg::x_gather::allgather, false},
                                        {mg::x_gather::allgather, true},
                                        {mg::x_gather::broadcast, false}};
    bool strong = true, weak = true;
    double warmup_s = -1, min_time_s = 0.2;
    int rank = -1, ranks = 0, device = -1;
    std::string id_file;
};

void usage()
{
    std::printf(
        "tcore-mgpu-spmv: FP64 SpMV split by rows over the GPUs of a host (NCCL)\n"
        "  --out FILE.csv       rows (default tcore-mgpu-spmv.csv)\n"
        "  --quick              4e6 nonzeros (strong), 1e6 per GPU (weak), short warm-up\n"
        "  --gpus N             use at most N GPUs: runs on 1, 2, 4, ... and N\n"
        "  --nnz N              strong scaling matrix size (default 4e8)\n"
        "  --weak-nnz N         weak scaling size per GPU (default nnz / 4)\n"
        "  --class NAME         fem3d (default), lattice4d, dense_blocks, banded, power_law\n"
        "  --matrix FILE.mtx    a Matrix Market file instead (strong scaling only)\n"
        "  --backend LIST       tc,cc,cce (default all)\n"
        "  --gather LIST        allgather, allgather+overlap, broadcast, broadcast+overlap\n"
        "                       (default the first three)\n"
        "  --scaling S          strong, weak or both (default)\n"
        "  --warmup S           warm-up seconds per row (default 1, --quick 0.2)\n"
        "  --rank R --ranks N --id-file PATH [--device D]\n"
        "                       one process per GPU (rank 0 writes the NCCL id to PATH)\n");
}

long long parse_count(const std::string& flag, const std::string& v)
{
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    tcore::require(end && *end == '\0' && d >= 1 && d < 2.2e9, "tcore-mgpu-spmv",
                   flag + " expects a count from 1 to 2.1e9 (e.g. 4e8), got '" + v + "'");
    return std::llround(d);
}

int parse_int(const std::string& flag, const std::string& v, int lo)
{
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    tcore::require(end && *end == '\0' && n >= lo && n < (1 << 20), "tcore-mgpu-spmv",
                   flag + " expects an integer >= " + std::to_string(lo) + ", got '" + v + "'");
    return static_cast<int>(n);
}

options parse(int argc, char** argv)
{
    options o;
    const char* where = "tcore-mgpu-spmv";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            tcore::require(i + 1 < argc, where, a + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            usage();
            std::exit(0);
        } else if (a == "--out") o.out = value();
        else if (a == "--quick") o.quick = true;
        else if (a == "--gpus") o.gpus = parse_int(a, value(), 1);
        else if (a == "--nnz") o.nnz = parse_count(a, value());
        else if (a == "--weak-nnz") o.weak_nnz = parse_count(a, value());
        else if (a == "--class") o.cls = value();
        else if (a == "--matrix") {
            o.matrix = value();
            tcore::require(std::filesystem::is_regular_file(o.matrix), where,
                           "--matrix " + o.matrix + ": not a readable file");
        }
        else if (a == "--backend") {
            o.backends = tb::split_list(value());
            for (const std::string& b : o.backends)
                tcore::require(b == "tc" || b == "cc" || b == "cce", where, "--backend takes tc, cc, cce; got '" + b + "'");
            tcore::require(!o.backends.empty(), where, "--backend names no backend");
        } else if (a == "--gather") {
            o.gathers.clear();
            for (const std::string& g : tb::split_list(value())) {
                const std::size_t plus = g.find('+');
                const std::string method = g.substr(0, plus), extra = plus == std::string::npos ? "" : g.substr(plus);
                tcore::require((method == "allgather" || method == "broadcast") && (extra.empty() || extra == "+overlap"),
                               where, "--gather takes allgather, allgather+overlap, broadcast, broadcast+overlap; got '" + g + "'");
                o.gathers.push_back({method == "allgather" ? mg::x_gather::allgather : mg::x_gather::broadcast,
                                     !extra.empty()});
            }
            tcore::require(!o.gathers.empty(), where, "--gather names no method");
        } else if (a == "--scaling") {
            const std::string s = value();
            tcore::require(s == "strong" || s == "weak" || s == "both", where, "--scaling takes strong, weak or both");
            o.strong = s != "weak";
            o.weak = s != "strong";
        } else if (a == "--warmup") {
            const std::string v = value();
            char* end = nullptr;
            o.warmup_s = std::strtod(v.c_str(), &end);
            tcore::require(!v.empty() && end && *end == '\0' && o.warmup_s >= 0 && o.warmup_s <= 60, where,
                           "--warmup takes 0 to 60 seconds, got '" + v + "'");
        } else if (a == "--rank") o.rank = parse_int(a, value(), 0);
        else if (a == "--ranks") o.ranks = parse_int(a, value(), 1);
        else if (a == "--id-file") o.id_file = value();
        else if (a == "--device") o.device = parse_int(a, value(), 0);
        else tcore::require(false, where, "unknown option '" + a + "' (--help lists them)");
    }
    bool known = false;
    for (const auto c : gen::all_classes()) known = known || o.cls == gen::class_name(c);
    tcore::require(known, where, "--class: unknown class '" + o.cls + "'");
    const bool multi = o.rank >= 0 || o.ranks > 0 || !o.id_file.empty();
    tcore::require(!multi || (o.rank >= 0 && o.ranks >= 1 && !o.id_file.empty()), where,
                   "one process per GPU needs --rank, --ranks and --id-file together");
    tcore::require(!multi || o.rank < o.ranks, where, "--rank must be below --ranks");
    tcore::require(o.device < 0 || multi, where, "--device goes with --rank (one process per GPU)");
    if (o.nnz == 0) o.nnz = o.quick ? 4000000 : 400000000;
    if (o.weak_nnz == 0) o.weak_nnz = std::max(1LL, o.nnz / 4);
    if (o.warmup_s < 0) o.warmup_s = o.quick ? 0.2 : 1.0;
    if (!o.matrix.empty()) o.weak = false;
    return o;
}

std::string count_name(long long n)
{
    int e = 0;
    long long p = 1;
    while (p * 10 <= n) p *= 10, ++e;
    return n % p == 0 ? std::to_string(n / p) + "e" + std::to_string(e) : std::to_string(n);
}

double seconds_since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// A matrix of a run, its x, and how long it took to make.
struct matrix_case {
    std::string name;
    long long target = 0;  ///< generated: the generator's size; 0 for a file
    tcore::sparse::csr a;
    std::vector<double> x;
    double make_s = 0;
    bool announced = false;
};

std::shared_ptr<matrix_case> make_case(const options& o, long long target)
{
    auto m = std::make_shared<matrix_case>();
    const auto t0 = std::chrono::steady_clock::now();
    if (!o.matrix.empty()) {
        m->a = tcore::io::read_matrix_market(o.matrix);
        const std::size_t slash = o.matrix.find_last_of('/');
        std::string stem = o.matrix.substr(slash == std::string::npos ? 0 : slash + 1);
        if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".mtx") == 0) stem.resize(stem.size() - 4);
        m->name = "user/" + stem;
    } else {
        gen::matrix_class cls = gen::matrix_class::fem3d;
        for (const auto c : gen::all_classes())
            if (o.cls == gen::class_name(c)) cls = c;
        m->a = gen::generate(cls, target, 0x5b3e0000ull + static_cast<std::uint64_t>(target));
        m->name = o.cls + "/" + count_name(target);
        m->target = target;
    }
    gen::splitmix64 r(0x7e57ull + m->name.size());
    m->x.resize(static_cast<std::size_t>(m->a.cols));
    for (double& v : m->x) v = r.value();
    m->make_s = seconds_since(t0);
    return m;
}

/// One CSV / console row.
struct result {
    std::string scaling, case_name, variant, backend, gather;
    int gpus = 0, processes = 1;
    long long rows = 0, cols = 0, nnz = 0, max_part_nnz = 0;
    mg::spmv_timing t;
    double gflops = 0, gbs = 0, speedup = 0, efficiency = 0;
    double gather_mb = 0, halo_mb = 0, remote_cols = 0, remote_ranks = 0, footprint_mb = 0;
    double max_rel = 0, max_abs = 0, over_bound = 0, mismatched = 0;
    double make_s = 0, pack_s = 0;
    std::string cache;
};

const char* const csv_header =
    "workload,scaling,case,variant,backend,gather,gpus,processes,rows,cols,nnz,nnz_per_gpu,max_part_nnz,cache,"
    "median_ms,min_ms,max_ms,reps,comm_ms,comm_fraction,gflops,gbs,speedup,efficiency,gather_mb_per_gpu,"
    "halo_mb_per_gpu,remote_cols_max,remote_ranks_max,footprint_mb_per_gpu,max_rel_err,max_abs_err,over_bound,mismatched,make_s,pack_s,"
    "device";

std::string csv_line(const result& r, const std::string& device)
{
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "mgpu-spmv,%s,%s,%s,%s,%s,%d,%d,%lld,%lld,%lld,%lld,%lld,%s,%.6f,%.6f,%.6f,%d,%.6f,%.4f,%.2f,%.2f,%.3f,"
                  "%.3f,%.3f,%.3f,%.0f,%.0f,%.1f,%.3g,%.3g,%.0f,%.0f,%.2f,%.2f,%s",
                  r.scaling.c_str(), r.case_name.c_str(), r.variant.c_str(), r.backend.c_str(), r.gather.c_str(), r.gpus,
                  r.processes, r.rows, r.cols, r.nnz, r.nnz / std::max(1, r.gpus), r.max_part_nnz, r.cache.c_str(),
                  r.t.total.median_ms, r.t.total.min_ms, r.t.total.max_ms, r.t.total.repetitions, r.t.comm_ms,
                  r.t.total.median_ms > 0 ? r.t.comm_ms / r.t.total.median_ms : 0.0, r.gflops, r.gbs, r.speedup,
                  r.efficiency, r.gather_mb, r.halo_mb, r.remote_cols, r.remote_ranks, r.footprint_mb, r.max_rel, r.max_abs,
                  r.over_bound, r.mismatched, r.make_s, r.pack_s, device.c_str());
    return buf;
}

/// A backend (or the cce policy): its name, type name, and the two calls the run needs.
struct backend_entry {
    const char* name;
    const char* tag;
    void (*run)(mg::row_split_spmv&);
    mg::spmv_timing (*time)(mg::row_split_spmv&, double, const tb::rep_policy&);
};

template <class Backend>
void run_once(mg::row_split_spmv& s)
{
    s.run<Backend>();
}

template <class Backend>
mg::spmv_timing time_it(mg::row_split_spmv& s, double warmup_s, const tb::rep_policy& p)
{
    return mg::time_spmv<Backend>(s, warmup_s, p);
}

const backend_entry backends[] = {
    {"tc", "tensor_core", run_once<tcore::tensor_core>, time_it<tcore::tensor_core>},
    {"cc", "cuda_core", run_once<tcore::cuda_core>, time_it<tcore::cuda_core>},
    {"cce", "spmv_cce", run_once<tcore::examples::spmv::spmv_cce>, time_it<tcore::examples::spmv::spmv_cce>},
};

/// Everything measured so far (rank 0 prints and writes them).
struct run_state {
    options opts;
    bool writer = true;  ///< this process writes the rows (world rank 0)
    int processes = 1;
    std::string device;
    std::size_t l2_bytes = 0;
    std::ofstream csv;
    std::map<std::string, double> one_gpu_gflops;  ///< scaling + variant -> GFLOP/s on one GPU
};

/// Measures every backend and gather of one (matrix, rank set).
void measure(run_state& st, const mg::rank_set& rs, const matrix_case& m, const std::string& scaling)
{
    const options& o = st.opts;
    const tcore::sparse::csr& a = m.a;
    const int n = rs.ranks();
    const mg::row_split split = mg::split_rows_by_nnz(a, n);
    std::vector<gather_mode> gathers = o.gathers;
    if (n == 1) gathers = {{mg::x_gather::allgather, false}};  // one GPU gathers nothing
    for (const gather_mode& gm : gathers) {
        const mg::x_gather g = gm.gather;
        const auto t0 = std::chrono::steady_clock::now();
        mg::row_split_spmv s(rs, a, split, g, gm.overlap, tcore::sparse::dasp_options{}, m.x);
        const double pack_s = mg::agree_max(rs, seconds_since(t0));
        // Facts of the split, over all ranks.
        std::vector<std::vector<double>> facts;
        for (int i = 0; i < s.local(); ++i) {
            const mg::rank_part& p = s.part(i);
            const double received = g == mg::x_gather::allgather
                                        ? 8.0 * (n - 1) * split.longest_piece()
                                        : 8.0 * (split.col_begin.back() - p.piece);
            const double footprint = static_cast<double>(p.matrix.device_bytes() + p.remote_matrix.device_bytes()) +
                                     8.0 * (s.x_length() + p.rows);
            facts.push_back({static_cast<double>(p.nnz), n > 1 ? received : 0.0, 8.0 * p.remote.distinct,
                             static_cast<double>(p.remote.distinct), static_cast<double>(p.remote.source_ranks),
                             footprint});
        }
        const std::vector<double> fmax = mg::reduce_over_ranks(rs, facts, ncclMax);
        for (const std::string& bname : o.backends) {
            const backend_entry* b = nullptr;
            for (const backend_entry& e : backends)
                if (bname == e.name) b = &e;
            // Accuracy: x and y poisoned, one SpMV, every row against the FP64 CPU
            // reference within 2 gamma_k sum_j |a_ij x_j| (k = the row's length).
            s.poison_x();
            s.poison_y();
            for (int i = 0; i < s.local(); ++i)
                s.set_x_piece(i, m.x.data() + split.col_begin[s.part(i).rank]);
            b->run(s);
            rs.synchronize();
            std::vector<std::vector<double>> err_max, err_sum;
            for (int i = 0; i < s.local(); ++i) {
                const std::vector<double> y = s.y_of(i);
                const mg::rank_part& p = s.part(i);
                double max_rel = 0, max_abs = 0, over = 0, bad = 0;
                for (std::size_t r = 0; r < y.size(); ++r) {
                    const double ref = p.y_ref[r];
                    if (!std::isfinite(y[r])) {
                        bad += 1;
                        continue;
                    }
                    const double e = std::fabs(y[r] - ref);
                    max_abs = std::max(max_abs, e);
                    if (ref != 0) max_rel = std::max(max_rel, e / std::fabs(ref));
                    over += e > p.y_tol[r];
                }
                err_max.push_back({max_rel, max_abs});
                err_sum.push_back({over, bad});
            }
            const std::vector<double> emax = mg::reduce_over_ranks(rs, err_max, ncclMax);
            const std::vector<double> esum = mg::reduce_over_ranks(rs, err_sum, ncclSum);

            tb::rep_policy policy;
            policy.min_time_s = o.min_time_s;
            result r;
            r.t = b->time(s, o.warmup_s, policy);
            r.scaling = scaling;
            r.case_name = m.name;
            r.variant = b->name;
            r.backend = b->tag;
            r.gather = n == 1 ? "none" : gm.name();
            r.gpus = n;
            r.processes = st.processes == 1 ? 1 : n;
            r.rows = a.rows;
            r.cols = a.cols;
            r.nnz = a.nnz();
            r.max_part_nnz = static_cast<long long>(fmax[0]);
            r.cache = fmax[5] <= static_cast<double>(st.l2_bytes) ? "hot" : "stream";
            r.gflops = tb::gflops_of(2.0 * static_cast<double>(a.nnz()), r.t.total.median_ms);
            r.gbs = tb::gbs_of(12.0 * static_cast<double>(a.nnz()) + 8.0 * (a.rows + a.cols), r.t.total.median_ms);
            const std::string key = scaling + "/" + b->name;
            if (n == 1) st.one_gpu_gflops[key] = r.gflops;
            const auto base = st.one_gpu_gflops.find(key);
            r.speedup = base != st.one_gpu_gflops.end() && base->second > 0 ? r.gflops / base->second : 0;
            r.efficiency = r.speedup / n;
            r.gather_mb = fmax[1] / 1e6;
            r.halo_mb = n > 1 ? fmax[2] / 1e6 : 0;
            r.remote_cols = fmax[3];
            r.remote_ranks = fmax[4];
            r.footprint_mb = fmax[5] / 1e6;
            r.max_rel = emax[0];
            r.max_abs = emax[1];
            r.over_bound = esum[0];
            r.mismatched = esum[1];
            r.make_s = m.make_s;
            r.pack_s = pack_s;
            if (!st.writer) continue;
            std::printf("%-6s %-16s %-3s %-17s gpus %d: %9.4f ms (comm %.4f ms, %4.1f%%) %8.1f GFLOP/s  %5.2fx"
                        "  err %.2g rel (%g over bound, %g non-finite)  part nnz max %lld, remote cols %g from %g ranks\n",
                        r.scaling.c_str(), r.case_name.c_str(), r.variant.c_str(), r.gather.c_str(), n,
                        r.t.total.median_ms, r.t.comm_ms,
                        r.t.total.median_ms > 0 ? 100.0 * r.t.comm_ms / r.t.total.median_ms : 0.0, r.gflops,
                        r.speedup, r.max_rel, r.over_bound, r.mismatched, r.max_part_nnz, r.remote_cols, r.remote_ranks);
            std::fflush(stdout);
            st.csv << csv_line(r, st.device) << '\n';
            st.csv.flush();
        }
    }
}

/// The GPU counts of the run: 1, 2, 4, ... up to `limit`, and `limit` itself.
std::vector<int> gpu_counts(int limit)
{
    std::vector<int> c;
    for (int n = 1; n <= limit; n *= 2) c.push_back(n);
    if (c.back() != limit) c.push_back(limit);
    return c;
}

/// The matrices of one GPU count (strong, then weak), made on demand and kept
/// while the next count needs them.
struct matrix_cache {
    std::shared_ptr<matrix_case> strong, weak;
    std::shared_ptr<matrix_case> get(const options& o, bool is_strong, long long target)
    {
        std::shared_ptr<matrix_case>& slot = is_strong ? strong : weak;
        if (slot && slot->target == target) return slot;
        if (!o.matrix.empty() && slot) return slot;
        if (!is_strong && strong && strong->target == target) return strong;
        slot.reset();  // free the old one first
        slot = make_case(o, target);
        return slot;
    }
};

void run_all(run_state& st, const std::vector<int>& counts,
             const std::function<std::unique_ptr<mg::rank_set>(int)>& ranks_for)
{
    const options& o = st.opts;
    matrix_cache cache;
    for (const int n : counts) {
        const std::unique_ptr<mg::rank_set> rs = ranks_for(n);
        if (!rs) continue;  // this process has no rank in the run on n GPUs
        for (const bool is_strong : {true, false}) {
            if (is_strong ? !o.strong : !o.weak) continue;
            const long long target = is_strong ? o.nnz : o.weak_nnz * n;
            const std::shared_ptr<matrix_case> m = cache.get(o, is_strong, target);
            if (st.writer && !m->announced)
                std::printf("%s %s: %d x %d, %lld nonzeros, made in %.2f s\n", is_strong ? "strong" : "weak",
                            m->name.c_str(), m->a.rows, m->a.cols, m->a.nnz(), m->make_s);
            m->announced = true;
            try {
                measure(st, *rs, *m, is_strong ? "strong" : "weak");
            } catch (const tcore::error& e) {
                // One process: nothing of this run is in flight on other ranks (packing
                // and upload come before any collective), so the next run can go on.
                // Ranks in other processes could not follow: there the error ends the run.
                if (st.processes > 1) throw;
                std::printf("%s %s on %d GPUs: skipped: %s\n", is_strong ? "strong" : "weak", m->name.c_str(), n,
                            e.what());
                cudaGetLastError();  // clear the error state a failed allocation leaves
            }
        }
    }
}

/// rank 0: a new ncclUniqueId written to `path` (through a temporary and a
/// rename, so a reader never sees half of it); others: waits for the file.
ncclUniqueId exchange_id(const std::string& path, int rank)
{
    ncclUniqueId id;
    if (rank == 0) {
        TCORE_NCCL_CHECK(ncclGetUniqueId(&id));
        const std::string tmp = path + ".tmp";
        std::FILE* f = std::fopen(tmp.c_str(), "wb");
        tcore::require(f != nullptr, "tcore-mgpu-spmv", "cannot write " + tmp + ": " + std::strerror(errno));
        const bool ok = std::fwrite(&id, sizeof id, 1, f) == 1;
        tcore::require(std::fclose(f) == 0 && ok, "tcore-mgpu-spmv", "writing " + tmp + " failed");
        tcore::require(std::rename(tmp.c_str(), path.c_str()) == 0, "tcore-mgpu-spmv",
                       "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
        return id;
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
            const bool ok = std::fread(&id, sizeof id, 1, f) == 1;
            std::fclose(f);
            if (ok) return id;
        }
        tcore::require(seconds_since(t0) < 120, "tcore-mgpu-spmv",
                       "no NCCL id in " + path + " after 120 s (is rank 0 running with the same --id-file?)");
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

int run_main(const options& parsed)
{
    run_state st;
    st.opts = parsed;
    const options& o = st.opts;
    int present = 0;
    const cudaError_t e = cudaGetDeviceCount(&present);
    tcore::require(e == cudaSuccess && present > 0, "tcore-mgpu-spmv",
                   std::string("no CUDA device (") + cudaGetErrorString(e) + ")");
    const bool multi = o.rank >= 0;
    const int device = multi ? (o.device >= 0 ? o.device : o.rank % present) : 0;
    tcore::require(device < present, "tcore-mgpu-spmv",
                   "--device " + std::to_string(device) + " but " + std::to_string(present) + " GPUs present");
    cudaDeviceProp prop{};
    TCORE_CHECK(cudaGetDeviceProperties(&prop, device));
    st.device = prop.name;
    st.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    st.writer = !multi || o.rank == 0;
    st.processes = multi ? o.ranks : 1;
    const int limit = multi ? (o.gpus > 0 ? std::min(o.gpus, o.ranks) : o.ranks) : (o.gpus > 0 ? o.gpus : present);
    tcore::require(multi || limit <= present, "tcore-mgpu-spmv",
                   "--gpus " + std::to_string(limit) + " but " + std::to_string(present) + " GPUs present");
    const std::vector<int> counts = gpu_counts(limit);
    if (st.writer) {
        st.csv.open(o.out);
        tcore::require(static_cast<bool>(st.csv), "tcore-mgpu-spmv", "cannot write " + o.out);
        st.csv << csv_header << '\n';
        std::printf("tcore-mgpu-spmv: %s x %d (%s), GPUs", st.device.c_str(), multi ? o.ranks : present,
                    multi ? "one process per GPU" : "one process");
        for (const int n : counts) std::printf(" %d", n);
        std::printf("; strong %s, weak %s per GPU\n", o.strong ? count_name(o.nnz).c_str() : "off",
                    o.weak ? count_name(o.weak_nnz).c_str() : "off");
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (!multi) {
        run_all(st, counts, [](int n) { return std::make_unique<mg::rank_set>(mg::rank_set::all_local(n)); });
    } else {
        TCORE_CHECK(cudaSetDevice(device));
        const ncclUniqueId id = exchange_id(o.id_file, o.rank);
        ncclComm_t world = nullptr;
        TCORE_NCCL_CHECK(ncclCommInitRank(&world, o.ranks, id, o.rank));
        if (o.rank == 0) std::remove(o.id_file.c_str());  // every rank has joined
        // The communicators of the runs on fewer GPUs, all made now (ncclCommSplit
        // is collective over every rank), so that a rank without a part in a run
        // never waits inside a split while the others measure.
        std::map<int, ncclComm_t> sub;
        try {
            for (const int n : counts)
                if (n > 1 && n < o.ranks) {
                    ncclComm_t c = nullptr;  // ranks >= n get none
                    TCORE_NCCL_CHECK(ncclCommSplit(world, o.rank < n ? 0 : NCCL_SPLIT_NOCOLOR, o.rank, &c, nullptr));
                    sub[n] = c;
                }
            run_all(st, counts, [&](int n) -> std::unique_ptr<mg::rank_set> {
                if (o.rank >= n) return nullptr;
                ncclComm_t c = n == 1 ? nullptr : n == o.ranks ? world : sub.at(n);
                return std::make_unique<mg::rank_set>(mg::rank_set::of_communicator(c, o.rank, n, device, false));
            });
        } catch (...) {
            for (const auto& [n, c] : sub)
                if (c) ncclCommAbort(c);
            ncclCommAbort(world);
            throw;
        }
        for (const auto& [n, c] : sub)
            if (c) TCORE_NCCL_CHECK(ncclCommDestroy(c));
        TCORE_NCCL_CHECK(ncclCommDestroy(world));
    }
    if (st.writer) std::printf("done in %.1f s; rows in %s\n", seconds_since(t0), o.out.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    options o;
    try {
        o = parse(argc, argv);
    } catch (const std::exception& e) {  // bad arguments: one line, exit 2
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    try {
        return run_main(o);
    } catch (const std::exception& e) {
        const std::string what = e.what();
        std::fprintf(stderr, "%s%s\n", what.rfind("tcore-mgpu-spmv", 0) == 0 ? "" : "tcore-mgpu-spmv: ", what.c_str());
        return 1;
    }
}
