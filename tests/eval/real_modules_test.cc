// Real XLA modules from tests/hlo evaluated end to end, with spot checks of
// values computed independently here, and the two large models (with their
// elided constants filled in by hand) evaluated for shape and finiteness.

#include <cmath>
#include <cstring>
#include <string>

#include "evaluator_test_support.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "support/parsed_module.h"

namespace hmo::eval_test {
namespace {

// The corpus module tests/hlo/<name>.
std::unique_ptr<HloModule> LoadModule(std::string_view name) {
  return test_support::LoadTestModule("hlo/" + std::string(name));
}

// Replaces every elided constant with deterministic values: integers 0 (safe
// as gather/slice indices), floats small and of both signs.
void FillElidedConstants(HloModule* module) {
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kConstant || !instr->has_literal() ||
          !instr->literal().is_elided()) {
        continue;
      }
      Literal filled(instr->shape());
      if (primitive_util::IsFloatingPointType(instr->shape().element_type())) {
        // Seven values converted once, then repeated byte-wise (the tables
        // hold millions of elements).
        Literal pattern(Shape(instr->shape().element_type(), {7}));
        for (int64_t i = 0; i < 7; ++i) pattern.SetFromDouble(i, 0.01 * static_cast<double>(i - 3));
        const size_t width = static_cast<size_t>(ByteWidth(instr->shape().element_type()));
        std::vector<uint8_t>& bytes = *filled.mutable_raw_data();
        for (size_t i = 0; i * width < bytes.size(); ++i) {
          std::memcpy(&bytes[i * width], &pattern.raw_data()[(i % 7) * width], width);
        }
      }
      instr->set_literal(std::move(filled));
    }
  }
}

TEST(RealModulesTest, IfConditionalTakesTheBranchTheCompareSelects) {
  std::unique_ptr<HloModule> module = LoadModule("if_conditional.hlo");
  ASSERT_NE(module, nullptr);
  HloEvaluator evaluator;
  {
    // 5 < 10: the true branch computes log.
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0FromDouble(PrimitiveType::F32, 5));
    absl::StatusOr<Literal> result = evaluator.Evaluate(*module, args);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_FLOAT_EQ(result->tuple_elements()[0].GetAsDouble(0), std::log(5.0f));
  }
  {
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0FromDouble(PrimitiveType::F32, 12));
    absl::StatusOr<Literal> result = evaluator.Evaluate(*module, args);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_FLOAT_EQ(result->tuple_elements()[0].GetAsDouble(0), std::exp(12.0f));
  }
  // A computation whose conditional takes an empty tuple: false -> 10.
  const HloComputation* region = module->GetComputationWithName("region_0.12");
  ASSERT_NE(region, nullptr);
  std::vector<Literal> args;
  args.push_back(Literal::MakeTuple({}));
  absl::StatusOr<Literal> result = evaluator.Evaluate(*region, args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->tuple_elements()[1].GetAsDouble(0), 10);
  // Nested tuple operands: 20 >= 10 takes the exp branch on ((a, b), c).
  const HloComputation* nested = module->GetComputationWithName("tfcompile.1");
  ASSERT_NE(nested, nullptr);
  std::vector<Literal> nested_args;
  for (double v : {20.0, 1.0, 2.0}) {
    nested_args.push_back(Literal::CreateR0FromDouble(PrimitiveType::F32, v));
  }
  result = evaluator.Evaluate(*nested, nested_args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FLOAT_EQ(result->tuple_elements()[0].tuple_elements()[1].GetAsDouble(0), std::exp(1.0f));
  EXPECT_FLOAT_EQ(result->tuple_elements()[1].GetAsDouble(0), std::exp(2.0f));
}

