#ifndef HMO_GPU_PINNED_HOST_MEMORY_ALLOCATOR_H_
#define HMO_GPU_PINNED_HOST_MEMORY_ALLOCATOR_H_

// Page-locked ("pinned") host memory from cudaHostAlloc (portable: usable by
// every device of the process), released with cudaFreeHost. Device copies
// from pinned memory are asynchronous and reach full bandwidth.

#include <memory>

#include "hmo/gpu/host_memory_allocator.h"

namespace hmo::gpu {

class PinnedHostMemoryAllocator final : public HostMemoryAllocator {
 public:
  // UNAVAILABLE when hmo was built without the CUDA runtime or no CUDA device
  // is visible (no driver, no GPU); the message says which.
  static absl::StatusOr<std::unique_ptr<PinnedHostMemoryAllocator>> Create(
      HostMemoryCallbacks callbacks = {});

  absl::string_view name() const override { return "pinned"; }

 protected:
  // cudaHostAlloc returns page-aligned memory; larger alignments are served
  // by over-allocating.
  absl::StatusOr<RawHostMemory> AllocateRaw(size_t size, size_t alignment,
                                             std::optional<int> numa_node) override;

 private:
  explicit PinnedHostMemoryAllocator(HostMemoryCallbacks callbacks)
      : HostMemoryAllocator(std::move(callbacks)) {}
};

}  // namespace hmo::gpu

#endif  // HMO_GPU_PINNED_HOST_MEMORY_ALLOCATOR_H_
