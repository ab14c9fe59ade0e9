#include "common.cuh"
#include <cstring>

__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
        dst[i] = src[i];
}

void run_copy()
{
    int sms = detail::sm_count();
    for (double mb : {134.3, 1077.0}) {
        const std::size_t bytes = static_cast<std::size_t>(mb * 1e6) / 4096 * 4096;
        void *a, *b;
        TCORE_CHECK(cudaMalloc(&a, bytes));
        TCORE_CHECK(cudaMalloc(&b, bytes));
        TCORE_CHECK(cudaMemset(a, 1, bytes));
        cudaStream_t s;
        TCORE_CHECK(cudaStreamCreate(&s));
        const std::size_t n = bytes / 16;
        for (int mult : {16}) {
            timing t = time_launch([&](cudaStream_t st) { copy_kernel<<<sms * mult, 256, 0, st>>>((const uint4*)a, (uint4*)b, n); }, s);
            std::printf("C copy %.0f MB grid=%dxSM: %.4f ms  %.0f GB/s  %.1f%%\n", bytes / 1e6, mult, t.med,
                        2.0 * bytes / (t.med * 1e-3) / 1e9, 100.0 * 2.0 * bytes / (t.med * 1e-3) / 1e9 / copy_gbs);
        }
        timing t = time_launch([&](cudaStream_t st) { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, st); }, s);
        std::printf("C memcpy %.0f MB: %.4f ms  %.0f GB/s  %.1f%%\n", bytes / 1e6, t.med, 2.0 * bytes / (t.med * 1e-3) / 1e9,
                    100.0 * 2.0 * bytes / (t.med * 1e-3) / 1e9 / copy_gbs);
        cudaStreamDestroy(s);
        cudaFree(a);
        cudaFree(b);
    }
}

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string g = argv[i];
        if (g == "copy") run_copy();
        else if (g == "blocks") run_group_blocks();
        else if (g == "s3t3") run_group_s3t3();
        else if (g == "s1t3") run_group_s1t3();
        else if (g == "b3t1") run_group_b3t1();
    }
    return 0;
}
