// tcore/patterns/device/spmv.cuh - FP64 SpMV launchers after DASP (SC'23):
// dasp_spmv (a matrix packed by sparse::build_dasp and held on the device;
// run() launches one fused kernel, patterns/device/spmv_kernel.cuh) and
// dasp_spmv_panels (A's columns cut into panels whose share of x stays in
// L2, the first panel writing y, the others adding).
//
// Provides (namespace tcore)
//   dasp_spmv::run<Backend, Shape>(x, y, stream, accumulate): y = A x on
//       tensor_core (mma.sync, the `tc` variant) or cuda_core (the same
//       data flow with tcore's CUDA-core MMA, `cc`).
//   dasp_spmv::run_with<Policy, Shape>(x, y, stream, accumulate): the same
//       packed data and kernel with the caller's per-lane arithmetic in
//       place of the MMAs (the benchmark's plain CUDA-core opponent, one
//       FMA per stored slot, examples/spmv/spmv_cce.cuh, is one); Policy
//       tensor_core or cuda_core is run's own MMA path.
//   dasp_spmv_panels::run, run_with: the same, panel by panel.
//   Slab matrices (sparse::slab_width_for: every row short and alike) run
//       their own kernel (spmv_slab.cuh, the same for every Shape: m8n8k4);
//       slab_width() says whether.
//   Launch choices of run, each with an accessor: groups' first steps
//       fitted to their size (fitted_steps, from the packing), such groups
//       two at a time (group_pairs, on by default), short tiles two at a
//       time (short_pairs, on in panels); the pairs have setters.
//       run_with's policies take one group and one tile at a time.
// Policy, a type with static __device__ members; every lane of the warp of
// one row block (lanes 4g .. 4g + 3: row g) runs them on its own slots:
//   step_blocks       static constexpr int (>= 1): 32-blocks a lane loads
//                     before it uses any (spmv_step_blocks)
//   add(sum, v, xv) -> double
//                     the lane's running sum plus one slot's product:
//                     value v, xv = x[column] (padding: 0 and 0)
//   product(v, xv) -> double
//                     one slot's product alone (short tiles: one slot per
//                     lane, summed per row segment)
// The kernel does the rest for every mode: loads, irregular entries (an
// FMA into the same running sum), the row finish (row g's sum is the quad
// sum of the running sums of lanes 4g .. 4g + 3; a long row's piece the
// warp sum), stores. A policy's kernels get no __launch_bounds__ blocks
// bound (as cuda_core's). The building blocks (one row block) are in
// patterns/spmv.cuh.
#pragma once

#include "../../check.cuh"
#include "../../infra/launch.cuh"
#include "../../sparse/dasp.hpp"
#include "spmv_kernel.cuh"
#include "spmv_slab.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace tcore {

/// Whether dasp_spmv runs a packed matrix with fitted first steps
/// (dasp_spmv::fitted_steps): 9 in 10 of its medium groups or more hold at
/// most 2 blocks. Host code.
inline bool dasp_fitted_steps(const sparse::dasp_format& f)
{
    long long short_groups = 0;  // groups of at most 2 blocks (64 slots)
    for (int i = 0; i < f.group_count(); ++i) short_groups += f.group_ptr[i + 1] - f.group_ptr[i] <= 64;
    return f.group_count() > 0 && 10 * short_groups >= 9LL * f.group_count();
}

/// A matrix packed for the DASP-like SpMV and held on the device.
/// Construction packs (build_dasp) and uploads; run() launches one kernel.
/// Move-only; the device memory lives as long as the object.
class dasp_spmv {
public:
    dasp_spmv() = default;

