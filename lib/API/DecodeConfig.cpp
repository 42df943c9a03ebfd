//===- DecodeConfig.cpp - static decode configuration ---------------------===//
#include "pa/API/DecodeConfig.h"
#include "pa/API/Compile.h"

#include "pa/IR/PaOps.h"
#include "pa/IR/Chip.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::pa;

std::string DecodeConfig::validate() const {
  std::string message;
  llvm::raw_string_ostream os(message);
  // Sizes become memref dims: a non-positive one cannot even be expressed,
  // and beyond 2^31-1 products of them (rows Q * G, buffer sizes) overflow.
  auto positive = [&](int64_t value, llvm::StringRef name) {
    if (value < 1 && message.empty())
      os << name << " must be >= 1, got " << value;
    else if (value > std::numeric_limits<int32_t>::max() && message.empty())
      os << name << " must be at most 2^31-1, got " << value;
  };
  positive(numQueryHeads, "number of query heads");
  positive(numKVHeads, "number of KV heads");
  positive(headDim, "head dim");
  positive(pageSize, "page size");
  positive(queryLength, "query length");
  if (!message.empty())
    return message;
  if (!lookupChip(chip))
    return "unknown chip '" + chip + "'; known chips: " +
           knownChipNames().str();
  if (budget && *budget < 1)
    return "budget must be >= 1, got " + std::to_string(*budget);
  if (std::string tableError; !activeTuningTable(tableError) &&
                              !tableError.empty())
    return "tuning table: " + tableError;
  if (maxPartitions && *maxPartitions < 1)
    return "max_partitions must be >= 1, got " +
           std::to_string(*maxPartitions);
  if (!std::isfinite(logitsSoftCap) || logitsSoftCap < 0.0)
    return "logits_soft_cap must be 0 (none) or a finite positive number";
  return {};
}

namespace {
/// `value` as an enumerator of `Enum` when it is in [0, count).
template <typename Enum>
bool enumFromInt(int32_t value, int32_t count, Enum &out) {
  if (value < 0 || value >= count)
    return false;
  out = static_cast<Enum>(value);
  return true;
}

/// The C value of an enumerator (the C API's enums have the same values).
template <typename Enum> int32_t cValue(Enum enumerator) {
  return static_cast<int32_t>(enumerator);
}
static_assert(int(KVCacheType::bf16) == PA_KV_BF16 &&
                  int(QueryType::f16) == PA_QUERY_F16 &&
                  int(KeyLayout::unpacked) == PA_KEY_UNPACKED &&
                  int(VLayout::transposed) == PA_V_TRANSPOSED &&
                  int(CacheLayout::nhd) == PA_KV_LAYOUT_NHD &&
                  int(CacheLayout::hnd) == PA_KV_LAYOUT_HND &&
                  int(ScaleMode::per_tensor) == PA_SCALE_PER_TENSOR &&
                  int(ScaleMode::per_token) == PA_SCALE_PER_TOKEN &&
                  int(ComputeType::bf16) == PA_COMPUTE_BF16,
              "pa-c/Decode.h's enum values differ from the C++ enums'");
} // namespace

PaDecodeConfig mlir::pa::toCConfig(const DecodeConfig &config) {
  PaDecodeConfig c{};
  c.numQueryHeads = config.numQueryHeads;
  c.numKVHeads = config.numKVHeads;
  c.headDim = config.headDim;
  c.pageSize = config.pageSize;
  c.queryLength = config.queryLength;
  c.kvType = cValue(config.kvType);
  c.queryType = cValue(config.queryType);
  c.keyLayout = cValue(config.keyLayout);
  c.vLayout = cValue(config.vLayout);
  c.scaleMode = cValue(config.scaleMode);
  c.computeType = config.computeType ? cValue(*config.computeType)
                                     : int32_t(PA_COMPUTE_DEFAULT);
  c.slidingWindow = config.slidingWindow;
  c.hasSoftmaxScale = config.softmaxScale.has_value();
  c.softmaxScale = config.softmaxScale.value_or(0.0);
  c.hasSinks = config.hasSinks;
  c.chip = config.chip.c_str();
  c.budget = config.budget.value_or(0);
  c.maxPartitions = config.maxPartitions.value_or(0);
  c.logitsSoftCap = config.logitsSoftCap;
  c.kvLayout = cValue(config.cacheLayout);
  c.returnLse = config.returnLse;
  c.hasAlibi = config.hasAlibi;
  return c;
}

