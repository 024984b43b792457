// reduce, reduce-window and map: the native fast path (single binary-op
// reducers) and the general path (any reducer computation, variadic).

#include <limits>

#include "evaluator_test_support.h"

namespace hmo::eval_test {
namespace {

TEST(ReductionTest, ReduceWithMaxReducer) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[2,3] constant({{1, 5, 2}, {-1, -3, -2}})
  init = f32[] constant(-inf)
  ROOT r = f32[2] reduce(x, init), dimensions={1}, to_apply=max
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{5, -1}));
}

TEST(ReductionTest, ReduceOverLeadingDimensionsWithAdd) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(b, a)
}
ENTRY e {
  x = s32[2,2,3] constant({{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}})
  init = s32[] constant(100)
  ROOT r = s32[3] reduce(x, init), dimensions={0,1}, to_apply=add
})"));
  EXPECT_EQ(Ints(result), (std::vector<int64_t>{122, 126, 130}));
}

TEST(ReductionTest, GeneralReducerComputation) {
  // Sum of squares: the reducer is not a single opcode, so it is evaluated.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
sumsq {
  acc = f32[] parameter(0)
  x = f32[] parameter(1)
  sq = f32[] multiply(x, x)
  ROOT s = f32[] add(acc, sq)
}
ENTRY e {
  x = f32[3] constant({1, 2, 3})
  init = f32[] constant(0)
  ROOT r = f32[] reduce(x, init), dimensions={0}, to_apply=sumsq
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{14}));
}

TEST(ReductionTest, VariadicReduceArgmaxKeepsFirstIndexOnTies) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  pick = pred[] or(gt, tie)
  v = f32[] select(pick, av, bv)
  i = s32[] select(pick, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  values = f32[2,3] constant({{3, 7, 7}, {9, 1, 9}})
  indices = s32[2,3] iota(), iota_dimension=1
  vinit = f32[] constant(-inf)
  iinit = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce(values, indices, vinit, iinit), dimensions={1}, to_apply=argmax
})"));
  EXPECT_EQ(Doubles(result.tuple_elements()[0]), (std::vector<double>{7, 9}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{1, 0}));
}

TEST(ReductionTest, Bf16ReduceRoundsEachStep) {
  // 256 + 1 is not representable in bf16 (spacing 2 there): every step
  // rounds back to 256, as XLA's reducer computation in bf16 does.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY e {
  one = bf16[] constant(1)
  x = bf16[4] broadcast(one), dimensions={}
  init = bf16[] constant(256)
  ROOT r = bf16[] reduce(x, init), dimensions={0}, to_apply=add
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{256}));
}

TEST(ReductionTest, ReduceWindowWithPadding) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] constant({1, 2, 3, 4})
  init = f32[] constant(0)
  ROOT r = f32[5] reduce-window(x, init), window={size=2 pad=1_1}, to_apply=add
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{1, 3, 5, 7, 4}));
}

TEST(ReductionTest, ReduceWindowMaxPool2DWithStride) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[3,4] constant({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}})
  init = f32[] constant(-inf)
  ROOT r = f32[2,2] reduce-window(x, init), window={size=2x2 stride=1x2}, to_apply=max
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{6, 8, 10, 12}));
}

TEST(ReductionTest, ReduceWindowBaseAndWindowDilation) {
  // lhs_dilate=2 turns {1,2,3} into {1,_,2,_,3}; size-2 windows see
  // {1},{2},{2},{3}. rhs_dilate=2 on {1,2,3,4} with size 2 pairs x[i], x[i+2].
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3] constant({1, 2, 3})
  y = f32[4] constant({1, 2, 3, 4})
  init = f32[] constant(0)
  a = f32[4] reduce-window(x, init), window={size=2 lhs_dilate=2}, to_apply=add
  b = f32[2] reduce-window(y, init), window={size=2 rhs_dilate=2}, to_apply=add
  ROOT t = (f32[4], f32[2]) tuple(a, b)
})"));
  EXPECT_EQ(Doubles(result.tuple_elements()[0]), (std::vector<double>{1, 2, 2, 3}));
  EXPECT_EQ(Doubles(result.tuple_elements()[1]), (std::vector<double>{4, 6}));
}

TEST(ReductionTest, MapAppliesComputationPerElement) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  d = f32[] subtract(a, b)
  ROOT m = f32[] multiply(d, d)
}
ENTRY e {
  x = f32[3] constant({1, 5, 2})
  y = f32[3] constant({4, 1, 2})
  ROOT r = f32[3] map(x, y), dimensions={0}, to_apply=f
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{9, 16, 0}));
}

TEST(ReductionTest, VariadicReduceWindowMinWithIndex) {
  // Running (min, index) over windows of 2 with stride 2.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
argmin {
  av = s32[] parameter(0)
  ai = s32[] parameter(1)
  bv = s32[] parameter(2)
  bi = s32[] parameter(3)
  le = pred[] compare(av, bv), direction=LE
  v = s32[] select(le, av, bv)
  i = s32[] select(le, ai, bi)
  ROOT r = (s32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = s32[4] constant({5, 2, 1, 8})
  idx = s32[4] iota(), iota_dimension=0
  vinit = s32[] constant(2147483647)
  iinit = s32[] constant(-1)
  ROOT r = (s32[2], s32[2]) reduce-window(x, idx, vinit, iinit), window={size=2 stride=2}, to_apply=argmin
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{1, 2}));
}

TEST(ReductionTest, PredReduceWithAnd) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
all {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT r = pred[] and(a, b)
}
ENTRY e {
  x = pred[2,2] constant({{true, false}, {true, true}})
  init = pred[] constant(true)
  ROOT r = pred[2] reduce(x, init), dimensions={1}, to_apply=all
})"));
  EXPECT_EQ(Ints(result), (std::vector<int64_t>{0, 1}));
}

}  // namespace
}  // namespace hmo::eval_test
