/*===- pa-c/Runtime.h - C API of the MLIR-free runtime library ---*- C -*-===*\
|*                                                                            *|
|* libPARuntimeCAPI.so runs decode programs compiled elsewhere (an AMD code *|
|* object, PTX or a cubin + the sidecar JSON of pa-compile or                *|
|* paArtifactGetMetadata, or an AOT program directory): it links neither     *|
|* MLIR nor LLVM, so it runs on a GPU machine where only the driver is       *|
|* installed. This header has what is not tied to a driver; pa-c/Hip.h and  *|
|* pa-c/Cuda.h the programs of each. No call aborts or prints; errors are   *|
|* caller-freed strings (paStringDestroy, exported by this library too).    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_RUNTIME_H
#define PA_C_RUNTIME_H

#include "pa-c/Decode.h" /* PaDecodeConfig (a plain struct) */
#include "pa-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of PaHostOperand this header describes ("PAOP", layout 1).
 * Every PaHostOperand starts with `abi` = PA_HOST_OPERAND_ABI; the library
 * refuses an operand whose `abi` differs (a caller compiled against
 * another pa-c/Runtime.h, whose fields lie elsewhere) by name instead of
 * reading it. A change of the struct's fields changes the value. */
#define PA_HOST_OPERAND_ABI UINT64_C(0x50414F5000000001)

/* One operand in host memory for a host-buffer run: an array at `data`
 * (row-major, or at `strides`) of `rank` sizes of `elementBytes`-byte elements, under its pa
 * operand name (as PaDeviceOperand). `readOnly` operands (the decode's
 * inputs) are copied to the device; the others are copied there and back,
 * so elements the kernels leave unwritten keep the caller's values. The
 * shapes are the spec's table for the program's configuration
 * (docs/user-guide.md); the runtime checks them against what the kernels
 * index (ranks, named operands), not against a configuration. */
typedef struct {
  uint64_t abi; /* PA_HOST_OPERAND_ABI */
  const char *name;
  void *data;
  int32_t rank;
  const int64_t *sizes;
  int64_t elementBytes;
  bool readOnly;
  /* NULL: row-major; else `rank` element strides, as PaDeviceOperand's
   * (the device copy holds the memory from the first element to the last;
   * the strides the kernels do not read are refused by name). */
  const int64_t *strides;
} PaHostOperand;

/* Checks the index inputs of a run before it reads memory they point into:
 * every context length C in [0, maxPagesPerSequence * pageSize] and every
 * page id a query row can see (block_tables[b][t / P] for the visible
 * tokens t: from max(0, C - (Q - 1) - W) with a sliding window W > 0, else
 * from 0) in [0, numPages). `contextLengths` holds `batch` entries,
 * `blockTables` batch * maxPagesPerSequence. False with `error` naming the
 * first bad entry ("block_tables[0][1] = -1 is not a page of the pool
 * [0, 4)"). The checks every executor of pa-mlir makes; the device-operand
 * entry points (paHipProgramEnqueue, paCudaProgramEnqueue) trust their
 * operands. */
PA_CAPI_EXPORTED bool paDecodeCheckSequences(
    int64_t pageSize, int64_t queryLength, int64_t slidingWindow,
    int64_t batch, int64_t numPages, int64_t maxPagesPerSequence,
    const int32_t *contextLengths, const int32_t *blockTables,
    PaString *error);

/* One operand of a decode program as paDecodeOperandTable describes it. */
typedef struct {
  const char *name;    /* "query", "key_cache", ... (static storage) */
  const char *pattern; /* the spec's shape, e.g. "[N, Hkv, D/x, P, x]" or
                          "nhd [N, P, Hkv, D]" (static storage) */
  int32_t rank;
  int64_t sizes[5];    /* `rank` of them, row-major */
  int64_t elementBytes;
  bool readOnly;       /* an input; the plan, decode or reduce writes the
                          others */
} PaOperandShape;

/* The most operands a decode program has (PaOperandShape entries
 * paDecodeOperandTable may write). */
#define PA_MAX_DECODE_OPERANDS 16

/* The operand table of a run of `config` for `batch` sequences, a pool of
 * `numPages` pages, block tables of `maxPagesPerSequence` columns and
 * `planCapacity` plan slots (what the compiled program's plan capacity
 * says for `batch`): every operand of @pa_decode in argument order
 * (optional ones only when the configuration has them), written to
 * `operands` (PA_MAX_DECODE_OPERANDS entries), their number to `count`.
 * The shapes depend on head counts, D, P, Q, kvType, keyLayout, vLayout,
 * kvLayout, scaleMode, hasSinks, hasAlibi and returnLse; the other fields
 * are not read. The one table of them: the compiler's module signature,
 * its executors and buffer checks use the same. False with `error` for a
 * NULL argument, a head count, D, P or Q below 1, Hq not a multiple of Hkv,
 * a negative dim, B * Q or Q * Hq / Hkv at 2^63 or more, or an enum field
 * none of its values. */
PA_CAPI_EXPORTED bool paDecodeOperandTable(const PaDecodeConfig *config,
                                           int64_t batch, int64_t numPages,
                                           int64_t maxPagesPerSequence,
                                           int64_t planCapacity,
                                           PaOperandShape *operands,
                                           size_t *count, PaString *error);

