// examples/multi_gpu/stencil_mgpu_world.hpp - the NCCL communicators of the
// multi-GPU stencil: one process driving every GPU of the host
// (ncclCommInitAll), or one process per GPU that joins a communicator with
// ncclCommInitRank, the ncclUniqueId passed through a file (rank 0 writes
// it, the others wait for it; with MPI one would broadcast it instead).
//
// A world lists the ranks this process drives (all of them, or its one),
// each with its device and communicator. A world of one rank needs no
// communicator (nothing is exchanged) and has none.
//
// Preconditions: NCCL 2.7 or later (point-to-point calls). Every call is
// checked (TCORE_CHECK, TCORE_NCCL_CHECK: a failure throws tcore::error).
#pragma once

#include "nccl_check.hpp"

#include <tcore/check.cuh>

#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace tcore::mgpu {

/// Number of CUDA devices (0 where there is none or no driver).
inline int device_count()
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

/// Writes `id` to `path` (through a temporary file and a rename, so that a
/// reader never sees part of it).
inline void write_unique_id(const std::string& path, const ncclUniqueId& id)
{
    const std::string tmp = path + ".tmp." + std::to_string(static_cast<long long>(getpid()));
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    require(f != nullptr, "nccl id file", "cannot write " + tmp);
    const bool ok = std::fwrite(&id, sizeof id, 1, f) == 1;
    require(std::fclose(f) == 0 && ok, "nccl id file", "cannot write " + tmp);
    require(std::rename(tmp.c_str(), path.c_str()) == 0, "nccl id file", "cannot rename " + tmp + " to " + path);
}

/// Waits up to `timeout_s` for `path` to hold an id, and reads it.
inline ncclUniqueId read_unique_id(const std::string& path, double timeout_s)
{
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
            ncclUniqueId id{};
            const bool ok = std::fread(&id, sizeof id, 1, f) == 1;
            std::fclose(f);
            if (ok) return id;
        }
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        require(waited < timeout_s, "nccl id file",
                "no id in " + path + " after " + std::to_string(static_cast<int>(timeout_s)) +
                    " s (is rank 0 running with the same --id-file?)");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

class nccl_world {
public:
    struct member {
        int rank = 0;
        int device = 0;
        ncclComm_t comm = nullptr;
    };

    /// One process driving devices 0 .. gpus-1 as ranks 0 .. gpus-1.
    static nccl_world single_process(int gpus)
    {
        const int have = device_count();
        require(gpus >= 1, "nccl_world", "gpus must be >= 1 (got " + std::to_string(gpus) + ")");
        require(gpus <= have, "nccl_world",
                std::to_string(gpus) + " GPUs asked for, " + std::to_string(have) + " present");
        nccl_world w;
        w.ranks_ = gpus;
        std::vector<int> devs(gpus);
        for (int i = 0; i < gpus; ++i) devs[i] = i;
        std::vector<ncclComm_t> comms(gpus, nullptr);
        if (gpus > 1) TCORE_NCCL_CHECK(ncclCommInitAll(comms.data(), gpus, devs.data()));
        for (int i = 0; i < gpus; ++i) w.members_.push_back({i, i, comms[i]});
        return w;
    }

    /// Rank `rank` of `ranks` processes on device `device`; the unique id
    /// passes through `id_file` (rank 0 creates it and removes it once every
    /// rank has joined).
    static nccl_world one_rank(int rank, int ranks, int device, const std::string& id_file, double timeout_s = 120)
    {
        const int have = device_count();
        require(ranks >= 1 && rank >= 0 && rank < ranks, "nccl_world",
                "rank " + std::to_string(rank) + " of " + std::to_string(ranks) + ": need 0 <= rank < ranks");
        require(device >= 0 && device < have, "nccl_world",
                "device " + std::to_string(device) + " asked for, " + std::to_string(have) + " present");
        nccl_world w;
        w.ranks_ = ranks;
        w.multi_process_ = ranks > 1;
        member m{rank, device, nullptr};
        if (ranks > 1) {
            require(!id_file.empty(), "nccl_world", "one rank per process needs --id-file PATH");
            ncclUniqueId id{};
            if (rank == 0) {
                TCORE_NCCL_CHECK(ncclGetUniqueId(&id));
                write_unique_id(id_file, id);
            } else {
                id = read_unique_id(id_file, timeout_s);
            }
            TCORE_CHECK(cudaSetDevice(device));
            TCORE_NCCL_CHECK(ncclCommInitRank(&m.comm, ranks, id, rank));
            if (rank == 0) std::remove(id_file.c_str());  // every rank has read it: init is collective
        }
        w.members_.push_back(m);
        return w;
    }

    /// A world of one rank on `device` (no communicator).
    static nccl_world local_device(int device)
    {
        nccl_world w;
        w.ranks_ = 1;
        w.members_.push_back({0, device, nullptr});
        return w;
    }

    nccl_world() = default;
    nccl_world(nccl_world&& o) noexcept { *this = std::move(o); }
    nccl_world& operator=(nccl_world&& o) noexcept
    {
        if (this != &o) {
            release();
            ranks_ = o.ranks_;
            multi_process_ = o.multi_process_;
            members_ = std::move(o.members_);
            o.members_.clear();
            o.ranks_ = 0;
        }
        return *this;
    }
    nccl_world(const nccl_world&) = delete;
    nccl_world& operator=(const nccl_world&) = delete;
    ~nccl_world() { release(); }

    int ranks() const { return ranks_; }
    /// Ranks of other processes take part (one rank per process).
    bool multi_process() const { return multi_process_; }
    const std::vector<member>& members() const { return members_; }

    /// The largest `v` over every process (here: `v` in a single process).
    double agree_max(double v) const
    {
        if (!multi_process_) return v;
        const member& m = members_.front();
        TCORE_CHECK(cudaSetDevice(m.device));
        double* buf = nullptr;
        cudaStream_t s = nullptr;
        TCORE_CHECK(cudaMalloc(&buf, sizeof(double)));
        TCORE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        TCORE_CHECK(cudaMemcpyAsync(buf, &v, sizeof v, cudaMemcpyHostToDevice, s));
        TCORE_NCCL_CHECK(ncclAllReduce(buf, buf, 1, ncclDouble, ncclMax, m.comm, s));
        TCORE_CHECK(cudaMemcpyAsync(&v, buf, sizeof v, cudaMemcpyDeviceToHost, s));
        TCORE_CHECK(cudaStreamSynchronize(s));
        TCORE_CHECK(cudaStreamDestroy(s));
        TCORE_CHECK(cudaFree(buf));
        return v;
    }

private:
    void release() noexcept
    {
        for (member& m : members_)
            if (m.comm) {
                ncclCommDestroy(m.comm);  // teardown: nothing left to report to
                m.comm = nullptr;
            }
        members_.clear();
    }

    int ranks_ = 0;
    bool multi_process_ = false;
    std::vector<member> members_;
};

}  // namespace tcore::mgpu
