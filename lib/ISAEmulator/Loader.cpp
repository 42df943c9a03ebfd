//===- Loader.cpp - .hsaco -> kernels of decoded instructions -------------===//
//
// The ELF is read with llvm::object; each kernel's descriptor (SYMBOL.kd)
// gives its entry point, and its code is decoded once with LLVM's AMDGPU MC
// disassembler. Each MCInst is printed with the AMDGPU instruction printer
// and that canonical text is turned into an Instruction here, at load time:
// the mnemonic picks the handler (a table built once), the operands become
// register ranges and constants. Binary decoding is entirely LLVM's.
//
//===----------------------------------------------------------------------===//
#include "pa/ISAEmulator/Instruction.h"
#include "pa/ISAEmulator/ISAEmulator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>
#include <optional>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUDisassembler();
}

using namespace llvm;

namespace pa::isa {

Kernel::~Kernel() = default;

namespace {

const StringMap<Op> &opTable() {
  static const StringMap<Op> table = [] {
    StringMap<Op> t;
#define PA_ISA_OP(name) t[#name] = Op::name;
#include "pa/ISAEmulator/Ops.def"
    return t;
  }();
  return table;
}

/// Splits `text` at top-level commas (not inside (), []).
SmallVector<StringRef, 6> splitOperands(StringRef text) {
  SmallVector<StringRef, 6> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (start < text.size())
    parts.push_back(text.substr(start).trim());
  return parts;
}

/// "[0,1,1]" -> bit mask.
uint8_t parseBitList(StringRef list) {
  list = list.trim("[]");
  uint8_t bits = 0;
  SmallVector<StringRef, 4> items;
  list.split(items, ',');
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].trim() == "1")
      bits |= 1 << i;
  return bits;
}

bool parseInt(StringRef text, int64_t &value) {
  bool negative = text.consume_front("-");
  uint64_t magnitude;
  if (text.getAsInteger(0, magnitude))
    return false;
  value = negative ? -int64_t(magnitude) : int64_t(magnitude);
  return true;
}

uint16_t f32ToHalfBits(float v) {
  // Only the inline constants (exact in f16) come here.
  uint32_t b;
  std::memcpy(&b, &v, 4);
  if (v == 0)
    return uint16_t(b >> 16);
  uint32_t sign = (b >> 16) & 0x8000;
  int exp = int((b >> 23) & 0xff) - 127 + 15;
  uint32_t mant = (b >> 13) & 0x3ff;
  return uint16_t(sign | (uint32_t(exp) << 10) | mant);
}

