//===- LowerTileToLoops.cpp - pa.tile.* ops to sequential loops -----------===//
//
// The reference lowering of the tiled IR that the host executor runs: every
// pa.tile.* op of a kernel becomes scf.for loops over its tile with scalar
// memref loads and stores and arith/math ops, implementing exactly the op's
// description in PaTileOps.td.
//
// - Small-float elements (fp8, bf16, f16) are read with memref.load and
//   widened with a plain arith.extf; pa-expand-float-casts turns those into
//   bit operations for targets without native conversions.
// - The `compute` attribute of pa.tile.qk / pa.tile.pv is ignored: it tells
//   GPU backends which element type their matrix units multiply in (the
//   quantization error the spec's tolerance allows); the host computes every
//   product and sum in f32.
// - Keys and values of tokens outside an op's valid range, and block-table
//   entries of pages without a visible token, are never loaded (scf.if around
//   the loads), so garbage in unwritten cache slots cannot reach a result.
// - Token arithmetic is i64 (windows reach 2^31 - 1); it becomes index only
//   for memref indexing.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/PaOps.h"
#include "pa/Transforms/ArithEmitter.h"
#include "pa/Transforms/IntegerArithmetic.h"
#include "pa/Transforms/Passes.h"
#include "pa/Transforms/ScoreMath.h"
#include "pa/Transforms/StructuredControl.h"
#include "pa/Transforms/TileLowering.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace mlir::pa {
#define GEN_PASS_DEF_PALOWERTILETOLOOPS
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {

//===----------------------------------------------------------------------===//
// Operand checks (the op verifiers check the tile buffers; these check the
// global operands whose shapes the loops index into)
//===----------------------------------------------------------------------===//

MemRefType memrefType(Value value) { return cast<MemRefType>(value.getType()); }

/// Float elements of at most 32 bits: the element types a cache,
/// query or scale may have (widened to f32 on load).
bool isLoadableFloat(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  return floatType && floatType.getWidth() <= 32;
}

/// Checks that `value` has rank `rank` and an element type accepted by
/// `isElement` (described as `elementDesc`); `pattern` names the dims.
LogicalResult checkOperand(Operation *op, StringRef name, Value value,
                           int64_t rank, StringRef pattern,
                           function_ref<bool(Type)> isElement,
                           StringRef elementDesc) {
  MemRefType type = memrefType(value);
  if (type.getRank() == rank && isElement(type.getElementType()))
    return success();
  return op->emitOpError() << "'" << name << "' must be a " << rank << "-D "
                           << pattern << " memref of " << elementDesc
                           << ", got " << type;
}

/// Checks that dim `dim` of `value` is `expected` when it is static.
LogicalResult checkDim(Operation *op, StringRef name, Value value, int64_t dim,
                       int64_t expected, StringRef what) {
  int64_t size = memrefType(value).getDimSize(dim);
  if (ShapedType::isDynamic(size) || size == expected)
    return success();
  return op->emitOpError() << "'" << name << "' dim " << dim << " (" << what
                           << ") must be " << expected << ", got " << size;
}

LogicalResult checkFloatOperand(Operation *op, StringRef name, Value value,
                                int64_t rank, StringRef pattern) {
  return checkOperand(op, name, value, rank, pattern, isLoadableFloat,
                      "float elements of at most 32 bits");
}

/// The static last dim of a packed cache (x), or an error.
FailureOr<int64_t> packWidth(Operation *op, StringRef name, Value cache) {
  int64_t width = memrefType(cache).getShape().back();
  if (!ShapedType::isDynamic(width) && width > 0)
    return width;
  return op->emitOpError() << "'" << name
                           << "' needs a static packing width (last dim), got "
                           << memrefType(cache);
}

/// A k_scale / v_scale operand: [1] per tensor, [N, Hkv, P] per token.
LogicalResult checkScale(Operation *op, StringRef name, ScaleMode mode,
                         Value scale, int64_t pageSize) {
  switch (mode) {
  case ScaleMode::none:
    return success();
  case ScaleMode::per_tensor:
    return checkFloatOperand(op, name, scale, 1, "[1]");
  case ScaleMode::per_token:
    return failure(
        failed(checkFloatOperand(op, name, scale, 3, "[N, Hkv, P]")) ||
        failed(checkDim(op, name, scale, 2, pageSize, "page size")));
  }
  llvm_unreachable("unknown scale mode");
}

/// Checks a K or V cache operand against its layout (`vLayout` matters for
/// packed values only) and returns the packing width x of the packed dims
/// (1 where the layout has none).
FailureOr<int64_t> checkCache(Operation *op, StringRef name, Value cache,
                              CacheLayout layout, bool isKey, VLayout vLayout,
                              int64_t headDim, int64_t pageSize) {
  if (layout != CacheLayout::packed) {
    bool nhd = layout == CacheLayout::nhd;
    if (failed(checkFloatOperand(op, name, cache, 4,
                                 nhd ? "nhd [N, P, Hkv, D]"
                                     : "hnd [N, Hkv, P, D]")) ||
        failed(checkDim(op, name, cache, nhd ? 1 : 2, pageSize, "page size")) ||
        failed(checkDim(op, name, cache, 3, headDim, "head dim")))
      return failure();
    return int64_t{1};
  }
  if (!isKey && vLayout == VLayout::plain) {
    if (failed(checkFloatOperand(op, name, cache, 4, "plain [N, Hkv, D, P]")) ||
        failed(checkDim(op, name, cache, 2, headDim, "head dim")) ||
        failed(checkDim(op, name, cache, 3, pageSize, "page size")))
      return failure();
    return int64_t{1};
  }
  if (failed(checkFloatOperand(op, name, cache, 5,
                               isKey ? "[N, Hkv, D/x, P, x]"
                                     : "transposed [N, Hkv, P/x, D, x]")))
    return failure();
  FailureOr<int64_t> pack = packWidth(op, name, cache);
  if (failed(pack))
    return failure();
  if (isKey) {
    if (headDim % *pack != 0)
      return op->emitOpError() << "head dim " << headDim
                               << " is not a multiple of the key packing width "
                               << *pack;
    if (failed(checkDim(op, name, cache, 2, headDim / *pack, "D/x")) ||
        failed(checkDim(op, name, cache, 3, pageSize, "page size")))
      return failure();
    return pack;
  }
  if (pageSize % *pack != 0)
    return op->emitOpError() << "page size " << pageSize
                             << " is not a multiple of the value packing width "
                             << *pack;
  if (failed(checkDim(op, name, cache, 2, pageSize / *pack, "P/x")) ||
      failed(checkDim(op, name, cache, 3, headDim, "head dim")))
    return failure();
  return pack;
}

//===----------------------------------------------------------------------===//
// Loop emission
//===----------------------------------------------------------------------===//

/// Emits scalar loops and arithmetic at the builder's insertion point.
/// Structured-control helpers run their body callbacks with `b` positioned in
/// the new region, so callbacks keep using `b`. Constants are created once
/// per lowered op, ahead of everything it emits (so they dominate its loops).
class LoopEmitter : public ArithEmitter {
public:
  explicit LoopEmitter(ImplicitLocOpBuilder &b) : ArithEmitter(b) {
    auto zero = arith::ConstantIndexOp::create(b, 0);
    constants[zero.getValue()] = zero;
    constantsEnd = zero;
  }

  Value constant(TypedAttr value) {
    auto [it, inserted] = constants.try_emplace(value);
    if (inserted) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(constantsEnd);
      it->second = arith::ConstantOp::create(b, value);
    }
    return it->second;
  }
  Value index(int64_t value) { return constant(b.getIndexAttr(value)); }
  Value i64(int64_t value) { return constant(b.getI64IntegerAttr(value)); }
  Value i32(int32_t value) { return constant(b.getI32IntegerAttr(value)); }
  Value f32(float value) { return constant(b.getF32FloatAttr(value)); }
  Value negInf() { return f32(-std::numeric_limits<float>::infinity()); }
  /// Quotient and remainder of non-negative index values.
  Value divU(Value x, Value y) { return arith::DivUIOp::create(b, x, y); }
  Value remU(Value x, Value y) { return arith::RemUIOp::create(b, x, y); }
  Value nanIfNotFinite(Value x) {
    return buildNaNIfNotFinite(b, b.getLoc(), x, f32(0.0f));
  }

  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(b, memref, indices);
  }
  /// An element widened to f32 (arith.extf for narrower floats).
  Value loadF32(Value memref, ValueRange indices) {
    Value element = load(memref, indices);
    if (element.getType().isF32())
      return element;
    return extF(b.getF32Type(), element);
  }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(b, value, memref, indices);
  }

  /// for iv in [0, count) { body(iv) }
  void forEach(int64_t count, function_ref<void(Value)> body) {
    scf::ForOp::create(b, index(0), index(count), index(1), ValueRange{},
                       [&](OpBuilder &, Location, Value iv, ValueRange) {
                         body(iv);
                         scf::YieldOp::create(b);
                       });
  }

  /// for iv in [0, count) with one loop-carried value: `step(iv, carried)`
  /// returns the next value; returns the final one.
  Value fold(int64_t count, Value init, function_ref<Value(Value, Value)> step) {
    auto loop = scf::ForOp::create(
        b, index(0), index(count), index(1), ValueRange{init},
        [&](OpBuilder &, Location, Value iv, ValueRange carried) {
          scf::YieldOp::create(b, ValueRange{step(iv, carried.front())});
        });
    return loop.getResult(0);
  }

  /// buildIf and buildIfValue (StructuredControl.h) at this emitter.
  void ifThen(Value cond, function_ref<void()> thenBody,
              function_ref<void()> elseBody = nullptr) {
    buildIf(b, cond, thenBody, elseBody);
  }
  Value ifValue(Value cond, function_ref<Value()> thenValue,
                function_ref<Value()> elseValue) {
    return buildIfValue(b, cond, thenValue, elseValue);
  }

