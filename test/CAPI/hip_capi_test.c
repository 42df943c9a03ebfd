/*===- hip_capi_test.c - the runtime C API's HIP half (pa-c/Hip.h) -------===*\
|*                                                                            *|
|*   pa-hip-capi-test none|fake|no-device KERNELS.hsaco KERNELS.hsaco.json    *|
|*                    PROGRAM.paprog CUDA-PROGRAM.paprog                      *|
|*                                                                            *|
|* Linked against libPARuntimeCAPI.so only (no MLIR). KERNELS is            *|
|* Inputs/decode-small.mlir compiled by pa-compile --chip=gfx950, PROGRAM   *|
|* the same as an AOT program (--emit=program), CUDA-PROGRAM one for sm_90a.*|
|*   none       PA_HIP_LIBRARY names a library that does not exist: every   *|
|*              call fails cleanly with the reason.                         *|
|*   fake       PA_HIP_LIBRARY names libpa-fake-hip.so (records instead of  *|
|*              running): loads (bytes and program files), the host-buffer  *|
|*              run, enqueue on a caller's stream without copies or waits   *|
|*              (what a HIP graph capture sees), bad operands, a multi-chip *|
|*              program (written into the working directory).              *|
|*   no-device  the fake with FAKE_HIP_DEVICES=0: a runtime without a GPU.  *|
|* Prints one line per check group; exits non-zero on the first failure.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "pa-c/Cuda.h"
#include "pa-c/Hip.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "SmallDecode.h"
#include "TestHarness.h"

static bool contains(PaString string, const char *needle) {
  return string.data && strstr(string.data, needle) != NULL;
}

/* Every call without a usable runtime: false or null with `expected` in the
 * reason; NULL arguments are errors, not crashes. */
