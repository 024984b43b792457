// The hmo binary end to end: each subcommand, pipelines of passes loaded from
// separate plugin files, parallel runs with failures, atomic outputs, and the
// instrumentation flags.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fmt/format.h"
#include "hmo/plugin/plugin_abi.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kHmo = fs::path(HMO_BINARY_DIR) / "bin/hmo";
const fs::path kGoodPlugins = fs::path(HMO_BINARY_DIR) / "tests/fixtures/good";
const fs::path kBrokenPlugins = fs::path(HMO_BINARY_DIR) / "tests/fixtures/broken";
const fs::path kData = fs::path(HMO_TEST_DATA_DIR) / "cli/data";

std::string ReadFile(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> FileNamesIn(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class HmoCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    work_ = fs::temp_directory_path() /
            fmt::format("hmo_cli_{}_{}", getpid(), info->name());
    fs::remove_all(work_);
    fs::create_directories(work_);
  }
  void TearDown() override { fs::remove_all(work_); }

  // Runs `hmo ARGS` in the work directory with an empty HMO_PLUGIN_PATH
  // (unless `environment` sets it).
  CommandResult Hmo(const std::string& args, const std::string& environment = "HMO_PLUGIN_PATH=") {
    const fs::path out = work_ / "stdout.txt", err = work_ / "stderr.txt";
    const std::string command = fmt::format("cd '{}' && env {} '{}' {} >'{}' 2>'{}'",
                                            work_.string(), environment, kHmo.string(), args,
                                            out.string(), err.string());
    const int status = std::system(command.c_str());
    CommandResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = ReadFile(out);
    result.err = ReadFile(err);
    fs::remove(out);
    fs::remove(err);
    return result;
  }

  static std::string Good() { return "--plugin-dir '" + kGoodPlugins.string() + "'"; }
  static std::string Data(std::string_view name) { return "'" + (kData / name).string() + "'"; }

  void WriteFile(const fs::path& path, std::string_view text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  fs::path work_;
};

TEST_F(HmoCliTest, OverviewListsEverySubcommand) {
  CommandResult result = Hmo("--help");
  EXPECT_EQ(result.exit_code, 0);
  for (const char* command : {"fmt", "verify", "run", "plugins", "passes"}) {
    EXPECT_THAT(result.out, ContainsRegex(fmt::format("\n  {} +[a-z]", command)));
  }
  CommandResult unknown = Hmo("rnu");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown command 'rnu' (did you mean 'run'?)"));
}

TEST_F(HmoCliTest, EverySubcommandHasHelp) {
  for (const char* command : {"fmt", "verify", "run", "plugins", "passes"}) {
    CommandResult result = Hmo(fmt::format("{} --help", command));
    EXPECT_EQ(result.exit_code, 0) << command;
    EXPECT_THAT(result.out, HasSubstr(fmt::format("usage: hmo {}", command)));
    EXPECT_THAT(result.out, HasSubstr("-h, --help"));
  }
  CommandResult bad = Hmo("run --no-such-flag");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("unknown option '--no-such-flag'"));
}

TEST_F(HmoCliTest, FmtPrintsCanonicalTextAndWritesFiles) {
  WriteFile(work_ / "messy.hlo",
            "HloModule messy\nENTRY e {\n  p = f32[2]   parameter(0)\n  ROOT n = f32[2] "
            "negate(p)\n}\n");
  CommandResult printed = Hmo("fmt messy.hlo");
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_THAT(printed.out, HasSubstr("HloModule messy"));
  EXPECT_THAT(printed.out, HasSubstr("negate("));
  CommandResult written = Hmo("fmt messy.hlo -o clean.hlo");
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(ReadFile(work_ / "clean.hlo"), printed.out);
  // Formatting is idempotent.
  CommandResult again = Hmo("fmt clean.hlo");
  EXPECT_EQ(again.out, printed.out);

  WriteFile(work_ / "broken.hlo", "HloModule b\nENTRY e {\n  ROOT x = f32[2] nosuchop()\n}\n");
  CommandResult broken = Hmo("fmt broken.hlo -o never.hlo");
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_THAT(broken.err, HasSubstr("broken.hlo:3:"));
  EXPECT_FALSE(fs::exists(work_ / "never.hlo"));
}

