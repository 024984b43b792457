// dot-canonicalization: which dots become runtime GEMMs (bf16/f16 GEMMs into
// f32 narrowed after, converts around a mixed one, transposes on operands
// out of GEMM order), which stay, and
// that the rewritten module computes what the original did.

#include "cpu/simplification/dot_canonicalization.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hmo/codegen/gemm_plan.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/verifier/hlo_verifier.h"
#include "simplification_test_support.h"
#include "support/parsed_module.h"

namespace hmo::cpu {
namespace {

using test_support::ParseTestModule;

absl::StatusOr<bool> RunCanonicalization(HloModule& module) {
  return testing::RunPassOn<DotCanonicalization>(module);
}

// The one dot left in the entry computation.
const HloInstruction* OnlyDot(const HloModule& module) {
  const HloInstruction* found = nullptr;
  for (const HloInstruction* instruction : module.entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kDot) {
      EXPECT_EQ(found, nullptr) << "more than one dot";
      found = instruction;
    }
  }
  return found;
}

// A bf16 (or f16) dot keeps its 16-bit operands (no f32 copies) and becomes
// the bf16 (f16) GEMM's f32 product, narrowed back by a convert.
void ExpectNarrowGemmIntoF32NarrowedAfter(std::string_view type,
                                          codegen::GemmElementTypes gemm_types) {
  const std::string text = absl::StrReplaceAll(R"(
HloModule m, is_scheduled=true
ENTRY e {
  x = T[64,16]{1,0} parameter(0)
  w = T[16,64]{1,0} parameter(1)
  ROOT d = T[64,64]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                                               {{"T[", std::string(type) + "["}});
  std::unique_ptr<HloModule> module = ParseTestModule(text);
  absl::StatusOr<bool> changed = RunCanonicalization(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kConvert);
  EXPECT_EQ(root->shape().element_type(),
            module->entry_computation()->parameter_instruction(0)->shape().element_type());
  const HloInstruction* dot = OnlyDot(*module);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->shape().element_type(), PrimitiveType::F32);
  EXPECT_EQ(dot->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(dot->operand(1)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(codegen::RuntimeGemmElementTypes(*dot), gemm_types);
  EXPECT_TRUE(codegen::GemmPlanFor(*dot).has_value());
  EXPECT_TRUE(module->schedule().Verify().ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
  testing::ExpectPassKeepsValues<DotCanonicalization>(text);
}

TEST(DotCanonicalizationTest, Bf16DotIsABf16GemmIntoF32NarrowedAfter) {
  ExpectNarrowGemmIntoF32NarrowedAfter("bf16", codegen::GemmElementTypes::kBf16ToF32);
}

TEST(DotCanonicalizationTest, F16DotIsAnF16GemmIntoF32NarrowedAfter) {
  ExpectNarrowGemmIntoF32NarrowedAfter("f16", codegen::GemmElementTypes::kF16ToF32);
}

// A weight cast to bf16 once and read by two dots (forward and backward) is
// cast again for one of them: each dot reads a cast of its own, which the
// scheduler places next to it, instead of one cast live from the first dot
// to the last.
TEST(DotCanonicalizationTest, ASharedWeightCastIsCastAgainForEachDot) {
  constexpr std::string_view kText = R"(
HloModule m
ENTRY e {
  w = f32[64,64]{1,0} parameter(0)
  x = bf16[64,64]{1,0} parameter(1)
  g = bf16[64,64]{1,0} parameter(2)
  w16 = bf16[64,64]{1,0} convert(w)
  y = bf16[64,64]{1,0} dot(x, w16), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dx = bf16[64,64]{1,0} dot(g, w16), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ROOT r = (bf16[64,64]{1,0}, bf16[64,64]{1,0}) tuple(y, dx)
}
)";
  std::unique_ptr<HloModule> module = ParseTestModule(kText);
  absl::StatusOr<bool> changed = RunCanonicalization(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  std::vector<const HloInstruction*> casts;
  for (const HloInstruction* instruction : module->entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kDot) continue;
    EXPECT_EQ(codegen::RuntimeGemmElementTypes(*instruction),
              codegen::GemmElementTypes::kBf16ToF32);
    const HloInstruction* cast = instruction->operand(1);
    ASSERT_EQ(cast->opcode(), HloOpcode::kConvert) << module->ToString();
    EXPECT_EQ(cast->operand(0)->name(), "w");
    EXPECT_EQ(cast->user_count(), 1) << module->ToString();
    casts.push_back(cast);
  }
  ASSERT_EQ(casts.size(), 2u);
  EXPECT_NE(casts[0], casts[1]);
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
  testing::ExpectPassKeepsValues<DotCanonicalization>(kText);
}

// A dot mixing f16 and bf16 (no GEMM takes both) is an f32 GEMM between
// converts.
TEST(DotCanonicalizationTest, MixedHalfFloatDotIsAnF32GemmBetweenConverts) {
  constexpr std::string_view kText = R"(
HloModule m, is_scheduled=true
ENTRY e {
  x = f16[64,16]{1,0} parameter(0)
  w = bf16[16,64]{1,0} parameter(1)
  ROOT d = f16[64,64]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
  std::unique_ptr<HloModule> module = ParseTestModule(kText);
  absl::StatusOr<bool> changed = RunCanonicalization(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kConvert);
  EXPECT_EQ(root->shape().element_type(), PrimitiveType::F16);
  const HloInstruction* dot = OnlyDot(*module);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->shape().element_type(), PrimitiveType::F32);
  EXPECT_EQ(dot->operand(0)->opcode(), HloOpcode::kConvert);
  EXPECT_EQ(dot->operand(1)->opcode(), HloOpcode::kConvert);
  EXPECT_EQ(codegen::RuntimeGemmElementTypes(*dot), codegen::GemmElementTypes::kF32);
  EXPECT_TRUE(codegen::GemmPlanFor(*dot).has_value());
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
  testing::ExpectPassKeepsValues<DotCanonicalization>(kText);
}

// For f32 operands, and for bf16 operands into f32 (JAX's
// preferred_element_type: the bf16 GEMM, the transpose in bf16).
TEST(DotCanonicalizationTest, BatchDimensionsNotMajorAreTransposedIntoGemmOrder) {
  for (const char* operand_type : {"f32", "bf16"}) {
    SCOPED_TRACE(operand_type);
    // The batch dimension of the lhs is not its major one.
    const std::string text = absl::StrReplaceAll(R"(
HloModule m
ENTRY e {
  a = $T[32,2,16]{2,1,0} parameter(0)
  b = $T[2,16,64]{2,1,0} parameter(1)
  ROOT d = f32[2,32,64]{2,1,0} dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}
)",
                                                 {{"$T", operand_type}});
    std::unique_ptr<HloModule> module = ParseTestModule(text);
    ASSERT_FALSE(codegen::GemmPlanFor(*OnlyDot(*module)).has_value());
    absl::StatusOr<bool> changed = RunCanonicalization(*module);
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_TRUE(*changed);
    const HloInstruction* dot = OnlyDot(*module);
    ASSERT_NE(dot, nullptr);
    EXPECT_EQ(dot->operand(0)->opcode(), HloOpcode::kTranspose);
    EXPECT_EQ(dot->operand(0)->shape().element_type(),
              dot->operand(1)->shape().element_type());  // no convert
    EXPECT_EQ(dot->operand(0)->dimensions(), (std::vector<int64_t>{1, 0, 2}));
    EXPECT_EQ(dot->operand(1)->name(), "b");  // already [batch, contracting, free]
    EXPECT_EQ(dot->dot_dimension_numbers().lhs_batch_dimensions, std::vector<int64_t>{0});
    EXPECT_EQ(dot->dot_dimension_numbers().lhs_contracting_dimensions, std::vector<int64_t>{2});
    EXPECT_TRUE(codegen::GemmPlanFor(*dot).has_value());
    EXPECT_TRUE(codegen::RuntimeGemmElementTypes(*dot).has_value());
    EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
    // The transpose prints with its dimensions: the text parses back.
    EXPECT_NE(ParseTestModule(module->ToString()), nullptr);
    testing::ExpectPassKeepsValues<DotCanonicalization>(text);
  }
}

// Dots already in GEMM form (f32, and s8 into s32), a transposed result
// and a matrix-vector product stay as they are.
TEST(DotCanonicalizationTest, GemmFormTransposedResultAndMatrixVectorDotsStay) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule m
ENTRY e {
  x = f32[4,3]{1,0} parameter(0)
  w = f32[5,3]{1,0} parameter(1)
  g = f32[4,5]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  i = s8[4,3]{1,0} parameter(2)
  j = s8[3,5]{1,0} parameter(3)
  n = s32[4,5]{1,0} dot(i, j), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[32,2,16]{2,1,0} parameter(4)
  b = f32[2,16,64]{2,1,0} parameter(5)
  t = f32[2,32,64]{1,2,0} dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  v = bf16[1,50]{1,0} parameter(6)
  m = bf16[50,128]{1,0} parameter(7)
  mv = bf16[1,128]{1,0} dot(v, m), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[4,5]{1,0}, s32[4,5]{1,0}, f32[2,32,64]{1,2,0}, bf16[1,128]{1,0}) tuple(g, n, t, mv)
}
)");
  absl::StatusOr<bool> changed = RunCanonicalization(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed) << module->ToString();
}

