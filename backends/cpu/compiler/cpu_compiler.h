#ifndef HMO_BACKENDS_CPU_COMPILER_CPU_COMPILER_H_
#define HMO_BACKENDS_CPU_COMPILER_CPU_COMPILER_H_

// CompileForCpu: the CPU backend's compilation driver (XLA's CpuCompiler):
//   1-2. the module planned under CpuMemoryModel (PlanTargetMemory): on a
//      private clone, fusions the loop-fusion emitter cannot emit expanded,
//      copy-insertion and a complete schedule; buffer assignment (64-byte
//      aligned, XLA's temp heap) and the arena layout, the
//      plan checked (buffer_plan_checker.h);
//   3. LLVM IR for every computation (codegen/module_emitter.h);
//   4. ORC JIT into one contiguous reservation (jit/cpu_jit.h);
// and returns a CpuExecutable that runs the entry function on arenas sized
// by the assignment.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cpu/compiler/cpu_executable.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::cpu {

// Every buffer offset is a multiple of this (a cache line; also what the
// vectorized kernels assume of their base pointers).
inline constexpr int64_t kCpuBufferAlignment = 64;

// The "cpu" target's memory model: what every memory measure of a pipeline
// targeting the CPU uses and what CompileForCpu plans with.
TargetMemoryModel CpuMemoryModel();

struct CpuCompileOptions {
  // LLVM optimization level (0-3).
  int opt_level = 2;
  // When not empty, the optimized-before LLVM IR is written to this file.
  std::string dump_ir_to;
  // Threads a partitioned kernel's parts run on, and the module's parts are
  // compiled on (CompileOptions::threads); 0: the machine's hardware threads.
  int64_t threads = 0;
  // Replicas of the module's partitions the executable runs: its devices
  // are num_replicas x module.num_partitions() (CpuExecutable).
  int64_t num_replicas = 1;
  // Independent kernels run at the same time (CodegenOptions).
  bool concurrent_kernels = true;
};

// Compiles `module` (the executable keeps its own prepared clone).
absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(const HloModule& module,
                                                             const CpuCompileOptions& options);

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_COMPILER_CPU_COMPILER_H_
