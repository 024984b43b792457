// `hmo stats` and `hmo pack` end to end: run the built binary, check its
// outputs and exit codes.

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "support/hmo_cli_runner.h"
#include "support/test_data.h"

namespace {

using CommandRun = hmo::test_support::HmoCliRun;

CommandRun RunHmo(const std::string& arguments) {
  return hmo::test_support::RunHmoCli(arguments);
}

std::string Data(const std::string& relative) {
  return std::string(HMO_TEST_DATA_DIR) + "/" + relative;
}

TEST(HmoStatsCommandTest, TableJsonAndHtml) {
  CommandRun table = RunHmo("stats " + Data("hlo/test_hlo.txt"));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("1098907648"), std::string::npos) << table.out;
  CommandRun json = RunHmo("stats --format json --heap xla " + Data("hlo/tpu_s4_dus_fusion_memory_spaces.hlo"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"temp_size_in_bytes\": 35651584"), std::string::npos) << json.out;
  // Several modules: a JSON array.
  CommandRun several = RunHmo("stats --format json " + Data("hlo/dynamic_update_slice_inplace_bf16.hlo"));
  ASSERT_EQ(several.exit_code, 0) << several.err;
  EXPECT_EQ(several.out.front(), '[');
  // HTML needs one module.
  CommandRun html_many = RunHmo("stats --format html " + Data("hlo/dynamic_update_slice_inplace_bf16.hlo"));
  EXPECT_EQ(html_many.exit_code, 2);
  const std::filesystem::path page = std::filesystem::temp_directory_path() / "hmo_cli_stats.html";
  CommandRun html = RunHmo("stats --format html --module 2 -o " + page.string() + " " +
                    Data("hlo/dynamic_update_slice_inplace_bf16.hlo"));
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(hmo::test_support::ReadFileOrEmpty(page).find("<svg class=\"timeline\""),
            std::string::npos);
  std::filesystem::remove(page);
  CommandRun bad = RunHmo("stats --format pdf " + Data("hlo/test_hlo.txt"));
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(HmoPackCommandTest, PacksValidatesAndReports) {
  const std::filesystem::path csv = std::filesystem::temp_directory_path() / "hmo_cli_pack.csv";
  {
    std::ofstream out(csv);
    out << "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";
  }
  CommandRun run = RunHmo("pack --algorithm best-fit " + csv.string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "id,lower,upper,size,offset\nb1,0,3,4,8\nb2,3,9,4,8\nb3,0,9,4,4\nb4,9,21,4,4\n"
            "b5,0,21,4,0\n");
  EXPECT_NE(run.err.find("height 12, lower bound 12"), std::string::npos) << run.err;
  CommandRun unknown = RunHmo("pack --algorithm nope " + csv.string());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("best-fit"), std::string::npos) << unknown.err;
  CommandRun aligned = RunHmo("pack --alignment 8 " + csv.string());
  ASSERT_EQ(aligned.exit_code, 0) << aligned.err;
  std::filesystem::remove(csv);
}

TEST(HmoStatsCommandTest, JobsGiveTheSameReportsInTheSameOrder) {
  const std::string file = Data("hlo/dynamic_update_slice_inplace_bf16.hlo");
  CommandRun one = RunHmo("stats --format json -j1 " + file);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  CommandRun three = RunHmo("stats --format json --jobs=3 " + file);
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_EQ(one.out, three.out);
  EXPECT_EQ(RunHmo("stats -j0 " + file).exit_code, 2);
  EXPECT_EQ(RunHmo("stats -j 2x " + file).exit_code, 2);
}

TEST(HmoStatsCommandTest, AnEmptyFileIsAPositionedError) {
  const std::filesystem::path empty = std::filesystem::temp_directory_path() / "hmo_cli_empty.hlo";
  { std::ofstream out(empty); }
  CommandRun run = RunHmo("stats " + empty.string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find(empty.string() + ":1:1: error: the file holds no HLO module"),
            std::string::npos)
      << run.err;
  EXPECT_TRUE(run.out.empty());
  std::filesystem::remove(empty);
}

TEST(HmoPackCommandTest, SizesThatOverflowAreRefusedWithTheirPosition) {
  const std::filesystem::path csv = std::filesystem::temp_directory_path() / "hmo_cli_pack_big.csv";
  {
    std::ofstream out(csv);
    out << "id,lower,upper,size\nb1,0,3,9223372036854775807\nb2,0,3,1\n";
  }
  CommandRun run = RunHmo("pack " + csv.string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find(csv.string() + ":2:8: error: the sizes"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty());
  std::filesystem::remove(csv);
}

}  // namespace
