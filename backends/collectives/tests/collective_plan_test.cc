// PlanCollective (hmo/collectives/collective_plan.h): the kind, buffer bytes,
// participants, reduction and physical split each collective opcode plans,
// the result leaves it writes, and what it refuses.

#include "hmo/collectives/collective_plan.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::collectives {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Groups = std::vector<std::vector<int64_t>>;

std::unique_ptr<HloModule> Parse(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *std::move(parsed) : nullptr;
}

const HloInstruction* Named(const HloModule& module, std::string_view name) {
  for (const HloInstruction* instruction : module.entry_computation()->instructions()) {
    if (instruction->name() == name) return instruction;
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

// A reducer `name` of two `type` scalars a and b whose root is `root`.
std::string Reducer(std::string_view name, std::string_view type, std::string_view root) {
  return fmt::format(
      "{0} {{\n"
      "  a = {1}[] parameter(0)\n"
      "  b = {1}[] parameter(1)\n"
      "  ROOT r = {1}[] {2}\n"
      "}}\n\n",
      name, type, root);
}

// Every planned opcode on 2 replicas x 2 partitions (device = replica * 2 +
// partition). Groups of two without a channel_id are the replicas of one
// partition ({0,2} and {1,3}); with a channel_id and no
// use_global_device_ids, the partitions of one replica ({0,1} and {2,3}).
std::string PlansModule() {
  return "HloModule plans, replica_count=2, num_partitions=2\n\n" +
         Reducer("sum", "f32", "add(a, b)") + Reducer("any", "pred", "add(a, b)") +
         Reducer("max", "f32", "maximum(b, a)") + R"(ENTRY e {
  p = f32[2,3] parameter(0)
  q = f32[4] parameter(1)
  flags = pred[8] parameter(2)
  cm = f32[2,2]{0,1} parameter(3)
  col = f32[4,1]{0,1} parameter(4)
  wide = f32[4,3] parameter(5)
  s = f32[2,4] parameter(6)
  v = f32[3] parameter(7)
  ar = f32[2,3] all-reduce(p), channel_id=1, replica_groups={{3,1,2,0}}, use_global_device_ids=true, to_apply=sum
  ar_tuple = (f32[2,3], f32[4]) all-reduce(p, q), replica_groups={}, to_apply=sum
  ar_or = pred[8] all-reduce(flags), replica_groups={}, to_apply=any
  ar_max = f32[4] all-reduce(q), replica_groups={}, to_apply=max
  ars = f32[4] all-reduce-start(q), channel_id=2, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=sum
  ard = f32[4] all-reduce-done(ars)
  ag0 = f32[4,3] all-gather(p), replica_groups={{0,1}}, dimensions={0}
  ag1 = f32[2,6] all-gather(p), replica_groups={{0,1}}, dimensions={1}
  ag_cm0 = f32[4,2]{0,1} all-gather(cm), replica_groups={{0,1}}, dimensions={0}
  ag_cm1 = f32[4,2]{0,1} all-gather(col), replica_groups={{0,1}}, dimensions={1}
  ags = (f32[2,3], f32[4,3]) all-gather-start(p), replica_groups={{1,0}}, dimensions={0}
  agd = f32[4,3] all-gather-done(ags)
  ags_tuple = ((f32[2,3], f32[4]), (f32[4,3], f32[8])) all-gather-start(p, q), replica_groups={{0,1}}, dimensions={0}
  rs = f32[2,3] reduce-scatter(wide), replica_groups={{0,1}}, dimensions={0}, to_apply=sum
  a2a0 = f32[4,3] all-to-all(wide), channel_id=3, replica_groups={{0,1}}, dimensions={0}
  a2a1 = f32[2,4] all-to-all(s), channel_id=4, replica_groups={{0,1}}, dimensions={1}
  a2a_tuple = (f32[3], f32[3]) all-to-all(v, v), channel_id=5, replica_groups={{1,0}}
  cp = f32[4] collective-permute(q), channel_id=6, source_target_pairs={{0,1}}
  cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(q), source_target_pairs={{0,1},{1,0}}
  cpd = f32[4] collective-permute-done(cps)
  bc = f32[4] collective-broadcast(q), channel_id=7, replica_groups={{1,0}}
  rid = u32[] replica-id()
  pid = u32[] partition-id()
  ROOT t = (f32[4], u32[]) tuple(ard, rid)
}
)";
}

class CollectivePlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = Parse(PlansModule());
    ASSERT_NE(module_, nullptr);
  }
  const HloInstruction& Instruction(std::string_view name) const { return *Named(*module_, name); }
  // The plan of `name` on the 2x2 grid; a failed test (and an empty plan)
  // when it does not plan.
  CollectivePlan Plan(std::string_view name) const {
    absl::StatusOr<CollectivePlan> plan = PlanCollective(Instruction(name), grid_);
    EXPECT_TRUE(plan.ok()) << name << ": " << plan.status();
    return plan.ok() ? *std::move(plan) : CollectivePlan{};
  }

  std::unique_ptr<HloModule> module_;
  DeviceGrid grid_{.replica_count = 2, .partition_count = 2};
};

// (send bytes, receive bytes) of each buffer of a plan.
using Bytes = std::pair<std::vector<int64_t>, std::vector<int64_t>>;
Bytes BytesOf(const CollectivePlan& plan) { return {plan.send_bytes, plan.receive_bytes}; }

// (outer, chunk_bytes) of each split of a plan.
using Splits = std::vector<std::pair<int64_t, int64_t>>;
Splits SplitsOf(const CollectivePlan& plan) {
  Splits splits;
  for (const CollectivePlan::Split& split : plan.splits)
    splits.emplace_back(split.outer, split.chunk_bytes);
  return splits;
}

// (source, target) of each device of a permute plan.
using Peers = std::vector<std::pair<int64_t, int64_t>>;
Peers PeersOf(const CollectivePlan& plan) {
  Peers peers;
  for (const PermutePeers& peer : plan.peers) peers.emplace_back(peer.source, peer.target);
  return peers;
}

TEST_F(CollectivePlanTest, EveryPlannedOpcodeGetsItsKind) {
  const std::vector<std::pair<std::string_view, CollectiveKind>> expected = {
      {"ar", CollectiveKind::kAllReduce},          {"ar_tuple", CollectiveKind::kAllReduce},
      {"ars", CollectiveKind::kAllReduce},         {"ag0", CollectiveKind::kAllGather},
      {"ags", CollectiveKind::kAllGather},         {"ags_tuple", CollectiveKind::kAllGather},
      {"rs", CollectiveKind::kReduceScatter},      {"a2a0", CollectiveKind::kAllToAll},
      {"a2a_tuple", CollectiveKind::kAllToAll},    {"cp", CollectiveKind::kCollectivePermute},
      {"cps", CollectiveKind::kCollectivePermute}, {"bc", CollectiveKind::kCollectiveBroadcast},
      {"rid", CollectiveKind::kReplicaId},         {"pid", CollectiveKind::kPartitionId},
  };
  for (const auto& [name, kind] : expected) {
    EXPECT_TRUE(IsPlannedCollective(Instruction(name).opcode())) << name;
    const CollectivePlan plan = Plan(name);
    EXPECT_EQ(plan.kind, kind) << name;
    EXPECT_THAT(plan.description, HasSubstr(std::string(name))) << "errors name the instruction";
    EXPECT_EQ(plan.grid.device_count(), 4) << name;
  }
}

