// Every reproducer in tests/hostile_input/hlo (README there) through the
// commands a user runs on a module: each must exit 1 with its expected,
// file-naming error on stderr and leave no output file; a signal, a hang
// (bounded by `timeout`) or a success is a failure.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "support/hmo_cli_runner.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

fs::path ReproducerDir() { return fs::path(HMO_TEST_DATA_DIR) / "hostile_input" / "hlo"; }

std::vector<std::string> Reproducers() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(ReproducerDir())) {
    if (entry.path().extension() == ".hlo") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The first line: "// expect: TEXT" (every command refuses the file) or
// "// expect-when-analysed: TEXT" (it parses; the commands that analyse it
// refuse it, while fmt, which only prints, may accept it).
struct Expectation {
  std::string text;
  bool parses = false;
};

Expectation ExpectedError(const fs::path& path) {
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  for (const auto& [prefix, parses] :
       {std::pair<std::string, bool>{"// expect: ", false}, {"// expect-when-analysed: ", true}}) {
    if (first.rfind(prefix, 0) == 0) return {first.substr(prefix.size()), parses};
  }
  return {};
}

struct Command {
  const char* name;
  const char* arguments;  // FILE and OUT are replaced
  bool analyses;
};

constexpr Command kCommands[] = {
    {"fmt", "fmt FILE -o OUT", false},
    {"verify", "verify FILE", true},
    {"stats", "stats FILE -o OUT", true},
    {"run", "run --verify=never --passes=memory-scheduler{strategy=list} FILE -o OUT", true},
};

class HostileInputTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HostileInputTest, EveryCommandRefusesItCleanly) {
  const fs::path input = ReproducerDir() / (GetParam() + ".hlo");
  const Expectation expected = ExpectedError(input);
  ASSERT_FALSE(expected.text.empty()) << input << " needs a first line '// expect: TEXT'";
  for (const Command& command : kCommands) {
    const fs::path out =
        fs::temp_directory_path() / absl::StrCat("hmo_hostile_", GetParam(), "_", command.name, "_", ::getpid());
    fs::remove(out);
    std::string arguments = command.arguments;
    arguments.replace(arguments.find("FILE"), 4, "'" + input.string() + "'");
    if (size_t at = arguments.find("OUT"); at != std::string::npos) arguments.replace(at, 3, out.string());
    // `timeout` turns a hang into exit 124, which fails like a crash.
    const test_support::HmoCliRun run = test_support::RunHmoCli(arguments, "timeout 60");
    if (expected.parses && !command.analyses) {
      EXPECT_EQ(run.exit_code, 0) << command.name << ": " << run.err;
      fs::remove(out);
      continue;
    }
    EXPECT_EQ(run.exit_code, 1) << command.name << ": " << run.err;
    EXPECT_NE(run.err.find(expected.text), std::string::npos) << command.name << ": " << run.err;
    EXPECT_NE(run.err.find(input.filename().string()), std::string::npos)
        << command.name << " names the file: " << run.err;
    // An instruction's error is placed where it was written.
    if (expected.parses && run.err.find("instruction ") != std::string::npos) {
      EXPECT_TRUE(std::regex_search(run.err, std::regex(input.filename().string() + ":[0-9]+:[0-9]+: ")))
          << command.name << " gives the line and column: " << run.err;
    }
    EXPECT_FALSE(fs::exists(out)) << command.name << " left " << out;
    fs::remove(out);
  }
}

// Inputs that are not regular files would never end (/dev/zero grows a
// string until the allocator aborts, /dev/urandom never reaches a parser
// error) or are no input: each is refused before it is read, as an HLO
// file, a pipeline and an .npy argument (a directory given to `hmo stats`
// is read as an XLA dump directory, and refused when it holds no module).
TEST(HostileInputFileTest, DevicesAndDirectoriesAreRefusedBeforeReading) {
  const std::string module = (ReproducerDir() / "bitcast_of_tuple.hlo").string();
  for (const std::string& path :
       std::vector<std::string>{"/dev/zero", "/dev/urandom", std::string(HMO_TEST_DATA_DIR)}) {
    for (const std::string& arguments :
         {absl::StrCat("stats ", path), absl::StrCat("verify ", path),
          absl::StrCat("run ", path, " ", module),
          absl::StrCat("run --passes=memory-scheduler --execute --inputs ", path, " ", module)}) {
      const test_support::HmoCliRun run = test_support::RunHmoCli(arguments, "timeout 60");
      EXPECT_EQ(run.exit_code, 1) << arguments << ": " << run.err;
      if (arguments.rfind("stats ", 0) == 0 && path == std::string(HMO_TEST_DATA_DIR)) {
        // `hmo stats DIR` reads a dump directory; one without modules is
        // refused naming what it looked for.
        EXPECT_NE(run.err.find(path + ": no module_<N>.<program>_after_optimizations.txt file"),
                  std::string::npos)
            << arguments << ": " << run.err;
      } else if (arguments.find("--inputs") == std::string::npos) {
        EXPECT_NE(run.err.find(path + ": is a "), std::string::npos)
            << arguments << ": " << run.err;
        EXPECT_NE(run.err.find("an input must be a regular file"), std::string::npos)
            << arguments << ": " << run.err;
      }
    }
  }
}

// A verified module with a dynamic shape is refused by name at execution
// (the backends and the evaluator run static shapes), never run at its bound.
TEST(HostileInputFileTest, DynamicShapesAreRefusedAtExecution) {
  const fs::path module =
      fs::temp_directory_path() / absl::StrCat("hmo_dynamic_", ::getpid(), ".hlo");
  {
    std::ofstream out(module);
    out << "HloModule dynamic\nENTRY main {\n  p = f32[<=8]{0} parameter(0)\n"
           "  ROOT n = f32[<=8]{0} negate(p)\n}\n";
  }
  for (const char* backend : {"cpu", "gpu-emulated"}) {
    const test_support::HmoCliRun run =
        test_support::RunHmoCli(absl::StrCat("run --passes=memory-scheduler --check --backend ",
                                             backend, " ", module.string()),
                                "timeout 60");
    EXPECT_EQ(run.exit_code, 1) << backend << ": " << run.err;
    EXPECT_NE(run.err.find("instruction p in computation main has the dynamic shape f32[<=8]"),
              std::string::npos)
        << backend << ": " << run.err;
  }
  fs::remove(module);
}

INSTANTIATE_TEST_SUITE_P(Reproducers, HostileInputTest, ::testing::ValuesIn(Reproducers()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hmo
