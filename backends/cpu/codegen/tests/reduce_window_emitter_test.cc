// reduce-window: pooling windows with strides, padding and dilations,
// variadic windows, against hand-computed values and the evaluator.

#include <vector>

#include "gtest/gtest.h"
#include "op_emitter_test_support.h"

namespace hmo::cpu {
namespace {

using ::hmo::cpu::testing::AsDoubles;
using ::hmo::cpu::testing::CompileAndRun;
using ::hmo::cpu::testing::ExpectMatchesEvaluator;
using ::hmo::cpu::testing::ParseOrFail;

TEST(ReduceWindowEmitterTest, PaddedSumSkipsPaddingHandComputed) {
  // Window 3, stride 2, one padding element each side: windows cover
  // {pad,1,2}, {2,3,4}, {4,5,pad}; the init 100 is added once per window.
  auto module = ParseOrFail(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5] constant({1, 2, 3, 4, 5})
  init = f32[] constant(100)
  ROOT r = f32[3] reduce-window(x, init), window={size=3 stride=2 pad=1_1}, to_apply=sum
}
)");
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(AsDoubles(*result), (std::vector<double>{103, 109, 109}));
}

TEST(ReduceWindowEmitterTest, MaxPool2D) {
  ExpectMatchesEvaluator(R"(
HloModule m
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[2,9,9,3] parameter(0)
  init = f32[] constant(-inf)
  ROOT r = f32[2,5,5,3] reduce-window(x, init), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=mx
}
)");
}

TEST(ReduceWindowEmitterTest, BaseAndWindowDilation) {
  ExpectMatchesEvaluator(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[6,5] parameter(0)
  init = f32[] constant(0)
  ROOT r = f32[10,4] reduce-window(x, init), window={size=2x2 stride=1x1 pad=0_0x1_0 lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=sum
}
)");
}

TEST(ReduceWindowEmitterTest, VariadicMinWithIndex) {
  ExpectMatchesEvaluator(R"(
HloModule m
argmin {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  lt = pred[] compare(av, bv), direction=LT
  v = f32[] select(lt, av, bv)
  i = s32[] select(lt, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[12] parameter(0)
  idx = s32[12] iota(), iota_dimension=0
  v0 = f32[] constant(inf)
  i0 = s32[] constant(-1)
  ROOT r = (f32[5], s32[5]) reduce-window(x, idx, v0, i0), window={size=4 stride=2}, to_apply=argmin
}
)");
}

// Windows that move by one element along the minor dimension of input and
// output take outputs in lanes: XLA's tree reduction of a large sum (f16
// windows of whole rows), padding and window dilation along the lanes,
// variadic windows; output dimensions no lane count divides.
TEST(ReduceWindowEmitterTest, OutputsInLanesAlongTheMinorDimension) {
  ExpectMatchesEvaluator(R"(
HloModule m
sum {
  a = f16[] parameter(0)
  b = f16[] parameter(1)
  ROOT s = f16[] add(a, b)
}
ENTRY e {
  x = f16[8,128,40] parameter(0)
  z = f16[] constant(0)
  ROOT r = f16[1,4,40] reduce-window(x, z), window={size=8x32x1 stride=8x32x1}, to_apply=sum
}
)");
  ExpectMatchesEvaluator(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,50] parameter(0)
  z = f32[] constant(0.5)
  ROOT r = f32[4,50] reduce-window(x, z), window={size=3x5 pad=1_1x4_4 rhs_dilate=1x2}, to_apply=sum
}
)");
  ExpectMatchesEvaluator(R"(
HloModule m
argmin {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  lt = pred[] compare(av, bv), direction=LT
  v = f32[] select(lt, av, bv)
  i = s32[] select(lt, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[7,37] parameter(0)
  idx = s32[7,37] iota(), iota_dimension=0
  v0 = f32[] constant(inf)
  i0 = s32[] constant(-1)
  ROOT r = (f32[3,37], s32[3,37]) reduce-window(x, idx, v0, i0), window={size=3x1 stride=2x1}, to_apply=argmin
}
)");
}

}  // namespace
}  // namespace hmo::cpu
