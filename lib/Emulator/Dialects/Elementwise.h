//===- Elementwise.h - element-wise execute functions ----------*- C++ -*-===//
//
// The lane loops of element-wise ops (arith, math, vector): `in.count`
// elements of slots a (b, c) into dst, per active lane, on the element kind
// `in.kind`. The operation is a template argument, so each op's execute
// function is one instantiation with its operation inlined.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_EMULATOR_DIALECTS_ELEMENTWISE_H
#define PA_LIB_EMULATOR_DIALECTS_ELEMENTWISE_H

#include "../Executor.h"

#include <cmath>
#include <limits>

namespace mlir::pa::emulator::detail {

/// x op y on `bits`-bit integers (the result is masked to `bits`).
using IntegerBinaryFn = uint64_t (*)(uint64_t x, uint64_t y, unsigned bits);
/// x op y into `out`, or false when the result is undefined (division by
/// zero, shifts by the width or more).
using CheckedIntegerFn = bool (*)(uint64_t x, uint64_t y, unsigned bits,
                                  uint64_t &out);

template <IntegerBinaryFn F>
Step integerBinary(Executor &, Wave &wave, const Instr &in) {
  const unsigned bits = bitWidth(in.kind);
  const uint64_t mask = lowMask(bits);
  forLanes(wave, [&](int, uint64_t *r) {
    for (uint32_t e = 0; e < in.count; ++e)
      r[in.dst + e] = F(r[in.a + e], r[in.b + e], bits) & mask;
  });
  return Step::Next;
}

/// Integer ops that can fault; `What` names the fault.
template <CheckedIntegerFn F, const char *What>
Step checkedIntegerBinary(Executor &ex, Wave &wave, const Instr &in) {
  const unsigned bits = bitWidth(in.kind);
  const uint64_t mask = lowMask(bits);
  int lane = firstFailingLane(wave, [&](int, uint64_t *r) {
    for (uint32_t e = 0; e < in.count; ++e) {
      uint64_t result;
      if (!F(r[in.a + e], r[in.b + e], bits, result))
        return false;
      r[in.dst + e] = result & mask;
    }
    return true;
  });
  if (lane >= 0)
    return ex.fail(&wave, in, lane, What);
  return Step::Next;
}

/// A float operation on f32 (computed in float) and f64: `Op` has
/// `template <typename T> static T apply(T...)`.
template <typename Op>
Step floatUnary(Executor &, Wave &wave, const Instr &in) {
  if (in.kind == ScalarKind::F32)
    forLanes(wave, [&](int, uint64_t *r) {
      for (uint32_t e = 0; e < in.count; ++e)
        r[in.dst + e] = wordOf(float(Op::apply(asFloat(r[in.a + e]))));
    });
  else
    forLanes(wave, [&](int, uint64_t *r) {
      for (uint32_t e = 0; e < in.count; ++e)
        r[in.dst + e] = wordOf(double(Op::apply(asDouble(r[in.a + e]))));
    });
  return Step::Next;
}

template <typename Op>
Step floatBinary(Executor &, Wave &wave, const Instr &in) {
  if (in.kind == ScalarKind::F32)
    forLanes(wave, [&](int, uint64_t *r) {
      for (uint32_t e = 0; e < in.count; ++e)
        r[in.dst + e] = wordOf(
            float(Op::apply(asFloat(r[in.a + e]), asFloat(r[in.b + e]))));
    });
  else
    forLanes(wave, [&](int, uint64_t *r) {
      for (uint32_t e = 0; e < in.count; ++e)
        r[in.dst + e] = wordOf(
            double(Op::apply(asDouble(r[in.a + e]), asDouble(r[in.b + e]))));
    });
  return Step::Next;
}

/// IEEE maximum / minimum: NaN wins, -0 < +0.
template <typename T> T maximumOf(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == 0 && y == 0)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
template <typename T> T minimumOf(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == 0 && y == 0)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

} // namespace mlir::pa::emulator::detail

#endif // PA_LIB_EMULATOR_DIALECTS_ELEMENTWISE_H
