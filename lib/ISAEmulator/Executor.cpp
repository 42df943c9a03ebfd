//===- Executor.cpp - wave64 semantics of the decoded instructions --------===//
//
// A launch runs its grid one workgroup after the other; the waves of a
// workgroup take turns, each running until s_barrier or s_endpgm. Loads
// write their destination at issue; wait-count hazards are found by
// tracking, per register, the outstanding load that writes it and the
// vmcnt / lgkmcnt completion rules (docs/emulator.md).
//
//===----------------------------------------------------------------------===//
#include "pa/ISAEmulator/Instruction.h"
#include "pa/Emulator/FloatFormats.h"
#include "pa/Emulator/MFMALayout.h"
#include "pa/ISAEmulator/ISAEmulator.h"
#include "pa/ISAEmulator/IssueModel.h"

#include <algorithm>
#include <array>
#include "llvm/ADT/bit.h"
#include "llvm/Support/ErrorHandling.h"
#include <chrono>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <type_traits>
#include <sstream>

namespace pa::isa {

using mlir::pa::emulator::ScalarKind;

Stats &Stats::operator+=(const Stats &o) {
  waveInstructions += o.waveInstructions;
  salu += o.salu;
  smem += o.smem;
  valu += o.valu;
  mfma += o.mfma;
  lds += o.lds;
  vmemLoad += o.vmemLoad;
  vmemStore += o.vmemStore;
  branch += o.branch;
  waitcnt += o.waitcnt;
  barrier += o.barrier;
  other += o.other;
  mfmaPasses += o.mfmaPasses;
  vmemBytesLoaded += o.vmemBytesLoaded;
  vmemBytesStored += o.vmemBytesStored;
  ldsBytes += o.ldsBytes;
  smemBytes += o.smemBytes;
  workgroups += o.workgroups;
  waves += o.waves;
  if (!hazards && o.hazards)
    firstHazard = o.firstHazard;
  hazards += o.hazards;
  if (!ldsFindings && o.ldsFindings)
    firstLdsFinding = o.firstLdsFinding;
  ldsFindings += o.ldsFindings;
  seconds += o.seconds;
  return *this;
}

uint64_t Memory::allocate(uint64_t bytes) {
  bytes = std::max<uint64_t>(bytes, 1);
  uint64_t base = next;
  allocations[base].data.assign(bytes, 0);
  // 64 KiB guard gap, 256-byte alignment.
  next = (base + bytes + 0x10000 + 255) & ~uint64_t(255);
  return base;
}

void Memory::release(uint64_t address) {
  allocations.erase(address);
  lastData = nullptr;
  lastSize = 0;
}

uint8_t *Memory::find(uint64_t address, uint64_t bytes) {
  if (lastData && address >= lastBase && address + bytes <= lastBase + lastSize)
    return lastData + (address - lastBase);
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin())
    return nullptr;
  --it;
  uint64_t size = it->second.data.size();
  if (address + bytes > it->first + size || address < it->first)
    return nullptr;
  lastBase = it->first;
  lastSize = size;
  lastData = it->second.data.data();
  return lastData + (address - lastBase);
}

namespace {

constexpr int kLanes = 64;
constexpr int kVgprs = 512; // 256 VGPRs, then 256 AGPRs
constexpr uint32_t kPoison = 0x7fbadbad;

float asFloat(uint32_t b) { return llvm::bit_cast<float>(b); }
uint32_t asBits(float f) { return llvm::bit_cast<uint32_t>(f); }

/// An outstanding memory operation for the wait-count model.
struct Pending {
  uint64_t seq;
  bool outOfOrder; // SMEM: completes in any order
  bool done;
  uint32_t pc;
};

/// One counter (vmcnt or lgkmcnt) of a wave.
struct Counter {
  std::deque<Pending> ops;
  uint64_t nextSeq = 1;

  uint64_t issue(bool outOfOrder, uint32_t pc) {
    ops.push_back({nextSeq, outOfOrder, false, pc});
    return nextSeq++;
  }
  /// s_waitcnt CNT(n): at most n operations remain. In-order operations
  /// older than the n youngest in-order ones are complete; out-of-order
  /// ones only when n is 0.
  void wait(unsigned n) {
    unsigned younger = 0;
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      if (n == 0) {
        it->done = true;
        continue;
      }
      ++younger;
      if (!it->outOfOrder && younger > n)
        it->done = true;
    }
    while (!ops.empty() && ops.front().done)
      ops.pop_front();
  }
  /// The outstanding operation `seq`, or null when it is complete.
  const Pending *outstanding(uint64_t seq) const {
    if (ops.empty() || seq < ops.front().seq)
      return nullptr;
    size_t i = seq - ops.front().seq;
    if (i >= ops.size() || ops[i].done)
      return nullptr;
    return &ops[i];
  }
};

struct Wave {
  int id = 0;
  uint32_t sgpr[kSgprFileSize] = {};
  bool scc = false;
  std::vector<uint32_t> vgpr;    // [reg * 64 + lane]
  std::vector<uint64_t> written; // per VGPR: lanes written
  uint64_t sgprWritten[2] = {};
  size_t pc = 0;
  bool done = false, atBarrier = false;
  bool gprIdxOn = false;
  uint8_t gprIdxMode = 0;
  Counter vm, lgkm;
  // Per register: the outstanding load writing it (0: none); the high bit
  // says which counter.
  std::vector<uint64_t> vgprPending;
  uint64_t sgprPending[kSgprFileSize] = {};

  uint64_t exec() const {
    return uint64_t(sgpr[kExec]) | (uint64_t(sgpr[kExec + 1]) << 32);
  }
  uint64_t vcc() const {
    return uint64_t(sgpr[kVcc]) | (uint64_t(sgpr[kVcc + 1]) << 32);
  }
};

constexpr uint64_t kLgkmBit = uint64_t(1) << 63;

class Executor {
public:
  Executor(const Kernel &kernel, Memory &memory, const LaunchConfig &config,
           Stats &stats)
      : kernel(kernel), memory(memory), config(config), stats(stats) {
    chipFp8 = kernel.chip == "gfx942" ? ScalarKind::F8E4M3FNUZ
                                      : ScalarKind::F8E4M3FN;
    chipBf8 = kernel.chip == "gfx942" ? ScalarKind::F8E5M2FNUZ
                                      : ScalarKind::F8E5M2;
  }

  bool run(std::string &error);

private:
  const Kernel &kernel;
  Memory &memory;
  const LaunchConfig &config;
  Stats &stats;
  ScalarKind chipFp8, chipBf8;

  std::vector<Wave> waves;
  std::vector<uint8_t> lds;
  /// Per LDS byte: its last writer and the waves that read it, each with
  /// the barrier epoch of the access. Epochs count up over the whole launch
  /// (every workgroup starts a new one), so nothing is reset per workgroup:
  /// a byte whose write epoch is older than the workgroup's first was not
  /// written in this workgroup.
  struct LdsByte {
    uint32_t writeEpoch = 0, readEpoch = 0;
    uint32_t writerOffset = 0; // the writing instruction's offset
    uint16_t readers = 0;      // waves that read it in readEpoch
    uint8_t writer = 0;
  };
  std::vector<LdsByte> ldsBytes;
  uint32_t ldsEpoch = 0, workgroupFirstEpoch = 0;
  uint64_t kernargAddress = 0;
  std::array<uint32_t, 3> groupId = {0, 0, 0};
  std::string failure;
  // Set by a lane whose carry-out bit depends on a never-written register
  // (valuLane); the mask destination is then marked never-written.
  bool maskOutUnwritten = false;

  // Current instruction context for messages.
  const Instruction *current = nullptr;
  Wave *wave = nullptr;
  // PA_ISA_TRACE=1: every instruction of wave 0 of workgroup (0, 0) on
  // stderr (debugging).
  bool trace = std::getenv("PA_ISA_TRACE") != nullptr;

  bool fail(const std::string &message) {
    if (failure.empty()) {
      std::ostringstream os;
      os << kernel.name << " +0x" << std::hex
         << (current ? current->offset : 0) << std::dec << " '"
         << (current ? current->text : "") << "' workgroup (" << groupId[0]
         << ", " << groupId[1] << ", " << groupId[2] << ") wave "
         << (wave ? wave->id : -1) << ": " << message;
      failure = os.str();
    }
    return false;
  }
  bool failLane(int lane, const std::string &message) {
    return fail("lane " + std::to_string(lane) + ": " + message);
  }

  bool runWorkgroup();
  bool step(Wave &w);
  bool execute(const Instruction &inst, Wave &w);

  // --- registers ---------------------------------------------------------
  unsigned vgprIndex(const Operand &op, unsigned slot, unsigned dword) const {
    unsigned r = op.reg + dword;
    if (wave->gprIdxOn && (wave->gprIdxMode >> slot) & 1)
      r += wave->sgpr[kM0] & 0xff;
    return op.kind == Operand::Agpr ? 256 + r : r;
  }

  bool checkSgprRead(unsigned reg) {
    if (!config.checkHazards)
      return true;
    if (!((wave->sgprWritten[reg / 64] >> (reg % 64)) & 1))
      return fail("reads s" + std::to_string(reg) +
                  ", which was never written");
    return checkPendingSgpr(reg, "reads");
  }
  bool checkPendingSgpr(unsigned reg, const char *what) {
    uint64_t p = wave->sgprPending[reg];
    if (!p)
      return true;
    const Pending *op = wave->lgkm.outstanding(p & ~kLgkmBit);
    if (!op) {
      wave->sgprPending[reg] = 0;
      return true;
    }
    return hazard("s" + std::to_string(reg), what, *op, true);
  }
  bool checkPendingVgpr(unsigned reg, const char *what) {
    uint64_t p = wave->vgprPending[reg];
    if (!p)
      return true;
    bool lgkm = p & kLgkmBit;
    const Pending *op = (lgkm ? wave->lgkm : wave->vm).outstanding(p & ~kLgkmBit);
    if (!op) {
      wave->vgprPending[reg] = 0;
      return true;
    }
    return hazard(vgprName(reg), what, *op, lgkm);
  }
  static std::string vgprName(unsigned reg) {
    return reg >= 256 ? "a" + std::to_string(reg - 256)
                      : "v" + std::to_string(reg);
  }
  bool hazard(const std::string &reg, const char *what, const Pending &op,
              bool lgkm) {
    if (!config.hazardsFatal && stats.hazards) {
      ++stats.hazards; // only the first one's message is kept
      return true;
    }
    std::ostringstream os;
    os << "wait-count hazard: " << what << " " << reg
       << " while the load at +0x" << std::hex << op.pc << std::dec << " ('"
       << instructionAt(op.pc) << "') writing it may still be outstanding ("
       << (lgkm ? "lgkmcnt" : "vmcnt") << ")";
    return finding(os.str(), config.hazardsFatal, stats.hazards,
                   stats.firstHazard);
  }
  /// A checked finding: an error when `fatal`, else counted in `count`
  /// (the first one's full message in `first`) and execution goes on.
  bool finding(const std::string &message, bool fatal, uint64_t &count,
               std::string &first) {
    if (fatal)
      return fail(message);
    if (!count++) {
      std::string saved = failure;
      fail(message);
      first = failure;
      failure = saved;
    }
    return true;
  }
  /// A non-fatal LDS finding after the first: counted, no message built.
  bool repeatedLdsFinding() {
    if (config.ldsFindingsFatal || !stats.ldsFindings)
      return false;
    ++stats.ldsFindings;
    return true;
  }
  /// Checks and records an LDS access of `bytes` bytes at `address` by
  /// the current wave (docs/emulator.md, "LDS races").
  bool ldsAccess(int lane, uint64_t address, unsigned bytes, bool write);
  std::string instructionAt(uint32_t offset) const {
    for (const Instruction &i : kernel.code)
      if (i.offset == offset)
        return i.text;
    return "?";
  }

  /// Reads dword `d` of a scalar operand (SGPR or constant).
  bool readScalar(const Operand &op, unsigned d, uint32_t &value) {
    switch (op.kind) {
    case Operand::Sgpr: {
      unsigned reg = op.reg + d;
      if (reg == kNull) {
        value = 0;
        return true;
      }
      if (!checkSgprRead(reg))
        return false;
      value = wave->sgpr[reg];
      return true;
    }
    case Operand::Const:
      value = d == 0 ? uint32_t(op.bits64 & 0xffffffff)
                     : uint32_t(op.bits64 >> 32);
      if (op.dwords == 1 && d == 0)
        value = op.bits32;
      return true;
    case Operand::Scc:
      value = wave->scc;
      return true;
    case Operand::Execz:
      value = wave->exec() == 0;
      return true;
    case Operand::Vccz:
      value = wave->vcc() == 0;
      return true;
    default:
      return fail("operand is not scalar");
    }
  }
  bool readScalar32(const Operand &op, uint32_t &value) {
    if (op.kind == Operand::Const) {
      value = op.bits32;
      return true;
    }
    return readScalar(op, 0, value);
  }
  bool readScalar64(const Operand &op, uint64_t &value) {
    if (op.kind == Operand::Const) {
      value = op.bits64;
      return true;
    }
    uint32_t lo, hi;
    if (!readScalar(op, 0, lo) || !readScalar(op, 1, hi))
      return false;
    value = lo | (uint64_t(hi) << 32);
    return true;
  }
  bool writeSgpr(unsigned reg, uint32_t value) {
    if (reg >= kSgprFileSize)
      return fail("SGPR out of range");
    if (reg == kNull)
      return true;
    if (config.checkHazards && !checkPendingSgpr(reg, "overwrites"))
      return false;
    wave->sgpr[reg] = value;
    wave->sgprWritten[reg / 64] |= uint64_t(1) << (reg % 64);
    return true;
  }
  void markSgprUnwritten(unsigned reg) {
    if (reg < kSgprFileSize && reg != kNull)
      wave->sgprWritten[reg / 64] &= ~(uint64_t(1) << (reg % 64));
  }
  bool writeScalar(const Operand &op, unsigned d, uint32_t value) {
    if (op.kind != Operand::Sgpr)
      return fail("destination is not scalar");
    return writeSgpr(op.reg + d, value);
  }
  bool writeScalar64(const Operand &op, uint64_t value) {
    return writeScalar(op, 0, uint32_t(value)) &&
           writeScalar(op, 1, uint32_t(value >> 32));
  }

