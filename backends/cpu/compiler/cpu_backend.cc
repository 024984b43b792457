#include "cpu/compiler/cpu_backend.h"

#include "cpu/compiler/cpu_compiler.h"

namespace hmo::cpu {

TargetMemoryModel CpuBackend::MemoryModel() const { return CpuMemoryModel(); }

absl::StatusOr<std::unique_ptr<Executable>> CpuBackend::Compile(
    const HloModule& module, const CompileOptions& options) const {
  CpuCompileOptions cpu_options;
  cpu_options.opt_level = options.opt_level;
  cpu_options.dump_ir_to = options.dump_ir_to;
  cpu_options.threads = options.threads;
  cpu_options.concurrent_kernels = options.concurrent_kernels;
  cpu_options.num_replicas = options.num_replicas;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(module, cpu_options);
  if (!executable.ok()) return executable.status();
  return std::unique_ptr<Executable>(std::move(*executable));
}

}  // namespace hmo::cpu
