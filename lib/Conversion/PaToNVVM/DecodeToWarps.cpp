//===- DecodeToWarps.cpp - the decode kernel on NVIDIA warps --------------===//
//
// The decode kernel's workgroup program on 128 threads (4 warps, lane l of
// warp w, g = l / 4, t = l % 4), one pa.tile op at a time (one rewrite
// pattern per tile op, each in its file: DecodeLowering.h), the ops
// communicating through shared memory as in the tiled IR (a barrier starts
// every op that reads what another thread wrote). Matrix products are
// mma.sync with f32 accumulators, in one of three kinds:
//
//   f16 (fp8 KV, the default): K and V converted exactly to f16 in
//     registers (cvt.rn.f16x2.e4m3x2), one f16 query and P term each
//     (float64 simulation of the matrix's inputs: 0.06 of the tolerance).
//   e4m3 (fp8 KV, pa-to-nvvm{fp8-products=e4m3}): m16n8k32.e4m3 on the raw
//     K and V bytes, the query (scaled per row by a power of two) split into
//     two e4m3 terms, P (scaled per tile by a power of two) into three:
//     0.01 of the tolerance in simulation, against 8-17 times it with one
//     e4m3 term each; correct on the H200 but 20% slower than f16 there.
//   bf16 (bf16 KV): bf16 products; the query split into bf16 hi + lo when it
//     is f16, P always (one bf16 P term: 1.6 times the bf16 tolerance).
//
// Contraction order. An mma's k axis is 32 bytes of operands; thread (g, t)
// holds bytes [4t, 4t + 4) of it (a0 / b0) and [16 + 4t, 20 + 4t) (a2 / b1).
// Every KV operand is read in 16-byte chunks of E = 16 / sizeof(KV element)
// consecutive elements (one K token's head-dim values; one V head-dim row's
// tokens), and thread t of a group of four owns chunk t of each
// 4E-element block: in step s its words b0, b1 are words 2s, 2s + 1 of its
// chunk (after conversion, for f16). Both operands of a product use the same
// order, so the sum is the plain dot product, and every K / V load is one
// coalesced 16-byte load. The query and P (the A operands) are kept in
// shared memory in fragment order (fragmentIndex): a thread's a0..a3 of one
// step are one 16-byte load straight into the mma's registers. (Loaded as
// row chunks, they were re-paired by register moves before every mma: 30%
// of the instructions on the H200.)
//
// Work split, per 256-token tile (each op's pattern in its file: QKToWarps.cpp,
// SoftmaxToWarps.cpp, PVToWarps.cpp):
//   qk       warp w: tokens 64w + [0, 64) in 8 n-blocks of 8 tokens (B = K,
//            token n = g loads its chunks), all rows, over D; scores to
//            shared memory (rows padded to 264 floats: no bank conflicts).
//   softmax  128 / M threads per row, 256 * M / 128 scores each; warp
//            shuffles reduce max and sum; acc rows scaled by alpha (for
//            32 rows, alpha goes to shared memory and pv scales the
//            accumulators as it loads them). 32-row kernels read an
//            interior tile's scores unmasked and, where the whole group
//            sees the tile, store P's terms themselves (pv's prologue
//            below is then skipped: SoftmaxToWarps.cpp).
//   pv       the V chunks of the first token block are requested at the
//            end of qk (their latency overlaps the softmax); prologue:
//            P * v_scale (0 for tokens outside the valid range)
//            packed into the product's terms in shared memory; then warp w:
//            head-dim columns [w D/4, (w+1) D/4) in n-blocks of 8 (B = V,
//            column n = g loads the chunks; in nhd / hnd caches the n-blocks
//            of a pass interleave their columns, so that lane g reads a
//            token's share of all of them at once: pvColumn), all 256
//            tokens; the f32
//            accumulator lives in shared memory between tiles. Values of
//            tokens outside the valid range are zeroed (0 * NaN = NaN) in
//            the tiles that have such tokens (a uniform branch). With MTP
//            the tokens only some rows of the group see are left out of
//            the product too, and those edge tiles add them per row to the
//            rows that see them (PVToWarps.cpp, addPartlySeen).
//
//===----------------------------------------------------------------------===//
#include "DecodeToWarps.h"
#include "DecodeLowering.h"