    /// Packs `a` (validated: sorted unique columns) and uploads it on `stream`
    /// (synchronised before returning). `groups_per_warp`: medium groups one
    /// warp handles in turn (>= 1; groups w, w + W, ... of W warps, so the
    /// longest groups, sorted first, go to different warps), or 0 to choose
    /// from the groups' mean size (4 for groups of at most 2 blocks, 2 up to
    /// 4 blocks, else 1), halved while the warps that take them would fill
    /// less than half of the device's resident warps
    /// (dasp_options::resident_warps): a small matrix's groups then run one
    /// per warp, all at once, costing one group's latency instead of four
    /// in a row (examples/spmv/README.md has the measurements).
    explicit dasp_spmv(const sparse::csr& a, const sparse::dasp_options& opts = {}, cudaStream_t stream = nullptr,
                       int groups_per_warp = 0)
    {
        require(groups_per_warp >= 0, "tcore::dasp_spmv", "groups_per_warp must be 0 (automatic) or positive");
        upload(sparse::build_dasp(a, opts), stream, groups_per_warp);
    }
    /// Uploads an already packed matrix.
    explicit dasp_spmv(const sparse::dasp_format& f, cudaStream_t stream = nullptr, int groups_per_warp = 0)
    {
        require(groups_per_warp >= 0, "tcore::dasp_spmv", "groups_per_warp must be 0 (automatic) or positive");
        upload(f, stream, groups_per_warp);
    }
    ~dasp_spmv() { cudaFree(arena_); }
    dasp_spmv(const dasp_spmv&) = delete;
    dasp_spmv& operator=(const dasp_spmv&) = delete;
    dasp_spmv(dasp_spmv&& o) noexcept { swap(o); }
    dasp_spmv& operator=(dasp_spmv&& o) noexcept
    {
        if (this != &o) {
            cudaFree(arena_);
            arena_ = nullptr;
            view_ = {};
            policy_view_ = {};
            swap(o);
        }
        return *this;
    }

    int rows() const { return view_.rows; }
    int cols() const { return view_.cols; }
    long long nnz() const { return nnz_; }
    /// Device bytes of the packed matrix (all arrays, padding included).
    std::size_t device_bytes() const { return bytes_; }
    /// Stored slots in MMA blocks (padding included) and irregular entries.
    long long block_slots() const { return block_slots_; }
    long long irregular_entries() const { return irregular_; }
    int long_rows() const { return view_.long_count; }
    int medium_groups() const { return view_.group_count; }
    int short_tiles() const { return view_.tile_count; }
    int empty_rows() const { return view_.empty_count; }
    int groups_per_warp() const { return view_.groups_per_warp; }
    /// Slots a row of a slab matrix (sparse/slab.hpp), 0 for the row classes.
    int slab_width() const { return slab_.width; }
    /// Slabs one warp takes in turn (an even number), for a slab matrix.
    int slabs_per_warp() const { return slab_.slabs_per_warp; }
    /// Whether run's medium groups start with a step fitted to their block
    /// count: where 9 in 10 groups or more have at most 2 blocks (rows of
    /// under 12 entries, e.g. banded), else a whole step of spmv_step_blocks
    /// (run_with's policies always take their own steps).
    bool fitted_steps() const { return fitted_steps_; }
    /// Whether the fitted kernel takes a warp's medium groups two at a time
    /// in lockstep (spmv_medium_pair: both groups' loads in flight before
    /// either's MMAs). On by default; it applies where fitted_steps() and
    /// groups_per_warp() >= 2, that is where the groups outnumber the
    /// resident warps (banded 1e7: 2-3% faster; examples/spmv/README.md).
    void set_group_pairs(bool on) { group_pairs_ = on; }
    bool group_pairs() const { return group_pairs_ && fitted_steps_ && view_.groups_per_warp >= 2; }
    /// Whether short tiles run two at a time in lockstep (spmv_short_pair).
    /// Off by default (whole power-law matrices run 7% slower with it);
    /// dasp_spmv_panels turns it on (power_law 1e8 in panels 1.3% faster).
    /// Re-plans the launch: the automatic tiles_per_warp becomes 2.
    void set_short_pairs(bool on)
    {
        short_pairs_ = on;
        plan_grid(asked_groups_per_warp_, asked_tiles_per_warp_);
    }
    bool short_pairs() const { return short_pairs_ && view_.tiles_per_warp >= 2; }
    int tiles_per_warp() const { return view_.tiles_per_warp; }
    /// Re-plans the launch: medium groups and short tiles one warp handles
    /// in turn (>= 1 each, or 0 for the automatic choice: tiles_per_warp 2
    /// with short pairs, else 1). A slab matrix takes groups_per_warp as its
    /// slabs per warp, rounded up to even (automatic: 2, one pair a warp;
    /// banded at 1e6 and 1e7 entries ran fastest so, examples/spmv/README.md).
    void set_work_per_warp(int groups_per_warp, int tiles_per_warp)
    {
        require(groups_per_warp >= 0 && tiles_per_warp >= 0, "tcore::dasp_spmv::set_work_per_warp",
                "groups_per_warp and tiles_per_warp must be 0 (automatic) or positive");
        plan_grid(groups_per_warp, tiles_per_warp);
    }
    /// Rows per bundle of identical rows (1: no bundles) and bundle groups.
    int bundle() const { return view_.bundle; }
    int bundle_groups() const { return view_.bgroup_count; }
    const dasp_view& view() const { return view_; }

