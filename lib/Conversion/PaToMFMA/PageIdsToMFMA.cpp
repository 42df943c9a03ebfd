//===- PageIdsToMFMA.cpp - page-id staging on lanes -------------------------===//
//
// pa-stage-page-ids' staging loops (before the tile loop) spread over the
// workgroup's lanes; the page-id reads left (the staged loads' fallback
// in the loop) are lowered after the tile ops, uniformly on every lane.
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

namespace {

bool isWorkgroupMemRef(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

} // namespace

/// The staging fill loop of pa-stage-page-ids, `for j: ids(begin + j) ->
/// lds[j * n]`, becomes one lane-strided loop over its ids: lane t writes
/// ids t, t + 256, ... with the per-element read rule of the op.
bool DecodeLowering::distributeFill(TilePageIdsOp ids) {
  auto fill = dyn_cast<scf::ForOp>(ids->getParentOp());
  if (!fill || !fill.getInitArgs().empty() ||
      !matchPattern(fill.getStep(), m_One()) || !ids->hasOneUse())
    return false;
  auto store = dyn_cast<vector::StoreOp>(*ids->getUsers().begin());
  if (!store || store->getParentOp() != fill ||
      !isWorkgroupMemRef(store.getBase()) || store.getIndices().size() != 1)
    return false;
  for (Operation &op : fill.getBody()->without_terminator())
    if (&op != ids && &op != store && !isPure(&op))
      return false;
  for (Value operand : {Value(ids.getBlockTables()), Value(ids.getSequence()),
                        Value(ids.getVisibleBegin()),
                        Value(ids.getVisibleEnd())})
    if (!fill.isDefinedOutsideOfLoop(operand))
      return false;

  ImplicitLocOpBuilder b(fill.getLoc(), fill);
  LaneBuilder l(b);
  int64_t idsPerTile = ids.getPageIds().getType().getNumElements();
  IndexExpr lb = l.idx(fill.getLowerBound());
  IndexExpr trips = l.idx(fill.getUpperBound()) - lb;
  Value total = trips * idsPerTile;
  Value step = l.index(chip.workgroupSize);
  scf::ForOp::create(
      b, tid, total, step, ValueRange{},
      [&](OpBuilder &nested, Location loc, Value element, ValueRange) {
        ImplicitLocOpBuilder nb(loc, nested);
        LaneBuilder nl(nb);
        IndexExpr e = nl.idx(element);
        IRMapping map;
        map.map(fill.getInductionVar(), (lb + e / idsPerTile).get());
        for (Operation &op : fill.getBody()->without_terminator())
          if (&op != ids && &op != store)
            nb.clone(op, map);
        auto constant = [&](TypedAttr value) -> Value {
          return arith::ConstantOp::create(nb, value);
        };
        TilePageRange range = buildTilePageRange(
            nb, loc, ids, map.lookup(ids.getTile()), constant);
        Value id = buildVisiblePageId(nb, loc, ids, range,
                                      (e % idsPerTile).get(), constant);
        IndexExpr offset = nl.idx(map.lookup(store.getIndices().front()));
        memref::StoreOp::create(nb, id, store.getBase(),
                                ValueRange{(offset + e % idsPerTile).get()});
        scf::YieldOp::create(nb);
      });
  fill.erase();
  return true;
}

void DecodeLowering::distributePageIdFills() {
  SmallVector<TilePageIdsOp> fills;
  d.kernel.walk([&](TilePageIdsOp ids) {
    if (!d.tileLoop->isAncestor(ids))
      fills.push_back(ids);
  });
  // A fill of another shape stays as it is: every lane then writes the same
  // ids (lowered with the direct reads below), which is correct, only slow.
  for (TilePageIdsOp ids : fills)
    (void)distributeFill(ids);
}
