// examples/spmv/cusparse_spmv.cuh - every cuSPARSE SpMV form the `base-*`
// variants of the SpMV workload time, so that tcore is held against the
// best of them per matrix:
//   CSR  with CUSPARSE_SPMV_CSR_ALG1 or CUSPARSE_SPMV_CSR_ALG2;
//   BSR  converted on the device (cusparseXcsr2bsrNnz + cusparseDcsr2bsr,
//        row-major blocks), block size chosen per matrix from the block
//        counts of each candidate (the matrix's natural block where it has
//        one); multiplied by cusparseSpMV with a BSR descriptor
//        (CUSPARSE_SPMV_BSR_ALG1) where cuSPARSE has it (12.6 and later,
//        and where its buffer query succeeds), else by cusparseDbsrmv;
//   SELL sliced ELLPACK, slices of 32 rows (column-major within a slice,
//        padding: column -1, value 0), converted on the device by the two
//        kernels below and a CUB scan; CUSPARSE_SPMV_SELL_ALG1.
// Conversions are timed with device events on the given stream
// (convert_ms), allocations included. Each spmv_op runs
// cusparseSpMV_preprocess once at construction when asked to (a format for
// which cuSPARSE answers NOT_SUPPORTED to it runs without; preprocessed()
// says which). BSR needs x and y of (block columns x block) and (block rows
// x block) elements: the caller pads x with zeros (bsr_padding()).
// Every cuSPARSE and CUDA status is checked; failures throw tcore::error.
#pragma once

#include "cusparse_baseline.cuh"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tcore::examples::sparse_base {

/// Events around a stretch of work on one stream: ms() waits for the end.
class event_timer {
public:
    explicit event_timer(cudaStream_t s) : s_(s)
    {
        TCORE_CHECK(cudaEventCreate(&start_));
        TCORE_CHECK(cudaEventCreate(&stop_));
        TCORE_CHECK(cudaEventRecord(start_, s_));
    }
    ~event_timer()
    {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    event_timer(const event_timer&) = delete;
    event_timer& operator=(const event_timer&) = delete;
    double ms()
    {
        TCORE_CHECK(cudaEventRecord(stop_, s_));
        TCORE_CHECK(cudaEventSynchronize(stop_));
        float t = 0;
        TCORE_CHECK(cudaEventElapsedTime(&t, start_, stop_));
        return t;
    }

private:
    cudaStream_t s_;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

/// A legacy matrix descriptor: general, zero-based.
struct mat_descr {
    cusparseMatDescr_t d = nullptr;
    mat_descr()
    {
        TCORE_CUSPARSE_CHECK(cusparseCreateMatDescr(&d));
        TCORE_CUSPARSE_CHECK(cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_GENERAL));
        TCORE_CUSPARSE_CHECK(cusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ZERO));
    }
    ~mat_descr() { cusparseDestroyMatDescr(d); }
    mat_descr(const mat_descr&) = delete;
    mat_descr& operator=(const mat_descr&) = delete;
};

/// The largest BSR block the examples try: x and y get this many padding elements.
inline constexpr int bsr_padding() { return 8; }

// csr2bsr is marked deprecated from CUDA 13 on and is still the documented
// device-side conversion: the warnings are silenced for these calls only.
#if defined(__NVCC_DIAG_PRAGMA_SUPPORT__)
#pragma nv_diag_suppress 1444
#pragma nv_diag_suppress 1215
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/// Block rows' pointer array and block count of `a` cut into block x block
/// blocks (cusparseXcsr2bsrNnz; synchronous: the count comes to the host).
inline long long bsr_block_count(const handle& h, const mat_descr& da, const mat_descr& dc, const device_csr& a,
                                 int block, int* row_ptr, cudaStream_t stream)
{
    if (a.rows == 0 || a.cols == 0 || a.nnz == 0) {  // nothing to count (cuSPARSE may refuse empty shapes)
        const std::size_t n = static_cast<std::size_t>((a.rows + block - 1) / block) + 1;
        TCORE_CHECK(cudaMemsetAsync(row_ptr, 0, n * sizeof(int), stream));
        return 0;
    }
    require(block >= 1 && block <= a.rows && block <= a.cols, "sparse_base::bsr_block_count",
            "block " + std::to_string(block) + " on a " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                " matrix: cuSPARSE's csr2bsr takes blocks of 1 to min(rows, cols)");
    TCORE_CUSPARSE_CHECK(cusparseSetStream(h.h, stream));
    int nnzb = 0;
    TCORE_CUSPARSE_CHECK(cusparseXcsr2bsrNnz(h.h, CUSPARSE_DIRECTION_ROW, a.rows, a.cols, da.d, a.row_ptr.ptr,
                                             a.col_idx.ptr, block, dc.d, row_ptr, &nnzb));
    return nnzb;
}

