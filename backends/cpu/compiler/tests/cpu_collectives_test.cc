// The CPU backend's collectives on a grid of devices (threads of one
// process): every collective form XLA writes, run by CpuExecutable's
// ExecuteReplicated, against the reference evaluator's devices
// (HloEvaluator::EvaluateReplicated), which reads the same participants
// from hmo/ir/collective_attributes.h but moves Literals, not bytes.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "cpu/compiler/cpu_compiler.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/random_literals.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::cpu {
namespace {

using ::testing::HasSubstr;

// `body` is the entry computation's instructions after `p = f32[8,4]
// parameter(0)`; the module has 2 replicas x 2 partitions.
std::string GridModule(const std::string& body) {
  return absl::StrCat(R"(HloModule grid, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

maximum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

ENTRY e {
  p = f32[8,4] parameter(0)
)",
                      body, "\n}\n");
}

// Runs `text` on every device of its 2 x 2 grid, device d's arguments from
// seed d, and compares each device's result with the evaluator's.
void ExpectDevicesMatchTheEvaluator(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::vector<Literal>> arguments;
  for (uint64_t d = 0; d < 4; ++d) arguments.push_back(MakeRandomArguments(**module, d));
  CpuCompileOptions options;
  options.num_replicas = 2;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->grid().device_count(), 4);
  absl::StatusOr<std::vector<Literal>> actual =
      (*executable)->ExecuteReplicated(arguments, nullptr);
  ASSERT_TRUE(actual.ok()) << actual.status();
  absl::StatusOr<std::vector<Literal>> expected =
      HloEvaluator().EvaluateReplicated(**module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_EQ(actual->size(), 4u);
  for (size_t d = 0; d < 4; ++d) {
    const absl::Status same =
        CompareLiterals((*expected)[d], (*actual)[d], LiteralComparisonOptions{});
    EXPECT_TRUE(same.ok()) << "device " << d << ": " << same;
  }
}

TEST(CpuCollectivesTest, AllReduceInEveryGroupMode) {
  ExpectDevicesMatchTheEvaluator(GridModule(R"(
  cross_replica = f32[8,4] all-reduce(p), replica_groups={{0,1}}, to_apply=add
  replica_and_partition = f32[8,4] all-reduce(p), channel_id=1, replica_groups={{0},{1}}, to_apply=maximum
  flattened = f32[8,4] all-reduce(p), channel_id=2, replica_groups={{0,3},{1,2}}, use_global_device_ids=true, to_apply=add
  ROOT t = (f32[8,4], f32[8,4], f32[8,4]) tuple(cross_replica, replica_and_partition, flattened))"));
}

TEST(CpuCollectivesTest, VariadicAllReduce) {
  ExpectDevicesMatchTheEvaluator(GridModule(R"(
  n = f32[8,4] negate(p)
  ROOT r = (f32[8,4], f32[8,4]) all-reduce(p, n), channel_id=1, replica_groups=[2,2]<=[4], use_global_device_ids=true, to_apply=add)"));
}

TEST(CpuCollectivesTest, AllGatherAndReduceScatterAlongEachDimension) {
  ExpectDevicesMatchTheEvaluator(GridModule(R"(
  g0 = f32[16,4] all-gather(p), channel_id=1, replica_groups={{0,2},{1,3}}, dimensions={0}, use_global_device_ids=true
  g1 = f32[8,8] all-gather(p), channel_id=2, replica_groups={{0,1},{2,3}}, dimensions={1}, use_global_device_ids=true
  s0 = f32[4,4] reduce-scatter(p), channel_id=3, replica_groups={{1,0},{3,2}}, dimensions={0}, use_global_device_ids=true, to_apply=add
  s1 = f32[8,2] reduce-scatter(p), channel_id=4, replica_groups={{0,2},{1,3}}, dimensions={1}, use_global_device_ids=true, to_apply=add
  ROOT t = (f32[16,4], f32[8,8], f32[4,4], f32[8,2]) tuple(g0, g1, s0, s1))"));
}

TEST(CpuCollectivesTest, AllGatherUnderAColumnMajorLayout) {
  ExpectDevicesMatchTheEvaluator(GridModule(R"(
  c = f32[8,4]{0,1} copy(p)
  g = f32[8,8]{0,1} all-gather(c), channel_id=1, replica_groups={{0,1},{2,3}}, dimensions={1}, use_global_device_ids=true
  ROOT r = f32[8,8] copy(g))"));
}

TEST(CpuCollectivesTest, AllToAllArrayAndTupleForms) {
  ExpectDevicesMatchTheEvaluator(GridModule(R"(
  a0 = f32[8,4] all-to-all(p), channel_id=1, replica_groups={{1,0}}, dimensions={0}
  a1 = f32[8,4] all-to-all(p), channel_id=2, replica_groups={{0,1}}, dimensions={1}
  n = f32[8,4] negate(p)
  tuple_form = (f32[8,4], f32[8,4]) all-to-all(p, n), channel_id=3, replica_groups={{0,1}}
  t0 = f32[8,4] get-tuple-element(tuple_form), index=0
  t1 = f32[8,4] get-tuple-element(tuple_form), index=1
  ROOT t = (f32[8,4], f32[8,4], f32[8,4], f32[8,4]) tuple(a0, a1, t0, t1))"));
}

TEST(CpuCollectivesTest, PermuteBroadcastAndIds) {
  ExpectDevicesMatchTheEvaluator(GridModule(R"(
  ring = f32[8,4] collective-permute(p), channel_id=1, source_target_pairs={{0,1},{1,0}}
  across_replicas = f32[8,4] collective-permute(p), source_target_pairs={{1,0}}
  b = f32[8,4] collective-broadcast(p), channel_id=2, replica_groups={{1,0}}
  r = u32[] replica-id()
  q = u32[] partition-id()
  ROOT t = (f32[8,4], f32[8,4], f32[8,4], u32[], u32[]) tuple(ring, across_replicas, b, r, q))"));
}

TEST(CpuCollectivesTest, AsyncStartDonePairs) {
  ExpectDevicesMatchTheEvaluator(GridModule(R"(
  ars = f32[8,4] all-reduce-start(p), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ard = f32[8,4] all-reduce-done(ars)
  ags = (f32[8,4], f32[16,4]) all-gather-start(p), channel_id=2, replica_groups={{0,1},{2,3}}, dimensions={0}, use_global_device_ids=true
  agd = f32[16,4] all-gather-done(ags)
  cps = (f32[8,4], f32[8,4], u32[], u32[]) collective-permute-start(p), channel_id=3, source_target_pairs={{0,1},{1,0}}
  cpd = f32[8,4] collective-permute-done(cps)
  ROOT t = (f32[8,4], f32[16,4], f32[8,4]) tuple(ard, agd, cpd))"));
}

// A collective inside a loop meets the same occurrence on every device.
TEST(CpuCollectivesTest, CollectiveInALoop) {
  ExpectDevicesMatchTheEvaluator(R"(HloModule loop, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  s = (s32[], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8,4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  r = f32[8,4] all-reduce(x), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=add
  ROOT t = (s32[], f32[8,4]) tuple(j, r)
}

ENTRY e {
  p = f32[8,4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8,4]) tuple(zero, p)
  w = (s32[], f32[8,4]) while(init), condition=cond, body=body
  ROOT out = f32[8,4] get-tuple-element(w), index=1
}
)");
}

// A device that fails (here: its loop runs out of its trip budget) does not
// leave its peers waiting at a collective it will never reach for the
// deadline: they are aborted at once, and the run reports the device's own
// error. Partition 1 loops 12 times, partition 0 twice, each loop's
// all-reduce within one partition; all four devices then meet at `final`.
TEST(CpuCollectivesTest, AFailedDeviceReleasesItsPeers) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(R"(HloModule uneven, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  q = u32[] partition-id()
  t = s32[] convert(q)
  ten = s32[] constant(10)
  two = s32[] constant(2)
  m = s32[] multiply(t, ten)
  n = s32[] add(m, two)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  r = f32[8] all-reduce(x), channel_id=1, replica_groups={{0,2},{1,3}}, use_global_device_ids=true, to_apply=add
  ROOT t = (s32[], f32[8]) tuple(j, r)
}

ENTRY e {
  p = f32[8] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8]) tuple(zero, p)
  w = (s32[], f32[8]) while(init), condition=cond, body=body
  x = f32[8] get-tuple-element(w), index=1
  ROOT final = f32[8] all-reduce(x), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  CpuCompileOptions options;
  options.num_replicas = 2;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  (*executable)->set_max_loop_trips(5);
  std::vector<std::vector<Literal>> arguments;
  for (uint64_t d = 0; d < 4; ++d) arguments.push_back(MakeRandomArguments(**module, d));
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Literal>> results =
      (*executable)->ExecuteReplicated(arguments, nullptr);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(results.ok());
  EXPECT_THAT(results.status().message(), HasSubstr("while loop w")) << results.status();
  // Far below the collectives' deadline (a minute).
  EXPECT_LT(seconds, 20.0);
}

// An executable of four devices runs them together: Execute alone, or
// another number of argument lists, is refused naming the grid.
TEST(CpuCollectivesTest, DeviceCountMustMatchTheGrid) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      GridModule("  ROOT r = f32[8,4] all-reduce(p), replica_groups={{0,1}}, to_apply=add"));
  ASSERT_TRUE(module.ok()) << module.status();
  CpuCompileOptions options;
  options.num_replicas = 2;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::vector<Literal> arguments = MakeRandomArguments(**module, 1);
  absl::StatusOr<Literal> one = (*executable)->Execute(arguments, nullptr);
  ASSERT_FALSE(one.ok());
  EXPECT_THAT(one.status().message(),
              HasSubstr("compiled for 4 devices (2 replicas x 2 partitions)"));
  absl::StatusOr<std::vector<Literal>> two =
      (*executable)->ExecuteReplicated({arguments, arguments}, nullptr);
  ASSERT_FALSE(two.ok());
  EXPECT_THAT(two.status().message(), HasSubstr("got 2 argument lists"));
}

}  // namespace
}  // namespace hmo::cpu
