//===- ReduceToWarps.cpp - the split-K reducer on NVIDIA warps ------------===//
//
// pa-lower-reduce's kernel merges one row at a time: a loop over the
// partitions for the maximum, one for the denominator, then one per
// partition over the head dim, each partition a dependent round trip to
// memory. Run on one thread per head-dim column that chain dominates decode
// times of many partitions (~100 us for 16 partitions of 8 rows), so the
// kernel (recognized by its operands, pa.arg_names) gets this body instead,
// with the same arithmetic (LowerReduce.cpp):
//   1. warp w takes rows w, w + 4, ... (two of them in each loop); its
//      lanes take the partitions (lane l: l, l + 32, ...) for
//      M = max(max_p max_logits_p, z) and den = sum_p w_p + e_z (warp
//      shuffles), kept in shared memory;
//   2. thread i takes the output items i, i + 128, ... (an item: 4
//      head-dim columns of one row, one 16-byte load of tmp_out per
//      partition) for out = sum_p (w_p / den) tmp_out_p, partitions in
//      order, a partition with w_p == 0 contributing 0 by selection (its
//      values never reach the sum). The loads of several partitions (a
//      round) are issued before their products, a round's partitions past
//      the count skipped in branches: with one partition per round trip
//      (lanes on columns, 2 rows per warp) the reduce of 16 partitions
//      took 32 us on the H200, as long as 10% of the decode.
// The rows of a (sequence, KV head) are split into slices of rows on grid
// z (pa.nvvm.grid_z = S, applied to the launch by pa-nvvm-launch-grids;
// workgroup z takes slice z). The slices' rows are disjoint and each
// output's arithmetic is the same for any slicing. How many slices depends
// on the batch, known only at run time, so the kernel holds two bodies:
//   - few workgroups (B * Hkv * S at most 2 per SM): S slices, e.g. S = 4 at 8
//     rows of D = 256: B = 8 sequences of 2 KV heads run 64 workgroups
//     instead of 16, one output item per thread, all partitions' loads in
//     flight (16 at P <= 16);
//   - otherwise the fewest slices that leave each thread one pass of items
//     (1 at 8 rows of D = 256, 4 at 32 rows). The launch's grid z follows
//     the same rule (#pa.grid's `z = S if x * y le L else M`): launching
//     the few-workgroup z with workgroups beyond the slices returning at
//     once (4 slices at B = 128: 1024 workgroups in 2.6 waves at 3 per SM)
//     took the H200's (128, 2048) graphs 3-4 us longer than 1 (a sidecar
//     experiment); the H100's 0.8-1.0 us (2026-12-05, performance.md).
//===----------------------------------------------------------------------===//
#include "DecodeToWarps.h"
#include "PartitionMerge.h"
#include "WarpEmitter.h"

#include "pa/IR/KernelAttributes.h"
#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/ScoreMath.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

