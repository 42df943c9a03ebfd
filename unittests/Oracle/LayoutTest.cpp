//===- LayoutTest.cpp - Cache layout indexing and dequantization ----------===//
//
// The layouts are written here as nested loops in their natural dimension
// order (the spec's shape tables) with a running offset; the library's index
// functions must agree with that enumeration element by element.
//
//===----------------------------------------------------------------------===//
#include "TestSupport.h"

using namespace pa::oracle;
using namespace pa::oracle::test;

namespace {

struct Element {
  int64_t page, head, slot, d;
  bool operator==(const Element &o) const {
    return page == o.page && head == o.head && slot == o.slot && d == o.d;
  }
};

// Which element sits at each offset, enumerating the layout's shape in order.
std::vector<Element> packedKeyOrder(const CacheGeometry &g) { // [N,Hkv,D/x,P,x]
  std::vector<Element> order;
  for (int64_t n = 0; n < g.numPages; ++n)
    for (int64_t h = 0; h < g.numKvHeads; ++h)
      for (int64_t dBlock = 0; dBlock < g.headDim / g.packWidth; ++dBlock)
        for (int64_t p = 0; p < g.pageSize; ++p)
          for (int64_t i = 0; i < g.packWidth; ++i)
            order.push_back({n, h, p, dBlock * g.packWidth + i});
  return order;
}

std::vector<Element> plainValueOrder(const CacheGeometry &g) { // [N,Hkv,D,P]
  std::vector<Element> order;
  for (int64_t n = 0; n < g.numPages; ++n)
    for (int64_t h = 0; h < g.numKvHeads; ++h)
      for (int64_t d = 0; d < g.headDim; ++d)
        for (int64_t p = 0; p < g.pageSize; ++p)
          order.push_back({n, h, p, d});
  return order;
}

std::vector<Element> transposedValueOrder(const CacheGeometry &g) { // [N,Hkv,P/x,D,x]
  std::vector<Element> order;
  for (int64_t n = 0; n < g.numPages; ++n)
    for (int64_t h = 0; h < g.numKvHeads; ++h)
      for (int64_t pBlock = 0; pBlock < g.pageSize / g.packWidth; ++pBlock)
        for (int64_t d = 0; d < g.headDim; ++d)
          for (int64_t i = 0; i < g.packWidth; ++i)
            order.push_back({n, h, pBlock * g.packWidth + i, d});
  return order;
}

std::vector<Element> nhdOrder(const CacheGeometry &g) { // [N,P,Hkv,D]
  std::vector<Element> order;
  for (int64_t n = 0; n < g.numPages; ++n)
    for (int64_t p = 0; p < g.pageSize; ++p)
      for (int64_t h = 0; h < g.numKvHeads; ++h)
        for (int64_t d = 0; d < g.headDim; ++d)
          order.push_back({n, h, p, d});
  return order;
}

std::vector<Element> hndOrder(const CacheGeometry &g) { // [N,Hkv,P,D]
  std::vector<Element> order;
  for (int64_t n = 0; n < g.numPages; ++n)
    for (int64_t h = 0; h < g.numKvHeads; ++h)
      for (int64_t p = 0; p < g.pageSize; ++p)
        for (int64_t d = 0; d < g.headDim; ++d)
          order.push_back({n, h, p, d});
  return order;
}

template <typename IndexFn>
void expectIndexMatchesOrder(const std::vector<Element> &order, IndexFn index) {
  for (size_t offset = 0; offset < order.size(); ++offset) {
    const Element &e = order[offset];
    ASSERT_EQ(index(e), int64_t(offset))
        << "page " << e.page << " head " << e.head << " slot " << e.slot
        << " d " << e.d;
  }
}

// A small case whose K and V hold the value code(token, d) for every written
// token, stored through the natural-order enumeration above.
// Integers in [-15, 15] are exact in every KV type (4 significant bits).
double code(int64_t token, int64_t d) { return double((token * 7 + d) % 31 - 15); }

DecodeCase knownValueCase(ScalarType kvType, VLayout layout) {
  DecodeCase c;
  c.batch = 1;
  c.numQueryHeads = c.numKvHeads = 2;
  c.headDim = 32;
  c.pageSize = 16;
  c.numPages = 4;
  c.maxPagesPerSequence = 3;
  c.kvType = kvType;
  c.vLayout = layout;
  c.scaleMode = ScaleMode::None;
  c.query.assign(size_t(2 * 32), 0.5f);
  c.contextLengths = {40};
  c.blockTables = {2, 0, 3}; // token t lives on page blockTables[t / 16]
  const CacheGeometry g = cacheGeometry(c);
  const int byteSize = scalarByteSize(kvType);
  c.keyCache.assign(size_t(g.elementCount() * byteSize), 0xFF);
  c.valueCache = c.keyCache;
  auto tokenOf = [&](const Element &e) -> int64_t {
    for (int64_t i = 0; i < 3; ++i)
      if (c.blockTables[size_t(i)] == e.page)
        return i * 16 + e.slot;
    return -1; // page 1 is unused
  };
  auto store = [&](std::vector<uint8_t> &cache, const std::vector<Element> &order) {
    for (size_t offset = 0; offset < order.size(); ++offset) {
      int64_t token = tokenOf(order[offset]);
      if (token < 0 || token >= 40)
        continue;
      // Head 1 holds the negated code so that mixing up heads is visible.
      double value = (order[offset].head ? -1 : 1) * code(token, order[offset].d);
      writeElementBits(cache, byteSize, int64_t(offset),
                       encodeScalar(kvType, value, Overflow::NonFinite));
    }
  };
  store(c.keyCache, packedKeyOrder(g));
  store(c.valueCache, layout == VLayout::Plain ? plainValueOrder(g)
                                               : transposedValueOrder(g));
  return c;
}

} // namespace

