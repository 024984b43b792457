#include "hmo/gpu/host_collective_memory_backend.h"

#include <cstddef>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "hmo/gpu/aligned_host_memory_allocator.h"
#include "hmo/gpu/symmetric_layout.h"

namespace hmo::gpu {
namespace {

class HostCollectiveMemorySet final : public CollectiveMemorySet {
 public:
  HostCollectiveMemorySet(CliqueKey clique, std::vector<CollectiveMemoryRequest> requests,
                          SymmetricLayout layout)
      : clique(std::move(clique)), requests(std::move(requests)), layout(std::move(layout)) {}

  const CliqueKey clique;
  const std::vector<CollectiveMemoryRequest> requests;
  const SymmetricLayout layout;
  std::vector<OwnedHostMemory> arenas;  // by rank; empty when the heap is empty
};

}  // namespace

absl::StatusOr<std::shared_ptr<CollectiveMemorySet>> HostCollectiveMemoryBackend::CreateShared(
    const CliqueKey& clique, absl::Span<const CollectiveMemoryRequest> requests) {
  absl::StatusOr<SymmetricLayout> layout = LayOutSymmetricHeap(requests, alignment_);
  if (!layout.ok()) return layout.status();
  if (layout->heap_size > std::numeric_limits<size_t>::max()) {
    return absl::ResourceExhaustedError("host symmetric heap does not fit the address space");
  }
  auto set = std::make_shared<HostCollectiveMemorySet>(
      clique, std::vector<CollectiveMemoryRequest>(requests.begin(), requests.end()),
      *std::move(layout));
  if (set->layout.heap_size > 0) {
    AlignedHostMemoryAllocator allocator;
    for (int rank = 0; rank < clique.num_ranks(); ++rank) {
      absl::StatusOr<OwnedHostMemory> arena =
          allocator.Allocate(set->layout.heap_size, {.alignment = alignment_, .numa_node = std::nullopt});
      if (!arena.ok()) {
        return absl::Status(arena.status().code(),
                            absl::StrCat("host symmetric heap of ", set->layout.heap_size,
                                         " bytes for rank ", rank, " of ", clique.ToString(),
                                         ": ", arena.status().message()));
      }
      std::memset(arena->data(), 0, arena->size());
      set->arenas.push_back(*std::move(arena));
    }
  }
  ++num_sets_created_;
  return set;
}

absl::StatusOr<std::vector<CollectiveAllocation>> HostCollectiveMemoryBackend::Map(
    const CollectiveMemorySet& set, const CliqueKey& clique, int rank) {
  const auto* host_set = dynamic_cast<const HostCollectiveMemorySet*>(&set);
  if (host_set == nullptr) {
    return absl::InvalidArgumentError("collective memory set was not made by the host backend");
  }
  if (host_set->clique != clique) {
    return absl::InvalidArgumentError(absl::StrCat("collective memory set of ",
                                                   host_set->clique.ToString(),
                                                   " cannot be mapped for ", clique.ToString()));
  }
  if (rank < 0 || rank >= clique.num_ranks()) {
    return absl::InvalidArgumentError(absl::StrCat("rank ", rank, " is not in ",
                                                   clique.ToString()));
  }
  std::vector<CollectiveAllocation> views;
  views.reserve(host_set->requests.size());
  for (size_t i = 0; i < host_set->requests.size(); ++i) {
    CollectiveAllocation view;
    view.request = host_set->requests[i];
    view.offset = host_set->layout.offsets[i];
    for (const OwnedHostMemory& arena : host_set->arenas) {
      view.peers.push_back(arena.as<std::byte>() + view.offset);
    }
    view.local = view.peers[rank];
    views.push_back(std::move(view));
  }
  return views;
}

absl::Status HostCollectiveMemoryBackend::MulticastWrite(const CollectiveAllocation& allocation,
                                                         uint64_t offset, const void* data,
                                                         size_t size) {
  if (allocation.request.kind != CollectiveMemoryKind::kMulticast) {
    return absl::InvalidArgumentError(absl::StrCat(
        "multicast write to ", allocation.request.ToString(), ", which is not multicast memory"));
  }
  if (offset > allocation.request.size || size > allocation.request.size - offset) {
    return absl::InvalidArgumentError(absl::StrCat("multicast write of ", size, " bytes at offset ",
                                                   offset, " runs past the end of ",
                                                   allocation.request.ToString()));
  }
  for (void* peer : allocation.peers) {
    std::memcpy(static_cast<std::byte*>(peer) + offset, data, size);
  }
  return absl::OkStatus();
}

}  // namespace hmo::gpu
