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
// as `hmo stats DUMP` prints them with no flag. An --xla_dump_to directory
// gives `hmo stats` and `hmo run` each program's module at a stage.

#include <unistd.h>

#include <algorithm>
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

// A dump directory of two programs (mlp_sgd as module 0, batch_norm as
// module 1), both stages, with the files XLA writes beside the modules
// (buffer assignments, per-pass dumps), in a scratch directory named by
// `tag` and the process.
fs::path MakeTwoProgramDump(const std::string& tag) {
  const fs::path dump =
      fs::temp_directory_path() / ("hmo_dump_dir_" + tag + "_" + std::to_string(::getpid()));
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
  return dump;
}

// Removes the modules after XLA's optimizations, leaving a dump of the
// modules before them and the noise.
void RemoveOptimizedModules(const fs::path& dump) {
  for (const auto& entry : fs::directory_iterator(dump)) {
    if (entry.path().string().ends_with("after_optimizations.txt")) fs::remove(entry.path());
  }
}

// One report per program, in module order, at the stage asked for.
TEST(JaxCorpusDumpDirectoryTest, StatsReportsEachProgramAtItsStage) {
  const fs::path dump = MakeTwoProgramDump("stats");
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
  RemoveOptimizedModules(dump);
  const test_support::HmoCliRun none = test_support::RunHmoCli("stats " + dump.string());
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no module_<N>.<program>_after_optimizations.txt file"),
            std::string::npos)
      << none.err;
  fs::remove_all(dump);
}

fs::path ShippedPipeline(const std::string& name) {
  return fs::path(HMO_TEST_DATA_DIR) / ".." / "pipelines" / (name + ".yaml");
}

// `hmo run PIPELINE DIR` on a JAX user's dump directory: the program's
// optimized module, the summary naming the program; with --execute too.
TEST(JaxCorpusDumpDirectoryTest, RunNamesTheProgramOfACorpusDirectory) {
  const fs::path program = testing::JaxCorpusDir() / "mlp_sgd";
  const std::string run_on_program =
      "run " + ShippedPipeline("memory-scheduler").string() + " " + program.string();
  const test_support::HmoCliRun run = test_support::RunHmoCli(run_on_program);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // One input, no -o: the module goes to stdout and the summary to stderr.
  EXPECT_NE(run.out.find("HloModule jit_mlp_sgd_step"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("module_0000.jit_mlp_sgd_step.cpu_after_optimizations.txt: program "
                         "'jit_mlp_sgd_step': "),
            std::string::npos)
      << run.err;
  const test_support::HmoCliRun executed =
      test_support::RunHmoCli(run_on_program + " --execute --backend cpu --seed 1");
  ASSERT_EQ(executed.exit_code, 0) << executed.err;
  EXPECT_NE(executed.out.find("program 'jit_mlp_sgd_step': "), std::string::npos) << executed.out;
}

// Each program of a dump directory, in module order, at the stage asked for,
// with the files beside the modules skipped; mixed with a plain HLO file;
// -o a directory of one output per module.
TEST(JaxCorpusDumpDirectoryTest, RunRunsEachProgramAtItsStage) {
  const fs::path dump = MakeTwoProgramDump("run");
  const fs::path out = dump.string() + "_out";
  fs::remove_all(out);
  const std::string run_on_dump = "run " + ShippedPipeline("memory-scheduler").string() + " " +
                                  dump.string() + " -o " + out.string();
  const test_support::HmoCliRun after = test_support::RunHmoCli(run_on_dump);
  ASSERT_EQ(after.exit_code, 0) << after.err;
  const size_t mlp = after.out.find(
      "module_0000.jit_mlp_sgd_step.cpu_after_optimizations.txt: program 'jit_mlp_sgd_step': ");
  const size_t batch_norm = after.out.find(
      "module_0001.jit_batch_norm_step.cpu_after_optimizations.txt: program "
      "'jit_batch_norm_step': ");
  ASSERT_NE(mlp, std::string::npos) << after.out;
  ASSERT_NE(batch_norm, std::string::npos) << after.out;
  EXPECT_LT(mlp, batch_norm) << "module order";
  EXPECT_NE(after.out.find("2 modules: 2 ok, 0 failed"), std::string::npos) << after.out;
  std::vector<std::string> written;
  for (const auto& entry : fs::directory_iterator(out)) {
    written.push_back(entry.path().filename().string());
  }
  std::sort(written.begin(), written.end());
  EXPECT_EQ(written, (std::vector<std::string>{
                         "module_0000.jit_mlp_sgd_step.cpu_after_optimizations.txt",
                         "module_0001.jit_batch_norm_step.cpu_after_optimizations.txt"}));

  // Before XLA's optimizations, with a plain HLO file after the directory.
  const fs::path plain = fs::path(HMO_TEST_DATA_DIR) / "cli/data/small.hlo";
  const test_support::HmoCliRun before =
      test_support::RunHmoCli(run_on_dump + " --stage before " + plain.string());
  ASSERT_EQ(before.exit_code, 0) << before.err;
  const size_t mlp_before = before.out.find(
      "module_0000.jit_mlp_sgd_step.before_optimizations.txt: program "
      "'jit_mlp_sgd_step': ");
  const size_t batch_norm_before = before.out.find(
      "module_0001.jit_batch_norm_step.before_optimizations.txt: program "
      "'jit_batch_norm_step': ");
  const size_t small = before.out.find("small.hlo: module 'small': ");
  ASSERT_NE(mlp_before, std::string::npos) << before.out;
  ASSERT_NE(batch_norm_before, std::string::npos) << before.out;
  ASSERT_NE(small, std::string::npos) << before.out;
  EXPECT_LT(mlp_before, batch_norm_before);
  EXPECT_LT(batch_norm_before, small);
  EXPECT_NE(before.out.find("3 modules: 3 ok, 0 failed"), std::string::npos) << before.out;
  fs::remove_all(dump);
  fs::remove_all(out);
}

// A directory with neither HLO files nor dump modules at the stage is an
// error naming it and what was looked for, and writes nothing.
TEST(JaxCorpusDumpDirectoryTest, RunRefusesADirectoryWithoutModulesAtTheStage) {
  const fs::path dump = MakeTwoProgramDump("run_error");
  const fs::path out = dump.string() + "_out";
  fs::remove_all(out);
  const std::string run =
      "run " + ShippedPipeline("memory-scheduler").string() + " -o " + out.string() + " ";
  RemoveOptimizedModules(dump);
  const test_support::HmoCliRun no_optimized = test_support::RunHmoCli(run + dump.string());
  EXPECT_EQ(no_optimized.exit_code, 1);
  EXPECT_NE(no_optimized.err.find(dump.string() +
                                  ": no module_<N>.<program>_after_optimizations.txt file"),
            std::string::npos)
      << no_optimized.err;
  EXPECT_FALSE(fs::exists(out));

  const fs::path notes = dump.string() + "_notes";
  fs::remove_all(notes);
  fs::create_directories(notes);
  std::ofstream(notes / "README.md") << "not a module\n";
  const test_support::HmoCliRun nothing = test_support::RunHmoCli(run + notes.string());
  EXPECT_EQ(nothing.exit_code, 1);
  EXPECT_NE(nothing.err.find(notes.string() +
                             ": directory holds no HLO files (*.hlo, *.txt) and no XLA dump "
                             "module (module_<N>.<program>_after_optimizations.txt)"),
            std::string::npos)
      << nothing.err;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(dump);
  fs::remove_all(notes);
}

INSTANTIATE_TEST_SUITE_P(Corpus, JaxCorpusStatsTest, ::testing::ValuesIn(ProgramNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hmo
