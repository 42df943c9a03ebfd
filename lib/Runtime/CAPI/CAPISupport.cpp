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

namespace {
/// Sets `view` to operand `index` (address, sizes, strides or row-major),
/// in place; false with `error` when it is malformed.
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
  for (int32_t d = 0; d < operand.rank; ++d)
    if (operand.strides[d] < 0) {
      error = "operand '" + std::string(operand.name) + "' has stride " +
              std::to_string(operand.strides[d]) + " in dim " +
              std::to_string(d) + "; strides must be >= 0";
      return false;
    }
  if (std::strcmp(operand.name, "query") == 0)
    return true;
  // The programs read every other operand row-major (their memref types
  // have the identity layout, so the kernels ignore the strides passed):
  // a view of another layout (a K or V of a combined [N, 2, P, Hkv, D]
  // cache) would be read at the wrong places. Dims of one element may
  // have any stride, as for a contiguous torch tensor.
  int64_t rowMajor = 1;
  for (int32_t d = operand.rank; d-- > 0;) {
    if (operand.sizes[d] != 1 && operand.strides[d] != rowMajor) {
      std::string strides;
      for (int32_t i = 0; i < operand.rank; ++i)
        strides += (i ? ", " : "") + std::to_string(operand.strides[i]);
      error = "operand '" + std::string(operand.name) + "' has strides [" +
              strides + "]; the kernels read it row-major (only the query "
              "may be strided): pass a contiguous copy";
      return false;
    }
    rowMajor *= operand.sizes[d];
  }
  return true;
}
} // namespace

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
