// Replicated execution (GpuExecutable::ExecuteReplicated) on the
// host-emulated device: four replicas, each on its own emulated device and
// host thread, with different arguments; their collectives meet through
// HostCollectiveTransport. The expected values are written out from the
// per-replica arguments, not from another implementation. The CUDA test
// (two devices, NCCL) skips without them.

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gpu/compiler/gpu_compiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/cuda_device_query.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

constexpr int kReplicas = 4;

bool HaveLibdevice() { return std::filesystem::exists(DefaultLibdevicePath()); }

GpuCompileOptions Options(GpuDeviceKind device, int replicas) {
  GpuCompileOptions options;
  options.device = device;
  options.num_replicas = replicas;
  return options;
}

std::unique_ptr<GpuExecutable> CompileEmulated(const std::string& text, int replicas = kReplicas) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<GpuExecutable>> executable =
      CompileForGpu(**module, Options(GpuDeviceKind::kHostEmulation, replicas));
  EXPECT_TRUE(executable.ok()) << executable.status();
  return executable.ok() ? std::move(*executable) : nullptr;
}

absl::Status CompileStatus(const std::string& text, int replicas = kReplicas) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return CompileForGpu(**module, Options(GpuDeviceKind::kHostEmulation, replicas)).status();
}

// An array literal of `executable`'s entry parameter `index`, element i
// (row-major) = value(i).
template <typename F>
Literal Argument(const GpuExecutable& executable, int64_t index, F value) {
  Literal literal(executable.module().entry_computation()->parameter_instruction(index)->shape());
  for (int64_t i = 0; i < literal.element_count(); ++i) literal.SetFromDouble(i, value(i));
  return literal;
}

constexpr char kSum[] = R"(
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

constexpr char kMax[] = R"(
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
)";

TEST(GpuReplicatedExecutionTest, AllReduceSumAndMaxAcrossFourReplicas) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  const std::string text = std::string("HloModule all_reduce, is_scheduled=true\n") + kSum + kMax + R"(
ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[6] parameter(1)
  s = f32[2,3] all-reduce(x), replica_groups={}, to_apply=sum
  m = f32[6] all-reduce(y), replica_groups={{0,1,2,3}}, to_apply=max
  ROOT t = (f32[2,3], f32[6]) tuple(s, m)
}
)";
  std::unique_ptr<GpuExecutable> executable = CompileEmulated(text);
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(executable->num_replicas(), 4);

  // Two runs with different arguments: the second reuses the replicas'
  // devices and transports.
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE(run);
    // x_r[i] = (r + 1) * (i + 1) + run; y_r[i] = (7r + 3i) mod 11 - 5 (the
    // maximum comes from a different replica per element).
    auto x = [run](int r, int64_t i) { return (r + 1.0) * (i + 1.0) + run; };
    auto y = [](int r, int64_t i) { return static_cast<double>((7 * r + 3 * i) % 11) - 5.0; };
    std::vector<std::vector<Literal>> arguments(kReplicas);
    for (int r = 0; r < kReplicas; ++r) {
      arguments[r].push_back(Argument(*executable, 0, [&](int64_t i) { return x(r, i); }));
      arguments[r].push_back(Argument(*executable, 1, [&](int64_t i) { return y(r, i); }));
    }
    std::vector<ExecutionProfile> profiles;
    absl::StatusOr<std::vector<Literal>> results = executable->ExecuteReplicated(arguments, &profiles);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), 4u);
    EXPECT_EQ(profiles.size(), 4u);
    // sum_r (r + 1)(i + 1) + run = 10 (i + 1) + 4 run.
    const double expected_max[6] = {/*i=0: 0,7,14%11=3,21%11=10*/ 5, /*3,10,6,2*/ 5, /*6,2,9,5*/ 4,
                                    /*9,5,1,8*/ 4, /*1,8,4,0*/ 3, /*4,0,7,3*/ 2};
    for (int r = 0; r < kReplicas; ++r) {
      const Literal& sum = (*results)[r].tuple_elements()[0];
      const Literal& max = (*results)[r].tuple_elements()[1];
      for (int64_t i = 0; i < 6; ++i) {
        EXPECT_EQ(sum.GetAsDouble(i), 10.0 * (i + 1) + 4.0 * run) << "replica " << r << " element " << i;
        EXPECT_EQ(max.GetAsDouble(i), expected_max[i]) << "replica " << r << " element " << i;
      }
    }
  }
}

