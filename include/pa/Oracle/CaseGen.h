//===- CaseGen.h - Deterministic random decode cases ------------*- C++ -*-===//
//
// A CaseConfig (shape, dtypes, layout, features, seeds) expands into a
// DecodeCase bit-identically on any machine: the generator uses
// std::mt19937_64 (whose output the standard fixes) and explicit formulas for
// every distribution, and the library is built without FMA contraction.
// toJson/fromJson carry the description, not the data, between processes.
//
// The case is hostile to kernels that read what they must not: page ids are a
// random permutation of a pool larger than needed; unused pages, the unwritten
// tail of every last page, per-token scales of those slots, and block-table
// entries past a sequence's pages hold garbage (NaN/inf patterns and random
// bits) drawn from a separate stream seeded by garbageSeed, so changing it
// changes only bytes that must not matter.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_CASEGEN_H
#define PA_ORACLE_CASEGEN_H

#include "pa/Oracle/DecodeCase.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pa::oracle {

enum class ValueDistribution {
  Uniform, // uniform(-0.5, 0.5)
  Normal,  // mean 0, variance 1 (Irwin-Hall sum of 12 uniforms, |x| < 6)
};
const char *distributionName(ValueDistribution distribution);
bool parseDistribution(const std::string &name, ValueDistribution &distribution);

// One non-finite value placed where it takes part in the function (spec,
// "Non-finite inputs"): the rows it reaches are NaN in the reference and
// must be NaN on every target. A scale or cache value goes to a token that
// some query row sees (a V-side one: that every row of the sequence sees,
// except ValueNaNPartlySeen), of a random sequence holding one; a query
// value to a random element of a random query row. The softmax-scale
// families place nothing: the shape's softmax_scale must already be that
// value (it is a compile-time attribute of the program).
enum class NonFiniteInput {
  None,
  KeyScale,        // NaN k_scale (per tensor, or the token's per-token one)
  ValueScale,      // NaN v_scale (likewise)
  QueryNaN,        // NaN query element
  QueryInfinity,   // +-inf query element
  QueryF16Overflow, // a value past f16's range rounded to f16 (+-inf)
  KeyNaN,          // NaN bit pattern of the kv dtype in a K element
  ValueNaN,        // NaN bit pattern of the kv dtype in a V element
  KeyScaleInfinity,   // +-inf k_scale (per tensor or per token)
  ValueScaleInfinity, // +-inf v_scale (likewise)
  KeyInfinity,        // +-inf K element (a kv dtype with infinities: bf16)
  ValueInfinity,      // +-inf V element (likewise)
  SoftmaxScaleNaN,      // softmax_scale = NaN (set in the shape)
  SoftmaxScaleInfinity, // softmax_scale = +-inf (set in the shape)
  // NaN V element of a token that some rows of its row group see and others
  // do not (the last token, which MTP position 0 does not see; behind a
  // window, the first token of position 0's window where the last position
  // does not see it): only the rows that see it are NaN. Needs
  // query_len > 1.
  ValueNaNPartlySeen,
  // NaN per-token v_scale of that token (every V value of it): only the rows
  // that see it are NaN, as a whole. Needs query_len > 1 and per-token
  // scales.
  ValueScaleNaNPartlySeen,
};
const char *nonFiniteInputName(NonFiniteInput input);
bool parseNonFiniteInput(const std::string &name, NonFiniteInput &input);

// The shape of the case plus how to fill its data.
struct CaseConfig : DecodeShape {
  bool sinks = false;
  // With sinks: explicit [Hq] logits (may be +-inf); empty: random ones.
  std::vector<double> sinkValues;
  // Explicit [B] context lengths; empty: random in [min, max].
  std::vector<int32_t> contextLengths;
  int64_t minContextLength = 0;
  int64_t maxContextLength = 1024;
  int64_t poolPages = 0;         // 0: the pages needed plus spare ones
  int64_t spareTableColumns = 1; // block-table columns past the longest sequence
  ValueDistribution distribution = ValueDistribution::Uniform;
  // Also overwrite written tokens that no query row sees (left of every
  // window) with garbage: a kernel must not let them leak either.
  bool poisonInvisible = false;
  NonFiniteInput nonFinite = NonFiniteInput::None;
  uint64_t seed = 0;
  uint64_t garbageSeed = 0;
};

bool generateCase(const CaseConfig &config, DecodeCase &decodeCase,
                  std::string &error);

// One JSON object with every CaseConfig field (snake_case keys). Infinite
// sink values are written as Infinity / -Infinity, as Python's json does.
std::string toJson(const CaseConfig &config);
// Missing keys keep CaseConfig's defaults; unknown keys are an error.
bool fromJson(const std::string &text, CaseConfig &config, std::string &error);

} // namespace pa::oracle

#endif // PA_ORACLE_CASEGEN_H
