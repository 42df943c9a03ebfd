//===- ConvertToROCDL.cpp - kernels to the LLVM and ROCDL dialects --------===//
//
// The upstream convert-gpu-to-rocdl pass lowers math to ROCm device-library
// calls (__ocml_*) and marks llvm.intr.exp2 illegal; pa-mlir's code objects
// must not need the device libraries. This pass assembles the same upstream
// patterns (gpu, amdgpu, arith, cf, memref, vector, index, ub to LLVM/ROCDL)
// under a conversion target that keeps LLVM's math intrinsics, which the
// AMDGPU backend expands itself, and fails on anything that would become an
// external call. What NVIDIA does alike is in lib/Target/KernelsToLLVM.cpp.
//
//===----------------------------------------------------------------------===//
#include "AMDTarget.h"
#include "pa/IR/PaDialect.h"
#include "pa/Target/AMD/Pipeline.h"
#include "pa/Target/KernelsToLLVM.h"
#include "pa/Target/LLVMSupport.h"
#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/KernelsPass.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/ArithToAMDGPU/ArithToAMDGPU.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/AMDGPU/Utils/Chipset.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"

#include "llvm/ADT/STLExtras.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PACONVERTKERNELSTOROCDL
#include "pa/Target/AMD/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {

/// The element type of `type` (itself for scalars).
Type elementTypeOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

/// Whether `type` is an 8-bit float.
bool isFp8(Type type) {
  auto fp = dyn_cast<FloatType>(type);
  return fp && fp.getWidth() == 8;
}

} // namespace

LogicalResult mlir::pa::checkFp8Flavour(Operation *kernels,
                                        const ChipInfo &chip) {
  Type chipFp8 = getFp8Type(kernels->getContext(), chip);
  auto check = [&](Type type, Location loc) -> LogicalResult {
    Type element = elementTypeOf(type);
    if (!isFp8(element) || element == chipFp8)
      return success();
    std::string name; // unquoted, as the chip's type name
    llvm::raw_string_ostream(name) << element;
    return emitError(loc) << "chip " << chip.name << " converts "
                          << fp8TypeName(chip.fp8Format)
                          << " fp8 values natively, not " << name << " ("
                          << type << "); use the chip's fp8 flavour";
  };
  WalkResult walk = kernels->walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(check(arg.getType(), arg.getLoc())))
            return WalkResult::interrupt();
    for (Type type :
         llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
      if (failed(check(type, op->getLoc())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

namespace {

/// Kernels whose workgroup memory exceeds the chip's LDS would fail (or be
/// rejected by the loader) later with a backend message that names no
/// buffer; say it here, at the kernel.
LogicalResult checkWorkgroupMemory(gpu::GPUModuleOp kernels,
                                   const ChipInfo &chip) {
  bool fits = true;
  for (auto kernel : kernels.getOps<gpu::GPUFuncOp>()) {
    int64_t bytes = workgroupMemoryBytes(kernel);
    if (bytes <= chip.workgroupMemoryBytes)
      continue;
    fits = false;
    InFlightDiagnostic diag =
        kernel.emitError() << "kernel '" << kernel.getName() << "' needs "
                           << bytes << " bytes of workgroup memory (LDS); "
                           << chip.name << " has " << chip.workgroupMemoryBytes;
    for (BlockArgument buffer : kernel.getWorkgroupAttributions())
      diag.attachNote(buffer.getLoc())
          << "workgroup buffer " << buffer.getType();
  }
  return success(fits);
}

struct ConvertKernelsToROCDLPass
    : KernelsPass<ConvertKernelsToROCDLPass,
                  pa::impl::PaConvertKernelsToROCDLBase, Vendor::AMD> {
  using KernelsPass::KernelsPass;

  void runOnKernels(gpu::GPUModuleOp kernels, const ChipInfo &chip) {
    FailureOr<amdgpu::Chipset> chipset = amdgpu::Chipset::parse(chip.name);
    if (failed(chipset) || failed(checkFp8Flavour(kernels, chip)) ||
        failed(checkWorkgroupMemory(kernels, chip)))
      return signalPassFailure();

    // The layout the AMDGPU backend will use, so that memref and index
    // arithmetic here agrees with it.
    FailureOr<llvm::DataLayout> dataLayout =
        setDataLayout(kernels, amd::kBackend, chip.name);
    if (failed(dataLayout))
      return signalPassFailure();
    for (auto kernel : kernels.getOps<gpu::GPUFuncOp>())
      if (kernel.isKernel())
        recordKernelArguments(kernel, kKernargFieldsAttrName);

    // In-dialect rewrites: fp8 extf/truncf to the amdgpu conversion ops of
    // the chip (checked above).
    auto addRewrites = [&](RewritePatternSet &patterns) {
      const bool nativeFp8 =
          *chipset == amdgpu::Chipset(9, 4, 2) || amdgpu::hasOcpFp8(*chipset);
      arith::populateArithToAMDGPUConversionPatterns(
          patterns, /*convertFP8Arithmetic=*/nativeFp8,
          /*saturateFP8Truncf=*/true, /*allowPackedF16Rtz=*/false,
          /*supportsScaledExtTrunc=*/*chipset == amdgpu::Chipset(9, 5, 0),
          *chipset);
      // The fp8 patterns split vectors into strided slices; as shuffles
      // they have an LLVM lowering.
      vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
    };
    auto configureTypes = [](LLVMTypeConverter &converter) {
      amdgpu::populateCommonGPUTypeAndAttributeConversions(converter);
    };
    auto addPatterns = [&](LLVMTypeConverter &converter,
                           RewritePatternSet &patterns) {
      populateAMDGPUToROCDLConversionPatterns(converter, patterns, *chipset);
      populateGpuToROCDLConversionPatterns(converter, patterns,
                                           gpu::amd::Runtime::HIP, *chipset);
    };
    if (failed(convertKernelsToLLVM(
            kernels, *dataLayout,
            {ROCDL::ROCDLDialect::getDialectNamespace(), configureTypes,
             addPatterns, addRewrites})))
      return signalPassFailure();

    setFlatWorkgroupSizes(kernels);
    if (failed(checkNoExternalFunctions(kernels, amd::kDeviceLibraries)))
      return signalPassFailure();
  }

  /// The backend reads the flat workgroup size range; make it the exact
  /// known size so it agrees with reqd_work_group_size (as upstream does).
  static void setFlatWorkgroupSizes(gpu::GPUModuleOp kernels) {
    auto *rocdl = kernels.getContext()->getLoadedDialect<ROCDL::ROCDLDialect>();
    auto reqd = rocdl->getReqdWorkGroupSizeAttrHelper();
    auto flat = rocdl->getFlatWorkGroupSizeAttrHelper();
    kernels.walk([&](LLVM::LLVMFuncOp func) {
      if (!reqd.isAttrPresent(func))
        return;
      int64_t size = 1;
      for (int32_t extent : reqd.getAttr(func).asArrayRef())
        size *= extent;
      flat.setAttr(func, StringAttr::get(func.getContext(),
                                         Twine(size) + "," + Twine(size)));
    });
  }
};

} // namespace

