//===- PaDialect.cpp - pa dialect registration ----------------------------===//
#include "pa/IR/PaDialect.h"
#include "pa/IR/KernelAttributes.h"
#include "pa/IR/PaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pa;

#include "pa/IR/PaDialect.cpp.inc"
#include "pa/IR/PaEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pa/IR/PaAttrs.cpp.inc"

void PaDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pa/IR/PaOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pa/IR/PaAttrs.cpp.inc"
      >();
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   StringRef chip) {
  if (lookupChip(chip))
    return success();
  return emitError() << "unknown chip '" << chip << "'; expected one of "
                     << knownChipNames();
}

ChipInfo TargetAttr::getInfo() const { return *lookupChip(getChip()); }

namespace {
/// Checks the kernel attributes of KernelAttributes.h: each one's kind.
/// Other `pa.`-prefixed names are left to the passes that define them.
LogicalResult verifyKernelAttribute(Operation *op, NamedAttribute attribute) {
  StringRef name = attribute.getName();
  Attribute value = attribute.getValue();
  auto fail = [&](StringRef expected) {
    return op->emitError() << "'" << name << "' must be " << expected
                           << ", got " << value;
  };
  auto isStringArray = [&] {
    auto array = dyn_cast<ArrayAttr>(value);
    return array && llvm::all_of(array, llvm::IsaPred<StringAttr>);
  };
  auto isI64 = [&] {
    auto integer = dyn_cast<IntegerAttr>(value);
    return integer && integer.getType().isSignlessInteger(64);
  };
  if (name == kArgNamesAttrName || name == kKernargFieldsAttrName ||
      name == kParamFieldsAttrName)
    return isStringArray() ? success() : fail("an array of strings");
  if (name == kGridAttrName || name == kThread0ReasonAttrName)
    return isa<StringAttr>(value) ? success() : fail("a string");
  if (name == kGridZAttrName || name == kSharedBytesAttrName)
    return isI64() ? success() : fail("an i64 integer");
  if (name == kDistributionAttrName) {
    auto how = dyn_cast<StringAttr>(value);
    if (how && llvm::is_contained(kDistributions, how.getValue()))
      return success();
    return fail("one of \"thread0\", \"warps\", \"parallel-loops\", "
                "\"threads\"");
  }
  return success();
}
} // namespace

LogicalResult PaDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attribute) {
  if (attribute.getName() != kTargetAttrName)
    return verifyKernelAttribute(op, attribute);
  if (!isa<TargetAttr>(attribute.getValue()))
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be a #pa.target attribute, got "
                           << attribute.getValue();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << kTargetAttrName
                           << "' belongs on a builtin.module, not on '"
                           << op->getName() << "'";
  return success();
}

std::optional<ChipInfo> mlir::pa::findTargetChip(Operation *op) {
  for (Operation *scope = op; scope; scope = scope->getParentOp())
    if (auto target =
            scope->getAttrOfType<TargetAttr>(PaDialect::kTargetAttrName))
      return target.getInfo();
  return std::nullopt;
}

FailureOr<ChipInfo> mlir::pa::getTargetChip(Operation *op, StringRef pass,
                                            std::optional<Vendor> vendor) {
  if (std::optional<ChipInfo> chip = findTargetChip(op)) {
    if (vendor && chip->vendor != *vendor)
      return op->emitError()
             << pass << ": " << chip->name << " is not an "
             << (*vendor == Vendor::AMD ? "AMD" : "NVIDIA")
             << " chip (the module's pa.target)";
    return *chip;
  }
  return op->emitError() << pass
                         << ": no target chip: the module has no pa.target "
                            "attribute (state it, e.g. `module attributes "
                            "{pa.target = #pa.target<\""
                         << kDefaultChip
                         << "\">}`, or run pa-set-target{chip=...} first)";
}

FloatType mlir::pa::getFp8Type(MLIRContext *context, const ChipInfo &chip) {
  if (chip.fp8Format == Fp8Format::E4M3FNUZ)
    return Float8E4M3FNUZType::get(context);
  return Float8E4M3FNType::get(context);
}
