//===- AMDGPU.cpp - amdgpu ops: MFMA, DPP, buffers, packed fp8 ------------===//
#include "Dialects.h"

#include "../Executor.h"
#include "pa/Emulator/MFMALayout.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

namespace {

//===----------------------------------------------------------------------===//
// MFMA
//===----------------------------------------------------------------------===//

struct MFMAInfo : Payload {
  MFMAInstruction instruction;
  uint32_t a = 0, b = 0, c = 0, dst = 0;
};

/// D = A B + C: products and sum in double, rounded to f32 once; operand
/// placement from MFMALayout.h.
Step executeMFMA(Executor &ex, Wave &wave, const Instr &in) {
  const MFMAInfo &info = in.get<MFMAInfo>();
  const MFMAInstruction &mfma = info.instruction;
  if (wave.exec != kAllLanes)
    return ex.fail(&wave, in, -1,
                   "amdgpu.mfma needs all 64 lanes of the wave active (exec "
                   "mask 0x" +
                       llvm::utohexstr(wave.exec) + ")");
  ++ex.stats.mfmas;
  const int m = mfma.m, n = mfma.n, k = mfma.k;
  std::vector<double> a(size_t(m * k)), b(size_t(k * n));
  for (int row = 0; row < m; ++row)
    for (int kk = 0; kk < k; ++kk) {
      LaneElement at = mfmaOperandPosition(mfma, row, kk);
      a[size_t(row * k + kk)] = floatValue(
          mfma.input, wave.frame(at.lane)[info.a + uint32_t(at.element)]);
    }
  for (int kk = 0; kk < k; ++kk)
    for (int col = 0; col < n; ++col) {
      LaneElement at = mfmaOperandPosition(mfma, col, kk);
      b[size_t(kk * n + col)] = floatValue(
          mfma.input, wave.frame(at.lane)[info.b + uint32_t(at.element)]);
    }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      LaneElement at = mfmaAccumulatorPosition(mfma, i, j);
      uint64_t *f = wave.frame(at.lane);
      double sum = asFloat(f[info.c + uint32_t(at.element)]);
      for (int kk = 0; kk < k; ++kk)
        sum += a[size_t(i * k + kk)] * b[size_t(kk * n + j)];
      f[info.dst + uint32_t(at.element)] = wordOf(float(sum));
    }
  return Step::Next;
}

LogicalResult compileMFMA(OpCompiler &c, Operation *operation) {
  auto op = cast<amdgpu::MFMAOp>(operation);
  if (failed(c.kernelOnly(op)))
    return failure();
  if (op.getCbsz() != 0 || op.getAbid() != 0 ||
      op.getBlgp() != amdgpu::MFMAPermB::none || op.getNegateA() ||
      op.getNegateB() || op.getNegateC())
    return c.fail(op, "cbsz / abid / blgp / negate modifiers are not "
                      "supported");
  FailureOr<ScalarKind> input = c.kindOf(op, op.getSourceA().getType());
  FailureOr<ScalarKind> output = c.kindOf(op, op.getDestC().getType());
  if (failed(input) || failed(output))
    return failure();
  if (op.getSourceA().getType() != op.getSourceB().getType())
    return c.fail(op, "A and B must have the same type");
  std::optional<MFMAInstruction> instruction =
      lookupMFMA(int(op.getM()), int(op.getN()), int(op.getK()),
                 int(op.getBlocks()), *input);
  if (!instruction || *output != ScalarKind::F32)
    return c.fail(op, "no verified register layout for this MFMA (the "
                      "emulator executes the CDNA3 instructions of "
                      "shared/isa/mfma-layouts: 16x16x32 / 32x32x16 fp8, "
                      "16x16x16 / 32x32x8 bf16 and f16, and gfx950's "
                      "16x16x128 / 32x32x64 f8f6f4 on fp8; f32 "
                      "accumulators)");
  // The chip's MFMA instructions (ChipInfo::hasF8F6F4Mfma).
  if (instruction->isF8F6F4() && !c.program.chipHasF8F6F4Mfma)
    return c.fail(op, instruction->isaName() +
                          " exists on gfx950 only, "
                          "not on " +
                          c.program.options.chip);
  if (failed(c.checkFp8(op, *input)))
    return failure();
  if (elementCount(op.getSourceA().getType()) !=
          uint32_t(instruction->operandElements()) ||
      elementCount(op.getDestC().getType()) !=
          uint32_t(instruction->accumulatorElements()))
    return c.fail(op, "operand vector lengths do not match " +
                          instruction->isaName());
  FailureOr<uint32_t> dst = c.define(op.getDestD(), op);
  if (failed(dst))
    return failure();
  MFMAInfo info;
  info.instruction = *instruction;
  info.a = c.use(op.getSourceA());
  info.b = c.use(op.getSourceB());
  info.c = c.use(op.getDestC());
  info.dst = *dst;
  c.attach(c.emit(executeMFMA, op), std::move(info));
  return success();
}

