/*===- pa-c/Hip.h - C API: decode programs on AMD GPUs via HIP ---*- C -*-===*\
|*                                                                            *|
|* The HIP launcher (pa/Runtime/HipLauncher.h) in C. The HIP runtime         *|
|* (libamdhip64) is opened with dlopen on first use (PA_HIP_LIBRARY names   *|
|* another library); without it every call fails with the reason, nothing   *|
|* aborts.                                                                    *|
|*                                                                            *|
|*   PaHipProgram program = paHipProgramCreate(&config, &error);              *|
|*   // a serving engine, on device buffers (graph-capturable):              *|
|*   paHipProgramEnqueue(program, operands, count, stream, &error);           *|
|*   // or host buffers, copied in and out (synchronous):                    *|
|*   paHipProgramRun(program, &hostBuffers, &error);                          *|
|*   paHipProgramDestroy(program);                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_HIP_H
#define PA_C_HIP_H

#include "pa-c/Decode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when a HIP runtime with at least one GPU is there; otherwise false
 * and, when `reason` is not NULL, why (no library, no device). */
PA_CAPI_EXPORTED bool paHipRuntimeAvailable(PaString *reason);

typedef struct {
  void *ptr;
} PaHipProgram;

static inline bool paHipProgramIsNull(PaHipProgram program) {
  return program.ptr == NULL;
}

/* Compiles `config` for its chip (gfx942 or gfx950) and loads the code object
 * on the current HIP device. Null with `error` when the configuration does
 * not compile or there is no HIP runtime or device. */
PA_CAPI_EXPORTED PaHipProgram paHipProgramCreate(const PaDecodeConfig *config,
                                                 PaString *error);

/* Loads a code object compiled earlier (paArtifactGetCodeObject and
 * paArtifactGetMetadata of pa-c/Compile.h, or pa-compile's OUT.hsaco and
 * OUT.hsaco.json). Such a program has no configuration: it can be enqueued,
 * not run on host buffers. */
PA_CAPI_EXPORTED PaHipProgram paHipProgramLoad(const void *codeObject,
                                               size_t codeObjectSize,
                                               const char *metadataJson,
                                               PaString *error);

PA_CAPI_EXPORTED void paHipProgramDestroy(PaHipProgram program);

/* Launches plan -> decode -> reduce over `operands` (PaDeviceOperand of
 * pa-c/Support.h) on `stream` (a hipStream_t; NULL: the default stream).
 * Asynchronous and free of host readback, so it may be captured in a HIP
 * graph. False with `error` when an operand is missing or
 * does not fit, or a launch is refused; nothing is launched when an operand
 * is wrong. */
PA_CAPI_EXPORTED bool paHipProgramEnqueue(PaHipProgram program,
                                          const PaDeviceOperand *operands,
                                          size_t count, void *stream,
                                          PaString *error);

/* Checks `buffers` (host memory, as for paHostProgramRun), copies them to
 * the device, runs, waits and copies the outputs (work_info, reduce_info,
 * exp_sums, max_logits, tmp_out, output) back. For programs made by
 * paHipProgramCreate. */
PA_CAPI_EXPORTED bool paHipProgramRun(PaHipProgram program,
                                      const PaHostBuffers *buffers,
                                      PaString *error);

#ifdef __cplusplus
}
#endif

#endif /* PA_C_HIP_H */
