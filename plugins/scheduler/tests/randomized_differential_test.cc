// Randomized differential testing: modules of the scheduler benchmark's
// families (bench/scheduler/module_families.h: donated MLP training steps,
// attention blocks, fan-outs, while loops), sized from a seed, through every
// shipped pipeline (pipelines/*.yaml) and through cpu-fusion followed by each
// scheduler strategy, executed on the CPU and checked against the reference
// evaluator (`hmo run --check`, whose plan checker also runs on every
// compile). The pipelines that fit a module under a memory limit
// (fit.yaml, rematerialization.yaml) run at 85, 90, 95 and 100% of the
// module's device bytes as it arrives until one fits: a limit refused names
// a floor no higher than those bytes, and the program fitted must match.
//
// ctest runs a fixed seed set; HMO_DIFFERENTIAL_SEEDS=4,5,6 (comma list)
// runs others (scripts/random_differential.sh draws fresh ones).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "module_families.h"
#include "support/hmo_cli_runner.h"

namespace {

namespace fs = std::filesystem;

std::vector<int> Seeds() {
  std::vector<int> seeds;
  const char* from_environment = std::getenv("HMO_DIFFERENTIAL_SEEDS");
  std::string list = from_environment != nullptr ? from_environment : "1,2,3";
  size_t at = 0;
  while (at < list.size()) {
    const size_t comma = std::min(list.find(',', at), list.size());
    if (comma > at) seeds.push_back(std::stoi(list.substr(at, comma - at)));
    at = comma + 1;
  }
  return seeds;
}

// A module of `family`, sized by `seed`.
std::string Generate(const std::string& family, int seed) {
  std::mt19937 random(static_cast<unsigned>(seed));
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(random); };
  if (family == "mlp") return hmo::bench::MlpTrainStep(pick(1, 3), pick(2, 16), 8 * pick(1, 6));
  if (family == "attention") {
    const int heads = pick(1, 2);
    return hmo::bench::AttentionBlocks(pick(1, 2), heads, 8 * pick(1, 3), 8 * heads * pick(1, 2));
  }
  if (family == "fanout") return hmo::bench::WideFanOut(pick(2, 6), seed);
  return hmo::bench::WhileLoop(pick(2, 4), 8 * pick(1, 4));
}

std::vector<std::string> Pipelines() {
  std::vector<std::string> pipelines;
  for (const auto& entry : fs::directory_iterator(fs::path(HMO_TEST_DATA_DIR) / ".." / "pipelines")) {
    if (entry.path().extension() == ".yaml") pipelines.push_back(entry.path().string());
  }
  std::sort(pipelines.begin(), pipelines.end());
  for (const char* strategy : {"list", "dfs", "post-order", "local-search", "exact"}) {
    pipelines.push_back(fmt::format("--passes='cpu-fusion,memory-scheduler{{strategy={}}}'", strategy));
  }
  return pipelines;
}

// The module's device bytes (post-order, as `hmo stats` measures it).
// The device arenas the cpu target's executable allocates for `module`
// (`hmo stats`): the figure the pipelines' limit check and --check's
// execution count.
int64_t DeviceBytes(const fs::path& module) {
  const hmo::test_support::HmoCliRun stats =
      hmo::test_support::RunHmoCli(fmt::format("stats --format json '{}'", module.string()));
  EXPECT_EQ(stats.exit_code, 0) << stats.err;
  std::smatch arenas;
  if (!std::regex_search(stats.out, arenas, std::regex("\"device_arena_bytes\": (\\d+)"))) {
    ADD_FAILURE() << "no device_arena_bytes in: " << stats.out;
    return 0;
  }
  return std::stoll(arenas[1].str());
}

// Whether `pipeline` fits a memory limit, which it needs.
bool NeedsLimit(const std::string& pipeline) {
  const std::string name = fs::path(pipeline).filename().string();
  return name == "fit.yaml" || name == "rematerialization.yaml";
}

class RandomizedDifferentialTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RandomizedDifferentialTest, EveryPipelineAndStrategyMatchesTheEvaluator) {
  const std::string family = GetParam();
  const fs::path dir = fs::path(::testing::TempDir()) / ("hmo_differential_" + family);
  fs::create_directories(dir);
  int fitted = 0;  // runs of the memory-limit pipelines that fitted
  for (int seed : Seeds()) {
    const fs::path module = dir / fmt::format("{}_{}.hlo", family, seed);
    std::ofstream(module) << Generate(family, seed);
    for (const std::string& pipeline : Pipelines()) {
      SCOPED_TRACE(fmt::format("{} seed {} {}", family, seed, pipeline));
      const std::string run_pipeline = pipeline.rfind("--", 0) == 0 ? pipeline : "'" + pipeline + "'";
      // The memory-limit pipelines: the lowest of these limits they fit.
      const bool limited = NeedsLimit(pipeline);
      const int64_t device_bytes = limited ? DeviceBytes(module) : 0;
      // Of the arenas the module arrived with (post order): a fan-out whose
      // scheduled floor is within a few percent of them fits only the last.
      for (int percent : limited ? std::vector<int>{85, 90, 95, 98, 100} : std::vector<int>{0}) {
        const std::string limit =
            limited ? fmt::format(" --memory-limit {}", device_bytes * percent / 100) : "";
        const hmo::test_support::HmoCliRun run = hmo::test_support::RunHmoCli(fmt::format(
            "run {} '{}' --check --seed {}{}", run_pipeline, module.string(), seed, limit));
        if (limited && run.exit_code == 1 &&
            run.err.find("cannot fit the limit") != std::string::npos) {
          // Refused with its floor: nothing to execute. The floor is a
          // bound, so never above the module as it arrived.
          std::smatch floor;
          if (std::regex_search(run.err, floor, std::regex("proven floor (?:of|is) (\\d+) B"))) {
            EXPECT_LE(std::stoll(floor[1].str()), device_bytes) << run.err;
          }
          continue;
        }
        if (limited && percent < 100) ++fitted;
        EXPECT_EQ(run.exit_code, 0) << run.err;
        EXPECT_NE(run.out.find("check: ok"), std::string::npos) << run.out << run.err;
        break;
      }
    }
  }
  // Fitted programs, below the device bytes they came with, are executed:
  // the MLP steps and fan-outs have values to move at these limits (the
  // attention blocks and loops of these sizes read theirs at the peak).
  if (family == "mlp" || family == "fanout") {
    EXPECT_GT(fitted, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Families, RandomizedDifferentialTest,
                         ::testing::Values("mlp", "attention", "fanout", "while"));

}  // namespace
