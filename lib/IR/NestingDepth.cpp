//===- NestingDepth.cpp - text too deep for the parser --------------------===//
#include "pa/IR/NestingDepth.h"

#include "llvm/Support/raw_ostream.h"

#include <array>
#include <pthread.h>
#include <signal.h>

using namespace mlir::pa;

std::string mlir::pa::checkNestingDepth(llvm::StringRef text) {
  // One counter per bracket kind, so that a stray closer of one kind (the
  // '>' of '->' or '>=') cannot hide openers of another.
  static constexpr llvm::StringLiteral openers = "([{<", closers = ")]}>";
  std::array<unsigned, 4> open = {0, 0, 0, 0};
  unsigned minusRun = 0; // minus signs in a row, blanks between them
  unsigned line = 1;
  size_t lineStart = 0;
  // "LINE:COL: error: <before> 256 <after> (the parser recurses per level)"
  auto tooDeep = [&](size_t i, llvm::StringRef before, llvm::StringRef after) {
    std::string message;
    llvm::raw_string_ostream(message)
        << line << ":" << (i - lineStart + 1) << ": error: " << before << " "
        << kMaxNestingDepth << " " << after
        << " (the parser recurses per level)";
    return message;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '-') {
      if (++minusRun > kMaxNestingDepth)
        return tooDeep(i, "more than", "minus signs in a row");
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
      minusRun = 0;
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
      if (open[0] + open[1] + open[2] + open[3] > kMaxNestingDepth)
        return tooDeep(i, "brackets nested more than", "levels deep");
    } else if (size_t kind = closers.find(c); kind != llvm::StringRef::npos) {
      if (open[kind] > 0)
        --open[kind];
    }
  }
  return {};
}

namespace {
void *runWork(void *work) {
  // LLVM installs an alternate signal stack of its own (allocated) in the
  // thread that first registers its signal handlers, which may be this
  // one; ASan unmaps the thread's alternate stack when it ends, which must
  // then be the one ASan mapped. Restore the one the thread started with.
  stack_t original;
  bool saved = sigaltstack(nullptr, &original) == 0;
  (*static_cast<llvm::function_ref<void()> *>(work))();
  if (saved)
    sigaltstack(&original, nullptr);
  return nullptr;
}
} // namespace

bool mlir::pa::runOnCompilerStack(llvm::function_ref<void()> work) {
  // pthreads rather than llvm::thread: a thread that cannot be started is
  // an error for the caller here, not a fatal error of the process.
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0)
    return false;
  pthread_t thread;
  bool started =
      pthread_attr_setstacksize(&attributes, kCompilerStackBytes) == 0 &&
      pthread_create(&thread, &attributes, runWork, &work) == 0;
  pthread_attr_destroy(&attributes);
  if (started)
    pthread_join(thread, nullptr);
  return started;
}

std::string mlir::pa::compilerStackError() {
  return "cannot start the compiler's thread (a " +
         std::to_string(kCompilerStackBytes >> 20) + " MiB stack)";
}
