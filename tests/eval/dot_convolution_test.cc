// dot (batch and contracting dimensions, narrow-float accumulation) and
// convolution (dim_labels, padding, strides, dilations, feature and batch
// groups), each against hand-computed results.

#include "evaluator_test_support.h"

namespace hmo::eval_test {
namespace {

TEST(DotTest, MatrixProduct) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  b = f32[3,2] constant({{7, 8}, {9, 10}, {11, 12}})
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{58, 64, 139, 154}));
}

TEST(DotTest, BatchedWithTransposedOperands) {
  // lhs is [batch, k, m] and rhs [batch, n, k]: result [batch, m, n].
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[2,3,2] constant({{{1, 2}, {3, 4}, {5, 6}}, {{1, 0}, {0, 1}, {1, 1}}})
  b = f32[2,1,3] constant({{{1, 1, 1}}, {{1, 2, 3}}})
  ROOT d = f32[2,2,1] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={2}
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{9, 12, 4, 5}));
}

TEST(DotTest, Bf16AccumulatesInF32) {
  // Summing 300 ones in bf16 would stick at 256; in f32 it reaches 300,
  // which bf16 represents exactly.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  one = bf16[] constant(1)
  a = bf16[1,300] broadcast(one), dimensions={}
  b = bf16[300,1] broadcast(one), dimensions={}
  ROOT d = bf16[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{300}));
}

TEST(DotTest, IntegerDotWraps) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = s8[1,2] constant({{100, 100}})
  b = s8[2] constant({1, 1})
  ROOT d = s8[1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"));
  EXPECT_EQ(Ints(result), (std::vector<int64_t>{-56}));
}

TEST(ConvolutionTest, Conv2DWithPadding) {
  // 2x2 all-ones kernel over 1..9 padded by one row and column at the high
  // end: each output is the sum of the in-range part of a 2x2 window.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[1,3,3,1] constant({{{{1}, {2}, {3}}, {{4}, {5}, {6}}, {{7}, {8}, {9}}}})
  one = f32[] constant(1)
  k = f32[2,2,1,1] broadcast(one), dimensions={}
  ROOT c = f32[1,3,3,1] convolution(x, k), window={size=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{12, 16, 9, 24, 28, 15, 15, 17, 9}));
}

TEST(ConvolutionTest, FeatureGroups) {
  // Features {1,2} convolve with kernel output 0, {3,4} with output 1.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[1,1,1,4] constant({{{{1, 2, 3, 4}}}})
  k = f32[1,1,2,2] constant({{{{1, 10}, {2, 20}}}})
  ROOT c = f32[1,1,1,2] convolution(x, k), window={size=1x1}, dim_labels=b01f_01io->b01f, feature_group_count=2
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{5, 110}));
}

TEST(ConvolutionTest, DepthwiseWithStrideAndPadding) {
  // Two channels, each with its own 3-tap kernel, stride 2, pad 1 each side.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[1,5,2] constant({{{1, 10}, {2, 20}, {3, 30}, {4, 40}, {5, 50}}})
  k = f32[3,1,2] constant({{{1, 0}}, {{1, 1}}, {{1, 0}}})
  ROOT c = f32[1,3,2] convolution(x, k), window={size=3 stride=2 pad=1_1}, dim_labels=b0f_0io->b0f, feature_group_count=2
})"));
  // Channel 0 sums windows {_,1,2}, {2,3,4}, {4,5,_}; channel 1 takes the
  // centre tap only: 10, 30, 50.
  EXPECT_EQ(Doubles(result), (std::vector<double>{3, 10, 9, 30, 9, 50}));
}

TEST(ConvolutionTest, StridesAndDilationsWithFeatureMajorLabels) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[1,1,5] constant({{{1, 2, 3, 4, 5}}})
  k = f32[1,1,2] constant({{{1, 1}}})
  strided = f32[1,1,2] convolution(x, k), window={size=2 stride=2}, dim_labels=bf0_oi0->bf0
  rhs_dilated = f32[1,1,3] convolution(x, k), window={size=2 rhs_dilate=2}, dim_labels=bf0_oi0->bf0
  lhs_dilated = f32[1,1,8] convolution(x, k), window={size=2 lhs_dilate=2}, dim_labels=bf0_oi0->bf0
  ROOT t = (f32[1,1,2], f32[1,1,3], f32[1,1,8]) tuple(strided, rhs_dilated, lhs_dilated)
})"));
  EXPECT_EQ(Doubles(result.tuple_elements()[0]), (std::vector<double>{3, 7}));
  EXPECT_EQ(Doubles(result.tuple_elements()[1]), (std::vector<double>{4, 6, 8}));
  EXPECT_EQ(Doubles(result.tuple_elements()[2]), (std::vector<double>{1, 2, 2, 3, 3, 4, 4, 5}));
}

TEST(ConvolutionTest, BatchGroups) {
  // Batch 0 pairs with kernel output 0, batch 1 with output 1.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[2,1,1] constant({{{3}}, {{5}}})
  k = f32[2,1,1] constant({{{10}}, {{100}}})
  ROOT c = f32[1,2,1] convolution(x, k), window={size=1}, dim_labels=bf0_oi0->bf0, batch_group_count=2
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{30, 500}));
}

TEST(ConvolutionTest, OutputLabelsPermuteResult) {
  // Same 1-D convolution written with an output layout f0b: the result
  // dimensions are [feature, spatial, batch].
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[2,3,1] constant({{{1}, {2}, {3}}, {{4}, {5}, {6}}})
  k = f32[2,1,2] constant({{{1, 0}}, {{0, 1}}})
  ROOT c = f32[2,2,2] convolution(x, k), window={size=2}, dim_labels=b0f_0io->f0b
})"));
  // out[o][s][b]: o=0 takes x[b][s], o=1 takes x[b][s+1].
  EXPECT_EQ(Doubles(result), (std::vector<double>{1, 4, 2, 5, 2, 5, 3, 6}));
}

TEST(DotTest, F64AndMixedResultType) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f64[2] constant({1e16, 1})
  b = f64[2] constant({1, 1})
  d = f64[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  x = bf16[2] constant({1.5, 2})
  y = bf16[2] constant({2, 0.25})
  w = f32[] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT t = (f64[], f32[]) tuple(d, w)
})"));
  EXPECT_EQ(result.tuple_elements()[0].GetAsDouble(0), 1e16 + 1);
  EXPECT_EQ(result.tuple_elements()[1].GetAsDouble(0), 3.5);
}

TEST(ConvolutionTest, WindowReversalFlipsTheKernel) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[1,1,3] constant({{{1, 2, 3}}})
  k = f32[1,1,2] constant({{{1, 10}}})
  plain = f32[1,1,2] convolution(x, k), window={size=2}, dim_labels=bf0_oi0->bf0
  flipped = f32[1,1,2] convolution(x, k), window={size=2 rhs_reversal=1}, dim_labels=bf0_oi0->bf0
  ROOT t = (f32[1,1,2], f32[1,1,2]) tuple(plain, flipped)
})"));
  EXPECT_EQ(Doubles(result.tuple_elements()[0]), (std::vector<double>{21, 32}));
  EXPECT_EQ(Doubles(result.tuple_elements()[1]), (std::vector<double>{12, 23}));
}

}  // namespace
}  // namespace hmo::eval_test
