//===- Json.h - Minimal JSON reader/writer for case descriptions -*- C++ -*-===//
//
// Private to PAOracle. Enough JSON for flat configuration objects: null,
// booleans, numbers (kept as their source text so 64-bit integers round-trip
// exactly), strings without escapes beyond \" \\ \/ \n \t, arrays and objects.
// Infinity, -Infinity and NaN are accepted and written as Python's json does.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_LIB_JSON_H
#define PA_ORACLE_LIB_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pa::oracle::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text; // number token or string contents
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> members;
};

bool parse(const std::string &source, Value &value, std::string &error);

// Number conversions; false if the value is not a number of that type
// (integers must be written as integers and fit the type).
bool toNumber(const Value &value, int32_t &result);
bool toNumber(const Value &value, int64_t &result);
bool toNumber(const Value &value, uint64_t &result);
bool toNumber(const Value &value, double &result);

// Shortest text that reads back to the same double; Infinity/NaN as Python.
std::string formatDouble(double value);
std::string quote(const std::string &text);

} // namespace pa::oracle::json

#endif // PA_ORACLE_LIB_JSON_H
