// examples/gemv/gemv.cu - the GEMV workload (Quadrant IV): y = A x in FP64
// with x broadcast into the MMA's B operand and one column of the result
// kept (include/tcore/patterns/gemv.cuh, launchers in
// include/tcore/patterns/device/gemv.cuh).
//
// Cases (m x n, A row- or column-major, lda = n or m)
//   tall-skinny  4096x16, 4096x32, 11264x16 ("11K"), 32768x16, 40960x16
//   large        32768x4096, 4096x32768
// Variants
//   base        cublasDgemv (row-major A as the transposed column-major matrix)
//   tc          f64 m16n8k16: 16 rows x 16 columns per MMA
//   tc-m8n8k4   the same on f64 m8n8k4 (the Cubie study's shape)
//   cc, cc-m8n8k4  the tc kernels on the cuda_core backend
//   (tc and cc call the temp-storage overload, which splits the columns
//   into parts where the row tiles are too few for the device, as column-
//   major 4096x32768; temp is allocated once per case, outside the timing)
//   cce         plain dot products (row-major: lanes per row, 16-byte loads;
//               column-major: two rows per lane, columns split over warps;
//               gemv_cce.cuh)
// Accuracy is against an FP64 CPU reference (accumulated in long double).
// Summaries: time ratios base/tc, cc/tc, cce/tc per case.
// --input gemv:rows=M,cols=N,layout=row|col|both: the user's shapes instead.
#include "harness/harness.hpp"
#include "harness/inputs.hpp"

#include "gemv_cce.cuh"

#include <tcore/patterns/device/gemv.cuh>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace tb = tcore::bench;

using tb::device_array;

void cublas_check(cublasStatus_t status, const char* expr)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw tcore::error(std::string("gemv: ") + expr + " failed: " + cublasGetStatusName(status) + " (" +
                           cublasGetStatusString(status) + ")");
}
#define GEMV_CUBLAS_CHECK(call) cublas_check((call), #call)

/// One cuBLAS handle for the whole run.
struct cublas_handle {
    cublasHandle_t h = nullptr;
    cublas_handle() { GEMV_CUBLAS_CHECK(cublasCreate(&h)); }
    ~cublas_handle() { cublasDestroy(h); }
    cublas_handle(const cublas_handle&) = delete;
    cublas_handle& operator=(const cublas_handle&) = delete;
};

/// True if the filters select at least one of `names` (else the case is not prepared).
bool any_wanted(const tb::context& ctx, std::initializer_list<const char*> names)
{
    for (const char* n : names)
        if (ctx.want_variant(n)) return true;
    return false;
}

struct variant {
    std::string name;
    tb::peak compute;
    std::string note;
    std::function<void(cudaStream_t)> launch;
};

/// Temp bytes the temp-storage gemv asks for on this problem.
template <class Backend, class Shape>
std::size_t gemv_temp_bytes(tcore::layout L, long long m, long long n)
{
    std::size_t bytes = 0;
    tcore::gemv<Backend, Shape>(nullptr, bytes, L, m, n, nullptr, m, nullptr, nullptr);
    return bytes;
}

