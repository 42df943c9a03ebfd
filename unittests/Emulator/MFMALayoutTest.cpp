//===- MFMALayoutTest.cpp - the emulator's MFMAs vs AMD's layout tables ---===//
//
// Ground truth: shared/isa/mfma-layouts, printed by AMD's Matrix Instruction
// Calculator for CDNA3 (gfx942). For every entry of A, B and D of each
// table the test (1) compares the emulator's layout functions with the
// table and (2) runs `amdgpu.mfma` through the emulator with that one entry
// set (one-hot) in the lane and register the table names, and reads every D
// entry back from the lane and register the D table names. Each run fails
// if the emulator places any A, B or D entry elsewhere.
//
// The fp8 instructions run as f8E4M3FNUZ on gfx942 and as OCP f8E4M3FN on
// gfx950; bf16 / f16 on both. gfx950 (CDNA4) has the same opcodes and the
// emulator gives them the CDNA3 layouts; the CDNA4 ISA reference guide,
// whose matrix-layout section would confirm that, is not among the shared
// references, so that carry-over is an assumption stated here, not a
// checked fact.
//
// gfx950-only: v_mfma_f32_16x16x128_f8f6f4 and v_mfma_f32_32x32x64_f8f6f4
// with fp8 (E4M3) A and B run against the cdna4-*.csv tables, transcribed
// (unittests/Inputs/mfma-layouts/transcribe_cdna4.py, README.md) from the
// layouts of the AMD CDNA4 Instruction Set Architecture guide, chapter 7
// "Matrix Arithmetic Instructions" (amd-instinct-cdna4-instruction-set-
// architecture.pdf), as AMD's composable_kernel tabulates them
// (test/mx_mfma_op/mx_mfma_op.hpp, "Register Mapping for 16x128 for FP8" /
// "for 32x64 for FP8"). The other gfx950-only shapes
// (v_mfma_f32_16x16x32_bf16 / _f16, v_mfma_f32_32x32x16_bf16 / _f16) have
// no table: the emulator rejects them (tested below).
//
//===----------------------------------------------------------------------===//
#include "pa/API/Builders.h"
#include "pa/Emulator/Emulator.h"
#include "pa/Emulator/MFMALayout.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace mlir;
using namespace mlir::pa::emulator;

