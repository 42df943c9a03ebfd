//===- PaBufferization.h - bufferization of the pa ops ----------*- C++ -*-===//
//
// pa.plan, pa.decode and pa.reduce on tensors (destination-passing style)
// implement BufferizableOpInterface: one-shot-bufferize turns each into the
// memref form the pipelines lower, writing into the buffers of its outputs.
//
//===----------------------------------------------------------------------===//
#ifndef PA_IR_PABUFFERIZATION_H
#define PA_IR_PABUFFERIZATION_H

namespace mlir {
class DialectRegistry;
namespace pa {
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace pa
} // namespace mlir

#endif // PA_IR_PABUFFERIZATION_H
