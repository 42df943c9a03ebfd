//===- Wrap.cpp - conversions shared by the C API's files -----------------===//
#include "Wrap.h"

#include "pa/API/HostProgram.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::pa;

bool capi::unwrapModuleText(PaStringRef text, llvm::StringRef &result,
                            std::string &error) {
  if (!text.data) {
    error = "no module text given";
    return false;
  }
  result = llvm::StringRef(text.data, text.length);
  if (size_t nul = result.find('\0'); nul != llvm::StringRef::npos) {
    error = "the module text holds a NUL byte at offset " +
            std::to_string(nul) + " (of " + std::to_string(text.length) +
            " bytes)";
    return false;
  }
  return true;
}

bool capi::unwrapConfig(const PaDecodeConfig *c, DecodeConfig &config,
                        std::string &error) {
  if (!c) {
    error = "no configuration given";
    return false;
  }
  return fromCConfig(*c, config, error);
}

std::string capi::checkBuffersAbi(const PaHostBuffers &buffers) {
  return ::pa::capi::checkStructAbi(buffers.abi, PA_HOST_BUFFERS_ABI,
                                    "PaHostBuffers", "PA_HOST_BUFFERS_ABI",
                                    "pa-c/Decode.h");
}

HostBuffers capi::unwrapBuffers(const PaHostBuffers &c) {
  HostBuffers buffers;
  buffers.batch = c.batch;
  buffers.numPages = c.numPages;
  buffers.maxPagesPerSequence = c.maxPagesPerSequence;
  buffers.capacity = c.capacity;
  buffers.query = c.query;
  buffers.keyCache = c.keyCache;
  buffers.valueCache = c.valueCache;
  buffers.keyPageStride = c.keyPageStride;
  buffers.valuePageStride = c.valuePageStride;
  buffers.blockTables = c.blockTables;
  buffers.contextLengths = c.contextLengths;
  buffers.kScale = c.kScale;
  buffers.vScale = c.vScale;
  buffers.sinks = c.sinks;
  buffers.alibiSlopes = c.alibiSlopes;
  buffers.lse = c.lse;
  buffers.workInfo = c.workInfo;
  buffers.reduceInfo = c.reduceInfo;
  buffers.expSums = c.expSums;
  buffers.maxLogits = c.maxLogits;
  buffers.tmpOut = c.tmpOut;
  buffers.output = c.output;
  return buffers;
}

namespace {
/// The C enum value `value` of PaCompileOptions.`field` (C type `type`) as
/// `values[value]`; false with a message when it is none of them.
template <typename Enum>
bool unwrapEnum(int32_t value, ArrayRef<Enum> values, llvm::StringRef field,
                llvm::StringRef type, Enum &result, std::string &message) {
  if (value < 0 || value >= static_cast<int32_t>(values.size())) {
    message = ("PaCompileOptions." + field + " " + llvm::Twine(value) +
               " is not a " + type + " (0 to " +
               llvm::Twine(values.size() - 1) + ")")
                  .str();
    return false;
  }
  result = values[value];
  return true;
}
} // namespace

bool capi::unwrapOptions(const PaCompileOptions *options,
                         CompileOptions &result, std::string &message) {
  result = CompileOptions();
  if (!options)
    return true;
  if (options->codeObjectVersion != 0)
    result.codeObjectVersion = options->codeObjectVersion;
  result.keepStages = options->keepStages;
  // Indexed by PA_FP8_RESIDUAL_*, PA_CACHE_OFFSETS_* and PA_KEY_PREFETCH_*.
  const Fp8Residual residuals[] = {Fp8Residual::queryAndProbabilities,
                                   Fp8Residual::probabilities,
                                   Fp8Residual::none};
  const CacheOffsets offsets[] = {CacheOffsets::automatic,
                                  CacheOffsets::only64Bit};
  const KeyPrefetch prefetches[] = {KeyPrefetch::automatic, KeyPrefetch::none,
                                    KeyPrefetch::nextTile};
  return unwrapEnum<Fp8Residual>(options->fp8Residual, residuals,
                                 "fp8Residual", "PaFp8Residual",
                                 result.fp8Residual, message) &&
         unwrapEnum<CacheOffsets>(options->cacheOffsets, offsets,
                                  "cacheOffsets", "PaCacheOffsets",
                                  result.cacheOffsets, message) &&
         unwrapEnum<KeyPrefetch>(options->keyPrefetch, prefetches,
                                 "keyPrefetch", "PaKeyPrefetch",
                                 result.keyPrefetch, message);
}

PaArtifact capi::wrapArtifact(FailureOr<CompiledKernels> compiled,
                              const std::string &message, PaString *error) {
  if (failed(compiled)) {
    report(error, message);
    return {nullptr};
  }
  return {new CompiledKernels(std::move(*compiled))};
}
