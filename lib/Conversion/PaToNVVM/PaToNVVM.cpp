//===- PaToNVVM.cpp - the tiled IR on the threads of NVIDIA workgroups ----===//
//
// Turns the workgroup programs of gpu.module @pa_kernels into per-thread
// code for 128-thread (4-warp) workgroups on sm_90a. Each kernel gets one of
// three distributions, recorded as its `pa.distribution` attribute:
//   - "warps": the decode kernel's pa.tile ops on the 4 warps with
//     mma.sync (DecodeToWarps.cpp); the reduce kernel rebuilt with rows on
//     warps and partitions and head-dim columns on lanes (ReduceToWarps.cpp);
//   - "parallel-loops": another kernel whose writes all happen in
//     scf.parallel loops runs its scalar code on every thread and gives
//     thread i the iterations i, i + 128, ... of every such loop;
//   - "thread0": anything else (the plan kernel; a decode kernel of a
//     configuration the warp lowering does not cover) is lowered to loops
//     and runs its sequential workgroup program on thread 0
//     (pa-lower-tile-to-loops, pa-workgroup-to-lane0).
// Then bf16 / f16 / fp8 arith.extf and arith.truncf become integer bit
// operations (pa-expand-float-casts): MLIR 22 does not translate the fp8
// ones in NVVM kernels.
//
//===----------------------------------------------------------------------===//
#include "DecodeToWarps.h"

#include "pa/Conversion/PaToNVVM/PaToNVVM.h"
#include "pa/Transforms/KernelsPass.h"

#include "pa/Conversion/Passes.h"
#include "pa/IR/Chip.h"
#include "pa/IR/KernelAttributes.h"
#include "pa/IR/PaOps.h"
#include "pa/Support/KernelOptionLimits.h"
#include "pa/Transforms/Passes.h"
#include "pa/Transforms/TiledDecode.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PATONVVM
#include "pa/Conversion/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {

/// Every f32 math.log (the log-sum-exp output's log(den)) as lg2.approx.f32
/// times ln 2: the NVPTX backend selects llvm.log only through a libdevice
/// call, and the PTX links no libdevice. lg2.approx's error (about 2^-22
/// absolute) is far inside the spec's tolerance for lse. Other types have
/// no lowering: an error at the op.
LogicalResult lowerNaturalLogs(gpu::GPUModuleOp kernels) {
  WalkResult result = kernels.walk([](math::LogOp log) {
    Type f32 = Float32Type::get(log.getContext());
    if (log.getType() != f32) {
      log.emitOpError() << "pa-to-nvvm: no natural log of " << log.getType()
                        << " on NVIDIA (f32 only, as lg2.approx.f32)";
      return WalkResult::interrupt();
    }
    ImplicitLocOpBuilder b(log.getLoc(), log);
    Value log2 = LLVM::CallIntrinsicOp::create(
                     b, f32, b.getStringAttr("llvm.nvvm.lg2.approx.f"),
                     ValueRange{log.getOperand()})
                     .getResult(0);
    Value ln2 = arith::ConstantOp::create(
        b, b.getF32FloatAttr(static_cast<float>(llvm::numbers::ln2)));
    log.replaceAllUsesWith(arith::MulFOp::create(b, log2, ln2).getResult());
    log.erase();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The outermost scf.parallel enclosing `op` (or `op` itself), if any.
scf::ParallelOp outermostParallel(Operation *op) {
  scf::ParallelOp outermost = dyn_cast<scf::ParallelOp>(op);
  for (auto loop = op->getParentOfType<scf::ParallelOp>(); loop;
       loop = loop->getParentOfType<scf::ParallelOp>())
    outermost = loop;
  return outermost;
}

bool touchesWorkgroupMemory(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    return memref && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(memref);
  });
}

/// True when every thread may run `kernel`'s program with the iterations
/// of its scf.parallel loops split among the threads: the loops are 1-D
/// from 0 step 1 (so iteration i is on the same thread in every loop), and
/// every memory write, and every workgroup-memory access, is inside one.
/// Then no thread reads what another wrote, and no barrier is needed.
bool canSplitParallelLoops(gpu::GPUFuncOp kernel,
                           SmallVectorImpl<scf::ParallelOp> &loops) {
  bool ok = true;
  kernel.walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (outermostParallel(op) != loop)
        return;
      ok &= loop.getNumLoops() == 1 && loop.getNumReductions() == 0 &&
            isConstantIntValue(loop.getLowerBound()[0], 0) &&
            isConstantIntValue(loop.getStep()[0], 1);
      loops.push_back(loop);
      return;
    }
    if (isa<gpu::BarrierOp, gpu::ThreadIdOp>(op)) {
      ok = false;
      return;
    }
    bool writes = !isMemoryEffectFree(op) &&
                  !hasSingleEffect<MemoryEffects::Read>(op) &&
                  !isa<gpu::GPUFuncOp, gpu::ReturnOp>(op) &&
                  op->getNumRegions() == 0;
    if ((writes || touchesWorkgroupMemory(op)) && !outermostParallel(op))
      ok = false;
  });
  return ok && !loops.empty();
}

