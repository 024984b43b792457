#include "hmo/gpu/aligned_host_memory_allocator.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace hmo::gpu {

absl::StatusOr<HostMemoryAllocator::RawHostMemory> AlignedHostMemoryAllocator::AllocateRaw(
    size_t size, size_t alignment, std::optional<int> /*numa_node*/) {
  // aligned_alloc wants the size to be a multiple of the alignment.
  if (size > SIZE_MAX - (alignment - 1)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("aligned host memory allocator: ", size, " bytes is too large"));
  }
  const size_t rounded = (size + alignment - 1) & ~(alignment - 1);
  void* data = std::aligned_alloc(alignment, rounded);
  if (data == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "aligned host memory allocator: out of memory allocating ", size,
        " bytes aligned to ", alignment));
  }
  return RawHostMemory{data, data, [](void* base) { std::free(base); }};
}

}  // namespace hmo::gpu
