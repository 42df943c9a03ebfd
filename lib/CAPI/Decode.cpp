//===- Decode.cpp - C API of the pa-mlir host runtime ---------------------===//
#include "pa-c/Decode.h"

#include "Wrap.h"
#include "pa/API/HostProgram.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::pa;

using namespace mlir::pa::capi;

namespace {

HostProgram *unwrap(PaHostProgram program) {
  return static_cast<HostProgram *>(program.ptr);
}

} // namespace

PaDecodeConfig paDecodeConfigGetDefault(void) {
  static const DecodeConfig defaults;
  PaDecodeConfig c = toCConfig(defaults);
  c.chip = nullptr; // the default chip, without pointing into `defaults`
  return c;
}

PaHostProgram paHostProgramCreate(const PaDecodeConfig *c, PaString *error) {
  return createProgram<PaHostProgram, HostProgram>(c, error);
}

void paHostProgramDestroy(PaHostProgram program) { delete unwrap(program); }

int64_t paHostProgramPlanCapacity(PaHostProgram program, int64_t batch) {
  return programPlanCapacity(unwrap(program), batch);
}

bool paHostProgramRun(PaHostProgram program, const PaHostBuffers *b,
                      PaString *error) {
  return runProgram(unwrap(program), b, error, "paHostProgramRun");
}

bool paVerifyText(PaStringRef mlirText, PaString *error) {
  clear(error);
  std::string message;
  llvm::StringRef text;
  if (!unwrapModuleText(mlirText, text, message) ||
      failed(verifyModuleText(text, message))) {
    report(error, message);
    return false;
  }
  return true;
}

bool paCompileToHostText(const PaDecodeConfig *c, PaString *module,
                         PaString *error) {
  clear(error);
  clear(module);
  DecodeConfig config;
  std::string message;
  if (!unwrapConfig(c, config, message)) {
    report(error, message);
    return false;
  }
  FailureOr<std::string> text = lowerDecodeToHostText(config, message);
  if (failed(text)) {
    report(error, message);
    return false;
  }
  report(module, *text);
  return true;
}