  /// Dword `d` of source `slot` in `lane` (vector, scalar or constant).
  bool readLane(const Instruction &inst, unsigned slot, unsigned d, int lane,
                uint32_t &value) {
    const Operand &op = inst.src[slot];
    if (op.isVector()) {
      unsigned reg = vgprIndex(op, slot, d);
      if (reg >= kVgprs)
        return fail("VGPR index out of range");
      if (config.checkHazards) {
        if (!((wave->written[reg] >> lane) & 1))
          return failLane(lane, "reads " + vgprName(reg) +
                                    ", which this lane never wrote (nor "
                                    "copied from a register it wrote)");
        if (!checkPendingVgpr(reg, "reads"))
          return false;
      }
      value = wave->vgpr[reg * kLanes + lane];
      return true;
    }
    if (op.kind == Operand::Const) {
      value = d == 0 ? (op.dwords == 2 ? uint32_t(op.bits64) : op.bits32)
                     : uint32_t(op.bits64 >> 32);
      return true;
    }
    return readScalar(op, d, value);
  }
  /// Source `slot` of `lane` as 32 or 64 bits (T): its register(s), or a
  /// constant as an operand of that width reads it.
  template <typename T>
  bool readSource(const Instruction &inst, unsigned slot, int lane,
                  T &value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    const Operand &op = inst.src[slot];
    if (op.kind == Operand::Const) {
      value = sizeof(T) == 8 ? T(op.bits64) : T(op.bits32);
      return true;
    }
    uint32_t dwords[2] = {};
    for (unsigned d = 0; d < sizeof(T) / 4; ++d)
      if (!readLane(inst, slot, d, lane, dwords[d]))
        return false;
    value = T(dwords[0] | (uint64_t(dwords[1]) << 32));
    return true;
  }
  bool read32(const Instruction &inst, unsigned slot, int lane,
              uint32_t &value) {
    return readSource(inst, slot, lane, value);
  }
  bool read64(const Instruction &inst, unsigned slot, int lane,
              uint64_t &value) {
    return readSource(inst, slot, lane, value);
  }
  /// An f32 / f64 source with its abs / neg modifiers (on the sign bit).
  template <typename Float>
  bool readFloat(const Instruction &inst, unsigned slot, int lane, Float &v) {
    using Bits = std::conditional_t<sizeof(Float) == 4, uint32_t, uint64_t>;
    Bits b;
    bool read;
    if constexpr (sizeof(Float) == 4)
      read = read32(inst, slot, lane, b);
    else
      read = read64(inst, slot, lane, b);
    if (!read)
      return false;
    constexpr Bits sign = Bits(1) << (8 * sizeof(Bits) - 1);
    if (inst.src[slot].abs)
      b &= ~sign;
    if (inst.src[slot].neg)
      b ^= sign;
    v = llvm::bit_cast<Float>(b);
    return true;
  }
  bool readF32(const Instruction &inst, unsigned slot, int lane, float &v) {
    return readFloat(inst, slot, lane, v);
  }
  bool readF64(const Instruction &inst, unsigned slot, int lane, double &v) {
    return readFloat(inst, slot, lane, v);
  }
  bool writeVgprLane(unsigned reg, int lane, uint32_t value) {
    if (reg >= kVgprs)
      return fail("VGPR index out of range");
    if (config.checkHazards && wave->vgprPending[reg] &&
        !checkPendingVgpr(reg, "overwrites"))
      return false;
    wave->vgpr[reg * kLanes + lane] = value;
    wave->written[reg] |= uint64_t(1) << lane;
    return true;
  }
  bool writeLane(const Instruction &inst, unsigned d, int lane,
                 uint32_t value, unsigned which = 0) {
    const Operand &op = inst.dst[which];
    if (!op.isVector())
      return fail("destination is not a vector register");
    return writeVgprLane(vgprIndex(op, 3, d), lane, value);
  }
  /// Dword `d` of VGPR source `slot` copied into dword `to` of the
  /// destination.
  /// Copying a VGPR lane that was never written is no error in itself:
  /// LLVM copies a 64-bit register pair whole (v_mov_b64, v_pk_mov_b32)
  /// also where one half holds no value (an i64 of which only the low half
  /// is used keeps an IMPLICIT_DEF high half), and the hardware then
  /// copies a garbage dword that nothing reads. The destination lane stays
  /// unwritten, so whatever reads it later is the error.
  bool copyLane(const Instruction &inst, unsigned slot, unsigned d,
                unsigned to, int lane) {
    uint32_t value;
    bool defined;
    if (!readLaneKeepingMark(inst, slot, d, lane, value, defined) ||
        !writeLane(inst, to, lane, value))
      return false;
    if (!defined)
      markUnwritten(inst, to, lane);
    return true;
  }
  /// Dword `d` of source `slot` in `lane` as the hardware reads it, also
  /// where this lane never wrote it (`defined` false; in-flight writes are
  /// still hazards). Only for results that carry the mark on to
  /// whatever reads them: copies, and the bits an undefined dword reaches.
  bool readLaneKeepingMark(const Instruction &inst, unsigned slot, unsigned d,
                           int lane, uint32_t &value, bool &defined) {
    defined = true;
    const Operand &from = inst.src[slot];
    if (!config.checkHazards || !from.isVector())
      return readLane(inst, slot, d, lane, value);
    unsigned reg = vgprIndex(from, slot, d);
    if (reg >= kVgprs)
      return fail("VGPR index out of range");
    if (!checkPendingVgpr(reg, "reads"))
      return false;
    defined = (wave->written[reg] >> lane) & 1;
    value = wave->vgpr[reg * kLanes + lane];
    return true;
  }
  /// Dword `d` of the destination of `lane` holds no defined value.
  void markUnwritten(const Instruction &inst, unsigned d, int lane) {
    wave->written[vgprIndex(inst.dst[0], 3, d)] &= ~(uint64_t(1) << lane);
  }
  bool writeLane64(const Instruction &inst, int lane, uint64_t value) {
    return writeLane(inst, 0, lane, uint32_t(value)) &&
           writeLane(inst, 1, lane, uint32_t(value >> 32));
  }
  /// Marks the destination registers of a load as written by an
  /// outstanding operation of `counter`.
  void markPending(const Operand &op, unsigned dwords, uint64_t seq,
                   bool lgkm) {
    if (!config.checkHazards)
      return;
    for (unsigned d = 0; d < dwords; ++d) {
      uint64_t tag = seq | (lgkm ? kLgkmBit : 0);
      if (op.kind == Operand::Sgpr)
        wave->sgprPending[op.reg + d] = tag;
      else
        wave->vgprPending[vgprIndex(op, 3, d)] = tag;
    }
  }

  /// Lane mask writes (VOPC, carry-out): active lanes' bits, others 0.
  bool writeMask(const Operand &op, uint64_t mask) {
    if (op.kind != Operand::Sgpr)
      return fail("mask destination is not scalar");
    if (op.dwords == 1)
      return writeSgpr(op.reg, uint32_t(mask));
    return writeScalar64(op, mask);
  }
  bool readMask(const Operand &op, uint64_t &mask) {
    return readScalar64(op, mask);
  }

  // --- semantics groups ---------------------------------------------------
  bool salu(const Instruction &inst);
  bool branch(const Instruction &inst, bool &taken);
  bool smem(const Instruction &inst);
  bool valu(const Instruction &inst);
  bool valuLane(const Instruction &inst, int lane, uint64_t &maskOut,
                uint64_t maskIn, bool &handled);
  bool vcmp(const Instruction &inst);
  bool mfma(const Instruction &inst);
  /// An MFMA shape's operand and accumulator positions (MFMALayout.h) as
  /// flat tables, and its 8-bit inputs' values, built once per shape.
  struct MfmaTables {
    mlir::pa::emulator::MFMAInstruction shape;
    unsigned bits = 8;
    std::vector<mlir::pa::emulator::LaneElement> operand; // [row * k + kk]
    std::vector<mlir::pa::emulator::LaneElement> accumulator; // [i * n + j]
    std::array<double, 256> byteValues = {};
  };
  std::map<uint32_t, MfmaTables> mfmaTables;
  /// Null (after fail) for a type or shape without layout tables.
  const MfmaTables *mfmaTablesFor(const Instruction &inst);
  /// Per-lane operand words and unpacked values, reused by every MFMA.
  struct {
    std::vector<uint32_t> a, b, c, d;
    std::vector<double> av, bv;
  } mfmaScratch;
  bool dsOp(const Instruction &inst);
  bool vmem(const Instruction &inst);
  bool dppRead(const Instruction &inst, int lane, uint32_t &value, bool &ok);
  /// A DPP instruction's src0 in every lane as it was before the
  /// instruction wrote any lane: the hardware reads all sources first, and
  /// dst may be src0 (`v_add_f32_dpp v1, v1, v1`: in-place lane sums).
  std::array<uint32_t, kLanes> dppSource;
  /// The lanes of dppSource that were written (copied with the values).
  uint64_t dppSourceWritten = 0;
  bool sdwaSource(const Instruction &inst, unsigned slot, int lane,
                  uint32_t &value);
};

// ---------------------------------------------------------------------------
// Launch and scheduling.

bool Executor::run(std::string &error) {
  auto start = std::chrono::steady_clock::now();
  const KernelDescriptor &kd = kernel.descriptor;
  if (kd.userSgpr(10)) {
    error = kernel.name + ": wave32 kernels are not modelled";
    return false;
  }
  if (config.kernarg.size() < kd.kernargBytes) {
    error = kernel.name + ": kernarg segment of " +
            std::to_string(config.kernarg.size()) + " bytes, the kernel takes " +
            std::to_string(kd.kernargBytes);
    return false;
  }
  if (kd.privateSegmentBytes) {
    error = kernel.name + ": scratch (private segment) is not modelled";
    return false;
  }
  if (config.checkLds)
    ldsBytes.assign(kd.groupSegmentBytes, LdsByte());
  kernargAddress = memory.allocate(std::max<size_t>(config.kernarg.size(), 1));
  std::memcpy(memory.find(kernargAddress, 1), config.kernarg.data(),
              config.kernarg.size());
  bool ok = true;
  for (uint32_t z = 0; ok && z < config.grid[2]; ++z)
    for (uint32_t y = 0; ok && y < config.grid[1]; ++y)
      for (uint32_t x = 0; ok && x < config.grid[0]; ++x) {
        groupId = {x, y, z};
        ok = runWorkgroup();
      }
  memory.release(kernargAddress);
  stats.seconds += std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if (!ok)
    error = failure;
  return ok;
}

bool Executor::runWorkgroup() {
  const KernelDescriptor &kd = kernel.descriptor;
  uint32_t items = config.block[0] * config.block[1] * config.block[2];
  int count = int((items + kLanes - 1) / kLanes);
  if (count > 16) {
    failure = kernel.name + ": more than 16 waves in a workgroup";
    return false;
  }
  waves.resize(count);
  lds.assign(kd.groupSegmentBytes, 0);
  workgroupFirstEpoch = ++ldsEpoch;
  ++stats.workgroups;
  for (int i = 0; i < count; ++i) {
    Wave &w = waves[i];
    w.id = i;
    std::fill(std::begin(w.sgpr), std::end(w.sgpr), 0);
    w.scc = false;
    w.vgpr.assign(size_t(kVgprs) * kLanes, kPoison);
    w.written.assign(kVgprs, 0);
    w.vgprPending.assign(kVgprs, 0);
    std::fill(std::begin(w.sgprPending), std::end(w.sgprPending), 0);
    w.sgprWritten[0] = w.sgprWritten[1] = 0;
    w.pc = 0;
    w.done = w.atBarrier = w.gprIdxOn = false;
    w.vm = Counter();
    w.lgkm = Counter();
    wave = &w;
    // User SGPRs in the order of kernel_code_properties' enable bits.
    unsigned s = 0;
    auto put = [&](uint32_t v) { writeSgpr(s++, v); };
    static const unsigned widths[] = {4, 2, 2, 2, 2, 2, 1};
    for (int bit = 0; bit < 7; ++bit) {
      if (!kd.userSgpr(bit))
        continue;
      if (bit == 3) { // kernarg segment pointer
        put(uint32_t(kernargAddress));
        put(uint32_t(kernargAddress >> 32));
        continue;
      }
      if (bit == 0 || bit == 5 || bit == 6) {
        failure = kernel.name + ": the kernel asks for user SGPR " +
                  std::to_string(bit) +
                  " (private segment / flat scratch), which is not modelled";
        return false;
      }
      for (unsigned k = 0; k < widths[bit]; ++k)
        put(0); // dispatch / queue pointers, dispatch id: not modelled
    }
    if (s != kd.userSgprCount()) {
      // Preloaded kernel arguments or other user SGPRs: not modelled.
      failure = kernel.name + ": " + std::to_string(kd.userSgprCount()) +
                " user SGPRs, the modelled enable bits give " +
                std::to_string(s);
      return false;
    }
    for (int dim = 0; dim < 3; ++dim)
      if (kd.workgroupId(dim))
        put(groupId[dim]);
    if (kd.workgroupInfo())
      put(0);
    if (kd.privateSegmentWaveOffset())
      put(0);
    // exec: the wave's work items.
    uint32_t first = uint32_t(i) * kLanes;
    uint32_t live = std::min<uint32_t>(kLanes, items - first);
    uint64_t exec = live == 64 ? ~uint64_t(0) : (uint64_t(1) << live) - 1;
    writeSgpr(kExec, uint32_t(exec));
    writeSgpr(kExec + 1, uint32_t(exec >> 32));
    // v0: work-item ids packed x | y << 10 | z << 20 (gfx90a and later).
    for (int lane = 0; lane < kLanes; ++lane) {
      uint32_t flat = first + uint32_t(lane);
      uint32_t x = flat % config.block[0];
      uint32_t y = (flat / config.block[0]) % config.block[1];
      uint32_t z = flat / (config.block[0] * config.block[1]);
      uint32_t packed = x;
      if (kd.workitemIdDims() > 1)
        packed |= y << 10;
      if (kd.workitemIdDims() > 2)
        packed |= z << 20;
      w.vgpr[lane] = packed;
    }
    w.written[0] = exec;
  }
  stats.waves += count;
  // Waves take turns, each until a barrier or the end.
  for (;;) {
    bool progress = false;
    for (Wave &w : waves) {
      if (w.done || w.atBarrier)
        continue;
      progress = true;
      wave = &w;
      while (!w.done && !w.atBarrier)
        if (!step(w))
          return false;
    }
    bool allDone = true, anyBarrier = false;
    for (Wave &w : waves) {
      allDone &= w.done;
      anyBarrier |= w.atBarrier;
    }
    if (allDone)
      return true;
    if (anyBarrier) {
      // Every wave still running waits at the barrier (ended waves do not
      // count, as on the hardware): release them.
      for (Wave &w : waves)
        w.atBarrier = false;
      ++ldsEpoch;
      continue;
    }
    if (!progress) {
      failure = kernel.name + ": workgroup made no progress";
      return false;
    }
  }
}

