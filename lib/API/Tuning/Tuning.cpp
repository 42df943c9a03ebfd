//===- Tuning.cpp - saved plan limits per shape ---------------------------===//
#include "pa/API/Tuning.h"
#include "pa/Support/KernelOptionLimits.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>

using namespace mlir::pa;

namespace {

/// The built-in table: tuning/plans.json, compiled in (CMake).
constexpr const char *kBuiltinTable =
#include "TunedPlans.inc"
    ;

constexpr llvm::StringLiteral kFormat = "pa-mlir-tuned-plans";
constexpr int64_t kVersion = 1;

const llvm::StringSet<> &knownLayouts() {
  static const llvm::StringSet<> layouts = {"packed-plain", "packed-transposed",
                                            "nhd", "hnd"};
  return layouts;
}
const llvm::StringSet<> &knownKVTypes() {
  static const llvm::StringSet<> types = {"e4m3fn", "e4m3fnuz", "bf16"};
  return types;
}

/// Reads one entry; false with `error` set (the field and why).
bool readEntry(const llvm::json::Object &object, TuningEntry &entry,
               std::string &error) {
  static const llvm::StringSet<> fields = {
      "target",         "layout",         "head_dim",
      "rows",           "page_size",      "kv_dtype",
      "window",         "batch_bucket",   "context_bucket",
      "budget",         "max_partitions", "key_ahead",
      "value_stage",    "value_ahead",    "key_ahead_in_registers",
      "key_ahead_bulk", "l2_prefetch",    "l2_prefetch_min_tiles",
      "measured"};
  for (const auto &[name, value] : object)
    if (!fields.contains(name.str())) {
      error = "unknown field '" + name.str() + "'";
      return false;
    }
  auto text = [&](llvm::StringRef name, const llvm::StringSet<> *allowed,
                  std::string &out) {
    std::optional<llvm::StringRef> value = object.getString(name);
    if (!value) {
      error = object.get(name) ? "'" + name.str() + "' must be a string"
                               : "missing field '" + name.str() + "'";
      return false;
    }
    if (value->empty() || (allowed && !allowed->contains(*value))) {
      error = "'" + name.str() + "' has an unknown value '" + value->str() +
              "'";
      return false;
    }
    out = value->str();
    return true;
  };
  // An integer in [minimum, maximum]; absent: `required` decides.
  auto integer = [&](llvm::StringRef name, int64_t minimum, bool required,
                     std::optional<int64_t> &out,
                     int64_t maximum = std::numeric_limits<int32_t>::max()) {
    const llvm::json::Value *value = object.get(name);
    if (!value) {
      if (required)
        error = "missing field '" + name.str() + "'";
      return !required;
    }
    std::optional<int64_t> number = value->getAsInteger();
    if (!number || *number < minimum || *number > maximum) {
      error = "'" + name.str() + "' must be an integer from " +
              std::to_string(minimum) + " to " +
              (maximum == std::numeric_limits<int32_t>::max()
                   ? std::string("2^31-1")
                   : std::to_string(maximum));
      return false;
    }
    out = number;
    return true;
  };
  // pa-to-nvvm's options counted in blocks of a tile or tiles of a
  // partition: read with the others, checked against the target below.
  struct KernelOption {
    const char *name;
    std::optional<int64_t> *value;
    KernelOptionRange range;
  };
  const KernelOption kernelOptions[] = {
      {"key_ahead", &entry.plan.keyAhead, kKeyAheadRange},
      {"value_stage", &entry.plan.valueStage, kValueStageRange},
      {"value_ahead", &entry.plan.valueAhead, kValueAheadRange},
      {"l2_prefetch_min_tiles", &entry.plan.l2PrefetchMinTiles,
       kL2PrefetchMinTilesRange}};
  std::optional<int64_t> headDim, rows, pageSize, window;
  if (!text("target", nullptr, entry.key.target) ||
      !text("layout", &knownLayouts(), entry.key.layout) ||
      !integer("head_dim", 1, true, headDim) ||
      !integer("rows", 1, true, rows) ||
      !integer("page_size", 1, true, pageSize) ||
      !text("kv_dtype", &knownKVTypes(), entry.key.kvType) ||
      !integer("window", 0, true, window) ||
      !integer("batch_bucket", 1, false, entry.batchBucket) ||
      !integer("context_bucket", 1, false, entry.contextBucket) ||
      !integer("budget", 1, false, entry.plan.budget) ||
      !integer("max_partitions", 1, false, entry.plan.maxPartitions))
    return false;
  for (const KernelOption &option : kernelOptions)
    if (!integer(option.name, option.range.minimum, false, *option.value,
                 option.range.maximum))
      return false;
  // Booleans: where key-ahead's chunks go, and the L2 prefetches.
  const std::pair<const char *, std::optional<bool> *> keyAheadPlaces[] = {
      {"key_ahead_in_registers", &entry.plan.keyAheadInRegisters},
      {"key_ahead_bulk", &entry.plan.keyAheadBulk}};
  const std::pair<const char *, std::optional<bool> *> flags[] = {
      keyAheadPlaces[0],
      keyAheadPlaces[1],
      {"l2_prefetch", &entry.plan.l2Prefetch}};
  for (auto [name, flag] : flags)
    if (const llvm::json::Value *value = object.get(name)) {
      *flag = value->getAsBoolean();
      if (!*flag) {
        error = std::string("'") + name + "' must be true or false";
        return false;
      }
    }
  entry.key.headDim = *headDim;
  entry.key.rows = *rows;
  entry.key.pageSize = *pageSize;
  entry.key.window = *window;
  for (auto [name, bucket] : {std::pair{"batch_bucket", entry.batchBucket},
                              std::pair{"context_bucket", entry.contextBucket}})
    if (bucket && !llvm::isPowerOf2_64(uint64_t(*bucket))) {
      error = std::string("'") + name + "' must be a power of two, got " +
              std::to_string(*bucket);
      return false;
    }
  // pa-to-nvvm's options: NVIDIA kernels only.
  auto isNVIDIA = [&](const char *name) {
    if (llvm::StringRef(entry.key.target).starts_with("sm_"))
      return true;
    error = std::string("'") + name + "' is an NVIDIA kernel option; target '" +
            entry.key.target + "' has no such option";
    return false;
  };
  for (const KernelOption &option : kernelOptions)
    if (*option.value && !isNVIDIA(option.name))
      return false;
  for (auto [name, flag] : flags)
    if (*flag && !isNVIDIA(name))
      return false;
  // Without key-ahead blocks the option does nothing: a table that says
  // otherwise was written by mistake.
  for (auto [name, place] : keyAheadPlaces)
    if (place->value_or(false) && entry.plan.keyAhead.value_or(0) < 1) {
      error = std::string("'") + name + "' is true without 'key_ahead' >= 1";
      return false;
    }
  if (entry.plan.l2PrefetchMinTiles && !entry.plan.l2Prefetch.value_or(false)) {
    error = "'l2_prefetch_min_tiles' is given without 'l2_prefetch' true";
    return false;
  }
  if (entry.plan.keyAheadInRegisters.value_or(false) &&
      entry.plan.keyAheadBulk.value_or(false)) {
    error = "'key_ahead_in_registers' and 'key_ahead_bulk' are both true "
            "(key-ahead's chunks go to one place)";
    return false;
  }
  if (!entry.plan.budget && !entry.plan.maxPartitions && !entry.plan.keyAhead &&
      !entry.plan.valueStage && !entry.plan.valueAhead &&
      !entry.plan.keyAheadInRegisters && !entry.plan.keyAheadBulk &&
      !entry.plan.l2Prefetch) {
    error = "sets none of 'budget', 'max_partitions', 'key_ahead', "
            "'value_stage', 'value_ahead', 'key_ahead_in_registers', "
            "'key_ahead_bulk', 'l2_prefetch'";
    return false;
  }
  if (const llvm::json::Value *measured = object.get("measured");
      measured && !measured->getAsString()) {
    error = "'measured' must be a string";
    return false;
  }
  return true;
}

} // namespace