private:
  DenseMap<Attribute, Value> constants;
  Operation *constantsEnd;
};

/// The page id (index) and slot of tile column `column` (index) read from the
/// tile's page-id vector; a page larger than a tile holds the tile at slot
/// tile_start % P.
std::pair<Value, Value> pageAndSlot(LoopEmitter &e, Value pageIds,
                                    int64_t pageSize, Value tileStart,
                                    Value column) {
  if (pageSize > kTileTokens) {
    Value id = vector::ExtractOp::create(e.b, pageIds, OpFoldResult(e.index(0)));
    Value firstSlot =
        e.toIndex(arith::RemUIOp::create(e.b, tileStart, e.i64(pageSize)));
    return {e.toIndex(id), e.addI(firstSlot, column)};
  }
  Value pageSizeIndex = e.index(pageSize);
  Value pageIndex = e.divU(column, pageSizeIndex);
  Value id = vector::ExtractOp::create(e.b, pageIds, OpFoldResult(pageIndex));
  return {e.toIndex(id), e.remU(column, pageSizeIndex)};
}

/// The dequantization scale of the token at (page, slot) of `kvHead`.
Value tokenScale(LoopEmitter &e, ScaleMode mode, Value scale, Value page,
                 Value kvHead, Value slot) {
  switch (mode) {
  case ScaleMode::none:
    return e.f32(1.0f);
  case ScaleMode::per_tensor:
    return e.loadF32(scale, {e.index(0)});
  case ScaleMode::per_token:
    return e.loadF32(scale, {page, kvHead, slot});
  }
  llvm_unreachable("unknown scale mode");
}

