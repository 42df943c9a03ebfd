//===- PlanKernel.cpp - pa.plan on the 128 threads of one workgroup -------===//
//
// pa-lower-plan builds the planning kernel as a sequential workgroup
// program; on NVIDIA it ran on thread 0 and took 24-71 us on the H200 (one
// thread's chain of loads, i64 arithmetic and stores: more than the
// reduce, a quarter of the decode at B = 128, L = 2048). This pass builds
// the same plan (LowerPlan.cpp's i64 arithmetic, so the same bits) on the
// 128 threads of the one workgroup:
//   1. thread i takes sequences [i C, (i + 1) C), C = ceil(B / 128): its
//      tiles and non-empty sequences; block scans (warp shuffles, then
//      the 4 warp totals through shared memory) give each thread the
//      tiles before its first sequence, and the totals;
//   2. capacity, the slots left after one per non-empty sequence and each
//      sequence's partition count (the prefix-sum apportioning); a block
//      scan of the counts gives each thread its first slot;
//   3. reduce_info[b] = (first slot, partitions stored) per sequence, and
//      a copy in shared memory for the first kSharedSequences sequences;
//   4. after a barrier, thread i takes work_info rows i, i + 128, ...: the
//      row's sequence is the last whose first slot is <= the row (a binary
//      search over reduce_info: its shared copy where B fits), its
//      partition k = row - first slot; rows no partition takes are zero.
// The kernel keeps the name, operands and 1x1x1 grid of pa-lower-plan's.
//
//===----------------------------------------------------------------------===//
#include "NVIDIATarget.h"
#include "pa/Target/NVIDIA/Pipeline.h"

#include "pa/IR/PaOps.h"
#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/PlanLowering.h"
#include "pa/Transforms/StructuredControl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Pass/Pass.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PALOWERPLANTOTHREADS
#include "pa/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;
using arith::CmpIPredicate;

namespace {

constexpr int64_t kThreads = 128;
constexpr int64_t kWarps = kThreads / 32;
/// Sequences whose reduce_info entries step 4 reads from shared memory
/// (8 KiB): its search read them from global memory, a chain of L2 round
/// trips per work row.
constexpr int64_t kSharedSequences = 1024;

/// The plan's arithmetic (PlanArithmetic, shared with pa-lower-plan) and
/// the memory, barrier and loop ops of the threaded kernel.
struct Emitter : PlanArithmetic {
  using PlanArithmetic::PlanArithmetic;

  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(b, memref, indices);
  }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(b, value, memref, indices);
  }
  void barrier() { gpu::BarrierOp::create(b); }

  /// The i64 `x` of lane (lane - offset), in two 32-bit shuffles; a lane
  /// below `offset` gets its own.
  Value shuffleUp(Value x, int64_t offset) {
    auto shuffle = [&](Value word) {
      return gpu::ShuffleOp::create(b, word, i32(offset), i32(32),
                                    gpu::ShuffleMode::UP)
          .getShuffleResult();
    };
    Type i64Type = b.getI64Type();
    Value low = shuffle(toI32(x));
    Value high = shuffle(toI32(arith::ShRUIOp::create(b, x, i64(32))));
    return arith::OrIOp::create(
        b, arith::ExtUIOp::create(b, i64Type, low),
        arith::ShLIOp::create(b, arith::ExtUIOp::create(b, i64Type, high),
                              i64(32)));
  }

  /// buildIf and buildIfValue (StructuredControl.h) at this emitter.
  void ifThen(Value condition, function_ref<void()> then) {
    buildIf(b, condition, then);
  }
  Value ifValue(Value condition, function_ref<Value()> then,
                function_ref<Value()> otherwise) {
    return buildIfValue(b, condition, then, otherwise);
  }

  /// for (iv = lower; iv < upper; iv += step) with i64 loop-carried values.
  SmallVector<Value>
  forLoop(Value lower, Value upper, Value step, ValueRange init,
          function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto loop = scf::ForOp::create(
        b, lower, upper, step, init,
        [&](OpBuilder &, Location, Value iv, ValueRange carried) {
          scf::YieldOp::create(b, body(iv, carried));
        });
    return SmallVector<Value>(loop.getResults());
  }
};

