// Differential tests against XLA: every corpus program, as a user runs it.
// The dump XLA wrote before its optimizations goes through
// pipelines/cpu-default.yaml, the one it wrote after them through
// pipelines/memory-scheduler.yaml and pipelines/device-default.yaml; each
// result is executed by `hmo run --execute` on XLA's inputs, on the cpu and
// gpu-emulated backends, and every output must match XLA's own .npy output
// (tests/corpus/<program>/output_<i>.npy); so must the after dumps of the
// programs pipelines/rematerialization.yaml and pipelines/fit.yaml fit under
// a share of their device bytes. A mismatch names the output, the first differing index and both
// values.

#include <cctype>
#include <filesystem>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"
#include "jax_corpus.h"
#include "support/hmo_cli_runner.h"
#include "yaml-cpp/yaml.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

struct CorpusRun {
  std::string program;
  std::string dump;      // "before" or "after"
  std::string pipeline;  // a file of pipelines/
  std::string backend;
  // A memory limit, as a percentage of the device arenas the backend
  // allocates for the dump as XLA scheduled it; 0 for none.
  int64_t limit_percent = 0;
};

void PrintTo(const CorpusRun& run, std::ostream* out) {
  *out << run.program << " " << run.dump << " " << run.pipeline << " " << run.backend;
  if (run.limit_percent > 0) *out << " " << run.limit_percent << "%";
}

std::vector<CorpusRun> AllRuns() {
  std::vector<CorpusRun> runs;
  for (const std::string& program : testing::JaxCorpusPrograms()) {
    for (const std::string backend : {"cpu", "gpu-emulated"}) {
      runs.push_back({program, "before", "cpu-default", backend});
      runs.push_back({program, "after", "memory-scheduler", backend});
      runs.push_back({program, "after", "device-default", backend});
    }
  }
  // Rematerialized to 80% of the arenas (the programs that fit it; 85% for
  // the transformer, whose recomputations alone stop at 83%),
  // executed: recomputation must not change a result.
  for (const std::string program : {"batch_norm", "cnn_maxpool", "kv_decode"}) {
    runs.push_back({program, "after", "rematerialization", "cpu", 80});
  }
  runs.push_back({"transformer_adam", "after", "rematerialization", "cpu", 85});
  // Fitted by recomputation and host offload (bench/fit/memory_limits.py: each
  // fits its limit, most with values in host memory), on both backends: the
  // gpu-emulated one runs the host copies on its copy stream.
  for (const std::string backend : {"cpu", "gpu-emulated"}) {
    // The GPU's 256-byte offsets and its arena's constants weigh on a
    // KB-sized program: 90% there.
    runs.push_back({"mlp_sgd", "after", "fit", backend, backend == "cpu" ? 80 : 90});
    runs.push_back({"batch_norm", "after", "fit", backend, 40});
    runs.push_back({"cnn_maxpool", "after", "fit", backend, 60});
    runs.push_back({"transformer_adam", "after", "fit", backend, 80});
    // The scan's stacked residuals and gradients cross to the host a slice
    // per iteration (loop_state_offload.h).
    runs.push_back({"transformer_scan", "after", "fit", backend, 60});
  }
  // 65%: the CPU executable keeps XLA's reduction fusions whole, so the
  // arenas this share is taken of are already smaller; recomputation and
  // offload reach 64% of them.
  runs.push_back({"transformer_adam", "after", "fit", "cpu", 65});
  runs.push_back({"transformer_remat", "after", "fit", "cpu", 70});
  return runs;
}

std::string Name(const CorpusRun& run) {
  std::string name = absl::StrCat(run.program, "_", run.dump, "_", run.pipeline, "_", run.backend);
  if (run.limit_percent > 0) absl::StrAppend(&name, "_", run.limit_percent, "_percent");
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::string RunName(const ::testing::TestParamInfo<CorpusRun>& info) { return Name(info.param); }

class JaxCorpusExecutionTest : public ::testing::TestWithParam<CorpusRun> {};

TEST_P(JaxCorpusExecutionTest, MatchesXla) {
  const CorpusRun& run = GetParam();
  const fs::path dir = testing::JaxCorpusDir() / run.program;
  const fs::path dump = testing::JaxCorpusDump(run.program, run.dump);
  auto module = ParseHloModuleFile(dump.string());
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<std::string> inputs;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    inputs.push_back((dir / ("input_" + std::to_string(i) + ".npy")).string());
  }
  const fs::path results =
      fs::temp_directory_path() / ("hmo_corpus_" + Name(run) + "_" + std::to_string(::getpid()));
  fs::remove_all(results);
  const fs::path pipeline = fs::path(HMO_TEST_DATA_DIR) / ".." / "pipelines" / (run.pipeline + ".yaml");
  std::string limit;
  if (run.limit_percent > 0) {
    // A share of what this backend's executable allocates for the dump.
    const test_support::HmoCliRun stats = test_support::RunHmoCli(
        absl::StrCat("stats --format json --target ", run.backend, " ", dump.string()));
    ASSERT_EQ(stats.exit_code, 0) << stats.err;
    const int64_t arenas = YAML::Load(stats.out)["target"]["device_arena_bytes"].as<int64_t>();
    limit = absl::StrCat(" --memory-limit ", arenas * run.limit_percent / 100);
  }
  const test_support::HmoCliRun hmo = test_support::RunHmoCli(absl::StrCat(
      "run ", pipeline.string(), " ", dump.string(), " --execute --backend ", run.backend,
      " --inputs ", absl::StrJoin(inputs, ","), " --results-dir ", results.string(), limit));
  ASSERT_EQ(hmo.exit_code, 0) << hmo.err;

  testing::ExpectResultsMatchXla(dir, results, entry->root_instruction()->shape(),
                                 /*exact_xla_types=*/false, dump.filename().string());
  fs::remove_all(results);
}

