//===- LargePool.cpp - a case's pages in pools of 2 GiB or more ----------===//
#include "LargePool.h"

#include <algorithm>
#include <cstring>
#include <sys/mman.h>

using namespace pa::numerics;
using mlir::pa::DecodeConfig;
using mlir::pa::HostBuffers;

namespace {
/// The 32-bit loop's bound: a paged buffer of this many bytes or more takes
/// the 64-bit branch.
constexpr int64_t kLargePoolBytes = int64_t(1) << 31;
} // namespace

LargePoolBuffers::LargePoolBuffers(const DecodeConfig &config,
                                   const HostBuffers &buffers,
                                   std::string &error)
    : large(buffers) {
  const int64_t kvBytes =
      config.kvType == mlir::pa::KVCacheType::bf16 ? 2 : 1;
  // One page of K or V is P x Hkv x D elements in every layout; nhd / hnd
  // pages may lie further apart (a combined cache's halves).
  const int64_t pageElements =
      config.pageSize * config.numKVHeads * config.headDim;
  const int64_t pageBytes = pageElements * kvBytes;
  auto strideBytes = [&](int64_t pageStride) {
    return (pageStride ? pageStride : pageElements) * kvBytes;
  };
  const int64_t keyStride = strideBytes(buffers.keyPageStride);
  const int64_t shift = (kLargePoolBytes + keyStride - 1) / keyStride;
  const int64_t pages = buffers.numPages;
  large.numPages = pages + shift;

  large.keyCache =
      pool(buffers.keyCache, pages, pageBytes, keyStride, error);
  large.valueCache = pool(buffers.valueCache, pages, pageBytes,
                          strideBytes(buffers.valuePageStride), error);
  if (config.scaleMode == mlir::pa::ScaleMode::per_token) {
    const int64_t scaleBytes = config.numKVHeads * config.pageSize * 4;
    large.kScale = static_cast<const float *>(
        pool(buffers.kScale, pages, scaleBytes, scaleBytes, error));
    large.vScale = static_cast<const float *>(
        pool(buffers.vScale, pages, scaleBytes, scaleBytes, error));
  }
  // The ids of the case's pages move with them; other entries (past a
  // sequence's pages) stay as they are.
  const size_t entries =
      size_t(buffers.batch) * size_t(buffers.maxPagesPerSequence);
  blockTables.assign(buffers.blockTables, buffers.blockTables + entries);
  for (int32_t &id : blockTables)
    if (id >= 0 && id < pages)
      id = int32_t(id + shift);
  large.blockTables = blockTables.data();
}

LargePoolBuffers::~LargePoolBuffers() {
  for (auto [address, bytes] : mappings)
    munmap(address, bytes);
}

const void *LargePoolBuffers::pool(const void *from, int64_t fromPages,
                                   int64_t pageBytes, int64_t strideBytes,
                                   std::string &error) {
  if (!from || !error.empty())
    return from;
  const int64_t pages = large.numPages;
  // The last page ends with its own bytes, not a whole stride.
  const size_t bytes = size_t((pages - 1) * strideBytes + pageBytes);
  void *address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (address == MAP_FAILED) {
    error = "cannot map a pool of " + std::to_string(bytes) + " bytes";
    return from;
  }
  mappings.emplace_back(address, bytes);
  auto *to = static_cast<uint8_t *>(address);
  const auto *source = static_cast<const uint8_t *>(from);
  const int64_t first = pages - fromPages;
  for (int64_t n = 0; n < fromPages; ++n)
    std::memcpy(to + (first + n) * strideBytes, source + n * strideBytes,
                size_t(pageBytes));
  return address;
}
