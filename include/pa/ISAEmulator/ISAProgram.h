//===- ISAProgram.h - a compiled decode program on the executor -*- C++ -*-===//
//
// A code object and its metadata sidecar (what compileDecode / pa-compile
// produce), run on the instruction-level executor the way the HIP launcher
// runs it on a GPU: the sidecar's manifest (parseAMDManifest), operands
// copied into executor memory, plan -> decode -> reduce launched with the
// grid and the kernarg segment packed from the operand views
// (prepareLaunches), outputs copied back (runOnHostOperands).
//
//===----------------------------------------------------------------------===//
#ifndef PA_ISAEMULATOR_ISAPROGRAM_H
#define PA_ISAEMULATOR_ISAPROGRAM_H

#include "pa/ISAEmulator/ISAEmulator.h"
#include "pa/Runtime/DeviceMemory.h"
#include "pa/Runtime/KernelManifest.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pa::isa {

class ISAProgram {
public:
  /// Null with `error` when the code object does not load or the sidecar
  /// does not parse.
  static std::unique_ptr<ISAProgram> load(const std::string &codeObject,
                                          const std::string &metadataJson,
                                          std::string &error);

  /// Runs every kernel of the manifest on copies of `operands`; the
  /// non-read-only operands are copied back. Per-kernel counts are added to
  /// `perKernel` (by kernel name) when given.
  bool run(const std::vector<runtime::HostOperand> &operands,
           const LaunchConfig &options, std::string &error,
           std::map<std::string, Stats> *perKernel = nullptr) const;

  const CodeObject &codeObject() const { return *object; }

private:
  std::unique_ptr<CodeObject> object;
  runtime::ModuleManifest manifest;
};

} // namespace pa::isa

#endif // PA_ISAEMULATOR_ISAPROGRAM_H