//===----------------------------------------------------------------------===//
// DPP
//===----------------------------------------------------------------------===//

struct DPPInfo : Payload {
  uint32_t old = 0, src = 0, dst = 0, words = 1;
  amdgpu::DPPPerm kind = amdgpu::DPPPerm::quad_perm;
  /// rocdl.update.dpp with DPP_ROW_NEWBCAST (0x150 + n): lane n of each row
  /// of 16 to the whole row (pa-to-mfma spreads per-token values with it;
  /// amdgpu.dpp has no such kind). -1: `kind` decides.
  int rowBroadcast = -1;
  SmallVector<int64_t, 4> argument; // quad_perm lanes or row shift
  uint32_t rowMask = 0xF, bankMask = 0xF;
  bool boundCtrl = false;
};

Step executeDPP(Executor &ex, Wave &wave, const Instr &in) {
  const DPPInfo &info = in.get<DPPInfo>();
  // Sources first: every lane reads its source before any lane writes.
  std::array<int, kLanes> sources;
  for (int lane = 0; lane < kLanes; ++lane) {
    int row = lane & ~15, inRow = lane & 15;
    int source = -1;
    int64_t arg = info.argument.empty() ? 0 : info.argument[0];
    if (info.rowBroadcast >= 0) {
      source = row + info.rowBroadcast;
      if (!(wave.exec >> source & 1))
        source = -1;
      sources[lane] = source;
      continue;
    }
    switch (info.kind) {
    case amdgpu::DPPPerm::quad_perm:
      source = (lane & ~3) + int(info.argument[lane & 3]);
      break;
    case amdgpu::DPPPerm::row_shl:
      source = inRow + arg < 16 ? lane + int(arg) : -1;
      break;
    case amdgpu::DPPPerm::row_shr:
      source = inRow - arg >= 0 ? lane - int(arg) : -1;
      break;
    case amdgpu::DPPPerm::row_ror:
      source = row + int((inRow - arg + 16) % 16);
      break;
    case amdgpu::DPPPerm::row_mirror:
      source = row + 15 - inRow;
      break;
    case amdgpu::DPPPerm::row_half_mirror:
      source = (lane & ~7) + 7 - (lane & 7);
      break;
    case amdgpu::DPPPerm::row_bcast_15:
      source = row ? row - 1 : -1;
      break;
    case amdgpu::DPPPerm::row_bcast_31:
      source = lane >= 32 ? 31 : -1;
      break;
    default:
      break;
    }
    if (source >= 0 && !(wave.exec >> source & 1))
      source = -1; // disabled source lanes are invalid
    sources[lane] = source;
  }
  uint64_t *temp = ex.scratchFor(size_t(info.words) * kLanes);
  forLanes(wave, [&](int lane, uint64_t *) {
    for (uint32_t e = 0; e < info.words; ++e)
      temp[size_t(lane) * info.words + e] =
          sources[lane] >= 0 ? wave.frame(sources[lane])[info.src + e] : 0;
  });
  forLanes(wave, [&](int lane, uint64_t *f) {
    bool enabled = (info.rowMask >> (lane >> 4) & 1) &&
                   (info.bankMask >> ((lane >> 2) & 3) & 1);
    for (uint32_t e = 0; e < info.words; ++e) {
      uint64_t value = f[info.old + e];
      if (enabled && sources[lane] >= 0)
        value = temp[size_t(lane) * info.words + e];
      else if (enabled && info.boundCtrl)
        value = 0;
      f[info.dst + e] = value;
    }
  });
  return Step::Next;
}

LogicalResult attachDPP(OpCompiler &c, Operation *op, Value result, Value old,
                        Value src, DPPInfo info) {
  FailureOr<uint32_t> dst = c.define(result, op);
  if (failed(dst))
    return failure();
  info.old = c.use(old);
  info.src = c.use(src);
  info.dst = *dst;
  c.attach(c.emit(executeDPP, op), std::move(info));
  return success();
}

