//===- Instruction.h - one decoded gfx9 instruction -------------*- C++ -*-===//
//
// The executor's form of an instruction: its handler (Op), operands as
// register ranges or constants, and the modifiers the semantics read. Built
// once per kernel at load time from the MC disassembler's MCInst and its
// canonical assembly text (lib/ISAEmulator/Loader.cpp); nothing is parsed at
// run time.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ISAEMULATOR_INSTRUCTION_H
#define PA_ISAEMULATOR_INSTRUCTION_H

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace pa::isa {

/// Scalar register numbers of the special registers (the gfx9 SGPR encoding).
enum SpecialSgpr : uint16_t {
  kFlatScratch = 102,
  kXnackMask = 104,
  kVcc = 106,
  kM0 = 124,
  kNull = 125,
  kExec = 126,
  kSgprFileSize = 128,
};

struct Operand {
  enum Kind : uint8_t {
    None,
    Sgpr,  // s, vcc, exec, m0, ... (reg = SGPR number)
    Vgpr,  // reg = VGPR number
    Agpr,  // reg = AGPR number
    Const, // inline constant or literal
    Scc,   // src_scc
    Execz,
    Vccz,
    Off, // "off" (no address / offset register)
  };
  Kind kind = None;
  uint8_t dwords = 1;
  bool neg = false, abs = false, sext = false;
  uint16_t reg = 0;
  /// A constant as a 32-bit, 64-bit and 16-bit operand reads it (float
  /// inline constants differ by width).
  uint32_t bits32 = 0;
  uint64_t bits64 = 0;
  uint16_t bits16 = 0;
  bool isFloatConst = false;

  bool isVector() const { return kind == Vgpr || kind == Agpr; }
};

/// Handlers, one per base mnemonic (encoding suffixes stripped).
enum class Op : uint16_t {
#define PA_ISA_OP(name) name,
#include "pa/ISAEmulator/Ops.def"
  NumOps
};

/// Whether `op` is one of `ops`.
inline bool isOneOf(Op op, std::initializer_list<Op> ops) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

/// s_branch and the s_cbranch_* forms (SOPP, the target relative to the
/// next instruction).
inline bool isSoppBranch(Op op) {
  return isOneOf(op, {Op::s_branch, Op::s_cbranch_scc0, Op::s_cbranch_scc1,
                      Op::s_cbranch_vccz, Op::s_cbranch_vccnz,
                      Op::s_cbranch_execz, Op::s_cbranch_execnz});
}

/// Comparisons of v_cmp / s_cmp (CmpCond::Ne is lg / ne / neq's ordered
/// counterpart: see Executor.cpp).
enum class CmpCond : uint8_t { F, Lt, Eq, Le, Gt, Lg, Ge, O, U, Nge, Nlg, Ngt,
                               Nle, Neq, Nlt, Tru, Ne };
enum class CmpType : uint8_t { F32, F64, F16, I32, U32, I64, U64, I16, U16 };

enum class Encoding : uint8_t { Native, E32, E64, Sdwa, Dpp };

/// What executes an instruction, fixed at load time from its mnemonic: the
/// executor dispatches on it and the dynamic counts use it.
enum class Unit : uint8_t {
  Control, // s_nop, s_setprio, s_sleep, s_setreg, gpr-index mode
  Salu,
  Smem, // s_load_*, s_buffer_load_*
  Valu,
  Vcmp, // v_cmp / v_cmpx
  Mfma,
  Lds,  // ds_*
  Vmem, // buffer_*, global_*
};

/// The input type of an MFMA (its mnemonic's suffix).
enum class MfmaInput : uint8_t { Unsupported, Fp8, F8f6f4, Bf16, F16 };

/// A memory instruction's access, read from its mnemonic at load time.
struct MemoryForm {
  uint8_t bytes = 0; // per lane (per address of read2 / write2)
  bool load = false, store = false;
  bool buffer = false;     // buffer_* / s_buffer_* (else global_* / s_load_*)
  bool signExtend = false; // sbyte, sshort, i8, i16
  bool two = false, st64 = false; // ds_read2 / ds_write2, their st64 forms
  bool d16 = false;
  bool hiHalf = false; // stores of the high half (_d16_hi)
};

/// SDWA operand selects.
enum SdwaSel : uint8_t {
  kByte0,
  kByte1,
  kByte2,
  kByte3,
  kWord0,
  kWord1,
  kDword
};
enum SdwaUnused : uint8_t { kUnusedPad, kUnusedSext, kUnusedPreserve };

/// DPP controls (gfx9).
enum class DppKind : uint8_t {
  None,
  QuadPerm,
  RowShl,
  RowShr,
  RowRor,
  WaveShl,
  WaveRol,
  WaveShr,
  WaveRor,
  RowMirror,
  RowHalfMirror,
  RowBcast15,
  RowBcast31,
  RowNewBcast,
};

struct Instruction {
  Op op = Op::NumOps;
  Unit unit = Unit::Valu;
  Encoding encoding = Encoding::Native;
  uint8_t size = 4;
  uint8_t numDst = 0, numSrc = 0;
  uint32_t offset = 0; // byte offset in .text
  Operand dst[2];
  Operand src[4];
  /// Branch target as an index into the kernel's instruction array.
  int32_t target = -1;
  uint32_t simm16 = 0; // SOPP / SOPK raw immediate

  // Memory modifiers.
  int32_t memOffset = 0, memOffset1 = 0;
  bool offen = false, idxen = false, glc = false, slc = false;
  /// Buffer load to LDS (`lds`): no VGPR destination.
  bool lds = false;
  MemoryForm memory;

  // VOP3 / VOP3P modifiers.
  bool clamp = false;
  uint8_t omod = 0;
  uint8_t opSel = 0, opSelHi = 0, negLo = 0, negHi = 0;
  bool opSelHiGiven = false;
  uint8_t bitop3 = 0;
  uint8_t cbsz = 0, abid = 0, blgp = 0;
  /// v_mfma_f32_MxNxK_TYPE.
  uint8_t mfmaM = 0, mfmaN = 0, mfmaK = 0;
  MfmaInput mfmaInput = MfmaInput::Unsupported;

  // DPP.
  DppKind dpp = DppKind::None;
  uint8_t dppValue = 0, rowMask = 0xf, bankMask = 0xf;
  bool boundCtrl = false;

  // SDWA.
  uint8_t dstSel = kDword, dstUnused = kUnusedPad;
  uint8_t srcSel[2] = {kDword, kDword};

  /// v_cmp / s_cmp: the comparison and the compared type.
  uint8_t cond = 0, cmpType = 0;

  /// VGPR-index-mode slots enabled by s_set_gpr_idx_on (bit 0 src0, 1 src1,
  /// 2 src2, 3 dst).
  uint8_t gprIdxMode = 0;

  /// The disassembly, for messages.
  std::string text;
};

} // namespace pa::isa

#endif // PA_ISAEMULATOR_INSTRUCTION_H
