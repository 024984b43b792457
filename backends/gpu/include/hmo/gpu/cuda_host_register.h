#ifndef HMO_GPU_CUDA_HOST_REGISTER_H_
#define HMO_GPU_CUDA_HOST_REGISTER_H_

// Map/unmap callbacks that pin existing host memory with cudaHostRegister
// (portable) and unpin it with cudaHostUnregister; bind them to an
// AlignedHostMemoryAllocator to get pinned memory with a chosen alignment.

#include "absl/status/statusor.h"
#include "hmo/gpu/host_memory_allocator.h"

namespace hmo::gpu {

// UNAVAILABLE when built without the CUDA runtime or no device is visible.
absl::StatusOr<HostMemoryCallbacks> CudaHostRegisterCallbacks();

}  // namespace hmo::gpu

#endif  // HMO_GPU_CUDA_HOST_REGISTER_H_
