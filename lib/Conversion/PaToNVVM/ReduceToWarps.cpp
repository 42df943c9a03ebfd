//===- ReduceToWarps.cpp - the split-K reducer on NVIDIA warps ------------===//
//
// pa-lower-reduce's kernel merges one row at a time: a loop over the
// partitions for the maximum, one for the denominator, then one per
// partition over the head dim, each partition a dependent round trip to
// memory. Run on one thread per head-dim column that chain dominates decode
// times of many partitions (~100 us for 16 partitions of 8 rows), so the
// kernel (recognized by its operands, pa.arg_names) gets this body instead,
// with the same arithmetic (LowerReduce.cpp):
//   warp w takes rows w, w + 4, ...; its lanes take the partitions
//   (lane l: l, l + 32, ...) for M = max(max_p max_logits_p, z) and
//   den = sum_p w_p + e_z (warp shuffles), then the head-dim columns
//   (lane l: l + 32k, accumulators in registers) for
//   out = sum_p (w_p / den) tmp_out_p, partitions in order, a partition
//   with w_p == 0 contributing 0 by selection (its values never reach the
//   sum).
//
//===----------------------------------------------------------------------===//
#include "DecodeToWarps.h"
#include "WarpEmitter.h"

#include "pa/Transforms/KernelBuilder.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

namespace {

constexpr int64_t kWarps = kWorkgroupThreads / 32;

struct ReduceOperands {
  Value expSums, maxLogits, tmpOut, reduceInfo, sinks, output;
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
  size_t expected = ops.sinks ? 6 : 5;
  if (!ops.expSums || !ops.maxLogits || !ops.tmpOut || !ops.reduceInfo ||
      !ops.output || byName.size() != expected)
    return false;
  auto shaped = [](Value v, int64_t rank) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && type.getRank() == rank;
  };
  if (!shaped(ops.expSums, 3) || !shaped(ops.maxLogits, 3) ||
      !shaped(ops.tmpOut, 4) || !shaped(ops.reduceInfo, 2) ||
      !shaped(ops.output, 3) || (ops.sinks && !shaped(ops.sinks, 1)))
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

} // namespace

