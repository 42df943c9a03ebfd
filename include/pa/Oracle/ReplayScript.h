//===- ReplayScript.h - the steps of the graph-replay check -----*- C++ -*-===//
//
// One program, compiled once (or captured once as a GPU graph), run again on
// new inputs: every run must follow its own inputs, and the first inputs
// run again must give the first output bit for bit. The host test
// (unittests/Numerics/GraphReplayTest.cpp) and pa-cuda-run's graph replay
// run these steps; each says how it makes a case and runs and checks one.
// Plain C++, like the rest of the oracle library.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_REPLAYSCRIPT_H
#define PA_ORACLE_REPLAYSCRIPT_H

#include "pa/Oracle/DecodeCase.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pa::oracle {

struct ReplayHooks {
  /// A case of the program's shape with these context lengths (seed and
  /// poisonInvisible as in CaseConfig).
  std::function<DecodeCase(std::vector<int32_t> lengths, uint64_t seed,
                           bool poisonInvisible)>
      generate;
  /// Runs `c` (step `what`) and compares it with the oracle, reporting a
  /// mismatch itself; stores the output's bits in `output` when given.
  /// True when the run matched.
  std::function<bool(const char *what, const DecodeCase &c,
                     std::vector<uint16_t> *output)>
      run;
  /// A check across runs failed ("the first inputs gave another output").
  std::function<void(const std::string &why)> fail;
  /// Every case has three sequences (a captured graph's fixed batch); else
  /// the batch size changes between runs as well.
  bool fixedBatch = false;
};

/// The replayed program's shape (with attention sinks): GQA 4 (8 query
/// heads over 2 KV heads), D 128, page 16, two query tokens, fp8 e4m3fn KV
/// with transposed V and per-token scales, window 257.
DecodeShape replayProgramShape();

/// New inputs: new values with the same lengths, all lengths zero (every
/// output exactly 0), new lengths, then the first inputs again.
void replayNewInputs(const ReplayHooks &hooks);

/// In place: one case whose inputs change one at a time (sinks, which must
/// change the output; scales; query; shorter lengths in the same table).
void replayInPlace(const ReplayHooks &hooks);

} // namespace pa::oracle

#endif // PA_ORACLE_REPLAYSCRIPT_H
