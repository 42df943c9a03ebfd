//===- ISAEmulator.h - instruction-level gfx942/gfx950 executor -*- C++ -*-===//
//
// Executes AMD code objects (.hsaco) on the CPU, instruction by instruction,
// wave64, the way the HSA ABI launches them:
//
//   std::string error;
//   auto object = pa::isa::CodeObject::load(hsacoBytes, error);
//   const pa::isa::Kernel *kernel = object->kernel("pa_decode");
//   pa::isa::Memory memory;                        // the "device" memory
//   uint64_t out = memory.allocate(bytes);
//   pa::isa::LaunchConfig launch{grid, block, kernargBytes};
//   pa::isa::launch(*kernel, memory, launch, stats, error);
//
// The .text section is decoded once with LLVM's AMDGPU MC disassembler into
// an instruction array (docs/emulator.md, "The instruction-level executor");
// execution is a switch over a per-opcode handler id resolved at load time.
// An instruction without a handler is an error naming it.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ISAEMULATOR_ISAEMULATOR_H
#define PA_ISAEMULATOR_ISAEMULATOR_H

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pa/ISAEmulator/Instruction.h"

namespace pa::isa {

// Instruction: the decoded form (Instruction.h).

/// The fields of an amdhsa kernel descriptor (64 bytes at SYMBOL.kd) the
/// launch uses.
struct KernelDescriptor {
  uint32_t groupSegmentBytes = 0;   // static LDS
  uint32_t privateSegmentBytes = 0; // scratch per lane
  uint32_t kernargBytes = 0;
  int64_t entryOffset = 0; // code entry, relative to the descriptor
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint16_t codeProperties = 0;

  unsigned userSgprCount() const { return (rsrc2 >> 1) & 31; }
  bool workgroupId(int dim) const { return (rsrc2 >> (7 + dim)) & 1; }
  bool workgroupInfo() const { return (rsrc2 >> 10) & 1; }
  bool privateSegmentWaveOffset() const { return rsrc2 & 1; }
  unsigned workitemIdDims() const { return ((rsrc2 >> 11) & 3) + 1; }
  /// kernel_code_properties enable bits, in the order of the user SGPRs.
  bool userSgpr(int bit) const { return (codeProperties >> bit) & 1; }
};

struct Kernel {
  std::string name;
  std::string chip; // gfx942, gfx950
  KernelDescriptor descriptor;
  std::vector<Instruction> code;
  ~Kernel();
};

/// The bytes of the code object file at `path` into `bytes`; false when it
/// cannot be read. The one file reader of the executor's tools and tests.
bool readCodeObjectFile(const std::string &path, std::string &bytes);

/// A loaded code object: every kernel of its symbol table, decoded.
class CodeObject {
public:
  /// Null with `error` when `bytes` is no AMDGPU ELF of gfx942/gfx950, a
  /// kernel descriptor is malformed, or .text does not decode.
  static std::unique_ptr<CodeObject> load(const std::string &bytes,
                                          std::string &error);
  /// The kernel named `name` (without .kd), or null.
  const Kernel *kernel(const std::string &name) const;
  const std::vector<std::unique_ptr<Kernel>> &kernels() const {
    return all;
  }
  const std::string &chip() const { return target; }

private:
  std::string target;
  std::vector<std::unique_ptr<Kernel>> all;
};

/// The device's global memory: allocations at fixed addresses with guard
/// gaps between them, so that an access outside every allocation is
/// reported instead of landing in a neighbour.
class Memory {
public:
  /// At least one byte; returns the device address.
  uint64_t allocate(uint64_t bytes);
  void release(uint64_t address);
  /// The bytes at [address, address + bytes) of one allocation, or null.
  uint8_t *find(uint64_t address, uint64_t bytes);

private:
  struct Allocation {
    std::vector<uint8_t> data;
  };
  std::map<uint64_t, Allocation> allocations;
  uint64_t next = 0x100000000ull;
  // The last allocation found (most accesses hit it again).
  uint64_t lastBase = 0, lastSize = 0;
  uint8_t *lastData = nullptr;
};

/// Dynamic counts of a launch (or a sum of launches).
struct Stats {
  uint64_t waveInstructions = 0;
  uint64_t salu = 0, smem = 0, valu = 0, mfma = 0, lds = 0, vmemLoad = 0,
           vmemStore = 0, branch = 0, waitcnt = 0, barrier = 0, other = 0;
  uint64_t mfmaPasses = 0;        // issue cycles of the MFMAs (4 per pass)
  uint64_t vmemBytesLoaded = 0, vmemBytesStored = 0, ldsBytes = 0,
           smemBytes = 0;
  uint64_t workgroups = 0, waves = 0;
  /// Wait-count hazards seen with LaunchConfig::hazardsFatal off, and the
  /// first one's message.
  uint64_t hazards = 0;
  std::string firstHazard;
  /// LDS races between waves of a workgroup and reads of LDS bytes nothing
  /// in the workgroup wrote, seen with LaunchConfig::ldsFindingsFatal off,
  /// and the first one's message.
  uint64_t ldsFindings = 0;
  std::string firstLdsFinding;
  double seconds = 0;
  Stats &operator+=(const Stats &other);
};

struct LaunchConfig {
  std::array<uint32_t, 3> grid = {1, 1, 1};  // workgroups
  std::array<uint32_t, 3> block = {1, 1, 1}; // work items
  std::vector<uint8_t> kernarg;              // the kernarg segment
  /// Buffer accesses outside the resource's range: an error (true) or, as
  /// the hardware does, loads of 0 and dropped stores (false).
  bool strictBufferBounds = true;
  /// Check wait-count hazards and reads of never-written registers.
  bool checkHazards = true;
  /// A wait-count hazard fails the launch (true) or is counted in
  /// Stats::hazards and execution goes on (false: foreign kernels that
  /// rely on latencies).
  bool hazardsFatal = true;
  /// Check LDS accesses between the waves of a workgroup: a byte one wave
  /// wrote, read or written by another wave (or one wave read and another
  /// writes) with no s_barrier between them; a read of a byte nothing in
  /// the workgroup wrote.
  bool checkLds = true;
  /// Such an LDS finding fails the launch (true) or is counted in
  /// Stats::ldsFindings and execution goes on (false).
  bool ldsFindingsFatal = true;
};

/// Runs `kernel` over the grid on `memory`. False with `error` naming the
/// instruction (offset and text), workgroup, wave and lane of the first
/// problem: an unimplemented instruction, an access outside memory or LDS,
/// a wait-count hazard, a read of a never-written register, a barrier that
/// cannot complete.
bool launch(const Kernel &kernel, Memory &memory, const LaunchConfig &config,
            Stats &stats, std::string &error);

} // namespace pa::isa

#endif // PA_ISAEMULATOR_ISAEMULATOR_H
