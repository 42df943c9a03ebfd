//===- Affine.cpp - affine.apply / min / max ------------------------------===//
#include "Dialects.h"

#include "../Executor.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"

using namespace mlir;
using namespace mlir::pa::emulator::detail;

namespace {

struct AffineInfo : Payload {
  AffineMap map;
  SmallVector<uint32_t, 4> operands;
};

enum class Combine : uint8_t { First, Min, Max };

int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> dims,
                 ArrayRef<int64_t> symbols) {
  auto floorDiv = [](int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  };
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(expr).getValue();
  case AffineExprKind::DimId:
    return dims[cast<AffineDimExpr>(expr).getPosition()];
  case AffineExprKind::SymbolId:
    return symbols[cast<AffineSymbolExpr>(expr).getPosition()];
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t l = evaluate(binary.getLHS(), dims, symbols);
  int64_t r = evaluate(binary.getRHS(), dims, symbols);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return l + r;
  case AffineExprKind::Mul:
    return l * r;
  case AffineExprKind::FloorDiv:
    return floorDiv(l, r);
  case AffineExprKind::CeilDiv:
    return -floorDiv(-l, r);
  case AffineExprKind::Mod: {
    int64_t m = l % r;
    return m < 0 ? m + r : m;
  }
  default:
    return 0;
  }
}

/// The map's results combined by `mode` (a Combine).
Step executeAffine(Executor &, Wave &wave, const Instr &in) {
  const AffineInfo &info = in.get<AffineInfo>();
  const unsigned dims = info.map.getNumDims();
  const Combine combine = Combine(in.mode);
  forLanes(wave, [&](int, uint64_t *f) {
    SmallVector<int64_t, 8> values;
    for (uint32_t slot : info.operands)
      values.push_back(int64_t(f[slot]));
    ArrayRef<int64_t> all(values);
    int64_t result = 0;
    for (auto [i, expr] : llvm::enumerate(info.map.getResults())) {
      int64_t v = evaluate(expr, all.take_front(dims), all.drop_front(dims));
      if (i == 0 || (combine == Combine::Min && v < result) ||
          (combine == Combine::Max && v > result))
        result = v;
    }
    f[in.dst] = uint64_t(result);
  });
  return Step::Next;
}

template <typename OpTy, Combine C>
LogicalResult compileAffine(OpCompiler &c, Operation *op) {
  auto affine = cast<OpTy>(op);
  AffineInfo info;
  info.map = affine.getAffineMap();
  for (Value operand : affine.getMapOperands())
    info.operands.push_back(c.use(operand));
  FailureOr<size_t> instr = c.emitResult(op, executeAffine);
  if (failed(instr))
    return failure();
  c.at(*instr).mode = uint8_t(C);
  c.attach(*instr, std::move(info));
  return success();
}

} // namespace

void mlir::pa::emulator::detail::registerAffineHandlers(OpRegistry &r) {
  using namespace affine;
  r.add<AffineApplyOp>(compileAffine<AffineApplyOp, Combine::First>);
  r.add<AffineMinOp>(compileAffine<AffineMinOp, Combine::Min>);
  r.add<AffineMaxOp>(compileAffine<AffineMaxOp, Combine::Max>);
}
