//===- EmulatedProgramTest.cpp - pa::EmulatedProgram ----------------------===//
//
// What the emulator target runs (the pipeline's kernels before the lowering
// tail), that it rejects what the AMD pipeline rejects, and one small case
// per chip and kernel kind against the oracle (the numerics matrix runs
// the rest).
//
//===----------------------------------------------------------------------===//
#include "../Numerics/OracleComparison.h"

#include "pa/API/Builders.h"
#include "pa/API/EmulatedProgram.h"
#include "pa/API/HostProgram.h"

#include "pa/Emulator/Emulator.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"

#include <cstring>

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::pa;

namespace {

DecodeConfig smallConfig(const std::string &chip) {
  DecodeConfig config;
  config.numQueryHeads = 8;
  config.numKVHeads = 2;
  config.headDim = 64;
  config.pageSize = 16;
  config.queryLength = 2;
  config.kvType = KVCacheType::bf16;
  config.vLayout = VLayout::transposed;
  config.scaleMode = ScaleMode::per_tensor;
  config.slidingWindow = 40;
  config.hasSinks = true;
  config.chip = chip;
  return config;
}

TEST(EmulatedProgram, RunsThePipelinesKernelsBeforeTheLoweringTail) {
  std::string error;
  auto program = EmulatedProgram::compile(smallConfig("gfx950"), error);
  ASSERT_TRUE(succeeded(program)) << error;
  std::string text = (*program)->moduleText();
  // Structured kernels of the AMD path, not their LLVM / ROCDL form.
  EXPECT_NE(text.find("gpu.func @pa_decode"), std::string::npos);
  EXPECT_NE(text.find("scf.for"), std::string::npos);
  EXPECT_EQ(text.find("llvm.func"), std::string::npos);
  EXPECT_EQ(text.find("cf.br"), std::string::npos);
  EXPECT_NE(text.find("gpu.launch_func"), std::string::npos);
}

TEST(EmulatedProgram, RejectsWhatTheAMDPipelineRejects) {
  DecodeConfig config = smallConfig("gfx942");
  config.kvType = KVCacheType::e4m3fn; // gfx942 takes FNUZ fp8 only
  std::string error;
  EXPECT_TRUE(failed(EmulatedProgram::compile(config, error)));
  EXPECT_NE(error.find("f8E4M3FN"), std::string::npos) << error;

  config = smallConfig("sm_90a");
  EXPECT_TRUE(failed(EmulatedProgram::compile(config, error)));
  EXPECT_NE(error.find("AMD"), std::string::npos) << error;
}

TEST(EmulatedProgram, ChecksBuffersLikeTheHostRuntime) {
  std::string error;
  auto program = EmulatedProgram::compile(smallConfig("gfx950"), error);
  ASSERT_TRUE(succeeded(program)) << error;
  HostBuffers buffers;
  buffers.batch = 1;
  buffers.capacity = (*program)->planCapacity(1) + 1;
  EXPECT_TRUE(failed((*program)->run(buffers, error)));
  EXPECT_EQ(error, checkHostBuffers((*program)->config(), buffers));
}

/// Inputs bound read-only (the decode's query, caches, tables, scales) must
/// not be written by a kernel.
TEST(EmulatedProgram, StoresToReadOnlyBindingsAreErrors) {
  DialectRegistry registry;
  registerPaDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"(
    module attributes {gpu.container_module} {
      gpu.module @k {
        gpu.func @overwrite(%in: memref<64xi32>) kernel {
          %tid = gpu.thread_id x
          %zero = arith.constant 0 : i32
          memref.store %zero, %in[%tid] : memref<64xi32>
          gpu.return
        }
      }
      func.func @main(%in: memref<64xi32>) {
        %c1 = arith.constant 1 : index
        %c64 = arith.constant 64 : index
        gpu.launch_func @k::@overwrite blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%in : memref<64xi32>)
        return
      }
    })",
                                                             &context);
  ASSERT_TRUE(module);
  std::string error;
  auto program = emulator::Program::compile(*module, {}, error);
  ASSERT_TRUE(succeeded(program)) << error;
  std::vector<int32_t> data(64, 7);
  auto binding = emulator::MemRefBinding::rowMajor(data.data(), {64}, 4,
                                                   "query", true);
  EXPECT_TRUE(failed((*program)->run("main", {binding}, error)));
  EXPECT_NE(error.find("store to read-only memory 'query'"),
            std::string::npos)
      << error;
  EXPECT_EQ(data[0], 7);
  binding.readOnly = false;
  EXPECT_TRUE(succeeded((*program)->run("main", {binding}, error))) << error;
  EXPECT_EQ(data[0], 0);
}

