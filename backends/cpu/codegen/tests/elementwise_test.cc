// Elementwise unary and binary operations, compared with hand-computed
// values.

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ElementwiseTest, FloatBinaryArithmetic) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  add = f32[4] add(a, b)
  sub = f32[4] subtract(a, b)
  mul = f32[4] multiply(a, b)
  div = f32[4] divide(a, b)
  rem = f32[4] remainder(a, b)
  pow = f32[4] power(a, b)
  ROOT t = (f32[4], f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(add, sub, mul, div, rem, pow)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {1, -7.5, 2, 9}), R1F(PrimitiveType::F32, {2, 2, 0.5, -4})});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& e = result->tuple_elements();
  EXPECT_THAT(AsDoubles(e[0]), ElementsAre(3, -5.5, 2.5, 5));
  EXPECT_THAT(AsDoubles(e[1]), ElementsAre(-1, -9.5, 1.5, 13));
  EXPECT_THAT(AsDoubles(e[2]), ElementsAre(2, -15, 1, -36));
  EXPECT_THAT(AsDoubles(e[3]), ElementsAre(0.5, -3.75, 4, -2.25));
  EXPECT_THAT(AsDoubles(e[4]), ElementsAre(1, -1.5, 0, 1));  // fmod: sign of the dividend
  EXPECT_THAT(AsDoubles(e[5]), ElementsAre(1, 56.25, std::sqrt(2.0f), 1.0f / 6561));
}

TEST(ElementwiseTest, MaximumMinimumPropagateNaN) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  mx = f32[4] maximum(a, b)
  mn = f32[4] minimum(a, b)
  ROOT t = (f32[4], f32[4]) tuple(mx, mn)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {1, kNaN, 3, -1}), R1F(PrimitiveType::F32, {2, 0, kNaN, -2})});
  ASSERT_TRUE(result.ok()) << result.status();
  auto mx = AsDoubles(result->tuple_elements()[0]);
  auto mn = AsDoubles(result->tuple_elements()[1]);
  EXPECT_EQ(mx[0], 2);
  EXPECT_TRUE(std::isnan(mx[1]));
  EXPECT_TRUE(std::isnan(mx[2]));
  EXPECT_EQ(mx[3], -1);
  EXPECT_EQ(mn[0], 1);
  EXPECT_TRUE(std::isnan(mn[1]));
  EXPECT_TRUE(std::isnan(mn[2]));
  EXPECT_EQ(mn[3], -2);
}

TEST(ElementwiseTest, FloatUnaryMath) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f64[3] parameter(0)
  exp = f64[3] exponential(x)
  expm1 = f64[3] exponential-minus-one(x)
  log = f64[3] log(x)
  log1p = f64[3] log-plus-one(x)
  logistic = f64[3] logistic(x)
  sqrt = f64[3] sqrt(x)
  rsqrt = f64[3] rsqrt(x)
  cbrt = f64[3] cbrt(x)
  tanh = f64[3] tanh(x)
  sin = f64[3] sine(x)
  cos = f64[3] cosine(x)
  tan = f64[3] tan(x)
  ROOT t = (f64[3], f64[3], f64[3], f64[3], f64[3], f64[3], f64[3], f64[3], f64[3], f64[3], f64[3], f64[3]) tuple(exp, expm1, log, log1p, logistic, sqrt, rsqrt, cbrt, tanh, sin, cos, tan)
})";
  const std::vector<double> x = {0.5, 2, 27};
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F64, x)});
  ASSERT_TRUE(result.ok()) << result.status();
  double (*fns[])(double) = {
      [](double v) { return std::exp(v); },   [](double v) { return std::expm1(v); },
      [](double v) { return std::log(v); },   [](double v) { return std::log1p(v); },
      [](double v) { return 1 / (1 + std::exp(-v)); }, [](double v) { return std::sqrt(v); },
      [](double v) { return 1 / std::sqrt(v); }, [](double v) { return std::cbrt(v); },
      [](double v) { return std::tanh(v); },  [](double v) { return std::sin(v); },
      [](double v) { return std::cos(v); },   [](double v) { return std::tan(v); }};
  for (int f = 0; f < 12; ++f) {
    auto got = AsDoubles(result->tuple_elements()[f]);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], fns[f](x[i]), 1e-12 * std::max(1.0, std::abs(fns[f](x[i])))) << f;
  }
}

