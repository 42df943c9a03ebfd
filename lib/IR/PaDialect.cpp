//===- PaDialect.cpp - pa dialect registration ----------------------------===//
#include "pa/IR/PaDialect.h"
#include "pa/IR/DiscardableAttributes.h"
#include "pa/IR/KernelAttributes.h"
#include "pa/IR/PaLayoutAttrs.h"
#include "pa/IR/PaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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
    if (extent.limit < 0 || (extent.isChosen() && extent.otherwise < 1))
      return emitError() << "grid axis " << axis
                         << ": a choice 'N if x * y le L else M' needs "
                            "N, L, M >= 1, got L = "
                         << extent.limit << ", M = " << extent.otherwise;
    if (extent.isChosen() && axis != kGridAxes[2])
      return emitError() << "grid axis " << axis
                         << ": only axis z can be chosen by x * y";
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
    else if (extent.isChosen())
      os << extent.value << " if x * y le " << extent.limit << " else "
         << extent.otherwise;
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
      // `N if x * y le L else M`: a choice (verify says where).
      if (succeeded(parser.parseOptionalKeyword("if"))) {
        int64_t limit, otherwise;
        if (parser.parseKeyword("x") || parser.parseStar() ||
            parser.parseKeyword("y") || parser.parseKeyword("le") ||
            parser.parseInteger(limit) || parser.parseKeyword("else") ||
            parser.parseInteger(otherwise))
          return {};
        if (limit < 1) {
          parser.emitError(sizeLoc)
              << "grid axis " << axis << ": a choice's limit must be >= 1, got "
              << limit;
          return {};
        }
        extents.push_back(GridExtent::chosen(size, limit, otherwise));
        continue;
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

//===----------------------------------------------------------------------===//
// Discardable attributes (DiscardableAttributes.h)
//===----------------------------------------------------------------------===//

const DiscardableAttribute *
mlir::pa::lookupDiscardableAttribute(StringRef name) {
  for (const DiscardableAttribute &attribute : kDiscardableAttributes)
    if (attribute.name == name)
      return &attribute;
  return nullptr;
}

StringRef mlir::pa::describeDiscardableKind(DiscardableKind kind) {
  switch (kind) {
  case DiscardableKind::Target:
    return "a #pa.target attribute";
  case DiscardableKind::Grid:
    return "a #pa.grid attribute";
  case DiscardableKind::Distribution:
    return "a #pa.distribution attribute";
  case DiscardableKind::MFMALayout:
    return "a #pa.mfma_layout attribute";
  case DiscardableKind::String:
    return "a string";
  case DiscardableKind::StringArray:
    return "an array of strings";
  case DiscardableKind::I64:
    return "an i64 integer";
  case DiscardableKind::Unit:
    return "a unit attribute";
  case DiscardableKind::DimsByArgument:
    return "a dictionary of i64 arrays (array<i64: ...>)";
  case DiscardableKind::LayoutByArgument:
    return "a dictionary of strided layouts (strided<[...]>)";
  case DiscardableKind::PlanLimits:
    return "array<i64: budget, max_partitions, num_kv_heads>, each >= 1";
  }
  llvm_unreachable("unknown DiscardableKind");
}

StringRef mlir::pa::describeDiscardableHolder(DiscardableHolder holder) {
  switch (holder) {
  case DiscardableHolder::Module:
    return "a builtin.module";
  case DiscardableHolder::Function:
    return "a kernel (a function op)";
  }
  llvm_unreachable("unknown DiscardableHolder");
}

namespace {
bool hasKind(Attribute value, DiscardableKind kind) {
  auto isDictionaryOf = [&](auto isEntry) {
    auto dictionary = dyn_cast<DictionaryAttr>(value);
    return dictionary &&
           llvm::all_of(dictionary, [&](NamedAttribute entry) {
             return isEntry(entry.getValue());
           });
  };
  switch (kind) {
  case DiscardableKind::Target:
    return isa<TargetAttr>(value);
  case DiscardableKind::Grid:
    return isa<GridAttr>(value);
  case DiscardableKind::Distribution:
    return isa<DistributionAttr>(value);
  case DiscardableKind::MFMALayout:
    return isa<MFMALayoutAttr>(value);
  case DiscardableKind::String:
    return isa<StringAttr>(value);
  case DiscardableKind::StringArray: {
    auto array = dyn_cast<ArrayAttr>(value);
    return array && llvm::all_of(array, llvm::IsaPred<StringAttr>);
  }
  case DiscardableKind::I64: {
    auto integer = dyn_cast<IntegerAttr>(value);
    return integer && integer.getType().isSignlessInteger(64);
  }
  case DiscardableKind::Unit:
    return isa<UnitAttr>(value);
  case DiscardableKind::DimsByArgument:
    return isDictionaryOf(llvm::IsaPred<DenseI64ArrayAttr>);
  case DiscardableKind::LayoutByArgument:
    return isDictionaryOf(llvm::IsaPred<StridedLayoutAttr>);
  case DiscardableKind::PlanLimits: {
    auto limits = dyn_cast<DenseI64ArrayAttr>(value);
    return limits && limits.size() == 3 &&
           llvm::all_of(limits.asArrayRef(),
                        [](int64_t limit) { return limit >= 1; });
  }
  }
  llvm_unreachable("unknown DiscardableKind");
}

bool isHolder(Operation *op, DiscardableHolder holder) {
  switch (holder) {
  case DiscardableHolder::Module:
    return isa<ModuleOp>(op);
  case DiscardableHolder::Function:
    return isa<FunctionOpInterface>(op);
  }
  llvm_unreachable("unknown DiscardableHolder");
}
} // namespace

/// Checks a `pa.`-prefixed attribute on any op against the table of
/// DiscardableAttributes.h: a name it has, then the value's kind, then the
/// op it sits on; a #pa.mfma_layout also against its kernel.
LogicalResult PaDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  const DiscardableAttribute *known = lookupDiscardableAttribute(name);
  if (!known) {
    InFlightDiagnostic diag = op->emitError()
                              << "unknown attribute '" << name
                              << "': the pa dialect defines ";
    llvm::interleaveComma(kDiscardableAttributes, diag,
                          [&](const DiscardableAttribute &attribute) {
                            diag << attribute.name;
                          });
    return diag;
  }
  if (!hasKind(value, known->kind))
    return op->emitError() << "'" << name << "' must be "
                           << describeDiscardableKind(known->kind) << ", got "
                           << value;
  if (!isHolder(op, known->holder))
    return op->emitError() << "'" << name << "' belongs on "
                           << describeDiscardableHolder(known->holder)
                           << ", not on '" << op->getName() << "'";
  if (known->kind == DiscardableKind::MFMALayout)
    return verifyMFMALayoutOn(op, cast<MFMALayoutAttr>(value));
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
