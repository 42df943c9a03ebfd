//===- NontemporalLoads.h - !nontemporal loads as ld.L1::no_allocate -*- C++ -*-//
#ifndef PA_TARGET_NVIDIA_NONTEMPORALLOADS_H
#define PA_TARGET_NVIDIA_NONTEMPORALLOADS_H

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::pa::nvidia {

/// Rewrites each simple `!nontemporal` load of 4, 8 or 16 bytes (aligned to
/// its size) through a generic or global pointer as an inline
/// `ld.global.L1::no_allocate`, the constant part of its address written
/// into the PTX text (`[$4+128]`) so that loads a constant apart share one
/// address register. The NVPTX backend ignores `!nontemporal`; the NVIDIA
/// backend's emit runs this after O3, before code generation. Generic pointers must point to
/// global memory (kernel operands do).
void lowerNontemporalGlobalLoads(llvm::Module &module);

} // namespace mlir::pa::nvidia

#endif // PA_TARGET_NVIDIA_NONTEMPORALLOADS_H
