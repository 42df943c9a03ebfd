/*===- pa-c/Compile.h - C API: GPU code objects, with stages ------*- C -*-===*\
|*                                                                            *|
|* Compiles a decode configuration (PaDecodeConfig of pa-c/Decode.h) or      *|
|* module text with pa ops to a GPU code object, in this process: gfx942 /   *|
|* gfx950 give an AMDHSA code object (format "hsaco"), sm_90a PTX ("ptx").   *|
|* The artifact holds the code object, its metadata sidecar (JSON: per       *|
|* kernel the grid formula, workgroup size and argument layout) and, on      *|
|* request, the text of every stage. Conventions of pa-c/Decode.h: opaque    *|
|* handles, failures as caller-freed PaString, nothing aborts or prints.     *|
|*                                                                            *|
|*   PaCompileOptions options = paCompileOptionsGetDefault();                 *|
|*   options.keepStages = true;                                               *|
|*   PaString error;                                                          *|
|*   PaArtifact artifact = paCompileConfig(&config, &options, &error);        *|
|*   if (paArtifactIsNull(artifact)) { ...error.data...; }                    *|
|*   PaStringRef hsaco = paArtifactGetCodeObject(artifact);                   *|
|*   PaStringRef json = paArtifactGetMetadata(artifact);                      *|
|*   paArtifactDestroy(artifact);                                             *|
|*                                                                            *|
|* A code object link runs lld in this process, which resets every LLVM      *|
|* command-line option (cl::opt) to its default: do not rely on cl::opts     *|
|* surviving a compile. Compiles may run concurrently from several threads.  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_COMPILE_H
#define PA_C_COMPILE_H

#include "pa-c/Decode.h"
#include "pa-c/Hip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* AMD chips, fp8 compute: the products whose operand's fp8 residual is
 * multiplied too (pa-to-mfma's fp8-residual option). 0 is the default. */
typedef enum {
  PA_FP8_RESIDUAL_QUERY_AND_P = 0, /* Q and P: meets the tolerance */
  PA_FP8_RESIDUAL_P = 1,           /* P only */
  PA_FP8_RESIDUAL_NONE = 2,        /* neither: the fewest MFMAs */
} PaFp8Residual;

/* AMD chips: how the decode kernel addresses K, V and per-token scales
 * (pa-to-mfma's cache-offsets option). 0 is the default. */
typedef enum {
  /* 32-bit buffer offsets below 2^31 bytes per paged buffer, else 64-bit */
  PA_CACHE_OFFSETS_AUTO = 0,
  PA_CACHE_OFFSETS_64 = 1, /* 64-bit global addresses only */
} PaCacheOffsets;

/* AMD chips: whether the decode loop loads the next tile's K while the
 * current tile's softmax and PV run (pa-to-mfma's key-prefetch option).
 * 0 is the default. */
typedef enum {
  PA_KEY_PREFETCH_AUTO = 0,      /* where its registers cost no wave */
  PA_KEY_PREFETCH_NONE = 1,      /* each tile's K in its own step */
  PA_KEY_PREFETCH_NEXT_TILE = 2, /* always */
} PaKeyPrefetch;

typedef struct {
  int32_t codeObjectVersion; /* AMD chips: 5 or 6; 0: 5 */
  bool keepStages;           /* keep the text of every stage */
  int32_t fp8Residual;       /* a PaFp8Residual */
  int32_t cacheOffsets;      /* a PaCacheOffsets */
  int32_t keyPrefetch;       /* a PaKeyPrefetch */
} PaCompileOptions;

/* Code object version 5, no stages, fp8 residuals of Q and P, automatic
 * cache offsets and key prefetch (a zero-filled struct means the same). */
PA_CAPI_EXPORTED PaCompileOptions paCompileOptionsGetDefault(void);

/* A compiled program (pa::CompiledKernels). */
typedef struct {
  void *ptr;
} PaArtifact;

static inline bool paArtifactIsNull(PaArtifact artifact) {
  return artifact.ptr == NULL;
}

/* Compiles the decode program of `config` for config->chip. `options` may be
 * NULL (the defaults). On failure returns a null artifact and, when `error`
 * is not NULL, every diagnostic in it. */
PA_CAPI_EXPORTED PaArtifact paCompileConfig(const PaDecodeConfig *config,
                                            const PaCompileOptions *options,
                                            PaString *error);