namespace {

/// One table entry: matrix position -> lane and element of the operand.
struct Entry {
  int row, column;
  LaneElement place;
};

/// Parses `cdna3-<name>-<which>.csv`: rows "r,v0{L}.[hi:lo],..." after the
/// header; the element of a VGPR bit range of `bits`-bit values.
std::vector<Entry> readTable(const std::string &arch, const std::string &name,
                             char which, int bits) {
  std::string path = std::string(PA_MFMA_LAYOUT_DIR) + "/" + arch + "-" +
                     name + "-" + which + ".csv";
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << "cannot read " << path;
  std::vector<Entry> entries;
  std::regex cell(R"(v(\d+)\{(\d+)\}(?:\.\[(\d+):(\d+)\])?)");
  std::string line;
  bool body = false;
  while (std::getline(file, line)) {
    if (line.rfind(std::string(1, which) + "[", 0) == 0) {
      body = true; // the header row
      continue;
    }
    if (!body || line.empty())
      continue;
    std::stringstream fields(line);
    std::string field;
    std::getline(fields, field, ',');
    int row = std::stoi(field);
    int column = 0;
    while (std::getline(fields, field, ',')) {
      std::smatch match;
      EXPECT_TRUE(std::regex_match(field, match, cell))
          << path << ": unexpected cell " << field;
      int vgpr = std::stoi(match[1]), lane = std::stoi(match[2]);
      int low = match[4].matched ? std::stoi(match[4]) : 0;
      entries.push_back({row, column++, {lane, (vgpr * 32 + low) / bits}});
    }
  }
  return entries;
}

struct Instruction {
  const char *table; // file name part
  int m, n, k;
  bool fp8; // fp8 A and B (else a 16-bit type named by `type16`)
  const char *type16;
  const char *arch = "cdna3"; // cdna4: gfx950 only
};

const Instruction kInstructions[] = {
    {"v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, true, nullptr},
    {"v_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, true, nullptr},
    {"v_mfma_f32_16x16x16_bf16", 16, 16, 16, false, "bf16"},
    {"v_mfma_f32_32x32x8_bf16", 32, 32, 8, false, "bf16"},
    {"v_mfma_f32_16x16x16_f16", 16, 16, 16, false, "f16"},
    {"v_mfma_f32_16x16x128_f8f6f4", 16, 16, 128, true, nullptr, "cdna4"},
    {"v_mfma_f32_32x32x64_f8f6f4", 32, 32, 64, true, nullptr, "cdna4"},
};

struct Case {
  Instruction instruction;
  std::string chip;
  std::string elementType; // MLIR spelling of A / B elements
  ScalarKind kind;
  const llvm::fltSemantics *semantics;
};

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (const Instruction &instruction : kInstructions)
    for (std::string chip : {"gfx942", "gfx950"}) {
      if (std::string(instruction.arch) == "cdna4" && chip != "gfx950")
        continue;
      if (instruction.fp8) {
        bool fnuz = chip == "gfx942";
        cases.push_back(
            {instruction, chip, fnuz ? "f8E4M3FNUZ" : "f8E4M3FN",
             fnuz ? ScalarKind::F8E4M3FNUZ : ScalarKind::F8E4M3FN,
             fnuz ? &llvm::APFloat::Float8E4M3FNUZ()
                  : &llvm::APFloat::Float8E4M3FN()});
      } else {
        bool bf16 = std::string(instruction.type16) == "bf16";
        cases.push_back({instruction, chip, instruction.type16,
                         bf16 ? ScalarKind::BF16 : ScalarKind::F16,
                         bf16 ? &llvm::APFloat::BFloat()
                              : &llvm::APFloat::IEEEhalf()});
      }
    }
  return cases;
}

std::string caseName(const testing::TestParamInfo<Case> &info) {
  return std::string(info.param.instruction.table) + "_" + info.param.chip;
}

/// A kernel: lane l loads its A, B and C operands from row l of three
/// buffers, runs the MFMA and stores D to row l of a fourth.
std::string kernelText(const Case &c, int operandElements,
                       int accumulatorElements) {
  std::string t = c.elementType;
  std::string ab = "memref<64x" + std::to_string(operandElements) + "x" + t +
                   ">";
  std::string acc = "memref<64x" + std::to_string(accumulatorElements) +
                    "xf32>";
  std::string va = "vector<" + std::to_string(operandElements) + "x" + t + ">";
  std::string vc = "vector<" + std::to_string(accumulatorElements) + "xf32>";
  const Instruction &i = c.instruction;
  std::string shape = std::to_string(i.m) + "x" + std::to_string(i.n) + "x" +
                      std::to_string(i.k);
  return R"(module attributes {gpu.container_module} {
  gpu.module @test {
    gpu.func @mfma(%a: )" + ab + ", %b: " + ab + ", %c: " + acc + ", %d: " + acc +
         R"() kernel {
      %lane = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %va = vector.load %a[%lane, %c0] : )" + ab + ", " + va + R"(
      %vb = vector.load %b[%lane, %c0] : )" + ab + ", " + va + R"(
      %vc = vector.load %c[%lane, %c0] : )" + acc + ", " + vc + R"(
      %vd = amdgpu.mfma )" + shape + R"( %va * %vb + %vc blgp = none : )" +
         va + ", " + va + ", " + vc + R"(
      vector.store %vd, %d[%lane, %c0] : )" + acc + ", " + vc + R"(
      gpu.return
    }
  }
  func.func @main(%a: )" + ab + ", %b: " + ab + ", %c: " + acc + ", %d: " + acc +
         R"() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @test::@mfma blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : )" +
         ab + ", %b : " + ab + ", %c : " + acc + ", %d : " + acc + R"()
    return
  }
}
)";
}

