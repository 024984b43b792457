#ifndef HMO_GPU_COLLECTIVE_MEMORY_H_
#define HMO_GPU_COLLECTIVE_MEMORY_H_

// One rank's registry of collective memory: for each clique the rank belongs
// to, the rank's view of each collective allocation, keyed by allocation
// index and findable by address. Produced by AcquireCollectiveMemory; keeps
// the backing memory alive for as long as it (or a copy) lives.
//
// Not synchronized: fill it on one thread, then read it from any number.

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/gpu/clique_key.h"
#include "hmo/gpu/collective_allocation.h"
#include "hmo/gpu/collective_memory_backend.h"

namespace hmo::gpu {

// An address resolved to the collective allocation that contains it.
struct CollectiveAddress {
  const CollectiveAllocation* allocation = nullptr;
  uint64_t offset = 0;  // from allocation->local
};

class CollectiveMemory {
 public:
  // Records `rank`'s view of the allocations of `clique`; `owner` is kept
  // alive with them. ALREADY_EXISTS when the clique is already recorded;
  // INVALID_ARGUMENT for a rank outside the clique, an allocation index given
  // twice, a size of 0, a peer list not of clique size (or not starting at
  // `local` for the own rank), or overlapping local ranges.
  absl::Status AddClique(const CliqueKey& clique, int rank,
                         std::vector<CollectiveAllocation> allocations,
                         std::shared_ptr<CollectiveMemorySet> owner);

  // Moves every clique of `other` in; ALREADY_EXISTS (and no change) when
  // both hold a clique.
  absl::Status Merge(CollectiveMemory other);

  bool HasClique(const CliqueKey& clique) const { return cliques_.contains(clique); }
  // Cliques in CliqueKey order.
  std::vector<CliqueKey> cliques() const;
  // This rank's rank in `clique`; NOT_FOUND for an unknown clique.
  absl::StatusOr<int> RankIn(const CliqueKey& clique) const;
  // The clique's allocations in allocation-index order (empty when unknown).
  std::vector<const CollectiveAllocation*> allocations(const CliqueKey& clique) const;

  // By allocation index. NOT_FOUND naming the clique (and the indices it
  // has) when there is no such clique or allocation.
  absl::StatusOr<const CollectiveAllocation*> Find(const CliqueKey& clique,
                                                   int64_t allocation_index) const;

  // The allocation whose local copy contains `address`, and the offset of
  // `address` from its base. NOT_FOUND naming the address and the clique's
  // allocation ranges when no registered allocation contains it.
  absl::StatusOr<CollectiveAddress> FindByAddress(const CliqueKey& clique,
                                                  const void* address) const;

  // The address in `peer_rank`'s copy that corresponds to local `address`
  // (same offset), as mapped into this rank. NOT_FOUND as FindByAddress;
  // INVALID_ARGUMENT for a peer rank outside the clique.
  absl::StatusOr<void*> PeerAddress(const CliqueKey& clique, const void* address,
                                    int peer_rank) const;

  // The multicast address corresponding to local `address`.
  // FAILED_PRECONDITION for a symmetric (non-multicast) allocation;
  // UNIMPLEMENTED when the backend exposes no multicast address (host fake:
  // use CollectiveMemoryBackend::MulticastWrite).
  absl::StatusOr<void*> MulticastAddress(const CliqueKey& clique, const void* address) const;

 private:
  struct CliqueMemory {
    int rank = 0;
    std::map<int64_t, CollectiveAllocation> by_index;
    std::map<uintptr_t, int64_t> index_by_base;  // local base -> allocation index
    std::shared_ptr<CollectiveMemorySet> owner;
  };

  absl::StatusOr<const CliqueMemory*> FindClique(const CliqueKey& clique) const;

  std::map<CliqueKey, CliqueMemory> cliques_;
};

}  // namespace hmo::gpu

#endif  // HMO_GPU_COLLECTIVE_MEMORY_H_