/* Parses `mlirText` (pa ops in functions over memrefs; `length` bytes, a
 * NUL byte among them an error) and compiles it for `chip`; parse errors
 * name `bufferName` (NULL: "input") with line and column. */
PA_CAPI_EXPORTED PaArtifact paCompileText(PaStringRef mlirText,
                                          const char *chip,
                                          const PaCompileOptions *options,
                                          const char *bufferName,
                                          PaString *error);

PA_CAPI_EXPORTED void paArtifactDestroy(PaArtifact artifact);

/* "gfx950", "sm_90a", ... */
PA_CAPI_EXPORTED PaStringRef paArtifactGetChip(PaArtifact artifact);
/* "hsaco" or "ptx". */
PA_CAPI_EXPORTED PaStringRef paArtifactGetFormat(PaArtifact artifact);
/* The code object's bytes (what hipModuleLoadData / cuModuleLoadData take). */
PA_CAPI_EXPORTED PaStringRef paArtifactGetCodeObject(PaArtifact artifact);
/* The metadata sidecar (JSON). */
PA_CAPI_EXPORTED PaStringRef paArtifactGetMetadata(PaArtifact artifact);

/* The stages kept (0 unless keepStages), in pipeline order: "pa" (the input
 * ops), "tiled" (workgroup programs), "rocdl" / "nvvm" (kernels in the LLVM
 * dialects), "llvm" (optimized LLVM IR), "isa" (AMDGPU assembly) or "ptx". */
PA_CAPI_EXPORTED intptr_t paArtifactGetNumStages(PaArtifact artifact);
/* Name and text of stage `index` in [0, paArtifactGetNumStages); {NULL, 0}
 * outside. */
PA_CAPI_EXPORTED PaStringRef paArtifactGetStageName(PaArtifact artifact,
                                                    intptr_t index);
PA_CAPI_EXPORTED PaStringRef paArtifactGetStageText(PaArtifact artifact,
                                                    intptr_t index);

/* Plan slots (work_info rows, capacity of the partial buffers) that a run of
 * `config` with `batch` sequences needs; -1 when the configuration is
 * invalid (unknown enumerators or chip) or batch < 0. */
PA_CAPI_EXPORTED int64_t paDecodeConfigPlanCapacity(
    const PaDecodeConfig *config, int64_t batch);

/* The plan budget and max_partitions of `config` with the chip's defaults
 * filled in (what the compiled plan kernel uses), so that a runtime without
 * the compiler computes the same capacity:
 *   min(batch * maxPartitions, max(batch, ceil(budget / numKVHeads))).
 * False when the configuration is invalid, as paDecodeConfigPlanCapacity. */
PA_CAPI_EXPORTED bool paDecodeConfigGetPlanLimits(const PaDecodeConfig *config,
                                                  int64_t *budget,
                                                  int64_t *maxPartitions);

/* Writes the artifact as an AOT program, the directory `path` (what
 * paProgramWrite of pa-c/Runtime.h writes; configJson may be NULL): the
 * runtime library loads it without the compiler (paHipProgramLoadFile,
 * paCudaProgramLoadFile). False with `error`. */
PA_CAPI_EXPORTED bool paArtifactWriteProgram(PaArtifact artifact,
                                             const char *path,
                                             const char *configJson,
                                             PaString *error);

/* Compiles `config` for its chip (gfx942 or gfx950) and loads the code
 * object through libPARuntimeCAPI.so's paHipProgramLoad (pa-c/Hip.h): the
 * program is a runtime program (paHipProgramEnqueue, paHipProgramRun,
 * paHipProgramDestroy). Null with `error` when the configuration does not
 * compile or there is no HIP runtime or device (checked first). */
PA_CAPI_EXPORTED PaHipProgram paHipProgramCreate(const PaDecodeConfig *config,
                                                 PaString *error);

/* Checks `buffers` (host memory, as for paHostProgramRun) against `config`
 * (the one `program` was created from), then runs `program` on them with
 * paHipProgramRun: copied to the device, run, waited for, the outputs
 * (work_info, reduce_info, exp_sums, max_logits, tmp_out, output) copied
 * back. */
PA_CAPI_EXPORTED bool paHipProgramRunBuffers(PaHipProgram program,
                                             const PaDecodeConfig *config,
                                             const PaHostBuffers *buffers,
                                             PaString *error);

#ifdef __cplusplus
}
#endif

#endif /* PA_C_COMPILE_H */
