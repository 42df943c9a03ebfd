//===- Runtime.cpp - C API of the runtime library: what needs no driver ---===//
#include "pa-c/Runtime.h"

#include "CAPISupport.h"
#include "pa/Runtime/DecodeOperands.h"
#include "pa/Runtime/ProgramArtifact.h"

#include <algorithm>

using namespace pa::capi;

// The C header's version is the one the library writes and reads.
static_assert(PA_PROGRAM_FORMAT_VERSION == pa::runtime::kProgramFormatVersion,
              "PA_PROGRAM_FORMAT_VERSION (pa-c/Runtime.h) and "
              "pa::runtime::kProgramFormatVersion differ");

bool paDecodeCheckSequences(int64_t pageSize, int64_t queryLength,
                            int64_t slidingWindow, int64_t batch,
                            int64_t numPages, int64_t maxPagesPerSequence,
                            const int32_t *contextLengths,
                            const int32_t *blockTables, PaString *error) {
  clear(error);
  std::string message;
  if (pageSize < 1 || queryLength < 1)
    message = "page size and query length must be >= 1, got " +
              std::to_string(pageSize) + " and " + std::to_string(queryLength);
  else if (batch < 0 || numPages < 0 || maxPagesPerSequence < 0)
    message = "batch, page count and block-table width must be >= 0";
  else if (batch > 0 && (!contextLengths ||
                         (maxPagesPerSequence > 0 && !blockTables)))
    message = "paDecodeCheckSequences needs the context lengths and the "
              "block table";
  else
    message = pa::runtime::checkSequences(
        pageSize, queryLength, slidingWindow, batch, numPages,
        maxPagesPerSequence, contextLengths, blockTables);
  if (message.empty())
    return true;
  report(error, message);
  return false;
}

namespace {
/// Why `config` has no operand table for `batch` sequences, or empty.
std::string operandTableProblem(const PaDecodeConfig &c, int64_t batch) {
  if (c.numQueryHeads < 1 || c.numKVHeads < 1 || c.headDim < 1 ||
      c.pageSize < 1 || c.queryLength < 1)
    return "head counts, head dim, page size and query length must be >= 1";
  if (c.numQueryHeads % c.numKVHeads != 0)
    return "numQueryHeads must be a multiple of numKVHeads";
  // The table's only products: B * Q query rows and Q * G rows per KV head.
  int64_t product;
  if (__builtin_mul_overflow(batch, c.queryLength, &product) ||
      __builtin_mul_overflow(c.queryLength, c.numQueryHeads / c.numKVHeads,
                             &product))
    return "B * Q and Q * Hq / Hkv must be below 2^63";
  auto within = [](int32_t value, int32_t count) {
    return value >= 0 && value < count;
  };
  if (!within(c.kvType, 3) || !within(c.keyLayout, 2) ||
      !within(c.vLayout, 2) || !within(c.kvLayout, 3) ||
      !within(c.scaleMode, 3))
    return "kvType, keyLayout, vLayout, kvLayout and scaleMode must be one "
           "of their enumerators";
  return {};
}
} // namespace

bool paDecodeOperandTable(const PaDecodeConfig *config, int64_t batch,
                          int64_t numPages, int64_t maxPagesPerSequence,
                          int64_t planCapacity, PaOperandShape *operands,
                          size_t *count, PaString *error) {
  clear(error);
  std::string message;
  if (!config || !operands || !count)
    message = "paDecodeOperandTable needs a configuration, an operand array "
              "and a count";
  else if (batch < 0 || numPages < 0 || maxPagesPerSequence < 0 ||
           planCapacity < 0)
    message = "batch, page count, block-table width and plan capacity must "
              "be >= 0";
  else
    message = operandTableProblem(*config, batch);
  if (!message.empty()) {
    report(error, message);
    return false;
  }
  std::vector<pa::runtime::DecodeOperand> table = pa::runtime::decodeOperands(
      *config, {batch, numPages, maxPagesPerSequence, planCapacity});
  static_assert(sizeof(PaOperandShape::sizes) / sizeof(int64_t) == 5);
  for (size_t i = 0; i < table.size(); ++i) {
    const pa::runtime::DecodeOperand &operand = table[i];
    PaOperandShape &shape = operands[i];
    shape = PaOperandShape{};
    shape.name = operand.name;
    shape.pattern = operand.pattern;
    shape.rank = int32_t(operand.sizes.size());
    std::copy(operand.sizes.begin(), operand.sizes.end(), shape.sizes);
    shape.elementBytes = operand.elementBytes;
    shape.readOnly = operand.input;
  }
  *count = table.size();
  return true;
}

