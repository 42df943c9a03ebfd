//===- LowerReduce.cpp - pa.reduce to a partition-merging kernel ----------===//
//
// One workgroup per (sequence b = block_id x, KV head h = block_id y). For
// each of the R = Q * G rows of the head (row r = q * G + g, query head
// h * G + g, output row b * Q + q), with (first, count) = reduce_info[b]:
//   M   = max(max_p max_logits_p, z)
//   w_p = exp_sums_p * exp(max_logits_p - M), 0 when max_logits_p = -inf
//   den = sum_p w_p + e_z, e_z = 0 without sink or for z = -inf, 1 when
//         z == M (z = +inf then gives 0 instead of NaN), else exp(z - M)
//   out = sum_p (w_p / den) * tmp_out_p, exactly 0 when den == 0
//   lse = M + log(den), -inf when den == 0 (with the optional lse operand)
// Partitions with w_p == 0 are skipped, so a row whose partitions are all
// empty (or count == 0, or z = +inf) never divides by zero and stays 0.
//
// The D axis is accumulated in a workgroup buffer acc[D] (f32): a
// partition's weight is computed per row (not per d), then applied over D.
// The loops over D are scf.parallel, their iterations independent, so a GPU
// backend can give each lane its own d's (no synchronization: a lane only
// touches its own acc[d]); the host executor runs them sequentially.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/PaOps.h"
#include "pa/Transforms/ArithEmitter.h"
#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/Passes.h"
#include "pa/Transforms/ScoreMath.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include "llvm/Support/MathExtras.h"

#include <limits>

namespace mlir::pa {
#define GEN_PASS_DEF_PALOWERREDUCE
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {

/// Static shape facts of one pa.reduce.
struct ReduceShape {
  int64_t kvHeads, group, queryLength, headDim;
};

/// The kernel arguments, in launch order.
struct ReduceArgs {
  Value expSums, maxLogits, tmpOut, reduceInfo, sinks /*may be null*/, output;
  Value lse; // may be null
};

/// Emits f32 arithmetic of the reduce kernel.
class ReduceEmitter : public ArithEmitter {
public:
  explicit ReduceEmitter(ImplicitLocOpBuilder &b) : ArithEmitter(b) {}

  Value f32(double value) {
    return arith::ConstantFloatOp::create(b, b.getF32Type(),
                                          APFloat(static_cast<float>(value)));
  }
  Value negInf() { return f32(-std::numeric_limits<double>::infinity()); }
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, value);
  }
  /// exp(x - max) through exp2: exp2((x - max) * log2(e)).
  Value expShifted(Value x, Value max) {
    return exp2(mulF(subF(x, max), f32(llvm::numbers::log2e)));
  }
  /// w_p = exp_sums_p * exp(max_logits_p - M), exactly 0 for an empty
  /// partition (max_logits_p = -inf; with M = -inf too the exp would be NaN).
  Value partitionWeight(Value maxLogit, Value expSum, Value rowMax) {
    Value weight = mulF(expSum, expShifted(maxLogit, rowMax));
    return select(eqF(maxLogit, negInf()), f32(0.0), weight);
  }
};

using LoopBody =
    function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, Value, ValueRange)>;

/// scf.for over [0, ub) with step 1; `body(builder, iv, iterArgs)` returns
/// the values to yield.
scf::ForOp buildFor(ImplicitLocOpBuilder &b, Value ub, ValueRange inits,
                    LoopBody body) {
  Value c0 = arith::ConstantIndexOp::create(b, 0);
  Value c1 = arith::ConstantIndexOp::create(b, 1);
  return scf::ForOp::create(
      b, c0, ub, c1, inits,
      [&](OpBuilder &nested, Location loc, Value iv, ValueRange iterArgs) {
        ImplicitLocOpBuilder nb(loc, nested);
        scf::YieldOp::create(nb, body(nb, iv, iterArgs));
      });
}

/// scf.parallel over d in [0, size): the iterations are independent, so a
/// GPU backend may spread them over lanes.
void buildParallelFor(ImplicitLocOpBuilder &b, int64_t size,
                      function_ref<void(ImplicitLocOpBuilder &, Value)> body) {
  Value c0 = arith::ConstantIndexOp::create(b, 0);
  Value c1 = arith::ConstantIndexOp::create(b, 1);
  Value ub = arith::ConstantIndexOp::create(b, size);
  scf::ParallelOp::create(b, ValueRange{c0}, ValueRange{ub}, ValueRange{c1},
                          [&](OpBuilder &nested, Location loc, ValueRange ivs) {
                            ImplicitLocOpBuilder nb(loc, nested);
                            body(nb, ivs[0]);
                          });
}