/// for (i = tid; i < upper; i += 128) in place of each loop.
void splitParallelLoops(gpu::GPUFuncOp kernel,
                        ArrayRef<scf::ParallelOp> loops) {
  ImplicitLocOpBuilder b(kernel.getLoc(), kernel.getContext());
  b.setInsertionPointToStart(&kernel.getBody().front());
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value stride = arith::ConstantIndexOp::create(b, nvvm::kWorkgroupThreads);
  for (scf::ParallelOp loop : loops) {
    b.setInsertionPoint(loop);
    b.setLoc(loop.getLoc());
    auto strided = scf::ForOp::create(b, tid, loop.getUpperBound()[0], stride);
    Block *body = loop.getBody();
    body->getTerminator()->erase(); // scf.reduce without operands
    Block *forBody = strided.getBody();
    forBody->getOperations().splice(forBody->begin(), body->getOperations());
    loop.getInductionVars()[0].replaceAllUsesWith(strided.getInductionVar());
    loop.erase();
  }
}

/// The base of the kernel patterns: each matches a kernel not yet given a
/// distribution and records the one it gives (pa.distribution).
struct KernelToThreads : OpRewritePattern<gpu::GPUFuncOp> {
  KernelToThreads(MLIRContext *context, PatternBenefit benefit)
      : OpRewritePattern(context, benefit) {}

  LogicalResult matchAndRewrite(gpu::GPUFuncOp kernel,
                                PatternRewriter &rewriter) const final {
    // A kernel built for its threads already (pa-lower-plan-to-threads).
    if (!kernel.isKernel() || kernel->hasAttr(kDistributionAttrName))
      return failure();
    std::optional<Distribution> distribution;
    rewriter.modifyOpInPlace(kernel, [&] {
      distribution = distribute(kernel);
      if (distribution)
        kernel->setAttr(kDistributionAttrName,
                        DistributionAttr::get(kernel.getContext(),
                                              *distribution));
    });
    return success(distribution.has_value());
  }

  /// Rewrites `kernel` for its threads and returns how, or nothing (the
  /// kernel untouched) when this pattern does not apply.
  virtual std::optional<Distribution>
  distribute(gpu::GPUFuncOp kernel) const = 0;
};

/// The pattern benefits: the kernel kinds are tried in this order.
enum KernelKindOrder : unsigned {
  kOnThread0 = 1,
  kParallelLoops,
  kReduce,
  kDecode,
};

struct DecodeKernelToWarps final : KernelToThreads {
  DecodeKernelToWarps(MLIRContext *context, const WarpOptions &options)
      : KernelToThreads(context, kDecode), options(options) {}

  std::optional<Distribution> distribute(gpu::GPUFuncOp kernel) const override {
    if (!hasTileOps(kernel))
      return std::nullopt;
    std::string reason;
    if (nvvm::distributeDecodeKernel(kernel, options, reason))
      return Distribution::warps;
    kernel->setAttr(kThread0ReasonAttrName,
                    StringAttr::get(kernel.getContext(), reason));
    return Distribution::thread0;
  }

  WarpOptions options;
};

struct ReduceKernelToWarps final : KernelToThreads {
  ReduceKernelToWarps(MLIRContext *context, const ChipInfo &chip)
      : KernelToThreads(context, kReduce), computeUnits(chip.computeUnits) {}

  std::optional<Distribution> distribute(gpu::GPUFuncOp kernel) const override {
    if (nvvm::distributeReduceKernel(kernel, computeUnits))
      return Distribution::warps;
    return std::nullopt;
  }

  int64_t computeUnits;
};

struct ParallelLoopsToThreads final : KernelToThreads {
  explicit ParallelLoopsToThreads(MLIRContext *context)
      : KernelToThreads(context, kParallelLoops) {}

  std::optional<Distribution> distribute(gpu::GPUFuncOp kernel) const override {
    SmallVector<scf::ParallelOp> loops;
    if (!canSplitParallelLoops(kernel, loops))
      return std::nullopt;
    splitParallelLoops(kernel, loops);
    return Distribution::parallel_loops;
  }
};

