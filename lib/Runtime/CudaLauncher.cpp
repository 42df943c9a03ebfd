//===- CudaLauncher.cpp - run compiled decode programs on a GPU -----------===//
#include "pa/Runtime/CudaLauncher.h"
#include "pa/Runtime/LauncherCore.h"

namespace pa::runtime {

using namespace cuda;

const DriverApi *makeContextCurrent(int device, std::string &error) {
  const DriverApi *api = loadDriver(error);
  if (!api)
    return nullptr;
  CUcontext current = nullptr;
  if (CUresult r = api->cuCtxGetCurrent(&current); r != CUDA_SUCCESS) {
    error = describe(*api, r, "cuCtxGetCurrent");
    return nullptr;
  }
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
  if (CUresult r = api->cuDeviceGet(&handle, device); r != CUDA_SUCCESS) {
    error = describe(*api, r, "cuDeviceGet");
    return nullptr;
  }
  // Retained for the life of the process, like the runtime API does.
  if (CUresult r = api->cuDevicePrimaryCtxRetain(&primary, handle);
      r != CUDA_SUCCESS) {
    error = describe(*api, r, "cuDevicePrimaryCtxRetain");
    return nullptr;
  }
  if (CUresult r = api->cuCtxSetCurrent(primary); r != CUDA_SUCCESS) {
    error = describe(*api, r, "cuCtxSetCurrent");
    return nullptr;
  }
  return api;
}

int deviceCount(const DriverApi &api, std::string &error) {
  int count = 0;
  if (CUresult r = api.cuDeviceGetCount(&count); r != CUDA_SUCCESS) {
    error = describe(api, r, "cuDeviceGetCount");
    return 0;
  }
  return count;
}

//===----------------------------------------------------------------------===//
// CudaMemory
//===----------------------------------------------------------------------===//

bool CudaMemory::allocate(size_t bytes, uint64_t &address,
                          std::string &error) const {
  CUdeviceptr pointer = 0;
  // cuMemAlloc refuses 0 bytes; one byte keeps every address valid.
  if (CUresult r = api.cuMemAlloc(&pointer, bytes ? bytes : 1);
      r != CUDA_SUCCESS) {
    error = describe(api, r, "cuMemAlloc") + " of " + std::to_string(bytes) +
            " bytes";
    return false;
  }
  address = pointer;
  return true;
}

bool CudaMemory::release(uint64_t address, std::string &error) const {
  if (CUresult r = api.cuMemFree(address); r != CUDA_SUCCESS) {
    error = describe(api, r, "cuMemFree");
    return false;
  }
  return true;
}

bool CudaMemory::copyToDevice(uint64_t destination, const void *source,
                              size_t bytes, std::string &error) const {
  if (bytes == 0)
    return true;
  if (CUresult r = api.cuMemcpyHtoD(destination, source, bytes);
      r != CUDA_SUCCESS) {
    error = describe(api, r, "cuMemcpyHtoD");
    return false;
  }
  return true;
}

bool CudaMemory::copyToHost(void *destination, uint64_t source, size_t bytes,
                            std::string &error) const {
  if (bytes == 0)
    return true;
  if (CUresult r = api.cuMemcpyDtoH(destination, source, bytes);
      r != CUDA_SUCCESS) {
    error = describe(api, r, "cuMemcpyDtoH");
    return false;
  }
  return true;
}

bool CudaMemory::synchronize(void *stream, std::string &error) const {
  if (CUresult r = api.cuStreamSynchronize(static_cast<CUstream>(stream));
      r != CUDA_SUCCESS) {
    error = describe(api, r, "cuStreamSynchronize");
    return false;
  }
  return true;
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
  if (CUresult r = api.cuModuleLoadDataEx(&program->module, terminated.data(),
                                          2, options, values);
      r != CUDA_SUCCESS) {
    error = describe(api, r, "cuModuleLoadDataEx");
    log.resize(log.find('\0'));
    if (!log.empty())
      error += ": " + log;
    return nullptr;
  }
  for (const KernelInfo &kernel : program->moduleManifest.kernels) {
    CUfunction function = nullptr;
    if (CUresult r = api.cuModuleGetFunction(&function, program->module,
                                             kernel.symbol.c_str());
        r != CUDA_SUCCESS) {
      error = describe(api, r, "cuModuleGetFunction") + " for '" +
              kernel.symbol + "'";
      return nullptr;
    }
    // Above 48 KiB a kernel must opt in to its dynamic shared memory.
    if (kernel.sharedBytes > 48 * 1024)
      if (CUresult r = api.cuFuncSetAttribute(
              function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(kernel.sharedBytes));
          r != CUDA_SUCCESS) {
        error = describe(api, r, "cuFuncSetAttribute") + " for '" +
                kernel.symbol + "' (" + std::to_string(kernel.sharedBytes) +
                " bytes of shared memory)";
        return nullptr;
      }
    program->functions.push_back(function);
  }
  return program;
}

CudaProgram::~CudaProgram() {
  if (module)
    api.cuModuleUnload(module);
}

namespace {
/// cuLaunchKernel with the module's functions (LauncherCore's driver half).
class CudaLaunchDriver : public LaunchDriver {
public:
  CudaLaunchDriver(const DriverApi &api, const std::vector<CUfunction> &functions)
      : api(api), functions(functions) {}
  bool launch(size_t kernelIndex, const KernelInfo &kernel,
              const std::array<int64_t, 3> &grid, PackedParams &params,
              void *stream, std::string &error) override {
    CUresult r = api.cuLaunchKernel(
        functions[kernelIndex], static_cast<unsigned>(grid[0]),
        static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
        static_cast<unsigned>(kernel.blockSize[0]),
        static_cast<unsigned>(kernel.blockSize[1]),
        static_cast<unsigned>(kernel.blockSize[2]),
        static_cast<unsigned>(kernel.sharedBytes), static_cast<CUstream>(stream),
        params.kernelParams(), nullptr);
    if (r == CUDA_SUCCESS)
      return true;
    error = describe(api, r, "cuLaunchKernel") + " for '" + kernel.name + "'";
    return false;
  }

private:
  const DriverApi &api;
  const std::vector<CUfunction> &functions;
};
} // namespace

bool CudaProgram::enqueue(CUstream stream, const OperandViews &views,
                          std::string &error) const {
  CudaLaunchDriver driver(api, functions);
  return enqueueKernels(moduleManifest, views, driver, stream, error);
}

std::unique_ptr<CudaGraph> CudaGraph::capture(
    const DriverApi &api, CUstream stream,
    const std::function<bool(CUstream, std::string &)> &enqueue,
    std::string &error) {
  std::unique_ptr<CudaGraph> graph(new CudaGraph(api));
  if (CUresult r =
          api.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
      r != CUDA_SUCCESS) {
    error = describe(api, r, "cuStreamBeginCapture");
    return nullptr;
  }
  bool enqueued = enqueue(stream, error);
  // End the capture in every case, so the stream is usable again.
  CUresult ended = api.cuStreamEndCapture(stream, &graph->graph);
  if (!enqueued)
    return nullptr;
  if (ended != CUDA_SUCCESS) {
    error = describe(api, ended, "cuStreamEndCapture");
    return nullptr;
  }
  if (CUresult r = api.cuGraphInstantiateWithFlags(&graph->exec, graph->graph, 0);
      r != CUDA_SUCCESS) {
    error = describe(api, r, "cuGraphInstantiate");
    return nullptr;
  }
  return graph;
}

CudaGraph::~CudaGraph() {
  if (exec)
    api.cuGraphExecDestroy(exec);
  if (graph)
    api.cuGraphDestroy(graph);
}

bool CudaGraph::launch(CUstream stream, std::string &error) const {
  if (CUresult r = api.cuGraphLaunch(exec, stream); r != CUDA_SUCCESS) {
    error = describe(api, r, "cuGraphLaunch");
    return false;
  }
  return true;
}

} // namespace pa::runtime