#include "pa/Transforms/KernelBuilder.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;

namespace {

/// Shared memory of a workgroup that lets two of them share an sm_90a SM
/// (228 KiB per SM, 1 KiB of it reserved per workgroup). Two workgroups
/// (8 warps) keep enough KV loads in flight; one does not (fp8 at Q = 4:
/// 26-28% faster with two, 1353ff8).
constexpr int64_t kTwoPerSMBytes = 228 * 1024 / 2 - 1024;

int64_t keyAheadBlocks(const TiledDecode &ops, const DecodeShape &shape,
                       int64_t requested,
                       SmallVector<Operation *> &keyPlaceOps);
int64_t valueStageBlocks(const TiledDecode &ops, const DecodeShape &shape,
                         int64_t requested);
bool keyPagePiecesContiguous(const TiledDecode &ops, const DecodeShape &shape);
int64_t pageBlockBytes(Value cache);

/// Matches the tile ops against the tiled IR contract (TiledDecode.h) and
/// checks that the lowering below supports their types and sizes; false
/// with `reason` otherwise. `keyPlaceOps`: keyAheadBlocks's.
bool analyze(gpu::GPUFuncOp kernel, const WarpOptions &options,
             TiledDecode &ops, SmallVector<Operation *> &keyPlaceOps,
             DecodeShape &shape, std::string &reason) {
  FailureOr<TiledDecode> tiled = matchTiledDecode(
      kernel, "pa-to-nvvm",
      [&](Operation *, const Twine &message) { reason = message.str(); });
  if (failed(tiled))
    return false;
  ops = *tiled;
  auto memref = [](Value v) { return cast<MemRefType>(v.getType()); };
  MemRefType queryTile = memref(ops.qk.getQueryTile());
  shape.rows = queryTile.getDimSize(0);
  shape.headDim = queryTile.getDimSize(1);
  shape.layout = ops.qk.getCacheLayout();
  if (ops.pv.getCacheLayout() != shape.layout) {
    reason = "different cache layouts in qk and pv";
    return false;
  }
  shape.pageSize = ops.qk.getPageSize();
  Type kv = memref(ops.qk.getKeyCache()).getElementType();
  Type vType = memref(ops.pv.getValueCache()).getElementType();
  Type query = memref(ops.loadQuery.getQuery()).getElementType();
  bool fp8 = isa<Float8E4M3FNType>(kv);
  // The tile ops' `compute` says fp8 for fp8 KV; single-term e4m3
  // products miss the spec's tolerance, so the pass option picks the kind.
  shape.products = !fp8                   ? Products::BF16
                   : options.e4m3Products ? Products::E4M3
                                          : Products::F16;
  shape.f16Query = query.isF16();
  shape.chunk = fp8 ? 16 : 8;
  shape.transposedV = ops.pv.getVLayout() == VLayout::transposed;
  shape.kScale = ops.qk.getScale();
  shape.vScale = ops.pv.getScale();
  shape.scoreScale = ops.qk.getScoreScale().convertToFloat();
  if (std::optional<APFloat> cap = ops.qk.getSoftCap())
    shape.softCap = cap->convertToFloat();
  shape.queryLength = ops.softmax.getQueryLength();
  shape.groupSize = ops.softmax.getGroupSize();
  shape.window = ops.softmax.getSlidingWindow();

  if (!(fp8 || kv.isBF16()) || kv != vType) {
    reason = "KV caches of e4m3fn or bf16 only";
    return false;
  }
  if (!query.isBF16() && !query.isF16()) {
    reason = "bf16 or f16 queries only";
    return false;
  }
  if (shape.rows != 16 && shape.rows != 32) {
    reason = "row groups of 16 or 32 rows only";
    return false;
  }
  if (shape.headDim % 16 != 0) {
    reason = "head dims that are multiples of 16 only";
    return false;
  }
  // nhd / hnd: any page size the verifier takes (powers of two up to
  // 1024), a token's head dims contiguous (the verifier's unit stride).
  int64_t keyPack = memref(ops.qk.getKeyCache()).getShape().back();
  int64_t valuePack = shape.transposedV
                          ? memref(ops.pv.getValueCache()).getShape().back()
                          : shape.chunk;
  if (shape.layout == CacheLayout::packed &&
      (keyPack != shape.chunk || valuePack != shape.chunk ||
       shape.pageSize % shape.chunk != 0 ||
       kTileTokens % shape.pageSize != 0)) {
    reason = "16-byte packs and page sizes that are multiples of them only";
    return false;
  }
  for (Value tile : {ops.qk.getScores(), ops.pv.getAcc(),
                     ops.softmax.getRowMax(), ops.softmax.getRowSum()})
    if (!memref(tile).hasStaticShape()) {
      reason = "static tile buffers only";
      return false;
    }
  shape.keyAheadBlocks =
      keyAheadBlocks(ops, shape, options.keyAheadBlocks, keyPlaceOps);
  shape.keyAheadInRegisters =
      shape.keyAheadBlocks > 0 && options.keyAheadInRegisters;
  shape.keyAheadBulk = shape.keyAheadBlocks > 0 && options.keyAheadBulk &&
                       keyPagePiecesContiguous(ops, shape);
  shape.valueStageBlocks =
      valueStageBlocks(ops, shape, options.valueStageBlocks);
  shape.valueAheadBlocks = std::max<int64_t>(1, options.valueAheadBlocks);
  // L2 prefetches of whole pages, one per lane of a warp: packed caches,
  // at most 16 pages per tile (as key-ahead: qk stores the next tile's ids
  // for pv on thread 0).
  if (options.l2Prefetch && shape.layout == CacheLayout::packed &&
      pagesPerTile(shape.pageSize) <= 16) {
    shape.valuePrefetchBytes = pageBlockBytes(ops.pv.getValueCache());
    // The next tile's K pages need its ids ahead (key-ahead's place ops).
    bool nextIds = shape.keyAheadBlocks > 0;
    if (!nextIds) {
      if (std::optional<SmallVector<Operation *>> placeOps =
              tileKeyPlaceOps(ops)) {
        keyPlaceOps = std::move(*placeOps);
        nextIds = true;
      }
    }
    if (nextIds)
      shape.keyPrefetchBytes = pageBlockBytes(ops.qk.getKeyCache());
    shape.prefetchMinTiles = options.l2PrefetchMinTiles;
  }
  return true;
}

/// Bytes of one (page, KV head) block of a cache [pages, Hkv, ...] whose
/// later dims are static and densely strided, so that the block is one
/// contiguous run (a packed cache's page of a head); 0 otherwise.
int64_t pageBlockBytes(Value cache) {
  auto type = cast<MemRefType>(cache.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return 0;
  int64_t elements = 1;
  for (int64_t dim = type.getRank() - 1; dim >= 2; --dim) {
    if (type.isDynamicDim(dim) || strides[dim] != elements)
      return 0;
    elements *= type.getDimSize(dim);
  }
  return elements * type.getElementTypeBitWidth() / 8;
}

/// V token blocks of each tile to stage (DecodeShape::valueStageBlocks): at
/// least `requested`, rounded up to whole copy units (a plain V's pages),
/// at most the tile's; packed caches whose copy units are contiguous (the
/// V memref's page blocks dense, pageBlockBytes: a combined cache's halves
/// are). DecodeLowering lowers it to what keeps two workgroups per SM.
int64_t valueStageBlocks(const TiledDecode &ops, const DecodeShape &shape,
                         int64_t requested) {
  // Dense page blocks: transposed [pages, Hkv, P / E, D, E] with strides
  // (.., D E, E, 1), plain [pages, Hkv, D, P] with (.., P, 1).
  if (requested <= 0 || shape.layout != CacheLayout::packed ||
      pageBlockBytes(TilePVOp(ops.pv).getValueCache()) == 0)
    return 0;
  const int64_t blockTokens = 4 * shape.chunk;
  int64_t tokens =
      llvm::alignTo(requested * blockTokens,
                    shape.transposedV ? shape.chunk : shape.pageSize);
  return std::min(tokens, kTileTokens) / blockTokens;
}

/// K blocks of the next tile to copy ahead (DecodeShape::keyAheadBlocks):
/// at most `requested`, on packed caches with at most 16 page ids per tile
/// (PageIdsToWarps leaves their reads to each thread, so qk can copy the
/// next tile's on thread 0) whose tile values write nothing, and whole
/// blocks of D only (no partial last block: D = 80 fp8). `keyPlaceOps`
/// receives those tile values' ops where there are blocks to copy.
int64_t keyAheadBlocks(const TiledDecode &ops, const DecodeShape &shape,
                       int64_t requested,
                       SmallVector<Operation *> &keyPlaceOps) {
  if (requested <= 0 || shape.layout != CacheLayout::packed ||
      pagesPerTile(shape.pageSize) > 16)
    return 0;
  std::optional<SmallVector<Operation *>> placeOps = tileKeyPlaceOps(ops);
  if (!placeOps)
    return 0;
  keyPlaceOps = std::move(*placeOps);
  return std::min(requested, shape.headDim / (4 * shape.chunk));
}

/// Whether each 16-byte chunk of D of a packed K page lies contiguously for
/// the page's P tokens (the K memref's strides of slot and element E and 1):
/// the key stage's copy unit (DecodeShape::keyStageRows).
bool keyPagePiecesContiguous(const TiledDecode &ops, const DecodeShape &shape) {
  TileQKOp qk = ops.qk;
  auto type = cast<MemRefType>(qk.getKeyCache().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return ArrayRef(strides).take_back(2) ==
         ArrayRef<int64_t>{shape.chunk, 1};
}

/// Sets up the state the tile-op patterns share, applies them, one per tile
/// op in program order, and drops the tiled IR's buffers they replaced.
class DecodeLowering {
public:
  DecodeLowering(gpu::GPUFuncOp kernel, const TiledDecode &ops,
                 const DecodeShape &shape, ArrayRef<Operation *> keyPlaceOps)
      : kernel(kernel) {
    state.ops = ops;
    state.shape = shape;
    TileSoftmaxOp softmax = ops.softmax;
    state.rowBase = softmax.getRowBase();
    state.contextLength = softmax.getContextLength();
    if (shape.nextTileIdsAhead()) {
      state.keyPlaceOps.assign(keyPlaceOps.begin(), keyPlaceOps.end());
      TileQKOp qk = ops.qk;
      state.keyCache = qk.getKeyCache();
      state.kvHead = qk.getKvHead();
    }
  }

  void run() {
    fitValueStage();
    createBuffers();
    ImplicitLocOpBuilder b(kernel.getLoc(), kernel.getContext());
    b.setInsertionPointToStart(&kernel.getBody().front());
    WarpEmitter e(b);
    ThreadIds &ids = state.ids;
    ids.tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    ids.warp = e.div(ids.tid, 32);
    ids.lane = e.rem(ids.tid, 32);
    ids.g = e.div(ids.lane, 4);
    ids.t = e.rem(ids.lane, 4);

    loadWorkRowAtOnce();
    for (const std::pair<bool, Value> &barrier :
         {std::pair{s.valueStageBlocks > 0, state.buffers.valueBarrier},
          std::pair{s.keyAheadBulk, state.buffers.keyBarrier}})
      if (barrier.first)
        e.ifThen(e.cmpI(arith::CmpIPredicate::eq, ids.tid, e.idx(0)),
                 [&] { e.initBarrier(barrier.second); });
    if (kernel->hasAttr(kSinglePartitionOutputAttrName))
      setUpDirectOutput();
    // Two workgroups per SM (kTwoPerSMBytes; the plan's default budget is
    // two per SM), said to ptxas (.minnctapersm 2): without it ptxas may
    // cap the registers for three (168 at 128 threads), which held fewer
    // KV loads in flight and let three share some SMs while others had
    // one: bf16 Q = 1 up to 25% slower on an H100 (2026-12-05).
    kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b.getI32IntegerAttr(2));
    distributePageIdStaging(kernel, ids);
    if (s.keyAheadInRegisters)
      carryKeysAhead(e);
    // Program order: a pattern may hand state to a later one (qk's V
    // chunks for pv) and reads the buffers the earlier ones wrote.
    RewritePatternSet patterns(kernel.getContext());
    populateTileOpsToWarpsPatterns(patterns, state);
    FrozenRewritePatternSet frozen(std::move(patterns));
    PatternApplicator applicator(frozen);
    applicator.applyDefaultCostModel();
    PatternRewriter rewriter(kernel.getContext());
    for (Operation *op :
         {ops.loadQuery.getOperation(), ops.initSoftmax.getOperation(),
          ops.qk.getOperation(), ops.softmax.getOperation(),
          ops.pv.getOperation(), ops.storePartials.getOperation()}) {
      bool rewritten = succeeded(applicator.matchAndRewrite(op, rewriter));
      assert(rewritten && "every tile op has its pattern");
      (void)rewritten;
    }
    dropUnusedBuffers();
  }

private:
  /// Gives the tile loop one iteration argument per K chunk held ahead
  /// (state.keysAhead), zeros until qk's prologue and pv set their operands.
  void carryKeysAhead(WarpEmitter &e) {
    scf::ForOp loop = state.ops.tileLoop;
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPoint(loop);
    Value zero = e.zero(VectorType::get(
        {s.chunk},
        cast<MemRefType>(state.keyCache.getType()).getElementType()));
    SmallVector<Value> inits(s.keyAheadBlocks * 8, zero);
    IRRewriter rewriter(e.b);
    FailureOr<LoopLikeOpInterface> carried = loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>(args.begin(), args.end());
        });
    assert(succeeded(carried) && "scf.for takes more iteration arguments");
    state.ops.tileLoop = cast<scf::ForOp>(carried->getOperation());
    state.keysAhead = llvm::to_vector_of<Value>(
        state.ops.tileLoop.getRegionIterArgs().take_back(inits.size()));
  }

