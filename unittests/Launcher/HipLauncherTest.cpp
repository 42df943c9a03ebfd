//===- HipLauncherTest.cpp - launcher core and HIP launcher ---------------===//
//
// Against real code objects and sidecars (compiled here by compileDecode,
// no GPU needed): the AMD manifest, argument packing at the metadata's
// offsets, grids, the plan -> decode -> reduce order, empty grids, and the
// HIP launcher's whole path through a recording HIP runtime
// (libpa-fake-hip.so). The expected operand shapes are written out from the
// spec's table for the configurations below.
//
//===----------------------------------------------------------------------===//
#include "pa/API/Compile.h"
#include "pa/Runtime/HipLauncher.h"
#include "pa/Runtime/LauncherCore.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <set>

using namespace pa::runtime;

namespace {

//===----------------------------------------------------------------------===//
// Two compiled configurations
//===----------------------------------------------------------------------===//

/// Hq = 16, Hkv = 2 (G = 8), D = 128, P = 16, Q = 2 (R = 16: one row
/// group), fp8 with per-token scales, transposed V, sinks; budget 8 and 4
/// partitions, so B = 3 gives min(3 * 4, max(3, 8 / 2)) = 4 plan slots.
mlir::pa::DecodeConfig fullConfig() {
  mlir::pa::DecodeConfig config;
  config.numQueryHeads = 16;
  config.numKVHeads = 2;
  config.headDim = 128;
  config.pageSize = 16;
  config.queryLength = 2;
  config.vLayout = mlir::pa::VLayout::transposed;
  config.scaleMode = mlir::pa::ScaleMode::per_token;
  config.hasSinks = true;
  config.budget = 8;
  config.maxPartitions = 4;
  return config;
}

/// Hq = 32, Hkv = 1, D = 64, Q = 2: R = 64 rows in two row groups of 32.
mlir::pa::DecodeConfig twoRowGroupsConfig() {
  mlir::pa::DecodeConfig config;
  config.numQueryHeads = 32;
  config.numKVHeads = 1;
  config.headDim = 64;
  config.queryLength = 2;
  config.budget = 8;
  config.maxPartitions = 4;
  return config;
}

const mlir::pa::CompiledKernels &
compiled(const mlir::pa::DecodeConfig &config) {
  static std::map<std::string, mlir::pa::CompiledKernels> cache;
  auto [it, inserted] = cache.try_emplace(config.cacheKey());
  if (inserted) {
    std::string error;
    auto result = mlir::pa::compileDecode(config, {}, error);
    EXPECT_TRUE(succeeded(result)) << error;
    if (succeeded(result))
      it->second = std::move(*result);
  }
  return it->second;
}

ModuleManifest manifestOf(const mlir::pa::DecodeConfig &config) {
  ModuleManifest manifest;
  std::string error;
  EXPECT_TRUE(parseAMDManifest(compiled(config).metadataJson, manifest, error))
      << error;
  return manifest;
}

/// The operands of fullConfig() for B = 3, N = 10 pages, 5 pages per
/// sequence, at distinct fake device addresses.
std::map<std::string, std::vector<int64_t>> fullShapes() {
  return {
      {"query", {6, 16, 128}},           {"key_cache", {10, 2, 8, 16, 16}},
      {"value_cache", {10, 2, 1, 128, 16}}, {"block_tables", {3, 5}},
      {"context_lengths", {3}},          {"k_scale", {10, 2, 16}},
      {"v_scale", {10, 2, 16}},          {"sinks", {16}},
      {"work_info", {4, 4}},             {"reduce_info", {3, 2}},
      {"exp_sums", {2, 4, 16}},          {"max_logits", {2, 4, 16}},
      {"tmp_out", {2, 4, 16, 128}},      {"output", {6, 16, 128}},
  };
}

OperandViews
viewsOf(const std::map<std::string, std::vector<int64_t>> &shapes) {
  OperandViews views;
  uint64_t address = 0x10000;
  for (const auto &[name, sizes] : shapes) {
    views[name] = rowMajorView(address, sizes);
    address += 0x10000;
  }
  return views;
}

int64_t readParam(const std::vector<uint8_t> &bytes, int64_t offset) {
  int64_t value = 0;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

/// What the parameter `meaning` must hold for `views`, recomputed from the
/// row-major shapes.
int64_t expectedValue(const std::string &meaning, const OperandViews &views) {
  size_t dot = meaning.find('.');
  const MemRefView &view = views.at(meaning.substr(0, dot));
  std::string field = meaning.substr(dot + 1);
  if (field == "allocated_ptr" || field == "aligned_ptr")
    return static_cast<int64_t>(view.data);
  if (field == "offset")
    return 0;
  size_t bracket = field.find('[');
  size_t dim = std::stoul(field.substr(bracket + 1));
  if (field.rfind("size", 0) == 0)
    return view.sizes.at(dim);
  int64_t stride = 1;
  for (size_t i = dim + 1; i < view.sizes.size(); ++i)
    stride *= view.sizes[i];
  return stride;
}

//===----------------------------------------------------------------------===//
// The AMD manifest
//===----------------------------------------------------------------------===//

TEST(AMDManifest, KernelsInLaunchOrderWithExplicitArgumentsOnly) {
  const mlir::pa::CompiledKernels &kernels = compiled(fullConfig());
  ModuleManifest manifest = manifestOf(fullConfig());
  EXPECT_EQ(manifest.format, "hsaco");
  EXPECT_EQ(manifest.target, "amdgcn-amd-amdhsa--gfx950");
  ASSERT_EQ(manifest.kernels.size(), 3u);
  EXPECT_EQ(manifest.kernels[0].name, "pa_plan");
  EXPECT_EQ(manifest.kernels[1].name, "pa_decode");
  EXPECT_EQ(manifest.kernels[2].name, "pa_reduce");
  std::string error;
  EXPECT_TRUE(checkDecodeSequence(manifest, error)) << error;

  // Against the sidecar itself: every explicit argument, none hidden.
  llvm::Expected<llvm::json::Value> sidecar =
      llvm::json::parse(kernels.metadataJson);
  ASSERT_TRUE(bool(sidecar));
  for (const llvm::json::Value &value :
       *sidecar->getAsObject()->getArray("kernels")) {
    const llvm::json::Object &kernel = *value.getAsObject();
    std::string name = kernel.getString("name")->str();
    const KernelInfo *info = nullptr;
    for (const KernelInfo &candidate : manifest.kernels)
      if (candidate.name == name)
        info = &candidate;
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->symbol, name) << "the driver looks up the kernel name";
    EXPECT_EQ(info->blockSize, (std::array<int64_t, 3>{256, 1, 1}));
    EXPECT_EQ(info->sharedBytes, 0);
    EXPECT_EQ(info->gridFormula, kernel.getString("grid")->str());
    // The strides read at run time: the query's rows in the decode kernel
    // (the APIs' programs take a fused qkv view), none in the others.
    const llvm::json::Object *listed = kernel.getObject("dynamic_strides");
    ASSERT_NE(listed, nullptr) << name;
    EXPECT_EQ(listed->size(), name == "pa_decode" ? 1u : 0u) << name;
    size_t explicitCount = 0, dynamicCount = 0, staticCount = 0,
           sizeCount = 0;
    int64_t explicitEnd = 0;
    for (const llvm::json::Value &arg : *kernel.getArray("args")) {
      const llvm::json::Object &a = *arg.getAsObject();
      if (a.getString("value_kind")->starts_with("hidden_"))
        continue;
      ASSERT_LT(explicitCount, info->params.size());
      const KernelParam &param = info->params[explicitCount++];
      EXPECT_EQ(param.offset, *a.getInteger("offset"));
      EXPECT_EQ(param.size, *a.getInteger("size"));
      EXPECT_EQ(param.meaning, a.getString("meaning")->str());
      bool dynamic = false;
      if (const llvm::json::Array *dims = listed->getArray(param.operand))
        for (const llvm::json::Value &dim : *dims)
          dynamic |= param.field == KernelParam::Field::Stride &&
                     dim.getAsInteger() == param.dim;
      EXPECT_EQ(param.dynamicStride, dynamic) << param.meaning;
      dynamicCount += param.dynamicStride;
      // The strides and offset the query's `strided<[?, 64, 1]>` fixes
      // (64, 1, offset 0), and the sizes every operand's type fixes, come
      // through as the sidecar lists them.
      std::optional<int64_t> fixed;
      // A sidecar without one of the tables fails the test, not the process.
      auto table = [&](const char *field) -> const llvm::json::Object * {
        const llvm::json::Object *found = kernel.getObject(field);
        if (!found)
          ADD_FAILURE() << "the sidecar has no '" << field << "'";
        return found;
      };
      auto perDim = [&](const char *field) -> std::optional<int64_t> {
        if (const llvm::json::Object *byOperand = table(field))
          if (const llvm::json::Object *dims =
                  byOperand->getObject(param.operand))
            return dims->getInteger(std::to_string(param.dim));
        return std::nullopt;
      };
      if (param.field == KernelParam::Field::Stride)
        fixed = perDim("static_strides");
      else if (param.field == KernelParam::Field::Size)
        fixed = perDim("static_sizes");
      else if (param.field == KernelParam::Field::Offset)
        if (const llvm::json::Object *offsets = table("static_offsets"))
          fixed = offsets->getInteger(param.operand);
      EXPECT_EQ(param.staticValue, fixed) << param.meaning;
      if (param.field == KernelParam::Field::Size)
        sizeCount += param.staticValue.has_value();
      else
        staticCount += param.staticValue.has_value();
      explicitEnd = param.offset + param.size;
    }
    EXPECT_EQ(dynamicCount, name == "pa_decode" ? 1u : 0u) << name;
    EXPECT_EQ(staticCount, name == "pa_decode" ? 3u : 0u) << name;
    // The fixed sizes of fullConfig()'s types (Hq = 16, Hkv = 2, D = 128,
    // P = 16, R = 16; B, N and the capacity dynamic): plan work_info [?,
    // 4], reduce_info [?, 2]; decode query [?, 16, 128], key_cache [?, 2, 8,
    // 16, 16], value_cache [?, 2, 1, 128, 16], the scales [?, 2, 16],
    // work_info, the partials [2, ?, 16] twice and [2, ?, 16, 128]; reduce
    // the partials, reduce_info, sinks [16], output [?, 16, 128].
    EXPECT_EQ(sizeCount, name == "pa_plan"     ? 2u
                         : name == "pa_decode" ? 2u + 4 + 4 + 2 + 2 + 1 +
                                                     2 + 2 + 3
                                               : 2u + 2 + 3 + 1 + 1 + 2)
        << name;
    EXPECT_EQ(explicitCount, info->params.size()) << name;
    EXPECT_EQ(info->paramBytes, explicitEnd) << name;
    EXPECT_LE(info->paramBytes, *kernel.getInteger("kernarg_segment_size"));
  }
}

TEST(AMDManifest, OrdersByRoleWhateverTheSidecarOrder) {
  const char *sidecar = R"({"target": "amdgcn-amd-amdhsa--gfx942", "kernels": [
    {"name": "pa_reduce", "grid": "x = reduce_info dim 0, y = 1, z = 1",
     "workgroup_size": [256, 1, 1], "args": []},
    {"name": "pa_decode", "grid": "x = work_info dim 0, y = 1, z = 1",
     "workgroup_size": null, "max_flat_workgroup_size": 128, "args": []},
    {"name": "pa_plan", "grid": "x = 1, y = 1, z = 1",
     "workgroup_size": [256, 1, 1], "args": [
       {"offset": 0, "size": 8, "value_kind": "global_buffer",
        "meaning": "work_info.aligned_ptr"},
       {"offset": 8, "size": 4, "value_kind": "hidden_block_count_x",
        "meaning": "runtime-provided: block count x"}]}]})";
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseAMDManifest(sidecar, manifest, error)) << error;
  ASSERT_EQ(manifest.kernels.size(), 3u);
  EXPECT_EQ(manifest.kernels[0].name, "pa_plan");
  EXPECT_EQ(manifest.kernels[0].params.size(), 1u);
  EXPECT_EQ(manifest.kernels[0].paramBytes, 8);
  EXPECT_EQ(manifest.kernels[1].name, "pa_decode");
  EXPECT_EQ(manifest.kernels[1].blockSize,
            (std::array<int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(manifest.kernels[2].name, "pa_reduce");
}

TEST(AMDManifest, MalformedSidecarsAreErrors) {
  struct Case {
    const char *json;
    const char *message;
  } cases[] = {
      {"{", "JSON"},
      {R"({"target": "x"})", "no 'kernels' array"},
      {R"({"kernels": [{"grid": "x = 1, y = 1, z = 1"}]})", "no 'name'"},
      {R"({"kernels": [{"name": "k", "grid": "x = dynamic, y = 1, z = 1",
           "workgroup_size": [1, 1, 1], "args": []}]})",
       "cannot evaluate the grid"},
      {R"({"kernels": [{"name": "k", "grid": "x = 1, y = 1, z = 1",
           "workgroup_size": [1, 1, 1], "args": [{"offset": 0, "size": 8,
           "value_kind": "by_value", "meaning": "query.weird"}]}]})",
       "unknown parameter meaning 'query.weird'"},
      {R"({"kernels": [{"name": "k", "grid": "x = 1, y = 1, z = 1",
           "workgroup_size": [1, 1, 1], "args": [{"size": 8,
           "value_kind": "by_value", "meaning": "query.offset"}]}]})",
       "lacks an integer 'offset'"},
      {R"({"kernels": [{"name": "k", "grid": "x = 1, y = 1, z = 1",
           "args": []}]})",
       "neither 'workgroup_size' nor 'max_flat_workgroup_size'"},
  };
  for (const Case &c : cases) {
    ModuleManifest manifest;
    std::string error;
    EXPECT_FALSE(parseAMDManifest(c.json, manifest, error)) << c.json;
    EXPECT_NE(error.find(c.message), std::string::npos)
        << c.json << "\n -> " << error;
  }
}

