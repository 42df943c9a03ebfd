/*===- capi_test.c - the C API, from C ------------------------------------===*\
|*                                                                            *|
|*   pa-capi-test EXAMPLE.mlir                                                *|
|*   pa-capi-test --hip-fake    (PA_HIP_LIBRARY names libpa-fake-hip.so)      *|
|*                                                                            *|
|* Compiles a configuration and module text to code objects (with stages),   *|
|* checks the errors of bad input, runs a decode on the host with an exact   *|
|* expected output, drives the dialect through MLIR's own C API, and runs    *|
|* the same decode through HIP when a HIP runtime and GPU are there.         *|
|* --hip-fake: paHipProgramCreate / paHipProgramRunBuffers (compile, then   *|
|* the runtime library) through the recording fake HIP runtime.             *|
|* Prints one line per check; exits non-zero on the first failure.          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#include "pa-c/Compile.h"
#include "pa-c/Decode.h"
#include "pa-c/Dialects.h"
#include "pa-c/Hip.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TestHarness.h"

/* `ref` contains `needle`. */
static bool contains(PaStringRef ref, const char *needle) {
  size_t n = strlen(needle);
  if (!ref.data || ref.length < n)
    return false;
  for (size_t i = 0; i + n <= ref.length; ++i)
    if (memcmp(ref.data + i, needle, n) == 0)
      return true;
  return false;
}

static bool stringContains(PaString string, const char *needle) {
  PaStringRef ref = {string.data, string.length};
  return contains(ref, needle);
}

/* Hq = 8, Hkv = 1, D = 64, P = 16, Q = 1, e4m3fn, per-tensor scales, a plan
 * budget small enough to keep the buffers small. */
static PaDecodeConfig smallConfig(void) {
  PaDecodeConfig config = paDecodeConfigGetDefault();
  config.headDim = 64;
  config.scaleMode = PA_SCALE_PER_TENSOR;
  config.budget = 4;
  config.maxPartitions = 2;
  return config;
}

/*===----------------------------------------------------------------------===*/
/* Code objects                                                               */
/*===----------------------------------------------------------------------===*/

static void testCompileConfigWithStages(void) {
  PaDecodeConfig config = smallConfig();
  PaCompileOptions options = paCompileOptionsGetDefault();
  CHECK(options.codeObjectVersion == 5 && !options.keepStages &&
            options.fp8Residual == PA_FP8_RESIDUAL_QUERY_AND_P &&
            options.cacheOffsets == PA_CACHE_OFFSETS_AUTO &&
            options.keyPrefetch == PA_KEY_PREFETCH_AUTO,
        "defaults");
  options.keepStages = true;
  PaString error;
  PaArtifact artifact = paCompileConfig(&config, &options, &error);
  CHECK(!paArtifactIsNull(artifact), "%s", error.data);
  CHECK(error.data == NULL, "no error text on success");

  PaStringRef format = paArtifactGetFormat(artifact);
  PaStringRef chip = paArtifactGetChip(artifact);
  CHECK(format.length == 5 && memcmp(format.data, "hsaco", 5) == 0, "%s",
        format.data);
  CHECK(chip.length == 6 && memcmp(chip.data, "gfx950", 6) == 0, "%s",
        chip.data);
  PaStringRef code = paArtifactGetCodeObject(artifact);
  CHECK(code.length > 4 && memcmp(code.data, "\x7f" "ELF", 4) == 0,
        "an ELF code object");
  PaStringRef metadata = paArtifactGetMetadata(artifact);
  CHECK(contains(metadata, "\"name\": \"pa_plan\"") &&
            contains(metadata, "\"name\": \"pa_decode\"") &&
            contains(metadata, "\"name\": \"pa_reduce\"") &&
            contains(metadata, "key_cache.aligned_ptr") &&
            contains(metadata, "x = work_info dim 0"),
        "%.*s", (int)metadata.length, metadata.data);

  /* The stages in pipeline order, each what its name says. */
  const char *names[] = {"pa", "tiled", "rocdl", "llvm", "isa"};
  const char *marks[] = {"pa.decode", "pa.tile.", "rocdl.", "amdgpu_kernel",
                         ".amdhsa_kernel pa_decode"};
  CHECK(paArtifactGetNumStages(artifact) == 5, "%ld stages",
        (long)paArtifactGetNumStages(artifact));
  for (intptr_t i = 0; i < 5; ++i) {
    PaStringRef name = paArtifactGetStageName(artifact, i);
    PaStringRef text = paArtifactGetStageText(artifact, i);
    CHECK(name.length == strlen(names[i]) &&
              memcmp(name.data, names[i], name.length) == 0,
          "stage %ld is %s", (long)i, name.data);
    CHECK(contains(text, marks[i]), "stage %s has %s", names[i], marks[i]);
  }
  CHECK(paArtifactGetStageName(artifact, 5).data == NULL, "past the end");
  paArtifactDestroy(artifact);
  printf("ok compile a configuration, with stages\n");
}

