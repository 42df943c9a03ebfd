//===- CodeObject.h - AMD code objects (.hsaco) in process ------*- C++ -*-===//
//
// From kernels in the ROCDL dialect to a linked AMDHSA code object and its
// metadata, without ROCm: LLVM's AMDGPU backend and lld run in this process.
//
//   lowerToROCDL           pa ops -> gpu.module @pa_kernels in LLVM/ROCDL
//   translateKernelsToLLVM that gpu.module -> an O3-optimized llvm::Module
//   emitCodeObject         llvm::Module -> .hsaco, metadata JSON (+ ISA text)
//   compileToCodeObject    all three, errors as text (for the C API)
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_AMD_CODEOBJECT_H
#define PA_TARGET_AMD_CODEOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "pa/Conversion/MFMAOptions.h"
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

struct AMDCompileOptions {
  /// gfx942 or gfx950.
  std::string chip = std::string(kDefaultChip);
  /// AMDHSA code object version: 5 or 6.
  int codeObjectVersion = 5;
  /// pa-to-mfma's fp8-residual option.
  Fp8Residual fp8Residual = kDefaultFp8Residual;
  /// pa-to-mfma's cache-offsets option.
  CacheOffsets cacheOffsets = CacheOffsets::automatic;
  /// pa-to-mfma's key-prefetch option.
  KeyPrefetch keyPrefetch = KeyPrefetch::automatic;
  /// Also produce the AMDGPU assembly (AMDCodeObject::isa): one more code
  /// generation of the module.
  bool keepIsa = false;
};

struct AMDCodeObject {
  /// The linked shared-object code object (ELF, amdgcn-amd-amdhsa).
  std::string hsaco;
  /// The AMDGPU assembly of the same code (with keepIsa; else empty).
  std::string isa;
  /// Per-kernel metadata read back from the code object (see
  /// readCodeObjectMetadata).
  std::string metadataJson;
};

/// Checks the chip (an AMD chip pa-mlir knows) and the code object version;
/// errors at `loc`.
LogicalResult verifyAMDCompileOptions(Location loc,
                                      const AMDCompileOptions &options);

/// Runs pa-lower-to-rocdl{chip} on `module`, in place.
LogicalResult lowerToROCDL(ModuleOp module, const AMDCompileOptions &options);

/// Translates the module's gpu.module @pa_kernels (already LLVM/ROCDL) to LLVM
/// IR for amdgcn-amd-amdhsa and the chip, with the code object version flag,
/// optimized at O3. Errors when the result declares external functions
/// (ROCm device-library calls such as __ocml_* / __ockl_* included).
FailureOr<std::unique_ptr<llvm::Module>>
translateKernelsToLLVM(ModuleOp module, const AMDCompileOptions &options,
                       llvm::LLVMContext &llvmContext);

/// Generates the object code of `llvmModule` (and with options.keepIsa its
/// assembly) and links the object into a code object with lld, then reads
/// the metadata back; the kernel
/// argument meanings and grids come from the kernels in `module`.
FailureOr<AMDCodeObject> emitCodeObject(ModuleOp module,
                                        llvm::Module &llvmModule,
                                        const AMDCompileOptions &options);

/// The metadata note of the code object `hsaco` as JSON: the target and,
/// per kernel, symbol, kernarg segment size and arguments (offset, size,
/// value kind and meaning), workgroup size, grid, LDS, VGPR, AGPR, SGPR and
/// scratch figures and the wavefront size. `module` (lowered) supplies the
/// meanings and grids. Errors at the module's location.
FailureOr<std::string> readCodeObjectMetadata(ModuleOp module,
                                              llvm::StringRef hsaco);

/// pa ops in `module` (modified in place) to a code object; on failure
/// returns nullopt with every diagnostic in `error`.
std::optional<AMDCodeObject>
compileToCodeObject(ModuleOp module, const AMDCompileOptions &options,
                    std::string &error);

} // namespace mlir::pa

#endif // PA_TARGET_AMD_CODEOBJECT_H
