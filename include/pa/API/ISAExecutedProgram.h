//===- ISAExecutedProgram.h - decode on the ISA executor ---*- C++ -*-===//
//
// The AMD product without AMD hardware: compile() builds the code object a
// DecodeConfig ships for its chip (compileDecode: the .hsaco and its
// metadata sidecar, exactly what pa-compile writes and the HIP launcher
// loads); run() executes plan, decode and reduce of that code object on
// caller buffers with the instruction-level executor
// (include/pa/ISAEmulator), which checks every memory and LDS access, LDS
// races between waves, wait-count hazards and reads of never-written
// registers on the way. EmulatedProgram runs the same kernels one step
// earlier, as MLIR; this runs LLVM's machine code.
//
//===----------------------------------------------------------------------===//
#ifndef PA_API_ISAEXECUTEDPROGRAM_H
#define PA_API_ISAEXECUTEDPROGRAM_H

#include "pa/API/Compile.h"
#include "pa/API/HostProgram.h"
#include "pa/ISAEmulator/ISAProgram.h"

#include <map>
#include <memory>
#include <string>

namespace mlir::pa {

class ISAExecutedProgram {
public:
  /// Compiles `config` for `config.chip` (gfx942 or gfx950) with
  /// `options` and loads the code object into the executor; on failure
  /// `error` holds the compiler's or the loader's message (an instruction
  /// without semantics fails here, naming it).
  static FailureOr<std::unique_ptr<ISAExecutedProgram>>
  compile(const DecodeConfig &config, std::string &error,
          const CompileOptions &options = CompileOptions());

  ~ISAExecutedProgram();
  ISAExecutedProgram(const ISAExecutedProgram &) = delete;
  ISAExecutedProgram &operator=(const ISAExecutedProgram &) = delete;

  /// Runs plan, decode and reduce on `buffers` (checked like
  /// HostProgram::run) with `launch`'s checks. Fails with `error` on bad
  /// buffers and on anything the executor detects. Per-kernel counts are
  /// added to `perKernel` (by kernel name) when given.
  LogicalResult
  run(const HostBuffers &buffers, std::string &error,
      std::map<std::string, ::pa::isa::Stats> *perKernel = nullptr,
      const ::pa::isa::LaunchConfig &launch = {}) const;

  const DecodeConfig &config() const { return decodeConfig; }
  int64_t planCapacity(int64_t batch) const {
    return decodeConfig.planCapacity(batch);
  }
  /// The loaded code object and its manifest.
  const ::pa::isa::ISAProgram &program() const { return *loaded; }

private:
  ISAExecutedProgram();

  DecodeConfig decodeConfig;
  std::unique_ptr<::pa::isa::ISAProgram> loaded;
};

} // namespace mlir::pa

#endif // PA_API_ISAEXECUTEDPROGRAM_H
