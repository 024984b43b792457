#include "hmo/ir/layout.h"

#include "gtest/gtest.h"
#include "hmo/ir/shape.h"

namespace hmo {
namespace {

TEST(LayoutTest, PrintsEveryFieldInOrder) {
  Layout l({1, 0});
  EXPECT_EQ(l.ToString(), "{1,0}");
  l.add_tile(Tile({8, 128})).add_tile(Tile({2, 1}));
  EXPECT_EQ(l.ToString(), "{1,0:T(8,128)(2,1)}");
  l.set_tail_padding_alignment_in_elements(4)
      .set_index_primitive_type(PrimitiveType::S32)
      .set_pointer_primitive_type(PrimitiveType::U64)
      .set_element_size_in_bits(4)
      .set_memory_space(Layout::kHostMemorySpace)
      .add_split_config(SplitConfig(0, {128, 256}))
      .set_dynamic_shape_metadata_prefix_bytes(8);
  l.set_physical_shape(Shape(PrimitiveType::U8, {64}, Layout({0})));
  EXPECT_EQ(l.ToString(),
            "{1,0:T(8,128)(2,1)L(4)#(s32)*(u64)E(4)S(5)SC(0:128,256)P(u8[64]{0})M(8)}");
}

TEST(LayoutTest, DefaultsAreNotPrinted) {
  Layout l({0});
  l.set_memory_space(0).set_element_size_in_bits(0).set_tail_padding_alignment_in_elements(1);
  EXPECT_EQ(l.ToString(), "{0}");
  EXPECT_TRUE(l.HasOnlyMinorToMajor());
  EXPECT_EQ(Layout().ToString(), "{}");
  Layout scalar;
  scalar.add_tile(Tile({128}));
  EXPECT_EQ(scalar.ToString(), "{:T(128)}");
  Layout combine({1, 0});
  combine.add_tile(Tile({2, Tile::kCombineDimension}));
  EXPECT_EQ(combine.ToString(), "{1,0:T(2,*)}");
}

TEST(LayoutTest, EqualityAndCopy) {
  Layout a({1, 0});
  a.set_memory_space(1).set_physical_shape(Shape(PrimitiveType::F32, {4}));
  Layout b = a;
  EXPECT_EQ(a, b);
  b.set_memory_space(5);
  EXPECT_NE(a, b);
  EXPECT_TRUE(a.EqualIgnoringMemorySpace(b));
  b = a;
  b.clear_physical_shape();
  EXPECT_NE(a, b);
  EXPECT_EQ(LayoutUtil::MakeDescendingLayout(3).ToString(), "{2,1,0}");
}

}  // namespace
}  // namespace hmo
