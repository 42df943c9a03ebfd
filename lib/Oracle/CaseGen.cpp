//===- CaseGen.cpp - Deterministic random decode cases --------------------===//
#include "pa/Oracle/CaseGen.h"

#include "EnumNames.h"
#include "Json.h"
#include "pa/Oracle/Visibility.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <type_traits>

namespace pa::oracle {
namespace {

__extension__ typedef unsigned __int128 Uint128;

uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Every draw is an explicit formula over mt19937_64 output, so the sequence of
// values is the same with any standard library.
class Random {
public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  uint64_t bits() { return engine_(); }
  double unit() { return double(engine_() >> 11) * 0x1p-53; } // [0, 1)
  int64_t below(int64_t n) {                                    // [0, n)
    return int64_t((Uint128(engine_()) * uint64_t(n)) >> 64);
  }
  double sample(ValueDistribution distribution) {
    if (distribution == ValueDistribution::Uniform)
      return unit() - 0.5;
    double sum = 0.0;
    for (int i = 0; i < 12; ++i)
      sum += unit();
    return sum - 6.0;
  }

private:
  std::mt19937_64 engine_;
};

// Half exact powers of two (exact dequantization), half arbitrary floats.
float randomScale(Random &random) {
  double scale = std::ldexp(1.0, -1 - int(random.below(7))); // 2^-1 .. 2^-7
  if (random.below(2) != 0)
    scale *= 1.0 + random.unit();
  return float(scale);
}

// Half non-finite patterns of the type (fp8 has only NaNs), half random bits.
uint32_t garbageBits(Random &garbage, ScalarType type) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double specials[] = {nan, -nan, inf, -inf};
  if (garbage.below(2) != 0)
    return encodeScalar(type, specials[garbage.below(4)], Overflow::NonFinite);
  return uint32_t(garbage.bits()) & ((1u << scalarBitWidth(type)) - 1);
}

float garbageScale(Random &garbage) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), 0.0f,
                            3.0e38f};
  if (garbage.below(2) != 0)
    return specials[garbage.below(6)];
  uint32_t bits = uint32_t(garbage.bits());
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

bool fail(std::string &error, std::string message) {
  error = std::move(message);
  return false;
}

bool checkConfig(const CaseConfig &config, std::string &error) {
  if (config.poolPages < 0 || config.spareTableColumns < 0)
    return fail(error, "pool_pages and spare_table_columns must be >= 0");
  if (!config.contextLengths.empty() &&
      config.contextLengths.size() != size_t(config.batch))
    return fail(error, "context_lengths must be empty or have batch entries");
  if (config.contextLengths.empty() &&
      (config.minContextLength < 0 ||
       config.maxContextLength < config.minContextLength ||
       config.maxContextLength > std::numeric_limits<int32_t>::max()))
    return fail(error, "need 0 <= min_context_length <= max_context_length "
                       "< 2^31");
  if (!config.sinkValues.empty() &&
      (!config.sinks || config.sinkValues.size() != size_t(config.numQueryHeads)))
    return fail(error, "sink_values needs sinks on and num_query_heads values");
  return true;
}

} // namespace

const char *distributionName(ValueDistribution distribution) {
  return distribution == ValueDistribution::Uniform ? "uniform" : "normal";
}

bool parseDistribution(const std::string &name,
                       ValueDistribution &distribution) {
  return parseEnumName(name,
                       {ValueDistribution::Uniform, ValueDistribution::Normal},
                       distributionName, distribution);
}

