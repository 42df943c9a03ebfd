//===- KernelManifestTest.cpp - metadata parsing and argument packing -----===//
#include "pa/Runtime/DecodeOperands.h"
#include "pa/Runtime/KernelManifest.h"

#include <gtest/gtest.h>

#include "SidecarJson.h"

#include <cstring>

using namespace pa::runtime;
using namespace pa::runtime::test;

namespace {

/// A sidecar as pa-compile --chip=sm_90a writes it (two kernels, the
/// second with a memref of rank 2 whose dim-0 stride it reads at run time
/// and a grid read from an operand; the first's sidecar predates
/// "dynamic_strides").
const std::string kSidecar = sidecarJson(
    {{"pa_plan", "x = 1, y = 1, z = 1", 128, 0,
      R"("registers": null, "stack_bytes": null, "spill_store_bytes": null, )"
      R"("spill_load_bytes": null)",
      descriptorParams("context_lengths", 1)},
     {"pa_decode", "x = work_info dim 0, y = 2, z = 1", 128, 70000,
      R"("registers": 40, "programmatic_launch": true, )"
      R"("dynamic_strides": {"work_info": [0]})",
      descriptorParams("work_info", 2)}});

int64_t paramAt(PackedParams &params, size_t index) {
  int64_t value;
  std::memcpy(&value, params.kernelParams()[index], sizeof value);
  return value;
}

/// `text` with its `field` replaced by each malformed one of `cases` is
/// refused with "kernel 'pa_decode': MESSAGE".
void expectFieldRefused(
    const std::string &text, const std::string &field,
    std::initializer_list<std::pair<const char *, const char *>> cases) {
  size_t at = text.find(field);
  ASSERT_NE(at, std::string::npos) << field;
  for (auto [bad, message] : cases) {
    std::string changed = text;
    changed.replace(at, field.size(), bad);
    ModuleManifest manifest;
    std::string error;
    EXPECT_FALSE(parseManifest(changed, manifest, error)) << bad;
    EXPECT_EQ(error, std::string("kernel 'pa_decode': ") + message);
  }
}

TEST(KernelManifest, ParsesTheSidecar) {
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseManifest(kSidecar, manifest, error)) << error;
  EXPECT_EQ(manifest.target, "sm_90a");
  EXPECT_EQ(manifest.ptxVersion, "8.5");
  ASSERT_EQ(manifest.kernels.size(), 2u);
  const KernelInfo &decode = manifest.kernels[1];
  EXPECT_EQ(decode.symbol, "pa_decode");
  EXPECT_EQ(decode.blockSize, (std::array<int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(decode.sharedBytes, 70000);
  EXPECT_EQ(decode.registers, 40);
  EXPECT_EQ(manifest.kernels[0].registers, -1);
  // Absent (an older sidecar): launched plainly.
  EXPECT_TRUE(decode.programmaticLaunch);
  EXPECT_FALSE(manifest.kernels[0].programmaticLaunch);
  EXPECT_EQ(decode.params.size(), 7u);
  EXPECT_EQ(decode.grid[0].operand, "work_info");
  EXPECT_EQ(decode.grid[1].constant, 2);
  // Each meaning split once, here: launches pack from these fields.
  const KernelParam &size1 = decode.params[4];
  EXPECT_EQ(size1.operand, "work_info");
  EXPECT_EQ(size1.field, KernelParam::Field::Size);
  EXPECT_EQ(size1.dim, 1);
  EXPECT_EQ(decode.params[6].field, KernelParam::Field::Stride);
  EXPECT_EQ(decode.params[6].dim, 1);
  // "dynamic_strides" marks the strides read at run time; absent: none.
  EXPECT_TRUE(decode.params[5].dynamicStride);
  EXPECT_FALSE(decode.params[6].dynamicStride);
  EXPECT_FALSE(manifest.kernels[0].params[4].dynamicStride);
  EXPECT_EQ(decode.params[2].field, KernelParam::Field::Offset);
  EXPECT_EQ(manifest.kernels[0].params[1].field, KernelParam::Field::Pointer);
  EXPECT_EQ(manifest.kernels[0].params[1].operand, "context_lengths");
}

TEST(KernelManifest, PacksDescriptorsAndEvaluatesGrids) {
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseManifest(kSidecar, manifest, error)) << error;
  OperandViews views;
  views["work_info"] = rowMajorView(0x7000, {132, 4});
  views["work_info"].offset = 3;
  PackedParams params;
  ASSERT_TRUE(params.pack(manifest.kernels[1], views, error)) << error;
  ASSERT_EQ(params.bytes().size(), 56u);
  EXPECT_EQ(paramAt(params, 0), 0x7000); // allocated
  EXPECT_EQ(paramAt(params, 1), 0x7000); // aligned
  EXPECT_EQ(paramAt(params, 2), 3);      // offset
  EXPECT_EQ(paramAt(params, 3), 132);
  EXPECT_EQ(paramAt(params, 4), 4);
  EXPECT_EQ(paramAt(params, 5), 4); // row-major strides
  EXPECT_EQ(paramAt(params, 6), 1);
  // The pointers point into the packed bytes at the declared offsets.
  EXPECT_EQ(static_cast<uint8_t *>(params.kernelParams()[3]) -
                params.bytes().data(),
            24);

  std::array<int64_t, 3> grid;
  ASSERT_TRUE(evaluateGrid(manifest.kernels[1], views, grid, error)) << error;
  EXPECT_EQ(grid, (std::array<int64_t, 3>{132, 2, 1}));
}

TEST(KernelManifest, ChoosesGridZByTheWorkgroupsOfXAndY) {
  // The NVIDIA reduce kernel's "z = 4 if x * y le 66 else 1": 4 where the
  // launch's x * y is at most 66, else 1; only z may be chosen, and a
  // limit of 0 is no choice.
  std::string text = kSidecar;
  text.replace(text.find("y = 2, z = 1"), 12,
               "y = 2, z = 4 if x * y le 66 else 1");
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseManifest(text, manifest, error)) << error;
  const KernelInfo &decode = manifest.kernels[1];
  OperandViews views;
  std::array<int64_t, 3> grid;
  for (auto [rows, z] : {std::pair{33, 4}, std::pair{34, 1}, std::pair{1, 4}}) {
    views["work_info"] = rowMajorView(0x7000, {rows, 4});
    ASSERT_TRUE(evaluateGrid(decode, views, grid, error)) << error;
    EXPECT_EQ(grid, (std::array<int64_t, 3>{rows, 2, z})) << rows;
  }
  for (const char *bad :
       {"x = 4 if x * y le 66 else 1, y = 2, z = 1",
        "x = work_info dim 0, y = 2, z = 4 if x * y le 0 else 1",
        "x = work_info dim 0, y = 2, z = 4 if x * y < 66 else 1"}) {
    std::string changed = kSidecar;
    changed.replace(changed.find("x = work_info dim 0, y = 2, z = 1"), 33, bad);
    EXPECT_FALSE(parseManifest(changed, manifest, error)) << bad;
    EXPECT_NE(error.find("cannot evaluate the grid"), std::string::npos)
        << error;
  }
}

