//===- StagePageIds.cpp - page ids through workgroup memory ---------------===//
//
// A decode workgroup reads the page ids of each KV tile it visits. This pass
// copies the ids of the tiles it will visit (at most `max-staged` ids, whole
// tiles) from the block table into workgroup memory once, before the tile
// loop, and turns each per-tile read into one vector-width load from there.
// Tiles past the staged bound read the block table directly. Staging and
// fallback both use the same `pa.tile.page_ids` (with `direct` set), so they
// give identical ids, including the 0 of pages no row can see.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/PaOps.h"
#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PASTAGEPAGEIDS
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {

constexpr int64_t kMaxStagedIds = 64 * 1024 / sizeof(int32_t);

/// The tile loop a page-id read can be staged out of: the read's tile is the
/// induction variable of a unit-step scf.for and everything else it reads is
/// defined outside that loop.
scf::ForOp stageableLoop(TilePageIdsOp read) {
  scf::ForOp loop = scf::getForInductionVarOwner(read.getTile());
  if (!loop || !matchPattern(loop.getStep(), m_One()))
    return {};
  for (Value v : {Value(read.getBlockTables()), Value(read.getSequence()),
                  Value(read.getVisibleBegin()), Value(read.getVisibleEnd())})
    if (!loop.isDefinedOutsideOfLoop(v))
      return {};
  return loop;
}

struct PaStagePageIdsPass
    : pa::impl::PaStagePageIdsBase<PaStagePageIdsPass> {
  using Base::Base;

  void runOnOperation() override {
    // The staged ids are one workgroup buffer of max-staged i32: at most
    // all of a workgroup's 64 KiB (a larger or negative size made a buffer
    // no launch can have).
    const int64_t maxIds = maxStaged;
    if (maxIds < 0 || maxIds > kMaxStagedIds) {
      getOperation().emitError()
          << "pa-stage-page-ids: max-staged must be in [0, " << kMaxStagedIds
          << "] (page ids in 64 KiB of workgroup memory), got " << maxIds;
      return signalPassFailure();
    }
    // No more than the chip's workgroup memory is meant for.
    stagedBound = maxIds;
    if (std::optional<ChipInfo> chip = findTargetChip(getOperation()))
      stagedBound = std::min(stagedBound, chip->maxStagedPageIds);
    SmallVector<TilePageIdsOp> reads;
    getOperation().walk([&](TilePageIdsOp read) {
      if (!read.getDirect())
        reads.push_back(read);
    });
    for (TilePageIdsOp read : reads)
      stage(read);
  }

  void stage(TilePageIdsOp read) {
    const int64_t idsPerTile = read.getPageIds().getType().getNumElements();
    const int64_t stagedTilesMax = stagedBound / idsPerTile;
    scf::ForOp loop = stageableLoop(read);
    auto kernel = read->getParentOfType<gpu::GPUFuncOp>();
    if (!loop || !kernel || stagedTilesMax < 1) {
      // Not stageable: the read stays a direct block-table read.
      read.setDirect(true);
      return;
    }

    Location loc = read.getLoc();
    OpBuilder b(loop);
    Value lds = kernel.addWorkgroupAttribution(
        workgroupMemRef({stagedTilesMax * idsPerTile}, b.getI32Type()), loc);
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };

    // Stage whole tiles [begin, begin + staged) before the loop.
    Value begin = loop.getLowerBound();
    Value tiles = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, loop.getUpperBound(), begin),
        idx(0));
    Value staged = arith::MinSIOp::create(b, loc, tiles, idx(stagedTilesMax));
    auto fill = scf::ForOp::create(b, loc, idx(0), staged, idx(1));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(fill.getBody());
      Value j = fill.getInductionVar();
      Value tile = arith::AddIOp::create(b, loc, begin, j);
      Value ids = directRead(b, read, tile);
      Value offset = arith::MulIOp::create(b, loc, j, idx(idsPerTile));
      vector::StoreOp::create(b, loc, ids, lds, offset);
    }

    // In the loop: a vector load from workgroup memory, or the fallback.
    b.setInsertionPoint(read);
    Value relative = arith::SubIOp::create(b, loc, read.getTile(), begin);
    Value isStaged = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           relative, staged);
    VectorType idsType = read.getPageIds().getType();
    auto select = scf::IfOp::create(b, loc, TypeRange{idsType}, isStaged,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&select.getThenRegion().front());
      Value offset = arith::MulIOp::create(b, loc, relative, idx(idsPerTile));
      Value loaded = vector::LoadOp::create(b, loc, idsType, lds, offset);
      scf::YieldOp::create(b, loc, loaded);
      b.setInsertionPointToStart(&select.getElseRegion().front());
      scf::YieldOp::create(b, loc, directRead(b, read, read.getTile()));
    }
    read.replaceAllUsesWith(select.getResult(0));
    read.erase();
  }

  /// `read`'s page ids for `tile`, straight from the block table.
  static Value directRead(OpBuilder &b, TilePageIdsOp read, Value tile) {
    return TilePageIdsOp::create(
        b, read.getLoc(), read.getPageIds().getType(), read.getBlockTables(),
        read.getSequence(), tile, read.getVisibleBegin(),
        read.getVisibleEnd(), read.getPageSize(), /*direct=*/true);
  }

  /// max-staged, bounded by the module's target chip.
  int64_t stagedBound = 0;
};
} // namespace
