#include "hmo/ir/shape.h"

#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

Shape S(std::string_view text) {
  auto s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : Shape();
}

TEST(ShapeTest, ByteSizeOfArrays) {
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("f32[2,3]")), 24);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("f32[]")), 4);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("pred[10]")), 10);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("bf16[3]{0}")), 6);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("c64[2]")), 16);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("f32[0,5]")), 0);
  // Dynamic dimensions count at their bound.
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("f32[<=10,3]")), 120);
}

TEST(ShapeTest, ByteSizeOfSubByteTypes) {
  // Unpacked: one byte per element.
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("s4[8]")), 8);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("s4[8]{0}")), 8);
  // Packed with E(4): ceil(elements * 4 / 8).
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("s4[8]{0:E(4)}")), 4);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("s4[3]{0:E(4)}")), 2);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("u2[5]{0:E(2)}")), 2);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("s4[2,3]{1,0:T(2,128)(8,1)E(4)S(1)}")), 3);
}

TEST(ShapeTest, ByteSizeOfTuplesAndTokens) {
  Shape t = S("(f32[100], (s32[], s32[]), token[])");
  EXPECT_EQ(ShapeUtil::ByteSizeOf(t), 24);  // 3 pointers of 8 bytes; not recursive
  EXPECT_EQ(ShapeUtil::ByteSizeOf(t, /*pointer_size=*/4), 12);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(t, /*pointer_size=*/1), 3);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("()")), 0);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(S("token[]")), 0);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(t.tuple_shapes(1)), 16);
}

TEST(ShapeTest, Subshapes) {
  Shape t = S("(f32[4]{0}, (s32[], pred[2]), token[])");
  EXPECT_EQ(ShapeUtil::GetSubshape(t, {1, 1}).ToString(), "pred[2]");
  EXPECT_TRUE(ShapeUtil::IndexIsValid(t, {1, 0}));
  EXPECT_FALSE(ShapeUtil::IndexIsValid(t, {3}));
  EXPECT_FALSE(ShapeUtil::IndexIsValid(t, {0, 0}));
  ShapeUtil::GetMutableSubshape(&t, {0})->mutable_layout()->set_memory_space(5);
  EXPECT_EQ(t.tuple_shapes(0).ToString(), "f32[4]{0:S(5)}");
  std::vector<std::string> order;
  ShapeUtil::ForEachSubshape(t, [&](const Shape& s, const ShapeIndex& i) {
    order.push_back(ShapeIndexToString(i) + "=" + s.ToString());
  });
  EXPECT_EQ(order, std::vector<std::string>({"{}=(f32[4]{0:S(5)}, (s32[], pred[2]), token[])",
                                             "{0}=f32[4]{0:S(5)}", "{1}=(s32[], pred[2])",
                                             "{1,0}=s32[]", "{1,1}=pred[2]", "{2}=token[]"}));
  auto leaves = ShapeUtil::GetLeafShapes(t);
  ASSERT_EQ(leaves.size(), 4u);
  EXPECT_EQ(leaves[2].index, ShapeIndex({1, 1}));
  EXPECT_EQ(ShapeUtil::GetLeafCount(t), 4);
}

TEST(ShapeTest, EqualityAndCompatibility) {
  EXPECT_TRUE(ShapeUtil::Equal(S("f32[2,3]{1,0}"), S("f32[2,3]{0,1}")));
  EXPECT_FALSE(S("f32[2,3]{1,0}") == S("f32[2,3]{0,1}"));
  EXPECT_FALSE(ShapeUtil::Equal(S("f32[2,3]"), S("f32[3,2]")));
  EXPECT_FALSE(ShapeUtil::Equal(S("f32[2]"), S("s32[2]")));
  EXPECT_TRUE(ShapeUtil::Compatible(S("f32[<=10]"), S("f32[7]")));
  EXPECT_FALSE(ShapeUtil::Equal(S("f32[<=10]"), S("f32[10]")));
  EXPECT_TRUE(ShapeUtil::Equal(S("(f32[], s32[2]{0})"), S("(f32[], s32[2])")));
}

TEST(ShapeTest, ElementsAndScalars) {
  EXPECT_EQ(ShapeUtil::ElementsIn(S("f32[2,3,4]")), 24);
  EXPECT_EQ(ShapeUtil::ElementsIn(S("f32[]")), 1);
  EXPECT_TRUE(ShapeUtil::IsEffectiveScalar(S("f32[1,1]")));
  EXPECT_FALSE(ShapeUtil::IsEffectiveScalar(S("f32[2]")));
  EXPECT_TRUE(S("f32[]").IsScalar());
  EXPECT_FALSE(S("f32[1]").IsScalar());
}

TEST(ShapeTest, ToString) {
  Shape s(PrimitiveType::F32, {2, 3});
  EXPECT_EQ(s.ToString(), "f32[2,3]");
  s.set_layout(LayoutUtil::MakeDescendingLayout(2));
  EXPECT_EQ(s.ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(s.ToString(/*print_layout=*/false), "f32[2,3]");
  s.set_dynamic_dimension(0, true);
  EXPECT_EQ(s.ToString(), "f32[<=2,3]{1,0}");
  Shape scalar(PrimitiveType::S32, {}, Layout());
  EXPECT_EQ(scalar.ToString(), "s32[]");
  scalar.mutable_layout()->add_tile(Tile({128}));
  EXPECT_EQ(scalar.ToString(), "s32[]{:T(128)}");
  EXPECT_EQ(Shape::MakeToken().ToString(), "token[]");
  EXPECT_EQ(Shape::MakeTuple({}).ToString(), "()");
  EXPECT_EQ(ShapeUtil::MakeShapeWithDescendingLayout(PrimitiveType::PRED, {4}).ToString(), "pred[4]{0}");
}

}  // namespace
}  // namespace hmo
