// The per-rank registry of collective memory, filled by hand (no backend).

#include "hmo/gpu/collective_memory.h"

#include <array>
#include <cstddef>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo::gpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class CollectiveMemoryTest : public ::testing::Test {
 protected:
  // Two ranks, two allocations: #3 (64 bytes at offset 0) and #7 (32 bytes at
  // offset 256, multicast) in per-rank arenas; the registry is rank 1's.
  void SetUp() override {
    for (int index : {3, 7}) {
      CollectiveAllocation allocation;
      const bool first = index == 3;
      allocation.request = {.allocation_index = index,
                            .size = first ? 64u : 32u,
                            .kind = first ? CollectiveMemoryKind::kSymmetric
                                          : CollectiveMemoryKind::kMulticast};
      allocation.offset = first ? 0 : 256;
      allocation.peers = {&arena0[allocation.offset], &arena1[allocation.offset]};
      allocation.local = allocation.peers[1];
      allocations.push_back(allocation);
    }
    ASSERT_TRUE(memory.AddClique(clique, 1, allocations, nullptr).ok());
  }

  CliqueKey clique = *CliqueKey::Create({4, 9});
  alignas(256) std::array<std::byte, 512> arena0{};
  alignas(256) std::array<std::byte, 512> arena1{};
  std::vector<CollectiveAllocation> allocations;
  CollectiveMemory memory;
};

TEST_F(CollectiveMemoryTest, FindsByAllocationIndex) {
  absl::StatusOr<const CollectiveAllocation*> found = memory.Find(clique, 7);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ((*found)->local, &arena1[256]);
  EXPECT_EQ((*found)->offset, 256u);
  EXPECT_EQ(memory.RankIn(clique).value(), 1);
  EXPECT_THAT(memory.cliques(), ElementsAre(clique));
  EXPECT_EQ(memory.allocations(clique).size(), 2u);

  absl::StatusOr<const CollectiveAllocation*> missing = memory.Find(clique, 5);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("allocation #5 is not collective memory"));
  EXPECT_THAT(missing.status().message(), HasSubstr("registered: [3,7]"));
}

TEST_F(CollectiveMemoryTest, FindsByAddressWithOffsetFromBase) {
  absl::StatusOr<CollectiveAddress> base = memory.FindByAddress(clique, &arena1[0]);
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_EQ(base->allocation->request.allocation_index, 3);
  EXPECT_EQ(base->offset, 0u);

  absl::StatusOr<CollectiveAddress> interior = memory.FindByAddress(clique, &arena1[256 + 31]);
  ASSERT_TRUE(interior.ok()) << interior.status();
  EXPECT_EQ(interior->allocation->request.allocation_index, 7);
  EXPECT_EQ(interior->offset, 31u);
}

TEST_F(CollectiveMemoryTest, AddressOutsideEveryAllocationIsNotFound) {
  // One past the end of #3, the gap before #7, one past #7, another rank's
  // arena, and null are not this rank's collective memory.
  for (const void* address : {static_cast<const void*>(&arena1[64]),
                              static_cast<const void*>(&arena1[200]),
                              static_cast<const void*>(&arena1[256 + 32]),
                              static_cast<const void*>(&arena0[0]), static_cast<const void*>(nullptr)}) {
    absl::StatusOr<CollectiveAddress> found = memory.FindByAddress(clique, address);
    EXPECT_EQ(found.status().code(), absl::StatusCode::kNotFound) << address;
    EXPECT_THAT(found.status().message(),
                HasSubstr("is not inside any collective allocation of clique[4,9]/collective:0 on rank 1"));
    EXPECT_THAT(found.status().message(), HasSubstr("#3 [0x"));
  }
}

TEST_F(CollectiveMemoryTest, UnknownCliqueIsNotFound) {
  CliqueKey other = *CliqueKey::Create({4, 9}, CollectiveStreamKind::kP2P);
  EXPECT_EQ(memory.Find(other, 3).status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(memory.FindByAddress(other, &arena1[0]).status().message(),
              HasSubstr("no collective memory is registered for clique[4,9]/p2p:0"));
  EXPECT_EQ(memory.RankIn(other).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CollectiveMemoryTest, PeerAddressIsThePeersCopyAtTheSameOffset) {
  EXPECT_EQ(memory.PeerAddress(clique, &arena1[10], 0).value(), &arena0[10]);
  EXPECT_EQ(memory.PeerAddress(clique, &arena1[260], 0).value(), &arena0[260]);
  EXPECT_EQ(memory.PeerAddress(clique, &arena1[260], 1).value(), &arena1[260]);
  EXPECT_EQ(memory.PeerAddress(clique, &arena1[10], 2).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(memory.PeerAddress(clique, &arena0[10], 1).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(CollectiveMemoryTest, MulticastAddressNeedsMulticastMemoryAndABackendAddress) {
  EXPECT_EQ(memory.MulticastAddress(clique, &arena1[0]).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(memory.MulticastAddress(clique, &arena1[256]).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST_F(CollectiveMemoryTest, RejectsInconsistentRegistrations) {
  EXPECT_EQ(memory.AddClique(clique, 1, {}, nullptr).code(), absl::StatusCode::kAlreadyExists);

  CliqueKey p2p = *CliqueKey::Create({4, 9}, CollectiveStreamKind::kP2P);
  std::vector<CollectiveAllocation> duplicate = {allocations[0], allocations[0]};
  EXPECT_EQ(memory.AddClique(p2p, 1, duplicate, nullptr).code(),
            absl::StatusCode::kInvalidArgument);

  std::vector<CollectiveAllocation> overlapping = allocations;
  overlapping[1].local = &arena1[32];
  overlapping[1].peers[1] = &arena1[32];
  absl::Status overlap = memory.AddClique(p2p, 1, overlapping, nullptr);
  EXPECT_EQ(overlap.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(overlap.message(), HasSubstr("overlaps"));

  std::vector<CollectiveAllocation> short_peers = allocations;
  short_peers[0].peers.pop_back();
  EXPECT_EQ(memory.AddClique(p2p, 1, short_peers, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(memory.AddClique(p2p, 2, allocations, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(memory.HasClique(p2p));
}

TEST_F(CollectiveMemoryTest, MergeCombinesCliquesAndRefusesDuplicates) {
  CliqueKey p2p = *CliqueKey::Create({4, 9}, CollectiveStreamKind::kP2P);
  CollectiveMemory other;
  ASSERT_TRUE(other.AddClique(p2p, 1, allocations, nullptr).ok());
  ASSERT_TRUE(memory.Merge(std::move(other)).ok());
  EXPECT_TRUE(memory.HasClique(p2p));
  EXPECT_EQ(memory.Find(p2p, 7).value()->offset, 256u);

  CollectiveMemory again;
  ASSERT_TRUE(again.AddClique(clique, 0, {}, nullptr).ok());
  EXPECT_EQ(memory.Merge(std::move(again)).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(memory.RankIn(clique).value(), 1);
}

}  // namespace
}  // namespace hmo::gpu