inline void bsr_fill(const handle& h, const mat_descr& da, const mat_descr& dc, const device_csr& a, int block,
                     double* val, int* row_ptr, int* col)
{
    TCORE_CUSPARSE_CHECK(cusparseDcsr2bsr(h.h, CUSPARSE_DIRECTION_ROW, a.rows, a.cols, da.d, a.values.ptr,
                                          a.row_ptr.ptr, a.col_idx.ptr, block, dc.d, val, row_ptr, col));
}
#pragma GCC diagnostic pop
#if defined(__NVCC_DIAG_PRAGMA_SUPPORT__)
#pragma nv_diag_default 1444
#pragma nv_diag_default 1215
#endif

/// A BSR copy of a device CSR matrix (row-major blocks).
struct device_bsr {
    int rows = 0, cols = 0, block = 0, block_rows = 0, block_cols = 0;
    long long nnz = 0, blocks = 0;
    device_array<int> row_ptr, col_idx;
    device_array<double> values;
    double convert_ms = 0;  ///< cusparseXcsr2bsrNnz + allocation + cusparseDcsr2bsr, device events
    /// Stored values per nonzero (1 = no fill).
    double fill() const { return nnz ? static_cast<double>(blocks) * block * block / static_cast<double>(nnz) : 1.0; }
    std::size_t device_bytes() const
    {
        return values.count * sizeof(double) + (col_idx.count + row_ptr.count) * sizeof(int);
    }
};

/// The block size of candidates 2, 3, 4, 6, 8 whose BSR copy takes the
/// fewest bytes (values and indices), the larger one where two come within
/// 2%; `fill` gets its stored values per nonzero. Counts on the device.
/// 0 where the matrix has fewer than 2 rows or columns (no candidate fits).
inline int choose_bsr_block(const device_csr& a, cudaStream_t stream, double* fill = nullptr)
{
    const handle h;
    const mat_descr da, dc;
    const int candidates[] = {2, 3, 4, 6, 8};
    device_array<int> ptr(static_cast<std::size_t>(a.rows) / 2 + 2);
    double best_bytes = 0;
    int best = candidates[0];
    double best_fill = 1;
    std::vector<double> bytes, fills;
    for (const int b : candidates) {
        if (b > a.rows || b > a.cols) break;  // csr2bsr takes blocks of at most min(rows, cols)
        const long long nnzb = bsr_block_count(h, da, dc, a, b, ptr.ptr, stream);
        bytes.push_back((8.0 * b * b + 4.0) * static_cast<double>(nnzb) + 4.0 * (a.rows / b + 2));
        fills.push_back(a.nnz ? static_cast<double>(nnzb) * b * b / static_cast<double>(a.nnz) : 1.0);
    }
    if (bytes.empty()) return 0;  // fewer than 2 rows or columns: no block to choose
    best_bytes = bytes[0];
    for (const double v : bytes) best_bytes = v < best_bytes ? v : best_bytes;
    for (std::size_t i = 0; i < bytes.size(); ++i)
        if (bytes[i] <= 1.02 * best_bytes) best = candidates[i], best_fill = fills[i];
    if (fill) *fill = best_fill;
    return best;
}

/// CSR -> BSR on the device with cuSPARSE's converters, timed with events on `stream`.
inline device_bsr to_bsr(const device_csr& a, int block, cudaStream_t stream)
{
    require(block >= 2 && block <= bsr_padding(), "sparse_base::to_bsr", "block must be 2 to " +
                                                                              std::to_string(bsr_padding()));
    const handle h;
    const mat_descr da, dc;
    device_bsr m;
    m.rows = a.rows;
    m.cols = a.cols;
    m.block = block;
    m.block_rows = (a.rows + block - 1) / block;
    m.block_cols = (a.cols + block - 1) / block;
    m.nnz = a.nnz;
    TCORE_CHECK(cudaStreamSynchronize(stream));
    event_timer timer(stream);
    m.row_ptr = device_array<int>(static_cast<std::size_t>(m.block_rows) + 1);
    m.blocks = bsr_block_count(h, da, dc, a, block, m.row_ptr.ptr, stream);
    m.col_idx = device_array<int>(static_cast<std::size_t>(m.blocks));
    m.values = device_array<double>(static_cast<std::size_t>(m.blocks) * block * block);
    if (m.blocks) bsr_fill(h, da, dc, a, block, m.values.ptr, m.row_ptr.ptr, m.col_idx.ptr);
    m.convert_ms = timer.ms();
    return m;
}