namespace {

constexpr int64_t kWarps = kWorkgroupThreads / 32;
/// Head-dim columns of one output item (one 16-byte load of tmp_out).
constexpr int64_t kColumnsPerItem = 4;
/// Items a thread accumulates at a time, tmp_out floats it loads per round
/// (242 registers at 4 items of 8 partitions, sm_90a), and partitions per
/// round.
constexpr int64_t kItemsPerPass = 4;
constexpr int64_t kMaxLoadedFloats = 128;
constexpr int64_t kMaxUnroll = 8;
/// Partitions per round where a thread has a single item: all 16 of the
/// default plan at long context in one round trip.
constexpr int64_t kMaxUnrollOneItem = 16;
/// At most this many slices of a (sequence, KV head)'s rows on grid z: the
/// batch is not known when compiling, and at B = 8, Hkv = 2 (16 workgroups
/// on 132 SMs) 4 slices give 64 workgroups; at B = 128, 1024.
constexpr int64_t kMaxSlices = 4;
/// Rows of a warp whose maximum and denominator loops run together (all
/// 2 rows of a warp at Q = 1, G = 8).
constexpr int64_t kRowsPerBatch = 2;
/// Most output items per thread (all rows of a (sequence, KV head), no
/// slices): 16 unrolled passes of kItemsPerPass, e.g. 64 rows at D = 512,
/// 512 rows at D = 64. The passes are unrolled, so the kernel's code (and
/// compile time and memory) grows with the rows; a kernel of more rows (a
/// long MTP query: Q = 10^5 took 24 GB and then std::bad_alloc) keeps
/// pa-lower-reduce's run-time loop over the rows instead (the
/// parallel-loops distribution), whose code does not depend on them.
constexpr int64_t kMaxItemsPerThread = 64;

struct ReduceOperands {
  Value expSums, maxLogits, tmpOut, reduceInfo, sinks, output;
  Value lse; // null without the log-sum-exp output
};

/// The reduce kernel's operands by pa.arg_names, or false.
bool matchReduce(gpu::GPUFuncOp kernel, ReduceOperands &ops) {
  auto names = kernel->getAttrOfType<ArrayAttr>(kArgNamesAttrName);
  if (!names || names.size() != kernel.getNumArguments())
    return false;
  llvm::StringMap<Value> byName;
  for (auto [name, arg] : llvm::zip(names, kernel.getArguments()))
    if (auto text = dyn_cast<StringAttr>(name))
      byName[text.getValue()] = arg;
  ops.expSums = byName.lookup("exp_sums");
  ops.maxLogits = byName.lookup("max_logits");
  ops.tmpOut = byName.lookup("tmp_out");
  ops.reduceInfo = byName.lookup("reduce_info");
  ops.sinks = byName.lookup("sinks");
  ops.output = byName.lookup("output");
  ops.lse = byName.lookup("lse");
  size_t expected = 5 + (ops.sinks ? 1 : 0) + (ops.lse ? 1 : 0);
  if (!ops.expSums || !ops.maxLogits || !ops.tmpOut || !ops.reduceInfo ||
      !ops.output || byName.size() != expected)
    return false;
  auto shaped = [](Value v, int64_t rank) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && type.getRank() == rank;
  };
  if (!shaped(ops.expSums, 3) || !shaped(ops.maxLogits, 3) ||
      !shaped(ops.tmpOut, 4) || !shaped(ops.reduceInfo, 2) ||
      !shaped(ops.output, 3) || (ops.sinks && !shaped(ops.sinks, 1)) ||
      (ops.lse && !shaped(ops.lse, 2)))
    return false;
  auto type = [](Value v) { return cast<MemRefType>(v.getType()); };
  // Static Hkv, R, D and Hq: what the body is specialized for.
  return !type(ops.expSums).isDynamicDim(0) &&
         !type(ops.expSums).isDynamicDim(2) &&
         !type(ops.tmpOut).isDynamicDim(3) &&
         !type(ops.output).isDynamicDim(1) &&
         type(ops.expSums).getElementType().isF32() &&
         type(ops.maxLogits).getElementType().isF32() &&
         type(ops.tmpOut).getElementType().isF32();
}

/// Slices of `rows` rows (of `itemsPerRow` items each) on grid z where
/// workgroups are few: the most, up to kMaxSlices, that divide the rows and
/// still give every thread of a workgroup an item.
int64_t maxSlices(int64_t rows, int64_t itemsPerRow) {
  int64_t slices = 1;
  for (int64_t s = 2; s <= kMaxSlices; s *= 2)
    if (rows % s == 0 && (rows / s) * itemsPerRow >= kWorkgroupThreads)
      slices = s;
  return slices;
}

/// Slices where workgroups are many: the fewest (of those dividing `most`)
/// that leave each thread at most one pass of kItemsPerPass items.
int64_t minSlices(int64_t rows, int64_t itemsPerRow, int64_t most) {
  for (int64_t s = 1; s < most; s *= 2)
    if (llvm::divideCeil((rows / s) * itemsPerRow, kWorkgroupThreads) <=
        kItemsPerPass)
      return s;
  return most;
}

} // namespace

