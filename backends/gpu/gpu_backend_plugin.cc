// libhmo_gpu_backend.so: registers the "gpu" backend (NVIDIA GPUs through
// the CUDA runtime; kernels generated as PTX with LLVM's NVPTX target).

#include <memory>

#include "compiler/gpu_backend.h"
#include "hmo/plugin/plugin_registrars.h"

namespace {

absl::Status RegisterBackends(hmo::BackendRegistrar& backends) {
  hmo::BackendRegistration registration;
  registration.name = "gpu";
  registration.description =
      "NVIDIA GPUs: PTX kernels from LLVM's NVPTX target (libdevice math), CUDA runtime execution on "
      "buffer-assignment arenas (device memory, pinned host memory for S(5))";
  registration.backend = std::make_shared<const hmo::gpu::GpuBackend>();
  return backends.Register(std::move(registration));
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
