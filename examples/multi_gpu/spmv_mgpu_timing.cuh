// examples/multi_gpu/spmv_mgpu_timing.cuh - the benchmark protocol of
// bench/harness applied to an SpMV spread over several GPUs (and processes):
// a time-based warm-up sized by a short calibration, then repetitions timed
// with CUDA events on every GPU, each chunk of 32 queued behind a kernel that
// spins on every GPU until the host has enqueued the whole chunk (so host
// launch gaps stay outside the events), medians.
//
// One repetition = gather + local product on every rank. Its time is the
// longest of the ranks' event times (start before the gather, stop after the
// product); its communication time is the shortest of the ranks' gather
// times (start to the event after the gather, on the gather's stream): a
// rank that waited for a slower one at the collective counts that wait as
// communication, the slowest rank waits least, so the minimum is the
// transfer itself. Where the gather overlaps the local product, it is the
// time the gather was in flight, not time added to the product.
//
// Every decision that changes the number of collectives (calibration,
// warm-up length, repetitions) is taken on values agreed over all ranks
// (reduce_over_ranks), so that ranks in other processes issue the same
// sequence of NCCL calls.
#pragma once

#include "spmv_mgpu.cuh"

#include "harness/harness.hpp"
#include "harness/timing.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace tcore::mgpu {

namespace tb = ::tcore::bench;

/// Host-mapped flags (portable: every GPU reads them) and the hold kernel
/// on every local rank's stream; release() also runs on destruction.
class hold_all_ranks {
public:
    hold_all_ranks()
    {
        TCORE_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&flags_), 2 * sizeof(int),
                                  cudaHostAllocMapped | cudaHostAllocPortable));
        TCORE_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), flags_, 0));
    }
    ~hold_all_ranks()
    {
        release();
        if (rs_) rs_->synchronize_noexcept();
        cudaFreeHost(flags_);
    }
    hold_all_ranks(const hold_all_ranks&) = delete;
    hold_all_ranks& operator=(const hold_all_ranks&) = delete;

    void arm(const rank_set& rs)
    {
        rs_ = &rs;
        volatile int* f = flags_;
        f[0] = 0;
        f[1] = 0;
        armed_ = true;
        for (int i = 0; i < rs.local(); ++i) {
            TCORE_CHECK(cudaSetDevice(rs.device(i)));
            tb::launch_hold(device_flags_, 50ull * 1000 * 1000, rs.stream(i));
        }
    }
    void release()
    {
        if (!armed_) return;
        reinterpret_cast<volatile int*>(flags_)[0] = 1;
        armed_ = false;
    }
    bool timed_out() const { return reinterpret_cast<volatile int*>(flags_)[1] != 0; }

private:
    int* flags_ = nullptr;
    int* device_flags_ = nullptr;
    bool armed_ = false;
    const rank_set* rs_ = nullptr;
};

/// What time_spmv measured (milliseconds).
struct spmv_timing {
    tb::timing total;         ///< per SpMV (gather + product), the slowest rank per repetition
    double comm_ms = 0;       ///< median over repetitions of the shortest gather time of the ranks
    double per_launch_s = 0;  ///< the calibration's wall time per SpMV
};

/// The value every rank agrees on: the largest of the ranks' `v`.
inline double agree_max(const rank_set& rs, double v)
{
    return reduce_over_ranks(rs, std::vector<std::vector<double>>(static_cast<std::size_t>(rs.local()), {v}),
                             ncclMax)[0];
}

