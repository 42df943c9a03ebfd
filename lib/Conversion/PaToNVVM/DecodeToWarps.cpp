//===- DecodeToWarps.cpp - the decode kernel on NVIDIA warps --------------===//
//
// The decode kernel's workgroup program on 128 threads (4 warps, lane l of
// warp w, g = l / 4, t = l % 4), one pa.tile op at a time, the ops
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
// Work split, per 256-token tile:
//   qk       warp w: tokens 64w + [0, 64) in 8 n-blocks of 8 tokens (B = K,
//            token n = g loads its chunks), all rows, over D; scores to
//            shared memory (rows padded to 264 floats: no bank conflicts).
//   softmax  128 / M threads per row, 256 * M / 128 scores each; warp
//            shuffles reduce max and sum; acc rows scaled by alpha (for
//            32 rows, alpha goes to shared memory and pv scales the
//            accumulators as it loads them).
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
//            the tiles that have such tokens (a uniform branch).
//
//===----------------------------------------------------------------------===//
#include "DecodeToWarps.h"
#include "WarpEmitter.h"

#include "pa/IR/PaOps.h"
#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/ScoreMath.h"
#include "pa/Transforms/TileLowering.h"
#include "pa/Transforms/TiledDecode.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

namespace {

constexpr int64_t kWarps = kWorkgroupThreads / 32;
constexpr int64_t kTileTokens = 256;
constexpr int64_t kTokensPerWarp = kTileTokens / kWarps;
/// Row stride of the scores in floats: 8 extra floats put rows g and g + 1
/// of a fragment access in different banks.
constexpr int64_t kScoreStride = kTileTokens + 8;
/// At most this many n-blocks of accumulators per pass over the tokens
/// (32 accumulator registers per thread and M-tile).
constexpr int64_t kMaxBlocksPerPass = 8;
/// Largest operand magnitude of the split e4m3 terms (below 448).
constexpr int64_t kE4M3Headroom = 256;
/// Tiles of more page ids than this (pages shorter than 16 tokens) read
/// them from the block table on all threads, one id each, not as one
/// thread's chain of dependent reads (256 at P = 1: 10-40 times the packed
/// layout's time on the H200, 2026-12-02).
constexpr int64_t kSerialPageIds = 16;
/// Shared memory of a workgroup that lets two of them share an sm_90a SM
/// (228 KiB per SM, 1 KiB of it reserved per workgroup). Two workgroups
/// (8 warps) keep enough KV loads in flight; one does not (fp8 at Q = 4:
/// 26-28% faster with two, 1353ff8).
constexpr int64_t kTwoPerSMBytes = 228 * 1024 / 2 - 1024;

/// The element type of the mma operands.
enum class Products { E4M3, F16, BF16 };

/// What the kernel's tile ops fix at compile time.
struct DecodeShape {
  int64_t rows = 0;    // M: 16 or 32
  int64_t headDim = 0; // D
  int64_t pageSize = 0; // P
  /// packed (K packed, V plain / transposed), nhd or hnd (K and V alike).
  CacheLayout layout = CacheLayout::packed;
  int64_t chunk = 0;   // E: KV elements per 16 bytes (16 fp8, 8 bf16)
  Products products = Products::BF16;
  bool f16Query = false;
  bool transposedV = false;
  ScaleMode kScale = ScaleMode::none, vScale = ScaleMode::none;
  float scoreScale = 0;
  std::optional<float> softCap; // exp2 domain, as pa.tile.qk's soft_cap
  int64_t queryLength = 0, groupSize = 0, window = 0;

  int64_t mTiles() const { return rows / 16; }
  bool e4m3() const { return products == Products::E4M3; }
  /// Bytes of one mma operand element.
  int64_t operandBytes() const { return e4m3() ? 1 : 2; }
  Type operandType(MLIRContext *ctx) const {
    return IntegerType::get(ctx, 8 * operandBytes());
  }
  /// Terms the query and P are split into (see the file comment).
  int64_t queryTerms() const {
    if (e4m3())
      return 2;
    return products == Products::BF16 && f16Query ? 2 : 1;
  }
  int64_t probTerms() const {
    switch (products) {
    case Products::E4M3:
      return 3;
    case Products::F16:
      return 1;
    case Products::BF16:
      return 2;
    }
    llvm_unreachable("unknown products");
  }
  /// mma steps per 16-byte KV chunk: 8 operand bytes per thread and step.
  int64_t stepsPerChunk() const { return chunk * operandBytes() / 8; }
  /// Operand elements per 32-bit word.
  int64_t elementsPerWord() const { return 4 / operandBytes(); }
  /// Head dims the QK contraction runs over: D rounded up to whole blocks
  /// of 4 chunks (64 fp8 / 32 bf16); the pad's query and K are zeros.
  int64_t qkDim() const { return llvm::alignTo(headDim, 4 * chunk); }
  /// Head-dim columns of the PV product: D rounded up to whole n-blocks of
  /// 8 columns per warp (32); pad columns read a clamped V column and are
  /// never stored.
  int64_t pvDim() const { return llvm::alignTo(headDim, 32); }
  int64_t accStride() const { return pvDim() + 8; }
  /// Where softmax's rescale of the accumulator rows (alpha) happens: in
  /// pv, as it loads the accumulators, for two M-tiles (32 rows: on the
  /// H200 6.5% faster for fp8 and 3% for bf16 at Q = 4, 2026-11-30), else
  /// in softmax (one M-tile: there moving it measured 1.5% (fp8) and 10%
  /// (bf16) slower at Q = 1; ptxas allocated and scheduled differently).
  bool rescaleInPV() const { return mTiles() == 2; }
};

/// Matches the tile ops against the tiled IR contract (TiledDecode.h) and
/// checks that the lowering below supports their types and sizes; false
/// with `reason` otherwise.
bool analyze(gpu::GPUFuncOp kernel, bool e4m3Products, TiledDecode &ops,
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
  shape.products = !fp8 ? Products::BF16
                   : e4m3Products ? Products::E4M3
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
  int64_t valuePack =
      shape.transposedV ? memref(ops.pv.getValueCache()).getShape().back()
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
  return true;
}

/// Workgroup buffers of the lowering (flat, in the shapes DecodeShape
/// describes), plus the tiled IR's row statistics.
struct Buffers {
  Value query;    // A fragments of [terms][M][D] (fragmentIndex), operand bits
  Value rowScale; // [M] f32: 2^-shift of the query rows (f16, e4m3)
  Value scores;   // [M][kScoreStride] f32
  Value probs;    // A fragments of [terms][M][256] (fragmentIndex); in the
                  // scores' bytes when probsAliasScores
  Value acc;      // [M][accStride] f32
  Value pageIds;  // [2][256 / P] i32, by tile parity
  Value warpMax;  // [4] f32: per-warp largest P weight (e4m3, per-token)
  Value alpha;    // [M] f32: the tile's rescale of the acc rows (rescaleInPV)
  Value rowMax, rowSum;
};

/// Per-thread ids, computed once at kernel entry.
struct ThreadIds {
  Value tid, warp, lane, g, t; // index
};

class DecodeLowering {
public:
  DecodeLowering(gpu::GPUFuncOp kernel, const TiledDecode &ops,
                 const DecodeShape &shape)
      : kernel(kernel), ops(ops), s(shape) {}

  void run() {
    createBuffers();
    ImplicitLocOpBuilder b(kernel.getLoc(), kernel.getContext());
    b.setInsertionPointToStart(&kernel.getBody().front());
    WarpEmitter e(b);
    ids.tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    ids.warp = e.div(ids.tid, 32);
    ids.lane = e.rem(ids.tid, 32);
    ids.g = e.div(ids.lane, 4);
    ids.t = e.rem(ids.lane, 4);

    distributeStagingLoops();
    distributeFallbackReads();
    lowerLoadQuery();
    lowerInit();
    storePageIds();
    lowerQK();
    lowerSoftmax();
    if (ops.alibi) // applied by lowerSoftmax
      ops.alibi.erase();
    lowerPV();
    lowerStore();
    dropUnusedBuffers();
  }

private:
  //===--- setup ---------------------------------------------------------===//

