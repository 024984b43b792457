// libhmo_gpu_backend.so: registers the "gpu" backend (NVIDIA GPUs through
// the CUDA runtime; kernels generated as PTX with LLVM's NVPTX target) and
// "gpu-emulated" (the same on the host CPU, for machines without a GPU).

#include <memory>

#include "gpu/compiler/gpu_backend.h"
#include "hmo/base/status_macros.h"
#include "hmo/plugin/plugin_registrars.h"

namespace {

absl::Status RegisterBackends(hmo::BackendRegistrar& backends) {
  hmo::BackendRegistration registration;
  registration.name = "gpu";
  registration.description =
      "NVIDIA GPUs: PTX kernels from LLVM's NVPTX target (libdevice math), CUDA runtime execution on "
      "buffer-assignment arenas (device memory, pinned host memory for S(5))";
  registration.backend = std::make_shared<const hmo::gpu::GpuBackend>();
  HMO_RETURN_IF_ERROR(backends.Register(std::move(registration)));

  hmo::BackendRegistration emulated;
  emulated.name = "gpu-emulated";
  emulated.description =
      "the gpu backend's compiler and executable on the host CPU: the same kernels compiled for the host, "
      "device memory in host memory, a copy stream that runs as late as its events allow (testing without a GPU)";
  emulated.backend = std::make_shared<const hmo::gpu::GpuBackend>(hmo::gpu::GpuDeviceKind::kHostEmulation);
  return backends.Register(std::move(emulated));
}

}  // namespace

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = [] {
    HmoPluginInfo info = hmo::CxxPluginInfo("gpu-backend", "0.1.0");
    info.register_backends = hmo::RegistrationCallback<&RegisterBackends>;
    return info;
  }();
  return &info;
}