/// Times s.run<Backend>() under the protocol (see the file comment).
template <class Backend>
spmv_timing time_spmv(row_split_spmv& s, double warmup_s, const tb::rep_policy& policy)
{
    using clock = std::chrono::steady_clock;
    const rank_set& rs = s.ranks();
    auto seconds_since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    auto batch = [&](long long n) {  // n SpMVs back to back, then wait for all; wall seconds
        const auto t = clock::now();
        for (long long k = 0; k < n; ++k) s.run<Backend>();
        rs.synchronize();
        return seconds_since(t);
    };

    // -- warm-up: one SpMV, calibration to ~10 ms, then the rest of warmup_s ----
    const auto t0 = clock::now();
    batch(1);
    long long n = 1;
    double elapsed = 0;
    for (;;) {
        elapsed = agree_max(rs, batch(n));
        if (elapsed >= 0.01 || n >= (1 << 16)) break;
        n *= 4;
    }
    spmv_timing out;
    out.per_launch_s = std::max(elapsed / static_cast<double>(n), 1e-7);
    const long long chunk = std::clamp<long long>(static_cast<long long>(0.05 / out.per_launch_s), 1, 2000);
    const double rest = agree_max(rs, std::max(0.0, warmup_s - seconds_since(t0)));
    for (long long left = static_cast<long long>(std::ceil(rest / out.per_launch_s)); left > 0; left -= chunk)
        batch(std::min(left, chunk));
    const double warmed_s = seconds_since(t0);

    // -- timed repetitions -----------------------------------------------------------
    const int reps = tb::repetitions_for(out.per_launch_s, policy);
    constexpr int chunk_reps = 32;
    const int L = rs.local();
    std::vector<std::vector<cudaEvent_t>> ev_start(L), ev_mid(L), ev_stop(L);
    for (int i = 0; i < L; ++i) {
        TCORE_CHECK(cudaSetDevice(rs.device(i)));
        for (auto* v : {&ev_start[i], &ev_mid[i], &ev_stop[i]}) {
            v->assign(chunk_reps, nullptr);
            for (cudaEvent_t& e : *v) TCORE_CHECK(cudaEventCreate(&e));
        }
    }
    std::vector<std::vector<double>> total(L), comm(L);
    bool hold = true;
    try {
        hold_all_ranks holder;
        for (int done = 0; done < reps;) {
            const int m = std::min(chunk_reps, reps - done);
            if (hold) holder.arm(rs);
            auto record = [&](std::vector<std::vector<cudaEvent_t>>& ev, int k, bool on_gather_stream) {
                for (int i = 0; i < L; ++i) {
                    TCORE_CHECK(cudaSetDevice(rs.device(i)));
                    TCORE_CHECK(cudaEventRecord(ev[i][k], on_gather_stream ? s.gather_stream(i) : rs.stream(i)));
                }
            };
            for (int k = 0; k < m; ++k) {
                record(ev_start, k, false);
                s.gather();
                record(ev_mid, k, true);
                s.multiply<Backend>();
                record(ev_stop, k, false);
            }
            holder.release();
            for (int i = 0; i < L; ++i) {
                TCORE_CHECK(cudaSetDevice(rs.device(i)));
                TCORE_CHECK(cudaEventSynchronize(ev_stop[i][m - 1]));
                for (int k = 0; k < m; ++k) {
                    float t_all = 0, t_comm = 0;
                    TCORE_CHECK(cudaEventElapsedTime(&t_all, ev_start[i][k], ev_stop[i][k]));
                    TCORE_CHECK(cudaEventElapsedTime(&t_comm, ev_start[i][k], ev_mid[i][k]));
                    total[i].push_back(t_all);
                    comm[i].push_back(rs.ranks() > 1 ? t_comm : 0.0);  // one rank gathers nothing
                }
            }
            if (hold && holder.timed_out()) hold = false;  // enqueueing waited on the GPU itself
            done += m;
        }
    } catch (...) {
        for (int i = 0; i < L; ++i)
            for (auto* v : {&ev_start[i], &ev_mid[i], &ev_stop[i]})
                for (cudaEvent_t e : *v)
                    if (e) cudaEventDestroy(e);
        throw;
    }
    for (int i = 0; i < L; ++i)
        for (auto* v : {&ev_start[i], &ev_mid[i], &ev_stop[i]})
            for (cudaEvent_t e : *v) TCORE_CHECK(cudaEventDestroy(e));
    out.total = tb::stats_of(reduce_over_ranks(rs, total, ncclMax));
    out.total.warmup_s = warmed_s;
    out.comm_ms = tb::stats_of(reduce_over_ranks(rs, comm, ncclMin)).median_ms;
    return out;
}

}  // namespace tcore::mgpu
