//===- TiledDecode.cpp - the tiled decode kernel both GPU backends take ---===//
#include "pa/Transforms/TiledDecode.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::pa;

namespace {

/// Collects the ops of type OpTy in `kernel`.
template <typename OpTy>
SmallVector<OpTy> collect(gpu::GPUFuncOp kernel) {
  SmallVector<OpTy> found;
  kernel.walk([&](OpTy op) { found.push_back(op); });
  return found;
}

/// The one op of type OpTy in `kernel` into `slot`; false, reporting how
/// many there are, otherwise.
template <typename OpTy>
bool matchSingle(gpu::GPUFuncOp kernel, StringRef pass,
                 ContractViolation violation, OpTy &slot) {
  SmallVector<OpTy> found = collect<OpTy>(kernel);
  if (found.size() == 1) {
    slot = found.front();
    return true;
  }
  violation(kernel, pass + " expects exactly one '" +
                        OpTy::getOperationName() +
                        "' in a decode kernel, found " +
                        Twine(found.size()));
  return false;
}

bool isWorkgroupAttribution(gpu::GPUFuncOp kernel, Value buffer) {
  auto arg = dyn_cast<BlockArgument>(buffer);
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return arg && type &&
         gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type) &&
         llvm::is_contained(kernel.getWorkgroupAttributions(), arg);
}

} // namespace

bool mlir::pa::usedByTileOpsOnly(Value buffer) {
  return llvm::all_of(buffer.getUsers(), [](Operation *user) {
    return isa<TileLoadQueryOp, TileInitSoftmaxOp, TileQKOp, TileAlibiOp,
               TileSoftmaxOp, TilePVOp, TileStorePartialsOp>(user);
  });
}

