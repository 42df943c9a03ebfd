//===- DecodeCase.cpp - Cache layouts, dequantization, validation ---------===//
#include "pa/Oracle/DecodeCase.h"

#include "EnumNames.h"

#include <cmath>

namespace pa::oracle {

const char *vLayoutName(VLayout layout) {
  return layout == VLayout::Plain ? "plain" : "transposed";
}

bool parseVLayout(const std::string &name, VLayout &layout) {
  return parseEnumName(name, {VLayout::Plain, VLayout::Transposed},
                       vLayoutName, layout);
}

const char *cacheLayoutName(CacheLayout layout) {
  switch (layout) {
  case CacheLayout::Packed:
    return "packed";
  case CacheLayout::Nhd:
    return "nhd";
  case CacheLayout::Hnd:
    return "hnd";
  }
  return "?";
}

bool parseCacheLayout(const std::string &name, CacheLayout &layout) {
  return parseEnumName(name,
                       {CacheLayout::Packed, CacheLayout::Nhd, CacheLayout::Hnd},
                       cacheLayoutName, layout);
}

const char *scaleModeName(ScaleMode mode) {
  switch (mode) {
  case ScaleMode::None:
    return "none";
  case ScaleMode::PerTensor:
    return "per_tensor";
  case ScaleMode::PerToken:
    return "per_token";
  }
  return "?";
}

bool parseScaleMode(const std::string &name, ScaleMode &mode) {
  return parseEnumName(
      name, {ScaleMode::None, ScaleMode::PerTensor, ScaleMode::PerToken},
      scaleModeName, mode);
}

int packWidth(ScalarType kvType) { return 16 / scalarByteSize(kvType); }

int64_t packedKeyIndex(const CacheGeometry &g, int64_t page, int64_t kvHead,
                       int64_t slot, int64_t d) {
  int64_t x = g.packWidth;
  int64_t head = page * g.numKvHeads + kvHead;
  return ((head * (g.headDim / x) + d / x) * g.pageSize + slot) * x + d % x;
}

int64_t valueIndex(const CacheGeometry &g, VLayout layout, int64_t page,
                   int64_t kvHead, int64_t slot, int64_t d) {
  int64_t head = page * g.numKvHeads + kvHead;
  if (layout == VLayout::Plain)
    return (head * g.headDim + d) * g.pageSize + slot;
  int64_t x = g.packWidth;
  return ((head * (g.pageSize / x) + slot / x) * g.headDim + d) * x + slot % x;
}

int64_t unpackedIndex(const CacheGeometry &g, CacheLayout layout, int64_t page,
                      int64_t kvHead, int64_t slot, int64_t d) {
  int64_t row = layout == CacheLayout::Nhd
                    ? (page * g.pageSize + slot) * g.numKvHeads + kvHead
                    : (page * g.numKvHeads + kvHead) * g.pageSize + slot;
  return row * g.headDim + d;
}

int64_t perTokenScaleIndex(const CacheGeometry &g, int64_t page,
                           int64_t kvHead, int64_t slot) {
  return (page * g.numKvHeads + kvHead) * g.pageSize + slot;
}

uint32_t readElementBits(const std::vector<uint8_t> &bytes, int byteSize,
                         int64_t index) {
  uint32_t bits = 0;
  for (int i = byteSize - 1; i >= 0; --i)
    bits = (bits << 8) | bytes[size_t(index * byteSize + i)];
  return bits;
}

void writeElementBits(std::vector<uint8_t> &bytes, int byteSize,
                      int64_t index, uint32_t bits) {
  for (int i = 0; i < byteSize; ++i)
    bytes[size_t(index * byteSize + i)] = uint8_t(bits >> (8 * i));
}

CacheGeometry cacheGeometry(const DecodeCase &c) {
  return {c.numPages, c.numKvHeads, c.headDim, c.pageSize, packWidth(c.kvType)};
}

double effectiveSoftmaxScale(const DecodeCase &c) {
  return c.softmaxScale ? *c.softmaxScale : 1.0 / std::sqrt(double(c.headDim));
}

int64_t groupSize(const DecodeCase &c) {
  return c.numQueryHeads / c.numKvHeads;
}

int64_t rowsPerKvHead(const DecodeCase &c) {
  return c.queryLen * groupSize(c);
}

int64_t queryOutputIndex(const DecodeCase &c, int64_t sequence, int64_t q,
                         int64_t queryHead, int64_t d) {
  return ((sequence * c.queryLen + q) * c.numQueryHeads + queryHead) *
             c.headDim +
         d;
}

TokenLocation locateToken(const DecodeCase &c, int64_t sequence,
                          int64_t token) {
  int64_t page =
      c.blockTables[size_t(sequence * c.maxPagesPerSequence +
                           token / c.pageSize)];
  return {page, token % c.pageSize};
}

int64_t cacheElementIndex(const DecodeCase &c, CacheOperand operand,
                          TokenLocation location, int64_t kvHead, int64_t d) {
  const CacheGeometry g = cacheGeometry(c);
  if (c.cacheLayout != CacheLayout::Packed)
    return unpackedIndex(g, c.cacheLayout, location.page, kvHead,
                         location.slot, d);
  return operand == CacheOperand::Key
             ? packedKeyIndex(g, location.page, kvHead, location.slot, d)
             : valueIndex(g, c.vLayout, location.page, kvHead, location.slot, d);
}

double cacheScale(const DecodeCase &c, CacheOperand operand,
                  TokenLocation location, int64_t kvHead) {
  const std::vector<float> &scales =
      operand == CacheOperand::Key ? c.keyScales : c.valueScales;
  switch (c.scaleMode) {
  case ScaleMode::None:
    return 1.0;
  case ScaleMode::PerTensor:
    return scales[0];
  case ScaleMode::PerToken:
    return scales[size_t(perTokenScaleIndex(cacheGeometry(c), location.page,
                                            kvHead, location.slot))];
  }
  return 1.0;
}

double dequantizedElement(const DecodeCase &c, CacheOperand operand,
                          TokenLocation location, int64_t kvHead, int64_t d) {
  const std::vector<uint8_t> &cache =
      operand == CacheOperand::Key ? c.keyCache : c.valueCache;
  const uint32_t bits =
      readElementBits(cache, scalarByteSize(c.kvType),
                      cacheElementIndex(c, operand, location, kvHead, d));
  return decodeScalar(c.kvType, bits) * cacheScale(c, operand, location, kvHead);
}

int64_t queryElementCount(const DecodeCase &c) {
  return c.batch * c.queryLen * c.numQueryHeads * c.headDim;
}

int64_t scaleElementCount(const DecodeCase &c) {
  switch (c.scaleMode) {
  case ScaleMode::None:
    return 0;
  case ScaleMode::PerTensor:
    return 1;
  case ScaleMode::PerToken:
    return c.numPages * c.numKvHeads * c.pageSize;
  }
  return 0;
}

void roundQueryToDtype(DecodeCase &c) {
  for (float &value : c.query)
    value = float(roundToScalar(c.queryType, value));
}

std::vector<uint16_t> encodeQuery(const DecodeCase &c) {
  std::vector<uint16_t> bits(c.query.size());
  for (size_t i = 0; i < bits.size(); ++i)
    bits[i] = uint16_t(encodeScalar(c.queryType, c.query[i], Overflow::NonFinite));
  return bits;
}

namespace {

bool fail(std::string &error, std::string message) {
  error = std::move(message);
  return false;
}

} // namespace

bool validateShape(const DecodeCase &c, std::string &error) {
  if (c.batch < 1 || c.queryLen < 1 || c.numQueryHeads < 1 ||
      c.numKvHeads < 1 || c.headDim < 1 || c.pageSize < 1 || c.numPages < 0 ||
      c.maxPagesPerSequence < 0)
    return fail(error, "dimensions must be positive");
  if (c.numQueryHeads % c.numKvHeads != 0)
    return fail(error, "numQueryHeads must be a multiple of numKvHeads");
  if (c.kvType == ScalarType::F16)
    return fail(error, "kv dtype must be f8E4M3FN, f8E4M3FNUZ or bf16");
  if (isFp8(c.queryType))
    return fail(error, "query dtype must be bf16 or f16");
  const int64_t x = packWidth(c.kvType);
  if (c.cacheLayout != CacheLayout::Packed) {
    if (c.vLayout != VLayout::Plain)
      return fail(error, "vLayout describes the packed layout only");
  } else if (c.headDim % x != 0)
    return fail(error, "packed K needs headDim % " + std::to_string(x) + " == 0");
  if (c.vLayout == VLayout::Transposed && c.pageSize % x != 0)
    return fail(error,
                "transposed V needs pageSize % " + std::to_string(x) + " == 0");
  if (c.window < -1)
    return fail(error, "window must be >= -1 (0 and -1 mean no window)");
  // A NaN or infinite softmaxScale is allowed: it makes every row that sees
  // a token NaN (spec, "Non-finite inputs").
  if (!std::isfinite(c.logitsSoftCap) || c.logitsSoftCap < 0.0)
    return fail(error, "logitsSoftCap must be 0 (none) or finite and positive");
  return true;
}

bool validateCase(const DecodeCase &c, std::string &error) {
  if (!validateShape(c, error))
    return false;

  const CacheGeometry g = cacheGeometry(c);
  const size_t cacheBytes = size_t(g.elementCount() * scalarByteSize(c.kvType));
  if (c.keyCache.size() != cacheBytes || c.valueCache.size() != cacheBytes)
    return fail(error, "key/value cache must hold N*Hkv*D*P elements");
  if (c.query.size() != size_t(queryElementCount(c)))
    return fail(error, "query must have B*Q*Hq*D elements");
  // NaN and infinities are representable (spec, "Non-finite inputs").
  for (float value : c.query)
    if (!std::isnan(value) &&
        !(double(value) == roundToScalar(c.queryType, value)))
      return fail(error, std::string("query values must be representable "
                                     "in ") +
                             scalarTypeName(c.queryType));
  const size_t scaleCount = size_t(scaleElementCount(c));
  if (c.keyScales.size() != scaleCount || c.valueScales.size() != scaleCount)
    return fail(error, std::string("scales do not match scale mode ") +
                           scaleModeName(c.scaleMode));
  if (!c.sinks.empty() && c.sinks.size() != size_t(c.numQueryHeads))
    return fail(error, "sinks must be empty or have Hq elements");
  if (c.alibiSlopes.size() != (c.alibi ? size_t(c.numQueryHeads) : 0))
    return fail(error, "alibi_slopes must have Hq elements with alibi and "
                       "none without");
  if (c.contextLengths.size() != size_t(c.batch) ||
      c.blockTables.size() != size_t(c.batch * c.maxPagesPerSequence))
    return fail(error, "contextLengths must be [B] and blockTables [B, maxPages]");
  for (int64_t b = 0; b < c.batch; ++b) {
    int64_t length = c.contextLengths[size_t(b)];
    if (length < 0 || length > c.maxPagesPerSequence * c.pageSize)
      return fail(error, "context length of sequence " + std::to_string(b) +
                             " is negative or exceeds its block table row");
    for (int64_t i = 0; i * c.pageSize < length; ++i) {
      int64_t page = c.blockTables[size_t(b * c.maxPagesPerSequence + i)];
      if (page < 0 || page >= c.numPages)
        return fail(error, "sequence " + std::to_string(b) +
                               " uses page id " + std::to_string(page) +
                               " outside the pool");
    }
  }
  return true;
}

} // namespace pa::oracle
