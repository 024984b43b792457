// Index-remapping operations: broadcast, iota, reshape, transpose, layout
// changing copies, slice, pad, concatenate, reverse, dynamic slices.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

using ::testing::ElementsAre;

Shape S(PrimitiveType t, std::vector<int64_t> dims) { return Shape(t, std::move(dims)); }

TEST(DataMovementTest, BroadcastInsideFusion) {
  constexpr const char* kHlo = R"(
HloModule m
fused {
  row = f32[3] parameter(0)
  m = f32[2,3] parameter(1)
  b = f32[2,3] broadcast(row), dimensions={1}
  ROOT add = f32[2,3] add(m, b)
}
ENTRY e {
  r = f32[3] parameter(0)
  x = f32[2,3] parameter(1)
  ROOT f = f32[2,3] fusion(r, x), kind=kLoop, calls=fused
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {10, 20, 30}),
                              FromDoubles(S(PrimitiveType::F32, {2, 3}), {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsDoubles(*result), ElementsAre(11, 22, 33, 14, 25, 36));
}

TEST(DataMovementTest, TransposeAndLayoutChangingCopy) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = s32[2,3]{1,0} parameter(0)
  t = s32[3,2]{1,0} transpose(x), dimensions={1,0}
  c = s32[2,3]{0,1} copy(x)
  back = s32[2,3]{1,0} copy(c)
  ROOT r = (s32[3,2]{1,0}, s32[2,3]{0,1}, s32[2,3]{1,0}) tuple(t, c, back)
})";
  auto result = RunHlo(kHlo, {FromInts(S(PrimitiveType::S32, {2, 3}), {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsInts(result->tuple_elements()[0]), ElementsAre(1, 4, 2, 5, 3, 6));
  // Literals are row-major whatever the layout: the column-major copy reads
  // back as the same logical array.
  EXPECT_THAT(AsInts(result->tuple_elements()[1]), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(AsInts(result->tuple_elements()[2]), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(DataMovementTest, Rank3TransposeInFusionWithReshapeAndIota) {
  constexpr const char* kHlo = R"(
HloModule m
fused {
  p = s32[2,3,4] parameter(0)
  t = s32[4,2,3] transpose(p), dimensions={2,0,1}
  r = s32[4,6] reshape(t)
  i = s32[4,6] iota(), iota_dimension=1
  ROOT a = s32[4,6] add(r, i)
}
ENTRY e {
  x = s32[2,3,4] parameter(0)
  ROOT f = s32[4,6] fusion(x), kind=kLoop, calls=fused
})";
  std::vector<int64_t> values(24);
  for (int i = 0; i < 24; ++i) values[i] = 100 * i;
  auto result = RunHlo(kHlo, {FromInts(S(PrimitiveType::S32, {2, 3, 4}), values)});
  ASSERT_TRUE(result.ok()) << result.status();
  // t[k][i][j] = p[i][j][k] = 100*(12i + 4j + k); row k of r lists (i, j)
  // in row-major order; plus iota over the columns.
  std::vector<int64_t> expected;
  for (int k = 0; k < 4; ++k) {
    for (int c = 0; c < 6; ++c) expected.push_back(100 * (12 * (c / 3) + 4 * (c % 3) + k) + c);
  }
  EXPECT_EQ(AsInts(*result), expected);
}

TEST(DataMovementTest, SliceReverseConcatenate) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[6] parameter(0)
  y = f32[2] parameter(1)
  s = f32[3] slice(x), slice={[1:6:2]}
  r = f32[6] reverse(x), dimensions={0}
  c = f32[11] concatenate(s, y, r), dimensions={0}
  ROOT t = (f32[3], f32[11]) tuple(s, c)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {0, 1, 2, 3, 4, 5}), R1F(PrimitiveType::F32, {-1, -2})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsDoubles(result->tuple_elements()[0]), ElementsAre(1, 3, 5));
  EXPECT_THAT(AsDoubles(result->tuple_elements()[1]), ElementsAre(1, 3, 5, -1, -2, 5, 4, 3, 2, 1, 0));
}

TEST(DataMovementTest, Concatenate2DAlongMinorDimension) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  a = s32[2,1] parameter(0)
  b = s32[2,2] parameter(1)
  ROOT c = s32[2,3] concatenate(a, b), dimensions={1}
})";
  auto result = RunHlo(kHlo, {FromInts(S(PrimitiveType::S32, {2, 1}), {1, 2}),
                              FromInts(S(PrimitiveType::S32, {2, 2}), {10, 11, 20, 21})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsInts(*result), ElementsAre(1, 10, 11, 2, 20, 21));
}

