//===- PaDialect.h - the pa dialect, its enums and attributes ---*- C++ -*-===//
#ifndef PA_IR_PADIALECT_H
#define PA_IR_PADIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "pa/IR/PaDialect.h.inc"
#include "pa/IR/PaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pa/IR/PaAttrs.h.inc"

#endif // PA_IR_PADIALECT_H
