// examples/stencil/stencil_inputs.cuh - the stencil benchmarks' input values:
// element i of an array (and weight k) is splitmix64 of its index and a seed,
// mapped to [-1, 1), on host and device alike, so that any part of a grid
// (a multi-GPU slab, a reference sample) is filled without the whole.
#pragma once

namespace tcore::examples::stencil {

/// splitmix64 of the index, mapped to [-1, 1): the value of array element i.
__host__ __device__ inline double input_value(unsigned long long i, unsigned long long seed)
{
    unsigned long long z = i * 0x9e3779b97f4a7c15ull + seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return -1.0 + 2.0 * static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace tcore::examples::stencil