  /// pa-nvvm-single-partition-output's operands, and whether the plan
  /// gives the sequence one partition, read into shared memory for
  /// store_partials (whose barrier publishes it) by the last warp's first
  /// thread once the query's loads are issued. Its store waits for the
  /// read: on thread 0, before the query, it held warp 0's query and
  /// page-id reads for a round trip; kept in a register until later, it
  /// made ptxas spill in bf16 32-row kernels. At page sizes of 16 and more
  /// the last warp stages page ids only past 96 tiles (below 16, one id
  /// per thread: its ids wait for the count).
  void setUpDirectOutput() {
    auto &direct = state.direct;
    direct.reduceInfo = kernelArgumentNamed(kernel, "reduce_info");
    direct.output = kernelArgumentNamed(kernel, "output");
    direct.sinks = kernelArgumentNamed(kernel, "sinks");
    direct.lse = kernelArgumentNamed(kernel, "lse");
    if (!direct.reduceInfo || !direct.output) {
      direct = {};
      return;
    }
    ImplicitLocOpBuilder b(ops.loadQuery.getLoc(), kernel.getContext());
    b.setInsertionPointAfter(ops.loadQuery);
    WarpEmitter e(b);
    direct.sequence = ops.loadQuery.getSequence();
    Value reader = e.idx(kWorkgroupThreads - 32);
    e.ifThen(e.cmpI(arith::CmpIPredicate::eq, state.ids.tid, reader), [&] {
      Value count = e.load(direct.reduceInfo, {direct.sequence, e.idx(1)});
      e.store(count, state.buffers.partitionCount, {e.idx(0)});
    });
  }