/// A sliced ELLPACK copy of a device CSR matrix (32-bit offsets and columns).
struct device_sell {
    int rows = 0, cols = 0, slice = 32;
    long long nnz = 0, stored = 0;  ///< nonzeros, and stored slots (nonzeros and padding)
    device_array<int> slice_off, col_idx;
    device_array<double> values;
    double convert_ms = 0;  ///< both kernels, the scan and the allocations, device events
    std::size_t device_bytes() const
    {
        return values.count * sizeof(double) + (col_idx.count + slice_off.count) * sizeof(int);
    }
};

/// One warp per slice of 32 rows: the slice's slot count, 32 x its longest row.
__global__ void sell_slice_slots(int rows, int slices, const int* __restrict__ row_ptr, long long* __restrict__ slots)
{
    const long long w = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    if (w >= slices) return;  // whole warps
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const long long r = 32 * w + lane;
    int len = r < rows ? row_ptr[r + 1] - row_ptr[r] : 0;
    len = __reduce_max_sync(0xffffffffu, len);
    if (lane == 0) slots[w] = 32LL * len;
}

/// One thread per row slot of a slice: writes its row's entries, then padding, column-major.
__global__ void sell_fill(int rows, int slices, const int* __restrict__ row_ptr, const int* __restrict__ col,
                          const double* __restrict__ val, const long long* __restrict__ off,
                          int* __restrict__ sell_off, int* __restrict__ sell_col, double* __restrict__ sell_val)
{
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t > 32LL * slices) return;
    if (t == 32LL * slices) {  // the closing offset
        sell_off[slices] = static_cast<int>(off[slices]);
        return;
    }
    const long long s = t >> 5;
    const int lane = static_cast<int>(t & 31);
    if (lane == 0) sell_off[s] = static_cast<int>(off[s]);
    const long long first = off[s], width = (off[s + 1] - first) >> 5;
    const int begin = t < rows ? row_ptr[t] : 0, len = t < rows ? row_ptr[t + 1] - begin : 0;
    for (long long j = 0; j < width; ++j) {
        const long long at = first + 32 * j + lane;
        sell_col[at] = j < len ? col[begin + j] : -1;
        sell_val[at] = j < len ? val[begin + j] : 0.0;
    }
}

/// CSR -> SELL (slices of 32 rows) on the device, timed with events on `stream`.
inline device_sell to_sell(const device_csr& a, cudaStream_t stream)
{
    const char* where = "sparse_base::to_sell";
    device_sell m;
    m.rows = a.rows;
    m.cols = a.cols;
    m.nnz = a.nnz;
    const int slices = (a.rows + 31) / 32;
    TCORE_CHECK(cudaStreamSynchronize(stream));
    event_timer timer(stream);
    m.slice_off = device_array<int>(static_cast<std::size_t>(slices) + 1);
    if (slices == 0) {
        TCORE_CHECK(cudaMemsetAsync(m.slice_off.ptr, 0, sizeof(int), stream));
        m.convert_ms = timer.ms();
        return m;
    }
    device_array<long long> off(static_cast<std::size_t>(slices) + 1);
    TCORE_CHECK(cudaMemsetAsync(off.ptr + slices, 0, sizeof(long long), stream));
    constexpr int th = 256;
    sell_slice_slots<<<static_cast<unsigned>((32LL * slices + th - 1) / th), th, 0, stream>>>(a.rows, slices,
                                                                                           a.row_ptr.ptr, off.ptr);
    TCORE_CHECK_LAUNCH();
    std::size_t temp_bytes = 0;
    TCORE_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, off.ptr, off.ptr, slices + 1, stream));
    device_array<unsigned char> temp(temp_bytes > 0 ? temp_bytes : 1);
    TCORE_CHECK(cub::DeviceScan::ExclusiveSum(temp.ptr, temp_bytes, off.ptr, off.ptr, slices + 1, stream));
    long long stored = 0;
    TCORE_CHECK(cudaMemcpyAsync(&stored, off.ptr + slices, sizeof stored, cudaMemcpyDeviceToHost, stream));
    TCORE_CHECK(cudaStreamSynchronize(stream));
    require(stored < INT_MAX, where, "more than 2^31 - 1 stored slots (padding included)");
    m.stored = stored;
    m.col_idx = device_array<int>(static_cast<std::size_t>(stored));
    m.values = device_array<double>(static_cast<std::size_t>(stored));
    sell_fill<<<static_cast<unsigned>((32LL * slices + 1 + th - 1) / th), th, 0, stream>>>(
        a.rows, slices, a.row_ptr.ptr, a.col_idx.ptr, a.values.ptr, off.ptr, m.slice_off.ptr, m.col_idx.ptr,
        m.values.ptr);
    TCORE_CHECK_LAUNCH();
    m.convert_ms = timer.ms();
    return m;
}

