/*===- pa-c/Cuda.h - C API: decode programs on NVIDIA GPUs --------*- C -*-===*\
|*                                                                            *|
|* The CUDA launcher (pa/Runtime/CudaLauncher.h) in C, in                    *|
|* libPARuntimeCAPI.so (no MLIR, no LLVM, no CUDA toolkit). The CUDA driver  *|
|* (libcuda.so.1; the environment variable PA_CUDA_LIBRARY names another    *|
|* library) is opened with dlopen on first use; without it, or without a    *|
|* GPU, every call fails with the reason, nothing aborts.                   *|
|*                                                                            *|
|*   // image + metadata: pa-compile --chip=sm_90a -o k.ptx (k.ptx,         *|
|*   // k.ptx.json), or paArtifactGetCodeObject / paArtifactGetMetadata     *|
|*   PaCudaProgram program = paCudaProgramLoad(ptx, size, json, &error);     *|
|*   // a serving engine, on device buffers (graph-capturable):              *|
|*   paCudaProgramEnqueue(program, operands, count, stream, &error);          *|
|*   // or host buffers, copied in and out (synchronous):                    *|
|*   paCudaProgramRun(program, hostOperands, count, &error);                  *|
|*   paCudaProgramDestroy(program);                                           *|
|*                                                                            *|
|* Programs live in the CUDA context current when they are loaded (e.g.     *|
|* PyTorch's), else device 0's primary context, which is then made current. *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_CUDA_H
#define PA_C_CUDA_H

#include "pa-c/Runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when the CUDA driver loads and sees at least one GPU; otherwise
 * false and, when `reason` is not NULL, why ("the CUDA driver is not
 * available: libcuda.so.1: cannot open shared object file ...", "... sees
 * no GPU"). */
PA_CAPI_EXPORTED bool paCudaRuntimeAvailable(PaString *reason);

typedef struct {
  void *ptr;
} PaCudaProgram;

static inline bool paCudaProgramIsNull(PaCudaProgram program) {
  return program.ptr == NULL;
}

/* Loads a decode program: `image` is PTX text (JIT-compiled by the driver)
 * or a cubin of `imageSize` bytes, `metadataJson` its sidecar (kernels in
 * launch order, grids, parameter layout). The program's kernels pa_plan,
 * pa_decode and pa_reduce must all be there. Null with `error` (the
 * driver's JIT log included) when there is no driver or GPU, the sidecar is
 * malformed or the driver refuses the image. */
PA_CAPI_EXPORTED PaCudaProgram paCudaProgramLoad(const void *image,
                                                 size_t imageSize,
                                                 const char *metadataJson,
                                                 PaString *error);

/* Loads the AOT program at `path` (pa-compile --emit=program, or
 * paArtifactWriteProgram; format in docs/user-guide.md): it must hold PTX or
 * a cubin; of a multi-chip program, its one NVIDIA (sm_*) program. Null
 * with `error` naming the file and the problem (not a program, an unknown
 * format version, a program for another vendor, a multi-chip program
 * without an NVIDIA program or with several). */
PA_CAPI_EXPORTED PaCudaProgram paCudaProgramLoadFile(const char *path,
                                                     PaString *error);

/* The chip whose program paCudaProgramLoadFile loads from `path`
 * (caller-freed `chip`): a single-chip program's chip, or the NVIDIA chip
 * of a multi-chip one (whose program is PATH/CHIP). False with `error` as
 * paCudaProgramLoadFile. */
PA_CAPI_EXPORTED bool paCudaProgramChip(const char *path, PaString *chip,
                                        PaString *error);

PA_CAPI_EXPORTED void paCudaProgramDestroy(PaCudaProgram program);

/* Launches plan -> decode -> reduce over `operands` (device addresses, by pa
 * operand name) on `stream` (a CUstream or cudaStream_t; NULL: the default
 * stream). Asynchronous and free of host readback, so it may be captured
 * in a CUDA graph and replayed after new inputs were written to the same
 * buffers. False with `error` when an operand is missing or does not fit,
 * or a launch is refused; nothing is launched when an operand is wrong.
 * The operands' contents are not checked (see paDecodeCheckSequences). */
