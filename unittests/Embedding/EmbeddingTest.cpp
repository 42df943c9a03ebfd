//===- EmbeddingTest.cpp - the C++ API a frontend uses --------------------===//
//
// Registration into a frontend's registry, ops from a DecodeConfig, the
// named pipelines in a frontend's pass manager, and compileModule /
// compileDecode / compileModuleText with stages, for both vendors.
//
//===----------------------------------------------------------------------===//
#include "pa/API/Builders.h"
#include "pa/API/Compile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <thread>

using namespace mlir;
using namespace mlir::pa;

namespace {

/// GQA 8 (Hq 16, Hkv 2), D 128, P 16, Q 2, fp8 with per-tensor scales, a
/// window, a softmax scale and bf16 products; budget 8.
DecodeConfig frontendConfig() {
  DecodeConfig config;
  config.numQueryHeads = 16;
  config.numKVHeads = 2;
  config.headDim = 128;
  config.queryLength = 2;
  config.scaleMode = ScaleMode::per_tensor;
  config.slidingWindow = 300;
  config.softmaxScale = 0.125;
  config.computeType = ComputeType::bf16;
  config.budget = 8;
  return config;
}

std::string print(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// A module with the frontend's function `layer` over the operands of
/// `config` and the three ops in it.
OwningOpRef<ModuleOp> buildFrontendModule(MLIRContext &context,
                                          const DecodeConfig &config) {
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto types = decodeOperandTypes(context, config);
  SmallVector<Type> argumentTypes;
  for (const auto &[name, type] : types)
    argumentTypes.push_back(type);
  auto func = func::FuncOp::create(builder, loc, "layer",
                                   builder.getFunctionType(argumentTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  DecodeOperands operands;
  for (auto [entry, argument] : llvm::zip_equal(types, body->getArguments()))
    *operands.lookup(entry.first) = argument;
  buildDecodeSequence(builder, loc, config, operands);
  func::ReturnOp::create(builder, loc);
  return module;
}

class Embedding : public ::testing::Test {
protected:
  Embedding() : context(makeRegistry()) { context.loadAllAvailableDialects(); }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerPaDialectsAndPasses(registry);
    return registry;
  }
  MLIRContext context;
};

TEST_F(Embedding, RegistersDialectsAndNamedPipelines) {
  for (const char *dialect : {"pa", "func", "memref", "gpu", "rocdl", "nvvm",
                              "llvm", "amdgpu", "vector", "scf"})
    EXPECT_NE(context.getLoadedDialect(dialect), nullptr) << dialect;
  for (const char *pipeline : {"pa-lower-to-host", "pa-lower-to-rocdl",
                               "pa-lower-to-nvvm", "pa-lower-tiled-to-host"})
    EXPECT_NE(PassPipelineInfo::lookup(pipeline), nullptr) << pipeline;
  EXPECT_NE(PassInfo::lookup("pa-tile"), nullptr);
  // Idempotent.
  registerPaPasses();
}

TEST_F(Embedding, OperandTypesFollowTheConfiguration) {
  auto types = decodeOperandTypes(context, frontendConfig());
  std::vector<std::pair<std::string, std::string>> expected = {
      {"query", "memref<?x16x128xbf16, strided<[?, 128, 1]>>"},
      {"key_cache", "memref<?x2x8x16x16xf8E4M3FN>"},
      {"value_cache", "memref<?x2x128x16xf8E4M3FN>"},
      {"block_tables", "memref<?x?xi32>"},
      {"context_lengths", "memref<?xi32>"},
      {"k_scale", "memref<1xf32>"},
      {"v_scale", "memref<1xf32>"},
      {"work_info", "memref<?x4xi32>"},
      {"reduce_info", "memref<?x2xi32>"},
      {"exp_sums", "memref<2x?x16xf32>"},
      {"max_logits", "memref<2x?x16xf32>"},
      {"tmp_out", "memref<2x?x16x128xf32>"},
      {"output", "memref<?x16x128xbf16>"}};
  ASSERT_EQ(types.size(), expected.size());
  for (auto [got, want] : llvm::zip_equal(types, expected)) {
    EXPECT_EQ(got.first.str(), want.first);
    EXPECT_EQ(print(got.second), want.second) << want.first;
  }
  DecodeOperands operands;
  EXPECT_EQ(operands.lookup("not_an_operand"), nullptr);
  EXPECT_EQ(operands.lookup("sinks"), &operands.sinks);
}

TEST_F(Embedding, OpsTakeTheirAttributesFromTheConfiguration) {
  DecodeConfig config = frontendConfig();
  OwningOpRef<ModuleOp> module = buildFrontendModule(context, config);
  ASSERT_TRUE(succeeded(verify(*module)));
  func::FuncOp layer = *module->getOps<func::FuncOp>().begin();
  PlanOp plan = *layer.getOps<PlanOp>().begin();
  EXPECT_EQ(plan.getNumKvHeads(), 2);
  EXPECT_EQ(plan.getQueryLength(), 2);
  EXPECT_EQ(plan.getSlidingWindow(), 300);
  // Explicit, so the IR and DecodeConfig::planCapacity agree.
  EXPECT_EQ(plan.getBudget(), 8);
  EXPECT_EQ(plan.getMaxPartitions(), config.effectiveMaxPartitions());
  DecodeOp decode = *layer.getOps<DecodeOp>().begin();
  EXPECT_EQ(decode.getKvLayout().getPageSize(), 16);
  EXPECT_EQ(decode.getKvLayout().getKPack(), 16);
  EXPECT_EQ(decode.getKvLayout().getVLayout(), VLayout::plain);
  EXPECT_EQ(decode.getScale(), ScaleMode::per_tensor);
  EXPECT_EQ(decode.getSlidingWindow(), 300);
  EXPECT_EQ(decode.getSoftmaxScale(), 0.125);
  EXPECT_EQ(decode.getCompute(), ComputeType::bf16);
  EXPECT_TRUE(decode.getKScale() && decode.getVScale());
}

TEST_F(Embedding, NamedPipelineRunsInTheFrontendsPassManager) {
  OwningOpRef<ModuleOp> module = buildFrontendModule(context, frontendConfig());
  PassManager pm(&context);
  std::string error;
  ASSERT_TRUE(succeeded(addPaPipeline(pm, "pa-lower-to-rocdl", "gfx950",
                                      error)))
      << error;
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_TRUE(module->lookupSymbol<gpu::GPUModuleOp>("pa_kernels"));

  PassManager other(&context);
  EXPECT_TRUE(failed(addPaPipeline(other, "pa-lower-to-tpu", "gfx950", error)));
  EXPECT_EQ(error, "no pass pipeline named 'pa-lower-to-tpu' is registered");
}

TEST_F(Embedding, CompileModuleKeepsEveryStage) {
  OwningOpRef<ModuleOp> module = buildFrontendModule(context, frontendConfig());
  CompileOptions options;
  options.keepStages = true;
  std::string error;
  FailureOr<CompiledKernels> kernels =
      compileModule(*module, "gfx950", options, error);
  ASSERT_TRUE(succeeded(kernels)) << error;
  EXPECT_EQ(kernels->format, "hsaco");
  EXPECT_EQ(kernels->codeObject.substr(0, 4), "\x7f"
                                              "ELF");
  std::vector<std::string> names;
  for (const CompileStage &stage : kernels->stages)
    names.push_back(stage.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pa", "tiled", "rocdl", "llvm",
                                             "isa"}));
  EXPECT_NE(kernels->stage("pa")->find("pa.decode"), std::string::npos);
  EXPECT_NE(kernels->stage("tiled")->find("pa.tile.qk"), std::string::npos);
  EXPECT_EQ(kernels->stage("tiled")->find("pa.decode"), std::string::npos);
  EXPECT_EQ(kernels->stage("ptx"), nullptr);
}

TEST_F(Embedding, NvidiaChipsGivePtx) {
  DecodeConfig config = frontendConfig();
  config.chip = "sm_90a";
  CompileOptions options;
  options.keepStages = true;
  std::string error;
  FailureOr<CompiledKernels> kernels = compileDecode(config, options, error);
  ASSERT_TRUE(succeeded(kernels)) << error;
  EXPECT_EQ(kernels->format, "ptx");
  EXPECT_NE(kernels->codeObject.find(".target sm_90a"), std::string::npos);
  std::vector<std::string> names;
  for (const CompileStage &stage : kernels->stages)
    names.push_back(stage.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pa", "tiled", "nvvm", "llvm",
                                             "ptx"}));
}