class PlanBuilder {
public:
  PlanBuilder(ImplicitLocOpBuilder &b, const PlanParams &params,
              ValueRange args, ValueRange buffers)
      : b(b), e(b, params), params(params), contextLengths(args[0]),
        workInfo(args[1]), reduceInfo(args[2]), scans(buffers.take_front(3)),
        sharedEntries(buffers[3]) {}

  void build() {
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    Value batch = memref::DimOp::create(b, contextLengths, 0);
    Value workRows = memref::DimOp::create(b, workInfo, 0);
    Value batch64 = e.toI64(batch);
    // Thread tid's sequences: [begin, end).
    Value chunk = arith::CeilDivUIOp::create(b, batch, e.idx(kThreads));
    Value begin = arith::MinUIOp::create(b, e.mul(tid, chunk), batch);
    Value end = arith::MinUIOp::create(b, e.add(begin, chunk), batch);
    Value one = e.idx(1);

    // 1. Tiles and non-empty sequences; exclusive tile prefix per thread.
    SmallVector<Value> mine = e.forLoop(
        begin, end, one, {e.i64(0), e.i64(0)},
        [&](Value sequence, ValueRange acc) -> SmallVector<Value> {
          Value tiles = e.tileRange(contextLength(sequence)).count;
          Value nonEmpty = arith::ExtUIOp::create(
              b, b.getI64Type(), e.cmp(CmpIPredicate::sgt, tiles, e.i64(0)));
          return {e.add(acc[0], tiles), e.add(acc[1], nonEmpty)};
        });
    Scan tileScan =
        inclusiveScan(tid, {scans[0], scans[1]}, {mine[0], mine[1]});
    Value tilesBefore = e.sub(tileScan.sums[0], mine[0]);
    Value totalTiles = tileScan.totals[0];
    Value nonEmptyCount = tileScan.totals[1];

    // 2. Capacity >= B >= non-empty sequences, so remaining >= 0.
    remaining = e.sub(e.capacity(batch64), nonEmptyCount);
    denominator = e.max(totalTiles, e.i64(1));
    Value myCount =
        e.forLoop(begin, end, one, {tilesBefore, e.i64(0)},
                  [&](Value sequence, ValueRange acc) -> SmallVector<Value> {
                    Partitions p = partitions(sequence, acc[0]);
                    return {p.cum, e.add(acc[1], p.count)};
                  })[1];
    Scan countScan = inclusiveScan(tid, {scans[2]}, {myCount});
    Value slotsBefore = e.sub(countScan.sums[0], myCount);
    Value totalCount = countScan.totals[0];

    // 3. reduce_info: first slot and the partitions stored (slots past the
    // end of a too-small work_info are skipped, as in pa-lower-plan).
    Value workRows64 = e.toI64(workRows);
    e.forLoop(begin, end, one, {tilesBefore, slotsBefore},
              [&](Value sequence, ValueRange acc) -> SmallVector<Value> {
                Partitions p = partitions(sequence, acc[0]);
                Value nextSlot = acc[1];
                Value storable = e.max(
                    e.min(p.count, e.sub(workRows64, nextSlot)), e.i64(0));
                std::array<Value, 2> entry = {e.toI32(nextSlot),
                                              e.toI32(storable)};
                for (auto [field, value] : llvm::enumerate(entry))
                  e.store(value, reduceInfo, {sequence, e.idx(field)});
                e.ifThen(e.cmp(CmpIPredicate::ult, sequence,
                               e.idx(kSharedSequences)),
                         [&] {
                           for (auto [field, value] : llvm::enumerate(entry))
                             e.store(value, sharedEntries,
                                     {sharedEntryIndex(sequence, field)});
                         });
                return {p.cum, e.add(nextSlot, p.count)};
              });
    e.barrier();
    entriesShared = e.cmp(CmpIPredicate::sle, batch64, e.i64(kSharedSequences));

    // 4. Every work_info row: a partition or zeros.
    Value stride = e.idx(kThreads);
    auto hasSequences = scf::IfOp::create(
        b, e.cmp(CmpIPredicate::sgt, batch64, e.i64(0)),
        /*withElseRegion=*/true);
    b.setInsertionPointToStart(&hasSequences.getThenRegion().front());
    e.forLoop(tid, workRows, stride, {},
              [&](Value slot, ValueRange) -> SmallVector<Value> {
                writeRow(slot, batch64, totalCount);
                return {};
              });
    b.setInsertionPointToStart(&hasSequences.getElseRegion().front());
    e.forLoop(tid, workRows, stride, {},
              [&](Value slot, ValueRange) -> SmallVector<Value> {
                Value zero = e.i32(0);
                storeRow(slot, {zero, zero, zero, zero});
                return {};
              });
    b.setInsertionPointAfter(hasSequences);
  }

private:
  Value contextLength(Value sequence) {
    return e.contextLength(contextLengths, sequence);
  }

