//===- HostileDataTest.cpp - the C API under hostile input ----------------===//
//
// What a serving engine may hand the runtime, through libPACAPI.so only
// (docs/reliability.md):
//   - configurations the compiler cannot take: an error naming the problem;
//   - buffers that would make the kernels read outside memory (page ids
//     outside the pool, lengths beyond the table, negative lengths): an
//     error, outputs untouched;
//   - garbage (NaN, Inf, huge values, bad page ids) in every byte no row
//     can see: bitwise-identical results;
//   - non-finite scales: the documented propagation, nothing else changes;
//   - buffers that end (or start) at an unmapped page: no access beyond
//     them (a stray read or write is a SIGSEGV);
//   - the same inputs twice, or through two compilations: bitwise-identical
//     outputs, partials and plans.
//
//===----------------------------------------------------------------------===//
#include "pa-c/Compile.h"
#include "pa-c/Decode.h"

#include <gtest/gtest.h>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Programs and operands
//===----------------------------------------------------------------------===//

/// The static shape of a test program.
struct Spec {
  int64_t hq = 4, hkv = 2, d = 64, p = 16, q = 1;
  int32_t kv = PA_KV_E4M3FN;
  int32_t vLayout = PA_V_PLAIN;
  int32_t scale = PA_SCALE_NONE;
  int64_t window = 0;
  bool sinks = false;
  /// 0: the chip's default budget.
  int64_t budget = 0;

  PaDecodeConfig config() const {
    PaDecodeConfig c = paDecodeConfigGetDefault();
    c.numQueryHeads = hq;
    c.numKVHeads = hkv;
    c.headDim = d;
    c.pageSize = p;
    c.queryLength = q;
    c.kvType = kv;
    c.vLayout = vLayout;
    c.scaleMode = scale;
    c.slidingWindow = window;
    c.hasSinks = sinks;
    c.budget = budget;
    return c;
  }
  int64_t pack() const { return kv == PA_KV_BF16 ? 8 : 16; }
  int64_t elementBytes() const { return kv == PA_KV_BF16 ? 2 : 1; }
  int64_t rows() const { return q * (hq / hkv); }
  /// First token some row of a sequence of length `c` can see.
  int64_t firstVisible(int64_t c) const {
    return window > 0 ? std::max<int64_t>(0, c - (q - 1) - window) : 0;
  }
};

/// A compiled program, destroyed with the handle.
struct Program {
  PaHostProgram handle{nullptr};
  Program() = default;
  Program(const Program &) = delete;
  ~Program() {
    if (handle.ptr)
      paHostProgramDestroy(handle);
  }
};

/// The text of `string` (freed), "" for no string.
std::string take(PaString string) {
  std::string text = string.data ? std::string(string.data, string.length)
                                 : std::string();
  paStringDestroy(string);
  return text;
}

std::unique_ptr<Program> compile(const Spec &spec) {
  PaDecodeConfig config = spec.config();
  PaString error;
  auto program = std::make_unique<Program>();
  program->handle = paHostProgramCreate(&config, &error);
  std::string message = take(error);
  EXPECT_FALSE(paHostProgramIsNull(program->handle)) << message;
  return program;
}

uint16_t bf16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return static_cast<uint16_t>(bits >> 16); // exact for the values used
}

/// The operands of one run, owned, in the spec's layouts. Caches hold raw
/// element bytes (1 per fp8 element, 2 per bf16 element).
struct Case {
  Spec spec;
  int64_t batch = 0, pages = 0, width = 0, capacity = 0;
  std::vector<uint16_t> query, output;
  std::vector<uint8_t> keyCache, valueCache;
  std::vector<int32_t> blockTables, lengths, workInfo, reduceInfo;
  std::vector<float> kScale, vScale, sinks, expSums, maxLogits, tmpOut;

  /// Byte offsets in the caches of element `dim` (head dim) of the token in
  /// (`page`, `slot`) of KV head `h`.
  int64_t keyElement(int64_t page, int64_t h, int64_t dim, int64_t slot) const {
    const int64_t x = spec.pack();
    return ((((page * spec.hkv + h) * (spec.d / x) + dim / x) * spec.p +
             slot) * x + dim % x) * spec.elementBytes();
  }
  int64_t valueElement(int64_t page, int64_t h, int64_t dim,
                       int64_t slot) const {
    const int64_t x = spec.pack();
    int64_t element =
        spec.vLayout == PA_V_PLAIN
            ? ((page * spec.hkv + h) * spec.d + dim) * spec.p + slot
            : (((page * spec.hkv + h) * (spec.p / x) + slot / x) * spec.d +
               dim) * x + slot % x;
    return element * spec.elementBytes();
  }
  /// Whether token (`page`, `slot`) is one some row of some sequence sees.
  bool tokenUsed(int64_t page, int64_t slot) const {
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t t = spec.firstVisible(lengths[b]); t < lengths[b]; ++t)
        if (blockTables[b * width + t / spec.p] == page && t % spec.p == slot)
          return true;
    return false;
  }

  void poisonOutputs() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::fill(workInfo.begin(), workInfo.end(), int32_t(0xDEADBEEF));
    std::fill(reduceInfo.begin(), reduceInfo.end(), int32_t(0xDEADBEEF));
    for (auto *buffer : {&expSums, &maxLogits, &tmpOut})
      std::fill(buffer->begin(), buffer->end(), nan);
    std::fill(output.begin(), output.end(), 0x7FC0);
  }

  PaHostBuffers view() {
    auto data = [](auto &vector) {
      return vector.empty() ? nullptr : vector.data();
    };
    PaHostBuffers b = {};
    b.abi = PA_HOST_BUFFERS_ABI;
    b.batch = batch;
    b.numPages = pages;
    b.maxPagesPerSequence = width;
    b.capacity = capacity;
    b.query = data(query);
    b.keyCache = data(keyCache);
    b.valueCache = data(valueCache);
    b.blockTables = data(blockTables);
    b.contextLengths = data(lengths);
    b.kScale = data(kScale);
    b.vScale = data(vScale);
    b.sinks = data(sinks);
    b.workInfo = data(workInfo);
    b.reduceInfo = data(reduceInfo);
    b.expSums = data(expSums);
    b.maxLogits = data(maxLogits);
    b.tmpOut = data(tmpOut);
    b.output = data(output);
    return b;
  }
};