  /// The slot's work_info row (sequence, first tile, end tile, context) in
  /// one vector load: loaded field by field, LLVM sank the sequence's and
  /// context's loads below the empty-slot branch that the tiles decide, a
  /// second round trip before any other read of the prologue.
  void loadWorkRowAtOnce() {
    Value workInfo = kernelArgumentNamed(kernel, "work_info");
    if (!workInfo)
      return;
    auto type = cast<MemRefType>(workInfo.getType());
    if (type.getRank() != 2 || type.getDimSize(1) != 4)
      return;
    SmallVector<memref::LoadOp> fields(4);
    for (Operation *user : workInfo.getUsers()) {
      auto load = dyn_cast<memref::LoadOp>(user);
      if (!load)
        return;
      std::optional<int64_t> field = getConstantIntValue(load.getIndices()[1]);
      if (!field || *field < 0 || *field >= 4 || fields[*field])
        return;
      fields[*field] = load;
    }
    // The four fields of one row, in one block.
    if (llvm::any_of(fields, [&](memref::LoadOp f) {
          return !f || f->getBlock() != fields[0]->getBlock() ||
                 f.getIndices()[0] != fields[0].getIndices()[0];
        }))
      return;
    memref::LoadOp first =
        *llvm::min_element(fields, [](memref::LoadOp a, memref::LoadOp c) {
          return a->isBeforeInBlock(c);
        });
    ImplicitLocOpBuilder b(first.getLoc(), first);
    WarpEmitter e(b);
    auto rowType = VectorType::get({4}, type.getElementType());
    Value row = vector::LoadOp::create(
        b, rowType, workInfo, ValueRange{first.getIndices()[0], e.idx(0)},
        /*nontemporal=*/false, llvm::MaybeAlign(16));
    for (auto [field, load] : llvm::enumerate(fields))
      load.replaceAllUsesWith(
          vector::ExtractOp::create(b, row, int64_t(field)).getResult());
    for (memref::LoadOp load : fields)
      load.erase();
  }

