//===- HipLauncher.cpp - run compiled decode programs with HIP ------------===//
//
// The HIP headers (Debian's libamdhip64-dev) only type the entry points;
// nothing links against libamdhip64: it is opened with dlopen.
//
//===----------------------------------------------------------------------===//
#include "pa/Runtime/HipLauncher.h"

#include "pa/Runtime/LauncherCore.h"

// The host-side API of the AMD platform; no device code is compiled here.
#define __HIP_PLATFORM_AMD__
#include <hip/hip_runtime_api.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>

namespace pa::runtime {

/// The entry points pa-mlir calls, with the headers' own prototypes.
struct HipRuntime::Api {
  decltype(&::hipGetDeviceCount) getDeviceCount;
  decltype(&::hipGetErrorName) getErrorName;
  decltype(&::hipGetDevice) getDevice;
  // The symbol of the hipDeviceProp_t these headers lay out (HIP 6 keeps
  // it beside hipGetDevicePropertiesR0600).
  decltype(&::hipGetDeviceProperties) getDeviceProperties;
  decltype(&::hipModuleLoadData) moduleLoadData;
  decltype(&::hipModuleUnload) moduleUnload;
  decltype(&::hipModuleGetFunction) moduleGetFunction;
  decltype(&::hipModuleLaunchKernel) moduleLaunchKernel;
  // hipMalloc is overloaded in C++ (a template for typed pointers).
  hipError_t (*memAlloc)(void **, size_t);
  decltype(&::hipFree) memFree;
  decltype(&::hipMemcpyHtoD) memcpyHtoD;
  decltype(&::hipMemcpyDtoH) memcpyDtoH;
  decltype(&::hipStreamSynchronize) streamSynchronize;
};

namespace {

/// "hipModuleLaunchKernel: hipErrorInvalidValue" for a failed call.
std::string describe(const HipRuntime::Api &api, hipError_t result,
                     const char *call) {
  const char *name = api.getErrorName(result);
  return std::string(call) + ": " +
         (name ? name : "HIP error " + std::to_string(result));
}

/// True when `result` is hipSuccess, else false with `error` describing the
/// failed `call`.
bool succeeded(const HipRuntime::Api &api, hipError_t result, const char *call,
               std::string &error) {
  if (result == hipSuccess)
    return true;
  error = describe(api, result, call);
  return false;
}

/// Resolves every entry point of `api` in `handle`; false with `error`
/// naming the first one missing.
bool resolve(void *handle, HipRuntime::Api &api, std::string &error) {
  bool ok = true;
  auto bind = [&](auto &pointer, const char *symbol) {
    if (!ok)
      return;
    pointer = reinterpret_cast<std::remove_reference_t<decltype(pointer)>>(
        dlsym(handle, symbol));
    if (!pointer) {
      error = std::string("the HIP runtime has no ") + symbol;
      ok = false;
    }
  };
  bind(api.getDeviceCount, "hipGetDeviceCount");
  bind(api.getErrorName, "hipGetErrorName");
  bind(api.getDevice, "hipGetDevice");
  bind(api.getDeviceProperties, "hipGetDeviceProperties");
  bind(api.moduleLoadData, "hipModuleLoadData");
  bind(api.moduleUnload, "hipModuleUnload");
  bind(api.moduleGetFunction, "hipModuleGetFunction");
  bind(api.moduleLaunchKernel, "hipModuleLaunchKernel");
  bind(api.memAlloc, "hipMalloc");
  bind(api.memFree, "hipFree");
  bind(api.memcpyHtoD, "hipMemcpyHtoD");
  bind(api.memcpyDtoH, "hipMemcpyDtoH");
  bind(api.streamSynchronize, "hipStreamSynchronize");
  return ok;
}

/// Launches through hipModuleLaunchKernel, parameters as the packed
/// `extra` buffer (the form every HIP version documents).
class HipDriver : public LaunchDriver {
public:
  HipDriver(const HipRuntime::Api &api, const std::vector<void *> &functions)
      : api(api), functions(functions) {}