/// A valid case: the sequences' pages are a shuffled part of a pool with
/// `sparePages` pages nobody uses; every table has one spare column (valid
/// id 0: it is never read); values are random and finite.
Case makeCase(const Spec &spec, const Program &program,
              std::vector<int32_t> lengths, uint64_t seed,
              int64_t sparePages = 2) {
  std::mt19937_64 random(seed);
  auto uniform = [&] {
    return std::uniform_real_distribution<float>(-0.5f, 0.5f)(random);
  };
  Case c;
  c.spec = spec;
  c.batch = static_cast<int64_t>(lengths.size());
  c.lengths = std::move(lengths);
  std::vector<int64_t> needed;
  for (int32_t length : c.lengths)
    needed.push_back((length + spec.p - 1) / spec.p);
  int64_t used = 0;
  for (int64_t n : needed)
    used += n;
  c.pages = used + sparePages;
  c.width = *std::max_element(needed.begin(), needed.end()) + 1;
  std::vector<int32_t> order(c.pages);
  for (int64_t i = 0; i < c.pages; ++i)
    order[i] = static_cast<int32_t>(i);
  std::shuffle(order.begin(), order.end(), random);
  c.blockTables.assign(c.batch * c.width, 0);
  int64_t next = 0;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t i = 0; i < needed[b]; ++i)
      c.blockTables[b * c.width + i] = order[next++];

  const int64_t cacheBytes =
      c.pages * spec.hkv * spec.d * spec.p * spec.elementBytes();
  c.keyCache.resize(cacheBytes);
  c.valueCache.resize(cacheBytes);
  for (auto *cache : {&c.keyCache, &c.valueCache}) {
    if (spec.kv == PA_KV_BF16) {
      for (int64_t i = 0; i < cacheBytes; i += 2) {
        uint16_t bits = bf16Bits(uniform());
        std::memcpy(cache->data() + i, &bits, 2);
      }
    } else {
      // Sign and a magnitude in [1, 0x3F]: finite in both fp8 flavours
      // (neither 0x7F / 0xFF nor 0x80).
      for (uint8_t &byte : *cache)
        byte = static_cast<uint8_t>((random() & 0x80) | (1 + random() % 0x3F));
    }
  }
  c.query.resize(c.batch * spec.q * spec.hq * spec.d);
  for (uint16_t &bits : c.query)
    bits = bf16Bits(uniform());
  if (spec.scale == PA_SCALE_PER_TENSOR) {
    c.kScale = {0.75f};
    c.vScale = {0.5f};
  } else if (spec.scale == PA_SCALE_PER_TOKEN) {
    for (auto *scale : {&c.kScale, &c.vScale}) {
      scale->resize(c.pages * spec.hkv * spec.p);
      for (float &value : *scale)
        value = 0.75f + uniform();
    }
  }
  if (spec.sinks)
    for (int64_t h = 0; h < spec.hq; ++h)
      c.sinks.push_back(uniform());

  c.capacity = paHostProgramPlanCapacity(program.handle, c.batch);
  const int64_t partials = spec.hkv * c.capacity * spec.rows();
  c.workInfo.resize(c.capacity * 4);
  c.reduceInfo.resize(c.batch * 2);
  c.expSums.resize(partials);
  c.maxLogits.resize(partials);
  c.tmpOut.resize(partials * spec.d);
  c.output.resize(c.query.size());
  c.poisonOutputs();
  return c;
}

/// Runs `c` (outputs poisoned first); the error text, "" on success.
std::string run(const Program &program, Case &c) {
  c.poisonOutputs();
  PaHostBuffers buffers = c.view();
  PaString error;
  bool ok = paHostProgramRun(program.handle, &buffers, &error);
  std::string message = take(error);
  EXPECT_EQ(ok, message.empty()) << message;
  return ok ? std::string() : (message.empty() ? "failed" : message);
}

