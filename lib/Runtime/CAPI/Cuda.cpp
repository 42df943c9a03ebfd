//===- Cuda.cpp - C API: decode programs on NVIDIA GPUs through CUDA ------===//
//
// Part of libPARuntimeCAPI.so: the CUDA launcher of lib/Runtime and the
// driver loaded at run time, nothing of MLIR or LLVM.
//
//===----------------------------------------------------------------------===//
#include "pa-c/Cuda.h"

#include "CAPISupport.h"
#include "pa/Runtime/CudaLauncher.h"
#include "pa/Runtime/LauncherCore.h"

#include <mutex>

using namespace pa::capi;
using namespace pa::runtime;
using namespace pa::runtime::cuda;

namespace {

/// A loaded program and the context it lives in.
struct CudaDecodeProgram {
  const DriverApi *api = nullptr;
  CUcontext context = nullptr;
  std::unique_ptr<CudaProgram> program;
};

CudaDecodeProgram *unwrap(PaCudaProgram program) {
  return static_cast<CudaDecodeProgram *>(program.ptr);
}

/// Makes the program's context current on a thread that has none (a
/// thread other than the one that loaded it); a current context is kept.
bool enterContext(const CudaDecodeProgram &p, std::string &error) {
  CUcontext current = nullptr;
  if (CUresult r = p.api->cuCtxGetCurrent(&current); r != CUDA_SUCCESS) {
    error = describe(*p.api, r, "cuCtxGetCurrent");
    return false;
  }
  if (current || !p.context)
    return true;
  if (CUresult r = p.api->cuCtxSetCurrent(p.context); r != CUDA_SUCCESS) {
    error = describe(*p.api, r, "cuCtxSetCurrent");
    return false;
  }
  return true;
}

/// CudaProgram::load in the current (or device 0's primary) context, as a
/// handle; null with `error` reported.
PaCudaProgram load(const std::string &image, const std::string &metadataJson,
                   PaString *error) {
  std::string message;
  // The sidecar first: a malformed one or a module that is not a decode
  // program is refused before the driver compiles anything.
  ModuleManifest manifest;
  if (!parseManifest(metadataJson, manifest, message) ||
      !checkDecodeSequence(manifest, message)) {
    report(error, message);
    return {nullptr};
  }
  auto loaded = std::make_unique<CudaDecodeProgram>();
  loaded->api = makeContextCurrent(0, message);
  if (!loaded->api) {
    report(error, message);
    return {nullptr};
  }
  if (CUresult r = loaded->api->cuCtxGetCurrent(&loaded->context);
      r != CUDA_SUCCESS) {
    report(error, describe(*loaded->api, r, "cuCtxGetCurrent"));
    return {nullptr};
  }
  loaded->program =
      CudaProgram::load(*loaded->api, image, metadataJson, message);
  if (!loaded->program) {
    report(error, message);
    return {nullptr};
  }
  return {loaded.release()};
}

} // namespace

bool paCudaRuntimeAvailable(PaString *reason) {
  clear(reason);
  std::string message;
  const DriverApi *api = loadDriver(message);
  if (api) {
    if (deviceCount(*api, message) > 0)
      return true;
    message = "the CUDA driver " + driverLibraryName() + " sees no GPU" +
              (message.empty() ? std::string() : " (" + message + ")");
  }
  report(reason, message);
  return false;
}

PaCudaProgram paCudaProgramLoad(const void *image, size_t imageSize,
                                const char *metadataJson, PaString *error) {
  clear(error);
  if (!image || !imageSize || !metadataJson) {
    report(error, "paCudaProgramLoad needs a PTX or cubin image and its "
                  "metadata");
    return {nullptr};
  }
  return load(std::string(static_cast<const char *>(image), imageSize),
              metadataJson, error);
}

namespace {
/// CUDA chooses its one NVIDIA program without asking the GPU.
bool noDeviceChip(std::string &, std::string &) { return true; }
} // namespace

bool paCudaProgramChip(const char *path, PaString *chip, PaString *error) {
  clear(chip);
  clear(error);
  std::string directory, chosen, message;
  if (!programFor(path, /*amd=*/false, noDeviceChip, directory, chosen,
                  message)) {
    report(error, message);
    return false;
  }
  report(chip, chosen);
  return true;
}

PaCudaProgram paCudaProgramLoadFile(const char *path, PaString *error) {
  clear(error);
  ProgramArtifact artifact;
  std::string message;
  if (!readProgramFor(path, /*amd=*/false, noDeviceChip, artifact,
                      message)) {
    report(error, message);
    return {nullptr};
  }
  return load(artifact.codeObject, artifact.metadataJson, error);
}

