/*===- pa-c/Hip.h - C API: decode programs on AMD GPUs via HIP ---*- C -*-===*\
|*                                                                            *|
|* The HIP launcher (pa/Runtime/HipLauncher.h) in C, in                      *|
|* libPARuntimeCAPI.so (no MLIR, no LLVM, no ROCm needed to build or load).  *|
|* The HIP runtime (libamdhip64.so; the environment variable PA_HIP_LIBRARY *|
|* names another library) is opened with dlopen on first use; without it,   *|
|* or without a GPU, every call fails with the reason, nothing aborts. The  *|
|* same calls as pa-c/Cuda.h:                                               *|
|*                                                                            *|
|*   // code object + metadata: pa-compile --chip=gfx942 -o k.hsaco          *|
|*   // (k.hsaco, k.hsaco.json), paArtifactGetCodeObject / GetMetadata, or  *|
|*   // an AOT program: paHipProgramLoadFile("k.paprog", &error)             *|
|*   PaHipProgram program = paHipProgramLoad(hsaco, size, json, &error);     *|
|*   // a serving engine, on device buffers (graph-capturable):              *|
|*   paHipProgramEnqueue(program, operands, count, stream, &error);           *|
|*   // or host buffers, copied in and out (synchronous):                    *|
|*   paHipProgramRun(program, hostOperands, count, &error);                   *|
|*   paHipProgramDestroy(program);                                            *|
|*                                                                            *|
|* libPACAPI.so adds paHipProgramCreate (compile a configuration, then load *|
|* it with these calls; pa-c/Compile.h).                                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_HIP_H
#define PA_C_HIP_H

#include "pa-c/Runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when a HIP runtime with at least one GPU is there; otherwise false
 * and, when `reason` is not NULL, why ("no HIP runtime: cannot load the HIP
 * runtime libamdhip64.so: ...", "... sees no GPU"). */
PA_CAPI_EXPORTED bool paHipRuntimeAvailable(PaString *reason);

typedef struct {
  void *ptr;
} PaHipProgram;

static inline bool paHipProgramIsNull(PaHipProgram program) {
  return program.ptr == NULL;
}

/* Loads a decode program on the current HIP device: `codeObject` is an AMD
 * code object (.hsaco) of `codeObjectSize` bytes, `metadataJson` its
 * sidecar (kernels in launch order, grids, argument layout). The kernels
 * pa_plan, pa_decode and pa_reduce must all be there (checked before
 * anything is loaded). Null with `error` when there is no HIP runtime or
 * GPU, the sidecar is malformed or the runtime refuses the code object. */
PA_CAPI_EXPORTED PaHipProgram paHipProgramLoad(const void *codeObject,
                                               size_t codeObjectSize,
                                               const char *metadataJson,
                                               PaString *error);

/* Loads the AOT program at `path` (pa-compile --emit=program, or
 * paArtifactWriteProgram; format in docs/user-guide.md): it must hold an
 * AMD code object; of a multi-chip program, the one of the current GPU's
 * chip (its gcnArchName: "gfx942" of "gfx942:sramecc+:xnack-"). Null with
 * `error` naming the file and the problem (not a program, an unknown
 * format version, a program for another vendor, a multi-chip program
 * without this GPU's chip). */
PA_CAPI_EXPORTED PaHipProgram paHipProgramLoadFile(const char *path,
                                                   PaString *error);

/* The chip whose program paHipProgramLoadFile loads from `path`
 * (caller-freed `chip`): a single-chip program's chip, or the current
 * GPU's of a multi-chip one (whose program is PATH/CHIP). False with
 * `error` as paHipProgramLoadFile. */
PA_CAPI_EXPORTED bool paHipProgramChip(const char *path, PaString *chip,
                                       PaString *error);

PA_CAPI_EXPORTED void paHipProgramDestroy(PaHipProgram program);

/* Launches plan -> decode -> reduce over `operands` (device addresses, by pa
 * operand name) on `stream` (a hipStream_t; NULL: the default stream).
 * Asynchronous: no copy, no allocation, no synchronization, so it may be
 * captured in a HIP graph (hipStreamBeginCapture) and replayed after new
 * inputs were written to the same buffers. False with `error` when an
 * operand is missing or does not fit, or a launch is refused; nothing is
 * launched when an operand is wrong. The operands' contents are not
 * checked (see paDecodeCheckSequences). */
