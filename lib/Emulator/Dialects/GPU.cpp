//===- GPU.cpp - gpu ops: ids, shuffles, barriers, launches ---------------===//
#include "Dialects.h"

#include "../Executor.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::pa::emulator::detail;

namespace {

//===----------------------------------------------------------------------===//
// Ids and sizes (`mode`: the dimension)
//===----------------------------------------------------------------------===//

Step executeThreadId(Executor &ex, Wave &wave, const Instr &in) {
  const int dim = in.mode;
  const std::array<int64_t, 3> &block = ex.blockSize;
  forLanes(wave, [&](int lane, uint64_t *f) {
    int64_t thread = int64_t(wave.index) * kLanes + lane;
    int64_t value = dim == 0   ? thread % block[0]
                    : dim == 1 ? thread / block[0] % block[1]
                               : thread / (block[0] * block[1]);
    f[in.dst] = uint64_t(value);
  });
  return Step::Next;
}

/// A value uniform over the workgroup.
template <uint64_t (*Value)(const Executor &, const Wave &, const Instr &)>
Step executeUniform(Executor &ex, Wave &wave, const Instr &in) {
  uint64_t value = Value(ex, wave, in);
  forLanes(wave, [&](int, uint64_t *f) { f[in.dst] = value; });
  return Step::Next;
}
uint64_t blockId(const Executor &ex, const Wave &, const Instr &in) {
  return uint64_t(ex.blockId[in.mode]);
}
uint64_t blockDim(const Executor &ex, const Wave &, const Instr &in) {
  return uint64_t(ex.blockSize[in.mode]);
}
uint64_t gridDim(const Executor &ex, const Wave &, const Instr &in) {
  return uint64_t(ex.gridSize[in.mode]);
}
uint64_t subgroupId(const Executor &, const Wave &wave, const Instr &) {
  return wave.index;
}
uint64_t numSubgroups(const Executor &ex, const Wave &, const Instr &) {
  return uint64_t(ex.waves.size());
}
uint64_t subgroupSize(const Executor &, const Wave &, const Instr &) {
  return kLanes;
}

Step executeLaneId(Executor &, Wave &wave, const Instr &in) {
  forLanes(wave, [&](int lane, uint64_t *f) { f[in.dst] = uint64_t(lane); });
  return Step::Next;
}

template <ExecuteFn Execute>
LogicalResult compileIndex(OpCompiler &c, Operation *op) {
  if (failed(c.kernelOnly(op)))
    return failure();
  FailureOr<size_t> instr = c.emitResult(op, Execute);
  if (failed(instr))
    return failure();
  if (auto dimension = op->getAttrOfType<gpu::DimensionAttr>("dimension"))
    c.at(*instr).mode = uint8_t(dimension.getValue());
  return success();
}

//===----------------------------------------------------------------------===//
// Shuffles and barriers
//===----------------------------------------------------------------------===//

/// As the ROCDL lowering computes it: lanes past the end of the lane's
/// `width` segment read their own value and are not valid.
Step executeShuffle(Executor &ex, Wave &wave, const Instr &in) {
  Step status = Step::Next;
  firstFailingLane(wave, [&](int lane, uint64_t *f) {
    int32_t offset = int32_t(f[in.b]), width = int32_t(f[in.c]);
    int32_t end = (lane + width) & -width;
    int32_t source = 0;
    switch (gpu::ShuffleMode(in.mode)) {
    case gpu::ShuffleMode::XOR:
      source = lane ^ offset;
      break;
    case gpu::ShuffleMode::DOWN:
      source = lane + offset;
      break;
    case gpu::ShuffleMode::UP:
      source = lane - offset;
      break;
    case gpu::ShuffleMode::IDX:
      source = offset;
      break;
    }
    bool valid = source < end;
    int from = (valid ? source : lane) & (kLanes - 1);
    if (!(wave.exec >> from & 1)) {
      status = ex.fail(&wave, in, lane,
                       "gpu.shuffle reads lane " + Twine(from) +
                           ", which is not active");
      return false;
    }
    const uint64_t *sourceFrame = wave.frame(from);
    for (uint32_t e = 0; e < in.count; ++e)
      f[in.dst + e] = sourceFrame[in.a + e];
    f[in.imm] = valid;
    return true;
  });
  return status;
}

LogicalResult compileShuffle(OpCompiler &c, Operation *operation) {
  auto op = cast<gpu::ShuffleOp>(operation);
  if (failed(c.kernelOnly(op)))
    return failure();
  FailureOr<uint32_t> value = c.define(op.getShuffleResult(), op);
  FailureOr<uint32_t> valid = c.define(op.getValid(), op);
  if (failed(value) || failed(valid))
    return failure();
  size_t instr = c.emit(executeShuffle, op);
  c.at(instr).dst = *value;
  c.at(instr).imm = *valid;
  c.at(instr).a = c.use(op.getValue());
  c.at(instr).b = c.use(op.getOffset());
  c.at(instr).c = c.use(op.getWidth());
  c.at(instr).count = wordsOf(op.getValue().getType());
  c.at(instr).mode = uint8_t(op.getMode());
  return success();
}

/// The wave waits here; the scheduler resumes it when all waves do.
Step executeBarrier(Executor &ex, Wave &wave, const Instr &in) {
  if (wave.exec != wave.launched)
    return ex.fail(&wave, in, llvm::countr_zero(wave.launched & ~wave.exec),
                   "barrier in divergent control flow: lanes 0x" +
                       llvm::utohexstr(wave.launched & ~wave.exec) +
                       " of the wave do not reach it");
  wave.state = Wave::State::AtBarrier;
  return Step::Barrier;
}

//===----------------------------------------------------------------------===//
// Launches (host functions)
//===----------------------------------------------------------------------===//

struct LaunchInfo : Payload {
  uint32_t kernel = 0;
  std::array<uint32_t, 3> grid{}, block{};
  int64_t dynamicSharedMemory = -1;    // slot, or -1
  SmallVector<uint32_t, 16> arguments; // slots
  SmallVector<uint32_t, 16> argumentWords;
};

Step executeLaunch(Executor &ex, Wave &hostWave, const Instr &in) {
  const LaunchInfo &info = in.get<LaunchInfo>();
  const Function &kernel = ex.program.functions[info.kernel];
  const uint64_t *f = hostWave.frame(0);
  std::array<int64_t, 3> grid, block;
  for (int d = 0; d < 3; ++d) {
    grid[d] = int64_t(f[info.grid[d]]);
    block[d] = int64_t(f[info.block[d]]);
  }
  auto failLaunch = [&](const Twine &message) {
    return ex.fail(&hostWave, in, -1, message);
  };
  int64_t threads = block[0] * block[1] * block[2];
  if (block[0] < 1 || block[1] < 1 || block[2] < 1 || threads > 1024)
    return failLaunch("workgroups of " + Twine(block[0]) + " x " +
                      Twine(block[1]) + " x " + Twine(block[2]) +
                      " threads are not launchable");
  for (int d = 0; d < 3; ++d)
    if (kernel.knownBlockSize[d] && kernel.knownBlockSize[d] != block[d])
      return failLaunch("the launch's block size does not match the "
                        "kernel's known_block_size");
  if (grid[0] < 0 || grid[1] < 0 || grid[2] < 0)
    return failLaunch("negative grid size");
  if (info.dynamicSharedMemory >= 0 && f[info.dynamicSharedMemory] != 0)
    return failLaunch("dynamic shared memory is not supported");
  if (kernel.workgroupMemoryBytes > ex.program.ldsLimitBytes)
    return failLaunch("kernel @" + kernel.name + " uses " +
                      Twine(kernel.workgroupMemoryBytes) +
                      " bytes of workgroup memory; " + ex.options.chip +
                      " has " + Twine(ex.program.ldsLimitBytes));
  // The kernel's arguments, words in argument order.
  SmallVector<uint64_t, 128> arguments;
  for (auto [slot, words] : llvm::zip(info.arguments, info.argumentWords))
    arguments.append(f + slot, f + slot + words);
  if (failed(ex.launch(kernel, grid, block, arguments)))
    return Step::Failed;
  return Step::Next;
}

LogicalResult compileLaunch(OpCompiler &c, Operation *operation) {
  auto op = cast<gpu::LaunchFuncOp>(operation);
  if (!c.host)
    return c.fail(op, "kernels cannot launch kernels");
  std::string kernelName = (op.getKernelModuleName().getValue() +
                            "::" + op.getKernelName().getValue())
                               .str();
  auto found = c.program.kernelIndex.find(kernelName);
  if (found == c.program.kernelIndex.end())
    return c.fail(op, "unknown kernel @" + kernelName);
  if (op.hasClusterSize() || op.getAsyncToken())
    return c.fail(op, "clusters and async launches are not supported");
  LaunchInfo info;
  info.kernel = found->second;
  gpu::KernelDim3 grid = op.getGridSizeOperandValues();
  gpu::KernelDim3 block = op.getBlockSizeOperandValues();
  info.grid = {c.use(grid.x), c.use(grid.y), c.use(grid.z)};
  info.block = {c.use(block.x), c.use(block.y), c.use(block.z)};
  if (Value shared = op.getDynamicSharedMemorySize())
    info.dynamicSharedMemory = c.use(shared);
  for (Value argument : op.getKernelOperands()) {
    info.arguments.push_back(c.use(argument));
    info.argumentWords.push_back(wordsOf(argument.getType()));
  }
  // The kernel copies its arguments out of the launch's words: they must
  // agree word for word (kernels are compiled before host functions).
  const Function &kernel = c.program.functions[found->second];
  if (kernel.argumentWords != info.argumentWords)
    return c.fail(op, "the launch's " + Twine(info.argumentWords.size()) +
                          " operands do not match the " +
                          Twine(kernel.argumentWords.size()) +
                          " arguments of kernel @" + kernelName);
  c.attach(c.emit(executeLaunch, op), std::move(info));
  return success();
}

} // namespace

LogicalResult mlir::pa::emulator::detail::compileBarrier(OpCompiler &c,
                                                         Operation *op) {
  if (failed(c.kernelOnly(op)))
    return failure();
  c.emit(executeBarrier, op);
  return success();
}

void mlir::pa::emulator::detail::registerGPUHandlers(OpRegistry &r) {
  using namespace gpu;
  r.add<ThreadIdOp>(compileIndex<executeThreadId>);
  r.add<BlockIdOp>(compileIndex<executeUniform<blockId>>);
  r.add<BlockDimOp>(compileIndex<executeUniform<blockDim>>);
  r.add<GridDimOp>(compileIndex<executeUniform<gridDim>>);
  r.add<LaneIdOp>(compileIndex<executeLaneId>);
  r.add<SubgroupIdOp>(compileIndex<executeUniform<subgroupId>>);
  r.add<NumSubgroupsOp>(compileIndex<executeUniform<numSubgroups>>);
  r.add<SubgroupSizeOp>(compileIndex<executeUniform<subgroupSize>>);
  r.add<ShuffleOp>(compileShuffle);
  r.add<BarrierOp>(compileBarrier);
  r.add<LaunchFuncOp>(compileLaunch);
}
