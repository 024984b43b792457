// The GPU compiler and executable. Compilation (PTX, thunk plan, memory
// plan) needs no GPU and is checked everywhere; execution is checked for
// values when a CUDA device is present, and for the exact UNAVAILABLE
// error when it is not (this machine, CI).

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include "support/test_data.h"
#include "gpu/compiler/gpu_backend.h"
#include "gpu/compiler/gpu_compiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/gpu/cuda_device_query.h"
#include "hmo/text/hlo_parser.h"
#include "support/hmo_cli_runner.h"
#include "support/parsed_module.h"

namespace hmo::gpu {
namespace {

using test_support::ParseTestModule;

using ::testing::HasSubstr;

bool HaveDevice() { return CudaDeviceCount().ok(); }

constexpr char kElementwise[] = R"(
HloModule elementwise, is_scheduled=true

fused {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  sum = f32[4] add(a, b)
  ROOT product = f32[4] multiply(sum, a)
}

ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  f = f32[4] fusion(x, y), kind=kLoop, calls=fused
  ROOT e = f32[4] exponential(f)
}
)";

TEST(GpuExecutableTest, CompilesWithoutADeviceAndRunsOnlyWithOne) {
  if (!std::filesystem::exists(DefaultLibdevicePath())) {
    GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath() << " (exp needs it)";
  }
  auto module = ParseTestModule(kElementwise);
  ASSERT_NE(module, nullptr);
  auto executable = CompileForGpu(*module, GpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  const GpuExecutable& compiled = **executable;
  EXPECT_EQ(compiled.stats().kernel_count, 2);
  EXPECT_EQ(compiled.kernels().kernels.size(), 2u);
  EXPECT_EQ(DescribeThunks(compiled.plan().entry), "kernel f\nkernel e\n");
  // Every placement is 256-byte aligned inside its arena.
  for (const GpuExecutable::Placement& placement : compiled.placements()) {
    EXPECT_EQ(placement.offset % kGpuBufferAlignment, 0);
  }

  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3, -1}));
  arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {0.5, -2, 0, 1}));
  absl::StatusOr<Literal> result = (*executable)->Execute(arguments, nullptr);
  if (!HaveDevice()) {
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(result.status().message()), ::testing::StartsWith("no CUDA device"));
    return;
  }
  ASSERT_TRUE(result.ok()) << result.status();
  // exp((x + y) * x)
  const double expected[] = {std::exp(1.5), std::exp(0.0), std::exp(9.0), std::exp(0.0)};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(result->GetAsDouble(i), expected[i], 1e-5 * expected[i]) << i;
}

TEST(GpuExecutableTest, ConditionalBecomesAHostSideBranchOverKernelSequences) {
  if (!std::filesystem::exists(DefaultLibdevicePath())) {
    GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath() << " (log/exp need it)";
  }
  auto module = ParseTestModule(test_support::ReadTestData("gpu/conditional_log_exp.hlo"));
  ASSERT_NE(module, nullptr);
  auto executable = CompileForGpu(*module, GpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string plan = DescribeThunks((*executable)->plan().entry);
  EXPECT_THAT(plan, HasSubstr("kernel less\n"));
  EXPECT_THAT(plan, HasSubstr("conditional c (2 branches)\n"));
  EXPECT_THAT(plan, HasSubstr("    kernel tl\n"));
  EXPECT_THAT(plan, HasSubstr("    kernel ee\n"));
  // The constant is uploaded once, not a thunk.
  ASSERT_EQ((*executable)->plan().constants.size(), 1u);
  EXPECT_EQ((*executable)->plan().constants[0]->name(), "ten");

  for (const double x : {2.0, 20.0}) {
    std::vector<Literal> arguments;
    arguments.push_back(Literal::CreateR0FromDouble(PrimitiveType::F32, x));
    absl::StatusOr<Literal> result = (*executable)->Execute(arguments, nullptr);
    if (!HaveDevice()) {
      EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
      continue;
    }
    ASSERT_TRUE(result.ok()) << result.status();
    const double expected = x < 10 ? std::log(x) : std::exp(x);
    EXPECT_NEAR(result->GetAsDouble(0), expected, 1e-5 * expected);
  }
}

TEST(GpuExecutableTest, WhileLoopRunsTheBodyUntilTheConditionFails) {
  auto module = ParseTestModule(test_support::ReadTestData("gpu/while_doubling.hlo"));
  ASSERT_NE(module, nullptr);
  auto executable = CompileForGpu(*module, GpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string plan = DescribeThunks((*executable)->plan().entry);
  EXPECT_THAT(plan, HasSubstr("while w\n"));
  EXPECT_THAT(plan, HasSubstr("kernel lt\n"));
  EXPECT_THAT(plan, HasSubstr("kernel doubled\n"));
  if (!HaveDevice()) return;
  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3, 4, 5, 6, 7, 8}));
  absl::StatusOr<Literal> result = (*executable)->Execute(arguments, nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(result->GetAsDouble(i), 32.0 * (i + 1)) << i;
}

