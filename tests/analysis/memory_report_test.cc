// MemoryReport: the JSON schema's fields, the table, and the HTML timeline
// rendered in headless Chromium (one rect per buffer).

#include "hmo/analysis/memory_report.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <regex>
#include <unistd.h>
#include <string>

#include "analysis_test_util.h"
#include "gtest/gtest.h"

namespace hmo {
namespace {

using ::hmo::testing::ParseOrDie;
using ::hmo::testing::ReadFileOrDie;
using ::hmo::testing::TestDataPath;

constexpr char kTempsModule[] = R"(
HloModule temps, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[8] concatenate(a, a), dimensions={0}
  c = f32[8] exponential(b)
  ROOT r = f32[4] slice(c), slice={[0:4]}
}
)";

int CountOccurrences(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++count;
  }
  return count;
}

TEST(MemoryReportTest, JsonHasTheDocumentedFields) {
  auto module = ParseOrDie(kTempsModule);
  MemoryReportOptions options;
  options.heap_algorithm = TempHeapAlgorithm::kXla;
  auto report = BuildMemoryReport(*module, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->schedule_source, "module");
  EXPECT_EQ(report->schedule_length, 5);
  // p, a, b, c, r each placed and live in the schedule.
  EXPECT_EQ(report->buffers.size(), 5u);
  const std::string json = FormatMemoryReportJson(*report);
  for (const char* key :
       {"\"schema\": \"hmo.memory-stats/1\"", "\"module\": \"temps\"",
        "\"argument_size_in_bytes\": 16", "\"output_size_in_bytes\": 16",
        "\"alias_size_in_bytes\": 0", "\"temp_size_in_bytes\": 32",
        "\"host_temp_size_in_bytes\": 0", "\"peak_estimate_in_bytes\": 64",
        "\"peak_memory_in_bytes\": 64", "\"minimum_memory_for_module\":",
        "\"temp_heaps\": [", "\"lower_bound\": 32", "\"allocations\": [", "\"buffers\": [",
        "\"heap_algorithm\": \"xla\""}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
  }
  EXPECT_EQ(CountOccurrences(json, "\"value_id\""), 5);
  const std::string table = FormatMemoryReportTable(*report);
  EXPECT_NE(table.find("peak estimate"), std::string::npos);
  EXPECT_NE(table.find("Temp heaps"), std::string::npos);
}

TEST(MemoryReportTest, UnscheduledModulesUseAPostOrderSchedule) {
  auto module = ParseOrDie(R"(
HloModule unscheduled
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  auto report = BuildMemoryReport(*module);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->schedule_source, "post-order");
  EXPECT_EQ(report->stats.argument_size_in_bytes, 16);
  EXPECT_EQ(report->stats.output_size_in_bytes, 16);
}

TEST(MemoryReportTest, HtmlHasOneRectPerBuffer) {
  auto module = ParseOrDie(kTempsModule);
  auto report = BuildMemoryReport(*module);
  ASSERT_TRUE(report.ok());
  const std::string html = FormatMemoryReportHtml(*report);
  EXPECT_EQ(CountOccurrences(html, "<rect class=\"buffer\""),
            static_cast<int>(report->buffers.size()));
  EXPECT_NE(html.find("class=\"lower-bound\""), std::string::npos);
  EXPECT_NE(html.find("<title>"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"))
      << "the page must not load external resources";
}

// Finds a Chromium binary, or returns an empty string.
std::string FindChromium() {
  for (const char* candidate :
       {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return "";
}

TEST(MemoryReportTest, HtmlRendersInHeadlessChromium) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium not installed (Debian package 'chromium'); skipping the "
                    "headless rendering check";
  }
  auto module = ParseOrDie(ReadFileOrDie(TestDataPath("hlo/host_offload_jit_f_while_loops.hlo")));
  ASSERT_NE(module, nullptr);
  auto report = BuildMemoryReport(*module);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_GT(report->buffers.size(), 10u);
  // The target's report groups the peak by source line (a module without
  // metadata has none): two lines, one needing escapes, to render.
  report->peak_by_source = {{"model.py:3 (f.<locals>.g)", false, 4096, 2}, {"", true, 1024, 1}};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hmo_report_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path page = dir / "report.html";
  {
    std::FILE* out = std::fopen(page.c_str(), "wb");
    ASSERT_NE(out, nullptr);
    const std::string html = FormatMemoryReportHtml(*report);
    std::fwrite(html.data(), 1, html.size(), out);
    std::fclose(out);
  }
  const std::filesystem::path dom = dir / "dom.html";
  const std::string command =
      "timeout 120 " + chromium +
      " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run"
      " --user-data-dir=" + (dir / "profile").string() + " --dump-dom file://" + page.string() +
      " > " + dom.string() + " 2> " + (dir / "chromium.log").string();
  const int status = std::system(command.c_str());
  ASSERT_EQ(status, 0) << command << "\n" << ReadFileOrDie((dir / "chromium.log").string());
  const std::string rendered = ReadFileOrDie(dom.string());
  std::smatch match;
  ASSERT_TRUE(std::regex_search(rendered, match, std::regex("id=\"rect-count\">(\\d+)<")))
      << rendered.substr(0, 2000);
  // The script ran and counted one rect per buffer.
  EXPECT_EQ(std::stoul(match[1].str()), report->buffers.size());
  // The per-source table of the peak is in the page as rendered, a row per
  // source line.
  const size_t table = rendered.find("<table id=\"peak-by-source\">");
  ASSERT_NE(table, std::string::npos) << rendered.substr(0, 2000);
  const std::string rows = rendered.substr(table, rendered.find("</table>", table) - table);
  const std::regex row("<tr><td>");
  EXPECT_EQ(static_cast<size_t>(std::distance(std::sregex_iterator(rows.begin(), rows.end(), row),
                                              std::sregex_iterator())),
            report->peak_by_source.size());
  EXPECT_NE(rows.find("model.py:3 (f.&lt;locals&gt;.g)"), std::string::npos) << rows;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hmo
