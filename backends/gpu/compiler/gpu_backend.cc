#include "gpu/compiler/gpu_backend.h"

#include "gpu/compiler/gpu_compiler.h"
#include "gpu/compiler/gpu_module_preparation.h"

namespace hmo::gpu {

TargetMemoryModel GpuBackend::MemoryModel() const { return GpuMemoryModel(std::string(name())); }

absl::StatusOr<std::unique_ptr<Executable>> GpuBackend::Compile(const HloModule& module,
                                                                const CompileOptions& options) const {
  GpuCompileOptions gpu_options;
  gpu_options.codegen.opt_level = options.opt_level;
  gpu_options.codegen.dump_ir_to = options.dump_ir_to;
  gpu_options.device = device_;
  gpu_options.num_replicas = static_cast<int>(options.num_replicas);
  absl::StatusOr<std::unique_ptr<GpuExecutable>> executable = CompileForGpu(module, gpu_options);
  if (!executable.ok()) return executable.status();
  return std::unique_ptr<Executable>(std::move(*executable));
}

}  // namespace hmo::gpu
