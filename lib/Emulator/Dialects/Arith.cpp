//===- Arith.cpp - arith ops: constants, integers, floats, conversions ----===//
#include "Dialects.h"
#include "Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

namespace {

//===----------------------------------------------------------------------===//
// Constants and select
//===----------------------------------------------------------------------===//

/// Words of an attribute value of `type` (arith.constant).
std::optional<std::vector<uint64_t>> constantWords(Attribute value, Type type) {
  auto wordOf = [](Attribute element) -> std::optional<uint64_t> {
    if (auto integer = dyn_cast<IntegerAttr>(element)) {
      APInt bits = integer.getValue();
      return bits.getBitWidth() <= 64
                 ? std::optional<uint64_t>(bits.getZExtValue())
                 : std::nullopt;
    }
    if (auto real = dyn_cast<FloatAttr>(element))
      return real.getValue().bitcastToAPInt().getZExtValue();
    return std::nullopt;
  };
  std::vector<uint64_t> words;
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    for (Attribute element : dense.getValues<Attribute>()) {
      std::optional<uint64_t> word = wordOf(element);
      if (!word)
        return std::nullopt;
      words.push_back(*word);
    }
    return words;
  }
  std::optional<uint64_t> word = wordOf(value);
  if (!word || wordsOf(type) != 1)
    return std::nullopt;
  words.push_back(*word);
  return words;
}

LogicalResult compileConstant(OpCompiler &c, Operation *op) {
  std::optional<std::vector<uint64_t>> words = constantWords(
      cast<arith::ConstantOp>(op).getValue(), op->getResult(0).getType());
  if (!words)
    return c.fail(op, "unsupported constant");
  return c.emitConstant(op, std::move(*words));
}

/// `mode`: the condition is a vector (one per element).
Step executeSelect(Executor &, Wave &wave, const Instr &in) {
  forLanes(wave, [&](int, uint64_t *f) {
    for (uint32_t e = 0; e < in.count; ++e) {
      bool take = f[in.a + (in.mode ? e : 0)] & 1;
      f[in.dst + e] = take ? f[in.b + e] : f[in.c + e];
    }
  });
  return Step::Next;
}

