//===- PaBufferization.cpp - one-shot-bufferize of the pa ops -------------===//
//
// A pa op on tensors reads every operand and writes its outputs (the DPS
// inits), each output's buffer being its tied result
// (DstBufferizableOpInterfaceExternalModel). Bufferizing creates the same
// op on the operands' buffers, without results, and the results become the
// output buffers.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/PaBufferization.h"

#include "pa/IR/PaDialect.h"
#include "pa/IR/PaOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace {

template <typename OpTy>
struct PaOpBufferization
    : public DstBufferizableOpInterfaceExternalModel<PaOpBufferization<OpTy>,
                                                     OpTy> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto dps = cast<DestinationStyleOpInterface>(op);
    if (!dps.hasPureTensorSemantics())
      return op->emitOpError("expected tensor operands to bufferize");
    SmallVector<Value> buffers;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    // Same operands (so the same operand segments), attributes and
    // properties; no results.
    rewriter.setInsertionPoint(op);
    OperationState bufferized(op->getLoc(), op->getName(), buffers,
                              /*types=*/{}, op->getAttrs());
    bufferized.propertiesAttr = op->getPropertiesAsAttribute();
    Operation *created = rewriter.create(bufferized);
    SmallVector<Value> outputs;
    for (OpOperand &init : dps.getDpsInitsMutable())
      outputs.push_back(created->getOperand(init.getOperandNumber()));
    replaceOpWithBufferizedValues(rewriter, op, outputs);
    return success();
  }
};

} // namespace

void mlir::pa::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, PaDialect *) {
    PlanOp::attachInterface<PaOpBufferization<PlanOp>>(*context);
    DecodeOp::attachInterface<PaOpBufferization<DecodeOp>>(*context);
    ReduceOp::attachInterface<PaOpBufferization<ReduceOp>>(*context);
  });
}
