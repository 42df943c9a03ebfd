/*===- cuda_capi_test.c - the runtime C API (pa-c/Cuda.h), from C ---------===*\
|*                                                                            *|
|*   pa-cuda-capi-test none|fake|no-device KERNELS.ptx KERNELS.ptx.json       *|
|*                     PROGRAM.paprog AMD-PROGRAM.paprog                      *|
|*                                                                            *|
|* Linked against libPARuntimeCAPI.so only (no MLIR). KERNELS is            *|
|* Inputs/decode-small.mlir compiled by pa-compile --chip=sm_90a; PROGRAM  *|
|* the same as an AOT program, AMD-PROGRAM one for gfx950.                  *|
|*   none       no CUDA driver here: every call fails cleanly with the      *|
|*              reason (on a machine with a GPU these checks are skipped).   *|
|*   fake       PA_CUDA_LIBRARY names libpa-fake-cuda.so: loading, the      *|
|*              host-buffer run (allocations, copies in and back, launches, *|
|*              parameters, frees) and its failures, enqueue on a stream.    *|
|*   no-device  the fake with FAKE_CUDA_DEVICES=0: a driver without a GPU.  *|
|* Prints one line per check group; exits non-zero on the first failure.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#include "pa-c/Cuda.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "SmallDecode.h"
#include "TestHarness.h"

static bool contains(PaString string, const char *needle) {
  return string.data && strstr(string.data, needle) != NULL;
}

/* Whether a run of `operands` fails with an error that names every needle
 * (a NULL-terminated list); the error goes to stderr where it does not. */
static bool runFailsNaming(PaCudaProgram program, const PaHostOperand *operands,
                           int count, ...) {
  PaString error;
  bool failed = !paCudaProgramRun(program, operands, count, &error);
  bool named = failed;
  va_list needles;
  va_start(needles, count);
  for (const char *needle; named && (needle = va_arg(needles, const char *));)
    named = contains(error, needle);
  va_end(needles);
  if (!named)
    fprintf(stderr, "%s: %s\n", failed ? "error" : "ran without an error",
            error.data ? error.data : "");
  paStringDestroy(error);
  return named;
}

/*===----------------------------------------------------------------------===*/
/* Without a driver                                                           */
/*===----------------------------------------------------------------------===*/