class MFMALayout : public testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    const Case &c = GetParam();
    const Instruction &i = c.instruction;
    std::optional<MFMAInstruction> found =
        lookupMFMA(i.m, i.n, i.k, 1, c.kind);
    ASSERT_TRUE(found);
    mfma = *found;
    ASSERT_EQ(mfma.isaName(), i.table);
    int bits = i.fp8 ? 8 : 16;
    a = readTable(i.arch, i.table, 'A', bits);
    b = readTable(i.arch, i.table, 'B', bits);
    d = readTable(i.arch, i.table, 'D', 32);
    ASSERT_EQ(a.size(), size_t(i.m * i.k));
    ASSERT_EQ(b.size(), size_t(i.k * i.n));
    ASSERT_EQ(d.size(), size_t(i.m * i.n));
  }

  MFMAInstruction mfma;
  std::vector<Entry> a, b, d;
};

TEST_P(MFMALayout, LayoutFunctionsMatchTheTables) {
  for (const Entry &e : a) // A[m][k]
    EXPECT_EQ(mfmaOperandPosition(mfma, e.row, e.column), e.place)
        << "A[" << e.row << "][" << e.column << "]";
  for (const Entry &e : b) // B[k][n]
    EXPECT_EQ(mfmaOperandPosition(mfma, e.column, e.row), e.place)
        << "B[" << e.row << "][" << e.column << "]";
  for (const Entry &e : d) // D[i][j]
    EXPECT_EQ(mfmaAccumulatorPosition(mfma, e.row, e.column), e.place)
        << "D[" << e.row << "][" << e.column << "]";
}