TEST(AMDManifest, DecodeSequenceNeedsEachRoleOnce) {
  ModuleManifest manifest = manifestOf(fullConfig());
  std::string error;
  manifest.kernels.pop_back();
  EXPECT_FALSE(checkDecodeSequence(manifest, error));
  EXPECT_NE(error.find("[pa_plan, pa_decode]"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// Packing and grids
//===----------------------------------------------------------------------===//

TEST(LauncherCore, PacksEveryParameterAtItsOffset) {
  ModuleManifest manifest = manifestOf(fullConfig());
  OperandViews views = viewsOf(fullShapes());
  std::vector<PreparedLaunch> launches;
  std::string error;
  ASSERT_TRUE(prepareLaunches(manifest, views, launches, error)) << error;
  ASSERT_EQ(launches.size(), 3u);
  std::map<std::string, std::set<std::string>> operandsOf;
  for (const PreparedLaunch &launch : launches) {
    const KernelInfo &kernel = manifest.kernels[launch.kernelIndex];
    const std::vector<uint8_t> &bytes = launch.params->bytes();
    ASSERT_EQ(static_cast<int64_t>(bytes.size()), kernel.paramBytes);
    for (const KernelParam &param : kernel.params) {
      EXPECT_EQ(readParam(bytes, param.offset),
                expectedValue(param.meaning, views))
          << kernel.name << " " << param.meaning;
      operandsOf[kernel.name].insert(
          param.meaning.substr(0, param.meaning.find('.')));
    }
  }
  // Each kernel receives exactly the operands of its op.
  using Names = std::set<std::string>;
  EXPECT_EQ(operandsOf["pa_plan"],
            (Names{"context_lengths", "work_info", "reduce_info"}));
  EXPECT_EQ(operandsOf["pa_decode"],
            (Names{"query", "key_cache", "value_cache", "block_tables",
                   "context_lengths", "k_scale", "v_scale", "work_info",
                   "exp_sums", "max_logits", "tmp_out"}));
  EXPECT_EQ(operandsOf["pa_reduce"],
            (Names{"exp_sums", "max_logits", "tmp_out", "reduce_info",
                   "sinks", "output"}));
}

TEST(LauncherCore, GridsComeFromTheOperandSizes) {
  ModuleManifest manifest = manifestOf(fullConfig());
  std::vector<PreparedLaunch> launches;
  std::string error;
  ASSERT_TRUE(prepareLaunches(manifest, viewsOf(fullShapes()), launches,
                              error))
      << error;
  using Grid = std::array<int64_t, 3>;
  EXPECT_EQ(launches[0].grid, (Grid{1, 1, 1}));
  // One workgroup per plan slot and KV head; R = 16 is one row group.
  EXPECT_EQ(launches[1].grid, (Grid{4, 2, 1}));
  // One workgroup per sequence and KV head.
  EXPECT_EQ(launches[2].grid, (Grid{3, 2, 1}));
}

TEST(LauncherCore, RowGroupsAreTheDecodeGridsZ) {
  ModuleManifest manifest = manifestOf(twoRowGroupsConfig());
  // B = 5: capacity min(5 * 4, max(5, 8)) = 8.
  std::map<std::string, std::vector<int64_t>> shapes = {
      {"query", {10, 32, 64}},        {"key_cache", {7, 1, 4, 16, 16}},
      {"value_cache", {7, 1, 64, 16}}, {"block_tables", {5, 2}},
      {"context_lengths", {5}},       {"work_info", {8, 4}},
      {"reduce_info", {5, 2}},        {"exp_sums", {1, 8, 64}},
      {"max_logits", {1, 8, 64}},     {"tmp_out", {1, 8, 64, 64}},
      {"output", {10, 32, 64}},
  };
  std::vector<PreparedLaunch> launches;
  std::string error;
  ASSERT_TRUE(prepareLaunches(manifest, viewsOf(shapes), launches, error))
      << error;
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[1].grid, (std::array<int64_t, 3>{8, 1, 2}));
  EXPECT_EQ(launches[2].grid, (std::array<int64_t, 3>{5, 1, 1}));
}

TEST(LauncherCore, EmptyGridsAreSkipped) {
  ModuleManifest manifest = manifestOf(fullConfig());
  // B = 0: no plan slots and no sequences; only the plan runs.
  std::map<std::string, std::vector<int64_t>> shapes = fullShapes();
  for (const char *name : {"query", "output"})
    shapes[name][0] = 0;
  for (const char *name : {"block_tables", "context_lengths", "work_info",
                           "reduce_info"})
    shapes[name][0] = 0;
  for (const char *name : {"exp_sums", "max_logits", "tmp_out"})
    shapes[name][1] = 0;
  std::vector<PreparedLaunch> launches;
  std::string error;
  ASSERT_TRUE(prepareLaunches(manifest, viewsOf(shapes), launches, error))
      << error;
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(manifest.kernels[launches[0].kernelIndex].name, "pa_plan");
}

TEST(LauncherCore, BadOperandsPrepareNothing) {
  ModuleManifest manifest = manifestOf(fullConfig());
  std::vector<PreparedLaunch> launches;
  std::string error;

  OperandViews views = viewsOf(fullShapes());
  views.erase("sinks");
  EXPECT_FALSE(prepareLaunches(manifest, views, launches, error));
  EXPECT_TRUE(launches.empty());
  EXPECT_NE(error.find("needs operand 'sinks'"), std::string::npos) << error;

  views = viewsOf(fullShapes());
  views["query"] = rowMajorView(0x1000, {6, 16});
  EXPECT_FALSE(prepareLaunches(manifest, views, launches, error));
  EXPECT_NE(error.find("operand 'query' has rank 2"), std::string::npos)
      << error;

  // The decode's grid from work_info's rows (a launch of the decode
  // alone: the plan would refuse the rows, which 4 sequences do not need).
  views = viewsOf(fullShapes());
  views["work_info"] = rowMajorView(0x1000, {int64_t(1) << 32, 4});
  EXPECT_FALSE(prepareLaunches(manifest, views, launches, error,
                               /*kernels=*/2));
  EXPECT_NE(error.find("workgroups in one dimension"), std::string::npos)
      << error;

  // Operands of two runs: a block table of 4 sequences beside 3 lengths,
  // and a workspace of another capacity than the plan's (3 sequences: 4
  // slots at budget 8, 2 KV heads).
  views = viewsOf(fullShapes());
  views["block_tables"] = rowMajorView(0x1000, {4, 5});
  EXPECT_FALSE(prepareLaunches(manifest, views, launches, error));
  EXPECT_TRUE(launches.empty());
  EXPECT_EQ(error, "operand 'context_lengths' has size 3 in dim 0 (B), but "
                   "operand 'block_tables' has 4 in dim 0: kernel "
                   "'pa_decode' takes operands of one decode run");
  std::map<std::string, std::vector<int64_t>> shapes = fullShapes();
  shapes["work_info"][0] = 6;
  for (const char *name : {"exp_sums", "max_logits", "tmp_out"})
    shapes[name][1] = 6;
  EXPECT_FALSE(prepareLaunches(manifest, viewsOf(shapes), launches, error));
  EXPECT_EQ(error, "operand 'work_info' has 6 plan slots in dim 0, but "
                   "kernel 'pa_plan' plans 4 for 3 sequences (budget 8, "
                   "max_partitions 4, 2 KV heads: its sidecar's "
                   "'plan_limits'): size the workspace by the program's "
                   "plan capacity");
}

TEST(LauncherCore, RefusesViewsWhoseSizesDifferFromTheCompiledShape) {
  // An nhd program with D = 128 and Hkv = 8 (K and V
  // `memref<?x16x8x128xf8E4M3FN, strided<[?, 1024, 128, 1]>>`) given a
  // key cache of [N, P, 8, 64] at the compiled strides (a view of half of
  // each head of a D = 128 cache) or row-major: the kernel would read it
  // as [?, 16, 8, 128] (other values, past the last page). A size the
  // kernel's type fixes is compared with the view's, naming the operand
  // and dim; the dynamic ones (N, B, the plan's capacity) are free.
  mlir::pa::DecodeConfig config;
  config.numQueryHeads = 8;
  config.numKVHeads = 8;
  config.headDim = 128;
  config.cacheLayout = mlir::pa::CacheLayout::nhd;
  config.budget = 8;
  config.maxPartitions = 4;
  ModuleManifest manifest = manifestOf(config);
  // B = 2 sequences of 2 pages each: capacity min(2 * 4, max(2, 8 / 8))
  // = 2 plan slots; R = 1 row per KV head.
  std::map<std::string, std::vector<int64_t>> shapes = {
      {"query", {2, 8, 128}},        {"key_cache", {6, 16, 8, 128}},
      {"value_cache", {6, 16, 8, 128}}, {"block_tables", {2, 2}},
      {"context_lengths", {2}},      {"k_scale", {1}},
      {"v_scale", {1}},              {"work_info", {2, 4}},
      {"reduce_info", {2, 2}},       {"exp_sums", {8, 2, 1}},
      {"max_logits", {8, 2, 1}},     {"tmp_out", {8, 2, 1, 128}},
      {"output", {2, 8, 128}},
  };
  std::vector<PreparedLaunch> launches;
  std::string error;
  OperandViews views = viewsOf(shapes);
  ASSERT_TRUE(prepareLaunches(manifest, views, launches, error)) << error;

  MemRefView &key = views["key_cache"];
  key.sizes = {6, 16, 8, 64};
  key.strides = {16 * 8 * 128, 1024, 128, 1};
  EXPECT_FALSE(prepareLaunches(manifest, views, launches, error));
  EXPECT_TRUE(launches.empty());
  EXPECT_EQ(error, "operand 'key_cache' has size 64 in dim 3, but kernel "
                   "'pa_decode' was compiled for size 128 there (its "
                   "sidecar's 'static_sizes'): pass a view of the "
                   "program's shape");
  setRowMajorStrides(key);
  EXPECT_FALSE(prepareLaunches(manifest, views, launches, error));
  EXPECT_NE(error.find("operand 'key_cache'"), std::string::npos) << error;

  // Each static dim of each operand, the partials' per-KV-head dims too.
  views = viewsOf(shapes);
  views["tmp_out"].sizes[0] = 4;
  setRowMajorStrides(views["tmp_out"]);
  EXPECT_FALSE(prepareLaunches(manifest, views, launches, error));
  EXPECT_EQ(error, "operand 'tmp_out' has size 4 in dim 0, but kernel "
                   "'pa_decode' was compiled for size 8 there (its "
                   "sidecar's 'static_sizes'): pass a view of the "
                   "program's shape");
  // Another pool (N) and batch (B, B*Q and the plan's capacity, B here)
  // are dynamic, as long as every operand agrees.
  std::map<std::string, std::vector<int64_t>> other = shapes;
  other["key_cache"][0] = other["value_cache"][0] = 40;
  other["query"][0] = other["output"][0] = 5;
  other["block_tables"][0] = other["context_lengths"][0] = 5;
  other["work_info"][0] = other["reduce_info"][0] = 5;
  for (const char *name : {"exp_sums", "max_logits", "tmp_out"})
    other[name][1] = 5;
  ASSERT_TRUE(prepareLaunches(manifest, viewsOf(other), launches, error))
      << error;

  // A bound launch's refill compares the sizes as they are now.
  std::vector<PreparedLaunch> bound;
  views = viewsOf(shapes);
  ASSERT_TRUE(prepareLaunches(manifest, views, bound, error, kAllKernels,
                              /*fixedViews=*/true))
      << error;
  views["value_cache"].sizes[2] = 4;
  EXPECT_FALSE(prepareLaunches(manifest, views, bound, error, kAllKernels,
                               true));
  EXPECT_NE(error.find("operand 'value_cache' has size 4 in dim 2"),
            std::string::npos)
      << error;
}

//===----------------------------------------------------------------------===//
// The HIP launcher over a recording runtime
//===----------------------------------------------------------------------===//

/// libpa-fake-hip.so's record.
class FakeHip {
public:
  FakeHip() : handle(dlopen(FAKE_HIP_LIBRARY, RTLD_NOW | RTLD_LOCAL)) {
    EXPECT_NE(handle, nullptr) << dlerror();
    reset = symbol<void (*)()>("fakeHipReset");
    launchCount = symbol<int (*)()>("fakeHipLaunchCount");
    launch = symbol<const char *(*)(int, unsigned *, unsigned *, void **,
                                    const unsigned char **, size_t *)>(
        "fakeHipLaunch");
    counters = symbol<void (*)(int *, int *, int *, int *)>("fakeHipCounters");
    reset();
  }
  ~FakeHip() { dlclose(handle); }

  struct Launch {
    std::string function;
    std::array<unsigned, 3> grid, block;
    void *stream;
    std::vector<uint8_t> params;
  };
  std::vector<Launch> launches() const {
    std::vector<Launch> result;
    for (int i = 0; i < launchCount(); ++i) {
      Launch l;
      const unsigned char *params;
      size_t bytes;
      l.function = launch(i, l.grid.data(), l.block.data(), &l.stream, &params,
                          &bytes);
      l.params.assign(params, params + bytes);
      result.push_back(std::move(l));
    }
    return result;
  }
  /// {loads, unloads, copies, synchronizations}
  std::array<int, 4> counts() const {
    std::array<int, 4> c;
    counters(&c[0], &c[1], &c[2], &c[3]);
    return c;
  }

  void (*reset)();

private:
  template <typename F> F symbol(const char *name) {
    return reinterpret_cast<F>(dlsym(handle, name));
  }
  void *handle;
  int (*launchCount)();
  const char *(*launch)(int, unsigned *, unsigned *, void **,
                        const unsigned char **, size_t *);
  void (*counters)(int *, int *, int *, int *);
};

std::unique_ptr<HipRuntime> openFake() {
  std::string error;
  std::unique_ptr<HipRuntime> runtime =
      HipRuntime::open(FAKE_HIP_LIBRARY, error);
  EXPECT_NE(runtime, nullptr) << error;
  return runtime;
}

TEST(HipLauncher, LaunchesPlanDecodeReduceOnTheStreamWithoutReadback) {
  FakeHip fake;
  std::unique_ptr<HipRuntime> hip = openFake();
  ASSERT_TRUE(hip);
  const mlir::pa::CompiledKernels &kernels = compiled(fullConfig());
  std::string error;
  std::unique_ptr<HipProgram> program =
      HipProgram::load(*hip, kernels.codeObject, kernels.metadataJson, error);
  ASSERT_TRUE(program) << error;
  EXPECT_EQ(fake.counts()[0], 1) << "one hipModuleLoadData";

  OperandViews views = viewsOf(fullShapes());
  void *stream = reinterpret_cast<void *>(0x5eed);
  ASSERT_TRUE(program->enqueue(stream, views, error)) << error;
  std::vector<FakeHip::Launch> launches = fake.launches();
  ASSERT_EQ(launches.size(), 3u);
  const char *names[] = {"pa_plan", "pa_decode", "pa_reduce"};
  std::array<unsigned, 3> grids[] = {{1, 1, 1}, {4, 2, 1}, {3, 2, 1}};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(launches[i].function, names[i]);
    EXPECT_EQ(launches[i].grid, grids[i]) << names[i];
    EXPECT_EQ(launches[i].block, (std::array<unsigned, 3>{256, 1, 1}));
    EXPECT_EQ(launches[i].stream, stream);
    const KernelInfo &kernel = program->manifest().kernels[i];
    ASSERT_EQ(static_cast<int64_t>(launches[i].params.size()),
              kernel.paramBytes);
    for (const KernelParam &param : kernel.params)
      EXPECT_EQ(readParam(launches[i].params, param.offset),
                expectedValue(param.meaning, views))
          << names[i] << " " << param.meaning;
  }
  // Graph-capturable: launches only, no copy, no synchronization.
  EXPECT_EQ(fake.counts()[2], 0);
  EXPECT_EQ(fake.counts()[3], 0);

  // Replayed with other sizes (a larger batch): new grids, same program.
  fake.reset();
  std::map<std::string, std::vector<int64_t>> shapes = fullShapes();
  // 9 sequences of Q = 2: the plan's min(9 * 4, max(9, 8 / 2)) = 9 slots.
  shapes["work_info"][0] = 9;
  for (const char *name : {"exp_sums", "max_logits", "tmp_out"})
    shapes[name][1] = 9;
  shapes["reduce_info"][0] = shapes["context_lengths"][0] = 9;
  shapes["block_tables"][0] = 9;
  shapes["query"][0] = shapes["output"][0] = 18;
  ASSERT_TRUE(program->enqueue(stream, viewsOf(shapes), error)) << error;
  launches = fake.launches();
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[1].grid, (std::array<unsigned, 3>{9, 2, 1}));
  EXPECT_EQ(launches[2].grid, (std::array<unsigned, 3>{9, 2, 1}));

  program.reset();
  EXPECT_EQ(fake.counts()[1], 1) << "hipModuleUnload on destruction";
}

