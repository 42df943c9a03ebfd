//===- OperandTable.h - the operand table for the API's types ---*- C++ -*-===//
//
// @pa_decode's operands (names, shapes, argument order) come from one table,
// ::pa::runtime::decodeOperands (pa/Runtime/DecodeOperands.h, plain C++ for
// the runtimes); these functions give it a DecodeConfig and HostBuffers.
// Not in the public headers: the runtime's top-level namespace `pa` would
// make `pa` ambiguous in code that says `using namespace mlir`.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_API_OPERANDTABLE_H
#define PA_LIB_API_OPERANDTABLE_H

#include "pa/API/HostProgram.h"
#include "pa/Runtime/DecodeOperands.h"

#include <vector>

namespace mlir::pa {

/// The operands of a run of `config` on `buffers`' dims, in argument order.
std::vector<::pa::runtime::DecodeOperand>
operandTable(const DecodeConfig &config, const HostBuffers &buffers);

/// `buffers`' buffer of the operand `name` (a name of the table); null when
/// not given.
const void *operandData(const HostBuffers &buffers, llvm::StringRef name);

} // namespace mlir::pa

#endif // PA_LIB_API_OPERANDTABLE_H