namespace {

struct NonFiniteFamily {
  NonFiniteInput input;
  const char *name;
};

constexpr NonFiniteFamily kNonFiniteFamilies[] = {
    {NonFiniteInput::None, "none"},
    {NonFiniteInput::KeyScale, "key_scale"},
    {NonFiniteInput::ValueScale, "value_scale"},
    {NonFiniteInput::QueryNaN, "query_nan"},
    {NonFiniteInput::QueryInfinity, "query_inf"},
    {NonFiniteInput::QueryF16Overflow, "query_f16_overflow"},
    {NonFiniteInput::KeyNaN, "key_nan"},
    {NonFiniteInput::ValueNaN, "value_nan"},
    {NonFiniteInput::KeyScaleInfinity, "key_scale_inf"},
    {NonFiniteInput::ValueScaleInfinity, "value_scale_inf"},
    {NonFiniteInput::KeyInfinity, "key_inf"},
    {NonFiniteInput::ValueInfinity, "value_inf"},
    {NonFiniteInput::SoftmaxScaleNaN, "softmax_scale_nan"},
    {NonFiniteInput::SoftmaxScaleInfinity, "softmax_scale_inf"},
    {NonFiniteInput::ValueNaNPartlySeen, "value_nan_partly_seen"},
    {NonFiniteInput::ValueScaleNaNPartlySeen, "value_scale_nan_partly_seen"},
};

} // namespace

const char *nonFiniteInputName(NonFiniteInput input) {
  for (const NonFiniteFamily &family : kNonFiniteFamilies)
    if (family.input == input)
      return family.name;
  return "?";
}

bool parseNonFiniteInput(const std::string &name, NonFiniteInput &input) {
  for (const NonFiniteFamily &family : kNonFiniteFamilies)
    if (name == family.name) {
      input = family.input;
      return true;
    }
  return false;
}