TEST(GpuExecutableTest, HostMemorySpaceValuesMoveOnTheCopyStream) {
  auto module = ParseTestModule(R"(
HloModule offload, is_scheduled=true
ENTRY main {
  x = f32[64] parameter(0)
  n = f32[64] negate(x)
  h = f32[64]{0:S(5)} custom-call(n), custom_call_target="MoveToHost"
  d = f32[64] custom-call(h), custom_call_target="MoveToDevice"
  ROOT a = f32[64] add(d, x)
}
)");
  ASSERT_NE(module, nullptr);
  auto executable = CompileForGpu(*module, GpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string plan = DescribeThunks((*executable)->plan().entry);
  EXPECT_THAT(plan, HasSubstr("memory-space-copy h 256 bytes"));
  EXPECT_THAT(plan, HasSubstr("memory-space-copy d 256 bytes"));
  EXPECT_GT((*executable)->stats().arena_bytes.at(5), 0);
  // Allocations of one arena (host: space 5; device: the rest) never overlap.
  const auto& placements = (*executable)->placements();
  const auto& allocations = (*executable)->assignment().Allocations();
  bool saw_host = false;
  for (size_t a = 0; a < placements.size(); ++a) {
    saw_host |= placements[a].arena == 5;
    for (size_t b = a + 1; b < placements.size(); ++b) {
      if ((placements[a].arena == 5) != (placements[b].arena == 5)) continue;
      const bool disjoint = placements[a].offset + allocations[a].size() <= placements[b].offset ||
                            placements[b].offset + allocations[b].size() <= placements[a].offset;
      EXPECT_TRUE(disjoint) << "allocations " << a << " and " << b;
    }
  }
  EXPECT_TRUE(saw_host);
  if (!HaveDevice()) return;
  std::vector<double> values(64);
  for (int i = 0; i < 64; ++i) values[i] = i;
  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, values));
  absl::StatusOr<Literal> result = (*executable)->Execute(arguments, nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(result->GetAsDouble(i), 0.0) << i;
}

TEST(GpuExecutableTest, UnsupportedInstructionIsNamedAtCompileTime) {
  auto module = ParseTestModule(R"(
HloModule custom, is_scheduled=true
ENTRY main {
  a = f32[4,4] parameter(0)
  ROOT d = f32[4,4] custom-call(a), custom_call_target="my_vendor_kernel"
}
)");
  ASSERT_NE(module, nullptr);
  GpuBackend backend;
  auto executable = backend.Compile(*module, CompileOptions{});
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(executable.status().message()), HasSubstr("custom-call instruction d"));
}

TEST(GpuBackendTest, DescribesTheTarget) {
  GpuBackend backend;
  EXPECT_EQ(backend.name(), "gpu");
  const TargetMemoryModel model = backend.MemoryModel();
  EXPECT_EQ(model.target, "gpu");
  EXPECT_EQ(model.assignment.alignment, 256);
  EXPECT_EQ(model.assignment.pointer_size, 8);
  EXPECT_TRUE(model.arenas_hold_constants);
  EXPECT_TRUE(backend.CanExecute());
}

// Runs on every machine: on a device the module runs and checks; without
// one the run fails naming the missing device.
TEST(GpuBackendCliTest, RunExecuteRunsOnADeviceOrNamesItsAbsence) {
  if (!std::filesystem::exists(DefaultLibdevicePath())) {
    GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath() << " (the module uses log/exp)";
  }
  const test_support::HmoCliRun run = test_support::RunHmoCli(
      "run --passes=memory-report --execute --backend gpu --check --seed 1 " +
      std::string(HMO_TEST_DATA_DIR) + "/hlo/if_conditional.hlo");
  if (HaveDevice()) {
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_THAT(run.out + run.err, HasSubstr("check: ok")) << run.out << run.err;
    return;
  }
  EXPECT_NE(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("no CUDA device")) << run.out << run.err;
}

}  // namespace
}  // namespace hmo::gpu