/* Occurrences of `needle` in `ref`. */
static int occurrences(PaStringRef ref, const char *needle) {
  size_t n = strlen(needle);
  int count = 0;
  for (size_t i = 0; ref.data && i + n <= ref.length; ++i)
    if (memcmp(ref.data + i, needle, n) == 0)
      ++count;
  return count;
}

/* The AMDGPU assembly (the "isa" stage) of smallConfig() compiled with
 * `options` (stages kept). */
static PaArtifact compileWithStages(PaCompileOptions options,
                                    PaStringRef *isa) {
  PaDecodeConfig config = smallConfig();
  options.keepStages = true;
  PaString error;
  PaArtifact artifact = paCompileConfig(&config, &options, &error);
  CHECK(!paArtifactIsNull(artifact), "%s", error.data);
  intptr_t last = paArtifactGetNumStages(artifact) - 1;
  *isa = paArtifactGetStageText(artifact, last);
  return artifact;
}

/* fp8Residual, cacheOffsets and keyPrefetch reach pa-to-mfma: fewer MFMAs
 * without the residual products, no buffer loads with 64-bit offsets only,
 * the first tile's K loaded before the loop (more buffer loads) with the
 * next tile's K prefetched. */
static void testCompileMFMAOptions(void) {
  PaCompileOptions options = paCompileOptionsGetDefault();
  PaStringRef isa;
  PaArtifact defaults = compileWithStages(options, &isa);
  int defaultMFMAs = occurrences(isa, "v_mfma_");
  CHECK(defaultMFMAs > 0 && occurrences(isa, "buffer_load_dwordx4") > 0,
        "the default kernel has MFMAs and buffer loads");

  options.fp8Residual = PA_FP8_RESIDUAL_NONE;
  PaArtifact none = compileWithStages(options, &isa);
  CHECK(occurrences(isa, "v_mfma_") < defaultMFMAs,
        "fp8Residual none: %d MFMAs, default %d", occurrences(isa, "v_mfma_"),
        defaultMFMAs);

  options = paCompileOptionsGetDefault();
  options.cacheOffsets = PA_CACHE_OFFSETS_64;
  PaArtifact wide = compileWithStages(options, &isa);
  CHECK(occurrences(isa, "buffer_load_dwordx4") == 0 &&
            occurrences(isa, "global_load_dwordx4") > 0,
        "cacheOffsets 64: global loads only");
  options = paCompileOptionsGetDefault();
  options.keyPrefetch = PA_KEY_PREFETCH_NONE;
  PaArtifact ownKeys = compileWithStages(options, &isa);
  int ownKeyLoads = occurrences(isa, "buffer_load_dwordx4");
  options.keyPrefetch = PA_KEY_PREFETCH_NEXT_TILE;
  PaArtifact nextKeys = compileWithStages(options, &isa);
  CHECK(occurrences(isa, "buffer_load_dwordx4") > ownKeyLoads,
        "keyPrefetch next-tile: the first tile's K before the loop");
  paArtifactDestroy(defaults);
  paArtifactDestroy(none);
  paArtifactDestroy(wide);
  paArtifactDestroy(ownKeys);
  paArtifactDestroy(nextKeys);

  PaDecodeConfig config = smallConfig();
  PaString error;
  options = paCompileOptionsGetDefault();
  options.fp8Residual = 3;
  PaArtifact bad = paCompileConfig(&config, &options, &error);
  CHECK(paArtifactIsNull(bad) &&
            stringContains(error, "PaCompileOptions.fp8Residual 3"),
        "%s", error.data);
  paStringDestroy(error);
  options = paCompileOptionsGetDefault();
  options.cacheOffsets = -1;
  bad = paCompileText(paStringRefFromCString("module {}"), "gfx950", &options,
                      NULL, &error);
  CHECK(paArtifactIsNull(bad) &&
            stringContains(error, "PaCompileOptions.cacheOffsets -1"),
        "%s", error.data);
  paStringDestroy(error);
  options = paCompileOptionsGetDefault();
  options.keyPrefetch = 3;
  bad = paCompileConfig(&config, &options, &error);
  CHECK(paArtifactIsNull(bad) &&
            stringContains(error, "PaCompileOptions.keyPrefetch 3"),
        "%s", error.data);
  paStringDestroy(error);
  printf("ok compile options of the MFMA lowering\n");
}

