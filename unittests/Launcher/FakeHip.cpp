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
// Stream capture behaves as HIP's (global mode, whatever mode is asked):
// while a stream captures, kernel launches on it go into the graph being
// captured instead of the launch list; a synchronization, allocation, free,
// host<->device copy or module load/unload (on any stream), or a launch on
// the legacy default stream, fails with hipErrorStreamCaptureUnsupported
// (hipErrorStreamCaptureImplicit for the launch) and invalidates every
// capture in progress, whose hipStreamEndCapture then fails with
// hipErrorStreamCaptureInvalidated. hipGraphLaunch appends the graph's
// launches, with the parameters captured, to the launch list on the stream
// it is given.
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
#include <map>
#include <memory>
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

/// A capture in progress on one stream (hipStreamBeginCapture to
/// hipStreamEndCapture), and a captured graph or its instance.
struct Capture {
  std::vector<Launch> launches;
  bool invalidated = false;
};
struct Graph {
  std::vector<Launch> launches;
};

struct Record {
  std::mutex mutex;
  std::vector<Launch> launches;
  std::vector<std::string> functions; // looked up, in order
  int loads = 0, unloads = 0, copies = 0, synchronizations = 0;
  int allocations = 0, frees = 0;
  std::map<void *, Capture> captures; // by stream
  // Graphs (hipGraph_t) and their instances (hipGraphExec_t): the handle
  // is the Graph's address.
  std::map<void *, std::unique_ptr<Graph>> graphs, instances;
  int captureRefusals = 0; // calls failed by the capture rules
  int graphLaunches = 0;
};

Record &record() {
  static Record instance;
  return instance;
}

constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};

/// The capture rule for a call a capturing stream does not allow (a
/// synchronization, allocation, copy or module load, on any stream): with a
/// capture in progress, every capture is invalidated and the call fails with
/// `refusal`; else hipSuccess. Called with the record locked.
hipError_t refuseWhileCapturing(Record &locked,
                                hipError_t refusal =
                                    hipErrorStreamCaptureUnsupported) {
  if (locked.captures.empty())
    return hipSuccess;
  for (auto &[stream, capture] : locked.captures)
    capture.invalidated = true;
  ++locked.captureRefusals;
  return refusal;
}

/// A new handle for `launches`, kept in `into`.
void *keep(std::map<void *, std::unique_ptr<Graph>> &into,
           std::vector<Launch> launches) {
  auto graph = std::make_unique<Graph>(Graph{std::move(launches)});
  void *handle = graph.get();
  into[handle] = std::move(graph);
  return handle;
}

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
  case hipErrorOutOfMemory:
    return "hipErrorOutOfMemory";
  case hipErrorIllegalState:
    return "hipErrorIllegalState";
  case hipErrorStreamCaptureUnsupported:
    return "hipErrorStreamCaptureUnsupported";
  case hipErrorStreamCaptureInvalidated:
    return "hipErrorStreamCaptureInvalidated";
  case hipErrorStreamCaptureImplicit:
    return "hipErrorStreamCaptureImplicit";
  default:
    return "hipErrorUnknown";
  }
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  if (std::memcmp(image, kElfMagic, sizeof kElfMagic) != 0)
    return hipErrorInvalidImage;
  std::lock_guard<std::mutex> lock(record().mutex);
  if (hipError_t refused = refuseWhileCapturing(record()))
    return refused;
  ++record().loads;
  // Any non-null handle; the fake keeps no per-module state.
  *module = reinterpret_cast<hipModule_t>(&record());
  return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t) {
  std::lock_guard<std::mutex> lock(record().mutex);
  if (hipError_t refused = refuseWhileCapturing(record()))
    return refused;
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
  auto capture = record().captures.find(stream);
  if (capture != record().captures.end()) {
    if (capture->second.invalidated)
      return hipErrorStreamCaptureInvalidated;
    capture->second.launches.push_back(std::move(launch));
    return hipSuccess;
  }
  // The legacy default stream waits for every stream, a capturing one too.
  if (!stream)
    if (hipError_t refused = refuseWhileCapturing(
            record(), hipErrorStreamCaptureImplicit))
      return refused;
  record().launches.push_back(std::move(launch));
  return hipSuccess;
}

hipError_t hipMalloc(void **pointer, size_t size) {
  std::lock_guard<std::mutex> lock(record().mutex);
  if (hipError_t refused = refuseWhileCapturing(record()))
    return refused;
  *pointer = std::malloc(size);
  if (!*pointer)
    return hipErrorOutOfMemory;
  ++record().allocations;
  return hipSuccess;
}

hipError_t hipFree(void *pointer) {
  std::lock_guard<std::mutex> lock(record().mutex);
  if (hipError_t refused = refuseWhileCapturing(record()))
    return refused;
  std::free(pointer);
  ++record().frees;
  return hipSuccess;
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t destination, void *source,
                         size_t bytes) {
  std::lock_guard<std::mutex> lock(record().mutex);
  if (hipError_t refused = refuseWhileCapturing(record()))
    return refused;
  std::memcpy(destination, source, bytes);
  ++record().copies;
  return hipSuccess;
}

