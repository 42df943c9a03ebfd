//===- Reference.cpp - Float64 paged-attention decode oracle --------------===//
//
// The direct and split paths share only the score stream and the
// infinity-aware exp; each accumulates its softmax exactly as its section of
// the spec states it, so comparing them checks one against the other. Scores
// are computed twice (a max pass, then a weighted-sum pass) instead of being
// stored, so memory stays O(rows * D) for any context length.
//
//===----------------------------------------------------------------------===//
#include "pa/Oracle/Reference.h"

#include "pa/Oracle/Visibility.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pa::oracle {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// exp(x - max) with the spec's conventions for infinite logits: a -inf logit
// weighs 0 (also when max is -inf), and the logit that is the max weighs 1
// (also when both are +inf, the +inf sink, which makes every other weight 0).
double expRelativeTo(double x, double max) {
  if (x == -kInf)
    return 0.0;
  if (x == max)
    return 1.0;
  return std::exp(x - max);
}

// max that propagates NaN (std::max keeps its first argument against a NaN
// second one): a NaN score or partial maximum makes the row's maximum NaN.
double maxOrNaN(double x, double y) {
  return std::isnan(x) || std::isnan(y) ? kNaN : std::max(x, y);
}

double sinkLogit(const DecodeCase &c, int64_t queryHead) {
  return c.sinks.empty() ? -kInf : double(c.sinks[size_t(queryHead)]);
}

const float *queryRow(const DecodeCase &c, int64_t sequence, int64_t q,
                      int64_t queryHead) {
  return &c.query[size_t(queryOutputIndex(c, sequence, q, queryHead, 0))];
}

// Streams the tokens of `limit` that some row of (sequence, kvHead) sees, in
// token order, dequantizing one token at a time (no token is read that no row
// sees). For every row r = q*G + g that sees token t it calls
// visit(r, s_t, V_t), with V_t (D values) loaded only when `withValues`.
template <typename Visit>
void forEachVisibleScore(const DecodeCase &c, int64_t sequence,
                         int64_t kvHead, IndexRange limit, bool withValues,
                         Visit &&visit) {
  const int64_t C = c.contextLengths[size_t(sequence)];
  const int64_t G = groupSize(c), D = c.headDim;
  const double softmaxScale = effectiveSoftmaxScale(c);
  std::vector<IndexRange> rowTokens;
  for (int64_t q = 0; q < c.queryLen; ++q)
    rowTokens.push_back(
        intersect(visibleTokenRange(C, c.queryLen, q, c.window), limit));
  const IndexRange tokens =
      intersect(visibleToAnyRow(C, c.queryLen, c.window), limit);
  std::vector<double> key(static_cast<size_t>(D)), value(key.size());
  // Row r = q * G + g as the products see it.
  std::vector<std::vector<double>> queries;
  for (int64_t q = 0; q < c.queryLen; ++q)
    for (int64_t g = 0; g < G; ++g)
      queries.push_back(
          productQueryRow(c, queryRow(c, sequence, q, kvHead * G + g)));
  for (int64_t t = tokens.begin; t < tokens.end; ++t) {
    const TokenLocation at = locateToken(c, sequence, t);
    for (int64_t d = 0; d < D; ++d) {
      key[size_t(d)] = dequantizedElement(c, CacheOperand::Key, at, kvHead, d);
      if (withValues) {
        // A non-finite value (an infinite element or v_scale) makes its
        // output elements NaN, as a non-finite score makes its row NaN:
        // +-inf there would depend on the order of the sum.
        const double v =
            dequantizedElement(c, CacheOperand::Value, at, kvHead, d);
        value[size_t(d)] = std::isfinite(v) ? v : kNaN;
      }
    }
    for (int64_t q = 0; q < c.queryLen; ++q) {
      if (t < rowTokens[size_t(q)].begin || t >= rowTokens[size_t(q)].end)
        continue;
      for (int64_t g = 0; g < G; ++g) {
        const std::vector<double> &query = queries[size_t(q * G + g)];
        double dot = 0.0;
        for (int64_t d = 0; d < D; ++d)
          dot += query[size_t(d)] * key[size_t(d)];
        // A non-finite score comes only from a non-finite input (query,
        // key, scale): it makes the row NaN (spec, "Non-finite inputs"),
        // also a -inf one, which would otherwise weigh 0, and also under a
        // soft-cap, whose tanh would make an infinite one finite.
        double score = softmaxScale * dot;
        if (!std::isfinite(score))
          score = kNaN;
        else if (c.logitsSoftCap > 0.0)
          score = c.logitsSoftCap * std::tanh(score / c.logitsSoftCap);
        // ALiBi after the cap: 0 for the row's own token C - Q + q,
        // negative (for a positive slope) for older ones. A non-finite
        // slope is a non-finite input: the row is NaN.
        if (c.alibi) {
          score += double(c.alibiSlopes[size_t(kvHead * G + g)]) *
                   double(t - (C - c.queryLen + q));
          if (!std::isfinite(score))
            score = kNaN;
        }
        visit(q * G + g, score, value.data());
      }
    }
  }
}

