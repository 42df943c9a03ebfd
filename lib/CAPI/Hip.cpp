//===- Hip.cpp - C API: decode programs on AMD GPUs through HIP -----------===//
#include "pa-c/Hip.h"

#include "Wrap.h"
#include "pa/API/Compile.h"
#include "pa/API/HostProgram.h"
#include "pa/Runtime/HipLauncher.h"
#include "pa/Target/Chip.h"

#include <optional>

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::capi;
using ::pa::runtime::HipProgram;
using ::pa::runtime::HipRuntime;
using ::pa::runtime::OperandViews;

namespace {

/// A loaded program and, when it was compiled here, its configuration
/// (what host-buffer runs need for the operand shapes).
struct HipDecodeProgram {
  std::unique_ptr<HipProgram> program;
  std::optional<DecodeConfig> config;
};

HipDecodeProgram *unwrap(PaHipProgram program) {
  return static_cast<HipDecodeProgram *>(program.ptr);
}

/// Checks `buffers` against `config`, then runs `program` on copies of
/// them in device memory (the host-buffer run shared with the CUDA C API).
bool runOnHostBuffers(const HipProgram &program, const DecodeConfig &config,
                      const HostBuffers &buffers, std::string &error) {
  if (std::string problem = checkHostBuffers(config, buffers);
      !problem.empty()) {
    error = std::move(problem);
    return false;
  }
  std::vector<::pa::runtime::HostOperand> operands;
  for (const DecodeOperand &operand : decodeOperands(config, buffers))
    operands.push_back({operand.name, operand.data,
                        std::vector<int64_t>(operand.sizes.begin(),
                                             operand.sizes.end()),
                        operand.elementBytes, operand.readOnly});
  return ::pa::runtime::runOnHostOperands(
      program.runtime(), operands,
      [&](void *stream, const OperandViews &views, std::string &e) {
        return program.enqueue(stream, views, e);
      },
      error);
}
} // namespace

bool paHipRuntimeAvailable(PaString *reason) {
  clear(reason);
  std::string message;
  if (HipRuntime::get(message))
    return true;
  report(reason, message);
  return false;
}

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
  const HipRuntime *hip = HipRuntime::get(message);
  if (!hip) {
    report(error, message);
    return {nullptr};
  }
  FailureOr<CompiledKernels> compiled =
      compileDecode(config, CompileOptions(), message);
  if (failed(compiled)) {
    report(error, message);
    return {nullptr};
  }
  std::unique_ptr<HipProgram> program = HipProgram::load(
      *hip, compiled->codeObject, compiled->metadataJson, message);
  if (!program) {
    report(error, message);
    return {nullptr};
  }
  return {new HipDecodeProgram{std::move(program), config}};
}

PaHipProgram paHipProgramLoad(const void *codeObject, size_t codeObjectSize,
                              const char *metadataJson, PaString *error) {
  clear(error);
  if (!codeObject || !metadataJson) {
    report(error, "paHipProgramLoad needs a code object and its metadata");
    return {nullptr};
  }
  std::string message;
  const HipRuntime *hip = HipRuntime::get(message);
  if (!hip) {
    report(error, message);
    return {nullptr};
  }
  std::unique_ptr<HipProgram> program = HipProgram::load(
      *hip,
      std::string(static_cast<const char *>(codeObject), codeObjectSize),
      metadataJson, message);
  if (!program) {
    report(error, message);
    return {nullptr};
  }
  return {new HipDecodeProgram{std::move(program), std::nullopt}};
}

void paHipProgramDestroy(PaHipProgram program) { delete unwrap(program); }

bool paHipProgramEnqueue(PaHipProgram program, const PaDeviceOperand *operands,
                         size_t count, void *stream, PaString *error) {
  clear(error);
  if (!program.ptr) {
    report(error, "paHipProgramEnqueue needs a program and its operands");
    return false;
  }
  OperandViews views;
  std::string message;
  if (!unwrapDeviceOperands(operands, count, views, message) ||
      !unwrap(program)->program->enqueue(stream, views, message)) {
    report(error, message);
    return false;
  }
  return true;
}

bool paHipProgramRun(PaHipProgram program, const PaHostBuffers *buffers,
                     PaString *error) {
  clear(error);
  if (!program.ptr || !buffers) {
    report(error, "paHipProgramRun needs a program and buffers");
    return false;
  }
  HipDecodeProgram &hip = *unwrap(program);
  if (!hip.config) {
    report(error, "paHipProgramRun needs a program made by "
                  "paHipProgramCreate (its configuration gives the operand "
                  "shapes); use paHipProgramEnqueue");
    return false;
  }
  std::string message;
  if (!runOnHostBuffers(*hip.program, *hip.config, unwrapBuffers(*buffers),
                        message)) {
    report(error, message);
    return false;
  }
  return true;
}
