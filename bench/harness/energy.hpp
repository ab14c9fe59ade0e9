// bench/harness/energy.hpp - board power through NVML, loaded at run time
// (dlopen of libnvidia-ml.so.1), so the harness builds and runs where NVML
// is absent: then available() is false and the energy columns stay -1.
#pragma once

#include <string>

namespace tcore::bench::energy {

/// Loads NVML and finds the CUDA device `cuda_device` (by PCI bus id, else
/// by index). Prints one line if NVML is unavailable. Safe to call again.
bool open(int cuda_device);
/// True once open() found NVML and the device reports power.
bool available();
/// The driver version NVML reports ("570.86.15"), or "" without NVML.
std::string driver_version();
/// Unloads NVML (nvmlShutdown).
void close();

/// Samples board power every ~10 ms on a thread between construction and
/// stop(); stop() returns the average in W, or -1 without NVML or samples.
class sampler {
public:
    sampler();
    ~sampler();
    sampler(const sampler&) = delete;
    sampler& operator=(const sampler&) = delete;
    double stop();

private:
    struct state;
    state* s_;
};

}  // namespace tcore::bench::energy
