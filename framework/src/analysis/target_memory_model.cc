#include "hmo/analysis/target_memory_model.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hmo/analysis/byte_size.h"
#include "hmo/analysis/memory_limit.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/ir/layout.h"

namespace hmo {
namespace {

int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// A clone of `module` whose every non-fusion computation has a sequence:
// the module's own where it has one, post order elsewhere.
absl::StatusOr<std::unique_ptr<HloModule>> ScheduledClone(const HloModule& module) {
  std::unique_ptr<HloModule> clone = module.Clone();
  HMO_RETURN_IF_ERROR(clone->set_schedule(CompletedSchedule(*clone)));
  return clone;
}

// "3 copies (copy.1, copy.2, copy.7)": at most four names, then a count.
std::string NamedCount(const std::vector<std::string>& names, const std::string& one,
                       const std::string& many, const std::string& suffix) {
  std::vector<std::string> shown(names.begin(), names.begin() + std::min<size_t>(names.size(), 4));
  std::string text = absl::StrCat(names.size(), " ", names.size() == 1 ? one : many, suffix, " (",
                                  absl::StrJoin(shown, ", "));
  if (names.size() > shown.size()) absl::StrAppend(&text, ", ...");
  return text + ")";
}

}  // namespace

int64_t ArenaLayout::device_bytes() const {
  auto it = arena_bytes.find(kDeviceArena);
  return it == arena_bytes.end() ? 0 : it->second;
}

int64_t ArenaLayout::host_bytes() const {
  auto it = arena_bytes.find(Layout::kHostMemorySpace);
  return it == arena_bytes.end() ? 0 : it->second;
}

ArenaLayout LayOutArenas(const BufferAssignment& assignment, const TargetMemoryModel& model) {
  const int64_t alignment = std::max<int64_t>(1, model.assignment.alignment);
  ArenaLayout layout;
  std::map<int64_t, int64_t> end;
  for (const BufferAllocation& allocation : assignment.Allocations()) {
    ArenaLayout::Placement placement;
    const bool held = (!allocation.is_constant() || model.arenas_hold_constants) &&
                      (!allocation.is_thread_local() || model.arenas_hold_thread_locals);
    if (held) {
      placement.arena = allocation.color() == Layout::kHostMemorySpace ? Layout::kHostMemorySpace
                                                                       : ArenaLayout::kDeviceArena;
      int64_t& arena_end = end[placement.arena];
      placement.offset = AlignUp(arena_end, alignment);
      arena_end = placement.offset + allocation.size();
    }
    layout.placements.push_back(placement);
  }
  for (const auto& [arena, bytes] : end) layout.arena_bytes[arena] = AlignUp(bytes, alignment);
  return layout;
}

absl::StatusOr<TargetMemoryPlan> PlanTargetMemory(const HloModule& module,
                                                  const TargetMemoryModel& model) {
  TargetMemoryPlan plan;
  if (model.prepare) {
    HMO_ASSIGN_OR_RETURN(plan.module, model.prepare(module));
    if (plan.module == nullptr || !plan.module->has_schedule()) {
      return absl::InternalError(absl::StrCat("the preparation of target '", model.target,
                                              "' returned no scheduled module"));
    }
  } else {
    HMO_ASSIGN_OR_RETURN(plan.module, ScheduledClone(module));
  }
  HMO_ASSIGN_OR_RETURN(
      plan.assignment,
      AssignBuffersAsReported(*plan.module, plan.module->schedule(), model.assignment));
  plan.arenas = LayOutArenas(*plan.assignment, model);
  return plan;
}

MemoryReportTarget DescribeTargetAdditions(const HloModule& original, std::string target,
                                           const CompiledMemoryStats& module_stats,
                                           const TargetMemoryPlan& plan) {
  MemoryReportTarget additions;
  additions.name = std::move(target);
  additions.module_device_bytes = module_stats.PeakEstimateBytes();
  additions.arena_device_bytes = plan.arenas.device_bytes();
  additions.arena_host_bytes = plan.arenas.host_bytes();

  absl::flat_hash_set<std::string> before, after;
  std::vector<std::string> fusions;
  for (const HloComputation* computation : original.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      before.insert(instruction->name());
    }
  }
  std::vector<std::string> copies, others;
  for (const HloComputation* computation : plan.module->computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      after.insert(instruction->name());
      if (before.contains(instruction->name())) continue;
      (instruction->opcode() == HloOpcode::kCopy ? copies : others).push_back(instruction->name());
    }
  }
  for (const HloComputation* computation : original.MakeNonfusionComputations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kFusion && !after.contains(instruction->name())) {
        fusions.push_back(instruction->name());
      }
    }
  }
  if (!copies.empty()) additions.preparation.push_back(NamedCount(copies, "copy", "copies", ""));
  if (!fusions.empty()) {
    additions.preparation.push_back(NamedCount(fusions, "fusion", "fusions", " expanded"));
  }
  if (!others.empty()) {
    additions.preparation.push_back(
        NamedCount(others, "other instruction", "other instructions", " added"));
  }
  return additions;
}

absl::StatusOr<MemoryReport> BuildTargetMemoryReport(const HloModule& module,
                                                     const TargetMemoryModel& model) {
  absl::StatusOr<TargetMemoryPlan> plan = PlanTargetMemory(module, model);
  MemoryReport report;
  if (model.prepare || !plan.ok()) {
    HMO_ASSIGN_OR_RETURN(report, BuildMemoryReport(module, model.assignment));
  } else {
    // The plan is an assignment of a scheduled clone of the module as
    // written: no second one.
    HMO_ASSIGN_OR_RETURN(report,
                         BuildMemoryReportFromAssignment(*plan->assignment, model.assignment));
    report.schedule_source = !module.has_schedule() ? "post-order" : "module";
  }
  // The limit is irrelevant here: only the values live at the peak are read.
  report.peak_by_source =
      BytesBySource(CheckMemoryReport(module, report, /*limit=*/0).live_at_peak);
  if (!plan.ok()) {
    // The module's own figures stand; the report says why the target's do not.
    report.target.name = model.DisplayName();
    report.target.module_device_bytes = report.stats.PeakEstimateBytes();
    report.target.arena_device_bytes = report.target.module_device_bytes;
    report.target.plan_error = std::string(plan.status().message());
    return report;
  }
  report.target = DescribeTargetAdditions(module, model.DisplayName(), report.stats, *plan);
  return report;
}

}  // namespace hmo
