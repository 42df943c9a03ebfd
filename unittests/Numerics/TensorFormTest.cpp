//===- TensorFormTest.cpp - the tensor form, bufferized, against the oracle
//===//
//
// What a frontend working on tensors does: @pa_decode on ranked tensors,
// pa.plan -> pa.decode -> pa.reduce in destination-passing style (the
// builders of Builders.h on tensor operands), bufferized with
// addBufferizeToMemRefForm (one-shot-bufferize), then the host pipeline and
// the JIT like every HostProgram. The bufferized program must write in
// place (no allocation, no copy) and match the float64 oracle on fresh
// random inputs, outputs and scratch poisoned first.
//
//===----------------------------------------------------------------------===//
#include "OracleComparison.h"

#include "pa/API/Builders.h"
#include "pa/Oracle/CaseGen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace pa;
using namespace pa::numerics;
using mlir::pa::DecodeConfig;
using mlir::pa::HostProgram;

namespace {

/// @pa_decode of `config` on tensors (the row-major query a tensor is),
/// returning the output (and the lse), bufferized to the memref form; null
/// with `error` when anything fails or the bufferization allocates or
/// copies.
mlir::OwningOpRef<mlir::ModuleOp>
buildBufferizedTensorModule(mlir::MLIRContext &context,
                            const DecodeConfig &config, std::string &error) {
  mlir::DialectRegistry registry;
  mlir::pa::registerPaDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();

  mlir::Location loc = mlir::UnknownLoc::get(&context);
  mlir::OpBuilder builder(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  mlir::SmallVector<std::pair<mlir::StringRef, mlir::MemRefType>> operandTypes =
      mlir::pa::decodeOperandTypes(context, config);
  mlir::SmallVector<mlir::Type> arguments, results;
  for (const auto &[name, type] : operandTypes) {
    auto tensor =
        mlir::RankedTensorType::get(type.getShape(), type.getElementType());
    arguments.push_back(tensor);
    if (name == "output" || name == "lse")
      results.push_back(tensor);
  }
  auto function =
      mlir::func::FuncOp::create(builder, loc, mlir::pa::kDecodeFunctionName,
                                 builder.getFunctionType(arguments, results));
  mlir::Block *body = function.addEntryBlock();
  builder.setInsertionPointToStart(body);
  mlir::pa::DecodeOperands operands;
  for (auto [operand, argument] :
       llvm::zip_equal(operandTypes, body->getArguments()))
    *operands.lookup(operand.first) = argument;
  mlir::pa::DecodeOperands written =
      mlir::pa::buildDecodeSequence(builder, loc, config, operands);
  mlir::SmallVector<mlir::Value> returned = {written.output};
  if (written.lse)
    returned.push_back(written.lse);
  mlir::func::ReturnOp::create(builder, loc, returned);
  if (mlir::failed(mlir::verify(*module))) {
    error = "the tensor module failed verification";
    return nullptr;
  }

  // Private while bufferizing: drop-equivalent-buffer-results leaves the
  // signatures of public functions alone.
  function.setPrivate();
  mlir::PassManager pm(&context);
  mlir::pa::addBufferizeToMemRefForm(pm);
  if (mlir::failed(pm.run(*module))) {
    error = "bufferization failed";
    return nullptr;
  }
  function.setPublic();
  bool copied = false;
  module->walk([&](mlir::Operation *op) {
    copied |= mlir::isa<mlir::memref::AllocOp, mlir::memref::CopyOp>(op);
  });
  if (copied) {
    error = "bufferization allocated or copied a buffer";
    return nullptr;
  }
  return module;
}

oracle::DecodeCase generated(const oracle::DecodeShape &shape, bool sinks,
                             std::vector<int32_t> lengths, uint64_t seed) {
  oracle::DecodeCase c;
  std::string error;
  EXPECT_TRUE(generateCaseOf(shape, sinks, std::move(lengths), seed,
                             /*poisonInvisible=*/true, c, error))
      << error;
  return c;
}

/// Hq query heads over Hkv KV heads of head dim D, page size 16.
oracle::DecodeShape headsShape(int64_t hq, int64_t hkv, int64_t d) {
  oracle::DecodeShape shape;
  shape.numQueryHeads = hq;
  shape.numKvHeads = hkv;
  shape.headDim = d;
  shape.pageSize = 16;
  return shape;
}

/// Compiles the tensor form of `shape` for `chip` and compares runs of
/// fresh random cases with the oracle.
void expectTensorFormMatchesOracle(const oracle::DecodeShape &shape, bool sinks,
                                   const std::string &chip) {
  std::string error;
  auto program = HostProgram::compile(
      programConfigFor(shape, sinks, chip, std::nullopt, std::nullopt), error,
      buildBufferizedTensorModule);
  ASSERT_TRUE(mlir::succeeded(program)) << error;
  for (auto [lengths, seed] :
       {std::pair{std::vector<int32_t>{300, 5, 1000}, uint64_t(21)},
        std::pair{std::vector<int32_t>{1, 2, 257, 4099, 0}, uint64_t(22)}}) {
    CaseResult result =
        runAndCompare(**program, generated(shape, sinks, lengths, seed));
    EXPECT_TRUE(result.passed) << result.failure;
  }
}

// fp8 KV with per-token scales, transposed V, GQA 4, two query tokens, a
// window and sinks (the example's features) on gfx950.
TEST(TensorForm, Fp8ScalesWindowSinksMatchTheOracle) {
  oracle::DecodeShape shape = headsShape(8, 2, 128);
  shape.queryLen = 2;
  shape.kvType = oracle::ScalarType::F8E4M3FN;
  shape.vLayout = oracle::VLayout::Transposed;
  shape.scaleMode = oracle::ScaleMode::PerToken;
  shape.window = 257;
  expectTensorFormMatchesOracle(shape, /*sinks=*/true, "gfx950");
}

// The optional operands of the tensor form: ALiBi slopes in, the
// log-sum-exp out (a second result of pa.reduce), on gfx942's fp8.
TEST(TensorForm, AlibiAndLseMatchTheOracle) {
  oracle::DecodeShape shape = headsShape(8, 1, 64);
  shape.kvType = oracle::ScalarType::F8E4M3FNUZ;
  shape.scaleMode = oracle::ScaleMode::PerTensor;
  shape.alibi = true;
  shape.lse = true;
  expectTensorFormMatchesOracle(shape, /*sinks=*/false, "gfx942");
}

// A tensor has no strides: the bufferized program's query is row-major, so
// the program refuses query rows that lie further apart than Hq * D.
TEST(TensorForm, RefusesAStridedQuery) {
  oracle::DecodeShape shape = headsShape(8, 8, 64);
  std::string error;
  DecodeConfig config =
      programConfigFor(shape, false, "gfx950", std::nullopt, std::nullopt);
  auto program =
      HostProgram::compile(config, error, buildBufferizedTensorModule);
  ASSERT_TRUE(mlir::succeeded(program)) << error;
  ComparisonOptions options;
  options.queryRowPadding = 64;
  oracle::DecodeCase c = generated(shape, false, {40, 300}, 31);
  CaseResult result = runAndCompare(
      config,
      [&](const mlir::pa::HostBuffers &buffers, std::string &message) {
        return (*program)->run(buffers, message);
      },
      c, nullptr, options);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("reads packed query rows"), std::string::npos)
      << result.failure;
}

// The caches of a tensor form are row-major too: its nhd program runs the
// contiguous halves of a [2, N, ...] combined cache and refuses the halves
// of an [N, 2, ...] one (pages two pages apart) by name.
TEST(TensorForm, NhdCachesAreReadContiguous) {
  oracle::DecodeShape shape = headsShape(8, 2, 64);
  shape.cacheLayout = oracle::CacheLayout::Nhd;
  std::string error;
  DecodeConfig config =
      programConfigFor(shape, false, "gfx950", std::nullopt, std::nullopt);
  auto program =
      HostProgram::compile(config, error, buildBufferizedTensorModule);
  ASSERT_TRUE(mlir::succeeded(program)) << error;
  oracle::DecodeCase c = generated(shape, false, {40, 300}, 32);
  auto run = [&](const mlir::pa::HostBuffers &buffers, std::string &message) {
    return (*program)->run(buffers, message);
  };
  ComparisonOptions options;
  options.combinedCache = ComparisonOptions::CombinedCache::Halves;
  CaseResult halves = runAndCompare(config, run, c, nullptr, options);
  EXPECT_TRUE(halves.passed) << halves.failure;
  options.combinedCache = ComparisonOptions::CombinedCache::PageInterleaved;
  CaseResult interleaved = runAndCompare(config, run, c, nullptr, options);
  EXPECT_FALSE(interleaved.passed);
  EXPECT_NE(interleaved.failure.find(
                "this program reads contiguous caches (row-major "
                "'key_cache'), got a page stride of 4096 elements"),
            std::string::npos)
      << interleaved.failure;
}

} // namespace