  /// One workgroup buffer of the lowering: `count` elements of `element`,
  /// stored into `*into`.
  struct Allocation {
    Value *into;
    int64_t count;
    Type element;
    int64_t bytes() const {
      return count * llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
    }
  };

  /// The lowering's buffers, in the order they are allocated; the scores
  /// and P's terms are the only ones that may share their bytes.
  SmallVector<Allocation> plannedBuffers() {
    MLIRContext *ctx = kernel.getContext();
    Type operand = s.operandType(ctx), f32 = Float32Type::get(ctx);
    Buffers &buffers = state.buffers;
    SmallVector<Allocation> planned;
    planned.push_back(
        {&buffers.query, s.queryTerms() * s.rows * s.qkDim(), operand});
    if (s.products != Products::BF16)
      planned.push_back({&buffers.rowScale, s.rows, f32});
    planned.push_back({&buffers.scores, s.rows * kScoreStride, f32});
    planned.push_back(
        {&buffers.probs, s.probTerms() * s.rows * kTileTokens, operand});
    planned.push_back({&buffers.acc, s.rows * s.accStride(), f32});
    planned.push_back({&buffers.pageIds, 2 * pagesPerTile(s.pageSize),
                       IntegerType::get(ctx, 32)});
    if (s.e4m3() && s.vScale == ScaleMode::per_token)
      planned.push_back({&buffers.warpMax, kWarps, f32});
    if (s.rescaleInPV())
      planned.push_back({&buffers.alpha, s.rows, f32});
    if (kernel->hasAttr(kSinglePartitionOutputAttrName))
      planned.push_back(
          {&buffers.partitionCount, 1, IntegerType::get(ctx, 32)});
    Type keyElement =
        cast<MemRefType>(ops.qk.getKeyCache().getType()).getElementType();
    if (s.keyAheadBulk) {
      planned.push_back({&buffers.keyStage,
                         s.keyStageRows() * s.keyStageRowStride(), keyElement});
      planned.push_back({&buffers.keyBarrier, 1, IntegerType::get(ctx, 64)});
    } else if (s.keyAheadBlocks > 0 && !s.keyAheadInRegisters)
      planned.push_back(
          {&buffers.keyAhead,
           s.keyAheadBlocks * 8 * kWorkgroupThreads * s.chunk, keyElement});
    if (s.valueStageBlocks > 0) {
      planned.push_back({&buffers.valueStage,
                         s.valueUnits() * s.valueUnitStride(),
                         cast<MemRefType>(ops.pv.getValueCache().getType())
                             .getElementType()});
      planned.push_back({&buffers.valueBarrier, 1, IntegerType::get(ctx, 64)});
    }
    // Only where P's terms take the scores' bytes (pv reads the partly
    // seen tokens' P from the scores elsewhere).
    if (s.partlySlots() > 0)
      planned.push_back({&buffers.partlyProbs, s.partlySlots() * s.rows, f32});
    return planned;
  }

