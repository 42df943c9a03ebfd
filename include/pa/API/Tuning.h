//===- Tuning.h - saved plan limits per shape (a tuning table) --*- C++ -*-===//
//
// The spec lets a tuned plan budget, saved for the shape, take precedence
// over the chip's default. A tuning table is a JSON file of such entries
// (docs/tuning.md has the format), written by `bench/pa-tune.sh` from
// timings on the device and read by DecodeConfig (compile, the C API and
// Python). Each entry is keyed by the static configuration (target, cache
// layout, head dim, rows per KV head, page size, KV dtype, window) and,
// optionally, by power-of-two buckets of the batch and of the context
// length; it gives a budget and / or max_partitions and, on NVIDIA, the
// decode kernel's key-ahead, value-stage and value-ahead options.
//
// No MLIR here: the table is plain data, so that any tool can read it.
//
//===----------------------------------------------------------------------===//
#ifndef PA_API_TUNING_H
#define PA_API_TUNING_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::pa {

/// The static configuration an entry applies to.
struct TuningKey {
  std::string target;   // chip: sm_90a, gfx942, gfx950
  std::string layout;   // packed-plain, packed-transposed, nhd, hnd
  int64_t headDim = 0;  // D
  int64_t rows = 0;     // query rows per KV head, Q * (Hq / Hkv)
  int64_t pageSize = 0; // P
  std::string kvType;   // e4m3fn, e4m3fnuz, bf16
  int64_t window = 0;   // sliding window, 0 for none

  bool operator==(const TuningKey &other) const;
  /// "sm_90a packed-transposed D 256 rows 8 P 16 e4m3fn W 0".
  std::string describe() const;
};

/// What an entry sets (each may be absent: the default): the plan limits
/// and, for NVIDIA targets, the decode kernel's pa-to-nvvm options
/// key-ahead and value-stage (0 to 8 blocks), value-ahead (1 to 4),
/// key-ahead-in-registers and key-ahead-bulk (each true only with key-ahead
/// >= 1 in the entry, not both), l2-prefetch and l2-prefetch-min-tiles
/// (only with l2-prefetch true in the entry).
struct TunedPlan {
  std::optional<int64_t> budget, maxPartitions;
  std::optional<int64_t> keyAhead, valueStage, valueAhead, l2PrefetchMinTiles;
  std::optional<bool> keyAheadInRegisters, keyAheadBulk, l2Prefetch;
};

struct TuningEntry {
  TuningKey key;
  /// Present: the entry applies only to batches / context lengths of this
  /// bucket (tuningBucket); absent: to any.
  std::optional<int64_t> batchBucket, contextBucket;
  TunedPlan plan;
};

/// The bucket of a batch size or context length: the smallest power of two
/// >= n (1 for n <= 1). Bucket 8192 holds 4097 ... 8192.
int64_t tuningBucket(int64_t n);

class TuningTable {
public:
  /// Parses and checks a table; on error returns nullopt and sets `error`
  /// to a message naming `source`, the entry and the field.
  static std::optional<TuningTable> parse(llvm::StringRef json,
                                          llvm::StringRef source,
                                          std::string &error);

  /// The entry for `key` that applies to `batch` and `contextLength` (when
  /// known): an entry with a bucket applies only when the value is given
  /// and falls in it. Of several, the one with the most buckets; then the
  /// first in the file. Nullopt: none, the defaults apply.
  std::optional<TunedPlan> lookup(const TuningKey &key,
                                  std::optional<int64_t> batch = std::nullopt,
                                  std::optional<int64_t> contextLength =
                                      std::nullopt) const;

  const std::vector<TuningEntry> &entries() const { return table; }

private:
  std::vector<TuningEntry> table;
};

/// Name of the environment variable that names the table file to use in
/// place of the built-in one (tuning/plans.json of the source tree, compiled
/// in); set to an empty string, no table.
inline constexpr const char *kTuningTableVariable = "PA_MLIR_TUNING_TABLE";

/// The table compile uses: the file PA_MLIR_TUNING_TABLE names, else the
/// built-in one; read once per process. Null with `error` set when that file
/// cannot be read or is not a valid table (DecodeConfig::validate reports
/// it); null without an error when the variable is set to "".
const TuningTable *activeTuningTable(std::string &error);

} // namespace mlir::pa

#endif // PA_API_TUNING_H
