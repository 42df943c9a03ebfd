//===- PaOps.cpp - verifiers and accessors of the pa ops ------------------===//
//
// The rules that relate operands to each other and to the attributes are
// checked here, with a diagnostic that names the operand, the expected shape
// in the spec's symbols and what was given. What one operand's type must be
// on its own (rank, element types, memory space, layout) is an ODS type
// constraint of PaOps.td / PaTileOps.td.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/PaOps.h"
#include "pa/IR/PaLayoutAttrs.h"
#include "pa/Support/PlanCapacity.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::pa;

namespace {
constexpr int64_t kAnySize = ShapedType::kDynamic;

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::interleave(
      shape,
      [&](int64_t d) { text += ShapedType::isDynamic(d) ? "?" : std::to_string(d); },
      [&] { text += ", "; });
  return text + "]";
}

bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E4M3FNUZType>(t); }

/// Shape and element-type checks of the operands of one op, plus the dynamic
/// dims that several operands share (batch, page pool, plan capacity): the
/// first static size seen for such a dim fixes it, later ones must agree.
class OperandChecker {
public:
  explicit OperandChecker(Operation *op) : op(op) {}

  /// `operand` must have rank `expected.size()` and static dims equal to
  /// `expected` (kAnySize accepts any size). `pattern` names the dims in
  /// the spec's symbols for the diagnostic.
  LogicalResult shape(StringRef operand, Value value, StringRef pattern,
                      ArrayRef<int64_t> expected) {
    auto type = cast<ShapedType>(value.getType());
    if (type.getRank() != static_cast<int64_t>(expected.size()))
      return op->emitOpError() << "'" << operand << "' must be "
                               << expected.size() << "-D " << pattern
                               << ", got " << type;
    for (auto [dim, want] : llvm::zip(type.getShape(), expected)) {
      if (ShapedType::isDynamic(want) || dim == want)
        continue;
      return op->emitOpError()
             << "'" << operand << "' must have shape " << pattern << " = "
             << formatShape(expected) << ", got " << type;
    }
    return success();
  }

  /// Records that dim `index` of `operand` is the shared dim `symbol`
  /// (divided by `divisor`, for `B*Q`-style dims).
  LogicalResult sharedDim(StringRef symbol, StringRef operand, Value value,
                          unsigned index, int64_t divisor = 1) {
    int64_t size = cast<ShapedType>(value.getType()).getDimSize(index);
    if (ShapedType::isDynamic(size))
      return success();
    if (size % divisor != 0)
      return op->emitOpError() << "dim " << index << " of '" << operand
                               << "' (" << size << ") must be a multiple of "
                               << divisor;
    size /= divisor;
    for (const SharedDim &seen : shared) {
      if (seen.symbol != symbol || seen.size == size)
        continue;
      return op->emitOpError()
             << symbol << " disagrees between operands: '" << seen.operand
             << "' gives " << seen.size << ", '" << operand << "' gives "
             << size;
    }
    shared.push_back({symbol.str(), operand.str(), size});
    return success();
  }

private:
  struct SharedDim {
    std::string symbol, operand;
    int64_t size;
  };
  Operation *op;
  SmallVector<SharedDim> shared;
};

/// Static dim or failure with a message saying that it must be static.
FailureOr<int64_t> staticDim(Operation *op, StringRef operand, Value value,
                             unsigned index, StringRef symbol) {
  auto type = cast<ShapedType>(value.getType());
  if (index >= type.getRank())
    return op->emitOpError() << "'" << operand << "' has too few dims";
  int64_t size = type.getDimSize(index);
  if (ShapedType::isDynamic(size) || size <= 0)
    return op->emitOpError() << symbol << " (dim " << index << " of '"
                             << operand << "') must be a positive static size, got "
                             << type;
  return size;
}

/// The dim of a K / V cache that counts KV heads: N, Hkv first for packed
/// and hnd caches, [N, P, Hkv, D] for nhd ones.
unsigned kvHeadDim(CacheLayout layout) {
  return layout == CacheLayout::nhd ? 2 : 1;
}

