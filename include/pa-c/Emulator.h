/*===- pa-c/Emulator.h - C API: decode on the wave64 emulator -----*- C -*-===*\
|*                                                                            *|
|* pa::EmulatedProgram (pa/API/EmulatedProgram.h) in C: the AMD kernels of a  *|
|* configuration, as pa-lower-to-rocdl builds them for its chip, executed on  *|
|* the CPU by the wave64 emulator, which checks every access, LDS race and    *|
|* barrier. No GPU, no ROCm.                                                  *|
|*                                                                            *|
|*   config.chip = "gfx942";                                                  *|
|*   PaEmulatedProgram program = paEmulatedProgramCreate(&config, &error);    *|
|*   buffers.capacity = paEmulatedProgramPlanCapacity(program, batch);        *|
|*   paEmulatedProgramRun(program, &buffers, &error);                         *|
|*   paEmulatedProgramDestroy(program);                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_EMULATOR_H
#define PA_C_EMULATOR_H

#include "pa-c/Decode.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  void *ptr;
} PaEmulatedProgram;

static inline bool paEmulatedProgramIsNull(PaEmulatedProgram program) {
  return program.ptr == NULL;
}

/* Lowers `config` for its chip (gfx942 or gfx950; NULL chip: gfx950) and
 * prepares the kernels for the emulator. Null with `error` when the
 * configuration does not compile for the chip. */
PA_CAPI_EXPORTED PaEmulatedProgram
paEmulatedProgramCreate(const PaDecodeConfig *config, PaString *error);

PA_CAPI_EXPORTED void paEmulatedProgramDestroy(PaEmulatedProgram program);

/* Plan slots for `batch` sequences (as paHostProgramPlanCapacity). */
PA_CAPI_EXPORTED int64_t
paEmulatedProgramPlanCapacity(PaEmulatedProgram program, int64_t batch);

/* Runs plan, decode and reduce on host buffers (as paHostProgramRun). False
 * with `error` for buffers that do not fit and for anything the emulator
 * detects (out-of-bounds access, LDS race, barrier misuse); outputs may then
 * be partly written. */
PA_CAPI_EXPORTED bool paEmulatedProgramRun(PaEmulatedProgram program,
                                           const PaHostBuffers *buffers,
                                           PaString *error);

#ifdef __cplusplus
}
#endif

#endif /* PA_C_EMULATOR_H */
