// Data movement: where each element goes for broadcast, transpose, bitcast
// with differing layouts, slices (static and dynamic, with XLA's clamping),
// concatenate and pad with negative and interior padding.

#include "evaluator_test_support.h"

namespace hmo::eval_test {
namespace {

TEST(DataMovementTest, BroadcastTransposeReshapeReverse) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  v = f32[2] constant({1, 2})
  b = f32[2,3] broadcast(v), dimensions={0}
  m = f32[2,3] constant({{0, 1, 2}, {3, 4, 5}})
  t = f32[3,2] transpose(m), dimensions={1,0}
  r = f32[3,2] reshape(m)
  rev = f32[2,3] reverse(m), dimensions={1}
  ROOT out = (f32[2,3], f32[3,2], f32[3,2], f32[2,3]) tuple(b, t, r, rev)
})"));
  EXPECT_EQ(Doubles(result.tuple_elements()[0]), (std::vector<double>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(Doubles(result.tuple_elements()[1]), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(Doubles(result.tuple_elements()[2]), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Doubles(result.tuple_elements()[3]), (std::vector<double>{2, 1, 0, 5, 4, 3}));
}

TEST(DataMovementTest, BitcastReinterpretsPhysicalLayout) {
  // The operand's memory is row-major 0..5; the result's layout {0,1} reads
  // element [i][j] from memory position i + 3j, which is a transpose.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  m = f32[2,3]{1,0} constant({{0, 1, 2}, {3, 4, 5}})
  ROOT b = f32[3,2]{0,1} bitcast(m)
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

// The layouts are the HLO's: a fusion's value has the fusion's layout even
// when its fused root is written with another (XLA's optimized dumps do
// this), and a bitcast of it reads memory in the fusion's layout.
TEST(DataMovementTest, BitcastUsesTheInstructionsLayouts) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
fused {
  p = f32[2,3]{1,0} parameter(0)
  ROOT t = f32[3,2]{1,0} transpose(p), dimensions={1,0}
}
ENTRY e {
  a = f32[2,3]{1,0} constant({{1,2,3},{4,5,6}})
  f = f32[3,2]{0,1} fusion(a), kind=kLoop, calls=fused
  ROOT b = f32[6]{0} bitcast(f)
})"));
  // f is {{1,4},{2,5},{3,6}} stored column-major: memory 1 2 3 4 5 6.
  EXPECT_EQ(Doubles(result), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(DataMovementTest, SliceWithStride) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[2,6] constant({{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}})
  ROOT s = f32[1,3] slice(a), slice={[1:2], [1:6:2]}
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{7, 9, 11}));
}

TEST(DataMovementTest, DynamicSliceClampsStartIndices) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = s32[5] constant({0, 1, 2, 3, 4})
  big = s32[] constant(4)
  neg = s32[] constant(-3)
  x = s32[3] dynamic-slice(a, big), dynamic_slice_sizes={3}
  y = s32[3] dynamic-slice(a, neg), dynamic_slice_sizes={3}
  ROOT t = (s32[3], s32[3]) tuple(x, y)
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{0, 1, 2}));
}

TEST(DataMovementTest, DynamicUpdateSliceClampsStartIndices) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[2,4] constant({{0, 0, 0, 0}, {0, 0, 0, 0}})
  u = f32[1,2] constant({{7, 8}})
  i = s32[] constant(1)
  j = s32[] constant(3)
  ROOT d = f32[2,4] dynamic-update-slice(a, u, i, j)
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{0, 0, 0, 0, 0, 0, 7, 8}));
}

TEST(DataMovementTest, ConcatenateAlongMinorDimension) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[2,1] constant({{1}, {2}})
  b = f32[2,2] constant({{3, 4}, {5, 6}})
  ROOT c = f32[2,3] concatenate(a, b), dimensions={1}
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{1, 3, 4, 2, 5, 6}));
}

TEST(DataMovementTest, PadWithNegativeAndInteriorPadding) {
  // {1, 2, 3} with one interior element between neighbours is
  // {1, p, 2, p, 3}; low -1 drops the 1, high 2 appends two p.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  p = f32[] constant(9)
  ROOT r = f32[6] pad(a, p), padding=-1_2_1
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{9, 2, 9, 3, 9, 9}));
}

TEST(DataMovementTest, Pad2D) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = s32[2,2] constant({{1, 2}, {3, 4}})
  p = s32[] constant(0)
  ROOT r = s32[3,4] pad(a, p), padding=1_0x0_2
})"));
  EXPECT_EQ(Ints(result), (std::vector<int64_t>{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
}

}  // namespace
}  // namespace hmo::eval_test
