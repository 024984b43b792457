// reshape-to-bitcast: which reshapes keep their bytes in place and become
// bitcasts, which stay, and that the values stay the same.

#include "cpu/simplification/reshape_to_bitcast.h"

#include <memory>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/plugin/plugin_registries.h"
#include "hmo/verifier/hlo_verifier.h"
#include "support/parsed_module.h"

namespace hmo::cpu {
namespace {

using test_support::ParseTestModule;

absl::StatusOr<bool> RunPass(HloModule& module) {
  PluginRegistries registries;
  AnalysisManager analyses(module);
  PassContext context(analyses, registries);
  ReshapeToBitcast pass;
  return pass.Run(module, context);
}

HloOpcode OpcodeOf(const HloModule& module, std::string_view name) {
  for (const HloComputation* computation : module.computations()) {
    if (const HloInstruction* found = computation->GetInstructionWithName(name)) {
      return found->opcode();
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return HloOpcode::kParameter;
}

constexpr std::string_view kModule = R"(
HloModule m, is_scheduled=true

slice_of {
  a = f32[4,2,3]{2,1,0} parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  d = f32[1,2,3]{2,1,0} dynamic-slice(a, i, z, z), dynamic_slice_sizes={1,2,3}
  ROOT s = f32[2,3]{1,0} reshape(d)
}

ENTRY e {
  a = f32[4,2,3]{2,1,0} parameter(0)
  i = s32[] parameter(1)
  row = f32[2,3]{1,0} call(a, i), to_apply=slice_of
  flat = f32[6]{0} reshape(row)
  n = f32[6]{0} negate(flat)
  col = f32[3,2]{0,1} parameter(2)
  moved = f32[6]{0} reshape(col)
  m = f32[6]{0} multiply(n, moved)
  ROOT out = f32[2,3]{1,0} reshape(m)
}
)";

TEST(ReshapeToBitcastTest, RowMajorReshapesBecomeBitcasts) {
  std::unique_ptr<HloModule> module = ParseTestModule(kModule);
  absl::StatusOr<bool> changed = RunPass(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(OpcodeOf(*module, "flat"), HloOpcode::kBitcast);
  // The root of a computation only calls run reads the slice in place too.
  EXPECT_EQ(OpcodeOf(*module, "s"), HloOpcode::kBitcast);
  // A column-major operand moves its elements; the entry's result keeps a
  // buffer of its own.
  EXPECT_EQ(OpcodeOf(*module, "moved"), HloOpcode::kReshape);
  EXPECT_EQ(OpcodeOf(*module, "out"), HloOpcode::kReshape);
  EXPECT_TRUE(module->schedule().Verify().ok());
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << module->ToString();
}

TEST(ReshapeToBitcastTest, ValuesStayTheSame) {
  std::unique_ptr<HloModule> rewritten = ParseTestModule(kModule);
  std::unique_ptr<HloModule> reference = ParseTestModule(kModule);
  ASSERT_TRUE(RunPass(*rewritten).ok());
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter : reference->entry_computation()->parameter_instructions()) {
    Literal literal(parameter->shape());
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      literal.SetFromDouble(i, parameter->shape().element_type() == PrimitiveType::S32
                                   ? 2.0
                                   : static_cast<double>((i * 5) % 7) - 3.0);
    }
    arguments.push_back(std::move(literal));
  }
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(*reference, arguments);
  absl::StatusOr<Literal> actual = HloEvaluator().Evaluate(*rewritten, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(*expected, *actual) << expected->ToString() << "\n" << actual->ToString();
}

}  // namespace
}  // namespace hmo::cpu
