//===- FakeHip.cpp - a HIP runtime that records instead of running --------===//
//
// libpa-fake-hip.so: the entry points the HIP launcher opens in libamdhip64,
// with the prototypes of Debian's HIP headers. Modules, functions and
// launches are recorded (the launch parameters copied out of the `extra`
// buffer), memory is host memory and copies are memcpy, so the launcher's
// whole path - dlopen, load, lookup, packing, grids, launch order, stream -
// runs and is checked on machines without ROCm. The fakeHip* functions let
// tests read the record (C linkage, for ctypes as well). Kernels do not run.
//
// FAKE_HIP_DEVICES (default 1) sets the device count hipGetDeviceCount
// reports, FAKE_HIP_ARCH (default "gfx950:sramecc+:xnack-") the
// gcnArchName of hipGetDeviceProperties.
//
//===----------------------------------------------------------------------===//
#define __HIP_PLATFORM_AMD__
#include <hip/hip_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Launch {
  std::string function;
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedBytes;
  void *stream;
  std::vector<unsigned char> params;
};

struct Record {
  std::mutex mutex;
  std::vector<Launch> launches;
  std::vector<std::string> functions; // looked up, in order
  int loads = 0, unloads = 0, copies = 0, synchronizations = 0;
  int allocations = 0, frees = 0;
};

Record &record() {
  static Record instance;
  return instance;
}

constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};

} // namespace

