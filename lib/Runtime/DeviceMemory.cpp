//===- DeviceMemory.cpp - host-buffer runs over any GPU runtime -----------===//
#include "pa/Runtime/DeviceMemory.h"

#include <limits>
#include <set>

namespace pa::runtime {
namespace {

/// Device buffers freed when the run ends, however it ends.
class DeviceBuffers {
public:
  explicit DeviceBuffers(const DeviceMemory &memory) : memory(memory) {}
  ~DeviceBuffers() {
    std::string ignored;
    for (uint64_t address : addresses)
      memory.release(address, ignored);
  }
  DeviceBuffers(const DeviceBuffers &) = delete;
  DeviceBuffers &operator=(const DeviceBuffers &) = delete;

  bool allocate(size_t bytes, uint64_t &address, std::string &error) {
    if (!memory.allocate(bytes, address, error))
      return false;
    addresses.push_back(address);
    return true;
  }

private:
  const DeviceMemory &memory;
  std::vector<uint64_t> addresses;
};

/// The bytes of `operand`; false with `error` for a bad shape.
bool byteCount(const HostOperand &operand, size_t &bytes, std::string &error) {
  const std::string what = "operand '" + operand.name + "'";
  if (operand.elementBytes <= 0) {
    error = what + " has element size " +
            std::to_string(operand.elementBytes) + "; it must be positive";
    return false;
  }
  // Checked against overflow: a shape may come from a caller's descriptor.
  constexpr size_t limit = std::numeric_limits<size_t>::max();
  bytes = static_cast<size_t>(operand.elementBytes);
  for (size_t i = 0; i < operand.sizes.size(); ++i) {
    int64_t size = operand.sizes[i];
    if (size < 0) {
      error = what + " has size " + std::to_string(size) + " in dimension " +
              std::to_string(i);
      return false;
    }
    if (size != 0 && bytes > limit / static_cast<size_t>(size)) {
      error = what + " is too large to address";
      return false;
    }
    bytes *= static_cast<size_t>(size);
  }
  if (bytes != 0 && !operand.data) {
    error = what + " has " + std::to_string(bytes) + " bytes but no data";
    return false;
  }
  return true;
}

} // namespace

bool runOnHostOperands(const DeviceMemory &memory,
                       const std::vector<HostOperand> &operands,
                       const EnqueueFunction &enqueue, std::string &error) {
  // Every operand is checked before anything is allocated.
  std::vector<size_t> bytes(operands.size());
  std::set<std::string> names;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].name.empty()) {
      error = "operand " + std::to_string(i) + " has no name";
      return false;
    }
    if (!names.insert(operands[i].name).second) {
      error = "operand '" + operands[i].name + "' is given twice";
      return false;
    }
    if (!byteCount(operands[i], bytes[i], error))
      return false;
  }

  DeviceBuffers device(memory);
  std::vector<uint64_t> addresses(operands.size());
  OperandViews views;
  for (size_t i = 0; i < operands.size(); ++i) {
    const HostOperand &operand = operands[i];
    // Outputs are copied too: what the kernels leave unwritten stays as the
    // caller had it, as on the host. Empty operands (batch 0; their data may
    // be null) are allocated but not copied.
    if (!device.allocate(bytes[i], addresses[i], error) ||
        (bytes[i] != 0 &&
         !memory.copyToDevice(addresses[i], operand.data, bytes[i], error))) {
      error += " (operand '" + operand.name + "')";
      return false;
    }
    views[operand.name] = rowMajorView(addresses[i], operand.sizes);
  }
  if (!enqueue(nullptr, views, error) || !memory.synchronize(nullptr, error))
    return false;
  for (size_t i = 0; i < operands.size(); ++i) {
    const HostOperand &operand = operands[i];
    if (!operand.readOnly && bytes[i] != 0 &&
        !memory.copyToHost(const_cast<void *>(operand.data), addresses[i],
                           bytes[i], error)) {
      error += " (operand '" + operand.name + "')";
      return false;
    }
  }
  return true;
}

} // namespace pa::runtime