/// Bound of the integer attributes that reach the plan's i32 fields and the
/// kernels' i64 token arithmetic (the spec's windows reach 2^31-1); larger
/// values would overflow there instead of meaning anything.
constexpr int64_t kMaxCount = std::numeric_limits<int32_t>::max();

/// A soft-cap is 0 (none) or a positive f32 that kernels can fold into
/// their constants: `cap * log2(e)` and `2 / cap` stay finite and normal.
LogicalResult verifySoftCap(Operation *op, double cap) {
  if (!std::isfinite(cap) || cap < 0.0)
    return op->emitOpError()
           << "logits_soft_cap must be 0 (none) or a finite positive number, "
              "got "
           << cap;
  const double log2e = 1.4426950408889634;
  const double smallest = std::numeric_limits<float>::min();
  const double largest = std::numeric_limits<float>::max() / log2e;
  if (cap != 0.0 && (cap < smallest || cap > largest))
    return op->emitOpError() << "logits_soft_cap must lie in [" << smallest
                             << ", " << largest << "] (scores are f32), got "
                             << cap;
  return success();
}

LogicalResult verifyWindow(Operation *op, int64_t window) {
  if (window < -1)
    return op->emitOpError() << "sliding_window must be >= -1 (0 and -1 "
                                "mean no window), got "
                             << window;
  if (window > kMaxCount)
    return op->emitOpError() << "sliding_window must be at most 2^31-1 = "
                             << kMaxCount << ", got " << window;
  return success();
}

/// A count attribute (heads, query length, budget, partitions) must lie in
/// [1, 2^31-1].
LogicalResult verifyCount(Operation *op, StringRef name, int64_t value) {
  if (value < 1)
    return op->emitOpError() << name << " must be >= 1, got " << value;
  if (value > kMaxCount)
    return op->emitOpError() << name << " must be at most 2^31-1 = "
                             << kMaxCount << ", got " << value;
  return success();
}

/// Query rows per KV head R must be a positive multiple of the group size G,
/// giving a query length Q = R / G >= 1.
LogicalResult verifyRows(Operation *op, int64_t rows, int64_t group) {
  if (rows < group || rows % group != 0)
    return op->emitOpError()
           << "partial buffers hold " << rows
           << " rows per KV head, which must be Q * G with query length Q >= 1 "
              "and group size G = "
           << group;
  return success();
}

/// The partial-result buffers shared by pa.decode and pa.reduce.
LogicalResult verifyPartials(OperandChecker &check, Value expSums,
                             Value maxLogits, Value tmpOut, int64_t kvHeads,
                             int64_t rows, int64_t headDim) {
  if (failed(check.shape("exp_sums", expSums, "[Hkv, capacity, Q*G]",
                         {kvHeads, kAnySize, rows})) ||
      failed(check.shape("max_logits", maxLogits, "[Hkv, capacity, Q*G]",
                         {kvHeads, kAnySize, rows})) ||
      failed(check.shape("tmp_out", tmpOut, "[Hkv, capacity, Q*G, D]",
                         {kvHeads, kAnySize, rows, headDim})))
    return failure();
  for (auto [name, value] : {std::pair<StringRef, Value>{"exp_sums", expSums},
                             {"max_logits", maxLogits},
                             {"tmp_out", tmpOut}})
    if (failed(check.sharedDim("plan capacity", name, value, 1)))
      return failure();
  return success();
}

/// The tensor form (before bufferization) or the memref form: every shaped
/// operand a ranked tensor, or every one a memref. The tensor results are
/// checked by DestinationStyleOpInterface: one per output, of its type.
LogicalResult verifyTensorOrMemRefForm(Operation *op) {
  std::optional<Type> tensor, memref;
  for (Value operand : op->getOperands()) {
    std::optional<Type> &first =
        isa<RankedTensorType>(operand.getType()) ? tensor : memref;
    if (!first)
      first = operand.getType();
  }
  if (tensor && memref)
    return op->emitOpError()
           << "takes tensors (before bufferization) or memrefs, not both: got "
           << *tensor << " and " << *memref;
  return success();
}

int64_t dimOf(Value v, unsigned index) {
  return cast<ShapedType>(v.getType()).getDimSize(index);
}
} // namespace

