//===- ReplayScript.cpp - the steps of the graph-replay check -------------===//
#include "pa/Oracle/ReplayScript.h"

#include <cmath>
#include <limits>

namespace pa::oracle {

DecodeShape replayProgramShape() {
  DecodeShape shape;
  shape.numQueryHeads = 8;
  shape.numKvHeads = 2;
  shape.headDim = 128;
  shape.pageSize = 16;
  shape.queryLen = 2;
  shape.kvType = ScalarType::F8E4M3FN;
  shape.vLayout = VLayout::Transposed;
  shape.scaleMode = ScaleMode::PerToken;
  shape.window = 257;
  return shape;
}

void replayNewInputs(const ReplayHooks &hooks) {
  std::vector<uint16_t> first, again, zeros;
  DecodeCase a = hooks.generate({300, 5, 1000}, 1, true);
  hooks.run("first inputs", a, &first);
  hooks.run("new query, KV, scales and sinks",
            hooks.generate({300, 5, 1000}, 2, true), nullptr);
  // Every row sees nothing and outputs exactly 0.
  if (hooks.run("all lengths zero", hooks.generate({0, 0, 0}, 3, true),
                &zeros))
    for (uint16_t bits : zeros)
      if (bits & 0x7fff) {
        hooks.fail("an empty sequence output nonzero");
        break;
      }
  if (hooks.fixedBatch) {
    hooks.run("new lengths", hooks.generate({1, 257, 4099}, 4, true),
              nullptr);
  } else {
    hooks.run("another batch size and pool",
              hooks.generate({1, 2, 257, 4099, 0}, 4, true), nullptr);
    hooks.run("one sequence", hooks.generate({600}, 5, true), nullptr);
  }
  hooks.run("first inputs again", a, &again);
  if (first != again)
    hooks.fail("the first inputs gave another output");
}

void replayInPlace(const ReplayHooks &hooks) {
  // Two sequences, with a third of length `third` for a fixed batch.
  auto lengths = [&](std::vector<int32_t> l, int32_t third) {
    if (hooks.fixedBatch)
      l.push_back(third);
    return l;
  };
  // Every written token stays valid, so the lengths can shrink later.
  DecodeCase c = hooks.generate(lengths({700, 40}, 9), 11, false);
  std::vector<uint16_t> before, after;
  hooks.run("in place: base", c, &before);
  // One head's sink at +inf zeroes that head.
  c.sinks[0] = std::numeric_limits<float>::infinity();
  c.sinks[3] = -std::numeric_limits<float>::infinity();
  c.sinks[5] = 3.0f;
  hooks.run("in place: sinks", c, &after);
  if (before == after)
    hooks.fail("new sinks did not change the output");
  // Per-token scales: every slot the sequences use.
  for (float &scale : c.keyScales)
    if (std::isfinite(scale))
      scale *= 1.5f;
  for (float &scale : c.valueScales)
    if (std::isfinite(scale))
      scale *= 0.5f;
  hooks.run("in place: scales", c, nullptr);
  c.query = hooks.generate(lengths({700, 40}, 9), 12, false).query;
  hooks.run("in place: query", c, nullptr);
  c.contextLengths = lengths({513, 17}, 0);
  hooks.run("in place: shorter lengths", c, nullptr);
}

} // namespace pa::oracle
