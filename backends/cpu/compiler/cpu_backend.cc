#include "cpu/compiler/cpu_backend.h"

#include "cpu/compiler/cpu_compiler.h"
#include "hmo/ir/shape.h"

namespace hmo::cpu {

int64_t CpuBackend::BufferSizeBytes(const Shape& shape) const {
  return ShapeUtil::ByteSizeOf(shape, /*pointer_size=*/8);
}

int64_t CpuBackend::BufferAlignment() const { return kCpuBufferAlignment; }

absl::StatusOr<std::unique_ptr<Executable>> CpuBackend::Compile(
    const HloModule& module, const CompileOptions& options) const {
  CpuCompileOptions cpu_options;
  cpu_options.opt_level = options.opt_level;
  cpu_options.dump_ir_to = options.dump_ir_to;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(module, cpu_options);
  if (!executable.ok()) return executable.status();
  return std::unique_ptr<Executable>(std::move(*executable));
}

}  // namespace hmo::cpu