    /// y = A x on `Backend` (tensor_core or cuda_core) with `Shape`
    /// (f64_m8n8k4, f64_m16n8k8 or f64_m16n8k16; the m16 shapes need sm_90
    /// for their own instructions and run as m8n8k4 pairs on sm_80). x:
    /// cols() doubles, y: rows() doubles, device memory, 8-byte aligned, not
    /// overlapping. Asynchronous on `stream`. `accumulate`: y += A x instead
    /// (rows without entries keep their y). Throws tcore::error on bad input.
    template <class Backend = default_backend, class Shape = f64_m8n8k4>
    void run(const double* x, double* y, cudaStream_t stream = nullptr, bool accumulate = false) const
    {
        static_assert(is_backend_v<Backend>, "Backend is tcore::tensor_core or tcore::cuda_core");
        launch<Backend, Shape>(x, y, stream, accumulate, "tcore::dasp_spmv::run");
    }

    /// y = A x as run does, with the per-lane arithmetic of `Policy` (the
    /// interface in the header comment; tensor_core or cuda_core: run's
    /// own). Shape: the MMA shape of tensor_core and cuda_core; a policy's
    /// kernels hold it only in their names (f64_m8n8k4 is the usual one).
    template <class Policy, class Shape = f64_m8n8k4>
    void run_with(const double* x, double* y, cudaStream_t stream = nullptr, bool accumulate = false) const
    {
        launch<Policy, Shape>(x, y, stream, accumulate, "tcore::dasp_spmv::run_with");
    }

private:
    void* arena_ = nullptr;
    dasp_view view_;
    dasp_view policy_view_;  ///< view_ with the launch plan of run_with (plan_grid)
    dasp_slab_view slab_;    ///< a slab matrix (slab_.width > 0), else unused
    long long nnz_ = 0, block_slots_ = 0, irregular_ = 0;
    std::size_t bytes_ = 0;
    double mean_group_blocks_ = 0;  ///< 32-blocks per medium group, on average
    bool fitted_steps_ = false;     ///< fitted_steps()
    bool group_pairs_ = true;       ///< set_group_pairs()
    bool short_pairs_ = false;      ///< set_short_pairs()
    int asked_groups_per_warp_ = 0, asked_tiles_per_warp_ = 0;  ///< plan_grid's last request (0: automatic)
    int resident_warps_ = 0;        ///< warps the device keeps resident (the packing's, or the current device's)