INSTANTIATE_TEST_SUITE_P(Corpus, JaxCorpusExecutionTest, ::testing::ValuesIn(AllRuns()), RunName);

// The plan is what runs: one device figure from the pipeline to the
// executable. Every corpus program, unoptimized through cpu-default, optimized
// through memory-scheduler, and fitted to 80/60/40% of XLA's device bytes:
// the pipeline's `memory-limit:` line, `memory-report [after]`, `hmo stats`
// of the module it wrote and the arenas `--execute` allocates are one number,
// at most the limit. Only a fit limit below the proven floor is refused, and
// nothing runs then.
struct PlanRun {
  std::string program;
  std::string dump;
  std::string pipeline;
  int64_t limit_percent = 0;  // of XLA's device bytes; 0: none
};

void PrintTo(const PlanRun& run, std::ostream* out) {
  *out << run.program << " " << run.dump << " " << run.pipeline << " " << run.limit_percent << "%";
}

std::vector<PlanRun> AllPlanRuns() {
  std::vector<PlanRun> runs;
  for (const std::string& program : testing::JaxCorpusPrograms()) {
    runs.push_back({program, "before", "cpu-default", 0});
    runs.push_back({program, "after", "memory-scheduler", 0});
    for (int64_t percent : {80, 60, 40}) runs.push_back({program, "after", "fit", percent});
  }
  return runs;
}

class JaxCorpusExecutionMemoryPlanTest : public ::testing::TestWithParam<PlanRun> {};

TEST_P(JaxCorpusExecutionMemoryPlanTest, PlannedIsAllocatedAndWithinTheLimit) {
  const PlanRun& run = GetParam();
  const YAML::Node xla = testing::JaxCorpusMemoryAnalysis(run.program);
  const int64_t xla_device = testing::XlaDeviceBytes(xla);
  const int64_t limit =
      run.limit_percent > 0 ? xla_device * run.limit_percent / 100 : int64_t{1} << 40;
  const fs::path dump = testing::JaxCorpusDump(run.program, run.dump);
  const fs::path pipeline =
      fs::path(HMO_TEST_DATA_DIR) / ".." / "pipelines" / (run.pipeline + ".yaml");
  const fs::path out =
      fs::temp_directory_path() / absl::StrCat("hmo_plan_", run.program, "_", run.pipeline, "_",
                                               run.limit_percent, "_", ::getpid(), ".hlo");
  const test_support::HmoCliRun hmo = test_support::RunHmoCli(absl::StrCat(
      "run ", pipeline.string(), " ", dump.string(), " --execute --opt-level 0 --seed 1",
      " --memory-limit ", limit, " -o ", out.string()));
  const std::string text = hmo.out + hmo.err;
  if (hmo.exit_code != 0) {
    // Only a limit below the proven floor is refused, before anything runs
    // (bench/memory_plan/plan_is_what_runs.py lists which): every limit
    // above it fits.
    EXPECT_GT(testing::LastFigure(text, "below the proven floor of (\\d+) B"), limit) << text;
    EXPECT_EQ(text.find("planned arenas"), std::string::npos) << text;
    EXPECT_GT(run.limit_percent, 0) << text;
    return;
  }
  const int64_t limit_line = testing::LastFigure(text, "memory-limit: device ([\\d,]+) B");
  const int64_t report =
      testing::LastFigure(text, "memory-report \\[after\\][^\\n]*\\n\\s+device (\\d+) B on cpu");
  const int64_t allocated = testing::LastFigure(text, "planned arenas: space 0 (\\d+) B");
  const test_support::HmoCliRun stats =
      test_support::RunHmoCli("stats --format json " + out.string());
  fs::remove(out);
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const int64_t stats_arena = YAML::Load(stats.out)["target"]["device_arena_bytes"].as<int64_t>();
  EXPECT_GT(allocated, 0) << text;
  EXPECT_EQ(limit_line, allocated) << text;
  EXPECT_EQ(report, allocated) << text;
  EXPECT_EQ(stats_arena, allocated) << text;
  EXPECT_LE(allocated, limit);
}

std::string PlanRunName(const ::testing::TestParamInfo<PlanRun>& info) {
  std::string name =
      absl::StrCat(info.param.program, "_", info.param.pipeline, "_", info.param.limit_percent);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, JaxCorpusExecutionMemoryPlanTest,
                         ::testing::ValuesIn(AllPlanRuns()), PlanRunName);

}  // namespace
}  // namespace hmo
