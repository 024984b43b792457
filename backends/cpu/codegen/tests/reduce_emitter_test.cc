// reduce: single and variadic reductions over various dimensions, layouts
// and types, against hand-computed values and the reference evaluator.

#include <vector>

#include "gtest/gtest.h"
#include "op_emitter_test_support.h"

namespace hmo::cpu {
namespace {

using ::hmo::cpu::testing::AsDoubles;
using ::hmo::cpu::testing::CompileAndRun;
using ::hmo::cpu::testing::ExpectMatchesEvaluator;
using ::hmo::cpu::testing::ParseOrFail;

TEST(ReduceEmitterTest, RowSumsAndInitValueHandComputed) {
  auto module = ParseOrFail(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  init = f32[] constant(10)
  ROOT r = f32[2] reduce(x, init), dimensions={1}, to_apply=sum
}
)");
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(AsDoubles(*result), (std::vector<double>{16, 25}));
}

TEST(ReduceEmitterTest, ColumnMaxOverColumnMajorInput) {
  ExpectMatchesEvaluator(R"(
HloModule m
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[5,7]{0,1} parameter(0)
  init = f32[] constant(-inf)
  ROOT r = f32[7] reduce(x, init), dimensions={0}, to_apply=mx
}
)");
}

TEST(ReduceEmitterTest, SeveralDimensionsToScalarAndMiddle) {
  ExpectMatchesEvaluator(R"(
HloModule m
sum {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
ENTRY e {
  x = f64[3,4,5] parameter(0)
  init = f64[] constant(0)
  all = f64[] reduce(x, init), dimensions={0,1,2}, to_apply=sum
  mid = f64[3,5] reduce(x, init), dimensions={1}, to_apply=sum
  outer = f64[4] reduce(x, init), dimensions={2,0}, to_apply=sum
  ROOT t = (f64[], f64[3,5], f64[4]) tuple(all, mid, outer)
}
)");
}

TEST(ReduceEmitterTest, VariadicArgmax) {
  // (value, index) pairs: keeps the larger value, the smaller index on ties.
  auto module = ParseOrFail(R"(
HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  take_a = pred[] or(gt, tie)
  v = f32[] select(take_a, av, bv)
  i = s32[] select(take_a, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[2,4] constant({{3, 9, 9, 1}, {-1, -5, 7, 2}})
  idx = s32[2,4] iota(), iota_dimension=1
  v0 = f32[] constant(-inf)
  i0 = s32[] constant(0)
  ROOT r = (f32[2], s32[2]) reduce(x, idx, v0, i0), dimensions={1}, to_apply=argmax
}
)");
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  HloEvaluator evaluator;
  auto expected = evaluator.Evaluate(*module, {});
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_TRUE(CompareLiterals(*expected, *result).ok());
  ASSERT_EQ(result->tuple_elements().size(), 2u);
  EXPECT_EQ(AsDoubles(result->tuple_elements()[0]), (std::vector<double>{9, 7}));
  EXPECT_EQ(AsDoubles(result->tuple_elements()[1]), (std::vector<double>{1, 2}));
}

TEST(ReduceEmitterTest, IntegerAndHalfTypes) {
  ExpectMatchesEvaluator(R"(
HloModule m
isum {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
hsum {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY e {
  x = s32[4,6] parameter(0)
  h = bf16[4,6] parameter(1)
  zi = s32[] constant(0)
  zh = bf16[] constant(0)
  ri = s32[6] reduce(x, zi), dimensions={0}, to_apply=isum
  rh = bf16[4] reduce(h, zh), dimensions={1}, to_apply=hsum
  ROOT t = (s32[6], bf16[4]) tuple(ri, rh)
}
)");
}

}  // namespace
}  // namespace hmo::cpu
