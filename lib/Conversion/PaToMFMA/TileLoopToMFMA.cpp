//===- TileLoopToMFMA.cpp - the tile loop on lanes --------------------------===//
//
// The tile loop: each wave carries its rows' online-softmax state and
// output accumulators in registers through the loop (LaneState: the loop's
// iter_args; init_softmax's buffers are gone). Each lane loop gets the
// tile ops of the loop body, lowered there by their patterns (QKToMFMA.cpp,
// SoftmaxToMFMA.cpp, PVToMFMA.cpp) on one TileStep. The 32-bit-offset loop
// and the 64-bit fallback, the latter one M-tile at a time. The loops'
// results go to store_partials' pattern (loopResults).
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

LaneState DecodeLowering::initialState(ImplicitLocOpBuilder &b,
                                       ArrayRef<MTileLanes> mTiles) {
  LaneBuilder l(b);
  LaneState state;
  state.mTiles.assign(mTiles.begin(), mTiles.end());
  state.queryOffset = l.index(0);
  Value zeros = l.splatConstant(vec4, 0.0);
  for (size_t k = 0; k < mTiles.size(); ++k) {
    state.rowMax.push_back(l.negInf());
    state.rowSum.push_back(l.f32(0.0));
    if (s.fp8Compute())
      state.rowWeight.push_back(l.f32(0.0));
    state.out.emplace_back(s.headDim / kBlock, zeros);
  }
  if (s.scale == ScaleMode::per_token)
    state.valueUnit = l.f32(1.0);
  return state;
}

SmallVector<Value> DecodeLowering::prefetchTileKeys(ImplicitLocOpBuilder &b,
                                                    Value tile, Value tile32,
                                                    Value begin32,
                                                    const CacheViews &views) {
  scf::ForOp old = d.tileLoop;
  SmallVector<Type> types = tileKeyTypes();
  // In i32, as the tile loop counts (a 64-bit compare is a VALU one).
  LaneBuilder l(b);
  Value exists = l.cmpI(arith::CmpIPredicate::slt, tile32,
                        l.toI32(old.getUpperBound()));
  auto branch = scf::IfOp::create(b, types, exists, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getElseRegion().front());
  SmallVector<Value> poison;
  for (Type type : types)
    poison.push_back(ub::PoisonOp::create(b, type));
  scf::YieldOp::create(b, poison);
  Block &then = branch.getThenRegion().front();
  b.setInsertionPointToStart(&then);
  // The tiled body's per-tile values qk's K reads (tile start, page ids,
  // their guard) for `tile`, then the lane's places and loads as qk makes
  // them.
  IRMapping map;
  map.map(old.getInductionVar(), tile);
  for (Operation *op : *keyPlaceOps)
    b.clone(*op, map);
  narrowStagedTest(b, map, tile32, begin32);
  TilePlaces places = placeTileTokens(
      l, map.lookupOrDefault(d.qk.getPageIds()),
      map.lookupOrDefault(d.qk.getTileStart()));
  scf::YieldOp::create(b,
                       loadTileKeys(l, places, d.qk.getKvHead(), views));
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(then)))
    if (isOpTriviallyDead(&op))
      op.erase();
  return SmallVector<Value>(branch.getResults().begin(),
                            branch.getResults().end());
}

void DecodeLowering::narrowStagedTest(ImplicitLocOpBuilder &b,
                                      const IRMapping &map, Value tile32,
                                      Value begin32) {
  scf::ForOp old = d.tileLoop;
  for (Operation &op : old.getBody()->without_terminator()) {
    auto test = dyn_cast<arith::CmpIOp>(op);
    if (!test || test.getPredicate() != arith::CmpIPredicate::slt ||
        !old.isDefinedOutsideOfLoop(test.getRhs()))
      continue;
    auto relative = test.getLhs().getDefiningOp<arith::SubIOp>();
    if (!relative || relative.getLhs() != old.getInductionVar() ||
        relative.getRhs() != old.getLowerBound())
      continue;
    Value copy = map.lookupOrNull(test.getResult());
    if (!copy)
      continue;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfterValue(copy);
    LaneBuilder l(b);
    // The lane loop runs tile32 over [begin32, end32) (signed i32), so
    // tile32 - begin32 is below 2^32 - 1 read unsigned, and `staged`
    // clamped into [0, 2^32 - 1] compares with it as the index compare
    // does.
    Value relative32 = l.subI(tile32, begin32);
    Value staged = l.minSI(l.maxSI(l.toI64(test.getRhs()), l.i64(0)),
                           l.i64(std::numeric_limits<uint32_t>::max()));
    Value staged32 = arith::TruncIOp::create(b, b.getI32Type(), staged);
    copy.replaceAllUsesWith(
        l.cmpI(arith::CmpIPredicate::ult, relative32, staged32));
    if (Value relativeCopy = map.lookupOrNull(relative.getResult()))
      relativeCopy.replaceAllUsesExcept(
          arith::IndexCastUIOp::create(b, b.getIndexType(), relative32),
          copy.getDefiningOp());
  }
}