  struct Partitions {
    Value cum, count;
  };
  /// The partition count of `sequence` after `cumBefore` tiles: the
  /// prefix-sum apportioning of pa-lower-plan (an empty sequence gets 0).
  Partitions partitions(Value sequence, Value cumBefore) {
    Value tiles = e.tileRange(contextLength(sequence)).count;
    Value cum = e.add(cumBefore, tiles);
    Value extra = e.sub(e.div(e.mul(cum, remaining), denominator),
                        e.div(e.mul(cumBefore, remaining), denominator));
    Value count = e.min(e.min(e.add(extra, e.i64(1)), tiles),
                        e.i64(params.maxPartitions));
    return {cum, count};
  }

  struct Scan {
    SmallVector<Value> sums, totals;
  };
  /// Inclusive sums over the threads of one i64 value each, and the
  /// totals: within each warp by shuffles, then the warp totals (lane 31's
  /// sums) through `buffers[i]` (one entry per warp) and one barrier. The
  /// scan in shared memory it replaces took 14 barriers.
  Scan inclusiveScan(Value tid, ValueRange buffers, ValueRange values) {
    Value lane = arith::RemUIOp::create(b, tid, e.idx(32));
    Value warp = arith::DivUIOp::create(b, tid, e.idx(32));
    Scan scan{SmallVector<Value>(values), {}};
    for (int64_t offset = 1; offset < 32; offset *= 2) {
      Value has = e.cmp(CmpIPredicate::uge, lane, e.idx(offset));
      for (Value &sum : scan.sums)
        sum = e.add(sum, e.select(has, e.shuffleUp(sum, offset), e.i64(0)));
    }
    e.ifThen(e.cmp(CmpIPredicate::eq, lane, e.idx(31)), [&] {
      for (auto [buffer, sum] : llvm::zip(buffers, scan.sums))
        e.store(sum, buffer, {warp});
    });
    e.barrier();
    for (auto [buffer, sum] : llvm::zip(buffers, scan.sums)) {
      Value before = e.i64(0), total = e.i64(0);
      for (int64_t w = 0; w < kWarps; ++w) {
        Value warpTotal = e.load(buffer, {e.idx(w)});
        before =
            e.add(before, e.select(e.cmp(CmpIPredicate::ugt, warp, e.idx(w)),
                                   warpTotal, e.i64(0)));
        total = e.add(total, warpTotal);
      }
      sum = e.add(sum, before);
      scan.totals.push_back(total);
    }
    return scan;
  }

  Value sharedEntryIndex(Value sequence, int64_t field) {
    return e.add(e.mul(sequence, e.idx(2)), e.idx(field));
  }

  /// reduce_info[sequence][field] (i64; sequence an i64 < B) as step 3
  /// wrote it: from its shared copy where every sequence has one.
  Value reduceEntry(Value sequence, int64_t field) {
    Value index = e.toIndex(sequence);
    return e.toI64(e.ifValue(
        entriesShared,
        [&] { return e.load(sharedEntries, {sharedEntryIndex(index, field)}); },
        [&] {
          return e.load(reduceInfo, {index, e.idx(field)});
        }));
  }

