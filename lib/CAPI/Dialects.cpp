//===- Dialects.cpp - C API: pa in an MLIR C-API program ------------------===//
#include "pa-c/Dialects.h"

#include "Wrap.h"
#include "pa/API/Builders.h"
#include "pa/API/Compile.h"
#include "pa/IR/PaDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

using namespace mlir;
using namespace mlir::pa::capi;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Pa, pa, mlir::pa::PaDialect)

void paRegisterDialects(MlirDialectRegistry registry) {
  mlir::pa::registerPaDialects(*unwrap(registry));
}

void paRegisterPasses(void) { mlir::pa::registerPaPasses(); }

MlirModule paBuildDecodeModule(MlirContext context, const PaDecodeConfig *c,
                               PaString *error) {
  clear(error);
  mlir::pa::DecodeConfig config;
  std::string message;
  if (mlirContextIsNull(context)) {
    report(error, "paBuildDecodeModule needs a context");
    return {nullptr};
  }
  if (!unwrapConfig(c, config, message)) {
    report(error, message);
    return {nullptr};
  }
  OwningOpRef<ModuleOp> module =
      mlir::pa::buildDecodeModule(*unwrap(context), config, message);
  if (!module) {
    report(error, message);
    return {nullptr};
  }
  return wrap(module.release());
}

PaArtifact paCompileModule(MlirModule module, const char *chip,
                           const PaCompileOptions *options, PaString *error) {
  clear(error);
  if (mlirModuleIsNull(module) || !chip) {
    report(error, "paCompileModule needs a module and a chip");
    return {nullptr};
  }
  mlir::pa::CompileOptions compileOptions;
  std::string message;
  if (!unwrapOptions(options, compileOptions, message)) {
    report(error, message);
    return {nullptr};
  }
  return wrapArtifact(
      mlir::pa::compileModule(unwrap(module), chip, compileOptions, message),
      message, error);
}
