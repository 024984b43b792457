// The GPU backend's preparation fuses expanded fusions again
// (hmo/codegen/fusion/expanded_fusion_regrouping.h) into the loop fusions
// its kernels emit: XLA:CPU's `__ynn_fusion` of a dot, an elementwise
// epilogue and a reduction (tests/rewrites/ynn_output_fusion.hlo) runs as
// the dot, the reduce and loop fusions, with fewer planned bytes than one
// kernel per instruction, and still computes the evaluator's results on the
// host-emulated device.

#include <filesystem>
#include <memory>
#include <vector>

#include "gpu/compiler/gpu_compiler.h"
#include "gpu/compiler/gpu_module_preparation.h"
#include "gtest/gtest.h"
#include "hmo/codegen/emitted_memory_model.h"
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

TEST(GpuFusionRegroupingTest, ElementwiseInstructionsAreLoopFusionsAgain) {
  std::unique_ptr<HloModule> module = Parse();
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::unique_ptr<HloModule>> prepared = GpuMemoryModel("gpu").prepare(*module);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  int dots = 0, reduces = 0, loop_fusions = 0;
  for (const HloInstruction* instruction : (*prepared)->entry_computation()->instructions()) {
    switch (instruction->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
        break;
      case HloOpcode::kDot:
        ++dots;
        break;
      case HloOpcode::kReduce:
        ++reduces;
        break;
      case HloOpcode::kFusion:
        EXPECT_EQ(instruction->fusion_kind(), FusionKind::kLoop) << instruction->ToString();
        ++loop_fusions;
        break;
      default:
        ADD_FAILURE() << "left unfused: " << instruction->ToString();
    }
  }
  EXPECT_EQ(dots, 1);
  EXPECT_EQ(reduces, 1);
  // The reduction's producers, and its consumers.
  EXPECT_EQ(loop_fusions, 2);
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
  // At least one f32[2,4,32,32] intermediate (32 KiB) fewer at the peak.
  EXPECT_LE(regrouped->arenas.device_bytes() + 2 * 4 * 32 * 32 * 4, expanded->arenas.device_bytes())
      << "regrouped " << regrouped->arenas.device_bytes() << " B, expanded "
      << expanded->arenas.device_bytes() << " B";
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
