// The GPU backend end to end on the host-emulated device (no GPU needed):
// the PTX compilation, thunk plan, arenas, buffer table and stream ordering
// of GpuExecutable run for real, with the kernels compiled for the host.
// Results are compared with the reference evaluator; the emulated copy
// stream runs copies as late as the events allow, so a missing wait fails
// these tests instead of passing by luck.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gpu/compiler/gpu_backend.h"
#include "gpu/compiler/gpu_compiler.h"
#include "gmock/gmock.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/gpu/cuda_device_query.h"
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

// Compiles `module` for the emulated device (or as `options` say), runs it
// on seeded arguments and compares with the evaluator. Returns the profile
// of the run.
ExecutionProfile ExpectEmulatedMatchesEvaluator(HloModule& module, const GpuCompileOptions& options = Emulated()) {
  SCOPED_TRACE(module.name());
  FillElidedConstants(module, kSeed);
  const std::vector<Literal> arguments = MakeRandomArguments(module, kSeed);
  ExecutionProfile profile;
  auto executable = CompileForGpu(module, options);
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
void ExpectEmulatedMatchesEvaluator(const std::string& test_data, const GpuCompileOptions& options = Emulated()) {
  absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> modules =
      ParseHloModules(test_support::ReadTestData(test_data));
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_FALSE(modules->empty());
  for (std::unique_ptr<HloModule>& module : *modules) ExpectEmulatedMatchesEvaluator(*module, options);
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

// The same modules on a CUDA device (tests/gpu/run_gpu_checks.sh runs them
// there; they skip elsewhere).
class GpuDeviceModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuDeviceModelTest, MatchesTheEvaluator) {
  if (!CudaDeviceCount().ok()) GTEST_SKIP() << "no CUDA device: " << CudaDeviceCount().status().message();
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  ExpectEmulatedMatchesEvaluator("hlo/" + GetParam(), GpuCompileOptions{});
}

INSTANTIATE_TEST_SUITE_P(RealModules, GpuDeviceModelTest,
                         ::testing::Values("if_conditional.hlo", "host_offload_jit_f_while_loops.hlo",
                                           "dynamic_update_slice_inplace_bf16.hlo", "graphsage_tf.hlo",
                                           "ssd_mobilenet_tf.hlo"),
                         ParamName);

// tests/gpu/while_doubling.hlo compiled for the emulated device (its loop
// doubles its argument five times), and that argument: 1, 2, ..., 8.
struct WhileDoubling {
  std::unique_ptr<HloModule> module;
  std::unique_ptr<Executable> executable;
  std::vector<Literal> arguments;
};

WhileDoubling CompileWhileDoubling() {
  WhileDoubling doubling;
  auto module = ParseHloModule(test_support::ReadTestData("gpu/while_doubling.hlo"));
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return doubling;
  doubling.module = std::move(*module);
  auto executable = CompileForGpu(*doubling.module, Emulated());
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (executable.ok()) doubling.executable = std::move(*executable);
  doubling.arguments.push_back(
      Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3, 4, 5, 6, 7, 8}));
  return doubling;
}

