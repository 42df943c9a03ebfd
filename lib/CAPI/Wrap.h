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

/// The C++ view of the caller's buffers (the same pointers).
HostBuffers unwrapBuffers(const PaHostBuffers &buffers);

/// The C++ options of `options` (the defaults for NULL).
CompileOptions unwrapOptions(const PaCompileOptions *options);

/// The artifact of a compile, or null with `message` reported in `error`.
PaArtifact wrapArtifact(FailureOr<CompiledKernels> compiled,
                        const std::string &message, PaString *error);

} // namespace mlir::pa::capi

#endif // PA_LIB_CAPI_WRAP_H