/// One-hot runs: for every A entry, A = e_(m,k) and B[k'][n] = (1 + k' / N)
/// when n = k' % N, so that D row m holds (1 + k / N) in column k % N and
/// nothing else: the pair (column, value) names k. Symmetrically for every
/// B entry. C adds a distinct value per entry (C and D share a layout), so
/// every run also checks the placement of all of C / D.
TEST_P(MFMALayout, EmulatorPlacesEveryEntryAsTheTables) {
  const Case &c = GetParam();
  const int m = mfma.m, n = mfma.n, k = mfma.k;
  const int perLane = mfma.operandElements();
  const int accumulators = mfma.accumulatorElements();
  const int bytes = c.instruction.fp8 ? 1 : 2;

  DialectRegistry registry;
  mlir::pa::registerPaDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      kernelText(c, perLane, accumulators), &context);
  ASSERT_TRUE(module);
  Options options;
  options.chip = c.chip;
  std::string error;
  auto program = Program::compile(*module, options, error);
  ASSERT_TRUE(succeeded(program)) << error;

  auto encode = [&](double value) {
    llvm::APFloat real(value);
    bool lost;
    real.convert(*c.semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
    EXPECT_FALSE(lost) << value << " is not exact in " << c.elementType;
    return uint16_t(real.bitcastToAPInt().getZExtValue());
  };
  // Operand storage: row = lane, element = index in the lane's vector.
  std::vector<uint8_t> aBits(size_t(64 * perLane * bytes));
  std::vector<uint8_t> bBits(aBits.size());
  std::vector<float> cValues(size_t(64 * accumulators));
  std::vector<float> dValues(cValues.size());
  auto put = [&](std::vector<uint8_t> &store, LaneElement at, double value) {
    uint16_t bits = encode(value);
    std::memcpy(&store[size_t((at.lane * perLane + at.element) * bytes)],
                &bits, size_t(bytes));
  };
  // C[i][j] = 1000 + 32 i + j, placed by the D table.
  for (const Entry &e : d)
    cValues[size_t(e.place.lane * accumulators + e.place.element)] =
        float(1000 + 32 * e.row + e.column);

  auto run = [&](const char *what, int index, auto &&expected) {
    std::vector<MemRefBinding> bindings = {
        MemRefBinding::rowMajor(aBits.data(), {64, perLane}, bytes, "A", true),
        MemRefBinding::rowMajor(bBits.data(), {64, perLane}, bytes, "B", true),
        MemRefBinding::rowMajor(cValues.data(), {64, accumulators}, 4, "C",
                                true),
        MemRefBinding::rowMajor(dValues.data(), {64, accumulators}, 4, "D",
                                false)};
    std::fill(dValues.begin(), dValues.end(), NAN);
    std::string message;
    ASSERT_TRUE(succeeded((*program)->run("main", bindings, message)))
        << message;
    for (const Entry &e : d) {
      float got = dValues[size_t(e.place.lane * accumulators + e.place.element)];
      float want = float(1000 + 32 * e.row + e.column) +
                   float(expected(e.row, e.column));
      ASSERT_EQ(got, want) << what << " entry " << index << ": D[" << e.row
                           << "][" << e.column << "] read from lane "
                           << e.place.lane << " element " << e.place.element;
    }
  };

  // Every A entry, one at a time.
  std::fill(bBits.begin(), bBits.end(), 0);
  for (int kk = 0; kk < k; ++kk) // B[kk][kk % N] = 1 + kk / N
    for (const Entry &e : b)
      if (e.row == kk && e.column == kk % n)
        put(bBits, e.place, 1 + kk / n);
  for (size_t index = 0; index < a.size(); ++index) {
    const Entry &e = a[index];
    std::fill(aBits.begin(), aBits.end(), 0);
    put(aBits, e.place, 1.0);
    run("A", int(index), [&](int i, int j) {
      return i == e.row && j == e.column % n ? 1 + e.column / n : 0;
    });
    if (HasFatalFailure())
      return;
  }
  // Every B entry, one at a time: A[kk % M][kk] = 1 + kk / M.
  std::fill(aBits.begin(), aBits.end(), 0);
  for (int kk = 0; kk < k; ++kk)
    for (const Entry &e : a)
      if (e.column == kk && e.row == kk % m)
        put(aBits, e.place, 1 + kk / m);
  for (size_t index = 0; index < b.size(); ++index) {
    const Entry &e = b[index];
    std::fill(bBits.begin(), bBits.end(), 0);
    put(bBits, e.place, 1.0);
    run("B", int(index), [&](int i, int j) {
      return j == e.column && i == e.row % m ? 1 + e.row / m : 0;
    });
    if (HasFatalFailure())
      return;
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, MFMALayout, testing::ValuesIn(allCases()),
                         caseName);

/// The emulator's error for the module `text` on `chip` (empty when it
/// compiles, which the callers treat as a failure).
std::string compileError(const char *text, const char *chip) {
  DialectRegistry registry;
  mlir::pa::registerPaDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  EXPECT_TRUE(module);
  if (!module)
    return "unparsable";
  std::string error;
  Options options;
  options.chip = chip;
  EXPECT_TRUE(failed(Program::compile(*module, options, error)));
  return error;
}

/// The gfx950-only shapes without a table: the emulator refuses them
/// instead of guessing.
TEST(MFMALayoutGfx950Only, ShapesWithoutATableAreRejected) {
  EXPECT_FALSE(lookupMFMA(16, 16, 32, 1, ScalarKind::BF16));
  EXPECT_FALSE(lookupMFMA(16, 16, 32, 1, ScalarKind::F16));
  EXPECT_FALSE(lookupMFMA(32, 32, 16, 1, ScalarKind::BF16));
  EXPECT_FALSE(lookupMFMA(16, 16, 128, 1, ScalarKind::BF16));
  EXPECT_FALSE(lookupMFMA(4, 4, 4, 16, ScalarKind::F16)); // blocked

  std::string error = compileError(R"(
    module attributes {gpu.container_module} {
      gpu.module @test {
        gpu.func @mfma(%a: vector<8xbf16>, %c: vector<4xf32>) kernel {
          %d = amdgpu.mfma 16x16x32 %a * %a + %c blgp = none : vector<8xbf16>, vector<8xbf16>, vector<4xf32>
          gpu.return
        }
      }
    })",
                                     "gfx950");
  EXPECT_NE(error.find("no verified register layout"), std::string::npos)
      << error;
}

/// The f8f6f4 instructions exist on gfx950 only (MLIR takes them on OCP fp8
/// only): a gfx942 kernel using one is refused, not executed with a layout
/// the chip does not have.
TEST(MFMALayoutGfx950Only, F8F6F4IsRefusedOnGfx942) {
  std::string error = compileError(R"(
    module attributes {gpu.container_module} {
      gpu.module @test {
        gpu.func @mfma(%a: vector<32xf8E4M3FN>, %c: vector<4xf32>) kernel {
          %d = amdgpu.mfma 16x16x128 %a * %a + %c blgp = none : vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<4xf32>
          gpu.return
        }
      }
    })",
                                     "gfx942");
  EXPECT_NE(error.find("gfx950 only"), std::string::npos) << error;
}

} // namespace