TEST(DotCanonicalizationTest, TransposedProductBecomesTheSwappedProduct) {
  // JAX's weight gradient: the transpose is laid out as the dot's own bytes.
  constexpr std::string_view kText = R"(
HloModule m
ENTRY e {
  g = f32[64,48]{1,0} parameter(0)
  x = f32[64,32]{1,0} parameter(1)
  d = f32[48,32]{1,0} dot(g, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  t = f32[32,48]{0,1} transpose(d), dimensions={1,0}
  acc = f32[32,48]{1,0} parameter(2)
  ROOT s = f32[32,48]{1,0} add(acc, t)
}
)";
  std::unique_ptr<HloModule> module = ParseTestModule(kText);
  absl::StatusOr<bool> changed = RunCanonicalization(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* dot = OnlyDot(*module);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->operand(0)->name(), "x");
  EXPECT_EQ(dot->operand(1)->name(), "g");
  EXPECT_EQ(dot->shape().dimensions(), (std::vector<int64_t>{32, 48}));
  EXPECT_TRUE(codegen::GemmPlanFor(*dot).has_value());
  EXPECT_EQ(module->entry_computation()->root_instruction()->operand(1), dot);
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
  testing::ExpectPassKeepsValues<DotCanonicalization>(kText);
}

TEST(DotCanonicalizationTest, TransposedProductReadByANonElementwiseUserStays) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule m
ENTRY e {
  g = f32[64,48]{1,0} parameter(0)
  x = f32[64,32]{1,0} parameter(1)
  d = f32[48,32]{1,0} dot(g, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  t = f32[32,48]{0,1} transpose(d), dimensions={1,0}
  ROOT r = (f32[32,48]{0,1}) tuple(t)
}
)");
  absl::StatusOr<bool> changed = RunCanonicalization(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed) << module->ToString();
}

}  // namespace
}  // namespace hmo::cpu
