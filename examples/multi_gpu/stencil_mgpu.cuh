// examples/multi_gpu/stencil_mgpu.cuh - an iterative stencil split into
// slabs over the GPUs of an NCCL world (stencil_mgpu_world.hpp), each slab
// computed by tcore::stencil_apply (tc, cc) or by the stencil workload's cce
// (examples/stencil/stencil_cce.cuh), both through
// tcore::examples::stencil::stencil_run.
//
//   stencil_op op = make_stencil_op<S, Backend, T, BC>(weights);
//   slab_stencil st(world, op, grid);     // allocates every local rank's slab
//   st.load(host_array);                  // or fill parts()[i].in, then st.prepare()
//   st.run(origin, slab_schedule::overlap);   // out = T steps of S on in
//   st.store(host_array);                 // the owned layers of out
//
// Decomposition and exactness: stencil_mgpu_slab.hpp. Arrays as stencil_apply
// takes them (Dirichlet: a halo of r on every side, periodic: just the grid),
// cut into slabs along the slowest dimension; each rank keeps r T ghost
// layers from each neighbour, exchanged with ncclSend / ncclRecv inside one
// ncclGroupStart / ncclGroupEnd on the rank's communication stream.
//
// run(origin, schedule): all its work follows what `origin` holds and
// `origin` waits for all of it (origin may be on any device of the world).
//   overlap  the exchange (communication stream, high priority) runs while
//            the interior (the owned layers that need no ghost) is computed
//            on the compute stream; then the two boundary strips (after the
//            exchange, into scratch arrays) and their kept layers copied over
//            the interior's output. Slabs thinner than 2 r T + 1 layers use
//            the whole-slab plan.
//            The overlap needs NCCL's kernel to start before the interior's
//            persistent blocks fill the SMs: run the program with
//            CUDA_DEVICE_MAX_CONNECTIONS=1 (set before the CUDA runtime
//            starts; kernels then start in launch order, and run() launches
//            the exchange first). Otherwise NCCL's kernel can wait for SMs on
//            one GPU while it holds some on its peer, and kernels whose
//            blocks own fixed items (the 3D tiled kernel, the warp streaming
//            kernel) finish the blocks that started late after all others:
//            up to twice the compute time (examples/multi_gpu/README.md).
//   serial   the exchange, then the whole slab.
// exchange = false skips the communication (the result is then wrong next
// to the ghosts): the run's time without it, to measure what was not hidden.
// exchange_only(origin): the exchange alone.
//
// Exchange order: every rank posts send-to-next, recv-from-prev,
// send-to-prev, recv-from-next; NCCL runs the calls between one pair of
// ranks in order, so with two periodic ranks (each the other's prev and
// next) the first send meets the first receive: lower ghost <- the
// neighbour's last layers, then upper ghost <- its first layers.
//
// Preconditions: in and out of a rank are separate arrays; the world's
// devices can run stencil_run<S, Backend, T, BC> (shared memory of
// tcore::stencil_smem_bytes; cce: stencil_cce_smem_bytes). Not thread-safe (one host thread drives the world).
#pragma once

#include "nccl_check.hpp"
#include "stencil_mgpu_slab.hpp"
#include "stencil_mgpu_world.hpp"

#include "../stencil/stencil_cce.cuh"

#include <tcore/patterns/device/stencil.cuh>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tcore::mgpu {

/// One stencil variant, its type erased: `apply` runs stencil_run of the
/// shape, backend, fused steps and boundary it was made for.
struct stencil_op {
    std::string shape, backend;
    int dims = 2, radius = 1, steps = 1;
    boundary bc = boundary::dirichlet;
    std::function<void(const double*, double*, const stencil_grid&, cudaStream_t)> apply;
};

template <class S, class Backend, int T, boundary BC>
stencil_op make_stencil_op(const stencil_weights<S>& w)
{
    stencil_op op;
    op.shape = S::name();
    op.backend = Backend::name();
    op.dims = S::dims;
    op.radius = S::radius;
    op.steps = T;
    op.bc = BC;
    op.apply = [w](const double* in, double* out, const stencil_grid& g, cudaStream_t s) {
        examples::stencil::stencil_run<S, Backend, T, BC>(in, out, g, w, s);
    };
    return op;
}

