#include "hmo/collectives/rendezvous.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo::collectives {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::Time Soon() { return absl::Now() + absl::Seconds(30); }

TEST(RendezvousTest, AllRanksGetAllValuesInRankOrder) {
  constexpr int kRanks = 8;
  Rendezvous rendezvous;
  std::vector<absl::StatusOr<std::vector<int>>> results(kRanks);
  std::vector<std::thread> threads;
  for (int rank = kRanks - 1; rank >= 0; --rank) {  // arrive in reverse order
    threads.emplace_back([&, rank] {
      results[rank] = rendezvous.AllGather<int>("gather", kRanks, rank, rank * 10, Soon());
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int rank = 0; rank < kRanks; ++rank) {
    ASSERT_TRUE(results[rank].ok()) << results[rank].status();
    EXPECT_THAT(*results[rank], ElementsAre(0, 10, 20, 30, 40, 50, 60, 70));
  }
  EXPECT_EQ(rendezvous.num_pending(), 0u);
}

TEST(RendezvousTest, CliqueOfOneReturnsAtOnceEvenPastTheDeadline) {
  Rendezvous rendezvous;
  absl::StatusOr<std::vector<std::string>> result =
      rendezvous.AllGather<std::string>("solo", 1, 0, std::string("me"), absl::InfinitePast());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(*result, ElementsAre("me"));
}

TEST(RendezvousTest, TimeoutNamesTheMissingRank) {
  constexpr int kRanks = 4;
  constexpr int kMissing = 2;
  Rendezvous rendezvous;
  const absl::Time deadline = absl::Now() + absl::Milliseconds(200);
  std::vector<absl::StatusOr<std::vector<int>>> results(kRanks);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < kRanks; ++rank) {
    if (rank == kMissing) continue;
    threads.emplace_back([&, rank] {
      results[rank] = rendezvous.AllGather<int>("step", kRanks, rank, rank, deadline, [](int r) {
        return "rank " + std::to_string(r) + " (device " + std::to_string(r + 10) + ")";
      });
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int rank = 0; rank < kRanks; ++rank) {
    if (rank == kMissing) continue;
    EXPECT_EQ(results[rank].status().code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_THAT(results[rank].status().message(),
                HasSubstr("3 of 4 ranks arrived; missing: [rank 2 (device 12)]"));
  }
  EXPECT_EQ(rendezvous.num_pending(), 0u);  // the failed round is forgotten
}

TEST(RendezvousTest, TimeoutListsEveryMissingRank) {
  Rendezvous rendezvous;
  absl::StatusOr<std::vector<int>> result =
      rendezvous.AllGather<int>("lonely", 3, 1, 0, absl::Now() + absl::Milliseconds(50));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(result.status().message(),
              HasSubstr("1 of 3 ranks arrived; missing: [rank 0, rank 2]"));
}

TEST(RendezvousTest, InvalidArrivals) {
  Rendezvous rendezvous;
  EXPECT_EQ(rendezvous.AllGather<int>("k", 2, 2, 0, Soon()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(rendezvous.AllGather<int>("k", 0, 0, 0, Soon()).status().code(),
            absl::StatusCode::kInvalidArgument);

  // Rank 0 waits; a second rank 0 and a rank expecting another size are refused.
  std::thread waiter([&] {
    absl::StatusOr<std::vector<int>> result =
        rendezvous.AllGather<int>("k", 2, 0, 0, absl::Now() + absl::Seconds(10));
    EXPECT_TRUE(result.ok()) << result.status();
  });
  while (rendezvous.num_pending() == 0) absl::SleepFor(absl::Milliseconds(1));
  absl::StatusOr<std::vector<int>> twice = rendezvous.AllGather<int>("k", 2, 0, 0, Soon());
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.status().message(), HasSubstr("rank 0 arrived twice"));
  absl::StatusOr<std::vector<int>> size = rendezvous.AllGather<int>("k", 3, 1, 0, Soon());
  EXPECT_EQ(size.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(rendezvous.AllGather<int>("k", 2, 1, 1, Soon()).value(), ElementsAre(0, 1));
  waiter.join();
}

TEST(RendezvousTest, MismatchedValueTypesAreAnError) {
  Rendezvous rendezvous;
  std::thread other([&] { (void)rendezvous.AllGather<std::string>("t", 2, 1, "x", Soon()); });
  absl::StatusOr<std::vector<int>> result = rendezvous.AllGather<int>("t", 2, 0, 1, Soon());
  other.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
}

TEST(RendezvousTest, SameKeyCanBeReusedRoundAfterRound) {
  constexpr int kRanks = 4;
  constexpr int kRounds = 500;
  Rendezvous rendezvous;
  std::vector<int> bad(kRanks, 0);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < kRanks; ++rank) {
    threads.emplace_back([&, rank] {
      for (int round = 0; round < kRounds; ++round) {
        absl::StatusOr<std::vector<int>> result =
            rendezvous.AllGather<int>("loop", kRanks, rank, round * kRanks + rank, Soon());
        if (!result.ok()) {
          ++bad[rank];
          continue;
        }
        for (int r = 0; r < kRanks; ++r) {
          if ((*result)[r] != round * kRanks + r) ++bad[rank];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(bad, ElementsAre(0, 0, 0, 0));
}

}  // namespace
}  // namespace hmo::collectives