TEST(Layout, IndexFunctionsMatchNaturalOrder) {
  for (ScalarType kvType : {ScalarType::F8E4M3FN, ScalarType::BF16}) {
    const CacheGeometry g{3, 2, 32, 16, packWidth(kvType)};
    SCOPED_TRACE(scalarTypeName(kvType));
    expectIndexMatchesOrder(packedKeyOrder(g), [&](const Element &e) {
      return packedKeyIndex(g, e.page, e.head, e.slot, e.d);
    });
    expectIndexMatchesOrder(plainValueOrder(g), [&](const Element &e) {
      return valueIndex(g, VLayout::Plain, e.page, e.head, e.slot, e.d);
    });
    expectIndexMatchesOrder(transposedValueOrder(g), [&](const Element &e) {
      return valueIndex(g, VLayout::Transposed, e.page, e.head, e.slot, e.d);
    });
  }
}

TEST(Layout, UnpackedIndexFunctionsMatchNaturalOrder) {
  // Page sizes 1 and 8 (below a packing width) included.
  for (int64_t pageSize : {1, 8, 16}) {
    const CacheGeometry g{3, 2, 32, pageSize, 16};
    SCOPED_TRACE(pageSize);
    expectIndexMatchesOrder(nhdOrder(g), [&](const Element &e) {
      return unpackedIndex(g, CacheLayout::Nhd, e.page, e.head, e.slot, e.d);
    });
    expectIndexMatchesOrder(hndOrder(g), [&](const Element &e) {
      return unpackedIndex(g, CacheLayout::Hnd, e.page, e.head, e.slot, e.d);
    });
  }
}

TEST(Layout, CacheLayoutNamesRoundTrip) {
  for (CacheLayout layout :
       {CacheLayout::Packed, CacheLayout::Nhd, CacheLayout::Hnd}) {
    CacheLayout parsed = CacheLayout::Packed;
    ASSERT_TRUE(parseCacheLayout(cacheLayoutName(layout), parsed));
    EXPECT_EQ(parsed, layout);
  }
  CacheLayout ignored;
  EXPECT_FALSE(parseCacheLayout("nhd ", ignored));
}

TEST(Layout, PackWidthIsSixteenBytes) {
  EXPECT_EQ(packWidth(ScalarType::F8E4M3FN), 16);
  EXPECT_EQ(packWidth(ScalarType::F8E4M3FNUZ), 16);
  EXPECT_EQ(packWidth(ScalarType::BF16), 8);
}

// The spec's prose: packed K keeps x values of one token contiguous; transposed
// V keeps x consecutive tokens of one head element contiguous.
TEST(Layout, SixteenByteVectorsHoldWhatTheSpecSays) {
  const CacheGeometry g{2, 2, 64, 32, 16}; // fp8
  for (int64_t d = 0; d < 16; ++d) {
    EXPECT_EQ(packedKeyIndex(g, 0, 0, 5, d), 5 * 16 + d);
    EXPECT_EQ(valueIndex(g, VLayout::Transposed, 0, 0, d, 3), 3 * 16 + d);
    EXPECT_EQ(valueIndex(g, VLayout::Plain, 0, 0, d, 3), 3 * 32 + d);
  }
  EXPECT_EQ(perTokenScaleIndex(g, 1, 1, 7), (1 * 2 + 1) * 32 + 7);
}

