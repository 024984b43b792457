// topk, XLA:CPU's TopK custom call and select-and-scatter (the max-pool
// gradient) against hand-computed values (ties, NaN, overlapping windows,
// padding) and the evaluator.

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "op_emitter_test_support.h"

namespace hmo::cpu {
namespace {

using ::hmo::cpu::testing::AsDoubles;
using ::hmo::cpu::testing::CompileAndRun;
using ::hmo::cpu::testing::ExpectMatchesEvaluator;
using ::hmo::cpu::testing::ParseOrFail;

TEST(TopKEmitterTest, LargestFirstTiesInIndexOrderNanOnTop) {
  auto module = ParseOrFail(R"(
HloModule m
ENTRY e {
  x = f32[2,6] constant({{3, 1, 3, -1, 7, 3}, {nan, 2, -inf, 5, 2, 0}})
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
}
)");
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  const std::vector<double> values = AsDoubles(result->tuple_elements()[0]);
  EXPECT_EQ(std::vector<double>(values.begin(), values.begin() + 3), (std::vector<double>{7, 3, 3}));
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_EQ(values[4], 5);
  EXPECT_EQ(values[5], 2);
  EXPECT_EQ(AsDoubles(result->tuple_elements()[1]), (std::vector<double>{4, 0, 2, 0, 3, 1}));
}

TEST(TopKEmitterTest, SmallestFirst) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  x = s32[4,33] parameter(0)
  ROOT t = (s32[4,5], s32[4,5]) topk(x), k=5, largest=false
}
)");
}

TEST(TopKEmitterTest, CustomCallWithIndexComparatorMatchesEvaluator) {
  ExpectMatchesEvaluator(R"(
HloModule m
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ia = s32[] parameter(2)
  ib = s32[] parameter(3)
  ROOT c = pred[] compare(a, b), direction=GT
}
ENTRY e {
  x = f32[8,40] parameter(0)
  ROOT t = (f32[8,6], s32[8,6]) custom-call(x), custom_call_target="TopK", called_computations={gt}
}
)");
}

// A max-pool gradient's select (first of equal maxima) and scatter (sum).
constexpr char kPoolComputations[] = R"(
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}
)";

const std::string kMaxPoolGradient = R"(
HloModule m
)" + std::string(kPoolComputations) + R"(
ENTRY e {
  x = f32[5] constant({1, 5, 5, 2, 8})
  src = f32[4] constant({10, 20, 30, 40})
  z = f32[] constant(0)
  ROOT s = f32[5] select-and-scatter(x, src, z), window={size=2 stride=1}, select=ge, scatter=add
}
)";

TEST(SelectAndScatterEmitterTest, OverlappingWindowsAddIntoTheFirstMaximum) {
  auto module = ParseOrFail(kMaxPoolGradient);
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  // Windows [1,5] [5,5] [5,2] [2,8] pick elements 1, 1 (ge keeps the first
  // of equal maxima), 2 and 4.
  EXPECT_EQ(AsDoubles(*result), (std::vector<double>{0, 30, 30, 0, 40}));
}

TEST(SelectAndScatterEmitterTest, PaddedTwoDimensionalPoolMatchesEvaluator) {
  ExpectMatchesEvaluator(R"(
HloModule m
)" + std::string(kPoolComputations) + R"(
ENTRY e {
  x = f32[2,7,7,3] parameter(0)
  src = f32[2,4,4,3] parameter(1)
  z = f32[] constant(0)
  ROOT s = f32[2,7,7,3] select-and-scatter(x, src, z), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=ge, scatter=add
}
)");
}

}  // namespace
}  // namespace hmo::cpu