bool mlir::pa::nvvm::distributeReduceKernel(gpu::GPUFuncOp kernel) {
  ReduceOperands ops;
  if (!matchReduce(kernel, ops))
    return false;
  auto type = [](Value v) { return cast<MemRefType>(v.getType()); };
  const int64_t kvHeads = type(ops.expSums).getDimSize(0);
  const int64_t rows = type(ops.expSums).getDimSize(2);
  const int64_t headDim = type(ops.tmpOut).getDimSize(3);
  const int64_t queryHeads = type(ops.output).getDimSize(1);
  if (queryHeads % kvHeads != 0 || rows % (queryHeads / kvHeads) != 0)
    return false;
  const int64_t group = queryHeads / kvHeads;
  const int64_t queryLength = rows / group;
  const int64_t columns = llvm::divideCeil(headDim, 32);
  Type outType = type(ops.output).getElementType();

  // A fresh body; the workgroup buffer of the old one goes with it.
  Block &body = kernel.getBody().front();
  while (!body.empty())
    body.back().erase();
  unsigned first = kernel.getFirstWorkgroupAttributionIndex();
  for (unsigned i = kernel.getNumWorkgroupAttributions(); i-- > 0;)
    body.eraseArgument(first + i);
  kernel->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                  IntegerAttr::get(IntegerType::get(kernel.getContext(), 64), 0));

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
  Value zero = e.f32(0.0), negInf = e.negInf();
  Value log2e = e.f32(llvm::numbers::log2e);
  auto expShifted = [&](Value x, Value max) {
    return e.exp2(e.mulF(e.subF(x, max), log2e));
  };

  e.forLoop(warp, e.idx(rows), e.idx(kWarps), [&](Value row) {
    Value q = e.div(row, group), g = e.rem(row, group);
    Value queryHead = e.add(e.mul(kvHead, group), g);
    Value outputRow = e.add(e.mul(sequence, queryLength), q);
    Value sink;
    if (ops.sinks)
      sink = [&] {
        Value z = e.load(ops.sinks, {queryHead});
        return z.getType().isF32()
                   ? z
                   : arith::ExtFOp::create(b, b.getF32Type(), z).getResult();
      }();
    auto partial = [&](Value buffer, Value part) {
      return e.load(buffer, {kvHead, e.add(firstSlot, part), row});
    };
    auto weightOf = [&](Value part, Value rowMax) {
      Value logit = partial(ops.maxLogits, part);
      Value weight =
          e.mulF(partial(ops.expSums, part), expShifted(logit, rowMax));
      return e.select(e.eqF(logit, negInf), zero, weight);
    };
    auto laneLoop = [&](Value init, function_ref<Value(Value, Value)> step) {
      return scf::ForOp::create(
                 b, lane, count, e.idx(32), ValueRange{init},
                 [&](OpBuilder &, Location, Value part, ValueRange carried) {
                   scf::YieldOp::create(b, step(part, carried.front()));
                 })
          .getResult(0);
    };

    // M = max(max_p max_logits_p, z), over the lanes' partitions.
    Value rowMax = laneLoop(sink ? sink : negInf, [&](Value part, Value max) {
      return e.maxF(max, partial(ops.maxLogits, part));
    });
    for (int64_t offset = 16; offset >= 1; offset /= 2)
      rowMax = e.maxF(rowMax, e.shuffleXor(rowMax, offset));
    // den = sum_p w_p + e_z; z = -inf contributes 0 even when M = -inf.
    Value den = laneLoop(zero, [&](Value part, Value sum) {
      return e.addF(sum, weightOf(part, rowMax));
    });
    for (int64_t offset = 16; offset >= 1; offset /= 2)
      den = e.addF(den, e.shuffleXor(den, offset));
    if (sink) {
      Value term =
          e.select(e.eqF(sink, rowMax), e.f32(1.0), expShifted(sink, rowMax));
      den = e.addF(den, e.select(e.eqF(sink, negInf), zero, term));
    }

    // out[d] = sum_p (w_p / den) tmp_out_p[d], lane l: d = l + 32k.
    SmallVector<Value> init(columns, zero);
    auto loop = scf::ForOp::create(
        b, e.idx(0), count, e.idx(1), init,
        [&](OpBuilder &, Location, Value part, ValueRange acc) {
          Value weight = weightOf(part, rowMax);
          // UNE: a NaN weight (a broken partial) is not skipped.
          Value used = arith::CmpFOp::create(b, arith::CmpFPredicate::UNE,
                                             weight, zero);
          Value scale = e.divF(weight, den);
          SmallVector<Value> next;
          for (int64_t k = 0; k < columns; ++k) {
            Value d = e.add(lane, 32 * k);
            Value sum = acc[k];
            auto add = [&] {
              Value value = e.load(ops.tmpOut,
                                   {kvHead, e.add(firstSlot, part), row, d});
              return e.select(used, e.addF(sum, e.mulF(scale, value)), sum);
            };
            if ((k + 1) * 32 <= headDim) {
              next.push_back(add());
              continue;
            }
            next.push_back(
                scf::IfOp::create(
                    b, e.cmp(CmpIPredicate::ult, d, e.idx(headDim)),
                    [&](OpBuilder &, Location) {
                      scf::YieldOp::create(b, add());
                    },
                    [&](OpBuilder &, Location) {
                      scf::YieldOp::create(b, sum);
                    })
                    .getResult(0));
          }
          scf::YieldOp::create(b, next);
        });
    for (int64_t k = 0; k < columns; ++k) {
      Value d = e.add(lane, 32 * k);
      auto store = [&] {
        e.store(arith::TruncFOp::create(b, outType, loop.getResult(k)),
                ops.output, {outputRow, queryHead, d});
      };
      if ((k + 1) * 32 <= headDim)
        store();
      else
        e.ifThen(e.cmp(CmpIPredicate::ult, d, e.idx(headDim)), store);
    }
  });
  gpu::ReturnOp::create(b);
  return true;
}
