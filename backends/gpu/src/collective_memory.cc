#include "hmo/gpu/collective_memory.h"

#include <cstddef>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace hmo::gpu {
namespace {

// How many allocations an error message lists before eliding the rest.
constexpr size_t kMaxListedAllocations = 8;

uintptr_t AddressOf(const void* p) { return reinterpret_cast<uintptr_t>(p); }

std::string DescribeRange(const CollectiveAllocation& allocation) {
  return absl::StrFormat("#%d [%#x, %#x)", allocation.request.allocation_index,
                         AddressOf(allocation.local),
                         AddressOf(allocation.local) + allocation.request.size);
}

}  // namespace

absl::Status CollectiveMemory::AddClique(const CliqueKey& clique, int rank,
                                         std::vector<CollectiveAllocation> allocations,
                                         std::shared_ptr<CollectiveMemorySet> owner) {
  if (cliques_.contains(clique)) {
    return absl::AlreadyExistsError(
        absl::StrCat("collective memory of ", clique.ToString(), " is already registered"));
  }
  if (rank < 0 || rank >= clique.num_ranks()) {
    return absl::InvalidArgumentError(absl::StrCat("rank ", rank, " is not in ",
                                                   clique.ToString()));
  }
  CliqueMemory memory;
  memory.rank = rank;
  memory.owner = std::move(owner);
  for (CollectiveAllocation& allocation : allocations) {
    const int64_t index = allocation.request.allocation_index;
    if (allocation.request.size == 0 || allocation.local == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "collective allocation ", allocation.request.ToString(), " of ", clique.ToString(),
          " is empty"));
    }
    if (allocation.peers.size() != static_cast<size_t>(clique.num_ranks()) ||
        allocation.peers[rank] != allocation.local) {
      return absl::InvalidArgumentError(absl::StrCat(
          "collective allocation ", allocation.request.ToString(), " of ", clique.ToString(),
          " has ", allocation.peers.size(), " peer addresses for ", clique.num_ranks(),
          " ranks, or its own entry is not its local address"));
    }
    if (memory.by_index.contains(index)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "collective allocation #", index, " of ", clique.ToString(), " is given twice"));
    }
    // Local ranges must not overlap, or address lookups would be ambiguous.
    const uintptr_t base = AddressOf(allocation.local);
    auto next = memory.index_by_base.lower_bound(base);
    if (next != memory.index_by_base.end() && next->first < base + allocation.request.size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "collective allocation ", DescribeRange(allocation), " of ", clique.ToString(),
          " overlaps ", DescribeRange(memory.by_index.at(next->second))));
    }
    if (next != memory.index_by_base.begin()) {
      const CollectiveAllocation& previous = memory.by_index.at(std::prev(next)->second);
      if (previous.Contains(allocation.local)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "collective allocation ", DescribeRange(allocation), " of ", clique.ToString(),
            " overlaps ", DescribeRange(previous)));
      }
    }
    memory.index_by_base.emplace(base, index);
    memory.by_index.emplace(index, std::move(allocation));
  }
  cliques_.emplace(clique, std::move(memory));
  return absl::OkStatus();
}

absl::Status CollectiveMemory::Merge(CollectiveMemory other) {
  for (const auto& [clique, memory] : other.cliques_) {
    if (cliques_.contains(clique)) {
      return absl::AlreadyExistsError(
          absl::StrCat("collective memory of ", clique.ToString(), " is already registered"));
    }
  }
  cliques_.merge(other.cliques_);
  return absl::OkStatus();
}

std::vector<CliqueKey> CollectiveMemory::cliques() const {
  std::vector<CliqueKey> keys;
  keys.reserve(cliques_.size());
  for (const auto& [clique, memory] : cliques_) keys.push_back(clique);
  return keys;
}

absl::StatusOr<const CollectiveMemory::CliqueMemory*> CollectiveMemory::FindClique(
    const CliqueKey& clique) const {
  auto it = cliques_.find(clique);
  if (it == cliques_.end()) {
    return absl::NotFoundError(
        absl::StrCat("no collective memory is registered for ", clique.ToString()));
  }
  return &it->second;
}

