//===- Compile.h - pa programs to GPU code objects, with stages -*- C++ -*-===//
//
// One entry point per kind of input (a DecodeConfig, a module, module text)
// that runs the chip's pipeline and code generation in this process and
// returns the code object, its metadata sidecar and, on request, the IR of
// every stage. The chip picks the backend: gfx942 / gfx950 give an AMDHSA
// code object (.hsaco), sm_90a PTX.
//
// Note: a code object link runs lld in this process, and lld resets every
// LLVM command-line option (cl::opt) to its default; callers must not rely
// on cl::opts surviving a compile.
//
//===----------------------------------------------------------------------===//
#ifndef PA_API_COMPILE_H
#define PA_API_COMPILE_H

#include "pa/API/DecodeConfig.h"
#include "pa/Conversion/MFMAOptions.h"
#include "pa/Conversion/PaToNVVM/PaToNVVM.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::pa {

struct CompileOptions {
  /// AMDHSA code object version for AMD chips: 5 or 6.
  int codeObjectVersion = 5;
  /// Keep the text of every stage in CompiledKernels::stages.
  bool keepStages = false;
  /// AMD chips: pa-to-mfma's fp8-residual option.
  Fp8Residual fp8Residual = kDefaultFp8Residual;
  /// AMD chips: pa-to-mfma's cache-offsets option.
  CacheOffsets cacheOffsets = CacheOffsets::automatic;
  /// AMD chips: pa-to-mfma's key-prefetch option.
  KeyPrefetch keyPrefetch = KeyPrefetch::automatic;
  /// NVIDIA chips: pa-to-nvvm's key-ahead, value-stage (blocks, 0 to 8),
  /// value-ahead (1 to 4), key-ahead-in-registers and key-ahead-bulk
  /// options (the last two one choice: either given, the table gives
  /// neither). Absent:
  /// compileDecode takes the tuning table's entry for the configuration
  /// (withTunedKernelOptions), other compiles WarpOptions' defaults
  /// (nvidiaWarpOptions).
  std::optional<int64_t> keyAhead, valueStage, valueAhead;
  std::optional<bool> keyAheadInRegisters, keyAheadBulk;
  /// NVIDIA chips: pa-to-nvvm's l2-prefetch and l2-prefetch-min-tiles
  /// options (one choice: either given, the table gives neither; absent:
  /// as above).
  std::optional<bool> l2Prefetch;
  std::optional<int64_t> l2PrefetchMinTiles;
};

/// `options` with the NVIDIA kernel options it leaves absent taken from
/// the tuning table's entry for `config` (DecodeConfig::tunedPlan, the
/// entry without buckets), where it gives them: what compileDecode
/// compiles `config` with.
CompileOptions withTunedKernelOptions(CompileOptions options,
                                      const DecodeConfig &config);
/// `options` with the kernel options it leaves absent taken from `tuned`.
CompileOptions withTunedKernelOptions(CompileOptions options,
                                      const TunedPlan &tuned);

/// pa-to-nvvm's options for `options`: the kernel options it gives, the
/// others WarpOptions' defaults.
WarpOptions nvidiaWarpOptions(const CompileOptions &options);

/// The program at one point of the compilation.
struct CompileStage {
  /// "pa" (the input ops), "tiled" (workgroup programs after page-id
  /// staging), "rocdl" / "nvvm" (kernels in the LLVM dialects), "llvm"
  /// (optimized LLVM IR of the kernels), "isa" (AMDGPU assembly) or "ptx".
  std::string name;
  std::string text;
};

struct CompiledKernels {
  std::string chip;
  /// "hsaco" (an AMDHSA shared object) or "ptx" (text the CUDA driver
  /// JIT-compiles).
  std::string format;
  /// The code object's bytes.
  std::string codeObject;
  /// The metadata sidecar (what pa-compile writes as OUT.json): per kernel
  /// its grid formula, workgroup size and argument layout.
  std::string metadataJson;
  /// In pipeline order; empty unless CompileOptions::keepStages.
  std::vector<CompileStage> stages;

  /// The text of stage `name`, or null.
  const std::string *stage(llvm::StringRef name) const;
};

/// Compiles the decode program of `config` for `config.chip`. On failure
/// returns failure with every diagnostic in `error`.
FailureOr<CompiledKernels> compileDecode(const DecodeConfig &config,
                                         const CompileOptions &options,
                                         std::string &error);

/// Compiles the pa ops of `module` (lowered in place) for `chip`. The
/// module's context needs the dialects of registerPaDialects (Builders.h).
FailureOr<CompiledKernels> compileModule(ModuleOp module, llvm::StringRef chip,
                                         const CompileOptions &options,
                                         std::string &error);

/// Parses `text` (pa ops in functions over memrefs) and compiles it for
/// `chip`; parse errors are reported with `bufferName`:line:col.
FailureOr<CompiledKernels>
compileModuleText(llvm::StringRef text, llvm::StringRef chip,
                  const CompileOptions &options, std::string &error,
                  llvm::StringRef bufferName = "input");

} // namespace mlir::pa

#endif // PA_API_COMPILE_H