/// Everything a run writes, for bitwise comparisons.
struct Results {
  std::vector<uint16_t> output;
  std::vector<int32_t> workInfo, reduceInfo;
  std::vector<float> expSums, maxLogits, tmpOut;
};

Results results(const Case &c) {
  return {c.output, c.workInfo, c.reduceInfo, c.expSums, c.maxLogits, c.tmpOut};
}

template <typename T>
bool bitwiseEqual(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

void expectIdentical(const Results &a, const Results &b) {
  EXPECT_TRUE(bitwiseEqual(a.output, b.output)) << "output differs";
  EXPECT_TRUE(bitwiseEqual(a.workInfo, b.workInfo)) << "work_info differs";
  EXPECT_TRUE(bitwiseEqual(a.reduceInfo, b.reduceInfo)) << "reduce_info differs";
  EXPECT_TRUE(bitwiseEqual(a.expSums, b.expSums)) << "exp_sums differs";
  EXPECT_TRUE(bitwiseEqual(a.maxLogits, b.maxLogits)) << "max_logits differs";
  EXPECT_TRUE(bitwiseEqual(a.tmpOut, b.tmpOut)) << "tmp_out differs";
}

float bf16Value(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

//===----------------------------------------------------------------------===//
// Buffers the runtime must refuse
//===----------------------------------------------------------------------===//

struct Refusal {
  const char *name;
  std::function<void(Case &)> breakIt;
  const char *message;
};

TEST(HostileBuffers, AreRefusedWithAnErrorAndOutputsUntouched) {
  Spec spec;
  std::unique_ptr<Program> program = compile(spec);
  ASSERT_TRUE(program->handle.ptr);
  const Refusal refusals[] = {
      {"page id below the pool",
       [](Case &c) { c.blockTables[0] = -1; }, "is not a page of the pool"},
      {"page id past the pool",
       [](Case &c) { c.blockTables[c.width + 1] = int32_t(c.pages); },
       "is not a page of the pool"},
      {"huge page id",
       [](Case &c) { c.blockTables[0] = std::numeric_limits<int32_t>::max(); },
       "is not a page of the pool"},
      {"length beyond the table",
       [](Case &c) { c.lengths[1] = int32_t(c.width * c.spec.p + 1); },
       "is outside [0, max_pages * P]"},
      {"int32 max length",
       [](Case &c) { c.lengths[0] = std::numeric_limits<int32_t>::max(); },
       "is outside [0, max_pages * P]"},
      {"negative length", [](Case &c) { c.lengths[0] = -1; },
       "is outside [0, max_pages * P]"},
      {"int32 min length",
       [](Case &c) { c.lengths[1] = std::numeric_limits<int32_t>::min(); },
       "is outside [0, max_pages * P]"},
      {"capacity", [](Case &c) { c.capacity -= 1; }, "plan slots"},
      {"negative batch", [](Case &c) { c.batch = -1; }, "must be >= 0"},
      {"negative pool", [](Case &c) { c.pages = -3; }, "must be >= 0"},
      {"batch beyond i32",
       [](Case &c) { c.batch = int64_t(1) << 40; },
       "batch must be at most 2^31-1"},
      {"missing query", [](Case &c) { c.query.clear(); }, "'query' is missing"},
      {"missing block table", [](Case &c) { c.blockTables.clear(); },
       "'block_tables' is missing"},
      {"unexpected scales", [](Case &c) { c.kScale = c.vScale = {1.0f}; },
       "compiled without scales"},
      {"unexpected sinks", [](Case &c) { c.sinks.assign(c.spec.hq, 0.0f); },
       "compiled without sinks"},
  };
  for (const Refusal &refusal : refusals) {
    SCOPED_TRACE(refusal.name);
    Case c = makeCase(spec, *program, {40, 17}, 1);
    refusal.breakIt(c);
    std::string error = run(*program, c);
    EXPECT_NE(error.find(refusal.message), std::string::npos) << error;
    // Still the poison of run().
    EXPECT_TRUE(std::all_of(c.output.begin(), c.output.end(),
                            [](uint16_t bits) { return bits == 0x7FC0; }));
  }
  PaString error;
  EXPECT_FALSE(paHostProgramRun(program->handle, nullptr, &error));
  EXPECT_FALSE(take(error).empty());
  PaHostBuffers none = {};
  none.abi = PA_HOST_BUFFERS_ABI;
  EXPECT_FALSE(paHostProgramRun(PaHostProgram{nullptr}, &none, &error));
  EXPECT_FALSE(take(error).empty());
  // An error is -1 (as paDecodeConfigPlanCapacity), never a capacity: a
  // negative batch gave a negative one before.
  EXPECT_EQ(paHostProgramPlanCapacity(PaHostProgram{nullptr}, 4), -1);
  EXPECT_EQ(paHostProgramPlanCapacity(program->handle, -5), -1);
  // Any batch gives a defined capacity (saturated, never an overflow).
  EXPECT_GT(paHostProgramPlanCapacity(program->handle,
                                      std::numeric_limits<int64_t>::max()),
            0);
}

// Each operand of the table, inputs and outputs, optional ones included,
// is named when its buffer is missing (one operand table decides which
// buffers a program needs: pa/Runtime/DecodeOperands.h).
TEST(HostileData, EveryMissingOperandIsNamed) {
  Spec spec;
  spec.scale = PA_SCALE_PER_TOKEN;
  spec.sinks = true;
  std::unique_ptr<Program> program = compile(spec);
  ASSERT_TRUE(program->handle.ptr);
  using Remove = void (*)(Case &);
  const std::pair<const char *, Remove> operands[] = {
      {"key_cache", [](Case &c) { c.keyCache.clear(); }},
      {"value_cache", [](Case &c) { c.valueCache.clear(); }},
      {"context_lengths", [](Case &c) { c.lengths.clear(); }},
      {"k_scale", [](Case &c) { c.kScale.clear(); }},
      {"v_scale", [](Case &c) { c.vScale.clear(); }},
      {"sinks", [](Case &c) { c.sinks.clear(); }},
      {"work_info", [](Case &c) { c.workInfo.clear(); }},
      {"reduce_info", [](Case &c) { c.reduceInfo.clear(); }},
      {"exp_sums", [](Case &c) { c.expSums.clear(); }},
      {"max_logits", [](Case &c) { c.maxLogits.clear(); }},
      {"tmp_out", [](Case &c) { c.tmpOut.clear(); }},
      {"output", [](Case &c) { c.output.clear(); }},
  };
  Case whole = makeCase(spec, *program, {40, 17}, 3);
  ASSERT_EQ(run(*program, whole), "");
  for (const auto &[name, remove] : operands) {
    SCOPED_TRACE(name);
    Case c = makeCase(spec, *program, {40, 17}, 3);
    remove(c);
    EXPECT_EQ(run(*program, c), "'" + std::string(name) + "' is missing");
  }
}

//===----------------------------------------------------------------------===//
// Garbage where no row looks
//===----------------------------------------------------------------------===//

/// Bit patterns a cache element may hold: NaN, infinities, the largest
/// finite values, in the storage of `kv`.
std::vector<uint16_t> garbagePatterns(int32_t kv) {
  switch (kv) {
  case PA_KV_E4M3FN:
    return {0x7F, 0xFF, 0x7E, 0xFE};
  case PA_KV_E4M3FNUZ:
    return {0x80, 0x7F, 0xFF};
  default:
    return {0x7FC0, 0x7F80, 0xFF80, 0xFFC1, 0x7F7F};
  }
}

/// Writes garbage into every cache element, per-token scale and block-table
/// entry of `c` that no row can see.
void fillUnusedWithGarbage(Case &c) {
  const Spec &s = c.spec;
  std::vector<uint16_t> patterns = garbagePatterns(s.kv);
  size_t next = 0;
  auto garbage = [&](std::vector<uint8_t> &cache, int64_t offset) {
    uint16_t bits = patterns[next++ % patterns.size()];
    std::memcpy(cache.data() + offset, &bits, s.elementBytes());
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t page = 0; page < c.pages; ++page) {
    for (int64_t slot = 0; slot < s.p; ++slot) {
      if (c.tokenUsed(page, slot))
        continue;
      for (int64_t h = 0; h < s.hkv; ++h) {
        for (int64_t dim = 0; dim < s.d; ++dim) {
          garbage(c.keyCache, c.keyElement(page, h, dim, slot));
          garbage(c.valueCache, c.valueElement(page, h, dim, slot));
        }
        if (s.scale == PA_SCALE_PER_TOKEN) {
          int64_t index = (page * s.hkv + h) * s.p + slot;
          c.kScale[index] = nan;
          c.vScale[index] = (slot % 2) ? inf : nan;
        }
      }
    }
  }
  // Table entries of pages no row sees: past the used pages, and (windows)
  // before the first visible one.
  const int32_t bad[] = {-1, std::numeric_limits<int32_t>::max(),
                         int32_t(c.pages), std::numeric_limits<int32_t>::min()};
  for (int64_t b = 0; b < c.batch; ++b) {
    int64_t first = s.firstVisible(c.lengths[b]) / s.p;
    int64_t end = (c.lengths[b] + s.p - 1) / s.p;
    for (int64_t i = 0; i < c.width; ++i)
      if (i < first || i >= end)
        c.blockTables[b * c.width + i] = bad[(b + i) % 4];
  }
}

class UnusedBytes : public ::testing::TestWithParam<Spec> {};

TEST_P(UnusedBytes, NeverMatter) {
  const Spec &spec = GetParam();
  std::unique_ptr<Program> program = compile(spec);
  ASSERT_TRUE(program->handle.ptr);
  // Lengths with a partial last page, a whole page, several tiles (split
  // partitions), one token, nothing.
  Case c = makeCase(spec, *program, {37, 64, 700, 1, 0, 300}, 7);
  ASSERT_EQ(run(*program, c), "");
  Results clean = results(c);
  fillUnusedWithGarbage(c);
  ASSERT_EQ(run(*program, c), "");
  expectIdentical(clean, results(c));
  for (uint16_t bits : clean.output)
    ASSERT_TRUE(std::isfinite(bf16Value(bits)));
}

Spec variant(std::function<void(Spec &)> change) {
  Spec spec;
  change(spec);
  return spec;
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, UnusedBytes,
    ::testing::Values(
        Spec{},
        variant([](Spec &s) { s.kv = PA_KV_BF16; }),
        variant([](Spec &s) {
          s.vLayout = PA_V_TRANSPOSED;
          s.scale = PA_SCALE_PER_TOKEN;
          s.q = 3;
        }),
        variant([](Spec &s) {
          s.kv = PA_KV_BF16;
          s.vLayout = PA_V_TRANSPOSED;
          s.scale = PA_SCALE_PER_TOKEN;
          s.window = 40;
          s.q = 2;
        }),
        // A window of whole pages freed left of it (garbage page ids).
        variant([](Spec &s) {
          s.window = 100;
          s.p = 64;
          s.sinks = true;
        })));

//===----------------------------------------------------------------------===//
// Non-finite scales
//===----------------------------------------------------------------------===//

// A NaN key scale of the newest token reaches only the MTP row that sees it
// (the score is masked for the others); sequences and rows that do not see
// it are bitwise unchanged; a sequence without tokens stays exactly 0.
TEST(NonFiniteScales, KeyScaleReachesOnlyTheRowsThatSeeTheToken) {
  Spec spec;
  spec.q = 2;
  spec.scale = PA_SCALE_PER_TOKEN;
  std::unique_ptr<Program> program = compile(spec);
  ASSERT_TRUE(program->handle.ptr);
  Case c = makeCase(spec, *program, {50, 33, 0}, 11);
  ASSERT_EQ(run(*program, c), "");
  Results clean = results(c);
  // Token 49 of sequence 0 (visible to MTP position q = 1 only).
  const int64_t token = 49;
  const int64_t page = c.blockTables[token / spec.p];
  for (int64_t h = 0; h < spec.hkv; ++h)
    c.kScale[(page * spec.hkv + h) * spec.p + token % spec.p] =
        std::numeric_limits<float>::quiet_NaN();
  ASSERT_EQ(run(*program, c), "");
  const int64_t rowElements = spec.hq * spec.d;
  for (int64_t row = 0; row < c.batch * spec.q; ++row) {
    for (int64_t i = 0; i < rowElements; ++i) {
      uint16_t got = c.output[row * rowElements + i];
      if (row == 1) // sequence 0, q = 1
        ASSERT_TRUE(std::isnan(bf16Value(got))) << "element " << i;
      else
        ASSERT_EQ(got, clean.output[row * rowElements + i])
            << "row " << row << " element " << i;
    }
  }
  for (int64_t i = 0; i < 2 * rowElements; ++i)
    EXPECT_EQ(c.output[4 * rowElements + i], 0); // sequence 2: +0.0
}

// A per-tensor NaN scale makes every row that sees a token NaN; rows that
// see nothing (an empty sequence) are still exactly 0.
TEST(NonFiniteScales, PerTensorNaNReachesEveryRowWithTokens) {
  Spec spec;
  spec.scale = PA_SCALE_PER_TENSOR;
  std::unique_ptr<Program> program = compile(spec);
  ASSERT_TRUE(program->handle.ptr);
  for (bool keyScale : {true, false}) {
    Case c = makeCase(spec, *program, {20, 0}, 12);
    (keyScale ? c.kScale : c.vScale)[0] =
        std::numeric_limits<float>::quiet_NaN();
    ASSERT_EQ(run(*program, c), "");
    const int64_t rowElements = spec.hq * spec.d;
    for (int64_t i = 0; i < rowElements; ++i) {
      EXPECT_TRUE(std::isnan(bf16Value(c.output[i])));
      EXPECT_EQ(c.output[rowElements + i], 0);
    }
  }
}

//===----------------------------------------------------------------------===//
// No access outside the buffers
//===----------------------------------------------------------------------===//

/// Copies of buffers placed against an unmapped page, at their end or at
/// their start: an access beyond the buffer faults.
class GuardedCopies {
public:
  explicit GuardedCopies(bool guardAfter) : guardAfter(guardAfter) {}
  ~GuardedCopies() {
    for (auto [base, length] : mappings)
      munmap(base, length);
  }

  template <typename T> T *copy(const std::vector<T> &data) {
    if (data.empty())
      return nullptr;
    const size_t page = sysconf(_SC_PAGESIZE);
    const size_t bytes = data.size() * sizeof(T);
    const size_t dataPages = (bytes + page - 1) / page;
    const size_t length = (dataPages + 2) * page;
    void *base = mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    EXPECT_NE(base, MAP_FAILED);
    mappings.push_back({base, length});
    char *first = static_cast<char *>(base) + page;
    EXPECT_EQ(mprotect(first, dataPages * page, PROT_READ | PROT_WRITE), 0);
    char *start = guardAfter ? first + dataPages * page - bytes : first;
    std::memcpy(start, data.data(), bytes);
    return reinterpret_cast<T *>(start);
  }

  template <typename T>
  static void copyBack(std::vector<T> &data, const T *from) {
    if (from)
      std::memcpy(data.data(), from, data.size() * sizeof(T));
  }

private:
  bool guardAfter;
  std::vector<std::pair<void *, size_t>> mappings;
};

/// Runs `c` on guarded copies of every buffer and copies the outputs back.
void runGuarded(const Program &program, Case &c, bool guardAfter) {
  c.poisonOutputs();
  GuardedCopies guarded(guardAfter);
  PaHostBuffers b = c.view();
  b.query = guarded.copy(c.query);
  b.keyCache = guarded.copy(c.keyCache);
  b.valueCache = guarded.copy(c.valueCache);
  b.blockTables = guarded.copy(c.blockTables);
  b.contextLengths = guarded.copy(c.lengths);
  b.kScale = guarded.copy(c.kScale);
  b.vScale = guarded.copy(c.vScale);
  b.sinks = guarded.copy(c.sinks);
  int32_t *workInfo = guarded.copy(c.workInfo);
  int32_t *reduceInfo = guarded.copy(c.reduceInfo);
  float *expSums = guarded.copy(c.expSums);
  float *maxLogits = guarded.copy(c.maxLogits);
  float *tmpOut = guarded.copy(c.tmpOut);
  uint16_t *output = guarded.copy(c.output);
  b.workInfo = workInfo;
  b.reduceInfo = reduceInfo;
  b.expSums = expSums;
  b.maxLogits = maxLogits;
  b.tmpOut = tmpOut;
  b.output = output;
  PaString error;
  EXPECT_TRUE(paHostProgramRun(program.handle, &b, &error)) << take(error);
  GuardedCopies::copyBack(c.workInfo, workInfo);
  GuardedCopies::copyBack(c.reduceInfo, reduceInfo);
  GuardedCopies::copyBack(c.expSums, expSums);
  GuardedCopies::copyBack(c.maxLogits, maxLogits);
  GuardedCopies::copyBack(c.tmpOut, tmpOut);
  GuardedCopies::copyBack(c.output, output);
}

class GuardPages : public ::testing::TestWithParam<Spec> {};

// Edge-fitted buffers: sequences fill their table rows exactly, the pool
// has no spare page, the last page of the pool is in use.
TEST_P(GuardPages, NoAccessOutsideAnyBuffer) {
  const Spec &spec = GetParam();
  std::unique_ptr<Program> program = compile(spec);
  ASSERT_TRUE(program->handle.ptr);
  Case c = makeCase(spec, *program, {int32_t(3 * spec.p), 300}, 21,
                    /*sparePages=*/0);
  // Drop the spare table column: the rows end where the tables end.
  const int64_t width = c.width - 1;
  std::vector<int32_t> table;
  for (int64_t b = 0; b < c.batch; ++b)
    table.insert(table.end(), c.blockTables.begin() + b * c.width,
                 c.blockTables.begin() + b * c.width + width);
  c.blockTables = table;
  c.width = width;
  c.lengths[1] = int32_t(width * spec.p);
  ASSERT_EQ(run(*program, c), "");
  Results plain = results(c);
  for (bool guardAfter : {true, false}) {
    SCOPED_TRACE(guardAfter ? "guard after" : "guard before");
    runGuarded(*program, c, guardAfter);
    expectIdentical(plain, results(c));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, GuardPages,
    ::testing::Values(Spec{}, variant([](Spec &s) {
                        s.kv = PA_KV_BF16;
                        s.vLayout = PA_V_TRANSPOSED;
                        s.scale = PA_SCALE_PER_TOKEN;
                        s.sinks = true;
                        s.q = 3;
                        s.window = 70;
                      })));

//===----------------------------------------------------------------------===//
// Determinism
//===----------------------------------------------------------------------===//

// Split partitions are merged in plan order, without atomics: the same
// inputs give the same bits, run after run and program after program.
TEST(Determinism, SameInputsSameBits) {
  Spec spec;
  spec.q = 2;
  spec.scale = PA_SCALE_PER_TOKEN;
  spec.sinks = true;
  std::unique_ptr<Program> first = compile(spec), second = compile(spec);
  ASSERT_TRUE(first->handle.ptr && second->handle.ptr);
  Case c = makeCase(spec, *first, {1500, 3000, 257, 0}, 31);
  ASSERT_EQ(run(*first, c), "");
  Results reference = results(c);
  // The case does split: some sequence has several partitions.
  bool split = false;
  for (int64_t b = 0; b < c.batch; ++b)
    split |= c.reduceInfo[2 * b + 1] > 1;
  EXPECT_TRUE(split);

  Case other = makeCase(spec, *first, {90, 4000}, 32);
  for (int repeat = 0; repeat < 3; ++repeat) {
    ASSERT_EQ(run(*first, other), ""); // a different run in between
    ASSERT_EQ(run(repeat % 2 ? *second : *first, c), "");
    expectIdentical(reference, results(c));
  }
}

//===----------------------------------------------------------------------===//
// Hostile configurations and module text
//===----------------------------------------------------------------------===//

struct BadConfig {
  const char *name;
  std::function<void(PaDecodeConfig &)> breakIt;
  const char *message;
};

TEST(HostileConfigs, AreRefusedWithTheirProblem) {
  constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
  const BadConfig configs[] = {
      {"no query heads", [](PaDecodeConfig &c) { c.numQueryHeads = 0; },
       "number of query heads must be >= 1, got 0"},
      {"2^40 query heads",
       [](PaDecodeConfig &c) { c.numQueryHeads = int64_t(1) << 40; },
       "number of query heads must be at most 2^31-1"},
      {"negative head dim", [](PaDecodeConfig &c) { c.headDim = -64; },
       "head dim must be >= 1"},
      {"huge head dim", [](PaDecodeConfig &c) { c.headDim = kI64Max; },
       "head dim must be at most 2^31-1"},
      {"odd head dim", [](PaDecodeConfig &c) { c.headDim = 72; },
       "head dim 72 is not supported"},
      {"page size 48", [](PaDecodeConfig &c) { c.pageSize = 48; },
       "page size must be 16, 64 or 128, got 48"},
      {"huge query length",
       [](PaDecodeConfig &c) { c.queryLength = kI64Max; },
       "query length must be at most 2^31-1"},
      {"group", [](PaDecodeConfig &c) { c.numKVHeads = 3; },
       "must be a multiple of KV heads (3)"},
      {"kv type enum", [](PaDecodeConfig &c) { c.kvType = 9; },
       "PaDecodeConfig.kvType is not one of its enumerators"},
      {"scale enum", [](PaDecodeConfig &c) { c.scaleMode = -2; },
       "PaDecodeConfig.scaleMode is not one of its enumerators"},
      {"4-D keys", [](PaDecodeConfig &c) { c.keyLayout = PA_KEY_UNPACKED; },
       "non-packed 4-D key cache"},
      {"fp8 compute, bf16 cache",
       [](PaDecodeConfig &c) {
         c.kvType = PA_KV_BF16;
         c.computeType = PA_COMPUTE_FP8;
       },
       "fp8 compute needs an fp8 KV cache"},
      {"empty chip", [](PaDecodeConfig &c) { c.chip = ""; },
       "unknown chip ''"},
      {"chip flavour", [](PaDecodeConfig &c) { c.chip = "gfx942"; },
       "chip gfx942 takes f8E4M3FNUZ"},
      {"window -2", [](PaDecodeConfig &c) { c.slidingWindow = -2; },
       "sliding_window must be >= -1"},
      {"window past 2^31-1",
       [](PaDecodeConfig &c) { c.slidingWindow = kI64Max; },
       "sliding_window must be at most 2^31-1"},
      {"negative budget", [](PaDecodeConfig &c) { c.budget = -5; },
       "budget must be >= 1, got -5"},
      {"huge budget", [](PaDecodeConfig &c) { c.budget = kI64Max; },
       "budget must be at most 2^31-1"},
      {"huge max partitions",
       [](PaDecodeConfig &c) { c.maxPartitions = int64_t(1) << 33; },
       "max_partitions must be at most 2^31-1"},
      {"softmax scale beyond f32",
       [](PaDecodeConfig &c) {
         c.hasSoftmaxScale = true;
         c.softmaxScale = -1e300;
       },
       "softmax_scale must be at most"},
  };
  for (const BadConfig &bad : configs) {
    SCOPED_TRACE(bad.name);
    PaDecodeConfig config = paDecodeConfigGetDefault();
    bad.breakIt(config);
    PaString error;
    PaHostProgram program = paHostProgramCreate(&config, &error);
    std::string message = take(error);
    EXPECT_TRUE(paHostProgramIsNull(program));
    EXPECT_NE(message.find(bad.message), std::string::npos) << message;
    PaString module;
    EXPECT_FALSE(paCompileToHostText(&config, &module, &error));
    EXPECT_EQ(module.data, nullptr);
    EXPECT_NE(take(error).find(bad.message), std::string::npos);
  }
  PaString error;
  EXPECT_TRUE(paHostProgramIsNull(paHostProgramCreate(nullptr, &error)));
  EXPECT_EQ(take(error), "no configuration given");
}

TEST(HostileText, VerifyTextReportsInsteadOfCrashing) {
  const std::string deepTuple = [] {
    std::string text = "func.func @f(%a: ";
    for (int i = 0; i < 200; ++i)
      text += "tuple<";
    text += "i32";
    text += std::string(200, '>');
    return text + ") { return }";
  }();
  // The tile-op verifiers once read dim 0 of a 0-D buffer
  // (test/Reliability/tile-ops-0d-invalid.mlir).
  const char *zeroDTile =
      "gpu.module @k { gpu.func @f(%m: memref<16xf32>, %a: memref<f32>) "
      "kernel { pa.tile.init_softmax %m, %m, %a : memref<16xf32>, "
      "memref<16xf32>, memref<f32> gpu.return } }";
  const std::pair<std::string, const char *> texts[] = {
      {"", nullptr},
      {"\xff\xfe\x01garbage", "error"},
      {"func.func @f(%a: memref<99999999999999999999999xf32>) { return }",
       "error"},
      {"func.func @f(%a: memref<-1xf32>) { return }", "error"},
      {"\"pa.plan\"() : () -> ()", "error"},
      {"func.func @f( {", "error"},
      {zeroDTile, "operand #2 must be static 2-D f32 tile"},
      {deepTuple, nullptr},
      // Deep enough to overflow the parser's stack: refused before parsing.
      {"func.func @f() attributes {a = " + std::string(20000, '[') +
           std::string(20000, ']') + "} { return }",
       "input:1:287: error: brackets nested more than 256 levels deep"},
  };
  for (const auto &[text, message] : texts) {
    SCOPED_TRACE(text.substr(0, 80));
    PaString error;
    bool ok = paVerifyText({text.data(), text.size()}, &error);
    std::string diagnostics = take(error);
    if (!message) {
      EXPECT_TRUE(ok) << diagnostics;
      continue;
    }
    EXPECT_FALSE(ok);
    EXPECT_NE(diagnostics.find(message), std::string::npos) << diagnostics;
  }
  PaString error;
  EXPECT_FALSE(paVerifyText({nullptr, 0}, &error));
  EXPECT_EQ(take(error), "no module text given");
}

/// Runs `work` on a thread with a `stackBytes` stack: a serving engine's
/// thread may have far less than the main thread's 8 MiB.
void runOnSmallStack(size_t stackBytes, const std::function<void()> &work) {
  pthread_attr_t attributes;
  ASSERT_EQ(pthread_attr_init(&attributes), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attributes, stackBytes), 0);
  pthread_t thread;
  auto trampoline = [](void *argument) -> void * {
    (*static_cast<const std::function<void()> *>(argument))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attributes, trampoline,
                           const_cast<std::function<void()> *>(&work)),
            0);
  pthread_attr_destroy(&attributes);
  pthread_join(thread, nullptr);
}

std::string nestedModules(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i)
    text += "module {\n";
  text += "func.func @f() {\n  return\n}\n";
  for (int i = 0; i < levels; ++i)
    text += "}\n";
  return text;
}

