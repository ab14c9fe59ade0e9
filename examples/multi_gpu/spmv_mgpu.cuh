// examples/multi_gpu/spmv_mgpu.cuh - y = A x over the GPUs of a host with
// NCCL: A split by rows (spmv_mgpu_split.hpp), x gathered on every GPU, each
// GPU's rows multiplied by tcore's SpMV launcher (tcore::dasp_spmv on the
// part, packed with the part's columns placed in the gathered x).
//
//   rank_set        the ranks this process drives: their devices, NCCL
//                   communicators and streams. all_local(n): one process,
//                   GPUs 0..n-1 (ncclCommInitAll); of_communicator(): one
//                   rank of a communicator made elsewhere (ncclCommInitRank
//                   with an id passed between processes, or ncclCommSplit).
//   row_split_spmv  the parts of the ranks of a rank_set, packed and held on
//                   their GPUs; gather() enqueues the x gather, multiply<M>()
//                   the local products, run<M>() both (M: a backend or a
//                   policy of dasp_spmv::run_with). Every local rank's
//                   stream gets its share; nothing waits on the host.
//                   With `overlap`, a part is packed as two matrices: the
//                   entries whose columns lie in the rank's own x piece
//                   (multiplied while the gather runs on a second stream)
//                   and the others (added to y once the gather is done).
//   reduce_over_ranks  max / min / sum of per-rank host values over all ranks
//                   (ncclAllReduce; the host values of one process' ranks
//                   first): timings and errors of every rank in one place.
//
// Preconditions: a rank's x piece is in place (set_x_piece) before gather();
// with one rank there is no gather (x is whole already). NCCL calls of all
// local ranks are issued inside one ncclGroupStart/End, as NCCL requires when
// one thread drives several ranks. Every CUDA and NCCL call is checked.
#pragma once

#include "nccl_check.hpp"
#include "spmv_mgpu_split.hpp"

