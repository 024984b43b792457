#include "hmo/ir/literal.h"

#include <cmath>

#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

using primitive_util::DoubleToNarrowFloatBits;
using primitive_util::NarrowFloatBitsToDouble;

std::string R0(PrimitiveType t, double v) { return Literal::CreateR0FromDouble(t, v).ToStringWithoutShape(); }

TEST(LiteralTest, FloatPrinting) {
  EXPECT_EQ(R0(PrimitiveType::F32, 1), "1");
  EXPECT_EQ(R0(PrimitiveType::F32, 0.1), "0.1");
  EXPECT_EQ(R0(PrimitiveType::F32, 1e-05), "1e-05");
  EXPECT_EQ(R0(PrimitiveType::F32, 0.000244140625), "0.000244140625");
  EXPECT_EQ(R0(PrimitiveType::F32, 500000), "500000");
  EXPECT_EQ(R0(PrimitiveType::F32, -INFINITY), "-inf");
  EXPECT_EQ(R0(PrimitiveType::F32, NAN), "nan");
  EXPECT_EQ(R0(PrimitiveType::F32, -0.0), "-0");
  EXPECT_EQ(R0(PrimitiveType::F64, 0.1), "0.1");
  EXPECT_EQ(R0(PrimitiveType::F64, 1.0 / 3), "0.33333333333333331");
  EXPECT_EQ(R0(PrimitiveType::BF16, 0.1), "0.1001");
  EXPECT_EQ(R0(PrimitiveType::F16, 0.1), "0.099976");
  EXPECT_EQ(R0(PrimitiveType::F8E4M3FN, 448), "448");
  EXPECT_EQ(R0(PrimitiveType::F8E5M2, 0.3), "0.31");
}

TEST(LiteralTest, OtherTypesPrinting) {
  EXPECT_EQ(Literal::CreateR0Pred(true).ToStringWithoutShape(), "true");
  EXPECT_EQ(Literal::CreateR0FromInt(PrimitiveType::S4, -8).ToStringWithoutShape(), "-8");
  EXPECT_EQ(Literal::CreateR0FromInt(PrimitiveType::U4, 15).ToStringWithoutShape(), "15");
  EXPECT_EQ(Literal::CreateR1FromInts(PrimitiveType::S32, {1, 2, 3}).ToString(), "s32[3] {1, 2, 3}");
  Literal c(Shape(PrimitiveType::C64, {}));
  c.SetFromComplex(0, {1.5, -2});
  EXPECT_EQ(c.ToStringWithoutShape(), "(1.5, -2)");
  Literal m(Shape(PrimitiveType::F32, {2, 2}));
  for (int i = 0; i < 4; ++i) m.SetFromDouble(i, i);
  EXPECT_EQ(m.ToStringWithoutShape(), "{ { 0, 1 }, { 2, 3 } }");
  EXPECT_EQ(Literal::CreateElided(Shape(PrimitiveType::F32, {100})).ToStringWithoutShape(), "{...}");
  Literal t = Literal::MakeTuple({Literal::CreateR0FromInt(PrimitiveType::S32, 1), Literal::CreateR0Pred(false)});
  EXPECT_EQ(t.ToStringWithoutShape(), "(1, false)");
  EXPECT_EQ(t.ToString(), "(s32[] 1, pred[] false)");
}

TEST(LiteralTest, ParseAndPrintEveryArrayType) {
  struct Case {
    const char* shape;
    const char* text;
  };
  for (const Case& c : std::vector<Case>{{"pred[2]", "{true, false}"},
                                         {"s2[2]", "{-2, 1}"},
                                         {"s4[3]", "{-8, 0, 7}"},
                                         {"s8[2]", "{-128, 127}"},
                                         {"s16[1]", "{-32768}"},
                                         {"s32[2]", "{-2147483648, 2147483647}"},
                                         {"s64[1]", "{-9223372036854775808}"},
                                         {"u2[1]", "{3}"},
                                         {"u4[1]", "{15}"},
                                         {"u8[2]", "{0, 255}"},
                                         {"u16[1]", "{65535}"},
                                         {"u32[1]", "{4294967295}"},
                                         {"u64[1]", "{18446744073709551615}"},
                                         {"f16[3]", "{0.5, -inf, 65504}"},
                                         {"bf16[2]", "{1, -2.5}"},
                                         {"f32[3]", "{1.5, nan, -0}"},
                                         {"f64[1]", "{0.1}"},
                                         {"f8e4m3fn[2]", "{448, -0.5}"},
                                         {"f8e5m2[2]", "{inf, 0.25}"},
                                         {"f8e4m3fnuz[1]", "{240}"},
                                         {"f8e5m2fnuz[1]", "{5.7e+04}"},
                                         {"f8e4m3b11fnuz[1]", "{30}"},
                                         {"f8e4m3[1]", "{-inf}"},
                                         {"f8e3m4[1]", "{15.5}"},
                                         {"f8e8m0fnu[2]", "{1, 0.5}"},
                                         {"f4e2m1fn[3]", "{6, -1.5, 0.5}"},
                                         {"c64[1]", "{(1, 2)}"},
                                         {"c128[1]", "{(-0.5, 3)}"}}) {
    auto shape = ParseShape(c.shape);
    ASSERT_TRUE(shape.ok()) << c.shape;
    auto lit = ParseLiteral(c.text, *shape);
    ASSERT_TRUE(lit.ok()) << c.shape << " " << c.text << ": " << lit.status();
    EXPECT_EQ(lit->ToStringWithoutShape(), c.text) << c.shape;
  }
}