namespace {

/// What the reduce body is specialized for.
struct ReduceShape {
  int64_t kvHeads, rows, headDim, group, queryLength;
};

/// The reduce kernel's operands and shape, where this lowering takes it.
std::optional<ReduceShape> analyzeReduce(gpu::GPUFuncOp kernel,
                                         ReduceOperands &ops) {
  if (!matchReduce(kernel, ops))
    return std::nullopt;
  auto type = [](Value v) { return cast<MemRefType>(v.getType()); };
  ReduceShape shape;
  shape.kvHeads = type(ops.expSums).getDimSize(0);
  shape.rows = type(ops.expSums).getDimSize(2);
  shape.headDim = type(ops.tmpOut).getDimSize(3);
  const int64_t queryHeads = type(ops.output).getDimSize(1);
  if (queryHeads % shape.kvHeads != 0 ||
      shape.rows % (queryHeads / shape.kvHeads) != 0 ||
      shape.headDim % kColumnsPerItem != 0)
    return std::nullopt;
  shape.group = queryHeads / shape.kvHeads;
  shape.queryLength = shape.rows / shape.group;
  // Output items: kColumnsPerItem head-dim columns of one row.
  if (llvm::divideCeil(shape.rows * (shape.headDim / kColumnsPerItem),
                       kWorkgroupThreads) > kMaxItemsPerThread)
    return std::nullopt;
  return shape;
}

} // namespace

bool mlir::pa::nvvm::reduceKernelTakesWarps(gpu::GPUFuncOp kernel) {
  ReduceOperands ops;
  return analyzeReduce(kernel, ops).has_value();
}

