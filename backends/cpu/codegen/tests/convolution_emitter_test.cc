// convolution: the runtime NHWC/HWIO path and the general loop nest (other
// dim_labels, 1-D and 3-D, dilations, groups, batch groups, integers),
// against hand-computed values and the evaluator.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "op_emitter_test_support.h"

namespace hmo::cpu {
namespace {

using ::hmo::cpu::testing::AsDoubles;
using ::hmo::cpu::testing::CompileAndRun;
using ::hmo::cpu::testing::ExpectMatchesEvaluator;
using ::hmo::cpu::testing::GeneratedIr;
using ::hmo::cpu::testing::ParseOrFail;

TEST(ConvolutionEmitterTest, OneDimensionalHandComputed) {
  // [1,2,3,4] * [1,10] with one zero of padding each side.
  auto module = ParseOrFail(R"(
HloModule m
ENTRY e {
  x = f32[1,4,1] constant({{{1}, {2}, {3}, {4}}})
  k = f32[2,1,1] constant({{{1}}, {{10}}})
  ROOT c = f32[1,5,1] convolution(x, k), window={size=2 pad=1_1}, dim_labels=b0f_0io->b0f
}
)");
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(AsDoubles(*result), (std::vector<double>{10, 21, 32, 43, 4}));
}

TEST(ConvolutionEmitterTest, NhwcUsesTheRuntime) {
  const char* text = R"(
HloModule m
ENTRY e {
  x = f32[2,7,6,4] parameter(0)
  k = f32[3,3,4,5] parameter(1)
  ROOT c = f32[2,4,3,5] convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}
)";
  ExpectMatchesEvaluator(text);
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EXPECT_NE(GeneratedIr(*module).find("__hmo_cpu_conv2d_f32"), std::string::npos);
}

TEST(ConvolutionEmitterTest, DepthwiseThroughRuntime) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  x = f32[1,5,5,3] parameter(0)
  k = f32[3,3,1,3] parameter(1)
  ROOT c = f32[1,5,5,3] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=3
}
)");
}

TEST(ConvolutionEmitterTest, NchwLoopsWithDilations) {
  const char* text = R"(
HloModule m
ENTRY e {
  x = f32[2,3,6,7] parameter(0)
  k = f32[4,3,2,3] parameter(1)
  ROOT c = f32[2,4,11,5] convolution(x, k), window={size=2x3 pad=0_1x1_1 lhs_dilate=2x1 rhs_dilate=1x2}, dim_labels=bf01_oi01->bf01
}
)";
  ExpectMatchesEvaluator(text);
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(GeneratedIr(*module).find("__hmo_cpu_conv2d_f32"), std::string::npos);
}

TEST(ConvolutionEmitterTest, FeatureGroupsAndReversal) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  x = f32[1,8,4] parameter(0)
  k = f32[3,2,6] parameter(1)
  ROOT c = f32[1,6,6] convolution(x, k), window={size=3 rhs_reversal=1}, dim_labels=b0f_0io->b0f, feature_group_count=2
}
)");
}

TEST(ConvolutionEmitterTest, BatchGroups) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  x = f32[4,5,5,2] parameter(0)
  k = f32[2,2,2,6] parameter(1)
  ROOT c = f32[2,4,4,6] convolution(x, k), window={size=2x2}, dim_labels=b01f_01io->b01f, batch_group_count=2
}
)");
}

TEST(ConvolutionEmitterTest, ThreeDimensionalF64AndIntegers) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  x = f64[1,4,4,4,2] parameter(0)
  k = f64[2,2,2,2,3] parameter(1)
  c = f64[1,3,3,3,3] convolution(x, k), window={size=2x2x2}, dim_labels=b012f_012io->b012f
  xi = s32[1,6,2] parameter(2)
  ki = s32[3,2,2] parameter(3)
  ci = s32[1,4,2] convolution(xi, ki), window={size=3}, dim_labels=b0f_0io->b0f
  ROOT t = (f64[1,3,3,3,3], s32[1,4,2]) tuple(c, ci)
}
)");
}

}  // namespace
}  // namespace hmo::cpu
