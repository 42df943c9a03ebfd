//===- Runtime.cpp - C API of the runtime library: what needs no driver ---===//
#include "pa-c/Runtime.h"

#include "CAPISupport.h"
#include "pa/Runtime/DecodeOperands.h"
#include "pa/Runtime/ProgramArtifact.h"

using namespace pa::capi;

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

bool paProgramWrite(const char *path, const char *chip, const char *codeFormat,
                    const void *codeObject, size_t codeObjectSize,
                    const char *metadataJson, const char *configJson,
                    PaString *error) {
  clear(error);
  if (!path || !chip || !codeFormat || (!codeObject && codeObjectSize) ||
      !metadataJson) {
    report(error, "paProgramWrite needs a path, a chip, a code format, the "
                  "code object and its metadata");
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
  if (pa::runtime::writeProgram(path, program, message))
    return true;
  report(error, message);
  return false;
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
