// transpose-folding: which transposes fold into which dot dimension numbers,
// that the dot computes the same values, and that a scheduled module stays
// scheduled.

#include "cpu/simplification/transpose_folding.h"

#include <memory>
#include <string_view>
#include <vector>

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

absl::StatusOr<bool> RunFolding(HloModule& module) {
  return testing::RunPassOn<TransposeFolding>(module);
}

const HloInstruction* Named(const HloModule& module, std::string_view name) {
  return module.entry_computation()->GetInstructionWithName(name);
}

TEST(TransposeFoldingTest, TransposedRhsBecomesContractingDimensionOne) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule m, is_scheduled=true
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  w = f32[4,3]{1,0} parameter(1)
  t = f32[3,4]{0,1} transpose(w), dimensions={1,0}
  ROOT d = f32[2,4]{1,0} dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  absl::StatusOr<bool> changed = RunFolding(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* dot = Named(*module, "d");
  EXPECT_EQ(dot->operand(1)->name(), "w");
  EXPECT_EQ(dot->dot_dimension_numbers().rhs_contracting_dimensions, std::vector<int64_t>{1});
  EXPECT_EQ(Named(*module, "t"), nullptr);  // unused, removed
  EXPECT_TRUE(module->schedule().Verify().ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
}

TEST(TransposeFoldingTest, BatchedLhsKeepsItsValues) {
  // The lhs folds to [batch, contracting, free]: a transposed GEMM operand.
  constexpr std::string_view kText = R"(
HloModule m
ENTRY e {
  a = f32[2,4,3]{2,1,0} parameter(0)
  t = f32[2,3,4]{2,1,0} transpose(a), dimensions={0,2,1}
  b = f32[2,4,5]{2,1,0} parameter(1)
  ROOT d = f32[2,3,5]{2,1,0} dot(t, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}
)";
  std::unique_ptr<HloModule> folded = ParseTestModule(kText);
  absl::StatusOr<bool> changed = RunFolding(*folded);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const DotDimensionNumbers& numbers = Named(*folded, "d")->dot_dimension_numbers();
  EXPECT_EQ(numbers.lhs_batch_dimensions, std::vector<int64_t>{0});
  EXPECT_EQ(numbers.lhs_contracting_dimensions, std::vector<int64_t>{1});
  EXPECT_TRUE(codegen::GemmPlanFor(*Named(*folded, "d")).has_value());
  ASSERT_TRUE(VerifyHloModule(*folded).ok()) << folded->ToString();
  testing::ExpectPassKeepsValues<TransposeFolding>(kText);
}

TEST(TransposeFoldingTest, FoldThatWouldLoseTheGemmStays) {
  // Folded, the batch dimension would be the lhs's second: no GEMM plan.
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule m
ENTRY e {
  a = f32[3,2,4]{2,1,0} parameter(0)
  t = f32[2,3,4]{2,1,0} transpose(a), dimensions={1,0,2}
  b = f32[2,4,5]{2,1,0} parameter(1)
  ROOT d = f32[2,3,5]{2,1,0} dot(t, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}
)");
  absl::StatusOr<bool> changed = RunFolding(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(Named(*module, "d")->operand(0)->name(), "t");
}

TEST(TransposeFoldingTest, TransposeReorderingFreeDimensionsOrWithOtherUsersStays) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule m
ENTRY e {
  a = f32[4,3,2]{2,1,0} parameter(0)
  t = f32[2,3,4]{2,1,0} transpose(a), dimensions={2,1,0}
  b = f32[3,5]{1,0} parameter(1)
  d = f32[2,4,5]{2,1,0} dot(t, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  w = f32[5,3]{1,0} parameter(2)
  u = f32[3,5]{1,0} transpose(w), dimensions={1,0}
  x = f32[2,3]{1,0} parameter(3)
  e = f32[2,5]{1,0} dot(x, u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[2,4,5]{2,1,0}, f32[2,5]{1,0}, f32[3,5]{1,0}) tuple(d, e, u)
}
)");
  absl::StatusOr<bool> changed = RunFolding(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  // t's free dimensions 0 and 2 would swap in the dot's output: not folded.
  EXPECT_EQ(Named(*module, "d")->operand(0)->name(), "t");
  // u folds into e, and stays for the tuple.
  EXPECT_EQ(Named(*module, "e")->operand(1)->name(), "w");
  EXPECT_NE(Named(*module, "u"), nullptr);
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
}

}  // namespace
}  // namespace hmo::cpu