TEST_F(CollectivePlanTest, DoneHalvesAndOtherOpcodesAreNotPlanned) {
  // The -done half only hands over what its -start wrote.
  EXPECT_FALSE(IsPlannedCollective(Instruction("ard").opcode()));
  EXPECT_FALSE(IsPlannedCollective(Instruction("agd").opcode()));
  EXPECT_FALSE(IsPlannedCollective(Instruction("cpd").opcode()));
  EXPECT_FALSE(IsPlannedCollective(Instruction("t").opcode()));
  EXPECT_EQ(PlanCollective(Instruction("t"), grid_).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST_F(CollectivePlanTest, ReceiveIndicesSkipTheOperandOfStartTuples) {
  EXPECT_THAT(CollectiveReceiveIndices(Instruction("ar")), ElementsAre(ShapeIndex{}));
  EXPECT_THAT(CollectiveReceiveIndices(Instruction("ar_tuple")),
              ElementsAre(ShapeIndex{0}, ShapeIndex{1}));
  EXPECT_THAT(CollectiveReceiveIndices(Instruction("ars")), ElementsAre(ShapeIndex{}));
  EXPECT_THAT(CollectiveReceiveIndices(Instruction("ags")), ElementsAre(ShapeIndex{1}));
  EXPECT_THAT(CollectiveReceiveIndices(Instruction("ags_tuple")),
              ElementsAre(ShapeIndex{1, 0}, ShapeIndex{1, 1}));
  EXPECT_THAT(CollectiveReceiveIndices(Instruction("a2a_tuple")),
              ElementsAre(ShapeIndex{0}, ShapeIndex{1}));
  // collective-permute-start's {2}, {3} are u32 context, not results.
  EXPECT_THAT(CollectiveReceiveIndices(Instruction("cps")), ElementsAre(ShapeIndex{1}));
  EXPECT_THAT(CollectiveReceiveIndices(Instruction("rid")), ElementsAre(ShapeIndex{}));
}

TEST_F(CollectivePlanTest, SendAndReceiveBytesPerBuffer) {
  CollectivePlan plan = Plan("ar_tuple");
  EXPECT_EQ(BytesOf(plan), (Bytes{{24, 16}, {24, 16}}));
  EXPECT_EQ(plan.element_type, PrimitiveType::F32);
  // ags: the operand copy at {0} is not a receive buffer.
  EXPECT_EQ(BytesOf(Plan("ags")), (Bytes{{24}, {48}}));
  EXPECT_EQ(BytesOf(Plan("ags_tuple")), (Bytes{{24, 16}, {48, 32}}));
  EXPECT_EQ(BytesOf(Plan("rs")), (Bytes{{48}, {24}}));
  plan = Plan("a2a_tuple");
  EXPECT_EQ(BytesOf(plan), (Bytes{{12, 12}, {12, 12}}));
  EXPECT_TRUE(plan.splits.empty()) << "the tuple form exchanges whole buffers";
  EXPECT_EQ(BytesOf(Plan("cps")), (Bytes{{16}, {16}}));
  plan = Plan("ar_or");
  EXPECT_EQ(plan.element_type, PrimitiveType::PRED);
  EXPECT_THAT(plan.send_bytes, ElementsAre(8));
  for (std::string_view id : {"rid", "pid"}) {
    plan = Plan(id);
    EXPECT_EQ(BytesOf(plan), (Bytes{{}, {4}})) << id;
    EXPECT_EQ(plan.element_type, PrimitiveType::U32) << id;
  }
}

TEST_F(CollectivePlanTest, ParticipantsPerDeviceInRankOrder) {
  // Flattened ids, in the order written.
  EXPECT_EQ(Plan("ar").participants,
            (Groups{{3, 1, 2, 0}, {3, 1, 2, 0}, {3, 1, 2, 0}, {3, 1, 2, 0}}));
  // No channel_id, empty groups: every replica of the device's partition.
  EXPECT_EQ(Plan("ar_tuple").participants, (Groups{{0, 2}, {1, 3}, {0, 2}, {1, 3}}));
  EXPECT_EQ(Plan("ars").participants, (Groups{{0, 1}, {0, 1}, {2, 3}, {2, 3}}));
  EXPECT_EQ(Plan("ag0").participants, (Groups{{0, 2}, {1, 3}, {0, 2}, {1, 3}}));
  EXPECT_EQ(Plan("ags").participants, (Groups{{2, 0}, {3, 1}, {2, 0}, {3, 1}}));
  // A channel_id on all-to-all / collective-broadcast: partitions of one replica.
  EXPECT_EQ(Plan("a2a0").participants, (Groups{{0, 1}, {0, 1}, {2, 3}, {2, 3}}));
  EXPECT_EQ(Plan("bc").participants, (Groups{{1, 0}, {1, 0}, {3, 2}, {3, 2}}));
  EXPECT_TRUE(Plan("bc").peers.empty());
}

TEST_F(CollectivePlanTest, PermutePeersPerDevice) {
  // channel_id: the pair names partitions, in each replica.
  const CollectivePlan plan = Plan("cp");
  EXPECT_TRUE(plan.participants.empty());
  EXPECT_EQ(PeersOf(plan), (Peers{{-1, 1}, {0, -1}, {-1, 3}, {2, -1}}));
  // No channel_id: the pairs name replicas, in each partition.
  EXPECT_EQ(PeersOf(Plan("cps")), (Peers{{2, 2}, {3, 3}, {0, 0}, {1, 1}}));
}

TEST_F(CollectivePlanTest, AllGatherSplitOfRowMajorDimensions) {
  // f32[2,3] -> f32[4,3] along dimension 0: nothing is more major, each
  // rank's chunk is its whole 2x3 operand.
  EXPECT_EQ(SplitsOf(Plan("ag0")), (Splits{{1, 24}}));
  // f32[2,3] -> f32[2,6] along dimension 1: for each of the 2 rows, each rank
  // contributes 3 floats.
  EXPECT_EQ(SplitsOf(Plan("ag1")), (Splits{{2, 12}}));
  // Variadic: one split per buffer pair.
  EXPECT_EQ(SplitsOf(Plan("ags_tuple")), (Splits{{1, 24}, {1, 16}}));
}

TEST_F(CollectivePlanTest, AllGatherSplitHonorsAColumnMajorLayout) {
  // f32[4,2]{0,1}: dimension 0 is minor, so gathering along it interleaves
  // per column (outer 2, 2 floats per rank) ...
  EXPECT_EQ(SplitsOf(Plan("ag_cm0")), (Splits{{2, 8}}));
  // ... and gathering along the major dimension 1 is one contiguous block.
  EXPECT_EQ(SplitsOf(Plan("ag_cm1")), (Splits{{1, 16}}));
}

TEST_F(CollectivePlanTest, ReduceScatterAndAllToAllSplits) {
  const CollectivePlan reduce_scatter = Plan("rs");
  EXPECT_EQ(SplitsOf(reduce_scatter), (Splits{{1, 24}}));
  EXPECT_EQ(reduce_scatter.reduction, ReductionKind::kSum);
  // f32[4,3] over 2 ranks along dimension 0: 2 rows each.
  const CollectivePlan rows = Plan("a2a0");
  EXPECT_EQ(SplitsOf(rows), (Splits{{1, 24}}));
  EXPECT_EQ(BytesOf(rows), (Bytes{{48}, {48}}));
  // f32[2,4] over 2 ranks along dimension 1: per row, 2 floats each.
  EXPECT_EQ(SplitsOf(Plan("a2a1")), (Splits{{2, 8}}));
}

TEST_F(CollectivePlanTest, ReductionKindFromTheReducerAndElementType) {
  EXPECT_EQ(Plan("ar").reduction, ReductionKind::kSum);
  EXPECT_EQ(Plan("ar_tuple").reduction, ReductionKind::kSum);
  EXPECT_EQ(Plan("ars").reduction, ReductionKind::kSum);
  // add on pred is logical or, as XLA reads it.
  EXPECT_EQ(Plan("ar_or").reduction, ReductionKind::kOr);
  // maximum(b, a): the parameters may come in either order.
  EXPECT_EQ(Plan("ar_max").reduction, ReductionKind::kMax);
}

// The status of planning the root of a module that parses but does not plan,
// on the same 2x2 grid: its entry computation takes p of `parameter_shape`
// and ends in `root` ("name = shape opcode(p), ..."), after `computations`.
absl::Status RootPlanStatus(std::string_view computations, std::string_view parameter_shape,
                            std::string_view root) {
  std::unique_ptr<HloModule> module =
      Parse(fmt::format("HloModule m, replica_count=2, num_partitions=2\n\n"
                        "{}"
                        "ENTRY e {{\n"
                        "  p = {} parameter(0)\n"
                        "  ROOT {}\n"
                        "}}\n",
                        computations, parameter_shape, root));
  if (module == nullptr) return absl::InternalError("did not parse");
  const HloInstruction* instruction = Named(*module, root.substr(0, root.find(' ')));
  if (instruction == nullptr) return absl::InternalError("not found");
  return PlanCollective(*instruction, DeviceGrid{.replica_count = 2, .partition_count = 2})
      .status();
}

TEST(CollectivePlanErrorsTest, ReducerThatIsNotOneBinaryOpOfItsParametersIsUnimplemented) {
  const absl::Status status =
      RootPlanStatus(R"(add_one {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  one = f32[] constant(1)
  ROOT s = f32[] add(a, one)
}

)",
                     "f32[4]", "ar = f32[4] all-reduce(p), replica_groups={}, to_apply=add_one");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("ar"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("add_one"));
}