  /// Work row `slot` (index) of a plan of `batch` > 0 sequences whose
  /// counts add up to `totalCount`.
  void writeRow(Value slot, Value batch, Value totalCount) {
    Value slot64 = e.toI64(slot);
    auto firstSlotOf = [&](Value sequence) { return reduceEntry(sequence, 0); };
    // The last sequence whose first slot is <= slot (first slots do not
    // decrease and sequence 0's is 0): bits of the answer, highest first.
    Value bits = e.sub(
        e.i64(64), math::CountLeadingZerosOp::create(b, batch).getResult());
    Value owner =
        e.forLoop(e.idx(0), e.toIndex(bits), e.idx(1), {e.i64(0)},
                  [&](Value j, ValueRange acc) -> SmallVector<Value> {
                    Value shift = e.sub(e.sub(bits, e.i64(1)), e.toI64(j));
                    Value candidate = e.add(
                        acc[0], arith::ShLIOp::create(b, e.i64(1), shift));
                    Value inside =
                        e.cmp(CmpIPredicate::slt, candidate, batch);
                    Value clamped =
                        e.min(candidate, e.sub(batch, e.i64(1)));
                    Value take = arith::AndIOp::create(
                        b, inside,
                        e.cmp(CmpIPredicate::sle, firstSlotOf(clamped),
                              slot64));
                    return {e.select(take, candidate, acc[0])};
                  })[0];
    Value firstSlot = firstSlotOf(owner);
    Value stored = reduceEntry(owner, 1);
    Value next = e.add(owner, e.i64(1));
    Value nextFirst =
        firstSlotOf(e.min(next, e.sub(batch, e.i64(1))));
    Value count = e.sub(
        e.select(e.cmp(CmpIPredicate::slt, next, batch), nextFirst,
                 totalCount),
        firstSlot);
    Value k = e.sub(slot64, firstSlot);
    Value isPartition = e.cmp(CmpIPredicate::slt, k, stored);
    Value length = contextLength(e.toIndex(owner));
    auto [first, tiles] = e.tileRange(length);
    Value divisor = e.max(count, e.i64(1));
    Value partBegin = e.add(first, e.div(e.mul(k, tiles), divisor));
    Value partEnd =
        e.add(first, e.div(e.mul(e.add(k, e.i64(1)), tiles), divisor));
    Value zero = e.i32(0);
    auto field = [&](Value x) {
      return e.select(isPartition, e.toI32(x), zero);
    };
    storeRow(slot, {field(owner), field(partBegin), field(partEnd),
                    field(length)});
  }

  void storeRow(Value slot, std::array<Value, 4> row) {
    for (int64_t f = 0; f < 4; ++f)
      e.store(row[f], workInfo, {slot, e.idx(f)});
  }

  ImplicitLocOpBuilder &b;
  Emitter e;
  const PlanParams &params;
  Value contextLengths, workInfo, reduceInfo;
  ValueRange scans;
  Value sharedEntries; // [2 * kSharedSequences] i32: reduce_info's copy
  Value entriesShared; // i1: B <= kSharedSequences
  Value remaining, denominator;
};

struct LowerPlanToThreadsPass
    : pa::impl::PaLowerPlanToThreadsBase<LowerPlanToThreadsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkPaOpsInTopLevelModule(module)))
      return signalPassFailure();
    if (!module.walk([](PlanOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      return;
    FailureOr<ChipInfo> target =
        getTargetChip(module, getArgument(), Vendor::NVIDIA);
    if (failed(target))
      return signalPassFailure();
    if (target->workgroupSize != kThreads) {
      module.emitError() << "pa-lower-plan-to-threads plans on " << kThreads
                         << " threads, but " << target->name << " launches "
                         << target->workgroupSize;
      return signalPassFailure();
    }
    Builder builder(module.getContext());
    MemRefType scan = workgroupMemRef({kWarps}, builder.getI64Type());
    MemRefType entries =
        workgroupMemRef({2 * kSharedSequences}, builder.getI32Type());
    for (gpu::GPUFuncOp kernel : lowerPlanOps(
             module, *target, {scan, scan, scan, entries},
             [](ImplicitLocOpBuilder &body, gpu::GPUFuncOp kernel,
                const PlanParams &params) {
               PlanBuilder(body, params, kernel.getArguments(),
                           kernel.getWorkgroupAttributions())
                   .build();
             }))
      kernel->setAttr(kDistributionAttrName,
                      DistributionAttr::get(module.getContext(),
                                            Distribution::threads));
  }
};

} // namespace

