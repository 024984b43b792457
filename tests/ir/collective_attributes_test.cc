// The replica_groups / source_target_pairs parsers of
// hmo/ir/collective_attributes.h: explicit and iota forms, and the text
// they reject.

#include "hmo/ir/collective_attributes.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

TEST(CollectiveAttributesTest, ReplicaGroupSizes) {
  EXPECT_EQ(*ReplicaGroupSize("{}"), 1);
  EXPECT_EQ(*ReplicaGroupSize("{{0}}"), 1);
  EXPECT_EQ(*ReplicaGroupSize("{{0,1},{2,3}}"), 2);
  EXPECT_EQ(*ReplicaGroupSize("{{0,1,2,3}}"), 4);
  EXPECT_EQ(*ReplicaGroupSize("[2,4]<=[8]"), 4);
  EXPECT_EQ(*ReplicaGroupSize("[1,1]<=[1]"), 1);
  EXPECT_FALSE(ReplicaGroupSize("{{0,1}").ok());
}

TEST(CollectiveAttributesTest, ReplicaGroupsExplicitAndIota) {
  using Groups = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(*ParseReplicaGroups("{}"), Groups{});
  EXPECT_EQ(*ParseReplicaGroups("{{0,1},{2,3}}"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(*ParseReplicaGroups("{{3, 1, 2}}"), (Groups{{3, 1, 2}}));
  EXPECT_EQ(*ParseReplicaGroups("[1,4]<=[4]"), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(*ParseReplicaGroups("[2,4]<=[8]"), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  // iota(4) as 2x2, transposed: {{0,2},{1,3}}.
  EXPECT_EQ(*ParseReplicaGroups("[2,2]<=[2,2]T(1,0)"), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(*ParseReplicaGroups("[4,2]<=[2,4]T(1,0)"), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_FALSE(ParseReplicaGroups("{{0,1}").ok());
  EXPECT_FALSE(ParseReplicaGroups("[3,2]<=[4]").ok());
  EXPECT_FALSE(ParseReplicaGroups("{{{0}}}").ok());
}

TEST(CollectiveAttributesTest, SourceTargetPairs) {
  auto pairs = ParseSourceTargetPairs("{{0,1},{1,2},{2,0}}");
  ASSERT_TRUE(pairs.ok());
  EXPECT_EQ(*pairs, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 0}}));
  EXPECT_FALSE(ParseSourceTargetPairs("{{0,1},{2}}").ok());
}

TEST(CollectiveAttributesTest, SpacesAndEmptyPairs) {
  EXPECT_EQ(*ReplicaGroupSize("{ {0, 1, 2} , {3} }"), 3);
  auto pairs = ParseSourceTargetPairs("{}");
  ASSERT_TRUE(pairs.ok());
  EXPECT_TRUE(pairs->empty());
  // iota over 8 as 2x2x2, permuted (2,0,1): groups of the transposed order.
  EXPECT_EQ(*ParseReplicaGroups("[2,4]<=[2,2,2]T(2,0,1)"),
            (std::vector<std::vector<int64_t>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_FALSE(ParseReplicaGroups("[2,2]<=[2,2]T(0,0)").ok());
  EXPECT_FALSE(ParseReplicaGroups("{{0,x}}").ok());
}

TEST(CollectiveAttributesTest, MeshReplicaGroups) {
  using Groups = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(*ParseReplicaGroups("mesh['a'=2,'b'=2]{'b'}"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(*ParseReplicaGroups("mesh['a'=2,'b'=2]{'a'}"), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(*ParseReplicaGroups("mesh['a'=2, 'b'=2]{'1'}"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(*ParseReplicaGroups("mesh['a'=2,'b'=2]{'b','a'}"), (Groups{{0, 2, 1, 3}}));
  EXPECT_EQ(*ParseReplicaGroups("mesh['a'=2,'b'=2, device_ids=(3,2,1,0)]{'b'}"),
            (Groups{{3, 2}, {1, 0}}));
  EXPECT_EQ(*ReplicaGroupSize("mesh['a'=2,'b'=4]{'b'}"), 4);
  EXPECT_FALSE(ParseReplicaGroups("mesh['a'=2,'b'=2]{'c'}").ok());
  EXPECT_FALSE(ParseReplicaGroups("mesh['a'=2,'b'=2, device_ids=(0,1)]{'b'}").ok());
  EXPECT_EQ(ParseReplicaGroups("mesh['a'=4]{'a':(1)2}").status().code(),
            absl::StatusCode::kUnimplemented);
}

// The participants of each collective of a module of 2 replicas x 2
// partitions (device = replica * 2 + partition), as XLA's
// GetParticipatingDevices derives them from channel_id and
// use_global_device_ids.
class CollectiveParticipantsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<HloModule>> parsed =
        ParseHloModule(R"(HloModule m, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[4] parameter(0)
  cross_replica = f32[4] all-reduce(p), replica_groups={{0,1}}, to_apply=add
  cross_partition = f32[4] all-to-all(p), channel_id=1, replica_groups={{1,0}}, dimensions={0}
  replica_and_partition = f32[4] all-reduce(p), channel_id=2, replica_groups={{0},{1}}, to_apply=add
  flattened = f32[4] all-reduce(p), channel_id=3, replica_groups={{0,3},{1,2}}, use_global_device_ids=true, to_apply=add
  all = f32[4] all-reduce(p), channel_id=4, replica_groups={}, use_global_device_ids=true, to_apply=add
  permute_partitions = f32[4] collective-permute(p), channel_id=5, source_target_pairs={{0,1}}
  permute_replicas = f32[4] collective-permute(p), source_target_pairs={{1,0}}
  ROOT t = (f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(cross_replica, cross_partition, replica_and_partition, flattened, all, permute_partitions, permute_replicas)
}
)");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    module_ = *std::move(parsed);
  }
  const HloInstruction& Named(std::string_view name) const {
    for (const HloInstruction* instruction : module_->entry_computation()->instructions()) {
      if (instruction->name() == name) return *instruction;
    }
    ADD_FAILURE() << "no instruction " << name;
    return *module_->entry_computation()->root_instruction();
  }
  std::unique_ptr<HloModule> module_;
  DeviceGrid grid_{.replica_count = 2, .partition_count = 2};
};

TEST_F(CollectiveParticipantsTest, GroupModes) {
  EXPECT_EQ(*GetCollectiveGroupMode(Named("cross_replica")), CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(*GetCollectiveGroupMode(Named("cross_partition")),
            CollectiveGroupMode::kCrossPartition);
  EXPECT_EQ(*GetCollectiveGroupMode(Named("replica_and_partition")),
            CollectiveGroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(*GetCollectiveGroupMode(Named("flattened")), CollectiveGroupMode::kFlattenedId);
}

TEST_F(CollectiveParticipantsTest, DevicesInRankOrder) {
  using Devices = std::vector<int64_t>;
  // Replicas 0 and 1 of this device's partition.
  EXPECT_EQ(*CollectiveParticipants(Named("cross_replica"), grid_, 3), (Devices{1, 3}));
  // Partitions 1 and 0 of this device's replica, in the order listed.
  EXPECT_EQ(*CollectiveParticipants(Named("cross_partition"), grid_, 2), (Devices{3, 2}));
  // Replica 1's partitions.
  EXPECT_EQ(*CollectiveParticipants(Named("replica_and_partition"), grid_, 3), (Devices{2, 3}));
  EXPECT_EQ(*CollectiveParticipants(Named("flattened"), grid_, 2), (Devices{1, 2}));
  EXPECT_EQ(*CollectiveParticipants(Named("all"), grid_, 2), (Devices{0, 1, 2, 3}));
  EXPECT_FALSE(CollectiveParticipants(Named("all"), grid_, 4).ok());
  // The same groups over one replica of one partition name an id past it.
  EXPECT_FALSE(CollectiveParticipants(Named("flattened"), DeviceGrid{}, 0).ok());
}

TEST_F(CollectiveParticipantsTest, PermutePeers) {
  // Partition 0 sends to partition 1 in each replica.
  PermutePeers peers = *CollectivePermutePeers(Named("permute_partitions"), grid_, 2);
  EXPECT_EQ(peers.source, -1);
  EXPECT_EQ(peers.target, 3);
  peers = *CollectivePermutePeers(Named("permute_partitions"), grid_, 3);
  EXPECT_EQ(peers.source, 2);
  EXPECT_EQ(peers.target, -1);
  // Replica 1 sends to replica 0 in each partition.
  peers = *CollectivePermutePeers(Named("permute_replicas"), grid_, 1);
  EXPECT_EQ(peers.source, 3);
  EXPECT_EQ(peers.target, -1);
}

}  // namespace
}  // namespace hmo
