#ifndef HMO_BACKENDS_CPU_COMPILER_CPU_EXECUTABLE_H_
#define HMO_BACKENDS_CPU_COMPILER_CPU_EXECUTABLE_H_

// CpuExecutable: a JIT-compiled module and the memory plan it runs on.
// Each Execute maps the arenas of the plan (PlanTargetMemory under the CPU
// model: one device arena, one for host memory S(5)), places every
// allocation of the buffer assignment where the plan's ArenaLayout says,
// builds the buffer table (allocation index -> address), copies the
// arguments into the entry-parameter allocations (converting row-major
// literals to the parameters' layouts), calls the entry function and reads
// the results from the root's slices. Arenas are anonymous mappings: the
// first run's pages are what it makes resident. A finished run leaves its
// arenas to the next (as a device allocator keeps its pool), so a warm run
// writes into pages already resident instead of faulting in fresh zeroed
// ones; runs at the same time each map their own. Generated code never
// reads a buffer before writing it, so what a previous run left is unseen.
//
// Devices: an executable compiled for a grid of replicas x partitions
// (hmo/ir/collective_attributes.h: DeviceGrid) of more than one device runs
// through ExecuteReplicated, one thread per device, each on its own arenas,
// its collectives meeting the other devices' (cpu_collectives.h); Execute
// runs a grid of one. Launched by MPI (`mpirun -n N`, N the device count),
// each process runs its own device, its collectives meet the other
// processes' (MpiCollectives), and ExecuteReplicated returns every
// device's results, gathered from the processes.

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/plugin/executable.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/codegen/jit/cpu_jit.h"
#include "hmo/collectives/collective_plan.h"
#include "hmo/collectives/device_collectives.h"
#include "hmo/collectives/mpi_collectives.h"
#include "hmo/ir/collective_attributes.h"

namespace hmo::cpu {

// The generated entry point: `void hmo_entry(char** buffer_table)`; the
// table ends with the LoopTripBudget's address and the device context
// (cpu/codegen/module_emitter.h).
using CpuEntryFunction = void (*)(char** buffer_table);

class CpuExecutable : public Executable {
 public:
  // `plan` is the module as compiled, its assignment and its arenas.
  // `constant_addresses[i]` is the global of allocation i when it is a
  // constant allocation (null otherwise). `while_loops` names the loops by
  // the index the generated code reports (EmittedModule::while_loops).
  // `collective_plans[k]` is the plan of the generated code's collective k
  // on the devices of `grid`.
  CpuExecutable(TargetMemoryPlan plan, std::unique_ptr<codegen::CpuJit> jit, CpuEntryFunction entry,
                ExecutableStats stats, std::vector<char*> constant_addresses,
                std::vector<std::string> while_loops, DeviceGrid grid = {},
                std::vector<collectives::CollectivePlan> collective_plans = {});
  ~CpuExecutable() override;

  absl::StatusOr<Literal> Execute(absl::Span<const Literal> arguments,
                                  ExecutionProfile* profile) override;
  // One argument list per device of the grid (device = replica * partitions
  // + partition); INVALID_ARGUMENT for another count. The first device's
  // failure that is not a peer's deadline is the one reported.
  absl::StatusOr<std::vector<Literal>> ExecuteReplicated(
      const std::vector<std::vector<Literal>>& arguments_per_device,
      std::vector<ExecutionProfile>* profiles) override;
  const DeviceGrid& grid() const { return grid_; }
  const ExecutableStats& stats() const override { return stats_; }

  // Threads the partitioned kernels' parts run on during Execute, the
  // calling one included; 0 (the default): the machine's hardware threads.
  void set_threads(int64_t threads) { threads_ = threads; }

  const BufferAssignment& assignment() const { return *plan_.assignment; }
  // The generated entry point, for callers that lay out their own buffer
  // table (benchmarks timing the kernels alone).
  CpuEntryFunction entry() const { return entry_; }
  const HloModule& module() const { return *plan_.module; }

  // Where each allocation lives: its arena (ArenaLayout's: 0 device, 5 host)
  // and offset inside it; or `fixed_address` for a constant allocation (the
  // read-only global the JIT holds); neither for thread-local allocations
  // and unused constant ones, whose values generated code keeps in
  // registers or on the stack.
  struct Placement {
    int64_t arena = 0;
    int64_t offset = -1;
    char* fixed_address = nullptr;
  };
  const std::vector<Placement>& placements() const { return placements_; }

 private:
  absl::Status CheckArguments(absl::Span<const Literal> arguments) const;
  // Applies the intra-op thread count (once per Execute/ExecuteReplicated:
  // the pool is shared by the devices' threads).
  void ApplyThreadCount() const;
  // Runs the entry function as `device` of a run whose devices meet in
  // `collectives`. `arguments_in`, when given, is called once the arguments
  // are in the arenas and before the run starts, or on the way out of a
  // failure before that (the devices of a replicated run start together).
  absl::StatusOr<Literal> RunDevice(absl::Span<const Literal> arguments, int64_t device,
                                    collectives::DeviceCollectives& collectives,
                                    ExecutionProfile* profile,
                                    const std::function<void()>& arguments_in = nullptr);
  // ExecuteReplicated in a process of an MPI launch: this process's device,
  // the others' results gathered.
  absl::StatusOr<std::vector<Literal>> ExecuteAcrossProcesses(
      const std::vector<std::vector<Literal>>& arguments_per_device,
      collectives::MpiCollectives& mpi, std::vector<ExecutionProfile>* profiles);

  TargetMemoryPlan plan_;
  std::unique_ptr<codegen::CpuJit> jit_;
  CpuEntryFunction entry_;
  ExecutableStats stats_;
  std::vector<Placement> placements_;
  std::vector<std::string> while_loops_;
  int64_t threads_ = 0;
  DeviceGrid grid_;
  std::vector<collectives::CollectivePlan> collective_plans_;
  // The arenas of the runs that finished, one set per device at most, for
  // the next runs: the devices of a replicated run each take one, so warm
  // runs write into resident pages on every device.
  class Arenas;
  std::mutex idle_arenas_mutex_;
  std::vector<std::unique_ptr<Arenas>> idle_arenas_;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_COMPILER_CPU_EXECUTABLE_H_
