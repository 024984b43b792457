// Collectives in the evaluator: EvaluateReplicated on 4 replicas with
// different arguments (all-reduce, all-gather, reduce-scatter,
// collective-permute, replica-id, a collective in a loop), the one-replica
// Evaluate, and the errors: a replica that never reaches a collective, one
// that fails while the others wait, unsupported forms. Expected values are
// worked out by hand in the comments.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "evaluator_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo::eval_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Parses `hlo` and evaluates it on one argument list per replica.
absl::StatusOr<std::vector<Literal>> EvaluateReplicatedText(std::string_view hlo,
                                                            const std::vector<std::vector<Literal>>& arguments,
                                                            HloEvaluator::Options options = {}) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  if (!module.ok()) return module.status();
  HloEvaluator evaluator(options);
  return evaluator.EvaluateReplicated(**module, arguments);
}

// One argument list of one array per replica.
std::vector<std::vector<Literal>> OneArrayEach(std::string_view shape,
                                               const std::vector<std::vector<double>>& values) {
  std::vector<std::vector<Literal>> arguments;
  for (const std::vector<double>& v : values) {
    arguments.emplace_back();
    arguments.back().push_back(MakeArray(shape, v));
  }
  return arguments;
}

// Values per device: one list per device.
using PerDeviceValues = std::vector<std::vector<double>>;

// For 4 devices, `rows` x `columns` values row-major: value(device, row,
// column).
PerDeviceValues ValuesOfEachDevice(int rows, int columns,
                                   const std::function<double(int, int, int)>& value) {
  PerDeviceValues values(4);
  for (int d = 0; d < 4; ++d) {
    for (int i = 0; i < rows * columns; ++i)
      values[d].push_back(value(d, i / columns, i % columns));
  }
  return values;
}

// Each device's result, as doubles or as integers.
PerDeviceValues DoublesOfEach(const std::vector<Literal>& results) {
  PerDeviceValues values;
  for (const Literal& result : results) values.push_back(Doubles(result));
  return values;
}
std::vector<std::vector<int64_t>> IntsOfEach(const std::vector<Literal>& results) {
  std::vector<std::vector<int64_t>> values;
  for (const Literal& result : results) values.push_back(Ints(result));
  return values;
}

// Element `i` of a tuple result, as doubles.
std::vector<double> DoublesAt(const Literal& tuple, size_t i) {
  EXPECT_GT(tuple.tuple_elements().size(), i);
  if (tuple.tuple_elements().size() <= i) return {};
  return Doubles(tuple.tuple_elements()[i]);
}

// Element `element` of each device's tuple result, as doubles.
PerDeviceValues DoublesOfEach(const std::vector<Literal>& results, size_t element) {
  PerDeviceValues values;
  for (const Literal& result : results) values.push_back(DoublesAt(result, element));
  return values;
}

// For 4 replicas: replica r holds [r + 1, 10 (r + 1)], an array of `shape`.
std::vector<std::vector<Literal>> OneAndTenTimesEach(std::string_view shape) {
  return OneArrayEach(shape, {{1, 10}, {2, 20}, {3, 30}, {4, 40}});
}

#define HMO_REPLICATED_OK(results_var, ...)                                    \
  absl::StatusOr<std::vector<Literal>> results_var##_or = __VA_ARGS__;         \
  ASSERT_TRUE(results_var##_or.ok()) << results_var##_or.status();             \
  ASSERT_EQ(results_var##_or->size(), 4u);                                     \
  const std::vector<Literal>& results_var = *results_var##_or

constexpr char kAllReduceSum[] = R"(
HloModule all_reduce_sum

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[3] parameter(0)
  ROOT ar = f32[3] all-reduce(p), replica_groups={}, to_apply=sum
}
)";

TEST(CollectiveEvaluationTest, AllReduceSumOverAllReplicas) {
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kAllReduceSum, OneArrayEach("f32[3]", {{1, 2, 3},
                                                                                          {10, 20, 30},
                                                                                          {100, 200, 300},
                                                                                          {1000, 2000, 3000}})));
  for (const Literal& result : results) EXPECT_THAT(Doubles(result), ElementsAre(1111, 2222, 3333));
}

TEST(CollectiveEvaluationTest, AllReduceMaxOfIntegers) {
  constexpr char kHlo[] = R"(
HloModule all_reduce_max

max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}

ENTRY e {
  p = s32[2] parameter(0)
  ROOT ar = s32[2] all-reduce(p), to_apply=max
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneArrayEach("s32[2]", {{5, -1}, {3, 7}, {-4, 2}, {0, 6}})));
  for (const Literal& result : results) EXPECT_THAT(Ints(result), ElementsAre(5, 7));
}

