// The JAX corpus (tests/corpus/<program>/, made by bench/jax_corpus/generate.py
// with the current jaxlib): XLA's own dumps, read exactly as XLA wrote them.
//
// For every program and both dumps (before and after XLA's optimizations):
//  * the file parses, stack-frame tables included;
//  * printing is a fixed point in the short and the long form, and the
//    reparsed module is structurally equal to the first;
//  * printed in XLA's dump form it is the file XLA wrote, byte for byte;
//  * the module verifies.
// For every optimized dump (scheduled by XLA): `hmo stats`'s argument,
// output, alias and temp bytes equal XLA's compiled.memory_analysis(), also
// as `hmo stats DUMP` prints them with no flag.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/ir/hlo_printer.h"
#include "hmo/verifier/hlo_verifier.h"
#include "jax_corpus.h"
#include "support/hmo_cli_runner.h"
#include "text/hlo_test_util.h"
#include "yaml-cpp/yaml.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() { return testing::JaxCorpusDir(); }
std::vector<std::string> ProgramNames() { return testing::JaxCorpusPrograms(); }

struct Program {
  std::string name;
  fs::path dir;
  YAML::Node manifest;
};

Program LoadProgram(const std::string& name) {
  Program p{name, CorpusDir() / name, YAML::LoadFile((CorpusDir() / name / "manifest.json").string())};
  return p;
}

fs::path DumpPath(const Program& p, std::string_view which) { return testing::JaxCorpusDump(p.name, which); }