TEST(LiteralTest, NarrowFloatConversions) {
  // f8e4m3fn: max 448, no inf, 0x7F is NaN; overflow becomes NaN.
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F8E4M3FN, 448), 0x7E);
  EXPECT_TRUE(std::isnan(NarrowFloatBitsToDouble(PrimitiveType::F8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(NarrowFloatBitsToDouble(PrimitiveType::F8E4M3FN,
                                                 DoubleToNarrowFloatBits(PrimitiveType::F8E4M3FN, 1e6))));
  // Smallest subnormal of e4m3fn is 2^-9.
  EXPECT_EQ(NarrowFloatBitsToDouble(PrimitiveType::F8E4M3FN, 0x01), std::ldexp(1.0, -9));
  // f8e5m2 has inf.
  EXPECT_EQ(NarrowFloatBitsToDouble(PrimitiveType::F8E5M2, 0x7C), INFINITY);
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F8E5M2, 1e9), 0x7C);
  // fnuz: 0x80 is NaN and there is no negative zero.
  EXPECT_TRUE(std::isnan(NarrowFloatBitsToDouble(PrimitiveType::F8E4M3FNUZ, 0x80)));
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F8E4M3FNUZ, -0.0), 0x00);
  // bf16 / f16 basics and round-to-nearest-even.
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::BF16, 1.0), 0x3F80);
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F16, 1.0), 0x3C00);
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F16, 65504), 0x7BFF);
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F16, 65520), 0x7C00);  // rounds to inf
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F16, 1.0 + std::ldexp(1.0, -11)), 0x3C00);  // tie to even
  // f4e2m1fn: values {0, 0.5, 1, 1.5, 2, 3, 4, 6}; saturates.
  EXPECT_EQ(NarrowFloatBitsToDouble(PrimitiveType::F4E2M1FN, 0x7), 6.0);
  EXPECT_EQ(NarrowFloatBitsToDouble(PrimitiveType::F4E2M1FN, 0x1), 0.5);
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F4E2M1FN, 100), 0x7);
  // e8m0fnu: powers of two.
  EXPECT_EQ(NarrowFloatBitsToDouble(PrimitiveType::F8E8M0FNU, 127), 1.0);
  EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F8E8M0FNU, 4.0), 129);
  // Every finite e4m3fn pattern survives a round trip through double.
  for (int b = 0; b < 256; ++b) {
    double v = NarrowFloatBitsToDouble(PrimitiveType::F8E4M3FN, b);
    if (std::isnan(v)) continue;
    EXPECT_EQ(DoubleToNarrowFloatBits(PrimitiveType::F8E4M3FN, v), b) << b;
  }
}

TEST(LiteralTest, ShortNarrowTextReadsBackToTheSameValue) {
  // "5.7e+04" is XLA's 2-digit text for 57344 in f8e5m2fnuz.
  auto lit = ParseLiteral("5.7e+04", Shape(PrimitiveType::F8E5M2FNUZ, {}));
  ASSERT_TRUE(lit.ok());
  EXPECT_EQ(lit->GetAsDouble(0), 57344);
}

TEST(LiteralTest, TypedAccessAndEquality) {
  Literal l(Shape(PrimitiveType::S32, {2, 3}));
  EXPECT_EQ(l.element_count(), 6);
  EXPECT_EQ(l.raw_data().size(), 24u);
  l.SetFromInt64(l.LinearIndex({1, 2}), 42);
  EXPECT_EQ(l.GetAsInt64(5), 42);
  EXPECT_EQ(l.GetAsDouble(5), 42.0);
  Literal copy = l;
  EXPECT_EQ(copy, l);
  copy.SetFromInt64(0, 1);
  EXPECT_NE(copy, l);
  Literal f(Shape(PrimitiveType::BF16, {1}));
  f.SetFromDouble(0, 3.14159);
  EXPECT_NEAR(f.GetAsDouble(0), 3.140625, 1e-9);
}

}  // namespace
}  // namespace hmo