TEST(DataMovementTest, PadWithNegativeAndInteriorPadding) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = s32[2,3] parameter(0)
  v = s32[] constant(-9)
  ROOT p = s32[3,6] pad(x, v), padding=1_0x-1_2_1
})";
  // dim 0: one row of padding before; dim 1: drop the first element of the
  // interior-padded row [a _ b _ c] (-> [_ b _ c]) and append two.
  auto result = RunHlo(kHlo, {FromInts(S(PrimitiveType::S32, {2, 3}), {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsInts(*result), ElementsAre(-9, -9, -9, -9, -9, -9,   //
                                           -9, 2, -9, 3, -9, -9,     //
                                           -9, 5, -9, 6, -9, -9));
}

TEST(DataMovementTest, DynamicSliceClampsStartIndices) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = s32[4,4] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT d = s32[2,2] dynamic-slice(x, i, j), dynamic_slice_sizes={2,2}
})";
  std::vector<int64_t> values(16);
  for (int k = 0; k < 16; ++k) values[k] = k;
  auto result = RunHlo(kHlo, {FromInts(S(PrimitiveType::S32, {4, 4}), values),
                              Literal::CreateR0FromInt(PrimitiveType::S32, 7),
                              Literal::CreateR0FromInt(PrimitiveType::S32, -3)});
  ASSERT_TRUE(result.ok()) << result.status();
  // Starts clamp to (2, 0).
  EXPECT_THAT(AsInts(*result), ElementsAre(8, 9, 12, 13));
}

TEST(DataMovementTest, DynamicUpdateSliceOutOfPlaceAndInFusion) {
  constexpr const char* kHlo = R"(
HloModule m
fused {
  buf = f32[5] parameter(0)
  upd = f32[2] parameter(1)
  i = s32[] parameter(2)
  two = f32[] constant(2)
  twos = f32[2] broadcast(two), dimensions={}
  scaled = f32[2] multiply(upd, twos)
  ROOT d = f32[5] dynamic-update-slice(buf, scaled, i)
}
ENTRY e {
  x = f32[5] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  plain = f32[5] dynamic-update-slice(x, u, i)
  neg = f32[5] negate(x)
  fused = f32[5] fusion(neg, u, i), kind=kLoop, calls=fused
  ROOT t = (f32[5], f32[5]) tuple(plain, fused)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {1, 2, 3, 4, 5}), R1F(PrimitiveType::F32, {10, 20}),
                              Literal::CreateR0FromInt(PrimitiveType::S32, 9)});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsDoubles(result->tuple_elements()[0]), ElementsAre(1, 2, 3, 10, 20));
  EXPECT_THAT(AsDoubles(result->tuple_elements()[1]), ElementsAre(-1, -2, -3, 20, 40));
}