LogicalResult compileSelect(OpCompiler &c, Operation *op) {
  auto select = cast<arith::SelectOp>(op);
  FailureOr<size_t> instr = c.emitResult(
      op, executeSelect,
      {select.getCondition(), select.getTrueValue(), select.getFalseValue()});
  if (failed(instr))
    return failure();
  c.at(*instr).mode = isa<VectorType>(select.getCondition().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Integers
//===----------------------------------------------------------------------===//

uint64_t addI(uint64_t x, uint64_t y, unsigned) { return x + y; }
uint64_t subI(uint64_t x, uint64_t y, unsigned) { return x - y; }
uint64_t mulI(uint64_t x, uint64_t y, unsigned) { return x * y; }
uint64_t andI(uint64_t x, uint64_t y, unsigned) { return x & y; }
uint64_t orI(uint64_t x, uint64_t y, unsigned) { return x | y; }
uint64_t xorI(uint64_t x, uint64_t y, unsigned) { return x ^ y; }
uint64_t maxSI(uint64_t x, uint64_t y, unsigned bits) {
  return signExtend(x, bits) > signExtend(y, bits) ? x : y;
}
uint64_t minSI(uint64_t x, uint64_t y, unsigned bits) {
  return signExtend(x, bits) < signExtend(y, bits) ? x : y;
}
uint64_t maxUI(uint64_t x, uint64_t y, unsigned) { return x > y ? x : y; }
uint64_t minUI(uint64_t x, uint64_t y, unsigned) { return x < y ? x : y; }

enum class Division { Quotient, Remainder, Ceil, Floor };

template <Division D>
bool signedDivision(uint64_t x, uint64_t y, unsigned bits, uint64_t &out) {
  int64_t a = signExtend(x, bits), b = signExtend(y, bits);
  int64_t smallest = bits >= 64 ? std::numeric_limits<int64_t>::min()
                                : -(int64_t(1) << (bits - 1));
  if (b == 0 || (a == smallest && b == -1))
    return false;
  int64_t q = a / b, r = a % b;
  switch (D) {
  case Division::Quotient:
    out = uint64_t(q);
    break;
  case Division::Remainder:
    out = uint64_t(r);
    break;
  case Division::Ceil:
    out = uint64_t(r != 0 && ((r > 0) == (b > 0)) ? q + 1 : q);
    break;
  case Division::Floor:
    out = uint64_t(r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q);
    break;
  }
  return true;
}

template <Division D>
bool unsignedDivision(uint64_t x, uint64_t y, unsigned, uint64_t &out) {
  if (y == 0)
    return false;
  out = D == Division::Quotient    ? x / y
        : D == Division::Remainder ? x % y
                                   : x / y + (x % y != 0);
  return true;
}

enum class Shift { Left, RightSigned, RightUnsigned };

template <Shift S>
bool shift(uint64_t x, uint64_t y, unsigned bits, uint64_t &out) {
  if (y >= bits)
    return false;
  out = S == Shift::Left            ? x << y
        : S == Shift::RightUnsigned ? x >> y
                                    : uint64_t(signExtend(x, bits) >> y);
  return true;
}

constexpr char kSignedDivisionFault[] = "signed division by zero or overflow";
constexpr char kUnsignedDivisionFault[] = "unsigned division by zero";
constexpr char kShiftFault[] = "shift by at least the bit width (poison)";

bool compareIntegers(arith::CmpIPredicate predicate, uint64_t x, uint64_t y,
                     unsigned bits) {
  int64_t sx = signExtend(x, bits), sy = signExtend(y, bits);
  using P = arith::CmpIPredicate;
  switch (predicate) {
  case P::eq:
    return x == y;
  case P::ne:
    return x != y;
  case P::slt:
    return sx < sy;
  case P::sle:
    return sx <= sy;
  case P::sgt:
    return sx > sy;
  case P::sge:
    return sx >= sy;
  case P::ult:
    return x < y;
  case P::ule:
    return x <= y;
  case P::ugt:
    return x > y;
  case P::uge:
    return x >= y;
  }
  return false;
}

Step executeCmpI(Executor &, Wave &wave, const Instr &in) {
  const unsigned bits = bitWidth(in.kind);
  const auto predicate = arith::CmpIPredicate(in.mode);
  forLanes(wave, [&](int, uint64_t *f) {
    for (uint32_t e = 0; e < in.count; ++e)
      f[in.dst + e] =
          compareIntegers(predicate, f[in.a + e], f[in.b + e], bits);
  });
  return Step::Next;
}

//===----------------------------------------------------------------------===//
// Floats
//===----------------------------------------------------------------------===//

struct AddF {
  template <typename T> static T apply(T x, T y) { return x + y; }
};
struct SubF {
  template <typename T> static T apply(T x, T y) { return x - y; }
};
struct MulF {
  template <typename T> static T apply(T x, T y) { return x * y; }
};
struct DivF {
  template <typename T> static T apply(T x, T y) { return x / y; }
};
struct RemF {
  template <typename T> static T apply(T x, T y) { return std::fmod(x, y); }
};
struct MaximumF {
  template <typename T> static T apply(T x, T y) { return maximumOf(x, y); }
};
struct MinimumF {
  template <typename T> static T apply(T x, T y) { return minimumOf(x, y); }
};
struct MaxNumF {
  template <typename T> static T apply(T x, T y) { return std::fmax(x, y); }
};
struct MinNumF {
  template <typename T> static T apply(T x, T y) { return std::fmin(x, y); }
};
struct NegF {
  template <typename T> static T apply(T x) { return -x; }
};

bool compareFloats(arith::CmpFPredicate predicate, double x, double y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  using P = arith::CmpFPredicate;
  switch (predicate) {
  case P::AlwaysFalse:
    return false;
  case P::OEQ:
    return !unordered && x == y;
  case P::OGT:
    return !unordered && x > y;
  case P::OGE:
    return !unordered && x >= y;
  case P::OLT:
    return !unordered && x < y;
  case P::OLE:
    return !unordered && x <= y;
  case P::ONE:
    return !unordered && x != y;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || x == y;
  case P::UGT:
    return unordered || x > y;
  case P::UGE:
    return unordered || x >= y;
  case P::ULT:
    return unordered || x < y;
  case P::ULE:
    return unordered || x <= y;
  case P::UNE:
    return unordered || x != y;
  case P::UNO:
    return unordered;
  case P::AlwaysTrue:
    return true;
  }
  return false;
}

Step executeCmpF(Executor &, Wave &wave, const Instr &in) {
  const auto predicate = arith::CmpFPredicate(in.mode);
  const ScalarKind kind = in.kind;
  forLanes(wave, [&](int, uint64_t *f) {
    for (uint32_t e = 0; e < in.count; ++e)
      f[in.dst + e] = compareFloats(predicate, floatValue(kind, f[in.a + e]),
                                    floatValue(kind, f[in.b + e]));
  });
  return Step::Next;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

enum class Conversion {
  ExtSI,
  ExtUI,
  TruncI,
  SIToFP,
  UIToFP,
  FPToSI,
  FPToUI,
  ExtF,
  TruncF
};

/// `in.kind` to `in.kind2`, element by element.
template <Conversion C>
Step executeConversion(Executor &ex, Wave &wave, const Instr &in) {
  const unsigned fromBits = bitWidth(in.kind), toBits = bitWidth(in.kind2);
  const uint64_t toMask = lowMask(toBits);
  Step status = Step::Next;
  firstFailingLane(wave, [&](int lane, uint64_t *f) {
    for (uint32_t e = 0; e < in.count; ++e) {
      uint64_t x = f[in.a + e];
      uint64_t &out = f[in.dst + e];
      switch (C) {
      case Conversion::ExtSI:
        out = uint64_t(signExtend(x, fromBits)) & toMask;
        break;
      case Conversion::ExtUI:
      case Conversion::TruncI:
        out = x & toMask;
        break;
      case Conversion::SIToFP:
      case Conversion::UIToFP: {
        bool isSigned = C == Conversion::SIToFP;
        int64_t s = signExtend(x, fromBits);
        if (in.kind2 == ScalarKind::F32)
          out = wordOf(isSigned ? float(s) : float(x));
        else
          out = wordOf(isSigned ? double(s) : double(x));
        break;
      }
      case Conversion::FPToSI:
      case Conversion::FPToUI: {
        double v = floatValue(in.kind, x);
        double t = std::trunc(v);
        bool isSigned = C == Conversion::FPToSI;
        double lo = isSigned ? -std::ldexp(1.0, int(toBits) - 1) : 0.0;
        double hi = isSigned ? std::ldexp(1.0, int(toBits) - 1)
                             : std::ldexp(1.0, int(toBits));
        if (!(t >= lo && t < hi)) {
          status = ex.fail(&wave, in, lane,
                           "float to integer conversion of " +
                               std::to_string(v) + " is out of range (poison)");
          return false;
        }
        out = (isSigned ? uint64_t(int64_t(t)) : uint64_t(t)) & toMask;
        break;
      }
      case Conversion::ExtF: {
        double v = floatValue(in.kind, x);
        out = in.kind2 == ScalarKind::F32 ? wordOf(float(v)) : wordOf(v);
        break;
      }
      case Conversion::TruncF: {
        double v = floatValue(in.kind, x);
        if (in.kind2 == ScalarKind::F32)
          out = wordOf(float(v));
        else
          out = f32ToSmallFloat(in.kind2, float(v));
        break;
      }
      }
    }
    return true;
  });
  return status;
}

/// A conversion between element kinds (ext, trunc, int <-> float).
template <Conversion C>
LogicalResult compileConversion(OpCompiler &c, Operation *op) {
  Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
  FailureOr<ScalarKind> fromKind = c.kindOf(op, from),
                        toKind = c.kindOf(op, to);
  if (failed(fromKind) || failed(toKind))
    return failure();
  if (failed(c.checkFp8(op, *fromKind)) || failed(c.checkFp8(op, *toKind)))
    return failure();
  auto isWide = [](ScalarKind k) {
    return k == ScalarKind::F32 || k == ScalarKind::F64;
  };
  switch (C) {
  case Conversion::SIToFP:
  case Conversion::UIToFP:
    if (!isWide(*toKind))
      return c.fail(op, "integer to float conversions go to f32 or f64");
    break;
  case Conversion::FPToSI:
  case Conversion::FPToUI:
    if (!isWide(*fromKind))
      return c.fail(op, "float to integer conversions come from f32 or f64");
    break;
  case Conversion::ExtF:
    if (!isWide(*toKind))
      return c.fail(op, "arith.extf must produce f32 or f64");
    break;
  case Conversion::TruncF:
    if (!isWide(*fromKind))
      return c.fail(op, "arith.truncf must start from f32 or f64");
    break;
  default:
    break;
  }
  FailureOr<size_t> instr =
      c.emitResult(op, executeConversion<C>, op->getOperand(0));
  if (failed(instr))
    return failure();
  c.at(*instr).kind = *fromKind;
  c.at(*instr).kind2 = *toKind;
  c.at(*instr).count = elementCount(to);
  return success();
}

/// index_cast and friends: an extension or a truncation by width.
template <bool SignedExtension>
LogicalResult compileIndexCast(OpCompiler &c, Operation *op) {
  FailureOr<ScalarKind> from = c.kindOf(op, op->getOperand(0).getType());
  FailureOr<ScalarKind> to = c.kindOf(op, op->getResult(0).getType());
  if (failed(from) || failed(to))
    return failure();
  if (bitWidth(*to) <= bitWidth(*from))
    return compileConversion<Conversion::TruncI>(c, op);
  return SignedExtension ? compileConversion<Conversion::ExtSI>(c, op)
                         : compileConversion<Conversion::ExtUI>(c, op);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

template <ExecuteFn Execute, Elements E>
LogicalResult compileElementwise(OpCompiler &c, Operation *op) {
  return success(succeeded(c.emitElementwise(op, Execute, E)));
}

template <IntegerBinaryFn F>
constexpr CompileFn integerOp =
    compileElementwise<integerBinary<F>, Elements::Integer>;
template <CheckedIntegerFn F, const char *What>
constexpr CompileFn checkedIntegerOp =
    compileElementwise<checkedIntegerBinary<F, What>, Elements::Integer>;
template <typename Op>
constexpr CompileFn floatBinaryOp =
    compileElementwise<floatBinary<Op>, Elements::Float>;

/// A comparison: element-wise with the predicate in `mode`.
template <typename CmpOp, ExecuteFn Execute, Elements E>
LogicalResult compileComparison(OpCompiler &c, Operation *op) {
  FailureOr<size_t> instr = c.emitElementwise(op, Execute, E);
  if (failed(instr))
    return failure();
  c.at(*instr).mode = uint8_t(cast<CmpOp>(op).getPredicate());
  return success();
}

} // namespace

void mlir::pa::emulator::detail::registerArithHandlers(OpRegistry &r) {
  using namespace arith;
  r.add<ConstantOp>(compileConstant);
  r.add<SelectOp>(compileSelect);
  r.add<BitcastOp>([](OpCompiler &c, Operation *op) {
    return c.emitMove(op, cast<BitcastOp>(op).getIn());
  });
  // integers
  r.add<AddIOp>(integerOp<addI>);
  r.add<SubIOp>(integerOp<subI>);
  r.add<MulIOp>(integerOp<mulI>);
  r.add<AndIOp>(integerOp<andI>);
  r.add<OrIOp>(integerOp<orI>);
  r.add<XOrIOp>(integerOp<xorI>);
  r.add<MaxSIOp>(integerOp<maxSI>);
  r.add<MinSIOp>(integerOp<minSI>);
  r.add<MaxUIOp>(integerOp<maxUI>);
  r.add<MinUIOp>(integerOp<minUI>);
  r.add<DivSIOp>(checkedIntegerOp<signedDivision<Division::Quotient>,
                                  kSignedDivisionFault>);
  r.add<RemSIOp>(checkedIntegerOp<signedDivision<Division::Remainder>,
                                  kSignedDivisionFault>);
  r.add<CeilDivSIOp>(
      checkedIntegerOp<signedDivision<Division::Ceil>, kSignedDivisionFault>);
  r.add<FloorDivSIOp>(
      checkedIntegerOp<signedDivision<Division::Floor>, kSignedDivisionFault>);
  r.add<DivUIOp>(checkedIntegerOp<unsignedDivision<Division::Quotient>,
                                  kUnsignedDivisionFault>);
  r.add<RemUIOp>(checkedIntegerOp<unsignedDivision<Division::Remainder>,
                                  kUnsignedDivisionFault>);
  r.add<CeilDivUIOp>(checkedIntegerOp<unsignedDivision<Division::Ceil>,
                                      kUnsignedDivisionFault>);
  r.add<ShLIOp>(checkedIntegerOp<shift<Shift::Left>, kShiftFault>);
  r.add<ShRSIOp>(checkedIntegerOp<shift<Shift::RightSigned>, kShiftFault>);
  r.add<ShRUIOp>(checkedIntegerOp<shift<Shift::RightUnsigned>, kShiftFault>);
  r.add<CmpIOp>(compileComparison<CmpIOp, executeCmpI, Elements::Integer>);
  r.add<ExtSIOp>(compileConversion<Conversion::ExtSI>);
  r.add<ExtUIOp>(compileConversion<Conversion::ExtUI>);
  r.add<TruncIOp>(compileConversion<Conversion::TruncI>);
  r.add<IndexCastOp>(compileIndexCast<true>);
  r.add<IndexCastUIOp>(compileIndexCast<false>);
  r.add<SIToFPOp>(compileConversion<Conversion::SIToFP>);
  r.add<UIToFPOp>(compileConversion<Conversion::UIToFP>);
  r.add<FPToSIOp>(compileConversion<Conversion::FPToSI>);
  r.add<FPToUIOp>(compileConversion<Conversion::FPToUI>);
  // floats
  r.add<AddFOp>(floatBinaryOp<AddF>);
  r.add<SubFOp>(floatBinaryOp<SubF>);
  r.add<MulFOp>(floatBinaryOp<MulF>);
  r.add<DivFOp>(floatBinaryOp<DivF>);
  r.add<RemFOp>(floatBinaryOp<RemF>);
  r.add<MaximumFOp>(floatBinaryOp<MaximumF>);
  r.add<MinimumFOp>(floatBinaryOp<MinimumF>);
  r.add<MaxNumFOp>(floatBinaryOp<MaxNumF>);
  r.add<MinNumFOp>(floatBinaryOp<MinNumF>);
  r.add<NegFOp>(compileElementwise<floatUnary<NegF>, Elements::Float>);
  r.add<CmpFOp>(compileComparison<CmpFOp, executeCmpF, Elements::Float>);
  r.add<ExtFOp>(compileConversion<Conversion::ExtF>);
  r.add<TruncFOp>(compileConversion<Conversion::TruncF>);
}