void paCudaProgramDestroy(PaCudaProgram program) {
  CudaDecodeProgram *p = unwrap(program);
  if (!p)
    return;
  std::string ignored;
  // The module is unloaded from its own context.
  enterContext(*p, ignored);
  delete p;
}

bool paCudaProgramEnqueue(PaCudaProgram program,
                          const PaDeviceOperand *operands, size_t count,
                          void *stream, PaString *error) {
  return paCudaProgramEnqueueKernels(program, operands, count, PA_KERNELS_ALL,
                                     stream, error);
}

bool paCudaProgramEnqueueKernels(PaCudaProgram program,
                                 const PaDeviceOperand *operands, size_t count,
                                 uint32_t kernels, void *stream,
                                 PaString *error) {
  clear(error);
  if (!program.ptr) {
    report(error, "paCudaProgramEnqueue needs a program (this one is NULL)");
    return false;
  }
  const CudaDecodeProgram &p = *unwrap(program);
  OperandViews views;
  std::string message;
  if (!unwrapDeviceOperands(operands, count, views, message) ||
      !enterContext(p, message) ||
      !p.program->enqueue(static_cast<CUstream>(stream), views, message,
                          kernels)) {
    report(error, message);
    return false;
  }
  return true;
}

using CudaLaunch = BoundLaunch<CudaDecodeProgram>;

PaCudaLaunch paCudaProgramBind(PaCudaProgram program,
                               const PaDeviceOperand *operands, size_t count,
                               uint32_t kernels, PaString *error) {
  return {bindLaunch(unwrap(program),
                     program.ptr ? &unwrap(program)->program->manifest() : nullptr,
                     operands, count, kernels, "paCudaProgramBind", error)};
}

bool paCudaLaunchEnqueue(PaCudaLaunch launch, void *stream, PaString *error) {
  auto *bound = static_cast<CudaLaunch *>(launch.ptr);
  return paCudaLaunchEnqueueKernels(launch, bound ? bound->kernels : 0,
                                    stream, error);
}

namespace {
/// paCudaLaunchEnqueueKernels over `operands` (null: the bound array).
bool enqueueCudaLaunch(PaCudaLaunch launch, const PaDeviceOperand *operands,
                       size_t count, uint32_t kernels, void *stream,
                       PaString *error) {
  return enqueueBound<CudaDecodeProgram>(
      launch.ptr, operands, count, kernels, "paCudaLaunchEnqueue", error,
      [&](const CudaDecodeProgram &p, const OperandViews &views,
          LaunchSet &launches, std::string &message) {
        return enterContext(p, message) &&
               p.program->enqueue(static_cast<CUstream>(stream), views,
                                  message, kernels, &launches);
      });
}
} // namespace

bool paCudaLaunchEnqueueKernels(PaCudaLaunch launch, uint32_t kernels,
                                void *stream, PaString *error) {
  return enqueueCudaLaunch(launch, nullptr, 0, kernels, stream, error);
}

bool paCudaLaunchEnqueueOperands(PaCudaLaunch launch,
                                 const PaDeviceOperand *operands,
                                 size_t count, uint32_t kernels, void *stream,
                                 PaString *error) {
  return requireOperands(operands, "paCudaLaunchEnqueueOperands", error) &&
         enqueueCudaLaunch(launch, operands, count, kernels, stream, error);
}

bool paCudaLaunchCall(PaLaunchCall *call) {
  return enqueueCall(call, "paCudaLaunchCall",
                     [](void *launch, const PaDeviceOperand *operands,
                        size_t count, uint32_t kernels, void *stream,
                        PaString *error) {
                       return enqueueCudaLaunch(PaCudaLaunch{launch}, operands,
                                                count, kernels, stream, error);
                     });
}

void paCudaLaunchDestroy(PaCudaLaunch launch) {
  delete static_cast<CudaLaunch *>(launch.ptr);
}

bool paCudaProgramRun(PaCudaProgram program, const PaHostOperand *operands,
                      size_t count, PaString *error) {
  clear(error);
  if (!program.ptr) {
    report(error, "paCudaProgramRun needs a program (this one is NULL)");
    return false;
  }
  const CudaDecodeProgram &p = *unwrap(program);
  std::vector<HostOperand> host;
  std::string message;
  if (!unwrapHostOperands(operands, count, host, message) ||
      !enterContext(p, message) ||
      !runOnHostOperands(
          CudaMemory(*p.api), host,
          [&](void *stream, const OperandViews &views, std::string &e) {
            return p.program->enqueue(static_cast<CUstream>(stream), views,
                                      e);
          },
          message)) {
    report(error, message);
    return false;
  }
  return true;
}
