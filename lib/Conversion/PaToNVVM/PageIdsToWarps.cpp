//===- PageIdsToWarps.cpp - pa-stage-page-ids' staging on warps -----------===//
//
// pa-stage-page-ids stages the page ids of a sequence's first tiles in
// workgroup memory before the tile loop (a fill loop) and reads a later
// tile's ids directly (an scf.if's fallback). Both are written for one
// thread; here they are spread over the workgroup, before the tile-op
// patterns run.
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

#include "pa/Transforms/KernelBuilder.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;

namespace {

/// Tiles of more page ids than this (pages shorter than 16 tokens) read
/// them from the block table on all threads, one id each, not as one
/// thread's chain of dependent reads (256 at P = 1: 10-40 times the packed
/// layout's time on the H200, 2026-12-02).
constexpr int64_t kSerialPageIds = 16;

class PageIdStaging {
public:
  PageIdStaging(gpu::GPUFuncOp kernel, const ThreadIds &ids)
      : kernel(kernel), ids(ids) {}

  /// pa-stage-page-ids fills its staging buffer in a loop whose iteration j
  /// copies the ids of one tile (a direct page-id read and a vector store
  /// to workgroup memory). Thread i takes iterations i, i + 128, ...; a
  /// barrier then publishes the ids.
  void distributeStagingLoops() {
    SmallVector<std::pair<scf::ForOp, TilePageIdsOp>> loops;
    kernel.walk([&](scf::ForOp loop) {
      TilePageIdsOp read;
      bool stages = false;
      loop.getBody()->walk([&](Operation *op) {
        if (auto direct = dyn_cast<TilePageIdsOp>(op);
            direct && direct.getDirect())
          read = direct;
        if (auto store = dyn_cast<vector::StoreOp>(op))
          stages |= gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(
              cast<MemRefType>(store.getBase().getType()));
      });
      if (read && stages)
        loops.push_back({loop, read});
    });
    for (auto [loop, read] : loops) {
      ImplicitLocOpBuilder b(loop.getLoc(), loop);
      WarpEmitter e(b);
      bool byPage = distributeStagingByPage(e, loop, read);
      if (!byPage) {
        // A tile's ids on one thread, tiles over the threads.
        loop.setLowerBound(
            e.addI(loop.getLowerBound(), e.mulI(ids.tid, loop.getStep())));
        loop.setStep(e.mulI(loop.getStep(), kWorkgroupThreads));
      }
      b.setInsertionPointAfter(loop);
      e.barrier();
      if (byPage)
        loop.erase();
    }
  }

  /// pa-stage-page-ids' fill loop `loop` (tiles j = 0, 1, ..., each
  /// `read` (direct) and stored whole at j * ids per tile), for tiles of
  /// more than kSerialPageIds ids, rebuilt as one loop over the staged ids
  /// with id f = j * ids per tile + k on thread f % 128, before it (the
  /// caller erases it). False (nothing built) for fewer ids per tile or
  /// another loop form.
  bool distributeStagingByPage(WarpEmitter &e, scf::ForOp loop,
                               TilePageIdsOp read) {
    const int64_t perTile = pagesPerTile(read.getPageSize());
    if (perTile <= kSerialPageIds || !read.getPageIds().hasOneUse())
      return false;
    auto store =
        dyn_cast<vector::StoreOp>(*read.getPageIds().getUsers().begin());
    if (!store || store->getBlock() != loop.getBody() ||
        getConstantIntValue(loop.getLowerBound()) != 0 ||
        getConstantIntValue(loop.getStep()) != 1)
      return false;
    Value total = e.mulI(loop.getUpperBound(), perTile);
    e.forLoop(ids.tid, total, e.idx(kWorkgroupThreads), [&](Value f) {
      // The loop body's tile computation for tile j (its store and read
      // left out), then page k of that tile.
      IRMapping map;
      map.map(loop.getInductionVar(), e.div(f, perTile));
      for (Operation &op : loop.getBody()->without_terminator())
        if (&op != read.getOperation() && &op != store.getOperation())
          e.b.clone(op, map);
      storeDirectPageIds(e, read, map.lookupOrDefault(read.getTile()),
                         store.getBase(), e.mulI(e.div(f, perTile), perTile),
                         e.rem(f, perTile));
    });
    return true;
  }

