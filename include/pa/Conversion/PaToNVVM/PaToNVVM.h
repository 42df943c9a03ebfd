//===- PaToNVVM.h - the patterns of pa-to-nvvm ------------------*- C++ -*-===//
//
// The rewrite patterns pa-to-nvvm applies, for a pass or pipeline of another
// project that lowers pa-mlir's tiled IR to NVIDIA threads (as
// pa/Conversion/PaToMFMA/PaToMFMA.h does for AMD: the chip's facts and the
// options passed in, the pass only calls this and finishes the kernels the
// patterns leave to thread 0).
//
//===----------------------------------------------------------------------===//
#ifndef PA_CONVERSION_PATONVVM_PUBLIC_PATONVVM_H
#define PA_CONVERSION_PATONVVM_PUBLIC_PATONVVM_H

#include "pa/IR/Chip.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::pa {

/// The pa-to-nvvm options that shape the decode kernel.
struct WarpOptions {
  /// fp8 KV times the query / P as split e4m3 products (pa-to-nvvm's
  /// fp8-products=e4m3); otherwise in f16 (the default, f16).
  bool e4m3Products = false;
  /// K blocks (4 16-byte chunks of the head dim per token) of the next tile
  /// each thread copies into shared memory (cp.async) while the current
  /// tile's P V runs, so that qk reads them from there (pa-to-nvvm's
  /// key-ahead; packed caches with pages of 16 tokens or more, whole
  /// blocks of D only); 0: none (the default).
  int64_t keyAheadBlocks = 0;
  /// key-ahead's chunks loaded into registers by pv (plain loads, carried
  /// by the tile loop to the next qk) instead of copied into shared memory
  /// (pa-to-nvvm's key-ahead-in-registers).
  bool keyAheadInRegisters = false;
  /// key-ahead's blocks copied by the bulk-copy engine instead: one
  /// cp.async.bulk per page of the tile and 16-byte chunk of D (P x 16
  /// contiguous bytes of the packed cache), issued by one warp and
  /// completing on an mbarrier qk waits on (pa-to-nvvm's key-ahead-bulk;
  /// not with keyAheadInRegisters).
  bool keyAheadBulk = false;
  /// V token blocks (4 16-byte chunks of tokens per head-dim column) at the
  /// start of each tile copied into shared memory by bulk copies
  /// (cp.async.bulk, one per contiguous piece of a page, completion on an
  /// mbarrier) issued when qk starts, so that they arrive while qk and the
  /// softmax run, and pv reads them from there (pa-to-nvvm's value-stage;
  /// packed caches with pages of at most a tile; capped at the tile's
  /// blocks and at what keeps two workgroups per SM, after key-ahead's
  /// buffer); 0: none (the default).
  int64_t valueStageBlocks = 0;
  /// V token blocks pv requests ahead of the one whose products it issues
  /// (pa-to-nvvm's value-ahead, 1 to 4; 1, the default: two blocks of V
  /// loads in flight). Each more block holds a block's chunks in registers.
  int64_t valueAheadBlocks = 1;
  /// The tile's V pages and the next tile's K pages prefetched into L2
  /// (cp.async.bulk.prefetch.L2, one per page, on lanes of the last warp)
  /// when qk and pv start, so that the loads that follow find them there
  /// (pa-to-nvvm's l2-prefetch; packed caches with at most 16 pages per
  /// tile whose (page, KV head) blocks are contiguous).
  bool l2Prefetch = false;
  /// With l2Prefetch: only partitions whose tile loop runs at least this
  /// many tiles prefetch (pa-to-nvvm's l2-prefetch-min-tiles; a run-time
  /// test: a short partition's prefetches measured slower); 0: every one.
  int64_t l2PrefetchMinTiles = 0;
};

/// Adds pa-to-nvvm's patterns for kernels on `chip` (an NVIDIA chip of
/// pa/IR/Chip.h whose workgroups have 128 threads), with `options`. Each
/// matches a `gpu.func` kernel without a `pa.distribution` and gives it one:
/// - `DecodeKernelToWarps`: a decode kernel (one with `pa.tile` ops) becomes
///   per-thread code on 4 warps with mma.sync (`warps`); one of a
///   configuration the warp lowering does not cover keeps its tile ops and
///   gets `thread0` and `pa.thread0_reason`.
/// - `ReduceKernelToWarps`: the split-K reduce kernel, rows on warps
///   (`warps`).
/// - `ParallelLoopsToThreads`: a kernel whose writes all happen in 1-D
///   `scf.parallel` loops, the loops strided over the threads
///   (`parallel-loops`).
/// - `KernelOnThread0`: any other kernel (`thread0`).
/// Apply them with walkAndApplyPatterns. The `thread0` kernels still hold
/// their workgroup programs: pa-to-nvvm then runs pa-lower-tile-to-loops,
/// pa-workgroup-to-lane0 and pa-expand-float-casts on the module.
void populateDecodeToWarpsPatterns(RewritePatternSet &patterns,
                                   const ChipInfo &chip,
                                   const WarpOptions &options);

} // namespace mlir::pa

#endif // PA_CONVERSION_PATONVVM_PUBLIC_PATONVVM_H