static void testCompileText(const char *examplePath) {
  char *text = readFile(examplePath, NULL);
  CHECK(text != NULL, "cannot read %s", examplePath);
  PaString error;
  PaArtifact artifact =
      paCompileText(paStringRefFromCString(text), "gfx950", NULL, examplePath,
                    &error);
  CHECK(!paArtifactIsNull(artifact), "%s", error.data);
  CHECK(paArtifactGetNumStages(artifact) == 0, "no stages unless asked");
  CHECK(contains(paArtifactGetMetadata(artifact), "amdgcn-amd-amdhsa--gfx950"),
        "the target");
  paArtifactDestroy(artifact);

  PaCompileOptions v6 = paCompileOptionsGetDefault();
  v6.codeObjectVersion = 6;
  artifact = paCompileText(paStringRefFromCString(text), "gfx950", &v6,
                           examplePath, &error);
  CHECK(!paArtifactIsNull(artifact), "%s", error.data);
  paArtifactDestroy(artifact);
  free(text);
  printf("ok compile module text\n");
}

static void testCompileErrors(void) {
  PaString error;
  PaArtifact artifact =
      paCompileText(paStringRefFromCString("func.func @f( {"), "gfx950", NULL,
                    "broken.mlir", &error);
  CHECK(paArtifactIsNull(artifact), "a parse error");
  CHECK(stringContains(error, "broken.mlir:1:"), "%s", error.data);
  paStringDestroy(error);

  PaDecodeConfig config = smallConfig();
  config.numQueryHeads = 6;
  config.numKVHeads = 4;
  artifact = paCompileConfig(&config, NULL, &error);
  CHECK(paArtifactIsNull(artifact), "a verifier error");
  CHECK(stringContains(error, "must be a multiple of KV heads"), "%s",
        error.data);
  paStringDestroy(error);

  config = smallConfig();
  config.chip = "gfx1100";
  artifact = paCompileConfig(&config, NULL, &error);
  CHECK(paArtifactIsNull(artifact) && stringContains(error, "unknown chip"),
        "%s", error.data);
  paStringDestroy(error);

  PaCompileOptions v4 = paCompileOptionsGetDefault();
  v4.codeObjectVersion = 4;
  config = smallConfig();
  artifact = paCompileConfig(&config, &v4, &error);
  CHECK(paArtifactIsNull(artifact) &&
            stringContains(error, "unsupported code object version 4"),
        "%s", error.data);
  paStringDestroy(error);

  config = smallConfig();
  config.kvType = 7;
  artifact = paCompileConfig(&config, NULL, &error);
  CHECK(paArtifactIsNull(artifact) &&
            stringContains(error, "PaDecodeConfig.kvType"),
        "%s", error.data);
  paStringDestroy(error);

  CHECK(paArtifactIsNull(paCompileText(paStringRefFromCString(NULL), "gfx950",
                                       NULL, NULL, NULL)),
        "NULL text, NULL error: no crash");
  printf("ok compile errors are reported, not printed\n");
}