TEST(Layout, ElementsAreLittleEndian) {
  std::vector<uint8_t> bytes(6, 0);
  writeElementBits(bytes, 2, 1, 0x1234);
  EXPECT_EQ(bytes[2], 0x34);
  EXPECT_EQ(bytes[3], 0x12);
  EXPECT_EQ(readElementBits(bytes, 2, 1), 0x1234u);
  writeElementBits(bytes, 1, 5, 0xAB);
  EXPECT_EQ(readElementBits(bytes, 1, 5), 0xABu);
}

TEST(Layout, KnownValuesReadBackThroughBothVLayouts) {
  for (ScalarType kvType :
       {ScalarType::F8E4M3FN, ScalarType::F8E4M3FNUZ, ScalarType::BF16}) {
    for (VLayout layout : {VLayout::Plain, VLayout::Transposed}) {
      SCOPED_TRACE(std::string(scalarTypeName(kvType)) + " " + vLayoutName(layout));
      DecodeCase c = knownValueCase(kvType, layout);
      std::string error;
      ASSERT_TRUE(validateCase(c, error)) << error;
      for (int64_t t = 0; t < 40; ++t) {
        TokenLocation at = locateToken(c, 0, t);
        for (int64_t h = 0; h < 2; ++h) {
          for (int64_t d = 0; d < 32; ++d) {
            double expected = (h ? -1 : 1) * code(t, d);
            ASSERT_EQ(dequantizedElement(c, CacheOperand::Key, at, h, d), expected)
                << "K token " << t << " head " << h << " d " << d;
            ASSERT_EQ(dequantizedElement(c, CacheOperand::Value, at, h, d), expected)
                << "V token " << t << " head " << h << " d " << d;
          }
        }
      }
    }
  }
}

TEST(Layout, ScalesMultiplyPerTensorAndPerToken) {
  DecodeCase c = knownValueCase(ScalarType::F8E4M3FN, VLayout::Plain);
  TokenLocation at = locateToken(c, 0, 17); // page 0, slot 1
  ASSERT_EQ(at.page, 0);
  ASSERT_EQ(at.slot, 1);
  c.scaleMode = ScaleMode::PerTensor;
  c.keyScales = {0.5f};
  c.valueScales = {4.0f};
  EXPECT_EQ(dequantizedElement(c, CacheOperand::Key, at, 1, 3), -0.5 * code(17, 3));
  EXPECT_EQ(dequantizedElement(c, CacheOperand::Value, at, 1, 3), -4.0 * code(17, 3));
  c.scaleMode = ScaleMode::PerToken;
  const CacheGeometry g = cacheGeometry(c);
  c.keyScales.assign(size_t(g.numPages * g.numKvHeads * g.pageSize), 1.0f);
  c.valueScales = c.keyScales;
  c.keyScales[size_t(perTokenScaleIndex(g, 0, 1, 1))] = 0.25f;
  c.valueScales[size_t(perTokenScaleIndex(g, 0, 0, 1))] = 8.0f;
  EXPECT_EQ(dequantizedElement(c, CacheOperand::Key, at, 1, 3), -0.25 * code(17, 3));
  EXPECT_EQ(dequantizedElement(c, CacheOperand::Key, at, 0, 3), code(17, 3));
  EXPECT_EQ(dequantizedElement(c, CacheOperand::Value, at, 0, 3), 8.0 * code(17, 3));
  EXPECT_EQ(dequantizedElement(c, CacheOperand::Value, at, 1, 3), -code(17, 3));
}

// Same seed, different V layout: same values, different bytes, same answer.
TEST(Layout, GeneratedPlainAndTransposedVAgree) {
  CaseConfig config;
  config.batch = 2;
  config.queryLen = 2;
  config.numQueryHeads = 4;
  config.numKvHeads = 2;
  config.headDim = 64;
  config.pageSize = 64; // with P == x (16 fp8) both V layouts coincide
  config.contextLengths = {300, 37};
  config.scaleMode = ScaleMode::PerToken;
  config.seed = 99;
  for (ScalarType kvType : {ScalarType::F8E4M3FNUZ, ScalarType::BF16}) {
    config.kvType = kvType;
    config.vLayout = VLayout::Plain;
    DecodeCase plain = generated(config);
    config.vLayout = VLayout::Transposed;
    DecodeCase transposed = generated(config);
    EXPECT_TRUE(sameBits(plain.keyCache, transposed.keyCache));
    EXPECT_FALSE(sameBits(plain.valueCache, transposed.valueCache));
    EXPECT_TRUE(sameBits(direct(plain), direct(transposed)));
  }
}