/// One operand's text -> Operand; false when it is not one.
bool parseOperand(StringRef text, Operand &op, std::string &error) {
  op = Operand();
  StringRef t = text.trim();
  if (t.consume_front("-")) {
    // A negative number is a constant, "-v1" a negated register.
    if (!t.empty() && (isdigit(t[0]) || t[0] == '.')) {
      t = text.trim();
    } else {
      op.neg = true;
    }
  }
  if (t.starts_with("|") && t.ends_with("|") && t.size() > 2) {
    op.abs = true;
    t = t.drop_front().drop_back();
  }
  if (t.consume_front("sext(")) {
    op.sext = true;
    t = t.drop_back();
  }
  if (t.consume_front("neg(")) { // VOP3P / literal neg
    op.neg = !op.neg;
    t = t.drop_back();
  }
  if (t.consume_front("abs(")) {
    op.abs = true;
    t = t.drop_back();
  }
  auto registerRange = [&](StringRef body, Operand::Kind kind) -> bool {
    op.kind = kind;
    if (body.consume_front("[")) {
      body = body.drop_back();
      auto [lo, hi] = body.split(':');
      unsigned l, h;
      if (lo.getAsInteger(10, l) || hi.getAsInteger(10, h) || h < l)
        return false;
      op.reg = l;
      op.dwords = h - l + 1;
      return true;
    }
    unsigned r;
    if (body.getAsInteger(10, r))
      return false;
    op.reg = r;
    op.dwords = 1;
    return true;
  };
  struct Special {
    const char *name;
    uint16_t reg;
    uint8_t dwords;
  };
  static const Special specials[] = {
      {"vcc", kVcc, 2},          {"vcc_lo", kVcc, 1},
      {"vcc_hi", kVcc + 1, 1},   {"exec", kExec, 2},
      {"exec_lo", kExec, 1},     {"exec_hi", kExec + 1, 1},
      {"m0", kM0, 1},            {"flat_scratch", kFlatScratch, 2},
      {"flat_scratch_lo", kFlatScratch, 1},
      {"flat_scratch_hi", kFlatScratch + 1, 1},
      {"xnack_mask", kXnackMask, 2}, {"null", kNull, 1}};
  for (const Special &s : specials)
    if (t == s.name) {
      op.kind = Operand::Sgpr;
      op.reg = s.reg;
      op.dwords = s.dwords;
      return true;
    }
  if (t == "src_scc" || t == "scc") {
    op.kind = Operand::Scc;
    return true;
  }
  if (t == "src_execz" || t == "execz") {
    op.kind = Operand::Execz;
    return true;
  }
  if (t == "src_vccz" || t == "vccz") {
    op.kind = Operand::Vccz;
    return true;
  }
  if (t == "off") {
    op.kind = Operand::Off;
    return true;
  }
  if (t.starts_with("ttmp")) {
    error = "trap temporaries (" + t.str() + ") are not modelled";
    return false;
  }
  if (t.starts_with("s") && t.size() > 1 &&
      (isdigit(t[1]) || t[1] == '['))
    return registerRange(t.drop_front(), Operand::Sgpr);
  if (t.starts_with("v") && t.size() > 1 &&
      (isdigit(t[1]) || t[1] == '['))
    return registerRange(t.drop_front(), Operand::Vgpr);
  if (t.starts_with("a") && t.size() > 1 &&
      (isdigit(t[1]) || t[1] == '['))
    return registerRange(t.drop_front(), Operand::Agpr);
  // Constants.
  op.kind = Operand::Const;
  if (t.contains('.')) {
    double v;
    if (t.getAsDouble(v))
      return false;
    if (op.neg) { // "-4.0" parsed as neg + 4.0 above only for registers
      v = -v;
      op.neg = false;
    }
    float f = float(v);
    std::memcpy(&op.bits32, &f, 4);
    if (t == "0.15915494") { // 1/(2 pi): exact bit patterns per width
      op.bits32 = 0x3e22f983;
      op.bits64 = 0x3fc45f306dc9c882ull;
      op.bits16 = 0x3118;
    } else {
      std::memcpy(&op.bits64, &v, 8);
      op.bits16 = f32ToHalfBits(f);
    }
    op.isFloatConst = true;
    return true;
  }
  int64_t v;
  if (!parseInt(t, v))
    return false;
  if (op.neg) {
    v = -v;
    op.neg = false;
  }
  op.bits32 = uint32_t(v);
  // Inline integers sign-extend; 32-bit literals of 64-bit integer operands
  // zero-extend (what the disassembler prints is the 32-bit literal).
  op.bits64 = v < 0 ? uint64_t(v) : uint64_t(uint32_t(v));
  op.bits16 = uint16_t(v);
  return true;
}

uint8_t sdwaSel(StringRef v) {
  return StringSwitch<uint8_t>(v)
      .Case("BYTE_0", kByte0)
      .Case("BYTE_1", kByte1)
      .Case("BYTE_2", kByte2)
      .Case("BYTE_3", kByte3)
      .Case("WORD_0", kWord0)
      .Case("WORD_1", kWord1)
      .Default(kDword);
}

