// Elementwise semantics: the edge cases where XLA's definitions differ from
// naive C++ (integer division by zero, NaN-propagating max/min, saturating
// conversions, shifts past the bit width, rounding of narrow floats).

#include <cmath>
#include <limits>

#include "evaluator_test_support.h"

namespace hmo::eval_test {
namespace {

TEST(ElementwiseTest, IntegerDivideAndRemainderFollowXlaEdgeCases) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = s32[4] constant({7, -7, 5, -2147483648})
  b = s32[4] constant({2, 2, 0, -1})
  d = s32[4] divide(a, b)
  r = s32[4] remainder(a, b)
  ROOT t = (s32[4], s32[4]) tuple(d, r)
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]),
            (std::vector<int64_t>{3, -3, -1, -2147483648LL}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{1, -1, 5, 0}));
}

TEST(ElementwiseTest, MaximumAndMinimumPropagateNaN) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, nan, 3})
  b = f32[3] constant({2, 0, nan})
  mx = f32[3] maximum(a, b)
  mn = f32[3] minimum(a, b)
  ROOT t = (f32[3], f32[3]) tuple(mx, mn)
})"));
  std::vector<double> mx = Doubles(result.tuple_elements()[0]);
  std::vector<double> mn = Doubles(result.tuple_elements()[1]);
  EXPECT_EQ(mx[0], 2);
  EXPECT_TRUE(std::isnan(mx[1]));
  EXPECT_TRUE(std::isnan(mx[2]));
  EXPECT_EQ(mn[0], 1);
  EXPECT_TRUE(std::isnan(mn[1]));
  EXPECT_TRUE(std::isnan(mn[2]));
}

TEST(ElementwiseTest, ShiftsPastBitWidth) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = s32[4] constant({1, -8, -8, 1})
  b = s32[4] constant({3, 1, 40, 32})
  l = s32[4] shift-left(a, b)
  ra = s32[4] shift-right-arithmetic(a, b)
  rl = s32[4] shift-right-logical(a, b)
  ROOT t = (s32[4], s32[4], s32[4]) tuple(l, ra, rl)
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]), (std::vector<int64_t>{8, -16, 0, 0}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{0, -4, -1, 0}));
  EXPECT_EQ(Ints(result.tuple_elements()[2]), (std::vector<int64_t>{0, 2147483644, 0, 0}));
}

TEST(ElementwiseTest, IntegerArithmeticWraps) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = s8[2] constant({100, -128})
  s = s8[2] add(a, a)
  n = s8[2] negate(a)
  ROOT t = (s8[2], s8[2]) tuple(s, n)
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]), (std::vector<int64_t>{-56, 0}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{-100, -128}));
}

TEST(ElementwiseTest, ConvertSaturatesAndMapsNaNToZero) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[5] constant({1.9, -1.9, 3e9, -3e9, nan})
  i = s32[5] convert(a)
  b = f32[3] constant({-5, 300, 2.5})
  u = u8[3] convert(b)
  p = pred[5] convert(a)
  ROOT t = (s32[5], u8[3], pred[5]) tuple(i, u, p)
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]),
            (std::vector<int64_t>{1, -1, 2147483647, -2147483648LL, 0}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{0, 255, 2}));
  EXPECT_EQ(Ints(result.tuple_elements()[2]), (std::vector<int64_t>{1, 1, 1, 1, 1}));
}

TEST(ElementwiseTest, RoundingModes) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[5] constant({0.5, 1.5, 2.5, -0.5, -2.7})
  even = f32[5] round-nearest-even(a)
  afz = f32[5] round-nearest-afz(a)
  fl = f32[5] floor(a)
  ROOT t = (f32[5], f32[5], f32[5]) tuple(even, afz, fl)
})"));
  EXPECT_EQ(Doubles(result.tuple_elements()[0]), (std::vector<double>{0, 2, 2, -0.0, -3}));
  EXPECT_EQ(Doubles(result.tuple_elements()[1]), (std::vector<double>{1, 2, 3, -1, -3}));
  EXPECT_EQ(Doubles(result.tuple_elements()[2]), (std::vector<double>{0, 1, 2, -1, -3}));
}

TEST(ElementwiseTest, CompareTotalOrderDistinguishesSignedZeroAndNaN) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[2] constant({-0, nan})
  b = f32[2] constant({0, nan})
  lt_total = pred[2] compare(a, b), direction=LT, type=TOTALORDER
  lt = pred[2] compare(a, b), direction=LT
  eq_total = pred[2] compare(a, b), direction=EQ, type=TOTALORDER
  eq = pred[2] compare(a, b), direction=EQ
  ROOT t = (pred[2], pred[2], pred[2], pred[2]) tuple(lt_total, lt, eq_total, eq)
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(Ints(result.tuple_elements()[2]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Ints(result.tuple_elements()[3]), (std::vector<int64_t>{1, 0}));
}

TEST(ElementwiseTest, Bf16RoundsEveryResultToNearestEven) {
  // 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: ties to 1.
  // (1 + 2^-7) + 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties to the
  // even one, 1 + 2^-6.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = bf16[2] constant({1, 1.0078125})
  b = bf16[2] constant({0.00390625, 0.00390625})
  ROOT s = bf16[2] add(a, b)
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{1.0, 1.015625}));
}

