//===- Compile.cpp - C API: GPU code objects, with stages -----------------===//
#include "pa-c/Compile.h"

#include "Wrap.h"
#include "pa/API/Compile.h"
#include "pa/Runtime/ProgramArtifact.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::capi;

namespace {

CompiledKernels *unwrap(PaArtifact artifact) {
  return static_cast<CompiledKernels *>(artifact.ptr);
}

PaStringRef borrow(const std::string &text) {
  return {text.c_str(), text.size()};
}

/// Stage `index` of `artifact`, or null.
const CompileStage *stageAt(PaArtifact artifact, intptr_t index) {
  if (!artifact.ptr || index < 0 ||
      static_cast<size_t>(index) >= unwrap(artifact)->stages.size())
    return nullptr;
  return &unwrap(artifact)->stages[index];
}
} // namespace

PaCompileOptions paCompileOptionsGetDefault(void) {
  CompileOptions defaults;
  return {defaults.codeObjectVersion, defaults.keepStages,
          PA_FP8_RESIDUAL_QUERY_AND_P, PA_CACHE_OFFSETS_AUTO,
          PA_KEY_PREFETCH_AUTO};
}

PaArtifact paCompileConfig(const PaDecodeConfig *c,
                           const PaCompileOptions *options, PaString *error) {
  clear(error);
  DecodeConfig config;
  CompileOptions compileOptions;
  std::string message;
  if (!unwrapConfig(c, config, message) ||
      !unwrapOptions(options, compileOptions, message)) {
    report(error, message);
    return {nullptr};
  }
  return wrapArtifact(compileDecode(config, compileOptions, message), message,
                      error);
}

PaArtifact paCompileText(PaStringRef mlirText, const char *chip,
                         const PaCompileOptions *options,
                         const char *bufferName, PaString *error) {
  clear(error);
  if (!mlirText.data || !chip) {
    report(error, "paCompileText needs module text and a chip");
    return {nullptr};
  }
  CompileOptions compileOptions;
  std::string message;
  llvm::StringRef text;
  if (!unwrapModuleText(mlirText, text, message) ||
      !unwrapOptions(options, compileOptions, message)) {
    report(error, message);
    return {nullptr};
  }
  return wrapArtifact(compileModuleText(text, chip, compileOptions,
                                      message,
                                      bufferName ? bufferName : "input"),
                    message, error);
}

void paArtifactDestroy(PaArtifact artifact) { delete unwrap(artifact); }

PaStringRef paArtifactGetChip(PaArtifact artifact) {
  return artifact.ptr ? borrow(unwrap(artifact)->chip)
                      : PaStringRef{nullptr, 0};
}

PaStringRef paArtifactGetFormat(PaArtifact artifact) {
  return artifact.ptr ? borrow(unwrap(artifact)->format)
                      : PaStringRef{nullptr, 0};
}

PaStringRef paArtifactGetCodeObject(PaArtifact artifact) {
  return artifact.ptr ? borrow(unwrap(artifact)->codeObject)
                      : PaStringRef{nullptr, 0};
}

PaStringRef paArtifactGetMetadata(PaArtifact artifact) {
  return artifact.ptr ? borrow(unwrap(artifact)->metadataJson)
                      : PaStringRef{nullptr, 0};
}

intptr_t paArtifactGetNumStages(PaArtifact artifact) {
  return artifact.ptr ? static_cast<intptr_t>(unwrap(artifact)->stages.size())
                      : 0;
}

PaStringRef paArtifactGetStageName(PaArtifact artifact, intptr_t index) {
  const CompileStage *stage = stageAt(artifact, index);
  return stage ? borrow(stage->name) : PaStringRef{nullptr, 0};
}

PaStringRef paArtifactGetStageText(PaArtifact artifact, intptr_t index) {
  const CompileStage *stage = stageAt(artifact, index);
  return stage ? borrow(stage->text) : PaStringRef{nullptr, 0};
}

bool paArtifactWriteProgram(PaArtifact artifact, const char *path,
                            const char *configJson, PaString *error) {
  clear(error);
  if (!artifact.ptr || !path) {
    report(error, "paArtifactWriteProgram needs an artifact and a path");
    return false;
  }
  const CompiledKernels &compiled = *unwrap(artifact);
  ::pa::runtime::ProgramArtifact program;
  program.chip = compiled.chip;
  program.codeFormat = compiled.format;
  program.codeObject = compiled.codeObject;
  program.metadataJson = compiled.metadataJson;
  program.configJson = configJson ? configJson : "";
  std::string message;
  if (::pa::runtime::writeProgram(path, program, message))
    return true;
  report(error, message);
  return false;
}

int64_t paDecodeConfigPlanCapacity(const PaDecodeConfig *c, int64_t batch) {
  DecodeConfig config;
  std::string message;
  if (batch < 0 || !unwrapConfig(c, config, message) ||
      !config.validate().empty())
    return -1;
  return config.planCapacity(batch);
}

bool paDecodeConfigGetPlanLimits(const PaDecodeConfig *c, int64_t *budget,
                                 int64_t *maxPartitions) {
  DecodeConfig config;
  std::string message;
  if (!budget || !maxPartitions || !unwrapConfig(c, config, message) ||
      !config.validate().empty())
    return false;
  *budget = config.effectiveBudget();
  *maxPartitions = config.effectiveMaxPartitions();
  return true;
}