  void createBuffers() {
    Location loc = kernel.getLoc();
    auto add = [&](int64_t count, Type element) {
      return kernel.addWorkgroupAttribution(workgroupMemRef({count}, element),
                                            loc);
    };
    Buffers &buffers = state.buffers;
    SmallVector<Allocation> planned = plannedBuffers();
    const Allocation *scores = findPlanned(planned, &buffers.scores);
    const Allocation *probs = findPlanned(planned, &buffers.probs);
    state.probsAliasScores = scoresAndProbsShareBytes(planned);
    for (const Allocation &buffer : planned) {
      if (buffer.into == &buffers.partlyProbs && !state.probsAliasScores)
        continue; // see plannedBuffers
      if (!state.probsAliasScores) {
        *buffer.into = add(buffer.count, buffer.element);
        continue;
      }
      if (&buffer == probs)
        continue; // a view of the scores' bytes, made with them
      if (&buffer != scores) {
        *buffer.into = add(buffer.count, buffer.element);
        continue;
      }
      Value shared = add(std::max(scores->bytes(), probs->bytes()),
                         IntegerType::get(kernel.getContext(), 8));
      auto view = [&](const Allocation &of) -> Value {
        ImplicitLocOpBuilder b(loc, kernel.getContext());
        b.setInsertionPointToStart(&kernel.getBody().front());
        return memref::ViewOp::create(
            b, workgroupMemRef({of.count}, of.element), shared,
            arith::ConstantIndexOp::create(b, 0), ValueRange{});
      };
      *scores->into = view(*scores);
      *probs->into = view(*probs);
    }
    buffers.rowMax = ops.softmax.getRowMax();
    buffers.rowSum = ops.softmax.getRowSum();
  }

