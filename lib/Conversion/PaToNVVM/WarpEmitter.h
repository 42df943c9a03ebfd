//===- WarpEmitter.h - IR helpers for per-thread NVIDIA code ----*- C++ -*-===//
//
// Constants, integer / float arithmetic, shared and global vector accesses,
// warp shuffles and the NVVM intrinsics of the warp-level decode kernel
// (mma.sync, packed conversions), emitted at an ImplicitLocOpBuilder's
// insertion point. Intrinsics are llvm.call_intrinsic ops: they pass through
// the LLVM conversion untouched and name the exact PTX instruction.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_CONVERSION_PATONVVM_WARPEMITTER_H
#define PA_LIB_CONVERSION_PATONVVM_WARPEMITTER_H

#include "pa/Transforms/ArithEmitter.h"
#include "pa/Transforms/StructuredControl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <array>
#include <limits>

namespace mlir::pa::nvvm {

/// The four f32 accumulators of one m16n8 tile of an mma.sync.
using Accumulator = std::array<Value, 4>;

class WarpEmitter : public ArithEmitter {
public:
  explicit WarpEmitter(ImplicitLocOpBuilder &b) : ArithEmitter(b) {}

  //===--- constants and integer arithmetic (index, i32, i64) ------------===//
  Value constant(Type type, int64_t value) {
    return arith::ConstantOp::create(b, b.getIntegerAttr(type, value));
  }
  Value idx(int64_t value) { return constant(b.getIndexType(), value); }
  Value i32(int64_t value) { return constant(b.getI32Type(), value); }
  Value i64(int64_t value) { return constant(b.getI64Type(), value); }
  Value f32(double value) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(float(value)));
  }
  Value negInf() { return f32(-std::numeric_limits<double>::infinity()); }
  /// The zero of `type` (a scalar or a vector of any element type).
  Value zero(Type type) {
    return arith::ConstantOp::create(b, b.getZeroAttr(type));
  }
  /// vector<n x f32> of zeros.
  Value zeroVector(int64_t n) {
    auto type = VectorType::get({n}, b.getF32Type());
    return arith::ConstantOp::create(b, DenseElementsAttr::get(type, 0.0f));
  }

  // ArithEmitter's, and with a constant operand.
  using ArithEmitter::addI;
  Value addI(Value x, int64_t y) {
    return y == 0 ? x : addI(x, constant(x.getType(), y));
  }
  using ArithEmitter::mulI;
  Value mulI(Value x, int64_t y) {
    return y == 1 ? x : mulI(x, constant(x.getType(), y));
  }
  /// Unsigned quotient / remainder (operands are non-negative).
  Value div(Value x, int64_t y) {
    return y == 1 ? x : arith::DivUIOp::create(b, x, constant(x.getType(), y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, x, constant(x.getType(), y));
  }
  using ArithEmitter::andI;
  Value andI(Value x, int64_t y) { return andI(x, constant(x.getType(), y)); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, x, y); }
  Value shl(Value x, int64_t y) {
    return arith::ShLIOp::create(b, x, constant(x.getType(), y));
  }
  Value shr(Value x, int64_t y) {
    return arith::ShRUIOp::create(b, x, constant(x.getType(), y));
  }
  Value negate(Value c) {
    return arith::XOrIOp::create(b, c, constant(b.getI1Type(), 1));
  }

  Value toI32(Value x) {
    if (x.getType().isIndex())
      return arith::IndexCastOp::create(b, b.getI32Type(), x);
    return arith::TruncIOp::create(b, b.getI32Type(), x);
  }

  //===--- f32 arithmetic (ArithEmitter's and) ----------------------------===//
  Value bitcast(Type type, Value x) {
    return arith::BitcastOp::create(b, type, x);
  }

  //===--- memory --------------------------------------------------------===//
  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(b, memref, indices);
  }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(b, value, memref, indices);
  }
  /// A `count`-element vector load of `memref` at `indices`, aligned to
  /// its size in bytes up to 16 (16-byte loads become ld.*.v4.b32): the
  /// callers' offsets are multiples of that.
  Value loadVector(Value memref, ValueRange indices, int64_t count,
                   bool nontemporal = false) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto type = VectorType::get({count}, element);
    int64_t bytes = count * ((element.getIntOrFloatBitWidth() + 7) / 8);
    return vector::LoadOp::create(b, type, memref, indices, nontemporal,
                                  llvm::MaybeAlign(std::min<int64_t>(bytes, 16)));
  }
  /// loadVector of bytes read once (the packed caches' K / V chunks):
  /// nontemporal, which the NVIDIA target emits as
  /// `ld.global.L1::no_allocate` (lowerNontemporalGlobalLoads) so that the
  /// stream takes no L1 lines.
  Value loadVectorOnce(Value memref, ValueRange indices, int64_t count) {
    return loadVector(memref, indices, count, /*nontemporal=*/true);
  }
  /// loadVector of global memory (4, 8 or 16 bytes; others a plain
  /// loadVector) that asks L2 to fetch the whole 256-byte block around the
  /// bytes and allocates no L1 line (the bytes are read once), as
  /// loadVectorOnce's loads (`ld.global.L1::no_allocate.L2::256B`, inline
  /// PTX: NVPTX has no intrinsic for the prefetch size). For caches whose K / V rows are read in pieces by
  /// successive loads (nhd / hnd: a token's row is 64-byte pieces on four
  /// warps or in four steps), the first piece brings the rest into L2.
  Value loadVectorL2Block(Value memref, ValueRange indices, int64_t count) {
    auto type = cast<MemRefType>(memref.getType());
    Type element = type.getElementType();
    const int64_t elementBytes = (element.getIntOrFloatBitWidth() + 7) / 8;
    const int64_t words = count * elementBytes / 4;
    if (count * elementBytes % 4 != 0 || (words != 1 && words != 2 && words != 4))
      return loadVector(memref, indices, count);
    MLIRContext *ctx = b.getContext();
    Value global = elementPointer(memref, indices, /*addressSpace=*/1);
    std::string destinations, constraints;
    for (int64_t i = 0; i < words; ++i) {
      destinations += (i ? ", $" : "$") + std::to_string(i);
      constraints += "=r,";
    }
    std::string vector = words == 1 ? "" : ".v" + std::to_string(words);
    std::string text = "ld.global.L1::no_allocate.L2::256B" + vector + ".b32 " +
                       (words == 1 ? destinations : "{" + destinations + "}") +
                       ", [$" + std::to_string(words) + "];";
    Type i32 = b.getI32Type();
    Type result = words == 1 ? i32
                             : LLVM::LLVMStructType::getLiteral(
                                   ctx, SmallVector<Type>(words, i32));
    auto load = LLVM::InlineAsmOp::create(
        b, result, ValueRange{global}, text, constraints + "l",
        /*has_side_effects=*/false, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
    SmallVector<Value> parts;
    for (int64_t i = 0; i < words; ++i)
      parts.push_back(words == 1 ? load.getResult(0)
                                 : Value(LLVM::ExtractValueOp::create(
                                       b, load.getResult(0), i)));
    Value packed = vector::FromElementsOp::create(
        b, VectorType::get({words}, i32), parts);
    return vector::BitCastOp::create(b, VectorType::get({count}, element),
                                     packed);
  }
  /// The address of memref[indices] as an LLVM pointer of `addressSpace`
  /// (1: global, through a generic pointer; 3: shared): aligned pointer +
  /// (offset + sum index * stride) * element bytes.
  Value elementPointer(Value memref, ValueRange indices,
                       unsigned addressSpace) {
    auto type = cast<MemRefType>(memref.getType());
    const int64_t elementBytes =
        (type.getElementType().getIntOrFloatBitWidth() + 7) / 8;
    auto metadata = memref::ExtractStridedMetadataOp::create(b, memref);
    Value linear = metadata.getOffset();
    for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
      linear = addI(linear, mulI(index, stride));
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
    Value address = arith::IndexCastOp::create(
        b, b.getI64Type(), addI(base, mulI(linear, elementBytes)));
    MLIRContext *ctx = b.getContext();
    if (addressSpace != 1)
      return LLVM::IntToPtrOp::create(
          b, LLVM::LLVMPointerType::get(ctx, addressSpace), address);
    Value generic =
        LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(ctx), address);
    return LLVM::AddrSpaceCastOp::create(
        b, LLVM::LLVMPointerType::get(ctx, /*global=*/1), generic);
  }
  /// 16 bytes of global memory at source[sourceIndices] to shared memory at
  /// target[targetIndices], asynchronously (`cp.async.cg`: through L2
  /// only); visible to this thread after waitAsyncCopies.
  void copyAsync16(Value target, ValueRange targetIndices, Value source,
                   ValueRange sourceIndices) {
    NVVM::CpAsyncOp::create(
        b, elementPointer(target, targetIndices, /*addressSpace=*/3),
        elementPointer(source, sourceIndices, /*addressSpace=*/1), 16,
        NVVM::LoadCacheModifierKind::CG, Value());
  }
  /// Closes the group of this thread's async copies issued since the last.
  void commitAsyncCopies() { NVVM::CpAsyncCommitGroupOp::create(b); }
  /// Waits until at most `pending` of this thread's groups are in flight.
  void waitAsyncCopies(int64_t pending) {
    NVVM::CpAsyncWaitGroupOp::create(b, pending);
  }

  //===--- bulk copies and mbarriers -------------------------------------===//
  // Inline PTX of PTX ISA 8.0 (the bulk copy's shared::cluster form, which
  // takes this workgroup's own shared addresses), with a memory clobber:
  // shared loads must not move above a wait, nor stores below a copy.
  /// The 32-bit shared-memory address of memref[indices] (a workgroup
  /// buffer).
  Value sharedAddress(Value memref, ValueRange indices) {
    Value pointer = elementPointer(memref, indices, /*addressSpace=*/3);
    return LLVM::PtrToIntOp::create(b, b.getI32Type(), pointer);
  }
  /// mbarrier.init of the barrier at barrier[0] (one arrival per phase),
  /// made visible to the bulk-copy engine (fence.mbarrier_init).
  void initBarrier(Value barrier) {
    NVVM::MBarrierInitOp::create(
        b, elementPointer(barrier, {idx(0)}, /*addressSpace=*/3), i32(1),
        Value());
    NVVM::FenceMbarrierInitOp::create(b);
  }
  /// The barrier's arrival for its current phase, expecting `bytes` of
  /// bulk copies to complete on it.
  void arriveExpectingBytes(Value barrier, int64_t bytes) {
    inlinePTX("mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r",
              {sharedAddress(barrier, {idx(0)}), i32(bytes)});
  }
  /// `bytes` (a multiple of 16) of global memory at source[sourceIndices]
  /// to shared memory at target[targetIndices] (both 16-byte aligned) by
  /// the bulk-copy engine, completing on the barrier at barrier[0].
  void copyBulk(Value target, ValueRange targetIndices, Value source,
                ValueRange sourceIndices, int64_t bytes, Value barrier) {
    inlinePTX("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
              "bytes [$0], [$1], $2, [$3];",
              "r,l,r,r",
              {sharedAddress(target, targetIndices),
               elementPointer(source, sourceIndices, /*addressSpace=*/1),
               i32(bytes), sharedAddress(barrier, {idx(0)})});
  }
  /// A hint to bring `bytes` (a multiple of 16) of global memory at
  /// source[sourceIndices] (16-byte aligned) into L2, with no completion to
  /// wait for.
  void prefetchL2(Value source, ValueRange sourceIndices, int64_t bytes) {
    inlinePTX("cp.async.bulk.prefetch.L2.global [$0], $1;", "l,r",
              {elementPointer(source, sourceIndices, /*addressSpace=*/1),
               i32(bytes)});
  }
  /// Waits until the barrier's phase of parity `parity` (i32, 0 or 1) has
  /// completed.
  void waitBarrierPhase(Value barrier, Value parity) {
    inlinePTX("{\n\t.reg .pred done;\n\twait:\n\t"
              "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n\t"
              "@!done bra wait;\n\t}",
              "r,r", {sharedAddress(barrier, {idx(0)}), parity});
  }
  void inlinePTX(StringRef text, StringRef constraints, ValueRange operands) {
    LLVM::InlineAsmOp::create(
        b, Type(), operands, text, (constraints + ",~{memory}").str(),
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
  }
  void storeVector(Value vector, Value memref, ValueRange indices) {
    auto type = cast<VectorType>(vector.getType());
    int64_t bytes = type.getNumElements() *
                    ((type.getElementTypeBitWidth() + 7) / 8);
    vector::StoreOp::create(b, vector, memref, indices, /*nontemporal=*/false,
                            llvm::MaybeAlign(std::min<int64_t>(bytes, 16)));
  }
  /// The 32-bit words of a vector of any element type (16 bytes: 4 words).
  SmallVector<Value> words(Value vector) {
    auto type = cast<VectorType>(vector.getType());
    int64_t count = type.getNumElements() * type.getElementTypeBitWidth() / 32;
    Value asWords = vector::BitCastOp::create(
        b, VectorType::get({count}, b.getI32Type()), vector);
    SmallVector<Value> result;
    for (int64_t i = 0; i < count; ++i)
      result.push_back(vector::ExtractOp::create(b, asWords, i));
    return result;
  }
  /// Two f32 as a vector<2xf32> (for 8-byte shared stores).
  Value pair(Value x, Value y) {
    return vector::FromElementsOp::create(
        b, VectorType::get({2}, b.getF32Type()), ValueRange{x, y});
  }
  Value extract(Value vector, int64_t i) {
    return vector::ExtractOp::create(b, vector, i);
  }

  //===--- warp and workgroup --------------------------------------------===//
  void barrier() { gpu::BarrierOp::create(b); }
  /// The value of lane (lane ^ offset).
  Value shuffleXor(Value x, int64_t offset) {
    return gpu::ShuffleOp::create(b, x, i32(offset), i32(32),
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }

  //===--- intrinsics ----------------------------------------------------===//
  Value intrinsic(Type result, StringRef name, ValueRange args) {
    return LLVM::CallIntrinsicOp::create(b, result, b.getStringAttr(name),
                                         args)
        .getResult(0);
  }
  /// 2^x of an f32 with subnormal results (and inputs) flushed to zero:
  /// ex2.approx.ftz.f32, one MUFU.EX2, where ex2.approx.f32 wraps it in
  /// three more instructions that keep subnormal results. For softmax
  /// weights, whose row sum holds the row maximum's weight 1: a weight below
  /// 2^-126 is far below f32's resolution of that sum.
  Value exp2FlushingSubnormals(Value x) {
    return intrinsic(b.getF32Type(), "llvm.nvvm.ex2.approx.ftz.f32", {x});
  }
  /// Two e4m3 values (the low and high byte of an i16) to f16x2, exactly
  /// (cvt.rn.f16x2.e4m3x2); the pair comes back as an i32, low half first.
  Value e4m3x2ToF16x2(Value pairI16) {
    Value halves = intrinsic(VectorType::get({2}, b.getF16Type()),
                             "llvm.nvvm.e4m3x2.to.f16x2.rn", {pairI16});
    return LLVM::BitcastOp::create(b, b.getI32Type(), halves);
  }
  /// f16x2 / bf16x2 (as an i32, `low` in the low half) rounded to nearest
  /// even from two f32 (cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32).
  Value packF16x2(Value low, Value high) {
    Value halves = intrinsic(VectorType::get({2}, b.getF16Type()),
                             "llvm.nvvm.ff2f16x2.rn", {high, low});
    return LLVM::BitcastOp::create(b, b.getI32Type(), halves);
  }
  Value packBF16x2(Value low, Value high) {
    Value halves = intrinsic(VectorType::get({2}, b.getBF16Type()),
                             "llvm.nvvm.ff2bf16x2.rn", {high, low});
    return LLVM::BitcastOp::create(b, b.getI32Type(), halves);
  }
  /// e4m3x2 (an i16, `low` in the low byte) from two f32, rounded to
  /// nearest even, saturating (cvt.rn.satfinite.e4m3x2.f32).
  Value packE4M3x2(Value low, Value high) {
    return intrinsic(b.getI16Type(), "llvm.nvvm.ff.to.e4m3x2.rn", {high, low});
  }
  /// The f32 values of the e4m3 bytes of an i16 (exact).
  std::pair<Value, Value> unpackE4M3x2(Value pair) {
    Value halves = intrinsic(VectorType::get({2}, b.getF16Type()),
                             "llvm.nvvm.e4m3x2.to.f16x2.rn", {pair});
    Value wide = LLVM::FPExtOp::create(
        b, VectorType::get({2}, b.getF32Type()), halves);
    return {extract(wide, 0), extract(wide, 1)};
  }
  /// The f32 values of the bf16 halves of a word (exact).
  std::pair<Value, Value> unpackBF16x2(Value word) {
    Value low = bitcast(b.getF32Type(), shl(word, 16));
    Value high = bitcast(b.getF32Type(), andI(word, 0xFFFF0000));
    return {low, high};
  }

  /// D = A * B + C of mma.sync.aligned.m16n8k16.row.col.f32 with f16
  /// (`bf16` false) or bf16 operands, the fragments as i32 words.
  Accumulator mma(bool bf16, std::array<Value, 4> a, std::array<Value, 2> bw,
                  const Accumulator &c) {
    Type f32 = b.getF32Type();
    Type resultType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    SmallVector<Value> args;
    auto operand = [&](Value word) -> Value {
      if (bf16)
        return word;
      return LLVM::BitcastOp::create(b, VectorType::get({2}, b.getF16Type()),
                                     word);
    };
    for (Value word : a)
      args.push_back(operand(word));
    for (Value word : bw)
      args.push_back(operand(word));
    args.append(c.begin(), c.end());
    Value result = intrinsic(resultType,
                             bf16 ? "llvm.nvvm.mma.m16n8k16.row.col.bf16"
                                  : "llvm.nvvm.mma.m16n8k16.row.col.f32.f32",
                             args);
    Accumulator d;
    for (int64_t i = 0; i < 4; ++i)
      d[i] = LLVM::ExtractValueOp::create(b, result, ArrayRef<int64_t>{i});
    return d;
  }

  /// D = A * B + C of mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32.
  Accumulator mmaE4M3(std::array<Value, 4> a, std::array<Value, 2> bw,
                      const Accumulator &c) {
    Type f32 = b.getF32Type();
    Type resultType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    SmallVector<Value> args(a.begin(), a.end());
    args.append(bw.begin(), bw.end());
    args.append(c.begin(), c.end());
    Value result = intrinsic(
        resultType, "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32", args);
    Accumulator d;
    for (int64_t i = 0; i < 4; ++i)
      d[i] = LLVM::ExtractValueOp::create(b, result, ArrayRef<int64_t>{i});
    return d;
  }

  //===--- structured control --------------------------------------------===//
  /// if (cond) { then() } (buildIf, StructuredControl.h)
  void ifThen(Value cond, function_ref<void()> then) { buildIf(b, cond, then); }
  /// if (cond) { then() } else { otherwise() }
  void ifThenElse(Value cond, function_ref<void()> then,
                  function_ref<void()> otherwise) {
    buildIf(b, cond, then, otherwise);
  }
  /// cond ? then() : otherwise(), both yielding values of `types`.
  SmallVector<Value> ifValues(Value cond, TypeRange types,
                              function_ref<SmallVector<Value>()> then,
                              function_ref<SmallVector<Value>()> otherwise) {
    auto branch = scf::IfOp::create(b, types, cond, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    scf::YieldOp::create(b, then());
    b.setInsertionPointToStart(&branch.getElseRegion().front());
    scf::YieldOp::create(b, otherwise());
    return SmallVector<Value>(branch.getResults());
  }
  /// for (iv = lower; iv < upper; iv += step) { body(iv) } (index).
  void forLoop(Value lower, Value upper, Value step,
               function_ref<void(Value)> body) {
    scf::ForOp::create(b, lower, upper, step, ValueRange{},
                       [&](OpBuilder &, Location, Value iv, ValueRange) {
                         body(iv);
                         scf::YieldOp::create(b);
                       });
  }
};

} // namespace mlir::pa::nvvm

#endif // PA_LIB_CONVERSION_PATONVVM_WARPEMITTER_H