/// A generic sparse matrix descriptor (owned).
struct sp_mat {
    cusparseSpMatDescr_t d = nullptr;
    sp_mat() = default;
    ~sp_mat()
    {
        if (d) cusparseDestroySpMat(d);
    }
    sp_mat(const sp_mat&) = delete;
    sp_mat& operator=(const sp_mat&) = delete;
};

/// y = A x with cusparseSpMV on one of the formats above, bound to one x
/// and y (FP64, alpha 1, beta 0: y is never read).
class spmv_op {
public:
    /// CSR with `alg` (CUSPARSE_SPMV_CSR_ALG1 or CUSPARSE_SPMV_CSR_ALG2).
    spmv_op(const device_csr& a, cusparseSpMVAlg_t alg, const double* x, double* y, bool preprocess,
            cudaStream_t stream)
        : rows_(a.rows), cols_(a.cols), nnz_(a.nnz), y_(y), alg_(alg)
    {
        check_vectors(x, y);
        if (rows_ == 0 || nnz_ == 0) return;
        TCORE_CUSPARSE_CHECK(cusparseCreateCsr(&mat_.d, a.rows, a.cols, a.nnz, a.row_ptr.ptr, a.col_idx.ptr,
                                               a.values.ptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        setup(x, y, cols_, rows_, preprocess, stream);
    }

    /// BSR: cusparseSpMV (BSR_ALG1) where cuSPARSE has it, else cusparseDbsrmv.
    /// x and y must hold block_cols x block and block_rows x block elements.
    spmv_op(const device_bsr& a, const double* x, double* y, bool preprocess, cudaStream_t stream)
        : rows_(a.rows), cols_(a.cols), nnz_(a.nnz), y_(y), bsr_(&a)
    {
        check_vectors(x, y);
        if (rows_ == 0 || nnz_ == 0) return;
#if CUSPARSE_VERSION >= 12600
        alg_ = CUSPARSE_SPMV_BSR_ALG1;
        TCORE_CUSPARSE_CHECK(cusparseCreateBsr(&mat_.d, a.block_rows, a.block_cols, a.blocks, a.block, a.block,
                                               a.row_ptr.ptr, a.col_idx.ptr, a.values.ptr, CUSPARSE_INDEX_32I,
                                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F,
                                               CUSPARSE_ORDER_ROW));
        if (setup(x, y, static_cast<long long>(a.block_cols) * a.block, static_cast<long long>(a.block_rows) * a.block,
                  preprocess, stream, true))
            return;
        cusparseDestroySpMat(mat_.d);  // not supported there: the legacy routine below
        mat_.d = nullptr;
#endif
        legacy_x_ = x;
        legacy_ = std::make_unique<mat_descr>();
        setup_ms_ = 0;
    }

    /// SELL: CUSPARSE_SPMV_SELL_ALG1.
    spmv_op(const device_sell& a, const double* x, double* y, bool preprocess, cudaStream_t stream)
        : rows_(a.rows), cols_(a.cols), nnz_(a.nnz), y_(y), alg_(CUSPARSE_SPMV_SELL_ALG1)
    {
        check_vectors(x, y);
        if (rows_ == 0 || nnz_ == 0) return;
        TCORE_CUSPARSE_CHECK(cusparseCreateSlicedEll(&mat_.d, a.rows, a.cols, a.nnz, a.stored, a.slice,
                                                     a.slice_off.ptr, a.col_idx.ptr, a.values.ptr, CUSPARSE_INDEX_32I,
                                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        setup(x, y, cols_, rows_, preprocess, stream);
    }

    /// Enqueues y = A x on `stream`.
    void run(cudaStream_t stream) const
    {
        if (rows_ == 0) return;
        if (nnz_ == 0) {
            TCORE_CHECK(cudaMemsetAsync(y_, 0, static_cast<std::size_t>(rows_) * sizeof(double), stream));
            return;
        }
        TCORE_CUSPARSE_CHECK(cusparseSetStream(h_.h, stream));
        if (legacy_) {
            TCORE_CUSPARSE_CHECK(cusparseDbsrmv(h_.h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                bsr_->block_rows, bsr_->block_cols, static_cast<int>(bsr_->blocks),
                                                &one_, legacy_->d, bsr_->values.ptr, bsr_->row_ptr.ptr,
                                                bsr_->col_idx.ptr, bsr_->block, legacy_x_, &zero_, y_));
            return;
        }
        TCORE_CUSPARSE_CHECK(cusparseSpMV(h_.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_.d, x_->d, &zero_,
                                          yv_->d, CUDA_R_64F, alg_, buffer_.ptr));
    }
    /// Wall time of the buffer query, allocation and preprocessing (not the conversion).
    double setup_ms() const { return setup_ms_; }
    std::size_t buffer_bytes() const { return buffer_.count; }
    bool preprocessed() const { return preprocessed_; }
    /// "cusparseSpMV", or "cusparseDbsrmv" (with the generic API's answer where it was asked first).
    std::string routine() const
    {
        if (!legacy_) return "cusparseSpMV";
        return fallback_reason_.empty() ? "cusparseDbsrmv"
                                        : "cusparseDbsrmv (cusparseSpMV with BSR: " + fallback_reason_ + ")";
    }

private:
    void check_vectors(const double* x, double* y) const
    {
        const char* where = "sparse_base::spmv_op";
        require(rows_ == 0 || y != nullptr, where, "y is a null pointer");
        require(cols_ == 0 || x != nullptr, where, "x is a null pointer");
    }

    /// Buffer and (optionally) preprocessing. With `may_fail`, a failed buffer
    /// query returns false (its status kept for routine()) instead of throwing.
    bool setup(const double* x, double* y, long long x_len, long long y_len, bool preprocess, cudaStream_t stream,
               bool may_fail = false)
    {
        const auto t0 = std::chrono::steady_clock::now();
        x_ = std::make_unique<vec_descr>(x_len, const_cast<double*>(x));
        yv_ = std::make_unique<vec_descr>(y_len, y);
        TCORE_CUSPARSE_CHECK(cusparseSetStream(h_.h, stream));
        std::size_t bytes = 0;
        const cusparseStatus_t st = cusparseSpMV_bufferSize(h_.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_.d,
                                                            x_->d, &zero_, yv_->d, CUDA_R_64F, alg_, &bytes);
        if (may_fail && st != CUSPARSE_STATUS_SUCCESS) {
            fallback_reason_ = cusparseGetErrorString(st);
            x_.reset();
            yv_.reset();
            return false;
        }
        TCORE_CUSPARSE_CHECK(st);
        buffer_ = device_array<char>(bytes);
        if (preprocess) {
            const cusparseStatus_t ps = cusparseSpMV_preprocess(h_.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_.d,
                                                                x_->d, &zero_, yv_->d, CUDA_R_64F, alg_, buffer_.ptr);
            if (ps != CUSPARSE_STATUS_NOT_SUPPORTED) {
                TCORE_CUSPARSE_CHECK(ps);
                preprocessed_ = true;
            }
        }
        TCORE_CHECK(cudaStreamSynchronize(stream));
        setup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return true;
    }

    int rows_, cols_;
    long long nnz_;
    double* y_;
    cusparseSpMVAlg_t alg_ = CUSPARSE_SPMV_CSR_ALG1;
    const device_bsr* bsr_ = nullptr;
    handle h_;
    sp_mat mat_;
    std::unique_ptr<vec_descr> x_, yv_;
    std::unique_ptr<mat_descr> legacy_;
    const double* legacy_x_ = nullptr;
    device_array<char> buffer_;
    bool preprocessed_ = false;
    std::string fallback_reason_;
    double one_ = 1.0, zero_ = 0.0;
    double setup_ms_ = 0;
};

}  // namespace tcore::examples::sparse_base
