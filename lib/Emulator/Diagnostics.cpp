//===- Diagnostics.cpp - the emulator's error messages --------------------===//
//
// Compile errors name the op and its location; run errors name the op, its
// location (and the op itself where generated kernels share a location),
// the workgroup, wave and lane, and describe the access or LDS byte.
//
//===----------------------------------------------------------------------===//
#include "Compiler.h"
#include "Executor.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

LogicalResult OpCompiler::fail(Operation *op, const Twine &message) {
  std::string location;
  llvm::raw_string_ostream os(location);
  op->getLoc().print(os);
  error = ("emulator: cannot compile '" + op->getName().getStringRef() +
           "' at " + location + ": " + message)
              .str();
  return failure();
}

std::string Executor::where(const Wave *wave, int lane) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (current && current->isKernel) {
    os << "kernel @" << current->name << ", workgroup (" << blockId[0] << ", "
       << blockId[1] << ", " << blockId[2] << ")";
    if (wave)
      os << ", wave " << wave->index;
    if (wave && lane >= 0)
      os << ", lane " << lane << " (thread "
         << wave->index * kLanes + uint32_t(lane) << ")";
  } else if (current) {
    os << "host function @" << current->name;
  }
  return text;
}

Step Executor::fail(const Wave *wave, const Instr &instr, int lane,
                    const Twine &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "emulator: " << message;
  if (instr.op) {
    os << "\n  at '" << instr.op->getName() << "' ";
    instr.op->getLoc().print(os);
    // Generated kernels share one location: the op itself (its types and
    // attributes) tells which one it is.
    if (!isa<FileLineColLoc>(instr.op->getLoc())) {
      std::string text;
      llvm::raw_string_ostream opText(text);
      instr.op->print(opText, OpPrintingFlags()
                                  .skipRegions()
                                  .elideLargeElementsAttrs()
                                  .useLocalScope());
      if (text.size() > 240)
        text = text.substr(0, 240) + "...";
      os << "\n  op: " << text;
    }
  }
  os << "\n  in " << where(wave, lane);
  error = text;
  return Step::Failed;
}

std::string Executor::workgroupOf(uint32_t serial) const {
  int64_t index = int64_t(serial - memory.launchFirstSerial);
  int64_t x = index % gridSize[0], y = index / gridSize[0] % gridSize[1];
  int64_t z = index / (gridSize[0] * gridSize[1]);
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " +
         std::to_string(z) + ")";
}

std::string Executor::describeLds(int64_t offset) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "byte " << offset << " of workgroup memory";
  if (!current)
    return text;
  for (auto [i, attribution] : llvm::enumerate(current->workgroupMemory)) {
    int64_t elements = 1;
    for (int64_t size : attribution.sizes)
      elements *= size;
    int64_t begin = attribution.byteOffset;
    int64_t end = begin + elements * attribution.elementBytes;
    if (offset < begin || offset >= end)
      continue;
    int64_t element = (offset - begin) / attribution.elementBytes;
    os << " (workgroup attribution #" << i << ", element [";
    for (size_t d = 0; d < attribution.sizes.size(); ++d)
      os << (d ? ", " : "")
         << element / attribution.strides[d] % attribution.sizes[d];
    os << "])";
  }
  return text;
}

std::string Executor::describeAccess(const MemAccess &access,
                                     const uint64_t *frame,
                                     const uint64_t *memref) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  const Buffer &buffer = memory.buffers[memref[kBuffer]];
  const size_t rank = access.indices.size();
  os << (access.store ? "store to '" : "load from '") << buffer.name << "'[";
  for (size_t d = 0; d < rank; ++d) {
    uint64_t raw = frame[access.indices[d]];
    os << (d ? ", " : "")
       << (access.indexKind == ScalarKind::I32 ? int64_t(int32_t(raw))
                                               : int64_t(raw));
  }
  os << "]";
  if (access.count > 1)
    os << " (" << access.count << " elements)";
  os << " of a memref with sizes [";
  for (size_t d = 0; d < rank; ++d)
    os << (d ? ", " : "") << int64_t(memref[kSizes + d]);
  os << "]";
  return text;
}
