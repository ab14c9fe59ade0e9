// tcore/patterns/device/fft.cuh - batched complex FP64 FFTs (1D, and 2D as
// two 1D passes, or for 256 x 256 one pass in thread-block clusters) whose
// butterflies are the DFT matrix products of dft.cuh on the FP64 MMA: `tc`
// (tensor_core) or, the same kernel with the MMA emulated lane by lane, `cc`
// (cuda_core).
//
//   tcore::fft_plan plan(nx, ny, batch);           // ny = 1: 1D; twiddles uploaded here
//   plan.execute<tcore::tensor_core>(in, out, tcore::fft_direction::forward, stream);
//
// Data: interleaved complex doubles (double2, cufftDoubleComplex), each
// signal nx contiguous elements (2D: ny rows of nx), signals back to back.
// in == out (in place) is allowed, other overlaps are not.
//
// The kernels: one persistent kernel per pass (fft_pass.cuh), rows then
// columns in 2D (the rows of nx = 2048 and the columns of ny = 256 one tile
// a CTA where DRAM is fast: fft_direct_kernel; the rows of nx = 4096 there
// take their tile numbers one ahead); for 256 x 256 one kernel
// in clusters where it pays (fft_cluster.cuh). All are built from the tile
// load and stages of fft_tile.cuh.
#pragma once

#include "fft_cluster.cuh"
#include "fft_pass.cuh"
#include "../../check.cuh"
#include "../../infra/launch.cuh"

#include <cuda_runtime.h>

#include <string>
#include <type_traits>
#include <utility>

namespace tcore {

/// A batched FP64 complex FFT of nx (1D) or ny x nx (2D, x fastest), both
/// powers of two from 64 to 4096. Owns the twiddle tables and a tile counter
/// (device memory); create it once, outside any timed loop. The counter
/// makes a plan's executes serial: run them on one stream (or otherwise
/// one after another), as with one cuFFT plan; use a plan per stream for
/// concurrent transforms.
class fft_plan {
public:
    /// The arguments of one pass kernel (the plan as the kernel sees it).
    using pass_args = detail::fft_pass_args;
    /// The arguments of the one-pass 2D kernel.
    using single_pass_args = detail::fft2d_args;

    fft_plan(long long nx, long long ny, long long batch) : nx_(nx), ny_(ny), batch_(batch)
    {
        constexpr const char* where = "fft_plan";
        require(batch >= 1, where, "batch must be >= 1 (got " + std::to_string(batch) + ")");
        require(ny >= 1, where, "ny must be >= 1 (1 for a 1D transform)");
        lx_ = size_log2(nx);
        require(lx_ >= 0 && dft::supported(lx_), where,
                "nx must be a power of two from 64 to 4096 (got " + std::to_string(nx) + ")");
        if (ny > 1) {
            ly_ = size_log2(ny);
            require(ly_ >= 0 && dft::supported(ly_), where,
                    "ny must be 1 or a power of two from 64 to 4096 (got " + std::to_string(ny) + ")");
            const long long m = dft::tile_values(ly_, true) / ny;
            require(nx % m == 0, where, "nx must be a multiple of " + std::to_string(m) + " for ny = " +
                                            std::to_string(ny));
        }
        require(nx * ny <= (1LL << 40) / batch, where, "transform too large");
        TCORE_CHECK(cudaMalloc(&schedule_, sizeof(detail::fft_schedule)));
        TCORE_CHECK(cudaMemset(schedule_, 0, sizeof(detail::fft_schedule)));
        tw_x_ = upload(static_cast<int>(nx));
        if (ny > 1) tw_y_ = upload(static_cast<int>(ny));
        tc_one_pass_ = single_pass_available() && dram_limited();
        tc_line_tiles_ = ny > 1 && dft::line_tile_values(ly_) != dft::tile_values(ly_, true) && dram_limited();
        tc_direct_ = !dram_limited();
    }
    ~fft_plan()
    {
        cudaFree(tw_x_);
        cudaFree(tw_y_);
        cudaFree(schedule_);
    }
    fft_plan(const fft_plan&) = delete;
    fft_plan& operator=(const fft_plan&) = delete;
    fft_plan(fft_plan&& o) noexcept { swap(o); }
    fft_plan& operator=(fft_plan&& o) noexcept
    {
        swap(o);
        return *this;
    }

    long long nx() const { return nx_; }
    long long ny() const { return ny_; }
    long long batch() const { return batch_; }
    /// Complex elements of in (and out).
    long long elements() const { return nx_ * ny_ * batch_; }
    /// Kernel launches per execute (1D and one-pass 2D: 1, else 2).
    template <class Backend = default_backend>
    int passes() const
    {
        return ny_ > 1 && !single_pass<Backend>() ? 2 : 1;
    }

