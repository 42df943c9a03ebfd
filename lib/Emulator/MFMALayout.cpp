//===- MFMALayout.cpp - where MFMA operands live in a wave ----------------===//
#include "pa/Emulator/MFMALayout.h"

using namespace mlir::pa::emulator;

bool MFMAInstruction::isF8F6F4() const {
  bool fp8 = input == ScalarKind::F8E4M3FN || input == ScalarKind::F8E4M3FNUZ;
  return fp8 && k * m == 2048;
}

std::string MFMAInstruction::isaName() const {
  std::string type;
  switch (input) {
  case ScalarKind::BF16:
    type = "bf16";
    break;
  case ScalarKind::F16:
    type = "f16";
    break;
  default:
    type = isF8F6F4() ? "f8f6f4" : "fp8_fp8";
    break;
  }
  return "v_mfma_f32_" + std::to_string(m) + "x" + std::to_string(n) + "x" +
         std::to_string(k) + "_" + type;
}

std::optional<MFMAInstruction>
mlir::pa::emulator::lookupMFMA(int m, int n, int k, int blocks,
                               ScalarKind input) {
  if (blocks != 1 || m != n || (m != 16 && m != 32))
    return std::nullopt;
  bool fp8 = input == ScalarKind::F8E4M3FN || input == ScalarKind::F8E4M3FNUZ;
  bool half = input == ScalarKind::BF16 || input == ScalarKind::F16;
  // The CDNA3 table entries: 16x16x32 / 32x32x16 fp8, 16x16x16 / 32x32x8
  // bf16 and f16 (8 fp8 or 4 half values per lane); CDNA4's f8f6f4 with fp8
  // operands: 16x16x128 / 32x32x64 (32 fp8 values per lane).
  if ((fp8 && (k * m == 512 || k * m == 2048)) || (half && k * m == 256))
    return MFMAInstruction{m, n, k, input};
  return std::nullopt;
}

LaneElement mlir::pa::emulator::mfmaOperandPosition(const MFMAInstruction &mfma,
                                                    int row, int k) {
  if (mfma.isF8F6F4()) {
    // Runs of 16 K indices: run r goes to lane group r % (64 / M), bytes
    // 16 (r / (64 / M)) upwards (the CDNA4 tables).
    int groups = kWaveSize / mfma.m;
    int run = k / 16;
    return {mfma.m * (run % groups) + row, 16 * (run / groups) + k % 16};
  }
  // Lane group g = lane / M holds the g-th run of operandElements() values
  // of the K dimension, in order.
  int perLane = mfma.operandElements();
  return {mfma.m * (k / perLane) + row, k % perLane};
}

LaneElement
mlir::pa::emulator::mfmaAccumulatorPosition(const MFMAInstruction &mfma,
                                            int i, int j) {
  // Rows come in blocks of 4 (one register each); block b goes to lane
  // group b % (64 / M), registers 4 * (b / (64 / M)) upwards.
  int groups = kWaveSize / mfma.m;
  int block = i / 4;
  return {mfma.m * (block % groups) + j, 4 * (block / groups) + i % 4};
}