bool mlir::pa::isRowMajorOrUnitInnermostStride(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getLayout().isIdentity())
    return true;
  auto layout = dyn_cast<StridedLayoutAttr>(memref.getLayout());
  return layout && !layout.getStrides().empty() &&
         layout.getStrides().back() == 1;
}

//===----------------------------------------------------------------------===//
// Attributes of every pa op
//===----------------------------------------------------------------------===//

LogicalResult mlir::pa::verifyKnownAttributes(Operation *op) {
  // The op's own (inherent) attributes live in its properties; whatever is
  // left in the dictionary is discardable, which MLIR allows only with a
  // dialect prefix.
  for (NamedAttribute attribute : op->getDiscardableAttrs()) {
    if (attribute.getName().getValue().contains('.'))
      continue;
    SmallVector<StringRef> own;
    for (StringAttr name : op->getName().getAttributeNames())
      if (name.getValue() != "operandSegmentSizes")
        own.push_back(name.getValue());
    llvm::sort(own);
    InFlightDiagnostic diag = op->emitOpError()
                              << "has no attribute '"
                              << attribute.getName().getValue()
                              << "'; its attributes are: ";
    if (own.empty())
      diag << "(none)";
    llvm::interleaveComma(own, diag);
    return diag << " (other attributes need a dialect prefix, as 'engine.note')";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// pa.plan
//===----------------------------------------------------------------------===//

int64_t mlir::pa::planCapacity(int64_t batch, int64_t kvHeads, int64_t budget,
                               int64_t maxPartitions) {
  return ::pa::planCapacity(batch, kvHeads, budget, maxPartitions);
}

LogicalResult PlanOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyTensorOrMemRefForm(op)))
    return failure();
  OperandChecker check(op);
  if (failed(verifyCount(op, "num_kv_heads", getNumKvHeads())) ||
      failed(verifyCount(op, "query_length", getQueryLength())) ||
      failed(verifyWindow(op, getSlidingWindow())) ||
      (getBudget() && failed(verifyCount(op, "budget", *getBudget()))) ||
      (getMaxPartitions() &&
       failed(verifyCount(op, "max_partitions", *getMaxPartitions()))))
    return failure();
  if (failed(check.shape("work_info", getWorkInfo(), "[capacity, 4]",
                         {kAnySize, 4})) ||
      failed(check.shape("reduce_info", getReduceInfo(), "[B, 2]",
                         {kAnySize, 2})) ||
      failed(check.sharedDim("batch size B", "context_lengths",
                             getContextLengths(), 0)) ||
      failed(check.sharedDim("batch size B", "reduce_info", getReduceInfo(), 0)))
    return failure();

  // With everything static, the buffer must hold the plan's capacity.
  int64_t batch = dimOf(getContextLengths(), 0);
  int64_t capacity = dimOf(getWorkInfo(), 0);
  if (getBudget() && getMaxPartitions() && !ShapedType::isDynamic(batch) &&
      !ShapedType::isDynamic(capacity)) {
    int64_t needed = planCapacity(batch, getNumKvHeads(), *getBudget(),
                                  *getMaxPartitions());
    if (capacity < needed)
      return emitOpError() << "work_info holds " << capacity
                           << " slots but the plan needs capacity " << needed
                           << " = min(B * max_partitions, max(B, ceil(budget / "
                              "Hkv)))";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// pa.decode
//===----------------------------------------------------------------------===//

namespace {
/// The buffer that `value` views (through memref.cast, subview,
/// reinterpret_cast and other view-like ops), or `value` itself.
Value viewedBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The pa.plan ops that write `buffer` or a view of it as their work_info.
SmallVector<PlanOp> plansWriting(Value buffer) {
  SmallVector<PlanOp> plans;
  // On tensors the plan's work_info result (result 0) is the decode's.
  if (auto result = dyn_cast<OpResult>(buffer))
    if (auto plan = dyn_cast<PlanOp>(result.getOwner());
        plan && result.getResultNumber() == 0)
      plans.push_back(plan);
  SmallVector<Value> views = {buffer};
  llvm::DenseSet<Value> seen;
  while (!views.empty()) {
    Value view = views.pop_back_val();
    if (!seen.insert(view).second)
      continue;
    for (OpOperand &use : view.getUses()) {
      Operation *user = use.getOwner();
      if (auto plan = dyn_cast<PlanOp>(user)) {
        if (&use == &plan.getWorkInfoMutable())
          plans.push_back(plan);
      } else if (auto viewOp = dyn_cast<ViewLikeOpInterface>(user)) {
        if (viewOp.getViewSource() == view)
          llvm::append_range(views, user->getResults());
      }
    }
  }
  return plans;
}

/// 0 and -1 both mean no window.
int64_t normalizedWindow(int64_t window) { return window > 0 ? window : 0; }

/// The spec's "plan and decode must agree": a decode reading the work plan of
/// a pa.plan in the IR must have the plan's num_kv_heads, query_length and
/// sliding_window. A plan with other parameters assigns other tiles (a
/// window-100 plan skips tiles a no-window decode must read): wrong output,
/// nothing out of bounds, so only the verifier can catch it.
LogicalResult verifyAgreesWithPlans(DecodeOp decode) {
  for (PlanOp plan : plansWriting(viewedBuffer(decode.getWorkInfo()))) {
    // The plan may not have been verified yet: read what it holds.
    IntegerAttr planKVHeads = plan.getNumKvHeadsAttr();
    if (!planKVHeads)
      continue;
    struct Parameter {
      StringRef name;
      int64_t plan, decode;
    };
    for (Parameter p :
         {Parameter{"num_kv_heads", planKVHeads.getInt(),
                    decode.getNumKVHeads()},
          Parameter{"query_length", plan.getQueryLength(),
                    decode.getQueryLength()},
          Parameter{"sliding_window", normalizedWindow(plan.getSlidingWindow()),
                    normalizedWindow(decode.getSlidingWindow())}}) {
      if (p.plan == p.decode)
        continue;
      InFlightDiagnostic diag =
          decode.emitOpError()
          << "reads the work plan of a pa.plan with " << p.name << " = "
          << p.plan << ", but the decode has " << p.name << " = " << p.decode
          << " (plan and decode must agree on num_kv_heads, query_length "
             "and sliding_window)";
      diag.attachNote(plan.getLoc()) << "the pa.plan writing work_info";
      return diag;
    }
  }
  return success();
}
} // namespace

int64_t DecodeOp::getNumQueryHeads() { return dimOf(getQuery(), 1); }
int64_t DecodeOp::getNumKVHeads() {
  return dimOf(getKeyCache(), kvHeadDim(getKvLayout().getLayout()));
}
int64_t DecodeOp::getHeadDim() { return dimOf(getQuery(), 2); }
int64_t DecodeOp::getGroupSize() {
  return getNumQueryHeads() / getNumKVHeads();
}
int64_t DecodeOp::getRowsPerKVHead() { return dimOf(getExpSums(), 2); }
int64_t DecodeOp::getQueryLength() {
  return getRowsPerKVHead() / getGroupSize();
}
Type DecodeOp::getKVElementType() {
  return cast<ShapedType>(getKeyCache().getType()).getElementType();
}
double DecodeOp::getEffectiveSoftmaxScale() {
  if (std::optional<double> scale = getSoftmaxScale())
    return *scale;
  return 1.0 / std::sqrt(static_cast<double>(getHeadDim()));
}
ComputeType DecodeOp::getEffectiveComputeType() {
  if (std::optional<ComputeType> compute = getCompute())
    return *compute;
  return isFp8(getKVElementType()) ? ComputeType::fp8 : ComputeType::bf16;
}

LogicalResult DecodeOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyTensorOrMemRefForm(op)))
    return failure();
  OperandChecker check(op);
  KVLayoutAttr layout = getKvLayout();
  const int64_t pageSize = layout.getPageSize();
  const int64_t pack = layout.getKPack();
  const CacheLayout cacheLayout = layout.getLayout();
  const bool packed = cacheLayout == CacheLayout::packed;
  auto keyType = cast<ShapedType>(getKeyCache().getType());

  // The key's rank tells the layout families apart: a 4-D cache under the
  // packed attribute is a layout mix-up, not a wrong page size.
  if (packed) {
    if (keyType.getRank() == 4)
      return emitOpError()
             << "non-packed 4-D key cache " << keyType
             << " does not match the packed layout (keys [N, Hkv, D/x, P, "
                "x]); a [N, P, Hkv, D] cache is `layout = nhd` and a [N, "
                "Hkv, P, D] cache is `layout = hnd` in #pa.kv_layout";
    if (pageSize != 16 && pageSize != 64 && pageSize != 128)
      return emitOpError() << "page size must be 16, 64 or 128, got "
                           << pageSize
                           << " (the packed layout; nhd and hnd take any "
                              "power of two from 1 to 1024)";
  } else {
    StringRef name = stringifyCacheLayout(cacheLayout);
    if (pageSize < 1 || pageSize > kMaxPageSize ||
        !llvm::isPowerOf2_64(static_cast<uint64_t>(pageSize)))
      return emitOpError() << "page size must be a power of two from 1 to "
                           << kMaxPageSize << " for layout " << name
                           << ", got " << pageSize;
    if (pack != 0 || layout.getVLayout() != VLayout::plain)
      return emitOpError() << "k_pack and v_layout describe the packed "
                              "layout; leave them out of #pa.kv_layout with "
                              "layout "
                           << name;
  }

  // The element types (f8E4M3FN, f8E4M3FNUZ or bf16, the same for K and V)
  // are PaOps.td's.
  Type kvType = keyType.getElementType();
  const int64_t expectedPack = isFp8(kvType) ? 16 : 8;
  if (packed && pack != expectedPack)
    return emitOpError() << "k_pack must be " << expectedPack << " for "
                         << kvType << " (16 bytes per token), got " << pack;

  FailureOr<int64_t> queryHeads =
      staticDim(op, "query", getQuery(), 1, "query heads Hq");
  FailureOr<int64_t> headDim = staticDim(op, "query", getQuery(), 2,
                                         "head dim D");
  FailureOr<int64_t> kvHeads =
      staticDim(op, "key_cache", getKeyCache(), kvHeadDim(cacheLayout),
                "KV heads Hkv");
  if (failed(queryHeads) || failed(headDim) || failed(kvHeads))
    return failure();
  if (*queryHeads % *kvHeads != 0)
    return emitOpError() << "query heads (" << *queryHeads
                         << ") must be a multiple of KV heads (" << *kvHeads
                         << ")";
  const int64_t group = *queryHeads / *kvHeads;
  const int64_t d = *headDim;

  ComputeType compute = getEffectiveComputeType();
  if (compute == ComputeType::fp8) {
    if (!isFp8(kvType))
      return emitOpError() << "fp8 compute needs an fp8 KV cache, got "
                           << kvType;
  }
  // fp8 and bf16 alike; the backends pad the QK contraction internally
  // where an instruction's K does not divide D.
  if (d % 16 != 0 || d < 64 || d > 512)
    return emitOpError() << "head dim " << d
                         << " is not supported (a multiple of 16 from 64 to "
                            "512)";

  switch (cacheLayout) {
  case CacheLayout::packed:
    // The packed lowerings index the caches row-major; PaOps.td accepts
    // strided views for the nhd and hnd layouts.
    for (auto [name, cache] :
         {std::pair<StringRef, Value>{"key_cache", getKeyCache()},
          {"value_cache", getValueCache()}}) {
      auto memref = dyn_cast<MemRefType>(cache.getType());
      if (memref && !memref.getLayout().isIdentity())
        return emitOpError() << "'" << name
                             << "' must be row-major (the identity layout) "
                                "for the packed layout, got "
                             << memref;
    }
    if (failed(check.shape("key_cache", getKeyCache(), "[N, Hkv, D/x, P, x]",
                           {kAnySize, *kvHeads, d / pack, pageSize, pack})))
      return failure();
    if (layout.getVLayout() == VLayout::plain) {
      if (failed(check.shape("value_cache", getValueCache(),
                             "plain [N, Hkv, D, P]",
                             {kAnySize, *kvHeads, d, pageSize})))
        return failure();
    } else {
      // P % x == 0 holds for every accepted page size and packing width.
      if (failed(check.shape("value_cache", getValueCache(),
                             "transposed [N, Hkv, P/x, D, x]",
                             {kAnySize, *kvHeads, pageSize / pack, d, pack})))
        return failure();
    }
    break;
  case CacheLayout::nhd:
  case CacheLayout::hnd: {
    const bool nhd = cacheLayout == CacheLayout::nhd;
    StringRef pattern = nhd ? "nhd [N, P, Hkv, D]" : "hnd [N, Hkv, P, D]";
    SmallVector<int64_t, 4> expected =
        nhd ? SmallVector<int64_t, 4>{kAnySize, pageSize, *kvHeads, d}
            : SmallVector<int64_t, 4>{kAnySize, *kvHeads, pageSize, d};
    for (auto [name, cache] :
         {std::pair<StringRef, Value>{"key_cache", getKeyCache()},
          {"value_cache", getValueCache()}})
      // Views of a combined cache (any outer strides, unit head-dim
      // stride) pass PaOps.td's constraint.
      if (failed(check.shape(name, cache, pattern, expected)))
        return failure();
    break;
  }
  }

  if (failed(check.shape("work_info", getWorkInfo(), "[capacity, 4]",
                         {kAnySize, 4})) ||
      failed(check.sharedDim("plan capacity", "work_info", getWorkInfo(), 0)))
    return failure();

  // Scales: present exactly when the scale mode asks for them.
  ScaleMode mode = getScale();
  for (auto [name, scale] : {std::pair<StringRef, Value>{"k_scale", getKScale()},
                             {"v_scale", getVScale()}}) {
    if (mode == ScaleMode::none) {
      if (scale)
        return emitOpError() << "'" << name
                             << "' is given but the scale mode is none";
      continue;
    }
    if (!scale)
      return emitOpError() << "scale mode " << stringifyScaleMode(mode)
                           << " needs '" << name << "'";
    if (mode == ScaleMode::per_tensor) {
      if (failed(check.shape(name, scale, "per-tensor [1]", {1})))
        return failure();
    } else if (failed(check.shape(name, scale, "per-token [N, Hkv, P]",
                                  {kAnySize, *kvHeads, pageSize})) ||
               failed(check.sharedDim("page pool size N", name, scale, 0))) {
      return failure();
    }
  }

  if (failed(verifyWindow(op, getSlidingWindow())))
    return failure();
  if (std::optional<double> scale = getSoftmaxScale()) {
    // Kernels fold softmax_scale * log2(e) into one f32 constant: a finite
    // scale must stay finite there. A NaN or infinite one is a non-finite
    // input (spec, "Non-finite inputs"): every row that sees a token is NaN.
    const double log2e = 1.4426950408889634;
    const double largest = std::numeric_limits<float>::max() / log2e;
    if (std::isfinite(*scale) && std::fabs(*scale) > largest)
      return emitOpError() << "softmax_scale must be at most " << largest
                           << " in magnitude (scores are f32), got "
                           << getSoftmaxScaleAttr();
  }
  if (failed(verifySoftCap(op, getLogitsSoftCap())))
    return failure();
  if (Value slopes = getAlibiSlopes()) {
    if (failed(check.shape("alibi_slopes", slopes, "[Hq]", {*queryHeads})))
      return failure();
  }

  if (failed(check.shape("exp_sums", getExpSums(), "[Hkv, capacity, Q*G]",
                         {*kvHeads, kAnySize, kAnySize})))
    return failure();
  FailureOr<int64_t> rows = staticDim(op, "exp_sums", getExpSums(), 2,
                                      "query rows per KV head Q*G");
  if (failed(rows) || failed(verifyRows(op, *rows, group)) ||
      failed(verifyPartials(check, getExpSums(), getMaxLogits(), getTmpOut(),
                            *kvHeads, *rows, d)))
    return failure();
  const int64_t queryLength = *rows / group;

  // Dims shared between operands.
  if (failed(check.sharedDim("page pool size N", "key_cache", getKeyCache(),
                             0)) ||
      failed(check.sharedDim("page pool size N", "value_cache",
                             getValueCache(), 0)) ||
      failed(check.sharedDim("batch size B", "block_tables", getBlockTables(),
                             0)) ||
      failed(check.sharedDim("batch size B", "context_lengths",
                             getContextLengths(), 0)) ||
      failed(check.sharedDim("batch size B", "query", getQuery(), 0,
                             queryLength)))
    return failure();
  return verifyAgreesWithPlans(*this);
}

