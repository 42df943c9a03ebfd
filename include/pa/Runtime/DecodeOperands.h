//===- DecodeOperands.h - the operands of a compiled decode -----*- C++ -*-===//
//
// The shapes of the operands of buildDecodeModule's @pa_decode for one run
// (the spec's table), as memref views by operand name, which is what the
// kernels' metadata refers to. Plain C++: the CUDA runner uses it without
// the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef PA_RUNTIME_DECODEOPERANDS_H
#define PA_RUNTIME_DECODEOPERANDS_H

#include "pa/Runtime/KernelManifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pa::runtime {

/// The static shape of a decode program (what its DecodeConfig fixes that
/// the operand shapes depend on).
struct DecodeLayout {
  enum class Scale { None, PerTensor, PerToken };
  int64_t numQueryHeads = 8; // Hq
  int64_t numKVHeads = 1;    // Hkv
  int64_t headDim = 128;     // D
  int64_t pageSize = 16;     // P
  int64_t queryLength = 1;   // Q
  int64_t kvElementBytes = 1; // 1: fp8, 2: bf16
  bool transposedV = false;
  /// K and V packed (transposedV says V's form), or both nhd
  /// [N, P, Hkv, D] or hnd [N, Hkv, P, D].
  enum class Cache { Packed, Nhd, Hnd };
  Cache cache = Cache::Packed;
  Scale scale = Scale::None;
  bool sinks = false;
  bool alibi = false; // the decode takes alibi_slopes [Hq]
  bool lse = false; // the reducer also writes lse [B*Q, Hq]

  /// x: elements in one 16-byte vector of the packed layouts.
  int64_t packWidth() const { return 16 / kvElementBytes; }
  /// R = Q * G.
  int64_t rowsPerKVHead() const {
    return queryLength * (numQueryHeads / numKVHeads);
  }
};

/// The dynamic dims of one run.
struct DecodeDims {
  int64_t batch = 0;               // B
  int64_t numPages = 0;            // N
  int64_t maxPagesPerSequence = 0; // block-table row length
  int64_t capacity = 0;            // plan slots
};

/// One operand: its name, element size and shape (row-major).
struct DecodeOperand {
  std::string name;
  int64_t elementBytes = 0;
  std::vector<int64_t> sizes;
  int64_t bytes() const;
};

/// Empty when the index inputs of a run are safe to run on: every context
/// length C in [0, maxPagesPerSequence * P], and every page id a query row
/// can see - block_tables[b][t / P] for the visible tokens t, i.e. from
/// max(0, C - (Q - 1) - W) with a window W > 0, else from 0 - a page of the
/// pool [0, numPages). Otherwise what is wrong, naming the first bad entry
/// ("context_lengths[1] = 70 is outside [0, max_pages * P] ..."). Entries
/// of the table no row reads may hold anything. Every executor checks host
/// buffers with this before it runs.
std::string checkSequences(int64_t pageSize, int64_t queryLength,
                           int64_t slidingWindow, int64_t batch,
                           int64_t numPages, int64_t maxPagesPerSequence,
                           const int32_t *contextLengths,
                           const int32_t *blockTables);

/// Every operand of a run in @pa_decode's argument order (absent optional
/// ones left out): query, key_cache, value_cache, block_tables,
/// context_lengths, [k_scale, v_scale], [sinks], [alibi_slopes], work_info,
/// reduce_info, exp_sums, max_logits, tmp_out, output, [lse].
std::vector<DecodeOperand> decodeOperands(const DecodeLayout &layout,
                                          const DecodeDims &dims);

} // namespace pa::runtime

#endif // PA_RUNTIME_DECODEOPERANDS_H
