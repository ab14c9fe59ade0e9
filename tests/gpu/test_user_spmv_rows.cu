// libs: CUDA::cusparse
// tests/gpu/test_user_spmv_rows.cu - a worked user kernel: y = A x for a
// random sparse matrix, written as a user would with the row-block building
// block of tcore/patterns/spmv.cuh (spmv_block_rows), beside the cuSPARSE
// CSR SpMV it replaces (cusparseSpMV, CUSPARSE_SPMV_CSR_ALG1).
//
// Packing (host, the user's own code): rows in blocks of 8 (the last block
// short: the row counts are not multiples of 8); block r holds nblk(r) =
// ceil(longest row / 4) 32-blocks, entry e of its row g at slot 32 (e / 4) +
// 4 g + e % 4, padding value 0 and column -1. Row lengths are 1 to 40, so a
// block spans 1 to 10 32-blocks (several MMA k-blocks, and partial steps of
// spmv_step_blocks); columns are random and distinct within a row, values
// and x random and never zero. One warp per row block; the lane with
// holds_diag(lane) writes row 8 r + lane / 4 if it exists. Backends
// tensor_core (f64_m8n8k4 and f64_m16n8k16) and cuda_core (f64_m8n8k4).
//
// A second user kernel does what the launcher's long-row path does with
// pieces of a row: it splits row block r's 32-blocks into two runs, 0 .. h-1
// and h .. nblk-1 with h = r % (nblk + 1) (the first run is empty for r = 0,
// the second where r % (nblk + 1) = nblk, and h is mostly not a multiple of
// spmv_step_blocks, so a step straddles the split), and calls
// spmv_accumulate on each: the second run either continues into the first
// one's accumulator or fills a second one, whose row sums are then added.
// Row g's sum is diag_of(acc) on the MMA backends and the quad sum of ess
// (the 4 lanes of row g, two __shfl_xor_sync) with a row-block policy in
// place of the backend. Backends tensor_core and cuda_core (f64_m16n8k8: 2
// blocks per MMA, 4 per step) and the policy spmv_cce of the SpMV
// example's cce (examples/spmv/spmv_cce.cuh: one FMA per slot, 2 blocks per
// step).
// y is poisoned with NaN before every run (all kernels and cuSPARSE).
//
// Tolerance (FP64, u = 2^-53). Row i is an inner product of its n entries,
// S_i = sum_j |a_ij x_j|. Whatever order the products are added in (MMA
// k-slots and 32-blocks, CUDA-core FMA chains and shuffles, cuSPARSE's
// order), each product is rounded at most once and each term goes through
// at most n - 1 rounded additions (an FMA rounds a product and an addition
// once together; padding adds exact zeros), so, with (1 + d) factors |d| <=
// u and gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability, 3.1),
//   |y^_i - y_i| <= gamma_n S_i       (this assumes the FP64 MMA rounds each
//                                      sum or fused product-sum to nearest,
//                                      as IEEE FP64 FMAs and adds do).
// The FP64 CPU reference (sequential FMAs) obeys the same bound, so the
// check is |y^_i - ref_i| <= 2 gamma_{n+1} S_i: S_i and the bound are
// computed in long double, and gamma_{n+1} > gamma_n (1 + 1/n) covers their
// own rounding (relative n 2^-64 at most). For n <= 40 this is about
// 82 u S_i at most. The split kernel's sums of two runs fit the same
// argument: the final addition is one more rounded addition in the tree of
// n - 1 (or adds an exact zero where a run holds none of the row).
//
// Planted faults (TCORE_TEST_PLANT): nan_result (y[0] made NaN after each
// run), drop_term (y[0] lacks its first entry's product), unwritten (the
// user kernels not launched: y keeps its NaN poison), zero_checks.
#include "common/test_util.hpp"
#include "examples/spmv/spmv_cce.cuh"

#include <tcore/patterns/spmv.cuh>

#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

using namespace tcore;
using tcore::examples::spmv::spmv_cce;
using tcore::test::device_buffer;
using tcore::test::tally;

