// The pass manager: order, fixed-point groups, analysis invalidation, and the
// instrumentations (verifier, changed check, dumps, timing) as hooks.

#include "hmo/pipeline/pass_manager.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fmt/format.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/shape.h"
#include "hmo/pass/pass_context.h"
#include "hmo/pipeline/changed_check.h"
#include "hmo/pipeline/dump_after_pass.h"
#include "hmo/pipeline/pass_timing.h"
#include "hmo/pipeline/pipeline_text_parser.h"
#include "hmo/pipeline/verify_after_pass.h"
#include "hmo/plugin/plugin_registries.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"

namespace hmo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kModule = R"(
HloModule m

ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  add = f32[4] add(p0, p1)
  ROOT mul = f32[4] multiply(add, p1)
}
)";

int g_analysis_computations = 0;

struct NameLength {
  size_t value = 0;
  static absl::StatusOr<std::unique_ptr<NameLength>> Compute(const HloModule& module,
                                                             AnalysisManager&) {
    ++g_analysis_computations;
    auto result = std::make_unique<NameLength>();
    result->value = module.name().size();
    return result;
  }
};

// A pass defined by a lambda over (module, context, options).
using PassBody = std::function<absl::StatusOr<bool>(HloModule&, PassContext&, const PassOptions&)>;

class LambdaPass : public HloPass {
 public:
  LambdaPass(std::string name, PassBody body, PassOptions options)
      : name_(std::move(name)), body_(std::move(body)), options_(std::move(options)) {}
  std::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override {
    return body_(module, context, options_);
  }

 private:
  std::string name_;
  PassBody body_;
  PassOptions options_;
};

// Records every hook call as text.
class RecordingInstrumentation : public PassInstrumentation {
 public:
  RecordingInstrumentation(std::string tag, std::vector<std::string>& log)
      : tag_(std::move(tag)), log_(log) {}
  absl::Status BeforePipeline(const HloModule& module) override {
    log_.push_back(tag_ + " begin " + module.name());
    return absl::OkStatus();
  }
  absl::Status BeforePass(const PassRunInfo& run, const HloModule&) override {
    log_.push_back(fmt::format("{} before {}#{}@{}", tag_, run.pass_name, run.sequence,
                               run.iteration));
    return absl::OkStatus();
  }
  absl::Status AfterPass(const PassRunInfo& run, const HloModule&, bool changed) override {
    log_.push_back(fmt::format("{} after {}#{} {}", tag_, run.pass_name, run.sequence,
                               changed ? "changed" : "same"));
    return fail_after_ == run.sequence ? absl::AbortedError("hook says stop")
                                       : absl::OkStatus();
  }
  absl::Status AfterPipeline(const HloModule& module) override {
    log_.push_back(tag_ + " end " + module.name());
    return absl::OkStatus();
  }
  int64_t fail_after_ = -1;

 private:
  std::string tag_;
  std::vector<std::string>& log_;
};

class PassManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_analysis_computations = 0;
    auto module = ParseHloModule(kModule);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
    // grow: appends "x" until the name has max-length characters.
    Register("grow", PassOptionSchema().Int("max-length", 4, ""),
             [](HloModule& m, PassContext&, const PassOptions& o) -> absl::StatusOr<bool> {
               if (static_cast<int64_t>(m.name().size()) >= o.GetInt("max-length")) return false;
               m.set_name(m.name() + "x");
               return true;
             });
    Register("always-change", PassOptionSchema(),
             [](HloModule& m, PassContext&, const PassOptions&) -> absl::StatusOr<bool> {
               m.set_name(m.name() + "y");
               return true;
             });
    Register("nothing", PassOptionSchema(),
             [](HloModule&, PassContext&, const PassOptions&) -> absl::StatusOr<bool> {
               return false;
             });
    Register("fail", PassOptionSchema(),
             [](HloModule&, PassContext&, const PassOptions&) -> absl::StatusOr<bool> {
               return absl::InternalError("out of memory, ironically");
             });
    // read-analysis: reads NameLength; records whether it was cached.
    Register("read-analysis", PassOptionSchema(),
             [this](HloModule&, PassContext& c, const PassOptions&) -> absl::StatusOr<bool> {
               cached_on_read_.push_back(c.analyses().IsCached<NameLength>());
               auto length = c.analyses().Get<NameLength>();
               if (!length.ok()) return length.status();
               return false;
             });
    // rename-preserving: changes the module but declares NameLength preserved.
    Register("rename-preserving", PassOptionSchema(),
             [](HloModule& m, PassContext& c, const PassOptions&) -> absl::StatusOr<bool> {
               m.set_name(m.name() + "p");
               c.PreserveAnalysis<NameLength>();
               return true;
             });
    Register("break-shape", PassOptionSchema(),
             [](HloModule& m, PassContext&, const PassOptions&) -> absl::StatusOr<bool> {
               *m.entry_computation()->root_instruction()->mutable_shape() =
                   ShapeUtil::MakeShape(PrimitiveType::F32, {7, 7, 7});
               return true;
             });
    Register("lie-unchanged", PassOptionSchema(),
             [](HloModule& m, PassContext&, const PassOptions&) -> absl::StatusOr<bool> {
               m.set_name(m.name() + "z");
               return false;
             });
  }

  void Register(std::string name, PassOptionSchema schema, PassBody body) {
    PassRegistration registration;
    registration.name = name;
    registration.options = std::move(schema);
    registration.create = [name, body](const PassOptions& options)
        -> absl::StatusOr<std::unique_ptr<HloPass>> {
      return std::make_unique<LambdaPass>(name, body, options);
    };
    ASSERT_TRUE(registries_.passes.Register(std::move(registration), "test").ok());
  }

  ResolvedPipeline Resolve(std::string_view text, VerifyMode verify = VerifyMode::kNever) {
    auto spec = ParsePipelineText(text);
    EXPECT_TRUE(spec.ok()) << spec.status();
    auto resolved = ResolvePipeline(*spec, registries_.passes);
    EXPECT_TRUE(resolved.ok()) << resolved.status();
    resolved->verify = verify;
    return *std::move(resolved);
  }

  static std::vector<std::string> Runs(const PipelineRunSummary& summary) {
    std::vector<std::string> runs;
    for (const PassRunRecord& run : summary.runs) {
      runs.push_back(run.pass + (run.changed ? "+" : "-"));
    }
    return runs;
  }

  PluginRegistries registries_;
  std::unique_ptr<HloModule> module_;
  std::vector<bool> cached_on_read_;
};

TEST_F(PassManagerTest, RunsPassesInOrderAndSummarizesChanges) {
  ResolvedPipeline pipeline = Resolve("nothing,grow{max-length=2},nothing");
  PassManager manager(pipeline, registries_);
  auto summary = manager.Run(*module_);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_THAT(Runs(*summary), ElementsAre("nothing-", "grow+", "nothing-"));
  EXPECT_TRUE(summary->changed);
  EXPECT_EQ(module_->name(), "mx");
}

// A pipeline's memory limit is checked on the module the passes leave: the
// summary carries the check, and a module over the limit fails the run.
TEST_F(PassManagerTest, MemoryLimitIsCheckedAfterThePasses) {
  ResolvedPipeline pipeline = Resolve("nothing");
  auto report = BuildMemoryReport(*module_);
  ASSERT_TRUE(report.ok()) << report.status();
  const int64_t device_bytes = report->stats.PeakEstimateBytes();
  ASSERT_GT(device_bytes, 0);
  pipeline.memory_limit = device_bytes;
  PassManager fits(pipeline, registries_);
  auto summary = fits.Run(*module_);
  ASSERT_TRUE(summary.ok()) << summary.status();
  ASSERT_TRUE(summary->memory_limit.has_value());
  EXPECT_EQ(summary->memory_limit->device_bytes, device_bytes);
  EXPECT_TRUE(summary->memory_limit->fits());

  pipeline.memory_limit = device_bytes - 1;
  PassManager over(pipeline, registries_);
  auto failed = over.Run(*module_);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(failed.status().message(), HasSubstr("does not fit the memory limit"));

  // The manager keeps a reference to its pipeline.
  const ResolvedPipeline no_limit = Resolve("nothing");
  PassManager unlimited(no_limit, registries_);
  auto none = unlimited.Run(*module_);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->memory_limit.has_value());
}

