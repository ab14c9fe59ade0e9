// tcore/backend.cuh - the backend tags that switch a kernel between tensor
// cores and CUDA cores.
//
// A kernel template takes the backend as a type: `mma<tcore::cuda_core>(d,
// a, b, c)`. `tensor_core` issues mma.sync; `cuda_core` computes the same D
// with shuffles and FMAs while each lane keeps exactly the fragment elements
// it holds on the tensor core (the "CC" variant of the Cubie study).
// TCORE_BACKEND only chooses `tcore::default_backend`; both tags always exist.
#pragma once

#include <type_traits>

namespace tcore {

struct tensor_core {
    static constexpr const char* name() { return "tensor_core"; }
};

struct cuda_core {
    static constexpr const char* name() { return "cuda_core"; }
};

template <class Backend>
inline constexpr bool is_backend_v =
    std::is_same_v<Backend, tensor_core> || std::is_same_v<Backend, cuda_core>;

#ifndef TCORE_BACKEND
#define TCORE_BACKEND tensor_core
#endif
/// The backend a user gets when a kernel names none (-DTCORE_BACKEND=cuda_core).
using default_backend = TCORE_BACKEND;
static_assert(is_backend_v<default_backend>, "TCORE_BACKEND must be tensor_core or cuda_core");

}  // namespace tcore
