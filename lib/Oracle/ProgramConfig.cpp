//===- ProgramConfig.cpp - the program configuration of a case shape -----===//
#include "pa/Oracle/ProgramConfig.h"

namespace pa::oracle {

PaDecodeConfig programConfigOf(const DecodeShape &shape, bool sinks) {
  PaDecodeConfig c{};
  c.numQueryHeads = shape.numQueryHeads;
  c.numKVHeads = shape.numKvHeads;
  c.headDim = shape.headDim;
  c.pageSize = shape.pageSize;
  c.queryLength = shape.queryLen;
  switch (shape.kvType) {
  case ScalarType::F8E4M3FN:
    c.kvType = PA_KV_E4M3FN;
    break;
  case ScalarType::F8E4M3FNUZ:
    c.kvType = PA_KV_E4M3FNUZ;
    break;
  default:
    c.kvType = PA_KV_BF16;
    break;
  }
  c.queryType = shape.queryType == ScalarType::F16 ? PA_QUERY_F16
                                                   : PA_QUERY_BF16;
  c.keyLayout = PA_KEY_PACKED;
  c.vLayout =
      shape.vLayout == VLayout::Transposed ? PA_V_TRANSPOSED : PA_V_PLAIN;
  c.kvLayout = shape.cacheLayout == CacheLayout::Nhd   ? PA_KV_LAYOUT_NHD
               : shape.cacheLayout == CacheLayout::Hnd ? PA_KV_LAYOUT_HND
                                                       : PA_KV_LAYOUT_PACKED;
  c.scaleMode = shape.scaleMode == ScaleMode::PerTensor ? PA_SCALE_PER_TENSOR
                : shape.scaleMode == ScaleMode::PerToken ? PA_SCALE_PER_TOKEN
                                                         : PA_SCALE_NONE;
  c.computeType = PA_COMPUTE_DEFAULT;
  c.slidingWindow = shape.window;
  c.hasSoftmaxScale = shape.softmaxScale.has_value();
  c.softmaxScale = shape.softmaxScale.value_or(0.0);
  c.hasSinks = sinks;
  c.logitsSoftCap = shape.logitsSoftCap;
  c.returnLse = shape.lse;
  c.hasAlibi = shape.alibi;
  return c;
}

} // namespace pa::oracle
