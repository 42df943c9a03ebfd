//===- KernelOptionLimits.h - pa-to-nvvm's option ranges ---*- C++ -*-===//
//
// The ranges pa-to-nvvm accepts for its options counted in blocks or tiles.
// The pass refuses a value outside them, and the tuning table (which links
// no MLIR) refuses an entry outside them with the same bounds. Plain C++:
// no MLIR header.
//
//===----------------------------------------------------------------------===//
#ifndef PA_SUPPORT_KERNELOPTIONLIMITS_H
#define PA_SUPPORT_KERNELOPTIONLIMITS_H

#include <cstdint>

namespace mlir::pa {

struct KernelOptionRange {
  int64_t minimum, maximum;
};

/// key-ahead: K blocks of the next tile loaded ahead.
inline constexpr KernelOptionRange kKeyAheadRange{0, 8};
/// value-stage: V token blocks of a tile staged in shared memory.
inline constexpr KernelOptionRange kValueStageRange{0, 8};
/// value-ahead: V token blocks requested ahead of their use.
inline constexpr KernelOptionRange kValueAheadRange{1, 4};
/// l2-prefetch-min-tiles: the tiles a partition needs before it prefetches.
inline constexpr KernelOptionRange kL2PrefetchMinTilesRange{0, 1 << 20};

} // namespace mlir::pa

#endif // PA_SUPPORT_KERNELOPTIONLIMITS_H