    template <class Backend, class Shape>
    void launch(const double* x, double* y, cudaStream_t stream, bool accumulate, const char* where) const
    {
        static_assert(std::is_same_v<Shape, f64_m8n8k4> || std::is_same_v<Shape, f64_m16n8k8> ||
                          std::is_same_v<Shape, f64_m16n8k16>,
                      "Shape is f64_m8n8k4, f64_m16n8k8 or f64_m16n8k16");
        static_assert(spmv_step_blocks<Backend, Shape> >= 1, "a policy's step_blocks is at least 1");
        require(arena_ != nullptr || view_.rows == 0, where, "the matrix is empty (default-constructed or moved from)");
        if (view_.rows == 0) return;
        if (view_.cols > 0) tcore::require_pointer(x, where, "x");
        tcore::require_pointer(y, where, "y");
        if (slab_.width > 0) {
            dasp_slab_view s = slab_;
            s.accumulate = accumulate ? 1 : 0;
            const long long warps = tcore::ceil_div(s.slabs, s.slabs_per_warp);
            const unsigned blocks = static_cast<unsigned>(tcore::ceil_div(warps, detail::spmv_warps));
            detail::launch_slab_kernel<Backend>(s, x, y, blocks, stream);
            TCORE_CHECK_LAUNCH();
            return;
        }
        dasp_view v = is_backend_v<Backend> ? view_ : policy_view_;
        const long long grid = accumulate ? v.short_end : grid_blocks(v);  // accumulating skips the empty rows
        if (grid == 0) return;
        const unsigned blocks = static_cast<unsigned>(grid);
        constexpr int th = detail::spmv_threads;
        v.accumulate = accumulate ? 1 : 0;
        switch (view_.bundle) {
        case 1:  // a policy's steps are its own: it keeps the one kernel
            if constexpr (is_backend_v<Backend>) {
                const bool tile_pairs = short_pairs();
                if (group_pairs()) {
                    if (tile_pairs) detail::dasp_kernel<Backend, Shape, 1, 2, true><<<blocks, th, 0, stream>>>(v, x, y);
                    else detail::dasp_kernel<Backend, Shape, 1, 2><<<blocks, th, 0, stream>>>(v, x, y);
                    break;
                }
                if (fitted_steps_) {
                    if (tile_pairs) detail::dasp_kernel<Backend, Shape, 1, 1, true><<<blocks, th, 0, stream>>>(v, x, y);
                    else detail::dasp_kernel<Backend, Shape, 1, 1><<<blocks, th, 0, stream>>>(v, x, y);
                    break;
                }
                if (tile_pairs) {
                    detail::dasp_kernel<Backend, Shape, 1, 0, true><<<blocks, th, 0, stream>>>(v, x, y);
                    break;
                }
            }
            detail::dasp_kernel<Backend, Shape, 1><<<blocks, th, 0, stream>>>(v, x, y);
            break;
        case 2: detail::dasp_kernel<Backend, Shape, 2><<<blocks, th, 0, stream>>>(v, x, y); break;
        case 3: detail::dasp_kernel<Backend, Shape, 3><<<blocks, th, 0, stream>>>(v, x, y); break;
        case 4: detail::dasp_kernel<Backend, Shape, 4><<<blocks, th, 0, stream>>>(v, x, y); break;
        case 8: detail::dasp_kernel<Backend, Shape, 8><<<blocks, th, 0, stream>>>(v, x, y); break;
        default: require(false, where, "unsupported bundle size " + std::to_string(view_.bundle));
        }
        TCORE_CHECK_LAUNCH();
    }

    static long long grid_blocks(const dasp_view& v)
    {
        return v.short_end + tcore::ceil_div(v.empty_count, detail::spmv_threads);
    }

    /// The block ranges of the fused kernel for the given work per warp (0:
    /// automatic). A policy's kernel takes short tiles one at a time, so its
    /// automatic tiles_per_warp stays 1 (policy_view_).
    void plan_grid(int groups_per_warp, int tiles_per_warp)
    {
        asked_groups_per_warp_ = groups_per_warp;
        asked_tiles_per_warp_ = tiles_per_warp;
        if (slab_.width > 0) {
            slab_.slabs_per_warp = groups_per_warp > 0 ? groups_per_warp + (groups_per_warp & 1) : 2;
            return;
        }
        if (groups_per_warp == 0) {
            groups_per_warp = mean_group_blocks_ <= 2 ? 4 : mean_group_blocks_ <= 4 ? 2 : 1;
            while (groups_per_warp > 1 && 2 * tcore::ceil_div(view_.group_count, groups_per_warp) < resident_warps_)
                groups_per_warp /= 2;
        }
        plan_ranges(view_, groups_per_warp, tiles_per_warp > 0 ? tiles_per_warp : short_pairs_ ? 2 : 1);
        policy_view_ = view_;
        if (tiles_per_warp == 0) plan_ranges(policy_view_, groups_per_warp, 1);
    }
    static void plan_ranges(dasp_view& v, int groups_per_warp, int tiles_per_warp)
    {
        v.groups_per_warp = groups_per_warp;
        v.med_warps = static_cast<int>(tcore::ceil_div(v.group_count, groups_per_warp));
        v.tiles_per_warp = tiles_per_warp;
        v.short_warps = static_cast<int>(tcore::ceil_div(v.tile_count, tiles_per_warp));
        const long long long_blocks = tcore::ceil_div(v.piece_count, detail::spmv_warps);
        const long long bun_blocks = tcore::ceil_div(v.bgroup_count, detail::spmv_warps);
        const long long med_blocks = tcore::ceil_div(v.med_warps, detail::spmv_warps);
        const long long short_blocks = tcore::ceil_div(v.short_warps, detail::spmv_warps);
        const long long empty_blocks = tcore::ceil_div(v.empty_count, detail::spmv_threads);
        require(long_blocks + bun_blocks + med_blocks + short_blocks + empty_blocks < (1LL << 31), "tcore::dasp_spmv",
                "the matrix needs more than 2^31 - 1 thread blocks");
        v.long_end = static_cast<int>(long_blocks);
        v.bun_end = static_cast<int>(long_blocks + bun_blocks);
        v.med_end = static_cast<int>(long_blocks + bun_blocks + med_blocks);
        v.short_end = static_cast<int>(long_blocks + bun_blocks + med_blocks + short_blocks);
    }

