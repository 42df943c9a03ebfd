//===- Scheduler.cpp - running the bytecode wave by wave ------------------===//
//
// The host function runs on one lane; each gpu.launch_func runs its grid one
// workgroup after the other. A workgroup's waves take turns: each runs until
// it reaches a barrier or returns, then the next; when every wave waits at
// the same barrier, the barrier epoch advances and they all resume.
// Deterministic.
//
//===----------------------------------------------------------------------===//
#include "Executor.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

Step Executor::runWave(const Function &fn, Wave &wave) {
  const Function *saved = current;
  current = &fn;
  Step step = runWaveLoop(fn, wave);
  current = saved;
  return step;
}

Step Executor::runWaveLoop(const Function &fn, Wave &wave) {
  const Instr *code = fn.code.data();
  uint64_t issued = 0, lanes = 0;
  while (true) {
    const Instr &in = code[wave.pc];
    ++issued;
    lanes += uint64_t(llvm::popcount(wave.exec));
    Step step = in.execute(*this, wave, in);
    if (LLVM_LIKELY(step == Step::Next)) {
      ++wave.pc;
      continue;
    }
    if (step == Step::Jumped)
      continue;
    waveInstructions += issued;
    laneInstructions += lanes;
    return step;
  }
}

LogicalResult Executor::launch(const Function &kernel,
                               std::array<int64_t, 3> grid,
                               std::array<int64_t, 3> block,
                               ArrayRef<uint64_t> arguments) {
  ++stats.launches;
  const Function *saved = current;
  gridSize = grid;
  blockSize = block;
  memory.launchFirstSerial = memory.workgroupSerial + 1;
  int64_t threads = block[0] * block[1] * block[2];
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x) {
        blockId = {x, y, z};
        current = &kernel;
        if (failed(runWorkgroup(kernel, arguments.data(), threads)))
          return failure();
      }
  current = saved;
  gridSize = blockSize = {1, 1, 1};
  blockId = {0, 0, 0};
  return success();
}

LogicalResult Executor::runWorkgroup(const Function &kernel,
                                     const uint64_t *arguments,
                                     int64_t threads) {
  ++stats.workgroups;
  ++memory.workgroupSerial;
  ++memory.epoch;
  memory.workgroupEpoch = memory.epoch;
  const size_t waveCount = size_t((threads + kLanes - 1) / kLanes);
  waves.resize(waveCount);
  for (size_t i = 0; i < waveCount; ++i) {
    Wave &wave = waves[i];
    int64_t first = int64_t(i) * kLanes;
    int64_t count = std::min<int64_t>(kLanes, threads - first);
    wave.index = uint32_t(i);
    wave.reset(kernel.frameWords,
               count >= kLanes ? kAllLanes : (uint64_t(1) << count) - 1);
    for (int lane = 0; lane < kLanes; ++lane) {
      uint64_t *f = wave.frame(lane);
      size_t at = 0;
      for (auto [slot, words] :
           llvm::zip(kernel.argumentSlots, kernel.argumentWords)) {
        std::memcpy(f + slot, arguments + at, size_t(words) * 8);
        at += words;
      }
      for (const Attribution &attribution : kernel.workgroupMemory) {
        uint64_t *m = f + attribution.slot;
        m[kBuffer] = memory.ldsBuffer;
        m[kOffset] =
            uint64_t(attribution.byteOffset / attribution.elementBytes);
        m[kDescriptorBase] = 0;
        m[kDescriptorBytes] = uint64_t(-1);
        size_t rank = attribution.sizes.size();
        for (size_t d = 0; d < rank; ++d) {
          m[kSizes + d] = uint64_t(attribution.sizes[d]);
          m[kSizes + rank + d] = uint64_t(attribution.strides[d]);
        }
      }
    }
  }

  const Instr *code = kernel.code.data();
  while (true) {
    for (Wave &wave : waves) {
      if (wave.state != Wave::State::Running)
        continue;
      if (runWave(kernel, wave) == Step::Failed)
        return failure();
    }
    SmallVector<uint32_t, 16> done, waiting;
    for (const Wave &wave : waves)
      (wave.state == Wave::State::Done ? done : waiting).push_back(wave.index);
    if (waiting.empty())
      return success();
    const Wave &first = waves[waiting.front()];
    if (!done.empty()) {
      fail(&first, code[first.pc], -1,
           "barrier not reached by all waves: wave " + Twine(done.front()) +
               " returned while wave " + Twine(first.index) +
               " waits at this barrier");
      return failure();
    }
    for (uint32_t index : waiting)
      if (waves[index].pc != first.pc) {
        const Wave &other = waves[index];
        std::string otherLoc;
        llvm::raw_string_ostream os(otherLoc);
        code[other.pc].op->getLoc().print(os);
        fail(&first, code[first.pc], -1,
             "waves wait at different barriers: wave " + Twine(other.index) +
                 " waits at " + otherLoc);
        return failure();
      }
    ++stats.barriers;
    ++memory.epoch;
    for (uint32_t index : waiting) {
      waves[index].state = Wave::State::Running;
      ++waves[index].pc;
    }
  }
}