TEST(CollectiveEvaluationTest, AllReduceWithTwoGroups) {
  constexpr char kHlo[] = R"(
HloModule all_reduce_groups

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=sum
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneArrayEach("f32[2]", {{1, 2}, {3, 4}, {5, 6}, {7, 8}})));
  EXPECT_EQ(DoublesOfEach(results), (PerDeviceValues{{4, 6}, {4, 6}, {12, 14}, {12, 14}}));
}

// A reducer that is not commutative (acc * 2 + x) over the group {3,2,1,0}:
// the fold runs in rank order, ((v3*2 + v2)*2 + v1)*2 + v0 with v_r = 4 - r:
// 1 -> 1*2+2 = 4 -> 4*2+3 = 11 -> 11*2+4 = 26.
TEST(CollectiveEvaluationTest, AllReduceFoldsInRankOrderWithAnyComputation) {
  constexpr char kHlo[] = R"(
HloModule all_reduce_order

twice_plus {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  two = f32[] constant(2)
  t = f32[] multiply(a, two)
  ROOT s = f32[] add(t, b)
}

ENTRY e {
  p = f32[1] parameter(0)
  ROOT ar = f32[1] all-reduce(p), replica_groups={{3,2,1,0}}, to_apply=twice_plus
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneArrayEach("f32[1]", {{4}, {3}, {2}, {1}})));
  for (const Literal& result : results) EXPECT_THAT(Doubles(result), ElementsAre(26));
}

// Replica r contributes [[r+1],[10(r+1)]]; gathered along dimension 1 in
// rank order.
TEST(CollectiveEvaluationTest, AllGatherAlongDimensionOne) {
  constexpr char kHlo[] = R"(
HloModule all_gather

ENTRY e {
  p = f32[2,1] parameter(0)
  ROOT ag = f32[2,4] all-gather(p), replica_groups={}, dimensions={1}
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneAndTenTimesEach("f32[2,1]")));
  for (const Literal& result : results) {
    EXPECT_THAT(Doubles(result), ElementsAre(1, 2, 3, 4, 10, 20, 30, 40));
  }
}

// The transposed iota groups {{0,2},{1,3}}.
TEST(CollectiveEvaluationTest, AllGatherWithIotaGroups) {
  constexpr char kHlo[] = R"(
HloModule all_gather_iota

ENTRY e {
  p = f32[2,1] parameter(0)
  ROOT ag = f32[2,2] all-gather(p), replica_groups=[2,2]<=[2,2]T(1,0), dimensions={1}
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneAndTenTimesEach("f32[2,1]")));
  EXPECT_EQ(DoublesOfEach(results),
            (PerDeviceValues{{1, 3, 10, 30}, {2, 4, 20, 40}, {1, 3, 10, 30}, {2, 4, 20, 40}}));
}

// operand_r[i][j] = 100i + 10j + r; the sum over r is 400i + 40j + 6, and
// rank k keeps column k: [[40k+6],[40k+406]].
TEST(CollectiveEvaluationTest, ReduceScatterKeepsTheRankBlock) {
  constexpr char kHlo[] = R"(
HloModule reduce_scatter

sum {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

ENTRY e {
  p = s32[2,4] parameter(0)
  ROOT rs = s32[2,1] reduce-scatter(p), replica_groups={}, dimensions={1}, to_apply=sum
}
)";
  const PerDeviceValues values =
      ValuesOfEachDevice(2, 4, [](int r, int i, int j) { return 100 * i + 10 * j + r; });
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneArrayEach("s32[2,4]", values)));
  EXPECT_EQ(IntsOfEach(results),
            (std::vector<std::vector<int64_t>>{{6, 406}, {46, 446}, {86, 486}, {126, 526}}));
}

TEST(CollectiveEvaluationTest, CollectivePermuteRing) {
  constexpr char kHlo[] = R"(
HloModule permute_ring

ENTRY e {
  p = f32[2] parameter(0)
  ROOT cp = f32[2] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
}
)";
  HMO_REPLICATED_OK(results,
                    EvaluateReplicatedText(kHlo, OneArrayEach("f32[2]", {{0, 0.5}, {1, 1.5}, {2, 2.5}, {3, 3.5}})));
  EXPECT_EQ(DoublesOfEach(results), (PerDeviceValues{{3, 3.5}, {0, 0.5}, {1, 1.5}, {2, 2.5}}));
}

// 0 -> 2 and 2 -> 1; replicas 0 and 3 receive nothing: zeros.
TEST(CollectiveEvaluationTest, CollectivePermutePartialPairsGiveZeros) {
  constexpr char kHlo[] = R"(
HloModule permute_partial

ENTRY e {
  p = f32[2] parameter(0)
  ROOT cp = f32[2] collective-permute(p), source_target_pairs={{0,2},{2,1}}
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneAndTenTimesEach("f32[2]")));
  EXPECT_EQ(DoublesOfEach(results), (PerDeviceValues{{0, 0}, {3, 30}, {1, 10}, {0, 0}}));
}

