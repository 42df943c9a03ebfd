//===- ISAProgram.cpp - a compiled decode program on the executor ---------===//
#include "pa/ISAEmulator/ISAProgram.h"

#include "pa/Runtime/LauncherCore.h"

#include <cstring>

namespace pa::isa {

namespace {

/// Executor memory as the launch path's DeviceMemory.
class ExecutorMemory : public runtime::DeviceMemory {
public:
  explicit ExecutorMemory(Memory &memory) : memory(memory) {}
  bool allocate(size_t bytes, uint64_t &address,
                std::string &error) const override {
    address = memory.allocate(bytes);
    return true;
  }
  bool release(uint64_t address, std::string &error) const override {
    memory.release(address);
    return true;
  }
  bool copyToDevice(uint64_t destination, const void *source, size_t bytes,
                    std::string &error) const override {
    uint8_t *p = allocated(destination, bytes, "to", error);
    if (p && bytes)
      std::memcpy(p, source, bytes);
    return p != nullptr;
  }
  bool copyToHost(void *destination, uint64_t source, size_t bytes,
                  std::string &error) const override {
    const uint8_t *p = allocated(source, bytes, "from", error);
    if (p && bytes)
      std::memcpy(destination, p, bytes);
    return p != nullptr;
  }
  bool synchronize(void *, std::string &) const override { return true; }

private:
  /// The executor memory of `bytes` at `address`, or null with `error`
  /// naming the copy's `direction` ("to" / "from") when no allocation
  /// holds them.
  uint8_t *allocated(uint64_t address, size_t bytes, const char *direction,
                     std::string &error) const {
    uint8_t *p = memory.find(address, bytes);
    if (!p)
      error = std::string("copy ") + direction +
              " executor memory outside an allocation";
    return p;
  }

  Memory &memory;
};

} // namespace

std::unique_ptr<ISAProgram> ISAProgram::load(const std::string &codeObject,
                                             const std::string &metadataJson,
                                             std::string &error) {
  auto program = std::unique_ptr<ISAProgram>(new ISAProgram());
  program->object = CodeObject::load(codeObject, error);
  if (!program->object)
    return nullptr;
  if (!runtime::parseAMDManifest(metadataJson, program->manifest, error))
    return nullptr;
  for (const runtime::KernelInfo &kernel : program->manifest.kernels)
    if (!program->object->kernel(kernel.name)) {
      error = "the code object has no kernel '" + kernel.name + "'";
      return nullptr;
    }
  return program;
}

bool ISAProgram::run(const std::vector<runtime::HostOperand> &operands,
                     const LaunchConfig &options, std::string &error,
                     std::map<std::string, Stats> *perKernel) const {
  Memory memory;
  ExecutorMemory device(memory);
  return runtime::runOnHostOperands(
      device, operands,
      [&](void *, const runtime::OperandViews &views, std::string &e) {
        std::vector<runtime::PreparedLaunch> launches;
        if (!runtime::prepareLaunches(manifest, views, launches, e))
          return false;
        for (runtime::PreparedLaunch &prepared : launches) {
          const runtime::KernelInfo &info =
              manifest.kernels[prepared.kernelIndex];
          const Kernel *kernel = object->kernel(info.name);
          LaunchConfig config = options;
          for (int d = 0; d < 3; ++d) {
            config.grid[d] = uint32_t(prepared.grid[d]);
            config.block[d] = uint32_t(info.blockSize[d]);
          }
          config.kernarg = prepared.params->bytes();
          // Hidden arguments (none in pa's kernels) would follow: zeros.
          if (config.kernarg.size() < kernel->descriptor.kernargBytes)
            config.kernarg.resize(kernel->descriptor.kernargBytes, 0);
          Stats stats;
          if (!launch(*kernel, memory, config, stats, e))
            return false;
          if (perKernel)
            (*perKernel)[info.name] += stats;
        }
        return true;
      },
      error);
}

} // namespace pa::isa
