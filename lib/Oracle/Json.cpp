//===- Json.cpp - Minimal JSON reader/writer for case descriptions --------===//
#include "Json.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace pa::oracle::json {
namespace {

class Parser {
public:
  explicit Parser(const std::string &source) : s_(source) {}

  bool parseDocument(Value &value, std::string &error) {
    if (!parseValue(value, 0) || (skipSpace(), pos_ != s_.size())) {
      error = "JSON error at offset " + std::to_string(pos_) +
              (message_.empty() ? ": unexpected input" : ": " + message_);
      return false;
    }
    return true;
  }

private:
  static constexpr int kMaxDepth = 64;

  void skipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' ||
                                s_[pos_] == '\t' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(pos_, n, word) != 0)
      return false;
    pos_ += n;
    return true;
  }
  bool fail(const char *message) {
    message_ = message;
    return false;
  }

  bool parseValue(Value &value, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting too deep");
    skipSpace();
    if (pos_ >= s_.size())
      return fail("unexpected end");
    char c = s_[pos_];
    if (c == '{')
      return parseObject(value, depth);
    if (c == '[')
      return parseArray(value, depth);
    if (c == '"') {
      value.kind = Value::Kind::String;
      return parseString(value.text);
    }
    if (consumeWord("null")) {
      value.kind = Value::Kind::Null;
      return true;
    }
    for (bool boolean : {true, false}) {
      if (consumeWord(boolean ? "true" : "false")) {
        value.kind = Value::Kind::Bool;
        value.boolean = boolean;
        return true;
      }
    }
    return parseNumber(value);
  }

  bool parseNumber(Value &value) {
    size_t start = pos_;
    bool nonFinite = consumeWord("NaN") || consumeWord("Infinity") ||
                     consumeWord("-Infinity");
    while (!nonFinite && pos_ < s_.size() &&
           std::string("+-0123456789.eE").find(s_[pos_]) != std::string::npos)
      ++pos_;
    if (pos_ == start)
      return fail("expected a value");
    value.kind = Value::Kind::Number;
    value.text = s_.substr(start, pos_ - start);
    double ignored;
    return toNumber(value, ignored) || fail("malformed number");
  }

  bool parseString(std::string &out) {
    ++pos_; // opening quote
    out.clear();
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\') {
        if (pos_ >= s_.size())
          return fail("unterminated string");
        char e = s_[pos_++];
        if (e == 'n')
          c = '\n';
        else if (e == 't')
          c = '\t';
        else if (e == '"' || e == '\\' || e == '/')
          c = e;
        else
          return fail("unsupported escape");
      }
      out.push_back(c);
    }
    if (pos_ >= s_.size())
      return fail("unterminated string");
    ++pos_;
    return true;
  }

  bool parseArray(Value &value, int depth) {
    ++pos_;
    value.kind = Value::Kind::Array;
    if (consume(']'))
      return true;
    do {
      value.items.emplace_back();
      if (!parseValue(value.items.back(), depth + 1))
        return false;
    } while (consume(','));
    return consume(']') || fail("expected ',' or ']'");
  }

  bool parseObject(Value &value, int depth) {
    ++pos_;
    value.kind = Value::Kind::Object;
    if (consume('}'))
      return true;
    do {
      skipSpace();
      std::string key;
      if (pos_ >= s_.size() || s_[pos_] != '"' || !parseString(key))
        return fail("expected a string key");
      if (!consume(':'))
        return fail("expected ':'");
      value.members.emplace_back(key, Value());
      if (!parseValue(value.members.back().second, depth + 1))
        return false;
    } while (consume(','));
    return consume('}') || fail("expected ',' or '}'");
  }

  const std::string &s_;
  size_t pos_ = 0;
  std::string message_;
};

template <typename T> bool parseWhole(const std::string &text, T &result) {
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, result);
  return ec == std::errc() && ptr == end;
}

} // namespace

bool parse(const std::string &source, Value &value, std::string &error) {
  value = Value();
  return Parser(source).parseDocument(value, error);
}

bool toNumber(const Value &value, int32_t &result) {
  return value.kind == Value::Kind::Number && parseWhole(value.text, result);
}

bool toNumber(const Value &value, int64_t &result) {
  return value.kind == Value::Kind::Number && parseWhole(value.text, result);
}

bool toNumber(const Value &value, uint64_t &result) {
  return value.kind == Value::Kind::Number && parseWhole(value.text, result);
}

bool toNumber(const Value &value, double &result) {
  if (value.kind != Value::Kind::Number)
    return false;
  if (value.text == "NaN")
    result = std::numeric_limits<double>::quiet_NaN();
  else if (value.text == "Infinity" || value.text == "-Infinity")
    result = (value.text[0] == '-' ? -1 : 1) *
             std::numeric_limits<double>::infinity();
  else
    return parseWhole(value.text, result);
  return true;
}

std::string formatDouble(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value < 0 ? "-Infinity" : "Infinity";
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  (void)ec; // 64 bytes always suffice for a double
  return std::string(buffer, ptr);
}

std::string quote(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\t') {
      out += "\\t";
      continue;
    }
    out.push_back(c);
  }
  return out + "\"";
}

} // namespace pa::oracle::json
