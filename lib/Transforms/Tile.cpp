//===- Tile.cpp - pa.decode -> a workgroup program over KV tiles ----------===//
//
// Each pa.decode becomes a kernel with one workgroup per (work-plan slot, KV
// head, row group). A row group holds M = 16 or 32 query rows of one KV head
// (one or two 16-row M-tiles sharing each K/V load); heads with more than 32
// rows (Q * G > 32) get several row groups in grid z. The workgroup loops
// over the 256-token tiles of its slot that some of its rows can see and
// drives the pa.tile ops.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/PaOps.h"
#include "pa/Transforms/IntegerArithmetic.h"
#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/Passes.h"
#include "pa/Transforms/TileLowering.h"

#include <cmath>

namespace mlir::pa {
#define GEN_PASS_DEF_PATILE
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {
constexpr int64_t kMTileRows = 16;
constexpr int64_t kMaxRowsPerGroup = 2 * kMTileRows;

/// Above this head dim, AMD row groups hold one M-tile: two would keep
/// 2 * D / 4 f32 PV accumulators per lane, more than the 128 VGPRs that
/// fit beside a tile step (pa-to-mfma's budget; they would spill). Two
/// 16-row workgroups read K and V twice instead.
constexpr int64_t kMaxTwoMTileHeadDimAMD = 256;

/// Rows per row group: one M-tile when it holds every row, else two
/// (where the target's registers hold two at this head dim).
int64_t rowsPerGroup(int64_t rows, int64_t headDim, const ChipInfo &target) {
  if (rows <= kMTileRows ||
      (target.vendor == Vendor::AMD && headDim > kMaxTwoMTileHeadDimAMD))
    return kMTileRows;
  return kMaxRowsPerGroup;
}

/// The chip's matrix units take one fp8 flavour; a cache of the other one
/// would be misread, so it is rejected here rather than miscompiled.
LogicalResult checkChipTypes(DecodeOp op, const ChipInfo &chip) {
  Type kv = op.getKVElementType();
  Type fp8 = getFp8Type(op.getContext(), chip);
  if (kv.isBF16() || kv == fp8)
    return success();
  return op.emitOpError() << "chip " << chip.name << " takes "
                          << fp8TypeName(chip.fp8Format)
                          << " fp8 KV caches, got " << kv;
}

/// Keeps the kernel inside its buffers whatever the block table and the
/// context lengths hold: on a GPU nothing validates them (the host runtime
/// rejects such input before launching; docs/reliability.md). Entries past
/// the table's width are never read (the op yields 0 for them, as for pages
/// no row sees), a page id outside the pool [0, N) reads page 0 instead, and
/// an empty pool is never read at all. Valid input is unaffected.
struct PoolGuard {
  /// Exclusive end of the tokens whose block-table entries may be read:
  /// min(visible end, max_pages * P).
  Value idsEnd;
  /// i1: the pool has no page.
  Value poolEmpty;
  /// i32: the pool size, saturated at 2^31 (every i32 id below it is valid).
  Value poolSize;

  /// `ids` with every id outside [0, N) replaced by 0.
  Value clamp(OpBuilder &b, Location loc, Value ids) const {
    auto type = cast<VectorType>(ids.getType());
    Value bound = vector::BroadcastOp::create(b, loc, type, poolSize);
    // Unsigned: negative ids compare above every pool size.
    Value inPool = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         ids, bound);
    Value zeros = arith::ConstantOp::create(
        b, loc, type, cast<TypedAttr>(b.getZeroAttr(type)));
    return arith::SelectOp::create(b, loc, inPool, ids, zeros);
  }
};

/// The guard of `op`'s kernel: N is the smallest page count of the buffers
/// indexed by page id (caches, per-token scales).
PoolGuard guardPool(OpBuilder &b, Location loc, DecodeOp op,
                    llvm::function_ref<Value(Value)> arg, int64_t pageSize,
                    Value visibleEnd) {
  IntegerArithmetic m(b, loc);
  SmallVector<Value> paged = {op.getKeyCache(), op.getValueCache()};
  if (op.getScale() == ScaleMode::per_token)
    paged.append({op.getKScale(), op.getVScale()});
  Value pages;
  for (Value buffer : paged) {
    Value size = m.toI64(memref::DimOp::create(b, loc, arg(buffer), 0));
    pages = pages ? m.min(pages, size) : size;
  }
  Value width =
      m.toI64(memref::DimOp::create(b, loc, arg(op.getBlockTables()), 1));
  PoolGuard guard;
  guard.idsEnd = m.min(visibleEnd, m.mul(width, m.i64(pageSize)));
  guard.poolEmpty = m.cmp(arith::CmpIPredicate::eq, pages, m.i64(0));
  guard.poolSize = m.toI32(m.min(pages, m.i64(int64_t{1} << 31)));
  return guard;
}

struct PaTilePass : pa::impl::PaTileBase<PaTilePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkPaOpsInTopLevelModule(module)))
      return signalPassFailure();
    SmallVector<DecodeOp> decodes;
    module.walk([&](DecodeOp op) { decodes.push_back(op); });
    if (decodes.empty())
      return;
    FailureOr<ChipInfo> target = getTargetChip(module, getArgument());
    if (failed(target))
      return signalPassFailure();
    for (DecodeOp op : decodes)
      if (failed(checkChipTypes(op, *target)))
        return signalPassFailure();
    gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
    for (DecodeOp op : decodes)
      lowerDecode(op, kernels, *target);
  }

  void lowerDecode(DecodeOp op, gpu::GPUModuleOp kernels,
                   const ChipInfo &target) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    const int64_t rows = op.getRowsPerKVHead();
    const int64_t headDim = op.getHeadDim();
    const int64_t groupRows = rowsPerGroup(rows, headDim, target);
    const int64_t numGroups = (rows + groupRows - 1) / groupRows;
    Type f32 = b.getF32Type();

    MemRefType queryTileType = workgroupMemRef({groupRows, headDim}, f32);
    MemRefType scoresType = workgroupMemRef({groupRows, kTileTokens}, f32);
    MemRefType accType = workgroupMemRef({groupRows, headDim}, f32);
    MemRefType rowStatType = workgroupMemRef({groupRows}, f32);

    SmallVector<Value> operands(op->getOperands());
    gpu::GPUFuncOp kernel = createKernel(
        b, kernels, "pa_decode", operands,
        {queryTileType, scoresType, accType, rowStatType, rowStatType}, target);

    // Kernel arguments mirror the op's operands, in order.
    IRMapping args;
    for (auto [operand, arg] : llvm::zip(operands, kernel.getArguments()))
      args.map(operand, arg);
    auto arg = [&](Value v) { return v ? args.lookup(v) : Value(); };
    Value queryTile = kernel.getWorkgroupAttributions()[0];
    Value scores = kernel.getWorkgroupAttributions()[1];
    Value acc = kernel.getWorkgroupAttributions()[2];
    Value rowMax = kernel.getWorkgroupAttributions()[3];
    Value rowSum = kernel.getWorkgroupAttributions()[4];

    IntegerArithmetic m(b, loc);
    Value slot = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value kvHead = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    Value group = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    Value work = arg(op.getWorkInfo());
    auto workField = [&](int64_t field) {
      return memref::LoadOp::create(b, loc, work,
                                    ValueRange{slot, m.idx(field)})
          .getResult();
    };
    Value sequence = workField(0);
    Value beginTile = m.toI64(workField(1));
    Value endTile = m.toI64(workField(2));
    Value context = m.toI64(workField(3));

    // Unused plan slots are all zero: their workgroups exit at once.
    Value nonEmpty = m.cmp(arith::CmpIPredicate::slt, beginTile, endTile);
    auto ifNonEmpty = scf::IfOp::create(b, loc, nonEmpty, /*withElse=*/false);
    b.setInsertionPointToStart(&ifNonEmpty.getThenRegion().front());

    const int64_t queryLength = op.getQueryLength();
    const int64_t groupSize = op.getGroupSize();
    const int64_t window = op.getSlidingWindow();
    Value seqIndex = m.toIndex(sequence);
    Value rowBase = m.mul(group, m.idx(groupRows));

    // The tokens some row of this group can see: rows r in
    // [rowBase, min(rowBase + M, R)) have MTP positions q in [qLo, qHi];
    // position q sees [max(0, C - Q + 1 + q - W), C - Q + 1 + q).
    Value rowBase64 = m.toI64(rowBase);
    Value qLo = m.div(rowBase64, m.i64(groupSize));
    Value lastRow =
        m.sub(m.min(m.add(rowBase64, m.i64(groupRows)), m.i64(rows)), m.i64(1));
    Value qHi = m.div(lastRow, m.i64(groupSize));
    Value firstEnd = buildVisibleEnd(b, loc, context, queryLength, qLo);
    Value visibleEnd =
        m.max(m.i64(0), buildVisibleEnd(b, loc, context, queryLength, qHi));
    Value visibleBegin =
        buildVisibleBegin(b, loc, firstEnd, window, /*clamp=*/true);

    KVLayoutAttr layout = op.getKvLayout();
    const int64_t pageSize = layout.getPageSize();
    PoolGuard guard = guardPool(b, loc, op, arg, pageSize, visibleEnd);

    // Tiles of the slot that hold a visible token (none from an empty pool).
    Value tileTokens = m.i64(kTileTokens);
    Value tileBegin = m.max(beginTile, m.div(visibleBegin, tileTokens));
    Value tileEnd = m.min(
        endTile, m.div(m.add(visibleEnd, m.i64(kTileTokens - 1)), tileTokens));
    tileEnd = arith::SelectOp::create(b, loc, guard.poolEmpty, tileBegin,
                                      tileEnd);

    TileLoadQueryOp::create(b, loc, arg(op.getQuery()), seqIndex, kvHead,
                            rowBase, queryTile, queryLength, groupSize);
    TileInitSoftmaxOp::create(b, loc, rowMax, rowSum, acc);

    ComputeType compute = op.getEffectiveComputeType();
    ScaleMode scaleMode = op.getScale();
    auto pageIdsType =
        VectorType::get({pagesPerTile(pageSize)}, b.getI32Type());
    const double log2e = 1.4426950408889634;
    llvm::APFloat scoreScale(
        static_cast<float>(op.getEffectiveSoftmaxScale() * log2e));
    // The soft-cap in the exp2 domain of the scores (absent: none).
    FloatAttr softCap =
        op.hasSoftCap()
            ? b.getF32FloatAttr(static_cast<float>(op.getLogitsSoftCap() * log2e))
            : FloatAttr();

    auto loop = scf::ForOp::create(b, loc, m.toIndex(tileBegin),
                                   m.toIndex(tileEnd), m.idx(1));
    b.setInsertionPointToStart(loop.getBody());
    Value tile = loop.getInductionVar();
    Value tileStart = m.mul(m.toI64(tile), tileTokens);
    Value pageIds = guard.clamp(
        b, loc,
        TilePageIdsOp::create(b, loc, pageIdsType, arg(op.getBlockTables()),
                              seqIndex, tile, visibleBegin, guard.idsEnd,
                              pageSize, /*direct=*/false));
    TileQKOp::create(b, loc, queryTile, arg(op.getKeyCache()), pageIds,
                     kvHead, tileStart, visibleBegin, visibleEnd,
                     arg(op.getKScale()), scores, pageSize, scoreScale,
                     scaleMode, compute, softCap,
                     layout.getLayout());
    if (Value slopes = arg(op.getAlibiSlopes()))
      TileAlibiOp::create(b, loc, scores, slopes, kvHead, context, tileStart,
                          rowBase, queryLength, groupSize);
    TileSoftmaxOp::create(b, loc, scores, rowMax, rowSum, acc, context,
                          tileStart, rowBase, queryLength, groupSize, window);
    TilePVOp::create(b, loc, scores, arg(op.getValueCache()), pageIds, kvHead,
                     tileStart, visibleBegin, visibleEnd, arg(op.getVScale()),
                     acc, pageSize, layout.getVLayout(), scaleMode, compute,
                     layout.getLayout());

    b.setInsertionPointAfter(loop);
    TileStorePartialsOp::create(b, loc, rowMax, rowSum, acc,
                                arg(op.getExpSums()), arg(op.getMaxLogits()),
                                arg(op.getTmpOut()), kvHead, slot, rowBase,
                                rows);

    // Launch: one workgroup per (slot, KV head, row group).
    b.setInsertionPoint(op);
    Value capacity = memref::DimOp::create(b, loc, op.getWorkInfo(), 0);
    Value kvHeads = arith::ConstantIndexOp::create(b, loc, op.getNumKVHeads());
    Value groups = arith::ConstantIndexOp::create(b, loc, numGroups);
    replaceWithLaunch(b, op, kernel, {capacity, kvHeads, groups}, operands,
                      target);
  }
};
} // namespace
