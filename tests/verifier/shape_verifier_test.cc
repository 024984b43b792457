// Per-opcode shape rules: one accepted and at least one rejected module per
// rule, asserting the instruction, computation, rule and message.

#include <gtest/gtest.h>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/verifier/hlo_verifier.h"
#include "verifier_test_util.h"

namespace hmo {
namespace {

using testing::ExpectedViolation;
using testing::FirstViolationIs;
using testing::Parse;
using testing::VerifiesOk;

// ------------------------------------------------------------ elementwise

TEST(ShapeVerifierTest, BinaryOpOperandShapesMustAgree) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  p1 = f32[3] parameter(1)
  ROOT add.3 = f32[2] add(p0, p1)
})");
  ASSERT_NE(m, nullptr);
  absl::Status status = VerifyHloModule(*m);
  EXPECT_EQ(status.message(),
            "instruction add.3 in computation main: binary op operands have incompatible shapes "
            "f32[2] and f32[3] (rule: elementwise-shapes)");
}

TEST(ShapeVerifierTest, BinaryOpResultShapeMustMatch) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  ROOT mul = f32[3] multiply(p0, p0)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"elementwise-shapes", "mul", "main",
                                    "shape f32[3] does not match the inferred shape f32[2]"}));
}

TEST(ShapeVerifierTest, UnaryOpChecksElementType) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = s32[2] parameter(0)
  ROOT e = s32[2] exponential(p0)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(
      *m, {"elementwise-shapes", "e", "main", "exponential expects a floating-point or complex"}));
}

TEST(ShapeVerifierTest, UnaryOpResultShapeMustMatch) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  ROOT n = f32[2,1] negate(p0)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"elementwise-shapes", "n", "main", "inferred shape f32[2]"}));
}

TEST(ShapeVerifierTest, IsFiniteProducesPred) {
  auto ok = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  ROOT f = pred[2] is-finite(p0)
})");
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(VerifiesOk(*ok));
}

TEST(ShapeVerifierTest, ShiftNeedsIntegers) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  ROOT s = f32[2] shift-left(p0, p0)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"elementwise-shapes", "s", "main", "shift-left expects integral"}));
}

TEST(ShapeVerifierTest, CompareProducesPred) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  p1 = f32[2] parameter(1)
  ok = pred[2] compare(p0, p1), direction=LT
  ROOT c = f32[2] compare(p0, p1), direction=LT
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"compare", "c", "main",
                                    "shape f32[2] does not match the inferred shape pred[2]"}));
}

TEST(ShapeVerifierTest, MixedPrecisionIsNeverAllowedInElementwiseOps) {
  // allow_mixed_precision lets shapes compared across instructions differ in
  // precision, but an elementwise op computes in one type: the evaluator and
  // the backends would read the bf16 operand as f32.
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = bf16[2] parameter(0)
  p1 = f32[2] parameter(1)
  ROOT a = f32[2] add(p0, p1)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(
      FirstViolationIs(*m, {"elementwise-types", "a", "main",
                            "binary op operands have different element types bf16[2] and f32[2]"}));
  HloVerifierOptions strict;
  strict.allow_mixed_precision = false;
  EXPECT_TRUE(FirstViolationIs(*m, {"elementwise-shapes", "a", "main",
                                    "binary op operands have different element types bf16[2] and f32[2]"},
                               strict));
}

TEST(ShapeVerifierTest, UnaryOpResultTypeIsItsOperands) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f16[3] parameter(0)
  ROOT f = f32[3] floor(p)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(
      *m, {"elementwise-types", "f", "main", "floor of f16[3] computes f16, not f32"}));
}

TEST(ShapeVerifierTest, MixedIntegerTypesAreNeverAllowed) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = s32[2] parameter(0)
  p1 = s8[2] parameter(1)
  ROOT a = s32[2] add(p0, p1)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"elementwise-shapes", "a", "main", "different element types"}));
}

TEST(ShapeVerifierTest, SelectPredicateMustMatch) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = pred[3] parameter(0)
  a = f32[2] parameter(1)
  s0 = pred[] parameter(2)
  scalar_pred = f32[2] select(s0, a, a)
  ROOT s = f32[2] select(p, a, a)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(
      *m, {"select", "s", "main", "select predicate pred[3] must be a scalar or have the dimensions of f32[2]"}));
}

TEST(ShapeVerifierTest, SelectPredicateMustBePred) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = s32[2] parameter(0)
  a = f32[2] parameter(1)
  ROOT s = f32[2] select(p, a, a)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"select", "s", "main", "must have element type pred"}));
}