// replica-id alone, and summed over the replicas: 0+1+2+3 = 6.
TEST(CollectiveEvaluationTest, ReplicaId) {
  constexpr char kHlo[] = R"(
HloModule replica_id

sum {
  a = u32[] parameter(0)
  b = u32[] parameter(1)
  ROOT s = u32[] add(a, b)
}

ENTRY e {
  id = u32[] replica-id()
  r = u32[1] reshape(id)
  ar = u32[1] all-reduce(r), to_apply=sum
  ROOT t = (u32[], u32[1]) tuple(id, ar)
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, std::vector<std::vector<Literal>>(4)));
  for (int r = 0; r < 4; ++r) {
    ASSERT_EQ(results[r].tuple_elements().size(), 2u);
    EXPECT_EQ(results[r].tuple_elements()[0].GetAsInt64(0), r);
    EXPECT_EQ(results[r].tuple_elements()[1].GetAsInt64(0), 6);
  }
}

// x' = all-reduce(x) + x, three times, x_r = r+1 at first:
// sum 10 -> x = 11,12,13,14; sum 50 -> 61..64; sum 250 -> 311..314.
// Each iteration's all-reduce must meet the same iteration's on the others.
TEST(CollectiveEvaluationTest, AllReduceInsideAWhileLoop) {
  constexpr char kHlo[] = R"(
HloModule loop

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  s = (s32[], f32[1]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

body {
  s = (s32[], f32[1]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[1] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ar = f32[1] all-reduce(x), to_apply=sum
  next_x = f32[1] add(ar, x)
  ROOT t = (s32[], f32[1]) tuple(next_i, next_x)
}

ENTRY e {
  x = f32[1] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[1]) tuple(zero, x)
  w = (s32[], f32[1]) while(init), condition=cond, body=body
  ROOT out = f32[1] get-tuple-element(w), index=1
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneArrayEach("f32[1]", {{1}, {2}, {3}, {4}})));
  EXPECT_EQ(DoublesOfEach(results), (PerDeviceValues{{311}, {312}, {313}, {314}}));
}

// One replica: every collective is a group of one.
TEST(CollectiveEvaluationTest, SingleReplicaEvaluate) {
  HMO_EVAL_OK(all_reduced, EvaluateText(kAllReduceSum, {MakeArray("f32[3]", {1, 2, 3})}));
  EXPECT_THAT(Doubles(all_reduced), ElementsAre(1, 2, 3));

  constexpr char kHlo[] = R"(
HloModule one_replica

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[2] parameter(0)
  ar = f32[2] all-reduce(p), replica_groups={{0}}, to_apply=sum
  ag = f32[2] all-gather(ar), replica_groups={}, dimensions={0}
  rs = f32[2] reduce-scatter(ag), replica_groups=[1,1]<=[1], dimensions={0}, to_apply=sum
  kept = f32[2] collective-permute(rs), source_target_pairs={{0,0}}
  dropped = f32[2] collective-permute(rs), source_target_pairs={}
  ROOT t = (f32[2], f32[2]) tuple(kept, dropped)
}
)";
  HMO_EVAL_OK(result, EvaluateText(kHlo, {MakeArray("f32[2]", {5, 7})}));
  ASSERT_EQ(result.tuple_elements().size(), 2u);
  EXPECT_THAT(Doubles(result.tuple_elements()[0]), ElementsAre(5, 7));
  EXPECT_THAT(Doubles(result.tuple_elements()[1]), ElementsAre(0, 0));
}

TEST(CollectiveEvaluationTest, SingleReplicaRejectsGroupsOfMoreReplicas) {
  constexpr char kHlo[] = R"(
HloModule two_replica_group

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), replica_groups={{0,1}}, to_apply=sum
}
)";
  absl::StatusOr<Literal> result = EvaluateText(kHlo, {MakeArray("f32[2]", {5, 7})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("all-reduce ar"));
}

// Replica 2's predicate is false: it skips the all-reduce in the true
// branch, so the others wait for it until the (short) deadline.
constexpr char kSkippedOnOneReplica[] = R"(
HloModule skipped

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

reduce_all {
  x = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(x), to_apply=sum
}

skip {
  x = f32[2] parameter(0)
  ROOT c = f32[2] copy(x)
}

fail {
  x = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(x), custom_call_target="not_a_target"
}

ENTRY e {
  p = pred[] parameter(0)
  x = f32[2] parameter(1)
  ROOT c = f32[2] conditional(p, x, x), true_computation=reduce_all, false_computation=%s
}
)";