TEST(KernelManifest, ReportsMissingOperandsAndBadDims) {
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseManifest(kSidecar, manifest, error)) << error;
  OperandViews views;
  PackedParams params;
  EXPECT_FALSE(params.pack(manifest.kernels[1], views, error));
  EXPECT_NE(error.find("needs operand 'work_info'"), std::string::npos)
      << error;
  std::array<int64_t, 3> grid;
  EXPECT_FALSE(evaluateGrid(manifest.kernels[1], views, grid, error));
  views["work_info"] = rowMajorView(0x7000, {132}); // rank 1, not 2
  EXPECT_FALSE(params.pack(manifest.kernels[1], views, error));
  EXPECT_NE(error.find("has rank 1"), std::string::npos) << error;
  EXPECT_NE(error.find("kernel 'pa_decode' parameter 'work_info.size[1]'"),
            std::string::npos)
      << error;
}

TEST(KernelManifest, RefusesStridesTheKernelDoesNotReadUnlessRowMajor) {
  // pa_decode reads work_info's dim-0 stride at run time; dim 1 is
  // compiled in (1). pa_plan's sidecar lists none (one written before the
  // field): only row-major views.
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseManifest(kSidecar, manifest, error)) << error;
  const KernelInfo &plan = manifest.kernels[0], &decode = manifest.kernels[1];
  OperandViews views;
  MemRefView &work = views["work_info"] = rowMajorView(0x7000, {132, 4});
  PackedParams params;
  work.strides = {9, 1}; // rows of a wider array: dim 0 is read
  ASSERT_TRUE(params.pack(decode, views, error)) << error;
  EXPECT_EQ(paramAt(params, 5), 9);
  work.strides = {8, 2}; // every other element: dim 1 is compiled in
  EXPECT_FALSE(params.pack(decode, views, error));
  EXPECT_EQ(error, "operand 'work_info' has stride 2 in dim 1, but kernel "
                   "'pa_decode' reads that dim at the row-major stride 1 "
                   "(its sidecar lists the strides it reads at run time in "
                   "'dynamic_strides', and not this one): pass a row-major "
                   "view");
  // A dim of one element, or an empty view, is read at no stride.
  work.sizes = {132, 1};
  work.strides = {9, 7};
  EXPECT_TRUE(params.pack(decode, views, error)) << error;
  work.sizes = {0, 4};
  work.strides = {8, 2};
  EXPECT_TRUE(params.pack(decode, views, error)) << error;

  views["context_lengths"] = rowMajorView(0x6000, {9});
  ASSERT_TRUE(params.pack(plan, views, error)) << error;
  views["context_lengths"].strides = {2};
  EXPECT_FALSE(params.pack(plan, views, error));
  EXPECT_NE(error.find("operand 'context_lengths' has stride 2 in dim 0, "
                       "but kernel 'pa_plan' reads that dim at the "
                       "row-major stride 1"),
            std::string::npos)
      << error;

  // A bound launch's refill checks the strides as they are now.
  work = rowMajorView(0x7000, {132, 4});
  PackedParams bound;
  ASSERT_TRUE(bound.pack(decode, views, error, /*fixedViews=*/true)) << error;
  work.strides = {4, 3};
  EXPECT_FALSE(bound.pack(decode, views, error, true));
  EXPECT_NE(error.find("operand 'work_info' has stride 3 in dim 1"),
            std::string::npos)
      << error;
}

