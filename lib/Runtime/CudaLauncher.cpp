//===- CudaLauncher.cpp - run compiled decode programs on a GPU -----------===//
#include "pa/Runtime/CudaLauncher.h"
#include "pa/Runtime/LauncherCore.h"

namespace pa::runtime {

using namespace cuda;

namespace {
/// True when `result` is CUDA_SUCCESS, else false with `error` describing
/// the failed `call`.
bool succeeded(const DriverApi &api, CUresult result, const char *call,
               std::string &error) {
  if (result == CUDA_SUCCESS)
    return true;
  error = describe(api, result, call);
  return false;
}
} // namespace

const DriverApi *makeContextCurrent(int device, std::string &error) {
  const DriverApi *api = loadDriver(error);
  if (!api)
    return nullptr;
  CUcontext current = nullptr;
  if (!succeeded(*api, api->cuCtxGetCurrent(&current), "cuCtxGetCurrent",
                 error))
    return nullptr;
  if (current)
    return api;
  int devices = deviceCount(*api, error);
  if (devices <= device) {
    error = "the CUDA driver " + driverLibraryName() +
            (devices ? " sees " + std::to_string(devices) +
                           " GPUs, not a GPU " + std::to_string(device)
                     : " sees no GPU") +
            (error.empty() ? std::string() : " (" + error + ")");
    return nullptr;
  }
  CUdevice handle = 0;
  CUcontext primary = nullptr;
  // The primary context is retained for the life of the process, like the
  // runtime API does.
  if (!succeeded(*api, api->cuDeviceGet(&handle, device), "cuDeviceGet",
                 error) ||
      !succeeded(*api, api->cuDevicePrimaryCtxRetain(&primary, handle),
                 "cuDevicePrimaryCtxRetain", error) ||
      !succeeded(*api, api->cuCtxSetCurrent(primary), "cuCtxSetCurrent", error))
    return nullptr;
  return api;
}

int deviceCount(const DriverApi &api, std::string &error) {
  int count = 0;
  if (!succeeded(api, api.cuDeviceGetCount(&count), "cuDeviceGetCount", error))
    return 0;
  return count;
}

//===----------------------------------------------------------------------===//
// CudaMemory
//===----------------------------------------------------------------------===//

bool CudaMemory::allocate(size_t bytes, uint64_t &address,
                          std::string &error) const {
  CUdeviceptr pointer = 0;
  // cuMemAlloc refuses 0 bytes; one byte keeps every address valid.
  if (!succeeded(api, api.cuMemAlloc(&pointer, bytes ? bytes : 1), "cuMemAlloc",
                 error)) {
    error += " of " + std::to_string(bytes) + " bytes";
    return false;
  }
  address = pointer;
  return true;
}

bool CudaMemory::release(uint64_t address, std::string &error) const {
  return succeeded(api, api.cuMemFree(address), "cuMemFree", error);
}

// Copies of 0 bytes are not made (the pointers may be null).
bool CudaMemory::copyToDevice(uint64_t destination, const void *source,
                              size_t bytes, std::string &error) const {
  return bytes == 0 ||
         succeeded(api, api.cuMemcpyHtoD(destination, source, bytes),
                   "cuMemcpyHtoD", error);
}

bool CudaMemory::copyToHost(void *destination, uint64_t source, size_t bytes,
                            std::string &error) const {
  return bytes == 0 ||
         succeeded(api, api.cuMemcpyDtoH(destination, source, bytes),
                   "cuMemcpyDtoH", error);
}

bool CudaMemory::synchronize(void *stream, std::string &error) const {
  return succeeded(api, api.cuStreamSynchronize(static_cast<CUstream>(stream)),
                   "cuStreamSynchronize", error);
}

//===----------------------------------------------------------------------===//
// CudaProgram
//===----------------------------------------------------------------------===//

std::unique_ptr<CudaProgram> CudaProgram::load(const DriverApi &api,
                                               const std::string &image,
                                               const std::string &metadataJson,
                                               std::string &error) {
  ModuleManifest manifest;
  if (!parseManifest(metadataJson, manifest, error))
    return nullptr;
  std::unique_ptr<CudaProgram> program(
      new CudaProgram(api, std::move(manifest)));

  // The driver JIT-compiles PTX; its log says why it refused a module.
  std::string log(8192, '\0');
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(log.size()))};
  // PTX must be NUL-terminated; a cubin is read by its ELF header.
  std::string terminated = image + '\0';
  if (!succeeded(api,
                 api.cuModuleLoadDataEx(&program->module, terminated.data(), 2,
                                        options, values),
                 "cuModuleLoadDataEx", error)) {
    log.resize(log.find('\0'));
    if (!log.empty())
      error += ": " + log;
    return nullptr;
  }
  auto getFunction = [&](const std::string &symbol, CUfunction &function) {
    CUresult r =
        api.cuModuleGetFunction(&function, program->module, symbol.c_str());
    return r == CUDA_SUCCESS ? std::string()
                             : describe(api, r, "cuModuleGetFunction");
  };
  if (!lookUpKernelFunctions(program->moduleManifest, getFunction,
                             program->functions, error))
    return nullptr;
  // Above 48 KiB a kernel must opt in to its dynamic shared memory.
  for (size_t i = 0; i < program->functions.size(); ++i) {
    const KernelInfo &kernel = program->moduleManifest.kernels[i];
    if (kernel.sharedBytes > 48 * 1024 &&
        !succeeded(api,
                   api.cuFuncSetAttribute(
                       program->functions[i],
                       CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                       static_cast<int>(kernel.sharedBytes)),
                   "cuFuncSetAttribute", error)) {
      error += " for '" + kernel.symbol + "' (" +
               std::to_string(kernel.sharedBytes) + " bytes of shared memory)";
      return nullptr;
    }
  }
  return program;
}