std::vector<std::vector<Literal>> PredicateEach(const std::vector<bool>& predicates) {
  std::vector<std::vector<Literal>> arguments;
  for (bool p : predicates) {
    arguments.emplace_back();
    arguments.back().push_back(Literal::CreateR0Pred(p));
    arguments.back().push_back(MakeArray("f32[2]", {1, 2}));
  }
  return arguments;
}

std::string WithFalseBranch(std::string_view branch) {
  std::string hlo(kSkippedOnOneReplica);
  hlo.replace(hlo.find("%s"), 2, branch);
  return hlo;
}

TEST(CollectiveEvaluationTest, MissingReplicaIsDeadlineExceeded) {
  HloEvaluator::Options options;
  options.collective_timeout = std::chrono::milliseconds(200);
  absl::StatusOr<std::vector<Literal>> results =
      EvaluateReplicatedText(WithFalseBranch("skip"), PredicateEach({true, true, false, true}), options);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kDeadlineExceeded) << results.status();
  const std::string message(results.status().message());
  EXPECT_THAT(message, HasSubstr("all-reduce ar"));
  EXPECT_THAT(message, HasSubstr("replica 2 did not reach it"));
}

// Replica 1 fails in its branch; the others, waiting for it at the
// all-reduce, are released at once and the reported error is replica 1's.
TEST(CollectiveEvaluationTest, FailingReplicaReleasesTheOthers) {
  absl::StatusOr<std::vector<Literal>> results =
      EvaluateReplicatedText(WithFalseBranch("fail"), PredicateEach({true, false, true, true}));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kUnimplemented) << results.status();
  const std::string message(results.status().message());
  EXPECT_THAT(message, HasSubstr("replica 1: "));
  EXPECT_THAT(message, HasSubstr("not_a_target"));
}

// A tuple-shaped operand (not several array operands) is not supported.
TEST(CollectiveEvaluationTest, TupleShapedOperandIsUnimplementedAndNamed) {
  constexpr char kHlo[] = R"(
HloModule tuple_operand

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[2] parameter(0)
  q = f32[2] parameter(1)
  t = (f32[2], f32[2]) tuple(p, q)
  ROOT ar = (f32[2], f32[2]) all-reduce(t), to_apply=sum
}
)";
  std::vector<std::vector<Literal>> arguments(2);
  for (std::vector<Literal>& replica : arguments) {
    replica.push_back(MakeArray("f32[2]", {1, 2}));
    replica.push_back(MakeArray("f32[2]", {3, 4}));
  }
  absl::StatusOr<std::vector<Literal>> results = EvaluateReplicatedText(kHlo, arguments);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kUnimplemented) << results.status();
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("all-reduce ar"));
}

TEST(CollectiveEvaluationTest, ArgumentsAreCheckedPerReplica) {
  std::vector<std::vector<Literal>> arguments = OneArrayEach("f32[3]", {{1, 2, 3}, {1, 2, 3}});
  arguments[1][0] = MakeArray("f32[2]", {1, 2});
  absl::StatusOr<std::vector<Literal>> results = EvaluateReplicatedText(kAllReduceSum, arguments);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("replica 1"));
  EXPECT_FALSE(EvaluateReplicatedText(kAllReduceSum, {}).ok());
}

// ---------------------------------------------------------------- SPMD devices
// The tests below run 4 devices of modules with partitions: device d is
// replica d / num_partitions, partition d % num_partitions. Expected values
// are worked out by hand from XLA's group modes (CollectiveParticipants).

// A computation `name` adding two `type` scalars, for to_apply.
std::string AddComputation(std::string_view name, std::string_view type) {
  const std::string scalar = std::string(type) + "[]";
  return std::string(name) + " {\n  x = " + scalar + " parameter(0)\n  y = " + scalar +
         " parameter(1)\n  ROOT s = " + scalar + " add(x, y)\n}\n\n";
}

// One argument list per device of 4: arrays of `shapes`, their values
// values_of(device).
std::vector<std::vector<Literal>> ArraysOfEachDevice(
    const std::vector<std::string_view>& shapes,
    const std::function<std::vector<std::vector<double>>(int)>& values_of) {
  std::vector<std::vector<Literal>> arguments(4);
  for (int d = 0; d < 4; ++d) {
    const std::vector<std::vector<double>> values = values_of(d);
    EXPECT_EQ(values.size(), shapes.size());
    for (size_t i = 0; i < shapes.size() && i < values.size(); ++i)
      arguments[d].push_back(MakeArray(shapes[i], values[i]));
  }
  return arguments;
}

// The replica-id and partition-id of each device, as a tuple, in a module
// on `grid` ("replica_count=R, num_partitions=P").
std::string IdsModule(std::string_view grid) {
  return "HloModule ids, " + std::string(grid) + R"(

ENTRY e {
  r = u32[] replica-id()
  p = u32[] partition-id()
  ROOT t = (u32[], u32[]) tuple(r, p)
}
)";
}

