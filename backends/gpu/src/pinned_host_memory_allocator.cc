#include "hmo/gpu/pinned_host_memory_allocator.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "hmo/gpu/cuda_device_query.h"

#if HMO_GPU_HAVE_CUDA_RUNTIME
#include <cuda_runtime_api.h>

#include "cuda_status.h"
#include "spdlog/spdlog.h"
#endif

namespace hmo::gpu {
namespace {

// cudaHostAlloc hands out whole pages.
constexpr size_t kPinnedBaseAlignment = 4096;

}  // namespace

absl::StatusOr<std::unique_ptr<PinnedHostMemoryAllocator>> PinnedHostMemoryAllocator::Create(
    HostMemoryCallbacks callbacks) {
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok()) {
    return absl::UnavailableError(
        absl::StrCat("pinned host memory needs a CUDA device: ", devices.status().message()));
  }
  return std::unique_ptr<PinnedHostMemoryAllocator>(
      new PinnedHostMemoryAllocator(std::move(callbacks)));
}

absl::StatusOr<HostMemoryAllocator::RawHostMemory> PinnedHostMemoryAllocator::AllocateRaw(
    size_t size, size_t alignment, std::optional<int> /*numa_node*/) {
#if HMO_GPU_HAVE_CUDA_RUNTIME
  const size_t padding = alignment > kPinnedBaseAlignment ? alignment - 1 : 0;
  if (size > SIZE_MAX - padding) {
    return absl::ResourceExhaustedError(
        absl::StrCat("pinned host memory allocator: ", size, " bytes is too large"));
  }
  void* base = nullptr;
  absl::Status status = CudaStatus(cudaHostAlloc(&base, size + padding, cudaHostAllocPortable),
                                   absl::StrCat("cudaHostAlloc(", size + padding, " bytes)"));
  if (!status.ok()) return status;
  const uintptr_t address = reinterpret_cast<uintptr_t>(base);
  const uintptr_t aligned = (address + alignment - 1) & ~(uintptr_t{alignment} - 1);
  return RawHostMemory{reinterpret_cast<void*>(aligned), base, [](void* base) {
                         cudaError_t error = cudaFreeHost(base);
                         if (error != cudaSuccess) {
                           spdlog::error("cudaFreeHost({}) failed: {}", base,
                                         cudaGetErrorString(error));
                         }
                       }};
#else
  (void)size;
  (void)alignment;
  return absl::UnavailableError("pinned host memory: hmo was built without the CUDA runtime");
#endif
}

}  // namespace hmo::gpu
