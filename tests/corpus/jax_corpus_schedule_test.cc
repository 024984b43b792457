// The memory plan hmo's scheduler gives XLA's own optimized programs, against
// XLA: every optimized dump of the JAX corpus, rescheduled by memory-scheduler
// ranking its candidates on what XLA would allocate (objective=module-bytes;
// `hmo run`, the plugins loaded as users load them), then assigned the way XLA:CPU assigns (XLA's
// heap, 64-byte offsets: StatsEqualXlaMemoryAnalysis shows this reproduces memory_analysis() on
// XLA's own order), needs no more temp bytes than XLA's compiled program, and
// the same argument, output and alias bytes. XLA's figure is
// memory_analysis.json, measured by XLA, not by hmo.

#include <unistd.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/text/hlo_parser.h"
#include "jax_corpus.h"
#include "support/hmo_cli_runner.h"
#include "yaml-cpp/yaml.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

class JaxCorpusScheduleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(JaxCorpusScheduleTest, TempBytesAtMostXlas) {
  const std::string& program = GetParam();
  const YAML::Node xla = testing::JaxCorpusMemoryAnalysis(program);
  const fs::path scheduled =
      fs::temp_directory_path() / absl::StrCat("hmo_corpus_schedule_", program, "_", ::getpid(), ".hlo");
  // Ranked on what XLA would allocate for each order (module-bytes), not on
  // hmo's own executable (device-bytes, the default).
  const test_support::HmoCliRun hmo = test_support::RunHmoCli(absl::StrCat(
      "run --passes='memory-scheduler{objective=module-bytes}' ",
      testing::JaxCorpusDump(program, "after").string(), " -o ", scheduled.string(), " -q"));
  ASSERT_EQ(hmo.exit_code, 0) << hmo.err;
  auto module = ParseHloModuleFile(scheduled.string());
  fs::remove(scheduled);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE((*module)->has_schedule());
  auto report = BuildMemoryReport(**module, testing::XlaCpuMemoryReportOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  const CompiledMemoryStats& s = report->stats;
  EXPECT_LE(s.temp_size_in_bytes, xla["temp_size_in_bytes"].as<int64_t>()) << "temp bytes";
  EXPECT_EQ(s.argument_size_in_bytes, xla["argument_size_in_bytes"].as<int64_t>()) << "argument bytes";
  EXPECT_EQ(s.output_size_in_bytes, xla["output_size_in_bytes"].as<int64_t>()) << "output bytes";
  EXPECT_EQ(s.alias_size_in_bytes, xla["alias_size_in_bytes"].as<int64_t>()) << "alias bytes";
}

INSTANTIATE_TEST_SUITE_P(Corpus, JaxCorpusScheduleTest, ::testing::ValuesIn(testing::JaxCorpusPrograms()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hmo