TEST(GpuReplicatedExecutionTest, AllGatherConcatenatesInReplicaOrder) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  std::unique_ptr<GpuExecutable> executable = CompileEmulated(R"(
HloModule all_gather, is_scheduled=true
ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[1,3] parameter(1)
  rows = f32[8,3] all-gather(x), replica_groups={}, dimensions={0}
  columns = f32[1,12] all-gather(y), replica_groups=[1,4]<=[4], dimensions={1}
  ROOT t = (f32[8,3], f32[1,12]) tuple(rows, columns)
}
)");
  ASSERT_NE(executable, nullptr);
  // x_r[i][j] = 10r + 3i + j; y_r[0][j] = 100r - j.
  std::vector<std::vector<Literal>> arguments(kReplicas);
  for (int r = 0; r < kReplicas; ++r) {
    arguments[r].push_back(Argument(*executable, 0, [r](int64_t k) { return 10.0 * r + 3 * (k / 3) + k % 3; }));
    arguments[r].push_back(Argument(*executable, 1, [r](int64_t j) { return 100.0 * r - j; }));
  }
  absl::StatusOr<std::vector<Literal>> results = executable->ExecuteReplicated(arguments, nullptr);
  ASSERT_TRUE(results.ok()) << results.status();
  for (int r = 0; r < kReplicas; ++r) {
    const Literal& rows = (*results)[r].tuple_elements()[0];
    const Literal& columns = (*results)[r].tuple_elements()[1];
    for (int64_t row = 0; row < 8; ++row) {
      for (int64_t j = 0; j < 3; ++j) {
        // Row 2q + i is row i of replica q.
        EXPECT_EQ(rows.GetAsDouble(row * 3 + j), 10.0 * (row / 2) + 3 * (row % 2) + j)
            << "replica " << r << " row " << row << " column " << j;
      }
    }
    for (int64_t c = 0; c < 12; ++c) {
      EXPECT_EQ(columns.GetAsDouble(c), 100.0 * (c / 3) - c % 3) << "replica " << r << " column " << c;
    }
  }
}

TEST(GpuReplicatedExecutionTest, ReduceScatterGivesEachReplicaItsShardOfTheSum) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  std::unique_ptr<GpuExecutable> executable = CompileEmulated(std::string("HloModule reduce_scatter\n") + kSum + R"(
ENTRY main {
  x = f32[8] parameter(0)
  ROOT rs = f32[2] reduce-scatter(x), replica_groups={{0,1,2,3}}, dimensions={0}, to_apply=sum
}
)");
  ASSERT_NE(executable, nullptr);
  // x_q[i] = 100q + i.
  std::vector<std::vector<Literal>> arguments(kReplicas);
  for (int q = 0; q < kReplicas; ++q) {
    arguments[q].push_back(Argument(*executable, 0, [q](int64_t i) { return 100.0 * q + i; }));
  }
  absl::StatusOr<std::vector<Literal>> results = executable->ExecuteReplicated(arguments, nullptr);
  ASSERT_TRUE(results.ok()) << results.status();
  for (int r = 0; r < kReplicas; ++r) {
    // sum_q (100q + 2r + k) = 600 + 4 (2r + k).
    EXPECT_EQ((*results)[r].GetAsDouble(0), 600.0 + 4 * (2 * r)) << "replica " << r;
    EXPECT_EQ((*results)[r].GetAsDouble(1), 600.0 + 4 * (2 * r + 1)) << "replica " << r;
  }
}

