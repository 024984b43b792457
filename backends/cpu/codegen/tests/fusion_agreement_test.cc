// Larger loop fusions mixing data movement and arithmetic over several
// element types, compared with the reference evaluator.

#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/verifier/hlo_verifier.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

// A deterministic argument: element i of parameter p.
Literal Argument(const Shape& shape, int p) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const double v = std::sin(0.7 * i + 1.3 * p) * 10;
    if (IsFloatingPoint(shape.element_type())) {
      literal.SetFromDouble(i, v);
    } else if (shape.element_type() == PrimitiveType::PRED) {
      literal.SetFromInt64(i, v > 0);
    } else {
      literal.SetFromInt64(i, static_cast<int64_t>(std::abs(v)) % 5);
    }
  }
  return literal;
}

void Check(const std::string& hlo, double tolerance) {
  auto module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  // Both sides trust the shapes: a case must be a valid module.
  ASSERT_TRUE(VerifyHloModule(**module).ok()) << VerifyHloModule(**module);
  std::vector<Literal> args;
  const HloComputation* entry = (*module)->entry_computation();
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    args.push_back(Argument(entry->parameter_instruction(p)->shape(), static_cast<int>(p)));
  }
  auto executable = CompileForCpu(**module, CpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto got = (*executable)->Execute(args, nullptr);
  ASSERT_TRUE(got.ok()) << got.status();
  auto want = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  const Literal& g = got->tuple_elements().empty() ? *got : got->tuple_elements()[0];
  const Literal& w = want->tuple_elements().empty() ? *want : want->tuple_elements()[0];
  ASSERT_EQ(g.element_count(), w.element_count());
  for (int64_t i = 0; i < w.element_count(); ++i) {
    EXPECT_NEAR(g.GetAsDouble(i), w.GetAsDouble(i), tolerance * std::max(1.0, std::abs(w.GetAsDouble(i))))
        << "element " << i;
  }
}

TEST(FusionAgreementTest, MixedDataMovementAndArithmeticF32) {
  Check(R"(
HloModule m
fused {
  a = f32[4,6] parameter(0)
  b = f32[6,4] parameter(1)
  v = f32[6] parameter(2)
  bt = f32[4,6] transpose(b), dimensions={1,0}
  vb = f32[4,6] broadcast(v), dimensions={1}
  prod = f32[4,6] multiply(a, bt)
  sum = f32[4,6] add(prod, vb)
  s = f32[4,3] slice(sum), slice={[0:4], [1:6:2]}
  z = f32[] constant(0.5)
  p = f32[5,6] pad(s, z), padding=0_1x2_-1_1
  r = f32[30] reshape(p)
  c = f32[36] concatenate(r, v), dimensions={0}
  t = f32[36] tanh(c)
  gt = pred[36] compare(c, t), direction=GT
  ROOT sel = f32[36] select(gt, c, t)
}
ENTRY e {
  a = f32[4,6]{0,1} parameter(0)
  b = f32[6,4] parameter(1)
  v = f32[6] parameter(2)
  ROOT f = f32[36] fusion(a, b, v), kind=kLoop, calls=fused
})", 1e-6);
}

TEST(FusionAgreementTest, NarrowFloatsAndIntegersThroughDataMovement) {
  Check(R"(
HloModule m
fused {
  a = bf16[3,5] parameter(0)
  b = f16[5,3] parameter(1)
  k = s8[3,5] parameter(2)
  m = pred[3,5] parameter(3)
  bt = f16[3,5] transpose(b), dimensions={1,0}
  bc = bf16[3,5] convert(bt)
  kc = bf16[3,5] convert(k)
  x = bf16[3,5] multiply(a, bc)
  y = bf16[3,5] add(x, kc)
  r = bf16[3,5] reverse(y), dimensions={0,1}
  s = bf16[3,5] select(m, r, y)
  ROOT o = f32[3,5] convert(s)
}
ENTRY e {
  a = bf16[3,5] parameter(0)
  b = f16[5,3]{0,1} parameter(1)
  k = s8[3,5] parameter(2)
  m = pred[3,5] parameter(3)
  ROOT f = f32[3,5] fusion(a, b, k, m), kind=kLoop, calls=fused
})", 1.0 / 64);
}

TEST(FusionAgreementTest, DynamicSliceOfIotaAndClampInIntegers) {
  Check(R"(
HloModule m
fused {
  i = s32[] parameter(0)
  x = u16[8,8] parameter(1)
  io = u16[8,8] iota(), iota_dimension=0
  a = u16[8,8] add(io, x)
  d = u16[3,8] dynamic-slice(a, i, i), dynamic_slice_sizes={3,8}
  lo = u16[] constant(2)
  hi = u16[] constant(6)
  ROOT c = u16[3,8] clamp(lo, d, hi)
}
ENTRY e {
  i = s32[] parameter(0)
  x = u16[8,8] parameter(1)
  ROOT f = u16[3,8] fusion(i, x), kind=kLoop, calls=fused
})", 0);
}

}  // namespace
}  // namespace hmo::cpu::testing
