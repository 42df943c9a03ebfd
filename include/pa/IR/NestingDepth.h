//===- NestingDepth.h - text too deep for the parser ------------*- C++ -*-===//
//
// MLIR's parser, verifier, passes and printer recurse: once per nesting
// level of brackets and regions, once per prefix minus of an affine
// expression, once per term of a long expression. Two defences, used by
// every entry point that takes module text (pa-opt, pa-compile, the C++ and
// C APIs and so Python, the fuzzer); docs/reliability.md:
//   - the work runs on a thread of its own with a large stack
//     (runOnCompilerStack), so neither the text's shape nor the caller's
//     stack (a serving engine's 512 KiB thread) decides whether it fits;
//   - text nested past a limit far above any real module is refused with a
//     diagnostic before parsing (checkNestingDepth), so that no input can
//     exhaust even that stack.
//
//===----------------------------------------------------------------------===//
#ifndef PA_IR_NESTINGDEPTH_H
#define PA_IR_NESTINGDEPTH_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>

namespace mlir::pa {

/// Far deeper than any module a front end writes (about 10 levels), far
/// shallower than what exhausts kCompilerStackBytes in any build.
inline constexpr unsigned kMaxNestingDepth = 256;

/// Empty when `text` nests brackets ( [ { < at most kMaxNestingDepth levels
/// deep and has at most kMaxNestingDepth minus signs in a row (`- - - d0`,
/// each a level of the affine parser), outside string literals and
/// comments; otherwise "LINE:COL: error: ..." where the limit is passed.
std::string checkNestingDepth(llvm::StringRef text);

/// Stack of the thread that runOnCompilerStack starts: about a thousand
/// times what a front end's module needs. Reserved address space; only the
/// pages used are memory.
inline constexpr size_t kCompilerStackBytes = size_t(1) << 30;

/// Runs `work` to completion on a new thread with a kCompilerStackBytes
/// stack and returns true; false (`work` not run) when no such thread could
/// be started. `work` must not throw.
bool runOnCompilerStack(llvm::function_ref<void()> work);

/// The message for a false runOnCompilerStack.
std::string compilerStackError();

} // namespace mlir::pa

#endif // PA_IR_NESTINGDEPTH_H