LogicalResult compileDPP(OpCompiler &c, Operation *operation) {
  auto op = cast<amdgpu::DPPOp>(operation);
  if (failed(c.kernelOnly(op)))
    return failure();
  DPPInfo info;
  info.kind = op.getKind();
  info.rowMask = op.getRowMask();
  info.bankMask = op.getBankMask();
  info.boundCtrl = op.getBoundCtrl();
  info.words = wordsOf(op.getType());
  if (std::optional<Attribute> argument = op.getPermArgument()) {
    if (auto integer = dyn_cast<IntegerAttr>(*argument))
      info.argument.push_back(integer.getInt());
    else if (auto array = dyn_cast<ArrayAttr>(*argument))
      for (Attribute element : array)
        info.argument.push_back(cast<IntegerAttr>(element).getInt());
  }
  switch (op.getKind()) {
  case amdgpu::DPPPerm::quad_perm:
  case amdgpu::DPPPerm::row_shl:
  case amdgpu::DPPPerm::row_shr:
  case amdgpu::DPPPerm::row_ror:
  case amdgpu::DPPPerm::row_mirror:
  case amdgpu::DPPPerm::row_half_mirror:
  case amdgpu::DPPPerm::row_bcast_15:
  case amdgpu::DPPPerm::row_bcast_31:
    break;
  default:
    return c.fail(op, "unsupported DPP permutation");
  }
  return attachDPP(c, op, op.getResult(), op.getOld(), op.getSrc(),
                   std::move(info));
}

/// rocdl.update.dpp: the row broadcast only (the other controls are
/// amdgpu.dpp ops in the emulated IR).
LogicalResult compileDPPUpdate(OpCompiler &c, Operation *operation) {
  auto op = cast<ROCDL::DPPUpdateOp>(operation);
  if (failed(c.kernelOnly(op)))
    return failure();
  constexpr uint32_t kRowNewBroadcast = 0x150;
  uint32_t control = op.getDppCtrl();
  if (control < kRowNewBroadcast || control >= kRowNewBroadcast + 16 ||
      op.getRowMask() != 0xF || op.getBankMask() != 0xF ||
      wordsOf(op.getType()) != 1)
    return c.fail(op, "unsupported rocdl.update.dpp (only row_newbcast of "
                      "32-bit values with full row and bank masks)");
  DPPInfo info;
  info.rowBroadcast = int(control - kRowNewBroadcast);
  info.boundCtrl = op.getBoundCtrl();
  return attachDPP(c, op, op.getResult(), op.getOld(), op.getSrc(),
                   std::move(info));
}

//===----------------------------------------------------------------------===//
// Packed fp8 conversions
//===----------------------------------------------------------------------===//

/// amdgpu.packed_trunc_2xfp8: two f32 (a, b) into word `mode` of a
/// vector<4xfp8>, the other word from `existing` (c). Absent operands: imm
/// bit 0 (b), bit 1 (existing).
Step executePackedTrunc(Executor &, Wave &wave, const Instr &in) {
  // v_cvt_pk_fp8_f32 without clamp: an out-of-range value becomes NaN
  // (only arith.truncf is clamped first by the ROCDL lowering).
  const uint64_t undefined = f32ToSmallFloat(in.kind2, NAN);
  forLanes(wave, [&](int, uint64_t *f) {
    uint64_t word[4];
    for (int e = 0; e < 4; ++e)
      word[e] = (in.imm & 2) ? undefined : f[in.c + e];
    word[2 * in.mode] = f32ToSmallFloatUnsaturated(in.kind2, asFloat(f[in.a]));
    word[2 * in.mode + 1] =
        (in.imm & 1) ? undefined
                     : f32ToSmallFloatUnsaturated(in.kind2, asFloat(f[in.b]));
    std::memcpy(f + in.dst, word, sizeof word);
  });
  return Step::Next;
}

LogicalResult compilePackedTrunc(OpCompiler &c, Operation *operation) {
  auto op = cast<amdgpu::PackedTrunc2xFp8Op>(operation);
  FailureOr<ScalarKind> kind = c.kindOf(op, op.getRes().getType());
  if (failed(kind) || failed(c.checkFp8(op, *kind)))
    return failure();
  FailureOr<size_t> instr = c.emitResult(op, executePackedTrunc);
  if (failed(instr))
    return failure();
  Instr &in = c.at(*instr);
  in.kind2 = *kind;
  in.mode = uint8_t(op.getWordIndex());
  in.a = c.use(op.getSourceA());
  if (Value b = op.getSourceB())
    in.b = c.use(b);
  else
    in.imm |= 1;
  if (Value existing = op.getExisting())
    in.c = c.use(existing);
  else
    in.imm |= 2;
  return success();
}

/// amdgpu.ext_packed_fp8: `count` elements from element b of the fp8
/// source, widened to f32.
Step executeExtPacked(Executor &, Wave &wave, const Instr &in) {
  forLanes(wave, [&](int, uint64_t *f) {
    for (uint32_t e = 0; e < in.count; ++e)
      f[in.dst + e] =
          wordOf(smallFloatToF32(in.kind, uint32_t(f[in.a + in.b + e])));
  });
  return Step::Next;
}