bool Executor::step(Wave &w) {
  if (w.pc >= kernel.code.size()) {
    current = nullptr;
    return fail("ran past the end of the kernel");
  }
  const Instruction &inst = kernel.code[w.pc];
  current = &inst;
  ++stats.waveInstructions;
  size_t next = w.pc + 1;
  bool taken = false;
  if (isSoppBranch(inst.op)) {
    ++stats.branch;
    if (!branch(inst, taken))
      return false;
    if (taken)
      next = size_t(inst.target);
  } else if (inst.op == Op::s_endpgm) {
    ++stats.other;
    w.done = true;
  } else if (inst.op == Op::s_barrier) {
    ++stats.barrier;
    w.atBarrier = true;
  } else if (inst.op == Op::s_waitcnt) {
    ++stats.waitcnt;
    unsigned vmcnt = (inst.simm16 & 0xf) | ((inst.simm16 >> 14) & 3) << 4;
    unsigned lgkmcnt = (inst.simm16 >> 8) & 0xf;
    w.vm.wait(vmcnt);
    w.lgkm.wait(lgkmcnt);
  } else if (!execute(inst, w)) {
    return false;
  }
  if (trace && w.id == 0 && groupId[0] == 0 && groupId[1] == 0) {
    std::fprintf(stderr, "%s +%x %-60s", kernel.name.c_str(), inst.offset,
                 inst.text.c_str());
    if (inst.numDst && inst.dst[0].isVector()) {
      unsigned reg = vgprIndex(inst.dst[0], 3, 0);
      for (int l : {0, 1, 16, 63})
        std::fprintf(stderr, " L%d=%08x(%g)", l, w.vgpr[reg * kLanes + l],
                     asFloat(w.vgpr[reg * kLanes + l]));
    } else if (inst.numDst && inst.dst[0].kind == Operand::Sgpr) {
      std::fprintf(stderr, " =%08x", w.sgpr[inst.dst[0].reg]);
    }
    std::fprintf(stderr, " scc=%d exec=%016llx\n", int(w.scc),
                 (unsigned long long)w.exec());
  }
  w.pc = next;
  return true;
}

bool Executor::branch(const Instruction &inst, bool &taken) {
  switch (inst.op) {
  case Op::s_branch:
    taken = true;
    break;
  case Op::s_cbranch_scc0:
    taken = !wave->scc;
    break;
  case Op::s_cbranch_scc1:
    taken = wave->scc;
    break;
  case Op::s_cbranch_vccz:
    if (!checkSgprRead(kVcc) || !checkSgprRead(kVcc + 1))
      return false;
    taken = wave->vcc() == 0;
    break;
  case Op::s_cbranch_vccnz:
    if (!checkSgprRead(kVcc) || !checkSgprRead(kVcc + 1))
      return false;
    taken = wave->vcc() != 0;
    break;
  case Op::s_cbranch_execz:
    taken = wave->exec() == 0;
    break;
  case Op::s_cbranch_execnz:
    taken = wave->exec() != 0;
    break;
  default:
    break;
  }
  return true;
}

bool Executor::execute(const Instruction &inst, Wave &w) {
  switch (inst.op) {
  case Op::s_nop:
  case Op::s_setprio:
  case Op::s_sleep:
  case Op::s_setreg_imm32_b32:
    ++stats.other;
    return true;
  case Op::s_set_gpr_idx_on: {
    ++stats.salu;
    uint32_t index;
    if (!readScalar32(inst.src[0], index))
      return false;
    w.gprIdxOn = true;
    w.gprIdxMode = inst.gprIdxMode;
    return writeSgpr(kM0, (w.sgpr[kM0] & ~0xffu) | (index & 0xff));
  }
  case Op::s_set_gpr_idx_off:
    ++stats.salu;
    w.gprIdxOn = false;
    return true;
  default:
    break;
  }
  switch (inst.unit) {
  case Unit::Smem:
    ++stats.smem;
    return smem(inst);
  case Unit::Salu:
  case Unit::Control:
    ++stats.salu;
    return salu(inst);
  case Unit::Mfma:
    ++stats.mfma;
    return mfma(inst);
  case Unit::Lds:
    ++stats.lds;
    return dsOp(inst);
  case Unit::Vmem:
    return vmem(inst);
  case Unit::Vcmp:
    ++stats.valu;
    return vcmp(inst);
  case Unit::Valu:
    break;
  }
  ++stats.valu;
  return valu(inst);
}

// ---------------------------------------------------------------------------
// Scalar ALU.

/// The bitwise scalar operations of `a` and `b` (the 32-bit forms use the
/// low half; a saveexec form's `b` is EXEC).
uint64_t bitwise(Op op, uint64_t a, uint64_t b) {
  switch (op) {
  case Op::s_and_b32:
  case Op::s_and_b64:
  case Op::s_and_saveexec_b64:
    return a & b;
  case Op::s_or_b32:
  case Op::s_or_b64:
  case Op::s_or_saveexec_b64:
    return a | b;
  case Op::s_xor_b32:
  case Op::s_xor_b64:
  case Op::s_xor_saveexec_b64:
    return a ^ b;
  case Op::s_andn2_b32:
  case Op::s_andn2_b64:
  case Op::s_andn2_saveexec_b64:
    return a & ~b;
  case Op::s_orn2_b32:
  case Op::s_orn2_b64:
    return a | ~b;
  case Op::s_nand_b64:
    return ~(a & b);
  case Op::s_nor_b64:
    return ~(a | b);
  case Op::s_xnor_b64:
    return ~(a ^ b);
  default:
    llvm_unreachable("not a bitwise scalar operation");
  }
}

/// The shift instructions of SALU and VALU: the low 16, 32 or 64 bits of
/// `value` (the width the mnemonic says) shifted by the low 4, 5 or 6 bits
/// of `amount` (the VALU `rev` forms take the amount first), the result in
/// the width's bits (a 16-bit result's high half is 0 on gfx9).
uint64_t shifted(Op op, uint64_t value, uint32_t amount) {
  unsigned bits = 32;
  if (isOneOf(op, {Op::v_lshlrev_b16, Op::v_lshrrev_b16, Op::v_ashrrev_i16}))
    bits = 16;
  else if (isOneOf(op, {Op::s_lshl_b64, Op::s_lshr_b64, Op::s_ashr_i64,
                        Op::v_lshlrev_b64, Op::v_lshrrev_b64,
                        Op::v_ashrrev_i64}))
    bits = 64;
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  unsigned n = amount & (bits - 1);
  value &= mask;
  if (isOneOf(op, {Op::s_lshl_b32, Op::s_lshl_b64, Op::v_lshlrev_b16,
                   Op::v_lshlrev_b32, Op::v_lshlrev_b64}))
    return (value << n) & mask;
  if (isOneOf(op, {Op::s_ashr_i32, Op::s_ashr_i64, Op::v_ashrrev_i16,
                   Op::v_ashrrev_i32, Op::v_ashrrev_i64}))
    return uint64_t((int64_t(value << (64 - bits)) >> (64 - bits)) >> n) &
           mask;
  assert(isOneOf(op, {Op::s_lshr_b32, Op::s_lshr_b64, Op::v_lshrrev_b16,
                      Op::v_lshrrev_b32, Op::v_lshrrev_b64}) &&
         "not a shift");
  return value >> n;
}

/// An integer comparison of v_cmp / s_cmp from the operands' order: `lt`
/// x < y, `gt` x > y, `eq` x == y; false in `known` for a condition
/// integers do not have.
bool compareIntegers(CmpCond cond, bool lt, bool gt, bool eq, bool &known) {
  known = true;
  switch (cond) {
  case CmpCond::F: return false;
  case CmpCond::Lt: return lt;
  case CmpCond::Eq: return eq;
  case CmpCond::Le: return lt || eq;
  case CmpCond::Gt: return gt;
  case CmpCond::Ne:
  case CmpCond::Lg: return !eq;
  case CmpCond::Ge: return gt || eq;
  case CmpCond::Tru: return true;
  default:
    known = false;
    return false;
  }
}