// Each device's replica-id and partition-id: the two elements of its
// IdsModule result, one after the other.
PerDeviceValues IdsOfEach(const std::vector<Literal>& results) {
  PerDeviceValues ids = DoublesOfEach(results, 0);
  for (size_t d = 0; d < ids.size(); ++d) {
    const std::vector<double> partition = DoublesAt(results[d], 1);
    ids[d].insert(ids[d].end(), partition.begin(), partition.end());
  }
  return ids;
}

TEST(CollectiveEvaluationTest, ReplicaAndPartitionIdsOnATwoByTwoGrid) {
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(IdsModule("replica_count=2, num_partitions=2"),
                                                    std::vector<std::vector<Literal>>(4)));
  EXPECT_EQ(IdsOfEach(results), (PerDeviceValues{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
}

// One partition per device: partition-id counts the devices, replica-id is 0.
TEST(CollectiveEvaluationTest, PartitionIdWithOnePartitionPerDevice) {
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(IdsModule("replica_count=1, num_partitions=4"),
                                                    std::vector<std::vector<Literal>>(4)));
  EXPECT_EQ(IdsOfEach(results), (PerDeviceValues{{0, 0}, {0, 1}, {0, 2}, {0, 3}}));
}

TEST(CollectiveEvaluationTest, DevicesMustBeWholeReplicasOfThePartitions) {
  constexpr char kHlo[] = R"(
HloModule ids, replica_count=1, num_partitions=2

ENTRY e {
  ROOT p = u32[] partition-id()
}
)";
  absl::StatusOr<std::vector<Literal>> results =
      EvaluateReplicatedText(kHlo, std::vector<std::vector<Literal>>(3));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument) << results.status();
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("2 partitions"));
}

// Every group mode on a 2x2 grid; device d contributes v_d = 10 (d + 1).
// Devices: 0 = (r0, p0), 1 = (r0, p1), 2 = (r1, p0), 3 = (r1, p1).
//  - cross-replica (no channel_id), groups {{1,0}} of replicas, each
//    partition on its own: p0 gathers [v2, v0], p1 [v3, v1];
//  - cross-replica-and-partition (channel_id, no use_global_device_ids),
//    groups {{1,0}} of replicas with all their partitions: [v2, v3, v0, v1];
//  - flattened ids (use_global_device_ids=true), groups {{3,0},{2,1}} of
//    devices: devices 0, 3 gather [v3, v0], devices 1, 2 [v2, v1];
//  - cross-partition (collective-broadcast with a channel_id), groups
//    {{1,0}} of partitions in each replica: the root is partition 1, so
//    replica 0 gets v1 and replica 1 gets v3;
//  - collective-broadcast without channel_id: groups of replicas, the root
//    is replica 1: partition 0 gets v2, partition 1 gets v3.
TEST(CollectiveEvaluationTest, GroupModesOnATwoByTwoGrid) {
  constexpr char kHlo[] = R"(
HloModule modes, replica_count=2, num_partitions=2

ENTRY e {
  p = f32[1] parameter(0)
  cross_replica = f32[2] all-gather(p), replica_groups={{1,0}}, dimensions={0}
  cross_replica_and_partition = f32[4] all-gather(p), channel_id=1, replica_groups={{1,0}}, dimensions={0}
  flattened = f32[2] all-gather(p), channel_id=2, replica_groups={{3,0},{2,1}}, use_global_device_ids=true,
      dimensions={0}
  cross_partition = f32[1] collective-broadcast(p), channel_id=3, replica_groups={{1,0}}
  broadcast_replicas = f32[1] collective-broadcast(p), replica_groups={{1,0}}
  ROOT t = (f32[2], f32[4], f32[2], f32[1], f32[1]) tuple(cross_replica, cross_replica_and_partition, flattened,
      cross_partition, broadcast_replicas)
}
)";
  HMO_REPLICATED_OK(results,
                    EvaluateReplicatedText(kHlo, OneArrayEach("f32[1]", {{10}, {20}, {30}, {40}})));
  EXPECT_EQ(DoublesOfEach(results, 0), (PerDeviceValues{{30, 10}, {40, 20}, {30, 10}, {40, 20}}));
  for (int d = 0; d < 4; ++d)
    EXPECT_THAT(DoublesAt(results[d], 1), ElementsAre(30, 40, 10, 20)) << "device " << d;
  EXPECT_EQ(DoublesOfEach(results, 2), (PerDeviceValues{{40, 10}, {30, 20}, {30, 20}, {40, 10}}));
  EXPECT_EQ(DoublesOfEach(results, 3), (PerDeviceValues{{20}, {20}, {40}, {40}}));
  EXPECT_EQ(DoublesOfEach(results, 4), (PerDeviceValues{{30}, {40}, {30}, {40}}));
}

