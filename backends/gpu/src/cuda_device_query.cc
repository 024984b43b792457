#include "hmo/gpu/cuda_device_query.h"

#include "absl/status/status.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>

#include "cuda_status.h"
#endif

namespace hmo::gpu {

bool BuiltWithCudaRuntime() {
#if HMO_GPU_HAVE_CUDA_RUNTIME
  return true;
#else
  return false;
#endif
}

absl::StatusOr<int> CudaDeviceCount() {
#if HMO_GPU_HAVE_CUDA_RUNTIME
  int count = 0;
  // Without a driver this reports cudaErrorInsufficientDriver (or
  // cudaErrorNoDevice) instead of crashing; the runtime loads libcuda lazily.
  absl::Status status = CudaStatus(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (!status.ok()) {
    // Device discovery failing always means "no usable device" to callers.
    return absl::UnavailableError(status.message());
  }
  if (count <= 0) return absl::UnavailableError("cudaGetDeviceCount: no CUDA device is visible");
  return count;
#else
  return absl::UnavailableError("hmo was built without the CUDA runtime");
#endif
}

}  // namespace hmo::gpu
