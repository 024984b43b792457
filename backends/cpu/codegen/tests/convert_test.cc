// convert between every supported element type pair family, and
// bitcast-convert; f16/bf16 rounding.

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hmo/base/half_float_bits.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

using ::testing::ElementsAre;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ConvertTest, FloatToIntegerSaturatesAndMapsNaNToZero) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[6] parameter(0)
  s8 = s8[6] convert(x)
  u8 = u8[6] convert(x)
  s32 = s32[6] convert(x)
  u64 = u64[6] convert(x)
  ROOT t = (s8[6], u8[6], s32[6], u64[6]) tuple(s8, u8, s32, u64)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {-2.7, 2.7, 300, -300, kNaN, kInf})});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& e = result->tuple_elements();
  EXPECT_THAT(AsInts(e[0]), ElementsAre(-2, 2, 127, -128, 0, 127));
  EXPECT_THAT(AsInts(e[1]), ElementsAre(0, 2, 255, 0, 0, 255));
  EXPECT_THAT(AsInts(e[2]), ElementsAre(-2, 2, 300, -300, 0, std::numeric_limits<int32_t>::max()));
  EXPECT_EQ(e[3].GetAsUint64(5), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(e[3].GetAsUint64(2), 300u);
}

TEST(ConvertTest, IntegerWideningNarrowingAndPred) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = s32[4] parameter(0)
  u = u8[4] parameter(1)
  s8 = s8[4] convert(x)
  s64 = s64[4] convert(x)
  u16 = u16[4] convert(x)
  from_u8 = s32[4] convert(u)
  pred = pred[4] convert(x)
  back = s32[4] convert(pred)
  f = f32[4] convert(u)
  ROOT t = (s8[4], s64[4], u16[4], s32[4], pred[4], s32[4], f32[4]) tuple(s8, s64, u16, from_u8, pred, back, f)
})";
  auto result = RunHlo(kHlo, {R1I(PrimitiveType::S32, {-1, 0, 257, 70000}), R1I(PrimitiveType::U8, {255, 0, 128, 1})});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& e = result->tuple_elements();
  EXPECT_THAT(AsInts(e[0]), ElementsAre(-1, 0, 1, 70000 % 256 - 256 * (70000 % 256 >= 128)));
  EXPECT_THAT(AsInts(e[1]), ElementsAre(-1, 0, 257, 70000));
  EXPECT_THAT(AsInts(e[2]), ElementsAre(65535, 0, 257, 70000 - 65536));
  EXPECT_THAT(AsInts(e[3]), ElementsAre(255, 0, 128, 1));
  EXPECT_THAT(AsInts(e[4]), ElementsAre(1, 0, 1, 1));
  EXPECT_THAT(AsInts(e[5]), ElementsAre(1, 0, 1, 1));
  EXPECT_THAT(AsDoubles(e[6]), ElementsAre(255, 0, 128, 1));
}

TEST(ConvertTest, HalfAndBFloat16RoundToNearestEven) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[6] parameter(0)
  h = f16[6] convert(x)
  bf = bf16[6] convert(x)
  h_back = f32[6] convert(h)
  bf_back = f64[6] convert(bf)
  ROOT t = (f16[6], bf16[6], f32[6], f64[6]) tuple(h, bf, h_back, bf_back)
})";
  // 1 + 2^-11 is halfway between two f16 values: ties to even (1).
  // 1 + 3*2^-11 ties to the even neighbour above (1 + 2^-9).
  // 1e-7 is an f16 subnormal (rounds to 2 * 2^-24), 70000 overflows f16.
  const double a = 1 + std::ldexp(1, -11), b = 1 + 3 * std::ldexp(1, -11);
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {a, b, 1e-7, 70000, -kInf, kNaN})});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& e = result->tuple_elements();
  auto h = AsDoubles(e[2]);
  EXPECT_EQ(h[0], 1.0);
  EXPECT_EQ(h[1], 1 + std::ldexp(1, -9));
  EXPECT_EQ(h[2], std::ldexp(2, -24));
  EXPECT_EQ(h[3], kInf);
  EXPECT_EQ(h[4], -kInf);
  EXPECT_TRUE(std::isnan(h[5]));
  // bf16 keeps 8 significant bits: 1 + 2^-11 -> 1; 70000 -> 70144 (nearest).
  auto bf = AsDoubles(e[3]);
  EXPECT_EQ(bf[0], 1.0);
  EXPECT_EQ(bf[3], 70144);
  EXPECT_EQ(bf[4], -kInf);
  EXPECT_TRUE(std::isnan(bf[5]));
  // The f16 literal itself holds the bits.
  EXPECT_EQ(e[0].GetAsDouble(3), kInf);
  EXPECT_EQ(e[1].GetAsDouble(3), 70144);
}

