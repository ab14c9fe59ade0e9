// tcore/frag.cuh - every fragment header: the MMA shapes and accumulator reuse.
#pragma once

#include "frag/b1_m8n8k128.cuh"
#include "frag/f16_m16n8k16.cuh"
#include "frag/f64_m16n8k16.cuh"
#include "frag/f64_m16n8k4.cuh"
#include "frag/f64_m16n8k8.cuh"
#include "frag/f64_m8n8k4.cuh"
#include "frag/reuse.cuh"
#include "frag/tf32_m16n8k8.cuh"