bool Executor::salu(const Instruction &inst) {
  Wave &w = *wave;
  uint32_t a = 0, b = 0;
  uint64_t a64 = 0, b64 = 0;
  auto src32 = [&](unsigned n) {
    return (n < 1 || readScalar32(inst.src[0], a)) &&
           (n < 2 || readScalar32(inst.src[1], b));
  };
  auto src64 = [&](unsigned n) {
    return (n < 1 || readScalar64(inst.src[0], a64)) &&
           (n < 2 || readScalar64(inst.src[1], b64));
  };
  auto put32 = [&](uint32_t v) { return writeScalar(inst.dst[0], 0, v); };
  auto put64 = [&](uint64_t v) { return writeScalar64(inst.dst[0], v); };
  auto logic32 = [&](uint32_t v) {
    w.scc = v != 0;
    return put32(v);
  };
  auto logic64 = [&](uint64_t v) {
    w.scc = v != 0;
    return put64(v);
  };
  // An unsigned sum: SCC its carry out.
  auto carry32 = [&](uint64_t sum) {
    w.scc = sum >> 32;
    return put32(uint32_t(sum));
  };
  switch (inst.op) {
  case Op::s_mov_b32:
    return src32(1) && put32(a);
  case Op::s_mov_b64:
    return src64(1) && put64(a64);
  case Op::s_movk_i32:
    return put32(uint32_t(int32_t(int16_t(inst.src[0].bits32))));
  case Op::s_cmovk_i32:
    return !w.scc || put32(uint32_t(int32_t(int16_t(inst.src[0].bits32))));
  case Op::s_cmov_b32:
    return src32(1) && (!w.scc || put32(a));
  case Op::s_cmov_b64:
    return src64(1) && (!w.scc || put64(a64));
  case Op::s_not_b32:
    return src32(1) && logic32(~a);
  case Op::s_not_b64:
    return src64(1) && logic64(~a64);
  case Op::s_brev_b32:
    return src32(1) && put32(__builtin_bitreverse32(a));
  case Op::s_add_u32:
    return src32(2) && carry32(uint64_t(a) + b);
  case Op::s_addc_u32:
    return src32(2) && carry32(uint64_t(a) + b + w.scc);
  case Op::s_sub_u32:
  case Op::s_subb_u32: {
    // SCC: the borrow out (s_subb_u32 subtracts SCC too).
    if (!src32(2))
      return false;
    uint64_t sub = uint64_t(b) + (inst.op == Op::s_subb_u32 && w.scc);
    w.scc = sub > a;
    return put32(uint32_t(a - sub));
  }
  case Op::s_add_i32:
  case Op::s_sub_i32: {
    if (!src32(2))
      return false;
    int64_t r = inst.op == Op::s_add_i32 ? int64_t(int32_t(a)) + int32_t(b)
                                         : int64_t(int32_t(a)) - int32_t(b);
    w.scc = r != int64_t(int32_t(r));
    return put32(uint32_t(r));
  }
  case Op::s_addk_i32:
  case Op::s_mulk_i32: {
    // SOPK: the destination is the first source, the immediate the second
    // (sign-extended from 16 bits).
    uint32_t d;
    if (!readScalar(inst.dst[0], 0, d))
      return false;
    int32_t k = int16_t(inst.src[0].bits32);
    if (inst.op == Op::s_mulk_i32)
      return put32(d * uint32_t(k));
    int64_t r = int64_t(int32_t(d)) + k;
    w.scc = r != int64_t(int32_t(r));
    return put32(uint32_t(r));
  }
  case Op::s_mul_i32:
    return src32(2) && put32(a * b);
  case Op::s_mul_hi_u32:
    return src32(2) && put32(uint32_t((uint64_t(a) * b) >> 32));
  case Op::s_mul_hi_i32:
    return src32(2) &&
           put32(uint32_t((int64_t(int32_t(a)) * int32_t(b)) >> 32));
  case Op::s_and_b32:
  case Op::s_or_b32:
  case Op::s_xor_b32:
  case Op::s_andn2_b32:
  case Op::s_orn2_b32:
    return src32(2) && logic32(uint32_t(bitwise(inst.op, a, b)));
  case Op::s_and_b64:
  case Op::s_or_b64:
  case Op::s_xor_b64:
  case Op::s_andn2_b64:
  case Op::s_orn2_b64:
  case Op::s_nand_b64:
  case Op::s_nor_b64:
  case Op::s_xnor_b64:
    return src64(2) && logic64(bitwise(inst.op, a64, b64));
  case Op::s_lshl_b32:
  case Op::s_lshr_b32:
  case Op::s_ashr_i32:
    return src32(2) && logic32(uint32_t(shifted(inst.op, a, b)));
  case Op::s_lshl_b64:
  case Op::s_lshr_b64:
  case Op::s_ashr_i64:
    return src64(1) && readScalar32(inst.src[1], b) &&
           logic64(shifted(inst.op, a64, b));
  case Op::s_lshl1_add_u32:
  case Op::s_lshl2_add_u32:
  case Op::s_lshl3_add_u32:
  case Op::s_lshl4_add_u32: {
    unsigned shift = 1 + unsigned(inst.op) - unsigned(Op::s_lshl1_add_u32);
    return src32(2) && carry32((uint64_t(a) << shift) + b);
  }
  case Op::s_cselect_b32:
    return src32(2) && put32(w.scc ? a : b);
  case Op::s_cselect_b64:
    return src64(2) && put64(w.scc ? a64 : b64);
  case Op::s_min_i32:
    return src32(2) && (w.scc = int32_t(a) < int32_t(b), true) &&
           put32(w.scc ? a : b);
  case Op::s_min_u32:
    return src32(2) && (w.scc = a < b, true) && put32(w.scc ? a : b);
  case Op::s_max_i32:
    return src32(2) && (w.scc = int32_t(a) > int32_t(b), true) &&
           put32(w.scc ? a : b);
  case Op::s_max_u32:
    return src32(2) && (w.scc = a > b, true) && put32(w.scc ? a : b);
  case Op::s_abs_i32: {
    if (!src32(1))
      return false;
    uint32_t r = int32_t(a) < 0 ? uint32_t(0) - a : a;
    return logic32(r);
  }
  case Op::s_bfe_u32:
  case Op::s_bfe_i32: {
    if (!src32(2))
      return false;
    unsigned off = b & 31, width = (b >> 16) & 0x7f;
    uint32_t r = 0;
    if (width) {
      uint64_t field = (uint64_t(a) >> off) & ((uint64_t(1) << width) - 1);
      if (inst.op == Op::s_bfe_i32 && width < 32 && (field >> (width - 1)) & 1)
        field |= ~((uint64_t(1) << width) - 1);
      r = uint32_t(field);
    }
    return logic32(r);
  }
  case Op::s_bfm_b32:
    return src32(2) &&
           put32(uint32_t(((uint64_t(1) << (a & 31)) - 1) << (b & 31)));
  case Op::s_ff1_i32_b32:
    return src32(1) && put32(a ? uint32_t(__builtin_ctz(a)) : ~0u);
  case Op::s_ff1_i32_b64:
    return src64(1) && put32(a64 ? uint32_t(__builtin_ctzll(a64)) : ~0u);
  case Op::s_bcnt1_i32_b32:
    return src32(1) && logic32(uint32_t(__builtin_popcount(a)));
  case Op::s_bcnt1_i32_b64:
    return src64(1) && logic32(uint32_t(__builtin_popcountll(a64)));
  case Op::s_sext_i32_i8:
    return src32(1) && put32(uint32_t(int32_t(int8_t(a))));
  case Op::s_sext_i32_i16:
    return src32(1) && put32(uint32_t(int32_t(int16_t(a))));
  case Op::s_pack_ll_b32_b16:
    return src32(2) && put32((a & 0xffff) | (b << 16));
  case Op::s_pack_lh_b32_b16:
    return src32(2) && put32((a & 0xffff) | (b & 0xffff0000));
  case Op::s_pack_hh_b32_b16:
    return src32(2) && put32((a >> 16) | (b & 0xffff0000));
  case Op::s_and_saveexec_b64:
  case Op::s_or_saveexec_b64:
  case Op::s_xor_saveexec_b64:
  case Op::s_andn2_saveexec_b64: {
    // The destination gets EXEC; EXEC gets S0 op EXEC, SCC whether it is
    // not 0.
    uint64_t exec = w.exec();
    if (!src64(1) || !put64(exec))
      return false;
    uint64_t r = bitwise(inst.op, a64, exec);
    w.scc = r != 0;
    return writeSgpr(kExec, uint32_t(r)) && writeSgpr(kExec + 1, uint32_t(r >> 32));
  }
  case Op::s_cmp:
  case Op::s_cmpk: {
    bool wide = inst.cmpType == uint8_t(CmpType::I64) ||
                inst.cmpType == uint8_t(CmpType::U64);
    int64_t x, y;
    if (wide) {
      if (!src64(2))
        return false;
      x = int64_t(a64);
      y = int64_t(b64);
    } else {
      if (inst.op == Op::s_cmpk) {
        if (!readScalar32(inst.src[0], a))
          return false;
        b = inst.cmpType == uint8_t(CmpType::I32)
                ? uint32_t(int32_t(int16_t(inst.src[1].bits32)))
                : (inst.src[1].bits32 & 0xffff);
      } else if (!src32(2)) {
        return false;
      }
      bool isSigned = inst.cmpType == uint8_t(CmpType::I32);
      x = isSigned ? int64_t(int32_t(a)) : int64_t(a);
      y = isSigned ? int64_t(int32_t(b)) : int64_t(b);
    }
    bool unsignedWide = inst.cmpType == uint8_t(CmpType::U64);
    auto less = [&](int64_t p, int64_t q) {
      return unsignedWide ? uint64_t(p) < uint64_t(q) : p < q;
    };
    bool known;
    w.scc = compareIntegers(CmpCond(inst.cond), less(x, y), less(y, x),
                            x == y, known);
    return known || fail("unsupported scalar comparison");
  }
  case Op::s_getpc_b64:
    return put64(inst.offset + inst.size);
  default:
    return fail("no semantics for this instruction");
  }
}

bool Executor::smem(const Instruction &inst) {
  unsigned dwords = inst.dst[0].dwords;
  uint64_t address;
  bool buffer = inst.memory.buffer;
  uint64_t limit = ~uint64_t(0);
  if (buffer) {
    uint32_t rsrc[4];
    for (unsigned d = 0; d < 4; ++d)
      if (!readScalar(inst.src[0], d, rsrc[d]))
        return false;
    address = rsrc[0] | (uint64_t(rsrc[1] & 0xffff) << 32);
    limit = rsrc[2];
  } else if (!readScalar64(inst.src[0], address)) {
    return false;
  }
  uint32_t offset = 0;
  if (inst.numSrc > 1 && !readScalar32(inst.src[1], offset))
    return false;
  uint64_t byteOffset = uint64_t(offset) + uint64_t(int64_t(inst.memOffset));
  (void)limit;
  uint64_t at = address + byteOffset;
  stats.smemBytes += 4 * dwords;
  for (unsigned d = 0; d < dwords; ++d) {
    const uint8_t *p = memory.find(at + 4 * d, 4);
    if (!p) {
      std::ostringstream os;
      os << "scalar load of 0x" << std::hex << at + 4 * d
         << " outside every allocation";
      return fail(os.str());
    }
    uint32_t v;
    std::memcpy(&v, p, 4);
    if (!writeScalar(inst.dst[0], d, v))
      return false;
  }
  markPending(inst.dst[0], dwords, wave->lgkm.issue(true, inst.offset), true);
  return true;
}

// ---------------------------------------------------------------------------
// Vector ALU.

float fminIeee(float a, float b) { return std::fmin(a, b); }
float fmaxIeee(float a, float b) { return std::fmax(a, b); }
float maximumF(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == 0 && b == 0)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
float minimumF(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == 0 && b == 0)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
float med3F(float a, float b, float c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c))
    return fminIeee(fminIeee(a, b), c);
  float mx = std::max({a, b, c});
  if (mx == a)
    return std::max(b, c);
  if (mx == b)
    return std::max(a, c);
  return std::max(a, b);
}
float fractF(float a) {
  return std::isinf(a) ? std::numeric_limits<float>::quiet_NaN()
                       : std::min(a - std::floor(a), 0x1.fffffep-1f);
}
float fma3(float a, float b, float c) { return std::fma(a, b, c); }

/// An f32 VALU operation whose result is a function of its source values
/// alone: the sources are read with their modifiers (abs / neg, DPP, SDWA),
/// the result written with clamp.
struct PureF32 {
  Op op;
  unsigned sources;
  float (*fn)(float a, float b, float c);
};

const PureF32 kPureF32[] = {
    {Op::v_add_f32, 2, [](float a, float b, float) { return a + b; }},
    {Op::v_sub_f32, 2, [](float a, float b, float) { return a - b; }},
    {Op::v_subrev_f32, 2, [](float a, float b, float) { return b - a; }},
    {Op::v_mul_f32, 2, [](float a, float b, float) { return a * b; }},
    // The literal K is printed where it multiplies (fmamk: S0 * K + S1) or
    // adds (fmaak: S0 * S1 + K): both are src0 * src1 + src2 as parsed.
    {Op::v_fma_f32, 3, fma3},
    {Op::v_mad_f32, 3, fma3},
    {Op::v_fmamk_f32, 3, fma3},
    {Op::v_fmaak_f32, 3, fma3},
    {Op::v_max_f32, 2, [](float a, float b, float) { return fmaxIeee(a, b); }},
    {Op::v_min_f32, 2, [](float a, float b, float) { return fminIeee(a, b); }},
    {Op::v_max3_f32, 3,
     [](float a, float b, float c) { return fmaxIeee(fmaxIeee(a, b), c); }},
    {Op::v_min3_f32, 3,
     [](float a, float b, float c) { return fminIeee(fminIeee(a, b), c); }},
    {Op::v_med3_f32, 3, med3F},
    {Op::v_maximum3_f32, 3,
     [](float a, float b, float c) { return maximumF(maximumF(a, b), c); }},
    {Op::v_minimum3_f32, 3,
     [](float a, float b, float c) { return minimumF(minimumF(a, b), c); }},
    {Op::v_rcp_f32, 1, [](float a, float, float) { return 1.0f / a; }},
    {Op::v_rcp_iflag_f32, 1, [](float a, float, float) { return 1.0f / a; }},
    {Op::v_rsq_f32, 1,
     [](float a, float, float) { return 1.0f / std::sqrt(a); }},
    {Op::v_sqrt_f32, 1, [](float a, float, float) { return std::sqrt(a); }},
    {Op::v_exp_f32, 1, [](float a, float, float) { return std::exp2(a); }},
    {Op::v_log_f32, 1, [](float a, float, float) { return std::log2(a); }},
    {Op::v_trunc_f32, 1, [](float a, float, float) { return std::trunc(a); }},
    {Op::v_floor_f32, 1, [](float a, float, float) { return std::floor(a); }},
    {Op::v_ceil_f32, 1, [](float a, float, float) { return std::ceil(a); }},
    {Op::v_rndne_f32, 1,
     [](float a, float, float) { return std::nearbyint(a); }},
    {Op::v_fract_f32, 1, [](float a, float, float) { return fractF(a); }},
};

/// kPureF32's entry of `op`, or null.
const PureF32 *pureF32(Op op) {
  static const auto byOp = [] {
    std::array<const PureF32 *, size_t(Op::NumOps)> index{};
    for (const PureF32 &entry : kPureF32)
      index[size_t(entry.op)] = &entry;
    return index;
  }();
  return byOp[size_t(op)];
}

uint16_t bf16Rne(float f) {
  uint32_t b = asBits(f);
  if (std::isnan(f))
    return uint16_t((b >> 16) | 0x40);
  b += 0x7fff + ((b >> 16) & 1);
  return uint16_t(b >> 16);
}

/// SDWA: the selected part of a 32-bit value, zero- or sign-extended.
uint32_t sdwaSelect(uint32_t v, uint8_t sel, bool sext) {
  switch (sel) {
  case kByte0:
  case kByte1:
  case kByte2:
  case kByte3: {
    uint32_t byte = (v >> (8 * (sel - kByte0))) & 0xff;
    return sext ? uint32_t(int32_t(int8_t(byte))) : byte;
  }
  case kWord0:
  case kWord1: {
    uint32_t word = (v >> (16 * (sel - kWord0))) & 0xffff;
    return sext ? uint32_t(int32_t(int16_t(word))) : word;
  }
  default:
    return v;
  }
}

bool Executor::sdwaSource(const Instruction &inst, unsigned slot, int lane,
                          uint32_t &value) {
  if (!read32(inst, slot, lane, value))
    return false;
  if (inst.encoding == Encoding::Sdwa && slot < 2)
    value = sdwaSelect(value, inst.srcSel[slot], inst.src[slot].sext);
  return true;
}