bool checkPlan(const DecodeCase &c, const WorkPlan &plan, std::string &error) {
  if (plan.batch() != c.batch || plan.capacity < 0 ||
      plan.workInfo.size() != size_t(4 * plan.capacity)) {
    error = "plan does not match the case (batch or work_info size)";
    return false;
  }
  for (int64_t b = 0; b < c.batch; ++b) {
    int64_t first = plan.firstSlot(b), count = plan.partitionCount(b);
    if (first < 0 || count < 0 || first + count > plan.capacity) {
      error = "reduce_info of sequence " + std::to_string(b) +
              " points outside the plan";
      return false;
    }
    for (int64_t slot = first; slot < first + count; ++slot) {
      WorkItem item = plan.work(slot);
      if (item.sequence != b || item.contextLength != c.contextLengths[size_t(b)] ||
          item.beginTile < 0 || item.endTile < item.beginTile) {
        error = "work_info slot " + std::to_string(slot) +
                " does not describe a tile range of sequence " +
                std::to_string(b) + " at its context length";
        return false;
      }
    }
  }
  return true;
}

// M + log(den), -inf when nothing (sink included) has weight.
double logSumExp(double max, double denominator) {
  return denominator == 0.0 ? -kInf : max + std::log(denominator);
}

int64_t lseIndex(const DecodeCase &c, int64_t sequence, int64_t q,
                 int64_t queryHead) {
  return (sequence * c.queryLen + q) * c.numQueryHeads + queryHead;
}

} // namespace

bool referenceDecodeDirect(const DecodeCase &c, std::vector<double> &output,
                           std::string &error, std::vector<double> *lse) {
  if (!validateCase(c, error))
    return false;
  const int64_t G = groupSize(c), R = rowsPerKvHead(c), D = c.headDim;
  const IndexRange everything{0, std::numeric_limits<int64_t>::max()};
  output.assign(size_t(queryElementCount(c)), 0.0);
  if (lse)
    lse->assign(size_t(c.batch * c.queryLen * c.numQueryHeads), 0.0);
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.numKvHeads; ++h) {
      // M = max(max_t s_t, z), then sum e^(s_t - M) V_t / (sum e^(s_t - M) + e^(z - M)).
      std::vector<double> max(static_cast<size_t>(R)), denominator(max.size());
      for (int64_t r = 0; r < R; ++r)
        max[size_t(r)] = sinkLogit(c, h * G + r % G);
      forEachVisibleScore(c, b, h, everything, false,
                          [&](int64_t r, double score, const double *) {
                            max[size_t(r)] = maxOrNaN(max[size_t(r)], score);
                          });
      for (int64_t r = 0; r < R; ++r)
        denominator[size_t(r)] =
            expRelativeTo(sinkLogit(c, h * G + r % G), max[size_t(r)]);
      std::vector<double> numerator(size_t(R * D), 0.0);
      forEachVisibleScore(
          c, b, h, everything, true,
          [&](int64_t r, double score, const double *value) {
            const double weight = expRelativeTo(score, max[size_t(r)]);
            denominator[size_t(r)] += weight;
            for (int64_t d = 0; d < D; ++d)
              numerator[size_t(r * D + d)] += weight * value[d];
          });
      for (int64_t r = 0; r < R; ++r) {
        if (lse)
          (*lse)[size_t(lseIndex(c, b, r / G, h * G + r % G))] =
              logSumExp(max[size_t(r)], denominator[size_t(r)]);
        if (denominator[size_t(r)] == 0.0)
          continue; // nothing visible and no sink: exactly 0
        for (int64_t d = 0; d < D; ++d)
          output[size_t(queryOutputIndex(c, b, r / G, h * G + r % G, d))] =
              numerator[size_t(r * D + d)] / denominator[size_t(r)];
      }
    }
  }
  return true;
}