TEST_F(HmoCliTest, VerifyReportsOkOrEveryError) {
  CommandResult ok = Hmo("verify " + Data("small.hlo"));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("small.hlo: ok"));
  WriteFile(work_ / "bad.hlo",
            "HloModule bad\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[3] negate(p)\n}\n");
  CommandResult bad = Hmo("verify bad.hlo");
  EXPECT_EQ(bad.exit_code, 1);
  // Placed where the instruction was written, with the line and a caret.
  EXPECT_EQ(bad.err,
            "bad.hlo:4:8: error: module 'bad': instruction n in computation e: shape f32[3] does not "
            "match the inferred shape f32[2] (rule: elementwise-shapes)\n"
            "  ROOT n = f32[3] negate(p)\n"
            "       ^\n");
}

TEST_F(HmoCliTest, PluginsListsFilesVersionsAndRegistrations) {
  CommandResult result = Hmo("plugins " + Good());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr(kGoodPlugins.string()));
  EXPECT_THAT(result.out, HasSubstr(fmt::format("fixture-passes 1.0.0 (C++ plugin, ABI {}.{})",
                                                HMO_PLUGIN_ABI_MAJOR, HMO_PLUGIN_ABI_MINOR)));
  EXPECT_THAT(result.out, HasSubstr(fmt::format("fixture-c-strategies 0.3.0 (C plugin, ABI {}.{})",
                                                HMO_PLUGIN_ABI_MAJOR, HMO_PLUGIN_ABI_MINOR)));
  EXPECT_THAT(result.out, ContainsRegex("strategies: +fixture-text-order, fixture-misbehave"));
  EXPECT_THAT(result.out, ContainsRegex("backends: +fixture-backend"));
  EXPECT_THAT(result.out, ContainsRegex("analyses: +fixture-instruction-count"));
  EXPECT_THAT(result.out, HasSubstr("libhmo_fixture_more_passes.so"));
}

TEST_F(HmoCliTest, PluginsReportsBrokenPluginsAfterListingTheRest) {
  CommandResult result = Hmo("plugins " + Good() + " --plugin-dir '" + kBrokenPlugins.string() + "'");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("fixture-passes 1.0.0"));
  EXPECT_THAT(result.err, HasSubstr("libhmo_broken_abi_major.so: plugin ABI version is 2.4"));
  EXPECT_THAT(result.err, HasSubstr("libhmo_broken_duplicate_pass.so: plugin "
                                    "'broken-duplicate-pass': register_passes failed"));
}

TEST_F(HmoCliTest, PluginPathEnvironmentVariableIsSearched) {
  CommandResult result = Hmo("plugins", "HMO_PLUGIN_PATH='/nowhere:" + kGoodPlugins.string() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("fixture-passes 1.0.0"));
}

TEST_F(HmoCliTest, PassesListsOptionsWithTypesDefaultsAndHelp) {
  CommandResult result = Hmo("passes fixture-tag-module " + Good());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("fixture-tag-module  (plugin fixture-passes)"));
  EXPECT_THAT(result.out, HasSubstr("label: string (required)\n        the tag to append"));
  EXPECT_THAT(result.out, HasSubstr("repeat: int (default 1)"));
  EXPECT_THAT(result.out, HasSubstr("scale: double (default 1)"));
  EXPECT_THAT(result.out, HasSubstr("upper: bool (default false)"));
  EXPECT_THAT(result.out, HasSubstr("parts: string-list (default [])"));
  // An enum option of a loaded plugin lists what it allows.
  EXPECT_THAT(result.out, HasSubstr("side: one of back | front (default back)"));
  CommandResult all = Hmo("passes " + Good());
  EXPECT_THAT(all.out, HasSubstr("fixture-rename-module  (plugin fixture-more-passes)"));
  CommandResult typo = Hmo("passes fixture-tag-modul " + Good());
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_THAT(typo.err, HasSubstr("(did you mean 'fixture-tag-module'?)"));
}