LogicalResult Executor::run(const Function &host,
                            ArrayRef<MemRefBinding> arguments) {
  current = &host;
  if (arguments.size() != host.argumentSlots.size()) {
    error = "emulator: @" + host.name + " takes " +
            std::to_string(host.argumentSlots.size()) + " arguments, " +
            std::to_string(arguments.size()) + " given";
    return failure();
  }
  // Buffer 0 is the LDS of the workgroup being run.
  int64_t lds = 0;
  for (const Function &function : program.functions)
    lds = std::max(lds, function.workgroupMemoryBytes);
  Buffer workgroup;
  workgroup.storage.assign(size_t(lds), 0);
  workgroup.data = workgroup.storage.data();
  workgroup.bytes = lds;
  workgroup.workgroup = true;
  workgroup.name = "workgroup memory";
  memory.buffers.push_back(std::move(workgroup));
  memory.ldsBuffer = 0;
  memory.shadow.assign(size_t(lds), LdsShadow());

  Wave hostWave;
  hostWave.reset(host.frameWords, 1);
  uint64_t *f = hostWave.frame(0);
  for (auto [i, binding] : llvm::enumerate(arguments)) {
    int64_t rank = host.argumentRanks[i];
    if (rank < 0 || size_t(rank) != binding.sizes.size() ||
        binding.strides.size() != binding.sizes.size()) {
      error = "emulator: argument " + std::to_string(i) + " of @" + host.name +
              " is not a memref of rank " +
              std::to_string(binding.sizes.size());
      return failure();
    }
    Buffer buffer;
    buffer.data = static_cast<uint8_t *>(binding.data);
    buffer.bytes = binding.bytes;
    buffer.readOnly = binding.readOnly;
    buffer.name =
        binding.name.empty() ? "argument " + std::to_string(i) : binding.name;
    memory.buffers.push_back(std::move(buffer));
    uint64_t *m = f + host.argumentSlots[i];
    m[kBuffer] = memory.buffers.size() - 1;
    m[kOffset] = uint64_t(binding.offset);
    m[kDescriptorBase] = 0;
    m[kDescriptorBytes] = uint64_t(-1);
    for (size_t d = 0; d < size_t(rank); ++d) {
      m[kSizes + d] = uint64_t(binding.sizes[d]);
      m[kSizes + rank + d] = uint64_t(binding.strides[d]);
    }
  }
  auto start = std::chrono::steady_clock::now();
  Step step = runWave(host, hostWave);
  stats.seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  stats.waveInstructions += waveInstructions;
  stats.laneInstructions += laneInstructions;
  return success(step == Step::Returned);
}

LogicalResult mlir::pa::emulator::executeProgram(
    const ProgramImpl &program, const detail::Function &function,
    ArrayRef<MemRefBinding> arguments, std::string &error, Stats &stats) {
  Executor executor(program, error, stats);
  return executor.run(function, arguments);
}
