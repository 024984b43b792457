#ifndef HMO_GPU_ALIGNED_HOST_MEMORY_ALLOCATOR_H_
#define HMO_GPU_ALIGNED_HOST_MEMORY_ALLOCATOR_H_

// Plain pageable host memory from the C library's aligned allocation. Needs
// no GPU; the fallback of CreateDefaultHostMemoryAllocator().

#include "hmo/gpu/host_memory_allocator.h"

namespace hmo::gpu {

class AlignedHostMemoryAllocator final : public HostMemoryAllocator {
 public:
  explicit AlignedHostMemoryAllocator(HostMemoryCallbacks callbacks = {})
      : HostMemoryAllocator(std::move(callbacks)) {}

  absl::string_view name() const override { return "aligned"; }

 protected:
  absl::StatusOr<RawHostMemory> AllocateRaw(size_t size, size_t alignment,
                                             std::optional<int> numa_node) override;
};

}  // namespace hmo::gpu

#endif  // HMO_GPU_ALIGNED_HOST_MEMORY_ALLOCATOR_H_
