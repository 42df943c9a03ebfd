//===- PTX.h - NVIDIA PTX (and cubin) in process ----------------*- C++ -*-===//
//
// From kernels in the NVVM dialect to PTX text and its metadata, without the
// CUDA toolkit: LLVM's NVPTX backend runs in this process. A cubin needs
// ptxas (CUDA toolkit), run as a separate process when asked for; ptxas also
// reports registers and spills for the metadata when it is found.
//
//   lowerToNVVM            pa ops -> gpu.module @pa_kernels in LLVM/NVVM
//   translateKernelsToNVPTX that gpu.module -> an O3-optimized llvm::Module
//   emitPTX                llvm::Module -> PTX, [cubin], metadata JSON
//   compileToPTX           all three, errors as text (for the C API)
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_NVIDIA_PTX_H
#define PA_TARGET_NVIDIA_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "pa/IR/Chip.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir::pa {

struct NVIDIACompileOptions {
  /// sm_90a.
  std::string chip = std::string(kDefaultNVIDIAChip);
  /// Also assemble a cubin with ptxas (an error when ptxas is not found).
  bool emitCubin = false;
  /// ptxas to run: empty searches PATH, then /usr/local/cuda/bin. Used for
  /// the cubin and, when found, for the register / spill figures.
  std::string ptxasPath;
  /// Run ptxas (when found) for resource figures even without a cubin.
  bool reportResources = true;
};

struct NVIDIAModule {
  /// The PTX text (what the CUDA driver JIT-compiles at module load).
  std::string ptx;
  /// The cubin ptxas assembled (emitCubin), else empty.
  std::string cubin;
  /// Per-kernel metadata (see emitPTX).
  std::string metadataJson;
};

/// Checks the chip (an NVIDIA chip pa-mlir knows); errors at `loc`.
LogicalResult verifyNVIDIACompileOptions(Location loc,
                                         const NVIDIACompileOptions &options);

/// Runs pa-lower-to-nvvm{chip} on `module`, in place.
LogicalResult lowerToNVVM(ModuleOp module, const NVIDIACompileOptions &options);

/// Translates the module's gpu.module @pa_kernels (already LLVM/NVVM) to
/// LLVM IR for nvptx64-nvidia-cuda and the chip, optimized at O3. Errors
/// when the result calls external functions (libdevice __nv_* included).
FailureOr<std::unique_ptr<llvm::Module>>
translateKernelsToNVPTX(ModuleOp module, const NVIDIACompileOptions &options,
                        llvm::LLVMContext &llvmContext);

/// Generates the PTX of `llvmModule` (and the cubin, if asked) and the
/// metadata JSON: target, PTX version, the kernels in launch order (the
/// order of the host function's gpu.launch_func ops) with symbol, grid
/// formula, block size, dynamic shared memory bytes, parameters (offset,
/// size, meaning) and, where ptxas ran, registers, spill and stack bytes.
FailureOr<NVIDIAModule> emitPTX(ModuleOp module, llvm::Module &llvmModule,
                                const NVIDIACompileOptions &options);

/// pa ops in `module` (modified in place) to PTX; on failure returns
/// nullopt with every diagnostic in `error`.
std::optional<NVIDIAModule> compileToPTX(ModuleOp module,
                                         const NVIDIACompileOptions &options,
                                         std::string &error);

} // namespace mlir::pa

#endif // PA_TARGET_NVIDIA_PTX_H