TEST(KernelManifest, RefusesViewsWithFewerSizesThanStrides) {
  // A view is one size and one stride per dim: a view of 1 size and 2
  // strides is refused by name, before a stride the kernel does not read
  // is checked against the row-major strides of its sizes (which would
  // read past them), on a first pack and on a bound launch's refill.
  const std::string sidecar = sidecarJson(
      {{"k", "x = 1, y = 1, z = 1", 64, 0, R"("registers": 1)",
        {"q.allocated_ptr", "q.aligned_ptr", "q.offset", "q.size[0]",
         "q.stride[0]", "q.stride[1]"}}});
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseManifest(sidecar, manifest, error)) << error;
  OperandViews views;
  MemRefView &q = views["q"];
  q.data = 0x1000;
  q.sizes = {4};
  q.strides = {1, 5};
  PackedParams params;
  EXPECT_FALSE(params.pack(manifest.kernels[0], views, error));
  EXPECT_NE(error.find("operand 'q' has 1 sizes and 2 strides"),
            std::string::npos)
      << error;

  q.sizes = {4, 1};
  PackedParams bound;
  ASSERT_TRUE(bound.pack(manifest.kernels[0], views, error, true)) << error;
  q.sizes = {4};
  EXPECT_FALSE(bound.pack(manifest.kernels[0], views, error, true));
  EXPECT_NE(error.find("operand 'q' has 1 sizes and 2 strides"),
            std::string::npos)
      << error;
}

TEST(KernelManifest, ComparesStridesAndOffsetsTheTypeFixes) {
  // A query typed `memref<2x4x64xf32, strided<[768, 64, 1], offset: 5>>`:
  // its rows are padded to 768 and it starts at element 5, both compiled
  // in (the sidecar's "static_strides" and "static_offsets"); a row-major
  // view (rows of 256) would be read at 768 and offset 5, so it is
  // refused, and the padded view is taken.
  const std::string sidecar = sidecarJson(
      {{"pa_decode", "x = 1, y = 1, z = 1", 256, 0,
        R"("dynamic_strides": {}, )"
        R"("static_strides": {"query": {"0": 768, "1": 64, "2": 1}}, )"
        R"("static_offsets": {"query": 5})",
        descriptorParams("query", 3)}},
      "gfx950");
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseManifest(sidecar, manifest, error)) << error;
  const KernelInfo &decode = manifest.kernels[0];
  OperandViews views;
  MemRefView &query = views["query"] = rowMajorView(0x7000, {2, 4, 64});
  query.offset = 5;
  PackedParams params;
  EXPECT_FALSE(params.pack(decode, views, error));
  EXPECT_EQ(error, "operand 'query' has stride 256 in dim 0, but kernel "
                   "'pa_decode' reads that dim at the stride 768 its type "
                   "fixes (its sidecar's 'static_strides'): pass a view "
                   "with that stride");
  query.strides = {768, 64, 1};
  ASSERT_TRUE(params.pack(decode, views, error)) << error;
  EXPECT_EQ(paramAt(params, 6), 768);
  // A dim of one element is read at no stride.
  query.sizes = {1, 4, 64};
  query.strides = {256, 64, 1};
  EXPECT_TRUE(params.pack(decode, views, error)) << error;
  // The offset is compiled in too.
  query.sizes = {2, 4, 64};
  query.strides = {768, 64, 1};
  query.offset = 0;
  EXPECT_FALSE(params.pack(decode, views, error));
  EXPECT_EQ(error, "operand 'query' has offset 0, but kernel 'pa_decode' "
                   "reads it at the offset 5 its type fixes (its sidecar's "
                   "'static_offsets'): pass a view with that offset");
}