TEST_F(PassManagerTest, FixedPointRepeatsUntilAnIterationChangesNothing) {
  ResolvedPipeline pipeline = Resolve("fixed-point(max-iterations=10){nothing,grow{max-length=4}}");
  PassManager manager(pipeline, registries_);
  auto summary = manager.Run(*module_);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(module_->name(), "mxxx");
  // Three growing iterations, then one in which nothing changed.
  EXPECT_THAT(Runs(*summary), ElementsAre("nothing-", "grow+", "nothing-", "grow+", "nothing-",
                                          "grow+", "nothing-", "grow-"));
  EXPECT_EQ(summary->fixed_point_caps_reached, 0);
}

TEST_F(PassManagerTest, FixedPointStopsAtItsCap) {
  ResolvedPipeline pipeline = Resolve("fixed-point(max-iterations=3){always-change},nothing");
  PassManager manager(pipeline, registries_);
  auto summary = manager.Run(*module_);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(module_->name(), "myyy");
  EXPECT_THAT(Runs(*summary), ElementsAre("always-change+", "always-change+", "always-change+",
                                          "nothing-"));
  EXPECT_EQ(summary->fixed_point_caps_reached, 1);
}

// Nested groups multiply their caps; max-pass-runs bounds the whole run.
TEST_F(PassManagerTest, MaxPassRunsStopsAPipelineThatNeverConverges) {
  ResolvedPipeline pipeline = Resolve("fixed-point{fixed-point{always-change}}");
  pipeline.max_pass_runs = 7;
  PassManager manager(pipeline, registries_);
  auto summary = manager.Run(*module_);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(summary.status().message()),
              HasSubstr("reached max-pass-runs=7 before pass 'always-change'"));
  // Within the bound the same pipeline runs its 25 x 25 iterations.
  pipeline.max_pass_runs = kDefaultMaxPassRuns;
  ASSERT_TRUE(PassManager(pipeline, registries_).Run(*module_).ok());
}

TEST_F(PassManagerTest, NestedFixedPointsConverge) {
  ResolvedPipeline pipeline =
      Resolve("fixed-point{fixed-point{grow{max-length=3}},grow{max-length=5}}");
  PassManager manager(pipeline, registries_);
  auto summary = manager.Run(*module_);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(module_->name(), "mxxxx");
}

TEST_F(PassManagerTest, HooksNestAroundEachPassWithSequenceAndIteration) {
  ResolvedPipeline pipeline = Resolve("nothing,fixed-point{grow{max-length=2}}");
  std::vector<std::string> log;
  RecordingInstrumentation outer("outer", log), inner("inner", log);
  PassManager manager(pipeline, registries_);
  manager.AddInstrumentation(&outer);
  manager.AddInstrumentation(&inner);
  ASSERT_TRUE(manager.Run(*module_).ok());
  EXPECT_THAT(log, ElementsAre("outer begin m", "inner begin m",                        //
                               "outer before nothing#1@0", "inner before nothing#1@0",  //
                               "inner after nothing#1 same", "outer after nothing#1 same",
                               "outer before grow#2@1", "inner before grow#2@1",
                               "inner after grow#2 changed", "outer after grow#2 changed",
                               "outer before grow#3@2", "inner before grow#3@2",
                               "inner after grow#3 same", "outer after grow#3 same",
                               "inner end mx", "outer end mx"));
}

TEST_F(PassManagerTest, AHookErrorStopsThePipeline) {
  ResolvedPipeline pipeline = Resolve("grow{max-length=9},grow{max-length=9},grow{max-length=9}");
  std::vector<std::string> log;
  RecordingInstrumentation hook("h", log);
  hook.fail_after_ = 2;
  PassManager manager(pipeline, registries_);
  manager.AddInstrumentation(&hook);
  auto summary = manager.Run(*module_);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().message(), "hook says stop");
  EXPECT_EQ(module_->name(), "mxx");
}