absl::StatusOr<int> CollectiveMemory::RankIn(const CliqueKey& clique) const {
  absl::StatusOr<const CliqueMemory*> memory = FindClique(clique);
  if (!memory.ok()) return memory.status();
  return (*memory)->rank;
}

std::vector<const CollectiveAllocation*> CollectiveMemory::allocations(
    const CliqueKey& clique) const {
  std::vector<const CollectiveAllocation*> result;
  auto it = cliques_.find(clique);
  if (it == cliques_.end()) return result;
  for (const auto& [index, allocation] : it->second.by_index) result.push_back(&allocation);
  return result;
}

absl::StatusOr<const CollectiveAllocation*> CollectiveMemory::Find(
    const CliqueKey& clique, int64_t allocation_index) const {
  absl::StatusOr<const CliqueMemory*> memory = FindClique(clique);
  if (!memory.ok()) return memory.status();
  auto it = (*memory)->by_index.find(allocation_index);
  if (it == (*memory)->by_index.end()) {
    std::vector<int64_t> known;
    for (const auto& [index, allocation] : (*memory)->by_index) known.push_back(index);
    return absl::NotFoundError(absl::StrCat("allocation #", allocation_index,
                                            " is not collective memory of ", clique.ToString(),
                                            " (registered: [", absl::StrJoin(known, ","), "])"));
  }
  return &it->second;
}

absl::StatusOr<CollectiveAddress> CollectiveMemory::FindByAddress(const CliqueKey& clique,
                                                                  const void* address) const {
  absl::StatusOr<const CliqueMemory*> found = FindClique(clique);
  if (!found.ok()) return found.status();
  const CliqueMemory& memory = **found;
  auto next = memory.index_by_base.upper_bound(AddressOf(address));
  if (next != memory.index_by_base.begin()) {
    const CollectiveAllocation& candidate = memory.by_index.at(std::prev(next)->second);
    if (candidate.Contains(address)) {
      return CollectiveAddress{&candidate, AddressOf(address) - AddressOf(candidate.local)};
    }
  }
  std::vector<std::string> ranges;
  for (const auto& [base, index] : memory.index_by_base) {
    if (ranges.size() == kMaxListedAllocations) {
      ranges.push_back("...");
      break;
    }
    ranges.push_back(DescribeRange(memory.by_index.at(index)));
  }
  return absl::NotFoundError(absl::StrFormat(
      "address %#x is not inside any collective allocation of %s on rank %d (allocations: %s)",
      AddressOf(address), clique.ToString(), memory.rank,
      ranges.empty() ? std::string("none") : absl::StrJoin(ranges, ", ")));
}

absl::StatusOr<void*> CollectiveMemory::PeerAddress(const CliqueKey& clique,
                                                    const void* address, int peer_rank) const {
  if (peer_rank < 0 || peer_rank >= clique.num_ranks()) {
    return absl::InvalidArgumentError(
        absl::StrCat("peer rank ", peer_rank, " is not in ", clique.ToString()));
  }
  absl::StatusOr<CollectiveAddress> found = FindByAddress(clique, address);
  if (!found.ok()) return found.status();
  return static_cast<std::byte*>(found->allocation->peers[peer_rank]) + found->offset;
}

absl::StatusOr<void*> CollectiveMemory::MulticastAddress(const CliqueKey& clique,
                                                         const void* address) const {
  absl::StatusOr<CollectiveAddress> found = FindByAddress(clique, address);
  if (!found.ok()) return found.status();
  const CollectiveAllocation& allocation = *found->allocation;
  if (allocation.request.kind != CollectiveMemoryKind::kMulticast) {
    return absl::FailedPreconditionError(absl::StrCat(
        "collective allocation ", allocation.request.ToString(), " of ", clique.ToString(),
        " has no multicast address: it is not multicast memory"));
  }
  if (allocation.multicast == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "collective allocation ", allocation.request.ToString(), " of ", clique.ToString(),
        " has no multicast address on this backend; write through "
        "CollectiveMemoryBackend::MulticastWrite"));
  }
  return static_cast<std::byte*>(allocation.multicast) + found->offset;
}

}  // namespace hmo::gpu
