//===- Emulator.cpp - the emulator's public entry points ------------------===//
#include "pa/Emulator/Emulator.h"

#include "Bytecode.h"

using namespace mlir;
using namespace mlir::pa::emulator;

MemRefBinding MemRefBinding::rowMajor(void *data, ArrayRef<int64_t> sizes,
                                      int64_t elementBytes, std::string name,
                                      bool readOnly) {
  MemRefBinding binding;
  binding.data = data;
  binding.name = std::move(name);
  binding.readOnly = readOnly;
  binding.sizes.assign(sizes.begin(), sizes.end());
  binding.strides.assign(sizes.size(), 1);
  int64_t elements = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    binding.strides[d] = elements;
    elements *= sizes[d];
  }
  binding.bytes = elements * elementBytes;
  return binding;
}

Stats &Stats::operator+=(const Stats &other) {
  waveInstructions += other.waveInstructions;
  laneInstructions += other.laneInstructions;
  launches += other.launches;
  workgroups += other.workgroups;
  barriers += other.barriers;
  mfmas += other.mfmas;
  maskedBufferAccesses += other.maskedBufferAccesses;
  seconds += other.seconds;
  return *this;
}

Program::Program(std::unique_ptr<ProgramImpl> impl) : impl(std::move(impl)) {}
Program::~Program() = default;

FailureOr<std::unique_ptr<Program>>
Program::compile(ModuleOp module, const Options &options, std::string &error) {
  auto impl = std::make_unique<ProgramImpl>();
  impl->options = options;
  if (failed(compileModule(module, *impl, error)))
    return failure();
  return std::unique_ptr<Program>(new Program(std::move(impl)));
}

const Options &Program::options() const { return impl->options; }

LogicalResult Program::run(StringRef function,
                           ArrayRef<MemRefBinding> arguments,
                           std::string &error, Stats *stats) const {
  auto found = impl->functionIndex.find(function);
  if (found == impl->functionIndex.end()) {
    error = ("emulator: no host function @" + function).str();
    return failure();
  }
  Stats local;
  LogicalResult result = executeProgram(
      *impl, impl->functions[found->second], arguments, error, local);
  if (stats)
    *stats += local;
  return result;
}
