// f16/bf16 <-> f32 conversions: known encodings, rounding ties, round trips.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "hmo/codegen/runtime/runtime_functions.h"

namespace {

TEST(HalfConversionTest, KnownEncodings) {
  EXPECT_EQ(__hmo_cpu_f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(__hmo_cpu_f32_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(__hmo_cpu_f32_to_f16(0.0f), 0x0000);
  EXPECT_EQ(__hmo_cpu_f32_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(__hmo_cpu_f32_to_f16(65504.0f), 0x7bff);               // Largest finite.
  EXPECT_EQ(__hmo_cpu_f32_to_f16(std::ldexp(1.0f, -14)), 0x0400);  // Smallest normal.
  EXPECT_EQ(__hmo_cpu_f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);  // Smallest subnormal.
  EXPECT_EQ(__hmo_cpu_f32_to_f16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(__hmo_cpu_f32_to_f16(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(__hmo_cpu_f16_to_f32(0x3555), 0.333251953125f);
  EXPECT_EQ(__hmo_cpu_f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(__hmo_cpu_f16_to_f32(0x83ff), -std::ldexp(1023.0f, -24));
  EXPECT_EQ(__hmo_cpu_f16_to_f32(0xfc00), -std::numeric_limits<float>::infinity());
}

TEST(HalfConversionTest, RoundsToNearestTiesToEven) {
  // 1 + 2^-11 is halfway between 1 (even) and 1 + 2^-10 (odd): down.
  EXPECT_EQ(__hmo_cpu_f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3*2^-11 is halfway between 0x3c01 (odd) and 0x3c02 (even): up.
  EXPECT_EQ(__hmo_cpu_f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Just above the halfway point rounds up.
  EXPECT_EQ(__hmo_cpu_f32_to_f16(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3c01);
  // 65520 ties between 65504 (odd mantissa) and 65536 (overflow): infinity;
  // the float just below it stays finite.
  EXPECT_EQ(__hmo_cpu_f32_to_f16(65520.0f), 0x7c00);
  EXPECT_EQ(__hmo_cpu_f32_to_f16(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  // Subnormal ties: 2^-25 -> 0 (even), 3*2^-25 -> 2*2^-24 (even).
  EXPECT_EQ(__hmo_cpu_f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(__hmo_cpu_f32_to_f16(3 * std::ldexp(1.0f, -25)), 0x0002);
  // Rounding up from the largest subnormal gives the smallest normal.
  EXPECT_EQ(__hmo_cpu_f32_to_f16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)), 0x0400);
  EXPECT_EQ(__hmo_cpu_f32_to_f16(std::ldexp(1.0f, -40)), 0x0000);
}

TEST(HalfConversionTest, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t half = static_cast<uint16_t>(bits);
    const float widened = __hmo_cpu_f16_to_f32(half);
    if ((half & 0x7c00) == 0x7c00 && (half & 0x3ff) != 0) {
      ASSERT_TRUE(std::isnan(widened)) << std::hex << bits;
      ASSERT_EQ(__hmo_cpu_f32_to_f16(widened) & 0x7e00, 0x7e00) << std::hex << bits;
      ASSERT_EQ(__hmo_cpu_f32_to_f16(widened) & 0x8000, half & 0x8000);
      continue;
    }
    ASSERT_EQ(__hmo_cpu_f32_to_f16(widened), half) << std::hex << bits;
  }
}

TEST(HalfConversionTest, RandomFloatsRoundToTheNearestHalf) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> exponent(-26.0f, 16.0f);
  for (int i = 0; i < 100000; ++i) {
    const float value = std::exp2(exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
    const uint16_t half = __hmo_cpu_f32_to_f16(value);
    if ((half & 0x7fff) >= 0x7c00) {
      ASSERT_GE(std::fabs(value), 65520.0f);
      continue;
    }
    const double error = std::fabs(double(value) - double(__hmo_cpu_f16_to_f32(half)));
    // Neighbors one encoding up and down (within the same sign) are no closer.
    for (int delta : {-1, 1}) {
      const int neighbor = (half & 0x7fff) + delta;
      if (neighbor < 0 || neighbor >= 0x7c00) continue;
      const uint16_t other = static_cast<uint16_t>((half & 0x8000) | neighbor);
      ASSERT_LE(error, std::fabs(double(value) - double(__hmo_cpu_f16_to_f32(other)))) << value;
    }
  }
}

TEST(BFloat16ConversionTest, KnownValuesAndTies) {
  EXPECT_EQ(__hmo_cpu_f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(__hmo_cpu_bf16_to_f32(0xc040), -3.0f);
  // 1 + 2^-8 ties between 1 (even) and 1 + 2^-7: down; 1 + 3*2^-8: up to even.
  EXPECT_EQ(__hmo_cpu_f32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(__hmo_cpu_f32_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(__hmo_cpu_f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_TRUE(
      std::isnan(__hmo_cpu_bf16_to_f32(__hmo_cpu_f32_to_bf16(std::bit_cast<float>(0x7f800001u)))));
}

}  // namespace
