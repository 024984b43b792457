// Independent kernels run at the same time (module_emitter.h,
// kernel_dependencies.h): on real modules' plans every pair of kernels that
// touch a common byte (one writing it) is ordered, directly or through
// others, and the graph lists no edge another implies; a module with
// independent kernels runs them as a graph and still computes the
// evaluator's results for any thread count.

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cpu/codegen/kernel_dependencies.h"
#include "cpu/compiler/cpu_compiler.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/codegen/alias_scopes.h"
#include "hmo/codegen/kernel_emitter.h"
#include "hmo/collectives/collective_plan.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/random_literals.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/text/hlo_parser.h"
#include "support/test_data.h"

namespace hmo::cpu {
namespace {

using Slices = std::set<BufferAssignment::Slice>;

Slices LeafSlices(const BufferAssignment& assignment, const HloInstruction& instruction) {
  Slices slices;
  ShapeUtil::ForEachSubshape(instruction.shape(), [&](const Shape& shape, const ShapeIndex& index) {
    if (!shape.IsArray()) return;
    const Slices leaf = assignment.GetAllSlices(&instruction, index);
    slices.insert(leaf.begin(), leaf.end());
  });
  return slices;
}

class KernelDependenciesTest : public ::testing::TestWithParam<const char*> {};

TEST_P(KernelDependenciesTest, EveryConflictIsOrderedAndNoEdgeIsImplied) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(test_support::ReadTestData(GetParam()));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<TargetMemoryPlan> plan = PlanTargetMemory(**module, CpuMemoryModel());
  ASSERT_TRUE(plan.ok()) << plan.status();
  const BufferAssignment& assignment = *plan->assignment;
  int64_t checked_pairs = 0, independent_pairs = 0;
  for (const HloComputation* computation : plan->module->MakeNonfusionComputations()) {
    if (!assignment.schedule().is_computation_scheduled(computation)) continue;
    std::vector<const HloInstruction*> kernels;
    for (const HloInstruction* instruction :
         assignment.schedule().sequence(computation).instructions()) {
      if (codegen::NeedsKernel(*instruction) &&
          !collectives::IsPlannedCollective(instruction->opcode())) {
        kernels.push_back(instruction);
      }
    }
    const std::vector<std::vector<int64_t>> predecessors = KernelPredecessors(assignment, kernels);
    const int64_t count = static_cast<int64_t>(kernels.size());
    std::vector<std::set<int64_t>> ancestors(count);
    for (int64_t j = 0; j < count; ++j) {
      for (int64_t p : predecessors[j]) {
        ASSERT_LT(p, j);
        ancestors[j].insert(p);
        ancestors[j].insert(ancestors[p].begin(), ancestors[p].end());
      }
      // No listed edge is implied by another listed one.
      for (int64_t p : predecessors[j]) {
        for (int64_t q : predecessors[j]) {
          EXPECT_FALSE(ancestors[q].count(p)) << kernels[j]->name() << ": " << kernels[p]->name()
                                              << " is implied by " << kernels[q]->name();
        }
      }
    }
    std::vector<Slices> reads(count), writes(count);
    for (int64_t k = 0; k < count; ++k) {
      for (const HloInstruction* operand : kernels[k]->operands()) {
        const Slices leaf = LeafSlices(assignment, *operand);
        reads[k].insert(leaf.begin(), leaf.end());
      }
      writes[k] = LeafSlices(assignment, *kernels[k]);
    }
    for (int64_t j = 0; j < count; ++j) {
      for (int64_t i = 0; i < j; ++i) {
        const bool conflict = codegen::AnyOverlap(writes[i], reads[j]) ||
                              codegen::AnyOverlap(writes[i], writes[j]) ||
                              codegen::AnyOverlap(reads[i], writes[j]);
        ++checked_pairs;
        if (conflict) {
          EXPECT_TRUE(ancestors[j].count(i))
              << kernels[j]->name() << " may run beside " << kernels[i]->name();
        } else if (!ancestors[j].count(i)) {
          ++independent_pairs;
        }
      }
    }
  }
  EXPECT_GT(checked_pairs, 0);
  EXPECT_GT(independent_pairs, 0) << "no two kernels could run at the same time";
}

INSTANTIATE_TEST_SUITE_P(RealModules, KernelDependenciesTest,
                         ::testing::Values("hlo/graphsage_tf.hlo", "hlo/attention_block.hlo",
                                           "hlo/mlp_train_step_donated.hlo",
                                           "hlo/ssd_mobilenet_tf.hlo"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = std::filesystem::path(info.param).stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// Independent small reductions and elementwise kernels, then two that read
// them.
constexpr char kIndependent[] = R"(HloModule independent
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[64,64]{1,0} parameter(0)
  p1 = f32[64,64]{1,0} parameter(1)
  zero = f32[] constant(0)
  w0 = f32[32,32]{1,0} reduce-window(p0, zero), window={size=2x2 stride=2x2}, to_apply=sum
  w1 = f32[32,32]{1,0} reduce-window(p1, zero), window={size=2x2 stride=2x2}, to_apply=sum
  e0 = f32[64,64]{1,0} exponential(p0)
  e1 = f32[64,64]{1,0} tanh(p1)
  r0 = f32[64]{0} reduce(e0, zero), dimensions={1}, to_apply=sum
  r1 = f32[64]{0} reduce(e1, zero), dimensions={0}, to_apply=sum
  s = f32[32,32]{1,0} add(w0, w1)
  t = f32[64]{0} multiply(r0, r1)
  ROOT out = (f32[32,32]{1,0}, f32[64]{0}) tuple(s, t)
}
)";

std::string IrOf(const HloModule& module, bool concurrent) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("hmo_concurrent_kernels_" + std::to_string(::getpid()) + ".ll");
  CpuCompileOptions options;
  options.concurrent_kernels = concurrent;
  options.dump_ir_to = path.string();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(module, options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  std::filesystem::remove(path);
  return text.str();
}

TEST(ConcurrentKernelsTest, IndependentKernelsRunAsAGraph) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kIndependent);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_NE(IrOf(**module, true).find("call void @__hmo_cpu_run_kernel_graph"), std::string::npos);
  EXPECT_EQ(IrOf(**module, false).find("__hmo_cpu_run_kernel_graph"), std::string::npos);
}

TEST(ConcurrentKernelsTest, ResultsAreTheEvaluatorsForEveryThreadCount) {
  for (const std::string& text :
       {std::string(kIndependent), test_support::ReadTestData("hlo/attention_block.hlo")}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    const std::vector<Literal> arguments = MakeRandomArguments(**module, 11);
    absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, arguments);
    ASSERT_TRUE(expected.ok()) << expected.status();
    for (int64_t threads : {1, 2, 4}) {
      CpuCompileOptions options;
      options.threads = threads;
      absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(**module, options);
      ASSERT_TRUE(executable.ok()) << executable.status();
      std::vector<Literal> runs;
      for (int run = 0; run < 3; ++run) {
        absl::StatusOr<Literal> actual = (*executable)->Execute(arguments, nullptr);
        ASSERT_TRUE(actual.ok()) << actual.status();
        runs.push_back(*std::move(actual));
      }
      // Whichever kernels overlap, each computes its output alone: the
      // same bits every run, the evaluator's values.
      for (const Literal& run : runs) EXPECT_EQ(run, runs.front()) << "threads " << threads;
      absl::Status same = CompareLiterals(*expected, runs.front(), LiteralComparisonOptions{});
      EXPECT_TRUE(same.ok()) << "threads " << threads << ": " << same;
    }
  }
}

}  // namespace
}  // namespace hmo::cpu
