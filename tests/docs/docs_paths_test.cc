// The documents name files of the tree (`framework/src/...`, `plugins/...`);
// a file renamed or removed without the document following would leave a
// page that sends the reader nowhere. Every path in backquotes that starts at
// one of the tree's top-level folders must exist (a `*` or `{a,b}` pattern
// must match something).

#include <glob.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> kTopLevelFolders = {"framework", "plugins", "backends", "pipelines",
                                                "tests",     "docs",    "scripts",  "bench",
                                                "examples",  "cmake"};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The backquoted spans of `text` that look like a path in the tree: a first
// component naming a top-level folder, then at least one more.
std::vector<std::string> TreePaths(const std::string& text) {
  static const std::regex span("`([A-Za-z0-9_./*{},-]+)`");
  std::vector<std::string> paths;
  for (std::sregex_iterator it(text.begin(), text.end(), span), end; it != end; ++it) {
    std::string path = (*it)[1];
    const size_t slash = path.find('/');
    if (slash == std::string::npos || slash + 1 == path.size() ||
        !kTopLevelFolders.contains(path.substr(0, slash))) {
      continue;
    }
    paths.push_back(path);
  }
  return paths;
}

bool Exists(const fs::path& root, const std::string& path) {
  if (path.find_first_of("*{") == std::string::npos) return fs::exists(root / path);
  glob_t matches;
  const std::string pattern = (root / path).string();
  const int found = glob(pattern.c_str(), GLOB_BRACE | GLOB_NOSORT, nullptr, &matches);
  const bool any = found == 0 && matches.gl_pathc > 0;
  globfree(&matches);
  return any;
}

std::vector<fs::path> Documents(const fs::path& root) {
  std::vector<fs::path> documents = {root / "README.md"};
  for (const auto& entry : fs::directory_iterator(root / "docs")) {
    if (entry.path().extension() == ".md") documents.push_back(entry.path());
  }
  return documents;
}

TEST(DocsPathsTest, EveryPathTheDocumentsNameExists) {
  const fs::path root(HMO_SOURCE_DIR);
  int checked = 0;
  for (const fs::path& document : Documents(root)) {
    for (const std::string& path : TreePaths(ReadFile(document))) {
      ++checked;
      EXPECT_TRUE(Exists(root, path)) << fs::relative(document, root).string() << " names `" << path
                                      << "`, which is not in the tree";
    }
  }
  // The life-of-a-module page alone names several dozen.
  EXPECT_GT(checked, 50);
}

// The page that follows one module through hmo names a file for every step.
TEST(DocsPathsTest, LifeOfAModuleNamesAFileForEachStep) {
  const std::string text = ReadFile(fs::path(HMO_SOURCE_DIR) / "docs" / "LIFE_OF_A_MODULE.md");
  for (const char* step :
       {"framework/src/text/hlo_parser.cc", "framework/src/verifier/hlo_verifier.cc",
        "framework/src/pipeline/pass_manager.cc", "framework/src/analysis/target_memory_model.cc",
        "backends/cpu/compiler/cpu_compiler.cc", "framework/src/execution/module_execution.cc",
        "framework/src/eval/hlo_evaluator.cc"}) {
    EXPECT_THAT(text, ::testing::HasSubstr(std::string("`") + step + "`"));
  }
}

// The scanner itself: a made-up path is reported, a pattern must match.
TEST(DocsPathsTest, AMissingPathIsFound) {
  const fs::path root(HMO_SOURCE_DIR);
  const std::vector<std::string> paths = TreePaths(
      "see `framework/src/no_such_file.cc`, `plugins/scheduler/strategies/*.cc`, "
      "`build/bin/hmo` and `docs`");
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_FALSE(Exists(root, paths[0]));
  EXPECT_TRUE(Exists(root, paths[1]));
  EXPECT_FALSE(Exists(root, "plugins/scheduler/strategies/*.no_such_extension"));
  EXPECT_TRUE(Exists(root, "plugins/{scheduler,aliasing}/README.md"));
}

}  // namespace
}  // namespace hmo
