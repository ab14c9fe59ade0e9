// tcore/check.cuh - host-side error handling.
//
// `tcore::error` is what every host entry point throws: for a failed CUDA
// call (with file, line, the call and CUDA's error string) and for bad
// arguments (with the function and what is wrong). TCORE_CHECK is the one
// macro, because only a macro can capture the call's file and line.
#pragma once

#include <cuda_runtime.h>

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

}  // namespace tcore

/// Check a cudaError_t-returning call; throws tcore::error on failure.
#define TCORE_CHECK(call) ::tcore::check_cuda((call), #call, __FILE__, __LINE__)
/// Check the last kernel launch (launch errors and, in debug flows, faults).
#define TCORE_CHECK_LAUNCH() ::tcore::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
