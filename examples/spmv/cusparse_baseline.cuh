// examples/spmv/cusparse_baseline.cuh - the `base` variants of the sparse
// workloads: cuSPARSE SpMV (CSR, CUSPARSE_SPMV_CSR_ALG1, with or without
// cusparseSpMV_preprocess) and cuSPARSE SpGEMM (workEstimation / compute /
// copy), plus the small RAII helpers the sparse examples and tests share
// (device arrays, a CSR matrix on the device, status checks).
// Every cuSPARSE and CUDA status is checked; failures throw tcore::error.
#pragma once

#include <tcore/check.cuh>
#include <tcore/sparse/csr.hpp>

#include <cuda_runtime.h>
#include <cusparse.h>

#include <chrono>
#include <memory>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tcore::examples::sparse_base {

/// Throws tcore::error naming file, line, the call and cuSPARSE's message.
inline void check_cusparse(cusparseStatus_t status, const char* expr, const char* file, int line)
{
    if (status == CUSPARSE_STATUS_SUCCESS) return;
    throw error(std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                cusparseGetErrorString(status) + " (" + std::to_string(static_cast<int>(status)) + ")");
}

}  // namespace tcore::examples::sparse_base

#define TCORE_CUSPARSE_CHECK(call) \
    ::tcore::examples::sparse_base::check_cusparse((call), #call, __FILE__, __LINE__)

namespace tcore::examples::sparse_base {

/// A cudaMalloc'd array of T (n may be 0: no allocation).
template <class T>
struct device_array {
    T* ptr = nullptr;
    std::size_t count = 0;
    device_array() = default;
    explicit device_array(std::size_t n) : count(n)
    {
        if (n) TCORE_CHECK(cudaMalloc(&ptr, n * sizeof(T)));
    }
    explicit device_array(const std::vector<T>& host) : device_array(host.size()) { upload(host); }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    device_array(device_array&& o) noexcept : ptr(std::exchange(o.ptr, nullptr)), count(std::exchange(o.count, 0)) {}
    device_array& operator=(device_array&& o) noexcept
    {
        if (this != &o) {
            cudaFree(ptr);
            ptr = std::exchange(o.ptr, nullptr);
            count = std::exchange(o.count, 0);
        }
        return *this;
    }
    void upload(const std::vector<T>& host)
    {
        require(host.size() == count, "device_array::upload", "size mismatch");
        if (count) TCORE_CHECK(cudaMemcpy(ptr, host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> download() const
    {
        std::vector<T> host(count);
        if (count) TCORE_CHECK(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }
};

/// A CSR matrix in device memory (32-bit indices).
struct device_csr {
    int rows = 0, cols = 0;
    long long nnz = 0;
    device_array<int> row_ptr, col_idx;
    device_array<double> values;
    device_csr() = default;
    explicit device_csr(const sparse::csr& a)
        : rows(a.rows), cols(a.cols), nnz(a.nnz()), row_ptr(a.row_ptr), col_idx(a.col_idx), values(a.values)
    {
    }
    sparse::csr download() const
    {
        sparse::csr a;
        a.rows = rows;
        a.cols = cols;
        a.row_ptr = row_ptr.download();
        a.col_idx = col_idx.download();
        a.values = values.download();
        return a;
    }
};

/// A cuSPARSE handle.
struct handle {
    cusparseHandle_t h = nullptr;
    handle() { TCORE_CUSPARSE_CHECK(cusparseCreate(&h)); }
    ~handle() { cusparseDestroy(h); }
    handle(const handle&) = delete;
    handle& operator=(const handle&) = delete;
};

/// A CSR descriptor over device arrays (not owned).
struct csr_descr {
    cusparseSpMatDescr_t d = nullptr;
    csr_descr(int rows, int cols, long long nnz, int* row_ptr, int* col, double* val)
    {
        TCORE_CUSPARSE_CHECK(cusparseCreateCsr(&d, rows, cols, nnz, row_ptr, col, val, CUSPARSE_INDEX_32I,
                                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    }
    explicit csr_descr(const device_csr& a)
        : csr_descr(a.rows, a.cols, a.nnz, a.row_ptr.ptr, a.col_idx.ptr, a.values.ptr)
    {
    }
    ~csr_descr() { cusparseDestroySpMat(d); }
    csr_descr(const csr_descr&) = delete;
    csr_descr& operator=(const csr_descr&) = delete;
};

/// A dense vector descriptor (not owned).
struct vec_descr {
    cusparseDnVecDescr_t d = nullptr;
    vec_descr(long long n, double* p) { TCORE_CUSPARSE_CHECK(cusparseCreateDnVec(&d, n, p, CUDA_R_64F)); }
    ~vec_descr() { cusparseDestroyDnVec(d); }
    vec_descr(const vec_descr&) = delete;
    vec_descr& operator=(const vec_descr&) = delete;
};

/// y = A x with cusparseSpMV (CSR_ALG1, FP64), bound to one x and y.
/// With `preprocess`, cusparseSpMV_preprocess runs once at construction
/// (the fair setting of "Can tensor cores accelerate non-GEMM workloads?");
/// setup_ms() is the wall time of buffer allocation plus preprocessing.
class spmv {
public:
    spmv(const device_csr& a, const double* x, double* y, bool preprocess, cudaStream_t stream)
        : a_(a), rows_(a.rows), cols_(a.cols), nnz_(a.nnz), y_(y)
    {
        const char* where = "sparse_base::spmv";
        require(a.rows == 0 || y != nullptr, where, "y is a null pointer");
        require(a.cols == 0 || x != nullptr, where, "x is a null pointer");
        if (rows_ == 0 || nnz_ == 0) return;  // y = 0 by memset in run()
        const auto t0 = std::chrono::steady_clock::now();
        mat_ = std::make_unique<csr_descr>(a_);
        x_ = std::make_unique<vec_descr>(cols_, const_cast<double*>(x));
        yv_ = std::make_unique<vec_descr>(rows_, y);
        TCORE_CUSPARSE_CHECK(cusparseSetStream(h_.h, stream));
        std::size_t bytes = 0;
        TCORE_CUSPARSE_CHECK(cusparseSpMV_bufferSize(h_.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_->d, x_->d,
                                                     &zero_, yv_->d, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &bytes));
        buffer_ = device_array<char>(bytes);
        if (preprocess)
            TCORE_CUSPARSE_CHECK(cusparseSpMV_preprocess(h_.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_->d,
                                                         x_->d, &zero_, yv_->d, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                                                         buffer_.ptr));
        TCORE_CHECK(cudaStreamSynchronize(stream));
        setup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
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
        TCORE_CUSPARSE_CHECK(cusparseSpMV(h_.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_->d, x_->d, &zero_,
                                          yv_->d, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, buffer_.ptr));
    }
    double setup_ms() const { return setup_ms_; }
    std::size_t buffer_bytes() const { return buffer_.count; }

private:
    const device_csr& a_;
    int rows_, cols_;
    long long nnz_;
    double* y_;
    handle h_;
    std::unique_ptr<csr_descr> mat_;
    std::unique_ptr<vec_descr> x_, yv_;
    device_array<char> buffer_;
    double one_ = 1.0, zero_ = 0.0;
    double setup_ms_ = 0;
};

/// A stream-ordered device allocation (cudaMallocAsync / cudaFreeAsync).
struct async_bytes {
    void* ptr = nullptr;
    cudaStream_t stream = nullptr;
    async_bytes() = default;
    async_bytes(std::size_t bytes, cudaStream_t s) : stream(s)
    {
        if (bytes) TCORE_CHECK(cudaMallocAsync(&ptr, bytes, s));
    }
    ~async_bytes()
    {
        if (ptr) cudaFreeAsync(ptr, stream);
    }
    async_bytes(const async_bytes&) = delete;
    async_bytes& operator=(const async_bytes&) = delete;
    async_bytes(async_bytes&& o) noexcept : ptr(std::exchange(o.ptr, nullptr)), stream(o.stream) {}
    async_bytes& operator=(async_bytes&& o) noexcept
    {
        if (this != &o) {
            if (ptr) cudaFreeAsync(ptr, stream);
            ptr = std::exchange(o.ptr, nullptr);
            stream = o.stream;
        }
        return *this;
    }
};

/// C = A B with cuSPARSE SpGEMM (CUSPARSE_SPGEMM_DEFAULT: workEstimation,
/// compute, copy), every buffer and C's arrays from the stream-ordered pool.
struct spgemm_result {
    int rows = 0, cols = 0;
    long long nnz = 0;
    async_bytes row_ptr, col_idx, values;

    sparse::csr download(cudaStream_t stream) const
    {
        sparse::csr c;
        c.rows = rows;
        c.cols = cols;
        c.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
        c.col_idx.resize(static_cast<std::size_t>(nnz));
        c.values.resize(static_cast<std::size_t>(nnz));
        if (rows && row_ptr.ptr)
            TCORE_CHECK(cudaMemcpyAsync(c.row_ptr.data(), row_ptr.ptr, c.row_ptr.size() * sizeof(int),
                                        cudaMemcpyDeviceToHost, stream));
        if (nnz) {
            TCORE_CHECK(cudaMemcpyAsync(c.col_idx.data(), col_idx.ptr, nnz * sizeof(int), cudaMemcpyDeviceToHost, stream));
            TCORE_CHECK(cudaMemcpyAsync(c.values.data(), values.ptr, nnz * sizeof(double), cudaMemcpyDeviceToHost, stream));
        }
        TCORE_CHECK(cudaStreamSynchronize(stream));
        return c;
    }
};

/// Runs cuSPARSE SpGEMM on `stream` with handle `h`.
inline spgemm_result spgemm(const handle& h, const device_csr& a, const device_csr& b, cudaStream_t stream)
{
    const char* where = "sparse_base::spgemm";
    require(a.cols == b.rows, where, "inner dimensions differ");
    spgemm_result c;
    c.rows = a.rows;
    c.cols = b.cols;
    if (a.rows == 0) return c;
    c.row_ptr = async_bytes((static_cast<std::size_t>(a.rows) + 1) * sizeof(int), stream);
    if (a.nnz == 0 || b.nnz == 0 || b.cols == 0) {
        TCORE_CHECK(cudaMemsetAsync(c.row_ptr.ptr, 0, (static_cast<std::size_t>(a.rows) + 1) * sizeof(int), stream));
        return c;
    }
    TCORE_CUSPARSE_CHECK(cusparseSetStream(h.h, stream));
    const csr_descr da(a), db(b);
    csr_descr dc(a.rows, b.cols, 0, static_cast<int*>(c.row_ptr.ptr), nullptr, nullptr);
    cusparseSpGEMMDescr_t desc = nullptr;
    TCORE_CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&desc));
    struct guard {
        cusparseSpGEMMDescr_t d;
        ~guard() { cusparseSpGEMM_destroyDescr(d); }
    } g{desc};
    const double one = 1.0, zero = 0.0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    std::size_t bytes1 = 0, bytes2 = 0;
    TCORE_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(h.h, op, op, &one, da.d, db.d, &zero, dc.d, CUDA_R_64F,
                                                       CUSPARSE_SPGEMM_DEFAULT, desc, &bytes1, nullptr));
    async_bytes buf1(bytes1, stream);
    TCORE_CUSPARSE_CHECK(cusparseSpGEMM_workEstimation(h.h, op, op, &one, da.d, db.d, &zero, dc.d, CUDA_R_64F,
                                                       CUSPARSE_SPGEMM_DEFAULT, desc, &bytes1, buf1.ptr));
    TCORE_CUSPARSE_CHECK(cusparseSpGEMM_compute(h.h, op, op, &one, da.d, db.d, &zero, dc.d, CUDA_R_64F,
                                                CUSPARSE_SPGEMM_DEFAULT, desc, &bytes2, nullptr));
    async_bytes buf2(bytes2, stream);
    TCORE_CUSPARSE_CHECK(cusparseSpGEMM_compute(h.h, op, op, &one, da.d, db.d, &zero, dc.d, CUDA_R_64F,
                                                CUSPARSE_SPGEMM_DEFAULT, desc, &bytes2, buf2.ptr));
    std::int64_t rows = 0, cols = 0, nnz = 0;
    TCORE_CUSPARSE_CHECK(cusparseSpMatGetSize(dc.d, &rows, &cols, &nnz));
    require(nnz < (1LL << 31), where, "the product has more than 2^31 - 1 nonzeros");
    c.nnz = nnz;
    if (nnz == 0) {  // structurally empty product: no copy step needed
        TCORE_CHECK(cudaMemsetAsync(c.row_ptr.ptr, 0, (static_cast<std::size_t>(a.rows) + 1) * sizeof(int), stream));
        return c;
    }
    c.col_idx = async_bytes(static_cast<std::size_t>(nnz) * sizeof(int), stream);
    c.values = async_bytes(static_cast<std::size_t>(nnz) * sizeof(double), stream);
    TCORE_CUSPARSE_CHECK(cusparseCsrSetPointers(dc.d, c.row_ptr.ptr, c.col_idx.ptr, c.values.ptr));
    TCORE_CUSPARSE_CHECK(cusparseSpGEMM_copy(h.h, op, op, &one, da.d, db.d, &zero, dc.d, CUDA_R_64F,
                                             CUSPARSE_SPGEMM_DEFAULT, desc));
    return c;
}

}  // namespace tcore::examples::sparse_base