enum class slab_schedule { overlap, serial };
inline const char* schedule_name(slab_schedule s) { return s == slab_schedule::overlap ? "overlap" : "serial"; }

class slab_stencil {
public:
    /// One local rank's slab: its arrays (array_layers() x unit doubles
    /// each), streams and plan.
    struct part {
        int rank = 0, device = 0;
        ncclComm_t comm = nullptr;
        slab_layout slab;
        overlap_plan plan;
        double* in = nullptr;
        double* out = nullptr;
        double* scratch_lo = nullptr;
        double* scratch_hi = nullptr;
        cudaStream_t compute = nullptr, comm_stream = nullptr;
        cudaEvent_t exchanged = nullptr, strips_done = nullptr, done = nullptr;
    };

    slab_stencil(const nccl_world& world, stencil_op op, const stencil_grid& grid)
        : op_(std::move(op)), grid_(grid), ranks_(world.ranks())
    {
        constexpr const char* where = "slab_stencil";
        require(grid.nx >= 1 && grid.ny >= 1 && grid.nz >= 1, where,
                "grid sizes must be >= 1 (got " + std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + " x " +
                    std::to_string(grid.nz) + ")");
        require(op_.dims == 3 || grid.nz == 1, where, "a 2D stencil needs nz == 1");
        require(static_cast<bool>(op_.apply), where, "no stencil variant given");
        const int h = stencil_halo(op_.bc, op_.radius);
        const long long ex = grid.nx + 2 * h, ey = grid.ny + 2 * h;
        unit_ = op_.dims == 3 ? ex * ey : ex;
        const long long n = layers();
        require_slabs(n, ranks_, op_.radius, op_.steps, where);
        for (const nccl_world::member& m : world.members()) {
            part p;
            p.rank = m.rank;
            p.device = m.device;
            p.comm = m.comm;
            p.slab = make_slab(n, ranks_, m.rank, op_.radius, op_.steps, op_.bc);
            p.plan = make_overlap_plan(p.slab, op_.radius);
            parts_.push_back(p);
        }
        try {
            for (part& p : parts_) allocate(p);
        } catch (...) {
            release();
            throw;
        }
    }
    slab_stencil(const slab_stencil&) = delete;
    slab_stencil& operator=(const slab_stencil&) = delete;
    ~slab_stencil() { release(); }

    const stencil_op& op() const { return op_; }
    const stencil_grid& grid() const { return grid_; }
    int ranks() const { return ranks_; }
    /// Layers along the cut dimension (ny in 2D, nz in 3D).
    long long layers() const { return op_.dims == 3 ? grid_.nz : grid_.ny; }
    /// Doubles per array layer (a row of nx + 2h, or a plane of (nx + 2h)(ny + 2h)).
    long long unit() const { return unit_; }
    int halo() const { return stencil_halo(op_.bc, op_.radius); }
    std::vector<part>& parts() { return parts_; }
    const std::vector<part>& parts() const { return parts_; }

    /// After the caller has filled every part's `in`: out = in (the
    /// Dirichlet halo of out, which stencil_apply never writes) and the
    /// strips' scratch arrays = their layers of in (likewise).
    void prepare()
    {
        for (part& p : parts_) {
            TCORE_CHECK(cudaSetDevice(p.device));
            const std::size_t b = bytes(p.slab.array_layers());
            TCORE_CHECK(cudaMemcpyAsync(p.out, p.in, b, cudaMemcpyDeviceToDevice, p.compute));
            if (p.scratch_lo) copy_layers(p.scratch_lo, p.in + p.plan.lo.grid_lo * unit_, p.plan.lo.array_layers(halo()), p.compute);
            if (p.scratch_hi) copy_layers(p.scratch_hi, p.in + p.plan.hi.grid_lo * unit_, p.plan.hi.array_layers(halo()), p.compute);
        }
        synchronize();
    }

