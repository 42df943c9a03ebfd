//===- PTXMetadata.cpp - the JSON sidecar of a PTX module -----------------===//
//
// What a launcher needs to run the kernels without the compiler: for each
// kernel, in the order the host function launches them, the PTX symbol, the
// parameters with their byte offset, size and meaning (the pa op operand
// field each carries: "query.aligned_ptr", "key_cache.size[2]", ...), the
// grid formula, the block size and the dynamic shared memory to pass.
// Registers and spills come from ptxas -v when it ran.
//
//===----------------------------------------------------------------------===//
#include "PTXMetadata.h"
#include "NVIDIATarget.h"
#include "pa/IR/PaDialect.h"
#include "pa/Target/KernelStrides.h"
#include "pa/Target/KernelsToLLVM.h"
#include "pa/Transforms/KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace mlir::pa;

namespace {

/// What the PTX does not say of a kernel's launch (beyond KernelInterface).
struct LaunchFacts {
  std::string distribution; // pa-to-nvvm's pa.distribution
  int64_t sharedBytes = 0;
  SmallVector<int64_t, 3> blockSize;
  bool programmaticLaunch = false;
};

/// The launch facts of `kernel` (an llvm.func); none when null.
LaunchFacts readLaunchFacts(Operation *kernel) {
  LaunchFacts facts;
  if (!kernel)
    return facts;
  if (auto how = kernel->getAttrOfType<DistributionAttr>(kDistributionAttrName))
    facts.distribution = stringifyDistribution(how.getValue()).str();
  if (auto bytes = kernel->getAttrOfType<IntegerAttr>(kSharedBytesAttrName))
    facts.sharedBytes = bytes.getInt();
  facts.programmaticLaunch = kernel->hasAttr(kProgrammaticLaunchAttrName);
  // The GPU-to-NVVM lowering turns gpu.func's known block size into
  // nvvm.maxntid (and keeps gpu.known_block_size).
  for (StringRef name :
       {"nvvm.reqntid", "nvvm.maxntid", "gpu.known_block_size"})
    if (auto size = kernel->getAttrOfType<DenseI32ArrayAttr>(name)) {
      for (int32_t extent : size.asArrayRef())
        facts.blockSize.push_back(extent);
      break;
    }
  return facts;
}

/// Kernel names in the order the module's host code launches them.
SmallVector<std::string> launchOrder(ModuleOp module) {
  SmallVector<std::string> order;
  module.walk([&](gpu::LaunchFuncOp launch) {
    std::string name = launch.getKernelName().str();
    if (!llvm::is_contained(order, name))
      order.push_back(name);
  });
  return order;
}

/// ptxas -v figures of one function.
struct PtxasFigures {
  std::optional<int64_t> registers, stackBytes, spillStores, spillLoads;
};

/// Parses ptxas -v output: a "Compiling entry function 'NAME'" line, then
/// "N bytes stack frame, N bytes spill stores, N bytes spill loads" and
/// "Used N registers" lines for it.
llvm::StringMap<PtxasFigures> parsePtxasLog(StringRef log) {
  llvm::StringMap<PtxasFigures> figures;
  llvm::Regex entry("Compiling entry function '([^']+)'");
  llvm::Regex frame(
      "([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) "
      "bytes spill loads");
  llvm::Regex used("Used ([0-9]+) registers");
  std::string current;
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    SmallVector<StringRef> match;
    auto number = [&](unsigned i) {
      int64_t value = 0;
      match[i].getAsInteger(10, value);
      return value;
    };
    if (entry.match(line, &match)) {
      current = match[1].str();
    } else if (!current.empty() && frame.match(line, &match)) {
      PtxasFigures &f = figures[current];
      f.stackBytes = number(1);
      f.spillStores = number(2);
      f.spillLoads = number(3);
    } else if (!current.empty() && used.match(line, &match)) {
      figures[current].registers = number(1);
    }
  }
  return figures;
}

llvm::json::Value optionalNumber(std::optional<int64_t> value) {
  if (value)
    return *value;
  return nullptr;
}

} // namespace