/// Calls `body(column, page, slot)` for every column of the 256-token tile at
/// absolute token `tileStart` whose token lies in [validBegin, validEnd); the
/// columns outside read nothing and run `invalidBody(column)` if given.
void forEachValidColumn(LoopEmitter &e, Value pageIds, int64_t pageSize,
                        Value tileStart, Value validBegin, Value validEnd,
                        function_ref<void(Value, Value, Value)> body,
                        function_ref<void(Value)> invalidBody = nullptr) {
  e.forEach(kTileTokens, [&](Value column) {
    Value token = e.addI(tileStart, e.toI64(column));
    auto validColumn = [&] {
      auto [page, slot] = pageAndSlot(e, pageIds, pageSize, tileStart, column);
      body(column, page, slot);
    };
    auto invalidColumn = [&] { invalidBody(column); };
    e.ifThen(e.inRange(token, validBegin, validEnd), validColumn,
             invalidBody ? function_ref<void()>(invalidColumn) : nullptr);
  });
}

int64_t dimSize(Value memref, unsigned dim) {
  return memrefType(memref).getDimSize(dim);
}

//===----------------------------------------------------------------------===//
// One function per tile op
//===----------------------------------------------------------------------===//

/// ids[k] = buildVisiblePageId(k), built by vector.insert in a loop.
LogicalResult lowerPageIds(TilePageIdsOp op, LoopEmitter &e) {
  auto idsType = cast<VectorType>(op.getPageIds().getType());
  ImplicitLocOpBuilder &b = e.b;
  auto constant = [&](TypedAttr value) { return e.constant(value); };
  TilePageRange range =
      buildTilePageRange(b, b.getLoc(), op, op.getTile(), constant);
  Value zeros = e.constant(cast<TypedAttr>(b.getZeroAttr(idsType)));
  auto loop = scf::ForOp::create(
      b, e.index(0), e.index(pagesPerTile(op.getPageSize())), e.index(1),
      ValueRange{zeros},
      [&](OpBuilder &nested, Location loc, Value k, ValueRange carried) {
        Value id = buildVisiblePageId(nested, loc, op, range, k, constant);
        Value ids = vector::InsertOp::create(b, id, carried.front(),
                                             OpFoldResult(k));
        scf::YieldOp::create(b, ValueRange{ids});
      });
  op.getPageIds().replaceAllUsesWith(loop.getResult(0));
  return success();
}