  static const Allocation *findPlanned(ArrayRef<Allocation> planned,
                                       Value *into) {
    return llvm::find_if(
        planned, [&](const Allocation &buffer) { return buffer.into == into; });
  }

  /// Whether P's terms go into the scores' bytes (pv's prologue reads every
  /// score it needs before any thread writes a term; nothing reads a score
  /// after it): only where that brings the kernel's shared memory down to
  /// two workgroups per SM (bf16 KV at 32 rows and D 256: 92,576 bytes
  /// (90.4 KiB) as ptxas reports them, 32,768 more without the sharing).
  /// Elsewhere it would cost a barrier per tile for nothing: registers cap
  /// the 16-row kernels' workgroups per SM first. The estimate adds the
  /// buffers `planned` to the tiled IR's that stay, each rounded up to 16
  /// bytes; the partly seen tokens' P only to the shared side, which alone
  /// needs it.
  bool scoresAndProbsShareBytes(ArrayRef<Allocation> planned) {
    auto aligned = [](int64_t bytes) { return llvm::alignTo(bytes, 16); };
    int64_t others = stayingBytes();
    const Allocation *scores = findPlanned(planned, &state.buffers.scores);
    const Allocation *probs = findPlanned(planned, &state.buffers.probs);
    const Allocation *partly =
        findPlanned(planned, &state.buffers.partlyProbs);
    int64_t partlyBytes = 0;
    for (const Allocation &buffer : planned) {
      if (&buffer == partly)
        partlyBytes = aligned(buffer.bytes());
      else if (&buffer != scores && &buffer != probs)
        others += aligned(buffer.bytes());
    }
    return others + aligned(scores->bytes()) + aligned(probs->bytes()) >
               kTwoPerSMBytes &&
           others + partlyBytes +
                   aligned(std::max(scores->bytes(), probs->bytes())) <=
               kTwoPerSMBytes;
  }