FailureOr<std::string> mlir::pa::nvidia::writePTXMetadata(
    ModuleOp module, llvm::Module &llvmModule, StringRef ptx, StringRef chip,
    StringRef format, StringRef ptxasLog) {
  llvm::StringMap<KernelInterface> known = collectKernelInterfaces(module, kParamFieldsAttrName);
  llvm::StringMap<PtxasFigures> figures = parsePtxasLog(ptxasLog);
  const llvm::DataLayout &layout = llvmModule.getDataLayout();
  std::string ptxVersion;
  {
    SmallVector<StringRef> match;
    if (llvm::Regex("\\.version ([0-9]+\\.[0-9]+)").match(ptx, &match))
      ptxVersion = match[1].str();
  }

  SmallVector<std::string> order = launchOrder(module);
  // Kernels no host code launches (a module of kernels only) follow.
  for (llvm::Function &function : llvmModule)
    if (function.getCallingConv() == llvm::CallingConv::PTX_Kernel &&
        !llvm::is_contained(order, function.getName().str()))
      order.push_back(function.getName().str());

  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.objectBegin();
  json.attribute("target", chip);
  json.attribute("triple", kTriple);
  json.attribute("ptx_version", ptxVersion);
  json.attribute("format", format);
  json.attributeBegin("kernels");
  json.arrayBegin();
  for (const std::string &name : order) {
    llvm::Function *function = llvmModule.getFunction(name);
    if (!function)
      return module.emitError() << "kernel '" << name
                                << "' is launched but not in the PTX module";
    const KernelInterface *info = lookupKernelInterface(known, name);
    if (info && info->argumentFields.size() != function->arg_size())
      return module.emitError()
             << "kernel '" << name << "' has " << function->arg_size()
             << " PTX parameters but " << info->argumentFields.size()
             << " recorded meanings";
    LaunchFacts launch = readLaunchFacts(info ? info->kernel : nullptr);
    const PtxasFigures *ran =
        figures.count(name) ? &figures.find(name)->second : nullptr;

    json.objectBegin();
    json.attribute("name", name);
    json.attribute("symbol", name);
    json.attribute("grid", info ? info->grid : std::string());
    json.attribute("distribution", launch.distribution);
    json.attributeBegin("block_size");
    json.arrayBegin();
    for (int64_t extent : launch.blockSize)
      json.value(extent);
    json.arrayEnd();
    json.attributeEnd();
    json.attribute("shared_bytes", launch.sharedBytes);
    json.attribute("programmatic_launch", launch.programmaticLaunch);
    writeDynamicStrides(json, info ? info->kernel : nullptr);
    writeAccessAlignments(json, info ? info->kernel : nullptr);
    writePlanLimits(json, info ? info->kernel : nullptr);
    json.attribute("registers",
                   optionalNumber(ran ? ran->registers : std::nullopt));
    json.attribute("stack_bytes",
                   optionalNumber(ran ? ran->stackBytes : std::nullopt));
    json.attribute("spill_store_bytes",
                   optionalNumber(ran ? ran->spillStores : std::nullopt));
    json.attribute("spill_load_bytes",
                   optionalNumber(ran ? ran->spillLoads : std::nullopt));

    int64_t offset = 0;
    json.attributeBegin("args");
    json.arrayBegin();
    for (llvm::Argument &arg : function->args()) {
      llvm::Type *type = arg.getType();
      int64_t size = layout.getTypeAllocSize(type);
      offset = llvm::alignTo(offset, layout.getABITypeAlign(type).value());
      json.objectBegin();
      json.attribute("offset", offset);
      json.attribute("size", size);
      json.attribute("meaning", info ? info->argumentFields[arg.getArgNo()]
                                     : std::string());
      json.objectEnd();
      offset += size;
    }
    json.arrayEnd();
    json.attributeEnd();
    json.attribute("param_bytes", offset);
    json.objectEnd();
  }
  json.arrayEnd();
  json.attributeEnd();
  json.objectEnd();
  os << "\n";
  return text;
}