/// query_tile[m][d] = query[seq * Q + r / G][kv_head * G + r % G][d] for rows
/// r = row_base + m < Q * G, and 0 for padding rows; a row holding a NaN or
/// infinity becomes NaN as a whole (plus sum_d 0 * q_d).
LogicalResult lowerLoadQuery(TileLoadQueryOp op, LoopEmitter &e) {
  Value query = op.getQuery();
  Value tile = op.getQueryTile();
  int64_t headDim = dimSize(tile, 1);
  int64_t queryLength = op.getQueryLength();
  int64_t groupSize = op.getGroupSize();
  Value group = e.index(groupSize);
  e.forEach(dimSize(tile, 0), [&](Value m) {
    Value row = e.addI(op.getRowBase(), m);
    Value isQueryRow = e.cmpI(arith::CmpIPredicate::ult, row,
                              e.index(queryLength * groupSize));
    e.ifThen(
        isQueryRow,
        [&] {
          Value queryRow = e.addI(e.mulI(op.getSequence(), e.index(queryLength)),
                                  e.divU(row, group));
          Value head = e.addI(e.mulI(op.getKvHead(), group), e.remU(row, group));
          e.forEach(headDim, [&](Value d) {
            e.store(e.loadF32(query, {queryRow, head, d}), tile, {m, d});
          });
          Value zero = e.f32(0.0f);
          Value poison = e.fold(headDim, zero, [&](Value d, Value sum) {
            return e.addF(sum, e.mulF(e.load(tile, {m, d}), zero));
          });
          e.forEach(headDim, [&](Value d) {
            e.store(e.addF(e.load(tile, {m, d}), poison), tile, {m, d});
          });
        },
        [&] {
          Value zero = e.f32(0.0f);
          e.forEach(headDim, [&](Value d) { e.store(zero, tile, {m, d}); });
        });
  });
  return success();
}

/// row_max = -inf, row_sum = 0, acc = 0.
LogicalResult lowerInitSoftmax(TileInitSoftmaxOp op, LoopEmitter &e) {
  Value acc = op.getAcc();
  Value negInf = e.negInf();
  Value zero = e.f32(0.0f);
  e.forEach(dimSize(acc, 0), [&](Value m) {
    e.store(negInf, op.getRowMax(), {m});
    e.store(zero, op.getRowSum(), {m});
    e.forEach(dimSize(acc, 1), [&](Value d) { e.store(zero, acc, {m, d}); });
  });
  return success();
}

/// scores[m][t] = score_scale * k_scale(t) * dot(query_tile[m], K_t), then
/// soft-capped when the op says so, for the valid columns t (column-major: a column's keys are read by one iteration
/// of the column loop), 0 for the others, whose keys are never read.
LogicalResult lowerQK(TileQKOp op, LoopEmitter &e) {
  Value queryTile = op.getQueryTile();
  Value scores = op.getScores();
  int64_t rows = dimSize(queryTile, 0);
  int64_t headDim = dimSize(queryTile, 1);
  FailureOr<int64_t> pack =
      checkCache(op, "key_cache", op.getKeyCache(), op.getCacheLayout(),
                 /*isKey=*/true, VLayout::plain, headDim, op.getPageSize());
  if (failed(pack) || failed(checkScale(op, "k_scale", op.getScale(),
                                        op.getKScale(), op.getPageSize())))
    return failure();
  Value keyCache = op.getKeyCache();
  Value kvHead = op.getKvHead();
  auto constant = [&](TypedAttr value) { return e.constant(value); };
  Value zero = e.f32(0.0f);
  Value scoreScale = e.f32(op.getScoreScale().convertToFloat());
  std::optional<float> softCap;
  if (std::optional<APFloat> cap = op.getSoftCap())
    softCap = cap->convertToFloat();

  forEachValidColumn(
      e, op.getPageIds(), op.getPageSize(), op.getTileStart(),
      op.getValidBegin(), op.getValidEnd(),
      [&](Value column, Value page, Value slot) {
        Value columnScale = e.mulF(
            scoreScale,
            tokenScale(e, op.getScale(), op.getKScale(), page, kvHead, slot));
        e.forEach(rows, [&](Value m) {
          Value dot = e.fold(headDim, zero, [&](Value d, Value sum) {
            Value key = e.loadF32(
                keyCache, buildCacheElementIndices(
                              e.b, e.b.getLoc(), op.getCacheLayout(),
                              CacheOperand::key, VLayout::plain, *pack, page,
                              kvHead, slot, d, constant));
            return e.addF(sum, e.mulF(e.load(queryTile, {m, d}), key));
          });
          // A score that is not finite (a non-finite K element or scale)
          // is NaN, so that a real -inf makes its row NaN instead of
          // weighing 0 like a masked one; before the soft cap, which would
          // map +-inf to +-cap.
          Value score = e.nanIfNotFinite(e.mulF(dot, columnScale));
          if (softCap)
            score = emitSoftCap(e.b, score, *softCap, /*fastReciprocal=*/false);
          e.store(score, scores, {m, column});
        });
      },
      [&](Value column) {
        e.forEach(rows, [&](Value m) { e.store(zero, scores, {m, column}); });
      });
  return success();
}

