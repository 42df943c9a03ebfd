//===- DeviceMemory.h - host-buffer runs over any GPU runtime ---*- C++ -*-===//
//
// A run on host buffers - copy every operand to the device, launch, wait,
// copy the outputs back, free - is the same for HIP and CUDA except for five
// calls. DeviceMemory is those five calls (implemented by HipRuntime and
// CudaMemory); runOnHostOperands is the run, written once:
//
//   std::vector<HostOperand> operands = ...;   // name, host data, shape
//   runOnHostOperands(memory, operands,
//                     [&](void *stream, const OperandViews &views,
//                         std::string &e) {
//                       return program.enqueue(stream, views, e);
//                     },
//                     error);
//
// Plain C++ (no MLIR, no GPU runtime headers).
//
//===----------------------------------------------------------------------===//
#ifndef PA_RUNTIME_DEVICEMEMORY_H
#define PA_RUNTIME_DEVICEMEMORY_H

#include "pa/Runtime/KernelManifest.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pa::runtime {

/// Device memory and synchronous copies of one GPU runtime. Addresses are
/// device pointers as integers; every call is false with `error` naming the
/// runtime call that failed.
class DeviceMemory {
public:
  virtual ~DeviceMemory() = default;
  /// At least one byte, so that an empty operand still has an address.
  virtual bool allocate(size_t bytes, uint64_t &address,
                        std::string &error) const = 0;
  virtual bool release(uint64_t address, std::string &error) const = 0;
  virtual bool copyToDevice(uint64_t destination, const void *source,
                            size_t bytes, std::string &error) const = 0;
  virtual bool copyToHost(void *destination, uint64_t source, size_t bytes,
                          std::string &error) const = 0;
  /// Waits for the work on `stream` (null: the default stream).
  virtual bool synchronize(void *stream, std::string &error) const = 0;
};

/// One operand in host memory: an array of `sizes` elements of
/// `elementBytes` bytes each (row-major, or at `strides`), under its pa operand name. Read-only operands
/// (the decode's inputs) are copied in; the others are copied in and back,
/// so elements the kernels do not write keep the caller's values. `data`
/// of a non-read-only operand must be writable.
struct HostOperand {
  std::string name;
  const void *data = nullptr;
  std::vector<int64_t> sizes;
  int64_t elementBytes = 0;
  bool readOnly = true;
  /// Element strides (>= 0); empty: row-major. The device copy holds the
  /// memory from the first element to the last (an nhd / hnd cache half of
  /// a combined cache: its pages and the other half's between them), read
  /// at these strides.
  std::vector<int64_t> strides = {};
};

/// Launches a program's kernels on `stream` over device `views`.
using EnqueueFunction = std::function<bool(
    void *stream, const OperandViews &views, std::string &error)>;

/// Checks `operands` (names given once, sizes >= 0, data for every
/// non-empty operand, byte counts that fit size_t), copies each to a fresh
/// device buffer, calls `enqueue` on the default stream, waits, copies the
/// non-read-only operands back and frees every buffer - on failure too.
/// False with `error` naming the operand or the call; the caller's buffers
/// are untouched unless a copy back failed part way (then the outputs
/// before it hold the new values).
bool runOnHostOperands(const DeviceMemory &memory,
                       const std::vector<HostOperand> &operands,
                       const EnqueueFunction &enqueue, std::string &error);

} // namespace pa::runtime

#endif // PA_RUNTIME_DEVICEMEMORY_H
