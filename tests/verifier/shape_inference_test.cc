// ShapeInference used directly (as passes do), without instructions.

#include "hmo/ir/shape_inference.h"

#include <gtest/gtest.h>

#include "hmo/ir/shape_equality.h"

namespace hmo {
namespace {

Shape S(PrimitiveType t, std::vector<int64_t> dims) { return Shape(t, std::move(dims)); }
constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType BF16 = PrimitiveType::BF16;
constexpr PrimitiveType S32 = PrimitiveType::S32;

TEST(ShapeInferenceTest, BinaryOps) {
  absl::StatusOr<Shape> add = ShapeInference::InferBinaryOpShape(HloOpcode::kAdd, S(F32, {2, 3}),
                                                                 S(F32, {2, 3}));
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(*add, S(F32, {2, 3}));
  absl::StatusOr<Shape> cmp = ShapeInference::InferBinaryOpShape(HloOpcode::kCompare, S(S32, {4}),
                                                                 S(S32, {4}));
  ASSERT_TRUE(cmp.ok());
  EXPECT_EQ(*cmp, S(PrimitiveType::PRED, {4}));
  EXPECT_FALSE(ShapeInference::InferBinaryOpShape(HloOpcode::kAdd, S(BF16, {2}), S(F32, {2})).ok());
  absl::StatusOr<Shape> mixed = ShapeInference::InferBinaryOpShape(
      HloOpcode::kAdd, S(BF16, {2}), S(F32, {2}), {.allow_mixed_precision = true});
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(*mixed, S(F32, {2}));
  absl::StatusOr<Shape> bad = ShapeInference::InferBinaryOpShape(HloOpcode::kAdd, S(F32, {2}),
                                                                 S(F32, {3}));
  EXPECT_EQ(bad.status().message(), "binary op operands have incompatible shapes f32[2] and f32[3]");
}

TEST(ShapeInferenceTest, DotAndTranspose) {
  DotDimensionNumbers dnums;
  dnums.lhs_batch_dimensions = {0};
  dnums.rhs_batch_dimensions = {0};
  dnums.lhs_contracting_dimensions = {2};
  dnums.rhs_contracting_dimensions = {1};
  absl::StatusOr<Shape> dot =
      ShapeInference::InferDotShape(S(BF16, {8, 2, 3}), S(BF16, {8, 3, 5}), dnums, F32);
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_EQ(*dot, S(F32, {8, 2, 5}));
  absl::StatusOr<Shape> t = ShapeInference::InferTransposeShape(S(F32, {2, 3, 4}), {2, 0, 1});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, S(F32, {4, 2, 3}));
}

TEST(ShapeInferenceTest, WindowOutputDimensions) {
  Window w;
  w.dimensions.push_back({.size = 3, .stride = 2, .padding_low = 0, .padding_high = 1});
  w.dimensions.push_back({.size = 2, .stride = 1, .padding_low = 0, .padding_high = 0,
                          .window_dilation = 1, .base_dilation = 2});
  absl::StatusOr<std::vector<int64_t>> out = ShapeInference::InferWindowOutputDimensions({8, 4}, w);
  ASSERT_TRUE(out.ok());
  // (8 + 1 - 3) / 2 + 1 = 4; dilated base (4 - 1) * 2 + 1 = 7, (7 - 2) + 1 = 6.
  EXPECT_EQ(*out, (std::vector<int64_t>{4, 6}));
}

TEST(ShapeInferenceTest, GatherWithBatchingDimensions) {
  GatherDimensionNumbers g;
  g.offset_dims = {2};
  g.collapsed_slice_dims = {1};
  g.start_index_map = {1};
  g.operand_batching_dims = {0};
  g.start_indices_batching_dims = {0};
  g.index_vector_dim = 2;
  absl::StatusOr<Shape> out =
      ShapeInference::InferGatherShape(S(F32, {4, 10, 7}), S(S32, {4, 5}), g, {1, 1, 7});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, S(F32, {4, 5, 7}));
}

TEST(ShapeInferenceTest, ReducerSignature) {
  ProgramShape add{{S(F32, {}), S(F32, {})}, S(F32, {})};
  EXPECT_TRUE(ShapeInference::VerifyReducer(add, {F32}, {F32}).ok());
  EXPECT_FALSE(ShapeInference::VerifyReducer(add, {S32}, {}).ok());
  EXPECT_FALSE(ShapeInference::VerifyReducer(add, {BF16}, {}).ok());
  EXPECT_TRUE(ShapeInference::VerifyReducer(add, {BF16}, {}, {.allow_mixed_precision = true}).ok());
  EXPECT_EQ(add.ToString(), "(f32[], f32[]) -> f32[]");
}

TEST(ShapeEqualityTest, LayoutsAndPrecision) {
  Shape a(F32, {2, 3}, Layout({1, 0}));
  Shape b(F32, {2, 3}, Layout({0, 1}));
  Shape no_layout(F32, {2, 3});
  EXPECT_TRUE(ShapesEqual(a, b));
  EXPECT_FALSE(ShapesEqual(a, b, {.compare_layouts = true}));
  EXPECT_TRUE(ShapesEqual(a, no_layout, {.compare_layouts = true}));  // default layout
  Shape in_s1(F32, {2, 3}, Layout({1, 0}));
  in_s1.mutable_layout()->set_memory_space(1);
  EXPECT_TRUE(ShapesEqual(a, in_s1, {.compare_layouts = true}));
  EXPECT_FALSE(ShapesEqual(a, in_s1, {.compare_layouts = true, .ignore_memory_space = false}));
  EXPECT_FALSE(ShapesEqual(S(F32, {2}), S(BF16, {2})));
  EXPECT_TRUE(ShapesEqual(S(F32, {2}), S(BF16, {2}), {.ignore_fp_precision = true}));
  EXPECT_FALSE(ShapesEqual(S(S32, {2}), S(PrimitiveType::S8, {2}), {.ignore_fp_precision = true}));
}

}  // namespace
}  // namespace hmo
