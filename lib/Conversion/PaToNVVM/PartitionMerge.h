//===- PartitionMerge.h - the split-K merge on warps ------------*- C++ -*-===//
//
// The arithmetic that merges a (sequence, KV head)'s partitions into its
// output (pa-lower-reduce's, LowerReduce.cpp), in one place for the two
// NVIDIA kernels that perform it: the reduce kernel (ReduceToWarps.cpp)
// and the decode kernel where a sequence has one partition and it writes
// the output itself (StorePartialsToWarps.cpp,
// pa-nvvm-single-partition-output). With M = max(max_p m_p, z) over the
// partitions' max logits m_p and the sink z (-inf without sinks):
//   w_p = s_p exp(m_p - M) (0 for an empty partition, m_p = -inf),
//   den = sum_p w_p + e_z,  out = sum_p (w_p / den) tmp_out_p.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_CONVERSION_PATONVVM_PARTITIONMERGE_H
#define PA_LIB_CONVERSION_PATONVVM_PARTITIONMERGE_H

#include "WarpEmitter.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::pa::nvvm {

/// exp(x - max), as exp2((x - max) log2 e).
inline Value expShifted(WarpEmitter &e, Value x, Value max) {
  return e.exp2(e.mulF(e.subF(x, max), e.f32(llvm::numbers::log2e)));
}

/// w_p of a partition of max logit `logit` and sum `expSum`; 0 for an
/// empty one.
inline Value partitionWeight(WarpEmitter &e, Value logit, Value expSum,
                             Value rowMax) {
  return e.select(e.eqF(logit, e.negInf()), e.f32(0.0),
                  e.mulF(expSum, expShifted(e, logit, rowMax)));
}

/// e_z, the sink's term of the denominator: 1 where z = M, and 0 for
/// z = -inf even when M = -inf.
inline Value sinkTerm(WarpEmitter &e, Value sink, Value rowMax) {
  Value term =
      e.select(e.eqF(sink, rowMax), e.f32(1.0), expShifted(e, sink, rowMax));
  return e.select(e.eqF(sink, e.negInf()), e.f32(0.0), term);
}

/// The sink of query head `queryHead`, as f32.
inline Value loadSink(WarpEmitter &e, Value sinks, Value queryHead) {
  Value z = e.load(sinks, {queryHead});
  if (z.getType().isF32())
    return z;
  return arith::ExtFOp::create(e.b, e.b.getF32Type(), z);
}

/// The output (`used`: whether the sum takes the partition at all, a NaN
/// weight included) of one partition's value: the sum starts at 0.
inline Value addWeighted(WarpEmitter &e, Value used, Value scale, Value value,
                         Value sum) {
  return e.select(used, e.addF(sum, e.mulF(scale, value)), sum);
}

/// Whether a partition of weight `w` contributes (UNE: a NaN weight, a
/// broken partial, is not skipped).
inline Value contributes(WarpEmitter &e, Value w) {
  return arith::CmpFOp::create(e.b, arith::CmpFPredicate::UNE, w, e.f32(0.0));
}

} // namespace mlir::pa::nvvm

#endif // PA_LIB_CONVERSION_PATONVVM_PARTITIONMERGE_H