#include <tcore/patterns/device/spmv.cuh>
#include <tcore/sparse/dasp.hpp>

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace tcore::mgpu {

/// The ranks of one communicator that this process drives (one GPU each).
class rank_set {
public:
    rank_set() = default;

    /// One process, GPUs 0 .. n-1, ranks 0 .. n-1 (ncclCommInitAll; none for n = 1).
    static rank_set all_local(int n)
    {
        const char* where = "tcore::mgpu::rank_set::all_local";
        int count = 0;
        TCORE_CHECK(cudaGetDeviceCount(&count));
        require(n >= 1 && n <= count, where,
                std::to_string(n) + " GPUs asked for, " + std::to_string(count) + " present");
        rank_set s;
        s.ranks_ = n;
        for (int i = 0; i < n; ++i) {
            s.rank_.push_back(i);
            s.device_.push_back(i);
        }
        s.comm_.assign(static_cast<std::size_t>(n), nullptr);
        if (n > 1) TCORE_NCCL_CHECK(ncclCommInitAll(s.comm_.data(), n, s.device_.data()));
        s.owns_comms_ = true;
        s.make_streams();
        return s;
    }

    /// Rank `rank` of `ranks` on `device`, on communicator `comm` (made by
    /// ncclCommInitRank or ncclCommSplit; nullptr only for ranks = 1).
    /// With `owns`, the communicator is destroyed with this set.
    static rank_set of_communicator(ncclComm_t comm, int rank, int ranks, int device, bool owns)
    {
        const char* where = "tcore::mgpu::rank_set::of_communicator";
        require(ranks >= 1 && rank >= 0 && rank < ranks, where,
                "rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " is out of range");
        require(comm != nullptr || ranks == 1, where, "a communicator is needed for more than one rank");
        rank_set s;
        s.ranks_ = ranks;
        s.rank_.push_back(rank);
        s.device_.push_back(device);
        s.comm_.push_back(comm);
        s.owns_comms_ = owns;
        s.make_streams();
        return s;
    }

    ~rank_set() { release(); }
    rank_set(const rank_set&) = delete;
    rank_set& operator=(const rank_set&) = delete;
    rank_set(rank_set&& o) noexcept { swap(o); }
    rank_set& operator=(rank_set&& o) noexcept
    {
        if (this != &o) {
            release();
            swap(o);
        }
        return *this;
    }

    /// Ranks of the communicator, and the ones driven here.
    int ranks() const { return ranks_; }
    int local() const { return static_cast<int>(rank_.size()); }
    int rank(int i) const { return rank_[i]; }
    int device(int i) const { return device_[i]; }
    ncclComm_t comm(int i) const { return comm_[i]; }
    cudaStream_t stream(int i) const { return stream_[i]; }

    /// Waits for every local rank's stream.
    void synchronize() const
    {
        for (int i = 0; i < local(); ++i) {
            TCORE_CHECK(cudaSetDevice(device_[i]));
            TCORE_CHECK(cudaStreamSynchronize(stream_[i]));
        }
    }

    /// The same, ignoring errors (destructors, clean-up after an error).
    void synchronize_noexcept() const noexcept
    {
        for (int i = 0; i < local(); ++i) {
            cudaSetDevice(device_[i]);
            cudaStreamSynchronize(stream_[i]);
        }
    }

private:
    int ranks_ = 0;
    std::vector<int> rank_, device_;
    std::vector<ncclComm_t> comm_;
    std::vector<cudaStream_t> stream_;
    bool owns_comms_ = false;

    void make_streams()
    {
        stream_.assign(rank_.size(), nullptr);
        for (std::size_t i = 0; i < rank_.size(); ++i) {
            TCORE_CHECK(cudaSetDevice(device_[i]));
            TCORE_CHECK(cudaStreamCreateWithFlags(&stream_[i], cudaStreamNonBlocking));
        }
    }
    void release() noexcept
    {
        for (std::size_t i = 0; i < stream_.size(); ++i)
            if (stream_[i]) {
                cudaSetDevice(device_[i]);
                cudaStreamSynchronize(stream_[i]);
                cudaStreamDestroy(stream_[i]);
            }
        if (owns_comms_)
            for (ncclComm_t c : comm_)
                if (c) ncclCommDestroy(c);
        stream_.clear();
        comm_.clear();
        rank_.clear();
        device_.clear();
        ranks_ = 0;
    }
    void swap(rank_set& o) noexcept
    {
        std::swap(ranks_, o.ranks_);
        std::swap(rank_, o.rank_);
        std::swap(device_, o.device_);
        std::swap(comm_, o.comm_);
        std::swap(stream_, o.stream_);
        std::swap(owns_comms_, o.owns_comms_);
    }
};

/// Element-wise max, min or sum of per-rank values over every rank of `rs`:
/// values[i] holds local rank i's (all the same length). Returns the result
/// (every rank gets it). Synchronises the local streams.
inline std::vector<double> reduce_over_ranks(const rank_set& rs, const std::vector<std::vector<double>>& values,
                                             ncclRedOp_t op)
{
    const char* where = "tcore::mgpu::reduce_over_ranks";
    require(static_cast<int>(values.size()) == rs.local() && rs.local() >= 1, where, "one value list per local rank");
    const std::size_t n = values[0].size();
    for (const auto& v : values) require(v.size() == n, where, "value lists of different lengths");
    std::vector<double> out(values[0]);
    for (std::size_t i = 1; i < values.size(); ++i)  // this process' ranks on the host
        for (std::size_t k = 0; k < n; ++k)
            out[k] = op == ncclMax ? std::max(out[k], values[i][k])
                     : op == ncclMin ? std::min(out[k], values[i][k])
                                     : out[k] + values[i][k];
    if (rs.ranks() == rs.local() || n == 0) return out;
    // Ranks in other processes: one rank here (of_communicator), an all-reduce.
    require(rs.local() == 1, where, "ranks in several processes need one rank per process");
    TCORE_CHECK(cudaSetDevice(rs.device(0)));
    double* d = nullptr;
    TCORE_CHECK(cudaMalloc(&d, n * sizeof(double)));
    try {
        TCORE_CHECK(cudaMemcpyAsync(d, out.data(), n * sizeof(double), cudaMemcpyHostToDevice, rs.stream(0)));
        TCORE_NCCL_CHECK(ncclAllReduce(d, d, n, ncclDouble, op, rs.comm(0), rs.stream(0)));
        TCORE_CHECK(cudaMemcpyAsync(out.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost, rs.stream(0)));
        TCORE_CHECK(cudaStreamSynchronize(rs.stream(0)));
    } catch (...) {
        cudaFree(d);
        throw;
    }
    TCORE_CHECK(cudaFree(d));
    return out;
}

/// Runs f(i) for every local rank i on its own host thread (current device
/// set to the rank's GPU); rethrows the first exception.
template <class F>
void for_each_rank_parallel(const rank_set& rs, F&& f)
{
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(rs.local()));
    std::vector<std::thread> threads;
    for (int i = 0; i < rs.local(); ++i)
        threads.emplace_back([&, i] {
            try {
                TCORE_CHECK(cudaSetDevice(rs.device(i)));
                f(i);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        });
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

/// What one local rank holds.
struct rank_part {
    int rank = 0, device = 0;
    int row0 = 0, rows = 0;    ///< its rows of A (and of y)
    int piece_offset = 0;      ///< where its own x piece lies in the gathered x
    int piece = 0;             ///< its x piece's length
    long long nnz = 0;
    remote_columns remote;     ///< x entries it reads from other pieces
    std::vector<double> y_ref; ///< FP64 CPU y of its rows (with x_host given)
    /// Per row, the bound 2 gamma_k sum_j |a_ij x_j| (k = the row's length,
    /// gamma_k = k u / (1 - k u), u = 2^-53) on |y_gpu - y_ref|: both sum the
    /// same k products, each within gamma_k sum |a_ij x_j| of the exact sum,
    /// in whatever order (with x_host given).
    std::vector<double> y_tol;
    dasp_spmv matrix;          ///< the part (overlap: its entries in the own x piece)
    dasp_spmv remote_matrix;   ///< overlap: its entries in other ranks' pieces
    double* x = nullptr;       ///< gathered x (x_length doubles)
    double* y = nullptr;       ///< its rows of y
    cudaStream_t side = nullptr;                        ///< overlap: the gather's stream
    cudaEvent_t forked = nullptr, gathered = nullptr;   ///< overlap: stream order
};

/// The row-split SpMV of one rank_set (see the file comment).
class row_split_spmv {
public:
    /// Packs each local rank's part of `a` (rows split by `split`, columns
    /// placed by `gather`; two matrices with `overlap`) with `opts` on its
    /// own host thread and uploads it.
    /// `x_host` (a.cols entries, or empty): when given, each rank's FP64 CPU
    /// reference y and error bounds are computed and kept (y_ref, y_tol).
    row_split_spmv(const rank_set& rs, const sparse::csr& a, const row_split& split, x_gather gather, bool overlap,
                   const sparse::dasp_options& opts = {}, const std::vector<double>& x_host = {})
        : rs_(&rs), split_(split), gather_(gather), overlap_(overlap && rs.ranks() > 1)
    {
        const char* where = "tcore::mgpu::row_split_spmv";
        require(rs.local() >= 1, where, "no local ranks");
        require(split.parts() == rs.ranks(), where,
                "the split has " + std::to_string(split.parts()) + " parts for " + std::to_string(rs.ranks()) +
                    " ranks");
        validate_split(split, a.rows, a.cols, where);
        require(x_host.empty() || x_host.size() == static_cast<std::size_t>(a.cols), where,
                "x has " + std::to_string(x_host.size()) + " entries, A has " + std::to_string(a.cols) + " columns");
        require(split.x_length(gather) < (1LL << 31), where, "the gathered x needs more than 2^31 - 1 entries");
        sparse::validate(a, where, true);
        x_length_ = split.x_length(gather);
        parts_.resize(static_cast<std::size_t>(rs.local()));
        try {
            pack(a, opts, x_host);
        } catch (...) {
            free_all();
            throw;
        }
    }
    ~row_split_spmv() { free_all(); }
    row_split_spmv(const row_split_spmv&) = delete;
    row_split_spmv& operator=(const row_split_spmv&) = delete;

    const rank_set& ranks() const { return *rs_; }
    const row_split& split() const { return split_; }
    x_gather gather_mode() const { return gather_; }
    /// True where the local products overlap the gather (more than one rank).
    bool overlapped() const { return overlap_; }
    /// The stream local rank i's gather runs on (its own stream unless overlapped).
    cudaStream_t gather_stream(int i) const { return overlap_ ? parts_[i].side : rs_->stream(i); }
    long long x_length() const { return x_length_; }
    int local() const { return static_cast<int>(parts_.size()); }
    const rank_part& part(int i) const { return parts_[i]; }

    /// Copies local rank i's x piece (its `piece` entries, host memory) into
    /// place, in order on the rank's stream (returns when it is done).
    void set_x_piece(int i, const double* piece_host)
    {
        const rank_part& p = parts_[i];
        if (p.piece == 0) return;
        TCORE_CHECK(cudaSetDevice(p.device));
        TCORE_CHECK(cudaMemcpyAsync(p.x + p.piece_offset, piece_host, static_cast<std::size_t>(p.piece) * sizeof(double),
                                    cudaMemcpyHostToDevice, rs_->stream(i)));
        TCORE_CHECK(cudaStreamSynchronize(rs_->stream(i)));
    }
    /// Fills every local rank's whole gathered x with NaN (what gather must
    /// overwrite), in order on the ranks' streams.
    void poison_x()
    {
        for (int i = 0; i < local(); ++i) {
            TCORE_CHECK(cudaSetDevice(parts_[i].device));
            TCORE_CHECK(cudaMemsetAsync(parts_[i].x, 0xFF, static_cast<std::size_t>(x_length_) * sizeof(double),
                                        rs_->stream(i)));
        }
    }
    /// Fills every local rank's y with NaN, in order on the ranks' streams.
    void poison_y()
    {
        for (int i = 0; i < local(); ++i) {
            TCORE_CHECK(cudaSetDevice(parts_[i].device));
            TCORE_CHECK(cudaMemsetAsync(parts_[i].y, 0xFF, static_cast<std::size_t>(parts_[i].rows) * sizeof(double),
                                        rs_->stream(i)));
        }
    }
    /// Local rank i's rows of y, copied to the host (synchronises its stream).
    std::vector<double> y_of(int i) const
    {
        const rank_part& p = parts_[i];
        std::vector<double> y(static_cast<std::size_t>(p.rows));
        TCORE_CHECK(cudaSetDevice(p.device));
        TCORE_CHECK(cudaStreamSynchronize(rs_->stream(i)));
        if (p.rows)
            TCORE_CHECK(cudaMemcpy(y.data(), p.y, y.size() * sizeof(double), cudaMemcpyDeviceToHost));
        return y;
    }

    /// Enqueues the x gather on every local rank's stream (nothing for one rank).
    void gather()
    {
        const rank_set& rs = *rs_;
        if (rs.ranks() == 1 || split_.longest_piece() == 0) return;
        if (overlap_)  // the gather starts after what the rank's stream holds so far
            for (int i = 0; i < local(); ++i) {
                rank_part& p = parts_[i];
                TCORE_CHECK(cudaSetDevice(p.device));
                TCORE_CHECK(cudaEventRecord(p.forked, rs.stream(i)));
                TCORE_CHECK(cudaStreamWaitEvent(p.side, p.forked, 0));
            }
        TCORE_NCCL_CHECK(ncclGroupStart());
        try {
            for (int i = 0; i < local(); ++i) {
                rank_part& p = parts_[i];
                const cudaStream_t st = gather_stream(i);
                if (gather_ == x_gather::allgather) {
                    const std::size_t L = static_cast<std::size_t>(split_.longest_piece());
                    TCORE_NCCL_CHECK(ncclAllGather(p.x + static_cast<std::size_t>(p.rank) * L, p.x, L, ncclDouble,
                                                   rs.comm(i), st));
                } else {
                    for (int q = 0; q < split_.parts(); ++q)
                        if (split_.piece_of(q) > 0)
                            TCORE_NCCL_CHECK(ncclBroadcast(p.x + split_.col_begin[q], p.x + split_.col_begin[q],
                                                           static_cast<std::size_t>(split_.piece_of(q)), ncclDouble, q,
                                                           rs.comm(i), st));
                }
            }
        } catch (...) {
            ncclGroupEnd();
            throw;
        }
        TCORE_NCCL_CHECK(ncclGroupEnd());
        if (overlap_)
            for (int i = 0; i < local(); ++i) {
                TCORE_CHECK(cudaSetDevice(parts_[i].device));
                TCORE_CHECK(cudaEventRecord(parts_[i].gathered, parts_[i].side));
            }
    }

    /// Enqueues every local rank's product y_part = A_part x on its stream
    /// (overlapped: the own-piece entries, then, once the gather is done,
    /// y_part += the other entries' product).
    template <class Backend>
    void multiply()
    {
        for (int i = 0; i < local(); ++i) {
            rank_part& p = parts_[i];
            TCORE_CHECK(cudaSetDevice(p.device));
            p.matrix.run_with<Backend>(p.x, p.y, rs_->stream(i));
        }
        if (!overlap_) return;
        for (int i = 0; i < local(); ++i) {
            rank_part& p = parts_[i];
            TCORE_CHECK(cudaSetDevice(p.device));
            TCORE_CHECK(cudaStreamWaitEvent(rs_->stream(i), p.gathered, 0));
            p.remote_matrix.run_with<Backend>(p.x, p.y, rs_->stream(i), true);
        }
    }

    /// gather() then multiply<Backend>().
    template <class Backend>
    void run()
    {
        gather();
        multiply<Backend>();
    }

private:
    const rank_set* rs_;
    row_split split_;
    x_gather gather_;
    bool overlap_ = false;
    long long x_length_ = 0;
    std::vector<rank_part> parts_;

    /// Each local rank's part on its own host thread (see the constructor).
    void pack(const sparse::csr& a, const sparse::dasp_options& opts, const std::vector<double>& x_host)
    {
        const rank_set& rs = *rs_;
        const row_split& split = split_;
        const x_gather gather = gather_;
        for_each_rank_parallel(rs, [&](int i) {
            rank_part& p = parts_[i];
            p.rank = rs.rank(i);
            p.device = rs.device(i);
            p.row0 = split.row_begin[p.rank];
            p.rows = split.rows_of(p.rank);
            p.piece = split.piece_of(p.rank);
            p.piece_offset = gather == x_gather::allgather ? p.rank * split.longest_piece() : split.col_begin[p.rank];
            sparse::csr part = row_block(a, p.row0, p.row0 + p.rows);
            p.nnz = part.nnz();
            p.remote = count_remote_columns(part, split, p.rank);
            if (!x_host.empty()) {
                p.y_ref = sparse::spmv_reference(part, x_host);
                p.y_tol.assign(static_cast<std::size_t>(p.rows), 0.0);
                const double u = DBL_EPSILON / 2;
                for (int r = 0; r < p.rows; ++r) {
                    double mag = 0;
                    for (int e = part.row_ptr[r]; e < part.row_ptr[r + 1]; ++e)
                        mag += std::fabs(part.values[e] * x_host[part.col_idx[e]]);
                    const double k = part.row_length(r);
                    p.y_tol[r] = 2.0 * (k * u / (1.0 - k * u)) * mag;
                }
            }
            map_columns(part, split, gather);
            part.cols = static_cast<int>(x_length_);
            sparse::dasp_options o = opts;
            if (o.resident_warps == 0) {
                int sms = 0;
                TCORE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, p.device));
                o.resident_warps = 32 * sms;
            }
            if (overlap_) {
                const int lo = p.piece_offset, hi = p.piece_offset + p.piece;
                p.remote_matrix = dasp_spmv(sparse::filter_entries(part, [lo, hi](int c, double) { return c < lo || c >= hi; }),
                                            o, rs.stream(i));
                part = sparse::filter_entries(part, [lo, hi](int c, double) { return c >= lo && c < hi; });
                // The gather's stream gets the highest priority: when the gather and the
                // local product become ready together, the product's blocks must not
                // take every SM before the gather's kernel starts.
                int least = 0, greatest = 0;
                TCORE_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
                TCORE_CHECK(cudaStreamCreateWithPriority(&p.side, cudaStreamNonBlocking, greatest));
                TCORE_CHECK(cudaEventCreateWithFlags(&p.forked, cudaEventDisableTiming));
                TCORE_CHECK(cudaEventCreateWithFlags(&p.gathered, cudaEventDisableTiming));
            }
            p.matrix = dasp_spmv(part, o, rs.stream(i));
            TCORE_CHECK(cudaMalloc(&p.x, static_cast<std::size_t>(std::max<long long>(x_length_, 1)) * sizeof(double)));
            TCORE_CHECK(cudaMalloc(&p.y, static_cast<std::size_t>(std::max(p.rows, 1)) * sizeof(double)));
            TCORE_CHECK(cudaMemsetAsync(p.x, 0, static_cast<std::size_t>(x_length_) * sizeof(double), rs.stream(i)));
            TCORE_CHECK(cudaStreamSynchronize(rs.stream(i)));
        });
    }
    void free_all() noexcept
    {
        for (rank_part& p : parts_) {
            cudaSetDevice(p.device);
            if (p.side) cudaStreamSynchronize(p.side);
            p.matrix = dasp_spmv();
            p.remote_matrix = dasp_spmv();
            cudaFree(p.x);
            cudaFree(p.y);
            p.x = p.y = nullptr;
            if (p.side) cudaStreamDestroy(p.side);
            if (p.forked) cudaEventDestroy(p.forked);
            if (p.gathered) cudaEventDestroy(p.gathered);
            p.side = nullptr;
            p.forked = p.gathered = nullptr;
        }
    }
};

}  // namespace tcore::mgpu
