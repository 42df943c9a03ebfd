//===- CAPITest.cpp - the C API of libPACAPI.so ---------------------------===//
//
// Links only the shared library, as the Python package uses it: failures come
// back as strings the caller owns, with the verifier's text.
//
//===----------------------------------------------------------------------===//
#include "pa-c/Decode.h"

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(CAPI, VerifyTextReportsLocationAndMessage) {
  PaString error;
  EXPECT_TRUE(paVerifyText(paStringRefFromCString("func.func @f() { return }"),
                           &error));
  EXPECT_EQ(error.data, nullptr);
  const char *bad =
      "func.func @f(%k: memref<?x2x16x128xf8E4M3FN>, %v: "
      "memref<?x2x128x16xf8E4M3FN>, %q: memref<?x8x128xbf16>, %bt: "
      "memref<?x?xi32>, %l: memref<?xi32>, %w: memref<?x4xi32>, %e: "
      "memref<2x?x4xf32>, %t: memref<2x?x4x128xf32>) {\n"
      "  pa.decode query(%q : memref<?x8x128xbf16>) key_cache(%k : "
      "memref<?x2x16x128xf8E4M3FN>) value_cache(%v : "
      "memref<?x2x128x16xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>) "
      "context_lengths(%l : memref<?xi32>) work_info(%w : memref<?x4xi32>) "
      "exp_sums(%e : memref<2x?x4xf32>) max_logits(%e : memref<2x?x4xf32>) "
      "tmp_out(%t : memref<2x?x4x128xf32>) {kv_layout = "
      "#pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}\n"
      "  return\n}\n";
  EXPECT_FALSE(paVerifyText(paStringRefFromCString(bad), &error));
  ASSERT_NE(error.data, nullptr);
  std::string text(error.data, error.length);
  paStringDestroy(error);
  EXPECT_NE(text.find("input:2:3: error: 'pa.decode' op non-packed 4-D key "
                      "cache"),
            std::string::npos)
      << text;
}

TEST(CAPI, CreateReportsTheVerifierMessage) {
  PaDecodeConfig config = paDecodeConfigGetDefault();
  config.numQueryHeads = 6;
  config.numKVHeads = 4;
  PaString error;
  PaHostProgram program = paHostProgramCreate(&config, &error);
  EXPECT_TRUE(paHostProgramIsNull(program));
  ASSERT_NE(error.data, nullptr);
  EXPECT_NE(std::string(error.data).find(
                "query heads (6) must be a multiple of KV heads (4)"),
            std::string::npos)
      << error.data;
  paStringDestroy(error);

  config = paDecodeConfigGetDefault();
  config.vLayout = 7;
  program = paHostProgramCreate(&config, &error);
  EXPECT_TRUE(paHostProgramIsNull(program));
  EXPECT_STREQ(error.data, "PaDecodeConfig.vLayout is not one of its "
                           "enumerators");
  paStringDestroy(error);
  // A null error pointer is allowed.
  EXPECT_TRUE(paHostProgramIsNull(paHostProgramCreate(&config, nullptr)));
}

TEST(CAPI, CompileToHostTextGivesTheLoweredModule) {
  PaDecodeConfig config = paDecodeConfigGetDefault();
  PaString module, error;
  ASSERT_TRUE(paCompileToHostText(&config, &module, &error)) << error.data;
  EXPECT_EQ(error.data, nullptr);
  std::string text(module.data, module.length);
  paStringDestroy(module);
  EXPECT_NE(text.find("llvm.func @_mlir_ciface_pa_decode"), std::string::npos);
  EXPECT_EQ(text.find("pa.decode"), std::string::npos);

  config.chip = "gfx942"; // takes f8E4M3FNUZ, not the default f8E4M3FN
  EXPECT_FALSE(paCompileToHostText(&config, &module, &error));
  EXPECT_EQ(module.data, nullptr);
  ASSERT_NE(error.data, nullptr);
  EXPECT_NE(std::string(error.data).find("chip gfx942 takes f8E4M3FNUZ"),
            std::string::npos)
      << error.data;
  paStringDestroy(error);
}

TEST(CAPI, RunChecksBuffersAgainstTheProgram) {
  PaDecodeConfig config = paDecodeConfigGetDefault();
  config.headDim = 64;
  PaString error;
  PaHostProgram program = paHostProgramCreate(&config, &error);
  ASSERT_FALSE(paHostProgramIsNull(program)) << error.data;
  // gfx950: budget 512, max_partitions 256; one sequence, one KV head.
  EXPECT_EQ(paHostProgramPlanCapacity(program, 1), 256);
  EXPECT_EQ(paHostProgramPlanCapacity(program, 300), 512);

  PaHostBuffers buffers = {};
  buffers.abi = PA_HOST_BUFFERS_ABI;
  buffers.batch = 1;
  buffers.capacity = 3;
  EXPECT_FALSE(paHostProgramRun(program, &buffers, &error));
  EXPECT_NE(std::string(error.data).find("need exactly 256"),
            std::string::npos)
      << error.data;
  paStringDestroy(error);
  buffers.capacity = 256;
  EXPECT_FALSE(paHostProgramRun(program, &buffers, &error));
  EXPECT_STREQ(error.data, "'query' is missing");
  paStringDestroy(error);

  // An empty batch is a valid run that touches nothing.
  buffers.batch = 0;
  buffers.capacity = 0;
  EXPECT_TRUE(paHostProgramRun(program, &buffers, &error)) << error.data;
  paHostProgramDestroy(program);
}

} // namespace
