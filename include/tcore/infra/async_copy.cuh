// tcore/infra/async_copy.cuh - asynchronous global -> shared copies that bypass
// registers (PTX ISA "Data Movement and Conversion Instructions: cp.async",
// sm_80+), their commit groups and waits.
//
// cp.async.cg copies 16 bytes (L2 only), cp.async.ca 4 or 8 bytes; the
// optional source size (here `src_bytes`, 0..Bytes) reads only that many
// bytes and zero-fills the rest, so tails need no branch around the copy.
// Each thread's copies are grouped by cp_async_commit(); cp_async_wait<N>()
// returns once at most N of the thread's groups are pending. A barrier is
// still needed before other threads read what a thread copied.
// Host passes and targets below sm_80 copy synchronously.
//
// sm_90 bulk copies (PTX ISA "cp.async.bulk", "mbarrier"): one thread copies
// a contiguous run of bytes (source, destination and size multiples of 16)
// and the copy completes on a shared-memory mbarrier: a thread announces
// the bytes a phase expects (mbarrier_expect_tx, which is also the phase's
// one arrival), the copies count them down, and mbarrier_wait_parity
// returns once the phase of the given parity has completed. These have no
// fallback below sm_90: callers take another path there.
#pragma once

#include <cuda_runtime.h>

namespace tcore {

/// The shared-state-space address of a pointer into shared memory.
__device__ inline unsigned smem_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

/// Copies Bytes (4, 8 or 16) from global `src` to shared `dst`: the first
/// `src_bytes` come from src, the rest are zero (src_bytes = 0 reads nothing,
/// but src must still be a valid address). Both must be Bytes-aligned.
template <int Bytes>
__device__ inline void cp_async(void* dst, const void* src, int src_bytes)
{
    static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (Bytes == 16) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_address(dst)),
                     "l"(__cvta_generic_to_global(src)), "r"(src_bytes)
                     : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(smem_address(dst)),
                     "l"(__cvta_generic_to_global(src)), "n"(Bytes), "r"(src_bytes)
                     : "memory");
    }
#else
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (int i = 0; i < Bytes; ++i) d[i] = i < src_bytes ? s[i] : 0;
#endif
}

/// Closes this thread's current group of cp.async copies (an empty group counts too).
__device__ inline void cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

/// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ inline void cp_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

/// Initializes a shared-memory mbarrier for one arrival per phase (sm_90).
/// After its inits a thread calls mbarrier_init_fence once, and a block
/// barrier follows before other threads or copies use them.
__device__ inline void mbarrier_init(unsigned long long* bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(bar)) : "memory");
#endif
}

/// Makes this thread's mbarrier_init calls visible to the async proxy (sm_90).
__device__ inline void mbarrier_init_fence()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/// Arrives on `bar` and sets the bytes its current phase waits for (sm_90).
__device__ inline void mbarrier_expect_tx(unsigned long long* bar, unsigned bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes)
                 : "memory");
#endif
}

/// Waits until the phase of `bar` with the given parity (0, 1) has completed (sm_90).
__device__ inline void mbarrier_wait_parity(unsigned long long* bar, unsigned parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "{\n .reg .pred done;\n MBAR_WAIT:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        " @!done bra MBAR_WAIT;\n}\n" ::"r"(smem_address(bar)),
        "r"(parity)
        : "memory");
#endif
}

/// Copies `bytes` (a multiple of 16) from global `src` to shared `dst`, both
/// 16-byte aligned, completing on `bar`'s transaction count (sm_90).
__device__ inline void cp_async_bulk(void* dst, const void* src, unsigned bytes, unsigned long long* bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_address(dst)),
                 "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(smem_address(bar))
                 : "memory");
#endif
}

}  // namespace tcore
