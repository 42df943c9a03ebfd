//===- PaToNVVM.h - what pa-to-nvvm leaves for the host side -----*- C++ -*-===//
//
// pa-to-nvvm runs on gpu.module @pa_kernels and cannot change the host
// function's launches; a kernel whose body expects a larger grid says so
// with the attribute below, and pa-nvvm-launch-grids (lib/Target/NVIDIA,
// part of pa-lower-to-nvvm) applies it to its gpu.launch_func and its
// pa.grid formula.
//
//===----------------------------------------------------------------------===//
#ifndef PA_CONVERSION_PATONVVM_H
#define PA_CONVERSION_PATONVVM_H

#include "llvm/ADT/StringRef.h"

namespace mlir::pa::nvvm {

/// An i64 on a kernel: launch it with this many workgroups on grid z (its
/// launch has z = 1). The NVIDIA reduce kernel takes slice z of its rows
/// in workgroup z: a launch with z = 1 would compute only the first slice,
/// so pa-nvvm-launch-grids must run after pa-to-nvvm (pa-lower-to-nvvm
/// does).
inline constexpr llvm::StringLiteral kGridZAttrName = "pa.nvvm.grid_z";

} // namespace mlir::pa::nvvm

#endif // PA_CONVERSION_PATONVVM_H
