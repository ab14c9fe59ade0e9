// tcore/patterns/stencil_warp_stream.cuh - forwarding header: the warp
// streaming stencil kernel is in device/stencil_warp_stream.cuh.
#pragma once
#include "device/stencil_warp_stream.cuh"