CudaProgram::~CudaProgram() {
  if (module)
    api.cuModuleUnload(module);
}

namespace {
/// cuLaunchKernel (cuLaunchKernelEx for a programmatic launch) with the
/// module's functions (LauncherCore's driver half).
class CudaLaunchDriver : public LaunchDriver {
public:
  CudaLaunchDriver(const DriverApi &api, const std::vector<CUfunction> &functions)
      : api(api), functions(functions) {}
  bool launch(size_t kernelIndex, const KernelInfo &kernel,
              const std::array<int64_t, 3> &grid, PackedParams &params,
              void *stream, std::string &error) override {
    // The packed buffer (extra) rather than ~150 parameter pointers
    // (kernelParams): the driver copies one block.
    size_t size = params.bytes().size();
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER,
                     const_cast<uint8_t *>(params.bytes().data()),
                     CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CUlaunchConfig config{};
    config.gridDimX = static_cast<unsigned>(grid[0]);
    config.gridDimY = static_cast<unsigned>(grid[1]);
    config.gridDimZ = static_cast<unsigned>(grid[2]);
    config.blockDimX = static_cast<unsigned>(kernel.blockSize[0]);
    config.blockDimY = static_cast<unsigned>(kernel.blockSize[1]);
    config.blockDimZ = static_cast<unsigned>(kernel.blockSize[2]);
    config.sharedMemBytes = static_cast<unsigned>(kernel.sharedBytes);
    config.hStream = static_cast<CUstream>(stream);
    // A kernel that waits for its predecessor (griddepcontrol.wait) may be
    // dispatched while that one still runs (docs/nvidia.md).
    CUlaunchAttribute programmatic{};
    programmatic.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    programmatic.value.programmaticStreamSerializationAllowed = 1;
    const char *call = "cuLaunchKernel";
    CUresult r;
    if (kernel.programmaticLaunch && api.cuLaunchKernelEx) {
      config.attrs = &programmatic;
      config.numAttrs = 1;
      call = "cuLaunchKernelEx";
      r = api.cuLaunchKernelEx(&config, functions[kernelIndex], nullptr,
                               extra);
    } else {
      r = api.cuLaunchKernel(functions[kernelIndex], config.gridDimX,
                             config.gridDimY, config.gridDimZ,
                             config.blockDimX, config.blockDimY,
                             config.blockDimZ, config.sharedMemBytes,
                             config.hStream, nullptr, extra);
    }
    if (succeeded(api, r, call, error))
      return true;
    error += " for '" + kernel.name + "'";
    return false;
  }

private:
  const DriverApi &api;
  const std::vector<CUfunction> &functions;
};
} // namespace

bool CudaProgram::enqueue(CUstream stream, const OperandViews &views,
                          std::string &error, KernelMask kernels,
                          LaunchSet *reuse) const {
  CudaLaunchDriver driver(api, functions);
  if (!reuse)
    return enqueueKernels(moduleManifest, views, driver, stream, error,
                          kernels);
  return enqueueKernels(moduleManifest, views, driver, stream, error, kernels,
                        *reuse);
}

std::unique_ptr<CudaGraph> CudaGraph::capture(
    const DriverApi &api, CUstream stream,
    const std::function<bool(CUstream, std::string &)> &enqueue,
    std::string &error) {
  std::unique_ptr<CudaGraph> graph(new CudaGraph(api));
  if (!succeeded(
          api,
          api.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
          "cuStreamBeginCapture", error))
    return nullptr;
  bool enqueued = enqueue(stream, error);
  // End the capture in every case, so the stream is usable again.
  CUresult ended = api.cuStreamEndCapture(stream, &graph->graph);
  if (!enqueued || !succeeded(api, ended, "cuStreamEndCapture", error) ||
      !succeeded(api,
                 api.cuGraphInstantiateWithFlags(&graph->exec, graph->graph, 0),
                 "cuGraphInstantiate", error))
    return nullptr;
  return graph;
}

CudaGraph::~CudaGraph() {
  if (exec)
    api.cuGraphExecDestroy(exec);
  if (graph)
    api.cuGraphDestroy(graph);
}

bool CudaGraph::launch(CUstream stream, std::string &error) const {
  return succeeded(api, api.cuGraphLaunch(exec, stream), "cuGraphLaunch",
                   error);
}

} // namespace pa::runtime