  bool launch(size_t kernelIndex, const KernelInfo &kernel,
              const std::array<int64_t, 3> &grid, PackedParams &params,
              void *stream, std::string &error) override {
    size_t size = params.bytes().size();
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER,
                     const_cast<uint8_t *>(params.bytes().data()),
                     HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
    hipError_t result = api.moduleLaunchKernel(
        static_cast<hipFunction_t>(functions[kernelIndex]),
        static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
        static_cast<unsigned>(grid[2]),
        static_cast<unsigned>(kernel.blockSize[0]),
        static_cast<unsigned>(kernel.blockSize[1]),
        static_cast<unsigned>(kernel.blockSize[2]),
        static_cast<unsigned>(kernel.sharedBytes),
        static_cast<hipStream_t>(stream), nullptr, extra);
    if (succeeded(api, result, "hipModuleLaunchKernel", error))
      return true;
    error += " for '" + kernel.name + "'";
    return false;
  }

private:
  const HipRuntime::Api &api;
  const std::vector<void *> &functions;
};

} // namespace

//===----------------------------------------------------------------------===//
// HipRuntime
//===----------------------------------------------------------------------===//

HipRuntime::HipRuntime(void *handle, std::string path, std::unique_ptr<Api> api)
    : handle(handle), path(std::move(path)), entryPoints(std::move(api)) {}

HipRuntime::~HipRuntime() {
  if (handle)
    dlclose(handle);
}

std::unique_ptr<HipRuntime> HipRuntime::open(const std::string &path,
                                             std::string &error) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    error = "cannot load the HIP runtime " + path + ": " +
            (reason ? reason : "dlopen failed");
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  if (!resolve(handle, *api, error)) {
    error += " (" + path + ")";
    dlclose(handle);
    return nullptr;
  }
  return std::unique_ptr<HipRuntime>(
      new HipRuntime(handle, path, std::move(api)));
}

const HipRuntime *HipRuntime::get(std::string &error) {
  // Loaded once; the outcome (and its reason) is the process's. Never
  // unloaded: the HIP runtime tears itself down at exit, and a dlclose
  // during static destruction would race with that.
  static std::once_flag once;
  static HipRuntime *runtime = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    std::vector<std::string> candidates;
    if (const char *chosen = std::getenv("PA_HIP_LIBRARY"); chosen && *chosen)
      candidates = {chosen};
    else
      candidates = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
    std::string reasons;
    std::unique_ptr<HipRuntime> loaded;
    for (const std::string &candidate : candidates) {
      std::string reason;
      loaded = open(candidate, reason);
      if (loaded)
        break;
      reasons += (reasons.empty() ? "" : "; ") + reason;
    }
    if (!loaded) {
      failure = "no HIP runtime: " + reasons;
      return;
    }
    std::string reason;
    if (loaded->deviceCount(reason) < 1) {
      failure = "the HIP runtime " + loaded->libraryPath() +
                " sees no GPU (" + (reason.empty() ? "0 devices" : reason) +
                ")";
      // Initialized: stays loaded too (its threads and exit handlers).
      loaded.release();
      return;
    }
    runtime = loaded.release();
  });
  if (!runtime)
    error = failure;
  return runtime;
}

int HipRuntime::deviceCount(std::string &error) const {
  int count = 0;
  if (!succeeded(*entryPoints, entryPoints->getDeviceCount(&count),
                 "hipGetDeviceCount", error))
    return 0;
  return count;
}

bool HipRuntime::deviceChip(std::string &chip, std::string &error) const {
  int device = 0;
  hipDeviceProp_t properties{};
  if (!succeeded(*entryPoints, entryPoints->getDevice(&device), "hipGetDevice",
                 error) ||
      !succeeded(*entryPoints,
                 entryPoints->getDeviceProperties(&properties, device),
                 "hipGetDeviceProperties", error))
    return false;
  std::string name(properties.gcnArchName,
                   strnlen(properties.gcnArchName,
                           sizeof properties.gcnArchName));
  chip = name.substr(0, name.find(':'));
  if (chip.empty()) {
    error = "the HIP runtime names no chip (gcnArchName) for device " +
            std::to_string(device);
    return false;
  }
  return true;
}