hipError_t hipMemcpyDtoH(void *destination, hipDeviceptr_t source,
                         size_t bytes) {
  std::lock_guard<std::mutex> lock(record().mutex);
  if (hipError_t refused = refuseWhileCapturing(record()))
    return refused;
  std::memcpy(destination, source, bytes);
  ++record().copies;
  return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t) {
  std::lock_guard<std::mutex> lock(record().mutex);
  if (hipError_t refused = refuseWhileCapturing(record()))
    return refused;
  ++record().synchronizations;
  return hipSuccess;
}

//===----------------------------------------------------------------------===//
// Stream capture and graphs
//===----------------------------------------------------------------------===//

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode) {
  std::lock_guard<std::mutex> lock(record().mutex);
  // The legacy default stream cannot capture.
  if (!stream)
    return hipErrorStreamCaptureUnsupported;
  if (record().captures.count(stream))
    return hipErrorIllegalState;
  record().captures[stream] = Capture{};
  return hipSuccess;
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *graph) {
  std::lock_guard<std::mutex> lock(record().mutex);
  auto capture = record().captures.find(stream);
  if (capture == record().captures.end())
    return hipErrorIllegalState;
  Capture ended = std::move(capture->second);
  record().captures.erase(capture);
  if (ended.invalidated) {
    *graph = nullptr;
    return hipErrorStreamCaptureInvalidated;
  }
  *graph = static_cast<hipGraph_t>(
      keep(record().graphs, std::move(ended.launches)));
  return hipSuccess;
}

hipError_t hipStreamIsCapturing(hipStream_t stream,
                                hipStreamCaptureStatus *status) {
  std::lock_guard<std::mutex> lock(record().mutex);
  auto capture = record().captures.find(stream);
  if (capture == record().captures.end()) {
    // Asking the legacy default stream during a capture is itself illegal.
    if (!stream && !record().captures.empty())
      return hipErrorStreamCaptureImplicit;
    *status = hipStreamCaptureStatusNone;
  } else {
    *status = capture->second.invalidated ? hipStreamCaptureStatusInvalidated
                                          : hipStreamCaptureStatusActive;
  }
  return hipSuccess;
}

hipError_t hipGraphInstantiate(hipGraphExec_t *instance, hipGraph_t graph,
                               hipGraphNode_t *, char *, size_t) {
  std::lock_guard<std::mutex> lock(record().mutex);
  auto found = record().graphs.find(graph);
  if (found == record().graphs.end())
    return hipErrorInvalidValue;
  *instance = static_cast<hipGraphExec_t>(
      keep(record().instances, found->second->launches));
  return hipSuccess;
}

hipError_t hipGraphLaunch(hipGraphExec_t instance, hipStream_t stream) {
  std::lock_guard<std::mutex> lock(record().mutex);
  auto found = record().instances.find(instance);
  if (found == record().instances.end())
    return hipErrorInvalidValue;
  // Replays into a capture are not modelled.
  if (record().captures.count(stream))
    return hipErrorStreamCaptureUnsupported;
  if (!stream)
    if (hipError_t refused = refuseWhileCapturing(
            record(), hipErrorStreamCaptureImplicit))
      return refused;
  for (Launch launch : found->second->launches) {
    launch.stream = stream;
    record().launches.push_back(std::move(launch));
  }
  ++record().graphLaunches;
  return hipSuccess;
}

hipError_t hipGraphExecDestroy(hipGraphExec_t instance) {
  std::lock_guard<std::mutex> lock(record().mutex);
  return record().instances.erase(instance) ? hipSuccess
                                            : hipErrorInvalidValue;
}

hipError_t hipGraphDestroy(hipGraph_t graph) {
  std::lock_guard<std::mutex> lock(record().mutex);
  return record().graphs.erase(graph) ? hipSuccess : hipErrorInvalidValue;
}

//===----------------------------------------------------------------------===//
// The record, for tests
//===----------------------------------------------------------------------===//

/// Forgets the launches, counts and captures in progress (functions looked
/// up, graphs and their instances stay valid).
__attribute__((visibility("default"))) void fakeHipReset(void) {
  std::lock_guard<std::mutex> lock(record().mutex);
  record().launches.clear();
  record().captures.clear();
  record().loads = record().unloads = record().copies =
      record().synchronizations = record().allocations = record().frees =
          record().captureRefusals = record().graphLaunches = 0;
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

/// Calls the capture rules failed, graph launches, and the launches of the
/// capture in progress on `stream` (-1 when none).
__attribute__((visibility("default"))) void
fakeHipCaptureCounters(void *stream, int *refusals, int *graphLaunches,
                       int *capturing) {
  std::lock_guard<std::mutex> lock(record().mutex);
  *refusals = record().captureRefusals;
  *graphLaunches = record().graphLaunches;
  auto capture = record().captures.find(stream);
  *capturing = capture == record().captures.end()
                   ? -1
                   : static_cast<int>(capture->second.launches.size());
}

} // extern "C"