  /// The bytes of the tiled IR's buffers that stay (staged page ids, row
  /// statistics; not those only its tile ops use, which this lowering
  /// replaces), each rounded up to 16.
  int64_t stayingBytes() {
    auto replaced = [&](Value buffer) {
      return buffer != ops.softmax.getRowMax() &&
             buffer != ops.softmax.getRowSum() && usedByTileOpsOnly(buffer);
    };
    int64_t bytes = 0;
    for (BlockArgument buffer : kernel.getWorkgroupAttributions()) {
      if (replaced(buffer))
        continue;
      auto type = cast<MemRefType>(buffer.getType());
      bytes +=
          llvm::alignTo(type.getNumElements() *
                            llvm::divideCeil(type.getElementTypeBitWidth(), 8),
                        16);
    }
    return bytes;
  }

  /// The kernel's shared memory with the buffers `planned`, as
  /// createBuffers allocates them (16-byte aligned; the scores and P's
  /// terms in one buffer where scoresAndProbsShareBytes).
  int64_t sharedBytes(ArrayRef<Allocation> planned) {
    const bool share = scoresAndProbsShareBytes(planned);
    const Allocation *scores = findPlanned(planned, &state.buffers.scores);
    const Allocation *probs = findPlanned(planned, &state.buffers.probs);
    int64_t bytes = stayingBytes();
    for (const Allocation &buffer : planned) {
      if (buffer.into == &state.buffers.partlyProbs && !share)
        continue;
      if (share && &buffer == probs)
        continue;
      int64_t size = share && &buffer == scores
                         ? std::max(scores->bytes(), probs->bytes())
                         : buffer.bytes();
      bytes += llvm::alignTo(size, 16);
    }
    return bytes;
  }

  /// Fewer value-stage blocks (whole copy units) until the kernel keeps two
  /// workgroups per SM (kTwoPerSMBytes), none if it cannot.
  void fitValueStage() {
    int64_t &blocks = state.shape.valueStageBlocks;
    const int64_t step =
        std::max<int64_t>(1, s.valueUnitTokens() / (4 * s.chunk));
    while (blocks > 0 && sharedBytes(plannedBuffers()) > kTwoPerSMBytes)
      blocks = std::max<int64_t>(0, blocks - step);
  }

  /// The tiled IR's tile buffers this lowering replaced.
  void dropUnusedBuffers() {
    unsigned first = kernel.getFirstWorkgroupAttributionIndex();
    for (unsigned i = kernel.getNumWorkgroupAttributions(); i-- > 0;) {
      BlockArgument buffer = kernel.getWorkgroupAttributions()[i];
      if (!buffer.use_empty())
        continue;
      kernel.getBody().front().eraseArgument(first + i);
      kernel->setAttr(
          gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
          IntegerAttr::get(IntegerType::get(kernel.getContext(), 64),
                           kernel.getNumWorkgroupAttributions() - 1));
    }
  }

  gpu::GPUFuncOp kernel;
  DecodeState state;
  TiledDecode &ops = state.ops;
  const DecodeShape &s = state.shape;
};

} // namespace

void mlir::pa::nvvm::populateTileOpsToWarpsPatterns(RewritePatternSet &patterns,
                                                    DecodeState &state) {
  populateLoadQueryToWarpsPatterns(patterns, state);
  populateSoftmaxToWarpsPatterns(patterns, state);
  populateQKToWarpsPatterns(patterns, state);
  populatePVToWarpsPatterns(patterns, state);
  populateStorePartialsToWarpsPatterns(patterns, state);
}

bool mlir::pa::nvvm::decodeKernelTakesWarps(gpu::GPUFuncOp kernel) {
  TiledDecode ops;
  DecodeShape shape;
  SmallVector<Operation *> keyPlaceOps;
  std::string reason;
  return analyze(kernel, WarpOptions(), ops, keyPlaceOps, shape, reason);
}

bool mlir::pa::nvvm::distributeDecodeKernel(gpu::GPUFuncOp kernel,
                                            const WarpOptions &options,
                                            std::string &reason) {
  TiledDecode ops;
  DecodeShape shape;
  SmallVector<Operation *> keyPlaceOps;
  if (!analyze(kernel, options, ops, keyPlaceOps, shape, reason))
    return false;
  DecodeLowering(kernel, ops, shape, keyPlaceOps).run();
  return true;
}