    void swap(dasp_spmv& o) noexcept
    {
        std::swap(arena_, o.arena_);
        std::swap(view_, o.view_);
        std::swap(policy_view_, o.policy_view_);
        std::swap(slab_, o.slab_);
        std::swap(nnz_, o.nnz_);
        std::swap(block_slots_, o.block_slots_);
        std::swap(irregular_, o.irregular_);
        std::swap(bytes_, o.bytes_);
        std::swap(mean_group_blocks_, o.mean_group_blocks_);
        std::swap(fitted_steps_, o.fitted_steps_);
        std::swap(group_pairs_, o.group_pairs_);
        std::swap(short_pairs_, o.short_pairs_);
        std::swap(asked_groups_per_warp_, o.asked_groups_per_warp_);
        std::swap(asked_tiles_per_warp_, o.asked_tiles_per_warp_);
        std::swap(resident_warps_, o.resident_warps_);
    }

    void upload(const sparse::dasp_format& f, cudaStream_t stream, int groups_per_warp)
    {
        // One allocation; every array starts on a 256-byte boundary.
        struct part {
            const void* src;
            std::size_t bytes;
            std::size_t offset;
        };
        std::vector<part> parts;
        std::size_t total = 0;
        auto add = [&](const void* src, std::size_t bytes) {
            parts.push_back({src, bytes, total});
            total += (bytes + 255) / 256 * 256;
            return parts.size() - 1;
        };
        auto add_vec = [&](const auto& v) { return add(v.data(), v.size() * sizeof(v[0])); };
        const std::size_t i_long_rows = add_vec(f.long_rows), i_piece_ptr = add_vec(f.long_piece_ptr),
                          i_piece_row = add_vec(f.piece_row), i_long_val = add_vec(f.long_val),
                          i_long_col = add_vec(f.long_col),
                          i_partial = add(nullptr, f.piece_row.size() * sizeof(double)),
                          i_counter = add(nullptr, f.long_rows.size() * sizeof(unsigned)),
                          i_med_rows = add_vec(f.med_rows), i_group_ptr = add_vec(f.group_ptr),
                          i_reg_val = add_vec(f.reg_val), i_reg_col = add_vec(f.reg_col),
                          i_irr_ptr = add_vec(f.irr_ptr), i_irr_val = add_vec(f.irr_val),
                          i_irr_col = add_vec(f.irr_col), i_tile_mask = add_vec(f.tile_mask),
                          i_tile_row_ptr = add_vec(f.tile_row_ptr), i_short_rows = add_vec(f.short_rows),
                          i_short_val = add_vec(f.short_val), i_short_col = add_vec(f.short_col),
                          i_empty = add_vec(f.empty_rows), i_bun_rows = add_vec(f.bun_rows),
                          i_bgroup_ptr = add_vec(f.bgroup_ptr), i_bun_col = add_vec(f.bun_col),
                          i_bun_val = add_vec(f.bun_val), i_birr_ptr = add_vec(f.birr_ptr),
                          i_birr_val = add_vec(f.birr_val), i_birr_col = add_vec(f.birr_col),
                          i_slab_val = add_vec(f.slab_val), i_slab_col = add_vec(f.slab_col);
        if (total > 0) TCORE_CHECK(cudaMalloc(&arena_, total));
        char* base = static_cast<char*>(arena_);
        for (const part& p : parts)
            if (p.bytes > 0) {
                if (p.src)
                    TCORE_CHECK(cudaMemcpyAsync(base + p.offset, p.src, p.bytes, cudaMemcpyHostToDevice, stream));
                else
                    TCORE_CHECK(cudaMemsetAsync(base + p.offset, 0, p.bytes, stream));
            }
        TCORE_CHECK(cudaStreamSynchronize(stream));  // the host vectors may go away after this
        auto at = [&](std::size_t i) -> void* { return parts[i].bytes ? base + parts[i].offset : nullptr; };
        dasp_view& v = view_;
        v.rows = f.rows;
        v.cols = f.cols;
        v.long_count = f.long_count();
        v.piece_count = f.piece_count();
        v.long_piece = f.opts.long_piece;
        v.long_rows = static_cast<const int*>(at(i_long_rows));
        v.long_piece_ptr = static_cast<const int*>(at(i_piece_ptr));
        v.piece_row = static_cast<const int*>(at(i_piece_row));
        v.long_val = static_cast<const double*>(at(i_long_val));
        v.long_col = static_cast<const int*>(at(i_long_col));
        v.partial = static_cast<double*>(at(i_partial));
        v.counter = static_cast<unsigned*>(at(i_counter));
        v.group_count = f.group_count();
        v.med_rows = static_cast<const int*>(at(i_med_rows));
        v.group_ptr = static_cast<const int*>(at(i_group_ptr));
        v.reg_val = static_cast<const double*>(at(i_reg_val));
        v.reg_col = static_cast<const int*>(at(i_reg_col));
        v.irr_ptr = static_cast<const int*>(at(i_irr_ptr));
        v.irr_val = static_cast<const double*>(at(i_irr_val));
        v.irr_col = static_cast<const int*>(at(i_irr_col));
        v.tile_count = f.tile_count();
        v.tile_mask = static_cast<const unsigned*>(at(i_tile_mask));
        v.tile_row_ptr = static_cast<const int*>(at(i_tile_row_ptr));
        v.short_rows = static_cast<const int*>(at(i_short_rows));
        v.short_val = static_cast<const double*>(at(i_short_val));
        v.short_col = static_cast<const int*>(at(i_short_col));
        v.empty_count = static_cast<int>(f.empty_rows.size());
        v.empty_rows = static_cast<const int*>(at(i_empty));
        require(sparse::valid_bundle(f.bundle), "tcore::dasp_spmv", "unsupported bundle size " + std::to_string(f.bundle));
        v.bundle = f.bundle;
        v.bgroup_count = std::max(0, f.bundle_group_count());
        v.bun_rows = static_cast<const int*>(at(i_bun_rows));
        v.bgroup_ptr = static_cast<const int*>(at(i_bgroup_ptr));
        v.bun_col = static_cast<const int*>(at(i_bun_col));
        v.bun_val = static_cast<const double*>(at(i_bun_val));
        v.birr_ptr = static_cast<const int*>(at(i_birr_ptr));
        v.birr_val = static_cast<const double*>(at(i_birr_val));
        v.birr_col = static_cast<const int*>(at(i_birr_col));
        require(f.slab_width >= 0 && f.slab_width <= sparse::slab_max_width, "tcore::dasp_spmv",
                "unsupported slab width " + std::to_string(f.slab_width) + " (0 to " +
                    std::to_string(sparse::slab_max_width) + ")");
        const sparse::slab_shape shape = sparse::make_slab_shape(f.slab_width);
        const std::size_t slab_slots = static_cast<std::size_t>(f.slab_count()) * shape.slab_slots();
        require(f.slab_val.size() == slab_slots && f.slab_col.size() == slab_slots, "tcore::dasp_spmv",
                "slab arrays hold " + std::to_string(f.slab_val.size()) + " values and " +
                    std::to_string(f.slab_col.size()) + " columns; " + std::to_string(f.slab_count()) +
                    " slabs of width " + std::to_string(f.slab_width) + " need " + std::to_string(slab_slots));
        slab_.rows = f.rows;
        slab_.slabs = f.slab_count();
        slab_.width = shape.width;
        slab_.full = shape.full;
        slab_.partial = shape.partial;
        slab_.val = static_cast<const double*>(at(i_slab_val));
        slab_.col = static_cast<const int*>(at(i_slab_col));
        mean_group_blocks_ = f.group_count() ? static_cast<double>(f.reg_val.size()) / 32.0 / f.group_count() : 0;
        fitted_steps_ = dasp_fitted_steps(f);
        resident_warps_ = f.opts.resident_warps > 0 ? f.opts.resident_warps : 32 * sparse::current_device_sms();
        plan_grid(groups_per_warp, 0);
        nnz_ = f.nnz;
        block_slots_ = f.block_slots();
        irregular_ = static_cast<long long>(f.irr_val.size() + f.birr_val.size());
        bytes_ = static_cast<std::size_t>(f.bytes());
    }
};