/// A modifier token ("offen", "offset:16", "row_shr:1", ...) into `inst`.
bool parseModifier(StringRef token, Instruction &inst, std::string &error) {
  StringRef key = token.split(':').first, value = token.split(':').second;
  int64_t n = 0;
  auto number = [&]() { return parseInt(value, n); };
  if (key == "offen")
    inst.offen = true;
  else if (key == "idxen")
    inst.idxen = true;
  else if (key == "lds")
    inst.lds = true;
  else if (key == "glc" || key == "sc0")
    inst.glc = true;
  else if (key == "slc" || key == "sc1" || key == "nt")
    inst.slc = true;
  else if (key == "clamp")
    inst.clamp = true;
  else if (key == "mul" || key == "div") {
    error = "output modifiers are not modelled";
    return false;
  } else if ((key == "offset" || key == "offset0") && number())
    inst.memOffset = int32_t(n);
  else if (key == "offset1" && number())
    inst.memOffset1 = int32_t(n);
  else if (key == "op_sel")
    inst.opSel = parseBitList(value);
  else if (key == "op_sel_hi") {
    inst.opSelHi = parseBitList(value);
    inst.opSelHiGiven = true;
  } else if (key == "neg_lo")
    inst.negLo = parseBitList(value);
  else if (key == "neg_hi")
    inst.negHi = parseBitList(value);
  else if (key == "bitop3" && number())
    inst.bitop3 = uint8_t(n);
  else if (key == "cbsz" && number())
    inst.cbsz = uint8_t(n);
  else if (key == "abid" && number())
    inst.abid = uint8_t(n);
  else if (key == "blgp" && number())
    inst.blgp = uint8_t(n);
  else if (key == "dst_sel")
    inst.dstSel = sdwaSel(value);
  else if (key == "dst_unused")
    inst.dstUnused = value == "UNUSED_SEXT"       ? kUnusedSext
                     : value == "UNUSED_PRESERVE" ? kUnusedPreserve
                                                  : kUnusedPad;
  else if (key == "src0_sel")
    inst.srcSel[0] = sdwaSel(value);
  else if (key == "src1_sel")
    inst.srcSel[1] = sdwaSel(value);
  else if (key == "row_mask" && number())
    inst.rowMask = uint8_t(n);
  else if (key == "bank_mask" && number())
    inst.bankMask = uint8_t(n);
  else if (key == "bound_ctrl")
    inst.boundCtrl = true;
  else if (key == "quad_perm") {
    SmallVector<StringRef, 4> items;
    value.trim("[]").split(items, ',');
    uint8_t perm = 0;
    for (size_t i = 0; i < items.size() && i < 4; ++i) {
      unsigned lane = 0;
      items[i].trim().getAsInteger(10, lane);
      perm |= uint8_t((lane & 3) << (2 * i));
    }
    inst.dpp = DppKind::QuadPerm;
    inst.dppValue = perm;
  } else if ((key == "row_shl" || key == "row_shr" || key == "row_ror" ||
              key == "row_newbcast") &&
             number()) {
    inst.dpp = key == "row_shl"   ? DppKind::RowShl
               : key == "row_shr" ? DppKind::RowShr
               : key == "row_ror" ? DppKind::RowRor
                                  : DppKind::RowNewBcast;
    inst.dppValue = uint8_t(n);
  } else if (key == "wave_shl")
    inst.dpp = DppKind::WaveShl;
  else if (key == "wave_rol")
    inst.dpp = DppKind::WaveRol;
  else if (key == "wave_shr")
    inst.dpp = DppKind::WaveShr;
  else if (key == "wave_ror")
    inst.dpp = DppKind::WaveRor;
  else if (key == "row_mirror")
    inst.dpp = DppKind::RowMirror;
  else if (key == "row_half_mirror")
    inst.dpp = DppKind::RowHalfMirror;
  else if (key == "row_bcast" && number())
    inst.dpp = n == 15 ? DppKind::RowBcast15 : DppKind::RowBcast31;
  else if (key.starts_with("gpr_idx(")) {
    // s_set_gpr_idx_on's mode: gpr_idx(SRC0,SRC1,SRC2,DST).
    StringRef list = token.drop_front(strlen("gpr_idx(")).drop_back();
    SmallVector<StringRef, 4> items;
    list.split(items, ',');
    for (StringRef item : items)
      inst.gprIdxMode |= StringSwitch<uint8_t>(item.trim())
                             .Case("SRC0", 1)
                             .Case("SRC1", 2)
                             .Case("SRC2", 4)
                             .Case("DST", 8)
                             .Default(0);
  } else {
    error = "unknown modifier '" + token.str() + "'";
    return false;
  }
  return true;
}

