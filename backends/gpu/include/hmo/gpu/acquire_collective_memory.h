#ifndef HMO_GPU_ACQUIRE_COLLECTIVE_MEMORY_H_
#define HMO_GPU_ACQUIRE_COLLECTIVE_MEMORY_H_

// Collective acquisition of a clique's collective memory. Every rank of the
// clique calls AcquireCollectiveMemory (each on its own thread) with the same
// requests, in any order. The ranks meet three times at `rendezvous`:
//   1. agree: each rank's requests, sorted by allocation index, must equal
//      rank 0's;
//   2. create: the lowest rank (rank 0) alone calls backend.CreateShared and
//      publishes the result (or its error) to all;
//   3. map: each rank calls backend.Map; nobody returns success unless every
//      rank mapped (so no rank uses memory a peer has not mapped).
// Every rank returns the same error when any step fails on any rank, and
// DEADLINE_EXCEEDED naming the missing ranks (and their devices) when a rank
// does not arrive by `deadline`.

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "hmo/gpu/clique_key.h"
#include "hmo/gpu/collective_allocation.h"
#include "hmo/gpu/collective_memory.h"
#include "hmo/gpu/collective_memory_backend.h"
#include "hmo/collectives/rendezvous.h"

namespace hmo::gpu {

// The deterministic form of a rank's requests: sorted by allocation index.
// INVALID_ARGUMENT for a size of 0 or an allocation index requested twice.
absl::StatusOr<std::vector<CollectiveMemoryRequest>> NormalizeCollectiveMemoryRequests(
    absl::Span<const CollectiveMemoryRequest> requests);

// Returns `rank`'s registry holding `clique`'s allocations (merge several
// cliques with CollectiveMemory::Merge). `rendezvous` and `backend` are
// shared by all ranks and must outlive the call; a clique of one needs no
// other thread. INVALID_ARGUMENT at once for a rank outside the clique.
absl::StatusOr<CollectiveMemory> AcquireCollectiveMemory(
    CollectiveMemoryBackend& backend, collectives::Rendezvous& rendezvous, const CliqueKey& clique,
    int rank, absl::Span<const CollectiveMemoryRequest> requests, absl::Time deadline);

}  // namespace hmo::gpu

#endif  // HMO_GPU_ACQUIRE_COLLECTIVE_MEMORY_H_