LaneState DecodeLowering::emitTileLoop(ImplicitLocOpBuilder &b,
                                       const CacheViews &views,
                                       const LaneState &init, bool prefetch) {
  scf::ForOp old = d.tileLoop;
  LaneBuilder l(b);
  SmallVector<Value> initValues = init.flatten();
  const size_t stateWidth = initValues.size();
  if (prefetch && !keyPlaceOps)
    keyPlaceOps = pa::tileKeyPlaceOps(d);
  prefetch &= keyPlaceOps.has_value();
  Value begin32 = l.toI32(old.getLowerBound());
  if (prefetch)
    initValues.append(
        prefetchTileKeys(b, old.getLowerBound(), begin32, begin32, views));
  auto loop = scf::ForOp::create(b, begin32, l.toI32(old.getUpperBound()),
                                 l.toI32(old.getStep()), initValues);
  ImplicitLocOpBuilder body(old.getLoc(), ctx);
  body.setInsertionPointToStart(loop.getBody());
  IRMapping map;
  Value tile = arith::IndexCastUIOp::create(body, body.getIndexType(),
                                            loop.getInductionVar());
  map.map(old.getInductionVar(), tile);
  // The tiled IR's per-tile values (tile start, page ids and their guards)
  // as they are, then its tile ops after them (they have no results), in
  // order, each lowered by its pattern on the step's registers; qk's adds
  // alibi's bias.
  for (Operation &op : old.getBody()->without_terminator())
    if (!isa<TileQKOp, TileAlibiOp, TileSoftmaxOp, TilePVOp>(op))
      body.clone(op, map);
  narrowStagedTest(body, map, loop.getInductionVar(), begin32);
  SmallVector<Operation *> tileOps;
  for (Operation *op : {d.qk.getOperation(), d.softmax.getOperation(),
                        d.pv.getOperation()})
    tileOps.push_back(body.clone(*op, map));
  TileStep step;
  step.views = views;
  ValueRange iterArgs = loop.getRegionIterArgs();
  step.state = LaneState::unflatten(iterArgs.take_front(stateWidth), init);
  step.tileStart = map.lookupOrDefault(d.softmax.getTileStart());
  step.validBegin = map.lookupOrDefault(d.pv.getValidBegin());
  step.validEnd = map.lookupOrDefault(d.pv.getValidEnd());
  step.kvHead = d.qk.getKvHead();
  if (prefetch) {
    step.keys = llvm::to_vector(iterArgs.drop_front(stateWidth));
    step.loadNextKeys = [&](ImplicitLocOpBuilder &at) {
      LaneBuilder next(at);
      return prefetchTileKeys(
          at, next.addI(tile, old.getStep()),
          next.addI(loop.getInductionVar(), next.toI32(old.getStep())),
          begin32, views);
    };
  }
  currentStep = &step;
  for (Operation *op : tileOps)
    lowerByPattern(op);
  currentStep = nullptr;
  SmallVector<Value> yielded = step.next.flatten();
  yielded.append(step.nextKeys);
  scf::YieldOp::create(body, yielded);
  // The tiled IR's values the lane code does not use (the page-id vector
  // that laneElements reads per lane instead), users before their operands.
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(*loop.getBody())))
    if (isOpTriviallyDead(&op))
      op.erase();
  return LaneState::unflatten(loop.getResults().take_front(stateWidth), init);
}

bool DecodeLowering::wideLoopPerMTile() const {
  // Measured (docs/performance.md, sixteenth session): at D = 96, 112 and 128
  // the 32-bit loop's 32 rows hold 2 waves, and the 64-bit loop over both
  // M-tiles fits beside it (dynamic pools: 18 configurations x 2 chips,
  // bf16, nhd / hnd, windows, ALiBi, soft caps and per-token scales
  // included, keep their waves; 29 of the 36 within 2 VGPRs). D = 256 needs
  // up to 256 VGPRs for its 32-bit loop alone. At D = 64 and 80, 32-row
  // kernels hold 3 waves at 156-168 VGPRs, and both M-tiles' 64-bit loop
  // beside the 32-bit one cost 48 of 192 dynamic-pool kernels that wave
  // (eighteenth session); a kernel with the 64-bit loop alone has no
  // 32-bit loop's waves to keep, and reads K and V once: 2-3 waves instead
  // of 3-4, 15-38% fewer instructions per 256 tokens.
  return s.mTiles > 1 &&
         (s.headDim > 128 || (s.headDim < 96 && !wideLoopAlone));
}

