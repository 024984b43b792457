#ifndef HMO_GPU_CUDA_COLLECTIVE_MEMORY_BACKEND_H_
#define HMO_GPU_CUDA_COLLECTIVE_MEMORY_BACKEND_H_

// Collective memory in CUDA device memory, for cliques living in one process
// whose GlobalDeviceIds are the process's CUDA device ordinals. Uses only the
// CUDA runtime: each rank's symmetric heap is one cudaMalloc on its device,
// laid out by LayOutSymmetricHeap (so offsets agree), zero-filled; the
// lowest rank enables peer access between every pair of devices, so a peer
// address is simply the peer's heap address (unified virtual addressing).
//
// Multicast memory is not available yet: it needs the driver's cuMulticast*
// and cuMem* virtual-memory API (to be reached through
// cudaGetDriverEntryPoint); requests for it fail with UNIMPLEMENTED.

#include <memory>

#include "absl/status/statusor.h"
#include "hmo/gpu/collective_memory_backend.h"

namespace hmo::gpu {

// UNAVAILABLE when hmo was built without the CUDA runtime or no CUDA device
// is visible. CreateShared later fails with INVALID_ARGUMENT for a device id
// that is not a visible ordinal, UNAVAILABLE when two devices of a clique
// cannot access each other's memory.
absl::StatusOr<std::unique_ptr<CollectiveMemoryBackend>> CreateCudaCollectiveMemoryBackend();

}  // namespace hmo::gpu

#endif  // HMO_GPU_CUDA_COLLECTIVE_MEMORY_BACKEND_H_