    /// Whether execute<Backend> makes one pass over memory in 2D: one kernel
    /// in thread-block clusters whose CTAs hold an image between them in
    /// distributed shared memory (detail::fft2d_cluster_kernel). Available
    /// for ny x nx = 256 x 256 on devices with cluster launch (sm_90). By
    /// default tc takes it where the DRAM bandwidth per SM is below 30 GB/s
    /// (dram_gbs_per_sm: the one pass wins where DRAM is the limit and
    /// loses where the MMA work is; measurements in examples/fft/README.md),
    /// cc never (its one-pass kernel, at one CTA an SM, is slower than its
    /// two passes). set_single_pass overrides the default for both
    /// backends. (Where the device fits no cluster of 16 such CTAs, execute
    /// makes the two passes.)
    template <class Backend = default_backend>
    bool single_pass() const
    {
        return choice_ == pass_choice::one ||
               (choice_ == pass_choice::automatic && std::is_same_v<Backend, tensor_core> && tc_one_pass_);
    }
    /// Whether set_single_pass(true) is possible: a one-pass kernel for this
    /// size (256 x 256) and cluster launch on the current device.
    bool single_pass_available() const
    {
        if (!(lx_ == 8 && ly_ == 8)) return false;
        int dev = 0, clusters = 0;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        return clusters != 0;
    }

    /// Chooses one pass (where available: else throws) or the two passes.
    void set_single_pass(bool on)
    {
        require(!on || single_pass_available(), "fft_plan::set_single_pass",
                "no one-pass kernel for " + std::to_string(ny_) + " x " + std::to_string(nx_) +
                    " on this device (256 x 256 on a device with thread-block clusters)");
        choice_ = on ? pass_choice::one : pass_choice::two;
    }

    /// Whether execute<Backend>'s column pass of ny = 512 takes tiles of 8
    /// image columns (dft::line_tile_values: each load phase reads whole
    /// 128-byte lines; one CTA of 512 threads an SM) rather than 4 (two CTAs
    /// of 256 threads). By default cc does, and tc where the DRAM bandwidth
    /// per SM is below 30 GB/s (dram_limited); set_line_tiles overrides both.
    /// Other sizes have one column tile.
    template <class Backend = default_backend>
    bool line_tiles() const
    {
        return tiles_ == tile_choice::automatic ? !std::is_same_v<Backend, tensor_core> || tc_line_tiles_
                                                : tiles_ == tile_choice::lines;
    }
    /// Chooses the column tiles of ny = 512 (line_tiles) for both backends.
    void set_line_tiles(bool on) { tiles_ = on ? tile_choice::lines : tile_choice::narrow; }

    /// Whether execute<Backend>'s row pass of nx = 2048 runs one tile a CTA,
    /// loaded straight into registers (detail::fft_direct_kernel: four CTAs
    /// of 128 threads an SM, one buffer each) rather than the persistent
    /// pass kernel (cp.async into two tile buffers, three CTAs an SM). By
    /// default tc does where the DRAM bandwidth per SM is 30 GB/s or more
    /// (not dram_limited), cc never; set_direct_rows overrides both. (The
    /// same kernel for nx = 512, 1024 and 4096 measured slower or level:
    /// examples/fft/README.md.)
    template <class Backend = default_backend>
    bool direct_rows() const
    {
        return lx_ == 11 && fast_dram_choice<Backend>(rows_, tile_choice::direct);
    }
    /// Chooses the row kernel of nx = 2048 (direct_rows) for both backends;
    /// nx = 4096 has take_ahead, other sizes one row kernel.
    void set_direct_rows(bool on) { rows_ = on ? tile_choice::direct : tile_choice::pass; }

    /// Whether execute<Backend>'s row pass of nx = 4096 (one CTA an SM)
    /// takes each tile number one take ahead (detail::fft_pass_kernel's
    /// TakeAhead), so that no barrier waits for the counter's atomic. By
    /// default tc does where DRAM is fast (as direct_rows), cc never;
    /// set_take_ahead overrides both. (In kernels of several CTAs an SM it
    /// measured slower: examples/fft/README.md.)
    template <class Backend = default_backend>
    bool take_ahead() const
    {
        return lx_ == 12 && fast_dram_choice<Backend>(ahead_, tile_choice::ahead);
    }
    /// Chooses the row kernel of nx = 4096 (take_ahead) for both backends.
    void set_take_ahead(bool on) { ahead_ = on ? tile_choice::ahead : tile_choice::pass; }

