#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_EXECUTABLE_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_EXECUTABLE_H_

// GpuExecutable: PTX kernels, the thunk plan that runs them, and the memory
// plan (buffer assignment) they run on, executed through a GpuDeviceRuntime
// (gpu_device_runtime.h): CUDA by default, or the host emulation.
//
// The first Execute:
//   - creates the runtime when none was given (CreateCudaDeviceRuntime:
//     UNAVAILABLE "no CUDA device: <reason>" without a device) and loads the
//     kernels;
//   - places every allocation at a 256-byte aligned offset in one arena per
//     memory space: memory space 5 (S(5), host) in pinned host memory
//     (kernels reach it through unified addressing), every other space in
//     one device arena;
//   - uploads the buffer table (allocation index -> address) and the
//     constants.
// Every Execute copies the arguments into the entry parameters' slices
// (converted to the parameters' layouts on the host), runs the plan
// (kernels and copies on the compute stream; MoveToHost / MoveToDevice on the
// copy stream, overlapping the compute until a later thunk touches their
// bytes), and reads the root's slices back into a literal. With a profile it
// also records a timeline of both streams (timing events around every
// operation) and the device memory in use.

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/gpu_kernel_module.h"
#include "compiler/gpu_device_runtime.h"
#include "compiler/gpu_module_preparation.h"
#include "compiler/gpu_thunk_plan.h"
#include "hmo/execution/executable.h"

namespace hmo::gpu {

// `bytes` rounded up to kGpuBufferAlignment.
int64_t RoundUpToAlignment(int64_t bytes);

class GpuExecutable : public Executable {
 public:
  // `runtime` null: the CUDA runtime, created by the first Execute.
  GpuExecutable(PreparedGpuModule prepared, GpuKernelModule kernels, ThunkPlan plan, ExecutableStats stats,
                std::unique_ptr<GpuDeviceRuntime> runtime = nullptr);
  ~GpuExecutable() override;

  absl::StatusOr<Literal> Execute(absl::Span<const Literal> arguments, ExecutionProfile* profile) override;
  const ExecutableStats& stats() const override { return stats_; }

  const HloModule& module() const { return *prepared_.module; }
  const BufferAssignment& assignment() const { return *prepared_.assignment; }
  const GpuKernelModule& kernels() const { return kernels_; }
  const ThunkPlan& plan() const { return plan_; }

  // Where each allocation lives: its memory space, and its offset inside the
  // pinned host arena (space 5) or the device arena (every other space).
  struct Placement {
    int64_t color = 0;
    int64_t offset = 0;
  };
  const std::vector<Placement>& placements() const { return placements_; }

  // The runtime, arenas and buffer table, created by the first Execute;
  // opaque outside gpu_executable.cc.
  struct DeviceState;

 private:
  absl::Status CheckArguments(absl::Span<const Literal> arguments) const;
  absl::Status InitializeDevice();

  PreparedGpuModule prepared_;
  GpuKernelModule kernels_;
  ThunkPlan plan_;
  ExecutableStats stats_;
  std::vector<Placement> placements_;
  std::unique_ptr<GpuDeviceRuntime> runtime_;
  std::unique_ptr<DeviceState> device_;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_EXECUTABLE_H_