bool TuningKey::operator==(const TuningKey &other) const {
  return target == other.target && layout == other.layout &&
         headDim == other.headDim && rows == other.rows &&
         pageSize == other.pageSize && kvType == other.kvType &&
         window == other.window;
}

std::string TuningKey::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << target << ' ' << layout << " D " << headDim << " rows " << rows
     << " P " << pageSize << ' ' << kvType << " W " << window;
  return text;
}

int64_t mlir::pa::tuningBucket(int64_t n) {
  return n <= 1 ? 1 : int64_t(llvm::PowerOf2Ceil(uint64_t(n)));
}

std::optional<TuningTable> TuningTable::parse(llvm::StringRef json,
                                              llvm::StringRef source,
                                              std::string &error) {
  auto fail = [&](const llvm::Twine &why) -> std::optional<TuningTable> {
    error = (source + ": " + why).str();
    return std::nullopt;
  };
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return fail("not JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *top = parsed->getAsObject();
  if (!top)
    return fail("the table must be a JSON object");
  if (top->getString("format") != kFormat)
    return fail("'format' must be \"" + kFormat + "\"");
  if (top->getInteger("version") != kVersion)
    return fail("'version' must be " + llvm::Twine(kVersion));
  for (const auto &[name, value] : *top)
    if (name != "format" && name != "version" && name != "entries" &&
        name != "comment")
      return fail("unknown field '" + name.str() + "'");
  const llvm::json::Array *entries = top->getArray("entries");
  if (!entries)
    return fail("'entries' must be an array");
  TuningTable table;
  for (size_t i = 0; i < entries->size(); ++i) {
    const llvm::json::Object *object = (*entries)[i].getAsObject();
    TuningEntry entry;
    std::string why;
    if (!object)
      why = "must be an object";
    else
      readEntry(*object, entry, why);
    if (!why.empty())
      return fail("entry " + llvm::Twine(i) + ": " + why);
    for (size_t j = 0; j < table.table.size(); ++j) {
      const TuningEntry &other = table.table[j];
      if (other.key == entry.key && other.batchBucket == entry.batchBucket &&
          other.contextBucket == entry.contextBucket)
        return fail("entry " + llvm::Twine(i) + " (" + entry.key.describe() +
                    ") has the key and buckets of entry " + llvm::Twine(j));
    }
    table.table.push_back(std::move(entry));
  }
  return table;
}

std::optional<TunedPlan>
TuningTable::lookup(const TuningKey &key, std::optional<int64_t> batch,
                    std::optional<int64_t> contextLength) const {
  auto applies = [](std::optional<int64_t> bucket,
                    std::optional<int64_t> value) {
    return !bucket || (value && tuningBucket(*value) == *bucket);
  };
  const TuningEntry *best = nullptr;
  int bestBuckets = -1;
  for (const TuningEntry &entry : table) {
    if (!(entry.key == key) || !applies(entry.batchBucket, batch) ||
        !applies(entry.contextBucket, contextLength))
      continue;
    int buckets = int(entry.batchBucket.has_value()) +
                  int(entry.contextBucket.has_value());
    if (buckets > bestBuckets) {
      best = &entry;
      bestBuckets = buckets;
    }
  }
  if (!best)
    return std::nullopt;
  return best->plan;
}

const TuningTable *mlir::pa::activeTuningTable(std::string &error) {
  static std::once_flag once;
  static std::optional<TuningTable> table;
  static std::string loadError;
  std::call_once(once, [] {
    const char *path = std::getenv(kTuningTableVariable);
    if (path && !*path)
      return; // no table
    if (!path) {
      table = TuningTable::parse(kBuiltinTable, "built-in tuning table",
                                 loadError);
      return;
    }
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
        llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!file) {
      loadError = std::string(kTuningTableVariable) + "=" + path +
                  ": cannot read: " + file.getError().message();
      return;
    }
    table = TuningTable::parse((*file)->getBuffer(), path, loadError);
  });
  error = loadError;
  return table ? &*table : nullptr;
}
