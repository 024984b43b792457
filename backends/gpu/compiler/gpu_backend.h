#ifndef HMO_BACKENDS_GPU_COMPILER_GPU_BACKEND_H_
#define HMO_BACKENDS_GPU_COMPILER_GPU_BACKEND_H_

// The "gpu" Backend: an NVIDIA GPU as a compilation target (256-byte
// aligned buffers, 8-byte pointers) that compiles modules to PTX and runs
// them through the CUDA runtime. Compile works without a GPU; Execute then
// returns UNAVAILABLE ("no CUDA device: ..."). The "gpu-emulated" backend is
// the same compiler whose executables run on the host CPU
// (HostEmulatedDeviceRuntime): the GPU backend's tests without a GPU.

#include "gpu/compiler/gpu_compiler.h"
#include "hmo/plugin/backend.h"

namespace hmo::gpu {

class GpuBackend : public Backend {
 public:
  explicit GpuBackend(GpuDeviceKind device = GpuDeviceKind::kCuda) : device_(device) {}
  std::string_view name() const override {
    return device_ == GpuDeviceKind::kCuda ? "gpu" : "gpu-emulated";
  }
  TargetMemoryModel MemoryModel() const override;
  // A data-center GPU (fp32 without tensor cores, HBM3, PCIe 5 x16 to
  // pinned host memory); the emulation describes the same target.
  BackendCostRates CostRates() const override { return {5e13, 4.8e12, 5e10}; }
  bool CanExecute() const override { return true; }
  absl::StatusOr<std::unique_ptr<Executable>> Compile(const HloModule& module,
                                                      const CompileOptions& options) const override;

 private:
  GpuDeviceKind device_;
};

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_COMPILER_GPU_BACKEND_H_
