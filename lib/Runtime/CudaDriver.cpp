//===- CudaDriver.cpp - the CUDA driver API, loaded at run time -----------===//
#include "pa/Runtime/CudaDriver.h"

#include <dlfcn.h>

#include <cstdlib>

namespace pa::runtime::cuda {
namespace {

struct LoadedDriver {
  DriverApi api{};
  std::string error;
  bool loaded = false;
};

/// Binds `slot` to `symbol` of `library`; records the first missing one.
template <typename Fn>
void bind(void *library, Fn &slot, const char *symbol, std::string &error) {
  slot = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (!slot && error.empty())
    error = "the CUDA driver " + driverLibraryName() + " lacks " + symbol +
            " (the driver is older than CUDA 12)";
}

LoadedDriver load() {
  LoadedDriver driver;
  const std::string name = driverLibraryName();
  void *library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    driver.error = "the CUDA driver is not available: " +
                   (why ? std::string(why) : name + " not found");
    return driver;
  }
  DriverApi &a = driver.api;
  std::string &e = driver.error;
  bind(library, a.cuInit, "cuInit", e);
  bind(library, a.cuGetErrorString, "cuGetErrorString", e);
  bind(library, a.cuDeviceGet, "cuDeviceGet", e);
  bind(library, a.cuDeviceGetCount, "cuDeviceGetCount", e);
  bind(library, a.cuDeviceGetAttribute, "cuDeviceGetAttribute", e);
  bind(library, a.cuDeviceGetName, "cuDeviceGetName", e);
  bind(library, a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", e);
  bind(library, a.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", e);
  bind(library, a.cuCtxSetCurrent, "cuCtxSetCurrent", e);
  bind(library, a.cuCtxGetCurrent, "cuCtxGetCurrent", e);
  bind(library, a.cuCtxSynchronize, "cuCtxSynchronize", e);
  bind(library, a.cuModuleLoadDataEx, "cuModuleLoadDataEx", e);
  bind(library, a.cuModuleUnload, "cuModuleUnload", e);
  bind(library, a.cuModuleGetFunction, "cuModuleGetFunction", e);
  bind(library, a.cuFuncSetAttribute, "cuFuncSetAttribute", e);
  bind(library, a.cuLaunchKernel, "cuLaunchKernel", e);
  // Optional: without it every kernel is launched plainly.
  a.cuLaunchKernelEx = reinterpret_cast<decltype(a.cuLaunchKernelEx)>(
      dlsym(library, "cuLaunchKernelEx"));
  bind(library, a.cuMemAlloc, "cuMemAlloc_v2", e);
  bind(library, a.cuMemFree, "cuMemFree_v2", e);
  bind(library, a.cuMemcpyHtoD, "cuMemcpyHtoD_v2", e);
  bind(library, a.cuMemcpyDtoH, "cuMemcpyDtoH_v2", e);
  bind(library, a.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", e);
  bind(library, a.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", e);
  bind(library, a.cuMemsetD8Async, "cuMemsetD8Async", e);
  bind(library, a.cuMemsetD32Async, "cuMemsetD32Async", e);
  bind(library, a.cuStreamCreate, "cuStreamCreate", e);
  bind(library, a.cuStreamDestroy, "cuStreamDestroy_v2", e);
  bind(library, a.cuStreamSynchronize, "cuStreamSynchronize", e);
  bind(library, a.cuStreamBeginCapture, "cuStreamBeginCapture_v2", e);
  bind(library, a.cuStreamEndCapture, "cuStreamEndCapture", e);
  bind(library, a.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags",
       e);
  bind(library, a.cuGraphLaunch, "cuGraphLaunch", e);
  bind(library, a.cuGraphDestroy, "cuGraphDestroy", e);
  bind(library, a.cuGraphExecDestroy, "cuGraphExecDestroy", e);
  bind(library, a.cuEventCreate, "cuEventCreate", e);
  bind(library, a.cuEventDestroy, "cuEventDestroy_v2", e);
  bind(library, a.cuEventRecord, "cuEventRecord", e);
  bind(library, a.cuEventSynchronize, "cuEventSynchronize", e);
  // CUDA 12.8 added the _v2 entry point; older drivers have only the first.
  bind(library, a.cuEventElapsedTime, "cuEventElapsedTime_v2", e);
  if (!a.cuEventElapsedTime) {
    e.clear();
    bind(library, a.cuEventElapsedTime, "cuEventElapsedTime", e);
  }
  if (!e.empty())
    return driver;
  // A machine with the driver but no GPU fails here (CUDA_ERROR_NO_DEVICE).
  if (CUresult result = a.cuInit(0); result != CUDA_SUCCESS) {
    e = "the CUDA driver " + name + " cannot start: " +
        describe(a, result, "cuInit");
    return driver;
  }
  driver.loaded = true;
  return driver;
}

} // namespace

std::string driverLibraryName() {
  const char *chosen = std::getenv("PA_CUDA_LIBRARY");
  return chosen && *chosen ? chosen : "libcuda.so.1";
}

const DriverApi *loadDriver(std::string &error) {
  static LoadedDriver driver = load();
  if (!driver.loaded) {
    error = driver.error;
    return nullptr;
  }
  return &driver.api;
}

std::string describe(const DriverApi &api, CUresult result, const char *call) {
  const char *text = nullptr;
  if (api.cuGetErrorString)
    api.cuGetErrorString(result, &text);
  return std::string(call) + " failed: CUDA error " + std::to_string(result) +
         (text ? std::string(" (") + text + ")" : std::string());
}

} // namespace pa::runtime::cuda