namespace {

tally t;

constexpr int warps_per_block = 4;

/// One warp per block of 8 rows: y[8 r + g] = sum over row g's slots.
template <class Backend, class Shape>
__global__ void user_spmv_rows(const double* val, const int* col, const int* block_ptr, int row_blocks, int rows,
                               const double* x, double* y)
{
    const int r = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    if (r >= row_blocks) return;  // whole warps leave together
    const int lane = lane_id();
    const int base = block_ptr[r];
    const int nblk = (block_ptr[r + 1] - base) / 32;
    const double sum = spmv_block_rows<Backend, Shape>(val, col, base, nblk, x, lane);
    const int row = 8 * r + lane / 4;
    if (holds_diag(lane) && row < rows) y[row] = sum;
}

/// The same rows with each row block's 32-blocks in two runs, as the
/// launcher's long rows are split into pieces: blocks 0 .. h - 1, then
/// h .. nblk - 1, with h = r % (nblk + 1) (every split point from an empty
/// first run to an empty second one occurs). `two_acc` = 0: the second
/// spmv_accumulate continues into the first's accumulator; 1: it starts a
/// second one and the two rows' sums are added. Row g's sum: diag_of on the
/// MMA backends, the quad sum of ess (4 lanes of row g) for a policy.
template <class Backend, class Shape>
__global__ void user_spmv_split(const double* val, const int* col, const int* block_ptr, int row_blocks, int rows,
                                const double* x, double* y, int two_acc)
{
    const int r = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    if (r >= row_blocks) return;  // whole warps leave together
    const int lane = lane_id();
    const int base = block_ptr[r];
    const int nblk = (block_ptr[r + 1] - base) / 32;
    const int h = r % (nblk + 1);
    frag_c<Shape> acc[2];
    fill(acc[0], 0.0);
    fill(acc[1], 0.0);
    double ess[2] = {0.0, 0.0};
    spmv_accumulate<Backend, Shape>(acc[0], ess[0], val, col, base, 0, h, x, lane);
    if (two_acc) spmv_accumulate<Backend, Shape>(acc[1], ess[1], val, col, base, h, nblk, x, lane);  // warp-uniform
    else spmv_accumulate<Backend, Shape>(acc[0], ess[0], val, col, base, h, nblk, x, lane);
    double sum[2];
    for (int a = 0; a < 2; ++a) {
        if constexpr (!is_backend_v<Backend>) {
            double s = ess[a];  // the lane's products of row g; add the quad's
            s += __shfl_xor_sync(0xffffffffu, s, 1);
            s += __shfl_xor_sync(0xffffffffu, s, 2);
            sum[a] = s;
        } else {
            sum[a] = diag_of(acc[a], lane);
        }
    }
    const int row = 8 * r + lane / 4;
    if (holds_diag(lane) && row < rows) y[row] = sum[0] + sum[1];
}

struct csr_matrix {
    int rows = 0, cols = 0;
    std::vector<int> row_ptr, col;
    std::vector<double> val;
};

/// Row lengths 1..max_len, distinct random columns (sorted), values never zero.
csr_matrix random_matrix(int rows, int cols, int max_len, tcore::test::rng& rng)
{
    csr_matrix a;
    a.rows = rows;
    a.cols = cols;
    a.row_ptr.push_back(0);
    std::vector<char> used(static_cast<std::size_t>(cols), 0);
    for (int i = 0; i < rows; ++i) {
        const int n = 1 + static_cast<int>(rng.next() % static_cast<unsigned>(max_len));
        std::vector<int> cs;
        while (static_cast<int>(cs.size()) < n) {
            const int c = static_cast<int>(rng.next() % static_cast<unsigned>(cols));
            if (!used[c]) {
                used[c] = 1;
                cs.push_back(c);
            }
        }
        std::sort(cs.begin(), cs.end());
        for (const int c : cs) {
            used[c] = 0;
            a.col.push_back(c);
            a.val.push_back(rng.nonzero());
        }
        a.row_ptr.push_back(static_cast<int>(a.col.size()));
    }
    return a;
}

/// The row-block layout: per block of 8 rows, ceil(longest / 4) 32-blocks.
struct row_blocks {
    std::vector<int> block_ptr;  ///< slots of row block r: [ptr[r], ptr[r + 1]), multiples of 32
    std::vector<double> val;
    std::vector<int> col;
};

row_blocks pack_rows(const csr_matrix& a)
{
    row_blocks p;
    p.block_ptr.push_back(0);
    for (int r0 = 0; r0 < a.rows; r0 += 8) {
        int longest = 0;
        for (int g = 0; g < 8 && r0 + g < a.rows; ++g)
            longest = std::max(longest, a.row_ptr[r0 + g + 1] - a.row_ptr[r0 + g]);
        const int nblk = (longest + 3) / 4;
        const std::size_t base = p.val.size();
        p.val.resize(base + 32 * static_cast<std::size_t>(nblk), 0.0);
        p.col.resize(base + 32 * static_cast<std::size_t>(nblk), -1);
        for (int g = 0; g < 8 && r0 + g < a.rows; ++g) {
            const int begin = a.row_ptr[r0 + g];
            for (int e = 0; e < a.row_ptr[r0 + g + 1] - begin; ++e) {
                const std::size_t s = base + 32 * static_cast<std::size_t>(e / 4) + 4 * g + e % 4;
                p.val[s] = a.val[begin + e];
                p.col[s] = a.col[begin + e];
            }
        }
        p.block_ptr.push_back(static_cast<int>(p.val.size()));
    }
    return p;
}

void check_status(cusparseStatus_t s, const char* what)
{
    if (s != CUSPARSE_STATUS_SUCCESS) {
        std::printf("%s: %s\n", what, cusparseGetErrorString(s));
        std::exit(1);
    }
}

/// Every element against the reference within 2 gamma_{n+1} S_i.
void compare(const char* what, const csr_matrix& a, const std::vector<double>& x, std::vector<double> y)
{
    if (tcore::test::planted("nan_result")) y[0] = std::numeric_limits<double>::quiet_NaN();
    if (tcore::test::planted("drop_term")) y[0] -= a.val[0] * x[a.col[0]];  // row 0 has at least one entry
    constexpr long double u = 0x1p-53L;
    int bad = 0;
    for (int i = 0; i < a.rows; ++i) {
        double ref = 0.0;
        long double mag = 0.0L;
        for (int p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            ref = std::fma(a.val[p], x[a.col[p]], ref);
            mag += std::fabs(static_cast<long double>(a.val[p]) * x[a.col[p]]);
        }
        const long double n1 = a.row_ptr[i + 1] - a.row_ptr[i] + 1;
        const long double tol = 2.0L * n1 * u / (1.0L - n1 * u) * mag;
        const bool ok = !std::isnan(y[i]) && std::fabs(static_cast<long double>(y[i]) - ref) <= tol;
        if (!ok && ++bad <= 3)
            t.check(false, "%s %dx%d: row %d got %.17g expected %.17g (tol %.3Lg)", what, a.rows, a.cols, i, y[i],
                    ref, tol);
    }
    t.check(bad == 0, "%s %dx%d: %d of %d rows out of bound", what, a.rows, a.cols, bad, a.rows);
}

/// Which user kernel a run takes: spmv_block_rows, or two spmv_accumulate runs.
enum class user_kernel { rows, split };

/// The user kernel on the packed rows: once (rows), or twice (split: one
/// accumulator, then two); y poisoned before each run.
template <class Backend, class Shape, user_kernel K = user_kernel::rows>
void run_user(const char* what, const csr_matrix& a, const row_blocks& p, const std::vector<double>& x,
              const device_buffer<double>& dx)
{
    device_buffer<double> val(p.val.size()), y(static_cast<std::size_t>(a.rows));
    device_buffer<int> col(p.col.size()), ptr(p.block_ptr.size());
    val.upload(p.val);
    col.upload(p.col);
    ptr.upload(p.block_ptr);
    const int blocks_of_rows = static_cast<int>(p.block_ptr.size()) - 1;
    const int grid = (blocks_of_rows + warps_per_block - 1) / warps_per_block;
    for (int two_acc = 0; two_acc < (K == user_kernel::split ? 2 : 1); ++two_acc) {
        y.poison();
        if (!tcore::test::planted("unwritten")) {
            if constexpr (K == user_kernel::rows)
                user_spmv_rows<Backend, Shape><<<grid, 32 * warps_per_block>>>(val.ptr, col.ptr, ptr.ptr,
                                                                             blocks_of_rows, a.rows, dx.ptr, y.ptr);
            else
                user_spmv_split<Backend, Shape><<<grid, 32 * warps_per_block>>>(
                    val.ptr, col.ptr, ptr.ptr, blocks_of_rows, a.rows, dx.ptr, y.ptr, two_acc);
            TCORE_CHECK(cudaGetLastError());
        }
        TCORE_CHECK(cudaDeviceSynchronize());
        const std::string name = std::string(what) + (K == user_kernel::rows ? ""
                                                      : two_acc      ? " split, two accumulators"
                                                                     : " split, one accumulator");
        compare(name.c_str(), a, x, y.download());
    }
}

void run_cusparse(const csr_matrix& a, const std::vector<double>& x, const device_buffer<double>& dx)
{
    device_buffer<int> row_ptr(a.row_ptr.size()), col(a.col.size());
    device_buffer<double> val(a.val.size()), y(static_cast<std::size_t>(a.rows));
    row_ptr.upload(a.row_ptr);
    col.upload(a.col);
    val.upload(a.val);
    cusparseHandle_t h = nullptr;
    check_status(cusparseCreate(&h), "cusparseCreate");
    cusparseSpMatDescr_t mat = nullptr;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
    check_status(cusparseCreateCsr(&mat, a.rows, a.cols, static_cast<long long>(a.val.size()), row_ptr.ptr, col.ptr,
                                   val.ptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                   CUDA_R_64F),
                 "cusparseCreateCsr");
    check_status(cusparseCreateDnVec(&vx, a.cols, dx.ptr, CUDA_R_64F), "cusparseCreateDnVec x");
    check_status(cusparseCreateDnVec(&vy, a.rows, y.ptr, CUDA_R_64F), "cusparseCreateDnVec y");
    const double one = 1.0, zero = 0.0;
    std::size_t bytes = 0;
    check_status(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy, CUDA_R_64F,
                                         CUSPARSE_SPMV_CSR_ALG1, &bytes),
                 "cusparseSpMV_bufferSize");
    device_buffer<char> work(bytes);
    y.poison();
    check_status(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy, CUDA_R_64F,
                              CUSPARSE_SPMV_CSR_ALG1, work.ptr),
                 "cusparseSpMV");
    TCORE_CHECK(cudaDeviceSynchronize());
    compare("cuSPARSE CSR_ALG1", a, x, y.download());
    cusparseDestroyDnVec(vy);
    cusparseDestroyDnVec(vx);
    cusparseDestroySpMat(mat);
    cusparseDestroy(h);
}

}  // namespace