extern "C" {

hipError_t hipGetDeviceCount(int *count) {
  const char *devices = std::getenv("FAKE_HIP_DEVICES");
  *count = devices ? std::atoi(devices) : 1;
  return *count > 0 ? hipSuccess : hipErrorNoDevice;
}

hipError_t hipGetDevice(int *device) {
  *device = 0;
  return hipSuccess;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *properties, int device) {
  if (device != 0)
    return hipErrorInvalidValue;
  *properties = hipDeviceProp_t{};
  const char *arch = std::getenv("FAKE_HIP_ARCH");
  std::snprintf(properties->gcnArchName, sizeof properties->gcnArchName, "%s",
                arch ? arch : "gfx950:sramecc+:xnack-");
  std::snprintf(properties->name, sizeof properties->name, "fake HIP GPU");
  return hipSuccess;
}

const char *hipGetErrorName(hipError_t error) {
  switch (error) {
  case hipSuccess:
    return "hipSuccess";
  case hipErrorNoDevice:
    return "hipErrorNoDevice";
  case hipErrorInvalidImage:
    return "hipErrorInvalidImage";
  case hipErrorNotFound:
    return "hipErrorNotFound";
  case hipErrorInvalidValue:
    return "hipErrorInvalidValue";
  default:
    return "hipErrorUnknown";
  }
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  if (std::memcmp(image, kElfMagic, sizeof kElfMagic) != 0)
    return hipErrorInvalidImage;
  std::lock_guard<std::mutex> lock(record().mutex);
  ++record().loads;
  // Any non-null handle; the fake keeps no per-module state.
  *module = reinterpret_cast<hipModule_t>(&record());
  return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t) {
  std::lock_guard<std::mutex> lock(record().mutex);
  ++record().unloads;
  return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t,
                                const char *name) {
  std::lock_guard<std::mutex> lock(record().mutex);
  if (std::strlen(name) == 0)
    return hipErrorNotFound;
  record().functions.push_back(name);
  // The handle is the (1-based) lookup number.
  *function = reinterpret_cast<hipFunction_t>(record().functions.size());
  return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t function, unsigned gridX,
                                 unsigned gridY, unsigned gridZ,
                                 unsigned blockX, unsigned blockY,
                                 unsigned blockZ, unsigned sharedBytes,
                                 hipStream_t stream, void **kernelParams,
                                 void **extra) {
  // The launcher passes its parameters as one packed buffer.
  if (kernelParams || !extra || extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER ||
      extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE ||
      extra[4] != HIP_LAUNCH_PARAM_END)
    return hipErrorInvalidValue;
  std::lock_guard<std::mutex> lock(record().mutex);
  size_t index = reinterpret_cast<size_t>(function);
  if (index == 0 || index > record().functions.size())
    return hipErrorInvalidValue;
  const auto *bytes = static_cast<const unsigned char *>(extra[1]);
  size_t size = *static_cast<size_t *>(extra[3]);
  Launch launch{record().functions[index - 1],
                {gridX, gridY, gridZ},
                {blockX, blockY, blockZ},
                sharedBytes,
                stream,
                std::vector<unsigned char>(bytes, bytes + size)};
  record().launches.push_back(std::move(launch));
  return hipSuccess;
}

hipError_t hipMalloc(void **pointer, size_t size) {
  *pointer = std::malloc(size);
  if (!*pointer)
    return hipErrorOutOfMemory;
  std::lock_guard<std::mutex> lock(record().mutex);
  ++record().allocations;
  return hipSuccess;
}

hipError_t hipFree(void *pointer) {
  std::free(pointer);
  std::lock_guard<std::mutex> lock(record().mutex);
  ++record().frees;
  return hipSuccess;
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t destination, void *source,
                         size_t bytes) {
  std::memcpy(destination, source, bytes);
  std::lock_guard<std::mutex> lock(record().mutex);
  ++record().copies;
  return hipSuccess;
}

hipError_t hipMemcpyDtoH(void *destination, hipDeviceptr_t source,
                         size_t bytes) {
  std::memcpy(destination, source, bytes);
  std::lock_guard<std::mutex> lock(record().mutex);
  ++record().copies;
  return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t) {
  std::lock_guard<std::mutex> lock(record().mutex);
  ++record().synchronizations;
  return hipSuccess;
}

//===----------------------------------------------------------------------===//
// The record, for tests
//===----------------------------------------------------------------------===//

/// Forgets the launches and counts (functions looked up stay valid).
__attribute__((visibility("default"))) void fakeHipReset(void) {
  std::lock_guard<std::mutex> lock(record().mutex);
  record().launches.clear();
  record().loads = record().unloads = record().copies =
      record().synchronizations = record().allocations = record().frees = 0;
}

__attribute__((visibility("default"))) int fakeHipLaunchCount(void) {
  std::lock_guard<std::mutex> lock(record().mutex);
  return static_cast<int>(record().launches.size());
}

/// Launch `index`: its function name (null past the end), grid, block,
/// stream and packed parameters (valid until the next reset).
__attribute__((visibility("default"))) const char *
fakeHipLaunch(int index, unsigned grid[3], unsigned block[3], void **stream,
              const unsigned char **params, size_t *paramBytes) {
  std::lock_guard<std::mutex> lock(record().mutex);
  if (index < 0 || static_cast<size_t>(index) >= record().launches.size())
    return nullptr;
  const Launch &launch = record().launches[index];
  for (int i = 0; i < 3; ++i) {
    grid[i] = launch.grid[i];
    block[i] = launch.block[i];
  }
  *stream = launch.stream;
  *params = launch.params.data();
  *paramBytes = launch.params.size();
  return launch.function.c_str();
}

/// Module loads, unloads, memory copies and synchronizations so far.
__attribute__((visibility("default"))) void
fakeHipCounters(int *loads, int *unloads, int *copies, int *synchronizations) {
  std::lock_guard<std::mutex> lock(record().mutex);
  *loads = record().loads;
  *unloads = record().unloads;
  *copies = record().copies;
  *synchronizations = record().synchronizations;
}

/// Device allocations and frees so far (hipMalloc, hipFree).
__attribute__((visibility("default"))) void
fakeHipMemoryCounters(int *allocations, int *frees) {
  std::lock_guard<std::mutex> lock(record().mutex);
  *allocations = record().allocations;
  *frees = record().frees;
}

} // extern "C"