TEST(ElementwiseTest, FloatRoundingSignAndClassification) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[6] parameter(0)
  floor = f32[6] floor(x)
  ceil = f32[6] ceil(x)
  afz = f32[6] round-nearest-afz(x)
  even = f32[6] round-nearest-even(x)
  sign = f32[6] sign(x)
  abs = f32[6] abs(x)
  neg = f32[6] negate(x)
  finite = pred[6] is-finite(x)
  ROOT t = (f32[6], f32[6], f32[6], f32[6], f32[6], f32[6], f32[6], pred[6]) tuple(floor, ceil, afz, even, sign, abs, neg, finite)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {2.5, -2.5, 0.5, -0.0, kInf, kNaN})});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& e = result->tuple_elements();
  auto floor = AsDoubles(e[0]);
  EXPECT_THAT(std::vector<double>(floor.begin(), floor.end() - 1), ElementsAre(2, -3, 0, 0, kInf));
  auto ceil = AsDoubles(e[1]);
  EXPECT_THAT(std::vector<double>(ceil.begin(), ceil.end() - 1), ElementsAre(3, -2, 1, 0, kInf));
  auto afz = AsDoubles(e[2]);
  EXPECT_THAT(std::vector<double>(afz.begin(), afz.end() - 1), ElementsAre(3, -3, 1, 0, kInf));
  auto even = AsDoubles(e[3]);
  EXPECT_THAT(std::vector<double>(even.begin(), even.end() - 1), ElementsAre(2, -2, 0, 0, kInf));
  auto sign = AsDoubles(e[4]);
  EXPECT_EQ(sign[0], 1);
  EXPECT_EQ(sign[1], -1);
  EXPECT_EQ(sign[2], 1);
  EXPECT_EQ(sign[3], 0);
  EXPECT_TRUE(std::signbit(sign[3]));
  EXPECT_EQ(sign[4], 1);
  EXPECT_TRUE(std::isnan(sign[5]));
  EXPECT_EQ(AsDoubles(e[5])[1], 2.5);
  EXPECT_EQ(AsDoubles(e[6])[0], -2.5);
  EXPECT_THAT(AsInts(e[7]), ElementsAre(1, 1, 1, 1, 0, 0));
}

TEST(ElementwiseTest, Atan2) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  y = f32[3] parameter(0)
  x = f32[3] parameter(1)
  ROOT a = f32[3] atan2(y, x)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {1, 1, -1}), R1F(PrimitiveType::F32, {1, -1, 0})});
  ASSERT_TRUE(result.ok()) << result.status();
  auto got = AsDoubles(*result);
  EXPECT_NEAR(got[0], M_PI / 4, 1e-6);
  EXPECT_NEAR(got[1], 3 * M_PI / 4, 1e-6);
  EXPECT_NEAR(got[2], -M_PI / 2, 1e-6);
}

TEST(ElementwiseTest, SignedIntegerDivisionAndRemainderEdgeCases) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  a = s32[5] parameter(0)
  b = s32[5] parameter(1)
  div = s32[5] divide(a, b)
  rem = s32[5] remainder(a, b)
  ROOT t = (s32[5], s32[5]) tuple(div, rem)
})";
  const int64_t kMin = std::numeric_limits<int32_t>::min();
  auto result = RunHlo(kHlo, {R1I(PrimitiveType::S32, {7, -7, 5, kMin, kMin}), R1I(PrimitiveType::S32, {2, 2, 0, -1, 3})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsInts(result->tuple_elements()[0]), ElementsAre(3, -3, -1, kMin, kMin / 3));
  EXPECT_THAT(AsInts(result->tuple_elements()[1]), ElementsAre(1, -1, 5, 0, kMin % 3));
}

