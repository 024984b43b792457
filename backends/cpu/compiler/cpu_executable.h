#ifndef HMO_BACKENDS_CPU_COMPILER_CPU_EXECUTABLE_H_
#define HMO_BACKENDS_CPU_COMPILER_CPU_EXECUTABLE_H_

// CpuExecutable: a JIT-compiled module and the memory plan it runs on.
// Each Execute maps one arena per memory space (color), places every
// allocation of the buffer assignment at its aligned offset inside its
// arena, builds the buffer table (allocation index -> address), copies the
// arguments into the entry-parameter allocations (converting row-major
// literals to the parameters' layouts), calls the entry function and reads
// the results from the root's slices. Arenas are fresh anonymous mappings,
// so the pages the run touches are what it makes resident.

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/plugin/executable.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/codegen/jit/cpu_jit.h"

namespace hmo::cpu {

// The generated entry point: `void hmo_entry(char** buffer_table)`.
using CpuEntryFunction = void (*)(char** buffer_table);

class CpuExecutable : public Executable {
 public:
  // `owned_module` is null when `module` is the caller's (which must then
  // outlive the executable); else it is `module`.
  // `constant_addresses[i]` is the global of allocation i when it is a
  // constant allocation (null otherwise).
  CpuExecutable(std::unique_ptr<HloModule> owned_module, const HloModule& module,
                std::unique_ptr<BufferAssignment> assignment, std::unique_ptr<codegen::CpuJit> jit,
                CpuEntryFunction entry, ExecutableStats stats,
                std::vector<char*> constant_addresses);

  absl::StatusOr<Literal> Execute(absl::Span<const Literal> arguments,
                                  ExecutionProfile* profile) override;
  const ExecutableStats& stats() const override { return stats_; }

  const BufferAssignment& assignment() const { return *assignment_; }
  // The generated entry point, for callers that lay out their own buffer
  // table (benchmarks timing the kernels alone).
  CpuEntryFunction entry() const { return entry_; }
  const HloModule& module() const { return module_; }

  // Where each allocation lives: its color and offset inside that color's
  // arena; or `fixed_address` for a constant allocation (the read-only
  // global the JIT holds); neither for thread-local allocations and unused
  // constant ones, whose values generated code keeps in registers or on the
  // stack.
  struct Placement {
    int64_t color = 0;
    int64_t offset = -1;
    char* fixed_address = nullptr;
  };
  const std::vector<Placement>& placements() const { return placements_; }

 private:
  absl::Status CheckArguments(absl::Span<const Literal> arguments) const;

  std::unique_ptr<HloModule> owned_module_;
  const HloModule& module_;
  std::unique_ptr<BufferAssignment> assignment_;
  std::unique_ptr<codegen::CpuJit> jit_;
  CpuEntryFunction entry_;
  ExecutableStats stats_;
  std::vector<Placement> placements_;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_COMPILER_CPU_EXECUTABLE_H_
