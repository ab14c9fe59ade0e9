// bench/harness/energy.cpp - NVML power sampling without NVML's header or
// import library: the handful of entry points the harness needs are
// declared here and looked up with dlsym in libnvidia-ml.so.1.
#include "harness/energy.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace tcore::bench::energy {
namespace {

// NVML's ABI, declared from its documentation: nvmlReturn_t is an int enum
// (0 = NVML_SUCCESS) and nvmlDevice_t an opaque pointer.
using nvml_return = int;
struct nvml_device_st;
using nvml_device = nvml_device_st*;
constexpr nvml_return nvml_success = 0;

struct nvml_api {
    void* lib = nullptr;
    nvml_return (*init)() = nullptr;
    nvml_return (*shutdown)() = nullptr;
    nvml_return (*handle_by_index)(unsigned, nvml_device*) = nullptr;
    nvml_return (*handle_by_pci_bus_id)(const char*, nvml_device*) = nullptr;  // optional
    nvml_return (*power_usage)(nvml_device, unsigned*) = nullptr;              // milliwatts
    nvml_return (*driver_version)(char*, unsigned) = nullptr;
    nvml_device device = nullptr;
    bool tried = false, initialized = false, ok = false;
};

nvml_api& api()
{
    static nvml_api a;
    return a;
}

template <class F>
bool bind(void* lib, const char* name, F& fn)
{
    fn = reinterpret_cast<F>(dlsym(lib, name));
    return fn != nullptr;
}

bool load_library(nvml_api& a, std::string& why)
{
    a.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!a.lib) {
        const char* err = dlerror();
        why = err ? err : "dlopen failed";
        return false;
    }
    bool all = bind(a.lib, "nvmlInit_v2", a.init) && bind(a.lib, "nvmlShutdown", a.shutdown) &&
               bind(a.lib, "nvmlDeviceGetHandleByIndex_v2", a.handle_by_index) &&
               bind(a.lib, "nvmlDeviceGetPowerUsage", a.power_usage) &&
               bind(a.lib, "nvmlSystemGetDriverVersion", a.driver_version);
    bind(a.lib, "nvmlDeviceGetHandleByPciBusId_v2", a.handle_by_pci_bus_id);
    if (!all) why = "libnvidia-ml.so.1 lacks an expected entry point";
    return all;
}

/// NVML may number devices differently from CUDA: match by PCI bus id.
bool find_device(nvml_api& a, int cuda_device, std::string& why)
{
    char bus_id[64] = {};
    if (a.handle_by_pci_bus_id && cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) == cudaSuccess &&
        a.handle_by_pci_bus_id(bus_id, &a.device) == nvml_success)
        return true;
    cudaGetLastError();
    if (a.handle_by_index(static_cast<unsigned>(cuda_device), &a.device) == nvml_success) return true;
    why = "NVML cannot find the device";
    return false;
}

}  // namespace

bool open(int cuda_device)
{
    nvml_api& a = api();
    if (a.tried) return a.ok;
    a.tried = true;
    std::string why;
    if (load_library(a, why)) {
        a.initialized = a.init() == nvml_success;
        if (!a.initialized) {
            why = "nvmlInit_v2 failed";
        } else if (find_device(a, cuda_device, why)) {
            unsigned mw = 0;
            if (a.power_usage(a.device, &mw) == nvml_success) a.ok = true;
            else why = "nvmlDeviceGetPowerUsage is not supported on this device";
        }
    }
    if (!a.ok)
        std::printf("energy: NVML not available (%s); power, energy and EDP are reported as -1\n", why.c_str());
    return a.ok;
}

bool available() { return api().ok; }

std::string driver_version()
{
    nvml_api& a = api();
    if (!a.initialized) return "";
    char buf[96] = {};
    if (a.driver_version(buf, sizeof buf) != nvml_success) return "";
    return buf;
}

void close()
{
    nvml_api& a = api();
    if (a.initialized) a.shutdown();
    a.initialized = a.ok = false;
}

struct sampler::state {
    std::atomic<bool> stop{false};
    std::vector<double> watts;
    std::thread thread;
};

sampler::sampler() : s_(new state)
{
    if (!available()) return;
    s_->thread = std::thread([st = s_] {
        nvml_api& a = api();
        while (!st->stop.load(std::memory_order_relaxed)) {
            unsigned mw = 0;
            if (a.power_usage(a.device, &mw) == nvml_success) st->watts.push_back(mw * 1e-3);
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });
}

double sampler::stop()
{
    if (s_->thread.joinable()) {
        s_->stop = true;
        s_->thread.join();
    }
    if (s_->watts.empty()) return -1;
    double sum = 0;
    for (double w : s_->watts) sum += w;
    return sum / static_cast<double>(s_->watts.size());
}

sampler::~sampler()
{
    stop();
    delete s_;
}

}  // namespace tcore::bench::energy
