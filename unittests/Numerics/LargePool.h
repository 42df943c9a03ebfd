//===- LargePool.h - a case's pages in pools of 2 GiB or more --*- C++ -*-===//
//
// The AMD decode kernel of a dynamic pool holds two tile loops: 32-bit
// buffer offsets while every paged buffer (K, V, per-token scales) is
// below 2 GiB, 64-bit addresses otherwise. A case's pools are kilobytes, so
// the matrices run the first; `LargePoolBuffers` re-declares them as pools
// of 2 GiB or more, so that the same kernel takes its 64-bit branch: the
// case's pages copied to the end of each pool (K / V byte offsets past
// 2^31), the block-table ids moved with them. The pools are sparse
// anonymous mappings: only the copied pages are backed, the others read as
// zeros, and every byte of the declared extent is owned memory.
//
//===----------------------------------------------------------------------===//
#ifndef PA_UNITTESTS_NUMERICS_LARGEPOOL_H
#define PA_UNITTESTS_NUMERICS_LARGEPOOL_H

#include "pa/API/DecodeConfig.h"
#include "pa/API/HostProgram.h"

#include <cstddef>
#include <string>
#include <vector>

namespace pa::numerics {

class LargePoolBuffers {
public:
  /// `buffers` (a case's, for a program of `config`) with K, V and
  /// per-token scales in pools whose K pool is 2 GiB or more. `error` is
  /// set when a mapping fails (buffers() is then unusable).
  LargePoolBuffers(const mlir::pa::DecodeConfig &config,
                   const mlir::pa::HostBuffers &buffers, std::string &error);
  ~LargePoolBuffers();
  LargePoolBuffers(const LargePoolBuffers &) = delete;
  LargePoolBuffers &operator=(const LargePoolBuffers &) = delete;

  const mlir::pa::HostBuffers &buffers() const { return large; }

private:
  /// A pool of the declared pages of `pageBytes` (at `strideBytes` apart),
  /// the case's `fromPages` pages copied from `from` to its end.
  const void *pool(const void *from, int64_t fromPages, int64_t pageBytes,
                   int64_t strideBytes, std::string &error);

  mlir::pa::HostBuffers large;
  std::vector<int32_t> blockTables;
  std::vector<std::pair<void *, size_t>> mappings;
};

} // namespace pa::numerics

#endif // PA_UNITTESTS_NUMERICS_LARGEPOOL_H
