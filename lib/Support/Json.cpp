//===- Json.cpp - the JSON reader of the plain C++ libraries --------------===//
#include "Json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace pa::json {
namespace {

class Parser {
public:
  explicit Parser(const std::string &source) : s(source) {}

  bool parseDocument(Value &value, std::string &error) {
    if (!parseValue(value, 0) || (skipSpace(), pos != s.size())) {
      error = "JSON error at offset " + std::to_string(pos) +
              (message.empty() ? ": unexpected input" : ": " + message);
      return false;
    }
    return true;
  }

private:
  static constexpr int kMaxDepth = 64;

  void skipSpace() {
    while (pos < s.size() &&
           (s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\t' || s[pos] == '\r'))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  /// Keeps the first (innermost) reason.
  bool fail(const char *what) {
    if (message.empty())
      message = what;
    return false;
  }

  bool parseValue(Value &value, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting too deep");
    skipSpace();
    if (pos >= s.size())
      return fail("unexpected end");
    char c = s[pos];
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
    size_t start = pos;
    bool nonFinite = consumeWord("NaN") || consumeWord("Infinity") ||
                     consumeWord("-Infinity");
    while (!nonFinite && pos < s.size() &&
           std::string("+-0123456789.eE").find(s[pos]) != std::string::npos)
      ++pos;
    if (pos == start)
      return fail("expected a value");
    value.kind = Value::Kind::Number;
    value.text = s.substr(start, pos - start);
    double ignored;
    return toNumber(value, ignored) || fail("malformed number");
  }

  bool parseString(std::string &out) {
    ++pos; // opening quote
    out.clear();
    while (pos < s.size() && s[pos] != '"') {
      char c = s[pos++];
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos >= s.size())
        return fail("unterminated string");
      char e = s[pos++];
      switch (e) {
      case '"': case '\\': case '/': out.push_back(e); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        unsigned code = 0;
        const char *digits = s.data() + pos;
        auto [end, ec] =
            pos + 4 <= s.size()
                ? std::from_chars(digits, digits + 4, code, 16)
                : std::from_chars_result{digits, std::errc::invalid_argument};
        if (ec != std::errc() || end != digits + 4)
          return fail("malformed \\u escape");
        if (code >= 0x80)
          return fail("non-ASCII \\u escape");
        out.push_back(static_cast<char>(code));
        pos += 4;
        break;
      }
      default:
        return fail("unknown escape");
      }
    }
    if (pos >= s.size())
      return fail("unterminated string");
    ++pos; // closing quote
    return true;
  }

  bool parseArray(Value &value, int depth) {
    ++pos;
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
    ++pos;
    value.kind = Value::Kind::Object;
    if (consume('}'))
      return true;
    do {
      skipSpace();
      std::string key;
      if (pos >= s.size() || s[pos] != '"')
        return fail("expected a member name");
      if (!parseString(key))
        return false;
      if (!consume(':'))
        return fail("expected ':'");
      value.members.emplace_back(std::move(key), Value());
      if (!parseValue(value.members.back().second, depth + 1))
        return false;
    } while (consume(','));
    return consume('}') || fail("expected ',' or '}'");
  }

  const std::string &s;
  size_t pos = 0;
  std::string message;
};

template <typename T> bool parseWhole(const std::string &text, T &result) {
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, result);
  return ec == std::errc() && ptr == end;
}

} // namespace

const Value *Value::get(const std::string &key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (const auto &member : members)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

std::optional<int64_t> Value::integer() const {
  int64_t value;
  if (toNumber(*this, value))
    return value;
  return std::nullopt;
}

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
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

} // namespace pa::json
