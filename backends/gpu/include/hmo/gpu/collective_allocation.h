#ifndef HMO_GPU_COLLECTIVE_ALLOCATION_H_
#define HMO_GPU_COLLECTIVE_ALLOCATION_H_

// Vocabulary of collective memory: what a clique asks for (a request per
// buffer-assignment allocation) and what one rank gets back (its view of the
// allocation: its own copy, every peer's copy, the multicast address).

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

namespace hmo::gpu {

enum class CollectiveMemoryKind {
  // One copy per rank, at the same offset of every rank's symmetric heap;
  // every rank can address every peer's copy.
  kSymmetric,
  // Symmetric memory plus a multicast object bound to it: a store through the
  // multicast address reaches every rank's copy.
  kMulticast,
};

absl::string_view CollectiveMemoryKindName(CollectiveMemoryKind kind);

// One allocation a clique needs; every rank must make the same requests.
struct CollectiveMemoryRequest {
  int64_t allocation_index = 0;  // the buffer-assignment allocation it backs
  uint64_t size = 0;             // bytes, > 0
  CollectiveMemoryKind kind = CollectiveMemoryKind::kSymmetric;

  friend bool operator==(const CollectiveMemoryRequest& a, const CollectiveMemoryRequest& b) {
    return a.allocation_index == b.allocation_index && a.size == b.size && a.kind == b.kind;
  }
  // "#3: 1024 bytes symmetric"
  std::string ToString() const;
};

// One rank's view of one collective allocation. Addresses are device
// addresses for a device backend, host addresses for the host fake.
struct CollectiveAllocation {
  CollectiveMemoryRequest request;
  // Offset of this allocation in each rank's symmetric heap; the same on
  // every rank.
  uint64_t offset = 0;
  // This rank's copy: [local, local + request.size).
  void* local = nullptr;
  // peers[r]: rank r's copy as mapped into this rank's address space;
  // peers[own rank] == local.
  std::vector<void*> peers;
  // kMulticast only, and only where the backend has a multicast address
  // (null for the host fake, whose fan-out is an explicit backend call).
  void* multicast = nullptr;

  // Whether `address` lies in [local, local + size).
  bool Contains(const void* address) const;
};

}  // namespace hmo::gpu

#endif  // HMO_GPU_COLLECTIVE_ALLOCATION_H_
