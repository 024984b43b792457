// sort: multi-operand, stable, along any dimension, with native and general
// comparators; topk.

#include <cmath>
#include <string>

#include "evaluator_test_support.h"
#include "gmock/gmock.h"

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

// A comparator that is not a strict weak order has no defined result (XLA
// leaves it to the implementation, and hmo's backends differ): refused,
// naming the sort, the comparator, the row and the reason.
TEST(SortTest, ComparatorThatIsNotAStrictWeakOrderIsRefused) {
  struct Case {
    const char* comparator;
    const char* reason;
  };
  for (const Case& c : {
           // Reflexive: every element is less than itself.
           Case{"ROOT le = pred[] compare(a, b), direction=LE", "less than itself"},
           // Partial order on floats with a NaN: NaN is incomparable with 1
           // and with 0, which are ordered.
           Case{"ROOT lt = pred[] compare(a, b), direction=LT", "not transitive"},
           // The two sides keyed differently (2*i against j), as in a mutant
           // the semantic fuzzer made of a JAX argsort: 1 ~ 2 ~ 3 but 1 < 3.
           Case{"ROOT lt = pred[] compare(c, j), direction=LT",
                "incomparability is not transitive"},
       }) {
    SCOPED_TRACE(c.comparator);
    const std::string hlo = std::string(R"(HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  c = s32[] add(i, i)
  )") + c.comparator + R"(
}
ENTRY e {
  keys = f32[2,4] constant({{0, 1, 2, 3}, {1, nan, 0, 3}})
  ids = s32[2,4] iota(), iota_dimension=1
  ROOT s = (f32[2,4], s32[2,4]) sort(keys, ids), dimensions={1}, is_stable=true, to_apply=less
})";
    absl::StatusOr<Literal> result = EvaluateText(hlo);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
    const std::string message(result.status().message());
    EXPECT_THAT(message, ::testing::HasSubstr("s: comparator less is not a strict weak order"));
    EXPECT_THAT(message, ::testing::HasSubstr(c.reason));
  }
}

// Row 0 of a consistent comparator ordered alike, whatever the budget: a row
// longer than the quadratic check affords still sorts.
TEST(SortTest, LongRowsOfAConsistentComparatorSort) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
greater {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  x = s32[] parameter(2)
  y = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY e {
  keys = s32[1000] iota(), iota_dimension=0
  ids = s32[1000] iota(), iota_dimension=0
  ROOT s = (s32[1000], s32[1000]) sort(keys, ids), dimensions={0}, to_apply=greater
})"));
  const std::vector<int64_t> keys = Ints(result.tuple_elements()[0]);
  ASSERT_EQ(keys.size(), 1000u);
  for (int64_t i = 0; i < 1000; ++i) EXPECT_EQ(keys[i], 999 - i);
}

}  // namespace hmo::eval_test