namespace {

// Places config.nonFinite (see NonFiniteInput) in a generated case, drawing
// from its own stream so that every other value stays as without it.
bool placeNonFinite(const CaseConfig &config, DecodeCase &c,
                    std::string &error) {
  using Input = NonFiniteInput;
  const Input input = config.nonFinite;
  if (input == Input::None)
    return true;
  Random place(splitMix64(config.seed ^ 0x6E6F6E66696E6974ull));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double sign = place.below(2) ? -1.0 : 1.0;
  const double infinity = sign * std::numeric_limits<double>::infinity();
  switch (input) {
  case Input::SoftmaxScaleNaN:
    if (!c.softmaxScale || !std::isnan(*c.softmaxScale))
      return fail(error, "softmax_scale_nan needs softmax_scale = NaN");
    return true;
  case Input::SoftmaxScaleInfinity:
    if (!c.softmaxScale || !std::isinf(*c.softmaxScale))
      return fail(error, "softmax_scale_inf needs an infinite softmax_scale");
    return true;
  case Input::QueryNaN:
  case Input::QueryInfinity:
  case Input::QueryF16Overflow: {
    if (input == Input::QueryF16Overflow && c.queryType != ScalarType::F16)
      return fail(error, "query_f16_overflow needs an f16 query");
    const double value =
        input == Input::QueryNaN        ? nan
        : input == Input::QueryInfinity ? infinity
                                        // Past f16's largest finite value
                                        // (65504): rounds to infinity.
                                        : roundToScalar(ScalarType::F16,
                                                        sign * 70000.0);
    c.query[size_t(place.below(int64_t(c.query.size())))] = float(value);
    return true;
  }
  default:
    break;
  }
  const bool isKey = input == Input::KeyScale || input == Input::KeyNaN ||
                     input == Input::KeyScaleInfinity ||
                     input == Input::KeyInfinity;
  const bool isScale =
      input == Input::KeyScale || input == Input::ValueScale ||
      input == Input::KeyScaleInfinity || input == Input::ValueScaleInfinity ||
      input == Input::ValueScaleNaNPartlySeen;
  const bool isInfinite =
      input == Input::KeyScaleInfinity || input == Input::ValueScaleInfinity ||
      input == Input::KeyInfinity || input == Input::ValueInfinity;
  const double value = isInfinite ? infinity : nan;
  if (!isScale && isInfinite && isFp8(c.kvType))
    return fail(error, std::string(nonFiniteInputName(input)) +
                           " needs a kv dtype with infinities, got " +
                           scalarTypeName(c.kvType));
  // One token's scale (a per-tensor one every row sees).
  if (input == Input::ValueScaleNaNPartlySeen &&
      c.scaleMode != ScaleMode::PerToken)
    return fail(error, "value_scale_nan_partly_seen needs per-token scales");
  std::vector<float> &scales = isKey ? c.keyScales : c.valueScales;
  if (isScale && c.scaleMode == ScaleMode::None)
    return fail(error, "a non-finite scale needs a scale mode");
  if (isScale && c.scaleMode == ScaleMode::PerTensor) {
    scales[0] = float(value);
    return true;
  }
  // A token some query row sees, of a random sequence that has one. Values
  // go to a token every row of the sequence sees, so that each case tests
  // one thing; ValueNaNPartlySeen to the last token, which position 0 does
  // not see.
  const bool partlySeen = input == Input::ValueNaNPartlySeen ||
                          input == Input::ValueScaleNaNPartlySeen;
  if (partlySeen && c.queryLen < 2)
    return fail(error, std::string(nonFiniteInputName(input)) +
                           " needs query_len > 1");
  auto tokensFor = [&](int64_t b) -> IndexRange {
    const int64_t length = c.contextLengths[size_t(b)];
    if (partlySeen) {
      IndexRange last =
          visibleTokenRange(length, c.queryLen, c.queryLen - 1, c.window);
      IndexRange first = visibleTokenRange(length, c.queryLen, 0, c.window);
      // Behind a window: position 0's first token, which the last position's
      // window has left.
      if (c.window > 0 && !first.empty() && first.begin < last.begin)
        return {first.begin, first.begin + 1};
      if (last.empty())
        return last;
      return {last.end - 1, last.end};
    }
    if (isKey)
      return visibleToAnyRow(length, c.queryLen, c.window);
    return intersect(visibleTokenRange(length, c.queryLen, 0, c.window),
                     visibleTokenRange(length, c.queryLen, c.queryLen - 1,
                                       c.window));
  };
  std::vector<int64_t> candidates;
  for (int64_t b = 0; b < c.batch; ++b)
    if (!tokensFor(b).empty())
      candidates.push_back(b);
  if (candidates.empty())
    return fail(error, "no visible token to place a non-finite value at");
  const int64_t sequence =
      candidates[size_t(place.below(int64_t(candidates.size())))];
  const IndexRange seen = tokensFor(sequence);
  const int64_t token = seen.begin + place.below(seen.end - seen.begin);
  const int64_t kvHead = place.below(c.numKvHeads);
  const TokenLocation at = locateToken(c, sequence, token);
  if (isScale) {
    scales[size_t(perTokenScaleIndex(cacheGeometry(c), at.page, kvHead,
                                     at.slot))] = float(value);
    return true;
  }
  const CacheOperand operand = isKey ? CacheOperand::Key : CacheOperand::Value;
  writeElementBits(isKey ? c.keyCache : c.valueCache,
                   scalarByteSize(c.kvType),
                   cacheElementIndex(c, operand, at, kvHead,
                                     place.below(c.headDim)),
                   encodeScalar(c.kvType, value, Overflow::NonFinite));
  return true;
}

} // namespace