std::string unaryMinusMap(int signs) {
  std::string text = "#map = affine_map<(d0) -> (";
  for (int i = 0; i < signs; ++i)
    text += "- ";
  return text + "d0)>\nfunc.func @f() {\n  return\n}\n";
}

// Deep text from a caller's small stack: the C API parses, verifies and
// compiles on a thread of its own with a large stack, and refuses text past
// its depth limit. Before, 255 nested modules overflowed a 512 KiB caller
// stack in paVerifyText, and a 7.6 KB affine expression of unary minus signs
// overflowed any stack in paVerifyText and paCompileText (SIGSEGV).
TEST(HostileText, DeepTextOnASmallCallerStack) {
  struct Case {
    std::string text;
    const char *verifyError;  // nullptr: verifies
    const char *compileError; // what paCompileText says
  };
  const Case cases[] = {
      {nestedModules(255), nullptr, "no gpu.module @pa_kernels"},
      {unaryMinusMap(256), nullptr, "no gpu.module @pa_kernels"},
      {unaryMinusMap(3800),
       "input:1:540: error: more than 256 minus signs in a row",
       "deep.mlir:1:540: error: more than 256 minus signs in a row"},
      {nestedModules(5000),
       "input:257:8: error: brackets nested more than 256 levels deep",
       "deep.mlir:257:8: error: brackets nested more than 256 levels deep"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.text.substr(0, 80));
    runOnSmallStack(512 * 1024, [&] {
      PaString error;
      bool ok = paVerifyText({c.text.data(), c.text.size()}, &error);
      std::string diagnostics = take(error);
      EXPECT_EQ(ok, c.verifyError == nullptr) << diagnostics;
      if (c.verifyError)
        EXPECT_NE(diagnostics.find(c.verifyError), std::string::npos)
            << diagnostics;

      PaArtifact artifact =
          paCompileText({c.text.data(), c.text.size()}, "gfx950", nullptr,
                        "deep.mlir", &error);
      diagnostics = take(error);
      EXPECT_TRUE(paArtifactIsNull(artifact));
      paArtifactDestroy(artifact);
      EXPECT_NE(diagnostics.find(c.compileError), std::string::npos)
          << diagnostics;
    });
  }
}

// Module text is exactly `length` bytes: a NUL byte inside it is an error,
// not the end of the text. Before, the C API took a C string and silently
// compiled the text before the NUL (what Python's ctypes passes for a str
// holding "\0").
TEST(HostileText, NulInsideModuleTextIsAnError) {
  const std::string valid = "func.func @f() { return }";
  const std::string text = valid + std::string(1, '\0') + "garbage {";
  PaString error;
  EXPECT_TRUE(paVerifyText({valid.data(), valid.size()}, &error));
  EXPECT_FALSE(paVerifyText({text.data(), text.size()}, &error));
  EXPECT_EQ(take(error),
            "the module text holds a NUL byte at offset 25 (of 35 bytes)");
  PaArtifact artifact = paCompileText({text.data(), text.size()}, "gfx950",
                                      nullptr, nullptr, &error);
  EXPECT_TRUE(paArtifactIsNull(artifact));
  EXPECT_EQ(take(error),
            "the module text holds a NUL byte at offset 25 (of 35 bytes)");
}

} // namespace
