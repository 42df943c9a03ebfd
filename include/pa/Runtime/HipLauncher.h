//===- HipLauncher.h - run compiled decode programs with HIP ----*- C++ -*-===//
//
// The HIP runtime (libamdhip64) is opened with dlopen, so this builds and
// its tests run on machines without ROCm; the entry points are typed by
// Debian's HIP headers (libamdhip64-dev) in the implementation only, and
// callers see no HIP type: streams are `void *` (a hipStream_t).
//
//   std::string error;
//   const HipRuntime *hip = HipRuntime::get(error);        // null: no HIP
//   auto program = HipProgram::load(*hip, hsaco, sidecarJson, error);
//   program->enqueue(stream, views, error);   // plan -> decode -> reduce
//
// enqueue() only launches (hipModuleLaunchKernel, asynchronous): nothing is
// copied or read back and nothing synchronizes, so it may run inside
// hipStreamBeginCapture / hipStreamEndCapture and the graph be replayed
// after new inputs were written to the same buffers.
//
//===----------------------------------------------------------------------===//
#ifndef PA_RUNTIME_HIPLAUNCHER_H
#define PA_RUNTIME_HIPLAUNCHER_H

#include "pa/Runtime/DeviceMemory.h"
#include "pa/Runtime/KernelManifest.h"
#include "pa/Runtime/LauncherCore.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pa::runtime {

/// A loaded HIP runtime library; its device memory and copies serve
/// host-buffer runs (runOnHostOperands).
class HipRuntime : public DeviceMemory {
public:
  /// The process's HIP runtime, opened on first use: the library named by
  /// the environment variable PA_HIP_LIBRARY, else libamdhip64.so,
  /// libamdhip64.so.6, libamdhip64.so.5. Null with `error` saying why when
  /// none loads, an entry point is missing, or it sees no device.
  static const HipRuntime *get(std::string &error);

  /// The HIP runtime in the library `path` (e.g. a test double), owned by
  /// the caller; does not require a device. Null with `error`.
  static std::unique_ptr<HipRuntime> open(const std::string &path,
                                          std::string &error);

  ~HipRuntime() override;
  HipRuntime(const HipRuntime &) = delete;
  HipRuntime &operator=(const HipRuntime &) = delete;

  const std::string &libraryPath() const { return path; }
  /// hipGetDeviceCount; 0 with `error` when the call fails.
  int deviceCount(std::string &error) const;
  /// The current device's chip: its gcnArchName up to the first ':'
  /// ("gfx942" of "gfx942:sramecc+:xnack-"). False with `error`.
  bool deviceChip(std::string &chip, std::string &error) const;

  // DeviceMemory: hipMalloc, hipFree, hipMemcpyHtoD / DtoH, for host-driven
  // runs (the launch path needs none of them). Addresses are device
  // pointers as integers.
  bool allocate(size_t bytes, uint64_t &address,
                std::string &error) const override;
  bool release(uint64_t address, std::string &error) const override;
  bool copyToDevice(uint64_t destination, const void *source, size_t bytes,
                    std::string &error) const override;
  bool copyToHost(void *destination, uint64_t source, size_t bytes,
                  std::string &error) const override;
  /// hipStreamSynchronize(stream); null is the default stream.
  bool synchronize(void *stream, std::string &error) const override;

  /// The entry points (defined in HipLauncher.cpp with the HIP headers).
  struct Api;
  const Api &api() const { return *entryPoints; }

private:
  HipRuntime(void *handle, std::string path, std::unique_ptr<Api> api);

  void *handle;
  std::string path;
  std::unique_ptr<Api> entryPoints;
};

/// One loaded code object (plan, decode and reduce kernels) and its
/// manifest, ready to launch.
class HipProgram {
public:
  /// Loads the AMD code object `codeObject` (.hsaco bytes) described by its
  /// sidecar `metadataJson` with hipModuleLoadData and looks up its kernels.
  /// A decode program's three kernels must all be there (checked before
  /// anything is loaded). Null with `error`. `runtime` must outlive the
  /// program.
  static std::unique_ptr<HipProgram> load(const HipRuntime &runtime,
                                          const std::string &codeObject,
                                          const std::string &metadataJson,
                                          std::string &error);
  ~HipProgram();
  HipProgram(const HipProgram &) = delete;
  HipProgram &operator=(const HipProgram &) = delete;

  /// Launches plan -> decode -> reduce on `stream` (a hipStream_t; null is
  /// the default stream) over the operands `views` (device addresses, by pa
  /// operand name); kernels with an empty grid are skipped. Asynchronous:
  /// false with `error` only when an operand does not fit or a launch is
  /// refused, and then nothing after it is launched.
  /// `kernels` selects a subset (LauncherCore.h, KernelMask).
  /// `reuse`: launches kept from the previous enqueue (LaunchSet).
  bool enqueue(void *stream, const OperandViews &views, std::string &error,
               KernelMask kernels = kAllKernels,
               LaunchSet *reuse = nullptr) const;

  const ModuleManifest &manifest() const { return moduleManifest; }
  const HipRuntime &runtime() const { return hip; }

private:
  HipProgram(const HipRuntime &hip, ModuleManifest manifest)
      : hip(hip), moduleManifest(std::move(manifest)) {}

  const HipRuntime &hip;
  ModuleManifest moduleManifest;
  void *module = nullptr;          // hipModule_t
  std::vector<void *> functions;   // hipFunction_t, parallel to the kernels
};

} // namespace pa::runtime

#endif // PA_RUNTIME_HIPLAUNCHER_H