static void testPlanCapacity(void) {
  PaDecodeConfig config = smallConfig();
  config.numKVHeads = 2;
  config.numQueryHeads = 8;
  config.budget = 12;
  config.maxPartitions = 4;
  /* min(B * max_partitions, max(B, ceil(budget / Hkv))) */
  CHECK(paDecodeConfigPlanCapacity(&config, 3) == 6, "B = 3");
  CHECK(paDecodeConfigPlanCapacity(&config, 1) == 4, "B = 1");
  CHECK(paDecodeConfigPlanCapacity(&config, 10) == 10, "B = 10");
  CHECK(paDecodeConfigPlanCapacity(&config, 0) == 0, "B = 0");
  CHECK(paDecodeConfigPlanCapacity(&config, -1) == -1, "B < 0");
  config.chip = "nope";
  CHECK(paDecodeConfigPlanCapacity(&config, 3) == -1, "unknown chip");
  printf("ok plan capacity\n");
}

/*===----------------------------------------------------------------------===*/
/* A decode with an exact answer                                              */
/*===----------------------------------------------------------------------===*/

/* Sequence 0 sees one token, sequence 1 none. With one visible token the
 * softmax weight is exactly 1, so every output row is that token's V row
 * times v_scale (1): e4m3fn values that bf16 holds exactly. Sequence 1's
 * rows are 0. */
enum { kBatch = 2, kPages = 2, kHeads = 8, kDim = 64, kPage = 16 };
static const uint8_t kValueBits[5] = {0x38, 0x40, 0xB8, 0x30, 0x3C};
static const uint16_t kValueBf16[5] = {0x3F80, 0x4000, 0xBF80, 0x3F00, 0x3FC0};

typedef struct {
  uint16_t query[kBatch * kHeads * kDim];
  uint8_t keyCache[kPages * kDim * kPage];
  uint8_t valueCache[kPages * kDim * kPage]; /* plain [N, 1, D, P] */
  int32_t blockTables[kBatch];
  int32_t contextLengths[kBatch];
  float kScale, vScale;
  int32_t workInfo[64 * 4];
  int32_t reduceInfo[kBatch * 2];
  float expSums[64 * kHeads];
  float maxLogits[64 * kHeads];
  float tmpOut[64 * kHeads * kDim];
  uint16_t output[kBatch * kHeads * kDim];
  PaHostBuffers buffers;
} ExactCase;