TEST(ElementwiseTest, UnsignedIntegerDivisionByZero) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  a = u8[3] parameter(0)
  b = u8[3] parameter(1)
  div = u8[3] divide(a, b)
  rem = u8[3] remainder(a, b)
  ROOT t = (u8[3], u8[3]) tuple(div, rem)
})";
  auto result = RunHlo(kHlo, {R1I(PrimitiveType::U8, {200, 9, 7}), R1I(PrimitiveType::U8, {7, 0, 255})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsInts(result->tuple_elements()[0]), ElementsAre(28, 255, 0));
  EXPECT_THAT(AsInts(result->tuple_elements()[1]), ElementsAre(4, 9, 7));
}

TEST(ElementwiseTest, ShiftsSaturateOutOfRangeAmounts) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  a = s32[4] parameter(0)
  b = s32[4] parameter(1)
  shl = s32[4] shift-left(a, b)
  sra = s32[4] shift-right-arithmetic(a, b)
  srl = s32[4] shift-right-logical(a, b)
  ROOT t = (s32[4], s32[4], s32[4]) tuple(shl, sra, srl)
})";
  auto result = RunHlo(kHlo, {R1I(PrimitiveType::S32, {-8, -8, 3, -1}), R1I(PrimitiveType::S32, {1, 32, 33, -1})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsInts(result->tuple_elements()[0]), ElementsAre(-16, 0, 0, 0));
  EXPECT_THAT(AsInts(result->tuple_elements()[1]), ElementsAre(-4, -1, 0, -1));
  EXPECT_THAT(AsInts(result->tuple_elements()[2]), ElementsAre(0x7ffffffc, 0, 0, 0));
}

TEST(ElementwiseTest, IntegerUnaryAndBitwise) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  a = s16[4] parameter(0)
  b = s16[4] parameter(1)
  abs = s16[4] abs(a)
  neg = s16[4] negate(a)
  sign = s16[4] sign(a)
  not = s16[4] not(a)
  popcnt = s16[4] popcnt(a)
  clz = s16[4] count-leading-zeros(a)
  and = s16[4] and(a, b)
  or = s16[4] or(a, b)
  xor = s16[4] xor(a, b)
  max = s16[4] maximum(a, b)
  min = s16[4] minimum(a, b)
  pow = s16[4] power(a, b)
  ROOT t = (s16[4], s16[4], s16[4], s16[4], s16[4], s16[4], s16[4], s16[4], s16[4], s16[4], s16[4], s16[4]) tuple(abs, neg, sign, not, popcnt, clz, and, or, xor, max, min, pow)
})";
  auto result = RunHlo(kHlo, {R1I(PrimitiveType::S16, {-3, 0, 12, 1}), R1I(PrimitiveType::S16, {3, 5, 2, -2})});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& e = result->tuple_elements();
  EXPECT_THAT(AsInts(e[0]), ElementsAre(3, 0, 12, 1));
  EXPECT_THAT(AsInts(e[1]), ElementsAre(3, 0, -12, -1));
  EXPECT_THAT(AsInts(e[2]), ElementsAre(-1, 0, 1, 1));
  EXPECT_THAT(AsInts(e[3]), ElementsAre(2, -1, -13, -2));
  EXPECT_THAT(AsInts(e[4]), ElementsAre(15, 0, 2, 1));
  EXPECT_THAT(AsInts(e[5]), ElementsAre(0, 16, 12, 15));
  EXPECT_THAT(AsInts(e[6]), ElementsAre(-3 & 3, 0, 12 & 2, 1 & -2));
  EXPECT_THAT(AsInts(e[7]), ElementsAre(-3 | 3, 5, 12 | 2, 1 | -2));
  EXPECT_THAT(AsInts(e[8]), ElementsAre(-3 ^ 3, 5, 12 ^ 2, 1 ^ -2));
  EXPECT_THAT(AsInts(e[9]), ElementsAre(3, 5, 12, 1));
  EXPECT_THAT(AsInts(e[10]), ElementsAre(-3, 0, 2, -2));
  // 1^-2 = 1 (base 1 with a negative exponent), 0^5 = 0.
  EXPECT_THAT(AsInts(e[11]), ElementsAre(-27, 0, 144, 1));
}

