// `hmo pack --capacity N` end to end: a found placement is validated and
// written; infeasible and aborted decisions exit 1 and write nothing; and
// `--algorithm tight` packs a challenging instance at its lower bound, and
// with no algorithm the tight search follows the default one.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hmo/analysis/buffer_packing_csv.h"
#include "support/hmo_cli_runner.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;
using test_support::RunHmoCli;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Challenging(const std::string& letter) {
  return std::string(HMO_SOURCE_DIR) + "/bench/minimalloc/data/challenging/" + letter +
         ".1048576.csv";
}

class PackCapacityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    work_ = fs::temp_directory_path() /
            ("hmo_pack_capacity_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(work_);
    fs::create_directories(work_);
  }
  void TearDown() override { fs::remove_all(work_); }

  fs::path work_;
};

// The offsets column of a CSV `hmo pack` wrote, checked against the instance.
void ExpectValidPlan(const std::string& instance_path, const fs::path& plan_path,
                     int64_t capacity) {
  auto instance = ReadHeapCsvFile(instance_path);
  ASSERT_TRUE(instance.ok()) << instance.status();
  std::ifstream plan(plan_path);
  std::string line;
  ASSERT_TRUE(std::getline(plan, line));
  EXPECT_EQ(line, "id,lower,upper,size,offset");
  std::vector<int64_t> offsets;
  while (std::getline(plan, line)) offsets.push_back(std::stoll(line.substr(line.rfind(',') + 1)));
  ASSERT_EQ(offsets.size(), instance->size());
  EXPECT_TRUE(ValidatePacking(*instance, offsets).ok());
  for (size_t i = 0; i < offsets.size(); ++i) EXPECT_LE(offsets[i] + (*instance)[i].size, capacity);
}

TEST_F(PackCapacityTest, FoundPlacementIsValidatedAndWritten) {
  const fs::path out = work_ / "B.plan.csv";
  const auto run = RunHmoCli("pack '" + Challenging("B") + "' --capacity 1048576 -o '" +
                             out.string() + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("found (by branch-and-bound), height 1048576"));
  EXPECT_THAT(run.err, HasSubstr(" nodes, "));
  ASSERT_TRUE(fs::exists(out));
  ExpectValidPlan(Challenging("B"), out, 1048576);
}

TEST_F(PackCapacityTest, InfeasibleWritesNothingAndFails) {
  // Most bytes live at once: 5; every placement needs 6.
  const fs::path instance = work_ / "needs_six.csv";
  std::ofstream(instance) << "id,lower,upper,size\na,5,7,3\nb,0,2,3\nc,1,4,2\nd,3,5,2\n"
                             "e,2,6,1\nf,6,8,2\ng,4,6,1\n";
  const fs::path out = work_ / "plan.csv";
  auto run = RunHmoCli("pack '" + instance.string() + "' --capacity 5 -o '" + out.string() + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("infeasible (proven by branch-and-bound)"));
  EXPECT_FALSE(fs::exists(out));
  // To stdout: nothing either.
  run = RunHmoCli("pack '" + instance.string() + "' --capacity 5");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "");
  run = RunHmoCli("pack '" + instance.string() + "' --capacity 6 -o '" + out.string() + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ExpectValidPlan(instance.string(), out, 6);
}

TEST_F(PackCapacityTest, AbortedWritesNothingAndFails) {
  const fs::path out = work_ / "E.plan.csv";
  const auto run = RunHmoCli("pack '" + Challenging("E") +
                             "' --capacity 1048576 --node-budget 1000 -o '" + out.string() + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("aborted (node budget)"));
  EXPECT_THAT(run.err, HasSubstr("1000 nodes"));
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(PackCapacityTest, UsageErrors) {
  EXPECT_EQ(RunHmoCli("pack '" + Challenging("B") + "' --capacity 1048576 --algorithm tight")
                .exit_code,
            2);
  EXPECT_EQ(RunHmoCli("pack '" + Challenging("B") + "' --capacity lots").exit_code, 2);
  EXPECT_EQ(RunHmoCli("pack '" + Challenging("B") + "' --algorithm best-fit --node-budget 5")
                .exit_code,
            2);
}

TEST_F(PackCapacityTest, TightReachesTheLowerBound) {
  const fs::path out = work_ / "H.plan.csv";
  const auto run =
      RunHmoCli("pack '" + Challenging("H") + "' --algorithm tight -o '" + out.string() + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("height 1048576, lower bound 1048576 (+0.00%)"));
  EXPECT_THAT(run.err, HasSubstr("optimal"));
  ExpectValidPlan(Challenging("H"), out, 1048576);
}

// With no --algorithm the default algorithm runs, then the tight search;
// the lower placement is written. On A the default stops 20% above the
// lower bound and the search reaches it.
TEST_F(PackCapacityTest, TheDefaultKeepsTheTightSearchWhenItIsLower) {
  const fs::path out = work_ / "A.plan.csv";
  const auto run = RunHmoCli("pack '" + Challenging("A") + "' -o '" + out.string() + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("algorithm best-fit-improved, then tight (lower than its "));
  EXPECT_THAT(run.err, HasSubstr("height 1048576, lower bound 1048576 (+0.00%)"));
  ExpectValidPlan(Challenging("A"), out, 1048576);
  // Named, an algorithm runs alone.
  const auto named = RunHmoCli("pack '" + Challenging("A") + "' --algorithm best-fit-improved");
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_THAT(named.err, Not(HasSubstr("tight")));
  EXPECT_THAT(named.err, Not(HasSubstr("(+0.00%)")));
}

}  // namespace
}  // namespace hmo