bool DecodeLowering::wideLoopPrefetchesKeys() const {
  // Measured (docs/performance.md, sixteenth session) on 144 16-row
  // configurations x 2 chips (D = 128, pages 16 / 64, every scale mode,
  // windows 0 / 300 / 4096, G 8 / 16, ALiBi, soft caps): -4 .. +12 VGPRs
  // beside the 32-bit loop; the 28 kernels that lost their third wave
  // (165 -> 172-177) all had per-token scales, a window and ALiBi. At 32
  // rows (seventeenth session), where both M-tiles share the 64-bit loop
  // (D = 128 where the 32-bit loop prefetches): packed caches +6 .. +10
  // VGPRs (dynamic pools 229-240 -> 237-250, 2 waves kept, 32 of 32), 8 K
  // loads a tile ahead, 8-10 in flight as before; nhd / hnd halved their
  // loads in flight (32 -> 16), so they keep the loop without it. Per-token
  // scales with a window and ALiBi reached 255 there, so they keep it
  // without too.
  if (!prefetchKeys ||
      (s.scale == ScaleMode::per_token && s.window > 0 && d.alibi))
    return false;
  if (s.mTiles > 1)
    return !wideLoopPerMTile() && s.layout == CacheLayout::packed;
  return true;
}

WaveResult DecodeLowering::emitTileLoops(ImplicitLocOpBuilder &b,
                                         const CacheViews &views,
                                         bool wideAddresses) {
  if (wideAddresses && wideLoopPerMTile())
    return emitMTileAtATimeLoop(b, views);
  WaveResult result;
  result.append(emitTileLoop(b, views, initialState(b, mTileLanes),
                             wideAddresses ? wideLoopPrefetchesKeys()
                                           : prefetchKeys));
  return result;
}

