//===- FakeCuda.cpp - a CUDA driver that records instead of running -------===//
//
// libpa-fake-cuda.so: every entry point pa::runtime::cuda::loadDriver binds
// in libcuda.so.1, with the driver's ABI, for tests on machines without a
// GPU (PA_CUDA_LIBRARY=.../libpa-fake-cuda.so). Device memory is host
// memory (malloc) with the driver's checks - copies must stay inside a live
// allocation, frees must name one - so leaks and stray copies show.
// cuModuleLoadDataEx accepts PTX text only and reads each `.entry`'s
// parameter list, so cuLaunchKernel (and cuLaunchKernelEx, which records
// whether the launch was programmatic) copies the parameters out of
// kernelParams (or the packed `extra` buffer) as the real driver does;
// launches are recorded (and handed to an optional hook), kernels do not
// run. The fakeCuda* functions (C linkage, for ctypes as well) read the
// record and inject failures.
//
// FAKE_CUDA_DEVICES (default 1) is the device count; 0 makes cuInit fail
// with CUDA_ERROR_NO_DEVICE, as a driver without a GPU does.
//
//===----------------------------------------------------------------------===//
#include "pa/Runtime/CudaDriver.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace pa::runtime::cuda;

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr CUresult kInvalidValue = 1, kOutOfMemory = 2, kNoDevice = 100,
                   kInvalidImage = 200, kInvalidContext = 201,
                   kInvalidHandle = 400, kNotFound = 500;

struct Function {
  std::string name;
  std::vector<size_t> paramSizes;
};

struct Module {
  std::vector<std::unique_ptr<Function>> functions;
};

struct Launch {
  std::string function;
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedBytes;
  void *stream;
  std::vector<unsigned char> params;
  bool programmatic = false; // cuLaunchKernelEx with programmatic stream
                             // serialization allowed
};

using LaunchHook = void (*)(const char *name, const unsigned char *params,
                            size_t bytes, void *user);

enum Counter {
  Loads, Unloads, Allocations, Frees, Live, CopiesToDevice, CopiesToHost,
  Synchronizations, NumCounters
};

struct Failure {
  int successes; // calls that still succeed before the failing one
  CUresult code;
};

struct State {
  std::recursive_mutex mutex;
  std::vector<Launch> launches;
  std::map<uintptr_t, size_t> allocations; // live: address -> bytes
  int counters[NumCounters] = {};
  std::map<std::string, Failure> failures;
  LaunchHook hook = nullptr;
  void *hookUser = nullptr;
};

State &state() {
  static State instance;
  return instance;
}

using Lock = std::lock_guard<std::recursive_mutex>;

/// A failure injected for `call`, or CUDA_SUCCESS.
CUresult injected(const char *call) {
  Lock lock(state().mutex);
  auto it = state().failures.find(call);
  if (it == state().failures.end())
    return CUDA_SUCCESS;
  if (it->second.successes-- > 0)
    return CUDA_SUCCESS;
  CUresult code = it->second.code;
  state().failures.erase(it);
  return code;
}

#define FAIL_IF_INJECTED(call)                                                 \
  if (CUresult injected_ = injected(call); injected_ != CUDA_SUCCESS)          \
  return injected_

int devices() {
  const char *count = std::getenv("FAKE_CUDA_DEVICES");
  return count ? std::atoi(count) : 1;
}

/// True when [address, address + bytes) lies in one live allocation.
bool inAllocation(uintptr_t address, size_t bytes) {
  auto &live = state().allocations;
  auto it = live.upper_bound(address);
  if (it == live.begin())
    return false;
  --it;
  return address >= it->first && address + bytes <= it->first + it->second;
}

/// Bytes of a PTX parameter type (".u64", ".b32", ...); 0 if unknown.
size_t typeBytes(const std::string &type) {
  if (type.size() < 3 || type[0] != '.')
    return 0;
  char kind = type[1];
  if (kind != 'u' && kind != 's' && kind != 'b' && kind != 'f')
    return 0;
  int bits = std::atoi(type.c_str() + 2);
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
}