  void createBuffers() {
    Location loc = kernel.getLoc();
    auto add = [&](int64_t count, Type element) {
      return kernel.addWorkgroupAttribution(workgroupMemRef({count}, element),
                                            loc);
    };
    MLIRContext *ctx = kernel.getContext();
    Type operand = s.operandType(ctx), f32 = Float32Type::get(ctx);
    const int64_t scoreCount = s.rows * kScoreStride;
    const int64_t probCount = s.probTerms() * s.rows * kTileTokens;
    probsAliasScores = scoresAndProbsShareBytes(scoreCount * 4,
                                                probCount * s.operandBytes());
    buffers.query = add(s.queryTerms() * s.rows * s.qkDim(), operand);
    if (s.products != Products::BF16)
      buffers.rowScale = add(s.rows, f32);
    if (probsAliasScores) {
      const int64_t bytes =
          std::max(scoreCount * 4, probCount * s.operandBytes());
      Value shared = add(bytes, IntegerType::get(ctx, 8));
      auto view = [&](int64_t count, Type element) -> Value {
        ImplicitLocOpBuilder b(loc, kernel.getContext());
        b.setInsertionPointToStart(&kernel.getBody().front());
        return memref::ViewOp::create(b, workgroupMemRef({count}, element),
                                      shared,
                                      arith::ConstantIndexOp::create(b, 0),
                                      ValueRange{});
      };
      buffers.scores = view(scoreCount, f32);
      buffers.probs = view(probCount, operand);
    } else {
      buffers.scores = add(scoreCount, f32);
      buffers.probs = add(probCount, operand);
    }
    buffers.acc = add(s.rows * s.accStride(), f32);
    buffers.pageIds =
        add(2 * pagesPerTile(s.pageSize), IntegerType::get(ctx, 32));
    if (s.e4m3() && s.vScale == ScaleMode::per_token)
      buffers.warpMax = add(kWarps, f32);
    if (s.rescaleInPV())
      buffers.alpha = add(s.rows, f32);
    buffers.rowMax = ops.softmax.getRowMax();
    buffers.rowSum = ops.softmax.getRowSum();
  }

