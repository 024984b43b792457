#include "hmo/gpu/host_memory_allocator.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hmo::gpu {

OwnedHostMemory::OwnedHostMemory(void* data, size_t size, Releaser releaser)
    : data_(data), size_(size), releaser_(std::move(releaser)) {}

OwnedHostMemory::OwnedHostMemory(OwnedHostMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      releaser_(std::move(other.releaser_)) {}

OwnedHostMemory& OwnedHostMemory::operator=(OwnedHostMemory&& other) noexcept {
  if (this != &other) {
    Reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    releaser_ = std::move(other.releaser_);
  }
  return *this;
}

OwnedHostMemory::~OwnedHostMemory() { Reset(); }

void OwnedHostMemory::Reset() {
  void* data = std::exchange(data_, nullptr);
  size_t size = std::exchange(size_, 0);
  Releaser releaser = std::move(releaser_);
  releaser_ = nullptr;
  if (data != nullptr && releaser) releaser(data, size);
}

HostMemoryAllocator::HostMemoryAllocator(HostMemoryCallbacks callbacks)
    : callbacks_(std::move(callbacks)) {}

absl::StatusOr<OwnedHostMemory> HostMemoryAllocator::Allocate(
    size_t size, const HostAllocationOptions& options) {
  if (size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name(), " host memory allocator: cannot allocate 0 bytes"));
  }
  const size_t alignment = options.alignment;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name(), " host memory allocator: alignment ", alignment, " is not a power of two"));
  }
  absl::StatusOr<RawHostMemory> raw =
      AllocateRaw(size, std::max(alignment, alignof(void*)), options.numa_node);
  if (!raw.ok()) return raw.status();

  if (callbacks_.map) {
    absl::Status mapped = callbacks_.map(raw->data, size);
    if (!mapped.ok()) {
      raw->free(raw->base);
      return absl::Status(mapped.code(),
                          absl::StrCat(name(), " host memory allocator: map callback failed for ",
                                       size, " bytes: ", mapped.message()));
    }
  }
  return OwnedHostMemory(
      raw->data, size,
      [unmap = callbacks_.unmap, base = raw->base, free = raw->free](void* data, size_t size) {
        if (unmap) unmap(data, size);
        free(base);
      });
}

}  // namespace hmo::gpu
