//===- KernelManifest.cpp - launching compiled kernels from metadata ------===//
#include "pa/Runtime/KernelManifest.h"
#include "pa/Runtime/DecodeOperands.h"
#include "pa/Support/PlanCapacity.h"

#include "Json.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>

namespace pa::runtime {
namespace {

/// Splits `param.meaning` into its operand, field and dim index.
bool parseMeaning(KernelParam &param) {
  static const std::regex pattern(
      R"(([A-Za-z_][A-Za-z0-9_]*)\.(allocated_ptr|aligned_ptr|offset|size|stride)(?:\[([0-9]+)\])?)");
  std::smatch match;
  if (!std::regex_match(param.meaning, match, pattern))
    return false;
  param.operand = match[1];
  std::string kind = match[2];
  bool indexed = match[3].matched;
  if (kind == "size" || kind == "stride") {
    if (!indexed)
      return false;
    param.field = kind == "size" ? KernelParam::Field::Size
                                 : KernelParam::Field::Stride;
    param.dim = std::stoll(match[3]);
    return true;
  }
  if (indexed)
    return false;
  param.field = kind == "offset" ? KernelParam::Field::Offset
                                 : KernelParam::Field::Pointer;
  return true;
}

/// "x = work_info dim 0, y = 2, z = 1".
bool parseGrid(const std::string &formula, std::array<GridExtent, 3> &grid) {
  static const std::regex pattern(
      R"(x = (.+), y = (.+), z = (.+))");
  static const std::regex dimOf(R"(([A-Za-z_][A-Za-z0-9_]*) dim ([0-9]+))");
  static const std::regex chosen(
      R"(([0-9]+) if x \* y le ([0-9]+) else ([0-9]+))");
  std::smatch match;
  if (!std::regex_match(formula, match, pattern))
    return false;
  for (int axis = 0; axis < 3; ++axis) {
    std::string extent = match[axis + 1];
    std::smatch dim;
    GridExtent &out = grid[axis];
    if (std::regex_match(extent, dim, dimOf)) {
      out.operand = dim[1];
      out.dim = std::stoll(dim[2]);
      continue;
    }
    if (std::regex_match(extent, dim, chosen)) {
      out.constant = std::stoll(dim[1]);
      out.limit = std::stoll(dim[2]);
      out.otherwise = std::stoll(dim[3]);
      if (axis != 2 || out.limit < 1) // x * y is known only for z
        return false;
      continue;
    }
    if (extent.empty() ||
        extent.find_first_not_of("0123456789") != std::string::npos)
      return false; // "dynamic" or something else a launcher cannot know
    out.constant = std::stoll(extent);
  }
  return true;
}

bool integerField(const json::Value &object, const char *key, int64_t &out,
                  std::string &error, const std::string &where) {
  const json::Value *value = object.get(key);
  std::optional<int64_t> number = value ? value->integer() : std::nullopt;
  if (!number) {
    error = where + ": '" + key + "' must be an integer";
    return false;
  }
  out = *number;
  return true;
}

std::string stringField(const json::Value &object, const char *key) {
  const json::Value *value = object.get(key);
  const std::string *text = value ? value->string() : nullptr;
  return text ? *text : std::string();
}

/// Reads `object[key]`, an object of operand names to values, calling
/// `read(operand, value)` for each until one fails; absent: nothing read.
/// Not an object: "'KEY' must be an object of operand names to SHAPE".
bool readOperandMap(
    const json::Value &object, const char *key, const std::string &shape,
    const std::string &where, std::string &error,
    const std::function<bool(const std::string &, const json::Value &)> &read) {
  const json::Value *listed = object.get(key);
  if (!listed)
    return true;
  if (listed->kind != json::Value::Kind::Object) {
    error = where + ": '" + key + "' must be an object of operand names to " +
            shape;
    return false;
  }
  for (const auto &[operand, value] : listed->members)
    if (!read(operand, value))
      return false;
  return true;
}

bool parseKernel(const json::Value &object, KernelInfo &kernel,
                 std::string &error) {
  kernel.name = stringField(object, "name");
  std::string where = "kernel '" + kernel.name + "'";
  kernel.symbol = stringField(object, "symbol");
  if (kernel.symbol.empty())
    kernel.symbol = kernel.name;
  kernel.gridFormula = stringField(object, "grid");
  if (!parseGrid(kernel.gridFormula, kernel.grid)) {
    error = where + ": cannot evaluate the grid '" + kernel.gridFormula + "'";
    return false;
  }
  const json::Value *block = object.get("block_size");
  if (!block || block->kind != json::Value::Kind::Array ||
      block->items.empty() || block->items.size() > 3) {
    error = where + ": 'block_size' must be an array of 1 to 3 integers";
    return false;
  }
  for (size_t i = 0; i < block->items.size(); ++i) {
    std::optional<int64_t> extent = block->items[i].integer();
    if (!extent || *extent < 1) {
      error = where + ": 'block_size' must hold positive integers";
      return false;
    }
    kernel.blockSize[i] = *extent;
  }
  if (!integerField(object, "shared_bytes", kernel.sharedBytes, error, where) ||
      !integerField(object, "param_bytes", kernel.paramBytes, error, where))
    return false;
  if (const json::Value *registers = object.get("registers"))
    kernel.registers = registers->integer().value_or(-1);
  if (const json::Value *programmatic = object.get("programmatic_launch")) {
    if (programmatic->kind != json::Value::Kind::Bool) {
      error = where + ": 'programmatic_launch' must be true or false";
      return false;
    }
    kernel.programmaticLaunch = programmatic->boolean;
  }

  // The operands whose strides the kernel reads at run time; absent: a
  // sidecar from before the field, read as none.
  std::vector<std::pair<std::string, int64_t>> dynamicStrides;
  auto readDynamicStrides = [&](const std::string &operand,
                                const json::Value &dims) {
    if (dims.kind != json::Value::Kind::Array) {
      error = where + ": 'dynamic_strides' of '" + operand +
              "' must be an array of dims";
      return false;
    }
    for (const json::Value &dim : dims.items) {
      std::optional<int64_t> index = dim.integer();
      if (!index || *index < 0) {
        error = where + ": 'dynamic_strides' of '" + operand +
                "' must hold dims >= 0";
        return false;
      }
      dynamicStrides.push_back({operand, *index});
    }
    return true;
  };
  if (!readOperandMap(object, "dynamic_strides", "arrays of dims", where,
                      error, readDynamicStrides))
    return false;

  // The strides and offsets an operand's strided layout fixes, and the
  // sizes its type fixes; absent: a sidecar from before the fields, read
  // as listing none.
  using PerDim = std::map<std::pair<std::string, int64_t>, int64_t>;
  PerDim staticStrides, staticSizes;
  std::map<std::string, int64_t> staticOffsets;
  // {"OPERAND": {"DIM": value, ...}, ...}; `noun` names the values.
  auto readPerDim = [&](const char *key, const char *noun, PerDim &out) {
    auto readDims = [&](const std::string &operand, const json::Value &dims) {
      if (dims.kind != json::Value::Kind::Object) {
        error = where + ": '" + key + "' of '" + operand +
                "' must be an object of dims to " + noun;
        return false;
      }
      for (const auto &[dim, number] : dims.members) {
        std::optional<int64_t> value = number.integer();
        if (dim.empty() || dim.size() > 18 ||
            dim.find_first_not_of("0123456789") != std::string::npos ||
            !value) {
          error = where + ": '" + key + "' of '" + operand +
                  "' must map dims >= 0 to integers";
          return false;
        }
        out[{operand, std::stoll(dim)}] = *value;
      }
      return true;
    };
    return readOperandMap(object, key,
                          std::string("objects of dims to ") + noun, where,
                          error, readDims);
  };
  auto readOffset = [&](const std::string &operand, const json::Value &offset) {
    std::optional<int64_t> value = offset.integer();
    if (!value) {
      error = where + ": 'static_offsets' of '" + operand +
              "' must be an integer";
      return false;
    }
    staticOffsets[operand] = *value;
    return true;
  };
  if (!readPerDim("static_strides", "strides", staticStrides) ||
      !readPerDim("static_sizes", "sizes", staticSizes) ||
      !readOperandMap(object, "static_offsets", "offsets", where, error,
                      readOffset))
    return false;

  // The widest access at one address of each operand; absent: a sidecar
  // from before the field (or the AMD one), read as listing none.
  std::map<std::string, std::pair<int64_t, int64_t>> alignments;
  auto readAlignment = [&](const std::string &operand,
                           const json::Value &entry) {
    int64_t bytes = 0, elementBytes = 0;
    std::string at = where + ": 'alignments' of '" + operand + "'";
    if (!integerField(entry, "bytes", bytes, error, at) ||
        !integerField(entry, "element_bytes", elementBytes, error, at))
      return false;
    if (bytes < 1 || (bytes & (bytes - 1)) != 0 || elementBytes < 1 ||
        bytes % elementBytes != 0) {
      error = at + ": 'bytes' must be a power of two and a multiple of "
                   "'element_bytes' (>= 1)";
      return false;
    }
    alignments[operand] = {bytes, elementBytes};
    return true;
  };
  if (!readOperandMap(object, "alignments",
                      "objects of 'bytes' and 'element_bytes'", where, error,
                      readAlignment))
    return false;

  if (const json::Value *limits = object.get("plan_limits")) {
    PlanLimits plan;
    std::string at = where + ": 'plan_limits'";
    if (!integerField(*limits, "budget", plan.budget, error, at) ||
        !integerField(*limits, "max_partitions", plan.maxPartitions, error,
                      at) ||
        !integerField(*limits, "kv_heads", plan.kvHeads, error, at))
      return false;
    if (plan.budget < 1 || plan.maxPartitions < 1 || plan.kvHeads < 1) {
      error = at + ": 'budget', 'max_partitions' and 'kv_heads' must be >= 1";
      return false;
    }
    kernel.planLimits = plan;
  }
  // Which sizes the kernel's types fix is known only from a sidecar that
  // lists them; in an older one a fixed size (a per-tensor scale's 1) would
  // pass for a shared one.
  const bool sizesListed = object.get("static_sizes") != nullptr;

  const json::Value *args = object.get("args");
  if (!args || args->kind != json::Value::Kind::Array) {
    error = where + ": 'args' must be an array";
    return false;
  }
  for (const json::Value &arg : args->items) {
    KernelParam param;
    if (!integerField(arg, "offset", param.offset, error, where) ||
        !integerField(arg, "size", param.size, error, where))
      return false;
    param.meaning = stringField(arg, "meaning");
    if (!parseMeaning(param)) {
      error = where + ": unknown parameter meaning '" + param.meaning + "'";
      return false;
    }
    if (param.offset < 0 || param.size <= 0 ||
        param.offset + param.size > kernel.paramBytes) {
      error = where + ": parameter '" + param.meaning +
              "' lies outside the parameter bytes";
      return false;
    }
    param.dynamicStride =
        param.field == KernelParam::Field::Stride &&
        std::find(dynamicStrides.begin(), dynamicStrides.end(),
                  std::make_pair(param.operand, param.dim)) !=
            dynamicStrides.end();
    if (param.field == KernelParam::Field::Stride && !param.dynamicStride) {
      auto fixed = staticStrides.find({param.operand, param.dim});
      if (fixed != staticStrides.end())
        param.staticValue = fixed->second;
    } else if (param.field == KernelParam::Field::Size) {
      auto fixed = staticSizes.find({param.operand, param.dim});
      if (fixed != staticSizes.end())
        param.staticValue = fixed->second;
      else if (sizesListed)
        param.sharedSize = sharedSizeOf(param.operand, param.dim);
    } else if (param.field == KernelParam::Field::Offset) {
      auto fixed = staticOffsets.find(param.operand);
      if (fixed != staticOffsets.end())
        param.staticValue = fixed->second;
    } else if (param.field == KernelParam::Field::Pointer &&
               param.meaning == param.operand + ".aligned_ptr") {
      auto aligned = alignments.find(param.operand);
      if (aligned != alignments.end())
        std::tie(param.alignBytes, param.elementBytes) = aligned->second;
    }
    kernel.params.push_back(std::move(param));
  }
  return true;
}

const MemRefView *findView(const OperandViews &views, const std::string &name,
                           std::string &error,
                           const std::function<std::string()> &where) {
  auto it = views.find(name);
  if (it != views.end())
    return &it->second;
  error = where() + " needs operand '" + name + "', which was not given";
  return nullptr;
}

} // namespace

MemRefView rowMajorView(uint64_t data, std::vector<int64_t> sizes) {
  MemRefView view;
  view.data = data;
  view.sizes = std::move(sizes);
  setRowMajorStrides(view);
  return view;
}

void setRowMajorStrides(MemRefView &view) {
  view.strides.assign(view.sizes.size(), 1);
  for (size_t i = view.sizes.size(); i-- > 1;)
    view.strides[i - 1] = view.strides[i] * view.sizes[i];
}

bool parseManifest(const std::string &text, ModuleManifest &manifest,
                   std::string &error) {
  manifest = ModuleManifest();
  json::Value root;
  if (!json::parse(text, root, error))
    return false;
  if (root.kind != json::Value::Kind::Object) {
    error = "the metadata must be a JSON object";
    return false;
  }
  manifest.target = stringField(root, "target");
  manifest.ptxVersion = stringField(root, "ptx_version");
  manifest.format = stringField(root, "format");
  const json::Value *kernels = root.get("kernels");
  if (!kernels || kernels->kind != json::Value::Kind::Array) {
    error = "the metadata has no 'kernels' array";
    return false;
  }
  for (const json::Value &object : kernels->items) {
    KernelInfo kernel;
    if (!parseKernel(object, kernel, error))
      return false;
    manifest.kernels.push_back(std::move(kernel));
  }
  return true;
}

namespace {
/// False with `error` unless `stride`, the view's stride in dim
/// `param.dim`, which `kernel` does not read at run time (its type fixes
/// it), is the compiled stride: the one its strided layout fixes
/// (param.staticValue), else the row-major stride of the view's sizes
/// there. The kernel would read the view at the compiled stride. A dim of
/// one element, or an empty view, is read at no stride.
bool checkCompiledStride(const KernelInfo &kernel, const KernelParam &param,
                         const MemRefView &view, int64_t stride,
                         std::string &error) {
  const size_t dim = static_cast<size_t>(param.dim);
  if (view.sizes[dim] == 1)
    return true;
  if (param.staticValue) {
    for (int64_t size : view.sizes)
      if (size == 0)
        return true;
    if (stride == *param.staticValue)
      return true;
    error = "operand '" + param.operand + "' has stride " +
            std::to_string(stride) + " in dim " + std::to_string(dim) +
            ", but kernel '" + kernel.name + "' reads that dim at the stride " +
            std::to_string(*param.staticValue) +
            " its type fixes (its sidecar's 'static_strides'): pass a view "
            "with that stride";
    return false;
  }
  int64_t rowMajor = 1;
  bool overflow = false;
  for (size_t d = 0; d < view.sizes.size(); ++d) {
    if (view.sizes[d] == 0)
      return true;
    if (d > dim)
      overflow |= __builtin_mul_overflow(rowMajor, view.sizes[d], &rowMajor);
  }
  if (stride == rowMajor && !overflow)
    return true;
  error = "operand '" + param.operand + "' has stride " +
          std::to_string(stride) + " in dim " + std::to_string(dim) +
          ", but kernel '" + kernel.name +
          "' reads that dim at the row-major stride " +
          std::to_string(rowMajor) +
          " (its sidecar lists the strides it reads at run time in "
          "'dynamic_strides', and not this one): pass a row-major view";
  return false;
}

/// False with `error` unless `size`, the view's size in dim `param.dim`,
/// is the one the kernel's type fixes there (param.staticValue), if any:
/// the kernel reads the operand at its compiled shape, so a view of other
/// sizes (which passes the stride checks with its own row-major strides)
/// would be read at other elements, past its end.
bool checkCompiledSize(const KernelInfo &kernel, const KernelParam &param,
                       int64_t size, std::string &error) {
  if (!param.staticValue || size == *param.staticValue)
    return true;
  error = "operand '" + param.operand + "' has size " + std::to_string(size) +
          " in dim " + std::to_string(param.dim) + ", but kernel '" +
          kernel.name + "' was compiled for size " +
          std::to_string(*param.staticValue) +
          " there (its sidecar's 'static_sizes'): pass a view of the "
          "program's shape";
  return false;
}

/// False with `error` unless the accesses of `kernel` to `view` stay
/// aligned to param.alignBytes: the view's first element (pointer + offset
/// elements) and every stride of a dim of more than one element but the
/// last (in bytes) are multiples of it. An empty view is read nowhere.
bool checkAlignment(const KernelInfo &kernel, const KernelParam &param,
                    const MemRefView &view, std::string &error) {
  for (int64_t size : view.sizes)
    if (size == 0)
      return true;
  const uint64_t alignment = static_cast<uint64_t>(param.alignBytes);
  const uint64_t elementBytes = static_cast<uint64_t>(param.elementBytes);
  auto why = [&] {
    return ", but kernel '" + kernel.name + "' accesses it " +
           std::to_string(alignment) +
           " bytes at a time (its sidecar's 'alignments'): pass a view "
           "whose first element and strides keep " +
           std::to_string(alignment) + "-byte alignment";
  };
  uint64_t first =
      view.data + static_cast<uint64_t>(view.offset) * elementBytes;
  if (first % alignment != 0) {
    std::ostringstream address;
    address << std::hex << first;
    error = "operand '" + param.operand + "' starts at address 0x" +
            address.str() + " (pointer + offset " +
            std::to_string(view.offset) + " elements)" + why();
    return false;
  }
  for (size_t dim = 0; dim + 1 < view.sizes.size() && dim < view.strides.size();
       ++dim) {
    if (view.sizes[dim] == 1)
      continue;
    uint64_t bytes = static_cast<uint64_t>(view.strides[dim]) * elementBytes;
    if (bytes % alignment == 0)
      continue;
    error = "operand '" + param.operand + "' has stride " +
            std::to_string(view.strides[dim]) + " in dim " +
            std::to_string(dim) + " (" + std::to_string(bytes) + " bytes)" +
            why();
    return false;
  }
  return true;
}

/// checkAlignment of every aligned pointer of `kernel` with its view
/// (`views`, parallel to kernel.params): after the sizes, strides and
/// offsets are known to be the kernel's, so that a view of another shape
/// is refused for its shape.
bool checkAlignments(const KernelInfo &kernel,
                     const std::vector<const MemRefView *> &views,
                     std::string &error) {
  for (size_t i = 0; i < kernel.params.size(); ++i)
    if (kernel.params[i].alignBytes > 1 &&
        !checkAlignment(kernel, kernel.params[i], *views[i], error))
      return false;
  return true;
}

/// The shared sizes of one launch of `kernel` (its size parameters'
/// values in `buffer`) agree, and with plan limits, the capacity is the
/// plan's for the batch. False with `error` naming both operands (or the
/// plan) otherwise.
bool checkSharedSizes(const KernelInfo &kernel,
                      const std::vector<uint8_t> &buffer, std::string &error) {
  const KernelParam *first[kSharedSizes] = {};
  int64_t value[kSharedSizes] = {};
  for (const KernelParam &param : kernel.params) {
    if (param.sharedSize == SharedSize::None)
      continue;
    int index = static_cast<int>(param.sharedSize);
    int64_t size;
    std::memcpy(&size, buffer.data() + param.offset, sizeof size);
    if (!first[index]) {
      first[index] = &param;
      value[index] = size;
      continue;
    }
    if (size == value[index])
      continue;
    error = "operand '" + param.operand + "' has size " +
            std::to_string(size) + " in dim " + std::to_string(param.dim) +
            " (" + kSharedSizeSymbols[index] + "), but operand '" +
            first[index]->operand + "' has " + std::to_string(value[index]) +
            " in dim " + std::to_string(first[index]->dim) + ": kernel '" +
            kernel.name + "' takes operands of one decode run";
    return false;
  }
  const int batch = static_cast<int>(SharedSize::Batch);
  const int capacity = static_cast<int>(SharedSize::Capacity);
  if (!kernel.planLimits || !first[batch] || !first[capacity])
    return true;
  const PlanLimits &plan = *kernel.planLimits;
  int64_t expected = planCapacity(value[batch], plan.kvHeads, plan.budget,
                                  plan.maxPartitions);
  if (value[capacity] == expected)
    return true;
  error = "operand '" + first[capacity]->operand + "' has " +
          std::to_string(value[capacity]) + " plan slots in dim " +
          std::to_string(first[capacity]->dim) + ", but kernel '" +
          kernel.name + "' plans " + std::to_string(expected) + " for " +
          std::to_string(value[batch]) + " sequences (budget " +
          std::to_string(plan.budget) + ", max_partitions " +
          std::to_string(plan.maxPartitions) + ", " +
          std::to_string(plan.kvHeads) +
          " KV heads: its sidecar's 'plan_limits'): size the workspace by "
          "the program's plan capacity";
  return false;
}

/// The value of parameter `param` in `view`; false with `error` when its
/// dim is outside the view's rank, it is a size other than the one the
/// kernel's type fixes, a stride of a view that has not one size per
/// stride (checkCompiledStride reads the sizes at a stride's dim and after
/// it) or a stride the kernel does not read that is not the compiled one.
bool paramValue(const KernelInfo &kernel, const KernelParam &param,
                const MemRefView &view, int64_t &value, std::string &error) {
  switch (param.field) {
  case KernelParam::Field::Pointer:
    value = static_cast<int64_t>(view.data);
    return true;
  case KernelParam::Field::Offset:
    value = view.offset;
    if (!param.staticValue || value == *param.staticValue)
      return true;
    error = "operand '" + param.operand + "' has offset " +
            std::to_string(value) + ", but kernel '" + kernel.name +
            "' reads it at the offset " + std::to_string(*param.staticValue) +
            " its type fixes (its sidecar's 'static_offsets'): pass a view "
            "with that offset";
    return false;
  case KernelParam::Field::Size:
  case KernelParam::Field::Stride: {
    const std::vector<int64_t> &values =
        param.field == KernelParam::Field::Size ? view.sizes : view.strides;
    if (param.dim >= static_cast<int64_t>(values.size())) {
      error = "kernel '" + kernel.name + "' parameter '" + param.meaning +
              "': operand '" + param.operand + "' has rank " +
              std::to_string(values.size());
      return false;
    }
    if (param.field == KernelParam::Field::Stride &&
        view.sizes.size() != view.strides.size()) {
      error = "kernel '" + kernel.name + "' parameter '" + param.meaning +
              "': operand '" + param.operand + "' has " +
              std::to_string(view.sizes.size()) + " sizes and " +
              std::to_string(view.strides.size()) +
              " strides: a view has one of each per dim";
      return false;
    }
    value = values[static_cast<size_t>(param.dim)];
    if (param.field == KernelParam::Field::Size)
      return checkCompiledSize(kernel, param, value, error);
    return param.dynamicStride ||
           checkCompiledStride(kernel, param, view, value, error);
  }
  }
  return false;
}
} // namespace

bool PackedParams::pack(const KernelInfo &kernel, const OperandViews &views,
                        std::string &error, bool fixedViews) {
  if (fixedViews && resolvedKernel == &kernel && resolvedViews == &views)
    return refill(kernel, error);
  resolvedKernel = nullptr;
  resolvedViews = nullptr;
  buffer.assign(static_cast<size_t>(kernel.paramBytes), 0);
  pointers.clear();
  sources.clear();
  // The parameters of one operand's descriptor are adjacent: its view is
  // looked up once per run of them, not once per parameter.
  const std::string *viewOperand = nullptr;
  const MemRefView *view = nullptr;
  for (const KernelParam &param : kernel.params) {
    // Built only for a message: this loop runs for every parameter of
    // every launch.
    auto where = [&] {
      return "kernel '" + kernel.name + "' parameter '" + param.meaning + "'";
    };
    if (param.size != 8) {
      error = where() + " has " + std::to_string(param.size) +
              " bytes; descriptor fields are 8";
      return false;
    }
    if (!viewOperand || *viewOperand != param.operand) {
      view = findView(views, param.operand, error, where);
      if (!view)
        return false;
      viewOperand = &param.operand;
    }
    int64_t value = 0;
    if (!paramValue(kernel, param, *view, value, error))
      return false;
    std::memcpy(buffer.data() + param.offset, &value, sizeof value);
    sources.push_back(view);
  }
  if (!checkAlignments(kernel, sources, error) ||
      !checkSharedSizes(kernel, buffer, error))
    return false;
  for (const KernelParam &param : kernel.params)
    pointers.push_back(buffer.data() + param.offset);
  if (fixedViews) {
    resolvedKernel = &kernel;
    resolvedViews = &views;
  }
  return true;
}

bool PackedParams::refill(const KernelInfo &kernel, std::string &error) {
  // The parameters' byte sizes were checked by the first pack (the kernel
  // is the same); the views' ranks, sizes and strides may have changed
  // since, and paramValue checks them again.
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const KernelParam &param = kernel.params[i];
    int64_t value = 0;
    if (!paramValue(kernel, param, *sources[i], value, error)) {
      resolvedKernel = nullptr; // the next pack starts over
      return false;
    }
    std::memcpy(buffer.data() + param.offset, &value, sizeof value);
  }
  if (!checkAlignments(kernel, sources, error) ||
      !checkSharedSizes(kernel, buffer, error)) {
    resolvedKernel = nullptr;
    return false;
  }
  return true;
}

bool evaluateGrid(const KernelInfo &kernel, const OperandViews &views,
                  std::array<int64_t, 3> &grid, std::string &error) {
  for (int axis = 0; axis < 3; ++axis) {
    const GridExtent &extent = kernel.grid[axis];
    if (extent.limit > 0) { // axis z: x and y are known
      grid[axis] = grid[0] * grid[1] <= extent.limit ? extent.constant
                                                     : extent.otherwise;
      continue;
    }
    if (extent.operand.empty()) {
      grid[axis] = extent.constant;
      continue;
    }
    auto where = [&] { return "the grid of kernel '" + kernel.name + "'"; };
    const MemRefView *view = findView(views, extent.operand, error, where);
    if (!view)
      return false;
    if (extent.dim >= static_cast<int64_t>(view->sizes.size())) {
      error = where() + ": operand '" + extent.operand + "' has rank " +
              std::to_string(view->sizes.size());
      return false;
    }
    grid[axis] = view->sizes[static_cast<size_t>(extent.dim)];
  }
  return true;
}

} // namespace pa::runtime
