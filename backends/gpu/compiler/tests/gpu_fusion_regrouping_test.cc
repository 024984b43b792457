// The GPU backend's preparation fuses expanded fusions again
// (hmo/codegen/fusion/expanded_fusion_regrouping.h) into the loop and
// reduction fusions its kernels emit: XLA:CPU's `__ynn_fusion` of a dot, an
// elementwise epilogue and a reduction (tests/rewrites/ynn_output_fusion.hlo)
// runs as the dot, a reduction fusion computing the reduce's elementwise
// producers inside its loop, and a loop fusion of its consumers, with fewer
// planned bytes than one kernel per instruction, and still computes the
// evaluator's results on the host-emulated device.

#include <filesystem>
#include <memory>
#include <vector>

#include "gpu/compiler/gpu_compiler.h"
#include "gpu/compiler/gpu_module_preparation.h"
#include "gtest/gtest.h"
#include "hmo/codegen/emitted_memory_model.h"
#include "hmo/codegen/fusion/expanded_fusion_regrouping.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/random_literals.h"
#include "hmo/ir/hlo_computation.h"
#include "support/parsed_module.h"

namespace hmo::gpu {
namespace {

std::unique_ptr<HloModule> Parse() {
  return test_support::LoadTestModule("rewrites/ynn_output_fusion.hlo");
}

TEST(GpuFusionRegroupingTest, ElementwiseInstructionsAreLoopAndReductionFusionsAgain) {
  std::unique_ptr<HloModule> module = Parse();
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::unique_ptr<HloModule>> prepared = GpuMemoryModel("gpu").prepare(*module);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  int dots = 0, reduction_fusions = 0, loop_fusions = 0;
  for (const HloInstruction* instruction : (*prepared)->entry_computation()->instructions()) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
        break;
      case HloOpcode::kDot:
        ++dots;
        break;
      case HloOpcode::kFusion:
        if (instruction->fused_expression_root()->opcode() == HloOpcode::kReduce) {
          EXPECT_EQ(instruction->fusion_kind(), FusionKind::kInput) << instruction->ToString();
          // The reduce's input, the product times a broadcast and p, is
          // computed inside its loop: the dot, s, t and p are its operands.
          EXPECT_EQ(instruction->operand_count(), 5) << instruction->ToString();
          ++reduction_fusions;
        } else {
          EXPECT_EQ(instruction->fusion_kind(), FusionKind::kLoop) << instruction->ToString();
          ++loop_fusions;
        }
        break;
      default:
        ADD_FAILURE() << "left unfused: " << instruction->ToString();
    }
  }
  EXPECT_EQ(dots, 1);
  EXPECT_EQ(reduction_fusions, 1);
  // The reduction's consumers.
  EXPECT_EQ(loop_fusions, 1);
}

TEST(GpuFusionRegroupingTest, FewerBytesThanOneKernelPerInstruction) {
  std::unique_ptr<HloModule> module = Parse();
  ASSERT_NE(module, nullptr);
  absl::StatusOr<TargetMemoryPlan> regrouped = PlanTargetMemory(*module, GpuMemoryModel("gpu"));
  ASSERT_TRUE(regrouped.ok()) << regrouped.status();
  TargetMemoryModel expanded_model =
      codegen::EmittedMemoryModel("gpu", kGpuBufferAlignment, codegen::EmittedFusions::kLoop);
  expanded_model.arenas_hold_constants = true;
  expanded_model.arenas_hold_thread_locals = true;
  absl::StatusOr<TargetMemoryPlan> expanded = PlanTargetMemory(*module, expanded_model);
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  // At least two f32[2,4,32,32] intermediates (32 KiB each) fewer at the
  // peak: the reduce's input is computed inside its loop.
  EXPECT_LE(regrouped->arenas.device_bytes() + 2 * 2 * 4 * 32 * 32 * 4,
            expanded->arenas.device_bytes())
      << "regrouped " << regrouped->arenas.device_bytes() << " B, expanded "
      << expanded->arenas.device_bytes() << " B";
}

TEST(GpuFusionRegroupingTest, ReductionFusionsKeepTheirInputsOutOfMemory) {
  std::unique_ptr<HloModule> module = Parse();
  ASSERT_NE(module, nullptr);
  absl::StatusOr<TargetMemoryPlan> gpu = PlanTargetMemory(*module, GpuMemoryModel("gpu"));
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  // The same regrouping for kernels of loop fusions only: the reduce reads
  // its input from a buffer.
  TargetMemoryModel loops_only = codegen::EmittedMemoryModel(
      "gpu", kGpuBufferAlignment, codegen::EmittedFusions::kLoop,
      [](HloModule& m, const std::vector<HloInstruction*>& expanded) {
        return codegen::RegroupExpandedInstructions(m, expanded, codegen::EmittedFusions::kLoop)
            .status();
      });
  loops_only.arenas_hold_constants = true;
  loops_only.arenas_hold_thread_locals = true;
  absl::StatusOr<TargetMemoryPlan> loops = PlanTargetMemory(*module, loops_only);
  ASSERT_TRUE(loops.ok()) << loops.status();
  // The reduce's f32[2,4,32,32] input (32 KiB) is not in the plan.
  EXPECT_LE(gpu->arenas.device_bytes() + 2 * 4 * 32 * 32 * 4, loops->arenas.device_bytes())
      << "loop and reduction fusions " << gpu->arenas.device_bytes() << " B, loop fusions only "
      << loops->arenas.device_bytes() << " B";
}

TEST(GpuFusionRegroupingTest, EmulatedResultsEqualTheEvaluators) {
  if (!std::filesystem::exists(DefaultLibdevicePath())) {
    GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  }
  std::unique_ptr<HloModule> module = Parse();
  ASSERT_NE(module, nullptr);
  const std::vector<Literal> arguments = MakeRandomArguments(*module, 3);
  GpuCompileOptions options;
  options.device = GpuDeviceKind::kHostEmulation;
  absl::StatusOr<std::unique_ptr<GpuExecutable>> executable = CompileForGpu(*module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<Literal> actual = (*executable)->Execute(arguments, nullptr);
  ASSERT_TRUE(actual.ok()) << actual.status();
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(*module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  const absl::Status same = CompareLiterals(*expected, *actual, LiteralComparisonOptions{});
  EXPECT_TRUE(same.ok()) << same;
}

}  // namespace
}  // namespace hmo::gpu
