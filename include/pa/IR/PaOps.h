//===- PaOps.h - pa.plan, pa.decode, pa.reduce ------------------*- C++ -*-===//
#ifndef PA_IR_PAOPS_H
#define PA_IR_PAOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "pa/IR/PaDialect.h"

namespace mlir::pa {
/// Tokens per KV tile of the split-K plan.
inline constexpr int64_t kTileTokens = 256;
/// Largest page size of the nhd / hnd layouts.
inline constexpr int64_t kMaxPageSize = 1024;
/// Page ids of one tile: 256 / P, or 1 when a page spans whole tiles
/// (P > 256: the tile lies inside page tile * 256 / P).
inline constexpr int64_t pagesPerTile(int64_t pageSize) {
  return pageSize >= kTileTokens ? 1 : kTileTokens / pageSize;
}

/// True for a ranked tensor, a row-major memref or a strided memref whose
/// innermost stride is 1 (the views PaOps.td's strided buffers accept).
bool isRowMajorOrUnitInnermostStride(Type type);

/// Work-plan capacity (slots) for `batch` sequences:
/// min(B * max_partitions, max(B, ceil(budget / Hkv))).
int64_t planCapacity(int64_t batch, int64_t kvHeads, int64_t budget,
                     int64_t maxPartitions);

/// Fails, naming the op's own attributes, when `op` carries an attribute that
/// its definition does not list and that has no dialect prefix.
LogicalResult verifyKnownAttributes(Operation *op);

/// Op trait of every pa op (PaBase.td, Pa_KnownAttributesOnly).
template <typename ConcreteType>
class KnownAttributesOnly
    : public OpTrait::TraitBase<ConcreteType, KnownAttributesOnly> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyKnownAttributes(op);
  }
};
} // namespace mlir::pa

#define GET_OP_CLASSES
#include "pa/IR/PaOps.h.inc"

#endif // PA_IR_PAOPS_H