TEST(ElementwiseTest, BitCountingAndLogic) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = s32[3] constant({7, -1, 0})
  pc = s32[3] popcnt(a)
  lz = s32[3] count-leading-zeros(a)
  n = s32[3] not(a)
  b = u8[2] constant({12, 10})
  c = u8[2] constant({10, 6})
  x = u8[2] xor(b, c)
  p = pred[2] constant({true, false})
  np = pred[2] not(p)
  ROOT t = (s32[3], s32[3], s32[3], u8[2], pred[2]) tuple(pc, lz, n, x, np)
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]), (std::vector<int64_t>{3, 32, 0}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{29, 0, 32}));
  EXPECT_EQ(Ints(result.tuple_elements()[2]), (std::vector<int64_t>{-8, 0, -1}));
  EXPECT_EQ(Ints(result.tuple_elements()[3]), (std::vector<int64_t>{6, 12}));
  EXPECT_EQ(Ints(result.tuple_elements()[4]), (std::vector<int64_t>{0, 1}));
}

TEST(ElementwiseTest, TranscendentalsAndSign) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[3] constant({0, 1, -4})
  lg = f32[3] logistic(a)
  sg = f32[3] sign(a)
  ab = f32[3] abs(a)
  fin = f32[3] constant({1, inf, nan})
  isf = pred[3] is-finite(fin)
  pw = f32[3] power(a, a)
  ROOT t = (f32[3], f32[3], f32[3], pred[3], f32[3]) tuple(lg, sg, ab, isf, pw)
})"));
  std::vector<double> lg = Doubles(result.tuple_elements()[0]);
  EXPECT_FLOAT_EQ(lg[0], 0.5);
  EXPECT_FLOAT_EQ(lg[1], 1.0 / (1.0 + std::exp(-1.0)));
  EXPECT_EQ(Doubles(result.tuple_elements()[1]), (std::vector<double>{0, 1, -1}));
  EXPECT_EQ(Doubles(result.tuple_elements()[2]), (std::vector<double>{0, 1, 4}));
  EXPECT_EQ(Ints(result.tuple_elements()[3]), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(Doubles(result.tuple_elements()[4]), (std::vector<double>{1, 1, 1.0 / 256}));
}

TEST(ElementwiseTest, SelectClampWithScalarBounds) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  lo = s32[] constant(0)
  hi = s32[] constant(5)
  x = s32[3] constant({-5, 3, 9})
  c = s32[3] clamp(lo, x, hi)
  p = pred[3] constant({true, false, true})
  y = s32[3] constant({10, 20, 30})
  s = s32[3] select(p, x, y)
  ROOT t = (s32[3], s32[3]) tuple(c, s)
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]), (std::vector<int64_t>{0, 3, 5}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{-5, 20, 9}));
}

TEST(ElementwiseTest, BitcastConvertAndIota) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[2] constant({1, -2})
  b = s32[2] bitcast-convert(a)
  i = s32[2,3] iota(), iota_dimension=1
  f = f32[3] iota(), iota_dimension=0
  ROOT t = (s32[2], s32[2,3], f32[3]) tuple(b, i, f)
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]),
            (std::vector<int64_t>{1065353216, static_cast<int32_t>(0xC0000000u)}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(Doubles(result.tuple_elements()[2]), (std::vector<double>{0, 1, 2}));
}

TEST(ElementwiseTest, ConvertF64ToBf16RoundsOnce) {
  // 1 + 2^-8 + 2^-30 is just above the bf16 halfway point 1 + 2^-8, so it
  // rounds up to 1 + 2^-7; rounding through f32 first would land exactly on
  // the halfway point and tie down to 1.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f64[1] constant({1.0039062509313226})
  ROOT b = bf16[1] convert(a)
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{1.0078125}));
}

TEST(ElementwiseTest, F16ComputesInF32AndRounds) {
  // 2049 is not an f16 value (spacing 2 above 2048): 2048 + 1 ties to 2048;
  // 2048 + 3 = 2051 ties to the even 2052.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f16[2] constant({2048, 2048})
  b = f16[2] constant({1, 3})
  ROOT s = f16[2] add(a, b)
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{2048, 2052}));
}

TEST(ElementwiseTest, UnsignedSixtyFourBitValuesStayExact) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = u64[1] constant({18446744073709551615})
  one = u64[1] constant({1})
  s = u64[1] add(a, one)
  d = u64[1] divide(a, one)
  ROOT t = (u64[1], u64[1]) tuple(s, d)
})"));
  EXPECT_EQ(result.tuple_elements()[0].GetAsUint64(0), 0u);
  EXPECT_EQ(result.tuple_elements()[1].GetAsUint64(0), 18446744073709551615ull);
}

TEST(ElementwiseTest, UnsignedDivideByZeroIsAllOnes) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = u8[2] constant({7, 200})
  z = u8[2] constant({0, 0})
  ROOT d = u8[2] divide(a, z)
})"));
  EXPECT_EQ(Ints(result), (std::vector<int64_t>{255, 255}));
}

}  // namespace
TEST(ElementwiseTest, InverseAndHyperbolicFunctions) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f64[1] constant({0.5})
  y = f64[1] constant({1.5})
  ROOT t = (f64[1], f64[1], f64[1], f64[1], f64[1], /*index=5*/f64[1], f64[1], f64[1]) tuple(acos(x), acosh(y), asin(x), asinh(x), atan(x), atanh(x), cosh(x), sinh(x))
})"));
  const double expected[] = {std::acos(0.5), std::acosh(1.5), std::asin(0.5), std::asinh(0.5),
                             std::atan(0.5), std::atanh(0.5), std::cosh(0.5), std::sinh(0.5)};
  for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(Doubles(result.tuple_elements()[i])[0], expected[i]) << i;
}

}  // namespace hmo::eval_test
