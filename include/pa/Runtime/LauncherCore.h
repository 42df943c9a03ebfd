//===- LauncherCore.h - the backend-neutral half of a launcher --*- C++ -*-===//
//
// What launching a compiled decode takes apart from the driver API, shared
// by the HIP and CUDA launchers:
//
//   - the kernels in launch order, plan -> decode -> reduce (a
//     ModuleManifest; parseAMDManifest reads the .hsaco sidecar into one,
//     parseManifest of KernelManifest.h the PTX one);
//   - per kernel, the grid evaluated from the operand views and the
//     parameters packed from them (KernelManifest.h), all prepared before
//     the first launch, so a bad operand launches nothing;
//   - kernels with an empty grid (batch 0) skipped;
//   - the module's kernel functions looked up by symbol in manifest order
//     (lookUpKernelFunctions; the lookup call is the driver's);
//   - the launches handed to a LaunchDriver, the one backend-specific piece:
//     a function per kernel and one asynchronous launch call.
//
// Nothing is read back and nothing synchronizes, so a sequence enqueued on a
// stream can be captured in a HIP or CUDA graph and replayed with new
// inputs in the same buffers. Plain C++ (no MLIR, no LLVM, no GPU runtime).
//
//===----------------------------------------------------------------------===//
#ifndef PA_RUNTIME_LAUNCHERCORE_H
#define PA_RUNTIME_LAUNCHERCORE_H

#include "pa/Runtime/KernelManifest.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pa::runtime {

/// Reads the AMD code object sidecar (pa-compile's OUT.hsaco.json,
/// readCodeObjectMetadata) as a manifest: kernels ordered plan, decode,
/// reduce (then any other, in sidecar order), each with its grid formula,
/// workgroup size and explicit arguments. Hidden arguments (value kinds
/// `hidden_*`: block counts, group sizes, queue pointers, ...) are left out:
/// the HIP runtime fills them in behind the explicit ones. False with
/// `error` on malformed text, fields, meanings or grid formulas.
bool parseAMDManifest(const std::string &json, ModuleManifest &manifest,
                      std::string &error);

/// One launch, ready for a driver.
struct PreparedLaunch {
  /// Index of the kernel in the manifest (and in the driver's functions).
  size_t kernelIndex = 0;
  std::array<int64_t, 3> grid = {1, 1, 1};
  /// Owned here so that its pointers stay valid while the launch runs.
  std::unique_ptr<PackedParams> params;
};

/// A subset of a module's kernels: bit i selects manifest kernel i (launch
/// order; for a decode program bit 0 is pa_plan, 1 pa_decode, 2 pa_reduce),
/// so a plan can be launched once per step and decode + reduce per layer.
using KernelMask = uint32_t;
constexpr KernelMask kAllKernels = ~KernelMask(0);

/// Evaluates the grid and packs the parameters of every kernel of
/// `manifest` selected by `kernels` for `views`, in launch order; kernels
/// with an empty grid are left out. False with `error` (and nothing
/// prepared) when an operand is missing or does not fit, or a grid exceeds
/// 2^31-1 workgroups per axis. The PackedParams of `launches` on entry are
/// reused (their buffers kept), so preparing the same kernels again
/// allocates nothing (LaunchSet).
/// `fixedViews`: PackedParams::pack's (the caller keeps `views`'
/// entries between calls with the same `launches`).
bool prepareLaunches(const ModuleManifest &manifest, const OperandViews &views,
                     std::vector<PreparedLaunch> &launches, std::string &error,
                     KernelMask kernels = kAllKernels,
                     bool fixedViews = false);

/// The backend-specific half: a loaded module's kernel functions and an
/// asynchronous launch on a stream of the backend (hipStream_t, CUstream).
class LaunchDriver {
public:
  virtual ~LaunchDriver() = default;
  /// Launches kernel `kernelIndex` of the manifest, `kernel`, over `grid`
  /// workgroups of kernel.blockSize threads with kernel.sharedBytes of
  /// dynamic shared memory on `stream`. `params` has the parameters both
  /// ways the driver APIs take them: one pointer per parameter
  /// (kernelParams) and the packed kernel.paramBytes (the `extra` buffer).
  /// False with `error` naming the call.
  virtual bool launch(size_t kernelIndex, const KernelInfo &kernel,
                      const std::array<int64_t, 3> &grid, PackedParams &params,
                      void *stream, std::string &error) = 0;
};

/// Looks up the function of every kernel of a loaded module in `manifest`
/// order, by KernelInfo::symbol, into `functions` (parallel to
/// manifest.kernels, as LaunchDriver::launch indexes them).
/// `getFunction(symbol, function)` is the driver's lookup: empty when it
/// found `function`, else the failed call described ("hipModuleGetFunction:
/// hipErrorNotFound"). False with `error` that description + " for
/// 'SYMBOL'" at the first kernel not found.
template <typename Function, typename GetFunction>
bool lookUpKernelFunctions(const ModuleManifest &manifest,
                           GetFunction &&getFunction,
                           std::vector<Function> &functions,
                           std::string &error) {
  for (const KernelInfo &kernel : manifest.kernels) {
    Function function{};
    if (std::string failed = getFunction(kernel.symbol, function);
        !failed.empty()) {
      error = failed + " for '" + kernel.symbol + "'";
      return false;
    }
    functions.push_back(function);
  }
  return true;
}

/// prepareLaunches of the `kernels` subset, then every launch through
/// `driver` in order. False with `error` (nothing launched) when `kernels`
/// selects no kernel of the manifest or one it does not have.
bool enqueueKernels(const ModuleManifest &manifest, const OperandViews &views,
                    LaunchDriver &driver, void *stream, std::string &error,
                    KernelMask kernels = kAllKernels);

/// The launches of one enqueue kept for the next one: a caller enqueueing
/// the same kernels again and again (a serving loop's per-layer decode)
/// passes the same LaunchSet, and the parameter buffers are refilled in
/// place instead of allocated per call.
struct LaunchSet {
  std::vector<PreparedLaunch> launches;
  /// Whether every enqueue with this set passes the same OperandViews map
  /// with the same entries (a bound launch's): the parameters are then
  /// refilled through the views resolved once (PackedParams::pack).
  bool fixedViews = false;
};

/// False with `error` when `kernels` selects no kernel of `manifest` or
/// one it does not have (kAllKernels: every one).
bool checkKernelMask(const ModuleManifest &manifest, KernelMask kernels,
                     std::string &error);

/// enqueueKernels with the launches prepared into `reuse`.
bool enqueueKernels(const ModuleManifest &manifest, const OperandViews &views,
                    LaunchDriver &driver, void *stream, std::string &error,
                    KernelMask kernels, LaunchSet &reuse);

/// Checks that `manifest` holds exactly one kernel of each role of a decode
/// program (pa_plan, pa_decode, pa_reduce), in that order; false with
/// `error` naming what is missing or out of order. Launchers of modules
/// built from a DecodeConfig check this at load time.
bool checkDecodeSequence(const ModuleManifest &manifest, std::string &error);

} // namespace pa::runtime

#endif // PA_RUNTIME_LAUNCHERCORE_H