TEST(KernelManifest, ComparesSizesTheTypeFixes) {
  // An nhd key cache typed `memref<?x16x8x128xbf16, strided<[?, 1024,
  // 128, 1]>>`: P, Hkv and D are compiled in (the sidecar's
  // "static_sizes"). A view of [6, 16, 8, 64] at the compiled strides
  // passes every stride check but would be read as [6, 16, 8, 128]: it is
  // refused by operand and dim; N is free. A sidecar without the field
  // (written before it) is read as fixing no size: the view is taken.
  const std::string field =
      R"("static_sizes": {"key_cache": {"1": 16, "2": 8, "3": 128}})";
  auto sidecar = [&](const std::string &sizes) {
    return sidecarJson(
        {{"pa_decode", "x = 1, y = 1, z = 1", 256, 0,
          R"("dynamic_strides": {"key_cache": [0]}, )"
          R"("static_strides": {"key_cache": {"1": 1024, "2": 128, )"
          R"("3": 1}}, "static_offsets": {"key_cache": 0})" +
              (sizes.empty() ? "" : ", " + sizes),
          descriptorParams("key_cache", 4)}},
        "gfx950");
  };
  ModuleManifest manifest, old;
  std::string error;
  ASSERT_TRUE(parseManifest(sidecar(field), manifest, error)) << error;
  ASSERT_TRUE(parseManifest(sidecar(""), old, error)) << error;
  const KernelInfo &decode = manifest.kernels[0];
  EXPECT_FALSE(decode.params[3].staticValue); // size[0]: dynamic
  EXPECT_EQ(decode.params[6].staticValue, 128);
  EXPECT_FALSE(old.kernels[0].params[6].staticValue);

  OperandViews views;
  MemRefView &key = views["key_cache"] = rowMajorView(0x7000, {6, 16, 8, 64});
  key.strides = {16 * 1024, 1024, 128, 1};
  PackedParams params;
  EXPECT_FALSE(params.pack(decode, views, error));
  EXPECT_EQ(error, "operand 'key_cache' has size 64 in dim 3, but kernel "
                   "'pa_decode' was compiled for size 128 there (its "
                   "sidecar's 'static_sizes'): pass a view of the "
                   "program's shape");
  EXPECT_TRUE(params.pack(old.kernels[0], views, error)) << error;
  key.sizes = {40, 16, 8, 128};
  ASSERT_TRUE(params.pack(decode, views, error)) << error;
  EXPECT_EQ(paramAt(params, 3), 40);
  EXPECT_EQ(paramAt(params, 6), 128);
  // No pool at all: N = 0, the fixed sizes still as compiled.
  key.sizes = {0, 16, 8, 128};
  EXPECT_TRUE(params.pack(decode, views, error)) << error;
  key.sizes = {0, 16, 4, 128};
  EXPECT_FALSE(params.pack(decode, views, error));
  EXPECT_NE(error.find("has size 4 in dim 2"), std::string::npos) << error;

  expectFieldRefused(
      sidecar(field), field,
      {{R"("static_sizes": [0])",
        "'static_sizes' must be an object of operand names to objects "
        "of dims to sizes"},
       {R"("static_sizes": {"key_cache": 16})",
        "'static_sizes' of 'key_cache' must be an object of dims to sizes"},
       {R"("static_sizes": {"key_cache": {"-1": 16}})",
        "'static_sizes' of 'key_cache' must map dims >= 0 to integers"},
       {R"("static_sizes": {"key_cache": {"1": "16"}})",
        "'static_sizes' of 'key_cache' must map dims >= 0 to integers"}});
}

TEST(KernelManifest, RefusesMalformedDynamicStrides) {
  expectFieldRefused(
      kSidecar, R"("dynamic_strides": {"work_info": [0]})",
      {{R"("dynamic_strides": [0])",
        "'dynamic_strides' must be an object of operand names to "
        "arrays of dims"},
       {R"("dynamic_strides": {"work_info": 0})",
        "'dynamic_strides' of 'work_info' must be an array of dims"},
       {R"("dynamic_strides": {"work_info": [-1]})",
        "'dynamic_strides' of 'work_info' must hold dims >= 0"}});
}

