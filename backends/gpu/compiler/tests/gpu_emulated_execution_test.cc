// The GPU backend end to end on the host-emulated device (no GPU needed):
// the PTX compilation, thunk plan, arenas, buffer table and stream ordering
// of GpuExecutable run for real, with the kernels compiled for the host.
// Results are compared with the reference evaluator; the emulated copy
// stream runs copies as late as the events allow, so a missing wait fails
// these tests instead of passing by luck.

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "compiler/gpu_backend.h"
#include "compiler/gpu_compiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/random_literals.h"
#include "hmo/text/hlo_parser.h"
#include "support/hmo_cli_runner.h"
#include "support/test_data.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kSeed = 11;

GpuCompileOptions Emulated() {
  GpuCompileOptions options;
  options.device = GpuDeviceKind::kHostEmulation;
  return options;
}

bool HaveLibdevice() { return std::filesystem::exists(DefaultLibdevicePath()); }

// Compiles `module` for the emulated device, runs it on seeded arguments and
// compares with the evaluator. Returns the profile of the run.
ExecutionProfile ExpectEmulatedMatchesEvaluator(HloModule& module) {
  SCOPED_TRACE(module.name());
  FillElidedConstants(module, kSeed);
  const std::vector<Literal> arguments = MakeRandomArguments(module, kSeed);
  ExecutionProfile profile;
  auto executable = CompileForGpu(module, Emulated());
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (!executable.ok()) return profile;
  absl::StatusOr<Literal> actual = (*executable)->Execute(arguments, &profile);
  EXPECT_TRUE(actual.ok()) << actual.status();
  if (!actual.ok()) return profile;
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(module, arguments);
  EXPECT_TRUE(expected.ok()) << expected.status();
  if (!expected.ok()) return profile;
  const absl::Status same = CompareLiterals(*expected, *actual, LiteralComparisonOptions{});
  EXPECT_TRUE(same.ok()) << same;
  return profile;
}

// Every module of the test data file (XLA dumps may hold several).
void ExpectEmulatedMatchesEvaluator(const std::string& test_data) {
  absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> modules =
      ParseHloModules(test_support::ReadTestData(test_data));
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_FALSE(modules->empty());
  for (std::unique_ptr<HloModule>& module : *modules) ExpectEmulatedMatchesEvaluator(*module);
}

TEST(GpuEmulatedExecutionTest, FusionAndElementwiseKernels) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  ExpectEmulatedMatchesEvaluator("gpu/elementwise.hlo");
}

TEST(GpuEmulatedExecutionTest, ConditionalRunsTheSelectedBranch) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  ExpectEmulatedMatchesEvaluator("gpu/conditional_log_exp.hlo");
}

// The real XLA modules of tests/hlo (their origin: tests/hlo/README.md).
class GpuEmulatedModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuEmulatedModelTest, MatchesTheEvaluator) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  ExpectEmulatedMatchesEvaluator("hlo/" + GetParam());
}

std::string ParamName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(RealModules, GpuEmulatedModelTest,
                         ::testing::Values("if_conditional.hlo", "host_offload_jit_f_while_loops.hlo",
                                           "dynamic_update_slice_inplace_bf16.hlo", "graphsage_tf.hlo",
                                           "ssd_mobilenet_tf.hlo"),
                         ParamName);

TEST(GpuEmulatedExecutionTest, WhileLoopStateStaysInPlace) {
  auto module = ParseHloModule(R"(
HloModule loop, is_scheduled=true

condition {
  cp = (s32[], f32[8]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  limit = s32[] constant(5)
  ROOT lt = pred[] compare(ci, limit), direction=LT
}

body {
  bp = (s32[], f32[8]) parameter(0)
  bi = s32[] get-tuple-element(bp), index=0
  bv = f32[8] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  next = s32[] add(bi, one)
  doubled = f32[8] add(bv, bv)
  ROOT bt = (s32[], f32[8]) tuple(next, doubled)
}

ENTRY main {
  v = f32[8] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8]) tuple(zero, v)
  w = (s32[], f32[8]) while(init), condition=condition, body=body
  ROOT r = f32[8] get-tuple-element(w), index=1
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileForGpu(**module, Emulated());
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<Literal> arguments;
  arguments.push_back(Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3, 4, 5, 6, 7, 8}));
  absl::StatusOr<Literal> result = (*executable)->Execute(arguments, nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(result->GetAsDouble(i), 32.0 * (i + 1)) << i;
  // A second run reuses the arenas and must not see the first run's state.
  result = (*executable)->Execute(arguments, nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->GetAsDouble(7), 256.0);
}