/* The kernels of a decode program, for paCudaProgramEnqueueKernels and
 * paHipProgramEnqueueKernels: a mask of them. The plan kernel reads the
 * block tables and context lengths into the work lists of the workspace
 * (work_info, reduce_info); decode and reduce read those lists, so a step
 * launches the plan once and decode + reduce once per layer. */
#define PA_KERNEL_PLAN 1u
#define PA_KERNEL_DECODE 2u
#define PA_KERNEL_REDUCE 4u
#define PA_KERNELS_ALL (PA_KERNEL_PLAN | PA_KERNEL_DECODE | PA_KERNEL_REDUCE)

/* One enqueue of a bound launch held in memory (paCudaLaunchCall,
 * paHipLaunchCall): the arguments of paCudaLaunchEnqueueOperands /
 * paHipLaunchEnqueueOperands as fields the caller fills in place between
 * calls, so that a binding which converts every argument of a call (Python's
 * ctypes: a few hundred nanoseconds each) passes one pointer per enqueue. */
typedef struct {
  void *launch;                    /* the PaCudaLaunch's / PaHipLaunch's ptr */
  const PaDeviceOperand *operands; /* a copy of the bound array, or NULL:
                                      the bound array itself */
  uint64_t count;                  /* operands in `operands` */
  uint64_t kernels;                /* a mask of PA_KERNEL_* */
  void *stream;                    /* the stream to enqueue on */
  PaString error; /* cleared by each call; a failed call's message, which
                     the caller frees with paStringDestroy */
} PaLaunchCall;

/* The version of the AOT program format this library writes and reads
 * (2: the kernels read the query at its PaDeviceOperand strides; version 1
 * programs read it packed and are refused. 3: so are the page strides of
 * nhd / hnd caches; version 2 programs read them contiguous and are
 * refused. 4: each kernel's sidecar lists the strides it reads at run time
 * ("dynamic_strides"), and an enqueue refuses any other stride that is not
 * the row-major stride of the operand's own sizes, naming the operand;
 * version 3 programs have no list and are refused). Sidecars also list the strides and offset a strided operand
 * type fixes ("static_strides", "static_offsets"), which an enqueue
 * compares instead of the row-major ones, without a bump: a version 4
 * program without them is read as before (its fixed strides as row-major,
 * its offsets unchecked). Likewise the sizes each operand's type fixes
 * ("static_sizes"), which an enqueue compares with the operand's sizes,
 * naming the operand and dim: a version 4 program without them is read as
 * before (sizes unchecked: an operand of other sizes is read at the
 * compiled shape; recompile it). */
#define PA_PROGRAM_FORMAT_VERSION 4

/* Writes an AOT program, the directory `path` (created when missing; a
 * program there is replaced): `codeObject` (`codeObjectSize` bytes) in
 * `codeFormat` ("hsaco" for AMD chips, "ptx" or "cubin" for NVIDIA ones)
 * for `chip`, its sidecar `metadataJson`, and `configJson` (a JSON object
 * describing the configuration compiled, kept for the program's users;
 * NULL: none). False with `error` for a bad argument or a file that cannot
 * be written. paHipProgramLoadFile / paCudaProgramLoadFile load it. */
PA_CAPI_EXPORTED bool paProgramWrite(const char *path, const char *chip,
                                     const char *codeFormat,
                                     const void *codeObject,
                                     size_t codeObjectSize,
                                     const char *metadataJson,
                                     const char *configJson, PaString *error);

/* Writes a program of one chip into the multi-chip AOT program `path` (a
 * directory created when missing; the program of each chip is the
 * single-chip program PATH/CHIP, and PATH/program.json lists the chips):
 * the arguments as paProgramWrite's; a program of that chip is replaced.
 * False with `error` when `path` holds a single-chip program, or as
 * paProgramWrite. paHipProgramLoadFile / paCudaProgramLoadFile load the
 * program of the GPU's chip. */
PA_CAPI_EXPORTED bool paProgramWriteChip(const char *path, const char *chip,
                                         const char *codeFormat,
                                         const void *codeObject,
                                         size_t codeObjectSize,
                                         const char *metadataJson,
                                         const char *configJson,
                                         PaString *error);

/* The chips of the AOT program at `path`, space-separated (caller-freed
 * `chips`): those of a multi-chip program (`multiChip` set true), else the
 * one chip of a single-chip program. False with `error` as
 * paProgramDescribe. */
PA_CAPI_EXPORTED bool paProgramChips(const char *path, PaString *chips,
                                     bool *multiChip, PaString *error);

/* Reads the single-chip AOT program at `path` and describes it: its chip,
 * code format and recorded configuration (an empty string when none), each returned
 * when not NULL (caller-freed). False with `error` as the loaders report
 * it (not a program, another format version, a truncated code object). */
PA_CAPI_EXPORTED bool paProgramDescribe(const char *path, PaString *chip,
                                        PaString *codeFormat,
                                        PaString *configJson,
                                        PaString *error);

#ifdef __cplusplus
}
#endif

#endif /* PA_C_RUNTIME_H */