/// What every row of one workgroup shares.
struct WorkgroupContext {
  const ReduceArgs &args;
  const ReduceShape &shape;
  Value acc; // workgroup buffer memref<D x f32>
  Value sequence, kvHead, first, count;
};

/// Merges the partitions of row r = q * G + g into output[b*Q + q][h*G + g].
void buildRow(ImplicitLocOpBuilder &b, const WorkgroupContext &wg, Value q,
              Value g) {
  ReduceEmitter e(b);
  const ReduceArgs &args = wg.args;
  Value groupSize = e.index(wg.shape.group);
  Value row =
      arith::AddIOp::create(b, arith::MulIOp::create(b, q, groupSize), g);
  Value queryHead = arith::AddIOp::create(
      b, arith::MulIOp::create(b, wg.kvHead, groupSize), g);
  Value outputRow = arith::AddIOp::create(
      b, arith::MulIOp::create(b, wg.sequence, e.index(wg.shape.queryLength)),
      q);

  Value sink;
  if (args.sinks) {
    sink = memref::LoadOp::create(b, args.sinks, ValueRange{queryHead});
    if (!sink.getType().isF32())
      sink = arith::ExtFOp::create(b, b.getF32Type(), sink);
  }
  auto loadPartial = [&](ImplicitLocOpBuilder &pb, Value buffer, Value part) {
    Value slot = arith::AddIOp::create(pb, wg.first, part);
    return memref::LoadOp::create(pb, buffer, ValueRange{wg.kvHead, slot, row})
        .getResult();
  };

  // M = max(max_p max_logits_p, z).
  Value rowMax =
      buildFor(b, wg.count, {sink ? sink : e.negInf()},
               [&](ImplicitLocOpBuilder &pb, Value part, ValueRange max) {
                 Value logit = loadPartial(pb, args.maxLogits, part);
                 return SmallVector<Value>{
                     arith::MaximumFOp::create(pb, max[0], logit)};
               })
          .getResult(0);

  // den = sum_p w_p + e_z. z = -inf overrides z == M: when every partition
  // is empty M = z = -inf too, and the sink must not count as 1.
  Value sinkTerm = e.f32(0.0);
  if (sink) {
    Value term = e.select(e.eqF(sink, rowMax), e.f32(1.0),
                          e.expShifted(sink, rowMax));
    sinkTerm = e.select(e.eqF(sink, e.negInf()), e.f32(0.0), term);
  }
  // w_p is needed by the denominator and again, once den is known, by the
  // accumulation: two exp2 per partition and row, independent of D.
  auto weightOf = [&](ImplicitLocOpBuilder &pb, Value part) {
    return ReduceEmitter(pb).partitionWeight(
        loadPartial(pb, args.maxLogits, part),
        loadPartial(pb, args.expSums, part), rowMax);
  };
  Value den =
      buildFor(b, wg.count, {sinkTerm},
               [&](ImplicitLocOpBuilder &pb, Value part, ValueRange sum) {
                 return SmallVector<Value>{
                     arith::AddFOp::create(pb, sum[0], weightOf(pb, part))};
               })
          .getResult(0);

  // acc = sum_p (w_p / den) * tmp_out_p over the partitions with w_p != 0:
  // then den >= w_p > 0, and a row with den == 0 keeps acc = 0. Skipping
  // also keeps 0 * NaN of an unwritten tmp_out row out of the sum.
  Value zero = e.f32(0.0);
  buildParallelFor(b, wg.shape.headDim, [&](ImplicitLocOpBuilder &db, Value d) {
    memref::StoreOp::create(db, zero, wg.acc, ValueRange{d});
  });
  buildFor(
      b, wg.count, {}, [&](ImplicitLocOpBuilder &pb, Value part, ValueRange) {
        Value weight = weightOf(pb, part);
        // UNE: a NaN weight (a broken partial) is not skipped and shows up.
        Value nonZero = arith::CmpFOp::create(
            pb, arith::CmpFPredicate::UNE, weight, ReduceEmitter(pb).f32(0.0));
        scf::IfOp::create(pb, nonZero, [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder ib(loc, nested);
          Value scale = arith::DivFOp::create(ib, weight, den);
          Value slot = arith::AddIOp::create(ib, wg.first, part);
          buildParallelFor(
              ib, wg.shape.headDim, [&](ImplicitLocOpBuilder &db, Value d) {
                Value partial = memref::LoadOp::create(
                    db, args.tmpOut, ValueRange{wg.kvHead, slot, row, d});
                Value sum = memref::LoadOp::create(db, wg.acc, ValueRange{d});
                Value updated = arith::AddFOp::create(
                    db, sum, arith::MulFOp::create(db, scale, partial));
                memref::StoreOp::create(db, updated, wg.acc, ValueRange{d});
              });
          scf::YieldOp::create(ib);
        });
        return SmallVector<Value>{};
      });

  if (args.lse)
    memref::StoreOp::create(b, emitLogSumExp(b, rowMax, den), args.lse,
                            ValueRange{outputRow, queryHead});

  Type outType = cast<MemRefType>(args.output.getType()).getElementType();
  buildParallelFor(b, wg.shape.headDim, [&](ImplicitLocOpBuilder &db, Value d) {
    Value sum = memref::LoadOp::create(db, wg.acc, ValueRange{d});
    memref::StoreOp::create(db, arith::TruncFOp::create(db, outType, sum),
                            args.output, ValueRange{outputRow, queryHead, d});
  });
}