    /// Loads the whole grid's array (host memory, stencil_apply's layout):
    /// each rank gets its owned layers and, at the grid's border, the
    /// Dirichlet halo; its ghost layers are set to NaN (the exchange must
    /// fill them) and the layers beyond them to 0. Then prepare().
    void load(const double* host_array)
    {
        const int hl = halo();
        for (part& p : parts_) {
            TCORE_CHECK(cudaSetDevice(p.device));
            const slab_layout& s = p.slab;
            TCORE_CHECK(cudaMemsetAsync(p.in, 0, bytes(s.array_layers()), p.compute));
            TCORE_CHECK(cudaMemsetAsync(p.in + hl * unit_, 0xFF, bytes(s.ext_layers()), p.compute));  // ghosts NaN
            // owned layers, plus the array's halo where the slab meets the border
            long long first = s.ghost_lo + hl, last = s.ghost_lo + s.count + hl;  // local array layers
            if (s.ghost_lo == 0) first -= hl;
            if (s.ghost_hi == 0) last += hl;
            const long long global_first = s.begin - s.ghost_lo + first;  // Dirichlet: array layer; periodic: grid layer
            TCORE_CHECK(cudaMemcpyAsync(p.in + first * unit_, host_array + global_first * unit_, bytes(last - first),
                                        cudaMemcpyHostToDevice, p.compute));
            TCORE_CHECK(cudaStreamSynchronize(p.compute));  // the host array may go once load returns
        }
        prepare();
    }

    /// Copies the owned layers of every local rank's out into the whole
    /// grid's array (host memory, stencil_apply's layout).
    void store(double* host_array) const
    {
        const int hl = halo();
        for (const part& p : parts_) {
            TCORE_CHECK(cudaSetDevice(p.device));
            TCORE_CHECK(cudaStreamSynchronize(p.compute));
            const slab_layout& s = p.slab;
            TCORE_CHECK(cudaMemcpy(host_array + (s.begin + hl) * unit_, p.out + (s.ghost_lo + hl) * unit_,
                                   bytes(s.count), cudaMemcpyDeviceToHost));
        }
    }

    /// NaN into every local out array (whole arrays, halo included).
    void poison_out()
    {
        for (part& p : parts_) {
            TCORE_CHECK(cudaSetDevice(p.device));
            TCORE_CHECK(cudaMemsetAsync(p.out, 0xFF, bytes(p.slab.array_layers()), p.compute));
        }
        synchronize();
    }

    /// out = T steps of the stencil on in, over every rank (see the top of
    /// this file). Enqueues only; `origin` waits for the whole run.
    void run(cudaStream_t origin, slab_schedule schedule, bool exchange = true)
    {
        fork(origin);
        if (exchange) post_exchange();
        for (part& p : parts_) {
            TCORE_CHECK(cudaSetDevice(p.device));
            if (overlapped(p, schedule)) {
                apply(p.plan.interior, p.in, p.out + p.plan.interior.grid_lo * unit_, p.compute);
            } else {
                TCORE_CHECK(cudaEventRecord(p.exchanged, p.comm_stream));
                TCORE_CHECK(cudaStreamWaitEvent(p.compute, p.exchanged, 0));
                const subgrid whole = whole_slab(p.slab);
                apply(whole, p.in, p.out, p.compute);
            }
        }
        for (part& p : parts_) {
            if (!overlapped(p, schedule) || (!p.plan.has_lo && !p.plan.has_hi)) continue;
            TCORE_CHECK(cudaSetDevice(p.device));
            if (p.plan.has_lo) apply(p.plan.lo, p.in, p.scratch_lo, p.comm_stream);
            if (p.plan.has_hi) apply(p.plan.hi, p.in, p.scratch_hi, p.comm_stream);
            TCORE_CHECK(cudaEventRecord(p.strips_done, p.comm_stream));
            TCORE_CHECK(cudaStreamWaitEvent(p.compute, p.strips_done, 0));
            if (p.plan.has_lo) copy_kept(p.plan.lo, p.scratch_lo, p.out, p.compute);
            if (p.plan.has_hi) copy_kept(p.plan.hi, p.scratch_hi, p.out, p.compute);
        }
        join(origin);
    }