static void makeExactCase(ExactCase *c, int64_t capacity) {
  memset(c, 0, sizeof *c);
  CHECK(capacity <= 64, "capacity %ld", (long)capacity);
  for (int i = 0; i < kBatch * kHeads * kDim; ++i)
    c->query[i] = (uint16_t)(0x3F80 | ((i & 1) << 15)); /* +-1 */
  for (int i = 0; i < kPages * kDim * kPage; ++i)
    c->keyCache[i] = 0x30;
  for (int d = 0; d < kDim; ++d)
    for (int slot = 0; slot < kPage; ++slot)
      c->valueCache[(1 * kDim + d) * kPage + slot] =
          slot == 0 ? kValueBits[d % 5] : 0x7F; /* NaN past the context */
  c->blockTables[0] = 1;
  c->blockTables[1] = 0;
  c->contextLengths[0] = 1;
  c->contextLengths[1] = 0;
  c->kScale = 0.5f;
  c->vScale = 1.0f;
  for (int i = 0; i < kBatch * kHeads * kDim; ++i)
    c->output[i] = 0x7FC0; /* NaN: must be overwritten */
  PaHostBuffers *b = &c->buffers;
  b->abi = PA_HOST_BUFFERS_ABI;
  b->batch = kBatch;
  b->numPages = kPages;
  b->maxPagesPerSequence = 1;
  b->capacity = capacity;
  b->query = c->query;
  b->keyCache = c->keyCache;
  b->valueCache = c->valueCache;
  b->blockTables = c->blockTables;
  b->contextLengths = c->contextLengths;
  b->kScale = &c->kScale;
  b->vScale = &c->vScale;
  b->workInfo = c->workInfo;
  b->reduceInfo = c->reduceInfo;
  b->expSums = c->expSums;
  b->maxLogits = c->maxLogits;
  b->tmpOut = c->tmpOut;
  b->output = c->output;
}

static void checkExactOutput(const ExactCase *c, const char *executor) {
  for (int h = 0; h < kHeads; ++h)
    for (int d = 0; d < kDim; ++d) {
      uint16_t seen = c->output[h * kDim + d];
      uint16_t empty = c->output[(kHeads + h) * kDim + d];
      CHECK(seen == kValueBf16[d % 5], "%s: output[0][%d][%d] = 0x%04x",
            executor, h, d, seen);
      CHECK(empty == 0, "%s: output[1][%d][%d] = 0x%04x", executor, h, d,
            empty);
    }
  CHECK(c->reduceInfo[3] == 0,
        "%s: the empty sequence has no partition", executor);
}

static void testHostRun(void) {
  PaDecodeConfig config = smallConfig();
  PaString error;
  PaHostProgram program = paHostProgramCreate(&config, &error);
  CHECK(!paHostProgramIsNull(program), "%s", error.data);
  int64_t capacity = paHostProgramPlanCapacity(program, kBatch);
  CHECK(capacity == paDecodeConfigPlanCapacity(&config, kBatch),
        "one capacity rule");
  /* An error, never a negative capacity (it was -5 for B = -5). */
  CHECK(paHostProgramPlanCapacity(program, -5) == -1, "B < 0");
  CHECK(paHostProgramPlanCapacity((PaHostProgram){NULL}, 3) == -1,
        "null program");
  static ExactCase c;
  makeExactCase(&c, capacity);
  CHECK(paHostProgramRun(program, &c.buffers, &error), "%s", error.data);
  checkExactOutput(&c, "host");

  c.contextLengths[0] = 17; /* past the one page of the block table */
  CHECK(!paHostProgramRun(program, &c.buffers, &error) &&
            stringContains(error, "context_lengths[0] = 17"),
        "%s", error.data);
  paStringDestroy(error);

  /* A caller compiled against the header before the `abi` field: its
   * buffers start with `batch` (held in a union with the current struct,
   * which is one field longer, so the library reads inside it). Refused
   * by the marker, not read with every field one place off. */
  union {
    struct {
      int64_t batch, numPages, maxPagesPerSequence, capacity;
      const void *arrays[16];
      int64_t keyPageStride, valuePageStride;
    } old;
    PaHostBuffers current;
  } caller;
  memset(&caller, 0, sizeof caller);
  caller.old.batch = kBatch;
  caller.old.numPages = kPages;
  caller.old.maxPagesPerSequence = 1;
  caller.old.capacity = capacity;
  memcpy(caller.old.arrays, &c.buffers.query, sizeof caller.old.arrays);
  CHECK(!paHostProgramRun(program, &caller.current, &error) &&
            stringContains(error, "PaHostBuffers.abi is 0x0000000000000002, "
                                  "not this library's PA_HOST_BUFFERS_ABI "
                                  "0x5041425500000001") &&
            stringContains(error, "another pa-c/Decode.h"),
        "%s", error.data);
  paStringDestroy(error);
  c.buffers.abi = 0; /* a struct filled without the marker */
  CHECK(!paHostProgramRun(program, &c.buffers, &error) &&
            stringContains(error, "PaHostBuffers.abi is 0x0000000000000000"),
        "%s", error.data);
  paStringDestroy(error);
  paHostProgramDestroy(program);
  printf("ok host execution, exact output, buffers of another layout "
         "refused\n");
}

