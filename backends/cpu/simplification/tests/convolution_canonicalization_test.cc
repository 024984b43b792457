// convolution-canonicalization: JAX's gradient convolutions become the
// runtime's b01f_01io->b01f convolution between transposes, computing the
// same values; runtime-ready and unsupported convolutions stay.

#include "cpu/simplification/convolution_canonicalization.h"

#include <memory>
#include <string_view>

#include "gtest/gtest.h"
#include "hmo/codegen/convolution_plan.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/verifier/hlo_verifier.h"
#include "simplification_test_support.h"
#include "support/parsed_module.h"

namespace hmo::cpu {
namespace {

using test_support::ParseTestModule;

const HloInstruction* OnlyConvolution(const HloModule& module) {
  const HloInstruction* found = nullptr;
  for (const HloInstruction* instruction : module.entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kConvolution) {
      EXPECT_EQ(found, nullptr) << "more than one convolution";
      found = instruction;
    }
  }
  return found;
}

// The weight gradient of a 3x3 NHWC convolution, as JAX writes it.
constexpr std::string_view kWeightGradient = R"(
HloModule m
ENTRY e {
  x = f32[2,5,5,3]{3,2,1,0} parameter(0)
  dy = f32[2,5,5,4]{3,2,1,0} parameter(1)
  ROOT dw = f32[3,3,3,4]{3,2,1,0} convolution(x, dy), window={size=5x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf
}
)";

TEST(ConvolutionCanonicalizationTest, WeightGradientRunsOnTheRuntimeConvolution) {
  std::unique_ptr<HloModule> module = ParseTestModule(kWeightGradient);
  absl::StatusOr<bool> changed = testing::RunPassOn<ConvolutionCanonicalization>(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* conv = OnlyConvolution(*module);
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE(codegen::IsRuntimeConvolution2D(*conv)) << module->ToString();
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(root->shape(),
            ParseTestModule(kWeightGradient)->entry_computation()->root_instruction()->shape());
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
  EXPECT_NE(ParseTestModule(module->ToString()), nullptr);
  testing::ExpectPassKeepsValues<ConvolutionCanonicalization>(kWeightGradient);
}

TEST(ConvolutionCanonicalizationTest, InputGradientKernelIsTransposed) {
  constexpr std::string_view kText = R"(
HloModule m
ENTRY e {
  dy = f32[2,5,5,4]{3,2,1,0} parameter(0)
  w = f32[3,3,3,4]{3,2,1,0} parameter(1)
  ROOT dx = f32[2,5,5,3]{3,2,1,0} convolution(dy, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f
}
)";
  std::unique_ptr<HloModule> module = ParseTestModule(kText);
  absl::StatusOr<bool> changed = testing::RunPassOn<ConvolutionCanonicalization>(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* conv = OnlyConvolution(*module);
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE(codegen::IsRuntimeConvolution2D(*conv));
  EXPECT_EQ(conv->operand(0)->name(), "dy");  // already b01f, row-major
  EXPECT_EQ(conv->operand(1)->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(module->entry_computation()->root_instruction(), conv);  // already b01f
  testing::ExpectPassKeepsValues<ConvolutionCanonicalization>(kText);
}

TEST(ConvolutionCanonicalizationTest, RuntimeReadyBatchGroupedAndIntegerConvolutionsStay) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule m
ENTRY e {
  x = f32[2,5,5,3]{3,2,1,0} parameter(0)
  w = f32[3,3,3,4]{3,2,1,0} parameter(1)
  a = f32[2,5,5,4]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  dy = f32[2,5,5,4]{3,2,1,0} parameter(2)
  g = f32[3,3,1,4]{3,2,1,0} convolution(x, dy), window={size=5x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=2
  i = s32[2,5,5,3]{3,2,1,0} parameter(3)
  k = s32[3,3,4,3]{3,2,1,0} parameter(4)
  n = s32[2,5,5,4]{3,2,1,0} convolution(i, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f
  ROOT r = (f32[2,5,5,4]{3,2,1,0}, f32[3,3,1,4]{3,2,1,0}, s32[2,5,5,4]{3,2,1,0}) tuple(a, g, n)
}
)");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<bool> changed = testing::RunPassOn<ConvolutionCanonicalization>(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed) << module->ToString();
}

}  // namespace
}  // namespace hmo::cpu