TEST(KernelManifest, RefillsThroughViewsResolvedOnce) {
  // A bound launch's packs (fixedViews): the views are looked up on the
  // first pack only; later packs read the values the caller wrote into
  // the same views since, a rank that shrank is still reported, and a
  // pack from another map or of another kernel resolves anew.
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseManifest(kSidecar, manifest, error)) << error;
  const KernelInfo &decode = manifest.kernels[1];
  OperandViews views;
  views["work_info"] = rowMajorView(0x7000, {132, 4});
  PackedParams params;
  ASSERT_TRUE(params.pack(decode, views, error, /*fixedViews=*/true))
      << error;
  MemRefView &view = views["work_info"];
  view.data = 0x9000;
  view.offset = 5;
  view.sizes = {7, 4};
  view.strides = {8, 1};
  ASSERT_TRUE(params.pack(decode, views, error, true)) << error;
  EXPECT_EQ(paramAt(params, 1), 0x9000);
  EXPECT_EQ(paramAt(params, 2), 5);
  EXPECT_EQ(paramAt(params, 3), 7);
  EXPECT_EQ(paramAt(params, 5), 8);
  EXPECT_EQ(static_cast<uint8_t *>(params.kernelParams()[5]) -
                params.bytes().data(),
            40);

  view.sizes = {7};
  EXPECT_FALSE(params.pack(decode, views, error, true));
  EXPECT_NE(error.find("kernel 'pa_decode' parameter 'work_info.size[1]': "
                       "operand 'work_info' has rank 1"),
            std::string::npos)
      << error;

  OperandViews other;
  other["work_info"] = rowMajorView(0x5000, {3, 4});
  ASSERT_TRUE(params.pack(decode, other, error, true)) << error;
  EXPECT_EQ(paramAt(params, 1), 0x5000);
  EXPECT_EQ(paramAt(params, 3), 3);
  other["context_lengths"] = rowMajorView(0x6000, {9});
  ASSERT_TRUE(params.pack(manifest.kernels[0], other, error, true)) << error;
  EXPECT_EQ(params.bytes().size(), 40u);
  EXPECT_EQ(paramAt(params, 1), 0x6000);
  EXPECT_EQ(paramAt(params, 3), 9);

  // Without fixedViews every pack looks the operands up: a map whose
  // entries were rebuilt is read afresh.
  PackedParams unfixed;
  OperandViews rebuilt;
  rebuilt["work_info"] = rowMajorView(0x8000, {2, 4});
  ASSERT_TRUE(unfixed.pack(decode, rebuilt, error)) << error;
  rebuilt.clear();
  rebuilt["work_info"] = rowMajorView(0x8100, {2, 4});
  ASSERT_TRUE(unfixed.pack(decode, rebuilt, error)) << error;
  EXPECT_EQ(paramAt(unfixed, 1), 0x8100);
}

TEST(KernelManifest, RefusesOperandsThatDisagreeOnASharedSize) {
  // A reduce kernel's work_info [capacity, 4], reduce_info [B, 2] and
  // tmp_out [Hkv, capacity, Q*G, D]: a tmp_out of 91 slots beside a
  // work_info of 128 would be written past its end (the decode writes a
  // slot's partials for every work_info row). The sizes the types fix are
  // listed ("static_sizes"), so the others are the table's shared sizes;
  // a sidecar without the field is not checked.
  const std::string field =
      R"("static_sizes": {"work_info": {"1": 4}, "reduce_info": {"1": 2}, )"
      R"("tmp_out": {"0": 2, "2": 8, "3": 256}})";
  auto sidecar = [&](const std::string &sizes) {
    return sidecarJson({{"pa_reduce", "x = reduce_info dim 0, y = 2, z = 1",
                         256, 0, sizes,
                         descriptorParams({{"work_info", 2},
                                           {"reduce_info", 2},
                                           {"tmp_out", 4}})}});
  };
  ModuleManifest manifest, old;
  std::string error;
  ASSERT_TRUE(parseManifest(sidecar(field), manifest, error)) << error;
  ASSERT_TRUE(parseManifest(sidecar(R"("registers": 40)"), old, error))
      << error;
  const KernelInfo &reduce = manifest.kernels[0];
  EXPECT_EQ(reduce.params[3].sharedSize, SharedSize::Capacity); // work_info
  EXPECT_EQ(reduce.params[4].sharedSize, SharedSize::None);     // fixed 4
  EXPECT_EQ(old.kernels[0].params[3].sharedSize, SharedSize::None);

  OperandViews views;
  views["work_info"] = rowMajorView(0x7000, {128, 4});
  views["reduce_info"] = rowMajorView(0x8000, {8, 2});
  views["tmp_out"] = rowMajorView(0x9000, {2, 91, 8, 256});
  PackedParams params;
  EXPECT_FALSE(params.pack(reduce, views, error));
  EXPECT_EQ(error, "operand 'tmp_out' has size 91 in dim 1 (capacity), but "
                   "operand 'work_info' has 128 in dim 0: kernel "
                   "'pa_reduce' takes operands of one decode run");
  EXPECT_TRUE(params.pack(old.kernels[0], views, error)) << error;
  views["tmp_out"].sizes[1] = 128;
  setRowMajorStrides(views["tmp_out"]);
  EXPECT_TRUE(params.pack(reduce, views, error)) << error;
  // A bound launch's refill checks again.
  ASSERT_TRUE(params.pack(reduce, views, error, /*fixedViews=*/true))
      << error;
  views["work_info"].sizes[0] = 64;
  setRowMajorStrides(views["work_info"]);
  EXPECT_FALSE(params.pack(reduce, views, error, true));
  EXPECT_NE(error.find("operand 'tmp_out' has size 128 in dim 1 (capacity), "
                       "but operand 'work_info' has 64"),
            std::string::npos)
      << error;
}

