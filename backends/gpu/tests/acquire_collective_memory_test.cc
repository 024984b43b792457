// Collective acquisition with every rank on its own thread, over the host
// fake backend.

#include "hmo/gpu/acquire_collective_memory.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/host_collective_memory_backend.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

absl::Time Soon() { return absl::Now() + absl::Seconds(30); }

// Runs `acquire(rank)` for every rank in `ranks`, each on its own thread.
std::vector<absl::StatusOr<CollectiveMemory>> RunRanks(
    int num_ranks, const std::function<absl::StatusOr<CollectiveMemory>(int)>& acquire,
    const std::vector<int>& absent = {}) {
  std::vector<absl::StatusOr<CollectiveMemory>> results(
      num_ranks, absl::UnknownError("rank did not run"));
  std::vector<std::thread> threads;
  for (int rank = 0; rank < num_ranks; ++rank) {
    if (std::find(absent.begin(), absent.end(), rank) != absent.end()) continue;
    threads.emplace_back([&, rank] { results[rank] = acquire(rank); });
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}

std::vector<CollectiveMemoryRequest> ThreeRequests() {
  return {{.allocation_index = 4, .size = 100},
          {.allocation_index = 1, .size = 1000},
          {.allocation_index = 9, .size = 8}};
}

// Delegates to the host backend, recording which thread created the shared
// objects and whether they are still alive.
class RecordingBackend final : public CollectiveMemoryBackend {
 public:
  absl::string_view name() const override { return "recording"; }
  absl::StatusOr<std::shared_ptr<CollectiveMemorySet>> CreateShared(
      const CliqueKey& clique, absl::Span<const CollectiveMemoryRequest> requests) override {
    absl::MutexLock lock(&mu);
    creators.push_back(std::this_thread::get_id());
    seen_requests.assign(requests.begin(), requests.end());
    if (!create_error.ok()) return create_error;
    absl::StatusOr<std::shared_ptr<CollectiveMemorySet>> set = host.CreateShared(clique, requests);
    if (set.ok()) last_set = *set;
    return set;
  }
  absl::StatusOr<std::vector<CollectiveAllocation>> Map(const CollectiveMemorySet& set,
                                                        const CliqueKey& clique,
                                                        int rank) override {
    if (rank == failing_map_rank) return absl::InternalError("mapping broke");
    return host.Map(set, clique, rank);
  }
  absl::Status MulticastWrite(const CollectiveAllocation& allocation, uint64_t offset,
                              const void* data, size_t size) override {
    return host.MulticastWrite(allocation, offset, data, size);
  }

  HostCollectiveMemoryBackend host;
  absl::Mutex mu;
  std::vector<std::thread::id> creators;
  std::vector<CollectiveMemoryRequest> seen_requests;
  std::weak_ptr<CollectiveMemorySet> last_set;
  absl::Status create_error;
  int failing_map_rank = -1;
};

TEST(AcquireCollectiveMemoryTest, SymmetricOffsetsAgreeAndPeersSeeEachOthersWrites) {
  constexpr int kRanks = 4;
  CliqueKey clique = *CliqueKey::Create({13, 10, 12, 11});
  HostCollectiveMemoryBackend backend;
  collectives::Rendezvous rendezvous;
  auto results = RunRanks(kRanks, [&](int rank) {
    std::vector<CollectiveMemoryRequest> requests = ThreeRequests();
    std::rotate(requests.begin(), requests.begin() + rank % 3, requests.end());  // any order
    return AcquireCollectiveMemory(backend, rendezvous, clique, rank, requests, Soon());
  });
  for (int rank = 0; rank < kRanks; ++rank) {
    ASSERT_TRUE(results[rank].ok()) << "rank " << rank << ": " << results[rank].status();
    EXPECT_EQ(results[rank]->RankIn(clique).value(), rank);
  }
  EXPECT_EQ(backend.num_sets_created(), 1);

  for (int64_t index : {1, 4, 9}) {
    const CollectiveAllocation* at0 = results[0]->Find(clique, index).value();
    for (int rank = 0; rank < kRanks; ++rank) {
      const CollectiveAllocation* mine = results[rank]->Find(clique, index).value();
      EXPECT_EQ(mine->offset, at0->offset) << "allocation " << index;
      EXPECT_EQ(mine->peers, at0->peers);
      EXPECT_EQ(mine->local, mine->peers[rank]);
    }
  }
  // Deterministic layout: sorted by allocation index.
  EXPECT_EQ(results[0]->Find(clique, 1).value()->offset, 0u);
  EXPECT_LT(results[0]->Find(clique, 1).value()->offset, results[0]->Find(clique, 4).value()->offset);
  EXPECT_LT(results[0]->Find(clique, 4).value()->offset, results[0]->Find(clique, 9).value()->offset);

  // Rank 0 writes into rank 2's copy of #4 through its peer address; rank 2
  // reads it locally.
  const CollectiveAllocation* at2 = results[2]->Find(clique, 4).value();
  void* peer = results[0]->PeerAddress(clique, static_cast<std::byte*>(
                                                   results[0]->Find(clique, 4).value()->local) + 5,
                                       2).value();
  std::memcpy(peer, "hello", 5);
  EXPECT_EQ(std::memcmp(static_cast<std::byte*>(at2->local) + 5, "hello", 5), 0);
  // Rank 3's address lookup resolves its own local address.
  CollectiveAddress found =
      results[3]->FindByAddress(clique, static_cast<std::byte*>(
                                            results[3]->Find(clique, 9).value()->local) + 7).value();
  EXPECT_EQ(found.allocation->request.allocation_index, 9);
  EXPECT_EQ(found.offset, 7u);
}

TEST(AcquireCollectiveMemoryTest, LowestRankCreatesTheSharedObjectsOnce) {
  constexpr int kRanks = 3;
  CliqueKey clique = *CliqueKey::Create({5, 6, 7});
  RecordingBackend backend;
  collectives::Rendezvous rendezvous;
  std::vector<std::thread::id> thread_of_rank(kRanks);
  auto results = RunRanks(kRanks, [&](int rank) {
    thread_of_rank[rank] = std::this_thread::get_id();
    return AcquireCollectiveMemory(backend, rendezvous, clique, rank, ThreeRequests(), Soon());
  });
  for (const auto& result : results) ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(backend.creators.size(), 1u);
  EXPECT_EQ(backend.creators[0], thread_of_rank[0]);
  std::vector<int64_t> order;
  for (const auto& request : backend.seen_requests) order.push_back(request.allocation_index);
  EXPECT_THAT(order, ::testing::ElementsAre(1, 4, 9));
}

TEST(AcquireCollectiveMemoryTest, MemoryLivesUntilTheLastRankLetsGo) {
  CliqueKey clique = *CliqueKey::Create({0, 1});
  RecordingBackend backend;
  collectives::Rendezvous rendezvous;
  auto results = RunRanks(2, [&](int rank) {
    return AcquireCollectiveMemory(backend, rendezvous, clique, rank, ThreeRequests(), Soon());
  });
  ASSERT_TRUE(results[0].ok() && results[1].ok());
  results[0] = absl::CancelledError("dropped");
  EXPECT_FALSE(backend.last_set.expired());
  results[1] = absl::CancelledError("dropped");
  EXPECT_TRUE(backend.last_set.expired());
}

TEST(AcquireCollectiveMemoryTest, MulticastWritesFanOutToEveryRank) {
  constexpr int kRanks = 3;
  CliqueKey clique = *CliqueKey::Create({0, 1, 2});
  HostCollectiveMemoryBackend backend;
  collectives::Rendezvous rendezvous;
  std::vector<CollectiveMemoryRequest> requests = {
      {.allocation_index = 2, .size = 64, .kind = CollectiveMemoryKind::kMulticast},
      {.allocation_index = 3, .size = 64}};
  auto results = RunRanks(kRanks, [&](int rank) {
    return AcquireCollectiveMemory(backend, rendezvous, clique, rank, requests, Soon());
  });
  for (const auto& result : results) ASSERT_TRUE(result.ok()) << result.status();

  const int32_t value = 0x5eed;
  ASSERT_TRUE(backend.MulticastWrite(*results[1]->Find(clique, 2).value(), 12, &value,
                                     sizeof(value)).ok());
  for (int rank = 0; rank < kRanks; ++rank) {
    int32_t seen = 0;
    std::memcpy(&seen, static_cast<std::byte*>(results[rank]->Find(clique, 2).value()->local) + 12,
                sizeof(seen));
    EXPECT_EQ(seen, value) << "rank " << rank;
  }
  EXPECT_EQ(backend.MulticastWrite(*results[0]->Find(clique, 3).value(), 0, &value, 4).code(),
            absl::StatusCode::kInvalidArgument);  // symmetric, not multicast
  EXPECT_EQ(backend.MulticastWrite(*results[0]->Find(clique, 2).value(), 62, &value, 4).code(),
            absl::StatusCode::kInvalidArgument);  // past the end
  EXPECT_EQ(results[0]->MulticastAddress(clique, results[0]->Find(clique, 2).value()->local)
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
}

TEST(AcquireCollectiveMemoryTest, MissingRankIsADeadlineErrorNamingIt) {
  constexpr int kRanks = 3;
  CliqueKey clique = *CliqueKey::Create({10, 11, 12});
  HostCollectiveMemoryBackend backend;
  collectives::Rendezvous rendezvous;
  const absl::Time deadline = absl::Now() + absl::Milliseconds(300);
  auto results = RunRanks(
      kRanks,
      [&](int rank) {
        return AcquireCollectiveMemory(backend, rendezvous, clique, rank, ThreeRequests(), deadline);
      },
      /*absent=*/{1});
  for (int rank : {0, 2}) {
    EXPECT_EQ(results[rank].status().code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_THAT(results[rank].status().message(),
                HasSubstr("acquiring collective memory of clique[10,11,12]/collective:0"));
    EXPECT_THAT(results[rank].status().message(), HasSubstr("missing: [rank 1 (device 11)]"));
  }
  EXPECT_EQ(backend.num_sets_created(), 0);
}

TEST(AcquireCollectiveMemoryTest, CliqueOfOneNeedsNoOtherThread) {
  CliqueKey clique = *CliqueKey::Create({3});
  HostCollectiveMemoryBackend backend;
  collectives::Rendezvous rendezvous;
  absl::StatusOr<CollectiveMemory> memory =
      AcquireCollectiveMemory(backend, rendezvous, clique, 0, ThreeRequests(), Soon());
  ASSERT_TRUE(memory.ok()) << memory.status();
  const CollectiveAllocation* allocation = memory->Find(clique, 1).value();
  EXPECT_EQ(allocation->peers.size(), 1u);
  EXPECT_EQ(allocation->peers[0], allocation->local);
  std::memset(allocation->local, 0xff, allocation->request.size);
}

TEST(AcquireCollectiveMemoryTest, DisagreeingRanksAllFail) {
  CliqueKey clique = *CliqueKey::Create({0, 1, 2});
  HostCollectiveMemoryBackend backend;
  collectives::Rendezvous rendezvous;
  auto results = RunRanks(3, [&](int rank) {
    std::vector<CollectiveMemoryRequest> requests = ThreeRequests();
    if (rank == 2) requests[0].size = 101;
    return AcquireCollectiveMemory(backend, rendezvous, clique, rank, requests, Soon());
  });
  for (const auto& result : results) {
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(result.status().message(), HasSubstr("ranks disagree on the requests"));
    EXPECT_THAT(result.status().message(), HasSubstr("rank 2 (device 2) asks for [#1: 1000 bytes symmetric, #4: 101 bytes"));
  }
  EXPECT_EQ(backend.num_sets_created(), 0);
}

TEST(AcquireCollectiveMemoryTest, InvalidRequestsOnOneRankFailEveryRank) {
  CliqueKey clique = *CliqueKey::Create({0, 1, 2});
  HostCollectiveMemoryBackend backend;
  collectives::Rendezvous rendezvous;
  auto results = RunRanks(3, [&](int rank) {
    std::vector<CollectiveMemoryRequest> requests = ThreeRequests();
    if (rank == 1) requests.push_back({.allocation_index = 4, .size = 100});
    return AcquireCollectiveMemory(backend, rendezvous, clique, rank, requests, Soon());
  });
  for (const auto& result : results) {
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(result.status().message(),
                HasSubstr("rank 1 (device 1) made invalid requests: allocation #4 is requested twice"));
  }
}

TEST(AcquireCollectiveMemoryTest, BackendFailuresReachEveryRank) {
  CliqueKey clique = *CliqueKey::Create({0, 1});
  RecordingBackend backend;
  backend.create_error = absl::ResourceExhaustedError("no symmetric memory left");
  collectives::Rendezvous rendezvous;
  auto results = RunRanks(2, [&](int rank) {
    return AcquireCollectiveMemory(backend, rendezvous, clique, rank, ThreeRequests(), Soon());
  });
  for (const auto& result : results) {
    EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(result.status().message(),
                HasSubstr("recording backend failed on rank 0 (device 0): no symmetric memory left"));
  }

  backend.create_error = absl::OkStatus();
  backend.failing_map_rank = 1;
  results = RunRanks(2, [&](int rank) {
    return AcquireCollectiveMemory(backend, rendezvous, clique, rank, ThreeRequests(), Soon());
  });
  for (const auto& result : results) {
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
    EXPECT_THAT(result.status().message(), HasSubstr("failed to map for rank 1 (device 1)"));
  }
  EXPECT_TRUE(backend.last_set.expired());  // nobody kept the half-mapped memory
}

TEST(AcquireCollectiveMemoryTest, RepeatedAcquisitionsAndSeveralCliquesMerge) {
  CliqueKey collectives = *CliqueKey::Create({0, 1});
  CliqueKey p2p = *CliqueKey::Create({0, 1}, CollectiveStreamKind::kP2P);
  HostCollectiveMemoryBackend backend;
  collectives::Rendezvous rendezvous;
  auto results = RunRanks(2, [&](int rank) -> absl::StatusOr<CollectiveMemory> {
    // Every rank processes its cliques in the same (CliqueKey) order.
    absl::StatusOr<CollectiveMemory> memory =
        AcquireCollectiveMemory(backend, rendezvous, collectives, rank, ThreeRequests(), Soon());
    if (!memory.ok()) return memory;
    absl::StatusOr<CollectiveMemory> more = AcquireCollectiveMemory(
        backend, rendezvous, p2p, rank, {{.allocation_index = 1, .size = 16}}, Soon());
    if (!more.ok()) return more.status();
    absl::Status merged = memory->Merge(*std::move(more));
    if (!merged.ok()) return merged;
    return memory;
  });
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->cliques().size(), 2u);
    EXPECT_NE(result->Find(collectives, 1).value()->local, result->Find(p2p, 1).value()->local);
  }
  EXPECT_EQ(backend.num_sets_created(), 2);
}

TEST(AcquireCollectiveMemoryTest, NoRequestsRegistersAnEmptyClique) {
  CliqueKey clique = *CliqueKey::Create({0, 1});
  HostCollectiveMemoryBackend backend;
  collectives::Rendezvous rendezvous;
  auto results = RunRanks(2, [&](int rank) {
    return AcquireCollectiveMemory(backend, rendezvous, clique, rank, {}, Soon());
  });
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(result->HasClique(clique));
    EXPECT_TRUE(result->allocations(clique).empty());
  }
  EXPECT_EQ(backend.num_sets_created(), 0);
}

TEST(AcquireCollectiveMemoryTest, RankOutsideTheCliqueIsRejectedAtOnce) {
  CliqueKey clique = *CliqueKey::Create({0, 1});
  HostCollectiveMemoryBackend backend;
  collectives::Rendezvous rendezvous;
  EXPECT_EQ(AcquireCollectiveMemory(backend, rendezvous, clique, 2, ThreeRequests(), Soon())
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(NormalizeCollectiveMemoryRequestsTest, SortsAndRejectsBadRequests) {
  absl::StatusOr<std::vector<CollectiveMemoryRequest>> sorted =
      NormalizeCollectiveMemoryRequests(ThreeRequests());
  ASSERT_TRUE(sorted.ok());
  EXPECT_EQ((*sorted)[0].allocation_index, 1);
  EXPECT_EQ((*sorted)[2].allocation_index, 9);
  EXPECT_EQ(NormalizeCollectiveMemoryRequests({{.allocation_index = 1, .size = 0}}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hmo::gpu
