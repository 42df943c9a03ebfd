//===- ProgramArtifact.h - ahead-of-time decode programs on disk -*- C++ -*-===//
//
// An AOT program is what a serving machine needs to launch a compiled
// decode without the compiler: a directory holding
//
//   program.json    {"format": "pa-mlir-program", "version": 1,
//                    "chip": "gfx942", "code_format": "hsaco",
//                    "code_object": "kernels.hsaco",
//                    "code_object_bytes": 123456,
//                    "metadata": "kernels.json",
//                    "config": {...}}            (optional)
//   kernels.hsaco   the code object (or kernels.ptx / kernels.cubin)
//   kernels.json    its metadata sidecar (kernels, grids, argument layout)
//
// A multi-chip program is a directory whose program.json lists chips
//
//   program.json    {"format": "pa-mlir-program", "version": 2,
//                    "chips": ["gfx942", "gfx950", "sm_90a"]}
//   gfx942/         the single-chip program of each chip, as above
//   ...
//
// and the HIP runtime loads the program of the GPU's chip, CUDA its one
// NVIDIA program (chooseProgramChip).
//
// pa-compile --emit=program, paArtifactWriteProgram (libPACAPI) and
// paProgramWrite (libPARuntimeCAPI, what Python's Artifact.save calls)
// write it; the HIP and CUDA runtimes load it (paHipProgramLoadFile,
// paCudaProgramLoadFile). "config" is the configuration the program was
// compiled from, as the writer described it (opaque to the runtime).
// Plain C++ (no MLIR, no LLVM); docs/user-guide.md has the format.
//
//===----------------------------------------------------------------------===//
#ifndef PA_RUNTIME_PROGRAMARTIFACT_H
#define PA_RUNTIME_PROGRAMARTIFACT_H

#include <string>
#include <vector>

namespace pa::runtime {

/// The version of program.json this runtime writes and reads. 2: the query
/// is read at its run-time strides (a version-1 program reads it packed, so
/// it is refused rather than handed a strided query). 3: so are the page
/// strides of nhd / hnd caches (a version-2 program reads them contiguous).
/// 4: each kernel's sidecar lists the strides it reads at run time
/// ("dynamic_strides"; a launcher refuses other strides that are not
/// row-major); a version-3 sidecar has no list and would take only
/// row-major views, so it is refused for a recompile instead.
inline constexpr int kProgramFormatVersion = 4;

struct ProgramArtifact {
  std::string chip;         // "gfx942", "gfx950", "sm_90a"
  std::string codeFormat;   // "hsaco" (AMD), "ptx" or "cubin" (NVIDIA)
  std::string codeObject;   // the image's bytes
  std::string metadataJson; // the sidecar
  std::string configJson;   // a JSON object, or empty when not recorded

  /// True for the formats the HIP runtime loads (hsaco).
  bool isAMD() const { return codeFormat == "hsaco"; }
};

/// Writes `program` as the directory `path` (created when missing; the
/// files of a program already there are replaced, program.json last).
/// False with `error` for an unknown code format, a chip name that is not
/// [A-Za-z0-9_-]+, a config that is not a JSON object, a sidecar that does
/// not parse, or a file that cannot be written.
bool writeProgram(const std::string &path, const ProgramArtifact &program,
                  std::string &error);

/// Reads the program directory `path`. False with `error` naming the file
/// and the problem: no program.json, not a pa-mlir program, a version other
/// than kProgramFormatVersion, a missing or malformed field, a file name
/// that leaves the directory, a code object whose size is not the one
/// recorded (truncated), or a sidecar whose "format" disagrees.
bool readProgram(const std::string &path, ProgramArtifact &program,
                 std::string &error);

/// The chips of the program at `path`: the "chips" of a multi-chip program
/// (`multiChip` true), else the one chip of a single-chip program. False
/// with `error` as readProgram (a multi-chip list must hold distinct chip
/// names, each [A-Za-z0-9_-]+).
bool readProgramChips(const std::string &path, std::vector<std::string> &chips,
                      bool &multiChip, std::string &error);

/// Writes `program` as PATH/CHIP of the multi-chip program `path` (the
/// directory created when missing; a program of that chip replaced) and
/// lists its chip in PATH/program.json, written last. False with `error`
/// when `path` holds a single-chip program, or as writeProgram.
bool addProgramChip(const std::string &path, const ProgramArtifact &program,
                    std::string &error);

/// The chip of `chips` (a multi-chip program's, at `path`, named in
/// messages) whose program a device runs: for the HIP runtime (`amd`) the
/// one equal to `deviceChip` (the GPU's gfx name); for CUDA the one NVIDIA
/// chip (sm_*). False with `error` naming the chips there and what the
/// device needs when there is none (or, for CUDA, more than one).
bool chooseProgramChip(const std::string &path,
                       const std::vector<std::string> &chips, bool amd,
                       const std::string &deviceChip, std::string &chosen,
                       std::string &error);

} // namespace pa::runtime

#endif // PA_RUNTIME_PROGRAMARTIFACT_H
