//===- Hip.cpp - C API: decode programs on AMD GPUs through HIP -----------===//
//
// Part of libPARuntimeCAPI.so: the HIP launcher of lib/Runtime and the HIP
// runtime loaded at run time, nothing of MLIR or LLVM. libPACAPI.so's
// paHipProgramCreate compiles, then loads through paHipProgramLoad.
//
//===----------------------------------------------------------------------===//
#include "pa-c/Hip.h"

#include "CAPISupport.h"
#include "pa/Runtime/HipLauncher.h"

#include <mutex>

using namespace pa::capi;
using namespace pa::runtime;

namespace {

HipProgram *unwrap(PaHipProgram program) {
  return static_cast<HipProgram *>(program.ptr);
}

/// HipProgram::load on the process's HIP runtime, as a handle; null with
/// `error` reported.
PaHipProgram load(const std::string &codeObject,
                  const std::string &metadataJson, PaString *error) {
  std::string message;
  const HipRuntime *hip = HipRuntime::get(message);
  std::unique_ptr<HipProgram> program =
      hip ? HipProgram::load(*hip, codeObject, metadataJson, message)
          : nullptr;
  if (!program) {
    report(error, message);
    return {nullptr};
  }
  return {program.release()};
}

} // namespace

bool paHipRuntimeAvailable(PaString *reason) {
  clear(reason);
  std::string message;
  if (HipRuntime::get(message))
    return true;
  report(reason, message);
  return false;
}

PaHipProgram paHipProgramLoad(const void *codeObject, size_t codeObjectSize,
                              const char *metadataJson, PaString *error) {
  clear(error);
  if (!codeObject || !codeObjectSize || !metadataJson) {
    report(error, "paHipProgramLoad needs a code object and its metadata");
    return {nullptr};
  }
  return load(std::string(static_cast<const char *>(codeObject),
                          codeObjectSize),
              metadataJson, error);
}

namespace {
/// The current GPU's chip, from the HIP runtime.
bool hipDeviceChip(std::string &chip, std::string &error) {
  const HipRuntime *hip = HipRuntime::get(error);
  return hip && hip->deviceChip(chip, error);
}
} // namespace

bool paHipProgramChip(const char *path, PaString *chip, PaString *error) {
  clear(chip);
  clear(error);
  std::string directory, chosen, message;
  if (!programFor(path, /*amd=*/true, hipDeviceChip, directory, chosen,
                  message)) {
    report(error, message);
    return false;
  }
  report(chip, chosen);
  return true;
}

PaHipProgram paHipProgramLoadFile(const char *path, PaString *error) {
  clear(error);
  ProgramArtifact artifact;
  std::string message;
  if (!readProgramFor(path, /*amd=*/true, hipDeviceChip, artifact,
                      message)) {
    report(error, message);
    return {nullptr};
  }
  return load(artifact.codeObject, artifact.metadataJson, error);
}

void paHipProgramDestroy(PaHipProgram program) { delete unwrap(program); }

bool paHipProgramEnqueue(PaHipProgram program, const PaDeviceOperand *operands,
                         size_t count, void *stream, PaString *error) {
  return paHipProgramEnqueueKernels(program, operands, count, PA_KERNELS_ALL,
                                    stream, error);
}

bool paHipProgramEnqueueKernels(PaHipProgram program,
                                const PaDeviceOperand *operands, size_t count,
                                uint32_t kernels, void *stream,
                                PaString *error) {
  clear(error);
  if (!program.ptr) {
    report(error, "paHipProgramEnqueue needs a program (this one is NULL)");
    return false;
  }
  OperandViews views;
  std::string message;
  if (!unwrapDeviceOperands(operands, count, views, message) ||
      !unwrap(program)->enqueue(stream, views, message, kernels)) {
    report(error, message);
    return false;
  }
  return true;
}

using HipLaunch = BoundLaunch<HipProgram>;

PaHipLaunch paHipProgramBind(PaHipProgram program,
                             const PaDeviceOperand *operands, size_t count,
                             uint32_t kernels, PaString *error) {
  return {bindLaunch(unwrap(program),
                     program.ptr ? &unwrap(program)->manifest() : nullptr,
                     operands, count, kernels, "paHipProgramBind", error)};
}

bool paHipLaunchEnqueue(PaHipLaunch launch, void *stream, PaString *error) {
  auto *bound = static_cast<HipLaunch *>(launch.ptr);
  return paHipLaunchEnqueueKernels(launch, bound ? bound->kernels : 0,
                                   stream, error);
}

namespace {
/// paHipLaunchEnqueueKernels over `operands` (null: the bound array).
bool enqueueHipLaunch(PaHipLaunch launch, const PaDeviceOperand *operands,
                      size_t count, uint32_t kernels, void *stream,
                      PaString *error) {
  return enqueueBound<HipProgram>(
      launch.ptr, operands, count, kernels, "paHipLaunchEnqueue", error,
      [&](const HipProgram &p, const OperandViews &views, LaunchSet &launches,
          std::string &message) {
        return p.enqueue(stream, views, message, kernels, &launches);
      });
}
} // namespace

bool paHipLaunchEnqueueKernels(PaHipLaunch launch, uint32_t kernels,
                               void *stream, PaString *error) {
  return enqueueHipLaunch(launch, nullptr, 0, kernels, stream, error);
}

bool paHipLaunchEnqueueOperands(PaHipLaunch launch,
                                const PaDeviceOperand *operands,
                                size_t count, uint32_t kernels, void *stream,
                                PaString *error) {
  return requireOperands(operands, "paHipLaunchEnqueueOperands", error) &&
         enqueueHipLaunch(launch, operands, count, kernels, stream, error);
}

bool paHipLaunchCall(PaLaunchCall *call) {
  return enqueueCall(call, "paHipLaunchCall",
                     [](void *launch, const PaDeviceOperand *operands,
                        size_t count, uint32_t kernels, void *stream,
                        PaString *error) {
                       return enqueueHipLaunch(PaHipLaunch{launch}, operands,
                                               count, kernels, stream, error);
                     });
}

void paHipLaunchDestroy(PaHipLaunch launch) {
  delete static_cast<HipLaunch *>(launch.ptr);
}

bool paHipProgramRun(PaHipProgram program, const PaHostOperand *operands,
                     size_t count, PaString *error) {
  clear(error);
  if (!program.ptr) {
    report(error, "paHipProgramRun needs a program (this one is NULL)");
    return false;
  }
  const HipProgram &hip = *unwrap(program);
  std::vector<HostOperand> host;
  std::string message;
  if (!unwrapHostOperands(operands, count, host, message) ||
      !runOnHostOperands(
          hip.runtime(), host,
          [&](void *stream, const OperandViews &views, std::string &e) {
            return hip.enqueue(stream, views, e);
          },
          message)) {
    report(error, message);
    return false;
  }
  return true;
}