int main()
{
    tcore::test::require_gpu_or_skip();
    tcore::test::rng rng(tcore::test::seed());
    const int shapes[][2] = {{203, 517}, {1001, 2999}, {5, 41}};
    for (const auto& s : shapes) {
        const csr_matrix a = random_matrix(s[0], s[1], 40, rng);
        const row_blocks p = pack_rows(a);
        std::vector<double> x(static_cast<std::size_t>(a.cols));
        for (double& v : x) v = rng.nonzero();
        device_buffer<double> dx(x.size());
        dx.upload(x);
        run_user<tensor_core, f64_m8n8k4>("tensor_core m8n8k4", a, p, x, dx);
        run_user<tensor_core, f64_m16n8k16>("tensor_core m16n8k16", a, p, x, dx);
        run_user<cuda_core, f64_m8n8k4>("cuda_core m8n8k4", a, p, x, dx);
        run_user<tensor_core, f64_m16n8k8, user_kernel::split>("tensor_core m16n8k8", a, p, x, dx);
        run_user<cuda_core, f64_m16n8k8, user_kernel::split>("cuda_core m16n8k8", a, p, x, dx);
        run_user<spmv_cce, f64_m8n8k4, user_kernel::split>("spmv_cce", a, p, x, dx);
        run_cusparse(a, x, dx);
    }
    return t.finish();
}
