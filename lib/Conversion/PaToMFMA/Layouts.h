//===- Layouts.h - lane mappings of the MFMA decode kernel ------*- C++ -*-===//
//
// Where every matrix element of the decode kernel lives in a wave64, as
// functions templated over the integer type: pa-to-mfma instantiates them
// with IR index expressions (IndexExpr) to emit the per-lane address math,
// and unittests/Conversion/MFMALayoutsTest.cpp instantiates them with int and
// checks them against AMD's register-layout tables (shared/isa/mfma-layouts)
// and against each other (the QK result feeds the PV operand in place).
// docs/mfma-lowering.md explains the choices.
//
// Notation: lane l of a wave, lane group j = l / 16, row lane i = l % 16.
//
//===----------------------------------------------------------------------===//
#ifndef PA_CONVERSION_PATOMFMA_LAYOUTS_H
#define PA_CONVERSION_PATOMFMA_LAYOUTS_H

#include "pa/IR/MFMAGeometry.h"

#include <cstdint>

namespace mlir::pa::mfma {

/// Accumulator elements per lane (16 x 16 / 64).
inline constexpr int kResultElements = kBlock * kBlock / kWaveLanes;
/// Each lane group holds 16 consecutive tokens of its wave's quarter.
inline constexpr int kGroupTokens = kQuarterTokens / kLaneGroups;

/// One 16x16xK MFMA with f32 accumulators: v_mfma_f32_16x16x32_fp8_fp8
/// (K = 32, 8 fp8 values per lane) or v_mfma_f32_16x16x16_bf16 (K = 16, 4
/// bf16 values per lane).
struct Instr {
  int k;
  /// A / B operand elements per lane: K / 4 (a lane group holds K / 4 k's).
  int perLane;
  int elementBytes;
};
inline constexpr Instr kFp8Instr{32, 8, 1};
inline constexpr Instr kBf16Instr{16, 4, 2};
/// K of gfx950's v_mfma_f32_16x16x128_f8f6f4 on fp8: 32 values per lane, in
/// two runs of 16 K indices (lane group j: [16 j, +16) and [64 + 16 j, +16)).
inline constexpr int kWideFp8K = 128;

//===----------------------------------------------------------------------===//
// The instruction layouts (CDNA3 tables; the same on gfx950)
//===----------------------------------------------------------------------===//

/// Lane of A[m][k] (and of B[k][n], with n for m).
template <typename Int> Int operandLane(Instr in, Int mn, Int k) {
  return mn + (k / in.perLane) * kBlock;
}
/// Element of the lane's operand vector that holds A[m][k] / B[k][n].
template <typename Int> Int operandElement(Instr in, Int k) {
  return k % in.perLane;
}
/// Lane of D[m][n].
template <typename Int> Int resultLane(Int m, Int n) {
  return n + (m / kResultElements) * kBlock;
}
/// Element (accumulator register) of the lane's D vector holding D[m][n].
template <typename Int> Int resultElement(Int m) { return m % kResultElements; }

//===----------------------------------------------------------------------===//
// QK: S^T = K Q^T per 16-row M-tile, 4 blocks of 16 tokens per wave
//===----------------------------------------------------------------------===//

/// Token (within the wave's 64-token quarter) of A row m in block b:
/// tau(b, m) = 16 (m / 4) + 4 b + m % 4. The result element r of lane group
/// j in block b is then token 16 j + 4 b + r: each lane group ends up with
/// 16 consecutive tokens of one row (row = lane % 16).
template <typename Int> Int qkToken(Int block, Int m) {
  return (m / kResultElements) * kBlock + block * kResultElements +
         m % kResultElements;
}

/// Head-dim element of the K-step contraction index k (in lane group
/// j = k / perLane, element e = k % perLane) of step `stepInChunk` of load
/// chunk `chunk`: a lane loads 16 contiguous bytes (x = 16 / bytes values of
/// one token, d in [x (4 chunk + j), + x)) and feeds its slices of perLane
/// values to x / perLane consecutive K-steps. The query (B operand) is read
/// with the same permutation.
template <typename Int>
Int qkHeadDim(int64_t pack, Instr in, Int chunk, int64_t stepInChunk, Int group,
              Int element) {
  return (chunk * kLaneGroups + group) * pack + stepInChunk * in.perLane +
         element;
}

/// gfx950's 16x16x128 QK takes load chunks 2p and 2p + 1 together (lane
/// group j: head dims [16 (8p + j), +16) and [16 (8p + 4 + j), +16), its two
/// 16-byte K runs). The fp8 query row is kept in LDS in that order, so that
/// lane group j reads its 32 bytes of pair p at once: word `w` of the row
/// (head dims [4w, 4w + 4)) goes to this word.
template <typename Int> Int wideQueryWord(Int w) {
  return ((w / 32) * kLaneGroups + (w / 4) % kLaneGroups) * 8 +
         ((w / 16) % 2) * 4 + w % 4;
}

//===----------------------------------------------------------------------===//
// PV: O^T = V^T P^T per M-tile, 16 head-dim values per block
//===----------------------------------------------------------------------===//

/// Token (within the quarter) of contraction index k = perLane j + e of PV
/// step s: lane group j's tokens 16 j + perLane s + e, so the B operand
/// (P^T, row n in lane n + 16 j) is what the QK result left in the lane.
template <typename Int>
Int pvToken(Instr in, int64_t step, Int group, Int element) {
  return group * kGroupTokens + step * in.perLane + element;
}

/// PV steps per 64-token quarter.
inline constexpr int pvSteps(Instr in) { return kGroupTokens / in.perLane; }

/// Position of token t (within lane group j's 16 tokens) in the QK result of
/// that lane: block t / 4, element t % 4 (the inverse of qkToken for a
/// fixed lane group).
inline constexpr int qkResultBlock(int groupToken) {
  return groupToken / kResultElements;
}
inline constexpr int qkResultElement(int groupToken) {
  return groupToken % kResultElements;
}

} // namespace mlir::pa::mfma

#endif // PA_CONVERSION_PATOMFMA_LAYOUTS_H
