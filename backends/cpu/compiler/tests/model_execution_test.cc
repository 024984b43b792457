// The CPU backend on real XLA modules (tests/hlo, see tests/hlo/README.md for
// their origin): compiled and run on the arenas buffer assignment planned,
// then compared with the reference evaluator on the same arguments. Elided
// constants ({...}) are filled from the seed (FillElidedConstants) before
// either runs, so both see the same values.
//
// The library path (CompileForCpu) runs each module as it is; the CLI path
// (`hmo run <pipeline> --check`) runs each shipped pipeline first and checks
// the optimized module against the unoptimized one.

#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cpu/compiler/cpu_backend.h"
#include "cpu/compiler/cpu_compiler.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/random_literals.h"
#include "hmo/text/hlo_parser.h"
#include "support/hmo_cli_runner.h"
#include "support/test_data.h"

namespace hmo::cpu {
namespace {

constexpr uint64_t kSeed = 7;

std::string Data(const std::string& relative) {
  return std::string(HMO_TEST_DATA_DIR) + "/" + relative;
}

std::string Pipeline(const std::string& name) {
  return std::string(HMO_SOURCE_DIR) + "/pipelines/" + name + ".yaml";
}

// Compiles and runs `module` as it is and compares with the evaluator.
void ExpectCompiledMatchesEvaluator(std::unique_ptr<HloModule>* module) {
  SCOPED_TRACE((*module)->name());
  FillElidedConstants(**module, kSeed);
  const std::vector<Literal> arguments = MakeRandomArguments(**module, kSeed);

  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(**module, CpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_GT((*executable)->stats().code_bytes, 0);
  ExecutionProfile profile;
  absl::StatusOr<Literal> actual = (*executable)->Execute(arguments, &profile);
  ASSERT_TRUE(actual.ok()) << actual.status();

  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::Status same = CompareLiterals(*expected, *actual, LiteralComparisonOptions{});
  EXPECT_TRUE(same.ok()) << same;

  // A second run writes into the arenas the first left behind: what they
  // held must not show in the result.
  absl::StatusOr<Literal> again = (*executable)->Execute(arguments, &profile);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *actual) << "a second run on the first run's arenas differs";
}

// The same for every module of `file`.
void ExpectCompiledMatchesEvaluator(const std::string& file) {
  absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> modules =
      ParseHloModulesFile(Data(file));
  ASSERT_TRUE(modules.ok()) << modules.status();
  ASSERT_FALSE(modules->empty());
  for (std::unique_ptr<HloModule>& module : *modules) ExpectCompiledMatchesEvaluator(&module);
}

// A loop whose init repeats one value in two leaves and whose body swaps
// them: wrong without copy-insertion (both leaves would share a buffer).
TEST(CpuModelExecutionTest, SwappingWhileLoopNeedsCopies) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule swap

body {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  a = f32[4] get-tuple-element(p), index=1
  b = f32[4] get-tuple-element(p), index=2
  c2 = f32[] constant(2)
  two = f32[4] broadcast(c2), dimensions={}
  b2 = f32[4] multiply(b, two)
  ROOT t = (s32[], f32[4], f32[4]) tuple(next, b2, a)
}

cond {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY e {
  zero = s32[] constant(0)
  x = f32[] parameter(0)
  bx = f32[4] broadcast(x), dimensions={}
  init = (s32[], f32[4], f32[4]) tuple(zero, bx, bx)
  ROOT w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectCompiledMatchesEvaluator(&*module);
}

// Each new leaf is computed from both old leaves: every copy into place
// must wait for both readers.
TEST(CpuModelExecutionTest, CrossReadingWhileLoopLeaves) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule cross

body {
  p = (s32[], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  a = f32[8] get-tuple-element(p), index=1
  b = f32[8] get-tuple-element(p), index=2
  sum = f32[8] add(a, b)
  product = f32[8] multiply(a, b)
  ROOT t = (s32[], f32[8], f32[8]) tuple(next, sum, product)
}

cond {
  p = (s32[], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(i, four), direction=LT
}

ENTRY e {
  zero = s32[] constant(0)
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  init = (s32[], f32[8], f32[8]) tuple(zero, x, y)
  ROOT w = (s32[], f32[8], f32[8]) while(init), condition=cond, body=body
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectCompiledMatchesEvaluator(&*module);
}

// A scan: each iteration reads a row of the stack and writes it back
// doubled, in place (no per-iteration copy of the stack).
TEST(CpuModelExecutionTest, ScanUpdatesItsStackInPlace) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(test_support::ReadTestData("rewrites/scan_in_place.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectCompiledMatchesEvaluator(&*module);
}

TEST(CpuModelExecutionTest, IfConditional) {
  ExpectCompiledMatchesEvaluator("hlo/if_conditional.hlo");
}

TEST(CpuModelExecutionTest, HostOffloadWhileLoops) {
  ExpectCompiledMatchesEvaluator("hlo/host_offload_jit_f_while_loops.hlo");
}

TEST(CpuModelExecutionTest, DynamicUpdateSliceInPlaceBf16) {
  ExpectCompiledMatchesEvaluator("hlo/dynamic_update_slice_inplace_bf16.hlo");
}

TEST(CpuModelExecutionTest, GraphSage) { ExpectCompiledMatchesEvaluator("hlo/graphsage_tf.hlo"); }

TEST(CpuModelExecutionTest, SsdMobilenet) {
  ExpectCompiledMatchesEvaluator("hlo/ssd_mobilenet_tf.hlo");
}

// `hmo run <pipeline> <module> --check` for every shipped pipeline.
class CpuPipelineCheckTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(CpuPipelineCheckTest, OptimizedModuleMatchesUnoptimized) {
  const auto& [pipeline, module] = GetParam();
  const std::string results =
      (std::filesystem::temp_directory_path() /
       ("hmo_cpu_check_" + pipeline + "_" + std::to_string(::getpid())))
          .string();
  test_support::HmoCliRun run = test_support::RunHmoCli(
      "run " + Pipeline(pipeline) + " " + Data("hlo/" + module) + " --check --seed 3 --results-dir " +
      results);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr("check: ok")) << run.out << run.err;
  EXPECT_TRUE(std::filesystem::exists(results)) << results;
  std::filesystem::remove_all(results);
}

INSTANTIATE_TEST_SUITE_P(
    ShippedPipelines, CpuPipelineCheckTest,
    ::testing::Combine(::testing::Values("cpu-default", "device-default", "host-offload",
                                         "memory-scheduler"),
                       ::testing::Values("if_conditional.hlo", "host_offload_jit_f_while_loops.hlo",
                                         "graphsage_tf.hlo", "ssd_mobilenet_tf.hlo")),
    [](const auto& info) {
      std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

TEST(CpuCliTest, ExecutePrintsPlanAndMeasuredMemory) {
  test_support::HmoCliRun run = test_support::RunHmoCli(
      "run " + Pipeline("cpu-default") + " " + Data("hlo/graphsage_tf.hlo") + " --execute --seed 1");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::HasSubstr("execute: backend cpu, compile "));
  // The arenas hold parameters, outputs and temporaries only (buffer
  // assignment of the scheduled, fused module: its small reductions fused
  // with their producers, so no reduced input is a buffer; XLA's are
  // 57 KiB too); the 23 MB of embedding constants stay in the JIT's
  // read-only data.
  EXPECT_THAT(run.out, ::testing::HasSubstr("planned arenas: space 0 57920 B\n"));
  std::smatch rodata;
  ASSERT_TRUE(std::regex_search(run.out, rodata, std::regex("rodata (\\d+) B"))) << run.out;
  EXPECT_GE(std::stoll(rodata[1].str()), 23022544);
  EXPECT_THAT(run.out, ::testing::HasSubstr("output {} f32[1,121]: "));
  EXPECT_THAT(run.out, ::testing::Not(::testing::HasSubstr("check:")));
}

}  // namespace
}  // namespace hmo::cpu

namespace hmo::cpu {
namespace {

TEST(CpuCliTest, RepeatReportsColdAndWarmMedianRuns) {
  test_support::HmoCliRun run = test_support::RunHmoCli(
      "run --passes=memory-report " + Data("hlo/graphsage_tf.hlo") + " --execute --seed 1 --repeat 5");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  std::smatch runs;
  ASSERT_TRUE(std::regex_search(run.out, runs,
                                std::regex("runs: cold ([0-9.]+) s, warm median ([0-9.]+) s over 4 runs\n")))
      << run.out;
  EXPECT_GT(std::stod(runs[2].str()), 0);
}

TEST(CpuCliTest, RepeatMustBePositive) {
  test_support::HmoCliRun run = test_support::RunHmoCli(
      "run --passes=memory-report " + Data("hlo/graphsage_tf.hlo") + " --execute --repeat 0");
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_THAT(run.err, ::testing::HasSubstr("--repeat must be in [1, 100000], got 0"));
}

TEST(CpuCliTest, ThreadsMustBeInRangeAndGiveTheSameResult) {
  test_support::HmoCliRun zero = test_support::RunHmoCli(
      "run --passes=memory-report " + Data("hlo/graphsage_tf.hlo") + " --execute --threads 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.out << zero.err;
  EXPECT_THAT(zero.err, ::testing::HasSubstr("--threads must be in [1, 1024], got 0"));
  test_support::HmoCliRun one =
      test_support::RunHmoCli("run " + Pipeline("cpu-default") + " " +
                              Data("hlo/graphsage_tf.hlo") + " --execute --seed 1 --threads 1");
  test_support::HmoCliRun four =
      test_support::RunHmoCli("run " + Pipeline("cpu-default") + " " +
                              Data("hlo/graphsage_tf.hlo") + " --execute --seed 1 --threads 4");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(four.exit_code, 0) << four.err;
  const std::regex output("output \\{\\} .*\n");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(one.out, a, output)) << one.out;
  ASSERT_TRUE(std::regex_search(four.out, b, output)) << four.out;
  EXPECT_EQ(a.str(), b.str());
}

TEST(CpuCliTest, KernelsInOrderGiveTheSameResult) {
  test_support::HmoCliRun concurrent =
      test_support::RunHmoCli("run " + Pipeline("cpu-default") + " " +
                              Data("hlo/attention_block.hlo") + " --execute --seed 1");
  test_support::HmoCliRun in_order = test_support::RunHmoCli(
      "run " + Pipeline("cpu-default") + " " + Data("hlo/attention_block.hlo") +
      " --execute --seed 1 --kernels-in-order");
  ASSERT_EQ(concurrent.exit_code, 0) << concurrent.err;
  ASSERT_EQ(in_order.exit_code, 0) << in_order.err;
  const std::regex output("output .*\n");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(concurrent.out, a, output)) << concurrent.out;
  ASSERT_TRUE(std::regex_search(in_order.out, b, output)) << in_order.out;
  EXPECT_EQ(a.str(), b.str());
  // Without --execute the flag would be ignored: refused.
  test_support::HmoCliRun ignored = test_support::RunHmoCli(
      "run --passes=memory-report " + Data("hlo/graphsage_tf.hlo") + " --kernels-in-order");
  EXPECT_EQ(ignored.exit_code, 2) << ignored.out << ignored.err;
  EXPECT_THAT(ignored.err, ::testing::HasSubstr("--kernels-in-order"));
}

}  // namespace
}  // namespace hmo::cpu
