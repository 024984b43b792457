// ExecuteModule end to end with a stand-in backend whose executable runs the
// reference evaluator (optionally corrupting one element), so that argument
// building, result files and the check are tested without a code generator.

#include "hmo/execution/module_execution.h"

#include <unistd.h>

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/npy.h"
#include "hmo/execution/random_literals.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

using ::testing::HasSubstr;

class EvaluatingExecutable : public Executable {
 public:
  EvaluatingExecutable(const HloModule& module, bool corrupt) : module_(module), corrupt_(corrupt) {
    stats_.code_bytes = 123;
    stats_.arena_bytes[0] = 4096;
  }
  absl::StatusOr<Literal> Execute(absl::Span<const Literal> arguments,
                                  ExecutionProfile* profile) override {
    absl::StatusOr<Literal> result = HloEvaluator().Evaluate(module_, arguments);
    if (!result.ok() || !corrupt_) return result;
    // One element of the second output, off by one.
    Literal& leaf = (*result->mutable_tuple_elements())[1];
    leaf.SetFromInt64(2, leaf.GetAsInt64(2) + 1);
    if (profile != nullptr) profile->run_seconds = 0.5;
    return result;
  }
  const ExecutableStats& stats() const override { return stats_; }
  const HloModule& module() const { return module_; }

 private:
  const HloModule& module_;
  bool corrupt_;
  ExecutableStats stats_;
};

class EvaluatingBackend : public Backend {
 public:
  explicit EvaluatingBackend(bool corrupt = false) : corrupt_(corrupt) {}
  std::string_view name() const override { return "evaluating"; }
  TargetMemoryModel MemoryModel() const override { return {}; }
  bool CanExecute() const override { return true; }
  absl::StatusOr<std::unique_ptr<Executable>> Compile(const HloModule& module,
                                                      const CompileOptions&) const override {
    return std::unique_ptr<Executable>(new EvaluatingExecutable(module, corrupt_));
  }

 private:
  bool corrupt_;
};

class DescriptionOnlyBackend : public Backend {
 public:
  std::string_view name() const override { return "description"; }
  TargetMemoryModel MemoryModel() const override { return {}; }
};

constexpr char kModule[] = R"(
HloModule two_outputs

ENTRY main {
  a = f32[3] parameter(0)
  b = s32[4] parameter(1)
  w = f32[3] constant({...})
  sum = f32[3] add(a, w)
  twice = s32[4] add(b, b)
  ROOT t = (f32[3], s32[4]) tuple(sum, twice)
}
)";

std::unique_ptr<HloModule> ParseFilled(uint64_t seed) {
  auto module = ParseHloModule(kModule);
  EXPECT_TRUE(module.ok()) << module.status();
  FillElidedConstants(**module, seed);
  return *std::move(module);
}

class ModuleExecutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hmo_module_execution_test." + std::to_string(::getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(ModuleExecutionTest, RandomArgumentsCheckAndResultFiles) {
  std::unique_ptr<HloModule> module = ParseFilled(5);
  std::unique_ptr<HloModule> reference = ParseFilled(5);
  ModuleExecutionOptions options;
  options.seed = 5;
  options.results_dir = dir_ / "results";
  options.reference = reference.get();
  ModuleExecutionReport report;
  ASSERT_TRUE(ExecuteModule(EvaluatingBackend(), *module, options, &report).ok());
  EXPECT_EQ(report.stats.code_bytes, 123);
  EXPECT_EQ(report.stats.arena_bytes.at(0), 4096);
  ASSERT_TRUE(report.comparison.has_value());
  EXPECT_EQ(report.comparison->outputs, 2);
  EXPECT_EQ(report.comparison->max_abs_diff, 0);
  ASSERT_EQ(report.result_files.size(), 2u);
  EXPECT_EQ(report.result_files[0].filename(), "result.0.npy");
  EXPECT_EQ(report.result_files[1].filename(), "result.1.npy");
  absl::StatusOr<Literal> second = ReadNpyFile(report.result_files[1].string());
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, report.result.tuple_elements()[1]);
  // The s32 argument is random in [0, 16); doubled it is even and < 32.
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(second->GetAsInt64(i) % 2, 0);
    EXPECT_LT(second->GetAsInt64(i), 32);
  }
}

