// The expanded output fusions of XLA's optimized modules are fused again
// (hmo/codegen/fusion/expanded_fusion_regrouping.h): the dot of an XLA:CPU
// `__ynn_fusion` with an elementwise epilogue and a reduction in it
// (tests/rewrites/ynn_output_fusion.hlo: XLA:CPU's ynn_fusion.80 of a
// GPT-style attention backward pass, at a smaller size) runs as the dot, one
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
#include "support/parsed_module.h"

namespace hmo::cpu {
namespace {

std::unique_ptr<HloModule> Parse() {
  return test_support::LoadTestModule("rewrites/ynn_output_fusion.hlo");
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
