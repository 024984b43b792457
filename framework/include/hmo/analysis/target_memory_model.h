#ifndef HMO_ANALYSIS_TARGET_MEMORY_MODEL_H_
#define HMO_ANALYSIS_TARGET_MEMORY_MODEL_H_

// A target's memory model: how the backend that runs a module turns it into
// device bytes. One object, provided by the backend plugin
// (Backend::MemoryModel) and named once per pipeline (`target:`), that every
// memory measure uses: the limit check, `fit`, the memory-scheduler's
// objective, `memory-report`, `hmo stats` and the executable itself.
//
// The model has three parts:
//   - the buffer assignment it plans with (pointer size, offset alignment,
//     temp heap algorithm, constants with allocations): on the module as
//     written this gives XLA's memory_analysis() figures;
//   - the preparation its compiler applies first (copies it inserts, fusions
//     it expands: CloneForExecution with the backend's options);
//   - how its executable lays allocations out in arenas (LayOutArenas).
// PlanTargetMemory applies all three. Its arenas are the arenas the
// executable allocates, byte for byte: both backends compile from the plan.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

struct TargetMemoryModel {
  // The backend's name ("cpu", "gpu"); empty for the model of no target:
  // the module as written, alignment 1, hmo's best packing, one arena per
  // side.
  std::string target;
  // How buffers are sized, aligned and packed.
  MemoryReportOptions assignment;
  // Whether the executable's arenas hold constant and thread-local
  // allocations (a GPU uploads constants; a CPU reads them from the code's
  // read-only data and keeps thread-local values in registers).
  bool arenas_hold_constants = false;
  bool arenas_hold_thread_locals = false;
  // The backend's preparation: a private, completely scheduled clone of the
  // module as it will be compiled. Null: a clone, unscheduled computations
  // in post order.
  std::function<absl::StatusOr<std::unique_ptr<HloModule>>(const HloModule&)> prepare;

  // "cpu" / "no target".
  std::string DisplayName() const { return target.empty() ? "no target" : target; }
};

// Where each allocation of an assignment lives in the executable's memory:
// one device arena (every memory space but host memory S(5)) and one host
// arena (S(5)), allocations in index order at offsets aligned to the
// model's alignment, each arena's size rounded up to it.
struct ArenaLayout {
  // The arenas: kDeviceArena and Layout::kHostMemorySpace.
  static constexpr int64_t kDeviceArena = 0;
  struct Placement {
    int64_t arena = -1;  // -1: in no arena (a constant or thread-local the target keeps elsewhere)
    int64_t offset = 0;
  };
  std::vector<Placement> placements;       // by allocation index
  std::map<int64_t, int64_t> arena_bytes;  // arena -> bytes (only arenas with allocations)

  int64_t device_bytes() const;
  int64_t host_bytes() const;
};

ArenaLayout LayOutArenas(const BufferAssignment& assignment, const TargetMemoryModel& model);

// A module as `model`'s backend compiles it: the prepared clone, its buffer
// assignment and the arena layout.
struct TargetMemoryPlan {
  std::unique_ptr<HloModule> module;  // declared first: the assignment points into it
  std::unique_ptr<BufferAssignment> assignment;
  ArenaLayout arenas;
};

// Prepares (model.prepare), assigns buffers (model.assignment) and lays the
// arenas out. Errors: those of the preparation and the buffer assignment.
absl::StatusOr<TargetMemoryPlan> PlanTargetMemory(const HloModule& module,
                                                  const TargetMemoryModel& model);

// `plan` (of `original` under a model) against `module_stats`, the figures of
// `original` as written under the same model's assignment options.
// (The additions: MemoryReportTarget, memory_report.h.)
MemoryReportTarget DescribeTargetAdditions(const HloModule& original, std::string target,
                                           const CompiledMemoryStats& module_stats,
                                           const TargetMemoryPlan& plan);

// BuildMemoryReport(module, model.assignment) with report.target filled from
// PlanTargetMemory: the figures of the module as written, and the arenas the
// target's executable allocates for it.
absl::StatusOr<MemoryReport> BuildTargetMemoryReport(const HloModule& module,
                                                     const TargetMemoryModel& model);

}  // namespace hmo

#endif  // HMO_ANALYSIS_TARGET_MEMORY_MODEL_H_