TEST(ElementwiseTest, CompareSelectClamp) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  u = u32[4] parameter(2)
  lt = pred[4] compare(a, b), direction=LT
  ne = pred[4] compare(a, b), direction=NE
  ge = pred[4] compare(a, b), direction=GE
  zero = u32[] constant(0)
  zeros = u32[4] broadcast(zero), dimensions={}
  ugt = pred[4] compare(u, zeros), direction=GT
  sel = f32[4] select(lt, a, b)
  lo = f32[] constant(-1)
  hi = f32[] constant(1)
  clamp = f32[4] clamp(lo, a, hi)
  total = pred[4] compare(a, b), direction=LT, type=TOTALORDER
  ROOT t = (pred[4], pred[4], pred[4], pred[4], f32[4], f32[4], pred[4]) tuple(lt, ne, ge, ugt, sel, clamp, total)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {1, kNaN, -5, 0.5}), R1F(PrimitiveType::F32, {2, 0, -5, -0.0}),
                              R1I(PrimitiveType::U32, {0, 1, 4294967295LL, 7})});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& e = result->tuple_elements();
  EXPECT_THAT(AsInts(e[0]), ElementsAre(1, 0, 0, 0));
  EXPECT_THAT(AsInts(e[1]), ElementsAre(1, 1, 0, 1));
  EXPECT_THAT(AsInts(e[2]), ElementsAre(0, 0, 1, 1));
  EXPECT_THAT(AsInts(e[3]), ElementsAre(0, 1, 1, 1));
  auto sel = AsDoubles(e[4]);
  EXPECT_EQ(sel[0], 1);
  EXPECT_EQ(sel[1], 0);
  EXPECT_EQ(sel[2], -5);
  auto clamp = AsDoubles(e[5]);
  EXPECT_EQ(clamp[0], 1);
  EXPECT_TRUE(std::isnan(clamp[1]));
  EXPECT_EQ(clamp[2], -1);
  EXPECT_EQ(clamp[3], 0.5);
  // Total order: NaN is above everything, -0 < +0... here 0.5 > -0.
  EXPECT_THAT(AsInts(e[6]), ElementsAre(1, 0, 0, 0));
}


TEST(ElementwiseTest, ReducePrecisionToBFloat16AndHalfRanges) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[6] parameter(0)
  bf = f32[6] reduce-precision(x), exponent_bits=8, mantissa_bits=7
  h = f32[6] reduce-precision(x), exponent_bits=5, mantissa_bits=10
  ROOT t = (f32[6], f32[6]) tuple(bf, h)
})";
  const double tie_even = 1 + std::ldexp(1, -8);      // halfway between bf16 1 and 1+2^-7
  const double tie_odd = 1 + 3 * std::ldexp(1, -8);   // halfway, rounds up to 1+2^-6
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {tie_even, tie_odd, 70000, 1e-6, -kInf, kNaN})});
  ASSERT_TRUE(result.ok()) << result.status();
  auto bf = AsDoubles(result->tuple_elements()[0]);
  EXPECT_EQ(bf[0], 1.0);
  EXPECT_EQ(bf[1], 1 + std::ldexp(1, -6));
  EXPECT_EQ(bf[2], 70144);
  EXPECT_EQ(bf[4], -kInf);
  EXPECT_TRUE(std::isnan(bf[5]));
  auto h = AsDoubles(result->tuple_elements()[1]);
  EXPECT_EQ(h[0], tie_even);  // exact in 10 mantissa bits
  EXPECT_EQ(h[2], kInf);      // beyond the 5-bit exponent range
  EXPECT_EQ(h[3], 0.0);       // below the smallest normal of the reduced format
}

}  // namespace
}  // namespace hmo::cpu::testing