/// The lane a DPP source reads for `lane`, or -1 (bound_ctrl / out of the
/// row: the source is 0 or the old value).
int dppSourceLane(const Instruction &inst, int lane) {
  int row = lane & ~15, inRow = lane & 15;
  switch (inst.dpp) {
  case DppKind::QuadPerm:
    return (lane & ~3) + ((inst.dppValue >> (2 * (lane & 3))) & 3);
  case DppKind::RowShl:
    return inRow + inst.dppValue < 16 ? lane + inst.dppValue : -1;
  case DppKind::RowShr:
    return inRow - inst.dppValue >= 0 ? lane - inst.dppValue : -1;
  case DppKind::RowRor:
    return row + ((inRow - inst.dppValue) & 15);
  case DppKind::WaveShl:
    return lane + 1 < 64 ? lane + 1 : -1;
  case DppKind::WaveRol:
    return (lane + 1) & 63;
  case DppKind::WaveShr:
    return lane >= 1 ? lane - 1 : -1;
  case DppKind::WaveRor:
    return (lane - 1) & 63;
  case DppKind::RowMirror:
    return row + 15 - inRow;
  case DppKind::RowHalfMirror:
    return (lane & ~7) + 7 - (lane & 7);
  case DppKind::RowBcast15:
    return row >= 16 ? row - 1 : -1;
  case DppKind::RowBcast31:
    return lane >= 32 ? 31 : -1;
  case DppKind::RowNewBcast:
    return row + inst.dppValue;
  default:
    return lane;
  }
}

bool Executor::dppRead(const Instruction &inst, int lane, uint32_t &value,
                       bool &ok) {
  // Row / bank masks disable the write of this lane.
  if (!((inst.rowMask >> (lane / 16)) & 1) ||
      !((inst.bankMask >> ((lane & 15) / 4)) & 1)) {
    ok = false;
    return true;
  }
  int source = dppSourceLane(inst, lane);
  bool sourceActive =
      source >= 0 && ((wave->exec() >> source) & 1);
  if (!sourceActive) {
    if (inst.boundCtrl) {
      value = 0;
      ok = true;
    } else {
      ok = false; // the lane keeps its old value
    }
    return true;
  }
  ok = true;
  // The never-written check reads the bits copied with the values: an
  // earlier lane of this instruction may have written the source lane's
  // register since (in place, `v_mov_b32_dpp v1, v1 row_shr:1`).
  unsigned reg = vgprIndex(inst.src[0], 0, 0);
  if (config.checkHazards) {
    if (!((dppSourceWritten >> source) & 1))
      return failLane(source, "reads " + vgprName(reg) +
                                  ", which this lane never wrote (nor "
                                  "copied from a register it wrote)");
    if (!checkPendingVgpr(reg, "reads"))
      return false;
  }
  value = dppSource[source];
  return true;
}

/// Integer VALU instructions whose clamp (saturation) the executor does not
/// apply; the add / sub family and the float instructions do.
bool clampUnmodelled(Op op) {
  return isOneOf(op, {Op::v_addc_co_u32, Op::v_subb_co_u32,
                      Op::v_subbrev_co_u32, Op::v_add3_u32, Op::v_mad_u32_u24,
                      Op::v_mad_i32_i24, Op::v_mad_u64_u32, Op::v_mad_i64_i32,
                      Op::v_add_u16, Op::v_sub_u16, Op::v_mul_lo_u16,
                      Op::v_lshl_add_u64, Op::v_lshl_add_u32,
                      Op::v_add_lshl_u32, Op::v_xad_u32});
}

bool Executor::valu(const Instruction &inst) {
  Wave &w = *wave;
  uint64_t exec = w.exec();
  // Lane-crossing and scalar-result instructions first.
  switch (inst.op) {
  case Op::v_nop:
    return true;
  case Op::v_readfirstlane_b32: {
    int lane = exec ? __builtin_ctzll(exec) : 0;
    uint32_t v;
    return readLane(inst, 0, 0, lane, v) && writeScalar(inst.dst[0], 0, v);
  }
  case Op::v_readlane_b32: {
    uint32_t lane;
    if (!readScalar32(inst.src[1], lane))
      return false;
    uint32_t v;
    return readLane(inst, 0, 0, int(lane & 63), v) &&
           writeScalar(inst.dst[0], 0, v);
  }
  case Op::v_writelane_b32: {
    // Register spills copy SGPRs that may hold undefined values (LLVM
    // spills undef too): no never-written check on the copied SGPR.
    uint32_t v, lane;
    const Operand &from = inst.src[0];
    if (from.kind == Operand::Sgpr && from.reg != kNull) {
      if (config.checkHazards && !checkPendingSgpr(from.reg, "reads"))
        return false;
      v = w.sgpr[from.reg];
    } else if (!readScalar32(from, v)) {
      return false;
    }
    if (!readScalar32(inst.src[1], lane))
      return false;
    return writeLane(inst, 0, int(lane & 63), v);
  }
  default:
    break;
  }
  uint64_t maskIn = 0, maskOut = 0;
  maskOutUnwritten = false;
  bool wantsMaskIn = inst.op == Op::v_cndmask_b32 ||
                     inst.op == Op::v_addc_co_u32 ||
                     inst.op == Op::v_subb_co_u32 ||
                     inst.op == Op::v_subbrev_co_u32;
  if (wantsMaskIn) {
    const Operand &m = inst.src[inst.numSrc - 1];
    if (!readMask(m, maskIn))
      return false;
  }
  if (inst.op == Op::v_div_fmas_f32) {
    if (!checkSgprRead(kVcc))
      return false;
    maskIn = w.vcc();
  }
  if (inst.clamp && clampUnmodelled(inst.op))
    return fail("clamp on this integer instruction is not modelled");
  if (inst.encoding == Encoding::Dpp) {
    if (!inst.src[0].isVector())
      return fail("DPP source is not a VGPR");
    unsigned reg = vgprIndex(inst.src[0], 0, 0);
    if (reg >= kVgprs)
      return fail("VGPR index out of range");
    std::copy_n(&w.vgpr[reg * kLanes], kLanes, dppSource.begin());
    dppSourceWritten = w.written[reg];
  }
  bool handled = true;
  for (int lane = 0; lane < kLanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    if (!valuLane(inst, lane, maskOut, maskIn, handled))
      return false;
    if (!handled)
      return fail("no semantics for this instruction");
  }
  // Carry-out / VCC results: bits of inactive lanes are 0.
  bool writesMask = inst.numDst == 2 && inst.dst[1].kind == Operand::Sgpr;
  if (!writesMask)
    return true;
  if (!writeMask(inst.dst[1], maskOut & exec))
    return false;
  if (maskOutUnwritten)
    for (unsigned d = 0; d < inst.dst[1].dwords; ++d)
      markSgprUnwritten(inst.dst[1].reg + d);
  return true;
}

