//===- Json.h - the JSON reader of the runtime (private) --------*- C++ -*-===//
//
// The runtime reads the compiler's metadata sidecars without LLVM (it must
// build and run with nothing but the C++ standard library), so it carries
// this small reader: objects, arrays, strings (escapes \" \\ \/ \b \f \n \r
// \t; \u only below 0x80), numbers, booleans and null.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_RUNTIME_JSON_H
#define PA_LIB_RUNTIME_JSON_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pa::runtime::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string text; // a string's contents, or a number's source text
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> members;

  /// The member `key` of an object, or null.
  const Value *get(const std::string &key) const;
  /// An integer number (written without fraction or exponent).
  std::optional<int64_t> integer() const;
  const std::string *string() const {
    return kind == Kind::String ? &text : nullptr;
  }
};

/// Parses `source` (one value, surrounded by whitespace only).
bool parse(const std::string &source, Value &value, std::string &error);

} // namespace pa::runtime::json

#endif // PA_LIB_RUNTIME_JSON_H
