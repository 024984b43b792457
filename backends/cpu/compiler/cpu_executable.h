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

namespace hmo::cpu {

// The generated entry point: `void hmo_entry(char** buffer_table)`; the
// table ends with the LoopTripBudget's address (cpu/codegen/module_emitter.h).
using CpuEntryFunction = void (*)(char** buffer_table);

class CpuExecutable : public Executable {
 public:
  // `plan` is the module as compiled, its assignment and its arenas.
  // `constant_addresses[i]` is the global of allocation i when it is a
  // constant allocation (null otherwise). `while_loops` names the loops by
  // the index the generated code reports (EmittedModule::while_loops).
  CpuExecutable(TargetMemoryPlan plan, std::unique_ptr<codegen::CpuJit> jit, CpuEntryFunction entry,
                ExecutableStats stats, std::vector<char*> constant_addresses,
                std::vector<std::string> while_loops);
  ~CpuExecutable() override;

  absl::StatusOr<Literal> Execute(absl::Span<const Literal> arguments,
                                  ExecutionProfile* profile) override;
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

  TargetMemoryPlan plan_;
  std::unique_ptr<codegen::CpuJit> jit_;
  CpuEntryFunction entry_;
  ExecutableStats stats_;
  std::vector<Placement> placements_;
  std::vector<std::string> while_loops_;
  int64_t threads_ = 0;
  // The arenas of the last run that finished, for the next one.
  class Arenas;
  std::mutex idle_arenas_mutex_;
  std::unique_ptr<Arenas> idle_arenas_;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_COMPILER_CPU_EXECUTABLE_H_
