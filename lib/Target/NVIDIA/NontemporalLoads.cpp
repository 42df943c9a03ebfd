//===- NontemporalLoads.cpp - !nontemporal loads as ld.L1::no_allocate ----===//
//
// pa-to-nvvm marks the loads of bytes a kernel reads once (the packed
// caches' K / V chunks) nontemporal. The NVPTX backend ignores the mark, and
// no intrinsic asks for PTX's `.L1::no_allocate` (load without allocating an
// L1 line), which made these kernels 1-16% faster on the H200
// (docs/performance.md). So, after O3 and before code generation, each such
// load becomes an inline `ld.global.L1::no_allocate`.
//
// Inline PTX takes its address as a register, and the backend can no longer
// fold a constant offset into the instruction (`[%rd+128]`): every load
// would need its own 64-bit address (an earlier version of this change:
// +1,153 PTX lines and spills at 255 registers). The address is therefore
// split into a base without constants and a constant written into the PTX
// text: loads that differ only by a constant share the base, as the
// backend's own loads do. The split looks through what O3 leaves in address
// arithmetic: constant GEPs, `add` / `or disjoint` / `sub` with a constant,
// and `shl` / `mul` by a constant of such sums.
//
//===----------------------------------------------------------------------===//
#include "pa/Target/NVIDIA/NontemporalLoads.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"

#include <limits>
#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

/// A value as `dynamic + constant` (dynamic null: the value is constant).
struct Split {
  Value *dynamic = nullptr;
  int64_t constant = 0;
};

class AddressSplitter {
public:
  AddressSplitter(const DataLayout &layout, const DominatorTree &dominators)
      : layout(layout), dominators(dominators) {}

  /// `pointer` as a pointer without constant offsets and a byte offset.
  std::pair<Value *, int64_t> splitPointer(Value *pointer, IRBuilder<> &b) {
    auto found = pointers.find(pointer);
    if (found != pointers.end())
      return found->second;
    std::pair<Value *, int64_t> result = {pointer, 0};
    auto *gep = dyn_cast<GEPOperator>(pointer);
    if (gep && gep->getNumIndices() == 1) {
      TypeSize size = layout.getTypeAllocSize(gep->getSourceElementType());
      if (!size.isScalable()) {
        auto [base, baseOffset] = splitPointer(gep->getPointerOperand(), b);
        Split index = splitInteger(gep->getOperand(1), b);
        int64_t scale = size.getFixedValue();
        Value *rebuilt = base;
        if (index.dynamic)
          rebuilt = base == gep->getPointerOperand() &&
                            index.dynamic == gep->getOperand(1)
                        ? pointer
                        : reuse(b.CreateGEP(gep->getSourceElementType(),
                                            base, index.dynamic));
        result = {rebuilt, baseOffset + index.constant * scale};
      }
    } else if (gep) {
      APInt offset(layout.getIndexTypeSizeInBits(pointer->getType()), 0);
      if (gep->accumulateConstantOffset(layout, offset)) {
        auto [base, baseOffset] = splitPointer(gep->getPointerOperand(), b);
        result = {base, baseOffset + offset.getSExtValue()};
      }
    }
    pointers[pointer] = result;
    return result;
  }

  /// `made`, or an instruction that computes the same and dominates it (the
  /// split of `(x | 8) << 4` makes `x << 4`, which the kernel often has
  /// already: one register for both addresses, as the backend's own
  /// loads share one).
  Value *reuse(Value *made) {
    auto *instruction = dyn_cast<Instruction>(made);
    if (!instruction)
      return made;
    for (User *user : instruction->getOperand(0)->users()) {
      auto *twin = dyn_cast<Instruction>(user);
      if (twin && twin != instruction &&
          twin->isIdenticalToWhenDefined(instruction) &&
          dominators.dominates(twin, instruction)) {
        instruction->eraseFromParent();
        return twin;
      }
    }
    return made;
  }

private:
  /// An integer as dynamic + constant; new instructions only where a
  /// constant comes out.
  Split splitInteger(Value *value, IRBuilder<> &b) {
    auto found = integers.find(value);
    if (found != integers.end())
      return found->second;
    Split result{value, 0};
    Value *x, *y;
    const APInt *c;
    if (auto *constant = dyn_cast<ConstantInt>(value)) {
      if (constant->getValue().getSignificantBits() <= 64)
        result = {nullptr, constant->getSExtValue()};
    } else if (match(value, m_Add(m_Value(x), m_Value(y))) ||
               match(value, m_DisjointOr(m_Value(x), m_Value(y)))) {
      Split left = splitInteger(x, b), right = splitInteger(y, b);
      if (left.constant || right.constant) {
        Value *dynamic = !left.dynamic    ? right.dynamic
                         : !right.dynamic ? left.dynamic
                                          : reuse(b.CreateAdd(
                                                left.dynamic, right.dynamic));
        result = {dynamic, left.constant + right.constant};
      }
    } else if (match(value, m_Sub(m_Value(x), m_APInt(c))) &&
               c->getSignificantBits() <= 64) {
      Split left = splitInteger(x, b);
      result = {left.dynamic, left.constant - c->getSExtValue()};
    } else if (bool shift = match(value, m_Shl(m_Value(x), m_APInt(c)));
               (shift && c->ult(32)) ||
               (match(value, m_Mul(m_Value(x), m_APInt(c))) &&
                c->getSignificantBits() <= 32)) {
      int64_t factor = shift ? int64_t(1) << c->getZExtValue()
                             : c->getSExtValue();
      Split inner = splitInteger(x, b);
      if (inner.constant) {
        Value *dynamic =
            !inner.dynamic ? nullptr
            : shift ? reuse(b.CreateShl(inner.dynamic, c->getZExtValue()))
                    : reuse(b.CreateMul(inner.dynamic,
                                        ConstantInt::get(x->getType(), *c)));
        result = {dynamic, inner.constant * factor};
      }
    }
    integers[value] = result;
    return result;
  }

