// CompareLiterals: exact integers, float tolerances at their edges, and
// messages that say where results differ.

#include "hmo/execution/literal_comparison.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo {
namespace {

using ::testing::HasSubstr;

TEST(LiteralComparisonTest, OneUlpPassesAndALargeDifferenceFails) {
  const float one = 1.0f;
  const float next = std::nextafter(one, 2.0f);
  const Literal expected = Literal::CreateR1FromDoubles(PrimitiveType::F32, {one, 2});
  const Literal close = Literal::CreateR1FromDoubles(PrimitiveType::F32, {next, 2});
  EXPECT_TRUE(CompareLiterals(expected, close).ok());
  const Literal far = Literal::CreateR1FromDoubles(PrimitiveType::F32, {1.001, 2});
  absl::Status status = CompareLiterals(expected, far);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("output {} f32[2]: 1 of 2 elements differ; first at index {0}"));
  EXPECT_THAT(status.message(), HasSubstr("expected 1, actual 1.001"));
}

TEST(LiteralComparisonTest, NearZeroResultsOfLargeOutputsGetTheOutputsScale) {
  // A long sum that cancels to ~0 carries the reassociation error of its
  // large terms: f32 admits 1e-5 of the output's largest magnitude.
  const Literal expected = Literal::CreateR1FromDoubles(PrimitiveType::F32, {1000, 0.001});
  EXPECT_TRUE(CompareLiterals(expected,
                              Literal::CreateR1FromDoubles(PrimitiveType::F32, {1000, 0.008}))
                  .ok());
  // The same absolute error is a mismatch in an output of small values.
  const Literal small = Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 0.001});
  EXPECT_FALSE(
      CompareLiterals(small, Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 0.008})).ok());
  // And a wrong large element is still one.
  EXPECT_FALSE(CompareLiterals(expected,
                               Literal::CreateR1FromDoubles(PrimitiveType::F32, {1000.5, 0.001}))
                   .ok());
}

TEST(LiteralComparisonTest, UlpBoundIsExact) {
  // Near zero relative tolerance does not help; ULPs decide. 1e-30 is far
  // below the absolute tolerance, so switch both off.
  LiteralComparisonOptions options;
  options.float_tolerance = FloatTolerance{0, 0, 8};
  float base = 3.0f;
  float eight = base;
  for (int i = 0; i < 8; ++i) eight = std::nextafter(eight, 4.0f);
  const float nine = std::nextafter(eight, 4.0f);
  const Literal e = Literal::CreateR0FromDouble(PrimitiveType::F32, base);
  EXPECT_TRUE(CompareLiterals(e, Literal::CreateR0FromDouble(PrimitiveType::F32, eight), options).ok());
  EXPECT_FALSE(CompareLiterals(e, Literal::CreateR0FromDouble(PrimitiveType::F32, nine), options).ok());
  EXPECT_EQ(UlpDistance(PrimitiveType::F32, base, nine), 9);
  EXPECT_EQ(UlpDistance(PrimitiveType::F32, -0.0, 0.0), 0);
  // Across zero: the smallest subnormals on both sides are 2 apart.
  const double tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(UlpDistance(PrimitiveType::F32, -tiny, tiny), 2);
  // bf16 has 7 stored mantissa bits: 1 and 1 + 2^-7 are neighbours.
  EXPECT_EQ(UlpDistance(PrimitiveType::BF16, 1.0, 1.0 + 1.0 / 128), 1);
}

TEST(LiteralComparisonTest, NanMatchesNanAndInfinityOnlyItself) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Literal e = Literal::CreateR1FromDoubles(PrimitiveType::F32, {nan, inf, -0.0});
  EXPECT_TRUE(CompareLiterals(e, Literal::CreateR1FromDoubles(PrimitiveType::F32, {nan, inf, 0.0})).ok());
  EXPECT_FALSE(CompareLiterals(e, Literal::CreateR1FromDoubles(PrimitiveType::F32, {0, inf, 0})).ok());
  // The largest finite f32 is 1 ULP from infinity, but must not match it.
  EXPECT_FALSE(CompareLiterals(
      e, Literal::CreateR1FromDoubles(PrimitiveType::F32, {nan, std::numeric_limits<float>::max(), 0}))
                   .ok());
}

TEST(LiteralComparisonTest, IntegersAreExactAndTheIndexIsNamed) {
  Literal expected(Shape(PrimitiveType::S32, {2, 3}));
  Literal actual(Shape(PrimitiveType::S32, {2, 3}));
  for (int i = 0; i < 6; ++i) {
    expected.SetFromInt64(i, i);
    actual.SetFromInt64(i, i);
  }
  ASSERT_TRUE(CompareLiterals(expected, actual).ok());
  actual.SetFromInt64(4, 5);  // index {1, 1}, off by one
  actual.SetFromInt64(5, 6);
  absl::Status status = CompareLiterals(expected, actual);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(),
              HasSubstr("s32[2,3]: 2 of 6 elements differ; first at index {1,1}: expected 4, actual 5"));
}

TEST(LiteralComparisonTest, TupleOutputsAreNamedByIndexAndSummarized) {
  const Literal expected = Literal::MakeTuple({Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2}),
                                               Literal::CreateR1FromInts(PrimitiveType::U8, {7, 8})});
  Literal actual = Literal::MakeTuple({Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2.0000005}),
                                       Literal::CreateR1FromInts(PrimitiveType::U8, {7, 8})});
  LiteralComparisonSummary summary;
  ASSERT_TRUE(CompareLiterals(expected, actual, {}, &summary).ok());
  EXPECT_EQ(summary.outputs, 2);
  EXPECT_EQ(summary.elements, 4);
  EXPECT_GT(summary.max_abs_diff, 0);
  EXPECT_LT(summary.max_abs_diff, 1e-6);
  (*actual.mutable_tuple_elements())[1].SetFromInt64(1, 9);
  absl::Status status = CompareLiterals(expected, actual);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("output {1} u8[2]"));
  EXPECT_THAT(status.message(), HasSubstr("expected 8, actual 9"));
}

TEST(LiteralComparisonTest, ShapeDifferencesAreErrors) {
  const Literal a = Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2});
  const Literal b = Literal::CreateR1FromDoubles(PrimitiveType::F64, {1, 2});
  absl::Status status = CompareLiterals(a, b);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("expected shape f32[2], actual shape f64[2]"));
}

TEST(LiteralComparisonTest, HalfPrecisionIsLooser) {
  // 0.5% off: beyond f32's tolerance, within f16's and bf16's.
  for (PrimitiveType type : {PrimitiveType::F16, PrimitiveType::BF16}) {
    const Literal e = Literal::CreateR0FromDouble(type, 100);
    const Literal a = Literal::CreateR0FromDouble(type, 100.5);
    EXPECT_TRUE(CompareLiterals(e, a).ok()) << PrimitiveTypeName(type);
  }
  EXPECT_FALSE(CompareLiterals(Literal::CreateR0FromDouble(PrimitiveType::F32, 100),
                               Literal::CreateR0FromDouble(PrimitiveType::F32, 100.5))
                   .ok());
}

}  // namespace
}  // namespace hmo
