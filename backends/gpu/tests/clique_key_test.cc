#include "hmo/gpu/clique_key.h"

#include "absl/container/flat_hash_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo::gpu {
namespace {

using ::testing::ElementsAre;

TEST(CliqueKeyTest, SortsDevicesAndAssignsRanksInOrder) {
  absl::StatusOr<CliqueKey> clique = CliqueKey::Create({7, 3, 5});
  ASSERT_TRUE(clique.ok()) << clique.status();
  EXPECT_THAT(clique->devices(), ElementsAre(3, 5, 7));
  EXPECT_EQ(clique->num_ranks(), 3);
  EXPECT_EQ(clique->RankOf(3), 0);
  EXPECT_EQ(clique->RankOf(7), 2);
  EXPECT_EQ(clique->RankOf(4), std::nullopt);
  EXPECT_EQ(clique->DeviceAt(1), 5);
  EXPECT_EQ(clique->ToString(), "clique[3,5,7]/collective:0");
}

TEST(CliqueKeyTest, RejectsEmptyDuplicateAndNegativeDevices) {
  EXPECT_EQ(CliqueKey::Create({}).status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<CliqueKey> duplicate = CliqueKey::Create({1, 2, 1});
  EXPECT_EQ(duplicate.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(duplicate.status().message(), ::testing::HasSubstr("device 1 is listed twice"));
  EXPECT_EQ(CliqueKey::Create({-1, 0}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CliqueKeyTest, EqualityIgnoresDeviceOrderButNotTheStream) {
  CliqueKey a = *CliqueKey::Create({0, 1});
  CliqueKey b = *CliqueKey::Create({1, 0});
  CliqueKey p2p = *CliqueKey::Create({0, 1}, CollectiveStreamKind::kP2P);
  CliqueKey other_stream = *CliqueKey::Create({0, 1}, CollectiveStreamKind::kCollective, 1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, p2p);
  EXPECT_NE(a, other_stream);
  EXPECT_TRUE(a < p2p || p2p < a);
  absl::flat_hash_set<CliqueKey> set = {a, b, p2p, other_stream};
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(p2p.ToString(), "clique[0,1]/p2p:0");
}

}  // namespace
}  // namespace hmo::gpu
