#ifndef HMO_GPU_COLLECTIVE_MEMORY_BACKEND_H_
#define HMO_GPU_COLLECTIVE_MEMORY_BACKEND_H_

// How collective memory is actually obtained. AcquireCollectiveMemory drives
// a backend in two steps: the lowest rank of the clique creates the shared
// objects once (CreateShared), then every rank maps them into its own view
// (Map). Backends: HostCollectiveMemoryBackend (per-rank host arenas, for
// tests) and the CUDA backend (device memory + peer access).

#include <cstddef>
#include <memory>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/gpu/clique_key.h"
#include "hmo/gpu/collective_allocation.h"

namespace hmo::gpu {

// The objects shared by all ranks of one acquisition, owning the memory of
// every rank; freed when the last rank's CollectiveMemory lets go of it.
// Each backend defines its own subclass.
class CollectiveMemorySet {
 public:
  virtual ~CollectiveMemorySet() = default;
};

class CollectiveMemoryBackend {
 public:
  virtual ~CollectiveMemoryBackend() = default;

  virtual absl::string_view name() const = 0;

  // Called once per acquisition, on the lowest rank's thread, with the
  // clique's agreed requests: sorted by allocation index, unique, sizes > 0.
  virtual absl::StatusOr<std::shared_ptr<CollectiveMemorySet>> CreateShared(
      const CliqueKey& clique, absl::Span<const CollectiveMemoryRequest> requests) = 0;

  // Called on every rank's thread (concurrently) with the set the lowest rank
  // created. Returns the rank's view of each request, in request order.
  // INVALID_ARGUMENT when `set` was made by another backend.
  virtual absl::StatusOr<std::vector<CollectiveAllocation>> Map(const CollectiveMemorySet& set,
                                                                const CliqueKey& clique,
                                                                int rank) = 0;

  // Writes `size` bytes at `offset` of a kMulticast allocation so that every
  // rank's copy receives them. INVALID_ARGUMENT for a non-multicast
  // allocation or a range past its end.
  virtual absl::Status MulticastWrite(const CollectiveAllocation& allocation, uint64_t offset,
                                      const void* data, size_t size) = 0;
};

}  // namespace hmo::gpu

#endif  // HMO_GPU_COLLECTIVE_MEMORY_BACKEND_H_
