/*===- capi-frontend.c - ahead-of-time deployment through the C API ------===*\
|*                                                                            *|
|*   pa-capi-frontend-example OUT.paprog [CHIP]                               *|
|*                                                                            *|
|* What a serving stack's build step and its serving machine do with an     *|
|* installed pa-mlir (find_package(PaMLIR); examples/frontend/CMakeLists.txt *|
|* builds this file against the install tree as well as in the project):    *|
|*   1. build time (libPACAPI.so, the compiler): compile a decode            *|
|*      configuration for CHIP (default gfx950) and write it as an AOT       *|
|*      program directory;                                                   *|
|*   2. serving time (libPARuntimeCAPI.so only): read the program back and  *|
|*      load it with the runtime of its vendor when there is one (HIP:      *|
|*      libamdhip64 or PA_HIP_LIBRARY; CUDA: libcuda.so.1 or               *|
|*      PA_CUDA_LIBRARY), else say why not.                                  *|
|* Exits non-zero with the message of the first call that fails.            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#include "pa-c/Compile.h"
#include "pa-c/Cuda.h"
#include "pa-c/Hip.h"

#include <stdio.h>
#include <string.h>

static int fail(const char *what, PaString error) {
  fprintf(stderr, "%s: %s\n", what, error.data ? error.data : "(no message)");
  paStringDestroy(error);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s OUT.paprog [CHIP]\n", argv[0]);
    return 2;
  }
  const char *path = argv[1];
  const char *chip = argc == 3 ? argv[2] : "gfx950";
  PaString error;

  /* 1. Build time: D = 128, GQA 8, fp8 KV with per-tensor scales. */
  PaDecodeConfig config = paDecodeConfigGetDefault();
  config.numQueryHeads = 16;
  config.numKVHeads = 2;
  config.scaleMode = PA_SCALE_PER_TENSOR;
  config.chip = chip;
  config.kvType = strcmp(chip, "gfx942") == 0 ? PA_KV_E4M3FNUZ : PA_KV_E4M3FN;
  PaArtifact artifact = paCompileConfig(&config, NULL, &error);
  if (paArtifactIsNull(artifact))
    return fail("compile", error);
  PaStringRef format = paArtifactGetFormat(artifact);
  printf("compiled for %s: %zu bytes of %.*s\n", chip,
         paArtifactGetCodeObject(artifact).length, (int)format.length,
         format.data);
  bool written = paArtifactWriteProgram(
      artifact, path, "{\"example\": \"capi-frontend\"}", &error);
  paArtifactDestroy(artifact);
  if (!written)
    return fail("write", error);
  printf("wrote %s\n", path);

  /* 2. Serving time: nothing below needs the compiler. */
  PaString programChip, programFormat, recorded;
  if (!paProgramDescribe(path, &programChip, &programFormat, &recorded,
                         &error))
    return fail("describe", error);
  printf("program for %s (%s), config %s\n", programChip.data,
         programFormat.data, recorded.data);
  bool amd = strcmp(programFormat.data, "hsaco") == 0;
  paStringDestroy(programChip);
  paStringDestroy(programFormat);
  paStringDestroy(recorded);

  PaString reason;
  if (amd ? !paHipRuntimeAvailable(&reason) : !paCudaRuntimeAvailable(&reason)) {
    printf("not loaded: %s\n", reason.data);
    paStringDestroy(reason);
    return 0;
  }
  if (amd) {
    PaHipProgram program = paHipProgramLoadFile(path, &error);
    if (paHipProgramIsNull(program))
      return fail("load", error);
    paHipProgramDestroy(program);
  } else {
    PaCudaProgram program = paCudaProgramLoadFile(path, &error);
    if (paCudaProgramIsNull(program))
      return fail("load", error);
    paCudaProgramDestroy(program);
  }
  printf("loaded with %s\n", amd ? "HIP" : "CUDA");
  return 0;
}