/// scores[m][t] += log2(e) * slope(h) * (token - (C - Q + q)) for every row
/// and column (the softmax masks the columns a row does not see).
LogicalResult lowerAlibi(TileAlibiOp op, LoopEmitter &e) {
  Value scores = op.getScores();
  const int64_t groupSize = op.getGroupSize();
  ImplicitLocOpBuilder &b = e.b;
  e.forEach(dimSize(scores, 0), [&](Value m) {
    Value row = e.addI(op.getRowBase(), m);
    Value head = e.addI(e.mulI(op.getKvHead(), e.index(groupSize)),
                        e.remU(row, e.index(groupSize)));
    Value position = e.toI64(e.divU(row, e.index(groupSize)));
    // The row's own token C - Q + q is the last one it sees.
    Value own = e.subI(buildVisibleEnd(b, b.getLoc(), op.getContextLength(),
                                       op.getQueryLength(), position),
                       e.i64(1));
    Value slope = emitAlibiSlopeExp2(b, e.load(op.getAlibiSlopes(), {head}));
    e.forEach(kTileTokens, [&](Value t) {
      Value token = e.addI(op.getTileStart(), e.toI64(t));
      e.store(emitAlibiBias(b, e.load(scores, {m, t}), slope,
                            e.subI(token, own)),
              scores, {m, t});
    });
  });
  return success();
}

/// Masks the tile's scores by selection to -inf and updates the online
/// softmax in the exp2 domain; scores become p (a real -inf score is NaN
/// already: lowerQK). Guards: a row whose new maximum is -inf keeps alpha = 1 and gets p = 0;
/// exp2 never sees -inf - -inf.
LogicalResult lowerSoftmax(TileSoftmaxOp op, LoopEmitter &e) {
  Value scores = op.getScores();
  Value rowMax = op.getRowMax();
  Value rowSum = op.getRowSum();
  Value acc = op.getAcc();
  int64_t queryLength = op.getQueryLength();
  int64_t groupSize = op.getGroupSize();
  int64_t window = op.getSlidingWindow();
  ImplicitLocOpBuilder &b = e.b;
  Value negInf = e.negInf();
  Value zero = e.f32(0.0f);

  e.forEach(dimSize(scores, 0), [&](Value m) {
    // Visible tokens of row r (MTP position q = r / G): [begin, end) with
    // end = C - Q + 1 + q and begin = max(0, end - W) for a window W > 0;
    // padding rows r >= Q * G see nothing.
    Value row = e.toI64(e.addI(op.getRowBase(), m));
    Value isQueryRow =
        e.cmpI(arith::CmpIPredicate::slt, row, e.i64(queryLength * groupSize));
    Value position = arith::DivSIOp::create(b, row, e.i64(groupSize));
    Value end = buildVisibleEnd(b, b.getLoc(), op.getContextLength(),
                                queryLength, position);
    Value begin = buildVisibleBegin(b, b.getLoc(), end, window, /*clamp=*/true);

    // Pass 1: mask by selection (garbage in masked columns never
    // propagates) and take the tile's row maximum.
    Value tileMax = e.fold(kTileTokens, negInf, [&](Value t, Value runningMax) {
      Value token = e.addI(op.getTileStart(), e.toI64(t));
      Value visible = e.andI(isQueryRow, e.inRange(token, begin, end));
      Value masked = e.select(visible, e.load(scores, {m, t}), negInf);
      e.store(masked, scores, {m, t});
      return e.maxF(runningMax, masked);
    });
    Value oldMax = e.load(rowMax, {m});
    Value newMax = e.maxF(oldMax, tileMax);
    // With newMax = -inf (so oldMax = -inf too) shift by 0: alpha = exp2(0)
    // = 1 and p = exp2(-inf - 0) = 0.
    Value nothingSeen = e.eqF(newMax, negInf);
    Value alpha = math::Exp2Op::create(
        b, e.select(nothingSeen, zero, e.subF(oldMax, newMax)));
    Value shift = e.select(nothingSeen, zero, newMax);

    // Pass 2: p = exp2(s - m'), its sum, and p written over the scores.
    Value tileSum = e.fold(kTileTokens, zero, [&](Value t, Value sum) {
      Value p = math::Exp2Op::create(b, e.subF(e.load(scores, {m, t}), shift));
      e.store(p, scores, {m, t});
      return e.addF(sum, p);
    });
    e.store(e.addF(e.mulF(e.load(rowSum, {m}), alpha), tileSum), rowSum, {m});
    e.store(newMax, rowMax, {m});
    e.forEach(dimSize(acc, 1), [&](Value d) {
      e.store(e.mulF(e.load(acc, {m, d}), alpha), acc, {m, d});
    });
  });
  return success();
}

