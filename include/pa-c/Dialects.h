/*===- pa-c/Dialects.h - C API: pa in an MLIR C-API program ------*- C -*-===*\
|*                                                                            *|
|* For frontends that drive MLIR through its C API (mlir-c/): the pa dialect  *|
|* handle, registration of every dialect and pass the pa pipelines use into  *|
|* their registry, the decode module of a configuration in their context,   *|
|* and their module compiled to a code object. libPACAPI.so carries MLIR's    *|
|* core C API (mlir-c/IR.h, mlir-c/Pass.h) for the libMLIR.so it links.       *|
|*                                                                            *|
|*   MlirDialectRegistry registry = mlirDialectRegistryCreate();             *|
|*   paRegisterDialects(registry);                                            *|
|*   MlirContext ctx = mlirContextCreateWithRegistry(registry, false);        *|
|*   paRegisterPasses();  // then mlirParsePassPipeline finds                 *|
|*                        // "builtin.module(pa-lower-to-rocdl{chip=gfx950})" *|
|*   MlirModule module = mlirModuleCreateParse(ctx, text);                    *|
|*   PaArtifact artifact = paCompileModule(module, "gfx950", NULL, &error);   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_DIALECTS_H
#define PA_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "pa-c/Compile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__pa__(): the pa dialect alone. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Pa, pa);

/* Inserts pa and every dialect its pipelines create (func, memref, arith,
 * scf, cf, math, vector, affine, index, gpu, amdgpu, rocdl, nvvm, llvm, ub)
 * with their LLVM IR translations into `registry`. */
PA_CAPI_EXPORTED void paRegisterDialects(MlirDialectRegistry registry);

/* Registers the pa passes and named pipelines (pa-lower-to-host,
 * pa-lower-to-rocdl, ...) in MLIR's global pass registry. Idempotent. */
PA_CAPI_EXPORTED void paRegisterPasses(void);

/* The verified module of `config` (func.func @pa_decode: pa.plan, pa.decode,
 * pa.reduce) in `context`, which needs the dialects of paRegisterDialects;
 * a null module with `error` when the configuration is invalid. */
PA_CAPI_EXPORTED MlirModule paBuildDecodeModule(MlirContext context,
                                                const PaDecodeConfig *config,
                                                PaString *error);

/* Compiles the pa ops of `module` (lowered in place) for `chip`; see
 * paCompileConfig. */
PA_CAPI_EXPORTED PaArtifact paCompileModule(MlirModule module,
                                            const char *chip,
                                            const PaCompileOptions *options,
                                            PaString *error);

#ifdef __cplusplus
}
#endif

#endif /* PA_C_DIALECTS_H */
