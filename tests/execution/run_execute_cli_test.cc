// `hmo run --execute` option handling, through the built binary. (Running a
// module end to end needs an executing backend plugin and is tested with it.)

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/hmo_cli_runner.h"

namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

using CommandRun = hmo::test_support::HmoCliRun;

CommandRun RunHmo(const std::string& arguments) {
  return hmo::test_support::RunHmoCli(arguments, "HMO_PLUGIN_PATH=");
}

std::string Data(const std::string& relative) {
  return std::string(HMO_TEST_DATA_DIR) + "/" + relative;
}

TEST(RunExecuteCliTest, UnknownBackendIsAClearError) {
  CommandRun run = RunHmo("run --passes=memory-report --execute --backend nosuch " + Data("hlo/test_hlo.txt"));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("hmo run: error: --backend nosuch: no such backend; "));
  // Lists what can execute, or says that nothing that can is loaded.
  EXPECT_THAT(run.err, AnyOf(HasSubstr("executing backends: "), HasSubstr("no executing backend is loaded")));
  EXPECT_EQ(run.out, "");  // nothing ran
}

TEST(RunExecuteCliTest, CheckAlsoNeedsAnExecutingBackend) {
  CommandRun run = RunHmo("run --passes=memory-report --check --backend nosuch " + Data("hlo/test_hlo.txt"));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("--backend nosuch: no such backend"));
}

TEST(RunExecuteCliTest, ADescriptionOnlyBackendCannotExecute) {
  // The fixture plugins (tests/fixtures) register `fixture-backend`, which
  // describes a target but does not compile.
  const std::filesystem::path fixtures = std::filesystem::path(HMO_BINARY_DIR) / "tests/fixtures/good";
  // hmo_execution_tests depends on hmo-test-fixtures: they are always built.
  ASSERT_TRUE(std::filesystem::exists(fixtures / "libhmo_fixture_more_passes.so")) << fixtures;
  CommandRun run = RunHmo("run --plugin-dir " + fixtures.string() +
                          " --passes=memory-report --execute --backend fixture-backend " + Data("hlo/test_hlo.txt"));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("--backend fixture-backend: backend 'fixture-backend' (plugin "));
  EXPECT_THAT(run.err, HasSubstr("cannot execute modules"));
}

TEST(RunExecuteCliTest, HelpListsTheExecutionOptions) {
  CommandRun run = RunHmo("run --help");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  for (const char* option :
       {"--execute", "--check", "--backend", "--inputs", "--seed", "--results-dir", "--opt-level",
        "--rtol", "--atol", "--repeat", "--max-loop-trips"}) {
    EXPECT_THAT(run.out, HasSubstr(option));
  }
}

TEST(RunExecuteCliTest, ExecutionOptionsWithoutExecuteAreRefused) {
  // They would be ignored: the module is only transformed.
  CommandRun run = RunHmo("run --passes=memory-report --inputs a.npy " + Data("hlo/test_hlo.txt"));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("--inputs applies to execution: add --execute or --check"));
  EXPECT_THAT(run.out, ::testing::Not(HasSubstr("HloModule")));
}

TEST(RunExecuteCliTest, EmptyOptionValuesAreRefused) {
  for (const char* option : {"--inputs ''", "--memory-limit ''", "--plugin-dir ''", "--seed="}) {
    CommandRun run = RunHmo(std::string("run --passes=memory-report --execute ") + option + " " +
                            Data("hlo/test_hlo.txt"));
    EXPECT_EQ(run.exit_code, 2) << option << ": " << run.err;
    EXPECT_THAT(run.err, HasSubstr("got an empty one")) << option;
  }
}

TEST(RunExecuteCliTest, APluginDirectoryThatDoesNotExistIsRefused) {
  CommandRun run = RunHmo("run --plugin-dir /nonexistent/plugins --passes=memory-report " +
                          Data("hlo/test_hlo.txt"));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err,
              HasSubstr("hmo run: error: --plugin-dir /nonexistent/plugins: no such directory"));
}

TEST(RunExecuteCliTest, WithoutExecuteNothingChanges) {
  // The pipeline alone still prints the module to stdout.
  CommandRun run = RunHmo("run --passes=memory-report " + Data("hlo/test_hlo.txt"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("HloModule"));
}

}  // namespace
