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

#include <cstdint>
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

/// Comparisons of v_cmp / s_cmp (CmpCond::Ne is lg / ne / neq's ordered
/// counterpart: see Executor.cpp).
enum class CmpCond : uint8_t { F, Lt, Eq, Le, Gt, Lg, Ge, O, U, Nge, Nlg, Ngt,
                               Nle, Neq, Nlt, Tru, Ne };
enum class CmpType : uint8_t { F32, F64, F16, I32, U32, I64, U64, I16, U16 };

enum class Encoding : uint8_t { Native, E32, E64, Sdwa, Dpp };

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

  // VOP3 / VOP3P modifiers.
  bool clamp = false;
  uint8_t omod = 0;
  uint8_t opSel = 0, opSelHi = 0, negLo = 0, negHi = 0;
  bool opSelHiGiven = false;
  uint8_t bitop3 = 0;
  uint8_t cbsz = 0, abid = 0, blgp = 0;

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
