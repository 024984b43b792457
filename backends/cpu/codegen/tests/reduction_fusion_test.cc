// Reduction fusions (kInput, rooted at a reduce): the fused elementwise
// producers computed inside the reduction loop give what the evaluator
// gives, for row and column reductions, a variadic (arg-max) reduce, a
// bf16 input accumulated in f32 (as a column reduction) and multi-output
// fusions of sibling reduces; and such a fusion
// stays whole through the
// CPU compiler's preparation (its producers are no buffers of the plan).
// Reduce and reduce-window inside loop fusions, likewise.

#include <memory>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/codegen/fusion_emitter.h"
#include "hmo/codegen/op_emitters.h"
#include "hmo/eval/hlo_evaluator.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

// Which emitter the fusion at the root of the entry is meant for.
enum class FusionForm { kReduction, kLoop };

void ExpectOneKernelMatchingTheEvaluator(std::string_view text, FusionForm form) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* fusion = (*module)->entry_computation()->root_instruction();
  ASSERT_EQ(fusion->opcode(), HloOpcode::kFusion);
  if (form == FusionForm::kReduction) {
    EXPECT_TRUE(codegen::IsReductionFusionEmittable(*fusion));
    for (const HloInstruction* reduce : codegen::FusedRootReduces(*fusion)) {
      EXPECT_EQ(codegen::IsColumnReduction(*reduce),
                reduce->dimensions() == std::vector<int64_t>{0} &&
                    reduce->shape().element_type() == PrimitiveType::F32);
    }
  } else {
    EXPECT_TRUE(codegen::IsLoopFusionEmittable(*fusion));
  }
  const std::vector<Literal> arguments = RampArguments(**module);
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(**module, CpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  // The fusion was kept: one kernel, reading the parameters only.
  EXPECT_EQ((*executable)->stats().kernel_count, 1);
  absl::StatusOr<Literal> actual = (*executable)->Execute(arguments, /*profile=*/nullptr);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(*expected, *actual);
}

void ExpectMatchesEvaluator(std::string_view text) {
  ExpectOneKernelMatchingTheEvaluator(text, FusionForm::kReduction);
}

TEST(ReductionFusionTest, RowReductionOfAProduct) {
  ExpectMatchesEvaluator(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[33,70] parameter(0)
  y = f32[70] parameter(1)
  yb = f32[33,70] broadcast(y), dimensions={1}
  m = f32[33,70] multiply(x, yb)
  zero = f32[] constant(0)
  ROOT r = f32[33] reduce(m, zero), dimensions={1}, to_apply=sum
}
ENTRY e {
  p = f32[33,70] parameter(0)
  q = f32[70] parameter(1)
  ROOT f = f32[33] fusion(p, q), kind=kInput, calls=fused
})");
}

TEST(ReductionFusionTest, ColumnReductionOfAConvertedBf16Input) {
  // Kept dimension 1 is the minor one and the output is f32: the column
  // form, accumulating in the output.
  ExpectMatchesEvaluator(R"(
HloModule m
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
fused {
  x = bf16[40,9] parameter(0)
  c = f32[40,9] convert(x)
  n = f32[40,9] negate(c)
  lowest = f32[] constant(-inf)
  ROOT r = f32[9] reduce(n, lowest), dimensions={0}, to_apply=mx
}
ENTRY e {
  p = bf16[40,9] parameter(0)
  ROOT f = f32[9] fusion(p), kind=kInput, calls=fused
})");
}

TEST(ReductionFusionTest, VariadicArgMax) {
  ExpectMatchesEvaluator(R"(
HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GE
  v = f32[] select(gt, av, bv)
  i = s32[] select(gt, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
fused {
  x = f32[6,50] parameter(0)
  a = f32[6,50] abs(x)
  io = s32[6,50] iota(), iota_dimension=1
  lowest = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[6], s32[6]) reduce(a, io, lowest, zero), dimensions={1}, to_apply=argmax
}
ENTRY e {
  p = f32[6,50] parameter(0)
  ROOT f = (f32[6], s32[6]) fusion(p), kind=kInput, calls=fused
})");
}

