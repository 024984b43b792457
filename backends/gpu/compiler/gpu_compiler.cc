#include "gpu/compiler/gpu_compiler.h"

#include <chrono>
#include <string>
#include <utility>

#include "gpu/compiler/gpu_module_preparation.h"
#include "gpu/compiler/host_emulated_device_runtime.h"
#include "gpu/compiler/host_kernel_library.h"
#include "gpu/compiler/gpu_thunk_plan.h"
#include "fmt/format.h"
#include "hmo/base/status_macros.h"

namespace hmo::gpu {

absl::StatusOr<std::unique_ptr<GpuExecutable>> CompileForGpu(const HloModule& module,
                                                             const GpuCompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t replicas = options.num_replicas == 0 ? module.replica_count() : options.num_replicas;
  if (replicas < 1 || replicas > 1 << 16) {
    return absl::InvalidArgumentError("GPU compiler: num_replicas must be between 1 and 65536 (0: the module's "
                                      "replica_count), got " + std::to_string(replicas));
  }
  // A partitioned module runs one device per partition; with one replica the
  // partition ids its collectives name are the device ids, the ranks the
  // thunks use. Replicas of a partitioned module are not run yet.
  int64_t devices = replicas;
  if (module.num_partitions() > 1) {
    if (replicas != 1) {
      return absl::UnimplementedError(
          fmt::format("GPU compiler: {} replicas of a module of {} partitions: the GPU "
                      "executable runs one replica of a partitioned module",
                      replicas, module.num_partitions()));
    }
    devices = module.num_partitions();
  }
  HMO_ASSIGN_OR_RETURN(PreparedGpuModule prepared, PrepareGpuModule(module));
  HMO_ASSIGN_OR_RETURN(GpuKernelModule kernels,
                       EmitGpuKernels(*prepared.module, *prepared.assignment, options.codegen));
  HMO_ASSIGN_OR_RETURN(ThunkPlan plan, BuildThunkPlan(*prepared.module, *prepared.assignment,
                                                      kernels, static_cast<int>(devices)));

  ExecutableStats stats;
  stats.code_bytes = static_cast<int64_t>(kernels.ptx.size());  // PTX text; the driver compiles it at load
  stats.kernel_count = static_cast<int64_t>(kernels.kernels.size());
  stats.arena_bytes = prepared.arenas.arena_bytes;
  std::unique_ptr<GpuDeviceRuntime> runtime;
  GpuReplicaRuntimeFactory replica_runtimes;  // null: CUDA device r
  if (options.device == GpuDeviceKind::kHostEmulation) {
    HMO_ASSIGN_OR_RETURN(std::shared_ptr<const HostKernelLibrary> host_kernels,
                         HostKernelLibrary::Compile(*prepared.module, *prepared.assignment, options.codegen.opt_level));
    if (devices == 1) {
      HMO_ASSIGN_OR_RETURN(runtime, CreateHostEmulatedDeviceRuntime(host_kernels));
    }
    // Every replica gets a fresh device; the compiled kernels are shared.
    replica_runtimes = [host_kernels](int /*replica*/) { return CreateHostEmulatedDeviceRuntime(host_kernels); };
  }
  stats.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::make_unique<GpuExecutable>(std::move(prepared), std::move(kernels), std::move(plan),
                                         std::move(stats), std::move(runtime), std::move(replica_runtimes));
}

}  // namespace hmo::gpu