static void testWithoutRuntime(const char *hsaco, size_t size,
                               const char *json, const char *program,
                               const char *expected) {
  PaString reason;
  CHECK(!paHipRuntimeAvailable(&reason) && contains(reason, expected),
        "the reason names the runtime: %s", reason.data);
  printf("ok unavailable: %s\n", reason.data);
  paStringDestroy(reason);

  PaString error;
  PaHipProgram loaded = paHipProgramLoad(hsaco, size, json, &error);
  CHECK(paHipProgramIsNull(loaded) && contains(error, expected),
        "load fails with the reason: %s", error.data);
  paStringDestroy(error);
  loaded = paHipProgramLoadFile(program, &error);
  CHECK(paHipProgramIsNull(loaded) && contains(error, expected),
        "loading a program file fails with the reason: %s", error.data);
  paStringDestroy(error);

  CHECK(!paHipRuntimeAvailable(NULL), "NULL reason");
  CHECK(paHipProgramIsNull(paHipProgramLoad(NULL, 0, NULL, NULL)), "NULLs");
  loaded = paHipProgramLoad(NULL, 0, json, &error);
  CHECK(paHipProgramIsNull(loaded) &&
            contains(error, "needs a code object and its metadata"),
        "%s", error.data);
  paStringDestroy(error);
  loaded = paHipProgramLoadFile(NULL, &error);
  CHECK(paHipProgramIsNull(loaded) && contains(error, "no program path"),
        "%s", error.data);
  paStringDestroy(error);
  PaHipProgram none = {NULL};
  CHECK(!paHipProgramEnqueue(none, NULL, 0, NULL, &error) &&
            contains(error, "needs a program"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paHipProgramRun(none, NULL, 0, &error) &&
            contains(error, "needs a program"),
        "%s", error.data);
  paStringDestroy(error);
  paHipProgramDestroy(none);
  printf("ok every call fails cleanly without a runtime\n");
}

/* Program files are checked before any runtime is asked. */
static void testProgramFiles(const char *program, const char *cudaProgram) {
  PaString error;
  PaHipProgram loaded = paHipProgramLoadFile(cudaProgram, &error);
  CHECK(paHipProgramIsNull(loaded) &&
            contains(error, "is a program for sm_90a (ptx); load it with "
                            "paCudaProgramLoadFile"),
        "%s", error.data);
  paStringDestroy(error);
  loaded = paHipProgramLoadFile("/nonexistent.paprog", &error);
  CHECK(paHipProgramIsNull(loaded) &&
            contains(error, "/nonexistent.paprog is not a pa-mlir program"),
        "%s", error.data);
  paStringDestroy(error);

  PaString chip, format, config;
  CHECK(paProgramDescribe(program, &chip, &format, &config, &error), "%s",
        error.data);
  CHECK(strcmp(chip.data, "gfx950") == 0 && strcmp(format.data, "hsaco") == 0 &&
            config.length == 0,
        "described: %s %s '%s'", chip.data, format.data, config.data);
  paStringDestroy(chip);
  paStringDestroy(format);
  paStringDestroy(config);
  printf("ok program files: vendor and existence checked first\n");
}

static struct {
  int (*launchCount)(void);
  const char *(*launch)(int, unsigned *, unsigned *, void **,
                        const unsigned char **, size_t *);
  void (*counters)(int *, int *, int *, int *);
  void (*memory)(int *, int *);
  void (*reset)(void);
} fake;

enum { Loads, Unloads, Copies, Syncs };

static int counter(int which) {
  int counts[4];
  fake.counters(&counts[0], &counts[1], &counts[2], &counts[3]);
  return counts[which];
}

static void bindFake(void) {
  const char *path = getenv("PA_HIP_LIBRARY");
  CHECK(path != NULL, "fake mode needs PA_HIP_LIBRARY");
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CHECK(library != NULL, "%s", dlerror());
  *(void **)&fake.launchCount = dlsym(library, "fakeHipLaunchCount");
  *(void **)&fake.launch = dlsym(library, "fakeHipLaunch");
  *(void **)&fake.counters = dlsym(library, "fakeHipCounters");
  *(void **)&fake.memory = dlsym(library, "fakeHipMemoryCounters");
  *(void **)&fake.reset = dlsym(library, "fakeHipReset");
  CHECK(fake.launchCount && fake.launch && fake.counters && fake.memory &&
            fake.reset,
        "the fake's record functions");
}

/* The launches so far are plan, decode, reduce over the small decode's
 * grids on `stream`, 256 threads each (wave64, 4 waves). */
static void checkLaunches(void *stream) {
  const char *names[] = {"pa_plan", "pa_decode", "pa_reduce"};
  unsigned grids[3][3] = {{1, 1, 1}, {kCapacity, 1, 1}, {kBatch, 1, 1}};
  CHECK(fake.launchCount() == 3, "%d launches", fake.launchCount());
  for (int i = 0; i < 3; ++i) {
    unsigned grid[3], block[3];
    void *on;
    const unsigned char *params;
    size_t bytes;
    const char *name = fake.launch(i, grid, block, &on, &params, &bytes);
    CHECK(name && strcmp(name, names[i]) == 0, "launch %d is %s", i, name);
    CHECK(memcmp(grid, grids[i], sizeof grid) == 0, "%s grid (%u, %u, %u)",
          name, grid[0], grid[1], grid[2]);
    CHECK(block[0] == 256 && block[1] == 1 && block[2] == 1, "%s block %u",
          name, block[0]);
    CHECK(on == stream, "%s on stream %p, not %p", name, on, stream);
    CHECK(bytes > 0, "%s has parameters", name);
  }
}

static void testHostRun(PaHipProgram program) {
  static Buffers b;
  PaHostOperand operands[kOperands];
  fillBuffers(&b);
  size_t count = hostOperands(&b, operands);
  /* The fake's device memory is host memory that the kernels never write:
   * the outputs come back as the 0xA5 bytes copied in. */
  b.output[3] = 0x1234;
  fake.reset();
  PaString error;
  CHECK(paHipProgramRun(program, operands, count, &error), "%s", error.data);
  checkLaunches(NULL);
  int allocations, frees;
  fake.memory(&allocations, &frees);
  CHECK(allocations == kOperands && frees == kOperands,
        "one buffer per operand, all freed: %d, %d", allocations, frees);
  CHECK(counter(Copies) == kOperands + 6, "every operand in, 6 outputs back");
  CHECK(counter(Syncs) == 1, "one wait");
  CHECK(b.output[3] == 0x1234 && b.output[0] == 0xA5A5,
        "the outputs came back");

  fake.reset();
  CHECK(!paHipProgramRun(program, operands, count - 1, &error) &&
            contains(error, "needs operand 'output', which was not given"),
        "%s", error.data);
  paStringDestroy(error);
  fake.memory(&allocations, &frees);
  CHECK(fake.launchCount() == 0 && allocations == frees,
        "a missing operand: no launch, nothing leaked");
  PaHostOperand bad[kOperands];
  memcpy(bad, operands, sizeof bad);
  bad[3].name = "query";
  CHECK(!paHipProgramRun(program, bad, count, &error) &&
            contains(error, "operand 'query' is given twice"),
        "%s", error.data);
  paStringDestroy(error);
  printf("ok host-buffer run: copies in and back, 3 launches, all freed\n");
}

static void testEnqueue(PaHipProgram program) {
  PaDeviceOperand operands[kOperands];
  deviceOperands(operands);
  void *stream = (void *)(uintptr_t)0x5000;
  fake.reset();
  PaString error;
  /* Twice, as a replayed capture would see it: the same launches again. */
  for (int round = 0; round < 2; ++round) {
    CHECK(paHipProgramEnqueue(program, operands, kOperands, stream, &error),
          "%s", error.data);
    checkLaunches(stream);
    int allocations, frees;
    fake.memory(&allocations, &frees);
    CHECK(counter(Copies) == 0 && counter(Syncs) == 0 && allocations == 0,
          "no copy, allocation or wait: capturable");
    fake.reset();
  }
  CHECK(!paHipProgramEnqueue(program, operands, kOperands - 1, stream,
                             &error) &&
            contains(error, "needs operand 'output'"),
        "%s", error.data);
  paStringDestroy(error);
  operands[0].name = NULL;
  CHECK(!paHipProgramEnqueue(program, operands, kOperands, stream, &error) &&
            contains(error, "operand 0 needs a name"),
        "%s", error.data);
  paStringDestroy(error);
  /* A key cache packed 8 to a vector where the kernel's type has 16:
   * row-major for its own sizes, but read as [?, 1, 4, 16, 16]. */
  deviceOperands(operands);
  const int64_t eightWide[5] = {kPages, 1, 8, 16, 8};
  operands[1].sizes = eightWide;
  CHECK(!paHipProgramEnqueue(program, operands, kOperands, stream, &error) &&
            contains(error, "operand 'key_cache' has size 8 in dim 2, but "
                            "kernel 'pa_decode' was compiled for size 4 "
                            "there (its sidecar's 'static_sizes')"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 0, "nothing launched for bad operands");
  printf("ok enqueue on the caller's stream, without copies or waits\n");
}

/* Whether launch `index`'s parameters hold `address` (at an 8-byte
 * boundary, as pointers are). */
static bool launchHolds(int index, uint64_t address) {
  unsigned grid[3], block[3];
  void *on;
  const unsigned char *params;
  size_t bytes;
  if (!fake.launch(index, grid, block, &on, &params, &bytes))
    return false;
  for (size_t at = 0; at + sizeof address <= bytes; at += sizeof address)
    if (memcmp(params + at, &address, sizeof address) == 0)
      return true;
  return false;
}

/* A bound launch enqueued over a copy of its operands (the plans of one
 * table sharing a launch): the copy's addresses reach the kernels, the
 * bound array's again on the next plain enqueue; an array that is not a
 * copy is refused, nothing launched. */
static void testEnqueueOperands(PaHipProgram program) {
  PaDeviceOperand operands[kOperands], copy[kOperands];
  deviceOperands(operands);
  memcpy(copy, operands, sizeof copy);
  copy[0].address = 0x7700000u;
  void *stream = (void *)(uintptr_t)0x5000;
  PaString error;
  PaHipLaunch launch = paHipProgramBind(program, operands, kOperands,
                                        PA_KERNELS_ALL, &error);
  CHECK(launch.ptr != NULL, "%s", error.data);
  fake.reset();
  CHECK(paHipLaunchEnqueueOperands(launch, copy, kOperands,
                                   PA_KERNEL_DECODE, stream, &error),
        "%s", error.data);
  CHECK(fake.launchCount() == 1 && launchHolds(0, copy[0].address) &&
            !launchHolds(0, operands[0].address),
        "the decode kernel reads the copy's query");
  fake.reset();
  CHECK(paHipLaunchEnqueueKernels(launch, PA_KERNEL_DECODE, stream, &error),
        "%s", error.data);
  CHECK(fake.launchCount() == 1 && launchHolds(0, operands[0].address),
        "the bound array's query again");
  copy[2].name = "sinks";
  fake.reset();
  CHECK(!paHipLaunchEnqueueOperands(launch, copy, kOperands,
                                    PA_KERNEL_DECODE, stream, &error) &&
            contains(error, "operand 2 is 'sinks' where the launch is bound "
                            "to 'value_cache'"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paHipLaunchEnqueueOperands(launch, operands, 3, PA_KERNEL_DECODE,
                                    stream, &error) &&
            contains(error, "the launch is bound to 13 operands; got 3"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(fake.launchCount() == 0, "nothing launched for a wrong array");

  /* The same enqueues held in a PaLaunchCall (one pointer per call). */
  copy[2].name = operands[2].name;
  PaLaunchCall call = {launch.ptr, copy, kOperands, PA_KERNEL_DECODE, stream,
                       {NULL, 0}};
  fake.reset();
  CHECK(paHipLaunchCall(&call), "%s", call.error.data);
  CHECK(fake.launchCount() == 1 && launchHolds(0, copy[0].address),
        "a call reads its operands' query");
  call.operands = NULL;
  fake.reset();
  CHECK(paHipLaunchCall(&call), "%s", call.error.data);
  CHECK(fake.launchCount() == 1 && launchHolds(0, operands[0].address),
        "a call without operands reads the bound array");
  call.operands = copy;
  call.count = 3;
  CHECK(!paHipLaunchCall(&call) &&
            contains(call.error, "the launch is bound to 13 operands; got 3"),
        "%s", call.error.data);
  paStringDestroy(call.error);
  call.count = kOperands;
  call.kernels = PA_KERNEL_PLAN | ((uint64_t)1 << 32);
  CHECK(!paHipLaunchCall(&call) &&
            contains(call.error, "paHipLaunchCall: the kernel mask 4294967297 "
                                 "does not fit 32 bits"),
        "%s", call.error.data);
  paStringDestroy(call.error);
  call.kernels = PA_KERNEL_DECODE;
  call.launch = NULL;
  CHECK(!paHipLaunchCall(&call) && contains(call.error, "needs a launch"),
        "%s", call.error.data);
  paStringDestroy(call.error);
  CHECK(!paHipLaunchCall(NULL), "a NULL call fails");
  CHECK(fake.launchCount() == 1, "nothing launched for a wrong call");
  paHipLaunchDestroy(launch);
  printf("ok a bound launch enqueued over a copy of its operands\n");
}

/* A multi-chip program (gfx942 and gfx950 code objects in one directory):
 * the HIP runtime loads the program of the GPU's chip (the fake reports
 * FAKE_HIP_ARCH), and says which chips there are when none is the GPU's;
 * CUDA finds no NVIDIA program; a single-chip program is not extended. */
static void testMultiChip(const char *hsaco, size_t size, const char *json,
                          const char *singleChipProgram) {
  /* In the test's working directory (CTest's: the build's test/CAPI). */
  const char *path = "decode-small-multi-chip.paprog";
  PaString error;
  const char *chips[] = {"gfx950", "gfx942"};
  for (int i = 0; i < 2; ++i)
    CHECK(paProgramWriteChip(path, chips[i], "hsaco", hsaco, size, json,
                             "{\"note\": 1}", &error),
          "%s", error.data);
  PaString listed;
  bool multiChip = false;
  CHECK(paProgramChips(path, &listed, &multiChip, &error), "%s", error.data);
  CHECK(multiChip && strcmp(listed.data, "gfx942 gfx950") == 0, "chips: %s",
        listed.data);
  paStringDestroy(listed);
  CHECK(paProgramChips(singleChipProgram, &listed, &multiChip, &error) &&
            !multiChip && strcmp(listed.data, "gfx950") == 0,
        "single-chip: %s", listed.data);
  paStringDestroy(listed);

  const char *archs[] = {"gfx942:sramecc+:xnack-", "gfx950"};
  const char *expected[] = {"gfx942", "gfx950"};
  for (int i = 0; i < 2; ++i) {
    setenv("FAKE_HIP_ARCH", archs[i], 1);
    PaString chip;
    CHECK(paHipProgramChip(path, &chip, &error), "%s", error.data);
    CHECK(strcmp(chip.data, expected[i]) == 0, "chose %s for %s", chip.data,
          archs[i]);
    paStringDestroy(chip);
    int loads = counter(Loads);
    PaHipProgram loaded = paHipProgramLoadFile(path, &error);
    CHECK(!paHipProgramIsNull(loaded), "%s", error.data);
    CHECK(counter(Loads) == loads + 1, "one module loaded");
    paHipProgramDestroy(loaded);
  }
  setenv("FAKE_HIP_ARCH", "gfx90a:xnack-", 1);
  int loads = counter(Loads);
  CHECK(paHipProgramIsNull(paHipProgramLoadFile(path, &error)) &&
            contains(error, "holds programs for gfx942, gfx950; none for "
                            "this GPU's chip, gfx90a"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(counter(Loads) == loads, "nothing loaded for another chip");
  unsetenv("FAKE_HIP_ARCH");

  PaString chip;
  CHECK(!paCudaProgramChip(path, &chip, &error) &&
            contains(error, "none for an NVIDIA GPU (sm_*)"),
        "%s", error.data);
  paStringDestroy(error);
  PaString format, config;
  CHECK(!paProgramDescribe(path, &chip, &format, &config, &error) &&
            contains(error, "is a multi-chip program"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paProgramWriteChip(singleChipProgram, "gfx942", "hsaco", hsaco, size,
                            json, NULL, &error) &&
            contains(error, "holds the single-chip program of gfx950"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paProgramWrite(path, "gfx942", "hsaco", hsaco, size, json, NULL,
                        &error) &&
            contains(error, "is a multi-chip program: add a chip's program "
                            "with paProgramWriteChip"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paProgramWriteChip(path, "../gfx942", "hsaco", hsaco, size, json,
                            NULL, &error) &&
            contains(error, "is not [A-Za-z0-9_-]+"),
        "%s", error.data);
  paStringDestroy(error);
  printf("ok a multi-chip program: the GPU's chip loaded, others named\n");
}

static void testFake(const char *hsaco, size_t size, const char *json,
                     const char *programPath) {
  bindFake();
  PaString reason;
  CHECK(paHipRuntimeAvailable(&reason), "the fake is a runtime: %s",
        reason.data);
  PaString error;
  /* Refused before the runtime loads anything. */
  CHECK(paHipProgramIsNull(
            paHipProgramLoad(hsaco, size, "{\"kernels\": 3}", &error)) &&
            contains(error, "kernels"),
        "%s", error.data);
  paStringDestroy(error);
  const char garbage[] = "not an ELF file";
  CHECK(paHipProgramIsNull(
            paHipProgramLoad(garbage, sizeof garbage, json, &error)) &&
            contains(error, "hipModuleLoadData: hipErrorInvalidImage"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(counter(Loads) == 0, "nothing loaded");

  PaHipProgram fromBytes = paHipProgramLoad(hsaco, size, json, &error);
  CHECK(!paHipProgramIsNull(fromBytes), "%s", error.data);
  PaHipProgram fromFile = paHipProgramLoadFile(programPath, &error);
  CHECK(!paHipProgramIsNull(fromFile), "%s", error.data);
  CHECK(counter(Loads) == 2, "two modules loaded");
  printf("ok loads: code object bytes and an AOT program directory\n");

  testHostRun(fromBytes);
  testEnqueue(fromFile);
  testEnqueueOperands(fromFile);
  paHipProgramDestroy(fromBytes);
  paHipProgramDestroy(fromFile);
  CHECK(counter(Unloads) == 2, "both modules unloaded");
  testMultiChip(hsaco, size, json, programPath);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr,
            "usage: %s none|fake|no-device KERNELS.hsaco KERNELS.hsaco.json "
            "PROGRAM.paprog CUDA-PROGRAM.paprog\n",
            argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0);
  size_t size = 0;
  char *hsaco = readFile(argv[2], &size);
  char *json = readFile(argv[3], NULL);
  CHECK(hsaco && json, "cannot read %s or %s", argv[2], argv[3]);
  const char *mode = argv[1];
  testProgramFiles(argv[4], argv[5]);
  if (strcmp(mode, "none") == 0)
    testWithoutRuntime(hsaco, size, json, argv[4], "/nonexistent");
  else if (strcmp(mode, "no-device") == 0)
    testWithoutRuntime(hsaco, size, json, argv[4], "sees no GPU");
  else if (strcmp(mode, "fake") == 0)
    testFake(hsaco, size, json, argv[4]);
  else
    CHECK(false, "unknown mode %s", mode);
  free(hsaco);
  free(json);
  printf("all %d checks passed\n", checks);
  return 0;
}