/// The mnemonic names of CmpCond's and CmpType's values, in their order
/// ("t" is also CmpCond::Tru).
constexpr StringLiteral kCmpCondNames[] = {
    "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u",
    "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru", "ne"};
constexpr StringLiteral kCmpTypeNames[] = {"f32", "f64", "f16", "i32", "u32",
                                           "i64", "u64", "i16", "u16"};
static_assert(std::size(kCmpCondNames) == size_t(CmpCond::Ne) + 1);
static_assert(std::size(kCmpTypeNames) == size_t(CmpType::U16) + 1);

/// The value of enum E whose name in `names` is `name`.
template <typename E, size_t N>
std::optional<E> byName(StringRef name, const StringLiteral (&names)[N]) {
  const StringLiteral *found = llvm::find(names, name);
  if (found == std::end(names))
    return std::nullopt;
  return E(found - names);
}

/// "v_cmp_lt_u32" -> condition and type; false if not a comparison name.
bool parseComparison(StringRef rest, Instruction &inst) {
  auto [cond, type] = rest.rsplit('_');
  std::optional<CmpCond> c =
      cond == "t" ? CmpCond::Tru : byName<CmpCond>(cond, kCmpCondNames);
  std::optional<CmpType> t = byName<CmpType>(type, kCmpTypeNames);
  if (!c || !t)
    return false;
  inst.cond = uint8_t(*c);
  inst.cmpType = uint8_t(*t);
  return true;
}

/// The mnemonic -> handler and encoding; false if no handler exists.
bool classify(StringRef mnemonic, Instruction &inst) {
  StringRef base = mnemonic;
  if (base.consume_back("_e32"))
    inst.encoding = Encoding::E32;
  else if (base.consume_back("_e64"))
    inst.encoding = Encoding::E64;
  else if (base.consume_back("_sdwa"))
    inst.encoding = Encoding::Sdwa;
  else if (base.consume_back("_dpp"))
    inst.encoding = Encoding::Dpp;
  if (base.starts_with("v_mfma_")) {
    inst.op = Op::v_mfma;
    return true;
  }
  if (base.consume_front("v_cmpx_")) {
    inst.op = Op::v_cmpx;
    return parseComparison(base, inst);
  }
  if (base.consume_front("v_cmp_")) {
    if (base.starts_with("class"))
      return false;
    inst.op = Op::v_cmp;
    return parseComparison(base, inst);
  }
  if (base.consume_front("s_cmpk_")) {
    inst.op = Op::s_cmpk;
    return parseComparison(base, inst);
  }
  if (base.consume_front("s_cmp_")) {
    inst.op = Op::s_cmp;
    return parseComparison(base, inst);
  }
  auto it = opTable().find(base);
  if (it == opTable().end())
    return false;
  inst.op = it->second;
  return true;
}

/// The bytes per lane of a memory mnemonic: those of the first of `sizes`
/// whose name it contains, else 1 (byte forms).
uint8_t accessBytes(StringRef mnemonic,
                    std::initializer_list<std::pair<StringRef, uint8_t>> sizes) {
  for (const auto &[part, bytes] : sizes)
    if (mnemonic.contains(part))
      return bytes;
  return 1;
}