// Multi-output reduction fusions (a tuple of sibling reduces, XLA:GPU's
// kind, and cpu-fusion's of reductions sharing an operand): one pass over
// the input, each reduce's accumulators as alone: row reductions of
// different computations, column ones, and a bf16 output beside an f32 one
// (the bf16 one accumulates in f32: both then take the row form).
TEST(ReductionFusionTest, MultiOutputSiblingReductions) {
  ExpectMatchesEvaluator(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
fused {
  x = f32[33,70] parameter(0)
  zero = f32[] constant(0)
  lowest = f32[] constant(-inf)
  sq = f32[33,70] multiply(x, x)
  s = f32[33] reduce(x, zero), dimensions={1}, to_apply=sum
  s2 = f32[33] reduce(sq, zero), dimensions={1}, to_apply=sum
  m = f32[33] reduce(x, lowest), dimensions={1}, to_apply=mx
  ROOT t = (f32[33], f32[33], f32[33]) tuple(s, s2, m)
}
ENTRY e {
  p = f32[33,70] parameter(0)
  ROOT f = (f32[33], f32[33], f32[33]) fusion(p), kind=kInput, calls=fused
})");
  ExpectMatchesEvaluator(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[40,9] parameter(0)
  y = f32[40,9] parameter(1)
  zero = f32[] constant(0)
  d = f32[40,9] subtract(x, y)
  s = f32[9] reduce(x, zero), dimensions={0}, to_apply=sum
  sd = f32[9] reduce(d, zero), dimensions={0}, to_apply=sum
  ROOT t = (f32[9], f32[9]) tuple(s, sd)
}
ENTRY e {
  p = f32[40,9] parameter(0)
  q = f32[40,9] parameter(1)
  ROOT f = (f32[9], f32[9]) fusion(p, q), kind=kInput, calls=fused
})");
  ExpectMatchesEvaluator(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
sum16 {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
fused {
  x = bf16[40,9] parameter(0)
  w = f32[40,9] convert(x)
  zero = f32[] constant(0)
  zero16 = bf16[] constant(0)
  s = f32[9] reduce(w, zero), dimensions={0}, to_apply=sum
  s16 = bf16[9] reduce(x, zero16), dimensions={0}, to_apply=sum16
  ROOT t = (f32[9], bf16[9]) tuple(s, s16)
}
ENTRY e {
  p = bf16[40,9] parameter(0)
  ROOT f = (f32[9], bf16[9]) fusion(p), kind=kInput, calls=fused
})");
}

TEST(ReductionFusionTest, TuplesOfOtherReducesAreNoReductionFusion) {
  // Reduced along different dimensions, or a reduce also read by another
  // output: not one set of loops.
  for (const char* text : {R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[8,8] parameter(0)
  zero = f32[] constant(0)
  r0 = f32[8] reduce(x, zero), dimensions={0}, to_apply=sum
  r1 = f32[8] reduce(x, zero), dimensions={1}, to_apply=sum
  ROOT t = (f32[8], f32[8]) tuple(r0, r1)
}
ENTRY e {
  p = f32[8,8] parameter(0)
  ROOT f = (f32[8], f32[8]) fusion(p), kind=kInput, calls=fused
})",
                           R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[8,8] parameter(0)
  zero = f32[] constant(0)
  r = f32[8] reduce(x, zero), dimensions={1}, to_apply=sum
  n = f32[8] negate(r)
  ROOT t = (f32[8], f32[8]) tuple(r, n)
}
ENTRY e {
  p = f32[8,8] parameter(0)
  ROOT f = (f32[8], f32[8]) fusion(p), kind=kInput, calls=fused
})"}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    const HloInstruction* fusion = (*module)->entry_computation()->root_instruction();
    EXPECT_TRUE(codegen::FusedRootReduces(*fusion).empty());
    EXPECT_FALSE(codegen::IsReductionFusionEmittable(*fusion));
    // The compiler expands it and still computes it.
    const std::vector<Literal> arguments = RampArguments(**module);
    absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, arguments);
    ASSERT_TRUE(expected.ok()) << expected.status();
    absl::StatusOr<Literal> actual = CompileAndRun(**module, arguments);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_EQ(*expected, *actual);
  }
}

// XLA:CPU leaves reductions inside loop fusions (XLA's layer-norm step:
// reduce-window of a row in 32-wide chunks, a reduce of the chunks, then
// rsqrt): each output element reduces in a loop of its own, and the fusion
// runs as one kernel instead of being expanded into buffers of its own.
void ExpectLoopFusionMatchesEvaluator(std::string_view text) {
  ExpectOneKernelMatchingTheEvaluator(text, FusionForm::kLoop);
}

TEST(ReductionFusionTest, ReduceInsideALoopFusion) {
  ExpectLoopFusionMatchesEvaluator(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[16,2,3]{1,2,0} parameter(0)
  zero = f32[] constant(0)
  r = f32[16] reduce(x, zero), dimensions={1,2}, to_apply=sum
  eps = f32[] constant(1e-5)
  e = f32[16] broadcast(eps), dimensions={}
  a = f32[16] add(r, e)
  ROOT s = f32[16] rsqrt(a)
}
ENTRY e {
  p = f32[16,2,3]{1,2,0} parameter(0)
  ROOT f = f32[16] fusion(p), kind=kLoop, calls=fused
})");
}

TEST(ReductionFusionTest, ReduceWindowInsideALoopFusion) {
  // 32-wide chunks of each row, and a padded, strided, base-dilated window
  // whose holes and padding contribute nothing.
  ExpectLoopFusionMatchesEvaluator(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
fused {
  x = f32[16,64] parameter(0)
  zero = f32[] constant(0)
  chunks = f32[16,2] reduce-window(x, zero), window={size=1x32 stride=1x32}, to_apply=sum
  lowest = f32[] constant(-inf)
  n = f32[16,64] negate(x)
  pooled = f32[16,42] reduce-window(n, lowest), window={size=1x3 stride=1x3 pad=0_0x0_1 lhs_dilate=1x2}, to_apply=mx
  c = f32[16,1] slice(pooled), slice={[0:16], [5:6]}
  cr = f32[16] reshape(c)
  cb = f32[16,2] broadcast(cr), dimensions={0}
  ROOT out = f32[16,2] add(chunks, cb)
}
ENTRY e {
  p = f32[16,64] parameter(0)
  ROOT f = f32[16,2] fusion(p), kind=kLoop, calls=fused
})");
}

}  // namespace
}  // namespace hmo::cpu::testing
