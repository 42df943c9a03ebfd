//===- DecodeLanes.h - what the decode kernel's op lowerings share -*- C++ -*-===//
//
// pa-to-mfma lowers a decode kernel op by op, a pattern per tile op
// (DecodeLowering.h lists their files). DecodeLanes is what all of them
// share: the lane ids, the workgroup memory and where each part lives in
// it, and the decisions every part follows. The driver (DecodeLowering::run)
// sets it up before the first pattern runs.
//
//===----------------------------------------------------------------------===//
#ifndef PA_CONVERSION_PATOMFMA_DECODELANES_H
#define PA_CONVERSION_PATOMFMA_DECODELANES_H

#include "LaneBuilder.h"
#include "Layouts.h"
#include "PaToMFMA.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pa::mfma {

/// Largest finite value of an fp8 type (448 OCP, 240 FNUZ).
double largestFinite(Type type);

struct DecodeLanes {
  DecodeLanes(DecodeKernel &d, const ChipInfo &chip, int64_t queryTerms)
      : d(d), s(d.shape), chip(chip), ctx(d.kernel.getContext()),
        queryTerms(queryTerms), wideQK(d.layout.getQkK() == kWideFp8K),
        f32(Float32Type::get(ctx)),
        queryOperands{d.loadQuery.getQuery(), d.loadQuery.getSequence(),
                      d.loadQuery.getKvHead(), d.loadQuery.getRowBase()},
        computeBytes(s.computeType.getIntOrFloatBitWidth() / 8),
        // Query rows in LDS, padded by 16 bytes against bank conflicts of
        // the 16-byte reads (rows 16 lanes apart would hit the same banks).
        queryRowWords(s.headDim * computeBytes / 4 + 4) {}

  DecodeKernel &d;
  const DecodeShape &s;
  const ChipInfo &chip;
  MLIRContext *ctx;
  /// The query in the compute type as a sum of this many terms, each the
  /// rounding of what the previous ones missed (1: the query alone; 2:
  /// with its residual; 3: with the residual's residual), one QK product
  /// per term; their rows follow each other in `scratch`.
  int64_t queryTerms;
  /// QK products as v_mfma_f32_16x16x128_f8f6f4 (gfx950): the fp8 query
  /// rows are kept in LDS in its order (wideQueryWord).
  bool wideQK;
  Type f32;
  /// pa.tile.load_query's operands, for the parts lowered after its
  /// pattern erased it (scorePartlySeen reads the f32 query).
  struct {
    Value query, sequence, kvHead, rowBase;
  } queryOperands;
  int64_t computeBytes, queryRowWords;
  /// i32 words of `scratch` before its zero word (the query, or the merge's
  /// wave outputs, whichever is larger).
  int64_t scratchWords = 0;

  // Buffers: `scratch` (i32) holds the query during the loop and the wave
  // outputs during the merge (plus the zero word); `stats` (f32) the query
  // scales and each wave's row maxima, sums and used-weight sums.
  Value scratch, stats;
  int64_t statsQueryScale() const { return 0; }
  /// Where the rows of the query's term `term` start in `scratch`.
  int64_t queryTermWord(int64_t term) const {
    return term * s.rows * queryRowWords;
  }
  /// The scratch word holding 0 (LaneState::queryOffset), past the rest.
  int64_t zeroWord() const { return scratchWords; }

  // Lane ids (index values at kernel entry).
  Value tid, wave, lane, rowLane, group;

  /// fp8 of an f32 vector whose values are within the fp8 range (query
  /// rows scaled to at most fp8_max, probabilities at most 2^8): the packed
  /// conversions directly (v_cvt_pk_fp8_f32), without the clamp that
  /// arith.truncf's saturating lowering adds to every element.
  Value quantizeInRange(LaneBuilder &l, Value vec) const {
    auto type = cast<VectorType>(vec.getType());
    auto quadType = VectorType::get({4}, s.computeType);
    auto wordIndex = [&](int64_t word) { return l.b.getI32IntegerAttr(word); };
    Value result;
    for (int64_t first = 0; first < type.getNumElements(); first += 4) {
      Value low = amdgpu::PackedTrunc2xFp8Op::create(
          l.b, quadType, l.extract(vec, first), l.extract(vec, first + 1),
          wordIndex(0), Value());
      Value quad = amdgpu::PackedTrunc2xFp8Op::create(
          l.b, quadType, l.extract(vec, first + 2), l.extract(vec, first + 3),
          wordIndex(1), low);
      result =
          result ? l.shuffle(result, quad,
                             llvm::to_vector(llvm::seq<int64_t>(0, first + 4)))
                 : quad;
    }
    return result;
  }
};

} // namespace mlir::pa::mfma

#endif // PA_CONVERSION_PATOMFMA_DECODELANES_H