TEST(Compile, ErrorsComeBackAsText) {
  std::string error;
  EXPECT_TRUE(failed(compileModuleText("func.func @f( {", "gfx950", {}, error,
                                       "frontend.mlir")));
  EXPECT_NE(error.find("frontend.mlir:1:14: error:"), std::string::npos)
      << error;
  DecodeConfig config = frontendConfig();
  config.chip = "gfx942"; // takes the other fp8 flavour
  EXPECT_TRUE(failed(compileDecode(config, {}, error)));
  EXPECT_NE(error.find("gfx942"), std::string::npos) << error;
  config = frontendConfig();
  config.chip = "gfx1200";
  EXPECT_TRUE(failed(compileDecode(config, {}, error)));
  EXPECT_NE(error.find("unknown chip 'gfx1200'"), std::string::npos) << error;
}

TEST(Compile, ConcurrentCompilesAgree) {
  // Each compile has its own context; the links share lld, serialized.
  DecodeConfig config = frontendConfig();
  std::string codeObjects[2], errors[2];
  auto work = [&](int i) {
    FailureOr<CompiledKernels> kernels = compileDecode(config, {}, errors[i]);
    if (succeeded(kernels))
      codeObjects[i] = kernels->codeObject;
  };
  std::thread first(work, 0), second(work, 1);
  first.join();
  second.join();
  ASSERT_FALSE(codeObjects[0].empty()) << errors[0];
  EXPECT_EQ(codeObjects[0], codeObjects[1]) << "compiles are deterministic";
}

} // namespace
