/*===- SmallDecode.h - host operands of Inputs/decode-small.mlir -*- C -*-===*\
|*                                                                            *|
|* The runtime C API tests of both drivers (cuda_capi_test.c,               *|
|* hip_capi_test.c) run Inputs/decode-small.mlir on these buffers: fresh,   *|
|* non-zero inputs, outputs filled with 0xA5 bytes that the fakes' kernels  *|
|* never change (so what comes back is what was copied).                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_TEST_CAPI_SMALLDECODE_H
#define PA_TEST_CAPI_SMALLDECODE_H

#include "pa-c/Runtime.h"

#include <string.h>

/*===----------------------------------------------------------------------===*/
/* The operands of Inputs/decode-small.mlir for B = 2, N = 2, one page per   */
/* sequence: Hq = 8, Hkv = 1, D = 64, P = 16, Q = 1, x = 16; capacity        */
/* min(B * 2, max(B, ceil(4 / 1))) = 4 plan slots, R = 8 rows per KV head.   */
/*===----------------------------------------------------------------------===*/

enum { kBatch = 2, kPages = 2, kCapacity = 4, kOperands = 13 };

typedef struct {
  uint16_t query[kBatch * 8 * 64];
  uint8_t keyCache[kPages * 64 * 16];
  uint8_t valueCache[kPages * 64 * 16];
  int32_t blockTables[kBatch];
  int32_t contextLengths[kBatch];
  float kScale, vScale;
  int32_t workInfo[kCapacity * 4];
  int32_t reduceInfo[kBatch * 2];
  float expSums[kCapacity * 8];
  float maxLogits[kCapacity * 8];
  float tmpOut[kCapacity * 8 * 64];
  uint16_t output[kBatch * 8 * 64];
} Buffers;

static const int64_t kQueryShape[] = {kBatch, 8, 64};
static const int64_t kKeyShape[] = {kPages, 1, 4, 16, 16};
static const int64_t kValueShape[] = {kPages, 1, 64, 16};
static const int64_t kTableShape[] = {kBatch, 1};
static const int64_t kLengthShape[] = {kBatch};
static const int64_t kScaleShape[] = {1};
static const int64_t kWorkShape[] = {kCapacity, 4};
static const int64_t kReduceShape[] = {kBatch, 2};
static const int64_t kPartialShape[] = {1, kCapacity, 8};
static const int64_t kTmpShape[] = {1, kCapacity, 8, 64};

static void fillBuffers(Buffers *b) {
  for (size_t i = 0; i < sizeof b->query / 2; ++i)
    b->query[i] = (uint16_t)(0x3F80 + i % 7);
  for (size_t i = 0; i < sizeof b->keyCache; ++i) {
    b->keyCache[i] = (uint8_t)(0x30 + i % 5);
    b->valueCache[i] = (uint8_t)(0x38 + i % 3);
  }
  b->blockTables[0] = 1;
  b->blockTables[1] = 0;
  b->contextLengths[0] = 9;
  b->contextLengths[1] = 16;
  b->kScale = 0.5f;
  b->vScale = 0.25f;
  /* Outputs: 0xA5 bytes, which the fake's kernels never change. */
  memset(b->workInfo, 0xA5, sizeof b->workInfo);
  memset(b->reduceInfo, 0xA5, sizeof b->reduceInfo);
  memset(b->expSums, 0xA5, sizeof b->expSums);
  memset(b->maxLogits, 0xA5, sizeof b->maxLogits);
  memset(b->tmpOut, 0xA5, sizeof b->tmpOut);
  memset(b->output, 0xA5, sizeof b->output);
}

static size_t hostOperands(Buffers *b, PaHostOperand out[kOperands]) {
  PaHostOperand operands[kOperands] = {
      {PA_HOST_OPERAND_ABI, "query", b->query, 3, kQueryShape, 2, true},
      {PA_HOST_OPERAND_ABI, "key_cache", b->keyCache, 5, kKeyShape, 1, true},
      {PA_HOST_OPERAND_ABI, "value_cache", b->valueCache, 4, kValueShape, 1,
       true},
      {PA_HOST_OPERAND_ABI, "block_tables", b->blockTables, 2, kTableShape, 4,
       true},
      {PA_HOST_OPERAND_ABI, "context_lengths", b->contextLengths, 1,
       kLengthShape, 4, true},
      {PA_HOST_OPERAND_ABI, "k_scale", &b->kScale, 1, kScaleShape, 4, true},
      {PA_HOST_OPERAND_ABI, "v_scale", &b->vScale, 1, kScaleShape, 4, true},
      {PA_HOST_OPERAND_ABI, "work_info", b->workInfo, 2, kWorkShape, 4, false},
      {PA_HOST_OPERAND_ABI, "reduce_info", b->reduceInfo, 2, kReduceShape, 4,
       false},
      {PA_HOST_OPERAND_ABI, "exp_sums", b->expSums, 3, kPartialShape, 4, false},
      {PA_HOST_OPERAND_ABI, "max_logits", b->maxLogits, 3, kPartialShape, 4,
       false},
      {PA_HOST_OPERAND_ABI, "tmp_out", b->tmpOut, 4, kTmpShape, 4, false},
      {PA_HOST_OPERAND_ABI, "output", b->output, 3, kQueryShape, 2, false},
  };
  memcpy(out, operands, sizeof operands);
  return kOperands;
}

/* The same operands as device operands at made-up addresses 0x10000 * (i +
 * 1), for enqueues (which never touch device memory). */
static void deviceOperands(PaDeviceOperand out[kOperands]) {
  static Buffers b;
  PaHostOperand host[kOperands];
  hostOperands(&b, host);
  for (int i = 0; i < kOperands; ++i) {
    out[i].name = host[i].name;
    out[i].address = 0x10000u * (uint64_t)(i + 1);
    out[i].rank = host[i].rank;
    out[i].sizes = host[i].sizes;
    out[i].strides = NULL; /* row-major */
  }
}

#endif /* PA_TEST_CAPI_SMALLDECODE_H */
