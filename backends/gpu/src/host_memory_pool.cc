#include "hmo/gpu/host_memory_pool.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace hmo::gpu {

HostMemoryPool::Handle& HostMemoryPool::Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = std::exchange(other.pool_, nullptr);
    index_ = std::exchange(other.index_, -1);
  }
  return *this;
}

void* HostMemoryPool::Handle::data() const {
  if (pool_ == nullptr) return nullptr;
  return static_cast<std::byte*>(pool_->memory_.data()) +
         static_cast<size_t>(index_) * pool_->element_size_;
}

HostElementType HostMemoryPool::Handle::element_type() const {
  return pool_ == nullptr ? HostElementType::kPred : pool_->type_;
}

absl::Status HostMemoryPool::Handle::CheckType(HostElementType requested) const {
  if (pool_ == nullptr) {
    return absl::FailedPreconditionError("host memory pool handle is empty (moved from or released)");
  }
  if (requested != pool_->type_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host memory pool holds ", HostElementTypeName(pool_->type_), " elements, not ",
        HostElementTypeName(requested)));
  }
  return absl::OkStatus();
}

void HostMemoryPool::Handle::Release() {
  if (pool_ == nullptr) return;
  std::exchange(pool_, nullptr)->Return(std::exchange(index_, -1));
}

absl::StatusOr<std::unique_ptr<HostMemoryPool>> HostMemoryPool::Create(
    HostMemoryAllocator& allocator, HostElementType type, int num_elements) {
  if (num_elements <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("host memory pool needs at least one element, got ", num_elements));
  }
  const size_t element_size = ByteWidth(type);
  absl::StatusOr<OwnedHostMemory> memory =
      allocator.Allocate(static_cast<size_t>(num_elements) * element_size);
  if (!memory.ok()) {
    return absl::Status(memory.status().code(),
                        absl::StrCat("allocating a host memory pool of ", num_elements, " ",
                                     HostElementTypeName(type),
                                     " elements: ", memory.status().message()));
  }
  return std::unique_ptr<HostMemoryPool>(
      new HostMemoryPool(*std::move(memory), type, num_elements));
}

HostMemoryPool::HostMemoryPool(OwnedHostMemory memory, HostElementType type, int num_elements)
    : memory_(std::move(memory)),
      type_(type),
      element_size_(ByteWidth(type)),
      capacity_(num_elements),
      free_ring_(num_elements),
      num_free_(num_elements) {
  for (int i = 0; i < num_elements; ++i) free_ring_[i] = i;
}

HostMemoryPool::~HostMemoryPool() {
  std::lock_guard<std::mutex> lock(mu_);
  if (num_free_ != capacity_) {
    // A live handle would write into freed memory: fail loudly, like a CHECK.
    std::fprintf(stderr,
                 "hmo::gpu::HostMemoryPool destroyed with %d of %d %s elements still acquired\n",
                 capacity_ - num_free_, capacity_, std::string(HostElementTypeName(type_)).c_str());
    std::abort();
  }
}

absl::StatusOr<HostMemoryPool::Handle> HostMemoryPool::Acquire() {
  int index;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (num_free_ == 0) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "All ", capacity_, " elements of the ", HostElementTypeName(type_),
          " host memory pool are in use: more than ", capacity_,
          " concurrent acquisitions; release a handle first or use a larger pool"));
    }
    index = free_ring_[head_];
    head_ = head_ + 1 == capacity_ ? 0 : head_ + 1;
    --num_free_;
  }
  return Handle(this, index);
}

int HostMemoryPool::available() const {
  std::lock_guard<std::mutex> lock(mu_);
  return num_free_;
}

void HostMemoryPool::Return(int index) {
  std::lock_guard<std::mutex> lock(mu_);
  int tail = head_ + num_free_;
  if (tail >= capacity_) tail -= capacity_;
  free_ring_[tail] = index;
  ++num_free_;
}

}  // namespace hmo::gpu