/// The unit, memory form and MFMA shape of `inst` from its mnemonic, so
/// that nothing is read from text while executing.
void describe(StringRef mnemonic, Instruction &inst) {
  auto has = [&](StringRef part) { return mnemonic.contains(part); };
  MemoryForm &m = inst.memory;
  // Only LDS and vector-memory forms have d16 in their names.
  m.d16 = has("d16");
  if (mnemonic.starts_with("s_load_") ||
      mnemonic.starts_with("s_buffer_load_")) {
    inst.unit = Unit::Smem;
    m.load = true;
    m.buffer = mnemonic.starts_with("s_buffer");
  } else if (mnemonic.starts_with("s_")) {
    inst.unit = Unit::Salu;
  } else if (inst.op == Op::v_mfma) {
    inst.unit = Unit::Mfma;
    int mm = 0, nn = 0, kk = 0;
    char type[32] = {};
    if (std::sscanf(mnemonic.str().c_str(),
                    "v_mfma_f32_%dx%dx%d%*[_]%31[a-z0-9_]", &mm, &nn, &kk,
                    type) == 4 &&
        mm < 256 && nn < 256 && kk < 256) {
      inst.mfmaM = uint8_t(mm);
      inst.mfmaN = uint8_t(nn);
      inst.mfmaK = uint8_t(kk);
      inst.mfmaInput = StringSwitch<MfmaInput>(type)
                           .Case("fp8_fp8", MfmaInput::Fp8)
                           .Case("f8f6f4", MfmaInput::F8f6f4)
                           .Cases({"bf16", "bf16_1k"}, MfmaInput::Bf16)
                           .Case("f16", MfmaInput::F16)
                           .Default(MfmaInput::Unsupported);
    }
  } else if (mnemonic.starts_with("ds_")) {
    inst.unit = Unit::Lds;
    m.load = mnemonic.starts_with("ds_read");
    m.store = mnemonic.starts_with("ds_write");
    m.two = mnemonic.starts_with(m.load ? "ds_read2" : "ds_write2");
    m.st64 = has("st64");
    m.bytes = accessBytes(mnemonic, {{"b128", 16}, {"b96", 12}, {"b64", 8},
                                     {"b32", 4}, {"16", 2}});
    m.signExtend = has("_i8") || has("_i16");
  } else if (mnemonic.starts_with("buffer_") ||
             mnemonic.starts_with("global_")) {
    inst.unit = Unit::Vmem;
    m.buffer = mnemonic.starts_with("buffer_");
    m.load = has("_load_");
    m.store = has("_store_");
    m.bytes = accessBytes(mnemonic, {{"dwordx4", 16}, {"dwordx3", 12},
                                     {"dwordx2", 8}, {"dword", 4},
                                     {"short", 2}});
    m.hiHalf = has("_d16_hi");
    m.signExtend = has("_sbyte") || has("_sshort");
  } else if (inst.op == Op::v_cmp || inst.op == Op::v_cmpx) {
    inst.unit = Unit::Vcmp;
  } else {
    inst.unit = Unit::Valu;
  }
}

