//===- Passes.h - backend conversions of the tiled IR -----------*- C++ -*-===//
#ifndef PA_CONVERSION_PASSES_H
#define PA_CONVERSION_PASSES_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "pa/Conversion/MFMAOptions.h"

namespace mlir::pa {

#define GEN_PASS_DECL
#include "pa/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pa/Conversion/Passes.h.inc"

} // namespace mlir::pa

#endif // PA_CONVERSION_PASSES_H
