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

// Non-finite inputs (spec): a visible score that is not finite is NaN, and
// maxima propagate NaN, so every row a NaN or infinite query, key or scale
// value reaches is NaN in the output and in its partition's partials.
//
// Unsplit answer: out = sum_t e^(s_t-M) V_t / (sum_t e^(s_t-M) + e^(z-M)).
// `output` is [B*Q, Hq, D]. With `lse`, also each row's log-sum-exp
// M + log(sum_t e^(s_t-M) + e^(z-M)), [B*Q, Hq]: -inf when that sum is 0.
bool referenceDecodeDirect(const DecodeCase &c, std::vector<double> &output,
                           std::string &error,
                           std::vector<double> *lse = nullptr);

// Partials for every slot the plan uses (reduce_info), tiles as in work_info.
bool computePartials(const DecodeCase &c, const WorkPlan &plan,
                     PartialResults &partials, std::string &error);

// The spec's reducer; sinks are applied here, once. With `lse`, also each
// row's M + log(den) as the reducer sees them ([B*Q, Hq]; -inf for den 0).
bool reducePartials(const DecodeCase &c, const WorkPlan &plan,
                    const PartialResults &partials,
                    std::vector<double> &output, std::string &error,
                    std::vector<double> *lse = nullptr);

// One query row as the products see it (DecodeCase::queryQuantizedPerRow):
// `row` itself, or quantized per row. A row of zeros stays zero.
std::vector<double> productQueryRow(const DecodeCase &c, const float *row);

// The spec's pass criterion per element, |got - ref| <= atol + rtol |ref|,
// atol = rtol = specTolerance(kvType): 5e-3 for fp8 KV, 2e-3 for bf16 KV.
// Outputs in `outputType` (the query's dtype) are additionally allowed the
// error their own rounding cannot avoid, |round(ref) - ref| (a bf16 output
// near 2.3 is up to 0.0078 from any real value, more than 2e-3 (1 + 2.3)):
// `slack` below. toleranceRatio is the deviation in units of the allowed
// error (<= 1 passes; NaN and wrong infinities are +inf); a -inf reference
// (an empty partition's row maximum) must be matched exactly, and a NaN
// reference (a row a non-finite input reaches) by NaN.
double specTolerance(ScalarType kvType);
double outputRoundingSlack(ScalarType outputType, double ref);
double toleranceRatio(double got, double ref, double tolerance,
                      double slack = 0.0);

// The worst deviation of one quantity (toleranceRatio) and the element
// that produced it.
struct Deviation {
  double ratio = 0.0;
  double absolute = 0.0;
  double got = 0.0, ref = 0.0;
  // Notes one element; whether it passes.
  bool note(double gotValue, double refValue, double tolerance,
            double slack = 0.0);
};

// computePartials then reducePartials.
bool referenceDecodeSplit(const DecodeCase &c, const WorkPlan &plan,
                          std::vector<double> &output, std::string &error);

} // namespace pa::oracle

#endif // PA_ORACLE_REFERENCE_H