/// The instruction of `text` (the printer's line) at `offset`, whose first
/// word is `word0`. False with `error`.
bool parseInstruction(StringRef text, uint32_t offset, uint32_t word0,
                      Instruction &inst, std::string &error) {
  inst.text = text.str();
  inst.offset = offset;
  auto [mnemonic, rest] = text.split(' ');
  rest = rest.trim();
  if (!classify(mnemonic, inst)) {
    error = "no semantics for instruction '" + mnemonic.str() + "' (" +
            text.str() + ")";
    return false;
  }
  describe(mnemonic, inst);
  if (inst.op == Op::s_waitcnt || isSoppBranch(inst.op) ||
      inst.op == Op::s_nop || inst.op == Op::s_endpgm ||
      inst.op == Op::s_barrier || inst.op == Op::s_setprio ||
      inst.op == Op::s_sleep || inst.op == Op::s_set_gpr_idx_off) {
    inst.simm16 = word0 & 0xffff; // SOPP: read the field, not the text
    return true;
  }
  if (inst.op == Op::s_setreg_imm32_b32)
    return true; // the mode register (denormals, rounding) is not modelled
  if (inst.op == Op::s_set_gpr_idx_on) {
    SmallVector<StringRef, 6> parts = splitOperands(rest);
    if (parts.size() != 2 || !parseOperand(parts[0], inst.src[0], error) ||
        !parseModifier(parts[1], inst, error)) {
      error = "cannot read '" + text.str() + "'";
      return false;
    }
    inst.numSrc = 1;
    return true;
  }
  // Operands are comma-separated; the last one is followed by
  // space-separated modifiers.
  SmallVector<StringRef, 6> parts = splitOperands(rest);
  SmallVector<Operand, 6> operands;
  for (size_t i = 0; i < parts.size(); ++i) {
    StringRef part = parts[i];
    if (i + 1 == parts.size()) {
      // Split modifiers off, keeping "gpr_idx(...)" / "[...]" whole.
      SmallVector<StringRef, 8> tokens;
      part.split(tokens, ' ', -1, false);
      part = tokens.front();
      for (size_t k = 1; k < tokens.size(); ++k)
        if (!parseModifier(tokens[k], inst, error)) {
          error += " in '" + text.str() + "'";
          return false;
        }
      // A lone modifier after the mnemonic (no operands).
      std::string ignored;
      Operand probe;
      if (operands.empty() && !parseOperand(part, probe, ignored)) {
        if (!parseModifier(part, inst, error))
          return false;
        break;
      }
    }
    Operand op;
    if (!parseOperand(part, op, error)) {
      if (error.empty())
        error = "cannot read operand '" + part.str() + "' of '" +
                text.str() + "'";
      return false;
    }
    operands.push_back(op);
  }
  // Destinations: stores, LDS writes, s_cmp, branches and writelane-free
  // forms take none; the rest write their first operand (VOPC / carry-out
  // forms also their second).
  unsigned dsts = 1;
  StringRef name = mnemonic;
  if (name.starts_with("buffer_store") || name.starts_with("global_store") ||
      inst.lds ||
      name.starts_with("ds_write") || inst.op == Op::s_cmp ||
      inst.op == Op::s_cmpk || inst.op == Op::s_setpc_b64 ||
      (name.starts_with("ds_") && !name.starts_with("ds_read") &&
       inst.op != Op::ds_bpermute_b32 && inst.op != Op::ds_permute_b32 &&
       inst.op != Op::ds_swizzle_b32))
    dsts = 0;
  if (inst.op == Op::v_add_co_u32 || inst.op == Op::v_addc_co_u32 ||
      inst.op == Op::v_sub_co_u32 || inst.op == Op::v_subb_co_u32 ||
      inst.op == Op::v_subrev_co_u32 || inst.op == Op::v_subbrev_co_u32 ||
      inst.op == Op::v_div_scale_f32 || inst.op == Op::v_mad_u64_u32 ||
      inst.op == Op::v_mad_i64_i32)
    dsts = 2;
  if (inst.op == Op::v_cmpx && operands.size() == 2)
    dsts = 0; // gfx9 v_cmpx_*_e32 prints no destination? keep both forms
  if (dsts > operands.size()) {
    error = "too few operands in '" + text.str() + "'";
    return false;
  }
  inst.numDst = dsts;
  for (unsigned i = 0; i < dsts; ++i)
    inst.dst[i] = operands[i];
  if (operands.size() - dsts > 4) {
    error = "too many operands in '" + text.str() + "'";
    return false;
  }
  inst.numSrc = uint8_t(operands.size() - dsts);
  for (unsigned i = 0; i < inst.numSrc; ++i)
    inst.src[i] = operands[dsts + i];
  return true;
}

struct Disassembler {
  std::unique_ptr<MCRegisterInfo> registers;
  std::unique_ptr<MCAsmInfo> asmInfo;
  std::unique_ptr<MCSubtargetInfo> subtarget;
  std::unique_ptr<MCInstrInfo> instrInfo;
  std::unique_ptr<MCContext> context;
  std::unique_ptr<MCDisassembler> disassembler;
  std::unique_ptr<MCInstPrinter> printer;

  bool init(const std::string &chip, std::string &error) {
    static std::once_flag once;
    std::call_once(once, [] {
      LLVMInitializeAMDGPUTargetInfo();
      LLVMInitializeAMDGPUTargetMC();
      LLVMInitializeAMDGPUDisassembler();
    });
    Triple triple("amdgcn-amd-amdhsa");
    std::string lookupError;
    const Target *target = TargetRegistry::lookupTarget(triple, lookupError);
    if (!target) {
      error = "LLVM has no AMDGPU target: " + lookupError;
      return false;
    }
    registers.reset(target->createMCRegInfo(triple));
    MCTargetOptions options;
    asmInfo.reset(target->createMCAsmInfo(*registers, triple, options));
    subtarget.reset(target->createMCSubtargetInfo(triple, chip, ""));
    instrInfo.reset(target->createMCInstrInfo());
    if (!registers || !asmInfo || !subtarget || !instrInfo) {
      error = "cannot create the AMDGPU MC layer for " + chip;
      return false;
    }
    context = std::make_unique<MCContext>(triple, asmInfo.get(),
                                          registers.get(), subtarget.get());
    disassembler.reset(target->createMCDisassembler(*subtarget, *context));
    printer.reset(target->createMCInstPrinter(triple, 0, *asmInfo,
                                              *instrInfo, *registers));
    if (!disassembler || !printer) {
      error = "LLVM has no AMDGPU disassembler / printer";
      return false;
    }
    return true;
  }
};