bool HipRuntime::allocate(size_t bytes, uint64_t &address,
                          std::string &error) const {
  void *pointer = nullptr;
  // hipMalloc of 0 bytes returns null; one byte keeps every address valid.
  if (!succeeded(*entryPoints,
                 entryPoints->memAlloc(&pointer, bytes ? bytes : 1),
                 "hipMalloc", error)) {
    error += " of " + std::to_string(bytes) + " bytes";
    return false;
  }
  address = reinterpret_cast<uint64_t>(pointer);
  return true;
}

bool HipRuntime::release(uint64_t address, std::string &error) const {
  return succeeded(*entryPoints,
                   entryPoints->memFree(reinterpret_cast<void *>(address)),
                   "hipFree", error);
}

// Copies of 0 bytes are not made (the pointers may be null).
bool HipRuntime::copyToDevice(uint64_t destination, const void *source,
                              size_t bytes, std::string &error) const {
  return bytes == 0 ||
         succeeded(*entryPoints,
                   entryPoints->memcpyHtoD(
                       reinterpret_cast<hipDeviceptr_t>(destination),
                       const_cast<void *>(source), bytes),
                   "hipMemcpyHtoD", error);
}

bool HipRuntime::copyToHost(void *destination, uint64_t source, size_t bytes,
                            std::string &error) const {
  return bytes == 0 ||
         succeeded(
             *entryPoints,
             entryPoints->memcpyDtoH(
                 destination, reinterpret_cast<hipDeviceptr_t>(source), bytes),
             "hipMemcpyDtoH", error);
}

bool HipRuntime::synchronize(void *stream, std::string &error) const {
  return succeeded(
      *entryPoints,
      entryPoints->streamSynchronize(static_cast<hipStream_t>(stream)),
      "hipStreamSynchronize", error);
}

//===----------------------------------------------------------------------===//
// HipProgram
//===----------------------------------------------------------------------===//

std::unique_ptr<HipProgram> HipProgram::load(const HipRuntime &runtime,
                                             const std::string &codeObject,
                                             const std::string &metadataJson,
                                             std::string &error) {
  ModuleManifest manifest;
  if (!parseAMDManifest(metadataJson, manifest, error) ||
      !checkDecodeSequence(manifest, error))
    return nullptr;
  std::unique_ptr<HipProgram> program(
      new HipProgram(runtime, std::move(manifest)));
  const HipRuntime::Api &api = runtime.api();
  hipModule_t module = nullptr;
  if (!succeeded(api, api.moduleLoadData(&module, codeObject.data()),
                 "hipModuleLoadData", error)) {
    error += " (a code object for " + program->moduleManifest.target + ")";
    return nullptr;
  }
  program->module = module;
  auto getFunction = [&](const std::string &symbol, void *&function) {
    hipFunction_t found = nullptr;
    hipError_t r = api.moduleGetFunction(&found, module, symbol.c_str());
    function = found;
    return r == hipSuccess ? std::string()
                           : describe(api, r, "hipModuleGetFunction");
  };
  if (!lookUpKernelFunctions(program->moduleManifest, getFunction,
                             program->functions, error))
    return nullptr;
  return program;
}

HipProgram::~HipProgram() {
  if (module)
    (void)hip.api().moduleUnload(static_cast<hipModule_t>(module));
}

bool HipProgram::enqueue(void *stream, const OperandViews &views,
                         std::string &error, KernelMask kernels,
                         LaunchSet *reuse) const {
  HipDriver driver(hip.api(), functions);
  if (!reuse)
    return enqueueKernels(moduleManifest, views, driver, stream, error,
                          kernels);
  return enqueueKernels(moduleManifest, views, driver, stream, error, kernels,
                        *reuse);
}

} // namespace pa::runtime