TEST(ShapeVerifierTest, ClampAllowsScalarBoundsOnly) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  lo = f32[] parameter(0)
  x = f32[2,3] parameter(1)
  hi = f32[3] parameter(2)
  ok = f32[2,3] clamp(lo, x, lo)
  ROOT c = f32[2,3] clamp(lo, x, hi)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(
      *m, {"clamp", "c", "main", "clamp bound f32[3] must be a scalar or have the dimensions of f32[2,3]"}));
}

// ---------------------------------------------------------------- converts

TEST(ShapeVerifierTest, ConvertKeepsDimensions) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ok = s32[2] convert(p)
  ROOT c = s32[3] convert(p)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"convert", "c", "main",
                                    "shape s32[3] does not match the inferred shape s32[2]"}));
}

TEST(ShapeVerifierTest, BitcastConvertChangesMinorDimensionWithWidth) {
  auto ok = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  same = s32[2] bitcast-convert(p)
  narrow = s16[2,2] bitcast-convert(p)
  ROOT wide = f32[2] bitcast-convert(narrow)
})");
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(VerifiesOk(*ok));
  auto bad = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT b = s16[2] bitcast-convert(p)
})");
  ASSERT_NE(bad, nullptr);
  EXPECT_TRUE(FirstViolationIs(*bad, {"bitcast-convert", "b", "main", "inferred shape s16[2,2]"}));
}

TEST(ShapeVerifierTest, BitcastKeepsTheByteSize) {
  auto same = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4]{0} parameter(0)
  ROOT b = s32[2,2]{1,0} bitcast(p)
})");
  ASSERT_NE(same, nullptr);
  EXPECT_TRUE(VerifiesOk(*same));
  auto grows = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4]{0} parameter(0)
  ROOT b = f32[1000000]{0} bitcast(p)
})");
  ASSERT_NE(grows, nullptr);
  // Refused whether or not layouts are checked: the backends would read
  // past the operand's buffer.
  EXPECT_TRUE(FirstViolationIs(*grows, {"bitcast", "b", "main", "bitcast changes the byte size"}));
  HloVerifierOptions sensitive;
  sensitive.layout_sensitive = true;
  EXPECT_TRUE(FirstViolationIs(*grows, {"bitcast", "b", "main", "bitcast changes the byte size"},
                               sensitive));
}

TEST(ShapeVerifierTest, BitcastOfATupleIsRefused) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = (f32[4], f32[4]) parameter(0)
  ROOT b = f32[4] bitcast(p)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(
      FirstViolationIs(*m, {"bitcast", "b", "main", "bitcast operand and result must be arrays"}));
}

// ------------------------------------------------------- data movement

TEST(ShapeVerifierTest, BroadcastDimensionsMapEqualSizes) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  ok = f32[2,3] broadcast(p), dimensions={1}
  ROOT b = f32[2,3] broadcast(p), dimensions={0}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(
      *m, {"broadcast", "b", "main",
           "broadcast maps operand dimension 0 (size 3) to output dimension 0 (size 2)"}));
}

TEST(ShapeVerifierTest, BroadcastNeedsOneDimensionPerOperandDimension) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  ROOT b = f32[2,3] broadcast(p), dimensions={}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"broadcast", "b", "main", "must have 1 entries"}));
}

TEST(ShapeVerifierTest, ReshapeKeepsElementCount) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  ok = f32[3,2] reshape(p)
  ROOT r = f32[5] reshape(p)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"reshape", "r", "main", "reshape changes the element count"}));
}

TEST(ShapeVerifierTest, TransposeNeedsPermutation) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  ok = f32[3,2] transpose(p), dimensions={1,0}
  ROOT t = f32[2,2] transpose(p), dimensions={0,0}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"transpose", "t", "main", "repeats dimension 0"}));
}

TEST(ShapeVerifierTest, TransposeResultFollowsPermutation) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  ROOT t = f32[2,3] transpose(p), dimensions={1,0}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"transpose", "t", "main", "inferred shape f32[3,2]"}));
}

TEST(ShapeVerifierTest, ReverseDimensionsInRange) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  ROOT r = f32[2,3] reverse(p), dimensions={2}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"reverse", "r", "main", "out of range for rank 2"}));
}

TEST(ShapeVerifierTest, SliceBounds) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4,8] parameter(0)
  ok = f32[2,3] slice(p), slice={[1:3], [0:8:3]}
  ROOT s = f32[5,8] slice(p), slice={[0:5], [0:8]}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(
      *m, {"slice", "s", "main", "slice [0:5] in dimension 0 is out of bounds for f32[4,8]"}));
}

