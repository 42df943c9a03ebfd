/*===- pa-c/Decode.h - C API of the pa-mlir host runtime ----------*- C -*-===*\
|*                                                                            *|
|* The C face of include/pa/API (libPACAPI.so), in the style of MLIR's C API: *|
|* opaque handles `{ void *ptr; }`, plain structs for configurations and     *|
|* buffers, and failures reported as strings the caller frees - no call      *|
|* aborts or prints.                                                          *|
|*                                                                            *|
|* Usage:                                                                     *|
|*   PaDecodeConfig config = paDecodeConfigGetDefault();                      *|
|*   config.numQueryHeads = 16; ...                                           *|
|*   PaString error;                                                          *|
|*   PaHostProgram program = paHostProgramCreate(&config, &error);            *|
|*   if (paHostProgramIsNull(program)) { puts(error.data);                    *|
|*                                       paStringDestroy(error); }            *|
|*   buffers.capacity = paHostProgramPlanCapacity(program, batch);            *|
|*   paHostProgramRun(program, &buffers, &error);   (any batch, any lengths)  *|
|*   paHostProgramDestroy(program);                                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_DECODE_H
#define PA_C_DECODE_H

#include "pa-c/Support.h" /* PA_CAPI_EXPORTED, PaString, paStringDestroy */

