//===- Json.cpp - the JSON reader of the runtime --------------------------===//
#include "Json.h"

#include <cstdlib>

namespace pa::runtime::json {
namespace {

class Parser {
public:
  explicit Parser(const std::string &source) : s(source) {}

  bool parseDocument(Value &value, std::string &error) {
    if (!parseValue(value, 0) || (skipSpace(), pos != s.size())) {
      if (message.empty())
        message = "trailing characters";
      error = "JSON: " + message + " at offset " + std::to_string(pos);
      return false;
    }
    return true;
  }

private:
  static constexpr int kMaxDepth = 64;

  bool fail(const char *what) {
    if (message.empty())
      message = what;
    return false;
  }
  void skipSpace() {
    while (pos < s.size() &&
           (s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\r' || s[pos] == '\t'))
      ++pos;
  }
  bool consume(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }

  bool parseValue(Value &v, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting too deep");
    skipSpace();
    if (pos >= s.size())
      return fail("unexpected end");
    char c = s[pos];
    if (c == '{')
      return parseObject(v, depth);
    if (c == '[')
      return parseArray(v, depth);
    if (c == '"') {
      v.kind = Value::Kind::String;
      return parseString(v.text);
    }
    if (consume("null")) {
      v.kind = Value::Kind::Null;
      return true;
    }
    if (consume("true") || consume("false")) {
      v.kind = Value::Kind::Bool;
      v.boolean = s[pos - 4] == 't';
      return true;
    }
    return parseNumber(v);
  }

  bool parseNumber(Value &v) {
    size_t start = pos;
    if (pos < s.size() && s[pos] == '-')
      ++pos;
    while (pos < s.size() && (isdigit(static_cast<unsigned char>(s[pos])) ||
                              s[pos] == '.' || s[pos] == 'e' || s[pos] == 'E' ||
                              s[pos] == '+' || s[pos] == '-'))
      ++pos;
    if (pos == start)
      return fail("expected a value");
    v.kind = Value::Kind::Number;
    v.text = s.substr(start, pos - start);
    char *end = nullptr;
    v.number = std::strtod(v.text.c_str(), &end);
    if (end != v.text.c_str() + v.text.size())
      return fail("malformed number");
    return true;
  }

  bool parseString(std::string &out) {
    ++pos; // opening quote
    while (pos < s.size() && s[pos] != '"') {
      char c = s[pos++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= s.size())
        return fail("unterminated escape");
      char e = s[pos++];
      switch (e) {
      case '"': case '\\': case '/': out += e; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        if (pos + 4 > s.size())
          return fail("short \\u escape");
        unsigned code = std::strtoul(s.substr(pos, 4).c_str(), nullptr, 16);
        if (code >= 0x80)
          return fail("non-ASCII \\u escape");
        out += static_cast<char>(code);
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

  bool parseArray(Value &v, int depth) {
    v.kind = Value::Kind::Array;
    ++pos;
    skipSpace();
    if (pos < s.size() && s[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      v.items.emplace_back();
      if (!parseValue(v.items.back(), depth + 1))
        return false;
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  bool parseObject(Value &v, int depth) {
    v.kind = Value::Kind::Object;
    ++pos;
    skipSpace();
    if (pos < s.size() && s[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= s.size() || s[pos] != '"')
        return fail("expected a member name");
      std::string key;
      if (!parseString(key))
        return false;
      skipSpace();
      if (pos >= s.size() || s[pos] != ':')
        return fail("expected ':'");
      ++pos;
      v.members.emplace_back(std::move(key), Value());
      if (!parseValue(v.members.back().second, depth + 1))
        return false;
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  const std::string &s;
  size_t pos = 0;
  std::string message;
};

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
  if (kind != Kind::Number ||
      text.find_first_of(".eE") != std::string::npos)
    return std::nullopt;
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (end != text.c_str() + text.size())
    return std::nullopt;
  return static_cast<int64_t>(value);
}

bool parse(const std::string &source, Value &value, std::string &error) {
  value = Value();
  return Parser(source).parseDocument(value, error);
}

} // namespace pa::runtime::json
