//===- NontemporalLoadsTest.cpp - lowerNontemporalGlobalLoads -------------===//
//
// Which loads become inline `ld.global.L1::no_allocate`, and the split of
// their addresses into a shared base and a constant in the PTX text.
//
//===----------------------------------------------------------------------===//
#include "pa/Target/NVIDIA/NontemporalLoads.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace {

struct AsmLoad {
  std::string text;
  Value *address;
};

class NontemporalLoadsTest : public ::testing::Test {
protected:
  /// Parses `body` as the function @k(ptr %p, i64 %x, i64 %y), rewrites
  /// it and returns its inline-asm loads in order.
  std::vector<AsmLoad> lower(StringRef body) {
    std::string text = ("define void @k(ptr %p, i64 %x, i64 %y, "
                        "ptr addrspace(3) %s) {\n" +
                        body + "\n  ret void\n}\n!0 = !{i32 1}\n")
                           .str();
    SMDiagnostic error;
    module = parseAssemblyString(text, error, context);
    if (!module) {
      std::string message;
      raw_string_ostream os(message);
      error.print("test", os);
      ADD_FAILURE() << message;
      return {};
    }
    mlir::pa::nvidia::lowerNontemporalGlobalLoads(*module);
    std::string broken;
    raw_string_ostream os(broken);
    EXPECT_FALSE(verifyModule(*module, &os)) << broken;
    std::vector<AsmLoad> loads;
    for (Instruction &instruction : instructions(*module->getFunction("k")))
      if (auto *call = dyn_cast<CallInst>(&instruction))
        if (auto *asmText = dyn_cast<InlineAsm>(call->getCalledOperand()))
          loads.push_back(
              {asmText->getAsmString().str(), call->getArgOperand(0)});
    return loads;
  }
  size_t plainLoads() {
    size_t count = 0;
    for (Instruction &instruction : instructions(*module->getFunction("k")))
      count += isa<LoadInst>(instruction);
    return count;
  }

  LLVMContext context;
  std::unique_ptr<Module> module;
};

TEST_F(NontemporalLoadsTest, ConstantOffsetsGoIntoTheTextAndShareTheBase) {
  // As O3 leaves the packed K chunks: row + (lane << 4) and
  // row + ((lane | 8) << 4), then a constant GEP and a subtraction.
  std::vector<AsmLoad> loads = lower(R"(
  %row = getelementptr i8, ptr %p, i64 %x
  %a = shl nuw nsw i64 %y, 4
  %p0 = getelementptr i8, ptr %row, i64 %a
  %v0 = load <4 x i32>, ptr %p0, align 16, !nontemporal !0
  %o = or disjoint i64 %y, 8
  %b = shl nuw nsw i64 %o, 4
  %p1 = getelementptr i8, ptr %row, i64 %b
  %v1 = load <8 x i16>, ptr %p1, align 16, !nontemporal !0
  %p2 = getelementptr i8, ptr %p0, i64 512
  %v2 = load <16 x i8>, ptr %p2, align 16, !nontemporal !0
  %c = sub i64 %a, 8
  %p3 = getelementptr i8, ptr %row, i64 %c
  %v3 = load <2 x i32>, ptr %p3, align 8, !nontemporal !0
  %d = add i64 %a, 3
  %p4 = getelementptr i32, ptr %row, i64 %d
  %v4 = load i32, ptr %p4, align 4, !nontemporal !0)");
  ASSERT_EQ(loads.size(), 5u);
  EXPECT_EQ(loads[0].text,
            "ld.global.L1::no_allocate.v4.b32 {$0, $1, $2, $3}, [$4];");
  EXPECT_EQ(loads[1].text,
            "ld.global.L1::no_allocate.v4.b32 {$0, $1, $2, $3}, [$4+128];");
  EXPECT_EQ(loads[2].text,
            "ld.global.L1::no_allocate.v4.b32 {$0, $1, $2, $3}, [$4+512];");
  EXPECT_EQ(loads[3].text,
            "ld.global.L1::no_allocate.v2.b32 {$0, $1}, [$2+-8];");
  EXPECT_EQ(loads[4].text, "ld.global.L1::no_allocate.b32 $0, [$1+12];");
  // The first four share one global address (the kernel's own
  // `shl %y, 4` is found, not made again); the i32 GEP scales %a by 4.
  for (int i = 1; i < 4; ++i)
    EXPECT_EQ(loads[i].address, loads[0].address) << "load " << i;
  EXPECT_NE(loads[4].address, loads[0].address);
  EXPECT_EQ(loads[0].address->getType()->getPointerAddressSpace(), 1u);
  EXPECT_EQ(plainLoads(), 0u);
}

TEST_F(NontemporalLoadsTest, OtherLoadsStayLoads) {
  std::vector<AsmLoad> loads = lower(R"(
  %plain = load <4 x i32>, ptr %p, align 16
  %shared = load <4 x i32>, ptr addrspace(3) %s, align 16, !nontemporal !0
  %unaligned = load <4 x i32>, ptr %p, align 4, !nontemporal !0
  %twelve = load <3 x i32>, ptr %p, align 16, !nontemporal !0
  %volatile = load volatile <4 x i32>, ptr %p, align 16, !nontemporal !0
  %global = addrspacecast ptr %p to ptr addrspace(1)
  %g = load <4 x i32>, ptr addrspace(1) %global, align 16, !nontemporal !0)");
  ASSERT_EQ(loads.size(), 1u); // the global one
  EXPECT_EQ(loads[0].text,
            "ld.global.L1::no_allocate.v4.b32 {$0, $1, $2, $3}, [$4];");
  EXPECT_EQ(plainLoads(), 5u);
}

TEST_F(NontemporalLoadsTest, OffsetsBeyondThirtyTwoBitsStayInTheRegister) {
  std::vector<AsmLoad> loads = lower(R"(
  %far = getelementptr i8, ptr %p, i64 4294967296
  %v = load <4 x i32>, ptr %far, align 16, !nontemporal !0)");
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].text,
            "ld.global.L1::no_allocate.v4.b32 {$0, $1, $2, $3}, [$4];");
}

TEST_F(NontemporalLoadsTest, SplitsAreNotSharedAcrossBlocks) {
  // The base made for the first block's load does not dominate the
  // second block's: the verifier (in lower) would refuse the module.
  std::vector<AsmLoad> loads = lower(R"(
  %o = or disjoint i64 %y, 8
  %b = shl i64 %o, 4
  %p1 = getelementptr i8, ptr %p, i64 %b
  %c = icmp eq i64 %x, 0
  br i1 %c, label %then, label %else
then:
  %v1 = load <4 x i32>, ptr %p1, align 16, !nontemporal !0
  br label %else
else:
  %v2 = load <4 x i32>, ptr %p1, align 16, !nontemporal !0)");
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].text,
            "ld.global.L1::no_allocate.v4.b32 {$0, $1, $2, $3}, [$4+128];");
  EXPECT_EQ(loads[1].text, loads[0].text);
}

} // namespace