/// A kernel's workgroup attributions are block arguments of its body but
/// not arguments of the launch: the emulator once copied words for them out
/// of the launch's argument array, past its end (an ASan
/// stack-buffer-overflow when the launch passed exactly the 128 words the
/// array holds inline, as the transposed-V per-token-scale decode kernel
/// did). Here the 16 rank-2 memrefs are 16 x 8 = 128 words, and the
/// attribution must still hold what the kernel stages in it.
TEST(EmulatedProgram, AttributionsAreNotLaunchArguments) {
  DialectRegistry registry;
  registerPaDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string arguments, operands, types;
  for (int i = 0; i < 16; ++i) {
    arguments += (i ? ", %a" : "%a") + std::to_string(i) + ": memref<1x64xi32>";
    operands += (i ? ", %" : "%") + std::string(i == 15 ? "out" : "in") +
                " : memref<1x64xi32>";
  }
  std::string text = R"(
    module attributes {gpu.container_module} {
      gpu.module @k {
        gpu.func @reverse()" + arguments + R"()
            workgroup(%lds : memref<64xi32, #gpu.address_space<workgroup>>)
            kernel {
          %c0 = arith.constant 0 : index
          %c63 = arith.constant 63 : index
          %tid = gpu.thread_id x
          %v = memref.load %a0[%c0, %tid] : memref<1x64xi32>
          memref.store %v, %lds[%tid] : memref<64xi32, #gpu.address_space<workgroup>>
          gpu.barrier
          %mirror = arith.subi %c63, %tid : index
          %w = memref.load %lds[%mirror] : memref<64xi32, #gpu.address_space<workgroup>>
          memref.store %w, %a15[%c0, %tid] : memref<1x64xi32>
          gpu.return
        }
      }
      func.func @main(%in: memref<1x64xi32>, %out: memref<1x64xi32>) {
        %c1 = arith.constant 1 : index
        %c64 = arith.constant 64 : index
        gpu.launch_func @k::@reverse blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args()" +
                     operands + R"()
        return
      }
    })";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  std::string error;
  auto program = emulator::Program::compile(*module, {}, error);
  ASSERT_TRUE(succeeded(program)) << error;
  std::vector<int32_t> in(64), out(64, -1);
  for (int i = 0; i < 64; ++i)
    in[i] = 1000 + i;
  auto inBinding = emulator::MemRefBinding::rowMajor(in.data(), {1, 64}, 4,
                                                     "in", true);
  auto outBinding = emulator::MemRefBinding::rowMajor(out.data(), {1, 64}, 4,
                                                      "out", false);
  ASSERT_TRUE(succeeded((*program)->run("main", {inBinding, outBinding},
                                        error)))
      << error;
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(out[i], 1000 + 63 - i) << "at " << i;
}

/// The decode kernel of a transposed-V cache with per-token scales, the
/// configuration that exposed the overflow above (its launch passed 112
/// words, its three LDS attributions made the emulator copy 130), against
/// the oracle on both chips.
TEST(EmulatedProgram, TransposedVPerTokenScalesMatchTheOracle) {
  for (const char *chip : {"gfx942", "gfx950"}) {
    SCOPED_TRACE(chip);
    ::pa::oracle::CaseConfig c;
    c.numQueryHeads = 32;
    c.numKvHeads = 1;
    c.headDim = 128;
    c.pageSize = 16;
    c.queryLen = 4;
    c.kvType = ::pa::oracle::ScalarType::BF16;
    c.vLayout = ::pa::oracle::VLayout::Transposed;
    c.scaleMode = ::pa::oracle::ScaleMode::PerToken;
    c.window = 257;
    c.sinks = true;
    c.contextLengths = {0, 1, 17, 300};
    c.batch = int64_t(c.contextLengths.size());
    c.seed = 11;
    c.garbageSeed = 12;
    c.poisonInvisible = true;
    DecodeConfig config = ::pa::numerics::programConfigFor(
        c, c.sinks, chip, std::nullopt, std::nullopt);
    std::string error;
    auto program = EmulatedProgram::compile(config, error);
    ASSERT_TRUE(succeeded(program)) << error;
    ::pa::oracle::DecodeCase decodeCase;
    ASSERT_TRUE(::pa::oracle::generateCase(c, decodeCase, error)) << error;
    ::pa::numerics::CaseResult result = ::pa::numerics::runAndCompare(
        (*program)->config(),
        [&](const HostBuffers &buffers, std::string &message) {
          return (*program)->run(buffers, message);
        },
        decodeCase);
    EXPECT_TRUE(result.passed) << result.failure;
  }
}

