//===- DecodeConfig.h - the static configuration of one decode --*- C++ -*-===//
//
// Everything a compiled decode program fixes at compile time (head counts,
// head dim, page size, query length, dtypes, layouts, window, chip, plan
// budget). Batch size, context lengths, page-pool size and block-table width
// stay dynamic, so one program serves any of them.
//
// buildDecodeModule turns a configuration into the module the compiler
// consumes: one public `func.func @pa_decode` whose body is
// pa.plan -> pa.decode -> pa.reduce. Semantics:
// docs/semantics.md.
//
//===----------------------------------------------------------------------===//
#ifndef PA_API_DECODECONFIG_H
#define PA_API_DECODECONFIG_H

#include "pa-c/Decode.h"
#include "pa/API/Tuning.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "pa/IR/PaDialect.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::pa {

/// Element type of the KV cache.
enum class KVCacheType { e4m3fn, e4m3fnuz, bf16 };
/// Element type of the query and the output.
enum class QueryType { bf16, f16 };
/// How the key cache is laid out. Only `packed` ([N, Hkv, D/x, P, x]) is
/// supported; `unpacked` ([N, Hkv, P, D]) exists so that front ends describe
/// what they were given and the dialect verifier rejects it with its own
/// diagnostic instead of each front end guessing.
enum class KeyLayout { packed, unpacked };

/// Name of the function buildDecodeModule creates; the host runtime calls its
/// C interface `_mlir_ciface_pa_decode`.
inline constexpr llvm::StringLiteral kDecodeFunctionName = "pa_decode";

struct DecodeConfig {
  int64_t numQueryHeads = 8; // Hq
  int64_t numKVHeads = 1;    // Hkv
  int64_t headDim = 128;     // D
  int64_t pageSize = 16;     // P
  int64_t queryLength = 1;   // Q, query tokens per sequence
  KVCacheType kvType = KVCacheType::e4m3fn;
  QueryType queryType = QueryType::bf16;
  KeyLayout keyLayout = KeyLayout::packed; // packed cacheLayout only
  VLayout vLayout = VLayout::plain;        // packed cacheLayout only
  /// packed: K by keyLayout, V by vLayout; nhd: K and V [N, P, Hkv, D];
  /// hnd: K and V [N, Hkv, P, D].
  CacheLayout cacheLayout = CacheLayout::packed;
  ScaleMode scaleMode = ScaleMode::none;
  int64_t slidingWindow = 0; // 0 and -1: no window
  std::optional<double> softmaxScale; // default D^-0.5
  double logitsSoftCap = 0.0;         // 0: none; else cap * tanh(s / cap)
  bool returnLse = false; // pa.reduce also writes lse [B*Q, Hq] (f32)
  bool hasSinks = false;
  bool hasAlibi = false; // pa.decode takes alibi_slopes [Hq] (f32)
  std::optional<ComputeType> computeType; // default: fp8 for fp8 KV, else bf16
  std::string chip = std::string(kDefaultChip);
  std::optional<int64_t> budget;        // default 2 * compute units
  std::optional<int64_t> maxPartitions; // default compute units

  /// Empty when the configuration can be turned into IR; otherwise what is
  /// wrong. Rules of the dialect itself (Hq % Hkv, supported head dims and
  /// page sizes, windows) are left to the verifier, whose diagnostic
  /// buildDecodeModule returns, so they are stated in one place.
  std::string validate() const;

  /// Elements in one 16-byte vector of the packed layouts (x): 16 for fp8,
  /// 8 for bf16.
  int64_t packWidth() const;
  /// Query rows per KV head R = Q * G.
  int64_t rowsPerKVHead() const;
  /// The budget and partition bound the plan uses: explicit, else the
  /// tuning table's entry for this configuration without batch / length
  /// buckets (tunedPlan), else the chip's defaults; 0 when the chip is
  /// unknown.
  int64_t effectiveBudget() const;
  int64_t effectiveMaxPartitions() const;
  /// The key of this configuration in a tuning table.
  TuningKey tuningKey() const;
  /// The active tuning table's entry for this configuration (for `batch`
  /// sequences of at most `contextLength` tokens, when given), if any.
  std::optional<TunedPlan>
  tunedPlan(std::optional<int64_t> batch = std::nullopt,
            std::optional<int64_t> contextLength = std::nullopt) const;
  /// Work-plan slots for `batch` sequences (the size of work_info and of the
  /// capacity dim of the partial buffers).
  int64_t planCapacity(int64_t batch) const;

  /// A string that is equal for two configurations exactly when they compile
  /// to the same program (a compile-cache key).
  std::string cacheKey() const;
};

/// `config` as the C API's PaDecodeConfig (pa-c/Decode.h), whose enum
/// values are the enums' here. Its `chip` points into `config.chip`: the
/// result lives no longer than `config`.
PaDecodeConfig toCConfig(const DecodeConfig &config);

/// The DecodeConfig of the C API's `c` (a NULL chip: the default). False
/// with `error` naming the field when an enum-typed field is none of its
/// enumerators.
bool fromCConfig(const PaDecodeConfig &c, DecodeConfig &config,
                 std::string &error);

/// Builds the module of `config`: `func.func @pa_decode(query, key_cache,
/// value_cache, block_tables, context_lengths, [k_scale, v_scale], [sinks],
/// [alibi_slopes], work_info, reduce_info, exp_sums, max_logits, tmp_out,
/// output, [lse])` with dynamic dims exactly where the dialect has them, calling pa.plan,
/// pa.decode and pa.reduce. Returns null with `error` set when the
/// configuration is invalid or the module fails the verifier (the verifier's
/// diagnostics are the error text). Loads the dialects it needs into
/// `context`.
OwningOpRef<ModuleOp> buildDecodeModule(MLIRContext &context,
                                        const DecodeConfig &config,
                                        std::string &error);

} // namespace mlir::pa

#endif // PA_API_DECODECONFIG_H
