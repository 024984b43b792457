// `hmo stats` names the user's source lines: each buffer's source and call
// stack in JSON, and the bytes live at the peak by source line in JSON and in
// the table. The expected line is worked out here from the dump's own
// StackFrames tables, not by hmo's resolver.

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/hmo_cli_runner.h"
#include "support/test_data.h"

namespace {

using ::testing::HasSubstr;

// `text` matched literally inside a regex.
std::string Quoted(const std::string& text) {
  return std::regex_replace(text, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
}
using ::testing::Not;

const std::string kStepRelative =
    "corpus/mlp_sgd/module_0000.jit_mlp_sgd_step.cpu_after_optimizations.txt";

std::string Data(const std::string& relative) {
  return std::string(HMO_TEST_DATA_DIR) + "/" + relative;
}

// "file:line (function)" of the innermost frame of `instruction` in the dump
// `text`, read from its FileNames, FunctionNames, FileLocations and
// StackFrames tables; empty when not found.
std::string InnermostFrameFromDump(const std::string& text, const std::string& instruction) {
  std::map<int, std::string> files, functions;
  std::map<int, int> frame_location;
  std::istringstream lines(text);
  std::string line, table;
  const std::regex name_row(R"re(^(\d+) "(.*)"$)re");
  const std::regex location_row(R"(^(\d+) \{file_name_id=(\d+) function_name_id=(\d+) line=(\d+))");
  const std::regex frame_row(R"(^(\d+) \{file_location_id=(\d+) )");
  std::map<int, std::tuple<int, int, int>> location_fields;  // file, function, line
  int frame_id = -1;
  const std::regex uses(" %" + Quoted(instruction) + R"( = .*stack_frame_id=(\d+))");
  while (std::getline(lines, line)) {
    std::smatch m;
    if (line == "FileNames" || line == "FunctionNames" || line == "FileLocations" ||
        line == "StackFrames") {
      table = line;
    } else if (line.empty() || line.rfind("HloModule", 0) == 0) {
      continue;
    } else if (table == "FileNames" && std::regex_search(line, m, name_row)) {
      files[std::stoi(m[1])] = m[2];
    } else if (table == "FunctionNames" && std::regex_search(line, m, name_row)) {
      functions[std::stoi(m[1])] = m[2];
    } else if (table == "FileLocations" && std::regex_search(line, m, location_row)) {
      location_fields[std::stoi(m[1])] = {std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4])};
    } else if (table == "StackFrames" && std::regex_search(line, m, frame_row)) {
      frame_location[std::stoi(m[1])] = std::stoi(m[2]);
    } else if (std::regex_search(line, m, uses)) {
      frame_id = std::stoi(m[1]);
    }
  }
  if (!frame_location.count(frame_id)) return "";
  const auto [file, function, number] = location_fields[frame_location[frame_id]];
  return files[file] + ":" + std::to_string(number) + " (" + functions[function] + ")";
}

TEST(StatsSourceCliTest, JsonNamesTheLargestSourceLineLiveAtThePeak) {
  const std::string text = hmo::test_support::ReadTestData(kStepRelative);
  ASSERT_FALSE(text.empty());
  auto run = hmo::test_support::RunHmoCli("stats --format json " + Data(kStepRelative));
  ASSERT_EQ(run.exit_code, 0) << run.err;

  // peak_by_source, largest first: the arguments (no metadata: the caller's)
  // lead, then the first line of the user's program.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.out, m,
                                std::regex(R"re("peak_by_source": \[\s*\{"source": null, )re"
                                           R"re("label": "\(the program's arguments\)")re")))
      << run.out;
  ASSERT_TRUE(std::regex_search(
      run.out, m, std::regex(R"re("peak_by_source": \[[^\]]*?\{"source": "([^"]+)", "label")re")))
      << run.out;
  const std::string largest_source = m[1];
  EXPECT_THAT(largest_source, HasSubstr("generate.py:"));

  // A buffer made there: its source is the innermost frame of its
  // instruction in the dump's tables, and its call stack starts with it.
  const std::string quoted = Quoted(largest_source);
  ASSERT_TRUE(std::regex_search(run.out, m,
                                std::regex(R"re("instruction": "([^"]+)".*"source": ")re" + quoted +
                                           R"re(", "call_stack": \[")re" + quoted + "\"")))
      << run.out;
  EXPECT_EQ(InnermostFrameFromDump(text, m[1]), largest_source) << m[1];
}

TEST(StatsSourceCliTest, TableShowsThePeakBySourceLine) {
  auto run = hmo::test_support::RunHmoCli("stats " + Data(kStepRelative));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr("\nLive at the peak, by where the program made them, largest first:\n"));
  EXPECT_THAT(run.out, HasSubstr("(the program's arguments)"));
  EXPECT_THAT(run.out, HasSubstr("generate.py:"));
}

TEST(StatsSourceCliTest, AModuleWithoutMetadataSaysSo) {
  auto json = hmo::test_support::RunHmoCli("stats --format json " + Data("hlo/test_hlo.txt"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"source\": null, \"call_stack\": []}"));
  EXPECT_THAT(json.out, HasSubstr("{\"source\": null, \"label\": \"(no source in the metadata)\""));
  EXPECT_THAT(json.out, Not(HasSubstr("\"source\": \"")));
  auto table = hmo::test_support::RunHmoCli("stats " + Data("hlo/test_hlo.txt"));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("(no source in the metadata)"));
  EXPECT_THAT(table.out, HasSubstr("(the program's arguments)"));
}

}  // namespace
