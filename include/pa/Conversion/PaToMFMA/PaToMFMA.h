//===- PaToMFMA.h - the patterns of pa-to-mfma ------------------*- C++ -*-===//
//
// The rewrite patterns pa-to-mfma applies, for a pass or pipeline of another
// project that lowers pa-mlir's tiled IR to AMD lanes (upstream's
// populateAMDGPUToROCDLConversionPatterns is the model: the chip's facts
// passed in, the pass only calls this).
//
//===----------------------------------------------------------------------===//
#ifndef PA_CONVERSION_PATOMFMA_PUBLIC_PATOMFMA_H
#define PA_CONVERSION_PATOMFMA_PUBLIC_PATOMFMA_H

#include "pa/Conversion/MFMAOptions.h"
#include "pa/IR/Chip.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::pa {

/// Adds pa-to-mfma's patterns for kernels on `chip` (an AMD chip of
/// pa/IR/Chip.h), with `options`. Each matches a `gpu.func` kernel:
/// - `DecodeKernelToMFMA`: a decode kernel (one with `pa.tile` ops) that
///   follows the tiled IR contract and the chip's limits becomes per-lane
///   MFMA code for 4 waves, with its `pa.mfma_layout` or the one chosen for
///   it (the attribute is removed). A kernel that does not is reported
///   (errors at the kernel) and left as it is; one whose lowering fails
///   reports an error too, so a caller fails where any error was emitted.
/// - `ParallelLoopsToLanes`: any other kernel's 1-D `scf.parallel` loops
///   become loops strided over the workgroup's lanes.
/// Apply them with walkAndApplyPatterns: they fold nothing and must not be
/// followed by folding for the code to be what pa-to-mfma makes.
void populateDecodeToMFMAPatterns(RewritePatternSet &patterns,
                                  const ChipInfo &chip,
                                  const MFMAOptions &options);

} // namespace mlir::pa

#endif // PA_CONVERSION_PATOMFMA_PUBLIC_PATOMFMA_H
