//===- Emulator.h - AMD kernels run on the CPU, wave by wave ----*- C++ -*-===//
//
// Executes the kernel IR of the AMD path as it stands before the lowering
// tail of pa-lower-to-rocdl (gpu.func kernels with gpu / amdgpu / arith /
// math / vector / memref / scf / affine ops) on the CPU, together with the
// host function that launches them (gpu.launch_func, memref.dim, arith,
// memref.alloc and cf.assert for test drivers).
//
// Model: a workgroup at a time; its waves of 64 lanes run one after the other
// until they reach a barrier or return (deterministic), each in lock-step
// with an exec mask (divergent scf.if / scf.for / scf.while run per lane
// under masks, like the hardware). Checked while running, each an error
// naming the op, workgroup, wave and lane:
//   - accesses outside a memref's dims or outside its memory (AMD buffer
//     accesses included, unless `strictBufferBounds` is off: then they read
//     0 / drop the store like the hardware);
//   - LDS races: a read or write of a byte another wave wrote, or a write of
//     a byte another wave read, since the last barrier; reads of LDS nobody
//     wrote in this workgroup;
//   - barriers inside divergent control flow, barriers some wave does not
//     reach, waves waiting at different barriers;
//   - cross-lane reads (gpu.shuffle, ds_bpermute, MFMA operands) of lanes
//     that are not active; integer division by zero; writes to read-only
//     memory; LDS beyond the chip's size.
// amdgpu.mfma follows the register layouts of MFMALayout.h.
//
//===----------------------------------------------------------------------===//
#ifndef PA_EMULATOR_EMULATOR_H
#define PA_EMULATOR_EMULATOR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "pa/IR/Chip.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlir::pa::emulator {

struct Options {
  /// The AMD chip whose semantics are followed: the fp8 flavour its
  /// conversions and MFMAs take and its LDS size (gfx942, gfx950).
  std::string chip = std::string(kDefaultChip);
  /// Accesses past a buffer descriptor's range (amdgpu.raw_buffer_*,
  /// memrefs of amdgpu.fat_raw_buffer_cast) are errors. Off: they return 0
  /// and drop stores, as the hardware does (still counted in Stats).
  bool strictBufferBounds = true;
  /// Reads of workgroup memory no wave of the workgroup wrote are errors.
  bool checkUninitializedLds = true;
};

/// A caller-owned memref bound to an argument of the entry function.
struct MemRefBinding {
  void *data = nullptr;
  /// Bytes of the allocation behind `data`: every access must stay inside.
  int64_t bytes = 0;
  bool readOnly = false;
  std::string name; // for diagnostics
  int64_t offset = 0; // in elements
  llvm::SmallVector<int64_t, 5> sizes, strides;

  /// A row-major (identity layout) binding of `sizes` elements of
  /// `elementBytes` each.
  static MemRefBinding rowMajor(void *data, llvm::ArrayRef<int64_t> sizes,
                                int64_t elementBytes, std::string name,
                                bool readOnly);
};

/// What one run executed.
struct Stats {
  uint64_t waveInstructions = 0; // instructions issued, per wave
  uint64_t laneInstructions = 0; // sum of the active lanes of each
  uint64_t launches = 0, workgroups = 0, barriers = 0, mfmas = 0;
  uint64_t maskedBufferAccesses = 0; // out of range, lenient mode
  double seconds = 0;
  Stats &operator+=(const Stats &other);
};

class ProgramImpl;

/// A module compiled for the emulator. It keeps pointers into the module's
/// operations for diagnostics: the module must outlive the program.
class Program {
public:
  /// Compiles every func.func and gpu.func of `module`; failure (with
  /// `error`) names the first op the emulator cannot execute.
  static FailureOr<std::unique_ptr<Program>>
  compile(ModuleOp module, const Options &options, std::string &error);

  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  /// Runs func.func `function` with `arguments` bound to its memref
  /// arguments (the function takes memrefs only). Failure (with `error`) on
  /// the first problem the emulator detects. Thread-compatible: concurrent
  /// runs of one program are fine.
  LogicalResult run(llvm::StringRef function,
                    llvm::ArrayRef<MemRefBinding> arguments,
                    std::string &error, Stats *stats = nullptr) const;

  const Options &options() const;

private:
  explicit Program(std::unique_ptr<ProgramImpl> impl);
  std::unique_ptr<ProgramImpl> impl;
};

} // namespace mlir::pa::emulator

#endif // PA_EMULATOR_EMULATOR_H
