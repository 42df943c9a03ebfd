//===- IssueModel.h - a time estimate from dynamic counts -------*- C++ -*-===//
//
// A throughput model of a launch on MI300X (gfx942) / MI355X (gfx950) from
// the executor's dynamic counts (Stats): every resource's total demand over
// its total capacity, the largest of them the estimate (perfect overlap and
// load balance: a lower bound of the time, the binding resource named).
// docs/emulator.md ("Issue model") states the parameters and what is not
// modelled.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ISAEMULATOR_ISSUEMODEL_H
#define PA_ISAEMULATOR_ISSUEMODEL_H

#include "pa/ISAEmulator/ISAEmulator.h"

#include <string>

namespace pa::isa {

/// Issue cycles of one MFMA (a pass is 4 cycles): CDNA3 tables (16x16x32
/// fp8 and 16x16x16 bf16/f16 16 cycles, the 32x32 shapes 32); CDNA4's
/// f8f6f4 with fp8 operands 32 (16x16x128) / 64 (32x32x64), twice the
/// FLOPs per cycle of the CDNA3 shapes.
int mfmaCycles(int m, int k, bool f8f6f4);

struct ChipModel {
  std::string name;
  int computeUnits;
  double clockHz;
  double memoryBytesPerSecond; // HBM
  int simdsPerCU = 4;
  double ldsBytesPerCyclePerCU = 128;
};

/// MI300X for gfx942, MI355X for gfx950.
ChipModel chipModel(const std::string &chip);

struct Estimate {
  double seconds = 0;
  const char *bound = "";        // "vector", "scalar", "lds", "memory"
  double vectorSeconds = 0, scalarSeconds = 0, ldsSeconds = 0,
         memorySeconds = 0;
};

/// The launch's time with the parallelism it can use (its waves and
/// workgroups), or with `fullDevice` the device-time its work takes when
/// other work fills the device as densely (a throughput figure: divide by
/// the tiles for a per-tile cost independent of the launch's grid).
Estimate estimate(const Stats &stats, const ChipModel &chip,
                  bool fullDevice = false);

} // namespace pa::isa

#endif // PA_ISAEMULATOR_ISSUEMODEL_H