TEST(JaxCorpusTest, HoldsTheProgramsTheIssueAsksFor) {
  const std::vector<std::string> names = ProgramNames();
  EXPECT_GE(names.size(), 12u);
  for (const char* required : {"mlp_sgd", "transformer_adam", "transformer_scan", "transformer_remat",
                               "cnn_maxpool", "embedding", "kv_decode", "sort_topk", "cond"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  }
}

class JaxCorpusDumpTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(JaxCorpusDumpTest, ParsesRoundTripsAndVerifies) {
  const auto& [name, which] = GetParam();
  const Program program = LoadProgram(name);
  const fs::path path = DumpPath(program, which);
  const std::string text = testing::ReadTestData(fs::relative(path, HMO_TEST_DATA_DIR).string());
  ASSERT_FALSE(text.empty()) << path;
  // Written by the current jaxlib: the stack-frame tables must be there.
  EXPECT_NE(text.find("\nStackFrames\n"), std::string::npos) << path;

  auto module = ParseHloModule(text, path.string());
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_FALSE((*module)->stack_frame_index().empty());
  EXPECT_TRUE((*module)->stack_frame_index().Validate().ok());

  for (const HloPrintOptions& options : {HloPrintOptions::Canonical(), HloPrintOptions::LongForm()}) {
    const std::string once = PrintHloModule(**module, options);
    auto again = ParseHloModule(once, "printed");
    ASSERT_TRUE(again.ok()) << again.status();
    testing::ExpectStructurallyEqual(**module, **again);
    EXPECT_EQ(PrintHloModule(**again, options), once) << "not a fixed point: " << path;
  }
  // Printed in the form XLA dumps, the module is XLA's file byte for byte.
  EXPECT_EQ(PrintHloModule(**module, HloPrintOptions::DumpForm()), text) << path;
  absl::Status verified = VerifyHloModule(**module);
  EXPECT_TRUE(verified.ok()) << path << ": " << verified;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, JaxCorpusDumpTest,
    ::testing::Combine(::testing::ValuesIn(ProgramNames()), ::testing::Values("before", "after")),
    [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

class JaxCorpusStatsTest : public ::testing::TestWithParam<std::string> {};

// XLA's figures, next to hmo's, for the optimized module under XLA's own
// schedule; a mismatch names the figure.
TEST_P(JaxCorpusStatsTest, StatsEqualXlaMemoryAnalysis) {
  const Program program = LoadProgram(GetParam());
  const YAML::Node xla = testing::JaxCorpusMemoryAnalysis(GetParam());
  auto module = ParseHloModuleFile(DumpPath(program, "after").string());
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE((*module)->has_schedule()) << "XLA's optimized dump carries its schedule";
  auto report = BuildMemoryReport(**module, testing::XlaCpuMemoryReportOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  const CompiledMemoryStats& s = report->stats;
  EXPECT_EQ(s.argument_size_in_bytes, xla["argument_size_in_bytes"].as<int64_t>()) << "argument bytes";
  EXPECT_EQ(s.output_size_in_bytes, xla["output_size_in_bytes"].as<int64_t>()) << "output bytes";
  EXPECT_EQ(s.alias_size_in_bytes, xla["alias_size_in_bytes"].as<int64_t>()) << "alias bytes";
  EXPECT_EQ(s.temp_size_in_bytes, xla["temp_size_in_bytes"].as<int64_t>()) << "temp bytes";
}

// `hmo stats DUMP` as a user types it, no flag: the dump's file name says
// cpu_, so the figures are the cpu target's, XLA:CPU's own. The program's
// directory is a dump directory too: `hmo stats DIR` picks the optimized
// module and gives the same report.
TEST_P(JaxCorpusStatsTest, StatsWithNoFlagEqualXlaMemoryAnalysis) {
  const Program program = LoadProgram(GetParam());
  const YAML::Node xla = testing::JaxCorpusMemoryAnalysis(GetParam());
  for (const std::string& input :
       {DumpPath(program, "after").string(), DumpPath(program, "after").parent_path().string()}) {
    SCOPED_TRACE(input);
    const test_support::HmoCliRun run = test_support::RunHmoCli("stats --format json " + input);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const YAML::Node report = YAML::Load(run.out);
    const YAML::Node s = report["stats"];
    for (const char* figure : {"argument_size_in_bytes", "output_size_in_bytes",
                               "alias_size_in_bytes", "temp_size_in_bytes"}) {
      EXPECT_EQ(s[figure].as<int64_t>(), xla[figure].as<int64_t>()) << figure;
    }
    EXPECT_EQ(report["target"]["name"].as<std::string>(), "cpu");
  }
}

// A dump directory of several programs, with the files XLA writes beside
// the modules (buffer assignments, per-pass dumps): one report per program,
// in module order, at the stage asked for.
TEST(JaxCorpusDumpDirectoryTest, StatsReportsEachProgramAtItsStage) {
  namespace fs = std::filesystem;
  const fs::path dump = fs::temp_directory_path() / ("hmo_dump_dir_" + std::to_string(::getpid()));
  fs::remove_all(dump);
  fs::create_directories(dump);
  int number = 0;
  for (const std::string program : {"mlp_sgd", "batch_norm"}) {
    for (const char* stage : {"before", "after"}) {
      const fs::path source = testing::JaxCorpusDump(program, stage);
      std::string name = source.filename().string();
      name.replace(0, std::string("module_0000").size(), "module_000" + std::to_string(number));
      fs::copy_file(source, dump / name);
    }
    const std::string stem = "module_000" + std::to_string(number) + ".jit_" + program + "_step";
    std::ofstream(dump / (stem + ".cpu_after_optimizations-buffer-assignment.txt")) << "noise\n";
    std::ofstream(dump / (stem + ".0001.cpu-fusion.after_cpu-fusion.txt")) << "noise\n";
    ++number;
  }
  const test_support::HmoCliRun after =
      test_support::RunHmoCli("stats --format json " + dump.string());
  ASSERT_EQ(after.exit_code, 0) << after.err;
  const YAML::Node reports = YAML::Load(after.out);
  ASSERT_TRUE(reports.IsSequence()) << after.out;
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0]["stats"]["temp_size_in_bytes"].as<int64_t>(),
            testing::JaxCorpusMemoryAnalysis("mlp_sgd")["temp_size_in_bytes"].as<int64_t>());
  EXPECT_EQ(reports[1]["stats"]["temp_size_in_bytes"].as<int64_t>(),
            testing::JaxCorpusMemoryAnalysis("batch_norm")["temp_size_in_bytes"].as<int64_t>());
  const test_support::HmoCliRun before =
      test_support::RunHmoCli("stats " + dump.string() + " --stage before");
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("schedule: post-order"), std::string::npos) << before.out;
  // A directory without modules at the stage is an error naming what it
  // looked for.
  const test_support::HmoCliRun empty = test_support::RunHmoCli(
      "stats " + dump.parent_path().string() + "/nonexistent_dump_" + std::to_string(::getpid()));
  EXPECT_NE(empty.exit_code, 0);
  for (const auto& entry : fs::directory_iterator(dump)) {
    if (entry.path().string().find("after_optimizations.txt") != std::string::npos) {
      fs::remove(entry.path());
    }
  }
  const test_support::HmoCliRun none = test_support::RunHmoCli("stats " + dump.string());
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no module_<N>.<program>_after_optimizations.txt file"),
            std::string::npos)
      << none.err;
  fs::remove_all(dump);
}

INSTANTIATE_TEST_SUITE_P(Corpus, JaxCorpusStatsTest, ::testing::ValuesIn(ProgramNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hmo
