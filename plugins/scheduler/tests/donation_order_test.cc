// A donated training step (tests/hlo/mlp_train_step_donated.hlo: weights
// donated through input_output_alias) once came out of cpu-fusion and the
// `list` strategy in an order that wrote an updated weight into the donated
// buffer before another instruction read the old weight. The scheduling view
// now carries the orderings donation imposes, so no strategy picks such an
// order (the scheduled module needs no extra copy), and every strategy's
// program gives the evaluator's result.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fmt/format.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/rewrites/aliased_output_copies.h"
#include "support/hmo_cli_runner.h"

namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class DonationOrderTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DonationOrderTest, FusedDonatedStepRunsCorrectlyWithoutACopy) {
  const std::string strategy = GetParam();
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("hmo_donation_" + strategy);
  std::filesystem::create_directories(dir);
  const std::string input = std::string(HMO_TEST_DATA_DIR) + "/hlo/mlp_train_step_donated.hlo";
  const hmo::test_support::HmoCliRun run = hmo::test_support::RunHmoCli(fmt::format(
      "run --passes='cpu-fusion,memory-scheduler{{strategy={}}}' '{}' -o '{}' --check --seed 0", strategy, input,
      (dir / "out.hlo").string()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("check: ok"), std::string::npos) << run.out << run.err;

  absl::StatusOr<std::unique_ptr<hmo::HloModule>> scheduled = hmo::ParseHloModule(ReadFile(dir / "out.hlo"));
  ASSERT_TRUE(scheduled.ok()) << scheduled.status();
  absl::StatusOr<bool> copied = hmo::CopyAliasedOutputsWrittenTooEarly(**scheduled);
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_FALSE(*copied) << "the " << strategy << " order writes a donated buffer before its last read";
}

INSTANTIATE_TEST_SUITE_P(Strategies, DonationOrderTest,
                         ::testing::Values("list", "dfs", "post-order", "local-search", "exact"));

}  // namespace