PA_CAPI_EXPORTED bool paCudaProgramEnqueue(PaCudaProgram program,
                                           const PaDeviceOperand *operands,
                                           size_t count, void *stream,
                                           PaString *error);

/* paCudaProgramEnqueue of the kernels `kernels` selects (a mask of
 * PA_KERNEL_PLAN, PA_KERNEL_DECODE, PA_KERNEL_REDUCE; pa-c/Runtime.h), in
 * launch order: e.g. PA_KERNEL_PLAN once per decode step, then
 * PA_KERNEL_DECODE | PA_KERNEL_REDUCE per layer on the same workspace and
 * stream. Only the selected kernels' operands are needed. False with
 * `error` (nothing launched) when the mask is empty or has other bits. */
PA_CAPI_EXPORTED bool paCudaProgramEnqueueKernels(
    PaCudaProgram program, const PaDeviceOperand *operands, size_t count,
    uint32_t kernels, void *stream, PaString *error);

/* A launch of some kernels of a program bound to the caller's operand
 * array, for a hot path (a serving loop's per-layer decode): the array is
 * read where it is at every paCudaLaunchEnqueue (addresses, sizes and
 * strides as they are then; names and count fixed at bind time), and the
 * kernels' parameters are refilled in buffers kept from the last enqueue
 * instead of built per call. The array and the program must outlive the
 * launch. */
typedef struct {
  void *ptr;
} PaCudaLaunch;

/* Binds `count` `operands` and the kernel mask `kernels` (as
 * paCudaProgramEnqueueKernels) of `program`; null with `error` when an
 * operand has no name or sizes, or the mask selects nothing the program
 * has. */
PA_CAPI_EXPORTED PaCudaLaunch paCudaProgramBind(PaCudaProgram program,
                                              const PaDeviceOperand *operands,
                                              size_t count, uint32_t kernels,
                                              PaString *error);

/* paCudaProgramEnqueueKernels of the bound operands (their current values)
 * and kernels on `stream`; the same results and errors. */
PA_CAPI_EXPORTED bool paCudaLaunchEnqueue(PaCudaLaunch launch, void *stream,
                                         PaString *error);

/* paCudaLaunchEnqueue of some of the bound kernels: `kernels` must
 * select some of them and no other (a plan bound to all three launches
 * the plan kernel once per step and decode + reduce per layer through one
 * launch); false with `error` otherwise, nothing launched. */
PA_CAPI_EXPORTED bool paCudaLaunchEnqueueKernels(PaCudaLaunch launch,
                                                 uint32_t kernels, void *stream,
                                                 PaString *error);

/* paCudaLaunchEnqueueKernels over `operands` in place of the bound
 * array: `count` operands with the bound array's names in the same order
 * (a copy of it with other addresses, sizes or strides), read where they
 * are during the call. So one launch serves many operand arrays of one
 * table (a plan per decode step, each with its own sequences and
 * workspace, made by copying an array: no bind, no parameter buffers of
 * its own); enqueues through one launch take turns (a mutex). False with
 * `error` naming the first operand that differs, nothing launched. */
PA_CAPI_EXPORTED bool paCudaLaunchEnqueueOperands(
    PaCudaLaunch launch, const PaDeviceOperand *operands, size_t count,
    uint32_t kernels, void *stream, PaString *error);

/* paCudaLaunchEnqueueOperands (or, with NULL operands,
 * paCudaLaunchEnqueueKernels) of the arguments in `call`, its `launch` a
 * PaCudaLaunch's ptr: the same results and errors, the message in
 * call->error. False, with nothing to report, for a NULL call; false with
 * call->error when `kernels` does not fit 32 bits. */
PA_CAPI_EXPORTED bool paCudaLaunchCall(PaLaunchCall *call);

PA_CAPI_EXPORTED void paCudaLaunchDestroy(PaCudaLaunch launch);

/* Copies `operands` (host memory) to fresh device buffers, enqueues on the
 * default stream, waits, copies the operands that are not read-only back
 * and frees the device buffers (also on failure). False with `error` naming
 * the operand or the call that failed. */
PA_CAPI_EXPORTED bool paCudaProgramRun(PaCudaProgram program,
                                       const PaHostOperand *operands,
                                       size_t count, PaString *error);

#ifdef __cplusplus
}
#endif

#endif /* PA_C_CUDA_H */
