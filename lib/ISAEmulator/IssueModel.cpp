//===- IssueModel.cpp - a time estimate from dynamic counts ---------------===//
#include "pa/ISAEmulator/IssueModel.h"

#include <algorithm>

namespace pa::isa {

int mfmaCycles(int m, int k, bool f8f6f4) {
  if (f8f6f4)
    return m == 16 ? 32 : 64;
  return m == 16 ? 16 : 32;
}

ChipModel chipModel(const std::string &chip) {
  // Public specifications: MI300X 304 CUs at 2.1 GHz, 5.3 TB/s; MI355X 256
  // CUs at 2.4 GHz, 8 TB/s.
  if (chip == "gfx942")
    return {"MI300X", 304, 2.1e9, 5.3e12};
  return {"MI355X", 256, 2.4e9, 8.0e12};
}

Estimate estimate(const Stats &s, const ChipModel &chip, bool fullDevice) {
  Estimate e;
  // Parallelism the launch can use: its waves on SIMDs, its workgroups on
  // CUs (all of them with fullDevice).
  double simds = double(chip.computeUnits) * chip.simdsPerCU;
  double cus = chip.computeUnits;
  if (!fullDevice) {
    simds = std::min<double>(simds, double(std::max<uint64_t>(s.waves, 1)));
    cus = std::min<double>(cus, double(std::max<uint64_t>(s.workgroups, 1)));
  }
  // A VALU instruction of a wave64 takes 4 cycles of its SIMD (16 lanes);
  // an MFMA its pass count times 4 (the two do not overlap here).
  double vectorCycles = 4.0 * double(s.valu) + 4.0 * double(s.mfmaPasses);
  // Scalar, memory-issue, branch and wait instructions: one cycle each on
  // the CU's scalar / issue path shared by its waves.
  double scalarCycles = double(s.salu + s.smem + s.branch + s.waitcnt +
                               s.barrier + s.vmemLoad + s.vmemStore + s.lds);
  e.vectorSeconds = vectorCycles / simds / chip.clockHz;
  e.scalarSeconds = scalarCycles / cus / chip.clockHz;
  e.ldsSeconds =
      double(s.ldsBytes) / (cus * chip.ldsBytesPerCyclePerCU) / chip.clockHz;
  // Memory: the device's bandwidth shared by the CUs in use.
  double bandwidth = chip.memoryBytesPerSecond * cus / chip.computeUnits;
  e.memorySeconds =
      double(s.vmemBytesLoaded + s.vmemBytesStored + s.smemBytes) / bandwidth;
  e.seconds = e.vectorSeconds;
  e.bound = "vector";
  auto consider = [&](double seconds, const char *name) {
    if (seconds > e.seconds) {
      e.seconds = seconds;
      e.bound = name;
    }
  };
  consider(e.scalarSeconds, "scalar");
  consider(e.ldsSeconds, "lds");
  consider(e.memorySeconds, "memory");
  return e;
}

} // namespace pa::isa
