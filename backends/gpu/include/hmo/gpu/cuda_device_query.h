#ifndef HMO_GPU_CUDA_DEVICE_QUERY_H_
#define HMO_GPU_CUDA_DEVICE_QUERY_H_

// Whether CUDA can be used by this process, asked at run time. Safe to call
// on machines without a driver or GPU, and in builds without the toolkit.

#include "absl/status/statusor.h"

namespace hmo::gpu {

// True when hmo_gpu_runtime was compiled against the CUDA runtime.
bool BuiltWithCudaRuntime();

// The number of visible CUDA devices (at least 1), or UNAVAILABLE naming the
// reason there are none: built without the CUDA runtime, no driver
// (cudaErrorInsufficientDriver), no device (cudaErrorNoDevice), ...
absl::StatusOr<int> CudaDeviceCount();

}  // namespace hmo::gpu

#endif  // HMO_GPU_CUDA_DEVICE_QUERY_H_