// Scheduler strategies are listed after the passes, with the options each
// declares (ABI 1.3), as memory-scheduler forwards them.
TEST_F(HmoCliTest, PassesListsTheStrategiesAndTheirDeclaredOptions) {
  CommandResult exact = Hmo("passes exact");
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  EXPECT_THAT(exact.out, HasSubstr("exact  (scheduler strategy, plugin exact-strategy)"));
  EXPECT_THAT(exact.out, HasSubstr("max-states: int (default 200000)"));
  EXPECT_THAT(exact.out, HasSubstr("window: int (default 20)"));
  CommandResult list = Hmo("passes list");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("(takes no options)"));
  CommandResult all = Hmo("passes");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_THAT(all.out, HasSubstr("\nscheduler strategies:\n"));
  EXPECT_THAT(all.out,
              HasSubstr("local-search  (scheduler strategy, plugin local-search-strategy)"));
  CommandResult typo = Hmo("passes exactt");
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_THAT(typo.err, HasSubstr("unknown pass or strategy 'exactt' (did you mean 'exact'?)"));
}

TEST_F(HmoCliTest, AnEnumOptionOfAPluginPassIsRefusedAtItsValue) {
  CommandResult result = Hmo("run --passes='fixture-tag-module{label=ab,side=frnt}' " +
                             Data("small.hlo") + " -o out.hlo " + Good());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("<--passes>:1:34: error: pass 'fixture-tag-module': option "
                                    "'side' must be one of back, front, not 'frnt' (did you mean "
                                    "'front'?)"));
  EXPECT_FALSE(std::filesystem::exists(work_ / "out.hlo"));
  CommandResult front = Hmo("run --passes='fixture-tag-module{label=ab,side=front}' " +
                            Data("small.hlo") + " " + Good());
  ASSERT_EQ(front.exit_code, 0) << front.err;
  EXPECT_THAT(front.out, HasSubstr("HloModule ab_small"));
}

TEST_F(HmoCliTest, RunsAYamlPipelineOfPassesFromTwoPluginFiles) {
  CommandResult result = Hmo("run " + Data("two_plugins.yaml") + " " + Data("small.hlo") + " " +
                             Good());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // One input, no -o: the module goes to stdout and the summary to stderr.
  EXPECT_THAT(result.out, HasSubstr("HloModule renamedxxx.4"));
  EXPECT_THAT(result.err,
              HasSubstr("small.hlo: module 'small': 6 pass runs, changed by "
                        "fixture-rename-module, fixture-grow-name, "
                        "fixture-append-instruction-count"));
}

TEST_F(HmoCliTest, RunsATextualPipelineAndWritesTheOutputFile) {
  CommandResult result =
      Hmo("run --passes='fixture-tag-module{label=ab,repeat=2,upper=true,parts=[x,y],scale=0.5}' " +
          Data("small.hlo") + " -o out.hlo " + Good());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(ReadFile(work_ / "out.hlo"), HasSubstr("HloModule small_ABAB_x_y_s0.5"));
  EXPECT_THAT(result.out, HasSubstr("1 pass run, changed by fixture-tag-module"));
  EXPECT_THAT(FileNamesIn(work_), ::testing::ElementsAre("out.hlo"));
}

TEST_F(HmoCliTest, PipelineErrorsPointIntoTheSource) {
  CommandResult yaml = Hmo("run " + Data("misspelt_pass.yaml") + " " + Data("small.hlo") + " " +
                           Good());
  EXPECT_EQ(yaml.exit_code, 1);
  EXPECT_THAT(yaml.err, HasSubstr("misspelt_pass.yaml:3:11: error: unknown pass "
                                  "'fixture-grow-nmae' (did you mean 'fixture-grow-name'?)\n"
                                  "  - pass: fixture-grow-nmae\n"
                                  "          ^"));
  CommandResult text = Hmo("run --passes='fixture-grow-name{max-length=many}' " +
                           Data("small.hlo") + " " + Good());
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_THAT(text.err, HasSubstr("<--passes>:1:30: error: pass 'fixture-grow-name': option "
                                  "'max-length': expected an int, got 'many'"));
  CommandResult missing = Hmo("run --passes=fixture-tag-module " + Data("small.hlo") + " " + Good());
  EXPECT_THAT(missing.err, HasSubstr("<--passes>:1:1: error: pass 'fixture-tag-module': missing "
                                     "required option 'label'"));
}

