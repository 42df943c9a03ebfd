//===- Reference.h - Float64 paged-attention decode oracle ------*- C++ -*-===//
//
// The spec's decode function evaluated in float64 from the raw cache bits:
// directly (one softmax per query row), and split-K (the spec's partial
// results per plan slot, then the reducer). Only tokens visible to some query
// row are read, so garbage in unwritten or unused cache bytes cannot leak in.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_REFERENCE_H
#define PA_ORACLE_REFERENCE_H

#include "pa/Oracle/DecodeCase.h"
#include "pa/Oracle/Planner.h"

#include <string>
#include <vector>

namespace pa::oracle {

// The split-K scratch of the spec, per KV head h, plan slot and row r = q*G+g.
// Slots the plan leaves unused hold NaN (a kernel leaves them unwritten).
struct PartialResults {
  int64_t numKvHeads = 0;
  int64_t capacity = 0;
  int64_t rows = 0; // R = Q * G
  int64_t headDim = 0;
  std::vector<double> maxLogits; // [Hkv][capacity][R], natural-log units
  std::vector<double> expSums;   // [Hkv][capacity][R]
  std::vector<double> tmpOut;    // [Hkv][capacity][R][D], normalized

  // Index into maxLogits / expSums; tmpOut element d is at rowIndex * D + d.
  int64_t rowIndex(int64_t kvHead, int64_t slot, int64_t row) const {
    return (kvHead * capacity + slot) * rows + row;
  }
};

// Unsplit answer: out = sum_t e^(s_t-M) V_t / (sum_t e^(s_t-M) + e^(z-M)).
// `output` is [B*Q, Hq, D].
bool referenceDecodeDirect(const DecodeCase &c, std::vector<double> &output,
                           std::string &error);

// Partials for every slot the plan uses (reduce_info), tiles as in work_info.
bool computePartials(const DecodeCase &c, const WorkPlan &plan,
                     PartialResults &partials, std::string &error);

// The spec's reducer; sinks are applied here, once.
bool reducePartials(const DecodeCase &c, const WorkPlan &plan,
                    const PartialResults &partials,
                    std::vector<double> &output, std::string &error);

// One query row as the products see it (DecodeCase::queryQuantizedPerRow):
// `row` itself, or quantized per row. A row of zeros stays zero.
std::vector<double> productQueryRow(const DecodeCase &c, const float *row);

// computePartials then reducePartials.
bool referenceDecodeSplit(const DecodeCase &c, const WorkPlan &plan,
                          std::vector<double> &output, std::string &error);

} // namespace pa::oracle

#endif // PA_ORACLE_REFERENCE_H
