// tcore/infra/async_array.cuh - a device array from the stream-ordered
// allocator (cudaMallocAsync / cudaFreeAsync on the stream it was made on),
// and cub_call, which runs a CUB device-wide algorithm in its two calls
// (scratch size, then the work) with scratch from such an array, grown only
// when a call needs more. The launchers that build results of data-dependent
// size use them (SpGEMM, the CSR <-> mBSR converters).
//
// Preconditions: the stream outlives the array (it is freed on it); an
// array is used only in work ordered after its allocation on that stream.
#pragma once

#include "../check.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace tcore {

/// A stream-ordered device array (cudaMallocAsync / cudaFreeAsync).
template <class T>
class async_array {
public:
    async_array() = default;
    async_array(std::size_t n, cudaStream_t stream) : count_(n), stream_(stream)
    {
        if (n) TCORE_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), n * sizeof(T), stream));
    }
    ~async_array() { reset(); }
    async_array(const async_array&) = delete;
    async_array& operator=(const async_array&) = delete;
    async_array(async_array&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)), stream_(o.stream_)
    {
    }
    async_array& operator=(async_array&& o) noexcept
    {
        if (this != &o) {
            reset();
            ptr_ = std::exchange(o.ptr_, nullptr);
            count_ = std::exchange(o.count_, 0);
            stream_ = o.stream_;
        }
        return *this;
    }
    void reset()
    {
        if (ptr_) cudaFreeAsync(ptr_, stream_);
        ptr_ = nullptr;
        count_ = 0;
    }
    T* get() const { return ptr_; }
    std::size_t size() const { return count_; }

private:
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
    cudaStream_t stream_ = nullptr;
};

/// Runs `f(scratch, bytes)` (a CUB device-wide call returning cudaError_t)
/// twice: with a null scratch for the size, then with `temp`, which is
/// replaced by a larger array on `stream` when it holds fewer bytes (never
/// null: CUB would take a null pointer for a size query).
template <class F>
inline void cub_call(F&& f, async_array<unsigned char>& temp, cudaStream_t stream)
{
    std::size_t bytes = 0;
    TCORE_CHECK(f(nullptr, bytes));
    if (bytes > temp.size() || temp.get() == nullptr) temp = async_array<unsigned char>(bytes > 16 ? bytes : 16, stream);
    TCORE_CHECK(f(temp.get(), bytes));
}

}  // namespace tcore
