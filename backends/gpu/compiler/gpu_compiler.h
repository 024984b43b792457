#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_COMPILER_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_COMPILER_H_

// CompileForGpu: the GPU backend's compilation driver:
//   1. PrepareGpuModule (copy-insertion, schedule, 256-byte aligned buffer
//      assignment) on a private clone;
//   2. EmitGpuKernels: PTX for every kernel (codegen/gpu_kernel_module.h);
//   3. BuildThunkPlan: the host program (launches, copies, control flow).
// Needs no GPU: the result's Execute is where CUDA is first touched. With
// GpuDeviceKind::kHostEmulation the kernels are also compiled for the host
// and the executable runs on HostEmulatedDeviceRuntime instead (one per
// replica, sharing the host kernels).
//
// With num_replicas = N > 1 the executable runs N replicas together
// (GpuExecutable::ExecuteReplicated; CUDA: devices 0..N-1 and NCCL), and
// its collectives may span them in any replica groups (their collective
// plans; CUDA: NCCL, a communicator per group, cuda_collective_transport.h).

#include <memory>

#include "absl/status/statusor.h"
#include "gpu/codegen/gpu_kernel_module.h"
#include "gpu/compiler/gpu_executable.h"
#include "hmo/ir/hlo_module.h"

namespace hmo::gpu {

enum class GpuDeviceKind {
  kCuda,           // CUDA device 0, or devices 0..N-1 for N replicas (cuda_device_runtime.h)
  kHostEmulation,  // the host CPU (host_emulated_device_runtime.h)
};

struct GpuCompileOptions {
  GpuCodegenOptions codegen;
  GpuDeviceKind device = GpuDeviceKind::kCuda;
  // Replicas that run the module together (one device each). 0: the
  // module's replica_count (the HLO header's `replica_count=N`, 1 when
  // absent). INVALID_ARGUMENT when negative.
  int num_replicas = 1;
};

absl::StatusOr<std::unique_ptr<GpuExecutable>> CompileForGpu(const HloModule& module,
                                                             const GpuCompileOptions& options);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_COMPILER_H_