/// The `.entry` kernels of PTX `text` and their parameter sizes: each
/// parameter is `.param TYPE [.ptr ...] NAME` or `.param ... .b8 NAME[N]`.
bool parseEntries(const std::string &text, Module &module, std::string &log) {
  size_t at = 0;
  while ((at = text.find(".entry ", at)) != std::string::npos) {
    at += 7;
    size_t open = text.find('(', at), close = text.find(')', at);
    if (open == std::string::npos || close == std::string::npos ||
        close < open) {
      log = "fake: malformed .entry";
      return false;
    }
    auto function = std::make_unique<Function>();
    std::string name = text.substr(at, open - at);
    while (!name.empty() &&
           std::isspace(static_cast<unsigned char>(name.back())))
      name.pop_back();
    function->name = name;
    std::string list = text.substr(open + 1, close - open - 1);
    size_t start = 0;
    while (start < list.size()) {
      size_t comma = list.find(',', start);
      std::string param = list.substr(start, comma == std::string::npos
                                                 ? std::string::npos
                                                 : comma - start);
      start = comma == std::string::npos ? list.size() : comma + 1;
      size_t p = param.find(".param");
      if (p == std::string::npos)
        continue;
      size_t typeStart = param.find('.', p + 6);
      size_t typeEnd = param.find_first_of(" \t\n", typeStart);
      size_t bytes = typeBytes(param.substr(typeStart, typeEnd - typeStart));
      if (size_t bracket = param.find('['); bracket != std::string::npos)
        bytes *= std::strtoull(param.c_str() + bracket + 1, nullptr, 10);
      if (bytes == 0) {
        log = "fake: cannot size parameter '" + param + "' of " + name;
        return false;
      }
      function->paramSizes.push_back(bytes);
    }
    module.functions.push_back(std::move(function));
    at = close;
  }
  if (module.functions.empty()) {
    log = "fake: no .entry in the PTX";
    return false;
  }
  return true;
}

