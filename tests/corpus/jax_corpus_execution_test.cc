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
#include "hmo/analysis/memory_report.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/npy.h"
#include "hmo/text/hlo_parser.h"
#include "jax_corpus.h"
#include "support/hmo_cli_runner.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

struct CorpusRun {
  std::string program;
  std::string dump;      // "before" or "after"
  std::string pipeline;  // a file of pipelines/
  std::string backend;
  // A memory limit, as a percentage of the device bytes of the dump as XLA
  // scheduled it; 0 for none.
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
  // Rematerialized to 80% of XLA's device bytes (the programs that fit it),
  // executed: recomputation must not change a result.
  for (const std::string program : {"batch_norm", "cnn_maxpool", "kv_decode", "transformer_adam"}) {
    runs.push_back({program, "after", "rematerialization", "cpu", 80});
  }
  // Fitted by recomputation and host offload (bench/fit/memory_limits.py: each
  // fits its limit, most with values in host memory), on both backends: the
  // gpu-emulated one runs the host copies on its copy stream.
  for (const std::string backend : {"cpu", "gpu-emulated"}) {
    runs.push_back({"mlp_sgd", "after", "fit", backend, 80});
    runs.push_back({"batch_norm", "after", "fit", backend, 40});
    runs.push_back({"cnn_maxpool", "after", "fit", backend, 60});
    runs.push_back({"transformer_adam", "after", "fit", backend, 80});
    // The scan's stacked residuals and gradients cross to the host a slice
    // per iteration (loop_state_offload.h).
    runs.push_back({"transformer_scan", "after", "fit", backend, 60});
  }
  runs.push_back({"transformer_adam", "after", "fit", "cpu", 60});
  runs.push_back({"transformer_remat", "after", "fit", "cpu", 60});
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
    auto report = BuildMemoryReport(**module);
    ASSERT_TRUE(report.ok()) << report.status();
    limit = absl::StrCat(" --memory-limit ",
                         report->stats.PeakEstimateBytes() * run.limit_percent / 100);
  }
  const test_support::HmoCliRun hmo = test_support::RunHmoCli(absl::StrCat(
      "run ", pipeline.string(), " ", dump.string(), " --execute --backend ", run.backend,
      " --inputs ", absl::StrJoin(inputs, ","), " --results-dir ", results.string(), limit));
  ASSERT_EQ(hmo.exit_code, 0) << hmo.err;

  const std::vector<ShapeUtil::IndexedShape> leaves = ShapeUtil::GetLeafShapes(entry->root_instruction()->shape());
  const bool tuple = entry->root_instruction()->shape().IsTuple();
  for (size_t i = 0; i < leaves.size(); ++i) {
    auto expected = ReadNpyFileAs((dir / ("output_" + std::to_string(i) + ".npy")).string(), leaves[i].shape);
    ASSERT_TRUE(expected.ok()) << expected.status();
    std::string name = "result";
    for (int64_t k : leaves[i].index) name += "." + std::to_string(k);
    const fs::path produced = results / (tuple ? name + ".npy" : "result.npy");
    auto actual = ReadNpyFileAs(produced.string(), leaves[i].shape);
    ASSERT_TRUE(actual.ok()) << actual.status();
    const absl::Status same = CompareLiterals(*expected, *actual);
    EXPECT_TRUE(same.ok()) << "output " << i << " of " << dump.filename().string() << ": " << same.message();
  }
  fs::remove_all(results);
}

INSTANTIATE_TEST_SUITE_P(Corpus, JaxCorpusExecutionTest, ::testing::ValuesIn(AllRuns()), RunName);

}  // namespace
}  // namespace hmo
