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
  return createProgram<PaEmulatedProgram, EmulatedProgram>(c, error);
}

void paEmulatedProgramDestroy(PaEmulatedProgram program) {
  delete unwrap(program);
}

int64_t paEmulatedProgramPlanCapacity(PaEmulatedProgram program,
                                      int64_t batch) {
  return programPlanCapacity(unwrap(program), batch);
}

bool paEmulatedProgramRun(PaEmulatedProgram program,
                          const PaHostBuffers *buffers, PaString *error) {
  return runProgram(unwrap(program), buffers, error, "paEmulatedProgramRun");
}