  /// Whether P's terms go into the scores' bytes (pv's prologue reads every
  /// score it needs before any thread writes a term; nothing reads a score
  /// after it): only where that brings the kernel's shared memory down to
  /// two workgroups per SM (bf16 KV at 32 rows and D 256: 125 -> 93 KiB).
  /// Elsewhere it would cost a barrier per tile for nothing: registers cap
  /// the 16-row kernels' workgroups per SM first.
  bool scoresAndProbsShareBytes(int64_t scoreBytes, int64_t probBytes) {
    auto aligned = [](int64_t bytes) { return llvm::alignTo(bytes, 16); };
    auto bytesOf = [](int64_t count, int64_t elementBytes) {
      return llvm::alignTo(count * elementBytes, 16);
    };
    // The tiled IR's buffers that stay (staged page ids, row statistics:
    // not those only its tile ops use, which this lowering replaces) and
    // this lowering's others.
    auto replaced = [&](Value buffer) {
      return buffer != ops.softmax.getRowMax() &&
             buffer != ops.softmax.getRowSum() && usedByTileOpsOnly(buffer);
    };
    int64_t others = 0;
    for (BlockArgument buffer : kernel.getWorkgroupAttributions()) {
      if (replaced(buffer))
        continue;
      auto type = cast<MemRefType>(buffer.getType());
      others += bytesOf(type.getNumElements(),
                        llvm::divideCeil(type.getElementTypeBitWidth(), 8));
    }
    others += bytesOf(s.queryTerms() * s.rows * s.qkDim(), s.operandBytes()) +
              bytesOf(s.rows * s.accStride(), 4) +
              bytesOf(2 * pagesPerTile(s.pageSize), 4);
    if (s.products != Products::BF16)
      others += bytesOf(s.rows, 4);
    if (s.e4m3() && s.vScale == ScaleMode::per_token)
      others += bytesOf(kWarps, 4);
    if (s.rescaleInPV())
      others += bytesOf(s.rows, 4);
    return others + aligned(scoreBytes) + aligned(probBytes) > kTwoPerSMBytes &&
           others + aligned(std::max(scoreBytes, probBytes)) <= kTwoPerSMBytes;
  }

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
        if (auto direct = dyn_cast<TilePageIdsOp>(op); direct && direct.getDirect())
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
            e.add(loop.getLowerBound(), e.mul(ids.tid, loop.getStep())));
        loop.setStep(e.mul(loop.getStep(), kWorkgroupThreads));
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
    auto store = dyn_cast<vector::StoreOp>(
        *read.getPageIds().getUsers().begin());
    if (!store || store->getBlock() != loop.getBody() ||
        getConstantIntValue(loop.getLowerBound()) != 0 ||
        getConstantIntValue(loop.getStep()) != 1)
      return false;
    Value total = e.mul(loop.getUpperBound(), perTile);
    e.forLoop(ids.tid, total, e.idx(kWorkgroupThreads), [&](Value f) {
      // The loop body's tile computation for tile j (its store and read
      // left out), then page k of that tile.
      IRMapping map;
      map.map(loop.getInductionVar(), e.div(f, perTile));
      for (Operation &op : loop.getBody()->without_terminator())
        if (&op != read.getOperation() && &op != store.getOperation())
          e.b.clone(op, map);
      storeDirectPageIds(e, read, map.lookupOrDefault(read.getTile()),
                         store.getBase(), e.mul(e.div(f, perTile), perTile),
                         e.rem(f, perTile));
    });
    return true;
  }

  /// pa-stage-page-ids' per-tile reads (scf.if: the staged ids from
  /// workgroup memory, else a direct read) for tiles of more than
  /// kSerialPageIds ids: the direct read becomes one id per thread into the
  /// staged buffer's first tile, a barrier, and the same vector load as the
  /// staged branch. The staged tiles come first in the tile loop, so their
  /// ids are dead when a tile falls back.
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
      Value buffer =
          select.thenYield().getOperand(0).getDefiningOp<vector::LoadOp>()
              .getBase();
      ImplicitLocOpBuilder b(read.getLoc(), read);
      WarpEmitter e(b);
      e.forLoop(ids.tid, e.idx(pagesPerTile(read.getPageSize())),
                e.idx(kWorkgroupThreads), [&](Value k) {
                  storeDirectPageIds(e, read, read.getTile(), buffer,
                                     e.idx(0), k);
                });
      e.barrier();
      Value ids = vector::LoadOp::create(b, read.getPageIds().getType(),
                                         buffer, ValueRange{e.idx(0)});
      read.getPageIds().replaceAllUsesWith(ids);
      read.erase();
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
            buffer, {e.add(base, k)});
  }

  //===--- load_query ----------------------------------------------------===//

  /// Warp w converts rows w, w + 4, ...: lane l reads elements l + 32k.
  /// f16 / e4m3: q * 2^shift, the shift putting the row's largest |q| just
  /// below 2^15 (f16: exact for every bf16 value that is not 2^-28 times
  /// smaller) or 256 (e4m3: hi + lo terms), 2^-shift kept per row. bf16:
  /// bits (hi, and lo for an f16 query). Padding rows are 0.
  void lowerLoadQuery() {
    TileLoadQueryOp op = ops.loadQuery;
    ImplicitLocOpBuilder b(op.getLoc(), op);
    WarpEmitter e(b);
    // Columns past D (up to qkDim) hold zeros.
    const int64_t perLane = s.qkDim() / 32;
    const int64_t queryRows = op.getQueryLength() * op.getGroupSize();
    Value group = e.idx(op.getGroupSize());
    for (int64_t i = 0; i < s.rows / kWarps; ++i) {
      Value m = e.add(ids.warp, i * kWarps);
      Value row = e.add(op.getRowBase(), m);
      Value isRow = e.cmp(CmpIPredicate::ult, row, e.idx(queryRows));
      e.ifThenElse(
          isRow,
          [&] {
            Value queryRow =
                e.add(e.mul(op.getSequence(), op.getQueryLength()),
                      arith::DivUIOp::create(b, row, group));
            Value head = e.add(e.mul(op.getKvHead(), op.getGroupSize()),
                               arith::RemUIOp::create(b, row, group));
            SmallVector<Value> values, columns;
            for (int64_t k = 0; k < perLane; ++k) {
              Value d = e.add(ids.lane, 32 * k);
              if (32 * (k + 1) <= s.headDim) {
                Value x = e.load(op.getQuery(), {queryRow, head, d});
                values.push_back(x.getType().isF32() ? x : toF32(e, x));
              } else {
                // Read inside the row, then 0 past D.
                Value inRow = e.cmp(CmpIPredicate::ult, d, e.idx(s.headDim));
                Value x = e.load(
                    op.getQuery(),
                    {queryRow, head, e.select(inRow, d, e.idx(s.headDim - 1))});
                x = x.getType().isF32() ? x : toF32(e, x);
                values.push_back(e.select(inRow, x, e.f32(0.0)));
              }
              columns.push_back(d);
            }
            // A row holding a NaN or infinity becomes NaN as a whole
            // (pa.tile.load_query): 0 * x is NaN exactly for those.
            Value zero = e.f32(0.0);
            Value poison = zero;
            for (Value x : values)
              poison = e.addF(poison, e.mulF(x, zero));
            for (int64_t offset = 16; offset >= 1; offset /= 2)
              poison = e.addF(poison, e.shuffleXor(poison, offset));
            for (Value &x : values)
              x = e.addF(x, poison);
            storeQueryRow(e, m, values, columns);
          },
          [&] {
            Value zero = e.constant(s.operandType(b.getContext()), 0);
            for (int64_t term = 0; term < s.queryTerms(); ++term)
              for (int64_t k = 0; k < perLane; ++k)
                e.store(zero, buffers.query,
                        {fragmentIndex(e, s.qkDim(), term, m,
                                       e.add(ids.lane, 32 * k))});
            if (buffers.rowScale)
              e.ifThen(e.cmp(CmpIPredicate::eq, ids.lane, e.idx(0)), [&] {
                e.store(e.f32(1.0), buffers.rowScale, {m});
              });
          });
    }
    e.barrier();
    op.erase();
  }

  /// Where element k (a head-dim column of the query, a token of P) of
  /// row m of term `term` lies, in operand elements, in a buffer of A
  /// fragments of rows of `extent` elements: the words thread (g, t) passes
  /// to the mma of step s for M-tile mt and k-block `block` (rows g and
  /// g + 8, words 2s and 2s + 1 of its chunk t: a0 a1 a2 a3) lie together,
  /// and the 32 lanes' fragments of one (block, step) follow each other in
  /// lane order: each fragment is one bank-conflict-free 16-byte load,
  /// straight into the mma's registers.
  Value fragmentIndex(WarpEmitter &e, int64_t extent, int64_t term, Value m,
                      Value k) {
    const int64_t blocks = extent / (4 * s.chunk);
    const int64_t perWord = s.elementsPerWord();
    Value mt = e.div(m, 16), half = e.rem(e.div(m, 8), 2), g = e.rem(m, 8);
    Value block = e.div(k, 4 * s.chunk);
    Value t = e.rem(e.div(k, s.chunk), 4);
    Value j = e.rem(k, s.chunk);
    Value word = e.div(j, perWord), sub = e.rem(j, perWord);
    Value slot = e.add(e.mul(e.rem(word, 2), 2), half);
    Value lane = e.add(e.mul(g, 4), t);
    Value group = e.add(
        e.mul(e.add(e.mul(e.add(mt, term * s.mTiles()), blocks), block),
              s.stepsPerChunk()),
        e.div(word, 2));
    Value wordIndex = e.add(e.add(e.mul(group, 128), e.mul(lane, 4)), slot);
    return e.add(e.mul(wordIndex, perWord), sub);
  }

  /// This thread's A fragment (a0 a1 a2 a3) of M-tile mt, term `term`,
  /// k-block `block` and step `step` in a buffer laid out by fragmentIndex.
  std::array<Value, 4> loadFragment(WarpEmitter &e, Value buffer,
                                    int64_t extent, int64_t term, int64_t mt,
                                    int64_t block, int64_t step) {
    const int64_t blocks = extent / (4 * s.chunk);
    int64_t group =
        ((term * s.mTiles() + mt) * blocks + block) * s.stepsPerChunk() + step;
    Value at = e.mul(e.add(e.idx(group * 128), e.mul(ids.lane, 4)),
                     s.elementsPerWord());
    SmallVector<Value> w =
        e.words(e.loadVector(buffer, {at}, 4 * s.elementsPerWord()));
    return {w[0], w[1], w[2], w[3]};
  }

  /// Stores one row's operand terms (`values`, at `columns`).
  void storeQueryRow(WarpEmitter &e, Value m, ArrayRef<Value> values,
                     ArrayRef<Value> columns) {
    ImplicitLocOpBuilder &b = e.b;
    Type f32 = b.getF32Type();
    Type narrow = s.products == Products::E4M3 ? Type(Float8E4M3FNType::get(b.getContext()))
                  : s.products == Products::F16 ? b.getF16Type()
                                                : b.getBF16Type();
    Value up;
    if (s.products != Products::BF16) {
      // 2^shift with amax * 2^shift in [2^top, 2^(top+1)).
      int64_t top = s.e4m3() ? llvm::Log2_64(kE4M3Headroom) - 1 : 14;
      Value amax = e.f32(0.0);
      for (Value x : values)
        amax = e.maxF(amax, e.absF(x));
      for (int64_t offset = 16; offset >= 1; offset /= 2)
        amax = e.maxF(amax, e.shuffleXor(amax, offset));
      // floor(log2(amax)) from the exponent field; a zero row gets the
      // largest shift, which is harmless.
      Value exponent =
          e.sub(e.andI(e.shr(e.bitcast(b.getI32Type(), amax), 23), 0xFF),
                e.i32(127));
      Value shift = e.minS(e.maxS(e.sub(e.i32(top), exponent), e.i32(-100)),
                           e.i32(126));
      up = e.bitcast(f32, e.shl(e.add(shift, 127), 23));
      Value down = e.bitcast(f32, e.shl(e.sub(e.i32(127), shift), 23));
      e.ifThen(e.cmp(CmpIPredicate::eq, ids.lane, e.idx(0)),
               [&] { e.store(down, buffers.rowScale, {m}); });
    }
    for (auto [x, d] : llvm::zip(values, columns)) {
      Value rest = up ? e.mulF(x, up) : x;
      for (int64_t term = 0; term < s.queryTerms(); ++term) {
        Value part = arith::TruncFOp::create(b, narrow, rest);
        e.store(e.bitcast(s.operandType(b.getContext()), part), buffers.query,
                {fragmentIndex(e, s.qkDim(), term, m, d)});
        if (term + 1 < s.queryTerms())
          rest = e.subF(rest, arith::ExtFOp::create(b, f32, part));
      }
    }
  }

  //===--- init_softmax --------------------------------------------------===//

  void lowerInit() {
    TileInitSoftmaxOp op = ops.initSoftmax;
    ImplicitLocOpBuilder b(op.getLoc(), op);
    WarpEmitter e(b);
    e.ifThen(e.cmp(CmpIPredicate::ult, ids.tid, e.idx(s.rows)), [&] {
      e.store(e.negInf(), buffers.rowMax, {ids.tid});
      e.store(e.f32(0.0), buffers.rowSum, {ids.tid});
    });
    Value zero = e.f32(0.0);
    e.forLoop(ids.tid, e.idx(s.rows * s.accStride()), e.idx(kWorkgroupThreads),
              [&](Value i) { e.store(zero, buffers.acc, {i}); });
    op.erase();
  }

  //===--- page ids ------------------------------------------------------===//

  /// Thread 0 stores the tile's page ids (a uniform vector) into the slot of
  /// the tile's parity, so that each thread reads the ids of its own tokens
  /// by index; qk's barrier publishes them. Alternating slots keep the next
  /// tile's store clear of this tile's readers without another barrier.
  void storePageIds() {
    TileQKOp op = ops.qk;
    ImplicitLocOpBuilder b(op.getLoc(), op);
    WarpEmitter e(b);
    e.ifThen(e.cmp(CmpIPredicate::eq, ids.tid, e.idx(0)), [&] {
      e.storeVector(op.getPageIds(), buffers.pageIds,
                    {tilePages(e, op.getTileStart()).idBase});
    });
  }

  /// Where the page ids of the tile at token `tileStart` (i64, the qk and
  /// pv ops' shared operand) are: the first slot of its ids in pageIds,
  /// (tile % 2) * pagesPerTile(P), and for a page larger than a tile the
  /// slot of the tile's first token in it (tileStart % P; else null).
  struct TilePages {
    Value idBase, firstSlot;
  };
  TilePages tilePages(WarpEmitter &e, Value tileStart) {
    Value parity = e.andI(e.shr(tileStart, llvm::Log2_64(kTileTokens)), 1);
    TilePages pages{e.mul(e.toIndex(parity), pagesPerTile(s.pageSize)), {}};
    if (s.pageSize > kTileTokens)
      pages.firstSlot = e.toIndex(e.rem(tileStart, s.pageSize));
    return pages;
  }

  /// Page (index) and slot of tile-relative token `token` (index).
  std::pair<Value, Value> locate(WarpEmitter &e, const TilePages &pages,
                                 Value token) {
    if (pages.firstSlot)
      return {e.toIndex(e.load(buffers.pageIds, {pages.idBase})),
              e.add(pages.firstSlot, token)};
    Value id = e.load(buffers.pageIds,
                      {e.add(pages.idBase, e.div(token, s.pageSize))});
    return {e.toIndex(id), e.rem(token, s.pageSize)};
  }

  /// Indices of element `d` (index) of token (page, slot)'s K or V row in
  /// an nhd / hnd cache: the layouts' one address mapping, shared with the
  /// host lowering and pa-to-mfma.
  SmallVector<Value, 5> cacheIndices(WarpEmitter &e, CacheOperand operand,
                                     Value page, Value kvHead, Value slot,
                                     Value d) {
    return buildCacheElementIndices(
        e.b, e.b.getLoc(), s.layout, operand, VLayout::plain, s.chunk, page,
        kvHead, slot, d, [&](TypedAttr value) -> Value {
          return arith::ConstantOp::create(e.b, value);
        });
  }

  /// The dequantization scale of tile-relative token `token`.
  Value tokenScale(WarpEmitter &e, ScaleMode mode, Value scales,
                   const TilePages &pages, Value kvHead, Value token) {
    switch (mode) {
    case ScaleMode::none:
      return e.f32(1.0);
    case ScaleMode::per_tensor:
      return toF32(e, e.load(scales, {e.idx(0)}));
    case ScaleMode::per_token: {
      auto [page, slot] = locate(e, pages, token);
      return toF32(e, e.load(scales, {page, kvHead, slot}));
    }
    }
    llvm_unreachable("unknown scale mode");
  }

  static Value toF32(WarpEmitter &e, Value x) {
    if (x.getType().isF32())
      return x;
    return arith::ExtFOp::create(e.b, e.b.getF32Type(), x);
  }

  //===--- operand fragments ---------------------------------------------===//

  /// A 16-byte KV chunk as operand words: converted to f16 for f16
  /// products (word 2i holds elements 4i, 4i + 1; word 2i + 1 elements
  /// 4i + 2, 4i + 3), else as loaded.
  SmallVector<Value> kvWords(WarpEmitter &e, Value chunk) {
    SmallVector<Value> raw = e.words(chunk);
    if (s.products != Products::F16)
      return raw;
    ImplicitLocOpBuilder &b = e.b;
    SmallVector<Value> halves;
    for (Value word : raw) {
      Value low = arith::TruncIOp::create(b, b.getI16Type(), word);
      Value high = arith::TruncIOp::create(b, b.getI16Type(), e.shr(word, 16));
      halves.push_back(e.e4m3x2ToF16x2(low));
      halves.push_back(e.e4m3x2ToF16x2(high));
    }
    return halves;
  }

  static std::array<Value, 2> bFragment(ArrayRef<Value> chunk, int64_t step) {
    return {chunk[2 * step], chunk[2 * step + 1]};
  }

  Accumulator mma(WarpEmitter &e, std::array<Value, 4> a,
                  std::array<Value, 2> b, const Accumulator &c) {
    switch (s.products) {
    case Products::E4M3:
      return e.mmaE4M3(a, b, c);
    case Products::F16:
      return e.mma(/*bf16=*/false, a, b, c);
    case Products::BF16:
      return e.mma(/*bf16=*/true, a, b, c);
    }
    llvm_unreachable("unknown products");
  }

  Accumulator zeros(WarpEmitter &e) {
    Value zero = e.f32(0.0);
    return {zero, zero, zero, zero};
  }

  //===--- qk ------------------------------------------------------------===//

  void lowerQK() {
    TileQKOp op = ops.qk;
    ImplicitLocOpBuilder b(op.getLoc(), op);
    WarpEmitter e(b);
    e.barrier();
    TilePages tile = tilePages(e, op.getTileStart());
    Value kvHead = op.getKvHead();
    Value key = op.getKeyCache();
    const int64_t blocks = s.qkDim() / (4 * s.chunk);
    // Chunks past D (a partial last block: D = 80 fp8, 64 + 16) read the
    // row's last chunk (never past the row) and become zero words.
    const int64_t rowChunks = s.headDim / s.chunk;
    constexpr int64_t nBlocks = kTokensPerWarp / 8;
    Value warpTokens = e.mul(ids.warp, kTokensPerWarp);

    // Thread (g, t) loads the K chunks of token 8j + g of its warp.
    SmallVector<Value> pages, slots;
    for (int64_t j = 0; j < nBlocks; ++j) {
      auto [page, slot] =
          locate(e, tile, e.add(warpTokens, e.add(ids.g, 8 * j)));
      pages.push_back(page);
      slots.push_back(slot);
    }
    SmallVector<SmallVector<Accumulator>> acc(
        nBlocks, SmallVector<Accumulator>(s.mTiles(), zeros(e)));
    // Requesting block b + 1's K chunks before block b's products (as pv
    // does with V) measured no faster here and costs registers.
    for (int64_t block = 0; block < blocks; ++block) {
      Value chunkIndex = e.add(ids.t, 4 * block);
      Value inRow;
      if (4 * (block + 1) > rowChunks) {
        inRow = e.cmp(CmpIPredicate::ult, chunkIndex, e.idx(rowChunks));
        chunkIndex = e.select(inRow, chunkIndex, e.idx(rowChunks - 1));
      }
      SmallVector<Value> chunks;
      // nhd / hnd: the token's E head dims from chunkIndex * E on, one
      // 16-byte load as in the packed layout; the block's first load brings
      // the row's next 256 bytes into L2 (the later blocks' chunks).
      for (int64_t j = 0; j < nBlocks; ++j)
        chunks.push_back(
            s.layout == CacheLayout::packed
                ? e.loadVector(key,
                               {pages[j], kvHead, chunkIndex, slots[j],
                                e.idx(0)},
                               s.chunk)
                : e.loadVectorL2Block(
                      key,
                      cacheIndices(e, CacheOperand::key, pages[j], kvHead,
                                   slots[j], e.mul(chunkIndex, s.chunk)),
                      s.chunk));
      // The query's A fragments of each M-tile (and term) and step.
      SmallVector<SmallVector<std::array<Value, 4>>> query;
      for (int64_t term = 0; term < s.queryTerms(); ++term)
        for (int64_t mt = 0; mt < s.mTiles(); ++mt) {
          query.emplace_back();
          for (int64_t step = 0; step < s.stepsPerChunk(); ++step)
            query.back().push_back(loadFragment(e, buffers.query, s.qkDim(),
                                                term, mt, block, step));
        }
      SmallVector<SmallVector<Value>> keys;
      for (Value chunk : chunks) {
        keys.push_back(kvWords(e, chunk));
        if (inRow)
          for (Value &word : keys.back())
            word = e.select(inRow, word, e.constant(word.getType(), 0));
      }
      for (int64_t j = 0; j < nBlocks; ++j)
        for (int64_t step = 0; step < s.stepsPerChunk(); ++step)
          for (int64_t term = 0; term < s.queryTerms(); ++term)
            for (int64_t mt = 0; mt < s.mTiles(); ++mt) {
              size_t q = term * s.mTiles() + mt;
              acc[j][mt] = mma(e, query[q][step], bFragment(keys[j], step),
                               acc[j][mt]);
            }
    }

    // Scores of rows g, g + 8 and tokens 8j + 2t, +1 of the warp, scaled.
    Value scale = e.f32(s.scoreScale);
    SmallVector<Value> rowScales; // per M-tile: rows g and g + 8
    for (int64_t mt = 0; mt < s.mTiles(); ++mt)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = e.add(ids.g, mt * 16 + half * 8);
        rowScales.push_back(buffers.rowScale
                                ? e.mulF(scale, e.load(buffers.rowScale, {row}))
                                : scale);
      }
    for (int64_t j = 0; j < nBlocks; ++j) {
      Value token = e.add(warpTokens, e.add(e.mul(ids.t, 2), 8 * j));
      Value k0 = tokenScale(e, s.kScale, op.getKScale(), tile, kvHead, token);
      Value k1 = tokenScale(e, s.kScale, op.getKScale(), tile, kvHead,
                            e.add(token, 1));
      for (int64_t mt = 0; mt < s.mTiles(); ++mt)
        for (int64_t half = 0; half < 2; ++half) {
          Value rowScale = rowScales[mt * 2 + half];
          Value row = e.add(ids.g, mt * 16 + half * 8);
          // A score that is not finite (a non-finite K element or scale)
          // is NaN: a real -inf must not weigh 0 like a masked one, and
          // the soft cap would map +-inf to +-cap.
          Value first = buildNaNIfNotFinite(
              b, b.getLoc(),
              e.mulF(acc[j][mt][2 * half], e.mulF(rowScale, k0)));
          Value second = buildNaNIfNotFinite(
              b, b.getLoc(),
              e.mulF(acc[j][mt][2 * half + 1], e.mulF(rowScale, k1)));
          // Before the softmax's mask, so masked columns stay -inf.
          if (s.softCap) {
            first = emitSoftCap(b, first, *s.softCap, /*fastReciprocal=*/true);
            second = emitSoftCap(b, second, *s.softCap, /*fastReciprocal=*/true);
          }
          e.storeVector(e.pair(first, second), buffers.scores,
                        {e.add(e.mul(row, kScoreStride), token)});
        }
    }
    // pv's first V chunks, requested here so that their latency overlaps
    // the softmax and pv's prologue (nothing in between writes V).
    firstValues = loadValueChunks(
        e, ops.pv, tile, /*first=*/0,
        std::min(kMaxBlocksPerPass, s.pvDim() / kWarps / 8), /*block=*/0);
    op.erase();
  }

  //===--- softmax -------------------------------------------------------===//

  void lowerSoftmax() {
    TileSoftmaxOp op = ops.softmax;
    ImplicitLocOpBuilder b(op.getLoc(), op);
    WarpEmitter e(b);
    e.barrier();
    const int64_t perRow = kWorkgroupThreads / s.rows; // threads per row
    const int64_t count = kTileTokens / perRow;
    Value m = e.div(ids.tid, perRow);
    Value part = e.rem(ids.tid, perRow);

    // Row r = rowBase + m (MTP position q = r / G) sees tokens
    // [max(0, end - W), end), end = C - Q + 1 + q; padding rows nothing.
    Value row = e.toI64(e.add(op.getRowBase(), m));
    Value isRow = e.cmp(CmpIPredicate::slt, row,
                        e.i64(s.queryLength * s.groupSize));
    Value end = buildVisibleEnd(
        b, b.getLoc(), op.getContextLength(), s.queryLength,
        arith::DivSIOp::create(b, row, e.i64(s.groupSize)));
    Value begin =
        buildVisibleBegin(b, b.getLoc(), end, s.window, /*clamp=*/true);
    Value rowOffset = e.mul(m, kScoreStride);
    // ALiBi: the row's slope (query head h * G + r % G) and own token
    // C - Q + q = end - 1; the bias goes on as the scores are read, before
    // the mask (the tiled IR's pa.tile.alibi, after the qk's soft-cap).
    Value alibiSlope, ownToken;
    if (TileAlibiOp alibi = ops.alibi) {
      Value head = e.add(e.mul(alibi.getKvHead(), s.groupSize),
                         e.rem(e.add(op.getRowBase(), m), s.groupSize));
      alibiSlope =
          emitAlibiSlopeExp2(b, e.load(alibi.getAlibiSlopes(), {head}));
      ownToken = e.sub(end, e.i64(1));
    }

    SmallVector<Value> values, columns;
    Value tileMax = e.negInf();
    for (int64_t i = 0; i < count; ++i) {
      Value column = e.add(part, i * perRow);
      Value token = e.add(op.getTileStart(), e.toI64(column));
      Value visible = e.both(isRow, e.inRange(token, begin, end));
      Value raw = e.load(buffers.scores, {e.add(rowOffset, column)});
      if (alibiSlope)
        raw = emitAlibiBias(b, raw, alibiSlope, e.sub(token, ownToken));
      Value score = e.select(visible, raw, e.negInf());
      values.push_back(score);
      columns.push_back(column);
      tileMax = e.maxF(tileMax, score);
    }
    for (int64_t offset = perRow / 2; offset >= 1; offset /= 2)
      tileMax = e.maxF(tileMax, e.shuffleXor(tileMax, offset));

    Value oldMax = e.load(buffers.rowMax, {m});
    Value newMax = e.maxF(oldMax, tileMax);
    // A row that has seen nothing keeps alpha = 1 and p = 0.
    Value nothing = e.eqF(newMax, e.negInf());
    Value zero = e.f32(0.0);
    Value alpha = e.exp2(e.select(nothing, zero, e.subF(oldMax, newMax)));
    Value shift = e.select(nothing, zero, newMax);
    Value sum = zero;
    for (auto [score, column] : llvm::zip(values, columns)) {
      Value p = e.exp2(e.subF(score, shift));
      e.store(p, buffers.scores, {e.add(rowOffset, column)});
      sum = e.addF(sum, p);
    }
    for (int64_t offset = perRow / 2; offset >= 1; offset /= 2)
      sum = e.addF(sum, e.shuffleXor(sum, offset));
    // Every thread of the row has read rowMax[m] before the shuffles above.
    e.ifThen(e.cmp(CmpIPredicate::eq, part, e.idx(0)), [&] {
      e.store(e.addF(e.mulF(e.load(buffers.rowSum, {m}), alpha), sum),
              buffers.rowSum, {m});
      e.store(newMax, buffers.rowMax, {m});
      if (s.rescaleInPV())
        e.store(alpha, buffers.alpha, {m});
    });
    // The accumulator rows times alpha: here (a read-modify-write of the
    // whole accumulator between two barriers), or in pv as it loads them.
    if (!s.rescaleInPV()) {
      Value accRow = e.mul(m, s.accStride());
      e.forLoop(part, e.idx(s.headDim), e.idx(perRow), [&](Value d) {
        Value at = e.add(accRow, d);
        e.store(e.mulF(e.load(buffers.acc, {at}), alpha), buffers.acc, {at});
      });
    }
    op.erase();
  }

  //===--- pv ------------------------------------------------------------===//

  void lowerPV() {
    TilePVOp op = ops.pv;
    ImplicitLocOpBuilder b(op.getLoc(), op);
    WarpEmitter e(b);
    e.barrier();
    Value tileStart = op.getTileStart();
    TilePages tile = tilePages(e, tileStart);
    Value validBegin = op.getValidBegin(), validEnd = op.getValidEnd();

    // Prologue: thread i packs tokens 2i, 2i + 1 of every row: P times the
    // token's V scale, 0 outside the valid range.
    Value token = e.mul(ids.tid, 2);
    SmallVector<Value> weights;
    for (int64_t k = 0; k < 2; ++k) {
      Value column = e.add(token, k);
      Value valid = e.inRange(e.add(tileStart, e.toI64(column)), validBegin,
                              validEnd);
      // An infinite scale is NaN here: e4m3 packing would saturate it.
      Value scale = buildNaNIfNotFinite(
          b, b.getLoc(),
          tokenScale(e, s.vScale, op.getVScale(), tile, op.getKvHead(),
                     column));
      weights.push_back(e.select(valid, scale, e.f32(0.0)));
    }
    // e4m3: the weights times 2^k with every weight * 2^k below 256, so
    // that P's terms stay normal e4m3 values; the products are scaled back
    // by 2^-k.
    Value up, down;
    if (s.e4m3())
      std::tie(up, down) = tileWeightScale(e, weights);
    for (Value &weight : weights)
      if (up)
        weight = e.mulF(weight, up);
    // With probsAliasScores every thread reads its scores of all rows
    // before a barrier and writes the terms after it.
    SmallVector<std::pair<Value, Value>> pending;
    for (int64_t m = 0; m < s.rows; ++m) {
      Value p = e.loadVector(buffers.scores,
                             {e.add(e.idx(m * kScoreStride), token)}, 2);
      Value x0 = e.mulF(e.extract(p, 0), weights[0]);
      Value x1 = e.mulF(e.extract(p, 1), weights[1]);
      if (probsAliasScores)
        pending.push_back({x0, x1});
      else
        storeProbTerms(e, m, token, x0, x1);
    }
    if (probsAliasScores) {
      e.barrier();
      for (auto [m, x] : llvm::enumerate(pending))
        storeProbTerms(e, int64_t(m), token, x.first, x.second);
    }
    e.barrier();

    // Tiles with tokens outside the valid range zero their values.
    Value inside =
        e.both(e.cmp(CmpIPredicate::sge, tileStart, validBegin),
               e.cmp(CmpIPredicate::sle, e.add(tileStart, e.i64(kTileTokens)),
                     validEnd));
    e.ifThenElse(
        inside, [&] { emitPVProducts(e, op, tile, down, /*masked=*/false); },
        [&] { emitPVProducts(e, op, tile, down, /*masked=*/true); });
    op.erase();
  }

  /// 2^k and 2^-k for the tile's P weights: k = 7 - floor(log2(max w)), so
  /// that max w * 2^k < 256. Per-token weights are maximized over the
  /// workgroup (warp shuffles, then the four warps through shared memory).
  std::pair<Value, Value> tileWeightScale(WarpEmitter &e,
                                          ArrayRef<Value> weights) {
    ImplicitLocOpBuilder &b = e.b;
    Value largest = e.maxF(weights[0], weights[1]);
    if (s.vScale == ScaleMode::per_token) {
      for (int64_t offset = 16; offset >= 1; offset /= 2)
        largest = e.maxF(largest, e.shuffleXor(largest, offset));
      e.ifThen(e.cmp(CmpIPredicate::eq, ids.lane, e.idx(0)),
               [&] { e.store(largest, buffers.warpMax, {ids.warp}); });
      e.barrier();
      for (int64_t w = 0; w < kWarps; ++w)
        largest = e.maxF(largest, e.load(buffers.warpMax, {e.idx(w)}));
    } else if (s.vScale == ScaleMode::per_tensor) {
      largest = e.load(ops.pv.getVScale(), {e.idx(0)});
      largest = toF32(e, largest);
    } else {
      largest = e.f32(1.0);
    }
    // A zero (or subnormal) maximum gets k = 0, which is harmless.
    Value exponent =
        e.sub(e.andI(e.shr(e.bitcast(b.getI32Type(), e.absF(largest)), 23), 0xFF),
              e.i32(127));
    Value shift = e.minS(
        e.maxS(e.sub(e.i32(llvm::Log2_64(kE4M3Headroom) - 1), exponent),
               e.i32(-100)),
        e.i32(100));
    Value isZero = e.eqF(largest, e.f32(0.0));
    shift = e.select(isZero, e.i32(0), shift);
    Type f32 = b.getF32Type();
    return {e.bitcast(f32, e.shl(e.add(shift, 127), 23)),
            e.bitcast(f32, e.shl(e.sub(e.i32(127), shift), 23))};
  }

  /// Stores P of row m, tokens `token`, `token` + 1 (x0, x1) as the terms of
  /// the products' operand type.
  void storeProbTerms(WarpEmitter &e, int64_t m, Value token, Value x0,
                      Value x1) {
    ImplicitLocOpBuilder &b = e.b;
    auto at = [&](int64_t term) {
      return fragmentIndex(e, kTileTokens, term, e.idx(m), token);
    };
    auto storePair = [&](int64_t term, Value packed) {
      // `packed`: the two operands, token first, in the low bits.
      int64_t bits = 2 * 8 * s.operandBytes();
      Value asVector = vector::BroadcastOp::create(
          b, VectorType::get({1}, b.getIntegerType(bits)), packed);
      Value pair = vector::BitCastOp::create(
          b, VectorType::get({2}, s.operandType(b.getContext())), asVector);
      e.storeVector(pair, buffers.probs, {at(term)});
    };
    switch (s.products) {
    case Products::F16:
      storePair(0, e.packF16x2(x0, x1));
      return;
    case Products::BF16: {
      Value hi = e.packBF16x2(x0, x1);
      auto [hi0, hi1] = e.unpackBF16x2(hi);
      storePair(0, hi);
      storePair(1, e.packBF16x2(e.subF(x0, hi0), e.subF(x1, hi1)));
      return;
    }
    case Products::E4M3: {
      for (int64_t term = 0; term < s.probTerms(); ++term) {
        Value packed = e.packE4M3x2(x0, x1);
        storePair(term, packed);
        if (term + 1 < s.probTerms()) {
          auto [back0, back1] = e.unpackE4M3x2(packed);
          x0 = e.subF(x0, back0);
          x1 = e.subF(x1, back1);
        }
      }
      return;
    }
    }
  }

  /// This thread's V chunk of token block `block`: tokens block * 4E + E t
  /// + [0, E) of the tile.
  Value chunkTokenOf(WarpEmitter &e, int64_t block) {
    return e.add(e.mul(ids.t, s.chunk), block * 4 * s.chunk);
  }

  /// Whether pv's n-blocks interleave their columns: in an nhd / hnd cache a
  /// token's head dims are contiguous, so lane g of a pass of nBlocks
  /// n-blocks (a power of two) takes the nBlocks adjacent columns
  /// g * nBlocks + [0, nBlocks) (column n of n-block nb is n * nBlocks + nb)
  /// and reads each token's share of all of them with one load (8 bytes
  /// for fp8, 16 for bf16 at nBlocks = 8) instead of one load per element.
  /// Not with pad columns (D not a multiple of 32): a load would pass D.
  bool interleavedColumns(int64_t nBlocks) const {
    return s.layout != CacheLayout::packed && s.pvDim() == s.headDim &&
           llvm::isPowerOf2_64(nBlocks);
  }

  /// The warp-relative head-dim column of column n (index) of n-block nb
  /// in the pass over n-blocks first .. first + nBlocks - 1.
  Value pvColumn(WarpEmitter &e, int64_t first, int64_t nBlocks, int64_t nb,
                 Value n) {
    if (interleavedColumns(nBlocks))
      return e.add(e.mul(n, nBlocks), first * 8 + nb);
    return e.add(n, (first + nb) * 8);
  }

  /// This thread's V chunks (E tokens of one head-dim column each) of token
  /// block `block` for n-blocks first .. first + nBlocks - 1 of its warp's
  /// head-dim columns (column n = g of each, pvColumn).
  SmallVector<Value> loadValueChunks(WarpEmitter &e, TilePVOp op,
                                     const TilePages &tile,
                                     int64_t first, int64_t nBlocks,
                                     int64_t block) {
    Value warpColumns = e.mul(ids.warp, s.pvDim() / kWarps);
    Value firstToken = chunkTokenOf(e, block);
    // Column n = g of n-block nb (pvColumn), pad columns (past D) read at
    // column D - 1.
    auto columnOf = [&](int64_t nb) {
      Value column =
          e.add(warpColumns, pvColumn(e, first, nBlocks, nb, ids.g));
      if (s.pvDim() == s.headDim)
        return column;
      return e.select(e.cmp(CmpIPredicate::ult, column, e.idx(s.headDim)),
                      column, e.idx(s.headDim - 1));
    };
    SmallVector<Value> chunks;
    if (s.layout != CacheLayout::packed) {
      // nhd / hnd keep a token's head dims together, not a head dim's
      // tokens: a chunk is E tokens' loads (each token placed through its
      // own page id where pages are shorter than E).
      SmallVector<std::pair<Value, Value>> places;
      if (s.pageSize % s.chunk == 0) {
        auto [page, slot] = locate(e, tile, firstToken);
        for (int64_t k = 0; k < s.chunk; ++k)
          places.push_back({page, e.add(slot, k)});
      } else {
        for (int64_t k = 0; k < s.chunk; ++k)
          places.push_back(locate(e, tile, e.add(firstToken, k)));
      }
      Type element =
          cast<MemRefType>(op.getValueCache().getType()).getElementType();
      // elements[nb][k]: token k's value in n-block nb's column.
      SmallVector<SmallVector<Value>> elements(nBlocks);
      if (interleavedColumns(nBlocks)) {
        // Each warp reads its D / 4 columns of a token's row: the first
        // warp's load brings the row's 256-byte block into L2 for the rest.
        for (auto [page, slot] : places) {
          Value columns = e.loadVectorL2Block(
              op.getValueCache(),
              cacheIndices(e, CacheOperand::value, page, op.getKvHead(), slot,
                           columnOf(0)),
              nBlocks);
          for (int64_t nb = 0; nb < nBlocks; ++nb)
            elements[nb].push_back(e.extract(columns, nb));
        }
      } else {
        for (int64_t nb = 0; nb < nBlocks; ++nb)
          for (auto [page, slot] : places)
            elements[nb].push_back(e.load(
                op.getValueCache(),
                cacheIndices(e, CacheOperand::value, page, op.getKvHead(),
                             slot, columnOf(nb))));
      }
      for (int64_t nb = 0; nb < nBlocks; ++nb)
        chunks.push_back(vector::FromElementsOp::create(
            e.b, VectorType::get({s.chunk}, element), elements[nb]));
      return chunks;
    }
    auto [page, slot] = locate(e, tile, firstToken);
    for (int64_t nb = 0; nb < nBlocks; ++nb) {
      Value column = columnOf(nb);
      SmallVector<Value> indices =
          s.transposedV
              ? SmallVector<Value>{page, op.getKvHead(), e.div(slot, s.chunk),
                                   column, e.idx(0)}
              : SmallVector<Value>{page, op.getKvHead(), column, slot};
      chunks.push_back(e.loadVector(op.getValueCache(), indices, s.chunk));
    }
    return chunks;
  }

  /// O[rows][warp's columns] += P V over the tile's tokens, the
  /// accumulators loaded from and stored back to shared memory (times
  /// 2^k / 2^-k around e4m3 products, whose P carries 2^k).
  void emitPVProducts(WarpEmitter &e, TilePVOp op, const TilePages &tile,
                      Value down,
                      bool masked) {
    const int64_t columnsPerWarp = s.pvDim() / kWarps;
    const int64_t nBlocksTotal = columnsPerWarp / 8;
    const int64_t tokenBlocks = kTileTokens / (4 * s.chunk);
    Value warpColumns = e.mul(ids.warp, columnsPerWarp);
    Value up;
    if (down)
      up = e.divF(e.f32(1.0), down);

    for (int64_t first = 0; first < nBlocksTotal; first += kMaxBlocksPerPass) {
      int64_t nBlocks = std::min(kMaxBlocksPerPass, nBlocksTotal - first);
      // Accumulators: rows g, g + 8; columns 2t, 2t + 1 of each n-block
      // (pvColumn: adjacent, one pair access, unless interleaved).
      auto accAt = [&](int64_t mt, int64_t half, int64_t nb, int64_t k) {
        Value row = e.add(ids.g, mt * 16 + half * 8);
        Value column = e.add(
            warpColumns,
            pvColumn(e, first, nBlocks, nb, e.add(e.mul(ids.t, 2), k)));
        return e.add(e.mul(row, s.accStride()), column);
      };
      const bool pairs = !interleavedColumns(nBlocks);
      auto loadAcc = [&](int64_t mt, int64_t half, int64_t nb) {
        if (pairs)
          return e.loadVector(buffers.acc, {accAt(mt, half, nb, 0)}, 2);
        return e.pair(e.load(buffers.acc, {accAt(mt, half, nb, 0)}),
                      e.load(buffers.acc, {accAt(mt, half, nb, 1)}));
      };
      auto storeAcc = [&](Value x0, Value x1, int64_t mt, int64_t half,
                          int64_t nb) {
        if (pairs)
          return e.storeVector(e.pair(x0, x1), buffers.acc,
                               {accAt(mt, half, nb, 0)});
        e.store(x0, buffers.acc, {accAt(mt, half, nb, 0)});
        e.store(x1, buffers.acc, {accAt(mt, half, nb, 1)});
      };
      SmallVector<SmallVector<Accumulator>> acc(
          nBlocks, SmallVector<Accumulator>(s.mTiles()));
      // softmax's rescale of rows g + 8 half + 16 mt, with rescaleInPV.
      SmallVector<Value> alphas;
      if (s.rescaleInPV())
        for (int64_t mt = 0; mt < s.mTiles(); ++mt)
          for (int64_t half = 0; half < 2; ++half)
            alphas.push_back(e.load(
                buffers.alpha, {e.add(ids.g, mt * 16 + half * 8)}));
      for (int64_t nb = 0; nb < nBlocks; ++nb)
        for (int64_t mt = 0; mt < s.mTiles(); ++mt)
          for (int64_t half = 0; half < 2; ++half) {
            Value pair = loadAcc(mt, half, nb);
            for (int64_t k = 0; k < 2; ++k) {
              Value x = e.extract(pair, k);
              if (s.rescaleInPV())
                x = e.mulF(x, alphas[mt * 2 + half]);
              acc[nb][mt][2 * half + k] = up ? e.mulF(x, up) : x;
            }
          }

      // The V chunks of a token block, as loaded. Those of block b + 1 are
      // requested before the products of block b (two blocks in flight);
      // qk requested those of the first pass's block 0.
      auto loadValues = [&](int64_t block) {
        return loadValueChunks(e, op, tile, first, nBlocks, block);
      };
      SmallVector<Value> nextValues =
          first == 0 && !firstValues.empty() ? firstValues : loadValues(0);
      for (int64_t block = 0; block < tokenBlocks; ++block) {
        SmallVector<Value> chunks = std::move(nextValues);
        if (block + 1 < tokenBlocks)
          nextValues = loadValues(block + 1);
        Value chunkToken = chunkTokenOf(e, block);
        SmallVector<SmallVector<std::array<Value, 4>>> probs;
        for (int64_t term = 0; term < s.probTerms(); ++term)
          for (int64_t mt = 0; mt < s.mTiles(); ++mt) {
            probs.emplace_back();
            for (int64_t step = 0; step < s.stepsPerChunk(); ++step)
              probs.back().push_back(loadFragment(e, buffers.probs, kTileTokens,
                                                  term, mt, block, step));
          }
        SmallVector<Value> keep;
        if (masked)
          keep = chunkMasks(e, op, chunkToken);
        SmallVector<SmallVector<Value>> values;
        for (Value chunk : chunks) {
          SmallVector<Value> words = kvWords(e, chunk);
          for (size_t w = 0; w < keep.size(); ++w)
            words[w] = e.andI(words[w], keep[w]);
          values.push_back(words);
        }
        for (int64_t nb = 0; nb < nBlocks; ++nb)
          for (int64_t step = 0; step < s.stepsPerChunk(); ++step)
            for (int64_t term = 0; term < s.probTerms(); ++term)
              for (int64_t mt = 0; mt < s.mTiles(); ++mt) {
                size_t p = term * s.mTiles() + mt;
                acc[nb][mt] = mma(e, probs[p][step], bFragment(values[nb], step),
                                  acc[nb][mt]);
              }
      }

      for (int64_t nb = 0; nb < nBlocks; ++nb)
        for (int64_t mt = 0; mt < s.mTiles(); ++mt)
          for (int64_t half = 0; half < 2; ++half) {
            Value x0 = acc[nb][mt][2 * half], x1 = acc[nb][mt][2 * half + 1];
            if (down) {
              x0 = e.mulF(x0, down);
              x1 = e.mulF(x1, down);
            }
            storeAcc(x0, x1, mt, half, nb);
          }
    }
  }

  /// Per operand word of a chunk of tokens chunkToken + [0, E) (tile-
  /// relative): all ones over the elements whose token is valid, else 0.
  SmallVector<Value> chunkMasks(WarpEmitter &e, TilePVOp op, Value chunkToken) {
    Value first = e.add(op.getTileStart(), e.toI64(chunkToken));
    const int64_t perWord = 4 / s.operandBytes();
    const int64_t bits = 8 * s.operandBytes();
    SmallVector<Value> masks;
    for (int64_t w = 0; w < s.chunk / perWord; ++w) {
      Value mask = e.i32(0);
      for (int64_t k = 0; k < perWord; ++k) {
        Value valid = e.inRange(e.add(first, e.i64(perWord * w + k)),
                                op.getValidBegin(), op.getValidEnd());
        int64_t ones = ((int64_t(1) << bits) - 1) << (bits * k);
        mask = e.orI(mask, e.select(valid, e.i32(ones), e.i32(0)));
      }
      masks.push_back(mask);
    }
    return masks;
  }

  //===--- store_partials ------------------------------------------------===//

  void lowerStore() {
    TileStorePartialsOp op = ops.storePartials;
    ImplicitLocOpBuilder b(op.getLoc(), op);
    WarpEmitter e(b);
    e.barrier();
    Value kvHead = op.getKvHead(), slot = op.getSlot();
    Value rows = e.idx(op.getRows());
    Value zero = e.f32(0.0);
    e.ifThen(e.cmp(CmpIPredicate::ult, ids.tid, e.idx(s.rows)), [&] {
      Value row = e.add(op.getRowBase(), ids.tid);
      e.ifThen(e.cmp(CmpIPredicate::ult, row, rows), [&] {
        Value sum = e.load(buffers.rowSum, {ids.tid});
        Value empty = e.eqF(sum, zero);
        Value maxLogit = e.select(
            empty, e.negInf(),
            e.mulF(e.load(buffers.rowMax, {ids.tid}), e.f32(llvm::numbers::ln2)));
        // A NaN sum (a non-finite input reached the row): max_logits NaN
        // too, so the reducer keeps the partition (pa.tile.store_partials).
        Value reachedByNaN = arith::CmpFOp::create(
            b, arith::CmpFPredicate::UNO, sum, sum);
        maxLogit = e.select(reachedByNaN, sum, maxLogit);
        e.store(maxLogit, op.getMaxLogits(), {kvHead, slot, row});
        e.store(e.select(empty, zero, sum), op.getExpSums(), {kvHead, slot, row});
      });
    });
    e.forLoop(ids.tid, e.idx(s.rows * s.headDim), e.idx(kWorkgroupThreads),
              [&](Value i) {
                Value m = e.div(i, s.headDim);
                Value d = e.rem(i, s.headDim);
                Value row = e.add(op.getRowBase(), m);
                e.ifThen(e.cmp(CmpIPredicate::ult, row, rows), [&] {
                  Value sum = e.load(buffers.rowSum, {m});
                  Value value = e.load(
                      buffers.acc, {e.add(e.mul(m, s.accStride()), d)});
                  // Not finite (an infinite value or v_scale): NaN.
                  Value normalized = e.select(
                      e.eqF(sum, zero), zero,
                      buildNaNIfNotFinite(b, b.getLoc(), e.divF(value, sum)));
                  e.store(normalized, op.getTmpOut(), {kvHead, slot, row, d});
                });
              });
    op.erase();
  }

  /// The tiled IR's tile buffers this lowering replaced.
  void dropUnusedBuffers() {
    unsigned first = kernel.getFirstWorkgroupAttributionIndex();
    for (unsigned i = kernel.getNumWorkgroupAttributions(); i-- > 0;) {
      BlockArgument buffer = kernel.getWorkgroupAttributions()[i];
      if (!buffer.use_empty())
        continue;
      kernel.getBody().front().eraseArgument(first + i);
      kernel->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                      IntegerAttr::get(IntegerType::get(kernel.getContext(), 64),
                                       kernel.getNumWorkgroupAttributions() - 1));
    }
  }

  gpu::GPUFuncOp kernel;
  TiledDecode ops;
  DecodeShape s;
  Buffers buffers;
  /// P's terms live in the scores' bytes (scoresAndProbsShareBytes).
  bool probsAliasScores = false;
  /// The V chunks of pv's first token block (first pass), loaded in qk.
  SmallVector<Value> firstValues;
  ThreadIds ids;
};

} // namespace

bool mlir::pa::nvvm::distributeDecodeKernel(gpu::GPUFuncOp kernel,
                                            bool e4m3Products,
                                            std::string &reason) {
  TiledDecode ops;
  DecodeShape shape;
  if (!analyze(kernel, e4m3Products, ops, shape, reason))
    return false;
  DecodeLowering(kernel, ops, shape).run();
  return true;
}