bool mlir::pa::hasTileOps(gpu::GPUFuncOp kernel) {
  return kernel
      .walk([](Operation *op) {
        return op->getName().getStringRef().starts_with("pa.tile.")
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

FailureOr<TiledDecode> mlir::pa::matchTiledDecode(gpu::GPUFuncOp kernel,
                                                  StringRef pass,
                                                  ContractViolation violation) {
  TiledDecode d;
  if (!matchSingle(kernel, pass, violation, d.loadQuery) ||
      !matchSingle(kernel, pass, violation, d.initSoftmax) ||
      !matchSingle(kernel, pass, violation, d.qk) ||
      !matchSingle(kernel, pass, violation, d.softmax) ||
      !matchSingle(kernel, pass, violation, d.pv) ||
      !matchSingle(kernel, pass, violation, d.storePartials))
    return failure();
  SmallVector<TileAlibiOp> alibis = collect<TileAlibiOp>(kernel);
  if (alibis.size() > 1) {
    violation(kernel, pass + " expects at most one 'pa.tile.alibi' in a "
                             "decode kernel, found " +
                          Twine(alibis.size()));
    return failure();
  }
  if (!alibis.empty())
    d.alibi = alibis.front();

  // qk, softmax, pv directly in the tile loop, in order, on one tile.
  d.tileLoop = dyn_cast<scf::ForOp>(d.qk->getParentOp());
  if (!d.tileLoop || d.softmax->getParentOp() != d.tileLoop ||
      d.pv->getParentOp() != d.tileLoop ||
      !d.qk->isBeforeInBlock(d.softmax) || !d.softmax->isBeforeInBlock(d.pv)) {
    violation(d.qk, pass + " expects pa.tile.qk, pa.tile.softmax and "
                           "pa.tile.pv, in that order, directly in the tile "
                           "loop");
    return failure();
  }
  if (!d.tileLoop.getInitArgs().empty()) {
    violation(d.tileLoop,
              pass + " expects a tile loop without loop-carried values");
    return failure();
  }
  if (d.softmax.getTileStart() != d.qk.getTileStart() ||
      d.pv.getTileStart() != d.qk.getTileStart() ||
      d.pv.getPageIds() != d.qk.getPageIds()) {
    violation(d.pv, pass + " expects pa.tile.qk, pa.tile.softmax and "
                           "pa.tile.pv on one tile (one tile start, the "
                           "same page ids in qk and pv)");
    return failure();
  }

  // The prologue ops, the tile loop and the store in one block, in order.
  Block *block = d.tileLoop->getBlock();
  Operation *sequence[] = {d.loadQuery, d.initSoftmax, d.tileLoop,
                           d.storePartials};
  for (Operation *op : sequence)
    if (op->getBlock() != block) {
      violation(op, pass + " expects the query load, softmax init, tile "
                           "loop and partial store in one block");
      return failure();
    }
  for (int i = 0; i + 1 < 4; ++i)
    if (!sequence[i]->isBeforeInBlock(sequence[i + 1])) {
      violation(sequence[i + 1],
                pass + " expects the query load, softmax init, tile loop "
                       "and partial store in that order");
      return failure();
    }

  // The tile buffers: shared by the ops, workgroup attributions, used by
  // the tile ops only (so the lowering may replace them).
  Value queryTile = d.loadQuery.getQueryTile();
  Value scores = d.qk.getScores();
  Value rowMax = d.initSoftmax.getRowMax(), rowSum = d.initSoftmax.getRowSum();
  Value acc = d.initSoftmax.getAcc();
  if (d.qk.getQueryTile() != queryTile || d.softmax.getScores() != scores ||
      d.pv.getProbs() != scores || d.softmax.getRowMax() != rowMax ||
      d.softmax.getRowSum() != rowSum || d.softmax.getAcc() != acc ||
      d.pv.getAcc() != acc || d.storePartials.getRowMax() != rowMax ||
      d.storePartials.getRowSum() != rowSum ||
      d.storePartials.getAcc() != acc) {
    violation(d.qk, pass + " expects the tile ops to share their tile "
                           "buffers (query tile, scores, row max, row sum, "
                           "accumulator)");
    return failure();
  }
  for (Value buffer : {queryTile, scores, rowMax, rowSum, acc}) {
    if (!isWorkgroupAttribution(kernel, buffer) || !usedByTileOpsOnly(buffer)) {
      violation(d.qk, pass + " expects each tile buffer to be a workgroup "
                             "attribution used by the tile ops only");
      return failure();
    }
  }

  // ALiBi: between qk and softmax on the scores, for the softmax's rows and
  // tile and the qk's KV head (the backends compute the bias from those).
  if (TileAlibiOp alibi = d.alibi;
      alibi &&
      (alibi->getParentOp() != d.tileLoop || !d.qk->isBeforeInBlock(alibi) ||
       !alibi->isBeforeInBlock(d.softmax) || alibi.getScores() != scores ||
       alibi.getContextLength() != d.softmax.getContextLength() ||
       alibi.getTileStart() != d.softmax.getTileStart() ||
       alibi.getRowBase() != d.softmax.getRowBase() ||
       alibi.getKvHead() != d.qk.getKvHead() ||
       alibi.getQueryLength() != d.softmax.getQueryLength() ||
       alibi.getGroupSize() != d.softmax.getGroupSize())) {
    violation(alibi, pass + " expects pa.tile.alibi between pa.tile.qk and "
                            "pa.tile.softmax, on their scores, rows, tile "
                            "and KV head");
    return failure();
  }
  return d;
}

std::optional<SmallVector<Operation *>>
mlir::pa::tileKeyPlaceOps(const TiledDecode &d) {
  scf::ForOp old = d.tileLoop;
  TileQKOp qk = d.qk;
  BackwardSliceOptions options;
  options.inclusive = true;
  // The staged-or-direct branch of the page ids reads values of the body.
  options.omitUsesFromAbove = false;
  options.filter = [&](Operation *op) {
    return old.getBody()->findAncestorOpInBlock(*op) != nullptr;
  };
  SetVector<Operation *> slice;
  for (Value root : {Value(qk.getPageIds()), Value(qk.getTileStart())})
    if (Operation *def = root.getDefiningOp();
        def && def->getBlock() == old.getBody() &&
        failed(getBackwardSlice(def, &slice, options)))
      return std::nullopt;
  // Copied once more per step: only ops that write nothing (a store of
  // another kind in the tiled body would be made twice; an op of unknown
  // effects counts as writing).
  SmallVector<Operation *> ops;
  for (Operation &op : old.getBody()->without_terminator()) {
    if (!slice.contains(&op))
      continue;
    if (op.walk([&](Operation *inner) {
            return mightHaveEffect<MemoryEffects::Write>(inner)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          }).wasInterrupted())
      return std::nullopt;
    ops.push_back(&op);
  }
  return ops;
}
