// tcore/patterns/stencil_tiled.cuh - forwarding header: the tiled stencil
// launchers (stencil_apply) are in device/stencil.cuh.
#pragma once
#include "device/stencil.cuh"
