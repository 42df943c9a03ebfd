//===- JsonTest.cpp - the JSON reader of the plain C++ libraries ----------===//
//
// What the oracle's case files and the runtime's metadata sidecars rely on:
// exact 64-bit integers, the escapes, Python's non-finite numbers, and a
// clear error (never a crash) on malformed input.
//
//===----------------------------------------------------------------------===//
#include "Json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace pa;

namespace {

json::Value parseOk(const std::string &text) {
  json::Value value;
  std::string error;
  EXPECT_TRUE(json::parse(text, value, error)) << text << ": " << error;
  return value;
}

std::string parseError(const std::string &text) {
  json::Value value;
  std::string error;
  EXPECT_FALSE(json::parse(text, value, error)) << text;
  return error;
}

TEST(Json, ObjectsArraysAndScalars) {
  json::Value root = parseOk(
      R"( {"name": "pa_decode", "args": [1, -2, 3.5, true, false, null],
           "nested": {"k": []}} )");
  ASSERT_EQ(root.kind, json::Value::Kind::Object);
  ASSERT_NE(root.get("name"), nullptr);
  EXPECT_EQ(*root.get("name")->string(), "pa_decode");
  EXPECT_EQ(root.get("missing"), nullptr);
  const json::Value &args = *root.get("args");
  ASSERT_EQ(args.items.size(), 6u);
  EXPECT_EQ(args.items[0].integer(), 1);
  EXPECT_EQ(args.items[1].integer(), -2);
  EXPECT_EQ(args.items[2].integer(), std::nullopt); // a fraction
  double number = 0;
  EXPECT_TRUE(json::toNumber(args.items[2], number));
  EXPECT_EQ(number, 3.5);
  EXPECT_TRUE(args.items[3].boolean);
  EXPECT_EQ(args.items[4].kind, json::Value::Kind::Bool);
  EXPECT_FALSE(args.items[4].boolean);
  EXPECT_EQ(args.items[5].kind, json::Value::Kind::Null);
  EXPECT_EQ(root.get("nested")->get("k")->kind, json::Value::Kind::Array);
}

TEST(Json, IntegersAreExact) {
  json::Value big = parseOk("[9223372036854775807, 18446744073709551615, "
                            "-9223372036854775808, 9223372036854775808]");
  EXPECT_EQ(big.items[0].integer(), std::numeric_limits<int64_t>::max());
  uint64_t unsignedMax = 0;
  EXPECT_TRUE(json::toNumber(big.items[1], unsignedMax));
  EXPECT_EQ(unsignedMax, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(big.items[2].integer(), std::numeric_limits<int64_t>::min());
  // Out of range for int64_t: no silent saturation.
  EXPECT_EQ(big.items[3].integer(), std::nullopt);
  int32_t narrow = 0;
  EXPECT_FALSE(json::toNumber(big.items[0], narrow));
}

TEST(Json, Escapes) {
  json::Value text =
      parseOk(R"(["a\"b\\c\/d", "\b\f\n\r\t", "\u0041\u007f"])");
  EXPECT_EQ(text.items[0].text, "a\"b\\c/d");
  EXPECT_EQ(text.items[1].text, "\b\f\n\r\t");
  EXPECT_EQ(text.items[2].text, "A\x7f");
  EXPECT_NE(parseError(R"(["\u00e9"])").find("non-ASCII \\u escape"),
            std::string::npos);
  EXPECT_NE(parseError(R"(["\u12"])").find("malformed \\u escape"),
            std::string::npos);
  EXPECT_NE(parseError(R"(["\q"])").find("unknown escape"),
            std::string::npos);
}

TEST(Json, NonFiniteNumbersAsPython) {
  json::Value values = parseOk("[NaN, Infinity, -Infinity]");
  double value = 0;
  ASSERT_TRUE(json::toNumber(values.items[0], value));
  EXPECT_TRUE(std::isnan(value));
  ASSERT_TRUE(json::toNumber(values.items[1], value));
  EXPECT_EQ(value, std::numeric_limits<double>::infinity());
  ASSERT_TRUE(json::toNumber(values.items[2], value));
  EXPECT_EQ(value, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(json::formatDouble(std::nan("")), "NaN");
  EXPECT_EQ(json::formatDouble(-INFINITY), "-Infinity");
}

TEST(Json, WrittenDoublesAndStringsReadBack) {
  for (double d : {0.1, -2.5e-300, 1.0 / 3.0, 6.02214076e23}) {
    json::Value back = parseOk(json::formatDouble(d));
    double read = 0;
    ASSERT_TRUE(json::toNumber(back, read));
    EXPECT_EQ(read, d);
  }
  std::string text = "tab\tquote\"slash\\newline\n";
  EXPECT_EQ(parseOk(json::quote(text)).text, text);
  // Other control characters as \u escapes (raw ones are no JSON).
  std::string control = "a\x01" "b\x1f";
  EXPECT_EQ(json::quote(control), "\"a\\u0001b\\u001f\"");
  EXPECT_EQ(parseOk(json::quote(control)).text, control);
}

TEST(Json, MalformedInputIsAnErrorWithAnOffset) {
  EXPECT_NE(parseError("{} x").find("at offset 3"), std::string::npos);
  EXPECT_NE(parseError(R"({"a" 1})").find("expected ':'"), std::string::npos);
  EXPECT_NE(parseError("{1: 2}").find("expected a member name"),
            std::string::npos);
  EXPECT_NE(parseError("[1, 2").find("expected ',' or ']'"),
            std::string::npos);
  EXPECT_NE(parseError("[1.2.3]").find("malformed number"), std::string::npos);
  EXPECT_NE(parseError(R"(["open)").find("unterminated string"),
            std::string::npos);
  EXPECT_NE(parseError("").find("unexpected end"), std::string::npos);
  EXPECT_NE(parseError(std::string(100, '[')).find("nesting too deep"),
            std::string::npos);
}

} // namespace
