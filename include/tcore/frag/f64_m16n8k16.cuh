// tcore/frag/f64_m16n8k16.cuh - FP64 MMA D(16x8) = A(16x16) * B(16x8) + C.
// sm_90 (DMMA.16x8x16); sm_80 runs it as m8n8k4 MMAs. Layout: f64_m16n8k.cuh.
#pragma once

#include "f64_m16n8k.cuh"

namespace tcore {
using f64_m16n8k16 = f64_m16n8<16>;
}  // namespace tcore
