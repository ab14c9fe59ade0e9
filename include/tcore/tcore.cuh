// tcore/tcore.cuh - the umbrella header: includes the core and every fragment.
#pragma once

#include "arch.cuh"
#include "infra/async_copy.cuh"
#include "backend.cuh"
#include "check.cuh"
#include "frag.cuh"