TEST(GpuReplicatedExecutionTest, CollectivePermuteRingAndPartialPairs) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  std::unique_ptr<GpuExecutable> executable = CompileEmulated(R"(
HloModule permute, is_scheduled=true
ENTRY main {
  x = f32[5] parameter(0)
  ring = f32[5] collective-permute(x), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  doubled = f32[5] add(x, x)
  partial = f32[5] collective-permute(doubled), source_target_pairs={{0,2},{2,1}}
  ROOT t = (f32[5], f32[5]) tuple(ring, partial)
}
)");
  ASSERT_NE(executable, nullptr);
  // x_r[i] = 10r + i + 1 (never zero).
  auto x = [](int r, int64_t i) { return 10.0 * r + i + 1; };
  std::vector<std::vector<Literal>> arguments(kReplicas);
  for (int r = 0; r < kReplicas; ++r) {
    arguments[r].push_back(Argument(*executable, 0, [&](int64_t i) { return x(r, i); }));
  }
  absl::StatusOr<std::vector<Literal>> results = executable->ExecuteReplicated(arguments, nullptr);
  ASSERT_TRUE(results.ok()) << results.status();
  // partial: replica 2 gets 2 x_0, replica 1 gets 2 x_2, replicas 0 and 3
  // receive nothing: zeros.
  const int partial_source[kReplicas] = {-1, 2, 0, -1};
  for (int r = 0; r < kReplicas; ++r) {
    const Literal& ring = (*results)[r].tuple_elements()[0];
    const Literal& partial = (*results)[r].tuple_elements()[1];
    for (int64_t i = 0; i < 5; ++i) {
      EXPECT_EQ(ring.GetAsDouble(i), x((r + 3) % 4, i)) << "replica " << r << " element " << i;
      const double expected = partial_source[r] < 0 ? 0.0 : 2 * x(partial_source[r], i);
      EXPECT_EQ(partial.GetAsDouble(i), expected) << "replica " << r << " element " << i;
    }
  }
}

TEST(GpuReplicatedExecutionTest, KernelsAndCollectivesInsideAWhileLoop) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  std::unique_ptr<GpuExecutable> executable = CompileEmulated(std::string("HloModule loop\n") + kSum + R"(
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  ar = f32[4] all-reduce(x), replica_groups={}, to_apply=sum
  half = f32[] constant(0.5)
  halves = f32[4] broadcast(half), dimensions={}
  y = f32[4] multiply(ar, halves)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT out = (s32[], f32[4]) tuple(next, y)
}

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY main {
  x = f32[4] parameter(0)
  squared = f32[4] multiply(x, x)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, squared)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT result = f32[4] get-tuple-element(w), index=1
}
)");
  ASSERT_NE(executable, nullptr);
  // x_r[i] = r + i. With S = sum_r x_r^2, the iterations give 0.5 S, then
  // 0.5 * 4 * 0.5 S = S, then 2 S.
  std::vector<std::vector<Literal>> arguments(kReplicas);
  for (int r = 0; r < kReplicas; ++r) {
    arguments[r].push_back(Argument(*executable, 0, [r](int64_t i) { return static_cast<double>(r + i); }));
  }
  absl::StatusOr<std::vector<Literal>> results = executable->ExecuteReplicated(arguments, nullptr);
  ASSERT_TRUE(results.ok()) << results.status();
  for (int r = 0; r < kReplicas; ++r) {
    for (int64_t i = 0; i < 4; ++i) {
      double s = 0;
      for (int q = 0; q < kReplicas; ++q) s += (q + i) * (q + i);
      EXPECT_EQ((*results)[r].GetAsDouble(i), 2 * s) << "replica " << r << " element " << i;
    }
  }
}

