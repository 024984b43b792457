// `hmo run --memory-limit` and a pipeline's `memory-limit:` end to end, on
// XLA's optimized dump of a JAX training step: under the limit the module is
// written and the check is reported; over it, hmo exits 1 with the floor and
// the values live at it, and writes nothing.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/hmo_cli_runner.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Data(const std::string& relative) {
  return std::string(HMO_TEST_DATA_DIR) + "/" + relative;
}

const std::string kStep =
    Data("corpus/mlp_sgd/module_0000.jit_mlp_sgd_step.cpu_after_optimizations.txt");
const std::string kScheduler = std::string(HMO_SOURCE_DIR) + "/pipelines/memory-scheduler.yaml";

TEST(MemoryLimitCliTest, UnderTheLimitWritesAndReports) {
  const fs::path out = fs::temp_directory_path() / ("hmo_limit_ok_" + std::to_string(getpid()));
  auto run = hmo::test_support::RunHmoCli("run " + kScheduler + " " + kStep + " -o " +
                                          out.string() + " --memory-limit 1MiB");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("memory-limit: device "));
  EXPECT_THAT(run.out, HasSubstr(" <= limit 1,048,576 B (1.00 MiB)"));
  EXPECT_TRUE(fs::exists(out));
  fs::remove(out);
}

TEST(MemoryLimitCliTest, OverTheLimitFailsWithTheFloorAndWritesNothing) {
  const fs::path out = fs::temp_directory_path() / ("hmo_limit_over_" + std::to_string(getpid()));
  auto run = hmo::test_support::RunHmoCli("run " + kScheduler + " " + kStep + " -o " +
                                          out.string() + " --memory-limit 40KiB");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("the module does not fit the memory limit: device "));
  EXPECT_THAT(run.err, HasSubstr("> limit 40,960 B (40.00 KiB)"));
  EXPECT_THAT(run.err, HasSubstr("of temporaries live together at schedule time"));
  EXPECT_THAT(run.err, HasSubstr("params_1___w__.1 f32[64,64]{1,0} 16,384 B (16.00 KiB): "
                                 "parameter donated to an output"));
  // Each value names the line of the user's program that made it (the
  // dump's StackFrames tables), and the bytes are summed by that line.
  EXPECT_THAT(run.err, HasSubstr("; made at "));
  EXPECT_THAT(run.err, HasSubstr("generate.py:98 (build_mlp_sgd.<locals>.loss_fn)"));
  EXPECT_THAT(run.err,
              HasSubstr("live then, by where the program made them, largest first:\n"
                        "    (the program's arguments): 29,800 B (29.10 KiB) in 8 values"));
  EXPECT_THAT(run.err, HasSubstr("generate.py:100 (build_mlp_sgd.<locals>.loss_fn): 8,192 B "
                                 "(8.00 KiB) in 2 values"));
  EXPECT_FALSE(fs::exists(out));
}

TEST(MemoryLimitCliTest, PipelineLimitAndItsErrorsArePositioned) {
  const fs::path yaml =
      fs::temp_directory_path() / ("hmo_limit_" + std::to_string(getpid()) + ".yaml");
  std::ofstream(yaml) << "version: 1\nmemory-limit: 40KiB\npasses:\n  - memory-scheduler\n";
  auto over = hmo::test_support::RunHmoCli("run " + yaml.string() + " " + kStep);
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_THAT(over.err, HasSubstr("does not fit the memory limit"));
  // The command line overrides the pipeline.
  auto overridden =
      hmo::test_support::RunHmoCli("run " + yaml.string() + " " + kStep + " --memory-limit 1MiB");
  EXPECT_EQ(overridden.exit_code, 0) << overridden.err;
  std::ofstream(yaml) << "version: 1\nmemory-limit: 40 kb\npasses:\n  - memory-scheduler\n";
  auto bad = hmo::test_support::RunHmoCli("run " + yaml.string() + " " + kStep);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.err, HasSubstr(yaml.string() + ":2:15: error: 'memory-limit': invalid byte "
                                                 "size '40 kb': unknown unit 'kb'"));
  auto bad_flag =
      hmo::test_support::RunHmoCli("run " + kScheduler + " " + kStep + " --memory-limit lots");
  EXPECT_NE(bad_flag.exit_code, 0);
  EXPECT_THAT(bad_flag.err, HasSubstr("--memory-limit: invalid byte size 'lots'"));
  fs::remove(yaml);
}

}  // namespace