bool mlir::pa::fromCConfig(const PaDecodeConfig &c, DecodeConfig &config,
                           std::string &error) {
  config.numQueryHeads = c.numQueryHeads;
  config.numKVHeads = c.numKVHeads;
  config.headDim = c.headDim;
  config.pageSize = c.pageSize;
  config.queryLength = c.queryLength;
  struct EnumField {
    const char *name;
    bool ok;
  };
  ComputeType compute{};
  EnumField fields[] = {
      {"kvType", enumFromInt(c.kvType, 3, config.kvType)},
      {"queryType", enumFromInt(c.queryType, 2, config.queryType)},
      {"keyLayout", enumFromInt(c.keyLayout, 2, config.keyLayout)},
      {"vLayout", enumFromInt(c.vLayout, 2, config.vLayout)},
      {"kvLayout", enumFromInt(c.kvLayout, 3, config.cacheLayout)},
      {"scaleMode", enumFromInt(c.scaleMode, 3, config.scaleMode)},
      {"computeType", c.computeType == PA_COMPUTE_DEFAULT ||
                          enumFromInt(c.computeType, 2, compute)},
  };
  for (const EnumField &field : fields) {
    if (!field.ok) {
      error = std::string("PaDecodeConfig.") + field.name +
              " is not one of its enumerators";
      return false;
    }
  }
  if (c.computeType != PA_COMPUTE_DEFAULT)
    config.computeType = compute;
  config.slidingWindow = c.slidingWindow;
  if (c.hasSoftmaxScale)
    config.softmaxScale = c.softmaxScale;
  config.hasSinks = c.hasSinks;
  config.logitsSoftCap = c.logitsSoftCap;
  config.returnLse = c.returnLse;
  config.hasAlibi = c.hasAlibi;
  if (c.chip)
    config.chip = c.chip;
  if (c.budget != 0)
    config.budget = c.budget;
  if (c.maxPartitions != 0)
    config.maxPartitions = c.maxPartitions;
  return true;
}

int64_t DecodeConfig::packWidth() const {
  return kvType == KVCacheType::bf16 ? 8 : 16;
}

int64_t DecodeConfig::rowsPerKVHead() const {
  return numKVHeads > 0 ? queryLength * (numQueryHeads / numKVHeads) : 0;
}

TuningKey DecodeConfig::tuningKey() const {
  TuningKey key;
  key.target = chip;
  switch (cacheLayout) {
  case CacheLayout::packed:
    key.layout = vLayout == VLayout::plain ? "packed-plain" : "packed-transposed";
    break;
  case CacheLayout::nhd:
    key.layout = "nhd";
    break;
  case CacheLayout::hnd:
    key.layout = "hnd";
    break;
  }
  key.headDim = headDim;
  key.rows = rowsPerKVHead();
  key.pageSize = pageSize;
  key.kvType = kvType == KVCacheType::bf16       ? "bf16"
               : kvType == KVCacheType::e4m3fnuz ? "e4m3fnuz"
                                                 : "e4m3fn";
  key.window = slidingWindow > 0 ? slidingWindow : 0;
  return key;
}

std::optional<TunedPlan>
DecodeConfig::tunedPlan(std::optional<int64_t> batch,
                        std::optional<int64_t> contextLength) const {
  std::string error; // validate() reports a table that fails to load
  const TuningTable *table = activeTuningTable(error);
  if (!table)
    return std::nullopt;
  return table->lookup(tuningKey(), batch, contextLength);
}

int64_t DecodeConfig::effectiveBudget() const {
  if (budget)
    return *budget;
  if (std::optional<TunedPlan> tuned = tunedPlan(); tuned && tuned->budget)
    return *tuned->budget;
  std::optional<ChipInfo> info = lookupChip(chip);
  return info ? 2 * info->computeUnits : 0;
}

int64_t DecodeConfig::effectiveMaxPartitions() const {
  if (maxPartitions)
    return *maxPartitions;
  if (std::optional<TunedPlan> tuned = tunedPlan();
      tuned && tuned->maxPartitions)
    return *tuned->maxPartitions;
  std::optional<ChipInfo> info = lookupChip(chip);
  return info ? info->computeUnits : 0;
}

int64_t DecodeConfig::planCapacity(int64_t batch) const {
  return mlir::pa::planCapacity(batch, numKVHeads, effectiveBudget(),
                                effectiveMaxPartitions());
}

std::string DecodeConfig::cacheKey() const {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << numQueryHeads << ';' << numKVHeads << ';' << headDim << ';'
     << pageSize << ';' << queryLength << ';' << int(kvType) << ';'
     << int(queryType) << ';' << int(keyLayout) << ';' << int(vLayout) << ';'
     << int(cacheLayout) << ';'
     << int(scaleMode) << ';' << slidingWindow << ';' << hasSinks << ';'
     << chip << ';' << effectiveBudget() << ';' << effectiveMaxPartitions()
     << ';';
  // The bit pattern, so that two scales print equal only when they are.
  if (softmaxScale)
    os << llvm::format_hex(llvm::bit_cast<uint64_t>(*softmaxScale), 18);
  os << ';';
  os << ';' << (computeType ? int(*computeType) : -1);
  os << ';' << llvm::format_hex(llvm::bit_cast<uint64_t>(logitsSoftCap), 18);
  os << ';' << returnLse << ';' << hasAlibi;
  // The kernel options a tuning table gives compile too.
  WarpOptions warp = nvidiaWarpOptions(withTunedKernelOptions({}, *this));
  os << ';' << warp.keyAheadBlocks << ';' << warp.valueStageBlocks << ';'
     << warp.valueAheadBlocks << ';' << warp.keyAheadInRegisters << ';'
     << warp.keyAheadBulk << ';' << warp.l2Prefetch << ';'
     << warp.l2PrefetchMinTiles;
  return key;
}
