#include "gpu/nccl/device_memory_ops.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>

#include "cuda_status.h"
#endif

namespace hmo::gpu {
namespace {

#if HMO_GPU_HAVE_CUDA_RUNTIME

class CudaStreamMemoryOps final : public DeviceMemoryOps {
 public:
  explicit CudaStreamMemoryOps(void* stream) : stream_(static_cast<cudaStream_t>(stream)) {}

  absl::Status Copy(void* destination, const void* source, size_t bytes) override {
    if (bytes == 0 || destination == source) return absl::OkStatus();
    return CudaStatus(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream_),
                      "cudaMemcpyAsync");
  }

  absl::Status CopyStrided(void* destination, size_t destination_pitch, const void* source,
                           size_t source_pitch, size_t width, size_t rows) override {
    if (width == 0 || rows == 0) return absl::OkStatus();
    return CudaStatus(cudaMemcpy2DAsync(destination, destination_pitch, source, source_pitch, width,
                                        rows, cudaMemcpyDefault, stream_),
                      "cudaMemcpy2DAsync");
  }

  absl::Status Zero(void* destination, size_t bytes) override {
    if (bytes == 0) return absl::OkStatus();
    return CudaStatus(cudaMemsetAsync(destination, 0, bytes, stream_), "cudaMemsetAsync");
  }

  absl::Status CopyFromHost(void* destination, const void* host_source, size_t bytes) override {
    if (bytes == 0) return absl::OkStatus();
    return CudaStatus(
        cudaMemcpyAsync(destination, host_source, bytes, cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync");
  }

  absl::Status Synchronize() override {
    return CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  absl::StatusOr<void*> Allocate(size_t bytes) override {
    void* pointer = nullptr;
    if (absl::Status status = CudaStatus(cudaMalloc(&pointer, bytes), "cudaMalloc"); !status.ok())
      return status;
    return pointer;
  }

  void Free(void* pointer) override {
    if (pointer != nullptr) cudaFree(pointer);
  }

 private:
  cudaStream_t stream_;
};

#else

absl::Status NoCudaRuntime() {
  return absl::UnavailableError("hmo was built without the CUDA runtime");
}

class CudaStreamMemoryOps final : public DeviceMemoryOps {
 public:
  explicit CudaStreamMemoryOps(void*) {}
  absl::Status Copy(void*, const void*, size_t) override { return NoCudaRuntime(); }
  absl::Status CopyStrided(void*, size_t, const void*, size_t, size_t, size_t) override {
    return NoCudaRuntime();
  }
  absl::Status Zero(void*, size_t) override { return NoCudaRuntime(); }
  absl::Status CopyFromHost(void*, const void*, size_t) override { return NoCudaRuntime(); }
  absl::Status Synchronize() override { return NoCudaRuntime(); }
  absl::StatusOr<void*> Allocate(size_t) override { return NoCudaRuntime(); }
  void Free(void*) override {}
};

#endif

}  // namespace

std::unique_ptr<DeviceMemoryOps> CreateCudaStreamMemoryOps(void* stream) {
  return std::make_unique<CudaStreamMemoryOps>(stream);
}

}  // namespace hmo::gpu
