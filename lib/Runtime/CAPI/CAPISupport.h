//===- CAPISupport.h - what both C libraries share -------------*- C++ -*-===//
//
// libPACAPI.so and libPARuntimeCAPI.so report errors the same way - a
// malloc'ed PaString the caller frees with paStringDestroy (defined with
// these helpers, so each library exports it) - and read PaDeviceOperand
// arrays the same way. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_RUNTIME_CAPI_CAPISUPPORT_H
#define PA_LIB_RUNTIME_CAPI_CAPISUPPORT_H

#include "pa-c/Runtime.h"
#include "pa/Runtime/DeviceMemory.h"
#include "pa/Runtime/KernelManifest.h"
#include "pa/Runtime/LauncherCore.h"
#include "pa/Runtime/ProgramArtifact.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace pa::capi {

/// A malloc'ed copy of `text` that the caller frees with paStringDestroy.
PaString makeString(const std::string &text);

/// Stores `text` in `out` when the caller asked for it.
void report(PaString *out, const std::string &text);

/// Sets `out` to "no string" when the caller passed one.
void clear(PaString *out);

/// The views of `count` device operands; false with `error` naming the
/// first one without a name, with a negative rank, without sizes or with
/// a negative stride. Which other strides the kernels take is the
/// sidecar's to say: a launch checks them (runtime::PackedParams::pack).
bool unwrapDeviceOperands(const PaDeviceOperand *operands, size_t count,
                          runtime::OperandViews &views, std::string &error);

/// False with `error` naming operand `name` when one of its `strides` is
/// negative.
bool checkStrides(const std::string &name, const std::vector<int64_t> &strides,
                  std::string &error);

/// A caller's PaDeviceOperand array bound once (names resolved to views),
/// reread in place at every refresh(): what paCudaProgramBind and
/// paHipProgramBind keep, with the launches reused between enqueues.
class BoundOperands {
public:
  /// False with `error` as unwrapDeviceOperands.
  bool bind(const PaDeviceOperand *operands, size_t count, std::string &error);
  /// The operands' current addresses, sizes and strides into views().
  bool refresh(std::string &error);
  /// refresh() from `operands` in place of the bound array: an array of
  /// the bound count whose operands have the bound names in the same order
  /// (a copy of the bound array with other addresses, sizes or strides);
  /// false with `error` naming the first difference otherwise.
  bool refreshFrom(const PaDeviceOperand *operands, size_t count,
                   std::string &error);
  const runtime::OperandViews &views() const { return operandViews; }
  /// The launches kept for enqueues of the kernel mask `kernels` (one set
  /// per mask, so alternating masks - a step's plan kernel, then each
  /// layer's decode + reduce - allocates nothing).
  runtime::LaunchSet &launches(runtime::KernelMask kernels);

private:
  const PaDeviceOperand *operands = nullptr;
  size_t count = 0;
  /// The bound operands' names: a copy of the bound array usually shares
  /// the pointers (compared first), else the text.
  std::vector<const char *> namePointers;
  std::vector<std::string> names;
  runtime::OperandViews operandViews;
  std::vector<runtime::MemRefView *> slots; // parallel to `operands`
  std::vector<std::pair<runtime::KernelMask, runtime::LaunchSet>> launchSets;
};

/// False with `error` unless `kernels` selects some of the kernels `bound`
/// selects and no other (a bound launch's enqueue of some of its kernels).
bool checkBoundKernels(runtime::KernelMask bound, runtime::KernelMask kernels,
                       std::string &error);

/// What paHipProgramBind and paCudaProgramBind return (PaHipLaunch,
/// PaCudaLaunch): the program, its operands bound once and the kernel mask.
template <typename Program> struct BoundLaunch {
  const Program *program = nullptr;
  BoundOperands operands;
  runtime::KernelMask kernels = runtime::kAllKernels;
  /// Enqueues refill the launches' parameter buffers: one at a time (the
  /// plans of one shape share a launch through ...LaunchEnqueueOperands).
  std::mutex enqueueing;
};

/// The launch handle's pointer for `program` bound to `operands` (of whose
/// kernels `manifest` tells), or null with `error` reported; `entryPoint`
/// names the C function for a null program.
template <typename Program>
void *bindLaunch(const Program *program,
                 const runtime::ModuleManifest *manifest,
                 const PaDeviceOperand *operands, size_t count,
                 uint32_t kernels, const char *entryPoint, PaString *error) {
  clear(error);
  if (!program) {
    report(error, std::string(entryPoint) +
                      " needs a program (this one is NULL)");
    return nullptr;
  }
  auto launch = std::make_unique<BoundLaunch<Program>>();
  launch->program = program;
  launch->kernels = kernels;
  std::string message;
  if (!checkKernelMask(*manifest, kernels, message) ||
      !launch->operands.bind(operands, count, message)) {
    report(error, message);
    return nullptr;
  }
  return launch.release();
}

