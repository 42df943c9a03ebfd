//===- CodeObject.h - AMD code objects (.hsaco) in process ------*- C++ -*-===//
//
// From kernels in the ROCDL dialect to a linked AMDHSA code object and its
// metadata, without ROCm: LLVM's AMDGPU backend and lld run in this process.
//
// amdBackend() runs the stages Backend.h names; the code object is
// KernelImage::binary, its AMDGPU assembly (on request) ::assembly.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_AMD_CODEOBJECT_H
#define PA_TARGET_AMD_CODEOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "pa/Conversion/MFMAOptions.h"
#include "pa/IR/Chip.h"
#include "pa/Target/Backend.h"
#include "llvm/ADT/StringRef.h"

#include <string>

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
  /// Also produce the AMDGPU assembly (KernelImage::assembly): one more
  /// code generation of the module.
  bool keepIsa = false;
};

/// The AMD backend (Backend.h): pa-lower-to-rocdl{chip}; LLVM IR for
/// amdgcn-amd-amdhsa with the code object version flag; object code linked
/// into a code object with lld (KernelImage::binary), the metadata read back
/// from it (readCodeObjectMetadata), and with options.keepIsa the assembly.
const Backend<AMDCompileOptions> &amdBackend();

/// The metadata note of the code object `hsaco` as JSON: the target and,
/// per kernel, symbol, kernarg segment size and arguments (offset, size,
/// value kind and meaning), workgroup size, grid, LDS, VGPR, AGPR, SGPR and
/// scratch figures and the wavefront size. `module` (lowered) supplies the
/// meanings and grids. Errors at the module's location.
FailureOr<std::string> readCodeObjectMetadata(ModuleOp module,
                                              llvm::StringRef hsaco);

} // namespace mlir::pa

#endif // PA_TARGET_AMD_CODEOBJECT_H