    /// The ghost exchange alone (fork, exchange, join).
    void exchange_only(cudaStream_t origin)
    {
        fork(origin);
        post_exchange();
        for (part& p : parts_) {
            TCORE_CHECK(cudaSetDevice(p.device));
            TCORE_CHECK(cudaEventRecord(p.exchanged, p.comm_stream));
            TCORE_CHECK(cudaStreamWaitEvent(p.compute, p.exchanged, 0));
        }
        join(origin);
    }

    /// in <-> out on every rank (for the next step of an iteration).
    void swap()
    {
        for (part& p : parts_) std::swap(p.in, p.out);
    }

    /// Does any rank exchange ghost layers (ranks > 1)?
    bool exchanges() const { return ranks_ > 1; }
    /// Do all local ranks run the overlapped plan under `schedule`?
    bool all_overlapped(slab_schedule schedule) const
    {
        for (const part& p : parts_)
            if (!overlapped(p, schedule)) return false;
        return true;
    }

    void synchronize() const
    {
        for (const part& p : parts_) {
            TCORE_CHECK(cudaSetDevice(p.device));
            TCORE_CHECK(cudaStreamSynchronize(p.compute));
            TCORE_CHECK(cudaStreamSynchronize(p.comm_stream));
        }
    }

private:
    std::size_t bytes(long long layers) const
    {
        return static_cast<std::size_t>(layers) * static_cast<std::size_t>(unit_) * sizeof(double);
    }

    static bool overlapped(const part& p, slab_schedule schedule)
    {
        return schedule == slab_schedule::overlap && p.plan.usable;
    }

    void copy_layers(double* dst, const double* src, long long layers, cudaStream_t s) const
    {
        TCORE_CHECK(cudaMemcpyAsync(dst, src, bytes(layers), cudaMemcpyDeviceToDevice, s));
    }

    /// stencil_apply on sub-grid `sg` of a slab: input from the local array
    /// `in`, output into `out_array` (the sub-grid's own array origin).
    void apply(const subgrid& sg, const double* in, double* out_array, cudaStream_t s) const
    {
        stencil_grid g = grid_;
        if (op_.dims == 3) g.nz = sg.layers();
        else g.ny = sg.layers();
        op_.apply(in + sg.grid_lo * unit_, out_array, g, s);
    }

    /// The kept layers of a strip, from its scratch array into out.
    void copy_kept(const subgrid& sg, const double* scratch, double* out, cudaStream_t s) const
    {
        const int hl = halo();
        copy_layers(out + (sg.keep_lo + hl) * unit_, scratch + (sg.keep_lo - sg.grid_lo + hl) * unit_,
                    sg.keep_hi - sg.keep_lo, s);
    }

    void post_exchange()
    {
        if (ranks_ < 2) return;
        const int hl = halo();
        TCORE_NCCL_CHECK(ncclGroupStart());
        for (part& p : parts_) {
            const slab_layout& s = p.slab;
            const std::size_t n = static_cast<std::size_t>(s.depth) * static_cast<std::size_t>(unit_);
            double* const lower_ghost = p.in + hl * unit_;
            double* const upper_ghost = p.in + (s.ghost_lo + s.count + hl) * unit_;
            double* const first_owned = p.in + (s.ghost_lo + hl) * unit_;
            double* const last_owned = p.in + (s.ghost_lo + s.count - s.depth + hl) * unit_;
            if (s.ghost_hi) TCORE_NCCL_CHECK(ncclSend(last_owned, n, ncclDouble, s.next(), p.comm, p.comm_stream));
            if (s.ghost_lo) TCORE_NCCL_CHECK(ncclRecv(lower_ghost, n, ncclDouble, s.prev(), p.comm, p.comm_stream));
            if (s.ghost_lo) TCORE_NCCL_CHECK(ncclSend(first_owned, n, ncclDouble, s.prev(), p.comm, p.comm_stream));
            if (s.ghost_hi) TCORE_NCCL_CHECK(ncclRecv(upper_ghost, n, ncclDouble, s.next(), p.comm, p.comm_stream));
        }
        TCORE_NCCL_CHECK(ncclGroupEnd());
    }