/// Any other kernel: its workgroup program on thread 0, lowered after the
/// patterns (pa-lower-tile-to-loops, pa-workgroup-to-lane0).
struct KernelOnThread0 final : KernelToThreads {
  explicit KernelOnThread0(MLIRContext *context)
      : KernelToThreads(context, kOnThread0) {}

  std::optional<Distribution> distribute(gpu::GPUFuncOp) const override {
    return Distribution::thread0;
  }
};

struct PaToNVVMPass
    : KernelsPass<PaToNVVMPass, pa::impl::PaToNVVMBase, Vendor::NVIDIA> {
  using KernelsPass::KernelsPass;

  void runOnKernels(gpu::GPUModuleOp kernels, const ChipInfo &chip) {
    if (fp8Products != "f16" && fp8Products != "e4m3") {
      kernels.emitError() << "pa-to-nvvm: fp8-products must be f16 or e4m3, "
                             "got '"
                          << fp8Products << "'";
      return signalPassFailure();
    }
    if (chip.workgroupSize != nvvm::kWorkgroupThreads) {
      kernels.emitError() << "pa-to-nvvm distributes over "
                          << nvvm::kWorkgroupThreads << " threads, but "
                          << chip.name << " launches " << chip.workgroupSize;
      return signalPassFailure();
    }

    // The kernel options counted in blocks or tiles.
    auto inRange = [&](StringRef option, int64_t value, KernelOptionRange range,
                       StringRef what) {
      if (value >= range.minimum && value <= range.maximum)
        return true;
      kernels.emitError() << "pa-to-nvvm: " << option << " must be in ["
                          << range.minimum << ", " << range.maximum << "] ("
                          << what << "), got " << value;
      return false;
    };
    if (!inRange("key-ahead", keyAhead, kKeyAheadRange, "K blocks of a tile") ||
        !inRange("value-stage", valueStage, kValueStageRange,
                 "V token blocks of a tile") ||
        !inRange("value-ahead", valueAhead, kValueAheadRange,
                 "V token blocks requested ahead") ||
        !inRange("l2-prefetch-min-tiles", l2PrefetchMinTiles,
                 kL2PrefetchMinTilesRange, "tiles of a partition"))
      return signalPassFailure();
    if (l2PrefetchMinTiles > 0 && !l2Prefetch) {
      kernels.emitError() << "pa-to-nvvm: l2-prefetch-min-tiles needs "
                             "l2-prefetch (it picks the partitions that "
                             "prefetch)";
      return signalPassFailure();
    }
    if (keyAheadBulk && keyAheadInRegisters) {
      kernels.emitError() << "pa-to-nvvm: key-ahead-bulk and "
                             "key-ahead-in-registers exclude each other "
                             "(where key-ahead's chunks go)";
      return signalPassFailure();
    }

    RewritePatternSet patterns(&getContext());
    populateDecodeToWarpsPatterns(patterns, chip,
                                  {/*e4m3Products=*/fp8Products == "e4m3",
                                   /*keyAheadBlocks=*/keyAhead,
                                   /*keyAheadInRegisters=*/keyAheadInRegisters,
                                   /*keyAheadBulk=*/keyAheadBulk,
                                   /*valueStageBlocks=*/valueStage,
                                   /*valueAheadBlocks=*/valueAhead,
                                   /*l2Prefetch=*/l2Prefetch,
                                   /*l2PrefetchMinTiles=*/l2PrefetchMinTiles});
    walkAndApplyPatterns(kernels, std::move(patterns));

    // The rest: sequential programs on thread 0, casts as bit operations.
    OpPassManager rest(gpu::GPUModuleOp::getOperationName());
    rest.addPass(createPaLowerTileToLoops());
    rest.addPass(createPaWorkgroupToLane0());
    rest.addPass(createPaExpandFloatCasts());
    if (failed(runPipeline(rest, kernels)))
      return signalPassFailure();
    if (failed(lowerNaturalLogs(kernels)))
      return signalPassFailure();
  }
};

} // namespace

void mlir::pa::populateDecodeToWarpsPatterns(RewritePatternSet &patterns,
                                             const ChipInfo &chip,
                                             const WarpOptions &options) {
  MLIRContext *context = patterns.getContext();
  patterns.add<DecodeKernelToWarps>(context, options);
  patterns.add<ReduceKernelToWarps>(context, chip);
  patterns.add<ParallelLoopsToThreads, KernelOnThread0>(context);
}