TEST(GpuEmulatedExecutionTest, WhileLoopStateStaysInPlace) {
  WhileDoubling doubling = CompileWhileDoubling();
  ASSERT_NE(doubling.executable, nullptr);
  Executable* executable = doubling.executable.get();
  const std::vector<Literal>& arguments = doubling.arguments;
  absl::StatusOr<Literal> result = executable->Execute(arguments, nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(result->GetAsDouble(i), 32.0 * (i + 1)) << i;
  // A second run reuses the arenas and must not see the first run's state.
  result = executable->Execute(arguments, nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->GetAsDouble(7), 256.0);
}

// The loop runs its body 5 times: a budget of 5 is enough, 4 stops the run
// with the loop named, as the evaluator and the CPU executable do.
TEST(GpuEmulatedExecutionTest, WhileLoopsCountTheirTripsAgainstTheBudget) {
  WhileDoubling doubling = CompileWhileDoubling();
  ASSERT_NE(doubling.executable, nullptr);
  Executable* executable = doubling.executable.get();
  const std::vector<Literal>& arguments = doubling.arguments;
  executable->set_max_loop_trips(5);
  absl::StatusOr<Literal> result = executable->Execute(arguments, nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->GetAsDouble(0), 32.0);
  executable->set_max_loop_trips(4);
  result = executable->Execute(arguments, nullptr);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(result.status().message(),
              HasSubstr("GPU executable: while loop w ran its body 4 times"));
  // The device state is usable again after a refused run.
  executable->set_max_loop_trips(-1);
  result = executable->Execute(arguments, nullptr);
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
// Reading an offloaded value while it is copied is no conflict: the next
// layer (m reads n) runs without waiting for the MoveToHost of n; only the
// reader of the MoveToDevice's result waits (for both copies, in order).
TEST(GpuEmulatedExecutionTest, ReadingTheSourceOfACopyDoesNotWaitForIt) {
  auto module = ParseHloModule(R"(
HloModule offload_read, is_scheduled=true
ENTRY main {
  x = f32[256] parameter(0)
  n = f32[256] negate(x)
  h = f32[256]{0:S(5)} custom-call(n), custom_call_target="MoveToHost"
  m = f32[256] multiply(n, n)
  e = f32[256] exponential(m)
  d = f32[256] custom-call(h), custom_call_target="MoveToDevice"
  s = f32[256] add(d, e)
  ROOT a = f32[256] add(s, n)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  const ExecutionProfile profile = ExpectEmulatedMatchesEvaluator(**module);
  auto span = [&](const std::string& label) {
    auto it = std::find_if(profile.timeline.begin(), profile.timeline.end(),
                           [&](const ExecutionProfile::StreamSpan& s) { return s.label == label; });
    EXPECT_NE(it, profile.timeline.end()) << label;
    return it == profile.timeline.end() ? ExecutionProfile::StreamSpan{} : *it;
  };
  // On the emulated device a copy runs when it is waited for: after m and e
  // (n stays live to the end, so m cannot take over, i.e. write, its bytes).
  EXPECT_GE(span("h").start_seconds, span("e").end_seconds);
  EXPECT_GE(span("s").start_seconds, span("d").end_seconds);
}

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

// Sort and scatter of parameters: their outputs start as copies of the
// operands (prologue copies, thunks before the kernel), then the kernels
// work in place.
TEST(GpuEmulatedExecutionTest, SortAndScatterStartFromCopiesOfTheirOperands) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  auto module = ParseHloModule(R"(
HloModule sort_scatter, is_scheduled=true

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  keys = f32[4,16] parameter(0)
  values = s32[4,16] parameter(1)
  sorted = (f32[4,16], s32[4,16]) sort(keys, values), dimensions={1}, is_stable=true, to_apply=less
  base = f32[10,3] parameter(2)
  indices = s32[5,1] parameter(3)
  updates = f32[5,3] parameter(4)
  scattered = f32[10,3] scatter(base, indices, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT r = ((f32[4,16], s32[4,16]), f32[10,3]) tuple(sorted, scattered)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileForGpu(**module, Emulated());
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string plan = DescribeThunks((*executable)->plan().entry);
  // keys, then values; the scatter may update its operand's buffer in place.
  EXPECT_THAT(plan, HasSubstr("copy sorted 256 bytes [2+0] -> [0+0]\ncopy sorted 256 bytes [3+0] -> [1+0]\n"
                              "kernel sorted\n"));
  ExpectEmulatedMatchesEvaluator(**module);
}

// A loop fusion whose outputs have different dimensions: one grid-stride
// loop per shape in one kernel.
TEST(GpuEmulatedExecutionTest, MultiOutputFusionWithOutputsOfDifferentDimensions) {
  auto module = ParseHloModule(R"(
HloModule multi, is_scheduled=true

fused {
  p = f32[6,5] parameter(0)
  q = f32[3] parameter(1)
  n = f32[6,5] negate(p)
  t = f32[5,6] transpose(p), dimensions={1,0}
  e = f32[3] multiply(q, q)
  ROOT r = (f32[6,5], f32[5,6], f32[3]) tuple(n, t, e)
}

ENTRY main {
  a = f32[6,5] parameter(0)
  b = f32[3] parameter(1)
  ROOT f = (f32[6,5], f32[5,6], f32[3]) fusion(a, b), kind=kLoop, calls=fused
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectEmulatedMatchesEvaluator(**module);
}

// An in-place dynamic-update-slice whose update reads the updated buffer
// at the positions it writes (a dynamic-slice with the same start indices,
// then elementwise: a KV-cache or ring accumulation step) runs as the one
// grid-stride loop; a read at other positions would race with the writes
// and is refused, naming the fusion.
std::string InPlaceAccumulation(const std::string& slice_starts) {
  return absl::StrCat(R"(
HloModule accumulate, is_scheduled=true

fused {
  buf = f32[4,32] parameter(0)
  i = s32[] parameter(1)
  u = f32[1,32] parameter(2)
  zero = s32[] constant(0)
  ds = f32[1,32] dynamic-slice(buf, )",
                      slice_starts, R"(), dynamic_slice_sizes={1,32}
  a = f32[1,32] add(ds, u)
  ROOT dus = f32[4,32] dynamic-update-slice(buf, a, i, zero)
}

ENTRY main {
  p = f32[4,32] parameter(0)
  i = s32[] parameter(1)
  u = f32[1,32] parameter(2)
  c = f32[4,32] negate(p)
  ROOT f = f32[4,32] fusion(c, i, u), kind=kLoop, calls=fused
}
)");
}

TEST(GpuEmulatedExecutionTest, InPlaceUpdateReadingWhereItWrites) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  auto same = ParseHloModule(InPlaceAccumulation("i, zero"));
  ASSERT_TRUE(same.ok()) << same.status();
  ExpectEmulatedMatchesEvaluator(**same);
  auto elsewhere = ParseHloModule(InPlaceAccumulation("zero, zero"));
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status();
  absl::StatusOr<std::unique_ptr<GpuExecutable>> refused = CompileForGpu(**elsewhere, Emulated());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("whose update reads the updated buffer"));
}

TEST(GpuEmulatedBackendTest, IsNamedAndDescribed) {
  GpuBackend backend(GpuDeviceKind::kHostEmulation);
  EXPECT_EQ(backend.name(), "gpu-emulated");
  EXPECT_EQ(backend.MemoryModel().target, "gpu-emulated");
  EXPECT_EQ(backend.MemoryModel().assignment.alignment, 256);
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

// The host-offload pipeline on an MLP forward + backward pass whose
// activations are annotated for pinned host memory (tests/gpu/README.md):
// the memory scheduler (device-memory objective) moves each activation out
// right after its layer and back right before its backward layer, so the
// planned device arena drops by the activations held across the passes;
// the pinned host arena holds them; the moves run on the copy stream.
TEST(GpuEmulatedCliTest, HostOffloadPipelineLowersTheDeviceArena) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  auto planned_device = [](const std::string& out) -> int64_t {
    const std::string key = "planned arenas: space 0 ";
    const size_t at = out.find(key);
    return at == std::string::npos ? -1 : std::stoll(out.substr(at + key.size()));
  };
  const std::string module = std::string(HMO_TEST_DATA_DIR) + "/gpu/mlp_offload.hlo";
  const test_support::HmoCliRun device = test_support::RunHmoCli(
      "run " + std::string(HMO_SOURCE_DIR) + "/pipelines/device-default.yaml --execute --backend gpu-emulated "
      "--check --seed 2 " + module);
  const test_support::HmoCliRun offload = test_support::RunHmoCli(
      "run " + std::string(HMO_SOURCE_DIR) + "/pipelines/host-offload.yaml --execute --backend gpu-emulated "
      "--check --seed 2 " + module);
  ASSERT_EQ(device.exit_code, 0) << device.out << device.err;
  ASSERT_EQ(offload.exit_code, 0) << offload.out << offload.err;
  EXPECT_THAT(offload.out, HasSubstr("check: ok"));
  // Five of the six f32[256,512] activations wait on the host at once.
  EXPECT_THAT(offload.out, HasSubstr(", space 5 2621440 B"));
  // Six moves out, six back, on the copy stream.
  EXPECT_THAT(offload.out, HasSubstr(", copy 12 ops "));
  const int64_t device_bytes = planned_device(device.out);
  const int64_t offload_bytes = planned_device(offload.out);
  ASSERT_GT(device_bytes, 0) << device.out;
  ASSERT_GT(offload_bytes, 0) << offload.out;
  EXPECT_LE(offload_bytes, device_bytes - 5 * 524288 + 2 * 256) << device.out << offload.out;
}

// The bundled host-offload scan with its forward loop cut to 8 iterations
// and to none: the backward loop still reads all 16 offloaded rows, and the
// rows no iteration wrote must read the initial zeros (the host offloader
// keeps them only where the loop provably writes every row).
TEST(GpuEmulatedCliTest, HostOffloadedLoopsOfAnyTripCountMatchTheEvaluator) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  const std::string text = test_support::ReadFileOrFail(
      std::string(HMO_SOURCE_DIR) + "/examples/modules/host_offload_jit_f_while_loops.hlo");
  const std::string bound = "constant.41 = s32[] constant(16)";
  ASSERT_NE(text.find(bound), std::string::npos);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hmo_trip_counts." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (const std::string trips : {"16", "8", "0"}) {
    std::string changed = text;
    changed.replace(changed.find(bound), bound.size(),
                    "constant.41 = s32[] constant(" + trips + ")");
    const std::filesystem::path module = dir / ("scan_" + trips + ".hlo");
    std::ofstream(module) << changed;
    for (const std::string backend : {"cpu", "gpu-emulated"}) {
      const test_support::HmoCliRun run = test_support::RunHmoCli(
          "run " + std::string(HMO_SOURCE_DIR) + "/pipelines/host-offload.yaml --backend " +
          backend + " --check --seed 4 " + module.string());
      EXPECT_EQ(run.exit_code, 0) << trips << " " << backend << run.out << run.err;
      EXPECT_THAT(run.out, HasSubstr("check: ok")) << trips << " " << backend << run.out;
    }
  }
  std::filesystem::remove_all(dir);
}

// `--replicas 4`: four replicas (devices) of a module with an all-reduce
// and an all-gather, each checked against the evaluator's device (seed + d),
// on the emulated GPU and on the CPU.
TEST(GpuEmulatedCliTest, ReplicasRunTogetherAndEachIsChecked) {
  if (!HaveLibdevice()) GTEST_SKIP() << "libdevice not found at " << DefaultLibdevicePath();
  const std::string module = std::string(HMO_TEST_DATA_DIR) + "/gpu/all_reduce_replicas.hlo";
  const test_support::HmoCliRun run = test_support::RunHmoCli(
      "run --passes=memory-report --execute --backend gpu-emulated --replicas 4 --check --seed 3 " + module);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("check: ok (8 outputs"));
  EXPECT_THAT(run.out, HasSubstr("  device 3:\n"));
  const test_support::HmoCliRun cpu = test_support::RunHmoCli(
      "run --passes=memory-report --execute --backend cpu --replicas 4 --check --seed 3 " + module);
  EXPECT_EQ(cpu.exit_code, 0) << cpu.out << cpu.err;
  EXPECT_THAT(cpu.out, HasSubstr("check: ok (8 outputs"));
  EXPECT_THAT(cpu.out, HasSubstr("  device 3:\n"));
}

INSTANTIATE_TEST_SUITE_P(Modules, GpuEmulatedCliTest,
                         ::testing::Values("if_conditional.hlo", "host_offload_jit_f_while_loops.hlo",
                                           "graphsage_tf.hlo"),
                         ParamName);

}  // namespace
}  // namespace hmo::gpu