  /// pa-stage-page-ids' per-tile reads (scf.if: the staged ids from
  /// workgroup memory, else a direct read) for tiles of more than
  /// kSerialPageIds ids: the direct read becomes one id per thread into the
  /// staged buffer's first tile and a barrier, and the scf.if yields where
  /// the tile's ids start in the staged buffer, read after it by one vector
  /// load (whose consumer, qk, copies the ids on all threads). The staged
  /// tiles come first in the tile loop, so their ids are dead when a tile
  /// falls back.
  void distributeFallbackReads() {
    SmallVector<scf::IfOp> selects;
    kernel.walk([&](scf::IfOp select) {
      if (select.getNumResults() != 1 || select.getElseRegion().empty())
        return;
      auto read =
          select.elseYield().getOperand(0).getDefiningOp<TilePageIdsOp>();
      auto staged =
          select.thenYield().getOperand(0).getDefiningOp<vector::LoadOp>();
      if (read && read.getDirect() && staged &&
          pagesPerTile(read.getPageSize()) > kSerialPageIds &&
          gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(
              staged.getBase().getType()))
        selects.push_back(select);
    });
    for (scf::IfOp select : selects) {
      auto read =
          select.elseYield().getOperand(0).getDefiningOp<TilePageIdsOp>();
      auto staged =
          select.thenYield().getOperand(0).getDefiningOp<vector::LoadOp>();
      Value buffer = staged.getBase();
      ImplicitLocOpBuilder b(read.getLoc(), read);
      WarpEmitter e(b);
      e.forLoop(ids.tid, e.idx(pagesPerTile(read.getPageSize())),
                e.idx(kWorkgroupThreads), [&](Value k) {
                  storeDirectPageIds(e, read, read.getTile(), buffer, e.idx(0),
                                     k);
                });
      e.barrier();
      // Both branches yield the first id's index; one load after the if.
      select.elseYield()->setOperand(0, e.idx(0));
      select.thenYield()->setOperand(0, staged.getIndices()[0]);
      Value tileIds = select.getResult(0);
      Type idsType = tileIds.getType();
      tileIds.setType(b.getIndexType());
      b.setInsertionPointAfter(select);
      Value loaded =
          vector::LoadOp::create(b, idsType, buffer, ValueRange{tileIds});
      tileIds.replaceAllUsesExcept(loaded, loaded.getDefiningOp());
      read.erase();
      staged.erase();
    }
  }

  /// Stores page `k` (index) of `read`'s ids for `tile` (from the block
  /// table, 0 for a page no row sees) at buffer[base + k].
  void storeDirectPageIds(WarpEmitter &e, TilePageIdsOp read, Value tile,
                          Value buffer, Value base, Value k) {
    auto constant = [&](TypedAttr value) -> Value {
      return arith::ConstantOp::create(e.b, value);
    };
    TilePageRange range =
        buildTilePageRange(e.b, e.b.getLoc(), read, tile, constant);
    e.store(buildVisiblePageId(e.b, e.b.getLoc(), read, range, k, constant),
            buffer, {e.addI(base, k)});
  }

private:
  gpu::GPUFuncOp kernel;
  const ThreadIds &ids;
};

} // namespace

void mlir::pa::nvvm::distributePageIdStaging(gpu::GPUFuncOp kernel,
                                             const ThreadIds &ids) {
  PageIdStaging staging(kernel, ids);
  staging.distributeStagingLoops();
  staging.distributeFallbackReads();
}