/// The enqueue of `kernels` of the bound launch `handle` (a
/// BoundLaunch<Program>; null: an error naming `entryPoint`) over
/// `operands`, or over the bound array when null: refreshes the operands,
/// then runs `enqueue(program, views, launches, message)`. One enqueue of a
/// launch at a time; false with `error` reported.
template <typename Program, typename Enqueue>
bool enqueueBound(void *handle, const PaDeviceOperand *operands, size_t count,
                  uint32_t kernels, const char *entryPoint, PaString *error,
                  Enqueue enqueue) {
  clear(error);
  auto *bound = static_cast<BoundLaunch<Program> *>(handle);
  if (!bound) {
    report(error, std::string(entryPoint) +
                      " needs a launch (this one is NULL)");
    return false;
  }
  std::string message;
  std::lock_guard<std::mutex> hold(bound->enqueueing);
  if (!checkBoundKernels(bound->kernels, kernels, message) ||
      !(operands ? bound->operands.refreshFrom(operands, count, message)
                 : bound->operands.refresh(message)) ||
      !enqueue(*bound->program, bound->operands.views(),
               bound->operands.launches(kernels), message)) {
    report(error, message);
    return false;
  }
  return true;
}

/// ...LaunchEnqueueOperands takes an array in place of the bound one:
/// false with `error` naming `entryPoint` when there is none.
bool requireOperands(const PaDeviceOperand *operands, const char *entryPoint,
                     PaString *error);

/// The enqueue `call` describes (pa*LaunchCall), through
/// `enqueue(launch, operands, count, kernels, stream, error)`, the driver's
/// ...LaunchEnqueueOperands body (NULL operands: the bound array). False
/// for a NULL call (nowhere to report), or with call->error for a kernel
/// mask past 32 bits (named by `entryPoint`).
template <typename Enqueue>
bool enqueueCall(PaLaunchCall *call, const char *entryPoint, Enqueue enqueue) {
  if (!call)
    return false;
  if (call->kernels > UINT32_MAX) {
    clear(&call->error);
    report(&call->error, std::string(entryPoint) + ": the kernel mask " +
                             std::to_string(call->kernels) +
                             " does not fit 32 bits");
    return false;
  }
  return enqueue(call->launch, call->operands, size_t(call->count),
                 uint32_t(call->kernels), call->stream, &call->error);
}

/// Empty when `abi`, the first field of a caller's `structName`
/// (PaHostOperand, PaHostBuffers), is `expected`, the value of `macro` in
/// this library's `header`; else why the struct is refused (a caller
/// compiled against another header would have its fields read at the
/// wrong offsets).
std::string checkStructAbi(uint64_t abi, uint64_t expected,
                           const char *structName, const char *macro,
                           const char *header);

/// The C++ view of `count` host operands (the same pointers); false with
/// `error` naming the first one of another layout (PA_HOST_OPERAND_ABI),
/// without a name, with a negative rank or without sizes.
bool unwrapHostOperands(const PaHostOperand *operands, size_t count,
                        std::vector<runtime::HostOperand> &out,
                        std::string &error);

/// The current GPU's chip for choosing in a multi-chip program (the HIP
/// runtime's gcnArchName; CUDA needs none): false with `error`.
using DeviceChip = std::function<bool(std::string &chip, std::string &error)>;

/// The directory of the program at `path` that the HIP runtime (`amd`) or
/// CUDA loads: `path` itself for a single-chip program, PATH/CHIP of a
/// multi-chip one (runtime::chooseProgramChip of `deviceChip`'s chip),
/// and its chip. False with `error`.
bool programFor(const char *path, bool amd, const DeviceChip &deviceChip,
                std::string &directory, std::string &chip, std::string &error);

/// Reads the AOT program at `path` (programFor) for the HIP runtime (`amd`)
/// or CUDA: false with `error` when it cannot be read or holds an image for
/// the other vendor (naming the entry point that loads it).
bool readProgramFor(const char *path, bool amd, const DeviceChip &deviceChip,
                    runtime::ProgramArtifact &out, std::string &error);

} // namespace pa::capi

#endif // PA_LIB_RUNTIME_CAPI_CAPISUPPORT_H
