//===- Executor.h - the machine the bytecode runs on -----------*- C++ -*-===//
//
// The state of a run (buffers, the LDS shadow, the workgroup and waves
// being run) and what every execute function of the dialect files uses:
// lane iteration, word <-> value conversions, diagnostics (Diagnostics.cpp)
// and memory accesses with their checks (Memory.cpp). The wave scheduler is
// Scheduler.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_EMULATOR_EXECUTOR_H
#define PA_LIB_EMULATOR_EXECUTOR_H

#include "Bytecode.h"
#include "Memory.h"
#include "pa/Emulator/MFMALayout.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"

#include <cstring>

namespace mlir::pa::emulator::detail {

constexpr int kLanes = kWaveSize;
constexpr uint64_t kAllLanes = ~uint64_t(0);

inline uint64_t lowMask(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}
inline int64_t signExtend(uint64_t value, unsigned bits) {
  return bits >= 64 ? int64_t(value)
                    : int64_t(value << (64 - bits)) >> (64 - bits);
}
inline float asFloat(uint64_t word) {
  uint32_t bits = uint32_t(word);
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}
inline double asDouble(uint64_t word) {
  double value;
  std::memcpy(&value, &word, 8);
  return value;
}
inline uint64_t wordOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}
inline uint64_t wordOf(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return bits;
}
/// The f32 / f64 (or exactly widened small float) value of an element.
inline double floatValue(ScalarKind kind, uint64_t word) {
  switch (kind) {
  case ScalarKind::F32:
    return asFloat(word);
  case ScalarKind::F64:
    return asDouble(word);
  default:
    return smallFloatToF32(kind, uint32_t(word));
  }
}

/// Exec mask saved by If / For / While, and the else-mask of an If.
struct MaskFrame {
  uint64_t saved = 0;
  uint64_t other = 0;
};

struct Wave {
  uint32_t index = 0;
  uint32_t frameWords = 0;
  uint64_t exec = 0;
  uint64_t launched = 0;
  size_t pc = 0;
  enum class State { Running, AtBarrier, Done } state = State::Running;
  std::vector<uint64_t> regs;
  std::vector<MaskFrame> frames;

  uint64_t *frame(int lane) { return regs.data() + size_t(lane) * frameWords; }
  void reset(uint32_t words, uint64_t lanes) {
    frameWords = words;
    if (regs.size() < size_t(words) * kLanes)
      regs.resize(size_t(words) * kLanes);
    exec = launched = lanes;
    pc = 0;
    state = State::Running;
    frames.clear();
  }
};

/// Runs `f(lane, frame)` on the active lanes.
template <typename F> void forLanes(Wave &wave, F &&f) {
  uint64_t mask = wave.exec;
  while (mask) {
    int lane = llvm::countr_zero(mask);
    mask &= mask - 1;
    f(lane, wave.frame(lane));
  }
}

/// Runs `f(lane, frame)` on the active lanes until it returns false; that
/// lane, or -1.
template <typename F> int firstFailingLane(Wave &wave, F &&f) {
  uint64_t mask = wave.exec;
  while (mask) {
    int lane = llvm::countr_zero(mask);
    mask &= mask - 1;
    if (!f(lane, wave.frame(lane)))
      return lane;
  }
  return -1;
}

inline int64_t operandValue(const IndexOperand &operand,
                            const uint64_t *frame) {
  return operand.isSlot ? int64_t(frame[operand.value]) : operand.value;
}

class Executor {
public:
  Executor(const ProgramImpl &program, std::string &error, Stats &stats)
      : program(program), options(program.options), error(error), stats(stats) {
  }

  /// Runs host function `host` (Scheduler.cpp).
  LogicalResult run(const Function &host, ArrayRef<MemRefBinding> arguments);
  /// Runs `wave` of `fn` until it returns, waits at a barrier or fails.
  Step runWave(const Function &fn, Wave &wave);
  /// Runs the grid of `kernel` with `arguments` (its argument words).
  LogicalResult launch(const Function &kernel, std::array<int64_t, 3> grid,
                       std::array<int64_t, 3> block,
                       ArrayRef<uint64_t> arguments);

  /// Diagnostics (Diagnostics.cpp): the error names `in`'s op and where it
  /// ran (workgroup, wave, lane when >= 0).
  Step fail(const Wave *wave, const Instr &in, int lane, const Twine &message);
  std::string where(const Wave *wave, int lane) const;
  /// The grid coordinates of workgroup `serial` of the current launch.
  std::string workgroupOf(uint32_t serial) const;
  /// LDS byte `offset`, with its attribution and element when known.
  std::string describeLds(int64_t offset) const;
  std::string describeAccess(const MemAccess &access, const uint64_t *frame,
                             const uint64_t *memref) const;

  /// Memory (Memory.cpp): the access `in` (payload MemAccess) on the
  /// active lanes, every check included.
  Step memoryAccess(Wave &wave, const Instr &in);
  /// A new buffer owning `bytes` bytes (memref.alloc); its id.
  uint32_t allocate(int64_t bytes, uint8_t fill);

  uint64_t *scratchFor(size_t words) {
    if (scratch.size() < words)
      scratch.resize(words);
    return scratch.data();
  }

  const ProgramImpl &program;
  const Options &options;
  std::string &error;
  Stats &stats;
  Memory memory;

  // Where we are, for diagnostics and the gpu index ops.
  const Function *current = nullptr;
  std::array<int64_t, 3> gridSize{1, 1, 1}, blockSize{1, 1, 1};
  std::array<int64_t, 3> blockId{0, 0, 0};
  std::vector<Wave> waves;
  std::vector<uint64_t> scratch;
  uint64_t waveInstructions = 0, laneInstructions = 0;

private:
  Step runWaveLoop(const Function &fn, Wave &wave);
  LogicalResult runWorkgroup(const Function &kernel, const uint64_t *arguments,
                             int64_t threads);
};

} // namespace mlir::pa::emulator::detail

#endif // PA_LIB_EMULATOR_EXECUTOR_H