/// Builds the body of the reduce kernel (builder inside the kernel).
void buildReduceBody(ImplicitLocOpBuilder &b, const ReduceArgs &args, Value acc,
                     const ReduceShape &shape) {
  ReduceEmitter e(b);
  Value sequence = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value kvHead = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  auto loadPlan = [&](int64_t field) -> Value {
    Value value = memref::LoadOp::create(b, args.reduceInfo,
                                         ValueRange{sequence, e.index(field)});
    return arith::IndexCastOp::create(b, b.getIndexType(), value);
  };
  // A count <= 0 runs no partition loop: the rows come out 0.
  WorkgroupContext wg{args,   shape,       acc,        sequence,
                      kvHead, loadPlan(0), loadPlan(1)};
  buildFor(b, e.index(shape.queryLength), {},
           [&](ImplicitLocOpBuilder &qb, Value q, ValueRange) {
             buildFor(qb, ReduceEmitter(qb).index(shape.group), {},
                      [&](ImplicitLocOpBuilder &gb, Value g, ValueRange) {
                        buildRow(gb, wg, q, g);
                        return SmallVector<Value>{};
                      });
             return SmallVector<Value>{};
           });
}

struct PaLowerReducePass : pa::impl::PaLowerReduceBase<PaLowerReducePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkPaOpsInTopLevelModule(module)))
      return signalPassFailure();

    SmallVector<ReduceOp> reduces;
    module.walk([&](ReduceOp op) { reduces.push_back(op); });
    if (reduces.empty())
      return;
    FailureOr<ChipInfo> chip = getTargetChip(module, getArgument());
    if (failed(chip))
      return signalPassFailure();
    gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
    OpBuilder builder(module.getContext());
    for (ReduceOp op : reduces) {
      ReduceShape shape{op.getNumKVHeads(), op.getGroupSize(),
                        op.getQueryLength(), op.getHeadDim()};
      SmallVector<Value> operands = {op.getExpSums(), op.getMaxLogits(),
                                     op.getTmpOut(), op.getReduceInfo()};
      if (op.getSinks())
        operands.push_back(op.getSinks());
      operands.push_back(op.getOutput());
      if (op.getLse())
        operands.push_back(op.getLse());

      MemRefType accType =
          workgroupMemRef({shape.headDim}, builder.getF32Type());
      gpu::GPUFuncOp kernel = createKernel(builder, kernels, "pa_reduce",
                                           operands, {accType}, *chip);
      // The block arguments continue with the workgroup attributions.
      ValueRange kernelArgs = kernel.getArguments().take_front(operands.size());
      ReduceArgs args{kernelArgs[0],
                      kernelArgs[1],
                      kernelArgs[2],
                      kernelArgs[3],
                      op.getSinks() ? kernelArgs[4] : Value(),
                      kernelArgs[op.getSinks() ? 5 : 4],
                      op.getLse() ? kernelArgs.back() : Value()};
      ImplicitLocOpBuilder body(op.getLoc(), builder);
      buildReduceBody(body, args, kernel.getWorkgroupAttributions()[0], shape);

      builder.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value batch = memref::DimOp::create(builder, loc, op.getReduceInfo(), 0);
      Value heads = arith::ConstantIndexOp::create(builder, loc, shape.kvHeads);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      replaceWithLaunch(builder, op, kernel, {batch, heads, one}, operands,
                        *chip);
    }
  }
};
} // namespace
