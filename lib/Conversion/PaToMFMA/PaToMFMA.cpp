//===- PaToMFMA.cpp - the tiled IR on wave64 lanes with MFMA --------------===//
//
// pa-to-mfma: the decode kernel (pa.tile ops) becomes per-lane MFMA code
// for 4 waves (DecodeToMFMA.cpp), the reduce kernel's scf.parallel loops
// become lane-strided loops (DistributeParallel.cpp); the plan kernel (tiny)
// is left to pa-workgroup-to-lane0. One pattern per kernel kind
// (populateDecodeToMFMAPatterns, include/pa/Conversion/PaToMFMA/PaToMFMA.h),
// on the module's chip; a decode kernel is checked (AnalyzeDecode.cpp) and
// lowered with its lane mapping: its pa.mfma_layout (pa-mfma-layout) or the
// one chosen for it. pa-mfma-layout checks every decode kernel and attaches
// that mapping.
//
//===----------------------------------------------------------------------===//
#include "PaToMFMA.h"

#include "pa/Conversion/PaToMFMA/PaToMFMA.h"
#include "pa/Conversion/Passes.h"
#include "pa/Transforms/KernelsPass.h"

#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PAMFMALAYOUT
#define GEN_PASS_DEF_PATOMFMA
#include "pa/Conversion/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {
/// A module's chip (pa.target) and its decode kernels, each analyzed.
struct AnalyzedModule {
  ChipInfo chip;
  SmallVector<mfma::DecodeKernel> decodes;
};

/// Reads the module's AMD chip and analyzes every decode kernel
/// (analyzeDecodeKernel, every one reporting what does not hold); `pass`
/// names the asking pass in the diagnostics.
FailureOr<AnalyzedModule> analyzeModule(gpu::GPUModuleOp module,
                                        StringRef pass) {
  FailureOr<ChipInfo> target = getTargetChip(module, pass, Vendor::AMD);
  if (failed(target))
    return failure();
  AnalyzedModule analyzed{*target, {}};
  bool valid = true;
  for (auto kernel : module.getOps<gpu::GPUFuncOp>()) {
    if (!kernel.isKernel() || !mfma::isDecodeKernel(kernel))
      continue;
    FailureOr<mfma::DecodeKernel> decode =
        mfma::analyzeDecodeKernel(kernel, *target);
    if (failed(decode))
      valid = false;
    else
      analyzed.decodes.push_back(*decode);
  }
  if (!valid)
    return failure();
  return analyzed;
}

struct PaMFMALayoutPass : pa::impl::PaMFMALayoutBase<PaMFMALayoutPass> {
  void runOnOperation() override {
    FailureOr<AnalyzedModule> module =
        analyzeModule(getOperation(), getArgument());
    if (failed(module))
      return signalPassFailure();
    // A kernel's own layout (already there) is kept.
    for (mfma::DecodeKernel &decode : module->decodes)
      decode.kernel->setAttr(kMFMALayoutAttrName, decode.layout);
  }
};

/// A decode kernel as per-lane MFMA code (analyzeDecodeKernel, then
/// lowerDecodeKernel); a kernel that fails either is left with the errors
/// they emitted.
struct DecodeKernelToMFMA : OpRewritePattern<gpu::GPUFuncOp> {
  DecodeKernelToMFMA(MLIRContext *context, const ChipInfo &chip,
                     const MFMAOptions &options)
      : OpRewritePattern(context), chip(chip), options(options) {}

  LogicalResult matchAndRewrite(gpu::GPUFuncOp kernel,
                                PatternRewriter &rewriter) const override {
    if (!kernel.isKernel() || !mfma::isDecodeKernel(kernel))
      return failure();
    FailureOr<mfma::DecodeKernel> decode =
        mfma::analyzeDecodeKernel(kernel, chip);
    if (failed(decode))
      return failure();
    LogicalResult lowered = failure();
    rewriter.modifyOpInPlace(kernel, [&] {
      lowered = mfma::lowerDecodeKernel(*decode, chip, options);
      // The mapping of tile ops that are gone.
      if (succeeded(lowered))
        kernel->removeAttr(kMFMALayoutAttrName);
    });
    return lowered;
  }

  ChipInfo chip;
  MFMAOptions options;
};

/// Another kernel's scf.parallel loops spread over the workgroup's lanes.
struct ParallelLoopsToLanes : OpRewritePattern<gpu::GPUFuncOp> {
  ParallelLoopsToLanes(MLIRContext *context, const ChipInfo &chip)
      : OpRewritePattern(context), workgroupSize(chip.workgroupSize) {}

