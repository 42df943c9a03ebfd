//===- CAPISupport.cpp - what both C libraries share ----------------------===//
#include "CAPISupport.h"

#include <cstdio>
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

namespace {
/// Sets `view` to operand `index` (address, sizes, strides or row-major),
/// in place; false with `error` when it is malformed or has a negative
/// stride (which strides the kernels read is the sidecar's to say: a pack
/// checks the others, runtime::PackedParams).
bool setDeviceView(const PaDeviceOperand &operand, size_t index,
                   pa::runtime::MemRefView &view, std::string &error) {
  if (!operand.name || operand.rank < 0 ||
      (operand.rank > 0 && !operand.sizes)) {
    error = "operand " + std::to_string(index) + " needs a name and rank sizes";
    return false;
  }
  view.data = operand.address;
  view.offset = 0;
  view.sizes.assign(operand.sizes, operand.sizes + operand.rank);
  if (!operand.strides) {
    pa::runtime::setRowMajorStrides(view);
    return true;
  }
  view.strides.assign(operand.strides, operand.strides + operand.rank);
  return pa::capi::checkStrides(operand.name, view.strides, error);
}
} // namespace

bool pa::capi::checkStrides(const std::string &name,
                            const std::vector<int64_t> &strides,
                            std::string &error) {
  for (size_t d = 0; d < strides.size(); ++d)
    if (strides[d] < 0) {
      error = "operand '" + name + "' has stride " +
              std::to_string(strides[d]) + " in dim " + std::to_string(d) +
              "; strides must be >= 0";
      return false;
    }
  return true;
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
  for (size_t i = 0; i < count; ++i)
    if (!setDeviceView(operands[i], i,
                       views[operands[i].name ? operands[i].name : ""], error))
      return false;
  return true;
}

bool pa::capi::BoundOperands::bind(const PaDeviceOperand *operands,
                                   size_t count, std::string &error) {
  // Launches packed from the views before (their entries are rebuilt).
  launchSets.clear();
  if (!unwrapDeviceOperands(operands, count, operandViews, error))
    return false;
  this->operands = operands;
  this->count = count;
  slots.clear();
  namePointers.clear();
  names.clear();
  for (size_t i = 0; i < count; ++i) {
    slots.push_back(&operandViews[operands[i].name]);
    namePointers.push_back(operands[i].name);
    names.emplace_back(operands[i].name);
  }
  return true;
}

pa::runtime::LaunchSet &
pa::capi::BoundOperands::launches(runtime::KernelMask kernels) {
  for (auto &[mask, set] : launchSets)
    if (mask == kernels)
      return set;
  runtime::LaunchSet &set =
      launchSets.emplace_back(kernels, runtime::LaunchSet()).second;
  // operandViews keeps its entries from bind() on (refreshes write into
  // them), so the parameters are resolved once per kernel.
  set.fixedViews = true;
  return set;
}

bool pa::capi::checkBoundKernels(runtime::KernelMask bound,
                                 runtime::KernelMask kernels,
                                 std::string &error) {
  if (kernels && !(kernels & ~bound))
    return true;
  error = "the kernel mask " + std::to_string(kernels) +
          " selects no kernel or one the launch was not bound to (mask " +
          std::to_string(bound) + ")";
  return false;
}

bool pa::capi::requireOperands(const PaDeviceOperand *operands,
                               const char *entryPoint, PaString *error) {
  clear(error);
  if (operands)
    return true;
  report(error, std::string(entryPoint) + " needs operands (NULL given)");
  return false;
}

bool pa::capi::BoundOperands::refresh(std::string &error) {
  return refreshFrom(operands, count, error);
}

bool pa::capi::BoundOperands::refreshFrom(const PaDeviceOperand *operands,
                                          size_t count, std::string &error) {
  if (count != this->count || (count && !operands)) {
    error = "the launch is bound to " + std::to_string(this->count) +
            " operands; got " + std::to_string(count) +
            (count && !operands ? " (NULL)" : "");
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    const char *name = operands[i].name;
    if (name != namePointers[i] && (!name || names[i] != name)) {
      error = "operand " + std::to_string(i) + " is '" +
              (name ? name : "(no name)") + "' where the launch is bound to '" +
              names[i] + "' (the operands must be a copy of the bound array)";
      return false;
    }
    if (!setDeviceView(operands[i], i, *slots[i], error))
      return false;
  }
  return true;
}

std::string pa::capi::checkStructAbi(uint64_t abi, uint64_t expected,
                                     const char *structName,
                                     const char *macro, const char *header) {
  if (abi == expected)
    return {};
  auto hex = [](uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%016llx",
                  static_cast<unsigned long long>(value));
    return std::string(text);
  };
  return std::string(structName) + ".abi is " + hex(abi) +
         ", not this library's " + macro + " " + hex(expected) +
         ": the caller was compiled against another " + header +
         " (its fields lie elsewhere); rebuild it against this library's "
         "headers and set abi = " + macro;
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
    if (std::string why =
            checkStructAbi(operand.abi, PA_HOST_OPERAND_ABI, "PaHostOperand",
                           "PA_HOST_OPERAND_ABI", "pa-c/Runtime.h");
        !why.empty()) {
      error = "operand " + std::to_string(i) + ": " + why;
      return false;
    }
    if (!operand.name || operand.rank < 0 ||
        (operand.rank > 0 && !operand.sizes)) {
      error = "operand " + std::to_string(i) + " needs a name and rank sizes";
      return false;
    }
    runtime::HostOperand &host = out.emplace_back();
    host.name = operand.name;
    host.data = operand.data;
    host.sizes.assign(operand.sizes, operand.sizes + operand.rank);
    host.elementBytes = operand.elementBytes;
    host.readOnly = operand.readOnly;
    if (operand.strides) {
      host.strides.assign(operand.strides, operand.strides + operand.rank);
      if (!checkStrides(host.name, host.strides, error))
        return false;
    }
  }
  return true;
}

bool pa::capi::programFor(const char *path, bool amd,
                          const DeviceChip &deviceChip,
                          std::string &directory, std::string &chip,
                          std::string &error) {
  if (!path) {
    error = "no program path (NULL)";
    return false;
  }
  std::vector<std::string> chips;
  bool multiChip = false;
  if (!runtime::readProgramChips(path, chips, multiChip, error))
    return false;
  directory = path;
  if (!multiChip) {
    chip = chips.front();
    return true;
  }
  std::string gpuChip;
  if ((amd && !deviceChip(gpuChip, error)) ||
      !runtime::chooseProgramChip(path, chips, amd, gpuChip, chip, error))
    return false;
  directory += "/" + chip;
  return true;
}

bool pa::capi::readProgramFor(const char *path, bool amd,
                              const DeviceChip &deviceChip,
                              runtime::ProgramArtifact &out,
                              std::string &error) {
  std::string directory, chip;
  if (!programFor(path, amd, deviceChip, directory, chip, error) ||
      !runtime::readProgram(directory, out, error))
    return false;
  if (out.isAMD() == amd)
    return true;
  error = directory + " is a program for " + out.chip + " (" +
          out.codeFormat + "); load it with " +
          (amd ? "paCudaProgramLoadFile" : "paHipProgramLoadFile");
  return false;
}