void run_case(tb::context& ctx, cublas_handle& cublas, long long m, long long n, tcore::layout L)
{
    using namespace tcore;
    const bool row = L == layout::row_major;
    const std::string name = std::string(row ? "row " : "col ") + std::to_string(m) + "x" + std::to_string(n);
    if (!ctx.announce_case(name)) return;
    if (!any_wanted(ctx, {"base", "tc", "tc-m8n8k4", "cc", "cc-m8n8k4", "cce"})) return;
    const double bytes = static_cast<double>(m * n + m + n) * sizeof(double);
    std::size_t free_b = 0, total_b = 0;
    TCORE_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes + (256u << 20) > free_b) {
        std::printf("gemv %s: skipped, needs %.2f GB of device memory\n", name.c_str(), bytes / 1e9);
        return;
    }
    const long long lda = row ? n : m;
    const std::vector<double> a = tb::random_uniform(static_cast<std::size_t>(m * n), 0x9e3000ull + m * 7 + n);
    const std::vector<double> x = tb::random_uniform(static_cast<std::size_t>(n), 0x9e3001ull + n);
    std::vector<double> ref(static_cast<std::size_t>(m));
    if (row) {
        for (long long i = 0; i < m; ++i) {
            long double s = 0;
            for (long long k = 0; k < n; ++k) s += static_cast<long double>(a[i * lda + k]) * x[k];
            ref[i] = static_cast<double>(s);
        }
    } else {
        std::vector<long double> acc(static_cast<std::size_t>(m), 0);
        for (long long k = 0; k < n; ++k)
            for (long long i = 0; i < m; ++i) acc[i] += static_cast<long double>(a[k * lda + i]) * x[k];
        for (long long i = 0; i < m; ++i) ref[i] = static_cast<double>(acc[i]);
    }
    device_array<double> dA(a.size()), dx(x.size()), dy(ref.size());
    TCORE_CHECK(cudaMemcpy(dA.ptr, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice));
    TCORE_CHECK(cudaMemcpy(dx.ptr, x.data(), x.size() * sizeof(double), cudaMemcpyHostToDevice));
    // Temp storage of the tc/cc kernels (column parts where the row tiles are
    // too few for the device), sized for the largest of the four.
    std::size_t temp_bytes = 0;
    for (std::size_t b : {gemv_temp_bytes<tensor_core, f64_m16n8k16>(L, m, n),
                          gemv_temp_bytes<tensor_core, f64_m8n8k4>(L, m, n),
                          gemv_temp_bytes<cuda_core, f64_m16n8k16>(L, m, n),
                          gemv_temp_bytes<cuda_core, f64_m8n8k4>(L, m, n)})
        temp_bytes = std::max(temp_bytes, b);
    device_array<double> temp(temp_bytes / sizeof(double));
    void* pt = temp.ptr;
    const double* pA = dA.ptr;
    const double* px = dx.ptr;
    double* py = dy.ptr;
    cublasHandle_t h = cublas.h;
    auto mma = [=](auto backend, auto shape) {
        return [=](cudaStream_t s) {
            std::size_t b = temp_bytes;
            tcore::gemv<decltype(backend), decltype(shape)>(pt, b, L, m, n, pA, lda, px, py, s);
        };
    };
    const std::vector<variant> variants = {
        {"base", tb::peak::fp64_cc, row ? "cublasDgemv, CUBLAS_OP_T on the column-major view" : "cublasDgemv, CUBLAS_OP_N",
         [=](cudaStream_t s) {
             const double one = 1.0, zero = 0.0;
             GEMV_CUBLAS_CHECK(cublasSetStream(h, s));
             if (row)
                 GEMV_CUBLAS_CHECK(cublasDgemv(h, CUBLAS_OP_T, static_cast<int>(n), static_cast<int>(m), &one, pA,
                                               static_cast<int>(lda), px, 1, &zero, py, 1));
             else
                 GEMV_CUBLAS_CHECK(cublasDgemv(h, CUBLAS_OP_N, static_cast<int>(m), static_cast<int>(n), &one, pA,
                                               static_cast<int>(lda), px, 1, &zero, py, 1));
         }},
        {"tc", tb::peak::fp64_tc, "x broadcast into B, column 0 of D; f64 m16n8k16",
         mma(tensor_core{}, f64_m16n8k16{})},
        {"tc-m8n8k4", tb::peak::fp64_tc, "x broadcast into B, column 0 of D; f64 m8n8k4",
         mma(tensor_core{}, f64_m8n8k4{})},
        {"cc", tb::peak::fp64_cc, "tc's kernel on the cuda_core backend",
         mma(cuda_core{}, f64_m16n8k16{})},
        {"cc-m8n8k4", tb::peak::fp64_cc, "tc-m8n8k4's kernel on the cuda_core backend",
         mma(cuda_core{}, f64_m8n8k4{})},
        {"cce", tb::peak::fp64_cc, row ? "dot products, lanes per row, 16-byte loads"
                                       : "dot products, two rows per lane, columns split over warps",
         [=](cudaStream_t s) { tcore::examples::gemv::gemv_cce(L, m, n, pA, lda, px, py, s); }},
    };
    std::vector<double> got(ref.size());
    std::map<std::string, double> times;
    for (const variant& v : variants) {
        if (!ctx.want_variant(v.name)) continue;
        TCORE_CHECK(cudaMemsetAsync(py, 0xFF, ref.size() * sizeof(double), ctx.stream()));  // NaN
        v.launch(ctx.stream());
        TCORE_CHECK(cudaStreamSynchronize(ctx.stream()));
        TCORE_CHECK(cudaMemcpy(got.data(), py, got.size() * sizeof(double), cudaMemcpyDeviceToHost));
        const tb::accuracy err = tb::accuracy_of(ref.data(), got.data(), got.size());
        tb::row_spec spec;
        spec.case_name = name;
        spec.variant = v.name;
        spec.bytes = bytes;
        spec.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n);
        spec.ceiling = tb::peak::memory;
        spec.compute = v.compute;
        spec.footprint_bytes = static_cast<std::size_t>(bytes);
        spec.note = v.note;
        const std::vector<double> med = ctx.measure(spec, v.launch, err);
        if (!med.empty()) times[v.name] = med.front();
    }
    const auto tc = times.find("tc");
    if (tc != times.end() && tc->second > 0)
        for (const char* other : {"base", "cc", "cce"}) {
            const auto it = times.find(other);
            if (it != times.end()) ctx.summary(name + ": t(" + other + ")/t(tc)", tb::fixed3(it->second / tc->second));
        }
}

