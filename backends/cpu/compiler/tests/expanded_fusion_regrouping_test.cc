// The expanded output fusions of XLA's optimized modules are fused again
// (expanded_fusion_regrouping.h): the dot of an XLA:CPU `__ynn_fusion` with
// an elementwise epilogue and a reduction in it runs as the dot, one
// reduction fusion and one loop fusion; no other intermediate takes a
// buffer, and the results stay the evaluator's.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cpu/compiler/cpu_compiler.h"
#include "hmo/codegen/emitted_memory_model.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/random_literals.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::cpu {
namespace {

// After XLA:CPU's ynn_fusion.80 of a GPT-style attention backward pass,
// at a smaller size.
constexpr char kOutputFusion[] =
    R"(HloModule ynn_output_fusion, entry_computation_layout={(f32[2,4,32,16]{3,2,1,0}, f32[2,4,32,16]{3,2,1,0}, f32[2,4,32,32]{3,2,1,0}, f32[2,4,32]{2,1,0}, f32[2,4,32]{2,1,0}, f32[2,4,32,32]{3,2,1,0})->f32[2,4,32,32]{3,2,1,0}}

%region_add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

%fused_computation.80 (param_0.100: f32[], param_1.104: f32[2,4,32,32], param_2.27: f32[2,4,32], param_3.19: f32[2,4,32], param_4.15: f32[2,4,32,32], param_5.15: f32[2,4,32,16], param_6.3: f32[2,4,32,16]) -> f32[2,4,32,32] {
  %param_5.15 = f32[2,4,32,16]{3,2,1,0} parameter(5)
  %param_6.3 = f32[2,4,32,16]{3,2,1,0} parameter(6)
  %dot_general.7 = f32[2,4,32,32]{3,2,1,0} dot(%param_5.15, %param_6.3), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
  %param_4.15 = f32[2,4,32,32]{3,2,1,0} parameter(4)
  %multiply.137 = f32[2,4,32,32]{3,2,1,0} multiply(%dot_general.7, %param_4.15)
  %param_2.27 = f32[2,4,32]{2,1,0} parameter(2)
  %param_3.19 = f32[2,4,32]{2,1,0} parameter(3)
  %mul.67 = f32[2,4,32]{2,1,0} multiply(%param_3.19, %param_3.19)
  %div.36 = f32[2,4,32]{2,1,0} divide(%param_2.27, %mul.67)
  %mul.65 = f32[2,4,32,32]{3,2,1,0} broadcast(%div.36), dimensions={0,1,2}
  %mul.64 = f32[2,4,32,32]{3,2,1,0} multiply(%dot_general.7, %mul.65)
  %param_1.104 = f32[2,4,32,32]{3,2,1,0} parameter(1)
  %mul.63 = f32[2,4,32,32]{3,2,1,0} multiply(%mul.64, %param_1.104)
  %param_0.100 = f32[] parameter(0)
  %reduce_sum.154 = f32[2,4,32]{2,1,0} reduce(%mul.63, %param_0.100), dimensions={3}, to_apply=%region_add
  %neg.18 = f32[2,4,32]{2,1,0} negate(%reduce_sum.154)
  %broadcast_in_dim.54 = f32[2,4,32,32]{3,2,1,0} broadcast(%neg.18), dimensions={0,1,2}
  %add_any.14 = f32[2,4,32,32]{3,2,1,0} add(%multiply.137, %broadcast_in_dim.54)
  ROOT %mul.66 = f32[2,4,32,32]{3,2,1,0} multiply(%add_any.14, %param_1.104)
}

ENTRY %main (q: f32[2,4,32,16], k: f32[2,4,32,16], g: f32[2,4,32,32], s: f32[2,4,32], t: f32[2,4,32], p: f32[2,4,32,32]) -> f32[2,4,32,32] {
  %q = f32[2,4,32,16]{3,2,1,0} parameter(0)
  %k = f32[2,4,32,16]{3,2,1,0} parameter(1)
  %g = f32[2,4,32,32]{3,2,1,0} parameter(2)
  %s = f32[2,4,32]{2,1,0} parameter(3)
  %t = f32[2,4,32]{2,1,0} parameter(4)
  %p = f32[2,4,32,32]{3,2,1,0} parameter(5)
  %zero = f32[] constant(0)
  ROOT %ynn_fusion.80 = f32[2,4,32,32]{3,2,1,0} fusion(%zero, %p, %s, %t, %g, %q, %k), kind=kCustom, calls=%fused_computation.80, backend_config={"outer_dimension_partitions":[],"fusion_config":{"kind":"__ynn_fusion"}}
}
)";