thread_local CUcontext currentContext = nullptr;
int primaryContextToken, streamTokens, graphToken, eventToken;

} // namespace

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuInit(unsigned) {
  FAIL_IF_INJECTED("cuInit");
  return devices() > 0 ? CUDA_SUCCESS : kNoDevice;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case CUDA_SUCCESS: *text = "no error"; break;
  case kInvalidValue: *text = "invalid argument"; break;
  case kOutOfMemory: *text = "out of memory"; break;
  case kNoDevice: *text = "no CUDA-capable device is detected"; break;
  case kInvalidImage: *text = "device kernel image is invalid"; break;
  case kInvalidContext: *text = "invalid device context"; break;
  case kInvalidHandle: *text = "invalid resource handle"; break;
  case kNotFound: *text = "named symbol not found"; break;
  default: *text = nullptr; return kInvalidValue;
  }
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  FAIL_IF_INJECTED("cuDeviceGetCount");
  *count = devices();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= devices())
    return kInvalidValue;
  *device = ordinal;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute,
                                          CUdevice) {
  *value = attribute == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? 132 : 0;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "pa-mlir fake CUDA device", size_t(length));
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&primaryContextToken);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) {
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  currentContext = context;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = currentContext;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSynchronize() {
  Lock lock(state().mutex);
  ++state().counters[Synchronizations];
  return currentContext ? CUDA_SUCCESS : kInvalidContext;
}

FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                        unsigned count, int *options,
                                        void **values) {
  if (!currentContext)
    return kInvalidContext;
  FAIL_IF_INJECTED("cuModuleLoadDataEx");
  std::string text(static_cast<const char *>(image));
  auto loaded = std::make_unique<Module>();
  std::string log;
  if (text.find(".version") == std::string::npos)
    log = "fake: the image is not PTX text";
  else
    parseEntries(text, *loaded, log);
  if (!log.empty()) {
    // The JIT error log, as the real driver writes it.
    char *buffer = nullptr;
    size_t size = 0;
    for (unsigned i = 0; i < count; ++i) {
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        buffer = static_cast<char *>(values[i]);
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        size = reinterpret_cast<uintptr_t>(values[i]);
    }
    if (buffer && size) {
      std::strncpy(buffer, log.c_str(), size - 1);
      buffer[size - 1] = '\0';
    }
    return kInvalidImage;
  }
  Lock lock(state().mutex);
  ++state().counters[Loads];
  *module = reinterpret_cast<CUmodule>(loaded.release());
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleUnload(CUmodule module) {
  if (!currentContext)
    return kInvalidContext;
  delete reinterpret_cast<Module *>(module);
  Lock lock(state().mutex);
  ++state().counters[Unloads];
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *function,
                                         CUmodule module, const char *name) {
  for (auto &candidate : reinterpret_cast<Module *>(module)->functions)
    if (candidate->name == name) {
      *function = reinterpret_cast<CUfunction>(candidate.get());
      return CUDA_SUCCESS;
    }
  return kNotFound;
}

FAKE_EXPORT CUresult cuFuncSetAttribute(CUfunction, int, int) {
  return CUDA_SUCCESS;
}

namespace {
/// Both launch entry points. A failure injected into "cuLaunchKernel"
/// fails either of them (a launch fails, whichever way it was asked for).
CUresult launchKernel(CUfunction f, unsigned gridX, unsigned gridY,
                      unsigned gridZ, unsigned blockX, unsigned blockY,
                      unsigned blockZ, unsigned sharedBytes, CUstream stream,
                      void **kernelParams, void **extra, bool programmatic) {
  if (!currentContext)
    return kInvalidContext;
  FAIL_IF_INJECTED("cuLaunchKernel");
  auto *function = reinterpret_cast<Function *>(f);
  // The parameters come one pointer each (kernelParams) or as one packed
  // buffer (extra: BUFFER_POINTER, p, BUFFER_SIZE, &size, END), each at
  // its natural alignment there, as the real driver reads them.
  const unsigned char *packed = nullptr;
  if (extra) {
    if (kernelParams || extra[0] != CU_LAUNCH_PARAM_BUFFER_POINTER ||
        extra[2] != CU_LAUNCH_PARAM_BUFFER_SIZE ||
        extra[4] != CU_LAUNCH_PARAM_END)
      return kInvalidValue;
    packed = static_cast<const unsigned char *>(extra[1]);
    size_t expected = 0;
    for (size_t size : function ? function->paramSizes
                                : std::vector<size_t>())
      expected = (expected + size - 1) / size * size + size;
    if (!packed || *static_cast<size_t *>(extra[3]) != expected)
      return kInvalidValue;
  }
  if (!function ||
      (!kernelParams && !packed && !function->paramSizes.empty()) ||
      !gridX || !gridY || !gridZ || !blockX || !blockY || !blockZ)
    return kInvalidValue;
  Launch launch{function->name, {gridX, gridY, gridZ},
                {blockX, blockY, blockZ}, sharedBytes, stream, {},
                programmatic};
  size_t offset = 0;
  for (size_t i = 0; i < function->paramSizes.size(); ++i) {
    size_t size = function->paramSizes[i];
    offset = (offset + size - 1) / size * size;
    const auto *bytes = packed ? packed + offset
                               : static_cast<const unsigned char *>(
                                     kernelParams[i]);
    launch.params.insert(launch.params.end(), bytes, bytes + size);
    offset += size;
  }
  LaunchHook hook;
  void *user;
  {
    Lock lock(state().mutex);
    state().launches.push_back(launch);
    hook = state().hook;
    user = state().hookUser;
  }
  if (hook)
    hook(launch.function.c_str(), launch.params.data(), launch.params.size(),
         user);
  return CUDA_SUCCESS;
}
} // namespace

FAKE_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gridX,
                                    unsigned gridY, unsigned gridZ,
                                    unsigned blockX, unsigned blockY,
                                    unsigned blockZ, unsigned sharedBytes,
                                    CUstream stream, void **kernelParams,
                                    void **extra) {
  return launchKernel(f, gridX, gridY, gridZ, blockX, blockY, blockZ,
                      sharedBytes, stream, kernelParams, extra, false);
}