/// acc[m][d] += p[m][t] * v_scale(t) * V_t[d] over the valid columns t only
/// (others are skipped entirely, so their values are never read); each
/// value element is loaded once. A row whose p is 0 (a token it does not
/// see) adds exactly 0: a non-finite value or scale of the token must not
/// reach it through 0 * NaN.
LogicalResult lowerPV(TilePVOp op, LoopEmitter &e) {
  Value probs = op.getProbs();
  Value acc = op.getAcc();
  int64_t rows = dimSize(acc, 0);
  int64_t headDim = dimSize(acc, 1);
  FailureOr<int64_t> pack = checkCache(
      op, "value_cache", op.getValueCache(), op.getCacheLayout(),
      /*isKey=*/false, op.getVLayout(), headDim, op.getPageSize());
  if (failed(pack) || failed(checkScale(op, "v_scale", op.getScale(),
                                        op.getVScale(), op.getPageSize())))
    return failure();
  Value valueCache = op.getValueCache();
  Value kvHead = op.getKvHead();
  auto constant = [&](TypedAttr value) { return e.constant(value); };

  forEachValidColumn(
      e, op.getPageIds(), op.getPageSize(), op.getTileStart(),
      op.getValidBegin(), op.getValidEnd(),
      [&](Value column, Value page, Value slot) {
        Value scale =
            tokenScale(e, op.getScale(), op.getVScale(), page, kvHead, slot);
        e.forEach(headDim, [&](Value d) {
          Value value = e.loadF32(
              valueCache, buildCacheElementIndices(
                              e.b, e.b.getLoc(), op.getCacheLayout(),
                              CacheOperand::value, op.getVLayout(), *pack,
                              page, kvHead, slot, d, constant));
          e.forEach(rows, [&](Value m) {
            Value p = e.load(probs, {m, column});
            Value term = e.mulF(e.mulF(p, scale), value);
            Value unseen = e.eqF(p, e.f32(0.0f));
            Value sum = e.addF(e.load(acc, {m, d}),
                               e.select(unseen, e.f32(0.0f), term));
            e.store(sum, acc, {m, d});
          });
        });
      });
  return success();
}

