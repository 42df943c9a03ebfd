//===- CAPISupport.cpp - what both C libraries share ----------------------===//
#include "CAPISupport.h"

#include <cstdlib>
#include <cstring>

void paStringDestroy(PaString string) { std::free(string.data); }

PaString pa::capi::makeString(const std::string &text) {
  PaString string{static_cast<char *>(std::malloc(text.size() + 1)),
                  text.size()};
  if (!string.data)
    return {nullptr, 0};
  std::memcpy(string.data, text.c_str(), text.size() + 1);
  return string;
}

void pa::capi::report(PaString *out, const std::string &text) {
  if (out)
    *out = makeString(text);
}

void pa::capi::clear(PaString *out) {
  if (out)
    *out = {nullptr, 0};
}

bool pa::capi::unwrapDeviceOperands(const PaDeviceOperand *operands,
                                    size_t count,
                                    runtime::OperandViews &views,
                                    std::string &error) {
  views.clear();
  if (count && !operands) {
    error = "no operands (NULL) for a count of " + std::to_string(count);
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    const PaDeviceOperand &operand = operands[i];
    if (!operand.name || operand.rank < 0 ||
        (operand.rank > 0 && !operand.sizes)) {
      error = "operand " + std::to_string(i) + " needs a name and rank sizes";
      return false;
    }
    views[operand.name] = runtime::rowMajorView(
        operand.address,
        std::vector<int64_t>(operand.sizes, operand.sizes + operand.rank));
  }
  return true;
}

bool pa::capi::unwrapHostOperands(const PaHostOperand *operands, size_t count,
                                  std::vector<runtime::HostOperand> &out,
                                  std::string &error) {
  if (count && !operands) {
    error = "no operands (NULL) for a count of " + std::to_string(count);
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    const PaHostOperand &operand = operands[i];
    if (!operand.name || operand.rank < 0 ||
        (operand.rank > 0 && !operand.sizes)) {
      error = "operand " + std::to_string(i) + " needs a name and rank sizes";
      return false;
    }
    out.push_back({operand.name, operand.data,
                   std::vector<int64_t>(operand.sizes,
                                        operand.sizes + operand.rank),
                   operand.elementBytes, operand.readOnly});
  }
  return true;
}

bool pa::capi::readProgramFor(const char *path, bool amd,
                              runtime::ProgramArtifact &out,
                              std::string &error) {
  if (!path) {
    error = "no program path (NULL)";
    return false;
  }
  if (!runtime::readProgram(path, out, error))
    return false;
  if (out.isAMD() == amd)
    return true;
  error = std::string(path) + " is a program for " + out.chip + " (" +
          out.codeFormat + "); load it with " +
          (amd ? "paCudaProgramLoadFile" : "paHipProgramLoadFile");
  return false;
}
