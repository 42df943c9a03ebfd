//===- MFMALayoutsTest.cpp - pa-to-mfma's lane mappings vs the ISA tables -===//
//
// The layout functions pa-to-mfma emits its address math from
// (lib/Conversion/PaToMFMA/Layouts.h) are evaluated here with int and
// checked against AMD's register-layout tables of the two instructions
// (unittests/Inputs/mfma-layouts/*.csv, copied from shared/isa/mfma-layouts: the Matrix
// Instruction Calculator's CDNA3 output), entry by entry, and then as a
// whole: a wave's QK and PV products are executed with the tables' operand
// placement on the registers the lane rules fill, and must equal the plain
// matrix products.
//
//===----------------------------------------------------------------------===//
#include "Layouts.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir::pa::mfma;

namespace {

struct Position {
  int lane = -1, element = -1;
};

/// One table: entry [row][column] -> (lane, element of the lane's operand
/// vector). Cells read `v<R>{<lane>}.[<hi>:<lo>]` (operands) or
/// `v<R>{<lane>}` (accumulators); element = R * (32 / bits) + lo / bits.
struct Table {
  std::map<std::pair<int, int>, Position> entries;
  int rows = 0, columns = 0;
  Position at(int row, int column) const {
    auto it = entries.find({row, column});
    return it == entries.end() ? Position{} : it->second;
  }
};

Table readTable(const std::string &name, int elementBits) {
  Table table;
  std::ifstream in(std::string(PA_MFMA_LAYOUTS_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "cannot read " << name;
  std::regex cell(R"(v(\d+)\{(\d+)\}(?:\.\[(\d+):(\d+)\])?)");
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string first;
    std::getline(fields, first, ',');
    if (first.empty() || !std::isdigit(static_cast<unsigned char>(first[0])))
      continue; // title lines and the column header
    int row = std::stoi(first);
    std::string text;
    for (int column = 0; std::getline(fields, text, ','); ++column) {
      std::smatch match;
      if (!std::regex_match(text, match, cell)) {
        ADD_FAILURE() << name << ": unreadable cell '" << text << "'";
        continue;
      }
      int reg = std::stoi(match[1]), lane = std::stoi(match[2]);
      int element = reg;
      if (match[3].matched)
        element = reg * (32 / elementBits) + std::stoi(match[4]) / elementBits;
      table.entries[{row, column}] = {lane, element};
      table.rows = std::max(table.rows, row + 1);
      table.columns = std::max(table.columns, column + 1);
    }
  }
  return table;
}

struct InstrTables {
  Instr instr;
  Table a, b, d;
};

InstrTables tablesFor(const Instr &instr) {
  std::string base = instr.k == 32 ? "cdna3-v_mfma_f32_16x16x32_fp8_fp8"
                                   : "cdna3-v_mfma_f32_16x16x16_bf16";
  int bits = 8 * instr.elementBytes;
  return {instr, readTable(base + "-A.csv", bits),
          readTable(base + "-B.csv", bits), readTable(base + "-D.csv", 32)};
}

const InstrTables &fp8Tables() {
  static InstrTables tables = tablesFor(kFp8Instr);
  return tables;
}
const InstrTables &bf16Tables() {
  static InstrTables tables = tablesFor(kBf16Instr);
  return tables;
}

class LayoutTest : public ::testing::TestWithParam<const InstrTables *(*)()> {
protected:
  const InstrTables &tables() { return *GetParam()(); }
};

const InstrTables *fp8() { return &fp8Tables(); }
const InstrTables *bf16() { return &bf16Tables(); }

//===----------------------------------------------------------------------===//
// The instruction layouts, entry by entry
//===----------------------------------------------------------------------===//

TEST_P(LayoutTest, OperandAndResultPositionsMatchTheTables) {
  const InstrTables &t = tables();
  const Instr &in = t.instr;
  ASSERT_EQ(t.a.rows, kBlock);
  ASSERT_EQ(t.a.columns, in.k);
  ASSERT_EQ(t.b.rows, in.k);
  ASSERT_EQ(t.b.columns, kBlock);
  ASSERT_EQ(t.d.rows, kBlock);
  ASSERT_EQ(t.d.columns, kBlock);
  for (int mn = 0; mn < kBlock; ++mn)
    for (int k = 0; k < in.k; ++k) {
      Position a = t.a.at(mn, k), b = t.b.at(k, mn);
      EXPECT_EQ(a.lane, operandLane(in, mn, k)) << "A[" << mn << "][" << k << "]";
      EXPECT_EQ(a.element, operandElement(in, k)) << "A[" << mn << "][" << k << "]";
      EXPECT_EQ(b.lane, operandLane(in, mn, k)) << "B[" << k << "][" << mn << "]";
      EXPECT_EQ(b.element, operandElement(in, k)) << "B[" << k << "][" << mn << "]";
    }
  for (int m = 0; m < kBlock; ++m)
    for (int n = 0; n < kBlock; ++n) {
      Position d = t.d.at(m, n);
      EXPECT_EQ(d.lane, resultLane(m, n)) << "D[" << m << "][" << n << "]";
      EXPECT_EQ(d.element, resultElement(m)) << "D[" << m << "][" << n << "]";
    }
}

//===----------------------------------------------------------------------===//
// The decode kernel's choices
//===----------------------------------------------------------------------===//

/// tau(b, m) leaves lane group j with tokens 16 j .. 16 j + 15 of its row:
/// block b, accumulator r holds token 16 j + 4 b + r.
TEST_P(LayoutTest, QKTokenOrderGivesEachLaneGroupSixteenConsecutiveTokens) {
  const InstrTables &t = tables();
  for (int block = 0; block < kQuarterTokens / kBlock; ++block)
    for (int m = 0; m < kBlock; ++m)
      for (int n = 0; n < kBlock; ++n) {
        Position d = t.d.at(m, n);
        int group = d.lane / kBlock;
        EXPECT_EQ(d.lane % kBlock, n);
        EXPECT_EQ(qkToken(block, m),
                  group * kGroupTokens + block * kResultElements + d.element);
        EXPECT_EQ(qkResultBlock(qkToken(block, m) - group * kGroupTokens), block);
        EXPECT_EQ(qkResultElement(qkToken(block, m) - group * kGroupTokens),
                  d.element);
      }
  // What the key address math assumes: the blocks of a row lane differ by a
  // constant token offset and stay in the lane's 16-token group (one page).
  for (int m = 0; m < kBlock; ++m)
    for (int block = 0; block < kQuarterTokens / kBlock; ++block) {
      EXPECT_EQ(qkToken(block, m) - qkToken(0, m),
                qkToken(block, 0) - qkToken(0, 0));
      EXPECT_EQ(qkToken(block, m) / kGroupTokens, qkToken(0, m) / kGroupTokens);
    }
  // Every token of the quarter is the A row of exactly one (block, m).
  std::vector<int> seen(kQuarterTokens, 0);
  for (int block = 0; block < kQuarterTokens / kBlock; ++block)
    for (int m = 0; m < kBlock; ++m)
      ++seen[qkToken(block, m)];
  for (int token = 0; token < kQuarterTokens; ++token)
    EXPECT_EQ(seen[token], 1) << "token " << token;
}

/// The contraction order over d: A (K rows) and B (query columns) agree, a
/// lane's K-step operands are consecutive slices of its 16-byte load, and
/// the steps cover every head-dim element once.
TEST_P(LayoutTest, QKContractionCoversTheHeadDimOnce) {
  const InstrTables &t = tables();
  const Instr &in = t.instr;
  for (int pack : {8, 16}) {
    if (pack % in.perLane != 0)
      continue;
    for (int headDim : {64, 128, 192, 256, 512}) {
      int chunks = headDim / (kLaneGroups * pack);
      std::vector<int> seen(headDim, 0);
      for (int chunk = 0; chunk < chunks; ++chunk)
        for (int step = 0; step < pack / in.perLane; ++step)
          for (int k = 0; k < in.k; ++k) {
            Position a = t.a.at(0, k), b = t.b.at(k, 0);
            int group = a.lane / kBlock;
            ASSERT_EQ(b.lane / kBlock, group);
            ASSERT_EQ(b.element, a.element);
            int d = qkHeadDim(pack, in, chunk, step, group, a.element);
            // The lane's load covers [pack (4 chunk + group), + pack); the
            // step takes elements [step * perLane, + perLane) of it.
            EXPECT_EQ(d - pack * (chunk * kLaneGroups + group),
                      step * in.perLane + a.element);
            ++seen[d];
          }
      for (int d = 0; d < headDim; ++d)
        EXPECT_EQ(seen[d], 1) << "pack " << pack << " D " << headDim << " d "
                              << d;
    }
  }
}

/// PV's B operand (P^T) is what the QK result left in each lane: no data
/// moves between the products.
TEST_P(LayoutTest, PVOperandIsTheQKResultInPlace) {
  const InstrTables &t = tables();
  const Instr &in = t.instr;
  ASSERT_EQ(pvSteps(in) * in.k / kLaneGroups, kGroupTokens);
  for (int step = 0; step < pvSteps(in); ++step)
    for (int k = 0; k < in.k; ++k)
      for (int n = 0; n < kBlock; ++n) {
        Position b = t.b.at(k, n);
        int group = b.lane / kBlock;
        int token = pvToken(in, step, group, b.element);
        // The QK result holding (row n, token): its block and A row.
        int block = qkResultBlock(token - group * kGroupTokens);
        int element = qkResultElement(token - group * kGroupTokens);
        int m = -1;
        for (int row = 0; row < kBlock; ++row)
          if (qkToken(block, row) == token)
            m = row;
        ASSERT_GE(m, 0);
        Position d = t.d.at(m, n);
        EXPECT_EQ(d.lane, b.lane) << "step " << step << " k " << k;
        EXPECT_EQ(d.element, element) << "step " << step << " k " << k;
      }
}

/// PV's A operand (V^T[d][k]): lane group j needs its 16 tokens; the merge
/// reads O^T[d][n] as lane (n, j) element r = head dim 4 j + r.
TEST_P(LayoutTest, PVValueOperandAndOutputPositions) {
  const InstrTables &t = tables();
  const Instr &in = t.instr;
  for (int step = 0; step < pvSteps(in); ++step)
    for (int d = 0; d < kBlock; ++d)
      for (int k = 0; k < in.k; ++k) {
        Position a = t.a.at(d, k);
        int group = a.lane / kBlock;
        EXPECT_EQ(a.lane % kBlock, d);
        int token = pvToken(in, step, group, a.element);
        EXPECT_GE(token, group * kGroupTokens);
        EXPECT_LT(token, (group + 1) * kGroupTokens);
      }
  for (int d = 0; d < kBlock; ++d)
    for (int n = 0; n < kBlock; ++n) {
      Position o = t.d.at(d, n);
      EXPECT_EQ(o.lane % kBlock, n);
      EXPECT_EQ((o.lane / kBlock) * kResultElements + o.element, d);
    }
}

//===----------------------------------------------------------------------===//
// A wave's products, executed with the tables
//===----------------------------------------------------------------------===//

using Registers = std::vector<std::vector<int64_t>>; // [lane][element]

/// D = A B + C for operands placed in lanes as the tables say.
Registers mfma(const InstrTables &t, const Registers &a, const Registers &b,
               const Registers &c) {
  Registers d = c;
  for (int m = 0; m < kBlock; ++m)
    for (int n = 0; n < kBlock; ++n) {
      int64_t sum = 0;
      for (int k = 0; k < t.instr.k; ++k) {
        Position pa = t.a.at(m, k), pb = t.b.at(k, n);
        sum += a[pa.lane][pa.element] * b[pb.lane][pb.element];
      }
      Position pd = t.d.at(m, n);
      d[pd.lane][pd.element] += sum;
    }
  return d;
}

Registers zeros(int elements) {
  return Registers(kWaveLanes, std::vector<int64_t>(elements, 0));
}

/// One wave, one 16-row M-tile, its 64-token quarter: S^T = K Q^T by the
/// lane rules, then O^T = V^T P^T with P = S in place.
void checkWaveProducts(const InstrTables &t, int pack, int headDim) {
  const Instr &in = t.instr;
  std::mt19937 rng(headDim * 31 + pack);
  std::uniform_int_distribution<int> small(-4, 4);
  auto matrix = [&](int rows, int columns) {
    std::vector<std::vector<int64_t>> m(rows, std::vector<int64_t>(columns));
    for (auto &row : m)
      for (int64_t &v : row)
        v = small(rng);
    return m;
  };
  auto keys = matrix(kQuarterTokens, headDim);
  auto query = matrix(kBlock, headDim);
  auto values = matrix(kQuarterTokens, headDim);

  // QK: block b, chunk c: lane (i, j) loads K[qkToken(b, i)][pack (4c + j)
  // ...] and Q[i][same]; step h takes elements [h perLane, + perLane).
  const int chunks = headDim / (kLaneGroups * pack);
  std::vector<Registers> scores;
  for (int block = 0; block < kQuarterTokens / kBlock; ++block) {
    Registers acc = zeros(kResultElements);
    for (int chunk = 0; chunk < chunks; ++chunk)
      for (int step = 0; step < pack / in.perLane; ++step) {
        Registers a = zeros(in.perLane), b = zeros(in.perLane);
        for (int lane = 0; lane < kWaveLanes; ++lane) {
          int i = lane % kBlock, j = lane / kBlock;
          for (int e = 0; e < in.perLane; ++e) {
            int d = qkHeadDim(pack, in, chunk, step, j, e);
            a[lane][e] = keys[qkToken(block, i)][d];
            b[lane][e] = query[i][d];
          }
        }
        acc = mfma(t, a, b, acc);
      }
    scores.push_back(acc);
  }
  auto score = [&](int row, int token) {
    int64_t sum = 0;
    for (int d = 0; d < headDim; ++d)
      sum += query[row][d] * keys[token][d];
    return sum;
  };
  for (int block = 0; block < kQuarterTokens / kBlock; ++block)
    for (int lane = 0; lane < kWaveLanes; ++lane)
      for (int r = 0; r < kResultElements; ++r) {
        int i = lane % kBlock, j = lane / kBlock;
        int token = j * kGroupTokens + block * kResultElements + r;
        ASSERT_EQ(scores[block][lane][r], score(i, token))
            << "block " << block << " lane " << lane << " r " << r;
      }

  // PV: lane (i, j) holds P[i][16 j + t] at (block t / 4, element t % 4);
  // for head-dim block blk it loads V[16 j + t][16 blk + i] (t < 16).
  for (int blk = 0; blk < headDim / kBlock; ++blk) {
    Registers out = zeros(kResultElements);
    for (int step = 0; step < pvSteps(in); ++step) {
      Registers a = zeros(in.perLane), b = zeros(in.perLane);
      for (int lane = 0; lane < kWaveLanes; ++lane) {
        int i = lane % kBlock, j = lane / kBlock;
        for (int e = 0; e < in.perLane; ++e) {
          int groupToken = pvToken(in, step, 0, e);
          a[lane][e] = values[j * kGroupTokens + groupToken][blk * kBlock + i];
          b[lane][e] = scores[qkResultBlock(groupToken)][lane]
                             [qkResultElement(groupToken)];
        }
      }
      out = mfma(t, a, b, out);
    }
    for (int lane = 0; lane < kWaveLanes; ++lane)
      for (int r = 0; r < kResultElements; ++r) {
        int i = lane % kBlock, j = lane / kBlock;
        int d = blk * kBlock + j * kResultElements + r;
        int64_t expected = 0;
        for (int token = 0; token < kQuarterTokens; ++token)
          expected += score(i, token) * values[token][d];
        ASSERT_EQ(out[lane][r], expected)
            << "d block " << blk << " lane " << lane << " r " << r;
      }
  }
}

/// gfx950's QK on v_mfma_f32_16x16x128_f8f6f4 (the CDNA4 table, see
/// unittests/Inputs/mfma-layouts/README.md): the A operand is two K load
/// chunks side by side, the B operand 32 query bytes read at once from the
/// row kept in wideQueryWord order. Every K index of the instruction must
/// pair a key byte with the query value of the same head dim, and each head
/// dim must be contracted once.
TEST(WideQK, KeyAndQueryBytesMeetOnTheCdna4Table) {
  const std::string base = "cdna4-v_mfma_f32_16x16x128_f8f6f4";
  Table a = readTable(base + "-A.csv", 8), b = readTable(base + "-B.csv", 8);
  ASSERT_EQ(a.columns, kWideFp8K);
  ASSERT_EQ(b.rows, kWideFp8K);
  const int pack = 16; // fp8 values per 16-byte load
  for (int headDim : {128, 256, 512}) {
    const int words = headDim / 4;
    // The query row's words are a permutation in LDS.
    std::vector<int> rowWordAt(words, -1);
    for (int w = 0; w < words; ++w) {
      int placed = wideQueryWord(w);
      ASSERT_GE(placed, 0);
      ASSERT_LT(placed, words);
      ASSERT_EQ(rowWordAt[placed], -1) << "two words at " << placed;
      rowWordAt[placed] = w;
    }
    std::vector<int> seen(headDim, 0);
    for (int pair = 0; pair < headDim / kWideFp8K; ++pair)
      for (int k = 0; k < kWideFp8K; ++k) {
        Position key = a.at(0, k), query = b.at(k, 0);
        int group = key.lane / kBlock;
        ASSERT_EQ(query.lane / kBlock, group);
        ASSERT_EQ(query.element, key.element);
        // Byte e of the key operand: chunk 2 pair + e / 16 of the lane
        // group, element e % 16 of its 16-byte load.
        int e = key.element;
        int keyDim = qkHeadDim(pack, kFp8Instr, 2 * pair + e / pack, 0, group,
                               e % pack);
        // Byte e of the query operand: LDS word (4 pair + group) * 8 + e / 4
        // of the row, byte e % 4.
        int ldsWord = (kLaneGroups * pair + group) * 8 + e / 4;
        int queryDim = 4 * rowWordAt[ldsWord] + e % 4;
        ASSERT_EQ(keyDim, queryDim) << "D " << headDim << " pair " << pair
                                    << " k " << k;
        ++seen[keyDim];
      }
    for (int d = 0; d < headDim; ++d)
      EXPECT_EQ(seen[d], 1) << "D " << headDim << " d " << d;
  }
}

TEST(WaveProducts, Fp8Instruction) {
  for (int headDim : {64, 128, 256})
    checkWaveProducts(fp8Tables(), /*pack=*/16, headDim);
}

TEST(WaveProducts, Bf16InstructionOnBf16Cache) {
  for (int headDim : {64, 128, 256})
    checkWaveProducts(bf16Tables(), /*pack=*/8, headDim);
}

TEST(WaveProducts, Bf16InstructionOnFp8Cache) {
  for (int headDim : {64, 192})
    checkWaveProducts(bf16Tables(), /*pack=*/16, headDim);
}

INSTANTIATE_TEST_SUITE_P(Instructions, LayoutTest,
                         ::testing::Values(&fp8, &bf16),
                         [](const auto &info) {
                           return info.param == &fp8 ? std::string("fp8")
                                                     : std::string("bf16");
                         });

} // namespace