TEST_F(HmoCliTest, PipelinePluginReferencesAreLoadedOrReportedWithPositions) {
  WriteFile(work_ / "p.yaml",
            fmt::format("version: 1\nplugins:\n  - {}\n  - no-such-plugin\npasses: [fixture-grow-name]\n",
                        (kGoodPlugins / "libhmo_fixture_passes.so").string()));
  CommandResult result = Hmo("run p.yaml " + Data("small.hlo"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("p.yaml:4:5: error: plugin 'no-such-plugin' not found"));
  WriteFile(work_ / "q.yaml",
            fmt::format("version: 1\nplugins: [{}]\npasses: [fixture-grow-name]\n",
                        (kGoodPlugins / "libhmo_fixture_passes.so").string()));
  CommandResult loaded = Hmo("run q.yaml " + Data("small.hlo"));
  EXPECT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_THAT(loaded.out, HasSubstr("HloModule smallx\n"));
}

TEST_F(HmoCliTest, ManyInputsRunInParallelAndAFailureDoesNotStopTheOthers) {
  const std::string small = ReadFile(kData / "small.hlo");
  for (int i = 0; i < 5; ++i) {
    std::string text = small;
    text.replace(text.find("small"), 5, fmt::format("m{}", i));
    WriteFile(work_ / "in" / fmt::format("m{}.hlo", i), text);
  }
  WriteFile(work_ / "in/sub/broken.hlo", "HloModule broken\nENTRY e {\n  ROOT x = f32[ parameter(0)\n}\n");
  WriteFile(work_ / "in/ignored.md", "not hlo");
  CommandResult result = Hmo("run --passes='fixture-grow-name{max-length=4}' in -o out -j 3 " + Good());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("6 modules: 5 ok, 1 failed"));
  EXPECT_THAT(result.err, HasSubstr("in/sub/broken.hlo:3:"));
  EXPECT_THAT(FileNamesIn(work_ / "out"),
              ::testing::ElementsAre("m0.hlo", "m1.hlo", "m2.hlo", "m3.hlo", "m4.hlo"));
  EXPECT_THAT(ReadFile(work_ / "out/m3.hlo"), HasSubstr("HloModule m3x\n"));
}

TEST_F(HmoCliTest, AFailingPipelineLeavesTheOutputUntouched) {
  WriteFile(work_ / "out.hlo", "previous contents\n");
  CommandResult result = Hmo("run --passes='fixture-grow-name,fixture-fail{message=\"no luck\"}' " +
                             Data("small.hlo") + " -o out.hlo " + Good());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("pass 'fixture-fail' failed on module 'smallx': no luck"));
  EXPECT_EQ(ReadFile(work_ / "out.hlo"), "previous contents\n");
  EXPECT_THAT(FileNamesIn(work_), ::testing::ElementsAre("out.hlo"));
}

TEST_F(HmoCliTest, VerifierNamesThePassThatBrokeTheModule) {
  CommandResult result = Hmo("run --verify=changed --passes='fixture-grow-name,fixture-break-shape' " +
                             Data("small.hlo") + " " + Good());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, ContainsRegex("module 'smallx' failed verification: .*; after pass "
                                        "fixture-break-shape\n"));
  CommandResult unverified = Hmo("run --verify=never --passes=fixture-break-shape " +
                                 Data("small.hlo") + " " + Good());
  EXPECT_EQ(unverified.exit_code, 0) << unverified.err;
}