    /// Every rank's streams start after what `origin` holds.
    void fork(cudaStream_t origin)
    {
        const cudaEvent_t e = origin_event(origin);
        TCORE_CHECK(cudaEventRecord(e, origin));
        for (part& p : parts_) {
            TCORE_CHECK(cudaSetDevice(p.device));
            TCORE_CHECK(cudaStreamWaitEvent(p.compute, e, 0));
            TCORE_CHECK(cudaStreamWaitEvent(p.comm_stream, e, 0));
        }
    }

    /// `origin` waits for every rank's compute stream (the last of its work).
    void join(cudaStream_t origin)
    {
        for (part& p : parts_) {
            TCORE_CHECK(cudaSetDevice(p.device));
            // the communication stream's work is ordered before the compute
            // stream's end (exchanged / strips_done), a lone exchange included
            TCORE_CHECK(cudaEventRecord(p.exchanged, p.comm_stream));
            TCORE_CHECK(cudaStreamWaitEvent(p.compute, p.exchanged, 0));
            TCORE_CHECK(cudaEventRecord(p.done, p.compute));
        }
        TCORE_CHECK(cudaSetDevice(origin_device_));
        for (part& p : parts_) TCORE_CHECK(cudaStreamWaitEvent(origin, p.done, 0));
    }

    /// The fork event, made on `origin`'s device (which must stay the same
    /// from run to run); leaves that device current.
    cudaEvent_t origin_event(cudaStream_t origin)
    {
        int dev = 0;
        TCORE_CHECK(cudaStreamGetDevice(origin, &dev));
        TCORE_CHECK(cudaSetDevice(dev));
        if (origin_event_ && dev != origin_device_) {
            TCORE_CHECK(cudaSetDevice(origin_device_));
            TCORE_CHECK(cudaEventDestroy(origin_event_));
            origin_event_ = nullptr;
            TCORE_CHECK(cudaSetDevice(dev));
        }
        if (!origin_event_) {
            TCORE_CHECK(cudaEventCreateWithFlags(&origin_event_, cudaEventDisableTiming));
            origin_device_ = dev;
        }
        return origin_event_;
    }

    void allocate(part& p)
    {
        TCORE_CHECK(cudaSetDevice(p.device));
        const long long L = p.slab.array_layers();
        TCORE_CHECK(cudaMalloc(&p.in, bytes(L)));
        TCORE_CHECK(cudaMalloc(&p.out, bytes(L)));
        if (p.plan.usable && p.plan.has_lo) TCORE_CHECK(cudaMalloc(&p.scratch_lo, bytes(p.plan.lo.array_layers(halo()))));
        if (p.plan.usable && p.plan.has_hi) TCORE_CHECK(cudaMalloc(&p.scratch_hi, bytes(p.plan.hi.array_layers(halo()))));
        int least = 0, greatest = 0;
        TCORE_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        TCORE_CHECK(cudaStreamCreateWithPriority(&p.compute, cudaStreamNonBlocking, least));
        TCORE_CHECK(cudaStreamCreateWithPriority(&p.comm_stream, cudaStreamNonBlocking, greatest));
        for (cudaEvent_t* e : {&p.exchanged, &p.strips_done, &p.done})
            TCORE_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    }

    void release() noexcept
    {
        // teardown: errors here have nothing left to report to
        for (part& p : parts_) {
            cudaSetDevice(p.device);
            if (p.compute) cudaStreamSynchronize(p.compute);
            if (p.comm_stream) cudaStreamSynchronize(p.comm_stream);
            cudaFree(p.in);
            cudaFree(p.out);
            cudaFree(p.scratch_lo);
            cudaFree(p.scratch_hi);
            for (cudaEvent_t e : {p.exchanged, p.strips_done, p.done})
                if (e) cudaEventDestroy(e);
            if (p.compute) cudaStreamDestroy(p.compute);
            if (p.comm_stream) cudaStreamDestroy(p.comm_stream);
            p = part{};
        }
        if (origin_event_) {
            cudaSetDevice(origin_device_);
            cudaEventDestroy(origin_event_);
            origin_event_ = nullptr;
        }
    }

    stencil_op op_;
    stencil_grid grid_;
    int ranks_ = 1;
    long long unit_ = 0;
    std::vector<part> parts_;
    cudaEvent_t origin_event_ = nullptr;
    int origin_device_ = 0;
};

}  // namespace tcore::mgpu
