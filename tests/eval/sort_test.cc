// sort: multi-operand, stable, along any dimension, with native and general
// comparators; topk.

#include <cmath>

#include "evaluator_test_support.h"

namespace hmo::eval_test {
namespace {

TEST(SortTest, StableSortOfTwoOperandsByKeys) {
  // Equal keys keep their original order: values 1 before 3, 0 before 4.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  keys = f32[5] constant({3, 1, 2, 1, 3})
  values = s32[5] constant({0, 1, 2, 3, 4})
  ROOT s = (f32[5], s32[5]) sort(keys, values), dimensions={0}, is_stable=true, to_apply=less
})"));
  EXPECT_EQ(Doubles(result.tuple_elements()[0]), (std::vector<double>{1, 1, 2, 3, 3}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{1, 3, 2, 0, 4}));
}

TEST(SortTest, ComparatorOnSecondOperandAlongMinorDimension) {
  // Rows sorted by descending value of the second operand, computed by a
  // comparator that is not a plain compare of parameters 0 and 1.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
greater_by_value {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT gt = pred[] compare(c, d), direction=GT
}
ENTRY e {
  ids = s32[2,3] constant({{0, 1, 2}, {0, 1, 2}})
  scores = f32[2,3] constant({{0.5, 2, 1}, {3, 1, 2}})
  ROOT s = (s32[2,3], f32[2,3]) sort(ids, scores), dimensions={1}, to_apply=greater_by_value
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]), (std::vector<int64_t>{1, 2, 0, 0, 2, 1}));
  EXPECT_EQ(Doubles(result.tuple_elements()[1]), (std::vector<double>{2, 1, 0.5, 3, 2, 1}));
}

TEST(SortTest, SortAlongMajorDimension) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
less {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = s32[3,2] constant({{5, 0}, {1, 9}, {3, 4}})
  ROOT s = s32[3,2] sort(x), dimensions={0}, to_apply=less
})"));
  EXPECT_EQ(Ints(result), (std::vector<int64_t>{1, 0, 3, 4, 5, 9}));
}

}  // namespace
TEST(SortTest, TopKTakesTheLargestWithTheirIndices) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[2,4] constant({{1, 3, 2, 3}, {-1, nan, 0, 5}})
  ROOT t = (f32[2,2], s32[2,2]) topk(x), k=2, largest=true
})"));
  // Ties keep index order; NaN ranks above every number, as in XLA's TopK.
  std::vector<double> values = Doubles(result.tuple_elements()[0]);
  EXPECT_EQ(values[0], 3);
  EXPECT_EQ(values[1], 3);
  EXPECT_TRUE(std::isnan(values[2]));
  EXPECT_EQ(values[3], 5);
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{1, 3, 1, 3}));
}

}  // namespace hmo::eval_test