bool computePartials(const DecodeCase &c, const WorkPlan &plan,
                     PartialResults &partials, std::string &error) {
  if (!validateCase(c, error) || !checkPlan(c, plan, error))
    return false;
  const int64_t R = rowsPerKvHead(c), D = c.headDim;
  partials.numKvHeads = c.numKvHeads;
  partials.capacity = plan.capacity;
  partials.rows = R;
  partials.headDim = D;
  const size_t rowCount = size_t(c.numKvHeads * plan.capacity * R);
  partials.maxLogits.assign(rowCount, kNaN);
  partials.expSums.assign(rowCount, kNaN);
  partials.tmpOut.assign(rowCount * size_t(D), kNaN);

  for (int64_t b = 0; b < c.batch; ++b) {
    const int64_t first = plan.firstSlot(b);
    for (int64_t slot = first; slot < first + plan.partitionCount(b); ++slot) {
      const WorkItem item = plan.work(slot);
      const IndexRange slotTokens = tileTokenRange(
          {item.beginTile, item.endTile}, c.contextLengths[size_t(b)]);
      for (int64_t h = 0; h < c.numKvHeads; ++h) {
        // max = max_t s_t, expSum = sum e^(s_t - max),
        // tmpOut = sum e^(s_t - max) V_t / expSum; -inf, 0, 0 when empty.
        double *max = &partials.maxLogits[size_t(partials.rowIndex(h, slot, 0))];
        double *expSum = &partials.expSums[size_t(partials.rowIndex(h, slot, 0))];
        double *tmpOut = &partials.tmpOut[size_t(partials.rowIndex(h, slot, 0) * D)];
        std::fill(max, max + R, -kInf);
        std::fill(expSum, expSum + R, 0.0);
        std::fill(tmpOut, tmpOut + R * D, 0.0);
        forEachVisibleScore(c, b, h, slotTokens, false,
                            [&](int64_t r, double score, const double *) {
                              max[r] = maxOrNaN(max[r], score);
                            });
        forEachVisibleScore(c, b, h, slotTokens, true,
                            [&](int64_t r, double score, const double *value) {
                              const double weight = std::exp(score - max[r]);
                              expSum[r] += weight;
                              for (int64_t d = 0; d < D; ++d)
                                tmpOut[r * D + d] += weight * value[d];
                            });
        for (int64_t r = 0; r < R; ++r)
          if (expSum[r] > 0.0)
            for (int64_t d = 0; d < D; ++d)
              tmpOut[r * D + d] /= expSum[r];
      }
    }
  }
  return true;
}