TEST(HipLauncher, ABadOperandLaunchesNothing) {
  FakeHip fake;
  std::unique_ptr<HipRuntime> hip = openFake();
  ASSERT_TRUE(hip);
  const mlir::pa::CompiledKernels &kernels = compiled(fullConfig());
  std::string error;
  auto program =
      HipProgram::load(*hip, kernels.codeObject, kernels.metadataJson, error);
  ASSERT_TRUE(program) << error;
  OperandViews views = viewsOf(fullShapes());
  views.erase("output"); // needed by the last kernel only
  EXPECT_FALSE(program->enqueue(nullptr, views, error));
  EXPECT_NE(error.find("'output'"), std::string::npos) << error;
  EXPECT_EQ(fake.launches().size(), 0u);
}

TEST(HipLauncher, LoadErrorsNameTheirCause) {
  FakeHip fake;
  std::unique_ptr<HipRuntime> hip = openFake();
  ASSERT_TRUE(hip);
  const mlir::pa::CompiledKernels &kernels = compiled(fullConfig());
  std::string error;
  EXPECT_FALSE(HipProgram::load(*hip, "not an ELF file", kernels.metadataJson,
                                error));
  EXPECT_NE(error.find("hipModuleLoadData: hipErrorInvalidImage"),
            std::string::npos)
      << error;
  EXPECT_FALSE(HipProgram::load(*hip, kernels.codeObject,
                                R"({"kernels": []})", error));
  EXPECT_NE(error.find("pa_plan, pa_decode and pa_reduce"), std::string::npos)
      << error;
  EXPECT_EQ(fake.counts()[0], 0) << "nothing loaded for a bad sidecar";
}

