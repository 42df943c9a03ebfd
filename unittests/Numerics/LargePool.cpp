//===- LargePool.cpp - a case's pages in pools of 2 GiB or more ----------===//
#include "LargePool.h"

#include "llvm/ADT/StringRef.h"

#include <cstring>
#include <sys/mman.h>

using namespace pa::numerics;
using mlir::pa::DecodeConfig;
using mlir::pa::DecodeOperand;
using mlir::pa::HostBuffers;

namespace {
/// The 32-bit loop's bound: a paged buffer of this many bytes or more takes
/// the 64-bit branch.
constexpr int64_t kLargePoolBytes = int64_t(1) << 31;

/// Whether operand `name` is paged ([N, ...]): K, V and per-token scales
/// (per-tensor scales are [1]).
bool isPaged(const DecodeOperand &operand, int64_t pages) {
  llvm::StringRef name = operand.name;
  return (name == "key_cache" || name == "value_cache" ||
          name == "k_scale" || name == "v_scale") &&
         operand.sizes.size() > 1 && operand.sizes[0] == pages;
}

/// Points the HostBuffers field of the paged operand `name` at `data`.
void setPagedField(HostBuffers &buffers, llvm::StringRef name,
                   const void *data) {
  if (name == "key_cache")
    buffers.keyCache = data;
  else if (name == "value_cache")
    buffers.valueCache = data;
  else if (name == "k_scale")
    buffers.kScale = static_cast<const float *>(data);
  else if (name == "v_scale")
    buffers.vScale = static_cast<const float *>(data);
}
} // namespace

LargePoolBuffers::LargePoolBuffers(const DecodeConfig &config,
                                   const HostBuffers &buffers,
                                   std::string &error)
    : large(buffers) {
  // Pages and their strides as the operand table lays them out (page
  // strides of nhd / hnd halves of a combined cache included).
  const int64_t pages = buffers.numPages;
  llvm::SmallVector<DecodeOperand, 16> operands =
      mlir::pa::decodeOperands(config, buffers);
  int64_t shift = 0;
  for (const DecodeOperand &operand : operands)
    if (!std::strcmp(operand.name, "key_cache")) {
      const int64_t stride = operand.effectiveStrides()[0] *
                             operand.elementBytes;
      shift = (kLargePoolBytes + stride - 1) / stride;
    }
  large.numPages = pages + shift;
  for (const DecodeOperand &operand : operands) {
    if (!isPaged(operand, pages) || !operand.data)
      continue;
    int64_t pageElements = 1;
    for (int64_t size : llvm::ArrayRef(operand.sizes).drop_front())
      pageElements *= size;
    setPagedField(large, operand.name,
                  pool(operand.data, pages,
                       pageElements * operand.elementBytes,
                       operand.effectiveStrides()[0] * operand.elementBytes,
                       error));
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
  if (!error.empty())
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