/// One --input gemv:rows=M,cols=N,layout=row|col|both: "" or what is wrong.
std::string user_shape(const tb::user_input& in, long long& m, long long& n, std::vector<tcore::layout>& layouts)
{
    if (!tb::parse_whole(in.get("rows"), 1, 1LL << 31, m)) return "rows: a whole number from 1 to 2^31 expected";
    if (!tb::parse_whole(in.get("cols"), 1, 1LL << 31, n)) return "cols: a whole number from 1 to 2^31 expected";
    const std::string l = in.get("layout", "both");
    if (l != "row" && l != "col" && l != "both") return "layout: row, col or both expected";
    layouts.clear();
    if (l != "col") layouts.push_back(tcore::layout::row_major);
    if (l != "row") layouts.push_back(tcore::layout::col_major);
    return "";
}

void run(tb::context& ctx)
{
    struct shape {
        long long m, n;
    };
    if (const std::vector<tb::user_input> inputs = ctx.inputs(); !inputs.empty()) {
        std::unique_ptr<cublas_handle> cublas;
        for (const tb::user_input& in : inputs) {
            long long m = 0, n = 0;
            std::vector<tcore::layout> layouts;
            if (const std::string problem = user_shape(in, m, n, layouts); !problem.empty())
                throw tcore::error("gemv --input: " + problem);
            for (tcore::layout L : layouts) {
                if (!cublas && !ctx.opts().list) cublas = std::make_unique<cublas_handle>();
                if (cublas) run_case(ctx, *cublas, m, n, L);
                else ctx.announce_case(std::string(L == tcore::layout::row_major ? "row " : "col ") +
                                       std::to_string(m) + "x" + std::to_string(n));
            }
        }
        return;
    }
    std::vector<shape> shapes = {{4096, 16}, {4096, 32}, {11264, 16}, {32768, 16}, {40960, 16}};
    if (ctx.quick()) shapes.push_back({8192, 1024});
    else shapes.insert(shapes.end(), {{32768, 4096}, {4096, 32768}});
    std::unique_ptr<cublas_handle> cublas;  // made once a case is run (not in --list mode)
    for (const shape& s : shapes)
        for (tcore::layout L : {tcore::layout::row_major, tcore::layout::col_major}) {
            if (!cublas && !ctx.opts().list) cublas = std::make_unique<cublas_handle>();
            if (cublas) run_case(ctx, *cublas, s.m, s.n, L);
            else {
                const std::string name = std::string(L == tcore::layout::row_major ? "row " : "col ") +
                                         std::to_string(s.m) + "x" + std::to_string(s.n);
                ctx.announce_case(name);
            }
        }
}

}  // namespace

void tcore_register_gemv(tcore::bench::registry& r)
{
    tb::workload w{"gemv",
                   "y = A x in FP64, x broadcast into the B operand, one column of D kept (tall-skinny and large, "
                   "row/col-major); base cuBLAS, tc, cc, cce",
                   run};
    w.input_keys = {{"rows", "M, the rows of A"}, {"cols", "N, the columns of A"},
                    {"layout", "row, col or both (default both)"}};
    w.check_input = [](const tb::user_input& in) {
        long long m = 0, n = 0;
        std::vector<tcore::layout> layouts;
        return user_shape(in, m, n, layouts);
    };
    r.add(w);
}
