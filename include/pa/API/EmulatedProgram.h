//===- EmulatedProgram.h - decode on the wave64 emulator --------*- C++ -*-===//
//
// The AMD path without AMD hardware: compile() lowers a DecodeConfig with
// the chip's `pa-lower-to-rocdl` pipeline and keeps the kernels as that
// pipeline hands them to its lowering tail (convert-scf-to-cf, math and
// memref expansion, pa-convert-kernels-to-rocdl): the IR whose mechanical
// conversion becomes the code object. run() executes plan, decode and
// reduce on caller buffers with the emulator (include/pa/Emulator), which
// checks every access, LDS race and barrier on the way; the results are
// those of the chip's kernels up to the emulator's float evaluation order.
//
//===----------------------------------------------------------------------===//
#ifndef PA_API_EMULATEDPROGRAM_H
#define PA_API_EMULATEDPROGRAM_H

#include "pa/API/HostProgram.h"
#include "pa/Conversion/MFMAOptions.h"
#include "pa/Emulator/Emulator.h"

#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>

namespace mlir::pa {

/// Which kernels of the AMD path are emulated.
enum class EmulatedKernels {
  /// What `pa-lower-to-rocdl` builds: the kernels of the code objects.
  rocdlPipeline,
  /// Every kernel's sequential workgroup program on lane 0
  /// (pa-lower-tile-to-loops, pa-workgroup-to-lane0): the correctness
  /// baseline, kept to cross-check the emulator on simple per-lane code.
  lane0Baseline,
};

struct EmulationOptions {
  EmulatedKernels kernels = EmulatedKernels::rocdlPipeline;
  /// Out-of-range AMD buffer accesses are errors (the hardware would read
  /// 0): the spec says page ids outside the pool are never read.
  bool strictBufferBounds = true;
  /// pa-to-mfma's fp8-residual option (rocdlPipeline).
  Fp8Residual fp8Residual = kDefaultFp8Residual;
  /// pa-to-mfma's cache-offsets option (rocdlPipeline).
  CacheOffsets cacheOffsets = CacheOffsets::automatic;
  /// pa-to-mfma's key-prefetch option (rocdlPipeline).
  KeyPrefetch keyPrefetch = KeyPrefetch::automatic;
};

class EmulatedProgram {
public:
  /// Builds and lowers `config` for `config.chip` (gfx942 or gfx950); on
  /// failure `error` holds the verifier's, the pipeline's or the emulator
  /// compiler's message.
  static FailureOr<std::unique_ptr<EmulatedProgram>>
  compile(const DecodeConfig &config, std::string &error,
          const EmulationOptions &options = {});

  ~EmulatedProgram();
  EmulatedProgram(const EmulatedProgram &) = delete;
  EmulatedProgram &operator=(const EmulatedProgram &) = delete;

  /// Runs plan, decode and reduce on `buffers` (checked like
  /// HostProgram::run). Fails with `error` on bad buffers and on anything
  /// the emulator detects (out-of-bounds access, LDS race, barrier misuse).
  LogicalResult run(const HostBuffers &buffers, std::string &error,
                    emulator::Stats *stats = nullptr) const;

  const DecodeConfig &config() const { return decodeConfig; }
  int64_t planCapacity(int64_t batch) const {
    return decodeConfig.planCapacity(batch);
  }
  /// The module the emulator executes, as text.
  std::string moduleText() const;

private:
  EmulatedProgram();

  DecodeConfig decodeConfig;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<emulator::Program> program;
};

/// The emulator bindings of @pa_decode's memref arguments on `buffers`, in
/// argument order (decodeOperands: a strided query's strides, and the
/// memory up to each operand's last element).
llvm::SmallVector<emulator::MemRefBinding, 16>
emulatorBindings(const DecodeConfig &config, const HostBuffers &buffers);

/// Lowers the pa ops of `module` in place to what the emulator runs for
/// `chip`: the host function and, for rocdlPipeline, the kernels as
/// pa-lower-to-rocdl (with options.fp8Residual) hands them to its lowering
/// tail (the whole pipeline runs, so a module the AMD path rejects is
/// rejected here too). The module's context needs registerPaDialects
/// (Builders.h).
LogicalResult lowerForEmulator(ModuleOp module, llvm::StringRef chip,
                               const EmulationOptions &options,
                               std::string &error);

} // namespace mlir::pa

#endif // PA_API_EMULATEDPROGRAM_H
