//===- ConvertToNVVM.cpp - kernels to the LLVM and NVVM dialects ----------===//
//
// The upstream convert-gpu-to-nvvm pass lowers math to libdevice calls
// (__nv_*) and marks LLVM's math intrinsics illegal; pa-mlir's PTX must not
// need libdevice. This pass assembles the upstream patterns (gpu, arith, cf,
// memref, vector, index, ub to LLVM/NVVM) under a conversion target that
// keeps LLVM's math intrinsics (llvm.intr.exp2 becomes ex2.approx.f32 in the
// NVPTX backend) and fails on anything that would become an external call.
// What AMD does alike is in lib/Target/KernelsToLLVM.cpp.
//
// Workgroup buffers become views of the kernel's dynamic shared memory first:
// PTX caps static .shared at 48 KiB per kernel, and the decode kernel's
// buffers exceed that at D = 256 with 32 rows.
//
//===----------------------------------------------------------------------===//
#include "NVIDIATarget.h"
#include "pa/IR/PaDialect.h"
#include "pa/Target/KernelStrides.h"
#include "pa/Target/KernelsToLLVM.h"
#include "pa/Target/LLVMSupport.h"
#include "pa/Target/NVIDIA/Pipeline.h"
#include "pa/Transforms/KernelsPass.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/Support/MathExtras.h"

#include <map>

namespace mlir::pa {
#define GEN_PASS_DEF_PACONVERTKERNELSTONVVM
#include "pa/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {

/// A float maximum or minimum as LLVM's intrinsic (llvm.maximum /
/// llvm.minimum propagate NaN, llvm.maxnum / llvm.minnum drop it), ahead of
/// the conversion: its GPU patterns would call libdevice (__nv_fmaxf) and
/// arith-expand makes four compares and selects of each, where the NVPTX
/// backend selects one max.NaN.f32 / max.f32 (sm_80 and later).
template <typename ArithOp, typename IntrinsicOp>
struct FloatExtremumToIntrinsic final : OpRewritePattern<ArithOp> {
  using OpRewritePattern<ArithOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ArithOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<IntrinsicOp>(op, op.getType(), op.getLhs(),
                                             op.getRhs());
    return success();
  }
};

/// Records kAccessAlignmentsAttrName on `kernel`: for each memref argument
/// in global memory that an op reads or writes through (directly or
/// through a view of it or of its base buffer), the widest access at one
/// address: a vector load
/// or store's alignment (pa-to-nvvm gives each its bytes, up to 16), 16
/// where the kernel takes the argument's pointer (pa-to-nvvm does that
/// only for inline PTX loads and asynchronous copies, of at most 16
/// bytes), else the element's bytes. A view that misaligned them would
/// fault on the GPU; the launcher refuses it instead (the sidecar's
/// "alignments").
void recordAccessAlignments(gpu::GPUFuncOp kernel) {
  Block &entry = kernel.getBody().front();
  auto argumentOf = [&](Value memref) -> std::optional<unsigned> {
    while (true) {
      if (auto argument = dyn_cast<BlockArgument>(memref)) {
        if (argument.getOwner() != &entry ||
            argument.getArgNumber() >= kernel.getNumArguments())
          return std::nullopt; // a workgroup buffer
        return argument.getArgNumber();
      }
      // expand-strided-metadata makes a view a cast of the source's base
      // buffer.
      if (auto metadata =
              memref.getDefiningOp<memref::ExtractStridedMetadataOp>()) {
        memref = metadata.getSource();
        continue;
      }
      auto view = memref.getDefiningOp<ViewLikeOpInterface>();
      if (!view)
        return std::nullopt;
      memref = view.getViewSource();
    }
  };
  auto elementBytes = [](Value memref) {
    return static_cast<int64_t>(llvm::divideCeil(
        cast<MemRefType>(memref.getType()).getElementTypeBitWidth(), 8));
  };
  std::map<unsigned, int64_t> widest;
  kernel.walk([&](Operation *op) {
    if (isa<ViewLikeOpInterface>(op))
      return; // the accesses through the view count
    for (Value operand : op->getOperands()) {
      if (!isa<MemRefType>(operand.getType()))
        continue;
      std::optional<unsigned> argument = argumentOf(operand);
      if (!argument)
        continue;
      int64_t bytes = elementBytes(operand);
      if (auto load = dyn_cast<vector::LoadOp>(op))
        bytes = std::max<int64_t>(bytes, load.getAlignment().value_or(0));
      else if (auto store = dyn_cast<vector::StoreOp>(op))
        bytes = std::max<int64_t>(bytes, store.getAlignment().value_or(0));
      else if (isa<memref::ExtractAlignedPointerAsIndexOp>(op))
        bytes = std::max<int64_t>(bytes, 16);
      int64_t &recorded = widest[*argument];
      recorded = std::max(recorded, bytes);
    }
  });
  MLIRContext *ctx = kernel.getContext();
  SmallVector<NamedAttribute> entries;
  for (auto [index, bytes] : widest) {
    Value argument = entry.getArgument(index);
    entries.push_back(NamedAttribute(
        StringAttr::get(ctx, kernelArgumentName(kernel, index)),
        DenseI64ArrayAttr::get(ctx, {bytes, elementBytes(argument)})));
  }
  kernel->setAttr(kAccessAlignmentsAttrName, DictionaryAttr::get(ctx, entries));
}