#ifdef __cplusplus
extern "C" {
#endif

/* Values of the enum-typed fields of PaDecodeConfig. */
enum { PA_KV_E4M3FN = 0, PA_KV_E4M3FNUZ = 1, PA_KV_BF16 = 2 };
enum { PA_QUERY_BF16 = 0, PA_QUERY_F16 = 1 };
/* PA_KEY_UNPACKED describes a 4-D [N, Hkv, P, D] key cache, which the dialect
 * rejects: front ends pass what they were given and report the diagnostic. */
enum { PA_KEY_PACKED = 0, PA_KEY_UNPACKED = 1 };
enum { PA_V_PLAIN = 0, PA_V_TRANSPOSED = 1 };
/* PACKED: K by keyLayout, V by vLayout; NHD: K and V [N, P, Hkv, D]; HND: K
 * and V [N, Hkv, P, D] (keyLayout and vLayout then ignored). */
enum { PA_KV_LAYOUT_PACKED = 0, PA_KV_LAYOUT_NHD = 1, PA_KV_LAYOUT_HND = 2 };
enum { PA_SCALE_NONE = 0, PA_SCALE_PER_TENSOR = 1, PA_SCALE_PER_TOKEN = 2 };
enum { PA_COMPUTE_DEFAULT = -1, PA_COMPUTE_FP8 = 0, PA_COMPUTE_BF16 = 1 };

/* The static configuration of a decode program (pa::DecodeConfig). */
typedef struct {
  int64_t numQueryHeads; /* Hq */
  int64_t numKVHeads;    /* Hkv */
  int64_t headDim;       /* D */
  int64_t pageSize;      /* P */
  int64_t queryLength;   /* Q */
  int32_t kvType;        /* PA_KV_* */
  int32_t queryType;     /* PA_QUERY_* */
  int32_t keyLayout;     /* PA_KEY_* */
  int32_t vLayout;       /* PA_V_* */
  int32_t scaleMode;     /* PA_SCALE_* */
  int32_t computeType;   /* PA_COMPUTE_*; DEFAULT: fp8 for fp8 KV, else bf16 */
  int64_t slidingWindow; /* 0 and -1: no window */
  bool hasSoftmaxScale;  /* false: D^-0.5 */
  double softmaxScale;
  bool hasSinks;
  const char *chip;      /* NULL: "gfx950" */
  int64_t budget;        /* 0: twice the chip's compute units */
  int64_t maxPartitions; /* 0: the chip's compute units */
  double logitsSoftCap;  /* 0: none; > 0: scores become cap * tanh(s / cap) */
  int32_t kvLayout;      /* PA_KV_LAYOUT_* */
  bool returnLse;        /* the run also writes PaHostBuffers.lse */
  bool hasAlibi;         /* the run reads PaHostBuffers.alibiSlopes */
} PaDecodeConfig;

/* Hq = 8, Hkv = 1, D = 128, P = 16, Q = 1, e4m3fn KV, bf16 query, packed K,
 * plain V, no scales, no window, no sinks, no soft-cap, gfx950, default
 * budget. */
PA_CAPI_EXPORTED PaDecodeConfig paDecodeConfigGetDefault(void);

/* The layout of PaHostBuffers this header describes ("PABU", layout 1).
 * Every PaHostBuffers starts with `abi` = PA_HOST_BUFFERS_ABI; the library
 * refuses buffers whose `abi` differs (a caller compiled against another
 * pa-c/Decode.h, whose fields lie elsewhere) instead of reading them. A
 * change of the struct's fields changes the value. */
#define PA_HOST_BUFFERS_ABI UINT64_C(0x5041425500000001)

/* The operands of one run (pa::HostBuffers): caller-owned, row-major (nhd /
 * hnd caches: any page stride), in the layouts of the spec. Caches are raw
 * element bits (1 byte for fp8, 2 for bf16); query and output are bf16/f16
 * bits. */
typedef struct {
  uint64_t abi;                /* PA_HOST_BUFFERS_ABI */
  int64_t batch;               /* B */
  int64_t numPages;            /* N */
  int64_t maxPagesPerSequence; /* block-table row length */
  int64_t capacity;            /* paHostProgramPlanCapacity(program, B) */
  const uint16_t *query;       /* [B*Q, Hq, D] */
  const void *keyCache;        /* [N, Hkv, D/x, P, x]; nhd / hnd: as V */
  const void *valueCache;      /* [N, Hkv, D, P] or [N, Hkv, P/x, D, x];
                                  nhd [N, P, Hkv, D]; hnd [N, Hkv, P, D] */
  const int32_t *blockTables;  /* [B, maxPagesPerSequence] */
  const int32_t *contextLengths; /* [B] */
  const float *kScale;         /* per-tensor [1], per-token [N, Hkv, P] */
  const float *vScale;
  const float *sinks;          /* [Hq] */
  const float *alibiSlopes;    /* [Hq] with hasAlibi, else NULL */
  int32_t *workInfo;           /* [capacity, 4] */
  int32_t *reduceInfo;         /* [B, 2] */
  float *expSums;              /* [Hkv, capacity, Q*G] */
  float *maxLogits;            /* [Hkv, capacity, Q*G] */
  float *tmpOut;               /* [Hkv, capacity, Q*G, D] */
  uint16_t *output;            /* [B*Q, Hq, D] */
  float *lse;                  /* [B*Q, Hq] with returnLse, else NULL */
  /* Elements from one page of an nhd / hnd cache to the next: 0 for a
   * contiguous cache; 2 P Hkv D for the K or V half of a combined
   * [N, 2, P, Hkv, D] cache (read in place). Packed caches: 0. */
  int64_t keyPageStride;
  int64_t valuePageStride;
} PaHostBuffers;

typedef struct {
  void *ptr;
} PaHostProgram;

static inline bool paHostProgramIsNull(PaHostProgram program) {
  return program.ptr == NULL;
}

/* Compiles `config` for the host. On failure returns a null program and, when
 * `error` is not NULL, sets it to the verifier's / pipeline's message. */
PA_CAPI_EXPORTED PaHostProgram
paHostProgramCreate(const PaDecodeConfig *config, PaString *error);

PA_CAPI_EXPORTED void paHostProgramDestroy(PaHostProgram program);

/* Plan slots (work_info rows, partial-buffer capacity) for `batch`
 * sequences; -1 for a null program or batch < 0. */
PA_CAPI_EXPORTED int64_t paHostProgramPlanCapacity(PaHostProgram program,
                                                   int64_t batch);

/* Runs plan, decode and reduce. Returns false (and the reason in `error`) for
 * buffers that do not fit the program; the outputs are then untouched. */
PA_CAPI_EXPORTED bool paHostProgramRun(PaHostProgram program,
                                       const PaHostBuffers *buffers,
                                       PaString *error);

/* Parses and verifies a module in textual IR (`mlirText.length` bytes; a
 * NUL byte among them is an error, not the end of the text); false with the
 * diagnostics. */
PA_CAPI_EXPORTED bool paVerifyText(PaStringRef mlirText, PaString *error);

/* The module of `config` after the host pipeline, as text in `module`. */
PA_CAPI_EXPORTED bool paCompileToHostText(const PaDecodeConfig *config,
                                          PaString *module, PaString *error);

#ifdef __cplusplus
}
#endif

#endif /* PA_C_DECODE_H */