bool Executor::valuLane(const Instruction &inst, int lane, uint64_t &maskOut,
                        uint64_t maskIn, bool &handled) {
  uint32_t a = 0, b = 0, c = 0;
  float fa = 0, fb = 0, fc = 0;
  auto u = [&](unsigned n) {
    if (inst.encoding == Encoding::Dpp) {
      bool ok;
      if (!dppRead(inst, lane, a, ok))
        return false;
      if (!ok)
        return false; // handled by the caller through dppSkip
    } else if (n >= 1 && !sdwaSource(inst, 0, lane, a)) {
      return false;
    }
    return (n < 2 || sdwaSource(inst, 1, lane, b)) &&
           (n < 3 || read32(inst, 2, lane, c));
  };
  auto f = [&](unsigned n) {
    if (inst.encoding == Encoding::Dpp || inst.encoding == Encoding::Sdwa) {
      if (!u(n))
        return false;
      auto mod = [&](uint32_t v, const Operand &op) {
        if (op.abs)
          v &= 0x7fffffff;
        if (op.neg)
          v ^= 0x80000000;
        return asFloat(v);
      };
      fa = mod(a, inst.src[0]);
      if (n >= 2)
        fb = mod(b, inst.src[1]);
      if (n >= 3)
        fc = mod(c, inst.src[2]);
      return true;
    }
    return (n < 1 || readF32(inst, 0, lane, fa)) &&
           (n < 2 || readF32(inst, 1, lane, fb)) &&
           (n < 3 || readF32(inst, 2, lane, fc));
  };
  // DPP lanes whose source is masked keep their value.
  if (inst.encoding == Encoding::Dpp) {
    bool ok;
    uint32_t probe;
    if (!dppRead(inst, lane, probe, ok))
      return false;
    if (!ok)
      return true;
  }
  auto put = [&](uint32_t v) {
    if (inst.encoding == Encoding::Sdwa && inst.dstSel != kDword) {
      uint32_t old = 0;
      unsigned reg = vgprIndex(inst.dst[0], 3, 0);
      if (inst.dstUnused == kUnusedPreserve)
        old = wave->vgpr[reg * kLanes + lane];
      unsigned shift, width;
      if (inst.dstSel <= kByte3) {
        shift = 8 * (inst.dstSel - kByte0);
        width = 8;
      } else {
        shift = 16 * (inst.dstSel - kWord0);
        width = 16;
      }
      uint32_t fieldMask = ((1u << width) - 1) << shift;
      uint32_t r = ((v << shift) & fieldMask) | (old & ~fieldMask);
      if (inst.dstUnused == kUnusedSext && shift + width < 32 &&
          ((v >> (width - 1)) & 1))
        r |= ~((fieldMask << 1) | ((1u << shift) - 1)) & ~fieldMask &
             ~((1u << shift) - 1);
      v = r;
    }
    return writeLane(inst, 0, lane, v);
  };
  auto putF = [&](float v) {
    if (inst.clamp)
      v = std::isnan(v) ? 0.0f : std::min(1.0f, std::max(0.0f, v));
    return put(asBits(v));
  };
  auto put64 = [&](uint64_t v) { return writeLane64(inst, lane, v); };
  // An exact integer result, saturated under clamp, else wrapped.
  auto putUnsigned = [&](int64_t v) {
    if (inst.clamp)
      v = std::min<int64_t>(std::max<int64_t>(v, 0), 0xffffffff);
    return put(uint32_t(v));
  };
  auto putSigned = [&](int64_t v) {
    if (inst.clamp)
      v = std::min<int64_t>(std::max<int64_t>(v, INT32_MIN), INT32_MAX);
    return put(uint32_t(v));
  };
  uint64_t bit = uint64_t(1) << lane;
  switch (inst.op) {
  case Op::v_mov_b32:
  case Op::v_accvgpr_write_b32:
  case Op::v_accvgpr_read_b32:
  case Op::v_accvgpr_mov_b32:
    // DPP and SDWA moves read other lanes or parts of words: checked
    // reads, as are scalar and constant sources.
    if (inst.encoding == Encoding::Dpp || inst.encoding == Encoding::Sdwa ||
        !inst.src[0].isVector())
      return u(1) && put(a);
    return copyLane(inst, 0, 0, 0, lane);
  case Op::v_mov_b64: {
    uint64_t v64;
    if (inst.src[0].isVector())
      return copyLane(inst, 0, 0, 0, lane) && copyLane(inst, 0, 1, 1, lane);
    return read64(inst, 0, lane, v64) && put64(v64);
  }
  case Op::v_pk_mov_b32: {
    if (inst.src[0].isVector() && inst.src[1].isVector())
      return copyLane(inst, 0, inst.opSel & 1 ? 1 : 0, 0, lane) &&
             copyLane(inst, 1, inst.opSel & 2 ? 1 : 0, 1, lane);
    uint64_t x, y;
    if (!read64(inst, 0, lane, x) || !read64(inst, 1, lane, y))
      return false;
    uint32_t lo = (inst.opSel & 1) ? uint32_t(x >> 32) : uint32_t(x);
    uint32_t hi = (inst.opSel & 2) ? uint32_t(y >> 32) : uint32_t(y);
    return put64(lo | (uint64_t(hi) << 32));
  }
  case Op::v_cndmask_b32:
    if (inst.encoding == Encoding::E64) {
      if (!f(2))
        return false;
      a = asBits(fa);
      b = asBits(fb);
    } else if (!u(2)) {
      return false;
    }
    return put((maskIn >> lane) & 1 ? b : a);
  // Integer add / sub: clamp saturates (unsigned, or signed for _i32).
  case Op::v_add_u32:
    return u(2) && putUnsigned(int64_t(a) + int64_t(b));
  case Op::v_sub_u32:
    return u(2) && putUnsigned(int64_t(a) - int64_t(b));
  case Op::v_subrev_u32:
    return u(2) && putUnsigned(int64_t(b) - int64_t(a));
  case Op::v_add_i32:
    return u(2) && putSigned(int64_t(int32_t(a)) + int32_t(b));
  case Op::v_sub_i32:
    return u(2) && putSigned(int64_t(int32_t(a)) - int32_t(b));
  // Carry-out in the mask; the c / b forms add the mask's carry-in
  // (their clamp is rejected in valu()).
  case Op::v_add_co_u32:
  case Op::v_addc_co_u32: {
    if (!u(2))
      return false;
    uint64_t carryIn = inst.op == Op::v_addc_co_u32 ? (maskIn >> lane) & 1 : 0;
    uint64_t r = uint64_t(a) + b + carryIn;
    if (r >> 32)
      maskOut |= bit;
    return putUnsigned(int64_t(r));
  }
  case Op::v_sub_co_u32:
  case Op::v_subrev_co_u32:
  case Op::v_subb_co_u32:
  case Op::v_subbrev_co_u32: {
    if (!u(2))
      return false;
    if (inst.op == Op::v_subrev_co_u32 || inst.op == Op::v_subbrev_co_u32)
      std::swap(a, b);
    bool borrows = inst.op == Op::v_subb_co_u32 || inst.op == Op::v_subbrev_co_u32;
    uint64_t sub = uint64_t(b) + (borrows ? (maskIn >> lane) & 1 : 0);
    if (sub > a)
      maskOut |= bit;
    return putUnsigned(int64_t(a) - int64_t(sub));
  }
  case Op::v_and_b32:
    return u(2) && put(a & b);
  case Op::v_or_b32:
    return u(2) && put(a | b);
  case Op::v_xor_b32:
    return u(2) && put(a ^ b);
  case Op::v_not_b32:
    return u(1) && put(~a);
  case Op::v_bfrev_b32:
    return u(1) && put(__builtin_bitreverse32(a));
  case Op::v_lshlrev_b32:
  case Op::v_lshrrev_b32:
  case Op::v_ashrrev_i32:
  case Op::v_lshlrev_b16:
  case Op::v_lshrrev_b16:
  case Op::v_ashrrev_i16:
    return u(2) && put(uint32_t(shifted(inst.op, b, a)));
  // 16-bit operations (VOP2 / VOP3 without op_sel): the result in the low
  // half, the high half zeroed (gfx9).
  case Op::v_add_u16:
    return u(2) && put(uint16_t(a + b));
  case Op::v_sub_u16:
    return u(2) && put(uint16_t(a - b));
  case Op::v_mul_lo_u16:
    return u(2) && put(uint16_t(a * b));
  case Op::v_lshlrev_b64:
  case Op::v_lshrrev_b64:
  case Op::v_ashrrev_i64: {
    uint64_t x;
    return u(1) && read64(inst, 1, lane, x) && put64(shifted(inst.op, x, a));
  }
  case Op::v_lshl_add_u64: {
    uint64_t x, y;
    return read64(inst, 0, lane, x) && read32(inst, 1, lane, b) &&
           read64(inst, 2, lane, y) && put64((x << (b & 7)) + y);
  }
  case Op::v_mul_lo_u32:
    return u(2) && put(a * b);
  case Op::v_mul_hi_u32:
    return u(2) && put(uint32_t((uint64_t(a) * b) >> 32));
  case Op::v_mul_hi_i32:
    return u(2) && put(uint32_t((int64_t(int32_t(a)) * int32_t(b)) >> 32));
  case Op::v_mul_u32_u24:
    return u(2) && put((a & 0xffffff) * (b & 0xffffff));
  case Op::v_mul_hi_u32_u24:
    return u(2) &&
           put(uint32_t((uint64_t(a & 0xffffff) * (b & 0xffffff)) >> 32));
  case Op::v_mul_i32_i24: {
    if (!u(2))
      return false;
    int32_t x = int32_t(a << 8) >> 8, y = int32_t(b << 8) >> 8;
    return put(uint32_t(x * y));
  }
  case Op::v_mad_u32_u24:
    return u(3) && put((a & 0xffffff) * (b & 0xffffff) + c);
  case Op::v_mad_i32_i24: {
    if (!u(3))
      return false;
    int32_t x = int32_t(a << 8) >> 8, y = int32_t(b << 8) >> 8;
    return put(uint32_t(x * y) + c);
  }
  case Op::v_mad_u64_u32:
  case Op::v_mad_i64_i32: {
    // The addend's high dword reaches only the result's high dword and
    // the carry-out, never the low dword: LLVM selects a 32-bit
    // multiply-add as this instruction with an undefined high addend (an
    // i32 sum computed as the low half of an i64 one). An unwritten high
    // addend marks the high result and the carry-out unwritten instead of
    // failing here; whatever reads them fails.
    // Carry-out: v_mad_u64_u32's is bit 64 of S0 * S1 + S2 (the Vega / CDNA
    // ISA: {vcc_out, D.u64} = S0.u32 * S1.u32 + S2.u64). v_mad_i64_i32's is
    // documented the same way ({vcc_out, D.i64} = S0.i32 * S1.i32 + S2.i64)
    // without saying what a signed carry-out is (bit 64 of the 65-bit
    // signed sum, an overflow, or an unsigned carry of the 64-bit add):
    // not modelled, its mask is marked never-written, so a read fails.
    uint32_t accLo, accHi;
    bool accHiDefined;
    if (!u(2) || !readLane(inst, 2, 0, lane, accLo) ||
        !readLaneKeepingMark(inst, 2, 1, lane, accHi, accHiDefined))
      return false;
    uint64_t acc = accLo | (uint64_t(accHi) << 32);
    uint64_t r = inst.op == Op::v_mad_u64_u32
                     ? uint64_t(a) * b + acc
                     : uint64_t(int64_t(int32_t(a)) * int32_t(b)) + acc;
    if (!put64(r))
      return false;
    if (inst.op == Op::v_mad_u64_u32) {
      unsigned __int128 full =
          (unsigned __int128)(uint64_t(a) * b) + acc;
      if (full >> 64)
        maskOut |= uint64_t(1) << lane;
    } else {
      maskOutUnwritten = true;
    }
    if (!accHiDefined) {
      markUnwritten(inst, 1, lane);
      maskOutUnwritten = true;
    }
    return true;
  }
  case Op::v_lshl_add_u32:
    return u(3) && put((a << (b & 31)) + c);
  case Op::v_add_lshl_u32:
    return u(3) && put((a + b) << (c & 31));
  case Op::v_lshl_or_b32:
    return u(3) && put((a << (b & 31)) | c);
  case Op::v_and_or_b32:
    return u(3) && put((a & b) | c);
  case Op::v_or3_b32:
    return u(3) && put(a | b | c);
  case Op::v_xor3_b32:
    return u(3) && put(a ^ b ^ c);
  case Op::v_add3_u32:
    return u(3) && put(a + b + c);
  case Op::v_xad_u32:
    return u(3) && put((a ^ b) + c);
  case Op::v_bfe_u32:
  case Op::v_bfe_i32: {
    if (!u(3))
      return false;
    unsigned off = b & 31, width = c & 31;
    uint32_t r = 0;
    if (width) {
      uint64_t field = (uint64_t(a) >> off) & ((uint64_t(1) << width) - 1);
      if (inst.op == Op::v_bfe_i32 && (field >> (width - 1)) & 1)
        field |= ~((uint64_t(1) << width) - 1);
      r = uint32_t(field);
    }
    return put(r);
  }
  case Op::v_bfi_b32:
    return u(3) && put((a & b) | (~a & c));
  case Op::v_alignbit_b32:
    return u(3) &&
           put(uint32_t(((uint64_t(a) << 32) | b) >> (c & 31)));
  case Op::v_alignbyte_b32:
    return u(3) &&
           put(uint32_t(((uint64_t(a) << 32) | b) >> (8 * (c & 3))));
  case Op::v_perm_b32: {
    if (!u(3))
      return false;
    uint64_t bytes = (uint64_t(a) << 32) | b;
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
      unsigned sel = (c >> (8 * i)) & 0xff;
      uint32_t byte;
      if (sel < 8)
        byte = (bytes >> (8 * sel)) & 0xff;
      else if (sel == 12)
        byte = 0;
      else if (sel > 12)
        byte = 0xff;
      else {
        unsigned signByte = sel == 8 ? 1 : sel == 9 ? 3 : sel == 10 ? 5 : 7;
        byte = ((bytes >> (8 * signByte + 7)) & 1) ? 0xff : 0;
      }
      r |= byte << (8 * i);
    }
    return put(r);
  }
  case Op::v_bitop3_b32:
  case Op::v_bitop3_b16: {
    if (!u(3))
      return false;
    uint32_t r = 0;
    for (int i = 0; i < 32; ++i) {
      unsigned index = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) |
                       ((c >> i) & 1);
      r |= uint32_t((inst.bitop3 >> index) & 1) << i;
    }
    if (inst.op == Op::v_bitop3_b16) {
      if (inst.opSel) {
        handled = false;
        return true;
      }
      r &= 0xffff;
    }
    return put(r);
  }
  case Op::v_min_i32:
    return u(2) && put(int32_t(a) < int32_t(b) ? a : b);
  case Op::v_max_i32:
    return u(2) && put(int32_t(a) > int32_t(b) ? a : b);
  case Op::v_min_u32:
    return u(2) && put(std::min(a, b));
  case Op::v_max_u32:
    return u(2) && put(std::max(a, b));
  case Op::v_min3_i32:
    return u(3) && put(uint32_t(std::min({int32_t(a), int32_t(b), int32_t(c)})));
  case Op::v_max3_i32:
    return u(3) && put(uint32_t(std::max({int32_t(a), int32_t(b), int32_t(c)})));
  case Op::v_min3_u32:
    return u(3) && put(std::min({a, b, c}));
  case Op::v_max3_u32:
    return u(3) && put(std::max({a, b, c}));
  case Op::v_med3_i32: {
    if (!u(3))
      return false;
    int32_t x = int32_t(a), y = int32_t(b), z = int32_t(c);
    return put(uint32_t(std::max(std::min(x, y), std::min(std::max(x, y), z))));
  }
  case Op::v_med3_u32:
    return u(3) && put(std::max(std::min(a, b), std::min(std::max(a, b), c)));
  case Op::v_ffbh_u32:
    return u(1) && put(a ? uint32_t(__builtin_clz(a)) : ~0u);
  case Op::v_ffbl_b32:
    return u(1) && put(a ? uint32_t(__builtin_ctz(a)) : ~0u);
  case Op::v_bcnt_u32_b32:
    return u(2) && put(uint32_t(__builtin_popcount(a)) + b);
  case Op::v_mbcnt_lo_u32_b32:
    return u(2) &&
           put(uint32_t(__builtin_popcount(a & ((uint64_t(1) << std::min(lane, 32)) - 1))) + b);
  case Op::v_mbcnt_hi_u32_b32:
    return u(2) &&
           put(uint32_t(__builtin_popcount(
                   a & (lane > 32 ? ((uint64_t(1) << (lane - 32)) - 1) : 0))) +
               b);
  // f32 (the pure ones are in kPureF32, in the default case).
  case Op::v_fmac_f32:
  case Op::v_mac_f32: {
    uint32_t d;
    if (!f(2) || !readLane(inst, 0, 0, lane, a))
      return false;
    unsigned reg = vgprIndex(inst.dst[0], 3, 0);
    if (config.checkHazards && !((wave->written[reg] >> lane) & 1))
      return failLane(lane, "accumulates into " + vgprName(reg) +
                                ", which this lane never wrote");
    d = wave->vgpr[reg * kLanes + lane];
    return putF(std::fma(fa, fb, asFloat(d)));
  }
  case Op::v_ldexp_f32:
    return f(1) && read32(inst, 1, lane, b) &&
           putF(std::ldexp(fa, int32_t(b)));
  case Op::v_frexp_mant_f32: {
    int e;
    return f(1) && putF(std::isfinite(fa) ? std::frexp(fa, &e) : fa);
  }
  case Op::v_frexp_exp_i32_f32: {
    int e = 0;
    if (!f(1))
      return false;
    if (std::isfinite(fa))
      std::frexp(fa, &e);
    return put(uint32_t(e));
  }
  case Op::v_cvt_u32_f32: {
    if (!f(1))
      return false;
    float t = std::trunc(fa);
    uint32_t r = std::isnan(t) || t <= 0 ? 0u
                 : t >= 4294967296.0f    ? ~0u
                                         : uint32_t(t);
    return put(r);
  }
  case Op::v_cvt_i32_f32: {
    if (!f(1))
      return false;
    float t = std::trunc(fa);
    int32_t r = std::isnan(t)            ? 0
                : t <= -2147483648.0f    ? std::numeric_limits<int32_t>::min()
                : t >= 2147483648.0f     ? std::numeric_limits<int32_t>::max()
                                         : int32_t(t);
    return put(uint32_t(r));
  }
  case Op::v_cvt_f32_u32:
    return u(1) && putF(float(a));
  case Op::v_cvt_f32_i32:
    return u(1) && putF(float(int32_t(a)));
  case Op::v_cvt_f32_ubyte0:
  case Op::v_cvt_f32_ubyte1:
  case Op::v_cvt_f32_ubyte2:
  case Op::v_cvt_f32_ubyte3:
    return u(1) &&
           putF(float((a >> (8 * (unsigned(inst.op) -
                                  unsigned(Op::v_cvt_f32_ubyte0)))) &
                      0xff));
  case Op::v_cvt_f32_f16: {
    if (!u(1))
      return false;
    uint32_t h = (inst.opSel & 1) ? a >> 16 : a & 0xffff;
    float v = mlir::pa::emulator::smallFloatToF32(ScalarKind::F16, h);
    if (inst.src[0].abs)
      v = std::fabs(v);
    if (inst.src[0].neg)
      v = -v;
    return putF(v);
  }
  case Op::v_cvt_f16_f32:
    return f(1) && put(mlir::pa::emulator::f32ToSmallFloatUnsaturated(
                       ScalarKind::F16, fa));
  case Op::v_cvt_pkrtz_f16_f32: {
    if (!f(2))
      return false;
    // Round toward zero.
    auto rtz = [](float v) {
      uint32_t r = mlir::pa::emulator::f32ToSmallFloatUnsaturated(
          ScalarKind::F16, v);
      float back = mlir::pa::emulator::smallFloatToF32(ScalarKind::F16, r);
      if (std::isfinite(v) && std::fabs(back) > std::fabs(v))
        r -= 1;
      return r & 0xffff;
    };
    return put(rtz(fa) | (rtz(fb) << 16));
  }
  case Op::v_cvt_pk_bf16_f32:
    return f(2) && put(bf16Rne(fa) | (uint32_t(bf16Rne(fb)) << 16));
  case Op::v_cvt_pk_f32_fp8:
  case Op::v_cvt_pk_f32_bf8: {
    if (!read32(inst, 0, lane, a))
      return false;
    bool high = inst.encoding == Encoding::Sdwa ? inst.srcSel[0] == kWord1
                                                : (inst.opSel & 1);
    uint32_t word = high ? a >> 16 : a & 0xffff;
    ScalarKind kind = inst.op == Op::v_cvt_pk_f32_fp8 ? chipFp8 : chipBf8;
    float lo = mlir::pa::emulator::smallFloatToF32(kind, word & 0xff);
    float hi = mlir::pa::emulator::smallFloatToF32(kind, word >> 8);
    return writeLane(inst, 0, lane, asBits(lo)) &&
           writeLane(inst, 1, lane, asBits(hi));
  }
  case Op::v_cvt_f32_fp8:
  case Op::v_cvt_f32_bf8: {
    if (!read32(inst, 0, lane, a))
      return false;
    unsigned byte = inst.encoding == Encoding::Sdwa
                        ? (inst.srcSel[0] <= kByte3 ? inst.srcSel[0] - kByte0 : 0)
                        : (inst.opSel & 3);
    ScalarKind kind = inst.op == Op::v_cvt_f32_fp8 ? chipFp8 : chipBf8;
    return putF(mlir::pa::emulator::smallFloatToF32(kind, (a >> (8 * byte)) & 0xff));
  }
  case Op::v_cvt_pk_fp8_f32:
  case Op::v_cvt_pk_bf8_f32: {
    if (!readF32(inst, 0, lane, fa) || !readF32(inst, 1, lane, fb))
      return false;
    ScalarKind kind = inst.op == Op::v_cvt_pk_fp8_f32 ? chipFp8 : chipBf8;
    auto cvt = [&](float v) {
      return inst.clamp ? mlir::pa::emulator::f32ToSmallFloat(kind, v)
                        : mlir::pa::emulator::f32ToSmallFloatUnsaturated(kind, v);
    };
    uint32_t packed = cvt(fa) | (cvt(fb) << 8);
    // op_sel's last entry (the destination, after the two sources) picks
    // the word written; the other keeps its value.
    bool high = (inst.opSel >> inst.numSrc) & 1;
    unsigned reg = vgprIndex(inst.dst[0], 3, 0);
    uint32_t old = wave->vgpr[reg * kLanes + lane];
    uint32_t r = high ? (old & 0xffff) | (packed << 16)
                      : (old & 0xffff0000) | packed;
    return writeLane(inst, 0, lane, r);
  }
  case Op::v_pack_b32_f16: {
    if (!u(2))
      return false;
    uint32_t lo = (inst.opSel & 1) ? a >> 16 : a & 0xffff;
    uint32_t hi = (inst.opSel & 2) ? b >> 16 : b & 0xffff;
    return put(lo | (hi << 16));
  }
  case Op::v_div_scale_f32: {
    // No scaling is modelled: the quotient of operands in the normal range
    // needs none (VCC = 0); v_div_fixup_f32 handles the special values.
    if (!f(3))
      return false;
    return putF(fa);
  }
  case Op::v_div_fmas_f32: {
    if (!f(3))
      return false;
    float r = std::fma(fa, fb, fc);
    if ((maskIn >> lane) & 1)
      r = std::ldexp(r, fa != 0 && std::fabs(fa) > 1 ? 64 : -64);
    return putF(r);
  }
  case Op::v_div_fixup_f32: {
    if (!f(3))
      return false;
    // fa: the quotient estimate, fb: the denominator, fc: the numerator.
    float q = fa, den = fb, num = fc;
    float r;
    if (std::isnan(num) || std::isnan(den))
      r = std::numeric_limits<float>::quiet_NaN();
    else if (den == 0 && num == 0)
      r = std::numeric_limits<float>::quiet_NaN();
    else if (std::isinf(den) && std::isinf(num))
      r = std::numeric_limits<float>::quiet_NaN();
    else if (den == 0 || std::isinf(num))
      r = std::copysign(std::numeric_limits<float>::infinity(),
                        std::signbit(num) != std::signbit(den) ? -1.0f : 1.0f);
    else if (std::isinf(den))
      r = std::copysign(0.0f, std::signbit(num) != std::signbit(den) ? -1.0f : 1.0f);
    else
      r = q;
    return putF(r);
  }
  case Op::v_pk_mul_f32:
  case Op::v_pk_add_f32:
  case Op::v_pk_fma_f32: {
    unsigned n = inst.op == Op::v_pk_fma_f32 ? 3 : 2;
    uint8_t selHi = inst.opSelHiGiven ? inst.opSelHi : 0x7;
    float lo[3], hi[3];
    for (unsigned s = 0; s < n; ++s) {
      // Only the dwords op_sel / op_sel_hi select are read.
      bool loHigh = (inst.opSel >> s) & 1, hiHigh = (selHi >> s) & 1;
      uint32_t x0 = 0, x1 = 0;
      const Operand &op = inst.src[s];
      if (op.kind == Operand::Const) {
        x0 = x1 = op.bits32;
      } else if (((!loHigh || !hiHigh) && !readLane(inst, s, 0, lane, x0)) ||
                 ((loHigh || hiHigh) && !readLane(inst, s, 1, lane, x1))) {
        return false;
      }
      uint32_t l = (inst.opSel >> s) & 1 ? x1 : x0;
      uint32_t h = (selHi >> s) & 1 ? x1 : x0;
      if ((inst.negLo >> s) & 1)
        l ^= 0x80000000;
      if ((inst.negHi >> s) & 1)
        h ^= 0x80000000;
      lo[s] = asFloat(l);
      hi[s] = asFloat(h);
    }
    auto op = [&](const float *v) {
      switch (inst.op) {
      case Op::v_pk_mul_f32:
        return v[0] * v[1];
      case Op::v_pk_add_f32:
        return v[0] + v[1];
      default:
        return std::fma(v[0], v[1], v[2]);
      }
    };
    return put64(asBits(op(lo)) | (uint64_t(asBits(op(hi))) << 32));
  }
  default:
    if (const PureF32 *pure = pureF32(inst.op))
      return f(pure->sources) && putF(pure->fn(fa, fb, fc));
    handled = false;
    return true;
  }
}