// The variadic all-reduce XLA's CPU pipeline emits (combined all-reduces),
// over flattened ids {{0,2},{1,3}} of 4 partitions. Device d holds
// a[i] = 1000 d + i, b[i] = (d + 1) i, c = (d + 1) / 4:
// group {0,2}: a = 2000 + 2i, b = 4i, c = 1; group {1,3}: a = 4000 + 2i,
// b = 6i, c = 1.5.
TEST(CollectiveEvaluationTest, TupleAllReduceReducesEachElement) {
  const std::string hlo = "HloModule tuple_all_reduce, replica_count=1, num_partitions=4\n\n" +
                          AddComputation("add", "f32") + R"(ENTRY e {
  a = f32[16,16] parameter(0)
  b = f32[8,16] parameter(1)
  c = f32[] parameter(2)
  ROOT ar = (f32[16,16], f32[8,16], f32[]) all-reduce(a, b, c), channel_id=2, replica_groups={{0,2},{1,3}},
      use_global_device_ids=true, to_apply=add
}
)";
  const auto arguments = ArraysOfEachDevice({"f32[16,16]", "f32[8,16]", "f32[]"}, [](int d) {
    std::vector<double> a(256), b(128);
    for (int i = 0; i < 256; ++i) a[i] = 1000.0 * d + i;
    for (int i = 0; i < 128; ++i) b[i] = (d + 1.0) * i;
    return std::vector<std::vector<double>>{a, b, {(d + 1) / 4.0}};
  });
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(hlo, arguments));
  for (int d = 0; d < 4; ++d) {
    const bool odd = d % 2 == 1;
    std::vector<double> a(256), b(128);
    for (int i = 0; i < 256; ++i) a[i] = (odd ? 4000 : 2000) + 2.0 * i;
    for (int i = 0; i < 128; ++i) b[i] = (odd ? 6.0 : 4.0) * i;
    ASSERT_EQ(results[d].tuple_elements().size(), 3u);
    EXPECT_EQ(results[d].tuple_elements()[0].shape().ToString(false), "f32[16,16]");
    EXPECT_EQ(DoublesAt(results[d], 0), a) << "device " << d;
    EXPECT_EQ(DoublesAt(results[d], 1), b) << "device " << d;
    EXPECT_THAT(DoublesAt(results[d], 2), ElementsAre(odd ? 1.5 : 1.0)) << "device " << d;
  }
}

// A variadic all-gather over replicas {{1,0},{3,2}}: each operand gathered
// on its own along dimension 0, in rank order.
TEST(CollectiveEvaluationTest, VariadicAllGather) {
  constexpr char kHlo[] = R"(
HloModule variadic_all_gather

ENTRY e {
  p = f32[1] parameter(0)
  q = f32[2,1] parameter(1)
  ROOT ag = (f32[2], f32[4,1]) all-gather(p, q), replica_groups={{1,0},{3,2}}, dimensions={0}
}
)";
  HMO_REPLICATED_OK(
      results, EvaluateReplicatedText(
                   kHlo, ArraysOfEachDevice({"f32[1]", "f32[2,1]"}, [](int d) {
                     return std::vector<std::vector<double>>{{d + 0.5}, {10.0 * d, 10.0 * d + 1}};
                   })));
  EXPECT_EQ(DoublesOfEach(results, 0),
            (PerDeviceValues{{1.5, 0.5}, {1.5, 0.5}, {3.5, 2.5}, {3.5, 2.5}}));
  EXPECT_EQ(DoublesOfEach(results, 1),
            (PerDeviceValues{{10, 11, 0, 1}, {10, 11, 0, 1}, {30, 31, 20, 21}, {30, 31, 20, 21}}));
}

// operand_d[i][j] = 100 d + 10 i + j over flattened ids {{3,1},{2,0}}:
// {3,1} sums to 400 + 20 i + 2 j, of which device 3 (rank 0) keeps rows 0-1
// and device 1 (rank 1) rows 2-3; {2,0} sums to 200 + 20 i + 2 j.
TEST(CollectiveEvaluationTest, ReduceScatterAlongDimensionZeroOverFlattenedIds) {
  const std::string hlo = "HloModule reduce_scatter_rows, replica_count=1, num_partitions=4\n\n" +
                          AddComputation("sum", "s32") + R"(ENTRY e {
  p = s32[4,2] parameter(0)
  ROOT rs = s32[2,2] reduce-scatter(p), channel_id=1, replica_groups={{3,1},{2,0}}, use_global_device_ids=true,
      dimensions={0}, to_apply=sum
}
)";
  const PerDeviceValues values =
      ValuesOfEachDevice(4, 2, [](int d, int i, int j) { return 100 * d + 10 * i + j; });
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(hlo, OneArrayEach("s32[4,2]", values)));
  EXPECT_EQ(
      IntsOfEach(results),
      (std::vector<std::vector<int64_t>>{
          {240, 242, 260, 262}, {440, 442, 460, 462}, {200, 202, 220, 222}, {400, 402, 420, 422}}));
}

