#ifndef HMO_GPU_HOST_MEMORY_ALLOCATOR_H_
#define HMO_GPU_HOST_MEMORY_ALLOCATOR_H_

// Host memory allocation for the GPU backend, in the shape of PJRT's
// HostMemoryAllocator: `Allocate(size, options)` returns an owning handle whose
// release runs an optional unmap callback and then frees the memory.
//
// Concrete allocators: AlignedHostMemoryAllocator (plain pageable memory, no
// GPU needed) and PinnedHostMemoryAllocator (cudaHostAlloc). The choice is
// made at run time by CreateDefaultHostMemoryAllocator().

#include <cstddef>
#include <functional>
#include <optional>
#include "absl/strings/string_view.h"

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hmo::gpu {

// Alignment of host allocations when the caller asks for none in particular
// (the cache-line size; tsl's default host alignment).
inline constexpr size_t kDefaultHostMemoryAlignment = 64;

// Run on every allocation after it is obtained and before it is handed out,
// e.g. to register (pin) it with a device runtime. An error fails the
// allocation: the memory is freed and the error is returned from Allocate.
using HostMemoryMapFn = std::function<absl::Status(void* data, size_t size)>;

// Run when an allocation is released, before the memory is freed; undoes the
// map callback. It cannot fail the release: report problems by logging.
using HostMemoryUnmapFn = std::function<void(void* data, size_t size)>;

// Optional callbacks bound to an allocator; each may be empty.
struct HostMemoryCallbacks {
  HostMemoryMapFn map;
  HostMemoryUnmapFn unmap;
};

// Per-allocation options.
struct HostAllocationOptions {
  // A power of two; the returned address is a multiple of it.
  size_t alignment = kDefaultHostMemoryAlignment;
  // Preferred NUMA node. A hint only: allocators may ignore it (both
  // allocators in this library do).
  std::optional<int> numa_node;
};

// An owned host allocation: move-only; destroying or resetting it runs the
// allocator's unmap callback and frees the memory. An allocation does not
// depend on the allocator object that made it: it may outlive the allocator.
class OwnedHostMemory {
 public:
  // Called once with (data, size) to give the memory back.
  using Releaser = absl::AnyInvocable<void(void* data, size_t size)>;

  OwnedHostMemory() = default;
  OwnedHostMemory(void* data, size_t size, Releaser releaser);
  OwnedHostMemory(OwnedHostMemory&& other) noexcept;
  OwnedHostMemory& operator=(OwnedHostMemory&& other) noexcept;
  OwnedHostMemory(const OwnedHostMemory&) = delete;
  OwnedHostMemory& operator=(const OwnedHostMemory&) = delete;
  ~OwnedHostMemory();

  void* data() const { return data_; }
  size_t size() const { return size_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  explicit operator bool() const { return data_ != nullptr; }

  // Releases the memory now; the handle becomes empty.
  void Reset();

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  Releaser releaser_;
};

// Allocates host memory; thread-safe as long as its callbacks are.
//
// Allocate validates the request, obtains raw memory from the concrete
// allocator, then runs the map callback. Subclasses only implement
// AllocateRaw.
class HostMemoryAllocator {
 public:
  explicit HostMemoryAllocator(HostMemoryCallbacks callbacks = {});
  virtual ~HostMemoryAllocator() = default;
  HostMemoryAllocator(const HostMemoryAllocator&) = delete;
  HostMemoryAllocator& operator=(const HostMemoryAllocator&) = delete;

  // Returns `size` bytes aligned to `options.alignment`, contents
  // unspecified. INVALID_ARGUMENT for size 0 or an alignment that is not a
  // power of two; RESOURCE_EXHAUSTED (or the device runtime's error) when the
  // memory cannot be obtained; the map callback's error if it fails.
  absl::StatusOr<OwnedHostMemory> Allocate(size_t size,
                                           const HostAllocationOptions& options = {});

  // A short stable name ("aligned", "pinned") for logs and tests.
  virtual absl::string_view name() const = 0;

 protected:
  // Raw memory from the concrete allocator. `free` gives `base` back and must
  // not depend on the allocator object (allocations may outlive it).
  struct RawHostMemory {
    void* data = nullptr;  // aligned start handed to the user
    void* base = nullptr;  // what `free` is called with
    void (*free)(void* base) = nullptr;
  };

  // `size` > 0 and `alignment` is a power of two, at least alignof(void*).
  virtual absl::StatusOr<RawHostMemory> AllocateRaw(size_t size, size_t alignment,
                                                     std::optional<int> numa_node) = 0;

 private:
  HostMemoryCallbacks callbacks_;
};

}  // namespace hmo::gpu

#endif  // HMO_GPU_HOST_MEMORY_ALLOCATOR_H_
