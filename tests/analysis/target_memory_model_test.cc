// The target memory model (hmo/analysis/target_memory_model.h): the arenas an
// executable allocates are laid out by one function, PlanTargetMemory applies
// the model's preparation before it plans, the additions are named, and the
// limit check counts the arenas.

#include "hmo/analysis/target_memory_model.h"

#include <cstdint>
#include <memory>
#include <set>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/analysis/memory_limit.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/layout.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using ::hmo::test_support::LoadTestModule;
using ::hmo::test_support::ParseTestModule;
using ::testing::HasSubstr;

constexpr char kTrainingStep[] =
    "corpus/mlp_sgd/module_0000.jit_mlp_sgd_step.cpu_after_optimizations.txt";

TargetMemoryModel Model(int64_t alignment) {
  TargetMemoryModel model;
  model.target = "test";
  model.assignment.alignment = alignment;
  model.assignment.heap_algorithm = TempHeapAlgorithm::kXla;
  model.assignment.allocate_buffers_for_constants = true;
  return model;
}

TEST(TargetMemoryModelTest, ArenasHoldEveryAllocationAlignedAndApart) {
  std::unique_ptr<HloModule> module = LoadTestModule(kTrainingStep);
  const TargetMemoryModel model = Model(64);
  absl::StatusOr<TargetMemoryPlan> plan = PlanTargetMemory(*module, model);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const auto& allocations = plan->assignment->Allocations();
  ASSERT_EQ(plan->arenas.placements.size(), allocations.size());
  int64_t held_bytes = 0;
  std::set<std::pair<int64_t, int64_t>> ranges;
  for (size_t i = 0; i < allocations.size(); ++i) {
    const ArenaLayout::Placement& placement = plan->arenas.placements[i];
    const bool kept_elsewhere = allocations[i].is_constant() || allocations[i].is_thread_local();
    if (kept_elsewhere) {
      EXPECT_EQ(placement.arena, -1) << "allocation " << i;
      continue;
    }
    ASSERT_EQ(placement.arena, ArenaLayout::kDeviceArena) << "allocation " << i;
    EXPECT_EQ(placement.offset % 64, 0);
    held_bytes += allocations[i].size();
    // No two allocations overlap.
    if (allocations[i].size() == 0) continue;
    const auto [it, inserted] =
        ranges.insert({placement.offset, placement.offset + allocations[i].size()});
    ASSERT_TRUE(inserted);
    if (it != ranges.begin()) {
      EXPECT_LE(std::prev(it)->second, it->first);
    }
    if (std::next(it) != ranges.end()) {
      EXPECT_LE(it->second, std::next(it)->first);
    }
  }
  EXPECT_GE(plan->arenas.device_bytes(), held_bytes);
  EXPECT_EQ(plan->arenas.device_bytes() % 64, 0);
  EXPECT_EQ(plan->arenas.host_bytes(), 0);
  // A model whose arenas hold constants too lays out more.
  TargetMemoryModel with_constants = model;
  with_constants.arenas_hold_constants = true;
  const ArenaLayout more = LayOutArenas(*plan->assignment, with_constants);
  EXPECT_GT(more.device_bytes(), plan->arenas.device_bytes());
}

TEST(TargetMemoryModelTest, WithAlignmentOneTheArenaIsTheModulesFigure) {
  // XLA's optimized dump has no parameter returned without a copy: every
  // byte of argument + output - alias + temp is one arena byte.
  std::unique_ptr<HloModule> module = LoadTestModule(kTrainingStep);
  absl::StatusOr<MemoryReport> report = BuildTargetMemoryReport(*module, Model(1));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->target.name, "test");
  EXPECT_EQ(report->target.module_device_bytes, report->stats.PeakEstimateBytes());
  EXPECT_EQ(report->target.arena_device_bytes, report->stats.PeakEstimateBytes());
  EXPECT_TRUE(report->target.preparation.empty());
}

// A preparation that copies the entry root's operand, as a backend adding a
// copy before it plans would.
absl::StatusOr<std::unique_ptr<HloModule>> CopyTheRoot(const HloModule& module) {
  std::unique_ptr<HloModule> clone = module.Clone();
  HloComputation* entry = clone->entry_computation();
  HloInstruction* root = entry->root_instruction();
  HloInstruction* copy = entry->AddInstruction(HloInstruction::CreateCopy(root->shape(), root));
  entry->set_root_instruction(copy);
  HloSchedule schedule(clone.get());
  schedule.set_sequence(entry, entry->MakeInstructionPostOrder());
  absl::Status scheduled = clone->set_schedule(std::move(schedule));
  if (!scheduled.ok()) return scheduled;
  return clone;
}

constexpr char kTwoOps[] = R"(
HloModule two_ops
ENTRY e {
  x = f32[256] parameter(0)
  y = f32[256] negate(x)
  ROOT z = f32[256] exponential(y)
}
)";

TEST(TargetMemoryModelTest, ThePreparationsAdditionsAreMeasuredAndNamed) {
  std::unique_ptr<HloModule> module = ParseTestModule(kTwoOps);
  TargetMemoryModel model = Model(64);
  const int64_t as_written = BuildTargetMemoryReport(*module, model)->target.arena_device_bytes;
  model.prepare = CopyTheRoot;
  absl::StatusOr<MemoryReport> report = BuildTargetMemoryReport(*module, model);
  ASSERT_TRUE(report.ok()) << report.status();
  // The module's own figures are the module's; the arenas hold the copy too.
  EXPECT_EQ(report->target.module_device_bytes, report->stats.PeakEstimateBytes());
  EXPECT_GT(report->target.arena_device_bytes, as_written);
  EXPECT_EQ(report->target.added_bytes(),
            report->target.arena_device_bytes - report->target.module_device_bytes);
  ASSERT_EQ(report->target.preparation.size(), 1u);
  EXPECT_THAT(report->target.preparation[0], HasSubstr("1 copy ("));
  EXPECT_THAT(report->target.ToString(), HasSubstr("the backend's preparation: 1 copy"));

  // The limit check counts the arenas: the module's own figure fits a limit
  // the prepared one exceeds.
  absl::StatusOr<MemoryLimitCheck> check =
      CheckTargetMemoryLimit(*module, report->target.module_device_bytes, model);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->device_bytes, report->target.arena_device_bytes);
  EXPECT_FALSE(check->fits());
  EXPECT_THAT(check->Describe(), HasSubstr("device arenas"));
}

TEST(TargetMemoryModelTest, APreparationWithoutAScheduleIsAnError) {
  std::unique_ptr<HloModule> module = ParseTestModule(kTwoOps);
  TargetMemoryModel model = Model(64);
  model.prepare = [](const HloModule& m) -> absl::StatusOr<std::unique_ptr<HloModule>> {
    return m.Clone();
  };
  absl::StatusOr<TargetMemoryPlan> plan = PlanTargetMemory(*module, model);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(plan.status().message(), HasSubstr("no scheduled module"));
}

}  // namespace
}  // namespace hmo