TEST_F(PassManagerTest, APassErrorNamesThePassAndModule) {
  ResolvedPipeline pipeline = Resolve("nothing,fail,grow");
  PassManager manager(pipeline, registries_);
  auto summary = manager.Run(*module_);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(summary.status().message(), "pass 'fail' failed on module 'm': out of memory, ironically");
  EXPECT_EQ(module_->name(), "m");
}

TEST_F(PassManagerTest, AFactoryMakingAPassOfAnotherNameIsAnError) {
  PassRegistration registration;
  registration.name = "impostor";
  registration.create = [](const PassOptions& options) -> absl::StatusOr<std::unique_ptr<HloPass>> {
    return std::make_unique<LambdaPass>(
        "someone-else",
        [](HloModule&, PassContext&, const PassOptions&) -> absl::StatusOr<bool> { return false; },
        options);
  };
  ASSERT_TRUE(registries_.passes.Register(std::move(registration), "test").ok());
  ResolvedPipeline pipeline = Resolve("impostor");
  PassManager manager(pipeline, registries_);
  auto summary = manager.Run(*module_);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().message(),
            "the factory of pass 'impostor' (plugin 'test') made a pass named 'someone-else'");
}

TEST_F(PassManagerTest, AnalysesAreDroppedAfterAChangeUnlessPreserved) {
  ResolvedPipeline pipeline = Resolve(
      "read-analysis,nothing,read-analysis,rename-preserving,read-analysis,grow{max-length=9},"
      "read-analysis");
  PassManager manager(pipeline, registries_);
  ASSERT_TRUE(manager.Run(*module_).ok());
  // Cached after an unchanged pass and after a change that preserves it;
  // recomputed after a change that does not.
  EXPECT_THAT(cached_on_read_, ElementsAre(false, true, true, false));
  EXPECT_EQ(g_analysis_computations, 2);
}

TEST_F(PassManagerTest, VerifierRunsOnTheInputAndAfterChangedPasses) {
  std::vector<std::string> verified;
  VerifyAfterPassInstrumentation verify(VerifyMode::kChanged, [&](const HloModule& m) {
    verified.push_back(m.name());
    return absl::OkStatus();
  });
  ResolvedPipeline pipeline = Resolve("nothing,grow{max-length=2},nothing");
  PassManager manager(pipeline, registries_);
  manager.AddInstrumentation(&verify);
  ASSERT_TRUE(manager.Run(*module_).ok());
  EXPECT_THAT(verified, ElementsAre("m", "mx"));

  verified.clear();
  VerifyAfterPassInstrumentation always(VerifyMode::kAlways, [&](const HloModule& m) {
    verified.push_back(m.name());
    return absl::OkStatus();
  });
  PassManager always_manager(pipeline, registries_);
  always_manager.AddInstrumentation(&always);
  ASSERT_TRUE(always_manager.Run(*module_).ok());
  EXPECT_EQ(verified.size(), 4u);
}

TEST_F(PassManagerTest, VerifierErrorEndsWithTheBreakingPass) {
  VerifyAfterPassInstrumentation verify(VerifyMode::kChanged,
                                        [](const HloModule& m) { return VerifyHloModule(m); });
  ResolvedPipeline pipeline = Resolve("grow{max-length=2},break-shape,grow{max-length=9}");
  PassManager manager(pipeline, registries_);
  manager.AddInstrumentation(&verify);
  auto summary = manager.Run(*module_);
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(), HasSubstr("module 'mx' failed verification: "));
  EXPECT_THAT(std::string(summary.status().message()),
              ::testing::EndsWith("; after pass break-shape"));
}

TEST_F(PassManagerTest, VerifierRejectsABrokenInputBeforeAnyPass) {
  *module_->entry_computation()->root_instruction()->mutable_shape() =
      ShapeUtil::MakeShape(PrimitiveType::F32, {3});
  VerifyAfterPassInstrumentation verify(VerifyMode::kChanged,
                                        [](const HloModule& m) { return VerifyHloModule(m); });
  ResolvedPipeline pipeline = Resolve("nothing");
  PassManager manager(pipeline, registries_);
  manager.AddInstrumentation(&verify);
  auto summary = manager.Run(*module_);
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(std::string(summary.status().message()), ::testing::EndsWith("; before any pass"));
}