TEST(HipRuntime, MissingLibrariesAndEntryPointsAreErrors) {
  std::string error;
  EXPECT_FALSE(HipRuntime::open("/nonexistent/libamdhip64.so", error));
  EXPECT_NE(error.find("cannot load the HIP runtime /nonexistent"),
            std::string::npos)
      << error;
  EXPECT_FALSE(HipRuntime::open("libc.so.6", error));
  EXPECT_NE(error.find("the HIP runtime has no hipGetDeviceCount"),
            std::string::npos)
      << error;
}

TEST(HipRuntime, TheProcessRuntimeIsThereOrSaysWhyNot) {
  std::string error;
  const HipRuntime *hip = HipRuntime::get(error);
  if (hip)
    GTEST_SKIP() << "a HIP GPU is here: " << hip->libraryPath();
  EXPECT_TRUE(error.find("no HIP runtime") != std::string::npos ||
              error.find("sees no GPU") != std::string::npos)
      << error;
  // Asked again: the same answer, not a second load.
  std::string again;
  EXPECT_EQ(HipRuntime::get(again), nullptr);
  EXPECT_EQ(again, error);
}

TEST(HipRuntime, FakeMemoryRoundTrip) {
  std::unique_ptr<HipRuntime> hip = openFake();
  ASSERT_TRUE(hip);
  std::string error;
  EXPECT_EQ(hip->deviceCount(error), 1) << error;
  uint64_t address = 0;
  int32_t in[4] = {1, -2, 3, 1 << 30}, out[4] = {};
  ASSERT_TRUE(hip->allocate(sizeof in, address, error)) << error;
  ASSERT_TRUE(hip->copyToDevice(address, in, sizeof in, error)) << error;
  ASSERT_TRUE(hip->copyToHost(out, address, sizeof out, error)) << error;
  EXPECT_EQ(std::memcmp(in, out, sizeof in), 0);
  EXPECT_TRUE(hip->synchronize(nullptr, error)) << error;
  EXPECT_TRUE(hip->release(address, error)) << error;
}

} // namespace
