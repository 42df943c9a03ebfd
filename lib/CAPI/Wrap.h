//===- Wrap.h - conversions shared by the C API's files ---------*- C++ -*-===//
#ifndef PA_LIB_CAPI_WRAP_H
#define PA_LIB_CAPI_WRAP_H

#include "CAPISupport.h"
#include "pa-c/Compile.h"
#include "pa-c/Decode.h"
#include "pa/API/Compile.h"
#include "pa/API/DecodeConfig.h"
#include "pa/API/HostProgram.h"

#include <string>

namespace mlir::pa::capi {

// Shared with libPARuntimeCAPI.so.
using ::pa::capi::clear;
using ::pa::capi::makeString;
using ::pa::capi::report;
using ::pa::capi::unwrapDeviceOperands;

/// The C++ configuration of `c`; false with `error` for a null pointer or
/// out-of-range enums.
bool unwrapConfig(const PaDecodeConfig *c, DecodeConfig &config,
                  std::string &error);

/// The module text of `text`; false with `error` for a null pointer or a
/// NUL byte inside it (a C string would have silently ended there).
bool unwrapModuleText(PaStringRef text, llvm::StringRef &result,
                      std::string &error);

/// The C++ view of the caller's buffers (the same pointers).
HostBuffers unwrapBuffers(const PaHostBuffers &buffers);

/// Empty when `buffers` has this library's layout (PA_HOST_BUFFERS_ABI),
/// else why they are refused (checkStructAbi).
std::string checkBuffersAbi(const PaHostBuffers &buffers);

/// The C++ options of `options` (the defaults for NULL); false with the
/// reason in `message` for a value outside its enum.
bool unwrapOptions(const PaCompileOptions *options, CompileOptions &result,
                   std::string &message);

/// The artifact of a compile, or null with `message` reported in `error`.
PaArtifact wrapArtifact(FailureOr<CompiledKernels> compiled,
                        const std::string &message, PaString *error);

/// `Program::compile` of the configuration `c` (HostProgram,
/// EmulatedProgram) as a C handle, or null with the reason in `error`.
template <typename Handle, typename Program>
Handle createProgram(const PaDecodeConfig *c, PaString *error) {
  clear(error);
  DecodeConfig config;
  std::string message;
  if (!unwrapConfig(c, config, message)) {
    report(error, message);
    return {nullptr};
  }
  FailureOr<std::unique_ptr<Program>> program =
      Program::compile(config, message);
  if (failed(program)) {
    report(error, message);
    return {nullptr};
  }
  return {program->release()};
}

/// `program->planCapacity(batch)`, or -1 for a null program or a negative
/// batch (as paDecodeConfigPlanCapacity), never a negative capacity.
template <typename Program>
int64_t programPlanCapacity(const Program *program, int64_t batch) {
  return program && batch >= 0 ? program->planCapacity(batch) : -1;
}

/// `program->run` on the caller's `buffers`; false with the reason in
/// `error` (`entryPoint` names the C function for a null argument).
template <typename Program>
bool runProgram(const Program *program, const PaHostBuffers *buffers,
                PaString *error, const char *entryPoint) {
  clear(error);
  if (!program || !buffers) {
    report(error, std::string(entryPoint) + " needs a program and buffers");
    return false;
  }
  std::string message = checkBuffersAbi(*buffers);
  if (!message.empty() ||
      failed(program->run(unwrapBuffers(*buffers), message))) {
    report(error, message);
    return false;
  }
  return true;
}

} // namespace mlir::pa::capi

#endif // PA_LIB_CAPI_WRAP_H
