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
/// Whether `operands` hold a 4-D key_cache: an nhd / hnd program's, whose
/// K and V the kernels read at their run-time page strides (format version
/// 3 on; a packed K is 5-D, and a packed program's kernels take no 4-D
/// key).
/// One rule for device and host operands (both C structs name and rank
/// their operands the same way).
template <typename Operand>
bool hasPagedCaches(const Operand *operands, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (operands[i].name && std::strcmp(operands[i].name, "key_cache") == 0)
      return operands[i].rank == 4;
  return false;
}

/// Sets `view` to operand `index` (address, sizes, strides or row-major),
/// in place; false with `error` when it is malformed or has strides the
/// kernels do not read. `pagedCaches`: K and V are nhd / hnd caches.
bool setDeviceView(const PaDeviceOperand &operand, size_t index,
                   bool pagedCaches, pa::runtime::MemRefView &view,
                   std::string &error) {
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
  return pa::capi::checkStrides(operand.name, view.sizes, view.strides,
                                pagedCaches, error);
}
} // namespace

bool pa::capi::checkStrides(const std::string &name,
                            const std::vector<int64_t> &sizes,
                            const std::vector<int64_t> &strides,
                            bool pagedCaches, std::string &error) {
  auto listed = [&] {
    std::string text;
    for (size_t i = 0; i < strides.size(); ++i)
      text += (i ? ", " : "") + std::to_string(strides[i]);
    return "[" + text + "]";
  };
  for (size_t d = 0; d < strides.size(); ++d)
    if (strides[d] < 0) {
      error = "operand '" + name + "' has stride " +
              std::to_string(strides[d]) + " in dim " + std::to_string(d) +
              "; strides must be >= 0";
      return false;
    }
  // The kernels read dim 0 at its run-time stride for the query (rows of a
  // fused qkv tensor) and for nhd / hnd caches (pages of a combined cache);
  // every other dim, and every dim of the other operands, row-major (their
  // memref types fix those strides, so a view of another layout would be
  // read at the wrong places). Dims of one element may have any stride, as
  // for a contiguous torch tensor.
  bool cache = name == "key_cache" || name == "value_cache";
  size_t fixedFrom = name == "query" || (cache && pagedCaches) ? 1 : 0;
  int64_t rowMajor = 1;
  for (size_t d = sizes.size(); d-- > fixedFrom;) {
    if (sizes[d] != 1 && strides[d] != rowMajor) {
      error = "operand '" + name + "' has strides " + listed() + "; ";
      if (cache && pagedCaches)
        error += "the kernels read an nhd / hnd cache at any page stride "
                 "(dim 0), the dims within a page row-major";
      else if (cache)
        error += "the kernels read a packed cache row-major (nhd / hnd "
                 "caches may have any page stride)";
      else if (name == "query")
        error += "the kernels read the query at any row stride (dim 0), "
                 "its heads and elements row-major";
      else
        error += "the kernels read it row-major";
      error += ": pass a contiguous copy";
      return false;
    }
    rowMajor *= sizes[d];
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
  bool paged = hasPagedCaches(operands, count);
  for (size_t i = 0; i < count; ++i)
    if (!setDeviceView(operands[i], i, paged,
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
  pagedCaches = hasPagedCaches(operands, count);
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
    if (!setDeviceView(operands[i], i, pagedCaches, *slots[i], error))
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
    runtime::HostOperand &host = out.emplace_back();
    host.name = operand.name;
    host.data = operand.data;
    host.sizes.assign(operand.sizes, operand.sizes + operand.rank);
    host.elementBytes = operand.elementBytes;
    host.readOnly = operand.readOnly;
    if (operand.strides)
      host.strides.assign(operand.strides, operand.strides + operand.rank);
  }
  // The strides the kernels read, as for device operands.
  bool paged = hasPagedCaches(operands, count);
  for (const runtime::HostOperand &operand : out)
    if (!operand.strides.empty() &&
        !checkStrides(operand.name, operand.sizes, operand.strides, paged,
                      error))
      return false;
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