TEST(ConvertTest, HalfArithmeticRoundsEachStep) {
  // In f16, 2048 + 1 = 2048 (spacing 2 there); computing in f32 without
  // rounding would give 2049 -> 2050 after the second add.
  constexpr const char* kHlo = R"(
HloModule m
fused {
  p = f16[2] parameter(0)
  one = f16[] constant(1)
  ones = f16[2] broadcast(one), dimensions={}
  a = f16[2] add(p, ones)
  ROOT b = f16[2] add(a, ones)
}
ENTRY e {
  x = f16[2] parameter(0)
  ROOT f = f16[2] fusion(x), kind=kLoop, calls=fused
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F16, {2048, 1})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsDoubles(*result), ElementsAre(2048, 3));
}

// Inside a fusion an f16 value is an f32 rounded to f16's values in f32
// (EmitRoundToStorage): it must be exactly what the f16 bits give back, for
// every f16 value, both f32 neighbours of each, the midpoints between
// consecutive f16 values (ties) and their neighbours, overflow, infinities
// and NaNs (the quiet NaN of their sign, as an f16 stored and loaded).
TEST(ConvertTest, HalfRoundingInsideAFusionIsTheF16BitsRoundTrip) {
  std::vector<float> values;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_float_bits::F16ToF32(static_cast<uint16_t>(h));
    values.push_back(f);
    values.push_back(std::nextafter(f, std::numeric_limits<float>::infinity()));
    values.push_back(std::nextafter(f, -std::numeric_limits<float>::infinity()));
    if ((h & 0x7fff) < 0x7bff) {  // finite, below the largest finite value
      const float next = half_float_bits::F16ToF32(static_cast<uint16_t>(h + 1));
      const float middle = f + (next - f) / 2;
      values.push_back(middle);
      values.push_back(std::nextafter(middle, std::numeric_limits<float>::infinity()));
      values.push_back(std::nextafter(middle, -std::numeric_limits<float>::infinity()));
    }
  }
  for (float f : {65519.99f, 65520.0f, 65536.0f, 1e30f, 3e38f, 1e-30f, 0.0f}) {
    values.push_back(f);
    values.push_back(-f);
  }
  const int64_t n = static_cast<int64_t>(values.size());
  const std::string hlo = absl::StrCat(R"(
HloModule m
fused {
  p = f32[)",
                                       n, R"(] parameter(0)
  h = f16[)",
                                       n, R"(] convert(p)
  w = f32[)",
                                       n, R"(] convert(h)
  ROOT bits = u32[)",
                                       n, R"(] bitcast-convert(w)
}
ENTRY e {
  x = f32[)",
                                       n, R"(] parameter(0)
  ROOT f = u32[)",
                                       n, R"(] fusion(x), kind=kLoop, calls=fused
})");
  Literal argument(Shape(PrimitiveType::F32, {n}));
  for (int64_t i = 0; i < n; ++i) argument.SetFromDouble(i, values[i]);
  auto result = RunHlo(hlo, {argument});
  ASSERT_TRUE(result.ok()) << result.status();
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float expected = half_float_bits::F16ToF32(half_float_bits::F32ToF16(values[i]));
    uint32_t expected_bits;
    std::memcpy(&expected_bits, &expected, sizeof(expected_bits));
    // A NaN becomes the quiet NaN of its sign (payloads are not kept).
    if (std::isnan(expected)) expected_bits = (expected_bits & 0x80000000u) | 0x7fc00000u;
    if (static_cast<uint32_t>(result->GetAsUint64(i)) != expected_bits && ++mismatches <= 5) {
      ADD_FAILURE() << "f32 " << values[i] << ": got bits " << std::hex << result->GetAsUint64(i)
                    << ", want " << expected_bits;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(ConvertTest, FloatWidthChanges) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f64[3] parameter(0)
  f = f32[3] convert(x)
  d = f64[3] convert(f)
  bf = bf16[3] convert(x)
  h = f16[3] convert(bf)
  ROOT t = (f64[3], f16[3]) tuple(d, h)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F64, {0.1, 1e300, -3.5})});
  ASSERT_TRUE(result.ok()) << result.status();
  auto d = AsDoubles(result->tuple_elements()[0]);
  EXPECT_EQ(d[0], static_cast<double>(0.1f));
  EXPECT_EQ(d[1], kInf);
  EXPECT_EQ(d[2], -3.5);
  auto h = AsDoubles(result->tuple_elements()[1]);
  EXPECT_EQ(h[1], kInf);
  EXPECT_EQ(h[2], -3.5);
}

TEST(ConvertTest, BitcastConvertReinterpretsBits) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  h = f16[2] parameter(1)
  bits = s32[2] bitcast-convert(x)
  back = f32[2] bitcast-convert(bits)
  hbits = u16[2] bitcast-convert(h)
  ROOT t = (s32[2], f32[2], u16[2]) tuple(bits, back, hbits)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {1.0, -2.0}), R1F(PrimitiveType::F16, {1.0, -2.0})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsInts(result->tuple_elements()[0]), ElementsAre(0x3f800000, static_cast<int32_t>(0xc0000000)));
  EXPECT_THAT(AsDoubles(result->tuple_elements()[1]), ElementsAre(1.0, -2.0));
  EXPECT_THAT(AsInts(result->tuple_elements()[2]), ElementsAre(0x3c00, 0xc000));
}

}  // namespace
}  // namespace hmo::cpu::testing
