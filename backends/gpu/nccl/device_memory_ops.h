#ifndef HMO_BACKENDS_GPU_NCCL_DEVICE_MEMORY_OPS_H_
#define HMO_BACKENDS_GPU_NCCL_DEVICE_MEMORY_OPS_H_

// The device-memory work of CudaCollectiveTransport besides NCCL calls:
// copies, strided copies, zero-fills, writing a host value, and scratch
// memory, all ordered on the rank's stream. An interface so the transport's
// plan execution (which NCCL calls, with which counts and peers, and how
// buffers are staged) is tested without a GPU: tests pass a host-memory
// implementation.

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hmo::gpu {

class DeviceMemoryOps {
 public:
  virtual ~DeviceMemoryOps() = default;
  // Enqueued on the stream; `source` and `destination` do not overlap
  // unless they are equal (then nothing is done).
  virtual absl::Status Copy(void* destination, const void* source, size_t bytes) = 0;
  // `rows` rows of `width` bytes; row r at destination + r * destination_pitch
  // and source + r * source_pitch (cudaMemcpy2DAsync).
  virtual absl::Status CopyStrided(void* destination, size_t destination_pitch, const void* source,
                                   size_t source_pitch, size_t width, size_t rows) = 0;
  virtual absl::Status Zero(void* destination, size_t bytes) = 0;
  // From host memory that stays valid until the stream has run the copy.
  virtual absl::Status CopyFromHost(void* destination, const void* host_source, size_t bytes) = 0;
  // Blocks until the stream has run everything enqueued.
  virtual absl::Status Synchronize() = 0;
  // Device memory for staging (released with Free, after Synchronize).
  virtual absl::StatusOr<void*> Allocate(size_t bytes) = 0;
  virtual void Free(void* pointer) = 0;
};

// The CUDA runtime on `stream` (a cudaStream_t; null: the legacy default
// stream). In a build without the CUDA runtime every call is UNAVAILABLE.
std::unique_ptr<DeviceMemoryOps> CreateCudaStreamMemoryOps(void* stream);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_NCCL_DEVICE_MEMORY_OPS_H_