WaveResult DecodeLowering::emitMTileAtATimeLoop(ImplicitLocOpBuilder &b,
                                                const CacheViews &views) {
  LaneBuilder l(b);
  // Carried: the finished states of M-tiles 0 .. n-2 and the newest one
  // (the last M-tile's after the loop). The newest is not used in the
  // body, so it is not live across the tile loop.
  LaneState like = initialState(b, {mTileLanes[0]});
  SmallVector<Value> init;
  for (int64_t t = 0; t < s.mTiles; ++t)
    init.append(like.flatten());
  auto loop = scf::ForOp::create(b, l.index(0), l.index(s.mTiles),
                                 l.index(1), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  SmallVector<Value> isTile;
  for (int64_t k = 0; k < s.mTiles; ++k)
    isTile.push_back(l.cmpI(arith::CmpIPredicate::eq, t, l.index(k)));
  auto pick = [&](auto field) {
    Value value = field(mTileLanes[0]);
    for (int64_t k = 1; k < s.mTiles; ++k)
      value = l.select(isTile[k], field(mTileLanes[k]), value);
    return value;
  };
  MTileLanes lanes;
  lanes.firstRow = (l.idx(t) * kBlock).get();
  lanes.rowScale = pick([](const MTileLanes &m) { return m.rowScale; });
  lanes.rowPosition = pick([](const MTileLanes &m) { return m.rowPosition; });
  lanes.isQueryRow = pick([](const MTileLanes &m) { return m.isQueryRow; });
  if (d.alibi) {
    lanes.alibiSlope = pick([](const MTileLanes &m) { return m.alibiSlope; });
    // The shift of a shared distance made a value of the M-tile's own.
    lanes.alibiDistance = pick([&](const MTileLanes &m) {
      return m.alibiShift ? l.subI(m.alibiDistance, l.i32(m.alibiShift))
                          : m.alibiDistance;
    });
  }
  SmallVector<Value> newest =
      emitTileLoop(b, views, initialState(b, {lanes}), false).flatten();
  const size_t width = newest.size();
  ValueRange carried = loop.getRegionIterArgs();
  SmallVector<Value> next;
  for (int64_t k = 0; k + 1 < s.mTiles; ++k)
    for (size_t v = 0; v < width; ++v)
      next.push_back(l.select(isTile[k], newest[v], carried[k * width + v]));
  next.append(newest);
  scf::YieldOp::create(b, next);

  WaveResult result;
  for (int64_t k = 0; k < s.mTiles; ++k) {
    LaneState done = LaneState::unflatten(
        loop.getResults().slice(k * width, width), like);
    done.mTiles = {mTileLanes[k]};
    result.append(done);
  }
  return result;
}

void DecodeLowering::lowerTileLoop(ImplicitLocOpBuilder &b) {
  if (partlySlots() && partlyScoresInLoop)
    initPartlySeen(b);
  // Page ids and query rows are in LDS for every wave.
  gpu::BarrierOp::create(b);
  computeLaneConstants(b);
  // cache-offsets=64 takes the 64-bit loop whatever the pool size.
  bool staticFits = false;
  Value fits =
      only64BitOffsets ? Value() : viewsFit32BitOffsets(b, staticFits);
  if (!fits && staticFits) {
    loopResults = emitTileLoops(b, fatRawBufferViews(b), false);
  } else if (!fits) {
    // Only the 64-bit loop (cache-offsets=64, or a static pool too large):
    // its lane ids are made as in the dynamic pool's 64-bit branch below,
    // so that both 64-bit loops are built alike, except that at 32 rows
    // and D = 64 / 80 it runs both M-tiles in one loop (wideLoopPerMTile),
    // where the branch runs one M-tile at a time as at D = 256. (The
    // emulator runs this kernel with `--cache-offsets 64`, the branch with
    // `--large-pool`.)
    renewLaneIds(b);
    wideLoopAlone = true;
    loopResults = emitTileLoops(b, globalViews(), true);
  } else {
    // Pool sizes are dynamic: 32-bit buffer offsets when every paged buffer
    // is below 2 GiB, 64-bit global addresses otherwise (a serving engine's
    // cache on a large GPU often is: 2 GiB holds 512 Ki tokens of one layer
    // at 4 KiB per token). Where its wider addresses would raise the
    // kernel's register count above the 32-bit loop's (which decides the
    // occupancy), the 64-bit loop runs the M-tiles one after the other
    // (wideLoopPerMTile).
    CacheViews fat = fatRawBufferViews(b);
    auto choice = scf::IfOp::create(b, TypeRange{}, fits,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&choice.getThenRegion().front());
    WaveResult fast = emitTileLoops(b, fat, false);
    b.setInsertionPointToStart(&choice.getElseRegion().front());
    // The 64-bit loop's lane-derived values from lane ids of its own, so
    // that they are computed in this branch instead of being prologue
    // values kept live across the 32-bit loop (which raised its register
    // count and moved its allocation).
    renewLaneIds(b);
    WaveResult wide = emitTileLoops(b, globalViews(), true);
    // Now that the result types are known: rebuild the if with results.
    b.setInsertionPoint(choice);
    SmallVector<Type> types = llvm::to_vector(
        llvm::map_range(fast.flatten(), [](Value v) { return v.getType(); }));
    auto withResults = scf::IfOp::create(b, types, fits, true);
    withResults.getThenRegion().takeBody(choice.getThenRegion());
    withResults.getElseRegion().takeBody(choice.getElseRegion());
    auto yieldIn = [&](Region &region, ValueRange values) {
      Block &block = region.front();
      block.getTerminator()->erase();
      b.setInsertionPointToEnd(&block);
      scf::YieldOp::create(b, values);
    };
    yieldIn(withResults.getThenRegion(), fast.flatten());
    yieldIn(withResults.getElseRegion(), wide.flatten());
    choice.erase();
    loopResults = WaveResult::unflatten(withResults.getResults(), fast);
  }

}

namespace {

/// The kernel's tile loop becomes the lanes' loops in its place. The loop
/// stays (its tile ops' operands are read until the epilogue is lowered);
/// the driver erases it after the last pattern.
struct TileLoopToMFMA : OpRewritePattern<scf::ForOp> {
  TileLoopToMFMA(MLIRContext *context, DecodeLowering &lowering)
      : OpRewritePattern(context), lowering(lowering) {}

  LogicalResult matchAndRewrite(scf::ForOp loop,
                                PatternRewriter &rewriter) const override {
    if (loop != lowering.d.tileLoop)
      return failure();
    rewriter.setInsertionPoint(loop);
    ImplicitLocOpBuilder b(loop.getLoc(), rewriter);
    lowering.lowerTileLoop(b);
    return success();
  }

  DecodeLowering &lowering;
};

} // namespace

void mfma::populateTileLoopToMFMAPatterns(RewritePatternSet &patterns,
                                          DecodeLowering &lowering) {
  patterns.add<TileLoopToMFMA>(patterns.getContext(), lowering);
}
