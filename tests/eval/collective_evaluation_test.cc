// Collectives in the evaluator: EvaluateReplicated on 4 replicas with
// different arguments (all-reduce, all-gather, reduce-scatter,
// collective-permute, replica-id, a collective in a loop), the one-replica
// Evaluate, and the errors: a replica that never reaches a collective, one
// that fails while the others wait, unsupported forms. Expected values are
// worked out by hand in the comments.

#include <chrono>
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
  EXPECT_THAT(Doubles(results[0]), ElementsAre(4, 6));
  EXPECT_THAT(Doubles(results[1]), ElementsAre(4, 6));
  EXPECT_THAT(Doubles(results[2]), ElementsAre(12, 14));
  EXPECT_THAT(Doubles(results[3]), ElementsAre(12, 14));
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
  HMO_REPLICATED_OK(results,
                    EvaluateReplicatedText(kHlo, OneArrayEach("f32[2,1]", {{1, 10}, {2, 20}, {3, 30}, {4, 40}})));
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
  HMO_REPLICATED_OK(results,
                    EvaluateReplicatedText(kHlo, OneArrayEach("f32[2,1]", {{1, 10}, {2, 20}, {3, 30}, {4, 40}})));
  EXPECT_THAT(Doubles(results[0]), ElementsAre(1, 3, 10, 30));
  EXPECT_THAT(Doubles(results[2]), ElementsAre(1, 3, 10, 30));
  EXPECT_THAT(Doubles(results[1]), ElementsAre(2, 4, 20, 40));
  EXPECT_THAT(Doubles(results[3]), ElementsAre(2, 4, 20, 40));
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
  std::vector<std::vector<double>> values;
  for (int r = 0; r < 4; ++r) {
    values.push_back({});
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 4; ++j) values.back().push_back(100 * i + 10 * j + r);
    }
  }
  HMO_REPLICATED_OK(results, EvaluateReplicatedText(kHlo, OneArrayEach("s32[2,4]", values)));
  EXPECT_THAT(Ints(results[0]), ElementsAre(6, 406));
  EXPECT_THAT(Ints(results[1]), ElementsAre(46, 446));
  EXPECT_THAT(Ints(results[2]), ElementsAre(86, 486));
  EXPECT_THAT(Ints(results[3]), ElementsAre(126, 526));
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
  EXPECT_THAT(Doubles(results[0]), ElementsAre(3, 3.5));
  EXPECT_THAT(Doubles(results[1]), ElementsAre(0, 0.5));
  EXPECT_THAT(Doubles(results[2]), ElementsAre(1, 1.5));
  EXPECT_THAT(Doubles(results[3]), ElementsAre(2, 2.5));
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
  HMO_REPLICATED_OK(results,
                    EvaluateReplicatedText(kHlo, OneArrayEach("f32[2]", {{1, 10}, {2, 20}, {3, 30}, {4, 40}})));
  EXPECT_THAT(Doubles(results[0]), ElementsAre(0, 0));
  EXPECT_THAT(Doubles(results[1]), ElementsAre(3, 30));
  EXPECT_THAT(Doubles(results[2]), ElementsAre(1, 10));
  EXPECT_THAT(Doubles(results[3]), ElementsAre(0, 0));
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
  EXPECT_THAT(Doubles(results[0]), ElementsAre(311));
  EXPECT_THAT(Doubles(results[1]), ElementsAre(312));
  EXPECT_THAT(Doubles(results[2]), ElementsAre(313));
  EXPECT_THAT(Doubles(results[3]), ElementsAre(314));
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

TEST(CollectiveEvaluationTest, TupleAllReduceIsUnimplementedAndNamed) {
  constexpr char kHlo[] = R"(
HloModule tuple_all_reduce

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[2] parameter(0)
  q = f32[2] parameter(1)
  ROOT ar = (f32[2], f32[2]) all-reduce(p, q), to_apply=sum
}
)";
  std::vector<std::vector<Literal>> arguments(2);
  for (std::vector<Literal>& replica : arguments) {
    replica.push_back(MakeArray("f32[2]", {1, 2}));
    replica.push_back(MakeArray("f32[2]", {3, 4}));
  }
  absl::StatusOr<std::vector<Literal>> results = EvaluateReplicatedText(kHlo, arguments);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kUnimplemented);
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

}  // namespace
}  // namespace hmo::eval_test
