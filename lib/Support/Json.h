//===- Json.h - the JSON reader and writer helpers of the plain C++ libraries -*- C++ -*-===//
//
// The oracle (case descriptions) and the runtime (the compiler's metadata
// sidecars) read JSON without LLVM: both must build and run with nothing
// but the C++ standard library (libPARuntimeCAPI.so loads where MLIR and
// LLVM are not installed), so they share this small reader instead of
// llvm::json. Private to those libraries (compiled into each, not
// installed).
//
// Reads objects, arrays, strings (escapes \" \\ \/ \b \f \n \r \t; \u only
// below 0x80), numbers (kept as their source text, so 64-bit integers
// round-trip exactly; NaN, Infinity and -Infinity accepted as Python's json
// writes them), booleans and null.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_SUPPORT_JSON_H
#define PA_LIB_SUPPORT_JSON_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pa::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text; // a string's contents, or a number's source text
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> members;

  /// The member `key` of an object, or null.
  const Value *get(const std::string &key) const;
  /// An integer number (written without fraction or exponent) that fits.
  std::optional<int64_t> integer() const;
  const std::string *string() const {
    return kind == Kind::String ? &text : nullptr;
  }
};

/// Parses `source` (one value, surrounded by whitespace only).
bool parse(const std::string &source, Value &value, std::string &error);

/// Number conversions; false if the value is not a number of that type
/// (integers must be written as integers and fit the type).
bool toNumber(const Value &value, int32_t &result);
bool toNumber(const Value &value, int64_t &result);
bool toNumber(const Value &value, uint64_t &result);
bool toNumber(const Value &value, double &result);

/// Shortest text that reads back to the same double; Infinity / NaN as
/// Python's json writes them.
std::string formatDouble(double value);
/// `text` as a JSON string literal (control characters escaped).
std::string quote(const std::string &text);

} // namespace pa::json

#endif // PA_LIB_SUPPORT_JSON_H
