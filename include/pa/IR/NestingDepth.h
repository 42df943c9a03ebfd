//===- NestingDepth.h - text too deep for the parser ------------*- C++ -*-===//
//
// MLIR's parser recurses once per nesting level of brackets, so text nested
// a few thousand levels deep overflows the stack (a 16 KB line of `[`
// crashes an ASan build). The entry points that parse untrusted text
// (pa-compile, the C API's paVerifyText, the fuzzer) check this first;
// docs/reliability.md.
//
//===----------------------------------------------------------------------===//
#ifndef PA_IR_NESTINGDEPTH_H
#define PA_IR_NESTINGDEPTH_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::pa {

/// Far deeper than any module a front end writes (about 10 levels), far
/// shallower than what exhausts an 8 MiB stack in any build.
inline constexpr unsigned kMaxNestingDepth = 256;

/// Empty when `text` nests brackets ( [ { < at most kMaxNestingDepth levels
/// deep (outside string literals and comments); otherwise
/// "LINE:COL: error: ..." at the first bracket past the limit.
std::string checkNestingDepth(llvm::StringRef text);

} // namespace mlir::pa

#endif // PA_IR_NESTINGDEPTH_H