namespace {
/// paProgramWrite and paProgramWriteChip: `write` (writeProgram or
/// addProgramChip) of the program the arguments describe.
bool writeProgramWith(
    const char *entryPoint,
    bool (*write)(const std::string &, const pa::runtime::ProgramArtifact &,
                  std::string &),
    const char *path, const char *chip, const char *codeFormat,
    const void *codeObject, size_t codeObjectSize, const char *metadataJson,
    const char *configJson, PaString *error) {
  clear(error);
  if (!path || !chip || !codeFormat || (!codeObject && codeObjectSize) ||
      !metadataJson) {
    report(error, std::string(entryPoint) +
                      " needs a path, a chip, a code format, the code "
                      "object and its metadata");
    return false;
  }
  pa::runtime::ProgramArtifact program;
  program.chip = chip;
  program.codeFormat = codeFormat;
  program.codeObject.assign(static_cast<const char *>(codeObject),
                            codeObjectSize);
  program.metadataJson = metadataJson;
  program.configJson = configJson ? configJson : "";
  std::string message;
  if (write(path, program, message))
    return true;
  report(error, message);
  return false;
}
} // namespace

bool paProgramWrite(const char *path, const char *chip, const char *codeFormat,
                    const void *codeObject, size_t codeObjectSize,
                    const char *metadataJson, const char *configJson,
                    PaString *error) {
  return writeProgramWith("paProgramWrite", pa::runtime::writeProgram, path,
                          chip, codeFormat, codeObject, codeObjectSize,
                          metadataJson, configJson, error);
}

bool paProgramWriteChip(const char *path, const char *chip,
                        const char *codeFormat, const void *codeObject,
                        size_t codeObjectSize, const char *metadataJson,
                        const char *configJson, PaString *error) {
  return writeProgramWith("paProgramWriteChip", pa::runtime::addProgramChip,
                          path, chip, codeFormat, codeObject, codeObjectSize,
                          metadataJson, configJson, error);
}

bool paProgramChips(const char *path, PaString *chips, bool *multiChip,
                    PaString *error) {
  clear(chips);
  clear(error);
  if (!path) {
    report(error, "paProgramChips needs a path");
    return false;
  }
  std::vector<std::string> found;
  bool multi = false;
  std::string message;
  if (!pa::runtime::readProgramChips(path, found, multi, message)) {
    report(error, message);
    return false;
  }
  std::string text;
  for (const std::string &chip : found)
    text += (text.empty() ? "" : " ") + chip;
  report(chips, text);
  if (multiChip)
    *multiChip = multi;
  return true;
}

bool paProgramDescribe(const char *path, PaString *chip, PaString *codeFormat,
                       PaString *configJson, PaString *error) {
  clear(chip);
  clear(codeFormat);
  clear(configJson);
  clear(error);
  pa::runtime::ProgramArtifact program;
  std::string message;
  if (!path) {
    report(error, "paProgramDescribe needs a path");
    return false;
  }
  if (!pa::runtime::readProgram(path, program, message)) {
    report(error, message);
    return false;
  }
  report(chip, program.chip);
  report(codeFormat, program.codeFormat);
  report(configJson, program.configJson);
  return true;
}