TEST(DataMovementTest, ConstantsWithLayoutAndMultiOutputFusion) {
  constexpr const char* kHlo = R"(
HloModule m
fused {
  p = f32[2,2] parameter(0)
  c = f32[2,2]{0,1} constant({ { 1, 2 }, { 3, 4 } })
  a = f32[2,2] add(p, c)
  m = f32[2,2] multiply(p, c)
  ROOT t = (f32[2,2], f32[2,2]) tuple(a, m)
}
ENTRY e {
  x = f32[2,2] parameter(0)
  ROOT f = (f32[2,2], f32[2,2]) fusion(x), kind=kLoop, calls=fused
})";
  auto result = RunHlo(kHlo, {FromDoubles(S(PrimitiveType::F32, {2, 2}), {10, 20, 30, 40})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsDoubles(result->tuple_elements()[0]), ElementsAre(11, 22, 33, 44));
  EXPECT_THAT(AsDoubles(result->tuple_elements()[1]), ElementsAre(10, 40, 90, 160));
}

TEST(DataMovementTest, MapAppliesScalarComputation) {
  constexpr const char* kHlo = R"(
HloModule m
fn {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] multiply(a, b)
  one = f32[] constant(1)
  ROOT r = f32[] add(s, one)
}
ENTRY e {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  ROOT m = f32[3] map(x, y), dimensions={0}, to_apply=fn
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {1, 2, 3}), R1F(PrimitiveType::F32, {4, 5, 6})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsDoubles(*result), ElementsAre(5, 11, 19));
}


TEST(DataMovementTest, MultiOutputInPlaceDynamicUpdateSlices) {
  constexpr const char* kHlo = R"(
HloModule m, input_output_alias={ {0}: (0, {}), {1}: (2, {}) }
fused {
  p0 = s32[4,2] parameter(0)
  p1 = s32[1,2] parameter(1)
  p2 = s32[3,2] parameter(2)
  i = s32[] parameter(3)
  z = s32[] constant(0)
  d0 = s32[4,2] dynamic-update-slice(p0, p1, i, z)
  b0 = s32[2,4] bitcast(d0)
  n = s32[1,2] negate(p1)
  d1 = s32[3,2] dynamic-update-slice(p2, n, i, z)
  ROOT t = (s32[2,4], s32[3,2]) tuple(b0, d1)
}
ENTRY e {
  p0 = s32[4,2] parameter(0)
  p1 = s32[1,2] parameter(1)
  p2 = s32[3,2] parameter(2)
  i = s32[] parameter(3)
  ROOT f = (s32[2,4], s32[3,2]) fusion(p0, p1, p2, i), kind=kLoop, calls=fused
})";
  auto result = RunHlo(kHlo, {FromInts(Shape(PrimitiveType::S32, {4, 2}), {1, 2, 3, 4, 5, 6, 7, 8}),
                              FromInts(Shape(PrimitiveType::S32, {1, 2}), {10, 20}),
                              FromInts(Shape(PrimitiveType::S32, {3, 2}), {0, 0, 0, 0, 0, 0}),
                              Literal::CreateR0FromInt(PrimitiveType::S32, 2)});
  ASSERT_TRUE(result.ok()) << result.status();
  // Row 2 of p0 replaced (the bitcast keeps the bytes); the start 2 is
  // clamped to 2 for p2 (3 rows, update of 1).
  EXPECT_THAT(AsInts(result->tuple_elements()[0]), ElementsAre(1, 2, 3, 4, 10, 20, 7, 8));
  EXPECT_THAT(AsInts(result->tuple_elements()[1]), ElementsAre(0, 0, 0, 0, -10, -20));
}

