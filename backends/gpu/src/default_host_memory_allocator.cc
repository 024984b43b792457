#include "hmo/gpu/default_host_memory_allocator.h"

#include "hmo/gpu/aligned_host_memory_allocator.h"
#include "hmo/gpu/pinned_host_memory_allocator.h"

namespace hmo::gpu {

std::unique_ptr<HostMemoryAllocator> CreateDefaultHostMemoryAllocator(
    HostMemoryCallbacks callbacks) {
  absl::StatusOr<std::unique_ptr<PinnedHostMemoryAllocator>> pinned =
      PinnedHostMemoryAllocator::Create(callbacks);
  if (pinned.ok()) return *std::move(pinned);
  return std::make_unique<AlignedHostMemoryAllocator>(std::move(callbacks));
}

}  // namespace hmo::gpu
