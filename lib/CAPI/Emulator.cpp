//===- Emulator.cpp - C API: decode on the wave64 emulator ----------------===//
#include "pa-c/Emulator.h"

#include "Wrap.h"
#include "pa/API/EmulatedProgram.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::capi;

namespace {
EmulatedProgram *unwrap(PaEmulatedProgram program) {
  return static_cast<EmulatedProgram *>(program.ptr);
}
} // namespace

PaEmulatedProgram paEmulatedProgramCreate(const PaDecodeConfig *c,
                                          PaString *error) {
  clear(error);
  DecodeConfig config;
  std::string message;
  if (!unwrapConfig(c, config, message)) {
    report(error, message);
    return {nullptr};
  }
  FailureOr<std::unique_ptr<EmulatedProgram>> program =
      EmulatedProgram::compile(config, message);
  if (failed(program)) {
    report(error, message);
    return {nullptr};
  }
  return {program->release()};
}

void paEmulatedProgramDestroy(PaEmulatedProgram program) {
  delete unwrap(program);
}

int64_t paEmulatedProgramPlanCapacity(PaEmulatedProgram program,
                                      int64_t batch) {
  return program.ptr ? unwrap(program)->planCapacity(batch) : 0;
}

bool paEmulatedProgramRun(PaEmulatedProgram program,
                          const PaHostBuffers *buffers, PaString *error) {
  clear(error);
  if (!program.ptr || !buffers) {
    report(error, "paEmulatedProgramRun needs a program and buffers");
    return false;
  }
  std::string message;
  if (failed(unwrap(program)->run(unwrapBuffers(*buffers), message))) {
    report(error, message);
    return false;
  }
  return true;
}