TEST(KernelManifest, RefusesAWorkspaceOfAnotherCapacityThanThePlans) {
  // The plan kernel compiled for budget 256, 132 partitions at most and 2
  // KV heads plans min(8 * 132, max(8, 128)) = 128 slots for 8 sequences.
  // A workspace sized for another budget (a caller's own count, or a
  // program compiled with another tuning table) is refused, not planned
  // into: 91 rows would be written past their end and 37 slots never
  // decoded; 132 rows would leave 4 slots the plan never writes.
  const std::string limits =
      R"("plan_limits": {"budget": 256, "max_partitions": 132, )"
      R"("kv_heads": 2})";
  auto sidecar = [&](const std::string &planLimits) {
    return sidecarJson(
        {{"pa_decode", "x = 1, y = 1, z = 1", 128, 0,
          R"("static_sizes": {"work_info": {"1": 4}, )"
          R"("reduce_info": {"1": 2}})" +
              (planLimits.empty() ? "" : ", " + planLimits),
          descriptorParams({{"context_lengths", 1},
                            {"work_info", 2},
                            {"reduce_info", 2}})}});
  };
  ModuleManifest manifest, unlimited;
  std::string error;
  ASSERT_TRUE(parseManifest(sidecar(limits), manifest, error)) << error;
  ASSERT_TRUE(parseManifest(sidecar(""), unlimited, error)) << error;
  const KernelInfo &plan = manifest.kernels[0];
  ASSERT_TRUE(plan.planLimits);
  EXPECT_EQ(plan.planLimits->budget, 256);
  EXPECT_FALSE(unlimited.kernels[0].planLimits);

  OperandViews views;
  views["context_lengths"] = rowMajorView(0x6000, {8});
  views["work_info"] = rowMajorView(0x7000, {91, 4});
  views["reduce_info"] = rowMajorView(0x8000, {8, 2});
  PackedParams params;
  EXPECT_FALSE(params.pack(plan, views, error));
  EXPECT_EQ(error,
            "operand 'work_info' has 91 plan slots in dim 0, but kernel "
            "'pa_decode' plans 128 for 8 sequences (budget 256, "
            "max_partitions 132, 2 KV heads: its sidecar's 'plan_limits'): "
            "size the workspace by the program's plan capacity");
  EXPECT_TRUE(params.pack(unlimited.kernels[0], views, error)) << error;
  for (int64_t rows : {132, 128}) {
    views["work_info"] = rowMajorView(0x7000, {rows, 4});
    EXPECT_EQ(params.pack(plan, views, error), rows == 128) << rows;
  }
  // The batch from any operand that has it: context_lengths and
  // reduce_info must agree first.
  views["reduce_info"] = rowMajorView(0x8000, {9, 2});
  EXPECT_FALSE(params.pack(plan, views, error));
  EXPECT_NE(error.find("operand 'reduce_info' has size 9 in dim 0 (B)"),
            std::string::npos)
      << error;

  expectFieldRefused(
      sidecar(limits), limits,
      {{R"("plan_limits": 4)", "'plan_limits': 'budget' must be an integer"},
       {R"("plan_limits": {"budget": 256, "max_partitions": 0, )"
        R"("kv_heads": 2})",
        "'plan_limits': 'budget', 'max_partitions' and 'kv_heads' must be "
        ">= 1"}});
}

TEST(DecodeOperands, NameTheSizesOperandsShare) {
  // From the table's patterns ("[Hkv, capacity, Q*G, D]"): the dims whose
  // sizes a run's operands must agree on; fixed ones and unknown operands
  // have none.
  EXPECT_EQ(sharedSizeOf("work_info", 0), SharedSize::Capacity);
  EXPECT_EQ(sharedSizeOf("tmp_out", 1), SharedSize::Capacity);
  EXPECT_EQ(sharedSizeOf("tmp_out", 0), SharedSize::None); // Hkv
  EXPECT_EQ(sharedSizeOf("query", 0), SharedSize::QueryRows);
  EXPECT_EQ(sharedSizeOf("lse", 0), SharedSize::QueryRows);
  EXPECT_EQ(sharedSizeOf("key_cache", 0), SharedSize::Pages);
  EXPECT_EQ(sharedSizeOf("k_scale", 0), SharedSize::Pages);
  EXPECT_EQ(sharedSizeOf("block_tables", 0), SharedSize::Batch);
  EXPECT_EQ(sharedSizeOf("block_tables", 1), SharedSize::TableWidth);
  EXPECT_EQ(sharedSizeOf("context_lengths", 0), SharedSize::Batch);
  EXPECT_EQ(sharedSizeOf("context_lengths", 1), SharedSize::None);
  EXPECT_EQ(sharedSizeOf("scratch", 0), SharedSize::None);
}

