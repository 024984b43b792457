#include "hmo/ir/primitive_type.h"

#include "gtest/gtest.h"

namespace hmo {
namespace {

TEST(PrimitiveTypeTest, NamesRoundTrip) {
  for (int i = 1; i < kPrimitiveTypeCount; ++i) {
    PrimitiveType t = static_cast<PrimitiveType>(i);
    auto back = primitive_util::StringToPrimitiveType(PrimitiveTypeName(t));
    ASSERT_TRUE(back.has_value()) << PrimitiveTypeName(t);
    EXPECT_EQ(*back, t);
  }
  EXPECT_EQ(PrimitiveTypeName(PrimitiveType::F8E4M3B11FNUZ), "f8e4m3b11fnuz");
  EXPECT_EQ(PrimitiveTypeName(PrimitiveType::OPAQUE_TYPE), "opaque");
  EXPECT_FALSE(primitive_util::StringToPrimitiveType("f33").has_value());
}

TEST(PrimitiveTypeTest, Widths) {
  EXPECT_EQ(BitWidth(PrimitiveType::PRED), 8);
  EXPECT_EQ(ByteWidth(PrimitiveType::PRED), 1);
  EXPECT_EQ(BitWidth(PrimitiveType::S4), 4);
  EXPECT_EQ(ByteWidth(PrimitiveType::S4), 1);
  EXPECT_EQ(ByteWidth(PrimitiveType::U2), 1);
  EXPECT_EQ(ByteWidth(PrimitiveType::BF16), 2);
  EXPECT_EQ(ByteWidth(PrimitiveType::F8E5M2), 1);
  EXPECT_EQ(BitWidth(PrimitiveType::F4E2M1FN), 4);
  EXPECT_EQ(ByteWidth(PrimitiveType::C64), 8);
  EXPECT_EQ(ByteWidth(PrimitiveType::C128), 16);
  EXPECT_EQ(ByteWidth(PrimitiveType::TOKEN), 0);
  EXPECT_EQ(ByteWidth(PrimitiveType::TUPLE), 0);
}

TEST(PrimitiveTypeTest, Predicates) {
  EXPECT_TRUE(IsFloatingPoint(PrimitiveType::F8E4M3FN));
  EXPECT_TRUE(IsFloatingPoint(PrimitiveType::BF16));
  EXPECT_FALSE(IsFloatingPoint(PrimitiveType::C64));
  EXPECT_TRUE(IsComplex(PrimitiveType::C128));
  EXPECT_TRUE(IsInteger(PrimitiveType::U4));
  EXPECT_FALSE(IsInteger(PrimitiveType::PRED));
  EXPECT_TRUE(IsSigned(PrimitiveType::S8));
  EXPECT_TRUE(IsSigned(PrimitiveType::F32));
  EXPECT_FALSE(IsSigned(PrimitiveType::U32));
  EXPECT_FALSE(IsSigned(PrimitiveType::F8E8M0FNU));
  EXPECT_TRUE(IsSubByte(PrimitiveType::S2));
  EXPECT_TRUE(IsSubByte(PrimitiveType::F4E2M1FN));
  EXPECT_FALSE(IsSubByte(PrimitiveType::S8));
  EXPECT_TRUE(IsArrayType(PrimitiveType::PRED));
  EXPECT_FALSE(IsArrayType(PrimitiveType::TOKEN));
  EXPECT_FALSE(IsArrayType(PrimitiveType::TUPLE));
  EXPECT_EQ(primitive_util::ComplexComponentType(PrimitiveType::C64), PrimitiveType::F32);
}

}  // namespace
}  // namespace hmo