TEST(ShapeVerifierTest, SliceResultDimensions) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[8] parameter(0)
  ROOT s = f32[4] slice(p), slice={[1:8:3]}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"slice", "s", "main", "inferred shape f32[3]"}));
}

TEST(ShapeVerifierTest, DynamicSliceIndicesAreIntegerScalars) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4,8] parameter(0)
  i = s32[] parameter(1)
  f = f32[] parameter(2)
  ok = f32[2,8] dynamic-slice(p, i, i), dynamic_slice_sizes={2,8}
  ROOT ds = f32[2,8] dynamic-slice(p, i, f), dynamic_slice_sizes={2,8}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(
      *m, {"dynamic-slice", "ds", "main", "dynamic-slice start index 1 must be an integer scalar, got f32[]"}));
}

TEST(ShapeVerifierTest, DynamicSliceSizes) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4,8] parameter(0)
  i = s32[] parameter(1)
  ROOT ds = f32[5,8] dynamic-slice(p, i, i), dynamic_slice_sizes={5,8}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"dynamic-slice", "ds", "main",
                                    "dynamic-slice size 5 in dimension 0 is out of bounds"}));
}

TEST(ShapeVerifierTest, DynamicSliceIndexCount) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4,8] parameter(0)
  i = s32[] parameter(1)
  ROOT ds = f32[2,8] dynamic-slice(p, i, i, i), dynamic_slice_sizes={2,8}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"dynamic-slice", "ds", "main", "has 3 start indices"}));
}

TEST(ShapeVerifierTest, DynamicUpdateSliceUpdateFits) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4,8] parameter(0)
  u = f32[5,8] parameter(1)
  i = s32[] parameter(2)
  ROOT dus = f32[4,8] dynamic-update-slice(p, u, i, i)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"dynamic-update-slice", "dus", "main",
                                    "is larger than operand f32[4,8] in dimension 0"}));
}

TEST(ShapeVerifierTest, DynamicUpdateSliceResultIsOperand) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4,8] parameter(0)
  u = f32[1,8] parameter(1)
  i = s32[] parameter(2)
  ROOT dus = f32[1,8] dynamic-update-slice(p, u, i, i)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"dynamic-update-slice", "dus", "main", "inferred shape f32[4,8]"}));
}

TEST(ShapeVerifierTest, ConcatenateOtherDimensionsAgree) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[4,3] parameter(1)
  c = f32[4,2] parameter(2)
  ok = f32[6,3] concatenate(a, b), dimensions={0}
  ROOT cat = f32[6,3] concatenate(a, c), dimensions={0}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"concatenate", "cat", "main", "differ in dimension 1"}));
}

TEST(ShapeVerifierTest, ConcatenateResultSums) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  ROOT cat = f32[2,6] concatenate(a, a), dimensions={0}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"concatenate", "cat", "main", "inferred shape f32[4,3]"}));
}

TEST(ShapeVerifierTest, PadResultDimensions) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  z = f32[] constant(0)
  ok = f32[7] pad(p, z), padding=1_1_1
  ROOT pd = f32[6] pad(p, z), padding=1_1
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"pad", "pd", "main", "inferred shape f32[5]"}));
}

TEST(ShapeVerifierTest, PadValueIsScalar) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  z = f32[1] parameter(1)
  ROOT pd = f32[5] pad(p, z), padding=1_1
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"pad", "pd", "main", "pad padding value must be a scalar"}));
}

TEST(ShapeVerifierTest, IotaDimensionInRange) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  ok = s32[4,4] iota(), iota_dimension=1
  ROOT i = s32[4,4] iota(), iota_dimension=2
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"iota", "i", "main", "iota_dimension 2 is out of range"}));
}

TEST(ShapeVerifierTest, ConstantShapeMatchesLiteral) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  ROOT c = f32[2] constant({1, 2})
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
  *m->entry_computation()->root_instruction()->mutable_shape() = Shape(PrimitiveType::F32, {3});
  EXPECT_TRUE(FirstViolationIs(*m, {"constant", "c", "main", "does not match the literal's shape f32[2]"}));
}

TEST(ShapeVerifierTest, CopyKeepsShape) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  relayout = f32[2,3]{0,1} copy(p)
  ROOT c = f32[3,2] copy(p)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"copy", "c", "main",
                                    "shape f32[3,2] does not match the operand shape f32[2,3]"}));
}