TEST_F(HmoCliTest, CheckChangedCatchesAMisreportingPass) {
  CommandResult honest = Hmo("run --check-changed --passes='fixture-grow-name{max-length=6}' " +
                             Data("small.hlo") + " " + Good());
  EXPECT_EQ(honest.exit_code, 0) << honest.err;
  CommandResult lying = Hmo("run --check-changed --passes='fixture-misreport{claim=unchanged}' " +
                            Data("small.hlo") + " " + Good());
  EXPECT_EQ(lying.exit_code, 1);
  EXPECT_THAT(lying.err, HasSubstr("pass 'fixture-misreport' reported changed=false but changed "
                                   "module 'small_renamed'"));
  // Without the check (the test suite turns it on by default) the lie goes
  // unnoticed.
  CommandResult unchecked =
      Hmo("run --passes='fixture-misreport{claim=unchanged}' " + Data("small.hlo") + " " + Good(),
          "HMO_PLUGIN_PATH= HMO_CHECK_CHANGED=0");
  EXPECT_EQ(unchecked.exit_code, 0) << unchecked.err;
}

TEST_F(HmoCliTest, DumpsAfterMatchingPassesAndTheResolvedPipeline) {
  CommandResult result =
      Hmo("run --passes='fixture-rename-module{name=d},fixed-point{fixture-grow-name{max-length=3}}' " +
          Data("small.hlo") + " -o out.hlo --dump-to dumps --dump-after='fixture-grow-.*' " + Good());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(FileNamesIn(work_ / "dumps"),
              ::testing::ElementsAre("dx.0002.after_fixture-grow-name.hlo",
                                     "dxx.0003.after_fixture-grow-name.hlo",
                                     "dxx.0004.after_fixture-grow-name.hlo", "pipeline.yaml"));
  EXPECT_THAT(ReadFile(work_ / "dumps/pipeline.yaml"),
              HasSubstr("dump:\n  to: dumps\n  after: fixture-grow-.*\n"));
  EXPECT_EQ(ReadFile(work_ / "dumps/dxx.0004.after_fixture-grow-name.hlo"),
            ReadFile(work_ / "out.hlo"));
}

TEST_F(HmoCliTest, TimePassesPrintsATable) {
  CommandResult result = Hmo("run --time-passes --passes='fixed-point{fixture-grow-name}' " +
                             Data("small.hlo") + " -o out.hlo " + Good());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, ContainsRegex("pass +runs +total \\(ms\\) +share\n"));
  EXPECT_THAT(result.err, ContainsRegex("\nfixture-grow-name +4 +[0-9.]+ +100.0%\n"));
}

TEST_F(HmoCliTest, DumpPipelinePrintsTheResolvedYaml) {
  CommandResult result = Hmo("run --dump-pipeline --verify=always "
                             "--passes='fixture-grow-name{suffix=y},fixed-point(max-iterations=2){"
                             "fixture-tag-module{label=t}}' " + Good());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "version: 1\n"
            "verify: always\n"
            "target: cpu\n"
            "passes:\n"
            "  - pass: fixture-grow-name\n"
            "    options:\n"
            "      suffix: y\n"
            "      max-length: 8\n"
            "  - fixed-point:\n"
            "      max-iterations: 2\n"
            "      passes:\n"
            "        - pass: fixture-tag-module\n"
            "          options:\n"
            "            label: t\n"
            "            repeat: 1\n"
            "            scale: 1\n"
            "            upper: false\n"
            "            parts: []\n"
            "            side: back\n");
  // The printed pipeline runs as a file.
  WriteFile(work_ / "resolved.yaml", result.out);
  CommandResult rerun = Hmo("run resolved.yaml " + Data("small.hlo") + " " + Good());
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_THAT(rerun.out, HasSubstr("HloModule smally_t_t\n"));
}

TEST_F(HmoCliTest, SelectsASchedulerStrategyFromYaml) {
  CommandResult result = Hmo("run " + Data("text_order_schedule.yaml") + " " + Data("wide.hlo") +
                             " -o out.hlo " + Good());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(ReadFile(work_ / "out.hlo"), HasSubstr("is_scheduled=true"));
  CommandResult invalid =
      Hmo("run --passes='fixture-schedule-with-strategy{strategy=fixture-misbehave,"
          "strategy-options=[mode=duplicate]}' " + Data("wide.hlo") + " " + Good());
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_THAT(invalid.err, HasSubstr("scheduler strategy 'fixture-misbehave' (plugin "
                                     "'fixture-c-strategies') returned an invalid order for "
                                     "computation 'main': instruction 'p0' (id 0) appears twice"));
}

}  // namespace
}  // namespace hmo
