//===- DecodeToWarps.h - decode and reduce kernels on NVIDIA warps -*- C++ -*-===//
#ifndef PA_LIB_CONVERSION_PATONVVM_DECODETOWARPS_H
#define PA_LIB_CONVERSION_PATONVVM_DECODETOWARPS_H

#include "pa/Conversion/PaToNVVM/PaToNVVM.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>

namespace mlir::pa::nvvm {

/// Threads of the workgroups pa-to-nvvm distributes to (4 warps).
inline constexpr int64_t kWorkgroupThreads = 128;

/// Rewrites the pa.tile ops of decode kernel `kernel` into per-thread code
/// for 4-warp workgroups with mma.sync (see DecodeToWarps.cpp); fp8 KV is
/// multiplied in f16, or as split e4m3 terms (`options`). Returns false,
/// leaving the kernel untouched, when the kernel is not a decode kernel
/// this lowering supports; `reason` says why.
bool distributeDecodeKernel(gpu::GPUFuncOp kernel, const WarpOptions &options,
                            std::string &reason);

/// Whether distributeDecodeKernel takes `kernel` (the kernel untouched).
bool decodeKernelTakesWarps(gpu::GPUFuncOp kernel);

/// Replaces the body of the split-K reduce kernel of pa-lower-reduce
/// (recognized by its pa.arg_names and operand types) with one that spreads
/// rows over warps and partitions / head-dim columns over lanes
/// (ReduceToWarps.cpp), in slices of rows on grid z whose number depends on
/// the workgroups per SM (`computeUnits` SMs). False, leaving the kernel
/// untouched, for any other, and for one of more rows than a thread's
/// unrolled items cover (ReduceToWarps.cpp, kMaxItemsPerThread).
bool distributeReduceKernel(gpu::GPUFuncOp kernel, int64_t computeUnits);

/// Whether distributeReduceKernel takes `kernel` (the kernel untouched).
bool reduceKernelTakesWarps(gpu::GPUFuncOp kernel);

} // namespace mlir::pa::nvvm

#endif // PA_LIB_CONVERSION_PATONVVM_DECODETOWARPS_H
