//===- Decode.cpp - C API of the pa-mlir host runtime ---------------------===//
#include "pa-c/Decode.h"

#include "pa/API/HostProgram.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::pa;

namespace {

PaString makeString(const std::string &text) {
  PaString string{static_cast<char *>(std::malloc(text.size() + 1)),
                  text.size()};
  if (!string.data)
    return {nullptr, 0};
  std::memcpy(string.data, text.c_str(), text.size() + 1);
  return string;
}

/// Stores `text` in `out` when the caller asked for it.
void report(PaString *out, const std::string &text) {
  if (out)
    *out = makeString(text);
}

void clear(PaString *out) {
  if (out)
    *out = {nullptr, 0};
}

HostProgram *unwrap(PaHostProgram program) {
  return static_cast<HostProgram *>(program.ptr);
}

/// `value` as an enumerator of `Enum` when it is in [0, count).
template <typename Enum>
bool enumFromInt(int32_t value, int32_t count, Enum &out) {
  if (value < 0 || value >= count)
    return false;
  out = static_cast<Enum>(value);
  return true;
}

/// The C++ configuration of `c`; false with `error` for out-of-range enums.
bool unwrapConfig(const PaDecodeConfig *c, DecodeConfig &config,
                  std::string &error) {
  if (!c) {
    error = "no configuration given";
    return false;
  }
  config.numQueryHeads = c->numQueryHeads;
  config.numKVHeads = c->numKVHeads;
  config.headDim = c->headDim;
  config.pageSize = c->pageSize;
  config.queryLength = c->queryLength;
  struct EnumField {
    const char *name;
    bool ok;
  };
  ComputeType compute{};
  EnumField fields[] = {
      {"kvType", enumFromInt(c->kvType, 3, config.kvType)},
      {"queryType", enumFromInt(c->queryType, 2, config.queryType)},
      {"keyLayout", enumFromInt(c->keyLayout, 2, config.keyLayout)},
      {"vLayout", enumFromInt(c->vLayout, 2, config.vLayout)},
      {"scaleMode", enumFromInt(c->scaleMode, 3, config.scaleMode)},
      {"computeType", c->computeType == PA_COMPUTE_DEFAULT ||
                          enumFromInt(c->computeType, 2, compute)},
  };
  for (const EnumField &field : fields) {
    if (!field.ok) {
      error = std::string("PaDecodeConfig.") + field.name +
              " is not one of its enumerators";
      return false;
    }
  }
  if (c->computeType != PA_COMPUTE_DEFAULT)
    config.computeType = compute;
  config.slidingWindow = c->slidingWindow;
  if (c->hasSoftmaxScale)
    config.softmaxScale = c->softmaxScale;
  config.hasSinks = c->hasSinks;
  if (c->chip)
    config.chip = c->chip;
  if (c->budget != 0)
    config.budget = c->budget;
  if (c->maxPartitions != 0)
    config.maxPartitions = c->maxPartitions;
  return true;
}
} // namespace

void paStringDestroy(PaString string) { std::free(string.data); }

PaDecodeConfig paDecodeConfigGetDefault(void) {
  DecodeConfig defaults;
  PaDecodeConfig c{};
  c.numQueryHeads = defaults.numQueryHeads;
  c.numKVHeads = defaults.numKVHeads;
  c.headDim = defaults.headDim;
  c.pageSize = defaults.pageSize;
  c.queryLength = defaults.queryLength;
  c.kvType = static_cast<int32_t>(defaults.kvType);
  c.queryType = static_cast<int32_t>(defaults.queryType);
  c.keyLayout = static_cast<int32_t>(defaults.keyLayout);
  c.vLayout = static_cast<int32_t>(defaults.vLayout);
  c.scaleMode = static_cast<int32_t>(defaults.scaleMode);
  c.computeType = PA_COMPUTE_DEFAULT;
  c.slidingWindow = defaults.slidingWindow;
  c.hasSoftmaxScale = false;
  c.softmaxScale = 0.0;
  c.hasSinks = defaults.hasSinks;
  c.chip = nullptr;
  c.budget = 0;
  c.maxPartitions = 0;
  return c;
}

PaHostProgram paHostProgramCreate(const PaDecodeConfig *c, PaString *error) {
  clear(error);
  DecodeConfig config;
  std::string message;
  if (!unwrapConfig(c, config, message)) {
    report(error, message);
    return {nullptr};
  }
  FailureOr<std::unique_ptr<HostProgram>> program =
      HostProgram::compile(config, message);
  if (failed(program)) {
    report(error, message);
    return {nullptr};
  }
  return {program->release()};
}

void paHostProgramDestroy(PaHostProgram program) { delete unwrap(program); }

int64_t paHostProgramPlanCapacity(PaHostProgram program, int64_t batch) {
  return program.ptr ? unwrap(program)->planCapacity(batch) : 0;
}

bool paHostProgramRun(PaHostProgram program, const PaHostBuffers *b,
                      PaString *error) {
  clear(error);
  if (!program.ptr || !b) {
    report(error, "paHostProgramRun needs a program and buffers");
    return false;
  }
  HostBuffers buffers;
  buffers.batch = b->batch;
  buffers.numPages = b->numPages;
  buffers.maxPagesPerSequence = b->maxPagesPerSequence;
  buffers.capacity = b->capacity;
  buffers.query = b->query;
  buffers.keyCache = b->keyCache;
  buffers.valueCache = b->valueCache;
  buffers.blockTables = b->blockTables;
  buffers.contextLengths = b->contextLengths;
  buffers.kScale = b->kScale;
  buffers.vScale = b->vScale;
  buffers.sinks = b->sinks;
  buffers.workInfo = b->workInfo;
  buffers.reduceInfo = b->reduceInfo;
  buffers.expSums = b->expSums;
  buffers.maxLogits = b->maxLogits;
  buffers.tmpOut = b->tmpOut;
  buffers.output = b->output;
  std::string message;
  if (failed(unwrap(program)->run(buffers, message))) {
    report(error, message);
    return false;
  }
  return true;
}

bool paVerifyText(const char *mlirText, PaString *error) {
  clear(error);
  std::string message;
  if (!mlirText) {
    report(error, "no module text given");
    return false;
  }
  if (failed(verifyModuleText(mlirText, message))) {
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
