//===- DecodeOperands.h - the operands of a compiled decode -----*- C++ -*-===//
//
// The operands of buildDecodeModule's @pa_decode (the spec's table): their
// names, element sizes and shapes for a layout and a run's dims, in
// argument order. The one table of them: the compiler's module signature
// (dynamic dims), the API's executors (caller buffers), the buffer checks
// and the CUDA runner (device buffers by operand name, which is what the
// kernels' metadata refers to) read it. Plain C++: the CUDA runner uses it
// without the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef PA_RUNTIME_DECODEOPERANDS_H
#define PA_RUNTIME_DECODEOPERANDS_H

#include "pa-c/Decode.h"
#include "pa/Runtime/KernelManifest.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace pa::runtime {

/// A dim of DecodeDims not known yet (a module's signature): the value of
/// MLIR's ShapedType::kDynamic, and what the shapes then hold there.
inline constexpr int64_t kDynamicSize = std::numeric_limits<int64_t>::min();

/// The dynamic dims of one run (each may be kDynamicSize).
struct DecodeDims {
  int64_t batch = 0;               // B
  int64_t numPages = 0;            // N
  int64_t maxPagesPerSequence = 0; // block-table row length
  int64_t capacity = 0;            // plan slots
};

/// One operand: its name, its shape as the spec writes it ("[N, Hkv, D/x,
/// P, x]", for messages; both string literals), element size, shape
/// (row-major) and whether the decode only reads it.
struct DecodeOperand {
  const char *name = nullptr;
  const char *pattern = nullptr;
  int64_t elementBytes = 0;
  std::vector<int64_t> sizes;
  bool input = true; // false: plan, decode or reduce writes it
  /// Bytes of a row-major buffer (all dims known).
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

/// Every operand of a run of `config` in @pa_decode's argument order
/// (absent optional ones left out): query, key_cache, value_cache,
/// block_tables, context_lengths, [k_scale, v_scale], [sinks],
/// [alibi_slopes], work_info, reduce_info, exp_sums, max_logits, tmp_out,
/// output, [lse]. Reads the fields shapes depend on (head counts, D, P, Q,
/// kvType, keyLayout, vLayout, kvLayout, scaleMode, hasSinks, hasAlibi,
/// returnLse), which the caller has validated (Hkv >= 1).
std::vector<DecodeOperand> decodeOperands(const PaDecodeConfig &config,
                                          const DecodeDims &dims);

/// The shared size dim `dim` of decode operand `operand` stands for, by
/// its symbol in decodeOperands' patterns (None for a dim of a fixed size,
/// or an operand the table does not have).
SharedSize sharedSizeOf(const std::string &operand, int64_t dim);

} // namespace pa::runtime

#endif // PA_RUNTIME_DECODEOPERANDS_H