// Groupings one NCCL operation cannot express (sub-groups, another rank
// order, a gather along an inner dimension) run in the emulation from the
// collective's plan: replica r holds r + i, so a group's sum is known.
TEST(GpuReplicatedExecutionTest, SubGroupsAndInnerGathersRunInTheEmulation) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  const std::string header = std::string("HloModule groups, is_scheduled=true\n") + kSum;
  auto all_reduce = [&](const std::string& groups) {
    return header + "ENTRY main {\n  x = f32[8] parameter(0)\n  ROOT ar = f32[8] all-reduce(x), replica_groups=" +
           groups + ", to_apply=sum\n}\n";
  };
  struct Case {
    std::string groups;
    std::vector<std::vector<int>> sum_of;  // per replica: the replicas it sums
  };
  for (const Case& c : std::vector<Case>{
           {"{{0,1},{2,3}}", {{0, 1}, {0, 1}, {2, 3}, {2, 3}}},
           {"[2,2]<=[2,2]T(1,0)", {{0, 2}, {1, 3}, {0, 2}, {1, 3}}},
           {"{{1,0,2,3}}", {{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3}}}}) {
    SCOPED_TRACE(c.groups);
    std::unique_ptr<GpuExecutable> executable = CompileEmulated(all_reduce(c.groups));
    ASSERT_NE(executable, nullptr);
    std::vector<std::vector<Literal>> arguments(kReplicas);
    for (int r = 0; r < kReplicas; ++r) {
      arguments[r].push_back(
          Argument(*executable, 0, [r](int64_t i) { return static_cast<double>(r + i); }));
    }
    absl::StatusOr<std::vector<Literal>> results =
        executable->ExecuteReplicated(arguments, nullptr);
    ASSERT_TRUE(results.ok()) << results.status();
    for (int r = 0; r < kReplicas; ++r) {
      for (int64_t i = 0; i < 8; ++i) {
        double sum = 0;
        for (int q : c.sum_of[static_cast<size_t>(r)]) sum += q + i;
        EXPECT_EQ((*results)[r].GetAsDouble(i), sum) << "replica " << r << " element " << i;
      }
    }
  }

  const absl::Status permute = CompileStatus(R"(
HloModule permute, is_scheduled=true
ENTRY main {
  x = f32[8] parameter(0)
  ROOT cp = f32[8] collective-permute(x), source_target_pairs={{0,1},{1,4}}
}
)");
  EXPECT_EQ(permute.code(), absl::StatusCode::kInvalidArgument) << permute;
  EXPECT_THAT(std::string(permute.message()),
              HasSubstr("collective-permute cp: the pair {1,4} names an id past the 4 replicas"));

  // All-gather along a dimension laid out inside another of size > 1:
  // replica r's row k is [r + 3k, r + 3k + 1, r + 3k + 2]; the gathered row
  // k holds every replica's in turn.
  std::unique_ptr<GpuExecutable> inner = CompileEmulated(R"(
HloModule gather, is_scheduled=true
ENTRY main {
  x = f32[2,3] parameter(0)
  ROOT ag = f32[2,12] all-gather(x), replica_groups={}, dimensions={1}
}
)");
  ASSERT_NE(inner, nullptr);
  std::vector<std::vector<Literal>> arguments(kReplicas);
  for (int r = 0; r < kReplicas; ++r) {
    arguments[r].push_back(
        Argument(*inner, 0, [r](int64_t i) { return static_cast<double>(r + i); }));
  }
  absl::StatusOr<std::vector<Literal>> gathered = inner->ExecuteReplicated(arguments, nullptr);
  ASSERT_TRUE(gathered.ok()) << gathered.status();
  for (int64_t k = 0; k < 2; ++k) {
    for (int64_t j = 0; j < 12; ++j) {
      EXPECT_EQ((*gathered)[0].GetAsDouble(k * 12 + j), static_cast<double>(j / 3 + 3 * k + j % 3))
          << "row " << k << " column " << j;
    }
  }
}