TEST(RealModulesTest, HostOffloadWhileLoopsMatchAHandWrittenTrace) {
  std::unique_ptr<HloModule> module = LoadModule("host_offload_jit_f_while_loops.hlo");
  ASSERT_NE(module, nullptr);
  std::vector<double> x(16);
  for (int k = 0; k < 16; ++k) x[k] = 0.1 * k;
  std::vector<Literal> args;
  args.push_back(MakeArray("f32[16]", x));
  HloEvaluator evaluator;
  absl::StatusOr<Literal> result = evaluator.Evaluate(*module, args);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->element_count(), 16);
  // The module, per element: loop 1 stores sin^2 and sin^3 of the running
  // value in rows A[i], B[i]; loop 2 stores cos(v), cos(sin(v)), cos(A[i])
  // in C, D, E while v walks B; loop 3 folds v = (v + s) * E * D * C over the
  // rows in reverse, with s = 1 only on the first step.
  for (int k = 0; k < 16; ++k) {
    float a[16], b[16], c[16], d[16], e[16];
    float v = static_cast<float>(x[k]);
    for (int i = 0; i < 16; ++i) {
      float s2 = std::sin(std::sin(v));
      a[i] = s2;
      b[i] = std::sin(s2);
      v = b[i];
    }
    v = static_cast<float>(x[k]);
    for (int i = 0; i < 16; ++i) {
      c[i] = std::cos(v);
      d[i] = std::cos(std::sin(v));
      e[i] = std::cos(a[i]);
      v = b[i];
    }
    float acc = 0, s = 1;
    for (int i = 0; i < 16; ++i) {
      int j = 15 - i;
      acc = (acc + s) * e[j] * d[j] * c[j];
      s = 0;
    }
    EXPECT_NEAR(result->GetAsDouble(k), acc, 1e-5) << "element " << k;
  }
}

TEST(RealModulesTest, GraphSageEvaluatesWithFilledConstants) {
  std::unique_ptr<HloModule> module = LoadModule("graphsage_tf.hlo");
  ASSERT_NE(module, nullptr);
  FillElidedConstants(module.get());
  std::vector<Literal> args;
  for (const HloInstruction* param : module->entry_computation()->parameter_instructions()) {
    Literal arg(param->shape());
    if (primitive_util::IsFloatingPointType(param->shape().element_type())) {
      for (int64_t i = 0; i < arg.element_count(); ++i) arg.SetFromDouble(i, 0.05 * (i % 5));
    }
    args.push_back(std::move(arg));
  }
  HloEvaluator evaluator;
  absl::StatusOr<Literal> result = evaluator.Evaluate(*module, args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(ShapeUtil::EqualIgnoringLayout(result->shape(),
                                             module->entry_computation()->root_instruction()->shape()));
  ShapeUtil::ForEachLeafShape(result->shape(), [&](const Shape&, const ShapeIndex& index) {
    const Literal* leaf = &*result;
    for (int64_t i : index) leaf = &leaf->tuple_elements()[i];
    const int64_t count = leaf->element_count();
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_TRUE(std::isfinite(leaf->GetAsDouble(i)));
    }
  });
}

TEST(RealModulesTest, SsdMobilenetEvaluatesWithFilledConstants) {
  std::unique_ptr<HloModule> module = LoadModule("ssd_mobilenet_tf.hlo");
  ASSERT_NE(module, nullptr);
  FillElidedConstants(module.get());
  std::vector<Literal> args;
  for (const HloInstruction* param : module->entry_computation()->parameter_instructions()) {
    Literal arg(param->shape());
    const int64_t count = arg.element_count();
    for (int64_t i = 0; i < count; ++i) arg.SetFromDouble(i, (i % 11) * 0.1);
    args.push_back(std::move(arg));
  }
  HloEvaluator evaluator;
  absl::StatusOr<Literal> result = evaluator.Evaluate(*module, args);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->shape().IsTuple());
  ASSERT_EQ(result->tuple_elements().size(), 2u);
  EXPECT_EQ(result->tuple_elements()[0].element_count(), 1917 * 4);
  EXPECT_EQ(result->tuple_elements()[1].element_count(), 1917 * 90);
  for (const Literal& leaf : result->tuple_elements()) {
    const int64_t count = leaf.element_count();
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_TRUE(std::isfinite(leaf.GetAsDouble(i))) << i;
    }
  }
}

}  // namespace
}  // namespace hmo::eval_test