bool Executor::vcmp(const Instruction &inst) {
  Wave &w = *wave;
  uint64_t exec = w.exec(), result = 0;
  CmpType type = CmpType(inst.cmpType);
  CmpCond cond = CmpCond(inst.cond);
  for (int lane = 0; lane < kLanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    bool r = false;
    if (type == CmpType::F32 || type == CmpType::F64) {
      double x, y;
      if (type == CmpType::F32) {
        float fx, fy;
        if (!readF32(inst, 0, lane, fx) || !readF32(inst, 1, lane, fy))
          return false;
        x = fx;
        y = fy;
      } else if (!readF64(inst, 0, lane, x) || !readF64(inst, 1, lane, y)) {
        return false;
      }
      bool unordered = std::isnan(x) || std::isnan(y);
      switch (cond) {
      case CmpCond::F: r = false; break;
      case CmpCond::Lt: r = x < y; break;
      case CmpCond::Eq: r = x == y; break;
      case CmpCond::Le: r = x <= y; break;
      case CmpCond::Gt: r = x > y; break;
      case CmpCond::Lg: r = !unordered && x != y; break;
      case CmpCond::Ge: r = x >= y; break;
      case CmpCond::O: r = !unordered; break;
      case CmpCond::U: r = unordered; break;
      case CmpCond::Nge: r = !(x >= y); break;
      case CmpCond::Nlg: r = unordered || x == y; break;
      case CmpCond::Ngt: r = !(x > y); break;
      case CmpCond::Nle: r = !(x <= y); break;
      case CmpCond::Neq: r = !(x == y); break;
      case CmpCond::Nlt: r = !(x < y); break;
      case CmpCond::Tru: r = true; break;
      default: return fail("unsupported float comparison");
      }
    } else {
      bool wide = type == CmpType::I64 || type == CmpType::U64;
      bool isSigned = type == CmpType::I32 || type == CmpType::I64 ||
                      type == CmpType::I16;
      int64_t sx, sy;
      uint64_t ux, uy;
      if (wide) {
        if (!read64(inst, 0, lane, ux) || !read64(inst, 1, lane, uy))
          return false;
        sx = int64_t(ux);
        sy = int64_t(uy);
      } else {
        uint32_t a, b;
        if (!sdwaSource(inst, 0, lane, a) || !sdwaSource(inst, 1, lane, b))
          return false;
        if (type == CmpType::I16 || type == CmpType::U16) {
          a &= 0xffff;
          b &= 0xffff;
          sx = int16_t(a);
          sy = int16_t(b);
        } else {
          sx = int32_t(a);
          sy = int32_t(b);
        }
        ux = a;
        uy = b;
      }
      auto lt = [&](bool swap) {
        if (isSigned)
          return swap ? sy < sx : sx < sy;
        return swap ? uy < ux : ux < uy;
      };
      bool known;
      r = compareIntegers(cond, lt(false), lt(true), ux == uy, known);
      if (!known)
        return fail("unsupported integer comparison");
    }
    if (r)
      result |= uint64_t(1) << lane;
  }
  if (inst.numDst && !writeMask(inst.dst[0], result))
    return false;
  if (inst.op == Op::v_cmpx)
    return writeSgpr(kExec, uint32_t(result)) &&
           writeSgpr(kExec + 1, uint32_t(result >> 32));
  return true;
}

// ---------------------------------------------------------------------------
// MFMA.

const Executor::MfmaTables *Executor::mfmaTablesFor(const Instruction &inst) {
  using namespace mlir::pa::emulator;
  ScalarKind input;
  switch (inst.mfmaInput) {
  case MfmaInput::Fp8:
  case MfmaInput::F8f6f4:
    input = chipFp8;
    break;
  case MfmaInput::Bf16:
    input = ScalarKind::BF16;
    break;
  case MfmaInput::F16:
    input = ScalarKind::F16;
    break;
  case MfmaInput::Unsupported:
    fail("unsupported matrix instruction");
    return nullptr;
  }
  uint32_t key = uint32_t(inst.mfmaM) | uint32_t(inst.mfmaN) << 8 |
                 uint32_t(inst.mfmaK) << 16 | uint32_t(inst.mfmaInput) << 24;
  auto found = mfmaTables.find(key);
  if (found != mfmaTables.end())
    return &found->second;
  std::optional<MFMAInstruction> shape =
      lookupMFMA(inst.mfmaM, inst.mfmaN, inst.mfmaK, 1, input);
  if (!shape) {
    fail("matrix instruction shape not in the layout tables");
    return nullptr;
  }
  MfmaTables tables;
  tables.shape = *shape;
  int m = shape->m, n = shape->n, k = shape->k;
  tables.bits =
      (input == ScalarKind::BF16 || input == ScalarKind::F16) ? 16 : 8;
  for (int row = 0; row < std::max(m, n); ++row)
    for (int kk = 0; kk < k; ++kk)
      tables.operand.push_back(mfmaOperandPosition(*shape, row, kk));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      tables.accumulator.push_back(mfmaAccumulatorPosition(*shape, i, j));
  if (tables.bits == 8)
    for (unsigned raw = 0; raw < 256; ++raw)
      tables.byteValues[raw] = double(smallFloatToF32(input, raw));
  return &mfmaTables.emplace(key, std::move(tables)).first->second;
}

bool Executor::mfma(const Instruction &inst) {
  using namespace mlir::pa::emulator;
  bool f8f6f4 = inst.mfmaInput == MfmaInput::F8f6f4;
  if (f8f6f4 && (inst.cbsz != 0 || inst.blgp != 0))
    return fail("f8f6f4 with non-fp8 (E4M3) operand formats (cbsz/blgp) "
                "is not modelled");
  if (!f8f6f4 && (inst.cbsz || inst.abid || inst.blgp))
    return fail("cbsz / abid / blgp broadcasts are not modelled");
  const MfmaTables *tables = mfmaTablesFor(inst);
  if (!tables)
    return false;
  const MFMAInstruction &shape = tables->shape;
  if (wave->exec() != ~uint64_t(0))
    return fail("MFMA with inactive lanes");
  int m = shape.m, n = shape.n, k = shape.k;
  stats.mfmaPasses += mfmaCycles(m, k, f8f6f4) / 4;
  unsigned bits = tables->bits;
  unsigned operandDwords = shape.operandElements() * bits / 32;
  unsigned accDwords = shape.accumulatorElements();
  const Operand &A = inst.src[0], &B = inst.src[1], &C = inst.src[2];
  const Operand &D = inst.dst[0];
  if (A.dwords != operandDwords || B.dwords != operandDwords ||
      D.dwords != accDwords ||
      (C.kind != Operand::Const && C.dwords != accDwords))
    return fail("operand sizes do not match the instruction");
  // Gather the operand bytes per lane into the reused scratch arrays.
  auto gather = [&](unsigned slot, unsigned dwords,
                    std::vector<uint32_t> &out) {
    out.resize(size_t(dwords) * kLanes);
    for (int lane = 0; lane < kLanes; ++lane)
      for (unsigned d = 0; d < dwords; ++d)
        if (!readLane(inst, slot, d, lane, out[lane * dwords + d]))
          return false;
    return true;
  };
  std::vector<uint32_t> &a = mfmaScratch.a, &b = mfmaScratch.b,
                        &c = mfmaScratch.c, &d = mfmaScratch.d;
  if (!gather(0, operandDwords, a) || !gather(1, operandDwords, b))
    return false;
  if (C.kind == Operand::Const) {
    c.assign(size_t(accDwords) * kLanes, C.bits32);
  } else if (!gather(2, accDwords, c)) {
    return false;
  }
  ScalarKind input = shape.input;
  auto element = [&](const std::vector<uint32_t> &v, LaneElement at) {
    unsigned bit = at.element * bits;
    uint32_t word = v[at.lane * operandDwords + bit / 32];
    uint32_t raw = (word >> (bit % 32)) & ((1u << bits) - 1);
    return bits == 8 ? tables->byteValues[raw]
                     : double(smallFloatToF32(input, raw));
  };
  // Operand values, unpacked once: A[i][k], B[k][j].
  std::vector<double> &av = mfmaScratch.av, &bv = mfmaScratch.bv;
  av.resize(size_t(m) * k);
  bv.resize(size_t(k) * n);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk)
      av[i * k + kk] = element(a, tables->operand[i * k + kk]);
  for (int j = 0; j < n; ++j)
    for (int kk = 0; kk < k; ++kk)
      bv[kk * n + j] = element(b, tables->operand[j * k + kk]);
  d.resize(size_t(accDwords) * kLanes);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      LaneElement at = tables->accumulator[i * n + j];
      double sum = asFloat(c[at.lane * accDwords + at.element]);
      for (int kk = 0; kk < k; ++kk)
        sum += av[i * k + kk] * bv[kk * n + j];
      d[at.lane * accDwords + at.element] = asBits(float(sum));
    }
  for (int lane = 0; lane < kLanes; ++lane)
    for (unsigned e = 0; e < accDwords; ++e)
      if (!writeLane(inst, e, lane, d[lane * accDwords + e]))
        return false;
  return true;
}