/// Element `index` (f32 result) or word `index` (vector<2xf32> result).
LogicalResult compileExtPacked(OpCompiler &c, Operation *operation) {
  auto op = cast<amdgpu::ExtPackedFp8Op>(operation);
  FailureOr<ScalarKind> kind = c.kindOf(op, op.getSource().getType());
  if (failed(kind) || failed(c.checkFp8(op, *kind)))
    return failure();
  uint32_t results = elementCount(op.getRes().getType());
  uint32_t first = uint32_t(op.getIndex()) * results;
  FailureOr<uint32_t> dst = c.define(op.getRes(), op);
  if (failed(dst))
    return failure();
  if (first + results > elementCount(op.getSource().getType()))
    return c.fail(op, "reads past the end of the source vector (undefined)");
  size_t instr = c.emit(executeExtPacked, op);
  c.at(instr).dst = *dst;
  c.at(instr).kind = *kind;
  c.at(instr).a = c.use(op.getSource());
  c.at(instr).b = first;
  c.at(instr).count = results;
  return success();
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

/// The memref (a) with the range of a buffer descriptor: `imm` the slot of
/// the valid bytes (or -1: the memref's extent), `mode` reset offset.
Step executeFatRawBufferCast(Executor &, Wave &wave, const Instr &in) {
  const uint32_t rank = (in.count - 4) / 2;
  const uint32_t elementBytes = storageBytes(in.kind);
  forLanes(wave, [&](int, uint64_t *f) {
    std::memmove(f + in.dst, f + in.a, size_t(in.count) * 8);
    uint64_t *out = f + in.dst;
    out[kDescriptorBase] = in.mode ? out[kOffset] : 0;
    int64_t range = 0;
    if (in.imm >= 0) {
      range = int64_t(f[in.imm]);
    } else {
      const int64_t *sizes = reinterpret_cast<const int64_t *>(out + kSizes);
      for (uint32_t d = 0; d < rank; ++d)
        range =
            std::max(range, sizes[d] * sizes[rank + d] * int64_t(elementBytes));
    }
    out[kDescriptorBytes] = uint64_t(range);
  });
  return Step::Next;
}

LogicalResult compileFatRawBufferCast(OpCompiler &c, Operation *operation) {
  auto op = cast<amdgpu::FatRawBufferCastOp>(operation);
  if (failed(c.kernelOnly(op)))
    return failure();
  FailureOr<size_t> instr =
      c.emitResult(op, executeFatRawBufferCast, op.getSource());
  if (failed(instr))
    return failure();
  c.at(*instr).imm =
      op.getValidBytes() ? int64_t(c.use(op.getValidBytes())) : -1;
  c.at(*instr).mode = op.getResetOffset();
  FailureOr<ScalarKind> element = c.kindOf(op, op.getType());
  if (failed(element))
    return failure();
  c.at(*instr).kind = *element;
  return success();
}

/// amdgpu.raw_buffer_load / store: i32 indices, descriptor range checks.
template <typename OpTy, bool Store>
LogicalResult compileRawBufferAccess(OpCompiler &c, Operation *operation) {
  auto op = cast<OpTy>(operation);
  if (failed(c.kernelOnly(op)))
    return failure();
  Type valueType = op.getValue().getType();
  if (isa<VectorType>(valueType) && cast<VectorType>(valueType).getRank() != 1)
    return c.fail(op, "only 1-D vectors are loaded and stored");
  MemAccess info;
  info.buffer = true;
  info.indexKind = ScalarKind::I32;
  std::optional<uint32_t> indexOffset = op.getIndexOffset();
  info.indexOffset = indexOffset ? int64_t(*indexOffset) : 0;
  if (Value sgprOffset = op.getSgprOffset())
    info.sgprOffset = c.use(sgprOffset);
  return compileMemoryAccess(c, op, op.getMemref(), op.getIndices(),
                             op.getValue(), valueType, Store, std::move(info));
}

} // namespace

void mlir::pa::emulator::detail::registerAMDGPUHandlers(OpRegistry &r) {
  using namespace amdgpu;
  r.add<MFMAOp>(compileMFMA);
  r.add<DPPOp>(compileDPP);
  r.add<ROCDL::DPPUpdateOp>(compileDPPUpdate);
  r.add<PackedTrunc2xFp8Op>(compilePackedTrunc);
  r.add<ExtPackedFp8Op>(compileExtPacked);
  r.add<FatRawBufferCastOp>(compileFatRawBufferCast);
  r.add<RawBufferLoadOp>(compileRawBufferAccess<RawBufferLoadOp, false>);
  r.add<RawBufferStoreOp>(compileRawBufferAccess<RawBufferStoreOp, true>);
  r.add<LDSBarrierOp>(compileBarrier);
  r.add<SchedBarrierOp, MemoryCounterWaitOp>(compileNoEffect);
}