// ------------------------------------------------------------- tuples

TEST(ShapeVerifierTest, GetTupleElementIndexInRange) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = (f32[2], s32[]) parameter(0)
  ok = s32[] get-tuple-element(p), index=1
  ROOT g = f32[2] get-tuple-element(p), index=2
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"get-tuple-element", "g", "main",
                                    "get-tuple-element index 2 is out of range"}));
}

TEST(ShapeVerifierTest, GetTupleElementShapeMatchesElement) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = (f32[2], s32[]) parameter(0)
  ROOT g = f32[2] get-tuple-element(p), index=1
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"get-tuple-element", "g", "main",
                                    "shape f32[2] does not match tuple element 1 shape s32[]"}));
}

TEST(ShapeVerifierTest, TupleShapeIsOperandShapes) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  ROOT t = (f32[2], f32[3]) tuple(a, a)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"tuple", "t", "main",
                                    "does not match the tuple of its operand shapes (f32[2], f32[2])"}));
}

TEST(ShapeVerifierTest, LayoutsOnlyMatterWhenLayoutSensitive) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  ROOT t = (f32[2,3]{0,1}) tuple(a)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifiesOk(*m));
  HloVerifierOptions sensitive;
  sensitive.layout_sensitive = true;
  EXPECT_TRUE(FirstViolationIs(*m, {"layout", "t", "main", "(f32[2,3]{0,1}) does not match"},
                               sensitive));
}

TEST(ShapeVerifierTest, OptimizationBarrierForwardsShape) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  t = (f32[2]) tuple(a)
  ROOT b = (f32[3]) opt-barrier(t)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"opt-barrier", "b", "main", "does not match the operand shape"}));
}

// -------------------------------------------------------- contractions

TEST(ShapeVerifierTest, DotBatchAndContractingDimensions) {
  auto ok = Parse(R"(
HloModule m
ENTRY main {
  a = f32[8,2,3] parameter(0)
  b = f32[8,3,4] parameter(1)
  ROOT d = f32[8,2,4] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})");
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(VerifiesOk(*ok));
  auto bad = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[4,5] parameter(1)
  ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(bad, nullptr);
  EXPECT_TRUE(FirstViolationIs(*bad, {"dot", "d", "main",
                                      "dot contracting dimension sizes differ: lhs dimension 1 of "
                                      "f32[2,3] vs rhs dimension 0 of f32[4,5]"}));
}

TEST(ShapeVerifierTest, DotResultShape) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = bf16[2,3] parameter(0)
  b = bf16[3,4] parameter(1)
  preferred = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT d = bf16[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"dot", "d", "main", "inferred shape bf16[2,4]"}));
}

TEST(ShapeVerifierTest, DotBatchDimensionCounts) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[8,2,3] parameter(0)
  b = f32[8,3,4] parameter(1)
  ROOT d = f32[8,2,8,4] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"dot", "d", "main", "dot has 1 lhs batch dimensions but 0 rhs"}));
}

TEST(ShapeVerifierTest, Convolution) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  x = f32[1,8,8,3] parameter(0)
  k = f32[3,3,3,16] parameter(1)
  ok = f32[1,4,4,16] convolution(x, k), window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f
  dw = f32[1,8,8,3] parameter(2)
  dk = f32[3,3,1,3] parameter(3)
  depthwise = f32[1,8,8,3] convolution(dw, dk), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=3
  ROOT c = f32[1,8,8,16] convolution(x, k), window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"convolution", "c", "main", "inferred shape f32[1,4,4,16]"}));
}

TEST(ShapeVerifierTest, ConvolutionFeatureCounts) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  x = f32[1,8,8,4] parameter(0)
  k = f32[3,3,3,16] parameter(1)
  ROOT c = f32[1,6,6,16] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"convolution", "c", "main",
                                    "convolution input features (4) / feature_group_count (1) must "
                                    "equal the kernel input features (3)"}));
}

// ---------------------------------------------------------- reductions

constexpr char kAddF32[] = R"(
add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

TEST(ShapeVerifierTest, ReduceResultDimensions) {
  auto m = Parse(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY main {
  p = f32[2,3,4] parameter(0)
  z = f32[] constant(0)
  ok = f32[2,4] reduce(p, z), dimensions={1}, to_apply=add_f32
  ROOT r = f32[2,3] reduce(p, z), dimensions={1}, to_apply=add_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"reduce", "r", "main", "inferred shape f32[2,4]"}));
}