TEST_F(ModuleExecutionTest, ReferenceWithOtherConstantsFailsTheCheck) {
  std::unique_ptr<HloModule> module = ParseFilled(5);
  std::unique_ptr<HloModule> reference = ParseFilled(6);
  ModuleExecutionOptions options;
  options.seed = 5;
  options.reference = reference.get();
  ModuleExecutionReport report;
  absl::Status status = ExecuteModule(EvaluatingBackend(), *module, options, &report);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("output {0} f32[3]"));
}

TEST_F(ModuleExecutionTest, AWrongElementIsReportedWithItsOutputAndIndex) {
  std::unique_ptr<HloModule> module = ParseFilled(1);
  std::unique_ptr<HloModule> reference = ParseFilled(1);
  ModuleExecutionOptions options;
  options.seed = 1;
  options.reference = reference.get();
  ModuleExecutionReport report;
  absl::Status status = ExecuteModule(EvaluatingBackend(/*corrupt=*/true), *module, options, &report);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("output {1} s32[4]: 1 of 4 elements differ; first at index {2}"));
  EXPECT_TRUE(report.executed);
  EXPECT_EQ(report.run_seconds, 0.5);  // the backend's own figure
}

TEST_F(ModuleExecutionTest, AFailedCheckWritesNoResultFiles) {
  std::unique_ptr<HloModule> module = ParseFilled(1);
  std::unique_ptr<HloModule> reference = ParseFilled(1);
  ModuleExecutionOptions options;
  options.seed = 1;
  options.reference = reference.get();
  options.results_dir = dir_ / "failed";
  ModuleExecutionReport report;
  absl::Status status =
      ExecuteModule(EvaluatingBackend(/*corrupt=*/true), *module, options, &report);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(report.result_files.empty());
  EXPECT_FALSE(std::filesystem::exists(options.results_dir / "result.0.npy"));
  EXPECT_FALSE(std::filesystem::exists(options.results_dir / "result.npy"));
}

TEST_F(ModuleExecutionTest, ArgumentsFromNpyFiles) {
  const std::string a = (dir_ / "a.npy").string();
  const std::string b = (dir_ / "b.npy").string();
  ASSERT_TRUE(WriteNpyFile(a, Literal::CreateR1FromDoubles(PrimitiveType::F32, {1, 2, 3})).ok());
  // s8 data widens losslessly to the s32 parameter.
  ASSERT_TRUE(WriteNpyFile(b, Literal::CreateR1FromInts(PrimitiveType::S8, {-1, 5, 50, 100})).ok());
  std::unique_ptr<HloModule> module = ParseFilled(0);
  ModuleExecutionOptions options;
  options.input_files = {a, b};
  ModuleExecutionReport report;
  ASSERT_TRUE(ExecuteModule(EvaluatingBackend(), *module, options, &report).ok());
  EXPECT_EQ(report.result.tuple_elements()[1].ToStringWithoutShape(), "{-2, 10, 100, 200}");

  options.input_files = {a};
  absl::Status count = ExecuteModule(EvaluatingBackend(), *module, options, &report);
  ASSERT_FALSE(count.ok());
  EXPECT_THAT(count.message(), HasSubstr("1 input file (" + a + ") given but module 'two_outputs' has 2 entry parameters"));

  options.input_files = {b, a};
  absl::Status shape = ExecuteModule(EvaluatingBackend(), *module, options, &report);
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.message(), HasSubstr(b + ": expected f32[3]"));
  EXPECT_THAT(shape.message(), HasSubstr("parameter 0 'a'"));
}

// Replicas: each gets the arguments of seed + r, its own result files and
// its own comparison; a backend without ExecuteReplicated says it runs one.
class ReplicatedEvaluatingExecutable : public EvaluatingExecutable {
 public:
  using EvaluatingExecutable::EvaluatingExecutable;
  absl::StatusOr<std::vector<Literal>> ExecuteReplicated(const std::vector<std::vector<Literal>>& arguments,
                                                         std::vector<ExecutionProfile>* profiles) override {
    if (profiles != nullptr) profiles->assign(arguments.size(), ExecutionProfile{});
    return HloEvaluator().EvaluateReplicated(module(), arguments);
  }
};

class ReplicatedEvaluatingBackend : public EvaluatingBackend {
 public:
  absl::StatusOr<std::unique_ptr<Executable>> Compile(const HloModule& module,
                                                      const CompileOptions&) const override {
    return std::unique_ptr<Executable>(new ReplicatedEvaluatingExecutable(module, false));
  }
};