/// A query that is a view of a fused qkv tensor (rows Hq*D + 2*Hkv*D
/// apart, the gaps NaN): the host JIT and the emulated kernels of both
/// chips read its rows at the run-time stride (the query's strided<[?, D,
/// 1]> memref) and match the oracle; read packed, they would read NaN.
/// fp8 caches (fp8 compute with the query's residual) and bf16.
TEST(StridedQuery, FusedQkvViewMatchesTheOracleOnHostAndEmulator) {
  using ::pa::oracle::ScalarType;
  const std::pair<ScalarType, std::vector<const char *>> runs[] = {
      {ScalarType::F8E4M3FN, {"host", "gfx950"}},
      {ScalarType::F8E4M3FNUZ, {"gfx942"}},
      {ScalarType::BF16, {"host", "gfx942", "gfx950"}}};
  for (const auto &[kv, chips] : runs) {
    ::pa::oracle::CaseConfig c;
    c.numQueryHeads = 8;
    c.numKvHeads = 2;
    c.headDim = 64;
    c.pageSize = 16;
    c.queryLen = 2;
    c.kvType = kv;
    c.scaleMode = ::pa::oracle::ScaleMode::PerTensor;
    c.contextLengths = {1, 40, 300};
    c.batch = int64_t(c.contextLengths.size());
    c.seed = 21;
    c.garbageSeed = 22;
    c.poisonInvisible = true;
    ::pa::oracle::DecodeCase decodeCase;
    std::string error;
    ASSERT_TRUE(::pa::oracle::generateCase(c, decodeCase, error)) << error;
    ::pa::numerics::ComparisonOptions strided;
    strided.queryRowPadding = 2 * c.numKvHeads * c.headDim;
    for (const char *chip : chips) {
      SCOPED_TRACE(std::string(chip) + " kv type " +
                   std::to_string(static_cast<int>(kv)));
      DecodeConfig config = ::pa::numerics::programConfigFor(
          c, c.sinks, std::string(chip) == "host" ? "gfx950" : chip,
          std::nullopt, std::nullopt);
      ::pa::numerics::DecodeRunner run;
      FailureOr<std::unique_ptr<HostProgram>> host = failure();
      FailureOr<std::unique_ptr<EmulatedProgram>> emulated = failure();
      if (std::string(chip) == "host") {
        host = HostProgram::compile(config, error);
        ASSERT_TRUE(succeeded(host)) << error;
        run = [&](const HostBuffers &buffers, std::string &message) {
          return (*host)->run(buffers, message);
        };
      } else {
        emulated = EmulatedProgram::compile(config, error);
        ASSERT_TRUE(succeeded(emulated)) << error;
        run = [&](const HostBuffers &buffers, std::string &message) {
          return (*emulated)->run(buffers, message);
        };
      }
      ::pa::numerics::CaseResult result = ::pa::numerics::runAndCompare(
          config, run, decodeCase, nullptr, strided);
      EXPECT_TRUE(result.passed) << result.failure;
    }
  }
}

/// A row stride below Hq * D would make rows overlap: refused by name.
TEST(StridedQuery, RowStrideBelowARowIsRefused) {
  DecodeConfig config = smallConfig("gfx950");
  HostBuffers buffers;
  buffers.queryRowStride = config.numQueryHeads * config.headDim - 1;
  EXPECT_NE(checkHostBuffers(config, buffers)
                .find("the query row stride must be 0 (packed) or at least "
                      "Hq * D = 512 elements, got 511"),
            std::string::npos)
      << checkHostBuffers(config, buffers);
}

