//===- PaOps.h - pa.plan, pa.decode, pa.reduce ------------------*- C++ -*-===//
#ifndef PA_IR_PAOPS_H
#define PA_IR_PAOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "pa/IR/PaDialect.h"

#define GET_OP_CLASSES
#include "pa/IR/PaOps.h.inc"

#endif // PA_IR_PAOPS_H