//===----------------------------------------------------------------------===//
// pa.reduce
//===----------------------------------------------------------------------===//

int64_t ReduceOp::getNumQueryHeads() { return dimOf(getOutput(), 1); }
int64_t ReduceOp::getNumKVHeads() { return dimOf(getTmpOut(), 0); }
int64_t ReduceOp::getHeadDim() { return dimOf(getOutput(), 2); }
int64_t ReduceOp::getGroupSize() {
  return getNumQueryHeads() / getNumKVHeads();
}
int64_t ReduceOp::getRowsPerKVHead() { return dimOf(getTmpOut(), 2); }
int64_t ReduceOp::getQueryLength() {
  return getRowsPerKVHead() / getGroupSize();
}

LogicalResult ReduceOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyTensorOrMemRefForm(op)))
    return failure();
  OperandChecker check(op);
  FailureOr<int64_t> queryHeads =
      staticDim(op, "output", getOutput(), 1, "query heads Hq");
  FailureOr<int64_t> headDim =
      staticDim(op, "output", getOutput(), 2, "head dim D");
  FailureOr<int64_t> kvHeads =
      staticDim(op, "tmp_out", getTmpOut(), 0, "KV heads Hkv");
  FailureOr<int64_t> rows = staticDim(op, "tmp_out", getTmpOut(), 2,
                                      "query rows per KV head Q*G");
  if (failed(queryHeads) || failed(headDim) || failed(kvHeads) ||
      failed(rows))
    return failure();
  if (*queryHeads % *kvHeads != 0)
    return emitOpError() << "query heads (" << *queryHeads
                         << ") must be a multiple of KV heads (" << *kvHeads
                         << ")";
  const int64_t group = *queryHeads / *kvHeads;
  if (failed(verifyRows(op, *rows, group)) ||
      failed(verifyPartials(check, getExpSums(), getMaxLogits(), getTmpOut(),
                            *kvHeads, *rows, *headDim)) ||
      failed(check.shape("reduce_info", getReduceInfo(), "[B, 2]",
                         {kAnySize, 2})) ||
      failed(check.sharedDim("batch size B", "reduce_info", getReduceInfo(),
                             0)) ||
      failed(check.sharedDim("batch size B", "output", getOutput(), 0,
                             *rows / group)))
    return failure();
  if (Value sinks = getSinks()) {
    if (failed(check.shape("sinks", sinks, "[Hq]", {*queryHeads})))
      return failure();
  }
  if (Value lse = getLse()) {
    if (failed(check.shape("lse", lse, "[B*Q, Hq]", {kAnySize, *queryHeads})) ||
        failed(check.sharedDim("batch size B", "lse", lse, 0, *rows / group)))
      return failure();
  }
  return success();
}


