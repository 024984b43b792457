#ifndef HMO_BACKENDS_CPU_COMPILER_CPU_COMPILER_H_
#define HMO_BACKENDS_CPU_COMPILER_CPU_COMPILER_H_

// CompileForCpu: the CPU backend's compilation driver (XLA's CpuCompiler):
//   1. on a private clone of the module: copy-insertion (the copies that
//      make while/conditional buffers interference-free), and a schedule:
//      the module's own, completed with post-order sequences for
//      computations it lacks;
//   2. buffer assignment under that schedule (64-byte aligned, one color per
//      memory space);
//   3. LLVM IR for every computation (codegen/module_emitter.h);
//   4. ORC JIT into one contiguous reservation (jit/cpu_jit.h);
// and returns a CpuExecutable that runs the entry function on arenas sized
// by the assignment.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cpu/compiler/cpu_executable.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::cpu {

// Every buffer offset is a multiple of this (a cache line; also what the
// vectorized kernels assume of their base pointers).
inline constexpr int64_t kCpuBufferAlignment = 64;

struct CpuCompileOptions {
  // LLVM optimization level (0-3).
  int opt_level = 2;
  // Which heap algorithm packs the temp buffers.
  TempHeapAlgorithm heap_algorithm = TempHeapAlgorithm::kXla;
  // When not empty, the optimized-before LLVM IR is written to this file.
  std::string dump_ir_to;
};

// Compiles `module` (the executable keeps its own prepared clone).
absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(const HloModule& module,
                                                             const CpuCompileOptions& options);

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_COMPILER_CPU_COMPILER_H_
