// examples/multi_gpu/nccl_check.hpp - NCCL status checks in tcore's error
// style: a failed call throws tcore::error naming the call, file and line.
#pragma once

#include <tcore/check.cuh>

#include <nccl.h>

#include <string>

namespace tcore::mgpu {

inline void check_nccl(ncclResult_t r, const char* call, const char* file, int line)
{
    if (r == ncclSuccess) return;
    throw tcore::error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                       ncclGetErrorString(r) + " (" + std::to_string(static_cast<int>(r)) + ")");
}

}  // namespace tcore::mgpu

/// Checks an NCCL call's status (a macro only to capture the call's text and line).
#define TCORE_NCCL_CHECK(call) ::tcore::mgpu::check_nccl((call), #call, __FILE__, __LINE__)
