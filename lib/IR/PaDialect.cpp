//===- PaDialect.cpp - pa dialect registration ----------------------------===//
#include "pa/IR/PaDialect.h"
#include "pa/IR/PaOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pa;

#include "pa/IR/PaDialect.cpp.inc"
#include "pa/IR/PaEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pa/IR/PaAttrs.cpp.inc"

void PaDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pa/IR/PaOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pa/IR/PaAttrs.cpp.inc"
      >();
}