TEST(GpuReplicatedExecutionTest, ExecuteAndArgumentListsAreChecked) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  std::unique_ptr<GpuExecutable> executable = CompileEmulated(std::string("HloModule checks\n") + kSum + R"(
ENTRY main {
  x = f32[4] parameter(0)
  ROOT ar = f32[4] all-reduce(x), replica_groups={}, to_apply=sum
}
)");
  ASSERT_NE(executable, nullptr);
  std::vector<Literal> one;
  one.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3, 4}));
  absl::StatusOr<Literal> single = executable->Execute(one, nullptr);
  EXPECT_EQ(single.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(single.status().message()), HasSubstr("ExecuteReplicated"));

  std::vector<std::vector<Literal>> three(3);
  for (auto& arguments : three) arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3, 4}));
  absl::StatusOr<std::vector<Literal>> too_few = executable->ExecuteReplicated(three, nullptr);
  EXPECT_EQ(too_few.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(too_few.status().message()), HasSubstr("3 argument lists given for 4 replicas"));

  std::vector<std::vector<Literal>> wrong(4);
  for (int r = 0; r < 4; ++r) {
    wrong[r].push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, r == 2 ? std::vector<double>{1, 2}
                                                                                : std::vector<double>{1, 2, 3, 4}));
  }
  absl::StatusOr<std::vector<Literal>> bad = executable->ExecuteReplicated(wrong, nullptr);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("replica 2: "));
}

TEST(GpuReplicatedExecutionTest, ReplicaCountComesFromTheModuleWhenAskedTo) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  auto module = ParseHloModule(std::string("HloModule counted, replica_count=3\n") + kSum + R"(
ENTRY main {
  x = f32[6] parameter(0)
  ROOT rs = f32[2] reduce-scatter(x), replica_groups={{0,1,2}}, dimensions={0}, to_apply=sum
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto from_module = CompileForGpu(**module, Options(GpuDeviceKind::kCuda, /*replicas=*/0));
  ASSERT_TRUE(from_module.ok()) << from_module.status();
  EXPECT_EQ((*from_module)->num_replicas(), 3);
  // The default (one replica) keeps the single-device meaning: groups of
  // three name replicas it does not have.
  auto single = CompileForGpu(**module, GpuCompileOptions{});
  EXPECT_EQ(single.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GpuReplicatedExecutionTest, TwoCudaDevicesAllReduceThroughNccl) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  auto module = ParseHloModule(std::string("HloModule cuda_replicas, is_scheduled=true\n") + kSum + R"(
ENTRY main {
  x = f32[6] parameter(0)
  ar = f32[6] all-reduce(x), replica_groups={}, to_apply=sum
  ROOT n = f32[6] negate(ar)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileForGpu(**module, Options(GpuDeviceKind::kCuda, 2));
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<std::vector<Literal>> arguments(2);
  arguments[0].push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3, 4, 5, 6}));
  arguments[1].push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {10, 20, 30, 40, 50, 60}));
  absl::StatusOr<int> devices = CudaDeviceCount();
  if (!devices.ok() || *devices < 2) {
    absl::StatusOr<std::vector<Literal>> results = (*executable)->ExecuteReplicated(arguments, nullptr);
    EXPECT_EQ(results.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(results.status().message()), HasSubstr("2 replicas need 2 CUDA devices"));
    GTEST_SKIP() << "needs 2 CUDA devices; "
                 << (devices.ok() ? std::to_string(*devices) + " present" : std::string(devices.status().message()));
  }
  absl::StatusOr<std::vector<Literal>> results = (*executable)->ExecuteReplicated(arguments, nullptr);
  if (results.status().code() == absl::StatusCode::kUnavailable) {
    GTEST_SKIP() << "NCCL is not available: " << results.status();
  }
  ASSERT_TRUE(results.ok()) << results.status();
  for (int r = 0; r < 2; ++r) {
    for (int64_t i = 0; i < 6; ++i) EXPECT_EQ((*results)[r].GetAsDouble(i), -11.0 * (i + 1)) << r << " " << i;
  }
}

}  // namespace
}  // namespace hmo::gpu