/// Decodes [begin, end) of `text` (at `textAddress`) into `kernel.code`.
bool decodeKernel(Disassembler &d, ArrayRef<uint8_t> text,
                  uint64_t textAddress, uint64_t begin, uint64_t end,
                  Kernel &kernel, std::string &error) {
  DenseMap<uint64_t, int32_t> indexOf;
  for (uint64_t at = begin; at < end;) {
    MCInst mc;
    uint64_t size = 0;
    ArrayRef<uint8_t> bytes = text.slice(at - textAddress);
    if (d.disassembler->getInstruction(mc, size, bytes, at, nulls()) !=
            MCDisassembler::Success ||
        size == 0) {
      // Padding after s_endpgm (s_code_end / zeros) ends the kernel.
      if (!kernel.code.empty() && kernel.code.back().op == Op::s_endpgm)
        break;
      error = kernel.name + ": undecodable instruction at offset " +
              std::to_string(at - begin);
      return false;
    }
    std::string line;
    raw_string_ostream os(line);
    d.printer->printInst(&mc, at, "", *d.subtarget, os);
    os.flush();
    StringRef trimmed = StringRef(line).trim();
    uint32_t word0 = 0;
    std::memcpy(&word0, bytes.data(), 4);
    Instruction inst;
    if (!parseInstruction(trimmed, uint32_t(at - begin), word0, inst,
                          error)) {
      // s_code_end padding decodes as s_nop-like words; anything else
      // after the last s_endpgm is not part of the kernel either.
      error = kernel.name + " +" + std::to_string(at - begin) + ": " + error;
      return false;
    }
    inst.size = uint8_t(size);
    indexOf[at - begin] = int32_t(kernel.code.size());
    kernel.code.push_back(std::move(inst));
    at += size;
  }
  for (Instruction &inst : kernel.code) {
    if (!isSoppBranch(inst.op))
      continue;
    int64_t target =
        int64_t(inst.offset) + 4 + int64_t(int16_t(inst.simm16)) * 4;
    auto it = indexOf.find(uint64_t(target));
    if (it == indexOf.end()) {
      error = kernel.name + " +" + std::to_string(inst.offset) +
              ": branch to " + std::to_string(target) +
              ", which is no instruction of the kernel";
      return false;
    }
    inst.target = it->second;
  }
  return true;
}

} // namespace

