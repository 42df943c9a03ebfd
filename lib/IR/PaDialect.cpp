//===- PaDialect.cpp - pa dialect registration ----------------------------===//
#include "pa/IR/PaDialect.h"
#include "pa/IR/KernelAttributes.h"
#include "pa/IR/PaLayoutAttrs.h"
#include "pa/IR/PaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
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

//===----------------------------------------------------------------------===//
// Kernel attributes (KernelAttributes.h)
//===----------------------------------------------------------------------===//

Attribute DistributionAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string name;
  if (parser.parseLess() || parser.parseKeywordOrString(&name) ||
      parser.parseGreater())
    return {};
  if (std::optional<Distribution> value = symbolizeDistribution(name))
    return get(parser.getContext(), *value);
  parser.emitError(loc) << "expected one of thread0, warps, "
                           "\"parallel-loops\", threads, got '"
                        << name << "'";
  return {};
}

void DistributionAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printKeywordOrString(stringifyDistribution(getValue()));
  printer << '>';
}

namespace {
constexpr llvm::StringLiteral kGridAxes[] = {"x", "y", "z"};

/// An operand name the runtime's grid evaluator reads back (and a keyword
/// of the attribute's syntax): [A-Za-z_][A-Za-z0-9_]*.
bool isGridOperandName(StringRef name) {
  return !name.empty() && (llvm::isAlpha(name.front()) || name.front() == '_') &&
         llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}
} // namespace

LogicalResult GridAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<GridExtent> extents) {
  if (extents.size() != 3)
    return emitError() << "a grid has 3 axes (x, y, z), got "
                       << extents.size();
  for (auto [axis, extent] : llvm::zip(kGridAxes, extents)) {
    if (extent.isDim() && (!isGridOperandName(extent.operand.getValue()) ||
                           extent.value < 0))
      return emitError() << "grid axis " << axis
                         << ": a dim is a kernel operand name "
                            "([A-Za-z_][A-Za-z0-9_]*) and a dim index >= 0, "
                            "got '"
                         << extent.operand.getValue() << "' dim "
                         << extent.value;
    if (!extent.isDim() && extent.value != GridExtent::kDynamic &&
        extent.value < 1)
      return emitError() << "grid axis " << axis
                         << ": a constant extent must be >= 1, got "
                         << extent.value;
  }
  return success();
}

std::string GridAttr::getFormula() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto [axis, extent] : llvm::zip(kGridAxes, getExtents())) {
    if (axis != kGridAxes[0])
      os << ", ";
    os << axis << " = ";
    if (extent.isDim())
      os << extent.operand.getValue() << " dim " << extent.value;
    else if (extent.isConstant())
      os << extent.value;
    else
      os << "dynamic";
  }
  return text;
}

Attribute GridAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  MLIRContext *context = parser.getContext();
  SmallVector<GridExtent, 3> extents;
  if (parser.parseLess())
    return {};
  for (StringRef axis : kGridAxes) {
    if (axis != kGridAxes[0] && failed(parser.parseOptionalComma())) {
      parser.emitError(parser.getCurrentLocation())
          << "a grid has 3 axes (x, y, z), got " << extents.size();
      return {};
    }
    if (parser.parseKeyword(axis) || parser.parseEqual())
      return {};
    int64_t size;
    SMLoc sizeLoc = parser.getCurrentLocation();
    OptionalParseResult constant = parser.parseOptionalInteger(size);
    if (constant.has_value()) {
      if (failed(*constant))
        return {};
      // -1 is the storage's "dynamic": no negative constant may alias it.
      if (size < 1) {
        parser.emitError(sizeLoc) << "grid axis " << axis
                                  << ": a constant extent must be >= 1, got "
                                  << size;
        return {};
      }
      extents.push_back(GridExtent::constant(size));
      continue;
    }
    if (succeeded(parser.parseOptionalKeyword("dynamic"))) {
      extents.push_back(GridExtent::dynamic());
      continue;
    }
    StringRef operand;
    int64_t dim;
    if (parser.parseKeyword(&operand) || parser.parseKeyword("dim") ||
        parser.parseInteger(dim))
      return {};
    extents.push_back(
        GridExtent::dimOf(StringAttr::get(context, operand), dim));
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, context, extents);
}

void GridAttr::print(AsmPrinter &printer) const {
  printer << '<' << getFormula() << '>';
}

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
  if (name == kThread0ReasonAttrName)
    return isa<StringAttr>(value) ? success() : fail("a string");
  if (name == kGridZAttrName || name == kSharedBytesAttrName)
    return isI64() ? success() : fail("an i64 integer");
  if (name == kGridAttrName)
    return isa<GridAttr>(value) ? success() : fail("a #pa.grid attribute");
  if (name == kDistributionAttrName)
    return isa<DistributionAttr>(value) ? success()
                                        : fail("a #pa.distribution attribute");
  if (name == kMFMALayoutAttrName) {
    auto layout = dyn_cast<MFMALayoutAttr>(value);
    return layout ? verifyMFMALayoutOn(op, layout)
                  : fail("a #pa.mfma_layout attribute");
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
