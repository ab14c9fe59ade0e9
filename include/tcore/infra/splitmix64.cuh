// tcore/infra/splitmix64.cuh - splitmix64, the kit's source of reproducible
// pseudo-random numbers: the same values on the host, in a kernel and on
// every platform, from a 64-bit seed (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014, with the
// output constants of Vigna's reference splitmix64.c; its published first
// outputs for seed 1234567 are checked in tests/host/test_test_util.cu).
//
//   splitmix64_mix(z)      the output function of a state (a stateless hash
//                          of z: index-keyed values in a kernel)
//   splitmix64 r(seed)     the sequence: r.next() adds the gamma to the
//                          state and mixes it; unit(), value(), below(n)
#pragma once

#include <cuda_runtime.h>  // __host__ __device__ for any compiler

#include <cstdint>

namespace tcore {

/// The increment between the sequence's states (2^64 / golden ratio, odd).
inline constexpr std::uint64_t splitmix64_gamma = 0x9e3779b97f4a7c15ull;

/// The splitmix64 output function of a state `z`.
__host__ __device__ constexpr std::uint64_t splitmix64_mix(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// The splitmix64 sequence from `seed`.
struct splitmix64 {
    std::uint64_t state;
    __host__ __device__ explicit constexpr splitmix64(std::uint64_t seed) : state(seed) {}
    /// The next 64 random bits.
    __host__ __device__ std::uint64_t next() { return splitmix64_mix(state += splitmix64_gamma); }
    /// Uniform in [0, 1), 53 bits.
    __host__ __device__ double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform in [-1, 1), never zero.
    __host__ __device__ double value()
    {
        for (;;) {
            const double v = 2.0 * unit() - 1.0;
            if (v != 0.0) return v;
        }
    }
    /// Uniform integer in [0, n), n > 0 (modulo bias below n / 2^64).
    __host__ __device__ std::uint64_t below(std::uint64_t n) { return next() % n; }
};

}  // namespace tcore