  LogicalResult matchAndRewrite(gpu::GPUFuncOp kernel,
                                PatternRewriter &rewriter) const override {
    if (!kernel.isKernel() || mfma::isDecodeKernel(kernel))
      return failure();
    bool distributed = false;
    rewriter.modifyOpInPlace(kernel, [&] {
      distributed = mfma::distributeParallelLoops(kernel, workgroupSize);
    });
    return success(distributed);
  }

  int64_t workgroupSize;
};

struct PaToMFMAPass
    : KernelsPass<PaToMFMAPass, pa::impl::PaToMFMABase, Vendor::AMD> {
  using KernelsPass::KernelsPass;

  void runOnKernels(gpu::GPUModuleOp module, const ChipInfo &chip) {
    SmallVector<gpu::GPUFuncOp> decodes;
    for (auto kernel : module.getOps<gpu::GPUFuncOp>())
      if (kernel.isKernel() && mfma::isDecodeKernel(kernel))
        decodes.push_back(kernel);
    RewritePatternSet patterns(&getContext());
    populateDecodeToMFMAPatterns(patterns, chip,
                                 {fp8Residual, cacheOffsets, keyPrefetch});
    walkAndApplyPatterns(module, std::move(patterns));
    // A decode kernel the patterns could not lower (they said why) still
    // has tile ops.
    if (llvm::any_of(decodes, hasTileOps))
      return signalPassFailure();
  }
};
} // namespace

llvm::StringRef mlir::pa::stringifyFp8Residual(Fp8Residual residual) {
  switch (residual) {
  case Fp8Residual::none:
    return "none";
  case Fp8Residual::probabilities:
    return "p";
  case Fp8Residual::queryAndProbabilities:
    return "query-and-p";
  }
  return "p";
}

std::optional<Fp8Residual> mlir::pa::parseFp8Residual(llvm::StringRef text) {
  for (Fp8Residual residual :
       {Fp8Residual::none, Fp8Residual::probabilities,
        Fp8Residual::queryAndProbabilities})
    if (text == stringifyFp8Residual(residual))
      return residual;
  return std::nullopt;
}

llvm::cl::ValuesClass mlir::pa::fp8ResidualValues() {
  return llvm::cl::values(
      clEnumValN(Fp8Residual::none, "none",
                 "one MFMA per step (Q and P quantized once)"),
      clEnumValN(Fp8Residual::probabilities, "p",
                 "P's residual in the PV product"),
      clEnumValN(Fp8Residual::queryAndProbabilities, "query-and-p",
                 "the query's residual in QK too"));
}

/// The value `text` spells among `spellings` (an option's names).
template <typename Enum>
static std::optional<Enum>
parseSpelling(llvm::StringRef text,
              llvm::ArrayRef<std::pair<llvm::StringRef, Enum>> spellings) {
  for (auto [name, value] : spellings)
    if (text == name)
      return value;
  return std::nullopt;
}

std::optional<CacheOffsets> mlir::pa::parseCacheOffsets(llvm::StringRef text) {
  return parseSpelling<CacheOffsets>(
      text, {{"auto", CacheOffsets::automatic}, {"64", CacheOffsets::only64Bit}});
}

llvm::cl::ValuesClass mlir::pa::cacheOffsetsValues() {
  return llvm::cl::values(
      clEnumValN(CacheOffsets::automatic, "auto",
                 "32-bit buffer offsets below 2^31 bytes, else 64-bit"),
      clEnumValN(CacheOffsets::only64Bit, "64", "64-bit global addresses"));
}

std::optional<KeyPrefetch> mlir::pa::parseKeyPrefetch(llvm::StringRef text) {
  return parseSpelling<KeyPrefetch>(text,
                                    {{"auto", KeyPrefetch::automatic},
                                     {"none", KeyPrefetch::none},
                                     {"next-tile", KeyPrefetch::nextTile}});
}

llvm::cl::ValuesClass mlir::pa::keyPrefetchValues() {
  return llvm::cl::values(
      clEnumValN(KeyPrefetch::automatic, "auto",
                 "the next tile's K during this tile's softmax and PV "
                 "where its registers cost no wave"),
      clEnumValN(KeyPrefetch::none, "none", "each tile's K in its own step"),
      clEnumValN(KeyPrefetch::nextTile, "next-tile",
                 "the next tile's K during this tile's softmax and PV"));
}

void mlir::pa::populateDecodeToMFMAPatterns(RewritePatternSet &patterns,
                                            const ChipInfo &chip,
                                            const MFMAOptions &options) {
  patterns.add<DecodeKernelToMFMA>(patterns.getContext(), chip, options);
  patterns.add<ParallelLoopsToLanes>(patterns.getContext(), chip);
}