TEST(KernelManifest, RefusesViewsThatMisalignTheKernelsAccesses) {
  // A key cache of fp8 rows read in 16-byte chunks (the sidecar's
  // "alignments": {"bytes": 16, "element_bytes": 1}): a view whose first
  // element (pointer + offset) or a stride of a dim of more than one
  // element (but the last) is not a multiple of 16 bytes would fault on
  // the GPU, so the pack refuses it, naming the operand and the address or
  // dim; the aligned view, a dim of one element at any stride and an
  // empty view are taken; so are views the sidecar lists no alignment for.
  const std::string field =
      R"("alignments": {"key_cache": {"bytes": 16, "element_bytes": 1}})";
  const std::string sidecar =
      sidecarJson({{"pa_decode", "x = 1, y = 1, z = 1", 128, 0,
                    R"("dynamic_strides": {"key_cache": [0]}, )" + field,
                    descriptorParams("key_cache", 2)}});
  ModuleManifest manifest;
  std::string error;
  ASSERT_TRUE(parseManifest(sidecar, manifest, error)) << error;
  const KernelInfo &decode = manifest.kernels[0];
  EXPECT_EQ(decode.params[1].alignBytes, 16);
  EXPECT_EQ(decode.params[1].elementBytes, 1);
  EXPECT_EQ(decode.params[0].alignBytes, 0); // the allocated pointer
  OperandViews views;
  MemRefView &cache = views["key_cache"] = rowMajorView(0x10000, {8, 256});
  PackedParams params;
  ASSERT_TRUE(params.pack(decode, views, error)) << error;

  cache.offset = 8;
  EXPECT_FALSE(params.pack(decode, views, error));
  EXPECT_EQ(error, "operand 'key_cache' starts at address 0x10008 (pointer "
                   "+ offset 8 elements), but kernel 'pa_decode' accesses it "
                   "16 bytes at a time (its sidecar's 'alignments'): pass a "
                   "view whose first element and strides keep 16-byte "
                   "alignment");
  cache.offset = 32;
  EXPECT_TRUE(params.pack(decode, views, error)) << error;
  cache.data = 0x10004;
  EXPECT_FALSE(params.pack(decode, views, error));
  EXPECT_NE(error.find("starts at address 0x10024"), std::string::npos)
      << error;
  cache.data = 0x10000;
  cache.strides = {264, 1};
  EXPECT_FALSE(params.pack(decode, views, error));
  EXPECT_EQ(error, "operand 'key_cache' has stride 264 in dim 0 (264 "
                   "bytes), but kernel 'pa_decode' accesses it 16 bytes at "
                   "a time (its sidecar's 'alignments'): pass a view whose "
                   "first element and strides keep 16-byte alignment");
  cache.sizes = {1, 256};
  EXPECT_TRUE(params.pack(decode, views, error)) << error;
  cache.sizes = {0, 256};
  cache.data = 0x10001;
  EXPECT_TRUE(params.pack(decode, views, error)) << error;

  // A bound launch's refill checks the views' new addresses too.
  cache.sizes = {8, 256};
  cache.strides = {272, 1};
  cache.data = 0x10000;
  ASSERT_TRUE(params.pack(decode, views, error, /*fixedViews=*/true)) << error;
  cache.data = 0x10002;
  EXPECT_FALSE(params.pack(decode, views, error, true));
  EXPECT_NE(error.find("starts at address 0x10022"), std::string::npos)
      << error;

  // A sidecar without the field (or the AMD one) checks nothing.
  std::string unlisted = sidecar;
  unlisted.replace(unlisted.find(field), field.size(), R"("alignments": {})");
  ASSERT_TRUE(parseManifest(unlisted, manifest, error)) << error;
  PackedParams unchecked;
  EXPECT_TRUE(unchecked.pack(manifest.kernels[0], views, error)) << error;

  expectFieldRefused(
      sidecar, field,
      {{R"("alignments": {"key_cache": 16})",
        "'alignments' of 'key_cache': 'bytes' must be an integer"},
       {R"("alignments": {"key_cache": {"bytes": 12, "element_bytes": 1}})",
        "'alignments' of 'key_cache': 'bytes' must be a power of two and a "
        "multiple of 'element_bytes' (>= 1)"},
       {R"("alignments": {"key_cache": {"bytes": 2, "element_bytes": 4}})",
        "'alignments' of 'key_cache': 'bytes' must be a power of two and a "
        "multiple of 'element_bytes' (>= 1)"},
       {R"("alignments": [16])",
        "'alignments' must be an object of operand names to objects of "
        "'bytes' and 'element_bytes'"}});
}