PA_CAPI_EXPORTED bool paHipProgramEnqueue(PaHipProgram program,
                                          const PaDeviceOperand *operands,
                                          size_t count, void *stream,
                                          PaString *error);

/* paHipProgramEnqueue of the kernels `kernels` selects (a mask of
 * PA_KERNEL_PLAN, PA_KERNEL_DECODE, PA_KERNEL_REDUCE; pa-c/Runtime.h), in
 * launch order: e.g. PA_KERNEL_PLAN once per decode step, then
 * PA_KERNEL_DECODE | PA_KERNEL_REDUCE per layer on the same workspace and
 * stream. Only the selected kernels' operands are needed. False with
 * `error` (nothing launched) when the mask is empty or has other bits. */
PA_CAPI_EXPORTED bool paHipProgramEnqueueKernels(
    PaHipProgram program, const PaDeviceOperand *operands, size_t count,
    uint32_t kernels, void *stream, PaString *error);

/* A launch of some kernels of a program bound to the caller's operand
 * array, for a hot path (a serving loop's per-layer decode): the array is
 * read where it is at every paHipLaunchEnqueue (addresses, sizes and
 * strides as they are then; names and count fixed at bind time), and the
 * kernels' parameters are refilled in buffers kept from the last enqueue
 * instead of built per call. The array and the program must outlive the
 * launch. */
typedef struct {
  void *ptr;
} PaHipLaunch;

/* Binds `count` `operands` and the kernel mask `kernels` (as
 * paHipProgramEnqueueKernels) of `program`; null with `error` when an
 * operand has no name or sizes, or the mask selects nothing the program
 * has. */
PA_CAPI_EXPORTED PaHipLaunch paHipProgramBind(PaHipProgram program,
                                              const PaDeviceOperand *operands,
                                              size_t count, uint32_t kernels,
                                              PaString *error);

/* paHipProgramEnqueueKernels of the bound operands (their current values)
 * and kernels on `stream`; the same results and errors. */
PA_CAPI_EXPORTED bool paHipLaunchEnqueue(PaHipLaunch launch, void *stream,
                                         PaString *error);

/* paHipLaunchEnqueue of some of the bound kernels: `kernels` must
 * select some of them and no other (a plan bound to all three launches
 * the plan kernel once per step and decode + reduce per layer through one
 * launch); false with `error` otherwise, nothing launched. */
PA_CAPI_EXPORTED bool paHipLaunchEnqueueKernels(PaHipLaunch launch,
                                                uint32_t kernels, void *stream,
                                                PaString *error);

/* paHipLaunchEnqueueKernels over `operands` in place of the bound
 * array: `count` operands with the bound array's names in the same order
 * (a copy of it with other addresses, sizes or strides), read where they
 * are during the call. So one launch serves many operand arrays of one
 * table (a plan per decode step, each with its own sequences and
 * workspace, made by copying an array: no bind, no parameter buffers of
 * its own); enqueues through one launch take turns (a mutex). False with
 * `error` naming the first operand that differs, nothing launched. */
PA_CAPI_EXPORTED bool paHipLaunchEnqueueOperands(
    PaHipLaunch launch, const PaDeviceOperand *operands, size_t count,
    uint32_t kernels, void *stream, PaString *error);

/* paHipLaunchEnqueueOperands (or, with NULL operands,
 * paHipLaunchEnqueueKernels) of the arguments in `call`, its `launch` a
 * PaHipLaunch's ptr: the same results and errors, the message in
 * call->error. False, with nothing to report, for a NULL call; false with
 * call->error when `kernels` does not fit 32 bits. */
PA_CAPI_EXPORTED bool paHipLaunchCall(PaLaunchCall *call);

PA_CAPI_EXPORTED void paHipLaunchDestroy(PaHipLaunch launch);

/* Copies `operands` (host memory) to fresh device buffers, enqueues on the
 * default stream, waits, copies the operands that are not read-only back
 * and frees the device buffers (also on failure). False with `error` naming
 * the operand or the call that failed. */
PA_CAPI_EXPORTED bool paHipProgramRun(PaHipProgram program,
                                      const PaHostOperand *operands,
                                      size_t count, PaString *error);

#ifdef __cplusplus
}
#endif

#endif /* PA_C_HIP_H */
