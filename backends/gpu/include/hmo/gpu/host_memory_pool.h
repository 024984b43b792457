#ifndef HMO_GPU_HOST_MEMORY_POOL_H_
#define HMO_GPU_HOST_MEMORY_POOL_H_

// A fixed pool of fixed-size host elements (by default 128 scalars of one
// element type), allocated once from a HostMemoryAllocator, typically pinned
// memory that device copies can target asynchronously (e.g. a scalar read
// back from the device to decide a loop condition).
//
// Slots are handed out first-in first-out: a released slot is reused only
// after every slot that was free before it. Acquiring never allocates; when
// all slots are out, Acquire fails with RESOURCE_EXHAUSTED instead of waiting.

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/gpu/host_element_type.h"
#include "hmo/gpu/host_memory_allocator.h"

namespace hmo::gpu {

class HostMemoryPool {
 public:
  static constexpr int kDefaultNumElements = 128;

  // One acquired slot. Move-only; destroying (or Release()-ing) a valid
  // handle gives the slot back to the pool, which must still exist.
  class Handle {
   public:
    Handle() = default;
    Handle(Handle&& other) noexcept
        : pool_(std::exchange(other.pool_, nullptr)), index_(std::exchange(other.index_, -1)) {}
    Handle& operator=(Handle&& other) noexcept;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { Release(); }

    // False for a default-constructed, moved-from or released handle.
    bool valid() const { return pool_ != nullptr; }
    // The slot's position in the pool, 0 <= index < capacity.
    int index() const { return index_; }
    // The slot's untyped storage: ByteWidth(element_type()) bytes; null for
    // an invalid handle.
    void* data() const;
    // The pool's element type (kPred for an invalid handle).
    HostElementType element_type() const;

    // The slot as a T; INVALID_ARGUMENT naming both types when T is not the
    // pool's element type, FAILED_PRECONDITION on an invalid handle.
    template <typename T>
    absl::StatusOr<T*> get() const {
      absl::Status status = CheckType(HostElementTypeOf<T>::value);
      if (!status.ok()) return status;
      return static_cast<T*>(data());
    }

    // Returns the slot to the pool now; no-op on an invalid handle.
    void Release();

   private:
    friend class HostMemoryPool;
    Handle(HostMemoryPool* pool, int index) : pool_(pool), index_(index) {}
    absl::Status CheckType(HostElementType requested) const;

    HostMemoryPool* pool_ = nullptr;
    int index_ = -1;
  };

  // Allocates `num_elements` (> 0) elements of `type` contiguously from
  // `allocator` (which need not outlive the pool). Fails with the allocator's
  // error or INVALID_ARGUMENT for num_elements <= 0.
  static absl::StatusOr<std::unique_ptr<HostMemoryPool>> Create(
      HostMemoryAllocator& allocator, HostElementType type,
      int num_elements = kDefaultNumElements);

  // Every handle must have been released before the pool is destroyed
  // (checked: outstanding handles abort the process).
  ~HostMemoryPool();
  HostMemoryPool(const HostMemoryPool&) = delete;
  HostMemoryPool& operator=(const HostMemoryPool&) = delete;

  // The oldest free slot; RESOURCE_EXHAUSTED naming the capacity when every
  // slot is held. Thread-safe.
  absl::StatusOr<Handle> Acquire();

  HostElementType element_type() const { return type_; }
  size_t element_size() const { return element_size_; }
  int capacity() const { return capacity_; }
  // Slots not currently held (a snapshot when other threads are active).
  int available() const;

 private:
  HostMemoryPool(OwnedHostMemory memory, HostElementType type, int num_elements);
  void Return(int index);

  const OwnedHostMemory memory_;
  const HostElementType type_;
  const size_t element_size_;
  const int capacity_;

  // A std::mutex (not absl::Mutex) so ThreadSanitizer sees the
  // synchronization even against an uninstrumented absl.
  mutable std::mutex mu_;
  // Guarded by mu_: the FIFO ring of free slot indices,
  // free_ring_[(head_ + i) % capacity_] for i < num_free_, oldest first.
  std::vector<int> free_ring_;
  int head_ = 0;
  int num_free_ = 0;
};

}  // namespace hmo::gpu

#endif  // HMO_GPU_HOST_MEMORY_POOL_H_
