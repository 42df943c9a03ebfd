//===- CudaLauncher.h - run compiled decode programs on a GPU ---*- C++ -*-===//
//
// A CudaProgram is one PTX (or cubin) module of plan / decode / reduce
// kernels with its metadata sidecar, loaded into the current CUDA context
// (the device's primary context, shared with PyTorch and the runtime API).
// enqueue() launches every kernel in launch order on a stream with the
// parameters packed from the operand views: nothing is read back between
// the kernels, so the sequence can be captured in a CUDA graph (CudaGraph)
// and replayed after the inputs in the same buffers changed (new lengths,
// scales, queries).
//
//===----------------------------------------------------------------------===//
#ifndef PA_RUNTIME_CUDALAUNCHER_H
#define PA_RUNTIME_CUDALAUNCHER_H

#include "pa/Runtime/CudaDriver.h"
#include "pa/Runtime/DeviceMemory.h"
#include "pa/Runtime/KernelManifest.h"
#include "pa/Runtime/LauncherCore.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pa::runtime {

/// Makes a CUDA context current on this thread: the current one if any
/// (e.g. PyTorch's), else device `device`'s primary context. Null with
/// `error` when there is no driver or device ("... sees no GPU").
const cuda::DriverApi *makeContextCurrent(int device, std::string &error);

/// The GPUs the driver sees (cuDeviceGetCount); 0 with `error` when the
/// call fails.
int deviceCount(const cuda::DriverApi &api, std::string &error);

/// The driver's device memory and synchronous copies (cuMemAlloc,
/// cuMemFree, cuMemcpyHtoD / DtoH, cuStreamSynchronize) in the current
/// context, for host-buffer runs (runOnHostOperands).
class CudaMemory : public DeviceMemory {
public:
  explicit CudaMemory(const cuda::DriverApi &api) : api(api) {}
  bool allocate(size_t bytes, uint64_t &address,
                std::string &error) const override;
  bool release(uint64_t address, std::string &error) const override;
  bool copyToDevice(uint64_t destination, const void *source, size_t bytes,
                    std::string &error) const override;
  bool copyToHost(void *destination, uint64_t source, size_t bytes,
                  std::string &error) const override;
  bool synchronize(void *stream, std::string &error) const override;

private:
  const cuda::DriverApi &api;
};

class CudaProgram {
public:
  /// Loads `image` (PTX text or a cubin) described by `metadataJson` into
  /// the current context; raises each kernel's dynamic shared memory limit
  /// to what it needs. Null with `error` (the JIT log included).
  static std::unique_ptr<CudaProgram> load(const cuda::DriverApi &api,
                                           const std::string &image,
                                           const std::string &metadataJson,
                                           std::string &error);
  ~CudaProgram();
  CudaProgram(const CudaProgram &) = delete;
  CudaProgram &operator=(const CudaProgram &) = delete;

  /// Launches the kernels in launch order on `stream`; kernels whose grid
  /// is empty (batch 0) are skipped. Asynchronous: checks only the launches.
  /// `kernels` selects a subset (LauncherCore.h, KernelMask).
  /// `reuse`: launches kept from the previous enqueue (LaunchSet).
  bool enqueue(cuda::CUstream stream, const OperandViews &views,
               std::string &error, KernelMask kernels = kAllKernels,
               LaunchSet *reuse = nullptr) const;

  const ModuleManifest &manifest() const { return moduleManifest; }

private:
  CudaProgram(const cuda::DriverApi &api, ModuleManifest manifest)
      : api(api), moduleManifest(std::move(manifest)) {}

  const cuda::DriverApi &api;
  ModuleManifest moduleManifest;
  cuda::CUmodule module = nullptr;
  std::vector<cuda::CUfunction> functions; // parallel to manifest kernels
};

/// A CUDA graph of the work `enqueue` puts on a stream, instantiated once
/// and launched any number of times.
class CudaGraph {
public:
  /// Captures what `enqueue(stream, error)` enqueues on `stream` (which
  /// must not be the legacy default stream). Null with `error`.
  static std::unique_ptr<CudaGraph>
  capture(const cuda::DriverApi &api, cuda::CUstream stream,
          const std::function<bool(cuda::CUstream, std::string &)> &enqueue,
          std::string &error);
  ~CudaGraph();
  CudaGraph(const CudaGraph &) = delete;
  CudaGraph &operator=(const CudaGraph &) = delete;

  bool launch(cuda::CUstream stream, std::string &error) const;

private:
  explicit CudaGraph(const cuda::DriverApi &api) : api(api) {}
  const cuda::DriverApi &api;
  cuda::CUgraph graph = nullptr;
  cuda::CUgraphExec exec = nullptr;
};

} // namespace pa::runtime

#endif // PA_RUNTIME_CUDALAUNCHER_H