bool mlir::pa::nvvm::distributeReduceKernel(gpu::GPUFuncOp kernel,
                                            int64_t computeUnits) {
  ReduceOperands ops;
  std::optional<ReduceShape> shape = analyzeReduce(kernel, ops);
  if (!shape)
    return false;
  const int64_t rows = shape->rows, headDim = shape->headDim;
  const int64_t group = shape->group, queryLength = shape->queryLength;
  Type outType = cast<MemRefType>(ops.output.getType()).getElementType();
  // A slice: rows / slices consecutive rows.
  const int64_t itemsPerRow = headDim / kColumnsPerItem;
  const int64_t fewSlices = maxSlices(rows, itemsPerRow);
  const int64_t manySlices = minSlices(rows, itemsPerRow, fewSlices);

  // A fresh body; the workgroup buffer of the old one goes with it.
  Block &body = kernel.getBody().front();
  while (!body.empty())
    body.back().erase();
  unsigned first = kernel.getFirstWorkgroupAttributionIndex();
  for (unsigned i = kernel.getNumWorkgroupAttributions(); i-- > 0;)
    body.eraseArgument(first + i);
  kernel->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                  IntegerAttr::get(IntegerType::get(kernel.getContext(), 64), 0));
  Type f32 = Float32Type::get(kernel.getContext());
  Value rowMaxes =
      kernel.addWorkgroupAttribution(workgroupMemRef({rows}, f32), kernel.getLoc());
  Value denominators =
      kernel.addWorkgroupAttribution(workgroupMemRef({rows}, f32), kernel.getLoc());

  ImplicitLocOpBuilder b(kernel.getLoc(), kernel.getContext());
  b.setInsertionPointToStart(&body);
  WarpEmitter e(b);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warp = e.div(tid, 32), lane = e.rem(tid, 32);
  Value sequence = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value kvHead = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  auto plan = [&](int64_t field) {
    return e.toIndex(e.load(ops.reduceInfo, {sequence, e.idx(field)}));
  };
  Value firstSlot = plan(0), count = plan(1);
  // The decode wrote the output of a sequence of one partition
  // (pa-nvvm-single-partition-output): nothing to merge.
  if (kernel->hasAttr(kSinglePartitionOutputAttrName)) {
    auto merge = scf::IfOp::create(
        b, e.cmpI(CmpIPredicate::ne, count, e.idx(1)), /*withElse=*/false);
    b.setInsertionPoint(merge.thenBlock()->getTerminator());
  }
  Value zero = e.f32(0.0), negInf = e.negInf();
  auto partial = [&](Value buffer, Value part, Value row) {
    return e.load(buffer, {kvHead, e.addI(firstSlot, part), row});
  };
  auto weight = [&](Value logit, Value expSum, Value rowMax) {
    return partitionWeight(e, logit, expSum, rowMax);
  };

  // The slice of rows firstRow, ..., firstRow + sliceRows - 1.
  auto emitSlice = [&](Value firstRow, int64_t sliceRows) {
    const int64_t items = sliceRows * itemsPerRow;
    const int64_t itemsPerThread = llvm::divideCeil(items, kWorkgroupThreads);
    // 1. Per row (warp w: the slice's rows w, w + 4, ...; lanes over the
    // partitions):
    // M = max(max_p max_logits_p, z) and den = sum_p w_p + e_z. Rows b and
    // b + 4 (a batch) go through each loop together: one round trip to
    // memory for both per loop, where a loop per row took one per row (4
    // instead of 2 at 8 rows, the reduce's latency chain). Larger batches, or
    // the batches unrolled, left the output loop below short of registers
    // (spills at 32 rows).
    const int64_t batch =
        std::min<int64_t>(kRowsPerBatch, llvm::divideCeil(sliceRows, kWarps));
    e.forLoop(warp, e.idx(sliceRows), e.idx(kWarps * batch), [&](Value first) {
      SmallVector<Value> batchRows, isRow, sinks;
      for (int64_t r = 0; r < batch; ++r) {
        Value row = e.addI(first, r * kWarps);
        isRow.push_back(e.cmpI(CmpIPredicate::ult, row, e.idx(sliceRows)));
        batchRows.push_back(e.addI(
            firstRow, arith::MinUIOp::create(b, row, e.idx(sliceRows - 1))));
        if (!ops.sinks)
          continue;
        Value queryHead =
            e.addI(e.mulI(kvHead, group), e.rem(batchRows.back(), group));
        sinks.push_back(loadSink(e, ops.sinks, queryHead));
      }
      using Step = function_ref<Value(Value, int64_t, Value)>;
      // Per row r of the batch: carried[r] = step(part, r, carried[r]).
      auto laneLoop = [&](SmallVector<Value> init, Step step) {
        auto loop = scf::ForOp::create(
            b, lane, count, e.idx(32), init,
            [&](OpBuilder &, Location, Value part, ValueRange carried) {
              SmallVector<Value> next;
              for (int64_t r = 0; r < batch; ++r)
                next.push_back(step(part, r, carried[r]));
              scf::YieldOp::create(b, next);
            });
        return SmallVector<Value>(loop.getResults());
      };
      SmallVector<Value> rowMax = laneLoop(
          ops.sinks ? sinks : SmallVector<Value>(batch, negInf),
          [&](Value part, int64_t r, Value max) {
            return e.maxF(max, partial(ops.maxLogits, part, batchRows[r]));
          });
      for (Value &max : rowMax)
        for (int64_t offset = 16; offset >= 1; offset /= 2)
          max = e.maxF(max, e.shuffleXor(max, offset));
      // z = -inf contributes 0 even when M = -inf.
      SmallVector<Value> den =
          laneLoop(SmallVector<Value>(batch, zero),
                   [&](Value part, int64_t r, Value sum) {
                     return e.addF(
                         sum, weight(partial(ops.maxLogits, part, batchRows[r]),
                                     partial(ops.expSums, part, batchRows[r]),
                                     rowMax[r]));
                   });
      for (int64_t r = 0; r < batch; ++r) {
        for (int64_t offset = 16; offset >= 1; offset /= 2)
          den[r] = e.addF(den[r], e.shuffleXor(den[r], offset));
        if (ops.sinks)
          den[r] = e.addF(den[r], sinkTerm(e, sinks[r], rowMax[r]));
        e.ifThen(e.andI(isRow[r], e.cmpI(CmpIPredicate::eq, lane, e.idx(0))),
                 [&] {
                   e.store(rowMax[r], rowMaxes, {batchRows[r]});
                   e.store(den[r], denominators, {batchRows[r]});
                   if (!ops.lse)
                     return;
                   // Row q * G + g is output row b * Q + q, head h * G + g.
                   Value outputRow =
                       e.addI(e.mulI(sequence, queryLength),
                             e.div(batchRows[r], group));
                   Value queryHead = e.addI(e.mulI(kvHead, group),
                                           e.rem(batchRows[r], group));
                   e.store(emitLogSumExp(b, rowMax[r], den[r]), ops.lse,
                           {outputRow, queryHead});
                 });
      }
    });
    e.barrier();

    // 2. out = sum_p (w_p / den) tmp_out_p, partitions in order, over the
    // thread's items of the slice (item i: row firstRow + i / itemsPerRow,
    // columns 4 (i % itemsPerRow) + [0, 4)), kItemsPerPass at a time;
    // `unroll` partitions' loads are issued before their products. The rows
    // of different slices are disjoint: no barrier between slices.
    struct Item {
      Value valid, row, column, rowMax, den;
    };
    auto outVector = VectorType::get({kColumnsPerItem}, outType);
    for (int64_t pass = 0; pass < itemsPerThread; pass += kItemsPerPass) {
      const int64_t passItems = std::min(kItemsPerPass, itemsPerThread - pass);
      const int64_t unroll = std::clamp<int64_t>(
          kMaxLoadedFloats / (kColumnsPerItem * passItems), 1,
          passItems == 1 ? kMaxUnrollOneItem : kMaxUnroll);
      SmallVector<Item> mine;
      for (int64_t i = pass; i < pass + passItems; ++i) {
        Value index = e.addI(tid, i * kWorkgroupThreads);
        Item item;
        item.valid = e.cmpI(CmpIPredicate::ult, index, e.idx(items));
        index = arith::MinUIOp::create(b, index, e.idx(items - 1));
        item.row = e.addI(firstRow, e.div(index, itemsPerRow));
        item.column = e.mulI(e.rem(index, itemsPerRow), kColumnsPerItem);
        item.rowMax = e.load(rowMaxes, {item.row});
        item.den = e.load(denominators, {item.row});
        mine.push_back(item);
      }
      SmallVector<Value> init(passItems * kColumnsPerItem, zero);
      auto loop = scf::ForOp::create(
          b, e.idx(0), count, e.idx(unroll), init,
          [&](OpBuilder &, Location, Value base, ValueRange carried) {
            // Partition base + u (u > 0) exists only below count: its loads
            // and its products sit in branches on that, uniform over the
            // workgroup, so that a round executes the instructions of the
            // partitions there are (at one partition, the common case of
            // short contexts, an eighth of them; the H100 ran 1,965
            // instructions per warp for one partition of 8 rows when every
            // round did all `unroll`). The loads of a round still go out
            // before its products.
            SmallVector<Value> acc(carried);
            auto loadPartition = [&](Value part) {
              SmallVector<Value> logits, expSums, values;
              for (const Item &item : mine) {
                logits.push_back(partial(ops.maxLogits, part, item.row));
                expSums.push_back(partial(ops.expSums, part, item.row));
                values.push_back(e.loadVector(
                    ops.tmpOut,
                    {kvHead, e.addI(firstSlot, part), item.row, item.column},
                    kColumnsPerItem));
              }
              SmallVector<Value> all(logits);
              llvm::append_range(all, expSums);
              llvm::append_range(all, values);
              return all;
            };
            // loaded[u]: passItems logits, then expSums, then tmp_out items;
            // zeros for a partition past the count (its products skipped).
            SmallVector<SmallVector<Value>> loaded(unroll);
            SmallVector<Value> exists(unroll);
            SmallVector<Type> loadedTypes(2 * passItems, f32);
            loadedTypes.append(passItems,
                               VectorType::get({kColumnsPerItem}, f32));
            SmallVector<Value> absent(2 * passItems, zero);
            absent.append(passItems, e.zeroVector(kColumnsPerItem));
            for (int64_t u = 0; u < unroll; ++u) {
              Value part = e.addI(base, u);
              if (u == 0) {
                loaded[u] = loadPartition(part);
                continue;
              }
              exists[u] = e.cmpI(CmpIPredicate::ult, part, count);
              loaded[u] = e.ifValues(
                  exists[u], loadedTypes, [&] { return loadPartition(part); },
                  [&] { return absent; });
            }
            for (int64_t u = 0; u < unroll; ++u) {
              auto products = [&] {
                SmallVector<Value> next(acc);
                for (int64_t i = 0; i < passItems; ++i) {
                  Value w = weight(loaded[u][i], loaded[u][passItems + i],
                                   mine[i].rowMax);
                  Value used = contributes(e, w);
                  Value scale = e.divF(w, mine[i].den);
                  for (int64_t k = 0; k < kColumnsPerItem; ++k) {
                    Value &sum = next[i * kColumnsPerItem + k];
                    sum = addWeighted(
                        e, used, scale,
                        e.extract(loaded[u][2 * passItems + i], k), sum);
                  }
                }
                return next;
              };
              if (u == 0)
                acc = products();
              else
                acc = e.ifValues(exists[u], ValueRange(acc).getTypes(),
                                 products, [&] { return acc; });
            }
            scf::YieldOp::create(b, acc);
          });
      for (int64_t i = 0; i < passItems; ++i) {
        const Item &item = mine[i];
        SmallVector<Value> values;
        for (int64_t k = 0; k < kColumnsPerItem; ++k)
          values.push_back(arith::TruncFOp::create(
              b, outType, loop.getResult(i * kColumnsPerItem + k)));
        Value q = e.div(item.row, group), g = e.rem(item.row, group);
        Value outputRow = e.addI(e.mulI(sequence, queryLength), q);
        Value queryHead = e.addI(e.mulI(kvHead, group), g);
        auto store = [&] {
          e.storeVector(vector::FromElementsOp::create(b, outVector, values),
                        ops.output, {outputRow, queryHead, item.column});
        };
        if ((pass + i + 1) * kWorkgroupThreads <= items)
          store();
        else
          e.ifThen(item.valid, store);
      }
    }
  };
  // Workgroup z takes slice z: the launch must have z >= the slices
  // (pa-nvvm-launch-grids). A loop over the slices a workgroup is given
  // (block_id z, step grid_dim z), correct under any z, cost registers:
  // 88-byte spills at 48 rows of D = 256, 8 bytes at 16 rows of D = 64.
  auto emitSlices = [&](int64_t slices) {
    if (slices == 1)
      return emitSlice(e.idx(0), rows);
    Value slice = gpu::BlockIdOp::create(b, gpu::Dimension::z);
    emitSlice(e.mulI(slice, rows / slices), rows / slices);
  };
  if (fewSlices > 1)
    kernel->setAttr(kGridZAttrName, b.getI64IntegerAttr(fewSlices));
  if (fewSlices == manySlices) {
    emitSlices(fewSlices);
  } else {
    // B * Hkv * fewSlices workgroups at most 2 per SM: fewSlices, else
    // manySlices. The launch follows the same rule (pa.nvvm.grid_z_limit /
    // _otherwise), so no workgroup is launched only to return: 768 such of
    // 1024 took the H200's (128, 2048) graphs 3-4 us longer.
    const int64_t fewLimit = 2 * computeUnits / fewSlices;
    kernel->setAttr(kGridZLimitAttrName, b.getI64IntegerAttr(fewLimit));
    kernel->setAttr(kGridZOtherwiseAttrName, b.getI64IntegerAttr(manySlices));
    Value groups = e.mulI(gpu::GridDimOp::create(b, gpu::Dimension::x),
                         gpu::GridDimOp::create(b, gpu::Dimension::y));
    Value few = e.cmpI(CmpIPredicate::ule, groups, e.idx(fewLimit));
    // Workgroups z beyond manySlices (a launch of z = fewSlices there)
    // return at once.
    e.ifThenElse(few, [&] { emitSlices(fewSlices); },
                 [&] {
                   Value slice = gpu::BlockIdOp::create(b, gpu::Dimension::z);
                   e.ifThen(e.cmpI(CmpIPredicate::ult, slice,
                                  e.idx(manySlices)),
                            [&] { emitSlices(manySlices); });
                 });
  }
  b.setInsertionPointToEnd(&body);
  gpu::ReturnOp::create(b);
  return true;
}
