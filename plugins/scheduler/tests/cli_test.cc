// The hmo command line schedules a module with a strategy plugin:
//   hmo run --passes='memory-scheduler{strategy=list}' in.hlo -o out.hlo

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fmt/format.h"
#include "support/hmo_cli_runner.h"
#include "test_modules.h"

namespace {

constexpr std::string_view kModule = hmo::scheduler::testing::kLastUse;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs hmo with `arguments`; returns the exit status, with stderr in `log`.
int RunHmo(const std::string& arguments, const std::filesystem::path& log) {
  hmo::test_support::HmoCliRun run = hmo::test_support::RunHmoCli(arguments);
  std::ofstream(log) << run.err;
  return run.exit_code;
}

TEST(HmoCommandLine, SchedulesWithAStrategyPlugin) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "hmo_sched_cli";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "in.hlo") << kModule;
  const int status =
      RunHmo(fmt::format("run --passes='memory-scheduler{{strategy=list}}' '{}' -o '{}'",
                         (dir / "in.hlo").string(), (dir / "out.hlo").string()),
             dir / "log.txt");
  ASSERT_EQ(status, 0) << ReadFile(dir / "log.txt");
  const std::string out = ReadFile(dir / "out.hlo");
  EXPECT_NE(out.find("is_scheduled=true"), std::string::npos) << out;
  // The list scheduler's order (xla_strategies_test): exp, negate before ab.
  EXPECT_LT(out.find("exp = "), out.find("negate = "));
  EXPECT_LT(out.find("negate = "), out.find("ab = "));
  // The metrics are logged.
  EXPECT_NE(ReadFile(dir / "log.txt").find("list: 672 bytes"), std::string::npos)
      << ReadFile(dir / "log.txt");
}

TEST(HmoCommandLine, DefaultStrategyNamesWhatItChose) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "hmo_sched_cli2";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "in.hlo") << kModule;
  const int status = RunHmo(fmt::format("run --passes=memory-scheduler '{}' -o '{}'",
                                        (dir / "in.hlo").string(), (dir / "out.hlo").string()),
                            dir / "log.txt");
  ASSERT_EQ(status, 0) << ReadFile(dir / "log.txt");
  const std::string log = ReadFile(dir / "log.txt");
  for (const char* line : {"list: 672 bytes", "dfs: 504 bytes", "post-order: 504 bytes",
                           "selected: dfs"}) {
    EXPECT_NE(log.find(line), std::string::npos) << line << "\n" << log;
  }
}

TEST(HmoCommandLine, ReportFlagPrintsEveryCandidateAndTheChoice) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "hmo_sched_cli4";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "in.hlo") << kModule;
  hmo::test_support::HmoCliRun run = hmo::test_support::RunHmoCli(
      fmt::format("run --passes=memory-scheduler --report '{}' -o '{}'", (dir / "in.hlo").string(),
                  (dir / "out.hlo").string()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The summary goes to stdout when the module goes to a file.
  // Each candidate's heap peak and the device arenas the cpu target's
  // executable allocates under it (64-byte offsets, each allocation aligned
  // in the arena: list's 672-byte peak costs 768 B), compared on the latter.
  for (const char* line :
       {"  memory-scheduler (#1):\n", "    list: 672 bytes, device 768 B",
        "    dfs: 504 bytes, device 576 B", "    selected: dfs (by device-bytes)\n"}) {
    EXPECT_NE(run.out.find(line), std::string::npos) << line << "\n" << run.out;
  }
  // Without --report the summary has no metrics.
  hmo::test_support::HmoCliRun quiet = hmo::test_support::RunHmoCli(
      fmt::format("run --passes=memory-scheduler '{}' -o '{}'", (dir / "in.hlo").string(),
                  (dir / "out.hlo").string()));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out.find("selected:"), std::string::npos) << quiet.out;
}

TEST(HmoCommandLine, UnknownStrategyFails) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "hmo_sched_cli3";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "in.hlo") << kModule;
  const int status =
      RunHmo(fmt::format("run --passes='memory-scheduler{{strategy=lst}}' '{}' -o '{}'",
                         (dir / "in.hlo").string(), (dir / "out.hlo").string()),
             dir / "log.txt");
  EXPECT_NE(status, 0);
  EXPECT_NE(ReadFile(dir / "log.txt").find("unknown scheduler strategy 'lst'"), std::string::npos)
      << ReadFile(dir / "log.txt");
}

}  // namespace

// A JAX dump as the current jaxlib writes it (stack-frame tables, metadata
// with stack_frame_id), rescheduled: the user's source locations survive and
// the result, written in XLA's dump form, reads back.
TEST(HmoCommandLine, RescheduledJaxDumpKeepsItsSourceLocations) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "hmo_sched_cli_jax";
  std::filesystem::create_directories(dir);
  const std::filesystem::path input = std::filesystem::path(HMO_TEST_DATA_DIR) / "corpus/mlp_sgd" /
                                      "module_0000.jit_mlp_sgd_step.cpu_after_optimizations.txt";
  const std::string original = ReadFile(input);
  ASSERT_NE(original.find("\nStackFrames\n"), std::string::npos);
  const int status = RunHmo(fmt::format("run --passes=memory-scheduler --dump-form '{}' -o '{}'",
                                        input.string(), (dir / "out.hlo").string()),
                            dir / "log.txt");
  ASSERT_EQ(status, 0) << ReadFile(dir / "log.txt");
  const std::string out = ReadFile(dir / "out.hlo");
  // The tables are XLA's, verbatim, between the header and the computations.
  const size_t tables = original.find("\n\nFileNames\n");
  const size_t tables_end = original.find("\n\n\n", tables);
  ASSERT_NE(tables_end, std::string::npos);
  EXPECT_NE(out.find(original.substr(tables, tables_end - tables)), std::string::npos) << out.substr(0, 2000);
  EXPECT_NE(out.find("stack_frame_id="), std::string::npos);
  EXPECT_NE(out.find("ENTRY %main"), std::string::npos);  // dump form: % names
  // It reads back as the same module.
  const int again = RunHmo(fmt::format("verify '{}'", (dir / "out.hlo").string()), dir / "log2.txt");
  EXPECT_EQ(again, 0) << ReadFile(dir / "log2.txt");
}
