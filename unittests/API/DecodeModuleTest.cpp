//===- DecodeModuleTest.cpp - DecodeConfig, buildDecodeModule------------===//
//
// The module builder against the dialect verifier: every supported
// combination verifies, every rule the verifier enforces comes back as its
// diagnostic text (never a crash), and the C API reports the same text.
//
//===----------------------------------------------------------------------===//
#include "pa/API/Compile.h"
#include "pa/API/DecodeConfig.h"
#include "pa/API/HostProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "pa/IR/PaOps.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::pa;

namespace {

/// The error buildDecodeModule gives for `config` ("" when it verifies).
std::string buildError(const DecodeConfig &config) {
  MLIRContext context;
  std::string error;
  OwningOpRef<ModuleOp> module = buildDecodeModule(context, config, error);
  EXPECT_EQ(static_cast<bool>(module), error.empty()) << error;
  return error;
}

std::string printed(const DecodeConfig &config) {
  MLIRContext context;
  std::string error, text;
  OwningOpRef<ModuleOp> module = buildDecodeModule(context, config, error);
  EXPECT_TRUE(module) << error;
  if (module) {
    llvm::raw_string_ostream os(text);
    module->print(os);
  }
  return text;
}

TEST(DecodeModule, ExampleConfigurationHasTheExampleTypes) {
  // examples/decode-d256-fp8.mlir as a DecodeConfig.
  DecodeConfig config;
  config.numQueryHeads = 16;
  config.numKVHeads = 2;
  config.headDim = 256;
  config.pageSize = 16;
  config.queryLength = 2;
  config.vLayout = VLayout::transposed;
  config.scaleMode = ScaleMode::per_token;
  config.slidingWindow = 257;
  config.hasSinks = true;
  std::string text = printed(config);
  for (const char *expected :
       {// The query's rows at a run-time stride (a fused qkv view).
        "func.func @pa_decode(%arg0: memref<?x16x256xbf16, strided<[?, "
        "256, 1]>>, "
        "%arg1: memref<?x2x16x16x16xf8E4M3FN>, "
        "%arg2: memref<?x2x1x256x16xf8E4M3FN>, %arg3: memref<?x?xi32>, "
        "%arg4: memref<?xi32>, %arg5: memref<?x2x16xf32>, "
        "%arg6: memref<?x2x16xf32>, %arg7: memref<16xf32>, "
        "%arg8: memref<?x4xi32>, %arg9: memref<?x2xi32>, "
        "%arg10: memref<2x?x16xf32>, %arg11: memref<2x?x16xf32>, "
        "%arg12: memref<2x?x16x256xf32>, %arg13: memref<?x16x256xbf16>) "
        "attributes {llvm.emit_c_interface}",
        "budget = 512 : i64, max_partitions = 256 : i64, num_kv_heads = 2 : "
        "i64, query_length = 2 : i64, sliding_window = 257 : i64",
        "#pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>",
        "scale = #pa.scale<per_token>", "sinks(%arg7 : memref<16xf32>)"})
    EXPECT_NE(text.find(expected), std::string::npos)
        << "missing: " << expected << "\nin:\n"
        << text;
}

TEST(DecodeModule, EverySupportedCombinationVerifies) {
  int built = 0;
  for (KVCacheType kv :
       {KVCacheType::e4m3fn, KVCacheType::e4m3fnuz, KVCacheType::bf16})
    for (QueryType query : {QueryType::bf16, QueryType::f16})
      for (VLayout v : {VLayout::plain, VLayout::transposed})
        for (ScaleMode scale :
             {ScaleMode::none, ScaleMode::per_tensor, ScaleMode::per_token})
          for (int64_t d : {64, 128, 256, 512})
            for (int64_t p : {16, 64, 128})
              for (bool sinks : {false, true}) {
                DecodeConfig config;
                config.kvType = kv;
                config.queryType = query;
                config.vLayout = v;
                config.scaleMode = scale;
                config.headDim = d;
                config.pageSize = p;
                config.hasSinks = sinks;
                config.numQueryHeads = 8;
                config.numKVHeads = 2;
                config.queryLength = 3;
                config.slidingWindow = -1;
                EXPECT_EQ(buildError(config), "");
                ++built;
              }
  EXPECT_EQ(built, 3 * 2 * 2 * 3 * 4 * 3 * 2);
}

TEST(DecodeModule, OptionalAttributesReachTheOps) {
  DecodeConfig config;
  config.softmaxScale = 0.25;
  config.computeType = ComputeType::bf16;
  config.budget = 7;
  config.maxPartitions = 3;
  config.chip = "gfx942";
  config.kvType = KVCacheType::e4m3fnuz;
  std::string text = printed(config);
  EXPECT_NE(text.find("softmax_scale = 2.500000e-01"), std::string::npos)
      << text;
  EXPECT_NE(text.find("compute = #pa.compute<bf16>"), std::string::npos);
  EXPECT_NE(text.find("budget = 7 : i64, max_partitions = 3 : i64"),
            std::string::npos);
  EXPECT_EQ(config.planCapacity(5), 7); // min(5 * 3, max(5, ceil(7 / 1)))
  EXPECT_EQ(config.planCapacity(1), 3); // min(1 * 3, 7)
}

TEST(DecodeModule, DefaultBudgetFollowsTheChip) {
  DecodeConfig config;
  config.chip = "gfx942"; // 304 CUs
  EXPECT_EQ(config.effectiveBudget(), 608);
  EXPECT_EQ(config.effectiveMaxPartitions(), 304);
  config.numKVHeads = 2;
  EXPECT_EQ(config.planCapacity(1), 304);
  EXPECT_EQ(config.planCapacity(4), 304); // ceil(608 / 2)
  EXPECT_EQ(config.planCapacity(400), 400);
}

TEST(DecodeModule, VerifierDiagnosticsAreReturned) {
  struct Case {
    const char *expected;
    std::function<void(DecodeConfig &)> change;
  };
  Case cases[] = {
      {"'pa.decode' op query heads (6) must be a multiple of KV heads (4)",
       [](DecodeConfig &c) {
         c.numQueryHeads = 6;
         c.numKVHeads = 4;
       }},
      {"'pa.decode' op non-packed 4-D key cache",
       [](DecodeConfig &c) { c.keyLayout = KeyLayout::unpacked; }},
      {"page size must be 16, 64 or 128, got 32",
       [](DecodeConfig &c) { c.pageSize = 32; }},
      {"head dim 72 is not supported (a multiple of 16 from 64 to 512)",
       [](DecodeConfig &c) { c.headDim = 72; }},
      {"fp8 compute needs an fp8 KV cache",
       [](DecodeConfig &c) {
         c.kvType = KVCacheType::bf16;
         c.computeType = ComputeType::fp8;
       }},
      {"sliding_window must be >= -1",
       [](DecodeConfig &c) { c.slidingWindow = -2; }},
  };
  for (Case &test : cases) {
    DecodeConfig config;
    test.change(config);
    std::string error = buildError(config);
    EXPECT_NE(error.find(test.expected), std::string::npos)
        << "expected '" << test.expected << "', got '" << error << "'";
    EXPECT_EQ(error.rfind("error: ", 0), 0u) << error;
  }
}

TEST(DecodeModule, ValidateRejectsWhatCannotBeExpressed) {
  DecodeConfig config;
  EXPECT_EQ(config.validate(), "");
  config.chip = "gfx1100";
  EXPECT_NE(config.validate().find("unknown chip 'gfx1100'"),
            std::string::npos);
  config = DecodeConfig();
  config.headDim = 0;
  EXPECT_EQ(config.validate(), "head dim must be >= 1, got 0");
  EXPECT_EQ(buildError(config), "head dim must be >= 1, got 0");
  config = DecodeConfig();
  config.budget = 0;
  EXPECT_EQ(config.validate(), "budget must be >= 1, got 0");
}

TEST(DecodeModule, CacheKeySeparatesStaticConfigurations) {
  DecodeConfig a, b;
  EXPECT_EQ(a.cacheKey(), b.cacheKey());
  b.budget = a.effectiveBudget(); // the same plan, spelled out
  EXPECT_EQ(a.cacheKey(), b.cacheKey());
  b.softmaxScale = 0.5;
  EXPECT_NE(a.cacheKey(), b.cacheKey());
  b = a;
  b.slidingWindow = 17;
  EXPECT_NE(a.cacheKey(), b.cacheKey());
  b = a;
  b.vLayout = VLayout::transposed;
  EXPECT_NE(a.cacheKey(), b.cacheKey());
}

TEST(DecodeModule, L2PrefetchIsOneChoiceWithItsMinimum) {
  // withTunedKernelOptions: a given l2Prefetch or minimum replaces the
  // table's pair whole; neither given, both come from the table.
  TunedPlan tuned;
  tuned.l2Prefetch = true;
  tuned.l2PrefetchMinTiles = 16;
  CompileOptions none = withTunedKernelOptions({}, tuned);
  EXPECT_EQ(none.l2Prefetch, true);
  EXPECT_EQ(none.l2PrefetchMinTiles, 16);
  CompileOptions off;
  off.l2Prefetch = false;
  off = withTunedKernelOptions(off, tuned);
  EXPECT_EQ(off.l2Prefetch, false);
  EXPECT_FALSE(off.l2PrefetchMinTiles);
  WarpOptions warp = nvidiaWarpOptions(none);
  EXPECT_TRUE(warp.l2Prefetch);
  EXPECT_EQ(warp.l2PrefetchMinTiles, 16);
}

} // namespace