// Across 4 partitions (channel_id), x_d[j] = 10 d + j cut into chunks of 2;
// rank r's chunk k is rank k's chunk r: [10k + 2r, 10k + 2r + 1].
TEST(CollectiveEvaluationTest, AllToAllAlongDimensionZero) {
  constexpr char kHlo[] = R"(
HloModule all_to_all_rows, replica_count=1, num_partitions=4

ENTRY e {
  p = f32[8] parameter(0)
  ROOT a2a = f32[8] all-to-all(p), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}
}
)";
  const PerDeviceValues values =
      ValuesOfEachDevice(1, 8, [](int d, int, int j) { return 10 * d + j; });
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneArrayEach("f32[8]", values)));
  EXPECT_EQ(DoublesOfEach(results), (PerDeviceValues{{0, 1, 10, 11, 20, 21, 30, 31},
                                                     {2, 3, 12, 13, 22, 23, 32, 33},
                                                     {4, 5, 14, 15, 24, 25, 34, 35},
                                                     {6, 7, 16, 17, 26, 27, 36, 37}}));
}

// Across 4 replicas in the group {3,2,1,0} (device d has rank 3 - d),
// x_d[i][j] = 100 i + 10 d + j cut into columns: column k of device d is
// column (3 - d) of the device of rank k, 3 - k: 100 i + 10 (3 - k) + 3 - d.
TEST(CollectiveEvaluationTest, AllToAllAlongDimensionOneInRankOrder) {
  constexpr char kHlo[] = R"(
HloModule all_to_all_columns, replica_count=4

ENTRY e {
  p = f32[2,4] parameter(0)
  ROOT a2a = f32[2,4] all-to-all(p), replica_groups={{3,2,1,0}}, dimensions={1}
}
)";
  const PerDeviceValues values =
      ValuesOfEachDevice(2, 4, [](int d, int i, int j) { return 100 * i + 10 * d + j; });
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneArrayEach("f32[2,4]", values)));
  // Device 0: 33, 23, 13, 3, 133, 123, 113, 103; device 3: 30, 20, 10, 0, ...
  EXPECT_EQ(DoublesOfEach(results), ValuesOfEachDevice(2, 4, [](int d, int i, int k) {
              return 100 * i + 10 * (3 - k) + 3 - d;
            }));
}

// The tuple form across the partitions of each replica, groups {{1,0}}:
// partition 1 has rank 0. Device d holds a = [10 d], b = [10 d + 1];
// result k is operand <my rank> of the device of rank k.
TEST(CollectiveEvaluationTest, AllToAllTupleForm) {
  constexpr char kHlo[] = R"(
HloModule all_to_all_tuple, replica_count=2, num_partitions=2

ENTRY e {
  a = f32[1] parameter(0)
  b = f32[1] parameter(1)
  ROOT a2a = (f32[1], f32[1]) all-to-all(a, b), channel_id=1, replica_groups={{1,0}}
}
)";
  HMO_REPLICATED_OK(
      results,
      EvaluateReplicatedText(kHlo, ArraysOfEachDevice({"f32[1]", "f32[1]"}, [](int d) {
                               return std::vector<std::vector<double>>{{10.0 * d}, {10.0 * d + 1}};
                             })));
  // Device 0 (rank 1): operand 1 of device 1, then of device 0; device 1
  // (rank 0): operand 0 of device 1, then of device 0.
  EXPECT_EQ(DoublesOfEach(results, 0), (PerDeviceValues{{11}, {10}, {31}, {30}}));
  EXPECT_EQ(DoublesOfEach(results, 1), (PerDeviceValues{{1}, {0}, {21}, {20}}));
}

// On a 2x2 grid, device d holding [d + 1, 10 (d + 1)]: with a channel_id
// the pairs name partitions (partition 0 -> 1 in each replica), without one
// replicas (replica 1 -> 0 in each partition); the others get zeros.
TEST(CollectiveEvaluationTest, CollectivePermuteWithPartitions) {
  constexpr char kHlo[] = R"(
HloModule permute_partitions, replica_count=2, num_partitions=2

ENTRY e {
  p = f32[2] parameter(0)
  partitions = f32[2] collective-permute(p), channel_id=1, source_target_pairs={{0,1}}
  replicas = f32[2] collective-permute(p), source_target_pairs={{1,0}}
  ROOT t = (f32[2], f32[2]) tuple(partitions, replicas)
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneAndTenTimesEach("f32[2]")));
  EXPECT_EQ(DoublesOfEach(results, 0), (PerDeviceValues{{0, 0}, {1, 10}, {0, 0}, {3, 30}}));
  EXPECT_EQ(DoublesOfEach(results, 1), (PerDeviceValues{{3, 30}, {4, 40}, {0, 0}, {0, 0}}));
}