bool readCodeObjectFile(const std::string &path, std::string &bytes) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return false;
  bytes.assign((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
  return true;
}

std::unique_ptr<CodeObject> CodeObject::load(const std::string &bytes,
                                             std::string &error) {
  auto buffer = MemoryBuffer::getMemBuffer(bytes, "code object", false);
  auto file = object::ObjectFile::createELFObjectFile(buffer->getMemBufferRef());
  if (!file) {
    error = "not an ELF code object: " + toString(file.takeError());
    return nullptr;
  }
  auto *elf = dyn_cast<object::ELF64LEObjectFile>(file->get());
  if (!elf || elf->getArch() != Triple::amdgcn) {
    error = "not an AMDGPU code object";
    return nullptr;
  }
  unsigned mach = elf->getPlatformFlags() & ELF::EF_AMDGPU_MACH;
  auto result = std::unique_ptr<CodeObject>(new CodeObject());
  if (mach == ELF::EF_AMDGPU_MACH_AMDGCN_GFX942)
    result->target = "gfx942";
  else if (mach == ELF::EF_AMDGPU_MACH_AMDGCN_GFX950)
    result->target = "gfx950";
  else {
    error = "the executor runs gfx942 and gfx950 code objects (e_flags "
            "machine " +
            std::to_string(mach) + ")";
    return nullptr;
  }
  Disassembler d;
  if (!d.init(result->target, error))
    return nullptr;

  // .text and every function symbol's extent.
  ArrayRef<uint8_t> text;
  uint64_t textAddress = 0, textEnd = 0;
  for (const object::SectionRef &section : elf->sections()) {
    Expected<StringRef> name = section.getName();
    if (name && *name == ".text") {
      Expected<StringRef> contents = section.getContents();
      if (!contents) {
        error = toString(contents.takeError());
        return nullptr;
      }
      text = arrayRefFromStringRef(*contents);
      textAddress = section.getAddress();
      textEnd = textAddress + section.getSize();
    } else if (!name) {
      consumeError(name.takeError());
    }
  }
  StringMap<std::pair<uint64_t, uint64_t>> functions; // name -> addr, size
  struct Descriptor {
    std::string kernel;
    uint64_t address;
    ArrayRef<uint8_t> bytes;
  };
  std::vector<Descriptor> descriptors;
  for (const object::ELFSymbolRef &symbol : elf->symbols()) {
    Expected<StringRef> name = symbol.getName();
    Expected<uint64_t> address = symbol.getAddress();
    if (!name || !address) {
      if (!name)
        consumeError(name.takeError());
      if (!address)
        consumeError(address.takeError());
      continue;
    }
    if (name->ends_with(".kd")) {
      Expected<object::section_iterator> section = symbol.getSection();
      if (!section || *section == elf->section_end()) {
        if (!section)
          consumeError(section.takeError());
        continue;
      }
      Expected<StringRef> contents = (*section)->getContents();
      if (!contents) {
        consumeError(contents.takeError());
        continue;
      }
      uint64_t at = *address - (*section)->getAddress();
      if (at + 64 > contents->size()) {
        error = name->str() + ": kernel descriptor outside its section";
        return nullptr;
      }
      descriptors.push_back({name->drop_back(3).str(), *address,
                             arrayRefFromStringRef(contents->substr(at, 64))});
    } else if (symbol.getELFType() == ELF::STT_FUNC) {
      functions[*name] = {*address, symbol.getSize()};
    }
  }
  if (descriptors.empty()) {
    error = "the code object has no kernel descriptor (SYMBOL.kd)";
    return nullptr;
  }
  for (const Descriptor &desc : descriptors) {
    auto kernel = std::make_unique<Kernel>();
    kernel->name = desc.kernel;
    kernel->chip = result->target;
    KernelDescriptor &kd = kernel->descriptor;
    auto u32 = [&](size_t at) {
      uint32_t v;
      std::memcpy(&v, desc.bytes.data() + at, 4);
      return v;
    };
    kd.groupSegmentBytes = u32(0);
    kd.privateSegmentBytes = u32(4);
    kd.kernargBytes = u32(8);
    std::memcpy(&kd.entryOffset, desc.bytes.data() + 16, 8);
    kd.rsrc3 = u32(44);
    kd.rsrc1 = u32(48);
    kd.rsrc2 = u32(52);
    std::memcpy(&kd.codeProperties, desc.bytes.data() + 56, 2);
    uint64_t entry = desc.address + kd.entryOffset;
    uint64_t end = textEnd;
    auto fn = functions.find(desc.kernel);
    if (fn != functions.end() && fn->second.first == entry &&
        fn->second.second > 0)
      end = entry + fn->second.second;
    if (entry < textAddress || entry >= textEnd || end > textEnd) {
      error = desc.kernel + ": code entry outside .text";
      return nullptr;
    }
    if (!decodeKernel(d, text, textAddress, entry, end, *kernel, error))
      return nullptr;
    result->all.push_back(std::move(kernel));
  }
  return result;
}

const Kernel *CodeObject::kernel(const std::string &name) const {
  for (const auto &k : all)
    if (k->name == name)
      return k.get();
  return nullptr;
}

} // namespace pa::isa