/// For rows r = row_base + m < rows: max_logits = row_max * ln(2) (natural-log
/// units), exp_sums = row_sum, tmp_out = acc / row_sum; a row with row_sum =
/// 0 writes -inf, 0, 0 (by selection, the division's NaN never escapes); a
/// NaN row_sum writes max_logits = NaN; a tmp_out element that is not
/// finite (an infinite value or v_scale reached it) is NaN.
LogicalResult lowerStorePartials(TileStorePartialsOp op, LoopEmitter &e) {
  // Ranks and element types: PaTileOps.td.
  Value acc = op.getAcc();
  int64_t headDim = dimSize(acc, 1);
  if (failed(checkDim(op, "tmp_out", op.getTmpOut(), 3, headDim, "head dim")))
    return failure();
  Value negInf = e.negInf();
  Value zero = e.f32(0.0f);
  Value ln2 = e.f32(llvm::numbers::ln2f);
  Value kvHead = op.getKvHead();
  Value slot = op.getSlot();

  e.forEach(dimSize(acc, 0), [&](Value m) {
    Value row = e.addI(op.getRowBase(), m);
    e.ifThen(e.cmpI(arith::CmpIPredicate::ult, row, e.index(op.getRows())), [&] {
      Value sum = e.load(op.getRowSum(), {m});
      Value empty = e.eqF(sum, zero);
      Value maxLogit =
          e.select(empty, negInf, e.mulF(e.load(op.getRowMax(), {m}), ln2));
      Value reachedByNaN = arith::CmpFOp::create(
          e.b, arith::CmpFPredicate::UNO, sum, sum);
      maxLogit = e.select(reachedByNaN, sum, maxLogit);
      e.store(maxLogit, op.getMaxLogits(), {kvHead, slot, row});
      e.store(e.select(empty, zero, sum), op.getExpSums(), {kvHead, slot, row});
      e.forEach(headDim, [&](Value d) {
        Value normalized =
            e.nanIfNotFinite(e.divF(e.load(acc, {m, d}), sum));
        e.store(e.select(empty, zero, normalized), op.getTmpOut(),
                {kvHead, slot, row, d});
      });
    });
  });
  return success();
}

struct PaLowerTileToLoopsPass
    : pa::impl::PaLowerTileToLoopsBase<PaLowerTileToLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> tileOps;
    getOperation()->walk([&](Operation *op) {
      if (isa<TilePageIdsOp, TileLoadQueryOp, TileInitSoftmaxOp, TileQKOp,
              TileAlibiOp, TileSoftmaxOp, TilePVOp, TileStorePartialsOp>(op))
        tileOps.push_back(op);
    });
    bool failedAny = false;
    for (Operation *op : tileOps) {
      ImplicitLocOpBuilder builder(op->getLoc(), op);
      LoopEmitter emitter(builder);
      LogicalResult lowered =
          llvm::TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](TilePageIdsOp tileOp) { return lowerPageIds(tileOp, emitter); })
              .Case([&](TileLoadQueryOp tileOp) { return lowerLoadQuery(tileOp, emitter); })
              .Case([&](TileInitSoftmaxOp tileOp) { return lowerInitSoftmax(tileOp, emitter); })
              .Case([&](TileQKOp tileOp) { return lowerQK(tileOp, emitter); })
              .Case([&](TileAlibiOp tileOp) { return lowerAlibi(tileOp, emitter); })
              .Case([&](TileSoftmaxOp tileOp) { return lowerSoftmax(tileOp, emitter); })
              .Case([&](TilePVOp tileOp) { return lowerPV(tileOp, emitter); })
              .Case([&](TileStorePartialsOp tileOp) {
                return lowerStorePartials(tileOp, emitter);
              });
      if (failed(lowered)) {
        failedAny = true;
        continue;
      }
      op->erase();
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace

TilePageRange mlir::pa::buildTilePageRange(OpBuilder &builder, Location loc,
                                           TilePageIdsOp op, Value tile,
                                           ConstantBuilder constant) {
  ImplicitLocOpBuilder b(loc, builder);
  const int64_t pageSize = op.getPageSize();
  Value firstPage =
      pageSize > kTileTokens
          ? arith::DivUIOp::create(
                b, tile, constant(b.getIndexAttr(pageSize / kTileTokens)))
                .getResult()
          : arith::MulIOp::create(
                b, tile, constant(b.getIndexAttr(pagesPerTile(pageSize))))
                .getResult();
  // The first token of the tile's first page (of the tile itself when pages
  // are at most a tile long).
  Value pageTile = pageSize > kTileTokens
                       ? arith::MulIOp::create(
                             b, firstPage,
                             constant(b.getIndexAttr(pageSize / kTileTokens)))
                             .getResult()
                       : tile;
  Value tile64 = arith::IndexCastOp::create(b, b.getI64Type(), pageTile);
  Value firstToken = arith::MulIOp::create(
      b, tile64, constant(b.getI64IntegerAttr(kTileTokens)));
  return {firstPage, firstToken};
}

Value mlir::pa::buildVisibleEnd(OpBuilder &builder, Location loc,
                                Value contextLength, int64_t queryLength,
                                Value position) {
  IntegerArithmetic m(builder, loc);
  Value firstEnd = m.sub(contextLength, m.i64(queryLength - 1));
  if (!position)
    return firstEnd;
  return m.add(firstEnd, position);
}