#ifndef FAKE_CUDA_WITHOUT_LAUNCH_EX
/// Takes only the programmatic stream serialization attribute, as 0 or 1.
/// Left out of libpa-fake-cuda-without-launch-ex.so, as a driver older
/// than CUDA 12 lacks it.
FAKE_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config,
                                      CUfunction f, void **kernelParams,
                                      void **extra) {
  if (!config || (config->numAttrs && !config->attrs))
    return kInvalidValue;
  bool programmatic = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute &attribute = config->attrs[i];
    int allowed = attribute.value.programmaticStreamSerializationAllowed;
    if (attribute.id != CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION ||
        (allowed != 0 && allowed != 1))
      return kInvalidValue;
    programmatic = allowed == 1;
  }
  return launchKernel(f, config->gridDimX, config->gridDimY, config->gridDimZ,
                      config->blockDimX, config->blockDimY, config->blockDimZ,
                      config->sharedMemBytes, config->hStream, kernelParams,
                      extra, programmatic);
}
#endif

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  if (!currentContext)
    return kInvalidContext;
  FAIL_IF_INJECTED("cuMemAlloc_v2");
  if (bytes == 0)
    return kInvalidValue;
  void *memory = std::malloc(bytes);
  if (!memory)
    return kOutOfMemory;
  Lock lock(state().mutex);
  state().allocations[reinterpret_cast<uintptr_t>(memory)] = bytes;
  ++state().counters[Allocations];
  state().counters[Live] = int(state().allocations.size());
  *pointer = reinterpret_cast<CUdeviceptr>(memory);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr pointer) {
  FAIL_IF_INJECTED("cuMemFree_v2");
  Lock lock(state().mutex);
  auto it = state().allocations.find(uintptr_t(pointer));
  if (it == state().allocations.end())
    return kInvalidValue;
  std::free(reinterpret_cast<void *>(pointer));
  state().allocations.erase(it);
  ++state().counters[Frees];
  state().counters[Live] = int(state().allocations.size());
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr destination,
                                     const void *source, size_t bytes) {
  FAIL_IF_INJECTED("cuMemcpyHtoD_v2");
  Lock lock(state().mutex);
  if (!inAllocation(uintptr_t(destination), bytes))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  ++state().counters[CopiesToDevice];
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source,
                                     size_t bytes) {
  FAIL_IF_INJECTED("cuMemcpyDtoH_v2");
  Lock lock(state().mutex);
  if (!inAllocation(uintptr_t(source), bytes))
    return kInvalidValue;
  std::memcpy(destination, reinterpret_cast<const void *>(source), bytes);
  ++state().counters[CopiesToHost];
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination,
                                          const void *source, size_t bytes,
                                          CUstream) {
  return cuMemcpyHtoD_v2(destination, source, bytes);
}