//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

namespace {
/// Checks that the tile buffer `value` (a static f32 memref of the right
/// rank: PaTileOps.td) has the sizes `expected` (kAnySize: any); the tile
/// buffers of one op must agree on the row count M and head dim D.
LogicalResult verifyTile(Operation *op, StringRef name, Value value,
                         ArrayRef<int64_t> expected) {
  auto type = cast<MemRefType>(value.getType());
  for (auto [dim, want] : llvm::zip(type.getShape(), expected))
    if (!ShapedType::isDynamic(want) && dim != want)
      return op->emitOpError() << "'" << name << "' must be a tile of shape "
                               << formatShape(expected) << ", got " << type;
  return success();
}

/// Dim 0 (M) of a tile buffer.
int64_t tileRows(Value tile) {
  return cast<MemRefType>(tile.getType()).getDimSize(0);
}

LogicalResult verifyPageIdCount(Operation *op, VectorType ids,
                                int64_t pageSize) {
  if (pageSize <= 0 || pageSize > kMaxPageSize ||
      !llvm::isPowerOf2_64(static_cast<uint64_t>(pageSize)))
    return op->emitOpError() << "page size must be a power of two from 1 to "
                             << kMaxPageSize << ", got " << pageSize;
  if (ids.getNumElements() != pagesPerTile(pageSize))
    return op->emitOpError() << "a 256-token tile of page size " << pageSize
                             << " needs " << pagesPerTile(pageSize)
                             << " page ids, got " << ids;
  return success();
}

LogicalResult verifyScaleOperand(Operation *op, ScaleMode mode, Value scale,
                                 StringRef name) {
  if ((mode == ScaleMode::none) != !scale)
    return op->emitOpError() << "'" << name << "' must be given exactly when "
                             << "the scale mode is not none";
  return success();
}
} // namespace

