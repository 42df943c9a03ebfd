//===- CountOption.h - the count options of pa-cuda-gen and pa-cuda-run --===//
//
// Plain C++ (pa-cuda-run links no LLVM).
//
//===----------------------------------------------------------------------===//
#ifndef PA_TOOLS_PA_CUDA_COUNTOPTION_H
#define PA_TOOLS_PA_CUDA_COUNTOPTION_H

#include <cerrno>
#include <cstdlib>
#include <optional>

namespace pa {

/// A count option's value (--programs, --reps, --budget, ...): a whole
/// number >= 1, or nothing. The caller then refuses the command line: a
/// budget of 0 or "abc" must not compile defaults, nor run zero programs.
inline std::optional<long long> positiveCount(const char *text) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text, &end, 10);
  if (errno || end == text || *end || value < 1)
    return std::nullopt;
  return value;
}

} // namespace pa

#endif // PA_TOOLS_PA_CUDA_COUNTOPTION_H