/*===----------------------------------------------------------------------===*/
/* MLIR's C API                                                               */
/*===----------------------------------------------------------------------===*/

typedef struct {
  char text[1 << 20];
  size_t length;
} Printed;

static void collect(MlirStringRef chunk, void *userData) {
  Printed *printed = userData;
  size_t room = sizeof printed->text - 1 - printed->length;
  size_t n = chunk.length < room ? chunk.length : room;
  memcpy(printed->text + printed->length, chunk.data, n);
  printed->length += n;
  printed->text[printed->length] = '\0';
}

static void testMlirCApi(void) {
  MlirDialectHandle pa = mlirGetDialectHandle__pa__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(pa);
  CHECK(ns.length == 2 && memcmp(ns.data, "pa", 2) == 0, "the pa handle");

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  paRegisterDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);

  PaDecodeConfig config = smallConfig();
  PaString error;
  MlirModule module = paBuildDecodeModule(context, &config, &error);
  CHECK(!mlirModuleIsNull(module), "%s", error.data);
  MlirOperation op = mlirModuleGetOperation(module);
  CHECK(mlirOperationVerify(op), "the module verifies");
  static Printed printed;
  printed.length = 0;
  mlirOperationPrint(op, collect, &printed);
  CHECK(strstr(printed.text, "pa.plan") && strstr(printed.text, "pa.reduce"),
        "%s", printed.text);

  /* The named pipeline, through MLIR's textual pipeline parser. */
  paRegisterPasses();
  MlirPassManager pm = mlirPassManagerCreate(context);
  static Printed parseErrors;
  parseErrors.length = 0;
  const char *pipeline = "builtin.module(pa-lower-to-rocdl{chip=gfx950})";
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), collect, &parseErrors);
  CHECK(mlirLogicalResultIsSuccess(parsed), "%s", parseErrors.text);
  CHECK(mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op)),
        "the ROCDL pipeline runs");
  printed.length = 0;
  mlirOperationPrint(op, collect, &printed);
  CHECK(strstr(printed.text, "llvm.func @pa_decode") &&
            strstr(printed.text, "gpu.launch_func"),
        "kernels lowered, launches kept");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  /* A module of the frontend's context, to a code object. */
  module = paBuildDecodeModule(context, &config, &error);
  CHECK(!mlirModuleIsNull(module), "%s", error.data);
  PaArtifact artifact = paCompileModule(module, "gfx950", NULL, &error);
  CHECK(!paArtifactIsNull(artifact), "%s", error.data);
  CHECK(paArtifactGetCodeObject(artifact).length > 0, "a code object");
  paArtifactDestroy(artifact);
  mlirModuleDestroy(module);

  config.numQueryHeads = 6;
  config.numKVHeads = 4;
  module = paBuildDecodeModule(context, &config, &error);
  CHECK(mlirModuleIsNull(module) &&
            stringContains(error, "must be a multiple of KV heads"),
        "%s", error.data);
  paStringDestroy(error);
  mlirContextDestroy(context);
  printf("ok the dialect through MLIR's C API\n");
}

/*===----------------------------------------------------------------------===*/
/* HIP                                                                        */
/*===----------------------------------------------------------------------===*/