std::unique_ptr<HloModule> Parse() {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kOutputFusion);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

TEST(ExpandedFusionRegroupingTest, TheDotStaysAloneAndItsEpilogueIsTwoFusions) {
  std::unique_ptr<HloModule> module = Parse();
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::unique_ptr<HloModule>> prepared = CpuMemoryModel().prepare(*module);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  int dots = 0, reduction_fusions = 0, loop_fusions = 0, others = 0;
  for (const HloInstruction* instruction : (*prepared)->entry_computation()->instructions()) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
        break;
      case HloOpcode::kDot:
        ++dots;
        break;
      case HloOpcode::kFusion:
        if (instruction->fused_instructions_computation()->root_instruction()->opcode() ==
            HloOpcode::kReduce) {
          ++reduction_fusions;
        } else {
          ++loop_fusions;
        }
        break;
      default:
        ADD_FAILURE() << "left unfused: " << instruction->ToString();
        ++others;
    }
  }
  EXPECT_EQ(dots, 1);
  EXPECT_EQ(reduction_fusions, 1);
  EXPECT_EQ(loop_fusions, 1);
  EXPECT_EQ(others, 0);
}

TEST(ExpandedFusionRegroupingTest, TheIntermediatesTakeNoBuffers) {
  std::unique_ptr<HloModule> module = Parse();
  ASSERT_NE(module, nullptr);
  absl::StatusOr<TargetMemoryPlan> regrouped = PlanTargetMemory(*module, CpuMemoryModel());
  ASSERT_TRUE(regrouped.ok()) << regrouped.status();
  // The same preparation with every expanded instruction a kernel of its own.
  TargetMemoryModel expanded_model = codegen::EmittedMemoryModel(
      "cpu", kCpuBufferAlignment, codegen::EmittedFusions::kLoopReductionAndOutput);
  expanded_model.arenas_hold_constants = false;
  expanded_model.arenas_hold_thread_locals = false;
  absl::StatusOr<TargetMemoryPlan> expanded = PlanTargetMemory(*module, expanded_model);
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  // Arguments (48 KiB) and the output (32 KiB) are the same; expanded, the
  // dot's result and at least one more f32[2,4,32,32] intermediate (32 KiB
  // each) are live at once; regrouped, only the dot's result and the
  // reduction's f32[2,4,32].
  const int64_t f32_2x4x32x32 = 2 * 4 * 32 * 32 * 4;
  EXPECT_LE(regrouped->arenas.device_bytes() + f32_2x4x32x32, expanded->arenas.device_bytes())
      << "regrouped " << regrouped->arenas.device_bytes() << " B, expanded "
      << expanded->arenas.device_bytes() << " B";
}

TEST(ExpandedFusionRegroupingTest, ResultsEqualTheEvaluators) {
  std::unique_ptr<HloModule> module = Parse();
  ASSERT_NE(module, nullptr);
  const std::vector<Literal> arguments = MakeRandomArguments(*module, 3);
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(*module, CpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<Literal> actual = (*executable)->Execute(arguments, nullptr);
  ASSERT_TRUE(actual.ok()) << actual.status();
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(*module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::Status same = CompareLiterals(*expected, *actual, LiteralComparisonOptions{});
  EXPECT_TRUE(same.ok()) << same;
}

}  // namespace
}  // namespace hmo::cpu