TEST_F(PassManagerTest, ChangedCheckCatchesBothKindsOfMisreport) {
  ChangedCheckInstrumentation check;
  ResolvedPipeline honest = Resolve("nothing,grow{max-length=3},rename-preserving");
  PassManager honest_manager(honest, registries_);
  honest_manager.AddInstrumentation(&check);
  ASSERT_TRUE(honest_manager.Run(*module_).ok());

  ResolvedPipeline hides_change = Resolve("grow{max-length=9},lie-unchanged");
  PassManager hides_manager(hides_change, registries_);
  hides_manager.AddInstrumentation(&check);
  auto hidden = hides_manager.Run(*module_);
  ASSERT_FALSE(hidden.ok());
  EXPECT_EQ(hidden.status().message(),
            "pass 'lie-unchanged' reported changed=false but changed module 'mxpxz'");

  // A pass claiming a change it did not make.
  Register("claim-change", PassOptionSchema(),
           [](HloModule&, PassContext&, const PassOptions&) -> absl::StatusOr<bool> {
             return true;
           });
  ResolvedPipeline claims = Resolve("claim-change");
  PassManager claims_manager(claims, registries_);
  claims_manager.AddInstrumentation(&check);
  auto claimed = claims_manager.Run(*module_);
  ASSERT_FALSE(claimed.ok());
  EXPECT_THAT(claimed.status().message(),
              HasSubstr("pass 'claim-change' reported changed=true but left module"));
}

class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    path_ = std::filesystem::temp_directory_path() /
            fmt::format("hmo_pm_test_{}_{}", getpid(), counter_++);
    std::filesystem::remove_all(path_);
  }
  ~TemporaryDirectory() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

std::vector<std::string> FileNames(const std::filesystem::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(PassManagerTest, DumpsAfterMatchingPassesWithSequenceNumbers) {
  TemporaryDirectory dumps;
  DumpAfterPassInstrumentation dump(dumps.path(), "grow|nothing");
  ResolvedPipeline pipeline = Resolve("nothing,always-change,grow{max-length=9}");
  PassManager manager(pipeline, registries_);
  manager.AddInstrumentation(&dump);
  ASSERT_TRUE(manager.Run(*module_).ok());
  // The module is named after what it is when the dump is written.
  EXPECT_THAT(FileNames(dumps.path()),
              ElementsAre("m.0001.after_nothing.hlo", "myx.0003.after_grow.hlo"));
  std::ifstream file(dumps.path() / "myx.0003.after_grow.hlo");
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(text.str(), module_->ToString());
}

TEST_F(PassManagerTest, DumpRegexMustMatchTheWholeName) {
  TemporaryDirectory dumps;
  DumpAfterPassInstrumentation dump(dumps.path(), "gro");
  ResolvedPipeline pipeline = Resolve("grow{max-length=9}");
  PassManager manager(pipeline, registries_);
  manager.AddInstrumentation(&dump);
  ASSERT_TRUE(manager.Run(*module_).ok());
  EXPECT_TRUE(FileNames(dumps.path()).empty());
}

TEST_F(PassManagerTest, TimingTableHasARowPerPass) {
  PassTimingTable table;
  PassTimingInstrumentation timing(table);
  ResolvedPipeline pipeline = Resolve("nothing,fixed-point{grow{max-length=3}}");
  PassManager manager(pipeline, registries_);
  manager.AddInstrumentation(&timing);
  ASSERT_TRUE(manager.Run(*module_).ok());
  const std::string text = table.Format();
  EXPECT_THAT(text, HasSubstr("pass"));
  EXPECT_THAT(text, ::testing::ContainsRegex("\ngrow +3 +[0-9.]+ +[0-9.]+%\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("\nnothing +1 "));
  EXPECT_THAT(text, ::testing::ContainsRegex("\ntotal +4 +[0-9.]+ +100.0%\n"));
}

}  // namespace
}  // namespace hmo
