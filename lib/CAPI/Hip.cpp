//===- Hip.cpp - C API: compile, then launch with the runtime library -----===//
//
// libPACAPI.so's HIP entry points compile and hand the code object to
// libPARuntimeCAPI.so (pa-c/Hip.h), which this library links: one HIP
// launcher, one loaded HIP runtime per process, and programs that the
// runtime's calls accept whichever library made them.
//
//===----------------------------------------------------------------------===//
#include "pa-c/Compile.h"

#include "Wrap.h"
#include "pa/API/Compile.h"
#include "pa/API/HostProgram.h"
#include "pa/IR/Chip.h"

#include <optional>

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::capi;

PaHipProgram paHipProgramCreate(const PaDecodeConfig *c, PaString *error) {
  clear(error);
  std::string message;
  DecodeConfig config;
  if (!unwrapConfig(c, config, message)) {
    report(error, message);
    return {nullptr};
  }
  std::optional<ChipInfo> chip = lookupChip(config.chip);
  if (chip && chip->vendor != Vendor::AMD) {
    report(error, "chip " + config.chip +
                      " is not an AMD chip; the HIP launcher runs gfx942 and "
                      "gfx950 code objects");
    return {nullptr};
  }
  // Before compiling: without a runtime there is nothing to run it on.
  PaString reason;
  if (!paHipRuntimeAvailable(&reason)) {
    if (error)
      *error = reason;
    else
      paStringDestroy(reason);
    return {nullptr};
  }
  FailureOr<CompiledKernels> compiled =
      compileDecode(config, CompileOptions(), message);
  if (failed(compiled)) {
    report(error, message);
    return {nullptr};
  }
  return paHipProgramLoad(compiled->codeObject.data(),
                          compiled->codeObject.size(),
                          compiled->metadataJson.c_str(), error);
}

bool paHipProgramRunBuffers(PaHipProgram program, const PaDecodeConfig *c,
                            const PaHostBuffers *buffers, PaString *error) {
  clear(error);
  std::string message;
  DecodeConfig config;
  if (!program.ptr || !buffers || !c) {
    report(error, "paHipProgramRunBuffers needs a program, its configuration "
                  "and buffers");
    return false;
  }
  message = checkBuffersAbi(*buffers);
  if (!message.empty() || !unwrapConfig(c, config, message)) {
    report(error, message);
    return false;
  }
  HostBuffers host = unwrapBuffers(*buffers);
  if (std::string problem = checkHostBuffers(config, host); !problem.empty()) {
    report(error, problem);
    return false;
  }
  auto operands = decodeOperands(config, host);
  std::vector<PaHostOperand> described;
  for (const DecodeOperand &operand : operands)
    described.push_back({PA_HOST_OPERAND_ABI, operand.name,
                         const_cast<void *>(operand.data),
                         static_cast<int32_t>(operand.sizes.size()),
                         operand.sizes.data(), operand.elementBytes,
                         operand.readOnly,
                         operand.strides.empty() ? nullptr
                                                 : operand.strides.data()});
  return paHipProgramRun(program, described.data(), described.size(), error);
}
