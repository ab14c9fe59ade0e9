// tcore/infra/device_array.cuh - a device array from cudaMalloc, zero-filled
// when it is allocated (so that a host copy of a record a kernel wrote only
// in part reads zeros, not uninitialized memory), with an upload from and
// a download to the host. For arrays made once and used on any stream; async_array.cuh has the
// stream-ordered kind for results of data-dependent size.
//
// Preconditions: the current device when it is made is the one it is used
// on; it synchronises with the device on allocation and upload.
#pragma once

#include "../check.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace tcore {

/// A cudaMalloc'd array of T, zero-filled on allocation; move-only.
template <class T>
class device_array {
public:
    device_array() = default;
    explicit device_array(std::size_t n) { resize(n); }
    ~device_array() { cudaFree(ptr_); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;

    /// n elements, all zero (the old contents are freed).
    void resize(std::size_t n) { allocate(n, true); }
    /// The host values, n of them (the old contents are freed).
    void upload(const T* h, std::size_t n)
    {
        allocate(n, false);
        if (n_) TCORE_CHECK(cudaMemcpy(ptr_, h, n_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    void upload(const std::vector<T>& h) { upload(h.data(), h.size()); }
    /// The whole array on the host.
    std::vector<T> download() const
    {
        std::vector<T> h(n_);
        if (n_) TCORE_CHECK(cudaMemcpy(h.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
    T* get() const { return ptr_; }
    std::size_t size() const { return n_; }

private:
    T* ptr_ = nullptr;
    std::size_t n_ = 0;

    void allocate(std::size_t n, bool zero)
    {
        cudaFree(ptr_);
        ptr_ = nullptr;
        n_ = n;
        if (n) TCORE_CHECK(cudaMalloc(&ptr_, n * sizeof(T)));
        if (n && zero) TCORE_CHECK(cudaMemset(ptr_, 0, n * sizeof(T)));
    }
};

}  // namespace tcore
