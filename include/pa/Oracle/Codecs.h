//===- Codecs.h - Bit-exact scalar codecs for the oracle --------*- C++ -*-===//
//
// Decode and round-to-nearest-even encode of the element types the paged
// attention kernels read and write: the two fp8 flavours (OCP f8E4M3FN used on
// gfx950 / sm_90a, f8E4M3FNUZ used on gfx942), bf16 and IEEE f16.
//
// Every encoder takes a double, so encoding a float is the same call (float ->
// double is exact) and there is exactly one rounding step.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_CODECS_H
#define PA_ORACLE_CODECS_H

#include <cstdint>
#include <string>

namespace pa::oracle {

enum class ScalarType {
  F8E4M3FN,   // OCP: bias 7, no inf, NaN = S.1111.111, max 448, has -0.
  F8E4M3FNUZ, // bias 8, no inf, no -0, NaN = 0x80 only, max 240.
  BF16,       // IEEE-style, 8 exponent bits, 7 mantissa bits.
  F16,        // IEEE binary16.
};

// What an encoder does with a value whose rounded magnitude exceeds the
// largest finite value (and with infinities).
enum class Overflow {
  // Finite overflow -> largest finite with the input's sign. Infinity -> largest
  // finite for fp8 (no infinity there); bf16/f16 keep infinity as infinity.
  Saturate,
  // Finite overflow -> infinity for bf16/f16, NaN for fp8 (no infinity there).
  NonFinite,
};

const char *scalarTypeName(ScalarType type); // "f8E4M3FN", "bf16", ...
bool parseScalarType(const std::string &name, ScalarType &type);
int scalarBitWidth(ScalarType type);   // 8 or 16
int scalarByteSize(ScalarType type);   // 1 or 2
bool isFp8(ScalarType type);
double maxFiniteValue(ScalarType type);

// Generic forms: `bits` holds the pattern in its low scalarBitWidth() bits.
double decodeScalar(ScalarType type, uint32_t bits);
uint32_t encodeScalar(ScalarType type, double value, Overflow overflow);
// decode(encode(value)): the value as the type would store it.
double roundToScalar(ScalarType type, double value,
                     Overflow overflow = Overflow::NonFinite);

// Typed conveniences.
double decodeF8E4M3FN(uint8_t bits);
double decodeF8E4M3FNUZ(uint8_t bits);
double decodeBf16(uint16_t bits);
double decodeF16(uint16_t bits);
uint8_t encodeF8E4M3FN(double value, Overflow overflow);
uint8_t encodeF8E4M3FNUZ(double value, Overflow overflow);
uint16_t encodeBf16(double value, Overflow overflow);
uint16_t encodeF16(double value, Overflow overflow);

// Round a float to bf16 / f16 (RNE, overflow to infinity) and return it as a
// float, e.g. to make a query representable in its dtype.
float roundToBf16(float value);
float roundToF16(float value);

} // namespace pa::oracle

#endif // PA_ORACLE_CODECS_H
