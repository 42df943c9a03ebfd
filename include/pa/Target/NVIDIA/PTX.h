//===- PTX.h - NVIDIA PTX (and cubin) in process ----------------*- C++ -*-===//
//
// From kernels in the NVVM dialect to PTX text and its metadata, without the
// CUDA toolkit: LLVM's NVPTX backend runs in this process. A cubin needs
// ptxas (CUDA toolkit), run as a separate process when asked for; ptxas also
// reports registers and spills for the metadata when it is found.
//
// nvidiaBackend() runs the stages Backend.h names; the PTX is
// KernelImage::assembly, the cubin (on request) ::binary.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_NVIDIA_PTX_H
#define PA_TARGET_NVIDIA_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "pa/Conversion/PaToNVVM/PaToNVVM.h"
#include "pa/IR/Chip.h"
#include "pa/Target/Backend.h"

#include <string>

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
  /// pa-to-nvvm's options of the decode kernel (its defaults: f16 products,
  /// no K ahead).
  WarpOptions warp;
};

/// The NVIDIA backend (Backend.h): pa-lower-to-nvvm{chip}; LLVM IR for
/// nvptx64-nvidia-cuda; the PTX text (KernelImage::assembly), the cubin
/// with options.emitCubin (KernelImage::binary) and the metadata JSON:
/// target, PTX version, the kernels in launch order (the order of the host
/// function's gpu.launch_func ops) with symbol, grid formula, block size,
/// dynamic shared memory bytes, parameters (offset, size, meaning) and,
/// where ptxas ran, registers, spill and stack bytes.
const Backend<NVIDIACompileOptions> &nvidiaBackend();

} // namespace mlir::pa

#endif // PA_TARGET_NVIDIA_PTX_H
