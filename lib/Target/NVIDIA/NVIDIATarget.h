//===- NVIDIATarget.h - facts shared by the NVVM lowering and PTX -*- C++ -*-//
#ifndef PA_LIB_TARGET_NVIDIA_NVIDIATARGET_H
#define PA_LIB_TARGET_NVIDIA_NVIDIATARGET_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace mlir::pa::nvidia {

inline constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";
/// PTX ISA 8.5: the first with every instruction the kernels use on sm_90a
/// (mma.sync m16n8k32 e4m3 needs 8.4); CUDA 12.5+ drivers load it.
inline constexpr llvm::StringLiteral kPTXFeatures = "+ptx85";

/// Set on each kernel by pa-convert-kernels-to-nvvm (like the AMD path's
/// pa.kernarg_fields): one StringAttr per PTX-level kernel parameter
/// ("query.aligned_ptr", "query.size[0]", ...).
inline constexpr llvm::StringLiteral kParamFieldsAttrName = "pa.param_fields";
/// Bytes of dynamic shared memory the kernel's workgroup buffers take (an
/// i64 attribute): the launch must pass it, and above 48 KiB first raise
/// the function's limit.
inline constexpr llvm::StringLiteral kSharedBytesAttrName = "pa.shared_bytes";

/// Registers pa-convert-kernels-to-nvvm.
void registerConvertKernelsToNVVMPass();

/// `pa-lower-plan-to-threads` (PlanKernel.cpp): pa.plan to a planning
/// kernel on the 128 threads of one workgroup, the plan of pa-lower-plan.
std::unique_ptr<Pass> createLowerPlanToThreadsPass(llvm::StringRef chip);
void registerLowerPlanToThreadsPass();

/// `pa-nvvm-launch-grids` (LaunchGrids.cpp): a kernel's pa.nvvm.grid_z
/// (set by pa-to-nvvm) onto its gpu.launch_func ops and its pa.grid.
std::unique_ptr<Pass> createLaunchGridsPass();
void registerLaunchGridsPass();

/// An NVPTX target machine for `chip` at O3 with kPTXFeatures (the NVPTX
/// backend is initialized on first use); null with `error` set otherwise.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(llvm::StringRef chip,
                                                         std::string &error);

/// Names of the PTX-level parameters of `kernel`'s arguments: a memref
/// becomes its unpacked descriptor (allocated_ptr, aligned_ptr, offset,
/// size[i], stride[i]); other arguments keep their name.
SmallVector<std::string> kernelParamFields(gpu::GPUFuncOp kernel);

} // namespace mlir::pa::nvidia

#endif // PA_LIB_TARGET_NVIDIA_NVIDIATARGET_H