bool reducePartials(const DecodeCase &c, const WorkPlan &plan,
                    const PartialResults &partials,
                    std::vector<double> &output, std::string &error,
                    std::vector<double> *lse) {
  if (!validateCase(c, error) || !checkPlan(c, plan, error))
    return false;
  if (partials.numKvHeads != c.numKvHeads ||
      partials.capacity != plan.capacity ||
      partials.rows != rowsPerKvHead(c) || partials.headDim != c.headDim) {
    error = "partial results do not match the case and plan";
    return false;
  }
  const int64_t G = groupSize(c);
  output.assign(size_t(queryElementCount(c)), 0.0);
  if (lse)
    lse->assign(size_t(c.batch * c.queryLen * c.numQueryHeads), 0.0);
  for (int64_t b = 0; b < c.batch; ++b) {
    const int64_t first = plan.firstSlot(b);
    const int64_t end = first + plan.partitionCount(b);
    for (int64_t h = 0; h < c.numKvHeads; ++h) {
      for (int64_t q = 0; q < c.queryLen; ++q) {
        for (int64_t g = 0; g < G; ++g) {
          const int64_t queryHead = h * G + g;
          const int64_t row = q * G + g;
          const double sink = sinkLogit(c, queryHead);
          double max = sink;
          for (int64_t slot = first; slot < end; ++slot)
            max = maxOrNaN(
                max, partials.maxLogits[size_t(partials.rowIndex(h, slot, row))]);
          double denominator = expRelativeTo(sink, max);
          std::vector<double> weights;
          for (int64_t slot = first; slot < end; ++slot) {
            const int64_t index = partials.rowIndex(h, slot, row);
            weights.push_back(
                partials.expSums[size_t(index)] *
                expRelativeTo(partials.maxLogits[size_t(index)], max));
            denominator += weights.back();
          }
          if (lse)
            (*lse)[size_t(lseIndex(c, b, q, queryHead))] =
                logSumExp(max, denominator);
          if (denominator == 0.0)
            continue; // nothing visible and no sink: exactly 0
          for (int64_t slot = first; slot < end; ++slot) {
            const double weight = weights[size_t(slot - first)] / denominator;
            const double *tmpOut =
                &partials.tmpOut[size_t(partials.rowIndex(h, slot, row) *
                                        c.headDim)];
            for (int64_t d = 0; d < c.headDim; ++d)
              output[size_t(queryOutputIndex(c, b, q, queryHead, d))] +=
                  weight * tmpOut[d];
          }
        }
      }
    }
  }
  return true;
}

bool referenceDecodeSplit(const DecodeCase &c, const WorkPlan &plan,
                          std::vector<double> &output, std::string &error) {
  PartialResults partials;
  return computePartials(c, plan, partials, error) &&
         reducePartials(c, plan, partials, output, error);
}

std::vector<double> productQueryRow(const DecodeCase &c, const float *row) {
  std::vector<double> values(row, row + c.headDim);
  if (!c.queryQuantizedPerRow)
    return values;
  const ScalarType fp8 = *c.queryQuantizedPerRow;
  const double fp8Max = maxFiniteValue(fp8);
  double absMax = 0.0;
  for (double value : values)
    absMax = std::max(absMax, std::fabs(value));
  if (absMax == 0.0)
    return values;
  for (double &value : values)
    value = roundToScalar(fp8, value * fp8Max / absMax) * (absMax / fp8Max);
  return values;
}

double specTolerance(ScalarType kvType) {
  return isFp8(kvType) ? 5e-3 : 2e-3;
}

double outputRoundingSlack(ScalarType outputType, double ref) {
  if (!std::isfinite(ref))
    return 0.0;
  return std::fabs(roundToScalar(outputType, ref) - ref);
}

bool Deviation::note(double gotValue, double refValue, double tolerance,
                     double slack) {
  double r = toleranceRatio(gotValue, refValue, tolerance, slack);
  if (r > ratio) {
    ratio = r;
    absolute = std::fabs(gotValue - refValue);
    got = gotValue;
    ref = refValue;
  }
  return r <= 1.0;
}

double toleranceRatio(double got, double ref, double tolerance,
                      double slack) {
  // A NaN reference (a non-finite input reached the element) is matched by
  // NaN only.
  if (std::isnan(ref))
    return std::isnan(got) ? 0.0 : std::numeric_limits<double>::infinity();
  if (std::isinf(ref))
    return got == ref ? 0.0 : std::numeric_limits<double>::infinity();
  if (!std::isfinite(got))
    return std::numeric_limits<double>::infinity();
  double excess = std::max(0.0, std::fabs(got - ref) - slack);
  return excess / (tolerance + tolerance * std::fabs(ref));
}

} // namespace pa::oracle
