//===- PaToMFMA.h - the pieces of pa-to-mfma --------------------*- C++ -*-===//
#ifndef PA_CONVERSION_PATOMFMA_PATOMFMA_H
#define PA_CONVERSION_PATOMFMA_PATOMFMA_H

#include "pa/IR/PaOps.h"
#include "pa/Conversion/MFMAOptions.h"
#include "pa/IR/Chip.h"
#include "pa/IR/PaLayoutAttrs.h"
#include "pa/Transforms/TiledDecode.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <memory>
#include <optional>

namespace mlir::pa::mfma {

/// Static facts of one decode kernel, read off its tile ops.
struct DecodeShape {
  int64_t rows = 0;    // rows of the row group: 16 or 32
  int64_t mTiles = 0;  // rows / 16
  int64_t headDim = 0; // D
  int64_t pageSize = 0;
  /// packed (K packed, V plain / transposed), nhd or hnd (K and V alike).
  CacheLayout layout = CacheLayout::packed;
  int64_t queryLength = 0, groupSize = 0, window = 0;
  int64_t totalRows = 0; // R = Q * G
  ComputeType compute = ComputeType::fp8;
  ScaleMode scale = ScaleMode::none;
  VLayout vLayout = VLayout::plain;
  Type kvType;      // element type of both caches
  Type computeType; // element type of the MFMA operands
  int64_t kvPack = 0; // x: cache values per 16 bytes
  float scoreScale = 1.0f;
  std::optional<float> softCap; // exp2 domain, as pa.tile.qk's soft_cap
  bool alibi = false;            // the tile loop adds ALiBi biases

  bool fp8Compute() const { return compute == ComputeType::fp8; }
  int64_t kvBytes() const { return kvType.getIntOrFloatBitWidth() / 8; }
};

/// The tile ops of a decode kernel (the tiled IR contract, matchTiledDecode)
/// and what the MFMA lowering reads off them.
struct DecodeKernel : TiledDecode {
  gpu::GPUFuncOp kernel;
  DecodeShape shape;
  /// The lane mapping: the kernel's pa.mfma_layout, or chooseMFMALayout's.
  MFMALayoutAttr layout;
};

/// Whether `kernel` holds pa.tile ops (a decode workgroup program).
bool isDecodeKernel(gpu::GPUFuncOp kernel);

/// Checks everything the lowering relies on (chip fp8 flavour, shapes,
/// register budget, structure) and reports what does not hold; takes the
/// kernel's pa.mfma_layout, or chooses one. Builds nothing.
FailureOr<DecodeKernel> analyzeDecodeKernel(gpu::GPUFuncOp kernel,
                                            const ChipInfo &chip);

/// The lane mapping pa-to-mfma gives a kernel of shape `s` on `chip` where
/// the kernel has no pa.mfma_layout (and pa-mfma-layout attaches).
MFMALayoutAttr chooseMFMALayout(MLIRContext *context, const DecodeShape &s,
                                const ChipInfo &chip);

/// Rewrites the analyzed kernel into per-lane MFMA code for 4 waves, with
/// pa-to-mfma's options.
LogicalResult lowerDecodeKernel(DecodeKernel &decode, const ChipInfo &chip,
                                const MFMAOptions &options);

/// Spreads the iterations of every 1-D scf.parallel of `kernel` over the
/// workgroup's lanes (lane-strided scf.for); returns whether it found any.
/// The tiled IR uses scf.parallel only for iterations that touch their own
/// elements (pa-lower-reduce's D loops), so no barrier is needed.
bool distributeParallelLoops(gpu::GPUFuncOp kernel, int64_t workgroupSize);

} // namespace mlir::pa::mfma

#endif // PA_CONVERSION_PATOMFMA_PATOMFMA_H
