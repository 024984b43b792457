#include "hmo/gpu/acquire_collective_memory.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hmo::gpu {
namespace {

// How many requests an error message lists before eliding the rest.
constexpr size_t kMaxListedRequests = 8;

std::string DescribeRequests(absl::Span<const CollectiveMemoryRequest> requests) {
  std::vector<std::string> parts;
  for (const CollectiveMemoryRequest& request : requests) {
    if (parts.size() == kMaxListedRequests) {
      parts.push_back(absl::StrCat("... (", requests.size(), " in all)"));
      break;
    }
    parts.push_back(request.ToString());
  }
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::string RankName(const CliqueKey& clique, int rank) {
  return absl::StrCat("rank ", rank, " (device ", clique.DeviceAt(rank), ")");
}

// A status as plain data, for passing between ranks: every rank then builds
// its own absl::Status instead of sharing one status payload across threads.
struct PortableStatus {
  absl::StatusCode code = absl::StatusCode::kOk;
  std::string message;

  static PortableStatus From(const absl::Status& status) {
    return {status.code(), std::string(status.message())};
  }
  bool ok() const { return code == absl::StatusCode::kOk; }
};

// What each rank brings to the first meeting: its sorted requests, or why
// they are invalid.
struct RankRequests {
  std::vector<CollectiveMemoryRequest> requests;
  PortableStatus status;
};

// What the lowest rank brings to the second meeting: the shared objects, or
// why the backend could not create them.
struct CreatedSet {
  std::shared_ptr<CollectiveMemorySet> set;
  PortableStatus status;
};

absl::Status WithContext(const absl::Status& status, const CliqueKey& clique) {
  return absl::Status(status.code(), absl::StrCat("acquiring collective memory of ",
                                                  clique.ToString(), ": ", status.message()));
}

}  // namespace

absl::StatusOr<std::vector<CollectiveMemoryRequest>> NormalizeCollectiveMemoryRequests(
    absl::Span<const CollectiveMemoryRequest> requests) {
  std::vector<CollectiveMemoryRequest> sorted(requests.begin(), requests.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const CollectiveMemoryRequest& a, const CollectiveMemoryRequest& b) {
                     return a.allocation_index < b.allocation_index;
                   });
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i].size == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("collective memory request ", sorted[i].ToString(), " is empty"));
    }
    if (i > 0 && sorted[i].allocation_index == sorted[i - 1].allocation_index) {
      return absl::InvalidArgumentError(
          absl::StrCat("allocation #", sorted[i].allocation_index, " is requested twice: ",
                       sorted[i - 1].ToString(), " and ", sorted[i].ToString()));
    }
  }
  return sorted;
}

absl::StatusOr<CollectiveMemory> AcquireCollectiveMemory(
    CollectiveMemoryBackend& backend, collectives::Rendezvous& rendezvous, const CliqueKey& clique,
    int rank, absl::Span<const CollectiveMemoryRequest> requests, absl::Time deadline) {
  const int num_ranks = clique.num_ranks();
  if (rank < 0 || rank >= num_ranks) {
    return absl::InvalidArgumentError(
        absl::StrCat("acquiring collective memory: rank ", rank, " is not in ", clique.ToString()));
  }
  const std::string key_prefix = absl::StrCat(clique.ToString(), "/collective-memory/");
  const collectives::RankNamer rank_namer = [&clique](int r) { return RankName(clique, r); };

  // 1. Agree on the requests. A rank with invalid requests still arrives, so
  //    that every rank reports the same error instead of timing out.
  RankRequests mine;
  if (absl::StatusOr<std::vector<CollectiveMemoryRequest>> normalized =
          NormalizeCollectiveMemoryRequests(requests);
      normalized.ok()) {
    mine.requests = *std::move(normalized);
  } else {
    mine.status = PortableStatus::From(normalized.status());
  }
  absl::StatusOr<std::vector<RankRequests>> gathered = rendezvous.AllGather<RankRequests>(
      key_prefix + "requests", num_ranks, rank, std::move(mine), deadline, rank_namer);
  if (!gathered.ok()) return WithContext(gathered.status(), clique);
  for (int r = 0; r < num_ranks; ++r) {
    const PortableStatus& theirs = (*gathered)[r].status;
    if (!theirs.ok()) {
      return WithContext(absl::Status(theirs.code, absl::StrCat(RankName(clique, r),
                                                                " made invalid requests: ",
                                                                theirs.message)),
                         clique);
    }
  }
  const std::vector<CollectiveMemoryRequest>& agreed = (*gathered)[0].requests;
  for (int r = 1; r < num_ranks; ++r) {
    if ((*gathered)[r].requests != agreed) {
      return WithContext(
          absl::InvalidArgumentError(absl::StrCat(
              "ranks disagree on the requests: ", RankName(clique, 0), " asks for ",
              DescribeRequests(agreed), " but ", RankName(clique, r), " asks for ",
              DescribeRequests((*gathered)[r].requests))),
          clique);
    }
  }

  CollectiveMemory memory;
  if (agreed.empty()) {
    absl::Status added = memory.AddClique(clique, rank, {}, nullptr);
    if (!added.ok()) return WithContext(added, clique);
    return memory;
  }

  // 2. The lowest rank creates the shared objects; the others wait for them.
  CreatedSet created;
  if (rank == 0) {
    absl::StatusOr<std::shared_ptr<CollectiveMemorySet>> set = backend.CreateShared(clique, agreed);
    if (set.ok()) {
      created.set = *std::move(set);
    } else {
      created.status = PortableStatus::From(set.status());
    }
  }
  absl::StatusOr<std::vector<CreatedSet>> sets = rendezvous.AllGather<CreatedSet>(
      key_prefix + "create", num_ranks, rank, std::move(created), deadline, rank_namer);
  if (!sets.ok()) return WithContext(sets.status(), clique);
  const CreatedSet& shared = (*sets)[0];
  if (!shared.status.ok()) {
    return WithContext(
        absl::Status(shared.status.code, absl::StrCat(backend.name(), " backend failed on ",
                                                      RankName(clique, 0), ": ",
                                                      shared.status.message)),
        clique);
  }
  if (shared.set == nullptr) {
    return WithContext(absl::InternalError(absl::StrCat(backend.name(),
                                                        " backend created no shared objects")),
                       clique);
  }

  // 3. Every rank maps; all succeed or all fail.
  absl::Status mapped;
  absl::StatusOr<std::vector<CollectiveAllocation>> views = backend.Map(*shared.set, clique, rank);
  if (views.ok()) {
    mapped = memory.AddClique(clique, rank, *std::move(views), shared.set);
  } else {
    mapped = views.status();
  }
  absl::StatusOr<std::vector<PortableStatus>> statuses = rendezvous.AllGather<PortableStatus>(
      key_prefix + "map", num_ranks, rank, PortableStatus::From(mapped), deadline, rank_namer);
  if (!statuses.ok()) return WithContext(statuses.status(), clique);
  for (int r = 0; r < num_ranks; ++r) {
    const PortableStatus& theirs = (*statuses)[r];
    if (!theirs.ok()) {
      return WithContext(absl::Status(theirs.code, absl::StrCat(backend.name(),
                                                                " backend failed to map for ",
                                                                RankName(clique, r), ": ",
                                                                theirs.message)),
                         clique);
    }
  }
  return memory;
}

}  // namespace hmo::gpu