    /// Whether execute<Backend>'s column pass of ny = 256 runs one tile (8
    /// image columns) a CTA, loaded straight into registers
    /// (detail::fft_direct_kernel: three CTAs of 256 threads an SM) rather
    /// than the persistent pass kernel (two CTAs of two tile buffers). The
    /// same defaults as direct_rows; set_direct_columns overrides both. (The
    /// column tiles of ny = 512 measured slower so: examples/fft/README.md.)
    template <class Backend = default_backend>
    bool direct_columns() const
    {
        return ly_ == 8 && fast_dram_choice<Backend>(columns_, tile_choice::direct);
    }
    /// Chooses the column kernel of ny = 256 (direct_columns) for both
    /// backends; other sizes keep theirs.
    void set_direct_columns(bool on) { columns_ = on ? tile_choice::direct : tile_choice::pass; }

    /// out = FFT(in) on `Backend` (tcore::tensor_core: tc, tcore::cuda_core: cc).
    template <class Backend = default_backend>
    void execute(const double2* in, double2* out, fft_direction dir, cudaStream_t stream = 0) const
    {
        static_assert(is_backend_v<Backend>, "Backend must be tcore::tensor_core or tcore::cuda_core");
        constexpr const char* where = "fft_plan::execute";
        require(tw_x_ != nullptr, where, "the plan was moved from");
        require(in != nullptr && out != nullptr, where, "null data pointer");
        require(tcore::aligned(in, 16) && tcore::aligned(out, 16), where, "data must be 16-byte aligned");
        const long long count = elements();
        require(in == out || in + count <= out || out + count <= in, where,
                "in and out overlap without being the same array");
        require(dir == fft_direction::forward || dir == fft_direction::inverse, where, "bad direction");
        if (ny_ > 1 && single_pass<Backend>()) {
            const detail::fft2d_args a{in, out, batch_, tw_x_, tw_y_};
            const bool fwd = dir == fft_direction::forward;
            const bool launched = fwd ? launch_2d_l<8, 8, Backend, -1>(a, stream) : launch_2d_l<8, 8, Backend, 1>(a, stream);
            if (launched) return;  // else no cluster of its size fits this device: two passes
        }
        // rows: signal gs starts at gs * nx
        detail::fft_pass_args rows{in, out, batch_ * ny_, 1, nx_, nx_, 1, tw_x_, schedule_};
        const bool other_rows = lx_ == 12 ? take_ahead<Backend>() : direct_rows<Backend>();  // by size
        if (dir == fft_direction::forward) launch<Backend, -1, false>(lx_, rows, other_rows, stream);
        else launch<Backend, 1, false>(lx_, rows, other_rows, stream);
        if (ny_ > 1) {
            // columns: signal gs = (image b, column c), gs = b * nx + c
            detail::fft_pass_args cols{out, out, batch_ * nx_, nx_, nx_ * ny_, 1, nx_, tw_y_,
                                          schedule_};
            const bool other = ly_ == 9 ? line_tiles<Backend>() : direct_columns<Backend>();  // by size
            if (dir == fft_direction::forward) launch<Backend, -1, true>(ly_, cols, other, stream);
            else launch<Backend, 1, true>(ly_, cols, other, stream);
        }
    }

private:
    long long nx_ = 0, ny_ = 0, batch_ = 0;
    int lx_ = -1, ly_ = -1;
    double2* tw_x_ = nullptr;
    double2* tw_y_ = nullptr;
    detail::fft_schedule* schedule_ = nullptr;  ///< the passes' tile counter (they run one after another)
    enum class pass_choice { automatic, one, two };
    pass_choice choice_ = pass_choice::automatic;  ///< set_single_pass
    bool tc_one_pass_ = false;                     ///< tc's automatic choice (single_pass)
    enum class tile_choice { automatic, lines, narrow, direct, ahead, pass };
    tile_choice tiles_ = tile_choice::automatic;    ///< set_line_tiles
    bool tc_line_tiles_ = false;                    ///< tc's automatic choice (line_tiles)
    tile_choice rows_ = tile_choice::automatic;     ///< set_direct_rows
    tile_choice columns_ = tile_choice::automatic;  ///< set_direct_columns
    tile_choice ahead_ = tile_choice::automatic;    ///< set_take_ahead
    bool tc_direct_ = false;  ///< tc's automatic choice (direct_rows, direct_columns, take_ahead)

    /// The kernel of choice `c` (direct_rows, direct_columns, take_ahead):
    /// `on` where set so, by default tc's where DRAM is fast, cc never.
    template <class Backend>
    bool fast_dram_choice(tile_choice c, tile_choice on) const
    {
        return c == tile_choice::automatic ? std::is_same_v<Backend, tensor_core> && tc_direct_ : c == on;
    }

