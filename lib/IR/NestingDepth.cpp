//===- NestingDepth.cpp - text too deep for the parser --------------------===//
#include "pa/IR/NestingDepth.h"

#include "llvm/Support/raw_ostream.h"

#include <array>

using namespace mlir::pa;

std::string mlir::pa::checkNestingDepth(llvm::StringRef text) {
  // One counter per bracket kind, so that a stray closer of one kind (the
  // '>' of '->' or '>=') cannot hide openers of another.
  static constexpr llvm::StringLiteral openers = "([{<", closers = ")]}>";
  std::array<unsigned, 4> open = {0, 0, 0, 0};
  unsigned line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '"') {
      // A string literal: skip to its closing quote (backslash escapes).
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && text.substr(i).starts_with("//")) {
      i = std::min(text.find('\n', i), text.size()) - 1;
    } else if (size_t kind = openers.find(c); kind != llvm::StringRef::npos) {
      ++open[kind];
      if (open[0] + open[1] + open[2] + open[3] > kMaxNestingDepth) {
        std::string message;
        llvm::raw_string_ostream(message)
            << line << ":" << (i - lineStart + 1)
            << ": error: brackets nested more than " << kMaxNestingDepth
            << " levels deep (the parser recurses per level)";
        return message;
      }
    } else if (size_t kind = closers.find(c); kind != llvm::StringRef::npos) {
      if (open[kind] > 0)
        --open[kind];
    }
  }
  return {};
}