// An in-place update reading its own buffer at other positions than it
// writes (valid HLO that XLA's fusion passes never form): computed in place,
// element k would read element k - 1 after it was written. The kernel
// computes the update before it writes it.
TEST(DataMovementTest, InPlaceUpdateReadingItsBufferElsewhereIsComputedFirst) {
  constexpr const char* kHlo = R"(
HloModule m
fused {
  buffer = f32[16] parameter(0)
  start = s32[] parameter(1)
  window = f32[8] slice(buffer), slice={[0:8]}
  ROOT d = f32[16] dynamic-update-slice(buffer, window, start)
}
ENTRY e {
  x = f32[16] parameter(0)
  i = s32[] parameter(1)
  n = f32[16] negate(x)
  ROOT f = f32[16] fusion(n, i), kind=kLoop, calls=fused
})";
  std::vector<double> x(16);
  for (int k = 0; k < 16; ++k) x[k] = k + 1;
  auto result =
      RunHlo(kHlo, {R1F(PrimitiveType::F32, x), Literal::CreateR0FromInt(PrimitiveType::S32, 1)});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsDoubles(*result),
              ElementsAre(-1, -1, -2, -3, -4, -5, -6, -7, -8, -10, -11, -12, -13, -14, -15, -16));
}

// Two in-place updates of one fusion (outputs of one shape: the fusion is
// emitted whole), the second reading the first's buffer at the row the
// first writes: it reads the parameter's value, from before the first
// update.
TEST(DataMovementTest, InPlaceUpdateReadingAnotherUpdatedBufferSeesItsOldValue) {
  constexpr const char* kHlo = R"(
HloModule m, input_output_alias={ {0}: (0, {}), {1}: (2, {}) }
fused {
  p0 = s32[4,2] parameter(0)
  p1 = s32[1,2] parameter(1)
  p2 = s32[4,2] parameter(2)
  i = s32[] parameter(3)
  z = s32[] constant(0)
  d0 = s32[4,2] dynamic-update-slice(p0, p1, i, z)
  row = s32[1,2] dynamic-slice(p0, i, z), dynamic_slice_sizes={1,2}
  d1 = s32[4,2] dynamic-update-slice(p2, row, i, z)
  ROOT t = (s32[4,2], s32[4,2]) tuple(d0, d1)
}
ENTRY e {
  p0 = s32[4,2] parameter(0)
  p1 = s32[1,2] parameter(1)
  p2 = s32[4,2] parameter(2)
  i = s32[] parameter(3)
  ROOT f = (s32[4,2], s32[4,2]) fusion(p0, p1, p2, i), kind=kLoop, calls=fused
})";
  auto result = RunHlo(kHlo, {FromInts(Shape(PrimitiveType::S32, {4, 2}), {1, 2, 3, 4, 5, 6, 7, 8}),
                              FromInts(Shape(PrimitiveType::S32, {1, 2}), {10, 20}),
                              FromInts(Shape(PrimitiveType::S32, {4, 2}), {0, 0, 0, 0, 0, 0, 0, 0}),
                              Literal::CreateR0FromInt(PrimitiveType::S32, 1)});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsInts(result->tuple_elements()[0]), ElementsAre(1, 2, 10, 20, 5, 6, 7, 8));
  EXPECT_THAT(AsInts(result->tuple_elements()[1]), ElementsAre(0, 0, 3, 4, 0, 0, 0, 0));
}

// Such an update is computed on the kernel's stack; one too large for it is
// refused with the fusion's name, never run in place.
TEST(DataMovementTest, LargeInPlaceUpdateReadingItsBufferElsewhereIsRefused) {
  constexpr const char* kHlo = R"(
HloModule m
fused {
  buffer = f32[65536] parameter(0)
  start = s32[] parameter(1)
  window = f32[32768] slice(buffer), slice={[0:32768]}
  ROOT d = f32[65536] dynamic-update-slice(buffer, window, start)
}
ENTRY e {
  x = f32[65536] parameter(0)
  i = s32[] parameter(1)
  n = f32[65536] negate(x)
  ROOT shifted = f32[65536] fusion(n, i), kind=kLoop, calls=fused
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, std::vector<double>(65536, 1.0)),
                              Literal::CreateR0FromInt(PrimitiveType::S32, 1)});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
  EXPECT_THAT(std::string(result.status().message()),
              ::testing::HasSubstr("fusion shifted: in-place dynamic-update-slice d"));
}

}  // namespace
}  // namespace hmo::cpu::testing