LogicalResult TilePageIdsOp::verify() {
  return verifyPageIdCount(*this, getPageIds().getType(), getPageSize());
}

LogicalResult TileLoadQueryOp::verify() {
  auto query = cast<MemRefType>(getQuery().getType());
  return verifyTile(*this, "query_tile", getQueryTile(),
                    {kAnySize, query.getDimSize(2)});
}

LogicalResult TileInitSoftmaxOp::verify() {
  int64_t rows = tileRows(getAcc());
  return failure(failed(verifyTile(*this, "acc", getAcc(), {kAnySize, kAnySize})) ||
                 failed(verifyTile(*this, "row_max", getRowMax(), {rows})) ||
                 failed(verifyTile(*this, "row_sum", getRowSum(), {rows})));
}

LogicalResult TileQKOp::verify() {
  int64_t rows = tileRows(getScores());
  if (std::optional<APFloat> cap = getSoftCap()) {
    float value = cap->convertToFloat();
    if (!std::isfinite(value) || !(value > 0.0f))
      return emitOpError() << "soft_cap must be finite and positive, got "
                           << value;
  }
  return failure(
      failed(verifyTile(*this, "scores", getScores(), {kAnySize, kTileTokens})) ||
      failed(verifyTile(*this, "query_tile", getQueryTile(), {rows, kAnySize})) ||
      failed(verifyPageIdCount(*this, getPageIds().getType(), getPageSize())) ||
      failed(verifyScaleOperand(*this, getScale(), getKScale(), "k_scale")) ||
      failed(verifyEnclosingMFMALayout(*this)));
}

