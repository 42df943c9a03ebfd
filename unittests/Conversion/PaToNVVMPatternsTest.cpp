//===- PaToNVVMPatternsTest.cpp - pa-to-nvvm's patterns from a frontend ---===//
//
// A frontend's use of include/pa/Conversion/PaToNVVM/PaToNVVM.h: the
// checked-in tiled IR of test/Conversion/PaToNVVM/tiled-ir.mlir (its first
// case: a decode and a reduce kernel) rewritten by the public patterns alone,
// with the chip and options passed in, no pass and no pass options.
//
//===----------------------------------------------------------------------===//
#include "pa/API/Builders.h"
#include "pa/Conversion/PaToNVVM/PaToNVVM.h"
#include "pa/IR/DiscardableAttributes.h"
#include "pa/IR/PaOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::pa;

namespace {

class PaToNVVMPatterns : public ::testing::Test {
protected:
  PaToNVVMPatterns() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerPaDialects(registry);
    return registry;
  }

  /// The first case of the checked-in tiled IR, rewritten by the patterns
  /// for sm_90a with `options`.
  OwningOpRef<ModuleOp> lower(const WarpOptions &options) {
    auto file = llvm::MemoryBuffer::getFile(PA_NVVM_TILED_IR);
    EXPECT_TRUE(bool(file)) << PA_NVVM_TILED_IR;
    if (!file)
      return nullptr;
    StringRef text = (*file)->getBuffer();
    StringRef firstCase = text.substr(0, text.find("// -----"));
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(firstCase, &context);
    EXPECT_TRUE(bool(module));
    if (!module)
      return nullptr;
    std::optional<ChipInfo> chip = lookupChip("sm_90a");
    EXPECT_TRUE(chip.has_value());
    if (!chip)
      return nullptr;
    RewritePatternSet patterns(&context);
    populateDecodeToWarpsPatterns(patterns, *chip, options);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (auto kernels : module->getOps<gpu::GPUModuleOp>())
      walkAndApplyPatterns(kernels, frozen);
    return module;
  }

  static gpu::GPUFuncOp kernel(ModuleOp module, StringRef name) {
    gpu::GPUFuncOp found;
    module.walk([&](gpu::GPUFuncOp func) {
      if (func.getName() == name)
        found = func;
    });
    return found;
  }

  static bool usesIntrinsic(gpu::GPUFuncOp kernel, StringRef name) {
    bool used = false;
    kernel.walk([&](LLVM::CallIntrinsicOp call) {
      used |= call.getIntrin() == name;
    });
    return used;
  }

  MLIRContext context;
};

constexpr StringLiteral kE4M3Product =
    "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32";

TEST_F(PaToNVVMPatterns, DecodeKernelOnWarps) {
  OwningOpRef<ModuleOp> module = lower(WarpOptions{});
  ASSERT_TRUE(bool(module));
  gpu::GPUFuncOp decode = kernel(*module, "pa_decode");
  ASSERT_TRUE(bool(decode));
  // The tile ops are gone but the page-id reads, spread over the threads
  // and lowered to loads after the patterns (pa-lower-tile-to-loops).
  decode.walk([](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "pa")
      EXPECT_TRUE(isa<TilePageIdsOp>(op)) << op->getName().getStringRef().str();
  });
  auto distribution =
      decode->getAttrOfType<DistributionAttr>(kDistributionAttrName);
  ASSERT_TRUE(bool(distribution));
  EXPECT_EQ(distribution.getValue(), Distribution::warps);
  // fp8 KV times f16 by default.
  EXPECT_FALSE(usesIntrinsic(decode, kE4M3Product));
  // Every kernel has been given a distribution.
  module->walk([](gpu::GPUFuncOp func) {
    EXPECT_TRUE(func->hasAttr(kDistributionAttrName)) << func.getName().str();
  });
}

TEST_F(PaToNVVMPatterns, OptionsReachTheDecodeKernel) {
  OwningOpRef<ModuleOp> module = lower(WarpOptions{/*e4m3Products=*/true});
  ASSERT_TRUE(bool(module));
  gpu::GPUFuncOp decode = kernel(*module, "pa_decode");
  ASSERT_TRUE(bool(decode));
  EXPECT_TRUE(usesIntrinsic(decode, kE4M3Product));
}

} // namespace
