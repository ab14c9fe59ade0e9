// tcore/frag/f64_m16n8k4.cuh - FP64 MMA D(16x8) = A(16x4) * B(4x8) + C.
// sm_90 (DMMA.16x8x4); sm_80 runs it as m8n8k4 MMAs. Layout: f64_m16n8k.cuh.
#pragma once

#include "f64_m16n8k.cuh"

namespace tcore {
using f64_m16n8k4 = f64_m16n8<4>;
}  // namespace tcore