/// y = A x with A's columns cut into `panels` equal ranges, each packed as
/// its own dasp_spmv: the first writes y, the others add to it, in panel
/// order (deterministic). Where x outgrows L2 and the columns of a row are
/// scattered (power-law rows: random columns), most x gathers of a single
/// pass miss L2 and read a 32-byte sector from DRAM for 8 useful bytes; a
/// panel's share of x stays in L2 while its gathers run, at the price of
/// reading and writing y once more per panel after the first. Panels of
/// about half the L2 size suit such matrices; banded or blocked ones, whose
/// gathers already hit, only pay the extra y traffic.
class dasp_spmv_panels {
public:
    dasp_spmv_panels() = default;
    /// Packs each column panel of `a` (validated as by dasp_spmv) with `opts`.
    dasp_spmv_panels(const sparse::csr& a, int panels, const sparse::dasp_options& opts = {},
                     cudaStream_t stream = nullptr)
    {
        const char* where = "tcore::dasp_spmv_panels";
        require(panels >= 1, where, "panels must be at least 1, got " + std::to_string(panels));
        sparse::validate(a, where, true);
        const int p_count = std::max(1, std::min(panels, a.cols));
        for (int p = 0; p < p_count; ++p) {
            const int c0 = static_cast<int>(static_cast<long long>(a.cols) * p / p_count);
            const int c1 = static_cast<int>(static_cast<long long>(a.cols) * (p + 1) / p_count);
            panels_.emplace_back(sparse::column_range(a, c0, c1), opts, stream);
            panels_.back().set_short_pairs(true);
        }
    }

