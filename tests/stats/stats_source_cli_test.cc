// `hmo stats` names the user's source lines: each buffer's source and call
// stack in JSON, and the bytes live at the peak by source line in JSON and in
// the table. The expected line is worked out here from the dump's own
// StackFrames tables, not by hmo's resolver.

#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "dump_stack_frames.h"
#include "gtest/gtest.h"
#include "support/hmo_cli_runner.h"
#include "support/test_data.h"

namespace {

using ::hmo::test_support::DumpStackFrames;
using ::hmo::test_support::Quoted;
using ::testing::HasSubstr;

using ::testing::Not;

const std::string kStepRelative =
    "corpus/mlp_sgd/module_0000.jit_mlp_sgd_step.cpu_after_optimizations.txt";

std::string Data(const std::string& relative) {
  return std::string(HMO_TEST_DATA_DIR) + "/" + relative;
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
      run.out, m, std::regex(R"re("peak_by_source": \[[\s\S]*?\{"source": "([^"]+)", "label")re")))
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
  EXPECT_EQ(DumpStackFrames(text).InnermostFrame(m[1]), largest_source) << m[1];
}

TEST(StatsSourceCliTest, TableShowsThePeakBySourceLine) {
  auto run = hmo::test_support::RunHmoCli("stats " + Data(kStepRelative));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr("\nLive at the peak, by where the program made them, largest first:\n"));
  EXPECT_THAT(run.out, HasSubstr("(the program's arguments)"));
  EXPECT_THAT(run.out, HasSubstr("generate.py:"));
}

// The HTML page lists the same lines as the table format, in the same order:
// its per-source table's rows are peak_by_source's labels.
TEST(StatsSourceCliTest, HtmlHasAPerSourceTableOfThePeak) {
  auto json = hmo::test_support::RunHmoCli("stats --format json " + Data(kStepRelative));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::vector<std::string> labels;
  const std::string by_source = json.out.substr(json.out.find("\"peak_by_source\""));
  const std::regex label(R"re("label": "([^"]+)")re");
  for (std::sregex_iterator it(by_source.begin(), by_source.end(), label), end; it != end; ++it) {
    labels.push_back((*it)[1]);
  }
  ASSERT_GE(labels.size(), 2u);

  auto html = hmo::test_support::RunHmoCli("stats --format html " + Data(kStepRelative));
  ASSERT_EQ(html.exit_code, 0) << html.err;
  const size_t table = html.out.find("<table id=\"peak-by-source\">");
  ASSERT_NE(table, std::string::npos) << html.out;
  const std::string rows = html.out.substr(table, html.out.find("</table>", table) - table);
  std::vector<std::string> html_labels;
  const std::regex row(R"re(<tr><td>([^<]+)</td>)re");
  for (std::sregex_iterator it(rows.begin(), rows.end(), row), end; it != end; ++it) {
    std::string text = (*it)[1];
    for (const auto& [escaped, plain] :
         {std::pair{"&lt;", "<"}, std::pair{"&gt;", ">"}, std::pair{"&quot;", "\""},
          std::pair{"&#39;", "'"}, std::pair{"&amp;", "&"}}) {
      for (size_t at = text.find(escaped); at != std::string::npos; at = text.find(escaped, at)) {
        text.replace(at, std::string(escaped).size(), plain);
        at += std::string(plain).size();
      }
    }
    html_labels.push_back(text);
  }
  EXPECT_EQ(html_labels, labels);
}

TEST(StatsSourceCliTest, AModuleWithoutMetadataSaysSo) {
  auto json = hmo::test_support::RunHmoCli("stats --format json " + Data("hlo/test_hlo.txt"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"source\": null, \"call_stack\": [], \"fused_sources\": [], "
                                  "\"fused_sources_not_shown\": 0}"));
  EXPECT_THAT(json.out, HasSubstr("{\"source\": null, \"label\": \"(no source in the metadata)\""));
  EXPECT_THAT(json.out, Not(HasSubstr("\"source\": \"")));
  auto table = hmo::test_support::RunHmoCli("stats " + Data("hlo/test_hlo.txt"));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("(no source in the metadata)"));
  EXPECT_THAT(table.out, HasSubstr("(the program's arguments)"));
}

}  // namespace
