//===- DecodeConfig.cpp - static decode configuration ---------------------===//
#include "pa/API/DecodeConfig.h"

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

int64_t DecodeConfig::packWidth() const {
  return kvType == KVCacheType::bf16 ? 8 : 16;
}

llvm::SmallVector<std::pair<llvm::StringRef, llvm::SmallVector<int64_t, 5>>,
                  2>
DecodeConfig::cacheShapes(int64_t n) const {
  const int64_t hkv = numKVHeads, d = headDim, p = pageSize, x = packWidth();
  using Shape = llvm::SmallVector<int64_t, 5>;
  switch (cacheLayout) {
  case CacheLayout::nhd:
    return {{"key_cache", Shape{n, p, hkv, d}},
            {"value_cache", Shape{n, p, hkv, d}}};
  case CacheLayout::hnd:
    return {{"key_cache", Shape{n, hkv, p, d}},
            {"value_cache", Shape{n, hkv, p, d}}};
  case CacheLayout::packed:
    break;
  }
  // An unpacked key is described as given; the verifier rejects it.
  Shape key = keyLayout == KeyLayout::packed ? Shape{n, hkv, d / x, p, x}
                                             : Shape{n, hkv, p, d};
  Shape value = vLayout == VLayout::plain ? Shape{n, hkv, d, p}
                                          : Shape{n, hkv, p / x, d, x};
  return {{"key_cache", key}, {"value_cache", value}};
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
  return key;
}