TEST_F(ModuleExecutionTest, ReplicasGetTheirOwnSeedsResultsAndChecks) {
  std::unique_ptr<HloModule> module = ParseFilled(5);
  std::unique_ptr<HloModule> reference = ParseFilled(5);
  ModuleExecutionOptions options;
  options.seed = 5;
  options.compile.num_replicas = 3;
  options.results_dir = dir_ / "results";
  options.reference = reference.get();
  ModuleExecutionReport report;
  const absl::Status status = ExecuteModule(ReplicatedEvaluatingBackend(), *module, options, &report);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(report.replica_results.size(), 3u);
  EXPECT_EQ(report.result, report.replica_results[0]);
  EXPECT_NE(report.replica_results[0], report.replica_results[1]);  // seeds 5 and 6
  ASSERT_TRUE(report.comparison.has_value());
  EXPECT_EQ(report.comparison->outputs, 6);
  ASSERT_EQ(report.result_files.size(), 6u);
  EXPECT_EQ(report.result_files[5], dir_ / "results" / "device2" / "result.1.npy");

  ModuleExecutionReport unsupported;
  const absl::Status one = ExecuteModule(EvaluatingBackend(), *module, options, &unsupported);
  EXPECT_EQ(one.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(one.message()), HasSubstr("runs one replica, not 3"));

  // Several devices take their inputs as one directory of device<d>/.
  options.input_files = {"a.npy", "b.npy"};
  const absl::Status files = ExecuteModule(ReplicatedEvaluatingBackend(), *module, options, &unsupported);
  EXPECT_EQ(files.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(files.message()),
              HasSubstr("one directory holding device<d>/input_<i>.npy"));
}

// Devices that time their own runs: the run of all of them takes the
// longest device's time (not the wall time of the call, which copies
// arguments in and results out), warm runs too.
class TimedReplicasExecutable : public EvaluatingExecutable {
 public:
  using EvaluatingExecutable::EvaluatingExecutable;
  absl::StatusOr<std::vector<Literal>> ExecuteReplicated(
      const std::vector<std::vector<Literal>>& arguments,
      std::vector<ExecutionProfile>* profiles) override {
    if (profiles != nullptr) {
      profiles->assign(arguments.size(), ExecutionProfile{});
      for (size_t r = 0; r < arguments.size(); ++r)
        (*profiles)[r].run_seconds = 0.25 * static_cast<double>(1 + (r + 1) % 3);
    }
    return HloEvaluator().EvaluateReplicated(module(), arguments);
  }
};

class TimedReplicasBackend : public EvaluatingBackend {
 public:
  absl::StatusOr<std::unique_ptr<Executable>> Compile(const HloModule& module,
                                                      const CompileOptions&) const override {
    return std::unique_ptr<Executable>(new TimedReplicasExecutable(module, false));
  }
};

TEST_F(ModuleExecutionTest, SeveralDevicesTakeTheLongestDevicesRun) {
  std::unique_ptr<HloModule> module = ParseFilled(5);
  ModuleExecutionOptions options;
  options.compile.num_replicas = 3;
  options.repeat = 3;
  ModuleExecutionReport report;
  const absl::Status status = ExecuteModule(TimedReplicasBackend(), *module, options, &report);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(report.run_seconds, 0.75);  // devices 0.5, 0.75, 0.25
  EXPECT_EQ(report.warm_median_seconds, 0.75);
  EXPECT_EQ(report.warm_runs, 2);

  // A backend whose devices do not time themselves: the wall time of the
  // call, far below the figures above.
  ModuleExecutionReport untimed;
  ASSERT_TRUE(ExecuteModule(ReplicatedEvaluatingBackend(), *module, options, &untimed).ok());
  EXPECT_GT(untimed.run_seconds, 0);
  EXPECT_LT(untimed.run_seconds, 0.25);
}

TEST_F(ModuleExecutionTest, ABackendThatCannotExecuteSaysSo) {
  std::unique_ptr<HloModule> module = ParseFilled(0);
  ModuleExecutionReport report;
  absl::Status status = ExecuteModule(DescriptionOnlyBackend(), *module, {}, &report);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("backend 'description' cannot execute modules"));
  EXPECT_FALSE(report.compiled);
}

}  // namespace
}  // namespace hmo