// The async pairs over 4 partitions, device d holding p = [d + 1, 10 (d + 1)]:
//  - all-reduce-start/done over flattened {{0,1},{2,3}}: [3, 30] and [7, 70];
//  - all-gather-start/done of p's first element over {{3,2},{1,0}} along
//    dimension 0: devices 2, 3 get [[4],[3]], devices 0, 1 [[2],[1]]; the
//    start also carries the operand (element 0);
//  - collective-permute-start/done along the pairs 0 -> 1 -> 2 -> 3:
//    device 0 receives nothing (zeros).
TEST(CollectiveEvaluationTest, AsyncPairs) {
  const std::string hlo = "HloModule async_pairs, replica_count=1, num_partitions=4\n\n" +
                          AddComputation("sum", "f32") + R"(ENTRY e {
  p = f32[2] parameter(0)
  ars = f32[2] all-reduce-start(p), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=sum
  ard = f32[2] all-reduce-done(ars)
  q = f32[1] slice(p), slice={[0:1]}
  q2 = f32[1,1] reshape(q)
  ags = (f32[1,1], f32[2,1]) all-gather-start(q2), channel_id=2, replica_groups={{3,2},{1,0}}, dimensions={0},
      use_global_device_ids=true
  agd = f32[2,1] all-gather-done(ags)
  started = f32[1,1] get-tuple-element(ags), index=0
  cps = (f32[2], f32[2], u32[], u32[]) collective-permute-start(p), channel_id=3,
      source_target_pairs={{0,1},{1,2},{2,3}}
  cpd = f32[2] collective-permute-done(cps)
  ROOT t = (f32[2], f32[2,1], f32[1,1], f32[2]) tuple(ard, agd, started, cpd)
}
)";
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(hlo, OneAndTenTimesEach("f32[2]")));
  EXPECT_EQ(DoublesOfEach(results, 0), (PerDeviceValues{{3, 30}, {3, 30}, {7, 70}, {7, 70}}));
  EXPECT_EQ(DoublesOfEach(results, 1), (PerDeviceValues{{2, 1}, {2, 1}, {4, 3}, {4, 3}}));
  EXPECT_EQ(DoublesOfEach(results, 2), (PerDeviceValues{{1}, {2}, {3}, {4}}));
  EXPECT_EQ(DoublesOfEach(results, 3), (PerDeviceValues{{0, 0}, {1, 10}, {2, 20}, {3, 30}}));
}

// Evaluate runs one device of a partitioned module: partition-id 0 and
// collectives among one device copy their operand.
TEST(CollectiveEvaluationTest, SingleDeviceEvaluateOfAPartitionedModule) {
  constexpr char kHlo[] = R"(
HloModule one_device, replica_count=1, num_partitions=4

ENTRY e {
  p = f32[2] parameter(0)
  id = u32[] partition-id()
  a2a = f32[2] all-to-all(p), channel_id=1, dimensions={0}
  bc = f32[2] collective-broadcast(a2a), channel_id=2
  ROOT t = (u32[], f32[2]) tuple(id, bc)
}
)";
  HMO_EVAL_OK(result, EvaluateText(kHlo, {MakeArray("f32[2]", {5, 7})}));
  EXPECT_THAT(DoublesAt(result, 0), ElementsAre(0));
  EXPECT_THAT(DoublesAt(result, 1), ElementsAre(5, 7));
}

// A device that fails is named with its replica and partition.
TEST(CollectiveEvaluationTest, FailingDeviceIsNamedWithReplicaAndPartition) {
  constexpr char kHlo[] = R"(
HloModule failing, replica_count=2, num_partitions=2

ENTRY e {
  p = f32[2] parameter(0)
  ROOT a2a = f32[2] all-to-all(p), channel_id=1, replica_groups={{0,1}}, dimensions={0}
}
)";
  std::vector<std::vector<Literal>> arguments =
      OneArrayEach("f32[2]", {{1, 2}, {3, 4}, {5, 6}, {7, 8}});
  arguments[3][0] = MakeArray("f32[3]", {1, 2, 3});
  absl::StatusOr<std::vector<Literal>> results = EvaluateReplicatedText(kHlo, arguments);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument) << results.status();
  EXPECT_THAT(std::string(results.status().message()),
              HasSubstr("device 3 (replica 1, partition 1)"));
}

}  // namespace
}  // namespace hmo::eval_test