Value mlir::pa::buildVisibleBegin(OpBuilder &builder, Location loc, Value end,
                                  int64_t window, bool clamp) {
  IntegerArithmetic m(builder, loc);
  if (window <= 0)
    return clamp ? m.i64(0) : Value();
  Value begin = m.sub(end, m.i64(window));
  if (!clamp)
    return begin;
  return m.max(begin, m.i64(0));
}

Value mlir::pa::buildVisiblePageId(OpBuilder &builder, Location loc,
                                   TilePageIdsOp op, TilePageRange range,
                                   Value k, ConstantBuilder constant) {
  ImplicitLocOpBuilder b(loc, builder);
  Value pageSize = constant(b.getI64IntegerAttr(op.getPageSize()));
  // Page k holds tokens [pageBegin, pageBegin + P); it has a visible token
  // when max(pageBegin, begin) < min(pageBegin + P, end).
  Value k64 = arith::IndexCastOp::create(b, b.getI64Type(), k);
  Value pageBegin = arith::AddIOp::create(
      b, range.firstToken, arith::MulIOp::create(b, k64, pageSize));
  Value pageEnd = arith::AddIOp::create(b, pageBegin, pageSize);
  Value overlapBegin = arith::MaxSIOp::create(b, pageBegin, op.getVisibleBegin());
  Value overlapEnd = arith::MinSIOp::create(b, pageEnd, op.getVisibleEnd());
  Value visible = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                        overlapBegin, overlapEnd);
  return buildBlockTableReadIf(
      b, loc, op, visible, constant(b.getI32IntegerAttr(0)),
      [&](OpBuilder &nested, Location nestedLoc) -> Value {
        return arith::AddIOp::create(nested, nestedLoc, range.firstPage, k);
      });
}

Value mlir::pa::buildBlockTableReadIf(
    OpBuilder &builder, Location loc, TilePageIdsOp op, Value visible,
    Value zero, function_ref<Value(OpBuilder &, Location)> buildColumn) {
  auto read = scf::IfOp::create(
      builder, loc, visible,
      [&](OpBuilder &nested, Location nestedLoc) {
        Value column = buildColumn(nested, nestedLoc);
        Value id = memref::LoadOp::create(nested, nestedLoc, op.getBlockTables(),
                                          ValueRange{op.getSequence(), column});
        scf::YieldOp::create(nested, nestedLoc, id);
      },
      [&](OpBuilder &nested, Location nestedLoc) {
        scf::YieldOp::create(nested, nestedLoc, zero);
      });
  return read.getResult(0);
}

Value mlir::pa::buildNaNIfNotFinite(OpBuilder &builder, Location loc,
                                    Value x, Value zeros) {
  if (!zeros)
    zeros = arith::ConstantOp::create(builder, loc,
                                      builder.getZeroAttr(x.getType()));
  return math::FmaOp::create(builder, loc, x, zeros, x);
}

SmallVector<Value, 5> mlir::pa::buildCacheElementIndices(
    OpBuilder &builder, Location loc, CacheLayout layout, CacheOperand operand,
    VLayout vLayout, int64_t pack, Value page, Value kvHead, Value slot,
    Value d, ConstantBuilder constant) {
  ImplicitLocOpBuilder b(loc, builder);
  auto split = [&](Value v) -> std::pair<Value, Value> {
    Value width = constant(b.getIndexAttr(pack));
    return {arith::DivUIOp::create(b, v, width),
            arith::RemUIOp::create(b, v, width)};
  };
  switch (layout) {
  case CacheLayout::nhd:
    return {page, slot, kvHead, d};
  case CacheLayout::hnd:
    return {page, kvHead, slot, d};
  case CacheLayout::packed:
    break;
  }
  if (operand == CacheOperand::key) {
    auto [group, lane] = split(d); // [N, Hkv, D/x, P, x]
    return {page, kvHead, group, slot, lane};
  }
  if (vLayout == VLayout::plain)
    return {page, kvHead, d, slot}; // [N, Hkv, D, P]
  auto [group, lane] = split(slot); // [N, Hkv, P/x, D, x]
  return {page, kvHead, group, d, lane};
}

LogicalResult mlir::pa::lowerTilePageIdsToLoop(TilePageIdsOp op) {
  ImplicitLocOpBuilder builder(op->getLoc(), op);
  LoopEmitter emitter(builder);
  if (failed(lowerPageIds(op, emitter)))
    return failure();
  op->erase();
  return success();
}
