// The replica_groups / source_target_pairs parsers of
// hmo/ir/collective_attributes.h: explicit and iota forms, and the text
// they reject.

#include "hmo/ir/collective_attributes.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace hmo
