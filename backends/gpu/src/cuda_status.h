#ifndef HMO_GPU_SRC_CUDA_STATUS_H_
#define HMO_GPU_SRC_CUDA_STATUS_H_

// Internal: turns a CUDA runtime error code into an absl::Status. Only for
// translation units compiled with HMO_GPU_HAVE_CUDA_RUNTIME.

#if HMO_GPU_HAVE_CUDA_RUNTIME

#include "absl/strings/string_view.h"

#include <cuda_runtime_api.h>

#include "absl/status/status.h"

namespace hmo::gpu {

// OK for cudaSuccess; otherwise "<what>: <cudaErrorName>: <description>" with
// a code that tells the caller what to do about it: UNAVAILABLE when there is
// no usable driver or device, RESOURCE_EXHAUSTED when out of memory,
// INVALID_ARGUMENT for rejected arguments, INTERNAL otherwise.
absl::Status CudaStatus(cudaError_t error, absl::string_view what);

}  // namespace hmo::gpu

#endif  // HMO_GPU_HAVE_CUDA_RUNTIME
#endif  // HMO_GPU_SRC_CUDA_STATUS_H_
