#include "hmo/gpu/cuda_host_register.h"

#include "absl/strings/str_cat.h"
#include "hmo/gpu/cuda_device_query.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>

#include "cuda_status.h"
#include "spdlog/spdlog.h"
#endif

namespace hmo::gpu {

absl::StatusOr<HostMemoryCallbacks> CudaHostRegisterCallbacks() {
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cudaHostRegister needs a CUDA device: ", devices.status().message()));
  }
#if HMO_GPU_HAVE_CUDA_RUNTIME
  HostMemoryCallbacks callbacks;
  callbacks.map = [](void* data, size_t size) {
    return CudaStatus(cudaHostRegister(data, size, cudaHostRegisterPortable),
                      absl::StrCat("cudaHostRegister(", size, " bytes)"));
  };
  callbacks.unmap = [](void* data, size_t /*size*/) {
    cudaError_t error = cudaHostUnregister(data);
    if (error != cudaSuccess) {
      spdlog::error("cudaHostUnregister({}) failed: {}", data, cudaGetErrorString(error));
    }
  };
  return callbacks;
#else
  return absl::UnavailableError("hmo was built without the CUDA runtime");
#endif
}

}  // namespace hmo::gpu