TEST(KernelManifest, RejectsMalformedSidecars) {
  ModuleManifest manifest;
  std::string error;
  EXPECT_FALSE(parseManifest("{", manifest, error));
  EXPECT_FALSE(parseManifest(R"({"kernels": 3})", manifest, error));
  std::string dynamicGrid = kSidecar;
  dynamicGrid.replace(dynamicGrid.find("y = 2"), 5, "y = dynamic");
  EXPECT_FALSE(parseManifest(dynamicGrid, manifest, error));
  EXPECT_NE(error.find("cannot evaluate the grid"), std::string::npos) << error;
  std::string badMeaning = kSidecar;
  badMeaning.replace(badMeaning.find("work_info.size[1]"), 17, "work_info.sizes");
  EXPECT_FALSE(parseManifest(badMeaning, manifest, error));
  EXPECT_NE(error.find("unknown parameter meaning"), std::string::npos)
      << error;
  std::string badFlag = kSidecar;
  badFlag.replace(badFlag.find("\"programmatic_launch\": true"), 27,
                  "\"programmatic_launch\": 1");
  EXPECT_FALSE(parseManifest(badFlag, manifest, error));
  EXPECT_NE(error.find("'programmatic_launch' must be true or false"),
            std::string::npos)
      << error;
}

/// A configuration of Hq, Hkv, D, P and Q (packed fp8 caches, plain V, no
/// scales: the other fields zero).
PaDecodeConfig tableConfig(int64_t hq, int64_t hkv, int64_t d, int64_t p,
                           int64_t q) {
  PaDecodeConfig config{};
  config.numQueryHeads = hq;
  config.numKVHeads = hkv;
  config.headDim = d;
  config.pageSize = p;
  config.queryLength = q;
  return config;
}

TEST(DecodeOperands, FollowTheSpecShapes) {
  PaDecodeConfig config = tableConfig(16, 2, 256, 16, 2);
  config.kvType = PA_KV_E4M3FNUZ;
  config.vLayout = PA_V_TRANSPOSED;
  config.scaleMode = PA_SCALE_PER_TOKEN;
  config.hasSinks = true;
  DecodeDims dims{3, 40, 7, 132};
  std::vector<DecodeOperand> operands = decodeOperands(config, dims);
  std::vector<std::string> names;
  for (const DecodeOperand &operand : operands)
    names.push_back(operand.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "query", "key_cache", "value_cache", "block_tables",
                       "context_lengths", "k_scale", "v_scale", "sinks",
                       "work_info", "reduce_info", "exp_sums", "max_logits",
                       "tmp_out", "output"}));
  EXPECT_EQ(operands[1].sizes, (std::vector<int64_t>{40, 2, 16, 16, 16}));
  EXPECT_EQ(operands[2].sizes, (std::vector<int64_t>{40, 2, 1, 256, 16}));
  EXPECT_EQ(operands[12].sizes, (std::vector<int64_t>{2, 132, 16, 256}));
  EXPECT_EQ(operands[0].bytes(), 6 * 16 * 256 * 2);
  // Plan, partials and output are written; the rest only read.
  for (size_t i = 0; i < operands.size(); ++i)
    EXPECT_EQ(operands[i].input, i < 8) << operands[i].name;
}

TEST(DecodeOperands, KeepUnknownDimsUnknown) {
  // A module's signature: B, N, max_pages and the capacity unknown; the
  // query and output rows (B * Q) stay unknown, the head dims do not.
  PaDecodeConfig config = tableConfig(8, 1, 128, 16, 3);
  config.kvType = PA_KV_BF16;
  config.kvLayout = PA_KV_LAYOUT_NHD;
  config.returnLse = true;
  config.hasAlibi = true;
  std::vector<DecodeOperand> operands = decodeOperands(
      config, {kDynamicSize, kDynamicSize, kDynamicSize, kDynamicSize});
  ASSERT_EQ(operands.size(), 13u);
  EXPECT_EQ(operands[0].sizes, (std::vector<int64_t>{kDynamicSize, 8, 128}));
  EXPECT_EQ(operands[1].sizes,
            (std::vector<int64_t>{kDynamicSize, 16, 1, 128}));
  EXPECT_STREQ(operands[1].pattern, "nhd [N, P, Hkv, D]");
  EXPECT_EQ(operands[1].elementBytes, 2);
  EXPECT_STREQ(operands[5].name, "alibi_slopes");
  EXPECT_TRUE(operands[5].input);
  EXPECT_EQ(operands[12].sizes, (std::vector<int64_t>{kDynamicSize, 8}));
  EXPECT_STREQ(operands[12].name, "lse");
  EXPECT_FALSE(operands[12].input);
}

} // namespace
