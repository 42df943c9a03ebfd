//===- MFMALayout.h - where MFMA operands live in a wave --------*- C++ -*-===//
//
// The register layouts of the matrix instructions the emulator executes: for
// every entry of A (M x K), B (K x N) and C / D (M x N), the lane of the
// wave64 and the element of the lane's `amdgpu.mfma` operand vector that
// holds it. An operand vector is the instruction's VGPRs concatenated little
// endian (element e of a vector of b-bit values is bits [e*b, e*b + b) of
// the register block), so element e is VGPR (e*b)/32, bits (e*b)%32 upwards.
//
// Sources: AMD's Matrix Instruction Calculator tables for CDNA3 in
// shared/isa/mfma-layouts, and for the gfx950-only fp8 shapes
// v_mfma_f32_16x16x128_f8f6f4 / v_mfma_f32_32x32x64_f8f6f4 the CDNA4 ISA
// guide's layouts as transcribed in unittests/Inputs/mfma-layouts (README:
// AMD CDNA4 ISA chapter 7, composable_kernel's register mapping tables);
// both checked entry by entry in unittests/Emulator/MFMALayoutTest.cpp by
// running the emulator. The CDNA3 instructions keep their encodings and
// layouts on CDNA4 (gfx950); the other gfx950-only shapes (16x16x32
// bf16/f16, 32x32x16 bf16/f16, non-fp8 f8f6f4 formats) are rejected.
//
//===----------------------------------------------------------------------===//
#ifndef PA_EMULATOR_MFMALAYOUT_H
#define PA_EMULATOR_MFMALAYOUT_H

#include "pa/Emulator/FloatFormats.h"

#include <optional>
#include <string>

namespace mlir::pa::emulator {

inline constexpr int kWaveSize = 64;

/// One non-blocked MFMA with f32 accumulators (blocks = 1).
struct MFMAInstruction {
  int m = 0, n = 0, k = 0;
  ScalarKind input = ScalarKind::F32; // element type of A and B
  /// A / B elements per lane (K * M / 64).
  int operandElements() const { return k * m / kWaveSize; }
  /// C / D elements per lane (M * N / 64).
  int accumulatorElements() const { return m * n / kWaveSize; }
  /// The ISA name, e.g. v_mfma_f32_16x16x32_fp8_fp8.
  std::string isaName() const;
  /// The CDNA4 f8f6f4 instructions (16x16x128, 32x32x64): gfx950 only, 32
  /// fp8 values per lane in two runs of 16 K indices.
  bool isF8F6F4() const;
};

/// The supported instruction for an `amdgpu.mfma` of this shape and input
/// element type (fp8 flavours both map to the fp8_fp8 instructions; which
/// flavour a chip takes is checked by the caller), or nullopt.
std::optional<MFMAInstruction> lookupMFMA(int m, int n, int k, int blocks,
                                          ScalarKind input);

struct LaneElement {
  int lane = 0;
  int element = 0;
  bool operator==(const LaneElement &other) const {
    return lane == other.lane && element == other.element;
  }
};

/// A[i][k] (and, by the symmetric layout, B[k][j] with j in place of i).
LaneElement mfmaOperandPosition(const MFMAInstruction &mfma, int row, int k);
/// C[i][j] / D[i][j].
LaneElement mfmaAccumulatorPosition(const MFMAInstruction &mfma, int i,
                                    int j);

} // namespace mlir::pa::emulator

#endif // PA_EMULATOR_MFMALAYOUT_H