TEST(ShapeVerifierTest, ReduceComputationSignature) {
  auto m = Parse(R"(
HloModule m
bad_add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  z = f32[] parameter(2)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  p = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(p, z), dimensions={1}, to_apply=bad_add
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"reduce", "r", "main",
                                    "reduction computation (f32[], f32[], f32[]) -> f32[] must take "
                                    "2 parameters for 1 accumulator(s)"}));
}

TEST(ShapeVerifierTest, VariadicReduce) {
  auto m = Parse(R"(
HloModule m
argmax {
  lv = f32[] parameter(0)
  li = s32[] parameter(1)
  rv = f32[] parameter(2)
  ri = s32[] parameter(3)
  ge = pred[] compare(lv, rv), direction=GE
  v = f32[] select(ge, lv, rv)
  i = s32[] select(ge, li, ri)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  p = f32[4,8] parameter(0)
  idx = s32[4,8] iota(), iota_dimension=1
  zf = f32[] constant(0)
  zi = s32[] constant(0)
  ok = (f32[4], s32[4]) reduce(p, idx, zf, zi), dimensions={1}, to_apply=argmax
  ROOT r = (f32[4], f32[4]) reduce(p, idx, zf, zi), dimensions={1}, to_apply=argmax
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"reduce", "r", "main", "inferred shape (f32[4], s32[4])"}));
}

TEST(ShapeVerifierTest, ReduceWindowResultDimensions) {
  auto m = Parse(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY main {
  p = f32[8] parameter(0)
  z = f32[] constant(0)
  ok = f32[4] reduce-window(p, z), window={size=2 stride=2}, to_apply=add_f32
  padded = f32[8] reduce-window(p, z), window={size=2 pad=1_0}, to_apply=add_f32
  ROOT r = f32[8] reduce-window(p, z), window={size=2 stride=2}, to_apply=add_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"reduce-window", "r", "main", "inferred shape f32[4]"}));
}

TEST(ShapeVerifierTest, SelectAndScatter) {
  auto m = Parse(std::string("HloModule m\n") + kAddF32 + R"(
ge_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
ENTRY main {
  p = f32[8] parameter(0)
  src = f32[4] parameter(1)
  bad_src = f32[3] parameter(2)
  z = f32[] constant(0)
  ok = f32[8] select-and-scatter(p, src, z), window={size=2 stride=2}, select=ge_f32, scatter=add_f32
  ROOT s = f32[8] select-and-scatter(p, bad_src, z), window={size=2 stride=2}, select=ge_f32, scatter=add_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"select-and-scatter", "s", "main",
                                    "select-and-scatter source f32[3] must have the windowed operand "
                                    "dimensions {4}"}));
}

TEST(ShapeVerifierTest, Gather) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  table = f32[30,128] parameter(0)
  idx = s32[48,1] parameter(1)
  ok = f32[48,128] gather(table, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,128}
  ROOT g = f32[48,64] gather(table, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,128}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"gather", "g", "main", "inferred shape f32[48,128]"}));
}

TEST(ShapeVerifierTest, GatherRanks) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  table = f32[30,128] parameter(0)
  idx = s32[48,1] parameter(1)
  ROOT g = f32[48,128] gather(table, idx), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,128}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"gather", "g", "main", "gather offset_dims {1} must have 2 entries"}));
}

TEST(ShapeVerifierTest, Scatter) {
  auto m = Parse(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY main {
  table = f32[30,128] parameter(0)
  idx = s32[48,1] parameter(1)
  upd = f32[48,128] parameter(2)
  bad_upd = f32[48] parameter(3)
  ok = f32[30,128] scatter(table, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
  ROOT s = f32[30,128] scatter(table, idx, bad_upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"scatter", "s", "main", "scatter updates f32[48] must have rank 2"}));
}

TEST(ShapeVerifierTest, MapComputationTypes) {
  auto m = Parse(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY main {
  a = s32[4] parameter(0)
  ROOT mp = f32[4] map(a, a), dimensions={0}, to_apply=add_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"map", "mp", "main", "map computation parameter 0 must be a s32 scalar"}));
}

TEST(ShapeVerifierTest, SortComparatorReturnsPred) {
  auto m = Parse(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY main {
  a = f32[4] parameter(0)
  ROOT s = f32[4] sort(a), dimensions={0}, to_apply=add_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"sort", "s", "main", "must return pred[]"}));
}

// --------------------------------------------------------- collectives