// MoveToHost, independent compute, MoveToDevice, a reader: the compute
// stream waits for the offload only when a kernel touches its bytes, so
// the copies overlap the independent kernels. On the emulated device a copy
// runs when it is waited for: its span starts after the independent
// kernels ended, and the result is right only if the waits are there.
// (n stays live to the end, so no kernel reuses the offloaded bytes: a
// kernel writing them would have to wait for the copy first.)
TEST(GpuEmulatedExecutionTest, OffloadCopiesOverlapIndependentCompute) {
  auto module = ParseHloModule(R"(
HloModule offload, is_scheduled=true
ENTRY main {
  x = f32[256] parameter(0)
  n = f32[256] negate(x)
  h = f32[256]{0:S(5)} custom-call(n), custom_call_target="MoveToHost"
  e1 = f32[256] exponential(x)
  e2 = f32[256] multiply(e1, e1)
  d = f32[256] custom-call(h), custom_call_target="MoveToDevice"
  s = f32[256] add(d, e2)
  ROOT a = f32[256] add(s, n)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  const ExecutionProfile profile = ExpectEmulatedMatchesEvaluator(**module);
  ASSERT_FALSE(profile.timeline.empty());
  auto span = [&](const std::string& label) {
    auto it = std::find_if(profile.timeline.begin(), profile.timeline.end(),
                           [&](const ExecutionProfile::StreamSpan& s) { return s.label == label; });
    EXPECT_NE(it, profile.timeline.end()) << label;
    return it == profile.timeline.end() ? ExecutionProfile::StreamSpan{} : *it;
  };
  EXPECT_EQ(span("h").stream, "copy");
  EXPECT_EQ(span("d").stream, "copy");
  EXPECT_EQ(span("e2").stream, "compute");
  // The offload did not hold up the independent kernels.
  EXPECT_GE(span("h").start_seconds, span("e2").end_seconds);
  // ... but the reader of d ran after it.
  EXPECT_GE(span("s").start_seconds, span("d").end_seconds);
  EXPECT_GT(profile.device_peak_bytes, 0);
}

// Dots laid out as GEMMs go to the runtime's BLAS (cuBLAS on a device; the
// same column-major call to OpenBLAS here), smaller or oddly laid out ones
// run their kernels; all must agree with the evaluator.
TEST(GpuEmulatedExecutionTest, LargeDotsAreGemmsSmallOnesKernels) {
  auto module = ParseHloModule(R"(
HloModule dots, is_scheduled=true
ENTRY main {
  a = f32[3,40,24]{2,1,0} parameter(0)
  b = f32[3,48,24]{2,1,0} parameter(1)
  big = f32[3,40,48]{2,1,0} dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  s = f32[4,5]{1,0} parameter(2)
  t = f32[5,3]{1,0} parameter(3)
  small = f32[4,3]{1,0} dot(s, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f64[30,40]{0,1} parameter(4)
  e = f64[40,50]{1,0} parameter(5)
  wide = f64[30,50]{1,0} dot(c, e), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[3,40,48]{2,1,0}, f32[4,3]{1,0}, f64[30,50]{1,0}) tuple(big, small, wide)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileForGpu(**module, Emulated());
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string plan = DescribeThunks((*executable)->plan().entry);
  EXPECT_THAT(plan, HasSubstr("kernel big (gemm f32[3] 40x48x24 rhs^T"));
  EXPECT_THAT(plan, HasSubstr("kernel small (gemm"));  // a GEMM, but below kMinGemmFlops
  EXPECT_THAT(plan, HasSubstr("kernel wide (gemm f64"));  // column-major lhs: a transposed operand
  const ExecutionProfile profile = ExpectEmulatedMatchesEvaluator(**module);
  std::vector<std::string> labels;
  for (const ExecutionProfile::StreamSpan& span : profile.timeline) labels.push_back(span.label);
  EXPECT_THAT(labels, ::testing::Contains("big (gemm)"));
  EXPECT_THAT(labels, ::testing::Contains("wide (gemm)"));
  EXPECT_THAT(labels, ::testing::Contains("small"));
}

TEST(GpuEmulatedBackendTest, IsNamedAndDescribed) {
  GpuBackend backend(GpuDeviceKind::kHostEmulation);
  EXPECT_EQ(backend.name(), "gpu-emulated");
  EXPECT_EQ(backend.BufferAlignment(), 256);
}

// `hmo run --execute --backend gpu-emulated --check` on the real modules:
// the GPU path end to end through the plugin, without a GPU.
class GpuEmulatedCliTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuEmulatedCliTest, ChecksAgainstTheEvaluator) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  const test_support::HmoCliRun run = test_support::RunHmoCli(
      "run --passes=memory-report --execute --backend gpu-emulated --check --seed 5 " +
      std::string(HMO_TEST_DATA_DIR) + "/hlo/" + GetParam());
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("execute: backend gpu-emulated")) << run.out;
  EXPECT_THAT(run.out, HasSubstr("check: ok")) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("device memory: ")) << run.out;
  EXPECT_THAT(run.out, HasSubstr("streams: compute ")) << run.out;
}

INSTANTIATE_TEST_SUITE_P(Modules, GpuEmulatedCliTest,
                         ::testing::Values("if_conditional.hlo", "host_offload_jit_f_while_loops.hlo",
                                           "graphsage_tf.hlo"),
                         ParamName);

}  // namespace
}  // namespace hmo::gpu
