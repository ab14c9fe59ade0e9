// tcore/check.cuh - host-side error handling.
//
// `tcore::error` is what every host entry point throws: for a failed CUDA
// call (with file, line, the call and CUDA's error string) and for bad
// arguments (with the function and what is wrong). TCORE_CHECK is the one
// macro, because only a macro can capture the call's file and line.
// `require_block_threads<N>()` is the device-side precondition check of the
// block building blocks: a device assertion in debug builds (no NDEBUG),
// nothing in release builds.
#pragma once

#include <cuda_runtime.h>

#include <cassert>

#include <stdexcept>
#include <string>

namespace tcore {

struct error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Throws tcore::error naming file, line, the expression and CUDA's message.
inline void check_cuda(cudaError_t status, const char* expr, const char* file, int line)
{
    if (status == cudaSuccess) return;
    throw error(std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

/// Throws tcore::error("<where>: <what>") unless `ok`: argument validation.
inline void require(bool ok, const char* where, const std::string& what)
{
    if (!ok) throw error(std::string(where) + ": " + what);
}
/// The same for a fixed message, which costs no string unless it fails (the
/// checks launchers make on every launch).
inline void require(bool ok, const char* where, const char* what)
{
    if (!ok) throw error(std::string(where) + ": " + what);
}

#if defined(__CUDACC__)
/// Device precondition of a block building block written for BlockThreads
/// threads: a 1-D block of exactly that size. Debug builds assert it.
template <int BlockThreads>
__device__ inline void require_block_threads()
{
#if !defined(NDEBUG)
    assert(blockDim.x == BlockThreads && blockDim.y == 1 && blockDim.z == 1 &&
           "this block building block needs a 1-D block of exactly BlockThreads threads");
#endif
}
#endif

}  // namespace tcore

/// Check a cudaError_t-returning call; throws tcore::error on failure.
#define TCORE_CHECK(call) ::tcore::check_cuda((call), #call, __FILE__, __LINE__)
/// Check the last kernel launch (launch errors and, in debug flows, faults).
#define TCORE_CHECK_LAUNCH() ::tcore::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
