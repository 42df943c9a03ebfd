//===- FloatFormats.h - scalar kinds and small-float conversions -*- C++ -*-===//
//
// The element kinds the emulator computes with and the bit-exact conversions
// between f32 and the small float formats, with the rounding and overflow
// rules of the AMD target (see f32ToSmallFloat).
//
//===----------------------------------------------------------------------===//
#ifndef PA_EMULATOR_FLOATFORMATS_H
#define PA_EMULATOR_FLOATFORMATS_H

#include <cstdint>

namespace mlir::pa::emulator {

/// The scalar types a value element can have. Integers are held as their
/// bits zero-extended to 64; floats as their raw encoding (f32 in the low 32
/// bits, f64 as all 64).
enum class ScalarKind : uint8_t {
  I1,
  I8,
  I16,
  I32,
  I64, // also index
  F16,
  BF16,
  F32,
  F64,
  F8E4M3FN,   // OCP fp8 (gfx950, sm_90a): max 448, NaN S.1111.111, no inf
  F8E4M3FNUZ, // AMD fp8 (gfx942): max 240, NaN 0x80, no inf, no -0
  F8E5M2,     // OCP bf8: IEEE-like
  F8E5M2FNUZ, // AMD bf8: max 57344, NaN 0x80
};

unsigned bitWidth(ScalarKind kind);
/// Bytes of one element in memory (i1 takes a byte).
unsigned storageBytes(ScalarKind kind);
bool isFloatKind(ScalarKind kind);
/// The floats narrower than f32 (the conversions below).
bool isSmallFloatKind(ScalarKind kind);
const char *scalarKindName(ScalarKind kind);

/// The exact f32 value of small-float `bits` (f16, bf16, any fp8).
float smallFloatToF32(ScalarKind kind, uint32_t bits);

/// `value` rounded to the small float `kind` the way the AMD lowering of
/// arith.truncf does: round to nearest even; f16 and bf16 overflow to
/// infinity; fp8 truncations clamp finite values to +-max first
/// (pa-convert-kernels-to-rocdl sets ArithToAMDGPU's `saturateFP8Truncf`)
/// and leave infinities to the hardware converter (infinity for E5M2, NaN for
/// the formats without one); NaN stays NaN (a quiet NaN of the format).
uint32_t f32ToSmallFloat(ScalarKind kind, float value);

/// The same rounding without the fp8 saturation (what the hardware converter
/// does on its own: an out-of-range finite value becomes NaN / infinity).
uint32_t f32ToSmallFloatUnsaturated(ScalarKind kind, float value);

} // namespace mlir::pa::emulator

#endif // PA_EMULATOR_FLOATFORMATS_H
