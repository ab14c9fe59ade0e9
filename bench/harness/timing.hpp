// bench/harness/timing.hpp - the timing protocol's building blocks, shared
// by context::measure and the ceiling measurements: time-based warm-up
// sized by a short calibration, event-timed repetitions (optionally with an
// L2 flush before each), and a power-sampling loop. Implemented in
// harness.cu.
#pragma once

#include "harness/harness.hpp"

#include <cstddef>
#include <functional>

namespace tcore::bench {

using launch_fn = std::function<void(cudaStream_t)>;

/// What the warm-up found out.
struct warmup_result {
    double seconds = 0;       ///< wall time spent, calibration included
    double per_launch_s = 0;  ///< wall time per launch when launched back to back
    long long launches = 0;
};

/// Two-phase warm-up: one launch (errors surface here), a calibration that
/// times back-to-back launches until ~10 ms have passed, then launches in
/// chunks until `seconds` of wall time are spent in all.
warmup_result warm_up(cudaStream_t s, const launch_fn& launch, double seconds);

/// Allocates the L2 flush buffer: 4 x l2_bytes (at least 64 MiB); sets `bytes`.
void* alloc_flush_buffer(std::size_t l2_bytes, std::size_t& bytes);
/// Writes then reads the whole flush buffer, which evicts (and writes back)
/// everything else and leaves L2 holding only clean lines of the buffer.
void flush_l2(cudaStream_t s, void* buffer, std::size_t bytes);

/// How many repetitions to time.
struct rep_policy {
    double min_time_s = 0.2;  ///< at least this much kernel time in all ...
    int min_reps = 20;        ///< ... and at least this many
    int max_reps = 20000;
    double max_time_s = 10;   ///< long kernels: fewer than min_reps (>= 3) to stay near this
};

/// Number of repetitions for a kernel of `per_launch_s` under `p`.
int repetitions_for(double per_launch_s, const rep_policy& p);

/// Times `reps` launches with a pair of events around each; `before` (may
/// be empty, e.g. an L2 flush) runs before each launch, outside the events.
/// With `hold`, each chunk of repetitions is queued behind a kernel that
/// spins until the whole chunk is enqueued (or 50 ms pass), so host launch
/// overhead does not leak into the events of short kernels.
timing time_repetitions(cudaStream_t s, const launch_fn& launch, int reps, const launch_fn& before, bool hold);

/// The hold of time_repetitions, for a timer of its own (e.g. one per GPU):
/// launches on `s` one thread that spins until the host sets flags[0] or
/// `timeout_ns` pass (then it sets flags[1] = 1). `device_flags`: the
/// device address of two ints of mapped pinned host memory.
void launch_hold(volatile int* device_flags, unsigned long long timeout_ns, cudaStream_t s);

/// Launches back to back for at least `seconds` while NVML samples board
/// power; returns the average in W, or -1 without NVML or samples.
double average_power_w(cudaStream_t s, const launch_fn& launch, double per_launch_s, double seconds);

}  // namespace tcore::bench
