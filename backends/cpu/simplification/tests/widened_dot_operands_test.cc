// NarrowWidenedDotOperands: which widenings of 16-bit values into f32 dot
// operands are narrowed (fusions ending in a widening after data movement,
// plain converts, operands shared by two dots), which stay (a widening read
// by something else, or beside an f32 operand that widens nothing), and that
// the rewritten module computes what the original did.

#include "cpu/simplification/widened_dot_operands.h"

#include <memory>
#include <string_view>

#include "gtest/gtest.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/hlo_verifier.h"
#include "simplification_test_support.h"
#include "support/parsed_module.h"

namespace hmo::cpu {
namespace {

using test_support::ParseTestModule;

const HloInstruction* Find(const HloModule& module, std::string_view name) {
  for (const HloInstruction* instruction : module.entry_computation()->instructions()) {
    if (instruction->name() == name) return instruction;
  }
  return nullptr;
}

int64_t CountOpcode(const HloComputation& computation, HloOpcode opcode) {
  int64_t count = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    count += instruction->opcode() == opcode ? 1 : 0;
  }
  return count;
}

// As XLA:CPU's optimized modules have them: `fa` transposes a bf16 value
// after widening it, `fb` rounds to bf16 and widens again; the output
// fusion `d1` multiplies them, the dot `d2` multiplies `fb` (its second
// reader) with a plain convert of a bf16 parameter.
constexpr std::string_view kNarrowed = R"(
HloModule narrowed, is_scheduled=true
fused_a {
  a = bf16[32,64]{1,0} parameter(0)
  c = f32[32,64]{1,0} convert(a)
  t = f32[64,32]{0,1} transpose(c), dimensions={1,0}
  ROOT k = f32[64,32]{1,0} copy(t)
}
fused_b {
  b = f32[32,48]{1,0} parameter(0)
  s = f32[32,48]{1,0} multiply(b, b)
  n = bf16[32,48]{1,0} convert(s)
  ROOT w = f32[32,48]{1,0} convert(n)
}
dot_fusion {
  x = f32[64,32]{1,0} parameter(0)
  y = f32[32,48]{1,0} parameter(1)
  ROOT d = f32[64,48]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  a = bf16[32,64]{1,0} parameter(0)
  b = f32[32,48]{1,0} parameter(1)
  c = bf16[48,16]{1,0} parameter(2)
  fa = f32[64,32]{1,0} fusion(a), kind=kLoop, calls=fused_a
  fb = f32[32,48]{1,0} fusion(b), kind=kLoop, calls=fused_b
  d1 = f32[64,48]{1,0} fusion(fa, fb), kind=kOutput, calls=dot_fusion
  cw = f32[48,16]{1,0} convert(c)
  d2 = f32[32,16]{1,0} dot(fb, cw), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[64,48]{1,0}, f32[32,16]{1,0}) tuple(d1, d2)
}
)";

TEST(WidenedDotOperandsTest, WideningsReadOnlyByDotsReadTheNarrowValues) {
  std::unique_ptr<HloModule> module = ParseTestModule(kNarrowed);
  absl::StatusOr<int64_t> narrowed = NarrowWidenedDotOperands(*module);
  ASSERT_TRUE(narrowed.ok()) << narrowed.status();
  EXPECT_EQ(*narrowed, 3);
  // fa transposes and copies bf16 values; no convert is left in it.
  const HloInstruction* fa = Find(*module, "fa");
  ASSERT_NE(fa, nullptr);
  EXPECT_EQ(fa->shape().element_type(), PrimitiveType::BF16);
  EXPECT_EQ(CountOpcode(*fa->fused_instructions_computation(), HloOpcode::kConvert), 0);
  EXPECT_EQ(fa->fused_expression_root()->shape().element_type(), PrimitiveType::BF16);
  // fb keeps its rounding convert and drops the widening one.
  const HloInstruction* fb = Find(*module, "fb");
  ASSERT_NE(fb, nullptr);
  EXPECT_EQ(fb->shape().element_type(), PrimitiveType::BF16);
  EXPECT_EQ(fb->fused_expression_root()->opcode(), HloOpcode::kConvert);
  // The plain convert is gone: d2 reads c itself.
  EXPECT_EQ(Find(*module, "cw"), nullptr);
  const HloInstruction* d2 = Find(*module, "d2");
  ASSERT_NE(d2, nullptr);
  EXPECT_EQ(d2->operand(1)->name(), "c");
  EXPECT_EQ(d2->shape().element_type(), PrimitiveType::F32);
  // The output fusion's dot reads bf16 parameters into its f32 product.
  const HloInstruction* d1 = Find(*module, "d1");
  ASSERT_NE(d1, nullptr);
  EXPECT_EQ(d1->fused_parameter(0)->shape().element_type(), PrimitiveType::BF16);
  EXPECT_EQ(d1->fused_parameter(1)->shape().element_type(), PrimitiveType::BF16);
  EXPECT_EQ(d1->shape().element_type(), PrimitiveType::F32);
  EXPECT_TRUE(module->schedule().Verify().ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
  testing::ExpectRewriteKeepsValues(
      kNarrowed, [](HloModule& m) { return NarrowWidenedDotOperands(m).status(); });
}

// `wa` is also negated, so it stays f32, and with it `wb`, the other
// operand of its dot; the dot of `wc` reads an f32 parameter beside it, so
// `wc` stays too.
TEST(WidenedDotOperandsTest, WideningsWithOtherReadersOrF32PartnersStay) {
  constexpr std::string_view kKept = R"(
HloModule kept
ENTRY e {
  a = bf16[16,16]{1,0} parameter(0)
  b = bf16[16,16]{1,0} parameter(1)
  c = f16[16,16]{1,0} parameter(2)
  x = f32[16,16]{1,0} parameter(3)
  wa = f32[16,16]{1,0} convert(a)
  wb = f32[16,16]{1,0} convert(b)
  wc = f32[16,16]{1,0} convert(c)
  d1 = f32[16,16]{1,0} dot(wa, wb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[16,16]{1,0} negate(wa)
  d2 = f32[16,16]{1,0} dot(wc, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[16,16]{1,0}, f32[16,16]{1,0}, f32[16,16]{1,0}) tuple(d1, n, d2)
}
)";
  std::unique_ptr<HloModule> module = ParseTestModule(kKept);
  absl::StatusOr<int64_t> narrowed = NarrowWidenedDotOperands(*module);
  ASSERT_TRUE(narrowed.ok()) << narrowed.status();
  EXPECT_EQ(*narrowed, 0);
  for (const char* name : {"wa", "wb", "wc"}) EXPECT_NE(Find(*module, name), nullptr) << name;
}

// A dot of a bf16 and an f16 widening: no GEMM takes both, both stay.
TEST(WidenedDotOperandsTest, MixedHalfFloatWideningsStay) {
  constexpr std::string_view kMixed = R"(
HloModule mixed
ENTRY e {
  a = bf16[16,16]{1,0} parameter(0)
  c = f16[16,16]{1,0} parameter(1)
  wa = f32[16,16]{1,0} convert(a)
  wc = f32[16,16]{1,0} convert(c)
  ROOT d = f32[16,16]{1,0} dot(wa, wc), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
  std::unique_ptr<HloModule> module = ParseTestModule(kMixed);
  absl::StatusOr<int64_t> narrowed = NarrowWidenedDotOperands(*module);
  ASSERT_TRUE(narrowed.ok()) << narrowed.status();
  EXPECT_EQ(*narrowed, 0);
}

}  // namespace
}  // namespace hmo::cpu
