//===- LauncherCore.cpp - the backend-neutral half of a launcher ----------===//
#include "pa/Runtime/LauncherCore.h"

#include "Json.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <sstream>

namespace pa::runtime {
namespace {

/// The roles of a decode program's kernels, in launch order.
enum class Role { Plan, Decode, Reduce, Other };

/// "pa_decode" and the names SymbolTable uniquing gives it ("pa_decode_1").
Role roleOf(const std::string &name) {
  auto is = [&](const std::string &base) {
    return name == base || name.rfind(base + "_", 0) == 0;
  };
  if (is("pa_plan"))
    return Role::Plan;
  if (is("pa_decode"))
    return Role::Decode;
  if (is("pa_reduce"))
    return Role::Reduce;
  return Role::Other;
}

const std::string *stringMember(const json::Value &object, const char *key) {
  const json::Value *value = object.get(key);
  return value ? value->string() : nullptr;
}

/// The explicit (non-hidden) arguments of an AMD kernel as the manifest's
/// "args", and the bytes they span.
bool translateArguments(const json::Value &kernel, const std::string &where,
                        std::ostringstream &out, int64_t &paramBytes,
                        std::string &error) {
  const json::Value *args = kernel.get("args");
  if (!args || args->kind != json::Value::Kind::Array) {
    error = where + ": 'args' must be an array";
    return false;
  }
  out << "\"args\": [";
  paramBytes = 0;
  bool first = true;
  for (const json::Value &arg : args->items) {
    const std::string *kind = stringMember(arg, "value_kind");
    if (!kind) {
      error = where + ": an argument has no 'value_kind'";
      return false;
    }
    if (kind->rfind("hidden_", 0) == 0)
      continue;
    const json::Value *offset = arg.get("offset");
    const json::Value *size = arg.get("size");
    std::optional<int64_t> at = offset ? offset->integer() : std::nullopt;
    std::optional<int64_t> bytes = size ? size->integer() : std::nullopt;
    const std::string *meaning = stringMember(arg, "meaning");
    if (!at || !bytes || !meaning) {
      error = where + ": an argument lacks an integer 'offset' or 'size' or "
                      "a 'meaning'";
      return false;
    }
    paramBytes = std::max(paramBytes, *at + *bytes);
    out << (first ? "" : ", ") << "{\"offset\": " << *at
        << ", \"size\": " << *bytes
        << ", \"meaning\": " << json::quote(*meaning) << "}";
    first = false;
  }
  out << "]";
  return true;
}

/// The workgroup size: `.reqd_workgroup_size` when the kernel has one, else
/// its maximum flat size in x.
bool translateBlockSize(const json::Value &kernel, const std::string &where,
                        std::ostringstream &out, std::string &error) {
  const json::Value *size = kernel.get("workgroup_size");
  if (size && size->kind == json::Value::Kind::Array &&
      size->items.size() == 3) {
    out << "\"block_size\": [";
    for (size_t i = 0; i < 3; ++i) {
      std::optional<int64_t> extent = size->items[i].integer();
      if (!extent) {
        error = where + ": 'workgroup_size' must hold integers";
        return false;
      }
      out << (i ? ", " : "") << *extent;
    }
    out << "]";
    return true;
  }
  const json::Value *flat = kernel.get("max_flat_workgroup_size");
  std::optional<int64_t> threads = flat ? flat->integer() : std::nullopt;
  if (!threads) {
    error = where + ": neither 'workgroup_size' nor 'max_flat_workgroup_size'";
    return false;
  }
  out << "\"block_size\": [" << *threads << ", 1, 1]";
  return true;
}

/// `value` as JSON text (numbers as they were written).
void writeJson(const json::Value &value, std::ostringstream &out) {
  switch (value.kind) {
  case json::Value::Kind::Null:
    out << "null";
    return;
  case json::Value::Kind::Bool:
    out << (value.boolean ? "true" : "false");
    return;
  case json::Value::Kind::Number:
    out << value.text;
    return;
  case json::Value::Kind::String:
    out << json::quote(value.text);
    return;
  case json::Value::Kind::Array:
    out << "[";
    for (size_t i = 0; i < value.items.size(); ++i) {
      out << (i ? ", " : "");
      writeJson(value.items[i], out);
    }
    out << "]";
    return;
  case json::Value::Kind::Object:
    out << "{";
    for (size_t i = 0; i < value.members.size(); ++i) {
      out << (i ? ", " : "") << json::quote(value.members[i].first) << ": ";
      writeJson(value.members[i].second, out);
    }
    out << "}";
    return;
  }
}

/// One AMD kernel object as a manifest kernel object.
bool translateKernel(const json::Value &kernel, std::ostringstream &out,
                     std::string &error) {
  const std::string *name = stringMember(kernel, "name");
  if (!name) {
    error = "a kernel of the metadata has no 'name'";
    return false;
  }
  std::string where = "kernel '" + *name + "'";
  const std::string *grid = stringMember(kernel, "grid");
  const json::Value *vgprs = kernel.get("vgpr_count");
  // The manifest's symbol is what the driver looks up: the kernel's name
  // (the sidecar's "symbol" is its descriptor, NAME.kd).
  out << "{\"name\": " << json::quote(*name)
      << ", \"symbol\": " << json::quote(*name)
      << ", \"grid\": " << json::quote(grid ? *grid : std::string()) << ", ";
  if (!translateBlockSize(kernel, where, out, error))
    return false;
  // LDS is static in AMD code objects: no dynamic shared memory.
  out << ", \"shared_bytes\": 0, \"registers\": "
      << (vgprs && vgprs->integer() ? *vgprs->integer() : -1) << ", ";
  // The strides the kernel reads at run time, as the sidecar lists them
  // (parseManifest checks them); absent in a sidecar from before them.
  // So are the strides, offsets and sizes their types fix, and the plan
  // kernel's limits.
  for (const char *field : {"dynamic_strides", "static_strides",
                            "static_offsets", "static_sizes", "plan_limits"})
    if (const json::Value *listed = kernel.get(field)) {
      out << "\"" << field << "\": ";
      writeJson(*listed, out);
      out << ", ";
    }
  int64_t paramBytes = 0;
  if (!translateArguments(kernel, where, out, paramBytes, error))
    return false;
  out << ", \"param_bytes\": " << paramBytes << "}";
  return true;
}

} // namespace

bool parseAMDManifest(const std::string &text, ModuleManifest &manifest,
                      std::string &error) {
  manifest = ModuleManifest();
  json::Value root;
  if (!json::parse(text, root, error))
    return false;
  const json::Value *kernels =
      root.kind == json::Value::Kind::Object ? root.get("kernels") : nullptr;
  if (!kernels || kernels->kind != json::Value::Kind::Array) {
    error = "the metadata has no 'kernels' array";
    return false;
  }
  // Launch order: by role, then as listed.
  std::vector<std::pair<Role, size_t>> order;
  for (size_t i = 0; i < kernels->items.size(); ++i) {
    const std::string *name = stringMember(kernels->items[i], "name");
    order.push_back({roleOf(name ? *name : std::string()), i});
  }
  std::sort(order.begin(), order.end());

  // The AMD sidecar is rewritten into the manifest format and read by
  // parseManifest, so that grid formulas, meanings and argument bounds of
  // both backends go through one validation.
  std::ostringstream neutral;
  const std::string *target = stringMember(root, "target");
  neutral << "{\"target\": " << json::quote(target ? *target : std::string())
          << ", \"format\": \"hsaco\", \"kernels\": [";
  for (size_t i = 0; i < order.size(); ++i) {
    if (i)
      neutral << ", ";
    if (!translateKernel(kernels->items[order[i].second], neutral, error))
      return false;
  }
  neutral << "]}";
  return parseManifest(neutral.str(), manifest, error);
}

bool prepareLaunches(const ModuleManifest &manifest, const OperandViews &views,
                     std::vector<PreparedLaunch> &launches,
                     std::string &error, KernelMask kernels,
                     bool fixedViews) {
  size_t used = 0;
  auto fail = [&] {
    launches.clear();
    return false;
  };
  for (size_t i = 0; i < manifest.kernels.size(); ++i) {
    if (i >= 32 || !(kernels >> i & 1))
      continue;
    const KernelInfo &kernel = manifest.kernels[i];
    std::array<int64_t, 3> grid;
    if (!evaluateGrid(kernel, views, grid, error))
      return fail();
    if (grid[0] <= 0 || grid[1] <= 0 || grid[2] <= 0)
      continue;
    // Both driver APIs take unsigned grid extents; HIP's limit is 2^31-1.
    for (int64_t extent : grid)
      if (extent > std::numeric_limits<int32_t>::max()) {
        error = "the grid of kernel '" + kernel.name + "' has " +
                std::to_string(extent) + " workgroups in one dimension";
        return fail();
      }
    if (used == launches.size())
      launches.emplace_back();
    PreparedLaunch &launch = launches[used++];
    launch.kernelIndex = i;
    launch.grid = grid;
    if (!launch.params)
      launch.params = std::make_unique<PackedParams>();
    if (!launch.params->pack(kernel, views, error, fixedViews))
      return fail();
  }
  launches.resize(used);
  return true;
}

bool checkKernelMask(const ModuleManifest &manifest, KernelMask kernels,
                     std::string &error) {
  size_t count = manifest.kernels.size();
  KernelMask present = count >= 32 ? kAllKernels : (KernelMask(1) << count) - 1;
  if (kernels == kAllKernels || (kernels && !(kernels & ~present)))
    return true;
  error = "the kernel mask " + std::to_string(kernels) +
          " selects no kernel or one the program does not have (it has " +
          std::to_string(count) + ": bits 0.." + std::to_string(count - 1) +
          ")";
  return false;
}

bool enqueueKernels(const ModuleManifest &manifest, const OperandViews &views,
                    LaunchDriver &driver, void *stream, std::string &error,
                    KernelMask kernels) {
  LaunchSet launches;
  return enqueueKernels(manifest, views, driver, stream, error, kernels,
                        launches);
}

bool enqueueKernels(const ModuleManifest &manifest, const OperandViews &views,
                    LaunchDriver &driver, void *stream, std::string &error,
                    KernelMask kernels, LaunchSet &reuse) {
  if (!checkKernelMask(manifest, kernels, error) ||
      !prepareLaunches(manifest, views, reuse.launches, error, kernels,
                       reuse.fixedViews))
    return false;
  for (PreparedLaunch &launch : reuse.launches)
    if (!driver.launch(launch.kernelIndex,
                       manifest.kernels[launch.kernelIndex], launch.grid,
                       *launch.params, stream, error))
      return false;
  return true;
}

bool checkDecodeSequence(const ModuleManifest &manifest, std::string &error) {
  const char *expected[] = {"pa_plan", "pa_decode", "pa_reduce"};
  std::string names;
  for (const KernelInfo &kernel : manifest.kernels)
    names += (names.empty() ? "" : ", ") + kernel.name;
  if (manifest.kernels.size() == 3) {
    bool inOrder = true;
    for (size_t i = 0; i < 3; ++i)
      inOrder &= roleOf(manifest.kernels[i].name) == static_cast<Role>(i);
    if (inOrder)
      return true;
  }
  error = std::string("a decode program launches ") + expected[0] + ", " +
          expected[1] + " and " + expected[2] +
          " once each; the code object has [" + names + "]";
  return false;
}

} // namespace pa::runtime
