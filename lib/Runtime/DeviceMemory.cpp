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
  bool strided = !operand.strides.empty();
  if (strided && operand.strides.size() != operand.sizes.size()) {
    error = what + " has " + std::to_string(operand.strides.size()) +
            " strides for " + std::to_string(operand.sizes.size()) + " sizes";
    return false;
  }
  // Elements: the product of the sizes, or for strides the span from the
  // first element to one past the last (0 when a size is 0).
  size_t elements = 1, last = 0;
  bool empty = false;
  for (size_t i = 0; i < operand.sizes.size(); ++i) {
    int64_t size = operand.sizes[i];
    if (size < 0) {
      error = what + " has size " + std::to_string(size) + " in dimension " +
              std::to_string(i);
      return false;
    }
    if (strided && operand.strides[i] < 0) {
      error = what + " has stride " + std::to_string(operand.strides[i]) +
              " in dimension " + std::to_string(i) +
              "; strides must be >= 0";
      return false;
    }
    empty = empty || size == 0;
    size_t step = strided ? static_cast<size_t>(operand.strides[i]) : 0;
    if ((size != 0 && elements > limit / static_cast<size_t>(size)) ||
        (strided && size > 1 && step > (limit - last) / (size - 1))) {
      error = what + " is too large to address";
      return false;
    }
    elements *= static_cast<size_t>(size);
    if (strided && size > 1)
      last += (static_cast<size_t>(size) - 1) * step;
  }
  if (strided) {
    // One past the last element must be representable too.
    if (last == limit) {
      error = what + " is too large to address";
      return false;
    }
    elements = empty ? 0 : last + 1;
  }
  bytes = static_cast<size_t>(operand.elementBytes);
  if (elements != 0 && bytes > limit / elements) {
    error = what + " is too large to address";
    return false;
  }
  bytes *= elements;
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
    MemRefView &view = views[operand.name] =
        rowMajorView(addresses[i], operand.sizes);
    if (!operand.strides.empty())
      view.strides = operand.strides;
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