static void testHip(void) {
  PaString reason;
  PaDecodeConfig config = smallConfig();
  PaString error;
  if (!paHipRuntimeAvailable(&reason)) {
    CHECK(reason.data && reason.length > 0, "a reason");
    PaHipProgram program = paHipProgramCreate(&config, &error);
    CHECK(paHipProgramIsNull(program) && error.data, "no program without HIP");
    printf("ok HIP: none here (%s)\n", reason.data);
    paStringDestroy(reason);
    paStringDestroy(error);
    return;
  }
  PaHipProgram program = paHipProgramCreate(&config, &error);
  CHECK(!paHipProgramIsNull(program), "%s", error.data);
  static ExactCase c;
  makeExactCase(&c, paDecodeConfigPlanCapacity(&config, kBatch));
  CHECK(paHipProgramRunBuffers(program, &config, &c.buffers, &error), "%s",
        error.data);
  checkExactOutput(&c, "hip");
  paHipProgramDestroy(program);
  printf("ok HIP execution, exact output\n");
}

/* libPACAPI.so's HIP entry points hand the compiled code object to the
 * runtime library: through the fake (kernels do not run), the three
 * launches, every operand copied in and the outputs back, the checks of a
 * configuration's buffers before anything is copied. */
static void testHipThroughFake(void) {
  const char *path = getenv("PA_HIP_LIBRARY");
  CHECK(path != NULL, "--hip-fake needs PA_HIP_LIBRARY");
  void *fake = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CHECK(fake != NULL, "%s", dlerror());
  int (*launchCount)(void);
  void (*counters)(int *, int *, int *, int *);
  void (*reset)(void);
  *(void **)&launchCount = dlsym(fake, "fakeHipLaunchCount");
  *(void **)&counters = dlsym(fake, "fakeHipCounters");
  *(void **)&reset = dlsym(fake, "fakeHipReset");
  CHECK(launchCount && counters && reset, "the fake's record functions");

  PaDecodeConfig config = smallConfig();
  PaString error;
  PaHipProgram program = paHipProgramCreate(&config, &error);
  CHECK(!paHipProgramIsNull(program), "%s", error.data);
  static ExactCase c;
  makeExactCase(&c, paDecodeConfigPlanCapacity(&config, kBatch));
  reset();
  CHECK(paHipProgramRunBuffers(program, &config, &c.buffers, &error), "%s",
        error.data);
  int loads, unloads, copies, syncs;
  counters(&loads, &unloads, &copies, &syncs);
  CHECK(launchCount() == 3, "%d launches", launchCount());
  CHECK(copies == 13 + 6 && syncs == 1, "%d copies, %d waits", copies, syncs);
  CHECK(c.output[0] == 0x7FC0, "the output came back as copied in (the "
                               "fake runs no kernel): 0x%04x",
        c.output[0]);

  reset();
  c.buffers.query = NULL;
  CHECK(!paHipProgramRunBuffers(program, &config, &c.buffers, &error) &&
            stringContains(error, "query"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(!paHipProgramRunBuffers(program, NULL, &c.buffers, &error) &&
            stringContains(error, "needs a program, its configuration and "
                                  "buffers"),
        "%s", error.data);
  paStringDestroy(error);
  CHECK(launchCount() == 0, "nothing launched for bad buffers");
  paHipProgramDestroy(program);

  config.chip = "sm_90a";
  program = paHipProgramCreate(&config, &error);
  CHECK(paHipProgramIsNull(program) &&
            stringContains(error, "is not an AMD chip"),
        "%s", error.data);
  paStringDestroy(error);
  printf("ok paHipProgramCreate / RunBuffers through the runtime library\n");
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--hip-fake") == 0) {
    testHipThroughFake();
    printf("all %d checks passed\n", checks);
    return 0;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: %s EXAMPLE.mlir | --hip-fake\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0); /* progress lines before a failure */
  testCompileConfigWithStages();
  testCompileMFMAOptions();
  testCompileText(argv[1]);
  testCompileErrors();
  testPlanCapacity();
  testHostRun();
  testMlirCApi();
  testHip();
  printf("all %d checks passed\n", checks);
  return 0;
}