bool generateCase(const CaseConfig &config, DecodeCase &c,
                  std::string &error) {
  if (!checkConfig(config, error))
    return false;
  // Two independent streams: `data` for everything a kernel may read,
  // `garbage` for everything it must not.
  Random data(config.seed);
  Random garbage(splitMix64(config.seed) ^ splitMix64(~config.garbageSeed));

  c = DecodeCase();
  static_cast<DecodeShape &>(c) = config;
  if (!validateShape(c, error))
    return false;

  c.contextLengths = config.contextLengths;
  if (c.contextLengths.empty())
    for (int64_t b = 0; b < c.batch; ++b)
      c.contextLengths.push_back(int32_t(
          config.minContextLength +
          data.below(config.maxContextLength - config.minContextLength + 1)));

  // Pages: a random permutation of the pool, handed out in sequence order.
  std::vector<int64_t> pagesOf(size_t(c.batch));
  int64_t neededPages = 0, longest = 0;
  for (int64_t b = 0; b < c.batch; ++b) {
    if (c.contextLengths[size_t(b)] < 0)
      return fail(error, "context lengths must be non-negative");
    pagesOf[size_t(b)] =
        (c.contextLengths[size_t(b)] + c.pageSize - 1) / c.pageSize;
    neededPages += pagesOf[size_t(b)];
    longest = std::max(longest, pagesOf[size_t(b)]);
  }
  c.numPages = config.poolPages > 0
                   ? config.poolPages
                   : neededPages + std::max<int64_t>(2, neededPages / 4);
  if (c.numPages < neededPages)
    return fail(error, "pool_pages " + std::to_string(c.numPages) +
                           " is smaller than the " +
                           std::to_string(neededPages) + " pages needed");
  std::vector<int32_t> pageIds(size_t(c.numPages));
  std::iota(pageIds.begin(), pageIds.end(), 0);
  for (int64_t i = c.numPages - 1; i > 0; --i)
    std::swap(pageIds[size_t(i)], pageIds[size_t(data.below(i + 1))]);
  c.maxPagesPerSequence = std::max<int64_t>(1, longest + config.spareTableColumns);
  c.blockTables.assign(size_t(c.batch * c.maxPagesPerSequence), 0);
  const int64_t spare = c.numPages - neededPages;
  int64_t nextPage = 0;
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t i = 0; i < c.maxPagesPerSequence; ++i) {
      // Entries past the sequence's pages point at unused (garbage) pages.
      int64_t id = i < pagesOf[size_t(b)] ? pageIds[size_t(nextPage++)]
                   : spare > 0 ? pageIds[size_t(neededPages + garbage.below(spare))]
                               : garbage.below(std::max<int64_t>(c.numPages, 1));
      c.blockTables[size_t(b * c.maxPagesPerSequence + i)] = int32_t(id);
    }
  }

  // Everything starts as garbage; written tokens are overwritten below.
  const int64_t elementCount = cacheGeometry(c).elementCount();
  const int byteSize = scalarByteSize(c.kvType);
  for (std::vector<uint8_t> *cache : {&c.keyCache, &c.valueCache}) {
    cache->resize(size_t(elementCount * byteSize));
    for (int64_t i = 0; i < elementCount; ++i)
      writeElementBits(*cache, byteSize, i, garbageBits(garbage, c.kvType));
  }
  const bool perToken = c.scaleMode == ScaleMode::PerToken;
  for (std::vector<float> *scales : {&c.keyScales, &c.valueScales}) {
    scales->resize(size_t(scaleElementCount(c)));
    for (float &scale : *scales)
      scale = perToken ? garbageScale(garbage) : randomScale(data);
  }
  const CacheGeometry geometry = cacheGeometry(c);
  const CacheOperand operands[] = {CacheOperand::Key, CacheOperand::Value};
  auto cacheOf = [&](CacheOperand operand) -> std::vector<uint8_t> & {
    return operand == CacheOperand::Key ? c.keyCache : c.valueCache;
  };
  auto scalesOf = [&](CacheOperand operand) -> std::vector<float> & {
    return operand == CacheOperand::Key ? c.keyScales : c.valueScales;
  };

  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t t = 0; t < c.contextLengths[size_t(b)]; ++t) {
      const TokenLocation at = locateToken(c, b, t);
      for (int64_t h = 0; h < c.numKvHeads; ++h) {
        const size_t scaleIndex =
            size_t(perTokenScaleIndex(geometry, at.page, h, at.slot));
        if (perToken)
          for (CacheOperand operand : operands)
            scalesOf(operand)[scaleIndex] = randomScale(data);
        // Stored value = target / scale, so dequantized values follow the
        // distribution whatever the scale.
        for (CacheOperand operand : operands) {
          const double scale = cacheScale(c, operand, at, h);
          for (int64_t d = 0; d < c.headDim; ++d)
            writeElementBits(
                cacheOf(operand), byteSize,
                cacheElementIndex(c, operand, at, h, d),
                encodeScalar(c.kvType, data.sample(config.distribution) / scale,
                             Overflow::Saturate));
        }
      }
    }
  }

  // Query: the distribution, with about 1 in 32 values tiny (near 2^-12).
  c.query.resize(size_t(queryElementCount(c)));
  bool allZero = true;
  for (float &value : c.query) {
    double raw = data.sample(config.distribution);
    if (data.below(32) == 0)
      raw = std::ldexp(1.0 + data.unit(), -12) * (raw < 0 ? -1.0 : 1.0);
    value = float(roundToScalar(c.queryType, raw));
    allZero = allZero && value == 0.0f;
  }
  if (allZero)
    c.query[0] = 0.25f;

  if (config.sinks) {
    c.sinks.resize(size_t(c.numQueryHeads));
    for (int64_t i = 0; i < c.numQueryHeads; ++i)
      c.sinks[size_t(i)] = config.sinkValues.empty()
                               ? float(-2.0 + 6.0 * data.unit())
                               : float(config.sinkValues[size_t(i)]);
  }

  if (config.alibi) {
    // Geometric slopes as ALiBi's 2^(-8 (h + 1) / Hq), each scaled by a
    // random factor in [0.5, 1.5) and one in eight negated, so that heads
    // differ and recent tokens do not always win.
    c.alibiSlopes.resize(size_t(c.numQueryHeads));
    for (int64_t h = 0; h < c.numQueryHeads; ++h) {
      double slope = std::exp2(-8.0 * double(h + 1) / double(c.numQueryHeads)) *
                     (0.5 + data.unit());
      c.alibiSlopes[size_t(h)] = float(data.below(8) == 0 ? -slope : slope);
    }
  }

  if (config.poisonInvisible) {
    for (int64_t b = 0; b < c.batch; ++b) {
      const int64_t length = c.contextLengths[size_t(b)];
      const IndexRange seen = visibleToAnyRow(length, c.queryLen, c.window);
      for (int64_t t = 0; t < length; ++t) {
        if (t >= seen.begin && t < seen.end)
          continue;
        const TokenLocation at = locateToken(c, b, t);
        for (int64_t h = 0; h < c.numKvHeads; ++h) {
          for (CacheOperand operand : operands) {
            for (int64_t d = 0; d < c.headDim; ++d)
              writeElementBits(cacheOf(operand), byteSize,
                               cacheElementIndex(c, operand, at, h, d),
                               garbageBits(garbage, c.kvType));
            if (perToken)
              scalesOf(operand)[size_t(perTokenScaleIndex(
                  geometry, at.page, h, at.slot))] = garbageScale(garbage);
          }
        }
      }
    }
  }
  return placeNonFinite(config, c, error) && validateCase(c, error);
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {

const char *enumName(ScalarType value) { return scalarTypeName(value); }
const char *enumName(VLayout value) { return vLayoutName(value); }
const char *enumName(CacheLayout value) { return cacheLayoutName(value); }
const char *enumName(ScaleMode value) { return scaleModeName(value); }
const char *enumName(ValueDistribution value) { return distributionName(value); }
const char *enumName(NonFiniteInput value) { return nonFiniteInputName(value); }
bool parseEnum(const std::string &name, ScalarType &value) {
  return parseScalarType(name, value);
}
bool parseEnum(const std::string &name, VLayout &value) {
  return parseVLayout(name, value);
}
bool parseEnum(const std::string &name, CacheLayout &value) {
  return parseCacheLayout(name, value);
}
bool parseEnum(const std::string &name, ScaleMode &value) {
  return parseScaleMode(name, value);
}
bool parseEnum(const std::string &name, ValueDistribution &value) {
  return parseDistribution(name, value);
}
bool parseEnum(const std::string &name, NonFiniteInput &value) {
  return parseNonFiniteInput(name, value);
}

// The single list of serialized fields; the writer and the reader both visit
// it, so a new field cannot be written without being read back.
template <typename Config, typename Visitor>
void forEachField(Config &config, Visitor &visit) {
  visit("batch", config.batch);
  visit("query_len", config.queryLen);
  visit("num_query_heads", config.numQueryHeads);
  visit("num_kv_heads", config.numKvHeads);
  visit("head_dim", config.headDim);
  visit("page_size", config.pageSize);
  visit("kv_dtype", config.kvType);
  visit("query_dtype", config.queryType);
  visit("v_layout", config.vLayout);
  visit("kv_layout", config.cacheLayout);
  visit("scale_mode", config.scaleMode);
  visit("window", config.window);
  visit("sinks", config.sinks);
  visit("sink_values", config.sinkValues);
  visit("softmax_scale", config.softmaxScale);
  visit("logits_soft_cap", config.logitsSoftCap);
  visit("lse", config.lse);
  visit("alibi", config.alibi);
  visit("context_lengths", config.contextLengths);
  visit("min_context_length", config.minContextLength);
  visit("max_context_length", config.maxContextLength);
  visit("pool_pages", config.poolPages);
  visit("spare_table_columns", config.spareTableColumns);
  visit("distribution", config.distribution);
  visit("poison_invisible", config.poisonInvisible);
  visit("non_finite", config.nonFinite);
  visit("seed", config.seed);
  visit("garbage_seed", config.garbageSeed);
}

struct JsonWriter {
  std::string out = "{";
  void key(const char *name) {
    out += (out.size() == 1 ? "\n  " : ",\n  ") + json::quote(name) + ": ";
  }
  // A scalar: integers never in exponent notation, so they read back exactly.
  template <typename T> static std::string text(const T &value) {
    if constexpr (std::is_enum_v<T>)
      return json::quote(enumName(value));
    else if constexpr (std::is_same_v<T, bool>)
      return value ? "true" : "false";
    else if constexpr (std::is_integral_v<T>)
      return std::to_string(value);
    else
      return json::formatDouble(value);
  }
  template <typename T> void operator()(const char *name, const T &value) {
    key(name);
    out += text(value);
  }
  void operator()(const char *name, const std::optional<double> &value) {
    key(name);
    out += value ? text(*value) : "null";
  }
  template <typename T>
  void operator()(const char *name, const std::vector<T> &values) {
    key(name);
    out += "[";
    for (size_t i = 0; i < values.size(); ++i)
      out += (i ? ", " : "") + text(values[i]);
    out += "]";
  }
};

// Applies one JSON member to the field of the same name.
struct JsonFieldReader {
  const std::string &name;
  const json::Value &value;
  bool matched = false;
  bool ok = true;

  bool is(const char *field) {
    if (name != field)
      return false;
    matched = true;
    return true;
  }
  template <typename T> void operator()(const char *field, T &target) {
    if (!is(field))
      return;
    if constexpr (std::is_enum_v<T>)
      ok = value.kind == json::Value::Kind::String &&
           parseEnum(value.text, target);
    else
      ok = json::toNumber(value, target);
  }
  void operator()(const char *field, bool &target) {
    if (is(field)) {
      ok = value.kind == json::Value::Kind::Bool;
      target = value.boolean;
    }
  }
  void operator()(const char *field, std::optional<double> &target) {
    if (!is(field))
      return;
    double number = 0;
    if (value.kind == json::Value::Kind::Null)
      target.reset();
    else if ((ok = json::toNumber(value, number)))
      target = number;
  }
  template <typename T>
  void operator()(const char *field, std::vector<T> &target) {
    if (!is(field))
      return;
    ok = value.kind == json::Value::Kind::Array;
    target.assign(value.items.size(), T());
    for (size_t i = 0; i < target.size(); ++i)
      ok = ok && json::toNumber(value.items[i], target[i]);
  }
};

} // namespace

std::string toJson(const CaseConfig &config) {
  JsonWriter writer;
  forEachField(config, writer);
  return writer.out + "\n}\n";
}

bool fromJson(const std::string &text, CaseConfig &config, std::string &error) {
  json::Value root;
  if (!json::parse(text, root, error))
    return false;
  if (root.kind != json::Value::Kind::Object)
    return fail(error, "a case description must be a JSON object");
  CaseConfig result;
  for (const auto &[name, value] : root.members) {
    JsonFieldReader reader{name, value};
    forEachField(result, reader);
    if (!reader.matched)
      return fail(error, "unknown case field \"" + name + "\"");
    if (!reader.ok)
      return fail(error, "bad value for case field \"" + name + "\"");
  }
  config = result;
  return true;
}

} // namespace pa::oracle
