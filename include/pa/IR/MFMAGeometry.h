//===- MFMAGeometry.h - the fixed shape of the MFMA decode kernel -*- C++ -*-===//
//
// The constants every lane mapping of pa-to-mfma is built on (4 waves of 64
// lanes, 16 x 16 instructions, 16-byte loads), shared by the mappings
// themselves (lib/Conversion/PaToMFMA/Layouts.h) and the verifier of
// #pa.mfma_layout (lib/IR/PaLayoutAttrs.cpp). No MLIR includes: the layout
// unit tests evaluate the mappings on plain integers.
//
//===----------------------------------------------------------------------===//
#ifndef PA_IR_MFMAGEOMETRY_H
#define PA_IR_MFMAGEOMETRY_H

namespace mlir::pa::mfma {

inline constexpr int kWaveLanes = 64;
inline constexpr int kWaves = 4;
/// M = N = 16 for every instruction used; 64 / 16 lane groups of 16 lanes.
inline constexpr int kBlock = 16;
inline constexpr int kLaneGroups = kWaveLanes / kBlock;
/// Tokens per wave and tile: wave w owns tokens [64w, 64w + 64) of the tile.
inline constexpr int kQuarterTokens = 64;
/// Bytes of one K/V load per lane (buffer_load_dwordx4).
inline constexpr int kLoadBytes = 16;

} // namespace mlir::pa::mfma

#endif // PA_IR_MFMAGEOMETRY_H