/// Alignment of each buffer in dynamic shared memory: 16-byte vector
/// accesses (ld.shared.v4) need it.
constexpr int64_t kSharedAlignment = 16;

int64_t bufferBytes(MemRefType type) {
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// Replaces the workgroup attributions of `kernel` with views of its dynamic
/// shared memory at 16-byte aligned offsets; records the total bytes as
/// kSharedBytesAttrName. Fails (at the kernel, with a note per buffer) when
/// the total exceeds the chip's shared memory per block.
LogicalResult moveToDynamicSharedMemory(gpu::GPUFuncOp kernel,
                                        const ChipInfo &chip) {
  MLIRContext *ctx = kernel.getContext();
  ArrayRef<BlockArgument> buffers = kernel.getWorkgroupAttributions();
  int64_t total = 0;
  SmallVector<int64_t> offsets;
  for (BlockArgument buffer : buffers) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return kernel.emitError()
             << "workgroup buffer " << type
             << " needs a static shape and the identity layout to live in "
                "dynamic shared memory";
    total = llvm::alignTo(total, kSharedAlignment);
    offsets.push_back(total);
    total += bufferBytes(type);
  }
  if (total > chip.workgroupMemoryBytes) {
    InFlightDiagnostic diag =
        kernel.emitError() << "kernel '" << kernel.getName() << "' needs "
                           << total << " bytes of shared memory; "
                           << chip.name << " has " << chip.workgroupMemoryBytes
                           << " per block";
    for (BlockArgument buffer : buffers)
      diag.attachNote(buffer.getLoc())
          << "workgroup buffer " << buffer.getType();
    return failure();
  }
  kernel->setAttr(kSharedBytesAttrName,
                  IntegerAttr::get(IntegerType::get(ctx, 64), total));
  if (buffers.empty())
    return success();

  Location loc = kernel.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  auto space = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   MemRefLayoutAttrInterface(), space);
  Value shared = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  for (auto [index, offset] : llvm::enumerate(offsets)) {
    BlockArgument buffer = buffers[index];
    Value shift = arith::ConstantIndexOp::create(b, loc, offset);
    Value view = memref::ViewOp::create(b, loc, buffer.getType(), shared,
                                        shift, ValueRange{});
    buffer.replaceAllUsesWith(view);
  }
  unsigned first = kernel.getFirstWorkgroupAttributionIndex();
  for (unsigned i = buffers.size(); i-- > 0;)
    kernel.getBody().front().eraseArgument(first + i);
  kernel->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                  b.getI64IntegerAttr(0));
  kernel->removeAttr(kernel.getWorkgroupAttribAttrsAttrName());
  return success();
}

/// Whether `kernel` runs as one workgroup (#pa.grid<x = 1, y = 1, z = 1>).
bool runsOneWorkgroup(gpu::GPUFuncOp kernel) {
  auto grid = kernel->getAttrOfType<GridAttr>(kGridAttrName);
  return grid && llvm::all_of(grid.getExtents(), [](const GridExtent &axis) {
           return axis.isConstant() && axis.value == 1;
         });
}

/// Programmatic dependent launch (sm_90): the launcher may dispatch a
/// kernel's workgroups before its stream predecessor has completed. Every
/// kernel therefore first waits for its predecessor's completion and
/// memory (`griddepcontrol.wait`, a no-op in a plain launch) before it
/// reads anything. A kernel of one workgroup (the plan) then lets its
/// dependents be dispatched at once (`launch_dependents`): the decode's
/// workgroups are resident, waiting, on the SMs the plan leaves idle, and
/// start when it completes (H200, same-run A/B: up to 1.2% less time per
/// step, 0.8-7% on the window-4096 rows at B 8). A kernel of many
/// workgroups (the decode) does not: the reduce's workgroups dispatched
/// during it made steps up to 8% slower (docs/nvidia.md). Inline PTX with a
/// memory clobber: LLVM's intrinsics are IntrNoMem, which would let O3
/// hoist loads above the wait.
void waitForPredecessorAtEntry(gpu::GPUFuncOp kernel) {
  std::string text = "griddepcontrol.wait;";
  if (runsOneWorkgroup(kernel))
    text += "\n\tgriddepcontrol.launch_dependents;";
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  LLVM::InlineAsmOp::create(
      b, kernel.getLoc(), Type(), ValueRange(), text, "~{memory}",
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
      ArrayAttr());
  kernel->setAttr(kProgrammaticLaunchAttrName,
                  UnitAttr::get(kernel.getContext()));
}