LogicalResult TileAlibiOp::verify() {
  if (getGroupSize() < 1 || getQueryLength() < 1)
    return emitOpError() << "query_length and group_size must be positive";
  return verifyTile(*this, "scores", getScores(), {kAnySize, kTileTokens});
}

LogicalResult TileSoftmaxOp::verify() {
  int64_t rows = tileRows(getScores());
  return failure(
      failed(verifyTile(*this, "scores", getScores(), {kAnySize, kTileTokens})) ||
      failed(verifyTile(*this, "row_max", getRowMax(), {rows})) ||
      failed(verifyTile(*this, "row_sum", getRowSum(), {rows})) ||
      failed(verifyTile(*this, "acc", getAcc(), {rows, kAnySize})));
}

LogicalResult TilePVOp::verify() {
  int64_t rows = tileRows(getProbs());
  return failure(
      failed(verifyTile(*this, "probs", getProbs(), {kAnySize, kTileTokens})) ||
      failed(verifyTile(*this, "acc", getAcc(), {rows, kAnySize})) ||
      failed(verifyPageIdCount(*this, getPageIds().getType(), getPageSize())) ||
      failed(verifyScaleOperand(*this, getScale(), getVScale(), "v_scale")));
}

LogicalResult TileStorePartialsOp::verify() {
  int64_t rows = tileRows(getAcc());
  return failure(failed(verifyTile(*this, "acc", getAcc(), {kAnySize, kAnySize})) ||
                 failed(verifyTile(*this, "row_max", getRowMax(), {rows})) ||
                 failed(verifyTile(*this, "row_sum", getRowSum(), {rows})));
}

#define GET_OP_CLASSES
#include "pa/IR/PaOps.cpp.inc"