    void swap(fft_plan& o) noexcept
    {
        std::swap(nx_, o.nx_), std::swap(ny_, o.ny_), std::swap(batch_, o.batch_);
        std::swap(lx_, o.lx_), std::swap(ly_, o.ly_), std::swap(tw_x_, o.tw_x_), std::swap(tw_y_, o.tw_y_);
        std::swap(schedule_, o.schedule_), std::swap(choice_, o.choice_), std::swap(tc_one_pass_, o.tc_one_pass_);
        std::swap(tiles_, o.tiles_), std::swap(tc_line_tiles_, o.tc_line_tiles_);
        std::swap(rows_, o.rows_), std::swap(columns_, o.columns_), std::swap(ahead_, o.ahead_);
        std::swap(tc_direct_, o.tc_direct_);
    }

    /// Whether the current device has under 30 GB/s of DRAM bandwidth an SM
    /// (dram_gbs_per_sm), where the tc kernels are limited by DRAM rather
    /// than by their MMA work and barriers (the cards behind the threshold:
    /// examples/fft/README.md).
    static bool dram_limited() { return dram_gbs_per_sm() < 30.0; }

    static int size_log2(long long n)
    {
        if (n < 1 || (n & (n - 1)) != 0) return -1;
        int l = 0;
        while ((1LL << l) < n) ++l;
        return l;
    }

    static double2* upload(int n)
    {
        const auto t = dft::twiddle_table(n, -1);
        double2* d = nullptr;
        TCORE_CHECK(cudaMalloc(&d, sizeof(double2) * t.size()));
        const cudaError_t st = cudaMemcpy(d, t.data(), sizeof(double2) * t.size(), cudaMemcpyHostToDevice);
        if (st != cudaSuccess) {
            cudaFree(d);
            TCORE_CHECK(st);
        }
        return d;
    }

    // One pass for N = 2^L; `other`: the pass's other kernel where it has
    // one (line_tiles() for the columns of N = 512, direct_columns() for
    // those of N = 256, direct_rows() for the rows of N = 2048, take_ahead()
    // for those of N = 4096). Defined
    // below the class, not inline, so that a program can compile each pass
    // kernel once (an explicit instantiation of launch_l) and declare it
    // `extern template` elsewhere.
    template <int L, class Backend, int Sign, bool Strided>
    static void launch_l(const pass_args& a, bool other, cudaStream_t stream);
    // The pass kernel of one tile size (launch_l chooses it; TakeAhead: the
    // kernel's).
    template <int L, class Backend, int Sign, bool Strided, int TileValues, bool TakeAhead = false>
    static void launch_tile(const pass_args& a, cudaStream_t stream);
    // The one-tile-a-CTA kernel (direct_rows, direct_columns).
    template <int L, class Backend, int Sign, bool Strided>
    static void launch_direct(const pass_args& a, cudaStream_t stream);

    // The one-pass 2D kernel of 2^Ly x 2^Lx (likewise defined below the
    // class); false (nothing launched) where the device fits none of its
    // clusters.
    template <int Lx, int Ly, class Backend, int Sign>
    static bool launch_2d_l(const single_pass_args& a, cudaStream_t stream);