/// Upstream lowers gpu.dynamic_shared_memory to an *internal* [0 x i8]
/// global: a definition whose size LLVM then knows to be 0, so every access
/// is out of bounds and O3 may reorder or drop them (seen: zeroing stores at
/// constant offsets sunk past the loop that read them). Declaring it
/// external, like CUDA's `extern __shared__ char smem[]`, leaves its size
/// unknown.
void declareDynamicSharedMemoryExternal(gpu::GPUModuleOp kernels) {
  for (auto global : kernels.getOps<LLVM::GlobalOp>()) {
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (global.getAddrSpace() !=
            static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) ||
        !array || array.getNumElements() != 0)
      continue;
    global.setLinkage(LLVM::Linkage::External);
    global.removeValueAttr();
    global.setUnnamedAddr(LLVM::UnnamedAddr::None);
  }
}

struct ConvertKernelsToNVVMPass
    : KernelsPass<ConvertKernelsToNVVMPass,
                  pa::impl::PaConvertKernelsToNVVMBase, Vendor::NVIDIA> {
  using KernelsPass::KernelsPass;

  void runOnKernels(gpu::GPUModuleOp kernels, const ChipInfo &chip) {

    FailureOr<llvm::DataLayout> dataLayout =
        setDataLayout(kernels, nvidia::kBackend, chip.name);
    if (failed(dataLayout))
      return signalPassFailure();

    bool fits = true;
    // The gpu.func lowering drops nvvm.minctasm (pa-to-nvvm's workgroups
    // per SM for ptxas): carried over to the llvm.func by hand.
    llvm::StringMap<Attribute> minCTAs;
    StringRef minCTAsName = NVVM::NVVMDialect::getMinctasmAttrName();
    for (auto kernel : kernels.getOps<gpu::GPUFuncOp>()) {
      if (!kernel.isKernel())
        continue;
      if (Attribute count = kernel->getAttr(minCTAsName))
        minCTAs[kernel.getName()] = count;
      recordAccessAlignments(kernel);
      recordKernelArguments(kernel, kParamFieldsAttrName);
      fits &= succeeded(moveToDynamicSharedMemory(kernel, chip));
      waitForPredecessorAtEntry(kernel);
    }
    if (!fits)
      return signalPassFailure();

    auto addPatterns = [](LLVMTypeConverter &converter,
                          RewritePatternSet &patterns) {
      populateGpuToNVVMConversionPatterns(converter, patterns);
      // The arith ops LLVM has no instruction for, expanded here rather
      // than by arith-expand, which also expands the float maxima and
      // minima into compares and selects (FloatExtremumToIntrinsic).
      arith::populateCeilFloorDivExpandOpsPatterns(patterns);
      arith::populateExpandScalingExtTruncPatterns(patterns);
    };
    auto addRewrites = [](RewritePatternSet &patterns) {
      patterns.add<FloatExtremumToIntrinsic<arith::MaximumFOp, LLVM::MaximumOp>,
                   FloatExtremumToIntrinsic<arith::MinimumFOp, LLVM::MinimumOp>,
                   FloatExtremumToIntrinsic<arith::MaxNumFOp, LLVM::MaxNumOp>,
                   FloatExtremumToIntrinsic<arith::MinNumFOp, LLVM::MinNumOp>>(
          patterns.getContext());
    };
    if (failed(convertKernelsToLLVM(kernels, *dataLayout,
                                    {NVVM::NVVMDialect::getDialectNamespace(),
                                     configureGpuToNVVMTypeConverter,
                                     addPatterns, addRewrites})))
      return signalPassFailure();
    for (auto func : kernels.getOps<LLVM::LLVMFuncOp>())
      if (Attribute count = minCTAs.lookup(func.getName()))
        func->setAttr(minCTAsName, count);
    declareDynamicSharedMemoryExternal(kernels);
    if (failed(checkNoExternalFunctions(kernels, nvidia::kLibdevice)))
      return signalPassFailure();
  }
};

} // namespace