/// nhd / hnd K and V as views of one combined cache (vLLM v1), through the
/// API: the programs read K and V at their run-time page strides
/// (HostBuffers::keyPageStride), so the halves of an [N, 2, ...] cache
/// (pages two pages apart) and of a [2, N, ...] cache (contiguous) run in
/// place. Read contiguously, an [N, 2, ...] half would give the other
/// half's pages. The host and both chips' kernels on the emulator (which
/// read each view through a buffer starting at the view: pa-to-mfma's
/// resetOffset, its 32-bit range checked at run time by the page stride);
/// fp8 and bf16, page sizes 1 and 16.
TEST(CombinedCache, ViewsOfOneTensorMatchTheOracle) {
  using ::pa::oracle::CacheLayout;
  using ::pa::oracle::ScalarType;
  using Combined = ::pa::numerics::ComparisonOptions::CombinedCache;
  struct Run {
    const char *chip; // "host": the host program (of gfx950)
    ScalarType kv;
    int64_t pageSize;
    CacheLayout layout;
    Combined combined;
  };
  const Run runs[] = {
      {"host", ScalarType::F8E4M3FN, 16, CacheLayout::Nhd,
       Combined::PageInterleaved},
      {"host", ScalarType::BF16, 1, CacheLayout::Hnd,
       Combined::PageInterleaved},
      {"host", ScalarType::F8E4M3FN, 16, CacheLayout::Hnd, Combined::Halves},
      {"host", ScalarType::BF16, 16, CacheLayout::Nhd, Combined::Halves},
      {"gfx942", ScalarType::F8E4M3FNUZ, 16, CacheLayout::Nhd,
       Combined::PageInterleaved},
      {"gfx950", ScalarType::F8E4M3FN, 1, CacheLayout::Hnd,
       Combined::PageInterleaved},
      {"gfx950", ScalarType::BF16, 16, CacheLayout::Hnd,
       Combined::PageInterleaved},
      {"gfx950", ScalarType::BF16, 16, CacheLayout::Nhd, Combined::Halves}};
  for (const Run &r : runs) {
    SCOPED_TRACE(std::string(r.chip) + " page size " +
                 std::to_string(r.pageSize) +
                 (r.layout == CacheLayout::Nhd ? " nhd" : " hnd") +
                 (r.combined == Combined::Halves ? " [2, N, ...]"
                                                 : " [N, 2, ...]"));
    ::pa::oracle::CaseConfig c;
    c.numQueryHeads = 8;
    c.numKvHeads = 2;
    c.headDim = 64;
    c.pageSize = r.pageSize;
    c.queryLen = 2;
    c.kvType = r.kv;
    c.cacheLayout = r.layout;
    c.scaleMode = ::pa::oracle::ScaleMode::PerToken;
    c.window = 33;
    c.sinks = true;
    c.contextLengths = {1, 40, 300};
    c.batch = int64_t(c.contextLengths.size());
    c.seed = 31;
    c.garbageSeed = 32;
    c.poisonInvisible = true;
    ::pa::oracle::DecodeCase decodeCase;
    std::string error;
    ASSERT_TRUE(::pa::oracle::generateCase(c, decodeCase, error)) << error;
    const bool host = std::string(r.chip) == "host";
    DecodeConfig config = ::pa::numerics::programConfigFor(
        c, c.sinks, host ? "gfx950" : r.chip, std::nullopt, std::nullopt);
    ::pa::numerics::DecodeRunner run;
    FailureOr<std::unique_ptr<HostProgram>> hostProgram = failure();
    FailureOr<std::unique_ptr<EmulatedProgram>> emulated = failure();
    if (host) {
      hostProgram = HostProgram::compile(config, error);
      ASSERT_TRUE(succeeded(hostProgram)) << error;
      run = [&](const HostBuffers &buffers, std::string &message) {
        return (*hostProgram)->run(buffers, message);
      };
    } else {
      emulated = EmulatedProgram::compile(config, error);
      ASSERT_TRUE(succeeded(emulated)) << error;
      EXPECT_NE((*emulated)->moduleText().find(
                    "amdgpu.fat_raw_buffer_cast %arg1 resetOffset"),
                std::string::npos);
      run = [&](const HostBuffers &buffers, std::string &message) {
        return (*emulated)->run(buffers, message);
      };
    }
    ::pa::numerics::ComparisonOptions options;
    options.combinedCache = r.combined;
    ::pa::numerics::CaseResult result = ::pa::numerics::runAndCompare(
        config, run, decodeCase, nullptr, options);
    EXPECT_TRUE(result.passed) << result.failure;
  }
}