static void testWithoutDriver(const char *ptx, size_t ptxSize,
                              const char *json, const char *expected) {
  PaString reason;
  if (paCudaRuntimeAvailable(&reason)) {
    printf("ok no-driver checks skipped: a CUDA driver and GPU are here\n");
    return;
  }
  CHECK(contains(reason, expected), "the reason names the driver: %s",
        reason.data);
  printf("ok unavailable: %s\n", reason.data);

  PaString error;
  PaCudaProgram program = paCudaProgramLoad(ptx, ptxSize, json, &error);
  CHECK(paCudaProgramIsNull(program) && contains(error, expected),
        "load fails with the reason: %s", error.data);
  paStringDestroy(error);

  /* NULL everywhere: errors, no crash. */
  CHECK(!paCudaRuntimeAvailable(NULL), "NULL reason");
  CHECK(paCudaProgramIsNull(paCudaProgramLoad(NULL, 0, NULL, NULL)),
        "NULL image, NULL error");
  program = paCudaProgramLoad(NULL, 0, json, &error);
  CHECK(paCudaProgramIsNull(program) &&
            contains(error, "needs a PTX or cubin image"),
        "%s", error.data);
  paStringDestroy(error);
  PaCudaProgram none = {NULL};
  CHECK(!paCudaProgramEnqueue(none, NULL, 0, NULL, &error) &&
            contains(error, "needs a program"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paCudaProgramRun(none, NULL, 0, &error) &&
            contains(error, "needs a program"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paCudaProgramRun(none, NULL, 0, NULL), "NULL error");
  paCudaProgramDestroy(none);
  paStringDestroy(reason);
  printf("ok every call fails cleanly without a driver\n");
}

/*===----------------------------------------------------------------------===*/
/* Through the fake driver                                                    */
/*===----------------------------------------------------------------------===*/

typedef void (*LaunchHook)(const char *, const unsigned char *, size_t,
                           void *);

static struct {
  void (*reset)(void);
  int (*launchCount)(void);
  const char *(*launch)(int, unsigned *, unsigned *, unsigned *, void **,
                        const unsigned char **, size_t *);
  void (*counters)(int *);
  void (*failAfter)(const char *, int, int);
  void (*setHook)(LaunchHook, void *);
} fake;

enum { Loads, Unloads, Allocations, Frees, Live, ToDevice, ToHost, Syncs };

static void bindFake(void) {
  const char *path = getenv("PA_CUDA_LIBRARY");
  CHECK(path != NULL, "fake mode needs PA_CUDA_LIBRARY");
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CHECK(library != NULL, "%s", dlerror());
  *(void **)&fake.reset = dlsym(library, "fakeCudaReset");
  *(void **)&fake.launchCount = dlsym(library, "fakeCudaLaunchCount");
  *(void **)&fake.launch = dlsym(library, "fakeCudaLaunch");
  *(void **)&fake.counters = dlsym(library, "fakeCudaCounters");
  *(void **)&fake.failAfter = dlsym(library, "fakeCudaFailAfter");
  *(void **)&fake.setHook = dlsym(library, "fakeCudaSetLaunchHook");
  CHECK(fake.reset && fake.launchCount && fake.launch && fake.counters &&
            fake.failAfter && fake.setHook,
        "the fake's record functions");
}

static int counter(int which) {
  int counts[8];
  fake.counters(counts);
  return counts[which];
}

/* The byte offset of parameter `meaning` of `kernel` in the sidecar. */
static size_t paramOffset(const char *json, const char *kernel,
                          const char *meaning) {
  char key[128];
  snprintf(key, sizeof key, "\"name\": \"%s\"", kernel);
  const char *at = strstr(json, key);
  CHECK(at != NULL, "kernel %s in the sidecar", kernel);
  snprintf(key, sizeof key, "\"meaning\": \"%s\"", meaning);
  const char *found = strstr(at, key);
  CHECK(found != NULL, "%s of %s in the sidecar", meaning, kernel);
  const char *offset = found;
  while (offset > at && strncmp(offset, "\"offset\":", 9) != 0)
    --offset;
  CHECK(offset > at, "the offset of %s", meaning);
  return (size_t)strtoull(offset + 9, NULL, 10);
}

static uint64_t paramValue(const unsigned char *params, size_t offset) {
  uint64_t value;
  memcpy(&value, params + offset, sizeof value);
  return value;
}

/* What the launch hook sees and does. */
static struct {
  const Buffers *host;
  size_t queryAt, keyAt, outputAt;
  int decodeChecked, reduceWritten;
} hook;

static void onLaunch(const char *name, const unsigned char *params,
                     size_t bytes, void *user) {
  (void)bytes;
  (void)user;
  if (strcmp(name, "pa_decode") == 0) {
    /* The inputs are on the device, where the parameters point. */
    const void *query = (const void *)(uintptr_t)paramValue(params,
                                                            hook.queryAt);
    const void *keys = (const void *)(uintptr_t)paramValue(params, hook.keyAt);
    CHECK(query != hook.host->query, "a device copy, not the host buffer");
    CHECK(memcmp(query, hook.host->query, sizeof hook.host->query) == 0,
          "query copied in");
    CHECK(memcmp(keys, hook.host->keyCache, sizeof hook.host->keyCache) == 0,
          "key cache copied in");
    ++hook.decodeChecked;
  }
  if (strcmp(name, "pa_reduce") == 0) {
    /* The output holds the caller's values (copied in); the "kernel"
     * writes its first element. */
    uint16_t *output = (uint16_t *)(uintptr_t)paramValue(params, hook.outputAt);
    CHECK(output[0] == 0xA5A5 && output[1] == 0xA5A5, "output copied in");
    output[0] = 0x3F80;
    ++hook.reduceWritten;
  }
}

static void testLoadErrors(const char *ptx, size_t ptxSize, const char *json) {
  PaString error;
  const char garbage[] = "\x7f" "ELF not PTX";
  PaCudaProgram program =
      paCudaProgramLoad(garbage, sizeof garbage, json, &error);
  CHECK(paCudaProgramIsNull(program) &&
            contains(error, "cuModuleLoadDataEx") &&
            contains(error, "not PTX"),
        "the JIT log is in the error: %s", error.data);
  paStringDestroy(error);

  program = paCudaProgramLoad(ptx, ptxSize, "{\"kernels\": 3}", &error);
  CHECK(paCudaProgramIsNull(program) && contains(error, "kernels"), "%s",
        error.data);
  paStringDestroy(error);

  /* A sidecar without the reduce kernel is not a decode program. */
  char *partial = strdup(json);
  char *reduce = strstr(partial, "\"name\": \"pa_reduce\"");
  CHECK(reduce != NULL, "pa_reduce in the sidecar");
  memcpy(reduce + 9, "pa_other", 8);
  program = paCudaProgramLoad(ptx, ptxSize, partial, &error);
  CHECK(paCudaProgramIsNull(program) &&
            contains(error, "pa_plan, pa_decode and pa_reduce once each"),
        "%s", error.data);
  paStringDestroy(error);
  free(partial);
  CHECK(counter(Loads) == 0, "nothing loaded for a bad sidecar");
  printf("ok load errors name their cause\n");
}

static void testHostRun(PaCudaProgram program, const char *json) {
  static Buffers b;
  PaHostOperand operands[kOperands];
  fillBuffers(&b);
  size_t count = hostOperands(&b, operands);
  hook.host = &b;
  hook.queryAt = paramOffset(json, "pa_decode", "query.aligned_ptr");
  hook.keyAt = paramOffset(json, "pa_decode", "key_cache.aligned_ptr");
  hook.outputAt = paramOffset(json, "pa_reduce", "output.aligned_ptr");
  fake.reset();
  fake.setHook(onLaunch, NULL);

  PaString error;
  CHECK(paCudaProgramRun(program, operands, count, &error), "%s", error.data);
  CHECK(hook.decodeChecked == 1 && hook.reduceWritten == 1, "hook ran");
  CHECK(counter(Allocations) == kOperands && counter(Frees) == kOperands &&
            counter(Live) == 0,
        "one buffer per operand, all freed");
  CHECK(counter(ToDevice) == kOperands, "every operand copied in: %d",
        counter(ToDevice));
  CHECK(counter(ToHost) == 6, "the 6 outputs copied back: %d",
        counter(ToHost));
  CHECK(counter(Syncs) == 1, "one synchronization");
  CHECK(b.output[0] == 0x3F80, "the device's output came back");
  CHECK(b.output[1] == 0xA5A5, "unwritten elements keep the caller's value");

  /* The launches: plan, decode, reduce on the default stream. */
  const char *names[] = {"pa_plan", "pa_decode", "pa_reduce"};
  unsigned grids[3][3] = {{1, 1, 1}, {kCapacity, 1, 1}, {kBatch, 1, 1}};
  CHECK(fake.launchCount() == 3, "%d launches", fake.launchCount());
  for (int i = 0; i < 3; ++i) {
    unsigned grid[3], block[3], shared;
    void *stream;
    const unsigned char *params;
    size_t bytes;
    const char *name =
        fake.launch(i, grid, block, &shared, &stream, &params, &bytes);
    CHECK(name && strcmp(name, names[i]) == 0, "launch %d is %s", i, name);
    CHECK(memcmp(grid, grids[i], sizeof grid) == 0,
          "%s grid (%u, %u, %u)", name, grid[0], grid[1], grid[2]);
    CHECK(block[0] == 128 && block[1] == 1 && block[2] == 1, "%s block",
          name);
    CHECK(stream == NULL, "the default stream");
  }
  fake.setHook(NULL, NULL);
  printf("ok host-buffer run: %d allocations, copies in and back, 3 launches, "
         "all freed\n",
         kOperands);

  /* A missing operand is named and nothing is launched or kept. */
  fake.reset();
  CHECK(runFailsNaming(program, operands, count - 1,
                       "needs operand 'output', which was not given", NULL),
        "the error above");
  CHECK(fake.launchCount() == 0 && counter(Live) == 0,
        "no launch, nothing leaked");

  /* Operands of a caller compiled against the header before the `abi`
   * field (starting with `name`; in a union with the current array, which
   * is longer) are refused by the marker before anything is read or
   * allocated, not read one field off. */
  {
    typedef struct {
      const char *name;
      void *data;
      int32_t rank;
      const int64_t *sizes;
      int64_t elementBytes;
      bool readOnly;
      const int64_t *strides;
    } OldHostOperand;
    static union {
      OldHostOperand old[kOperands];
      PaHostOperand current[kOperands];
    } caller;
    for (int i = 0; i < kOperands; ++i)
      caller.old[i] = (OldHostOperand){
          operands[i].name,         operands[i].data,
          operands[i].rank,         operands[i].sizes,
          operands[i].elementBytes, operands[i].readOnly,
          operands[i].strides};
    fake.reset();
    CHECK(runFailsNaming(program, caller.current, count,
                         "operand 0: PaHostOperand.abi is 0x",
                         "not this library's PA_HOST_OPERAND_ABI "
                         "0x50414f5000000001",
                         "another pa-c/Runtime.h", NULL),
          "the error above");
    CHECK(counter(Allocations) == 0 && fake.launchCount() == 0,
          "nothing allocated or launched for another layout");
  }

  /* Bad descriptors are refused before anything is allocated. */
  PaHostOperand bad[kOperands];
  memcpy(bad, operands, sizeof bad);
  bad[3].name = "query";
  CHECK(runFailsNaming(program, bad, count, "operand 'query' is given twice",
                       NULL),
        "the error above");
  memcpy(bad, operands, sizeof bad);
  bad[0].data = NULL;
  CHECK(runFailsNaming(program, bad, count,
                       "operand 'query' has 2048 bytes but no data", NULL),
        "the error above");
  memcpy(bad, operands, sizeof bad);
  bad[5].abi = 0; /* one struct filled without the marker */
  CHECK(runFailsNaming(program, bad, count,
                       "operand 5: PaHostOperand.abi is "
                       "0x0000000000000000",
                       NULL),
        "the error above");
  memcpy(bad, operands, sizeof bad);
  bad[2].rank = 2; /* value_cache as [2, 1]: the kernels index 4 dims */
  CHECK(runFailsNaming(program, bad, count, "value_cache", NULL),
        "the error above");
  CHECK(counter(Allocations) == counter(Frees) && counter(Live) == 0,
        "bad descriptors leak nothing");

  /* Failures part way free everything allocated so far. */
  fake.reset();
  fake.failAfter("cuMemcpyHtoD_v2", 3, 1);
  CHECK(runFailsNaming(program, operands, count, "cuMemcpyHtoD failed",
                       "(operand 'block_tables')", NULL),
        "the error above");
  CHECK(counter(Allocations) == 4 && counter(Live) == 0,
        "the 4 buffers allocated were freed");
  fake.reset();
  fake.failAfter("cuMemAlloc_v2", 5, 2);
  CHECK(runFailsNaming(program, operands, count, "cuMemAlloc failed",
                       "out of memory", NULL),
        "the error above");
  CHECK(counter(Live) == 0, "nothing leaked after a failed allocation");
  fake.reset();
  /* The fake fails either launch entry point for "cuLaunchKernel"; the
     decode waits for its predecessor, so it is a programmatic launch. */
  fake.failAfter("cuLaunchKernel", 1, 1);
  CHECK(runFailsNaming(program, operands, count, "cuLaunchKernelEx failed",
                       "'pa_decode'", NULL),
        "the error above");
  CHECK(counter(Live) == 0 && counter(ToHost) == 0,
        "nothing copied back or leaked after a refused launch");
  fake.reset();
  fake.failAfter("cuStreamSynchronize", 0, 1);
  CHECK(runFailsNaming(program, operands, count, "cuStreamSynchronize failed",
                       NULL),
        "the error above");
  CHECK(counter(Live) == 0, "nothing leaked after a failed wait");
  printf("ok missing operands, bad descriptors and failing calls: errors "
         "that name them, nothing leaked\n");
}

static void testEnqueue(PaCudaProgram program) {
  /* Device addresses are not touched by an enqueue. */
  PaDeviceOperand operands[kOperands];
  deviceOperands(operands);
  void *stream = (void *)(uintptr_t)0x5000;
  fake.reset();
  PaString error;
  CHECK(paCudaProgramEnqueue(program, operands, kOperands, stream, &error),
        "%s", error.data);
  CHECK(fake.launchCount() == 3, "three launches");
  for (int i = 0; i < 3; ++i) {
    unsigned grid[3], block[3], shared;
    void *on;
    const unsigned char *params;
    size_t bytes;
    fake.launch(i, grid, block, &shared, &on, &params, &bytes);
    CHECK(on == stream, "launch %d on the caller's stream", i);
  }
  CHECK(counter(ToDevice) == 0 && counter(ToHost) == 0 && counter(Syncs) == 0,
        "no copy and no wait: capturable");

  fake.reset();
  CHECK(!paCudaProgramEnqueue(program, operands, kOperands - 1, stream,
                              &error) &&
            contains(error, "needs operand 'output'"),
        "%s", error.data);
  paStringDestroy(error);
  operands[0].name = NULL;
  CHECK(!paCudaProgramEnqueue(program, operands, kOperands, stream, &error) &&
            contains(error, "operand 0 needs a name"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paCudaProgramEnqueue(program, NULL, 3, stream, &error) &&
            contains(error, "no operands"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 0, "nothing launched for bad operands");
  printf("ok enqueue on the caller's stream, without copies or waits\n");

  /* A subset: the plan once per step, decode + reduce per layer. */
  deviceOperands(operands);
  struct {
    uint32_t mask;
    int count;
    const char *names[2];
  } subsets[] = {{PA_KERNEL_PLAN, 1, {"pa_plan", NULL}},
                 {PA_KERNEL_DECODE | PA_KERNEL_REDUCE, 2,
                  {"pa_decode", "pa_reduce"}}};
  for (int s = 0; s < 2; ++s) {
    fake.reset();
    CHECK(paCudaProgramEnqueueKernels(program, operands, kOperands,
                                      subsets[s].mask, stream, &error),
          "%s", error.data);
    CHECK(fake.launchCount() == subsets[s].count, "mask %u: %d launches",
          subsets[s].mask, fake.launchCount());
    for (int i = 0; i < subsets[s].count; ++i) {
      unsigned grid[3], block[3], shared;
      void *on;
      const unsigned char *params;
      size_t bytes;
      const char *name =
          fake.launch(i, grid, block, &shared, &on, &params, &bytes);
      CHECK(name && strcmp(name, subsets[s].names[i]) == 0 && on == stream,
            "mask %u launch %d is %s", subsets[s].mask, i, name);
    }
  }
  uint32_t bad[] = {0, 8};
  for (int b = 0; b < 2; ++b) {
    fake.reset();
    CHECK(!paCudaProgramEnqueueKernels(program, operands, kOperands, bad[b],
                                       stream, &error) &&
              contains(error, "selects no kernel or one the program does "
                              "not have"),
          "%s", error.data);
    paStringDestroy(error);
    CHECK(fake.launchCount() == 0, "nothing launched for mask %u", bad[b]);
  }
  printf("ok enqueue a subset of the kernels\n");
}

/* The parameter `meaning` of the first launch of `kernel` recorded. */
static uint64_t launchedParam(const char *json, const char *kernel,
                              const char *meaning) {
  for (int i = 0; i < fake.launchCount(); ++i) {
    unsigned grid[3], block[3], shared;
    void *on;
    const unsigned char *params;
    size_t bytes;
    const char *name =
        fake.launch(i, grid, block, &shared, &on, &params, &bytes);
    if (name && strcmp(name, kernel) == 0)
      return paramValue(params, paramOffset(json, kernel, meaning));
  }
  CHECK(false, "%s was launched", kernel);
  return 0;
}

/* A launch bound to the caller's operand array reads it at every enqueue:
 * new addresses and strides reach the kernels' parameters. */
static void testBoundLaunch(PaCudaProgram program, const char *json) {
  PaDeviceOperand operands[kOperands];
  deviceOperands(operands);
  void *stream = (void *)(uintptr_t)0x5000;
  PaString error;
  PaCudaLaunch launch = paCudaProgramBind(
      program, operands, kOperands, PA_KERNEL_DECODE | PA_KERNEL_REDUCE,
      &error);
  CHECK(launch.ptr != NULL, "%s", error.data);
  for (int call = 0; call < 3; ++call) {
    /* A fused-qkv view: rows 3 * Hq * D apart on the second call. */
    int64_t strides[3] = {3 * 8 * 64, 64, 1};
    operands[0].address = 0x900000u + 0x1000u * (uint64_t)call;
    operands[0].strides = call == 1 ? strides : NULL;
    fake.reset();
    CHECK(paCudaLaunchEnqueue(launch, stream, &error), "%s", error.data);
    CHECK(fake.launchCount() == 2, "decode and reduce: %d",
          fake.launchCount());
    CHECK(launchedParam(json, "pa_decode", "query.aligned_ptr") ==
              operands[0].address,
          "call %d: the query address as it is now", call);
    uint64_t rowStride =
        launchedParam(json, "pa_decode", "query.stride[0]");
    CHECK(rowStride == (call == 1 ? 3 * 8 * 64 : 8 * 64),
          "call %d: query row stride %llu", call,
          (unsigned long long)rowStride);
  }
  /* Some of the bound kernels per enqueue: reduce alone, then a mask
   * outside the bound ones (the plan kernel) refused. */
  fake.reset();
  CHECK(paCudaLaunchEnqueueKernels(launch, PA_KERNEL_REDUCE, stream, &error),
        "%s", error.data);
  {
    unsigned grid[3], block[3], shared;
    void *on;
    const unsigned char *params;
    size_t bytes;
    const char *name = fake.launchCount() == 1
                           ? fake.launch(0, grid, block, &shared, &on,
                                         &params, &bytes)
                           : NULL;
    CHECK(name && strcmp(name, "pa_reduce") == 0,
          "the reduce kernel alone: %d launches", fake.launchCount());
  }
  fake.reset();
  CHECK(!paCudaLaunchEnqueueKernels(launch, PA_KERNEL_PLAN, stream, &error) &&
            contains(error, "the kernel mask 1 selects no kernel or one the "
                            "launch was not bound to (mask 6)"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 0, "nothing launched outside the bound mask");
  int64_t negative[3] = {-1, 64, 1};
  operands[0].strides = negative;
  fake.reset();
  CHECK(!paCudaLaunchEnqueue(launch, stream, &error) &&
            contains(error, "operand 'query' has stride -1 in dim 0"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 0, "nothing launched for a negative stride");
  operands[0].strides = NULL;
  /* The kernels read packed caches row-major (their sidecar lists no
   * run-time stride for them): a packed K with its page stride doubled is
   * refused (an nhd / hnd program's K may have any page stride:
   * test_plans.py), its own row-major strides (a dim of one element at any
   * stride) are not. */
  {
    int64_t strides[5];
    int64_t step = 1;
    for (int d = operands[1].rank; d-- > 0;) {
      strides[d] = operands[1].sizes[d] == 1 ? 12345 : step;
      step *= operands[1].sizes[d];
    }
    operands[1].strides = strides;
    fake.reset();
    CHECK(paCudaLaunchEnqueue(launch, stream, &error), "%s", error.data);
    strides[0] = 2 * step / operands[1].sizes[0];
    fake.reset();
    CHECK(!paCudaLaunchEnqueue(launch, stream, &error) &&
              contains(error, "operand 'key_cache' has stride ") &&
              contains(error, " in dim 0, but kernel 'pa_decode' reads "
                              "that dim at the row-major stride ") &&
              contains(error, "'dynamic_strides'"),
          "%s", error.data);
    paStringDestroy(error);
    CHECK(fake.launchCount() == 0, "nothing launched for a strided cache");
    operands[1].strides = NULL;
  }

  /* Another operand array through the same launch (a copy with its own
   * addresses: a plan of other sequences sharing the launch); the bound
   * array is read again by the next plain enqueue. */
  PaDeviceOperand copy[kOperands];
  memcpy(copy, operands, sizeof copy);
  copy[0].address = 0x700000u;
  fake.reset();
  CHECK(paCudaLaunchEnqueueOperands(launch, copy, kOperands,
                                    PA_KERNEL_DECODE | PA_KERNEL_REDUCE,
                                    stream, &error),
        "%s", error.data);
  CHECK(fake.launchCount() == 2 &&
            launchedParam(json, "pa_decode", "query.aligned_ptr") ==
                0x700000u,
        "the copy's query address");
  fake.reset();
  CHECK(paCudaLaunchEnqueue(launch, stream, &error), "%s", error.data);
  CHECK(launchedParam(json, "pa_decode", "query.aligned_ptr") ==
            operands[0].address,
        "the bound array's query address again");
  /* Not a copy: another count, another name (the same text at another
   * address is one), no array, a mask outside the bound one. */
  char sameName[16];
  strcpy(sameName, operands[0].name);
  copy[0].name = sameName;
  fake.reset();
  CHECK(paCudaLaunchEnqueueOperands(launch, copy, kOperands,
                                    PA_KERNEL_DECODE, stream, &error),
        "%s", error.data);
  copy[1].name = "query";
  CHECK(!paCudaLaunchEnqueueOperands(launch, copy, kOperands,
                                     PA_KERNEL_DECODE, stream, &error) &&
            contains(error, "operand 1 is 'query' where the launch is bound "
                            "to 'key_cache'"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paCudaLaunchEnqueueOperands(launch, operands, kOperands - 1,
                                     PA_KERNEL_DECODE, stream, &error) &&
            contains(error, "the launch is bound to 13 operands; got 12"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paCudaLaunchEnqueueOperands(launch, NULL, kOperands,
                                     PA_KERNEL_DECODE, stream, &error) &&
            contains(error, "needs operands"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paCudaLaunchEnqueueOperands(launch, operands, kOperands,
                                     PA_KERNEL_PLAN, stream, &error) &&
            contains(error, "the kernel mask 1 selects no kernel or one the "
                            "launch was not bound to (mask 6)"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 1, "only the copy of the same names launched");

  /* The same enqueues held in a PaLaunchCall (one pointer per call). */
  copy[1].name = operands[1].name;
  PaLaunchCall call = {launch.ptr, copy, kOperands,
                       PA_KERNEL_DECODE | PA_KERNEL_REDUCE, stream,
                       {NULL, 0}};
  fake.reset();
  CHECK(paCudaLaunchCall(&call), "%s", call.error.data);
  CHECK(fake.launchCount() == 2 &&
            launchedParam(json, "pa_decode", "query.aligned_ptr") ==
                0x700000u,
        "a call reads its operands' query address");
  call.operands = NULL;
  fake.reset();
  CHECK(paCudaLaunchCall(&call), "%s", call.error.data);
  CHECK(launchedParam(json, "pa_decode", "query.aligned_ptr") ==
            operands[0].address,
        "a call without operands reads the bound array");
  call.operands = copy;
  call.count = kOperands - 1;
  CHECK(!paCudaLaunchCall(&call) &&
            contains(call.error, "the launch is bound to 13 operands; got 12"),
        "%s", call.error.data);
  paStringDestroy(call.error);
  call.count = kOperands;
  call.kernels = PA_KERNEL_PLAN;
  CHECK(!paCudaLaunchCall(&call) &&
            contains(call.error, "the kernel mask 1 selects no kernel or one "
                                 "the launch was not bound to (mask 6)"),
        "%s", call.error.data);
  paStringDestroy(call.error);
  call.kernels = PA_KERNEL_DECODE | ((uint64_t)1 << 32);
  CHECK(!paCudaLaunchCall(&call) &&
            contains(call.error, "paCudaLaunchCall: the kernel mask "
                                 "4294967298 does not fit 32 bits"),
        "%s", call.error.data);
  paStringDestroy(call.error);
  CHECK(!paCudaLaunchCall(NULL), "a NULL call fails");
  CHECK(fake.launchCount() == 2, "nothing launched for a wrong call");
  paCudaLaunchDestroy(launch);

  launch = paCudaProgramBind(program, operands, kOperands, 8, &error);
  CHECK(launch.ptr == NULL &&
            contains(error, "selects no kernel or one the program does not "
                            "have"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paCudaLaunchEnqueue(launch, stream, &error) &&
            contains(error, "needs a launch"),
        "%s", error.data);
  paStringDestroy(error);
  PaCudaProgram none = {NULL};
  launch = paCudaProgramBind(none, operands, kOperands, PA_KERNELS_ALL,
                             &error);
  CHECK(launch.ptr == NULL && contains(error, "needs a program"), "%s",
        error.data);
  paStringDestroy(error);
  paCudaLaunchDestroy(launch); /* NULL: nothing */
  printf("ok a bound launch reads the caller's operands (or a copy of them) "
         "at every enqueue\n");
}

static void testCheckSequences(void) {
  /* P = 16, 3 table columns: sequence 0 (9 tokens) reads its first entry,
   * sequence 1 (33 tokens) all three; the 7s are never read. */
  int32_t lengths[2] = {9, 33};
  int32_t tables[2 * 3] = {1, 7, 7, 0, 2, 3};
  PaString error;
  CHECK(paDecodeCheckSequences(16, 1, 0, 2, 4, 3, lengths, tables, &error),
        "%s", error.data);
  CHECK(!paDecodeCheckSequences(16, 1, 0, 2, 3, 3, lengths, tables, &error) &&
            contains(error, "block_tables[1][2] = 3 is not a page of the "
                            "pool [0, 3)"),
        "%s", error.data);
  paStringDestroy(error);
  lengths[1] = 49;
  CHECK(!paDecodeCheckSequences(16, 1, 0, 2, 4, 3, lengths, tables, &error) &&
            contains(error, "context_lengths[1] = 49 is outside "
                            "[0, max_pages * P] (max_pages = 3, P = 16)"),
        "%s", error.data);
  paStringDestroy(error);
  lengths[1] = 33;
  tables[3] = -1;
  CHECK(!paDecodeCheckSequences(16, 1, 0, 2, 4, 3, lengths, tables, &error) &&
            contains(error, "block_tables[1][0] = -1 is not a page of the "
                            "pool [0, 4)"),
        "%s", error.data);
  paStringDestroy(error);
  /* A window of 16 tokens: sequence 1 sees tokens 17..32, so its first
   * entry is not read. */
  CHECK(paDecodeCheckSequences(16, 1, 16, 2, 4, 3, lengths, tables, &error),
        "%s", error.data);
  /* Extreme sizes must not overflow the checks' arithmetic into skipping
   * them: with P = 2^63-1 every sequence is on its first page, and with
   * Q = W = 2^63-1 every row sees from token 0. */
  tables[3] = 9;
  CHECK(!paDecodeCheckSequences(INT64_MAX, 1, 0, 2, 4, 3, lengths, tables,
                                &error) &&
            contains(error, "block_tables[1][0] = 9 is not a page of the "
                            "pool [0, 4)"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paDecodeCheckSequences(16, INT64_MAX, INT64_MAX, 2, 4, 3, lengths,
                                tables, &error) &&
            contains(error, "block_tables[1][0] = 9 is not a page of the "
                            "pool [0, 4)"),
        "%s", error.data);
  paStringDestroy(error);
  tables[3] = 0;
  CHECK(paDecodeCheckSequences(INT64_MAX, INT64_MAX, INT64_MAX, 2, 4, 3,
                               lengths, tables, &error),
        "%s", error.data);
  CHECK(!paDecodeCheckSequences(0, 1, 0, 2, 4, 3, lengths, tables, &error) &&
            contains(error, "page size"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paDecodeCheckSequences(16, 1, 0, 2, 4, 3, NULL, tables, &error) &&
            contains(error, "needs the context lengths"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paDecodeCheckSequences(16, 1, 0, 2, 4, 3, NULL, tables, NULL),
        "NULL error");
  printf("ok sequence checks (lengths, page ids, window)\n");
}

/* `json` without its `field` objects (e.g. "dynamic_strides"), as a
 * sidecar written before them (a malloc'ed copy). An object may hold one
 * level of objects: its end is the first '}' at depth 0. */
static char *withoutField(const char *json, const char *field) {
  char *copy = malloc(strlen(json) + 1);
  strcpy(copy, json);
  char key[64];
  snprintf(key, sizeof key, "\"%s\": {", field);
  for (char *at = strstr(copy, key); at; at = strstr(at, key)) {
    int depth = 0;
    char *end = at + strlen(key);
    for (; *end && (*end != '}' || depth); ++end)
      depth += *end == '{' ? 1 : *end == '}' ? -1 : 0;
    char *next = end + 1;
    while (*next == ' ' || *next == '\n')
      ++next;
    if (*next == ',') /* and the comma before the next field */
      end = next;
    memset(at, ' ', (size_t)(end - at + 1));
  }
  return copy;
}

/* The programs of sidecar `json` and of `old` (the same sidecar as
 * written before a field), both loaded. */
static void loadBoth(const char *ptx, size_t ptxSize, const char *json,
                     const char *old, PaCudaProgram *program,
                     PaCudaProgram *before) {
  PaString error;
  *program = paCudaProgramLoad(ptx, ptxSize, json, &error);
  *before = paCudaProgramLoad(ptx, ptxSize, old, &error);
  CHECK(!paCudaProgramIsNull(*program) && !paCudaProgramIsNull(*before), "%s",
        error.data);
}

/* `operands` on `program`: refused with an error containing `message`,
 * nothing launched; on `before` (the same sidecar as written before the
 * field that refuses them) launched. */
static void expectRefusedUnlessOld(PaCudaProgram program, PaCudaProgram before,
                                   const PaDeviceOperand *operands,
                                   const char *message) {
  void *stream = (void *)(uintptr_t)0x5000;
  PaString error;
  fake.reset();
  CHECK(!paCudaProgramEnqueue(program, operands, kOperands, stream, &error) &&
            contains(error, message),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 0, "nothing launched");
  CHECK(paCudaProgramEnqueue(before, operands, kOperands, stream, &error),
        "the older sidecar takes them: %s", error.data);
}

/* The sidecar lists the strides each kernel reads at run time: the query's
 * rows (dim 0) at any stride, every other stride row-major, refused by
 * operand name. A sidecar without the list (written before it) is read as
 * listing none: the query's rows at another stride are refused too, not
 * read packed. */
static void testDynamicStrides(const char *ptx, size_t ptxSize,
                               const char *json) {
  CHECK(strstr(json, "\"dynamic_strides\": {"), "the sidecar lists them");
  PaString error;
  char *old = withoutField(json, "dynamic_strides");
  CHECK(!strstr(old, "dynamic_strides"), "the list is gone");
  PaCudaProgram program, before;
  loadBoth(ptx, ptxSize, json, old, &program, &before);
  PaDeviceOperand operands[kOperands];
  deviceOperands(operands);
  void *stream = (void *)(uintptr_t)0x5000;
  int64_t rows[3] = {3 * 8 * 64, 64, 1}; /* the query of a fused qkv */
  operands[0].strides = rows;
  fake.reset();
  CHECK(paCudaProgramEnqueue(program, operands, kOperands, stream, &error),
        "%s", error.data);
  CHECK(fake.launchCount() == 3, "three launches");
  fake.reset();
  CHECK(!paCudaProgramEnqueue(before, operands, kOperands, stream, &error) &&
            contains(error, "operand 'query' has stride 1536 in dim 0, but "
                            "kernel 'pa_decode' reads that dim at the "
                            "row-major stride 512"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 0, "nothing launched");
  /* Heads D apart: dim 1 is compiled in, at the 64 the query's
   * `strided<[?, 64, 1]>` fixes (the sidecar's static_strides). */
  int64_t heads[3] = {8 * 64, 128, 1};
  operands[0].strides = heads;
  CHECK(!paCudaProgramEnqueue(program, operands, kOperands, stream, &error) &&
            contains(error, "operand 'query' has stride 128 in dim 1, but "
                            "kernel 'pa_decode' reads that dim at the "
                            "stride 64 its type fixes"),
        "%s", error.data);
  paStringDestroy(error);
  operands[0].strides = NULL;
  CHECK(paCudaProgramEnqueue(before, operands, kOperands, stream, &error),
        "row-major views run on an old sidecar: %s", error.data);
  paCudaProgramDestroy(before);
  paCudaProgramDestroy(program);
  free(old);
  fake.reset();
  printf("ok the sidecar's dynamic_strides: listed strides at any value, "
         "others row-major\n");
}

/* The sidecar lists the widest access each kernel makes at one address of
 * each operand: a key cache 8 bytes past an aligned address (its 16-byte
 * chunks would fault on the GPU) is refused by operand and address before
 * anything is launched, on an enqueue and a bound launch's refill. A
 * sidecar written before the field checks nothing: the view is then
 * launched, as before. */
static void testAlignments(const char *ptx, size_t ptxSize, const char *json) {
  CHECK(strstr(json, "\"alignments\": {"), "the sidecar lists them");
  char *old = withoutField(json, "alignments");
  CHECK(!strstr(old, "alignments"), "the list is gone");
  PaString error;
  PaCudaProgram program, before;
  loadBoth(ptx, ptxSize, json, old, &program, &before);
  PaDeviceOperand operands[kOperands];
  deviceOperands(operands);
  void *stream = (void *)(uintptr_t)0x5000;
  fake.reset();
  CHECK(paCudaProgramEnqueue(program, operands, kOperands, stream, &error),
        "aligned operands launch: %s", error.data);
  CHECK(fake.launchCount() == 3, "three launches");
  operands[1].address += 8;
  expectRefusedUnlessOld(program, before, operands,
                         "operand 'key_cache' starts at address 0x20008 "
                         "(pointer + offset 0 elements), but kernel "
                         "'pa_decode' accesses it 16 bytes at a time (its "
                         "sidecar's 'alignments')");
  /* A bound launch checks the addresses the caller writes later. */
  deviceOperands(operands);
  PaCudaLaunch launch =
      paCudaProgramBind(program, operands, kOperands, PA_KERNELS_ALL, &error);
  CHECK(launch.ptr != NULL, "%s", error.data);
  CHECK(paCudaLaunchEnqueue(launch, stream, &error), "%s", error.data);
  operands[1].address += 4;
  fake.reset();
  CHECK(!paCudaLaunchEnqueue(launch, stream, &error) &&
            contains(error, "operand 'key_cache' starts at address 0x20004"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 0, "nothing launched");
  paCudaLaunchDestroy(launch);
  paCudaProgramDestroy(before);
  paCudaProgramDestroy(program);
  free(old);
  fake.reset();
  printf("ok the sidecar's alignments: misaligned views refused, nothing "
         "launched\n");
}

/* The sidecar lists the sizes each kernel's types fix: an operand of
 * other sizes (here a key cache packed 8 to a vector, [2, 1, 8, 16, 8],
 * row-major for its own sizes, where the kernel reads [?, 1, 4, 16, 16])
 * is refused by operand and dim, on an enqueue and a bound launch's
 * refill. A sidecar written before the field (and before "alignments",
 * which refuses the view's 8-byte rows of 16-byte chunks) is read as
 * fixing none: such an operand is then launched, as before (the docs say
 * so). */
static void testStaticSizes(const char *ptx, size_t ptxSize,
                            const char *json) {
  CHECK(strstr(json, "\"static_sizes\": {"), "the sidecar lists them");
  char *newer = withoutField(json, "static_sizes");
  char *old = withoutField(newer, "alignments");
  free(newer);
  CHECK(!strstr(old, "static_sizes") && !strstr(old, "alignments"),
        "the lists are gone");
  PaString error;
  PaCudaProgram program, before;
  loadBoth(ptx, ptxSize, json, old, &program, &before);
  PaDeviceOperand operands[kOperands];
  deviceOperands(operands);
  void *stream = (void *)(uintptr_t)0x5000;
  const int64_t eightWide[5] = {kPages, 1, 8, 16, 8};
  operands[1].sizes = eightWide;
  expectRefusedUnlessOld(program, before, operands,
                         "operand 'key_cache' has size 8 in dim 2, but "
                         "kernel 'pa_decode' was compiled for size 4 there "
                         "(its sidecar's 'static_sizes'): pass a view of "
                         "the program's shape");
  /* Another pool (a dynamic size) is taken, as long as the operands
   * agree on it: a key cache of 7 pages beside a value cache of 2 is
   * refused, naming both. */
  deviceOperands(operands);
  const int64_t morePages[5] = {7, 1, 4, 16, 16};
  const int64_t moreValuePages[4] = {7, 1, 64, 16};
  operands[1].sizes = morePages;
  fake.reset();
  CHECK(!paCudaProgramEnqueue(program, operands, kOperands, stream, &error) &&
            contains(error, "operand 'value_cache' has size 2 in dim 0 (N), "
                            "but operand 'key_cache' has 7 in dim 0"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 0, "nothing launched");
  operands[2].sizes = moreValuePages;
  CHECK(paCudaProgramEnqueue(program, operands, kOperands, stream, &error),
        "%s", error.data);
  CHECK(fake.launchCount() == 3, "three launches");
  /* A bound launch refills from the caller's array: its sizes now. */
  PaCudaLaunch launch = paCudaProgramBind(program, operands, kOperands,
                                          PA_KERNELS_ALL, &error);
  CHECK(launch.ptr != NULL, "%s", error.data);
  CHECK(paCudaLaunchEnqueue(launch, stream, &error), "%s", error.data);
  const int64_t twoHeads[4] = {7, 2, 64, 16};
  operands[2].sizes = twoHeads;
  CHECK(!paCudaLaunchEnqueue(launch, stream, &error) &&
            contains(error, "operand 'value_cache' has size 2 in dim 1, but "
                            "kernel 'pa_decode' was compiled for size 1"),
        "%s", error.data);
  paStringDestroy(error);
  paCudaLaunchDestroy(launch);
  paCudaProgramDestroy(before);
  paCudaProgramDestroy(program);
  free(old);
  fake.reset();
  printf("ok the sidecar's static_sizes: views of other sizes refused\n");
}

static void testFake(const char *ptx, size_t ptxSize, const char *json,
                     const char *programPath, const char *amdProgram) {
  bindFake();
  PaString reason;
  CHECK(paCudaRuntimeAvailable(&reason), "the fake has a device: %s",
        reason.data);
  fake.reset();
  testLoadErrors(ptx, ptxSize, json);
  PaString error;
  PaCudaProgram program = paCudaProgramLoad(ptx, ptxSize, json, &error);
  CHECK(!paCudaProgramIsNull(program), "%s", error.data);
  CHECK(error.data == NULL, "no error text on success");
  CHECK(counter(Loads) == 1, "one module load");
  testHostRun(program, json);
  testEnqueue(program);
  testBoundLaunch(program, json);
  fake.reset();
  paCudaProgramDestroy(program);
  CHECK(counter(Unloads) == 1, "the module is unloaded");
  printf("ok load, run, enqueue and destroy through the fake driver\n");
  testDynamicStrides(ptx, ptxSize, json);
  testStaticSizes(ptx, ptxSize, json);
  testAlignments(ptx, ptxSize, json);

  /* The same kernels as an AOT program directory; one for gfx950 is
   * refused by name before the driver sees it. */
  program = paCudaProgramLoadFile(programPath, &error);
  CHECK(!paCudaProgramIsNull(program), "%s", error.data);
  CHECK(counter(Loads) == 1, "the program's module is loaded");
  testEnqueue(program);
  paCudaProgramDestroy(program);
  fake.reset();
  program = paCudaProgramLoadFile(amdProgram, &error);
  CHECK(paCudaProgramIsNull(program) &&
            contains(error, "is a program for gfx950 (hsaco); load it with "
                            "paHipProgramLoadFile"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(counter(Loads) == 0, "nothing loaded for an AMD program");
  printf("ok AOT program directories: loaded, enqueued, vendor checked\n");
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr,
            "usage: %s none|fake|no-device KERNELS.ptx KERNELS.json "
            "PROGRAM.paprog AMD-PROGRAM.paprog\n",
            argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0);
  size_t ptxSize = 0;
  char *ptx = readFile(argv[2], &ptxSize);
  char *json = readFile(argv[3], NULL);
  CHECK(ptx && json, "cannot read %s or %s", argv[2], argv[3]);
  const char *mode = argv[1];
  testCheckSequences();
  if (strcmp(mode, "none") == 0)
    testWithoutDriver(ptx, ptxSize, json, "libcuda.so.1");
  else if (strcmp(mode, "no-device") == 0)
    testWithoutDriver(ptx, ptxSize, json, "no CUDA-capable device");
  else if (strcmp(mode, "fake") == 0)
    testFake(ptx, ptxSize, json, argv[4], argv[5]);
  else
    CHECK(false, "unknown mode %s", mode);
  free(ptx);
  free(json);
  printf("all %d checks passed\n", checks);
  return 0;
}
