//===- ISAExecutor.cpp - C API: decode on the instruction executor --------===//
#include "pa-c/ISAExecutor.h"

#include "Wrap.h"
#include "pa/API/ISAExecutedProgram.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::capi;

namespace {
ISAExecutedProgram *unwrap(PaISAProgram program) {
  return static_cast<ISAExecutedProgram *>(program.ptr);
}
} // namespace

PaISAProgram paISAProgramCreate(const PaDecodeConfig *c, PaString *error) {
  return createProgram<PaISAProgram, ISAExecutedProgram>(c, error);
}

void paISAProgramDestroy(PaISAProgram program) { delete unwrap(program); }

int64_t paISAProgramPlanCapacity(PaISAProgram program, int64_t batch) {
  return programPlanCapacity(unwrap(program), batch);
}

bool paISAProgramRun(PaISAProgram program, const PaHostBuffers *buffers,
                     PaString *error) {
  return runProgram(unwrap(program), buffers, error, "paISAProgramRun");
}
