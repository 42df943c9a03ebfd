//===- PTXMetadata.h - the JSON sidecar of a PTX module ---------*- C++ -*-===//
#ifndef PA_LIB_TARGET_NVIDIA_PTXMETADATA_H
#define PA_LIB_TARGET_NVIDIA_PTXMETADATA_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::pa::nvidia {

/// The metadata JSON of the PTX `ptx` generated from `llvmModule` (the
/// kernels of `module`, lowered): target, PTX version, and the kernels in
/// launch order with their parameters (offset, size and meaning), grid
/// formula, block size and dynamic shared memory; registers, spills and
/// stack bytes from `ptxasLog` (ptxas -v output; empty: null figures).
FailureOr<std::string> writePTXMetadata(ModuleOp module,
                                        llvm::Module &llvmModule,
                                        llvm::StringRef ptx,
                                        llvm::StringRef chip,
                                        llvm::StringRef format,
                                        llvm::StringRef ptxasLog);

} // namespace mlir::pa::nvidia

#endif // PA_LIB_TARGET_NVIDIA_PTXMETADATA_H