TEST(CollectivePlanErrorsTest, ReducerOfOneParameterTwiceIsUnimplemented) {
  const absl::Status status = RootPlanStatus(
      Reducer("twice", "f32", "add(a, a)"), "f32[4,2]",
      "rs = f32[2,2] reduce-scatter(p), replica_groups={}, dimensions={0}, to_apply=twice");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
}

TEST(CollectivePlanErrorsTest, AllReduceWithDifferingLayoutsIsUnimplemented) {
  const absl::Status status =
      RootPlanStatus(Reducer("sum", "f32", "add(a, b)"), "f32[2,3]{1,0}",
                     "ar = f32[2,3]{0,1} all-reduce(p), replica_groups={}, to_apply=sum");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
}

TEST(CollectivePlanErrorsTest, AllGatherWithDifferingLayoutsIsUnimplemented) {
  const absl::Status status = RootPlanStatus(
      "", "f32[2,3]{1,0}", "ag = f32[4,3]{0,1} all-gather(p), replica_groups={}, dimensions={0}");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
}

TEST(CollectivePlanErrorsTest, GroupsPastTheGridAreInvalid) {
  const absl::Status status =
      RootPlanStatus(Reducer("sum", "f32", "add(a, b)"), "f32[4]",
                     "ar = f32[4] all-reduce(p), channel_id=1, replica_groups={{0,1},{2,4}}, "
                     "use_global_device_ids=true, "
                     "to_apply=sum");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("ar"));
}

TEST(CollectivePlanErrorsTest, PermutePairsPastTheGridAreInvalid) {
  const absl::Status status = RootPlanStatus(
      "", "f32[4]", "cp = f32[4] collective-permute(p), channel_id=1, source_target_pairs={{0,2}}");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
}

}  // namespace
}  // namespace hmo::collectives
