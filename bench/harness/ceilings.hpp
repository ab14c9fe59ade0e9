// bench/harness/ceilings.hpp - the device's measured ceilings: copy
// bandwidth and the MMA / FMA peaks (kernels from mma_peak/mma_peak.cuh),
// cached per device as <results folder>/ceilings-<device>.json and keyed by
// device name, driver version and CUDA runtime version.
#pragma once

#include "harness/harness.hpp"

#include <string>

namespace tcore::bench {

/// Fills the device's properties (name, SMs, compute capability, L2 and
/// memory sizes); measures nothing.
void query_device(ceilings& c, int device);

/// Properties of an H100/H200-sized device, for --list where there is no
/// GPU (workloads may size cases by L2); every measured value is 0.
ceilings nominal_device();

/// <dir>/ceilings-<device name, non-alphanumerics as '_'>.json
std::string ceilings_path(const std::string& dir, const std::string& device_name);

/// Reads the measured values from `path` if the file exists, parses, and
/// its device name, driver and runtime versions equal those already in `c`.
bool load_ceilings(const std::string& path, ceilings& c);

/// Writes `c` to `path` (creating the folder); false if that fails.
bool save_ceilings(const std::string& path, const ceilings& c);

/// Measures copy bandwidth and every peak on the current device (seconds).
void measure_ceilings(ceilings& c);

/// query_device, then the cached values unless opts.remeasure_ceilings or
/// the cache is missing or stale, else measure_ceilings and save.
ceilings obtain_ceilings(const options& opts, const std::string& cache_dir, const std::string& driver_version,
                         const std::string& runtime_version);

}  // namespace tcore::bench
