/*===- pa-c/ISAExecutor.h - C API: the instruction executor -*- C -*-===*\
|*                                                                            *|
|* pa::ISAExecutedProgram (pa/API/ISAExecutedProgram.h) in C: the code object *|
|* a configuration ships for its AMD chip (the .hsaco the HIP launcher       *|
|* loads), executed instruction by instruction on the CPU by the             *|
|* instruction-level executor, which checks every memory and LDS access, LDS *|
|* races, wait-count hazards and reads of never-written registers. No GPU,   *|
|* no ROCm.                                                                  *|
|*                                                                            *|
|*   config.chip = "gfx942";                                                  *|
|*   PaISAProgram program = paISAProgramCreate(&config, &error);              *|
|*   buffers.capacity = paISAProgramPlanCapacity(program, batch);             *|
|*   paISAProgramRun(program, &buffers, &error);                              *|
|*   paISAProgramDestroy(program);                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_ISAEXECUTOR_H
#define PA_C_ISAEXECUTOR_H

#include "pa-c/Decode.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  void *ptr;
} PaISAProgram;

static inline bool paISAProgramIsNull(PaISAProgram program) {
  return program.ptr == NULL;
}

/* Compiles `config` for its chip (gfx942 or gfx950; NULL chip: gfx950) and
 * loads the code object into the executor. Null with `error` when the
 * configuration does not compile for the chip or the chip is no AMD one. */
PA_CAPI_EXPORTED PaISAProgram paISAProgramCreate(const PaDecodeConfig *config,
                                                 PaString *error);

PA_CAPI_EXPORTED void paISAProgramDestroy(PaISAProgram program);

/* Plan slots for `batch` sequences (as paHostProgramPlanCapacity). */
PA_CAPI_EXPORTED int64_t paISAProgramPlanCapacity(PaISAProgram program,
                                                  int64_t batch);

/* Runs plan, decode and reduce on host buffers (as paHostProgramRun). False
 * with `error` for buffers that do not fit and for anything the executor
 * detects; outputs may then be partly written. */
PA_CAPI_EXPORTED bool paISAProgramRun(PaISAProgram program,
                                      const PaHostBuffers *buffers,
                                      PaString *error);

#ifdef __cplusplus
}
#endif

#endif /* PA_C_ISAEXECUTOR_H */
