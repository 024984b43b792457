#ifndef HMO_GPU_HOST_COLLECTIVE_MEMORY_BACKEND_H_
#define HMO_GPU_HOST_COLLECTIVE_MEMORY_BACKEND_H_

// A collective-memory backend made of host memory, for tests and for
// running the collective-memory logic without a GPU. Each rank gets its own
// zero-filled arena laid out by LayOutSymmetricHeap, so an allocation has the
// same offset in every rank's arena; peers are the other ranks' arenas (one
// process, one address space). Multicast memory has no multicast address:
// MulticastWrite copies the bytes into every rank's arena (write fan-out).

#include <atomic>
#include <cstdint>

#include "hmo/gpu/collective_memory_backend.h"

namespace hmo::gpu {

class HostCollectiveMemoryBackend final : public CollectiveMemoryBackend {
 public:
  static constexpr uint64_t kDefaultAlignment = 256;

  // `alignment`: of each allocation's offset and of each arena; a power of
  // two (else CreateShared fails with INVALID_ARGUMENT).
  explicit HostCollectiveMemoryBackend(uint64_t alignment = kDefaultAlignment)
      : alignment_(alignment) {}

  absl::string_view name() const override { return "host"; }

  absl::StatusOr<std::shared_ptr<CollectiveMemorySet>> CreateShared(
      const CliqueKey& clique, absl::Span<const CollectiveMemoryRequest> requests) override;
  absl::StatusOr<std::vector<CollectiveAllocation>> Map(const CollectiveMemorySet& set,
                                                        const CliqueKey& clique,
                                                        int rank) override;
  absl::Status MulticastWrite(const CollectiveAllocation& allocation, uint64_t offset,
                              const void* data, size_t size) override;

  // How many times CreateShared succeeded (tests check it is once per
  // acquisition).
  int num_sets_created() const { return num_sets_created_.load(); }

 private:
  const uint64_t alignment_;
  std::atomic<int> num_sets_created_{0};
};

}  // namespace hmo::gpu

#endif  // HMO_GPU_HOST_COLLECTIVE_MEMORY_BACKEND_H_