    template <class Backend, int Sign, bool Strided>
    static void launch(int l, const detail::fft_pass_args& a, bool other, cudaStream_t stream)
    {
        switch (l) {
        case 6: return launch_l<6, Backend, Sign, Strided>(a, other, stream);
        case 7: return launch_l<7, Backend, Sign, Strided>(a, other, stream);
        case 8: return launch_l<8, Backend, Sign, Strided>(a, other, stream);
        case 9: return launch_l<9, Backend, Sign, Strided>(a, other, stream);
        case 10: return launch_l<10, Backend, Sign, Strided>(a, other, stream);
        case 11: return launch_l<11, Backend, Sign, Strided>(a, other, stream);
        case 12: return launch_l<12, Backend, Sign, Strided>(a, other, stream);
        default: throw error("fft_plan: unsupported size 2^" + std::to_string(l));
        }
    }
};

template <int L, class Backend, int Sign, bool Strided>
void fft_plan::launch_l(const pass_args& a, bool other, cudaStream_t stream)
{
    constexpr int line = dft::line_tile_values(L);  // the columns of N = 512 have two tiles
    if constexpr (Strided && line != dft::tile_values(L, true))
        if (other) return launch_tile<L, Backend, Sign, Strided, line>(a, stream);
    if constexpr ((!Strided && L == 11) || (Strided && L == 8))  // the rows of 2048, the columns of 256
        if (other) return launch_direct<L, Backend, Sign, Strided>(a, stream);
    if constexpr (!Strided && L == 12)  // the rows of 4096: tile numbers taken one ahead
        if (other) return launch_tile<L, Backend, Sign, Strided, dft::tile_values(L, Strided), true>(a, stream);
    launch_tile<L, Backend, Sign, Strided, dft::tile_values(L, Strided)>(a, stream);
}

template <int L, class Backend, int Sign, bool Strided>
void fft_plan::launch_direct(const pass_args& a, cudaStream_t stream)
{
    using C = detail::fft_config<L, Strided>;
    constexpr std::size_t smem = sizeof(double2) * C::per_cta;  // one buffer: the exchange between the stages
    require(Strided ? a.sig_stride == 1 && a.row % C::signals == 0 : a.sig_stride == C::n && a.n_stride == 1,
            "fft_plan", "internal: pass arguments do not match the kernel's fixed strides");
    auto kernel = detail::fft_direct_kernel<L, Backend, Sign, Strided>;
    static int ready[64] = {};  // once per device: raise the dynamic shared-memory limit
    cached_per_device(ready, [&](int) {
        TCORE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
        return 1;
    });
    const unsigned tiles = grid_of(a.signals, C::signals, "fft_plan");
    kernel<<<tiles, C::threads, smem, stream>>>(a);
    TCORE_CHECK_LAUNCH();
}

template <int L, class Backend, int Sign, bool Strided, int TileValues, bool TakeAhead>
void fft_plan::launch_tile(const pass_args& a, cudaStream_t stream)
{
    using C = detail::fft_config<L, Strided, TileValues>;
    // the kernel takes these strides as constants (fft_pass_args)
    require(Strided ? a.sig_stride == 1 && a.row % C::signals == 0 : a.sig_stride == C::n && a.n_stride == 1,
            "fft_plan", "internal: pass arguments do not match the kernel's fixed strides");
    const long long tiles = tcore::ceil_div(a.signals, C::signals);
    auto kernel = detail::fft_pass_kernel<L, Backend, Sign, Strided, TileValues, TakeAhead>;
    // once per device: raise the dynamic shared-memory limit, count the resident CTAs
    static int resident[64] = {};
    const int full = cached_per_device(resident, [&](int) {
        TCORE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(C::smem_bytes)));
        return tcore::sm_count() * tcore::blocks_per_sm(kernel, C::threads, C::smem_bytes);
    });
    const long long blocks = tiles < full ? tiles : full;  // persistent: a CTA loops over tiles
    kernel<<<static_cast<unsigned>(blocks), C::threads, C::smem_bytes, stream>>>(a);
    TCORE_CHECK_LAUNCH();
}

template <int Lx, int Ly, class Backend, int Sign>
bool fft_plan::launch_2d_l(const single_pass_args& a, cudaStream_t stream)
{
    using F = detail::fft2d_config<Lx, Ly>;
    auto kernel = detail::fft2d_cluster_kernel<Lx, Ly, Backend, Sign>;
    cudaLaunchAttribute cluster_dim[1];
    cluster_dim[0].id = cudaLaunchAttributeClusterDimension;
    cluster_dim[0].val.clusterDim.x = F::ranks;
    cluster_dim[0].val.clusterDim.y = 1;
    cluster_dim[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(F::threads);
    cfg.dynamicSmemBytes = F::smem_bytes;
    cfg.stream = stream;
    cfg.attrs = cluster_dim;
    cfg.numAttrs = 1;
    // once per device: raise the dynamic shared-memory limit, count the
    // clusters that fit at once (-1: none)
    static int resident[64] = {};
    const int clusters = cached_per_device(resident, [&](int) {
        TCORE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(F::smem_bytes)));
        // a device that refuses the cluster size (a non-portable 16) or fits
        // none of these clusters gets the two passes
        cudaLaunchConfig_t one = cfg;
        one.gridDim = dim3(F::ranks);
        int fit = 0;
        const bool sized = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
        if (!sized || cudaOccupancyMaxActiveClusters(&fit, kernel, &one) != cudaSuccess) {
            cudaGetLastError();
            fit = 0;
        }
        return fit > 0 ? fit : -1;
    });
    if (clusters < 0) return false;
    const long long grid = a.images < clusters ? a.images : clusters;  // persistent: a cluster loops over images
    cfg.gridDim = dim3(static_cast<unsigned>(grid * F::ranks));
    TCORE_CHECK(cudaLaunchKernelEx(&cfg, kernel, a));
    TCORE_CHECK_LAUNCH();
    return true;
}

}  // namespace tcore