    int panels() const { return static_cast<int>(panels_.size()); }
    /// Every panel's work per warp and short-tile pairs (dasp_spmv's
    /// setters; the panels run short tiles in pairs by default).
    void set_work_per_warp(int groups_per_warp, int tiles_per_warp)
    {
        for (dasp_spmv& s : panels_) s.set_work_per_warp(groups_per_warp, tiles_per_warp);
    }
    void set_short_pairs(bool on)
    {
        for (dasp_spmv& s : panels_) s.set_short_pairs(on);
    }
    const dasp_spmv& panel(int p) const { return panels_.at(static_cast<std::size_t>(p)); }
    /// Device bytes of all panels.
    std::size_t device_bytes() const
    {
        std::size_t b = 0;
        for (const dasp_spmv& s : panels_) b += s.device_bytes();
        return b;
    }

    /// y = A x panel by panel (see dasp_spmv::run for Backend, Shape, x and y).
    template <class Backend = default_backend, class Shape = f64_m8n8k4>
    void run(const double* x, double* y, cudaStream_t stream = nullptr) const
    {
        require(!panels_.empty(), "tcore::dasp_spmv_panels::run", "no panels (default-constructed)");
        for (std::size_t p = 0; p < panels_.size(); ++p) panels_[p].run<Backend, Shape>(x, y, stream, p > 0);
    }
    /// The same with a caller's Policy (see dasp_spmv::run_with).
    template <class Policy, class Shape = f64_m8n8k4>
    void run_with(const double* x, double* y, cudaStream_t stream = nullptr) const
    {
        require(!panels_.empty(), "tcore::dasp_spmv_panels::run_with", "no panels (default-constructed)");
        for (std::size_t p = 0; p < panels_.size(); ++p) panels_[p].run_with<Policy, Shape>(x, y, stream, p > 0);
    }

private:
    std::vector<dasp_spmv> panels_;
};

}  // namespace tcore
