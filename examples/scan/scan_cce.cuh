// examples/scan/scan_cce.cuh - the `cce` opponent of the Scan workload:
// prefix sums with only the additions the scan needs (no MMA-shaped work),
// on the kit's tiling and look-back. A 128-element tile: each lane adds its
// own consecutive elements, the warp scans the lane totals with shuffles
// (Kogge-Stone: tcore::shfl_inclusive / shfl_exclusive_of). FP64 lanes hold
// elements 2l, 2l+1 of each 64-element half (two lane scans, the second
// carried by the first half's total); FP16 lanes hold 4l..4l+3 (one lane
// scan, summed in FP32).
//
// Provides (namespace tcore::examples::scan)
//   warp_scan_cce<T, Exclusive, SegCols>: a warp-level scan with the
//       interface of tcore::warp_scan (in_pos, out_pos, scan, total; the
//       Scanner of patterns/device/scan.cuh), so the kit's launchers run it
//       through tcore::scan_with / scan_segments_with. SegCols 8: one scan
//       per tile; 4: two independent scans of 64.
//   scan_cce<T>(temp, temp_bytes, in, out, n, kind, stream),
//   scan_segments_cce<T>(in, out, num_segments, segment_size, kind, stream):
//       the device-wide and segmented scans of tcore::scan and
//       tcore::scan_segments.
// Preconditions: T double (double sums) or __half (float sums). Warp calls
// as tcore::warp_scan: all 32 lanes converged (full-mask shuffles; not
// checked). Inf and NaN follow from the additions (no patching needed).
// Launchers: those of tcore::scan and scan_segments (device pointers; in and
// out not overlapping unless in == out with the same element size;
// tcore::error on bad arguments).
#pragma once

#include <tcore/patterns/device/scan.cuh>
#include <tcore/patterns/scan.cuh>

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace tcore::examples::scan {

/// One 128-element tile scanned with shuffles (the cce variant). Lane l holds
/// elements 2l, 2l+1, 64+2l, 65+2l (FP64) or 4l..4l+3 (FP16).
template <class T, bool Exclusive = false, int SegCols = 8>
struct warp_scan_cce {
    static_assert(SegCols == 8 || SegCols == 4, "one scan per tile or two of 64");
    static constexpr bool fp16 = std::is_same_v<T, __half>;
    using in_type = T;
    using sum_type = sum_type_t<T>;
    static constexpr int in_group = fp16 ? 4 : 2;
    static constexpr int out_group = fp16 ? 4 : 2;
    static constexpr int min_blocks = 2;

    __host__ __device__ static constexpr int in_pos(int lane, int i)
    {
        return fp16 ? 4 * lane + i : 64 * (i >> 1) + 2 * lane + (i & 1);
    }
    __host__ __device__ static constexpr int out_pos(int lane, int i) { return in_pos(lane, i); }
    __host__ __device__ static constexpr int out_index(int j) { return j; }

    __device__ void scan(sum_type (&out)[scan_per_lane], const in_type (&v)[scan_per_lane]) const
    {
        sum_type x[scan_per_lane];
        static_for<scan_per_lane>([&](auto i) { x[i] = convert_to<sum_type>(v[i]); });
        if constexpr (!fp16) {
            sum_type chunk_total = 0;
            static_for<2>([&](auto h) {  // two chunks of 64: lanes hold 2 each
                const sum_type a = x[2 * h], b = x[2 * h + 1];
                const sum_type incl = shfl_inclusive(a + b);
                sum_type before = shfl_exclusive_of(incl);
                if (SegCols == 8 && h == 1) before += chunk_total;
                out[2 * h] = Exclusive ? before : before + a;
                out[2 * h + 1] = Exclusive ? before + a : (before + a) + b;
                chunk_total = __shfl_sync(0xffffffffu, incl, 31);
            });
        } else {
            constexpr int width = SegCols == 8 ? 32 : 16;  // lanes per scan
            const sum_type l0 = x[0], l1 = l0 + x[1], l2 = l1 + x[2], l3 = l2 + x[3];
            const sum_type before = shfl_exclusive_of(shfl_inclusive(l3, width), width);
            if constexpr (Exclusive) {
                out[0] = before, out[1] = before + l0, out[2] = before + l1, out[3] = before + l2;
            } else {
                out[0] = before + l0, out[1] = before + l1, out[2] = before + l2, out[3] = before + l3;
            }
        }
    }

    __device__ sum_type total(const sum_type (&out)[scan_per_lane], const in_type (&v)[scan_per_lane]) const
    {
        sum_type t = out[scan_per_lane - 1];  // lane 31 holds position 127 last
        if constexpr (Exclusive) t += convert_to<sum_type>(v[scan_per_lane - 1]);
        return __shfl_sync(0xffffffffu, t, 31);
    }
};

/// cce device-wide prefix sum (shuffle scans, same look-back).
template <class T>
inline void scan_cce(void* temp, std::size_t& temp_bytes, const T* in, sum_type_t<T>* out, long long n,
                     scan_kind kind = scan_kind::inclusive, cudaStream_t stream = 0)
{
    constexpr const char* where = "tcore::examples::scan::scan_cce";
    if (kind == scan_kind::exclusive)
        tcore::scan_with<warp_scan_cce<T, true>>(temp, temp_bytes, in, out, n, stream, where);
    else
        tcore::scan_with<warp_scan_cce<T, false>>(temp, temp_bytes, in, out, n, stream, where);
}

/// cce segmented scan.
template <class T>
inline void scan_segments_cce(const T* in, sum_type_t<T>* out, long long num_segments, long long segment_size,
                              scan_kind kind = scan_kind::inclusive, cudaStream_t stream = 0)
{
    constexpr const char* where = "tcore::examples::scan::scan_segments_cce";
    if (kind == scan_kind::exclusive)
        tcore::scan_segments_with<warp_scan_cce<T, true, 8>, warp_scan_cce<T, true, 4>>(in, out, num_segments,
                                                                                      segment_size, stream, where);
    else
        tcore::scan_segments_with<warp_scan_cce<T, false, 8>, warp_scan_cce<T, false, 4>>(in, out, num_segments,
                                                                                        segment_size, stream, where);
}

}  // namespace tcore::examples::scan