/// Page strides are for nhd / hnd caches: a packed cache with another page
/// stride than its pages' size, or a negative one, is refused by name.
TEST(CombinedCache, PageStridesThePackedLayoutCannotReadAreRefused) {
  DecodeConfig config = smallConfig("gfx950");
  HostBuffers buffers;
  const int64_t page = config.pageSize * config.numKVHeads * config.headDim;
  buffers.keyPageStride = 2 * page;
  EXPECT_NE(checkHostBuffers(config, buffers)
                .find("packed caches are read contiguous: the key_cache page "
                      "stride must be 0 or " +
                      std::to_string(page) + " elements, got " +
                      std::to_string(2 * page)),
            std::string::npos)
      << checkHostBuffers(config, buffers);
  buffers.keyPageStride = 0;
  buffers.valuePageStride = -1;
  config.cacheLayout = CacheLayout::nhd;
  EXPECT_NE(checkHostBuffers(config, buffers)
                .find("the value_cache page stride must be >= 0"),
            std::string::npos)
      << checkHostBuffers(config, buffers);
}

struct KernelsCase {
  std::string chip;
  EmulatedKernels kernels;
};

class EmulatedDecode : public testing::TestWithParam<KernelsCase> {};

TEST_P(EmulatedDecode, MatchesTheOracle) {
  const KernelsCase &param = GetParam();
  EmulationOptions options;
  options.kernels = param.kernels;
  std::string error;
  DecodeConfig config = smallConfig(param.chip);
  auto program = EmulatedProgram::compile(config, error, options);
  ASSERT_TRUE(succeeded(program)) << error;

  ::pa::oracle::CaseConfig c;
  c.numQueryHeads = config.numQueryHeads;
  c.numKvHeads = config.numKVHeads;
  c.headDim = config.headDim;
  c.pageSize = config.pageSize;
  c.queryLen = config.queryLength;
  c.kvType = ::pa::oracle::ScalarType::BF16;
  c.vLayout = ::pa::oracle::VLayout::Transposed;
  c.scaleMode = ::pa::oracle::ScaleMode::PerTensor;
  c.window = config.slidingWindow;
  c.sinks = true;
  c.contextLengths = {0, 1, 33, 300};
  c.batch = int64_t(c.contextLengths.size());
  c.seed = 5;
  c.garbageSeed = 6;
  c.poisonInvisible = true;
  ::pa::oracle::DecodeCase decodeCase;
  ASSERT_TRUE(::pa::oracle::generateCase(c, decodeCase, error)) << error;
  emulator::Stats stats;
  ::pa::numerics::CaseResult result = ::pa::numerics::runAndCompare(
      (*program)->config(),
      [&](const HostBuffers &buffers, std::string &message) {
        return (*program)->run(buffers, message, &stats);
      },
      decodeCase);
  EXPECT_TRUE(result.passed) << result.failure;
  EXPECT_EQ(stats.launches, 3u); // plan, decode, reduce
  EXPECT_GT(stats.laneInstructions, stats.waveInstructions);
}

INSTANTIATE_TEST_SUITE_P(
    Chips, EmulatedDecode,
    testing::Values(KernelsCase{"gfx942", EmulatedKernels::rocdlPipeline},
                    KernelsCase{"gfx950", EmulatedKernels::rocdlPipeline},
                    KernelsCase{"gfx942", EmulatedKernels::lane0Baseline},
                    KernelsCase{"gfx950", EmulatedKernels::lane0Baseline}),
    [](const testing::TestParamInfo<KernelsCase> &info) {
      return info.param.chip +
             (info.param.kernels == EmulatedKernels::lane0Baseline
                  ? "_lane0"
                  : "_rocdl");
    });

} // namespace