  const DataLayout &layout;
  const DominatorTree &dominators;
  DenseMap<Value *, std::pair<Value *, int64_t>> pointers;
  DenseMap<Value *, Split> integers;
};

/// The 32-bit words of a load PTX can make one `ld.global.v{1,2,4}.b32` of:
/// 4, 8 or 16 bytes, aligned to its size; 0 otherwise.
unsigned wordsOf(LoadInst &load, const DataLayout &layout) {
  // Generic (what O3 leaves of the kernel arguments) or global pointers.
  unsigned space = load.getPointerAddressSpace();
  if (!load.isSimple() || (space != 0 && space != 1))
    return 0;
  TypeSize bytes = layout.getTypeStoreSize(load.getType());
  if (bytes.isScalable() || load.getAlign().value() < bytes.getFixedValue())
    return 0;
  unsigned words = bytes.getFixedValue() / 4;
  if (bytes.getFixedValue() % 4 != 0 || (words != 1 && words != 2 && words != 4))
    return 0;
  return words;
}

void lowerLoad(LoadInst &load, unsigned words, AddressSplitter &splitter) {
  IRBuilder<> b(&load);
  auto [base, offset] = splitter.splitPointer(load.getPointerOperand(), b);
  if (offset < std::numeric_limits<int32_t>::min() ||
      offset > std::numeric_limits<int32_t>::max()) {
    base = load.getPointerOperand();
    offset = 0;
  }
  LLVMContext &ctx = load.getContext();
  // The caches are global memory (the lowerings give kernel operands no
  // other space); the code generator folds the cast of a kernel argument.
  Value *global =
      splitter.reuse(b.CreateAddrSpaceCast(base, PointerType::get(ctx, 1)));
  std::string destinations, constraints;
  for (unsigned i = 0; i < words; ++i) {
    destinations += (i ? ", $" : "$") + std::to_string(i);
    constraints += "=r,";
  }
  std::string text =
      "ld.global.L1::no_allocate" +
      (words == 1 ? std::string() : ".v" + std::to_string(words)) + ".b32 " +
      (words == 1 ? destinations : "{" + destinations + "}") + ", [$" +
      std::to_string(words) +
      (offset ? "+" + std::to_string(offset) : std::string()) + "];";
  Type *i32 = b.getInt32Ty();
  Type *result =
      words == 1 ? i32
                 : static_cast<Type *>(StructType::get(
                       ctx, SmallVector<Type *>(words, i32)));
  InlineAsm *asmText = InlineAsm::get(
      FunctionType::get(result, {global->getType()}, false), text,
      constraints + "l", /*hasSideEffects=*/false);
  CallInst *call = b.CreateCall(asmText, {global});
  call->setOnlyReadsMemory();
  Value *packed = PoisonValue::get(FixedVectorType::get(i32, words));
  for (unsigned i = 0; i < words; ++i)
    packed = b.CreateInsertElement(
        packed, words == 1 ? call : b.CreateExtractValue(call, i), i);
  load.replaceAllUsesWith(b.CreateBitCast(packed, load.getType()));
  load.eraseFromParent();
}

} // namespace

void mlir::pa::nvidia::lowerNontemporalGlobalLoads(Module &module) {
  const DataLayout &layout = module.getDataLayout();
  for (Function &function : module) {
    SmallVector<std::pair<LoadInst *, unsigned>> loads;
    for (Instruction &instruction : instructions(function))
      if (auto *load = dyn_cast<LoadInst>(&instruction))
        if (load->hasMetadata(LLVMContext::MD_nontemporal))
          if (unsigned words = wordsOf(*load, layout))
            loads.push_back({load, words});
    // The instructions a split makes before one load serve the later loads
    // of its block (which they dominate), not those of other blocks.
    if (loads.empty())
      continue;
    // Instructions only added before the loads: the tree stays valid.
    DominatorTree dominators(function);
    std::optional<AddressSplitter> splitter;
    BasicBlock *block = nullptr;
    for (auto [load, words] : loads) {
      if (load->getParent() != block) {
        block = load->getParent();
        splitter.emplace(layout, dominators);
      }
      lowerLoad(*load, words, *splitter);
    }
  }
}