// ---------------------------------------------------------------------------
// LDS.

/// Dword `d` of a load of `bytes` per lane at `p`: a byte or short zero-
/// or (`signExtend`) sign-extended.
uint32_t loadedDword(const uint8_t *p, unsigned d, unsigned bytes,
                     bool signExtend) {
  uint32_t v = 0;
  std::memcpy(&v, p + 4 * d, std::min(4u, bytes));
  if (bytes == 1 && signExtend)
    v = uint32_t(int32_t(int8_t(v)));
  if (bytes == 2 && signExtend)
    v = uint32_t(int32_t(int16_t(v)));
  return v;
}

bool Executor::ldsAccess(int lane, uint64_t address, unsigned bytes,
                         bool write) {
  if (!config.checkLds)
    return true;
  uint8_t self = uint8_t(wave->id);
  for (uint64_t at = address; at < address + bytes; ++at) {
    LdsByte &b = ldsBytes[at];
    bool written = b.writeEpoch >= workgroupFirstEpoch;
    const char *problem = nullptr;
    int other = -1;
    if (written && b.writeEpoch == ldsEpoch && b.writer != self) {
      problem = write ? "writes" : "reads";
      other = b.writer;
    } else if (write && b.readEpoch == ldsEpoch &&
               (b.readers & ~(uint16_t(1) << self))) {
      problem = "writes";
      other = llvm::countr_zero(uint16_t(b.readers & ~(uint16_t(1) << self)));
    } else if (!write && !written && repeatedLdsFinding()) {
    } else if (!write && !written) {
      std::ostringstream os;
      os << "lane " << lane << ": reads LDS byte " << at
         << ", which nothing in this workgroup wrote";
      if (!finding(os.str(), config.ldsFindingsFatal, stats.ldsFindings,
                   stats.firstLdsFinding))
        return false;
    }
    if (problem && !repeatedLdsFinding()) {
      std::ostringstream os;
      os << "lane " << lane << ": LDS race: " << problem << " byte " << at
         << ", which wave " << other;
      if (other == b.writer && written && b.writeEpoch == ldsEpoch)
        os << " wrote (+0x" << std::hex << b.writerOffset << std::dec
           << " '" << instructionAt(b.writerOffset) << "')";
      else
        os << " read";
      os << ", with no s_barrier between them";
      if (!finding(os.str(), config.ldsFindingsFatal, stats.ldsFindings,
                   stats.firstLdsFinding))
        return false;
    }
    if (write) {
      b.writeEpoch = ldsEpoch;
      b.writer = self;
      b.writerOffset = current ? current->offset : 0;
    } else {
      if (b.readEpoch != ldsEpoch) {
        b.readEpoch = ldsEpoch;
        b.readers = 0;
      }
      b.readers |= uint16_t(1) << self;
    }
  }
  return true;
}

bool Executor::dsOp(const Instruction &inst) {
  Wave &w = *wave;
  uint64_t exec = w.exec();
  auto ldsAt = [&](int lane, uint64_t address, unsigned bytes,
                   uint8_t *&p) {
    if (address + bytes > lds.size()) {
      std::ostringstream os;
      os << "LDS access of " << bytes << " bytes at " << address
         << " outside the workgroup's " << lds.size() << " bytes";
      return failLane(lane, os.str());
    }
    p = lds.data() + address;
    return true;
  };
  if (inst.op == Op::ds_bpermute_b32 || inst.op == Op::ds_permute_b32) {
    std::array<uint32_t, kLanes> addr{}, data{};
    for (int lane = 0; lane < kLanes; ++lane) {
      if (!((exec >> lane) & 1))
        continue;
      if (!read32(inst, 0, lane, addr[lane]) ||
          !read32(inst, 1, lane, data[lane]))
        return false;
    }
    std::array<uint32_t, kLanes> out{};
    uint64_t set = 0;
    for (int lane = 0; lane < kLanes; ++lane) {
      if (!((exec >> lane) & 1))
        continue;
      int other = int(((addr[lane] + uint32_t(inst.memOffset)) >> 2) & 63);
      if (inst.op == Op::ds_bpermute_b32) {
        if (!((exec >> other) & 1))
          return failLane(lane, "ds_bpermute_b32 reads inactive lane " +
                                    std::to_string(other));
        out[lane] = data[other];
      } else {
        out[other] = data[lane];
        set |= uint64_t(1) << other;
      }
    }
    for (int lane = 0; lane < kLanes; ++lane)
      if ((exec >> lane) & 1)
        if (!writeLane(inst, 0, lane,
                       inst.op == Op::ds_permute_b32 && !((set >> lane) & 1) ? 0
                                                                   : out[lane]))
          return false;
    markPending(inst.dst[0], 1, w.lgkm.issue(false, inst.offset), true);
    return true;
  }
  const MemoryForm &form = inst.memory;
  bool isRead = form.load, isWrite = form.store;
  if (!isRead && !isWrite)
    return fail("no semantics for this LDS instruction");
  bool two = form.two, st64 = form.st64, sext = form.signExtend;
  unsigned bytes = form.bytes;
  if (form.d16)
    return fail("d16 LDS forms are not modelled");
  unsigned dwords = std::max(1u, bytes / 4);
  for (int lane = 0; lane < kLanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    uint32_t base;
    if (!read32(inst, 0, lane, base))
      return false;
    uint64_t first, second = 0;
    if (two) {
      unsigned unit = bytes * (st64 ? 64 : 1);
      first = uint64_t(base) + uint64_t(inst.memOffset & 0xff) * unit;
      second = uint64_t(base) + uint64_t(inst.memOffset1 & 0xff) * unit;
    } else {
      first = uint64_t(base) + uint64_t(uint16_t(inst.memOffset));
    }
    for (unsigned part = 0; part < (two ? 2u : 1u); ++part) {
      uint64_t address = part ? second : first;
      uint8_t *p;
      if (!ldsAt(lane, address, bytes, p) ||
          !ldsAccess(lane, address, bytes, isWrite))
        return false;
      stats.ldsBytes += bytes;
      if (isRead) {
        for (unsigned d = 0; d < dwords; ++d)
          if (!writeLane(inst, part * dwords + d, lane,
                         loadedDword(p, d, bytes, sext)))
            return false;
      } else {
        // Data operand(s) follow the address.
        unsigned slot = 1 + part;
        for (unsigned d = 0; d < dwords; ++d) {
          uint32_t v;
          if (!readLane(inst, slot, d, lane, v))
            return false;
          std::memcpy(p + 4 * d, &v, std::min(4u, bytes));
        }
      }
    }
  }
  if (isRead)
    markPending(inst.dst[0], dwords * (two ? 2 : 1),
                w.lgkm.issue(false, inst.offset), true);
  else
    w.lgkm.issue(false, inst.offset);
  return true;
}

// ---------------------------------------------------------------------------
// Buffer and global memory.

bool Executor::vmem(const Instruction &inst) {
  Wave &w = *wave;
  uint64_t exec = w.exec();
  const MemoryForm &form = inst.memory;
  bool buffer = form.buffer, isLoad = form.load, isStore = form.store;
  if (!isLoad && !isStore)
    return fail("no semantics for this memory instruction (atomics are not "
                "modelled)");
  if (form.d16 && isLoad)
    return fail("d16 loads are not modelled");
  unsigned bytes = form.bytes;
  bool sext = form.signExtend;
  bool hiHalf = form.hiHalf; // stores only
  unsigned dwords = std::max(1u, bytes / 4);
  if (isLoad)
    ++stats.vmemLoad;
  else
    ++stats.vmemStore;
  // Operands: loads vdst, vaddr, (srsrc, soffset | saddr); stores vaddr,
  // vdata, ... for global and vdata, vaddr, srsrc, soffset for buffer.
  if (inst.lds && (!buffer || !isLoad || bytes != 4))
    return fail("only buffer_load_dword ... lds is modelled among loads to "
                "LDS");
  unsigned vdataSlot = buffer ? 0 : 1;
  unsigned addrSlot = isLoad ? 0 : (buffer ? 1 : 0);
  unsigned nextSlot = isLoad ? 1 : 2;
  uint64_t base = 0, numRecords = ~uint64_t(0), stride = 0;
  uint32_t rsrc1Word = 0;
  uint32_t soffset = 0;
  uint64_t saddr = 0;
  bool haveSaddr = false;
  if (buffer) {
    uint32_t rsrc[4];
    for (unsigned d = 0; d < 4; ++d)
      if (!readScalar(inst.src[nextSlot], d, rsrc[d]))
        return false;
    base = rsrc[0] | (uint64_t(rsrc[1] & 0xffff) << 32);
    stride = (rsrc[1] >> 16) & 0x3fff;
    numRecords = rsrc[2];
    rsrc1Word = rsrc[1];
    if (!readScalar32(inst.src[nextSlot + 1], soffset))
      return false;
    if (inst.idxen && stride == 0)
      ; // index * 0
  } else if (inst.src[nextSlot].kind != Operand::Off &&
             inst.src[nextSlot].kind != Operand::None) {
    if (!readScalar64(inst.src[nextSlot], saddr))
      return false;
    haveSaddr = true;
  }
  for (int lane = 0; lane < kLanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    uint64_t address;
    bool inRange = true;
    if (buffer) {
      uint64_t voffset = 0, index = 0;
      const Operand &va = inst.src[addrSlot];
      if (inst.offen || inst.idxen) {
        uint32_t v0 = 0, v1 = 0;
        if (!readLane(inst, addrSlot, 0, lane, v0))
          return false;
        if (inst.offen && inst.idxen) {
          if (!readLane(inst, addrSlot, 1, lane, v1))
            return false;
          index = v0;
          voffset = v1;
        } else if (inst.idxen) {
          index = v0;
        } else {
          voffset = v0;
        }
      }
      (void)va;
      uint64_t offset = voffset + uint64_t(uint32_t(inst.memOffset));
      address = base + soffset + offset + index * stride;
      // Linear (unswizzled) addressing, the only kind modelled: the bytes
      // at index * stride + offset + soffset must lie below num_records.
      if ((rsrc1Word >> 31) & 1)
        return fail("swizzled buffer resources are not modelled");
      inRange = index * stride + offset + soffset + bytes <= numRecords;
    } else {
      if (haveSaddr) {
        uint32_t v;
        if (!readLane(inst, addrSlot, 0, lane, v))
          return false;
        address = saddr + v + int64_t(inst.memOffset);
      } else {
        uint64_t v;
        if (!read64(inst, addrSlot, lane, v))
          return false;
        address = v + int64_t(inst.memOffset);
      }
    }
    uint8_t *p = inRange ? memory.find(address, bytes) : nullptr;
    if (!p) {
      if (!inRange && !config.strictBufferBounds) {
        static const uint8_t zeros[16] = {};
        if (isLoad && !inst.lds)
          for (unsigned d = 0; d < dwords; ++d)
            if (!writeLane(inst, d, lane, 0))
              return false;
        if (!isLoad || !inst.lds)
          continue;
        p = const_cast<uint8_t *>(zeros); // the LDS gets the 0 loaded
      } else {
        std::ostringstream os;
        os << (isLoad ? "load" : "store") << " of " << bytes
           << " bytes at 0x" << std::hex << address << std::dec
           << (inRange ? " outside every allocation"
                       : " outside the buffer resource's range (num_records " +
                             std::to_string(numRecords) + ")");
        return failLane(lane, os.str());
      }
    }
    if (isLoad && inst.lds) {
      // LDS address: M0 + instruction offset + 4 * lane (the dword of each
      // lane, in lane order).
      stats.vmemBytesLoaded += bytes;
      uint64_t ldsAddress = uint64_t(w.sgpr[kM0]) +
                            uint64_t(uint32_t(inst.memOffset)) + 4 * lane;
      if (ldsAddress + 4 > lds.size()) {
        std::ostringstream os;
        os << "load to LDS at " << ldsAddress << " outside the workgroup's "
           << lds.size() << " bytes";
        return failLane(lane, os.str());
      }
      if (!ldsAccess(lane, ldsAddress, 4, /*write=*/true))
        return false;
      std::memcpy(lds.data() + ldsAddress, p, 4);
    } else if (isLoad) {
      stats.vmemBytesLoaded += bytes;
      for (unsigned d = 0; d < dwords; ++d)
        if (!writeLane(inst, d, lane, loadedDword(p, d, bytes, sext)))
          return false;
    } else {
      stats.vmemBytesStored += bytes;
      for (unsigned d = 0; d < dwords; ++d) {
        uint32_t v;
        if (!readLane(inst, vdataSlot, d, lane, v))
          return false;
        if (hiHalf)
          v >>= bytes == 2 ? 16 : 16;
        std::memcpy(p + 4 * d, &v, std::min(4u, bytes));
      }
    }
  }
  uint64_t seq = w.vm.issue(false, inst.offset);
  if (isLoad && !inst.lds)
    markPending(inst.dst[0], dwords, seq, false);
  return true;
}

} // namespace

bool launch(const Kernel &kernel, Memory &memory, const LaunchConfig &config,
            Stats &stats, std::string &error) {
  Executor executor(kernel, memory, config, stats);
  return executor.run(error);
}

} // namespace pa::isa
