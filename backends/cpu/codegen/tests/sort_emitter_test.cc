// sort: single and multi-operand sorts along various dimensions, stable
// ties, custom comparators, against hand-computed values and the evaluator.

#include <vector>

#include "gtest/gtest.h"
#include "op_emitter_test_support.h"

namespace hmo::cpu {
namespace {

using ::hmo::cpu::testing::AsDoubles;
using ::hmo::cpu::testing::CompileAndRun;
using ::hmo::cpu::testing::ExpectMatchesEvaluator;
using ::hmo::cpu::testing::ParseOrFail;

TEST(SortEmitterTest, AscendingRowsHandComputed) {
  auto module = ParseOrFail(R"(
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[2,4] constant({{3, 1, 4, 1.5}, {9, -2, 6, 5}})
  ROOT s = f32[2,4] sort(x), dimensions={1}, to_apply=lt
}
)");
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(AsDoubles(*result), (std::vector<double>{1, 1.5, 3, 4, -2, 5, 6, 9}));
}

TEST(SortEmitterTest, KeyValueStableDescendingHandComputed) {
  auto module = ParseOrFail(R"(
HloModule m
gt {
  ka = s32[] parameter(0)
  kb = s32[] parameter(1)
  va = f32[] parameter(2)
  vb = f32[] parameter(3)
  ROOT c = pred[] compare(ka, kb), direction=GT
}
ENTRY e {
  k = s32[6] constant({2, 7, 2, 5, 7, 2})
  v = f32[6] constant({0, 1, 2, 3, 4, 5})
  ROOT s = (s32[6], f32[6]) sort(k, v), dimensions={0}, is_stable=true, to_apply=gt
}
)");
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->tuple_elements().size(), 2u);
  EXPECT_EQ(AsDoubles(result->tuple_elements()[0]), (std::vector<double>{7, 7, 5, 2, 2, 2}));
  EXPECT_EQ(AsDoubles(result->tuple_elements()[1]), (std::vector<double>{1, 4, 3, 0, 2, 5}));
}

TEST(SortEmitterTest, MajorDimensionAndColumnMajorLayout) {
  ExpectMatchesEvaluator(R"(
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[6,3,4] parameter(0)
  y = f32[5,7]{0,1} parameter(1)
  sx = f32[6,3,4] sort(x), dimensions={0}, to_apply=lt
  sy = f32[5,7]{0,1} sort(y), dimensions={1}, to_apply=lt
  ROOT t = (f32[6,3,4], f32[5,7]{0,1}) tuple(sx, sy)
}
)");
}

TEST(SortEmitterTest, HalfKeysWithIotaPayload) {
  ExpectMatchesEvaluator(R"(
HloModule m
lt {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ia = s32[] parameter(2)
  ib = s32[] parameter(3)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = bf16[3,16] parameter(0)
  i = s32[3,16] iota(), iota_dimension=1
  ROOT s = (bf16[3,16], s32[3,16]) sort(x, i), dimensions={1}, is_stable=true, to_apply=lt
}
)");
}

}  // namespace
}  // namespace hmo::cpu
