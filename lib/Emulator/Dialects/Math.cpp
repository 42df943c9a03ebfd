//===- Math.cpp - math ops on f32 and f64 ---------------------------------===//
//
// The C library's functions: close to, not bit-equal with, the hardware's
// approximations (docs/emulator.md).
//
//===----------------------------------------------------------------------===//
#include "Dialects.h"
#include "Elementwise.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

namespace {

#define PA_FLOAT_FUNCTION(NAME, EXPRESSION)                                    \
  struct NAME {                                                                \
    template <typename T> static T apply(T x) { return EXPRESSION; }           \
  };
PA_FLOAT_FUNCTION(AbsF, std::fabs(x))
PA_FLOAT_FUNCTION(Exp2, std::exp2(x))
PA_FLOAT_FUNCTION(Exp, std::exp(x))
PA_FLOAT_FUNCTION(Log, std::log(x))
PA_FLOAT_FUNCTION(Log2, std::log2(x))
PA_FLOAT_FUNCTION(Sqrt, std::sqrt(x))
PA_FLOAT_FUNCTION(Rsqrt, T(1) / std::sqrt(x))
PA_FLOAT_FUNCTION(Tanh, std::tanh(x))
PA_FLOAT_FUNCTION(Floor, std::floor(x))
PA_FLOAT_FUNCTION(Ceil, std::ceil(x))
PA_FLOAT_FUNCTION(RoundEven, std::nearbyint(x))
PA_FLOAT_FUNCTION(Round, std::round(x))
PA_FLOAT_FUNCTION(Trunc, std::trunc(x))
#undef PA_FLOAT_FUNCTION

struct CopySign {
  template <typename T> static T apply(T x, T y) { return std::copysign(x, y); }
};
struct PowF {
  template <typename T> static T apply(T x, T y) { return std::pow(x, y); }
};

Step executeFma(Executor &, Wave &wave, const Instr &in) {
  if (in.kind == ScalarKind::F32)
    forLanes(wave, [&](int, uint64_t *f) {
      for (uint32_t e = 0; e < in.count; ++e)
        f[in.dst + e] = wordOf(std::fma(
            asFloat(f[in.a + e]), asFloat(f[in.b + e]), asFloat(f[in.c + e])));
    });
  else
    forLanes(wave, [&](int, uint64_t *f) {
      for (uint32_t e = 0; e < in.count; ++e)
        f[in.dst + e] =
            wordOf(std::fma(asDouble(f[in.a + e]), asDouble(f[in.b + e]),
                            asDouble(f[in.c + e])));
    });
  return Step::Next;
}

template <ExecuteFn Execute>
LogicalResult compileFloat(OpCompiler &c, Operation *op) {
  return success(succeeded(c.emitElementwise(op, Execute, Elements::Float)));
}

} // namespace

LogicalResult mlir::pa::emulator::detail::compileFma(OpCompiler &c,
                                                     Operation *op) {
  return compileFloat<executeFma>(c, op);
}

void mlir::pa::emulator::detail::registerMathHandlers(OpRegistry &r) {
  using namespace math;
  r.add<CopySignOp>(compileFloat<floatBinary<CopySign>>);
  r.add<PowFOp>(compileFloat<floatBinary<PowF>>);
  r.add<AbsFOp>(compileFloat<floatUnary<AbsF>>);
  r.add<Exp2Op>(compileFloat<floatUnary<Exp2>>);
  r.add<ExpOp>(compileFloat<floatUnary<Exp>>);
  r.add<LogOp>(compileFloat<floatUnary<Log>>);
  r.add<Log2Op>(compileFloat<floatUnary<Log2>>);
  r.add<SqrtOp>(compileFloat<floatUnary<Sqrt>>);
  r.add<RsqrtOp>(compileFloat<floatUnary<Rsqrt>>);
  r.add<TanhOp>(compileFloat<floatUnary<Tanh>>);
  r.add<FloorOp>(compileFloat<floatUnary<Floor>>);
  r.add<CeilOp>(compileFloat<floatUnary<Ceil>>);
  r.add<RoundEvenOp>(compileFloat<floatUnary<RoundEven>>);
  r.add<RoundOp>(compileFloat<floatUnary<Round>>);
  r.add<TruncOp>(compileFloat<floatUnary<Trunc>>);
  r.add<FmaOp>(compileFma);
}