FAKE_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr destination,
                                          CUdeviceptr source, size_t bytes,
                                          CUstream) {
  Lock lock(state().mutex);
  if (!inAllocation(uintptr_t(destination), bytes) ||
      !inAllocation(uintptr_t(source), bytes))
    return kInvalidValue;
  std::memmove(reinterpret_cast<void *>(destination),
               reinterpret_cast<const void *>(source), bytes);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemsetD8Async(CUdeviceptr destination,
                                     unsigned char value, size_t count,
                                     CUstream) {
  Lock lock(state().mutex);
  if (!inAllocation(uintptr_t(destination), count))
    return kInvalidValue;
  std::memset(reinterpret_cast<void *>(destination), value, count);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemsetD32Async(CUdeviceptr destination, unsigned value,
                                      size_t count, CUstream) {
  Lock lock(state().mutex);
  if (!inAllocation(uintptr_t(destination), count * 4))
    return kInvalidValue;
  auto *words = reinterpret_cast<unsigned *>(destination);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned) {
  *stream = reinterpret_cast<CUstream>(&streamTokens);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamDestroy_v2(CUstream) { return CUDA_SUCCESS; }

FAKE_EXPORT CUresult cuStreamSynchronize(CUstream) {
  if (!currentContext)
    return kInvalidContext;
  FAIL_IF_INJECTED("cuStreamSynchronize");
  Lock lock(state().mutex);
  ++state().counters[Synchronizations];
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamBeginCapture_v2(CUstream, int) {
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamEndCapture(CUstream, CUgraph *graph) {
  *graph = reinterpret_cast<CUgraph>(&graphToken);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph,
                                                 unsigned long long) {
  *exec = reinterpret_cast<CUgraphExec>(&graphToken);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGraphLaunch(CUgraphExec, CUstream) {
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGraphDestroy(CUgraph) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuGraphExecDestroy(CUgraphExec) { return CUDA_SUCCESS; }

FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned) {
  *event = reinterpret_cast<CUevent>(&eventToken);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuEventElapsedTime_v2(float *milliseconds, CUevent,
                                           CUevent) {
  *milliseconds = 0;
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// The record, for tests
//===----------------------------------------------------------------------===//

/// Forgets the launches, counters (not the live allocations), injected
/// failures and the hook.
FAKE_EXPORT void fakeCudaReset(void) {
  Lock lock(state().mutex);
  state().launches.clear();
  for (int &counter : state().counters)
    counter = 0;
  state().counters[Live] = int(state().allocations.size());
  state().failures.clear();
  state().hook = nullptr;
  state().hookUser = nullptr;
}

/// Whether launch `index` allowed programmatic stream serialization
/// (cuLaunchKernelEx); -1 past the end.
FAKE_EXPORT int fakeCudaLaunchProgrammatic(int index) {
  Lock lock(state().mutex);
  if (index < 0 || size_t(index) >= state().launches.size())
    return -1;
  return state().launches[size_t(index)].programmatic ? 1 : 0;
}

FAKE_EXPORT int fakeCudaLaunchCount(void) {
  Lock lock(state().mutex);
  return int(state().launches.size());
}

/// Launch `index`: its kernel's name (null past the end), grid, block,
/// dynamic shared bytes, stream and the parameters as the kernel received
/// them, packed (valid until the next reset).
FAKE_EXPORT const char *fakeCudaLaunch(int index, unsigned grid[3],
                                       unsigned block[3],
                                       unsigned *sharedBytes, void **stream,
                                       const unsigned char **params,
                                       size_t *paramBytes) {
  Lock lock(state().mutex);
  if (index < 0 || size_t(index) >= state().launches.size())
    return nullptr;
  const Launch &launch = state().launches[size_t(index)];
  for (int i = 0; i < 3; ++i) {
    grid[i] = launch.grid[i];
    block[i] = launch.block[i];
  }
  *sharedBytes = launch.sharedBytes;
  *stream = launch.stream;
  *params = launch.params.data();
  *paramBytes = launch.params.size();
  return launch.function.c_str();
}

/// The counters, in this order: module loads, unloads, allocations, frees,
/// live allocations, copies to the device, copies to the host,
/// synchronizations.
FAKE_EXPORT void fakeCudaCounters(int counters[8]) {
  Lock lock(state().mutex);
  for (int i = 0; i < NumCounters; ++i)
    counters[i] = state().counters[i];
}

/// The next call of entry point `call` (its symbol, e.g. "cuMemcpyHtoD_v2")
/// after `successes` more successful ones fails with `code`.
FAKE_EXPORT void fakeCudaFailAfter(const char *call, int successes,
                                   int code) {
  Lock lock(state().mutex);
  state().failures[call] = {successes, code};
}

/// Calls `hook` on every launch with the kernel name and its packed
/// parameters; device memory may be read and written through the addresses
/// in them (it is host memory). Null removes it.
FAKE_EXPORT void fakeCudaSetLaunchHook(LaunchHook hook, void *user) {
  Lock lock(state().mutex);
  state().hook = hook;
  state().hookUser = user;
}