TEST(ShapeVerifierTest, AllReduceOutputsMatchOperands) {
  auto m = Parse(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[2] parameter(1)
  ok = (f32[4], f32[2]) all-reduce(a, b), replica_groups={}, to_apply=add_f32
  ROOT ar = f32[2] all-reduce(a), replica_groups={}, to_apply=add_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"all-reduce", "ar", "main", "inferred shape f32[4]"}));
}

TEST(ShapeVerifierTest, AllGatherMultipliesGatherDimension) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[4,2] parameter(0)
  ok = f32[16,2] all-gather(a), replica_groups={}, dimensions={0}
  ROOT ag = f32[6,2] all-gather(a), replica_groups={}, dimensions={0}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"collective", "ag", "main",
                                    "all-gather result f32[6,2] is not a gather of operand f32[4,2]"}));
}

TEST(ShapeVerifierTest, ReduceScatterDividesScatterDimension) {
  auto m = Parse(std::string("HloModule m\n") + kAddF32 + R"(
ENTRY main {
  a = f32[8,2] parameter(0)
  ok = f32[2,2] reduce-scatter(a), replica_groups={}, dimensions={0}, to_apply=add_f32
  ROOT rs = f32[3,2] reduce-scatter(a), replica_groups={}, dimensions={0}, to_apply=add_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"collective", "rs", "main",
                                    "reduce-scatter result f32[3,2] is not a scatter of operand "
                                    "f32[8,2] along dimension 0"}));
}

TEST(ShapeVerifierTest, GetDimensionSize) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[8,2] parameter(0)
  ok = s32[] get-dimension-size(a), dimensions={1}
  ROOT g = s32[] get-dimension-size(a), dimensions={2}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"misc", "g", "main", "get-dimension-size needs one dimension in range"}));
}

TEST(ShapeVerifierTest, AddDependencyForwardsOperand) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[8] parameter(0)
  tok = token[] after-all()
  ok = f32[8] add-dependency(a, tok)
  ROOT d = f32[8] add-dependency(a, a)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"token", "d", "main", "add-dependency operand 1 must be a token"}));
}

TEST(ShapeVerifierTest, CollectivePermuteKeepsShape) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  ROOT cp = f32[5] collective-permute(a), source_target_pairs={{0,1},{1,0}}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"collective", "cp", "main", "inferred shape f32[4]"}));
}

TEST(ShapeVerifierTest, CopyStartAndDone) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  cs = (f32[4]{0:S(1)}, f32[4], u32[]) copy-start(a)
  ok = f32[4]{0:S(1)} copy-done(cs)
  ROOT cd = f32[5] copy-done(cs)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"async", "cd", "main",
                                    "shape f32[5] does not match the copy-start destination shape f32[4]"}));
}

TEST(ShapeVerifierTest, TokensForAfterAllAndInfeed) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  tok = token[] after-all()
  inf = ((f32[4]), token[]) infeed(tok)
  a = f32[4] parameter(0)
  ROOT bad = token[] after-all(tok, a)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"token", "bad", "main", "after-all operand 1 must be a token, got f32[4]"}));
}

TEST(ShapeVerifierTest, RngParametersAreScalars) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  lo = f32[] constant(0)
  hi = f32[2] parameter(0)
  ok = f32[8] rng(lo, lo), distribution=rng_uniform
  ROOT r = f32[8] rng(lo, hi), distribution=rng_uniform
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"rng", "r", "main", "rng parameter 1 must be a f32 scalar, got f32[2]"}));
}

TEST(ShapeVerifierTest, PartitionIdIsU32) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  ok = u32[] partition-id()
  ROOT id = s32[] partition-id()
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"misc", "id", "main", "partition-id must produce u32[], got s32[]"}));
}

TEST(ShapeVerifierTest, CustomCallOnlyChecksAliasing) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  anything = (s8[7], f32[]) custom-call(a, a), custom_call_target="foo"
  ROOT cc = f32[4] custom-call(a), custom_call_target="bar", output_to_operand_aliasing={{}: (1, {})}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(FirstViolationIs(*m, {"output-operand-aliasing", "cc", "main",
                                    "operand number out of range (1 operands)"}));
}

TEST(ShapeVerifierTest, VerifyShapesCanBeTurnedOff) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  ROOT n = f32[3] negate(p0)
})");
  ASSERT_NE(m, nullptr);
  HloVerifierOptions options;
  options.verify_shapes = false;
  EXPECT_TRUE(VerifiesOk(*m, options));
}

}  // namespace
}  // namespace hmo
